// ragloom playground: plain JavaScript, no build step, no dependencies.
// Talks to the server's own JSON routes: /v1/playground/me, /filter,
// /search (explain), /ask (server-sent events), /evals and /eval.
"use strict";

const $ = (id) => document.getElementById(id);
const state = { key: sessionStorage.getItem("ragloom-key") || "", hits: [], citations: [], terms: [] };

function headers() {
  const h = { "Content-Type": "application/json" };
  if (state.key) h.Authorization = "Bearer " + state.key;
  return h;
}

function asQuery() {
  const as = $("as").value;
  return as ? "?as=" + encodeURIComponent(as) : "";
}

function showError(message) {
  const box = $("filter-error");
  box.textContent = message;
  box.hidden = !message;
}

async function errorOf(response) {
  try {
    const body = await response.json();
    return (body.error && body.error.message) || response.statusText;
  } catch (_) {
    return response.status + " " + response.statusText;
  }
}

async function connect(event) {
  if (event) event.preventDefault();
  state.key = $("key").value.trim() || state.key;
  sessionStorage.setItem("ragloom-key", state.key);
  const response = await fetch("/v1/playground/me", { headers: headers() });
  const who = $("whoami");
  if (!response.ok) {
    who.textContent = await errorOf(response);
    who.className = "error";
    return;
  }
  const me = await response.json();
  who.className = "";
  who.textContent = "as " + me.name + (me.principals ? " (" + me.principals.join(", ") + ")" : "");
  for (const id of ["as", "eval-as"]) {
    const select = $(id);
    select.replaceChildren(new Option("all of the key's principals", ""));
    for (const p of me.principals || []) select.append(new Option(p, p));
  }
  await loadEvals();
}

async function checkedFilter() {
  const text = $("filter").value.trim();
  if (!text) return { ok: true, filter: null };
  const response = await fetch("/v1/playground/filter", {
    method: "POST", headers: headers(), body: JSON.stringify({ text }),
  });
  if (!response.ok) return { ok: false, error: await errorOf(response) };
  return response.json();
}

function common(filter) {
  const body = { filters: filter };
  const k = parseInt($("k").value, 10);
  if (k > 0) body.k = k;
  return body;
}

function termsOf(text) {
  return Array.from(new Set(text.toLowerCase().match(/[\p{L}\p{N}]{3,}/gu) || []));
}

