"""Reading facts from plain first-person sentences, attributed to the speaker (never 我 / I)."""

from __future__ import annotations

import re
from dataclasses import replace

from huiyi.flows.extract import EntityDraft, FactDraft
from huiyi.flows.extract.rules.bygone import THEN_NOT_NOW, held_then, said_then, still_now
from huiyi.flows.extract.rules.clauses import clauses_of, pet_named_after
from huiyi.flows.extract.rules.en_clauses import EN_PRONOUNS, MY_THING
from huiyi.flows.extract.rules.interests import ZH_FACT_RULES, interests_alone
from huiyi.flows.extract.rules.interests_en import EN_FACT_RULES
from huiyi.flows.extract.rules.jobs import AT_HOME, ZH_JOB_AS, job_rule, zh_job_as
from huiyi.flows.extract.rules.jokes import joke_end
from huiyi.flows.extract.rules.objects import (
    EN_FAN_OF_PRONOUN,
    EN_FOR_NOW,
    EN_NOT_THERE,
    a_place_said,
    first_noun_ok,
    is_name,
    one_proper_noun,
    person_named,
    trim_en,
    trim_zh,
    yours_named,
)
from huiyi.flows.extract.rules.pairs import speakers_part
from huiyi.flows.extract.rules.parties_en import addressed, parties_named
from huiyi.flows.extract.rules.patterns import (
    EN_BIRTHDAY_FIRST,
    EN_HEDGE,
    MY_THING_ZH,
    TENTATIVE,
    ZH_BIRTHDAY_FIRST,
    ZH_CONTINUE,
    ZH_HEDGE,
    ZH_HOME_MOVE,
    ZH_JOB_MOVE,
    ZH_LEAD,
    ZH_NAME_RULE,
    ZH_NAMING,
    ZH_OFFER,
    ZH_OFFER_PLACE,
    ZH_OFFER_RULE,
    ZH_OWN_SUBJECT,
    ZH_PRONOUNS,
    ZH_REPORTED,
    ZH_SUPPOSE,
    ZH_TELL,
    ZH_UNREAL,
    FactRule,
)
from huiyi.flows.extract.rules.persons_en import person_as_thing
from huiyi.flows.extract.rules.pet_names import apposed_pet, pet_name_fact
from huiyi.flows.extract.rules.pet_patterns import ZH_PET, ZH_PET_HAS, ZH_PET_NAMED, en_pet, home_pet, kept_by_others
from huiyi.flows.extract.rules.plans_en import I_CLAUSE, OTHERS_YOUR, SPEAKERS_ME, SPEAKERS_MY, told_of_speaker
from huiyi.flows.extract.rules.relations import ZH_TOGETHER, partner_told, relations_in, together
from huiyi.flows.extract.rules.roster import Roster
from huiyi.model import EntityType, FactKind, Message
from huiyi.text.kin import KIN_ALTERNATION
from huiyi.text.times import find_time_phrases
from huiyi.text.tokens import has_cjk

_EN_DAY_WORDS = frozenset("today tomorrow tonight the next this".split())

_SENTENCE_END = re.compile(r"[。！？!?\n]")
_NEAR = 200  # a clause is looked for this near where the last one ended: one given its 我 is in no text at all
_ZH_MINE = re.compile(
    rf"(?<![自忘唯本])我(?:的|(?=(?:{KIN_ALTERNATION}))|(?P<home>(?=家)))"
)  # 我的猫, 我妈, 我家; not 自我
_CONSEQUENCE = re.compile(r"就|会|才|肯定|一定|要|得")
# the measure words of animals (一只, 一头, 一条, 一匹), never of people
_ANIMAL_COUNT = re.compile(r"^[一两]?[只头条匹]")  # 是只橘猫 after 我养了一只猫: the cat, said without 一
# 我是人, 我是个正常人: being human says nothing of who one is
_JUST_HUMAN = re.compile(r"(?:一个|一|个)?(?:普通|正常|平凡|平常|真)?(?:的)?(?:人|人类|凡人)")


