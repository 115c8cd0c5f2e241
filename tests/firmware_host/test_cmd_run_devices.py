"""`croupier run` with a device it cannot open: one line naming the file, section and key, no traceback."""

from __future__ import annotations

import socket
import subprocess
import sys
from pathlib import Path


def test_run_with_the_gpio_panel_port_in_use_names_the_key(tmp_path: Path) -> None:
    taken = socket.create_server(("127.0.0.1", 0))
    address = "127.0.0.1:%d" % taken.getsockname()[1]
    config = tmp_path / "table.toml"
    config.write_text(f"""
[feed]
public = "ipc://{tmp_path}/pub"
snapshot = "ipc://{tmp_path}/snap"
full = "ipc://{tmp_path}/full"
full_snapshot = "ipc://{tmp_path}/fsnap"
[commands]
endpoint = "ipc://{tmp_path}/cmd"
[gpio]
backend = "sim"
panel = "{address}"
""")
    try:
        proc = subprocess.run([sys.executable, "-m", "cli", "run", "--config", str(config),
                               "--state", str(tmp_path / "state"), "--log-level", "ERROR"],
                              capture_output=True, text=True, timeout=60)
    finally:
        taken.close()
    assert proc.returncode == 1 and "Traceback" not in proc.stderr, proc.stderr
    said = [line for line in proc.stderr.splitlines() if line.startswith("croupier run:")]
    assert said == [f"croupier run: {config}: [gpio] panel: sim panel cannot listen on {address}: "
                    "Address already in use"]
