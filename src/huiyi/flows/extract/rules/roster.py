"""Who is in a fold and by which names: the roster the rules resolve speakers and mentions with."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from huiyi.flows.extract import Fold
from huiyi.model import EntityType, Person
from huiyi.patterns import lazy
from huiyi.text.nicknames import nickname_forms
from huiyi.text.tokens import has_cjk

_ID_LIKE = lazy(r"[\w.-]*\d[\w.-]*|[\w-]*_[\w-]*")


def name_like(value: str) -> bool:
    """``苏霓``, ``Alice`` — not ``u42`` or ``qq_10086``."""
    return bool(value) and (has_cjk(value) or not _ID_LIKE.fullmatch(value))


def record_names(person: str, known: Person | None) -> list[str]:
    """A person's names in the order :func:`filed_as` reads them: their id, their record's aliases, then its
    name (a rename that keeps the old 群名片 as an alias keeps the name their facts are filed under)."""
    return [person, *known.aliases, known.name] if known else [person]


def filed_as(person: str, names: Sequence[str]) -> str:
    """The one name a person goes by in what is made of their lines (a fold's facts and events, the turns
    the prompt shows): the first of ``names`` (:func:`record_names`) that reads as a name, else the id.

    >>> filed_as("10001", ["10001", "小林"]), filed_as("阿杰", ["阿杰", "小杰"]), filed_as("u42", ["u42", ""])
    ('小林', '阿杰', 'u42')
    """
    return next((name.strip() for name in names if name_like(name.strip())), person)


@dataclass
class Roster:
    """Who is in a fold and by which names: the agent and the people of ``fold.aliases``.

    Each person has one display name (their id if it reads as a name, else their first alias that
    does); every id, name and alias resolves to it.
    """

    agent: str
    display: dict[str, str] = field(default_factory=dict)  # speaker id -> display name
    names: dict[str, list[str]] = field(default_factory=dict)  # display name -> every name, display first
    _lookup: dict[str, str] = field(default_factory=dict)  # any name (case-folded) -> display name
    _exact: dict[str, str] = field(default_factory=dict)  # any name as written -> display name
    _shared: set[str] = field(default_factory=set)  # case-folded names two people's names give (Bob, bob)
    _nicknames: dict[str, str] | None = None  # a nickname only one person's names give -> display name
    spoke: set[str] = field(default_factory=set)  # display names of who spoke in the fold (or its person)
    # those who spoke in the group before but are no entity of it (case-folded -> id): kept out of the
    # roster the model reads (a big group's every member), but nobody's alias
    unnamed: dict[str, str] = field(default_factory=dict)

    @classmethod
    def of(cls, fold: Fold) -> Roster:
        roster = cls(agent=fold.agent)
        roster._add(fold.agent, [fold.agent, *fold.aliases.get(fold.agent, [])])
        people = [p for p in fold.aliases if p != fold.agent]
        people += [m.speaker for m in fold.messages if m.speaker not in fold.aliases and m.speaker != fold.agent]
        if fold.person and fold.person not in people and fold.person != fold.agent:
            people.append(fold.person)
        for person in dict.fromkeys(people):
            roster._add(person, fold.aliases.get(person, []))
        for speaker in (*(m.speaker for m in fold.messages), fold.person, *sorted(fold.spoke)):
            shown = (roster.display.get(speaker) or roster.resolve(speaker)) if speaker else None
            if shown is not None:
                roster.spoke.add(shown)
            elif speaker:
                roster.unnamed[speaker.casefold()] = speaker
        return roster

    def _add(self, person: str, aliases: Sequence[str]) -> None:
        names = [n.strip() for n in [person, *aliases] if n and n.strip()]
        names = list(dict.fromkeys(names))
        shown = filed_as(person, names)
        ordered = [shown, *(n for n in names if n != shown)]
        self.display[person] = shown
        self.names[shown] = ordered
        for name in ordered:
            self._exact.setdefault(name, shown)
            if self._lookup.setdefault(name.casefold(), shown) != shown:
                self._shared.add(name.casefold())

    @property
    def agent_name(self) -> str:
        return self.display[self.agent]

    def name_of(self, speaker: str) -> str:
        return self.display.get(speaker, speaker)

    def resolve(self, name: str) -> str | None:
        """The display name ``name`` refers to, or ``None`` for someone not in the fold. A name as written
        first: members ``Bob`` and ``bob`` are two people, so ``bob`` is never read as ``Bob`` (nor ``BOB``
        as either)."""
        name = name.strip()
        if (shown := self._exact.get(name)) is not None:
            return shown
        folded = name.casefold()
        return None if folded in self._shared else self._lookup.get(folded)

    def nicknamed(self, word: str) -> str | None:
        """The person ``word`` calls by a common nickname of their name (舟舟 → 王一舟, 顾哥 → 顾北辰), when
        only one person's names give it and it is nobody's name; ``None`` otherwise. Groups call each
        other so all day, often before any statement teaches the alias."""
        if self._nicknames is None:
            owners: dict[str, set[str]] = {}
            for shown, names in self.names.items():
                for name in names:
                    for form in nickname_forms(name):
                        owners.setdefault(form, set()).add(shown)
            self._nicknames = {
                form: next(iter(found))
                for form, found in owners.items()
                if len(found) == 1 and form.casefold() not in self._lookup
            }
        return self._nicknames.get(word.strip())

    def someone_else(self, alias: str, person: str) -> bool:
        """Whether ``alias`` is the name of another member or the agent: 叫我苏霓 from 小黑 would make him
        her. A silent member's entity sharing a character with ``person`` may be a stray nickname of theirs
        (舟舟, named before 王一舟 said 叫我舟舟), so only those who spoke, or share nothing, are kept apart.
        Whoever spoke in the group ever counts, named in it or not (``Fold.spoke``)."""
        owner = self.resolve(alias)
        if owner is None:
            return self.unnamed.get(alias.strip().casefold(), person) != person
        if owner == person:
            return False
        return owner in self.spoke or owner == self.agent_name or not set(alias) & set(person)

    def all_names(self) -> list[str]:
        return [name for names in self.names.values() for name in names]

    def entity_type(self, display: str) -> EntityType | None:
        if display == self.agent_name:
            return EntityType.SUBJECT
        return EntityType.OBJECT if display in self.names else None

    def aliases_of(self, display: str) -> list[str]:
        """Other names worth matching: every name but the display one and id-like strings."""
        return [n for n in self.names.get(display, [])[1:] if name_like(n)]

    def other_party(self, speaker: str, private: bool) -> str | None:
        """Who 你 / you means: in a private chat the other side, in a group nobody can tell."""
        if not private:
            return None
        shown = self.name_of(speaker)
        people = [n for n in self.names if n != self.agent_name]
        if shown == self.agent_name:
            return people[0] if len(people) == 1 else None
        return self.agent_name
