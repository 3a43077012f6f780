"""An async client for OpenAI-compatible chat endpoints: DeepSeek, Qwen (DashScope), Ollama, vLLM.

The flows ask an LLM for structured facts, so the client's job is to hand back a ``dict`` that fits
a JSON schema, or to fail with a ``ProviderError`` that says what to fix. Servers differ: some
refuse ``json_schema`` (we fall back to ``json_object``, then to instructions alone), small models
wrap JSON in prose or code fences (we repair it), and every server is sometimes slow or busy
(we retry with backoff). The API key is sent in a header and nowhere else: never logged, never in
an error message.

The repair lives in :mod:`huiyi.providers.json_repair` and the schema check in
:mod:`huiyi.providers.json_schema`; ``repair_json`` and ``schema_errors`` are re-exported here.

    >>> repair_json('好的:```json\\n{"a": 1,}\\n```')
    {'a': 1}
"""

from __future__ import annotations

import asyncio
import json
import logging
import random
import re
import time
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, Protocol, TypeVar, runtime_checkable

from huiyi.config import LLMConfig
from huiyi.errors import ConfigError, ProviderError
from huiyi.providers.json_repair import repair_json, strip_think
from huiyi.providers.json_schema import json_type, schema_errors

if TYPE_CHECKING:
    import httpx

__all__ = ["LLM", "OpenAIChat", "TokenUsage", "repair_json", "schema_errors"]

log = logging.getLogger(__name__)

T = TypeVar("T")
JsonMode = Literal["json_schema", "json_object", "prompt"]
_MODES: tuple[JsonMode, ...] = ("json_schema", "json_object", "prompt")
_RETRY_STATUS = frozenset({408, 409, 429})  # plus every 5xx
_FALLBACK_STATUS = frozenset({400, 422})  # FastAPI-based servers answer 422 to fields they do not know
_SNIPPET = 300


@runtime_checkable
class LLM(Protocol):
    """What the flows need from a language model; fakes in tests implement just this."""

    async def complete(self, messages: list[dict[str, str]]) -> str: ...

    async def complete_json(
        self, messages: list[dict[str, str]], schema: dict[str, Any], schema_name: str
    ) -> dict[str, Any]: ...


