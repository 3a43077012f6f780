"""Places and entities a message mentions: the people of the roster and other proper nouns."""

from __future__ import annotations

import bisect
import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass

from huiyi.flows.extract import EntityDraft
from huiyi.flows.extract.rules.patterns import ZH_OWN_SUBJECT, ZH_SUPPOSE
from huiyi.flows.extract.rules.roster import Roster, name_like
from huiyi.flows.extract.rules.said import Said
from huiyi.model import EntityType
from huiyi.patterns import lazy
from huiyi.text import tokens
from huiyi.text.keywords import EN_PROPER_STOP, TITLE
from huiyi.text.kin import EN_KIN, EN_PEERS
from huiyi.text.language import CJK_RUN
from huiyi.text.surnames import SURNAMES
from huiyi.text.tokens import EN_STOPWORDS, has_cjk

_PLACE_SUFFIX = lazy(
    r"(?:馆|店|园|院|场|站|厅|楼|室|街|路|城|市|省|县|区|镇|村|山|湖|河|海|岛|家|校|学|吧|寺|庙|宫|塔|桥|港|屋|房|所|司|厂"
    r"|中心|广场|大学|超市|餐厅|医院|公园|酒店|机场|车站|家里|里|上|边|旁|外|内)$"
)
# a locative ending alone (床上, 桌子上, 手里) makes no place: the stem must be one (学校里, 西湖边) or 家
_LOCATIVE = lazy(r"(?:里|上|边|旁|外|内)$")
# the tagger's dictionary calls some phrases places (太冷/ns, 离半马/ns, 东西/ns "things"): a degree word,
# a preposition or a 了 ends that
_NOT_PLACE = lazy(r"^(?:太|很|好|真|挺|超|最|更|特|蛮|越|离|往|从|到)|了$|^东西$")
_PLACE_FLAGS = frozenset({"ns", "nt", "nz", "s", "n", "nr", "nrt", "f", "ng"})
_STRONG_PLACE_FLAGS = frozenset({"ns", "nt"})
# a place name outside 在… needs a word that goes somewhere before it (去杭州, 刚来上海, 从成都, 飞大阪)
# or a word that points at a place after it (西湖边, 宁波那边, 湖州老家): jieba's dictionary tags common
# nouns as places (城市, 礼拜, 午休, 入门, 登山), and a name said in passing (杭州晴) tells no place
_MOTION_END = frozenset("去到回来飞往住搬")
_NOT_MOTION = frozenset(
    {
        "后来",
        "原来",
        "本来",
        "将来",
        "未来",
        "从来",
        "看来",
        "起来",
        "出来",
        "进来",
        "过来",
        "想到",
        "得到",
        "收到",
        "遇到",
        "听到",
        "看到",
        "感到",
        "做到",
        "说到",
        "提到",
        "直到",
        "记住",
        "忍住",
        "抓住",
        "接住",
    }
)
_FROM = frozenset({"在", "从", "于", "往", "向", "到"})
_FIRST_PERSON = frozenset({"我", "我们", "咱", "咱们", "俺", "俺们"})
_THIRD_PERSON = frozenset({"他", "她", "它", "他们", "她们", "它们", "人家"})
_POINTS_AT_PLACE = frozenset(
    {
        "边",
        "那边",
        "这边",
        "那里",
        "这里",
        "那儿",
        "这儿",
        "附近",
        "一带",
        "周边",
        "老家",
        "市区",
        "路",
        "街",
        "站",
        "村",
    }
)
_NAME_END = frozenset("路街站村镇湖山")  # 之江 + 路: jieba cuts a street's name from its 路
# St. Mary's, Mt. Fuji: an abbreviation's full stop is inside the name
# a wish, a someday or a what-if; not a plan (我下周三要去北京出差: the event is the trip, dated then)
_WISH_REACH = 30  # characters before a place read for a wish: a clause with none is read this far back
_CLAUSE_MARK = lazy(r"[，,。！？!?；;\n]")
_WISH = lazy(r"想|希望|考虑|梦想|以后|将来|改天|有机会|如果|要是|假如|万一|梦到|梦见")
# in/at a place, or to one gone to (talk to Jake, congratulations to Emma go nowhere); Museum of Fine Arts whole
_EN_GOING = (
    r"(?:go|goes|going|gone|went|move|moves|moving|moved|fly|flies|flying|flew|drive|driving|drove|travel\w*|trip"
    r"|head\w*|back|come|comes|coming|came|get|got|walk\w*|run|ran|return\w*)"
)
_EN_NAME_RUN = r"[A-Z][\w'-]+(?:\s+[A-Z][\w'-]+){0,3}"
_EN_PLACE = lazy(
    rf"(?:\b(?:in|at)|\b{_EN_GOING}\s+to)\s+(?:the\s+)?"
    rf"(?P<place>(?:(?:St|Mt|Ft)\.\s*)?{_EN_NAME_RUN}(?:\s+(?:of|on|de)(?:\s+the)?\s+{_EN_NAME_RUN})?)"
)
_EN_FIRST_PERSON = lazy(r"\b(?:i|i'm|i've|i'd|i'll|we|we're|we've|we'd|us|me)\b", re.IGNORECASE)
# my sister, his kids (not my flight, my birthday dinner: the speaker's own, whose place is the talk's)
_EN_SOMEONE_OF = rf"(?:{EN_KIN}|{EN_PEERS}|boss|manager|kid|child|children|parent|family|folks)s?"
_EN_OTHER_SUBJECT = lazy(
    rf"\s*(?:(?i:he|she|they)\b|(?i:(?:my|his|her|their)\s+{_EN_SOMEONE_OF})\b"
    r"|(?P<name>[A-Z][a-z]+)\s+(?:is|was|has|had|[a-z]+s)\b)"
)
# a sentence's everyday subject, which names no one (Lunch was amazing at Nobu, Today was great in Boston)
_EN_NO_ONE = frozenset(
    "today tonight yesterday everything nothing life work school class lunch dinner breakfast brunch weather"
    " traffic food coffee party game trip flight day night morning evening weekend week".split()
)
_EN_WORKPLACE = lazy(r"\b(?:job|work|works|working|worked|intern\w*|employed)\s*$", re.IGNORECASE)
_EN_STOP = lazy(r"[.!?;\n]")  # where an English sentence ends
_EN_CLAUSE_BREAK = lazy(r"[,;]|\bbut\b", re.IGNORECASE)  # I was going to cook but we ate at Nobu: another clause
# a wish or another's counsel before the place (Sarah thinks I should just move to Boston): not where it happened
_EN_WISH = lazy(
    r"\b(?:should|would|could|might|want|wants|wanna|wish|hope|if|someday|maybe|thinks|plan(?:ning)?\s+to"
    r"|(?-i:will)|gonna|going\s+to\s+(?!the\b)\w+)\b|'ll\b",
    re.IGNORECASE,
)


