"""Tests of the table controller: engine steps journaled then published, faults, clears, replay, sockets."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import zmq

from drivers.card_reader import Misread, SimCardReader
from drivers.readings import CardRead, DeviceFault, DeviceOffline, OfflineKind, Sensor
from drivers.readings import FaultKind as DeviceFaultKind
from drivers.shoe_sensors import SensorChange
from engine.errors import EngineError
from engine.paytables import load_profile
from engine.settle import settle_round
from protocol.commands import Command, CommandClient
from firmware_host.service.controller import Controller
from protocol.feed import Feed, FeedClient
from firmware_host.service.journal import Journal
from firmware_host.tables.house.table import HouseSetup
from tests.firmware_host.processes import start_cli, wait_for
from tests.firmware_host.rigs import JournalRig

UTH = HouseSetup("uth", "default", {"minimum": 100}, 7)
TCP = HouseSetup("3cp", "default", {"minimum": 100}, 7)
# seats 1 and 3; hole cards s1 s3 dealer s1 s3 dealer, flop, turn+river
UTH_DECK = "As Kd Qh Ac Tc 9d 2c 7d 9h 4s 3c".split()


class Rig(JournalRig):
    """A house table's controller on a real journal in a temp dir; the tower light's states kept."""

    def __init__(self, path: Path, setup: HouseSetup = UTH) -> None:
        self.setup = setup
        self.lights: list[str] = []
        super().__init__(path)

    def controller_args(self) -> dict[str, Any]:
        return {"default_setup": self.setup, "on_light": self.lights.append}

    def cards(self, cards: list[str] | str) -> None:
        for card in cards.split() if isinstance(cards, str) else cards:
            self.ok("card", card=card)

    def events(self) -> int:
        return sum(1 for _ in self.c.journal.events())


@pytest.fixture
def rig(tmp_path: Path) -> Iterator[Rig]:
    r = Rig(tmp_path)
    yield r
    r.c.journal.close()


def uth_to_river(r: Rig) -> None:
    r.ok("bet", seat=1, bets={"ante": 100, "blind": 100, "trips": 100})
    r.ok("bet", seat=3, bets={"ante": 200, "blind": 200})
    r.cards(UTH_DECK[:6])
    r.ok("decide", seat=1, decision="play", multiple=4)
    r.ok("decide", seat=3, decision="check")
    r.cards(UTH_DECK[6:9])
    r.ok("decide", seat=3, decision="check")
    r.cards(UTH_DECK[9:])


def test_uth_hand_settles_once_and_matches_settle(rig: Rig) -> None:
    uth_to_river(rig)
    rig.ok("decide", seat=3, decision="play", multiple=1)
    state = rig.c.public_state()
    assert state["phase"] == "showdown" and state["hand"] == 1
    assert state["dealer"]["cards"] == ["Qh", "9d"]
    rig.ok("confirm", id="pay-1")
    assert rig.c.public_state()["phase"] == "settled"
    # the same request again (a dealer re-sending after a lost reply) is recognised, not applied
    again = rig.cmd("confirm", id="pay-1")
    assert again["ok"] and again["duplicate"]
    rows = rig.c.journal.hands()
    assert [(h.hand, h.status) for h in rows] == [(1, "settled")]
    rec = rows[0].record
    expected = settle_round(rec["round"], load_profile("default")).to_dict()
    assert rec["settlement"] == expected
    assert rec["settlement"]["house_net"] == -sum(s["net"] for s in rec["settlement"]["spots"])
    assert rec["deals"][:3] == [["spot 1", "As"], ["spot 3", "Kd"], ["dealer", "Qh"]]
    # the next hand starts at its first bet
    rig.ok("bet", seat=2, bets={"ante": 100, "blind": 100})
    assert rig.c.public_state()["hand"] == 2 and rig.c.public_state()["phase"] == "bets"


def test_3cp_hand(tmp_path: Path) -> None:
    r = Rig(tmp_path, TCP)
    for seat in range(1, 6):
        r.ok("bet", seat=seat, bets={"ante": 100, "pair_plus": 100})
    deck = "As Ks Qs Js Ts 9s 8s 7s 6s 5s 4s 3s 2s Ah Kh Qh Jh Th".split()
    r.cards(deck)
    assert r.c.public_state()["phase"] == "decide"
    for seat in range(1, 6):
        r.ok("decide", seat=seat, decision="play" if seat % 2 else "fold")
    assert r.c.public_state()["phase"] == "showdown"
    r.ok("confirm")
    rec = r.c.journal.hands()[0].record
    assert rec["settlement"] == settle_round(rec["round"], load_profile("default")).to_dict()
    assert r.c.journal.hands()[0].status == "settled"


def test_a_refused_command_changes_nothing(rig: Rig) -> None:
    rig.ok("bet", seat=1, bets={"ante": 100, "blind": 100})
    before, n = rig.c.full_state(), rig.events()
    for cmd, args in [("bet", {"seat": 2, "bets": {"ante": 100, "blind": 200}}),  # blind != ante
                      ("bet", {"seat": 2, "bets": {"ante": 50, "blind": 50}}),    # under the minimum
                      ("decide", {"seat": 1, "decision": "play", "multiple": 4}),  # before the deal
                      ("confirm", {}), ("clear", {"reason": "x"}),
                      ("open", {"game": "3cp"}),                                   # hand in progress
                      ("deal", {"hand": 7})]:                                      # wrong hand
        reply = rig.cmd(cmd, **args)
        assert reply["ok"] is False and reply["code"] == "illegal" and reply["error"], (cmd, reply)
    assert rig.c.full_state() == before and rig.events() == n


def test_restart_at_every_step_rebuilds_the_exact_state(rig: Rig) -> None:
    steps: list[tuple[str, dict[str, Any]]] = [
        ("bet", {"seat": 1, "bets": {"ante": 100, "blind": 100, "trips": 100}}),
        ("bet", {"seat": 3, "bets": {"ante": 200, "blind": 200}}),
        *[("card", {"card": c}) for c in UTH_DECK[:6]],
        ("decide", {"seat": 1, "decision": "play", "multiple": 3}),
        ("card", {"card": "2s"}),                      # a card out of turn: a fault
        ("clear", {"reason": "card put back", "then": "continue"}),
        ("decide", {"seat": 3, "decision": "check"}),
        *[("card", {"card": c}) for c in UTH_DECK[6:9]],
        ("decide", {"seat": 3, "decision": "check"}),
        *[("card", {"card": c}) for c in UTH_DECK[9:]],
        ("decide", {"seat": 3, "decision": "fold"}),
    ]
    for cmd, args in steps:
        rig.cmd(cmd, **args)
        before = rig.c.full_state()
        assert rig.restart().full_state() == before
    rig.ok("confirm")
    assert [h.status for h in rig.c.journal.hands()] == ["settled"]
    settled = rig.c.full_state()
    assert settled["phase"] == "settled" and settled["hand"] == 1
    # a restart between hands: the settled hand is back on show, results and all, until the next hand starts
    assert rig.restart().full_state() == settled and rig.c.public_state()["spots"][0]["results"]
    assert rig.c.hand == 2 and rig.restart().full_state() == settled
    rig.ok("bet", seat=1, bets={"ante": 100, "blind": 100})
    betting = rig.c.full_state()
    assert betting["phase"] == "bets" and betting["hand"] == 2 and [s["seat"] for s in betting["spots"]] == [1]
    assert rig.restart().full_state() == betting  # the next hand begun: no going back to the last one
    assert len(rig.c.journal.hands()) == 1  # nothing settled twice


def mid_hand(r: Rig) -> None:
    r.ok("bet", seat=1, bets={"ante": 100, "blind": 100})
    r.cards("As Kd")


FAULTS: list[tuple[str, Any]] = [
    ("duplicate_card", lambda r: r.cmd("card", card="As")),
    ("unexpected_card", lambda r: (r.cards("Qh Jc"), r.cmd("card", card="2c"))),
    ("misread", lambda r: r.c.handle_reading(Misread("shoe", 9))),
    ("lid_open", lambda r: r.c.handle_reading(SensorChange(Sensor.LID_OPEN, True))),
    ("shoe_empty", lambda r: r.c.handle_reading(SensorChange(Sensor.EMPTY, True))),
    ("device_offline", lambda r: r.c.handle_reading(DeviceOffline("shoe", "port closed", OfflineKind.DEVICE_OFFLINE))),
    ("device_silent", lambda r: r.c.handle_reading(DeviceOffline("shoe", "silent for 2.0 s", OfflineKind.DEVICE_SILENT))),
    ("sequence_gap", lambda r: r.c.handle_reading(DeviceFault("shoe", "sequence gap: expected 3, got 5",
                                                              DeviceFaultKind.SEQUENCE_GAP))),
]


@pytest.mark.parametrize("kind, inject", FAULTS, ids=[f[0] for f in FAULTS])
def test_fault_stops_survives_restart_and_clears(rig: Rig, kind: str, inject: Any) -> None:
    mid_hand(rig)
    inject(rig)
    public = rig.c.public_state()
    assert public["fault"]["kind"] == kind and rig.c.light == "fault" and rig.lights[-1] == "fault"
    assert "detail" not in public["fault"]
    refused = rig.cmd("decide", seat=1, decision="check")
    assert refused["ok"] is False and refused["code"] == "fault"
    typed = rig.cmd("card", card="8h")  # a card typed by hand while it stands: clear the fault first
    assert typed["ok"] is False and typed["say"]["key"] == "refusal.card_while_fault"
    rig.c.handle_reading(CardRead("8h", "shoe", 77))  # a card from the shoe while it stands: recorded, not dealt
    assert rig.restart().public_state()["fault"]["kind"] == kind  # survives a restart
    assert rig.c.light == "fault"
    rig.ok("clear", reason="checked the shoe", then="continue")
    assert rig.c.public_state()["fault"] is None and rig.c.light != "fault"
    dealt = len(rig.c.full_state()["spots"][0]["cards"]) + len(rig.c.full_state()["dealer"]["cards"])
    rest = [c for c in "Qh Jc 2c 7d 9h 4s 3c".split()][(dealt - 2):]
    rig.cards(rest[:4 - dealt])
    rig.ok("decide", seat=1, decision="check")
    rig.cards(rest[4 - dealt:7 - dealt])
    rig.ok("decide", seat=1, decision="check")
    rig.cards(rest[7 - dealt:])
    rig.ok("decide", seat=1, decision="play", multiple=1)
    rig.ok("confirm")
    row = rig.c.journal.hands()[0]
    assert row.status == "settled"
    assert row.record["faults"][0]["kind"] == kind
    assert row.record["faults"][0]["cleared"]["reason"] == "checked the shoe"
    assert row.record["ignored"] == [{"card": "8h", "fault": kind}]


def test_fault_cleared_with_void_returns_every_bet(rig: Rig) -> None:
    mid_hand(rig)
    rig.cmd("card", card="Kd")
    assert rig.c.public_state()["fault"]["kind"] == "duplicate_card"
    rig.ok("clear", reason="two decks mixed", then="void")
    row = rig.c.journal.hands()[0]
    assert (row.status, row.record["settlement"]) == ("voided", None)
    assert row.record["round"]["spots"][0]["cards"] == ["As"]
    assert rig.c.public_state()["phase"] == "bets" and rig.c.hand == 2
    assert rig.c.public_state()["spots"] == []


def test_card_faults_outside_the_deal(rig: Rig) -> None:
    rig.cmd("card", card="As")
    assert rig.c.public_state()["fault"]["kind"] == "no_bet"
    rig.ok("clear", reason="stray card")
    uth_to_river(rig)
    rig.ok("decide", seat=3, decision="fold")
    rig.cmd("card", card="8h")
    assert rig.c.public_state()["fault"]["kind"] == "card_count"


def test_void_command(rig: Rig) -> None:
    mid_hand(rig)
    rig.ok("void", reason="player left")
    assert rig.c.journal.hands()[0].record["reason"] == "player left"
    assert rig.cmd("void", reason="again")["ok"] is False


@pytest.mark.parametrize(("reading", "kind"), [
    (DeviceFault("shoe", "frames went missing", DeviceFaultKind.SEQUENCE_GAP), "sequence_gap"),
    (DeviceFault("shoe", "a gap in the sequence of frames", DeviceFaultKind.DEVICE_FAULT), "device_fault"),
    (DeviceOffline("shoe", "quiet since 2.0 s", OfflineKind.DEVICE_SILENT), "device_silent"),
    (DeviceOffline("shoe", "silent: the port closed", OfflineKind.DEVICE_OFFLINE), "device_offline"),
], ids=["gap-reworded", "fault-with-gap-words", "silent-reworded", "offline-with-silent-words"])
def test_the_fault_kind_is_the_readings_kind_whatever_its_words(rig: Rig, reading: Any, kind: str) -> None:
    mid_hand(rig)
    rig.c.handle_reading(reading)
    assert rig.c.public_state()["fault"]["kind"] == kind
    assert rig.restart().public_state()["fault"]["kind"] == kind  # journaled with its kind


@pytest.mark.parametrize(("event", "body", "kind"), [
    # no `kind` journaled: the generic kind, whatever the words (they are never read); the hand stops alike
    ("device_fault", {"device": "shoe", "reason": "sequence gap: expected 3, got 5"}, "device_fault"),
    ("device_fault", {"device": "shoe", "reason": "unreadable frame 4: not a card"}, "device_fault"),
    ("device", {"device": "shoe", "online": False, "reason": "silent for 2.0 s"}, "device_offline"),
    ("device", {"device": "shoe", "online": False, "reason": "link lost: closed"}, "device_offline"),
    ("sensor", {"name": "lid", "active": True, "seq": 9, "device": "shoe"}, "lid_open"),  # the shoe's older name
])
def test_a_journal_from_before_the_kinds_still_replays(rig: Rig, event: str, body: dict[str, Any],
                                                           kind: str) -> None:
    mid_hand(rig)
    rig.c.journal.append(rig.c.hand, event, body, 0.0)  # as the controller of that time journaled it
    assert rig.restart().public_state()["fault"]["kind"] == kind


def test_every_kind_a_device_reports_is_a_table_fault_kind() -> None:
    # declared by the drivers (`drivers.readings`), taken by the table's FaultKind: none without words
    from firmware_host.tables.base import FaultKind
    for kind in (*DeviceFaultKind, *OfflineKind):
        assert FaultKind(kind.value).message


def test_sensors_and_devices_between_hands_raise_nothing(rig: Rig) -> None:
    rig.c.handle_reading(SensorChange("lid_open", True))
    rig.c.handle_reading(DeviceOffline("shoe", "port closed"))
    assert rig.c.fault is None and rig.c.light == "ready"


def test_buttons(rig: Rig) -> None:
    from drivers.buttons import ButtonPress
    rig.ok("bet", seat=1, bets={"ante": 100, "blind": 100})
    rig.c.handle_reading(ButtonPress("next"))
    assert rig.c.public_state()["phase"] == "deal"
    rig.c.handle_reading(ButtonPress("void"))
    assert rig.c.journal.hands()[0].status == "voided"


def test_over_sockets_with_the_sim_shoe(tmp_path: Path, ctx: zmq.Context[Any]) -> None:
    eps = {k: f"ipc://{tmp_path}/{k}" for k in ("public", "snapshot", "full", "full_snapshot", "cmd")}
    feed = Feed(ctx, "t9", public=eps["public"], snapshot=eps["snapshot"], full=eps["full"],
                full_snapshot=eps["full_snapshot"], heartbeat_s=0.2)
    c = Controller(Journal.open(tmp_path / "state"), table="t9", default_setup=UTH, feed=feed)
    c.recover()
    c.journal.quiet_after = 1  # a quiet moment's checkpoint after every commit (32 by default)
    shoe = SimCardReader(c.inbox.post)
    thread = threading.Thread(target=c.run, args=(ctx, eps["cmd"]), daemon=True)
    thread.start()
    try:
        watcher = FeedClient(ctx, eps["public"], eps["snapshot"])
        snap = watcher.fetch_snapshot()
        assert snap["kind"] == "snapshot" and snap["table"] == "t9" and snap["phase"] == "bets"
        dealer = CommandClient(ctx, eps["cmd"])
        assert dealer.request("bet", seat=2, bets={"ante": 100, "blind": 100})["ok"]
        bad = dealer.send_raw(b"\x93garbage")
        assert bad["ok"] is False and bad["code"] == "malformed"
        shoe.start()
        for card in ("As", "Kd", "Qh", "Jc"):
            shoe.deal(card)
        seen: list[dict[str, Any]] = []
        while not seen or seen[-1].get("phase") != "preflop":
            m = watcher.receive(3000)
            assert m is not None, "no update on the feed"
            if m["kind"] == "update":
                seen.append(m)
        seqs = [m["seq"] for m in seen]
        assert seqs == sorted(set(seqs))
        assert all(m["boot"] == feed.boot for m in seen)
        last = seen[-1]
        assert last["spots"][0]["cards"] == ["??", "??"] and last["dealer"]["cards"] == ["??", "??"]
        assert "As" not in repr(seen)
        reply = dealer.request("decide", seat=2, decision="play", multiple=4)
        assert reply["ok"] and reply["phase"] == "flop"
        # the restricted full snapshot shows the hole cards
        full = FeedClient(ctx, eps["full"], eps["full_snapshot"]).fetch_snapshot()
        assert full["spots"][0]["cards"] == ["As", "Qh"]
        # a heartbeat when idle
        while True:
            m = watcher.receive(3000)
            assert m is not None
            if m["kind"] == "heartbeat":
                break
        # the quiet moment before the heartbeat checkpointed the WAL (off the cards' path)
        assert c.journal.checkpoint_due() == float("inf")
        dealer.close()
        watcher.close()
    finally:
        c.stop()
        thread.join(5)
        feed.close()
        c.journal.close()


# -- the service as a child process, with the emulated shoe on socket:// --------------------------

def test_run_survives_sigkill_mid_hand_with_the_emulated_shoe(tmp_path: Path, ctx: zmq.Context[Any]) -> None:
    import signal

    from sim.shoe import SimShoeClient

    shoe, info = start_cli(["sim-shoe", "--tcp", "127.0.0.1:0", "--seed", "7", "--heartbeat", "0.2"], tmp_path)
    config = tmp_path / "table.toml"
    config.write_text(f'''
[table]
name = "kill-test"
game = "uth"
[limits]
minimum = 100
[feed]
public = "ipc://{tmp_path}/pub"
snapshot = "ipc://{tmp_path}/snap"
full = "ipc://{tmp_path}/full"
full_snapshot = ""
[commands]
endpoint = "ipc://{tmp_path}/cmd"
[shoe]
url = "{info['port']}"
silent_s = 5.0
''')
    state = tmp_path / "state"
    run, ready = start_cli(["run", "--config", str(config), "--state", str(state)], tmp_path)
    dealer = CommandClient(ctx, f"ipc://{tmp_path}/cmd", timeout_s=10.0)
    hand = SimShoeClient(info["control"])
    try:
        assert ready["ready"] and ready["hand"] == 1
        assert dealer.request("bet", seat=1, bets={"ante": 100, "blind": 100}, req_id="b1")["ok"]

        def spot_cards() -> int:
            reply = dealer.request("state", retries=3)
            return len(reply["state"]["spots"][0]["cards"]) + len(reply["state"]["dealer"]["cards"])

        drawn = [hand.draw(), hand.draw(), hand.draw()]
        wait_for(lambda: spot_cards() == 3, "three cards dealt")
        run.send_signal(signal.SIGKILL)
        run.wait(10)
        drawn.append(hand.draw())  # leaves the shoe while the controller is down: held, resent
        run, again = start_cli(["run", "--config", str(config), "--state", str(state)], tmp_path)
        assert again["boot"] != ready["boot"] and again["replayed"] >= 4 and again["hand"] == 1
        dealer.close()
        dealer = CommandClient(ctx, f"ipc://{tmp_path}/cmd", timeout_s=10.0)
        assert dealer.request("bet", seat=1, bets={"ante": 100, "blind": 100}, req_id="b1")["duplicate"]
        wait_for(lambda: spot_cards() == 4, "the held card after the restart")
        assert dealer.request("decide", seat=1, decision="check")["ok"]
        drawn += [hand.draw() for _ in range(3)]
        wait_for(lambda: len(dealer.request("state")["state"]["board"]) == 3, "the flop")
        assert dealer.request("decide", seat=1, decision="check")["ok"]
        drawn += [hand.draw() for _ in range(2)]
        wait_for(lambda: len(dealer.request("state")["state"]["board"]) == 5, "the river")
        assert dealer.request("decide", seat=1, decision="play", multiple=1)["ok"]
        assert dealer.request("confirm", req_id="c1")["ok"]
        assert dealer.request("confirm", req_id="c1")["duplicate"]  # re-sent: not settled twice
        rows = Journal.open(state, readonly=True).hands()
        assert [(r.hand, r.status) for r in rows] == [(1, "settled")]
        assert [card for _, card in rows[0].record["deals"]] == drawn
    finally:
        dealer.close()
        hand.close()
        for proc in (run, shoe):
            proc.terminate()
            proc.wait(10)


def test_gpio_devices_from_configuration(rig: Rig) -> None:
    """The sim GPIO backends (gpiozero mock pins): sensors and buttons reach the inbox, the tower
    light follows the table."""
    from cli.run import Devices
    from firmware_host.service.config import Config

    cfg = Config.parse('[gpio]\nbackend = "sim"\n', source="gpio.toml")
    devices = Devices()
    devices.open(cfg, rig.c)
    try:
        light, sensors, buttons = devices.opened
        assert light.state == "ready"

        def pump() -> None:
            for item in rig.c.inbox.drain():
                rig.c.handle_reading(item)

        def press(name: str) -> None:
            pin = buttons.buttons[name].pin
            pin.drive_low()
            pin.drive_high()
            pump()

        rig.ok("bet", seat=1, bets={"ante": 100, "blind": 100})
        press("next")
        assert rig.c.public_state()["phase"] == "deal"
        rig.cards("As Kd")
        sensors.inputs["lid_open"].pin.drive_low()  # active low: the lid opens
        pump()
        assert rig.c.public_state()["fault"]["kind"] == "lid_open" and light.state == "fault"
        sensors.inputs["lid_open"].pin.drive_high()
        pump()
        rig.ok("clear", reason="lid closed again")
        assert light.state == "ready"
        rig.cards("Qh Jc")
        assert light.state == "waiting"  # the pre-flop decision is the dealer's to take
    finally:
        devices.close()


def test_a_start_journals_no_sensor_that_did_not_change(rig: Rig) -> None:
    """The sensors report their state when opened: journaled at the first start, not at the next ones
    (the journal gives the controller their last states back), and again only when one changed."""
    from cli.run import Devices
    from firmware_host.service.config import Config

    cfg = Config.parse('[gpio]\nbackend = "sim"\n', source="gpio.toml")

    def start() -> list[str]:
        """Open the devices on the controller, take what they posted; the sensor events journaled."""
        before = rig.events()
        devices = Devices()
        devices.open(cfg, rig.c)
        try:
            for item in rig.c.inbox.drain():
                rig.c.handle_reading(item)
        finally:
            devices.close()
        return [f"{e.body['name']}={e.body['active']}" for e in rig.c.journal.events() if e.id > before]

    assert sorted(start()) == ["lid_open=False", "shoe_present=True"]
    assert rig.c.sensors == {"lid_open": False, "shoe_present": True}
    rig.restart()
    assert rig.c.sensors == {"lid_open": False, "shoe_present": True} and start() == []
    rig.c.handle_reading(SensorChange("lid_open", True))  # a change is journaled, and known after a restart
    rig.restart()
    assert rig.c.sensors["lid_open"] is True and start() == ["lid_open=False"]
    rig.ok("bet", seat=1, bets={"ante": 100, "blind": 100})
    rig.ok("void", reason="no player")  # a closed hand: its events are not replayed
    rig.restart()
    assert start() == []


def test_the_feed_holds_its_own_copy_of_the_full_state(tmp_path: Path, ctx: zmq.Context[Any]) -> None:
    """A snapshot served later shows the state as it was published, not the controller's live dicts."""
    import copy

    from drivers.card_reader import CardRead
    from drivers.readings import DeviceOnline

    feed = Feed(ctx, "t", public=f"ipc://{tmp_path}/p", snapshot=f"ipc://{tmp_path}/s", full=f"ipc://{tmp_path}/f",
                full_snapshot=f"ipc://{tmp_path}/fs")
    c = Controller(Journal.open(tmp_path / "j"), default_setup=UTH, feed=feed)
    try:
        c.recover()
        c.handle_reading(DeviceOnline("shoe", "sim", "1", "1.0", 7))
        c.handle_reading(SensorChange("lid_open", False))
        c.handle_command(Command.from_mapping({"cmd": "bet", "seat": 1, "bets": {"ante": 100, "blind": 100}}))
        c.handle_reading(CardRead("As", "shoe", 5))
        held = copy.deepcopy(feed._full_state)
        assert held["devices"]["shoe"]["seq"] == 5 and held["sensors"] == {"lid_open": False}
        c.devices["shoe"]["seq"] = 6  # the live dicts move on (in place, as readings do)...
        c.sensors["lid_open"] = True
        assert feed._full_state == held  # ...the state the feed serves does not
    finally:
        c.journal.close()
        feed.close()


