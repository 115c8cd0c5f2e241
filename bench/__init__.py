"""Benchmarks behind `make bench`: each module here defines `run() -> dict` and prints its figures."""
