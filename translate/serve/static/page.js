// The page: one POST /translate per submit; results, alternatives and an attention heatmap built
// from the response. No framework, no external asset: it works offline.
"use strict";

const $ = (id) => document.getElementById(id);
const state = { translations: [], line: 0, alt: 0, head: "mean" };

function display(piece) {
  // SentencePiece marks a word start with U+2581; show it as a space, an empty piece as a visible one.
  const text = piece.replace(/\u2581/g, " ").trim();
  return text || "\u2423";
}

function weightsOf(alternative) {
  const att = alternative.attention;
  if (!att) return null;
  return state.head === "mean" || !att.heads ? att.weights : att.heads[Number(state.head)];
}

function setStatus(message, isError = false) {
  $("status").textContent = message;
  $("status").classList.toggle("error", isError);
}

async function translate() {
  const lines = $("source-text").value.split("\n").map((l) => l.trim()).filter((l) => l);
  if (!lines.length) { setStatus("Type a sentence first."); return; }
  const direction = $("direction").value;
  const body = { q: lines, attention: true, beam: Number($("beam").value), n_best: Math.min(3, Number($("beam").value)) };
  if (direction !== "auto") { [body.source, body.target] = direction.split("-"); }
  if ($("model").value) body.model = $("model").value;
  const headers = { "Content-Type": "application/json" };
  const key = $("api-key").value || sessionStorage.getItem("translate-key");
  if (key) headers["X-API-Key"] = key;
  setStatus("Translating…");
  $("translate").disabled = true;
  try {
    const response = await fetch("/translate", { method: "POST", headers, body: JSON.stringify(body) });
    const data = await response.json();
    if (response.status === 401) $("key-row").hidden = false;
    if (!response.ok) { setStatus(`Error ${response.status}: ${data.error}`, true); return; }
    if (key) sessionStorage.setItem("translate-key", key);
    Object.assign(state, { translations: data.translations, line: 0, alt: 0, head: "mean" });
    render();
    const t = data.translations[0];
    setStatus(`Translated ${data.translations.length} line(s), ${t.source} → ${t.target} (model ${t.model}).`);
  } catch (err) {
    setStatus(`Could not reach the server: ${err}`, true);
  } finally {
    $("translate").disabled = false;
  }
}

function render() {
  $("output").hidden = false;
  renderResults();
  renderAlternatives();
  renderHeads();
  renderHeatmap();
}

function listItemButton(list, cls, lang, text, pressed, onClick) {
  // One choice in a list (a line's translation, or an alternative): a toggle button in an <li>.
  const item = document.createElement("li");
  const button = document.createElement("button");
  button.type = "button";
  button.className = cls;
  button.lang = lang === "zh" ? "zh-Hans" : "en";
  button.textContent = text;
  button.setAttribute("aria-pressed", String(pressed));
  button.addEventListener("click", onClick);
  item.append(button);
  list.append(item);
  return button;
}

function renderResults() {
  const list = $("results");
  list.replaceChildren();
  state.translations.forEach((t, i) => {
    const text = t.alternatives[i === state.line ? state.alt : 0].translation;
    const button = listItemButton(list, "result", t.target, text, i === state.line,
      () => { Object.assign(state, { line: i, alt: 0, head: "mean" }); render(); });
    button.setAttribute("aria-label", `Line ${i + 1}: ${text} (show its alternatives and attention)`);
  });
}

function renderAlternatives() {
  const list = $("alternatives");
  list.replaceChildren();
  const t = state.translations[state.line];
  t.alternatives.forEach((alt, j) => {
    listItemButton(list, "alternative", t.target, `${alt.translation}  (${alt.score.toFixed(3)})`, j === state.alt,
      () => { state.alt = j; render(); });
  });
}

function renderHeads() {
  const att = state.translations[state.line].alternatives[state.alt].attention;
  const heads = att && att.heads ? att.heads.length : 0;
  $("head-row").hidden = heads === 0;
  const select = $("head");
  select.replaceChildren(new Option("Mean over heads", "mean"));
  for (let h = 0; h < heads; h++) select.append(new Option(`Head ${h + 1}`, String(h)));
  select.value = state.head;
}

function pieceButton(text, cls, index, lang) {
  const button = document.createElement("button");
  button.type = "button";
  button.className = `piece ${cls}`;
  button.dataset.index = String(index);
  button.lang = lang;
  button.title = text;
  button.textContent = display(text);
  return button;
}

