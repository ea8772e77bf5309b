"""PathQueue, PathCache and find_paths under attack (sixth review): deliveries, batches."""

from __future__ import annotations


import numpy as np
import pytest
import shapely

import gamenav
from gamenav import PathCache, PathQueue, PathRequest, PathStatus, TileGrid
from tests.runtime.test_queue_cache_adversarial5 import batch_peak, short_batch


@pytest.mark.parametrize("options", [{"partial": True}, {"algorithm": "jps"}, {"algorithm": "hpa"},
                                     {"algorithm": "subgoal"}, {"weight": 1.5}])
def test_a_general_batch_of_short_queries_allocates_no_grid_sized_workspace(options: dict[str, object]) -> None:
    """``find_paths`` with options that take the general path (``partial=True``, ``jps``, ``hpa``,
    ``subgoal``, ``weight > 1``) allocated a search workspace for the whole grid in every thread on
    every call (8 MB on 510 x 510): 8 short queries took 6-8 ms against 1.3-2.3 ms now. Each search
    borrows a workspace from the pool, as a queue's searches do; the answers are the same."""
    grid, starts, goals = short_batch()
    paths, peak = batch_peak(grid, starts, goals, options)
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


def _straight(queue: PathQueue, grid: TileGrid, how: str, called: list[PathRequest]) -> PathRequest:
    """A request on row 2 of ``grid`` (9 x 5, open) answered at request time, its ``on_done`` due."""
    if how == "cache hit":
        queue._cache.find_path(grid, (0, 2), (8, 2))  # type: ignore[union-attr]
        req = queue.request(grid, (0, 2), (8, 2), on_done=called.append)
        assert queue.stats.cache_hits == 1
    elif how == "quick":
        req = queue.request(grid, (0, 2), (8, 2), on_done=called.append, quick_expansions=10**6)
    else:  # found by an update whose callbacks were not all called: one raised
        queue.request(grid, (0, 0), (1, 0), on_done=lambda r: 1 / 0)
        req = queue.request(grid, (0, 2), (8, 2), on_done=called.append)
        with pytest.raises(ZeroDivisionError):
            queue.update()
    assert req.status is PathStatus.FOUND and req.path.cost == 8.0 and not called
    return req


@pytest.mark.parametrize("how", ["cache hit", "quick", "update"])
@pytest.mark.parametrize("on_change", ["restart", "stale"])
def test_an_answer_waiting_for_its_callback_is_checked_against_the_edits_since(how: str, on_change: str) -> None:
    """An answer given at request time (a cache hit, a quick search that finished) or by an update
    whose callbacks stopped at one that raised had its ``on_done`` called at the next update with
    the path as found, although the game had walled it off meanwhile (documented in be8129d): the
    unit walked into the wall. The callback now gets an answer that holds: searched again
    (``on_change="restart"``) or STALE."""
    grid = TileGrid(np.ones((5, 9), bool))
    queue = PathQueue(budget_ms=None, max_expansions=1000, cache=PathCache(), on_change=on_change)
    called: list[PathRequest] = []
    req = _straight(queue, grid, how, called)
    grid.set_walkable((4, 0, 5, 4), False)  # across row 2, open at y = 4
    for _ in range(3):
        queue.update()
    assert called == [req] and req.done
    if on_change == "stale":
        assert req.status is PathStatus.STALE and len(req.path.cells) == 0
    else:
        expected = gamenav.find_path(grid, (0, 2), (8, 2))
        assert req.status is PathStatus.FOUND and req.path.cost == expected.cost > 8.0
        assert np.array_equal(req.path.cells, expected.cells)
    assert len(queue) == 0 and queue.stats.pending == 0


@pytest.mark.parametrize("how", ["cache hit", "quick", "update"])
def test_an_answer_waiting_for_its_callback_that_an_edit_leaves_alone_is_delivered(how: str) -> None:
    """An edit the answer does not depend on (a wall off its path that opens no shorter way)
    leaves it as it was: the same path, no search again."""
    grid = TileGrid(np.ones((5, 9), bool))
    queue = PathQueue(budget_ms=None, max_expansions=1000, cache=PathCache())
    called: list[PathRequest] = []
    req = _straight(queue, grid, how, called)
    path = req.path
    grid.set_walkable((4, 4), False)
    queue.update()
    assert called == [req] and req.path is path and queue.stats.restarts == 0


