// @ts-check
// The poker room's players' screen (/table at a poker table): the pots, the board, each seat's stack, bet and
// state in words, the button and blinds, the stakes and the tournament's level and clock, the last hands.
// It draws the public state as sent (docs/feed.md, "Poker tables") and decides no rule: the seat to act, the
// pots, each seat's posted blinds, draws, last action and shown hand all come from the controller.
import { cardElement, miniCardElement } from "./cards.js";
import { el, Feed } from "./common.js";
import { clockText, netTone } from "./format.js";
import { boardShown, streetKey } from "./state.js";
import { actWords, formatChips, formatMoney, pokerHandWords, stakesWords, t, tOr } from "./words.js";

/**
 * Amounts: money in the locale at a cash table; chips at a tournament table (its stacks and blinds are chips).
 * @param {any} state
 * @returns {(amount: number) => string}
 */
function amountOf(state) {
  if (state.tournament) return formatChips;
  return (n) => formatMoney(n, state);
}

// The stakes sign: "No limit · Blinds €0.05 / €0.10", "Fixed limit · Bets €1.00 / €2.00 · Ante €0.10, bring-in €0.25".
function stakesText(state, amount) {
  return [tOr(`poker_table.structure_${state.structure}`, ""), stakesWords(state, amount)].filter(Boolean).join(" \u00b7 ");
}

// -- the tournament's clock: the director's feed as the display bridges it (/ws/tournament), counted down here --
/** @type {any} */
let director = null;
let directorAt = 0;
/** @type {Feed | null} */
let clock = null;  // followed from the first tournament state; stopped when the display follows no director

function followDirector() {
  if (clock) return;
  const feed = new Feed("/ws/tournament", {
    onMessage: (message) => {
      if (message.kind === "none") feed.stop();  // the display follows no director ([display] tournament): the level alone
      if (message.kind === "snapshot" || message.kind === "update") {
        director = message;
        directorAt = performance.now();
      }
    },
    backoff: [5000],
  });
  clock = feed;
  feed.start();
}

function levelText(state) {
  const tour = state.tournament;
  if (!tour) return "";
  followDirector();
  const parts = [];
  if (tour.level != null) parts.push(t("poker_table.level", { level: tour.level }));
  const same = director && (!tour.name || director.tournament === tour.name);
  if (same && director.on_break) parts.push(t("poker_table.on_break"));
  if (same && director.left_s != null) {
    const left = director.left_s - (director.running ? (performance.now() - directorAt) / 1000 : 0);
    parts.push(t("poker_table.clock", { time: clockText(left) }));
  }
  return parts.join(" \u00b7 ");
}

// -- a card, a seat, the pots, the last hands --

function cardsOf(cards, className, overlap = false) {
  const node = el("div", className);
  const list = cards ?? [];
  const many = overlap && list.length > 4;
  node.classList.toggle("many", many);
  const faces = list.map(cardElement);
  if (many) {  // overlapped: the rank above the suit, at the card's left edge
    for (const card of faces) if (!card.classList.contains("down")) card.textContent = card.textContent.replace(/(.)$/u, "\n$1");
  }
  node.append(...faces);
  return node;
}

function blindsWords(posted, amount) {
  // the forced bets a seat posted this hand, in words: "Big blind €0.10"
  return ["small_blind", "big_blind", "straddle", "dead_small_blind"].filter((kind) => posted?.[kind])
    .map((kind) => `${t(`poker_table.${kind}`)} ${amount(posted[kind])}`);
}

