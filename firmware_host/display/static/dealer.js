// The dealer console (/dealer): a signed-in dealer takes bets, decisions, the deal and the payouts of a house game over /ws/dealer.
// What is legal comes from the feed (to_act, legal, next, phase); the controller decides every command and its refusals are shown as it words them.
import { cardsElements } from "/static/cards.js";
import { formatMoney, formatNet, t, tOr } from "/static/words.js";
import { ensureSignedIn, signOut, whoAmI } from "/static/signin.js";
import { isPoker, renderPoker } from "/static/dealer-poker.js";

const MISSED_HEARTBEATS = 3;
const ROLES = ["dealer", "supervisor"];

const root = document.getElementById("console");
const refusal = document.getElementById("refusal");
const dialog = document.getElementById("signoff");
const form = document.getElementById("signoff-form");
let ws = null;
let heartbeatMs = 1000;
let lastHeard = 0;
let state = null;
let chips = [100, 500, 2500, 10000];
let counter = 0;
let waiting = null;              // the id of the command in flight (one at a time)
const sent = new Map();          // id -> the command, for its reply
const drafts = new Map();        // seat -> {circle: amount}: bets being built with chips, not yet sent
let selected = null;             // {seat, circle}: where the next chip goes
let signoffKind = null;

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

function button(action, label, className = "big", extra = {}) {
  const node = el("button", className, label);
  node.type = "button";
  node.dataset.action = action;
  for (const [key, value] of Object.entries(extra)) node.dataset[key] = String(value);
  node.disabled = waiting !== null;
  return node;
}

const money = (amount) => formatMoney(amount, state);
const circleName = (name) => tOr(`circle.${name}`, name);
const betting = () => state?.phase === "bets" && !state?.fault;

// -- commands -------------------------------------------------------------------------------------

function send(command) {
  if (ws === null || ws.readyState !== WebSocket.OPEN) { showRefusal("the display is not connected", "offline"); return null; }
  if (waiting !== null) return null;
  const id = `c${++counter}`;
  waiting = id;
  sent.set(id, command);
  root.dataset.waiting = id;
  ws.send(JSON.stringify({ kind: "command", id, command }));
  draw();
  return id;
}

const panelAnswers = new Map();  // id -> the poker panel's wait for its answer (the panel shows its refusals itself)
function relay(command) {
  return new Promise((resolve) => {
    const id = send(command);
    if (id === null) resolve({ kind: "error", error: "the display is not connected, or a command is in flight" });
    else panelAnswers.set(id, resolve);
  });
}

function showRefusal(text, code) {
  refusal.textContent = text;
  refusal.dataset.refusal = code ?? "refused";
  refusal.hidden = false;
}

function clearRefusal() {
  refusal.hidden = true;
  refusal.textContent = "";
  delete refusal.dataset.refusal;
}

function answered(message) {
  const command = sent.get(message.id);
  sent.delete(message.id);
  if (message.id === waiting || message.id === undefined) { waiting = null; delete root.dataset.waiting; }
  const panel = panelAnswers.get(message.id);
  if (panel) { panelAnswers.delete(message.id); panel(message); draw(); return; }
  if (message.kind === "error") {
    showRefusal(message.error, "relay");
  } else if (message.reply.ok) {
    clearRefusal();
    if (command?.cmd === "bet") drafts.delete(command.seat);
  } else {
    showRefusal(message.reply.error ?? message.reply.code, message.reply.code);
  }
  draw();
}

// -- drawing --------------------------------------------------------------------------------------

function spotOf(seat) {
  return (state?.spots ?? []).find((s) => s.seat === seat) ?? null;
}

