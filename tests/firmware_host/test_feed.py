"""Tests of the feed over real ZeroMQ sockets: seq, boot, heartbeats, snapshots, restricted full socket."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import zmq

from engine import redact
from protocol.feed import Feed, FeedClient, FeedError, Named, apply_changes, named_changes, pack, state_of, unpack
from tests.firmware_host.processes import CARD_TEXTS, Published, strings_in


class FakeClock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def endpoints(tmp_path: Path) -> dict[str, str]:
    return {k: f"ipc://{tmp_path}/{k}" for k in ("public", "snapshot", "full", "full_snapshot")}


def subscriber(ctx: zmq.Context[Any], ep: str) -> zmq.Socket[Any]:
    sub = ctx.socket(zmq.SUB)
    sub.setsockopt(zmq.SUBSCRIBE, b"")
    sub.connect(ep)
    return sub


def settle_subscription(feed: Feed, sub: zmq.Socket[Any]) -> None:
    """Publish heartbeats until the subscriber sees one (slow joiner), then drain."""
    for _ in range(200):
        feed.tick(now=feed._last_sent + feed.heartbeat_s)
        if sub.poll(10):
            while sub.poll(20):
                sub.recv()
            return
    raise AssertionError("subscriber never connected")


def test_updates_and_heartbeats_carry_table_boot_seq(ctx: zmq.Context[Any], tmp_path: Path) -> None:
    clock = FakeClock()
    eps = endpoints(tmp_path)
    feed = Feed(ctx, "t1", **eps, heartbeat_s=1.0, clock=clock)
    sub = subscriber(ctx, eps["public"])
    full = subscriber(ctx, eps["full"])
    settle_subscription(feed, sub)
    while full.poll(20):
        full.recv()
    before = feed.seq
    feed.publish({"phase": "deal", "spots": [{"seat": 1, "cards": ["??"]}], "fault": None},
                 {"phase": "deal", "spots": [{"seat": 1, "cards": ["As"]}], "fault": None})
    m = unpack(sub.recv())
    f = unpack(full.recv())
    assert m == {"table": "t1", "boot": feed.boot, "seq": before + 1, "kind": "changes", "del": [],
                 "set": {"phase": "deal", "spots": [{"seat": 1, "cards": ["??"]}], "fault": None}}
    assert f["seq"] == m["seq"] and f["set"]["spots"][0]["cards"] == ["As"]
    # the next step sends only what changed, and the keys gone
    feed.publish({"phase": "deal", "spots": [{"seat": 1, "cards": ["??", "??"]}]},
                 {"phase": "deal", "spots": [{"seat": 1, "cards": ["As", "Kd"]}]})
    m, f = unpack(sub.recv()), unpack(full.recv())
    assert m == {"table": "t1", "boot": feed.boot, "seq": before + 2, "kind": "changes",
                 "set": {"spots": [{"seat": 1, "cards": ["??", "??"]}]}, "del": ["fault"]}
    assert f["set"] == {"spots": [{"seat": 1, "cards": ["As", "Kd"]}]} and f["del"] == ["fault"]
    before += 1
    clock.now += 0.5
    assert not feed.tick()           # not idle long enough
    clock.now += 0.6
    assert feed.tick()
    hb = unpack(sub.recv())
    assert hb == {"table": "t1", "boot": feed.boot, "seq": before + 2, "kind": "heartbeat"}
    feed.close()


def test_a_feed_for_old_clients_sends_whole_states(ctx: zmq.Context[Any], tmp_path: Path) -> None:
    """`[feed] changes = false`: every step the whole state, as an `update` (a client that does not
    follow changes yet); `FeedClient` takes it the same."""
    eps = endpoints(tmp_path)
    feed = Feed(ctx, "t1", **eps, clock=FakeClock(), changes=False)
    sub = subscriber(ctx, eps["public"])
    settle_subscription(feed, sub)
    feed.publish({"phase": "bets", "hand": 7, "board": []})
    feed.publish({"phase": "deal", "hand": 7, "board": []})
    unpack(sub.recv())
    m = unpack(sub.recv())
    assert m == {"table": "t1", "boot": feed.boot, "seq": feed.seq, "kind": "update", "phase": "deal", "hand": 7,
                 "board": []}
    feed.close()


def test_changes_applied_in_order_give_the_state_a_snapshot_gives(ctx: zmq.Context[Any], tmp_path: Path) -> None:
    """A follower rebuilding the state from the changes holds, at every step, the state a late joiner's
    snapshot would get (keys set, changed, removed, nested values)."""
    import random

    rng = random.Random(23)
    eps = endpoints(tmp_path)
    feed = Feed(ctx, "t1", **eps, clock=FakeClock())
    sub = subscriber(ctx, eps["public"])
    settle_subscription(feed, sub)
    state: dict[str, Any] = dict(feed._public_state)
    spots = [{"seat": seat, "cards": []} for seat in range(1, 8)]
    kinds: set[str] = set()
    for step in range(200):
        # a list changed in one place, grown, cut, or made anew; scalars set and removed
        spots = list(spots)
        move = rng.random()
        if move < 0.5 and spots:
            at = rng.randrange(len(spots))
            spots[at] = {**spots[at], "cards": [*spots[at]["cards"], "??"]}
        elif move < 0.7:
            spots.append({"seat": len(spots) + 1, "cards": []})
        elif move < 0.8:
            spots = spots[: rng.randrange(len(spots) + 1)]
        elif move < 0.9:
            spots = [{"seat": seat, "cards": ["??"]} for seat in range(1, rng.randrange(9))]
        published: dict[str, Any] = {key: rng.choice([step, [step, {"seat": 1}], None, "x"])
                                     for key in ("hand", "phase", "fault", "next") if rng.random() < 0.8}
        if rng.random() < 0.95:
            published["spots"] = spots
        feed.publish(published)
        message = unpack(sub.recv())
        assert message["kind"] == "changes" and message["seq"] == feed.seq
        kinds |= {part for part in ("set", "del", "items") if message.get(part)}  # the parts with something in them
        state = apply_changes(state, message)
        client = ctx.socket(zmq.DEALER)
        client.connect(eps["snapshot"])
        client.send(pack({"want": "snapshot"}))
        assert feed.snap.poll(2000) and feed.serve_snapshots(feed.snap) == 1
        snap = unpack(client.recv())
        client.close(0)
        assert state == state_of(snap) == published and snap["seq"] == message["seq"]
    assert kinds == {"set", "del", "items"}  # every part of a changes message was exercised
    feed.close()


def test_a_card_to_one_spot_sends_that_spot_alone(ctx: zmq.Context[Any], tmp_path: Path) -> None:
    eps = endpoints(tmp_path)
    feed = Feed(ctx, "t1", **eps, clock=FakeClock())
    sub = subscriber(ctx, eps["public"])
    settle_subscription(feed, sub)
    spots = [{"seat": seat, "cards": ["??"], "bets": {"ante": 500}} for seat in range(1, 8)]
    feed.publish({"phase": "deal", "spots": spots, "next": "spot 3"})
    unpack(sub.recv())
    dealt = [*spots[:2], {**spots[2], "cards": ["??", "??"]}, *spots[3:]]
    feed.publish({"phase": "deal", "spots": dealt, "next": "spot 4"})
    assert unpack(sub.recv()) == {"table": "t1", "boot": feed.boot, "seq": feed.seq, "kind": "changes",
                                  "set": {"next": "spot 4"}, "del": [],
                                  "items": {"spots": [7, [[2, {"seat": 3, "cards": ["??", "??"], "bets": {"ante": 500}}]]]}}
    feed.close()


def test_a_cards_named_changes_go_out_only_against_the_states_sent_last(ctx: zmq.Context[Any], tmp_path: Path) -> None:
    """A step's changes made from the parts it named (`named_changes`: a spot's place, a list grown at its end, a
    part whole) go out as they are when taken from the very states the feed sent last, and rebuild the new states;
    taken from any other states, the feed finds its own changes (`diff`)."""
    eps = endpoints(tmp_path)
    feed = Feed(ctx, "t1", **eps, clock=FakeClock())
    subs = [subscriber(ctx, eps["public"]), subscriber(ctx, eps["full"])]
    for sub in subs:
        settle_subscription(feed, sub)
    while subs[0].poll(20):  # the heartbeats the full subscriber's settling sent
        subs[0].recv()
    spots = [{"seat": seat, "cards": ["Ah"], "visible": [False]} for seat in range(1, 8)]
    full = {"phase": "deal", "spots": spots, "next": "spot 3", "sequence": [{"do": "deal"}], "legal": None}
    public = redact.public(full)
    feed.publish(public, full, redacted=True)
    rebuilt = [apply_changes({}, unpack(sub.recv())) for sub in subs]
    dealt = [*spots[:2], {**spots[2], "cards": ["Ah", "Kd"], "visible": [False, False]}, *spots[3:]]
    full2 = {**full, "spots": dealt, "next": "spot 4", "sequence": [*full["sequence"], {"do": "card"}], "legal": None}
    public2 = redact.public(full2)
    keys, grown, places = ["spots", "next", "sequence", "legal"], frozenset({"sequence"}), {"spots": [2]}
    named = Named(public, full, named_changes(public, public2, keys, grown, places),
                  named_changes(full, full2, keys, grown, places))
    assert named.public == {"set": {"next": "spot 4"}, "del": [], "items": {"spots": [7, [[2, public2["spots"][2]]]]}}
    assert named.full["items"]["sequence"] == [2, [[1, {"do": "card"}]]]
    feed.publish(public2, full2, redacted=True, named=named)
    for i, (sub, state) in enumerate(zip(subs, (public2, full2))):
        message = unpack(sub.recv())
        assert {k: message[k] for k in ("set", "del", "items")} == (named.public, named.full)[i]
        rebuilt[i] = apply_changes(rebuilt[i], message)
        assert rebuilt[i] == state
    assert "Kd" not in set(strings_in(named.public))
    feed.publish(public, full, redacted=True, named=named)  # stale: taken from other states than those sent last
    assert apply_changes(public2, unpack(subs[0].recv())) == public
    feed.close()


def test_snapshot_for_a_late_joiner(ctx: zmq.Context[Any], tmp_path: Path) -> None:
    eps = endpoints(tmp_path)
    feed = Feed(ctx, "t1", **eps, clock=FakeClock())
    feed.publish({"phase": "bets", "hand": 7}, {"phase": "bets", "hand": 7, "secret": 1})
    feed.publish({"phase": "deal", "hand": 7}, {"phase": "deal", "hand": 7, "secret": 1})
    for sock_ep, sock, want_secret in ((eps["snapshot"], feed.snap, False),
                                       (eps["full_snapshot"], feed.full_snap, True)):
        for kind in (zmq.DEALER, zmq.REQ):
            client = ctx.socket(kind)
            client.connect(sock_ep)
            client.send(pack({"want": "snapshot"}))
            assert sock is not None and sock.poll(2000)
            assert feed.serve_snapshots(sock) == 1
            assert client.poll(2000)
            snap = unpack(client.recv())
            assert snap["kind"] == "snapshot" and snap["seq"] == feed.seq and snap["phase"] == "deal"
            assert ("secret" in snap) is want_secret
            client.close(0)
    feed.close()


def test_client_follows_clone_pattern(ctx: zmq.Context[Any], tmp_path: Path) -> None:
    import threading

    eps = endpoints(tmp_path)
    feed = Feed(ctx, "t1", **eps, clock=FakeClock())
    feed.publish({"phase": "bets", "hand": 1})
    stop = threading.Event()

    def serve() -> None:  # the controller's loop answers snapshots; here a thread owns the ROUTER
        while not stop.is_set():
            if feed.snap.poll(10):
                feed.serve_snapshots(feed.snap)

    server = threading.Thread(target=serve)
    server.start()
    try:
        client = FeedClient(ctx, eps["public"], eps["snapshot"])
        first = client.receive(2000)
        assert first is not None and first["kind"] == "snapshot" and first["seq"] == 1
        assert client.state == {"phase": "bets", "hand": 1}
        for _ in range(200):  # heartbeats until the subscription reaches the PUB socket (slow joiner)
            feed.tick(now=feed._last_sent + feed.heartbeat_s)
            if client.receive(10) is not None:
                break
        assert client.seq == feed.seq  # a heartbeat lost before that was answered by a new snapshot
        feed.publish({"phase": "deal", "hand": 1})
        m = client.receive(2000)
        assert m is not None and m["kind"] == "update" and client.state == {"phase": "deal", "hand": 1}
        client.close()
    finally:
        stop.set()
        server.join()
        feed.close()


def test_client_takes_a_new_snapshot_after_a_gap(tmp_path: Path, ctx: zmq.Context[Any]) -> None:
    import threading

    feed = Feed(ctx, "t", public=f"ipc://{tmp_path}/p", snapshot=f"ipc://{tmp_path}/s", heartbeat_s=60)
    stop = threading.Event()

    def serve() -> None:  # the controller's loop answers snapshots; here a thread owns the ROUTER
        while not stop.is_set():
            if feed.snap.poll(10):
                feed.serve_snapshots(feed.snap)

    server = threading.Thread(target=serve)
    server.start()
    try:
        feed.set_state({"hand": 1})
        client = FeedClient(ctx, f"ipc://{tmp_path}/p", f"ipc://{tmp_path}/s", timeout_s=2)
        assert client.receive(100) is not None and client.state == {"hand": 1}  # the snapshot
        for i in range(100):  # heartbeats (fake clock) until the subscription has reached the PUB socket
            feed.tick(now=10**9 + 100 * i)
            if client.receive(20) is not None:
                break
        assert client.seq == feed.seq and client.gaps == 0
        feed.seq += 1  # an update the subscriber never got (a slow joiner loses what came before it)...
        feed.set_state({"hand": 2})
        feed.tick(now=10**10)  # ...then a heartbeat: taken at face value, the old state would look current
        message = client.receive(2000)
        assert message is not None and message["kind"] == "snapshot"
        assert client.state == {"hand": 2} and client.gaps == 1 and client.seq == feed.seq
        feed.publish({"hand": 2, "phase": "deal"})  # the next one in sequence is taken as it is
        message = client.receive(2000)
        assert message is not None and message["kind"] == "update" and client.gaps == 1
        assert client.state == {"hand": 2, "phase": "deal"}
        client.close()
    finally:
        stop.set()
        server.join()
        feed.close()


def test_full_socket_must_be_restricted(ctx: zmq.Context[Any], tmp_path: Path) -> None:
    eps = endpoints(tmp_path)
    with pytest.raises(FeedError, match="loopback"):
        Feed(ctx, "t1", public=eps["public"], snapshot=eps["snapshot"], full="tcp://0.0.0.0:45558")


def test_bind_conflict_is_a_feed_error(ctx: zmq.Context[Any], tmp_path: Path) -> None:
    eps = endpoints(tmp_path)
    feed = Feed(ctx, "t1", public="tcp://127.0.0.1:*", snapshot=eps["snapshot"])
    taken = feed.pub.getsockopt(zmq.LAST_ENDPOINT).decode()
    with pytest.raises(FeedError, match="cannot bind"):
        Feed(ctx, "t2", public=taken, snapshot=f"ipc://{tmp_path}/other")
    feed.close()


# -- hidden cards stay hidden: every public message of hundreds of random hands (thousands in make soak) --


def _card_like(text: str) -> set[str]:
    """Every card text inside a string (a fault message could embed one)."""
    import re
    return set(re.findall(r"\b([2-9TJQKA][cdhs])\b", text))


_UID = __import__("re").compile(r"\b[0-9A-F]{16}\b")


def check_public(public: dict[str, Any], full: dict[str, Any], shown: dict[int, set[str]]) -> None:
    """The public view shows no card the rules keep hidden at that moment. `history` (the last
    hands) is checked against the hands it came from: each past hand holds only cards that hand
    showed the public while on show (`shown`, per hand number, filled here from each view)."""
    assert not {"burns", "discards", "ignored", "devices", "sensors"} & set(public)
    assert public == redact.public(full)  # the table's redaction, which keeps unchanged parts, is the one redaction
    shown_phase = full["phase"] in ("showdown", "settled")
    visible = set(full["board"])
    if shown_phase:
        visible |= set(full["dealer"]["cards"])
        for spot in full["spots"]:
            visible |= set(spot["cards"])
    current = {key: value for key, value in public.items() if key != "history"}
    if shown_phase and public.get("hand") is not None:
        shown.setdefault(public["hand"], set()).update(set(strings_in(current)) & CARD_TEXTS)
    for past in public.get("history", []):
        assert set(strings_in(past)) & CARD_TEXTS <= shown.get(past["hand"], set()), f"{past}: more than it showed"
    for text in strings_in(current):
        if len(text) == 2:
            assert text == "??" or text not in CARD_TEXTS or text in visible, f"{text} leaked in {public}"
        else:
            leaked = _card_like(text) & (CARD_TEXTS - visible)
            assert not leaked, f"{leaked} in {text!r}"
    assert public["board"] == full["board"]
    for pub_spot, full_spot in zip(public["spots"], full["spots"], strict=True):
        assert len(pub_spot["cards"]) == len(full_spot["cards"])
        if not shown_phase:
            assert set(pub_spot["cards"]) <= {"??"}
        else:
            assert pub_spot["cards"] in (full_spot["cards"], ["??"] * len(full_spot["cards"]))
    if not shown_phase:
        assert set(public["dealer"]["cards"]) <= {"??"}
    assert len(public["dealer"]["cards"]) == len(full["dealer"]["cards"])
    if public.get("fault") is not None:
        assert "detail" not in public["fault"]
    uids = [text for text in strings_in(public) if _UID.search(text)]  # a chip's UID: the full feed's only
    assert not uids, f"chip UIDs {uids} on the public feed"
    for burn in full.get("burns", []):
        assert burn not in set(strings_in(current))  # a past hand's shown card may be the same text


def test_no_public_message_ever_carries_a_hidden_card(tmp_path: Path) -> None:
    """100 random hands in `make test` (the game changed twice among them); 5,000 in `make soak`, the game
    changed every 100. The views the controller publishes at each step (the reducer's public and full views);
    the same through the real feed and its snapshots: tests/firmware_host/test_poker_table.py."""
    _no_hidden_card_in(tmp_path, 100, per_game=34)


@pytest.mark.soak
def test_no_public_message_ever_carries_a_hidden_card_over_5000_hands(tmp_path: Path) -> None:
    _no_hidden_card_in(tmp_path, 5000, per_game=100)


def _no_hidden_card_in(tmp_path: Path, hands: int, per_game: int) -> None:
    import random

    from drivers.card_reader import CardRead, Misread
    from protocol.commands import Command
    from firmware_host.service.controller import Controller
    from firmware_host.service.journal import Journal
    from firmware_host.tables.house.table import HouseSetup

    shm = Path("/dev/shm")
    state = Path(tempfile_dir(shm)) if shm.is_dir() else tmp_path / "state"
    published = Published()
    rng = random.Random(20261129)
    from drivers.readings import ChipsRead, DeviceOffline, OfflineKind
    from engine.chips import ChipSet

    text = (Path(__file__).resolve().parents[2] / "deploy" / "chips-demo.csv").read_text(encoding="utf-8")
    chip_set = ChipSet.from_csv(text)
    active = [chip.uid for chip in chip_set if chip_set.why_foreign(chip.uid) is None]
    foreign = [chip.uid for chip in chip_set if chip_set.why_foreign(chip.uid) is not None]
    c = Controller(Journal.open(state), table="prop", feed=published, chip_set={
                   "name": "chips-demo.csv", "sha256": chip_set.sha256(), "text": text},
                   default_setup=HouseSetup("uth", "standard", {"minimum": 100}, 7))
    c.recover()
    # chips read in the circles and the tray (foreign ones among them), the reader said offline: bets stay typed
    c.handle_reading(DeviceOffline("chips", "test", OfflineKind.DEVICE_OFFLINE))

    def chips_read() -> None:
        antenna = rng.choice(["tray", *(f"spot{s}.{b}" for s in range(1, 8) for b in ("ante", "trips", "play"))])
        uids = rng.sample(active, rng.randint(0, 4)) + ([rng.choice(foreign)] if rng.random() < 0.2 else [])
        c.handle_reading(ChipsRead(antenna, frozenset(uids), rng.random() < 0.7))

    seq = 0
    checked = 0
    shown: dict[int, set[str]] = {}  # each hand's cards the public saw while it was on show
    people = random.Random(25)  # player cards at the seats, drawn apart (the hands' draws stay as they were)
    player_cards: set[str] = set()

    def do(cmd: str, **args: Any) -> dict[str, Any]:
        return c.handle_command(Command.from_mapping({"cmd": cmd, **args}))

    def drain() -> int:
        for public, full in published.views[checked:]:
            check_public(public, full, shown)
            texts = strings_in(public)  # a player card's number, or its last four, never public (docs/ratings.md)
            assert not any(card[-4:] in text for card in player_cards for text in texts)
        return len(published.views) - checked

    def seat_people() -> None:
        from drivers.readings import PlayerCardRead

        seat, r = people.randint(1, 7), people.random()
        if r < 0.3:
            card = f"7{people.randrange(10 ** 8):08d}QZ{people.choice('KMNP')}"
            player_cards.add(card)
            if people.random() < 0.5:
                c.handle_reading(PlayerCardRead(seat, card))
            else:
                assert do("player", seat=seat, action="in", card=card)["ok"]
        elif r < 0.45:
            do("player", seat=seat, action=people.choice(["out", "away", "back"]))  # refused at an empty seat

    for hand in range(hands):
        if hand % per_game == 0:
            game = "3cp" if (hand // per_game) % 2 else "uth"
            profile = rng.choice(["default", "standard"])
            assert do("open", game=game, profile=profile, limits={"minimum": 100})["ok"]
        seat_people()
        table = c.table
        assert table is not None
        game = table.setup.game
        seats = rng.sample(range(1, 8), rng.randint(5 if game == "3cp" else 1, 7))
        for seat in seats:
            ante = 100 * rng.randint(1, 5)
            if game == "uth":
                bets = {"ante": ante, "blind": ante} | ({"trips": 100} if rng.random() < 0.5 else {})
            else:
                bets = {"ante": ante} | ({"pair_plus": 100} if rng.random() < 0.5 else {})
            assert do("bet", seat=seat, bets=bets)["ok"]
        deck = [str(x) for x in __import__("engine.cards", fromlist=["DECK"]).DECK]
        rng.shuffle(deck)
        dealt: list[str] = []
        voided = False
        while True:
            rnd = c.state.need_table().round  # type: ignore[attr-defined]
            if c.fault is not None:
                assert do("clear", reason="checked", then=rng.choice(["continue", "continue", "void"]))["ok"]
                if c.table is not None and c.table.hand != hand + 1:
                    voided = True
                    break
                continue
            if rnd.phase == "showdown":
                break
            if rng.random() < 0.05:
                chips_read()
                continue
            if rnd.next_target() is not None:
                r = rng.random()
                if r < 0.01 and dealt:
                    seq = (seq + 1) % 256
                    c.handle_reading(CardRead(rng.choice(dealt), "shoe", seq))  # duplicate
                    continue
                if r < 0.015:
                    seq = (seq + 1) % 256
                    c.handle_reading(Misread("shoe", seq))
                    continue
                card = deck.pop()
                seq = (seq + 1) % 256
                c.handle_reading(CardRead(card, "shoe", seq))
                if c.fault is None:
                    dealt.append(card)
                else:
                    deck.append(card)  # the misread card goes back in this test's shoe
                continue
            seat = rnd.to_act()
            assert seat is not None, rnd.phase
            options = [("fold", None), ("check", None), ("play", 1), ("play", 2), ("play", 3), ("play", 4),
                       ("play", None)]
            rng.shuffle(options)
            for action, multiple in options:
                if rnd.can_decide(seat, action, multiple):
                    args = {"seat": seat, "decision": action} | ({"multiple": multiple} if multiple else {})
                    assert do("decide", **args)["ok"]
                    break
            if rng.random() < 0.003:
                assert do("void", reason="random void")["ok"]
                voided = True
                break
        checked += drain()
        # the changes rebuild exactly what the table shows (a value changed in place would be missed)
        assert tuple(published.rebuilt) == c.states(), f"hand {hand}: the changes do not rebuild the state"
        if not voided:
            assert do("confirm")["ok"]
        checked += drain()
    rows = c.journal.hands()
    assert len(rows) == hands
    assert all(r.record["settlement"] is None or r.record["settlement"]["house_net"] ==
               -sum(s["net"] for s in r.record["settlement"]["spots"]) for r in rows)
    assert checked > hands * 10
    assert published.known > hands * 10  # most steps' changes looked for among the keys the redaction found moved
    statuses = [r.status for r in rows]
    assert statuses.count("voided") > hands // 60 and statuses.count("settled") > hands * 0.8
    kinds = {f["kind"] for r in rows for f in r.record["faults"]}
    assert {"duplicate_card", "misread", "foreign_chip"} <= kinds
    assert {r.game for r in rows} == {"uth", "3cp"}
    assert len(player_cards) > hands // 5 and any(full.get("players") for _, full in published.views)
    c.journal.close()
    shutil.rmtree(state, ignore_errors=True)


def tempfile_dir(base: Path) -> str:
    import tempfile
    return tempfile.mkdtemp(dir=base, prefix="croupier-prop-")


def test_watch_prints_plain_lines(ctx: zmq.Context[Any], tmp_path: Path) -> None:
    import io
    import threading

    from cli.watch import snapshot_endpoint_for, watch

    eps = endpoints(tmp_path)
    feed = Feed(ctx, "w1", public=eps["public"], snapshot=eps["snapshot"], heartbeat_s=0.05)
    state = {"game": "uth", "hand": 3, "phase": "preflop", "board": [], "dealer": {"cards": ["??", "??"]},
             "spots": [{"seat": 2, "cards": ["??", "??"], "bets": {"ante": 100, "blind": 100}, "decision": None}],
             "fault": None, "currency": "GBP", "decimals": 2}
    feed.set_state(state)
    out = io.StringIO()
    done = threading.Event()

    def serve() -> None:  # the controller's loop, reduced to what watch needs
        published = 0
        while not done.is_set():
            if feed.snap.poll(10):
                feed.serve_snapshots(feed.snap)
            if feed.tick():
                published += 1
                if published > 3:
                    feed.publish({**state, "phase": "flop", "board": ["2c", "7d", "9h"],
                                  "fault": {"kind": "misread", "message": "the shoe could not read a card"}})

    thread = threading.Thread(target=serve)
    thread.start()
    try:
        status = watch(eps["public"], eps["snapshot"], out, count=2, timeout_s=5.0)
    finally:
        done.set()
        thread.join(5)
        feed.close()
    assert status == 0
    lines = out.getvalue().splitlines()
    assert lines[0].startswith("seq=") and " snapshot hand=3 game=uth phase=preflop dealer=[?? ??]" in lines[0]
    assert "seat2=[?? ??] ante=GBP 1.00,blind=GBP 1.00" in lines[0]  # money, never raw pence
    flop = [line for line in lines if "phase=flop" in line][0]
    assert "board=[2c 7d 9h]" in flop and "FAULT=misread" in flop
    assert snapshot_endpoint_for("tcp://127.0.0.1:5556") == "tcp://127.0.0.1:5557"


def test_watch_takes_a_new_snapshot_after_a_gap(ctx: zmq.Context[Any], tmp_path: Path) -> None:
    import io
    import threading

    from cli.watch import watch

    eps = endpoints(tmp_path)
    feed = Feed(ctx, "w1", public=eps["public"], snapshot=eps["snapshot"], heartbeat_s=0.02)
    state = {"game": "uth", "hand": 3, "phase": "bets", "board": [], "dealer": {"cards": []}, "spots": [],
             "fault": None}
    feed.set_state(state)
    out = io.StringIO()
    done = threading.Event()

    def serve() -> None:  # the controller's loop: snapshots, heartbeats; an update the watcher never gets
        served = beats = 0
        while not done.is_set() and beats < 30:
            if feed.snap.poll(5):
                served += feed.serve_snapshots(feed.snap)
            if served and feed.tick():
                beats += 1
                if beats == 10:
                    feed.seq += 1  # published before the subscription arrived (slow joiner), say
                    feed.set_state({**state, "hand": 4})
        while not done.is_set():  # then silence: watch gives up after its timeout
            if feed.snap.poll(5):
                feed.serve_snapshots(feed.snap)

    thread = threading.Thread(target=serve)
    thread.start()
    try:
        status = watch(eps["public"], eps["snapshot"], out, timeout_s=1.0)
    finally:
        done.set()
        thread.join(5)
        feed.close()
    assert status == 1  # the silence at the end
    lines = out.getvalue().splitlines()
    assert " snapshot hand=3 " in lines[0]
    assert any(" snapshot hand=4 " in line for line in lines[1:])  # the gap was noticed: a fresh snapshot


def test_watch_says_whether_the_dealer_qualifies() -> None:
    from cli.watch import format_line

    base = {"kind": "update", "seq": 9, "boot": "b", "table": "t", "hand": 3, "game": "uth",
            "phase": "showdown", "board": [], "spots": []}
    shown = format_line({**base, "dealer": {"cards": ["5s", "Th"], "hand_name": "High card, ace",
                                            "qualifies": False}})
    assert "dealer=[5s Th (High card, ace, does not qualify)]" in shown
    shown = format_line({**base, "dealer": {"cards": ["5s", "5h"], "hand_name": "Pair of fives",
                                            "qualifies": True}})
    assert "dealer=[5s 5h (Pair of fives, qualifies)]" in shown
    hidden = format_line({**base, "phase": "river", "dealer": {"cards": ["??", "??"]}})
    assert "dealer=[?? ??]" in hidden
