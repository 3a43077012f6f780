"""Typed errors. Each carries a stable ``code`` that the HTTP face maps to a status in one place."""

from __future__ import annotations


class HuiyiError(Exception):
    """Base of every error huiyi raises on purpose."""

    code = "huiyi_error"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class InvalidInput(HuiyiError):
    """The caller's input is malformed, empty or too large. Nothing was written."""

    code = "invalid_input"


class NotFound(HuiyiError):
    code = "not_found"


class UnnamedConversation(InvalidInput):
    """A proxied chat request does not say which agent, person or group it belongs to."""

    code = "unnamed_conversation"


class ReadOnly(HuiyiError):
    """The caller may read this but not change it (e.g. a core block shared by every person)."""

    code = "read_only"


class NotConfigured(HuiyiError):
    """The call needs something the configuration does not set up (e.g. a core-block folder)."""

    code = "not_configured"


class ScopeError(InvalidInput):
    """A call named no scope, or scopes that do not fit together."""

    code = "invalid_scope"


class EmbedderMismatch(HuiyiError):
    """The store holds vectors of another embedding model; mixing them would make recall meaningless."""

    code = "embedder_mismatch"


class StillRunning(HuiyiError):
    """Jobs this process's workers took were still running when the wait for them ended."""

    code = "still_running"


class StoreError(HuiyiError):
    code = "store_error"


class StoreFull(StoreError):
    """The store's disk (or database) is full: nothing of the call was written; free space, then retry."""

    code = "store_full"


class StoreBusy(StoreError):
    """Another program holds the store's lock past the busy timeout (a backup, a ``sqlite3`` shell): nothing of the
    call was written; retry once it lets go."""

    code = "store_busy"


class SchemaTooNew(StoreError):
    """The store was written by a newer huiyi than this one."""

    code = "schema_too_new"


class ProviderError(HuiyiError):
    """An embedder or LLM endpoint failed or answered nonsense."""

    code = "provider_error"


class ConfigError(HuiyiError):
    code = "config_error"


def said(exc: BaseException) -> str:
    """An error's reason in plain words: a validation error's messages without pydantic's framing (its
    model's name, error types and documentation links), anything else as it reads."""
    errors = getattr(exc, "errors", None)
    if callable(errors):
        try:
            found = errors()
        except Exception:  # not pydantic's after all
            return str(exc)
        parts = [": ".join(filter(None, [".".join(map(str, e.get("loc", ()))), e.get("msg", "")])) for e in found]
        return "; ".join(part.replace("Value error, ", "") for part in parts) or str(exc)
    return str(exc)
