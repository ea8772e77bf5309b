"""Copies, pickles and lifetimes of gamenav's public objects, second round."""

from __future__ import annotations

import gc
import pickle
import weakref
from collections.abc import Iterator

import numpy as np
import pytest

from gamenav import GridChange, NavMesh, NavMeshSearch, Path, PathQueue, PathRequest, PathStatus, TileGrid, find_path
from gamenav.navmesh.dynamic import NavMeshChange


@pytest.fixture
def no_collector() -> Iterator[None]:
    """Run the test with the garbage collector off: objects must go by reference counting."""
    enabled = gc.isenabled()
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


@pytest.mark.parametrize("quick", [0, 3])
def test_a_dropped_queue_with_pending_requests_frees_their_worlds_and_searches(no_collector: None,
                                                                               quick: int) -> None:
    """A pending request and its job held each other (request -> job -> requests): once the queue
    was dropped they stayed in a cycle with the job's search and its world, so a dropped level
    (grid and queue) stayed in memory until a garbage collection."""
    grid = TileGrid(np.ones((20, 30), bool))
    queue = PathQueue(budget_ms=None, max_expansions=1)
    queue.request(grid, (0, 0), (29, 19), quick_expansions=quick)
    queue.request(grid, (1, 0), (29, 19))
    queue.update()
    world, held = weakref.ref(grid), weakref.ref(queue)
    del queue, grid
    assert held() is None and world() is None


def test_a_request_held_after_its_queue_is_dropped_keeps_only_its_world(no_collector: None) -> None:
    grid = TileGrid(np.ones((20, 30), bool))
    queue = PathQueue(budget_ms=None, max_expansions=1)
    req = queue.request(grid, (0, 0), (29, 19))
    queue.update()
    del queue
    assert req.world is grid and req.status is PathStatus.IN_PROGRESS
    req.cancel()
    assert req.status is PathStatus.CANCELLED
    world = weakref.ref(grid)
    del grid, req
    assert world() is None


def test_path_requests_can_be_held_weakly(no_collector: None) -> None:
    """``weakref.ref(request)`` raised "cannot create weak reference to 'PathRequest' object", so a
    game could not keep its requests in a ``weakref.WeakSet`` or watch them with ``weakref.finalize``."""
    grid = TileGrid(np.ones((5, 5), bool))
    queue = PathQueue(budget_ms=None, max_expansions=100)
    watched: weakref.WeakSet[PathRequest] = weakref.WeakSet()
    req = queue.request(grid, (0, 0), (4, 4))
    watched.add(req)
    gone: list[str] = []
    weakref.finalize(req, gone.append, "freed")
    queue.update()
    assert [r.status for r in watched] == [PathStatus.FOUND]
    del req
    assert not watched and gone == ["freed"]


def _out_of_band(obj: object, writable: bool) -> object:
    """``obj`` through pickle protocol 5 with out-of-band buffers (as shared-memory transports
    hand them: ``bytes`` are read-only), and the buffers, which their owner may write later."""
    buffers: list[pickle.PickleBuffer] = []
    data = pickle.dumps(obj, protocol=5, buffer_callback=buffers.append)
    raw = [bytearray(b.raw()) if writable else bytes(b.raw()) for b in buffers]
    return pickle.loads(data, buffers=raw), raw


@pytest.mark.parametrize("exact", [False, True])
def test_a_navmesh_search_unpickled_from_read_only_buffers_resumes(exact: bool) -> None:
    """A search unpickled over read-only out-of-band buffers had read-only work arrays: its next
    ``step()`` raised numba's TypingError ("No implementation of function setitem ... readonly
    array") after trying to compile the kernels for them; it now owns arrays as writable as the
    original's and ends on the one-shot path, bit for bit."""
    walk = np.ones((30, 30), bool)
    walk[5:25, 15] = False
    mesh = NavMesh.from_grid(TileGrid(walk))
    search = NavMeshSearch(mesh, (0.5, 0.5), (29.5, 29.5), exact=exact)
    search.step(2)
    for writable in (False, True):
        twin, raw = _out_of_band(search, writable)
        assert isinstance(twin, NavMeshSearch)
        if writable:
            for buffer in raw:
                assert isinstance(buffer, bytearray)
                buffer[:] = bytes(len(buffer))  # the owner reuses its buffers: the search has its own
        while not twin.status.done:
            twin.step(5)
        one_shot = find_path(mesh, (0.5, 0.5), (29.5, 29.5), exact=exact)
        assert twin.result().status is PathStatus.FOUND and twin.result().cost == one_shot.cost
        assert np.array_equal(twin.result().points, one_shot.points)
    assert search.status is PathStatus.IN_PROGRESS and search.expanded == 2


def _records() -> list[object]:
    """A grid path, a navmesh path, a GridChange and a NavMeshChange (each with arrays)."""
    grid = TileGrid.from_strings(["......", ".##...", "......"])
    mesh = NavMesh.from_grid(grid)
    heard: list[object] = []
    grid.subscribe(heard.append)
    mesh.subscribe(heard.append)
    grid.set_walkable((5, 0), False)
    mesh.add_obstacle([(0.1, 2.1), (0.9, 2.1), (0.9, 2.9)])
    return [find_path(grid, (0, 0), (5, 2)), find_path(mesh, (0.5, 0.5), (5.5, 2.5)), *heard]


@pytest.mark.parametrize("index", range(4))
def test_records_unpickled_from_out_of_band_buffers_own_their_arrays(index: int) -> None:
    """Paths and change records unpickled from pickle protocol 5's out-of-band buffers kept their
    arrays over those buffers: the documented read-only cells, points and cell lists changed when
    the buffers' owner wrote them (a path's cells went to (0, 0) everywhere)."""
    record = _records()[index]
    names = {Path: ("cells", "points", "corridor"), GridChange: ("blocked", "opened", "passable"),
             NavMeshChange: ("removed", "added")}[type(record)]
    twin, raw = _out_of_band(record, writable=True)
    assert type(twin) is type(record) and raw
    for buffer in raw:
        assert isinstance(buffer, bytearray)
        buffer[:] = bytes(len(buffer))
    for name in names:
        array = getattr(twin, name)
        assert np.array_equal(array, getattr(record, name)) and not array.flags.writeable


def test_a_path_built_from_the_callers_arrays_leaves_them_writable_and_does_not_follow_them() -> None:
    """``Path(...)`` marked the caller's own arrays read-only (their next write raised), and a path
    built from a slice of a writable array changed when that array was written."""
    cells = np.array([[0, 0], [1, 0], [2, 1]], dtype=np.int64)
    base = np.zeros((4, 2))
    points = base[:3]
    path = Path(PathStatus.FOUND, 2.0, cells, points, 3)
    cells[0] = (7, 7)  # the caller's arrays stay theirs
    base[:] = 9.0
    assert path.cells.tolist() == [[0, 0], [1, 0], [2, 1]] and not path.points.any()
    assert not path.cells.flags.writeable and not path.points.flags.writeable
    frozen = np.zeros(0, dtype=np.int64)
    frozen.flags.writeable = False
    assert Path(PathStatus.FOUND, corridor=frozen).corridor is frozen  # read-only: kept
