// The graph tab: a scope's entities, facts (closed ones struck through), its memories and their links,
// drawn by graph.js; a node opens its facts and memories, and entities and facts are edited here by hand
// through the same HTTP API as any client (/v1/entities, /v1/memories, /v1/merges).
"use strict";
const TYPE_COLORS = { "主体": "#b5472b", "客体": "#2f7d4a", "具体实体": "#3a6ea5", "泛化实体": "#8a6bb0", literal: "#9aa5b1", memory: "#c9a227" };
const ENTITY_TYPES = ["主体", "客体", "具体实体", "泛化实体"];
const MEMORY_NODES = 60;  // events drawn at most (linked ones first), so a big scope stays readable
const short = (text, n = 14) => (text.length > n ? text.slice(0, n) + "…" : text);

async function viewGraph(selected) {
  const box = $("#view-graph");
  const g = await api("GET", "/v1/graph?" + withScope());
  S.graph = g;
  const hidden = S.hiddenTypes || (S.hiddenTypes = new Set());
  box.innerHTML = `<div class="card row"><span>${t("entityTypes")}:</span>${Object.keys(TYPE_COLORS).map((ty) => `<label style="flex-direction:row;gap:.25rem"><input type="checkbox" data-type="${esc(ty)}" ${hidden.has(ty) ? "" : "checked"}><span style="color:${TYPE_COLORS[ty]}">●</span> ${esc(ty === "memory" ? t("memoryNodes") : ty)}</label>`).join("")}
      <span class="grow"></span><button id="newentity" type="button">${t("newEntity")}</button></div>
    <div class="split"><div id="graphbox"><div class="zoom"><button id="zin" title="${t("zoomIn")}">＋</button><button id="zout" title="${t("zoomOut")}">－</button></div></div>
    <div class="card" id="nodedetail"><p class="muted">${t("clickNode")}</p></div></div>
    <div class="cols"><div class="card"><h3>${t("merges")}</h3><div class="scroll"><table id="mergetable"></table></div></div>
    <div class="card"><h3>${t("memoryLinks")}</h3><div id="linklist" class="small"></div></div></div>`;
  $$("[data-type]", box).forEach((c) => c.addEventListener("change", () => { c.checked ? hidden.delete(c.dataset.type) : hidden.add(c.dataset.type); viewGraph(); }));
  $("#newentity").addEventListener("click", () => entityForm(null));
  const { nodes, edges } = graphParts(g, hidden);
  const graph = drawGraph($("#graphbox"), nodes, edges, (n) => nodeDetail(n, g));
  $("#zin").addEventListener("click", () => graph.zoom(1.25));
  $("#zout").addEventListener("click", () => graph.zoom(0.8));
  const entityName = new Map(g.entities.map((e) => [e.id, e.name]));  // maps, as ids may be "constructor"
  $("#mergetable").innerHTML = `<tr><th></th><th>${t("reason")}</th><th class="hide-narrow">${t("time")}</th><th></th></tr>` +
    (g.merges.map((m) => `<tr><td>${bdi(entityName.get(m.source) || m.source)} → ${bdi(entityName.get(m.target) || m.target)}</td><td>${bdi(m.reason)}</td><td class="small hide-narrow">${esc(fmt(m.at))}</td>
      <td>${m.undone ? `<span class="tag">${t("undone")}</span>` : `<button data-undo="${esc(m.id)}">${t("undo")}</button>`}</td></tr>`).join("") || `<tr><td colspan="4" class="muted">${t("nothing")}</td></tr>`);
  $$("[data-undo]", box).forEach((b) => b.addEventListener("click", safely(async () => {
    await api("POST", `/v1/merges/${encodeURIComponent(b.dataset.undo)}/undo?` + qs({ agent: S.agent }));
    await viewGraph();
    status(t("undoneOk"));
  })));
  const texts = memoryTexts(g);
  $("#linklist").innerHTML = g.links.map((l) => `<div><span class="tag">${esc(l.kind)}</span>${bdi(texts.get(l.source) || l.source)} → ${bdi(texts.get(l.target) || l.target)}</div>`).join("") || `<span class="muted">${t("nothing")}</span>`;
  const again = selected && nodes.find((n) => n.id === selected);
  if (again) {
    const circle = $(`#graphbox .node[data-id="${CSS.escape(again.id)}"]`);
    if (circle) circle.classList.add("selected");
    await nodeDetail(again, g);
  }
}

