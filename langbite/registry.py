"""A small generic registry for things users extend: oracles, providers, probes.

Built-ins register themselves with the :meth:`Registry.register` decorator,
exactly like plugins; third-party packages add entries through Python entry
points in the group ``langbite.<kind>`` (for example ``langbite.providers``),
which are loaded lazily the first time a name is not found.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from importlib.metadata import entry_points
from typing import Generic, TypeVar

from langbite.errors import suggest

T = TypeVar("T")
log = logging.getLogger(__name__)


class UnknownName(KeyError):
    """Raised for a name that no built-in or plugin registered."""

    def __init__(self, kind: str, name: str, known: list[str]) -> None:
        self.kind, self.name, self.known = kind, name, known
        super().__init__(name)

    def __str__(self) -> str:
        return (
            f"unknown {self.kind} '{self.name}'{suggest(self.name, self.known)}"
            f" (available: {', '.join(sorted(self.known))})"
        )


class Registry(Generic[T]):
    """Name → object mapping with decorator registration and entry points."""

    def __init__(self, kind: str, group: str | None = None, casefold: bool = False) -> None:
        self.kind = kind
        self.group = group
        self.casefold = casefold
        self._items: dict[str, T] = {}
        self._plugins_loaded = group is None
        self.generation = 0  # bumped on every change, so caches of derived data (schemas) know they are stale

    def _key(self, name: str) -> str:
        return name.casefold() if self.casefold else name

    def add(self, name: str, item: T) -> T:
        key = self._key(name)
        if key in self._items and self._items[key] is not item:
            log.warning("%s '%s' registered twice; the later one wins", self.kind, name)
        self._items[key] = item
        self.generation += 1
        return item

    def remove(self, name: str) -> T:
        """Unregister ``name`` (a plugin being unloaded, a test cleaning up); return what it named."""
        key = self._key(name)
        if key not in self._items:
            raise UnknownName(self.kind, name, self.names())
        self.generation += 1
        return self._items.pop(key)

    def register(self, name: str) -> Callable[[T], T]:
        """Decorator: ``@oracles.register("equal")``."""

        def deco(item: T) -> T:
            return self.add(name, item)

        return deco

    def _load_plugins(self) -> None:
        if self._plugins_loaded or self.group is None:
            return
        self._plugins_loaded = True
        for ep in entry_points(group=self.group):
            try:
                obj = ep.load()
            except Exception as exc:  # a broken plugin must not break the tool
                # one line by default; the traceback is for the plugin's author, with -v
                log.error("could not load %s plugin '%s' (%s): %s", self.kind, ep.name, ep.value, exc)
                log.debug("traceback of plugin '%s'", ep.name, exc_info=True)
                continue
            if self._key(ep.name) not in self._items:
                self.add(ep.name, obj)

    def get(self, name: str) -> T:
        key = self._key(name)
        if key not in self._items:
            self._load_plugins()
        try:
            return self._items[key]
        except KeyError:
            raise UnknownName(self.kind, name, self.names()) from None

    def __contains__(self, name: object) -> bool:
        if not isinstance(name, str):
            return False
        self._load_plugins()
        return self._key(name) in self._items

    def names(self) -> list[str]:
        self._load_plugins()
        return sorted(self._items)

    def items(self) -> Iterator[tuple[str, T]]:
        self._load_plugins()
        return iter(sorted(self._items.items()))
