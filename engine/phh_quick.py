"""The quick PHH replay: the commonest no-limit hold'em records, read and played with plain ints, or None.

`croupier phh replay` reads a record and plays it through the full engine (`engine.phh`:
`parse_phh`, then `replay` through `engine.poker.Hand`). Most records are of one plain form:
no-limit hold'em (`NT`) written by a program (one `key = value` a line, literal strings, whole
numbers), every hole card dealt and known before the betting, one `d db` line per street, the
betting, and at a showdown every player still in showing the cards he was dealt or mucking
(the shows may come before the run-out of an all-in). `quick_replay` reads and plays such a
record with plain ints, lists and bytearrays, several times faster, and gives the same
finishing stacks as the full engine, checking every action as strictly:

- the player named is the one to act; `f` only when facing a bet; `cbr` from the minimum bet or
  raise (the last full bet or raise, at least `min_bet`; less only all in) to the stack; no
  raise after a short all-in that did not reopen the betting, nor when no opponent could call;
  the same rules of who acts next, when a round ends, what an uncalled bet gives back
  (`engine.poker.state.Hand` is the model, step for step);
- cards known, distinct, the right count per line; a show equal to the cards dealt; the
  showdown order, and no muck of the last hand in contention for a pot;
- pots and side pots, ties and odd chips by `engine.poker.pots` (the same functions), hands
  valued by `engine.evaluate.high_strength7`.

Anything else (another variant, another TOML form, decimals, comments, unknown cards, a record
the engine would refuse, an action it cannot follow, a show out of place...) gives None
without a word: the caller then replays the record through the full engine, whose result or
error (and its message) stands. So the quick path never accepts a hand the full engine refuses
and never gives other stacks; `tests/engine/test_phh_quick.py` compares the two on every sample
hand, on random hands of our engine and on broken ones.

>>> text = '''variant = 'NT'
... antes = [0, 0]
... blinds_or_straddles = [1, 2]
... min_bet = 2
... starting_stacks = [100, 100]
... actions = ['d dh p1 AsAd', 'd dh p2 KsKd', 'p2 f']
... '''
>>> quick_replay(text)
QuickReplay(variant='NT', finishing_stacks=(101, 99), recorded=None)
"""

from __future__ import annotations

import re
from typing import Any, NamedTuple

from engine.evaluate import high_strength7
from engine.poker.pots import final_pots, split

__all__ = ["QuickReplay", "quick_replay", "quick_read", "quick_play", "clear_cache"]


class QuickReplay(NamedTuple):
    """A record replayed by the quick path: its variant code, the finishing stacks (whole chips,
    in player order) and the record's own `finishing_stacks` (None when it has none)."""

    variant: str
    finishing_stacks: tuple[int, ...]
    recorded: tuple[int, ...] | None


# A line of the commonest TOML form (engine.phh._QUICK_FILE's lines, with possessive repeats: a
# text whose lines all match is matched there too, and read there to the same fields).
_STRING = r"'[^'\x00-\x08\x0a-\x1f\x7f]*+'"
_NUMBER = r"-?(?:0|[1-9][0-9]*+)(?:\.[0-9]++)?+"
_LINE = re.compile(
    rf"([A-Za-z0-9_-]++) = ({_STRING}|{_NUMBER}|true|false"
    rf"|\[(?:{_STRING}(?:, {_STRING})*+)?\]|\[{_NUMBER}(?:, {_NUMBER})*+\])")
_LINES: dict[str, tuple[str, str]] = {}   # lines of that form seen: key and value (lines repeat)

# Fields the full reader gives a meaning this path does not play: their records take the full path.
_NOT_HERE = frozenset({"bring_in", "small_bet", "big_bet", "max_bet", "winnings", "_raise_cap",
                       "_uncapped", "_uncapped_heads_up", "chopped", "_rake_bp", "_rake_cap",
                       "_rake_no_flop_no_drop"})
_MAX_PLAYERS = 10    # hold'em's (engine.poker.variants)
_PLAYER = {f"p{i}": i - 1 for i in range(1, _MAX_PLAYERS + 1)}
_CARD = {r + s: (rank - 2) * 4 + suit for rank, r in enumerate("23456789TJQKA", 2)
         for suit, s in enumerate("cdhs")}
_TWO_CARDS = {a + b: (i, j) for a, i in _CARD.items() for b, j in _CARD.items() if i != j}

