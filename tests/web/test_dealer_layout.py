"""The dealer console under the finger (issue 21), in Chromium: every tap target at least 48 px with 8 px between
targets at 1280x800 and 1280x720; a refusal in a line of its own that moves nothing, replaced by the next and cleared
with the next step or its seat's bets wiped; Void away from Deal and Confirm, whole on screen, and confirmed; Cancel readable; hand names whole."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import zmq
from playwright.sync_api import Page

from protocol.commands import CommandClient
from tests.web.money import shown as money
from tests.web.test_dealer import PINS, ROOT, Console, console, sign_in, tablet  # noqa: F401 (the fixtures)
from tests.web.test_dealer_shift import Dealer, first_bets, next_step

MEASURE = """() => {
  const visible = (n) => { const r = n.getBoundingClientRect(); const s = getComputedStyle(n);
    return r.width > 0 && r.height > 0 && s.visibility !== 'hidden' && !n.closest('[hidden]'); };
  const scope = document.querySelector('dialog[open]') ?? document.getElementById('console');
  const targets = [...scope.querySelectorAll('button, input, select')].filter(visible).map((n) => {
    const r = n.getBoundingClientRect();
    return { what: `${n.dataset.action ?? n.name ?? n.tagName}${n.dataset.seat ? ' ' + n.dataset.seat : ''}`
      + `${n.dataset.circle ? ' ' + n.dataset.circle : ''}${n.dataset.chip ? ' ' + n.dataset.chip : ''}`,
      left: r.left, top: r.top, right: r.right, bottom: r.bottom, width: r.width, height: r.height };
  });
  return { targets, width: innerWidth, height: innerHeight };
}"""


def check_targets(page: Page, where: str) -> int:
    """Every visible tap target (the open dialog's, else the console's): at least 48x48 px, 8 px from every other, on screen."""
    seen: dict[str, Any] = page.evaluate(MEASURE)
    targets = seen["targets"]
    assert targets, where
    for t in targets:
        assert t["width"] >= 48 and t["height"] >= 48, (where, t)
        assert t["left"] >= 0 and t["top"] >= 0 and t["right"] <= seen["width"] and t["bottom"] <= seen["height"], (where, t)
    for i, a in enumerate(targets):
        for b in targets[i + 1:]:
            dx = max(0.0, b["left"] - a["right"], a["left"] - b["right"])
            dy = max(0.0, b["top"] - a["bottom"], a["top"] - b["bottom"])
            assert (dx * dx + dy * dy) ** 0.5 >= 8 - 0.01, (where, a, b)
    return len(targets)


def test_every_tap_target_is_48_px_with_8_px_between(console: Callable[..., Console], tablet: Page) -> None:
    work = console(game="uth", seed=5, seats=3)
    sign_in(tablet, work.base, "ana")
    dealer = Dealer(tablet)
    sizes = [{"width": 1280, "height": 800}, {"width": 1280, "height": 720}]

    def everywhere(where: str) -> None:
        for size in sizes:
            tablet.set_viewport_size(size)
            tablet.evaluate("() => new Promise((drawn) => requestAnimationFrame(() => requestAnimationFrame(drawn)))")
            check_targets(tablet, f"{where} at {size['width']}x{size['height']}")
        tablet.set_viewport_size(sizes[0])

    dealer.tap("[data-seat='1'] [data-circle='ante']")
    everywhere("the bets")
    dealer.tap("[data-chips] [data-chip='500']")
    dealer.tap("[data-action='deal']")
    tablet.wait_for_selector("#unsent[open]")
    everywhere("Deal's question about chips not sent")
    dealer.tap("#unsent-send")
    dealer.ready()
    next_step(tablet)
    everywhere("a decision")
    dealer.tap("[data-action='void']")
    tablet.wait_for_selector("#signoff[open]")
    everywhere("the sign-off")
    tablet.tap("#signoff-cancel")
    while next_step(tablet) != "showdown":
        dealer.tap("[data-decisions] button >> nth=0")
        dealer.ready()
    everywhere("the showdown")
    dealer.tap("[data-action='confirm']")
    tablet.wait_for_selector(f"{ROOT}[data-phase='settled']")
    everywhere("the settled hand, the next bets")
    names = tablet.evaluate("() => [...document.querySelectorAll('.hand-name')].filter((n) => n.textContent)"
                            ".map((n) => [n.textContent, n.scrollWidth - n.clientWidth, n.scrollHeight - n.clientHeight])")
    assert names and all(dw <= 1 and dh <= 1 for _, dw, dh in names), names  # hand names whole, never cut


def _box(page: Page, selector: str) -> dict[str, float]:
    box = page.locator(selector).bounding_box()
    assert box is not None, selector
    return box


def _contrast(page: Page, selector: str) -> float:
    """The WCAG contrast ratio of an element's text colour on its background colour."""
    ratio: float = page.evaluate("""(sel) => {
      const s = getComputedStyle(document.querySelector(sel));
      const lum = (c) => { const [r, g, b] = c.match(/[\\d.]+/g).slice(0, 3).map((v) => Number(v) / 255)
        .map((v) => v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4); return 0.2126 * r + 0.7152 * g + 0.0722 * b; };
      const [a, b] = [lum(s.color), lum(s.backgroundColor)].sort((x, y) => y - x);
      return (a + 0.05) / (b + 0.05);
    }""", selector)
    return ratio


