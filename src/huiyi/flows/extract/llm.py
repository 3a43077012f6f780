"""Extraction with an LLM: one structured-output call per fold, checked before anything is kept.

The prompt is data: ``prompts/extract_zh.md`` and ``prompts/extract_en.md`` (a user may point
``prompt_dir`` at a folder of their own). The conversation is shown with short message ids (``m1``,
``m2``…), each message's absolute time and weekday and its speaker's name, so the model can resolve
昨天晚上八点 against the time it was said and cite its sources; the roster names every person with
their aliases, so facts said in a group chat go to the member who said them.

What comes back is checked and cleaned, not trusted:

* source ids not in the fold are dropped (an event left with none keeps the whole fold as provenance;
  a fact left with none is dropped, since nobody can tell who said it); so is a fact whose sources are
  all bare forwards or quotes (:mod:`huiyi.text.relayed`), which the prompt shows as （转发：…） notes;
* 我 / I / the user as a subject becomes the speaker of the fact's first source message, 你 / you the
  other party of a private chat; aliases and ids become the roster name (霓霓 → 苏霓);
* 他 / 她 / he / she as a subject or object becomes the one member the line or the line before names
  (the fact is dropped when none or several are, or for 他们 / they), in its description too;
* an alias naming another member or the agent is dropped, and in a group so is one of the agent's
  entity that none of its own lines of the fold says (a member's 祈煜就叫阿杰的仆人 names nobody);
* times are read leniently (:func:`~huiyi.text.times.parse_datetime`; a relative phrase the model
  echoed is resolved against its source message's time; an empty one falls back to that time);
* importance and confidence are clamped to 0–1 (a 0–10 or 0–100 scale is rescaled first);
* every text is cut to 2,000 characters (``answer.MAX_TEXT_CHARS``): a runaway answer stays bounded;
* an answer that is not the expected object, holds no usable event, or is written in English for a
  Chinese conversation raises :class:`~huiyi.flows.extract.schema.ExtractionError`, so the job is
  retried instead of storing half an answer.
"""

from __future__ import annotations

from pathlib import Path

from huiyi.errors import ConfigError
from huiyi.flows.extract import Extraction, Fold
from huiyi.flows.extract.answer import parse_extraction
from huiyi.flows.extract.rules import Roster
from huiyi.flows.extract.schema import EXTRACTION_SCHEMA, SCHEMA_NAME, in_order, message_refs
from huiyi.prompts import USER_MARKER, Prompt, read_prompt
from huiyi.providers.llm import LLM
from huiyi.text.language import conversation_language
from huiyi.text.relayed import for_prompt

__all__ = ["LLMExtractor", "load_prompt"]

# ---------------------------------------------------------------------------------------- prompts


def load_prompt(language: str, prompt_dir: str | Path | None = None) -> Prompt:
    """``extract_<language>.md`` from ``prompt_dir`` when it holds one, else the packaged file."""
    text, source = read_prompt(f"extract_{language}.md", prompt_dir, "extraction")
    parts = USER_MARKER.split(text, maxsplit=1)
    if len(parts) == 2:
        system, user = parts
    else:  # one section only: it is the system message; the user message is the conversation
        system, user = text, "{{chat}}\n\n{{participants}}\n\n{{messages}}"
    if not system.strip():
        raise ConfigError(f"the extraction prompt {source} has an empty system part")
    if "{{messages}}" not in user.replace(" ", ""):
        raise ConfigError(f"the extraction prompt {source} never shows the conversation: put {{{{messages}}}} in it")
    return Prompt(system=system, user=user, source=source)


_WEEKDAYS = {"zh": "周一 周二 周三 周四 周五 周六 周日".split(), "en": "Mon Tue Wed Thu Fri Sat Sun".split()}
_WORDS = {
    "zh": {
        "private": "这是{agent}和{person}的私聊。",
        "group": "这是一个群聊（{space}），有多位成员发言；请分清每条信息是哪位成员说的。",
        "agent": "{name}（{agent}本人，agent）",
        "person": "{name}（person）",
        "aka": "{line}，也叫：{aliases}",
        "colon": "：",
        "sep": "、",
    },
    "en": {
        "private": "This is a private chat between {agent} and {person}.",
        "group": "This is a group chat ({space}) with several members; credit each piece of information to "
        "the member who said it.",
        "agent": "{name} ({agent} themself, agent)",
        "person": "{name} (person)",
        "aka": "{line}, also called: {aliases}",
        "colon": ": ",
        "sep": ", ",
    },
}
MAX_MESSAGE_CHARS = 2000  # longer messages are cut in the prompt (the log keeps them whole)