function circleElement(seat, name, spot) {
  const draft = drafts.get(seat);
  const posted = spot?.bets ?? {};
  const node = el("button", "circle");
  node.type = "button";
  node.dataset.circle = name;
  node.dataset.action = "circle";
  node.dataset.seat = String(seat);
  const amount = draft && name in draft ? draft[name] : posted[name];
  node.append(el("span", "what", circleName(name)));
  node.append(el("span", "stake", amount ? money(amount) : "\u2013"));
  if (draft && name in draft) node.classList.add("draft");
  if (selected?.seat === seat && selected?.circle === name) node.classList.add("selected");
  const results = spot?.results;
  if (results && Number.isInteger(results[name])) {
    node.dataset.result = String(results[name]);
    node.classList.add(results[name] > 0 ? "win" : results[name] < 0 ? "lose" : "push");
  }
  node.disabled = !betting() || waiting !== null;
  return node;
}

function spotElement(seat) {
  const spot = spotOf(seat);
  const node = el("div", "spot");
  node.dataset.seat = String(seat);
  if (!spot) node.classList.add("empty");
  if (state.to_act === seat) node.classList.add("to-act");
  if (spot?.decision === "fold" || spot?.decision === "dead") node.classList.add("folded");
  const head = el("div", "seat", `Seat ${seat}`);
  if (spot?.decision) head.append(el("span", "decision", spot.decision));
  node.append(head);
  const cards = el("div", "cards");
  cards.append(...cardsElements(spot?.cards));
  node.append(cards);
  node.append(el("div", "hand-name", spot?.hand_name ?? ""));
  const circles = el("div", "circles");
  const names = [...(state.circles ?? [])];
  for (const name of Object.keys({ ...(spot?.bets ?? {}), ...(spot?.results ?? {}) })) {
    if (!names.includes(name)) names.push(name);
  }
  circles.append(...names.map((name) => circleElement(seat, name, spot)));
  node.append(circles);
  if (betting()) {
    const row = el("div", "spot-buttons");
    row.append(button("clear-bets", "Clear", "mid", { seat }), button("bet", "Bet", "mid go", { seat }));
    node.append(row);
  }
  return node;
}

function decisionsElement() {
  const box = document.getElementById("decisions");
  box.replaceChildren();
  if (state.to_act == null || !Array.isArray(state.legal) || state.fault) return;
  box.append(el("div", "prompt", `Seat ${state.to_act} to act`));
  for (const choice of state.legal) {
    const action = choice.multiple ? `${choice.decision}-${choice.multiple}` : choice.decision;
    const label = tOr(`decision.${choice.decision}`, choice.decision) + (choice.multiple ? ` ${choice.multiple}x` : "");
    box.append(button(action, label, `huge ${choice.decision}`, { seat: state.to_act }));
  }
}

function payoutLine(spot) {
  const line = el("div", "payout");
  line.dataset.seat = String(spot.seat);
  line.append(el("span", "who", `Seat ${spot.seat}`));
  const parts = el("span", "circles");
  for (const [name, net] of Object.entries(spot.results ?? {})) {
    const odds = spot.pays?.[name];
    let text = `${circleName(name)} pushes`;
    if (net > 0) text = `${circleName(name)} pays ${money(net)}` + (odds ? ` (${odds === "1:1" || !spot.hand_name ? odds : `${spot.hand_name} ${odds}`})` : "");
    if (net < 0) text = `${circleName(name)} loses ${money(-net)}`;
    const part = el("span", `part ${net > 0 ? "win" : net < 0 ? "lose" : "push"}`, text);
    part.dataset.payout = name;
    part.dataset.net = String(net);
    parts.append(part);
  }
  line.append(parts);
  const total = el("span", "total", `total ${formatNet(spot.net ?? 0, state)}`);
  total.dataset.total = String(spot.net ?? 0);
  line.append(total);
  return line;
}

