// @ts-check
// The pit view (/pit, the floor's pages): follows /ws/pit (every table's summary, the pit's figures) and draws one
// tile per table, and the gaming day's chart when the figures come from the archive.
import { announce, byId, byIdOf, el, Feed, Liveness, showOffline, svgEl, withData } from "./common.js";
import { dayText, netTone, timeOfDay } from "./format.js";
import { drawChart } from "./pit-chart.js";
import { showChipAlerts } from "./pit-chips.js";
import { showDealers } from "./pit-dealers.js";
import { dayDiffersText, ratedTableSeen, showRated } from "./pit-rated.js";
import { ratingMoney, ratingSessions } from "./pit-rating.js";
import { ensureSignedIn } from "./signin.js";
import { formatMoney, limitsWords, locale, say, signoffAlertText, t, tOr } from "./words.js";

/**
 * A table's tile: its element, its parts, its feed's liveness (the pit's word, or its heartbeats), its last state.
 * @typedef {{el: HTMLElement, parts: Record<string, any>, live: Liveness, state: any, sparkOf?: any}} Tile
 */

const pit = byId("pit");
/** @type {Map<string, Tile>} */
const tiles = new Map();
ratingMoney((name) => tiles.get(name)?.state ?? null);  // the rating dialog reads each table's money (pit-rating.js)
let source = "tables";  // "pit": the tables are a pit aggregator's, which says when each is offline
/** @type {string[] | null} */
let links = null;  // the tables whose tile opens their table's page (the hello's `links`; null until it came)
/** @type {any} */
let figures = null;  // the latest `figures` message

/**
 * Hands an hour as the page's language writes a number: one decimal ("230.6", in French "230,6").
 * @param {number} value
 * @returns {string}
 */
function rate(value) {
  return value.toLocaleString(locale, { minimumFractionDigits: 1, maximumFractionDigits: 1 });
}

/**
 * A tile's part: a new element of class `cls` in `tile`.
 * @template {keyof HTMLElementTagNameMap} K
 * @param {HTMLElement} tile
 * @param {string} cls
 * @param {K} tag
 * @returns {HTMLElementTagNameMap[K]}
 */
function part(tile, cls, tag) {
  return tile.appendChild(el(tag, cls));
}

/**
 * The table's tile, made when the pit first names it.
 * @param {string} name
 * @param {number} heartbeatS
 * @returns {Tile}
 */
function tileFor(name, heartbeatS = 1) {
  const known = tiles.get(name);
  if (known) return known;
  const linked = links === null || links.includes(name);
  const node = linked ? el("a", "tile") : el("div", "tile");
  if (node instanceof HTMLAnchorElement) node.href = `/table?table=${encodeURIComponent(name)}`;
  node.dataset.table = name;
  node.dataset.hand = "";
  node.dataset.phase = "";
  const top = part(node, "top", "div");
  /** @type {Record<string, any>} */
  const parts = { name: part(top, "name", "span"), game: part(top, "game", "span"), open: part(top, "open", "span") };
  parts.name.textContent = name;
  parts.limits = part(node, "limits", "div");
  parts.hand = part(node, "hand", "div");
  parts.fault = part(node, "fault", "div");
  parts.fault.hidden = true;
  parts.signoff = part(node, "signoff-alert-line", "div");  // the table's own gate slowing its consoles' sign-offs
  parts.signoff.hidden = true;
  parts.signoff.setAttribute("role", "alert");
  parts.day = part(node, "day-differs", "div");  // the table's gaming day is not the floor's (pit-rated.js words it)
  parts.day.hidden = true;
  parts.figures = part(node, "figures", "div");
  parts.spark = svgEl(node, "svg", { class: "spark" });
  parts.spark.toggleAttribute("hidden", true);  // an SVG element has no `hidden` property: the attribute
  parts.offline = part(node, "offline", "div");
  parts.offline.textContent = t("pit.offline");
  /** @type {(a: string, b: string) => number} */
  const byName = (a, b) => a.localeCompare(b, "en", { numeric: true });  // uth-2 before uth-10
  const after = source === "pit" ? [...tiles.keys()].sort(byName).find((other) => byName(other, name) > 0) : undefined;
  pit.insertBefore(node, after === undefined ? null : tiles.get(after)?.el ?? null);  // the pit's tables by name
  const tile = { el: node, parts, live: new Liveness(), state: null };
  tile.live.every(heartbeatS);
  tiles.set(name, tile);
  setOffline(tile, true);
  countTables();
  return tile;
}

function countTables() {
  byId("count").textContent = tiles.size === 1 ? t("pit.tables_one") : t("pit.tables_many", { count: tiles.size });
}

function removeTile(name) {
  const tile = tiles.get(name);
  if (!tile) return;
  tile.el.remove();
  tiles.delete(name);
  countTables();
}

