// @ts-check
// The pit's rating steps (/pit, its "rating" section; floor/web/rating.py): a rating session opened at a seat (a
// player card, or none: the player declined it), closed, or adjusted (the unrated play entered as hands at an
// average Ante, the start or end entered), each signed off by a supervisor's PIN in the dialog. The table checks
// the step and the PIN and answers in its own words (`say`); the page decides no rule. An adjustment names the
// session open at the seat, or one of the gaming day closed already (the `rated` message's `closed`, by its start);
// with a gaming day typed, one of that day's closed sessions, read from the archive (/pit/rating/day.json): a past
// day's is adjusted in the archive (POST /pit/rating/past, floor/web/rating_past.py), this day's at the table.
// Shown only to a user signed in as the pit or a supervisor, for the tables this process has a command channel to.
// The average bet is read in the chosen table's money (its decimals, from the table's summary pit.js hands over),
// refused until that is known.
import { byId, el, withData } from "./common.js";
import { locale, refusalText, t } from "./words.js";
import { dayText, parseAmount, parseClock, parseDay } from "./format.js";

const section = byId("rating");
const dialog = /** @type {HTMLDialogElement} */ (byId("rating-dialog"));
const form = /** @type {HTMLFormElement} */ (byId("rating-form"));
const result = byId("rating-result");
let sent = 0;
/** @type {number | null} */
let closeSince = null;  // a past day's session closed from its row: its start (the end typed is the first after it)
/** @type {(name: string) => any} */
let stateOf = () => null;  // a table's latest summary (its currency and decimals), from pit.js

/** @type {Record<string, any[]>} */
let closedSessions = {};
/** @type {any[] | null} */
let daySessions = null;  // the typed gaming day's closed sessions at the table chosen (the archive's), or none asked  // table -> its gaming day's closed sessions, the last ended first (the `rated` message's)

/**
 * The rated players' message (pit.js hands it over): each table's closed sessions of the gaming day, offered to adjust.
 * @param {any} message
 */
export function ratingSessions(message) {
  if (!message || typeof message.closed !== "object" || message.closed === null) return;
  closedSessions = message.closed;
  if (form.elements.namedItem("session")) fillSessions();
}

/**
 * A time of the table's clock (seconds since the epoch) as the pit reads it: hours and minutes.
 * @param {number | null | undefined} at
 */
function clockOf(at) {
  if (typeof at !== "number") return "\u2013";
  return new Date(at * 1000).toLocaleTimeString(document.documentElement.lang,
    { hour: "2-digit", minute: "2-digit", hourCycle: "h23" });
}

/** The session field's choices for the table chosen: the one open at the seat, or a closed one of the day. */
function fillSessions() {
  const select = /** @type {HTMLSelectElement} */ (form.elements.namedItem("session"));
  const chosen = select.value;
  const lines = daySessions ?? closedSessions[field("table").value] ?? [];
  const first = daySessions ? [] : [Object.assign(el("option", "", t("pit_rating.session_open")), { value: "" })];
  select.replaceChildren(...first,
    ...lines.map((line) => withData(Object.assign(el("option", "", t("pit_rating.session_closed", {
      seat: line.seat ?? "\u2013", player: line.player, start: clockOf(line.start), end: clockOf(line.end) })),
    { value: String(line.start) }), { seat: String(line.seat ?? ""), version: String(line.version ?? ""),
      past: String(daySessions !== null && !line.today) })));
  select.value = lines.some((line) => String(line.start) === chosen) ? chosen : (first.length ? "" : select.value);
  select.dataset.sessions = String(lines.length);
  select.dispatchEvent(new Event("change"));
}

