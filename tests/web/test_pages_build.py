"""The pages and their words are always of one version: a web process serves the static tree and the words it read at
its start, stamped with one build id; a page of another build reloads, and a word missing never shows as its key."""

from __future__ import annotations

import asyncio
import json
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from aiohttp.test_utils import TestServer
from playwright.sync_api import Page, Route

from pages import app
from pages.words import words_for
from tests.web import test_chip_circles
from tests.web.test_chip_circles import BASE, serve, states


def run(coroutine: Any) -> Any:
    """`asyncio.run` on a thread of its own (Playwright may keep a loop on this one in a browser-test session)."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coroutine).result()


async def _get(base: str, path: str, headers: dict[str, str] | None = None) -> tuple[int, str, dict[str, str]]:
    async with aiohttp.ClientSession() as http, http.get(base + path, headers=headers or {}) as reply:
        return reply.status, await reply.text(), {k.lower(): v for k, v in reply.headers.items()}


def test_the_process_serves_the_tree_it_read_at_its_start_and_its_build(tmp_path: Path) -> None:
    """Found: static files updated on disk while the display ran were served at once beside the words it had read at
    its start: a console of the new modules showed `console.chips_settling`, a word the old catalog lacked."""
    (tmp_path / "page.html").write_text("<p>one</p>", encoding="utf-8")
    (tmp_path / "page.js").write_text("// one\n", encoding="utf-8")

    async def scene() -> dict[str, Any]:
        async with TestServer(app.make_app(tmp_path), host="127.0.0.1") as ts:
            base = str(ts.make_url("")).rstrip("/")
            first = await _get(base, "/static/page.js")
            (tmp_path / "page.js").write_text("// two\n", encoding="utf-8")  # an update on disk, the process not restarted
            (tmp_path / "new.js").write_text("// new\n", encoding="utf-8")
            return {"first": first, "after": await _get(base, "/static/page.js"),
                    "new": (await _get(base, "/static/new.js"))[0],
                    "again": await _get(base, "/static/page.js", {"If-None-Match": first[2]["etag"]}),
                    "words": json.loads((await _get(base, "/words.json"))[1]),
                    "build": json.loads((await _get(base, "/build.json"))[1])}

    seen = run(scene())
    assert seen["first"][:2] == (200, "// one\n") and seen["after"][:2] == (200, "// one\n")
    assert seen["first"][2]["content-type"].startswith("text/javascript")
    assert seen["after"][2]["cache-control"] == "no-cache"
    assert seen["new"] == 404
    assert seen["again"][0] == 304
    assert seen["words"]["build"] == seen["build"]["build"] != ""
    # restarted on the files updated: another build, its modules the new ones
    changed = run(scene())
    assert changed["first"][1] == "// two\n" and changed["build"]["build"] != seen["build"]["build"]


def test_a_word_the_catalog_lacks_never_shows_its_key(page: Page, monkeypatch: pytest.MonkeyPatch) -> None:
    """A console of newer modules than its words (an update not yet served whole) showed `console.chips_settling` to
    the dealer: the word is left out, listed on <html> for the tests, and the page reloads once (not for ever)."""
    def older(language: str) -> dict[str, object]:
        served = words_for(language)
        words = {k: v for k, v in served["words"].items() if k != "console.chips_mispaid"}  # type: ignore[union-attr]
        return {**served, "words": words}

    loads: list[str] = []
    page.on("framenavigated", lambda frame: loads.append(frame.url) if frame == page.main_frame else None)
    monkeypatch.setattr(test_chip_circles, "words_for", older)
    page.set_viewport_size({"width": 1280, "height": 720})
    serve(page, "dealer", states(test_chip_circles._short_paid))
    _until(page, lambda: len(loads) >= 2)
    page.wait_for_selector("[data-mispaid] li[data-circle='trips']", state="attached")
    texts = page.eval_on_selector_all("[data-mispaid] li", "ns => ns.map(n => n.textContent)")
    assert not any("console." in text for text in texts), texts
    assert "console.chips_mispaid" in (page.get_attribute("html", "data-words-missing") or "")
    assert len(loads) == 2, loads  # reloaded once, then left as it is


def _until(page: Page, met: Any) -> None:
    """Wait, the page's loop running, until `met()` (a condition on what the test's routes saw), 10 s at most."""
    for _ in range(200):
        if met():
            return
        page.wait_for_timeout(50)
    raise AssertionError("never met")


@pytest.mark.parametrize("served", ["b2", "b1"])
def test_a_page_of_another_build_reloads_once_its_socket_opens(page: Page, monkeypatch: pytest.MonkeyPatch,
                                                               served: str) -> None:
    """The display restarted on an update: the page's socket reconnects to a process of another build, and the
    page reloads to take its modules and words, once (the same build: it stays)."""
    builds: list[str] = []

    def build(route: Route) -> None:
        builds.append(served)
        route.fulfill(json={"build": served})

    loads: list[str] = []
    page.on("framenavigated", lambda frame: loads.append(frame.url) if frame == page.main_frame else None)
    page.route(f"{BASE}/build.json", build)
    monkeypatch.setattr(test_chip_circles, "words_for", lambda language: {**words_for(language), "build": "b1"})
    serve(page, "table", states(test_chip_circles._betting))
    _until(page, lambda: len(builds) >= (2 if served == "b2" else 1))  # the reloaded page asks again, and stays
    page.wait_for_selector(".spot[data-seat='3'] .circle[data-chips-read]")
    page.wait_for_function("() => performance.getEntriesByType('resource').some(e => e.name.endsWith('/build.json'))")
    reloaded = page.evaluate("() => sessionStorage.getItem('croupier.reloaded-from')")
    assert (len(loads), reloaded) == ((2, "b1") if served == "b2" else (1, None)), loads
