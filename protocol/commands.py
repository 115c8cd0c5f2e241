"""The dealer command channel: msgpack requests on a ZeroMQ ROUTER socket, each answered.

Request (one frame, a msgpack map; from a DEALER socket, or a REQ socket with its empty delimiter):

    {"id": str | int (optional, echoed; a request re-sent with the same id is not applied twice),
     "cmd": NAME, "hand": int (optional: refused unless it is the current hand),
     "auth": {"user": NAME, "pin": PIN, "at": NAME (optional: who is signed in at the relaying
             console, set by the display's relay)} (optional: a supervisor's sign-off,
             `service.signoff`; never journaled, never part of the request's digest), ...arguments}

  Which role may send which command is `[rights]`; `clear`, `void`, `chop`, a `card` and an `open`
  with new limits or a new profile need a supervisor's sign-off (`auth`); a refusal for either is
  `forbidden` (`docs/security.md`, "Roles and sign-off").

  Every game, structure, action, decision, stakes key, seat bound and Play multiple below is
  the engine's (`engine.games`); a request naming another is refused with the declared ones listed.

  House-banked tables (game one of `engine.games.HOUSE_GAMES`: "uth", "3cp"):

    open     game, profile str (default "default"; or a profile file, journaled as its text),
             limits map (minimum, maximum, side_minimum, side_maximum, chip; absent: the
             configuration's), seats int 1..MAX_SPOTS (optional). Only between hands.
    bet      seat int, bets map of bet circle -> integer stake (UTH ante/blind/trips, 3CP
             ante/pair_plus). Posts or replaces the spot's bets; an empty map takes the spot out.
             Only before the deal.
    deal     closes the betting: the shoe may deal (the dealer's `next` button does the same).
    decide   seat int, decision: UTH "check" | "play" (with multiple: `UTH.play_multiples`, 4|3
             pre-flop, 2 on the flop, 1 at the river) | "fold"; 3CP "play" | "fold"; either game
             "dead" (the spot's hand is declared dead: every bet of the spot loses).
    correct  seat int, decision, multiple (as `decide`; not "dead"): replaces the seat's last decision while
             no card has been dealt since (signed off; journaled with what it replaced as `was`).
    close    closes the table between hands (no game open until the next `open`).
    card     card "As" (or "10h": `Card.typed`): a card entered by hand, taken exactly as if the shoe had read it (marked
             `manual` in the hand's record and on the full feed).
    confirm  the dealer has paid: closes the settled hand (the `confirm` button does the same).
    void     reason str: closes the hand, every bet returned.
    clear    reason str, then "continue" | "void": clears the fault (the supervisor who signs it
             off is journaled as `signed_off`).
    state    the public state (as on the feed) and the table's status.
    player   seat int, action "in" (with card: the player card's number, typed or scanned) | "out" | "away"
             (a break: the rating paused) | "back"; source "dealer" | "pit" (default "dealer"). Any time; a
             seat's card reader sends the same as a reading (`tables/players.py`, docs/ratings.md).
    dealer   dealer str, action "in" | "out": a dealer signs in at the table (relieving the one before) or out.
    rating   seat int, action "open" (card: the player's card; none: a player who declined the card) | "close"
             (end: when the player left, seconds since the epoch) | "adjust" (hands and average_bet: the
             unrated play entered, in hands at an average Ante; start: when the play began; session: the
             start of a session closed at the seat since the table's last close, to adjust it), reason str
             (optional). The pit's (signed off; journaled with what it replaced as `was`; docs/ratings.md).

  Poker tables (game one of `engine.games.POKER_GAMES`, the codes of `engine.poker.VARIANTS`):

    open     game, structure (`STRUCTURES`: the values of `engine.poker.Structure`), stakes map
             (`STAKES_KEYS`, the fields of `engine.poker.Stakes`: blinds [sb, bb, straddles...],
             antes, bring_in, ...), seats int (`POKER_SEATS`), stacks map seat -> buy-in, button int,
             sitting_out list of seats, last_button (the next button moves on from it); rules map
             (`POKER_RULES`): button "dead" | "moving", short_allin_rule "tda" | "simple",
             fixed_limit_half_bet_reopens, all_in_reveal; keep_seats true: the players, stacks and
             button of the poker table open now carry over.
    seat     seat int, action (`SEAT_ACTIONS`): "join" (amount: the buy-in) | "rebuy" (amount) |
             "leave" (between hands) | "sit_out" | "sit_in" | "post" (sit in, post the missed
             blinds) | "wait" (sit in, wait for the big blind) (any time; from the next hand) |
             "move_in" (amount: his stack; a tournament's player moved here, owing no blind).
    deal     starts the next hand (button moves, blinds and antes posted); the first card also does.
    act      seat int, action (`POKER_ACTIONS`): "bet" | "raise" | "complete" take amount (the
             street total), "draw" cards (the discards); the others ("fold", "call", "all_in",
             "show", ...) take nothing. Only the seat to act.
    chop     the players still in the hand share the pot by agreement: shares map seat -> chips
             (adding up to the pot less an uncalled bet), or none: every pot split evenly.
    confirm  the hand is over and the pots pushed: closes it (the next hand is dealt with `deal`).
    level    stakes map (blinds [small, big], antes), level int, tournament str: a tournament level from the
             director (the pit's), in force from the next hand (`tables/levels.py`).
    clock    seat int (default: the seat to act), seconds int (default 60): the floor calls the clock on
             the player to act (signed off); when it runs out his hand is dead (`tables/clock_call.py`).
    hold     reason, by str, from_hand int; or release true: no new hand from from_hand on (`tables/hold.py`).
    race     colour, into int, by, ref str: a colour-up's chip race, its cards the shoe's (`tables/chip_race_step.py`).
    button-draw  by, ref str: the button by high card, a card a seat from the shoe (`tables/button_draw_step.py`).

  Chips moved at the tray, any table, any time (`tables/tray_steps.py`; the tray's ledger `engine/tray.py`):

    buy_in     seat int, amount int: cash for chips at the seat (the tray gives the chips).
    colour_up  seat int, amount int: the seat's chips changed for bigger ones (value in = value out).
    fill       amount int, slip str (optional): chips brought to the tray (signed off).
    credit     amount int, slip str (optional): chips taken from the tray (signed off).

Reply (one frame): `{"id": ..., "ok": true, "hand": int, "seq": int, "phase": str, ...}` or
`{"id": ..., "ok": false, "code": "malformed" | "illegal" | "fault" | "reused_id" | "busy" | ..., "error": "why",
"say": {"key": "refusal.<name>", "args": {...}}}` (`say`: the words a person reads, `error_reply`).

Limits (`docs/security.md`, Limits): a request is one frame of at most `[commands] max_request_bytes`
(default `MAX_REQUEST_BYTES`); a longer one, or one of several frames, is refused `malformed` before
it is decoded and is never journaled. Decoding holds strings and binary data to `MAX_STR_BYTES`,
maps and arrays to `MAX_ENTRIES` entries (a map of 200,000 keys is refused at its first byte). An
`id` is a string of 1 to `MAX_ID_CHARS` printable characters or an integer within int64; every other
integer (an amount, a seat, a hand, `after`) is at most `MAX_INT` (2**53 - 1), else `malformed`. A client
over its rate is answered `busy` (with `retry_s`), nothing journaled (`protocol/fairness.py`).
A refused request changed nothing. The same request re-sent under an id already accepted gets
`"duplicate": true` (applied once); another request under that id is refused `reused_id`. An id
is compared as text: `1` and `"1"` are one id. "The same request" is the same command with the same
checked arguments (`Command.digest`; the `hand` guard is not part of it).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import msgpack

from engine import games
from engine.cards import Card
from engine.errors import IllegalAction, Say
from engine.house import TableLimits
from engine.poker.values import table_rules
from engine.ratings import DEALER_ACTIONS, PLAYER_ACTIONS, RATING_ACTIONS, check_card, check_session_start
from protocol.command_client import CommandClient as CommandClient  # re-exported: the dealer side
from protocol.requests import REQUIRED, Refusal

COMMANDS = ("open", "close", "bet", "deal", "decide", "correct", "card", "confirm", "void", "clear", "state", "act",
            "seat", "chop", "history", "level", "clock", "hold", "race", "button-draw", "player", "dealer",
            "buy_in", "colour_up", "fill", "credit", "rating")
HISTORY_PAGE = 100
"""The most closed hands one `history` reply carries (`service.history`)."""
LIMIT_KEYS = TableLimits.KEYS
"""An `open`'s limits: the engine's keys, each an integer; their values are the engine's to check when the open is applied."""
# Games, structures, actions, decisions, stakes keys, seat bounds and Play multiples: `engine.games`.
_POKER_SEAT_NUMBERS = (1, games.POKER_SEATS[1])  # a poker table's seats are numbered 1..its seats