# A player's action: (player, kind, argument). Kinds: 0 fold, 1 check or call, 2 bet or raise
# (to the amount), 3 muck, 4 show (the two card indexes), 5 the board (player -1, card indexes).
_Action = tuple[int, int, Any]
_ACTIONS: dict[str, _Action] = {}   # betting actions and mucks seen (they repeat: `p3 f`, `p1 cc`)

# A table as the forced bets leave it: players; stacks, bets and chips put in by player; the
# bet to call; the minimum bet; the first to act; who has chips behind (a byte each).
_Table = tuple[int, tuple[int, ...], tuple[int, ...], tuple[int, ...], int, int, int, bytes]
_TABLES: dict[tuple[str, str, str, str], _Table | None] = {}   # by the fields' texts (tables repeat)
_BLIND_ORDER = {n: (1, 0) if n == 2 else tuple(range(n)) for n in range(2, _MAX_PLAYERS + 1)}

# A read record: its table, the action texts, the recorded finishing stacks.
_Read = tuple[_Table, list[str], "tuple[int, ...] | None"]


def clear_cache() -> None:
    """Forget the lines, actions and tables remembered so far (they only save time; a benchmark
    clears them to time a first reading)."""
    _ACTIONS.clear()
    _TABLES.clear()
    _LINES.clear()


def _ints(value: str, n: int) -> list[int] | None:
    """An array of `n` whole numbers, not negative, from a value `_LINE` matched, else None."""
    if value[:1] != "[" or "." in value or "-" in value:
        return None
    try:
        out = list(map(int, value[1:-1].split(", ")))   # `[]`, strings: not numbers
    except ValueError:
        return None
    return out if len(out) == n else None


def _table(stacks_text: str, antes_text: str, blinds_text: str, min_bet_text: str) -> _Table | None:
    """The table of a record's stakes and stacks (as Hand.__init__ and its _post_forced leave
    it), or None where the quick path does not play them."""
    n = stacks_text.count(",") + 1
    if not 2 <= n <= _MAX_PLAYERS or not min_bet_text.isdigit():
        return None
    stacks = _ints(stacks_text, n)
    antes = _ints(antes_text, n)
    blinds = _ints(blinds_text, n)
    if stacks is None or antes is None or blinds is None or 0 in stacks:
        return None
    while blinds and blinds[-1] == 0:
        blinds.pop()     # as the engine's stakes: trailing zeros are no blinds
    stack = list(stacks)
    bet = [0] * n
    total = [0] * n
    # blind order from the button's left (heads-up the button, the last player, first); antes
    # by place in that order
    blind_order = _BLIND_ORDER[n]
    for place, seat in enumerate(blind_order):
        ante = min(antes[place], stack[seat])
        stack[seat] -= ante
        total[seat] += ante
    for i, amount in enumerate(blinds):
        seat = blind_order[i]
        posted = min(amount, stack[seat])
        stack[seat] -= posted
        bet[seat] += posted
        total[seat] += posted
    level = max(blinds) if blinds else 0
    min_bet = int(min_bet_text) or level or 1      # Stakes.minimum_bet
    first = (blind_order[len(blinds) - 1] + 1) % n if blinds else 0   # first to act pre-flop
    return (n, tuple(stack), tuple(bet), tuple(total), level, min_bet, first,
            bytes([1 if s else 0 for s in stack]))


