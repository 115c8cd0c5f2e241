"""Standard output closed by its reader (`croupier history | head`): stop quietly, as a Unix tool does."""

from __future__ import annotations

import os
import sys

EXIT_BROKEN_PIPE = 141
"""The exit status: 128 + SIGPIPE, what a shell reports for a tool stopped by a closed pipe."""


def stdout_closed() -> int:
    """Call on BrokenPipeError from standard output: point it at /dev/null (so the interpreter's last
    flush at exit has nowhere to fail, no traceback) and return `EXIT_BROKEN_PIPE`. Raises nothing."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        try:
            os.dup2(devnull, sys.stdout.fileno())
        finally:
            os.close(devnull)
    except (OSError, ValueError, AttributeError):  # no real file behind sys.stdout: nothing to flush there
        pass
    return EXIT_BROKEN_PIPE
