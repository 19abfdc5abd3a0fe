// The edge-agent dashboard: one plain ES module over the JSON API under /api/ (no build step, no
// dependencies). Times from the API are Unix seconds; they are shown in the browser's time zone.
// With a token (a server bound beyond loopback) every request sends `Authorization: Bearer`, images
// are fetched with it and shown from blob URLs, and the alert stream gets `?token=`.

const TOKEN_KEY = "edge-agent.token";
const DAY = 86400;

const state = {
  token: localStorage.getItem(TOKEN_KEY) || "",
  moments: null,        // the last /api/moments answer
  selected: null,       // the clip in the viewer
  follow: true,         // the timeline follows the latest clips
  lastClipEnd: 0,
  entities: [],
  entity: null,         // the open biography
  preview: null,        // the rule shown back, waiting for confirmation
  alerts: new Set(),    // alert ids listed
  lastAlertId: 0,
  stream: null,
};

// -- small helpers -------------------------------------------------------------------------------------

const $ = (selector, root = document) => root.querySelector(selector);

/** h("div", {class: "x", dataset: {id: 1}, onclick}, child, "text", null) -> an element. */
function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "class") el.className = value;
    else if (key === "dataset") Object.assign(el.dataset, value);
    else if (key === "style") el.style.cssText = value;
    else if (key.startsWith("on")) el.addEventListener(key.slice(2), value);
    else if (key in el && typeof value !== "string") el[key] = value;
    else el.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children.flat()) {
    if (child !== null && child !== undefined && child !== false) el.append(child instanceof Node ? child : String(child));
  }
  return el;
}

const pad = (n) => String(n).padStart(2, "0");
const dateFormat = new Intl.DateTimeFormat(undefined, { weekday: "short", day: "numeric", month: "short" });
function clock(t, seconds = false) {
  const d = new Date(t * 1000);
  return `${pad(d.getHours())}:${pad(d.getMinutes())}${seconds ? `:${pad(d.getSeconds())}` : ""}`;
}
const when = (t) => `${dateFormat.format(new Date(t * 1000))} ${clock(t, true)}`;
const span = (a, b) => `${when(a)} – ${new Date(a * 1000).toDateString() === new Date(b * 1000).toDateString() ? clock(b, true) : when(b)}`;
function ago(t) {
  const s = Date.now() / 1000 - t;
  if (s < 90) return "just now";
  if (s < 5400) return `${Math.round(s / 60)} min ago`;
  if (s < 2 * DAY) return `${Math.round(s / 3600)} h ago`;
  return `${Math.round(s / DAY)} days ago`;
}
function bytes(n) {
  const units = ["B", "KB", "MB", "GB", "TB"];
  let i = 0;
  while (n >= 1000 && i < units.length - 1) { n /= 1000; i++; }
  return `${n.toFixed(n < 10 && i ? 1 : 0)} ${units[i]}`;
}
function toInput(t) {
  const d = new Date(t * 1000);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}
