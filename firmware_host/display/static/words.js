// The page's words in the display's language (/words.json, words.py): t("section.key", {args}) and money in its locale.
// An argument sent as {money: n} is written as money, {card: "Td"} as the card, {word: "circle.ante"} as that word.
// Elements with data-t="section.key" get the word as text, data-t-label as aria-label, data-t-placeholder likewise.
const response = await fetch("/words.json", { credentials: "same-origin" });
const served = response.ok ? await response.json() : { lang: "en", locale: "en-GB", words: {} };

export const lang = served.lang;
export const locale = served.locale;
const words = served.words;
document.documentElement.lang = lang;

const SUITS = { s: "\u2660", h: "\u2665", d: "\u2666", c: "\u2663" };

// A card's text form ("Td") as the pages print it: "10♦".
export function cardText(text) {
  if (typeof text !== "string" || text.length !== 2 || !(text[1] in SUITS)) return "??";
  return (text[0] === "T" ? "10" : text[0]) + SUITS[text[1]];
}

// Money in the smallest unit as the locale writes it with the table's currency ("1 234,50 €", "€1,234.50").
export function formatMoney(amount, state, signed = false) {
  const currency = typeof state?.currency === "string" ? state.currency : "EUR";
  const decimals = Number.isInteger(state?.decimals) && state.decimals >= 0 ? state.decimals : 2;
  let format;
  try {
    format = new Intl.NumberFormat(locale, { style: "currency", currency, minimumFractionDigits: decimals,
      maximumFractionDigits: decimals, signDisplay: signed ? "exceptZero" : "auto" });
  } catch {  // a currency code Intl does not know: the amount and the code
    format = { format: (v) => `${new Intl.NumberFormat(locale, { minimumFractionDigits: decimals }).format(v)} ${currency}` };
  }
  return format.format(amount / 10 ** decimals).replace("-", "\u2212");
}

// An amount without its currency, as short as the locale writes it: whole units without decimals ("+15", "−7,50").
export function formatNumber(amount, state, signed = false) {
  const decimals = Number.isInteger(state?.decimals) && state.decimals >= 0 ? state.decimals : 2;
  const whole = amount % 10 ** decimals === 0;
  return new Intl.NumberFormat(locale, { minimumFractionDigits: whole ? 0 : decimals, maximumFractionDigits: decimals,
    signDisplay: signed ? "exceptZero" : "auto" }).format(amount / 10 ** decimals).replace("-", "\u2212");
}

export function formatNet(amount, state) {
  return amount === 0 ? t("common.push") : formatMoney(amount, state, true);
}

function argText(value, state) {
  if (value !== null && typeof value === "object") {
    if (Number.isInteger(value.money)) return formatMoney(value.money, state);
    if (typeof value.card === "string") return cardText(value.card);
    if (typeof value.word === "string") return t(value.word);
    if (Array.isArray(value.cards)) return value.cards.map(cardText).join(" ");
  }
  return String(value);
}

// The word for `key` with its {fields} filled from `args`; a key the catalog lacks shows as itself (tests look for that).
export function t(key, args = {}, state = null) {
  const text = words[key];
  if (text === undefined) return key;
  return text.replace(/\{([a-z_][a-z0-9_]*)\}/g, (whole, name) => (name in args ? argText(args[name], state) : whole));
}

// The word for `key` if the catalog has it, else `fallback` (a code the controller sent that the catalog may not name).
export function tOr(key, fallback, args = {}, state = null) {
  return key in words ? t(key, args, state) : fallback;
}

// A message the controller or display sent as {key, args}: in the page's words.
export function say(message, state = null) {
  if (message && typeof message === "object" && typeof message.key === "string") {
    return t(message.key, message.args ?? {}, state);
  }
  return String(message ?? "");
}

// A house game's hand (a spot's or the dealer's) in the page's words, from its category (engine.evaluate's keys); a
// past hand journaled before hands carried their category keeps its name as it was.
export function handText(hand) {
  if (!hand) return "";
  if (hand.hand_category) return tOr(`hand_name.${hand.hand_category}`, hand.hand_name ?? "");
  return hand.hand_name ?? "";
}

// A shown poker hand from its values in the state (`hand_values`, tables/poker/sign.py hand_words): its category's
// name, or a low's or a badugi's ranks ("8-5-4-2-A low"); hi-lo: "high / low". The players' screen and the console.
export function pokerHandWords(values) {
  return (values ?? []).map((v) => {
    if (v.ranks) return v.category.startsWith("badugi") ? t("poker_table.badugi", { ranks: v.ranks }) : t("poker_table.low_hand", { ranks: v.ranks });
    return tOr(`hand_name.${v.category}`, "");
  }).filter(Boolean).join(" / ");
}

export function translate(root = document) {
  for (const node of root.querySelectorAll("[data-t]")) node.textContent = t(node.dataset.t);
  for (const node of root.querySelectorAll("[data-t-label]")) node.setAttribute("aria-label", t(node.dataset.tLabel));
  for (const node of root.querySelectorAll("[data-t-placeholder]")) node.placeholder = t(node.dataset.tPlaceholder);
  for (const node of root.querySelectorAll("[data-t-title]")) node.title = t(node.dataset.tTitle);
}

translate();
