"""``huiyi jobs list / retry``: see the background jobs of a store, and queue failed ones again."""

from __future__ import annotations

from typing import Annotated

import typer

from huiyi.errors import InvalidInput
from huiyi.faces.cli.options import ConfigOption, StoreOption, open_memory
from huiyi.faces.cli.printing import out, short
from huiyi.model import Job, JobState

__all__ = ["app"]

app = typer.Typer(no_args_is_help=True, pretty_exceptions_enable=False)

StateOption = Annotated[list[JobState] | None, typer.Option("--state", help="Only jobs in this state (repeatable).")]
OptionalAgent = Annotated[str | None, typer.Option("--agent", "-a", help="Only this agent's jobs.")]


def _line(job: Job) -> str:
    when = job.created_at.strftime("%Y-%m-%d %H:%M:%S") if job.created_at else "—"
    seqs = f"{job.payload.get('space', '')} {job.payload.get('from_seq', '?')}–{job.payload.get('to_seq', '?')}"
    parts = [job.id, job.state.value, job.kind, job.agent, seqs, when, f"attempts {job.attempts}/claims {job.claims}"]
    if job.state is JobState.RUNNING and job.worker:
        parts.append(f"worker {job.worker}")
    if job.last_error:
        parts.append(short(job.last_error, 200))
    return "  ".join(parts)


@app.command("list")
def list_jobs(
    state: Annotated[
        list[JobState] | None, typer.Option("--state", help="Only jobs in this state (repeatable).")
    ] = None,
    agent: OptionalAgent = None,
    limit: Annotated[int, typer.Option(help="At most this many, oldest first.")] = 100,
    store: StoreOption = ".huiyi",
    config: ConfigOption = None,
) -> None:
    """The store's background jobs, oldest first: id, state, kind, agent, messages, attempts, last error."""
    with open_memory(store, config, worker={"enabled": False}) as memory:
        jobs = memory.jobs(agent=agent, states=state or (), limit=limit)
    for job in jobs:
        out.print(_line(job), highlight=False)
    out.print(f"{len(jobs)} jobs", highlight=False)


@app.command("retry")
def retry(
    job_id: Annotated[str | None, typer.Argument(help="The failed job to queue again.")] = None,
    all_failed: Annotated[bool, typer.Option("--all-failed", help="Every failed job (of --agent, if given).")] = False,
    agent: OptionalAgent = None,
    run: Annotated[bool, typer.Option("--run/--no-run", help="Run the queued jobs now, before exiting.")] = False,
    store: StoreOption = ".huiyi",
    config: ConfigOption = None,
) -> None:
    """Queue failed jobs again (attempts back to 0); a running worker takes them, or --run runs them here
    (exit code 1 when some still did not finish)."""
    if (job_id is None) == (not all_failed):
        raise InvalidInput("name one job id, or --all-failed")
    with open_memory(store, config, worker={"enabled": False}) as memory:
        retried = memory.retry_failed(agent=agent) if all_failed else [memory.retry_job(job_id or "", agent=agent)]
        for job in retried:
            out.print(f"queued again: {_line(job)}", highlight=False)
        if run and retried:
            ran = memory.run_jobs()
            ids = {job.id for job in retried}
            left = memory.jobs(agent=agent, states=[JobState.FAILED, JobState.PENDING], limit=100_000)
            still = [job for job in left if job.id in ids]
            out.print(f"{ran} jobs run; {len(retried) - len(still)} of {len(retried)} done", highlight=False)
            for job in still:
                out.print(f"not done: {_line(job)}", highlight=False)
            if still:
                raise typer.Exit(1)
    if not retried:
        out.print("no failed jobs", highlight=False)
