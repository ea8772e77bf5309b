"""PathCache and PathQueue on edited navmeshes: exact invalidation (gamenav.runtime._mesh_invalidation)."""

from __future__ import annotations

import contextlib
from typing import Any

import numpy as np
import pytest
import shapely
from hypothesis import given, settings
from hypothesis import strategies as st

import gamenav
from gamenav import NavMesh, PathCache, PathQueue, PathStatus
from gamenav.errors import BlockedEndpointError, InvalidGeometryError
from gamenav.runtime._mesh_invalidation import box_bound, segments_touch_box

WALKABLE = [[(0, 0), (20, 0), (20, 12), (0, 12)],
            [(6, 0), (7, 0), (7, 8), (6, 8)],
            [(13, 4), (14, 4), (14, 12), (13, 12)]]

boxes = st.tuples(st.integers(0, 19), st.integers(0, 11), st.integers(1, 5), st.integers(1, 5))


def crosses(path: gamenav.Path, obstacles: list[Any]) -> bool:
    """The polyline enters the interior of an obstacle (shrunk by 1e-6 against rounding)."""
    if not path.found or len(path.points) < 2 or not obstacles:
        return False
    line = shapely.LineString(path.points)
    return any(line.intersects(ob.buffer(-1e-6)) for ob in obstacles)


def check_cache(cache: PathCache, mesh: NavMesh, queries: list[tuple[Any, Any]], exact: bool,
                obstacles: list[Any]) -> int:
    """Every query through the cache equals a fresh search; returns the hits seen."""
    hits = 0
    for s, g in queries:
        try:
            fresh = gamenav.find_path(mesh, s, g, exact=exact)
        except BlockedEndpointError:
            with pytest.raises(BlockedEndpointError):
                cache.find_path(mesh, s, g, exact=exact)
            continue
        before = cache.stats.hits
        got = cache.find_path(mesh, s, g, exact=exact)
        hits += cache.stats.hits - before
        assert got.status is fresh.status
        if exact:
            assert got.cost == pytest.approx(fresh.cost, rel=1e-9, abs=1e-9)
        else:
            assert got.cost == fresh.cost
            np.testing.assert_array_equal(got.points, fresh.points)
        assert not crosses(got, obstacles)
        if got.found:
            assert mesh.alive[got.corridor].all()
    return hits


@settings(max_examples=30, deadline=None)
@given(st.lists(st.tuples(st.booleans(), boxes), min_size=1, max_size=7),
       st.booleans(), st.sampled_from([0.0, 0.3]), st.integers(0, 2**31 - 1))
def test_cached_paths_equal_fresh_searches(ops: list[Any], exact: bool, radius: float, seed: int) -> None:
    rng = np.random.default_rng(seed)
    mesh = NavMesh.from_polygons(WALKABLE, agent_radius=radius)
    pts = rng.uniform((0, 0), (20, 12), size=(40, 2))
    pts = pts[mesh.locate(pts) >= 0][:16]
    queries = [(tuple(s), tuple(g)) for s, g in zip(pts[0::2], pts[1::2], strict=False)]
    cache = PathCache()
    live: dict[int, Any] = {}
    check_cache(cache, mesh, queries, exact, [])
    for remove, (x, y, w, h) in ops:
        if remove and live:
            oid = sorted(live)[x % len(live)]
            mesh.remove_obstacle(oid)
            del live[oid]
        else:
            shape = shapely.box(x - 0.5, y - 0.5, x - 0.5 + w * 0.7, y - 0.5 + h * 0.7)
            with contextlib.suppress(InvalidGeometryError):
                live[mesh.add_obstacle(shape)] = shape
        check_cache(cache, mesh, queries, exact, list(live.values()))


