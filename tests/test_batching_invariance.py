"""Recall does not depend on how a caller batches its messages.

The same conversation goes into fresh stores as one ``add``, one day per call, one message per call and
a seeded random chunking (and, for two interleaved groups with private chats of their members, one
message per call against one call per chat); every background job is done before the stores are read.
Then what extraction made (events, facts, summaries, profiles: by text, as ids are generated), recall's
top ten of every probe (by kind and text) and ``context()``'s rendered text must be the same.

One thing is held equal on purpose, since it is no part of batching: summaries are written once at the
end (``maintain``), not by the background worker, whose runs fall wherever the adds pause (what a summary
may read when it is written is tested on its own below).
"""

from __future__ import annotations

import itertools
import random
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from pathlib import Path

import pytest

from huiyi import Memory
from huiyi.config import Config
from huiyi.evaluation.runner import compose_query
from huiyi.formats.probes import Case, Probe, ProbeMessage, ProbeSet
from huiyi.providers.embed import HashEmbedder

DATA = Path(__file__).parent / "data"
Batches = list[list[ProbeMessage]]
Chunking = Callable[[Sequence[ProbeMessage]], Batches]
CONFIG = Config(recall={"reinforce": False}, worker={"maintenance_minutes": 0})


def _case(name: str) -> Case:
    return ProbeSet.load(DATA / f"{name}.json").cases[0]


# ways to batch ------------------------------------------------------------------------------------


def _chats(messages: Sequence[ProbeMessage]) -> Batches:
    """Runs of consecutive messages of one chat: a call never spans two chats."""
    out: Batches = []
    for message in messages:
        if out and out[-1][-1].space == message.space:
            out[-1].append(message)
        else:
            out.append([message])
    return out


def whole(messages: Sequence[ProbeMessage]) -> Batches:
    return _chats(messages)


def by_day(messages: Sequence[ProbeMessage]) -> Batches:
    return [part for run in _chats(messages) for part in _split(run, lambda a, b: a.time.date() != b.time.date())]


def by_day_newest_first(messages: Sequence[ProbeMessage]) -> Batches:
    """A day a call, each newest first, as a chat API pages its history (every line carries its time)."""
    return [part[::-1] for part in by_day(messages)]


def by_message(messages: Sequence[ProbeMessage]) -> Batches:
    return [[message] for message in messages]


def by_chat(messages: Sequence[ProbeMessage]) -> Batches:
    """Each chat's messages in one call, the chats one after another (as an import of each would)."""
    spaces = list(dict.fromkeys(m.space for m in messages))
    return [[m for m in messages if m.space == space] for space in spaces]


def at_random(seed: int) -> Chunking:
    def chunk(messages: Sequence[ProbeMessage]) -> Batches:
        rng = random.Random(seed)
        return [part for run in _chats(messages) for part in _split(run, lambda _a, _b: rng.random() < 0.15)]

    return chunk


def _split(run: Sequence[ProbeMessage], cut: Callable[[ProbeMessage, ProbeMessage], bool]) -> Batches:
    out: Batches = [[run[0]]]
    for before, message in itertools.pairwise(run):
        if cut(before, message):
            out.append([])
        out[-1].append(message)
    return out


# ingesting and reading back -------------------------------------------------------------------------


@dataclass(frozen=True)
class Outcome:
    extracted: list[tuple[str, str, str]]  # scope, kind, text of every memory but the verbatim chunks
    entities: list[tuple[str, str, str, tuple[str, ...]]]  # scope, type, name, aliases
    recalled: dict[str, list[tuple[str, str]]]  # probe (and where asked) -> kind, text of the top ten
    contexts: dict[str, str]


def _private(case: Case) -> dict[str, str]:
    """space -> person, for the chats where one person talks with the agent."""
    people: dict[str, set[str]] = {}
    for message in case.messages:
        people.setdefault(message.space, set()).update([message.speaker] if message.role == "user" else [])
    return {space: next(iter(who)) for space, who in people.items() if len(who) == 1}


def _where(space: str, private: dict[str, str]) -> dict[str, str]:
    return {"person": private[space]} if space in private else {"space": space}


