// The pit view (/pit): follows the display's /ws/pit (every table's summary) and draws one tile per table.
import { formatMoney } from "/static/money.js";

const MISSED_HEARTBEATS = 3;
const pit = document.getElementById("pit");
const tiles = new Map();  // name -> {el, parts, heartbeatMs, lastHeard, state}

function part(tile, cls, tag = "div") {
  const el = document.createElement(tag);
  el.className = cls;
  tile.appendChild(el);
  return el;
}

function tileFor(name, heartbeatS = 1) {
  let tile = tiles.get(name);
  if (tile) return tile;
  const el = document.createElement("a");
  el.className = "tile";
  el.href = `/table?table=${encodeURIComponent(name)}`;
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
  parts.offline = part(el, "offline");
  parts.offline.textContent = "OFFLINE";
  pit.appendChild(el);
  tile = { el, parts, heartbeatMs: heartbeatS * 1000, lastHeard: 0, state: null };
  tiles.set(name, tile);
  setOffline(tile, true);
  document.getElementById("count").textContent = `${tiles.size} table${tiles.size === 1 ? "" : "s"}`;
  return tile;
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
    out.push(`side ${range(limits.side_minimum, limits.side_maximum)}`);
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
  parts.game.textContent = state.game ?? "";
  parts.open.textContent = closed ? "closed" : "open";
  parts.limits.textContent = limitsText(state.limits, state);
  parts.hand.innerHTML = "";
  parts.hand.append("hand ", Object.assign(document.createElement("b"), { textContent: state.hand ?? "\u2013" }), " \u00b7 ",
    Object.assign(document.createElement("span"), { className: "phase", textContent: state.phase ?? "" }));
  if (state.fault) {
    parts.fault.hidden = false;
    parts.fault.textContent = `FAULT ${state.fault.kind}: ${state.fault.message ?? ""}`;
    el.dataset.fault = state.fault.kind;
  } else {
    parts.fault.hidden = true;
    delete el.dataset.fault;
  }
  const session = state.session ?? { hands: 0, house_net: 0 };
  const hour = state.hour ?? { hands: 0, full: true };
  const net = Number(session.house_net ?? 0);
  parts.figures.innerHTML = "";
  const figure = (label, value, cls, data) => {
    const span = document.createElement("span");
    span.append(`${label} `);
    const b = Object.assign(document.createElement("b"), { textContent: value, className: cls });
    for (const [k, v] of Object.entries(data)) b.dataset[k] = v;
    span.appendChild(b);
    parts.figures.appendChild(span);
  };
  figure(hour.full ? "hands this hour" : `hands since ${clock(hour.since)}`, String(hour.hands), "", { hourHands: hour.hands });
  figure("session", String(session.hands ?? 0), "", { sessionHands: session.hands ?? 0 });
  figure("house", formatMoney(net, state, true), net > 0 ? "win" : net < 0 ? "lose" : "", { houseNet: net });
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
  ws.onopen = () => { link.textContent = "live"; };
  ws.onmessage = (event) => {
    const message = JSON.parse(event.data);
    if (message.kind === "hello") {
      for (const t of message.tables) tileFor(t.name, t.heartbeat_s).heartbeatMs = t.heartbeat_s * 1000;
      return;
    }
    if (message.kind === "table") {
      render(message);
      heard(message.name);
    } else if (message.kind === "heartbeat") {
      heard(message.name);
    }
    document.dispatchEvent(new CustomEvent("croupier:rendered", { detail: { name: message.name, kind: message.kind } }));
  };
  ws.onclose = () => {
    link.textContent = "reconnecting\u2026";
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
connect();
