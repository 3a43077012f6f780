"""The rule extractor: a fold becomes segments, each segment an event with its facts and entities.

The rules are described in :mod:`huiyi.flows.extract.rules`.
"""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import timedelta
from pathlib import Path

from huiyi.flows.chatter import is_chatter
from huiyi.flows.extract import EntityDraft, EventDraft, Extraction, FactDraft, Fold
from huiyi.flows.extract.rules.aliases import aliases_in
from huiyi.flows.extract.rules.bookings import booked_in
from huiyi.flows.extract.rules.bookings_en import booked_in_en
from huiyi.flows.extract.rules.breakups import Breakups, partners_replaced
from huiyi.flows.extract.rules.cancels import Cancels
from huiyi.flows.extract.rules.cancels_en import english_cancels
from huiyi.flows.extract.rules.condense import (
    FILLER,
    absolute,
    annotate,
    condense,
    cut,
    dated,
    ends_sentence,
    first_of_each,
    without_emoji,
)
from huiyi.flows.extract.rules.facts import FactReader
from huiyi.flows.extract.rules.gatherings import gatherings_in
from huiyi.flows.extract.rules.job_moves import joins_in
from huiyi.flows.extract.rules.job_starts import job_start_in
from huiyi.flows.extract.rules.losses import Losses
from huiyi.flows.extract.rules.mentions import mentions, place_of
from huiyi.flows.extract.rules.moves import moved, moved_house
from huiyi.flows.extract.rules.new_jobs import new_job_in
from huiyi.flows.extract.rules.new_jobs_en import new_job_in_en
from huiyi.flows.extract.rules.pet_answers import PetAnswers
from huiyi.flows.extract.rules.pet_names import PetNames
from huiyi.flows.extract.rules.pet_renames import renamed_pets
from huiyi.flows.extract.rules.plans import plans_in
from huiyi.flows.extract.rules.plans_en import english_plans_in
from huiyi.flows.extract.rules.pronouns import Pronouns
from huiyi.flows.extract.rules.quits import quits_in
from huiyi.flows.extract.rules.resigns import resigns_in
from huiyi.flows.extract.rules.roster import Roster
from huiyi.flows.extract.rules.said import Said, spaces_as_commas
from huiyi.model import EntityType, Message
from huiyi.text.keywords import keywords, load_idf
from huiyi.text.language import LATIN_WORD, conversation_language
from huiyi.text.relayed import Relay, note, relay_of
from huiyi.text.tense_en import given_up
from huiyi.text.times import TimeSpan, find_time_phrases
from huiyi.text.tokens import has_cjk, naming

# 麻烦你 is a please, 时间紧张 a tight week, 系统崩溃 a crash, 开心果 a pistachio
_NOT_NERVES = "".join(f"(?<!{word})" for word in ("时间", "资金", "经费", "关系", "局势"))
_NOT_MINDS = "".join(f"(?<!{word})" for word in ("系统", "电脑", "手机", "软件", "程序", "网站", "服务器", "游戏"))
_EMOTION_ZH = re.compile(
    rf"开心(?!果)|高兴|快乐|幸福|难过|伤心|生气|愤怒|害怕|担心|焦虑|{_NOT_NERVES}紧张|委屈|失望|孤独|寂寞"
    rf"|好累|太累|哭|爱你|(?<!麻)烦|郁闷|激动|兴奋|感动|后悔|{_NOT_MINDS}崩溃"
    r"|压力|心情|难受|痛苦|舍不得|喜欢|讨厌|想念|思念|怀念"
)
# missing someone (好想你, 我想家了): 想 with someone and nothing after; with more, wanting or thinking (我想你帮我看看)
_MISSED = (
    "你们 他们 她们 它们 你 他 她 它 家 家人 老家 爸 爸爸 妈 妈妈 外婆 外公 奶奶 爷爷 姥姥 姥爷"
    " 老公 老婆 男朋友 女朋友 对象"
)
_MISSED_END = r"(?:了|啊|呀|啦|哦|呢|吗|嘛|哈|呜)*(?:[～~！!。，,？?…\s]|$|想[得到])"  # 想你想得睡不着
_EMOTION_EN = re.compile(
    r"\b(?:happy|glad|excited|sad|upset|angry|mad|scared|afraid|worried|anxious|nervous|lonely|tired|exhausted|cry"
    r"|cried|crying|love|hate|(?!(?-i:Miss\s+[A-Z]))miss|stressed|depressed|thrilled|grateful|heartbroken|proud)\b",
    re.IGNORECASE,
)
_PLAN_ZH = re.compile(r"打算|准备|计划|要去|将要|以后|将来|想要|约好|约了|会去|下次|下周|下个月|明年|明天|后天")
_PLAN_EN = re.compile(
    r"\b(?:tomorrow|next\s+(?:week|month|year|time)|going\s+to|gonna|plan(?:ning)?|will|'ll)\b", re.IGNORECASE
)