function seatElement(spot, state, amount) {
  const node = el("div", "p-seat");
  node.dataset.seat = String(spot.seat);
  const toAct = state.to_act === spot.seat && !state.fault;
  const inHand = spot.in_hand !== false;
  let status = "";
  if (toAct) status = "to_act";
  else if (spot.folded) status = "folded";
  else if (spot.all_in) status = "all_in";
  else if (spot.sitting_out) status = "sitting_out";
  node.dataset.status = status || "in";
  if (toAct) node.dataset.toAct = "";
  node.classList.toggle("to-act", toAct);
  node.classList.toggle("folded", Boolean(spot.folded) || !inHand);

  const head = el("div", "p-head");
  head.append(el("span", "p-name", t("common.seat", { seat: spot.seat })));
  if (state.button === spot.seat) {
    const button = el("span", "p-button", t("poker_table.button_short"));
    button.dataset.button = "";
    button.title = t("poker_table.button");
    head.append(button);
  }
  node.append(head);
  const blinds = el("div", "p-blinds", blindsWords(spot.posted, amount).join(" \u00b7 "));
  blinds.dataset.posted = JSON.stringify(spot.posted ?? {});
  node.append(blinds);
  node.append(cardsOf(spot.cards, "p-cards", true));
  const stack = el("div", "p-stack");
  stack.dataset.stack = String(spot.stack ?? 0);
  stack.append(el("span", "what", t("poker_table.stack")), el("b", "", amount(spot.stack ?? 0)));
  node.append(stack);

  let words = "";
  if (toAct) words = t("poker_table.to_act");
  else if (spot.folded) words = t("poker_table.folded");
  else if (spot.all_in) words = t("poker_table.all_in");
  else if (spot.sitting_out) words = t("poker_table.sitting_out");
  else if (!inHand) words = "";
  else words = actWords(spot.act, amount);
  const said = el("div", "p-state", words);
  said.dataset.state = status || "in";
  node.append(said);
  if ((spot.drew ?? []).length) {
    // one line for every draw: "Drew: 2 · 1 · 0" (0: stood pat); "Stood pat" when it never drew
    const text = spot.drew.every((n) => n === 0) ? t("poker_table.stood_pat") : t("poker_table.drew", { cards: spot.drew.join(" \u00b7 ") });
    const draws = el("div", "p-drew", text);
    draws.dataset.drew = JSON.stringify(spot.drew);
    node.append(draws);
  }
  const bet = spot.bets?.bet ?? 0;
  const circle = el("div", "circle p-bet");
  circle.dataset.bet = String(bet);
  circle.append(el("span", "what", t("poker_table.bet")), el("span", "stake", bet ? amount(bet) : "\u2013"));
  if (!bet) circle.classList.add("empty");
  node.append(circle);
  const shown = pokerHandWords(spot.hand_values);
  node.append(el("div", "hand-name", shown));
  if (Number.isInteger(spot.net)) {
    const net = el("div", `p-net ${netTone(spot.net)}`,
      spot.net === 0 ? "" : (spot.net > 0 ? "+" : "\u2212") + amount(Math.abs(spot.net)));
    net.dataset.net = String(spot.net);
    node.append(net);
  }
  return node;
}

function potsElement(state, amount) {
  const node = el("aside", "panel p-pots");
  node.dataset.pots = "";
  node.append(el("h2", "", t("poker_table.pot")));
  const total = el("div", "p-total", amount(state.total_pot ?? 0));
  total.dataset.totalPot = String(state.total_pot ?? 0);
  node.append(total);
  const results = state.results;
  const pots = results ? results.pots : (state.pots ?? []);
  const list = el("ol", "p-potlist");
  pots.forEach((pot, i) => {
    if (!pot.amount) return;  // an empty pot (a blind all in for nothing more) is no pot to the players
    const item = el("li", "p-pot");
    item.dataset.pot = String(i);
    item.dataset.amount = String(pot.amount);
    const name = i === 0 ? t("poker_table.main_pot") : t("poker_table.side_pot", { n: i });
    const line = el("div", "p-potline");
    line.append(el("span", "", name), el("b", "", amount(pot.amount)));
    item.append(line);
    if (pot.eligible && !results) item.append(el("div", "p-eligible", t("poker_table.pot_seats", { seats: pot.eligible.join(" ") })));
    for (const w of pot.winners ?? []) {
      const half = w.half === "high" || w.half === "low" ? ` (${t(`poker_table.${w.half}`)})` : w.half === "chop" ? ` (${t("poker_table.split")})` : "";
      const win = el("div", "p-winner", `${t("common.seat", { seat: w.seat })} ${t("poker_table.wins", { amount: amount(w.amount) })}${half}`);
      win.dataset.winner = String(w.seat);
      win.dataset.amount = String(w.amount);
      item.append(win);
    }
    list.append(item);
  });
  node.append(list);
  for (const back of results?.returned ?? []) {  // an uncalled bet handed back to its seat, in no pot (the console's words)
    const line = el("div", "p-returned", t("poker_console.returned", { amount: amount(back.amount), seat: back.seat }));
    line.dataset.returned = String(back.seat);
    node.append(line);
  }
  if (results && results.rake) node.append(el("div", "p-rake", t("poker_table.rake", { amount: amount(results.rake) })));
  if (results && !results.showdown && !results.chopped) node.append(el("div", "p-rake", t("poker_table.no_showdown")));
  return node;
}

