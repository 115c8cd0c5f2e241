// @ts-check
// The surveillance view (/surveillance): a signed-in surveillance user follows the table's full feed over /ws/full:
// every card as dealt, the burns, the hand's steps in its own order, and the last 10 hands recalled from the journal.
// Nothing shows before the sign-in: the form comes first and alone. Every word from the catalog (words.js).
// Data attributes as docs/display.md lists them (data-card holds the real card here, never "??" for a dealt card).
import { cardsElements } from "./cards.js";
import { announce, byId, el, Feed, markState, showOffline } from "./common.js";
import { cardText, netTone, parseCard } from "./format.js";
import { ensureSignedIn, signIn } from "./signin.js";
import { drawTray } from "./surveillance-tray.js";
import { isPoker } from "./state.js";
import { formatMoney, formatNet, handText, pokerHandWords, say, signoffAlertText, t, tOr } from "./words.js";

const MAX_STEPS = 300;
const RECALL = 10;

const view = byId("view");
const root = byId("table");
const signinRoot = byId("signin");
const offlineBanner = byId("offline");
const faultBox = byId("fault");
const stepsList = byId("steps");
const historyBox = byId("history");
/** @type {any} */
let previous = null; // the last full state drawn: what the log says is what changed since
let logged = 0; // how many of the hand's `sequence` entries the log shows

/** @param {number} amount */
const money = (amount) => ({ money: amount });
const gameName = (code) => (code ? tOr(`game.${code}`, code) : "\u2013");
const phaseName = (phase) => (phase ? tOr(`phase.${phase}`, phase) : "");
const circleName = (circle) => tOr(`circle.${circle}`, circle);

function betsText(bets, state) {
  return Object.entries(bets ?? {}).map(([circle, amount]) => `${circleName(circle)} ${formatMoney(amount, state)}`)
    .join(", ");
}

// Where a card went, as the controller names it: "dealer", "board", "burn", "spot 3" (house), "seat 3 [up|draw]" (poker).
function whereText(to) {
  const [kind, seat, how] = String(to).split(" ");
  if (kind === "spot" || kind === "seat") {
    return t(how === "up" ? "surveillance.to_seat_up" : how === "draw" ? "surveillance.to_seat_draw"
      : "surveillance.to_seat", { seat });
  }
  return tOr(`surveillance.to_${kind}`, String(to));
}

// -- the live table ------------------------------------------------------------------------------------------

function placedCards(cards, visible) {
  return cardsElements(cards).map((card, i) => {
    if (visible && visible[i] === false) card.classList.add("hidden"); // face down on the table, shown here
    return card;
  });
}

function lastActOf(seat, state) {
  const acts = (state.sequence ?? []).filter((s) => s.seat === seat && (s.do !== "post_bets"));
  return acts.length ? sequenceLine(acts[acts.length - 1], state)[1] : "";
}

function spotElement(spot, state) {
  const node = el("div", "spot");
  node.dataset.seat = String(spot.seat);
  const poker = isPoker(state);
  if (state.to_act === spot.seat) node.classList.add("acting");
  if (spot.decision === "fold" || spot.decision === "dead" || spot.folded) node.classList.add("folded");
  const head = el("div", "seat", t("common.seat", { seat: spot.seat }));
  if (!poker && spot.decision) head.append(` \u2013 ${tOr(`decided.${spot.decision}`, spot.decision)}`);
  node.append(head);
  const cards = el("div", "cards");
  cards.append(...placedCards(spot.cards, spot.visible));
  node.append(cards);
  if (poker) {
    const parts = [t("surveillance.stack", { amount: money(spot.stack ?? 0) }, state)];
    if (spot.bets?.bet) parts.push(t("surveillance.bet", { amount: money(spot.bets.bet) }, state));
    if (spot.bets?.in_pot) parts.push(t("surveillance.in_pot", { amount: money(spot.bets.in_pot) }, state));
    node.append(el("div", "bets", parts.join(" \u00b7 ")));
    const act = lastActOf(spot.seat, state);
    if (act) node.append(el("div", "act", act));
  } else {
    node.append(el("div", "bets", betsText(spot.bets, state) || t("surveillance.no_bets")));
  }
  const named = poker ? pokerHandWords(spot.hand_values) : handText(spot);  // from its category, in the page's words
  if (named) node.append(el("div", "hand-name", named));
  if (Number.isInteger(spot.net)) {
    node.append(el("div", `result ${netTone(spot.net)}`,
      t("surveillance.net", { amount: formatNet(spot.net, state) })));
  }
  return node;
}

