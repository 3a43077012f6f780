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
