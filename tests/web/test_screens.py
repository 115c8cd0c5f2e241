"""The screenshot helper's PNG reading and comparison: every PNG filter decoded, differences counted."""

from __future__ import annotations

import random
import struct
import zlib

import pytest

from tests.web.screens import decode_png, differing_share


def _paeth(a: int, b: int, c: int) -> int:
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    return a if pa <= pb and pa <= pc else b if pb <= pc else c


def encode_png(width: int, rows: list[bytes], bpp: int, filters: list[int]) -> bytes:
    """A PNG as an encoder would write it, each row with the filter given (0..4)."""
    raw, prev = bytearray(), bytes(width * bpp)
    for row, kind in zip(rows, filters):
        out = bytearray()
        for i, x in enumerate(row):
            a, b, c = (row[i - bpp] if i >= bpp else 0), prev[i], (prev[i - bpp] if i >= bpp else 0)
            pred = [0, a, b, (a + b) >> 1, _paeth(a, b, c)][kind]
            out.append((x - pred) & 0xFF)
        raw += bytes([kind]) + out
        prev = row

    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
    header = struct.pack(">IIBBBBB", width, len(rows), 8, 2 if bpp == 3 else 6, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(bytes(raw)))
            + chunk(b"IEND", b""))


@pytest.mark.parametrize("bpp", [3, 4])
def test_every_filter_decodes_to_the_pixels_encoded(bpp: int) -> None:
    rng = random.Random(bpp)
    width = 7
    rows = [bytes(rng.randrange(256) for _ in range(width * bpp)) for _ in range(10)]
    width_, height, decoded = decode_png(encode_png(width, rows, bpp, [0, 1, 2, 3, 4, 4, 3, 2, 1, 0]))
    assert (width_, height) == (width, 10)
    rgba = rows if bpp == 4 else [b"".join(r[i:i + 3] + b"\xff" for i in range(0, len(r), 3)) for r in rows]
    assert decoded == rgba


def test_the_share_of_pixels_that_differ() -> None:
    rows = [bytes(4 * 10) for _ in range(10)]
    image = decode_png(encode_png(10, rows, 4, [1] * 10))
    changed = [bytearray(r) for r in rows]
    changed[3][0:4] = b"\xff\x00\x00\xff"  # one pixel far off
    changed[5][8:12] = b"\x10\x10\x10\x00"  # one pixel a little off (within the channel tolerance)
    other = decode_png(encode_png(10, [bytes(r) for r in changed], 4, [4] * 10))
    assert differing_share(image, image, 48) == 0
    assert differing_share(image, other, 48) == pytest.approx(1 / 100)
    assert differing_share(image, decode_png(encode_png(9, [r[:36] for r in rows], 4, [0] * 10)), 48) == 1.0


def test_a_png_it_cannot_read_is_refused() -> None:
    with pytest.raises(ValueError, match="not a PNG"):
        decode_png(b"GIF89a")
