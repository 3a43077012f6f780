"""A person's lines in their private chat, or a group's lines, as one fold, as the rule tests read them (one a
minute)."""

from __future__ import annotations

from datetime import datetime, timedelta

from huiyi.flows.extract import Extraction, Fold
from huiyi.flows.extract.rules.extractor import RuleExtractor
from huiyi.model import Message, Scope


def private_fold(scope: Scope, texts: tuple[str, ...], start: datetime, language: str = "zh") -> Fold:
    """``texts`` said by the scope's person to its agent, from ``start``."""
    messages = [
        Message(
            id=f"m{i}",
            agent=scope.agent,
            space=scope.space_id,
            scope=scope,
            speaker=scope.key,
            role="user",
            text=text,
            time=start + timedelta(minutes=i),
            seq=i,
        )
        for i, text in enumerate(texts)
    ]
    return Fold(scope.agent, scope.space_id, scope, messages, person=scope.key, language=language)


def extract_private(scope: Scope, texts: tuple[str, ...], start: datetime, language: str = "zh") -> Extraction:
    """What the rules read in :func:`private_fold`."""
    return RuleExtractor().extract_sync(private_fold(scope, texts, start, language))


def extract_group(scope: Scope, lines: list[tuple[str, str]], start: datetime) -> Extraction:
    """What the rules read in a group's ``lines`` (speaker, text), from ``start``."""
    messages = [
        Message(
            id=f"m{i}",
            agent=scope.agent,
            space=scope.space_id,
            scope=scope,
            speaker=who,
            role="user",
            text=text,
            time=start + timedelta(minutes=i),
            seq=i,
        )
        for i, (who, text) in enumerate(lines)
    ]
    return RuleExtractor().extract_sync(Fold(scope.agent, scope.space_id, scope, messages))
