// The huiyi console: a face over the HTTP API, holding no logic of its own. Every view reads and
// writes through the same routes any client uses, with the API key kept in this browser only.
"use strict";
const $ = (sel, root = document) => root.querySelector(sel);
const $$ = (sel, root = document) => Array.from(root.querySelectorAll(sel));
const esc = (v) => String(v ?? "").replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
// user text in its own isolated element: a direction control in it (U+202E) turns nothing around it
const bdi = (v) => `<bdi>${esc(v)}</bdi>`;
const S = { lang: localStorage.getItem("huiyi-lang") || null, agent: "", scope: "official", scopes: [], info: null, tab: "scopes", selected: null, debugA: null };
const t = (key) => (I18N[S.lang || "zh"] || I18N.zh)[key] || key;
const fmt = (d) => (d ? String(d).replace("T", " ").slice(0, 16) : "");
const num = (v, n = 3) => (typeof v === "number" ? v.toFixed(n) : esc(v));

// an event handler whose failure is shown in the status line (api() already put the server's message there)
const safely = (fn) => (...args) => Promise.resolve().then(() => fn(...args)).catch((e) => status(e.message, true));

function status(text, error = false) {
  const box = $("#status");
  box.textContent = text || "";
  box.className = error ? "error" : "";
}

// a route's answer and the header naming its next page (listings answered as bare lists: jobs)
async function apiPage(method, path, body) {
  const headers = { "Content-Type": "application/json" };
  const key = localStorage.getItem("huiyi-key");
  if (key) headers.Authorization = "Bearer " + key;
  const response = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  if (response.status === 401) {
    $("#keydialog").showModal();
    throw new Error(t("keyPrompt"));
  }
  if (response.status === 204) return { data: null, next: null };
  const data = await response.json();
  if (!response.ok) {
    const message = (data.error && data.error.message) || response.statusText;
    status(message, true);
    throw new Error(message);
  }
  return { data, next: response.headers.get("Huiyi-Next-Cursor") };
}
const api = async (method, path, body) => (await apiPage(method, path, body)).data;

// the chosen scope as query parameters / body fields
function scopeParams() {
  const [kind, ...rest] = S.scope.split(":");
  const key = rest.join(":");
  return kind === "person" ? { person: key } : kind === "space" ? { space: key } : {};
}
function qs(params) {
  const q = new URLSearchParams();
  Object.entries(params).forEach(([k, v]) => {
    if (Array.isArray(v)) v.forEach((x) => q.append(k, x));
    else if (v !== undefined && v !== null && v !== "") q.append(k, v);
  });
  return q.toString();
}
const withScope = (extra = {}) => qs({ agent: S.agent, ...scopeParams(), ...extra });
function scopeLabel(scope) {
  if (scope === "official") return t("official");
  const [kind, ...rest] = scope.split(":");
  return `${t(kind)} · ${rest.join(":")}`;
}

function applyLanguage() {
  document.documentElement.lang = S.lang === "en" ? "en" : "zh";
  $$("[data-i18n]").forEach((e) => { e.textContent = t(e.dataset.i18n); });
  $("#lang").textContent = S.lang === "en" ? "中文" : "EN";
}

// header -------------------------------------------------------------------------------------------
async function loadAgents() {
  const agents = await api("GET", "/v1/agents");
  const select = $("#agent");
  select.innerHTML = agents.map((a) => `<option value="${esc(a.agent)}">${esc(a.agent)}</option>`).join("");
  S.agents = agents;
  const wanted = new URLSearchParams(location.hash.slice(1)).get("agent");
  S.agent = (wanted && agents.some((a) => a.agent === wanted) && wanted) || (agents[0] && agents[0].agent) || "";
  select.value = S.agent;
  await loadScopes();
}
async function loadScopes() {
  S.scopes = S.agent ? await api("GET", "/v1/scopes?" + qs({ agent: S.agent })) : [];
  scopeOptions();
}
// the scope picker, labelled in the chosen language
function scopeOptions() {
  const options = S.scopes.some((s) => s.scope === "official") ? S.scopes : [{ scope: "official" }, ...S.scopes];
  $("#scope").innerHTML = options.map((s) => `<option value="${esc(s.scope)}">${esc(scopeLabel(s.scope))}</option>`).join("");
  if (!options.some((s) => s.scope === S.scope)) S.scope = "official";
  $("#scope").value = S.scope;
}

function show(tab) {
  S.tab = tab;
  $$("nav button").forEach((b) => b.classList.toggle("active", b.dataset.tab === tab));
  $$(".view").forEach((v) => v.classList.toggle("active", v.id === "view-" + tab));
  status("");
  VIEWS[tab]().catch((e) => status(e.message, true));
}

