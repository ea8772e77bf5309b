"""Many queries on all cores: :func:`find_paths`.

gamenav's kernels release the GIL, so threads answer queries in parallel: each worker thread
takes the next query from a shared counter, runs it with its own workspace and stores the
answer in its slot. Python glue between kernel calls (a few microseconds per query) still holds
the GIL, so the speed-up is close to the number of cores for searches of a few hundred
microseconds or more, and small for tiny ones (use ``workers=1`` there).

The worker threads (``gamenav-worker-N``) are started on first use and reused; the calling
thread works too, so ``workers=n`` uses ``n - 1`` pool threads.
"""

from __future__ import annotations

import itertools
import os
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

import numpy as np
import numpy.typing as npt

from gamenav._kernels.grid_search import FOUND
from gamenav._validate import flag, is_int, is_real, shown
from gamenav.errors import InvalidInputError
from gamenav.grid._fast import Tables, _workspace, fast_rule, snapshot_tables, int_pairs, make_path
from gamenav.grid.clearance import radius_state
from gamenav.grid.movement import Diagonal
from gamenav.grid.search import GridSearch, Lease
from gamenav.grid.tilegrid import TileGrid
from gamenav.navmesh.mesh import NavMesh, world_point
from gamenav.navmesh.search import NavMeshSearch, check_search_options
from gamenav.query import find_path
from gamenav.types import Path, PathStatus

__all__ = ["default_workers", "find_paths", "run_parallel"]

_lock = threading.Lock()
_executor: ThreadPoolExecutor | None = None
_executor_size = 0


