"""A tournament file for the tests: the 000 example's 200+20, three tables of 9, a break that colours up."""

from __future__ import annotations

SUNDAY = """
name = "Sunday 200+20"
buy_in = 20000
fee = 2000
starting_stack = 10000
seats_per_table = 9
late_registration_until_level = 2
re_entries = 1
chips = [25, 100, 500]

[tables]
use = ["T1", "T2", "T3"]
break_order = ["T3", "T2"]

[[levels]]
small_blind = 25
big_blind = 50
duration_s = 1200

[[levels]]
small_blind = 50
big_blind = 100
ante = 25
duration_s = 1200

[[levels]]
break_s = 600

[[levels]]
small_blind = 100
big_blind = 200
ante = 100
duration_s = 1200
"""
