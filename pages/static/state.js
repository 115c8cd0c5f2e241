// @ts-check
// What the pages read from a table's state as the feed sends it (docs/feed.md), written once: which kind of table it
// is and which step dealt face up is on screen. Pure (no DOM, no words): node imports it (tests/web/js/).

/**
 * A seat of a step dealt face up, with the cards it was dealt.
 * @typedef {{seat: number, cards?: string[]}} StepSeat
 */

/**
 * A step dealt face up between hands as the feed sends it (tables/face_up_step.py): `next` the seat whose card is
 * due, `button` (the draw for the button, once done) the seat the next hand's button is at.
 * @typedef {{done: boolean, next?: number | null, seats?: StepSeat[], button?: number | null}} FaceUpState
 */

/**
 * The step on screen: its kind, done or not, the seat whose card is due (null once done), its seats, and the
 * button the draw gave (null before it is done, and for the chip race).
 * @typedef {{kind: "race" | "button-draw", done: boolean, due: number | null, seats: StepSeat[], button: number | null,
 *   step: FaceUpState}} FaceUpStep
 */

/**
 * A poker table's state carries its betting structure; a house table's never does.
 * @param {{structure?: unknown} | null | undefined} state
 * @returns {boolean}
 */
export function isPoker(state) {
  return typeof state?.structure === "string" && state.structure !== "";
}

/**
 * A street's name as a catalog key's last part: the engine's "first draw" is `street_first_draw` (engine.poker.variants).
 * @param {unknown} street
 * @returns {string}
 */
export function streetKey(street) {
  return String(street ?? "").replace(/ /g, "_");
}

/**
 * Whether a poker table's board is named on the pages: only once it holds a card (stud and the draw games deal none,
 * and a hold'em hand before its flop has none yet): an empty "Board" read as cards missing.
 * @param {{board?: unknown[] | null} | null | undefined} state
 * @returns {boolean}
 */
export function boardShown(state) {
  return (state?.board ?? []).length > 0;
}

/**
 * The step dealt face up between hands that the console shows, if any: the chip race (`race`:
 * tables/chip_race_step.py) or the draw for the button (`button_draw`: tables/button_draw_step.py). An open step
 * comes first; of two done, the draw (the button the next hand is dealt from).
 * @param {{race?: FaceUpState | null, button_draw?: FaceUpState | null}} state
 * @returns {FaceUpStep | null}
 */
export function faceUpStep(state) {
  /** @type {FaceUpStep[]} */
  const steps = [];
  const race = state.race, draw = state.button_draw;
  if (race) {
    steps.push({ kind: "race", done: race.done, due: race.done ? null : race.next ?? null, seats: race.seats ?? [],
      button: null, step: race });
  }
  if (draw) {
    steps.push({ kind: "button-draw", done: draw.done, due: draw.done ? null : draw.next ?? null, seats: draw.seats ?? [],
      button: draw.done ? draw.button ?? null : null, step: draw });
  }
  return steps.find((step) => !step.done) ?? steps.find((step) => step.kind === "button-draw") ?? steps[0] ?? null;
}
