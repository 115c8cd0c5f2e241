"""The sign-off throttle's alert on the table's feeds: a relaying key's PIN checks slowed down, told to the pit and surveillance.

The table's gate spaces the PIN checks of a key whose people sign in at a web process (`[security]
signed_in_relays`: the display's dealer consoles, the floor's `/pit/rating`) past twenty failures together
(`protocol.signoff_holds`). Its state (since when, the spacing now, the key's kind, when it ends: never a name or a
PIN) is `signoff_alert` on every feed (`Controller.states`), looked at each second from the controller's loop (a
pollable, as `tables.clock_call.ClockWatch`) and at each refused sign-off that changed it; published when it changes,
so the alert goes when the throttle ends (an hour without a failure).
"""

from __future__ import annotations

from collections.abc import Callable

from protocol.signoff import SignOff
from protocol.signoff_holds import SignoffAlert

CHECK_S = 1.0
"""How often the throttle's state is looked at (its end is a wall-clock time: followed if the clock is set)."""


class AlertWatch:
    """The gate's throttle as last shown (`shown`); `changed` is called (the controller publishes) when it differs."""

    def __init__(self, signoff: SignOff, changed: Callable[[], None]) -> None:
        self.signoff = signoff
        self.changed = changed
        self.shown: SignoffAlert | None = None

    def fileno(self) -> int | None:
        return None

    def pump(self) -> float:
        """Publish the alert when it changed (begun, slowed, ended); return the seconds until it is looked at again."""
        now = self.signoff.holds.alert(self.signoff.clock())
        if now != self.shown:
            self.shown = now
            self.changed()
        return CHECK_S