# ---------------------------------------------------------------------------------------- the extractor


class LLMExtractor:
    """The :class:`~huiyi.flows.extract.Extractor` that asks an LLM, once per fold.

    ``language`` (``zh`` or ``en``) picks the prompt when the conversation does not show its own
    language; with ``follow_conversation`` (the default) a conversation that is clearly Chinese or
    clearly English gets the prompt in its language. Either way the memories are written in the
    conversation's language. ``prompt_dir`` holds the user's own ``extract_zh.md`` /
    ``extract_en.md``; a file missing there falls back to the packaged one.
    """

    def __init__(
        self,
        llm: LLM,
        language: str | None = None,
        *,
        prompt_dir: str | Path | None = None,
        follow_conversation: bool = True,
        max_events: int = 10,
        max_facts: int = 40,
        max_entities: int = 40,
    ) -> None:
        if prompt_dir is not None and not Path(prompt_dir).is_dir():
            raise ConfigError(f"prompt_dir {str(prompt_dir)!r} is not a folder")
        self.llm = llm
        self.language = _language(language) if language else None
        self.prompt_dir = prompt_dir
        self.follow_conversation = follow_conversation
        self.max_events = max_events
        self.max_facts = max_facts
        self.max_entities = max_entities
        self._prompts: dict[str, Prompt] = {}

    def prompt_language(self, fold: Fold) -> str:
        detected = conversation_language(fold.messages, default="") if self.follow_conversation else ""
        return detected or self.language or _language(fold.language)

    def prompt(self, language: str) -> Prompt:
        if language not in self._prompts:
            self._prompts[language] = load_prompt(language, self.prompt_dir)
        return self._prompts[language]

    def messages_for(self, fold: Fold) -> list[dict[str, str]]:
        """The chat messages sent for ``fold``: useful to inspect or to log what the model saw."""
        language = self.prompt_language(fold)
        roster = Roster.of(fold)
        return self.prompt(language).render(_render(fold, roster, language))

    async def extract(self, fold: Fold) -> Extraction:
        if not fold.messages:
            return Extraction()
        answer = await self.llm.complete_json(self.messages_for(fold), EXTRACTION_SCHEMA, SCHEMA_NAME)
        return parse_extraction(
            answer,
            fold,
            max_events=self.max_events,
            max_facts=self.max_facts,
            max_entities=self.max_entities,
        )


def _language(value: str) -> str:
    """``zh`` for any Chinese tag (zh, zh-CN, zh_Hant); English, the lingua franca, for the rest."""
    return "zh" if value.strip().lower().startswith("zh") else "en"


def _render(fold: Fold, roster: Roster, language: str) -> dict[str, str]:
    words = _WORDS[language]
    messages = in_order(fold)
    refs = message_refs(messages)
    agent = roster.agent_name
    people = [name for name in roster.names if name != agent]
    private = fold.person is not None
    if private:
        person = roster.name_of(fold.person or "")
        chat = words["private"].format(agent=agent, person=person)
    else:
        chat = words["group"].format(space=fold.space)
    lines = []
    for name in [agent, *people]:
        line = words["agent" if name == agent else "person"].format(name=name, agent=agent)
        aliases = roster.aliases_of(name)
        if aliases:
            line = words["aka"].format(line=line, aliases=words["sep"].join(aliases))
        lines.append(f"- {line}")
    shown: list[str] = []
    for message in messages:
        text = for_prompt(message.text, language)  # forwarded and quoted words marked as such
        if len(text) > MAX_MESSAGE_CHARS:
            text = text[: MAX_MESSAGE_CHARS - 1] + "…"
        when = f"{message.time:%Y-%m-%d %H:%M} {_WEEKDAYS[language][message.time.weekday()]}"
        shown.append(f"[{refs[message.id]}] {when} {roster.name_of(message.speaker)}{words['colon']}{text}")
    return {
        "agent": agent,
        "chat": chat,
        "participants": "\n".join(lines),
        "messages": "\n".join(shown),
        "language": language,
        "space": fold.space,
    }
