"""find_paths (threads over nogil kernels) and PathQueue(workers=N): the answers of find_path,
bit for bit; validation before any thread starts; worker errors raised in the caller."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import gamenav
from gamenav import parallel
from gamenav.types import Path


def _same(a: Path, b: Path) -> None:
    assert a.status is b.status and a.expanded == b.expanded
    assert np.float64(a.cost).tobytes() == np.float64(b.cost).tobytes()
    for name in ("cells", "points", "corridor"):
        x, y = getattr(a, name), getattr(b, name)
        assert x.dtype == y.dtype and x.shape == y.shape and x.tobytes() == y.tobytes(), name
        assert not x.flags.writeable


def _grid(seed: int, h: int = 24, w: int = 31, walls: float = 0.3, weighted: bool = False
          ) -> gamenav.TileGrid:
    rng = np.random.default_rng(seed)
    cost = rng.choice([1.0, 2.0, 5.0], size=(h, w)) if weighted else None
    return gamenav.TileGrid(rng.random((h, w)) > walls, cost=cost)


def _queries(grid: gamenav.TileGrid, n: int, seed: int) -> tuple[list[Any], list[Any]]:
    rng = np.random.default_rng(seed)
    free = np.argwhere(grid.passable)[:, ::-1]
    idx = rng.integers(0, len(free), size=(n, 2))
    return ([tuple(int(v) for v in free[i]) for i in idx[:, 0]],
            [tuple(int(v) for v in free[j]) for j in idx[:, 1]])


OPTIONS: list[dict[str, Any]] = [
    {},
    {"algorithm": "jps"},
    {"algorithm": "dijkstra"},
    {"diagonal": "never"},
    {"diagonal": "always", "smooth": True},
    {"weight": 1.5},
    {"heuristic": "euclidean"},
]


@pytest.mark.parametrize("options", OPTIONS, ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()) or "default")
@pytest.mark.parametrize("workers", [1, 2, 3])
def test_find_paths_equals_find_path(options: dict[str, Any], workers: int) -> None:
    grid = _grid(1)
    starts, goals = _queries(grid, 40, 2)
    paths = gamenav.find_paths(grid, starts, goals, workers=workers, **options)
    assert len(paths) == 40
    for s, g, p in zip(starts, goals, paths, strict=True):
        _same(p, gamenav.find_path(grid, s, g, **options))


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**31), walls=st.sampled_from([0.0, 0.25, 0.45]),
       weighted=st.booleans(), partial=st.booleans(), workers=st.integers(1, 4))
def test_find_paths_property(seed: int, walls: float, weighted: bool, partial: bool,
                             workers: int) -> None:
    grid = _grid(seed, h=9, w=13, walls=walls, weighted=weighted)
    if not grid.passable.any():
        return
    starts, goals = _queries(grid, 12, seed + 1)
    options = {"partial": True} if partial else {}
    if partial:  # blocked goals are allowed with partial=True
        goals[0] = (0, 0)
    paths = gamenav.find_paths(grid, np.array(starts), goals, workers=workers, **options)
    for s, g, p in zip(starts, goals, paths, strict=True):
        _same(p, gamenav.find_path(grid, s, g, **options))


def test_find_paths_on_a_navmesh() -> None:
    mesh = gamenav.NavMesh.from_polygons([(0, 0), (20, 0), (20, 20), (0, 20)],
                                         obstacles=[[(5, 5), (15, 5), (15, 15), (5, 15)]])
    rng = np.random.default_rng(3)
    pts = rng.uniform(0.5, 19.5, size=(30, 2))
    pts = pts[mesh.locate(pts) >= 0]
    starts, goals = pts[: len(pts) // 2], pts[len(pts) // 2: 2 * (len(pts) // 2)]
    for exact in (False, True):
        paths = gamenav.find_paths(mesh, starts, goals, workers=2, exact=exact)
        for s, g, p in zip(starts, goals, paths, strict=True):
            want = gamenav.find_path(mesh, s, g, exact=exact)
            assert p.status is want.status and p.cost == want.cost
            assert np.array_equal(p.points, want.points)


def test_empty_and_single() -> None:
    grid = _grid(4)
    assert gamenav.find_paths(grid, [], [], workers=2) == []
    s, g = _queries(grid, 1, 5)
    _same(gamenav.find_paths(grid, s, g)[0], gamenav.find_path(grid, s[0], g[0]))


@pytest.fixture
def no_threads(monkeypatch: pytest.MonkeyPatch) -> None:
    """Fail if find_paths gets as far as running queries."""
    def refuse(*args: object) -> None:
        raise AssertionError("queries ran before validation finished")
    monkeypatch.setattr(parallel, "run_parallel", refuse)


@pytest.mark.parametrize(("starts", "goals", "options", "error", "match"), [
    ([(0, 0), (1, 0)], [(2, 0)], {}, gamenav.InvalidInputError, "same length"),
    ([(0, 0), (99, 0)], [(2, 0), (2, 0)], {}, gamenav.OutOfBoundsError, "start"),
    ([(0, 0), (1, 0)], [(2, 0), (1, 1)], {}, gamenav.BlockedEndpointError, "goal"),
    ([(0, 0), (1, 0)], [(2, 0), (1, 1)], {"smooth": True}, gamenav.BlockedEndpointError, "goal"),
    ([(0, 0), (1, 0)], [(2, 0), (2, -1)], {"smooth": True}, gamenav.OutOfBoundsError, "goal"),
    ([(0, 0)], [(2, 0)], {"diagnal": "never"}, gamenav.InvalidOptionError, "diagnal"),
    ([(0, 0)], [(2, 0)], {"workspace": None}, gamenav.InvalidInputError, "workspace"),
    ([(0, 0)], [(2, 0)], {"algorithm": "jps", "weight": 2.0}, gamenav.UnsupportedOptionError, "jps"),
    ("ab", [(2, 0)], {}, gamenav.InvalidInputError, "starts"),
    (np.zeros((2, 3), dtype=int), [(2, 0)], {}, gamenav.InvalidInputError, "starts"),
])
def test_validation_before_any_search(no_threads: None, starts: Any, goals: Any,
                                      options: dict[str, Any], error: type[Exception],
                                      match: str) -> None:
    grid = gamenav.TileGrid.from_strings(["...", ".#.", "..."])
    with pytest.raises(error, match=match):
        gamenav.find_paths(grid, starts, goals, workers=2, **options)


@pytest.mark.parametrize(("world", "options", "error", "match"), [
    ("grid", {"algoritm": "jps"}, gamenav.InvalidOptionError, "algoritm"),
    ("grid", {"algorithm": "jsp"}, gamenav.InvalidInputError, "algorithm must be one of"),
    ("mesh", {"exakt": True}, gamenav.InvalidOptionError, "exakt"),
    ("a grid", {}, gamenav.InvalidInputError, "world must be a TileGrid or a NavMesh, got str"),
])
def test_an_empty_batch_checks_its_world_and_options(world: str, options: dict[str, Any],
                                                     error: type[Exception], match: str) -> None:
    """With no query to check them on, a wrong world or a misspelt option returned [] (and
    failed only in the first frame that had queries)."""
    target: Any = {"grid": lambda: _grid(4), "mesh": lambda: gamenav.NavMesh.from_polygons(
        [[(0, 0), (4, 0), (4, 4), (0, 4)]])}.get(world, lambda: world)()
    with pytest.raises(error, match=match):
        gamenav.find_paths(target, [], [], **options)


def test_jps_on_a_weighted_grid_fails_before_the_threads(no_threads: None) -> None:
    grid = _grid(5, weighted=True, walls=0.0)
    with pytest.raises(gamenav.UnsupportedOptionError, match="uniform"):
        gamenav.find_paths(grid, [(0, 0)], [(3, 3)], workers=2, algorithm="jps")


def test_a_blocked_endpoint_for_the_agent_radius_fails_before_the_threads(no_threads: None) -> None:
    grid = gamenav.TileGrid(np.ones((7, 7), dtype=bool))  # radius 0.8: cells 1..5 keep off the edge
    with pytest.raises(gamenav.BlockedEndpointError, match=r"goal \(0, 0\) is blocked for agent_radius=0.8"):
        gamenav.find_paths(grid, [(1, 1), (1, 1)], [(5, 5), (0, 0)], workers=2, agent_radius=0.8)


def test_every_query_of_a_batch_searches_the_snapshot_of_the_call() -> None:
    grid = gamenav.TileGrid(np.ones((5, 9), dtype=bool))
    calls: list[int] = []

    def octile(dx: np.ndarray, dy: np.ndarray) -> np.ndarray:
        calls.append(1)
        if len(calls) == 3:  # while the batch runs, "another thread" walls off column 4
            grid.set_walkable((4, 0, 5, 5), False)
        return np.maximum(dx, dy) + (np.sqrt(2) - 1) * np.minimum(dx, dy)

    paths = gamenav.find_paths(grid, [(0, 2)] * 3, [(8, 2)] * 3, heuristic=octile, workers=1)
    assert grid.version == 1
    assert [(p.status, p.cost) for p in paths] == [(gamenav.PathStatus.FOUND, 8.0)] * 3


@pytest.mark.parametrize("workers", [0, -1, True, 1.5, "2"])
def test_bad_workers(workers: Any) -> None:
    grid = _grid(6)
    with pytest.raises(gamenav.InvalidInputError, match="workers"):
        gamenav.find_paths(grid, [(0, 0)], [(0, 0)], workers=workers)
    with pytest.raises(gamenav.InvalidInputError, match="workers"):
        gamenav.PathQueue(workers=workers)


def test_a_worker_error_is_raised_in_the_caller() -> None:
    done: list[int] = []

    def make_worker(fail_at: int) -> Any:
        def job(i: int) -> None:
            if i == fail_at:
                raise KeyError("boom")
            done.append(i)

        return lambda: job

    with pytest.raises(KeyError, match="boom"):
        parallel.run_parallel(10_000, 2, make_worker(7))
    assert len(done) < 9_999  # the others stopped early
    done.clear()
    parallel.run_parallel(100, 2, make_worker(-1))  # the pool still works afterwards
    assert sorted(done) == list(range(100))


def test_default_workers_is_the_usable_cores() -> None:
    assert parallel.default_workers() >= 1
    assert parallel.check_workers(None) == parallel.default_workers()


def test_workers_beyond_the_cores_start_no_threads(monkeypatch: pytest.MonkeyPatch) -> None:
    """``workers=10**6`` once started a thread per query (hundreds of threads, each keeping a
    workspace): threads are capped at the usable cores."""
    import threading

    monkeypatch.setattr(parallel, "default_workers", lambda: 3)
    assert parallel.check_workers(10**6) == 3 and parallel.check_workers(2) == 2
    assert gamenav.PathQueue(workers=10**9)._workers == 3
    grid = _grid(5)
    starts, goals = _queries(grid, 400, seed=6)
    before = {t.name for t in threading.enumerate()}
    paths = gamenav.find_paths(grid, starts, goals, workers=10**6)
    workers = {t.name for t in threading.enumerate()} - before
    assert len(workers) <= 2 and all(name.startswith("gamenav-worker") for name in workers)
    for p, s, g in zip(paths, starts, goals, strict=True):
        _same(p, gamenav.find_path(grid, s, g))


def test_a_batch_whose_pool_another_thread_grows_meanwhile_still_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    """Two threads calling find_paths with different ``workers`` (on a machine with more cores than
    this): one took the shared pool, the other replaced it by a bigger one and shut it down,
    then the first submitted to it and raised 'cannot schedule new futures after shutdown'.
    Taking the pool and submitting are now one step under the pool's lock."""
    import threading

    monkeypatch.setattr(parallel, "default_workers", lambda: 8)
    monkeypatch.setattr(parallel, "_executor", None)
    monkeypatch.setattr(parallel, "_executor_size", 0)
    grid = _grid(3)
    starts, goals = _queries(grid, 16, seed=4)
    other: list[list[Path]] = []

    def bigger_batch() -> None:
        other.append(gamenav.find_paths(grid, starts, goals, workers=5))

    grower = threading.Thread(target=bigger_batch)

    class GrownMeanwhile(parallel.ThreadPoolExecutor):
        def submit(self, *args: Any, **kwargs: Any) -> Any:
            if not grower.is_alive() and not grower.ident:  # the first submission only
                grower.start()
                grower.join(0.3)  # (old code: it replaces this pool before this submission)
            return super().submit(*args, **kwargs)

    monkeypatch.setattr(parallel, "ThreadPoolExecutor", GrownMeanwhile)
    paths = gamenav.find_paths(grid, starts, goals, workers=2)
    grower.join(5)
    assert len(other) == 1
    for batch in (paths, other[0]):
        for p, s, g in zip(batch, starts, goals, strict=True):
            _same(p, gamenav.find_path(grid, s, g))
    parallel._executor.shutdown(wait=True)  # type: ignore[union-attr]  # (the test's own pool)