// scopes -------------------------------------------------------------------------------------------
async function viewScopes() {
  const box = $("#view-scopes");
  const agents = S.agents || [];
  const rows = S.scopes.map((s) => {
    const p = s.person;
    const ids = p ? Object.entries(p.platform_ids || {}).map(([k, v]) => `${bdi(k)}:${bdi(v)}`).join(" ") : "";
    const names = p ? [p.name, ...(p.aliases || [])].filter(Boolean).map(bdi).join(" / ") + (ids ? " · " + ids : "") : "";
    return `<tr class="clickable" data-scope="${esc(s.scope)}"><td>${bdi(scopeLabel(s.scope))}</td><td>${names}</td>
      <td class="num">${s.messages}</td><td class="num">${s.memories}</td><td class="hide-narrow">${esc(fmt(s.last_activity))}</td>
      <td><button data-open="${esc(s.scope)}">${t("open")}</button> <button data-working="${esc(s.scope)}">${t("working")}</button></td></tr>`;
  });
  box.innerHTML = `<div class="card"><h3>${t("agents")}</h3><div class="scroll"><table>
    <tr><th>${t("agent")}</th><th>${t("scopes")}</th><th>${t("messages")}</th><th>${t("memories")}</th><th>${t("lastActivity")}</th></tr>
    ${agents.map((a) => `<tr class="clickable ${a.agent === S.agent ? "selected" : ""}" data-agent="${esc(a.agent)}"><td>${bdi(a.agent)}</td><td class="num">${a.scopes}</td><td class="num">${a.messages}</td><td class="num">${a.memories}</td><td>${esc(fmt(a.last_activity))}</td></tr>`).join("")}
    </table></div></div>
    <div class="card"><h3>${t("scopes")} · ${bdi(S.agent)}</h3><div class="scroll"><table id="scopetable">
    <tr><th>${t("scope")}</th><th>${t("names")}</th><th>${t("messages")}</th><th>${t("memories")}</th><th class="hide-narrow">${t("lastActivity")}</th><th></th></tr>
    ${rows.join("") || `<tr><td colspan="6" class="muted">${t("nothing")}</td></tr>`}</table></div></div>
    <div class="card" id="workingbox" hidden></div>`;
  $$("[data-agent]", box).forEach((r) => r.addEventListener("click", async () => {
    S.agent = r.dataset.agent; $("#agent").value = S.agent; await loadScopes(); viewScopes();
  }));
  $$("[data-open]", box).forEach((b) => b.addEventListener("click", (ev) => {
    ev.stopPropagation(); S.scope = b.dataset.open; $("#scope").value = S.scope; show("memories");
  }));
  $$("[data-working]", box).forEach((b) => b.addEventListener("click", async (ev) => {
    ev.stopPropagation();
    const saved = S.scope; S.scope = b.dataset.working;
    const params = S.scope === "official" ? null : withScope();
    S.scope = saved;
    const wm = $("#workingbox");
    wm.hidden = false;
    if (!params) { wm.innerHTML = `<h3>${t("working")}</h3><p class="muted">${t("nothing")}</p>`; return; }
    const turns = await api("GET", "/v1/working?" + params);
    wm.innerHTML = `<h3>${t("working")} · ${bdi(scopeLabel(b.dataset.working))}</h3>${chat(turns, new Set())}`;
  }));
}

function chat(messages, sources) {
  if (!messages.length) return `<p class="muted">${t("nothing")}</p>`;
  return `<div class="chat">${messages.map((m) => `<div class="bubble ${esc(m.role)} ${sources.has(m.id) ? "source" : ""}">
    <div class="who">${bdi(m.speaker)} · ${esc(fmt(m.time))}</div>${bdi(m.text)}</div>`).join("")}</div>`;
}

// memories -----------------------------------------------------------------------------------------
const KINDS = ["chunk", "event", "fact", "summary", "note"];
async function viewMemories() {
  const box = $("#view-memories");
  if (!$("#memfilters", box)) {
    box.innerHTML = `<form class="card row" id="memfilters">
      <label>${t("words")}<input name="q" id="memq" type="search"></label>
      <label>${t("kind")}<select name="kind"><option value="">${t("all")}</option>${KINDS.map((k) => `<option>${k}</option>`).join("")}</select></label>
      <label>${t("since")}<input name="since" type="date"></label><label>${t("until")}<input name="until" type="date"></label>
      <label>${t("validity")}<select name="valid"><option value="">${t("all")}</option><option value="true">${t("valid")}</option><option value="false">${t("closed")}</option></select></label>
      <label>${t("minStrength")}<input name="min_strength" type="number" step="0.1" style="width:6rem"></label>
      <label>${t("source")}<input name="source" style="width:9rem"></label>
      <button class="primary" type="submit">${t("search")}</button>
      <button type="button" id="newmem">${t("newMemory")}</button></form>
      <div class="split"><div class="card"><div id="memcount" class="muted small"></div><div class="scroll"><table id="memtable"></table></div><p><button type="button" id="memmore" hidden>${t("more")}</button></p></div>
      <div class="card" id="memdetail"><p class="muted">${t("select")}</p></div></div>`;
    $("#memfilters").addEventListener("submit", (ev) => { ev.preventDefault(); listMemories(); });
    $("#newmem").addEventListener("click", newMemoryForm);
  }
  await listMemories();
}