function renderHeatmap() {
  const t = state.translations[state.line];
  const alt = t.alternatives[state.alt];
  const weights = weightsOf(alt);
  const box = $("heatmap");
  box.replaceChildren();
  if (!weights) { box.textContent = "No attention for this model."; return; }
  const srcLang = t.source === "zh" ? "zh-Hans" : "en";
  const tgtLang = t.target === "zh" ? "zh-Hans" : "en";
  const table = document.createElement("table");
  table.className = "matrix";
  const caption = table.createCaption();
  caption.textContent = "Rows: translation pieces; columns: source pieces; darker = more attention.";
  const head = table.createTHead().insertRow();
  head.append(document.createElement("td"));
  t.source_pieces.forEach((p, s) => {
    const th = document.createElement("th");
    th.scope = "col";
    th.append(pieceButton(p, "src", s, srcLang));
    head.append(th);
  });
  const body = table.createTBody();
  alt.target_pieces.forEach((p, r) => {
    const row = body.insertRow();
    const th = document.createElement("th");
    th.scope = "row";
    th.append(pieceButton(p, "tgt", r, tgtLang));
    row.append(th);
    (weights[r] || []).forEach((w, s) => {
      const cell = row.insertCell();
      cell.className = "cell";
      cell.dataset.row = String(r);
      cell.dataset.col = String(s);
      cell.style.setProperty("--w", String(w));
      cell.title = `${display(p)} → ${display(t.source_pieces[s])}: ${w.toFixed(2)}`;
    });
  });
  const wrap = document.createElement("div");
  wrap.className = "matrix-wrap";
  wrap.append(table);
  box.append(wrap);
  wireHighlights(table, weights);
}

function wireHighlights(table, weights) {
  // Light up the other side: a target piece shows its row of weights on the source pieces, a source
  // piece its column on the target pieces. "lit" marks the strongest links (>= half the maximum).
  const light = (cls, values, self) => {
    table.querySelectorAll(`.piece.${cls}`).forEach((b, i) => {
      const w = values[i] || 0;
      const top = Math.max(...values);
      b.style.setProperty("--w", String(w));
      b.classList.toggle("lit", w > 0 && w >= top / 2);
    });
    self.classList.add("active");
  };
  const clear = () => table.querySelectorAll(".piece").forEach((b) => {
    b.classList.remove("lit", "active");
    b.style.removeProperty("--w");
  });
  table.querySelectorAll(".piece.tgt").forEach((b) => {
    const on = () => { clear(); light("src", weights[Number(b.dataset.index)] || [], b); };
    ["mouseenter", "focus", "click"].forEach((e) => b.addEventListener(e, on));
  });
  table.querySelectorAll(".piece.src").forEach((b) => {
    const s = Number(b.dataset.index);
    const on = () => { clear(); light("tgt", weights.map((row) => row[s] || 0), b); };
    ["mouseenter", "focus", "click"].forEach((e) => b.addEventListener(e, on));
  });
}

async function loadModels() {
  // The model menu from GET /models (it needs the API key when the server has one: then /health names them).
  const key = sessionStorage.getItem("translate-key");
  try {
    const response = await fetch("/models", { headers: key ? { "X-API-Key": key } : {} });
    if (response.ok) {
      const models = await response.json();
      for (const m of models) $("model").append(new Option(`${m.name} (${m.direction}, ${m.mechanism})`, m.name));
      $("models").textContent = `models: ${models.map((m) => m.name).join(", ")}`;
      return;
    }
    const health = await (await fetch("/health")).json();
    $("models").textContent = `models: ${health.models.join(", ")}`;
  } catch (err) {
    $("models").textContent = "server unreachable";
  }
}

$("form").addEventListener("submit", (e) => { e.preventDefault(); translate(); });
$("source-text").addEventListener("keydown", (e) => {
  if (e.key === "Enter" && !e.shiftKey && !e.isComposing) { e.preventDefault(); translate(); }
});
$("head").addEventListener("change", () => { state.head = $("head").value; renderHeatmap(); });
$("copy").addEventListener("click", async () => {
  const text = state.translations.map((t, i) => t.alternatives[i === state.line ? state.alt : 0].translation).join("\n");
  try {
    await navigator.clipboard.writeText(text);
    setStatus("Copied.");
  } catch (err) {
    setStatus("Copying is not allowed here; select the text instead.", true);
  }
});
loadModels();
