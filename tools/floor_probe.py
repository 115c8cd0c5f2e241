"""Probe (a copy of the lead's tools/s19/probe.py; floor-sim's CPU with its children, py-spy from this venv, profiles to $PROBE_OUT): floor-sim N tables at 10x + pit, py-spy on the pit; prints floor-sim's report and CPU per message."""
import json, os, subprocess, sys, time, tempfile
from pathlib import Path
sys.path.insert(0, os.getcwd())
from tests.floor.pgserver import PgServer
from floor.migrate import migrate

def cpu(pid):
    with open(f"/proc/{pid}/stat") as f:
        parts = f.read().rsplit(")", 1)[1].split()
    return (int(parts[11]) + int(parts[12])) / os.sysconf("SC_CLK_TCK")

def tree(pid):
    """pid and its descendants (floor-sim's watcher process)."""
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        try:
            for t in os.listdir(f"/proc/{p}/task"):
                todo += [int(c) for c in open(f"/proc/{p}/task/{t}/children").read().split()]
        except OSError:
            pass
    return out

def tree_cpu(pid):
    total = 0.0
    for p in tree(pid):
        try:
            total += cpu(p)
        except OSError:
            pass
    return total

def rss(pid):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmRSS"):
            return int(line.split()[1]) // 1024

OUT = os.environ.get("PROBE_OUT", "/tmp")
tables, seconds, spy = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3] if len(sys.argv) > 3 else ""
tmp = Path(tempfile.mkdtemp(prefix="probe"))
pg = PgServer(); pg.start(); db = pg.create_database("probe"); migrate(db)
try:
    config = tmp / "pit.toml"
    sim = subprocess.Popen([sys.executable, "-m", "cli", "floor-sim", "--pit-config", str(config),
        "--pit-listen", f"ipc://{tmp}/floor", "--pit-snapshot", f"ipc://{tmp}/floor-snap", "--db", db,
        "--heartbeat-s", "0.5", "--tables", str(tables), "--speed", "10", "--duration", str(seconds),
        "--pit-wait", "300", "--watch"], stdout=subprocess.PIPE, stderr=open(tmp / "sim.log", "ab"), text=True)
    while not config.exists(): time.sleep(0.1)
    pit = subprocess.Popen([sys.executable, "-m", "cli", "pit", "--config", str(config), "--log-level", "WARNING"],
                           stderr=open(tmp / "pit.log", "ab"))
    time.sleep(3)
    c0, s0, w0, t0 = cpu(pit.pid), cpu(sim.pid), tree_cpu(sim.pid), time.monotonic()
    spies = []
    if spy:
        watchers = [p for p in tree(sim.pid) if p != sim.pid]
        for name, pid in (("pit", pit.pid), ("sim", sim.pid), *(("watch", p) for p in watchers[:1])):
            spies.append(subprocess.Popen([os.path.join(os.path.dirname(sys.executable), "py-spy"), "record", "-p", str(pid), "-d", str(min(30, seconds - 5)),
                "-f", "raw", "-o", f"{OUT}/{spy}-{name}.txt", "-r", "50", "--nonblocking"],
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
    maxrss = 0
    while sim.poll() is None and time.monotonic() - t0 < seconds - 4:
        time.sleep(1); maxrss = max(maxrss, rss(pit.pid))
    c1, s1, w1, t1 = cpu(pit.pid), cpu(sim.pid), tree_cpu(sim.pid), time.monotonic()
    for p in tree(sim.pid):  # CPU seconds so far of each thread of floor-sim's processes
        threads = {}
        for t in os.listdir(f"/proc/{p}/task"):
            comm = open(f"/proc/{p}/task/{t}/comm").read().strip()
            threads[comm] = round(threads.get(comm, 0) + cpu(f"{p}/task/{t}"), 1)
        print("threads of", p, threads)
    out, _ = sim.communicate(timeout=600)
    report = json.loads(out.strip().splitlines()[-1])
    pit.terminate(); pit.wait(20)
    msgs = report["messages"]
    el = t1 - t0
    print(json.dumps(report))
    print(f"window {el:.1f}s pit cpu {c1-c0:.1f}s ({(c1-c0)/el:.2f} core), sim cpu {s1-s0:.1f}s ({(s1-s0)/el:.2f} core); "
          f"rate ~{msgs/seconds:.0f} msg/s; pit us/msg ~{(c1-c0)/(msgs*el/seconds)*1e6:.0f}; sim us/msg ~{(s1-s0)/(msgs*el/seconds)*1e6:.0f} (tables' process), ~{(w1-w0)/(msgs*el/seconds)*1e6:.0f} (with its children); pit rss {maxrss} MiB; load {os.getloadavg()}")
finally:
    pg.close()