// a search a page at a time: "more" follows the page's cursor with the filters it was made under
async function listMemories(more) {
  if (!more) {
    const form = new FormData($("#memfilters"));
    const params = {};
    for (const [k, v] of form.entries()) if (v !== "") params[k] = v;
    if (params.since) params.since += "T00:00:00";
    if (params.until) params.until += "T23:59:59";
    S.memSearch = { params, items: [] };
  }
  const search = S.memSearch;
  const found = await api("GET", "/v1/search?" + withScope({ ...search.params, limit: 200, ...(more ? { cursor: search.next } : {}) }));
  if (!more) $("#memcount").innerHTML = `${bdi(scopeLabel(S.scope))} · ${found.total} ${t("results")}`;
  search.items = search.items.concat(found.items);
  search.next = found.next_cursor;
  $("#memmore").hidden = !found.next_cursor;
  $("#memmore").onclick = () => listMemories(true);
  $("#memtable").innerHTML = `<tr><th>${t("time")}</th><th>${t("kind")}</th><th>${t("text")}</th><th class="hide-narrow">${t("importance")}</th><th class="hide-narrow">${t("strength")}</th></tr>` +
    search.items.map((m) => `<tr class="clickable" data-id="${esc(m.id)}"><td class="small">${esc(fmt(m.time))}</td>
      <td><span class="tag">${esc(m.kind)}</span>${m.valid_to ? `<span class="tag closed">${t("closed")}</span>` : ""}</td>
      <td>${esc(m.text)}</td><td class="num hide-narrow">${num(m.importance, 2)}</td><td class="num hide-narrow">${num(m.strength, 2)}</td></tr>`).join("");
  $$("#memtable tr[data-id]").forEach((r) => r.addEventListener("click", () => {
    $$("#memtable tr").forEach((o) => o.classList.remove("selected")); r.classList.add("selected");
    memoryDetail(search.items.find((m) => m.id === r.dataset.id));
  }));
}

function memoryForm(m) {
  const local = m && m.time ? String(m.time).slice(0, 16) : "";
  return `<form id="memform"><div class="row">
    <label style="flex:1 1 100%">${t("text")}<textarea name="text" required>${esc(m ? m.text : "")}</textarea></label>
    <label>${t("time")}<input name="time" type="datetime-local" value="${esc(local)}"></label>
    ${m ? `<label>${t("place")}<input name="place" value="${esc(m.place)}"></label>` : `<label>${t("kind")}<select name="kind">${["note", "event", "fact"].map((k) => `<option>${k}</option>`).join("")}</select></label>`}
    <label>${t("importance")}<input name="importance" type="number" min="0" max="1" step="any" required value="${m ? m.importance : 0.5}" style="width:6rem"></label>
    <label style="flex:1 1 100%">${t("keywords")}<input name="keywords" value="${esc(m ? m.keywords.join(", ") : "")}"></label>
    ${m ? `<label style="flex:1 1 100%">${t("insight")}<input name="insight" value="${esc(m.insight)}"></label>` : ""}
    ${m && m.kind === "fact" ? `<label>${t("validTo")}<input name="valid_to" type="datetime-local" value="${esc(m.valid_to ? String(m.valid_to).slice(0, 16) : "")}"></label>` : ""}
    </div><p><button class="primary" type="submit">${m ? t("saveChanges") : t("create")}</button>
    ${m ? `<button type="button" class="danger" id="memdelete">${t("delete")}</button>` : ""}</p></form>`;
}
function formFields(form) {
  const data = Object.fromEntries(new FormData(form).entries());
  const out = { text: data.text, importance: Number(data.importance), keywords: (data.keywords || "").split(/[,，]/).map((s) => s.trim()).filter(Boolean) };
  out.time = data.time ? data.time + ":00" : null;
  if ("place" in data) out.place = data.place;
  if ("insight" in data) out.insight = data.insight;
  if ("kind" in data) out.kind = data.kind;
  if ("valid_to" in data) out.valid_to = data.valid_to ? data.valid_to + ":00" : null;
  return out;
}