@pytest.mark.parametrize("workers", [2, 3])
def test_queue_with_workers_gives_find_path_answers(workers: int) -> None:
    grid = _grid(8, h=60, w=70, walls=0.25)
    starts, goals = _queries(grid, 30, 9)
    limit = 500
    queue = gamenav.PathQueue(budget_ms=None, max_expansions=limit, workers=workers)
    requests = [queue.request(grid, s, g) for s, g in zip(starts, goals, strict=True)]
    smooth = queue.request(grid, starts[0], goals[1], smooth=True)
    for _ in range(10_000):
        if all(r.done for r in requests) and smooth.done:
            break
        queue.update()
    assert queue.stats.expansions_max <= limit  # the per-frame expansion budget holds
    for s, g, r in zip(starts, goals, requests, strict=True):
        _same(r.path, gamenav.find_path(grid, s, g))
    _same(smooth.path, gamenav.find_path(grid, starts[0], goals[1], smooth=True))
    queue.close()


def test_queue_with_workers_is_deterministic_under_an_expansion_budget() -> None:
    grid = _grid(10, h=50, w=50, walls=0.2)
    starts, goals = _queries(grid, 20, 11)

    def frames() -> list[int]:
        queue = gamenav.PathQueue(budget_ms=None, max_expansions=300, workers=2)
        requests = [queue.request(grid, s, g) for s, g in zip(starts, goals, strict=True)]
        answered = []
        while not all(r.done for r in requests):
            queue.update()
        answered = [r.frames_waited for r in requests]
        queue.close()
        return answered

    assert frames() == frames()


