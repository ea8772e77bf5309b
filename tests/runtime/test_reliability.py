"""Issue 8, runtime part: listener failures, quick paths after edits, bounded callback chains,
lifetimes (close, context managers, weak subscriptions), the separation hash, clear errors and
finite-time arrival. Each test fails on the code before its fix."""

from __future__ import annotations

import copy
import gc
import math
import pickle
import subprocess
import sys
import textwrap
import weakref
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import gamenav
from gamenav import InvalidInputError, PathCache, PathQueue, PathStatus
from gamenav._kernels.crowd import separation

from .helpers import check_walkable


def open_grid(h: int = 20, w: int = 30, **kwargs: Any) -> gamenav.TileGrid:
    return gamenav.TileGrid(np.ones((h, w), bool), **kwargs)


def live_listeners(grid: gamenav.TileGrid) -> int:
    return len(grid._listeners)


def crosses(grid: gamenav.TileGrid, path: gamenav.Path) -> bool:
    cells = np.asarray(path.cells)
    return bool(len(cells)) and not grid.passable[cells[:, 1], cells[:, 0]].all()


# -- 1. listener failures and unsubscribing during a notification -------------------------
def test_crowd_cancelling_the_queues_last_job_during_an_edit() -> None:
    """The crowd hears the edit first and cancels the queue's only job (the queue unsubscribes
    mid-notification, KeyError before); a cache subscribed later still drops its path."""
    grid = open_grid(12, 30)
    queue = PathQueue(budget_ms=None, max_expansions=10_000)
    crowd = gamenav.Crowd(grid, grid.cell_to_world([(1, 5)]), radius=0.3, max_speed=5, queue=queue,
                          requests_per_update=1)
    crowd.move([0], grid.cell_to_world((28, 5)), formation=False)
    queue.update()
    crowd.update(1 / 30)  # following its straight path along row 5
    grid.set_walkable((20, 5), False)  # crosses it: re-path request, sent at once
    assert len(queue) == 1 and crowd.pending == 1
    cache = PathCache()
    cached = cache.find_path(grid, (2, 5), (27, 5))
    assert not crosses(grid, cached)
    grid.set_walkable((24, 5), False)  # crosses the old route again: the request is cancelled,
    # and the new one waits in the crowd's backlog (one request per update)
    assert len(queue) == 0 and crowd.pending == 1
    assert len(cache) == 0 and not crosses(grid, cache.find_path(grid, (2, 5), (27, 5)))
    for _ in range(300):
        queue.update()
        crowd.update(1 / 30)
    assert crowd.arrived[0] and not crowd.failed[0]


def test_a_raising_user_listener_does_not_keep_the_cache_or_queue_stale() -> None:
    grid = open_grid(10, 40)
    seen: list[int] = []

    def buggy(change: gamenav.GridChange) -> None:
        seen.append(change.version)
        raise RuntimeError("user bug")

    grid.subscribe(buggy)  # subscribed before the cache and the queue
    cache = PathCache()
    cached = cache.find_path(grid, (0, 5), (39, 5))
    queue = PathQueue(budget_ms=None, max_expansions=20)
    req = queue.request(grid, (0, 5), (39, 5))  # started now, on the open grid
    queue.update()
    with pytest.raises(RuntimeError, match="user bug"):
        grid.set_walkable((30, 0, 31, 9), False)  # a wall across every straight route
    assert seen == [grid.version]
    assert len(cache) == 0
    fresh = gamenav.find_path(grid, (0, 5), (39, 5))
    assert fresh.cost > cached.cost
    assert cache.find_path(grid, (0, 5), (39, 5)).cost == pytest.approx(fresh.cost)
    for _ in range(1000):
        queue.update()
        if req.done:
            break
    assert req.status is PathStatus.FOUND and queue.stats.restarts == 1
    check_walkable(grid, req.path, (0, 5), (39, 5))
    assert req.path.cost == pytest.approx(fresh.cost)


# -- 2. quick paths come from the current grid ---------------------------------------------
def test_quick_partial_path_of_a_joining_request_avoids_a_wall_built_since() -> None:
    grid = open_grid(30, 60)
    queue = PathQueue(budget_ms=None, max_expansions=50)
    first = queue.request(grid, (0, 15), (59, 15))  # started at once on the open grid
    grid.set_walkable((3, 5, 4, 25), False)  # a wall right in front of the start
    second = queue.request(grid, (0, 15), (59, 15), quick_expansions=40)
    assert second.status is PathStatus.IN_PROGRESS and second.path.status is PathStatus.PARTIAL
    assert len(second.path.cells) > 1 and not crosses(grid, second.path)
    while not first.done:
        queue.update()
    assert first.path is second.path
    check_walkable(grid, first.path, (0, 15), (59, 15))