// the names of the fields the operator changed: an edit sends no other, so what the form cannot show as
// stored (a time's seconds and zone, a keyword holding a comma, an importance of 0.72) stays as it is
function edited(form) {
  const changed = (el) => (el.tagName === "SELECT" ? [...el.options].some((o) => o.selected !== o.defaultSelected) : el.value !== el.defaultValue);
  return new Set([...form.elements].filter((el) => el.name && changed(el)).map((el) => el.name));
}
function onlyEdited(form, fields) {
  const names = edited(form);
  return Object.fromEntries(Object.entries(fields).filter(([name]) => names.has(name)));
}

function newMemoryForm() {
  const box = $("#memdetail");
  box.innerHTML = `<h3>${t("newMemory")} · ${bdi(scopeLabel(S.scope))}</h3>${memoryForm(null)}`;
  $("#memform").addEventListener("submit", (ev) => ev.preventDefault());
  $("#memform").addEventListener("submit", safely(async (ev) => {
    const fields = formFields(ev.target);
    if (!fields.time) delete fields.time;
    const made = await api("POST", "/v1/memories", { agent: S.agent, ...scopeParams(), ...fields });
    await listMemories();
    await memoryDetail(made);
    status(t("created"));
  }));
}

async function memoryDetail(m) {
  S.selected = m;
  const box = $("#memdetail");
  const fact = m.kind === "fact" ? m.data : null;
  box.innerHTML = `<h3>${t("details")} <span class="tag">${esc(m.kind)}</span>${m.valid_to ? `<span class="tag closed">${t("closed")} ${esc(fmt(m.valid_to))}</span>` : ""}</h3>
    <p class="small muted">${bdi(m.id)} · ${t("strength")} ${num(m.strength, 2)} · ${t("accessCount")} ${m.access_count}</p>
    ${memoryForm(m)}
    ${fact ? `<h3>${t("facts")}</h3><p>${bdi(fact.subject)} —${bdi(fact.predicate)}→ ${bdi(fact.object)}</p>` : ""}
    <h3>${t("links")}</h3><div id="memlinks" class="small muted">${t("loading")}</div>
    <form id="linkform" class="row" style="margin-top:.25rem"><label style="flex:1">${t("linkTo")}<input name="target" required placeholder="mem_…"></label>
      <label>${t("kind")}<select name="kind">${["related", "cause", "reference"].map((k) => `<option>${k}</option>`).join("")}</select></label><button>${t("addLink")}</button></form>
    <h3>${t("provenance")}</h3><div id="memsources" class="small muted">${t("loading")}</div>`;
  box.scrollIntoView({ block: "nearest" });  // one column (a phone): the details sit below the list
  $("#memform").addEventListener("submit", (ev) => ev.preventDefault());
  $("#memform").addEventListener("submit", safely(async (ev) => {
    const fields = onlyEdited(ev.target, formFields(ev.target));
    if (!Object.keys(fields).length) { status(t("unchanged")); return; }
    const updated = await api("PATCH", "/v1/memories/" + encodeURIComponent(m.id), { agent: S.agent, ...fields });
    await listMemories();
    await memoryDetail(updated);
    status(t("saved"));
  }));
  $("#memdelete").addEventListener("click", safely(async () => {
    if (!confirm(t("confirmDelete"))) return;
    await api("DELETE", "/v1/memories/" + encodeURIComponent(m.id) + "?" + qs({ agent: S.agent }));
    status(t("deleted"));
    $("#memdetail").innerHTML = `<p class="muted">${t("select")}</p>`;
    await listMemories();
  }));
  $("#linkform").addEventListener("submit", (ev) => ev.preventDefault());
  $("#linkform").addEventListener("submit", safely(async (ev) => {
    const data = Object.fromEntries(new FormData(ev.target).entries());
    await api("POST", "/v1/links", { agent: S.agent, ...scopeParams(), source: m.id, target: data.target.trim(), kind: data.kind });
    await memoryDetail(m);
    status(t("saved"));
  }));
  const links = await api("GET", "/v1/links?" + qs({ agent: S.agent, ids: [m.id] }));
  const others = links.map((l) => (l.source === m.id ? l.target : l.source));
  const texts = new Map();  // not a plain object: a memory's id may be "__proto__"
  for (const id of others.slice(0, 20)) {
    try { texts.set(id, (await api("GET", `/v1/memories/${encodeURIComponent(id)}?` + qs({ agent: S.agent }))).text); } catch (e) { texts.set(id, id); }
  }
  $("#memlinks").innerHTML = links.length ? links.map((l) => `<div><span class="tag">${esc(l.kind)}</span>${l.source === m.id ? "→" : "←"} ${bdi(texts.get(l.source === m.id ? l.target : l.source) || "")}</div>`).join("") : t("none");
  const sources = m.sources.filter((s) => s.startsWith("msg") || true).slice(0, 5);
  if (!sources.length) { $("#memsources").textContent = t("noSources"); return; }
  const seen = new Map();
  for (const id of sources) {
    try {
      const around = await api("GET", `/v1/messages/${encodeURIComponent(id)}/chat?` + qs({ agent: S.agent, turns: 3 }));
      around.forEach((x) => seen.set(x.id, x));
    } catch (e) { /* an external id, not a stored message */ }
  }
  const messages = Array.from(seen.values()).sort((a, b) => (a.space === b.space ? a.seq - b.seq : a.space < b.space ? -1 : 1));
  $("#memsources").innerHTML = messages.length ? chat(messages, new Set(sources)) : sources.map(bdi).join(", ");
}

