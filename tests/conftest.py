"""The suite's order (the longest test files first) and the ZeroMQ context the table's, cli and sim tests share."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import zmq

# The files that take a minute or more (pytest --durations, 2026-12-01), longest first. `make test`
# hands whole files to its two workers in the order collected (`--dist loadfile
# --no-loadscope-reorder`): a long file collected last would run by itself at the end.
LONGEST_FIRST = (
    "tests/web/test_table_display.py",
    "tests/floor/test_floor_ratings.py",  # its 130-hand archive (a module fixture; 500 hands in make soak): 101 s at load 10
    "tests/sim/test_chip_demo.py",  # a chips demo at the fast scan, 36 s at load 9 (125 s with the 3CP one, until 2026-12-04)
    "tests/sim/test_chip_demo_3cp.py",  # the 3CP chips demo, 32 s at load 9
    "tests/floor/test_floor_chip_alerts.py",  # a rated chips demo archived, 42 s at load 9 (87 s at the default scan)
    "tests/harness/test_harness_poker.py",
    "tests/web/test_demo_dealer.py",
    "tests/web/test_dealer.py",
    "tests/harness/test_harness_hands.py",
    "tests/web/test_demo_web.py",
    "tests/firmware_host/test_feed.py",
    "tests/harness/test_harness_kill.py",
    "tests/floor/test_pit_aggregator.py",
    "tests/web/test_surveillance.py",
    "tests/floor/test_floor_sim.py",
    "tests/web/test_pit_floor.py",
    "tests/floor/test_floor_curve.py",
    "tests/sim/test_sim_tournament_devices.py",
    "tests/analysis/test_math_uth.py",
    "tests/web/test_dealer_poker.py",
    "tests/floor/test_floor_stats.py",
    "tests/web/test_pit.py",
    "tests/test_typing.py",
)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    rank = {path: i for i, path in enumerate(LONGEST_FIRST)}

    def key(item: pytest.Item) -> int:
        return rank.get(item.nodeid.split("::", 1)[0], len(rank))

    items.sort(key=key)  # stable: the rest keep their order


@pytest.fixture
def ctx() -> Iterator[zmq.Context[Any]]:
    """A ZeroMQ context destroyed after each test (the table's, the command line's and the simulations' tests)."""
    c: zmq.Context[Any] = zmq.Context()
    yield c
    c.destroy(linger=0)