MAX_DEPTH = 8
"""How deeply maps and arrays may nest in a request (the deepest, `open`'s stakes, nest 3 deep)."""

MAX_REQUEST_BYTES = 64 * 1024
"""The longest request frame taken by default (`[commands] max_request_bytes`); the largest real one,
a poker `open`, is under 1 KiB."""

MAX_STR_BYTES = 4096
"""The longest string or binary value decoded in a request (a reason or a profile name: 500 characters)."""

MAX_ENTRIES = 64
"""The most entries of one map or array decoded in a request (an `open` has 13 keys, blinds 10)."""

MAX_ID_CHARS = 64
"""The longest request id, in characters (journaled with the event, looked up on every re-send)."""

_INT64 = (-(2**63), 2**63 - 1)

_LIMIT_WORDS = {"max_str_len": "a string longer than", "max_bin_len": "binary data longer than",
                "max_array_len": "an array of more entries than", "max_map_len": "a map of more entries than",
                "max_ext_len": "an extension value (none is used) longer than"}


def _unpacker(size: int) -> msgpack.Unpacker:
    """An unpacker that holds every value of a request to the limits above (and the buffer to `size`)."""
    return msgpack.Unpacker(raw=False, max_buffer_size=max(size, 1), max_str_len=MAX_STR_BYTES,
                            max_bin_len=MAX_STR_BYTES, max_array_len=MAX_ENTRIES, max_map_len=MAX_ENTRIES,
                            max_ext_len=0)


