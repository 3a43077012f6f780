"""The memory proxy's section: where ``/v1/chat/completions`` forwards, and how a request names its agent."""

# no `from __future__ import annotations`: the models' field types stay objects, which pydantic would otherwise
# compile and evaluate from strings, one by one, at import (issue 15)

from pydantic import Field

from huiyi.config._section import ApiKey, Seconds, Section

__all__ = ["ProxyConfig", "ProxyModel"]


class ProxyModel(Section):
    agent: str  # the agent a request for this model alias talks to
    model: str = ""  # the upstream's model name; empty: the alias itself


class ProxyConfig(Section):
    """The OpenAI-compatible memory proxy (``/v1/chat/completions`` of ``huiyi serve``)."""

    upstream: str = ""  # base URL of the chat API to forward to; empty: llm.base_url
    api_key: ApiKey = ""  # key sent upstream; empty: llm.api_key
    agent: str = ""  # the agent of requests that name none (no X-Huiyi-Agent, no alias)
    models: dict[str, ProxyModel] = Field(default_factory=dict)  # model alias -> agent (and upstream model)
    template: str = "{system}\n\n{memory}"  # the system prompt with the rendered memory context
    tools: bool = False  # offer huiyi's search tools and rate_memory to the model and run its calls inside the proxy
    timeout_s: Seconds = 120.0
    # a request with no Idempotency-Key that repeats a stored line this soon is a client's retry: longer
    # than timeout_s plus a client's back-off, as a retry comes after the first attempt gave up
    retry_window_s: Seconds = 180.0
