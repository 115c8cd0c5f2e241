"""The pages' latency: a public feed message to its DOM update in Chromium with 50 screens, and the controller's card-to-publish p99 with and without them.

Feed to DOM: a simulated table (`SimTable`: `croupier run`, the emulated shoe, the bot dealer and
players at a dealer's pace, a step every `PACE_S`), a `croupier display` process following its
public feed and `SCREENS` screens connected to it: `PAGES` table displays (`/table`) open in one
headless Chromium (Debian's, as the browser tests launch it), whose DOM updates are timed, and the
others WebSocket clients of `/ws/public` in this process that read every message (their arrival is
timed too, by the message's head: `SCREEN_HEAD`; decoding each whole state is the work of the
screen's own computer, and done here, on the table's two cores, it cost the table's machine more
CPU than the display serving them). Not 50 Chromium renderers: in a casino each screen has its own
computer, and 50 renderers on these 2 cores would measure the machine hosting 50 browsers, not
the display serving 50 screens. A subscriber in this process stamps each public update with `time.time()`
when it arrives (the hop a display makes too: an upper bound of "published"); each page stamps
every state it draws (its `croupier:rendered` event) with `Date.now()`, the same machine's wall
clock to the millisecond (not `performance.timeOrigin + performance.now()`: Chromium's monotonic
clock drifts from the wall clock, by -20 ms and more over a run, which made drawn-before-published
latencies). A screen that fell behind skips to the latest
state (its bounded queue): such updates are never drawn; they are counted, not timed.

The controller: the table of `bench.controller_latency` (the shoe at 115,200 baud streaming UTH
hands at the line's full rate), measured in `ROUNDS` rounds of the same run, each alone then with a
display and `SCREENS` screens following it (the figure: the median of the rounds' ratios, as every
latency figure of `make bench`, each round's p99 over `HANDS` hands, 315 cards, where 5 hands made it
their second-worst card; the p99 of all rounds' cards pooled is printed beside it), all WebSocket
clients here (the screens' browsers run on their own computers in a casino, not on the table's: what the table's machine carries for them is the
display process serving 50 connections). Aims: the feed-to-DOM p99 under 50 ms, the controller's
card-to-publish p99 with the screens within 1.5x of without.

Priorities as on the Pi: the controller runs as its unit deploys it (deploy/croupier.service's `Nice=`,
`CPUSchedulingPolicy=`, `CPUSchedulingPriority=` and `CPUAffinity=`, `bench._units`); the display at the niceness
of its unit (`Nice=` of deploy/croupier-display.service, read from the file), and so do what stand for the
screens' other computers (the Chromium pages, through a `nice -n` wrapper, and the WebSocket clients' thread);
the test's own feed subscriber and this process stay at normal priority. (The unit's
CPUWeight= and IOSchedulingClass= need systemd's cgroups: not applied here.)
`python -m bench.display_latency --dry-run` prints those niceness values and exits.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import zmq

from bench import Figure
from bench.controller_latency import measure
from bench._units import DISPLAY_UNIT, Scheduling, service_settings
from cli.demo import SimTable
from sim.bots.players import seat_players
from protocol.feed import FeedClient
from sim.bots.table import TableEndpoints
from sim.restarter import end, read_json_line, spawn

SCREENS = 50
PAGES = 3        # of the SCREENS, the ones that are real pages in Chromium
HANDS = 15      # hands of each controller measurement (the shoe at the line's rate): 315 cards, the p99 the 4th worst
ROUNDS = 5      # rounds of the controller alone, then with the screens: a change of load falls on both
# The figure is the median of the rounds' ratios, each round's p99 over 315 cards (5 hands made 105, the p99 their
# second-worst card). The p99 of every round's cards pooled is printed beside it: one round of either side slowed
# by other work (a whole round's p50 tripled, as other engineers' suites start) sets it alone (docs/benchmarks.md).
PACED_HANDS = 2  # hands dealt at a dealer's pace for the feed-to-DOM figure
PACE_S = 0.25    # a step (bet, decision, deal) every quarter second: a quick dealer; the cards of a deal come at the line's rate
AIM_DOM_P99_MS = 50.0
AIM_P99_RATIO = 1.5
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run", "--disable-background-timer-throttling",
                 "--disable-renderer-backgrounding", "--disable-backgrounding-occluded-windows"]
STAMP = """
window.__drawn = [];
document.addEventListener("croupier:rendered", (event) => {
  const root = document.querySelector("[data-table]");
  window.__drawn.push([root.dataset.boot, Number(root.dataset.seq), Date.now()]);
});
"""


def unit_nice(unit: Path = DISPLAY_UNIT) -> int:
    """The display unit's `Nice=` (its [Service] section's last one). Raises ValueError when it has none."""
    nice = service_settings(unit).get("Nice")
    if nice is None:
        raise ValueError(f"{unit}: no Nice= in [Service]")
    return int(nice)


class Niceness:
    """The niceness of each part: the display and the screens at the display unit's, this process at its own (the
    controller: at its own unit's, `bench._units`)."""

    def __init__(self) -> None:
        self.controller = os.getpriority(os.PRIO_PROCESS, 0)  # this process's, from which `nice -n` counts
        self.display = max(unit_nice(), self.controller)  # never above this process: an unprivileged bench can't

    @property
    def increment(self) -> int:
        """What `nice -n` adds to this process's niceness to reach the display's."""
        return self.display - self.controller

    def nice_argv(self) -> list[str]:
        return ["nice", "-n", str(self.increment)]

    def lower_this_thread(self) -> None:
        """Put the calling thread (Linux: niceness is a thread's) at the display's niceness."""
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), self.display)

    def chromium(self, run_dir: Path) -> str:
        """An executable that starts Chromium at the display's niceness (Playwright starts what it is given).

        Chromium sets its threads' priorities itself (its compositor's to -8, others back to 0): run as
        root it can, and so undoes `nice`; the wrapper then takes CAP_SYS_NICE from it (`setpriv`), so
        that, as for any user, its priorities can only go down from there."""
        wrapper = run_dir / "chromium-nice"
        drop = ["setpriv", "--inh-caps=-sys_nice", "--bounding-set=-sys_nice"] \
            if os.geteuid() == 0 and shutil.which("setpriv") else []
        wrapper.write_text(f'#!/bin/sh\nexec {" ".join(self.nice_argv() + drop)} {CHROMIUM} "$@"\n', encoding="utf-8")
        wrapper.chmod(0o755)
        return str(wrapper)

    def __str__(self) -> str:
        return (f"the controller {Scheduling.controller()}; niceness: this process {self.controller}, the display "
                f"{self.display} (Nice={unit_nice()} of {DISPLAY_UNIT.parent.name}/{DISPLAY_UNIT.name}), the Chromium "
                f"pages and WebSocket screens {self.display}")


