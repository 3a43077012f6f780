"""The HTTP routes the console uses (every one is public API), the demo store, and export/import of the graph."""

from __future__ import annotations

import asyncio
import io
from collections.abc import Iterator
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from huiyi.config import Config
from huiyi.faces.demo import AGENT, PERSON, seed_demo
from huiyi.faces.http import create_app
from huiyi.formats import apply_plan, export_lines, read_text, write_lines
from huiyi.memory import AsyncMemory

P = {"agent": AGENT, "person": PERSON}


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("demo")
    seed_demo(directory, Config.load(None, worker={"enabled": False}))
    return directory


@pytest.fixture
def client(demo: Path, tmp_path: Path) -> Iterator[TestClient]:
    import shutil

    copy = tmp_path / "store"
    shutil.copytree(demo, copy)
    memory = AsyncMemory(copy, config=Config.load(None, worker={"enabled": False}))
    with TestClient(create_app(memory, close_on_shutdown=True)) as client:
        yield client


def test_root_redirects_to_the_console_and_docs_are_local(client: TestClient) -> None:
    response = client.get("/", follow_redirects=False)
    assert response.status_code == 307 and response.headers["location"] == "/console"
    page = client.get("/console")
    assert page.status_code == 200 and "console.js" in page.text
    docs = client.get("/docs").text
    assert "/console/static/vendor/swagger-ui/swagger-ui-bundle.js" in docs and "cdn" not in docs.lower()
    assert client.get("/console/static/vendor/swagger-ui/swagger-ui-bundle.js").status_code == 200
    assert client.get("/console/static/vendor/swagger-ui/LICENSE").status_code == 200


def test_pages_and_answers_carry_headers_against_framing_sniffing_and_inline_script(client: TestClient) -> None:
    for path in ("/console", "/v1/agents", "/v1/nope", "/docs", "/console/static/console.js"):
        headers = client.get(path).headers
        csp = headers["content-security-policy"]
        assert "frame-ancestors 'none'" in csp and headers["x-frame-options"] == "DENY", path
        assert headers["x-content-type-options"] == "nosniff" and headers["referrer-policy"] == "no-referrer", path
        script = csp.split("script-src ")[1].split(";")[0]
        assert "unsafe-inline" not in script and "unsafe-eval" not in script, path
    assert client.get("/v1/agents").headers["cache-control"] == "no-store"
    # /docs allows exactly its own start-up script, by hash
    assert "'sha256-" in client.get("/docs").headers["content-security-policy"]
    assert "'sha256-" not in client.get("/console").headers["content-security-policy"]


def test_scopes_list_persons_spaces_and_counts(client: TestClient) -> None:
    agents = client.get("/v1/agents").json()
    assert [a["agent"] for a in agents] == [AGENT] and agents[0]["messages"] == 25
    scopes = {s["scope"]: s for s in client.get("/v1/scopes", params={"agent": AGENT}).json()}
    assert set(scopes) == {"official", "person:木木", "person:阿哲", "space:读书会"}
    assert scopes["person:木木"]["person"]["aliases"] == ["木木", "小木"]
    assert scopes["person:木木"]["person"]["platform_ids"] == {"qq": "10001"}
    assert len(client.get("/v1/working", params={"agent": AGENT, "space": "读书会"}).json()) == 3


