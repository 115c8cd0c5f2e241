"""The scheduling settings of the systemd units in deploy/ (Nice=, CPUSchedulingPolicy=, ...), read once and applied to the processes a bench spawns, so that each part runs as deployed.

A bench starts the controller as `croupier.service` would: its unit's `Nice=`, `CPUSchedulingPolicy=` with
`CPUSchedulingPriority=` and `CPUAffinity=` set in the child between fork and exec (`Scheduling.preexec`), as
systemd sets them before it runs `ExecStart=`; every thread the controller starts then inherits them, as on the
Pi. What needs systemd's cgroups (`CPUWeight=`) or a disk scheduler honouring I/O priorities
(`IOSchedulingClass=`) is not applied here. A bench that may not raise a priority (not root, no RLIMIT_RTPRIO)
runs the part at what it may, and says so (`Scheduling.applicable`). `CROUPIER_BENCH_CONTROLLER_UNIT=FILE`
reads the controller's settings from another unit file (to compare settings; never for the figures). The bench's
own instruments (the emulated devices, the listening process) run above the controller (`Scheduling.instruments`).
`python -m bench._units` prints what each unit's part would run at here.

The controller also runs the engine as deployed: pure, as deploy/install-pi.sh installs it unless `--compile` asks
for the engine compiled by mypyc (docs/architecture.md, "The compiled engine"). `CROUPIER_BENCH_ENGINE=compiled`
runs a bench's controller on build/compiled instead (`make compiled` first), to compare the two forms, never for the
figures (`controller_env`); each bench says which engine its controller ran (`engine_form`).
"""

from __future__ import annotations

import dataclasses
import os
import resource
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEPLOY = ROOT / "deploy"
COMPILED_TREE = ROOT / "build" / "compiled"   # `make compiled` (tools/compile_engine.py)
CONTROLLER_UNIT = DEPLOY / "croupier.service"
DISPLAY_UNIT = DEPLOY / "croupier-display.service"
POLICIES = {"other": os.SCHED_OTHER, "batch": os.SCHED_BATCH, "idle": os.SCHED_IDLE, "fifo": os.SCHED_FIFO,
            "rr": os.SCHED_RR}
"""`CPUSchedulingPolicy=`'s words (systemd.exec(5)) and the kernel's policies."""
REALTIME = ("fifo", "rr")
INSTRUMENTS_ABOVE = 10
"""How far above a real-time controller the bench's instruments run (`Scheduling.instruments`)."""


def compiled_built() -> bool:
    """Whether `make compiled` has built the compiled engine (its shared library lies in build/compiled/engine)."""
    return any((COMPILED_TREE / "engine").glob("_compiled__mypyc.*"))


def compiled_env() -> dict[str, str]:
    """This process's environment with the compiled tree first on the path (the working directory not on it)."""
    return dict(os.environ, PYTHONSAFEPATH="1", PYTHONPATH=os.pathsep.join((str(COMPILED_TREE), str(ROOT))))


def compiled_asked() -> bool:
    """Whether `CROUPIER_BENCH_ENGINE=compiled` asks for the controller on the compiled engine (it must be built)."""
    asked = os.environ.get("CROUPIER_BENCH_ENGINE", "pure")
    if asked not in ("pure", "compiled"):
        raise SystemExit(f"CROUPIER_BENCH_ENGINE={asked!r}: give pure (the default, as deployed) or compiled")
    if asked == "compiled" and not compiled_built():
        raise SystemExit("CROUPIER_BENCH_ENGINE=compiled: no build/compiled (`make compiled` first)")
    return asked == "compiled"


def controller_env() -> dict[str, str] | None:
    """The environment a bench's controller runs in: this process's own (None: the pure engine, as the Pi's install
    deploys it), or the compiled engine's when `CROUPIER_BENCH_ENGINE=compiled` asks."""
    return compiled_env() if compiled_asked() else None


def engine_form() -> str:
    """Which engine a bench's controller runs, in words."""
    if compiled_asked():
        return "the engine compiled by mypyc (CROUPIER_BENCH_ENGINE=compiled: not the figures' form)"
    return "the pure engine, as deployed (CROUPIER_BENCH_ENGINE=compiled to compare)"


def service_settings(unit: Path) -> dict[str, str]:
    """The [Service] section's settings of a unit file, each key's last value (as systemd takes them)."""
    settings: dict[str, str] = {}
    section = ""
    for line in unit.read_text(encoding="utf-8").splitlines():
        line = line.strip()
        if not line or line.startswith(("#", ";")):
            continue
        if line.startswith("[") and line.endswith("]"):
            section = line[1:-1]
        elif section == "Service" and "=" in line:
            key, _, value = line.partition("=")
            settings[key.strip()] = value.strip()
    return settings


def _cpus(text: str) -> tuple[int, ...]:
    """`CPUAffinity=`'s list ("1", "0 2", "1-3", "0,2-3") as CPU numbers; "" is every CPU (no affinity)."""
    cpus: set[int] = set()
    for part in text.replace(",", " ").split():
        low, _, high = part.partition("-")
        cpus.update(range(int(low), int(high or low) + 1))
    return tuple(sorted(cpus))


