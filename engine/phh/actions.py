"""PHH actions: one line of a record's `actions` (`d dh p1 AsKd`, `p3 cbr 7000`...) as a value."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import NamedTuple

from engine.cards import DECK
from engine.phh.codes import PhhError

__all__ = ["PhhAction", "parse_actions"]

_PLAYER = re.compile(r"p([1-9][0-9]*)\Z")
_CARD_TEXT = re.compile(r"(?:[2-9TJQKA][cdhs]|\?\?)+\Z")
_KINDS_PLAYER = frozenset({"pb", "f", "cc", "cbr", "sd", "sm"})
# constant tables (never grown): the player words p1..p32 and the texts of the 52 cards and `??`
_PLAYER_INDEX = {f"p{i}": i - 1 for i in range(1, 33)}
_CARD_TEXTS = frozenset([str(card) for card in DECK] + ["??"])


def _player_index(word: str) -> int | None:
    """`p3` -> 2; None when the word is not a player."""
    index = _PLAYER_INDEX.get(word)
    if index is None:
        m = _PLAYER.match(word)
        if m:
            index = int(m.group(1)) - 1
    return index


# constant table (never grown): every text of two cards (`AsKd`, `????`...) and its two card texts
_TWO_CARDS = {a + b: (a, b) for a in sorted(_CARD_TEXTS) for b in sorted(_CARD_TEXTS)}


def _split_cards(text: str, action: str) -> tuple[str, ...]:
    two = _TWO_CARDS.get(text)   # the commonest: a hand of two
    if two is not None:
        return two
    if not _CARD_TEXT.match(text):
        raise PhhError(f"action {action!r}: not a list of cards: {text!r}")
    return tuple([text[i:i + 2] for i in range(0, len(text), 2)])


class PhhAction(NamedTuple):
    """One action of a record (a value: an immutable named tuple, quick to build). `actor` is None for the dealer `d`, else the player index (0-based).

    `kind` is `db`, `dh`, `pb`, `f`, `cc`, `cbr`, `sd`, `sm`, or `""` for a comment-only line.
    `player` is the 0-based index of the player dealt to (`dh`) or acting; `cards` the card texts
    (`??` unknown; None when the action names no cards: `sd` standing pat, `sm` mucking);
    `amount_text` the `cbr` amount as written (HandHistory.amounts has it in integer units).

    >>> PhhAction.parse("p3 cbr 7000  # Dwan")
    PhhAction(actor=2, kind='cbr', player=2, cards=None, amount_text='7000', commentary='Dwan', text='p3 cbr 7000  # Dwan')
    """

    actor: int | None
    kind: str
    player: int | None
    cards: tuple[str, ...] | None
    amount_text: str | None
    commentary: str | None
    text: str

    @classmethod
    def parse(cls, text: str) -> PhhAction:
        """Parse one action string. Raises PhhError naming the action and what is wrong with it."""
        return parse_actions((text,))[0]

    @classmethod
    def _parse(cls, text: str) -> PhhAction:
        """parse, every form (parse_actions reads the commonest ones itself)."""
        if not isinstance(text, str):
            raise PhhError(f"action {text!r}: not a string")
        if "#" in text:
            body, _, comment = text.partition("#")
            commentary: str | None = comment.strip()
        else:
            body, commentary = text, None
        words = body.split()
        if not words:
            return cls(None, "", None, None, None, commentary, text)
        if words[0] == "d":
            if len(words) == 3 and words[1] == "db":
                return cls(None, "db", None, _split_cards(words[2], text), None, commentary, text)
            if len(words) == 4 and words[1] == "dh":
                dealt = _player_index(words[2])
                if dealt is None:
                    raise PhhError(f"action {text!r}: not a player: {words[2]!r} (expected p1, p2, ...)")
                return cls(None, "dh", dealt, _split_cards(words[3], text), None, commentary, text)
            raise PhhError(f"action {text!r}: not a dealer action (expected 'd db CARDS' or 'd dh pN CARDS')")
        actor = _player_index(words[0])
        if actor is None:
            raise PhhError(f"action {text!r}: unknown actor {words[0]!r} (expected d, p1, p2, ...)")
        index = actor
        kind = words[1] if len(words) > 1 else ""
        if kind not in _KINDS_PLAYER:
            raise PhhError(f"action {text!r}: unknown action {kind!r} (expected pb, f, cc, cbr, sd or sm)")
        rest = words[2:]
        if kind == "cbr":
            if len(rest) != 1:
                raise PhhError(f"action {text!r}: cbr takes one amount")
            return cls(index, kind, index, None, rest[0], commentary, text)
        if kind in ("sd", "sm"):
            if len(rest) > 1:
                raise PhhError(f"action {text!r}: {kind} takes at most one list of cards")
            if kind == "sm" and rest == ["-"]:
                raise PhhError(f"action {text!r}: 'sm -' (show without naming the cards) cannot be replayed")
            shown = _split_cards(rest[0], text) if rest else None
            return cls(index, kind, index, shown, None, commentary, text)
        if rest:
            raise PhhError(f"action {text!r}: {kind} takes no argument")
        return cls(index, kind, index, None, None, commentary, text)

    def format(self) -> str:
        """The action in PHH notation (the commentary kept)."""
        if self.kind == "":
            body = ""
        elif self.actor is None:
            cards = "".join(self.cards or ())
            body = f"d db {cards}" if self.kind == "db" else f"d dh p{(self.player or 0) + 1} {cards}"
        else:
            body = f"p{self.actor + 1} {self.kind}"
            if self.amount_text is not None:
                body += f" {self.amount_text}"
            if self.cards:
                body += " " + "".join(self.cards)
        if self.commentary is not None:
            return f"{body} # {self.commentary}" if body else f"# {self.commentary}"
        return body


_new_action = tuple.__new__
# constant tables (never grown): the actions that are their text alone (`p3 f`, `p3 cc`, `p3 sm`, `p3 pb`,
# `p3 sd`) for p1..p32, and the start of a hole-card line (`d dh p3 `) for p1..p9 (then two cards: 12 characters)
_WHOLE = {f"p{i} {kind}": _new_action(PhhAction, (i - 1, kind, i - 1, None, None, None, f"p{i} {kind}"))
          for i in range(1, 33) for kind in ("f", "cc", "sm", "pb", "sd")}
_DEAL_HOLE = {f"d dh p{i} ": i - 1 for i in range(1, 10)}
_ONE_CARD = {text: (text,) for text in _CARD_TEXTS}
_Tables = tuple[dict[str, int], dict[str, PhhAction], dict[str, int]]
_FULL: _Tables = (_PLAYER_INDEX, _WHOLE, _DEAL_HOLE)
_FOR_PLAYERS: dict[int, _Tables] = {}   # by count of players (< 32): the tables' entries of those players


def _tables(players: int | None) -> _Tables:
    """The fast path's tables that name only the first `players` players (every one for None)."""
    if players is None or players >= 32:
        return _FULL
    tables = _FOR_PLAYERS.get(players)
    if tables is None:
        index, whole, deal_hole = _FULL
        tables = _FOR_PLAYERS[players] = (
            {word: i for word, i in index.items() if i < players},
            {text: a for text, a in whole.items() if a.actor is not None and a.actor < players},
            {start: i for start, i in deal_hole.items() if i < players})
    return tables