// entities, literal objects and memories as nodes; facts, memory links and mentions as edges
function graphParts(g, hidden) {
  const names = Object.create(null);  // no inherited keys: an entity may be called "constructor" or "__proto__"
  const nodes = [];
  g.entities.filter((e) => !e.merged_into && !hidden.has(e.type)).forEach((e) => {
    nodes.push({ id: e.id, label: e.name, color: TYPE_COLORS[e.type], entity: e });
    [e.name, ...e.aliases].forEach((n) => { names[n] = e.id; });
  });
  const edges = [];
  g.facts.forEach((f) => {
    const d = f.data || {};
    const source = names[d.subject];
    let target = names[d.object];
    if (!source || !d.object) return;
    if (!target) {
      if (hidden.has("literal")) return;
      target = "lit:" + d.object;
      if (!nodes.some((n) => n.id === target)) nodes.push({ id: target, label: d.object, color: TYPE_COLORS.literal, r: 6 });
    }
    edges.push({ source, target, label: d.predicate + (f.valid_to ? " ✕" : ""), closed: !!f.valid_to, fact: f });
  });
  if (hidden.has("memory")) return { nodes, edges };
  const byId = new Map([...g.facts, ...g.events].map((m) => [m.id, m]));
  const linked = new Set(g.links.flatMap((l) => [l.source, l.target]).filter((id) => byId.has(id)));
  const mentions = (m) => Object.keys(names).filter((n) => n.length > 1 && m.text.includes(n));
  const drawn = [...linked, ...g.events.filter((m) => !linked.has(m.id) && mentions(m).length).map((m) => m.id)].slice(0, MEMORY_NODES);
  drawn.forEach((id) => {
    const m = byId.get(id);
    nodes.push({ id: "mem:" + id, label: short(m.text), color: TYPE_COLORS.memory, r: 6, memory: m });
    new Set(mentions(m).map((n) => names[n])).forEach((entity) => edges.push({ source: "mem:" + id, target: entity, mention: true }));
  });
  g.links.forEach((l) => {
    if (drawn.includes(l.source) && drawn.includes(l.target)) edges.push({ source: "mem:" + l.source, target: "mem:" + l.target, label: l.kind, link: true });
  });
  return { nodes, edges };
}

async function nodeDetail(n, g) {
  if (n.memory) return memoryNode(n.memory, g);
  const box = $("#nodedetail");
  const e = n.entity;
  const names = e ? [e.name, ...e.aliases] : [n.label];
  const facts = g.facts.filter((f) => names.includes((f.data || {}).subject) || names.includes((f.data || {}).object));
  box.innerHTML = `<h3>${bdi(n.label)} ${e ? `<span class="tag">${esc(e.type)}</span>` : ""}</h3>
    ${e && e.aliases.length ? `<p class="small muted">${e.aliases.map(bdi).join(" / ")}</p>` : ""}
    ${e ? `<div id="entityedit"></div>` : ""}
    <h3>${t("facts")}</h3><div id="factlist">${facts.map((f) => `<div class="fact ${f.valid_to ? "muted" : ""}" data-fact="${esc(f.id)}">${bdi(f.data.subject)} —${bdi(f.data.predicate)}→ ${bdi(f.data.object)} ${f.valid_to ? `<span class="tag closed">${t("closed")}</span>` : ""}
      ${f.valid_to ? `<button class="small" data-open-fact="${esc(f.id)}">${t("reopenFact")}</button>` : `<button class="small" data-close-fact="${esc(f.id)}">${t("closeFact")}</button>`}
      <button class="small danger" data-delete-fact="${esc(f.id)}">${t("delete")}</button></div>`).join("") || t("none")}</div>
    ${e ? `<form id="factform" class="row" style="margin-top:.5rem"><label>${t("predicate")}<input name="predicate" required style="width:8rem"></label><label>${t("object")}<input name="object" required style="width:8rem"></label><button class="primary">${t("addFact")}</button></form>` : ""}
    <h3>${t("relatedMemories")}</h3><div id="nodememories" class="small">${t("loading")}</div>`;
  if (e) entityForm(e, $("#entityedit"));
  const redraw = (message) => async () => { await viewGraph(n.id); status(t(message)); };
  $$("[data-close-fact]", box).forEach((b) => b.addEventListener("click", () => setValidity(b.dataset.closeFact, nowZoned()).then(redraw("saved")).catch((x) => status(x.message, true))));
  $$("[data-open-fact]", box).forEach((b) => b.addEventListener("click", () => setValidity(b.dataset.openFact, null).then(redraw("saved")).catch((x) => status(x.message, true))));
  $$("[data-delete-fact]", box).forEach((b) => b.addEventListener("click", safely(async () => {
    if (!confirm(t("confirmDelete"))) return;
    await api("DELETE", "/v1/memories/" + encodeURIComponent(b.dataset.deleteFact) + "?" + qs({ agent: S.agent }));
    await redraw("deleted")();
  })));
  if (e) $("#factform").addEventListener("submit", (ev) => {
    ev.preventDefault();
    addFact(e, Object.fromEntries(new FormData(ev.target).entries()), g).then(redraw("created")).catch((x) => status(x.message, true));
  });
  // a search takes 200 characters (a fact's object may hold 2 000): its first 200, whole characters
  const found = await api("GET", "/v1/search?" + withScope({ q: Array.from(n.label).slice(0, 200).join(""), limit: 20 }));
  $("#nodememories").innerHTML = found.items.filter((m) => m.kind !== "fact").map((m) => `<div><span class="tag">${esc(m.kind)}</span>${bdi(m.text)}</div>`).join("") || t("none");
}

