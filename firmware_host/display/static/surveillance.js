// The surveillance view (/surveillance): a signed-in surveillance user follows the table's full feed over /ws/full:
// every card as dealt, the burns, the hand's steps as they happen, and the last 10 hands recalled from the journal.
// Data attributes as docs/display.md lists them (data-card holds the real card here, never "??" for a dealt card).
import { cardsElements } from "/static/cards.js";
import { formatMoney, formatNet, tOr } from "/static/words.js";
import { ensureSignedIn, signIn } from "/static/signin.js";

const MISSED_HEARTBEATS = 3;
const MAX_STEPS = 300;
const RECALL = 10;

const app = document.getElementById("app");
const view = document.getElementById("view");
const root = document.getElementById("table");
const offlineBanner = document.getElementById("offline");
const faultBox = document.getElementById("fault");
const stepsList = document.getElementById("steps");
const historyBox = document.getElementById("history");
let heartbeatMs = 1000;
let lastHeard = 0;
let previous = null; // the last full state drawn: the steps are what changed since
let socket = null;

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

function betsText(bets, state) {
  return Object.entries(bets ?? {}).map(([circle, amount]) => `${circle} ${formatMoney(amount, state)}`).join(", ");
}

// -- the live table ------------------------------------------------------------------------------------------

function placedCards(cards, visible) {
  return cardsElements(cards).map((card, i) => {
    if (visible && visible[i] === false) card.classList.add("hidden"); // face down on the table, shown here
    return card;
  });
}

function spotElement(spot, state) {
  const node = el("div", "spot");
  node.dataset.seat = String(spot.seat);
  if (state.to_act === spot.seat) node.classList.add("acting");
  if (spot.decision === "fold" || spot.decision === "dead") node.classList.add("folded");
  node.append(el("div", "seat", `Seat ${spot.seat}${spot.decision ? ` \u2013 ${spot.decision}` : ""}`));
  const cards = el("div", "cards");
  cards.append(...placedCards(spot.cards, spot.visible));
  node.append(cards);
  node.append(el("div", "bets", betsText(spot.bets, state) || "no bets"));
  if (spot.hand_name) node.append(el("div", "hand-name", spot.hand_name));
  if (Number.isInteger(spot.net)) {
    node.append(el("div", `result ${spot.net > 0 ? "win" : spot.net < 0 ? "lose" : ""}`, `net ${formatNet(spot.net, state)}`));
  }
  return node;
}

function render(state) {
  root.dataset.table = state.table ?? "";
  root.dataset.hand = String(state.hand ?? "");
  root.dataset.phase = state.phase ?? "";
  root.dataset.seq = String(state.seq);
  root.dataset.boot = state.boot ?? "";
  document.getElementById("name").textContent = state.table ?? "";
  document.getElementById("game").textContent = state.game ? tOr(`game.${state.game}`, state.game) : "";
  document.getElementById("hand").textContent = state.hand ?? "\u2013";
  document.getElementById("phase").textContent = state.phase ?? "";
  document.getElementById("next").textContent = state.next ? `next card \u2192 ${state.next}`
    : state.to_act ? `seat ${state.to_act} to act` : "";
  const dealer = state.dealer ?? {};
  document.getElementById("dealer").replaceChildren(...placedCards(dealer.cards, dealer.visible));
  const verdict = dealer.qualifies === true ? " \u2013 qualifies" : dealer.qualifies === false ? " \u2013 does not qualify" : "";
  document.getElementById("dealer-name").textContent = dealer.hand_name ? dealer.hand_name + verdict : "";
  document.getElementById("board-row").hidden = state.game === "3cp";
  document.getElementById("board").replaceChildren(...cardsElements(state.board));
  document.getElementById("burns").replaceChildren(...cardsElements(state.burns));
  document.getElementById("spots").replaceChildren(...(state.spots ?? []).map((s) => spotElement(s, state)));
  if (state.fault) {
    faultBox.textContent = `FAULT ${state.fault.kind}: ${state.fault.detail ?? state.fault.message ?? ""}`;
    faultBox.dataset.fault = state.fault.kind ?? "fault";
    faultBox.hidden = false;
  } else {
    delete faultBox.dataset.fault;
    faultBox.hidden = true;
  }
  const devices = Object.entries(state.devices ?? {}).map(([name, d]) =>
    `${name} ${d.model ?? ""} ${d.serial ?? ""} fw ${d.firmware ?? "?"} ${d.online ? "online" : "OFFLINE"}` +
    (d.last_card ? ` (last ${d.last_card})` : ""));
  const sensors = Object.entries(state.sensors ?? {}).map(([name, on]) => `${name} ${on ? "yes" : "no"}`);
  document.getElementById("devices").textContent = [...devices, ...sensors].join("  \u00b7  ");
}

// -- the steps: what changed from one full state to the next -------------------------------------------------

