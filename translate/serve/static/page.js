// The page: one POST /translate per submit; results, alternatives and an attention heatmap built
// from the response. No framework, no external asset: it works offline.
"use strict";

const $ = (id) => document.getElementById(id);
const state = { translations: [], line: 0, alt: 0, sentence: 0, head: "mean" };
const MAX_DRAWN_CELLS = 4000;  // a larger matrix is summarised: drawing it would hold the page for long

function display(piece) {
  // SentencePiece marks a word start with U+2581; show it as a space, an empty piece as a visible one,
  // the end of the sentence as a mark rather than a word.
  if (piece === "</s>") return "\u23CE";
  const text = piece.replace(/\u2581/g, " ").trim();
  return text || "\u2423";
}

function blockOf(alternative) {
  // The attention of the chosen sentence: the server sends one matrix per sentence.
  const blocks = alternative.attention;
  return blocks && blocks.length ? blocks[Math.min(state.sentence, blocks.length - 1)] : null;
}

function weightsOf(block) {
  return state.head === "mean" || !block.heads ? block.weights : block.heads[Number(state.head)];
}

function setStatus(message, isError = false) {
  $("status").textContent = message;
  $("status").classList.toggle("error", isError);
}

const LANGUAGES = { en: "English", zh: "Chinese" };
const MAX_CHARS = 1000;  // the server's max_chars: longer text is refused there, so it is refused here first
let inflight = null;  // { controller, body }: the one request whose reply may be shown

function requestBody() {
  const lines = $("source-text").value.split("\n").map((l) => l.trim()).filter((l) => l);
  const direction = $("direction").value;
  const body = { q: lines, attention: true, beam: Number($("beam").value), n_best: Math.min(3, Number($("beam").value)) };
  if (direction !== "auto") { [body.source, body.target] = direction.split("-"); }
  if ($("model").value) body.model = $("model").value;
  return body;
}

const LANGUAGE_NAMES = { en: "English", zh: "Chinese" };

function detectedText(detected) {
  // With the direction on auto, what the script detector read each line as, and how sure it was.
  if (!detected || !detected.length) return "";
  const parts = detected.map((d, i) => `${detected.length > 1 ? `line ${i + 1} ` : ""}${LANGUAGE_NAMES[d.language]} ` +
                                        `(${Math.round(d.confidence)} %)`);
  return ` Detected: ${parts.join(", ")}.`;
}

async function translate() {
  const body = requestBody();
  if (!body.q.length) { setStatus("Type a sentence first."); return; }
  if ($("source-text").value.length > MAX_CHARS) {
    setStatus(`The text has ${$("source-text").value.length} characters; the limit is ${MAX_CHARS}. Shorten it first.`, true);
    return;
  }
  const json = JSON.stringify(body);
  if (inflight && inflight.json === json) return;  // the same request is on its way: Enter again sends nothing
  if (inflight) inflight.controller.abort();  // a newer request replaces it: its reply would be stale
  const mine = { controller: new AbortController(), json, text: $("source-text").value };
  inflight = mine;
  const headers = { "Content-Type": "application/json" };
  const key = $("api-key").value || sessionStorage.getItem("translate-key");
  if (key) headers["X-API-Key"] = key;
  setStatus("Translating…");
  try {
    const response = await fetch("/translate", { method: "POST", headers, body: json, signal: mine.controller.signal });
    const data = await response.json();
    if (inflight !== mine) return;
    if (response.status === 401) $("key-row").hidden = false;
    if (!response.ok) { $("output").hidden = true; setStatus(`Error ${response.status}: ${data.error}`, true); return; }
    if (key) sessionStorage.setItem("translate-key", key);
    Object.assign(state, { translations: data.translations, line: 0, alt: 0, sentence: 0, head: "mean" });
    render();
    rememberInUrl(body, mine.text);
    const directions = [...new Set(data.translations.map((t) => `${t.source} → ${t.target}`))].join(", ");
    const cut = data.translations.filter((t) => t.truncated).length;
    const notices = data.translations.flatMap((t, i) => (t.notices || []).map((n) => `Line ${i + 1}: ${n}.`));
    setStatus(`Translated ${data.translations.length} line(s), ${directions} (model ${data.translations[0].model}).` +
              detectedText(data.detectedLanguage) +
              (cut ? ` ${cut} line(s) were over 200 pieces: only their beginning was translated.` : "") +
              (notices.length ? ` ${notices.join(" ")}` : ""));
  } catch (err) {
    if (err.name === "AbortError" || inflight !== mine) return;
    $("output").hidden = true;
    setStatus(`Could not reach the server: ${err}`, true);
  } finally {
    if (inflight === mine) inflight = null;
  }
}

