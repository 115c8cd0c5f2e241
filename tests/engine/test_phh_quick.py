"""The quick PHH replay (engine/phh_quick.py) gives the full engine's stacks, or steps aside.

The rule under test: for any text, `quick_replay` is None, or the full replay (`parse_phh`,
then `replay`) accepts the record and gives the same finishing stacks. Checked on every sample
record, on random no-limit hold'em hands dealt and played through our engine (all-ins, side
pots, antes, straddles, heads-up, mucks, shows before the run-out) and on broken records.
"""

from __future__ import annotations

import doctest
import functools
import random
from pathlib import Path

import pytest

import engine.phh_quick
from engine.cards import DECK
from engine.phh import HandHistory, PhhError, parse_phh, quick_replay, replay, to_phh
from engine.phh_quick import quick_read
from engine.poker import VARIANTS, Hand, HandSettings, Phase, Stakes, Structure

DATA = Path(__file__).resolve().parents[1] / "data" / "phh" / "data"


def full(text: str) -> tuple[int, ...] | None:
    """The full engine's stacks, or None when it refuses the record."""
    try:
        return replay(parse_phh(text))
    except PhhError:
        return None


def agrees(text: str) -> bool:
    """The rule: the quick path steps aside, or gives what the full engine gives. Returns
    whether the quick path took the record."""
    quick = quick_replay(text)
    if quick is None:
        return False
    ours = full(text)
    assert ours is not None, f"the quick path accepted a record the full engine refuses:\n{text}"
    assert quick.finishing_stacks == ours, text
    return True


def test_doctests() -> None:
    assert doctest.testmod(engine.phh_quick).failed == 0


def test_every_sample_record_gives_the_full_engines_result() -> None:
    taken = 0
    no_limit = 0
    for path in sorted(DATA.rglob("*.phh")):
        text = path.read_text(encoding="utf-8")
        quick = quick_replay(text)
        if "variant = 'NT'" in text or 'variant = "NT"' in text:
            no_limit += 1
        if quick is None:
            continue
        taken += 1
        hand = parse_phh(text)
        assert quick.finishing_stacks == replay(hand), path
        assert quick.recorded == hand.finishing_stacks, path
        assert quick.variant == hand.variant == "NT"
    # what the bench's speed rests on: nearly every no-limit hold'em record takes the quick path
    assert no_limit == 1059
    assert taken == 1055


def test_records_the_quick_path_leaves_to_the_full_engine() -> None:
    for name in ("dwan-ivey-2009.phh",               # comments, double quotes, unknown cards
                 "antonius-blom-2009.phh",           # decimal amounts
                 "wsop/2019/42/3/00-01-07.phh",      # refused by the engine (no action for p8)
                 "pluribus/102/0.phh",               # half chips in the recorded stacks
                 "phua-xuan-2019.phh"):              # short deck
        assert quick_replay((DATA / name).read_text(encoding="utf-8")) is None, name


# --- random hands of our engine ---------------------------------------------------------------


def random_table(rng: random.Random) -> tuple[Stakes, list[int]]:
    n = rng.choice([2, 2, 3, 4, 6, 6, 9, 10])
    small, big = rng.choice([(1, 2), (5, 10), (50, 100), (2, 5), (0, 2)])
    blinds: tuple[int, ...] = (small, big)
    if n > 3 and rng.random() < 0.15:
        blinds = (small, big, 2 * big)          # a straddle
    antes: int | tuple[int, ...] = 0
    r = rng.random()
    if r < 0.2:
        antes = rng.choice([1, small])
    elif r < 0.35:
        antes = tuple([0, big] + [0] * (n - 2))   # a big-blind ante
    min_bet = rng.choice([big, big, 0, big * 2]) if len(blinds) == 2 else max(blinds)
    stakes = Stakes(Structure.NO_LIMIT, blinds, antes, min_bet=min_bet)
    stacks = [rng.choice([big * rng.randint(1, 8), big * rng.randint(10, 200), 1 + rng.randint(0, 3)])
              for _ in range(n)]
    return stakes, stacks


def play_random(rng: random.Random) -> Hand:
    """A random no-limit hold'em hand dealt and played to the end through our engine."""
    stakes, stacks = random_table(rng)
    hand = Hand(VARIANTS["holdem"], stakes, stacks, settings=HandSettings(burns=False))
    deck = list(DECK)
    rng.shuffle(deck)
    aggression = rng.random()
    while hand.phase is not Phase.OVER:
        if hand.expected_card() is not None:
            hand.deal(deck.pop())
        elif hand.phase is Phase.SHOWDOWN:
            if hand.can_muck() and rng.random() < 0.4:
                hand.muck()
            else:
                hand.show()
        else:
            rng_range = hand.raise_range()
            r = rng.random()
            if rng_range is not None and r < aggression * 0.6:
                low, high = rng_range.min_to, rng_range.max_to
                to = rng.choice([low, high, rng.randint(low, high), low, high])
                hand.bet_or_raise(to)
            elif hand.can_fold() and r > 0.75:
                hand.fold()
            else:
                hand.check_or_call()
    return hand


