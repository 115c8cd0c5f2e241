// @ts-check
// The table display (/table): follows the display's WebSocket bridge of the public feed and draws the table.
// Every element tests and integrators look for carries a data attribute (docs/display.md).
import { cardsElements, miniCardElement } from "./cards.js";
import { readSaid, stakeOf } from "./circle-chips.js";
import { announce, byId, el, Feed, markState, showOffline } from "./common.js";
import { netTone } from "./format.js";
import { isPoker } from "./state.js";
import { renderPoker } from "./table-poker.js";
import { formatMoney, formatNet, formatNumber, handText, limitsWords, t, tOr } from "./words.js";

const root = byId("table");
const house = byId("house");
const poker = byId("poker");
const faultBanner = byId("fault");
const offlineBanner = byId("offline");

function decisionText(decision) {
  if (!decision) return "";
  if (decision === "dead") return t("table.dead");
  return tOr(`decided.${decision}`, "");
}

/** A seat's circles as read ({ante: {value, stable}}): the public feed's `chips` (values only, never a chip's UID). */
function readsOf(current, seat) {
  return Object.fromEntries((current.chips?.circles ?? []).filter((c) => c.seat === seat).map((c) => [c.circle, c]));
}

function spotElement(spot, current) {
  const node = el("div", "spot");
  node.dataset.seat = String(spot.seat);
  node.style.gridColumn = String(Math.min(Math.max(spot.seat, 1), 7));  // each seat in its own place
  if (spot.decision === "fold" || spot.decision === "dead") node.classList.add("folded");
  const toAct = current.to_act != null && current.to_act === spot.seat && !current.fault;
  node.classList.toggle("to-act", toAct);
  if (toAct) node.dataset.toAct = "";
  node.append(el("div", "seat", t("common.seat", { seat: spot.seat })));
  const cards = el("div", "cards");
  cards.append(...cardsElements(spot.cards));
  node.append(cards);
  node.append(el("div", "decision", toAct ? t("table.your_turn") : decisionText(spot.decision)));
  node.append(el("div", "hand-name", handText(spot)));
  const circles = el("div", "circles");
  const bets = spot.bets ?? {};
  const results = spot.results ?? null;
  const read = readsOf(current, spot.seat);  // a smart table's circles as its readers show them, live
  const names = [...new Set([...Object.keys(bets), ...Object.keys(results ?? {}), ...Object.keys(read)])];
  for (const name of names) {
    const circle = el("div", "circle");
    circle.dataset.circle = name;
    circle.append(el("span", "what", tOr(`circle.${name}`, name)));
    const stake = stakeOf(current, spot.seat, name, bets[name]);  // at a smart table its chips read until the bet is taken
    circle.append(el("span", `stake${stake.moving ? " moving" : ""}`, stake.amount ? formatMoney(stake.amount, current) : "\u2013"));
    if (stake.read) circle.dataset.chipsRead = String(stake.amount);
    if (readSaid(current, spot.seat, name, stake)) {
      const reads = el("span", "reads", t("table.chips_read", { amount: { money: read[name].value } }, current));
      reads.dataset.chipsRead = String(read[name].value);
      if (!read[name].stable) reads.classList.add("moving");
      circle.append(reads);
    }
    if (results && name in results && Number.isInteger(results[name])) {
      const net = results[name];
      circle.dataset.result = String(net);
      circle.classList.add(netTone(net));
      circle.append(el("span", "result", formatNet(net, current)));
    }
    circles.append(circle);
  }
  node.append(circles);
  return node;
}

function limitsSign(limits, current) {
  // "Minimum EUR 5.00  Maximum EUR 100.00  Side bets EUR 1.00 to EUR 50.00" (a 0 maximum: none)
  const node = byId("limits");
  if (!limits) { node.replaceChildren(); return; }
  const part = (label, text) => [el("span", "", `${label} `), el("b", "", text), el("span", "", "  ")];
  const money = (amount) => formatMoney(amount, current);
  const words = limitsWords(limits, money);
  const parts = [...part(t("table.minimum"), words.minimum)];
  if (words.maximum) parts.push(...part(t("table.maximum"), words.maximum));
  if (words.side) parts.push(...part(t("table.side_bets"), words.side));
  node.replaceChildren(...parts);
  for (const key of ["minimum", "maximum", "side_minimum", "side_maximum"]) node.dataset[key.replace("_m", "M")] = String(limits[key] ?? 0);
}

