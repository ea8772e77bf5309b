"""PathQueue, PathCache and find_paths under attack (fifth review): movement rules, batches."""

from __future__ import annotations

import gc
import tracemalloc
import weakref

import numpy as np
import pytest

import gamenav
from gamenav import PathQueue, PathStatus, TileGrid


@pytest.mark.parametrize("diagonal, withdrawn", [("always", False), ("no_corner_cutting", True)])
def test_a_quick_path_is_withdrawn_by_a_blocked_corner_only_under_rules_that_read_corners(
        diagonal: str, withdrawn: bool) -> None:
    """Blocking the corner cell of a quick partial path's diagonal step withdrew the path under
    ``diagonal="always"`` too, whose steps read no corners: the agent lost a path it could still
    walk (and stood waiting for the answer)."""
    grid = TileGrid(np.ones((12, 40), bool))
    queue = PathQueue(budget_ms=None, max_expansions=1)
    req = queue.request(grid, (0, 0), (39, 11), quick_expansions=6, diagonal=diagonal)
    cells = req.path.cells.tolist()
    assert req.path.status is PathStatus.PARTIAL and cells[1:3] == [[1, 0], [2, 1]]  # a diagonal step
    grid.set_walkable((2, 0), False)  # its corner, off the path
    assert (req.path.status is PathStatus.IN_PROGRESS) is withdrawn
    if not withdrawn:
        assert req.path.cells.tolist() == cells
    while not req.done:
        queue.update()
    assert req.path.cost == gamenav.find_path(grid, (0, 0), (39, 11), diagonal=diagonal).cost



def test_a_corner_blocked_beside_an_open_one_keeps_at_most_one_blocked_paths() -> None:
    """Under ``diagonal="at_most_one_blocked"`` a diagonal step needs one of its two corners
    open, yet blocking either one dropped a cached path (and withdrew a quick path) that stayed
    walkable and optimal: the cache searched again, the agent stood waiting. They go once the
    other corner is blocked too."""
    grid = TileGrid(np.ones((3, 3), dtype=bool))
    cache = gamenav.PathCache()
    path = cache.find_path(grid, (0, 0), (2, 2), diagonal="at_most_one_blocked")
    assert path.cells.tolist() == [[0, 0], [1, 1], [2, 2]]
    grid.set_walkable((2, 1), False)  # a corner of the second step: the other one is open
    assert cache.find_path(grid, (0, 0), (2, 2), diagonal="at_most_one_blocked") is path
    grid.set_walkable((1, 2), False)  # and the other: the step is forbidden
    assert cache.stats.invalidations == 1
    assert cache.find_path(grid, (0, 0), (2, 2), diagonal="at_most_one_blocked").status is PathStatus.NO_PATH

    grid = TileGrid(np.ones((12, 40), bool))
    queue = PathQueue(budget_ms=None, max_expansions=1)
    req = queue.request(grid, (0, 0), (39, 11), quick_expansions=6, diagonal="at_most_one_blocked")
    assert req.path.cells.tolist()[1:3] == [[1, 0], [2, 1]]  # a diagonal step, corners (2, 0) and (1, 1)
    grid.set_walkable((2, 0), False)
    assert req.path.status is PathStatus.PARTIAL
    grid.set_walkable((1, 1), False)
    assert req.path.status is PathStatus.IN_PROGRESS


@pytest.mark.parametrize("cell, withdrawn", [((0, 0), False), ((2, 0), False), ((3, 1), True)])
def test_a_quick_path_is_withdrawn_by_a_dearer_cell_only_if_it_enters_it(cell: tuple[int, int],
                                                                         withdrawn: bool) -> None:
    """A step pays the cost of the cell it enters only, yet raising the cost of the start cell (a
    game marking the cells its units stand on as dearer) or of a diagonal step's corner withdrew
    the quick partial path: the agent stood waiting for the answer. Those are kept now, as in
    the cache; a dearer cell the path enters still withdraws it."""
    grid = TileGrid(np.ones((12, 40), bool))
    queue = PathQueue(budget_ms=None, max_expansions=1)
    req = queue.request(grid, (0, 0), (39, 11), quick_expansions=6)
    assert req.path.cells.tolist()[:4] == [[0, 0], [1, 0], [2, 1], [3, 1]]
    grid.set_cost(cell, 5.0)
    assert (req.path.status is PathStatus.IN_PROGRESS) is withdrawn

