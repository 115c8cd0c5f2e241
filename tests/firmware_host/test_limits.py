"""Tests of the limits that keep clients from starving or exhausting the table: sizes, the fair loop, rates, steps."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import msgpack
import pytest
import zmq

from drivers.readings import ButtonPress
from protocol.commands import (
    MAX_ID_CHARS, MAX_REQUEST_BYTES, Command, CommandClient, Malformed, request_id_of,
)
from firmware_host.service.config import CommandsConfig, Config
from protocol.config import ConfigError
from firmware_host.service.controller import Controller
from protocol.fairness import Admission, TokenBucket
from firmware_host.service.journal import Journal
from firmware_host.tables.house.table import HouseSetup
from tests.firmware_host.rigs import JournalRig

UTH = HouseSetup("uth", "default", {"minimum": 100}, 7)
BET = {"cmd": "bet", "seat": 1, "bets": {"ante": 100, "blind": 100}}


def frame(**data: object) -> bytes:
    return msgpack.packb(data, use_bin_type=True)


def padded_to(size: int, **data: object) -> bytes:
    """A request frame of exactly `size` bytes (a long `reason` pads it)."""
    base = len(frame(**data, reason=""))
    for pad in range(size - base, size - base - 8, -1):  # the string's header grows with its length
        out = frame(**data, reason="x" * pad)
        if len(out) == size:
            return out
    raise AssertionError(f"cannot pad to {size}")


# -- decoding: sizes and ids --------------------------------------------------------------------


def test_a_frame_one_byte_over_the_limit_is_refused_before_it_is_decoded() -> None:
    over = padded_to(MAX_REQUEST_BYTES + 1, cmd="void")
    with pytest.raises(Malformed, match=f"too large: a request is at most {MAX_REQUEST_BYTES} bytes"):
        Command.decode(over)
    at = padded_to(2000, cmd="void")
    with pytest.raises(Malformed, match="too large: a request is at most 1999 bytes"):
        Command.decode(at, max_bytes=1999)
    with pytest.raises(Malformed, match="reason: longer than 500"):  # at the limit: decoded, then checked
        Command.decode(at, max_bytes=2000)


def test_a_map_of_200000_keys_is_refused_at_once_in_a_short_reply() -> None:
    huge = msgpack.packb({"cmd": "bet", **{f"k{i}": i for i in range(200_000)}})
    assert len(huge) > MAX_REQUEST_BYTES
    with pytest.raises(Malformed) as info:  # the frame's size alone refuses it
        Command.decode(huge)
    with pytest.raises(Malformed) as info:  # and so does the map's length, whatever the frame's size
        Command.decode(huge, max_bytes=len(huge))
    assert "too large: a map of more entries than 64 (200001)" == str(info.value)


@pytest.mark.parametrize("bad_id, words", [
    ("x" * 10_000, "too large: a string longer than 4096"),
    ("x" * (MAX_ID_CHARS + 1), "1 to 64 printable characters"),
    ("", "1 to 64 printable characters"),
    ("r1\n", "printable"),
    (2**63, "int64"),
    (1.5, "string or an integer"),
    (True, "string or an integer"),
])
def test_ids_are_bounded_strings_or_int64(bad_id: object, words: str) -> None:
    with pytest.raises(Malformed, match=words):
        Command.decode(frame(id=bad_id, cmd="deal"))
    assert request_id_of(frame(id=bad_id, cmd="deal")) is None  # never echoed


def test_ids_at_their_bounds_are_taken() -> None:
    for good in ("x" * MAX_ID_CHARS, 2**63 - 1, -(2**63), "dealer-7 ✓"):
        assert Command.decode(frame(id=good, cmd="deal")).id == good
        assert request_id_of(frame(id=good, cmd="nope")) == good


def test_an_id_is_not_echoed_from_a_frame_over_the_limit() -> None:
    request = frame(id="r1", cmd="void", reason="x" * 100)
    assert request_id_of(request, max_bytes=len(request) - 1) is None
    assert request_id_of(request, max_bytes=len(request)) == "r1"
    assert request_id_of(padded_to(MAX_REQUEST_BYTES + 1, id="r1", cmd="void")) is None


# -- the admission's parts, on a clock of our own ----------------------------------------------


def test_token_bucket_refills_at_its_rate_up_to_its_burst() -> None:
    bucket = TokenBucket(rate=10.0, burst=3, now=0.0)
    assert [bucket.take(0.0) for _ in range(4)] == [True, True, True, False]
    assert bucket.wait(0.0) == pytest.approx(0.1)
    assert bucket.take(0.1) and not bucket.take(0.1)
    assert [bucket.take(100.0) for _ in range(4)] == [True, True, True, False]  # never more than the burst


def test_admission_keeps_one_bucket_per_client_and_screens_shapes() -> None:
    now = [0.0]
    gate = Admission(max_request_bytes=1024, per_turn=4, rate_per_s=1.0, burst=2, clock=lambda: now[0])
    request = frame(id="r1", cmd="deal")
    assert [gate.screen([b"a", request]).refusal is None for _ in range(3)] == [True, True, False]
    busy = gate.screen([b"a", request]).refusal
    assert busy is not None and (busy["code"], busy["id"], busy["retry_s"]) == ("busy", "r1", 1.0)
    assert gate.screen([b"b", request]).refusal is None  # another client has its own bucket
    assert gate.screen([b"key-of-a", request], key=b"a").refusal is not None  # a CURVE key: that key's bucket
    now[0] = 1.0
    assert gate.screen([b"a", request]).refusal is None
    req_client = gate.screen([b"c", b"", request])  # a REQ client's envelope carries the empty delimiter
    assert req_client.envelope == [b"c", b""] and req_client.payload == request and req_client.refusal is None
    several = gate.screen([b"c", b"one", b"two"]).refusal
    assert several is not None and several["code"] == "malformed" and "one frame, not 2" in several["error"]
    big = gate.screen([b"d", b"\x80" * 1025]).refusal
    assert big is not None and big["code"] == "malformed" and "at most 1024 bytes" in big["error"]


# -- over a real socket on loopback --------------------------------------------------------------


@contextlib.contextmanager
def serving(tmp_path: Path, ctx: zmq.Context[Any], on_turn: Callable[[], float] | None = None,
            before: Callable[[Controller, str], None] | None = None, **kwargs: Any) -> Iterator[tuple[Controller, str]]:
    """A controller with a UTH table serving its command channel on a TCP loopback port, in a thread;
    `before(controller, endpoint)` runs once the socket is bound and before the loop turns."""
    c = Controller(Journal.open(tmp_path / "state"), default_setup=UTH, **kwargs)
    c.recover()
    sock = c.bind_commands(ctx, "tcp://127.0.0.1:*")
    endpoint = sock.getsockopt_string(zmq.LAST_ENDPOINT)
    if before is not None:
        before(c, endpoint)
    thread = threading.Thread(target=c.run, args=(ctx,), kwargs={"on_turn": on_turn}, daemon=True)
    thread.start()
    try:
        yield c, endpoint
    finally:
        c.stop()
        thread.join(10)
        c.journal.close()


def journaled(tmp_path: Path) -> list[tuple[str, str | None]]:
    j = Journal.open(tmp_path / "state", readonly=True)
    try:
        return [(e.kind, e.req) for e in j.events()]
    finally:
        j.close()


def test_oversized_frames_huge_maps_and_huge_ids_get_short_replies_and_no_journal_row(
        tmp_path: Path, ctx: zmq.Context[Any]) -> None:
    with serving(tmp_path, ctx) as (_, endpoint):
        dealer = CommandClient(ctx, endpoint)
        raw = ctx.socket(zmq.DEALER)
        raw.setsockopt(zmq.LINGER, 0)
        raw.connect(endpoint)
        try:
            refused = [padded_to(MAX_REQUEST_BYTES + 1, id="big", cmd="void"),
                       msgpack.packb({"id": "map", **BET, **{f"k{i}": i for i in range(200_000)}}),
                       msgpack.packb({**BET, "id": "i" * 10_000}),
                       msgpack.packb({**BET, "id": 2**64 - 1})]
            for data in refused:
                raw.send(data)
                assert raw.poll(10_000), "no reply"
                answer = raw.recv()
                assert len(answer) < 300, answer[:300]
                reply = msgpack.unpackb(answer, raw=False)
                assert (reply["ok"], reply["code"], reply["id"]) == (False, "malformed", None), reply
            raw.send_multipart([b"", frame(id="two", **BET)])  # one empty frame, then the request: as a REQ does
            assert msgpack.unpackb(raw.recv_multipart()[-1], raw=False)["ok"] is True
            raw.send_multipart([frame(id="x1", **BET), frame(id="x2", **BET)])
            reply = msgpack.unpackb(raw.recv(), raw=False)
            assert reply["code"] == "malformed" and "one frame, not 2" in reply["error"]
            assert dealer.request("bet", req_id="fine", seat=2, bets={"ante": 100, "blind": 100})["ok"]
        finally:
            raw.close(0)
            dealer.close()
    rows = journaled(tmp_path)
    assert [req for kind, req in rows if kind == "bet"] == ["two", "fine"]
    assert not any(req is not None and len(req) > MAX_ID_CHARS for _, req in rows)


def test_a_frame_far_over_the_limit_cuts_its_peer_and_the_table_goes_on(tmp_path: Path,
                                                                         ctx: zmq.Context[Any]) -> None:
    with serving(tmp_path, ctx, commands=CommandsConfig(max_request_bytes=1024)) as (_, endpoint):
        raw = ctx.socket(zmq.DEALER)
        raw.setsockopt(zmq.LINGER, 0)
        raw.connect(endpoint)
        dealer = CommandClient(ctx, endpoint)
        try:
            raw.send(frame(id="huge", cmd="void", reason="x" * 70_000))  # over 64 x 1024: never read in
            assert dealer.request("state")["ok"]
            assert not raw.poll(200)  # its peer was cut: no reply to it
        finally:
            raw.close(0)
            dealer.close()
    assert not any(req == "huge" for _, req in journaled(tmp_path))


def test_each_turn_takes_a_bounded_number_of_requests_and_readings_come_first(
        tmp_path: Path, ctx: zmq.Context[Any]) -> None:
    requests = 40
    sockets: list[zmq.Socket[Any]] = []
    counts: list[int] = []
    posted: list[int] = []
    table: list[Controller] = []

    def queue_requests(c: Controller, endpoint: str) -> None:  # all sent before the loop's first turn
        table.append(c)
        sock = ctx.socket(zmq.DEALER)
        sock.setsockopt(zmq.LINGER, 0)
        sock.connect(endpoint)
        for n in range(requests):
            sock.send(frame(id=f"b{n}", cmd="bet", seat=1 + n % 7, bets={"ante": 100 + n, "blind": 100 + n}))
        sockets.append(sock)

    def on_turn() -> float:  # on the loop's thread, once a turn
        counts.append(table[0].events_applied)
        if len(counts) == 3:
            table[0].inbox.post(ButtonPress("confirm"))  # a button pressed while the requests wait
            posted.append(table[0].events_applied)
        return 1.0

    with serving(tmp_path, ctx, on_turn=on_turn, before=queue_requests,
                 commands=CommandsConfig(per_turn=4)) as (c, _):
        sock = sockets[0]
        replies = []
        for _ in range(requests):
            assert sock.poll(10_000), "a request was not answered"
            replies.append(msgpack.unpackb(sock.recv(), raw=False))
        sock.close(0)
    assert all(r["ok"] for r in replies), [r for r in replies if not r["ok"]]
    steps = [b - a for a, b in zip(counts, counts[1:])]
    assert max(steps) <= 4 + 1, steps  # four requests a turn (and the button in its turn)
    rows = journaled(tmp_path)
    button = [i for i, (kind, _) in enumerate(rows) if kind == "button"]
    bets = [i for i, (kind, _) in enumerate(rows) if kind == "bet"]
    assert len(bets) == requests and len(button) == 1
    assert button[0] < bets[-1], "the reading waited for every queued request"


def test_a_client_over_its_rate_is_answered_busy_and_nothing_is_journaled(tmp_path: Path,
                                                                          ctx: zmq.Context[Any]) -> None:
    with serving(tmp_path, ctx, commands=CommandsConfig(rate_per_s=0.001, burst=3)) as (_, endpoint):
        flood = CommandClient(ctx, endpoint, name="flood")
        other = CommandClient(ctx, endpoint, name="other")
        try:
            replies = [flood.send_raw(frame(id=f"f{n}", **BET)) for n in range(6)]
            assert [r["ok"] for r in replies] == [True, True, True, False, False, False]
            for r in replies[3:]:
                assert r["code"] == "busy" and r["retry_s"] > 0 and r["id"].startswith("f"), r
            assert other.send_raw(frame(id="o1", **BET))["ok"]  # another client is served
        finally:
            flood.close()
            other.close()
    assert [req for kind, req in journaled(tmp_path) if kind == "bet"] == ["f0", "f1", "f2", "o1"]


def test_the_command_client_waits_out_busy(tmp_path: Path, ctx: zmq.Context[Any]) -> None:
    with serving(tmp_path, ctx, commands=CommandsConfig(rate_per_s=50.0, burst=1)) as (_, endpoint):
        dealer = CommandClient(ctx, endpoint)
        try:
            assert all(dealer.request("state")["ok"] for _ in range(5))
        finally:
            dealer.close()


def test_the_limits_are_configuration() -> None:
    cfg = Config.parse("[commands]\nmax_request_bytes = 4096\nper_turn = 8\nrate_per_s = 20\nburst = 40\n"
                       "[table]\nmax_steps_per_hand = 800\n", source="t.toml")
    assert (cfg.commands.max_request_bytes, cfg.commands.per_turn, cfg.commands.rate_per_s, cfg.commands.burst,
            cfg.table.max_steps_per_hand) == (4096, 8, 20.0, 40, 800)
    assert Config.parse("").table.max_steps_per_hand == 5000
    for text, words in (("[commands]\nmax_request_bytes = 10\n", "[commands] max_request_bytes"),
                        ("[commands]\nper_turn = 0\n", "[commands] per_turn"),
                        ("[commands]\nrate_per_s = 0\n", "[commands] rate_per_s"),
                        ("[commands]\nburst = true\n", "[commands] burst"),
                        ("[table]\nmax_steps_per_hand = 5\n", "[table] max_steps_per_hand")):
        with pytest.raises(ConfigError, match=words.replace("[", r"\[").replace("]", r"\]")):
            Config.parse(text, source="t.toml")


# -- steps per hand ------------------------------------------------------------------------------


class Steps(JournalRig):
    def __init__(self, path: Path, max_steps: int) -> None:
        self.max_steps = max_steps
        super().__init__(path)

    def controller_args(self) -> dict[str, Any]:
        return {"default_setup": UTH, "max_steps": self.max_steps}


def test_a_hand_past_its_step_limit_faults_and_the_replay_stands_it(tmp_path: Path) -> None:
    rig = Steps(tmp_path, max_steps=10)
    for n in range(10):
        rig.ok("bet", seat=1 + n % 7, bets={"ante": 100 + n, "blind": 100 + n})
    assert rig.c.fault is not None and rig.c.fault.kind.value == "step_limit"
    assert "took 10 steps (at most 10 a hand)" in rig.c.full_state()["fault"]["detail"]
    refused = rig.cmd("bet", seat=1, bets={"ante": 500, "blind": 500})
    assert (refused["ok"], refused["code"]) == (False, "fault")
    faults = [e.body for e in rig.c.journal.events() if e.kind == "fault"]
    assert [f["kind"] for f in faults] == ["step_limit"]
    before = rig.c.full_state()
    rig.max_steps = 5000  # a later start under another limit replays the journaled fault as it stood
    rig.restart()
    assert rig.c.full_state() == before and rig.c.state.hand_steps == 10
    rig.ok("clear", reason="runaway client", then="void")
    assert rig.c.journal.hands()[0].status == "voided"
    assert rig.c.state.hand_steps == 0 and rig.c.fault is None
    rig.ok("bet", seat=1, bets={"ante": 100, "blind": 100})  # the next hand starts afresh
    rig.c.journal.close()


def test_a_cleared_step_limit_faults_again_at_the_next_step(tmp_path: Path) -> None:
    rig = Steps(tmp_path, max_steps=3)
    for n in range(3):
        rig.ok("bet", seat=1, bets={"ante": 100 + n, "blind": 100 + n})
    rig.ok("clear", reason="checked")
    rig.ok("bet", seat=2, bets={"ante": 100, "blind": 100})
    assert rig.c.fault is not None and rig.c.fault.kind.value == "step_limit"
    rig.c.journal.close()