/**
 * @param {Tile} tile
 * @param {boolean} offline
 */
function setOffline(tile, offline) {
  showOffline(offline, tile.parts.offline, { marked: tile.el, stale: tile.el });
}

function limitsText(limits, state) {
  if (!limits || typeof limits !== "object") return "";
  const words = limitsWords(limits, (amount) => formatMoney(amount, state));
  const out = [words.maximum ? t("table.side_range", { low: words.minimum, high: words.maximum })
    : t("table.side_from", { low: words.minimum })];
  if (words.side) out.push(t("pit.side", { range: words.side }));
  return out.join(" \u00b7 ");
}

function render(state) {
  const tile = tileFor(state.name);
  tile.state = state;
  const { el: node, parts } = tile;
  const closed = state.phase === "closed" || !state.game;
  node.dataset.hand = String(state.hand ?? "");
  node.dataset.phase = String(state.phase ?? "");
  node.dataset.seq = String(state.seq ?? "");
  node.dataset.boot = String(state.boot ?? "");
  node.classList.toggle("closed", closed);
  parts.game.textContent = state.game ? tOr(`game.${state.game}`, state.game) : "";
  parts.open.textContent = closed ? t("pit.closed") : t("pit.open");
  parts.limits.textContent = limitsText(state.limits, state);
  parts.hand.replaceChildren(`${t("common.hand")} `, el("b", "", String(state.hand ?? "\u2013")), " \u00b7 ",
    el("span", "phase", state.phase ? tOr(`phase.${state.phase}`, state.phase) : ""));
  if (state.fault) {
    parts.fault.hidden = false;
    parts.fault.textContent = t("pit.fault", { what: state.fault.say ? say(state.fault.say, state)
      : `${state.fault.kind}: ${state.fault.message ?? ""}` });
    node.dataset.fault = state.fault.kind;
  } else {
    parts.fault.hidden = true;
    delete node.dataset.fault;
  }
  const differs = dayDiffersText(state.name, state.day_differs);
  parts.day.hidden = !differs;
  parts.day.textContent = differs;
  if (differs) node.dataset.dayDiffers = `${state.day_differs.day} ${state.day_differs.pit_day}`;
  else delete node.dataset.dayDiffers;
  drawFigures(tile);
}

