// @ts-check
// The dealer console's supervisor sign-off dialog (`Void hand`, `Correct the last decision`, `Card by hand`, `Clear
// fault`): what is signed off said in it (the bets to give back, the decision replaced, a mispay's circles paid as they
// read), the supervisor's user and PIN sent as `auth` with the command; the controller decides (protocol/signoff.py).
import { byId, byIdOf, el } from "./common.js";
import { acceptedLines } from "./dealer-chips.js";
import { isPoker } from "./state.js";
import { refusalText, say, t, tCount } from "./words.js";

/**
 * What the dialog needs of the console: its state, its one command in flight, a decision's words.
 * @typedef {{state: () => any, send: (command: any) => string | null, decisionWord: (choice: any, taken?: boolean) => string}} Hooks
 */

const dialog = byIdOf("signoff", HTMLDialogElement);
const form = byIdOf("signoff-form", HTMLFormElement);
/** @type {Hooks} */
let hooks = { state: () => null, send: () => null, decisionWord: (choice) => String(choice.decision) };
/** @type {string | null} */
let signoffKind = null;
/** @type {string | null} */
let signoffSent = null;  // the id of the sign-off in flight: its dialog stays open until it is taken (a refusal said in it)

/**
 * A field of the sign-off form.
 * @param {string} name
 * @returns {HTMLInputElement}
 */
function field(name) {
  return /** @type {HTMLInputElement} */ (form.elements.namedItem(name));
}

/**
 * The decisions "Correct the last decision" may put in place, seat by seat: the table's `corrections` (tables/steps.py),
 * the seat decided last first (the table lists it last): a correction is mostly about the button just tapped.
 * @param {any} state
 * @returns {any[]}
 */
export function correctable(state) {
  return [...(state?.corrections ?? [])].reverse()
    .flatMap((c) => c.choices.map((choice) => ({ ...choice, seat: c.seat, was: c.was })));
}

/**
 * The dialog's buttons and its `then` choice wired to the console.
 * @param {Hooks} given
 */
export function initSignoff(given) {
  hooks = given;
  byId("signoff-cancel").addEventListener("click", () => { field("pin").value = ""; signoffSent = null; signoffRefused(null); dialog.close(); });
  form.addEventListener("submit", (event) => { event.preventDefault(); sendSignoff(); });
  field("then").addEventListener("change", () => { if (signoffKind === "clear") clearWhat(); });
  field("decision").addEventListener("change", chosen);
}

// "Correct it" answers once a decision is chosen (the placeholder "Choose…" is none).
function chosen() {
  byIdOf("signoff-send", HTMLButtonElement).disabled = signoffKind === "correct" && field("decision").value === "";
}

/** @param {string} kind `void`, `clear`, `card` or `correct` */
export function openSignoff(kind) {
  const state = hooks.state();
  signoffKind = kind;
  const what = byId("signoff-what");
  what.textContent = "";
  delete what.dataset.accepted;
  byId("signoff-title").textContent = t(`console.signoff_${kind}`);
  const go = byId("signoff-send");
  go.textContent = t(`console.send_${kind}`);
  go.className = `big ${kind === "void" ? "stop" : "go"}`;
  byId("signoff-reason-row").hidden = kind === "card" || kind === "correct";
  byId("signoff-card-row").hidden = kind !== "card";
  byId("signoff-then-row").hidden = kind !== "clear";
  byId("signoff-decision-row").hidden = kind !== "correct";
  dialog.dataset.signoff = kind;
  signoffRefused(null);
  field("reason").value = t(`console.reason_${kind}`);
  if (kind === "void") what.textContent = tCount("console.void_what", givenBack(state).length, { hand: state.hand });
  if (kind === "clear") {
    field("then").value = "continue";
    clearWhat();
  }
  if (kind === "correct") correctWhat(state);
  chosen();
  dialog.showModal();
}

// The seats whose decision may be corrected, the seat decided last first, and what each may become. The seat decided
// last is the one pre-selected: its one other decision chosen (a river's Play that was a Fold), or, where it had
// several (a pre-flop Check: Play 4× or 3×), none until the dealer picks one, so a sign-off never puts a guess in place.
function correctWhat(state) {
  const choices = correctable(state);
  const seats = [...(state.corrections ?? [])].reverse();
  const select = field("decision");
  const pick = el("option", "", t("console.correct_choose"));
  pick.value = "";
  pick.disabled = true;
  select.replaceChildren(pick, ...choices.map((c, i) => {
    const word = seats.length > 1 ? t("console.seat_decision", { seat: c.seat, decision: hooks.decisionWord(c) }) : hooks.decisionWord(c);
    const option = el("option", "", word);
    option.value = String(i);
    option.dataset.seat = String(c.seat);
    return option;
  }));
  select.value = seats.length && seats[0].choices.length === 1 ? "0" : "";
  byId("signoff-what").textContent = seats.map((c) => t("console.correct_what", { seat: c.seat, was: hooks.decisionWord(c.was) }))
    .join(" \u00b7 ");
}

