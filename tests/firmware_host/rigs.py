"""Test rig shared by the controller and poker table tests: a controller on a real journal, restarted at will."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from protocol.commands import Command
from firmware_host.service.controller import Controller
from firmware_host.service.journal import Journal


class JournalRig:
    """A controller on a real journal in `path`; `restart()` closes it and starts a fresh one on the
    same journal (what a crash and a restart leave). Subclasses give the controller's arguments."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.c = self._new()

    def controller_args(self) -> dict[str, Any]:
        return {}

    def _new(self) -> Controller:
        c = Controller(Journal.open(self.path), **self.controller_args())
        c.recover()
        return c

    def restart(self) -> Controller:
        self.c.journal.close()
        self.c = self._new()
        return self.c

    def cmd(self, cmd: str, **args: Any) -> dict[str, Any]:
        """A dealer request as the command channel decodes it; the reply (an error reply when refused)."""
        return self.c.handle_command(Command.from_mapping({"cmd": cmd, **args}))

    def ok(self, cmd: str, **args: Any) -> dict[str, Any]:
        reply = self.cmd(cmd, **args)
        assert reply["ok"], reply
        return reply
