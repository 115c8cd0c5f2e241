"""Hypothesis strategies for the fuzz tests, and the two sizes each property runs at (make test, make soak)."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

QUICK = int(os.environ.get("CROUPIER_FUZZ_QUICK", "100"))
"""Examples per property in `make test` (the whole fuzz part well under 30 s on 2 cores)."""
SOAK = int(os.environ.get("CROUPIER_FUZZ_SOAK", "3000"))
"""Examples per property in `make soak`."""


def quick_and_soak(*strategies: st.SearchStrategy[Any], quick: int = QUICK, soak: int = SOAK,
                   **named: st.SearchStrategy[Any]) -> Callable[[Callable[..., None]],
                                                                tuple[Callable[..., None], Callable[..., None]]]:
    """One property as two tests: a short run for `make test`, a long one marked `soak`.

    Use as `test_x, test_x_soak = quick_and_soak(strategy)(check)`; strategies given by name leave the
    check's other arguments to pytest's fixtures."""
    def make(check: Callable[..., None]) -> tuple[Callable[..., None], Callable[..., None]]:
        common = {"deadline": None, "suppress_health_check": [HealthCheck.too_slow, HealthCheck.data_too_large,
                                                               HealthCheck.function_scoped_fixture]}
        short = settings(max_examples=quick, **common)(given(*strategies, **named)(check))
        long = pytest.mark.soak(settings(max_examples=soak, **common)(given(*strategies, **named)(check)))
        return short, long
    return make


# -- msgpack values of any shape ----------------------------------------------------------------

FIELD_NAMES = ["id", "cmd", "hand", "auth", "user", "pin", "seat", "bets", "ante", "blind", "trips", "pair_plus",
               "card", "cards", "game", "profile", "limits", "minimum", "maximum", "chip", "seats", "structure",
               "stakes", "blinds", "antes", "stacks", "button", "sitting_out", "keep_seats", "rake", "rate_bp",
               "cap", "decision", "multiple", "action", "amount", "reason", "by", "then", "shares"]
WORDS = FIELD_NAMES + ["open", "bet", "deal", "decide", "confirm", "void", "clear", "state", "act", "chop",
                       "uth", "3cp", "holdem", "no-limit", "play", "fold", "check", "raise", "join", "As", "Td",
                       "continue", "default", "1", "0", "-1", ""]

scalars = (st.none() | st.booleans() | st.integers(min_value=-(2**63), max_value=2**64 - 1)
           | st.floats(allow_nan=True, allow_infinity=True) | st.text(max_size=40) | st.binary(max_size=40)
           | st.sampled_from(WORDS))
keys = st.sampled_from(FIELD_NAMES) | st.text(max_size=12) | st.binary(max_size=6) | st.integers(-5, 300) \
    | st.none() | st.booleans()
msgpack_values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=6)
                              | st.dictionaries(keys, inner, max_size=6), max_leaves=12)
"""Any value msgpack can carry (maps keyed by any scalar: msgpack allows it, the decoder must not)."""

request_like = st.builds(lambda fields, cmd: {**fields, "cmd": cmd},
                         st.dictionaries(st.sampled_from(FIELD_NAMES), msgpack_values, max_size=6),
                         st.sampled_from(WORDS))
"""Maps that look like requests: the real field names, any values."""

ops = st.lists(st.tuples(st.integers(0, 5), st.integers(0, 2**16), st.integers(0, 2**16)), min_size=1, max_size=8)
"""Byte mutations for `targets.mutate`."""
