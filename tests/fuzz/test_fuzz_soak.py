"""`make soak`: the three atheris (libFuzzer) harnesses, 1,000,000 inputs in all; a crash keeps its reproducer."""

from __future__ import annotations

import hashlib
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.fuzz.targets import ROOT, SEEDS

RUNS = {"commands": 700_000, "shoe": 150_000, "config": 150_000}
"""Inputs per harness: 1,000,000 in all (the decoder is the quickest, the configuration the slowest)."""
MAX_LEN = {"commands": 4096, "shoe": 256, "config": 8192}
"""The longest input libFuzzer makes per harness (a shoe stream of ~20 frames; twice the largest
shipped configuration)."""
TIME_BOUND_S = 1800
"""No harness runs longer than this (libFuzzer's -max_total_time); its RUNS must be done by then."""
ARTIFACTS = ROOT / "build" / "fuzz"
"""Where each harness keeps its corpus (grown run to run) and any crash's reproducer (`crash-*`)."""


@pytest.mark.soak
@pytest.mark.parametrize("target", sorted(RUNS))
def test_a_million_inputs_under_atheris(target: str) -> None:
    pytest.importorskip("atheris", reason="atheris ships wheels for Linux x86_64 only (pyproject.toml)")
    corpus = ARTIFACTS / target / "corpus"
    corpus.mkdir(parents=True, exist_ok=True)
    for seed in SEEDS[target]:
        (corpus / hashlib.sha1(seed).hexdigest()).write_bytes(seed)
    before = set((ARTIFACTS / target).glob("crash-*"))
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    run = subprocess.run(
        [sys.executable, str(ROOT / "tests" / "fuzz" / f"atheris_{target}.py"), f"-runs={RUNS[target]}",
         f"-max_len={MAX_LEN[target]}", f"-max_total_time={TIME_BOUND_S}", "-timeout=30", "-rss_limit_mb=2048",
         f"-artifact_prefix={ARTIFACTS / target}/", "-print_final_stats=1", str(corpus)],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=TIME_BOUND_S + 300)
    found = sorted(set((ARTIFACTS / target).glob("crash-*")) - before)
    tail = "\n".join(run.stderr.splitlines()[-40:])
    assert run.returncode == 0 and not found, f"{target}: the fuzzer broke a property; reproducer(s): " \
        f"{', '.join(map(str, found)) or 'none written'}\n{tail}"
    done = re.search(r"Done (\d+) runs in (\d+) second", run.stderr)
    assert done is not None, tail
    assert int(done.group(1)) >= RUNS[target], f"{target}: only {done.group(1)} inputs in {TIME_BOUND_S} s"
    print(f"atheris {target}: {done.group(1)} inputs in {done.group(2)} s")
