// @ts-check
// The dealer console's player cards: each rated seat shown with its card masked to the last four (the relay's `players`
// message, from the display's full feed: display/seats.py), and the dialog that sets a seat's card, typed or scanned
// by a USB reader typing into the focused field and its Enter, marks a break and the return, or clears it (the `player`
// command; the controller decides and refuses in its words). The card in full is typed here and sent, never kept nor drawn.
import { byId, byIdOf, el } from "./common.js";
import { t } from "./words.js";

/**
 * A seat's player as the relay shows it: the card masked, who named it, whether on a break.
 * @typedef {{card: string, source: string, away: boolean}} SeatPlayer
 */

/** @type {Record<string, SeatPlayer> | null} */
let players = null;             // null: the display does not follow the full feed (no seat known rated or not)
/** @type {number | null} */
let chosen = null;              // the seat the dialog sets or clears
let seatCount = 0;
/** @type {(command: any) => void} */
let sendCommand = () => {};

const dialog = byIdOf("players", HTMLDialogElement);
const form = byIdOf("players-form", HTMLFormElement);
const cardField = byIdOf("player-card", HTMLInputElement);

/**
 * The relay's `players` message: who sits where, masked (the dialog redrawn when open: a reader's swipe, the pit).
 * @param {any} message
 */
export function seePlayers(message) {
  players = message.seats ?? {};
  if (dialog.open) drawDialog();
}

/**
 * The player at `seat`, or null (none, or not known).
 * @param {number} seat
 * @returns {SeatPlayer | null}
 */
export function playerAt(seat) {
  return players?.[String(seat)] ?? null;
}

/**
 * A spot's seat action for its player card: "Player card" where no card is known, "Rated ••••7890" ("On a break
 * ••••7890") where one is; tapped, it opens the dialog on that seat, its field focused for the scan (every spot keeps
 * it: the circles stay level from seat to seat).
 * @param {number} seat
 * @returns {HTMLElement}
 */
export function ratedLine(seat) {
  const player = playerAt(seat);
  const words = player ? t(player.away ? "console.player_away" : "console.player_rated", { card: player.card })
    : t("console.player_seat");
  const line = el("button", `rated${player ? "" : " unrated"}${player?.away ? " away" : ""}`);
  // a narrow seat (six or seven at the table) shows the card's last four, or a card's outline, its words its name
  line.append(el("span", "rated-words", words), el("span", "rated-short", player ? player.card.slice(-4) : ""));
  line.setAttribute("aria-label", words);
  line.title = words;
  line.type = "button";
  line.dataset.action = "player-card";
  line.dataset.seat = String(seat);
  if (player) line.dataset.playerCard = player.card;
  return line;
}

function drawDialog() {
  const box = byId("players-seats");
  box.replaceChildren();
  for (let seat = 1; seat <= seatCount; seat++) {
    const node = el("button", `seat-pick${seat === chosen ? " selected" : ""}`);
    node.type = "button";
    node.dataset.action = "player-seat";
    node.dataset.seat = String(seat);
    node.append(el("b", "", t("common.seat", { seat })));
    const player = playerAt(seat);
    node.append(el("span", "masked", player ? player.card : t("console.player_none")));
    if (player) node.dataset.playerCard = player.card;
    box.append(node);
  }
  const rated = chosen !== null && playerAt(chosen) !== null;
  byId("players-at").textContent = chosen === null ? t("console.player_pick")
    : t(rated ? "console.player_at_rated" : "console.player_at", { seat: chosen, card: playerAt(chosen)?.card ?? "" });
  byId("players-unknown").hidden = players !== null;
  byIdOf("player-in", HTMLButtonElement).disabled = chosen === null;
  byIdOf("player-out", HTMLButtonElement).disabled = chosen === null || (players !== null && !rated);
  const away = chosen !== null && playerAt(chosen)?.away === true;  // a break pauses the rating; back resumes it
  const pause = byIdOf("player-pause", HTMLButtonElement);
  pause.hidden = !rated;
  pause.dataset.action = away ? "player-back" : "player-away";
  pause.textContent = t(away ? "console.player_back" : "console.player_break");
  dialog.dataset.seat = chosen === null ? "" : String(chosen);
}

/**
 * Open the player cards' dialog over the console, on `seat` when given (a spot's seat action): its field focused.
 * @param {number} seats how many seats the table has
 * @param {number | null} [seat]
 */
export function openPlayers(seats, seat = null) {
  seatCount = seats;
  chosen = seat ?? (seats === 1 ? 1 : null);
  cardField.value = "";
  drawDialog();
  dialog.showModal();
  if (chosen !== null) cardField.focus();
}

function close() {
  cardField.value = "";   // the number typed is private: not left in the page
  chosen = null;
  dialog.close();
}

/** @param {"in" | "out" | "away" | "back"} action */
function sendPlayer(action) {
  if (chosen === null) return;
  /** @type {Record<string, string | number>} */
  const command = { cmd: "player", seat: chosen, action, source: "dealer" };
  if (action === "in") {
    const card = cardField.value.trim();
    if (!card) { cardField.focus(); return; }
    command.card = card;
  }
  close();
  sendCommand(command);
}

/**
 * Wire the dialog: `send` sends a command as the console does (its refusal shown in the console's refusal line).
 * @param {(command: any) => void} send
 */
export function initPlayers(send) {
  sendCommand = send;
  dialog.addEventListener("click", (event) => {
    const target = /** @type {HTMLElement} */ (event.target).closest("[data-action]");
    if (!(target instanceof HTMLButtonElement) || target.disabled) return;
    const action = target.dataset.action;
    if (action === "player-seat") {
      chosen = Number(target.dataset.seat);
      drawDialog();
      cardField.focus();  // a scan goes where the dealer looks: the card's field
    } else if (action === "players-cancel") {
      close();
    } else if (action === "player-out" || action === "player-away" || action === "player-back") {
      sendPlayer(action === "player-out" ? "out" : action === "player-away" ? "away" : "back");
    }
  });
  form.addEventListener("submit", (event) => {  // Set card, or the Enter a reader types after the number
    event.preventDefault();
    sendPlayer("in");
  });
  dialog.addEventListener("cancel", () => { cardField.value = ""; chosen = null; });
}
