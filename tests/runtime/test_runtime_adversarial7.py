"""Adversarial review 7 of the runtime: shared paths, concurrent close, huge ints in messages."""

from __future__ import annotations

import numpy as np
import pytest

import gamenav


def _owners(array: np.ndarray) -> list[object]:
    """``array`` and every object down its ``.base`` chain (a memoryview's exporter too)."""
    chain: list[object] = [array]
    while True:
        last = chain[-1]
        nxt = last.obj if isinstance(last, memoryview) else getattr(last, "base", None)
        if nxt is None:
            return chain
        chain.append(nxt)


def test_shared_paths_have_no_writable_owner_down_their_base_chain() -> None:
    grid = gamenav.TileGrid(np.ones((6, 6), dtype=bool))
    cache = gamenav.PathCache()
    first = cache.find_path(grid, (0, 0), (5, 5))
    queue = gamenav.PathQueue()
    requests = [queue.request(grid, (0, 0), (5, 4)) for _ in range(2)]
    queue.update()
    assert requests[0].path is requests[1].path
    for path in (first, requests[0].path):
        for array in (path.cells, path.points, path.corridor):
            for owner in _owners(array):
                if isinstance(owner, np.ndarray):
                    with pytest.raises(ValueError, match="WRITEABLE"):
                        owner.flags.writeable = True
                else:
                    assert isinstance(owner, bytes), type(owner)
    assert cache.find_path(grid, (0, 0), (5, 5)).points[0].tolist() == [0.5, 0.5]