// A recalled house hand's name (the journal's settlement: `hand`, and `category` since hands carried it), in the
// page's words; a hand journaled before keeps its name as it was.
function handName(hand) {
  return hand?.category ? tOr(`hand_name.${hand.category}`, hand.hand ?? "") : hand?.hand ?? "";
}

function render(state) {
  markState(root, state);
  byId("name").textContent = state.table ?? "";
  byId("game").textContent = state.game ? gameName(state.game) : "";
  byId("hand").textContent = state.hand ?? "\u2013";
  byId("phase").textContent = phaseName(state.phase);
  byId("next").textContent = state.next ? t("surveillance.next_card", { to: whereText(state.next) })
    : state.to_act ? t("surveillance.to_act", { seat: state.to_act }) : "";
  const dealer = state.dealer ?? {};
  byId("dealer").replaceChildren(...placedCards(dealer.cards, dealer.visible));
  const named = handText(dealer);
  byId("dealer-name").textContent = !named ? ""
    : dealer.qualifies === true ? t("surveillance.qualifies", { hand_name: named })
      : dealer.qualifies === false ? t("surveillance.not_qualify", { hand_name: named }) : named;
  byId("dealer-row").hidden = isPoker(state); // a poker table: no dealer's hand
  byId("board-row").hidden = state.game === "3cp";
  byId("board").replaceChildren(...cardsElements(state.board));
  byId("pot").textContent = state.total_pot ? t("surveillance.pot", { amount: money(state.total_pot) }, state) : "";
  byId("burns").replaceChildren(...cardsElements(state.burns));
  byId("spots").replaceChildren(...(state.spots ?? []).map((s) => spotElement(s, state)));
  if (state.fault) {
    faultBox.textContent = t("surveillance.line_fault", { what: faultText(state.fault, state) });
    faultBox.dataset.fault = state.fault.kind ?? "fault";
    faultBox.hidden = false;
  } else {
    delete faultBox.dataset.fault;
    faultBox.hidden = true;
  }
  const slowed = byId("signoff-alert");  // the table's gate slowing a relaying key's sign-offs (its `signoff_alert`)
  slowed.hidden = !state.signoff_alert;
  slowed.textContent = state.signoff_alert ? signoffAlertText(state.signoff_alert, state.table ?? "") : "";
  if (state.signoff_alert) slowed.dataset.spacing = String(state.signoff_alert.spacing_s); else delete slowed.dataset.spacing;
  const devices = Object.entries(state.devices ?? {}).map(([name, d]) =>
    t("surveillance.device", { name: tOr(`surveillance.device_${name}`, name), model: d.model ?? "", serial: d.serial ?? "",
      firmware: d.firmware ?? "?", status: d.online ? t("surveillance.online") : t("surveillance.device_offline") }).trim() +
    (d.last_card ? ` (${t("surveillance.last_card", { card: { card: d.last_card } })})` : ""));
  const sensors = Object.entries(state.sensors ?? {}).map(([name, on]) =>
    `${tOr(`surveillance.sensor_${name}`, name)} ${on ? t("surveillance.yes") : t("surveillance.no")}`);
  byId("devices").textContent = [...devices, ...sensors].join("  \u00b7  ");
  const chips = byId("chips");  // a smart table's chips: the tray, the foreign chips by UID, the session's counts
  chips.hidden = !state.chip_reads;
  chips.textContent = state.chip_reads ? chipsText(state.chip_reads, state) : "";
  drawTray(byId("tray"), state);  // the tray's ledger: its chips, its trail, every difference flagged
}

