"""What hostile chat members wrote, as the operator reads it in the console (headless Chromium): markup,
script, SVG, styles, ``</textarea>``, template literals and RTL overrides in every field a chat can fill
stay text in every view, and names that are also JavaScript's own (constructor, __proto__) are drawn."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date, datetime
from pathlib import Path
from typing import Any

import pytest

from huiyi.config import Config
from huiyi.faces.http import create_app
from huiyi.memory import AsyncMemory, Memory
from huiyi.model import Entity, EntityType, LinkKind, MemoryKind, Person, Scope, ScopeKind
from test_console_browser import ARGS, CHROMIUM, expect, playwright_api, pytestmark, running  # noqa: F401

AGENT = "A<img src=x onerror=window.__ran='agent'>"
PERSON = "P<img src=x onerror=window.__ran='person'>"
SPACE = "S<svg onload=window.__ran='space'>:x"
JS_NAMES = ["constructor", "__proto__", "toString"]  # entities, and a fact's literal object below
# what each rendered page must not hold: script that ran, a CSP refusal, or markup that came from the data
INJECTED = """() => {
  const found = [];
  if (window.__ran) found.push('ran ' + window.__ran);
  if (window.__refused) found.push('CSP refused ' + window.__refused.join(' | '));
  for (const el of document.querySelectorAll('*')) {
    for (const a of el.attributes) if (a.name.startsWith('on')) found.push(el.tagName + ' ' + a.name);
    if (['IMG', 'STYLE', 'IFRAME', 'OBJECT'].includes(el.tagName)) found.push(el.tagName);
    if (el.tagName === 'SCRIPT' && !el.src) found.push('inline SCRIPT');
    if ((el.getAttribute('href') || '').startsWith('javascript')) found.push('javascript: link');
  }
  return found;
}"""


def hostile(tag: str, short: bool = False) -> str:
    """Markup in every form a chat member could send; ``short`` fits an id or a name (200 characters)."""
    text = f"{tag}<img src=x onerror=window.__ran='{tag}'></textarea><svg onload=window.__ran='{tag}'>${{1}}\u202e"
    if short:
        return text
    return (
        f"{text}\"'</pre></title><script>window.__ran='{tag}'</script>`${{window.__ran='{tag}'}}`"
        f"<a href=\"javascript:window.__ran='{tag}'\">x</a><style>*{{display:none}}</style>"
        f"<iframe srcdoc=\"<script>parent.__ran='{tag}'</script>\"></iframe>"
    )


def _seed(directory: Path, config: Config) -> None:
    with Memory(directory, config=config) as memory:
        said = memory.add(
            [
                {"speaker": hostile("speaker", True), "text": hostile("message"), "time": "2024-09-28T20:00:00"},
                {"speaker": PERSON, "text": hostile("message2") + " 团子", "time": "2024-09-28T20:01:00"},
            ],
            agent=AGENT,
            person=PERSON,
        )
        memory.add(
            [{"speaker": "g", "text": hostile("group"), "time": "2024-09-28T20:00:00"}], agent=AGENT, space=SPACE
        )
        names = {hostile("pk", True): hostile("pv", True)}
        person = Person(id=PERSON, name=hostile("name", True), aliases=[hostile("alias", True)], platform_ids=names)
        memory.set_person(person, agent=AGENT)
        scope = Scope(agent=AGENT, kind=ScopeKind.PERSON, key=PERSON)
        owner = hostile("entity", True)
        for i, name in enumerate([owner, "团子", *JS_NAMES]):
            entity = Entity(id=f"ent{i}", scope=scope, name=name, type=EntityType.SPECIFIC, aliases=[f"{name}{i}"])
            memory.store.upsert_entity(entity, memory.embedder.embed_passages([name])[0])
        memory.store.merge_entities(AGENT, "ent1", "ent0", hostile("reason"), datetime(2024, 9, 26, 3, 0))
        objects = [hostile("object", True), *JS_NAMES, "hasOwnProperty"]
        for i, thing in enumerate(objects):
            data = {"subject": owner, "predicate": f"{hostile('predicate', True)}{i}", "object": thing, "keyword": "k"}
            when = datetime(2024, 9, 28)
            memory.remember(hostile(f"fact{i}"), agent=AGENT, person=PERSON, kind=MemoryKind.FACT, time=when, data=data)
        first = memory.remember(
            hostile("event") + " 团子", agent=AGENT, person=PERSON, kind=MemoryKind.EVENT, time=datetime(2024, 9, 28),
            keywords=[hostile("keyword", True)], place=hostile("place"), insight=hostile("insight"),
            sources=[said[0].id, hostile("source", True)],
        )  # fmt: skip
        second = memory.remember(hostile("event2"), agent=AGENT, person=PERSON, kind=MemoryKind.EVENT)
        memory.link(first.id, second.id, agent=AGENT, person=PERSON, kind=LinkKind.CAUSE)
        kinds = {"summary_kind": hostile("kind", True), "period": hostile("period", True)}
        memory.remember(hostile("summary"), agent=AGENT, person=PERSON, kind=MemoryKind.SUMMARY, data=kinds)
        memory.remember(hostile("official"), agent=AGENT)
        memory.summarize(date(2024, 9, 28), agent=AGENT, person=PERSON)
        memory.consolidate(agent=AGENT, person=PERSON, dry_run=True)
        memory.core_block_append("human", hostile("block"), agent=AGENT, person=PERSON)


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    directory = tmp_path_factory.mktemp("hostile")
    config = Config.load(None, worker={"enabled": False})
    _seed(directory, config)
    app = create_app(AsyncMemory(directory, config=config), close_on_shutdown=True)
    with running(app) as url, playwright_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        page = browser.new_page(viewport={"width": 1280, "height": 860})
        page.set_default_timeout(10_000)
        page.on("dialog", lambda dialog: dialog.dismiss())
        page.add_init_script(
            "document.addEventListener('securitypolicyviolation', (e) => "
            "(window.__refused = window.__refused || []).push(e.violatedDirective + ' ' + (e.sample || '')));"
        )
        page.goto(url + "/console")
        page.wait_for_selector("body[data-ready='1']")
        yield page
        browser.close()


def _view(page: Any, tab: str, scope: str) -> None:
    page.select_option("#scope", scope)
    page.click(f"nav button[data-tab={tab}]")
    page.wait_for_selector(f"#view-{tab} .card")


def test_hostile_text_stays_text_in_every_view(page: Any) -> None:
    scopes = ["official", f"person:{PERSON}", f"space:{SPACE}"]
    assert page.eval_on_selector_all("#scope option", "os => os.map(o => o.value)") == scopes
    for scope in scopes:
        _view(page, "scopes", scope)
        for button in page.query_selector_all("[data-working]"):
            button.click()
        _view(page, "memories", scope)
        for row in page.query_selector_all("#memtable tr[data-id]"):
            row.click()
            page.wait_for_selector("#memform")
        _view(page, "graph", scope)
        for node in range(page.locator("#graphbox .node").count()):
            page.locator("#graphbox .node").nth(node).dispatch_event("click")
        _view(page, "jobs", scope)
        page.locator("details.report").first.click()
        for tab in ("summaries", "blocks"):
            _view(page, tab, scope)
        assert page.evaluate(INJECTED) == [], scope
    _view(page, "debug", f"person:{PERSON}")
    page.fill("#dbgmessage", "团子 " + hostile("query"))
    page.click("#runA")
    page.click("#runB")
    expect(page.locator("#debugB .debug-result")).to_have_count(1)
    expect(page.locator("#debugA .debug-result")).to_contain_text("团子")
    assert page.evaluate(INJECTED) == []
    expect(page.locator("#debugA .finalhits")).to_contain_text("<img src=x")  # shown, as text


def test_the_graph_draws_names_that_are_also_javascripts_own(page: Any) -> None:
    # names were keys of a plain object: an entity "__proto__" could not be set in it, and an object named
    # like one of Object's methods (hasOwnProperty) found that method, so their facts were never drawn
    _view(page, "graph", f"person:{PERSON}")
    labels = page.locator("#graphbox .edge text").all_text_contents()
    assert sorted(int(label[-1]) for label in labels if label.startswith("predicate")) == list(range(5))
    nodes = page.locator("#graphbox .node text").all_text_contents()
    assert {*JS_NAMES, "hasOwnProperty"} <= set(nodes)
