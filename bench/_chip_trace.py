"""The chip bench's legs (bench only): the controller run with each step of a reading's path stamped, and each timed change's and card's time split into them.

`CROUPIER_BENCH_TRACE=PREFIX python -m bench chip_latency` runs each round's controller as
`python -m bench._chip_trace OUT -m cli run ...`: this module wraps, in that process alone, the loop's poll,
each link's turn and read, the session's `receive`, `Controller.handle_readings`, the journal's commit and
the feed's publish, stamping each with `time.perf_counter()` (CLOCK_MONOTONIC on Linux, as the bench's
and the listener's stamps), and writes the stamps to OUT when the controller exits. Nothing of it is in
the controller's code: off, it costs nothing. `legs` then splits each change's (and card's) time, from
its frame's last byte to its public update, into:

- `wait`: the frame's bytes sent to the controller's loop turning its link (the loop asleep in its poll:
  the kernel's wake-up; busy: the work it was doing);
- `read`: the turn's read of the port; `parse`: the session taking the bytes (the frames, the debounce);
- `hand`: the rest of the turn and the loop to `handle_readings` (the readings' hand-off);
- `step`: `handle_readings` to its commit (the events journaled, applied, the views made);
- `commit`: the journal's commit (its fsync); `publish`: the commit to the feed's publish done;
- `transit`: the publish to the listening process's stamp (ZeroMQ, the listener's wake-up).
"""

from __future__ import annotations

import atexit
import bisect
import pickle
import runpy
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import msgpack

Stamp = tuple[str, float, Any]
LEGS = ("wait", "read", "parse", "hand", "step", "commit", "publish", "transit")


def _wrap(owner: Any, name: str, before: str | None, after: str | None, stamps: list[Stamp],
          note: Callable[[Any, Any, tuple[Any, ...]], Any] | None = None) -> None:
    """`owner.name` stamped before and after each call (`note(self_or_none, result, args)`: what the after stamp carries)."""
    original = getattr(owner, name)
    clock = time.perf_counter

    def wrapped(*args: Any, **kwargs: Any) -> Any:
        if before is not None:
            stamps.append((before, clock(), args[0] if args else None))
        result = original(*args, **kwargs)
        if after is not None:
            stamps.append((after, clock(), note(args[0] if args else None, result, args) if note else None))
        return result

    setattr(owner, name, wrapped)


def install(stamps: list[Stamp]) -> None:
    """The stamps' wrappers, in the controller's process."""
    import zmq

    from drivers import serial_link
    from firmware_host.service.controller import Controller
    from firmware_host.service.journal import Journal
    from protocol.feed import Feed

    current: list[str] = [""]  # the device whose link is turning
    original_pump = serial_link.SerialLink.pump

    def pump(self: Any, wait: float = 0.0) -> float:
        current[0] = self.device
        stamps.append(("pump0", time.perf_counter(), self.device))
        try:
            return original_pump(self, wait)
        finally:
            stamps.append(("pump1", time.perf_counter(), self.device))

    serial_link.SerialLink.pump = pump  # type: ignore[method-assign]
    _wrap(serial_link, "_read_available", None, "read", stamps, lambda _, data, __: (current[0], len(data)))
    _wrap(zmq.Poller, "poll", None, "wake", stamps, lambda _, ready, __: len(ready))
    _wrap(Controller, "handle_readings", "h0", "h1", stamps)
    _wrap(Journal, "commit", "c0", "c1", stamps)
    _wrap(Feed, "publish", None, "p1", stamps, lambda _, seq, __: seq)
    for module in ("drivers.chip_link", "drivers.shoe_link"):
        __import__(module)
    from drivers.chip_link import ChipSession
    from drivers.shoe_link import HostSession
    for session in (ChipSession, HostSession):
        _wrap(session, "receive", None, "recv", stamps, lambda s, _, __: s.device)


def main(argv: Sequence[str]) -> None:
    """`OUT -m MODULE ARGS...`: MODULE run as `__main__` with its stamps written to OUT at exit."""
    out, flag, module, *rest = argv
    if flag != "-m":
        raise SystemExit("usage: python -m bench._chip_trace OUT -m MODULE ARGS...")
    stamps: list[Stamp] = []
    install(stamps)
    atexit.register(lambda: Path(out).write_bytes(pickle.dumps([(k, t, v if isinstance(v, (int, str, tuple)) else None)
                                                                for k, t, v in stamps])))
    sys.argv = [module, *rest]
    runpy.run_module(module, run_name="__main__", alter_sys=True)


