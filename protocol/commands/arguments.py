"""The command channel's commands and their arguments: which commands there are and how each argument is checked.

Which arguments a command has, and which it needs, are its request's type (`protocol.requests.REQUESTS`);
the checks here hold each value to the engine's declared games, bounds and actions (`engine.games`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from engine import games
from engine.cards import Card
from engine.errors import IllegalAction, say
from engine.house import TableLimits
from engine.poker.values import table_rules
from engine.ratings import DEALER_ACTIONS, PLAYER_ACTIONS, RATING_ACTIONS, check_card, check_session_start
from protocol.commands.codec import Malformed
from protocol.config import clock_time, time_zone
from protocol.requests import REQUIRED, Rake

COMMANDS = ("open", "close", "bet", "deal", "decide", "correct", "card", "confirm", "void", "clear", "state", "act",
            "seat", "chop", "history", "level", "clock", "hold", "race", "button-draw", "player", "dealer",
            "buy_in", "colour_up", "fill", "credit", "rating")
HISTORY_PAGE = 100
"""The most closed hands one `history` reply carries (`service.history`)."""
LIMIT_KEYS = TableLimits.KEYS
"""An `open`'s limits: the engine's keys, each an integer; their values are the engine's to check when the open is applied."""
# Games, structures, actions, decisions, stakes keys, seat bounds and Play multiples: `engine.games`.
_POKER_SEAT_NUMBERS = (1, games.POKER_SEATS[1])  # a poker table's seats are numbered 1..its seats


MAX_ENTERED_HANDS = 10_000
"""The most hands of unrated play one `rating` adjustment enters (a day's play at one seat is under 1,000)."""

_RATING_TAKES = {"open": {"card", "hands", "average_bet", "start"}, "close": {"end"},
                 "adjust": {"hands", "average_bet", "start", "session", "day_starts", "time_zone"}}
"""What each `rating` action takes besides the seat and a reason."""


def _check_rating(args: Mapping[str, Any]) -> None:
    """A `rating` request's arguments as a whole. Raises Malformed."""
    action = args["action"]
    extra = set(args) - {"seat", "action", "reason"} - _RATING_TAKES[action]
    if extra:
        raise Malformed(f"rating: {action} takes no {', '.join(sorted(extra))}")
    if ("hands" in args) != ("average_bet" in args):
        raise Malformed("rating: the unrated play is entered as hands and average_bet together")
    if action == "adjust" and not {"hands", "start"} & set(args):
        raise Malformed("rating: adjust enters the unrated play (hands, average_bet) or the start")
    if ("day_starts" in args) != ("time_zone" in args) or ("day_starts" in args and "session" not in args):
        raise Malformed("rating: the floor's gaming day (day_starts with time_zone) comes with a closed session only")


MAX_INT = 2**53 - 1
"""The largest integer a request may carry where no tighter bound applies: the largest a page's JavaScript
reads exactly, and far inside SQLite's 64 bits even added up (an `after` of 2**63 once answered `internal`)."""


def _int_in(lo: int, hi: int = MAX_INT) -> Any:
    def check(v: Any) -> int:
        if isinstance(v, bool) or not isinstance(v, int):
            raise ValueError(f"must be an integer, not {v!r}")
        if v < lo or v > hi:
            raise ValueError(f"{v} out of range {lo}..{hi}")
        return v
    return check


MAX_TEXT = 500
"""The longest text an argument takes (a reason, a slip's number, a name)."""


def _text(v: Any) -> str:
    if not isinstance(v, str) or not v.strip():
        raise ValueError("must be a non-empty string")
    if len(v) > MAX_TEXT:
        raise ValueError(f"longer than {MAX_TEXT} characters")
    return v


def _typed(empty: str) -> Callable[[Any], str]:
    """A text a person types at the console (a void's reason, a fill's slip): `_text`, its refusal in their words
    (`empty`: the refusal key of an empty one)."""
    def check(v: Any) -> str:
        try:
            return _text(v)
        except ValueError as exc:
            blank = not isinstance(v, str) or not v.strip()
            raise Malformed(str(exc), say(empty) if blank else say("refusal.text_too_long", most=MAX_TEXT)) from None
    return check


