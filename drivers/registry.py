"""The registry of backends that each device kind keeps (python-can style): a name per backend, imported when chosen.

A device kind declares its backends as data, `name -> "module:Class"`; the module is imported only
when that backend is opened, so no backend depends on some other module having been imported first
for its side effect, and a backend whose library is missing (gpiozero, pyserial) costs nothing until
it is asked for.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any, Generic, TypeVar, cast

from drivers.errors import BackendError

T = TypeVar("T")

Spec = str | Callable[..., Any]
"""A backend: `"package.module:Class"` (imported when chosen), or the class or factory itself."""


class Registry(Generic[T]):
    """Backends of one device kind by name. `open(name, **options)` imports and builds one.

    >>> lights: Registry[str] = Registry("tower light", {"fake": "drivers.registry:_fake_backend"})
    >>> lights.open("fake", colour="red")
    'red'
    >>> lights.open("nope")
    Traceback (most recent call last):
    ...
    drivers.errors.BackendError: unknown tower light backend 'nope'; known: fake
    """

    def __init__(self, kind: str, backends: Mapping[str, Spec]) -> None:
        self.kind = kind
        self._backends: dict[str, Spec] = dict(backends)

    def __contains__(self, name: object) -> bool:
        return name in self._backends

    def names(self) -> list[str]:
        """The backends' names, sorted."""
        return sorted(self._backends)

    def add(self, name: str, backend: Spec) -> None:
        """Make `backend` available as `name` (a plug-in's, or a test's). Raises BackendError if taken."""
        if name in self._backends:
            raise BackendError(f"{self.kind} backend {name!r} already exists")
        self._backends[name] = backend

    def resolve(self, name: str) -> Callable[..., T]:
        """The class or factory of backend `name`, imported now if it is named by path.

        Raises BackendError when it is unknown or its module cannot be imported.
        """
        spec = self._backends.get(name)
        if spec is None:
            raise BackendError(f"unknown {self.kind} backend {name!r}; known: {', '.join(self.names())}")
        if not isinstance(spec, str):
            return cast(Callable[..., T], spec)
        module_name, _, attr = spec.partition(":")
        try:
            factory = getattr(importlib.import_module(module_name), attr)
        except (ImportError, AttributeError) as exc:
            raise BackendError(f"{self.kind} backend {name!r} ({spec}) cannot be loaded: {exc}") from exc
        return cast(Callable[..., T], factory)

    def open(self, backend: str, **options: Any) -> T:
        """Build backend `backend` with `options`.

        Raises BackendError naming the backend when it is unknown or cannot be loaded, or an
        option it refuses.
        """
        factory = self.resolve(backend)
        try:
            return factory(**options)
        except TypeError as exc:
            raise BackendError(f"{self.kind} backend {backend!r}: {exc}") from exc


def _fake_backend(colour: str = "green") -> str:
    """The doctest's backend."""
    return colour
