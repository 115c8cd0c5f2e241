// @ts-check
// The pit's rated players (/pit, its "rated" section): each table's open rating sessions as the archive folds them
// (the `rated` messages of /ws/pit, floor/web/figures.py), the card masked by the server: player, seat, time played,
// hands, average bet, theo to the cent, the player's win or loss, open or on a break. pit.js hands it the messages.
import { byId, el, withData } from "./common.js";
import { formatMoney, t } from "./words.js";

/** @type {any} */
let rated = null;  // the latest `rated` message
/** @type {(name: string) => any} */
let stateOf = () => null;  // a table's latest summary (its currency and decimals), from pit.js

/**
 * Time played as hours and minutes ("0:07", "2:35").
 * @param {number} seconds
 * @returns {string}
 */
function played(seconds) {
  const minutes = Math.floor(Math.max(0, seconds) / 60);
  return `${Math.floor(minutes / 60)}:${String(minutes % 60).padStart(2, "0")}`;
}

/**
 * One player's row.
 * @param {any} line
 * @param {any} state
 * @returns {HTMLTableRowElement}
 */
function row(line, state) {
  const tr = withData(el("tr", line.on_break ? "on-break" : ""), {
    ratedSeat: line.seat ?? "", player: line.player, hands: line.hands, averageBet: line.average_bet ?? "",
    theoCents: line.theo_cents, win: line.win, playedS: line.played_s, status: line.on_break ? "break" : "open" });
  const money = (/** @type {number | null} */ amount, signed = false) => amount === null || amount === undefined
    ? "\u2013" : formatMoney(amount, state, signed);
  const theo = el("td", "num", money(line.theo_cents));
  if (!line.theo_complete) {  // a circle staked whose edge the table does not know: theo leaves it out
    theo.append(el("sup", "", "*"));
    theo.title = t("pit_rated.theo_incomplete");
  }
  const win = el("td", "num", money(line.win, true));  // the player's side: no house colours
  tr.append(el("td", "seat", String(line.seat ?? "\u2013")),
    el("td", "player", line.declined ? t("pit_rated.declined") : line.player),  // the pit's rating, no card
    el("td", "num", played(line.played_s ?? 0)), el("td", "num", String(line.hands)), el("td", "num", money(line.average_bet)),
    theo, win, el("td", "status", line.on_break ? t("pit_rated.on_break") : t("pit_rated.playing")));
  return tr;
}

/**
 * One table's block: its name, how many are rated, their rows.
 * @param {string} name
 * @param {any[]} lines
 * @returns {HTMLElement}
 */
function block(name, lines) {
  const box = withData(el("div", "rated-table"), { ratedTable: name, count: lines.length });
  if (stateOf(name)) box.dataset.money = "known";
  const head = el("h3", "");
  head.append(el("span", "name", name), el("span", "count",
    lines.length === 1 ? t("pit_rated.players_one") : t("pit_rated.players_many", { count: lines.length })));
  box.appendChild(head);
  if (!lines.length) {
    box.appendChild(el("p", "none", t("pit_rated.none")));
    return box;
  }
  const table = el("table", "");
  const labels = ["seat", "player", "time", "hands", "average_bet", "theo", "win", "status"];
  const tr = el("tr", "");
  for (const label of labels) tr.appendChild(el("th", label === "seat" || label === "player" || label === "status" ? "" : "num", t(`pit_rated.${label}`)));
  table.appendChild(el("thead", "")).appendChild(tr);
  const body = table.appendChild(el("tbody", ""));
  const state = stateOf(name);
  for (const line of lines) body.appendChild(row(line, state));
  box.appendChild(table);
  return box;
}

/** The section drawn again from the latest message. */
function draw() {
  const section = byId("rated");
  const note = byId("rated-note");
  const list = byId("rated-tables");
  section.hidden = rated === null;
  if (rated === null) return;
  list.replaceChildren();
  if (rated.error) {
    note.textContent = t("pit_rated.error", { why: rated.error });
    note.hidden = false;
    section.dataset.source = "error";
    return;
  }
  note.hidden = true;
  section.dataset.source = "archive";
  const tables = rated.tables ?? {};
  const tiles = [...document.querySelectorAll("#pit [data-table]")].map((tile) => tile instanceof HTMLElement ? tile.dataset.table : "");
  const names = Object.keys(tables).sort((a, b) => (tiles.indexOf(a) + 1 || Infinity) - (tiles.indexOf(b) + 1 || Infinity));
  for (const name of names) list.appendChild(block(name, tables[name]));  // in the tiles' order
}

/**
 * A `rated` message from /ws/pit.
 * @param {any} message
 * @param {(name: string) => any} tableState a table's latest summary, for its money
 */
export function showRated(message, tableState) {
  rated = message;
  stateOf = tableState;
  draw();
}

/**
 * A table's summary came: its block drawn again if it was drawn before its money was known.
 * @param {string} name
 */
export function ratedTableSeen(name) {
  const box = document.querySelector(`[data-rated-table="${CSS.escape(name)}"]`);
  if (box instanceof HTMLElement && box.dataset.money !== "known" && stateOf(name)) {
    box.replaceWith(block(name, rated?.tables?.[name] ?? []));
  }
}