# -- 3. bounded callback chains, request arguments checked at request time -----------------
def test_callbacks_of_requests_made_by_callbacks_wait_for_the_next_update() -> None:
    grid = open_grid()
    cache = PathCache()
    cache.find_path(grid, (0, 0), (9, 9))
    queue = PathQueue(budget_ms=1.0, cache=cache)
    calls: list[int] = []

    def again(req: gamenav.PathRequest) -> None:
        calls.append(queue.frame)
        if len(calls) < 50:
            queue.request(grid, (0, 0), (9, 9), on_done=again)  # a cache hit: answered at once

    queue.request(grid, (0, 0), (9, 9), on_done=again)
    queue.update()
    assert calls == [1]
    queue.update()
    queue.update()
    assert calls == [1, 2, 3]


def test_a_raising_callback_keeps_the_others_for_the_next_update() -> None:
    grid = open_grid()
    queue = PathQueue(budget_ms=None, max_expansions=1000)
    calls: list[str] = []

    def bad(req: gamenav.PathRequest) -> None:
        calls.append("bad")
        raise KeyError("callback bug")

    queue.request(grid, (0, 0), (0, 0), on_done=bad)
    queue.request(grid, (0, 0), (0, 0), on_done=lambda r: calls.append("good"))
    with pytest.raises(KeyError, match="callback bug"):
        queue.update()
    assert calls == ["bad"]
    queue.update()
    assert calls == ["bad", "good"]


@pytest.mark.parametrize(("options", "message"), [
    ({"on_done": 5}, "on_done must be callable or None, got 5"),
    ({"on_done": "print"}, "on_done must be callable or None, got 'print'"),
    ({"priority": math.nan}, "priority must be a finite number, got nan"),
    ({"priority": math.inf}, "priority must be a finite number, got inf"),
    ({"priority": np.float64(-math.inf)}, "priority must be a finite number, got -inf"),
    ({"priority": "high"}, "priority must be a finite number, got 'high'"),
    ({"priority": True}, "priority must be a finite number, got True"),
    ({"quick_expansions": -1}, "quick_expansions must be an int >= 0, got -1"),
    ({"quick_expansions": True}, "quick_expansions must be an int >= 0, got True"),
    ({"quick_expansions": 10.0}, "quick_expansions must be an int >= 0, got 10.0"),
    ({"quick_expansions": "10"}, "quick_expansions must be an int >= 0, got '10'"),
])
def test_bad_request_arguments_raise_at_request_time(options: dict[str, Any], message: str) -> None:
    queue = PathQueue(budget_ms=None, max_expansions=100)
    with pytest.raises(InvalidInputError, match=message.replace("(", r"\(").replace(")", r"\)")):
        queue.request(open_grid(), (0, 0), (5, 5), **options)
    assert len(queue) == 0 and queue.stats.searches == 0


def test_numpy_arguments_and_huge_quick_expansions_are_accepted() -> None:
    grid = open_grid()
    queue = PathQueue(budget_ms=None, max_expansions=1)
    req = queue.request(grid, (0, 0), (29, 19), priority=np.float32(2.5), quick_expansions=2**70)
    assert req.status is PathStatus.FOUND and req.frames_waited == 0
    req = queue.request(grid, (0, 0), (28, 19), quick_expansions=np.int64(3))
    assert req.status is PathStatus.IN_PROGRESS and len(queue) == 1


# -- 4. lifetimes ---------------------------------------------------------------------------
def _dropped(make: Callable[[gamenav.TileGrid], Any]) -> tuple[gamenav.TileGrid, weakref.ref[Any]]:
    grid = open_grid()
    obj = make(grid)
    assert live_listeners(grid) >= 1
    ref = weakref.ref(obj)
    del obj
    gc.collect()
    return grid, ref


def _queue_with_a_job(grid: gamenav.TileGrid) -> PathQueue:
    queue = PathQueue(budget_ms=None, max_expansions=1)
    queue.request(grid, (0, 0), (29, 19))
    return queue


def _cache_with_an_entry(grid: gamenav.TileGrid) -> PathCache:
    cache = PathCache()
    cache.find_path(grid, (0, 0), (29, 19))
    return cache


