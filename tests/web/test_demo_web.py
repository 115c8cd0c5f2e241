"""`croupier demo --web`: the pages' address first, the table display and the pit in Chromium while it plays, a taken port said and avoided, the summary line last."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page

from tests.firmware_host.processes import wait_for


def demo(*args: str) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "cli", "demo", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def test_the_demo_serves_its_table_to_the_browser_and_prints_the_pages_first(page: Page, tmp_path: Path) -> None:
    # 2 hands at 0.1 s a step: the pages are opened while it plays (3 s a hand), the summary line counts them both
    proc = demo("--hands", "2", "--seed", "7", "--pace", "0.1", "--web", "127.0.0.1:0", "--state", str(tmp_path / "j"))
    try:
        assert proc.stdout is not None
        first = proc.stdout.readline()
        assert first.startswith("pages: "), first
        table_url, pit_url = first.split()[1:3]
        assert table_url.endswith("/table") and pit_url.endswith("/pit")
        page.goto(pit_url)
        page.wait_for_selector("[data-table='sim-uth-1'][data-hand]:not([data-offline])")
        page.goto(table_url)
        page.wait_for_selector("main[data-table='sim-uth-1'] [data-card]")  # cards dealt, live
        page.context.close()  # seen: the demo's pages then stop at once at its end (tests/web/teardown.py)
        out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, err
    summary = json.loads(out.splitlines()[-1])  # the summary is still the last line
    assert summary["hands"] == summary["settled"] == 2


def test_a_taken_port_is_said_and_the_pages_go_to_a_free_one() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = subprocess.run([sys.executable, "-m", "cli", "demo", "--hands", "1", "--web",
                               f"127.0.0.1:{port}"], capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert f"127.0.0.1:{port} is taken" in done.stderr and "Traceback" not in done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("pages: http://127.0.0.1:") and f":{port}/" not in lines[0]
    assert json.loads(lines[-1])["hands"] == 1


def test_a_bad_web_address_is_refused_and_off_serves_nothing() -> None:
    bad = subprocess.run([sys.executable, "-m", "cli", "demo", "--web", "8080"], capture_output=True,
                         text=True, timeout=60, check=False)
    assert bad.returncode == 2 and "--web must be HOST:PORT or off" in bad.stderr and "Traceback" not in bad.stderr
    off = subprocess.run([sys.executable, "-m", "cli", "demo", "--hands", "1", "--web", "off",
                          "--quiet"], capture_output=True, text=True, timeout=120, check=False)
    assert off.returncode == 0 and len(off.stdout.splitlines()) == 1 and "pages" not in off.stdout


def pages_line(proc: subprocess.Popen[str]) -> tuple[dict[str, str], dict[str, str]]:
    """The demo's first line: its pages by their path's last part, and each demo user's PIN by name."""
    assert proc.stdout is not None
    first = proc.stdout.readline()
    assert first.startswith("pages: "), (first, proc.poll(), proc.stderr.read()[-3000:] if proc.poll() is not None
                                         and proc.stderr is not None else "")
    urls = {url.rsplit("/", 1)[1]: url for url in first.split() if url.startswith("http")}
    pins = {name: pin for name, pin in re.findall(r"(demo-[a-z]+) PIN (\d{6})", first)}
    return urls, pins


def signed_in(page: Page, url: str, user: str, pin: str) -> None:
    page.goto(url)
    page.fill("[data-signin] input[name=user]", user)
    page.fill("[data-signin] input[name=pin]", pin)
    page.click("[data-signin] button[type=submit]")