class Stamper(threading.Thread):
    """A public-feed subscriber in this process: the wall-clock time each update arrived, by (boot, seq)."""

    def __init__(self, eps: TableEndpoints) -> None:
        super().__init__(daemon=True, name="bench-stamper")
        self.eps = eps
        self.at: dict[tuple[str, int], float] = {}
        self.stopping = threading.Event()

    def run(self) -> None:
        ctx: zmq.Context[Any] = zmq.Context()
        client = FeedClient(ctx, self.eps.public, self.eps.snapshot, timeout_s=5.0)
        try:
            while not self.stopping.is_set():
                try:
                    message = client.receive(100)
                except TimeoutError:
                    continue
                now = time.time()
                if message is not None and message.get("kind") == "update" and client.boot is not None:
                    self.at[(client.boot, client.seq)] = now
        finally:
            client.close()
            ctx.destroy(linger=0)


SCREEN_HEAD = re.compile(r'\{"table": "[^"\\]*", "boot": "([^"\\]*)", "seq": (\d+), "kind": "(\w+)"')
"""The head of a state message as the display encodes it (`bridge.Hub`: the feed's keys first); a message
without it is decoded whole."""


def screen_head(text: str) -> tuple[Any, Any, Any]:
    """`(kind, boot, seq)` of a message a screen is sent, read from its head (decoded whole when it has none).

    >>> screen_head('{"table": "t1", "boot": "b7", "seq": 12, "kind": "update", "spots": []}')
    ('update', 'b7', 12)
    >>> screen_head('{"kind": "hello", "heartbeat_s": 1.0}')
    ('hello', None, None)
    """
    head = SCREEN_HEAD.match(text)
    if head is not None:
        return head.group(3), head.group(1), int(head.group(2))
    body = json.loads(text)
    return body.get("kind"), body.get("boot"), body.get("seq")


class Sockets(threading.Thread):
    """`count` WebSocket clients of the display's `/ws/public` in one asyncio loop: when each update arrived, by (boot, seq)."""

    def __init__(self, url: str, count: int, niceness: Niceness) -> None:
        super().__init__(daemon=True, name="bench-sockets")
        self.url, self.count, self.niceness = url, count, niceness
        self.arrived: list[tuple[str, int, float]] = []
        self.ready = threading.Event()
        self.stopping = threading.Event()

    def run(self) -> None:
        import asyncio

        import aiohttp

        self.niceness.lower_this_thread()  # they stand for the screens' own computers: never above the display

        async def one(session: aiohttp.ClientSession, opened: list[int]) -> None:
            async with session.ws_connect(self.url, origin=self.url.split("/ws/")[0].replace("ws", "http", 1)) as ws:  # guard.py
                opened.append(1)
                if len(opened) == self.count:
                    self.ready.set()
                while not self.stopping.is_set():
                    try:
                        msg = await ws.receive(timeout=0.5)
                    except asyncio.TimeoutError:
                        continue
                    if msg.type != aiohttp.WSMsgType.TEXT:
                        break
                    kind, boot, seq = screen_head(msg.data)
                    if kind in ("update", "snapshot"):
                        self.arrived.append((boot, seq, time.time()))

        async def main() -> None:
            opened: list[int] = []
            async with aiohttp.ClientSession() as session:
                await asyncio.gather(*(one(session, opened) for _ in range(self.count)), return_exceptions=True)

        asyncio.run(main())


