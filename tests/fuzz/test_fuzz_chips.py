"""Fuzzing the chip reader board's decoder and the host session: any bytes, mutated streams; no chip invented, none taken away unseen."""

from __future__ import annotations

from hypothesis import strategies as st

from drivers.chip_link import ChipSession
from drivers.chip_protocol import (
    Decoder, Frame, Heartbeat, Hello, Inventory, decode_message, encode_message,
)
from drivers.errors import FrameError
from drivers.readings import ChipsRead
from tests.fuzz.fuzzing import ops, quick_and_soak
from tests.fuzz.targets import mutate

HELLO = Hello(1, (1, 0, 0), 5, 100, "CB-9", "SN1", ((0, "spot1.ante"), (1, "spot1.play"), (2, "tray")))
CHIPS = [f"E00401000000{n:04X}" for n in range(6)]
CONFIRM = 2


def board_stream(scans: int = 12) -> list[bytes]:
    """A board's frames: its HELLO, then `scans` scans of its three antennas (chips coming and going), a
    heartbeat now and then, each frame a separate element."""
    out = [encode_message(HELLO, 0)]
    seq = 0
    for scan in range(1, scans + 1):
        for antenna in range(3):
            seq = (seq + 1) % 256
            held = tuple(sorted(uid for n, uid in enumerate(CHIPS) if (n + antenna + scan // 4) % 3 == 0))
            out.append(encode_message(Inventory(antenna, scan, held), seq))
        if scan % 5 == 0:
            seq = (seq + 1) % 256
            out.append(encode_message(Heartbeat(), seq))
    return out


VALID_STREAM = b"".join(board_stream())


def chunked(data: bytes, cuts: list[int]) -> list[bytes]:
    points = sorted({c % (len(data) + 1) for c in cuts})
    edges = [0, *points, len(data)]
    return [data[a:b] for a, b in zip(edges, edges[1:])]


def check_session(chunks: list[bytes]) -> list[ChipsRead]:
    """Feed the session the chunks, 10 ms apart. It never raises, and every chip a reading says an
    antenna holds was in a whole valid INVENTORY of that antenna in the input, and every chip it says
    left was missing from one: the session reports what frames said, never what noise made."""
    stream = b"".join(chunks)
    seen_on: dict[int, set[str]] = {}
    missing_on: dict[int, set[str]] = {}
    for frame in Decoder().feed(stream):  # the whole valid frames the input holds
        assert frame.encode() in stream
        try:
            message = decode_message(frame)
        except FrameError as exc:
            assert str(exc).strip()
            continue
        if isinstance(message, Inventory):
            seen_on.setdefault(message.antenna, set()).update(message.uids)
            missing_on.setdefault(message.antenna, set()).update(set(CHIPS) - set(message.uids))
    names = dict(HELLO.antennas)
    session = ChipSession(confirm=CONFIRM, settle_s=0.05)
    session.connect(0.0)
    readings = []
    now = 0.0
    for chunk in chunks:
        now += 0.01
        session.receive(chunk, now)
        session.poll(now)
        readings += session.take_readings()
    chips = [r for r in readings if isinstance(r, ChipsRead)]
    last: dict[str, frozenset[str]] = {}
    for reading in chips:
        number = next(n for n, name in names.items() if name == reading.antenna)
        assert reading.uids <= seen_on.get(number, set()), reading
        assert last.get(reading.antenna, frozenset()) - reading.uids <= missing_on.get(number, set()), reading
        last[reading.antenna] = reading.uids
    return chips


cuts = st.lists(st.integers(0, 8192), max_size=12)
noise = st.lists(st.sampled_from([b"\xa5", b"\xc3", b"\xa5\xc3", b"\x00", b"\x02", b"\xff"])
                 | st.sampled_from(board_stream(4)), max_size=40).map(b"".join)
streams = st.binary(max_size=400) | noise | st.builds(mutate, st.just(VALID_STREAM), ops)


def no_chip_invented(data: bytes, at: list[int]) -> None:
    check_session(chunked(data, at))


def frames_found_not_made(data: bytes, at: list[int]) -> None:
    decoder = Decoder()
    frames: list[Frame] = []
    for chunk in chunked(data, at):
        frames += decoder.feed(chunk)
    frames += decoder.idle()
    assert decoder.buffered == 0
    assert all(frame.encode() in data for frame in frames)


test_decoder, test_decoder_soak = quick_and_soak(streams, cuts)(frames_found_not_made)
test_session, test_session_soak = quick_and_soak(streams, cuts)(no_chip_invented)


def test_the_valid_stream_gives_every_antennas_readings_however_it_is_cut() -> None:
    """The checks can fail: the unmutated stream gives each antenna's chips as the scans held them."""
    for at in ([], [1, 2, 3], list(range(0, len(VALID_STREAM), 7))):
        chips = check_session(chunked(VALID_STREAM, at))
        first = {r.antenna: r.uids for r in reversed(chips) if not r.stable}
        assert set(first) == {"spot1.ante", "spot1.play", "tray"}
        # the first reading is made over 3 K = 6 scans: scans 1-3's chips went 3 (K or more) scans before its end
        assert chips[0] == ChipsRead("spot1.ante", frozenset({CHIPS[2], CHIPS[5]}), False)
