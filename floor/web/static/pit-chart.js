// @ts-check
// The pit's chart of a gaming day in plain SVG: the house's win of the day so far at the end of each clock
// hour (a line, its zero dashed) over the hands closed in each hour (bars).
import { svgEl as el } from "./common.js";
import { formatMoney } from "./words.js";

/**
 * An integer step for a scale of counts up to `value`: 1, 2, 5 x 10^n, about four steps.
 * @param {number} value
 * @returns {number}
 */
function countStep(value) {
  const rough = Math.max(1, value / 4);
  const base = 10 ** Math.floor(Math.log10(rough));
  return [1, 2, 5, 10].map((m) => m * base).find((step) => step >= rough) ?? 10 * base;
}

// Draw `series` ({hours: ["06:00", ...], hands: [...], win: [...], elapsed}) into `svg`, replacing what it held:
// the house's win of the day so far in the upper band (its zero dashed), the hands of each hour as bars in the
// lower one, the hours below. `big`: the pit's chart with its scales and labels; otherwise a tile's small one.
// `state` gives the money's currency and decimals (words.js).
/**
 * @param {SVGSVGElement} svg
 * @param {{hours?: string[], hands?: number[], win?: number[], elapsed?: number}} series
 * @param {{width?: number, height?: number, big?: boolean, state?: any}} [options]
 */
export function drawChart(svg, series, { width = 400, height = 64, big = false, state = null } = {}) {
  svg.replaceChildren();
  const box = svg.getBoundingClientRect();  // drawn at its size on the screen: text and strokes unstretched
  if (box.width > 0 && box.height > 0) [width, height] = [box.width, box.height];
  svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
  const hours = series.hours ?? [];
  const hands = series.hands ?? [];
  const win = series.win ?? [];
  svg.dataset.hands = JSON.stringify(hands);
  svg.dataset.win = JSON.stringify(win);
  if (!hours.length) return;
  const font = big ? 18 : 11;
  const m = big ? { l: 150, r: 16, t: 14, b: 30, gap: 18 } : { l: 2, r: 2, t: 3, b: 14, gap: 4 };
  const w = width - m.l - m.r;
  const inner = height - m.t - m.b - m.gap;
  const winH = inner * 0.55;
  const barsTop = m.t + winH + m.gap;
  const barsH = inner - winH;
  const slot = w / hours.length;
  const gone = Math.max(0, Math.min(hours.length, Math.ceil(series.elapsed ?? hours.length)));
  const sums = [];
  win.reduce((sum, v, i) => { sums[i] = sum + v; return sums[i]; }, 0);
  const shown = sums.slice(0, gone);
  const lo = Math.min(0, ...shown);
  const hi = Math.max(0, ...shown);
  const span = hi - lo || 1;
  const y = (v) => m.t + winH - ((v - lo) / span) * winH;
  const tone = (v) => (v < 0 ? "lose" : "win");

  // the win band
  el(svg, "rect", { x: m.l, y: m.t, width: w, height: winH, class: "plot" });
  el(svg, "line", { x1: m.l, x2: m.l + w, y1: y(0), y2: y(0), class: "zero" });
  if (big) {
    const at = (v) => Math.min(Math.max(y(v) + font / 3, m.t + font * 0.8), m.t + winH);  // a scale text's line
    const marks = [];  // the zero, then the highest and the lowest where they leave room for their text
    for (const v of [0, hi, lo]) if (marks.every((k) => Math.abs(at(k) - at(v)) >= font)) marks.push(v);
    for (const v of marks) {
      el(svg, "text", { x: m.l - 10, y: at(v),
        "text-anchor": "end", "font-size": font * 0.85, class: v ? `axis ${tone(v)}` : "axis" },
      v ? formatMoney(v, state, true) : "0");
    }
  }
  if (shown.length) {
    const points = [[m.l, y(0)], ...shown.map((v, i) => [m.l + (i + 1) * slot, y(v)])];
    const last = shown[shown.length - 1];
    el(svg, "polyline", { points: points.map(([px, py]) => `${px.toFixed(1)},${py.toFixed(1)}`).join(" "),
      class: `win-line ${tone(last)}` });
    if (big) {
      const [lx, ly] = points[points.length - 1];
      el(svg, "circle", { cx: lx, cy: ly, r: 5, class: `win-dot ${tone(last)}` });
      const right = lx > m.l + w - 220;
      el(svg, "text", { x: right ? lx - 12 : lx + 12, y: ly > m.t + winH / 2 ? ly - 10 : ly + font + 6,
        "text-anchor": right ? "end" : "start", "font-size": font, class: `win-label ${tone(last)}` },
      formatMoney(last, state, true));
    }
  }

  // the hands band
  const step = countStep(Math.max(...hands, 1));
  const top = step * (Math.floor(Math.max(...hands, 1) / step) + 1);  // room above the tallest bar for its count
  el(svg, "rect", { x: m.l, y: barsTop, width: w, height: barsH, class: "plot" });
  if (big) {
    for (let v = step; v <= top; v += step) {
      const gy = barsTop + barsH - (v / top) * barsH;
      el(svg, "line", { x1: m.l, x2: m.l + w, y1: gy, y2: gy, class: "grid" });
      el(svg, "text", { x: m.l - 10, y: gy + font / 3, "text-anchor": "end", "font-size": font * 0.85, class: "axis" },
        String(v));
    }
  }
  hands.forEach((count, i) => {
    const bh = (count / top) * barsH;
    const bar = el(svg, "rect", { x: m.l + i * slot + slot * 0.15, y: barsTop + barsH - bh, width: slot * 0.7,
      height: bh, class: "bar" });
    bar.dataset.hour = hours[i];
    bar.dataset.hands = String(count);
    if (big && count) {
      el(svg, "text", { x: m.l + (i + 0.5) * slot, y: barsTop + barsH - bh - 5, "text-anchor": "middle",
        "font-size": font * 0.8, class: "count" }, String(count));
    }
  });
  const labelW = font * (big ? 3.4 : 5.5);  // an "HH:MM" and a space; a tile's "HH" every few hours
  // the first label starts at the axis (the others are centred on their hour): the next one clears it whole
  const every = [1, 2, 3, 4, 6, 8, 12].find((n) => n * slot >= labelW * (big ? 1.5 : 1)) ?? 12;
  hours.forEach((label, i) => {
    if (i % every) return;
    el(svg, "text", { x: m.l + i * slot, y: height - (big ? 6 : 2), "text-anchor": i ? "middle" : "start",
      "font-size": font, class: "axis" }, label.slice(0, big ? 5 : 2));
  });
  svg.dataset.dayWin = String(shown.length ? shown[shown.length - 1] : 0);
}
