// The pit view (/pit): follows the display's /ws/pit (every table's summary, the pit's figures) and draws one
// tile per table, and the gaming day's chart when the figures come from the archive.
import { formatMoney, say, t, tOr } from "/static/words.js";
import { drawChart } from "/static/pit-chart.js";

const MISSED_HEARTBEATS = 3;
const pit = document.getElementById("pit");
const tiles = new Map();  // name -> {el, parts, heartbeatMs, lastHeard, state}
let source = "tables";  // "pit": the tables are a pit aggregator's, which says when each is offline
let links = null;  // the tables with a display of their own here (null: every one)
let figures = null;  // the latest `figures` message

function part(tile, cls, tag = "div") {
  const el = document.createElement(tag);
  el.className = cls;
  tile.appendChild(el);
  return el;
}

function tileFor(name, heartbeatS = 1) {
  let tile = tiles.get(name);
  if (tile) return tile;
  const linked = links === null || links.includes(name);
  const el = document.createElement(linked ? "a" : "div");
  el.className = "tile";
  if (linked) el.href = `/table?table=${encodeURIComponent(name)}`;
  el.dataset.table = name;
  el.dataset.hand = "";
  el.dataset.phase = "";
  const top = part(el, "top");
  const parts = { name: part(top, "name", "span"), game: part(top, "game", "span"), open: part(top, "open", "span") };
  parts.name.textContent = name;
  parts.limits = part(el, "limits");
  parts.hand = part(el, "hand");
  parts.fault = part(el, "fault");
  parts.fault.hidden = true;
  parts.figures = part(el, "figures");
  parts.spark = el.appendChild(document.createElementNS("http://www.w3.org/2000/svg", "svg"));
  parts.spark.setAttribute("class", "spark");
  parts.spark.toggleAttribute("hidden", true);  // an SVG element has no `hidden` property: the attribute
  parts.offline = part(el, "offline");
  parts.offline.textContent = t("pit.offline");
  const byName = (a, b) => a.localeCompare(b, "en", { numeric: true });  // uth-2 before uth-10
  const after = source === "pit" ? [...tiles.keys()].sort(byName).find((other) => byName(other, name) > 0) : undefined;
  pit.insertBefore(el, after === undefined ? null : tiles.get(after).el);  // the pit's tables by name
  tile = { el, parts, heartbeatMs: heartbeatS ? heartbeatS * 1000 : Infinity, lastHeard: 0, state: null };
  tiles.set(name, tile);
  setOffline(tile, true);
  countTables();
  return tile;
}

function countTables() {
  document.getElementById("count").textContent = tiles.size === 1 ? t("pit.tables_one") : t("pit.tables_many", { count: tiles.size });
}

function removeTile(name) {
  const tile = tiles.get(name);
  if (!tile) return;
  tile.el.remove();
  tiles.delete(name);
  countTables();
}

function setOffline(tile, offline) {
  tile.parts.offline.hidden = !offline;
  if (offline) tile.el.dataset.offline = "";
  else delete tile.el.dataset.offline;
  tile.el.classList.toggle("stale", offline);  // nothing stale shown as current
}

function limitsText(limits, state) {
  if (!limits || typeof limits !== "object") return "";
  const range = (lo, hi) => `${formatMoney(lo, state)}\u2013${formatMoney(hi, state)}`;
  const out = [];
  if (Number.isInteger(limits.minimum) && Number.isInteger(limits.maximum)) out.push(range(limits.minimum, limits.maximum));
  if (Number.isInteger(limits.side_minimum) && Number.isInteger(limits.side_maximum)) {
    out.push(t("pit.side", { range: range(limits.side_minimum, limits.side_maximum) }));
  }
  return out.join(" \u00b7 ");
}

function clock(epochS) {
  return new Date(epochS * 1000).toTimeString().slice(0, 5);
}