def too_large(size: int, limit: int) -> str:
    """What is said of a frame over the size limit."""
    return f"too large: a request is at most {limit} bytes, this frame has {size}"


def id_problem(req_id: object) -> str | None:
    """Why `req_id` cannot be a request id, or None when it can (None: no id given).

    >>> id_problem("r1") is None, id_problem(2**63) is not None, id_problem("x" * 65) is not None
    (True, True, True)
    """
    if req_id is None:
        return None
    if isinstance(req_id, bool) or not isinstance(req_id, (str, int)):
        return "id must be a string or an integer"
    if isinstance(req_id, int):
        return None if _INT64[0] <= req_id <= _INT64[1] else "id: an integer id must fit in 64 bits (int64)"
    if not 0 < len(req_id) <= MAX_ID_CHARS or not req_id.isprintable():
        return f"id: a string id has 1 to {MAX_ID_CHARS} printable characters"
    return None


def _unpack_failure(exc: Exception) -> str:
    """What is wrong with a frame msgpack refused, in words (several of its errors carry none)."""
    if isinstance(exc, msgpack.exceptions.StackError):
        return "nested too deep: more levels of maps and arrays than msgpack will decode"
    if isinstance(exc, msgpack.exceptions.FormatError):
        return "not msgpack: a byte that begins no msgpack value (0xc1 is never used)"
    if isinstance(exc, msgpack.exceptions.OutOfData):
        return "not msgpack: the frame ends in the middle of a value"
    over = re.fullmatch(r"(\d+) exceeds (max_\w+_len)\((\d+)\)", str(exc))
    if over is not None and over.group(2) in _LIMIT_WORDS:
        return f"too large: {_LIMIT_WORDS[over.group(2)]} {over.group(3)} ({over.group(1)})"
    return f"not msgpack: {exc}" if str(exc) else f"not msgpack ({type(exc).__name__})"


