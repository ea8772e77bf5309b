"""The runtime under attack, second round: big batches, edits and hostile input around find_paths,
PathQueue and PathCache."""

from __future__ import annotations

import gc
import sys
import tracemalloc
import weakref
from collections.abc import Callable
from types import FrameType
from typing import Any

import numpy as np
import pytest
from shapely.geometry import box

import gamenav
from gamenav import NavMesh, PathCache, PathQueue, TileGrid
from gamenav.runtime import queue as queue_module
from gamenav.runtime._invalidation import footprint


def _lines_run(action: Callable[[], object], filename: str) -> int:
    """The lines of ``filename`` that ``action()`` runs (a count of work, not a time)."""
    count = 0

    def trace(frame: FrameType, event: str, arg: Any) -> Any:
        nonlocal count
        if frame.f_code.co_filename != filename:
            return None
        count += event == "line"
        return trace

    old = sys.gettrace()
    sys.settrace(trace)
    try:
        action()
    finally:
        sys.settrace(old)
    return count


def test_a_navmesh_batch_holds_the_work_arrays_of_one_search_per_thread() -> None:
    """find_paths built the search of every query before running any, and a navmesh search holds
    1-2 MB of work arrays until it ends: 800 exact queries held 1.7 GB at once (60 here: 126 MB).
    The threads now build their searches one at a time (errors are still raised before any runs)."""
    mesh = NavMesh.from_polygons(box(0, 0, 20, 10), obstacles=[box(4, 0, 5, 8), box(12, 2, 13, 10)])
    starts = [(1.0, 0.5 + (i % 9)) for i in range(60)]
    goals = [(19.0, 9.5 - (i % 7)) for i in range(60)]
    want = [gamenav.find_path(mesh, s, g, exact=True) for s, g in zip(starts, goals, strict=True)]
    tracing = tracemalloc.is_tracing()  # (by a plugin, say: then left on)
    tracemalloc.start()
    tracemalloc.reset_peak()
    before = tracemalloc.get_traced_memory()[0]
    try:
        paths = gamenav.find_paths(mesh, starts, goals, workers=2, exact=True)
        peak = tracemalloc.get_traced_memory()[1] - before
    finally:
        if not tracing:
            tracemalloc.stop()
    assert peak < 16 * 2**20
    assert [p.cost for p in paths] == [p.cost for p in want]


def test_cancelling_thousands_of_requests_that_share_one_search_is_linear_work() -> None:
    """Each cancel scanned every request left for the highest score: cancel_all (or close) of
    8000 identical requests took 3.0 s, 2000 took 0.23 s (a frame hitch when a level unloads).
    A cancel is now O(1) unless it takes the highest score away."""
    grid = TileGrid(np.ones((8, 8), dtype=bool))

    def work(n: int) -> int:
        queue = PathQueue(budget_ms=None, max_expansions=10)
        requests = [queue.request(grid, (0, 0), (7, 7), priority=i % 3) for i in range(n)]
        lines = _lines_run(queue.cancel_all, queue_module.__file__)
        assert all(r.status is gamenav.PathStatus.CANCELLED for r in requests) and len(queue) == 0
        return lines

    assert work(1000) < 2.5 * work(500)


@pytest.mark.parametrize("diagonal", ["no_corner_cutting", "at_most_one_blocked", "always"])
def test_the_cache_keeps_paths_through_edits_that_cannot_change_them(diagonal: str) -> None:
    """A step pays the cost of the cell it enters only: raising the cost of a diagonal step's
    corner, or of the start, dropped the path (its cost and optimality unchanged); so did blocking
    a corner where the rule reads no corners (``"always"``), or one of two under
    ``"at_most_one_blocked"``. Blocking a corner under ``"no_corner_cutting"``, or raising the
    cost of a cell the path enters, still drops it."""
    grid = TileGrid(np.ones((3, 3), dtype=bool))
    cache = PathCache()
    path = cache.find_path(grid, (0, 0), (2, 2), diagonal=diagonal)
    assert path.cells.tolist() == [[0, 0], [1, 1], [2, 2]]
    grid.set_cost((1, 0), 5.0)  # a corner of the first step
    grid.set_cost((0, 0), 5.0)  # the start
    assert cache.find_path(grid, (0, 0), (2, 2), diagonal=diagonal) is path
    grid.set_walkable((2, 1), False)  # a corner of the second step
    kept = cache.find_path(grid, (0, 0), (2, 2), diagonal=diagonal)
    assert (kept is path) == (diagonal != "no_corner_cutting")
    fresh = gamenav.find_path(grid, (0, 0), (2, 2), diagonal=diagonal)
    assert kept.cost == fresh.cost and cache.stats.invalidations == (diagonal == "no_corner_cutting")
    grid.set_cost(tuple(kept.cells[1].tolist()), 2.0)  # a cell it enters
    assert len(cache) == 0


