"""PathQueue, PathCache and find_paths under attack (sixth review): deliveries, batches."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest

import gamenav
from gamenav import TileGrid


@pytest.mark.parametrize("options", [{"partial": True}, {"algorithm": "jps"}, {"algorithm": "hpa"},
                                     {"algorithm": "subgoal"}, {"weight": 1.5}])
def test_a_general_batch_of_short_queries_allocates_no_grid_sized_workspace(options: dict[str, object]) -> None:
    """``find_paths`` with options that take the general path (``partial=True``, ``jps``, ``hpa``,
    ``subgoal``, ``weight > 1``) allocated a search workspace for the whole grid in every thread on
    every call (8 MB on 510 x 510): 8 short queries took 6-8 ms against 1.3-2.3 ms now. Each search
    borrows a workspace from the pool, as a queue's searches do; the answers are the same."""
    grid = TileGrid(np.ones((510, 510), bool))
    starts, goals = [(i + 1, i + 1) for i in range(8)], [(i + 5, i + 3) for i in range(8)]
    gamenav.find_paths(grid, starts, goals, workers=1, **options)  # (the pool's first workspace, the index)
    tracemalloc.start()
    try:
        paths = gamenav.find_paths(grid, starts, goals, workers=1, **options)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    workspace = gamenav.SearchWorkspace(grid.shape).nbytes  # (8.3 MB)
    assert peak < workspace // 2, f"{peak} bytes allocated"
    for path, start, goal in zip(paths, starts, goals, strict=True):
        expected = gamenav.find_path(grid, start, goal, **options)  # type: ignore[arg-type]
        assert path.status is expected.status and path.cost == expected.cost
        assert path.expanded == expected.expanded
        assert np.array_equal(path.cells, expected.cells) and np.array_equal(path.points, expected.points)


def test_a_general_batch_on_threads_answers_as_find_path() -> None:
    """Threads borrowing pooled workspaces side by side answer each query as ``find_path`` does."""
    rng = np.random.default_rng(3)
    grid = TileGrid(rng.random((60, 60)) > 0.25)
    free = np.argwhere(grid.passable)[:, ::-1]
    pick = rng.choice(len(free), size=(64, 2))
    starts, goals = free[pick[:, 0]], free[pick[:, 1]]
    for _ in range(3):
        paths = gamenav.find_paths(grid, starts, goals, workers=2, partial=True, weight=1.2)
        for path, start, goal in zip(paths, starts.tolist(), goals.tolist(), strict=True):
            expected = gamenav.find_path(grid, start, goal, partial=True, weight=1.2)
            assert path.status is expected.status and path.cost == expected.cost
            assert np.array_equal(path.cells, expected.cells)
