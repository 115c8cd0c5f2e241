"""Screenshot references for the pages: `check_screenshot(page, name)` compares a page with its committed picture.

    from tests.web.screens import check_screenshot
    check_screenshot(page, "table-uth-1920")          # the page as it is drawn now, at its viewport

It writes the screenshot to `$CROUPIER_SCREENSHOTS/NAME.png` (a temporary folder when unset) and
compares it with the reference `tests/web/screens/NAME.png`: the same size, and at most
`tolerance` (default 0.2%) of the pixels differing by more than `channel` (default 48 of 255) in
any colour channel (font hinting and anti-aliasing may move a few edge pixels, a changed layout
moves thousands). It fails naming both files and the share that differs (no image library: the
PNGs are decoded here with zlib and the PNG filters).
`CROUPIER_UPDATE_SCREENS=1` rewrites the reference instead (then look at it before committing).
A missing reference fails, saying how to make it.

Make what the page shows deterministic before calling it: a fixed seed and a fixed point in the
hand, and nothing time-dependent on the page (mask it with `mask=[locator, ...]`, passed on to
Playwright's `page.screenshot`, which paints it a flat colour).
"""

from __future__ import annotations

import os
import struct
import tempfile
import zlib
from pathlib import Path
from typing import Any

REFERENCES = Path(__file__).with_name("screens")
_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def check_screenshot(page: Any, name: str, *, tolerance: float = 0.002, channel: int = 48,
                     mask: list[Any] | None = None) -> Path:
    """Screenshot `page` (a Playwright page, its viewport) as NAME.png and compare it with the
    committed reference; returns the path written. Raises AssertionError when it differs or the
    reference is missing (unless `CROUPIER_UPDATE_SCREENS=1`, which rewrites the reference)."""
    out_dir = Path(os.environ.get("CROUPIER_SCREENSHOTS") or tempfile.mkdtemp(prefix="croupier-screens-"))
    out_dir.mkdir(parents=True, exist_ok=True)
    shot = out_dir / f"{name}.png"
    data: bytes = page.screenshot(path=str(shot), mask=mask or [], animations="disabled", caret="hide")
    reference = REFERENCES / f"{name}.png"
    if os.environ.get("CROUPIER_UPDATE_SCREENS") == "1":
        REFERENCES.mkdir(parents=True, exist_ok=True)
        reference.write_bytes(data)
        return shot
    assert reference.is_file(), (f"no reference {reference}: run with CROUPIER_UPDATE_SCREENS=1 to write it "
                                 f"from {shot}, look at it, and commit it")
    expected = reference.read_bytes()
    if expected == data:  # the usual case: Chromium draws the same page to the same bytes
        return shot
    share = differing_share(decode_png(expected), decode_png(data), channel)
    assert share <= tolerance, (f"{shot} differs from {reference} in {share:.2%} of its pixels "
                                f"(at most {tolerance:.2%}); CROUPIER_UPDATE_SCREENS=1 rewrites the reference")
    return shot


def differing_share(a: tuple[int, int, list[bytes]], b: tuple[int, int, list[bytes]], channel: int) -> float:
    """The share of pixels of two decoded images (`decode_png`) that differ by more than `channel`
    in any channel; 1.0 when their sizes differ."""
    (wa, ha, rows_a), (wb, hb, rows_b) = a, b
    if (wa, ha) != (wb, hb):
        return 1.0
    differing = 0
    for row_a, row_b in zip(rows_a, rows_b):
        if row_a == row_b:
            continue
        for x in range(wa):
            pa, pb = row_a[x * 4:x * 4 + 4], row_b[x * 4:x * 4 + 4]
            if pa != pb and max(abs(p - q) for p, q in zip(pa, pb)) > channel:
                differing += 1
    return differing / (wa * ha)


def decode_png(data: bytes) -> tuple[int, int, list[bytes]]:
    """`(width, height, rows)` of an 8-bit RGB or RGBA non-interlaced PNG (what Chromium writes),
    each row as RGBA bytes. Raises ValueError for any other PNG."""
    if data[:8] != _SIGNATURE:
        raise ValueError("not a PNG")
    pos, idat, header = 8, bytearray(), b""
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        chunk = data[pos + 8:pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            header = chunk
        elif kind == b"IDAT":
            idat += chunk
        elif kind == b"IEND":
            break
    width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", header)
    if depth != 8 or colour not in (2, 6) or interlace:
        raise ValueError(f"unsupported PNG (depth {depth}, colour type {colour}, interlace {interlace})")
    bpp = 3 if colour == 2 else 4
    stride = width * bpp
    raw = zlib.decompress(bytes(idat))
    rows: list[bytes] = []
    prev = bytearray(stride)
    for y in range(height):
        start = y * (stride + 1)
        kind, line = raw[start], bytearray(raw[start + 1:start + 1 + stride])
        _unfilter(kind, line, prev, bpp)
        rows.append(bytes(line) if bpp == 4 else _rgba(line))
        prev = line
    return width, height, rows


def _unfilter(kind: int, line: bytearray, prev: bytearray, bpp: int) -> None:
    if kind == 0:
        return
    if kind == 2:
        for i in range(len(line)):
            line[i] = (line[i] + prev[i]) & 0xFF
        return
    for i in range(len(line)):
        left = line[i - bpp] if i >= bpp else 0
        if kind == 1:
            line[i] = (line[i] + left) & 0xFF
        elif kind == 3:
            line[i] = (line[i] + ((left + prev[i]) >> 1)) & 0xFF
        elif kind == 4:
            up, corner = prev[i], prev[i - bpp] if i >= bpp else 0
            p = left + up - corner
            pa, pb, pc = abs(p - left), abs(p - up), abs(p - corner)
            line[i] = (line[i] + (left if pa <= pb and pa <= pc else up if pb <= pc else corner)) & 0xFF
        else:
            raise ValueError(f"bad PNG filter {kind}")


def _rgba(line: bytearray) -> bytes:
    out = bytearray(len(line) // 3 * 4)
    out[0::4], out[1::4], out[2::4] = line[0::3], line[1::3], line[2::3]
    out[3::4] = b"\xff" * (len(line) // 3)
    return bytes(out)


SIZES = {"1920": (1920, 1080), "1280": (1280, 720), "tablet": (1280, 800)}


def check_sizes(page: Any, name: str, sizes: tuple[str, ...] = ("1920", "1280"), **options: Any) -> list[Path]:
    """`check_screenshot` of the page as NAME-WxH at each of `sizes` (keys of SIZES: the pit's and the
    control room's 1920x1080, a small screen's 1280x720, the dealer tablet's 1280x800), then back
    at the page's own viewport; `options` go to `check_screenshot` (`mask=` a list of locators)."""
    own = page.viewport_size
    shots = []
    try:
        for size in sizes:
            width, height = SIZES[size]
            page.set_viewport_size({"width": width, "height": height})
            shots.append(check_screenshot(page, f"{name}-{width}x{height}", **options))
    finally:
        page.set_viewport_size(own)
    return shots
