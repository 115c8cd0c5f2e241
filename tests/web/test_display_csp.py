"""Every page of the display under its Content-Security-Policy in Chromium (issue 22, 8): each loads and works (the
table live, the console and the surveillance view signed in, the pit, the tournament clock) and the browser reports no
CSP violation, neither as a `securitypolicyviolation` event nor on the console, nor a file missing (404); a page of the display cannot be framed.
"""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, ConsoleMessage, Page

from sim.restarter import end
from tests.web.teardown import screens_closer

WATCH = """window.__csp = [];
document.addEventListener("securitypolicyviolation",
  (e) => window.__csp.push(`${e.violatedDirective} ${e.blockedURI} ${e.sourceFile}:${e.lineNumber}`));"""
CREDENTIALS = re.compile(r"(dealer|supervisor|surveillance) (\S+) PIN (\d+)")


@pytest.fixture
def demo(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[tuple[str, str, dict[str, tuple[str, str]]]]:
    """`croupier demo --dealer web`: a UTH table dealt from the console, its pages; (the display's base, the floor
    pages' base, role -> (user, PIN))."""
    close_screens = screens_closer(request)
    proc = subprocess.Popen([sys.executable, "-m", "cli", "demo", "--dealer", "web", "--web",
                             "127.0.0.1:0", "--quiet", "--game", "uth", "--seats", "2", "--state", str(tmp_path / "j")],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline() if proc.stdout else ""
        assert line.startswith("pages: "), (line, proc.stderr.read() if proc.poll() is not None and proc.stderr else "")
        base, floor = (url.rsplit("/", 1)[0] for url in line.split()[1:3])  # /table, then the floor's /pit
        yield base, floor, {role: (user, pin) for role, user, pin in CREDENTIALS.findall(line)}
    finally:
        close_screens()  # the test's pages first: the demo's then stop at once
        end(proc, 20.0)


def watched(browser: Browser) -> tuple[Page, list[str]]:
    page = browser.new_context(viewport={"width": 1280, "height": 800}).new_page()
    said: list[str] = []

    def console(message: ConsoleMessage) -> None:
        if "Content Security Policy" in message.text or "Refused to" in message.text:
            said.append(message.text)
        if "status of 404" in message.text:  # a file a page asks for and nobody serves (the icon, once)
            said.append(f"{message.text}: {message.location.get('url')}")

    page.on("console", console)
    page.add_init_script(WATCH)  # Playwright's init scripts are the browser's, not the page's: CSP lets them run
    return page, said


def sign_in(page: Page, who: tuple[str, str]) -> None:
    page.wait_for_selector("[data-signin]")
    page.fill("[data-signin] input[name=user]", who[0])
    page.fill("[data-signin] input[name=pin]", who[1])
    page.click("[data-signin] button[type=submit]")


def test_every_page_works_under_its_csp_with_no_violation(demo: tuple[str, str, dict[str, tuple[str, str]]],
                                                          browser: Browser) -> None:
    base, floor, people = demo
    assert {"dealer", "surveillance"} <= set(people), people
    page, said = watched(browser)
    try:
        seen: dict[str, list[str]] = {}
        page.goto(f"{base}/table")
        page.wait_for_selector("main[data-table='sim-uth-1'][data-phase]:not([data-phase=''])", timeout=30_000)
        seen["/table"] = page.evaluate("window.__csp")
        page.goto(f"{floor}/pit")  # the floor's pages (`croupier pit web`), under the same policy
        page.wait_for_selector("[data-table='sim-uth-1'][data-hand]:not([data-offline])", timeout=30_000)
        seen["/pit"] = page.evaluate("window.__csp")
        page.goto(f"{floor}/tournament")
        page.wait_for_selector("[data-tournament][data-status='none']", timeout=30_000)
        seen["/tournament"] = page.evaluate("window.__csp")
        page.goto(f"{base}/dealer")
        sign_in(page, people["dealer"])
        page.wait_for_selector("#console[data-phase='bets']", timeout=30_000)  # the console's socket is open
        page.wait_for_selector("#chips button", timeout=30_000)
        seen["/dealer"] = page.evaluate("window.__csp")
        with page.expect_navigation():  # the console reloads once signed out: then go on
            page.click("[data-action='signout']")
        page.wait_for_selector("[data-signin]")
        page.goto(f"{base}/surveillance")
        sign_in(page, people["surveillance"])
        page.wait_for_selector("#table[data-seq]", timeout=30_000)  # the full feed is live
        seen["/surveillance"] = page.evaluate("window.__csp")
        # a page of another origin (about:blank's) may not frame the console: the frame shows the browser's error
        framed = page.context.new_page()
        framed.set_content(f"<iframe src='{base}/dealer' onload='this.dataset.loaded = 1'></iframe>")
        framed.wait_for_selector("iframe[data-loaded]", state="attached")  # its document, or the browser's error
        seen["framed"] = [url for url in (f.url for f in framed.frames[1:]) if url.startswith(base)]
    finally:
        page.context.close()
    assert seen == {name: [] for name in seen}, seen
    assert said == [], said
