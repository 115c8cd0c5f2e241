// @ts-check
// The pages' pure helpers, written once: money, chips, amounts typed, clocks and cards as text. No DOM and no fetch
// here (node imports it: tests/web/js/); words.js binds these to the display's locale for the pages.

/**
 * What a money helper reads of a state: its currency and its decimals (the smallest unit's place).
 * @typedef {{currency?: unknown, decimals?: unknown} | null | undefined} MoneyState
 */

/** The suits' letters as the controller writes them ("Td") and their symbols. */
const SUITS = /** @type {const} */ ({ s: "\u2660", h: "\u2665", d: "\u2666", c: "\u2663" });
const MINUS = "\u2212";

/**
 * The decimals of a state's money (2 when it names none).
 * @param {MoneyState} state
 * @returns {number}
 */
export function decimalsOf(state) {
  const decimals = state?.decimals;
  return typeof decimals === "number" && Number.isInteger(decimals) && decimals >= 0 ? decimals : 2;
}

/**
 * The currency of a state's money ("EUR" when it names none).
 * @param {MoneyState} state
 * @returns {string}
 */
export function currencyOf(state) {
  return typeof state?.currency === "string" ? state.currency : "EUR";
}

/**
 * Money in the smallest unit as `locale` writes it with the state's currency ("1 234,50 €", "€1,234.50"); a
 * minus sign (U+2212), never a hyphen; `signed`: a "+" before a win.
 * @param {number} amount
 * @param {MoneyState} state
 * @param {boolean} signed
 * @param {string} locale
 * @returns {string}
 */
export function formatMoney(amount, state, signed, locale) {
  return moneyText(amount, state, signed, locale, decimalsOf(state));
}

/**
 * A chip's face as chips are printed: whole units without their decimals ("100 €", "€25"), else as money
 * ("2,50 €"): the dealer console's chips to tap, whose "100,00 €" would not fit inside the chip.
 * @param {number} amount
 * @param {MoneyState} state
 * @param {string} locale
 * @returns {string}
 */
export function formatChipFace(amount, state, locale) {
  const decimals = decimalsOf(state);
  return moneyText(amount, state, false, locale, amount % 10 ** decimals === 0 ? 0 : decimals);
}

/**
 * @param {number} amount
 * @param {MoneyState} state
 * @param {boolean} signed
 * @param {string} locale
 * @param {number} shown the decimals written (the state's, or none for whole units)
 * @returns {string}
 */
function moneyText(amount, state, signed, locale, shown) {
  const currency = currencyOf(state);
  const decimals = decimalsOf(state);
  /** @type {{format: (value: number) => string}} */
  let format;
  try {
    format = new Intl.NumberFormat(locale, { style: "currency", currency, minimumFractionDigits: shown,
      maximumFractionDigits: decimals, signDisplay: signed ? "exceptZero" : "auto" });
  } catch {  // a currency code Intl does not know: the amount and the code
    format = { format: (v) => `${new Intl.NumberFormat(locale, { minimumFractionDigits: shown }).format(v)} ${currency}` };
  }
  return format.format(amount / 10 ** decimals).replace("-", MINUS);
}

/**
 * An amount without its currency, as short as the locale writes it: whole units without decimals ("+15", "−7,50").
 * @param {number} amount
 * @param {MoneyState} state
 * @param {boolean} signed
 * @param {string} locale
 * @returns {string}
 */
export function formatNumber(amount, state, signed, locale) {
  const decimals = decimalsOf(state);
  const whole = amount % 10 ** decimals === 0;
  return new Intl.NumberFormat(locale, { minimumFractionDigits: whole ? 0 : decimals, maximumFractionDigits: decimals,
    signDisplay: signed ? "exceptZero" : "auto" }).format(amount / 10 ** decimals).replace("-", MINUS);
}

/**
 * Tournament chips, counted as the locale groups them ("11,428", "11 428"): chips are no money.
 * @param {number} count
 * @param {string} locale
 * @returns {string}
 */
export function formatChips(count, locale) {
  return new Intl.NumberFormat(locale).format(Number(count));
}

/**
 * The locale's decimal separator ("," in French).
 * @param {string} locale
 * @returns {string}
 */
export function decimalSeparator(locale) {
  return new Intl.NumberFormat(locale).formatToParts(1.5).find((part) => part.type === "decimal")?.value ?? ".";
}

/**
 * An amount typed ("12.5", "12,50") in the smallest unit (1250) without floating point; null when it is not an
 * amount or has more decimals than the state's money.
 * @param {string} text
 * @param {MoneyState} state
 * @returns {number | null}
 */
export function parseAmount(text, state) {
  const decimals = decimalsOf(state);
  const match = /^\s*(\d{1,12})(?:[.,](\d*))?\s*$/.exec(String(text));
  if (!match || (match[2] ?? "").length > decimals) return null;
  const minor = (match[2] ?? "").padEnd(decimals, "0");
  return Number(match[1]) * 10 ** decimals + (decimals ? Number(minor) : 0);
}

/**
 * An amount as it is typed back into an entry ("4,00" in French), the reverse of parseAmount.
 * @param {number} amount
 * @param {MoneyState} state
 * @param {string} locale
 * @returns {string}
 */
export function amountText(amount, state, locale) {
  const decimals = decimalsOf(state);
  const scale = 10 ** decimals;
  const units = Math.floor(amount / scale);
  return decimals ? `${units}${decimalSeparator(locale)}${String(amount % scale).padStart(decimals, "0")}` : String(units);
}

