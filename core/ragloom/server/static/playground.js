// ragloom playground: plain JavaScript, no build step, no dependencies.
// Talks to the server's own JSON routes: /v1/playground/me, /filter,
// /search (explain) and /ask (server-sent events).
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
  const select = $("as");
  select.replaceChildren(new Option("all of the key's principals", ""));
  for (const p of me.principals || []) select.append(new Option(p, p));
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
  if (state.key) connect();
});
