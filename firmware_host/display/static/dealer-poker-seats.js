// @ts-check
// The poker console's seat changes (the `seat` command, protocol/commands.py): a seat tapped opens its own, in place of
// the hand's buttons: an empty seat's "Player joins" with the buy-in; a player's rebuy, sit out, sit in, post his missed
// blinds or wait for the big blind, leave. Which ones it offers follows the seat's state on the feed (`sitting_out`,
// `owes`, `waiting_for_big_blind`: engine/poker/session.py); every rule is the controller's: a rebuy or leaving during
// a hand, a buy-in outside the table's bounds, are refused in its words on the panel's refusal line.
import { el } from "./common.js";
import { amountText, button } from "./dealer-poker.js";
import { parseAmount } from "./format.js";
import { formatMoney, t } from "./words.js";

export class SeatChanges {
  /** @param {any} panel the console's poker panel (its `state`, `send`, `render`, `showRefusal`) */
  constructor(panel) {
    this.panel = panel;
    /** @type {number | null} the seat whose changes are open, or null */
    this.seat = null;
    this.key = null;
    this.root = el("div", "poker-seat-panel");
    this.root.dataset.seatPanel = "";
    this.root.hidden = true;
  }

  /**
   * A seat no player sits at: tapped, a new player joins it with his buy-in.
   * @param {number} seat
   */
  emptySeat(seat) {
    const node = el("div", "pseat empty");
    node.dataset.emptySeat = String(seat);  // no player, so none of the players' `data-seat`
    node.append(el("span", "pseat-name", t("common.seat", { seat })), el("div", "pseat-status", t("poker_console.seat_empty")));
    return node;
  }

  /**
   * A seat's node made to open its changes when tapped (a finger, or Enter / Space); tapped again, it closes them.
   * @param {HTMLElement} node
   * @param {number} seat
   */
  tappable(node, seat) {
    node.tabIndex = 0;
    node.setAttribute("role", "button");
    node.setAttribute("aria-label", t("poker_console.seat_open", { seat }));
    if (this.seat === seat) node.dataset.open = "";
    const toggle = () => (this.seat === seat ? this.close() : this.open(seat));
    node.addEventListener("click", toggle);
    node.addEventListener("keydown", (event) => {
      if (event.key === "Enter" || event.key === " ") {
        event.preventDefault();
        toggle();
      }
    });
    return node;
  }

  /** @param {number} seat */
  open(seat) {
    this.seat = seat;
    this.key = null;
    this.panel.showRefusal(null);
    if (this.panel.state) this.panel.render(this.panel.state);
    /** @type {HTMLElement | null} */ (this.root.querySelector("input"))?.focus();
  }

  close() {
    if (this.seat === null) return;
    this.seat = null;
    this.key = null;
    if (this.panel.state) this.panel.render(this.panel.state);
  }

  /**
   * The open seat's changes, redrawn only when the seat's state changes (an amount being typed stays).
   * @param {any} state
   */
  draw(state) {
    const seat = this.seat;
    const spot = (state.spots ?? []).find((/** @type {any} */ s) => s.seat === seat) ?? null;
    const key = JSON.stringify([seat, spot && [spot.stack, spot.sitting_out, spot.owes, spot.waiting_for_big_blind]]);
    this.root.hidden = seat === null;
    if (key === this.key) return;
    this.key = key;
    if (seat === null) {
      this.root.dataset.seatPanel = "";
      this.root.replaceChildren();
      return;
    }
    this.root.dataset.seatPanel = String(seat);
    const title = el("div", "seat-title", t("common.seat", { seat }));
    title.append(el("span", "seat-title-state", spot ? formatMoney(spot.stack ?? 0, state) : t("poker_console.seat_empty")));
    const close = button("seat-close", "\u00d7", () => this.close());  // ×: a tap on the seat closes them too
    close.setAttribute("aria-label", t("poker_console.seat_close"));
    close.classList.add("cancel");
    this.root.replaceChildren(title, ...(spot ? this.playerChanges(seat, spot, state) : [this.buyIn(seat, "join", state)]), close);
  }

  /**
   * A seated player's changes: rebuy; sit out, or come back (sit in; when he owes blinds: post them or wait for the
   * big blind); leave.
   * @param {number} seat
   * @param {any} spot
   * @param {any} state
   * @returns {HTMLElement[]}
   */
  playerChanges(seat, spot, state) {
    const change = (/** @type {string} */ action) => button(`seat-${action}`, t(`poker_console.seat_${action}`),
      () => this.panel.send({ cmd: "seat", seat, action }, false));
    /** @type {HTMLElement[]} */
    const out = [this.buyIn(seat, "rebuy", state)];
    if (spot.sitting_out) {
      if (spot.owes) out.push(change("post"), change("wait"));
      else out.push(change("sit_in"));
    } else {
      if (spot.waiting_for_big_blind) out.push(change("post"));
      else if (spot.owes) out.push(change("wait"));
      out.push(change("sit_out"));
    }
    out.push(change("leave"));
    return out;
  }

  /**
   * A buy-in (`join`) or a rebuy (`rebuy`): the amount typed in the table's money (format.js parseAmount), sent as it
   * is: no bounds here (the table's minimum and maximum buy-in, where it has them, are the controller's to check).
   * @param {number} seat
   * @param {"join" | "rebuy"} action
   * @param {any} state
   */
  buyIn(seat, action, state) {
    const box = el("div", "amount-entry buy-in");
    const input = el("input", "amount");
    input.type = "text";
    input.inputMode = "decimal";
    input.dataset.seatAmount = action;
    input.setAttribute("aria-label", t(`poker_console.entry_${action}`));
    input.placeholder = amountText(0, state);
    const entryError = el("div", "entry-error");
    const go = button(`seat-${action}`, t(`poker_console.seat_${action}`), () => {
      const amount = parseAmount(input.value, state);
      if (amount === null || amount === 0) {  // nothing bought is no buy-in: the command's amount is 1 or more
        entryError.textContent = t(input.value.trim() === "" ? "poker_console.amount_first"
          : amount === null ? "poker_console.not_an_amount" : "poker_console.amount_above_zero");
        entryError.dataset.entryError = input.value;
        this.panel.showRefusal(null);  // a refusal of another command or amount: not beside this one
        return;
      }
      entryError.textContent = "";
      delete entryError.dataset.entryError;
      this.panel.send({ cmd: "seat", seat, action, amount }, false);
    });
    input.addEventListener("keydown", (event) => { if (event.key === "Enter") go.click(); });
    box.append(input, go, entryError);
    return box;
  }
}