def _crowd(grid: gamenav.TileGrid) -> gamenav.Crowd:
    crowd = gamenav.Crowd(grid, [(0.5, 0.5), (2.5, 0.5)], radius=0.3, max_speed=2)
    crowd.move([0, 1], (20.0, 10.0))
    return crowd


def _follower(grid: gamenav.TileGrid) -> gamenav.Follower:
    follower = gamenav.Follower(grid, (0.5, 0.5), speed=2)
    follower.move_to((20.5, 10.5))
    return follower


@pytest.mark.parametrize("make", [_queue_with_a_job, _cache_with_an_entry, _crowd, _follower])
def test_a_dropped_subscriber_is_freed_and_unsubscribed(make: Callable[[gamenav.TileGrid], Any]) -> None:
    grid, ref = _dropped(make)
    assert ref() is None
    assert live_listeners(grid) == 0
    grid.set_walkable((5, 5), False)  # nobody left to notify, nothing raises


def _request(grid: gamenav.TileGrid) -> gamenav.PathRequest:
    return PathQueue(budget_ms=None, max_expansions=1).request(grid, (0, 0), (29, 19))


@pytest.mark.parametrize("how", ["copy", "deepcopy", "pickle"])
@pytest.mark.parametrize("make", [_queue_with_a_job, _cache_with_an_entry, _crowd, _follower, _request])
def test_subscribers_and_requests_refuse_to_be_copied(make: Callable[[gamenav.TileGrid], Any], how: str) -> None:
    # a shallow copy shared the original's jobs (a copied queue kept a request pending forever,
    # a copied request's cancel() corrupted the counts); deep copies and pickle failed on a WeakMethod
    grid = open_grid()
    subscriber = make(grid)
    duplicate = {"copy": copy.copy, "deepcopy": copy.deepcopy,
                 "pickle": lambda o: pickle.loads(pickle.dumps(o))}[how]
    name = type(subscriber).__name__
    with pytest.raises(TypeError, match=f"{name} objects cannot be copied or pickled: they follow the edits"):
        duplicate(subscriber)


def test_100_dropped_followers_leave_no_listener() -> None:
    grid = open_grid()
    queue = PathQueue(budget_ms=None, max_expansions=100)
    refs = []
    for k in range(100):
        follower = gamenav.Follower(grid, (0.5 + k % 10, 0.5), speed=2, queue=queue)
        follower.move_to((25.5, 15.5))
        refs.append(weakref.ref(follower))
    del follower
    gc.collect()
    assert all(r() is None for r in refs)
    assert live_listeners(grid) == 1  # the queue's, for its pending searches
    queue.close()
    assert live_listeners(grid) == 0


def test_queue_close_cancels_requests_and_blocks_further_use() -> None:
    grid = open_grid()
    calls: list[gamenav.PathRequest] = []
    with PathQueue(budget_ms=None, max_expansions=5) as queue:
        pending = queue.request(grid, (0, 0), (29, 19), on_done=calls.append)
        answered = queue.request(grid, (3, 3), (3, 3), on_done=calls.append)
        assert live_listeners(grid) == 1 and not queue.closed
    assert queue.closed and live_listeners(grid) == 0
    assert pending.status is PathStatus.CANCELLED and answered.status is PathStatus.FOUND
    assert len(queue) == 0 and queue.stats.searches == 0
    queue.close()  # idempotent
    with pytest.raises(InvalidInputError, match="cannot update a closed PathQueue"):
        queue.update()
    with pytest.raises(InvalidInputError, match="cannot request paths from a closed PathQueue"):
        queue.request(grid, (0, 0), (1, 1))
    assert calls == [] and queue.stats.cancelled == 1


def test_cache_close_drops_entries_and_blocks_lookups() -> None:
    grid = open_grid()
    with PathCache() as cache:
        cache.find_path(grid, (0, 0), (29, 19))
        queue = PathQueue(budget_ms=None, max_expansions=5, cache=cache)
    assert cache.closed and len(cache) == 0 and live_listeners(grid) == 0
    assert cache.stats.misses == 1  # counters stay readable
    cache.close()
    with pytest.raises(InvalidInputError, match="closed PathCache"):
        cache.find_path(grid, (0, 0), (29, 19))
    with pytest.raises(InvalidInputError, match="closed PathCache"):
        queue.request(grid, (0, 0), (29, 19))
    assert len(queue) == 0