def test_readings_that_arrive_together_share_one_commit(tmp_path: Path, ctx: zmq.Context[Any]) -> None:
    """Readings drained from the inbox at once: one transaction, one commit, each state published in
    order after it; a reading the table cannot apply is journaled as refused (never dropped) and
    stops the hand with a fault; the journal replays to the same state as readings taken one by one."""
    from drivers.card_reader import CardRead

    def refuse(body: Any, event_id: int) -> None:
        raise EngineError("refused for the test")

    readings = [CardRead("As", "shoe", 1), Misread("shoe", 2), CardRead("Kd", "shoe", 3),
                SensorChange("lid_open", False), SensorChange("lid_open", False), CardRead("Qh", "shoe", 4)]
    finals = []
    for name, together in (("one", False), ("all", True)):
        feed = Feed(ctx, name, public=f"ipc://{tmp_path}/{name}-p", snapshot=f"ipc://{tmp_path}/{name}-s",
                    full=f"ipc://{tmp_path}/{name}-f", full_snapshot=f"ipc://{tmp_path}/{name}-fs")
        c = Controller(Journal.open(tmp_path / name), default_setup=UTH, feed=feed)
        c.recover()
        assert c.handle_command(Command.from_mapping({"cmd": "bet", "seat": 1, "bets": {"ante": 100, "blind": 100}}))["ok"]
        c.state._handlers["misread"] = refuse  # a reading the table cannot apply (a bug's stand-in)
        commits, seq, events = 0, feed.seq, sum(1 for _ in c.journal.events())
        commit = c.journal.commit

        def counted() -> None:
            nonlocal commits
            commits += 1
            commit()

        c.journal.commit = counted  # type: ignore[method-assign]
        if together:
            c.handle_readings(readings)
        else:
            for reading in readings:
                c.handle_reading(reading)
        kinds = [e.kind for e in c.journal.events() if e.id > events]
        assert kinds == ["card", "refused", "card", "sensor", "card"]  # the repeated sensor: not there
        refused = [e for e in c.journal.events() if e.kind == "refused"][0].body
        assert refused == {"kind": "misread", "body": {"source": "shoe", "seq": 2}, "error": "refused for the test"}
        assert c.fault is not None and c.fault.kind == "refused_reading"
        assert c.full_state()["ignored"] == [{"card": "Kd", "fault": "refused_reading"},
                                             {"card": "Qh", "fault": "refused_reading"}]
        assert commits == (1 if together else 5) and feed.seq == seq + 5  # every state published
        state = c.full_state()
        c.journal.close()
        again = Controller(Journal.open(tmp_path / name), default_setup=UTH)
        again.recover()
        assert again.full_state() == state
        again.journal.close()
        feed.close()
        finals.append(state)
    assert finals[0] == finals[1]


