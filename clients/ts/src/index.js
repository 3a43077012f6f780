// A thin fetch client for a huiyi (回忆) server: one method a route, no runtime dependencies.
// The types (index.d.ts) come from the server's OpenAPI schema (schema.d.ts, by openapi-typescript).

export class HuiyiError extends Error {
  /**
   * @param {number} status the HTTP status (0: the server could not be reached)
   * @param {string} code the server's stable error code (not_found, invalid_input, unauthorized, …)
   * @param {string} message
   * @param {unknown} [details]
   */
  constructor(status, code, message, details) {
    super(message);
    this.name = "HuiyiError";
    this.status = status;
    this.code = code;
    this.details = details;
  }
}

const MESSAGES_PAGE = 500; // the most ids GET /v1/messages takes at once

/** @param {Record<string, unknown>} values */
function defined(values) {
  return Object.fromEntries(Object.entries(values).filter(([, value]) => value !== undefined && value !== null));
}

/**
 * Every item of a listing, page after page: `read(cursor)` answers a page and the next one's cursor. A page
 * may be empty and still name a next (a search's scan that matched none); one naming itself ends the walk,
 * so a wrong server cannot keep it asking forever.
 * @template T
 * @param {(cursor: string | undefined) => Promise<{ items: T[], nextCursor?: string | null }>} read
 */
async function* walk(read) {
  let cursor;
  for (;;) {
    const page = await read(cursor);
    yield* page.items;
    if (!page.nextCursor || page.nextCursor === cursor) return;
    cursor = page.nextCursor;
  }
}

/** @param {unknown} baseUrl */
function checkedBaseUrl(baseUrl) {
  let url;
  try {
    url = new URL(String(baseUrl));
  } catch {
    url = undefined;
  }
  if (!url || !["http:", "https:"].includes(url.protocol) || !url.hostname) {
    throw new HuiyiError(0, "invalid_input", `baseUrl ${JSON.stringify(baseUrl)} is not an http(s) URL such as http://127.0.0.1:8765`);
  }
  return String(baseUrl).replace(/\/+$/, "");
}

/** @param {unknown} apiKey */
function checkedApiKey(apiKey) {
  // a header carries ASCII only, and the server reads one word after "Bearer"
  if (apiKey && !(typeof apiKey === "string" && /^[\x21-\x7e]+$/.test(apiKey))) {
    throw new HuiyiError(0, "invalid_input", "apiKey is one word of printable ASCII: a key of the server's http.api_keys");
  }
  return apiKey || undefined;
}

/** @param {unknown} timeoutMs */
function checkedTimeout(timeoutMs) {
  if (typeof timeoutMs !== "number" || !Number.isFinite(timeoutMs) || timeoutMs <= 0) {
    throw new HuiyiError(0, "invalid_input", `timeoutMs is a number of milliseconds above 0, not ${String(timeoutMs)}`);
  }
  return timeoutMs;
}

export class HuiyiClient {
  /**
   * @param {{ baseUrl?: string, apiKey?: string, fetch?: typeof fetch, timeoutMs?: number }} [options]
   */
  constructor(options = {}) {
    this.baseUrl = checkedBaseUrl(options.baseUrl ?? "http://127.0.0.1:8765");
    this.apiKey = checkedApiKey(options.apiKey);
    this.fetch = options.fetch ?? globalThis.fetch.bind(globalThis);
    this.timeoutMs = checkedTimeout(options.timeoutMs ?? 60000);
  }

  /**
   * @param {string} method
   * @param {string} path
   * @param {{ body?: unknown, query?: Record<string, unknown> }} [request]
   */
  async request(method, path, request = {}) {
    return (await this.exchange(method, path, request)).body;
  }

