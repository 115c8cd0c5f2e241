"""A trainer unplugs the smart table's chip reader for one hand of the demo: the console says so, the bets and
decisions are tapped and audited as typed, and the reader back takes the next hand's bets from the chips."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from playwright.sync_api import Page

from tests.sim.test_chip_demo import FAST_SCAN
from tests.web.test_demo_dealer import ROOT, answered, decide, demo, demos, journal, pages_line, post_bets, sign_in
from tests.web.test_demo_dealer import tablet, turn

__all__ = ["demos", "tablet"]  # the fixtures this module uses, imported with the helpers

HINT = {"en": ("The chip reader is offline: tap each seat's bets, then deal",
               "The chip readers take each circle's bets: deal when the players are done"),
        "fr": ("Le lecteur de jetons est hors ligne : saisissez les mises de chaque place, puis distribuez",
               "Les lecteurs de jetons prennent les mises de chaque case : distribuez quand les joueurs ont fini")}


def _hint(page: Page, text: str) -> None:
    page.wait_for_function("text => document.getElementById('hint')?.textContent === text", arg=text, timeout=60_000)


def test_the_reader_unplugged_for_a_hand_falls_back_to_taps_audited_then_reads_again(
        tablet: Page, tmp_path: Path, demos: list[subprocess.Popen[str]]) -> None:
    state = tmp_path / "j"
    proc = demo(state, "--chips", "--chip-offline-at", "1", "--hands", "2", "--seats", "2", "--seed", "5",
                "--bot-wait", "0", "--chip-scan", str(FAST_SCAN))
    demos.append(proc)
    found = pages_line(proc)
    sign_in(tablet, found["dealer"], found["dealer_name"], found["dealer_pin"])
    shots = Path(os.environ.get("CROUPIER_SCREENSHOTS") or tmp_path)
    shots.mkdir(parents=True, exist_ok=True)
    _hint(tablet, HINT["en"][0])  # hand 1: the reader unplugged, the taps back
    assert tablet.locator("[data-chips] [data-chip]").count() > 0
    post_bets(tablet, 1, {"ante": [500], "blind": [500]})
    post_bets(tablet, 2, {"ante": [500, 500], "blind": [500, 500]})
    tablet.screenshot(path=str(shots / "demo-chips-offline-bets-en.png"))
    tablet.tap("[data-action='deal']")
    answered(tablet)
    while (step := turn(tablet))[0] != "showdown":  # no bot decides without the reader: the person taps them
        decide(tablet, *step, "play-4" if step[0] == "preflop" else "check")
    assert tablet.locator("[data-mispaid] li").count() == 0  # typed bets: no chip read to check against a due
    tablet.screenshot(path=str(shots / "demo-chips-offline-showdown-en.png"))
    tablet.tap("[data-action='confirm']")
    answered(tablet)
    # the reader back: the bots' chips read in their circles, the console's taps gone again
    _hint(tablet, HINT["en"][1])
    for seat in (1, 2):
        tablet.wait_for_selector(f"[data-seat='{seat}'] [data-circle='ante'][data-chips-read]:not([data-chips-read='0'])",
                                 timeout=60_000)
    assert tablet.locator("[data-chips] [data-chip]").count() == 0
    tablet.wait_for_selector("#deal:not([hidden]):not([disabled])", timeout=60_000)
    tablet.screenshot(path=str(shots / "demo-chips-offline-back-en.png"))
    tablet.tap("#deal")
    answered(tablet)
    tablet.wait_for_selector(f"{ROOT}[data-phase='showdown']", timeout=120_000)  # the bots decide with chips
    tablet.wait_for_function("""() => {  // the dealer's hands pay every circle its due, the readers settle on it
      const due = [...document.querySelectorAll('#spots [data-chips-due]')];
      return due.length > 0 && due.every((c) => c.classList.contains('paid'))
        && document.querySelector('[data-mispaid]').hidden;
    }""", timeout=60_000)
    tablet.tap("[data-action='confirm']")
    answered(tablet)
    tablet.context.close()
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0 and "Traceback" not in err, err
    summary = json.loads(out.splitlines()[-1])
    assert (summary["settled"], summary["faults"]) == (2, 0), summary
    first, second = journal(state)
    assert first["chips"]["source"] == "typed" and second["chips"]["source"] == "chips"
    assert {s["seat"]: s["bets"]["ante"] for s in first["round"]["spots"]} == {1: 500, 2: 1000}  # the taps
    shown = subprocess.run([sys.executable, "-m", "cli", "audit", "show", "--state", str(state), "--json"],
                           capture_output=True, text=True, timeout=120, check=True)
    entries = [json.loads(line) for line in shown.stdout.splitlines() if line.strip()]
    typed = [e for e in entries if e.get("kind") == "bets_typed"]
    assert [e["details"]["hand"] for e in typed] == [first["hand"]], typed
    assert "offline" in typed[0]["details"]["reason"]
    assert summary["chips"]["tray_difference"] == 0, summary  # the offline hand settled by eye at the tray


def test_the_reader_is_unplugged_only_where_a_person_deals_the_smart_table() -> None:
    for args in (["--chips"], ["--dealer", "web", "--web", "127.0.0.1:0"], ["--chips", "--dealer", "web", "--web",
                                                                          "127.0.0.1:0", "--chip-offline-at", "0"]):
        given = ["--chip-offline-at", "2"] if "--chip-offline-at" not in args else []
        done = subprocess.run([sys.executable, "-m", "cli", "demo", *args, *given], capture_output=True, text=True,
                              timeout=60, check=False)
        assert done.returncode == 2 and done.stdout == "" and "Traceback" not in done.stderr, done.stderr
        assert done.stderr.strip() == ("croupier demo: --chip-offline-at takes a hand number (1 or more), with --chips "
                                       "--dealer web")
