"""Review mends of this session's commits (Closes.close, ...)."""

from __future__ import annotations

import gc
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np

import gamenav
from gamenav import _events
from tests.runtime.test_runtime_adversarial7 import _blocking_close


@contextmanager
def _collecting_with(callback: Callable[[str, dict[str, int]], None]) -> Iterator[None]:
    """``callback`` runs at every garbage collection, and one runs at almost every allocation."""
    threshold = gc.get_threshold()
    gc.callbacks.append(callback)
    gc.set_threshold(1)
    try:
        yield
    finally:
        gc.set_threshold(*threshold)
        gc.callbacks.remove(callback)


def _ends(target: Callable[[], object]) -> bool:
    """Whether ``target()`` run in a thread ends (a deadlock never does: waits 120 s)."""
    worker = threading.Thread(target=target, daemon=True)
    worker.start()
    worker.join(120)
    return not worker.is_alive()


def _closing_elsewhere(obj: Any) -> threading.Event:
    """Start ``obj.close()`` in another thread, held inside ``_close`` until the returned event is
    set (then ``_close`` runs: it takes the locks it needs)."""
    entered, release = _blocking_close(obj)
    threading.Thread(target=obj.close, daemon=True).start()
    entered.wait()
    return release


def _closing_under(lock: Any, obj: Any, release: threading.Event, seen: list[bool]
                   ) -> Callable[[str, dict[str, int]], None]:
    """A collection callback that, the first time it runs while this thread holds ``lock``,
    sets ``release`` and closes ``obj`` (what a ``__del__`` run by the collection does)."""

    def collecting(phase: str, info: dict[str, int]) -> None:
        if phase == "start" and lock._is_owned() and not seen:
            seen.append(True)
            release.set()
            obj.close()

    return collecting


def _until_closed(obj: Any) -> None:
    """Wait for the close :func:`_closing_elsewhere` started (``close()`` waits for it)."""
    assert _ends(obj.close)


def test_a_close_a_garbage_collection_makes_while_another_close_takes_its_lock_does_not_deadlock() -> None:
    # A collection runs code (a unit's __del__ closing its cache) wherever an object is made:
    # it must not strike while close() holds its (not re-entrant) lock.
    first, second, seen = gamenav.PathCache(), gamenav.PathCache(), []

    def collecting(phase: str, info: dict[str, int]) -> None:
        if phase == "start" and _events._closing_lock.locked() and not seen:
            seen.append(True)
            second.close()  # (what a __del__ run by this collection does)

    with _collecting_with(collecting):
        assert _ends(first.close)  # (the old code hung)
    assert first.closed


def test_a_close_a_collection_makes_while_this_thread_subscribes_does_not_wait_for_another_threads_close() -> None:
    # Thread A closes the cache, whose close unsubscribes from the grid (the grid's subscription
    # lock). This thread subscribes to the grid meanwhile (holding that lock) and a collection
    # there runs a __del__ that closes the cache: waiting for A's close would never end.
    grid = gamenav.TileGrid(np.ones((4, 4), bool))
    cache = gamenav.PathCache()
    cache.find_path(grid, (0, 0), (3, 3))  # (subscribed to the grid: its close unsubscribes)
    release, seen = _closing_elsewhere(cache), []
    try:
        with _collecting_with(_closing_under(grid._listeners._lock, cache, release, seen)):
            assert _ends(lambda: grid.subscribe(print))  # (the old code hung)
    finally:
        release.set()
    _until_closed(cache)
    assert seen and cache.closed


def test_a_close_a_collection_makes_during_a_grid_edit_does_not_wait_for_another_threads_close() -> None:
    # Thread A closes a mesh following the grid, which takes the grid's edit lock. This thread
    # edits the grid meanwhile (holding that lock) and a collection there runs a __del__ that
    # closes the mesh: waiting for A's close would never end.
    grid = gamenav.TileGrid(np.ones((6, 6), bool))
    mesh = gamenav.NavMesh.from_grid(grid, follow=True)  # (its close takes the grid's edit lock)
    release, seen = _closing_elsewhere(mesh), []
    try:
        with _collecting_with(_closing_under(grid._edit_lock, mesh, release, seen)):
            assert _ends(lambda: grid.set_walkable((1, 1), False))  # (the old code hung)
    finally:
        release.set()
    _until_closed(mesh)
    assert seen and mesh.closed


def test_a_close_a_collection_makes_while_a_mesh_is_built_from_a_grid_does_not_wait_either() -> None:
    grid = gamenav.TileGrid(np.ones((6, 6), bool))
    mesh = gamenav.NavMesh.from_grid(grid, follow=True)
    release, seen = _closing_elsewhere(mesh), []
    try:
        with _collecting_with(_closing_under(grid._edit_lock, mesh, release, seen)):
            assert _ends(lambda: gamenav.NavMesh.from_grid(grid))  # (the old code hung)
    finally:
        release.set()
    _until_closed(mesh)
    assert seen and mesh.closed