def test_queue_with_workers_restarts_after_an_edit() -> None:
    grid = gamenav.TileGrid(np.ones((40, 40), dtype=bool))
    queue = gamenav.PathQueue(budget_ms=None, max_expansions=50, workers=2)
    a = queue.request(grid, (0, 0), (39, 39))
    b = queue.request(grid, (39, 0), (0, 39))
    queue.update()
    grid.set_walkable((5, 0, 6, 39), False)  # a wall across both paths, a gap at the bottom
    while not (a.done and b.done):
        queue.update()
    _same(a.path, gamenav.find_path(grid, (0, 0), (39, 39)))
    _same(b.path, gamenav.find_path(grid, (39, 0), (0, 39)))
    queue.close()


def test_queue_expansion_budget_same_frames_as_one_worker() -> None:
    """With ``max_expansions`` (and no time budget) every update spends what one worker's
    would: the same expansions per frame, frame for frame, and the same answers."""
    grid = _grid(12, h=60, w=60, walls=0.25)
    starts, goals = _queries(grid, 25, 13)

    def run(workers: int) -> tuple[list[int], list[Path]]:
        queue = gamenav.PathQueue(budget_ms=None, max_expansions=700, workers=workers)
        requests = [queue.request(grid, s, g) for s, g in zip(starts, goals, strict=True)]
        spent = []
        while len(queue):
            queue.update()
            spent.append(queue.stats.last_frame_expansions)
        queue.close()
        return spent, [r.path for r in requests]

    spent1, paths1 = run(1)
    for workers in (2, 3):
        spent, paths = run(workers)
        assert spent == spent1
        for a, b in zip(paths, paths1, strict=True):
            _same(a, b)
    assert set(spent1[:-1]) == {700}


