"""The pit's frame reading (`floor/frames.py`): the keys it needs read, the rest passed on byte for byte, and what it sends decodes to the table's message with the pit's keys set."""

from __future__ import annotations

import msgpack
import pytest
import zmq

from floor.frames import FrameError, peek, read, rekey
from protocol.feed import LEADING, Feed
from sim.floor.tables import play_pool

PIT_KEYS = {"table": "uth-7", "boot": "b2", "seq": 9, "kind": "update", "online": True, "floor_seq": 41}
CUT = frozenset(("table", "boot", "seq", "kind", "online", "floor_seq", "archived"))
FOLLOWED = frozenset(("boot", "seq", "kind", "hand", "phase"))


def table_frame(state: dict[str, object]) -> bytes:
    """The frame a real table's `Feed` sends for `state`."""
    ctx = zmq.Context()
    try:
        feed = Feed(ctx, "uth-7", public="inproc://public", snapshot="inproc://snapshot")
        sub = ctx.socket(zmq.SUB)
        sub.setsockopt(zmq.SUBSCRIBE, b"")
        sub.connect("inproc://public")
        for _ in range(200):  # inproc: the subscription reaches the PUB once it is processed
            feed.publish(state)
            if sub.poll(10):
                frame: bytes = sub.recv()
                feed.close()
                sub.close(0)
                return frame
        raise AssertionError("the feed sent nothing")
    finally:
        ctx.destroy(0)


@pytest.fixture(scope="module")
def states() -> list[dict[str, object]]:
    _, hands = play_pool("uth", 12, 3)
    _, more = play_pool("3cp", 12, 4)
    return [hands[-1].states[-1], hands[5].states[2], more[-1].states[-1], more[0].states[0]]


def test_an_update_puts_the_pit_keys_right_after_its_header(states: list[dict[str, object]]) -> None:
    frame = table_frame(states[0])
    assert list(msgpack.unpackb(frame, raw=False))[:6] == ["table", "boot", "seq", "kind", *LEADING]


@pytest.mark.parametrize("whole", [True, False])
def test_a_table_update_rekeyed_decodes_to_the_message_with_the_pit_keys(states: list[dict[str, object]],
                                                                       whole: bool) -> None:
    for state in states:
        frame = table_frame(state)
        message = msgpack.unpackb(frame, raw=False)
        read_frame = read(frame, FOLLOWED, CUT, whole=whole)
        assert read_frame.values == {k: message[k] for k in FOLLOWED}
        out = read_frame.rekey(dict(PIT_KEYS))
        assert msgpack.unpackb(out, raw=False) == {**message, **PIT_KEYS}
        # the state's bytes went through as the table packed them: its last hands and paytable among them
        assert msgpack.packb(message["history"], use_bin_type=True) in out


@pytest.mark.parametrize("size", [0, 1, 14, 15, 16, 17, 70000])
def test_every_map_header_size_is_rewritten(size: int) -> None:
    base = {f"k{i}": i for i in range(size)}
    for changes in ({"online": True}, {f"c{i}": [i] for i in range(16)}):
        out = rekey(msgpack.packb(base), changes)
        assert msgpack.unpackb(out, raw=False) == {**base, **changes}


def test_a_key_the_pit_sets_is_replaced_not_doubled_when_read_whole() -> None:
    frame = msgpack.packb({"table": "other", "online": False, "hand": 3, "floor_seq": -1})
    out = read(frame, (), CUT).rekey({"table": "t", "online": True, "floor_seq": 5})
    assert msgpack.unpackb(out, raw=False) == {"hand": 3, "table": "t", "online": True, "floor_seq": 5}
    assert out.count(b"online") == 1


def test_peek_reads_only_what_it_is_asked() -> None:
    frame = msgpack.packb({"seq": 4, "history": [{"hand": n} for n in range(10)], "hand": 11})
    assert peek(frame, ("seq", "hand")) == {"seq": 4, "hand": 11}
    assert peek(frame, ("nothing",)) == {}


@pytest.mark.parametrize("frame", [b"", b"\x93\x01\x02\x03", b"\x82\xa1a\x01", msgpack.packb({1: 2}),
                                   msgpack.packb({"a": 1}) + b"\x00", b"\xc1"])
def test_what_is_not_one_map_with_string_keys_is_refused(frame: bytes) -> None:
    with pytest.raises(FrameError):
        read(frame, ("a",), CUT)