def _someone_else_en(before: str, people: Collection[str]) -> bool:
    """Whether the clause before a place opens with someone else as its subject: He is in Paris, My sister
    Emma lives in Boston, Jake works in Denver (not Got back to Seattle, Dinner with my mom at Nobu)."""
    opening = _EN_OTHER_SUBJECT.match(before)
    if opening is None:
        return False
    name = opening.group("name")
    return name is None or name in people or not (_no_name([name]) or name.lower() in _EN_NO_ONE)


def _no_name(words: list[str]) -> bool:
    """Whether a run of capitalised words names nothing: it starts with a word that is never a name (Also I,
    So we, Mondays, Friday's), or it is one word all in capitals, an abbreviation (PR, TV, OMG), which names
    a thing only when a fact or a place says so.

        >>> [_no_name(w.split()) for w in ["Also I", "Mondays", "PR", "Emma", "New York", "A"]]
        [True, True, True, False, False, True]
    """
    first = words[0].lower().removesuffix("'s")
    never = EN_PROPER_STOP | EN_STOPWORDS
    return first in never or first.removesuffix("s") in EN_PROPER_STOP or (len(words) == 1 and words[0].isupper())


def _starts_sentence(text: str, at: int) -> bool:
    r"""Whether ``at`` opens a sentence: the text's start, a new line, or spaces after . ! ?. Read
    backwards from ``at``: searching all the text before it for each capital was quadratic.

        >>> [_starts_sentence(t, len(t)) for t in ["", "a\n", "Hi. ", "Hi.", "hi  ", "Hi!\n"]]
        [True, True, True, False, False, True]
    """
    if at == 0 or text[at - 1] == "\n":
        return True
    start = at
    while start > 0 and text[start - 1].isspace():
        start -= 1
    return start < at and start > 0 and text[start - 1] in ".!?"