// Text with the terms in <mark>, built from text nodes (never innerHTML).
function highlighted(text, terms) {
  const out = document.createDocumentFragment();
  if (!terms.length) { out.append(text); return out; }
  const escaped = terms.map((t) => t.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
  const pattern = new RegExp("(" + escaped.join("|") + ")", "giu");
  let last = 0;
  for (const match of text.matchAll(pattern)) {
    out.append(text.slice(last, match.index));
    const mark = document.createElement("mark");
    mark.textContent = match[0];
    out.append(mark);
    last = match.index + match[0].length;
  }
  out.append(text.slice(last));
  return out;
}

function fmt(value) {
  if (value === null || value === undefined) return "–";
  return typeof value === "number" && !Number.isInteger(value) ? value.toFixed(4) : String(value);
}

function cell(row, value, numeric) {
  const td = document.createElement("td");
  td.textContent = fmt(value);
  if (numeric) td.className = "num";
  row.append(td);
}

function renderExplain(result) {
  state.hits = result.hits;
  const stores = [];
  for (const hit of result.hits) {
    for (const name of Object.keys((hit.explain && hit.explain.stores) || {})) {
      if (!stores.includes(name)) stores.push(name);
    }
  }
  const head = document.createElement("tr");
  const titles = ["#", "Passage", "Source"];
  for (const s of stores) titles.push(s + " rank", s + " score");
  titles.push("Fused rank", "Fused score", "Rerank score", "Movement");
  for (const t of titles) {
    const th = document.createElement("th");
    th.scope = "col";
    th.textContent = t;
    head.append(th);
  }
  $("explain").tHead.replaceChildren(head);
  const body = $("explain").tBodies[0];
  body.replaceChildren();
  for (const hit of result.hits) {
    const why = hit.explain || { stores: {} };
    const row = document.createElement("tr");
    row.dataset.chunk = hit.id;
    cell(row, hit.rank, true);
    cell(row, hit.label);
    cell(row, hit.source);
    for (const s of stores) {
      const found = why.stores[s];
      cell(row, found ? found.rank : null, true);
      cell(row, found ? found.score : null, true);
    }
    cell(row, why.fused_rank, true);
    cell(row, why.fused_score, true);
    cell(row, why.rerank_score, true);
    cell(row, why.movement, true);
    body.append(row);
  }
  $("access-filter").textContent = JSON.stringify(result.access_filter ?? null);
  $("applied-filter").textContent = JSON.stringify(result.filter ?? null);
  $("explain-section").hidden = false;
}

function openPassage(number) {
  const citation = state.citations.find((c) => c.number === number);
  if (!citation) return;
  const hit = state.hits.find((h) => h.id === citation.chunk_id);
  $("passage-number").textContent = "[" + number + "]";
  $("passage-label").textContent = citation.label;
  $("passage-source").textContent = citation.source;
  $("passage-text").replaceChildren(highlighted(hit ? hit.text : citation.quote, state.terms));
  const section = $("passage");
  section.dataset.chunk = citation.chunk_id;
  section.hidden = false;
  section.focus();
}

function citeButton(number) {
  const button = document.createElement("button");
  button.type = "button";
  button.className = "cite";
  button.textContent = "[" + number + "]";
  button.setAttribute("aria-label", "Open passage " + number);
  button.addEventListener("click", () => openPassage(number));
  return button;
}

function renderAnswer(answer) {
  state.citations = answer.citations;
  const known = new Set(answer.citations.map((c) => c.number));
  const box = $("answer");
  box.replaceChildren();
  let last = 0;
  for (const match of answer.answer.matchAll(/\[(\d+)\]/g)) {
    const number = parseInt(match[1], 10);
    if (!known.has(number)) continue;
    box.append(answer.answer.slice(last, match.index), citeButton(number));
    last = match.index + match[0].length;
  }
  box.append(answer.answer.slice(last));
  const list = $("citations");
  list.replaceChildren();
  for (const c of answer.citations) {
    const item = document.createElement("li");
    item.value = c.number;
    item.append(citeButton(c.number), " " + c.label + " — ", Object.assign(
      document.createElement("code"), { textContent: c.source }));
    list.append(item);
  }
}

// Reads a text/event-stream body: calls onEvent(name, data) per event.
async function readEvents(response, onEvent) {
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (value) buffer += decoder.decode(value, { stream: true });
    let end;
    while ((end = buffer.indexOf("\n\n")) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      let name = "message";
      const data = [];
      for (const line of block.split("\n")) {
        if (line.startsWith("event:")) name = line.slice(6).trim();
        else if (line.startsWith("data:")) data.push(line.slice(5).trim());
      }
      if (data.length) onEvent(name, JSON.parse(data.join("\n")));
    }
    if (done) return;
  }
}

async function search(question, filter) {
  const response = await fetch("/v1/playground/search" + asQuery(), {
    method: "POST", headers: headers(),
    body: JSON.stringify({ query: question, explain: true, ...common(filter) }),
  });
  if (!response.ok) throw new Error(await errorOf(response));
  renderExplain(await response.json());
}

async function ask(question, filter) {
  const response = await fetch("/v1/playground/ask" + asQuery(), {
    method: "POST", headers: headers(),
    body: JSON.stringify({ question, stream: true, ...common(filter) }),
  });
  if (!response.ok) throw new Error(await errorOf(response));
  const box = $("answer");
  box.replaceChildren();
  $("citations").replaceChildren();
  $("answer-section").hidden = false;
  await readEvents(response, (name, data) => {
    if (name === "delta") box.append(data.text);
    else if (name === "answer") renderAnswer(data);
    else if (name === "error") throw new Error(data.error.message);
  });
}

async function run(withAnswer) {
  const question = $("question").value.trim();
  if (!question) { $("question").focus(); return; }
  document.body.dataset.busy = "1";
  try {
    await runChecked(question, withAnswer);
  } catch (error) {
    showError(error.message);
  } finally {
    delete document.body.dataset.busy;
    // a counter of finished runs, for anyone waiting on the page (tests)
    document.body.dataset.done = String(parseInt(document.body.dataset.done || "0", 10) + 1);
  }
}