def default_workers() -> int:
    """The cores this process may run on (``os.sched_getaffinity`` where available)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def check_workers(workers: Any) -> int:
    """``workers`` as a thread count: an int >= 1, or None for :func:`default_workers`; never
    more than :func:`default_workers` (the kernels keep a core busy each, so more threads only
    add memory: every pool thread keeps its workspace).

    Raises:
        InvalidInputError: anything else.
    """
    if workers is None:
        return default_workers()
    if not is_int(workers) or workers < 1:
        raise InvalidInputError(f"workers must be an int >= 1 or None, got {shown(workers)}")
    return min(int(workers), default_workers())


def _submit(fn: Callable[[], None], threads: int) -> list[Future[None]]:
    """Run ``fn`` on up to ``threads`` threads of the shared worker pool (grown to that many
    first); returns the futures of the calls the pool took.

    Under the lock, so that no other caller growing the pool shuts this one down between the
    two (work submitted before a shutdown still runs). Once the interpreter shuts down (the
    main thread ended while other threads run, or in ``atexit`` handlers) the pool takes no
    new work, nor when no thread can be started: fewer calls, or none, are taken."""
    global _executor, _executor_size
    with _lock:
        if _executor is None or _executor_size < threads:
            old = _executor
            _executor = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="gamenav-worker")
            _executor_size = threads
            if old is not None:
                old.shutdown(wait=False)
        futures: list[Future[None]] = []
        for _ in range(threads):
            try:
                futures.append(_executor.submit(fn))
            except RuntimeError:
                break
        return futures


def run_parallel(count: int, workers: int, make_worker: Callable[[], Callable[[int], None]]) -> None:
    """Run ``job(i)`` for ``i in range(count)`` on ``workers`` threads (the caller is one).

    ``make_worker()`` is called once in each thread and returns that thread's ``job`` (so it
    can own a workspace). The first exception stops the others (they finish their current job)
    and is raised here, in the caller, once every thread stopped. Threads the pool does not
    provide (see :func:`_submit`) leave their share to the others: the caller alone does every
    job if need be.
    """
    workers = max(1, min(workers, count))
    counter = itertools.count()
    failed: list[BaseException] = []
    running = 0  # pool threads inside loop() (a job is taken only after entering)
    stopped = threading.Condition()

    def loop() -> None:
        try:
            job = make_worker()
            while not failed:
                i = next(counter)  # atomic under the GIL
                if i >= count:
                    return
                job(i)
        except BaseException as exc:
            failed.append(exc)

    def pooled() -> None:
        nonlocal running
        with stopped:
            running += 1
        try:
            loop()
        finally:
            with stopped:
                running -= 1
                stopped.notify_all()

    futures = _submit(pooled, workers - 1) if workers > 1 else []
    loop()  # returns once every job was taken
    for future in futures:
        future.cancel()  # a thread not started yet has nothing left to do
    if workers > 1:
        with stopped:  # (a thread entering from now on finds no job left)
            stopped.wait_for(lambda: running == 0)
    if failed:
        raise failed[0]


def _pairs(starts: Any, goals: Any) -> tuple[list[Any], list[Any]]:
    """``starts``/``goals`` as equally long lists (numpy arrays become lists of Python numbers)."""
    lists = []
    for name, value in (("starts", starts), ("goals", goals)):
        if isinstance(value, np.ndarray):
            if value.ndim != 2 or value.shape[1] != 2:
                raise InvalidInputError(f"{name} must have shape (n, 2), got {value.shape}")
            lists.append(value.tolist())
        elif isinstance(value, (str, bytes)) or not isinstance(value, Sequence):
            raise InvalidInputError(
                f"{name} must be a sequence of (x, y) pairs or an (n, 2) array, got {type(value).__name__}")
        elif len(value) == 2 and all(is_real(v) for v in value):
            raise InvalidInputError(f"{name} must be a sequence of (x, y) pairs, got one pair {shown(value)} "
                                    f"(find_path answers one query; a batch of one is [{shown(value)}])")
        else:
            lists.append(list(value))
    if len(lists[0]) != len(lists[1]):
        raise InvalidInputError(
            f"starts and goals must have the same length, got {len(lists[0])} and {len(lists[1])}")
    return lists[0], lists[1]


def _check_world(world: Any, options: dict[str, Any]) -> None:
    """The world's kind and the options, whatever the batch's size (each query's checks cover
    them too, but an empty batch has none: a wrong world or option passed)."""
    if isinstance(world, TileGrid):
        GridSearch._check(world, (0, 0), (0, 0), **options)  # (a cell of every grid)
    elif isinstance(world, NavMesh):
        check_search_options(options)
    else:
        raise InvalidInputError(f"world must be a TileGrid or a NavMesh, got {type(world).__name__}")


def _default_cells(t: Tables, start: Any, goal: Any) -> tuple[int, int, int, int] | None:
    """Plain in-bounds int cells on passable ground (the fast kernel's input), else None."""
    cells = int_pairs(start, goal)
    if cells is None:
        return None
    sx, sy, gx, gy = cells
    w, h = t.width, t.height
    if not (0 <= sx < w and 0 <= gx < w and 0 <= sy < h and 0 <= gy < h):
        return None
    stride = w + 2
    passable = t.bits[1]
    if not (passable[(sy + 1) * stride + sx + 1] and passable[(gy + 1) * stride + gx + 1]):
        return None
    return sx, sy, gx, gy


def _grid_fast(grid: TileGrid, starts: list[Any], goals: list[Any], workers: int,
               rule: tuple[Diagonal, int, bool, bool, float], options: dict[str, Any]) -> list[Path]:
    """Queries on one snapshot of ``grid`` through the one-call kernel, as find_path answers them
    with options ``options`` (their :func:`fast_rule` ``rule``; not ``partial``: a partial path
    comes from the general path). A grid over ``MAX_CELLS``, or a radius no cell fits: the
    general path's, whose workspaces find_path also uses there."""
    diagonal, heuristic, smooth, _, radius = rule
    found = snapshot_tables(grid, radius)
    if found is None:
        return _grid_general(grid, starts, goals, workers, options)
    state, t = found
    bits, labels, kernel = t.rule(state, diagonal)
    cells: list[tuple[int, int, int, int]] = []
    for start, goal in zip(starts, goals, strict=True):
        q = _default_cells(t, start, goal)
        if q is None:
            find_path(grid, start, goal, **options)  # raises the general path's error
            return _grid_general(grid, starts, goals, workers, options)  # an int subclass, numpy ints...
        cells.append(q)
    results: list[Path | None] = [None] * len(cells)

    def make_worker() -> Callable[[int], None]:
        ws = _workspace(t.cells)  # the thread's, as find_path's (a grid-sized one zeroed per call: 12 MB)
        cost, geo, ints, longs = t.cost, t.geo, ws.ints, ws.longs

        def job(i: int) -> None:
            sx, sy, gx, gy = cells[i]
            code, c, expanded, path_cells, points = kernel(
                bits, cost, labels, geo, ints, longs, sx, sy, gx, gy, heuristic, smooth)
            status = PathStatus.FOUND if code == FOUND else PathStatus.NO_PATH
            results[i] = make_path(status, c, path_cells, points, expanded)

        return job

    run_parallel(len(cells), workers, make_worker)
    return results  # type: ignore[return-value]  # every slot filled


def _grid_general(grid: TileGrid, starts: list[Any], goals: list[Any], workers: int,
                  options: dict[str, Any]) -> list[Path]:
    """Queries with options: a GridSearch per query on one snapshot, each on a workspace borrowed
    from the pool (none allocated per call once the pool holds one per thread)."""
    if "workspace" in options:
        raise InvalidInputError("find_paths gives each thread its own workspace; do not pass "
                                f"workspace= (got {shown(options['workspace'])})")
    # every error before any thread starts
    requests = [GridSearch._check(grid, s, g, **options) for s, g in zip(starts, goals, strict=True)]
    if not requests:
        return []
    # grid-level errors (e.g. JPS on a weighted grid) come from starting a search (before an index
    # is built for the lease; not under the lock: it runs the heuristic, the caller's code)
    GridSearch._from_checked(requests[0]).cancel()
    with grid._edit_lock:  # no edit between the snapshot and its index data
        state = grid._snapshot()  # the one snapshot every query searches
        # its JPS+ table or hpa / subgoal graph for every query: a search started after another
        # thread's edit would run online JPS or A* without it (the index is built here, in this
        # thread: a build takes the grid's edit lock, which it may hold inside a listener)
        lease = Lease(grid, state, requests[0])
    try:
        for req in requests:  # blocked endpoints (for the agent's radius, if any) on that snapshot
            (sx, sy), (gx, gy) = req.start, req.goal
            passable = radius_state(state, req.mask).passable
            if not passable[sy, sx] or not (req.partial or passable[gy, gx]):
                GridSearch._from_checked(req, state, lease)  # raises BlockedEndpointError
        results: list[Path | None] = [None] * len(starts)

        def job(i: int) -> None:  # (its workspace borrowed from the pool and given back, as a queue's)
            search = GridSearch._from_checked(requests[i], state, lease)
            search.step(None)
            results[i] = search.result()

        run_parallel(len(starts), workers, lambda: job)
    finally:
        lease.close()
    return results  # type: ignore[return-value]


def _mesh(mesh: NavMesh, starts: list[Any], goals: list[Any], workers: int,
          options: dict[str, Any]) -> list[Path]:
    """Queries on one snapshot of ``mesh``, every error raised in the caller first: the first
    query's search is built there (the options' errors), and each other query's points are read
    and, without ``clamp=True``, located as its search does (one that fails builds its search,
    which raises). Each thread builds and runs one search at a time: a search holds 1-2 MB of
    work arrays until it ends (built all at once, 800 exact queries held 1.7 GB)."""
    state = mesh._snapshot()  # the one state every query searches, whatever edits come meanwhile
    ends: list[tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]] = []  # read once
    clamp = False
    for s, g in zip(starts, goals, strict=True):
        pair = world_point(s, "start"), world_point(g, "goal")
        if not ends:
            NavMeshSearch(state, *pair, **options).cancel()
            clamp = flag(options.get("clamp", False), "clamp")
        elif not clamp and (state._locate(np.array(pair)) < 0).any():
            NavMeshSearch(state, *pair, **options)  # raises its BlockedEndpointError
        ends.append(pair)
    results: list[Path | None] = [None] * len(ends)

    def make_worker() -> Callable[[int], None]:
        def job(i: int) -> None:
            search = NavMeshSearch(state, *ends[i], **options)
            search.step(None)
            results[i] = search.result()

        return job

    run_parallel(len(ends), workers, make_worker)
    return results  # type: ignore[return-value]  # every slot filled


