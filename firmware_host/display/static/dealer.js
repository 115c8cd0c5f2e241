// @ts-check
// The dealer console (/dealer): a signed-in dealer takes bets, decisions, the deal and the payouts of a house game over /ws/dealer.
// Which buttons a step allows comes from the feed (`steps`, `to_act`, `legal`, `next`, `phase`), decided in Python once; the
// controller decides every command and its refusals are shown in its words (`say`). Every word is the catalog's (words.js).
import { cardsElements } from "./cards.js";
import { announce, BACKOFF_MS, byId, byIdOf, el, Feed, markState, showOffline } from "./common.js";
import { faulted, stakeOf } from "./circle-chips.js";
import { chipsHint, circlesRead, holdsPayouts, readsBets, seeConsole, showMispaid, showReads } from "./dealer-chips.js";
import { initPlayers, openPlayers, ratedLine, seePlayers } from "./dealer-players.js";
import { nextCardText, renderPoker } from "./dealer-poker.js";
import { bettingHand, keepBets, keepDrafts, keptDrafts, remembered } from "./dealer-remembered.js";
import { correctable, initSignoff, openSignoff, signoffKept } from "./dealer-signoff.js";
import { initTray, openTray, seeTray } from "./dealer-tray.js";
import { netTone } from "./format.js";
import { ensureSignedIn, signIn, signOut, whoAmI } from "./signin.js";
import { isPoker } from "./state.js";
import { formatChipFace, formatMoney, formatNet, handText, refusalText, say, t, tOr } from "./words.js";

/**
 * Bets by circle ({ante: 500, blind: 500}), in the smallest unit.
 * @typedef {Record<string, number>} Bets
 */

const ROLES = ["dealer", "supervisor"];
const ARMING_MS = 400;           // a new seat's decision buttons stay inert this long: a second tap never acts for it
const NOT_THE_FEED = ["hello", "console", "reply", "error", "players", "tray"];  // the console's own messages: no word of the table's

const root = byId("console");
const refusal = byId("refusal");
const hint = byId("hint");
const unsent = byIdOf("unsent", HTMLDialogElement);
/** @type {any} */
let state = null;
let chips = [100, 500, 2500, 10000];
let counter = 0;
/** @type {string | null} */
let waiting = null;              // the id of the command in flight (one at a time)
/** @type {Map<string, any>} */
const sent = new Map();          // id -> the command, for its reply
/** @type {any[]} */
let queue = [];                  // commands sent one after the other (the whole table's bets, then the deal)
/** @type {Map<number, Bets>} */
const drafts = new Map();        // seat -> {circle: amount}: bets being built with chips, not yet sent
/** @type {{seat: number, circle: string} | null} */
let selected = null;             // where the next chip goes
/** @type {string | null} */
let stepKey = null;              // the step on screen (hand, phase, seat to act): a refusal clears with the next one
/** @type {string | null} */
let decisionsKey = null;
let armedAt = 0;                 // when the decision buttons on screen answer a tap
/** @type {{hand: number, seats: {seat: number, bets: Bets, total: number}[]} | null} */
let returns = null;              // a voided hand's bets to give back

/**
 * @param {string} action
 * @param {string} label
 * @param {string} [className]
 * @param {Record<string, string | number>} [extra] its data attributes
 * @returns {HTMLButtonElement}
 */
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
const seatName = (seat) => t("common.seat", { seat });
const steps = () => state?.steps ?? {};  // which buttons the step allows: decided by the controller (tables/steps.py)
const betting = () => Boolean(steps().bet) && !state?.fault;
const seatCount = () => Number.isInteger(state?.seats) ? state.seats : (state?.spots ?? []).reduce((m, s) => Math.max(m, s.seat), 0);
const spotOf = (seat) => (state?.spots ?? []).find((s) => s.seat === seat) ?? null;

// The bets posted for the hand being bet; none while the last hand is still on screen (its bets are its own).
function postedOf(seat) {
  return state?.phase === "bets" ? spotOf(seat)?.bets ?? {} : {};
}

function betsText(bets) {
  return Object.entries(bets).filter(([, amount]) => amount > 0)
    .map(([circle, amount]) => t("console.bet_line", { circle: circleName(circle), amount: { money: amount } }, state)).join(", ");
}

/** A decision's words: a button's (`decision`, what to do) or, `taken`, a seat's once decided (`decided`). */
function decisionWord(choice, taken = false) {
  const word = tOr(`${taken ? "decided" : "decision"}.${choice.decision}`, choice.decision);
  return choice.multiple ? t("console.decision_multiple", { decision: word, multiple: { times: choice.multiple } }) : word;
}

