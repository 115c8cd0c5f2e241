"""PHH replay through the one engine: random hands of ours read back to the same stacks, broken
records refused with the engine's reasons (the checks of the former quick path that apply to it)."""

from __future__ import annotations

import functools
import random
from pathlib import Path

import pytest

from engine.cards import DECK
from engine.errors import EngineError
from engine.phh import HandHistory, PhhError, parse_phh, replay, to_phh
from engine.poker import VARIANTS, Hand, HandSettings, Phase, Stakes, Structure

DATA = Path(__file__).resolve().parents[1] / "data" / "phh" / "data"


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


def pokerkit_form(record: HandHistory, actions: list[str] | None = None) -> str:
    """The record as pokerkit writes it (literal strings, one line a field)."""
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
def random_records(seed: int = 4, count: int = 600) -> list[tuple[HandHistory, int]]:
    """Random hands as records, and how many pots each had."""
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        hand = play_random(rng)
        assert hand.result is not None
        out.append((to_phh(hand), sum(1 for pot in hand.result.pots if pot.amount)))
    return out


def test_random_hands_of_our_engine_replay_from_their_text() -> None:
    showdowns = side_pots = mucks = 0
    for record, pots in random_records():
        assert replay(parse_phh(pokerkit_form(record))) == tuple(record.finishing_stacks or ())
        assert replay(parse_phh(record.dumps())) == tuple(record.finishing_stacks or ())
        kinds = [a.kind for a in record.actions]
        showdowns += "sm" in kinds
        mucks += any(a.kind == "sm" and a.cards is None for a in record.actions)
        side_pots += pots > 1
    assert showdowns > 200 and mucks > 100 and side_pots > 40


def test_shows_before_the_run_out_are_read_at_the_showdown() -> None:
    moved = 0
    for record, _pots in random_records():
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
        assert replay(parse_phh(pokerkit_form(record, reordered))) == record.finishing_stacks
        moved += 1
    assert moved > 10


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


def test_broken_records_are_refused_with_a_reason_or_replay_legally() -> None:
    """Broken at random, a record is refused with a PhhError naming what is wrong, or it is still
    a legal hand whose replay ends (never another exception)."""
    rng = random.Random(11)
    refused = 0
    for record, _pots in random_records()[:400]:
        texts = mutate(rng, [a.format() for a in record.actions], record.player_count)
        try:
            replay(parse_phh(pokerkit_form(record, texts)))
        except PhhError as exc:
            assert str(exc)
            refused += 1
    assert refused > 200


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
def test_illegal_actions_are_named_with_the_engines_reason(old: str, new: str, words: str) -> None:
    text = SAMPLE.read_text(encoding="utf-8")
    replay(parse_phh(text))
    assert old in text
    with pytest.raises(PhhError, match=words):
        replay(parse_phh(text.replace(old, new)))


def test_a_player_who_is_not_at_the_table_is_named() -> None:
    text = (DATA / "pluribus" / "102" / "70.phh").read_text(encoding="utf-8")   # ends at a showdown
    for stranger in ("'p6 sm', 'p9 sm AsKd']", "'p6 sm', 'p7 sm']", "'p6 sm', 'd dh p7 AsKd']", "'p6 sm', 'p7 cbr 5']",
                     "'p6 sm', 'p7 f', 'p1 f']"):
        with pytest.raises(PhhError, match=r"action 'p7 f': there are only 6 players" if "p7 f" in stranger
                           else "there are only 6 players"):
            parse_phh(text.replace("'p6 sm']", stranger))
    # every action is read before the players are counted: a malformed one further on is named first
    with pytest.raises(PhhError, match="unknown action 'zz'"):
        parse_phh(text.replace("'p6 sm']", "'p6 sm', 'p7 f', 'p1 zz']"))


def test_texts_broken_anywhere_are_read_by_tomllib_or_refused_clearly() -> None:
    rng = random.Random(9)
    texts = [p.read_text(encoding="utf-8") for p in sorted((DATA / "pluribus").glob("1*/*.phh"))][:60]
    marks = ["'", '"', "\n", " ", ",", "[", "]", "#", "=", "\t", "\x01", "0", "-", ".", "p", "\r", "\\"]
    refused = 0
    for text in texts:
        for _ in range(8):
            i = rng.randrange(len(text))
            broken = text[:i] + rng.choice(marks) + text[i:] if rng.random() < 0.5 else text[:i] + text[i + 1:]
            try:
                replay(parse_phh(broken))
            except EngineError as exc:   # PhhError: not TOML, a field, an action, the engine's reason
                assert isinstance(exc, PhhError) and str(exc)
                refused += 1
    assert refused > 100
