"""Fuzzing the dealer command channel's decoder: any bytes, any msgpack, mutated requests; in process and over the socket."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgpack
import pytest
import zmq
from hypothesis import strategies as st

from protocol.commands import Malformed, request_id_of
from firmware_host.service.controller import Controller
from firmware_host.service.journal import Journal
from firmware_host.tables.house.table import HouseSetup
from tests.fuzz.fuzzing import msgpack_values, ops, quick_and_soak, request_like
from tests.fuzz.targets import VALID_FRAMES, VALID_REQUESTS, check_command, mutate


def packed(value: Any) -> bytes:
    frame: bytes = msgpack.packb(value, use_bin_type=True)
    return frame


any_bytes = st.binary(max_size=200)
any_msgpack = msgpack_values.map(packed)
looks_like_a_request = request_like.map(packed)
mutated_request = st.builds(mutate, st.sampled_from(VALID_FRAMES), ops)
# a valid request with one field's value replaced by anything, or one field added
swapped_field = st.builds(lambda r, k, v: packed({**r, k: v}), st.sampled_from(VALID_REQUESTS),
                          st.sampled_from(sorted({k for r in VALID_REQUESTS for k in r} | {"auth", "hand"})),
                          msgpack_values)
frames = any_bytes | any_msgpack | looks_like_a_request | mutated_request | swapped_field


def decodes_or_is_malformed(frame: bytes) -> None:
    check_command(frame)
    rid = request_id_of(frame)  # what the error reply echoes: never raises either
    assert rid is None or isinstance(rid, (str, int))


test_any_bytes, test_any_bytes_soak = quick_and_soak(any_bytes)(decodes_or_is_malformed)
test_any_msgpack, test_any_msgpack_soak = quick_and_soak(any_msgpack)(decodes_or_is_malformed)
test_request_shaped_maps, test_request_shaped_maps_soak = quick_and_soak(looks_like_a_request)(decodes_or_is_malformed)
test_mutated_requests, test_mutated_requests_soak = quick_and_soak(mutated_request)(decodes_or_is_malformed)
test_swapped_fields, test_swapped_fields_soak = quick_and_soak(swapped_field)(decodes_or_is_malformed)


def test_the_seeds_are_valid_requests() -> None:
    """The mutations start from requests that decode (else they would fuzz only the first refusal)."""
    for frame in VALID_FRAMES:
        assert check_command(frame) is not None, msgpack.unpackb(frame)


def test_a_refusal_is_a_malformed_with_words() -> None:
    assert check_command(b"\xc1") is None
    with pytest.raises(AssertionError):  # the check itself can fail: a refusal without words
        raise_empty()


def raise_empty() -> None:
    try:
        raise Malformed("")
    except Malformed as exc:
        assert str(exc).strip()


# -- over the real command socket -----------------------------------------------------------------


class LiveTable:
    """A controller serving its command socket on ipc from its own thread, a DEALER to it, and a
    read-only view of its journal."""

    def __init__(self, tmp: Path) -> None:
        self.ctx: zmq.Context[Any] = zmq.Context()
        self.endpoint = f"ipc://{tmp}/cmd"
        self.controller = Controller(Journal.open(tmp / "state"), table="fuzz-1",
                                     default_setup=HouseSetup("uth", "default", {"minimum": 100}, 7))
        self.controller.recover()
        self.thread = threading.Thread(target=self.controller.run, args=(self.ctx, self.endpoint), daemon=True)
        self.thread.start()
        self.journal = Journal.open(tmp / "state", readonly=True)
        self.dealer: zmq.Socket[Any] = self.ctx.socket(zmq.DEALER)
        self.dealer.setsockopt(zmq.LINGER, 0)
        self.dealer.connect(self.endpoint)

    def last_event(self) -> int:
        last = 0
        for event in self.journal.events():
            last = event.id
        return last

    def send(self, frame: bytes) -> dict[str, Any]:
        self.dealer.send(frame)
        assert self.dealer.poll(10_000), "the controller did not answer"
        reply = msgpack.unpackb(self.dealer.recv(), raw=False)
        assert isinstance(reply, dict)
        return reply

    def close(self) -> None:
        self.controller.stop()
        self.thread.join(10)
        self.dealer.close(0)
        self.journal.close()
        self.ctx.destroy(linger=0)
        self.controller.journal.close()


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveTable]:
    table = LiveTable(tmp_path_factory.mktemp("fuzz-table"))
    yield table
    table.close()


def answered_and_nothing_journaled_when_malformed(live: LiveTable, frame: bytes) -> None:
    before = live.last_event()
    reply = live.send(frame)
    assert live.thread.is_alive(), "the controller's loop died"
    assert isinstance(reply.get("ok"), bool), reply
    if check_command(frame) is None:
        assert (reply["ok"], reply["code"]) == (False, "malformed"), reply
        assert reply["error"].strip()
        assert live.last_event() == before, f"a malformed request was journaled: {frame[:60]!r}"
    else:
        assert reply["ok"] or reply["code"] != "internal", reply


test_over_the_socket, test_over_the_socket_soak = quick_and_soak(frame=frames, quick=100, soak=2000)(
    answered_and_nothing_journaled_when_malformed)


def test_the_live_table_journals_a_valid_request(tmp_path: Path) -> None:
    """The journal check above can fail: an accepted request does move the journal on (a table of
    its own: the fuzzed requests may have opened another game on the shared one)."""
    live = LiveTable(tmp_path)
    try:
        before = live.last_event()
        reply = live.send(packed({"id": "seed-bet", "cmd": "bet", "seat": 7, "bets": {"ante": 100, "blind": 100}}))
        assert reply["ok"], reply
        assert live.last_event() > before
    finally:
        live.close()