/** The typed gaming day's closed sessions at the table chosen, from the archive (none typed: the table's own). */
async function readDay() {
  const typed = field("day").value;
  const day = typed.trim() ? parseDay(typed, locale) : "";  // typed as the page's language writes a date
  const table = field("table").value;
  const note = /** @type {HTMLElement} */ (form.querySelector(".rating-day-note"));
  daySessions = null;
  note.textContent = "";
  if (day === null) {
    daySessions = [];
    note.textContent = t("pit_rating.bad_day");
  } else if (day) {
    field("day").value = dayText(day, locale);  // written back in full: "3/12/2026" reads "03/12/2026"
    const response = await fetch(`/pit/rating/day.json?table=${encodeURIComponent(table)}&day=${encodeURIComponent(day)}`,
      { credentials: "same-origin" }).catch(() => null);
    const reply = response ? await response.json().catch(() => null) : null;
    if (parseDay(field("day").value, locale) !== day || field("table").value !== table) return;  // changed meanwhile
    if (Array.isArray(reply?.sessions)) {
      daySessions = reply.sessions;
      note.textContent = t(reply.sessions.length ? "pit_rating.day_sessions" : "pit_rating.day_none",
        { table, count: reply.sessions.length });
    } else {
      daySessions = [];
      note.textContent = reply ? refusalText(reply) : t("pit_rating.archive");
    }
  }
  fillSessions();
}

/**
 * Where the dialog finds each table's money: pit.js hands over its tiles' latest summaries.
 * @param {(name: string) => any} tableState
 */
export function ratingMoney(tableState) {
  stateOf = tableState;
}

/**
 * A form field by its name.
 * @param {string} name
 * @returns {HTMLInputElement}
 */
const field = (name) => /** @type {HTMLInputElement} */ (form.elements.namedItem(name));

/**
 * A labelled field of the form.
 * @param {string} name
 * @param {HTMLElement} input
 * @returns {HTMLLabelElement}
 */
function labelled(name, input) {
  const label = /** @type {HTMLLabelElement} */ (el("label", `rating-${name}`));
  label.append(el("span", "", t(`pit_rating.${name}`)), input);
  return label;
}

/**
 * An input element.
 * @param {string} name
 * @param {string} type
 * @param {Record<string, string>} [attrs]
 * @returns {HTMLInputElement}
 */
function input(name, type, attrs = {}) {
  const node = /** @type {HTMLInputElement} */ (el("input"));
  Object.assign(node, { name, type });
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  return node;
}

/**
 * A time of day's field: typed on the 24-hour clock (`parseClock`), not the browser's time field, whose hours follow
 * the browser's locale rather than the page's language.
 * @param {string} name
 * @returns {HTMLInputElement}
 */
function clock(name) {
  return input(name, "text", { inputmode: "numeric", autocomplete: "off", maxlength: "5",
    placeholder: t("pit_rating.time_format") });
}

/**
 * The dialog's form for these tables.
 * @param {string[]} tables
 */
function build(tables) {
  const table = /** @type {HTMLSelectElement} */ (el("select"));
  table.name = "table";
  for (const name of tables) table.append(Object.assign(el("option", "", name), { value: name }));
  const action = /** @type {HTMLSelectElement} */ (el("select"));
  action.name = "action";
  for (const step of ["open", "adjust", "close"]) {
    action.append(Object.assign(el("option", "", t(`pit_rating.${step}`)), { value: step }));
  }
  const session = /** @type {HTMLSelectElement} */ (el("select"));
  session.name = "session";
  session.addEventListener("change", () => {  // a closed session is named at the seat it ended at
    const seat = session.selectedOptions[0]?.dataset.seat;
    if (session.value && seat) field("seat").value = seat;
  });
  table.addEventListener("change", () => { void readDay(); });
  const day = input("day", "text",  // not the browser's date field: that one follows the browser's locale
    { inputmode: "numeric", autocomplete: "off", maxlength: "10", placeholder: t("pit_rating.day_format") });
  day.addEventListener("change", () => { void readDay(); });
  const dayNote = el("p", "rating-day-note");
  const buttons = el("div", "rating-buttons");
  const cancel = Object.assign(el("button", "", t("pit_rating.cancel")), { type: "button" });
  cancel.addEventListener("click", () => dialog.close());
  buttons.append(cancel, Object.assign(el("button", "primary", t("pit_rating.send")), { type: "submit" }));
  form.replaceChildren(el("h3", "", t("pit_rating.dialog")),
    labelled("table", table), labelled("seat", input("seat", "number", { min: "1", max: "7", required: "" })),
    labelled("action", action), labelled("day", day), dayNote, labelled("session", session), labelled("card", input("card", "text", { autocomplete: "off", maxlength: "40" })),
    labelled("hands", input("hands", "number", { min: "0", max: "10000" })),
    labelled("average_bet", input("average_bet", "text", { inputmode: "decimal" })),
    labelled("start", clock("start")), labelled("end", clock("end")),
    labelled("reason", input("reason", "text", { maxlength: "200" })),
    labelled("supervisor", input("user", "text", { autocomplete: "off", required: "" })),
    labelled("pin", input("pin", "password", { autocomplete: "off", required: "", inputmode: "numeric" })),
    buttons);
  action.addEventListener("change", () => shown(action.value));
  shown(action.value);
  fillSessions();
}

