// @ts-check
// The dealer console's poker panel: seats, the legal actions of the seat to act, pots and side pots, the push, the chop,
// the clock called on the seat to act (`clock`: tables/clock_call.py), counted down to its `ends_at`, and a seat's own
// changes (`seat`: a player joins with his buy-in, rebuys, sits out, sits in, posts or waits for the big blind, leaves).
// It draws only what the feed says (`to_act`, `legal`, `prompt`, `pots`, `results`: engine/poker/view.py) and decides no
// rule: every amount typed is sent as it is and the controller's own refusal is shown (`data-refusal`).
import { cardsElements } from "./cards.js";
import { el } from "./common.js";
import { amountText as typedText, netTone, parseAmount } from "./format.js";
import { boardShown, faceUpStep as faceUpStepOf, streetKey } from "./state.js";
import { actWords, formatMoney, formatNet, locale, pokerHandWords, refusalText, stakesWords, t, tOr } from "./words.js";
import { SeatChanges } from "./dealer-poker-seats.js";

// Which buttons the step allows: the controller's `steps` (tables/steps.py), decided in Python once.
const stepsOf = (state) => state?.steps ?? {};

/**
 * "42 s" left on a clock ending at `ends` (wall-clock seconds, as the controller journaled it).
 * @param {number} ends
 * @returns {string}
 */
function clockLeft(ends) {
  return t("poker_console.seconds", { seconds: Math.max(0, Math.ceil(ends - Date.now() / 1000)) });
}
/** @type {WeakMap<HTMLElement, PokerPanel>} */
const panels = new WeakMap();

/**
 * @param {number[]} seats
 * @returns {string}
 */
function seatsText(seats) {
  return seats.length === 1 ? t("poker_console.seat", { seat: seats[0] }) : t("poker_console.seats", { seats: seats.join(", ") });
}

/**
 * The step dealt face up between hands on screen (state.js faceUpStep chooses it) with its words for the dealer: its
 * label and what it says (the seat whose card is due, or what it gave).
 * @param {any} state
 * @returns {(import("./state.js").FaceUpStep & {label: string, text: string}) | null}
 */
export function faceUpStep(state) {
  const step = faceUpStepOf(state);
  if (step === null) return null;
  if (step.kind === "race") {
    const race = /** @type {any} */ (step.step);
    const chips = t("poker_console.race_chips", { colour: { money: race.colour }, into: { money: race.into } }, state);
    const kept = (race.kept_in ?? []).length ? t("poker_console.race_kept", { seats: seatsText(race.kept_in) }) : "";
    const won = race.chips_won ? t("poker_console.race_won", { seats: seatsText(race.winners ?? []) }) : t("poker_console.race_none");
    return { ...step, label: t("poker_console.race_label"),
      text: race.done ? t("poker_console.race_done", { chips, won, kept }) : t("poker_console.race_due", { chips, seat: race.next }) };
  }
  const draw = step.step;
  return { ...step, label: t("poker_console.draw_label"),
    text: draw.done ? t("poker_console.draw_done", { seat: draw.button }) : t("poker_console.draw_due", { seat: draw.next }) };
}

/**
 * Where the shoe's next card goes, in the console's words: "Next card: seat 3", "Next card: the board" (`next`: the
 * controller's "spot 3", "seat 3", "board", "dealer", "burn").
 * @param {string} next
 * @returns {string}
 */
export function nextCardText(next) {
  const spot = /^(?:spot|seat) (\d+)$/.exec(next);
  return t("console.next_card", { target: spot ? t("common.seat", { seat: Number(spot[1]) }) : tOr(`console.target_${next}`, next) });
}

/**
 * @param {string} action
 * @param {string} label
 * @param {(event: MouseEvent) => void} onClick
 * @returns {HTMLButtonElement}
 */
export function button(action, label, onClick) {
  const node = el("button", `act act-${action}`, label);
  node.type = "button";
  node.dataset.action = action;
  node.addEventListener("click", onClick);
  return node;
}

/**
 * The controller's own words ("calls 4800", "seat 3: fold, call 200, raise to 400..12000") with each amount in money.
 * @param {unknown} text
 * @param {any} state
 * @returns {string}
 */
export function inMoney(text, state) {
  return String(text ?? "").replace(/(?<!seat )\b\d+\b/g, (amount) => formatMoney(Number(amount), state));
}