const fromInput = (value) => (value ? new Date(value).getTime() / 1000 : null);
const entityLabel = (e) => e.name || `#${e.id} ${e.category}`;
const plural = (n, one, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

// -- messages: every API error is shown, never dropped ---------------------------------------------------

function message(text, kind = "error") {
  const box = $("#messages");
  const same = [...box.children].find((m) => m.dataset.text === text);
  if (same) {
    same.dataset.count = String(Number(same.dataset.count || 1) + 1);
    $(".count", same).textContent = `×${same.dataset.count}`;
    return;
  }
  const el = h("div", { class: `msg ${kind}`, dataset: { testid: "message", text }, role: kind === "error" ? "alert" : "status" },
    h("span", { class: "text" }, text), h("span", { class: "count" }),
    h("button", { type: "button", class: "link", "aria-label": "dismiss", onclick: () => el.remove() }, "×"));
  box.append(el);
  while (box.children.length > 5) box.firstElementChild.remove();
  if (kind !== "error") setTimeout(() => el.remove(), 6000);
}
const showError = (err) => message(err instanceof Error ? err.message : String(err), "error");
const info = (text) => message(text, "info");
/** Wraps an async handler: whatever it throws lands in the message area. */
const guard = (fn) => async (...args) => { try { return await fn(...args); } catch (err) { showError(err); } };

// -- the API, the token, images ---------------------------------------------------------------------------

class ApiError extends Error {
  constructor(status, text) { super(text); this.status = status; }
}

let tokenPrompt = null;

function setToken(token) {
  state.token = token;
  if (token) localStorage.setItem(TOKEN_KEY, token); else localStorage.removeItem(TOKEN_KEY);
  $("#token-forget").hidden = !token;
  for (const url of images.values()) url.then((u) => URL.revokeObjectURL(u), () => {});
  images.clear();
}

/** Opens the token dialog (once for any number of waiting requests); resolves when a token is entered. */
function askToken(reason) {
  if (tokenPrompt) return tokenPrompt;
  tokenPrompt = new Promise((resolve, reject) => {
    const dialog = $("#token-dialog");
    const input = $("#token-input");
    $("#token-reason").textContent = reason;
    input.value = "";
    const finish = (ok) => {
      $("#token-form").onsubmit = $("#token-cancel").onclick = dialog.oncancel = null;
      if (dialog.open) dialog.close();
      tokenPrompt = null;
      if (ok) resolve();
      else reject(new ApiError(401, "no API token given: the dashboard cannot read memory without it (reload to enter it)"));
    };
    $("#token-form").onsubmit = (event) => {
      event.preventDefault();
      const token = input.value.trim();
      if (!token) return;
      setToken(token);
      finish(true);
    };
    $("#token-cancel").onclick = () => finish(false);
    dialog.oncancel = (event) => { event.preventDefault(); finish(false); };
    dialog.showModal();
    input.focus();
  });
  return tokenPrompt;
}

/** A request to the API: parsed JSON, or the response itself with `raw`. Errors throw ApiError with the
 * server's `error` text; a 401 asks for the token and tries again. */
async function api(path, { method = "GET", json, body, type, raw = false } = {}) {
  for (;;) {
    const sent = state.token;
    const headers = {};
    if (sent) headers.Authorization = `Bearer ${sent}`;
    if (json !== undefined) { headers["Content-Type"] = "application/json"; body = JSON.stringify(json); }
    else if (type) headers["Content-Type"] = type;
    let response;
    try {
      response = await fetch(path, { method, headers, body, cache: "no-store" });
    } catch (err) {
      throw new ApiError(0, `cannot reach the server (${err.message})`);
    }
    if (response.status === 401) {
      if (state.token !== sent) continue;  // another request got a new token meanwhile
      const said = await response.json().catch(() => ({}));
      await askToken(sent ? `That token was refused: ${said.error || "401"}` : "");
      continue;
    }
    if (raw && response.ok) return response;
    const text = await response.text();
    let data = null;
    try { data = text ? JSON.parse(text) : null; } catch { /* not JSON: reported below when it is an error */ }
    if (!response.ok) throw new ApiError(response.status, (data && data.error) || `${method} ${path}: ${response.status} ${response.statusText}`);
    return data;
  }
}

const images = new Map();  // url -> Promise<blob URL>, when a token is in use

/** Shows an API image in `img`: straight from its URL without a token, else fetched with the header. */
function showImage(img, url) {
  img.dataset.src = url || "";
  img.classList.remove("missing");
  img.onerror = () => { img.classList.add("missing"); img.title = "image not in memory (any more)"; };
  if (!url) { img.removeAttribute("src"); img.classList.add("missing"); return img; }
  if (!state.token) { img.src = url; return img; }
  let blob = images.get(url);
  if (!blob) {
    blob = api(url, { raw: true }).then((r) => r.blob()).then((b) => URL.createObjectURL(b));
    images.set(url, blob);
    blob.catch(() => images.delete(url));
  }
  blob.then((src) => { if (img.dataset.src === url) img.src = src; },
    (err) => { img.classList.add("missing"); img.title = err.message; });
  return img;
}
const thumb = (url, cls = "thumb", alt = "") => showImage(h("img", { class: cls, alt }), url);

/** A confirmation dialog; resolves true when confirmed. */
function confirmDialog(title, text, ok = "OK") {
  const dialog = $("#confirm-dialog");
  $("#confirm-title").textContent = title;
  $("#confirm-text").textContent = text;
  $("#confirm-ok").textContent = ok;
  dialog.returnValue = "";
  dialog.showModal();
  return new Promise((resolve) => dialog.addEventListener("close", () => resolve(dialog.returnValue === "ok"), { once: true }));
}

// -- status line ----------------------------------------------------------------------------------------

async function refreshStatus() {
  const s = await api("/api/status");
  const parts = s.cameras.map((c) => h("span", { class: "cam", dataset: { testid: "status-camera", camera: c.camera } },
    h("span", { class: `dot ${c.writer_active ? "on" : ""}`, title: c.writer_active ? "writer active" : "writer idle" }),
    h("strong", {}, c.camera), ` ${plural(c.clips_recorded, "clip")}`,
    c.last_clip_end ? h("span", { class: "sub" }, ` · last ${clock(c.last_clip_end)}`) : null,
    h("span", { class: "sub" }, c.writer_active ? " · recording" : " · idle")));
  if (!parts.length) parts.push(h("span", { class: "sub" }, "no camera has recorded yet"));
  $("#status").replaceChildren(...parts,
    h("span", { dataset: { testid: "status-entities" } }, plural(s.entities, "entity", "entities")), h("span", {}, plural(s.rules, "rule")),
    ...(s.pending_notifications ? [h("span", { class: "warn" }, `${plural(s.pending_notifications, "notification")} pending`)] : []),
    h("span", { title: "database and media on disk" }, `memory ${bytes(s.memory_bytes)}`),
    h("span", { class: "sub" }, `v${s.version}`));
  const latest = Math.max(0, ...s.cameras.map((c) => c.last_clip_end || 0));
  if (state.lastClipEnd && latest > state.lastClipEnd && state.follow) {  // new clips: follow them
    await Promise.all([loadMoments({ keep: true }), loadEntities()]);
  }
  state.lastClipEnd = latest;
}

// -- the viewer -------------------------------------------------------------------------------------------

function showMoment(clip, note = "") {
  state.selected = clip;
  const img = $("#viewer-img");
  $("#viewer").dataset.clipId = String(clip.id);
  img.hidden = !clip.keyframe_url;
  $("#viewer-empty").hidden = !!clip.keyframe_url;
  $("#viewer-empty").textContent = clip.keyframe_url ? "" : "no keyframe kept for this moment";
  if (clip.keyframe_url) showImage(img, clip.keyframe_url);
  $("#viewer-caption").textContent = clip.caption || clip.description || "(no caption)";
  $("#viewer-time").textContent = `${clip.camera} · ${span(clip.t_start, clip.t_end)}`
    + (clip.observations !== undefined ? ` · ${plural(clip.observations, "observation")}` : "") + (note ? ` · ${note}` : "");
  for (const el of document.querySelectorAll("#timeline [data-clip-id]")) {
    const on = el.dataset.clipId === String(clip.id);
    el.classList.toggle("selected", on);
    if (on && el.classList.contains("tile")) {  // into view sideways only: the panel itself stays where it is
      const tiles = el.parentElement;
      tiles.scrollLeft = el.offsetLeft - (tiles.clientWidth - el.offsetWidth) / 2;
    }
  }
  const [prev, next] = neighbours(clip);
  $("#viewer-prev").disabled = !prev;
  $("#viewer-next").disabled = !next;
}

function findClip(id) {
  for (const camera of state.moments?.cameras || []) {
    const clip = camera.clips.find((c) => c.id === id);
    if (clip) return clip;
  }
  return null;
}

function neighbours(clip) {
  const clips = state.moments?.cameras.find((c) => c.camera === clip.camera)?.clips || [];
  const i = clips.findIndex((c) => c.id === clip.id);
  return i < 0 ? [null, null] : [clips[i - 1] || null, clips[i + 1] || null];
}

/** Jumps to a moment (an evidence item, an alert, an observation): its clip selected in the timeline,
 * which moves to the day around it when the clip is not shown. */
async function jumpTo({ clip, camera, t_start, t_end, keyframe_url, description }) {
  let found = findClip(clip);
  if (!found) {
    const current = $("#camera-select").value;
    state.follow = false;
    await loadMoments({ camera: current && current !== camera ? "" : current, start: t_start - DAY / 2, end: t_end + DAY / 2 });
    found = findClip(clip);
  }
  if (found) showMoment(found);
  else showMoment({ id: clip, camera, t_start, t_end, keyframe_url, caption: description }, "not in the timeline (folded or pruned)");
  $("#moment-panel").scrollIntoView({ block: "nearest" });
}

// -- moments timeline -------------------------------------------------------------------------------------

async function loadCameras() {
  const cameras = await api("/api/cameras");
  const select = $("#camera-select");
  const chosen = select.value;
  select.replaceChildren(h("option", { value: "" }, "all cameras"),
    ...cameras.map((c) => h("option", { value: c.name }, `${c.name} (${c.clips} clips)`)));
  select.value = cameras.some((c) => c.name === chosen) ? chosen : "";
}

let momentsAsked = 0;

async function loadMoments({ camera = $("#camera-select").value, start = null, end = null, keep = false } = {}) {
  const query = new URLSearchParams();
  if (camera) query.set("camera", camera);
  if (start !== null) query.set("start", String(start));
  if (end !== null) query.set("end", String(end));
  const asked = ++momentsAsked;
  const m = await api(`/api/moments?${query}`);
  if (asked !== momentsAsked) return;  // a later request is on its way: its answer is the one to show
  state.moments = m;
  $("#range-start").value = toInput(m.start);
  $("#range-end").value = toInput(Math.ceil(m.end / 60) * 60);
  renderTimeline(m);
  const selected = state.selected && findClip(state.selected.id);
  if (selected) showMoment(selected);
  else if (!keep || !state.selected) {
    const latest = m.cameras.flatMap((c) => c.clips).sort((a, b) => b.t_end - a.t_end)[0];
    if (latest) showMoment(latest);
  }
}

/** An episode's text without its head ('kitchen, 08:00–09:00 (hour): '); memories written before the fix say
 * '1 things seen'. */
const episodeLine = (text) => text.replace(/^[^()]*\((?:10min|hour|day)\):\s*/, "").replace(/^1 things seen\b/, "1 thing seen");

function renderTimeline(m) {
  // the track spans what was recorded in the range (a little either side), not the whole range
  const clips = m.cameras.flatMap((c) => c.clips);
  const first = Math.min(...clips.map((c) => c.t_start)), last = Math.max(...clips.map((c) => c.t_end));
  const margin = clips.length ? Math.max(30, (last - first) * 0.03) : 0;
  const lo = clips.length ? Math.max(m.start, first - margin) : m.start, hi = clips.length ? Math.min(m.end, last + margin) : m.end;
  const width = Math.max(1, hi - lo);
  const pos = (t) => Math.min(100, Math.max(0, ((t - lo) / width) * 100));
  const rows = m.cameras.map((cam) => {
    const ticks = [0, 0.25, 0.5, 0.75, 1].map((f) => h("span", { style: `left:${f * 100}%` }, clock(lo + f * width, width < 900)));
    const track = h("div", { class: "track" }, cam.clips.map((c) => h("button", {
      type: "button", class: "mark", title: `${clock(c.t_start, true)} ${c.caption || ""}`, dataset: { clipId: c.id },
      style: `left:${pos(c.t_start)}%;width:${Math.max(0.4, pos(c.t_end) - pos(c.t_start))}%`, onclick: () => showMoment(c),
    })));
    const tiles = h("div", { class: "tiles" }, cam.clips.map((c) => h("button", {
      type: "button", class: "tile", title: c.caption || "(no caption)", dataset: { testid: "clip", clipId: c.id, camera: cam.camera },
      onclick: () => showMoment(c),
    }, c.keyframe_url ? thumb(c.keyframe_url, "kf") : h("span", { class: "kf none" }),
    h("span", { class: "t" }, clock(c.t_start, true)), h("span", { class: "cap" }, c.caption || ""))));
    const scales = ["day", "hour", "10min"].map((scale) => {
      const eps = cam.episodes.filter((e) => e.scale === scale);
      if (!eps.length) return null;
      return h("div", { class: "ep-row", dataset: { scale } }, h("span", { class: "scale" }, scale),
        h("ul", {}, eps.map((e) => h("li", {
          dataset: { testid: "episode" }, title: e.text,
          onclick: () => { const c = cam.clips.find((x) => x.t_end > e.t_start && x.t_start < e.t_end); if (c) showMoment(c); },
        }, h("time", {}, `${clock(e.t_start)}–${clock(e.t_end)}`), " ", episodeLine(e.text)))));
    }).filter(Boolean);
    return h("div", { class: "cam-row", dataset: { camera: cam.camera } },
      h("div", { class: "cam-head" }, h("strong", {}, cam.camera), h("span", { class: "sub" }, ` ${plural(cam.clips.length, "clip")}`),
        cam.truncated ? h("span", { class: "warn" }, " · more clips in this range: narrow it") : null),
      track, h("div", { class: "axis" }, ticks), tiles, scales);
  });
  $("#timeline").replaceChildren(...(rows.length ? rows : [h("p", { class: "empty" }, "Nothing recorded in this range.")]));
}

// -- chat ---------------------------------------------------------------------------------------------------

function chatEntry(question) {
  const entry = h("li", { class: "exchange" }, h("div", { class: "q" }, question), h("div", { class: "a pending" }, "thinking…"));
  $("#chat-log").append(entry);
  entry.scrollIntoView({ block: "end" });
  return entry;
}

function renderAnswer(entry, r) {
  if (r.transcript) $(".q", entry).replaceChildren(h("span", { class: "sub" }, "heard: "), r.transcript);
  const total = r.timings_ms.total ?? Object.values(r.timings_ms).reduce((a, b) => a + b, 0);
  const evidence = r.evidence.map((e) => h("button", {
    type: "button", class: "ev", dataset: { testid: "evidence", clipId: e.clip, observationId: e.observation },
    title: `${e.description || ""} (${e.camera}, ${when(e.t_start)}): show this moment`, onclick: guard(() => jumpTo(e)),
  }, thumb(e.crop_url || e.keyframe_url, "thumb", e.description || ""), h("span", { class: "t" }, `${e.camera} ${clock(e.t_start)}`)));
  const text = h("p", { class: "text" }, r.text);
  $(".a", entry).replaceWith(h("div", { class: "a", dataset: { testid: "answer" } },
    text,
    r.choice ? h("p", { class: "sub" }, `choice: ${r.choice}`) : null,
    evidence.length ? h("div", { class: "evidence" }, evidence) : null,
    h("div", { class: "meta sub" }, `${r.tool} · ${Math.round(total)} ms · ${plural(r.seen.length, "observation")} read`,
      r.context ? h("details", {}, h("summary", {}, "what it read"), h("pre", {}, r.context)) : null)));
  if (text.scrollHeight > text.clientHeight + 1) {  // a long list is cut at a few lines (CSS): the rest on demand
    text.after(h("button", { type: "button", class: "link more", onclick: (event) => {
      event.target.textContent = text.classList.toggle("open") ? "less" : "all of it";
    } }, "all of it"));
  }
  entry.scrollIntoView({ block: "end" });
}

async function ask(question) {
  const entry = chatEntry(question);
  try {
    renderAnswer(entry, await api("/api/ask", { method: "POST", json: { question } }));
  } catch (err) {
    $(".a", entry).replaceWith(h("div", { class: "a error-text" }, err.message));
    showError(err);
  }
}

let recorder = null;

async function toggleMic() {
  if (recorder) { recorder.stop(); return; }
  if (!navigator.mediaDevices?.getUserMedia || !window.MediaRecorder) {
    throw new Error("recording needs a browser with MediaRecorder, and the page on https or localhost");
  }
  let stream;
  try {
    stream = await navigator.mediaDevices.getUserMedia({ audio: true });
  } catch (err) {
    throw new Error(`the microphone is not available: ${err.message}`);
  }
  const type = ["audio/webm;codecs=opus", "audio/ogg;codecs=opus", "audio/webm", "audio/ogg"].find((t) => MediaRecorder.isTypeSupported(t));
  const rec = new MediaRecorder(stream, type ? { mimeType: type } : undefined);
  const chunks = [];
  const limit = setTimeout(() => rec.state === "recording" && rec.stop(), 30000);
  rec.ondataavailable = (event) => { if (event.data.size) chunks.push(event.data); };
  rec.onstop = () => {
    clearTimeout(limit);
    stream.getTracks().forEach((t) => t.stop());
    recorder = null;
    $("#ask-mic").classList.remove("recording");
    $("#ask-mic").title = "ask by voice: click to record, click again to send";
    guard(askAudio)(new Blob(chunks, { type: rec.mimeType || type || "audio/webm" }));
  };
  rec.start();
  recorder = rec;
  $("#ask-mic").classList.add("recording");
  $("#ask-mic").title = "recording: click to stop and ask";
}

async function askAudio(blob) {
  if (!blob.size) throw new Error("nothing was recorded: is the microphone muted?");
  const entry = chatEntry("(spoken question)");
  try {
    const r = await api("/api/ask/audio", { method: "POST", body: blob, type: (blob.type || "audio/webm").split(";")[0] });
    renderAnswer(entry, r);
  } catch (err) {
    const text = err.status === 503 ? `Speech-to-text is not installed on the server: ${err.message}` : err.message;
    $(".a", entry).replaceWith(h("div", { class: "a error-text" }, text));
    showError(text);
  }
}

// -- places ---------------------------------------------------------------------------------------------

async function loadPlaces() {
  const places = await api("/api/places");
  $("#places-panel").hidden = places.length === 0;
  $("#place-count").textContent = `(${places.length})`;
  $("#place-list").replaceChildren(...places.map((p) => h("li", { class: "place", dataset: { testid: "place", placeId: p.id } },
    thumb(p.example ? `/api/crops/${p.example}` : null),
    h("span", { class: "label" },
      h("span", { class: "name" }, p.name || `place ${p.id}`),
      h("span", { class: "sub" }, `${p.camera} · ${plural(p.observations, "sighting")}${p.likeness != null ? ` · ${p.likeness.toFixed(2)} alike` : ""}${p.last_seen ? ` · ${ago(p.last_seen)}` : ""}`)),
    h("form", { class: "row", onsubmit: guard(async (event) => {
      event.preventDefault();
      const name = event.target.elements.name.value.trim();
      if (!name) return;
      await api(`/api/places/${p.id}/name`, { method: "POST", json: { name } });
      await Promise.all([loadPlaces(), loadEntities()]);
    }) }, h("input", { name: "name", type: "text", maxlength: "100", value: p.name || "", placeholder: "this is the…", "aria-label": `name place ${p.id}` }),
    h("button", { type: "submit" }, "Name")))));
}

// -- entities -------------------------------------------------------------------------------------------

async function loadEntities() {
  state.entities = await api("/api/entities");
  renderEntities();
  $("#ask-input").placeholder = exampleQuestion(state.entities);
}

/** The Ask field's example, about a thing this memory holds (never the demo's cup): the most recently seen named
 * one, else the most recently seen thing that is not a person, else a person; a neutral line over an empty memory. */
function exampleQuestion(entities) {
  const thing = entities.find((e) => e.name) || entities.find((e) => e.kind !== "person") || entities[0];
  return thing ? `Where was ${thing.name || `the ${thing.category}`} last seen?` : "Ask about what the cameras have seen";
}

function renderEntities() {
  const filter = $("#entity-filter").value.trim().toLowerCase();
  const shown = state.entities.filter((e) => !filter || `${e.name || ""} #${e.id} ${e.category} ${e.kind}`.toLowerCase().includes(filter));
  $("#entity-count").textContent = `(${state.entities.length})`;
  $("#entity-list").replaceChildren(...shown.map((e) => h("li", {},
    h("button", {
      type: "button", class: `entity ${state.entity?.entity.id === e.id ? "selected" : ""}`,
      dataset: { testid: "entity", entityId: e.id }, onclick: guard(() => openEntity(e.id)),
    }, thumb(e.crop_url), h("span", { class: "label" }, h("span", { class: "name" }, entityLabel(e)),
      h("span", { class: "sub" }, `${e.name ? `#${e.id} ${e.category} · ` : ""}${plural(e.observations, "sighting")} · ${ago(e.last_seen)}`)),
    h("span", { class: `kind ${e.kind}` }, e.kind)))));
}

async function openEntity(id) {
  const bio = await api(`/api/entities/${id}`);
  state.entity = bio;
  renderEntities();
  renderEntity(bio);
}

function closeEntity() {
  state.entity = null;
  $("#entity-detail").hidden = true;
  renderEntities();
}

async function refreshAfterCorrection(id) {
  await Promise.all([loadEntities(), loadMoments({ keep: true }), refreshStatus()]);
  if (id) await openEntity(id); else closeEntity();
}

function renderEntity(bio) {
  const e = bio.entity;
  const byId = new Map(bio.observations.map((o) => [o.id, o]));
  const moment = (o) => guard(() => jumpTo({ clip: o.clip_id, camera: o.camera, t_start: o.t_start, t_end: o.t_end,
    keyframe_url: o.keyframe_url, description: o.description }));

  const rename = h("form", { id: "rename-form", class: "row", onsubmit: guard(async (event) => {
    event.preventDefault();
    const name = $("#rename-input").value.trim();
    await api(`/api/entities/${e.id}/rename`, { method: "POST", json: { name: name || null } });
    info(name ? `#${e.id} is now called ${name}` : `#${e.id} has no name now`);
    await refreshAfterCorrection(e.id);
  }) }, h("input", { id: "rename-input", type: "text", maxlength: "100", value: e.name || "", placeholder: "name it", "aria-label": "name" }),
  h("button", { id: "rename-save", type: "submit" }, "Rename"));

  const merge = h("form", { id: "merge-form", class: "row", onsubmit: guard(async (event) => {
    event.preventDefault();
    const absorb = Number($("#merge-input").value);
    if (!Number.isInteger(absorb) || absorb < 1) throw new Error("merge: give the id of the entity to merge into this one");
    const ok = await confirmDialog(`Merge #${absorb} into ${entityLabel(e)}?`,
      `Every observation of #${absorb} moves to #${e.id}, and #${absorb} is deleted.`, "Merge");
    if (!ok) return;
    await api("/api/entities/merge", { method: "POST", json: { keep: e.id, absorb, force: $("#merge-force").checked } });
    info(`#${absorb} merged into #${e.id}`);
    await refreshAfterCorrection(e.id);
  }) }, h("input", { id: "merge-input", type: "number", min: "1", placeholder: "#id", "aria-label": "entity to merge into this one" }),
  h("label", { class: "sub", title: "merge even though a split marked them as not the same" }, h("input", { id: "merge-force", type: "checkbox" }), "force"),
  h("button", { id: "merge-btn", type: "submit" }, "Merge into this"));

  const forget = h("button", { id: "forget-btn", type: "button", class: "danger", onclick: guard(async () => {
    const ok = await confirmDialog(`Forget ${entityLabel(e)}?`, `This erases #${e.id}, its ${e.observations} observations, their crops and `
      + "every trace of it (including the captions and keyframes of its clips) for good. It cannot be undone.", "Forget");
    if (!ok) return;
    const done = await api(`/api/entities/${e.id}/forget`, { method: "POST", json: { confirm: true } });
    info(`forgot #${done.entity_id}: ${plural(done.observations, "observation")}, ${plural(done.files, "file")} (${bytes(done.bytes_freed)})`);
    await refreshAfterCorrection(null);
  }) }, "Forget…");

  const split = (o) => guard(async () => {
    const moved = bio.observations.filter((x) => x.t_start >= o.t_start).length;
    const ok = await confirmDialog(`Split ${entityLabel(e)} at ${when(o.t_start)}?`,
      `The observations from this one on (${moved} shown here) move to a new entity, marked as not the same as #${e.id}.`, "Split");
    if (!ok) return;
    const out = await api(`/api/entities/${e.id}/split`, { method: "POST", json: { observation: o.id } });
    info(`split: the later observations are now #${out.new_entity.id}`);
    await refreshAfterCorrection(e.id);
  });

  const facts = bio.facts.length ? bio.facts.map((f) => h("li", { dataset: { testid: "fact", kind: f.kind } },
    h("span", { class: "kind" }, f.kind), h("span", { class: "text" }, f.text),
    h("span", { class: "importance", title: `importance ${f.importance.toFixed(2)}, confirmed ${f.confirmations}×, last ${when(f.last_confirmed)}` },
      h("span", { class: "bar" }, h("span", { style: `width:${Math.round(f.importance * 100)}%` })), f.importance.toFixed(2))))
    : [h("li", { class: "empty" }, "nothing learnt yet")];

  const traces = bio.traces.length ? bio.traces.slice().reverse().map((t) => {
    const o = byId.get(t.last_observation_id) || byId.get(t.first_observation_id);
    return h("li", { dataset: { testid: "trace" }, class: o ? "link" : "", onclick: o ? moment(o) : null,
      title: o ? "show this moment" : "" },
    h("span", { class: "place" }, t.place || t.description), h("span", { class: "sub" },
      `${t.camera} · ${span(t.t_start, t.t_end)} · ${t.sightings} sighting${t.sightings === 1 ? "" : "s"}`));
  }) : [h("li", { class: "empty" }, "no sightings")];

  const recent = bio.recent.map((o) => h("li", { dataset: { testid: "recent" }, class: "link", onclick: moment(o), title: "show this moment" },
    h("time", {}, when(o.t_start)), " ", h("span", { class: "sub" }, o.camera), " ", o.description));

  const observations = bio.observations.slice().reverse().map((o) => h("div", { class: "obs", dataset: { testid: "observation", observationId: o.id } },
    h("button", { type: "button", class: "ev", title: `${o.description}: show this moment`, onclick: moment(o) },
      thumb(o.crop_url || o.keyframe_url, "thumb", o.description)),
    h("div", { class: "sub" }, `${o.camera} ${when(o.t_start)}`), h("div", { class: "desc" }, o.description),
    h("button", { type: "button", class: "link split", dataset: { testid: "split", observationId: o.id }, onclick: split(o),
      title: "move this observation and the later ones to a new entity" }, "split here")));

  const detail = $("#entity-detail");
  detail.dataset.entityId = String(e.id);
  detail.replaceChildren(
    h("div", { class: "ent-head" }, thumb(e.crop_url, "thumb big"),
      h("div", {}, h("h3", { id: "entity-name" }, entityLabel(e)),
        h("div", { class: "sub" }, `#${e.id} · ${e.category === e.kind ? e.kind : `${e.kind} · ${e.category}`} · ${plural(e.observations, "observation")}`),
        h("div", { class: "sub" }, `seen ${span(e.first_seen, e.last_seen)}`),
        bio.taken ? h("div", { class: "sub taken", dataset: { testid: "taken" } },
          `taken ${when(bio.taken.t)} on ${bio.taken.camera}` + (bio.taken.by_entity_id != null ? ` by #${bio.taken.by_entity_id}` : "")) : null),
      h("button", { type: "button", class: "link close", title: "close", "aria-label": "close", onclick: closeEntity }, "×")),
    h("div", { class: "actions" }, rename, merge, forget),
    h("h4", {}, "Facts"), h("ul", { id: "facts", class: "facts" }, facts),
    h("h4", {}, "Sightings"), h("ul", { id: "traces", class: "traces" }, traces),
    h("h4", {}, "Recent activity"), h("ul", { id: "recent", class: "recent" }, recent),
    h("h4", {}, `Biography (${plural(bio.observations_total, "observation")}${bio.observations_total > bio.observations.length ? `, the latest ${bio.observations.length}` : ""})`),
    h("div", { id: "observations", class: "observations" }, observations));
  detail.hidden = false;
}

// -- rules and alerts --------------------------------------------------------------------------------------

async function previewRule(event) {
  event.preventDefault();
  const text = $("#rule-input").value.trim();
  if (!text) throw new Error("write the rule first, e.g. 'notify me when a person appears'");
  const p = await api("/api/rules/read", { method: "POST", json: { text } });  // a refusal is an answer: no 422 logged
  if (!p.readable) {
    clearPreview();
    showRuleProblem(p.reason);
    return;
  }
  $("#rule-problem").hidden = true;
  state.preview = p;
  $("#rule-description").textContent = p.description;
  $("#rule-predicate").textContent = JSON.stringify(p.predicate);
  $("#rule-preview").hidden = false;
  $("#rule-confirm").focus();
}

/** Why the reader could not read the rule, in its words, and the rules it offers that would read (each a button
 * that tries it). */
function showRuleProblem(reason) {
  const [why, offered = ""] = reason.split("; rules that read: ");
  const examples = offered ? offered.replace(/^'|'$/g, "").split("'; '") : [];
  $("#rule-reason").textContent = why;
  $("#rule-examples").replaceChildren(...(examples.length ? [h("span", { class: "sub" }, "Rules that read here:")] : []),
    ...examples.map((rule) => h("button", { type: "button", class: "link", dataset: { testid: "rule-example" },
      onclick: guard(async (event) => { $("#rule-input").value = rule; await previewRule(event); }) }, rule)));
  $("#rule-problem").hidden = false;
}

function clearPreview() {
  state.preview = null;
  $("#rule-preview").hidden = true;
  $("#rule-problem").hidden = true;
}

async function addRule() {
  if (!state.preview) return;
  const body = { text: state.preview.text };
  const cooldown = $("#rule-cooldown").value;
  if (cooldown !== "") body.cooldown_s = Number(cooldown);
  const rule = await api("/api/rules", { method: "POST", json: body });
  clearPreview();
  $("#rule-input").value = "";
  $("#rule-cooldown").value = "";
  info(`rule #${rule.id} added: ${rule.description}`);
  await Promise.all([loadRules(), refreshStatus()]);
}

async function loadRules() {
  const rules = await api("/api/rules");
  $("#rule-list").replaceChildren(...(rules.length ? rules.map((r) => h("li", { dataset: { testid: "rule", ruleId: r.id } },
    h("div", {}, h("span", { class: "text" }, r.text), h("div", { class: "sub" }, `${r.description} · quiet ${Math.round(r.cooldown_s)} s after an alert`)),
    h("button", { type: "button", class: "link", dataset: { testid: "rule-remove" }, title: "remove this rule (its alerts stay listed)",
      onclick: guard(async () => {
        if (!await confirmDialog("Remove this rule?", `"${r.text}" stops raising alerts; its alerts stay listed.`, "Remove")) return;
        await api(`/api/rules/${r.id}`, { method: "DELETE" });
        info(`rule #${r.id} removed`);
        await Promise.all([loadRules(), refreshStatus()]);
      }) }, "remove"))) : [h("li", { class: "empty" }, "No rules yet: write one above.")]));
}

function alertItem(a, live) {
  return h("li", {
    class: `alert ${live ? "live" : ""} ${a.clip_id ? "link" : ""}`, dataset: { testid: "alert", alertId: a.id },
    title: a.clip_id ? "show this moment" : "",
    onclick: a.clip_id ? guard(() => jumpTo({ clip: a.clip_id, camera: a.camera, t_start: a.t, t_end: a.detected_at || a.t,
      keyframe_url: a.keyframe_url, description: a.message })) : null,
  }, thumb(a.crop_url || a.keyframe_url),
  h("div", {}, h("div", { class: "text" }, live ? h("span", { class: "badge" }, "new") : null, a.message),
    h("div", { class: "sub" }, `${a.camera || ""} · ${when(a.t)} · rule: ${a.rule}`),
    a.deliveries.some((d) => d.status === "failed") ? h("div", { class: "warn" }, "a delivery failed") : null));
}

function addAlert(a, live) {
  if (state.alerts.has(a.id)) return;
  state.alerts.add(a.id);
  state.lastAlertId = Math.max(state.lastAlertId, a.id);
  const list = $("#alert-list");
  $(".empty", list)?.remove();
  const item = alertItem(a, live);
  const after = [...list.children].find((li) => Number(li.dataset.alertId) < a.id);
  list.insertBefore(item, after || null);
  if (live) document.title = `(${document.querySelectorAll("#alert-list .live").length}) edge-agent`;
}

async function loadAlerts() {
  const alerts = await api("/api/alerts?limit=50");
  $("#alert-list").replaceChildren();
  state.alerts.clear();
  for (const a of alerts) addAlert(a, false);
  if (!alerts.length) $("#alert-list").append(h("li", { class: "empty" }, "No alerts yet."));
}

function setStream(text, stateName) {
  const pill = $("#stream-state");
  pill.textContent = text;
  pill.dataset.state = stateName;
}

/** The live alerts: an EventSource on /api/alerts/stream (with ?token=, which EventSource needs, having no headers). */
function startStream() {
  state.stream?.close();
  const query = new URLSearchParams({ since_id: String(state.lastAlertId) });
  if (state.token) query.set("token", state.token);
  const source = new EventSource(`/api/alerts/stream?${query}`);
  state.stream = source;
  setStream("alerts: connecting", "connecting");
  source.addEventListener("ready", () => setStream("alerts: live", "live"));
  source.addEventListener("alert", (event) => {
    try {
      addAlert(JSON.parse(event.data), true);
    } catch (err) {
      showError(`an alert from the stream could not be read: ${err.message}`);
    }
    guard(refreshStatus)();
  });
  source.onerror = () => {
    if (source.readyState === EventSource.CLOSED) {  // refused (a token?): look again in a while
      setStream("alerts: off", "off");
      showError("the live alert stream was refused or closed; trying again in 10 s");
      setTimeout(() => { if (state.stream === source) guard(async () => { await refreshStatus(); startStream(); })(); }, 10000);
    } else {
      setStream("alerts: reconnecting", "connecting");
    }
  };
}

// -- start ---------------------------------------------------------------------------------------------

function wire() {
  $("#ask-form").addEventListener("submit", guard(async (event) => {
    event.preventDefault();
    const input = $("#ask-input");
    const question = input.value.trim();
    if (!question) return;
    input.value = "";
    await ask(question);
  }));
  $("#ask-mic").addEventListener("click", guard(toggleMic));
  $("#range-form").addEventListener("submit", guard(async (event) => {
    event.preventDefault();
    state.follow = false;
    await loadMoments({ start: fromInput($("#range-start").value), end: fromInput($("#range-end").value) });
  }));
  $("#range-latest").addEventListener("click", guard(async () => { state.follow = true; await loadMoments(); }));
  $("#camera-select").addEventListener("change", guard(async () => {
    await loadMoments(state.follow ? {} : { start: fromInput($("#range-start").value), end: fromInput($("#range-end").value) });
  }));
  $("#viewer-prev").addEventListener("click", () => { const [p] = neighbours(state.selected); if (p) showMoment(p); });
  $("#viewer-next").addEventListener("click", () => { const [, n] = neighbours(state.selected); if (n) showMoment(n); });
  $("#entity-filter").addEventListener("input", renderEntities);
  $("#rule-form").addEventListener("submit", guard(previewRule));
  $("#rule-input").addEventListener("input", clearPreview);
  $("#rule-confirm").addEventListener("click", guard(addRule));
  $("#rule-cancel").addEventListener("click", clearPreview);
  $("#token-forget").hidden = !state.token;
  $("#token-forget").addEventListener("click", () => { setToken(""); state.stream?.close(); setStream("alerts: off", "off"); location.reload(); });
  window.addEventListener("unhandledrejection", (event) => showError(event.reason));
}

async function start() {
  wire();
  try {
    await refreshStatus();  // asks for the token first, when one is needed
  } catch (err) {
    showError(err);
  }
  const loads = [loadCameras(), loadMoments(), loadEntities(), loadPlaces(), loadRules(), loadAlerts()];
  for (const result of await Promise.allSettled(loads)) if (result.status === "rejected") showError(result.reason);
  startStream();
  setInterval(guard(refreshStatus), 10000);
  document.body.dataset.ready = "true";
}

start();
