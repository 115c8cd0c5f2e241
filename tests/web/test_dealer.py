"""The dealer console (/dealer) in Chromium and its relay (/ws/dealer): whole UTH and 3CP hands played from the page, sign-offs, roles."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import aiohttp
import pytest
import zmq
from playwright.sync_api import Browser, Page

from cli.demo import SimTable
from protocol.commands import CommandClient
from protocol.feed import FeedClient
from protocol.users import Users
from sim.dealing import ShoeHand
from tests.web.people import person
from tests.web.screens import check_sizes
from tests.web.teardown import screens_closer
from tests.web.money import shown as money
from tests.web.test_accessibility import axe_violations
from tests.firmware_host.processes import croupier_here
from tests.own_loop import in_own_loop

PINS = {"ana": ("dealer", "482113"), "sam": ("supervisor", "905527"), "eve": ("surveillance", "318840")}
CHIPS = [100, 500, 2500]
ROOT = "#console"


@dataclass
class Console:
    """A table worked by a person: the simulated table, the shoe's hand, a `croupier display` with the command relay."""

    table: SimTable
    shoe: ShoeHand
    base: str
    log: Path


def _sign_up(table: SimTable) -> None:
    users = Users.load(table.users_path)
    for name, (role, pin) in PINS.items():
        users.by_name[name] = person(name, role, pin)
    users.save(table.users_path)


@pytest.fixture
def console(sim_table: Callable[..., SimTable], tmp_path: Path,
            request: pytest.FixtureRequest) -> Iterator[Callable[..., Console]]:
    """`console(game=..., seed=..., language="fr", full=True)`: a started table whose cards the shoe deals when expected
    and nothing else (no bot plays a player's part), and a display for it in that language (English by default),
    following the table's full feed too with `full` (the consoles then show the seats' player cards, masked)."""
    procs: list[subprocess.Popen[str]] = []
    hands: list[ShoeHand] = []
    close_screens = screens_closer(request)

    def make(language: str = "en", full: bool = False, **options: Any) -> Console:
        table = sim_table(**options)
        _sign_up(table)
        shoe = ShoeHand(table.endpoints, table.shoe_info["control"], seed=table.seed)
        shoe.start()
        hands.append(shoe)
        config = tmp_path / f"dealer{len(procs)}.toml"
        config.write_text(f'[display]\nlisten = "127.0.0.1:0"\npublic = "{table.endpoints.public}"\n'
                          f'snapshot = "{table.endpoints.snapshot}"\nheartbeat_s = {table.heartbeat_s}\n'
                          f'commands = "{table.endpoints.commands}"\nusers = "{table.users_path}"\n'
                          f'chips = {json.dumps(CHIPS)}\nlanguage = "{language}"\n'
                          + (f'full = "{table.endpoints.full}"\nfull_snapshot = "{table.endpoints.full_snapshot}"\n'
                             if full else ""), encoding="utf-8")
        log = tmp_path / f"dealer{len(procs)}.log"
        proc = subprocess.Popen([sys.executable, "-m", "cli", "display", "--config", str(config),
                                 "--log-level", "INFO"], stdout=subprocess.PIPE, stderr=open(log, "ab"), text=True)
        procs.append(proc)
        line = proc.stdout.readline() if proc.stdout else ""
        assert line, f"croupier display did not start: {log.read_text()[-2000:]}"
        ready = json.loads(line)
        assert ready["dealer"] == ready["display"] + "/dealer"
        return Console(table, shoe, ready["display"], log)

    yield make
    close_screens()  # the test's pages first: the display then stops at once
    for proc in procs:
        proc.terminate()
    for shoe in hands:  # the shoe threads' stops (up to a receive's 0.2 s each) while the displays exit
        shoe.stop()
    for proc in procs:
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@pytest.fixture
def tablet(browser: Browser) -> Iterator[Page]:
    """A page at the 10" tablet's size, 1280x800, touch."""
    context = browser.new_context(viewport={"width": 1280, "height": 800}, has_touch=True)
    yield context.new_page()
    context.close()


def journal(table: SimTable) -> list[dict[str, Any]]:
    """Every finished hand as `croupier history --json` prints it (run in this process: the same code, no start-up)."""
    done = croupier_here("history", "--state", str(table.state_dir), "--last", "0", "--json")
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in done.stdout.splitlines() if line.strip()]