function rememberInUrl(body, text) {
  // The page's state as a shareable address: ?q=...&source=..&target=.., naming the text translated
  // (not what the box holds now: it may have been edited while the reply was on its way).
  const params = new URLSearchParams({ q: text });
  if (body.source) { params.set("source", body.source); params.set("target", body.target); }
  history.replaceState(null, "", `?${params}`);
}

function updateCounter() {
  const n = $("source-text").value.length;
  $("counter").textContent = `${n} / ${MAX_CHARS}`;
  $("counter").classList.toggle("over", n > MAX_CHARS);
}

function swap() {
  // The translation becomes the text to translate, in the other direction.
  const t = state.translations[0];
  if (!t || $("output").hidden) { setStatus("Translate something first, then swap."); return; }
  $("source-text").value = state.translations.map((x, i) => x.alternatives[i === state.line ? state.alt : 0].translation).join("\n");
  $("direction").value = `${t.target}-${t.source}`;
  updateCounter();
  $("source-text").focus();
  translate();
}

function clearAll() {
  if (inflight) { inflight.controller.abort(); inflight = null; }
  $("source-text").value = "";
  $("direction").value = "auto";  // a swap chose a direction; what is typed next is read afresh
  $("output").hidden = true;
  state.translations = [];
  updateCounter();
  setStatus("");
  history.replaceState(null, "", location.pathname);
  $("source-text").focus();
}

function restoreFromUrl() {
  const params = new URLSearchParams(location.search);
  if (!params.get("q")) return;
  $("source-text").value = params.get("q");
  const direction = `${params.get("source")}-${params.get("target")}`;
  if (["en-zh", "zh-en"].includes(direction)) $("direction").value = direction;
  updateCounter();
  translate();
}

function render() {
  $("output").hidden = false;
  renderResults();
  renderAlternatives();
  renderSentences();
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
      () => { Object.assign(state, { line: i, alt: 0, sentence: 0, head: "mean" }); render(); refocus("results", i); });
    button.setAttribute("aria-label", `Line ${i + 1}: ${text} (show its alternatives and attention)`);
  });
}

function renderAlternatives() {
  const list = $("alternatives");
  list.replaceChildren();
  const t = state.translations[state.line];
  t.alternatives.forEach((alt, j) => {
    const button = listItemButton(list, "alternative", t.target, alt.translation, j === state.alt,
      () => { Object.assign(state, { alt: j, sentence: 0 }); render(); refocus("alternatives", j); });
    button.title = `score ${alt.score.toFixed(3)}: log-probability per length (higher is better)`;
  });
}

function refocus(listId, index) {
  // A re-render replaces the buttons: keep the keyboard where it was.
  const buttons = $(listId).querySelectorAll("button");
  if (buttons[index]) buttons[index].focus();
}

