// The tournament clock (/tournament): follows the display's /ws/tournament (the director's view) and draws it
// for a wall screen. It decides nothing: the time left is the director's, counted down here between updates.
import { formatMoney, locale, t } from "/static/words.js";

const MISSED_HEARTBEATS = 3;
const root = document.getElementById("clock");
const $ = (id) => document.getElementById(id);
let view = null;          // the director's last view
let receivedAt = 0;       // performance.now() when it came
let heartbeatMs = 1000;
let lastHeard = 0;

const chips = (n) => Number(n).toLocaleString(locale);

function clockText(seconds) {
  const s = Math.max(0, Math.ceil(seconds));
  const h = Math.floor(s / 3600), m = Math.floor((s % 3600) / 60), r = s % 60;
  const mm = String(m).padStart(h ? 2 : 1, "0"), ss = String(r).padStart(2, "0");
  return h ? `${h}:${mm}:${ss}` : `${mm}:${ss}`;
}

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
  list.replaceChildren(...v.payouts.map((p) => {
    const li = document.createElement("li");
    li.dataset.place = String(p.place);
    li.innerHTML = `<span class="place">${p.place}.</span><span class="prize"></span>`;
    li.querySelector(".prize").textContent = formatMoney(p.prize, v);
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
  const offline = performance.now() - lastHeard > MISSED_HEARTBEATS * heartbeatMs;
  $("offline").hidden = !offline;
  root.classList.toggle("stale", offline);
}

function take(message) {
  lastHeard = performance.now();
  if (message.kind === "hello") heartbeatMs = message.heartbeat_s * 1000;
  else if (message.kind === "none") { $("status").textContent = t("tournament.none"); root.dataset.status = "none"; }
  else if (message.kind === "snapshot" || message.kind === "update") {
    view = message;
    receivedAt = performance.now();
    draw();
  }
}

function connect() {
  const ws = new WebSocket(`${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws/tournament`);
  ws.onmessage = (event) => take(JSON.parse(event.data));
  ws.onclose = () => setTimeout(connect, 1000);
}

setInterval(tick, 200);
connect();
