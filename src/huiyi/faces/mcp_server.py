"""The MCP face: the LLM tools and the rendered prompt context over the Model Context Protocol.

Built on the official ``mcp`` SDK's low-level ``Server``, so the tools carry exactly the schemas of
:mod:`huiyi.faces.tools` and run through the same :class:`~huiyi.faces.tools.ToolExecutor`. One server
acts for one agent and one person and/or group space, fixed when it starts (``huiyi mcp --agent …
--person …``); nothing a client sends can change that.

- tools: ``create_memory``, ``link_memories``, ``search_memories``, ``conversation_search``,
  ``archival_memory_search``, ``core_memory_append``, ``core_memory_replace``, ``rate_memory`` (the core
  edits only where a block may be changed: not on a group's server, unless agent blocks are editable). A result is the
  executor's compact JSON as text, the same object as structured content, and ``isError`` when it is
  an ``{"error": …}`` object.
- resource ``huiyi://context/{agent}/{person}`` (group servers: ``huiyi://context/{agent}/space/{space}``),
  read-only: the rendered context (core blocks, overview, working memory); the template adds
  ``?message=…&last_reply=…`` to recall for a turn as ``AsyncMemory.context`` does. Other agents or
  persons are refused.

Transports: stdio (``huiyi mcp``) and streamable HTTP on 127.0.0.1 (``huiyi mcp --transport http``,
endpoint ``/mcp``). Over stdio the server stops when the client closes stdin, on SIGTERM or on Ctrl-C, and
closes the store each time; a tool that writes finishes first, whoever stops it.
"""

from __future__ import annotations

import json
import logging
import math
from pathlib import Path
from typing import Any, Literal

import anyio
from mcp import MCPError, UriTemplate, types
from mcp.server import Server, ServerRequestContext
from mcp.server.context import CallNext, HandlerResult

from huiyi import __version__
from huiyi.config import Config
from huiyi.errors import HuiyiError
from huiyi.faces.mcp_stdio import serve_stdio
from huiyi.faces.tools import ToolExecutor, dumps, error_object
from huiyi.memory import AsyncMemory

__all__ = ["DEFAULT_PORT", "context_uri", "create_server", "serve"]

log = logging.getLogger(__name__)

DEFAULT_PORT = 8766
MCP_PATH = "/mcp"
PERSON_TEMPLATE = "huiyi://context/{agent}/{person}{?message,last_reply}"
SPACE_TEMPLATE = "huiyi://context/{agent}/space/{space}{?message,last_reply}"
FAILED = "the server failed; see its log"  # as the HTTP face says it
_READ_ONLY = {"search_memories", "conversation_search", "archival_memory_search"}

Transport = Literal["stdio", "http"]
Context = ServerRequestContext[Any]


def _template(space: str | None) -> UriTemplate:
    return UriTemplate.parse(SPACE_TEMPLATE if space else PERSON_TEMPLATE)


def context_uri(
    agent: str, person: str | None = None, space: str | None = None, message: str = "", last_reply: str = ""
) -> str:
    """The URI of a scope's context resource, percent-encoded.

    >>> context_uri("祈煜", "木木")
    'huiyi://context/%E7%A5%88%E7%85%9C/%E6%9C%A8%E6%9C%A8'
    >>> context_uri("bot", space="g1", message="hi")
    'huiyi://context/bot/space/g1?message=hi'
    """
    values = {"agent": agent, "person": person or "", "space": space or ""}
    values |= {name: value for name, value in (("message", message), ("last_reply", last_reply)) if value}
    return _template(space).expand(values)


def _tool(schema: dict[str, Any]) -> types.Tool:
    function = schema["function"]
    name = function["name"]
    return types.Tool(
        name=name,
        description=function["description"],
        input_schema=function["parameters"],
        annotations=types.ToolAnnotations(
            read_only_hint=name in _READ_ONLY,
            destructive_hint=name == "core_memory_replace",
            idempotent_hint=name in _READ_ONLY,
            open_world_hint=False,
        ),
    )