def settle(table: SimTable, round_: dict[str, Any]) -> dict[str, Any]:
    """What `croupier settle` makes of a hand's round (the table's limits, the default profile; in this process)."""
    done = croupier_here("settle", "--table", str(table.config_path), stdin=json.dumps(round_) + "\n")
    assert done.returncode == 0, done.stderr
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def public_state(table: SimTable, full: bool = False) -> dict[str, Any]:
    """The table's state now: the public feed's, or with `full` surveillance's (every card, the cards entered by hand)."""
    ctx: zmq.Context[Any] = zmq.Context()
    ends = table.endpoints
    feed = FeedClient(ctx, *((ends.full, ends.full_snapshot) if full else (ends.public, ends.snapshot)), timeout_s=5.0)
    try:
        feed.fetch_snapshot()
        return dict(feed.state or {})
    finally:
        feed.close()
        ctx.destroy(linger=0)


def sign_in(page: Page, base: str, user: str) -> None:
    page.goto(f"{base}/dealer")
    page.fill("[data-signin] input[name=user]", user)
    page.fill("[data-signin] input[name=pin]", PINS[user][1])
    page.click("[data-signin] button[type=submit]")
    page.wait_for_selector(f"{ROOT}[data-phase='bets']")


def in_words(page: Page, say: dict[str, Any]) -> str:
    """A controller's `say` as the page's catalog words it (words.js `say`, the table's money)."""
    text: str = page.evaluate("async (m) => (await import('/static/words.js')).say(m)", say)
    return text


def settled_reply(page: Page) -> None:
    """Wait until the command in flight is answered."""
    page.wait_for_selector(f"{ROOT}:not([data-waiting])", state="attached")


def post_bets(page: Page, seat: int, bets: dict[str, list[int]]) -> None:
    """Build a spot's bets by tapping circles and chips, then `Bet`; the feed shows them. The Blind follows
    the Ante as it is tapped (UTH: they are equal), so a Blind equal to the Ante is not tapped."""
    spot = f"[data-seat='{seat}']"
    for circle, chips in bets.items():
        if circle == "blind" and sum(chips) == sum(bets.get("ante", [])):
            continue
        page.tap(f"{spot} [data-circle='{circle}']")
        for chip in chips:
            page.tap(f"[data-chips] [data-chip='{chip}']")
    page.tap(f"{spot} [data-action='bet']")
    settled_reply(page)
    assert page.locator("[data-refusal]").count() == 0, page.locator("#refusal").inner_text()
    for circle, chips in bets.items():  # the feed shows the spot's bets as posted (no draft left)
        posted = f"{spot} [data-circle='{circle}']:not(.draft) .stake"
        page.wait_for_function("([sel, text]) => document.querySelector(sel)?.textContent === text",
                               arg=[posted, money(sum(chips))])


def play_decisions(page: Page, choose: Callable[[str, int], str],
                   at_flop: Callable[[], object] | None = None) -> list[tuple[str, int, list[str]]]:
    """Tap the decisions from the page until the showdown; each step's (phase, seat, the buttons shown);
    `at_flop` is called once, at the first decision on the flop (the screenshots mid-hand)."""
    seen: list[tuple[str, int, list[str]]] = []
    for _ in range(20):
        page.wait_for_function("() => { const r = document.getElementById('console');"
                               " return !r.dataset.waiting && (r.dataset.phase === 'showdown'"
                               " || (r.dataset.toAct !== '' && document.querySelector('[data-decisions] button'))); }")
        phase = page.get_attribute(ROOT, "data-phase") or ""
        if phase == "showdown":
            return seen
        seat = int(page.get_attribute(ROOT, "data-to-act") or 0)
        buttons = page.locator("[data-decisions] button")
        actions = [buttons.nth(i).get_attribute("data-action") or "" for i in range(buttons.count())]
        assert {buttons.nth(i).get_attribute("data-seat") for i in range(buttons.count())} == {str(seat)}
        seen.append((phase, seat, actions))
        if at_flop is not None and phase == "flop":
            at_flop()
            at_flop = None
        page.tap(f"[data-decisions] [data-action='{choose(phase, seat)}']")
        settled_reply(page)
        assert page.locator("[data-refusal]").count() == 0, page.locator("#refusal").inner_text()
        page.wait_for_function("([phase, seat]) => { const r = document.getElementById('console');"
                               " return r.dataset.phase !== phase || r.dataset.toAct !== String(seat); }", arg=[phase, seat])
    raise AssertionError(f"no showdown after {seen}")