def test_a_run_of_chip_readings_shows_once_after_its_last(tmp_path: Path, ctx: zmq.Context[Any]) -> None:
    """A scan that moved many circles: each chip reading journaled, one state published for the run of them
    (the state after the last, the same as when they are taken one by one); a reading of another kind after
    the run shows on its own."""
    from drivers.readings import ChipsRead
    from engine.chips import ChipSet

    text = (Path(__file__).resolve().parents[2] / "deploy" / "chips-demo.csv").read_text(encoding="utf-8")
    chips = ChipSet.from_csv(text)
    uids = [chip.uid for chip in chips if chips.why_foreign(chip.uid) is None][:6]
    readings = [ChipsRead(f"spot{seat}.ante", frozenset(uids[2 * seat - 2:2 * seat]), False) for seat in (1, 2, 3)]
    finals = []
    for name, together in (("one", False), ("all", True)):
        feed = Feed(ctx, name, public=f"ipc://{tmp_path}/{name}-p", snapshot=f"ipc://{tmp_path}/{name}-s",
                    full=f"ipc://{tmp_path}/{name}-f", full_snapshot=f"ipc://{tmp_path}/{name}-fs")
        c = Controller(Journal.open(tmp_path / name), default_setup=UTH, feed=feed,
                       chip_set={"name": "chips-demo.csv", "sha256": chips.sha256(), "text": text})
        c.recover()
        seq, events = feed.seq, sum(1 for _ in c.journal.events())
        batch = [*readings, SensorChange("lid_open", True)]
        if together:
            c.handle_readings(batch)
        else:
            for reading in batch:
                c.handle_reading(reading)
        assert [e.kind for e in c.journal.events() if e.id > events] == (  # together: the run is one event, one step
            ["chip_scan", "sensor"] if together else ["chip_scan", "chip_scan", "chip_scan", "sensor"])
        assert feed.seq == seq + (2 if together else 4)  # together: the run of chips once, then the sensor
        circles = c.public_state()["chips"]["circles"]
        assert [(x["seat"], x["value"]) for x in circles] == [(s, chips.value(uids[2 * s - 2:2 * s])) for s in (1, 2, 3)]
        finals.append(c.full_state())
        c.journal.close()
        feed.close()
    assert finals[0] == finals[1]