// recall debugger ----------------------------------------------------------------------------------
const WEIGHTS = ["dense_weight", "keyword_weight", "speaker_weight", "time_weight", "neighbour_weight", "entity_weight", "expand_weight", "tier_weight", "graph_weight"];
async function viewDebug() {
  const box = $("#view-debug");
  if ($("#debugform", box)) return;
  S.info = S.info || (await api("GET", "/v1/console"));
  const r = S.info.default_recipe;
  box.innerHTML = `<form class="card" id="debugform"><div class="row">
      <label style="flex:1 1 20rem">${t("message")}<input name="message" id="dbgmessage" required></label>
      <label style="flex:1 1 20rem">${t("lastReply")}<input name="last_reply"></label>
      <label>${t("askTime")}<input name="time" type="datetime-local"></label>
      <label>${t("recipe")}<select name="recipe"><option value="">(config)</option>${S.info.recipes.map((n) => `<option>${esc(n)}</option>`).join("")}</select></label>
      <label>${t("limit")}<input name="limit" type="number" min="1" max="100" value="8" style="width:5rem"></label></div>
      <h3 style="margin-top:.75rem">${t("weights")}</h3><div class="row">
      ${WEIGHTS.map((w) => `<label>${w.replace("_weight", "")}<input data-weight="${w}" type="number" step="0.05" min="0" value="${r[w]}" style="width:5.5rem"></label>`).join("")}
      <label style="flex:1 1 16rem">score_weights<input data-json="score_weights" value='${esc(JSON.stringify(r.score_weights))}'></label></div>
      <p><button class="primary" type="submit" id="runA">${t("run")} A</button> <button type="button" id="runB">${t("runB")}</button></p></form>
      <div class="cols"><div id="debugA"></div><div id="debugB"></div></div>`;
  const run = async (target, withWeights) => {
    const data = Object.fromEntries(new FormData($("#debugform")).entries());
    const body = { agent: S.agent, ...scopeParams(), message: data.message, last_reply: data.last_reply, limit: Number(data.limit) || undefined };
    const chat = Boolean(body.person || body.space); // the official scope is recalled alone: no chat, no context
    if (data.time) body.time = data.time + ":00";
    if (data.recipe) body.recipe = data.recipe;
    if (withWeights) {
      body.overrides = {};
      $$("[data-weight]").forEach((i) => { body.overrides[i.dataset.weight] = Number(i.value); });
      try { body.overrides.score_weights = JSON.parse($("[data-json]").value); } catch (e) { status("score_weights: " + e.message, true); return; }
    }
    status(t("loading"));
    const result = await api("POST", "/v1/debug/recall", body);
    status("");
    renderDebug($(target), result, withWeights ? "B" : "A", chat);
  };
  $("#debugform").addEventListener("submit", (ev) => { ev.preventDefault(); run("#debugA", false).catch((e) => status(e.message, true)); });
  $("#runB").addEventListener("click", () => run("#debugB", true).catch((e) => status(e.message, true)));
}