def prompts(page: Page) -> dict[tuple[int, str], tuple[int, str]]:
    """The payout prompts: (seat, circle) -> (net, the prompt's words)."""
    out: dict[tuple[int, str], tuple[int, str]] = {}
    for line in page.locator("#spots [data-payout]").all():  # each circle says what it is paid
        seat = int(line.locator("xpath=ancestor::*[@data-seat][1]").get_attribute("data-seat") or 0)
        out[(seat, line.get_attribute("data-payout") or "")] = (int(line.get_attribute("data-net") or 0),
                                                               line.locator(".says").inner_text())
    return out


def armed(page: Page) -> Page:
    """The page once the seat to act's buttons are live (a new seat's stay inert 400 ms, drawn dimmed): the
    screenshot the same at any load."""
    page.wait_for_selector("#decisions:not(.arming) button")
    return page


def check_settles_as_croupier_settle(page: Page, table: SimTable, hand: int) -> None:
    shown = prompts(page)
    assert shown, "no payout prompt at the showdown"
    totals = {int(t.locator("xpath=..").get_attribute("data-seat") or 0): int(t.get_attribute("data-total") or 0)
              for t in page.locator("#spots [data-total]").all()}
    for (seat, circle), (net, words) in shown.items():
        if net > 0:
            assert words.startswith(f"pays {money(net)}"), words
        elif net < 0:
            assert words == f"loses {money(-net)}", words
        else:
            assert words == "pushes", words
    page.tap("[data-action='confirm']")
    settled_reply(page)
    assert page.locator("[data-refusal]").count() == 0, page.locator("#refusal").inner_text()
    page.wait_for_function(f"() => {{ const r = document.getElementById('console');"
                           f" return r.dataset.hand !== '{hand}' || r.dataset.phase === 'settled'; }}")
    record = next(h for h in journal(table) if h["hand"] == hand)
    assert record["status"] == "settled"
    resettled = settle(table, record["round"])
    assert resettled == record["settlement"]
    journaled = {(s["seat"], circle): net for s in record["settlement"]["spots"] for circle, net in s["results"].items()}
    assert {key: net for key, (net, _) in shown.items()} == journaled
    assert totals == {s["seat"]: s["net"] for s in record["settlement"]["spots"]}


UTH_LEGAL = {"preflop": ["check", "play-4", "play-3"], "flop": ["check", "play-2"], "river": ["play-1", "fold"]}


def test_a_uth_hand_played_from_the_console_settles_as_croupier_settle(
        console: Callable[..., Console], tablet: Page) -> None:
    work = console(game="uth", seed=5, seats=4)
    sign_in(tablet, work.base, "ana")
    hand = int(tablet.get_attribute(ROOT, "data-hand") or 0)
    assert tablet.locator("[data-decisions] button").count() == 0  # nobody decides before the deal
    post_bets(tablet, 1, {"ante": [500], "blind": [500], "trips": [100]})
    post_bets(tablet, 3, {"ante": [500, 500], "blind": [500, 500]})
    assert tablet.locator("[data-action='confirm']").is_hidden()
    tablet.tap("[data-action='deal']")
    settled_reply(tablet)
    plays = {1: {"preflop": "check", "flop": "check", "river": "play-1"}, 3: {"preflop": "play-4"}}
    mid_hand: list[Path] = []  # seed 5, hand 1, seat 1 to decide on the flop: the same page every run
    sizes = ("tablet", "1920", "1280")
    seen = play_decisions(tablet, lambda phase, seat: plays[seat][phase],
                          at_flop=lambda: mid_hand.extend(check_sizes(armed(tablet), "dealer-uth-flop", sizes)))
    assert [(phase, seat) for phase, seat, _ in seen] == [("preflop", 1), ("preflop", 3), ("flop", 1), ("river", 1)]
    for phase, _, actions in seen:
        assert actions == UTH_LEGAL[phase], (phase, actions)
    assert len(mid_hand) == 3
    assert tablet.locator("[data-decisions] button").count() == 0
    check_sizes(tablet, "dealer-uth-payouts", sizes)  # the payout prompt, before the confirm
    assert axe_violations(tablet) == []  # the won and lost circles readable too (tests/web/test_accessibility.py)
    check_settles_as_croupier_settle(tablet, work.table, hand)
    log = work.log.read_text()
    assert "dealer console: ana sent {'cmd': 'decide'" in log and "-> ok" in log


