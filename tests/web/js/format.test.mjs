// The pages' pure helpers (pages/static/format.js) under node's own test runner, without a browser:
// money as the pages write it, amounts typed, chips, clocks and cards. tests/web/test_pages_code.py runs it, and
// hands it (CROUPIER_MONEY_CASES) the money tests/web/money.py works out on its own, the browser tests' oracle.
import assert from "node:assert/strict";
import { test } from "node:test";

import {
  amountText, cardText, clockText, currencyOf, decimalsOf, formatChipFace, formatChips, formatMoney, formatNumber, netTone, parseAmount,
  parseCard,
} from "../../../pages/static/format.js";

const EN = "en-GB", FR = "fr-FR";
const NARROW_NBSP = "\u202f", NBSP = "\u00a0", MINUS = "\u2212";
const EUR = { currency: "EUR", decimals: 2 };

test("money in English and in French, as the locale writes it", () => {
  assert.equal(formatMoney(123450, EUR, false, EN), "€1,234.50");
  assert.equal(formatMoney(123450, EUR, false, FR), `1${NARROW_NBSP}234,50${NBSP}€`);
  assert.equal(formatMoney(0, EUR, false, EN), "€0.00");
  assert.equal(formatMoney(100000000, { currency: "USD", decimals: 2 }, false, EN), "US$1,000,000.00");
});

test("a loss carries a minus sign, never a hyphen; a signed win a plus; a signed push none", () => {
  assert.equal(formatMoney(-750, EUR, false, EN), `${MINUS}€7.50`);
  assert.equal(formatMoney(-750, EUR, false, FR), `${MINUS}7,50${NBSP}€`);
  assert.equal(formatMoney(1200, EUR, true, EN), "+€12.00");
  assert.equal(formatMoney(-1200, EUR, true, EN), `${MINUS}€12.00`);
  assert.equal(formatMoney(0, EUR, true, EN), "€0.00");
});

test("a state without money named is euros in cents; its decimals are the state's", () => {
  assert.equal(currencyOf(null), "EUR");
  assert.equal(decimalsOf(undefined), 2);
  assert.equal(decimalsOf({ decimals: -1 }), 2);
  assert.equal(decimalsOf({ decimals: 1.5 }), 2);
  assert.equal(formatMoney(1234, {}, false, EN), "€12.34");
  assert.equal(formatMoney(1234, { currency: "GBP", decimals: 0 }, false, EN), "£1,234");
});

test("a currency Intl does not know: the amount and the code", () => {
  assert.equal(formatMoney(1250, { currency: "CHIPS", decimals: 2 }, false, EN), "12.50 CHIPS");
});

test("a chip's face: whole units without decimals, else as money", () => {
  assert.equal(formatChipFace(10000, EUR, FR), `100${NBSP}€`);
  assert.equal(formatChipFace(10000, EUR, EN), "€100");
  assert.equal(formatChipFace(250, EUR, FR), `2,50${NBSP}€`);
  assert.equal(formatChipFace(1000000, EUR, FR), `10${NARROW_NBSP}000${NBSP}€`);
  assert.equal(formatChipFace(500, { currency: "JPY", decimals: 0 }, EN), "JP¥500");
});

test("an amount without its currency: whole units without decimals", () => {
  assert.equal(formatNumber(1500, EUR, true, EN), "+15");
  assert.equal(formatNumber(-750, EUR, true, FR), `${MINUS}7,50`);
  assert.equal(formatNumber(0, EUR, true, EN), "0");
  assert.equal(formatNumber(123400, EUR, false, FR), `1${NARROW_NBSP}234`);
});

test("tournament chips are counted, not money", () => {
  assert.equal(formatChips(11428, EN), "11,428");
  assert.equal(formatChips(11428, FR), `11${NARROW_NBSP}428`);
});

test("an amount typed is read in the smallest unit, a dot or a comma, never more decimals than the money has", () => {
  assert.equal(parseAmount("12.5", EUR), 1250);
  assert.equal(parseAmount("12,50", EUR), 1250);
  assert.equal(parseAmount(" 7 ", EUR), 700);
  assert.equal(parseAmount("0.07", EUR), 7);
  assert.equal(parseAmount("12.505", EUR), null);
  assert.equal(parseAmount("-5", EUR), null);
  assert.equal(parseAmount("five", EUR), null);
  assert.equal(parseAmount("", EUR), null);
  assert.equal(parseAmount("12", { decimals: 0 }), 12);
  assert.equal(parseAmount("12.5", { decimals: 0 }), null);
});

