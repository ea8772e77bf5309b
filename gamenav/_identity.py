"""Caches keyed by world (a :class:`~gamenav.TileGrid` or :class:`~gamenav.NavMesh`) identity.

A ``weakref.WeakKeyDictionary`` hashes and compares its keys with their ``__hash__`` / ``__eq__``:
a world subclass defining ``__eq__`` (so ``__hash__ = None``) could not be a key, and one with
value equality would share one entry between two different worlds. :class:`IdentityMap` keys by
``id`` and checks identity through a weak reference instead.
"""

from __future__ import annotations

import functools
import weakref
from typing import Any, Generic, TypeVar

__all__ = ["IdentityMap"]

K = TypeVar("K")
V = TypeVar("V")


class IdentityMap(Generic[K, V]):
    """A value per live object, by identity (never calling the object's ``__hash__`` or
    ``__eq__``); an object's entry is dropped when it dies, so a later object with its ``id``
    never finds it. Reads and writes are single dict operations, safe from any thread.

    Raises:
        TypeError: (on writes) the object cannot be weakly referenced.
    """

    __slots__ = ("_items", "__weakref__")

    def __init__(self) -> None:
        self._items: dict[int, tuple[weakref.ref[K], V]] = {}

    def get(self, obj: K) -> V | None:
        """``obj``'s value, or None."""
        item = self._items.get(id(obj))
        return item[1] if item is not None and item[0]() is obj else None

    def __setitem__(self, obj: K, value: V) -> None:
        key = id(obj)
        item = self._items.get(key)
        if item is not None and item[0]() is obj:
            ref = item[0]
        else:  # (the map held weakly: a dropped map goes at once, with its references to objects)
            ref = weakref.ref(obj, functools.partial(_forget, weakref.ref(self), key))
        self._items[key] = (ref, value)

    def __len__(self) -> int:
        """Number of entries (each of a live object)."""
        return len(self._items)


def _forget(table: weakref.ref[IdentityMap[Any, Any]], key: int, dead: weakref.ref[Any]) -> None:
    """Drop the entry ``key`` of ``table`` (if the map lives) when its object died (``dead``: the
    entry's reference; called at the death, before the object's id can be another's)."""
    live = table()
    if live is not None and (held := live._items.get(key)) is not None and held[0] is dead:
        live._items.pop(key, None)