@pytest.mark.parametrize("options, message", [
    ({"exact": "yes"}, "exact must be a bool, got 'yes'"),
    ({"clamp": 2}, "clamp must be a bool, got 2"),
    ({"partial": None}, "partial must be a bool, got None"),
])
def test_an_empty_navmesh_batch_checks_its_option_values(options: dict[str, object], message: str) -> None:
    """An empty batch on a mesh checked the options' names only: ``find_paths(mesh, [], [],
    exact="yes")`` returned [] (a grid's empty batch raises for a bad value), and the error came
    in the first frame with queries."""
    mesh = gamenav.NavMesh.from_polygons([[(0, 0), (4, 0), (4, 4), (0, 4)]])
    for starts, goals in (([(1, 1)], [(3, 3)]), ([], [])):
        with pytest.raises(gamenav.InvalidInputError, match=message):
            gamenav.find_paths(mesh, starts, goals, **options)
    assert gamenav.find_paths(mesh, [], [], exact=np.bool_(True), clamp=False) == []


class _Planner:
    """A game object whose heuristic method reads its level's grid."""

    def __init__(self, grid: TileGrid) -> None:
        self.grid = grid

    def heuristic(self, dx: object, dy: object) -> float:
        return 0.0 * self.grid.cell_size


@pytest.mark.parametrize("kind", ["closure", "method"])
def test_a_cached_heuristic_does_not_keep_its_levels_grid_alive(kind: str) -> None:
    """The cache's key held the ``heuristic=`` callable: one that reads the level's grid (a
    closure, a game object's method) kept the grid alive, and followed by the cache, after the
    level was dropped, until the entry was evicted. The key holds it weakly; the same callable
    still finds its entry."""
    cache = gamenav.PathCache()

    def level() -> weakref.ref[TileGrid]:
        grid = TileGrid(np.ones((20, 20), bool))
        planner = _Planner(grid)
        heuristic = planner.heuristic if kind == "method" else (lambda dx, dy: 0.0 * grid.cell_size)
        first = cache.find_path(grid, (0, 0), (19, 19), heuristic=heuristic)
        again = planner.heuristic if kind == "method" else heuristic  # (a method: a new bound method)
        assert cache.find_path(grid, (0, 0), (19, 19), heuristic=again) is first
        return weakref.ref(grid)

    enabled = gc.isenabled()
    gc.disable()  # freed by reference counting, as in a game that disables the collector
    try:
        grid = level()
        assert grid() is None and len(cache) == 1 and cache.stats.hits == 1
    finally:
        if enabled:
            gc.enable()


def short_batch() -> tuple[TileGrid, list[tuple[int, int]], list[tuple[int, int]]]:
    """An open 510 x 510 grid and 8 short queries on it."""
    return TileGrid(np.ones((510, 510), bool)), [(i + 1, i + 1) for i in range(8)], [(i + 5, i + 3) for i in range(8)]


def batch_peak(grid: TileGrid, starts: list[tuple[int, int]], goals: list[tuple[int, int]],
               options: dict[str, object]) -> tuple[list[gamenav.Path], int]:
    """The answers of ``find_paths`` (one worker, after a first call: the thread's workspace, the
    index) and the peak of the bytes it allocated."""
    gamenav.find_paths(grid, starts, goals, workers=1, **options)
    tracemalloc.start()
    try:
        paths = gamenav.find_paths(grid, starts, goals, workers=1, **options)
        return paths, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("options", [{}, {"diagonal": "never"}, {"agent_radius": 0.6, "smooth": True}])
def test_a_batch_of_short_queries_allocates_no_grid_sized_arrays(options: dict[str, object]) -> None:
    """``find_paths(grid, starts, goals)`` zeroed a fast-kernel workspace for the whole grid in
    every thread on every call (12 MB on 510 x 510), and with any option (``diagonal=``,
    ``agent_radius=``, ``smooth=``) took the general path (a 8 MB workspace per thread and a
    ``GridSearch`` per query) where ``find_path`` answers in one kernel call: a batch of 8 short
    queries took 15 to 20 times as long as 8 ``find_path`` calls, each frame. Options that
    ``find_path`` answers in one kernel call are batched through it, on each thread's kept
    workspace; the answers are the same."""
    grid, starts, goals = short_batch()
    paths, peak = batch_peak(grid, starts, goals, options)
    assert peak < 1 << 20, f"{peak} bytes allocated"
    for path, start, goal in zip(paths, starts, goals, strict=True):
        expected = gamenav.find_path(grid, start, goal, **options)  # type: ignore[arg-type]
        assert path.cost == expected.cost and path.expanded == expected.expanded
        assert np.array_equal(path.cells, expected.cells) and np.array_equal(path.points, expected.points)