def find_paths(world: Any, starts: Any, goals: Any, *, workers: int | None = None,
               **options: Any) -> list[Path]:
    """Answer ``find_path(world, starts[i], goals[i], **options)`` for every ``i``, on threads.

    Args:
        world: a :class:`~gamenav.TileGrid` or a :class:`~gamenav.NavMesh`.
        starts, goals: equally long sequences of ``(x, y)`` cells (grids) or points (navmeshes),
            or ``(n, 2)`` arrays.
        workers: threads to use (the calling thread is one of them), at most the cores this
            process may use (:func:`default_workers`); None: all of those.
        **options: the search options of :func:`gamenav.find_path` (not ``workspace``: each
            thread has its own).

    Returns:
        ``n`` :class:`~gamenav.Path` objects in query order, each equal (bit for bit) to what
        ``find_path`` returns for that query. Every query searches the snapshot of the grid or
        mesh current when ``find_paths`` was called (an edit from another thread meanwhile
        applies to later calls; on a mesh, every ``Path.corridor`` names triangles of that one
        version).

    Raises:
        The errors of :func:`gamenav.find_path` (checked for every query before any thread
        starts, raised here in the caller; the world and the options also for an empty batch);
        InvalidInputError for bad ``workers`` or mismatched ``starts`` / ``goals``.

    Example:
        >>> import gamenav
        >>> grid = gamenav.TileGrid.from_strings(["....", ".##.", "...."])
        >>> paths = gamenav.find_paths(grid, [(0, 0), (3, 0)], [(3, 2), (0, 2)], workers=2)
        >>> [p.cost for p in paths]
        [5.0, 5.0]
    """
    n_workers = check_workers(workers)
    _check_world(world, options)
    starts_list, goals_list = _pairs(starts, goals)
    if isinstance(world, TileGrid):
        rule = fast_rule(options)
        if rule is not None and not rule[3]:
            return _grid_fast(world, starts_list, goals_list, n_workers, rule, options)
        return _grid_general(world, starts_list, goals_list, n_workers, options)
    return _mesh(world, starts_list, goals_list, n_workers, options)