def _wished(text: str, at: int, breaks: list[int] | None = None) -> bool:
    """Whether the clause holding ``at`` wishes before it (考完想申请去英国读研, 我想在杭州买房): no place where the
    talk happened. ``breaks``: the offsets of the text's clause marks, found once for many questions.

        >>> [_wished(t, t.index(p)) for t, p in [("考完想申请去英国读研", "英国"), ("我在杭州，想你", "杭州")]]
        [True, False]
        >>> [_wished(t, t.index("三亚")) for t in ["要是我中了彩票，我就住在三亚", "要是下雨呢。我在三亚"]]
        [True, False]
    """
    breaks = _breaks(text) if breaks is None else breaks
    if _WISH.search(text, max(_clause_start(breaks, at), at - _WISH_REACH), at):
        return True
    # 要是我中了彩票，我就住在三亚: a supposition holds to its sentence's end, read at most twice as far back
    reach = max(0, at - _WISH_REACH * 2)
    sentence = max(text.rfind(mark, reach, at) for mark in "。！？!?\n") + 1
    return ZH_SUPPOSE.search(text, max(sentence, reach), at) is not None


def _clause_start(breaks: list[int], at: int) -> int:
    """Where the clause holding ``at`` starts, given the offsets of the text's clause marks (:func:`_breaks`)."""
    before = bisect.bisect_left(breaks, at)
    return breaks[before - 1] + 1 if before else 0


def _breaks(text: str) -> list[int]:
    return [match.start() for match in _CLAUSE_MARK.finditer(text)]


def place_of(said: Said, people: Collection[str] = (), planned: bool = True) -> str:
    """Where the line says the talk's moment happened: the first 在X of a place, else a place gone to or from
    (去英国), in a clause that wishes or plans nothing before it; "" if none. ``people``: names that are no
    place (at Emma's, to Jake). ``planned``: whether a place a time to come goes to (下周五去千岛湖) is the
    moment's, as it is for an event about that time; for one about the talk's own time it is not."""
    text = said.message.text
    if said.lang == "en" or not has_cjk(text):
        # where sentences and clauses end, found once: looked for again from each place, a long line of them
        # was read in time that grew with the square of its length
        stops = [found.start() for found in _EN_STOP.finditer(text)]
        breaks = [found.end() for found in _EN_CLAUSE_BREAK.finditer(text)]
        for match in _EN_PLACE.finditer(text):
            place = match.group("place")
            stop = bisect.bisect_left(stops, match.start())
            sentence = stops[stop - 1] + 1 if stop else 0
            end = bisect.bisect_left(stops, match.end())
            asked = end < len(stops) and text[stops[end]] == "?"  # Jess works at Google right?: nobody is there
            # I'm planning to spend Christmas with my sister in Boston: a plan's place, not the talk's
            cut = bisect.bisect_right(breaks, match.start())
            clause = max(sentence, breaks[cut - 1]) if cut else sentence
            wished = _EN_WISH.search(text, max(clause, match.start() - 80), match.start())
            first = place.split()[0]
            named = first.lower() not in EN_PROPER_STOP and first.removesuffix("'s") not in people
            # My sister Emma lives in Boston, my job at Acme: where another is, or an employer, not the talk's
            # (I'm working in Seattle this week is where the talk is)
            before = text[clause : match.start()]
            at_work = match.group().lower().startswith("at") and _EN_WORKPLACE.search(before) is not None
            elsewhere = at_work or (not _EN_FIRST_PERSON.search(before) and _someone_else_en(before, people))
            if named and not wished and not asked and not elsewhere:
                return place
        return ""
    words = [(w, f) for w, f in tokens.tag(text)]
    breaks = _breaks(text)
    ahead = [] if planned else [span.phrase for span in said.spans if span.start > said.message.time]
    starts = [0]  # each word's offset in the text
    for word, _ in words:
        starts.append(starts[-1] + len(word))
    tagged = _Tagged.of(words)
    others = {i for i, (w, f) in enumerate(words) if w == "在" and f == "p" and _someone_elses(tagged, i, said, people)}
    for index, (word, flag) in enumerate(words):
        if word != "在" or flag != "p" or index in others or _wished(text, starts[index], breaks):
            continue
        if _elsewhere(text, starts[index], ahead, breaks):
            continue
        run: list[tuple[str, str]] = []
        for following in range(index + 1, len(words)):  # not a copy of the rest of the line for each 在
            next_word, next_flag = words[following]
            if next_flag not in _PLACE_FLAGS or not has_cjk(next_word):
                break
            run.append((next_word, next_flag))
        last_placey = max((i for i, (w, f) in enumerate(run) if _placey(w, f, i > 0)), default=-1)
        if last_placey >= 0:
            return "".join(w for w, _ in run[: last_placey + 1])
        if run and len(run[0][0]) >= 2 and (run[0][1] == "nt" or (run[0][1] == "nr" and not name_shaped(run[0][0]))):
            return run[0][0]  # 在星巴克: a proper noun that is no person's name (nz is mostly not a place: 在家族群里)
    for index, (word, flag) in enumerate(words):
        if flag != "ns" or len(word) < 2 or _NOT_PLACE.search(word) or _wished(text, starts[index], breaks):
            continue
        if _elsewhere(text, starts[index], ahead, breaks):
            continue
        if index - 1 in others:  # 小鹿在上海: where she is, not the talk
            continue
        before, before_flag = words[index - 1] if index else ("", "")
        after = words[index + 1][0] if index + 1 < len(words) else ""
        goes = before_flag == "p" or before in _FROM or (before[-1:] in _MOTION_END and before not in _NOT_MOTION)
        if goes or after in _POINTS_AT_PLACE or after[:1] == "边":  # 西湖边雾: jieba glues 边 to what follows
            return word + after if after in _NAME_END else word
    return ""


