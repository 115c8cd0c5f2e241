"""Every integer a request carries is range-checked at decoding: a huge `after`, hand, amount or seat is refused
`malformed` in words, never answered `internal` (`{"cmd": "history", "after": 2**63}` once was)."""

from __future__ import annotations

from pathlib import Path

import msgpack
import pytest

from protocol.commands import MAX_INT, Command, Malformed
from firmware_host.tables.house.table import HouseSetup
from tests.firmware_host.rigs import JournalRig

HUGE = (2**63, 2**64 + 5, MAX_INT + 1)


@pytest.mark.parametrize("value", HUGE)
@pytest.mark.parametrize("request_map", [
    {"cmd": "history", "after": None},
    {"cmd": "history", "after": None, "events": True},
    {"cmd": "history", "limit": None},
    {"cmd": "bet", "seat": 1, "bets": {"ante": None}},
    {"cmd": "bet", "seat": None, "bets": {"ante": 100}},
    {"cmd": "state", "hand": None},
    {"cmd": "act", "seat": 1, "action": "raise", "amount": None},
    {"cmd": "seat", "seat": 2, "action": "join", "amount": None},
])
def test_a_huge_integer_is_refused_at_decoding_in_words(request_map: dict[str, object], value: int) -> None:
    filled = {k: (value if v is None else v) for k, v in request_map.items()}
    if isinstance(filled.get("bets"), dict):
        filled["bets"] = {k: (value if v is None else v) for k, v in filled["bets"].items()}  # type: ignore[union-attr]
    with pytest.raises(Malformed) as caught:
        Command.from_mapping(filled)
    assert "out of range" in str(caught.value) or "positive integer" in str(caught.value)
    if value < 2**64:  # msgpack packs up to 64 bits: the same request as a frame off the wire
        with pytest.raises(Malformed):
            Command.decode(msgpack.packb(filled))


def test_the_controller_answers_a_huge_history_after_malformed_not_internal(tmp_path: Path) -> None:
    class Rig(JournalRig):
        def controller_args(self) -> dict[str, object]:
            return {"default_setup": HouseSetup("uth", "default", {"minimum": 100}, 7)}

    rig = Rig(tmp_path)
    try:
        for args in ({"after": 2**63}, {"after": 2**63, "events": True}, {"after": MAX_INT}):
            frame = msgpack.packb({"id": "h1", "cmd": "history", **args})
            try:  # as the controller's loop takes a frame (controller.py: decode, then handle)
                reply = rig.c.handle_command(Command.decode(frame))
            except Malformed as exc:
                reply = {"ok": False, "code": "malformed", "error": str(exc)}
            if args["after"] > MAX_INT:
                assert reply["ok"] is False and reply["code"] == "malformed", reply
                assert "out of range" in reply["error"]
            else:
                assert reply["ok"] is True and reply.get("hands", reply.get("events")) == [], reply
    finally:
        rig.c.journal.close()