def ingest(directory: Path, case: Case, chunking: Chunking, asked: Sequence[tuple[str, Probe, str]]) -> Outcome:
    """``case`` added in ``chunking``'s calls to a fresh store, everything folded, extracted and summarised;
    then each ``(key, probe, space)`` of ``asked`` recalled and rendered in that space."""
    private = _private(case)
    now = max(m.time for m in case.messages) + timedelta(days=1)
    with Memory(directory, config=CONFIG, embedder=HashEmbedder(64), clock=lambda: now) as memory:
        for batch in chunking(case.messages):
            rows = [{"id": m.id, "text": m.text, "role": m.role, "speaker": m.speaker, "time": m.time} for m in batch]
            memory.add(rows, agent=case.agent, **_where(batch[0].space, private))
        memory.indexed()
        spaces = list(dict.fromkeys(m.space for m in case.messages))
        for space in spaces:
            memory.flush(agent=case.agent, wait=True, **_where(space, private))
        for item in case.memories:
            memory.remember(item.text, agent=case.agent, person=item.person, space=item.space, time=item.time)
        memory.maintain(catch_up=True)
        memory.indexed()
        extracted: list[tuple[str, str, str]] = []
        entities: list[tuple[str, str, str, tuple[str, ...]]] = []
        members = sorted({m.speaker for m in case.messages if m.role == "user"})
        scopes = [{"space": s} for s in spaces if s not in private] + [{"person": p} for p in members] + [{}]
        for scope in scopes:
            for item in memory.iter_memories(agent=case.agent, **scope):
                if item.kind.value != "chunk":
                    extracted.append((item.scope.tag, item.kind.value, item.text))
            for entity in memory.iter_entities(agent=case.agent, **scope):
                entities.append((entity.scope.tag, entity.type.value, entity.name, tuple(sorted(entity.aliases))))
        recalled: dict[str, list[tuple[str, str]]] = {}
        contexts: dict[str, str] = {}
        for key, probe, space in asked:
            where = {"person": probe.person} if space in private else {"person": probe.person, "space": space}
            found = memory.recall(compose_query(probe), agent=case.agent, limit=10, now=probe.time, **where)
            recalled[key] = [(hit.kind.value, hit.text) for hit in found.hits]
            context = memory.context(agent=case.agent, message=probe.query, now=probe.time, **where)
            contexts[key] = context.text
    return Outcome(sorted(extracted), sorted(entities), recalled, contexts)


def _asked(case: Case) -> list[tuple[str, Probe, str]]:
    private = _private(case)
    groups = [s for s in dict.fromkeys(m.space for m in case.messages) if s not in private]
    out: list[tuple[str, Probe, str]] = []
    for probe in case.probes:
        spaces = [probe.space] if probe.space in private or probe.space in groups else groups
        own = [s for s, person in private.items() if person == probe.person and s not in spaces]
        out.extend((f"{probe.id}@{space}", probe, space) for space in [*spaces, *own])
    return out


def assert_alike(case: Case, chunkings: dict[str, Chunking]) -> None:
    asked = _asked(case)
    with tempfile.TemporaryDirectory(prefix="huiyi-batching-") as tmp:
        outcomes = {name: ingest(Path(tmp) / name, case, chunking, asked) for name, chunking in chunkings.items()}
    first, *others = chunkings
    for other in others:
        assert outcomes[other].extracted == outcomes[first].extracted, f"extraction: {other} against {first}"
        assert outcomes[other].entities == outcomes[first].entities, f"entities: {other} against {first}"
        for key, _, _ in asked:
            assert outcomes[other].recalled[key] == outcomes[first].recalled[key], f"recall {key}: {other}"
            assert outcomes[other].contexts[key] == outcomes[first].contexts[key], f"context {key}: {other}"


# conversations --------------------------------------------------------------------------------------


def _days(case: Case, count: int) -> Case:
    """The case cut to its first ``count`` days (its probes kept: they are only questions here)."""
    days = sorted({m.time.date() for m in case.messages})[:count]
    return case.model_copy(update={"messages": [m for m in case.messages if m.time.date() in days], "memories": []})


def interleaved(case: Case) -> Case:
    """A group day as two groups talking side by side (turns of seven lines each, in time order), and
    a private chat with the agent of each member for every ninth of their lines."""
    messages: list[ProbeMessage] = []
    for index, message in enumerate(case.messages):
        if message.role == "user" and index % 9 == 4:
            space = f"dm_{message.speaker}"
        else:
            space = "group_a" if index // 7 % 2 == 0 else "group_b"
        messages.append(message.model_copy(update={"space": space}))
    return case.model_copy(update={"messages": messages})


FOUR = {"whole": whole, "day": by_day, "message": by_message, "random": at_random(7)}