function chipsText(reads, state) {
  const counts = reads.counts ?? {};
  const parts = [t("surveillance.chips_tray", { amount: money(reads.tray?.value ?? 0) }, state)];
  if ((reads.foreign ?? []).length) parts.push(t("surveillance.chips_foreign", { chips: reads.foreign.join(", ") }));
  parts.push(t("surveillance.chips_counts", { foreign: counts.foreign ?? 0, moved: counts.moved ?? 0,
    mispays: counts.mispays ?? 0, overrides: counts.overrides ?? 0 }));
  return parts.join("  \u00b7  ");
}

function faultText(fault, state) {
  return fault.say ? say(fault.say, state) : `${fault.kind}: ${fault.detail ?? fault.message ?? ""}`;
}

// -- the log: the hand's own sequence (posts, bets, cards, decisions, actions), and what the states add ---------

// One entry of the full state's `sequence` as [kind, words]: a house round's step ({do, ...}) or a poker table's
// card ({card, to}) or action ({seat, do, amount, all_in, cards}).
function sequenceLine(entry, state) {
  const seat = entry.seat;
  if (entry.card !== undefined) {
    if (entry.to === "burn") return ["burn", t("surveillance.line_burn", { card: { card: entry.card } })];
    return ["card", t("surveillance.line_card", { card: { card: entry.card }, to: whereText(entry.to) })];
  }
  switch (entry.do) {
    case "post_bets":
      return ["bet", Object.keys(entry.bets ?? {}).length ? t("surveillance.line_bets", { seat, bets: betsText(entry.bets, state) })
        : t("surveillance.line_spot_down", { seat })];
    case "close_bets": return ["phase", t("surveillance.line_close_bets")];
    case "declare_dead": return ["decision", t("surveillance.line_dead", { seat })];
    case "decide": {
      if (entry.action !== "play") return ["decision", t(`surveillance.line_${entry.action === "check" ? "check" : "fold"}`, { seat })];
      const play = (state.spots ?? []).find((s) => s.seat === seat)?.bets?.play;
      return ["decision", entry.multiple && Number.isInteger(play)
        ? t("surveillance.line_play_multiple", { seat, multiple: { times: entry.multiple }, amount: money(play) }, state)
        : t("surveillance.line_play", { seat })];
    }
    case "post": return ["bet", t("surveillance.line_post", { seat, amount: money(entry.amount) }, state)];
    default: {
      if (entry.do === undefined || entry.do === "settle") return [null, ""];
      const key = entry.dead ? "surveillance.line_clock" : `surveillance.line_${entry.do}`;
      const args = { seat, amount: money(entry.amount ?? 0), cards: entry.cards ?? 0 };
      const what = tOr(key, `seat ${seat} ${entry.do}`, args, state);
      const allIn = entry.all_in && ["call", "bet", "raise", "complete", "bring_in"].includes(entry.do);
      return ["decision", allIn ? t("surveillance.line_all_in", { what }) : what];
    }
  }
}

const EMPTY = { spots: [], dealer: { cards: [] }, board: [], burns: [], manual: [], sequence: [] };