  /**
   * A route's answer with its response headers (a bare list names its next page in Huiyi-Next-Cursor).
   * timeoutMs bounds the whole call, the answer's body too: a server that stalls mid-answer is unreachable.
   * @param {string} method
   * @param {string} path
   * @param {{ body?: unknown, query?: Record<string, unknown> }} [request]
   */
  async exchange(method, path, request = {}) {
    const url = new URL(this.baseUrl + path);
    for (const [key, value] of Object.entries(defined(request.query ?? {}))) {
      for (const item of Array.isArray(value) ? value : [value]) url.searchParams.append(key, String(item));
    }
    /** @type {Record<string, string>} */
    const headers = { accept: "application/json" };
    if (this.apiKey) headers.authorization = `Bearer ${this.apiKey}`;
    if (request.body !== undefined) headers["content-type"] = "application/json";
    let response;
    let text;
    try {
      response = await this.fetch(url, {
        method,
        headers,
        body: request.body === undefined ? undefined : JSON.stringify(request.body),
        redirect: "manual", // a write sent elsewhere, or turned into a GET, must not pass as done
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      text = await response.text();
    } catch (error) {
      // fetch's own message is "fetch failed"; its cause says why (ECONNREFUSED, ENOTFOUND, …)
      const cause = error?.cause ? ` (${error.cause.code ?? error.cause.message ?? error.cause})` : "";
      const why = error?.name === "TimeoutError" ? `no whole answer within ${this.timeoutMs} ms` : `${error}${cause}`;
      throw new HuiyiError(0, "unreachable", `${method} ${url}: ${why}`);
    }
    const status = response.status;
    if (status >= 300 && status < 400) {
      const where = response.headers.get("location") ?? "";
      throw new HuiyiError(status, `http_${status}`, `${method} ${path}: the server redirects (${status}) to ${JSON.stringify(where)}`);
    }
    let body;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      if (response.ok) throw new HuiyiError(status, "bad_answer", `${method} ${path}: the server's answer (${status}) is not huiyi's: not JSON`);
    }
    if (!response.ok) {
      const info = body?.error ?? {};
      const message = info.message || text.slice(0, 500) || `the server answered ${status}`;
      throw new HuiyiError(status, info.code ?? `http_${status}`, message, info.details);
    }
    return { body, headers: response.headers };
  }

  health() {
    return this.request("GET", "/health");
  }

  add(body) {
    return this.request("POST", "/v1/messages", { body });
  }

  recall(body) {
    return this.request("POST", "/v1/recall", { body });
  }

  context(body) {
    return this.request("POST", "/v1/context", { body });
  }

  remember(body) {
    return this.request("POST", "/v1/memories", { body });
  }

  get(memoryId, agent) {
    return this.request("GET", `/v1/memories/${encodeURIComponent(memoryId)}`, { query: { agent } });
  }

  delete(memoryId, agent) {
    return this.request("DELETE", `/v1/memories/${encodeURIComponent(memoryId)}`, { query: { agent } });
  }

  memories(query) {
    return this.request("GET", "/v1/memories", { query });
  }

  /**
   * Every memory of one scope, newest first, a page at a time by cursor: memories written or forgotten
   * meanwhile make no page skip or repeat one.
   */
  iterMemories(query, perPage = 100) {
    return walk(async (cursor) => {
      const page = await this.memories({ ...query, offset: undefined, limit: perPage, cursor });
      return { items: page.items, nextCursor: page.next_cursor };
    });
  }

  /** A page of a scope's memories that hold every word of `q` and pass the filters, newest first, with its total. */
  search(query) {
    return this.request("GET", "/v1/search", { query });
  }

  /** Every memory a search matches, newest first, a page at a time by cursor. */
  iterSearch(query, perPage = 50) {
    return walk(async (cursor) => {
      const page = await this.search({ ...query, offset: undefined, limit: perPage, cursor });
      return { items: page.items, nextCursor: page.next_cursor };
    });
  }

  async jobs(query) {
    return (await this.jobsPage(query)).items;
  }

  /** One page of an agent's jobs, oldest first; nextCursor (from the Huiyi-Next-Cursor header) asks for the next. */
  jobsPage(query) {
    return this.listing("/v1/jobs", query);
  }

  /** Every job of an agent (of the states asked), oldest first, a page at a time by cursor. */
  iterJobs(query, perPage = 100) {
    return walk((cursor) => this.jobsPage({ ...query, limit: perPage, cursor }));
  }

  async reports(query) {
    return (await this.reportsPage(query)).items;
  }

  /** One page of the kept reports of consolidations and summaries, newest first, and the next page's cursor. */
  reportsPage(query) {
    return this.listing("/v1/reports", query);
  }

  /** Every kept report (of `scope`), newest first, a page at a time by cursor. */
  iterReports(query, perPage = 20) {
    return walk((cursor) => this.reportsPage({ ...query, limit: perPage, cursor }));
  }

  /** Every entity of one scope, in the order written (all at once: no limit, no cursor). */
  async entities(query) {
    return (await this.entitiesPage({ ...query, limit: undefined, cursor: undefined })).items;
  }

  /** One page of a scope's entities, in the order written, and the next page's cursor. */
  entitiesPage(query) {
    return this.listing("/v1/entities", query);
  }

  /** Every entity of one scope, in the order written, a page at a time by cursor. */
  iterEntities(query, perPage = 100) {
    return walk((cursor) => this.entitiesPage({ ...query, limit: perPage, cursor }));
  }

  /**
   * A listing answered as a bare list, and the next page's cursor its Huiyi-Next-Cursor header names.
   * @param {string} path
   * @param {Record<string, unknown>} query
   */
  async listing(path, query) {
    const { body, headers } = await this.exchange("GET", path, { query });
    return { items: body, nextCursor: headers.get("Huiyi-Next-Cursor") };
  }

  /** Stored messages by id (ids not stored are left out), asked MESSAGES_PAGE at a time: the server's most. */
  async messages(ids, agent) {
    const found = [];
    for (let start = 0; start < ids.length; start += MESSAGES_PAGE) {
      const id = ids.slice(start, start + MESSAGES_PAGE);
      found.push(...(await this.request("GET", "/v1/messages", { query: { agent, id } })));
    }
    return found;
  }

  setPerson(personId, body) {
    return this.request("PUT", `/v1/persons/${encodeURIComponent(personId)}`, { body });
  }

  async getPerson(personId, agent) {
    try {
      return await this.request("GET", `/v1/persons/${encodeURIComponent(personId)}`, { query: { agent } });
    } catch (error) {
      if (error instanceof HuiyiError && error.status === 404) return null;
      throw error;
    }
  }

  feedback(body) {
    return this.request("POST", "/v1/feedback", { body });
  }

  link(body) {
    return this.request("POST", "/v1/links", { body });
  }

  /** Correct a memory: text, time, place, keywords, insight, importance; a fact's valid_to. */
  update(memoryId, body) {
    return this.request("PATCH", `/v1/memories/${encodeURIComponent(memoryId)}`, { body });
  }

  getEntity(entityId, agent) {
    return this.request("GET", `/v1/entities/${encodeURIComponent(entityId)}`, { query: { agent } });
  }

  createEntity(body) {
    return this.request("POST", "/v1/entities", { body });
  }

  /** Correct an entity's name, type or aliases (aliases replaces the list). */
  updateEntity(entityId, body) {
    return this.request("PATCH", `/v1/entities/${encodeURIComponent(entityId)}`, { body });
  }

  /** Delete an entity with those merged into it; answers how many went. */
  async deleteEntity(entityId, agent) {
    const path = `/v1/entities/${encodeURIComponent(entityId)}`;
    return (await this.request("DELETE", path, { query: { agent } })).deleted;
  }

  merges(agent) {
    return this.request("GET", "/v1/merges", { query: { agent } });
  }

  undoMerge(mergeId, agent) {
    return this.request("POST", `/v1/merges/${encodeURIComponent(mergeId)}/undo`, { query: { agent } });
  }

  /** Consolidate one scope now (dry_run: only report what would change); the server's report. */
  consolidate(body) {
    return this.request("POST", "/v1/consolidate", { body });
  }

  /** Queue a failed job again; a job that has not failed is not_found. */
  retryJob(jobId, agent) {
    return this.request("POST", `/v1/jobs/${encodeURIComponent(jobId)}/retry`, { query: { agent } });
  }

  flush(body) {
    return this.request("POST", "/v1/flush", { body });
  }

  forgetPerson(personId, agent, purge) {
    return this.request("DELETE", `/v1/persons/${encodeURIComponent(personId)}`, { query: { agent, purge } });
  }

  forgetMessages(body) {
    return this.request("POST", "/v1/messages/forget", { body });
  }

  async coreBlocksFor(query) {
    const found = await this.request("GET", "/v1/core_blocks", { query });
    return found.blocks;
  }

  workingMemory(query) {
    return this.request("GET", "/v1/working_memory", { query });
  }

  overview(query) {
    return this.request("GET", "/v1/overview", { query });
  }

  /** seed 000's /query, kept for compatibility: events and entity facts in the seed's shape */
  query(body) {
    return this.request("POST", "/query", { body });
  }

  /** seed 000's /query_simple: the recalled texts only */
  querySimple(body) {
    return this.request("POST", "/query_simple", { body });
  }
}