def parse_actions(texts: Iterable[object], players: int | None = None) -> tuple[PhhAction, ...]:
    """PhhAction.parse of each of `texts`, in order, in one loop for a record's list: the commonest
    forms without commentary read here (`p3 f`, `p3 cc`, `p3 sm` from a table, `d dh p1 AsKd`,
    `d db 8sKd5d`, `p3 cbr 225`, `p3 sm AsKd`), the others by PhhAction._parse (the same action
    either way). `players`: the record's count of players, when known.

    Raises PhhError as PhhAction.parse; then, once every action has parsed, naming the first
    action of a player beyond `players` (the fast path's tables hold only theirs: the others take
    the full parse, which checks them)."""
    out: list[PhhAction] = []
    append = out.append
    players_index, whole, deal_hole = _tables(players)
    beyond: PhhAction | None = None
    two_cards = _TWO_CARDS
    one_card = _ONE_CARD
    new = _new_action
    cls = PhhAction
    for text in texts:
        if text.__class__ is str:
            size = len(text)
            if size < 7:   # `p3 f`, `p3 cc`... (the table's are 4 to 6 characters long)
                action = whole.get(text)
                if action is not None:
                    append(action)
                    continue
            elif size == 12:
                seat = deal_hole.get(text[:8])
                if seat is not None:
                    two = two_cards.get(text[8:])
                    if two is not None:
                        append(new(cls, (None, "dh", seat, two, None, None, text)))
                        continue
            elif (size == 7 or size == 11) and text[:5] == "d db ":   # a turn or river card, a flop
                board: tuple[str, ...] | None
                if size == 7:
                    board = one_card.get(text[5:])
                else:
                    two = two_cards.get(text[5:9])
                    one = one_card.get(text[9:])
                    board = None if two is None or one is None else two + one
                if board is not None:
                    append(new(cls, (None, "db", None, board, None, None, text)))
                    continue
            if "#" not in text:
                words = text.split()
                n = len(words)
                if n == 4:
                    if words[0] == "d" and words[1] == "dh":
                        index = players_index.get(words[2])
                        if index is not None:
                            append(new(cls, (None, "dh", index, _split_cards(words[3], text), None, None, text)))
                            continue
                elif n == 3:
                    kind = words[1]
                    if kind == "db" and words[0] == "d":
                        append(new(cls, (None, "db", None, _split_cards(words[2], text), None, None, text)))
                        continue
                    index = players_index.get(words[0])
                    if index is not None:
                        if kind == "cbr":
                            append(new(cls, (index, kind, index, None, words[2], None, text)))
                            continue
                        if kind == "sm" and words[2] != "-":
                            append(new(cls, (index, kind, index, _split_cards(words[2], text), None, None, text)))
                            continue
        action = cls._parse(text)  # type: ignore[arg-type]
        if players is not None and beyond is None and action.player is not None and action.player >= players:
            beyond = action
        append(action)
    if beyond is not None:
        raise PhhError(f"action {beyond.text!r}: there are only {players} players")
    return tuple(out)