// The log's lines from one full state to the next: [kind, words, step], `step` the hand's sequence entry it is
// (1, 2, ...) or the number of entries so far for what a state adds (a phase, a fault, a result).
function linesBetween(before, after) {
  const lines = [];
  const slowed = [before?.signoff_alert, after.signoff_alert];  // the table's sign-offs slowed down, as it was and is
  // the same hand goes on after a controller's restart (a new boot): its replayed sequence is not logged twice
  const sameHand = before && before.table === after.table && before.hand === after.hand;
  if (!sameHand) {
    if (before && before.boot === after.boot && before.phase !== "settled" && before.phase !== "over"
        && (before.spots ?? []).some((s) => (s.cards ?? []).length)) {
      // the hand's close was not seen (a page fallen behind gets the latest state): voided only when the session's
      // count of voided hands says so, else it closed unseen (the journal's last hands below have it)
      const voided = (after.session?.voided ?? 0) > (before.session?.voided ?? 0);
      lines.push([voided ? "void" : "phase", t(voided ? "surveillance.line_void" : "surveillance.line_unseen", { hand: before.hand }),
        (before.sequence ?? []).length, before.hand]);
    }
    lines.push(["hand", t("surveillance.line_hand", { hand: after.hand, game: gameName(after.game) }), 0]);
    before = EMPTY;
    logged = 0;
  }
  const sequence = after.sequence ?? [];
  if (sequence.length < logged) logged = 0; // a controller restarted mid-hand replays it: the same entries again
  sequence.slice(logged).forEach((entry, i) => {
    const [kind, text] = sequenceLine(entry, after);
    if (kind) lines.push([kind, text, logged + i + 1]);
  });
  logged = sequence.length;
  const step = logged;
  if (sameHand && before.phase !== after.phase && !["settled", "over"].includes(after.phase)) {
    lines.push(["phase", t("surveillance.line_phase", { phase: phaseName(after.phase) }), step]);
  }
  for (const manual of (after.manual ?? []).slice((before.manual ?? []).length)) {
    const card = { card: manual.card };
    lines.push(["card", manual.signed_off?.user ? t("surveillance.line_manual_by", { card, user: manual.signed_off.user })
      : t("surveillance.line_manual", { card }), step]);
  }
  const spotsBefore = new Map((before.spots ?? []).map((s) => [s.seat, s]));
  for (const spot of after.spots ?? []) {
    const was = spotsBefore.get(spot.seat) ?? {};
    if (Number.isInteger(spot.net) && !Number.isInteger(was.net)) {
      if (isPoker(after)) {
        lines.push(["settlement", t("surveillance.line_poker_net", { seat: spot.seat, net: formatNet(spot.net, after) }), step]);
      } else {
        const circles = Object.entries(spot.results ?? {}).map(([c, n]) => `${circleName(c)} ${formatNet(n, after)}`).join(", ");
        lines.push(["settlement", t("surveillance.line_result", { seat: spot.seat, hand_name: handText(spot),
          results: circles, net: formatNet(spot.net, after) }), step]);
      }
    }
  }
  if (isPoker(after) && after.results && !(before.results)) {
    for (const pot of after.results.pots ?? []) {
      for (const w of pot.winners ?? []) {
        lines.push(["settlement", t("surveillance.line_pot_won", { seat: w.seat, amount: money(w.amount) }, after), step]);
      }
    }
    for (const back of after.results.returned ?? []) {  // an uncalled bet handed back, in no pot (the console's words)
      lines.push(["settlement", t("poker_console.returned", { amount: money(back.amount), seat: back.seat }, after), step]);
    }
    if (after.results.rake) lines.push(["settlement", t("surveillance.line_rake", { amount: money(after.results.rake) }, after), step]);
  }
  if (after.fault && (!before.fault || before.fault.event !== after.fault.event)) {
    lines.push(["fault", t("surveillance.line_fault", { what: faultText(after.fault, after) }), step]);
  } else if (!after.fault && before.fault) {
    lines.push(["clear", t("surveillance.line_cleared"), step]);
  }
  if (slowed[1] && slowed[1].spacing_s !== slowed[0]?.spacing_s) {  // begun or slowed further: when, how far apart
    lines.push(["signoff", signoffAlertText(slowed[1], after.table ?? ""), step]);
  } else if (!slowed[1] && slowed[0]) {
    lines.push(["signoff", t("surveillance.line_signoff_ended"), step]);
  }
  if (after.phase === "settled" && before.phase !== "settled") {
    if (isPoker(after)) {
      lines.push(["settlement", t("surveillance.line_poker_settled", { hand: after.hand }), step]);
    } else {
      const house = -(after.spots ?? []).reduce((sum, s) => sum + (Number.isInteger(s.net) ? s.net : 0), 0);
      lines.push(["settlement", t("surveillance.line_settled", { hand: after.hand, net: formatNet(house, after) }), step]);
    }
  }
  return lines;
}

