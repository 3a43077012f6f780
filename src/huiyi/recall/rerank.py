"""Every bonus recall adds to a candidate's fused relevance, in one place.

On the best fused candidates (:func:`rerank`): ``speaker`` (the query names someone who took part),
``time`` (the memory lies in the span the query's time words name), ``neighbour`` (its neighbours in the
chat are candidates too). Then, over the candidates handed on: the extra routes' hits (``entity``,
``expand``: :func:`add_route`), seed 001's match ``tier`` (:func:`add_tiers`), and ``graph``
(:func:`add_graph`). Each bonus is recorded by name, so a result says why a memory ranked where it did.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Mapping, Sequence
from datetime import datetime
from functools import lru_cache

from huiyi.config.recall import RecallRecipe
from huiyi.flows.chatter import is_chatter, people_of, said_lines
from huiyi.model import MemoryItem, MemoryKind
from huiyi.recall import whose
from huiyi.recall.latest import asks_final, changes, inherited
from huiyi.recall.many import asks_many
from huiyi.recall.timerange import within
from huiyi.recall.validity import asks_past, closed_moves
from huiyi.recall.who import coverage, owned, question_words
from huiyi.store.base import RankRow, RouteHits, Store
from huiyi.text import tokens
from huiyi.text.times import TimeSpan

Window = list[tuple[int, tuple[float, dict[str, float]]]]  # (store key, (fused score, per-route scores))
Bonuses = dict[str, dict[str, float]]  # memory id -> {bonus name: value}


def mentioned(query: str, names: Iterable[str]) -> set[str]:
    """The names the query mentions: as a whole word (any case) for Latin names, as a substring for CJK.

    >>> sorted(mentioned("What did Caroline's friend Mel paint?", ["Caroline", "Melanie", "苏霓"]))
    ['Caroline']
    >>> mentioned("霓霓上周说了什么", ["霓霓", "木木"])
    {'霓霓'}

    A longer name takes its words first: 小雨雨 does not name 小雨 too, though 小雨雨和小雨 names both.

    >>> mentioned("小雨雨喜欢吃什么", ["小雨", "小雨雨"]), sorted(mentioned("小雨雨和小雨", ["小雨", "小雨雨"]))
    ({'小雨雨'}, ['小雨', '小雨雨'])
    """
    found: set[str] = set()
    folded = query.casefold()
    taken: list[tuple[int, int]] = []
    for name in sorted(names, key=lambda name: -len(name.strip())):
        key = name.strip().casefold()
        if len(key) < 2 or key not in folded:
            continue
        pattern = re.escape(key) if tokens.has_cjk(key) else rf"(?<!\w){re.escape(key)}(?!\w)"
        for match in re.finditer(pattern, folded):
            if not any(match.start() < end and start < match.end() for start, end in taken):
                taken.append(match.span())
                found.add(name)
    return found


def _tells_of(line: str, names: Iterable[str]) -> bool:
    """Whether a line names one of ``names``, other than to take the name (以后叫我苏霓吧, 苏霓就是小黑: a member's
    claim to another's name lifts none of their lines, recall.lookalikes).

        >>> [_tells_of(line, ["苏霓"]) for line in ("苏霓最近在学车", "以后叫我苏霓吧", "苏霓就是小黑")]
        [True, False, False]
    """
    for name in names:
        if name and name in line:
            said = re.escape(name)
            if not re.search(rf"(?:叫我|我叫|我(?:就)?是){said}|{said}就是", line):
                return True
    return False


def _of_another(item: RankRow, members: Collection[str], named: set[str], people: Iterable[str]) -> bool:
    """Whether ``item`` is a fact about a member other than those the query names (a fact about a pet or a
    place, 汤圆是只橘猫, is nobody's here), and names none of them (汤圆是小明的猫 is 小明's too)."""
    subject = item.subject if item.kind is MemoryKind.FACT else None
    if not subject or subject not in members or subject in named or not named.isdisjoint(people):
        return False
    return not any(name in item.text for name in named)


def rerank(
    window: Window,
    items: dict[int, RankRow | None],
    query: str,
    recipe: RecallRecipe,
    span: TimeSpan | None,
    whole: Mapping[int, MemoryItem | RankRow | None] | None = None,
    speakers: Iterable[str] = (),
    spoken: Mapping[int, float] | None = None,
    facts_lead: bool = False,
    now: datetime | None = None,
    members: Collection[str] = (),
    private: bool = False,
) -> tuple[Window, dict[int, dict[str, float]]]:
    """Add small bonuses to the fused scores of the best candidates, then sort again.

    ``speaker``: the query names someone who took part in the memory (“what did 霓霓 say about…”,
    “what does Caroline paint?”); the people who take part are read from the candidates themselves.
    Between ``speaker_weight`` and twice it: among the named people's memories, the more the speaker
    route's score (their field plus the query's other words, ``spoken``) the more, so their memories
    that say what is asked lead, not just any of their lines (issue #13). With ``facts_lead`` (a group
    chat, where naming one of many members is a sharp cue), a fact whose subject is the named person
    gets ``speaker_weight`` more than a line of theirs with the same share: it is what "what does 苏霓 do"
    asks whatever its words, so it leads even the line that shares the question's words (issue #13:
    王一舟是急诊科护士 lost to 王一舟: 准备上班了 when both got twice the weight). Between two people every
    question names one of them, and their facts would crowd out the rest (LoCoMo R@1 −0.009).
    ``time``: the memory's time lies in the span the query's time words name (上周, in May 2023);
    ``time_weight`` times the share of the dated candidates outside the span.
    ``neighbour``: a chunk whose neighbours in the same chat (within ``neighbour_turns``) are among
    the candidates too sits in a stretch of talk about the question's topic (SeCom: topic segments
    beat single turns); it gains ``neighbour_weight`` times its best neighbour's fused score (less when
    the query asks for several things: recall.many). An
    event or fact gains the same weight times the mean fused score of the chunks of its source turns
    (0 for a turn that is no candidate), so that in a small store, where every chunk has neighbours
    in the window, the bonus does not become a bonus for being a chunk.
    ``closed``: a fact closed by ``now`` (``valid_to``) and the message it alone came from lose
    ``closed_weight``, unless the question asks about the past (recall.validity).
    ``chatter``: a chunk that says nothing on its own (哈哈, +1, 晚安霓霓) keeps ``chatter_weight`` of its
    score and gets no speaker bonus; it still lends its neighbours support (reactions mark what mattered).
    ``other``: in a group, asked about a member, a fact about another of the ``members`` (the people's names)
    that names none asked about keeps ``other_person_weight`` of its score (小雨喜欢吃辣, asked 小雨雨…); and
    ``private`` (between two), asked of the asker's own (我的考试), a line another leads (女朋友下个月要考…,
    recall.whose) keeps that share too, before its neighbours take support from it.

    ``whole``: the candidates' memories (whole, or their rank rows: the time test reads text, time and
    ``data.about``), given only when a time span is asked and ``time_about`` reads the times a memory's
    own words name.
    """
    people = {key: people_of(item.kind, item.participants, item.subject) for key, item in items.items() if item}
    names = {name for found in people.values() for name in found}
    # the people the query names: by a name candidates carry, or by an alias the speaker route resolved
    named = (mentioned(query, names) | set(speakers)) if recipe.speaker_weight else set()
    chatter = chatter_keys(items, names) if recipe.chatter_weight < 1 else set()
    theirs = {}  # the named people's memories by their share of the speaker route (none named: none)
    if named:
        theirs = spoken_shares(spoken or {}, {key for key, found in people.items() if not named.isdisjoint(found)})
    boosts: dict[int, dict[str, float]] = {}
    if private and recipe.other_person_weight < 1 and whose.asks_own(query):
        window = _of_others_lowered(window, items, recipe.other_person_weight, boosts)
    rescored: Window = []
    closed = {} if asks_past(query) else closed_moves([key for key, _ in window], items, now, recipe.closed_weight)
    # a who-question describes what was said: the line that says most of it is the answer (recall.who)
    asked = question_words(query, span.phrase if span else "") if recipe.who_weight else []
    # a span that holds most candidates (去年, recently) tells little: the bonus shrinks with its share
    time_bonus = 0.0
    if span is not None:
        dated = [item for item in items.values() if item is not None and item.time is not None]
        inside = sum(
            1
            for key, item in items.items()
            if item is not None and item.time is not None and _within(key, item, span, whole)
        )
        time_bonus = recipe.time_weight * (1.0 - inside / len(dated)) if dated else 0.0
    # where each chunk sits in its chat, so a candidate can see how well its neighbours scored
    placed: dict[tuple[str, int], float] = {}
    said: dict[str, float] = {}  # a chunk's own message (its anchor) → the chunk's fused score
    steps = [step for step in range(-recipe.neighbour_turns, recipe.neighbour_turns + 1) if step]
    # asked for several things, the answers are scattered mentions, not one stretch of talk (recall.many)
    neighbour_weight = recipe.neighbour_weight * (recipe.many_neighbour_share if asks_many(query) else 1.0)
    if neighbour_weight:
        for key, (score, _) in window:
            item = items.get(key)
            if item is not None and item.kind is MemoryKind.CHUNK and item.seq is not None:
                placed[(item.space, item.seq)] = score
                if item.sources:
                    said[item.sources[0]] = score
    for key, (score, parts) in window:
        item = items.get(key)
        bonus: dict[str, float] = {}
        if item is not None:
            if named and not named.isdisjoint(people[key]) and key not in chatter:
                # a fact about the named person is what "what does 苏霓 do" asks: it leads their lines
                about = facts_lead and item.kind is MemoryKind.FACT and item.subject in named
                bonus["speaker"] = recipe.speaker_weight * ((2.0 if about else 1.0) + theirs.get(key, 0.0))
            elif (  # in a group, another member's line about them (小雨最近在学车) tells of them too
                facts_lead
                and recipe.mention_weight
                and item.kind is MemoryKind.CHUNK
                and key not in chatter
                and _tells_of(item.text.split(": ", 1)[-1], named)
            ):
                bonus["speaker"] = recipe.speaker_weight * recipe.mention_weight
            if time_bonus and item.time is not None and span is not None and _within(key, item, span, whole):
                bonus["time"] = time_bonus
            if placed and item.kind is MemoryKind.CHUNK and item.seq is not None:
                space, seq = item.space, item.seq
                best = max([placed.get((space, seq + step), 0.0) for step in steps], default=0.0)
                if best > 0:
                    bonus["neighbour"] = neighbour_weight * best
            elif said and item.kind is not MemoryKind.CHUNK:
                # an event or fact drawn from turns that are candidates themselves: the same support
                support = sum(said.get(source, 0.0) for source in item.sources) / max(1, len(item.sources))
                if support > 0:
                    bonus["neighbour"] = neighbour_weight * support
            if key in closed:
                bonus["closed"] = closed[key]
            # 前天谁找我了 asks who did it then: a line from another day that says 找 is not the answer
            in_span = span is None or _within(key, item, span, whole)
            if asked and item.kind is MemoryKind.CHUNK and in_span:
                share = max(coverage(asked, line) for line in said_lines(item.text, item.participants))
                if share:
                    bonus["said"] = recipe.who_weight * share
            if key in chatter:
                bonus["chatter"] = -(1.0 - recipe.chatter_weight) * (score + sum(bonus.values()))
            elif facts_lead and named and _of_another(item, members, named, people[key]):
                bonus["other"] = -(1.0 - recipe.other_person_weight) * (score + sum(bonus.values()))
        if bonus:
            score += sum(bonus.values())
            boosts[key] = boosts.get(key, {}) | bonus
        rescored.append((key, (score, parts)))
    rescored.sort(key=lambda pair: (-pair[1][0], pair[0]))
    return rescored, boosts


def _of_others_lowered(
    window: Window, items: Mapping[int, RankRow | None], keep: float, boosts: dict[int, dict[str, float]]
) -> Window:
    """The window with each chunk whose own line another leads (recall.whose) down to ``keep`` of its score."""
    out: Window = []
    for key, (score, parts) in window:
        item = items.get(key)
        if (
            item is not None
            and item.kind is MemoryKind.CHUNK
            and score > 0
            and whose.led_by_another(item.text, item.participants)
        ):
            boosts[key] = {"other": -(1.0 - keep) * score}
            score *= keep
        out.append((key, (score, parts)))
    return out


def latest(
    window: Window,
    boosts: dict[int, dict[str, float]],
    items: Mapping[int, RankRow | None],
    query: str,
    recipe: RecallRecipe,
    span: TimeSpan | None,
    now: datetime | None,
) -> Window:
    """The latest arrangement of a plan asked about, and the change a final-state question asks for
    (recall.latest), added to the reranked window (``boosts`` gains ``latest`` and ``change``): the last
    bonus, so that the newest arrangement goes above what the other bonuses made of the plan's lines."""
    gains: dict[str, dict[int, float]] = {}
    # a time to come (明晚, 这周六): a plan's; a span already begun (今天一大早, 今晚 at 21:00) is not
    if (
        recipe.latest_plans
        and span is not None
        and now is not None
        and span.start > now.replace(tzinfo=span.start.tzinfo)
    ):
        whole = items if recipe.time_about else None  # the time test reads what the rows say, as rerank's does
        gains["latest"] = inherited(window, items, lambda key, row: _within(key, row, span, whole))
    if recipe.change_weight and asks_final(query):
        gains["change"] = changes([key for key, _ in window], items, recipe.change_weight)
    asked = question_words(query, span.phrase if span else "") if recipe.who_weight else []
    if asked:  # among a speaker's lines, the one that says most of a who-question leads (recall.who)
        gains["said_most"] = owned(window, items, asked, {key: b.get("time", 0.0) for key, b in boosts.items()})
    if not any(gains.values()):
        return window
    for name, found in gains.items():
        for key, gain in found.items():
            boosts.setdefault(key, {})[name] = round(gain, 6)
    moved = [
        (key, (score + sum(found.get(key, 0.0) for found in gains.values()), parts)) for key, (score, parts) in window
    ]
    moved.sort(key=lambda pair: (-pair[1][0], pair[0]))
    return moved