function renderSentences() {
  // A text of several sentences has one matrix per sentence: a menu picks the one drawn.
  const blocks = state.translations[state.line].alternatives[state.alt].attention || [];
  $("sentence-row").hidden = blocks.length < 2;
  const select = $("sentence");
  select.replaceChildren();
  const t = state.translations[state.line];
  blocks.forEach((b, k) => {
    const words = t.source_pieces.slice(b.source_start, b.source_end).map(display).join("").trim();
    select.append(new Option(`${k + 1}: ${words.length > 40 ? `${words.slice(0, 40)}…` : words}`, String(k)));
  });
  select.value = String(state.sentence);
}

function renderHeads() {
  const block = blockOf(state.translations[state.line].alternatives[state.alt]);
  const heads = block && block.heads ? block.heads.length : 0;
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
  button.tabIndex = -1;  // the heatmap is one Tab stop; arrow keys move inside it
  return button;
}

function groupBytes(pieces) {
  // SentencePiece writes a character it does not know as its UTF-8 bytes, one piece each (<0xE4>):
  // consecutive byte pieces that form characters become one group, labelled with those characters.
  const groups = [];
  let bytes = [], members = [];
  const flush = () => {
    if (!members.length) return;
    const text = new TextDecoder("utf-8", { fatal: false }).decode(new Uint8Array(bytes));
    groups.push({ label: text, raw: members.map((m) => pieces[m]).join(" "), members });
    bytes = []; members = [];
  };
  pieces.forEach((p, i) => {
    const m = /^<0x([0-9A-F]{2})>$/.exec(p);
    if (m) { bytes.push(parseInt(m[1], 16)); members.push(i); return; }
    flush();
    groups.push({ label: p, raw: p, members: [i] });
  });
  flush();
  return groups;
}

function mergedWeights(weights, rows, cols) {
  // Rows (translation groups) are averaged, columns (source groups) summed: each row still sums to 1.
  return rows.map((g) => cols.map((c) => {
    let total = 0;
    for (const r of g.members) for (const s of c.members) total += (weights[r] || [])[s] || 0;
    return total / g.members.length;
  }));
}

function mergedCoverage(block, cols) {
  // What each source group received in all (the server's sums over the translation, heads averaged), and
  // whether it went unattended: a byte group when every piece of it did. Null for a model without it.
  if (!block.coverage) return null;
  return cols.map((c) => ({
    received: c.members.reduce((total, s) => total + (block.coverage[s] || 0), 0),
    unattended: c.members.every((s) => block.unattended[s]),
  }));
}

function summary(rows, cols, weights) {
  // What a matrix too large to draw says: its size and its strongest links.
  const links = [];
  weights.forEach((row, r) => row.forEach((w, s) => links.push([w, r, s])));
  links.sort((a, b) => b[0] - a[0]);
  const p = document.createElement("p");
  p.className = "hint";
  p.textContent = `This sentence's matrix has ${rows.length} × ${cols.length} pieces, too many to draw here. ` +
    `Its strongest links: ${links.slice(0, 8).map(([w, r, s]) =>
      `${display(rows[r].label)} → ${display(cols[s].label)} (${w.toFixed(2)})`).join(", ")}.`;
  return p;
}

function renderHeatmap() {
  const t = state.translations[state.line];
  const alt = t.alternatives[state.alt];
  const block = blockOf(alt);
  const box = $("heatmap");
  box.replaceChildren();
  $("scroll-hint").hidden = true;
  if (!block) { box.textContent = "No attention for this model."; return; }
  const srcLang = t.source === "zh" ? "zh-Hans" : "en";
  const tgtLang = t.target === "zh" ? "zh-Hans" : "en";
  const cols = groupBytes(t.source_pieces.slice(block.source_start, block.source_end));
  const rows = groupBytes(alt.target_pieces.slice(block.target_start, block.target_end));
  const weights = mergedWeights(weightsOf(block), rows, cols);
  if (rows.length * cols.length > MAX_DRAWN_CELLS) { box.append(summary(rows, cols, weights)); return; }
  const wrap = drawMatrix(rows, cols, weights, srcLang, tgtLang, mergedCoverage(block, cols));
  box.append(wrap);
  $("scroll-hint").hidden = wrap.scrollWidth <= wrap.clientWidth;
}