// the drawn memories' texts by id: a map, not an object, as an id may be "constructor" or "__proto__"
const memoryTexts = (g) => new Map([...g.facts, ...g.events].map((f) => [f.id, f.text]));

function memoryNode(m, g) {
  const texts = memoryTexts(g);
  const links = g.links.filter((l) => l.source === m.id || l.target === m.id);
  $("#nodedetail").innerHTML = `<h3><span class="tag">${esc(m.kind)}</span>${esc(fmt(m.time))}</h3><p>${bdi(m.text)}</p>
    <h3>${t("links")}</h3>${links.map((l) => `<div class="small"><span class="tag">${esc(l.kind)}</span>${l.source === m.id ? "→" : "←"} ${bdi(texts.get(l.source === m.id ? l.target : l.source) || "")}</div>`).join("") || t("none")}
    <p><button id="openmemory" type="button">${t("openInMemories")}</button></p>`;
  $("#openmemory").addEventListener("click", safely(async () => {
    show("memories");
    await new Promise((r) => setTimeout(r, 0));
    $("#memq").value = m.id;
    await listMemories();
    const row = $(`#memtable tr[data-id="${CSS.escape(m.id)}"]`);
    if (row) row.click();
  }));
}

// now as an instant (UTC, zoned): the store moves it into its own zone, whatever the browser's is
const nowZoned = () => new Date().toISOString();
const setValidity = (id, when) => api("PATCH", "/v1/memories/" + encodeURIComponent(id), { agent: S.agent, valid_to: when });

function addFact(e, data, g) {
  const object = data.object.trim();
  const other = g.entities.find((x) => !x.merged_into && (x.name === object || x.aliases.includes(object)));
  const fact = { subject: e.name, subject_type: e.type, predicate: data.predicate.trim(), object, keyword: data.predicate.trim() };
  if (other) fact.object_type = other.type;
  return api("POST", "/v1/memories", { agent: S.agent, ...scopeParams(), kind: "fact", text: `${e.name}${fact.predicate}${object}`, data: fact, importance: 0.6, time: nowZoned() });
}

// an entity's name, type and aliases; null: a new entity of the chosen scope
function entityForm(e, box = $("#nodedetail")) {
  box.innerHTML = `${e ? "" : `<h3>${t("newEntity")} · ${bdi(scopeLabel(S.scope))}</h3>`}<form id="entityform"><div class="row">
    <label>${t("name")}<input name="name" required value="${esc(e ? e.name : "")}"></label>
    <label>${t("type")}<select name="type">${ENTITY_TYPES.map((ty) => `<option ${e && e.type === ty ? "selected" : ""} ${!e && ty === "具体实体" ? "selected" : ""}>${ty}</option>`).join("")}</select></label>
    <label style="flex:1 1 100%">${t("aliases")}<input name="aliases" value="${esc(e ? e.aliases.join(", ") : "")}"></label></div>
    <p><button class="primary" type="submit" id="entitysave">${e ? t("saveChanges") : t("create")}</button>
    ${e ? `<button type="button" class="danger" id="entitydelete">${t("delete")}</button>` : ""}</p></form>`;
  $("#entityform").addEventListener("submit", (ev) => ev.preventDefault());
  $("#entityform").addEventListener("submit", safely(async (ev) => {
    const data = Object.fromEntries(new FormData(ev.target).entries());
    const fields = { name: data.name.trim(), type: data.type, aliases: data.aliases.split(/[,，、]/).map((a) => a.trim()).filter(Boolean) };
    // an edit sends only what was changed: an alias holding a comma (Smith, John) is not split by a save of the type
    const body = { agent: S.agent, ...(e ? onlyEdited(ev.target, fields) : fields) };
    if (e && Object.keys(body).length === 1) { status(t("unchanged")); return; }
    const saved = e ? await api("PATCH", "/v1/entities/" + encodeURIComponent(e.id), body) : await api("POST", "/v1/entities", { ...body, ...scopeParams() });
    await viewGraph(saved.id);
    status(t(e ? "saved" : "created"));
  }));
  if (e) $("#entitydelete").addEventListener("click", safely(async () => {
    if (!confirm(t("confirmDeleteEntity"))) return;
    await api("DELETE", "/v1/entities/" + encodeURIComponent(e.id) + "?" + qs({ agent: S.agent }));
    await viewGraph();
    status(t("deleted"));
  }));
}
