"""`croupier demo --web`: the pages' address first, the table display and the pit in Chromium while it plays, a taken port said and avoided, the summary line last."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from pathlib import Path

from playwright.sync_api import Page


def demo(*args: str) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "firmware_host.cli", "demo", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def test_the_demo_serves_its_table_to_the_browser_and_prints_the_pages_first(page: Page, tmp_path: Path) -> None:
    proc = demo("--hands", "6", "--seed", "7", "--pace", "0.1", "--web", "127.0.0.1:0", "--state", str(tmp_path / "j"))
    try:
        assert proc.stdout is not None
        first = proc.stdout.readline()
        assert first.startswith("pages: "), first
        table_url, pit_url = first.split()[1:]
        assert table_url.endswith("/table") and pit_url.endswith("/pit")
        page.goto(pit_url)
        page.wait_for_selector("[data-table='sim-uth-1'][data-hand]:not([data-offline])")
        page.goto(table_url)
        page.wait_for_selector("main[data-table='sim-uth-1'] [data-card]")  # cards dealt, live
        out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, err
    summary = json.loads(out.splitlines()[-1])  # the summary is still the last line
    assert summary["hands"] == summary["settled"] == 6


def test_a_taken_port_is_said_and_the_pages_go_to_a_free_one() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = subprocess.run([sys.executable, "-m", "firmware_host.cli", "demo", "--hands", "1", "--web",
                               f"127.0.0.1:{port}"], capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert f"127.0.0.1:{port} is taken" in done.stderr and "Traceback" not in done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("pages: http://127.0.0.1:") and f":{port}/" not in lines[0]
    assert json.loads(lines[-1])["hands"] == 1


def test_a_bad_web_address_is_refused_and_off_serves_nothing() -> None:
    bad = subprocess.run([sys.executable, "-m", "firmware_host.cli", "demo", "--web", "8080"], capture_output=True,
                         text=True, timeout=60, check=False)
    assert bad.returncode == 2 and "--web must be HOST:PORT or off" in bad.stderr and "Traceback" not in bad.stderr
    off = subprocess.run([sys.executable, "-m", "firmware_host.cli", "demo", "--hands", "1", "--web", "off",
                          "--quiet"], capture_output=True, text=True, timeout=120, check=False)
    assert off.returncode == 0 and len(off.stdout.splitlines()) == 1 and "pages" not in off.stdout