function pastHand(past, amount) {
  const node = el("li", "p-past");
  node.dataset.pastHand = String(past.hand);
  node.append(el("span", "number", String(past.hand)));
  const body = el("div", "p-pastbody");
  if (past.voided) {
    node.dataset.voided = "";
    body.append(el("div", "p-voided", t("poker_table.voided")));
  } else {
    const board = el("div", "p-pastboard");
    board.append(...(past.board ?? []).map(miniCardElement));
    body.append(board);
    const winners = el("div", "p-pastwins");
    for (const spot of (past.spots ?? []).filter((s) => s.net > 0)) {
      const win = el("span", "net win");
      win.dataset.seat = String(spot.seat);
      win.dataset.net = String(spot.net);
      const named = pokerHandWords(spot.hand_values);
      win.append(el("span", "who", String(spot.seat)), document.createTextNode(` +${amount(spot.net)}${named ? ` ${named}` : ""}`));
      winners.append(win);
    }
    body.append(winners);
  }
  node.append(body);
  return node;
}

// The whole poker screen, drawn again from each state.
export function renderPoker(root, state) {
  lastState = state;
  const amount = amountOf(state);
  const sign = el("header", "sign p-sign");
  sign.append(el("span", "game", tOr(`game.${state.game}`, "")));
  const stakes = el("span", "limits", stakesText(state, amount));
  stakes.dataset.stakes = "";
  sign.append(stakes);
  const level = el("span", "p-level", levelText(state));
  level.dataset.level = state.tournament?.level != null ? String(state.tournament.level) : "";
  sign.append(level);
  const hand = el("span", "hand");
  hand.append(el("span", "", t("common.hand")), document.createTextNode(" "), el("b", "", String(state.hand ?? "\u2013")));
  sign.append(hand);
  const street = state.phase === "betting" || state.phase === "dealing" || state.phase === "drawing"
    ? tOr(`poker_table.street_${streetKey(state.street)}`, "") : tOr(`poker_table.phase_${state.phase}`, "");
  const phase = el("span", "phase", street);
  phase.dataset.street = state.street ?? "";
  sign.append(phase);

  const middle = el("section", "middle p-middle");
  middle.append(potsElement(state, amount));
  const felt = el("section", "felt p-felt");
  felt.append(el("div", "name", state.table ?? ""));
  const boardRow = el("div", "row");
  const board = cardsOf(state.board, "cards");
  board.dataset.board = "";
  const label = el("span", "label", t("poker_table.board"));
  label.classList.toggle("empty", !boardShown(state));  // stud and the draw games deal no board
  boardRow.append(label, board);
  felt.append(boardRow);
  const turn = el("div", "turn");
  turn.dataset.turn = state.to_act != null ? String(state.to_act) : "";
  if (state.to_act != null && !state.fault) turn.textContent = t("poker_table.seat_to_act", { seat: state.to_act });
  else if (state.phase === "waiting") turn.textContent = t("poker_table.empty");
  felt.append(turn);
  middle.append(felt);
  const history = el("aside", "panel history p-history");
  history.append(el("h2", "", t("poker_table.last_hands")));
  const list = el("ol", "");
  list.dataset.pokerHistory = "";
  list.append(...(state.history ?? []).filter((past) => past.poker).reverse().map((past) => pastHand(past, amount)));
  history.append(list);
  middle.append(history);

  const spots = state.spots ?? [];
  const seats = el("section", "p-seats");
  seats.style.gridTemplateColumns = `repeat(${Math.max(spots.length, 6)}, minmax(0, 1fr))`;
  seats.append(...spots.map((spot) => seatElement(spot, state, amount)));
  root.replaceChildren(sign, middle, seats);
}

// The tournament's clock counts down between states: its line is written again each second.
let lastState = null;
setInterval(() => {
  const line = document.querySelector("#poker .p-level");
  if (line && lastState?.tournament) line.textContent = levelText(lastState);
}, 1000);
