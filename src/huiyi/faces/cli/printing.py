"""Where ``huiyi`` commands print (stdout and stderr) and the printers more than one command uses."""

from __future__ import annotations

from datetime import datetime

from rich.console import Console

from huiyi.faces.terminal import shown
from huiyi.model import RecallResult

__all__ = ["err", "out", "print_recall", "short", "shown", "when_text"]

out = Console(soft_wrap=True)
err = Console(stderr=True)


def print_recall(result: RecallResult, title: str = "") -> None:
    """One line a hit: rank, fused score, each route's raw score, time, text."""
    out.print(f"[bold]{shown(title or 'recall: ' + result.query)}[/bold]")
    for rank, hit in enumerate(result.hits, start=1):
        routes = " · ".join(f"{name} {score:.3f}" for name, score in hit.route_scores.items())
        when = when_text(hit.time)
        out.print(f"  {rank}. {hit.score:.3f} [dim]({routes})[/dim] {when} {shown(hit.text)}", highlight=False)
    timings = ", ".join(f"{name} {ms:.1f}" for name, ms in result.timings_ms.items())
    out.print(f"  [dim]words {shown(result.info.get('words'))} · ms: {timings}[/dim]", highlight=False)


def when_text(when: datetime | None) -> str:
    """A hit's time for a terminal; a date with no time of day (a plan's 下周三) shows as the date alone,
    as the prompt renders it, never as 00:00.

    >>> when_text(datetime(2024, 10, 2)), when_text(datetime(2024, 9, 26, 18, 20)), when_text(None)
    ('2024-10-02', '2024-09-26 18:20', '—')
    """
    if when is None:
        return "—"
    return (
        when.strftime("%Y-%m-%d")
        if (when.hour, when.minute, when.second) == (0, 0, 0)
        else when.strftime("%Y-%m-%d %H:%M")
    )


def short(text: str, width: int = 120) -> str:
    """``text`` on one line, cut to ``width`` characters with an ellipsis."""
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"
