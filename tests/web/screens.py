"""Screenshot references for the pages: `check_screenshot(page, name)` compares a page with its committed picture.

    from tests.web.screens import check_screenshot
    check_screenshot(page, "table-uth-1920")          # the page as it is drawn now, at its viewport

It writes the screenshot to `$CROUPIER_SCREENSHOTS/NAME.png` (a temporary folder when unset) and
compares it with the reference `tests/web/screens/NAME.png`: the same size, and at most
`tolerance` (default 0.2%) of the pixels differing by more than `channel` (default 48 of 255) in
any colour channel (font hinting and anti-aliasing may move a few edge pixels, a changed layout
moves thousands). It fails naming both files and the share that differs (the PNGs read by Pillow).
`CROUPIER_UPDATE_SCREENS=1` rewrites the reference instead (then look at it before committing).
A missing reference fails, saying how to make it.

Make what the page shows deterministic before calling it: a fixed seed and a fixed point in the
hand, and nothing time-dependent on the page (mask it with `mask=[locator, ...]`, passed on to
Playwright's `page.screenshot`, which paints it a flat colour).
"""

from __future__ import annotations

import io
import os
import tempfile
from pathlib import Path
from typing import Any

from PIL import Image, ImageChops, UnidentifiedImageError

REFERENCES = Path(__file__).with_name("screens")


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
    share = differing_share(read_png(expected), read_png(data), channel)
    if share > tolerance:  # once more after two frames drawn: a loaded machine caught a page mid-paint (a strip
        # undrawn, a seat's last line missing) while the page itself was right
        page.evaluate("() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))")
        data = page.screenshot(path=str(shot), mask=mask or [], animations="disabled", caret="hide")
        share = differing_share(read_png(expected), read_png(data), channel)
    assert share <= tolerance, (f"{shot} differs from {reference} in {share:.2%} of its pixels "
                                f"(at most {tolerance:.2%}); CROUPIER_UPDATE_SCREENS=1 rewrites the reference")
    return shot


def differing_share(a: Image.Image, b: Image.Image, channel: int) -> float:
    """The share of pixels of two images (`read_png`) that differ by more than `channel` in any
    channel (red, green, blue or alpha); 1.0 when their sizes differ."""
    if a.size != b.size:
        return 1.0
    red, green, blue, alpha = ImageChops.difference(a, b).split()
    most = ImageChops.lighter(ImageChops.lighter(red, green), ImageChops.lighter(blue, alpha))  # per pixel
    beyond = most.point(lambda v: 255 if v > channel else 0).histogram()[255]
    return beyond / (a.width * a.height)


def read_png(data: bytes) -> Image.Image:
    """A PNG's pixels as RGBA (an RGB PNG, as Chromium writes it, opaque). Raises ValueError for
    anything but a PNG."""
    try:
        image = Image.open(io.BytesIO(data))
        image.load()
    except (UnidentifiedImageError, OSError) as exc:
        raise ValueError(f"not a PNG: {exc}") from exc
    if image.format != "PNG":
        raise ValueError(f"not a PNG: {image.format}")
    return image.convert("RGBA")


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
