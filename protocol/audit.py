"""The table's tamper-evident audit log: an append-only chain of hashed entries beside the journal.

Each entry is `(counter, time, kind, details)`: the counter counts 1, 2, 3, ... with no gap, the time
is UTC in ISO 8601, the kind names what happened (`start`, `stop`, `config`, `fault_raised`,
`fault_cleared`, `void`, `chop`, `device_connect`, `device_disconnect`; the ZAP handler's
`connection_refused`, `full_feed_subscribed`, `key_added`, `key_revoked`) and the details are a JSON
map. Its `hash` is the SHA-256 (hex) of the previous entry's hash followed by the canonical JSON of
the entry (`canonical`); the first entry chains from `GENESIS`. `verify` walks the chain and names
the first entry that was changed (its hash does not match), removed (a gap in the counters) or
inserted or moved (a counter repeated or out of order).

Stored in its own SQLite file, `audit.sqlite3` in the state directory (WAL, synchronous=FULL), not
as JSON lines: each append is atomic (a crash never leaves half an entry to tell apart from a
tampered one), durable before `append` returns, and `croupier audit show` reads a consistent log
while the controller writes it, as `croupier history` does the journal. The table
`entries(id, counter, time, kind, details, hash)` is readable with the `sqlite3` shell; its rows are
walked in `id` order, and nothing in the schema stops a row being edited: the chain is what tells.

What the chain cannot tell alone: a log whose every later hash was recomputed, or whose last entries
were cut off. The last entry's counter and hash, which `verify` prints, are what to keep elsewhere
(the pit's records) to catch those (`docs/audit.md`).
"""

from __future__ import annotations

import datetime
import enum
import hashlib
import importlib.machinery
import importlib.metadata
import importlib.util
import json
import logging
import sqlite3
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from protocol import packages

log = logging.getLogger("croupier.audit")

AUDIT_FILE = "audit.sqlite3"
GENESIS = "0" * 64
"""What the first entry's hash chains from."""

CODE_PACKAGES = packages.TABLE
"""The packages whose installed module files make the code hash of a `start` entry."""

_SCHEMA = """
CREATE TABLE IF NOT EXISTS entries (
    id INTEGER PRIMARY KEY,
    counter INTEGER NOT NULL,
    time TEXT NOT NULL,
    kind TEXT NOT NULL,
    details TEXT NOT NULL,
    hash TEXT NOT NULL
);
"""


class AuditError(RuntimeError):
    """The audit log cannot be opened, read or written."""


@dataclass(frozen=True)
class Entry:
    """One entry of the log as stored."""

    counter: int
    time: str
    kind: str
    details: dict[str, Any]
    hash: str

    def as_json(self) -> dict[str, Any]:
        return {"counter": self.counter, "time": self.time, "kind": self.kind, "details": self.details,
                "hash": self.hash}


@dataclass(frozen=True)
class Verdict:
    """What `verify` found: `bad` is None when the whole chain holds, else the first bad entry's
    counter and `problem` says what is wrong with it."""

    entries: int
    first_time: str | None
    last_time: str | None
    last_counter: int
    last_hash: str
    bad: int | None = None
    problem: str = ""

    @property
    def ok(self) -> bool:
        return self.bad is None


def canonical(counter: int, when: str, kind: str, details: Mapping[str, Any]) -> str:
    """The entry's canonical JSON: keys sorted, no spaces, ASCII only.

    >>> canonical(1, "2026-12-01T12:00:00.000000Z", "stop", {"b": 1, "a": "é"})
    '{"counter":1,"details":{"a":"\\\\u00e9","b":1},"kind":"stop","time":"2026-12-01T12:00:00.000000Z"}'
    """
    return json.dumps({"counter": counter, "time": when, "kind": kind, "details": details},
                      sort_keys=True, separators=(",", ":"), ensure_ascii=True)


def chain_hash(previous: str, counter: int, when: str, kind: str, details: Mapping[str, Any]) -> str:
    """SHA-256 hex of the previous entry's hash followed by this entry's canonical JSON."""
    return hashlib.sha256((previous + canonical(counter, when, kind, details)).encode("ascii")).hexdigest()


