"""Asking an LLM during consolidation: prompt files, one structured call, failures kept in the report.

Prompts are data, like extraction's: ``prompts/<name>_zh.md`` and ``<name>_en.md``, a system part and
a user part split by a line holding only ``<!-- user -->``; ``{{placeholders}}`` are filled in. A
folder given as ``ConsolidateConfig.prompt_dir`` overrides the packaged files one by one. The
language is the memories' own: Chinese text gets the Chinese prompt.

An LLM that fails (unreachable, or answers that do not fit) never stops a consolidation: the error is
written to the report and the step keeps what its rules decided.
"""

from __future__ import annotations

import logging
import re
from importlib import resources
from pathlib import Path
from typing import Any

from huiyi.errors import ConfigError
from huiyi.flows.consolidate_state import State
from huiyi.flows.extract_llm import Prompt
from huiyi.providers.llm import LLM
from huiyi.text.tokens import has_cjk

__all__ = ["ask", "load_prompt"]

log = logging.getLogger(__name__)

_LEADING_COMMENT = re.compile(r"\A\s*<!--.*?-->\s*", re.DOTALL)
_USER_MARKER = re.compile(r"^[ \t]*<!--\s*user\s*-->[ \t]*$", re.MULTILINE)


def load_prompt(name: str, language: str, prompt_dir: str | Path | None = None) -> Prompt:
    """``<name>_<language>.md`` from ``prompt_dir`` when it holds one, else the packaged file."""
    file = f"{name}_{language}.md"
    text, source = None, f"huiyi/prompts/{file}"
    if prompt_dir:
        path = Path(prompt_dir) / file
        if path.is_file():
            text, source = path.read_text(encoding="utf-8"), str(path)
    if text is None:
        packaged = resources.files("huiyi").joinpath("prompts", file)
        if not packaged.is_file():
            raise ConfigError(f"no consolidation prompt {file!r}")
        text = packaged.read_text(encoding="utf-8")
    parts = _USER_MARKER.split(_LEADING_COMMENT.sub("", text, count=1), maxsplit=1)
    if len(parts) != 2 or not parts[0].strip() or not parts[1].strip():
        raise ConfigError(f"the prompt {source} needs a system part, a line <!-- user -->, and a user part")
    return Prompt(system=parts[0], user=parts[1], source=source)


async def ask(
    state: State, llm: LLM, name: str, values: dict[str, str], schema: dict[str, Any]
) -> dict[str, Any] | None:
    """One structured call with the ``name`` prompt; None (and an error in the report) when it fails."""
    language = "zh" if any(has_cjk(v) for v in values.values()) else "en"
    try:
        prompt = load_prompt(name, language, state.config.prompt_dir or None)
        state.report.llm_calls += 1
        return await llm.complete_json(prompt.render(values), schema, f"consolidate_{name}")
    except Exception as exc:  # the LLM is optional: keep the rules' answer
        log.warning("consolidate %s: the %s call failed: %s", state.scope.tag, name, exc)
        state.report.errors.append(f"{name}: {type(exc).__name__}: {exc}")
        return None