class Screens:
    """`croupier display` on the table and SCREENS table displays in one Chromium; their drawn states."""

    def __init__(self, run_dir: Path, pages: int = PAGES) -> None:
        self.run_dir = run_dir
        self.pages = pages
        self.niceness = Niceness()
        self.drawn: list[list[Any]] = []
        self.stamper: Stamper | None = None
        self.published: dict[tuple[str, int], float] = {}
        self.socket_arrivals: list[tuple[str, int, float]] = []

    def attach(self, eps: TableEndpoints) -> Callable[[], None]:
        from playwright.sync_api import sync_playwright
        config = self.run_dir / "display.toml"
        config.write_text(f'[display]\nlisten = "127.0.0.1:0"\npublic = "{eps.public}"\n'
                          f'snapshot = "{eps.snapshot}"\nheartbeat_s = 1.0\n', encoding="utf-8")
        with open(self.run_dir / "display.log", "ab") as err:
            display = spawn([*self.niceness.nice_argv(), sys.executable, "-m", "cli", "display",
                             "--config", str(config)], stderr=err)  # at its unit's niceness
        pw = sync_playwright().start()
        try:
            ready = read_json_line(display, 30.0, "croupier display")
            browser = pw.chromium.launch(executable_path=self.niceness.chromium(self.run_dir), args=CHROMIUM_ARGS,
                                         headless=True)
            context = browser.new_context(viewport={"width": 1280, "height": 720})
            context.add_init_script(STAMP)
            pages = [context.new_page() for _ in range(self.pages)]
            for page in pages:
                page.goto(ready["table"])
            for page in pages:
                page.wait_for_selector("[data-table][data-phase]:not([data-phase=''])", timeout=30_000)
            self.sockets = Sockets(ready["display"].replace("http", "ws", 1) + "/ws/public", SCREENS - self.pages,
                                   self.niceness)
            self.sockets.start()
            if not self.sockets.ready.wait(30.0):
                raise RuntimeError(f"{SCREENS - self.pages} WebSocket screens did not connect")
            self.stamper = Stamper(eps)
            self.stamper.start()
        except BaseException:
            pw.stop()
            end(display)
            raise

        def detach() -> None:
            try:
                time.sleep(1.0)  # the screens draw what is still queued
                for page in pages:
                    self.drawn.extend(page.evaluate("window.__drawn"))
                browser.close()
            finally:
                pw.stop()
                end(display)
                self.sockets.stopping.set()
                self.sockets.join(5)
                self.socket_arrivals = list(self.sockets.arrived)
                if self.stamper is not None:
                    self.stamper.stopping.set()
                    self.stamper.join(5)
                    self.published = dict(self.stamper.at)

        return detach


def pct(values: list[float], q: float) -> float:
    return values[min(len(values) - 1, int(q * len(values)))]


def paced(run_dir: Path) -> Screens:
    """PACED_HANDS bot hands at a dealer's pace with SCREENS screens following: their draws and the feed's stamps."""
    screens = Screens(run_dir)
    with SimTable(run_dir / "state", game="uth", seed=5, seats=5, heartbeat_s=1.0) as table:
        detach = screens.attach(table.endpoints)
        try:
            dealer = table.dealer(players=seat_players(5, 5), on_step=lambda *_: time.sleep(PACE_S))
            try:
                dealer.play(PACED_HANDS)
            finally:
                dealer.close()
        finally:
            detach()
    return screens


def lags_ms(screens: Screens) -> list[float]:
    return sorted(1000 * (d[2] / 1000 - screens.published[(d[0], d[1])]) for d in screens.drawn
                  if (d[0], d[1]) in screens.published)


def socket_lags_ms(screens: Screens) -> list[float]:
    return sorted(1000 * (t - screens.published[(b, q)]) for b, q, t in screens.socket_arrivals
                  if (b, q) in screens.published)


