"""`croupier demo --chips --dealer web` in Chromium: a person deals a smart table's hand from /dealer with the printed demo credentials: a buy-in and a fill recorded and their chips moved, the bets read from the bots' chips, the payout verified against the dealer's hands, a mispay held and accepted with the supervisor's PIN, the summary and the journal as the console showed them."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

from playwright.sync_api import Page

from tests.sim.test_chip_demo import FAST_SCAN
from tests.web.money import shown as money
from tests.web.test_dealer_chips import open_tray, record, tray_difference
from tests.web.test_demo_dealer import ROOT, answered, demo, demos, journal, pages_line, sign_in, tablet

__all__ = ["demos", "tablet"]  # the fixtures this module uses, imported with the helpers

MISPAID = re.compile(r"^Seat (?P<seat>\d) (?P<circle>\w+): take back €1\.00 \(due (?P<due>€[\d,.]+), reads "
                     r"(?P<reads>€[\d,.]+)\)$")  # a chip over: what the dealer does, the figures after


def test_a_person_deals_the_smart_table_through_the_payout_and_a_mispay(tablet: Page, tmp_path: Path,
                                                                         demos: list[subprocess.Popen[str]]) -> None:
    # The bots decide at once (their Plays as chips in their Play circles); every payout a chip over: a mispay held.
    # The board scanned every 0.04 s, not 0.1 (as tests/sim's chip demos): its readers settle in 0.24 s, not 0.6.
    proc = demo(tmp_path / "j", "--chips", "--faults", "mispay=1", "--seats", "2", "--seed", "5", "--bot-wait", "0",
                "--chip-scan", str(FAST_SCAN))
    demos.append(proc)
    found = pages_line(proc)
    sign_in(tablet, found["dealer"], found["dealer_name"], found["dealer_pin"])
    shots = Path(os.environ.get("CROUPIER_SCREENSHOTS") or tmp_path)
    shots.mkdir(parents=True, exist_ok=True)
    assert tablet.locator("[data-chips] [data-chip]").count() == 0  # the readers take the bets: no chips to tap
    for seat in (1, 2):  # the bots' chips read in their circles, before anyone deals
        tablet.wait_for_selector(f"[data-seat='{seat}'] [data-circle='ante'][data-chips-read]:not([data-chips-read='0'])")
    open_tray(tablet)  # the Tray dialog's movements: the dealer's hands move their chips, the tray reads them
    tray_difference(tablet, 0)
    assert record(tablet, "buy_in", "100", seat=1) == "done: Buy-in of €100.00 at seat 1 recorded"
    tray_difference(tablet, 0)  # the chips counted out of the tray to the player
    assert record(tablet, "fill", "250", signer=found["floor_name"], pin=found["floor_pin"]) == (
        "done: Fill of €250.00 recorded")
    tray_difference(tablet, 0)  # the fill's chips arrived in the tray
    tablet.tap("#tray-close")
    tablet.wait_for_selector("#deal:not([hidden]):not([disabled])")
    reads = {s: int(tablet.get_attribute(f"[data-seat='{s}'] [data-circle='ante']", "data-chips-read") or 0) for s in (1, 2)}
    tablet.screenshot(path=str(shots / "demo-chips-bets-read.png"))
    tablet.tap("#deal")
    answered(tablet)
    tablet.wait_for_selector(f"{ROOT}[data-phase='showdown']", timeout=120_000)  # the shoe deals, the bots decide
    # the dealer's hands pay every circle its due but one, a chip over: the console names it, due against read
    tablet.wait_for_function("""() => {
      const wrong = [...document.querySelectorAll('#spots [data-chips-due]')]
        .filter((c) => c.dataset.chipsRead !== c.dataset.chipsDue || c.querySelector('.reads.moving'));
      return wrong.length === 1 && Number(wrong[0].dataset.chipsRead) === Number(wrong[0].dataset.chipsDue) + 100
        && !wrong[0].querySelector('.reads.moving') && document.querySelectorAll('[data-mispaid] li').length === 1;
    }""", timeout=60_000)
    line = tablet.inner_text("[data-mispaid] li")
    wrong = MISPAID.match(line)
    assert wrong, line
    circle = tablet.locator(f"[data-seat='{wrong['seat']}'] [data-circle='{wrong['circle'].lower()}']")
    due, read = int(circle.get_attribute("data-chips-due") or -1), int(circle.get_attribute("data-chips-read") or -1)
    assert (wrong["due"], wrong["reads"]) == (money(due), money(read)) and read == due + 100
    tablet.screenshot(path=str(shots / "demo-chips-mispaid.png"))
    tablet.tap("#confirm")
    answered(tablet)
    tablet.wait_for_selector("#fault:not([hidden])")
    assert tablet.inner_text("#fault") == f"{line}, or call a supervisor to accept"
    tablet.screenshot(path=str(shots / "demo-chips-mispay-held.png"))
    tablet.tap("#clear")
    tablet.wait_for_selector("#signoff-what[data-accepted='1']")  # what the sign-off accepts, said before it is sent
    assert tablet.inner_text("#signoff-what") == (f"Seat {wrong['seat']} {wrong['circle']}: due {wrong['due']}, "
                                                  f"reads {wrong['reads']} — paid as read")
    tablet.fill("#signoff input[name=reason]", "the chip over accepted as paid")
    tablet.fill("#signoff input[name=user]", found["floor_name"])
    tablet.fill("#signoff input[name=pin]", found["floor_pin"])
    tablet.tap("#signoff-send")
    answered(tablet)
    tablet.wait_for_selector("#fault", state="hidden")
    tablet.tap("#confirm")
    answered(tablet)
    tablet.context.close()  # done with: the demo's pages then stop at once at its end (tests/web/teardown.py)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0 and "Traceback" not in err, err
    summary = json.loads(out.splitlines()[-1])
    assert (summary["hands"], summary["settled"], summary["faults"]) == (1, 1, 1)
    assert {k: summary["chips"][k] for k in ("injected", "caught")} == {"injected": {"mispay": 1}, "caught": {"mispay": 1}}
    (closed,) = journal(tmp_path / "j")
    assert {s["seat"]: s["bets"]["ante"] for s in closed["round"]["spots"]} == reads  # the bets as the chips read
    accepted = closed["chips"]["override"]["accepted"]
    assert accepted == {f"spot{wrong['seat']}.{wrong['circle'].lower()}": {"due": due, "reads": read}}
    assert closed["chips"]["override"]["signed_off"]["user"] == found["floor_name"]


def test_the_chips_demo_with_a_person_dealing_injects_only_what_a_person_clears() -> None:
    done = subprocess.run([sys.executable, "-m", "cli", "demo", "--chips", "--dealer", "web", "--web", "127.0.0.1:0",
                           "--faults", "mispay=0.1,pinch=0.1"], capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 2 and done.stdout == "" and "Traceback" not in done.stderr
    assert done.stderr.strip() == ("croupier demo: --chips --dealer web injects mispays only (--faults mispay=P): "
                                   "a person clears what the console holds")
