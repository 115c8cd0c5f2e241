"""The suite's order (the longest test files first) and the ZeroMQ context the table's, cli and sim tests share."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import zmq

# The files that take 12 s or more, longest first: each file's tests' total time (setup, call and teardown) in a
# fresh-clone `make test` of main after the merges of 2026-12-05 04:00 UTC (ci12b at 3026b82: 1,700 s of test time).
# `make test` hands whole files to its workers in the order collected (`--dist loadfile --no-loadscope-reorder`):
# a long file collected last (tests/web sorts last) would run by itself at the end. Measure again when a file
# grows: the junit report's times (`PYTEST_ADDOPTS=--junitxml=FILE make test`) summed by file.
LONGEST_FIRST = (
    "tests/web/test_dealer_shift.py",  # 73 s
    "tests/web/test_demo_web.py",  # 58 s
    "tests/web/test_dealer_poker_seats.py",  # 55 s
    "tests/web/test_dealer.py",  # 55 s
    "tests/web/test_dealer_drafts.py",  # 53 s
    "tests/web/test_accessibility.py",  # 43 s
    "tests/web/test_chip_console_layout.py",  # 41 s
    "tests/web/test_dealer_chips.py",  # 40 s
    "tests/web/test_pit_rating.py",  # 39 s
    "tests/web/test_dealer_poker.py",  # 38 s
    "tests/web/test_table_room.py",  # 38 s
    "tests/floor/test_floor_ratings.py",  # 36 s
    "tests/floor/test_floor_sim.py",  # 32 s
    "tests/web/test_demo_dealer.py",  # 32 s
    "tests/harness/test_harness_poker.py",  # 29 s
    "tests/web/test_surveillance.py",  # 27 s
    "tests/web/test_pit_gaming_day.py",  # 26 s
    "tests/web/test_pit_rating_past.py",  # 25 s
    "tests/web/test_table_display.py",  # 24 s
    "tests/floor/test_pit_aggregator.py",  # 23 s
    "tests/firmware_host/test_curve.py",  # 23 s
    "tests/web/test_demo_rated_pit.py",  # 22 s
    "tests/web/test_chip_circles.py",  # 21 s
    "tests/engine/poker/test_pokerkit_differential.py",  # 20 s
    "tests/web/test_dealer_players.py",  # 20 s
    "tests/web/test_dealer_layout.py",  # 19 s
    "tests/drivers/test_chip_link_io.py",  # 18 s
    "tests/analysis/test_math_uth_dist.py",  # 18 s
    "tests/test_typing.py",  # 17 s
    "tests/web/test_demo_chips_offline.py",  # 16 s
    "tests/cli/test_cmd_ratings.py",  # 16 s
    "tests/floor/test_floor_rating_past.py",  # 16 s
    "tests/web/test_demo_chips_web.py",  # 15 s
    "tests/web/test_pit.py",  # 14 s
    "tests/floor/test_floor_chip_alerts.py",  # 14 s
    "tests/web/test_pit_past_close.py",  # 13 s
    "tests/sim/test_chip_demo.py",  # 12 s
    "tests/floor/test_floor_archiver.py",  # 12 s
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