// A mispay's clear that goes on with the hand accepts every circle not reading its due as it reads (tables/house/chips.py
// `cleared`): the dialog says which, for what ("Seat 3 Play: due €30.00, reads €25.00 — paid as read"); voiding, none.
function clearWhat() {
  const what = byId("signoff-what");
  const state = hooks.state();
  const lines = state?.fault?.kind === "mispay" && field("then").value === "continue" ? acceptedLines(state) : [];
  what.textContent = lines.join("\n");  // a line a circle (the dialog's words keep their line breaks)
  if (lines.length) what.dataset.accepted = String(lines.length);
  else delete what.dataset.accepted;
}

/**
 * What a void gives back, a seat a line: at a house game each circle's bet (`bets`), at a poker table what the seat put
 * in the pot this hand (its `bets` are this street's `bet` and the hand's `in_pot`, which holds it: `bets` empty).
 * @param {any} state
 * @returns {{seat: number, bets: Record<string, number>, total: number}[]}
 */
export function givenBack(state) {
  const poker = isPoker(state);
  return (state.spots ?? []).map((/** @type {any} */ s) => {
    const bets = poker ? {} : Object.fromEntries(Object.entries(s.bets ?? {}).filter(([, a]) => Number(a) > 0));
    const total = poker ? Number(s.bets?.in_pot ?? 0) : Object.values(bets).reduce((sum, a) => sum + Number(a), 0);
    return { seat: s.seat, bets, total };
  }).filter((/** @type {{total: number}} */ line) => line.total > 0);
}

function sendSignoff() {
  const state = hooks.state();
  /** @type {any} */
  const command = { cmd: signoffKind };
  if (signoffKind === "card") command.card = field("card").value.trim();
  else if (signoffKind !== "correct") command.reason = field("reason").value.trim();
  if (signoffKind === "clear") command.then = field("then").value;
  if (signoffKind === "void") {
    command.hand = state.hand;
    Object.defineProperty(command, "returns", { value: { hand: state.hand, seats: givenBack(state) }, enumerable: false });
  }
  if (signoffKind === "correct") {
    const picked = field("decision").value;
    const choice = picked === "" ? undefined : correctable(state)[Number(picked)];
    if (!choice) return;  // nothing chosen yet: "Correct it" waits for a choice
    command.seat = choice.seat;
    command.decision = choice.decision;
    if (choice.multiple) command.multiple = choice.multiple;
  }
  const user = field("user").value.trim();
  const pin = field("pin").value;
  if (user || pin) command.auth = { user, pin };  // the controller checks it (protocol/signoff.py), not this page
  field("pin").value = "";
  signoffSent = hooks.send(command);
  if (signoffSent === null) dialog.close();  // not sent (offline, or a step in flight): the banner says why
}

/**
 * An answer to the console's command: when it answers the sign-off in flight and refuses it (a wrong PIN, not a
 * supervisor), the dialog stays with its reason and card as typed and says why, for the supervisor to type the PIN
 * again or cancel (true: the answer is the dialog's). Taken, the dialog closes; false for any other answer too (it goes
 * on as any other's).
 * @param {any} message
 * @returns {boolean}
 */
export function signoffKept(message) {
  if (message.id === undefined || message.id !== signoffSent || !dialog.open) return false;
  signoffSent = null;
  if (message.kind === "reply" && message.reply.ok) {
    field("card").value = "";
    signoffRefused(null);
    dialog.close();
    return false;
  }
  const state = hooks.state();
  signoffRefused(message.kind === "error" ? (message.say ? say(message.say, state) : message.error)
    : refusalText(message.reply, state), message.kind === "error" ? "relay" : message.reply.code);
  field("pin").focus();
  return true;
}

/**
 * @param {string | null} text
 * @param {string} [code]
 */
function signoffRefused(text, code) {
  const shown = byId("signoff-refusal");
  shown.hidden = text === null;
  shown.textContent = text ?? "";
  if (text === null) delete shown.dataset.refusal;
  else shown.dataset.refusal = code ?? "refused";
}
