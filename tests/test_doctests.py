"""The examples in docstrings run as tests, so they stay true."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = [
    "huiyi.faces.cli.printing",
    "huiyi.faces.proxy_stream",
    "huiyi.faces.mcp_server",
    "huiyi.flows.extract.answer",
    "huiyi.flows.extract.closes",
    "huiyi.text.holidays",
    "huiyi.config",
    "huiyi.memory",
    "huiyi.config.recall",
    "huiyi.faces.tool_schemas",
    "huiyi.providers.json_repair",
    "huiyi.flows.consolidate.entities",
    "huiyi.flows.chatter",
    "huiyi.flows.message_in",
    "huiyi.flows.summarize.words",
    "huiyi.flows.substance",
    "huiyi.flows.extract.rules.aliases",
    "huiyi.recall.fuse",
    "huiyi.recall.graph",
    "huiyi.recall.recipes",
    "huiyi.recall.rerank",
    "huiyi.evaluation.runner",
    "huiyi.recall.routes",
    "huiyi.recall.names",
    "huiyi.recall.polarity",
    "huiyi.recall.feelings",
    "huiyi.recall.who",
    "huiyi.recall.latest",
    "huiyi.recall.slots",
    "huiyi.recall.speakers",
    "huiyi.flows.extract.rules.roster",
    "huiyi.recall.validity",
    "huiyi.recall.timerange",
    "huiyi.text.frames",
    "huiyi.text.kin",
    "huiyi.text.lookalike",
    "huiyi.text.nicknames",
    "huiyi.text.tokens",
    "huiyi.text.times",
    "huiyi.text.times_zh",
    "huiyi.store.vectors",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0
    assert result.failed == 0
