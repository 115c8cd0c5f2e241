"""Every page as a person meets it, in both languages: axe-core (the npm package, injected into the page) finds no
serious or critical violation, and a French page shows no catalog key and no English sentence of the catalog (as it
is, or with its fields filled in).

The pages come from `croupier demo --dealer web` (the players' screen, the pit, the dealer console's sign-in and the
console signed in, surveillance's sign-in and its dashboard), a house game's and a poker game's table each, at the
console's size and the players' screen's (the latter in `make test` for the house game in English and poker in French,
in `make soak` for the other two). The tournament clock is checked in tests/web/test_tournament_page.py; the
poker console's actions and shown hands in French in tests/web/test_dealer_poker.py.
"""

from __future__ import annotations

import functools
import re
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page

from pages import words

AXE = Path(__file__).resolve().parents[2] / "node_modules" / "axe-core" / "axe.min.js"
SIZES = ((1280, 800), (1920, 1080))
KEY = re.compile(r"^[a-z_0-9]+\.[a-z_0-9]+$")


class Demo:
    """`croupier demo --dealer web` in one language: its pages and the console's demo credentials."""

    def __init__(self, game: str, lang: str, tmp: Path) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "cli", "demo", "--game", game, "--dealer", "web", "--web",
             "127.0.0.1:0", "--language", lang, "--hands", "400", "--pace", "0.2", "--bot-wait", "0.5",
             "--state", str(tmp / f"{game}-{lang}")], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        self.line = ""
        for _ in range(200):
            self.line = self.proc.stdout.readline() if self.proc.stdout else ""
            if not self.line or self.line.startswith("pages:"):
                break
        assert self.line.startswith("pages:"), f"croupier demo printed no pages line: {self.line!r}"
        self.base = re.search(r"(http://[^/ ]+)", self.line).group(1)  # type: ignore[union-attr]
        self.pit = re.search(r"(http://\S+/pit)\b", self.line).group(1)  # type: ignore[union-attr]  # the floor's pages
        self.people = {m[1]: (m[0], m[2]) for m in re.findall(r"(\w+) (\S+) PIN (\d+)", self.line)}

    def user(self, role: str) -> tuple[str, str]:
        return next((name, pin) for name, (r, pin) in self.people.items() if r == role)

    def stop(self) -> None:
        self.proc.send_signal(signal.SIGINT)
        try:
            self.proc.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.communicate()


@pytest.fixture(scope="module")
def demos(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Callable[[tuple[str, str]], Demo]]:
    """`demos((game, language))`: that demo, started at its first test and kept for the next ones of the same game and
    language (the cases are listed together), stopped when another is asked for and at the module's end."""
    running: dict[tuple[str, str], Demo] = {}

    def get(key: tuple[str, str]) -> Demo:
        if key not in running:
            for other in running.values():
                other.stop()
            running.clear()
            running[key] = Demo(*key, tmp_path_factory.mktemp("demo"))
        return running[key]

    yield get
    for other in running.values():
        other.stop()


@pytest.fixture
def demo(request: pytest.FixtureRequest, demos: Callable[[tuple[str, str]], Demo]) -> Demo:
    """The demo of the (game, language) the test is given (`demos`: one for both its sizes)."""
    return demos(request.param)


@functools.cache
def axe_source() -> str:
    if not AXE.is_file():
        pytest.fail(f"{AXE} is missing: `make node_modules/axe-core/axe.min.js` (or `npm ci`) installs axe-core")
    return AXE.read_text(encoding="utf-8")


def axe_violations(page: Page) -> list[dict[str, Any]]:
    """axe-core's serious and critical violations on the page as it stands."""
    if not page.evaluate("() => typeof window.axe === 'object'"):
        # evaluated by the browser's devtools protocol, which the pages' Content-Security-Policy (no inline script)
        # does not stop, where `page.add_script_tag` would be (the contexts here also bypass it, for any other test)
        page.evaluate(axe_source() + "\n;0")
    found: list[dict[str, Any]] = page.evaluate("""async () => {
      const result = await window.axe.run(document, { resultTypes: ["violations"] });
      return result.violations.filter((v) => v.impact === "serious" || v.impact === "critical")
        .map((v) => ({ id: v.id, impact: v.impact, help: v.help,
                       nodes: v.nodes.slice(0, 5).map((n) => n.target.join(" ") + " :: " + n.failureSummary) }));
    }""")
    return found


