// @ts-check
// Surveillance's tray panel at a smart table: the full feed's `tray` (firmware_host/service/tray.py: the ledger's line,
// the tray's chips by denomination, the latest lines of its trail as `croupier tray` prints them) in words, every
// difference nothing explains flagged. It draws what the feed says; the ledger decides every difference.
import { el } from "./common.js";
import { formatMoney, t, tCount } from "./words.js";

/**
 * @param {number | null | undefined} amount
 * @param {any} state
 * @param {boolean} [signed]
 */
function money(amount, state, signed = false) {
  return amount == null ? "\u2013" : formatMoney(amount, state, signed);
}

/**
 * A movement of the trail in words ("Buy-in seat 2 €500.00 (slip 41)").
 * @param {any} move
 * @param {any} state
 */
function movedText(move, state) {
  const args = { kind: t(`console.tray_${move.kind}`), amount: money(move.amount, state), seat: move.seat ?? "" };
  const words = t(move.seat != null ? "surveillance.tray_move_seat" : "surveillance.tray_move", args);
  return move.slip ? `${words} (${t("surveillance.tray_slip", { slip: move.slip })})` : words;
}

/**
 * A line of the trail: a hand, or the time between hands, with its difference.
 * @param {any} line
 * @param {any} state
 */
function trailLine(line, state) {
  const args = { net: money(line.house_net, state, true), change: money(line.tray_change, state, true),
    difference: money(line.difference, state, true), hand: line.hand ?? line.after_hand,
    moved: (line.movements ?? []).map((m) => movedText(m, state)).join(", ") || t("surveillance.tray_nothing") };
  const key = line.hand != null ? "surveillance.tray_hand" : line.after_hand ? "surveillance.tray_between"
    : "surveillance.tray_before";
  const node = el("li", line.difference ? "flagged" : "", t(key, args));
  node.dataset.event = String(line.event);
  node.dataset.difference = line.difference == null ? "" : String(line.difference);
  if (line.hand != null) node.dataset.hand = String(line.hand);
  return node;
}

/**
 * Draw the tray panel in `box` from the full state (hidden when the table has no tray ledger).
 * @param {HTMLElement} box
 * @param {any} state
 */
export function drawTray(box, state) {
  const tray = state?.tray;
  box.hidden = !tray;
  if (!tray) { box.replaceChildren(); return; }
  const off = tray.reads != null && tray.expected != null ? tray.reads - tray.expected : null;
  const head = el("p", `tray-now${off ? " flagged" : ""}`, tray.reads == null ? t("surveillance.tray_unread")
    : t("surveillance.tray_reads", { reads: money(tray.reads, state), expected: money(tray.expected, state),
      difference: money(off, state, true) }));
  head.dataset.trayReads = String(tray.reads ?? "");
  head.dataset.trayDifference = String(off ?? "");
  const stacks = el("p", "tray-inventory", (tray.inventory ?? []).map((s) =>
    t("surveillance.tray_stack", { count: s.count, value: money(s.value, state) })).join("  \u00b7  "));
  stacks.dataset.trayInventory = (tray.inventory ?? []).map((s) => `${s.value}x${s.count}`).join(" ");
  const shift = el("p", `tray-shift${tray.difference ? " flagged" : ""}`, t("surveillance.tray_shift", {
    opening: money(tray.opening, state), fills: money(tray.fills, state), credits: money(tray.credits, state),
    sold: money(tray.chips_sold, state), net: money(tray.house_net, state, true),
    difference: money(tray.difference, state, true) }));
  const trail = el("ol", "tray-trail");
  trail.dataset.trayTrail = "";
  trail.append(...(tray.trail ?? []).map((line) => trailLine(line, state)));
  const parts = [el("h3", "", t("surveillance.tray_title")), head, stacks, trail, shift];
  if (tray.flagged) {
    const flags = el("p", "tray-flags flagged", tCount("console.tray_flagged", tray.flagged)  /* the console's words: one sentence */);
    flags.dataset.trayFlagged = String(tray.flagged);
    parts.push(flags);
  }
  box.replaceChildren(...parts);
}