def quick_read(text: str) -> _Read | None:
    """The parts of a PHH record that quick_play needs, when the text has the quick form (and
    the full reader would read it without error), else None.

    Each line is checked with `_LINE` (a line seen before is remembered with its key and
    value), but the `actions` line: quick_play accepts only action texts of a strict form
    (letters, digits, single spaces), so a record it plays has that line in the quick form too."""
    lines = text.split("\n")
    if not lines[-1]:
        lines.pop()    # the final newline (the full reader adds one where it is missing)
    fields: dict[str, str] = {}
    actions: str | None = None
    remembered = _LINES.get
    for line in lines:
        pair = remembered(line)
        if pair is None:
            if line[:12] == "actions = ['" and line[-2:] == "']" and actions is None:
                actions = line
                continue
            match = _LINE.fullmatch(line)
            if match is None:
                return None
            pair = match[1], match[2]
            if len(_LINES) >= 1 << 14:
                _LINES.clear()
            if pair[0] != "actions":
                _LINES[line] = pair
        if pair[0] in fields:
            return None    # a key given twice: not TOML
        fields[pair[0]] = pair[1]
    if (actions is None or fields.get("variant") != "'NT'" or "actions" in fields
            or not _NOT_HERE.isdisjoint(fields)):
        return None
    stacks = fields.get("starting_stacks")
    antes = fields.get("antes")
    blinds = fields.get("blinds_or_straddles")
    min_bet = fields.get("min_bet")
    if stacks is None or antes is None or blinds is None or min_bet is None:
        return None
    key = (stacks, antes, blinds, min_bet)
    table = _TABLES.get(key)
    if table is None:
        if key in _TABLES:
            return None
        table = _table(stacks, antes, blinds, min_bet)
        if len(_TABLES) >= 4096:
            _TABLES.clear()
        _TABLES[key] = table
        if table is None:
            return None
    n = table[0]
    trimming = fields.get("ante_trimming_status")
    if trimming is not None and trimming != "true" and trimming != "false":
        return None
    players = fields.get("players")
    if players is not None and (players[:2] != "['" or players.count("', '") != n - 1):
        return None
    recorded = None
    finishing = fields.get("finishing_stacks")
    if finishing is not None:
        values = _ints(finishing, n)
        if values is None:
            return None   # decimals (half chips), or malformed: the full path reads those
        recorded = tuple(values)
    return table, actions[12:-2].split("', '"), recorded


def _action(text: str) -> _Action | None:
    """A player's action or a board line in the plain form (remembered, but for shows and
    boards), else None."""
    words = text.split(" ")
    p = _PLAYER.get(words[0], -1)
    if p < 0:
        if len(words) != 3 or words[0] != "d" or words[1] != "db" or len(words[2]) not in (2, 6):
            return None
        cards = words[2]
        indexes = tuple([_CARD.get(cards[j:j + 2], -1) for j in range(0, len(cards), 2)])
        return None if -1 in indexes else (-1, 5, indexes)
    action: _Action
    if len(words) == 2:
        kind = words[1]
        if kind == "f":
            action = (p, 0, 0)
        elif kind == "cc":
            action = (p, 1, 0)
        elif kind == "sm":
            action = (p, 3, 0)
        else:
            return None
    elif len(words) == 3 and words[1] == "cbr":
        amount = words[2]
        if not (amount.isdigit() and amount.isascii()):
            return None
        action = (p, 2, int(amount))
    elif len(words) == 3 and words[1] == "sm":
        pair = _TWO_CARDS.get(words[2])
        return None if pair is None else (p, 4, pair)
    else:
        return None
    if len(_ACTIONS) >= 1 << 16:
        _ACTIONS.clear()
    _ACTIONS[text] = action
    return action


def _hole(text: str) -> tuple[int, tuple[int, int]] | None:
    """`d dh pK CCCC`: the player and his two known cards' indexes, else None."""
    words = text.split(" ")
    if len(words) != 4 or words[0] != "d" or words[1] != "dh":
        return None
    p = _PLAYER.get(words[2], -1)
    pair = _TWO_CARDS.get(words[3])
    return None if p < 0 or pair is None else (p, pair)