// -- commands -------------------------------------------------------------------------------------

/**
 * @param {any} command
 * @returns {string | null} the command's id, null when it was not sent
 */
function send(command) {
  if (!feed.live) { showRefusal(t(feed.open ? "console.offline_not_sent" : "console.not_connected"), "offline"); return null; }
  if (waiting !== null) return null;
  const id = `c${++counter}`;
  waiting = id;
  sent.set(id, command);
  root.dataset.waiting = id;
  if (command.cmd === "bet") returns = null;  // a new hand's bets: the voided hand's are given back
  feed.send({ kind: "command", id, command });
  draw();
  return id;
}

// Commands sent one after the other, each once the last is answered; a refusal stops the rest.
function run(commands) {
  queue = [...commands];
  pump();
}

function pump() {
  while (queue.length && waiting === null) {
    const command = typeof queue[0] === "function" ? queue[0]() : queue[0];
    queue.shift();
    if (command && send(command) === null) { queue = []; return; }
  }
}

/** @type {Map<string, (answer: any) => void>} */
const panelAnswers = new Map();  // id -> the poker panel's wait for its answer (the panel shows its refusals itself)
/** @param {any} command */
function relay(command) {
  return new Promise((resolve) => {
    const id = send(command);
    if (id === null) resolve({ kind: "error", error: t("console.not_connected") });
    else panelAnswers.set(id, resolve);
  });
}

/**
 * @param {string} text
 * @param {string} [code]
 */
function showRefusal(text, code) {
  refusal.textContent = text;
  refusal.dataset.refusal = code ?? "refused";
  refusal.hidden = false;
}

function clearRefusal() {
  refusal.hidden = true;
  refusal.textContent = "";
  delete refusal.dataset.refusal;
  delete refusal.dataset.seat;
}

function answered(message) {
  const command = sent.get(message.id);
  sent.delete(message.id);
  if (message.id === waiting || message.id === undefined) { waiting = null; delete root.dataset.waiting; }
  const panel = panelAnswers.get(message.id);
  if (panel) { panelAnswers.delete(message.id); panel(message); draw(); return; }
  if (signoffKept(message)) {  // a sign-off refused: said in its dialog, which stays open (dealer-signoff.js)
    queue = [];
    draw();
    return;
  }
  if (message.kind === "error") {
    queue = [];
    showRefusal(message.say ? say(message.say, state) : message.error, "relay");
  } else if (message.reply.ok) {
    clearRefusal();
    if (command?.cmd === "bet") drafts.delete(command.seat);
    if (command?.cmd === "void" && command.returns) returns = command.returns;
    pump();
  } else {
    queue = [];
    showRefusal(refusalText(message.reply, state), message.reply.code);
    if (command?.cmd === "bet") refusal.dataset.seat = String(command.seat);  // cleared with that seat's bets
  }
  draw();
}

// -- drawing --------------------------------------------------------------------------------------

function circleElement(seat, name, spot) {
  const draft = drafts.get(seat);
  // the next hand's bets taken with the last hand still on show: its circles start clean (no last hand's amount or
  // outcome to read as this hand's bet), the last hand's cards and hand name stay above them
  const next = betting() && state.phase !== "bets";
  const node = betting() && !readsBets(state) ? el("button", "circle") : el("div", "circle shown");  // a tap target only while bets are tapped
  if (node instanceof HTMLButtonElement) node.type = "button";
  node.dataset.circle = name;
  node.dataset.action = "circle";
  node.dataset.seat = String(seat);
  const stake = stakeOf(state, seat, name, draft && name in draft ? draft[name] : next ? 0 : (spot?.bets ?? {})[name]);
  node.append(el("span", "what", circleName(name)));
  node.append(el("span", `stake${stake.moving ? " moving" : ""}`, stake.amount ? money(stake.amount) : "\u2013"));
  showReads(node, state, seat, name, stake);  // a smart table: what the circle's chips read, at the showdown against its due
  if (draft && name in draft) node.classList.add("draft");
  if (selected?.seat === seat && selected?.circle === name) node.classList.add("selected");
  if (faulted(state, seat, name)) node.dataset.faulted = "";  // the circle the fault's words name (circle-chips.js)
  const results = next ? null : spot?.results;
  if (!draft && results && Number.isInteger(results[name])) {
    const net = results[name];
    node.dataset.result = String(net);
    node.classList.add(netTone(net));
    if (!betting()) {  // the payout prompt, in the circle: what to pay it (or take), at what odds
      const odds = spot.pays?.[name];
      const args = { amount: { money: Math.abs(net) }, odds: odds ?? "" };
      const key = net > 0 ? (odds ? "console.pays_odds" : "console.pays") : net < 0 ? "console.loses" : "console.pushes";
      node.append(el("span", "says", t(key, args, state)));
      node.dataset.payout = name;
      node.dataset.net = String(net);
      node.classList.add("settled");
    }
  }
  if (node instanceof HTMLButtonElement) node.disabled = waiting !== null;
  return node;
}