function draw() {
  if (state === null) return;
  root.dataset.table = state.table ?? "";
  root.dataset.hand = String(state.hand ?? "");
  root.dataset.phase = state.phase ?? "";
  root.dataset.toAct = state.to_act == null ? "" : String(state.to_act);
  root.dataset.seq = String(state.seq);
  root.dataset.boot = state.boot ?? "";
  root.classList.toggle("poker-table", isPoker(state));  // a poker table: the poker panel (dealer-poker.js)
  if (isPoker(state)) renderPoker(document.getElementById("poker"), state, { send: relay });
  document.getElementById("game").textContent = state.game ? tOr(`game.${state.game}`, state.game) : "";
  document.getElementById("name").textContent = state.table ?? "";
  document.getElementById("hand").textContent = state.hand ?? "\u2013";
  document.getElementById("phase").textContent = state.phase ?? "";
  const next = document.getElementById("next");
  next.dataset.next = state.next ?? "";
  next.textContent = state.next ? `Next card \u2192 ${state.next}` : "";
  const dealer = state.dealer ?? {};
  document.getElementById("dealer").replaceChildren(...cardsElements(dealer.cards));
  let verdict = "";
  if (dealer.qualifies === true) verdict = " \u2013 qualifies";
  if (dealer.qualifies === false) verdict = " \u2013 does not qualify";
  document.getElementById("dealer-name").textContent = dealer.hand_name ? dealer.hand_name + verdict : "";
  document.getElementById("board-row").hidden = state.game === "3cp";
  document.getElementById("board").replaceChildren(...cardsElements(state.board));
  const seats = Number.isInteger(state.seats) ? state.seats : (state.spots ?? []).reduce((m, s) => Math.max(m, s.seat), 0);
  const spots = [];
  for (let seat = 1; seat <= seats; seat++) spots.push(spotElement(seat));
  document.getElementById("spots").replaceChildren(...spots);
  const chipBox = document.getElementById("chips");
  chipBox.replaceChildren();
  if (betting()) {
    chipBox.append(el("div", "prompt", selected ? `Seat ${selected.seat} ${circleName(selected.circle)}` : "Tap a bet circle"));
    for (const value of chips) {
      const chip = button("chip", money(value), `chip c${chips.indexOf(value)}`, { chip: value });
      chip.disabled = chip.disabled || selected === null;
      chipBox.append(chip);
    }
  }
  decisionsElement();
  const payouts = document.getElementById("payouts");
  const settledSpots = (state.spots ?? []).filter((s) => s.results);
  payouts.hidden = !(state.phase === "showdown" || state.phase === "settled") || settledSpots.length === 0;
  payouts.replaceChildren(...(payouts.hidden ? [] : [el("h2", "", state.phase === "showdown" ? "Pay, then confirm" : "Paid"), ...settledSpots.map(payoutLine)]));
  const show = (id, visible) => {
    const node = document.getElementById(id);
    node.hidden = !visible;
    node.disabled = waiting !== null;
  };
  show("deal", betting() && (state.spots ?? []).length > 0);
  show("confirm", state.phase === "showdown" && !state.fault);
  show("card", state.next != null && state.phase !== "bets");
  show("clear", Boolean(state.fault));
  show("void", state.phase !== "closed" && state.phase !== "settled");
  const fault = document.getElementById("fault");
  if (state.fault) {
    fault.textContent = `FAULT \u2013 ${state.fault.kind}: ${state.fault.message ?? ""}`;
    fault.dataset.fault = state.fault.kind ?? "fault";
    fault.hidden = false;
  } else {
    delete fault.dataset.fault;
    fault.hidden = true;
  }
  const held = document.getElementById("held");  // the pit's hold: no new hand until released (docs/feed.md)
  held.hidden = !state.hold;
  held.textContent = state.hold ? `HELD \u2013 ${state.hold.reason} (from hand ${state.hold.from_hand})` : "";
  document.dispatchEvent(new CustomEvent("croupier:rendered", { detail: { seq: state.seq } }));
}

// -- touch ----------------------------------------------------------------------------------------

