"""The screenshot helper's comparison: PNGs read (RGB as opaque RGBA), the pixels that differ beyond the channel tolerance counted."""

from __future__ import annotations

import io
import random

import pytest
from PIL import Image

from tests.web.screens import differing_share, read_png


def png(image: Image.Image) -> bytes:
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()


@pytest.mark.parametrize("mode", ["RGB", "RGBA"])
def test_a_png_reads_to_the_pixels_written_opaque_when_rgb(mode: str) -> None:
    rng = random.Random(len(mode))
    width, height, bpp = 7, 10, len(mode)
    pixels = bytes(rng.randrange(256) for _ in range(width * height * bpp))
    read = read_png(png(Image.frombytes(mode, (width, height), pixels)))
    assert read.mode == "RGBA" and read.size == (width, height)
    rgba = pixels if bpp == 4 else b"".join(pixels[i:i + 3] + b"\xff" for i in range(0, len(pixels), 3))
    assert read.tobytes() == rgba


def test_the_share_of_pixels_that_differ() -> None:
    image = read_png(png(Image.new("RGBA", (10, 10), (0, 0, 0, 0))))
    changed = image.copy()
    changed.putpixel((0, 3), (255, 0, 0, 255))  # one pixel far off
    changed.putpixel((2, 5), (16, 16, 16, 0))  # one pixel a little off (within the channel tolerance)
    changed.putpixel((4, 7), (0, 0, 0, 49))  # one pixel off in its alpha alone, just beyond it
    other = read_png(png(changed))
    assert differing_share(image, image, 48) == 0
    assert differing_share(image, other, 48) == pytest.approx(2 / 100)
    assert differing_share(image, other, 15) == pytest.approx(3 / 100)
    assert differing_share(image, other, 255) == 0
    assert differing_share(image, read_png(png(Image.new("RGBA", (9, 10)))), 48) == 1.0


def test_a_picture_that_is_not_a_png_is_refused() -> None:
    with pytest.raises(ValueError, match="not a PNG"):
        read_png(b"GIF89a")
    gif = io.BytesIO()
    Image.new("RGB", (2, 2)).save(gif, format="GIF")
    with pytest.raises(ValueError, match="not a PNG: GIF"):
        read_png(gif.getvalue())
