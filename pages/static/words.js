// @ts-check
// The page's words in the display's language (/words.json, words.py): t("section.key", {args}) and money in its locale.
// An argument sent as {money: n} is written as money, {card: "Td"} as the card, {word: "circle.ante"} as that word
// (with its own {args}: {word: "to_due.take", args: {amount: {money: 500}}}), {times: 4} as a multiple ("4×").
// Elements with data-t="section.key" get the word as text, data-t-label as aria-label, data-t-placeholder likewise.
import * as format from "./format.js";
import { cardText } from "./format.js";
import { isPoker } from "./state.js";

const response = await fetch("/words.json", { credentials: "same-origin" });
/** @type {{lang: string, locale: string, words: Record<string, string>, build?: string}} */
const served = response.ok ? await response.json() : { lang: "en", locale: "en-GB", words: {} };

/** The page's language ("en", "fr") and Intl's locale for it ("en-GB"). */
export const lang = served.lang;
export const locale = served.locale;
const words = served.words;
document.documentElement.lang = lang;

// -- one version: the page's modules and its words ----------------------------------------------------------------
// The display serves the static tree and the words it read at its start, stamped with one build id (pages/app.py);
// a page loaded from another build (the display restarted on an update while it was open: its socket reconnects
// to the new one) reloads, and so does a page asking for a word its catalog lacks. Once a build only: a page that
// still differs after its reload stays as it is (never a loop of reloads).
/** The build the page's words are of (the display's at the page's load). */
export const build = served.build ?? "";
const RELOADED = "croupier.reloaded-from";

function reloadOnce() {
  try {
    if (sessionStorage.getItem(RELOADED) === build) return;
    sessionStorage.setItem(RELOADED, build);
  } catch {  // no session storage (a private window's limits): not reloaded rather than perhaps reloaded for ever
    return;
  }
  location.reload();
}

/** Reloads the page when the display now serves another build than the page's (its socket has just opened). */
export async function checkBuild() {
  const now = await fetch("/build.json", { credentials: "same-origin", cache: "no-store" }).catch(() => null);
  const body = now?.ok ? await now.json().catch(() => null) : null;
  if (typeof body?.build === "string" && body.build !== build) reloadOnce();
}

/** @param {string} key a word the page asks for that its catalog lacks: listed on <html>, never shown */
function missing(key) {
  const root = document.documentElement;
  const known = new Set((root.dataset.wordsMissing ?? "").split(" ").filter(Boolean));
  if (!known.has(key)) root.dataset.wordsMissing = [...known, key].join(" ");
  reloadOnce();
}

/**
 * Money in the smallest unit as the page's locale writes it with the table's currency ("1 234,50 €", "€1,234.50").
 * @param {number} amount
 * @param {format.MoneyState} state
 * @param {boolean} [signed] a "+" before a win
 * @returns {string}
 */
export function formatMoney(amount, state, signed = false) {
  return format.formatMoney(amount, state, signed, locale);
}

/**
 * A chip's face in the page's locale: whole units without decimals ("100 €", "€25").
 * @param {number} amount
 * @param {format.MoneyState} state
 * @returns {string}
 */
export function formatChipFace(amount, state) {
  return format.formatChipFace(amount, state, locale);
}

/**
 * An amount without its currency, as short as the locale writes it: whole units without decimals ("+15", "−7,50").
 * @param {number} amount
 * @param {format.MoneyState} state
 * @param {boolean} [signed]
 * @returns {string}
 */
export function formatNumber(amount, state, signed = false) {
  return format.formatNumber(amount, state, signed, locale);
}

/**
 * Tournament chips counted in the page's locale ("11,428").
 * @param {number} count
 * @returns {string}
 */
export function formatChips(count) {
  return format.formatChips(count, locale);
}

/**
 * A net as money with its sign; a net of nothing is the catalog's word for a push at a house table, and plain
 * money at a poker table, where nobody pushes (a seat that folded before putting anything in nets 0).
 * @param {number} amount
 * @param {format.MoneyState & {structure?: unknown}} state
 * @returns {string}
 */
export function formatNet(amount, state) {
  if (amount !== 0) return formatMoney(amount, state, true);
  return isPoker(state) ? formatMoney(0, state) : t("common.push");
}