/**
 * Only the fields the step takes are shown (the table refuses any other).
 * @param {string} step
 */
function shown(step) {
  const takes = { open: ["card", "hands", "average_bet", "start"],
    adjust: ["day", "session", "hands", "average_bet", "start"], close: ["end"] }[step] ?? [];
  for (const name of ["day", "session", "card", "hands", "average_bet", "start", "end"]) {
    const label = /** @type {HTMLElement} */ (form.querySelector(`.rating-${name}`));
    label.hidden = !takes.includes(name);
  }
  (/** @type {HTMLElement} */ (form.querySelector(".rating-day-note"))).hidden = !takes.includes("day");
}

/**
 * A time of day "HH:MM" today (or on the date "YYYY-MM-DD" given) as seconds since the epoch (the screen's clock
 * is the pit's).
 * @param {string} hhmm
 * @param {string} [day]
 * @returns {number}
 */
function epochOf(hhmm, day = "") {
  const [h, m] = hhmm.split(":").map(Number);
  const at = day ? new Date(`${day}T00:00:00`) : new Date();
  at.setHours(h, m, 0, 0);
  return Math.floor(at.getTime() / 1000);
}

/**
 * A time of day "HH:MM", the first after `since` (seconds since the epoch), as seconds since the epoch: a session open
 * since a day gone ends at the time typed on its own day, or the next day's when that is before it sat down.
 * @param {string} hhmm
 * @param {number} since
 * @returns {number}
 */
function epochAfter(hhmm, since) {
  const [h, m] = hhmm.split(":").map(Number);
  const at = new Date(since * 1000);
  at.setHours(h, m, 0, 0);
  if (at.getTime() / 1000 <= since) at.setDate(at.getDate() + 1);
  return Math.floor(at.getTime() / 1000);
}

/**
 * The step as the form holds it: the `rating` command's arguments of the shown fields given, or the words' key of
 * what is wrong with the average bet (not an amount of the table's money, or that money not known yet).
 * @returns {Record<string, string | number> | string}
 */
function step() {
  const action = field("action").value;
  /** @type {Record<string, string | number>} */
  const args = { seat: Number(field("seat").value), action };
  const given = (/** @type {string} */ name) => {
    const node = field(name);
    return !(/** @type {HTMLElement} */ (node.closest("label"))).hidden && node.value.trim() !== "";
  };
  if (given("card")) args.card = field("card").value.trim();
  if (given("session")) args.session = Number(field("session").value);  // a closed session, by its exact start
  if (given("hands") || given("average_bet")) {
    const money = stateOf(field("table").value);  // the table's currency and decimals, as its tile has them
    if (!money || !Number.isInteger(money.decimals)) return "pit_rating.no_money";
    const amount = parseAmount(field("average_bet").value, money);
    if (amount === null) return "pit_rating.bad_amount";
    args.hands = Number(field("hands").value || "0");
    args.average_bet = amount;
  }
  const [start, end] = [parseClock(field("start").value), parseClock(field("end").value)];
  const day = given("day") ? parseDay(field("day").value, locale) : "";
  if (day === null) return "pit_rating.bad_day";
  if ((given("start") && start === null) || (given("end") && end === null)) return "pit_rating.bad_time";
  if (given("start") && start) args.start = epochOf(start, day);
  if (given("end") && end) args.end = closeSince !== null && action === "close" ? epochAfter(end, closeSince) : epochOf(end);
  if (field("reason").value.trim()) args.reason = field("reason").value.trim();
  return args;
}