def said_within(row: MemoryItem | RankRow, span: TimeSpan, about: bool) -> bool:
    """Whether ``row`` was said in ``span`` or, with ``about`` (``time_about``), names a time in it."""
    return within(row, span) if about else row.time is not None and row.time in span


def reach_span(
    store: Store,
    agent: str,
    window: Window,
    rest: Window,
    ids_by_key: Mapping[int, str],
    span: TimeSpan,
    recipe: RecallRecipe,
) -> tuple[Window, dict[str, RankRow]]:
    """The window and the next ``time_reach`` fused candidates said in (or naming a time in) ``span``, with
    the rank rows read for them: "what did Maria share on 16 June" names the day its answer was said,
    but that turn may sit below the bonus window, where the time bonus would never reach it."""
    taken = {key for key, _ in window}  # the named person's memories below may be in it already
    rest = [pair for pair in rest[: recipe.time_reach] if pair[0] not in taken]
    if not rest:
        return window, {}
    rows = {row.id: row for row in store.rank_rows(agent, [ids_by_key[key] for key, _ in rest])}

    inside = [
        pair
        for pair in rest
        if (row := rows.get(ids_by_key[pair[0]])) is not None and said_within(row, span, recipe.time_about)
    ]
    kept = {ids_by_key[key] for key, _ in inside}
    return window + inside, {i: row for i, row in rows.items() if i in kept}