def _kind(value: object) -> str:
    if value is None:
        return "nil"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, bytes):
        return "binary data"
    if isinstance(value, (list, tuple)):
        return "an array"
    return type(value).__name__


def _deeper_than(value: object, limit: int) -> bool:
    """Whether maps and arrays nest more than `limit` levels in `value` (walked without recursion)."""
    stack: list[tuple[object, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, (dict, list, tuple)):
            if depth > limit:
                return True
            children = item.values() if isinstance(item, dict) else item
            stack.extend((child, depth + 1) for child in children)
    return False


class Malformed(ValueError):
    """A request that is not a well-formed command (bad msgpack, unknown command, bad argument);
    `say`: its words when a person typed what is wrong (a card typed by hand)."""

    def __init__(self, message: str, say: Say | None = None) -> None:
        super().__init__(message)
        self.say = say


MAX_AUTH_TEXT = 64
"""The longest user name or PIN an `auth` may carry."""


@dataclass(frozen=True, slots=True)
class Auth:
    """A supervisor's sign-off as a request carries it. The PIN never shows in a repr."""

    user: str
    pin: str = field(repr=False)
    at: str | None = None  # who is signed in at the relaying console (the display's relay sets it)

    @classmethod
    def from_value(cls, value: Any) -> Auth:
        """Raises Malformed (saying what is wrong, never echoing the PIN)."""
        if not isinstance(value, dict) or not {"user", "pin"} <= set(value) <= {"user", "pin", "at"}:
            raise Malformed("auth must be a map of user and pin (and at: who is signed in at the console)")
        user, pin, at = value["user"], value["pin"], value.get("at")
        for name, text in (("user", user), ("pin", pin), ("at", at)):
            if (name != "at" or text is not None) and (not isinstance(text, str) or not text
                                                       or len(text) > MAX_AUTH_TEXT):
                raise Malformed(f"auth: {name} must be a string of 1 to {MAX_AUTH_TEXT} characters")
        return cls(user, pin, at)


class Refused(ValueError):
    """A well-formed command the table cannot take now; `code` is `illegal` or `fault`."""

    def __init__(self, message: str, code: str = "illegal") -> None:
        super().__init__(message)
        self.code = code


@dataclass(frozen=True, slots=True)
class Command:
    """One decoded dealer request. `args` holds the command's checked arguments (JSON-able)."""

    cmd: str
    args: dict[str, Any] = field(default_factory=dict)
    id: str | int | None = None
    hand: int | None = None
    auth: Auth | None = None  # a supervisor's sign-off: never journaled, not part of `digest`

    @property
    def req(self) -> str | None:
        """The request id as journaled (None when the dealer gave none): its text, so `1` and `"1"`
        are one id."""
        return None if self.id is None else str(self.id)

    @property
    def digest(self) -> str:
        """The SHA-256 (hex) of the request's canonical form: the command and its checked arguments
        as JSON with sorted keys. Two requests are the same request when their digests are equal (the
        id and the `hand` guard are not part of it; arguments are compared as checked, so a card `as`
        is the card `As`).

        >>> Command("bet", {"seat": 1, "bets": {"ante": 5}}).digest == Command("bet", {"bets": {"ante": 5}, "seat": 1}).digest
        True
        """
        canonical = json.dumps({"cmd": self.cmd, "args": self.args}, sort_keys=True, separators=(",", ":"),
                               ensure_ascii=True)
        return hashlib.sha256(canonical.encode("ascii")).hexdigest()

    @classmethod
    def decode(cls, frame: bytes, max_bytes: int = MAX_REQUEST_BYTES) -> Command:
        """Decode and check one request frame. Raises Malformed saying what is wrong (never in no words:
        longer than `max_bytes`, not msgpack, a value over the decoding limits, not a map, nested deeper
        than MAX_DEPTH, then what `from_mapping` finds)."""
        if not frame:
            raise Malformed("not msgpack: an empty frame")
        if len(frame) > max_bytes:
            raise Malformed(too_large(len(frame), max_bytes))
        unpacker = _unpacker(len(frame))
        try:
            unpacker.feed(frame)
            data = unpacker.unpack()
        except Exception as exc:  # msgpack raises several unrelated types
            raise Malformed(_unpack_failure(exc)) from None
        if unpacker.tell() != len(frame):
            raise Malformed("not msgpack: bytes left over after the first value (one request a frame)")
        if not isinstance(data, dict):
            raise Malformed(f"not a msgpack map: a request is a map, this frame holds {_kind(data)}")
        if _deeper_than(data, MAX_DEPTH):
            raise Malformed(f"nested too deep: a request has at most {MAX_DEPTH} levels of maps and arrays")
        return cls.from_mapping(data)

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any]) -> Command:
        """Check a request map. Raises Malformed."""
        req_id = data.get("id")
        problem = id_problem(req_id)
        if problem is not None:
            raise Malformed(problem)
        cmd = data.get("cmd")
        if cmd not in COMMANDS:
            raise Malformed(f"unknown cmd {cmd!r} (known: {', '.join(COMMANDS)})")
        hand = data.get("hand")
        if hand is not None and (isinstance(hand, bool) or not isinstance(hand, int) or not 1 <= hand <= MAX_INT):
            raise Malformed("hand must be a positive integer")
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
            if req_id is None:
                raise Malformed("rating: give the request an id (a sign-off sent again under it is applied once)")
            _check_rating(args)
        if cmd == "clear" and args.get("then", "continue") not in ("continue", "void"):
            raise Malformed("clear: then must be 'continue' or 'void'")
        auth = Auth.from_value(data["auth"]) if data.get("auth") is not None else None
        return cls(cmd=cmd, args=args, id=req_id, hand=hand, auth=auth)


