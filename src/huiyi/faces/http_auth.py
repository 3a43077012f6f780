"""API keys of the HTTP face: which agents a caller may use (``http.api_keys``: key → agents, ``"*"`` all)."""

from __future__ import annotations

import hmac
from typing import Annotated

from fastapi import Depends, Header, Request

from huiyi.errors import HuiyiError

__all__ = ["Agents", "Forbidden", "Unauthorized", "allowed_agents", "check"]


class Forbidden(HuiyiError):
    code = "forbidden"


class Unauthorized(HuiyiError):
    code = "unauthorized"


def allowed_agents(request: Request, authorization: Annotated[str | None, Header()] = None) -> list[str] | None:
    """None means every agent (no keys configured); else the agents this key may use."""
    keys: dict[str, list[str]] = request.app.state.api_keys
    if not keys:
        return None
    scheme, _, token = (authorization or "").strip().partition(" ")
    token = token.strip()
    if scheme.lower() == "bearer" and token and " " not in token:  # a bare key is not accepted
        for key, agents in keys.items():
            if hmac.compare_digest(token.encode(), key.encode()):
                return agents
    raise Unauthorized("a valid API key is required: send 'Authorization: Bearer <key>'")


Agents = Annotated[list[str] | None, Depends(allowed_agents)]


def check(agents: list[str] | None, agent: str) -> None:
    """Refuse an agent the caller's key may not use."""
    if agents is not None and "*" not in agents and agent not in agents:
        raise Forbidden(f"this API key may not use agent {agent!r}")
