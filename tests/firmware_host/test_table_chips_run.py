"""The smart table end to end: the emulated chip board, `croupier run` with `[chip_reader]` and the demo chip set, the dealer's Deal taking the bets read."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import zmq

from protocol.command_client import CommandClient
from sim.chips.board import ChipBoardClient, ChipBoardFirmware, ChipBoardServer, layout
from tests.firmware_host.processes import table_config, wait_for

DEMO_SET = Path(__file__).resolve().parents[2] / "deploy" / "chips-demo.csv"
FIVE = ["E004015000000321", "E004015000000322"]  # two EUR 5 chips of the demo set
ONE = "E004015000000001"  # a EUR 1 chip


def test_the_deal_takes_the_bets_the_board_reads(tmp_path: Path) -> None:
    board = ChipBoardServer(ChipBoardFirmware(seed=5, antennas=layout("uth", 3), boot=9, miss_rate=0.0),
                            link="tcp").start()
    config = table_config(tmp_path, f"ipc://{tmp_path}/cmd")
    config.write_text(config.read_text(encoding="utf-8") + f"""
[limits]
minimum = 500
[chip_reader]
url = "{board.port_url}"
confirm = 2
settle_ms = 100
[chips]
set = "{DEMO_SET}"
""", encoding="utf-8")
    proc = subprocess.Popen([sys.executable, "-m", "cli", "run", "--config", str(config), "--state",
                             str(tmp_path / "state"), "--log-level", "ERROR"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    ctx: zmq.Context[Any] = zmq.Context()
    client = CommandClient(ctx, f"ipc://{tmp_path}/cmd", timeout_s=10.0)
    try:
        assert proc.stdout is not None and json.loads(proc.stdout.readline())["ready"] is True
        with ChipBoardClient(board.control_address) as hand:
            hand.place("spot3.ante", FIVE[0])
            hand.place("spot3.blind", FIVE[1])
            hand.place("spot3.trips", ONE)

            def circles() -> dict[str, Any] | None:
                chips = client.request("state")["state"].get("chips") or {}
                read = {f"spot{c['seat']}.{c['circle']}": c["value"] for c in chips.get("circles", []) if c["stable"]}
                return read if chips.get("online") and len(read) == 3 else None

            assert wait_for(circles, "the three circles read, stable") == {
                "spot3.ante": 500, "spot3.blind": 500, "spot3.trips": 100}
            assert client.request("deal")["ok"]
            state = client.request("state")["state"]
            assert [(s["seat"], s["bets"]) for s in state["spots"]] == [(3, {"ante": 500, "blind": 500, "trips": 100})]
            assert state["chips"]["source"] == "chips"
            hand.place("spot3.trips", "E004015000000002")  # past-posting once the betting is closed
            fault = wait_for(lambda: client.request("state")["state"]["fault"], "the moved chips' fault")
            assert fault["kind"] == "chips_moved" and fault["say"]["args"]["circle"] == {"word": "circle.trips"}
    finally:
        client.close()
        ctx.term()
        proc.terminate()
        proc.wait(timeout=30)
        board.close()
    assert proc.returncode == 0