def test_a_callback_that_edits_the_grid_outdates_the_answers_after_it() -> None:
    """A callback walling off the path of an answer whose callback comes after it in the same
    update: that answer is searched again, and each request gets exactly one callback."""
    grid = TileGrid(np.ones((5, 9), bool))
    queue = PathQueue(budget_ms=None, max_expansions=1000)
    called: list[PathRequest] = []

    def wall(req: PathRequest) -> None:
        called.append(req)
        grid.set_walkable((4, 0, 5, 4), False)

    first = queue.request(grid, (0, 0), (1, 0), on_done=wall)
    second = queue.request(grid, (0, 2), (8, 2), on_done=called.append)
    queue.update()
    assert called == [first] and not second.done  # searched again
    queue.update()
    assert called == [first, second] and second.path.cost == gamenav.find_path(grid, (0, 2), (8, 2)).cost > 8.0
    for _ in range(3):
        queue.update()
    assert called == [first, second]


def test_a_navmesh_answer_waiting_for_its_callback_is_searched_again_after_a_mesh_edit() -> None:
    """A navmesh path answered at request time, whose mesh got an obstacle across it before the
    next update, reached ``on_done`` through the obstacle; it is searched again on the mesh as it is."""
    mesh = gamenav.NavMesh.from_polygons([[(0.0, 0.0), (20.0, 0.0), (20.0, 10.0), (0.0, 10.0)]])
    cache = PathCache()
    queue = PathQueue(budget_ms=None, max_expansions=1000, cache=cache)
    cache.find_path(mesh, (1.0, 5.0), (19.0, 5.0))
    called: list[PathRequest] = []
    req = queue.request(mesh, (1.0, 5.0), (19.0, 5.0), on_done=called.append)
    assert req.path.cost == pytest.approx(18.0)
    mesh.add_obstacle(shapely.box(9.0, 2.0, 11.0, 8.0))
    for _ in range(3):
        queue.update()
    assert called == [req]
    expected = gamenav.find_path(mesh, (1.0, 5.0), (19.0, 5.0))
    assert req.path.cost == expected.cost > 18.5
    assert np.array_equal(req.path.points, expected.points)


def test_answers_delivered_before_any_edit_cost_no_invalidation_bookkeeping(monkeypatch: pytest.MonkeyPatch) -> None:
    """Checking waiting answers against edits (above) computed each answer's footprint when it was
    given, though almost every answer reaches its callback before any edit: 17% of the time of 300
    short requests with ``on_done`` on a 512 x 512 map (profiled). A footprint is computed at the
    first edit after the answer."""
    from gamenav.runtime._invalidation import EntryTable

    added: list[object] = []
    add_result = EntryTable.add_result
    monkeypatch.setattr(EntryTable, "add_result", lambda self, key, *a: added.append(key) or add_result(self, key, *a))
    grid = TileGrid(np.ones((5, 9), bool))
    queue = PathQueue(budget_ms=None, max_expansions=1000)
    called: list[PathRequest] = []
    for y in range(5):
        queue.request(grid, (0, y), (8, 4 - y), on_done=called.append, quick_expansions=y % 2 * 10**6)
    queue.update()
    assert len(called) == 5 and not added
    waiting = queue.request(grid, (0, 2), (8, 2), on_done=called.append, quick_expansions=10**6)
    grid.set_walkable((4, 4), False)  # (off its path: it holds)
    assert added == [waiting]
    queue.update()
    assert called[-1] is waiting and waiting.path.cost == 8.0


@pytest.mark.parametrize("algorithm", ["jps", "hpa", "subgoal"])
@pytest.mark.parametrize("on_change", ["restart", "stale"])
def test_a_waiting_answer_that_a_fresh_search_would_refuse_is_stale(algorithm: str, on_change: str) -> None:
    """A ``jps`` / ``hpa`` / ``subgoal`` answer given at request time reached ``on_done`` FOUND after
    an edit made the grid weighted (a cost raised off its path), where a search spanning that edit,
    a cache lookup and a fresh search refuse the query (UnsupportedOptionError: answered STALE).
    It is answered STALE as they are."""
    grid = TileGrid(np.ones((5, 9), bool))
    queue = PathQueue(budget_ms=None, max_expansions=1000, on_change=on_change)
    called: list[PathRequest] = []
    req = queue.request(grid, (0, 2), (8, 2), on_done=called.append, quick_expansions=10**6, algorithm=algorithm)
    assert req.status is PathStatus.FOUND
    grid.set_cost((4, 4), 3.0)  # off its path
    with pytest.raises(gamenav.UnsupportedOptionError):
        gamenav.find_path(grid, (0, 2), (8, 2), algorithm=algorithm)
    for _ in range(2):
        queue.update()
    assert called == [req] and req.status is PathStatus.STALE and len(queue) == 0
