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
             start of a session of the gaming day closed at the seat, to adjust it), reason str
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

The package's rooms: `codec` (the frames: the decoding limits, a request's map unpacked, the replies
packed) and `arguments` (the commands and how each argument is checked); this module holds a request as
decoded (`Command`, `Auth`) and names everything a caller uses, as `protocol.commands.NAME`.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from protocol.command_client import CommandClient
from protocol.commands.arguments import _CHECKS, COMMANDS, HISTORY_PAGE, LIMIT_KEYS, MAX_ENTERED_HANDS, MAX_INT, checked
from protocol.commands.codec import (MAX_DEPTH, MAX_ENTRIES, MAX_ID_CHARS, MAX_REQUEST_BYTES, MAX_STR_BYTES, Malformed,
                                     encode_reply, error_reply, id_problem, request_id_of, too_large, unpack_request)

__all__ = ["_CHECKS", "COMMANDS", "HISTORY_PAGE", "LIMIT_KEYS", "MAX_AUTH_TEXT", "MAX_DEPTH", "MAX_ENTERED_HANDS",
           "MAX_ENTRIES", "MAX_ID_CHARS", "MAX_INT", "MAX_REQUEST_BYTES", "MAX_STR_BYTES", "Auth", "Command",
           "CommandClient", "Malformed", "Refused", "encode_reply", "error_reply", "id_problem", "request_id_of",
           "too_large", "unpack_request"]


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
        what `codec.unpack_request` finds in the frame, then what `from_mapping` finds in its map)."""
        return cls.from_mapping(unpack_request(frame, max_bytes))

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any]) -> Command:
        """Check a request map: its envelope here, its arguments by `arguments.checked`. Raises Malformed."""
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
        args = checked(cmd, data)
        auth = Auth.from_value(data["auth"]) if data.get("auth") is not None else None
        return cls(cmd=cmd, args=args, id=req_id, hand=hand, auth=auth)
