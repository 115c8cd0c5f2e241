// @ts-check
// The pit's dealers' panel (/pit): each dealer's figures at the pit's tables this gaming day, from the archive (the
// `dealers` message, sent only to a screen signed in with a floor role: `floor/web/hub.py` DEALER_FIGURE_ROLES).
import { byId, el, withData } from "./common.js";
import { dayText } from "./format.js";
import { locale, t } from "./words.js";

const COLUMNS = ["dealer", "table", "time", "turns", "hands", "hands_per_hour", "average_seats", "voids", "corrections",
  "faults", "mispays", "moved_chips", "foreign_chips", "tray_differences"];

/** @param {number} seconds */
function duration(seconds) {
  const minutes = Math.round(seconds / 60);
  return `${Math.floor(minutes / 60)}:${String(minutes % 60).padStart(2, "0")}`;
}

/**
 * One figure as the panel writes it (a dash for none).
 * @param {any} d
 * @param {string} column
 */
function cell(d, column) {
  if (column === "time") return duration(Number(d.time_s ?? 0));
  const value = d[column];
  if (value === null || value === undefined) return "\u2013";
  if (column === "hands_per_hour" || column === "average_seats") return Number(value).toLocaleString(document.documentElement.lang, { maximumFractionDigits: 1 });
  return String(value);
}

/**
 * The `dealers` message: the panel drawn again.
 * @param {any} message
 */
export function showDealers(message) {
  const panel = byId("dealers");
  const rows = Array.isArray(message.dealers) ? message.dealers : [];
  const head = el("tr");
  for (const column of COLUMNS) head.appendChild(el("th", column, t(`pit_dealers.${column}`)));
  const body = rows.map((d) => {
    const row = withData(el("tr", d.on_table ? "on-table" : ""), {
      dealer: d.dealer, dealerTable: d.table, hands: d.hands, mispays: d.mispays, movedChips: d.moved_chips });
    for (const column of COLUMNS) row.appendChild(el("td", column, cell(d, column)));
    return row;
  });
  const thead = el("thead");
  const tbody = el("tbody");
  thead.appendChild(head);
  tbody.append(...body);
  byId("dealers-table").replaceChildren(thead, tbody);
  byId("dealers-note").textContent = rows.length ? t("pit_dealers.day", { day: dayText(message.day ?? "", locale) || (message.day ?? "") }) : t("pit_dealers.none");
  panel.hidden = false;
  panel.dataset.dealers = String(rows.length);
}