def utc_iso(ts: float) -> str:
    """`ts` (seconds since the epoch) as UTC ISO 8601 with microseconds and a `Z`."""
    return datetime.datetime.fromtimestamp(ts, datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


class AuditLog:
    """An open audit log. `append` raises; `write` (what the service uses) never does."""

    def __init__(self, conn: sqlite3.Connection, path: Path, clock: Callable[[], float]) -> None:
        self._conn = conn
        self.path = path
        self.clock = clock
        self._lock = threading.Lock()  # the controller thread and the start/stop code may both write
        row = conn.execute("SELECT counter, hash FROM entries ORDER BY id DESC LIMIT 1").fetchone()
        self._counter, self._hash = (int(row[0]), str(row[1])) if row else (0, GENESIS)

    @classmethod
    def open(cls, state_dir: str | Path, *, readonly: bool = False,
             clock: Callable[[], float] = time.time) -> AuditLog:
        """Open (creating it and the directory unless `readonly`) the audit log in `state_dir`.

        Raises AuditError when it cannot be used (no log when `readonly`, not a log, disk)."""
        path = Path(state_dir) / AUDIT_FILE
        try:
            if readonly:
                if not path.is_file():
                    raise AuditError(f"no audit log at {path}")
                conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, isolation_level=None,
                                       check_same_thread=False)
                try:
                    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
                except sqlite3.Error:
                    conn.close()
                    raise
                if "entries" not in tables:
                    conn.close()
                    raise AuditError(f"{path}: not an audit log (no table entries)")
            else:
                Path(state_dir).mkdir(parents=True, exist_ok=True)
                conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
                conn.execute("PRAGMA journal_mode=WAL")
                conn.execute("PRAGMA synchronous=FULL")
                conn.executescript(_SCHEMA)
            return cls(conn, path, clock)
        except sqlite3.Error as exc:
            raise AuditError(f"{path}: not an audit log or not usable (SQLite: {exc})") from exc
        except OSError as exc:
            raise AuditError(f"{path}: {exc.strerror or exc}") from exc

    def close(self) -> None:
        self._conn.close()

    def append(self, kind: str, details: Mapping[str, Any]) -> Entry:
        """Add one entry, durable when this returns. Raises AuditError (nothing added)."""
        with self._lock:
            counter, when = self._counter + 1, utc_iso(self.clock())
            plain = json.loads(json.dumps(dict(details), default=str))  # what is stored is what is hashed
            digest = chain_hash(self._hash, counter, when, kind, plain)
            try:
                self._conn.execute("INSERT INTO entries (counter, time, kind, details, hash) VALUES (?, ?, ?, ?, ?)",
                                   (counter, when, kind, json.dumps(plain, sort_keys=True), digest))
            except sqlite3.Error as exc:
                raise AuditError(f"{self.path}: cannot write entry {counter} ({kind}): {exc}") from exc
            self._counter, self._hash = counter, digest
            return Entry(counter, when, kind, plain, digest)

    def write(self, kind: str, details: Mapping[str, Any]) -> Entry | None:
        """`append`, for the service: a failure is logged loudly and never raised (the table goes on)."""
        try:
            return self.append(kind, details)
        except Exception:  # whatever it is, the table must not stop for its audit log
            log.critical("AUDIT LOG WRITE FAILED: entry %s %r not recorded", kind, dict(details), exc_info=True)
            return None

    def entries(self) -> list[Entry]:
        """Every entry in stored order. Raises AuditError when the file cannot be read; a details
        text that is not JSON is kept as the string it is (`verify` reports it)."""
        try:
            rows = self._conn.execute("SELECT counter, time, kind, details, hash FROM entries ORDER BY id").fetchall()
        except sqlite3.Error as exc:
            raise AuditError(f"{self.path}: cannot be read: {exc}") from exc
        return [Entry(_int(r[0]), str(r[1]), str(r[2]), _details(r[3]), str(r[4])) for r in rows]

    def last(self, kinds: Iterable[str]) -> Entry | None:
        """The latest entry of one of `kinds`, or None. Raises AuditError when the file cannot be read."""
        names = sorted(set(kinds))
        try:
            row = self._conn.execute(f"SELECT counter, time, kind, details, hash FROM entries WHERE kind IN "
                                     f"({', '.join('?' * len(names))}) ORDER BY id DESC LIMIT 1", names).fetchone()
        except sqlite3.Error as exc:
            raise AuditError(f"{self.path}: cannot be read: {exc}") from exc
        return None if row is None else Entry(_int(row[0]), str(row[1]), str(row[2]), _details(row[3]), str(row[4]))

    def verify(self) -> Verdict:
        """Walk the chain (`verify_entries`). Raises AuditError when the file cannot be read."""
        return verify_entries(self.entries())