_reason = _typed("refusal.reason_needed")
_slip = _typed("refusal.slip_needed")


def _game(v: Any) -> str:
    if v not in games.GAMES:
        raise ValueError(f"must be one of {', '.join(games.GAMES)}, not {v!r}")
    return str(v)


def _bets(v: Any) -> dict[str, int]:
    if not isinstance(v, dict):
        raise ValueError("must be a map of bet circle to stake")
    out: dict[str, int] = {}
    for k, amount in v.items():
        if not isinstance(k, str):
            raise ValueError(f"bet circle {k!r} is not a name")
        if isinstance(amount, bool) or not isinstance(amount, int) or amount <= 0:
            raise ValueError(f"{k}: stake must be a positive integer, not {amount!r}")
        out[k] = _int_in(1)(amount)
    return out


def _limits(v: Any) -> dict[str, int]:
    if not isinstance(v, dict):
        raise ValueError("must be a map")
    out: dict[str, int] = {}
    for k, amount in v.items():
        if k not in LIMIT_KEYS:
            raise ValueError(f"unknown limit {k!r} (known: {', '.join(LIMIT_KEYS)})")
        out[k] = _int_in(-MAX_INT)(amount)  # the engine refuses a value out of its bounds, in its words
    return out


def _int_of(choices: tuple[int, ...]) -> Any:
    def check(v: Any) -> int:
        if isinstance(v, bool) or not isinstance(v, int):
            raise ValueError(f"must be an integer, not {v!r}")
        if v not in choices:
            raise ValueError(f"must be one of {', '.join(map(str, choices))}, not {v}")
        return v
    return check


def _one_of(*choices: str) -> Any:
    def check(v: Any) -> str:
        if v not in choices:
            raise ValueError(f"must be one of {', '.join(choices)}, not {v!r}")
        return str(v)
    return check


def _amounts(v: Any) -> list[int]:
    if not isinstance(v, (list, tuple)) or len(v) > 10:
        raise ValueError("must be a list of at most 10 amounts")
    return [_int_in(0)(x) for x in v]


def _rake(v: Any) -> Rake:
    """The house's rake at a poker table: rate_bp (basis points of the pot), cap, no_flop_no_drop."""
    if not isinstance(v, dict):
        raise ValueError("must be a map of rate_bp, cap and no_flop_no_drop")
    out: Rake = {}
    for k, value in v.items():
        if k == "rate_bp":
            out["rate_bp"] = _int_in(0, 10000)(value)
        elif k == "cap":
            out["cap"] = _int_in(0)(value)
        elif k == "no_flop_no_drop":
            if not isinstance(value, bool):
                raise ValueError("no_flop_no_drop must be true or false")
            out["no_flop_no_drop"] = value
        else:
            raise ValueError(f"unknown key {k!r} (known: rate_bp, cap, no_flop_no_drop)")
    if out and ("rate_bp" not in out or "cap" not in out):
        raise ValueError("a rake needs rate_bp and cap")
    return out


def _rules(v: Any) -> dict[str, Any]:
    """A poker table's room rules (`engine.games.POKER_RULES`), each one of its values."""
    if not isinstance(v, dict):
        raise ValueError("must be a map of " + ", ".join(games.POKER_RULES))
    try:
        table_rules(v)
    except IllegalAction as exc:
        raise ValueError(str(exc)) from None
    return dict(v)


def _stakes(v: Any) -> dict[str, Any]:
    if not isinstance(v, dict):
        raise ValueError("must be a map")
    out: dict[str, Any] = {}
    for k, value in v.items():
        if k not in games.STAKES_KEYS:
            raise ValueError(f"unknown stake {k!r} (known: {', '.join(games.STAKES_KEYS)})")
        if k == "blinds":
            out[k] = _amounts(value)
        elif k == "antes":
            out[k] = _amounts(value) if isinstance(value, (list, tuple)) else _int_in(0)(value)
        elif k == "uncapped_heads_up":
            if not isinstance(value, bool):
                raise ValueError("uncapped_heads_up must be true or false")
            out[k] = value
        elif k == "raise_cap" and value is None:
            out[k] = None
        else:
            out[k] = _int_in(0)(value)
    return out


