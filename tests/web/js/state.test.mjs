// What the pages read from a table's state (pages/static/state.js) under node's test runner: which
// kind of table it is, and which step dealt face up between hands the dealer console shows.
import assert from "node:assert/strict";
import { test } from "node:test";

import { faceUpStep, isPoker } from "../../../pages/static/state.js";

test("a poker table's state names its betting structure; a house table's names none", () => {
  assert.equal(isPoker({ structure: "no-limit" }), true);
  assert.equal(isPoker({ structure: "fixed-limit", game: "stud" }), true);
  assert.equal(isPoker({ game: "uth" }), false);
  assert.equal(isPoker({ structure: "" }), false);
  assert.equal(isPoker(null), false);
  assert.equal(isPoker(undefined), false);
});

const seats = [{ seat: 1, cards: ["As"] }, { seat: 3, cards: [] }];

test("no step dealt face up: none shown", () => {
  assert.equal(faceUpStep({}), null);
  assert.equal(faceUpStep({ race: null, button_draw: null }), null);
});

test("the draw for the button being dealt: the seat whose card is due, no button yet", () => {
  const step = faceUpStep({ button_draw: { done: false, next: 3, seats, button: null } });
  assert.equal(step?.kind, "button-draw");
  assert.equal(step?.due, 3);
  assert.equal(step?.button, null);
  assert.deepEqual(step?.seats, seats);
});

test("the draw done: no card due, the button at the seat it gave", () => {
  const step = faceUpStep({ button_draw: { done: true, next: null, seats, button: 1 } });
  assert.equal(step?.kind, "button-draw");
  assert.equal(step?.done, true);
  assert.equal(step?.due, null);
  assert.equal(step?.button, 1);
});

test("an open step comes first: the chip race being dealt before a draw done", () => {
  const step = faceUpStep({ race: { done: false, next: 1, seats }, button_draw: { done: true, seats, button: 3 } });
  assert.equal(step?.kind, "race");
  assert.equal(step?.due, 1);
  assert.equal(step?.button, null);
});

test("an open draw comes before a chip race done", () => {
  const step = faceUpStep({ race: { done: true, next: null, seats }, button_draw: { done: false, next: 3, seats } });
  assert.equal(step?.kind, "button-draw");
  assert.equal(step?.due, 3);
});

test("both done: the draw (the button the next hand is dealt from); a chip race done alone stays shown", () => {
  assert.equal(faceUpStep({ race: { done: true, seats }, button_draw: { done: true, seats, button: 3 } })?.kind, "button-draw");
  const race = faceUpStep({ race: { done: true, next: 3, seats } });
  assert.equal(race?.kind, "race");
  assert.equal(race?.due, null);
});

test("a step without its seats listed has none", () => {
  assert.deepEqual(faceUpStep({ race: { done: false, next: 2 } })?.seats, []);
});