function spotElement(seat) {
  const spot = spotOf(seat);
  const node = el("div", "spot");
  node.dataset.seat = String(seat);
  if (!spot) node.classList.add("empty");
  if (holdsPayouts(state, seat)) node.tabIndex = 0;  // its payouts may scroll
  if (state.to_act === seat) node.classList.add("to-act");
  // Between hands (the next hand's bets taken) the seat is the next hand's: nothing of the last one's decision, as
  // its circles show none of its bets (the settled hand is the history's and the sign-off's).
  const decided = betting() ? null : spot?.decision;
  if (decided === "fold" || decided === "dead") node.classList.add("folded");
  const head = el("div", "seat");
  head.append(el("span", "seat-name", seatName(seat)));
  if (decided) {
    const chosen = { decision: decided, multiple: spot.multiple ?? null };
    head.append(el("span", "decision", decisionWord(chosen, true)));
  }
  head.append(ratedLine(seat));  // the seat action for its player card, masked when known (dealer-players.js)
  node.append(head);
  const cards = el("div", "cards");
  cards.append(...cardsElements(spot?.cards));
  node.append(cards);
  node.append(el("div", "hand-name", handText(spot)));
  const circles = el("div", "circles");
  const names = [...(state.circles ?? [])];
  for (const name of betting() ? [] : [...Object.keys({ ...(spot?.bets ?? {}), ...(spot?.results ?? {}) }), ...circlesRead(state, seat)]) {
    if (!names.includes(name)) names.push(name);  // the Play bet, once made or its chips read (not while the next hand is bet)
  }
  circles.append(...names.map((name) => circleElement(seat, name, spot)));
  node.append(circles);
  if (spot?.results && !betting()) {  // the seat's total, under its circles
    const total = el("div", `spot-total ${netTone(spot.net ?? 0)}`,
      t("console.total", { amount: formatNet(spot.net ?? 0, state) }));
    total.dataset.total = String(spot.net ?? 0);
    node.append(total);
  }
  if (betting() && !readsBets(state)) {  // a smart table's readers take the bets: no chips to tap
    const row = el("div", "spot-buttons");
    const last = remembered.bets?.seats?.[seat];
    const same = button("same-seat", t("console.same"), "mid", { seat });
    same.disabled = same.disabled || !last;
    row.append(same, button("clear-bets", t("console.clear"), "mid", { seat }), button("bet", t("console.bet"), "mid go wide", { seat }));
    node.append(row);
  }
  return node;
}

function decisionsElement() {
  const box = byId("decisions");
  box.replaceChildren();
  if (state.to_act == null || !Array.isArray(state.legal) || state.fault) { decisionsKey = null; return; }
  const key = `${state.hand}|${state.phase}|${state.to_act}`;
  const now = performance.now();
  if (key !== decisionsKey) {  // a new seat's buttons: inert for a moment, so a double tap acts once
    decisionsKey = key;
    armedAt = now + ARMING_MS;
    setTimeout(draw, ARMING_MS + 10);
  }
  const arming = now < armedAt;
  box.classList.toggle("arming", arming);
  box.append(el("div", "prompt", t("console.to_act", { seat: state.to_act })));
  for (const choice of state.legal) {
    const action = choice.multiple ? `${choice.decision}-${choice.multiple}` : choice.decision;
    const label = t("console.seat_decision", { seat: state.to_act, decision: decisionWord(choice) });
    const node = button(action, label, `huge ${choice.decision}`, { seat: state.to_act });
    node.disabled = node.disabled || arming;
    box.append(node);
  }
}