function renderDebug(box, d, name, chat) {
  const r = d.recall;
  const text = (id) => bdi((Object.hasOwn(d.texts, id) && d.texts[id]) || (r && (r.hits.find((h) => h.id === id) || {}).text) || id);
  if (!r) { box.innerHTML = `<div class="card"><h3>${name}</h3><pre>${esc(d.context)}</pre></div>`; return; }
  const cands = r.info.candidates || {};
  const bonuses = r.info.bonuses || {};
  box.innerHTML = `<div class="card debug-result" data-run="${name}"><h3>${name} · ${bdi(r.query)}</h3>
    <h3>${t("final")}</h3><div class="scroll"><table class="finalhits"><tr><th>${t("rank")}</th><th>${t("text")}</th><th>${t("score")}</th><th>${t("route")}</th></tr>
    ${r.hits.map((h, i) => `<tr><td>${i + 1}</td><td>${bdi(h.text)} ${h.valid_to ? `<span class="tag closed">${t("closed")}</span>` : ""}</td><td class="num">${num(h.score)}</td><td class="small">${Object.entries(h.route_scores).map(([k, v]) => `${esc(k)} ${num(v)}`).join("<br>")}</td></tr>`).join("")}</table></div>
    <h3>${t("timings")}</h3><p class="small">${Object.entries(r.timings_ms).map(([k, v]) => `<span class="tag">${esc(k)} ${num(v, 1)}</span>`).join(" ")}</p>
    <h3>${t("candidates")}</h3>${Object.entries(cands).map(([route, rows]) => `<details ${route === "dense" ? "open" : ""}><summary>${esc(route)} (${rows.length})</summary><table>${rows.slice(0, 15).map(([id, s], i) => `<tr><td>${i + 1}</td><td>${text(id)}</td><td class="num">${num(s)}</td></tr>`).join("")}</table></details>`).join("")}
    <h3>${t("fused")}</h3><div class="scroll"><table><tr><th>${t("rank")}</th><th>${t("text")}</th><th>${t("score")}</th><th>${t("raw")}</th></tr>
    ${(r.info.fused || []).slice(0, 15).map(([id, s, shares, raw], i) => `<tr><td>${i + 1}</td><td>${text(id)}</td><td class="num">${num(s)}</td><td class="small">${Object.entries(raw).map(([k, v]) => `${esc(k)} ${num(v)}`).join("<br>")}</td></tr>`).join("")}</table></div>
    <h3>${t("bonuses")}</h3>${Object.keys(bonuses).length ? `<table>${Object.entries(bonuses).map(([id, b]) => `<tr><td>${text(id)}</td><td class="small">${Object.entries(b).map(([k, v]) => `${esc(k)} +${num(v)}`).join(" ")}</td></tr>`).join("")}</table>` : `<p class="muted">${t("none")}</p>`}
    <h3>${t("context")}</h3>${chat ? `<pre class="rendered-context">${esc(d.context)}</pre>` : `<p class="muted no-chat">${t("noChat")}</p>`}</div>`;
}

// jobs and maintenance ----------------------------------------------------------------------------
async function viewJobs() {
  const box = $("#view-jobs");
  const scope = S.scopes.find((s) => s.scope === S.scope);
  const day = (scope && scope.last_activity ? String(scope.last_activity) : new Date().toISOString()).slice(0, 10);
  box.innerHTML = `<div class="card"><h3>${t("jobs")}</h3><div class="scroll"><table id="jobtable"><tr><th>${t("kind")}</th><th>${t("state")}</th><th>${t("attempts")}</th><th>${t("error")}</th><th class="hide-narrow">${t("time")}</th><th></th></tr>
    </table></div><p><button type="button" id="jobmore" hidden>${t("more")}</button></p></div>
    <div class="card"><h3>${t("maintenance")} · ${bdi(scopeLabel(S.scope))}</h3><div class="row">
      <button id="dryrun">${t("dryRun")}</button><button id="consolidate" class="primary">${t("consolidate")}</button>
      ${S.scope === "official" ? "" : `<label>${t("day")}<input type="date" id="sumday" value="${esc(day)}"></label><button id="summarize">${t("summarize")}</button>`}</div>
      <div id="report" style="margin-top:.75rem"></div></div>
    <div class="card"><h3>${t("lastReports")}</h3><div id="reportlist" class="small">${t("loading")}</div><p><button type="button" id="reportmore" hidden>${t("more")}</button></p></div>`;
  await listJobs();
  const run = (path, body) => safely(async () => {
    status(t("loading"));
    await api("POST", path, { agent: S.agent, ...scopeParams(), ...body() });
    const [latest] = await listReports();
    status("");
    $("#report").innerHTML = latest ? reportBody(latest, true) : "";
  });
  $("#dryrun").addEventListener("click", run("/v1/consolidate", () => ({ dry_run: true })));
  $("#consolidate").addEventListener("click", run("/v1/consolidate", () => ({ dry_run: false })));
  // summaries are a person's or a group's: the official scope has none to make
  if ($("#summarize")) $("#summarize").addEventListener("click", run("/v1/summarize", () => ({ day: $("#sumday").value })));
  await listReports();
}