def quick_play(read: _Read) -> tuple[int, ...] | None:
    """The finishing stacks of a read record, played as `engine.phh.replay` plays it, or None
    when the record leaves the quick path's plain form or the engine would refuse it."""
    (n, stack0, bet0, total0, level, min_bet, first, active0), actions, _ = read
    if len(actions) <= n:
        return None
    # the hole cards: the first n lines deal each player two known cards
    holes: list[tuple[int, int] | None] = [None] * n
    used = 0    # a bit per card index in play
    for k in range(n):
        deal = actions[k]
        if len(deal) == 12 and deal[:6] == "d dh p" and deal[7] == " ":
            p = _PLAYER.get(deal[5:7], n)
            pair = _TWO_CARDS.get(deal[8:])
        else:
            hole = _hole(deal)
            if hole is None:
                return None
            p, pair = hole
        if p >= n or pair is None or holes[p] is not None:
            return None
        bits = (1 << pair[0]) | (1 << pair[1])
        if used & bits:
            return None
        used |= bits
        holes[p] = pair

    stack = list(stack0)
    bet = list(bet0)
    total = list(total0)
    active = bytearray(active0)    # in the hand with chips behind
    last_full = level
    seats = range(n)
    folded = bytearray(n)
    ones = b"\x01" * n
    pending = bytearray(n)     # still to act this round (so active)
    may_raise = bytearray(ones)
    street = 0
    board: list[int] = []
    phase = 0   # 0 betting, 1 dealing (the board), 2 showdown, 3 over
    actor = -1
    able = 0                             # players active
    aggressor_street = aggressor = -1    # the last full bet or raise: its street and seat
    shows: dict[int, tuple[int, int] | None] = {}
    runout_checked = False
    remembered = _ACTIONS.get
    arg: Any    # an action's amount or cards
    step = 1    # between actions: 1 start a betting round, 2 end one
    tail: list[str | None] = [*actions[n:], None]    # None: the record's end
    for text in tail:
        if step:
            if step == 1:    # Hand._start_betting
                phase = 0
                pending[:] = active
                may_raise[:] = ones
                able = active.count(1)
                step = 0
                if able < 2:    # betting needed only when the one with chips faces more
                    if able == 0:
                        step = 2
                    else:
                        alone = active.index(1)
                        if bet[alone] >= max([bet[q] for q in seats if not folded[q] and q != alone], default=0):
                            step = 2
                if not step:
                    actor = pending.find(1, first if street == 0 else 0)
                    if actor < 0:
                        actor = pending.find(1)
                        if actor < 0:
                            step = 2
            if step == 2:      # Hand._end_betting
                actor = -1
                step = 0
                top_bet = max(bet)
                top = bet.index(top_bet)
                bet[top] = -1
                second = max(bet)
                if top_bet > second:   # the uncalled part of the highest bet goes back
                    excess = top_bet - second
                    stack[top] += excess
                    total[top] -= excess
                    if not folded[top]:
                        active[top] = 1
                if folded.count(0) == 1:     # uncontested: every chip in is his
                    stack[folded.index(0)] += sum(total)
                    phase = 3
                else:
                    bet = [0] * n
                    if street < 3:
                        street += 1
                        level = last_full = 0
                        phase = 1
                    else:
                        phase = 2
        if text is None:
            break
        action: _Action | None = remembered(text)
        if action is None:
            if len(text) == 11 and text[:5] == "d db ":    # a flop
                action = (-1, 5, (_CARD.get(text[5:7], -1), _CARD.get(text[7:9], -1), _CARD.get(text[9:], -1)))
            elif len(text) == 7 and text[:5] == "d db ":   # a turn or a river
                action = (-1, 5, (_CARD.get(text[5:], -1),))
            else:
                action = _action(text)
                if action is None:
                    return None
        p, kind, arg = action
        if kind <= 2:    # fold, check or call, bet or raise
            if p != actor or phase:
                return None
            if kind == 0:    # fold
                if bet[p] >= level:
                    return None     # nothing to call: the engine refuses the fold
                folded[p] = 1
                active[p] = 0
                able -= 1
            elif kind == 1:  # check or call
                if bet[p] < level:
                    amount = level - bet[p]
                    if amount >= stack[p]:
                        amount = stack[p]
                        active[p] = 0
                        able -= 1
                    stack[p] -= amount
                    bet[p] += amount
                    total[p] += amount
                may_raise[p] = 0
            else:            # bet or raise to `arg`
                to = arg
                all_in_to = bet[p] + stack[p]
                if not may_raise[p] or all_in_to <= level:
                    return None
                for q in seats:    # a raise needs an opponent who could put in more
                    if active[q] and q != p and bet[q] + stack[q] > level:
                        break
                else:
                    return None
                increment = last_full if last_full > min_bet else min_bet
                min_to = level + increment
                if min_to > all_in_to:
                    min_to = all_in_to
                if not min_to <= to <= all_in_to:
                    return None
                added = to - bet[p]
                stack[p] -= added
                bet[p] = to
                total[p] += added
                if not stack[p]:
                    active[p] = 0
                    able -= 1
                if level == 0 or to - level >= increment:    # a full bet or raise reopens
                    aggressor_street, aggressor = street, p
                    last_full = to - level if to - level > min_bet else min_bet
                    pending[:] = active
                    may_raise[:] = ones   # only the active act again: the others' flags are never read
                else:
                    for q in seats:
                        if active[q] and bet[q] < to:
                            pending[q] = 1
                if to > level:
                    level = to
                may_raise[p] = 0
            pending[p] = 0
            # the next to act, or the end of the round (Hand._after_action)
            nxt = pending.find(1, p + 1)
            if nxt < 0:
                nxt = pending.find(1)
            if nxt >= 0 and able > 1:
                actor = nxt
            elif able == 0 or nxt < 0 or folded.count(0) == 1:
                step = 2
            elif able == 1:
                alone = active.index(1)
                if bet[alone] >= max([bet[q] for q in seats if not folded[q] and q != alone], default=0):
                    step = 2
                else:
                    actor = nxt
            else:
                actor = nxt
        elif kind == 5:   # the board
            if phase != 1 or len(arg) != (3 if street == 1 else 1):
                return None
            for c in arg:
                if c < 0 or used >> c & 1:
                    return None
                used |= 1 << c
                board.append(c)
            step = 1
        else:   # a show or a muck
            if phase == 1 and not runout_checked:
                # shown before the run-out: only shows and board cards may follow (the engine
                # then deals the run-out first and reads each player's show at the showdown)
                for rest in actions[actions.index(text, n) + 1:]:
                    if not (rest.startswith("d db ") or rest[:1] == "p" and (" sm " in rest or rest.endswith(" sm"))):
                        return None
                runout_checked = True
            elif phase != 2 and phase != 1:
                return None
            if p >= n or folded[p] or p in shows:
                return None
            if kind == 3:
                shows[p] = None
            elif set(arg) != set(holes[p]):  # type: ignore[arg-type]
                return None
            else:
                shows[p] = arg
    if phase == 3:
        return tuple(stack)
    if phase != 2:
        return None
    return _showdown(n, stack, total, folded, board, shows, aggressor if aggressor_street == 3 else -1)