function returnsElement() {
  const box = byId("returns");
  box.hidden = returns === null;
  if (returns === null) { box.replaceChildren(); return; }
  const lines = returns.seats.map(({ seat, bets, total }) => {
    const text = Object.keys(bets).length ? t("console.return_line", { seat, bets: betsText(bets), total: { money: total } }, state)
      : t("console.return_line_total", { seat, total: { money: total } }, state);
    const line = el("li", "", text);
    line.dataset.seat = String(seat);
    line.dataset.total = String(total);
    return line;
  });
  const list = el("ul", "return-list");
  list.append(...lines);
  box.replaceChildren(el("h2", "", t("console.returns_title", { hand: returns.hand })),
    lines.length ? list : el("p", "", t("console.returns_none")), button("returns-done", t("console.returns_done"), "mid"));
}

function draw() {
  if (state === null) return;
  const poker = isPoker(state);
  const key = `${state.hand}|${state.phase}|${state.to_act ?? ""}|${state.fault ? "fault" : ""}`;
  if (stepKey !== null && key !== stepKey && waiting === null) clearRefusal();  // a refusal lasts until the next step
  stepKey = key;
  if (!betting()) selected = null;  // the betting is over: no circle stays picked
  markState(root, state);
  root.dataset.toAct = state.to_act == null ? "" : String(state.to_act);
  if (queue.length) root.dataset.queued = String(queue.length);  // commands still to send (the table's same bets)
  else delete root.dataset.queued;
  root.classList.toggle("poker-table", poker);  // a poker table: the poker panel (dealer-poker.js)
  if (poker) renderPoker(byId("poker"), state, { send: relay });
  byId("game").textContent = state.game ? tOr(`game.${state.game}`, state.game) : "";
  byId("name").textContent = state.table ?? "";
  byId("hand").textContent = state.hand ?? "\u2013";
  byId("phase").textContent = state.phase ? tOr(`console.phase_${state.phase}`, state.phase) : "";
  const next = byId("next");
  next.dataset.next = state.next ?? "";
  next.textContent = state.next ? nextCardText(state.next) : "";
  const dealer = state.dealer ?? {};
  byId("dealer").replaceChildren(...cardsElements(dealer.cards));
  let verdict = "";
  if (dealer.qualifies === true) verdict = t("console.qualifies");
  if (dealer.qualifies === false) verdict = t("console.not_qualify");
  byId("dealer-name").textContent = dealer.hand_name ? [handText(dealer), verdict].filter(Boolean).join(" \u2013 ") : "";
  byId("board-row").hidden = !steps().board;
  byId("board").replaceChildren(...cardsElements(state.board));
  const spots = [];
  if (!poker) for (let seat = 1; seat <= seatCount(); seat++) spots.push(spotElement(seat));
  byId("spots").replaceChildren(...spots);
  showMispaid(byId("mispaid"), state);
  const chipBox = byId("chips");
  chipBox.replaceChildren();
  if (betting() && !poker && !readsBets(state)) {
    chipBox.append(el("div", "prompt", selected ? t("console.chips_for", { seat: selected.seat, circle: circleName(selected.circle) })
      : t("console.tap_circle")));
    for (const value of chips) {
      const face = formatChipFace(value, state);  // "100 €": a chip's face, whole inside the chip ("100,00 €" was cut)
      const chip = button("chip", face, `chip c${chips.indexOf(value)}${face.length > 6 ? " long" : ""}`, { chip: value });
      chip.disabled = chip.disabled || selected === null;
      chipBox.append(chip);
    }
    const same = button("same-table", t("console.same_table"), "big same");
    same.disabled = same.disabled || !remembered.bets;
    chipBox.append(same);
  }
  if (!poker) decisionsElement();
  returnsElement();
  /** @type {(id: string, visible: boolean) => void} */
  const show = (id, visible) => {
    const node = byIdOf(id, HTMLButtonElement);
    node.hidden = !visible;
    node.disabled = waiting !== null;
  };
  show("deal", !poker && (Boolean(steps().deal) || (betting() && unsentBets().length > 0)) && !state.fault);  // chips tapped: Deal sends them
  show("confirm", !poker && Boolean(steps().confirm) && !state.fault);
  show("card", state.next != null && !steps().bet);
  show("clear", Boolean(state.fault));
  show("void", Boolean(steps().void));
  show("correct", !poker && Boolean(steps().correct) && correctable(state).length > 0);
  show("players-open", !poker);
  show("tray-open", !poker && Boolean(state.chips));  // a smart table: buy-ins, colour-ups, fills, credits (dealer-tray.js)
  const fault = byId("fault");
  if (state.fault) {
    fault.textContent = state.fault.say ? say(state.fault.say, state)
      : t("console.fault", { kind: state.fault.kind, message: state.fault.message ?? "" });
    fault.dataset.fault = state.fault.kind ?? "fault";
    fault.hidden = false;
  } else {
    delete fault.dataset.fault;
    fault.hidden = true;
  }
  const held = byId("held");  // the pit's hold: no new hand until released (docs/feed.md)
  held.hidden = !state.hold;
  held.textContent = state.hold ? t("console.held", { reason: state.hold.reason, hand: state.hold.from_hand }) : "";
  hint.textContent = hintText();
  keepDrafts(state, drafts);  // over a reload, for this table and hand (dealer-remembered.js)
  announce("croupier:rendered", { seq: state.seq });
}

