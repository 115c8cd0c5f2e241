"""The feed's update packer (`protocol/packing.py`): byte for byte msgpack's packing of the whole map, the last hands and paytable packed once while they are the same objects, and packed again when they change."""

from __future__ import annotations

from typing import Any

import msgpack
import zmq

from protocol.feed import Feed
from protocol.packing import UpdatePacker
from sim.floor.tables import play_pool

HEAD = {"table": "uth-1", "boot": "b", "seq": 7, "kind": "update", "hand": None, "phase": None}


def states() -> list[dict[str, Any]]:
    _, hands = play_pool("uth", 14, 5)
    _, more = play_pool("3cp", 6, 6)
    return [s for h in (*hands, *more) for s in h.states]


def test_every_update_packs_as_the_whole_map_does() -> None:
    packer = UpdatePacker()
    for state in states():
        view = {**state, "history": list(state.get("history") or [])}  # a new list each view, as TableState's
        assert packer.pack(HEAD, view) == msgpack.packb({**HEAD, **view}, use_bin_type=True)
    assert packer.reused > 100  # the last hands and the paytable were put back, not packed again


def test_a_new_last_hand_or_paytable_is_packed_again() -> None:
    packer = UpdatePacker()
    history = [{"hand": n, "net": n * 100} for n in range(1, 11)]
    paytable = {"blind": {"royal": 500}}
    state = {"game": "uth", "history": history, "paytable": paytable, "limits": {"minimum": 500}}
    first = packer.pack(HEAD, state)
    moved = {**state, "history": [*history[1:], {"hand": 11, "net": -300}], "paytable": {"blind": {"royal": 50}}}
    again = packer.pack(HEAD, moved)
    assert msgpack.unpackb(again, raw=False) == {**HEAD, **moved} and again != first
    same_items = {**moved, "history": list(moved["history"])}
    assert packer.pack(HEAD, same_items) == again


def test_wide_maps_and_no_kept_keys() -> None:
    packer = UpdatePacker()
    wide = {f"k{i}": i for i in range(40)} | {"history": [{"hand": 1}], "limits": {"a": 1}}
    assert packer.pack(HEAD, wide) == msgpack.packb({**HEAD, **wide}, use_bin_type=True)
    assert packer.pack({}, {"a": 1}) == msgpack.packb({"a": 1})


def test_the_feed_sends_what_packing_the_whole_update_gives() -> None:
    ctx = zmq.Context()
    try:
        feed = Feed(ctx, "uth-1", public="inproc://pub", snapshot="inproc://snap")
        sub = ctx.socket(zmq.SUB)
        sub.setsockopt(zmq.SUBSCRIBE, b"")
        sub.connect("inproc://pub")
        sent = 0
        got: list[bytes] = []
        for state in states()[:60]:
            feed.publish(state)
            sent += 1
            while sub.poll(0):
                got.append(sub.recv())
        assert got, "nothing received"
        for frame in got:
            message = msgpack.unpackb(frame, raw=False)
            head = {k: message[k] for k in ("table", "boot", "seq", "kind")}
            state = {k: v for k, v in message.items() if k not in head}
            assert frame == msgpack.packb({**head, "hand": None, "phase": None, **state}, use_bin_type=True)
        feed.close()
    finally:
        ctx.destroy(0)