def _cut(case: Case, messages: int, probes: int) -> Case:
    """The case's first messages and probes (a fast variant of a whole set)."""
    return case.model_copy(update={"messages": case.messages[:messages], "probes": case.probes[:probes]})


def test_a_companion_week_recalls_alike_however_batched() -> None:
    assert_alike(_cut(_days(_case("probes_companion_month"), 4), 200, 15), FOUR)


def test_a_minute_s_lines_sent_newest_first_are_stored_as_said(tmp_path: Path) -> None:
    """Lines of one minute (a chat API's precision), paged newest first, kept the caller's order at their tie:
    each reply before its question (helper's review)."""
    minute = datetime(2024, 5, 1, 20, 15)
    said = [("q1", "user", minute), ("r1", "assistant", minute), ("q2", "user", minute + timedelta(minutes=1))]
    said.append(("r2", "assistant", minute + timedelta(minutes=1)))
    rows = [{"id": i, "role": role, "text": f"第{i}句", "time": when} for i, role, when in said]
    with Memory(tmp_path / "s", config=CONFIG, embedder=HashEmbedder(64)) as memory:
        stored = memory.add(rows[::-1], agent="祈煜", person="木木")
        assert [m.id for m in stored] == ["q1", "r1", "q2", "r2"]
        mixed = [{**row, "id": f"b{row['id']}"} for row in (rows[1], rows[0], rows[3], rows[2])]
        # not newest first throughout: at a tie, the caller's order
        assert [m.id for m in memory.add(mixed, agent="祈煜", person="阿哲")] == ["br1", "bq1", "br2", "bq2"]


def test_a_day_sent_newest_first_recalls_as_sent_in_order() -> None:
    # stored in the order given, a reply was folded and extracted before what it answered (helper)
    assert_alike(
        _cut(_days(_case("probes_companion_month"), 2), 120, 8),
        {"message": by_message, "newest first": by_day_newest_first},
    )


def test_interleaved_groups_recall_alike_per_message_or_per_chat() -> None:
    # the morning 柯凯 joins and is called 老K in both groups
    assert_alike(_cut(interleaved(_case("probes_group_day")), 170, 10), {"message": by_message, "chat": by_chat})


@pytest.mark.slow
def test_the_companion_month_recalls_alike_however_batched() -> None:
    assert_alike(_case("probes_companion_month"), FOUR)


@pytest.mark.slow
def test_the_group_day_recalls_alike_however_batched() -> None:
    assert_alike(_case("probes_group_day"), FOUR)


@pytest.mark.slow
def test_the_interleaved_group_day_recalls_alike_per_message_or_per_chat() -> None:
    assert_alike(interleaved(_case("probes_group_day")), {"message": by_message, "chat": by_chat})


# summaries wait for the extraction of their days ---------------------------------------------------


def _week_summaries(directory: Path, maintained_early: bool) -> list[str]:
    case = _case("probes_companion_month")
    rows = [
        {"id": m.id, "text": m.text, "role": m.role, "speaker": m.speaker, "time": m.time}
        for m in case.messages
        if m.time.date() >= date(2024, 4, 5)
    ]
    now = datetime(2024, 4, 14, 9, 0)
    # the folds wait until flush runs them; no day of the week is the last the scheduler looks at
    config = Config(worker={"enabled": False}, summary={"lookback_days": 14})
    with Memory(directory, config=config, embedder=HashEmbedder(64), clock=lambda: now) as memory:
        memory.add(rows, agent=case.agent, person="木木")
        if maintained_early:  # as the worker does once adds pause, its extraction not done yet
            memory.maintain(catch_up=False)
        memory.flush(agent=case.agent, person="木木")
        memory.maintain(catch_up=False)
        return sorted(i.text for i in memory.iter_memories(agent=case.agent, person="木木", kinds=["summary"]))


def test_a_day_is_summarised_once_the_folds_of_its_messages_are_extracted(tmp_path: Path) -> None:
    """A maintenance run while the day's folds still wait for extraction read the day by rules alone,
    and the summary stayed: added in one call the folds were extracted first, message by message the
    worker's maintenance came between (the topics of 2024-04-07, 04-10 and 04-13 differed)."""
    early = _week_summaries(tmp_path / "early", maintained_early=True)
    late = _week_summaries(tmp_path / "late", maintained_early=False)
    assert early == late
    assert any(text.startswith("2024-04-10") for text in late)