class _ThreadClocks:
    """Simulated threads for PathQueue(workers=N), deterministic: ``GridSearch.step`` advances
    the running thread's clock (3 us a call + 0.07-0.13 us an expansion, a speed per search);
    a parallel round runs its N threads one after the other in the calling thread, each with
    its own clock starting at the caller's time, the next job going to the thread that is free
    first; the join leaves the caller's clock at the latest thread's end: wall time with one
    core per thread."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, stall_every: int = 0, stall_s: float = 0.0,
                 busy_core: float = 1.0) -> None:
        import types

        from gamenav.grid.search import GridSearch
        from gamenav.runtime import queue as queue_module

        self.time = 0.0
        self.steps = 0
        self.slowdown = 1.0
        real_step = GridSearch.step

        def step(search: GridSearch, max_expansions: int | None = None) -> gamenav.PathStatus:
            before = search.expanded
            status = real_step(search, max_expansions)
            speed = 0.7 + 0.6 * ((search.start[0] * 7 + search.goal[1] * 13) % 11) / 10
            self.time += (3e-6 + (search.expanded - before) * speed * 1e-7) * self.slowdown
            self.steps += 1
            if stall_every and self.steps % stall_every == 0:  # the thread waited for the GIL
                self.time += stall_s
            return status

        def run_parallel(count: int, workers: int, make_worker: Any) -> None:
            start = self.time
            threads = [make_worker() for _ in range(max(1, min(workers, count)))]
            clocks = [start] * len(threads)
            for i in range(count):
                t = clocks.index(min(clocks))
                self.time = clocks[t]
                self.slowdown = busy_core if t > 0 else 1.0  # other threads share a busy core
                threads[t](i)
                clocks[t] = self.time
            self.slowdown = 1.0
            self.time = max(clocks)

        monkeypatch.setattr(GridSearch, "step", step)
        monkeypatch.setattr(queue_module, "run_parallel", run_parallel)
        monkeypatch.setattr(parallel, "default_workers", lambda: 8)  # simulated cores
        monkeypatch.setattr(queue_module, "time", types.SimpleNamespace(perf_counter=self.now))

    def now(self) -> float:
        return self.time


@pytest.mark.parametrize("workers", [1, 2, 3])
def test_queue_time_budget_with_simulated_thread_clocks(monkeypatch: pytest.MonkeyPatch,
                                                        workers: int) -> None:
    """Each update stays within its budget and keeps every thread busy for most of it: N
    threads expand about N times what one does per frame."""
    from tests.runtime.helpers import connected_pairs, rooms_grid

    clocks = _ThreadClocks(monkeypatch)
    grid = rooms_grid(200, 160, seed=21)
    pairs = connected_pairs(grid, 80, seed=22)
    queue = gamenav.PathQueue(budget_ms=0.2, workers=workers)
    requests = [queue.request(grid, s, g) for s, g in pairs]
    used, spent = [], []
    while len(queue):
        t0 = clocks.now()
        queue.update()
        used.append((clocks.now() - t0) * 1e3)
        spent.append(queue.stats.last_frame_expansions)
        assert len(used) < 10_000
    assert max(used) <= 0.2 + 1e-9                      # never past the budget
    assert np.median(used[:-1]) >= 0.17                  # and most of it is used
    # expansions per frame: ~1800 for one thread at these speeds (step overheads included)
    assert np.median(spent[:-1]) >= 1450 * workers
    for req, (s, g) in zip(requests, pairs, strict=True):
        _same(req.path, gamenav.find_path(grid, s, g))


def test_queue_time_budget_holds_when_threads_stall(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every 5th chunk runs 0.03 ms long (a thread waiting for the GIL or descheduled, which no
    speed estimate foresees): two threads learn to stop early, so few updates end late (a
    quarter of them did before), and they still do much more per frame than one thread."""
    from tests.runtime.helpers import connected_pairs, rooms_grid

    grid = rooms_grid(200, 160, seed=21)
    pairs = connected_pairs(grid, 120, seed=22)
    late, work = {}, {}
    for workers in (1, 2):
        clocks = _ThreadClocks(monkeypatch, stall_every=5, stall_s=30e-6)
        queue = gamenav.PathQueue(budget_ms=0.2, workers=workers)
        requests = [queue.request(grid, s, g) for s, g in pairs]
        used, spent = [], []
        while len(queue):
            t0 = clocks.now()
            queue.update()
            used.append((clocks.now() - t0) * 1e3)
            spent.append(queue.stats.last_frame_expansions)
        late[workers] = np.mean(np.array(used[:-1]) > 0.2 + 1e-9)
        work[workers] = np.median(spent[:-1])
        for req, (s, g) in zip(requests, pairs, strict=True):
            _same(req.path, gamenav.find_path(grid, s, g))
    assert late[2] <= 0.12, f"{late[2]:.0%} of the updates ended late"
    assert work[2] >= 1.4 * work[1]