/**
 * Show the outcome of a step.
 * @param {string} text
 * @param {string} status
 */
function tell(text, status) {
  withData(result, { status });
  result.textContent = text;
  result.hidden = false;
}

async function send(/** @type {SubmitEvent} */ event) {
  event.preventDefault();
  const rating = step();
  if (typeof rating === "string") {
    tell(t(rating, { table: field("table").value }), "refused");
    return;
  }
  const table = field("table").value;
  const user = field("user").value;
  const chosen = (/** @type {HTMLSelectElement} */ (/** @type {unknown} */ (field("session")))).selectedOptions[0];
  const past = rating.action === "adjust" && chosen?.dataset.past === "true";  // a past day's: the archive's
  const id = `s${Date.now().toString(36)}${++sent}`;
  const auth = { user, pin: field("pin").value };
  const { seat, action, session: start, card, end, ...entered } = rating;
  const body = past ? { table, id, session: { start, seat, version: Number(chosen.dataset.version) }, rating: entered, auth }
    : { table, id, rating, auth };
  field("pin").value = "";  // never kept on the page
  dialog.close();
  tell(t("pit_rating.sending", { table }), "sending");
  const response = await fetch(past ? "/pit/rating/past" : "/pit/rating", { method: "POST", credentials: "same-origin",
    headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) }).catch(() => null);
  const reply = response ? await response.json().catch(() => null) : null;
  if (reply?.ok && past) {
    tell(t("pit_rating.done_past", { table, seat: rating.seat, user }), "done");
    void readDay();  // the session's new version
  } else if (reply?.ok) {
    tell(t("pit_rating.done", { table, step: t(`pit_rating.${rating.action}`), seat: rating.seat, user }), "done");
  } else {
    tell(reply ? refusalText(reply) : t("pit_rating.no_answer", { table }), "refused");
  }
}

/** Show the section when this user may send steps to some table. */
async function load() {
  const response = await fetch("/pit/rating.json", { credentials: "same-origin" }).catch(() => null);
  const tables = response?.ok ? (await response.json()).tables ?? [] : [];
  if (!tables.length) return;
  build(tables);
  section.hidden = false;
}

byId("rating-open").addEventListener("click", () => {
  closeSince = null;
  result.hidden = true;
  dialog.showModal();
});
// "Close" at a rated player open since a gaming day gone (pit-rated.js): the dialog with that table, seat and step
document.addEventListener("croupier:close-session", (event) => {
  const { table, seat, since } = /** @type {CustomEvent} */ (event).detail ?? {};
  if (section.hidden || !form.elements.namedItem("table")) return;  // this user sends no steps
  const tableField = field("table");
  if (![...(/** @type {HTMLSelectElement} */ (/** @type {unknown} */ (tableField))).options].some((o) => o.value === table)) return;
  tableField.value = table;
  field("seat").value = String(seat ?? "");
  closeSince = typeof since === "number" ? since : null;
  const action = field("action");
  action.value = "close";
  action.dispatchEvent(new Event("change"));
  result.hidden = true;
  dialog.showModal();
});
form.addEventListener("submit", (event) => { void send(/** @type {SubmitEvent} */ (event)); });
document.addEventListener("croupier:rendered", () => { if (section.hidden) void load(); }, { once: true });
void load();
