// The table display (/table): follows the display's WebSocket bridge of the public feed and draws the table.
// Every element tests and integrators look for carries a data attribute (docs/display.md).
import { cardsElements } from "/static/cards.js";
import { formatMoney, formatNet } from "/static/money.js";

const GAMES = { uth: "Ultimate Texas Hold'em", "3cp": "Three Card Poker" };
const CIRCLES = { ante: "Ante", blind: "Blind", trips: "Trips", play: "Play", pair_plus: "Pair Plus" };
const MISSED_HEARTBEATS = 3;

const root = document.getElementById("table");
const faultBanner = document.getElementById("fault");
const offlineBanner = document.getElementById("offline");
let heartbeatMs = 1000;
let lastHeard = 0;
let state = null;

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

function spotElement(spot, current) {
  const node = el("div", "spot");
  node.dataset.seat = String(spot.seat);
  if (spot.decision === "fold" || spot.decision === "dead") node.classList.add("folded");
  node.append(el("div", "seat", `Seat ${spot.seat}`));
  const cards = el("div", "cards");
  cards.append(...cardsElements(spot.cards));
  node.append(cards);
  node.append(el("div", "decision", spot.decision ?? ""));
  node.append(el("div", "hand-name", spot.hand_name ?? ""));
  const circles = el("div", "circles");
  const bets = spot.bets ?? {};
  const results = spot.results ?? null;
  const names = [...new Set([...Object.keys(bets), ...Object.keys(results ?? {})])];
  for (const name of names) {
    const circle = el("div", "circle");
    circle.dataset.circle = name;
    circle.append(el("span", "what", CIRCLES[name] ?? name));
    circle.append(el("span", "stake", name in bets ? formatMoney(bets[name], current) : "\u2013"));
    if (results && name in results && Number.isInteger(results[name])) {
      const net = results[name];
      circle.dataset.result = String(net);
      circle.classList.add(net > 0 ? "win" : net < 0 ? "lose" : "push");
      circle.append(el("span", "result", formatNet(net, current)));
    }
    circles.append(circle);
  }
  node.append(circles);
  return node;
}

function render(message) {
  state = message;
  root.dataset.table = message.table ?? "";
  root.dataset.hand = String(message.hand ?? "");
  root.dataset.phase = message.phase ?? "";
  root.dataset.seq = String(message.seq);
  root.dataset.boot = message.boot ?? "";
  document.getElementById("game").textContent = GAMES[message.game] ?? message.game ?? "";
  document.getElementById("name").textContent = message.table ?? "";
  document.getElementById("hand").textContent = message.hand ?? "\u2013";
  document.getElementById("phase").textContent = message.phase ?? "";
  const dealer = message.dealer ?? {};
  document.getElementById("dealer").replaceChildren(...cardsElements(dealer.cards));
  let verdict = "";
  if (dealer.qualifies === true) verdict = " \u2013 qualifies";
  if (dealer.qualifies === false) verdict = " \u2013 does not qualify";
  document.getElementById("dealer-name").textContent = dealer.hand_name ? dealer.hand_name + verdict : "";
  document.getElementById("board-row").hidden = message.game === "3cp";
  document.getElementById("board").replaceChildren(...cardsElements(message.board));
  document.getElementById("spots").replaceChildren(...(message.spots ?? []).map((s) => spotElement(s, message)));
  const fault = message.fault;
  if (fault) {
    faultBanner.textContent = `FAULT \u2013 ${fault.kind}: ${fault.message ?? ""}`;
    faultBanner.dataset.fault = fault.kind ?? "fault";
    faultBanner.hidden = false;
  } else {
    delete faultBanner.dataset.fault;
    faultBanner.hidden = true;
  }
  document.dispatchEvent(new CustomEvent("croupier:rendered", { detail: { seq: message.seq } }));
}

function setOffline(offline) {
  if (offline === !offlineBanner.hidden) return;
  offlineBanner.hidden = !offline;
  if (offline) offlineBanner.dataset.offline = "";
  else delete offlineBanner.dataset.offline;
  root.classList.toggle("stale", offline);  // nothing stale shown as current
}

function connect() {
  const ws = new WebSocket(`${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws/public${location.search}`);  // ?table=NAME: that table
  ws.onmessage = (event) => {
    const message = JSON.parse(event.data);
    if (message.kind === "hello") {
      heartbeatMs = message.heartbeat_s * 1000;
      return;
    }
    lastHeard = performance.now();
    setOffline(false);
    if (message.kind === "snapshot" || message.kind === "update") render(message);
  };
  ws.onclose = () => {
    lastHeard = 0;
    setOffline(true);
    setTimeout(connect, 1000);
  };
}

setInterval(() => {
  if (performance.now() - lastHeard > MISSED_HEARTBEATS * heartbeatMs) setOffline(true);
}, 100);
setOffline(true);
connect();
