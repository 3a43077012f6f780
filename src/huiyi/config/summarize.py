"""The ``summary`` section of the configuration: daily and global summaries, portraits, profiles, diary.

>>> SummaryConfig().daily_items
5
"""

# no `from __future__ import annotations`: the models' field types stay objects, which pydantic would otherwise
# compile and evaluate from strings, one by one, at import (issue 15)

from typing import Literal

from pydantic import Field

from huiyi.config._section import Count, Positive, Section


class SummaryConfig(Section):
    """Flow 4, summarize: each part on by default, each working without an LLM."""

    enabled: bool = True  # seed 002 §3.16: 每天固定时间运行一次总结任务; seed 003: daily → global
    language: Literal["auto", "zh", "en"] = "auto"  # auto: the language of the day's messages
    # seed 003 (summarize_content_prompt): 提取对话的主题和关键信息，如果有多个关键事件，可以分点总结
    daily_items: Count = 5  # highlights (events, else messages) in a daily summary
    daily_facts: Count = 3  # facts said that day, beyond those the highlights already tell
    item_chars: Positive = 100  # one highlight or fact is cut to this length in a summary
    keywords: Count = 5  # TF-IDF topic words per summary
    # seed 003 (summarize_overall_prompt): 高度概括以下的事件，保留其中核心的关键信息
    global_days: Count = 30  # the latest dailies a global summary (or global portrait) is built from
    global_items: Count = 6  # highlights kept in the extractive global summary
    personality: bool = True  # seed 003: daily personality → global personality (private chats)
    traits: Count = 6  # facts about the person kept in a portrait
    profiles: bool = True  # seed 002 §3.11: per-member profiles from group messages, per group and global
    profile_items: Count = 8  # statements kept per part of a profile
    profile_days: Count = 30  # days of contributions a rolling profile remembers
    diary: bool = True  # seed 002 §3.16: 以第一人称生成一篇日记
    # the scheduler (summarize_due)
    settle_minutes: Count = 30  # a day is due this long after midnight (late folds land first)
    # the background scheduler summarises ended days this recent (bounded work per run; 0: every day);
    # an explicit maintain() catches up on every day that has messages and no summary, however old
    lookback_days: Count = 7
    lease_seconds: float = Field(default=3600.0, gt=0)  # a day a failed save handed over, taken again after this
    event_slack_days: Count = 31  # how far an event's own time may lie before the day it was told
    # the LLM path
    max_chars: Positive = 800  # an LLM answer longer than this is cut
    prompt_messages: Count = 300  # the latest messages of a day shown to the LLM
    prompt_dir: str = ""  # a folder whose summary_*_zh.md / summary_*_en.md override the packaged prompts
    max_sources: Count = 500  # provenance ids kept per summary (the latest)
