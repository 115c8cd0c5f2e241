"""`croupier demo --dealer web` in Chromium: a UTH hand played entirely from /dealer with the printed demo credentials, the bots yielding to the console, the summary and the journal as the page's payout prompts."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page

from tests.firmware_host.processes import croupier_here
from tests.web.money import shown as money
from sim.bots.players import BotPlayer
from sim.bots.table import SimLimits

ROOT = "#console"
PAGES = re.compile(r"^pages: (?P<table>\S+/table) (?P<pit>\S+/pit) (?P<surveillance>\S+/surveillance) (?P<dealer>\S+/dealer) "
                   r"\(demo credentials: dealer (?P<dealer_name>\S+) PIN (?P<dealer_pin>\d+), supervisor (?P<floor_name>\S+) "
                   r"PIN (?P<floor_pin>\d+), surveillance (?P<eye_name>\S+) PIN (?P<eye_pin>\d+)\)$")


def demo(state: Path, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "cli", "demo", "--dealer", "web", "--web", "127.0.0.1:0",
                             "--quiet", "--hands", "1", "--game", "uth", "--state", str(state), *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


@pytest.fixture
def tablet(browser: Browser) -> Iterator[Page]:
    """A page at the 10" tablet's size, 1280x800, touch."""
    context = browser.new_context(viewport={"width": 1280, "height": 800}, has_touch=True)
    yield context.new_page()
    context.close()


@pytest.fixture
def demos() -> Iterator[list[subprocess.Popen[str]]]:
    """The demos a test starts: each killed if it is still running at the end."""
    procs: list[subprocess.Popen[str]] = []
    yield procs
    for proc in procs:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def pages_line(proc: subprocess.Popen[str]) -> re.Match[str]:
    assert proc.stdout is not None
    first = proc.stdout.readline()
    found = PAGES.match(first.strip())
    assert found, (first, proc.stderr.read() if proc.poll() is not None and proc.stderr else "")
    return found


def sign_in(page: Page, url: str, user: str, pin: str) -> None:
    page.goto(url)
    page.fill("[data-signin] input[name=user]", user)
    page.fill("[data-signin] input[name=pin]", pin)
    page.click("[data-signin] button[type=submit]")
    # The pages line comes before the controller is up: on a loaded machine its start takes a while.
    page.wait_for_selector(f"{ROOT}[data-phase='bets']", timeout=120_000)


def answered(page: Page) -> None:
    """The command in flight is answered, and not refused."""
    page.wait_for_selector(f"{ROOT}:not([data-waiting])", state="attached")
    assert page.locator("[data-refusal]").count() == 0, page.locator("#refusal").inner_text()


def post_bets(page: Page, seat: int, bets: dict[str, list[int]]) -> None:
    """Tap a spot's circles and chips, then `Bet`; wait until the feed shows the stakes (the Blind follows the
    Ante as it is tapped: a Blind equal to the Ante is not tapped)."""
    for circle, chips in bets.items():
        if circle == "blind" and sum(chips) == sum(bets.get("ante", [])):
            continue
        page.tap(f"[data-seat='{seat}'] [data-circle='{circle}']")
        for chip in chips:
            page.tap(f"[data-chips] [data-chip='{chip}']")
    page.tap(f"[data-seat='{seat}'] [data-action='bet']")
    answered(page)
    for circle, chips in bets.items():
        page.wait_for_function("([sel, text]) => document.querySelector(sel)?.textContent === text",
                               arg=[f"[data-seat='{seat}'] [data-circle='{circle}']:not(.draft) .stake",
                                    money(sum(chips))])


def turn(page: Page) -> tuple[str, int]:
    """Wait for the next thing the page is to do: a spot's decision (phase, seat) or the showdown."""
    page.wait_for_function("() => { const r = document.getElementById('console');"
                           " return !r.dataset.waiting && (r.dataset.phase === 'showdown'"
                           " || (r.dataset.toAct !== '' && document.querySelector('[data-decisions] button'))); }")
    return page.get_attribute(ROOT, "data-phase") or "", int(page.get_attribute(ROOT, "data-to-act") or 0)


def decide(page: Page, phase: str, seat: int, action: str) -> None:
    page.tap(f"[data-decisions] [data-action='{action}'][data-seat='{seat}']")
    answered(page)
    page.wait_for_function("([phase, seat]) => { const r = document.getElementById('console');"
                           " return r.dataset.phase !== phase || r.dataset.toAct !== String(seat); }", arg=[phase, seat])