function logLines(state) {
  for (const [kind, text, step, hand] of linesBetween(previous, state)) {
    const line = el("li");
    line.dataset.step = kind;
    line.dataset.hand = String(hand ?? state.hand);
    line.dataset.stepNo = String(step);
    line.dataset.seq = String(state.seq);
    line.append(el("span", "tag", t("surveillance.tag", { hand: hand ?? state.hand, step })), document.createTextNode(text));
    stepsList.prepend(line); // newest on top
  }
  while (stepsList.children.length > MAX_STEPS) stepsList.lastElementChild?.remove();
}

// -- the recall: the last hands from the journal (the controller's `history`), one block per hand -------------

function miniCards(cards) {
  const line = el("span", "mini");
  for (const card of cards ?? []) {
    const c = el("span", parseCard(card)?.red ? "r" : "", `${cardText(card)} `);
    c.dataset.card = card;
    line.append(c);
  }
  return line;
}

function playText(play) {
  if (play === null || play === undefined || play === false) return t("decided.fold");
  if (play === true) return t("decided.play");
  return t("surveillance.recall_play", { multiple: { times: play.multiple }, street: play.street ? phaseName(play.street) : "" }).trim();
}

function pastHand(hand, state) {
  const node = el("div", "past");
  node.dataset.hand = String(hand.hand);
  const round = hand.round;
  const title = el("div", "title", `${t("surveillance.recall_title", { hand: hand.hand, game: gameName(round?.game ?? hand.game) })} `);
  title.append(el("span", `status ${hand.status}`, tOr(`surveillance.recall_${hand.status}`, hand.status)));
  if (hand.settlement) title.append(`  ${t("surveillance.recall_house", { net: formatNet(hand.settlement.house_net, state) })}`);
  if (hand.results?.rake) title.append(`  ${t("surveillance.line_rake", { amount: money(hand.results.rake) }, state)}`);
  node.append(title);
  if (round) {
    const results = new Map((hand.settlement?.spots ?? []).map((s) => [s.seat, s]));
    for (const spot of round.spots ?? []) {
      const line = el("div", "spot-line");
      line.dataset.seat = String(spot.seat);
      line.append(`${t("common.seat", { seat: spot.seat })} `, miniCards(spot.cards));
      let text = ` ${betsText(spot.bets, state)}${hand.status === "settled" ? `; ${playText(spot.play)}` : ""}`;
      const r = results.get(spot.seat);
      if (r) text += ` \u2013 ${handName(r)}: ${formatNet(r.net, state)}`;
      line.append(text);
      node.append(line);
    }
    const dealer = el("div", "dealer-line");
    dealer.append(`${t("common.dealer")} `, miniCards(round.dealer));
    if (hand.settlement?.dealer?.hand) dealer.append(` ${handName(hand.settlement.dealer)}`);
    node.append(dealer);
    if ((round.board ?? []).length) {
      const board = el("div", "board-line");
      board.append(`${t("common.board")} `, miniCards(round.board));
      node.append(board);
    }
  } else if (hand.results) { // a poker hand: each seat's net, each pot's winners
    const won = new Map();
    for (const pot of hand.results.pots ?? []) for (const w of pot.winners ?? []) won.set(w.seat, (won.get(w.seat) ?? 0) + w.amount);
    for (const n of hand.results.net ?? []) {
      const line = el("div", "spot-line", t("surveillance.line_poker_net", { seat: n.seat, net: formatNet(n.net, state) }));
      line.dataset.seat = String(n.seat);
      if (won.has(n.seat)) line.append(` (${t("surveillance.line_pot_won", { seat: n.seat, amount: money(won.get(n.seat)) }, state)})`);
      node.append(line);
    }
  }
  if ((hand.burns ?? []).length) {
    const burns = el("div", "burns-line");
    burns.append(`${t("surveillance.burns")} `, miniCards(hand.burns));
    node.append(burns);
  }
  if (hand.status === "voided") node.append(el("div", "bad", t("surveillance.recall_why_void", { reason: hand.reason ?? "" })));
  for (const fault of hand.faults ?? []) {
    // the fault's words as journaled (`say`); a hand journaled before faults kept them: the kind's own sentence
    let text = fault.say ? say(fault.say, state)
      : tOr(`fault.${fault.kind}`, t("surveillance.recall_fault", { kind: fault.kind, detail: fault.detail ?? "" }));
    if (fault.cleared_by || fault.reason) text += `; ${t("surveillance.recall_cleared", { user: fault.cleared_by ?? "", reason: fault.reason ?? "" })}`;
    node.append(el("div", "bad", text));
  }
  return node;
}

