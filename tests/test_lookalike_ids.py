"""Ids that print alike are one id: invisible characters, spaces around an id and a form other than NFC
are refused by every face (Python, HTTP, the LLM tools, the proxy) and nothing is written; ids that differ
in what prints (case, width, script) are different people, and none of them sees another's memories."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

import pytest
from fastapi.testclient import TestClient

from conftest import STORE_FACTORIES
from huiyi.checks import check_id
from huiyi.config import Config, ProxyConfig
from huiyi.errors import InvalidInput
from huiyi.faces.http import create_app
from huiyi.faces.proxy import read_turn
from huiyi.faces.tools import ToolExecutor
from huiyi.memory import AsyncMemory, Memory
from huiyi.model import Scope
from huiyi.providers.embed import HashEmbedder

CONFIG = Config(worker={"enabled": False})
SECRET = "银行卡密码是八八六六"
# each prints as "bob" (or "bo" + b): only an invisible difference
HIDDEN = {
    "zero-width space": "bob\u200b",
    "zero-width non-joiner": "b\u200cob",
    "zero-width joiner": "bo\u200db",
    "byte order mark": "\ufeffbob",
    "word joiner": "bob\u2060",
    "right-to-left override": "\u202ebob",
    "C1 control (NEL)": "bob\x85",
    "line separator": "bob\u2028",
    "trailing space": "bob ",
    "leading space": " bob",
    "decomposed é (NFD)": "bobe\u0301",
}
# each prints differently from "bob": another person, compared exactly everywhere
VISIBLE = {"case": "Bob", "full width": "ｂｏｂ", "Cyrillic о": "bоb", "NFC é": "bob\u00e9"}


@pytest.fixture(params=sorted(STORE_FACTORIES))
def memory(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Memory]:
    store = STORE_FACTORIES[request.param](tmp_path / "store")
    with Memory(tmp_path, store=store, embedder=HashEmbedder(16), config=CONFIG) as memory:
        yield memory


@pytest.mark.parametrize("hidden", HIDDEN.values(), ids=HIDDEN.keys())
def test_an_id_with_an_invisible_difference_is_refused_by_python(memory: Memory, hidden: str) -> None:
    memory.add([SECRET], agent="A", person="bob")
    for call in (
        lambda: memory.add(["你好"], agent="A", person=hidden),
        lambda: memory.add(["你好"], agent="A", space=hidden),
        lambda: memory.add([{"text": "你好", "speaker": hidden}], agent="A", space="g"),
        lambda: memory.add(["你好"], agent=hidden, person="bob"),
        lambda: memory.recall("密码", agent="A", person=hidden),
        lambda: memory.context(agent="A", person=hidden, message="密码"),
        lambda: memory.working_memory(agent="A", person=hidden),
        lambda: memory.remember("x", agent="A", person=hidden),
    ):
        with pytest.raises(InvalidInput, match=r"invisible|space|NFC"):
            call()
    assert [s.scope for s in memory.scopes(agent="A")] == ["person:bob"]


@pytest.mark.parametrize("visible", VISIBLE.values(), ids=VISIBLE.keys())
def test_an_id_that_prints_otherwise_is_another_person_who_sees_nothing_of_bob(memory: Memory, visible: str) -> None:
    memory.add([SECRET], agent="A", person="bob", index=True)
    memory.add(["我喜欢猫"], agent="A", person=visible, index=True)
    assert all(SECRET not in hit.text for hit in memory.recall("银行卡密码", agent="A", person=visible).hits)
    assert SECRET not in memory.context(agent="A", person=visible, message="银行卡密码").text
    assert all(SECRET not in m.text for m in memory.working_memory(agent="A", person=visible))
    assert all(SECRET not in m.text for m in memory.memories(agent="A", person=visible))


def test_an_emoji_or_a_joined_script_keeps_its_joiner() -> None:
    for name in ("👨\u200d💻", "می\u200cخواهم", "🏴\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f"):
        assert check_id(name, "speaker") == name


def test_a_stored_id_from_before_the_rule_still_reads() -> None:
    assert Scope.from_tag("A", "person:bob ").key == "bob "


@pytest.mark.parametrize("hidden", HIDDEN.values(), ids=HIDDEN.keys())
def test_an_id_with_an_invisible_difference_is_refused_by_http(tmp_path: Path, hidden: str) -> None:
    memory = AsyncMemory(tmp_path, embedder=HashEmbedder(16), config=CONFIG)
    with TestClient(create_app(memory, close_on_shutdown=True), raise_server_exceptions=False) as client:
        said = {"agent": "A", "person": "bob", "messages": [{"text": SECRET}]}
        assert client.post("/v1/messages", json=said).is_success
        for method, path, kwargs in (
            ("POST", "/v1/messages", {"json": {**said, "person": hidden}}),
            ("POST", "/query", {"json": {"agent": "A", "person": hidden, "query": "密码"}}),
            ("POST", "/context", {"json": {"agent": "A", "person": hidden, "message": "密码"}}),
            ("PUT", f"/v1/persons/{quote(hidden)}", {"json": {"agent": "A", "name": "x"}}),
        ):
            response = client.request(method, path, **kwargs)
            assert response.status_code == 422, (path, response.text)
        assert [s["scope"] for s in client.get("/v1/scopes", params={"agent": "A"}).json()] == ["person:bob"]


@pytest.mark.parametrize("hidden", HIDDEN.values(), ids=HIDDEN.keys())
def test_an_id_with_an_invisible_difference_is_refused_by_the_tools(tmp_path: Path, hidden: str) -> None:
    memory = AsyncMemory(tmp_path, embedder=HashEmbedder(16), config=CONFIG)
    with pytest.raises(InvalidInput):
        ToolExecutor(memory, "A", person=hidden)


@pytest.mark.parametrize("header", ["bob%20", "%20bob", "bob%E2%80%8B", "%E2%80%AEbob"])
def test_the_proxy_refuses_an_encoded_invisible_difference_instead_of_stripping_it(header: str) -> None:
    body = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}
    assert read_turn(body, {"x-huiyi-person": " bob "}, ProxyConfig(agent="A")).person == "bob"  # header padding
    with pytest.raises(InvalidInput):
        read_turn(body, {"x-huiyi-person": header}, ProxyConfig(agent="A"))


def test_a_person_stored_before_the_rule_can_still_be_forgotten(
    memory: Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    with monkeypatch.context() as before_the_rule:
        before_the_rule.setattr("huiyi.checks._unseen", lambda value: False)
        memory.add([SECRET], agent="A", person="bob\u200b", index=True)
        memory.add([{"text": SECRET, "speaker": "bob\u200b"}], agent="A", space="g", index=True)
    assert memory.forget_person("bob\u200b", agent="A").messages == 2
    assert [m.text for m in memory.memories(agent="A")] == []


def test_a_person_stored_before_the_rule_can_still_be_forgotten_over_http(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    memory = AsyncMemory(tmp_path, embedder=HashEmbedder(16), config=CONFIG)
    with TestClient(create_app(memory, close_on_shutdown=True), raise_server_exceptions=False) as client:
        with monkeypatch.context() as before_the_rule:
            before_the_rule.setattr("huiyi.checks._unseen", lambda value: False)
            said = {"agent": "A", "person": "bob\u200b", "messages": [{"text": SECRET}]}
            assert client.post("/v1/messages", json=said).is_success
        erased = client.delete("/v1/persons/" + quote("bob\u200b"), params={"agent": "A"})
        assert erased.status_code == 200, erased.text
        assert erased.json()["messages"] == 1


PADDED = {"trailing space": "bob ", "leading space": " bob", "ideographic space": "bob\u3000"}


@pytest.mark.parametrize("padded", PADDED.values(), ids=PADDED.keys())
def test_a_group_speaker_with_spaces_around_is_refused_so_erasing_bob_leaves_none_of_his_lines(
    tmp_path: Path, padded: str
) -> None:
    """A speaker is the member's id: ``bob `` was stored as a speaker of its own, whose facts recall and the
    rules filed under bob while forgetting bob left its lines (a password among them) in the store."""
    with Memory(tmp_path, embedder=HashEmbedder(16), config=CONFIG) as memory:
        memory.add([{"speaker": "bob", "text": "我喜欢猫"}], agent="A", space="g")
        lines = [{"speaker": "阿杰", "text": "哈哈"}, {"speaker": padded, "text": SECRET}]
        with pytest.raises(InvalidInput, match="space"):
            memory.add(lines, agent="A", space="g")
        assert [m.speaker for m in memory.working_memory(agent="A", space="g")] == ["bob"]  # nothing of the call
        memory.forget_person("bob", agent="A")
        assert memory.working_memory(agent="A", space="g") == []
    app = create_app(AsyncMemory(tmp_path / "http", embedder=HashEmbedder(16), config=CONFIG), close_on_shutdown=True)
    with TestClient(app, raise_server_exceptions=False) as client:
        said = {"agent": "A", "space": "g", "messages": [{"speaker": padded, "text": SECRET}]}
        assert client.post("/v1/messages", json=said).status_code == 422
        assert client.get("/v1/scopes", params={"agent": "A"}).json() == []
    # the proxy refuses it before the model is called, as it refuses a padded X-Huiyi-Speaker
    body = {
        "model": "m",
        "messages": [{"role": "user", "content": "hi", "name": padded}, {"role": "user", "content": "x"}],
    }
    with pytest.raises(InvalidInput, match="space"):
        read_turn(body, {"x-huiyi-space": "g", "x-huiyi-person": "bob"}, ProxyConfig(agent="A"))
