"""Benchmarks behind `make bench`: each module here defines `run() -> list[Figure]` and prints how it measured them.

A figure is one line of `make bench`'s verdict: what was measured (against which peer), the
figure (a ratio to the peer measured in the same run wherever there is a peer), its aim, and
whether the aim holds. A figure without an aim is reported only. `python -m bench` exits 0 only
when every aim holds (`bench/__main__.py`); the method and history of each are in
`docs/benchmarks.md`.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Figure:
    """One measured figure: `name` (what, against which peer), `measured` (as printed), `aim`
    (as printed; None: reported only) and `met` (None exactly when there is no aim)."""

    name: str
    measured: str
    aim: str | None = None
    met: bool | None = None

    def __post_init__(self) -> None:
        if (self.aim is None) != (self.met is None):
            raise ValueError(f"{self.name}: a figure has an aim and a verdict, or neither")

    @classmethod
    def at_most(cls, name: str, value: float, aim: float, unit: str = "x", digits: int = 2) -> Figure:
        """A figure whose aim is a ceiling (`value <= aim`), e.g. a ratio to a peer's cost."""
        return cls(name, f"{value:.{digits}f}{unit}", f"<= {aim:g}{unit}", value <= aim)

    @classmethod
    def at_least(cls, name: str, value: float, aim: float, unit: str = "x", digits: int = 1) -> Figure:
        """A figure whose aim is a floor (`value >= aim`), e.g. how many times faster than a peer."""
        return cls(name, f"{value:.{digits}f}{unit}", f">= {aim:g}{unit}", value >= aim)

    @classmethod
    def reported(cls, name: str, measured: str) -> Figure:
        """A figure without an aim: printed for the record, never a miss."""
        return cls(name, measured)

    @property
    def verdict(self) -> str:
        return "reported" if self.met is None else "met" if self.met else "NOT met"

    def line(self) -> str:
        """The figure's line: name | measured | aim | met or not."""
        return f"{self.name} | {self.measured} | aim {self.aim or '-'} | {self.verdict}"
