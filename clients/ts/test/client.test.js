// The fetch client against a live huiyi serve: HUIYI_URL and HUIYI_KEY name it (tests/test_ts_client.py sets them).
import assert from "node:assert/strict";
import { test } from "node:test";

import { HuiyiClient, HuiyiError } from "../src/index.js";

const baseUrl = process.env.HUIYI_URL;
const apiKey = process.env.HUIYI_KEY;
const agent = "小助手";
const skip = baseUrl ? false : "HUIYI_URL is not set: no server to talk to";

test("messages in, recall and context out, times with their zone", { skip }, async () => {
  const memory = new HuiyiClient({ baseUrl, apiKey });
  assert.equal((await memory.health()).status, "ok");
  const added = await memory.add({
    agent,
    space: "koishi-群1",
    messages: [
      { text: "我下周三要考驾照，好紧张", speaker: "10001", id: "ts-1", time: "2024-05-01T20:00:00" },
      { text: "加油，你肯定行", speaker: "10002", id: "ts-2", time: "2024-05-01T20:01:00+08:00" },
    ],
  });
  assert.deepEqual(added.ids, ["ts-1", "ts-2"]);
  assert.match(added.messages[0].time, /\+08:00$/);
  const again = await memory.add({ agent, space: "koishi-群1", messages: [{ text: "我下周三要考驾照，好紧张", speaker: "10001", id: "ts-1" }] });
  assert.equal(again.skipped, 1);

  const found = await memory.recall({ agent, space: "koishi-群1", query: "谁要考驾照", limit: 3 });
  assert.ok(found.hits.length > 0);
  assert.match(found.hits[0].text, /考驾照/);
  const context = await memory.context({ agent, space: "koishi-群1", message: "考试是哪天？" });
  assert.match(context.text, /考驾照/);
  assert.equal(context.working.length, 2);

  const texts = await memory.querySimple({ agent, space: "koishi-群1", query: "考驾照" });
  assert.ok(texts.some((text) => text.includes("考驾照")));
  const seed = await memory.query({ agent, space: "koishi-群1", query: "考驾照" });
  assert.ok(Array.isArray(seed.memory_events));
});

test("memories, persons, feedback and erasure", { skip }, async () => {
  const memory = new HuiyiClient({ baseUrl, apiKey });
  const note = await memory.remember({ agent, text: "小助手的生日是三月七日", keywords: ["生日"], time: "2024-03-07T00:00:00" });
  assert.ok(note.created_at, "created_at is always set");
  assert.equal(note.time, "2024-03-07T00:00:00+08:00");
  assert.equal((await memory.get(note.id, agent)).text, note.text);
  const page = await memory.memories({ agent, limit: 10 });
  assert.ok(page.items.some((item) => item.id === note.id));
  assert.equal((await memory.feedback({ agent, memory_id: note.id, value: 1 })).feedback, 1);

  await memory.setPerson("10001", { agent, name: "小满", aliases: ["满满"], platform_ids: { qq: "10001" } });
  assert.deepEqual((await memory.getPerson("10001", agent)).platform_ids, { qq: "10001" });
  assert.equal(await memory.getPerson("nobody", agent), null);

  await memory.delete(note.id, agent);
  await assert.rejects(memory.get(note.id, agent), (error) => error instanceof HuiyiError && error.code === "not_found");
  const erased = await memory.forgetMessages({ agent, ids: ["ts-2"] });
  assert.equal(erased.messages, 1);
  assert.deepEqual(await memory.messages(["ts-2"], agent), []);
});

test("errors are typed: a missing key, a bad request", { skip }, async () => {
  const anonymous = new HuiyiClient({ baseUrl });
  await assert.rejects(anonymous.recall({ agent, query: "x" }), (error) => error.status === 401 && error.code === "unauthorized");
  const memory = new HuiyiClient({ baseUrl, apiKey });
  await assert.rejects(memory.recall({ agent, query: "" }), (error) => error.status === 422 && error.code === "invalid_input");
  const nowhere = new HuiyiClient({ baseUrl: "http://127.0.0.1:9", timeoutMs: 2000 });
  await assert.rejects(nowhere.health(), (error) => error.code === "unreachable");
});

test("iterMemories and iterJobs walk every page by cursor", { skip }, async () => {
  const memory = new HuiyiClient({ baseUrl, apiKey });
  const person = "翻页的人";
  const made = [];
  for (let day = 1; day <= 5; day += 1) {
    made.push((await memory.remember({ agent, person, text: `第${day}条设定`, time: `2024-06-0${day}T09:00:00` })).id);
  }
  const seen = [];
  for await (const item of memory.iterMemories({ agent, person }, 2)) {
    seen.push(item.id);
    if (seen.length === 1) await memory.delete(made[4], agent); // one read goes: by offset, the next page skipped one
  }
  assert.deepEqual(seen, [...made].reverse());
  for (const space of ["翻页群1", "翻页群2"]) {
    await memory.add({ agent, space, messages: [{ text: "这周末一起去爬山吧", speaker: "10003" }] });
    await memory.flush({ agent, space }); // each queues a fold job
  }
  const first = await memory.jobsPage({ agent, limit: 1 });
  assert.equal(first.items.length, 1);
  const jobs = [];
  for await (const job of memory.iterJobs({ agent }, 1)) jobs.push(job.id);
  assert.deepEqual(jobs, (await memory.jobs({ agent, limit: 1000 })).map((job) => job.id));
  assert.equal(jobs[0], first.items[0].id);
  assert.ok(jobs.length > 1 && first.nextCursor);
  await assert.rejects(memory.jobsPage({ agent, cursor: "bm90LW91cnM" }), (error) => error.status === 422);
});