def test_the_shoe_resume_point_survives_finished_hands(rig: Rig) -> None:
    from drivers.card_reader import CardRead
    from drivers.readings import DeviceOnline

    rig.c.handle_reading(DeviceOnline("shoe", "CR-SIM", "S1", "1.0.0", 77))
    rig.ok("bet", seat=1, bets={"ante": 100, "blind": 100})
    rig.c.handle_reading(CardRead("As", "shoe", 5))
    rig.c.handle_reading(CardRead("As", "shoe", 5))  # the link's retransmit: taken once
    assert rig.c.public_state()["fault"] is None
    rig.ok("void", reason="test")
    assert rig.restart().device_resume("shoe") == (77, 5)
    rig.c.handle_reading(SensorChange("lid_open", True))
    rig.ok("bet", seat=1, bets={"ante": 100, "blind": 100})
    rig.c.handle_reading(CardRead("Kd", "shoe", 6))
    rig.ok("void", reason="test")
    rig.restart()
    assert rig.c.device_resume("shoe") == (77, 6) and rig.c.sensors == {"lid_open": True}


def test_showdown_called_short_of_cards_is_a_fault(rig: Rig) -> None:
    rig.ok("bet", seat=1, bets={"ante": 100, "blind": 100})
    assert rig.cmd("confirm")["code"] == "illegal"  # before the deal: simply refused
    rig.cards("As Kd Qh")
    rig.ok("confirm")
    fault = rig.c.full_state()["fault"]
    assert fault["kind"] == "card_count" and "too few cards" in fault["detail"] and "dealer" in fault["detail"]
    rig.ok("clear", reason="missing card found under the shoe")
    rig.ok("card", card="Jc")  # entered by hand
    assert rig.c.public_state()["phase"] == "preflop"
    assert rig.cmd("confirm")["code"] == "illegal"  # a decision is awaited: refused, no fault