function render(state) {
  const tile = tileFor(state.name);
  tile.state = state;
  const { el, parts } = tile;
  const closed = state.phase === "closed" || !state.game;
  el.dataset.hand = String(state.hand ?? "");
  el.dataset.phase = String(state.phase ?? "");
  el.dataset.seq = String(state.seq ?? "");
  el.dataset.boot = String(state.boot ?? "");
  el.classList.toggle("closed", closed);
  parts.game.textContent = state.game ? tOr(`game.${state.game}`, state.game) : "";
  parts.open.textContent = closed ? t("pit.closed") : t("pit.open");
  parts.limits.textContent = limitsText(state.limits, state);
  parts.hand.innerHTML = "";
  parts.hand.append(`${t("common.hand")} `, Object.assign(document.createElement("b"), { textContent: state.hand ?? "\u2013" }), " \u00b7 ",
    Object.assign(document.createElement("span"), { className: "phase", textContent: state.phase ? tOr(`phase.${state.phase}`, state.phase) : "" }));
  if (state.fault) {
    parts.fault.hidden = false;
    parts.fault.textContent = t("pit.fault", { what: state.fault.say ? say(state.fault.say, state)
      : `${state.fault.kind}: ${state.fault.message ?? ""}` });
    el.dataset.fault = state.fault.kind;
  } else {
    parts.fault.hidden = true;
    delete el.dataset.fault;
  }
  drawFigures(tile);
}

// A tile's figures: the archive's of the gaming day when the display reads it (with the day's small chart),
// else the feed's: the hands this hour (since the display started, within the hour) and the controller's session.
function drawFigures(tile) {
  const { parts } = tile;
  const state = tile.state ?? {};
  const day = figures?.source === "archive" && !figures.error ? figures.tables?.[tile.el.dataset.table] : null;
  parts.figures.innerHTML = "";
  const figure = (label, value, cls, data) => {
    const span = document.createElement("span");
    span.append(`${label} `);
    const b = Object.assign(document.createElement("b"), { textContent: value, className: cls });
    for (const [k, v] of Object.entries(data)) b.dataset[k] = v;
    span.appendChild(b);
    parts.figures.appendChild(span);
  };
  const money = (net) => [formatMoney(net, state, true), net > 0 ? "win" : net < 0 ? "lose" : ""];
  parts.figures.dataset.source = day ? "archive" : "feed";
  parts.spark.toggleAttribute("hidden", !day);
  if (day) {
    const perHour = day.hands_per_hour;
    figure(t("pit.hands_per_hour"), perHour === null ? "\u2013" : perHour.toFixed(1), "", { handsPerHour: perHour ?? "" });
    figure(t("pit.hands_today"), String(day.day_hands), "", { dayHands: day.day_hands });
    figure(t("pit.house_today"), ...money(day.day_win), { dayWin: day.day_win });
    if (tile.sparkOf !== figures) {  // drawn once for each reading, not at each of the table's updates
      drawChart(parts.spark, { ...day, hours: figures.hours, elapsed: figures.elapsed }, { state });
      tile.sparkOf = figures;
    }
    return;
  }
  const session = state.session ?? { hands: 0, house_net: 0 };
  const hour = state.hour ?? { hands: 0, full: true };
  const net = Number(session.house_net ?? 0);
  figure(hour.full ? t("pit.hands_this_hour") : t("pit.hands_since", { time: clock(hour.since) }), String(hour.hands), "", { hourHands: hour.hands });
  figure(t("pit.session"), String(session.hands ?? 0), "", { sessionHands: session.hands ?? 0 });
  figure(t("pit.house"), ...money(net), { houseNet: net });
}

