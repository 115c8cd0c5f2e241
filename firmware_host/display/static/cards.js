// A card's text form ("As", "Td", "??" face down) as the table display shows it: rank and suit symbol, red or black.
const SUITS = { s: "\u2660", h: "\u2665", d: "\u2666", c: "\u2663" };
const RANKS = { T: "10", J: "J", Q: "Q", K: "K", A: "A" };

export function cardElement(text) {
  const el = document.createElement("span");
  el.className = "card";
  el.dataset.card = text;
  const suit = SUITS[text.slice(-1)];
  if (text === "??" || text.length !== 2 || suit === undefined) {
    el.classList.add("down");
    el.textContent = "??";
    return el;
  }
  const rank = text[0];
  el.textContent = (RANKS[rank] ?? rank) + suit;
  if (text[1] === "h" || text[1] === "d") el.classList.add("red");
  return el;
}

export function cardsElements(cards) {
  return (cards ?? []).map(cardElement);
}