def card_matches(card_sent: Sequence[tuple[int, float]], full_msgs: Sequence[bytes],
                 public_at: dict[tuple[str, int], float]) -> list[tuple[float, float, int]]:
    """`(t0, t1, feed seq)` of each card timed (`bench.controller_latency.latencies`' matching)."""
    sent: dict[int, list[float]] = {}
    for seq, t in card_sent:
        sent.setdefault(seq, []).append(t)
    out: list[tuple[float, float, int]] = []
    last: int | None = None
    for frame in full_msgs:
        msg = msgpack.unpackb(frame, raw=False)
        if msg.get("kind") not in ("changes", "update"):
            continue
        changed = msg.get("set") or {} if msg["kind"] == "changes" else msg
        shoe_seq = ((changed.get("devices") or {}).get("shoe") or {}).get("seq")
        if shoe_seq is None or shoe_seq == last:
            continue
        last = shoe_seq
        got = public_at.get((msg["boot"], msg["seq"]))
        times = sent.get(shoe_seq, [])
        i = bisect.bisect_right(times, got) - 1 if got is not None else -1
        if got is not None and i >= 0:
            out.append((times.pop(i), got, msg["seq"]))
    return out


def _last(stamps: Sequence[Stamp], times: Sequence[float], kind: str, before: float,
          match: Callable[[Any], bool] = lambda _: True) -> Stamp | None:
    """The last stamp of `kind` at or before `before`."""
    i = bisect.bisect_right(times, before) - 1
    while i >= 0:
        if stamps[i][0] == kind and match(stamps[i][2]):
            return stamps[i]
        i -= 1
    return None


def _first(stamps: Sequence[Stamp], times: Sequence[float], kind: str, after: float,
           match: Callable[[Any], bool] = lambda _: True) -> Stamp | None:
    """The first stamp of `kind` at or after `after`."""
    for i in range(bisect.bisect_left(times, after), len(stamps)):
        if stamps[i][0] == kind and match(stamps[i][2]):
            return stamps[i]
    return None


def legs(stamps: Sequence[Stamp], matches: Sequence[tuple[float, float, int]], device: str) -> list[dict[str, float]]:
    """Each timed reading's legs (`LEGS`, seconds), from its frame's last byte (t0) to its public update (t1)."""
    stamps = sorted(stamps, key=lambda s: s[1])
    times = [t for _, t, _ in stamps]
    out = []
    for t0, t1, seq in matches:
        published = _first(stamps, times, "p1", t0, lambda v: v == seq)
        read = _first(stamps, times, "read", t0, lambda v: isinstance(v, tuple) and v[0] == device and v[1] > 0)
        if published is None or read is None or read[1] > published[1]:
            continue
        start = _last(stamps, times, "pump0", read[1], lambda v: v == device)
        received = _first(stamps, times, "recv", read[1], lambda v: v == device)
        handled = _last(stamps, times, "h0", published[1])
        commit0 = _last(stamps, times, "c0", published[1])
        commit1 = _last(stamps, times, "c1", published[1])
        if None in (start, received, handled, commit0, commit1):
            continue
        assert start and received and handled and commit0 and commit1
        began = max(t0, start[1])
        points = [t0, began, read[1], received[1], handled[1], commit0[1], commit1[1], published[1], t1]
        out.append({leg: max(0.0, b - a) for leg, a, b in zip(LEGS, points, points[1:])} | {"total": t1 - t0})
    return out


def summary(rows: Sequence[dict[str, float]]) -> str:
    """Each leg's median and p90 in ms."""
    if not rows:
        return "none traced"
    parts = []
    for leg in (*LEGS, "total"):
        values = sorted(r[leg] for r in rows)
        parts.append(f"{leg} {1000 * statistics.median(values):.3f}/{1000 * values[int(0.9 * (len(values) - 1))]:.3f}")
    return f"{len(rows)} traced, p50/p90 ms: " + ", ".join(parts)


if __name__ == "__main__":
    main(sys.argv[1:])