def test_crowd_and_follower_close() -> None:
    grid = open_grid()
    queue = PathQueue(budget_ms=None, max_expansions=5)
    with gamenav.Crowd(grid, [(0.5, 0.5), (1.5, 0.5)], radius=0.3, max_speed=2, queue=queue,
                       requests_per_update=1) as crowd:
        crowd.move([0, 1], (25.0, 15.0), formation=True)
        assert len(queue) == 1 and crowd.pending == 2
    assert crowd.closed and len(queue) == 0 and crowd.pending == 0 and live_listeners(grid) == 0
    crowd.close()
    positions = crowd.positions.copy()  # still readable
    grid.set_walkable((0, 0), False)  # a closed crowd is not moved off the new wall
    np.testing.assert_array_equal(crowd.positions, positions)
    for call, what in [(lambda: crowd.update(0.1), "update"), (lambda: crowd.move([0], (5.0, 5.0)), "order"),
                       (lambda: crowd.stop([0]), "order")]:
        with pytest.raises(InvalidInputError, match=f"cannot {what} a closed Crowd"):
            call()
    with gamenav.Follower(grid, (5.5, 5.5), speed=2, queue=queue) as follower:
        follower.move_to((20.5, 5.5))
        assert len(queue) == 1
    assert follower.closed and len(queue) == 0 and live_listeners(grid) == 0
    with pytest.raises(InvalidInputError, match="cannot update a closed Follower"):
        follower.update(0.1)
    with pytest.raises(InvalidInputError, match="cannot order a closed Follower"):
        follower.move_to((1.5, 1.5))


# -- 5. the separation kernel's spatial hash ------------------------------------------------
def test_separation_in_a_huge_world_does_not_crash() -> None:
    """Two agents at opposite corners of a world of 2**32 hash cells per side: the old hash
    had w * h cells and that product overflowed int64 (a segfault). Run in a subprocess."""
    code = textwrap.dedent("""
        import numpy as np, gamenav
        radius = 0.3
        cs = (2**32 - 0.5) * 4 * radius
        grid = gamenav.TileGrid(np.ones((2, 2), bool), cell_size=cs)
        crowd = gamenav.Crowd(grid, [(0.5 * cs, 0.5 * cs), (1.5 * cs, 1.5 * cs)], radius=radius,
                              max_speed=1.0)
        crowd.update(0.1)
        far = gamenav.Crowd(gamenav.TileGrid(np.ones((1024, 1024), bool)), [(0.5, 0.5), (1023.5, 1023.5)],
                            radius=0.01, max_speed=1.0)
        far.update(0.1)
        print("ok", crowd.positions.tolist() == [[0.5 * cs, 0.5 * cs], [1.5 * cs, 1.5 * cs]])
    """)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300,
                          check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["ok", "True"]


def _brute_force(pos: np.ndarray, vel: np.ndarray, radius: float) -> tuple[np.ndarray, np.ndarray]:
    n = len(pos)
    push, flow = np.zeros((n, 2)), np.zeros((n, 2))
    for i in range(n):
        d = pos[i] - pos
        dist = np.hypot(d[:, 0], d[:, 1])
        near = (dist < 2 * radius) & (np.arange(n) != i) & (dist > 1e-12)
        push[i] = (d[near] / dist[near, None] * (1 - dist[near, None] / (2 * radius))).sum(axis=0)
        around = (dist < 4 * radius) & (np.arange(n) != i)
        if around.any():
            flow[i] = vel[around].mean(axis=0)
    return push, flow


@pytest.mark.parametrize("seed", range(6))
def test_separation_matches_brute_force_on_clustered_and_far_apart_agents(seed: int) -> None:
    rng = np.random.default_rng(seed)
    radius = [0.01, 0.3, 2.0][seed % 3]
    clusters = rng.uniform(-1e6, 1e6, (5, 2))  # clusters far apart (a huge sparse world)
    pos = clusters[rng.integers(0, 5, 200)] + rng.normal(scale=3 * radius, size=(200, 2))
    pos[:10] = pos[10]  # coincident agents
    vel = rng.normal(size=(200, 2))
    push, flow = np.empty((200, 2)), np.empty((200, 2))
    separation(pos, vel, radius, push, flow)
    expect_push, expect_flow = _brute_force(pos, vel, radius)
    coincident = np.zeros(200, bool)
    coincident[:11] = True  # their push includes the deterministic split: compare the rest
    np.testing.assert_allclose(push[~coincident], expect_push[~coincident], atol=1e-9)
    np.testing.assert_allclose(flow, expect_flow, atol=1e-9)
    assert np.isfinite(push).all()


# -- 6. clear errors ------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["radius", "max_speed", "max_accel", "spacing", "stuck_seconds",
                                  "arrive_radius"])
