"""Who may do what: the roles, the controller's sockets, and the default tables of which role may subscribe where and send which command.

A client is known by its CURVE certificate (its name, and the role written in its metadata by
`croupier keys new`); a local client on loopback or ipc without CURVE takes the configuration's
`[security] local_role`. The configuration's `[access]` and `[rights]` sections replace these
defaults key by key (`firmware_host.service.config`).
"""

from __future__ import annotations

from dataclasses import dataclass

ROLES = ("dealer", "supervisor", "pit", "surveillance", "display", "technician", "table")
"""Every role a certificate or a user may carry (`table`: a controller's own server key)."""

SOCKETS = ("public", "snapshot", "full", "full_snapshot", "commands")
"""The controller's sockets, by the name `[access]` gives them."""

COMMANDS = ("open", "close", "bet", "deal", "decide", "correct", "act", "card", "confirm", "void", "clear", "state",
            "seat", "chop", "history", "level", "clock", "hold", "race", "button-draw", "player", "dealer",
            "buy_in", "colour_up", "fill", "credit", "rating")
"""Every command a role may be given in `[rights]` (the command channel's, `service.commands`)."""

_CLIENT_ROLES = tuple(role for role in ROLES if role != "table")

DEFAULT_ACCESS: dict[str, tuple[str, ...]] = {
    "public": _CLIENT_ROLES,
    "snapshot": _CLIENT_ROLES,
    "full": ("surveillance", "technician"),
    "full_snapshot": ("surveillance", "technician"),
    "commands": ("dealer", "supervisor", "pit", "surveillance", "technician"),
}
"""Socket -> the roles whose keys may connect to it: the full feed (hole cards) only to surveillance
and the technician; the public feed to every allowed key."""

DEFAULT_RIGHTS: dict[str, tuple[str, ...]] = {
    "dealer": ("bet", "deal", "decide", "act", "card", "confirm", "seat", "state", "clock", "player", "dealer",
               "buy_in", "colour_up", "fill", "credit"),
    "pit": ("open", "close", "state", "history", "level", "clock", "seat", "hold", "race", "button-draw", "player",
            "dealer", "fill", "credit", "rating"),
    "supervisor": COMMANDS,
    "surveillance": ("state", "history"),
    "technician": ("state", "history"),
}
"""Role -> the commands it may send; a role not listed may send none. `history` (closed hands from the
journal, read only) goes to those who review hands: the pit, surveillance, the technician and the
supervisor; not to the dealer's console or a display."""

SIGN_OFF = ("clear", "void", "chop", "clock", "correct", "fill", "credit", "rating")
"""Commands that need a supervisor's sign-off (`auth`), whoever relays them; so do a card entered by
hand and an `open` with new limits or a new profile."""

RELAYS: tuple[str, ...] = ("dealer", "pit")
"""The roles whose keys may send, with a supervisor's sign-off (`auth`), what the supervisor may beyond their own
rights: the dealer's console and the pit, at the table, relay what a supervisor signs there (a clear, a void, a
new game's open, a chip race, the director's clock). A sign-off adds nothing to any other role: a read-only key
(surveillance, technician, display) never sends what it may not."""


@dataclass(frozen=True, slots=True)
class Caller:
    """Who sent a request: the role it acts in, the certificate's name (None for a local client
    without CURVE) and the peer's address when known."""

    role: str
    key: str | None = None
    address: str = ""


LOCAL = Caller("dealer")
"""A local client without CURVE under the default `[security] local_role`."""
