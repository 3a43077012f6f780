"""Which format a file to import is in (sniffed from its content, or named by ``--format``), read into a plan.

The formats ``huiyi import`` reads:

=============  =====================================================================================
jsonl          huiyi's JSON lines: messages, memories and persons (what ``huiyi export`` writes)
probes         the probe format of the evaluation README (its messages and memories)
csv            huiyi's CSV: a header row naming any of agent, person, space, speaker, role, text,
               time, id (text is required); one message a row
qq             QQ's text export of a chat (消息管理器 → 导出 → .txt)
wechat-csv     the CSV of WeChatMsg / 留痕 / MemoTrace (localId, TalkerId, Type, … StrContent, …)
wechat-html    the HTML of the same tools (a chatMessages array in the page)
mem0           mem0's memories: get_all() as JSON ({"results": […]} or a list) or JSON lines
memorybank     MemoryBank's memory.json (users → history by day, summaries, personalities)
=============  =====================================================================================
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Literal
from zoneinfo import ZoneInfo

from huiyi.errors import InvalidInput
from huiyi.formats.chat import Who
from huiyi.formats.csvfile import csv_lines
from huiyi.formats.mem0 import looks_like_mem0, read_mem0
from huiyi.formats.memorybank import looks_like_memorybank, read_memorybank
from huiyi.formats.plan import Plan
from huiyi.formats.qq import looks_like_qq, read_qq
from huiyi.formats.read import file_text, read_lines, read_text
from huiyi.formats.wechat import looks_like_wechat_csv, looks_like_wechat_html, read_wechat_csv, read_wechat_html

__all__ = ["FORMATS", "Format", "read_import", "sniff"]

Format = Literal["auto", "jsonl", "probes", "csv", "qq", "wechat-csv", "wechat-html", "mem0", "memorybank"]
FORMATS: tuple[str, ...] = ("auto", "jsonl", "probes", "csv", "qq", "wechat-csv", "wechat-html", "mem0", "memorybank")


def sniff(text: str, name: str = "") -> str:
    """The format a file's text is in, by its content (and its name's ending, for CSV and HTML); JSON that no
    reader takes (an integer of 5000 digits, arrays 100 000 deep) is read as JSON lines, which names its line."""
    try:
        return _sniff(text, name)
    except (ValueError, RecursionError):
        return "jsonl"


def _sniff(text: str, name: str) -> str:
    stripped = text.lstrip("\ufeff \t\r\n")
    if stripped.startswith("{") or stripped.startswith("["):
        try:
            whole = json.loads(stripped)
        except (ValueError, RecursionError):  # not JSON, or JSON no reader takes (5000 digits, 100 000 deep)
            whole = None
        if isinstance(whole, dict) and "cases" in whole:
            return "probes"
        if looks_like_memorybank(stripped):
            return "memorybank"
    if looks_like_wechat_html(stripped):
        return "wechat-html"
    if looks_like_wechat_csv(stripped):
        return "wechat-csv"
    if looks_like_qq(stripped):
        return "qq"
    if looks_like_mem0(stripped):
        return "mem0"
    first = stripped.split("\n", 1)[0]
    if not first.startswith("{") and "text" in {cell.strip() for cell in first.split(",")}:
        return "csv"
    if name.lower().endswith(".csv"):
        return "csv"
    return "jsonl"


def read_import(
    path: Path,
    *,
    format: str = "auto",
    agent: str | None = None,
    person: str | None = None,
    space: str | None = None,
    cases: list[str] | None = None,
    selves: list[str] | None = None,
    timezone: str = "Asia/Shanghai",
) -> Plan:
    """A file to import as a checked plan, in the format named or sniffed."""
    text = file_text(path)
    return read_import_text(text, path.name, format, agent, person, space, cases or [], selves or [], timezone)


def read_import_text(
    text: str,
    name: str,
    format: str,
    agent: str | None,
    person: str | None,
    space: str | None,
    cases: list[str],
    selves: list[str],
    timezone: str,
) -> Plan:
    chosen = sniff(text, name) if format == "auto" else format
    if chosen not in FORMATS:
        raise InvalidInput(f"unknown format {format!r}; the formats are {', '.join(FORMATS)}")
    if cases and chosen != "probes":
        raise InvalidInput("--case applies to probe files only")
    who = Who(agent=agent, person=person, space=space, selves=frozenset(selves))
    zone = ZoneInfo(timezone)
    plan: Plan
    if chosen in ("jsonl", "probes"):
        plan = read_text(text, name, agent, person, space, cases)
    elif chosen == "csv":
        plan = read_lines(csv_lines(text, name), agent, person, space, name)
    else:
        plan = _chat_export(chosen, text, name, who, zone)
        if not plan.size and not plan.persons and format != "auto" and (sniffed := sniff(text, name)) != chosen:
            # a CSV named as QQ's text finds no chat in it: no "0 messages stored"
            raise InvalidInput(f"{name}: found nothing to import as {chosen}; it reads as {sniffed}")
    plan.notes.insert(0, f"read {name} as {chosen}")
    return plan


def _chat_export(chosen: str, text: str, name: str, who: Who, zone: ZoneInfo) -> Plan:
    """Another app's export read into a plan; a file of the right shape but a broken record (a date 2024-02-30,
    a turn that is a string) is refused as the user's input, not raised as a bug."""
    try:
        if chosen == "qq":
            return read_qq(text, who)
        if chosen == "wechat-csv":
            return read_wechat_csv(text, Path(name).stem, who, zone)
        if chosen == "wechat-html":
            return read_wechat_html(text, Path(name).stem, who, zone)
        if chosen == "mem0":
            return read_mem0(text, who, zone)
        return read_memorybank(text, who)
    except InvalidInput:
        raise
    except (ValueError, TypeError, AttributeError, KeyError, IndexError, OverflowError, RecursionError) as exc:
        raise InvalidInput(f"{name}: not a {chosen} file this huiyi can read ({type(exc).__name__}: {exc})") from exc
