// @ts-check
// The dealer console's memory over a reload (sessionStorage): the last dealt hand's bets, for "Same bets as last hand".
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