function drawMatrix(rows, cols, weights, srcLang, tgtLang, coverage = null) {
  // One sentence's attention as a table of pieces (a scrollable box), wired for hover, focus and arrows;
  // with `coverage`, a last row of what each source piece received in all, unattended pieces marked.
  const table = document.createElement("table");
  table.className = "matrix";
  const caption = table.createCaption();
  caption.textContent = "Rows: translation pieces; columns: source pieces; the stronger the colour, the more " +
    "attention. Arrow keys move between pieces." + (coverage ? " Last row: the attention each source piece " +
    "received in all, marked ! where it is almost nothing (possibly not translated)." : "");
  const head = table.createTHead().insertRow();
  head.append(document.createElement("td"));
  cols.forEach((g, s) => {
    const th = document.createElement("th");
    th.scope = "col";
    const b = pieceButton(g.label, "src", s, srcLang);
    b.title = g.raw;
    th.append(b);
    head.append(th);
  });
  const body = table.createTBody();
  rows.forEach((g, r) => {
    const row = body.insertRow();
    const th = document.createElement("th");
    th.scope = "row";
    const b = pieceButton(g.label, "tgt", r, tgtLang);
    b.title = g.raw;
    th.append(b);
    row.append(th);
    weights[r].forEach((w, s) => {
      const cell = row.insertCell();
      cell.className = "cell";
      cell.dataset.row = String(r);
      cell.dataset.col = String(s);
      cell.style.setProperty("--w", String(w));
      cell.title = `${display(g.label)} → ${display(cols[s].label)}: ${w.toFixed(2)}`;
    });
  });
  if (coverage) table.append(coverageRow(coverage, cols));
  const wrap = document.createElement("div");
  wrap.className = "matrix-wrap";
  wrap.append(table);
  const first = table.querySelector(".piece.tgt") || table.querySelector(".piece");
  if (first) first.tabIndex = 0;
  wireHighlights(table, weights);
  wireArrows(table);
  return wrap;
}

function coverageRow(coverage, cols) {
  const foot = document.createElement("tfoot");
  const row = foot.insertRow();
  const th = document.createElement("th");
  th.scope = "row";
  th.textContent = "Σ";
  th.title = "The attention each source piece received in all";
  row.append(th);
  coverage.forEach(({ received, unattended }, s) => {
    const cell = row.insertCell();
    cell.className = unattended ? "coverage unattended" : "coverage";
    cell.dataset.col = String(s);
    cell.textContent = unattended ? "!" : received.toFixed(1);
    cell.title = `${display(cols[s].label)} received ${received.toFixed(2)} in all` +
      (unattended ? ": almost nothing, possibly not translated" : "");
  });
  return foot;
}

function wireArrows(table) {
  // Roving focus: Up/Down between translation pieces, Left/Right between source pieces, Home/End.
  const src = [...table.querySelectorAll(".piece.src")], tgt = [...table.querySelectorAll(".piece.tgt")];
  const move = (from, to) => { from.tabIndex = -1; to.tabIndex = 0; to.focus(); to.scrollIntoView({ block: "nearest", inline: "nearest" }); };
  table.addEventListener("keydown", (e) => {
    const here = e.target.closest(".piece");
    if (!here) return;
    const list = here.classList.contains("src") ? src : tgt;
    const i = list.indexOf(here);
    const keys = here.classList.contains("src")
      ? { ArrowLeft: i - 1, ArrowRight: i + 1, Home: 0, End: list.length - 1, ArrowDown: null }
      : { ArrowUp: i - 1, ArrowDown: i + 1, Home: 0, End: list.length - 1, ArrowRight: null };
    if (!(e.key in keys)) return;
    e.preventDefault();
    if (keys[e.key] === null) {  // across: from a source piece down into the rows, from a row into the columns
      const other = here.classList.contains("src") ? tgt : src;
      if (other.length) move(here, other[0]);
      return;
    }
    const next = list[Math.max(0, Math.min(list.length - 1, keys[e.key]))];
    if (next && next !== here) move(here, next);
  });
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
      for (const m of models) {
        const languages = `${LANGUAGES[m.source]} → ${LANGUAGES[m.target]}`;
        const option = new Option(m.name === m.direction ? languages : `${m.name}: ${languages}`, m.name);
        option.title = `${m.mechanism}; ${m.parameters.toLocaleString()} parameters`;
        $("model").append(option);
      }
      $("models").textContent = `models: ${models.map((m) => m.name).join(", ")}`;
      return;
    }
    const health = await (await fetch("/health")).json();
    $("models").textContent = `models: ${health.models.join(", ")}`;
  } catch (err) {
    $("models").textContent = "server unreachable";
  }
}

