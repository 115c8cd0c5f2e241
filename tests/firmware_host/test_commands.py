"""Tests of the dealer command channel's request decoding (the controller's answers are in test_controller)."""

from __future__ import annotations

from pathlib import Path

import msgpack
import pytest
import zmq

from protocol.commands import MAX_DEPTH, Command, CommandClient, Malformed, request_id_of
from tests.firmware_host.processes import start_cli, table_config


def frame(**data: object) -> bytes:
    return msgpack.packb(data, use_bin_type=True)


def test_decode_bet() -> None:
    cmd = Command.decode(frame(id="r1", cmd="bet", seat=3, bets={"ante": 1000, "blind": 1000}, hand=4))
    assert (cmd.cmd, cmd.id, cmd.req, cmd.hand) == ("bet", "r1", "r1", 4)
    assert cmd.args == {"seat": 3, "bets": {"ante": 1000, "blind": 1000}}


def test_decode_card_takes_the_one_text_form() -> None:
    assert Command.decode(frame(cmd="card", card="As")).args == {"card": "As"}
    for text in ("aS", "as", "AS"):  # rank upper case, suit lower case: the engine's one card parser
        with pytest.raises(Malformed, match=f'card: not a card: "{text}"'):
            Command.decode(frame(cmd="card", card=text))


def test_integer_ids_are_journaled_as_text() -> None:
    assert Command.decode(frame(id=17, cmd="deal")).req == "17"


@pytest.mark.parametrize("data, words", [
    (b"\xc1", ["not msgpack"]),
    (msgpack.packb([1, 2]), ["map"]),
    (frame(cmd="shuffle"), ["unknown cmd", "'shuffle'"]),
    (frame(), ["unknown cmd"]),
    (frame(cmd="bet", seat=1), ["bet", "missing bets"]),
    (frame(cmd="bet", seat=9, bets={"ante": 5}), ["seat", "out of range"]),
    (frame(cmd="bet", seat=1, bets={"ante": -5}), ["ante", "positive integer"]),
    (frame(cmd="bet", seat=1, bets={"ante": 5.5}), ["ante", "positive integer"]),
    (frame(cmd="bet", seat=1, bets={"ante": True}), ["ante", "positive integer"]),
    (frame(cmd="bet", seat=1, bets={"ante": 5}, colour="red"), ["unknown argument", "colour"]),
    (frame(cmd="decide", seat=1, decision="raise"), ["decision", "'raise'"]),
    (frame(cmd="card", card="1x"), ["card", "not a card"]),
    (frame(cmd="card", card="??"), ["card", "not a card"]),
    (frame(cmd="open", game="blackjack"), ["game", "'blackjack'"]),
    (frame(cmd="open", game="holdem"), ["open", "structure"]),
    (frame(cmd="act", seat=1, action="raise", amount=-1), ["amount", "out of range"]),
    (frame(cmd="act", seat=1, action="shove"), ["action", "'shove'"]),
    (frame(cmd="act", seat=1, action="draw", cards=["As", "1x"]), ["cards", "not a card"]),
    (frame(cmd="seat", seat=11, action="join", amount=100), ["seat", "out of range"]),
    (frame(cmd="open", game="holdem", structure="no-limit", stakes={"blind": [1, 2]}), ["unknown stake", "blind"]),
    (frame(cmd="open", game="uth", limits={"minimun": 5}), ["unknown limit", "minimun"]),
    (frame(cmd="void"), ["void", "missing reason"]),
    (frame(cmd="void", reason="  "), ["reason", "non-empty"]),
    (frame(cmd="clear", reason="checked", then="later"), ["then"]),
        (frame(cmd="clear", reason="checked", by="sup"), ["unknown argument", "by"]),
        (frame(cmd="clear", reason="checked", auth="sup"), ["auth", "user and pin"]),
        (frame(cmd="clear", reason="checked", auth={"user": "ana", "pin": 1234}), ["auth", "pin"]),
    (frame(cmd="deal", hand=0), ["hand"]),
    (frame(cmd="deal", id=[1]), ["id"]),
])
def test_malformed_requests_are_named(data: bytes, words: list[str]) -> None:
    with pytest.raises(Malformed) as info:
        Command.decode(data)
    for word in words:
        assert word in str(info.value)


def test_request_id_echoed_even_when_malformed() -> None:
    assert request_id_of(frame(id="x9", cmd="nope")) == "x9"
    assert request_id_of(b"\xc1") is None


# -- over a real socket: the running controller answers every refused frame with its reason ---------


GARBAGE_FRAMES = [
    (b"\xc1", ["not msgpack", "0xc1"]),
    (b"", ["not msgpack", "empty frame"]),
    (b"\x81\xa3cmd\xa4deal\xff", ["not msgpack", "left over"]),
    (b"\x91" * 10_000 + b"\xc0", ["nested too deep"]),
    (b"\x81\xa1a" * 10_000 + b"\xc0", ["nested too deep"]),
    (msgpack.packb("deal"), ["not a msgpack map", "a string"]),
    (msgpack.packb(None), ["not a msgpack map", "nil"]),
    (b"\x81\x01\xa4deal", ["not a request", "a map key that is a number", "keys are strings"]),  # seen as random bytes' answer
    (b"\x81\xa2id\xc7\x01\x05x", ["not a request", "extension value"]),
]


def test_refused_frames_are_answered_with_what_is_wrong_over_the_socket(tmp_path: Path) -> None:
    endpoint = f"ipc://{tmp_path}/cmd"
    run, ready = start_cli(["run", "--config", str(table_config(tmp_path, endpoint)),
                            "--state", str(tmp_path / "state")], tmp_path)
    ctx = zmq.Context()
    dealer = CommandClient(ctx, endpoint, timeout_s=10.0)
    try:
        assert ready["ready"]
        for data, words in GARBAGE_FRAMES:
            reply = dealer.send_raw(data)
            assert reply["ok"] is False and reply["code"] == "malformed", (data[:8], reply)
            assert all(w in reply["error"] for w in words), (data[:8], reply)
        # nested deep inside a request that has an id: refused with its reason, and the id echoed
        deep: object = 5
        for _ in range(500):
            deep = {"a": deep}
        reply = dealer.send_raw(msgpack.packb({"id": "r1", "cmd": "bet", "seat": 1, "bets": deep}))
        assert (reply["id"], reply["code"]) == ("r1", "malformed")
        assert reply["error"] == f"nested too deep: a request has at most {MAX_DEPTH} levels of maps and arrays"
        assert dealer.request("state")["ok"]  # and the controller goes on
    finally:
        dealer.close()
        ctx.destroy(linger=0)
        run.terminate()
        run.wait(10)