function onTap(event) {
  const target = event.target.closest("[data-action]");
  if (!target || target.disabled || target.closest("[data-poker]")) return;  // the poker panel handles its own
  const action = target.dataset.action;
  const seat = target.dataset.seat ? Number(target.dataset.seat) : null;
  if (action === "circle") {
    selected = { seat, circle: target.dataset.circle };
  } else if (action === "chip" && selected) {
    const draft = drafts.get(selected.seat) ?? { ...(spotOf(selected.seat)?.bets ?? {}) };
    draft[selected.circle] = (draft[selected.circle] ?? 0) + Number(target.dataset.chip);
    drafts.set(selected.seat, draft);
  } else if (action === "clear-bets") {
    drafts.set(seat, {});
  } else if (action === "bet") {
    send({ cmd: "bet", seat, bets: drafts.get(seat) ?? spotOf(seat)?.bets ?? {} });
  } else if (action === "deal") {
    send({ cmd: "deal", hand: state.hand });
  } else if (action === "confirm") {
    send({ cmd: "confirm", hand: state.hand });
  } else if (action === "void" || action === "clear" || action === "card") {
    openSignoff(action);
  } else if (action === "signout") {
    signOut().then(() => location.reload());
  } else if (seat !== null && state?.legal) {
    const [decision, multiple] = action.split("-");
    const command = { cmd: "decide", hand: state.hand, seat, decision };
    if (multiple) command.multiple = Number(multiple);
    send(command);
  }
  draw();
}

function openSignoff(kind) {
  signoffKind = kind;
  const titles = { void: "Void the hand", clear: "Clear the fault", card: "Enter a card by hand" };
  document.getElementById("signoff-title").textContent = `${titles[kind]}: supervisor sign-off`;
  document.getElementById("signoff-reason-row").hidden = kind === "card";
  document.getElementById("signoff-card-row").hidden = kind !== "card";
  document.getElementById("signoff-then-row").hidden = kind !== "clear";
  dialog.dataset.signoff = kind;
  form.elements.reason.value = kind === "void" ? "dealer void" : kind === "clear" ? "fault cleared at the table" : "";
  dialog.showModal();
}

function sendSignoff() {
  const command = { cmd: signoffKind };
  if (signoffKind === "card") command.card = form.elements.card.value.trim();
  else command.reason = form.elements.reason.value.trim();
  if (signoffKind === "clear") command.then = form.elements.then.value;
  if (signoffKind === "void") command.hand = state.hand;
  const user = form.elements.user.value.trim();
  const pin = form.elements.pin.value;
  if (user || pin) command.auth = { user, pin };  // the controller checks it (service/signoff.py), not this page
  form.elements.pin.value = "";
  form.elements.card.value = "";
  dialog.close();
  send(command);
}

// -- the WebSocket --------------------------------------------------------------------------------

function setOffline(offline) {
  const banner = document.getElementById("offline");
  if (offline === !banner.hidden) return;
  banner.hidden = !offline;
  if (offline) banner.dataset.offline = "";
  else delete banner.dataset.offline;
  root.classList.toggle("stale", offline);
}

function connect() {
  ws = new WebSocket(`${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws/dealer`);
  ws.onmessage = (event) => {
    const message = JSON.parse(event.data);
    if (message.kind === "console") {
      chips = message.chips;
      document.getElementById("who").textContent = `${message.user} (${message.role})`;
      return;
    }
    if (message.kind === "hello") { heartbeatMs = message.heartbeat_s * 1000; return; }
    if (message.kind === "reply" || message.kind === "error") { answered(message); return; }
    lastHeard = performance.now();
    setOffline(false);
    if (message.kind === "snapshot" || message.kind === "update") {
      if (state && (message.hand !== state.hand || message.phase !== "bets")) { drafts.clear(); selected = null; }
      state = message;
      draw();
    }
  };
  ws.onclose = () => {
    ws = null;
    lastHeard = 0;
    waiting = null;
    setOffline(true);
    setTimeout(async () => { if (await whoAmI()) connect(); else location.reload(); }, 1000);
  };
}

async function main() {
  await ensureSignedIn(document.getElementById("signin-root"), ROLES, "Dealer console");
  root.hidden = false;
  root.addEventListener("click", onTap);
  document.getElementById("signoff-cancel").addEventListener("click", () => { form.elements.pin.value = ""; dialog.close(); });
  form.addEventListener("submit", (event) => { event.preventDefault(); sendSignoff(); });
  setInterval(() => { if (performance.now() - lastHeard > MISSED_HEARTBEATS * heartbeatMs) setOffline(true); }, 100);
  setOffline(true);
  connect();
}

main();