def test_margin_tracks_lateness() -> None:
    from gamenav.runtime.queue import _margin

    budget, margin = 2e-3, 0.0
    for _ in range(100):  # always late: up to half the budget, no further
        margin = _margin(margin, 1e-4, budget)
    assert margin == pytest.approx(0.5 * budget)
    for _ in range(1000):  # never late: back to 0, not below
        margin = _margin(margin, -1e-4, budget)
    assert margin == 0.0
    seen = []
    for i in range(4000):  # late one update in 10: the margin rises and settles
        margin = _margin(margin, 1e-4 if i % 10 == 0 else -1e-4, budget)
        seen.append(margin)
    assert min(seen[-100:]) > 0.45 * budget  # more lateness than its 1 in 20: near the top


@pytest.mark.parametrize("workers", [1, 2])
def test_queue_keeps_whole_hpa_queries_out_of_a_short_rest_of_frame(workers: int,
                                                                   monkeypatch: pytest.MonkeyPatch
                                                                   ) -> None:
    """An ``algorithm="hpa"`` search runs its whole query in its first step (here 1.2 ms of a
    2 ms budget) whatever the step's budget: once that is measured, the queue does not start
    one the rest of the frame cannot hold (15 updates ran late here before), and
    ``request()`` no longer runs the query outside the budget. With 2 workers the threads did
    not check that (12 of 19 updates ran late, up to 3.0 ms) and counted the whole steps in the
    expansion rate; they now stop short of such a step too."""
    from gamenav.grid.search import GridSearch
    from tests.runtime.helpers import connected_pairs, rooms_grid

    monkeypatch.setattr(parallel, "default_workers", lambda: 2)
    clocks = _ThreadClocks(monkeypatch)
    timed_step = GridSearch.step

    def step(search: GridSearch, max_expansions: int | None = None) -> gamenav.PathStatus:
        if search.algorithm == "hpa" and search.expanded == 0:
            clocks.time += 1.2e-3
        return timed_step(search, max_expansions)

    monkeypatch.setattr(GridSearch, "step", step)
    grid = rooms_grid(200, 160, seed=21)
    pairs = connected_pairs(grid, 120, seed=22)
    queue = gamenav.PathQueue(budget_ms=2.0, workers=workers)
    kinds = ["hpa" if i % 3 == 0 else "astar" for i in range(len(pairs))]
    t0 = clocks.now()
    requests = [queue.request(grid, s, g, algorithm=kind) for (s, g), kind in zip(pairs, kinds, strict=True)]
    assert clocks.now() - t0 < 0.5e-3 and not any(r.done for r in requests)
    late = 0
    while len(queue):
        t0 = clocks.now()
        queue.update()
        late += clocks.now() - t0 > 2e-3 + 1e-9
    assert late <= 1  # the first hpa query, before its cost was measured
    for req, (s, g), kind in zip(requests, pairs, kinds, strict=True):
        _same(req.path, gamenav.find_path(grid, s, g, algorithm=kind))