test("an amount is typed back as the locale writes its decimals, and read back the same", () => {
  assert.equal(amountText(400, EUR, EN), "4.00");
  assert.equal(amountText(1205, EUR, FR), "12,05");
  assert.equal(amountText(12, { decimals: 0 }, FR), "12");
  for (const amount of [0, 7, 400, 1205, 99999]) assert.equal(parseAmount(amountText(amount, EUR, FR), EUR), amount);
});

test("a clock's time left, rounded up to the second, never below zero", () => {
  assert.equal(clockText(0), "0:00");
  assert.equal(clockText(65.2), "1:06");
  assert.equal(clockText(600), "10:00");
  assert.equal(clockText(3723), "1:02:03");
  assert.equal(clockText(-5), "0:00");
});

test("a net's tone", () => {
  assert.deepEqual([netTone(500), netTone(-1), netTone(0)], ["win", "lose", "push"]);
});

test("a card read from its text form: rank as printed, suit symbol, red or black", () => {
  assert.deepEqual(parseCard("Td"), { rank: "10", suit: "\u2666", red: true });
  assert.deepEqual(parseCard("As"), { rank: "A", suit: "\u2660", red: false });
  assert.deepEqual(parseCard("2h"), { rank: "2", suit: "\u2665", red: true });
  assert.deepEqual(parseCard("Kc"), { rank: "K", suit: "\u2663", red: false });
  for (const notACard of ["??", "T", "Tx", "Tdd", "", null, 5]) assert.equal(parseCard(notACard), null);
  assert.equal(cardText("Td"), "10\u2666");
  assert.equal(cardText("Qh"), "Q\u2665");
  assert.equal(cardText("??"), "??");
});

test("money as tests/web/money.py works it out (the browser tests' oracle), case by case", (t) => {
  const given = process.env.CROUPIER_MONEY_CASES;
  if (!given) { t.skip("run by tests/web/test_pages_code.py, which gives the cases"); return; }
  const cases = JSON.parse(given);
  assert.ok(cases.length > 0);
  for (const { amount, locale, currency, decimals, signed, shown } of cases) {
    assert.equal(formatMoney(amount, { currency, decimals }, signed, locale), shown, JSON.stringify({ amount, locale, currency, signed }));
  }
});

test("a gaming day is written and read in the page's locale, not the browser's", async () => {
  const { dayText, parseDay } = await import("../../../pages/static/format.js");
  assert.equal(dayText("2026-12-03", FR), "03/12/2026");
  assert.equal(dayText("2026-12-03", EN), "03/12/2026");
  assert.equal(dayText("2026-12-03", "en-US"), "12/03/2026");
  assert.equal(dayText("", FR), "");
  assert.equal(parseDay("03/12/2026", FR), "2026-12-03");
  assert.equal(parseDay("3/12/2026", EN), "2026-12-03");
  assert.equal(parseDay(" 3.12.2026 ", FR), "2026-12-03");
  assert.equal(parseDay("12/03/2026", "en-US"), "2026-12-03");
  assert.equal(parseDay("2026-12-03", FR), "2026-12-03");  // as the archive writes it
  assert.equal(parseDay("03122026", FR), "2026-12-03");  // a number pad's: no "/"
  assert.equal(parseDay("12032026", "en-US"), "2026-12-03");
  for (const wrong of ["31/02/2026", "03/13/2026", "03/12/26", "3 décembre 2026", "", "03/12", "003/12/2026", "3122026",
    "31022026"]) {
    assert.equal(parseDay(wrong, FR), null, wrong);
  }
  assert.equal(parseDay(dayText("2027-01-09", FR), FR), "2027-01-09");
});

test("a time of day is typed on the 24-hour clock, whatever the browser's locale", async () => {
  const { parseClock } = await import("../../../pages/static/format.js");
  assert.equal(parseClock("21:05"), "21:05");
  assert.equal(parseClock("9:05"), "09:05");
  assert.equal(parseClock("21h05"), "21:05");
  assert.equal(parseClock(" 0.00 "), "00:00");
  assert.equal(parseClock("2105"), "21:05");
  assert.equal(parseClock("905"), "09:05");
  for (const wrong of ["24:00", "21:60", "9:5", "9 PM", "", "21:05:00", "2160", "21"]) assert.equal(parseClock(wrong), null, wrong);
});