class RuleExtractor:
    """The no-LLM :class:`~huiyi.flows.extract.Extractor`; see the module docstring for the rules.

    ``gap_minutes``: a silence this long starts a new event. ``max_turns`` / ``max_chars``: an event
    holds at most this many messages / characters of raw text. ``min_topic_turns``: a topic change
    splits only events at least this long. ``turn_chars``: one speaker's turn is cut to this length in
    the event text. ``max_keywords`` per event. ``idf_path``: another IDF table (``word idf`` lines).
    """

    def __init__(
        self,
        *,
        gap_minutes: float = 30.0,
        max_turns: int = 8,
        max_chars: int = 280,
        min_topic_turns: int = 3,
        turn_chars: int = 80,
        max_keywords: int = 6,
        idf_path: str | Path | None = None,
    ) -> None:
        if max_turns < 1 or max_chars < 1 or turn_chars < 8 or max_keywords < 0:
            raise ValueError("max_turns, max_chars and turn_chars must be positive, max_keywords not negative")
        self.gap = timedelta(minutes=gap_minutes)
        self.max_turns = max_turns
        self.max_chars = max_chars
        self.min_topic_turns = min_topic_turns
        self.turn_chars = turn_chars
        self.max_keywords = max_keywords
        self.idf_path = idf_path
        load_idf(idf_path)  # fail early on a bad table

    async def extract(self, fold: Fold) -> Extraction:
        return self.extract_sync(fold)

    def extract_sync(self, fold: Fold) -> Extraction:
        """The same as :meth:`extract`, for callers without an event loop."""
        messages = sorted(fold.messages, key=lambda m: m.seq)
        if not messages:
            return Extraction()
        roster = Roster.of(fold)
        with naming(roster.all_names()):  # the fold's people whole in every cut of its rules, no one else
            return self._extract(fold, messages, roster)

    def _extract(self, fold: Fold, messages: list[Message], roster: Roster) -> Extraction:
        drop = [name for name in roster.all_names() if name]
        private = fold.person is not None or len(roster.names) <= 2
        reader = FactReader(roster, private)
        default_lang = conversation_language(messages, fold.language)
        echoes = set() if private else _echoes(messages)  # a group's 复读: another's line said again
        saids = [self._read(m, roster, reader, default_lang, drop, m.id in echoes) for m in messages]
        cancels = Cancels(roster, fold.called_off)  # 搬家泡汤 closes the plan said before; 下周六搬 is the new one
        losses = Losses(roster, fold.pets)  # 豆豆去世了 closes 豆豆是木木的狗, said in this fold or before
        pet_names = PetNames(roster)  # 我养了只小猫。… 它叫团子: the pet just told of is named
        pet_answers = PetAnswers(roster, private)  # 你家狗叫啥？— 团子: the one asked has a dog named 团子
        breakups = Breakups(roster, fold.partners)  # 我们分手了 ends 阿杰是木木的男朋友, said in this fold or before
        pronouns = Pronouns(roster)  # 我男朋友叫阿杰，我明天和他去看电影: the plan is with 阿杰
        for said in saids:
            pet_names.read(said)
            pet_answers.read(said)
            said.facts.extend(cancels.read(said))
            moved_en, called_off_en = english_cancels(said, roster, private)  # My trip got cancelled, … moved to Friday
            said.facts.extend(moved_en)
            said.closes.extend(called_off_en)
            renamed, ended = renamed_pets(said, losses)  # 我家猫改名叫年糕了 ends 团子是木木的猫
            said.facts.extend(renamed)
            said.closes.extend(ended)
            died, ended = losses.read(said)
            said.facts.extend(died)
            said.closes.extend(ended)
            parted, ended = breakups.read(said)  # Jake and I broke up ends Jake is Mia's boyfriend
            said.facts.extend(parted)
            said.closes.extend(ended)
            pronouns.read(said)
        missed = [*drop, *losses.names()]  # 还是很想豆豆 misses a pet known by name
        events = [self._event(segment, roster, drop, missed) for segment in self._segments(saids)]
        if not private:  # 周六下午三点大家一起去爬山: a group's plan, dated by the day it names (rules.gatherings)
            events += [event for said in saids for event in gatherings_in(said, roster)]
        facts = _dedupe_facts(saids)
        moves = [close for said in saids for close in moved(said.facts, said.message)]  # 搬到杭州了 ends 住在上海
        closes = [*cancels.closes, *moves, *(close for said in saids for close in said.closes)]
        return Extraction(events=events, facts=facts, entities=_entities(saids, roster), closes=closes)

    # --- reading one message

    def _read(
        self, message: Message, roster: Roster, reader: FactReader, default_lang: str, drop: list[str], echo: bool
    ) -> Said:
        if (text := spaces_as_commas(message.text)) != message.text:  # 我不吃香菜 以后别推荐: two clauses
            message = message.model_copy(update={"text": text})
        # forwarded, quoted or echoed words are someone else's: no fact of the speaker's
        relay = Relay(own="", relayed=text, forwarded=False) if echo else relay_of(text)
        spoken = relay.own if relay and relay.own else text  # a reply's language is its own
        lang = "zh" if has_cjk(spoken) else ("en" if LATIN_WORD.search(spoken) else default_lang)
        spans = find_time_phrases(text, message.time)
        skip: list[tuple[int, int]] = []
        cursor = 0
        for span in spans:
            at = text.find(span.phrase, cursor)
            if at >= 0:
                skip.append((at, at + len(span.phrase)))
                cursor = at + len(span.phrase)
        words = keywords([text], drop=drop, limit=50, idf_path=self.idf_path, skip_spans=[skip])
        speaker = roster.name_of(message.speaker)
        facts, entities = reader.read(message.model_copy(update={"text": relay.own}) if relay else message, speaker)
        filler = (
            bool(FILLER.match(text.strip()))
            or (not words and not facts and len(text.strip()) <= 4 and not _feels(text, drop))  # 我想你了 is none
            or (not facts and is_chatter(text, drop))  # 恭喜+1, 晚安霓霓, [表情] (issue #13)
        )
        # a birthday's date is not when anything happened; told as 后天, it keeps the date that meant
        once = first_of_each(spans)
        facts = [
            replace(f, object=dated(f.object, once, lang), description=dated(f.description, once, lang))
            if f.keyword in ("生日", "birthday")
            else f
            for f in facts
        ]
        dates = {f.object for f in facts if f.keyword in ("生日", "birthday")}
        spans = [span for span in spans if not any(span.phrase in d for d in dates)]
        said = Said(message, speaker, lang, spans, skip, words, filler, facts, entities, relay=relay)
        said.entities.extend(aliases_in(said, roster))  # 霓霓就是苏霓, 叫我老K (issue #13)
        # 我下周一飞大阪 (issue #13); in a private chat "I'll see you" sees the other party
        said.facts.extend(plans_in(said, roster, reader.private) + english_plans_in(said, roster, reader.private))
        said.facts.extend(booked_in(said, roster) + booked_in_en(said, roster))  # 机票订好了, Flights … are booked
        quit_facts, said.closes = quits_in(said, roster)  # 我戒烟了 ends 木木爱抽烟
        said.facts.extend(quit_facts)
        left, ended = resigns_in(said, roster)  # 我辞职了 ends 木木在网易工作
        said.facts.extend(left)
        said.closes.extend(ended)
        joined, ended = joins_in(said, roster)  # 我跳槽去网易了 (moves.moved ends 木木在阿里工作), 我换工作了
        said.facts.extend(joined)
        said.closes.extend(ended)
        said.facts.extend(new_job_in(said, roster))  # 新公司在滨江，做产品经理 (moves.moved ends the old)
        said.facts.extend(job_start_in(said, roster, reader.private))  # 下周一去新公司上班: a change from that day
        said.facts.extend(new_job_in_en(said, roster))  # Starting my new job at Google next week as a PM
        said.closes.extend(partners_replaced(said))  # 陈屿是我男朋友 ends 阿杰是木木的对象
        said.closes.extend(moved_house(said, roster.agent_name))  # 搬完家了 ends 木木住在文三路
        # an emoji is the line's tone: 木木喜欢猫😍 likes 猫, and the prompt tells of it in words
        said.facts = [
            replace(f, object=without_emoji(f.object), description=without_emoji(f.description)) for f in said.facts
        ]
        return said

    # --- grouping

    def _segments(self, saids: list[Said]) -> list[list[Said]]:
        segments: list[list[Said]] = []
        chars = 0
        topic: set[str] = set()
        for said in saids:
            current = segments[-1] if segments else None
            start_new = current is None
            if current is not None:
                gap = said.message.time - current[-1].message.time
                words = set(said.words)
                shift = (
                    len(current) >= self.min_topic_turns
                    and len(words) >= 2
                    and not words & topic
                    and not said.filler
                    and not any(w in t or t in w for w in words for t in topic)
                )
                start_new = (
                    gap >= self.gap or len(current) >= self.max_turns or chars + _size(said) > self.max_chars or shift
                )
            if start_new:
                segments.append([said])
                chars = _size(said)
                topic = set(said.words)
            else:
                segments[-1].append(said)
                chars += _size(said)
                topic |= set(said.words)
        return segments

    # --- one event

    def _event(self, segment: list[Said], roster: Roster, drop: list[str], missed: list[str]) -> EventDraft:
        english = sum(1 for s in segment if s.lang == "en") > len(segment) / 2
        substantive = [s for s in segment if not s.filler] or segment
        turns: list[tuple[str, str, list[str]]] = []  # (speaker, verb, pieces)
        for said in substantive:
            verb, piece = _turn_piece(said, english)
            if not piece:
                continue
            if turns and turns[-1][:2] == (said.speaker, verb):
                turns[-1][2].append(piece)
            else:
                turns.append((said.speaker, verb, [piece]))
        parts: list[str] = []
        for speaker, verb, pieces in turns:
            joined = ""
            for piece in pieces:
                if joined and not ends_sentence(joined) and joined[-1] not in "，,":
                    joined += ", " if english else "，"
                elif joined and english:
                    joined += " "
                joined += piece
            joined = cut(joined, int(self.turn_chars * (2.5 if english else 1)))
            if not ends_sentence(joined):
                joined += "." if english else "。"
            parts.append(f"{speaker} {verb}: {joined}" if english else f"{speaker}{verb}：{joined}")
        text = (" " if english else "").join(parts) or condense(segment[0].message.text)

        when = segment[0].message.time
        about = ""
        for at, said in enumerate(segment):
            said_at = said.message.time
            if any(said_at in span for span in said.spans):
                break  # said of its own time (今天晚上去上了陶艺课): the event is then, whatever follows
            # a time to come said after the first line is what follows it (老师说两周后烧好可以取), not when it was
            moving = [span for span in said.spans if said_at not in span and (at == 0 or span.start <= said_at)]
            if at:  # a later line's month or year (My birthday was last month) tells of itself, not of the talk
                moving = [span for span in moving if span.end - span.start <= _ONE_DAY]
            if said.lang == "en":  # They did bloodwork, results come back Monday: told of what was done
                moving = [span for span in moving if span.start <= said_at or not _told_done(said.own, span.phrase)]
                if moving and given_up(said.own, moving[0].phrase):  # moving it from Monday to Friday: not Monday
                    moving = moving[1:]
            if not any(later.speaker != said.speaker for later in segment[at + 1 :]):
                moving = [span for span in moving if not _asks_only(said.own, span.phrase)]
            if moving:
                # last month, October 3rd: the day inside the month says it more closely
                first = min((s for s in moving if moving[0].start <= s.start and s.end <= moving[0].end), key=_length)
                when, about = first.start, absolute(first)
                break
        people: dict[str, None] = {}
        things: list[EntityDraft] = []
        for said in segment:
            people[said.speaker] = None
            named, found = mentions(said, roster)
            people.update(dict.fromkeys(named))
            things.extend(found)
        # 下周五团建去千岛湖: no place of now (it is at 千岛湖); the agent's lines place nothing (你在家里吗 asks one)
        placed = [s for s in substantive if s.message.role != "assistant"]
        place = next((p for p in (place_of(s, people, planned=bool(about)) for s in placed) if p), "")
        keyed = [s for s in segment if s.message.role != "assistant"] or segment  # 要不要试试瑜伽？ keys no event
        words = keywords(
            [s.message.text for s in keyed],
            drop=drop,
            limit=self.max_keywords,
            idf_path=self.idf_path,
            skip_spans=[s.skip for s in keyed],
            extra=[e.name for s in keyed for e in s.entities],
        )
        return EventDraft(
            text=text,
            sources=[s.message.id for s in segment],
            time=when,
            place=place,
            participants=list(people),
            keywords=words,
            insight="",
            importance=_importance(segment, substantive, bool(place or things), missed),
            about=about,
        )


