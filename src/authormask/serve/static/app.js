"use strict";
// authormask serve: the page. Every text is written with textContent (never as HTML).

const $ = (id) => document.getElementById(id);
const LOG_MIN = -1, LOG_MAX = 3; // epsilon from 0.1 to 1000 on the slider (log scale)
let specs = {};
let last = null; // the last result: {text, statement, statement_text}
let calibrationTimer = null;

function epsilonOf(value) {
  const e = Math.pow(10, LOG_MIN + (LOG_MAX - LOG_MIN) * value / 1000);
  return Number(e.toPrecision(2)); // two digits: 461 (the default) is epsilon 7
}

function setError(message) {
  $("error").textContent = message || "";
}

async function getJSON(url) {
  const response = await fetch(url, { headers: { Accept: "application/json" } });
  const body = await response.json().catch(() => ({ error: `error ${response.status}` }));
  if (!response.ok) throw new Error(body.error || `error ${response.status}`);
  return body;
}

// what a mechanism is, as its registry spec declares it (/api/mechanisms), never guessed from
// the names of its parameters
function takesEpsilon(name) {
  return specs[name]?.noise_parameter === "epsilon";
}

function releasesBag(name) {
  return specs[name]?.release === "bag";
}

function showMechanism() {
  const name = $("mechanism").value;
  $("mechanism-help").textContent = specs[name]?.title || "";
  $("length-field").hidden = !releasesBag(name);
  $("epsilon-field").hidden = !takesEpsilon(name);
  scheduleCalibration();
}

function showEpsilon() {
  const eps = epsilonOf(Number($("epsilon-slider").value));
  $("epsilon-value").textContent = String(eps);
  $("epsilon-slider").setAttribute("aria-valuetext", `epsilon ${eps}`);
  scheduleCalibration();
}

function scheduleCalibration() {
  clearTimeout(calibrationTimer);
  calibrationTimer = setTimeout(calibrate, 150);
}

async function calibrate() {
  const name = $("mechanism").value;
  if (!name) return;
  const eps = epsilonOf(Number($("epsilon-slider").value));
  const query = new URLSearchParams({ mechanism: name });
  if (takesEpsilon(name)) query.set("epsilon", String(eps));
  try {
    const result = await getJSON(`/api/calibrate?${query}`);
    if (result.mechanism !== $("mechanism").value) return;
    const unit = specs[name]?.epsilon_per === "word" ? "words" : "tokens";
    const pct = 100 * result.changed;
    const shown = pct < 1 ? pct.toFixed(1) : pct.toFixed(0);
    // the change rate (evaluation/calibration.py, CHANGE_RATE_RULE): the share of an example
    // text's words that releases at this setting replace, the measure --epsilons auto aims at
    $("calibration").textContent =
      `About ${shown}% of ${unit} will change (the share replaced in releases of an ` +
      `English example text).`;
    $("calibration").title = result.measure || "";
    $("measured").textContent = measuredText(result.measured, name);
  } catch (err) {
    $("calibration").textContent = "";
    $("measured").textContent = "";
  }
}

// What the attackers achieved near this epsilon on pan19-en: a measurement, shown with its
// corpus and its caveat, never as a guarantee; where there is none, that is said.
function measuredText(m, name) {
  if (!m) {
    return `No measurement of ${name} near this epsilon against an authorship attacker: do not ` +
      "assume it hides the writer.";
  }
  const pct = (x) => `${Math.round(100 * x)}%`;
  const accurate = m.accurate_attacker || m.attacker;
  let text = `Measured on ${m.corpus.split(":")[0]} fan fiction at epsilon ${m.epsilon}: the ` +
    `most accurate attacker (${accurate}), choosing among a problem's candidate writers, ` +
    `named the right one for ${pct(m.accuracy)} of texts (95% interval ` +
    `${pct(m.wilson95[0])}-${pct(m.wilson95[1])})`;
  if (m.chance) text += `, where guessing names ${pct(m.chance)}`;
  if (m.noise_off) {
    text += `; with this mechanism's noise switched off (its rewriting alone) it named ` +
      `${pct(m.noise_off.accuracy)}`;
  }
  text += `; the strongest by macro-F1 (${m.attacker}) scored ${m.macro_f1}`;
  if (m.chance_macro_f1) text += ` (guessing: ${m.chance_macro_f1.toFixed(3)})`;
  return `${text}. A measurement on that corpus, not a guarantee.`;
}

function tokens(text) {
  return text.match(/[\p{L}\p{M}\p{N}_'’]+|\s+|[^\s\p{L}\p{M}\p{N}_]/gu) || [];
}

// Which output tokens differ from the input: position by position when both have the same
// shape (text mode keeps the skeleton), else by a longest common subsequence of the words.
function changedFlags(input, output) {
  const a = tokens(input), b = tokens(output);
  const isWord = (t) => /[\p{L}\p{N}]/u.test(t);
  if (a.length === b.length && a.every((t, i) => isWord(t) === isWord(b[i]))) {
    return b.map((t, i) => [t, isWord(t) && t !== a[i]]);
  }
  const aw = a.filter(isWord).map((t) => t.toLowerCase());
  const bi = b.map((t, i) => [t, i]).filter(([t]) => isWord(t));
  const bw = bi.map(([t]) => t.toLowerCase());
  const keep = new Set();
  if (aw.length * bw.length <= 4e6) {
    const n = aw.length, m = bw.length;
    const table = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1));
    for (let i = n - 1; i >= 0; i--) {
      for (let j = m - 1; j >= 0; j--) {
        table[i][j] = aw[i] === bw[j] ? table[i + 1][j + 1] + 1
          : Math.max(table[i + 1][j], table[i][j + 1]);
      }
    }
    let i = 0, j = 0;
    while (i < n && j < m) {
      if (aw[i] === bw[j]) { keep.add(j); i++; j++; }
      else if (table[i + 1][j] >= table[i][j + 1]) i++;
      else j++;
    }
  } else {
    const seen = new Set(aw);
    bw.forEach((w, j) => { if (seen.has(w)) keep.add(j); });
  }
  const changed = new Set(bi.map(([, i], j) => (keep.has(j) ? -1 : i)));
  return b.map((t, i) => [t, changed.has(i)]);
}