def test_a_3cp_hand_played_from_the_console_settles_as_croupier_settle(
        console: Callable[..., Console], tablet: Page) -> None:
    work = console(game="3cp", seed=8, seats=5)
    sign_in(tablet, work.base, "ana")
    hand = int(tablet.get_attribute(ROOT, "data-hand") or 0)
    post_bets(tablet, 1, {"ante": [500], "pair_plus": [100, 100]})
    post_bets(tablet, 2, {"ante": [2500]})
    assert tablet.locator("[data-action='deal']").is_hidden()  # the table deals with 5 spots bet (its steps)
    assert tablet.locator("#hint").inner_text() == "Deal appears once the bets allow a deal"
    for seat in (3, 4, 5):
        post_bets(tablet, seat, {"ante": [500]})
    tablet.tap("[data-action='deal']")
    settled_reply(tablet)
    assert tablet.locator("[data-refusal]").count() == 0
    seen = play_decisions(tablet, lambda phase, seat: "fold" if seat == 2 else "play")
    assert seen == [("decide", seat, ["play", "fold"]) for seat in range(1, 6)]
    check_settles_as_croupier_settle(tablet, work.table, hand)


def test_a_void_needs_a_supervisors_pin_and_the_page_shows_the_controllers_reason(
        console: Callable[..., Console], tablet: Page) -> None:
    work = console(game="uth", seed=3, seats=2)
    sign_in(tablet, work.base, "ana")
    post_bets(tablet, 1, {"ante": [500], "blind": [500]})
    tablet.tap("[data-action='deal']")
    settled_reply(tablet)
    tablet.wait_for_selector(f"{ROOT}[data-phase='preflop']")
    hand = int(tablet.get_attribute(ROOT, "data-hand") or 0)
    ctx: zmq.Context[Any] = zmq.Context()
    direct = CommandClient(ctx, work.table.endpoints.commands, timeout_s=5.0, name="test")
    try:
        tablet.tap("[data-action='void']")
        for user, pin in (("", ""), ("ana", PINS["ana"][1]), ("sam", "000000")):
            tablet.wait_for_selector("dialog[data-signoff='void'][open]")  # a refused sign-off keeps its dialog
            tablet.fill("#signoff input[name=user]", user)
            tablet.fill("#signoff input[name=pin]", pin)
            tablet.tap("[data-action='signoff-send']")
            settled_reply(tablet)
            tablet.wait_for_selector("#signoff-refusal[data-refusal='forbidden']")  # said in the dialog
            said = tablet.locator("#signoff-refusal").inner_text()
            assert tablet.input_value("#signoff input[name=pin]") == ""  # the PIN to type again, the reason kept
            assert tablet.input_value("#signoff input[name=reason]")
            auth = {"user": user, "pin": pin} if user else None
            reply = direct.request("void", reason="dealer void", hand=hand, auth=auth)
            assert not reply["ok"] and reply["code"] == "forbidden"
            assert said == in_words(tablet, reply["say"]), (user, said, reply)  # the controller's say, in words
            if user:  # one refusal whatever failed: "ana" is a dealer, "sam" gave a wrong PIN
                assert said == "Sign-off refused: wrong user or PIN, or not a supervisor", said
            assert tablet.get_attribute(ROOT, "data-phase") == "preflop"
        tablet.fill("#signoff input[name=user]", "sam")
        tablet.fill("#signoff input[name=pin]", PINS["sam"][1])
        tablet.tap("[data-action='signoff-send']")
        settled_reply(tablet)
        tablet.wait_for_function(f"() => document.getElementById('console').dataset.hand !== '{hand}'")
        assert tablet.locator("[data-refusal]").count() == 0
    finally:
        direct.close()
        ctx.destroy(linger=0)
    record = next(h for h in journal(work.table) if h["hand"] == hand)
    assert record["status"] == "voided"
    holds = json.loads((work.table.state_dir / "signoff-holds.json").read_text(encoding="utf-8"))["keys"]
    assert holds["local at ana"]["failed"] == 0 and holds["local"]["failed"] == 2  # the relay said who: ana, then ok