/**
 * A time of day on the screen's clock (seconds since the epoch): hours and minutes, "07:52".
 * @param {number} epochS
 * @returns {string}
 */
export function timeOfDay(epochS) {
  return new Date(epochS * 1000).toTimeString().slice(0, 5);
}

/**
 * A clock's time left, rounded up to the second: "4:05", "1:02:03" (never below 0:00).
 * @param {number} seconds
 * @returns {string}
 */
export function clockText(seconds) {
  const s = Math.max(0, Math.ceil(seconds));
  const h = Math.floor(s / 3600), m = Math.floor((s % 3600) / 60), r = s % 60;
  return h ? `${h}:${String(m).padStart(2, "0")}:${String(r).padStart(2, "0")}` : `${m}:${String(r).padStart(2, "0")}`;
}

/**
 * A win, a loss or a push as the pages' classes name it.
 * @param {number} net
 * @returns {"win" | "lose" | "push"}
 */
export function netTone(net) {
  return net > 0 ? "win" : net < 0 ? "lose" : "push";
}

/**
 * A card's text form ("Td", "As") read: its rank as printed ("10"), its suit's symbol, red or black; null for a
 * card face down ("??") or anything that is no card.
 * @param {unknown} text
 * @returns {{rank: string, suit: string, red: boolean} | null}
 */
export function parseCard(text) {
  if (typeof text !== "string" || text.length !== 2 || !(text[1] in SUITS)) return null;
  const suit = /** @type {keyof typeof SUITS} */ (text[1]);
  return { rank: text[0] === "T" ? "10" : text[0], suit: SUITS[suit], red: suit === "h" || suit === "d" };
}

/**
 * A card as the pages print it: "10♦"; "??" for a card face down or no card.
 * @param {unknown} text
 * @returns {string}
 */
export function cardText(text) {
  const card = parseCard(text);
  return card ? card.rank + card.suit : "??";
}

/**
 * The order of a date's day, month and year as `locale` writes them (["day", "month", "year"] in en-GB and fr-FR).
 * @param {string} locale
 * @returns {string[]}
 */
function dayOrder(locale) {
  return new Intl.DateTimeFormat(locale, { day: "2-digit", month: "2-digit", year: "numeric", timeZone: "UTC" })
    .formatToParts(new Date(Date.UTC(2026, 11, 3))).filter((part) => part.type !== "literal").map((part) => part.type);
}

/**
 * A day "YYYY-MM-DD" as `locale` writes it, the page's language's and not the browser's: "03/12/2026" in en-GB and
 * fr-FR ("" for no day).
 * @param {string} iso
 * @param {string} locale
 * @returns {string}
 */
export function dayText(iso, locale) {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(iso);
  if (!match) return "";
  return new Intl.DateTimeFormat(locale, { day: "2-digit", month: "2-digit", year: "numeric", timeZone: "UTC" })
    .format(new Date(Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3]))));
}

/**
 * A day typed as `locale` writes it ("3/12/2026", "03.12.2026"), or as YYYY-MM-DD, as "YYYY-MM-DD"; null when it is
 * not a day of the calendar (a four-digit year required).
 * @param {string} text
 * @param {string} locale
 * @returns {string | null}
 */
export function parseDay(text, locale) {
  const typed = String(text).trim();
  const iso = /^(\d{4})-(\d{1,2})-(\d{1,2})$/.exec(typed);
  const order = dayOrder(locale);
  let pos = 0;  // eight digits alone (a tablet's number pad has no "/"): day, month and year in the locale's order
  const parts = /^\d{8}$/.test(typed) ? order.map((name) => typed.slice(pos, (pos += name === "year" ? 4 : 2)))
    : typed.split(/[/.\- ]+/);
  /** @type {Record<string, string>} */
  const by = {};
  if (iso) Object.assign(by, { year: iso[1], month: iso[2], day: iso[3] });
  else if (parts.length === 3 && parts.every((part) => /^\d{1,4}$/.test(part))) {
    order.forEach((name, i) => { by[name] = parts[i]; });
  } else return null;
  if (!/^\d{4}$/.test(by.year ?? "") || (by.day ?? "").length > 2 || (by.month ?? "").length > 2) return null;
  const [year, month, day] = [Number(by.year), Number(by.month), Number(by.day)];
  const at = new Date(Date.UTC(year, month - 1, day));
  if (at.getUTCFullYear() !== year || at.getUTCMonth() !== month - 1 || at.getUTCDate() !== day) return null;
  return `${by.year}-${String(month).padStart(2, "0")}-${String(day).padStart(2, "0")}`;
}

/**
 * A time of day typed as hours and minutes on the 24-hour clock ("21:05", "9:05", "21h05", a number pad's "2105") as
 * "HH:MM"; null when it is not one. The page's own field, not the browser's time field (which writes the browser's
 * locale: "09:05 PM").
 * @param {string} text
 * @returns {string | null}
 */
export function parseClock(text) {
  const match = /^\s*(\d{1,2})\s*[:hH.]?\s*(\d{2})\s*$/.exec(String(text));  // "2105": a number pad's
  if (!match || Number(match[1]) > 23 || Number(match[2]) > 59) return null;
  return `${match[1].padStart(2, "0")}:${match[2]}`;
}
