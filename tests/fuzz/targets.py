"""The three fuzzed inputs' properties, written once for hypothesis and atheris: the command decoder, the shoe's frames, the configuration."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgpack

from drivers.errors import FrameError
from drivers.readings import CardRead, Sensor
from drivers.shoe_link import HostSession
from drivers.shoe_protocol import (
    CardMsg, Decoder, Frame, Heartbeat, Hello, MisreadMsg, SensorMsg, Source, decode_message, encode_message,
)
from protocol.commands import COMMANDS, Command, Malformed
from firmware_host.service.config import Config
from protocol.config import ConfigError

ROOT = Path(__file__).resolve().parents[2]
SOURCE = str(ROOT / "deploy" / "fuzzed.toml")  # the name every refusal must carry; beside the shipped files, whose relative paths (the demo chip set) it reads

# -- seeds: valid inputs the mutations start from ---------------------------------------------

VALID_REQUESTS: list[dict[str, Any]] = [
    {"id": "r1", "cmd": "bet", "seat": 1, "bets": {"ante": 100, "blind": 100, "trips": 25}},
    {"id": 2, "cmd": "open", "game": "uth", "profile": "default",
     "limits": {"minimum": 100, "maximum": 2000, "chip": 1}, "seats": 5},
    {"id": "o2", "cmd": "open", "game": "holdem", "structure": "no-limit",
     "stakes": {"blinds": [1, 2], "antes": 0}, "seats": 6, "stacks": {"1": 200, "2": 200}, "button": 1,
     "rake": {"rate_bp": 500, "cap": 10, "no_flop_no_drop": True}},
    {"id": "d1", "cmd": "decide", "seat": 3, "decision": "play", "multiple": 4, "hand": 1},
    {"id": "c1", "cmd": "card", "card": "As"},
    {"id": "a1", "cmd": "act", "seat": 2, "action": "raise", "amount": 40},
    {"id": "a2", "cmd": "act", "seat": 2, "action": "draw", "cards": ["2c", "7d"]},
    {"id": "s1", "cmd": "seat", "seat": 4, "action": "join", "amount": 500},
    {"id": "h1", "cmd": "chop", "reason": "agreed", "shares": {"1": 50, "3": 50}},
    {"id": "v1", "cmd": "void", "reason": "misdeal"},
    {"id": "x1", "cmd": "clear", "reason": "card on the floor", "then": "continue",
     "auth": {"user": "ana", "pin": "20261201"}},
    {"cmd": "deal"}, {"cmd": "confirm"}, {"id": "st", "cmd": "state"},
]
VALID_FRAMES: list[bytes] = [msgpack.packb(r, use_bin_type=True) for r in VALID_REQUESTS]

HELLO = Hello(1, (1, 2, 0), 7, "SHOE-9", "SN0001")


def shoe_stream(cards: list[str]) -> list[bytes]:
    """A shoe's frames for `cards` after its HELLO: the cards numbered 1.., a misread, a sensor change
    and a heartbeat between them, as the device sends them (each frame a separate element)."""
    out = [encode_message(HELLO, 0)]
    seq = 0
    for i, card in enumerate(cards):
        seq += 1
        out.append(encode_message(CardMsg(Source(i % 2), card), seq))
        if i % 3 == 2:
            seq += 1
            out.append(encode_message(MisreadMsg(Source.SHOE), seq))
            out.append(encode_message(Heartbeat(), seq))
        if i % 4 == 3:
            seq += 1
            out.append(encode_message(SensorMsg(Sensor.LID_OPEN, i % 8 == 3), seq))
    return out


DECK = [r + s for r in "23456789TJQKA" for s in "cdhs"]
VALID_STREAM = b"".join(shoe_stream(DECK[:20]))
SHORT_STREAM = b"".join(shoe_stream(DECK[:9]))  # under 256 bytes: the fuzzer's inputs stay short and quick

NOT_A_TABLES = frozenset({"display.toml", "pit.toml", "pit-web.toml", "director.toml", "sunday.toml"})
"""deploy/'s configurations that are not a controller's: the display's, the floor server's (tests/test_deploy.py)."""
DEPLOY_CONFIGS: dict[str, str] = {p.name: p.read_text(encoding="utf-8") for p in sorted((ROOT / "deploy").glob("*.toml"))
                                   if p.name not in NOT_A_TABLES}
"""The controller's configurations shipped in deploy/."""

# -- mutations ----------------------------------------------------------------------------------