function render(input, result) {
  const out = $("output");
  out.replaceChildren();
  let buffer = "";
  for (const [token, changed] of changedFlags(input, result.text)) {
    if (changed) {
      if (buffer) out.append(document.createTextNode(buffer));
      buffer = "";
      const mark = document.createElement("mark");
      mark.textContent = token;
      out.append(mark);
    } else {
      buffer += token;
    }
  }
  if (buffer) out.append(document.createTextNode(buffer));
  const plain = $("statement-plain");
  plain.replaceChildren();
  for (const paragraph of (result.statement_plain || "").split("\n\n")) {
    const p = document.createElement("p");
    p.textContent = paragraph;
    plain.append(p);
  }
  $("statement").textContent = result.statement_text;
  $("statement-json").textContent = JSON.stringify(result.statement, null, 2);
  $("result").hidden = false;
}

async function release(event) {
  event.preventDefault();
  setError("");
  const text = $("text").value;
  if (!text.trim()) {
    setError("Paste a text (or open a .txt file) first.");
    $("text").focus();
    return;
  }
  const name = $("mechanism").value;
  const body = { text, mechanism: name };
  if (takesEpsilon(name)) body.epsilon = epsilonOf(Number($("epsilon-slider").value));
  if (releasesBag(name)) body.length = Number($("length").value);
  const button = $("release"), bar = $("progress");
  button.disabled = true;
  bar.hidden = false;
  bar.removeAttribute("value");
  try {
    const response = await fetch("/api/release", {
      method: "POST",
      headers: { "Content-Type": "application/json", Accept: "application/x-ndjson" },
      body: JSON.stringify(body),
    });
    if (!response.ok) {
      const failed = await response.json().catch(() => ({}));
      throw new Error(failed.error || `error ${response.status}`);
    }
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    let pending = "", result = null;
    for (;;) {
      const { value, done } = await reader.read();
      if (value) pending += decoder.decode(value, { stream: true });
      let cut;
      while ((cut = pending.indexOf("\n")) >= 0) {
        const event = JSON.parse(pending.slice(0, cut));
        pending = pending.slice(cut + 1);
        if (event.error) throw new Error(event.error);
        if (event.total) { bar.max = event.total; bar.value = event.progress; }
        if (event.result) result = event.result;
      }
      if (done) break;
    }
    if (!result) throw new Error("the server ended the release without a result");
    last = result;
    render(text, result);
  } catch (err) {
    setError(err.message);
  } finally {
    button.disabled = false;
    bar.hidden = true;
  }
}

function download(name, content, type) {
  const url = URL.createObjectURL(new Blob([content], { type }));
  const a = document.createElement("a");
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

async function copyText() {
  if (!last) return;
  try {
    await navigator.clipboard.writeText(last.text);
    $("copied").textContent = "Copied.";
  } catch (err) {
    const range = document.createRange();
    range.selectNodeContents($("output"));
    const selection = window.getSelection();
    selection.removeAllRanges();
    selection.addRange(range);
    $("copied").textContent = "Selected: press Ctrl+C to copy.";
  }
}

function openFile() {
  const file = $("file").files[0];
  if (!file) return;
  const reader = new FileReader();
  reader.onload = () => { $("text").value = reader.result; showCount(); };
  reader.onerror = () => setError(`Cannot read ${file.name}.`);
  reader.readAsText(file);
}

function showCount() {
  const n = $("text").value.length;
  $("chars").textContent = n ? `${n.toLocaleString()} characters` : "";
}

async function start() {
  $("form").addEventListener("submit", release);
  $("mechanism").addEventListener("change", showMechanism);
  $("epsilon-slider").addEventListener("input", showEpsilon);
  $("file").addEventListener("change", openFile);
  $("text").addEventListener("input", showCount);
  $("text").addEventListener("keydown", (e) => {
    if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) $("form").requestSubmit();
  });
  $("copy-text").addEventListener("click", copyText);
  $("download-text").addEventListener("click", () => last &&
    download("authormask-output.txt", last.text, "text/plain;charset=utf-8"));
  $("download-statement").addEventListener("click", () => last &&
    download("authormask-statement.json", JSON.stringify(last.statement, null, 2) + "\n",
      "application/json"));
  try {
    const info = await getJSON("/api/mechanisms");
    const select = $("mechanism");
    for (const spec of info.mechanisms) {
      specs[spec.name] = spec;
      const option = document.createElement("option");
      option.value = spec.name;
      option.textContent = `${spec.name}: ${spec.title}`;
      select.append(option);
    }
    select.value = specs[info.default] ? info.default : info.mechanisms[0].name;
    showMechanism();
    showEpsilon();
  } catch (err) {
    setError(`Cannot reach the server: ${err.message}`);
  }
  document.body.dataset.ready = "true";
}

document.addEventListener("DOMContentLoaded", start);
