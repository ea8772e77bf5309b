"""Review mends of this session's commits (Closes.close, ...)."""

from __future__ import annotations

import gc
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import numpy as np

import gamenav
from gamenav import _events


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
    cache.find_path(grid, (0, 0), (3, 3))  # (subscribed to the grid)
    entered, release, original = threading.Event(), threading.Event(), cache._close

    def blocked() -> None:
        entered.set()
        release.wait()
        original()  # (unsubscribes: takes the grid's subscription lock)

    cache._close = blocked  # type: ignore[method-assign]
    closer = threading.Thread(target=cache.close, daemon=True)
    closer.start()
    entered.wait()
    lock, seen = grid._listeners._lock, []

    def collecting(phase: str, info: dict[str, int]) -> None:
        if phase == "start" and lock._is_owned() and not seen:  # type: ignore[attr-defined]
            seen.append(True)
            release.set()
            cache.close()  # (what a __del__ run by this collection does)

    try:
        with _collecting_with(collecting):
            assert _ends(lambda: grid.subscribe(print))  # (the old code hung)
    finally:
        release.set()
    closer.join(120)
    assert seen and cache.closed