MAX_ENTERED_HANDS = 10_000
"""The most hands of unrated play one `rating` adjustment enters (a day's play at one seat is under 1,000)."""

_RATING_TAKES = {"open": {"card", "hands", "average_bet", "start"}, "close": {"end"},
                 "adjust": {"hands", "average_bet", "start", "session"}}
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


def _text(v: Any) -> str:
    if not isinstance(v, str) or not v.strip():
        raise ValueError("must be a non-empty string")
    if len(v) > 500:
        raise ValueError("longer than 500 characters")
    return v


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


def _rake(v: Any) -> dict[str, Any]:
    """The house's rake at a poker table: rate_bp (basis points of the pot), cap, no_flop_no_drop."""
    if not isinstance(v, dict):
        raise ValueError("must be a map of rate_bp, cap and no_flop_no_drop")
    out: dict[str, Any] = {}
    for k, value in v.items():
        if k in ("rate_bp", "cap"):
            out[k] = _int_in(0, 10000)(value) if k == "rate_bp" else _int_in(0)(value)
        elif k == "no_flop_no_drop":
            if not isinstance(value, bool):
                raise ValueError("no_flop_no_drop must be true or false")
            out[k] = value
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


_CHECKS: dict[str, dict[str, Any]] = {
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
    "void": {"reason": _text},
    "clear": {"reason": _text, "then": _text},
    "close": {},
    "state": {},
    "act": {"seat": _int_in(*_POKER_SEAT_NUMBERS), "action": _one_of(*games.POKER_ACTIONS),
            "amount": _int_in(0), "cards": _cards},
    "seat": {"seat": _int_in(*_POKER_SEAT_NUMBERS), "action": _one_of(*games.SEAT_ACTIONS),
             "amount": _int_in(1)},
    "chop": {"reason": _text, "shares": _shares},
    "history": {"after": _int_in(0), "limit": _int_in(1, HISTORY_PAGE), "newest": _flag,
                "events": _flag},  # the table's open and close events (service/table_events.py)
    "level": {"stakes": _stakes, "level": _int_in(1), "tournament": _text},  # tables/levels.py
    "clock": {"seat": _int_in(*_POKER_SEAT_NUMBERS), "seconds": _int_in(*games.CLOCK_SECONDS)},
    "hold": {"reason": _text, "by": _text, "from_hand": _int_in(1), "release": _flag},
    "race": {"colour": _int_in(1), "into": _int_in(2), "by": _text, "ref": _text},
    "button-draw": {"by": _text, "ref": _text},  # tables/button_draw_step.py
    "player": {"seat": _int_in(*games.HOUSE_SEATS), "action": _one_of(*PLAYER_ACTIONS),  # tables/players.py
               "card": check_card, "source": _one_of("dealer", "pit")},
    "dealer": {"dealer": _text, "action": _one_of(*DEALER_ACTIONS)},
    "rating": {"seat": _int_in(*games.HOUSE_SEATS), "action": _one_of(*RATING_ACTIONS), "card": check_card,
               "hands": _int_in(0, MAX_ENTERED_HANDS), "average_bet": _int_in(0), "start": _int_in(1),
               "end": _int_in(1), "reason": _text, "session": check_session_start},
    # the chips moved at the tray (tables/tray_steps.py, engine/tray.py)
    "buy_in": {"seat": _int_in(*games.TABLE_SEATS), "amount": _int_in(1)},
    "colour_up": {"seat": _int_in(*games.TABLE_SEATS), "amount": _int_in(1)},
    "fill": {"amount": _int_in(1), "slip": _text},
    "credit": {"amount": _int_in(1), "slip": _text},
}
"""How each command's arguments are checked; which arguments a command has, and which it needs, are
its request's type (`protocol.requests.REQUESTS`: a test holds the two to the same names)."""

