"""Summaries with an LLM: one structured-output call per summary, checked before anything is kept.

Prompts are data files, ``prompts/summary_<name>_<zh|en>.md`` (``SummaryConfig.prompt_dir`` may hold a
user's own), in the extraction prompts' format: a leading HTML comment for people, the system part, a
``<!-- user -->`` line, the user part with ``{{placeholders}}``. Names: ``daily``, ``global``,
``daily_personality``, ``global_personality``, ``diary``, ``profile`` (all members of a group in one
call) and ``profile_global`` (one call per member, shown only that member's own messages and
self-statements: the privacy rule of :meth:`DayMaterial.is_self_statement` holds for the LLM too).

Every answer is checked: a non-empty text, in the conversation's language (Chinese text for a Chinese
day; mostly English words for an English one), a diary in the first person, a profile for every member.
Anything else raises :class:`SummaryError` and, since the orchestrator writes only after every call
succeeded, nothing of that day is written.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from huiyi.config.summarize import SummaryConfig
from huiyi.errors import ProviderError
from huiyi.flows.summarize.material import DayMaterial, Said
from huiyi.prompts import Prompt, load_prompt_file
from huiyi.providers.llm import LLM
from huiyi.text.language import text_language
from huiyi.text.relayed import for_prompt
from huiyi.text.tokens import has_cjk

__all__ = ["PROFILES_SCHEMA", "PROMPTS", "TEXT_SCHEMA", "SummaryError", "SummaryWriter", "load_summary_prompt"]

PROMPTS = ("daily", "global", "daily_personality", "global_personality", "diary", "profile", "profile_global")
TEXT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "required": ["text"],
    "properties": {"text": {"type": "string"}},
}
PROFILES_SCHEMA: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "required": ["profiles"],
    "properties": {
        "profiles": {
            "type": "array",
            "items": {
                "type": "object",
                "additionalProperties": False,
                "required": ["name", "text"],
                "properties": {"name": {"type": "string"}, "text": {"type": "string"}},
            },
        }
    },
}
MESSAGE_CHARS = 500  # one message is cut to this in a prompt (the log keeps it whole)


class SummaryError(ProviderError):
    """The LLM answered, but the answer cannot become a summary; nothing of the day was written."""

    code = "summary_unusable"


def load_summary_prompt(name: str, language: str, prompt_dir: str | Path | None = None) -> Prompt:
    """``summary_<name>_<language>.md`` from ``prompt_dir`` when it holds one, else the packaged file."""
    return load_prompt_file(f"summary_{name}_{language}.md", prompt_dir, "summary")


_WORDS = {
    "zh": {
        "private": "这是{agent}和{person}的私聊。",
        "group": "这是群聊「{space}」，{agent}是群里的一员。",
        "colon": "：",
        "none": "（无）",
        "by": "（{by}说）",
        "sep": "、",
    },
    "en": {
        "private": "This is a private chat between {agent} and {person}.",
        "group": "This is the group chat {space}; {agent} is one of its members.",
        "colon": ": ",
        "none": "(none)",
        "by": " (said by {by})",
        "sep": ", ",
    },
}
_FIRST_PERSON = {"zh": re.compile(r"我"), "en": re.compile(r"\b(?:I|me|my|myself)\b")}


class SummaryWriter:
    """Words the extractive drafts anew with an LLM; one method per prompt."""

    def __init__(self, llm: LLM, cfg: SummaryConfig, persona: str = "") -> None:
        self.llm = llm
        self.cfg = cfg
        self.persona = persona
        self._prompts: dict[tuple[str, str], Prompt] = {}

    def prompt(self, name: str, language: str) -> Prompt:
        if (name, language) not in self._prompts:
            self._prompts[name, language] = load_summary_prompt(name, language, self.cfg.prompt_dir or None)
        return self._prompts[name, language]

    async def _text(self, name: str, lang: str, values: dict[str, str], *, first_person: bool = False) -> str:
        messages = self.prompt(name, lang).render(values)
        answer = await self.llm.complete_json(messages, TEXT_SCHEMA, f"summary_{name}")
        return self._accept(answer.get("text"), lang, name, first_person=first_person)

    def _accept(self, value: Any, lang: str, name: str, *, first_person: bool = False) -> str:
        text = value.strip() if isinstance(value, str) else ""
        if not text:
            raise SummaryError(f"the {name} summary came back empty")
        if lang == "zh" and not has_cjk(text):
            raise SummaryError(f"the {name} summary is not in Chinese, the language of the conversation")
        if lang == "en" and text_language(text, "en") != "en":  # Chinese names in an English text are fine
            raise SummaryError(f"the {name} summary is not in English, the language of the conversation")
        if first_person and not _FIRST_PERSON[lang].search(text):
            raise SummaryError(f"the {name} is not written in the first person")
        if len(text) > self.cfg.max_chars:
            text = text[: self.cfg.max_chars - 1].rstrip() + "…"
        return text

    # --- rendering the material

    def _base(self, m: DayMaterial) -> dict[str, str]:
        w = _WORDS[m.language]
        if m.person is not None:
            chat = w["private"].format(agent=m.name(m.agent), person=m.name(m.person))
        else:
            chat = w["group"].format(agent=m.name(m.agent), space=m.scope.key)
        return {
            "agent": m.name(m.agent),
            "day": m.period,
            "chat": chat,
            "persona": self.persona.strip() or w["none"],
            "language": m.language,
        }

    def _messages(self, m: DayMaterial, speaker: str | None = None, *, own_only: bool = False) -> str:
        """The day's messages (or one speaker's), forwarded and quoted words marked, or left out with
        ``own_only``: a member's global profile takes only what they said themselves."""
        colon = _WORDS[m.language]["colon"]
        shown = [x for x in m.messages if speaker is None or x.speaker == speaker][-self.cfg.prompt_messages :]
        lines = []
        for x in shown:
            text = for_prompt(x.text, m.language, own_only=own_only)
            if not text:
                continue
            text = text if len(text) <= MESSAGE_CHARS else text[: MESSAGE_CHARS - 1] + "…"
            lines.append(f"[{x.time:%H:%M}] {m.name(x.speaker)}{colon}{text}")
        return "\n".join(lines) or _WORDS[m.language]["none"]

    def _facts(self, m: DayMaterial, facts: list[Said]) -> str:
        speakers = {x.id: m.name(x.speaker) for x in m.messages}
        words = _WORDS[m.language]
        lines = []
        for fact in sorted(facts, key=lambda f: (f.said_at, f.text)):
            by = list(dict.fromkeys(speakers[s] for s in fact.sources if s in speakers))
            lines.append(f"- {fact.text}" + (words["by"].format(by=words["sep"].join(by)) if by else ""))
        return "\n".join(lines) or _WORDS[m.language]["none"]

    def _events(self, m: DayMaterial) -> str:
        ordered = sorted(m.events, key=lambda h: (h.said_at, h.text))
        lines = [f"- [{h.said_at:%H:%M}] {h.text}" for h in ordered]
        return "\n".join(lines) or _WORDS[m.language]["none"]

    # --- one method per summary

    async def daily(self, m: DayMaterial) -> str:
        values = {**self._base(m), "messages": self._messages(m), "events": self._events(m)}
        values["facts"] = self._facts(m, m.facts)
        return await self._text("daily", m.language, values)

    async def global_summary(self, lang: str, agent: str, previous: str, dailies: list[tuple[str, str]]) -> str:
        values = {
            "agent": agent,
            "language": lang,
            "previous": previous or _WORDS[lang]["none"],
            "dailies": "\n".join(f"- {period}{_WORDS[lang]['colon']}{text}" for period, text in dailies),
        }
        return await self._text("global", lang, values)

    async def daily_personality(self, m: DayMaterial) -> str:
        person = m.person or ""
        values = {**self._base(m), "person": m.name(person), "messages": self._messages(m)}
        values["facts"] = self._facts(m, m.about(person))
        return await self._text("daily_personality", m.language, values)

    async def global_personality(
        self, lang: str, agent: str, person: str, previous: str, portraits: list[tuple[str, str]]
    ) -> str:
        values = {
            "agent": agent,
            "person": person,
            "language": lang,
            "previous": previous or _WORDS[lang]["none"],
            "portraits": "\n".join(f"- {period}{_WORDS[lang]['colon']}{text}" for period, text in portraits),
        }
        return await self._text("global_personality", lang, values)

    async def diary(self, m: DayMaterial) -> str:
        values = {**self._base(m), "messages": self._messages(m), "events": self._events(m)}
        return await self._text("diary", m.language, values, first_person=True)

    async def group_profiles(self, m: DayMaterial, members: list[str], previous: dict[str, str]) -> dict[str, str]:
        """member id -> profile text, for every member in ``members``; an answer missing one fails."""
        lang = m.language
        colon = _WORDS[lang]["colon"]
        roster = "\n".join(f"- {m.name(p)}" for p in members)
        before = "\n".join(f"- {m.name(p)}{colon}{previous[p]}" for p in members if previous.get(p))
        facts: list[Said] = []
        for fact in (f for p in members for f in m.about(p)):
            if all(fact is not kept for kept in facts):
                facts.append(fact)
        values = {
            **self._base(m),
            "members": roster,
            "previous": before or _WORDS[lang]["none"],
            "messages": self._messages(m),
            "facts": self._facts(m, facts),
        }
        answer = await self.llm.complete_json(self.prompt("profile", lang).render(values), PROFILES_SCHEMA, "profiles")
        lookup: dict[str, str] = {}
        for p in members:
            for name in {p, m.name(p), *m.names.get(p, [])}:
                lookup.setdefault(name.casefold().strip(), p)
        out: dict[str, str] = {}
        for item in answer.get("profiles") or []:
            if not isinstance(item, dict):
                continue
            member = lookup.get(str(item.get("name", "")).casefold().strip())
            if member is not None and member not in out:
                out[member] = self._accept(item.get("text"), lang, "profile")
        missing = [m.name(p) for p in members if p not in out]
        if missing:
            raise SummaryError(f"the profiles answer has no profile for {', '.join(missing)}")
        return out

    async def global_profile(self, m: DayMaterial, member: str, previous: str) -> str:
        """Shown only the member's own messages and self-statements, never what others said."""
        mine = [f for f in m.about(member) if m.is_self_statement(f, member)]
        values = {
            "agent": m.name(m.agent),
            "person": m.name(member),
            "day": m.period,
            "language": m.language,
            "previous": previous or _WORDS[m.language]["none"],
            "messages": self._messages(m, speaker=member, own_only=True),
            "facts": self._facts(m, mine),
        }
        return await self._text("profile_global", m.language, values)