function places(state) {
  const out = [["dealer", state.dealer?.cards ?? []], ["board", state.board ?? []]];
  for (const spot of state.spots ?? []) out.push([`seat ${spot.seat}`, spot.cards ?? []]);
  return out;
}

function stepsBetween(before, after) {
  const steps = [];
  const add = (kind, text) => steps.push([kind, text]);
  const sameHand = before && before.boot === after.boot && before.hand === after.hand;
  if (!sameHand) {
    if (before && before.boot === after.boot && before.hand !== after.hand && before.phase !== "settled"
        && (before.spots ?? []).some((s) => (s.cards ?? []).length)) {
      add("void", `hand ${before.hand} voided: every bet returned`);
    }
    add("hand", `hand ${after.hand} \u2013 ${after.game ? tOr(`game.${after.game}`, after.game) : "no game"} \u2013 ${after.phase}`);
    before = { spots: [], dealer: { cards: [] }, board: [], burns: [], manual: [] };
  } else if (before.phase !== after.phase) {
    add("phase", `phase ${after.phase}`);
  }
  const had = new Map(places(before));
  for (const [where, cards] of places(after)) {
    for (const card of cards.slice((had.get(where) ?? []).length)) add("card", `card ${card} \u2192 ${where}`);
  }
  for (const card of (after.burns ?? []).slice((before.burns ?? []).length)) add("burn", `burn ${card}`);
  for (const manual of (after.manual ?? []).slice((before.manual ?? []).length)) {
    add("card", `card ${manual.card} entered by hand` + (manual.signed_off?.user ? `, signed off by ${manual.signed_off.user}` : ""));
  }
  const spotsBefore = new Map((before.spots ?? []).map((s) => [s.seat, s]));
  for (const spot of after.spots ?? []) {
    const was = spotsBefore.get(spot.seat) ?? { bets: {} };
    const { play, ...bets } = spot.bets ?? {};
    const { play: wasPlay, ...wasBets } = was.bets ?? {};
    if (JSON.stringify(bets) !== JSON.stringify(wasBets)) {
      add("bet", `seat ${spot.seat} bets ${betsText(bets, after) || "nothing (spot down)"}`);
    }
    if (spot.decision && spot.decision !== was.decision) {
      add("decision", `seat ${spot.seat} ${spot.decision}` + (play && play !== wasPlay ? ` ${formatMoney(play, after)}` : ""));
    }
    if (Number.isInteger(spot.net) && !Number.isInteger(was.net)) {
      const circles = Object.entries(spot.results ?? {}).map(([c, n]) => `${c} ${formatNet(n, after)}`).join(", ");
      add("settlement", `seat ${spot.seat} ${spot.hand_name ?? ""}: ${circles}; net ${formatNet(spot.net, after)}`);
    }
  }
  if (after.fault && (!before.fault || before.fault.event !== after.fault.event)) {
    add("fault", `FAULT ${after.fault.kind}: ${after.fault.detail ?? after.fault.message ?? ""}`);
  } else if (!after.fault && before.fault) {
    add("clear", `fault ${before.fault.kind} cleared`);
  }
  if (after.phase === "settled" && before.phase !== "settled" && sameHand) {
    const house = -(after.spots ?? []).reduce((sum, s) => sum + (Number.isInteger(s.net) ? s.net : 0), 0);
    add("settlement", `hand ${after.hand} settled: house ${formatNet(house, after)}`);
  }
  return steps;
}

function logSteps(state) {
  for (const [kind, text] of stepsBetween(previous, state)) {
    const line = el("li");
    line.dataset.step = kind;
    line.dataset.hand = String(state.hand);
    line.dataset.seq = String(state.seq);
    line.append(el("span", "seq", `#${state.seq}`), document.createTextNode(text));
    stepsList.prepend(line); // newest on top
  }
  while (stepsList.children.length > MAX_STEPS) stepsList.lastElementChild.remove();
}

// -- the recall: the last hands from the journal (the controller's `history`) ---------------------------------

function miniCards(cards) {
  const line = el("span", "mini");
  for (const card of cards ?? []) {
    const c = el("span", card[1] === "h" || card[1] === "d" ? "r" : "", `${card} `);
    c.dataset.card = card;
    line.append(c);
  }
  return line;
}

function playText(play) {
  if (play === null || play === undefined || play === false) return "fold";
  if (play === true) return "play";
  return `play ${play.multiple}x ${play.street ?? ""}`.trim();
}