let shownPaytable = "";
function paytables(paytable, game) {
  // drawn again when the table opens another game or another profile (the same profile's name and
  // text serve both house games: the game's circles differ)
  const key = paytable ? JSON.stringify([game, paytable.name, paytable.sha256, Object.keys(paytable.pays ?? {})]) : "";
  if (key === shownPaytable) return;
  shownPaytable = key;
  const node = byId("paytables");
  if (!paytable) { node.replaceChildren(); return; }
  const parts = [el("h2", "", t("table.paytables")),
    el("div", "profile", `${paytable.name} \u00b7 ${String(paytable.sha256).slice(0, 12)}`)];
  for (const [circle, pays] of Object.entries(paytable.pays ?? {})) {
    const table = el("table", "paytable");
    table.dataset.paytable = circle;
    table.append(el("caption", "", tOr(`circle.${circle}`, circle)));
    for (const [hand, [win, stake]] of Object.entries(pays)) {
      const row = el("tr");
      row.dataset.pays = hand;
      row.append(el("td", "", tOr(`hand_name.${hand}`, hand)), el("td", "pays", t("table.pays", { win, stake })));
      table.append(row);
    }
    parts.push(table);
  }
  node.replaceChildren(...parts);
}

function pastHand(past, current) {
  // one of the last hands: number, dealer's cards and hand, each spot's net (its circles' nets in data)
  const node = el("li", "past");
  node.dataset.hand = String(past.hand);
  node.append(el("span", "number", `${past.hand}`));
  const dealt = el("div", "dealt");
  const nets = el("div", "nets");
  if (past.voided) {
    node.classList.add("voided");
    node.dataset.voided = "";
    dealt.textContent = t("table.voided");
  } else {
    const dealer = past.dealer ?? {};
    const cards = el("span", "");
    cards.append(...(dealer.cards ?? []).map(miniCardElement));
    dealt.append(cards, el("span", "", handText(dealer)));
    for (const spot of past.spots ?? []) {
      const net = Number(spot.net ?? 0);
      // short, so seven seats fit on one line: "7 +15", "3 -7.50", "2 push" (whole units without decimals)
      const amount = net === 0 ? t("common.push") : formatNumber(net, current, true);
      const badge = el("span", `net ${netTone(net)}`);
      badge.append(el("span", "who", String(spot.seat)), document.createTextNode(` ${amount}`));
      badge.dataset.seat = String(spot.seat);
      badge.dataset.net = String(net);
      badge.dataset.results = JSON.stringify(spot.results ?? {});
      nets.append(badge);
    }
  }
  node.append(dealt, nets);
  return node;
}

function render(message) {
  markState(root, message);
  const pokerTable = isPoker(message);
  root.dataset.kind = pokerTable ? "poker" : "house";
  house.hidden = pokerTable;
  poker.hidden = !pokerTable;
  if (pokerTable) renderPoker(poker, message);
  else renderHouse(message);
  const fault = message.fault;
  if (fault) {  // the players see that the hand is paused, never the fault's code (the dealer's screens say it)
    faultBanner.textContent = t("common.paused");
    faultBanner.dataset.fault = "";
    faultBanner.hidden = false;
  } else {
    delete faultBanner.dataset.fault;
    faultBanner.hidden = true;
  }
  announce("croupier:rendered", { seq: message.seq });
}

function renderHouse(message) {
  byId("game").textContent = message.game ? tOr(`game.${message.game}`, "") : "";
  byId("name").textContent = message.table ?? "";
  byId("hand").textContent = message.hand ?? "\u2013";
  byId("phase").textContent = message.phase ? tOr(`table.phase_${message.phase}`, "") : "";
  const dealer = message.dealer ?? {};
  byId("dealer").replaceChildren(...cardsElements(dealer.cards));
  let named = handText(dealer);
  if (named && dealer.qualifies === true) named = t("table.qualifies", { hand: named });
  if (named && dealer.qualifies === false) named = t("table.not_qualifies", { hand: named });
  byId("dealer-name").textContent = named;
  byId("board-row").hidden = message.game === "3cp";
  byId("board").replaceChildren(...cardsElements(message.board));
  const spots = [...(message.spots ?? [])];  // and the seats whose circles hold chips not yet bet
  for (const seat of new Set((message.chips?.circles ?? []).map((c) => c.seat))) {
    if (!spots.some((s) => s.seat === seat)) spots.push({ seat, cards: [], bets: {} });
  }
  spots.sort((a, b) => a.seat - b.seat);
  byId("spots").replaceChildren(...spots.map((s) => spotElement(s, message)));
  const turn = byId("turn");  // whose turn it is, in words under the cards
  const toAct = message.to_act != null && !message.fault;
  turn.hidden = !toAct;
  turn.textContent = toAct ? t("table.to_decide", { seat: message.to_act }) : "";
  if (toAct) turn.dataset.turn = String(message.to_act);
  limitsSign(message.limits, message);
  paytables(message.paytable, message.game);
  const history = (message.history ?? []).filter((past) => !past.poker).reverse();  // the latest first
  byId("history").replaceChildren(...history.map((past) => pastHand(past, message)));
}

// ?table=NAME: that table
new Feed(`/ws/public${location.search}`, {
  onMessage: (message) => { if (message.kind === "snapshot" || message.kind === "update") render(message); },
  onOffline: (offline) => showOffline(offline, offlineBanner, { stale: root }),
}).start();