def _within(key: int, row: RankRow, span: TimeSpan, whole: Mapping[int, MemoryItem | RankRow | None] | None) -> bool:
    # ``whole`` is given when time_about reads what the memory names (recall.timerange)
    item = whole.get(key) if whole is not None else None
    return said_within(item, span, True) if item is not None else said_within(row, span, False)


def spoken_shares(spoken: Mapping[int, float], theirs: set[int]) -> dict[int, float]:
    """The speaker route's scores of the named people's memories, scaled to 0–1 among them.

    >>> spoken_shares({1: 2.0, 2: 6.0, 3: 9.0}, {1, 2}), spoken_shares({3: 9.0}, {3})
    ({1: 0.0, 2: 1.0}, {3: 1.0})
    """
    scores = {key: score for key, score in spoken.items() if key in theirs}
    if not scores:
        return {}
    low, high = min(scores.values()), max(scores.values())
    # all alike (or just one): each is as good as the best of theirs
    return {key: (score - low) / (high - low) if high > low else 1.0 for key, score in scores.items()}


FILLER_IMPORTANCE = 0.1  # the rule extractor's importance for an event of fillers only


def chatter_keys(items: Mapping[int, RankRow | None], names: Iterable[str]) -> set[int]:
    """The chunks whose every turn is chatter (``names``: people a turn may address, as in 晚安霓霓),
    and the events of chatter only."""
    known = tuple(sorted(names))
    out: set[int] = set()
    for key, item in items.items():
        if item is None:
            continue
        if item.kind is MemoryKind.CHUNK:
            if _chatter_among(item.text, item.participants, known):
                out.add(key)
        elif item.kind is MemoryKind.EVENT and item.importance <= FILLER_IMPORTANCE:
            out.add(key)
    return out