def mutate(data: bytes, ops: list[tuple[int, int, int]]) -> bytes:
    """`data` changed by `ops`, each (what, where, value): flip a bit, set a byte, delete, insert,
    duplicate a run, cut the tail. Positions wrap around the current length."""
    buf = bytearray(data)
    for what, where, value in ops:
        n = len(buf)
        at = where % (n + 1)
        kind = what % 6
        if kind == 0 and n:
            buf[at % n] ^= 1 << (value % 8)
        elif kind == 1 and n:
            buf[at % n] = value % 256
        elif kind == 2:
            del buf[at:at + 1 + value % 8]
        elif kind == 3:
            buf[at:at] = bytes([value % 256]) * (1 + value % 3)
        elif kind == 4 and n:
            run = buf[at:at + 1 + value % 16]
            buf[at:at] = run
        elif kind == 5:
            del buf[at:]
    return bytes(buf)


# -- the properties -----------------------------------------------------------------------------


def check_command(frame: bytes) -> Command | None:
    """Command.decode gives a Command or raises Malformed with a message; nothing else. Returns the
    Command, or None for a refused frame."""
    try:
        cmd = Command.decode(frame)
    except Malformed as exc:
        assert str(exc).strip(), f"Malformed without a message for {frame[:40]!r}"
        return None
    assert cmd.cmd in COMMANDS, cmd
    assert cmd.digest  # its checked arguments are JSON-able: it can be journaled
    assert cmd.id is None or (isinstance(cmd.id, (str, int)) and not isinstance(cmd.id, bool)), cmd.id
    return cmd


def check_frames(chunks: list[bytes]) -> list[Frame]:
    """The decoder never raises, and every frame it gives is, byte for byte, a valid frame that is in
    the stream (its sync, length, CRC and all): it finds frames, it never makes one up. Every
    frame's message decodes or is refused with FrameError saying why."""
    stream = b"".join(chunks)
    decoder = Decoder()
    frames: list[Frame] = []
    for chunk in chunks:
        frames += decoder.feed(chunk)
    frames += decoder.idle()
    assert decoder.buffered == 0
    for frame in frames:
        wire = frame.encode()
        assert wire in stream, f"frame {frame} is not in the input"
        assert Frame.decode(wire) == frame
        try:
            decode_message(frame)
        except FrameError as exc:
            assert str(exc).strip()
    return frames


def check_session(chunks: list[bytes], quiet: list[bool] | None = None) -> list[CardRead]:
    """The link's host session, fed the chunks (the line going quiet after those `quiet` marks),
    never raises, and every card it reports was sent whole in a valid CARD frame with that number,
    source and card: no card is invented. Returns the cards read."""
    stream = b"".join(chunks)
    session = HostSession(device="fuzz-shoe")
    now = 0.0
    session.connect(now)
    cards: list[CardRead] = []
    for i, chunk in enumerate(chunks):
        now += 0.001
        session.receive(chunk, now)
        if quiet is not None and i < len(quiet) and quiet[i]:
            now += 0.1  # longer than stale_s: a partial frame is dropped
        session.poll(now)
        session.take_output()
        cards += [r for r in session.take_readings() if isinstance(r, CardRead)]
    source = {"shoe": Source.SHOE, "discard": Source.DISCARD}
    for card in cards:
        wire = encode_message(CardMsg(source[card.source], card.card), card.seq)
        assert wire in stream, f"card {card} read without its frame in the input"
    return cards


def check_config(text: str) -> Config | None:
    """Config.parse gives a Config or raises ConfigError naming the file it read; nothing else."""
    try:
        return Config.parse(text, source=SOURCE)
    except ConfigError as exc:
        assert str(exc).startswith(f"{SOURCE}: ") and len(str(exc)) > len(SOURCE) + 2, str(exc)
        return None


# -- the same properties as libFuzzer inputs (tests/fuzz/atheris_*.py) ------------------------------


def shoe_input(data: bytes) -> tuple[list[bytes], list[bool]]:
    """A fuzzer's bytes as a shoe's line: the first byte says how reads cut it, the second which
    reads the line goes quiet after, the rest is the stream."""
    if len(data) < 2:
        return [data], []
    size = 1 + data[0] % 48
    stream = data[2:]
    chunks = [stream[i:i + size] for i in range(0, len(stream), size)] or [b""]
    return chunks, [bool(data[1] >> (i % 8) & 1) for i in range(len(chunks))]


def check_shoe_input(data: bytes) -> None:
    chunks, quiet = shoe_input(data)
    check_frames(chunks)
    check_session(chunks, quiet)


def check_config_input(data: bytes) -> None:
    check_config(data.decode("utf-8", "replace"))


SEEDS: dict[str, list[bytes]] = {
    "commands": VALID_FRAMES,
    "shoe": [bytes((5, 0)) + SHORT_STREAM, bytes((0, 0xFF)) + SHORT_STREAM[:40], bytes((47, 1)) + SHORT_STREAM],
    "config": [text.encode("utf-8") for text in DEPLOY_CONFIGS.values()],
}
"""The valid inputs each fuzzer's corpus starts from."""
