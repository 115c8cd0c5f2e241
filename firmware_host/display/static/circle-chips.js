// @ts-check
// A smart table's circle, one rule for the table display and the dealer console: the stake it shows. Where the chip
// reader is online a circle's chips read are its bet until the bet is taken (the Deal takes each circle's read, the
// Play its chips at the decision), then the bet taken; a stake typed on the console only where the reader is offline
// (its taps audited: tables/house/chips.py decides, this draws what the feed says).

/**
 * A circle's chips as read (`{seat, circle, value, stable, due}`), or undefined.
 * @param {any} state
 * @param {number} seat
 * @param {string} name
 */
export function readOf(state, seat, name) {
  return (state?.chips?.circles ?? []).find((c) => c.seat === seat && c.circle === name);
}

/**
 * What a circle shows as its stake: `typed` (the console's draft, else the bet taken) unless the reader is online and
 * the circle holds chips with no bet taken yet: then its chips read (`read`), `moving` while they move.
 * @param {any} state
 * @param {number} seat
 * @param {string} name
 * @param {number | null | undefined} typed
 * @returns {{amount: number, read: boolean, moving: boolean}}
 */
export function stakeOf(state, seat, name, typed) {
  const chips = readOf(state, seat, name);
  if (state?.chips?.online && chips && !typed) return { amount: chips.value, read: true, moving: !chips.stable };
  return { amount: typed ?? 0, read: false, moving: false };
}

/**
 * Whether a circle's read is said beside its stake: where it is not the stake shown (its chips moving, or other than
 * the bet: a payout, chips added after the bet was taken), or at the showdown against its due.
 * @param {any} state
 * @param {number} seat
 * @param {string} name
 * @param {{amount: number, read: boolean}} stake
 */
export function readSaid(state, seat, name, stake) {
  const chips = readOf(state, seat, name);
  if (!chips) return false;
  return chips.due != null || (!stake.read && (chips.value !== stake.amount || !chips.stable));
}

/**
 * Whether a circle is one the standing fault names (`fault.circles`: a moved or past-posted chip, a foreign chip, a
 * mispay), for a page to mark it where the fault's words name it.
 * @param {any} state
 * @param {number} seat
 * @param {string} name
 */
export function faulted(state, seat, name) {
  return (state?.fault?.circles ?? []).some((c) => c.seat === seat && c.circle === name);
}