@pytest.mark.parametrize("value", [math.nan, math.inf, -1.0, "one", None, [1.0]])
def test_crowd_numbers_are_checked(name: str, value: Any) -> None:
    kwargs: dict[str, Any] = {"radius": 0.3, "max_speed": 1.0, name: value}
    if value is None and name not in ("radius", "max_speed"):
        return  # None is these options' default
    if value == [1.0] and name in ("radius", "max_speed"):
        value = kwargs[name] = [1.0, 2.0]  # one per agent is allowed; a wrong count is not
        with pytest.raises(InvalidInputError, match=f"{name} must be a number or one per agent \\(1\\), got 2"):
            gamenav.Crowd(open_grid(), [(0.5, 0.5)], **kwargs)
        return
    with pytest.raises(InvalidInputError, match=f"{name} must be a finite number > 0, got"):
        gamenav.Crowd(open_grid(), [(0.5, 0.5)], **kwargs)


@pytest.mark.parametrize("name", ["requests_per_update", "flow_threshold"])
@pytest.mark.parametrize("value", [0, 1.5, "3", True])
def test_crowd_counts_are_checked(name: str, value: Any) -> None:
    with pytest.raises(InvalidInputError, match=f"{name} must be an int >= 1, got"):
        gamenav.Crowd(open_grid(), [(0.5, 0.5)], radius=0.3, max_speed=1.0, **{name: value})


def test_crowd_positions_dt_and_targets_are_checked() -> None:
    with pytest.raises(InvalidInputError, match=r"positions must be finite; agent 1 is at \(nan, 2\.0\)"):
        gamenav.Crowd(open_grid(), [(0.5, 0.5), (math.nan, 2.0)], radius=0.3, max_speed=1.0)
    with pytest.raises(InvalidInputError, match="positions must be an"):
        gamenav.Crowd(open_grid(), [("a", "b")], radius=0.3, max_speed=1.0)
    crowd = gamenav.Crowd(open_grid(), [(0.5, 0.5)], radius=0.3, max_speed=1.0)
    for dt in (math.nan, -0.1, math.inf, "0.1", None):
        with pytest.raises(InvalidInputError, match="dt must be a finite number >= 0, got"):
            crowd.update(dt)  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError, match="target must be a finite"):
        crowd.move([0], (math.nan, 1.0))
    assert crowd.arrived[0]  # nothing changed


@pytest.mark.parametrize("speed", [math.nan, 0, -5, math.inf, "fast"])
def test_follower_speed_is_checked(speed: Any) -> None:
    with pytest.raises(InvalidInputError, match="speed must be a finite number > 0, got"):
        gamenav.Follower(open_grid(), (0.5, 0.5), speed=speed)


# -- 7. the follower's Path, and arrival in finite time -------------------------------------
def test_follower_path_is_the_path_object() -> None:
    grid = gamenav.TileGrid.from_strings(["....", ".##.", "...."], cell_size=10)
    queue = PathQueue(budget_ms=None, max_expansions=1000)
    follower = gamenav.Follower(grid, (5, 5), speed=50, queue=queue)
    assert follower.path.status is PathStatus.NO_PATH and len(follower.path) == 0
    follower.move_to((35, 25))
    assert follower.path.status is PathStatus.IN_PROGRESS
    queue.update()
    follower.update(1 / 30)
    expected = gamenav.find_path(grid, (0, 0), (3, 2))
    assert isinstance(follower.path, gamenav.Path) and follower.path.status is PathStatus.FOUND
    np.testing.assert_array_equal(follower.path.cells, expected.cells)
    np.testing.assert_allclose(follower.path.points, grid.cell_to_world(expected.cells))
    assert follower.remaining_path.shape[1] == 2
    np.testing.assert_allclose(follower.remaining_path[0], follower.position)
    follower.stop()
    assert follower.path.status is PathStatus.NO_PATH


@pytest.mark.parametrize("speed", [30.0, 100.0, 400.0])
def test_arrival_on_big_tiles_happens_in_finite_time(speed: float) -> None:
    """128 px tiles: the easing slowed down exponentially near the goal (about 2.8 times the
    path's length / speed to get within the 0.5 px arrival radius; never when held back)."""
    grid = open_grid(6, 6, cell_size=128)
    follower = gamenav.Follower(grid, (64, 64), speed=speed)
    goal = (3 * 128 + 64, 2 * 128 + 64)
    follower.move_to(goal)
    length = float(np.hypot(*np.diff(follower.path.points, axis=0).T).sum())
    limit = 60 * (1.6 * length / speed + 0.5)  # frames of 1/60 s
    frames = 0
    while not follower.arrived and frames < limit:
        follower.update(1 / 60)
        frames += 1
    assert follower.arrived and not follower.failed
    assert math.dist(follower.position, goal) < 0.5