def _turn_piece(said: Said, english: bool) -> tuple[str, str]:
    """(verb, text) of one message in an event: what the speaker said, what they forwarded or quoted
    marked as such, so that no summary reads someone else's words as theirs."""
    relay = said.relay
    if relay is None:
        return ("said" if english else "说"), condense(annotate(said))
    passed = replace(relay, relayed=condense(relay.relayed))
    own = condense(annotate(said, relay.own))
    if not own:
        label = ("forwarded" if english else "转发") if relay.forwarded else ("quoted" if english else "引用")
        return label, passed.relayed
    shown = own + note(passed, "en" if english else "zh") if passed.relayed else own
    return ("said" if english else "说"), shown


ECHO_REACH = 5  # how many lines back a 复读 repeats (a chain of repeats goes on for a few)


def _echoes(messages: list[Message]) -> set[str]:
    """The ids of the members' lines that repeat, word for word, one of the few lines before by someone else."""
    found: set[str] = set()
    for at, message in enumerate(messages):
        said = message.text.strip()
        before = messages[max(0, at - ECHO_REACH) : at]
        if message.role == "user" and any(m.text.strip() == said and m.speaker != message.speaker for m in before):
            found.add(message.id)
    return found


def _size(said: Said) -> int:
    """A message's length in Chinese characters' worth: English letters carry less, about 2.5 to one."""
    length = len(said.message.text)
    return length if said.lang == "zh" else int(length / 2.5)