def _showdown(n: int, stack: list[int], total: list[int], folded: bytearray, board: list[int],
              shows: dict[int, tuple[int, int] | None], aggressor: int) -> tuple[int, ...] | None:
    """The showdown as Hand plays it (the river's last aggressor still in first, else the
    button's left; a player left alone is not asked; a muck refused while the last hand in
    contention for a pot), then the settlement; None where the record does not follow it."""
    seats = range(n)
    live = [q for q in seats if not folded[q]]
    start = aggressor if aggressor >= 0 and not folded[aggressor] else 0
    b0, b1, b2, b3, b4 = board
    most = total[live[0]]
    if max(total) == most and all(total[q] == most for q in live):
        # one pot that every player still in can win (what build_pots gives here): no muck
        # is refused (a player left alone is not asked), the best shown hands share it
        best = -1
        winners: list[int] = []
        for k in range(n):
            seat = (start + k) % n
            if folded[seat]:
                continue
            if len(live) == 1:
                break
            if seat not in shows:
                return None
            cards = shows[seat]
            if cards is None:
                live.remove(seat)
                continue
            value = high_strength7(cards[0], cards[1], b0, b1, b2, b3, b4)
            if value > best:
                best = value
                winners = [seat]
            elif value == best:
                winners.append(seat)
        if len(live) == 1:
            winners = live
        winners.sort()
        share, odd = divmod(sum(total), len(winners))
        for j, seat in enumerate(winners):   # odd chips from the button's left (pots.split)
            stack[seat] += share + (1 if j < odd else 0)
        return tuple(stack)
    strength: dict[int, int] = {}
    for k in range(n):
        seat = (start + k) % n
        if folded[seat]:
            continue
        if len(live) == 1:
            break     # everyone else mucked: he wins without showing
        if seat not in shows:
            return None
        cards = shows[seat]
        if cards is None:
            for pot in final_pots(dict(enumerate(total)), live):
                if seat in pot.eligible and all(q == seat or q not in live for q in pot.eligible):
                    return None     # the last hand in contention for a pot: the engine refuses the muck
            live.remove(seat)
        else:
            strength[seat] = high_strength7(cards[0], cards[1], b0, b1, b2, b3, b4)
    for pot in final_pots(dict(enumerate(total)), live):
        if not pot.amount:
            continue
        eligible = [q for q in seats if q in pot.eligible]
        if len(eligible) == 1:
            stack[eligible[0]] += pot.amount
            continue
        if not eligible or any(q not in strength for q in eligible):
            return None
        best = max(strength[q] for q in eligible)
        winners = [q for q in eligible if strength[q] == best]
        for seat, chips in split(pot.amount, winners, seats).items():
            stack[seat] += chips
    return tuple(stack)


def quick_replay(text: str) -> QuickReplay | None:
    """The replay of a `.phh` text by the quick path, or None when the full path must replay it
    (see the module docstring). Never raises for any text."""
    read = quick_read(text)
    if read is None:
        return None
    stacks = quick_play(read)
    if stacks is None:
        return None
    return QuickReplay("NT", stacks, read[2])
