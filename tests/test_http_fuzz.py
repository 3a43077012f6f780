"""Schemathesis drives the HTTP API from its own OpenAPI schema: no input may cause a server error, and
every 4xx has the typed error shape."""

from __future__ import annotations

from pathlib import Path

import pytest

schemathesis = pytest.importorskip("schemathesis")

from huiyi.config import Config  # noqa: E402
from huiyi.faces.http import create_app  # noqa: E402
from huiyi.memory import AsyncMemory  # noqa: E402
from huiyi.providers.embed import HashEmbedder  # noqa: E402


@pytest.mark.slow
def test_no_generated_request_gets_a_5xx(tmp_path: Path) -> None:
    from hypothesis import HealthCheck, given, settings

    memory = AsyncMemory(tmp_path, embedder=HashEmbedder(16), config=Config(worker={"enabled": False}))
    app = create_app(memory)
    schema = schemathesis.openapi.from_asgi("/openapi.json", app)
    failures: list[str] = []
    statuses: list[int] = []
    for operation in schema.get_all_operations():
        op = operation.ok()

        @settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck))
        @given(case=op.as_strategy())
        def check(case: object) -> None:
            response = case.call()  # type: ignore[attr-defined]
            statuses.append(response.status_code)
            if response.status_code >= 500:
                failures.append(f"{case.method} {case.path}: {response.status_code} {response.text[:300]}")  # type: ignore[attr-defined]
            elif response.status_code >= 400 and not {"code", "message"} <= set(response.json().get("error", {})):
                failures.append(f"{case.method} {case.path}: untyped {response.status_code} {response.text[:300]}")  # type: ignore[attr-defined]

        check()
    assert failures == []
    assert len(statuses) > 50 and {200, 422} <= set(statuses)  # it really exercised the API
