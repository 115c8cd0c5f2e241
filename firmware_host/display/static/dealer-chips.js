// @ts-check
// The dealer console at a smart table: each circle's chips as the readers show them (the feed's `chips`: values, never a
// chip's UID), at the showdown each circle's due beside its read, and the circles not paid yet in words
// (tables/house/chips.py decides every rule; this draws what the feed says).
import { readOf, readSaid } from "./circle-chips.js";
import { el } from "./common.js";
import { t, tOr } from "./words.js";

/** @type {Record<string, string>} */
let paidOn = {};  // a settlement's result paid on another circle's chips -> that circle (engine.chip_circles.PAID_ON)

/**
 * The relay's `console` message: which results are paid on another circle's chips (`paid_on`, the engine's one rule).
 * @param {any} message
 */
export function seeConsole(message) {
  paidOn = message.paid_on ?? {};
}

/**
 * Marks a console circle with what its chips read: at the showdown ticked when it reads its due, else its read said
 * where it is not the stake shown (circle-chips.js).
 * @param {HTMLElement} node
 * @param {any} state
 * @param {number} seat
 * @param {string} name
 * @param {{amount: number, read: boolean}} stake what the circle shows as its stake
 */
export function showReads(node, state, seat, name, stake) {
  const on = paidOn[name];
  if (on) {  // a result with no circle of its own (3CP's Ante Bonus), paid on its circle's chips: ticked with it
    const circle = readOf(state, seat, on);
    if (circle?.due == null) return;
    node.dataset.paidOn = on;
    node.classList.toggle("paid", !circle.make && circle.stable);
    return;
  }
  const read = readOf(state, seat, name);
  if (!read) return;
  node.dataset.chipsRead = String(read.value);
  if (read.due != null) node.dataset.chipsDue = String(read.due);
  const paid = read.due != null && !read.make && read.stable;  // `make`: what it lacks, from the showdown
  node.classList.toggle("paid", paid);
  if (!paid && readSaid(state, seat, name, stake)) {
    const classes = `reads${read.due != null ? " unpaid" : ""}${read.stable ? "" : " moving"}`;
    node.append(el("span", classes, t("console.chips_reads", { reads: { money: read.value } }, state)));
  }
}

/**
 * The readers take the bets at Deal (a smart table, its reader online): the console offers no chips to tap (with the
 * reader offline it falls back to the taps, audited).
 * @param {any} state
 */
export function readsBets(state) {
  return Boolean(state?.chips?.online);
}

/**
 * The circles of a seat whose chips the readers show (the Play's chips placed at a decision, before the Play is taken).
 * @param {any} state
 * @param {number} seat
 * @returns {string[]}
 */
export function circlesRead(state, seat) {
  return (state?.chips?.circles ?? []).filter((c) => c.seat === seat).map((c) => c.circle);
}

/**
 * Whether a seat holds payouts to check (its column may scroll: it is made focusable).
 * @param {any} state
 * @param {number} seat
 */
export function holdsPayouts(state, seat) {
  return (state?.chips?.circles ?? []).some((c) => c.seat === seat && c.due != null);
}

/**
 * Every circle that does not read its due, in words saying what makes it so, its figures after ("Seat 3 Play: pay
 * €5.00 more (due €30.00, reads €25.00)", "Seat 2 Ante: take €5.00 (…)", "… take back €1.00 (…)": the feed's `make`,
 * engine.chip_circles.to_due's one rule), in `box`; one whose chips still move says so (its read may be its due:
 * "…, the chips still moving").
 * @param {HTMLElement} box
 * @param {any} state
 */
export function showMispaid(box, state) {
  const wrong = (state?.chips?.circles ?? []).filter((c) => c.due != null && (c.make || !c.stable));
  box.hidden = wrong.length === 0;
  box.replaceChildren(...wrong.map((c) => {
    const make = c.make ? { word: `to_due.${c.make.do}`, args: { amount: { money: c.make.amount } } } : "";
    const line = el("li", "", t(c.make ? "console.chips_mispaid" : "console.chips_settling", { seat: c.seat, circle: tOr(`circle.${c.circle}`, c.circle),
      make, due: { money: c.due }, reads: { money: c.value } }, state));
    line.dataset.seat = String(c.seat);
    line.dataset.circle = c.circle;
    return line;
  }));
}

/**
 * A mispay's circles a supervisor's clear accepts as they read (every circle not reading its due, tables/house/chips.py
 * `cleared`), in words: "Seat 3 Play: due €30.00, reads €25.00 — paid as read".
 * @param {any} state
 * @returns {string[]}
 */
export function acceptedLines(state) {
  return (state?.chips?.circles ?? []).filter((c) => c.due != null && c.make).map((c) => t("console.mispay_accepted",
    { seat: c.seat, circle: tOr(`circle.${c.circle}`, c.circle), due: { money: c.due }, reads: { money: c.value } }, state));
}

/**
 * The console's hint at a smart table (the readers take the bets, or the reader is offline; the payouts are read),
 * or null where the console's own hint stands.
 * @param {any} state
 * @param {boolean} betting
 * @param {boolean} confirming
 */
export function chipsHint(state, betting, confirming) {
  const chips = state?.chips;
  if (!chips) return null;
  if (betting) return t(chips.online ? "console.hint_bets_read" : "console.hint_bets_reader_offline");
  if (confirming && chips.source === "chips" && chips.online) return t("console.hint_confirm_read");
  return null;
}
