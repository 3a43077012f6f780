"""Where ``huiyi`` commands print (stdout and stderr) and the printers more than one command uses."""

from __future__ import annotations

from rich.console import Console

from huiyi.model import RecallResult

__all__ = ["err", "out", "print_recall", "short"]

out = Console(soft_wrap=True)
err = Console(stderr=True)


def print_recall(result: RecallResult, title: str = "") -> None:
    """One line a hit: rank, fused score, each route's raw score, time, text."""
    out.print(f"[bold]{title or 'recall: ' + result.query}[/bold]")
    for rank, hit in enumerate(result.hits, start=1):
        routes = " · ".join(f"{name} {score:.3f}" for name, score in hit.route_scores.items())
        when = hit.time.strftime("%Y-%m-%d %H:%M") if hit.time else "—"
        out.print(f"  {rank}. {hit.score:.3f} [dim]({routes})[/dim] {when} {hit.text}", highlight=False)
    timings = ", ".join(f"{name} {ms:.1f}" for name, ms in result.timings_ms.items())
    out.print(f"  [dim]words {result.info.get('words')} · ms: {timings}[/dim]", highlight=False)


def short(text: str, width: int = 120) -> str:
    """``text`` on one line, cut to ``width`` characters with an ellipsis."""
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"