def prompts(page: Page) -> dict[tuple[int, str], int]:
    """The payout prompts: (seat, circle) -> the player's net the prompt says."""
    out: dict[tuple[int, str], int] = {}
    for line in page.locator("#spots [data-payout]").all():
        seat = int(line.locator("xpath=ancestor::*[@data-seat][1]").get_attribute("data-seat") or 0)
        net = int(line.get_attribute("data-net") or 0)
        words = line.inner_text()
        name = line.get_attribute("data-payout") or ""
        said = f"pays {money(net)}" if net > 0 else (
            f"loses {money(-net)}" if net < 0 else "pushes")
        assert said in words, (name, net, words)
        out[(seat, name)] = net
    return out


def confirm_and_finish(page: Page, proc: subprocess.Popen[str]) -> tuple[dict[tuple[int, str], int], dict[str, Any]]:
    """At the showdown: read the prompts, tap confirm; the demo ends. The prompts and its summary line."""
    shown = prompts(page)
    assert shown, "no payout prompt at the showdown"
    page.tap("[data-action='confirm']")
    answered(page)
    page.context.close()  # done with: the demo's pages then stop at once at its end (tests/web/teardown.py)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    assert "Traceback" not in err, err
    return shown, json.loads(out.splitlines()[-1])


def journal(state: Path) -> list[dict[str, Any]]:
    """Every finished hand as `croupier history --json` prints it (run in this process: the same code, no start-up)."""
    done = croupier_here("history", "--state", str(state), "--last", "0", "--json")
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in done.stdout.splitlines() if line.strip()]


def nets(record: dict[str, Any]) -> dict[tuple[int, str], int]:
    return {(s["seat"], circle): net for s in record["settlement"]["spots"] for circle, net in s["results"].items()}


def test_a_uth_hand_played_entirely_from_the_console_of_the_demo(tablet: Page, tmp_path: Path,
                                                                 demos: list[subprocess.Popen[str]]) -> None:
    # The bots wait 10 minutes for the console: every spot here is the page's, so they never act.
    proc = demo(tmp_path / "j", "--seats", "2", "--seed", "5", "--bot-wait", "600")
    demos.append(proc)
    found = pages_line(proc)
    assert found["dealer_name"] == "demo-dealer" and found["floor_name"] == "demo-floor"
    sign_in(tablet, found["dealer"], found["dealer_name"], found["dealer_pin"])
    assert tablet.locator("[data-decisions] button").count() == 0
    hand = int(tablet.get_attribute(ROOT, "data-hand") or 0)
    post_bets(tablet, 1, {"ante": [500], "blind": [500], "trips": [100]})
    post_bets(tablet, 2, {"ante": [500, 500], "blind": [500, 500]})
    tablet.tap("[data-action='deal']")  # the shoe deals each card when the controller expects it
    answered(tablet)
    plays = {1: {"preflop": "check", "flop": "check", "river": "play-1"}, 2: {"preflop": "play-4"}}
    seen: list[tuple[str, int]] = []
    shots = Path(os.environ.get("CROUPIER_SCREENSHOTS") or tmp_path)
    shots.mkdir(parents=True, exist_ok=True)
    while (step := turn(tablet))[0] != "showdown":
        seen.append(step)
        decide(tablet, *step, plays[step[1]][step[0]])
    assert seen == [("preflop", 1), ("preflop", 2), ("flop", 1), ("river", 1)]
    tablet.screenshot(path=str(shots / "demo-dealer-payouts.png"))
    shown, summary = confirm_and_finish(tablet, proc)
    assert summary["settled"] == 1 and summary["hands"] == 1 and summary["voided"] == 0
    (record,) = journal(tmp_path / "j")
    assert record["hand"] == hand and record["status"] == "settled"
    assert nets(record) == shown
    assert summary["house_net"] == record["settlement"]["house_net"]
    assert {s["seat"]: s["bets"].get("trips", 0) for s in record["round"]["spots"]} == {1: 100, 2: 0}


