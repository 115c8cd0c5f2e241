"""The Raspberry Pi deployment: systemd unit, udev rule, install script (dry runs in a temp root)."""

from __future__ import annotations

import dataclasses
import re
import shlex
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest

from cli import COMMANDS, build_parser
from protocol import access
from firmware_host.service.config import ChipReaderConfig, Config
from protocol.config import SecurityConfig

ROOT = Path(__file__).resolve().parent.parent
DEPLOY = ROOT / "deploy"
SCRIPT = DEPLOY / "install-pi.sh"
UNIT = DEPLOY / "croupier.service"
DISPLAY_UNIT = DEPLOY / "croupier-display.service"
PIT_UNIT = DEPLOY / "croupier-pit.service"
DIRECTOR_UNIT = DEPLOY / "croupier-tournament.service"
PIT_WEB_UNIT = DEPLOY / "croupier-pit-web.service"
FIREWALL_UNIT = DEPLOY / "croupier-firewall.service"
RULES = DEPLOY / "99-croupier-shoe.rules"
CHIP_RULES = DEPLOY / "99-croupier-chips.rules"


def parse_unit(text: str) -> dict[str, dict[str, list[str]]]:
    """A systemd unit as section -> key -> values (keys may repeat); comments and blanks dropped."""
    sections: dict[str, dict[str, list[str]]] = {}
    current: dict[str, list[str]] | None = None
    for number, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line or line.startswith(("#", ";")):
            continue
        if line.startswith("[") and line.endswith("]"):
            current = sections.setdefault(line[1:-1], {})
            continue
        key, sep, value = line.partition("=")
        assert sep and current is not None, f"croupier.service line {number}: not KEY=VALUE in a section: {line!r}"
        assert not value.endswith("\\"), f"croupier.service line {number}: continuation lines not expected"
        current.setdefault(key.strip(), []).append(value.strip())
    return sections


def run_script(*args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    # Every call names --root (a temporary directory) or --dry-run with --root: never the real /.
    assert "--root" in args
    return subprocess.run(["bash", str(SCRIPT), *args], capture_output=True, text=True, check=check, timeout=60)


# -- systemd unit ---------------------------------------------------------------------------------


def test_unit_has_service_user_restart_stop_and_hardening() -> None:
    unit = parse_unit(UNIT.read_text(encoding="utf-8"))
    assert set(unit) == {"Unit", "Service", "Install"}
    service = unit["Service"]
    one = {key: values[-1] for key, values in service.items()}
    assert one["User"] == "croupier"
    assert set(one["SupplementaryGroups"].split()) == {"dialout", "gpio", "spi"}
    assert one["Restart"] == "always"
    assert one["KillSignal"] == "SIGTERM"
    assert int(one["TimeoutStopSec"]) > 0
    assert one["ProtectSystem"] == "strict"
    assert one["ReadWritePaths"] == "/var/lib/croupier"
    assert one["NoNewPrivileges"] == "yes"
    assert one["StateDirectory"] == "croupier"  # /var/lib/croupier, owned by the service user
    assert one["RuntimeDirectory"] == "croupier"  # /run/croupier: the full feed's ipc:// sockets
    assert one["WorkingDirectory"] == "/var/lib/croupier"  # writable under ProtectSystem=strict
    assert {"char-ttyUSB rw", "char-gpiochip rw"} <= set(service["DeviceAllow"])
    # the pn5180 chip reader's spidev: its major is registered as "spi" (/proc/devices), group spi on a Pi
    assert ChipReaderConfig().spi.startswith("/dev/spidev")
    assert "char-spi rw" in service["DeviceAllow"]
    assert unit["Install"]["WantedBy"] == ["multi-user.target"]


def test_unit_execstart_is_a_croupier_run_with_the_pi_config() -> None:
    unit = parse_unit(UNIT.read_text(encoding="utf-8"))
    (exec_start,) = unit["Service"]["ExecStart"]
    argv = shlex.split(exec_start)
    assert argv[0] == "/opt/croupier/venv/bin/croupier"
    assert argv[1] in COMMANDS and argv[1] == "run"
    args = build_parser("run").parse_args(argv[1:])  # the subcommand takes these options
    assert (args.config, args.state) == ("/etc/croupier/table.toml", "/var/lib/croupier")
    # /etc/croupier/table.toml is installed from deploy/pi.toml: it parses, the shoe is the udev name
    cfg = Config.load(DEPLOY / "pi.toml")
    assert cfg.shoe.url == "/dev/croupier-shoe"
    assert cfg.gpio.backend == "gpio" and cfg.gpio.pin_factory == "lgpio"
    ipc_paths = [ep[len("ipc://"):] for ep in (cfg.feed.full, cfg.feed.full_snapshot) if ep.startswith("ipc://")]
    assert all(p.startswith("/run/croupier/") for p in ipc_paths)  # inside the unit's RuntimeDirectory


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="systemd-analyze not installed")
@pytest.mark.parametrize("unit", [UNIT, DISPLAY_UNIT, PIT_UNIT, PIT_WEB_UNIT, DIRECTOR_UNIT, FIREWALL_UNIT],
                         ids=lambda u: u.name)
