// @ts-check
// The pit's chip alerts (/pit): a smart table's mispay, moved chips, foreign chip (its standing fault, in the public
// fault's words: the circle and the amounts) and the shift's tray differences (its `tray_alert`, whether or not the
// table stops on one), one line each, naming the table, until the fault is cleared or the table opens a new shift.
import { byId, el, withData } from "./common.js";
import { formatMoney, t } from "./words.js";

/** @type {Map<string, {kind: string, text: string, held: boolean}[]>} */
const alerts = new Map();  // table -> its alerts now

/**
 * A table's alerts from its latest summary (`floor/web/hub.py`).
 * @param {any} state
 * @returns {{kind: string, text: string, held: boolean}[]}
 */
function alertsOf(state) {
  const out = [];
  const fault = state.fault;
  if (fault && fault.chip && fault.say && typeof fault.say.key === "string" && fault.say.key.startsWith("fault.")) {
    const key = `pit_chips.${fault.say.key.slice("fault.".length)}`;
    out.push({ kind: fault.kind, text: t(key, { ...(fault.say.args ?? {}), table: state.name }, state), held: true });
  }
  const tray = state.tray_alert;
  if (tray && tray.flagged > 0) {
    const last = tray.last ?? {};
    out.push({ kind: "tray", held: false, text: t(last.between ? "pit_chips.tray_between" : "pit_chips.tray", {
      table: state.name, count: tray.flagged, difference: formatMoney(tray.difference ?? 0, state, true),
      value: formatMoney(last.value ?? 0, state, true), hand: last.hand ?? "\u2013" }, state) });
  }
  return out;
}

function draw() {
  const panel = byId("chip-alerts");
  const list = byId("chip-alert-list");
  const lines = [...alerts.entries()].sort(([a], [b]) => a.localeCompare(b, "en", { numeric: true }));
  list.replaceChildren();
  for (const [table, shown] of lines) {
    for (const alert of shown) {
      const item = withData(el("li", alert.held ? "held" : "told", alert.text), { alert: alert.kind, alertTable: table });
      if (alert.held) item.prepend(el("b", "", `${t("pit_chips.held")} `));
      list.appendChild(item);
    }
  }
  panel.hidden = list.childElementCount === 0;
  panel.dataset.alerts = String(list.childElementCount);
}

/**
 * A table's summary came (or it was removed: `removed`): its alerts drawn again, its tile marked.
 * @param {any} state
 * @param {boolean} [removed]
 */
export function showChipAlerts(state, removed = false) {
  const shown = removed ? [] : alertsOf(state);
  if (shown.length) alerts.set(state.name, shown); else alerts.delete(state.name);
  const tile = document.querySelector(`[data-table="${CSS.escape(state.name)}"]`);
  if (tile instanceof HTMLElement) {
    if (shown.length) tile.dataset.chipAlert = shown.map((a) => a.kind).join(" "); else delete tile.dataset.chipAlert;
  }
  draw();
}