async function runChecked(question, withAnswer) {
  showError("");
  const checked = await checkedFilter();
  if (!checked.ok) {
    showError(checked.error);
    $("filter").setAttribute("aria-invalid", "true");
    $("filter").focus();
    return;
  }
  $("filter").removeAttribute("aria-invalid");
  state.terms = termsOf(question);
  $("passage").hidden = true;
  await search(question, checked.filter);
  if (withAnswer) await ask(question, checked.filter);
  else $("answer-section").hidden = true;
}

// -- views (tabs) -------------------------------------------------------------

function selectTab(tab, focus) {
  for (const other of document.querySelectorAll('[role="tab"]')) {
    const selected = other === tab;
    other.setAttribute("aria-selected", String(selected));
    other.tabIndex = selected ? 0 : -1;
    $(other.getAttribute("aria-controls")).hidden = !selected;
  }
  if (focus) tab.focus();
}

function tabKeys(event) {
  const tabs = Array.from(document.querySelectorAll('[role="tab"]'));
  const at = tabs.indexOf(event.target);
  const to = { ArrowRight: at + 1, ArrowLeft: at - 1, Home: 0, End: tabs.length - 1 }[event.key];
  if (to === undefined) return;
  event.preventDefault();
  selectTab(tabs[(to + tabs.length) % tabs.length], true);
}

// -- eval view ----------------------------------------------------------------

function showEvalError(message) {
  const box = $("eval-error");
  box.textContent = message;
  box.hidden = !message;
}

async function loadEvals() {
  const response = await fetch("/v1/playground/evals", { headers: headers() });
  if (!response.ok) { showEvalError(await errorOf(response)); return; }
  const { files } = await response.json();
  const select = $("eval-file");
  select.replaceChildren();
  for (const f of files) {
    const count = f.cases === null ? "cannot be read" : f.cases + (f.cases === 1 ? " case" : " cases");
    select.append(new Option(f.name + " (" + count + ")", f.name));
  }
  $("eval-none").hidden = files.length > 0;
  select.disabled = $("eval-run").disabled = files.length === 0;
}

function verdict(row, passed) {
  const td = document.createElement("td");
  td.textContent = passed === null || passed === undefined ? "–" : passed ? "PASS" : "FAIL";
  if (passed !== null && passed !== undefined) td.className = passed ? "pass" : "fail";
  row.append(td);
}

function detailsOf(c) {
  const out = [];
  if (c.error) out.push(c.error);
  for (const m of c.missing) out.push("missing: " + m);
  for (const [entry, rank] of Object.entries(c.forbidden)) out.push("found " + entry + " at rank " + rank);
  for (const [entry, rank] of Object.entries(c.ranks)) if (rank !== null) out.push(entry + ": rank " + rank);
  const a = c.answer;
  if (a && !a.passed) {
    for (const m of a.missing) out.push("answer lacks " + m);
    for (const f of a.forbidden) out.push("answer says " + f);
    if (a.refusal) out.push("answer " + a.refusal);
  }
  return out.join("\n");
}

function renderEvalTable(report) {
  const body = $("eval-table").tBodies[0];
  body.replaceChildren();
  for (const c of report.cases) {
    const row = document.createElement("tr");
    row.dataset.case = String(c.number);
    row.dataset.passed = String(c.passed);
    cell(row, c.number, true);
    cell(row, c.question);
    verdict(row, c.passed);
    verdict(row, c.retrieval_passed);
    verdict(row, c.answer_passed);
    cell(row, c.ndcg === null ? null : c.ndcg.toFixed(4), true);
    cell(row, c.recall === null ? null : c.recall.toFixed(4), true);
    cell(row, detailsOf(c));
    cell(row, c.hits.join("\n"));
    row.children[7].className = "lines";
    row.children[8].className = "lines";
    body.append(row);
  }
}

const SVG = "http://www.w3.org/2000/svg";

function svg(name, attributes, text) {
  const element = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attributes)) element.setAttribute(k, String(v));
  if (text !== undefined) element.textContent = text;
  return element;
}

