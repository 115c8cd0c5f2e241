"""libFuzzer (atheris) harness of the configuration parser (Config.parse on the fuzzer's bytes as UTF-8 text).

Run from the repository's root: `PYTHONPATH=. python tests/fuzz/atheris_config.py -runs=N CORPUS_DIR`
(tests/fuzz/test_fuzz_soak.py does, under `make soak`). An input that breaks the property raises
out of `one_input`, and libFuzzer keeps it as `crash-*` (see `-artifact_prefix`).
"""

from __future__ import annotations

import sys

import atheris

with atheris.instrument_imports(include=["firmware_host.service.config", "engine"]):
    from tests.fuzz.targets import check_config_input


def one_input(data: bytes) -> None:
    check_config_input(data)


if __name__ == "__main__":
    atheris.Setup(sys.argv, one_input)
    atheris.Fuzz()