def _int(value: Any) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        return -1


def _details(text: Any) -> Any:
    try:
        return json.loads(text)
    except (TypeError, ValueError):
        return text


def verify_entries(entries: Iterable[Entry]) -> Verdict:
    """The first entry changed (its hash), removed (a counter gap) or inserted or moved (a counter
    repeated or out of order) as a `Verdict`, whose `bad` is None when the chain holds from `GENESIS`
    to the last entry.

    >>> log = [Entry(1, "t", "start", {}, chain_hash(GENESIS, 1, "t", "start", {}))]
    >>> verify_entries(log).ok, verify_entries([log[0], log[0]]).problem
    (True, 'entry 1 repeated or out of order: entry 2 expected (an entry inserted or moved)')
    """
    entries = list(entries)
    previous, expected, count = GENESIS, 1, 0
    first: str | None = None
    last: str | None = None
    for at, entry in enumerate(entries):
        if first is None:
            first = entry.time
        bad: str | None = None
        named = entry.counter
        if entry.counter > expected and any(later.counter == expected for later in entries[at + 1:]):
            bad = f"entry {entry.counter} out of order: entry {expected} expected here (entries moved)"
        elif entry.counter > expected:
            named = expected  # a removed one: the first missing
            missing = f"entry {expected}" if entry.counter == expected + 1 else f"entries {expected}-{entry.counter - 1}"
            bad = f"{missing} missing before entry {entry.counter} (removed)"
        elif entry.counter < expected:
            bad = (f"entry {entry.counter} repeated or out of order: entry {expected} expected (an entry "
                   "inserted or moved)")
        elif not isinstance(entry.details, dict):
            bad = f"entry {entry.counter} changed: its details are not a JSON map"
        elif chain_hash(previous, entry.counter, entry.time, entry.kind, entry.details) != entry.hash:
            bad = f"entry {entry.counter} changed: its hash does not match its content and the entry before"
        if bad is not None:
            return Verdict(count, first, last, expected - 1, previous, bad=named, problem=bad)
        previous, expected, count, last = entry.hash, expected + 1, count + 1, entry.time
    return Verdict(count, first, last, expected - 1, previous)


# -- what the service writes ----------------------------------------------------------------------


def software_version() -> str:
    """The installed `croupier` distribution's version, or `unknown` when it is not installed."""
    try:
        return importlib.metadata.version("croupier")
    except importlib.metadata.PackageNotFoundError:
        return "unknown"


MODULE_SUFFIXES = (".py", *importlib.machinery.EXTENSION_SUFFIXES)
"""The files a module is run from: its source, or an extension module built from it."""


def code_hash(names: Iterable[str] | None = None) -> str:
    """SHA-256 hex over the installed module files (`*.py`, and the extension modules the engine compiled by mypyc
    runs from: docs/architecture.md) of `names` (by default every installed top folder of ours:
    `packages.installed`), sorted by their path
    relative to the package's parent: each file's path, a NUL, its length, a NUL, its bytes.
    Raises AuditError when a package cannot be found."""
    files: list[tuple[str, Path]] = []
    for name in packages.installed() if names is None else names:
        spec = importlib.util.find_spec(name)
        if spec is None or not spec.submodule_search_locations:
            raise AuditError(f"package {name} is not installed")
        for location in spec.submodule_search_locations:
            root = Path(location)
            files += [(f"{name}/{p.relative_to(root).as_posix()}", p) for p in root.rglob("*")
                      if p.name.endswith(MODULE_SUFFIXES) and "__pycache__" not in p.parts and p.is_file()]
    digest = hashlib.sha256()
    for rel, path in sorted(files):
        data = path.read_bytes()
        digest.update(f"{rel}\0{len(data)}\0".encode())
        digest.update(data)
    return digest.hexdigest()


def start_details(**extra: Any) -> dict[str, Any]:
    """A `start` entry's details: the software's version and code hash, and `extra` (table, pid)."""
    try:
        code: str | None = code_hash()
    except (AuditError, OSError) as exc:
        log.error("code hash for the audit log: %s", exc)
        code = None
    return {"version": software_version(), "code_sha256": code, **extra}


