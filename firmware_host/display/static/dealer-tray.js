// @ts-check
// The dealer console's chip tray at a smart table: a buy-in (cash for chips at a seat), a colour-up, a fill and a credit
// (these two signed off by a supervisor), each recorded with the `buy_in`, `colour_up`, `fill` and `credit` commands; and
// the tray's line as the relay tells it (display/seats.py TrayLine: what the tray antenna reads, what the ledger
// expects, the difference), live in the dialog. The controller decides and refuses, in its words; nothing is counted here.
import { byId, byIdOf, el } from "./common.js";
import { parseAmount } from "./format.js";
import { formatMoney, refusalText, say, t, tCount } from "./words.js";

const KINDS = ["buy_in", "colour_up", "fill", "credit"];
const SEATED = ["buy_in", "colour_up"];    // made with a player at a seat: the seat is named
const SIGNED = ["fill", "credit"];         // a supervisor signs them off (protocol/access.py SIGN_OFF)

/** @type {any} */
let line = null;                          // the relay's `tray` message; null: not told (no full feed, or no tray)
let kind = "buy_in";
/** @type {number | null} */
let seat = null;
let busy = false;
/** @type {(command: any) => Promise<any>} */
let relay = () => Promise.resolve(null);
/** @type {() => any} */
let stateNow = () => null;

const dialog = byIdOf("tray", HTMLDialogElement);
const form = byIdOf("tray-form", HTMLFormElement);
/** @param {string} name */
const input = (name) => /** @type {HTMLInputElement} */ (form.elements.namedItem(name));
const money = (amount, signed = false) => formatMoney(amount, stateNow(), signed);

/**
 * The relay's `tray` message: the tray's line, redrawn when the dialog is open.
 * @param {any} message
 */
export function seeTray(message) {
  line = message;
  if (dialog.open) drawLine();
}

function drawLine() {
  const box = byId("tray-line");
  box.dataset.reads = line?.reads == null ? "" : String(line.reads);
  box.dataset.difference = line?.difference == null ? "" : String(line.difference);
  box.dataset.settled = String(Boolean(line?.settled));  // false: a change of the tray's chips not yet settled
  box.classList.toggle("off", Boolean(line?.difference));
  if (line === null) box.textContent = t("console.tray_unknown");
  else if (line.reads == null || line.expected == null) box.textContent = t("console.tray_unread");
  else box.textContent = t("console.tray_reads", { reads: money(line.reads), expected: money(line.expected),
    difference: money(line.difference, true) });
  if (line && !line.settled) box.textContent += ` \u00b7 ${t("console.tray_moving")}`;
  if (line?.flagged) box.textContent += ` \u00b7 ${tCount("console.tray_flagged", line.flagged)}`;
}

function drawDialog() {
  const kinds = byId("tray-kinds");
  kinds.replaceChildren(...KINDS.map((k) => {
    const node = el("button", `seat-pick${k === kind ? " selected" : ""}`, t(`console.tray_${k}`));
    node.type = "button";
    node.dataset.action = "tray-kind";
    node.dataset.kind = k;
    node.setAttribute("aria-pressed", String(k === kind));
    return node;
  }));
  byId("tray-what").textContent = t(`console.tray_what_${kind}`);
  const seats = byId("tray-seats");
  seats.hidden = !SEATED.includes(kind);
  const count = Number(stateNow()?.seats ?? 0);
  seats.replaceChildren(...Array.from({ length: count }, (_, i) => {
    const node = el("button", `seat-pick${i + 1 === seat ? " selected" : ""}`, t("common.seat", { seat: i + 1 }));
    node.type = "button";
    node.dataset.action = "tray-seat";
    node.dataset.seat = String(i + 1);
    node.setAttribute("aria-pressed", String(i + 1 === seat));
    return node;
  }));
  for (const id of ["tray-slip-row", "tray-user-row", "tray-pin-row"]) byId(id).hidden = !SIGNED.includes(kind);
  byIdOf("tray-send", HTMLButtonElement).disabled = busy;
  dialog.dataset.kind = kind;
  dialog.dataset.seat = seat === null ? "" : String(seat);
  drawLine();
}

/**
 * @param {string} text
 * @param {string} tone "refused" or "done"
 */
function answer(text, tone) {
  const box = byId("tray-answer");
  box.textContent = text;
  box.dataset.answer = tone;
  box.hidden = !text;
}

/** Open the tray's dialog over the console. */
export function openTray() {
  seat = null;
  answer("", "");
  input("amount").value = input("slip").value = input("pin").value = "";
  drawDialog();
  dialog.showModal();
}

async function record() {
  const amount = parseAmount(input("amount").value, stateNow());
  if (SEATED.includes(kind) && seat === null) { answer(t("console.tray_no_seat"), "refused"); return; }
  if (amount === null || amount <= 0) { answer(t("console.tray_no_amount"), "refused"); input("amount").focus(); return; }
  /** @type {Record<string, any>} */
  const command = { cmd: kind, amount };
  if (SEATED.includes(kind)) command.seat = seat;
  if (SIGNED.includes(kind)) {
    const slip = input("slip").value.trim();
    if (slip) command.slip = slip;
    const user = input("user").value.trim();
    const pin = input("pin").value;
    if (user || pin) command.auth = { user, pin };  // the controller checks it (protocol/signoff.py), not this page
    input("pin").value = "";
  }
  busy = true;
  answer("", "");
  drawDialog();
  const reply = await relay(command);
  busy = false;
  const words = { kind: t(`console.tray_${kind}`), amount: money(amount), seat: seat ?? "" };
  if (reply?.kind === "reply" && reply.reply.ok) {
    answer(t(SEATED.includes(kind) ? "console.tray_done_seat" : "console.tray_done", words), "done");
    input("amount").value = input("slip").value = "";
  } else if (reply?.kind === "reply") {
    answer(refusalText(reply.reply, stateNow()), "refused");
  } else {
    answer(reply?.say ? say(reply.say, stateNow()) : String(reply?.error ?? ""), "refused");
  }
  drawDialog();
}

/**
 * Wire the dialog: `send` relays a command and answers with the relay's message (the console's one command at a time);
 * `state` is the table's state now (its seats, its money).
 * @param {(command: any) => Promise<any>} send
 * @param {() => any} state
 */
export function initTray(send, state) {
  relay = send;
  stateNow = state;
  dialog.addEventListener("click", (event) => {
    const target = /** @type {HTMLElement} */ (event.target).closest("[data-action]");
    if (!(target instanceof HTMLButtonElement) || target.disabled) return;
    const action = target.dataset.action;
    if (action === "tray-kind") { kind = target.dataset.kind ?? kind; answer("", ""); }
    else if (action === "tray-seat") seat = Number(target.dataset.seat);
    else if (action === "tray-close") { input("pin").value = ""; dialog.close(); return; }
    else return;
    drawDialog();
  });
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    if (!busy) record();
  });
  dialog.addEventListener("cancel", () => { input("pin").value = ""; });
}