test("a page's cursor is passed back as it came, and a page without one ends the walk", async () => {
  const asked = [];
  const pages = [
    { body: { items: [{ id: "m1" }, { id: "m2" }], next_cursor: "c 1/+" } },
    { body: { items: [{ id: "m3" }], next_cursor: null } },
    { body: [{ id: "j1" }], headers: { "Huiyi-Next-Cursor": "j+1" } },
    { body: [{ id: "j2" }] },
  ];
  const fetch = async (url) => {
    asked.push(new URL(url));
    const { body, headers } = pages.shift();
    return new Response(JSON.stringify(body), { status: 200, headers: { "content-type": "application/json", ...headers } });
  };
  const memory = new HuiyiClient({ baseUrl: "http://127.0.0.1:1", fetch });
  const items = [];
  for await (const item of memory.iterMemories({ agent, person: "木木" }, 2)) items.push(item.id);
  assert.deepEqual(items, ["m1", "m2", "m3"]);
  assert.deepEqual(asked.map((url) => url.searchParams.get("cursor")), [null, "c 1/+"]);
  assert.ok(asked.every((url) => url.pathname === "/v1/memories" && url.searchParams.get("limit") === "2"));
  const jobs = [];
  for await (const job of memory.iterJobs({ agent, state: ["failed"] }, 1)) jobs.push(job.id);
  assert.deepEqual(jobs, ["j1", "j2"]);
  assert.deepEqual(asked.slice(2).map((url) => url.searchParams.get("cursor")), [null, "j+1"]);
  assert.equal(asked[3].searchParams.get("state"), "failed");
});

test("reports, entities and a search, a page at a time by cursor", { skip }, async () => {
  const memory = new HuiyiClient({ baseUrl, apiKey });
  const person = "翻页的人2";
  const names = ["驾校", "科目二", "教练"];
  const made = [];
  for (const name of names) made.push((await memory.createEntity({ agent, person, name })).id);
  const first = await memory.entitiesPage({ agent, person, limit: 2 });
  assert.deepEqual(first.items.map((entity) => entity.id), made.slice(0, 2));
  assert.ok(first.nextCursor);
  const entities = [];
  for await (const entity of memory.iterEntities({ agent, person }, 1)) entities.push(entity.id);
  assert.deepEqual(entities, made);
  assert.deepEqual((await memory.entities({ agent, person })).map((entity) => entity.id), made);

  for (let day = 1; day <= 3; day += 1) {
    await memory.remember({ agent, person, text: `第${day}次练科目二`, time: `2024-07-0${day}T09:00:00` });
  }
  await memory.remember({ agent, person, text: "今天吃了面条", time: "2024-07-04T09:00:00" });
  const page = await memory.search({ agent, person, q: "科目二", limit: 2 });
  assert.equal(page.total, 3);
  assert.ok(page.next_cursor);
  const found = [];
  for await (const item of memory.iterSearch({ agent, person, q: "科目二" }, 2)) found.push(item.text);
  assert.deepEqual(found, ["第3次练科目二", "第2次练科目二", "第1次练科目二"]);

  for (let run = 0; run < 3; run += 1) await memory.consolidate({ agent, person, dry_run: true });
  const scope = `person:${person}`;
  const reports = [];
  for await (const report of memory.iterReports({ agent, scope }, 2)) reports.push(report.id);
  assert.equal(reports.length, 3);
  assert.deepEqual((await memory.reports({ agent, scope })).map((report) => report.id), reports);
  const last = await memory.reportsPage({ agent, scope, limit: 2 });
  assert.deepEqual(last.items.map((report) => report.id), reports.slice(0, 2));
  assert.ok(last.nextCursor);
});

test("corrections: a memory, the graph's entities and merges, a consolidation, a job retried", { skip }, async () => {
  const memory = new HuiyiClient({ baseUrl, apiKey });
  const person = "改正的人";
  const note = await memory.remember({ agent, person, text: "木木周三考驾照", time: "2024-05-08T09:00:00" });
  const fixed = await memory.update(note.id, { agent, text: "木木周四考驾照", keywords: ["驾照"] });
  assert.equal(fixed.text, "木木周四考驾照");
  assert.equal((await memory.get(note.id, agent)).text, "木木周四考驾照");

  const school = await memory.createEntity({ agent, person, name: "驾校", aliases: ["学车的地方"] });
  assert.equal((await memory.getEntity(school.id, agent)).name, "驾校");
  const renamed = await memory.updateEntity(school.id, { agent, name: "东方驾校" });
  assert.equal(renamed.name, "东方驾校");
  assert.deepEqual(renamed.aliases, ["学车的地方"]);
  assert.equal(await memory.deleteEntity(school.id, agent), 1);
  await assert.rejects(memory.getEntity(school.id, agent), (error) => error instanceof HuiyiError && error.code === "not_found");
  assert.deepEqual(await memory.merges(agent), []);
  await assert.rejects(memory.undoMerge("no-such-merge", agent), (error) => error.status === 404);

  const report = await memory.consolidate({ agent, person, dry_run: true });
  assert.equal(typeof report, "object");
  await memory.add({ agent, person, messages: [{ text: "明天记得带身份证", speaker: person }] });
  const [job] = await memory.flush({ agent, person, wait: false });
  await assert.rejects(memory.retryJob(job.id, agent), (error) => error.status === 404, "only a failed job is retried");
});