// A seat's last action in the page's words (words.js actWords: the players' screen's words too).
/**
 * @param {any} act
 * @param {any} state
 * @returns {string}
 */
export function actText(act, state) {
  return actWords(act, (n) => formatMoney(n, state));
}

/**
 * An amount as it is typed in the page's locale ("4,00" in French); read back either way (format.js parseAmount).
 * @param {number} amount
 * @param {any} state
 * @returns {string}
 */
export function amountText(amount, state) {
  return typedText(amount, state, locale);
}

// The relay answers {kind: "reply", reply} or {kind: "error", error}; a shell may also hand back the reply itself.
function replyOf(answer) {
  if (answer && answer.kind === "reply") return answer.reply ?? {};
  if (answer && answer.kind === "error") return { ok: false, code: "console", error: answer.error };
  return answer ?? { ok: false, error: t("console.not_connected") };
}

class PokerPanel {
  constructor(container, ctx) {
    this.ctx = ctx;
    this.state = null;
    this.actionsKey = null;
    this.busy = false;
    this.root = el("section", "poker");
    this.root.dataset.poker = "";
    this.head = el("header", "poker-head");
    this.seats = el("div", "poker-seats");
    this.board = el("div", "poker-board cards");
    this.board.dataset.board = "";
    this.next = el("div", "poker-next");
    this.next.dataset.next = "";
    this.pots = el("div", "poker-pots");
    this.pots.dataset.pots = "";
    this.prompt = el("div", "poker-prompt");
    this.prompt.dataset.prompt = "";
    this.actions = el("div", "poker-actions");
    this.actions.dataset.actions = "";
    this.refusal = el("div", "poker-refusal");
    this.refusal.hidden = true;
    this.seatChanges = new SeatChanges(this);
    this.signoffTitle = el("div", "signoff-title", t("poker_console.signoff_chop"));
    this.signoffUser = el("input");
    this.signoffPin = el("input");
    this.signoffOk = button("chop-confirm", t("poker_console.send_chop"), () => {});
    this.signoff = this.signoffForm();
    const middle = el("div", "poker-middle");
    const boardRow = el("div", "poker-board-row");
    this.boardLabel = el("span", "label", t("common.board"));
    boardRow.append(this.boardLabel, this.board, this.next);
    middle.append(boardRow, this.pots);
    this.root.append(this.head, this.seats, middle, this.prompt, this.refusal, this.actions, this.seatChanges.root, this.signoff);
    container.replaceChildren(this.root);
    setInterval(() => {  // the clock's countdown between two updates of the feed
      for (const node of /** @type {NodeListOf<HTMLElement>} */ (this.root.querySelectorAll("[data-clock-ends]"))) node.textContent = clockLeft(Number(node.dataset.clockEnds));
    }, 250);
    if (!document.querySelector('link[href="/static/dealer-poker.css"]')) {
      const css = el("link");
      css.rel = "stylesheet";
      css.href = "/static/dealer-poker.css";
      document.head.append(css);
    }
  }

  // -- commands ---------------------------------------------------------------------------------------------------

  // Every command names the hand on screen (a tap meant for a hand that ended is refused), but the Deal between
  // hands: it starts the next one, while the screen still shows the settled hand (`ofHand` false).
  async send(command, ofHand = true) {
    if (this.busy) return;
    this.busy = true;
    this.root.dataset.busy = "";
    const full = { ...command, ...(ofHand && Number.isInteger(this.state?.hand) ? { hand: this.state.hand } : {}) };
    let reply;
    try {
      reply = replyOf(await this.ctx.send(full));
    } catch (err) {
      reply = { ok: false, code: "console", error: String(err instanceof Error ? err.message : err) };
    } finally {
      this.busy = false;
      delete this.root.dataset.busy;
    }
    if (reply.ok) {
      this.showRefusal(null);
      if (command.cmd === "chop" || command.cmd === "clock") this.closeSignoff();
      if (command.cmd === "seat") this.seatChanges.close();
    } else {
      this.showRefusal(reply, reply.code ?? "refused");
    }
    return reply;
  }

  // `data-refusal` is the reply's code, as on the console's own refusal line; `data-reason` the controller's words.
  showRefusal(reply, code = "refused") {
    if (reply === null) {
      this.refusal.hidden = true;
      this.refusal.textContent = "";
      delete this.refusal.dataset.refusal;
      delete this.refusal.dataset.reason;
      return;
    }
    const reason = reply.error ?? reply.code ?? "";
    this.refusal.hidden = false;
    this.refusal.textContent = refusalText(reply, this.state, inMoney(reason, this.state));
    this.refusal.dataset.refusal = code;
    this.refusal.dataset.reason = reason;
  }