@lru_cache(maxsize=32768)
def _chatter_among(text: str, participants: tuple[str, ...], names: tuple[str, ...]) -> bool:
    """:func:`_chatter_chunk` with the names of a window (the same ones query after query in a chat)."""
    # a name made of letters the text lacks (a space aside) can never be taken out of it: leaving such
    # names out of the key changes no answer and lets the chunk hit the cache whatever else a window holds
    present = set(text)
    able = tuple(name for name in names if all(ch in present for ch in name if ch != " "))
    return _chatter_chunk(text, participants, able)


@lru_cache(maxsize=32768)
def _chatter_chunk(text: str, participants: tuple[str, ...], names: tuple[str, ...]) -> bool:
    """Whether every turn of a chunk is chatter: the same rows come back query after query in a scope."""
    lines = said_lines(text, participants)
    return is_chatter(lines[0], names) if len(lines) == 1 else all(is_chatter(line, names) for line in lines)


def add_route(relevance: dict[str, float], extra: Bonuses, name: str, hits: RouteHits, weight: float) -> None:
    """A late route's hits as bonuses: ``weight`` times each hit's score over the route's best."""
    if not hits.hits or weight <= 0:
        return
    best = max(h.score for h in hits.hits) or 1.0
    for hit in hits.hits:
        bonus = weight * hit.score / best
        relevance[hit.id] = relevance.get(hit.id, 0.0) + bonus
        routes = extra.setdefault(hit.id, {})
        routes[name] = round(routes.get(name, 0.0) + bonus, 6)


