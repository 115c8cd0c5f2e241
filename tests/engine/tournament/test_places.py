"""Entries, late registration and re-entries; places of players out in the same hand; prizes to the cent."""

from __future__ import annotations

import pytest

from engine.errors import TournamentError
from engine.tournament import Finish, HandForHand, Registration, Standings, at_the_bubble, parse_tournament, prizes, split
from tests.engine.tournament.helpers import SUNDAY


def field(n: int, text: str = SUNDAY) -> tuple[Registration, Standings]:
    reg = Registration(parse_tournament(text))
    for i in range(1, n + 1):
        reg.enter(f"p{i:02d}")
    return reg, Standings(reg)


def test_the_pool_is_the_buy_ins_the_fees_kept_apart() -> None:
    reg, _ = field(24)
    assert (reg.prize_pool, reg.fees) == (24 * 20000, 24 * 2000)   # 200+20: 200 to the pool, 20 to the house


def test_late_registration_until_its_level_then_closed() -> None:
    reg, _ = field(3)
    reg.enter("late", level=2)                 # until level 2
    with pytest.raises(TournamentError, match="registration is closed"):
        reg.enter("later", level=3)
    reg.close()
    with pytest.raises(TournamentError, match="registration is closed"):
        reg.enter("again", level=1)


def test_a_re_entry_only_once_out_and_only_as_many_as_allowed() -> None:
    reg, standings = field(3)
    with pytest.raises(TournamentError, match="p01 is still in"):
        reg.enter("p01", level=1)
    standings.eliminate({"p01": 10000})
    entry = reg.enter("p01", level=1)
    assert (entry.number, entry.re_entry, entry.name) == (4, 1, "p01 #2")
    standings.eliminate({"p01": 10000})
    with pytest.raises(TournamentError, match="no re-entry left \\(1 allowed\\)"):
        reg.enter("p01", level=1)
    no_re = Registration(parse_tournament(SUNDAY.replace("re_entries = 1", "re_entries = 0")))
    no_re.enter("a")
    no_re.enter("b")
    no_re.out("a")
    with pytest.raises(TournamentError, match="no re-entry left"):
        no_re.enter("a")


def test_prizes_add_up_to_the_pool_exactly_the_odd_cents_from_the_top() -> None:
    assert prizes(480000, (50, 30, 20)) == (240000, 144000, 96000)
    assert prizes(100001, (33, 20, 13, 9, 7, 6, 5, 4, 3)) == (33001, 20000, 13000, 9000, 7000, 6000, 5000, 4000, 3000)
    for pool in range(999, 1020):
        assert sum(prizes(pool, (45, 27, 17, 11))) == pool


def test_a_split_gives_the_odd_cents_to_the_first_tied_players() -> None:
    assert split(100, ["a", "b", "c"]) == {"a": 34, "b": 33, "c": 33}
    assert split(96000 + 144000, ["x", "y"]) == {"x": 120000, "y": 120000}


def test_two_out_in_the_same_hand_finish_by_their_stacks_at_its_start() -> None:
    # 24 entries pay 3 (50/30/20 of 480,000). With 4 left, p03 (start of the hand 2,400) and p04 (9,000)
    # are out in the same hand: p04 had more, he finishes 3rd, p03 4th.
    reg, standings = field(24)
    reg.close()
    for i in range(24, 4, -1):
        standings.eliminate({f"p{i:02d}": 10000})
    standings.eliminate({"p03": 2400, "p04": 9000})
    top = standings.finishes()[:2]
    assert top == [Finish(3, "p04", 96000), Finish(4, "p03", 0)]
    standings.eliminate({"p02": 50000})
    assert standings.finishes()[:4] == [Finish(1, "p01", 240000), Finish(2, "p02", 144000), Finish(3, "p04", 96000),
                                       Finish(4, "p03", 0)]
    assert sum(f.prize for f in standings.finishes()) == reg.prize_pool
    assert sorted(f.place for f in standings.finishes()) == list(range(1, 25))


def test_equal_stacks_share_the_places_and_split_their_prizes_to_the_cent() -> None:
    # 3 paid of 10,001 (a 10-or-so field of its own): 50/30/20 -> 5,001 / 3,000 / 2,000. With 4 left,
    # p02, p03 and p04 are out in one hand with 700 each: they share places 2-4 and 3,000 + 2,000 + 0.
    text = SUNDAY + "\n[[payouts]]\nup_to = 30\nshares = [50, 30, 20]\n"
    text = text.replace("buy_in = 20000", "buy_in = 1").replace("added = 0", "")
    reg, standings = field(4, text.replace("name =", "added = 9997\nname ="))
    assert reg.prize_pool == 10001
    reg.close()
    standings.eliminate({"p04": 700, "p02": 700, "p03": 700})
    finishes = standings.finishes()
    assert finishes == [Finish(1, "p01", 5001), Finish(2, "p02", 1667, 3), Finish(2, "p03", 1667, 3),
                        Finish(2, "p04", 1666, 3)]
    assert sum(f.prize for f in finishes) == 10001


def test_the_places_wait_for_registration_to_close_and_the_last_player_cannot_be_out() -> None:
    reg, standings = field(3)
    standings.eliminate({"p03": 10000})
    with pytest.raises(TournamentError, match="once registration is closed"):
        standings.finishes()
    with pytest.raises(TournamentError, match="at least one player in"):
        standings.eliminate({"p01": 1, "p02": 1})
    with pytest.raises(TournamentError, match="p03 is not in"):
        standings.eliminate({"p03": 1})


def test_hand_for_hand_at_the_bubble_every_table_deals_one_hand_and_waits() -> None:
    # 24 entries pay 3: hand-for-hand with 4 left. T1 and T2 each lose a player in the same round: one
    # elimination, placed by their stacks at the start of their hands (p03 3,000 at T1, p04 3,000 at T2
    # share 3rd-4th: 96,000 + 0 split).
    assert at_the_bubble(4, 3) and not at_the_bubble(5, 3) and not at_the_bubble(3, 3)
    reg, standings = field(24)
    reg.close()
    standings.eliminate({f"p{i:02d}": 10000 for i in range(5, 25)})
    round_ = HandForHand(["T1", "T2"])
    round_.finished("T1", {"p03": 3000})
    assert not round_.may_deal("T1") and round_.may_deal("T2") and not round_.complete
    with pytest.raises(TournamentError, match="waiting for T2"):
        round_.eliminated()
    with pytest.raises(TournamentError, match="waits for the others"):
        round_.finished("T1", {})
    round_.finished("T2", {"p04": 3000})
    standings.eliminate(round_.eliminated())
    assert standings.finishes()[:2] == [Finish(3, "p03", 48000, 2), Finish(3, "p04", 48000, 2)]
