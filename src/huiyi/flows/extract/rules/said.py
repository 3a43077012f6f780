"""One message as the rules read it: speaker, language, time phrases, words, facts and entities."""

from __future__ import annotations

from dataclasses import dataclass, field

from huiyi.flows.extract import CloseDraft, EntityDraft, FactDraft
from huiyi.model import Message
from huiyi.text.relayed import Relay
from huiyi.text.times import TimeSpan


@dataclass
class Said:
    """One message as the rules read it."""

    message: Message
    speaker: str  # display name
    lang: str
    spans: list[TimeSpan]
    skip: list[tuple[int, int]]  # character ranges of time phrases
    words: list[str]  # content words, for topic shifts
    filler: bool
    facts: list[FactDraft] = field(default_factory=list)
    entities: list[EntityDraft] = field(default_factory=list)
    closes: list[CloseDraft] = field(default_factory=list)  # the speaker's open facts it ends (我戒烟了)
    relay: Relay | None = None  # what the message forwards or quotes: someone else's words

    @property
    def own(self) -> str:
        """The speaker's own words, the only ones facts, aliases, plans, quits and losses are read from."""
        return self.relay.own if self.relay else self.message.text
