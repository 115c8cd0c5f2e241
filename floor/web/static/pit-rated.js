// @ts-check
// The pit's rated players (/pit, its "rated" section): each table's open rating sessions as the archive folds them
// (the `rated` messages of /ws/pit, floor/web/figures.py), the card masked by the server: player, seat, time played,
// hands, average bet, theo to the cent, the player's win or loss, open or on a break. pit.js hands it the messages.
import { announce, byId, el, withData } from "./common.js";
import { formatMoney, locale, t } from "./words.js";

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
 * A gaming day as a short date in the page's language ("3 Dec", "3 déc.").
 * @param {string} iso
 * @returns {string}
 */
function shortDay(iso) {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(iso);
  if (!match) return iso;
  return new Intl.DateTimeFormat(locale, { day: "numeric", month: "short", timeZone: "UTC" })
    .format(new Date(Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3]))));
}

/**
 * What the pit says of a table whose `[ratings]` gaming day differs from the floor's (its summary's `day_differs`,
 * worked out by the floor's web process: protocol/gaming_day.py), or "" when it does not: its day and the pit's
 * when they differ now, else both starts.
 * @param {string} name
 * @param {any} differs
 * @returns {string}
 */
export function dayDiffersText(name, differs) {
  if (!differs || typeof differs !== "object") return "";
  const args = { table: name, day: shortDay(differs.day), pit_day: shortDay(differs.pit_day), starts: differs.starts,
    pit_starts: differs.pit_starts };
  return differs.day !== differs.pit_day ? t("pit.day_differs", args) : t("pit.day_setting_differs", args);
}

/**
 * One player's row.
 * @param {any} line
 * @param {any} state
 * @param {string} table
 * @returns {HTMLTableRowElement}
 */
function row(line, state, table) {
  const tr = withData(el("tr", `${line.on_break ? "on-break" : ""}${line.past_day ? " past-day" : ""}`.trim()), {
    ratedSeat: line.seat ?? "", player: line.player, hands: line.hands, averageBet: line.average_bet ?? "",
    theoCents: line.theo_cents, win: line.win, playedS: line.played_s, status: line.on_break ? "break" : "open",
    pastDay: line.past_day ?? "" });
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
  if (line.past_day) {  // open since a gaming day gone (its table never closed): the pit closes it, signed off
    const status = /** @type {HTMLElement} */ (tr.lastElementChild);
    status.append(" \u00b7 ", el("span", "past-day", t("pit_rated.past_day", { day: shortDay(line.past_day) })));
    const close = Object.assign(el("button", "close-past", t("pit_rated.close")), { type: "button" });
    close.addEventListener("click", () => announce("croupier:close-session", { table, seat: line.seat, since: line.start }));
    status.append(" ", close);
  }
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
  const differs = dayDiffersText(name, stateOf(name)?.day_differs);
  box.dataset.dayDiffers = differs ? "yes" : "no";
  if (differs) box.appendChild(el("p", "day-differs", differs));  // the same words as the table's tile
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
  for (const line of lines) body.appendChild(row(line, state, name));
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
 * A table's summary came: its block drawn again if it was drawn before its money was known, or its gaming day's
 * agreement with the floor's changed.
 * @param {string} name
 */
export function ratedTableSeen(name) {
  const box = document.querySelector(`[data-rated-table="${CSS.escape(name)}"]`);
  const differs = dayDiffersText(name, stateOf(name)?.day_differs) ? "yes" : "no";
  if (box instanceof HTMLElement && stateOf(name) && (box.dataset.money !== "known" || box.dataset.dayDiffers !== differs)) {
    box.replaceWith(block(name, rated?.tables?.[name] ?? []));
  }
}