/**
 * The arguments of a word: plain text or numbers, or {money}, {card}, {word}, {cards}, {times} written as such.
 * @typedef {Record<string, unknown>} Args
 */

/**
 * @param {any} value
 * @param {format.MoneyState} state
 * @returns {string}
 */
function argText(value, state) {
  if (value !== null && typeof value === "object") {
    if (Number.isInteger(value.money)) return formatMoney(value.money, state);
    if (typeof value.card === "string") return cardText(value.card);
    if (typeof value.word === "string") return t(value.word, value.args ?? {}, state);
    if (Array.isArray(value.cards)) return value.cards.map(cardText).join(" ");
    if (value.times !== undefined) return timesText(value.times);
  }
  return String(value);
}

/**
 * A multiple of a bet, or those open, in the catalog's one notation (`common.times`: "4×"; a list joined by
 * `common.or`: "4× or 3×"): a decision's button, a seat's decision and a refusal's words alike (refusals.py `_shown`).
 * @param {number | number[]} times
 * @returns {string}
 */
export function timesText(times) {
  return (Array.isArray(times) ? times : [times]).map((m) => t("common.times", { times: m })).join(t("common.or"));
}

/**
 * The word for `key` with its {fields} filled from `args`. A key the catalog lacks (words older than the page's
 * modules) is never shown to the reader: nothing is, the key is listed in `<html data-words-missing>` (tests look
 * for it) and the page reloads once to take the display's words and modules of one build.
 * @param {string} key
 * @param {Args} [args]
 * @param {format.MoneyState} [state] the money's currency and decimals
 * @returns {string}
 */
export function t(key, args = {}, state = null) {
  const text = words[key];
  if (text === undefined) {
    missing(key);
    return "";
  }
  return text.replace(/\{([a-z_][a-z0-9_]*)\}/g, (whole, name) => (name in args ? argText(args[name], state) : whole));
}

const plurals = new Intl.PluralRules(locale);

/**
 * A word that counts something, in the language's plural form (the one plural rule of the pages): the catalog's
 * `key_zero` for none where it has one, else `key_one` or `key_other` as Intl's rule for the page's locale picks
 * (English: 1 is "one"; French: 0 and 1), with `count` as its {count} field ("1 seat", "2 seats", "1 place").
 * @param {string} key the word's key without its form
 * @param {number} count
 * @param {Args} [args]
 * @param {format.MoneyState} [state]
 * @returns {string}
 */
export function tCount(key, count, args = {}, state = null) {
  const form = count === 0 && `${key}_zero` in words ? "zero" : plurals.select(count);
  return t(`${key}_${form}` in words ? `${key}_${form}` : `${key}_other`, { count, ...args }, state);
}

/**
 * The word for `key` if the catalog has it, else `fallback` (a code the controller sent that the catalog may not name).
 * @param {string} key
 * @param {string} fallback
 * @param {Args} [args]
 * @param {format.MoneyState} [state]
 * @returns {string}
 */
export function tOr(key, fallback, args = {}, state = null) {
  return key in words ? t(key, args, state) : fallback;
}

/**
 * A message the controller or display sent as {key, args}: in the page's words.
 * @param {any} message
 * @param {format.MoneyState} [state]
 * @returns {string}
 */
export function say(message, state = null) {
  if (message && typeof message === "object" && typeof message.key === "string") {
    return t(message.key, message.args ?? {}, state);
  }
  return String(message ?? "");
}

/**
 * A table's sign-offs slowed down (its state's `signoff_alert`: firmware_host/service/signoff_alert.py) in the page's
 * words, the one sentence the pit's tile and surveillance show: which consoles, since when (the screen's clock), how far
 * apart the table checks their PINs now.
 * @param {{since: number, spacing_s: number, kind: string}} alert
 * @param {string} table
 * @returns {string}
 */
export function signoffAlertText(alert, table) {
  const kind = alert.kind === "consoles" || alert.kind === "pit" ? alert.kind : "relay";
  return t(`signoff_alert.${kind}`, { table, time: format.timeOfDay(alert.since), spacing: alert.spacing_s });
}

