// A small force-directed SVG graph: nodes, labelled edges, zoom (wheel, buttons, pinch-free), pan and click.
// No library: a few hundred nodes lay out in well under a second.
window.drawGraph = function (box, nodes, edges, onClick) {
  const NS = "http://www.w3.org/2000/svg";
  box.querySelectorAll("svg").forEach((s) => s.remove());
  const svg = document.createElementNS(NS, "svg");
  const root = document.createElementNS(NS, "g");
  svg.appendChild(root);
  box.appendChild(svg);
  const width = box.clientWidth || 800, height = box.clientHeight || 500;
  const byId = new Map();  // not a plain object: a node's id may be "__proto__"
  nodes.forEach((n, i) => {
    const a = (2 * Math.PI * i) / Math.max(1, nodes.length);
    n.x = width / 2 + Math.cos(a) * width / 3; n.y = height / 2 + Math.sin(a) * height / 3; n.vx = 0; n.vy = 0;
    byId.set(n.id, n);
  });
  const live = edges.filter((e) => byId.has(e.source) && byId.has(e.target));
  for (let step = 0; step < 300; step++) {  // repulsion, springs, gravity
    const cool = 1 - step / 300;
    for (let i = 0; i < nodes.length; i++) {
      for (let j = i + 1; j < nodes.length; j++) {
        const a = nodes[i], b = nodes[j];
        let dx = a.x - b.x, dy = a.y - b.y, d2 = dx * dx + dy * dy || 0.01;
        const f = 4000 / d2; const d = Math.sqrt(d2);
        a.vx += (dx / d) * f; a.vy += (dy / d) * f; b.vx -= (dx / d) * f; b.vy -= (dy / d) * f;
      }
    }
    live.forEach((e) => {
      const a = byId.get(e.source), b = byId.get(e.target);
      const dx = b.x - a.x, dy = b.y - a.y, d = Math.sqrt(dx * dx + dy * dy) || 0.01, f = (d - 140) * 0.02;
      a.vx += (dx / d) * f; a.vy += (dy / d) * f; b.vx -= (dx / d) * f; b.vy -= (dy / d) * f;
    });
    nodes.forEach((n) => {
      n.vx += (width / 2 - n.x) * 0.005; n.vy += (height / 2 - n.y) * 0.005;
      n.x += Math.max(-20, Math.min(20, n.vx)) * cool; n.y += Math.max(-20, Math.min(20, n.vy)) * cool;
      n.vx *= 0.5; n.vy *= 0.5;
    });
  }
  const el = (tag, attrs, parent) => {
    const e = document.createElementNS(NS, tag);
    Object.entries(attrs).forEach(([k, v]) => e.setAttribute(k, v));
    parent.appendChild(e);
    return e;
  };
  live.forEach((e) => {
    const a = byId.get(e.source), b = byId.get(e.target);
    const kind = "edge" + (e.closed ? " closed" : "") + (e.link ? " link" : "") + (e.mention ? " mention" : "");
    const g = el("g", { class: kind, "data-source": e.source, "data-target": e.target }, root);
    el("line", { x1: a.x, y1: a.y, x2: b.x, y2: b.y }, g);
    if (e.label) el("text", { x: (a.x + b.x) / 2, y: (a.y + b.y) / 2 - 3, "text-anchor": "middle" }, g).textContent = e.label;
  });
  const groups = [];
  nodes.forEach((n) => {
    const g = el("g", { class: "node", "data-id": n.id, transform: `translate(${n.x},${n.y})` }, root);
    el("circle", { r: n.r || 9, fill: n.color || "#b5472b" }, g);
    el("text", { x: 12, y: 4 }, g).textContent = n.label;
    g.addEventListener("click", (ev) => {
      ev.stopPropagation();
      groups.forEach((o) => o.classList.remove("selected"));
      g.classList.add("selected");
      onClick(n);
    });
    groups.push(g);
  });
  let scale = 1, tx = 0, ty = 0;
  const apply = () => root.setAttribute("transform", `translate(${tx},${ty}) scale(${scale})`);
  const zoom = (factor, cx = width / 2, cy = height / 2) => {
    const next = Math.max(0.2, Math.min(5, scale * factor));
    tx = cx - ((cx - tx) * next) / scale; ty = cy - ((cy - ty) * next) / scale; scale = next; apply();
  };
  svg.addEventListener("wheel", (ev) => { ev.preventDefault(); zoom(ev.deltaY < 0 ? 1.15 : 1 / 1.15, ev.offsetX, ev.offsetY); });
  let drag = null;
  svg.addEventListener("pointerdown", (ev) => { drag = { x: ev.clientX - tx, y: ev.clientY - ty }; });
  svg.addEventListener("pointermove", (ev) => { if (drag) { tx = ev.clientX - drag.x; ty = ev.clientY - drag.y; apply(); } });
  svg.addEventListener("pointerup", () => { drag = null; });
  svg.addEventListener("pointerleave", () => { drag = null; });
  return { zoom };
};