def test_the_bots_play_the_spots_the_console_leaves_alone(tablet: Page, tmp_path: Path,
                                                          demos: list[subprocess.Popen[str]]) -> None:
    proc = demo(tmp_path / "j", "--seats", "2", "--seed", "9", "--bot-wait", "1")
    demos.append(proc)
    found = pages_line(proc)
    sign_in(tablet, found["dealer"], found["dealer_name"], found["dealer_pin"])
    hand = int(tablet.get_attribute(ROOT, "data-hand") or 0)
    post_bets(tablet, 1, {"ante": [500, 500], "blind": [500, 500]})  # seat 1 is the console's
    bot = BotPlayer(2, 9).bets("uth", hand, SimLimits())  # seat 2 the bot's: it bets after its second
    tablet.wait_for_function("([sel, text]) => document.querySelector(sel)?.textContent === text",
                             arg=["[data-seat='2'] [data-circle='ante']:not(.draft) .stake",
                                  money(bot["ante"])])
    tablet.tap("[data-action='deal']")
    answered(tablet)
    mine: list[tuple[str, int]] = []
    while (step := turn(tablet))[0] != "showdown":
        if step[1] == 1:  # the bot of seat 2 decides its own; the page waits its turn out
            mine.append(step)
            decide(tablet, *step, {"preflop": "check", "flop": "check", "river": "fold"}[step[0]])
        else:
            tablet.wait_for_function("() => document.getElementById('console').dataset.toAct !== '2'")
    assert mine == [("preflop", 1), ("flop", 1), ("river", 1)]  # the bot never decided for the console's spot
    shown, summary = confirm_and_finish(tablet, proc)
    assert summary["settled"] == 1
    (record,) = journal(tmp_path / "j")
    spots = {s["seat"]: s for s in record["round"]["spots"]}
    assert {k: v for k, v in spots[2]["bets"].items() if k != "play"} == bot
    assert spots[1]["bets"] == {"ante": 1000, "blind": 1000}
    assert nets(record) == shown
    assert nets(record)[(1, "ante")] == -1000  # seat 1 folded at the river, as the page said


def test_sigint_ends_the_demo_with_the_summary_of_the_hands_closed(tablet: Page, tmp_path: Path,
                                                                   demos: list[subprocess.Popen[str]]) -> None:
    proc = demo(tmp_path / "j", "--seats", "2", "--seed", "3", "--bot-wait", "0", "--hands", "5")
    demos.append(proc)
    found = pages_line(proc)
    sign_in(tablet, found["dealer"], found["dealer_name"], found["dealer_pin"])
    hand = int(tablet.get_attribute(ROOT, "data-hand") or 0)
    for seat in (1, 2):  # the bots bet at once; nobody deals but the console
        tablet.wait_for_function("([sel, text]) => document.querySelector(sel)?.textContent === text",
                                 arg=[f"[data-seat='{seat}'] [data-circle='ante']:not(.draft) .stake",
                                      money(BotPlayer(seat, 3).bets("uth", hand, SimLimits())["ante"])])
    assert tablet.get_attribute(ROOT, "data-phase") == "bets"
    tablet.context.close()  # seen: its pages then stop at once (a display's stop with a screen open: test_display_bridge)
    proc.send_signal(signal.SIGINT)
    try:
        out, err = proc.communicate(timeout=60)
    except subprocess.TimeoutExpired:  # hung: where each thread is, then fail with it (seen once, under load)
        proc.send_signal(signal.SIGUSR1)
        try:
            proc.communicate(timeout=3)
        except subprocess.TimeoutExpired as stuck:
            proc.kill()
            pytest.fail(f"the demo did not end within 60 s of SIGINT; its threads:\n{stuck.stderr}")
        raise
    assert proc.returncode == 130 and "Traceback" not in err, err
    assert json.loads(out.splitlines()[-1]) == {"hands": 0, "settled": 0, "voided": 0, "faults": 0, "house_net": 0}


def test_dealer_web_needs_the_pages() -> None:
    for extra in (["--web", "off"], ["--quiet"], ["--web", "127.0.0.1:0", "--kill", "2"]):
        done = subprocess.run([sys.executable, "-m", "cli", "demo", "--dealer", "web", *extra],
                              capture_output=True, text=True, timeout=60, check=False)
        assert done.returncode == 2, (extra, done.stderr)
        assert done.stderr.startswith("croupier demo: ") and "Traceback" not in done.stderr and done.stdout == ""
    said = subprocess.run([sys.executable, "-m", "cli", "demo", "--dealer", "web", "--web", "off"],
                          capture_output=True, text=True, timeout=60, check=False).stderr
    assert "--dealer web needs the pages" in said