class FactReader:
    def __init__(self, roster: Roster, private: bool) -> None:
        self.roster = roster
        self.private = private

    def read(self, message: Message, speaker: str) -> tuple[list[FactDraft], list[EntityDraft]]:
        english = not has_cjk(message.text)
        facts: list[FactDraft] = []
        entities: list[EntityDraft] = []
        led = False  # the previous clause was about the speaker: 我是护士，在鼓楼医院上班
        topic = ""  # the previous clause named its own subject: 我家的猫叫团子，是一只橘猫 (团子 is)
        offered = False  # an offer with no workplace yet: 拿到offer了！！杭州那家游戏公司，…
        partner = ""  # a partner told of with no name yet: 我有新男朋友了，叫陈屿
        # 我喜欢猫，开玩笑的: what a retraction takes back is not read
        body = message.text[joke_end(message.text) :]
        clauses = clauses_of(body, english)
        if not english and (couple := together(body)):  # 我和陈屿在一起了！: the whole message says it
            self._fact(ZH_TOGETHER, couple, message, speaker, False, facts, entities)
        supposed, cursor = False, 0  # 如果我是富婆，我就天天躺平，养十只猫: a supposition's sentence is supposed
        read_clauses = clauses if english else interests_alone(kept_by_others(pet_named_after(clauses)), self.private)
        for index, (clause, unsure) in enumerate(read_clauses):
            if english:
                if not unsure:
                    self._english(clause, message, speaker, facts, entities)
                continue
            if (at := body.find(clause, cursor, cursor + len(clause) + _NEAR)) >= 0:  # a new sentence supposes nothing
                supposed, cursor = supposed and not _SENTENCE_END.search(body, cursor, at), at + len(clause)
            # 以前我就喜欢猫，现在也喜欢: a then that holds still is now
            clause = still_now(clause, read_clauses[index + 1][0] if index + 1 < len(read_clauses) else "")
            # …可以找我，我住在西湖区: a clause of one's own with no 就/会/一定 is said, not supposed
            supposed = supposed and not (clause.startswith("我") and not _CONSEQUENCE.search(clause))
            unsure, supposed = unsure or supposed, supposed or ZH_SUPPOSE.search(clause) is not None
            if partner and not unsure and (naming := ZH_NAMING.match(clause)):
                clause = f"我的{partner}叫{naming['name']}"
            partner = "" if unsure else partner_told(clause)
            if offered and not unsure and (place := ZH_OFFER_PLACE.match(clause)):
                self._fact(ZH_OFFER_RULE, place, message, speaker, False, facts, entities)
                offered = False
                continue
            offered = offered or (not unsure and ZH_OFFER.match(clause) is not None)
            if "我" not in clause and ZH_CONTINUE.match(clause):
                if topic and not unsure and clause.startswith("是"):
                    self._about(topic, clause[1:], message, facts)
                    topic, led = "", False
                    continue
                if led:
                    clause = "我" + clause
            elif "我" not in clause and not unsure and (ZH_JOB_MOVE.match(clause) or ZH_HOME_MOVE.match(clause)):
                clause = "我" + clause
            # 我家的猫…, 我妈…: the clause has its own subject, so what follows is not the speaker's either
            led = bool(ZH_LEAD.match(clause)) and not ZH_OWN_SUBJECT.match(clause)
            named = ZH_PET_NAMED.match(clause) or apposed_pet(clause)
            topic = named.group("name") if named else ""
            if named and not unsure:
                self._pet(named, message, speaker, False, facts, entities)
            elif not unsure and "我" not in clause and (about := self._named_lead(clause)):
                self._third(about[0], about[1], message, facts, entities)
            elif not unsure:
                self._chinese(clause, message, speaker, facts, entities)
        return facts, entities

    def _named_lead(self, clause: str) -> tuple[str, str] | None:
        """(person, the rest) for a clause that starts with someone's name or nickname: 舟舟是急诊科护士.
        The agent is left out: what people tell it about itself is the persona's business."""
        for name in sorted(self.roster.all_names(), key=len, reverse=True):
            if len(name) >= 2 and clause.startswith(name):
                person = self.roster.resolve(name)
                if person is not None and person != self.roster.agent_name:
                    return person, clause[len(name) :]
                return None
        for size in (4, 3, 2):
            person = self.roster.nicknamed(clause[:size])
            if person is not None and person != self.roster.agent_name:
                return person, clause[size:]
        return None

    def _third(
        self, person: str, rest: str, message: Message, facts: list[FactDraft], entities: list[EntityDraft]
    ) -> None:
        """A fact one member states about another (舟舟是急诊科护士，圆圆是会计): group chats introduce
        people this way. Read as the first-person rules read 我…, with the named person as subject;
        names are not read (霓霓就是苏霓 is an alias, :mod:`~huiyi.flows.extract.rules.aliases`)."""
        clause = "我" + rest
        for rule in ZH_FACT_RULES:
            if rule.keyword == "名字":
                continue
            match = rule.pattern.match(clause)
            if match and self._fact(rule, match, message, person, False, facts, entities, third=True):
                return

    def _about(self, subject: str, value: str, message: Message, facts: list[FactDraft]) -> None:
        """``subject``是``value``, for a clause whose subject the clause before named (团子 → 是一只橘猫)."""
        obj = trim_zh(value)
        if not obj or not first_noun_ok(obj):
            return
        facts.append(
            FactDraft(
                subject=subject,
                predicate="是",
                object=obj,
                description=f"{subject}是{obj}",
                sources=[message.id],
                kind=FactKind.ATTRIBUTE,
                keyword="身份",
                subject_type=EntityType.SPECIFIC,
                object_type=None,
                time=message.time,
                confidence=0.7,
            )
        )

    # --- helpers

    def _object(self, value: str, speaker: str, english: bool) -> tuple[str, EntityType | None] | None:
        """The object with 你 / you made a name; ``None`` when it is a pronoun nobody can resolve."""
        value = trim_en(value) if english else trim_zh(value)
        if not value:
            return None
        other = self.roster.other_party(speaker, self.private)
        if english:
            low = value.casefold()
            if low in ("you", "u") and other:
                return other, self.roster.entity_type(other)
            if low.startswith(("your ", "ur ")) and other:
                return f"{other}'s {value.split(' ', 1)[1]}", None
            name = self.roster.name_of(speaker)
            if (whom := addressed(value, self.roster.resolve, other)) and whom != name:
                return whom, self.roster.entity_type(whom)  # I love you Kai: a feeling for whom it is said to
            if (ours := parties_named(value, name, other)) is None:
                return None  # I love how we laugh: who "we" are, nobody can tell
            value = ours  # our garden: the speaker's, as "my" below
            # the speaker's: in the agent's prompt "my boss" or "hiking with my sister" reads as its own (helper)
            quoted = '"' in value or "“" in value  # a title's I and me are not the speaker's
            unquoted = SPEAKERS_ME.sub(name, I_CLAUSE.sub("", told_of_speaker(value, name)))
            mine = SPEAKERS_MY.sub(f"{name}'s", value if quoted else unquoted)
            if not mine:
                return None  # "I like what I see": what is liked was the clause of I
            if MY_THING.match(value):
                return mine, None
            if OTHERS_YOUR.search(mine):  # "loves your turtles": the other party's; with no other, nobody's known
                if not other:
                    return None
                mine = OTHERS_YOUR.sub(f"{other}'s", mine)
            value = mine
            if low in EN_PRONOUNS or low.split()[0].rstrip(",;:") in ("it", "that", "this", "them", "you"):
                return None
            if EN_FAN_OF_PRONOUN.match(low):
                return None
        else:
            if value in ("你",) and other:
                return other, self.roster.entity_type(other)
            if value.startswith("你的") and other and len(value) > 2:
                return f"{other}的{value[2:]}", None
            value = yours_named(value, other)  # 我喜欢听你说话: whom 你 is said to
            # 我喜欢我妈做的红烧肉: the speaker's mother, where the agent's prompt would read its own
            mine = _ZH_MINE.sub(lambda m: self.roster.name_of(speaker) + ("" if m["home"] is not None else "的"), value)
            if MY_THING_ZH.match(value):
                return mine, None
            value = mine
            if value in ZH_PRONOUNS or value.startswith(("你", "他", "她", "它", "这", "那", "的", "了", "着", "过")):
                return None
        known = self.roster.resolve(value)
        if known:
            return known, self.roster.entity_type(known)
        return value, None

    def _fact(
        self,
        rule: FactRule,
        match: re.Match[str],
        message: Message,
        speaker: str,
        english: bool,
        facts: list[FactDraft],
        entities: list[EntityDraft],
        third: bool = False,
    ) -> bool:
        """``third``: ``speaker`` is the person a clause names, not who said it."""
        if rule.keyword == "住址" and trim_zh(match.group("o")) in ("我家", "我家里"):
            return False  # 我住在我家: says no place (我喜欢我家 is a liking of it)
        if rule.keyword == "老家" and not a_place_said(trim_zh(match.group("o"))):
            return False  # 我老家在拆迁, 老家是开饭店的: what goes on there
        if rule.predicate == "工作于" and AT_HOME.fullmatch(trim_zh(match.group("o"))):
            return False  # 我在家上班: works from home, for nobody named
        resolved = self._object(match.group("o"), speaker, english)
        if resolved is None:
            return False
        obj, obj_type = resolved
        if english and rule.object_type is EntityType.SPECIFIC:
            obj = EN_NOT_THERE.sub("", obj)  # I moved to Berlin, not Munich: the place is Berlin
        age = re.search(r"\d+", obj) if rule.keyword in ("年龄", "age") else None
        if age and not 0 < int(age.group()) <= 150:
            return False  # 我今年300岁: a joke
        if rule.keyword == "身份" and _JUST_HUMAN.fullmatch(obj):
            return False
        if rule.keyword == "身份" and _ANIMAL_COUNT.match(obj):
            return False  # 我是一只小小鸟, 我是一条咸鱼: nobody is counted as an animal but in a figure of speech
        if rule.keyword == "identity" and EN_FOR_NOW.search(obj):
            return False  # I'm a mess today: a mood, not who one is
        if rule.keyword in ("身份", "identity") and obj_type is not None:
            return obj == speaker  # 我是苏霓 said by 苏霓: nothing new; said by anyone else: not read
        # I'm a lawyer now: a job, which ends the old one (closes.ONE_AT_A_TIME); 我是你的老师 as said, not as
        # 祈煜的老师: whose it is makes it none
        rule = job_rule(rule, obj if english else trim_zh(match.group("o")))
        if match.groupdict().get("now") and rule.keyword == "身份":
            return False  # 我现在是一个人: a state of now; 我现在是律师 is a job
        called = match.string[: match.start("o")].endswith(("叫", "叫做"))
        if rule.person_object and obj_type is None and not person_named(obj, called):
            return False  # 我和男朋友是同学: of whom?
        if third and (one_proper_noun(obj) or self.roster.nicknamed(obj)):
            return False  # 霓霓是小苏: another name, and not one the person gave
        if rule.noun_object and not english:
            if is_name(obj):
                if third:
                    return False  # 霓霓是小苏: a name, and not one the person gave
                rule = ZH_NAME_RULE  # 我是小明
            elif not first_noun_ok(obj):
                return False
        groups = {k: (v or "").strip() for k, v in match.groupdict().items()}
        predicate_word = " ".join(groups.get("p", "").split()).lower() if english else groups.get("p", "")
        if english and predicate_word:
            predicate_word = {"do not like": "don't like", "cannot stand": "can't stand"}.get(
                predicate_word, predicate_word
            )
            verb = predicate_word.split()[0]
            shown_p = predicate_word.replace("don't", "doesn't") if verb == "don't" else _third_person(predicate_word)
        else:
            shown_p = predicate_word
        extra = groups.get("x", "")
        predicate = rule.predicate.format(p=shown_p, x=extra)
        if rule.keyword in ("名字", "name"):
            if obj == speaker:
                return True  # 我叫木木, said by 木木: nothing new
            entities.append(EntityDraft(speaker, self.roster.entity_type(speaker) or EntityType.OBJECT, [obj]))
        description = rule.description.format(s=speaker, o=obj, p=shown_p, x=extra)
        object_type = obj_type or rule.object_type
        kind = rule.kind
        if obj_type in (EntityType.SUBJECT, EntityType.OBJECT) and kind is FactKind.PREFERENCE:
            kind = FactKind.RELATION  # 我喜欢你: a feeling for a person is a relation
        facts.append(
            FactDraft(
                subject=speaker,
                predicate=predicate,
                object=obj,
                description=description,
                sources=[message.id],
                kind=kind,
                keyword=rule.keyword,
                subject_type=self.roster.entity_type(speaker) or EntityType.OBJECT,
                object_type=object_type,
                time=message.time,
                confidence=rule.confidence,
            )
        )
        if object_type is EntityType.SPECIFIC and len(obj) > 1:  # 我在家工作: 家 is no entity
            entities.append(EntityDraft(obj, EntityType.SPECIFIC))
        return True

    def _pet(
        self,
        match: re.Match[str],
        message: Message,
        speaker: str,
        english: bool,
        facts: list[FactDraft],
        entities: list[EntityDraft],
    ) -> None:
        pet = " ".join(match.group("pet").split())
        num = match.group("num") or ("a" if english else "一")
        measure = "" if english else (match.group("mw") or "只")
        name = match.group("name")
        if english:
            thing = f"{num} {pet}"
            description = f"{speaker} has {thing}" + (f" named {name}" if name else "")
            predicate, keyword = "has", "pet"
        else:
            thing = f"{num}{measure}{pet}"
            description = f"{speaker}养了{thing}" + (f"，叫{name}" if name else "")
            predicate, keyword = "养了", "宠物"
        subject_type = self.roster.entity_type(speaker) or EntityType.OBJECT
        facts.append(
            FactDraft(
                subject=speaker,
                predicate=predicate,
                object=pet,
                description=description,
                sources=[message.id],
                kind=FactKind.RELATION,
                keyword=keyword,
                subject_type=subject_type,
                object_type=EntityType.GENERIC,
                time=message.time,
                confidence=0.8,
            )
        )
        entities.append(EntityDraft(pet, EntityType.GENERIC))
        if name:
            facts.append(pet_name_fact(speaker, pet, name, english, message))
            entities.append(EntityDraft(name, EntityType.SPECIFIC))

    # --- languages

    def _day_first(
        self,
        rule: FactRule,
        clause: str,
        message: Message,
        speaker: str,
        english: bool,
        facts: list[FactDraft],
        entities: list[EntityDraft],
    ) -> bool:
        """后天是我生日, Tomorrow is my birthday: a birthday with its day said first. Only a time phrase
        whole is a day (那天, 这 are no date, 他说明天 is someone's words)."""
        first, _, rest = clause.partition(" ")
        if first.lower() in _EN_DAY_WORDS:  # Tomorrow is…: the sentence's capital is not the word's
            clause = " ".join(filter(None, [first.lower(), rest]))
        match = rule.pattern.match(clause)
        if match is None:
            return False
        day = match.group("o").strip()
        if not any(span.phrase == day for span in find_time_phrases(day, message.time)):
            return False
        return self._fact(rule, match, message, speaker, english, facts, entities)

    def _relation(
        self,
        clause: str,
        message: Message,
        speaker: str,
        english: bool,
        facts: list[FactDraft],
        entities: list[EntityDraft],
    ) -> bool:
        """我和小雨是室友, Mia is my roommate: the speaker's relation to someone named (rules.relations)."""
        return any(
            self._fact(rule, match, message, speaker, english, facts, entities)
            for rule, match in relations_in(clause, english)
        )

    def _chinese(
        self, clause: str, message: Message, speaker: str, facts: list[FactDraft], entities: list[EntityDraft]
    ) -> None:
        if self._day_first(ZH_BIRTHDAY_FIRST, clause, message, speaker, False, facts, entities):
            return
        if self._relation(clause, message, speaker, False, facts, entities):
            return
        for at in (m.start() for m in re.finditer("我", clause)):
            if clause[at + 1 : at + 2] == "们" or (at and clause[at - 1] in "自忘唯本"):
                continue
            prefix = ZH_TELL.sub("", clause[:at])
            if ZH_REPORTED.search(prefix) or said_then(clause[:at]):  # 他说我…, 以前我…: not the speaker now
                continue
            rest = speakers_part(clause, at)  # 我同学和我都在上海上班: the speaker's too (我在上海上班)
            if rest is None:
                continue
            if ZH_UNREAL.search(rest):
                return  # 我住在上海就好了: a wish
            if hedge := ZH_HEDGE.match(rest, 1):  # 我好像对猫毛过敏
                self._tentative("我" + rest[hedge.end() :], hedge.group(), message, speaker, False, facts)
                return
            pet = ZH_PET.match(rest) or ZH_PET_HAS.match(rest) or ZH_PET.match(home_pet(rest))  # 我家狗子…
            if pet:
                self._pet(pet, message, speaker, False, facts, entities)
                return
            if job := zh_job_as(rest):  # 我在律所当律师: the job, and the workplace too (ZH_FACT_RULES)
                self._fact(ZH_JOB_AS, job, message, speaker, False, facts, entities)
            for rule in ZH_FACT_RULES:
                if rule.keyword in THEN_NOT_NOW and held_then(rest):
                    continue  # 我在腾讯上班那会儿: a job of then
                match = rule.pattern.match(rest)
                if match and self._fact(rule, match, message, speaker, False, facts, entities):
                    return
            return  # only the first standalone 我 of a clause is read

    def _tentative(
        self, clause: str, hedge: str, message: Message, speaker: str, english: bool, facts: list[FactDraft]
    ) -> None:
        """A hedged clause, 我``hedge``… with the hedge taken out: only a possible allergy is kept, its text
        saying the hedge (木木好像对猫毛过敏, 木木 may be allergic to cats); who one may be is no fact."""
        for rule in EN_FACT_RULES if english else ZH_FACT_RULES:
            match = rule.pattern.match(clause)
            found: list[FactDraft] = []
            if (
                rule.keyword in ("健康", "health")
                and match
                and self._fact(rule, match, message, speaker, english, found, [])
            ):
                fact = found[0]
                said = fact.description[len(speaker) :]
                said = said.replace(" is ", f" {hedge} ", 1) if english else hedge + said
                facts.append(replace(fact, description=speaker + said, confidence=TENTATIVE))
                return

    def _english(
        self, clause: str, message: Message, speaker: str, facts: list[FactDraft], entities: list[EntityDraft]
    ) -> None:
        clause = clause.replace("’", "'").replace("‘", "'")  # ‘Dune’ quoted whole, as 'Dune' is
        if self._day_first(EN_BIRTHDAY_FIRST, clause, message, speaker, True, facts, entities):
            return
        if self._relation(clause, message, speaker, True, facts, entities):
            return
        if hedge := EN_HEDGE.match(clause):  # I think I'm allergic to peanuts
            self._tentative("I'm " + clause[hedge.end() :], "may be", message, speaker, True, facts)
            return
        if pet := en_pet(clause):
            self._pet(pet, message, speaker, True, facts, entities)
            return
        for rule in EN_FACT_RULES:  # every rule: "I work at Microsoft as an engineer" says two things
            match = rule.pattern.match(clause)
            if match and not person_as_thing(rule, match, self.roster.resolve):  # watching Lily minds her
                self._fact(rule, match, message, speaker, True, facts, entities)


def _third_person(verb_phrase: str) -> str:
    """like → likes, can't stand → can't stand."""
    first, _, rest = verb_phrase.partition(" ")
    if first in ("can't", "cannot"):
        return verb_phrase
    first = first + ("es" if first.endswith(("s", "sh", "ch")) else "s")
    return f"{first} {rest}".strip()