def test_unit_passes_systemd_analyze_verify(tmp_path: Path, unit: Path) -> None:
    # The venv's path does not exist here: point ExecStart at this checkout's croupier instead.
    croupier = shutil.which("croupier", path=str(Path(sys.executable).parent)) or sys.executable
    text = unit.read_text(encoding="utf-8").replace("/opt/croupier/venv/bin/croupier", croupier)
    (tmp_path / unit.name).write_text(text, encoding="utf-8")
    result = subprocess.run(["systemd-analyze", "verify", str(tmp_path / unit.name)],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert unit.name not in result.stderr, result.stderr  # no setting ignored (a bad value is only a warning)


# -- the controller's scheduling: real-time, modest, and run so by the benches -----------------------


def test_the_controller_runs_at_a_modest_real_time_priority_it_cannot_raise() -> None:
    """docs/deploy.md, "Scheduling": above every ordinary process, below the kernel's threaded interrupts (50);
    every thread it starts keeps it (no reset on fork: ZeroMQ's I/O thread sends the feed); the process may not
    raise any priority itself; a loop stuck busy is killed by the watchdog."""
    one = {key: values[-1] for key, values in parse_unit(UNIT.read_text(encoding="utf-8"))["Service"].items()}
    assert one["CPUSchedulingPolicy"] in ("fifo", "rr")
    assert 1 <= int(one["CPUSchedulingPriority"]) < 50
    assert one.get("CPUSchedulingResetOnFork", "no") == "no"
    assert one["RestrictRealtime"] == "yes" and one["LimitRTPRIO"] == "0"
    assert one["Type"] == "notify" and 0 < int(one["WatchdogSec"]) <= 10
    display = {key: values[-1] for key, values in parse_unit(DISPLAY_UNIT.read_text(encoding="utf-8"))["Service"].items()}
    assert display.get("CPUSchedulingPolicy", "other") == "other"  # the pages stay below it


def test_a_bench_runs_the_controller_as_its_unit_deploys_it() -> None:
    """The benches read the controller's scheduling from its unit (one place) and set it in the child they spawn,
    as systemd does before ExecStart=."""
    from bench._units import POLICIES, Scheduling
    from sim.restarter import spawn
    one = {key: values[-1] for key, values in parse_unit(UNIT.read_text(encoding="utf-8"))["Service"].items()}
    deployed = Scheduling.of(UNIT)
    assert (deployed.policy, deployed.priority, deployed.nice) == (
        one["CPUSchedulingPolicy"], int(one["CPUSchedulingPriority"]), int(one.get("Nice", "0")))
    here = deployed.applicable()
    if here.policy != deployed.policy:
        pytest.skip(f"a real-time policy is not permitted here: {here}")
    child = spawn([sys.executable, "-c", "import os; print(os.sched_getscheduler(0), os.sched_getparam(0).sched_priority, "
                   "os.getpriority(os.PRIO_PROCESS, 0))"], setup=here.preexec)
    out, _ = child.communicate(timeout=30)
    assert out.split() == [str(POLICIES[deployed.policy]).encode(), str(deployed.priority).encode(),
                           str(deployed.nice).encode()]



def test_a_benchs_instruments_run_above_the_controller_they_time(monkeypatch: pytest.MonkeyPatch) -> None:
    """The emulated devices and the listening process stand for a device and another machine: above a real-time
    controller (docs/benchmarks.md, "What the benches run"); at the bench's own policy beside an ordinary one;
    CROUPIER_BENCH_INSTRUMENT_PRIORITY sets another (0: the ordinary policy)."""
    from bench._units import INSTRUMENTS_ABOVE, Scheduling
    monkeypatch.delenv("CROUPIER_BENCH_INSTRUMENT_PRIORITY", raising=False)
    controller = Scheduling.controller()
    if controller.policy == "other":
        pytest.skip(f"a real-time policy is not permitted here: {controller}")
    above = Scheduling.instruments()
    assert (above.policy, above.priority) == ("fifo", controller.priority + INSTRUMENTS_ABOVE)
    assert above.priority < 50  # still below the kernel's threaded interrupts
    monkeypatch.setenv("CROUPIER_BENCH_INSTRUMENT_PRIORITY", "0")
    assert (Scheduling.instruments().policy, Scheduling.instruments().priority) == ("other", 0)
    monkeypatch.setenv("CROUPIER_BENCH_CONTROLLER_UNIT", str(UNIT.parent / "croupier-display.service"))
    monkeypatch.delenv("CROUPIER_BENCH_INSTRUMENT_PRIORITY")
    assert Scheduling.instruments().policy == "other"  # an ordinary controller: the instruments at the bench's own

# -- the display's unit: beside the controller, below it -----------------------------------------

_HARDENING = ("ProtectSystem", "ProtectHome", "PrivateTmp", "NoNewPrivileges", "DevicePolicy", "ProtectKernelTunables",
              "ProtectKernelModules", "ProtectKernelLogs", "ProtectControlGroups", "ProtectClock", "ProtectHostname",
              "RestrictNamespaces", "RestrictRealtime", "RestrictSUIDSGID", "LockPersonality", "CapabilityBoundingSet",
              "AmbientCapabilities", "SystemCallArchitectures", "SystemCallFilter", "UMask", "User", "Group",
              "Restart", "RestartPreventExitStatus", "KillSignal")


def test_display_unit_runs_below_the_controller_hardened_as_it_is() -> None:
    controller = parse_unit(UNIT.read_text(encoding="utf-8"))["Service"]
    unit = parse_unit(DISPLAY_UNIT.read_text(encoding="utf-8"))
    assert set(unit) == {"Unit", "Service", "Install"}
    service = unit["Service"]
    one = {key: values[-1] for key, values in service.items()}
    for key in _HARDENING:  # the controller's hardening, setting by setting
        assert service.get(key) == controller[key], key
    assert int(one["Nice"]) == 10 and int(controller.get("Nice", ["0"])[-1]) == 0  # the controller first
    assert int(one["CPUWeight"]) < 100  # below the default weight the controller has
    assert one["IOSchedulingClass"] == "idle"
    ordering = {key: values[-1].split() for key, values in unit["Unit"].items()}
    assert "croupier.service" in ordering["After"] and "croupier.service" in ordering["Wants"]
    assert "RuntimeDirectory" not in service  # /run/croupier is the controller's: stopping the display keeps it
    assert "DeviceAllow" not in service and "SupplementaryGroups" not in service  # no shoe, no GPIO
    assert "PartOf" not in unit["Unit"] and "BindsTo" not in unit["Unit"]  # a controller restart leaves it be
    assert unit["Install"]["WantedBy"] == ["multi-user.target"]


def _pi_display_config(root: Path) -> Path:
    """deploy/display.toml with /etc/croupier under `root`, and the key files and users file it names made there."""
    etc = root / "etc/croupier"
    (etc / "keys").mkdir(parents=True)
    for name, role in (("table", "table"), ("display", "display"), ("console", "dealer")):
        subprocess.run([sys.executable, "-m", "cli", "keys", "new", name, "--role", role,
                        "--dir", str(etc / "keys")], check=True, capture_output=True, timeout=60)
    (etc / "users.json").write_text("{}\n", encoding="utf-8")
    (etc / "users.json").chmod(0o640)  # as `croupier users add` leaves it: others may not read the PINs' hashes
    subprocess.run([sys.executable, "-m", "cli", "keys", "tls", "--dir", str(etc / "tls"),
                    "--host", "croupier-t1.local"], check=True, capture_output=True, timeout=60)
    config = etc / "display.toml"
    config.write_text((DEPLOY / "display.toml").read_text(encoding="utf-8").replace("/etc/croupier/", f"{etc}/"),
                      encoding="utf-8")
    return config


def test_display_unit_execstart_is_a_croupier_display_with_a_config_that_checks(tmp_path: Path) -> None:
    from firmware_host.display.config import DisplayConfig

    unit = parse_unit(DISPLAY_UNIT.read_text(encoding="utf-8"))
    (exec_start,) = unit["Service"]["ExecStart"]
    argv = shlex.split(exec_start)
    assert argv[0] == "/opt/croupier/venv/bin/croupier"
    assert argv[1] in COMMANDS and argv[1] == "display"
    args = build_parser("display").parse_args(argv[1:])
    assert args.config == "/etc/croupier/display.toml" and not args.check
    # /etc/croupier/display.toml is installed from deploy/display.toml: with its key files made it checks
    config = _pi_display_config(tmp_path)
    done = subprocess.run([sys.executable, "-m", "cli", "display", "--config", str(config), "--check"],
                          capture_output=True, text=True, timeout=60, check=False)
    assert (done.returncode, done.stdout.strip()) == (0, f"configuration ok: {config}"), done.stderr
    cfg = DisplayConfig.load(config)
    pi = Config.load(DEPLOY / "pi.toml")
    port = lambda endpoint: endpoint.rpartition(":")[2]  # noqa: E731
    # it follows this Pi's controller: the ports of pi.toml's feed and command channel, on loopback
    assert [port(e) for e in (cfg.public, cfg.snapshot, cfg.commands or "")] == \
        [port(e) for e in (pi.feed.public, pi.feed.snapshot, pi.commands.endpoint)]
    assert all(e.startswith("tcp://127.0.0.1:") for e in (cfg.public, cfg.snapshot, cfg.commands or ""))
    assert cfg.key is not None and cfg.server_key is not None and cfg.dealer_key is not None  # CURVE, as pi.toml's
    assert cfg.heartbeat_s == pi.feed.heartbeat_s


def test_display_check_names_a_missing_key_file(tmp_path: Path) -> None:
    config = _pi_display_config(tmp_path)
    (tmp_path / "etc/croupier/keys/display.key_secret").unlink()
    done = subprocess.run([sys.executable, "-m", "cli", "display", "--config", str(config), "--check"],
                          capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 2 and "display.key_secret" in done.stderr and "Traceback" not in done.stderr


# -- udev rule ------------------------------------------------------------------------------------


def _rule(path: Path) -> dict[str, str]:
    """The one rule of a rules file as key -> value (`ATTRS{idVendor}` -> `0403`)."""
    lines = [ln for ln in path.read_text(encoding="utf-8").splitlines() if ln.strip() and not ln.startswith("#")]
    assert len(lines) == 1, path.name
    return dict(re.findall(r'([A-Z]+(?:\{\w+\})?)\s*[=!+:]?=\s*"([^"]*)"', lines[0]))


@pytest.mark.parametrize(("rules", "name"), [(RULES, "croupier-shoe"), (CHIP_RULES, "croupier-chips")],
                         ids=["shoe", "chips"])
def test_udev_rule_names_the_device_for_dialout(rules: Path, name: str) -> None:
    pairs = _rule(rules)
    assert pairs["SUBSYSTEM"] == "tty"
    assert re.fullmatch(r"[0-9a-f]{4}", pairs["ATTRS{idVendor}"])
    assert re.fullmatch(r"[0-9a-f]{4}", pairs["ATTRS{idProduct}"])
    assert pairs["SYMLINK"] == name
    assert pairs["GROUP"] == "dialout"
    assert pairs["MODE"] == "0660"
    comments = rules.read_text(encoding="utf-8")
    assert "CHANGE ME" in comments and "udevadm info" in comments


def test_the_shoe_and_the_chip_board_are_told_apart() -> None:
    # Two rules matching one device would give it both names: the placeholders differ, and the rules say how to
    # tell two adapters of one kind apart (their serial numbers).
    shoe, chips = _rule(RULES), _rule(CHIP_RULES)
    ids = ("ATTRS{idVendor}", "ATTRS{idProduct}", "ATTRS{serial}")
    assert tuple(shoe.get(k) for k in ids) != tuple(chips.get(k) for k in ids)
    assert "ATTRS{serial}" in CHIP_RULES.read_text(encoding="utf-8")


def test_pi_config_reads_the_chip_board_by_its_udev_name(tmp_path: Path) -> None:
    # deploy/pi.toml's [chip_reader] is commented out (no reader: bets tapped); uncommented, it reads the board at the
    # name the chips' rule gives it
    text = (DEPLOY / "pi.toml").read_text(encoding="utf-8")
    block = re.search(r"^# \[chip_reader\].*?(?=^\S*\[|\Z)", text, re.M | re.S)
    assert block is not None
    lines = [ln[2:] if ln.startswith("# ") and not ln.startswith("#  ") else ln for ln in block.group(0).splitlines()]
    conf = tmp_path / "table.toml"
    conf.write_text(text.replace(block.group(0), "\n".join(lines) + "\n"), encoding="utf-8")
    cfg = Config.load(conf)
    assert cfg.chip_reader.url == f"/dev/{_rule(CHIP_RULES)['SYMLINK']}"


# -- install script -------------------------------------------------------------------------------


def test_install_script_is_valid_bash() -> None:
    subprocess.run(["bash", "-n", str(SCRIPT)], check=True, timeout=30)
    assert SCRIPT.read_text(encoding="utf-8").splitlines()[1:20].count("set -euo pipefail") == 1


def test_dry_run_prints_every_step_and_changes_nothing(tmp_path: Path) -> None:
    out = run_script("--dry-run", "--root", str(tmp_path)).stdout
    assert list(tmp_path.iterdir()) == []  # nothing written
    expected = [
        "skip (--root): useradd --system --user-group --home-dir /var/lib/croupier",
        "skip (--root): usermod --append --groups dialout,gpio,spi croupier",
        f"would run: install -d -m 0750 {tmp_path}/var/lib/croupier",
        f"would run: python3 -m venv --system-site-packages {tmp_path}/opt/croupier/venv",
        f"would run: cp -r {ROOT}/engine ",
        f"would run: cp -r {ROOT}/cli ",
        "-m pip install --quiet --no-compile --upgrade /",
        f"would run: install -m 0644 {UNIT} {tmp_path}/etc/systemd/system/croupier.service",
        f"would run: install -m 0644 {DISPLAY_UNIT} {tmp_path}/etc/systemd/system/croupier-display.service",
        f"would run: install -m 0644 {RULES} {tmp_path}/etc/udev/rules.d/99-croupier-shoe.rules",
        f"would run: install -m 0644 {CHIP_RULES} {tmp_path}/etc/udev/rules.d/99-croupier-chips.rules",
        f"would run: install -m 0640 {DEPLOY / 'pi.toml'} {tmp_path}/etc/croupier/table.toml",
        f"would run: install -m 0640 {DEPLOY / 'display.toml'} {tmp_path}/etc/croupier/display.toml",
        f"keys tls --dir {tmp_path}/etc/croupier/tls --host ",
        f"would run: chmod 0640 {tmp_path}/etc/croupier/tls/display.key",
        "skip (--root): udevadm control --reload-rules",
        "skip (--root): systemctl daemon-reload",
        "skip (--root): systemctl enable croupier.service",
        "skip (--root): systemctl enable croupier-display.service",
        "done (dry run: nothing changed)",
    ]
    positions = [out.find(step) for step in expected]
    assert -1 not in positions, [s for s, p in zip(expected, positions) if p == -1]
    assert positions == sorted(positions)  # in this order
    # only what the Pi runs is installed: the table's folders, not the floor, the analysis or the simulations
    assert [f"{ROOT}/{folder}" in out for folder in ("floor", "analysis", "sim")] == [False] * 3


def test_install_into_a_root_twice_keeps_an_edited_config(tmp_path: Path) -> None:
    first = run_script("--root", str(tmp_path), "--no-venv")
    assert (tmp_path / "etc/systemd/system/croupier.service").read_bytes() == UNIT.read_bytes()
    assert (tmp_path / "etc/systemd/system/croupier-display.service").read_bytes() == DISPLAY_UNIT.read_bytes()
    display_conf = tmp_path / "etc/croupier/display.toml"
    assert display_conf.read_bytes() == (DEPLOY / "display.toml").read_bytes()
    assert (tmp_path / "etc/udev/rules.d/99-croupier-shoe.rules").read_bytes() == RULES.read_bytes()
    assert (tmp_path / "etc/udev/rules.d/99-croupier-chips.rules").read_bytes() == CHIP_RULES.read_bytes()
    conf = tmp_path / "etc/croupier/table.toml"
    assert conf.read_bytes() == (DEPLOY / "pi.toml").read_bytes()
    assert (tmp_path / "var/lib/croupier").is_dir()
    assert "venv left alone" in first.stdout
    assert not (tmp_path / "opt/croupier/venv").exists()

    conf.write_text(conf.read_text(encoding="utf-8").replace('name = "uth-07"', 'name = "uth-12"'),
                    encoding="utf-8")
    display_conf.write_text(display_conf.read_text(encoding="utf-8").replace('"0.0.0.0:8080"', '"0.0.0.0:8443"'),
                            encoding="utf-8")
    chip_rules = tmp_path / "etc/udev/rules.d/99-croupier-chips.rules"
    chip_rules.write_text(chip_rules.read_text(encoding="utf-8").replace("0483", "16c0"), encoding="utf-8")
    second = run_script("--root", str(tmp_path), "--no-venv")
    assert f"ok: keeping {conf}" in second.stdout and f"ok: keeping {display_conf}" in second.stdout
    assert f"ok: keeping {chip_rules}" in second.stdout and "16c0" in chip_rules.read_text(encoding="utf-8")
    assert (tmp_path / "etc/udev/rules.d/99-croupier-shoe.rules").read_bytes() == RULES.read_bytes()  # as shipped
    assert 'name = "uth-12"' in conf.read_text(encoding="utf-8")  # the technician's edit survives
    assert Config.load(conf).table.name == "uth-12"
    assert 'listen = "0.0.0.0:8443"' in display_conf.read_text(encoding="utf-8")
    dry = run_script("--dry-run", "--root", str(tmp_path))
    ran = "".join(ln for ln in dry.stdout.splitlines(True) if ln.startswith("would run"))
    assert "table.toml" not in ran and "display.toml" not in ran
    assert "croupier-display.service" in ran  # the unit is refreshed on every run


def test_unknown_option_is_refused(tmp_path: Path) -> None:
    result = run_script("--root", str(tmp_path), "--frobnicate", check=False)
    assert result.returncode == 2
    assert "unknown option: --frobnicate" in result.stderr
    assert list(tmp_path.iterdir()) == []


# -- command lines quoted in the example configurations ---------------------------------------------

_CROUPIER_LINE = re.compile(r"(?<![\w-])(?:[\w./-]*/)?croupier ((?:%s)(?![\w-])[^`()#\n]*)"
                            % "|".join(map(re.escape, COMMANDS)))


def quoted_command_lines(path: Path) -> list[list[str]]:
    """Every `croupier ...` command line in a TOML file's comments, as argv after `croupier`.

    A comment line ending in `\\` continues on the next comment line, as in a shell.
    """
    comments: list[str] = []
    pending = ""
    for line in path.read_text(encoding="utf-8").splitlines():
        _, sep, comment = line.partition("#")
        if not sep:
            continue
        comment = pending + comment.strip()
        if comment.endswith("\\"):
            pending = comment[:-1] + " "
            continue
        pending = ""
        comments.append(comment)
    return [shlex.split(m.group(1)) for c in comments for m in _CROUPIER_LINE.finditer(c)]


def test_every_command_line_in_the_deploy_configurations_is_taken_by_croupier() -> None:
    found = {p.name: quoted_command_lines(p) for p in sorted(DEPLOY.glob("*.toml"))}
    assert ["sim-shoe", "--tcp", "127.0.0.1:7000"] in found["sim.toml"]
    assert ["run", "--config", "/etc/croupier/table.toml", "--state", "/var/lib/croupier"] in found["pi.toml"]
    for name, lines in found.items():
        assert lines, f"{name}: no croupier command line found in its comments"
        for argv in lines:
            try:
                args = build_parser(argv[0]).parse_args(argv)
            except SystemExit as exc:
                pytest.fail(f"deploy/{name}: `croupier {shlex.join(argv)}` is refused (exit {exc.code})")
            config = getattr(args, "config", None)
            if config is not None and config.startswith("deploy/"):
                Config.load(ROOT / config)  # the configuration it names loads


def test_sim_config_points_the_shoe_at_the_emulator_its_comment_starts() -> None:
    (argv,) = [a for a in quoted_command_lines(DEPLOY / "sim.toml") if a[0] == "sim-shoe"]
    host, port = build_parser("sim-shoe").parse_args(argv).tcp
    assert Config.load(DEPLOY / "sim.toml").shoe.url == f"socket://{host}:{port}"


def test_install_makes_the_key_directories_and_the_tables_key(tmp_path: Path) -> None:
    dry = run_script("--dry-run", "--root", str(tmp_path)).stdout
    keys_dir = f"{tmp_path}/etc/croupier/keys"
    assert f"would run: install -d -m 0750 {keys_dir} {tmp_path}/etc/croupier/clients" in dry
    (line,) = [ln for ln in dry.splitlines() if " keys new " in ln]
    argv = shlex.split(line.removeprefix("would run: "))
    assert argv[0] == f"{tmp_path}/opt/croupier/venv/bin/croupier"
    assert argv[1:] == ["keys", "new", "table", "--role", "table", "--dir", keys_dir]
    if "keys" in COMMANDS:  # the command the script runs is the one `croupier keys` takes
        build_parser("keys").parse_args(argv[1:])
    assert f"would run: chmod 0640 {keys_dir}/table.key_secret" in dry
    assert list(tmp_path.iterdir()) == []
    done = run_script("--root", str(tmp_path), "--no-venv").stdout  # no croupier there to make the key
    for name in ("keys", "clients"):
        assert (tmp_path / "etc/croupier" / name).stat().st_mode & 0o777 == 0o750
    assert "next: make the table's key: croupier keys new table --role table --dir /etc/croupier/keys" in done
    (tmp_path / "etc/croupier/keys/table.key_secret").write_text("made\n", encoding="utf-8")
    again = run_script("--dry-run", "--root", str(tmp_path)).stdout
    assert f"ok: keeping the table's key {keys_dir}/table.key_secret" in again and " keys new " not in again


def _indented_toml(text: str, first: str) -> dict[str, Any]:
    """The indented TOML block of docs/deploy.md whose first line is `first`, parsed."""
    lines = text.splitlines()
    start = lines.index("    " + first)
    block: list[str] = []
    for line in lines[start:]:
        if line and not line.startswith("    "):
            break
        block.append(line[4:])
    return tomllib.loads("\n".join(block))


def test_the_secure_set_up_shows_the_real_defaults_and_every_security_key() -> None:
    text = (ROOT / "docs" / "deploy.md").read_text(encoding="utf-8")
    tables = _indented_toml(text, "[access]          # socket -> the roles whose keys may connect to it")
    assert tables["access"] == {k: list(v) for k, v in access.DEFAULT_ACCESS.items()}
    assert tables["rights"] == {k: list(v) for k, v in access.DEFAULT_RIGHTS.items()}
    security = _indented_toml(text, "[security]")["security"]
    assert set(security) <= {f.name for f in dataclasses.fields(SecurityConfig)}
    assert {"server_key", "clients", "users", "manifest", "manifest_key", "profiles", "local_role",
            "full_delay_s"} <= set(security)


# -- the floor server: the pit aggregator and the tournament director ---------------------------------

def _floor_configs(root: Path) -> tuple[Path, Path]:
    """deploy/pit.toml and deploy/director.toml (with sunday.toml) under `root`'s /etc/croupier, with
    every key file and directory they name made there."""
    etc = root / "etc/croupier"
    keys = etc / "keys"
    keys.mkdir(parents=True)
    for name, role in (("pit-1", "pit"), ("uth-01", "table"), ("3cp-02", "table"), ("director", "pit"),
                       ("director-server", "table"), ("T1", "table"), ("T2", "table"), ("T3", "table"),
                       ("pit-web", "pit")):
        subprocess.run([sys.executable, "-m", "cli", "keys", "new", name, "--role", role,
                        "--dir", str(keys)], check=True, capture_output=True, timeout=60)
    for clients in ("floor-clients", "director-clients"):
        (keys / clients).mkdir()
    (etc / "users.json").write_text("{}\n", encoding="utf-8")
    (etc / "users.json").chmod(0o640)  # as `croupier users add` leaves it: others may not read the PINs' hashes
    out = []
    for name in ("pit.toml", "director.toml", "sunday.toml", "pit-web.toml"):
        text = (DEPLOY / name).read_text(encoding="utf-8").replace("/etc/croupier/", f"{etc}/")
        (etc / name).write_text(text, encoding="utf-8")
        out.append(etc / name)
    return out[0], out[1]


def test_the_pit_unit_runs_croupier_pit_on_a_configuration_that_loads(tmp_path: Path) -> None:
    from floor.config import PitConfig

    unit = parse_unit(PIT_UNIT.read_text(encoding="utf-8"))
    argv = shlex.split(unit["Service"]["ExecStart"][0])
    assert argv[:2] == ["/opt/croupier/venv/bin/croupier", "pit"]
    args = build_parser("pit").parse_args(argv[1:])
    assert args.config == "/etc/croupier/pit.toml" and args.action in (None, "run")  # run, the default
    assert unit["Service"]["ExecReload"] == ["/bin/kill -HUP $MAINPID"]  # `croupier pit reload`'s signal
    assert unit["Service"]["RestartPreventExitStatus"] == ["2"]  # a bad configuration is not retried
    pit_toml, _ = _floor_configs(tmp_path)
    cfg = PitConfig.load(pit_toml)
    assert cfg.serves_curve and cfg.clients is not None and cfg.name == "pit-1"
    assert cfg.pid_file.startswith(f"/run/{unit['Service']['RuntimeDirectory'][0]}/")  # writable under ProtectSystem
    assert [t.name for t in cfg.tables] == ["uth-01", "3cp-02"] and all(t.server_key for t in cfg.tables)


def test_the_pit_unit_lets_it_hold_the_descriptors_of_five_thousand_tables() -> None:
    from floor.snapshots import IN_FLIGHT

    unit = parse_unit(PIT_UNIT.read_text(encoding="utf-8"))
    # two a table's SUB, two a snapshot in flight, a margin for the floor's own sockets and the child's
    assert int(unit["Service"]["LimitNOFILE"][0]) >= 2 * 5000 + 2 * IN_FLIGHT + 2000


def test_the_floors_pages_unit_runs_croupier_pit_web_on_a_configuration_that_checks(tmp_path: Path) -> None:
    unit = parse_unit(PIT_WEB_UNIT.read_text(encoding="utf-8"))
    argv = shlex.split(unit["Service"]["ExecStart"][0])
    assert argv[:3] == ["/opt/croupier/venv/bin/croupier", "pit", "web"]
    args = build_parser("pit").parse_args(argv[1:])
    assert args.action == "web" and args.config == "/etc/croupier/pit-web.toml" and not args.check
    assert unit["Service"]["RestartPreventExitStatus"] == ["2"]  # a bad configuration is not retried
    _floor_configs(tmp_path)
    done = subprocess.run([sys.executable, "-m", "cli", "pit", "web", "--config",
                           str(tmp_path / "etc/croupier/pit-web.toml"), "--check"],
                          capture_output=True, text=True, timeout=60, check=False)
    assert (done.returncode, done.stdout.startswith("configuration ok")) == (0, True), done.stderr
    # the pit's own certificate and the director's are the ones its pit-web.toml names as the servers'
    text = (DEPLOY / "pit-web.toml").read_text(encoding="utf-8")
    assert 'pit_server_key = "/etc/croupier/keys/pit-1.key"' in text
    assert 'tournament_server_key = "/etc/croupier/keys/director-server.key"' in text


def test_the_director_unit_runs_a_configuration_that_checks(tmp_path: Path) -> None:
    unit = parse_unit(DIRECTOR_UNIT.read_text(encoding="utf-8"))
    argv = shlex.split(unit["Service"]["ExecStart"][0])
    assert argv[:2] == ["/opt/croupier/venv/bin/croupier", "tournament"]
    args = build_parser("tournament").parse_args(argv[1:])
    assert args.config == "/etc/croupier/director.toml" and not args.check
    assert args.state == f"/var/lib/{unit['Service']['StateDirectory'][0]}"  # writable under ProtectSystem
    _, director_toml = _floor_configs(tmp_path)
    done = subprocess.run([sys.executable, "-m", "cli", "tournament", "--config", str(director_toml),
                           "--check"], capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr


def test_the_tables_folders_alone_run_the_table_and_say_where_the_rest_runs(tmp_path: Path) -> None:
    # What install-pi.sh installs: the table's folders only (protocol/packages.py TABLE), here linked into a
    # directory of their own and run with the venv's libraries but without its path to this checkout.
    from protocol.packages import ELSEWHERE, TABLE
    for name in TABLE:
        (tmp_path / name).symlink_to(ROOT / name)
    site = [p for p in sys.path if p.endswith("site-packages")]
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": ":".join([str(tmp_path), *site])}

    def croupier(*args: str) -> subprocess.CompletedProcess[str]:
        code = "import sys; from cli import main; sys.exit(main(sys.argv[1:]))"
        return subprocess.run([sys.executable, "-S", "-c", code, *args], cwd=tmp_path, env=env,
                              capture_output=True, text=True, timeout=120)

    every = subprocess.run(
        [sys.executable, "-S", "-c",
         "import importlib, pkgutil, sys\n"
         f"for top in {['engine', 'drivers', 'protocol', 'pages', 'firmware_host']!r}:\n"
         "    for info in pkgutil.walk_packages(importlib.import_module(top).__path__, top + '.'):\n"
         "        importlib.import_module(info.name)\n"
         f"print(sorted(m for m in sys.modules if m.split('.')[0] in {list(ELSEWHERE)!r}))\n"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert (every.returncode, every.stdout.strip()) == (0, "[]"), every.stderr[-2000:]
    check = croupier("run", "--config", str(DEPLOY / "sim.toml"), "--check")
    assert check.returncode == 0, check.stderr
    demo = croupier("demo")
    assert demo.returncode == 2 and demo.stderr.startswith("croupier demo runs where the simulations (a test machine)")
    assert "engine, drivers, protocol, pages, firmware_host, cli" in demo.stderr
