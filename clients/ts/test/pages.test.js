// The cursor pages of reports, entities and a search, against a fetch that answers canned pages (no server).
import assert from "node:assert/strict";
import { test } from "node:test";

import { HuiyiClient } from "../src/index.js";

const agent = "小助手";

/** A client whose fetch answers `pages` in turn (body, and headers) and records each URL it was asked. */
function canned(pages) {
  const asked = [];
  const fetch = async (url) => {
    asked.push(new URL(url));
    const { body, headers } = pages.shift();
    return new Response(JSON.stringify(body), { status: 200, headers: { "content-type": "application/json", ...headers } });
  };
  return { memory: new HuiyiClient({ baseUrl: "http://127.0.0.1:1", fetch }), asked };
}

async function all(items) {
  const seen = [];
  for await (const item of items) seen.push(item.id);
  return seen;
}

test("reports: a page with the header's cursor, and a walk that passes it back", async () => {
  const { memory, asked } = canned([
    { body: [{ id: "r1" }], headers: { "Huiyi-Next-Cursor": "r/1" } },
    { body: [{ id: "r1" }], headers: { "Huiyi-Next-Cursor": "r/1" } },
    { body: [{ id: "r2" }] },
    { body: [{ id: "r3" }] },
  ]);
  assert.deepEqual(await memory.reportsPage({ agent, scope: "person:木木", limit: 1 }), { items: [{ id: "r1" }], nextCursor: "r/1" });
  assert.deepEqual(await all(memory.iterReports({ agent, scope: "person:木木" }, 1)), ["r1", "r2"]);
  assert.deepEqual(await memory.reports({ agent }), [{ id: "r3" }]);
  assert.ok(asked.every((url) => url.pathname === "/v1/reports"));
  assert.deepEqual(asked.map((url) => url.searchParams.get("cursor")), [null, null, "r/1", null]);
  assert.equal(asked[2].searchParams.get("scope"), "person:木木");
  assert.equal(asked[2].searchParams.get("limit"), "1");
});

test("entities: every one at once, a page, and a walk by cursor", async () => {
  const { memory, asked } = canned([
    { body: [{ id: "e1" }, { id: "e2" }] },
    { body: [{ id: "e1" }], headers: { "Huiyi-Next-Cursor": "e1" } },
    { body: [{ id: "e1" }], headers: { "Huiyi-Next-Cursor": "e1" } },
    { body: [{ id: "e2" }] },
  ]);
  assert.deepEqual((await memory.entities({ agent, person: "木木" })).map((entity) => entity.id), ["e1", "e2"]);
  assert.equal(asked[0].searchParams.get("limit"), null, "a bare listing asks for every entity");
  const page = await memory.entitiesPage({ agent, person: "木木", merged: true, limit: 1 });
  assert.deepEqual(page, { items: [{ id: "e1" }], nextCursor: "e1" });
  assert.equal(asked[1].searchParams.get("merged"), "true");
  assert.deepEqual(await all(memory.iterEntities({ agent, person: "木木" }, 1)), ["e1", "e2"]);
  assert.deepEqual(asked.slice(2).map((url) => url.searchParams.get("cursor")), [null, "e1"]);
  assert.ok(asked.every((url) => url.pathname === "/v1/entities"));
});

test("a search: a page with its total and cursor; the walk goes on past a scan that matched none", async () => {
  const { memory, asked } = canned([
    { body: { items: [{ id: "m1" }], total: 2, next_cursor: "s1" } },
    { body: { items: [{ id: "m1" }], total: 1, next_cursor: "s1" } },
    { body: { items: [], total: 0, next_cursor: "s2" } }, // the 5000 after s1 held no match: go on after them
    { body: { items: [{ id: "m9" }], total: 1, next_cursor: null } },
  ]);
  const page = await memory.search({ agent, space: "群1", q: "考驾照", kind: ["event"], limit: 1 });
  assert.deepEqual(page.next_cursor, "s1");
  assert.deepEqual(await all(memory.iterSearch({ agent, space: "群1", q: "考驾照", kind: ["event"] }, 1)), ["m1", "m9"]);
  assert.ok(asked.every((url) => url.pathname === "/v1/search" && url.searchParams.get("q") === "考驾照"));
  assert.deepEqual(asked.slice(1).map((url) => url.searchParams.get("cursor")), [null, "s1", "s2"]);
  assert.deepEqual(asked[1].searchParams.getAll("kind"), ["event"]);
});

test("a walk ends when a page names itself again, rather than asking for it forever", async () => {
  const { memory, asked } = canned([
    { body: { items: [{ id: "m1" }], next_cursor: "same" } },
    { body: { items: [{ id: "m1" }], next_cursor: "same" } },
    { body: [{ id: "j1" }], headers: { "Huiyi-Next-Cursor": "j" } },
    { body: [{ id: "j1" }], headers: { "Huiyi-Next-Cursor": "j" } },
  ]);
  assert.deepEqual(await all(memory.iterMemories({ agent }, 1)), ["m1", "m1"]);
  assert.deepEqual(await all(memory.iterJobs({ agent }, 1)), ["j1", "j1"]);
  assert.equal(asked.length, 4);
});

test("messages by id: none asked asks nothing, many are asked 500 at a time", async () => {
  const ids = Array.from({ length: 1201 }, (_, i) => `m${i}`);
  const { memory, asked } = canned([
    { body: ids.slice(0, 500).map((id) => ({ id })) },
    { body: ids.slice(500, 1000).map((id) => ({ id })) },
    { body: ids.slice(1000).map((id) => ({ id })) },
  ]);
  assert.deepEqual(await memory.messages([], agent), []);
  assert.equal(asked.length, 0);
  assert.deepEqual((await memory.messages(ids, agent)).map((message) => message.id), ids);
  assert.deepEqual(asked.map((url) => url.searchParams.getAll("id").length), [500, 500, 201]);
});