def _stacks(v: Any) -> dict[str, int]:
    if not isinstance(v, dict):
        raise ValueError("must be a map of seat to buy-in")
    return {str(_seat_number(seat)): _int_in(1)(chips) for seat, chips in v.items()}


def _seat_number(seat: Any) -> int:
    """A seat given as a map key: an integer or its text (msgpack and JSON keys)."""
    try:
        number = int(seat)
    except (TypeError, ValueError):
        raise ValueError(f"seat {seat!r} is not a seat number") from None
    if isinstance(seat, bool) or not _POKER_SEAT_NUMBERS[0] <= number <= _POKER_SEAT_NUMBERS[1]:
        raise ValueError(f"seat {seat!r} out of range {_POKER_SEAT_NUMBERS[0]}..{_POKER_SEAT_NUMBERS[1]}")
    return number


def _shares(v: Any) -> dict[str, int]:
    if not isinstance(v, dict) or not v:
        raise ValueError("must be a map of seat to chips")
    return {str(_seat_number(seat)): _int_in(0)(chips) for seat, chips in v.items()}


def _seat_list(v: Any) -> list[int]:
    if not isinstance(v, (list, tuple)) or len(v) > games.POKER_SEATS[1]:
        raise ValueError(f"must be a list of at most {games.POKER_SEATS[1]} seats")
    return [_int_in(*_POKER_SEAT_NUMBERS)(x) for x in v]


def _flag(v: Any) -> bool:
    if not isinstance(v, bool):
        raise ValueError("must be true or false")
    return v


def _cards(v: Any) -> list[str]:
    if not isinstance(v, (list, tuple)) or len(v) > 5:
        raise ValueError("must be a list of at most 5 cards")
    return [_card(c) for c in v]


def _card(v: Any) -> str:
    """A card typed by hand, as `Th` or `10h` (`Card.typed`), journaled in its one text form (`Th`)."""
    return str(Card.typed(v))  # CardError is a ValueError: refused malformed, with its words


def _day_start(v: Any) -> str:
    """A gaming day's start, "HH:MM", journaled as it was sent."""
    return clock_time(v).strftime("%H:%M")


Check = Callable[[Any], object]
"""An argument's check: the value as sent in, the value as journaled out. Raises ValueError (TypeError) saying why not."""