// Two horizontal bars per case (nDCG, Recall), 0 to 1, drawn as SVG nodes.
function renderChart(report) {
  const chart = $("eval-chart");
  const width = Math.max(280, Math.min(chart.parentElement.clientWidth || 640, 720));
  const left = 44, right = 52, top = 20, bar = 11, gap = 3, rowGap = 12;
  const span = width - left - right;
  const rowHeight = 2 * bar + gap + rowGap;
  const height = top + report.cases.length * rowHeight;
  chart.setAttribute("viewBox", "0 0 " + width + " " + height);
  chart.replaceChildren(svg("title", {}, "nDCG@k and Recall@k per case of " + report.file));
  for (const tick of [0, 0.5, 1]) {
    const x = left + tick * span;
    chart.append(svg("line", { x1: x, x2: x, y1: top - 4, y2: height - rowGap / 2, class: "grid" }));
    chart.append(svg("text", { x, y: 12, "text-anchor": "middle", class: "axis" }, String(tick)));
  }
  report.cases.forEach((c, i) => {
    const y = top + i * rowHeight;
    chart.append(svg("text", { x: 0, y: y + bar + 4, class: "label" }, "#" + c.number));
    if (c.ndcg === null) {
      const why = c.error ? "not run" : "no retrieval score";
      chart.append(svg("text", { x: left + 4, y: y + bar + 4, class: "axis" }, why));
      return;
    }
    [["ndcg", "nDCG@" + c.top_k, c.ndcg], ["recall", "Recall@" + c.top_k, c.recall]].forEach(
      ([metric, name, value], j) => {
        const by = y + j * (bar + gap);
        const rect = svg("rect", {
          x: left, y: by, width: Math.max(value * span, 1), height: bar,
          class: "bar " + metric, "data-case": c.number, "data-metric": metric,
          "data-value": value.toFixed(4),
        });
        rect.append(svg("title", {}, "Case " + c.number + " " + name + ": " + value.toFixed(4)));
        chart.append(rect);
        chart.append(svg("text", { x: left + value * span + 4, y: by + bar - 2, class: "value" },
          value.toFixed(2)));
      });
  });
}

function renderEval(report) {
  const parts = [];
  const failed = report.cases.filter((c) => !c.passed).length;
  parts.push(failed ? failed + " of " + report.cases.length + " case(s) failed"
    : "all " + report.cases.length + " case(s) passed");
  if (report.retrieval.total) parts.push("retrieval " + report.retrieval.passed + "/" + report.retrieval.total);
  if (report.answers.total) parts.push("answers " + report.answers.passed + "/" + report.answers.total);
  if (report.ndcg !== null) parts.push("mean nDCG " + report.ndcg.toFixed(4));
  if (report.recall !== null) parts.push("mean Recall " + report.recall.toFixed(4));
  const summary = $("eval-summary");
  summary.textContent = report.file + ": " + parts.join(" · ");
  summary.className = report.passed ? "pass" : "fail";
  $("eval-section").hidden = false;
  renderEvalTable(report);
  renderChart(report);
}

async function runEval(event) {
  event.preventDefault();
  const file = $("eval-file").value;
  if (!file) return;
  document.body.dataset.busy = "1";
  showEvalError("");
  $("eval-section").hidden = true; // no results of an earlier run under a new one's error
  try {
    const as = $("eval-as").value;
    const response = await fetch("/v1/playground/eval" + (as ? "?as=" + encodeURIComponent(as) : ""), {
      method: "POST", headers: headers(), body: JSON.stringify({ file }),
    });
    if (!response.ok) throw new Error(await errorOf(response));
    renderEval(await response.json());
  } catch (error) {
    showEvalError(error.message);
  } finally {
    delete document.body.dataset.busy;
    document.body.dataset.done = String(parseInt(document.body.dataset.done || "0", 10) + 1);
  }
}

document.addEventListener("DOMContentLoaded", () => {
  $("key").value = state.key;
  $("key-form").addEventListener("submit", connect);
  $("ask-form").addEventListener("submit", (event) => { event.preventDefault(); run(true); });
  $("search").addEventListener("click", () => run(false));
  $("question").addEventListener("keydown", (event) => {
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) { event.preventDefault(); run(true); }
  });
  $("passage-close").addEventListener("click", () => { $("passage").hidden = true; $("question").focus(); });
  document.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && !$("passage").hidden) { $("passage").hidden = true; $("question").focus(); }
  });
  for (const tab of document.querySelectorAll('[role="tab"]')) {
    tab.addEventListener("click", () => selectTab(tab, false));
    tab.addEventListener("keydown", tabKeys);
  }
  $("eval-form").addEventListener("submit", runEval);
  $("eval-run").disabled = $("eval-file").disabled = true;
  if (state.key) connect();
});