class _EditingPoint:
    """An ``(x, y)`` whose conversion runs ``edit`` in another thread first (once): a batch reading
    its queries meets an edit made meanwhile, deterministically (the thread is joined)."""

    def __init__(self, xy: tuple[float, float], edit: Any) -> None:
        self.xy, self.edit = xy, edit

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        if self.edit is not None:
            import threading

            thread = threading.Thread(target=self.edit)
            thread.start()
            thread.join()
            self.edit = None
        return np.array(self.xy, dtype=dtype)


@pytest.mark.parametrize("exact", [False, True])
@pytest.mark.parametrize("edit", ["add", "remove", "compact", "grid"])
def test_every_query_of_a_navmesh_batch_searches_one_snapshot(edit: str, exact: bool) -> None:
    grid = gamenav.TileGrid(np.ones((10, 20), dtype=bool))
    mesh = gamenav.NavMesh.from_grid(grid, follow=True)
    wall = [(9.5, -1), (10.5, -1), (10.5, 9), (9.5, 9)]
    oid = mesh.add_obstacle(wall) if edit != "add" else -1
    if edit == "compact":
        mesh.add_obstacle([(14, 1), (15, 1), (15, 2), (14, 2)])
    edits = {"add": lambda: mesh.add_obstacle(wall), "remove": lambda: mesh.remove_obstacle(oid),
             "compact": mesh.compact, "grid": lambda: grid.set_walkable((10, 0, 11, 10), False)}
    snapshot, before = mesh._snapshot(), mesh.version
    starts = [(1.0, 1.0), _EditingPoint((1.0, 1.0), edits[edit]), (1.0, 1.0)]
    paths = gamenav.find_paths(mesh, starts, [(18.5, 1.0)] * 3, workers=2, exact=exact)
    assert mesh.version != before  # the edit came (from another thread) during the batch
    want = gamenav.find_path(snapshot, (1.0, 1.0), (18.5, 1.0), exact=exact)
    for p in paths:  # every answer is that of the mesh when the batch began
        assert p.status is want.status and p.cost == want.cost
        assert np.array_equal(p.points, want.points) and np.array_equal(p.corridor, want.corridor)


