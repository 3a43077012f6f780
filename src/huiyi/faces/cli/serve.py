"""``huiyi serve / worker / mcp / chat / tools``: huiyi running for a client until stopped.

The HTTP service, extraction workers, the MCP server, a chat in the terminal, and the tool schemas
an LLM client is given. Each imports what it runs only when called, so other commands start light.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import math
import signal
from typing import Annotated

import typer

from huiyi.config import Config
from huiyi.faces.cli.options import AgentOption, ConfigOption, PersonOption, SpaceOption, StoreOption
from huiyi.faces.cli.printing import err, out
from huiyi.formats import scope_label

__all__ = ["chat", "mcp_command", "serve", "tools_command", "worker"]


def serve(
    store: StoreOption = ".huiyi",
    config: ConfigOption = None,
    host: Annotated[str | None, typer.Option(help="Interface to listen on (default from config: 127.0.0.1).")] = None,
    port: Annotated[int | None, typer.Option(min=0, max=65535, help="Port (default from config: 8765).")] = None,
    workers: Annotated[
        int,
        typer.Option(
            min=0,
            help="Extraction workers to run beside the API; 0: none in this process, not even the store's own"
            " background worker (an API-only replica, `huiyi worker` processes extract).",
        ),
    ] = 1,
    index_for: Annotated[
        float,
        typer.Option(
            min=0,
            max=86_400,
            help="On SIGTERM or Ctrl-C, seconds to go on indexing messages stored but not yet indexed; the rest "
            "is indexed by the next start (stored meanwhile, and found by keyword).",
        ),
    ] = 5.0,
) -> None:
    """Run the HTTP service (OpenAPI at /docs) over a store; the embedded store needs no set-up."""
    import uvicorn

    from huiyi.faces.http import create_app
    from huiyi.faces.http_hosts import guard_hosts
    from huiyi.memory import AsyncMemory
    from huiyi.store import store_label

    # --workers 0 left the store's own worker on, so an API-only replica still called the LLM (helper)
    settings = Config.load(config, **({"worker": {"enabled": False}} if workers == 0 else {}))
    memory = AsyncMemory(store, config=settings)
    api = create_app(
        memory,
        api_keys=settings.http.api_keys,
        max_body_bytes=settings.http.max_body_bytes,
        close_on_shutdown=True,
        workers=workers,
        index_for=index_for,
    )
    guard_hosts(api, settings.http.api_keys)
    bind_host, bind_port = host or settings.http.host, port or settings.http.port
    out.print(f"huiyi serving {store_label(store, settings.store)} on http://{bind_host}:{bind_port} (docs at /docs)")
    # requests under way (a flush waiting on an LLM that does not answer) get as long as indexing does, then
    # are cut, their folds given back: uvicorn waited for them before the shutdown that closes the store
    uvicorn.run(
        api, host=bind_host, port=bind_port, log_level="warning", timeout_graceful_shutdown=max(1, math.ceil(index_for))
    )


def worker(
    store: StoreOption = ".huiyi",
    config: ConfigOption = None,
    count: Annotated[int, typer.Option(help="Workers in this process (1 to 64).", min=1, max=64)] = 1,
) -> None:
    """Run extraction workers against a store until interrupted (any number of processes on PostgreSQL)."""
    from huiyi.memory import AsyncMemory
    from huiyi.store import store_label

    settings = Config.load(config)

    async def run() -> None:
        async with AsyncMemory(store, config=settings) as memory:
            stop = asyncio.Event()
            # SIGTERM (a deploy, systemd, Kubernetes) stops them as Ctrl-C does: an extraction under way gets its
            # grace and gives its fold back; killed outright, another machine's worker waited out its lease
            for signum in (signal.SIGTERM, signal.SIGINT):
                with contextlib.suppress(NotImplementedError, RuntimeError):  # no signal handlers on this loop
                    asyncio.get_running_loop().add_signal_handler(signum, stop.set)
            try:
                await memory.run_workers(count, stop)
            finally:
                stop.set()

    out.print(f"{count} extraction worker(s) on {store_label(store, settings.store)}; Ctrl-C stops them")
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(run())


def chat(
    store: StoreOption = ".huiyi",
    config: ConfigOption = None,
    agent: Annotated[str, typer.Option("--agent", "-a", help="The character that remembers.")] = "祈煜",
    person: Annotated[str, typer.Option("--person", "-p", help="Who you are in this conversation.")] = "木木",
    quiet: Annotated[bool, typer.Option(help="Hide what was recalled and rendered.")] = False,
) -> None:
    """Talk with the agent in the terminal; shows what each turn recalled and rendered (echo without an LLM)."""
    from huiyi.faces.chat import chat as run_chat
    from huiyi.memory import AsyncMemory

    async def main() -> None:
        async with AsyncMemory(store, config=Config.load(config)) as memory:
            await run_chat(memory, agent=agent, person=person, console=out, show_context=not quiet)

    asyncio.run(main())


def tools_command(
    name: Annotated[list[str] | None, typer.Option("--name", help="Only this tool (repeatable).")] = None,
) -> None:
    """Print the LLM tool schemas (OpenAI tools format) as JSON."""
    from huiyi.faces.tools import tool_schemas

    typer.echo(json.dumps(tool_schemas(name), ensure_ascii=False, indent=2))


def mcp_command(
    agent: AgentOption,
    person: PersonOption = None,
    space: SpaceOption = None,
    transport: Annotated[
        str, typer.Option("--transport", "-t", help="stdio (for a client that starts it) or http (streamable HTTP).")
    ] = "stdio",
    host: Annotated[str, typer.Option(help="http: interface to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(min=0, max=65535, help="http: port.")] = 8766,
    store: StoreOption = ".huiyi",
    config: ConfigOption = None,
) -> None:
    """Serve the memory tools and the context resource over MCP, for one agent and person (or space).

    Over stdio nothing but the protocol is written to stdout. Over http the endpoint is
    http://HOST:PORT/mcp; it has no authentication, so keep it on 127.0.0.1.
    """
    from huiyi.faces.mcp_server import serve as serve_mcp

    if transport not in ("stdio", "http"):
        raise typer.BadParameter("transport must be stdio or http", param_hint="--transport")
    if not agent.strip():  # before the store is opened (and made)
        raise typer.BadParameter("is empty; name the character whose memory this is", param_hint="--agent")
    for option, value in (("--person", person), ("--space", space)):
        if value is not None and not value.strip():  # an unset ${env:…} in a host's config: no scope is no fallback
            raise typer.BadParameter(
                "is empty; name one, or leave it out to serve the agent's own memories", param_hint=option
            )
    settings = Config.load(config)
    if transport == "http":
        if host not in ("127.0.0.1", "localhost", "::1"):
            err.print(f"[yellow]warning:[/yellow] {host} is not loopback and MCP has no authentication here")
        err.print(f"huiyi MCP for {agent} {scope_label(person, space)} on http://{host}:{port}/mcp", highlight=False)

    async def run() -> None:
        await serve_mcp(
            store,
            agent=agent,
            person=person,
            space=space,
            config=settings,
            transport="http" if transport == "http" else "stdio",
            host=host,
            port=port,
        )

    asyncio.run(run())
