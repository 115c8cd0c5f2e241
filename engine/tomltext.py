"""TOML text read with tomllib, every refusal a `tomllib.TOMLDecodeError` in words (tomllib lets two others out).

tomllib itself raises RecursionError on arrays or inline tables nested a few hundred deep, and
`int()`'s ValueError on an integer of more than `sys.get_int_max_str_digits()` digits; found by
fuzzing the configuration parser (tests/fuzz/). The configuration, the paytable profiles and the
table limits read their TOML here, so each refuses such text as it refuses any other bad TOML.

>>> loads("a = 1")
{'a': 1}
>>> loads("a = " + "[" * 5000 + "]" * 5000)
Traceback (most recent call last):
...
tomllib.TOMLDecodeError: arrays or inline tables nested too deep
"""

from __future__ import annotations

import sys
import tomllib
from collections.abc import Callable
from typing import Any


def loads(text: str, *, parse_float: Callable[[str], Any] = float) -> dict[str, Any]:
    """`tomllib.loads(text)`. Raises tomllib.TOMLDecodeError, saying why, for any text it cannot read."""
    try:
        return tomllib.loads(text, parse_float=parse_float)
    except tomllib.TOMLDecodeError:
        raise
    except RecursionError:
        raise tomllib.TOMLDecodeError("arrays or inline tables nested too deep") from None
    except ValueError as exc:  # int()'s limit on digits: tomllib does not catch it
        if "digits" in str(exc):
            raise tomllib.TOMLDecodeError(f"an integer of more than {sys.get_int_max_str_digits()} digits") from None
        raise tomllib.TOMLDecodeError(str(exc) or type(exc).__name__) from None