// The dealer's next step in a line, where no refusal or banner says more.
function hintText() {
  if (isPoker(state) || state.fault) return "";
  if (byId("decisions").classList.contains("arming")) return t("console.arming", { seat: state.to_act });
  if (betting() && drafts.size) return t("console.hint_unsent");
  if (betting() && state.phase === "bets" && (state.spots ?? []).length && !steps().deal) return t("console.hint_no_deal");
  const chips = chipsHint(state, betting(), Boolean(steps().confirm));
  if (chips) return chips;
  if (betting()) return state.phase === "bets" ? t("console.hint_bets") : t("console.hint_next_bets", { hand: state.hand });
  if (steps().confirm) return t("console.hint_confirm");
  return "";
}

// -- touch ----------------------------------------------------------------------------------------

// The seats whose chips were tapped but not sent, with those bets.
function unsentBets() {
  const out = [];
  for (const [seat, draft] of drafts) {
    const posted = postedOf(seat);
    if (JSON.stringify(draft) !== JSON.stringify(posted)) out.push({ seat, bets: draft });
  }
  return out.sort((a, b) => a.seat - b.seat);
}

/**
 * A chip of `value` tapped onto the circle picked.
 * @param {{seat: number, circle: string}} at
 * @param {number} value
 */
function tapChip(at, value) {
  const draft = drafts.get(at.seat) ?? { ...postedOf(at.seat) };
  draft[at.circle] = (draft[at.circle] ?? 0) + value;
  if (at.circle === "ante" && (state.circles ?? []).includes("blind")) draft.blind = draft.ante;  // the Blind equals the Ante
  drafts.set(at.seat, draft);
}

/** @param {number} seat */
function sameBets(seat) {
  return { cmd: "bet", seat, bets: { ...remembered.bets?.seats[seat] } };
}

// The Deal for the hand being bet; with the last hand still on show (a smart table's bets read at Deal) it begins the
// next one, whose number only the controller knows: sent without a hand, as the poker panel's.
const dealCommand = () => (state.phase === "bets" ? { cmd: "deal", hand: state.hand } : { cmd: "deal" });

function deal() {
  const waitingBets = unsentBets();
  if (!waitingBets.length) { send(dealCommand()); return; }
  const list = byId("unsent-list");
  list.replaceChildren(...waitingBets.map(({ seat, bets }) => {
    const line = el("li", "", `${seatName(seat)} \u2013 ${betsText(bets) || t("console.no_bet")}`);
    line.dataset.seat = String(seat);
    return line;
  }));
  unsent.showModal();
}

function onUnsent(action) {
  const waitingBets = unsentBets();
  unsent.close();
  if (action === "unsent-back") return;
  if (action === "unsent-drop") {
    drafts.clear();
    selected = null;
    send(dealCommand());
  } else {
    run([...waitingBets.map(({ seat, bets }) => ({ cmd: "bet", seat, bets })), dealCommand]);
  }
  draw();
}

