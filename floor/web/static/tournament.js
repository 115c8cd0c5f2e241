// @ts-check
// The tournament clock (/tournament): follows the display's /ws/tournament (the director's view) and draws it
// for a wall screen. It decides nothing: the time left is the director's, counted down here between updates.
import { byId as $, el, Feed, showOffline } from "./common.js";
import { clockText } from "./format.js";
import { formatChips as chips, formatMoney, t } from "./words.js";

const root = $("clock");
/** @type {any} */
let view = null;          // the director's last view
let receivedAt = 0;       // performance.now() when it came

/** @param {any} level */
function levelText(level) {
  if (!level) return "";
  const blinds = `${chips(level.small_blind)} / ${chips(level.big_blind)}`;
  return level.ante ? t("tournament.blinds_ante", { blinds, ante: chips(level.ante) }) : blinds;
}

function leftNow() {
  if (!view || view.left_s === null || view.left_s === undefined) return null;
  const elapsed = view.running ? (performance.now() - receivedAt) / 1000 : 0;
  return Math.max(0, view.left_s - elapsed);
}

/**
 * @param {any} v
 * @returns {string}
 */
function status(v) {
  if (!v.started) return "not started";
  if (!v.running) return "paused";
  return v.on_break ? "break" : "running";
}

function draw() {
  if (!view) return;
  const v = view;
  const state = status(v);
  root.dataset.status = state;
  $("name").textContent = v.tournament;
  $("status").textContent = t(`tournament.status_${state.replace(" ", "_")}`);
  const level = v.level;
  root.dataset.level = level ? String(level.number) : "";
  root.dataset.onBreak = v.on_break ? "true" : "false";
  $("level").textContent = v.on_break ? t("tournament.on_break") : level ? t("tournament.level", { number: level.number })
    : t("tournament.starts");
  $("blinds").textContent = level ? `${chips(level.small_blind)} / ${chips(level.big_blind)}` : "";
  $("ante").textContent = level && level.ante ? t("tournament.ante", { amount: chips(level.ante) }) : "";
  $("next").textContent = v.next_level ? t("tournament.next", { number: v.next_level.number, blinds: levelText(v.next_level) })
    : t("tournament.last_level");
  $("break").textContent = "";  // the countdown to the next break: `tick`
  $("players").textContent = t("tournament.players_left", { left: v.players_left, entries: v.entries });
  $("average").textContent = chips(v.average_stack);
  $("pool").textContent = formatMoney(v.prize_pool, v);
  const list = $("payouts");
  list.replaceChildren(...v.payouts.map((/** @type {{place: number, prize: number}} */ p) => {
    const li = el("li");
    li.dataset.place = String(p.place);
    li.append(el("span", "place", `${p.place}.`), el("span", "prize", formatMoney(p.prize, v)));
    return li;
  }));
  tick();
}

function tick() {
  if (view) {
    const left = leftNow();
    const text = left === null ? (view.started ? "\u221e" : "--:--") : clockText(left);
    $("time").textContent = text;
    root.dataset.left = left === null ? "" : String(Math.ceil(left));
    const breakIn = view.next_break && left !== null ? view.next_break.in_s - (view.left_s - left) : null;
    $("break").textContent = breakIn === null ? "" : t("tournament.break_in", { time: clockText(breakIn),
      duration: clockText(view.next_break.duration_s) });
  }
}

/** @param {import("./common.js").Message} message */
function take(message) {
  if (message.kind === "none") { $("status").textContent = t("tournament.none"); root.dataset.status = "none"; }
  else if (message.kind === "snapshot" || message.kind === "update") {
    view = message;
    receivedAt = performance.now();
    draw();
  }
}

setInterval(tick, 200);
new Feed("/ws/tournament", {
  onMessage: take,
  isFeed: () => true,  // the hello too: the director's feed is heard as soon as the display answers
  onOffline: (offline) => showOffline(offline, $("offline"), { stale: root }),
}).start();