def _importance(segment: list[Said], substantive: list[Said], named: bool, missed: list[str]) -> float:
    if all(s.filler for s in segment):
        return 0.1
    text = " ".join(s.message.text for s in substantive)
    score = 0.3
    if any(s.facts for s in segment):
        score += 0.2
    if _feels(text, missed):
        score += 0.15
    future = any(span.start > s.message.time for s in segment for span in s.spans)
    if future or _PLAN_ZH.search(text) or _PLAN_EN.search(text):
        score += 0.1
    if "!" in text or "！" in text:
        score += 0.05
    if named:
        score += 0.05
    return round(min(0.9, score), 2)


def _feels(text: str, missed: list[str]) -> bool:
    return bool(_EMOTION_ZH.search(text) or _EMOTION_EN.search(text) or _misses(text, missed))


def _misses(text: str, names: list[str]) -> bool:
    """好想你, 还是很想豆豆: 想 someone (a pronoun, family, a name the fold knows) with nothing after."""
    whom = "|".join(re.escape(name) for name in sorted({*_MISSED.split(), *names} - {""}, key=len, reverse=True))
    return re.search(rf"想(?:我的?)?(?:{whom}){_MISSED_END}", text) is not None


def _dedupe_facts(saids: list[Said]) -> list[FactDraft]:
    seen: dict[tuple[str, str, str], FactDraft] = {}
    for said in saids:
        for fact in said.facts:
            key = (fact.subject, fact.predicate, fact.object.casefold())
            if key in seen:
                kept = seen[key]
                kept.sources = list(dict.fromkeys([*kept.sources, *fact.sources]))
            else:
                seen[key] = fact
    return list(seen.values())