function pastHand(hand, state) {
  const node = el("div", "past");
  node.dataset.hand = String(hand.hand);
  const title = el("div", "title", `hand ${hand.hand} ${hand.round?.game ?? hand.game ?? ""} `);
  title.append(el("span", `status ${hand.status}`, hand.status.toUpperCase()));
  if (hand.settlement) title.append(document.createTextNode(`  house ${formatNet(hand.settlement.house_net, state)}`));
  node.append(title);
  const round = hand.round;
  if (round) {
    const results = new Map((hand.settlement?.spots ?? []).map((s) => [s.seat, s]));
    for (const spot of round.spots ?? []) {
      const line = el("div", "spot-line");
      line.dataset.seat = String(spot.seat);
      line.append(document.createTextNode(`seat ${spot.seat}: `), miniCards(spot.cards));
      let text = ` ${betsText(spot.bets, state)}; ${hand.status === "settled" ? playText(spot.play) : ""}`;
      const r = results.get(spot.seat);
      if (r) text += ` \u2013 ${r.hand}: net ${formatNet(r.net, state)}`;
      line.append(document.createTextNode(text));
      node.append(line);
    }
    const dealer = el("div", "dealer-line");
    dealer.append(document.createTextNode("dealer: "), miniCards(round.dealer));
    if (hand.settlement?.dealer?.hand) dealer.append(document.createTextNode(` ${hand.settlement.dealer.hand}`));
    node.append(dealer);
    if ((round.board ?? []).length) {
      const board = el("div", "board-line");
      board.append(document.createTextNode("board: "), miniCards(round.board));
      node.append(board);
    }
  } else if (hand.results) { // a poker hand
    node.append(el("div", "", (hand.results.net ?? []).map((n) => `seat ${n.seat} ${formatNet(n.net, state)}`).join(", ")));
  }
  if ((hand.burns ?? []).length) {
    const burns = el("div", "burns-line");
    burns.append(document.createTextNode("burns: "), miniCards(hand.burns));
    node.append(burns);
  }
  if (hand.status === "voided") node.append(el("div", "bad", `voided: ${hand.reason ?? ""}`));
  for (const fault of hand.faults ?? []) {
    node.append(el("div", "bad", `fault ${fault.kind}: ${fault.detail ?? ""}` +
      (fault.cleared_by || fault.reason ? `; cleared${fault.cleared_by ? ` by ${fault.cleared_by}` : ""}: ${fault.reason ?? ""} (${fault.then ?? ""})` : "")));
  }
  return node;
}

function showRecall(message) {
  const note = document.getElementById("recall-note");
  if (message.error) { note.textContent = message.error; return; }
  note.textContent = "";
  const state = previous ?? {};
  historyBox.replaceChildren(...[...message.hands].reverse().map((h) => pastHand(h, state))); // newest first
  historyBox.dataset.hands = message.hands.map((h) => h.hand).reverse().join(" "); // newest first, as shown
  document.dispatchEvent(new CustomEvent("croupier:recalled", { detail: { hands: message.hands.length } }));
}

function askRecall() {
  if (socket && socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify({ kind: "history", limit: RECALL }));
}

// -- the connection ------------------------------------------------------------------------------------------

function setOffline(offline) {
  if (offline === !offlineBanner.hidden) return;
  offlineBanner.hidden = !offline;
  if (offline) offlineBanner.dataset.offline = "";
  else delete offlineBanner.dataset.offline;
  root.classList.toggle("stale", offline);
}

function onState(state) {
  const closed = previous && previous.boot === state.boot &&
    ((state.phase === "settled" && previous.phase !== "settled") || state.hand !== previous.hand);
  logSteps(state);
  render(state);
  if (!previous || closed || previous.boot !== state.boot) askRecall();
  previous = state;
  document.dispatchEvent(new CustomEvent("croupier:rendered", { detail: { seq: state.seq } }));
}

function connect(me) {
  let opened = false;
  socket = new WebSocket(`${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws/full`);
  socket.onopen = () => { opened = true; };
  socket.onmessage = (event) => {
    const message = JSON.parse(event.data);
    if (message.kind === "hello") { heartbeatMs = message.heartbeat_s * 1000; return; }
    if (message.kind === "history") { showRecall(message); return; }
    lastHeard = performance.now();
    setOffline(false);
    if (message.kind === "snapshot" || message.kind === "update") onState(message);
  };
  socket.onclose = async () => {
    lastHeard = 0;
    setOffline(true);
    if (!opened) { // refused at the handshake (signed out, or not surveillance): sign in again
      const again = await fetch("/api/me", { credentials: "same-origin" }).then((r) => (r.ok ? r.json() : null));
      if (!again || again.role !== "surveillance") { start(false); return; }
    }
    setTimeout(() => connect(me), 1000);
  };
}

async function start(checkFirst = true) {
  view.hidden = true;
  offlineBanner.hidden = true;
  const form = el("div");
  app.append(form);
  const me = checkFirst ? await ensureSignedIn(form, ["surveillance"], "Surveillance")
    : await signIn(form, ["surveillance"], "Surveillance");
  form.remove();
  document.getElementById("user").textContent = `signed in: ${me.user}`;
  view.hidden = false;
  setOffline(true);
  connect(me);
}

setInterval(() => {
  if (!view.hidden && performance.now() - lastHeard > MISSED_HEARTBEATS * heartbeatMs) setOffline(true);
}, 100);
start();