/**
 * The controller's refusal in the page's words: its `say`, else the catalog's general line with its reason (the
 * controller's English, `why`: the poker panel's with its amounts in money).
 * @param {any} reply
 * @param {format.MoneyState} [state]
 * @param {string} [why]
 * @returns {string}
 */
export function refusalText(reply, state = null, why = String(reply?.error ?? reply?.code ?? "")) {
  if (reply?.say) return say(reply.say, state);
  return tOr("refusal.other", why, { why }, state);
}

// A house game's hand (a spot's or the dealer's) in the page's words, from its category (engine.evaluate's keys); a
// past hand journaled before hands carried their category keeps its name as it was.
/**
 * @param {{hand_category?: string, hand_name?: string, hand_ranks?: string[] | null, hand_kickers?: string[] | null} | null | undefined} hand
 * @returns {string}
 */
export function handText(hand) {
  if (!hand) return "";
  if (!hand.hand_category) return hand.hand_name ?? "";
  const named = rankedHand(hand.hand_category, hand.hand_ranks) || tOr(`hand_name.${hand.hand_category}`, hand.hand_name ?? "");
  return named && hand.hand_kickers?.length ? kickerText(named, hand.hand_kickers) : named;
}

// A hand named alike with the one it met, and why it won or lost: its kickers up to the one that decided, as the engine
// ranked them (engine.kickers: the state's `hand_kickers`), "Pair of kings, ace kicker", "Paire de rois, as en kicker".
/**
 * @param {string} named
 * @param {string[]} kickers
 * @returns {string}
 */
function kickerText(named, kickers) {
  const ranks = kickers.map((rank) => tOr(`rank_one.${rank}`, rank)).join(t("hand_kicker.join"));
  return tCount("hand_kicker.hand", kickers.length, { hand: named, ranks });
}

// A hand named with the ranks it cites ("Pair of kings", "Paire de rois"): the catalog's `hand_ranked` sentence, the
// ranks the engine gave (engine.evaluate.named_ranks: the state's `hand_ranks`, a poker hand's `named`) written in
// `rank_one`, `rank_many` and `rank_of`; "" where the state gives no ranks (a hand journaled before them).
/**
 * @param {string} category
 * @param {string[] | null | undefined} ranks
 * @returns {string}
 */
export function rankedHand(category, ranks) {
  if (!ranks || !words[`hand_ranked.${category}`]) return "";
  /** @type {Record<string, string>} */
  const fields = {};
  ranks.forEach((rank, i) => {
    const suffix = i === 0 ? "" : String(i + 1);
    fields[`rank${suffix}`] = tOr(`rank_one.${rank}`, rank);
    fields[`ranks${suffix}`] = tOr(`rank_many.${rank}`, rank);
    fields[`of_ranks${suffix}`] = tOr(`rank_of.${rank}`, rank);
  });
  return t(`hand_ranked.${category}`, fields);
}

// A shown poker hand from its values in the state (`hand_values`, tables/poker/sign.py hand_words): its category's
// name with the ranks it cites ("Pair of kings"), or a low's or a badugi's ranks ("8-5-4-2-A low", "Badugi 8-5-4-2", a
// hand of three "3-card J-8-6"); hi-lo: "high / low", "high / no qualifying low". The players' screen and the console.
/**
 * @param {{category: string, ranks?: string | null, named?: string[]}[] | null | undefined} values
 * @returns {string}
 */
export function pokerHandWords(values) {
  return (values ?? []).map((v) => {
    if (v.ranks && v.category.startsWith("badugi")) {  // a badugi has four cards; fewer are named by their count
      const count = v.category.slice("badugi_".length);
      return count === "4" ? t("poker_table.badugi", { ranks: v.ranks }) : t("poker_table.badugi_cards", { count, ranks: v.ranks });
    }
    if (v.ranks) return t("poker_table.low_hand", { ranks: v.ranks });
    if (v.category === "no_low") return t("poker_table.no_low");
    return rankedHand(v.category, v.named) || tOr(`hand_name.${v.category}`, "");
  }).filter(Boolean).join(" / ");
}