def _entities(saids: list[Said], roster: Roster) -> list[EntityDraft]:
    found: dict[str, EntityDraft] = {}

    def add(draft: EntityDraft) -> None:
        name = draft.name.strip()
        if not name:
            return
        known = roster.resolve(name)
        if known:
            kept = found.setdefault(
                known,
                EntityDraft(known, roster.entity_type(known) or EntityType.OBJECT, roster.aliases_of(known)),
            )
            for alias in draft.aliases:
                if alias != known and alias not in kept.aliases:
                    kept.aliases.append(alias)
            return
        if name not in found:  # the first reading of a name wins: a named thing stays specific
            found[name] = EntityDraft(name, draft.type, [a for a in draft.aliases if a != name])

    for said in saids:
        add(EntityDraft(said.speaker))
        people, things = mentions(said, roster)
        for person in people:
            add(EntityDraft(person))
        for draft in [*said.entities, *things]:
            add(draft)
    # a word that is part of a longer entity name found in the same fold (南京 in 南京大学) is left out
    names = list(found)
    return [
        draft
        for name, draft in found.items()
        if draft.type is not EntityType.SPECIFIC
        or roster.resolve(name)
        or not any(name != other and name in other and found[other].type is EntityType.SPECIFIC for other in names)
    ]


_ONE_DAY = timedelta(days=1)