def test_a_refusal_moves_nothing_is_replaced_and_clears_with_its_seats_bets_or_the_next_step(
        console: Callable[..., Console], tablet: Page) -> None:
    work = console(game="uth", seed=3, seats=2)
    sign_in(tablet, work.base, "ana")
    dealer = Dealer(tablet)
    dealer.tap("[data-seat='1'] [data-circle='ante']")
    dealer.tap("[data-chips] [data-chip='100']")
    before = {sel: _box(tablet, sel) for sel in ("#spots", "[data-seat='1'] [data-circle='ante']", "#chips", "#deal")}
    dealer.tap("[data-seat='1'] [data-action='bet']")  # below the table's minimum: refused
    dealer.ready()
    first = dealer.refusal()
    assert first == f"Seat 1: the Ante {money(100)} is below the table minimum {money(500)}", first  # money, never cents
    assert {sel: _box(tablet, sel) for sel in before} == before  # nothing moved under the finger
    dealer.tap("[data-seat='1'] [data-circle='trips']")
    dealer.tap("[data-chips] [data-chip='100']")
    before = {sel: _box(tablet, sel) for sel in before}
    dealer.tap("[data-seat='1'] [data-action='bet']")  # refused again: the new refusal in the old one's place
    dealer.ready()
    second = dealer.refusal()
    assert second and tablet.locator("[data-refusal]").count() == 1
    assert {sel: _box(tablet, sel) for sel in before} == before
    dealer.tap("[data-seat='2'] [data-action='clear-bets']")  # another seat's bets wiped: the refusal stays
    assert dealer.refusal() == second
    dealer.tap("[data-seat='1'] [data-action='clear-bets']")  # the refused seat's bets wiped: its refusal goes
    tablet.wait_for_selector("#refusal[hidden]", state="attached")
    dealer.tap("[data-seat='1'] [data-circle='ante']")
    dealer.tap("[data-chips] [data-chip='100']")
    dealer.tap("[data-seat='1'] [data-action='bet']")  # refused once more, for the next step to clear
    dealer.ready()
    assert dealer.refusal() == first
    ctx: zmq.Context[Any] = zmq.Context()
    direct = CommandClient(ctx, work.table.endpoints.commands, timeout_s=5.0, name="setup")
    try:  # the next step (the hand dealt from another console): the refusal is gone
        assert direct.request("bet", seat=2, bets={"ante": 500, "blind": 500})["ok"]
        assert direct.request("deal")["ok"]
    finally:
        direct.close()
        ctx.destroy(linger=0)
    tablet.wait_for_selector(f"{ROOT}[data-phase='preflop']")
    tablet.wait_for_selector("#refusal[hidden]", state="attached")


def test_void_is_away_from_deal_and_confirm_whole_on_screen_and_confirmed(
        console: Callable[..., Console], tablet: Page) -> None:
    work = console(game="uth", seed=3, seats=2)
    sign_in(tablet, work.base, "ana")
    dealer = Dealer(tablet)
    first_bets(dealer, {1: {"ante": 500, "blind": 500}})
    next_step(tablet)
    void = _box(tablet, "#void")
    assert void["x"] >= 0 and void["y"] >= 0 and void["x"] + void["width"] <= 1280 and void["y"] + void["height"] <= 800
    deal = _box(tablet, "[data-decisions] button >> nth=0")  # the forward buttons' row (Deal, Confirm, decisions)
    assert deal["y"] - (void["y"] + void["height"]) >= 300, (void, deal)
    hand = tablet.get_attribute(ROOT, "data-hand")
    dealer.tap("#void")  # a tap opens the sign-off: nothing is voided yet
    tablet.wait_for_selector("dialog[data-signoff='void'][open]")
    assert tablet.inner_text("#signoff-what") == f"Hand {hand} ends with no payout; the bets of 1 seat are given back."
    assert _contrast(tablet, "#signoff-cancel") >= 4.5
    tablet.tap("#signoff-cancel")
    tablet.wait_for_selector("dialog[data-signoff='void']:not([open])", state="attached")
    assert tablet.get_attribute(ROOT, "data-hand") == hand and tablet.get_attribute(ROOT, "data-phase") == "preflop"
    while next_step(tablet) != "showdown":
        dealer.tap("[data-decisions] button >> nth=0")
        dealer.ready()
    assert tablet.get_attribute(ROOT, "data-hand") == hand  # the sign-off cancelled voided nothing: its showdown
    confirm = _box(tablet, "#confirm")
    assert abs(confirm["x"] - void["x"]) + abs(confirm["y"] - void["y"]) >= 300, (void, confirm)
    dealer.tap("#void")  # voided with a supervisor's sign-off: the console lists the bets to give back, in money
    tablet.fill("#signoff input[name=user]", "sam")
    tablet.fill("#signoff input[name=pin]", PINS["sam"][1])
    dealer.tap("#signoff-send")
    dealer.ready()
    assert dealer.refusal() is None, dealer.refusal()
    tablet.wait_for_selector("[data-returns]:not([hidden])")
    lines = tablet.locator("[data-returns] li")
    assert lines.count() == 1 and lines.nth(0).get_attribute("data-seat") == "1"
    assert lines.nth(0).inner_text() == (f"Seat 1: Ante {money(500)}, Blind {money(500)}, Play {money(500)}"  # played 1x
                                         f" \u00b7 total {money(1500)}")
    assert tablet.get_attribute(ROOT, "data-hand") != hand
    dealer.tap("[data-action='returns-done']")
    tablet.wait_for_selector("[data-returns][hidden]", state="attached")
