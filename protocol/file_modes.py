"""Secret files and trusted directories refused when other users may read or change them, as ssh refuses them.

A secret (a CURVE `.key_secret`, the users file with its PIN hashes) must be neither readable by others nor
writable by its group or others: the service reads it through its owner or its group (`install-pi.sh`
installs them root-owned, mode 0640, group croupier). A trusted directory (the clients directory, whose
certificates are let in) and the certificates in it must be writable by no one but their owner. The error
names the file and its mode and says what to run.
"""

from __future__ import annotations

import os
import secrets
import stat
from pathlib import Path

SECRET_FORBIDDEN = 0o027
"""Mode bits a secret file must not have: group write, and anything for others."""
TRUSTED_FORBIDDEN = 0o022
"""Mode bits a trusted directory or certificate must not have: group or others write."""


class FileModeError(PermissionError):
    """A secret or trusted file whose mode lets other users read or change it."""


def _mode(path: Path) -> int | None:
    try:
        return stat.S_IMODE(os.stat(path).st_mode)
    except OSError:
        return None  # missing or unreadable: the caller's own reading says so


def check_secret(path: str | Path, what: str) -> None:
    """Raise FileModeError when `path` (a secret: `what` names it) is readable by others or writable by more than
    its owner."""
    mode = _mode(Path(path))
    if mode is not None and mode & SECRET_FORBIDDEN:
        raise FileModeError(f"{what} {path} is mode {mode:04o}: other users may "
                            f"{'change' if mode & 0o022 else 'read'} it; it must be 0600 or 0640 "
                            f"(chmod {mode & ~SECRET_FORBIDDEN & 0o640:04o} {path})")


def check_trusted(path: str | Path, what: str) -> None:
    """Raise FileModeError when `path` (a trusted directory or certificate: `what`) is writable by group or others."""
    mode = _mode(Path(path))
    if mode is not None and mode & TRUSTED_FORBIDDEN:
        raise FileModeError(f"{what} {path} is mode {mode:04o}: other users may change it; "
                            f"it must be writable by its owner alone (chmod {mode & ~TRUSTED_FORBIDDEN:04o} {path})")


def write_secret(path: str | Path, text: str) -> None:
    """Write `text` to `path` whole, mode 0600: a temporary file beside it, synced, then renamed over it (never
    half written). Raises OSError (the temporary file removed)."""
    target = Path(path)
    tmp = target.with_name(f".{target.name}.{secrets.token_hex(4)}.tmp")
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, 0o600)
        os.replace(tmp, target)
    except OSError:
        tmp.unlink(missing_ok=True)
        raise
