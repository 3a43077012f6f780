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
from pathlib import Path
from typing import Any

from huiyi.flows.consolidate.state import State
from huiyi.prompts import Prompt, load_prompt_file
from huiyi.providers.llm import LLM
from huiyi.text.tokens import has_cjk

__all__ = ["ask", "load_prompt"]

log = logging.getLogger(__name__)


def load_prompt(name: str, language: str, prompt_dir: str | Path | None = None) -> Prompt:
    """``<name>_<language>.md`` from ``prompt_dir`` when it holds one, else the packaged file."""
    return load_prompt_file(f"{name}_{language}.md", prompt_dir, "consolidation")


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