def tier(query_words: Sequence[str], keywords: Sequence[str], text: str) -> int:
    """Seed 001 §2.3's match tiers: 4 a query word is a tag (keyword), 3 it is part of one (or one is part
    of it), 2 it is a word of the text, 1 it is inside the text, 0 nothing; a one-character word never
    matches a text (seed 000 v23), only a tag exactly.

    >>> tier(["吉他"], ["吉他"], "…"), tier(["吉他"], ["电吉他"], "…"), tier(["吉他"], [], "我想学吉他")
    (4, 3, 2)
    >>> tier(["吉他"], [], "电吉他很贵"), tier(["猫"], [], "我的猫"), tier(["猫"], ["猫"], "…")
    (1, 0, 4)
    """
    tags = [k.casefold() for k in keywords]
    best = 0
    text_words = set(tokens.words(text)) if query_words else set()
    folded = text.casefold()
    for word in (w.casefold() for w in query_words):
        if word in tags:
            return 4
        if len(word) > 1 and any(word in tag or (len(tag) > 1 and tag in word) for tag in tags):
            best = max(best, 3)
        elif len(word) > 1 and word in text_words:
            best = max(best, 2)
        elif len(word) > 1 and word in folded:
            best = max(best, 1)
    return best


def matched_words(query_words: Sequence[str], keywords: Sequence[str], text: str) -> list[str]:
    """The query words :func:`tier` finds in a memory at any tier, each once, in the query's order
    (seed 000 §12's ``matched_keywords``).

    >>> matched_words(["吉他", "猫", "乐器", "吉他"], ["乐器"], "我想学吉他，我的猫")
    ['吉他', '乐器']
    """
    tags = [k.casefold() for k in keywords]
    folded = text.casefold()
    return [
        word
        for word in dict.fromkeys(query_words)
        if (low := word.casefold()) in tags
        or (len(low) > 1 and (low in folded or any(low in tag or (len(tag) > 1 and tag in low) for tag in tags)))
    ]


def add_tiers(
    relevance: dict[str, float], extra: Bonuses, hits: Sequence[MemoryItem], words: Sequence[str], weight: float
) -> None:
    """Seed 001 §2.3's tier as a bonus: ``weight`` × tier / 4, so an exact tag gains the whole weight."""
    for hit in hits:
        level = tier(words, hit.keywords, hit.text)
        if level:
            bonus = weight * level / 4
            relevance[hit.id] += bonus
            extra.setdefault(hit.id, {})["tier"] = round(bonus, 6)


def add_graph(
    relevance: dict[str, float], extra: Bonuses, hops: Mapping[str, int], seeds: Sequence[str], weight: float
) -> None:
    """A memory reached along links scores at least ``weight`` × the best seed's relevance / distance."""
    best_seed = max((relevance[s] for s in seeds), default=0.0)
    for memory_id, distance in hops.items():
        bonus = weight * best_seed / distance
        relevance[memory_id] = max(relevance.get(memory_id, 0.0), bonus)
        extra.setdefault(memory_id, {})["graph"] = round(bonus, 6)
