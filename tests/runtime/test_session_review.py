"""Review mends of this session's commits (Closes.close, ...)."""

from __future__ import annotations

import gc
import threading

import gamenav
from gamenav import _events


def test_a_close_a_garbage_collection_makes_while_another_close_takes_its_lock_does_not_deadlock() -> None:
    # A collection runs code (a unit's __del__ closing its cache) wherever an object is made:
    # it must not strike while close() holds its (not re-entrant) lock.
    first, second, seen = gamenav.PathCache(), gamenav.PathCache(), []

    def collecting(phase: str, info: dict[str, int]) -> None:
        if phase == "start" and _events._closing_lock.locked() and not seen:
            seen.append(True)
            second.close()  # (what a __del__ run by this collection does)

    threshold = gc.get_threshold()
    gc.callbacks.append(collecting)
    gc.set_threshold(1)
    try:
        worker = threading.Thread(target=first.close, daemon=True)
        worker.start()
        worker.join(120)  # (a deadlock never ends: the old code hung here)
        assert not worker.is_alive()
    finally:
        gc.set_threshold(*threshold)
        gc.callbacks.remove(collecting)
    assert first.closed