def run(hands: int = HANDS) -> list[Figure]:
    if not Path(CHROMIUM).is_file():
        print(f"   {CHROMIUM} is missing (Debian's chromium package)")
        return [Figure("pages: feed to DOM", "not measured: no Chromium", f"p99 < {AIM_DOM_P99_MS:g} ms", False)]
    print(f"   {Niceness()}", flush=True)
    with tempfile.TemporaryDirectory(prefix="crp-bench-display-") as tmp:
        dealt = paced(Path(tmp))
    lags = lags_ms(dealt)
    if not lags:
        print("   no drawn state was matched to its feed update")
        return [Figure("pages: feed to DOM", "no drawn state matched", f"p99 < {AIM_DOM_P99_MS:g} ms", False)]
    updates = len(dealt.published)
    dom_p50, dom_p99 = statistics.median(lags), pct(lags, 0.99)
    sock = socket_lags_ms(dealt)
    if sock:
        print(f"   feed to the {SCREENS - PAGES} WebSocket screens: {len(sock)} messages, p50 {statistics.median(sock):.1f} ms,"
              f" p99 {pct(sock, 0.99):.1f} ms", flush=True)
    print(f"   feed to DOM, {SCREENS} screens ({PAGES} in Chromium), a step every {PACE_S * 1000:.0f} ms: {len(lags)} draws "
          f"of {updates} updates x {PAGES} pages ({100 * len(lags) / (updates * PAGES):.0f}% drawn): p50 {dom_p50:.1f} ms, "
          f"p99 {dom_p99:.1f} ms, max {lags[-1]:.1f} ms (aim p99 < {AIM_DOM_P99_MS:.0f} ms)", flush=True)
    rounds = [_round(hands, n) for n in range(1, ROUNDS + 1)]
    alone = sorted(t for a, _ in rounds for t in a)
    watched = sorted(t for _, w in rounds for t in w)
    ratios = [pct(sorted(w), 0.99) / pct(sorted(a), 0.99) for a, w in rounds]
    ratio = statistics.median(ratios)
    print(f"   the controller's card-to-publish p99 with {SCREENS} screens over alone, the median of the rounds' "
          f"{', '.join(f'{r:.2f}x' for r in ratios)} = {ratio:.2f}x (aim <= {AIM_P99_RATIO}x); every round's cards pooled: "
          f"{len(watched)} with, p50 {1000 * statistics.median(watched):.2f} ms, p99 {1000 * pct(watched, 0.99):.2f} ms; "
          f"{len(alone)} alone, p50 {1000 * statistics.median(alone):.2f} ms, p99 {1000 * pct(alone, 0.99):.2f} ms "
          f"({pct(watched, 0.99) / pct(alone, 0.99):.2f}x); feed-to-DOM p99 "
          f"{dom_p99:.1f} ms (aim < {AIM_DOM_P99_MS:.0f} ms); load average {os.getloadavg()[0]:.1f} on "
          f"{os.cpu_count()} cores")
    return [Figure(f"pages: feed to DOM, {SCREENS} screens on one display, p99", f"{dom_p99:.1f} ms",
                   f"< {AIM_DOM_P99_MS:g} ms", dom_p99 < AIM_DOM_P99_MS),
            Figure.at_most(f"card-to-publish p99 with the display serving {SCREENS} screens vs alone", ratio,
                           AIM_P99_RATIO)]


def _round(hands: int, n: int) -> tuple[list[float], list[float]]:
    """One round: the controller alone, then with the display and its screens; the cards' latencies (s) of each."""
    alone = measure(hands)
    with tempfile.TemporaryDirectory(prefix="crp-bench-display-") as tmp:
        screens = Screens(Path(tmp), pages=0)  # the screens' browsers run on their own computers, not the table's
        watched = measure(hands, attach=screens.attach)
    streamed = socket_lags_ms(screens)
    print(f"   round {n}: {int(alone['matched'])} cards alone, card-to-publish p50 {alone['p50_ms']:.2f} ms, p99 "
          f"{alone['p99_ms']:.2f} ms; {int(watched['matched'])} with {SCREENS} screens, p50 {watched['p50_ms']:.2f} ms, "
          f"p99 {watched['p99_ms']:.2f} ms"
          + (f" (feed to the screens while the shoe streams, ~{len(screens.published)} updates: p50 "
             f"{statistics.median(streamed):.1f} ms, p99 {pct(streamed, 0.99):.1f} ms)" if streamed else ""), flush=True)
    return list(alone["latencies"]), list(watched["latencies"])


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.display_latency", description=__doc__.splitlines()[0])
    parser.add_argument("--dry-run", action="store_true", help="print the niceness of each part and exit")
    args = parser.parse_args(argv)
    if args.dry_run:
        print(Niceness())
        print(f"Chromium: {CHROMIUM} {'found' if Path(CHROMIUM).is_file() else 'missing'}")
        return 0
    return 0 if all(f.met is not False for f in run()) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