_ARGS: dict[str, dict[str, tuple[bool, Any]]] = {
    cmd: {name: (name in REQUIRED[cmd], check) for name, check in checks.items()}
    for cmd, checks in _CHECKS.items()}
"""Each command's arguments: (required, check)."""


def encode_reply(reply: Mapping[str, Any]) -> bytes:
    packed: bytes = msgpack.packb(dict(reply), use_bin_type=True)
    return packed


_CODE_SAYS: dict[str, str] = {"malformed": "refusal.malformed", "busy": "refusal.busy", "reused_id": "refusal.reused_id",
                              "journal": "refusal.journal", "internal": "refusal.internal"}
"""The words of a refusal that names none of its own, by its code (`refusal.other` for any other code)."""


def error_reply(req_id: Any, code: str, message: str, say: Say | None = None) -> Refusal:
    """A refusal: `code`, the English `error` and `say`, the words a person reads (`engine.errors.say`),
    the refusal's own or its code's (else `refusal.other`, `why` the `error`); None arguments left out."""
    if say is None:
        say = {"key": _CODE_SAYS.get(code, "refusal.other"), "args": {"why": message}}
    return {"id": req_id, "ok": False, "code": code, "error": message,
            "say": {"key": str(say["key"]), "args": {k: v for k, v in say.get("args", {}).items() if v is not None}}}


def request_id_of(frame: bytes, max_bytes: int = MAX_REQUEST_BYTES) -> Any:
    """Best effort: the `id` of a request that failed to decode (or was not decoded: `busy`), to echo
    it in the reply; None for a frame over `max_bytes` or the decoding limits, or an id that is not one
    (`id_problem`): a refusal never echoes a huge id."""
    if len(frame) > max_bytes:
        return None
    unpacker = _unpacker(len(frame))
    try:
        unpacker.feed(frame)
        data = unpacker.unpack()
    except Exception:  # garbage: no id to echo
        return None
    rid = data.get("id") if isinstance(data, dict) else None
    return rid if rid is not None and id_problem(rid) is None else None
