"""Poker hand histories in the PHH format (uoftcprg/phh-std): read, replay through our engine, export.

A PHH file is TOML: the table (`variant`, `antes`, `blinds_or_straddles`, `bring_in`,
`small_bet`, `big_bet`, `min_bet`, `starting_stacks`), the `actions` as strings, and optional
fields (`players`, `finishing_stacks`, `winnings`, event data...). A `.phhs` file holds several
hands as TOML tables `[1]`, `[2]`, ...

Action notation (players are `p1`..`pN` in PHH order: small blind first, button last in button
games; left of the dealer first in stud)::

    d dh p1 AsKd      deal hole cards (`??` for an unknown card)
    d db Jc3d5c       deal board cards
    p3 pb             post the bring-in (stud)
    p3 f / p3 cc      fold / check or call
    p3 cbr 7000       complete, bet or raise to 7000 (the total of the street, not the increment)
    p3 sd Qh / p3 sd  discard (draw) / stand pat
    p3 sm AsKd / p3 sm   show / muck at showdown
    # text            a comment (commentary)

Amounts in a record may be decimals (online cash games: `0.25`). A record is kept in integer
units: `unit` is the value of one unit (`Decimal('0.01')` there, `1` for chips), chosen as the
finest decimal that the blinds, antes, bets, stacks and actions use. Results (`finishing_stacks`,
`winnings`) are kept as written (`Decimal` or `int`), since a record may carry half chips that
an integer engine never pays.

The package is pure: it takes and returns text, or the fields a TOML reader made of it
(`HandHistory.from_fields`, `hands_of_tables`); the CLI reads the files. Its rooms:
`codes` (variant codes, PhhError), `actions` (one action line), `record` (the TOML text, read with
the standard library's `tomllib`, as a HandHistory, and back), `replay` (a record through
`engine.poker.Hand`) and `export` (our hands as records).
"""

from __future__ import annotations

from engine.phh.actions import PhhAction
from engine.phh.codes import GAME_CODES, VARIANT_NAMES, PhhError, PhhSyntaxError, game_of, variant_code
from engine.phh.export import hand_from_record, record_to_phh, to_phh
from engine.phh.record import HandHistory, dumps_phhs, hands_of_tables, load_toml, parse_phh, parse_phhs
from engine.phh.replay import replay, replay_hand, stakes_of

__all__ = [
    "PhhError", "PhhSyntaxError", "PhhAction", "HandHistory", "parse_phh", "parse_phhs", "dumps_phhs",
    "VARIANT_NAMES", "GAME_CODES", "replay", "replay_hand", "game_of", "stakes_of", "to_phh",
    "variant_code", "hand_from_record", "record_to_phh", "load_toml", "hands_of_tables",
]