def test_run_refuses_a_shoe_with_unsupported_firmware(tmp_path: Path) -> None:
    import subprocess
    import sys

    shoe, info = start_cli(["sim-shoe", "--tcp", "127.0.0.1:0", "--firmware", "2.0.0"], tmp_path)
    config = tmp_path / "table.toml"
    config.write_text(f'''
[table]
game = "uth"
[feed]
public = "ipc://{tmp_path}/pub"
snapshot = "ipc://{tmp_path}/snap"
full = ""
full_snapshot = ""
[commands]
endpoint = "ipc://{tmp_path}/cmd"
[shoe]
url = "{info['port']}"
''')
    try:
        run = subprocess.run([sys.executable, "-m", "cli", "run", "--config", str(config),
                              "--state", str(tmp_path / "state")], capture_output=True, text=True, timeout=30)
        assert run.returncode != 0
        assert "unsupported" in run.stderr and "2.0.0" in run.stderr
        assert '"ready"' not in run.stdout
    finally:
        shoe.terminate()
        shoe.wait(10)


def test_the_shoe_served_from_the_controllers_loop(tmp_path: Path, ctx: zmq.Context[Any]) -> None:
    """A driven shoe link (how `croupier run` serves the shoe): its cards are read, journaled and
    published by the controller's own thread; `state` answers what the feed last showed."""
    from drivers.shoe_link import ShoeLink
    from sim.shoe import ShoeFirmware, SimShoeClient, SimShoeServer

    eps = {k: f"ipc://{tmp_path}/{k}" for k in ("public", "snapshot", "cmd")}
    feed = Feed(ctx, "t8", public=eps["public"], snapshot=eps["snapshot"], heartbeat_s=0.2)
    c = Controller(Journal.open(tmp_path / "state"), table="t8", default_setup=UTH, feed=feed)
    c.recover()
    server = SimShoeServer(ShoeFirmware(seed=3, boot=5, heartbeat_s=0.1), link="tcp").start()
    link = ShoeLink(c.inbox.post, url=server.port_url)
    threads = threading.active_count()
    assert link.start(timeout=5, driven=True) is not None and link.driven
    c.add_pollable(link)
    thread = threading.Thread(target=c.run, args=(ctx, eps["cmd"]), daemon=True)
    thread.start()
    try:
        watcher = FeedClient(ctx, eps["public"], eps["snapshot"])
        watcher.fetch_snapshot()
        dealer = CommandClient(ctx, eps["cmd"])
        assert dealer.request("bet", seat=1, bets={"ante": 100, "blind": 100})["ok"]
        assert dealer.request("deal")["ok"]
        with SimShoeClient(server.control_address) as shoe:
            drawn = shoe.request("draw 4").split()
        last: dict[str, Any] = {}
        while last.get("phase") != "preflop":
            m = watcher.receive(3000)
            assert m is not None, "no update on the feed"
            if m["kind"] == "update":
                last = m
        reply = dealer.request("state")
        assert reply["state"] == {k: v for k, v in last.items() if k not in ("table", "boot", "seq", "kind")}
        assert threading.active_count() == threads + 1  # the controller's thread; none for the link
        full = [e.body["card"] for e in c.journal.events() if e.kind == "card"]
        assert full == drawn and link.stats.accepted == 4
        dealer.close()
        watcher.close()
    finally:
        c.stop()
        thread.join(5)
        link.close()
        server.close()
        feed.close()
        c.journal.close()