// the agent's jobs, oldest first, a page at a time: "more" follows the cursor the last page named
async function listJobs(cursor) {
  const { data: jobs, next } = await apiPage("GET", "/v1/jobs?" + qs({ agent: S.agent, limit: 100, cursor }));
  const shown = jobs.filter((j) => j.state !== "done" || (j.kind !== "extract" && j.kind !== "index"));
  const table = $("#jobtable");
  if (!cursor) $$("tr[data-job], tr.nothing", table).forEach((row) => row.remove());
  table.insertAdjacentHTML("beforeend", shown.map((j) => `<tr data-job="${esc(j.id)}"><td>${esc(j.kind)}<div class="small muted">${bdi(j.id)}</div></td><td><span class="tag ${esc(j.state)}">${esc(j.state)}</span></td><td class="num">${j.attempts}</td>
      <td class="small">${bdi(j.last_error)}</td><td class="small hide-narrow">${esc(fmt(j.created_at))}</td><td>${j.state === "failed" ? `<button data-retry="${esc(j.id)}">${t("retry")}</button>` : ""}</td></tr>`).join(""));
  if (!$("tr[data-job]", table) && !next) table.insertAdjacentHTML("beforeend", `<tr class="nothing"><td colspan="6" class="muted">${t("nothing")}</td></tr>`);
  shown.forEach((j) => { const b = $(`[data-retry="${CSS.escape(j.id)}"]`, table); if (b) b.addEventListener("click", safely(async () => retryJob(b))); });
  $("#jobmore").hidden = !next;
  $("#jobmore").onclick = safely(() => listJobs(next));
}
async function retryJob(button) {
  const job = await api("POST", `/v1/jobs/${encodeURIComponent(button.dataset.retry)}/retry?` + qs({ agent: S.agent }));
  const row = button.closest("tr");
  $(".tag", row).className = `tag ${esc(job.state)}`;
  $(".tag", row).textContent = job.state;
  $("td.num", row).textContent = job.attempts;
  button.remove();
  status(t("retried"));
}

// the kept reports of consolidations, dry runs and summaries, newest first, a page at a time: "more"
// follows the cursor the last page named, so reports kept or erased meanwhile neither vanish nor show twice
async function listReports(cursor) {
  const { data: reports, next } = await apiPage("GET", "/v1/reports?" + qs({ agent: S.agent, limit: 20, cursor }));
  const shown = reports.map((r) => `<details class="report" data-report="${esc(r.id)}"><summary>${reportHead(r)}</summary>${reportBody(r, false)}</details>`).join("");
  if (cursor) $("#reportlist").insertAdjacentHTML("beforeend", shown);
  else $("#reportlist").innerHTML = shown || `<span class="muted">${t("nothing")}</span>`;
  $("#reportmore").hidden = !next;
  $("#reportmore").onclick = safely(() => listReports(next));
  return reports;
}
function reportHead(r) {
  const counts = Object.entries(r.counts).map(([k, v]) => `${esc(k)} ${v}`).join(" · ") || t("noChanges");
  return `<span class="tag ok">${esc(r.kind === "summarize" ? t("summaries") : t("consolidate"))}</span>${r.dry_run ? `<span class="tag pending">${t("dryRunTag")}</span>` : ""}<span class="tag">${bdi(scopeLabel(r.scope))}</span>${r.body && r.body.day ? `${bdi(r.body.day)} · ` : ""}${esc(fmt(r.at))} · ${counts}`;
}
function reportBody(r, head) {
  const b = r.body || {};
  const top = head ? `<h3 class="reporthead">${reportHead(r)}</h3>` : "";
  if (r.kind === "summarize") return top + (b.summaries || []).map((m) => `<div style="margin:.25rem 0"><span class="tag">${bdi((m.data || {}).summary_kind || m.kind)}</span><pre>${esc(m.text)}</pre></div>`).join("");
  const changes = b.changes || [];
  const value = (v) => (v === null || v === undefined ? "" : short(typeof v === "string" ? v : JSON.stringify(v), 60));
  return top + `<table>${changes.map((c) => `<tr><td><span class="tag">${esc(c.step)}</span>${c.kind !== c.step ? bdi(c.kind) : ""}</td><td class="small">${bdi(c.reason)}</td>
    <td class="small muted">${bdi(value(c.before))}${c.before !== undefined && c.after !== undefined ? " → " : ""}${bdi(value(c.after))}</td><td class="small muted hide-narrow">${(c.ids || []).map(bdi).join(" ")}</td></tr>`).join("")}</table>
    ${b.changes_cut ? `<p class="muted">… ${b.changes_cut} ${t("changes")}</p>` : ""}${(b.errors || []).length ? `<pre>${esc(b.errors.join("\n"))}</pre>` : ""}`;
}