@pytest.mark.parametrize("exact", [False, True])
def test_untouched_entries_survive_an_edit(exact: bool) -> None:
    mesh = NavMesh.from_polygons(WALKABLE)
    cache = PathCache()
    far = cache.find_path(mesh, (1, 10), (4, 11), exact=exact)          # left room, top
    near = cache.find_path(mesh, (8, 1), (12, 1), exact=exact)          # through the edit
    assert far.found and near.found
    oid = mesh.add_obstacle(shapely.box(9.5, 0.2, 10.5, 3))
    assert cache.stats.invalidations == 1 and len(cache) == 1
    assert cache.find_path(mesh, (1, 10), (4, 11), exact=exact) is far
    blocked = cache.find_path(mesh, (8, 1), (12, 1), exact=exact)
    assert blocked is not near and blocked.cost > near.cost
    # opening: only entries the freed box could shorten go (a far one survives)
    mesh.remove_obstacle(oid)
    assert cache.find_path(mesh, (1, 10), (4, 11), exact=exact) is far
    again = cache.find_path(mesh, (8, 1), (12, 1), exact=exact)
    assert again.cost == pytest.approx(near.cost, abs=1e-9)


def test_no_path_and_partial_entries() -> None:
    mesh = NavMesh.from_polygons(WALKABLE)
    cache = PathCache()
    wall = mesh.add_obstacle(shapely.box(9, -1, 10, 13))        # two islands
    assert cache.find_path(mesh, (1, 1), (19, 1)).status is PathStatus.NO_PATH
    part = cache.find_path(mesh, (1, 1), (19, 1), partial=True)
    assert part.status is PathStatus.PARTIAL
    mesh.add_obstacle(shapely.box(16, 8, 17, 9))                 # blocking elsewhere
    assert len(cache) == 1                                        # the partial one went
    assert cache.find_path(mesh, (1, 1), (19, 1)).status is PathStatus.NO_PATH
    mesh.remove_obstacle(wall)                                    # opens: no path goes
    assert cache.find_path(mesh, (1, 1), (19, 1)).found


def test_bounds_helpers() -> None:
    s = np.array([[0.0, 0.0], [0.0, 0.0], [0.0, 0.0]])
    g = np.array([[10.0, 0.0], [0.0, 10.0], [4.0, 0.0]])
    box = (4.0, 2.0, 6.0, 3.0)
    lb = box_bound(s, g, box)
    # brute force over a fine sample of the box
    xs, ys = np.meshgrid(np.linspace(4, 6, 401), np.linspace(2, 3, 201))
    p = np.stack([xs.ravel(), ys.ravel()], axis=1)
    for i in range(3):
        brute = (np.hypot(*(p - s[i]).T) + np.hypot(*(p - g[i]).T)).min()
        assert lb[i] <= brute + 1e-12 and lb[i] == pytest.approx(brute, abs=1e-3)
    a = np.array([[0.0, 0.0], [0.0, 2.5], [3.0, 0.0], [5.0, 2.5]])
    b = np.array([[3.9, 1.9], [10.0, 2.5], [7.0, 4.0], [5.0, 2.5]])
    assert segments_touch_box(a, b, box).tolist() == [False, True, True, True]


def test_queue_restarts_a_search_spanning_an_edit() -> None:
    for on_change in ("restart", "stale"):
        mesh = NavMesh.from_polygons(WALKABLE)
        queue = PathQueue(max_expansions=1, on_change=on_change)
        req = queue.request(mesh, (1, 1), (19, 11), exact=True)
        queue.update()
        assert req.status is PathStatus.IN_PROGRESS
        wall = shapely.box(9.5, -1, 10.5, 9)
        mesh.add_obstacle(wall)
        for _ in range(10000):
            if req.status.done:
                break
            queue.update()
        if on_change == "stale":
            assert req.status is PathStatus.STALE
        else:
            assert req.status is PathStatus.FOUND
            assert not crosses(req.path, [wall])
            fresh = gamenav.find_path(mesh, (1, 1), (19, 11), exact=True)
            assert req.path.cost == pytest.approx(fresh.cost, rel=1e-9)
            assert queue.stats.restarts >= 1


def test_queue_with_cache_never_returns_a_path_through_a_new_obstacle() -> None:
    mesh = NavMesh.from_polygons(WALKABLE)
    cache = PathCache()
    queue = PathQueue(max_expansions=50, cache=cache)
    first = queue.request(mesh, (1, 1), (19, 11))
    while not first.status.done:
        queue.update()
    wall = shapely.box(9.5, -1, 10.5, 9)
    mesh.add_obstacle(wall)
    again = queue.request(mesh, (1, 1), (19, 11))
    while not again.status.done:
        queue.update()
    assert again.path is not first.path and again.status is PathStatus.FOUND
    assert not crosses(again.path, [wall])