@pytest.mark.parametrize("secure", [True, False], ids=["secure", "plain"])
def test_the_demo_s_surveillance_user_sees_the_full_feed_and_sigterm_ends_with_the_summary(
        page: Page, secure: bool) -> None:
    # without --secure (`make demo`) the recall of the last hands too: the demo lets its local role read them
    temp = Path(tempfile.mkdtemp(prefix="crp-demo-"))  # short: the demo's ipc endpoints go under it (107 bytes)
    proc = subprocess.Popen([sys.executable, "-m", "cli", "demo", "--hands", "500", "--pace", "0.02",
                             *(["--secure"] if secure else []), "--web", "127.0.0.1:0", "--quiet"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env={**os.environ, "TMPDIR": str(temp)})
    try:
        urls, pins = pages_line(proc)
        assert set(urls) == {"table", "pit", "surveillance"} and set(pins) == {"demo-eye"}
        signed_in(page, urls["surveillance"], "demo-eye", pins["demo-eye"])
        # the full feed over CURVE with the demo's surveillance key: the hole cards as dealt, never "??"
        page.wait_for_selector("#spots [data-seat] [data-card]", timeout=60_000)
        assert "??" not in page.eval_on_selector_all("#spots [data-card]", "els => els.map(e => e.dataset.card)")
        page.wait_for_selector("[data-steps] li[data-step='card']")
        page.wait_for_function("() => document.querySelector('[data-history]').dataset.hands", timeout=60_000)  # one closed
        assert any(temp.iterdir())  # its temporary state, while it plays
        page.context.close()  # seen: its pages then stop at once (a display's stop with a screen open: test_display_bridge)
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
            shutil.rmtree(temp, ignore_errors=True)
    assert proc.returncode == 143, err
    summary = json.loads(out.splitlines()[-1])  # the hands closed so far
    assert summary["hands"] == summary["settled"] >= 1 and "Traceback" not in err
    assert not any(temp.iterdir())  # the temporary state removed
    temp.rmdir()


def test_sigterm_keeps_a_state_given(tmp_path: Path) -> None:
    proc = demo("--hands", "500", "--pace", "0.02", "--web", "off", "--quiet", "--state", str(tmp_path / "j"))
    try:
        wait_for(lambda: closed_hands(tmp_path / "j", starting=True), "a first hand closed in the journal given",
                 timeout_s=60)
        proc.send_signal(signal.SIGTERM)  # mid-run: 500 hands asked
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 143, err
    hands = json.loads(out.splitlines()[-1])["hands"]
    assert 1 <= hands < 500 and closed_hands(tmp_path / "j") == hands  # the state kept, every hand closed in it


def closed_hands(state: Path, starting: bool = False) -> int:
    """The hands closed in the journal in `state` (0 before it exists; `starting`: 0 while the demo is still
    making it, its file there before its tables)."""
    import sqlite3

    from firmware_host.service.journal import Journal, JournalError

    if not (state / "journal.sqlite3").exists():
        return 0
    try:
        journal = Journal.open(state, readonly=True)
        try:
            return len(journal.hands())
        finally:
            journal.close()
    except (sqlite3.Error, JournalError):
        if starting:
            return 0
        raise


def test_the_demo_deals_poker_from_the_dealer_console(page: Page) -> None:
    proc = demo("--game", "holdem", "--seats", "2", "--dealer", "web", "--hands", "1", "--web", "127.0.0.1:0",
                "--quiet")
    try:
        urls, pins = pages_line(proc)
        assert {"dealer", "surveillance"} <= set(urls) and {"demo-dealer", "demo-floor", "demo-eye"} == set(pins)
        page.set_viewport_size({"width": 1280, "height": 800})
        signed_in(page, urls["dealer"], "demo-dealer", pins["demo-dealer"])
        page.wait_for_selector("[data-poker] [data-action='deal']", timeout=30_000).click()
        for _ in range(40):  # every player's action at the console; the emulated shoe deals each card
            page.wait_for_selector("[data-poker]:not([data-busy]) :is([data-action='check'], [data-action='call'], "
                                   "[data-action='show'], [data-action='confirm'])", timeout=30_000)
            seq = int(page.get_attribute("[data-poker]", "data-seq") or 0)
            button = page.locator("[data-poker] :is([data-action='check'], [data-action='call'], "
                                  "[data-action='show'], [data-action='confirm'])").first
            action = button.get_attribute("data-action")
            button.click()
            if action == "confirm":
                page.wait_for_selector("[data-poker]:not([data-busy])", state="attached")  # answered
                page.context.close()  # the pages then stop at once at the demo's end (tests/web/teardown.py)
                break
            # the buttons on screen are the last state's until the state the tap made is drawn (a new seq)
            page.wait_for_function("(seq) => Number(document.querySelector('[data-poker]').dataset.seq) > seq",
                                   arg=seq, timeout=30_000)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, err
    summary = json.loads(out.splitlines()[-1])
    assert summary["hands"] == summary["settled"] == 1 and summary["chips_conserved"] is True


def test_the_tournament_demo_serves_the_clock_and_each_table(page: Page, browser: Browser) -> None:
    proc = demo("--tournament", "--players", "4", "--tables", "2", "--seed", "3", "--web", "127.0.0.1:0",
                "--language", "fr")
    try:
        assert proc.stdout is not None
        first = proc.stdout.readline()
        assert first.startswith("pages: "), first
        clock, t1, t2, pit = first.split()[1:]
        assert clock.endswith("/tournament") and t1.endswith("/table?table=T1") and t2.endswith("/table?table=T2")
        assert pit.endswith("/pit")
        page.goto(clock)
        # the demo's clock runs 60 times the room's (sim/tournament/director.py SPEED): a level lasts 10 s, so on a
        # loaded machine the first the page shows may be any level; its words are read in one look, with its level
        running = page.wait_for_function(
            "() => { const c = document.querySelector(\"[data-tournament][data-status='running']\");"
            " return c && {level: c.dataset.level, name: c.querySelector('[data-level-name]').innerText,"
            " status: c.querySelector('[data-status-text]').innerText}; }", timeout=60_000).json_value()
        assert "Demo" in page.inner_text("[data-name]")  # in French: the clock's words, the chips as the French write them
        assert running["level"].isdigit() and running == {"level": running["level"], "name": f"NIVEAU {running['level']}",
                                                          "status": "EN COURS"}
        assert " sur 4" in page.inner_text("[data-players]") and "DOTATION" in page.inner_text("[data-tournament]")
        table = browser.new_page()
        table.goto(t2)
        table.wait_for_selector("main[data-table='T2'][data-hand]:not([data-hand=''])", timeout=60_000)
        # the director's level and clock on the table's own screen (its feed bridged by the display), counting down:
        # whichever level it is by then (10 s each), the words' level is the line's own
        table.wait_for_function("() => { const line = document.querySelector('.p-level[data-level]');"
                                " const m = /^Niveau (\\d+) \u00b7 .*\\d+:\\d\\d/.exec(line?.textContent ?? '');"
                                " return m !== null && m[1] === line.dataset.level; }", timeout=60_000)
        table.close()
        page.context.close()  # seen: its pages then stop at once (tests/web/teardown.py)
        proc.send_signal(signal.SIGTERM)  # played to its winner elsewhere (test_sim_tournament_devices): stop it here
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 143, err  # ended by SIGTERM, as the table's demo
    line = json.loads(out.splitlines()[-1])  # the summary line all the same
    assert line == {"entries": 4, "tables": 2, "stopped": "SIGTERM"}