function keyHeaders(extra = {}) {
  const key = $("api-key").value || sessionStorage.getItem("translate-key");
  return key ? { ...extra, "X-API-Key": key } : extra;
}

function bleu(value) {
  return typeof value === "number" ? value.toFixed(2) : "–";
}

async function loadStudy() {
  // The compare view, when the server was started with --study: the runs to pick, the table, the figures.
  let study;
  try {
    const response = await fetch("/study", { headers: keyHeaders() });
    if (!response.ok) return;
    study = await response.json();
  } catch (err) {
    return;
  }
  $("compare").hidden = false;
  const box = $("compare-runs");
  study.runs.forEach((run, i) => {
    const input = Object.assign(document.createElement("input"), { type: "checkbox", id: `run-${i}`, value: run.name });
    const label = Object.assign(document.createElement("label"), { htmlFor: input.id });
    label.textContent = `${run.mechanism} · seed ${run.seed} · ${bleu(run.test_bleu)}` + (run.weights ? "" : " · no weights");
    input.disabled = !run.weights;  // a run without its weights here cannot translate a new sentence
    input.dataset.noWeights = run.weights ? "" : "1";
    input.addEventListener("change", limitRuns);
    const item = document.createElement("span");
    item.append(input, label);
    box.append(item);
  });
  const table = Object.assign(document.createElement("table"), { className: "study-table" });
  table.createTHead().insertRow().append(...["mechanism", "seeds", "test BLEU", "± sd", "chrF", "dev BLEU"].map((h) => {
    const th = document.createElement("th"); th.scope = "col"; th.textContent = h; return th;
  }));
  const body = table.createTBody();
  for (const row of study.table) {
    const tr = body.insertRow();
    for (const v of [row.mechanism, row.seeds, bleu(row.test_bleu_mean), bleu(row.test_bleu_std), bleu(row.test_chrf_mean),
                     bleu(row.dev_bleu_mean)]) tr.insertCell().textContent = String(v);
  }
  $("study-table").append(table);
  if (study.runs.some((run) => run.test_hypotheses)) {
    $("testset").hidden = false;
    $("testset-mechanisms").value = [...new Set(study.runs.map((run) => run.mechanism))].slice(0, 2).join(",");
    showTestSet();
  }
  for (const name of study.figures) {
    // fetched with the key (an <img src> could not send it), shown from a blob: URL
    const response = await fetch(`/study/figures/${encodeURIComponent(name)}`, { headers: keyHeaders() });
    if (!response.ok) continue;
    $("study-figures").append(Object.assign(document.createElement("img"),
      { src: URL.createObjectURL(await response.blob()), alt: `The study's figure ${name}` }));
  }
}