async def _relay_checks(base: str) -> dict[str, Any]:
    seen: dict[str, Any] = {}
    async with aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True), headers={"Origin": base}) as session:
        try:
            await session.ws_connect(f"{base}/ws/dealer")
        except aiohttp.WSServerHandshakeError as exc:
            seen["nobody"] = exc.status
        await session.post(f"{base}/api/signin", json={"user": "eve", "pin": PINS["eve"][1]})
        try:
            await session.ws_connect(f"{base}/ws/dealer")
        except aiohttp.WSServerHandshakeError as exc:
            seen["surveillance"] = exc.status
        await session.post(f"{base}/api/signin", json={"user": "ana", "pin": PINS["ana"][1]})
        async with session.ws_connect(f"{base}/ws/dealer") as ws:
            seen["first"] = [(await ws.receive_json())["kind"] for _ in range(3)]
            bad = ["not json", json.dumps({"kind": "command", "id": "b1"}),
                   json.dumps({"kind": "command", "id": "b2", "command": {"cmd": "bet", "id": "mine", "seat": 1,
                                                                           "bets": {"ante": 500, "blind": 500}}}),
                   json.dumps({"kind": "command", "id": "b3", "command": {"cmd": "bet", "seat": 1,
                                                                           "bets": {"ante": 500, "blind": 500},
                                                                           "auth": "sam:905527"}}),
                   json.dumps({"kind": "command", "id": "b4", "command": {"cmd": "dealer", "dealer": "sam",
                                                                           "action": "in"}})]
            seen["errors"] = []
            for text in bad:
                await ws.send_str(text)
                while (message := await ws.receive_json())["kind"] not in ("error", "reply"):
                    pass
                seen["errors"].append(message)
            await ws.send_json({"kind": "command", "id": "g1", "command": {"cmd": "bet", "seat": 9, "bets": {"ante": 500}}})
            while (message := await ws.receive_json())["kind"] not in ("error", "reply"):
                pass
            seen["refused"] = message
            # a number JSON carries but msgpack cannot (beyond 64 bits): refused in words, nothing sent, and the
            # console's next step still answered (the relay's task died on it, the page waited for ever)
            for page_id, ante in (("h1", 10 ** 30), ("h2", 700)):
                await ws.send_str(json.dumps({"kind": "command", "id": page_id,
                                              "command": {"cmd": "bet", "seat": 1, "bets": {"ante": ante, "blind": ante}}}))
                while (message := await ws.receive_json())["kind"] not in ("error", "reply"):
                    pass
                seen[page_id] = message
    return seen


def test_the_relay_lets_in_only_dealers_refuses_malformed_messages_and_passes_the_controllers_reply(
        console: Callable[..., Console]) -> None:
    work = console(game="uth", seed=1, seats=2)
    seen = in_own_loop(_relay_checks(work.base))
    assert seen["nobody"] == 401
    assert seen["surveillance"] == 403
    assert seen["first"] == ["console", "hello", "snapshot"]
    assert [m["kind"] for m in seen["errors"]] == ["error"] * 5
    assert "not JSON" in seen["errors"][0]["error"]
    assert "command must be an object" in seen["errors"][1]["error"]
    assert "id is the relay's own" in seen["errors"][2]["error"]
    assert "auth must be" in seen["errors"][3]["error"]
    assert "dealer is the console's own" in seen["errors"][4]["error"]  # nobody signs another in
    assert public_state(work.table, full=True)["dealer_signed_in"] == "ana"  # the console signed its dealer in
    bets = {s["seat"]: s.get("bets") for s in public_state(work.table).get("spots") or [] if s.get("bets")}
    assert bets == {1: {"ante": 700, "blind": 700}}  # the last step's only: nothing refused above was sent
    refused = seen["refused"]
    assert refused["kind"] == "reply" and refused["id"] == "g1"
    assert refused["reply"]["ok"] is False and refused["reply"]["code"] == "malformed"
    assert "seat" in refused["reply"]["error"]
    huge, fine = seen["h1"], seen["h2"]
    assert huge["id"] == "h1" and huge["reply"]["code"] == "malformed", huge
    assert huge["reply"]["say"] == {"key": "refusal.number_out_of_range", "args": {}}
    assert fine["id"] == "h2" and fine["reply"]["ok"] is True, fine


