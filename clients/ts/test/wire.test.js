// What the client does with answers that are not huiyi's, a server that stalls or redirects, and bad options.
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { test } from "node:test";

import { HuiyiClient, HuiyiError } from "../src/index.js";

const agent = "小助手";

/** A server on 127.0.0.1 that answers every request with `answer(request, response)`; stopped after `use`. */
async function serving(answer, use) {
  const server = createServer(answer);
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  try {
    return await use(`http://127.0.0.1:${server.address().port}`);
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
}

function answering(status, text, headers = {}) {
  const fetch = async () => new Response(text, { status, headers });
  return new HuiyiClient({ baseUrl: "http://127.0.0.1:1", fetch });
}

test("a proxy's error page is a HuiyiError with its status, not a JSON parse error", async () => {
  const memory = answering(502, "<html><body>502 Bad Gateway</body></html>", { "content-type": "text/html" });
  await assert.rejects(memory.health(), (error) => {
    assert.ok(error instanceof HuiyiError);
    assert.equal(error.status, 502);
    assert.equal(error.code, "http_502");
    assert.match(error.message, /502 Bad Gateway/);
    return true;
  });
});

test("a 200 that is not JSON is a bad_answer, not taken for a result", async () => {
  const memory = answering(200, "<html>captive portal</html>", { "content-type": "text/html" });
  await assert.rejects(memory.recall({ agent, query: "考驾照" }), (error) => {
    assert.ok(error instanceof HuiyiError);
    assert.equal(error.code, "bad_answer");
    assert.equal(error.status, 200);
    assert.match(error.message, /POST .*\/v1\/recall/);
    return true;
  });
});

test("the server's error message comes through, and an error body without one names the status", async () => {
  const body = JSON.stringify({ error: { code: "invalid_input", message: "query is empty", details: [{ loc: ["query"] }] } });
  await assert.rejects(answering(422, body).recall({ agent, query: "" }), (error) => {
    assert.deepEqual([error.status, error.code, error.message], [422, "invalid_input", "query is empty"]);
    assert.deepEqual(error.details, [{ loc: ["query"] }]);
    return true;
  });
  await assert.rejects(answering(500, "").health(), (error) => error.code === "http_500" && /500/.test(error.message));
});

test("a server that sends its headers and then stalls is unreachable after timeoutMs, as a HuiyiError", async () => {
  const stall = (request, response) => {
    response.writeHead(200, { "content-type": "application/json" });
    response.write('{"status": "o');
  };
  await serving(stall, async (baseUrl) => {
    const memory = new HuiyiClient({ baseUrl, timeoutMs: 200 });
    await assert.rejects(memory.health(), (error) => error instanceof HuiyiError && error.code === "unreachable" && error.status === 0);
  });
});

test("an unreachable server's error says why, not only that fetch failed", async () => {
  const closed = await serving(() => {}, async (baseUrl) => baseUrl); // a port no one listens on any more
  await assert.rejects(new HuiyiClient({ baseUrl: closed }).health(), (error) => {
    assert.ok(error instanceof HuiyiError);
    assert.deepEqual([error.status, error.code], [0, "unreachable"]);
    assert.match(error.message, /ECONNREFUSED/);
    return true;
  });
});

test("a redirect is refused: a write sent elsewhere, or turned into a GET, must not pass as done", async () => {
  const redirect = (request, response) => {
    if (request.url === "/v1/messages") {
      response.writeHead(302, { location: "/health" }).end();
    } else {
      response.writeHead(200, { "content-type": "application/json" }).end('{"status": "ok"}');
    }
  };
  await serving(redirect, async (baseUrl) => {
    const memory = new HuiyiClient({ baseUrl });
    await assert.rejects(memory.add({ agent, messages: [{ text: "在吗" }] }), (error) => {
      assert.ok(error instanceof HuiyiError);
      assert.equal(error.status, 302);
      assert.equal(error.code, "http_302");
      assert.match(error.message, /redirects .*\/health/);
      return true;
    });
  });
});

test("bad options are refused when the client is made, not reported later as an unreachable server", () => {
  const refused = (options, why) =>
    assert.throws(() => new HuiyiClient(options), (error) => error instanceof HuiyiError && error.code === "invalid_input" && why.test(error.message));
  refused({ apiKey: "密钥" }, /apiKey/);
  refused({ apiKey: "two words" }, /apiKey/);
  refused({ baseUrl: "127.0.0.1:8765" }, /baseUrl/);
  refused({ baseUrl: "ftp://127.0.0.1" }, /baseUrl/);
  refused({ timeoutMs: 0 }, /timeoutMs/);
  refused({ timeoutMs: Number.NaN }, /timeoutMs/);
  assert.equal(new HuiyiClient({ baseUrl: "http://127.0.0.1:8765/" }).baseUrl, "http://127.0.0.1:8765");
});