// A seat's last act in words, from its record in the state (`act`: action, amount, all_in, cards, clock;
// firmware_host/tables/poker/sign.py act_record), never read back from the controller's English: one set of words
// (`poker_act.*`) for the players' screen and the console, each in its own case by its CSS.
/** @type {Record<string, string>} */
const ALL_IN_KINDS = { bet: "all_in", raise: "all_in", complete: "all_in", call: "calls_all_in", bring_in: "brings_in_all_in" };
/** @type {Record<string, string>} */
const ACT_KEYS = { fold: "folds", check: "checks", call: "calls", bet: "bet", raise: "raise", complete: "complete",
  bring_in: "brings_in", draw: "draws", stand_pat: "stands_pat", show: "shows", muck: "mucks" };

/**
 * @param {any} act
 * @param {(n: number) => string} amount
 * @returns {string}
 */
export function actWords(act, amount) {
  if (!act?.action) return "";
  let key = act.all_in && ALL_IN_KINDS[act.action] ? ALL_IN_KINDS[act.action] : ACT_KEYS[act.action];
  if (act.action === "fold" && act.clock) key = "folds_clock";
  if (!key) return "";
  return t(`poker_act.${key}`, { amount: amount(act.amount ?? 0), n: act.cards ?? 0 });
}

// A poker table's stakes in words, for the players' sign (/table, after its structure) and the console's head: "Blinds
// €0.05 / €0.10", "Bets €1.00 / €2.00 · Ante €0.10, bring-in €0.25" (a stud table's, which has no blinds).
/**
 * @param {any} state
 * @param {(n: number) => string} amount
 * @returns {string}
 */
export function stakesWords(state, amount) {
  const stakes = state.stakes ?? {};
  const parts = [];
  const blinds = stakes.blinds ?? [];
  const ante = Array.isArray(stakes.antes) ? Math.max(0, ...stakes.antes) : Number(stakes.antes ?? 0);
  if (blinds.length >= 2) {
    parts.push(ante ? t("poker_table.blinds_ante", { small: amount(blinds[0]), big: amount(blinds[1]), ante: amount(ante) })
      : t("poker_table.blinds", { small: amount(blinds[0]), big: amount(blinds[1]) }));
  }
  if (stakes.small_bet && stakes.big_bet) parts.push(t("poker_table.limits", { small: amount(stakes.small_bet), big: amount(stakes.big_bet) }));
  if (stakes.min_bet && stakes.max_bet) parts.push(t("poker_table.spread", { min: amount(stakes.min_bet), max: amount(stakes.max_bet) }));
  if (stakes.bring_in) parts.push(t("poker_table.antes_bring_in", { ante: amount(ante), bring_in: amount(stakes.bring_in) }));
  return parts.join(" \u00b7 ");
}

// A house table's limits in words (0 = no limit on that key, `[limits]`), for the players' sign (/table) and the pit's
// tile: the main bet's minimum and maximum (null: none), the side bets' range ("€1.00 – €50.00", "from €1.00"; null:
// no side bets) from the side minimum or else the chip.
/**
 * @param {any} limits
 * @param {(n: number) => string} amount
 * @returns {{minimum: string, maximum: string | null, side: string | null}}
 */
export function limitsWords(limits, amount) {
  const low = amount(limits.side_minimum || limits.chip || 0);
  return {
    minimum: amount(limits.minimum ?? 0),
    maximum: limits.maximum ? amount(limits.maximum) : null,
    side: !(limits.side_minimum || limits.side_maximum) ? null : limits.side_maximum
      ? t("table.side_range", { low, high: amount(limits.side_maximum) }) : t("table.side_from", { low }),
  };
}

/**
 * Every catalog word `root` asks for by its data attributes, written in.
 * @param {ParentNode} root
 */
export function translate(root = document) {
  /** @param {string} selector */
  const all = (selector) => /** @type {NodeListOf<HTMLElement>} */ (root.querySelectorAll(selector));
  for (const node of all("[data-t]")) node.textContent = t(node.dataset.t ?? "");
  for (const node of all("[data-t-label]")) node.setAttribute("aria-label", t(node.dataset.tLabel ?? ""));
  for (const node of all("[data-t-placeholder]")) node.setAttribute("placeholder", t(node.dataset.tPlaceholder ?? ""));
  for (const node of all("[data-t-title]")) node.title = t(node.dataset.tTitle ?? "");
}

translate();
