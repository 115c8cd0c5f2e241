"""The controller benches' instruments: the shoe stamping each CARD frame, the listening process, the CPU meter, peak RSS.

`bench.controller_latency` times a card from the paced line to the public feed with them, and `chip_latency`,
`flood`, `controller_instructions` with it. `time.perf_counter` is CLOCK_MONOTONIC on Linux: the shoe's stamps (in
this process) and the listener's (in its own) compare.
"""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgpack
import zmq

from bench._units import Scheduling
from drivers.shoe_protocol import Decoder, MsgType
from protocol.curve import client_keys
from sim.shoe import SimShoeServer

__all__ = ["Listener", "Meter", "TimedShoe", "instrument_preexec", "listen"]


class TimedShoe(SimShoeServer):
    """The emulated shoe, noting when each CARD frame's last byte leaves the paced line."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.card_sent: list[tuple[int, float]] = []  # (frame seq, time), in the order sent
        self._watch = Decoder()

    def serve(self) -> None:
        setup = instrument_preexec()  # this thread's own priority: the shoe is a device of its own at the table
        if setup is not None:
            setup()
        super().serve()

    def _emit(self, data: bytes) -> None:
        super()._emit(data)
        now = time.perf_counter()
        for frame in self._watch.feed(data):
            if frame.kind == MsgType.CARD and not (self.card_sent and self.card_sent[-1][0] == frame.seq):
                self.card_sent.append((frame.seq, now))  # a retransmission (same seq, next) keeps the first time


def listen(public: str, full: str, key: str = "", server_key: str = "") -> None:
    """The listening process (no GIL shared with the shoe): receive the public and the full streams,
    stamping each frame as it arrives (a CURVE client with `key` and `server_key`). Standard input: `forget` (drop what came so far; answers
    `ok`), `stop` (write the pickled `(public_at, full_frames, public_frames, sizes)` on standard output and exit; `sizes`: the bytes of each stream).
    `time.perf_counter` is CLOCK_MONOTONIC on Linux: comparable across processes."""
    ctx: zmq.Context[Any] = zmq.Context()
    pub, full_sock = ctx.socket(zmq.SUB), ctx.socket(zmq.SUB)
    keys = client_keys(key or None, server_key or None)
    for sock, ep in ((pub, public), (full_sock, full)):
        if keys is not None:
            keys.apply(sock)
        sock.setsockopt(zmq.SUBSCRIBE, b"")
        sock.setsockopt(zmq.LINGER, 0)
        sock.connect(ep)
    public_at: dict[tuple[str, int], float] = {}
    full_frames: list[bytes] = []
    public_frames: list[bytes] = []
    sizes = [0, 0]  # the bytes of the public and of the full stream's frames
    stdin = sys.stdin.buffer
    poller = zmq.Poller()
    poller.register(pub, zmq.POLLIN)
    poller.register(full_sock, zmq.POLLIN)
    poller.register(stdin.fileno(), zmq.POLLIN)
    sys.stdout.buffer.write(b"ready\n")
    sys.stdout.buffer.flush()
    while True:
        for sock, _ in poller.poll(50):
            if sock == stdin.fileno():
                order = stdin.readline().strip()
                if order == b"forget":
                    public_at.clear()
                    full_frames.clear()
                    public_frames.clear()
                    sizes[:] = [0, 0]
                    sys.stdout.buffer.write(b"ok\n")
                    sys.stdout.buffer.flush()
                    continue
                sys.stdout.buffer.write(pickle.dumps((public_at, full_frames, public_frames, sizes)))
                sys.stdout.buffer.flush()
                ctx.destroy(linger=0)
                return
            while True:
                try:
                    frame = sock.recv(zmq.NOBLOCK)
                except zmq.Again:
                    break
                now = time.perf_counter()
                sizes[sock is not pub] += len(frame)
                if sock is pub:
                    head = msgpack.unpackb(frame, raw=False)
                    if head.get("kind") in ("changes", "update"):
                        public_at[(head["boot"], head["seq"])] = now
                        public_frames.append(frame)
                else:
                    full_frames.append(frame)


def instrument_preexec() -> Callable[[], None] | None:
    """What puts a process or thread of the bench's instruments (the listening process, the emulated shoe's thread)
    at their scheduling (`bench._units.Scheduling.instruments`: above the controller); None at the ordinary one. The
    shoe stamps a card's time after its write, the listener the update's on arrival: at the ordinary policy beside
    a flooding client they would time their own wait for a core, which a device and another machine do not have."""
    instruments = Scheduling.instruments()
    return None if instruments.policy == "other" else instruments.preexec


class Listener:
    """The listening process (`listen`) and the records it sends back."""

    def __init__(self, public: str, full: str, key: str = "", server_key: str = "") -> None:
        root = str(Path(__file__).resolve().parents[1])
        env = {**os.environ, "PYTHONPATH": root + os.pathsep + os.environ.get("PYTHONPATH", "")}
        self.proc = subprocess.Popen([sys.executable, "-c", "import sys; from bench._instruments import listen; "
                                      "listen(*sys.argv[1:])", public, full, key, server_key],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env, cwd=root,
                                     preexec_fn=instrument_preexec())
        assert self.proc.stdout is not None and self.proc.stdin is not None
        if self.proc.stdout.readline() != b"ready\n":
            raise RuntimeError("the listener did not start")
        self.public_at: dict[tuple[str, int], float] = {}
        self.full_msgs: list[bytes] = []
        self.public_msgs: list[bytes] = []
        self.sizes = [0, 0]  # the bytes the public and the full stream sent

    def forget(self) -> None:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(b"forget\n")
        self.proc.stdin.flush()
        self.proc.stdout.readline()

    def finish(self) -> None:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(b"stop\n")
        self.proc.stdin.flush()
        self.public_at, self.full_msgs, self.public_msgs, self.sizes = pickle.loads(self.proc.stdout.read())
        self.proc.wait(10)

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


def _cpu_s(pid: int) -> float:
    """The process's CPU time (all its threads), in seconds. Linux's CPU clock of another process
    (`clock_getcpuclockid`: `(~pid << 3) | 2`) counts nanoseconds; /proc's ticks (10 ms) are the
    fallback, too coarse for the short streams of cards."""
    try:
        return time.clock_gettime((~pid << 3) | 2)
    except OSError:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class Meter:
    """The controller's CPU and the wall time spent while the shoe streams cards (each `draw` until
    the table has taken every card of it), apart from the dealer's commands between the streams."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.cpu_s = self.wall_s = 0.0
        self._started: tuple[float, float] | None = None

    def start(self) -> None:
        self._started = (_cpu_s(self.pid), time.perf_counter())

    def stop(self) -> None:
        if self._started is not None:
            cpu0, t0 = self._started
            self.cpu_s += _cpu_s(self.pid) - cpu0
            self.wall_s += time.perf_counter() - t0
            self._started = None


def _peak_rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")
