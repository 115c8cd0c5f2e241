// @ts-check
// A card's text form ("As", "Td", "??" face down) as the pages show it: rank and suit symbol, red or black (the
// card read once, format.js parseCard); the rank and the suit each its own span, for the pages that overlap cards.
import { el } from "./common.js";
import { parseCard } from "./format.js";

/**
 * A card as an element: `data-card` its text form, class `down` face down, `red` for hearts and diamonds.
 * @param {string} text
 * @returns {HTMLSpanElement}
 */
export function cardElement(text) {
  const node = el("span", "card");
  node.dataset.card = text;
  const card = parseCard(text);
  if (card === null) {
    node.classList.add("down");
    node.textContent = "??";
    return node;
  }
  node.append(el("span", "rank", card.rank), el("span", "suit", card.suit));  // its text "10♦"; a page may set the rank above the suit
  if (card.red) node.classList.add("red");
  return node;
}

/**
 * A card as the last hands list it, small: class `mini` (and `red`, `down`) rather than `card`.
 * @param {string} text
 * @returns {HTMLSpanElement}
 */
export function miniCardElement(text) {
  const card = cardElement(text);
  card.className = `mini${card.classList.contains("red") ? " red" : ""}${card.classList.contains("down") ? " down" : ""}`;
  return card;
}

/**
 * @param {readonly string[] | null | undefined} cards
 * @returns {HTMLSpanElement[]}
 */
export function cardsElements(cards) {
  return (cards ?? []).map((card) => cardElement(card));
}