_CHECKS: dict[str, dict[str, Check]] = {
    "open": {"game": _game, "profile": _text, "limits": _limits,
             "seats": _int_in(*games.TABLE_SEATS), "structure": _one_of(*games.STRUCTURES),
             "stakes": _stakes, "stacks": _stacks, "button": _int_in(*_POKER_SEAT_NUMBERS),
             "sitting_out": _seat_list, "keep_seats": _flag, "rake": _rake,
             "rules": _rules, "last_button": _int_in(*_POKER_SEAT_NUMBERS)},
    "bet": {"seat": _int_in(*games.HOUSE_SEATS), "bets": _bets},
    "deal": {},
    "decide": {"seat": _int_in(*games.HOUSE_SEATS), "decision": _one_of(*games.DECISIONS),
               "multiple": _int_of(games.PLAY_MULTIPLES)},
    "correct": {"seat": _int_in(*games.HOUSE_SEATS),  # the seat's last decision replaced (signed off)
                "decision": _one_of(*(d for d in games.DECISIONS if d != games.DEAD)),
                "multiple": _int_of(games.PLAY_MULTIPLES)},
    "card": {"card": _card},
    "confirm": {},
    "void": {"reason": _reason},
    "clear": {"reason": _reason, "then": _text},
    "close": {},
    "state": {},
    "act": {"seat": _int_in(*_POKER_SEAT_NUMBERS), "action": _one_of(*games.POKER_ACTIONS),
            "amount": _int_in(0), "cards": _cards},
    "seat": {"seat": _int_in(*_POKER_SEAT_NUMBERS), "action": _one_of(*games.SEAT_ACTIONS),
             "amount": _int_in(1)},
    "chop": {"reason": _reason, "shares": _shares},
    "history": {"after": _int_in(0), "limit": _int_in(1, HISTORY_PAGE), "newest": _flag,
                "events": _flag},  # the table's open and close events (service/table_events.py)
    "level": {"stakes": _stakes, "level": _int_in(1), "tournament": _text},  # tables/levels.py
    "clock": {"seat": _int_in(*_POKER_SEAT_NUMBERS), "seconds": _int_in(*games.CLOCK_SECONDS)},
    "hold": {"reason": _reason, "by": _text, "from_hand": _int_in(1), "release": _flag},
    "race": {"colour": _int_in(1), "into": _int_in(2), "by": _text, "ref": _text},
    "button-draw": {"by": _text, "ref": _text},  # tables/button_draw_step.py
    "player": {"seat": _int_in(*games.HOUSE_SEATS), "action": _one_of(*PLAYER_ACTIONS),  # tables/players.py
               "card": check_card, "source": _one_of("dealer", "pit")},
    "dealer": {"dealer": _text, "action": _one_of(*DEALER_ACTIONS)},
    "rating": {"seat": _int_in(*games.HOUSE_SEATS), "action": _one_of(*RATING_ACTIONS), "card": check_card,
               "hands": _int_in(0, MAX_ENTERED_HANDS), "average_bet": _int_in(0), "start": _int_in(1),
               "end": _int_in(1), "reason": _reason, "session": check_session_start,
               "day_starts": _day_start, "time_zone": time_zone},  # the floor's gaming day (service/bodies.py)
    # the chips moved at the tray (tables/tray_steps.py, engine/tray.py)
    "buy_in": {"seat": _int_in(*games.TABLE_SEATS), "amount": _int_in(1)},
    "colour_up": {"seat": _int_in(*games.TABLE_SEATS), "amount": _int_in(1)},
    "fill": {"amount": _int_in(1), "slip": _slip},
    "credit": {"amount": _int_in(1), "slip": _slip},
}
"""How each command's arguments are checked; which arguments a command has, and which it needs, are
its request's type (`protocol.requests.REQUESTS`: a test holds the two to the same names)."""

_ARGS: dict[str, dict[str, tuple[bool, Check]]] = {
    cmd: {name: (name in REQUIRED[cmd], check) for name, check in checks.items()}
    for cmd, checks in _CHECKS.items()}
"""Each command's arguments: (required, check)."""



def checked(cmd: str, data: Mapping[str, Any]) -> dict[str, Any]:
    """The arguments of request `data` for command `cmd` (one of COMMANDS), each checked, and checked
    together where one depends on another. Raises Malformed."""
    allowed = _ARGS[cmd]
    extra = set(data) - set(allowed) - {"id", "cmd", "hand", "auth"}
    if extra:
        raise Malformed(f"{cmd}: unknown argument(s) {', '.join(sorted(map(str, extra)))}")
    args: dict[str, Any] = {}
    for name, (required, check) in allowed.items():
        if name not in data:
            if required:
                raise Malformed(f"{cmd}: missing {name}")
            continue
        try:
            args[name] = check(data[name])
        except (TypeError, ValueError) as exc:
            raise Malformed(f"{cmd}: {name}: {exc}", getattr(exc, "say", None)) from None
    if cmd == "open" and args.get("keep_seats") and ({"stacks", "button", "sitting_out", "last_button"} & set(args)):
        raise Malformed("open: keep_seats carries the seats over: give no stacks, button or sitting_out")
    if cmd == "open" and games.is_poker(args["game"]) and "structure" not in args:
        raise Malformed("open: a poker table needs a betting structure (structure)")
    if cmd == "player" and (args["action"] == "in") != ("card" in args):
        raise Malformed("player: a card is given with action in (the player sits down), and only then")
    if cmd == "rating":
        if data.get("id") is None:
            raise Malformed("rating: give the request an id (a sign-off sent again under it is applied once)")
        _check_rating(args)
    if cmd == "clear" and args.get("then", "continue") not in ("continue", "void"):
        raise Malformed("clear: then must be 'continue' or 'void'")
    return args