async function showTestSet() {
  // The study's test translations where the chosen mechanisms disagree most (GET /study/testset).
  const status = $("testset-status");
  const params = new URLSearchParams({ mechanism: $("testset-mechanisms").value.replace(/\s+/g, ""), limit: "20" });
  status.textContent = "Loading…";
  const response = await fetch(`/study/testset?${params}`, { headers: keyHeaders() });
  const data = await response.json();
  if (!response.ok) { status.textContent = `Error ${response.status}: ${data.error}`; return; }
  const table = Object.assign(document.createElement("table"), { className: "study-table testset-table" });
  table.createTHead().insertRow().append(...["line", "source", "reference", ...data.runs].map((h) => {
    const th = document.createElement("th"); th.scope = "col"; th.textContent = h; return th;
  }));
  const body = table.createTBody();
  for (const row of data.rows) {
    const tr = body.insertRow();
    for (const v of [String(row.line), row.source, row.reference]) tr.insertCell().textContent = v;
    for (const t of row.translations) {
      const cell = tr.insertCell();
      cell.lang = data.target === "zh" ? "zh-Hans" : "en";
      cell.textContent = `${t.translation} (chrF ${t.chrf.toFixed(1)})`;
    }
  }
  $("testset-table").replaceChildren(table);
  status.textContent = `${data.rows.length} of ${data.sentences} test sentences, ${data.runs.length} runs.`;
}

function limitRuns() {
  // At most 4 runs side by side: the others are disabled once 4 are chosen.
  const boxes = [...document.querySelectorAll("#compare-runs input")];
  const chosen = boxes.filter((b) => b.checked).length;
  boxes.forEach((b) => { b.disabled = b.dataset.noWeights === "1" || (!b.checked && chosen >= 4); });
}

async function compareRuns() {
  const runs = [...document.querySelectorAll("#compare-runs input:checked")].map((b) => b.value);
  const text = $("compare-text").value.trim();
  const status = $("compare-status");
  if (runs.length < 2 || !text) { status.textContent = "Pick 2 to 4 runs and type a sentence."; return; }
  status.textContent = "Translating…";
  try {
    const response = await fetch("/study/translate", { method: "POST", headers: keyHeaders({ "Content-Type": "application/json" }),
                                                       body: JSON.stringify({ q: text, runs, beam: 5, attention: true }) });
    const data = await response.json();
    if (!response.ok) { status.textContent = `Error ${response.status}: ${data.error}`; return; }
    const units = data.translations.map((t) => diffUnits(t.translation, t.target));
    const panels = data.translations.map((t, i) => comparePanel(t, units[i], units.filter((_, j) => j !== i)));
    $("compare-results").replaceChildren(scaleLegend(), ...panels);
    status.textContent = `Compared ${runs.length} runs.`;
  } catch (err) {
    status.textContent = `Could not reach the server: ${err}`;
  }
}

function diffUnits(text, language) {
  // What two translations are compared by: characters of Chinese (spaces dropped), words of English.
  return language === "zh" ? [...text].filter((c) => c.trim()) : text.split(/\s+/).filter(Boolean);
}

function markedTranslation(units, others, language) {
  // A run's translation with each word (or Chinese character) that some other run's translation lacks marked.
  const p = Object.assign(document.createElement("p"), { className: "compare-translation",
                                                          lang: language === "zh" ? "zh-Hans" : "en" });
  const sets = others.map((o) => new Set(o));
  units.forEach((unit, i) => {
    if (i && language !== "zh") p.append(" ");
    if (sets.some((set) => !set.has(unit))) {
      p.append(Object.assign(document.createElement("mark"), { className: "diff", textContent: unit,
                                                               title: "not in every other run's translation" }));
    } else {
      p.append(unit);
    }
  });
  return p;
}

function attentionEntropy(weights) {
  // Mean entropy of the attention rows in bits: 0 when each target piece attends to one source piece.
  const rows = weights.filter((row) => row.length);
  if (!rows.length) return null;
  const bits = rows.map((row) => -row.reduce((h, w) => (w > 0 ? h + w * Math.log2(w) : h), 0));
  return bits.reduce((a, b) => a + b, 0) / rows.length;
}

