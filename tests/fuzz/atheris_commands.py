"""libFuzzer (atheris) harness of the dealer command channel's decoder (Command.decode, and request_id_of for the error reply).

Run from the repository's root: `PYTHONPATH=. python tests/fuzz/atheris_commands.py -runs=N CORPUS_DIR`
(tests/fuzz/test_fuzz_soak.py does, under `make soak`). An input that breaks the property raises
out of `one_input`, and libFuzzer keeps it as `crash-*` (see `-artifact_prefix`).
"""

from __future__ import annotations

import sys

import atheris

with atheris.instrument_imports(include=["protocol.commands", "engine.cards"]):
    from tests.fuzz.targets import check_command
    from protocol.commands import request_id_of


def one_input(data: bytes) -> None:
    check_command(data)
    request_id_of(data)


if __name__ == "__main__":
    atheris.Setup(sys.argv, one_input)
    atheris.Fuzz()