def test_an_exact_goal_next_to_a_wall_is_reached() -> None:
    """An exact goal closer to a wall than the agent's margin used to be unreachable."""
    grid = gamenav.TileGrid.from_strings(["....#", "....#"], cell_size=32)
    follower = gamenav.Follower(grid, (16, 16), speed=100)
    follower.move_to((126, 40))  # 2 px from the wall at x = 128; the margin is 8 px
    for _ in range(600):
        follower.update(1 / 60)
        if follower.arrived or follower.failed:
            break
    assert follower.arrived and not follower.failed
    assert follower.position[0] <= 128 - 8 + 1e-9


def test_crowd_orders_accept_an_empty_selection_and_reject_float_indices() -> None:
    grid = gamenav.TileGrid(np.ones((1, 1), dtype=bool))
    crowd = gamenav.Crowd(grid, [(0.5, 0.5)], radius=0.3, max_speed=2.0)
    crowd.stop([])
    crowd.move([], (0.5, 0.5))
    assert not crowd.pending
    with pytest.raises(gamenav.InvalidInputError, match="agent indices"):
        crowd.move([0.5], (0.5, 0.5))


def test_huge_radii_stay_finite() -> None:
    grid = gamenav.TileGrid(np.ones((1, 1), dtype=bool))
    follower = gamenav.Follower(grid, (0.5, 0.5), speed=3.0, radius=1.7e308)
    follower.update(0.1)
    crowd = gamenav.Crowd(grid, [(0.5, 0.5)], radius=1.7e308, max_speed=2.0)
    crowd.update(0.1)
    assert np.isfinite(crowd.positions).all() and np.isfinite(follower.position).all()


def test_navmesh_requests_check_the_coordinate_range_at_request_time() -> None:
    from shapely.geometry import box

    mesh = gamenav.NavMesh.from_polygons(box(0, 0, 10, 10))
    with pytest.raises(gamenav.InvalidInputError, match=r"start must lie in \[-1e\+15, 1e\+15\]"):
        PathQueue().request(mesh, (1e300, 0.0), (5.0, 5.0))


def test_queued_and_cached_requests_are_validated_once(monkeypatch: pytest.MonkeyPatch) -> None:
    grid = open_grid()
    checked: list[str] = []
    real = gamenav.TileGrid.check_cell

    def counting(self: gamenav.TileGrid, cell: Any, name: str = "cell") -> tuple[int, int]:
        checked.append(name)
        return real(self, cell, name)

    monkeypatch.setattr(gamenav.TileGrid, "check_cell", counting)
    queue = PathQueue(budget_ms=None, max_expansions=10_000)
    req = queue.request(grid, (0, 0), (29, 19))
    queue.update()
    assert req.status is PathStatus.FOUND and checked == ["start", "goal"]
    checked.clear()
    cache = PathCache()
    assert cache.find_path(grid, (0, 0), (28, 19)).found and checked == ["start", "goal"]


def test_integer_dt_of_any_size_is_a_plain_time_step() -> None:
    grid = gamenav.TileGrid(np.ones((1, 1), dtype=bool))
    for dt in (2**62, 2**63):  # ints: the kernels must not specialise on the first and overflow on the next
        crowd = gamenav.Crowd(grid, [(0.0, 0.0)], radius=0.3, max_speed=2.0)
        crowd.update(dt)
        assert np.isfinite(crowd.positions).all()


def _legs_cross_walls(grid: gamenav.TileGrid, points: np.ndarray) -> bool:
    """Whether the straight legs through ``points`` pass through the inside of a blocked cell
    (sampled; ``cell_size`` 1, origin 0; running along a wall's edge is not through it)."""
    t = np.linspace(0.0, 1.0, 2001)[:, None]
    for a, b in zip(points[:-1], points[1:], strict=True):
        p = a + (b - a) * t
        inside = ((p - np.floor(p) > 1e-6) & (p - np.floor(p) < 1 - 1e-6)).all(axis=1)
        cells = grid.world_to_cell(p[inside])
        if not grid.passable[cells[:, 1], cells[:, 0]].all():
            return True
    return False