@pytest.mark.parametrize("algorithm", ["jps", "hpa", "subgoal"])
def test_find_paths_in_a_grid_listener_builds_the_graph_before_its_threads(
        monkeypatch: pytest.MonkeyPatch, algorithm: str) -> None:
    """Listeners run with the grid's edit lock held, and building the jps / hpa / subgoal index
    takes that lock: ``find_paths(algorithm=...)`` in a listener hung for ever once a worker thread
    started the build (the calling thread, holding the lock, waited for that worker). The index
    is built in the calling thread now, before any worker starts (also when the first query,
    start == goal, builds none: JPS+ still hung then)."""
    from gamenav.grid import hpa, jump_plus, subgoal

    grid = _grid(3, walls=0.1)
    starts, goals = _queries(grid, 8, seed=4)
    goals[0] = starts[0]
    wall = next((int(x), int(y)) for y, x in np.argwhere(grid.passable) if (x, y) not in starts + goals)
    built = {"jps": lambda: jump_plus._indexes.existing(grid), "hpa": lambda: hpa._indexes.get(grid),
             "subgoal": lambda: subgoal._indexes.existing(grid)}[algorithm]
    run = parallel.run_parallel

    def checked(count: int, workers: int, make_worker: Any) -> None:
        assert built() is not None, "a worker thread would build the graph (and wait for the edit lock)"
        run(count, workers, make_worker)

    monkeypatch.setattr(parallel, "run_parallel", checked)
    answers: list[list[Path]] = []
    grid.subscribe(lambda change: answers.append(
        gamenav.find_paths(grid, starts, goals, algorithm=algorithm, workers=4)))
    grid.set_walkable(wall, False)
    expected = [gamenav.find_path(grid, s, g, algorithm=algorithm) for s, g in zip(starts, goals, strict=True)]
    assert [(p.status, p.cost) for p in answers[0]] == [(p.status, p.cost) for p in expected]


def test_a_pool_that_takes_no_work_leaves_every_query_to_the_caller(monkeypatch: pytest.MonkeyPatch) -> None:
    """Once the interpreter shuts down (the main thread ended while a game thread still runs, or
    in an atexit handler), concurrent.futures takes no new work: find_paths(workers=2) raised
    'cannot schedule new futures after interpreter shutdown' instead of answering in the caller."""
    refusing = parallel.ThreadPoolExecutor(max_workers=1)
    refusing.shutdown()  # submit now raises RuntimeError, as every pool does at interpreter shutdown
    monkeypatch.setattr(parallel, "default_workers", lambda: 4)
    monkeypatch.setattr(parallel, "_executor", refusing)
    monkeypatch.setattr(parallel, "_executor_size", 4)
    grid = _grid(2)
    starts, goals = _queries(grid, 12, seed=3)
    for options in ({}, {"weight": 1.5}):
        paths = gamenav.find_paths(grid, starts, goals, workers=3, **options)
        for p, s, g in zip(paths, starts, goals, strict=True):
            _same(p, gamenav.find_path(grid, s, g, **options))