_HOMETOWN = lazy(r"(?:老家|家乡)(?:是|就)?在?$")  # 老家在湖南长沙: where home is, not where the talk is
_HOMETOWN_REACH = 6  # the longest 老家是在 with a line's end after it: no need to read further back


def _elsewhere(text: str, at: int, ahead: Sequence[str], breaks: list[int] | None = None) -> bool:
    """Whether the place at ``at`` is one the talk is not at: a hometown's (老家在湖南长沙), or one a time to
    come said before it in its clause goes to (下周五公司团建去千岛湖, 我周末回长沙看看他; 下周要考试了，这几天都在
    图书馆 is at the library now). ``ahead``: the line's time phrases of a time to come.

        >>> [_elsewhere(t, t.index(p), a) for t, p, a in [("我老家在湖南长沙", "湖南", []),
        ...     ("下周五团建去千岛湖", "千岛湖", ["下周五"]), ("我在杭州，下周五回", "杭州", ["下周五"])]]
        [True, True, False]

    ``breaks``: the offsets of the text's clause marks (:func:`_breaks`), found once for many questions.
    """
    clause = _clause_start(_breaks(text) if breaks is None else breaks, at)
    hometown = _HOMETOWN.search(text, max(0, at - _HOMETOWN_REACH), at)
    return bool(hometown) or any(phrase in text[clause:at] for phrase in ahead)


@dataclass(frozen=True)
class _Tagged:
    """A line's tagged words with what is asked of each 在 found once for the line: where its clauses start
    and which words are the speaker's 我. Looked for in all the words before each 在, a long line of commas
    was read in time that grew with the square of its length."""

    words: Sequence[tuple[str, str]]
    marks: list[int]  # the indexes of the words that are clause marks
    firsts: list[int]  # the indexes of the words that are the speaker (我, 我们)

    @classmethod
    def of(cls, words: Sequence[tuple[str, str]]) -> _Tagged:
        marks = [i for i, (w, _) in enumerate(words) if _CLAUSE_MARK.fullmatch(w)]
        return cls(words, marks, [i for i, (w, _) in enumerate(words) if w in _FIRST_PERSON])

    def clause_start(self, at: int) -> int:
        """The index of the first word of the clause that holds word ``at``."""
        before = bisect.bisect_left(self.marks, at)
        return self.marks[before - 1] + 1 if before else 0

    def speaker_among(self, start: int, end: int) -> bool:
        """Whether a word from ``start`` to before ``end`` is the speaker."""
        first = bisect.bisect_left(self.firsts, start)
        return first < len(self.firsts) and self.firsts[first] < end


