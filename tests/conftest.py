"""The suite's order (the longest test files first) and the ZeroMQ context the table's, cli and sim tests share."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import zmq

# The files that take 12 s or more, longest first: each file's tests' total time (setup, call and teardown) in the
# fresh-clone `make test` of 8c8cdf7 (ci12e: 1,754 s of test time), less what branch tests13 took out of each file (its
# files run alone, main's and the branch's, their junit times compared; 2026-12-05, load 5-15).
# `make test` hands whole files to its workers in the order collected (`--dist loadfile --no-loadscope-reorder`):
# a long file collected last (tests/web sorts last) would run by itself at the end. Measure again when a file
# grows: the junit report's times (`PYTEST_ADDOPTS=--junitxml=FILE make test`) summed by file.
LONGEST_FIRST = (
    "tests/web/test_demo_web.py",  # 62 s
    "tests/web/test_dealer.py",  # 50 s
    "tests/web/test_dealer_chips.py",  # 40 s
    "tests/web/test_dealer_poker.py",  # 39 s
    "tests/web/test_dealer_drafts.py",  # 39 s
    "tests/web/test_dealer_shift.py",  # 39 s
    "tests/web/test_accessibility.py",  # 37 s
    "tests/harness/test_harness_poker.py",  # 35 s
    "tests/floor/test_floor_ratings.py",  # 35 s
    "tests/web/test_dealer_poker_seats.py",  # 35 s
    "tests/floor/test_floor_sim.py",  # 34 s
    "tests/web/test_pit_rating.py",  # 34 s
    "tests/web/test_table_room.py",  # 33 s
    "tests/web/test_demo_dealer.py",  # 32 s
    "tests/web/test_dealer_players.py",  # 31 s
    "tests/web/test_chip_circles.py",  # 29 s
    "tests/web/test_pit_gaming_day.py",  # 27 s
    "tests/web/test_chip_console_layout.py",  # 26 s
    "tests/analysis/test_math_uth_dist.py",  # 26 s
    "tests/firmware_host/test_curve.py",  # 25 s
    "tests/web/test_table_display.py",  # 24 s
    "tests/web/test_surveillance.py",  # 24 s
    "tests/floor/test_pit_aggregator.py",  # 23 s
    "tests/web/test_demo_rated_pit.py",  # 21 s
    "tests/web/test_dealer_layout.py",  # 20 s
    "tests/floor/test_floor_rating_past.py",  # 19 s
    "tests/cli/test_cmd_ratings.py",  # 18 s
    "tests/drivers/test_chip_link_io.py",  # 18 s
    "tests/web/test_demo_chips_offline.py",  # 18 s
    "tests/engine/poker/test_pokerkit_differential.py",  # 17 s
    "tests/web/test_pit_floor.py",  # 17 s
    "tests/web/test_pit_rating_past_holds.py",  # 17 s
    "tests/web/test_pit.py",  # 16 s
    "tests/web/test_demo_chips_web.py",  # 15 s
    "tests/floor/test_floor_chip_alerts.py",  # 14 s
    "tests/cli/test_cmd_demo.py",  # 14 s
    "tests/test_typing.py",  # 14 s
    "tests/web/test_pit_rating_past.py",  # 14 s
    "tests/web/test_signin.py",  # 13 s
    "tests/sim/test_chip_demo_3cp.py",  # 13 s
    "tests/floor/test_floor_archiver.py",  # 13 s
    "tests/firmware_host/test_rating_signoff.py",  # 13 s
    "tests/sim/test_chip_demo.py",  # 12 s
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
