"""Fuzzing the shoe's frame decoder and the link's host session: any bytes, mutated frame streams; no card invented."""

from __future__ import annotations

from hypothesis import strategies as st

from drivers.readings import CardRead
from tests.fuzz.fuzzing import ops, quick_and_soak
from tests.fuzz.targets import DECK, VALID_STREAM, check_frames, check_session, mutate, shoe_stream


def chunked(data: bytes, cuts: list[int]) -> list[bytes]:
    """`data` split at `cuts` (positions wrapped to its length): how reads of the port cut it."""
    points = sorted({c % (len(data) + 1) for c in cuts})
    edges = [0, *points, len(data)]
    return [data[a:b] for a, b in zip(edges, edges[1:])]


cuts = st.lists(st.integers(0, 4096), max_size=12)
any_bytes = st.binary(max_size=400)
# the sync bytes and a valid frame's own bytes, shuffled and repeated: what a noisy line looks like
noise = st.lists(st.sampled_from([b"\xa5", b"\x5a", b"\xa5\x5a", b"\x00", b"\x02", b"\xff"])
                 | st.sampled_from(shoe_stream(DECK[:6])), max_size=40).map(b"".join)
mutated_stream = st.builds(mutate, st.just(VALID_STREAM), ops)
streams = any_bytes | noise | mutated_stream


def frames_found_not_made(data: bytes, at: list[int]) -> None:
    check_frames(chunked(data, at))


def no_card_invented(data: bytes, at: list[int], quiet: list[bool]) -> None:
    check_session(chunked(data, at), quiet)


test_decoder, test_decoder_soak = quick_and_soak(streams, cuts)(frames_found_not_made)
test_session, test_session_soak = quick_and_soak(streams, cuts, st.lists(st.booleans(), max_size=12))(
    no_card_invented)


def test_the_valid_stream_gives_every_card_in_order() -> None:
    """The checks can fail: the unmutated stream gives its 20 cards, however it is cut."""
    for at in ([], [1, 2, 3], list(range(0, len(VALID_STREAM), 7))):
        cards = check_session(chunked(VALID_STREAM, at))
        assert [c.card for c in cards] == DECK[:20]
        assert all(isinstance(c, CardRead) for c in cards)


def test_a_card_frame_with_one_bit_flipped_is_not_read() -> None:
    """Flip each bit of the last card's frame: that card is never read, the others all are."""
    frames = shoe_stream(DECK[:2])
    last = frames[-1]
    assert last[4] == 0x02  # CARD
    for bit in range(len(last) * 8):
        broken = bytearray(last)
        broken[bit // 8] ^= 1 << (bit % 8)
        cards = check_session([b"".join(frames[:-1]) + bytes(broken)], [True])
        assert [c.card for c in cards] == DECK[:1], bit