def _length(span: TimeSpan) -> timedelta:
    return span.end - span.start


_DONE = re.compile(  # not have got, which is have (I've got a 3-day weekend)
    r"\b(?:said|did|was|were|went|had|(?<!'ve\s)(?<!have\s)got|told|took|saw|came|ran|found|ate|left|met|gave|heard|felt"
    r"|made)\b",
    re.IGNORECASE,
)


def _sentence(text: str, phrase: str) -> tuple[int, int] | None:
    """Where the sentence that holds ``phrase`` starts and ends (its closing mark with it), at most 200 either side."""
    if (found := re.search(re.escape(phrase), text, re.IGNORECASE)) is None:  # not all the text lowered for each
        return None
    at, reach = found.start(), _SENTENCE_REACH
    start = max(max(0, at - reach), *(text.rfind(mark, max(0, at - reach), at) + 1 for mark in _SENTENCE_MARKS))
    ends = [i for i in (text.find(mark, at, at + reach) for mark in _SENTENCE_MARKS) if i >= 0]
    return start, min(ends) + 1 if ends else min(len(text), at + reach)


_SENTENCE_MARKS, _SENTENCE_REACH = ".!?\n。！？", 200  # a message of commas alone is no one sentence for each time


def _told_done(text: str, phrase: str) -> bool:
    """Whether the sentence that holds ``phrase`` tells of something done (a verb in the past)."""
    sentence = _sentence(text, phrase)
    return sentence is not None and bool(_DONE.search(text, *sentence))


_ASKED = re.compile(r"[?？]\s*$")
_OF_THE_ASKER = re.compile(r"\b(?:I|I'm|I've|I'll|I'd|me|my|we|we're|we've|us|our)\b|我", re.IGNORECASE)


def _asks_only(text: str, phrase: str) -> bool:
    """Whether the sentence that holds ``phrase`` is a question that says nothing of its asker (Have you been
    busy this weekend? 你周末忙吗？): its time is no time of theirs (Did I tell you I'm off to Paris next week? is)."""
    sentence = _sentence(text, phrase)
    if sentence is None:
        return False
    asked = text[sentence[0] : sentence[1]].replace("’", "'")
    return bool(_ASKED.search(asked)) and not _OF_THE_ASKER.search(asked)