// The pit's own line: where the figures come from, and the day's chart over the pit's tables.
function drawPit() {
  const note = document.getElementById("source");
  const panel = document.getElementById("day");
  const archive = figures?.source === "archive" && !figures.error;
  panel.hidden = !archive;
  if (!figures) {
    note.textContent = "";
  } else if (figures.error) {
    note.textContent = t("pit.source_error", { why: figures.error });
    note.dataset.source = "error";
  } else if (archive) {
    note.textContent = t("pit.source_archive", { day: figures.day, starts: figures.starts, zone: figures.time_zone });
    note.dataset.source = "archive";
  } else {
    note.textContent = t("pit.source_feed");
    note.dataset.source = "feed";
  }
  for (const tile of tiles.values()) {
    tile.sparkOf = null;  // a new reading, or a resized screen: every tile's chart drawn again
    drawFigures(tile);
  }
  if (!archive) return;
  const state = [...tiles.values()].map((t) => t.state).find((s) => s && s.currency) ?? null;
  const totals = document.getElementById("day-totals");
  const p = figures.pit;
  totals.innerHTML = "";
  const add = (label, value, cls, key) => {
    const div = Object.assign(document.createElement("div"), { className: "total" });
    div.append(Object.assign(document.createElement("span"), { textContent: label }));
    const b = Object.assign(document.createElement("b"), { textContent: value, className: cls });
    b.dataset[key] = value;
    div.appendChild(b);
    totals.appendChild(div);
  };
  add(t("pit.pit_hands_today"), String(p.day_hands), "", "pitHands");
  add(t("pit.hands_per_hour"), p.hands_per_hour === null ? "\u2013" : p.hands_per_hour.toFixed(1), "", "pitPerHour");
  add(t("pit.house_today"), formatMoney(p.day_win, state, true), p.day_win > 0 ? "win" : p.day_win < 0 ? "lose" : "", "pitWinText");
  totals.lastChild.querySelector("b").dataset.pitWin = String(p.day_win);
  drawChart(document.getElementById("day-chart"), { ...p, hours: figures.hours, elapsed: figures.elapsed },
    { big: true, state });
}

function heard(name) {
  const tile = tiles.get(name);
  if (!tile) return;
  tile.lastHeard = performance.now();
  setOffline(tile, false);
}

function connect() {
  const ws = new WebSocket(`${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws/pit`);
  const link = document.getElementById("link");
  ws.onopen = () => { link.textContent = t("pit.live"); };
  ws.onmessage = (event) => {
    const message = JSON.parse(event.data);
    if (message.kind === "hello") {
      source = message.source ?? "tables";
      links = source === "pit" ? (message.links ?? []) : null;
      for (const name of [...tiles.keys()]) if (!message.tables.some((t) => t.name === name)) removeTile(name);
      for (const t of message.tables) {
        tileFor(t.name, t.heartbeat_s).heartbeatMs = t.heartbeat_s ? t.heartbeat_s * 1000 : Infinity;
      }
      return;
    }
    if (message.kind === "table") {
      render(message);
      if ("online" in message) {  // the pit aggregator's word
        tiles.get(message.name).lastHeard = performance.now();
        setOffline(tiles.get(message.name), !message.online);
      } else {
        heard(message.name);
      }
    } else if (message.kind === "heartbeat") {
      heard(message.name);
    } else if (message.kind === "removed") {
      removeTile(message.name);
    } else if (message.kind === "pit") {  // the pit aggregator answers, or not
      if (message.online) delete pit.dataset.pitSilent;
      else pit.dataset.pitSilent = "";
      link.textContent = message.online ? t("pit.live") : t("pit.pit_silent");
    } else if (message.kind === "figures") {
      figures = message;
      drawPit();
    }
    document.dispatchEvent(new CustomEvent("croupier:rendered", { detail: { name: message.name, kind: message.kind } }));
  };
  ws.onclose = () => {
    link.textContent = t("pit.reconnecting");
    for (const tile of tiles.values()) { tile.lastHeard = 0; setOffline(tile, true); }
    setTimeout(connect, 1000);
  };
}

setInterval(() => {
  const now = performance.now();
  for (const tile of tiles.values()) {
    if (now - tile.lastHeard > MISSED_HEARTBEATS * tile.heartbeatMs && !tile.el.hasAttribute("data-offline")) {
      setOffline(tile, true);
      document.dispatchEvent(new CustomEvent("croupier:rendered", { detail: { name: tile.el.dataset.table, kind: "offline" } }));
    }
  }
}, 100);
window.addEventListener("resize", () => { if (figures) drawPit(); });
connect();