// summaries ----------------------------------------------------------------------------------------
// the scope's summaries by day, newest first, a page at a time: "more" follows the page's cursor, and the
// days of every page read so far are drawn again (a day's summaries may straddle two pages)
async function viewSummaries(next, shown = []) {
  const box = $("#view-summaries");
  const found = await api("GET", "/v1/search?" + withScope({ kind: "summary", limit: 500, ...(next ? { cursor: next } : {}) }));
  const items = [...shown, ...found.items];
  const byDay = new Map();  // not a plain object: a period is the caller's text, and may be "constructor"
  items.forEach((m) => {
    const day = String((m.data || {}).period || fmt(m.time).slice(0, 10) || "—");
    byDay.set(day, [...(byDay.get(day) || []), m]);
  });
  const days = [...byDay.keys()].sort().reverse();
  const count = found.total > items.length ? ` · ${items.length} / ${found.total}` : "";
  box.innerHTML = `<div class="card"><h3>${t("summaries")} · ${bdi(scopeLabel(S.scope))}${count}</h3>${days.length ? "" : `<p class="muted">${t("nothing")}</p>`}</div>` +
    days.map((day) => `<div class="card"><h3>${bdi(day)}</h3>${byDay.get(day).map((m) => `<div style="margin-bottom:.5rem"><span class="tag">${bdi((m.data || {}).summary_kind || "summary")}</span>${(m.data || {}).person ? `<span class="tag">${bdi(m.data.person)}</span>` : ""}<pre>${esc(m.text)}</pre></div>`).join("")}</div>`).join("") +
    `<p><button type="button" id="summarymore" ${found.next_cursor ? "" : "hidden"}>${t("more")}</button></p>`;
  $("#summarymore").onclick = safely(() => viewSummaries(found.next_cursor, items));
}

// core blocks --------------------------------------------------------------------------------------
async function viewBlocks() {
  const box = $("#view-blocks");
  const person = scopeParams().person;
  const found = await api("GET", "/v1/core_blocks?" + qs({ agent: S.agent, person }));
  // a label this agent and person may write but that holds nothing yet is shown empty, ready for its first line
  const blocks = [...found.blocks, ...found.editable.filter((l) => !found.blocks.some((b) => b.label === l)).map((label) => ({ label, text: "" }))];
  box.innerHTML = blocks.map((b) => {
    const editable = found.editable.includes(b.label);
    return `<div class="card"><h3>${bdi(b.label)} <span class="tag ${editable ? "ok" : ""}">${editable ? t("editable") : t("readOnly")}</span></h3>${b.text ? `<pre>${esc(b.text)}</pre>` : `<p class="muted">${t("emptyBlock")}</p>`}
      ${editable ? `<form class="row blockedit" data-label="${esc(b.label)}" style="margin-top:.5rem"><label style="flex:1">${t("replaceOld")}<input name="old"></label><label style="flex:1">${t("newText")}<input name="new" required></label><button class="primary">${t("apply")}</button></form>` : ""}</div>`;
  }).join("") || `<div class="card muted">${t("nothing")}</div>`;
  $$(".blockedit", box).forEach((f) => f.addEventListener("submit", (ev) => ev.preventDefault()));
  $$(".blockedit", box).forEach((f) => f.addEventListener("submit", safely(async () => {
    const data = Object.fromEntries(new FormData(f).entries());
    await api("POST", `/v1/core_blocks/${encodeURIComponent(f.dataset.label)}`, { agent: S.agent, person, old: data.old, new: data.new });
    status(t("saved"));
    viewBlocks();
  })));
}

const VIEWS = { scopes: viewScopes, memories: viewMemories, graph: viewGraph, debug: viewDebug, jobs: viewJobs, summaries: viewSummaries, blocks: viewBlocks };

async function start() {
  $$("nav button").forEach((b) => b.addEventListener("click", () => show(b.dataset.tab)));
  $("#agent").addEventListener("change", async (e) => { S.agent = e.target.value; await loadScopes(); resetViews(); show(S.tab); });
  $("#scope").addEventListener("change", (e) => { S.scope = e.target.value; resetViews(); show(S.tab); });
  $("#lang").addEventListener("click", () => { S.lang = S.lang === "en" ? "zh" : "en"; localStorage.setItem("huiyi-lang", S.lang); applyLanguage(); scopeOptions(); resetViews(); show(S.tab); });
  $("#key").addEventListener("click", () => $("#keydialog").showModal());
  $("#keydialog").addEventListener("close", () => {
    const key = $("#keyinput").value.trim();
    if (key) { localStorage.setItem("huiyi-key", key); location.reload(); }
  });
  try {
    S.info = await api("GET", "/v1/console");
    S.lang = S.lang || S.info.language;
    applyLanguage();
    await loadAgents();
    const tab = new URLSearchParams(location.hash.slice(1)).get("tab");
    show(Object.hasOwn(VIEWS, tab) ? tab : "scopes");  // not VIEWS[tab]: #tab=constructor names Object
    document.body.dataset.ready = "1";
  } catch (e) {
    applyLanguage();
    status(e.message, true);
  }
}
function resetViews() { $$(".view").forEach((v) => { v.innerHTML = ""; }); }
start();