def config_details(source: str) -> dict[str, Any]:
    """A `config` entry's details: the configuration file's path and the SHA-256 of its bytes."""
    try:
        sha: str | None = hashlib.sha256(Path(source).read_bytes()).hexdigest()
    except OSError as exc:
        log.error("configuration %s cannot be read again for the audit log: %s", source, exc)
        sha = None
    return {"path": str(Path(source).resolve()), "sha256": sha}


def signer_of(body: Mapping[str, Any]) -> str | None:
    """Who signed a step off: the user of its `signed_off`, or a journal of before sign-offs' free-text `by`."""
    signed = body.get("signed_off")
    if isinstance(signed, Mapping) and signed.get("user"):
        return str(signed["user"])
    return str(body["by"]) if body.get("by") else None


class Fault(Protocol):
    """What the audit reads of a table's fault (`firmware_host.tables.base.Fault`)."""

    @property
    def kind(self) -> enum.Enum: ...
    @property
    def event(self) -> int: ...
    @property
    def detail(self) -> str: ...


def table_entries(kind: str, body: Mapping[str, Any], event_id: int, fault_before: Fault | None,
                  fault_after: Fault | None, closed: Mapping[str, Any] | None) -> list[tuple[str, dict[str, Any]]]:
    """The audit entries one applied journal event makes: a fault newly standing, a fault cleared
    (the fault, who cleared it and why), a void (by command, by a clear, or any other way a hand
    closes voided), a chop, a device connecting or disconnecting. `fault_*` are `Fault`s or None."""
    out: list[tuple[str, dict[str, Any]]] = []
    if kind == "clear" and fault_before is not None:
        out.append(("fault_cleared", {"fault": fault_before.kind.value, "fault_event": fault_before.event,
                                      "event": event_id, "by": signer_of(body),
                                      "reason": body.get("reason"), "then": body.get("then", "continue")}))
    elif kind == "chop":
        out.append(("chop", {"event": event_id, **dict(body)}))
    elif kind == "correct":  # a seat's last decision replaced, signed off
        out.append(("decision_corrected", {"event": event_id, "seat": body.get("seat"), "decision": body.get("decision"),
                                           "multiple": body.get("multiple"), "was": body.get("was"),
                                           "by": signer_of(body)}))
    elif kind == "device":
        if body.get("online"):
            out.append(("device_connect", {"event": event_id, "device": body.get("device"),
                                           "model": body.get("model"), "serial": body.get("serial"),
                                           "firmware": body.get("firmware")}))
        else:
            out.append(("device_disconnect", {"event": event_id, "device": body.get("device"),
                                              "reason": body.get("reason"), "kind": body.get("kind")}))
    if closed is not None and closed.get("status") == "voided":
        out.append(("void", {"event": event_id, "hand": closed.get("hand"), "game": closed.get("game"),
                             "by": signer_of(body),
                             "reason": body.get("reason") if kind in ("void", "clear") else closed.get("reason"),
                             "via": kind}))
    if fault_after is not None and fault_after is not fault_before:
        out.append(("fault_raised", {"fault": fault_after.kind.value, "event": fault_after.event,
                                     "detail": fault_after.detail, "via": kind}))
    return out


class TableAudit:
    """The controller's side of the log: the entries its applied events make, held until their
    transaction is committed (`flush`) or let go when it is rolled back (`drop`). With no log
    (`AuditLog` None, as in tests that do not care) every call does nothing."""

    def __init__(self, audit: AuditLog | None) -> None:
        self.log = audit
        self._pending: list[tuple[str, dict[str, Any]]] = []

    def seen(self, kind: str, body: Mapping[str, Any], event_id: int, fault_before: Fault | None,
             fault_after: Fault | None, closed: Mapping[str, Any] | None) -> None:
        """One event applied in the open transaction (see `table_entries`)."""
        if self.log is not None:
            self._pending += table_entries(kind, body, event_id, fault_before, fault_after, closed)

    def note(self, kind: str, details: dict[str, Any]) -> None:
        """An entry the table's own step made (a smart table's typed bets, a mispay accepted), in the open transaction."""
        if self.log is not None:
            self._pending.append((kind, details))

    def drop(self) -> None:
        self._pending.clear()

    def flush(self) -> None:
        """The transaction is durable: write its entries (a failure logged loudly, never raised)."""
        if self.log is not None and self._pending:
            pending, self._pending = self._pending, []
            for kind, details in pending:
                self.log.write(kind, details)
