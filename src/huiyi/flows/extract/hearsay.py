"""Whose word a group's fact is: what one member says of another member or of the agent is the teller's
word, not the subject's. It is shown as theirs (阿杰说：小雨是骗子) and closes none of the subject's own."""

from __future__ import annotations

from huiyi.flows.extract import FactDraft, Fold
from huiyi.flows.extract.rules.roster import Roster
from huiyi.model import ScopeKind

__all__ = ["told_by"]


def told_by(fact: FactDraft, fold: Fold, roster: Roster | None = None) -> list[str]:
    """Who told a group a fact about one of its members or the agent when none of its lines is that one's
    own: 阿杰's 小雨是骗子 is his word about her, not her attribute, and the agent's 阿杰是程序员 is its own
    guess. Empty otherwise (a thing, an outsider, a private chat, where the person telling of a friend is
    the usual case)."""
    if fold.scope.kind is not ScopeKind.SPACE:
        return []
    roster = roster or Roster.of(fold)
    subject = roster.resolve(fact.subject)
    if subject is None:
        return []
    sources = set(fact.sources)
    tellers = [roster.name_of(m.speaker) for m in fold.messages if m.id in sources]
    if not tellers or subject in tellers:
        return []
    return list(dict.fromkeys(tellers))
