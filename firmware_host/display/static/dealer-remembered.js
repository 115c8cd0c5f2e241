// @ts-check
// The dealer console's memory over a reload (sessionStorage): the last dealt hand's bets, for "Same bets as last hand",
// and the bets tapped for the hand being bet and not yet sent.
import { isPoker } from "./state.js";

/**
 * Bets by circle ({ante: 500, blind: 500}), in the smallest unit.
 * @typedef {Record<string, number>} Bets
 */

const REMEMBERED = "croupier.console";  // sessionStorage: the last hand's bets, over a reload

/** @returns {{bets: {hand: number, seats: Record<string, Bets>} | null}} */
function loadRemembered() {
  try {
    const data = JSON.parse(sessionStorage.getItem(REMEMBERED) ?? "{}");
    return { bets: data.bets ?? null };
  } catch {
    return { bets: null };
  }
}

/** What the console remembers: `bets`, the last dealt hand's, by seat. */
export const remembered = loadRemembered();

function remember() {
  try { sessionStorage.setItem(REMEMBERED, JSON.stringify(remembered)); } catch { /* private mode: kept in memory */ }
}

/**
 * A state of the feed: once a hand is dealt, its bets placed before the deal are remembered.
 * @param {any} message
 */
export function keepBets(message) {
  if (message.phase === "bets" || isPoker(message)) return;
  /** @type {Record<string, Bets>} */
  const seats = {};
  const circles = message.circles ?? [];  // the bets placed before the deal (not the Play bet made on a decision)
  for (const spot of message.spots ?? []) {
    const bets = Object.fromEntries(Object.entries(spot.bets ?? {}).filter(([c, amount]) => circles.includes(c) && amount > 0));
    if (Object.keys(bets).length) seats[spot.seat] = bets;
  }
  if (Object.keys(seats).length && JSON.stringify(remembered.bets?.seats) !== JSON.stringify(seats)) {
    remembered.bets = { hand: message.hand, seats };
    remember();
  }
}

const DRAFTS = "croupier.console.drafts";  // sessionStorage: the bets tapped and not yet sent, over a reload
let draftsKept = "";                       // what was last stored (written again only when it changes)

/**
 * The hand whose bets a state of the feed takes: the hand being bet, or the next one while the last is still on show
 * (settled or voided: its number is the next, the controller's); null once the hand is dealt, and at a poker table.
 * @param {any} state
 * @returns {number | null}
 */
export function bettingHand(state) {
  if (!state || isPoker(state) || !Number.isInteger(state.hand)) return null;
  if (state.phase === "bets") return state.hand;
  return state.phase === "settled" || state.phase === "voided" ? state.hand + 1 : null;
}

/**
 * Keep the bets tapped and not yet sent for the table and the hand being bet (bets only: no card is ever kept);
 * none kept once that hand is dealt or voided.
 * @param {any} state
 * @param {Map<number, Bets>} drafts seat -> {circle: amount}
 */
export function keepDrafts(state, drafts) {
  const hand = bettingHand(state);
  const text = hand === null || !drafts.size ? "" : JSON.stringify({ table: state.table, hand, seats: Object.fromEntries(drafts) });
  if (text === draftsKept) return;
  draftsKept = text;
  try {
    if (text) sessionStorage.setItem(DRAFTS, text);
    else sessionStorage.removeItem(DRAFTS);
  } catch { /* private mode: kept in memory only */ }
}

/**
 * The bets kept by `keepDrafts` for this state's table and hand being bet (after a reload), by seat.
 * @param {any} state
 * @returns {Map<number, Bets>}
 */
export function keptDrafts(state) {
  /** @type {Map<number, Bets>} */
  const out = new Map();
  try {
    const kept = JSON.parse(sessionStorage.getItem(DRAFTS) ?? "null");
    if (!kept || kept.table !== state.table || kept.hand !== bettingHand(state)) return out;
    for (const [seat, bets] of Object.entries(kept.seats ?? {})) {
      const amounts = Object.entries(bets ?? {}).filter(([, amount]) => Number.isInteger(amount) && amount >= 0);
      if (Number.isInteger(Number(seat))) out.set(Number(seat), Object.fromEntries(amounts));
    }
  } catch { /* nothing kept, or not readable: no draft */ }
  return out;
}