_JSON_TYPES = {str: "a string", bool: "a boolean", int: "a number", float: "a number", list: "an array"}


def _call_shape(params: Any) -> tuple[str, dict[str, Any]] | None:
    """Why a ``tools/call``'s params are not a name and an arguments object, with the field at fault; the
    SDK's own check answers a bare "Invalid request parameters" that leaves a client guessing.

    >>> _call_shape({"name": "archival_memory_search", "arguments": '{"query": "cat"}'})[0]
    'the arguments of archival_memory_search must be a JSON object, not a string holding one: send the object itself'
    >>> _call_shape({"name": "archival_memory_search", "arguments": {"query": "cat"}}) is None
    True
    """
    if not isinstance(params, dict):
        return "tools/call params must be a JSON object", {"field": "params"}
    name = params.get("name")
    if not isinstance(name, str):
        return "tools/call needs the tool's name as a string", {"field": "name"}
    arguments = params.get("arguments")
    if arguments is None or isinstance(arguments, dict):
        return None
    kind = _JSON_TYPES.get(type(arguments), "not an object")
    problem = f"the arguments of {name} must be a JSON object, not {kind}"
    if isinstance(arguments, str) and isinstance(_decoded(arguments), dict):
        problem = f"{problem} holding one: send the object itself"
    return problem, {"field": "arguments", "tool": name}