def _steps_allowed(grid: gamenav.TileGrid, cells: list[list[int]], rule: str) -> bool:
    """Whether every step between consecutive ``cells`` is allowed on ``grid`` under ``rule``."""
    for (ax, ay), (bx, by) in zip(cells[:-1], cells[1:], strict=True):
        corners = [grid.is_passable(ax, by), grid.is_passable(bx, ay)]
        if not grid.is_passable(bx, by):
            return False
        if ax != bx and ay != by and not {"no_corner_cutting": all(corners), "always": True,
                                          "at_most_one_blocked": any(corners)}[rule]:
            return False
    return True


@pytest.mark.parametrize(("rule", "walls", "repaths"), [
    ("no_corner_cutting", [(2, 1)], 1), ("at_most_one_blocked", [(2, 1)], 0),
    ("at_most_one_blocked", [(2, 1), (1, 2)], 1), ("always", [(2, 1), (1, 2)], 0)])
def test_a_wall_on_the_corner_of_a_diagonal_step_ahead_repaths_when_the_rule_forbids_the_step(
        rule: str, walls: list[tuple[int, int]], repaths: int) -> None:
    """Grid edits re-pathed only agents whose route entered a newly blocked cell: a route whose
    diagonal step (1, 1) -> (2, 2) now cut the corner of a new wall was kept, though the agent's
    own movement rule forbids that step."""
    grid = gamenav.TileGrid(np.ones((4, 6), bool))
    agent = gamenav.Follower(grid, (0.5, 0.5), speed=1.0, diagonal=rule)
    agent.move_to((3.5, 3.5))
    agent.update(0.01)
    assert agent.path.cells.tolist() == [[0, 0], [1, 1], [2, 2], [3, 3]]
    wall = np.zeros(grid.shape, bool)
    for x, y in walls:
        wall[y, x] = True
    grid.set_walkable(wall, False)
    assert agent._crowd.counters["edit_repaths"] == repaths
    agent.update(0.01)
    ahead = grid.world_to_cell(agent.remaining_path[1:]).tolist()
    assert _steps_allowed(grid, [[0, 0], *ahead], rule)


def test_a_smoothed_route_repaths_when_a_wall_appears_on_its_line() -> None:
    """A smoothed leg (0, 0) -> (5, 4) is followed through the cells of its line; a wall built on
    (3, 3), which the straight leg runs through but no cell step enters, kept the old path:
    ``agent.path`` showed a line through the new wall."""
    grid = gamenav.TileGrid.from_strings(["..........", "..........", "....#.....", "..........",
                                          ".........."])
    agent = gamenav.Follower(grid, (0.5, 0.5), speed=1.0, smooth=True)
    agent.move_to((9.5, 4.5))
    agent.update(0.01)
    old = agent.path.points
    assert agent.path.cells.tolist() == [[0, 0], [5, 4], [9, 4]]
    grid.set_walkable((3, 3), False)
    assert _legs_cross_walls(grid, old)  # the old route ran through the new wall
    agent.update(0.01)
    assert agent._crowd.counters["edit_repaths"] == 1
    assert not _legs_cross_walls(grid, agent.path.points) and not _legs_cross_walls(grid, agent.remaining_path)


@pytest.mark.parametrize("queued", [False, True])
@pytest.mark.parametrize("mesh_first", [False, True])
def test_follower_on_a_following_navmesh_repaths_round_a_new_wall(queued: bool, mesh_first: bool) -> None:
    """A follower searching a NavMesh that follows its grid kept its route through a wall built
    across it (grid edits re-pathed only grid paths) and walked into the wall."""
    grid = gamenav.TileGrid(np.ones((20, 30), bool))
    queue = PathQueue() if queued else None
    mesh = gamenav.NavMesh.from_grid(grid, follow=True) if mesh_first else None
    agent = gamenav.Follower(grid, (1.5, 10.5), speed=5.0, queue=queue)
    if mesh is None:  # the follower hears grid edits before the mesh does
        mesh = gamenav.NavMesh.from_grid(grid, follow=True)
    agent._crowd.world = mesh
    agent.move_to((28.5, 10.5))
    for _ in range(3):
        if queue is not None:
            queue.update()
        agent.update(0.1)
    assert agent.path.status is PathStatus.FOUND and not _legs_cross_walls(grid, agent.remaining_path)
    wall = np.zeros(grid.shape, bool)
    wall[3:, 15] = True  # across the straight route, a gap at the top
    grid.set_walkable(wall, False)
    for _ in range(200):
        if queue is not None:
            queue.update()
        agent.update(0.05)
        if agent.path.status is PathStatus.FOUND and agent.path.points[0, 0] > 2.0:  # the new route
            assert not _legs_cross_walls(grid, agent.remaining_path)
    assert agent.arrived and not agent.failed and agent._crowd.counters["edit_repaths"] == 1