def english_left(page: Page) -> list[str]:
    """What a French page shows that is a catalog key or an English word of the catalog (one French has otherwise), and
    the words it asked for that its catalog lacks (words.js leaves them out: listed on <html data-words-missing>)."""
    texts: list[str] = page.evaluate("""() => {
      const out = [];
      const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
      for (let n = walker.nextNode(); n; n = walker.nextNode()) {
        const el = n.parentElement;
        if (!el || el.closest("[hidden], script, style, dialog:not([open])")) continue;
        const text = n.textContent.trim();
        if (text) out.push(text);
      }
      for (const el of document.querySelectorAll("[aria-label], [placeholder], [title]")) {
        for (const a of ["aria-label", "placeholder", "title"]) if (el.getAttribute(a)) out.push(el.getAttribute(a));
      }
      return out;
    }""")
    english, french = words.catalogs()["en"], words.catalogs()["fr"]
    foreign = {text for key, text in english.items()
               if text != french[key] and "{" not in text and len(text) > 3 and not key.startswith(("meta.", "game."))}
    missing = (page.get_attribute("html", "data-words-missing") or "").split()
    return sorted({t for t in texts if KEY.match(t) or t in foreign or any(p.fullmatch(t) for p in english_templates())}
                  | {f"missing {key}" for key in missing})


@functools.cache
def english_templates() -> tuple[re.Pattern[str], ...]:
    """The English catalog's sentences with fields ("Seat {seat}", "calls {amount}") as patterns of a whole text,
    those whose own words (4 letters or more) French says otherwise: a French page showing one is English left."""
    english, french = words.catalogs()["en"], words.catalogs()["fr"]
    out = []
    for key, text in english.items():
        if "{" not in text or text == french[key] or key.startswith(("meta.", "game.")):
            continue
        literal = re.sub(r"\{[a-z_0-9]+\}", " ", text)
        if len(re.sub(r"[^A-Za-z]", "", literal)) < 4 or not re.search(r"[A-Za-z]{4}", literal):
            continue
        parts = re.split(r"\{[a-z_0-9]+\}", text)
        out.append(re.compile(".+?".join(re.escape(part) for part in parts), re.DOTALL))
    return tuple(out)


def check(page: Page, lang: str, where: str, ready: str) -> None:
    """The page once `ready` (a selector of its live content) is there and its words are in `lang`."""
    page.wait_for_selector(f"html[lang='{lang}'] {ready}")
    found = axe_violations(page)
    assert found == [], f"{where}: {found}"
    if lang == "fr":
        assert english_left(page) == [], where


def sign_in(page: Page, user: tuple[str, str]) -> None:
    form = page.locator("[data-signin]")
    form.locator("input[name='user']").fill(user[0])
    form.locator("input[name='pin']").fill(user[1])
    form.locator("button[type='submit']").click()
    page.wait_for_selector("[data-signin]", state="detached")


def _case(game: str, lang: str, size: tuple[int, int], soak: bool = False) -> Any:
    marks = [pytest.mark.soak] if soak else []
    return pytest.param((game, lang), size, marks=marks, id=f"{game}-{lang}-{size[0]}x{size[1]}")


# every game and language at the console's size; the players' screen's size in each language and for each game once in
# `make test` (English for the house game, French for poker), the other two in `make soak`
CASES = [_case("uth", "en", SIZES[0]), _case("uth", "en", SIZES[1]), _case("uth", "fr", SIZES[0]),
         _case("uth", "fr", SIZES[1], soak=True), _case("holdem", "fr", SIZES[0]), _case("holdem", "fr", SIZES[1]),
         _case("holdem", "en", SIZES[0]), _case("holdem", "en", SIZES[1], soak=True)]


@pytest.mark.parametrize(("demo", "size"), CASES, indirect=["demo"])
def test_every_page_is_accessible_and_in_its_language(demo: Demo, browser: Browser, size: tuple[int, int]) -> None:
    lang = re.search(r"--language (\w+)", " ".join(demo.proc.args)).group(1)  # type: ignore[arg-type, union-attr]
    context = browser.new_context(viewport={"width": size[0], "height": size[1]}, bypass_csp=True)
    try:
        page = context.new_page()
        page.goto(f"{demo.base}/table")
        check(page, lang, "/table", "[data-table][data-hand]:not([data-hand=''])")
        page.goto(demo.pit)
        check(page, lang, "/pit", "[data-pit] .tile[data-hand]:not([data-hand='']):not(.stale)")
        page.goto(f"{demo.base}/dealer")
        check(page, lang, "/dealer's sign-in", "[data-signin]")
        sign_in(page, demo.user("dealer"))
        check(page, lang, "/dealer", "#console:not([hidden])")
        page.goto(f"{demo.base}/surveillance")
        check(page, lang, "/surveillance's sign-in", "[data-signin]")
        sign_in(page, demo.user("surveillance"))
        check(page, lang, "/surveillance", "#view:not([hidden]) #devices:not(:empty)")
        if lang == "fr":  # the devices' line in words (the shoe, online), never the feed's own names
            devices = page.locator("#devices").inner_text()
            assert re.match(r"Sabot .* en ligne", devices), devices
    finally:
        context.close()