def _decoded(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return None


class _CallShape:
    """Middleware (it runs before the SDK validates params) that refuses a malformed ``tools/call`` with
    a message naming what is wrong; nothing is run."""

    async def __call__(self, ctx: Context, call_next: CallNext) -> HandlerResult:
        if ctx.method == "tools/call":
            wrong = _call_shape(ctx.params)
            if wrong is not None:
                raise MCPError(types.INVALID_PARAMS, *wrong)
        return await call_next(ctx)


def _edits_core(schema: dict[str, Any]) -> bool:
    return str(schema["function"]["name"]).startswith("core_memory_")


def create_server(executor: ToolExecutor, *, name: str = "huiyi") -> Server[Any]:
    """An MCP server over one executor (one agent and its fixed person / space)."""
    memory = executor.memory
    who = f"group {executor.space}" if executor.space else executor.person or "no one in particular"
    has_context = bool(executor.person or executor.space)  # the context is of a chat: a person's or a group's
    instructions = (
        f"Long-term memory (回忆) of {executor.agent}, talking with {who}. Search before saying you do not "
        "remember; save what is worth remembering. The context resource holds what is always in the prompt."
    )

    async def list_tools(ctx: Context, params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        # a group's server has no block a tool may change (human is a person's) unless agent blocks are
        # editable: the core tools could only fail there, so the model is not offered them
        editable = bool(memory.core_memory.editable(executor.agent, executor.person))
        offered = [schema for schema in executor.schemas() if editable or not _edits_core(schema)]
        return types.ListToolsResult(tools=[_tool(schema) for schema in offered])

    async def call_tool(ctx: Context, params: types.CallToolRequestParams) -> types.CallToolResult:
        try:
            # a write the client asked for is finished even if the client leaves (closes stdin) meanwhile
            with anyio.CancelScope(shield=params.name not in _READ_ONLY):
                result = await executor.run(params.name, params.arguments or {})
        except Exception:  # an embedder down, a full disk: the model is told the tool failed, the log says why
            log.exception("MCP tool %s failed", params.name)
            result = error_object("internal_error", FAILED)
        return types.CallToolResult(
            content=[types.TextContent(text=dumps(result))],
            structured_content=result,
            is_error="error" in result,
        )

    async def list_resources(ctx: Context, params: types.PaginatedRequestParams | None) -> types.ListResourcesResult:
        if not has_context:
            return types.ListResourcesResult(resources=[])
        resource = types.Resource(
            uri=context_uri(executor.agent, executor.person, executor.space),
            name="context",
            title=f"{executor.agent} × {who}: prompt context",
            description="The rendered prompt context: core blocks, overview (前情提要) and working memory.",
            mime_type="text/plain",
        )
        return types.ListResourcesResult(resources=[resource])

    async def list_templates(
        ctx: Context, params: types.PaginatedRequestParams | None
    ) -> types.ListResourceTemplatesResult:
        if not has_context:
            return types.ListResourceTemplatesResult(resource_templates=[])
        template = types.ResourceTemplate(
            uri_template=_template(executor.space).template,
            name="context-for-turn",
            title="prompt context for a turn",
            description="The rendered prompt context with memories recalled for the person's message (and the "
            f"agent's last reply). Only agent {executor.agent!r} and "
            + (f"space {executor.space!r}" if executor.space else f"person {executor.person!r}")
            + " are served.",
            mime_type="text/plain",
        )
        return types.ListResourceTemplatesResult(resource_templates=[template])

    async def read_resource(ctx: Context, params: types.ReadResourceRequestParams) -> types.ReadResourceResult:
        values = _template(executor.space).match(params.uri)
        if values is None or not has_context:
            raise MCPError(types.INVALID_PARAMS, f"unknown resource {params.uri}", {"uri": params.uri})
        scope_key = "space" if executor.space else "person"
        expected = executor.space if executor.space else (executor.person or "")
        if values.get("agent") != executor.agent or values.get(scope_key) != expected:
            raise MCPError(
                types.INVALID_PARAMS,
                f"this server serves the context of agent {executor.agent!r} and {scope_key} {expected!r} only",
                {"uri": params.uri},
            )
        message, last_reply = _text(values.get("message")), _text(values.get("last_reply"))
        try:
            context = await memory.context(
                agent=executor.agent,
                person=executor.person,
                space=executor.space,
                message=message,
                last_reply=last_reply,
            )
        except HuiyiError as exc:
            raise MCPError(types.INVALID_PARAMS, exc.message, {"uri": params.uri, "code": exc.code}) from exc
        except Exception as exc:  # the client gets no internals (the SDK would send the exception's text)
            log.exception("reading MCP resource %s failed", params.uri)
            raise MCPError(types.INTERNAL_ERROR, FAILED, {"uri": params.uri}) from exc
        contents = types.TextResourceContents(uri=params.uri, text=context.text, mime_type="text/plain")
        return types.ReadResourceResult(contents=[contents])

    server = Server(
        name,
        version=__version__,
        title="huiyi 回忆",
        description="Long-term memory for LLM characters.",
        instructions=instructions,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        on_list_resources=list_resources,
        on_list_resource_templates=list_templates,
        on_read_resource=read_resource,
    )
    server.middleware.append(_CallShape())
    return server


def _text(value: str | list[str] | None) -> str:
    if value is None:
        return ""
    return value if isinstance(value, str) else " ".join(value)


# a client stopping its MCP server, like a supervisor stopping a service, kills it a few seconds later: what is
# stored and not yet indexed by then is left to the next start
CLOSE_INDEX_SECONDS = 5.0


async def serve(
    store: str | Path,
    *,
    agent: str,
    person: str | None = None,
    space: str | None = None,
    config: Config | None = None,
    transport: Transport = "stdio",
    host: str = "127.0.0.1",
    port: int = DEFAULT_PORT,
    index_for: float | None = CLOSE_INDEX_SECONDS,
) -> None:
    """Open the store and serve until the client leaves (stdio) or the process is stopped (HTTP); the close
    goes on indexing what is queued for ``index_for`` seconds at most (``AsyncMemory.close``)."""
    memory = AsyncMemory(store, config=config)
    try:
        server = create_server(ToolExecutor(memory, agent, person=person, space=space))
        if transport == "stdio":
            await serve_stdio(server)
            return
        import uvicorn

        app = server.streamable_http_app(streamable_http_path=MCP_PATH, host=host)
        # calls under way are cut after the grace (uvicorn waited for them before returning)
        grace = max(1, math.ceil(index_for or 0))
        await uvicorn.Server(
            uvicorn.Config(app, host=host, port=port, log_level="warning", timeout_graceful_shutdown=grace)
        ).serve()
    finally:
        await memory.close(index_for)