def test_every_browse_route_answers_times_with_their_zone_and_reads_a_callers_zone(client: TestClient) -> None:
    """Some routes gave zone-less times (created_at 8 hours off); /v1/search dropped a caller's zone."""
    items = client.get("/v1/search", params=P).json()["items"]
    dated = [item for item in items if item["time"]]
    assert dated and all(item["time"].endswith("+08:00") and item["created_at"].endswith("+08:00") for item in dated)
    moment = sorted(item["time"] for item in dated)[len(dated) // 2]  # local, with its zone
    as_utc = (datetime.fromisoformat(moment) - timedelta(hours=8)).replace(tzinfo=None).isoformat() + "Z"
    for since in (moment, as_utc):  # the same instant, two ways
        found = client.get("/v1/search", params={**P, "since": since}).json()
        assert 0 < found["total"] < len(items) and all(item["time"] >= moment for item in found["items"])
    graph = client.get("/v1/graph", params=P).json()
    assert all(item["time"] is None or item["time"].endswith("+08:00") for item in graph["facts"] + graph["events"])
    said = client.get("/v1/working", params=P).json()
    assert said and all(m["time"].endswith("+08:00") for m in said)
    around = client.get(f"/v1/messages/{said[0]['id']}/chat", params={"agent": AGENT}).json()
    assert around and all(m["time"].endswith("+08:00") for m in around)


def test_search_filters_and_patch_changes_recall(client: TestClient) -> None:
    found = client.get("/v1/search", params={**P, "q": "养了一只猫", "kind": "fact"}).json()
    assert found["total"] == 1
    fact = found["items"][0]
    assert fact["sources"]  # provenance
    chat = client.get(f"/v1/messages/{fact['sources'][0]}/chat", params={"agent": AGENT}).json()
    assert any("团子" in m["text"] for m in chat)
    closed = client.get("/v1/search", params={**P, "kind": "fact", "valid": "false"}).json()
    assert [m["data"]["object"] for m in closed["items"]] == ["红色"]
    changed = client.patch(
        f"/v1/memories/{fact['id']}", json={"agent": AGENT, "text": "木木养了一只猫叫汤圆", "importance": 0.9}
    )
    assert changed.status_code == 200 and changed.json()["importance"] == 0.9
    hits = client.post("/query_simple", json={**P, "query": "猫叫什么", "limit": 3}).json()
    assert any("汤圆" in text for text in hits)
    bad = client.patch(f"/v1/memories/{fact['id']}", json={"agent": AGENT, "kind": "event"})
    assert bad.status_code == 422
    assert client.patch("/v1/memories/nope", json={"agent": AGENT, "text": "x"}).status_code == 404


def test_graph_merges_undo_and_jobs_retry(client: TestClient) -> None:
    graph = client.get("/v1/graph", params=P).json()
    assert {e["name"] for e in graph["entities"]} >= {"木木", "小雨", "小雨伞"}
    assert graph["links"] and graph["merges"]
    merge = graph["merges"][0]["id"]
    assert client.post(f"/v1/merges/{merge}/undo", params={"agent": AGENT}).json()["undone"] is True
    assert client.post(f"/v1/merges/{merge}/undo", params={"agent": AGENT}).status_code == 404
    failed = client.get("/v1/jobs", params={"agent": AGENT, "state": "failed"}).json()
    assert len(failed) == 1 and "429" in failed[0]["last_error"]
    retried = client.post(f"/v1/jobs/{failed[0]['id']}/retry", params={"agent": AGENT}).json()
    assert retried["state"] == "pending"
    assert client.post("/v1/jobs/nope/retry", params={"agent": AGENT}).status_code == 404


def test_the_debugger_explains_recall_under_any_weights(client: TestClient) -> None:
    body = {**P, "message": "我什么时候考驾照？", "time": "2024-09-27T09:00:00"}
    run = client.post("/v1/debug/recall", json=body).json()
    info = run["recall"]["info"]
    assert info["candidates"]["dense"] and info["fused"] and "total" in run["recall"]["timings_ms"]
    assert all(row[0] in run["texts"] for row in info["fused"])
    assert "驾照" in run["context"]
    other = client.post("/v1/debug/recall", json={**body, "overrides": {"keyword_weight": 0, "dense_weight": 1}}).json()
    assert other["recipe"]["keyword_weight"] == 0
    assert client.post("/v1/debug/recall", json={**body, "overrides": {"nope": 1}}).status_code == 422
    assert client.get("/v1/console").json()["language"] == "zh"


def test_the_debugger_explains_the_official_memories_alone(client: TestClient) -> None:
    # the console's official scope sends no person and no space: every run answered 422 (a context needs a chat)
    body = {
        "agent": AGENT,
        "message": "插画师也要考驾照吗？",
        "last_reply": "我是画画的",
        "time": "2024-09-27T09:00:00",
    }
    chat = client.post("/v1/debug/recall", json={**body, **P}).json()["recall"]["hits"]
    assert {hit["scope"]["kind"] for hit in chat} == {"official", "person"}
    run = client.post("/v1/debug/recall", json=body)
    assert run.status_code == 200
    found = run.json()
    hits, info = found["recall"]["hits"], found["recall"]["info"]
    assert hits[0]["text"] == "祈煜是一名住在上海的插画师，喜欢深夜画画。" and info["fused"]
    assert {hit["scope"]["kind"] for hit in hits} == {"official"}  # no chat's memories, however they match
    assert all(row[0] in found["texts"] for row in info["fused"])
    assert found["recall"]["query"] == "我是画画的\n插画师也要考驾照吗？"  # as a chat's context asks it
    assert found["context"] == "" and found["sections"] == {}  # no chat, so no prompt to render
    asked = client.post("/v1/debug/recall", json={**body, "overrides": {"keyword_weight": 0}}).json()
    assert asked["recipe"]["keyword_weight"] == 0 and asked["recall"]["hits"]
    assert client.post("/v1/debug/recall", json={"agent": AGENT, "message": ""}).json()["recall"] is None
    assert client.post("/v1/debug/recall", json={**body, "person": ""}).status_code == 422  # empty is not none


def test_keys_see_only_their_agents(demo: Path, tmp_path: Path) -> None:
    memory = AsyncMemory(demo, config=Config.load(None, worker={"enabled": False}))
    app = create_app(memory, api_keys={"k1": ["别人"]}, close_on_shutdown=True)
    with TestClient(app) as client:
        assert client.get("/v1/agents").status_code == 401
        auth = {"Authorization": "Bearer k1"}
        assert [a["agent"] for a in client.get("/v1/agents", headers=auth).json()] == ["别人"]
        assert client.get("/v1/scopes", params={"agent": AGENT}, headers=auth).status_code == 403


def test_export_and_import_carry_entities_links_and_merges(demo: Path, tmp_path: Path) -> None:
    async def run() -> None:
        config = Config.load(None, worker={"enabled": False})
        source = AsyncMemory(demo, config=config)
        handle = io.StringIO()
        await write_lines(export_lines(source, AGENT, PERSON, None), handle)
        await source.close()
        text = handle.getvalue()
        assert '"type": "entity"' in text and '"type": "merge"' in text and '"type": "link"' in text
        target = AsyncMemory(tmp_path / "copy", config=config)
        counts = await apply_plan(target, read_text(text, "export", None, None, None, []))
        assert (counts.entities, counts.merges, counts.links) == (6, 1, 1)
        entities = {e.id: e for e in await target.entities(agent=AGENT, person=PERSON, merged=True)}
        assert entities["ent_demo_小雨伞"].merged_into == "ent_demo_小雨"
        assert "小雨伞" in entities["ent_demo_小雨"].aliases
        merge = (await target.merges(agent=AGENT))[0]
        await target.undo_merge(merge.id, agent=AGENT)  # the replayed merge still undoes cleanly
        after = {e.id: e for e in await target.entities(agent=AGENT, person=PERSON, merged=True)}
        assert after["ent_demo_小雨"].aliases == [] and after["ent_demo_小雨伞"].merged_into is None
        person = await target.get_person(PERSON, agent=AGENT)
        assert person is not None and person.platform_ids == {"qq": "10001"}
        await target.close()

    asyncio.run(run())


def test_scope_times_keep_their_zones_and_the_demo_shows_reports_and_a_block(client: TestClient) -> None:
    """A scope's last message is wall-clock time and a memory's writing UTC: neither is read as the other."""
    scopes = {s["scope"]: s for s in client.get("/v1/scopes", params={"agent": AGENT}).json()}
    assert scopes["person:木木"]["last_activity"] == "2024-09-27T12:10:40+08:00"
    official = scopes["official"]  # no messages: its newest memory's writing, moved into the zone
    assert official["last_activity"] == official["last_written"] and official["last_written"].endswith("+08:00")
    agents = client.get("/v1/agents").json()
    assert agents[0]["last_activity"] == max(s["last_activity"] for s in scopes.values())
    reports = client.get("/v1/reports", params={"agent": AGENT}).json()
    assert {r["kind"] for r in reports} == {"summarize"}
    assert {"person:木木", "space:读书会"} <= {r["scope"] for r in reports}
    assert reports[0]["at"].endswith("+08:00") and reports[0]["counts"]
    blocks = client.get("/v1/core_blocks", params=P).json()
    assert [b["label"] for b in blocks["blocks"]] == ["human"] and "团子" in blocks["blocks"][0]["text"]


def test_jobs_answer_their_times_in_the_configured_zone(client: TestClient) -> None:
    # jobs went out as stored, zone-less UTC, so the console's jobs table stood eight hours behind the
    # reports beside it (README: every /v1 time carries its zone)
    jobs = client.get("/v1/jobs", params={"agent": AGENT}).json()
    assert jobs and all(job["created_at"].endswith("+08:00") for job in jobs)
    failed = next(job for job in jobs if job["state"] == "failed")
    retried = client.post(f"/v1/jobs/{failed['id']}/retry", params={"agent": AGENT}).json()
    assert retried["created_at"] == failed["created_at"]


def test_a_memory_is_not_linked_to_itself(client: TestClient) -> None:
    # the console's link form took a memory's own id and stored a link from it to itself
    memory = client.get("/v1/search", params={**P, "q": "耳机线", "kind": "fact"}).json()["items"][0]["id"]
    answer = client.post("/v1/links", json={**P, "source": memory, "target": memory, "kind": "related"})
    assert answer.status_code == 422 and "itself" in answer.json()["error"]["message"]
    assert client.get("/v1/links", params={"agent": AGENT, "ids": [memory]}).json() == []


def test_a_search_whose_range_ends_before_it_starts_is_refused(client: TestClient) -> None:
    # the console's from/to dates swapped answered "0 results", as if nothing happened in those days
    params = {**P, "since": "2024-09-26T00:00:00", "until": "2024-09-25T23:59:59"}
    answer = client.get("/v1/search", params=params)
    assert answer.status_code == 422 and "before" in answer.json()["error"]["message"]


def test_a_search_by_source_takes_the_whole_message_id(client: TestClient) -> None:
    # it matched any memory one of whose sources held the text: m1 found what m10 and xm1 made
    fact = client.get("/v1/search", params={**P, "q": "养了一只猫", "kind": "fact"}).json()["items"][0]
    source = fact["sources"][0]
    found = client.get("/v1/search", params={**P, "source": source, "limit": 500}).json()["items"]
    assert fact["id"] in {m["id"] for m in found} and all(source in m["sources"] for m in found)
    for part in (source[:-1], source[1:]):
        found = client.get("/v1/search", params={**P, "source": part, "limit": 500}).json()["items"]
        assert all(part in m["sources"] for m in found) and fact["id"] not in {m["id"] for m in found}


def test_head_is_answered_as_get_without_the_body(client: TestClient) -> None:
    # the routes answered HEAD with 405, where monitors and load balancers send it (helper)
    for path, params in (("/health", {}), ("/v1/search", P), ("/console", {})):
        got, head = client.get(path, params=params), client.head(path, params=params)
        assert head.status_code == got.status_code == 200 and head.content == b""
        assert head.headers["content-type"] == got.headers["content-type"]
        assert head.headers.get("cache-control") == got.headers.get("cache-control")
    assert client.head("/query_simple").status_code == 405  # a route that takes no GET takes no HEAD


def test_a_patch_refused_says_why_of_the_field_alone(client: TestClient) -> None:
    # an importance of 5 answered "Input should be None" too, under locs naming pydantic's union members
    fact = client.get("/v1/search", params={**P, "kind": "fact"}).json()["items"][0]
    for field, value, said in (("importance", 5, "less than or equal to 1"), ("text", "", "at least 1 character")):
        answer = client.patch(f"/v1/memories/{fact['id']}", json={"agent": AGENT, field: value})
        details = answer.json()["error"]["details"]
        assert answer.status_code == 422 and [d["loc"] for d in details] == [["body", field]]
        assert said in details[0]["msg"]