_OWN_REACH = 20  # characters of a clause ZH_OWN_SUBJECT reads, and more (其实我男朋友: 6)


def _someone_elses(tagged: _Tagged, at: int, said: Said, people: Collection[str]) -> bool:
    """Whether the 在 at ``at`` tells where someone other than the speaker is (小鹿在上海给我发计划, 他在深圳上班,
    我妈在成都): a third person just before it, with no 我/我们 among its clause's subjects (我和小鹿在上海)."""
    start = tagged.clause_start(at)
    if start >= at:
        return False
    words = tagged.words
    head, upto = "", start  # the clause's opening words, as far as ZH_OWN_SUBJECT reads
    while upto < at and len(head) < _OWN_REACH:
        head += words[upto][0]
        upto += 1
    # 我的室友在北京: the 我 is whose; 我妈和我在成都: the speaker is there too
    own = ZH_OWN_SUBJECT.match(head)
    rest, length = start, 0
    while own and rest < at and length < own.end():
        length += len(words[rest][0])
        rest += 1
    if tagged.speaker_among(rest, at):
        return False
    word, flag = words[at - 1]
    if own or word in _THIRD_PERSON or (word in people and word != said.speaker):
        return True
    return flag == "nr" and name_shaped(word)


def _placey(word: str, flag: str, after_noun: bool = False) -> bool:
    """Whether a word after 在 names a place: by its tag, else by a place-like ending. A locative word
    alone (地上, 身边, 网上, 路上) is none, only after a place it narrows (公司楼下), or 家里."""
    if _NOT_PLACE.search(word):
        return False
    if flag in _STRONG_PLACE_FLAGS:
        return True
    if flag == "s":
        return after_noun or word == "家里"
    if not _PLACE_SUFFIX.search(word):
        return False
    if len(word) == 1 and not after_noun and word != "家":  # 在学画画: a lone 学 is a verb, no school
        return False
    stem = _LOCATIVE.sub("", word)
    return stem == word or word == "家里" or (len(stem) >= 2 and bool(_PLACE_SUFFIX.search(stem)))


def name_shaped(word: str) -> bool:
    """Whether a word jieba tagged ``nr`` looks like a person's name: 小明, 王芳, 阿强, 霓霓."""
    if not 2 <= len(word) <= 4 or not CJK_RUN.fullmatch(word):
        return False
    return word[0] in SURNAMES or word[0] in "小老阿" or (len(word) == 2 and word[0] == word[1])


def mentions(said: Said, roster: Roster) -> tuple[list[str], list[EntityDraft]]:
    """People of the roster named in a message (by any alias), and other proper nouns."""
    text = said.message.text
    folded = text.casefold()
    people: list[str] = []
    for shown, names in roster.names.items():
        for name in names:
            if not name_like(name):
                continue
            if has_cjk(name):
                found = name in text
            else:
                found = re.search(rf"(?<![\w]){re.escape(name.casefold())}(?![\w])", folded) is not None
            if found:
                people.append(shown)
                break
    things: list[EntityDraft] = []
    for title in TITLE.finditer(text):
        things.append(EntityDraft(title.group(1).strip(), EntityType.SPECIFIC))
    if has_cjk(text):
        for word, flag in tokens.tag(text):
            if roster.resolve(word) or len(word) < 2 or not has_cjk(word):
                continue
            if flag in ("ns", "nt", "nz") or (flag == "nr" and name_shaped(word)):
                things.append(EntityDraft(word, EntityType.SPECIFIC))
    else:
        for match in re.finditer(r"[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)*", text):
            phrase = match.group()
            if _starts_sentence(text, match.start()) and " " not in phrase:
                continue  # a capital at the start of a sentence says nothing
            words = phrase.split()
            if _no_name(words) or roster.resolve(phrase):
                continue
            things.append(EntityDraft(phrase, EntityType.SPECIFIC))
    return people, things
