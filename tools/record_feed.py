"""Record a simulated table's public feed and its journal's hands once, for the browser tests that check only the page (tests/web/feeds.py plays them again).

    .venv/bin/python tools/record_feed.py uth-21 --game uth --seed 21 --seats 3 --hands 16

plays the hands with the bots (`croupier demo`'s simulated table: controller, emulated shoe, bot
dealer and players, the seed deciding every card and choice) while following the table's public
feed, and writes `tests/data/feeds/NAME.jsonl.gz` (JSON lines, gzipped: a 2 MB recording is 30 KB),
one JSON object a line:

    {"kind": "recording", "table", "game", "seed", "seats", "hands", "limits", "heartbeat_s", "command"}
    {"kind": "state", "state": {...}}   each public state in the feed's order (the header's table, boot,
                                        seq and kind left out: the replay's own feed numbers them)
    {"kind": "hand", "hand": {...}}     each closed hand as `croupier history --json` prints it

Record again (the same command, on the first line of the file) when what the public feed carries
changes; the live runs of the same pages (tests/web/test_table_display.py's 3CP test) keep checking
the controller, the feed and the journal together.
"""

from __future__ import annotations

import argparse
import gzip
import json
import subprocess
import sys
import tempfile
import threading
from pathlib import Path
from typing import Any

import zmq

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from cli.demo import SimTable  # noqa: E402
from protocol.feed import FeedClient  # noqa: E402
from sim.bots import SimLimits, seat_players  # noqa: E402

LIMITS = {"minimum": 500, "maximum": 10000, "side_minimum": 100, "side_maximum": 5000, "chip": 100}


class Follower(threading.Thread):
    """The table's public feed followed from the start: each state kept (with the seq it came at)."""

    def __init__(self, public: str, snapshot: str) -> None:
        super().__init__(daemon=True)
        self.public, self.snapshot = public, snapshot
        self.states: list[tuple[int, dict[str, Any]]] = []
        self.seq = 0
        self.gaps = 0
        self.ready = threading.Event()
        self.stopping = threading.Event()

    def run(self) -> None:
        ctx: zmq.Context[Any] = zmq.Context()
        client = FeedClient(ctx, self.public, self.snapshot, timeout_s=5.0)
        try:
            while not self.stopping.is_set():
                message = client.receive(100)
                if message is None or client.state is None:
                    continue
                if message.get("kind") in ("snapshot", "update") and (not self.states or client.state != self.states[-1][1]):
                    self.states.append((client.seq, dict(client.state)))
                self.seq = client.seq
                self.ready.set()
            self.gaps = client.gaps
        finally:
            client.close()
            ctx.destroy(linger=0)


def record(name: str, game: str, seed: int, seats: int, hands: int, buttons: float) -> Path:
    """Play `hands` hands and write tests/data/feeds/NAME.jsonl.gz; returns its path."""
    with tempfile.TemporaryDirectory(prefix="croupier-record-") as tmp:
        table = SimTable(Path(tmp) / "state", game=game, seed=seed, seats=seats, limits=SimLimits(**LIMITS))
        table.start()
        try:
            follower = Follower(table.endpoints.public, table.endpoints.snapshot)
            follower.start()
            if not follower.ready.wait(20):
                raise SystemExit("no snapshot from the simulated table")
            dealer = table.dealer(players=seat_players(seats, seed), buttons=buttons)
            try:
                log = dealer.play(hands)
            finally:
                dealer.close()
            if log.hands != hands or log.faults:
                raise SystemExit(f"the bots played {log.hands} hands with faults {log.faults}")
            ctx: zmq.Context[Any] = zmq.Context()
            probe = FeedClient(ctx, table.endpoints.public, table.endpoints.snapshot, timeout_s=5.0)
            try:
                last = int(probe.fetch_snapshot()["seq"])  # the table's latest: followed up to it
            finally:
                probe.close()
                ctx.destroy(linger=0)
            while follower.seq < last:
                follower.stopping.wait(0.05)
            follower.stopping.set()
            follower.join(10)
            if follower.gaps:
                raise SystemExit(f"the recording missed messages ({follower.gaps} gaps): record again")
            done = subprocess.run([sys.executable, "-m", "cli", "history", "--state", str(table.state_dir),
                                   "--last", "0", "--json"], capture_output=True, text=True, timeout=120, check=True,
                                  cwd=ROOT)
            closed = [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
            head = {"kind": "recording", "table": table.table, "game": game, "seed": seed, "seats": seats,
                    "hands": hands, "limits": LIMITS, "heartbeat_s": table.heartbeat_s,
                    "command": f"tools/record_feed.py {name} --game {game} --seed {seed} --seats {seats} "
                               f"--hands {hands} --buttons {buttons}"}
        finally:
            table.stop()
    out = ROOT / "tests" / "data" / "feeds" / f"{name}.jsonl.gz"
    out.parent.mkdir(parents=True, exist_ok=True)
    lines = [head] + [{"kind": "state", "state": state} for _, state in follower.states] + \
        [{"kind": "hand", "hand": hand} for hand in closed]
    with gzip.GzipFile(out, "wb", mtime=0) as written:  # the same recording, the same bytes
        written.write("".join(json.dumps(line) + "\n" for line in lines).encode("utf-8"))  # keys in the feed's order
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("name")
    parser.add_argument("--game", default="uth")
    parser.add_argument("--seed", type=int, default=21)
    parser.add_argument("--seats", type=int, default=3)
    parser.add_argument("--hands", type=int, default=16)
    parser.add_argument("--buttons", type=float, default=0.2)
    args = parser.parse_args()
    path = record(args.name, args.game, args.seed, args.seats, args.hands, args.buttons)
    print(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