def test_an_edit_from_another_thread_waits_for_the_crowds_next_update() -> None:
    """The crowd's grid listener ran in the editing thread and changed the crowd's arrays while
    the crowd's own thread used them (a ValueError from mismatched shapes when ``remove`` ran
    meanwhile); the crowd now acts on such an edit at its next update, in its own thread."""
    import threading

    grid = gamenav.TileGrid(np.ones((10, 20), bool))
    crowd = gamenav.Crowd(grid, [(1.5, 1.5), (5.5, 5.5), (8.5, 5.5)], radius=0.3, max_speed=4.0)
    crowd.move([0], (18.5, 1.5), formation=False)
    editor = threading.Thread(target=grid.set_walkable, args=((5, 5), False))
    editor.start()
    editor.join()
    # the editing thread left the crowd's arrays alone (reading them acts on the edit)
    assert crowd._pos[1].tolist() == [5.5, 5.5] and crowd.counters["pushed_out"] == 0  # not yet
    crowd.remove([2])
    crowd.update(1 / 30)
    cells = grid.world_to_cell(crowd.positions)
    assert grid.passable[cells[:, 1], cells[:, 0]].all() and crowd.counters["pushed_out"] == 1
    grid.set_walkable((8, 1), False)  # in the crowd's thread: at once
    assert crowd.counters["edit_repaths"] == 1


@pytest.mark.parametrize("avoidance", ["orca", "separation"])
@pytest.mark.parametrize("dt", [0.5, 1.0, 3.0])
def test_a_long_frame_keeps_agents_on_their_path_and_they_arrive(avoidance: str, dt: float) -> None:
    """A hitch of 0.5-3 s (speed 5: 2.5-15 cells in one update) moved agents straight past their
    path's turn into walls: they wandered and did not arrive in 8 s (separation from 0.5 s on,
    ORCA from 1 s). Updates now run in sub-steps of at most half a cell."""
    import warnings

    grid = gamenav.TileGrid(np.ones((10, 12), bool))
    grid.set_walkable((5, 0, 6, 7), False)  # the path turns round the wall's end at y = 8
    crowd = gamenav.Crowd(grid, [(1.5, 1.5), (3.5, 3.5)], radius=0.3, max_speed=[5.0, 1.0], avoidance=avoidance)
    crowd.move([0], (9.5, 1.5), formation=False)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for _ in range(round(8 / dt)):
            crowd.update(dt)
            cells = grid.world_to_cell(crowd.positions)
            assert grid.passable[cells[:, 1], cells[:, 0]].all()
    assert crowd.arrived[0] and np.hypot(*(crowd.positions[0] - (9.5, 1.5))) < 0.5


@pytest.mark.parametrize("avoidance", ["orca", "separation"])
def test_the_fastest_speed_allowed_runs_without_overflow_and_faster_ones_are_refused(avoidance: str) -> None:
    """max_speed 1e300 gave overflow warnings and NaN steps; speeds are at most 1e9 cells per
    second (a clear error above), and at that speed an update stays finite and off the walls."""
    import warnings

    grid = gamenav.TileGrid(np.ones((10, 12), bool), cell_size=2.0)
    grid.set_walkable((5, 0, 6, 7), False)
    for bad in ({"max_speed": 2.0000001e9}, {"max_speed": [1.0, 1e300]}, {"max_speed": 1.0, "max_accel": 1.7e308}):
        with pytest.raises(InvalidInputError, match="at most"):
            gamenav.Crowd(grid, [(3.0, 3.0), (7.0, 7.0)], radius=0.6, avoidance=avoidance, **bad)
    crowd = gamenav.Crowd(grid, [(3.0, 3.0), (7.0, 7.0)], radius=0.6, max_speed=[2e9, 2.0], avoidance=avoidance)
    with pytest.raises(InvalidInputError, match="at most"):
        crowd.add([(3.0, 9.0)], max_speed=1e300)
    with pytest.raises(InvalidInputError, match="at most"):
        gamenav.Follower(grid, (3.0, 3.0), speed=1e300)
    crowd.move([0], (19.0, 3.0), formation=False)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for _ in range(10):
            crowd.update(1 / 30)
            cells = grid.world_to_cell(crowd.positions)
            assert np.isfinite(crowd.positions).all() and grid.passable[cells[:, 1], cells[:, 0]].all()