def quick_form(record: HandHistory, actions: list[str] | None = None) -> str:
    """The record as pokerkit writes it (literal strings, one line a field): the quick form."""
    texts = [a.format() for a in record.actions] if actions is None else actions
    lines = [
        "variant = 'NT'",
        "ante_trimming_status = true",
        f"antes = {list(record.antes)}",
        f"blinds_or_straddles = {list(record.blinds_or_straddles)}",
        f"min_bet = {record.min_bet}",
        f"starting_stacks = {list(record.starting_stacks)}",
        "actions = [" + ", ".join(f"'{t}'" for t in texts) + "]",
        "players = [" + ", ".join(f"'P{i}'" for i in range(record.player_count)) + "]",
    ]
    if record.finishing_stacks is not None:
        lines.append(f"finishing_stacks = {list(record.finishing_stacks)}")
    return "\n".join(lines) + "\n"


@functools.cache
def random_records(seed: int = 4, count: int = 2500) -> list[tuple[HandHistory, str, int]]:
    """Random hands as records, their quick-form texts and how many pots each had."""
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        hand = play_random(rng)
        assert hand.result is not None
        record = to_phh(hand)
        out.append((record, quick_form(record), sum(1 for pot in hand.result.pots if pot.amount)))
    return out


def test_random_hands_of_our_engine_give_the_same_stacks() -> None:
    taken = showdowns = side_pots = mucks = folded = 0
    records = random_records()
    for record, text, pots in records:
        assert full(text) == tuple(record.finishing_stacks or ())   # the record of our own hand
        if agrees(text):
            taken += 1
            kinds = [a.kind for a in record.actions]
            showdowns += "sm" in kinds
            folded += "sm" not in kinds
            mucks += any(a.kind == "sm" and a.cards is None for a in record.actions)
            side_pots += pots > 1
    assert taken == len(records)         # every hand our engine deals has the quick form
    assert showdowns > 1000 and folded > 100 and mucks > 500 and side_pots > 200


def test_shows_before_the_run_out_are_read_at_the_showdown() -> None:
    moved = 0
    for record, _text, _pots in random_records():
        texts = [a.format() for a in record.actions]
        boards = [i for i, t in enumerate(texts) if t.startswith("d db ")]
        shows = [i for i, t in enumerate(texts) if " sm" in t]
        if not boards or not shows or shows[0] < boards[-1]:
            continue
        last_bet = max((i for i, a in enumerate(record.actions) if a.kind in ("f", "cc", "cbr")), default=-1)
        run_out = [i for i in boards if i > last_bet]
        if len(run_out) < 2:
            continue
        # the PHH habit of handwritten records: the shows right after the last call, the board after
        cut = run_out[0]
        reordered = texts[:cut] + [texts[i] for i in shows] + [t for i, t in enumerate(texts[cut:], cut) if i not in shows]
        text = quick_form(record, reordered)
        assert full(text) == record.finishing_stacks
        assert agrees(text)
        moved += 1
    assert moved > 50


# --- broken records: the quick path steps aside ----------------------------------------------------


def mutate(rng: random.Random, texts: list[str], n: int) -> list[str]:
    out = list(texts)
    kind = rng.randrange(9)
    bets = [i for i, t in enumerate(out) if t[0] == "p" and " sm" not in t]
    if kind == 0 and bets:                       # a missing action
        del out[rng.choice(bets)]
    elif kind == 1 and bets:                     # an action out of turn
        i = rng.choice(bets)
        actor, rest = out[i].split(" ", 1)
        out[i] = f"p{rng.randrange(n + 2) + 1} {rest}"      # a player who is not there too
    elif kind == 2:                              # a raise too small, too big, or of nothing
        raises = [i for i in bets if " cbr " in out[i]]
        if raises:
            i = rng.choice(raises)
            head, amount = out[i].rsplit(" ", 1)
            out[i] = f"{head} {max(0, int(amount) + rng.choice([-1, 1, -int(amount) // 2, 10**6]))}"
    elif kind == 3 and sum(t.startswith("d ") for t in out) > 1:   # a duplicate card
        deals = [i for i, t in enumerate(out) if t.startswith("d ")]
        i, j = rng.sample(deals, 2)
        card = out[j][-2:]
        out[i] = out[i][:-2] + card
    elif kind == 4 and len(out) > n + 1:         # two actions swapped
        i = rng.randrange(n, len(out) - 1)
        out[i], out[i + 1] = out[i + 1], out[i]
    elif kind == 5 and bets:                     # a fold for a check, a check for a fold
        i = rng.choice(bets)
        actor = out[i].split(" ")[0]
        out[i] = f"{actor} cc" if out[i].endswith(" f") else f"{actor} f"
    elif kind == 6 and len(out) > n:             # the record stops early
        del out[rng.randrange(n, len(out)):]
    elif kind == 7:                              # one action too many
        out.append(rng.choice(["p1 cc", "p2 f", "d db 2c", "p1 sm", "p2 cbr 10"]))
    else:                                        # a show of other cards, a muck for a show, a stranger's show
        shows = [i for i, t in enumerate(out) if " sm" in t]
        if shows:
            i = rng.choice(shows)
            actor = out[i].split(" ")[0]
            out[i] = rng.choice([f"{actor} sm" if len(out[i]) > 8 else f"{actor} sm 2c3c",
                                 f"p{n + 1}{out[i][len(actor):]}"])
    return out