function onTap(event) {
  const target = event.target.closest("[data-action]");
  if (!target || target.disabled || target.closest("[data-poker]")) return;  // the poker panel handles its own
  const action = target.dataset.action;
  const seated = Boolean(target.dataset.seat);  // a seat's button: its seat in data-seat
  const seat = Number(target.dataset.seat);
  if (action === "circle") {
    selected = { seat, circle: target.dataset.circle };
  } else if (action === "chip" && selected) {
    tapChip(selected, Number(target.dataset.chip));
  } else if (action === "clear-bets") {
    drafts.set(seat, {});
    if (refusal.dataset.seat === String(seat)) clearRefusal();  // the refused bets wiped: their refusal with them
  } else if (action === "bet") {
    send({ cmd: "bet", seat, bets: drafts.get(seat) ?? postedOf(seat) });
  } else if (action === "same-seat") {
    drafts.delete(seat);
    send(sameBets(seat));
  } else if (action === "same-table") {
    drafts.clear();
    selected = null;
    run(Object.keys(remembered.bets?.seats ?? {}).map((s) => sameBets(Number(s))));
  } else if (action === "deal") {
    deal();
  } else if (action === "confirm") {
    send({ cmd: "confirm", hand: state.hand });
  } else if (action === "returns-done") {
    returns = null;
  } else if (["void", "clear", "card", "correct"].includes(action)) {
    openSignoff(action);
  } else if (action === "players" || action === "player-card") {
    openPlayers(seatCount(), action === "player-card" ? seat : null);  // a spot's seat action: on its seat
  } else if (action === "tray") {
    openTray();
  } else if (action === "signout") {
    signOut().then(() => location.reload());
  } else if (seated && state?.legal && performance.now() >= armedAt) {
    const [decision, multiple] = action.split("-");
    const command = { cmd: "decide", hand: state.hand, seat, decision };
    if (multiple) command.multiple = Number(multiple);
    send(command);
  }
  draw();
}

// -- the WebSocket --------------------------------------------------------------------------------

/** @param {import("./common.js").Message} message */
function onMessage(message) {
  if (message.kind === "console") {
    chips = message.chips;
    seeConsole(message);  // a smart table's results paid on another circle (dealer-chips.js)
    byId("who").textContent = t("console.who", { user: message.user, role: tOr(`signin.role_${message.role}`, message.role) });
  } else if (message.kind === "players") {  // who sits where, masked (the relay's, from the full feed)
    seePlayers(message);
    draw();
  } else if (message.kind === "tray") {  // the tray's line (the relay's, from the full feed)
    seeTray(message);
  } else if (message.kind === "reply" || message.kind === "error") {
    answered(message);
  } else if (message.kind === "snapshot" || message.kind === "update") {
    const was = state;
    keepBets(message);
    state = message;
    if (was === null) restoreDrafts(keptDrafts(message));  // the page (re)loaded: the bets tapped and not sent, kept
    else if (bettingHand(message) !== bettingHand(was)) { drafts.clear(); selected = null; }  // dealt, voided, or another
    else if (message.kind === "snapshot") restoreDrafts(new Map(drafts));  // reconnected: a Bet applied meanwhile
    draw();
  }
}

// The bets tapped and not sent before a reload or a reconnection (kept for the table and the hand still being bet);
// a seat's posted as tapped is no draft (its Bet applied, its reply lost with the connection).
/** @param {Map<number, Bets>} kept */
function restoreDrafts(kept) {
  drafts.clear();
  for (const [seat, bets] of kept) {
    if (JSON.stringify(bets) !== JSON.stringify(postedOf(seat))) drafts.set(seat, bets);
  }
}

// The socket closed: nothing is in flight any more (the poker panel's waits answered "not connected").
function onClose() {
  waiting = null;
  queue = [];
  delete root.dataset.waiting;
  for (const [id, resolve] of panelAnswers) { panelAnswers.delete(id); resolve({ kind: "error", error: t("console.not_connected") }); }
}

// Back to the table once the display answers: signed in still, or the sign-in form first (the display restarted).
// whoAmI throws while the display is down: the feed asks again after a longer wait.
async function ready() {
  const me = await whoAmI();
  if (!me || !ROLES.includes(me.role)) {
    root.hidden = true;
    await signIn(byId("signin-root"), ROLES, t("console.signin_title"));
    root.hidden = false;
  }
  return true;
}

const feed = new Feed("/ws/dealer", {
  onMessage,
  isFeed: (message) => !NOT_THE_FEED.includes(message.kind ?? ""),
  onOffline: (offline) => {
    showOffline(offline, byId("offline"), { stale: root });
    if (!offline && refusal.dataset.refusal === "offline") clearRefusal();  // connected again: "not connected" no more
  },
  onClose,
  ready,
  backoff: BACKOFF_MS,
});

async function main() {
  await ensureSignedIn(byId("signin-root"), ROLES, t("console.signin_title"));
  root.hidden = false;
  root.addEventListener("click", onTap);
  initPlayers((command) => { if (waiting !== null) showRefusal(t("console.busy"), "relay"); else send(command); });
  initTray(relay, () => state);
  initSignoff({ state: () => state, send, decisionWord });
  for (const id of ["unsent-back", "unsent-drop", "unsent-send"]) byId(id).addEventListener("click", () => onUnsent(id));
  feed.start();
}

main();