function scaleLegend() {
  // Every panel colours a weight the same way (0 to 1), so their heatmaps compare cell by cell.
  const legend = Object.assign(document.createElement("p"), { className: "hint scale-legend", id: "compare-scale" });
  legend.append("Colour scale shared by every panel: attention weight 0 ");
  const bar = Object.assign(document.createElement("span"), { className: "scale-bar" });
  bar.setAttribute("aria-hidden", "true");
  legend.append(bar, " 1. Marked words are not in every other run's translation.");
  return legend;
}

function comparePanel(t, units, others) {
  // One run's translation (differences from the other runs marked), the attention of its first sentence
  // on the shared scale, its coverage row and its mean attention entropy.
  const panel = document.createElement("article");
  panel.className = "compare-panel";
  const heading = document.createElement("h3");
  heading.textContent = `${t.mechanism} · seed ${t.seed}`;
  const scores = Object.assign(document.createElement("p"), { className: "hint" });
  scores.textContent = `test BLEU ${bleu(t.test_bleu)} · chrF ${bleu(t.test_chrf)} (the study's)`;
  const tgtLang = t.target === "zh" ? "zh-Hans" : "en";
  panel.append(heading, scores, markedTranslation(units, others, t.target));
  const block = (t.attention || [])[0];
  if (!block) { panel.append(Object.assign(document.createElement("p"), { textContent: "No attention for this run." })); return panel; }
  const cols = groupBytes(t.source_pieces.slice(block.source_start, block.source_end));
  const rows = groupBytes(t.target_pieces.slice(block.target_start, block.target_end));
  const weights = mergedWeights(block.weights, rows, cols);
  const srcLang = t.source === "zh" ? "zh-Hans" : "en";
  const entropy = attentionEntropy(block.weights);
  if (entropy !== null) {
    panel.append(Object.assign(document.createElement("p"), { className: "hint entropy",
      textContent: `Attention entropy ${entropy.toFixed(2)} bits per target piece (0: one source piece each; ` +
                   `${Math.log2(block.weights[0].length).toFixed(2)}: spread evenly).` }));
  }
  panel.append(rows.length * cols.length > MAX_DRAWN_CELLS ? summary(rows, cols, weights)
                                                          : drawMatrix(rows, cols, weights, srcLang, tgtLang, mergedCoverage(block, cols)));
  if (t.attention.length > 1) {
    panel.append(Object.assign(document.createElement("p"), { className: "hint",
      textContent: `The first of ${t.attention.length} sentences.` }));
  }
  return panel;
}

$("compare-go").addEventListener("click", compareRuns);
$("testset-go").addEventListener("click", showTestSet);
$("testset-mechanisms").addEventListener("keydown", (e) => { if (e.key === "Enter") { e.preventDefault(); showTestSet(); } });
$("compare-text").addEventListener("keydown", (e) => { if (e.key === "Enter") { e.preventDefault(); compareRuns(); } });
$("form").addEventListener("submit", (e) => { e.preventDefault(); translate(); });
$("source-text").addEventListener("keydown", (e) => {
  if (e.key === "Enter" && !e.shiftKey && !e.isComposing) { e.preventDefault(); translate(); }
});
$("head").addEventListener("change", () => { state.head = $("head").value; renderHeatmap(); });
$("sentence").addEventListener("change", () => { state.sentence = Number($("sentence").value); renderHeads(); renderHeatmap(); });
$("copy").addEventListener("click", async () => {
  const text = state.translations.map((t, i) => t.alternatives[i === state.line ? state.alt : 0].translation).join("\n");
  try {
    await navigator.clipboard.writeText(text);
    setStatus("Copied.");
  } catch (err) {
    setStatus("Copying is not allowed here; select the text instead.", true);
  }
});
$("source-text").addEventListener("input", updateCounter);
$("swap").addEventListener("click", swap);
$("clear").addEventListener("click", clearAll);
loadModels();
loadStudy();
updateCounter();
restoreFromUrl();