@dataclass(frozen=True, slots=True)
class Scheduling:
    """How a unit runs its process: niceness, policy and real-time priority, the CPUs it may run on."""

    nice: int = 0
    policy: str = "other"
    priority: int = 0
    affinity: tuple[int, ...] = ()
    source: str = ""
    """The unit file it was read from, and what could not be applied here."""

    @classmethod
    def of(cls, unit: Path) -> Scheduling:
        """A unit's settings. Raises ValueError naming the unit and the setting that is not one."""
        settings = service_settings(unit)
        try:
            policy = settings.get("CPUSchedulingPolicy", "other")
            if policy not in POLICIES:
                raise ValueError(f"CPUSchedulingPolicy={policy}: not one of {', '.join(POLICIES)}")
            priority = int(settings.get("CPUSchedulingPriority", "0"))
            if policy in REALTIME and not 1 <= priority <= 99:
                raise ValueError(f"CPUSchedulingPriority={priority}: a real-time priority is 1 to 99")
            return cls(int(settings.get("Nice", "0")), policy, priority if policy in REALTIME else 0,
                       _cpus(settings.get("CPUAffinity", "")), f"{unit.parent.name}/{unit.name}")
        except ValueError as exc:
            raise ValueError(f"{unit}: {exc}") from None

    @classmethod
    def controller(cls) -> Scheduling:
        """The controller's unit (`CROUPIER_BENCH_CONTROLLER_UNIT`, else deploy/croupier.service), as applicable here."""
        return cls.of(Path(os.environ.get("CROUPIER_BENCH_CONTROLLER_UNIT") or CONTROLLER_UNIT)).applicable()

    @classmethod
    def instruments(cls) -> Scheduling:
        """The bench's instruments: the emulated shoe's and chip board's threads and the listening process. They
        stand for devices and another machine, whose wake-ups do not queue behind the table's Pi's processes, so
        they run above the controller: `SCHED_FIFO` at the controller's priority + `INSTRUMENTS_ABOVE` when it runs
        at a real-time policy, else at the bench's own. A local flooding client stays at the bench's own: a flood
        from the floor's network is the Pi's to serve. `CROUPIER_BENCH_INSTRUMENT_PRIORITY=N` sets N (0: the
        ordinary policy, to compare)."""
        nice = os.getpriority(os.PRIO_PROCESS, 0)
        asked = os.environ.get("CROUPIER_BENCH_INSTRUMENT_PRIORITY")
        controller = cls.controller()
        priority = int(asked) if asked else (controller.priority + INSTRUMENTS_ABOVE if controller.policy in REALTIME
                                             else 0)
        policy = "fifo" if priority else "other"
        source = "CROUPIER_BENCH_INSTRUMENT_PRIORITY" if asked else "above the controller" if priority else "the bench's"
        return cls(nice, policy, priority, (), source).applicable()

    def applicable(self) -> Scheduling:
        """What of it this process may set in a child: a niceness not below its own without root, a real-time
        policy only as root or within RLIMIT_RTPRIO, only CPUs it may run on itself."""
        root = os.geteuid() == 0
        nice = self.nice if root else max(self.nice, os.getpriority(os.PRIO_PROCESS, 0))
        policy, priority = self.policy, self.priority
        if policy in REALTIME and not root and resource.getrlimit(resource.RLIMIT_RTPRIO)[0] < priority:
            policy, priority = "other", 0
        mine = os.sched_getaffinity(0)
        affinity = tuple(c for c in self.affinity if c in mine)
        notes = [f"{what} not applied" for what, kept in (
            (f"Nice={self.nice}", nice == self.nice), (f"CPUSchedulingPolicy={self.policy}", policy == self.policy),
            (f"CPUAffinity={' '.join(map(str, self.affinity))}", affinity == self.affinity)) if not kept]
        source = self.source + (f" ({'; '.join(notes)}: not permitted here)" if notes else "")
        return dataclasses.replace(self, nice=nice, policy=policy, priority=priority, affinity=affinity, source=source)

    def preexec(self) -> None:
        """Set on the calling process (a child between fork and exec): what systemd sets before `ExecStart=`."""
        if self.affinity:
            os.sched_setaffinity(0, self.affinity)
        if self.nice != os.getpriority(os.PRIO_PROCESS, 0):
            os.setpriority(os.PRIO_PROCESS, 0, self.nice)
        if self.policy != "other":
            os.sched_setscheduler(0, POLICIES[self.policy], os.sched_param(self.priority))

    def __str__(self) -> str:
        policy = f"{self.policy} {self.priority}" if self.policy in REALTIME else self.policy
        cpus = f", CPUs {','.join(map(str, self.affinity))}" if self.affinity else ""
        return f"{policy}, nice {self.nice}{cpus} ({self.source})"


def main() -> int:
    print(f"the controller: {Scheduling.controller()}")
    print(f"the display: {Scheduling.of(DISPLAY_UNIT).applicable()}")
    print(f"the bench's instruments: {Scheduling.instruments()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