def test_a_step_whose_commit_fails_is_not_applied(rig: Rig, monkeypatch: pytest.MonkeyPatch) -> None:
    """Replied `journal` means nothing was applied: the bet is not on the table, is not published
    with the next accepted step, and a failed `deal` leaves the betting open."""
    from firmware_host.service.journal import Journal, JournalError

    rig.ok("bet", seat=1, bets={"ante": 100, "blind": 100})
    before = rig.c.full_state()
    real_commit = Journal.commit

    def full_disk(self: Journal) -> None:
        self.rollback()
        raise JournalError(f"{self.path}: commit failed: database or disk is full")

    monkeypatch.setattr(Journal, "commit", full_disk)
    for cmd, args in (("bet", {"seat": 3, "bets": {"ante": 200, "blind": 200}}), ("deal", {})):
        reply = rig.cmd(cmd, **args)
        assert reply["ok"] is False and reply["code"] == "journal", reply
        assert rig.c.full_state() == before
    monkeypatch.setattr(Journal, "commit", real_commit)
    rig.ok("bet", seat=5, bets={"ante": 100, "blind": 100})
    state = rig.c.public_state()
    assert [s["seat"] for s in state["spots"] if s["bets"]] == [1, 5] and state["phase"] == "bets"
    assert rig.restart().full_state() == rig.c.full_state()