  act(seat, action, extra = {}) {
    return this.send({ cmd: "act", seat, action, ...extra });
  }

  // -- the sign-off of a chop or of the clock called -----------------------------------------------------------

  signoffForm() {
    const form = el("form", "poker-signoff");
    form.dataset.signoff = "chop";
    form.hidden = true;
    form.append(this.signoffTitle);
    const user = this.signoffUser;
    user.name = "user";
    user.placeholder = t("console.supervisor");
    user.autocomplete = "off";
    user.dataset.signoffUser = "";
    const pin = this.signoffPin;
    pin.name = "pin";
    pin.type = "password";
    pin.inputMode = "numeric";
    pin.placeholder = t("common.pin");
    pin.autocomplete = "off";
    pin.dataset.signoffPin = "";
    const ok = this.signoffOk;
    ok.type = "submit";
    const cancel = button("chop-cancel", t("common.cancel"), () => this.closeSignoff());
    cancel.classList.add("cancel");
    form.append(user, pin, ok, cancel);
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      this.send({ cmd: form.dataset.signoff, auth: { user: user.value, pin: pin.value } });
      pin.value = "";
    });
    return form;
  }

  openSignoff(cmd = "chop") {  // one form: the chop's or the clock's
    this.signoff.dataset.signoff = cmd;
    this.signoffTitle.textContent = t(`poker_console.signoff_${cmd}`);
    this.signoffOk.dataset.action = `${cmd}-confirm`;
    this.signoffOk.textContent = t(`poker_console.send_${cmd}`);
    this.signoff.hidden = false;
    this.signoffUser.focus();
  }

  closeSignoff() {
    this.signoff.hidden = true;
    this.signoffPin.value = "";
  }

  // -- drawing ----------------------------------------------------------------------------------------------------

  render(state) {
    this.state = state;
    const root = this.root;
    root.dataset.phase = state.phase ?? "";
    root.dataset.hand = String(state.hand ?? "");
    root.dataset.seq = String(state.seq ?? "");
    this.head.replaceChildren(
      el("span", "game", state.game ? tOr(`game.${state.game}`, state.game) : ""),
      el("span", "structure", state.structure ? tOr(`poker_table.structure_${state.structure}`, state.structure)  /* /table's words: one name a structure */ : ""),
      el("span", "stakes", stakesWords(state, (n) => formatMoney(n, state))),  // a stud table's ante and bring-in too
      el("span", "street", state.street ? tOr(`poker_console.street_${streetKey(state.street)}`, "") : ""),
      el("span", "total", t("poker_console.total", { amount: { money: state.total_pot ?? 0 } }, state)),
    );
    const step = faceUpStep(state);
    const spots = new Map((state.spots ?? []).map((spot) => [spot.seat, spot]));
    const numbers = Number.isInteger(state.seats) ? Array.from({ length: state.seats }, (_, i) => i + 1) : [...spots.keys()];
    this.seats.replaceChildren(...numbers.map((seat) => {
      const spot = spots.get(seat);
      return this.seatChanges.tappable(spot ? this.seatElement(spot, state, step) : this.seatChanges.emptySeat(seat), seat);
    }));
    this.board.replaceChildren(...cardsElements(state.board));
    this.boardLabel.classList.toggle("empty", !boardShown(state));  // stud and the draw games deal no board
    this.drawNext(state);
    this.drawPots(state);
    this.prompt.textContent = step ? step.text : "";  // the hand's own step is its buttons (the feed's English prompt is for logs)
    this.prompt.dataset.prompt = step ? step.kind : "";
    const key = JSON.stringify([state.hand, state.phase, state.to_act, state.legal, state.street, state.clock, state.steps,
      (state.spots ?? []).map((s) => [s.seat, s.in_hand, s.folded])]);
    if (key !== this.actionsKey) {  // redrawn only when the choice changes: an amount being typed stays
      this.actionsKey = key;
      this.drawActions(state);
    }
    this.seatChanges.draw(state);
    this.actions.hidden = this.seatChanges.seat !== null;  // a seat's changes take the place of the hand's buttons
  }

  seatElement(spot, state, step) {
    const node = el("div", "pseat");
    const buttonSeat = state.button ?? step?.button ?? null;
    node.dataset.seat = String(spot.seat);
    node.dataset.stack = String(spot.stack ?? 0);
    for (const [flag, on] of [["inHand", spot.in_hand], ["folded", spot.folded], ["allIn", spot.all_in],
      ["sittingOut", spot.sitting_out], ["button", buttonSeat === spot.seat], ["toAct", state.to_act === spot.seat]]) {
      if (on) node.dataset[flag] = "";
    }
    const top = el("div", "pseat-top");
    top.append(el("span", "pseat-name", t("common.seat", { seat: spot.seat })));
    if (buttonSeat === spot.seat) top.append(el("span", "dealer-button", t("poker_console.button_mark")));
    node.append(top);
    node.append(el("div", "pseat-stack", formatMoney(spot.stack ?? 0, state)));
    const cards = el("div", "cards");
    if (!spot.folded) cards.append(...cardsElements(spot.cards));  // a folded seat's cards are in the muck: none shown
    node.append(cards);
    const bet = spot.bets?.bet ?? 0;
    const act = actText(spot.act, state);
    let mark = "";  // what the seat is, said instead of its last act
    if (spot.sitting_out) mark = t("poker_console.sitting_out");
    else if (spot.waiting_for_big_blind) mark = t("poker_console.waiting_big_blind");
    else if (spot.waiting_for_button) mark = t("poker_console.waiting_button");
    else if (!spot.in_hand) mark = t("poker_console.not_in_hand");
    else if (spot.folded) mark = t("poker_console.folded");
    else if (spot.all_in) mark = t("poker_console.all_in");
    const status = mark || act;
    const saysBet = !mark && Boolean(act) && spot.act?.amount === bet;  // "bets €1.50", "calls €2.00": the chips in front
    node.append(el("div", "pseat-bet", bet && !saysBet ? t("poker_console.seat_bet", { amount: { money: bet } }, state) : ""));
    node.append(el("div", "pseat-status", status));
    if (spot.owes && !spot.waiting_for_big_blind) {  // the blinds he missed, posted when he is dealt in again
      const owes = el("div", "pseat-owes", t(`poker_console.owes_${spot.owes}`));
      owes.dataset.owes = spot.owes;
      node.append(owes);
    }
    if (spot.waiting_for_big_blind) node.dataset.waiting = "";
    if (state.clock && state.clock.seat === spot.seat) {  // on the clock: counted down here, every 250 ms
      node.append(el("div", "pseat-clock-label", t("poker_console.clock")));
      const clock = el("div", "pseat-clock", clockLeft(state.clock.ends_at));
      clock.dataset.clockEnds = String(state.clock.ends_at);
      node.dataset.onClock = "";
      node.append(clock);
    }
    const faceUp = step?.seats?.find((s) => s.seat === spot.seat);
    if (faceUp && ((faceUp.cards ?? []).length || step.due === spot.seat)) {  // the step's cards, face up by the rule
      const row = el("div", "pseat-step");
      row.dataset.stepCards = (faceUp.cards ?? []).join(" ");
      row.append(el("span", "label", step.label), ...cardsElements(faceUp.cards));
      node.append(row);
      if (step.due === spot.seat) node.dataset.due = "";
    }
    const shown = pokerHandWords(spot.hand_values);  // its category from the state, in the page's words
    if (shown) node.append(el("div", "hand-name", shown));
    if (Number.isInteger(spot.net)) {
      const net = el("div", `pseat-net ${netTone(spot.net)}`, formatNet(spot.net, state));
      net.dataset.net = String(spot.net);
      node.append(net);
    }
    return node;
  }

  drawNext(state) {
    const next = state.next;
    if (next) {
      this.next.dataset.next = next;
      this.next.textContent = nextCardText(next);
    } else {
      this.next.dataset.next = "";
      this.next.textContent = "";
    }
  }

  drawPots(state) {
    const results = state.results;
    const pots = results ? results.pots ?? [] : state.pots ?? [];
    const items = pots.map((pot, index) => {
      const node = el("div", "pot");
      node.dataset.pot = String(index);
      node.dataset.amount = String(pot.amount);
      node.dataset.eligible = (pot.eligible ?? []).join(" ");
      node.append(el("div", "pot-name", index === 0 ? t("poker_console.main_pot") : t("poker_console.side_pot", { n: index })));
      node.append(el("div", "pot-amount", formatMoney(pot.amount, state)));
      node.append(el("div", "pot-eligible", seatsText(pot.eligible ?? [])));
      if (results) node.append(this.pushElement(pot, state));
      return node;
    });
    if (!results) {
      const inPots = pots.reduce((sum, pot) => sum + pot.amount, 0);
      const street = (state.total_pot ?? 0) - inPots;
      if (street > 0) {
        const bets = el("div", "pot street-bets", t("poker_console.street_bets", { amount: { money: street } }, state));
        bets.dataset.streetBets = String(street);
        items.push(bets);
      }
    } else {
      for (const back of results.returned ?? []) {  // an uncalled bet: the chips handed back, not in any pot
        const line = el("div", "pot returned", t("poker_console.returned", { amount: { money: back.amount }, seat: back.seat }, state));
        line.dataset.returned = String(back.seat);
        line.dataset.amount = String(back.amount);
        items.push(line);
      }
      if (results.rake) items.push(el("div", "pot rake", t("poker_console.rake", { amount: { money: results.rake } }, state)));
    }
    this.pots.replaceChildren(...items);
  }

  // Each pot's push: the winners the feed names with their chips; the odd chip where a split is uneven: between the
  // winners of one half, or between the halves (a hi-lo pot's odd chip, the high's: the half of one winner larger).
  pushElement(pot, state) {
    const push = el("div", "push");
    const winners = pot.winners ?? [];
    push.dataset.winners = winners.map((w) => w.seat).join(" ");
    const halves = [...new Set(winners.map((w) => w.half ?? "all"))];  // all, high / low, chop: as the feed names them
    const totals = halves.map((half) => winners.filter((w) => (w.half ?? "all") === half).reduce((sum, w) => sum + w.amount, 0));
    const smallestHalf = Math.min(...totals);
    for (const [index, half] of halves.entries()) {
      const share = winners.filter((w) => (w.half ?? "all") === half);
      const least = share.length > 1 ? Math.min(...share.map((w) => w.amount)) : smallestHalf;  // alone: against the other half
      for (const w of share) {
        const line = el("div", "push-line");
        line.dataset.winner = String(w.seat);
        line.dataset.amount = String(w.amount);
        const what = half === "all" ? "" : tOr(`poker_console.half_${half}`, half);
        line.textContent = t(what ? "poker_console.push_half" : "poker_console.push", { amount: { money: w.amount }, seat: w.seat, half: what }, state);
        if ((share.length > 1 || totals[index] > smallestHalf) && w.amount > least) {
          line.dataset.oddChip = String(w.amount - least);
          line.append(el("span", "odd-chip", ` ${t("poker_console.odd_chip")}`));
        }
        push.append(line);
      }
    }
    return push;
  }

  drawActions(state) {
    const row = [];
    const seat = state.to_act;
    const legal = state.legal;
    const steps = stepsOf(state);
    if (steps.between_hands) {
      if (steps.deal) row.push(button("deal", t("poker_console.deal"), () => this.send({ cmd: "deal" }, false)));
    } else if (steps.confirm) {
      row.push(button("confirm", t("poker_console.confirm"), () => this.send({ cmd: "confirm" })));
    } else if (Number.isInteger(seat) && legal) {
      row.push(el("div", "acting", t("console.to_act", { seat })));
      row.push(...this.legalButtons(seat, legal, state));
      if (!state.clock) row.push(button("clock", t("poker_console.call_clock"), () => this.openSignoff("clock")));
    } else if (state.next) {
      row.push(el("div", "acting", t("poker_console.deal_to", { target: state.next })));
    }
    if (steps.chop) {
      row.push(button("chop", t("poker_console.chop"), () => this.openSignoff("chop")));
    } else {
      this.closeSignoff();
    }
    this.actions.replaceChildren(...row);
  }

  legalButtons(seat, legal, state) {
    const out = [];
    const money = (amount) => formatMoney(amount, state);
    if (legal.bring_in !== null && legal.bring_in !== undefined) {
      out.push(button("bring_in", t("poker_console.bring_in", { amount: money(legal.bring_in) }), () => this.act(seat, "bring_in")));
    }
    if (legal.fold) out.push(button("fold", t("poker_console.fold"), () => this.act(seat, "fold")));
    if (legal.check) out.push(button("check", t("poker_console.check"), () => this.act(seat, "check")));
    if (legal.call !== null && legal.call !== undefined) {
      const node = button("call", t("poker_console.call", { amount: money(legal.call) }), () => this.act(seat, "call"));
      node.dataset.amount = String(legal.call);
      out.push(node);
    }
    const range = legal.bet_or_raise;
    if (range) {
      if (Array.isArray(range.choices)) {  // fixed limit: the choices the engine lists, one button each
        for (const to of range.choices) {
          const node = button(range.kind, t(`poker_console.${range.kind}_to`, { amount: money(to) }), () => this.act(seat, range.kind, { amount: to }));
          node.dataset.to = String(to);
          out.push(node);
        }
      } else {
        out.push(this.amountEntry(seat, range, state));
      }
    }
    if (legal.all_in !== null && legal.all_in !== undefined) {
      const node = button("all_in", t("poker_console.all_in_to", { amount: money(legal.all_in) }), () => this.act(seat, "all_in"));
      node.dataset.to = String(legal.all_in);
      out.push(node);
    }
    if (legal.draw) out.push(button("stand_pat", t("poker_console.stand_pat"), () => this.act(seat, "stand_pat")));
    if (legal.show) out.push(button("show", t("poker_console.show"), () => this.act(seat, "show")));
    if (legal.muck) out.push(button("muck", t("poker_console.muck"), () => this.act(seat, "muck")));
    return out;
  }

  // Bet / raise to an amount (the street total), bounded min..max as the feed gives it.
  amountEntry(seat, range, state) {
    const box = el("div", "amount-entry");
    box.dataset.min = String(range.min_to);
    box.dataset.max = String(range.max_to);
    const input = el("input", "amount");
    input.type = "text";
    input.inputMode = "decimal";
    input.dataset.amount = "";
    input.setAttribute("aria-label", t(`poker_console.entry_${range.kind}`));
    input.value = amountText(range.min_to, state);
    const step = (state.stakes?.blinds ?? [])[1] || state.stakes?.small_bet || state.stakes?.min_bet || 1;
    const current = () => parseAmount(input.value, state);
    // the button says the amount it sends ("Raise to €4.00"), as Call and All in do; the entry's word while it reads none
    const said = () => {
      const amount = current();
      go.textContent = amount === null ? t(`poker_console.entry_${range.kind}`) : t(`poker_console.${range.kind}_to`, { amount: formatMoney(amount, state) });
    };
    const setTo = (amount) => { input.value = amountText(Math.max(0, amount), state); said(); };
    input.addEventListener("input", () => said());
    const bounds = el("div", "amount-bounds", `${formatMoney(range.min_to, state)} .. ${formatMoney(range.max_to, state)}`);
    const entryError = el("div", "entry-error");
    const go = button(range.kind, t(`poker_console.entry_${range.kind}`), () => {
      const amount = current();
      if (amount === null) {
        entryError.textContent = t(input.value.trim() === "" ? "poker_console.amount_first" : "poker_console.not_an_amount");
        entryError.dataset.entryError = input.value;
        this.showRefusal(null);  // the controller's refusal was of the amount typed before: not beside this one
        return;
      }
      entryError.textContent = "";
      delete entryError.dataset.entryError;
      this.act(seat, range.kind, { amount });
    });
    const minus = button("less", "\u2212", () => setTo((current() ?? range.min_to) - step));
    const plus = button("more", "+", () => setTo((current() ?? range.min_to) + step));
    minus.setAttribute("aria-label", t("poker_console.less"));
    plus.setAttribute("aria-label", t("poker_console.more"));
    const min = button("min", t("poker_console.min"), () => setTo(range.min_to));
    const max = button("max", t("poker_console.max"), () => setTo(range.max_to));
    said();
    const line = el("div", "amount-line");
    line.append(minus, input, plus);
    const presets = el("div", "amount-presets");
    presets.append(min, max, bounds);
    box.append(line, presets, go, entryError);
    return box;
  }
}

// The console calls this for a poker table with each state it is sent; `ctx.send(command)` relays one command
// (the command channel's request map, `protocol/commands/`) and resolves to the relay's answer.
export function renderPoker(container, state, ctx) {
  let panel = panels.get(container);
  if (!panel || !container.contains(panel.root)) {
    panel = new PokerPanel(container, ctx);
    panels.set(container, panel);
  }
  panel.ctx = ctx;
  panel.render(state);
  return panel.root;
}