@dataclass(frozen=True, slots=True)
class TokenUsage:
    """Running totals as the server reported them in ``usage``; failed answers cost tokens too."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    requests: int = 0  # answered calls (HTTP 200), including ones whose content was unusable

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens


class _Transient(Exception):
    """Worth another try: the server was busy, slow, unreachable or answered garbage."""

    def __init__(self, reason: str, retry_after: float | None = None, *, timeout: bool = False) -> None:
        super().__init__(reason)
        self.reason = reason
        self.retry_after = retry_after
        self.timeout = timeout


class _Rejected(Exception):
    """A 400/422: maybe only the ``response_format`` was not understood."""

    def __init__(self, status: int, reason: str) -> None:
        super().__init__(reason)
        self.status = status
        self.reason = reason


class _Unusable(Exception):
    """The server answered, but the content is not what was asked for."""

    def __init__(self, reason: str, content: str) -> None:
        super().__init__(reason)
        self.reason = reason
        self.content = content


# room asked for after an answer was cut off: the server's default first, then doubling up to a cap
_FIRST_ROOM = 4096
_MAX_ROOM = 32768


class OpenAIChat:
    """``LLM`` over ``POST {base_url}/chat/completions``.

    ``max_retries`` counts every extra attempt, whether the server failed or the answer did not
    fit the schema. Falling back from ``json_schema`` is not a retry; the fallback is remembered
    once it worked, so later calls do not pay for the refused attempt again.
    """

    def __init__(
        self,
        config: LLMConfig,
        *,
        backoff_s: float = 0.5,
        backoff_max_s: float = 20.0,
        retry_after_max_s: float = 60.0,
        temperature: float | None = 0.0,
        max_tokens: int | None = None,
        client: httpx.AsyncClient | None = None,
    ) -> None:
        base = config.base_url.strip().rstrip("/")
        if not base:
            raise ConfigError("llm.base_url is empty; set it (e.g. http://127.0.0.1:11434/v1) or run without an LLM")
        if not base.startswith(("http://", "https://")):
            raise ConfigError(f"llm.base_url must start with http:// or https://, got {base!r}")
        if not config.model:
            raise ConfigError("llm.model is empty; name the model the server should run (e.g. deepseek-chat)")
        if config.timeout_s <= 0:
            raise ConfigError(f"llm.timeout_s must be positive, got {config.timeout_s}")
        api_key = config.api_key.strip()  # a key pasted with its newline would fail every call
        if not api_key.isascii():
            raise ConfigError("llm.api_key holds non-ASCII characters; HTTP headers cannot carry them")
        if config.max_retries < 0:
            raise ConfigError(f"llm.max_retries must be 0 or more, got {config.max_retries}")
        self.url = base if base.endswith("/chat/completions") else base + "/chat/completions"
        self.model = config.model
        self.timeout_s = config.timeout_s
        self.max_retries = config.max_retries
        self.backoff_s = backoff_s
        self.backoff_max_s = backoff_max_s
        self.retry_after_max_s = retry_after_max_s
        self.temperature = temperature
        self.max_tokens = max_tokens
        self._secret = api_key  # only ever goes into the Authorization header
        headers = {"Content-Type": "application/json"}
        if api_key:
            headers["Authorization"] = f"Bearer {api_key}"
        self._given = client
        # our own client per event loop: an earlier loop's connections (asyncio.run called again) failed every
        # call of the next with "Event loop is closed"; one of a loop that has gone goes with it
        self._clients: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, httpx.AsyncClient] = (
            weakref.WeakKeyDictionary()
        )
        self._headers = headers
        self._mode: JsonMode = "json_schema"
        self._prompt_tokens = 0
        self._completion_tokens = 0
        self._requests = 0
        self._rng = random.Random()

    def __repr__(self) -> str:
        return f"OpenAIChat(url={self.url!r}, model={self.model!r})"

    @property
    def usage(self) -> TokenUsage:
        return TokenUsage(self._prompt_tokens, self._completion_tokens, self._requests)

    @property
    def json_mode(self) -> JsonMode:
        """How structured output is asked for now; drops from ``json_schema`` when a server refuses it."""
        return self._mode

    def _client(self) -> httpx.AsyncClient:
        """The HTTP client for the running event loop: the one given, else ours for this loop."""
        if self._given is not None:
            return self._given
        loop = asyncio.get_running_loop()
        if (client := self._clients.get(loop)) is None:
            import httpx  # here, not at import: `import huiyi` stays light (issue 15)

            client = self._clients[loop] = httpx.AsyncClient(timeout=httpx.Timeout(self.timeout_s))
        return client

    async def aclose(self) -> None:
        """Close our client of the running loop (those of loops that have gone went with them)."""
        if (client := self._clients.pop(asyncio.get_running_loop(), None)) is not None:
            await client.aclose()

    async def __aenter__(self) -> OpenAIChat:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    async def complete(self, messages: list[dict[str, str]]) -> str:
        """Plain text; reasoning models' ``<think>`` blocks are dropped."""

        def accept(content: str) -> str:
            text = strip_think(content).strip()
            if not text:
                raise _Unusable("the answer was empty", content)
            return text

        return await self._run(messages, accept, None, "text")

    async def complete_json(
        self, messages: list[dict[str, str]], schema: dict[str, Any], schema_name: str
    ) -> dict[str, Any]:
        """One JSON object that passes ``schema``; almost-JSON is repaired before it is judged."""

        def accept(content: str) -> dict[str, Any]:
            try:
                value = repair_json(content)
            except ValueError as exc:
                raise _Unusable(f"not JSON ({exc})", content) from None
            if not isinstance(value, dict):
                raise _Unusable(f"expected a JSON object, got {json_type(value)}", content)
            errors = schema_errors(value, schema)
            if errors:
                raise _Unusable("does not match the schema: " + "; ".join(errors[:5]), content)
            return value

        return await self._run(messages, accept, schema, schema_name)

    async def _run(
        self,
        messages: list[dict[str, str]],
        accept: Callable[[str], T],
        schema: dict[str, Any] | None,
        name: str,
    ) -> T:
        failures = 0
        mode = self._mode
        convo = list(messages)
        room = self.max_tokens
        while True:
            body = self._body(convo, mode if schema is not None else None, schema, name, room)
            try:
                content, finish = await self._send(body)
            except _Rejected as exc:
                next_mode = _MODES.index(mode) + 1 if schema is not None else len(_MODES)
                if next_mode < len(_MODES):
                    log.info(
                        "%s refused response_format %s (%d); trying %s",
                        self.url,
                        mode,
                        exc.status,
                        _MODES[next_mode],
                    )
                    mode = _MODES[next_mode]
                    continue
                raise ProviderError(
                    f"LLM at {self.url} rejected the request ({exc.status}): {exc.reason}. "
                    "Check llm.model and that the server speaks the OpenAI chat API."
                ) from None
            except _Transient as exc:
                failures += 1
                if failures > self.max_retries:
                    hint = (
                        f"raise llm.timeout_s (now {self.timeout_s:g}s) or use a faster model"
                        if exc.timeout
                        else "check that the server at llm.base_url is up and not overloaded"
                    )
                    raise ProviderError(
                        f"LLM request to {self.url} failed after {failures} attempt(s): {exc.reason}; {hint}."
                    ) from None
                delay = self._delay(failures, exc.retry_after)
                log.warning(
                    "LLM call failed (%s); retry %d/%d in %.2fs",
                    exc.reason,
                    failures,
                    self.max_retries,
                    delay,
                )
                await asyncio.sleep(delay)
                continue
            if schema is not None and mode != self._mode:
                self._mode = mode  # the lower mode got an answer, so the refusal was about the format
            try:
                if finish == "length":
                    # a cut answer is never kept, even where JSON repair could close it: part of an
                    # extraction would be stored as if it were the whole
                    raise _Unusable("the answer was cut off at max_tokens", content)
                return accept(content)
            except _Unusable as exc:
                failures += 1
                if finish == "length":
                    room = min(_MAX_ROOM, room * 2 if room else _FIRST_ROOM)
                if failures > self.max_retries:
                    hint = (
                        "Use a model that follows JSON instructions, or simplify the schema."
                        if schema is not None
                        else "Check the prompt and the model."
                    )
                    raise ProviderError(
                        f"LLM {self.model!r} at {self.url} gave no usable answer for {name!r} after "
                        f"{failures} attempt(s): {exc.reason}. {hint}"
                    ) from None
                log.warning(
                    "LLM answer for %r unusable (%s); retry %d/%d",
                    name,
                    exc.reason,
                    failures,
                    self.max_retries,
                )
                # a cut answer is asked again with more room; a wrong one is shown why
                convo = list(messages) if finish == "length" else [*messages, *self._feedback(exc, schema)]

    def _body(
        self,
        messages: list[dict[str, str]],
        mode: JsonMode | None,
        schema: dict[str, Any] | None,
        name: str,
        max_tokens: int | None = None,
    ) -> dict[str, Any]:
        body: dict[str, Any] = {"model": self.model, "messages": messages, "stream": False}
        if self.temperature is not None:
            body["temperature"] = self.temperature
        if max_tokens is not None:
            body["max_tokens"] = max_tokens
        if mode == "json_schema":
            body["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": _schema_name(name), "schema": schema, "strict": True},
            }
        elif mode is not None:
            # without json_schema the model only knows the shape from the prompt; json_object also
            # demands the word "JSON" somewhere in the messages.
            body["messages"] = _with_instruction(messages, _instruction(schema))
            if mode == "json_object":
                body["response_format"] = {"type": "json_object"}
        return body

    def _feedback(self, exc: _Unusable, schema: dict[str, Any] | None) -> list[dict[str, str]]:
        if schema is None:
            ask = "That reply was empty. Please answer again."
        else:
            ask = (
                f"That reply was not usable: {exc.reason}. Reply again with only one JSON object, no prose "
                f"and no code fences, matching this JSON schema:\n{json.dumps(schema, ensure_ascii=False)}"
            )
        return [{"role": "assistant", "content": exc.content[:4000]}, {"role": "user", "content": ask}]

    async def _send(self, body: dict[str, Any]) -> tuple[str, str]:
        """One HTTP exchange, sorted into (content, finish_reason), ``_Transient``, ``_Rejected`` or
        ``ProviderError``."""
        import httpx

        try:
            response = await self._client().post(self.url, json=body, headers=self._headers)
        except httpx.TimeoutException:
            raise _Transient(f"no answer within {self.timeout_s:g}s", timeout=True) from None
        except httpx.UnsupportedProtocol as exc:
            raise ProviderError(f"cannot reach LLM at {self.url}: {self._redact(str(exc))}") from None
        except httpx.TransportError as exc:
            raise _Transient(f"{type(exc).__name__}: {self._redact(str(exc)) or 'connection failed'}") from None
        status = response.status_code
        if status != 200:
            reason = f"HTTP {status}: {self._error_text(response)}"
            if status in _RETRY_STATUS or status >= 500:
                raise _Transient(reason, _retry_after(response.headers))
            if status in _FALLBACK_STATUS:
                raise _Rejected(status, self._error_text(response))
            if status in (401, 403):
                raise ProviderError(
                    f"LLM at {self.url} refused the credentials ({reason}). "
                    "Check llm.api_key (environment: HUIYI_LLM__API_KEY)."
                )
            if status == 404:
                raise ProviderError(
                    f"LLM endpoint or model not found ({reason}) at {self.url}. Check llm.base_url "
                    f"(it usually ends in /v1) and that model {self.model!r} exists on the server."
                )
            raise ProviderError(f"LLM at {self.url} rejected the request ({reason}).")
        try:
            data = response.json()
        except ValueError:
            raise _Transient(
                f"the server answered 200 with a non-JSON body: {self._snippet(response.text)!r}"
            ) from None
        self._count(data)
        return self._content(data)

    def _count(self, data: Any) -> None:
        self._requests += 1
        usage = data.get("usage") if isinstance(data, dict) else None
        if isinstance(usage, dict):
            self._prompt_tokens += _int(usage.get("prompt_tokens"))
            self._completion_tokens += _int(usage.get("completion_tokens"))

    def _content(self, data: Any) -> tuple[str, str]:
        try:
            choice = data["choices"][0]
            message = choice["message"]
        except (KeyError, IndexError, TypeError):
            raise _Transient(f"the answer has no choices[0].message: {self._snippet(json.dumps(data))!r}") from None
        finish = choice.get("finish_reason") if isinstance(choice, dict) else None
        finish = finish if isinstance(finish, str) else ""
        content = message.get("content") if isinstance(message, dict) else None
        if isinstance(content, list):  # content parts, as some servers send them
            content = "".join(p.get("text", "") for p in content if isinstance(p, dict))
        if not isinstance(content, str):
            refusal = message.get("refusal") if isinstance(message, dict) else None
            return (f"(refused: {refusal})" if refusal else ""), finish
        return content, finish

    def _delay(self, failures: int, retry_after: float | None) -> float:
        ceiling = min(self.backoff_max_s, self.backoff_s * 2.0 ** (failures - 1))
        delay = ceiling / 2 + self._rng.uniform(0, ceiling / 2)  # equal jitter: spread, never zero
        if retry_after is not None:
            delay = max(delay, min(retry_after, self.retry_after_max_s))
        return delay

    def _error_text(self, response: httpx.Response) -> str:
        try:
            data = response.json()
        except ValueError:
            return self._snippet(response.text) or response.reason_phrase
        error = data.get("error", data) if isinstance(data, dict) else data
        if isinstance(error, dict):
            error = error.get("message") or error.get("msg") or error.get("detail") or error
        text = error if isinstance(error, str) else json.dumps(error, ensure_ascii=False)
        return self._snippet(text)

    def _snippet(self, text: str) -> str:
        text = self._redact(" ".join(text.split()))
        return text if len(text) <= _SNIPPET else text[:_SNIPPET] + "…"

    def _redact(self, text: str) -> str:
        return text.replace(self._secret, "***") if self._secret else text


# --- small helpers ------------------------------------------------------------------------------


def _instruction(schema: dict[str, Any] | None) -> str:
    return (
        "Answer with one JSON object only, no prose and no code fences. It must match this JSON schema:\n"
        + json.dumps(schema, ensure_ascii=False)
    )


def _with_instruction(messages: list[dict[str, str]], instruction: str) -> list[dict[str, str]]:
    if messages and messages[0].get("role") == "system":
        first = dict(messages[0])
        first["content"] = f"{first.get('content', '')}\n\n{instruction}".strip()
        return [first, *messages[1:]]
    return [{"role": "system", "content": instruction}, *messages]


def _schema_name(name: str) -> str:
    # OpenAI accepts [a-zA-Z0-9_-]{1,64} only
    return re.sub(r"[^a-zA-Z0-9_-]", "_", name)[:64] or "answer"


def _retry_after(headers: httpx.Headers) -> float | None:
    """Seconds the server asked us to wait: ``retry-after-ms``, or ``Retry-After`` as seconds or a date."""
    ms = headers.get("retry-after-ms")
    if ms:
        try:
            return max(0.0, float(ms) / 1000)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    import email.utils  # here: only an HTTP date in Retry-After needs it, and it loads ~15 modules (issue 15)

    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0