def test_broken_records_are_left_to_the_full_engine() -> None:
    rng = random.Random(11)
    refused = 0
    for record, _text, _pots in random_records()[:1500]:
        texts = [a.format() for a in record.actions]
        broken = mutate(rng, texts, record.player_count)
        text = quick_form(record, broken)
        if full(text) is None:
            refused += 1
            assert quick_replay(text) is None, text
        else:
            agrees(text)   # some changes leave a legal hand (a swap of two deals, a fold made a call...)
    assert refused > 900


SAMPLE = DATA / "pluribus" / "83" / "40.phh"   # p3 raises, four fold, p1 calls; flop: p1 checks, p3 bets, p1 folds


@pytest.mark.parametrize("old, new, words", [
    ("'p4 f', ", "'p5 f', 'p4 f', ", "out of turn"),
    ("'p3 cbr 225'", "'p3 cbr 150'", "may raise to"),
    ("'d dh p2 Ah5s'", "'d dh p2 As5s'", "duplicate card"),
    ("'p1 cc', 'p2 f', ", "'p1 cc', ", "p2 to act"),
    ("'p3 cbr 275'", "'p3 cbr 20000'", "may bet to"),
    ("'p1 cc', 'p3 cbr 275'", "'p1 f', 'p3 cbr 275'", "nothing to call"),
    (", 'p1 f']", "]", "ends before the hand does"),
])
def test_illegal_actions_are_the_full_engines_errors(old: str, new: str, words: str) -> None:
    text = SAMPLE.read_text(encoding="utf-8")
    assert quick_replay(text) is not None
    assert old in text
    broken = text.replace(old, new)
    assert quick_replay(broken) is None
    with pytest.raises(PhhError, match=words):
        replay(parse_phh(broken))


@pytest.mark.parametrize("old, new", [
    ("variant = 'NT'", "variant = 'FT'\nsmall_bet = 100\nbig_bet = 200"),   # not played here
    ("min_bet = 100", "min_bet = 100.0"),                                   # decimals
    ("hand = 40", "hand = 40\nhand = 41"),                                  # a key twice: not TOML
    ("hand = 40", "hand = 40 # a comment"),                                 # another TOML form
    ("players = ['MrBlue',", "players = ['MrBlue', 'Extra',"),              # a malformed field
    ("'p4 f'", "'p4  f'"),                                                  # another spacing
    ("'p4 f'", "'p4 f # Budd'"),                                            # commentary
    ("starting_stacks = [10000,", "starting_stacks = [0,"),                 # an empty stack
])
def test_other_forms_are_left_to_the_full_reader(old: str, new: str) -> None:
    text = SAMPLE.read_text(encoding="utf-8")
    assert old in text
    changed = text.replace(old, new, 1)
    assert quick_read(changed) is None or quick_replay(changed) is None


def test_texts_broken_anywhere_are_taken_only_when_the_full_reader_agrees() -> None:
    rng = random.Random(9)
    texts = [p.read_text(encoding="utf-8") for p in sorted((DATA / "pluribus").glob("1*/*.phh"))]
    marks = ["'", '"', "\n", " ", ",", "[", "]", "#", "=", "\t", "\x01", "0", "-", ".", "p", "\r", "\\"]
    taken = 0
    for text in texts:
        lines = text.split("\n")
        for _ in range(8):
            change = rng.randrange(4)
            if change == 0:                                  # a character more
                i = rng.randrange(len(text))
                broken = text[:i] + rng.choice(marks) + text[i:]
            elif change == 1:                                # a character less
                i = rng.randrange(len(text))
                broken = text[:i] + text[i + 1:]
            elif change == 2:                                # a line twice
                copy = list(lines)
                copy.insert(rng.randrange(len(copy)), copy[rng.randrange(len(copy))])
                broken = "\n".join(copy)
            else:                                            # two lines swapped
                copy = list(lines)
                i, j = rng.randrange(len(copy)), rng.randrange(len(copy))
                copy[i], copy[j] = copy[j], copy[i]
                broken = "\n".join(copy)
            quick = quick_replay(broken)
            if quick is not None:
                taken += 1
                hand = parse_phh(broken)    # raises if the full reader refuses what the quick one took
                assert quick.finishing_stacks == replay(hand) and quick.recorded == hand.finishing_stacks
    assert taken > 300


def test_a_player_who_is_not_at_the_table_is_the_full_readers_error() -> None:
    text = (DATA / "pluribus" / "102" / "70.phh").read_text(encoding="utf-8")   # ends at a showdown
    assert quick_replay(text) is not None
    for stranger in ("'p6 sm', 'p9 sm AsKd']", "'p6 sm', 'p7 sm']"):
        broken = text.replace("'p6 sm']", stranger)
        assert quick_replay(broken) is None
        with pytest.raises(PhhError, match="there are only 6 players"):
            parse_phh(broken)