def test_an_edit_checks_the_pending_quick_paths_without_recomputing_them(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each edit recomputed the footprint of every pending request's quick path, one by one: with
    3000 pending on a 200 x 200 map a blocking edit took 120 ms. The footprint is computed once,
    when the quick path is handed out, and an edit checks them all in one pass (11 ms there)."""
    grid = TileGrid(np.ones((30, 30), dtype=bool))
    queue = PathQueue(budget_ms=None, max_expansions=10)
    requests = [queue.request(grid, (0, y), (29, 29 - y), quick_expansions=4) for y in range(30)]
    wall = 1 * grid.width + 2  # cell (2, 1)
    crossing = {id(r) for r in requests if wall in footprint(r.path.cells, grid.width).tolist()}
    assert 0 < len(crossing) < len(requests)
    calls: list[object] = []
    monkeypatch.setattr(queue_module, "footprint", lambda *args: calls.append(args))
    grid.set_walkable((2, 1), False)
    assert calls == []
    assert {id(r) for r in requests if r.path.status is gamenav.PathStatus.IN_PROGRESS} == crossing
    assert all(r.path.status is gamenav.PathStatus.PARTIAL for r in requests if id(r) not in crossing)


@pytest.mark.parametrize(("goal", "options", "error", "match"), [
    ((25.0, 5.0), {}, gamenav.BlockedEndpointError, "goal must lie on the navmesh"),
    ((float("nan"), 5.0), {"clamp": True}, gamenav.InvalidInputError, "goal must be a finite"),
    ((19.0, 5.0), {"clamp": 2}, gamenav.InvalidInputError, "clamp must be a bool"),
])
def test_a_navmesh_batch_raises_every_error_before_its_threads_run(
        monkeypatch: pytest.MonkeyPatch, goal: tuple[float, float], options: dict[str, Any],
        error: type[Exception], match: str) -> None:
    """(The threads build the searches now: the caller still checks every query first.)"""
    def refuse(*args: object) -> None:
        raise AssertionError("queries ran before validation finished")

    monkeypatch.setattr(gamenav.parallel, "run_parallel", refuse)
    mesh = NavMesh.from_polygons(box(0, 0, 20, 10))
    starts, goals = [(1.0, 1.0)] * 4, [(19.0, 9.0)] * 3 + [goal]
    with pytest.raises(error, match=match):
        gamenav.find_paths(mesh, starts, goals, workers=2, **options)


def test_a_started_search_that_waits_does_not_keep_every_edit_alive() -> None:
    """A started search (a quick request, say) waiting behind others kept every edit record since
    its snapshot, each holding the grid's passable cells: one such request and an edit per frame
    kept 154 MB after 600 frames on a 512 x 512 map (100 records here). Past 16 it is dropped and
    starts again on the world as it is when served, with the same answer."""
    grid = TileGrid(np.ones((20, 20), dtype=bool))
    queue = PathQueue(budget_ms=None, max_expansions=10)
    low = queue.request(grid, (0, 0), (19, 19), quick_expansions=1)  # started, waiting
    high = queue.request(grid, (0, 19), (19, 0), priority=5)  # served first
    records: list[weakref.ref[gamenav.GridChange]] = []
    grid.subscribe(lambda change: records.append(weakref.ref(change)))
    for i in range(100):
        grid.set_cost((i % 20, 10), 2.0 + (i // 20) % 2)
    gc.collect()
    assert sum(ref() is not None for ref in records) <= 16
    assert low.path.status is gamenav.PathStatus.PARTIAL  # its quick path stays
    while len(queue):
        queue.update()
    for req in (low, high):
        assert req.path.cost == gamenav.find_path(grid, req.start, req.goal).cost


@pytest.mark.parametrize(("name", "make"), [
    ("chunk", lambda grid: PathQueue(chunk=np.timedelta64(3))),
    ("window", lambda grid: PathQueue(window=np.timedelta64(3))),
    ("workers", lambda grid: PathQueue(workers=np.timedelta64(2))),
    ("workers", lambda grid: gamenav.find_paths(grid, [(0, 0)], [(3, 3)], workers=np.timedelta64(2))),
    ("capacity", lambda grid: PathCache(capacity=np.timedelta64(3))),
    ("quick_expansions", lambda grid: PathQueue().request(grid, (0, 0), (3, 3), quick_expansions=np.timedelta64(3))),
    ("priority", lambda grid: PathQueue().request(grid, (0, 0), (3, 3), priority=np.timedelta64(3))),
])
def test_numpy_timedeltas_are_not_counts_or_priorities(name: str, make: Callable[[TileGrid], object]) -> None:
    """numpy counts ``timedelta64`` as an integer: ``chunk=np.timedelta64(3)`` raised numpy's
    UFuncTypeError, and the others were taken (a request's priority read "3 generic time units")."""
    with pytest.raises(gamenav.InvalidInputError, match=f"{name} must be"):
        make(TileGrid(np.ones((4, 4), dtype=bool)))