// A tile's figures: the archive's of the gaming day when the display reads it (with the day's small chart),
// else the feed's: the hands this hour (since the display started, within the hour) and the controller's session.
/** @param {Tile} tile */
function drawFigures(tile) {
  const { parts } = tile;
  const state = tile.state ?? {};
  const day = figures?.source === "archive" && !figures.error ? figures.tables?.[tile.el.dataset.table ?? ""] : null;
  parts.figures.replaceChildren();
  /** @type {(label: string, value: string, cls: string, data: Record<string, string | number>) => void} */
  const figure = (label, value, cls, data) => {
    const span = el("span");
    span.append(`${label} `, withData(el("b", cls, value), data));
    parts.figures.appendChild(span);
  };
  /** @type {(net: number) => [string, string]} */
  const money = (net) => [formatMoney(net, state, true), netTone(net)];
  parts.figures.dataset.source = day ? "archive" : "feed";
  parts.spark.toggleAttribute("hidden", !day);
  if (day) {
    const perHour = day.hands_per_hour;
    figure(t("pit.hands_per_hour"), perHour === null ? "\u2013" : rate(perHour), "", { handsPerHour: perHour ?? "" });
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
  figure(hour.full ? t("pit.hands_this_hour") : t("pit.hands_since", { time: timeOfDay(hour.since) }), String(hour.hands), "", { hourHands: hour.hands });
  figure(t("pit.session"), String(session.hands ?? 0), "", { sessionHands: session.hands ?? 0 });
  figure(t("pit.house"), ...money(net), { houseNet: net });
}

// The pit's own line: where the figures come from, and the day's chart over the pit's tables.
function drawPit() {
  const note = byId("source");
  const panel = byId("day");
  const archive = figures?.source === "archive" && !figures.error;
  panel.hidden = !archive;
  if (!figures) {
    note.textContent = "";
  } else if (figures.error) {
    note.textContent = t("pit.source_error", { why: figures.error });
    note.dataset.source = "error";
  } else if (archive) {
    note.textContent = t("pit.source_archive", { day: dayText(figures.day, locale) || figures.day, starts: figures.starts,
      zone: figures.time_zone });
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
  const state = [...tiles.values()].map((tile) => tile.state).find((s) => s && s.currency) ?? null;
  const totals = byId("day-totals");
  const p = figures.pit;
  totals.replaceChildren();
  /** @type {(label: string, value: string, cls: string, key: string) => HTMLElement} */
  const add = (label, value, cls, key) => {
    const b = withData(el("b", cls, value), { [key]: value });
    const div = el("div", "total");
    div.append(el("span", "", label), b);
    totals.appendChild(div);
    return b;
  };
  add(t("pit.pit_hands_today"), String(p.day_hands), "", "pitHands");
  add(t("pit.hands_per_hour"), p.hands_per_hour === null ? "\u2013" : rate(p.hands_per_hour), "", "pitPerHour");
  add(t("pit.house_today"), formatMoney(p.day_win, state, true), netTone(p.day_win), "pitWinText")
    .dataset.pitWin = String(p.day_win);
  drawChart(byIdOf("day-chart", SVGSVGElement), { ...p, hours: figures.hours, elapsed: figures.elapsed },
    { big: true, state });
}

/** @param {string} name */
function heard(name) {
  const tile = tiles.get(name);
  if (!tile) return;
  tile.live.heard();
  setOffline(tile, false);
}

// `[web] pit_roles`: who may open the pit (none: a wall screen); signed in first, as the console and surveillance are
const access = await fetch("/pit/access.json", { credentials: "same-origin" }).then((r) => r.json()).catch(() => ({}));
/** @type {string[]} */
const roles = access.roles ?? [];
if (roles.length) {
  const signinRoot = byId("signin");
  signinRoot.hidden = false;
  await ensureSignedIn(signinRoot, roles, "pit.page");
  signinRoot.replaceChildren();
  signinRoot.hidden = true;
}

const link = byId("link");
new Feed("/ws/pit", {
  onOpen: () => { link.textContent = t("pit.live"); },
  onMessage: (message) => {
    if (message.kind === "hello") {
      source = message.source ?? "tables";
      links = message.links ?? [];
      /** @type {{name: string, heartbeat_s: number}[]} */
      const named = message.tables;
      for (const name of [...tiles.keys()]) if (!named.some((table) => table.name === name)) removeTile(name);
      for (const table of named) {
        tileFor(table.name, table.heartbeat_s).live.every(table.heartbeat_s);
      }
      return;
    }
    if (message.kind === "table") {
      render(message);
      showChipAlerts(message);
      const tile = tiles.get(message.name);
      if ("online" in message && tile) {  // the pit aggregator's word
        tile.live.heard();
        setOffline(tile, !message.online);
      } else {
        heard(message.name);
      }
      ratedTableSeen(message.name);
    } else if (message.kind === "rated") {  // the rated players at each table (pit-rated.js)
      showRated(message, (name) => tiles.get(name)?.state ?? null);
      ratingSessions(message);  // the gaming day's closed sessions, for the rating dialog to adjust
    } else if (message.kind === "heartbeat") {
      heard(message.name);
    } else if (message.kind === "removed") {
      removeTile(message.name);
      showChipAlerts(message, true);
    } else if (message.kind === "pit") {  // the pit aggregator answers, or not
      pit.toggleAttribute("data-pit-silent", !message.online);
      link.textContent = message.online ? t("pit.live") : t("pit.pit_silent");
    } else if (message.kind === "dealers") {
      showDealers(message);
    } else if (message.kind === "signoff_alert") {  // the sign-offs throttled here (floor/web/hub.py, floor screens only)
      const box = byId("signoff-alert");
      box.hidden = false;
      box.dataset.spacing = String(message.spacing_s);
      byId("signoff-alert-text").textContent = t(message.table ? "pit.signoff_alert_table" : "pit.signoff_alert", {
        time: timeOfDay(message.since ?? message.time), at: message.at, address: message.address, spacing: message.spacing_s,
        table: message.table ?? "" });  // a table's own gate throttling this process's key (floor/web/rating.py)
    } else if (message.kind === "table_signoff_alert") {  // a table's gate slowing its consoles' sign-offs (hub.py)
      const { parts, el: node } = tileFor(message.name);
      parts.signoff.hidden = !message.alert;
      parts.signoff.textContent = message.alert ? signoffAlertText(message.alert, message.name) : "";
      if (message.alert) node.dataset.signoffAlert = String(message.alert.spacing_s); else delete node.dataset.signoffAlert;
    } else if (message.kind === "figures") {
      figures = message;
      drawPit();
    }
    announce("croupier:rendered", { name: message.name, kind: message.kind });
  },
  onClose: () => {
    link.textContent = t("pit.reconnecting");
    for (const tile of tiles.values()) { tile.live.lost(); setOffline(tile, true); }
  },
}).start();

setInterval(() => {
  for (const tile of tiles.values()) {
    if (tile.live.silent() && !tile.el.hasAttribute("data-offline")) {
      setOffline(tile, true);
      announce("croupier:rendered", { name: tile.el.dataset.table, kind: "offline" });
    }
  }
}, 100);
window.addEventListener("resize", () => { if (figures) drawPit(); });
