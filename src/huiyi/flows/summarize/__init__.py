"""Summaries, diary and profiles: one job per module, run for one scope and day by
:mod:`~huiyi.flows.summarize.run`.

- ``run``: the orchestrator: which summaries a day gets, and writing them once.
- ``material``: a day of one scope as the summaries see it.
- ``rules``: summaries without an LLM, extractive.
- ``profiles``: profiles of group members, per group and global.
- ``words``: the words of the extractive summaries, zh and en.
- ``llm``: summaries written by an LLM, checked before anything is kept.

The settings live in :mod:`huiyi.config.summarize`.
"""