function showRecall(message) {
  const note = byId("recall-note");
  if (message.error) { // in the reader's words where the display named why (`why`), else the table's own
    note.textContent = message.why ? t(`surveillance.recall_${message.why}`, { seconds: message.timeout_s, error: message.error })
      : t("surveillance.recall_error", { why: message.error });
    return;
  }
  note.textContent = "";
  const state = previous ?? {};
  historyBox.replaceChildren(...[...message.hands].reverse().map((h) => pastHand(h, state))); // newest first
  historyBox.dataset.hands = message.hands.map((h) => h.hand).reverse().join(" "); // newest first, as shown
  announce("croupier:recalled", { hands: message.hands.length });
}

function askRecall() {
  feed.send({ kind: "history", limit: RECALL });
}

// -- the connection ------------------------------------------------------------------------------------------

function onState(state) {
  const closed = previous && previous.boot === state.boot &&
    ((state.phase === "settled" && previous.phase !== "settled") || state.hand !== previous.hand);
  logLines(state);
  render(state);
  if (!previous || closed || previous.boot !== state.boot) askRecall();
  previous = state;
  announce("croupier:rendered", { seq: state.seq });
}

// A socket refused at the handshake (signed out, or no surveillance user): the sign-in form again, alone.
/** @param {boolean} opened */
async function ready(opened) {
  if (opened) return true;
  const again = await fetch("/api/me", { credentials: "same-origin" }).then((r) => (r.ok ? r.json() : null));
  if (again && again.role === "surveillance") return true;
  start(false);
  return false;
}

const feed = new Feed("/ws/full", {
  onMessage: (message) => {
    if (message.kind === "history") showRecall(message);
    else if (message.kind === "snapshot" || message.kind === "update") onState(message);
  },
  isFeed: (message) => message.kind !== "hello" && message.kind !== "history",
  onOffline: (offline) => showOffline(offline, offlineBanner, { stale: root }),
  ready,
});

// The sign-in form first and alone: nothing of the table is drawn (nor connected) before a surveillance user signs in.
/** @param {boolean} checkFirst */
async function start(checkFirst = true) {
  view.hidden = true;
  offlineBanner.hidden = true;
  signinRoot.hidden = false;
  const me = checkFirst ? await ensureSignedIn(signinRoot, ["surveillance"], "surveillance.page")
    : await signIn(signinRoot, ["surveillance"], "surveillance.page");
  signinRoot.replaceChildren();
  signinRoot.hidden = true;
  byId("user").textContent = t("surveillance.signed_in", { user: me.user });
  view.hidden = false;
  feed.start();
}

start();