def test_a_thread_the_pool_could_not_start_is_waited_for_if_it_runs_a_job(monkeypatch: pytest.MonkeyPatch) -> None:
    """A submission that fails after the pool queued it (no thread could be started) may still
    run on a pool thread: run_parallel waits for every thread that took a job."""
    import threading

    stray_busy, caller_done = threading.Event(), threading.Event()
    done: list[int] = []

    class NoNewThread(parallel.ThreadPoolExecutor):
        def submit(self, *args: Any, **kwargs: Any) -> Any:
            super().submit(*args, **kwargs)  # queued, and run by the pool's thread
            stray_busy.wait(5)
            raise RuntimeError("can't start new thread")

    def make_worker() -> Any:
        def job(i: int) -> None:
            if threading.current_thread() is threading.main_thread():
                caller_done.set()
            else:
                stray_busy.set()
                caller_done.wait(5)  # still running when the caller has done its share
            done.append(i)

        return job

    monkeypatch.setattr(parallel, "ThreadPoolExecutor", NoNewThread)
    monkeypatch.setattr(parallel, "_executor", None)
    monkeypatch.setattr(parallel, "_executor_size", 0)
    parallel.run_parallel(2, 2, make_worker)
    assert sorted(done) == [0, 1]
    parallel._executor.shutdown(wait=True)  # type: ignore[union-attr]  # (the test's own pool)


def test_a_subgoal_batch_after_an_edit_does_not_spread_the_landmarks_again(monkeypatch: pytest.MonkeyPatch) -> None:
    """find_paths built the graph through gamenav.prepare, which after an edit also spread the
    landmarks again and computed them all: every batch of a game that edits each frame paid a
    full pass (18-21 ms on AR0011SR, 51-75 ms on orz100d). Edits now repair the landmark rows
    themselves: a batch after an edit computes none."""
    from gamenav.grid import subgoal

    grid = _grid(8, h=40, w=50, walls=0.2)
    starts, goals = _queries(grid, 10, seed=9)
    gamenav.prepare(grid, "subgoal")
    wall = next((int(x), int(y)) for y, x in np.argwhere(grid.passable) if (x, y) not in starts + goals)
    computed: list[int] = []
    distances = subgoal.SubgoalIndex._distances
    monkeypatch.setattr(subgoal.SubgoalIndex, "_distances",
                        lambda index, graph, src: computed.append(src) or distances(index, graph, src))
    for _ in range(3):
        grid.set_walkable(wall, not grid.is_passable(*wall))
        computed.clear()
        paths = gamenav.find_paths(grid, starts, goals, algorithm="subgoal", workers=2)
        for p, s, g in zip(paths, starts, goals, strict=True):
            q = gamenav.find_path(grid, s, g)
            assert p.status is q.status and p.cost == pytest.approx(q.cost, rel=1e-12)
        assert computed == []


def test_a_default_batch_on_a_grid_over_max_cells_uses_the_general_workspaces(monkeypatch: pytest.MonkeyPatch) -> None:
    """find_paths with no options gave each thread a fast-kernel workspace of the whole grid (44
    bytes per padded cell: 12 MB each here, ~700 MB on 4000 x 4000) although find_path keeps that
    kernel for grids up to MAX_CELLS; such grids now take the general path's workspaces, with
    find_path's answers."""
    from gamenav.grid._fast import MAX_CELLS

    made: list[int] = []
    workspace = parallel._workspace
    monkeypatch.setattr(parallel, "_workspace", lambda cells: made.append(cells) or workspace(cells))
    grid = _grid(3, h=520, w=520, walls=0.05)
    assert (grid.height + 2) * (grid.width + 2) > MAX_CELLS
    starts, goals = _queries(grid, 6, seed=4)
    for p, s, g in zip(gamenav.find_paths(grid, starts, goals, workers=2), starts, goals, strict=True):
        _same(p, gamenav.find_path(grid, s, g))
    assert made == []
    small = _grid(3)
    starts, goals = _queries(small, 6, seed=4)
    for p, s, g in zip(gamenav.find_paths(small, starts, goals, workers=2), starts, goals, strict=True):
        _same(p, gamenav.find_path(small, s, g))
    assert made and max(made) <= MAX_CELLS  # (small grids keep the fast kernel)
