"""libFuzzer (atheris) harness of the shoe's frame decoder and the link's host session: no card invented.

Run from the repository's root: `PYTHONPATH=. python tests/fuzz/atheris_shoe.py -runs=N CORPUS_DIR`
(tests/fuzz/test_fuzz_soak.py does, under `make soak`). An input that breaks the property raises
out of `one_input`, and libFuzzer keeps it as `crash-*` (see `-artifact_prefix`).
"""

from __future__ import annotations

import logging
import sys

import atheris

with atheris.instrument_imports(include=["drivers"]):
    from tests.fuzz.targets import check_shoe_input


def one_input(data: bytes) -> None:
    check_shoe_input(data)


if __name__ == "__main__":
    logging.disable(logging.WARNING)  # the link logs every bad message: millions of lines, and slow
    atheris.Setup(sys.argv, one_input)
    atheris.Fuzz()