@pytest.mark.parametrize(("lines", "said"), [
    ('chips = [100, "500"]', "[display] chips: a chip value is a positive integer in the smallest unit, not '500'"),
    ("chips = []", "[display] chips: must be a list of 1 to 8 chip values"),
    ("chips = [100, 100]", "[display] chips: a chip value is listed twice"),
    ('commands = "http://127.0.0.1:5555"', "[display] commands: must be a ZeroMQ endpoint"),
    ('dealer_key = "/nonexistent/console.key_secret"', "[display] dealer_key, server_key:"),
])
def test_the_consoles_keys_are_checked_at_start(tmp_path: Path, lines: str, said: str) -> None:
    config = tmp_path / "display.toml"
    config.write_text(f"[display]\n{lines}\n", encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "cli", "display", "--config", str(config)],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and said in done.stderr and "Traceback" not in done.stderr, done.stderr


def test_the_chips_are_kept_in_rising_order() -> None:
    from firmware_host.display.config import DisplayConfig

    cfg = DisplayConfig.parse('[display]\ncommands = "ipc:///tmp/t-cmd"\nchips = [2500, 100, 500]\n')
    assert cfg.chips == (100, 500, 2500) and cfg.commands == "ipc:///tmp/t-cmd"
    assert DisplayConfig.parse("[display]\n").chips == (100, 500, 2500, 10000)


def test_a_card_entered_by_hand_needs_a_supervisors_pin(console: Callable[..., Console], tablet: Page) -> None:
    work = console(game="uth", seed=4, seats=1)
    work.shoe.stop()  # the shoe deals nothing: the console enters the first card by hand
    sign_in(tablet, work.base, "ana")
    post_bets(tablet, 1, {"ante": [500], "blind": [500]})
    tablet.tap("[data-action='deal']")
    settled_reply(tablet)
    tablet.wait_for_selector("#card:not([hidden])")
    tablet.tap("[data-action='card']")
    for user in ("", "ana"):  # nobody, then the dealer herself: neither is a supervisor
        tablet.wait_for_selector("dialog[data-signoff='card'][open]")  # a refused sign-off keeps its dialog
        tablet.fill("#signoff input[name=card]", "As")
        tablet.fill("#signoff input[name=user]", user)
        tablet.fill("#signoff input[name=pin]", PINS[user][1] if user else "")
        tablet.tap("[data-action='signoff-send']")
        settled_reply(tablet)
        tablet.wait_for_selector("#signoff-refusal[data-refusal='forbidden']")
        assert tablet.locator("#signoff-refusal").inner_text() == (  # the controller's say, in words
            "Sign-off refused: wrong user or PIN, or not a supervisor" if user  # one refusal whatever failed
            else "This step needs a supervisor's sign-off")
        assert not public_state(work.table, full=True).get("manual")
    tablet.fill("#signoff input[name=user]", "sam")
    tablet.fill("#signoff input[name=pin]", PINS["sam"][1])
    tablet.tap("[data-action='signoff-send']")
    settled_reply(tablet)
    assert tablet.locator("[data-refusal]").count() == 0, tablet.locator("#refusal").inner_text()
    manual = public_state(work.table, full=True)["manual"]
    assert [m["card"] for m in manual] == ["As"], manual
    assert (manual[0].get("signed_off") or {}).get("user") == "sam", manual
    full = {k: v for k, v in public_state(work.table, full=True).items() if k != "manual"}
    assert "As" in json.dumps(full)  # the card is on the table
    assert "As" not in json.dumps(public_state(work.table))  # a hole card: face down on the public feed
