"""Which paytable profile a dealer's `open` may name: the engine's by name, or a file of the profiles directory.

The command channel is not trusted with the file system (`docs/security.md`, Limits):

- a name the engine ships (`engine.paytables.BUILTIN_PROFILES`) is that profile;
- anything else is a file of `[security] profiles`, named relative to it (or by an absolute path
  inside it), resolved inside it (no `..`; symlinks resolved, and where they lead must still be
  inside it);
- the file must be a regular file (opened with O_NONBLOCK and checked with fstat before it is read:
  a FIFO or a device never blocks the controller's loop) of at most `MAX_PROFILE_BYTES`.

Every name that is no builtin and no readable file inside the directory gets the same refusal,
whatever is at that path outside it (`/etc/passwd` and `/nonexistent` alike). The configuration's
own `[table] profile` is the operator's and may stay any path (`Config`).
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from engine.errors import ProfileError
from engine.paytables import BUILTIN_PROFILES, ProfileText

MAX_PROFILE_BYTES = 64 * 1024
"""The longest profile file read (the shipped ones are under 4 KiB)."""


def _refusal(name: str, directory: str) -> ProfileError:
    where = "a file of the profiles directory" if directory else "no profiles directory is configured"
    shown = name if len(name) <= 80 and name.isprintable() else f"{name[:80]!r}..."
    return ProfileError(f"{shown}: no such profile (builtin: {', '.join(BUILTIN_PROFILES)}; {where})")


def requested_profile(name: str, directory: str, max_bytes: int = MAX_PROFILE_BYTES) -> str | ProfileText:
    """The profile an `open` names: a builtin's name as it is, or the text of the file `name` in
    `directory` (`[security] profiles`; "" = none: builtins only).

    Raises ProfileError: the one refusal for a name that is no builtin and no file inside the
    directory; or, for a file inside it, what is wrong with it (not a regular file, too long, not
    UTF-8, not a profile)."""
    if name in BUILTIN_PROFILES:
        return name
    if not directory or not name or "\0" in name or ".." in Path(name).parts:
        raise _refusal(name, directory)
    root = os.path.realpath(directory)
    path = os.path.realpath(os.path.join(root, name))
    if os.path.commonpath([root, path]) != root or path == root:
        raise _refusal(name, directory)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:
        raise _refusal(name, directory) from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise ProfileError(f"{name}: not a regular file in the profiles directory")
        if info.st_size > max_bytes:
            raise ProfileError(f"{name}: a profile file is at most {max_bytes} bytes, this one has {info.st_size}")
        data = b""
        while len(data) <= max_bytes:
            chunk = os.read(fd, max_bytes + 1 - len(data))
            if not chunk:
                break
            data += chunk
    except OSError as exc:
        raise ProfileError(f"{name}: cannot read the profile: {exc.strerror or exc}") from None
    finally:
        os.close(fd)
    if len(data) > max_bytes:  # it grew since fstat
        raise ProfileError(f"{name}: a profile file is at most {max_bytes} bytes")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise ProfileError(f"{name}: not UTF-8 text") from None
    return ProfileText.from_text(text, name)
