"""The registry of backends that each device kind keeps (python-can style): a name per backend, one opener."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Generic, TypeVar

from drivers.errors import BackendError

T = TypeVar("T")


class Registry(dict[str, Callable[..., T]], Generic[T]):
    """Backends of one device kind by name. `register(name)` decorates a backend class or factory;
    `open(name, **options)` builds one.

    >>> lights: Registry[str] = Registry("tower light")
    >>> @lights.register("fake")
    ... def fake(colour: str = "green") -> str:
    ...     return colour
    >>> lights.open("fake", colour="red")
    'red'
    >>> lights.open("nope")
    Traceback (most recent call last):
    ...
    drivers.errors.BackendError: unknown tower light backend 'nope'; known: fake
    """

    def __init__(self, kind: str, hints: dict[str, str] | None = None) -> None:
        super().__init__()
        self.kind = kind
        self.hints = hints or {}

    def register(self, name: str) -> Callable[[Callable[..., T]], Callable[..., T]]:
        """Class decorator: make a backend available as `name`."""
        def register(factory: Callable[..., T]) -> Callable[..., T]:
            self[name] = factory
            return factory
        return register

    def open(self, backend: str, **options: Any) -> T:
        """Build backend `backend` with `options`.

        Raises BackendError naming the backend when it is unknown, or an option it refuses.
        """
        factory = self.get(backend)
        if factory is None:
            hint = self.hints.get(backend, "")
            raise BackendError(f"unknown {self.kind} backend {backend!r}; known: {', '.join(sorted(self))}{hint}")
        try:
            return factory(**options)
        except TypeError as exc:
            raise BackendError(f"{self.kind} backend {backend!r}: {exc}") from exc
