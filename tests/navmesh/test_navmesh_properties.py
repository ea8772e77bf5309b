"""Hypothesis properties of navmesh building and search on random scenes."""

from __future__ import annotations

import math

import numpy as np
import pytest
import shapely
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st

import gamenav
from gamenav import InvalidGeometryError, NavMesh, PathStatus
from gamenav.navmesh.build import free_space

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
BOX = shapely.box(0, 0, 20, 20)

coord = st.floats(0, 20, allow_nan=False, width=32)
point = st.tuples(coord, coord)
rect = st.tuples(coord, coord, st.floats(0.5, 6, width=32), st.floats(0.5, 6, width=32)).map(
    lambda r: shapely.box(r[0], r[1], r[0] + r[2], r[1] + r[3]))
blob = st.lists(point, min_size=3, max_size=6)  # any ring: often self-intersecting
obstacles = st.lists(st.one_of(rect, blob.map(lambda pts: shapely.Polygon(pts))), max_size=6)


def _mesh_area(mesh: NavMesh) -> float:
    p = mesh.vertices[mesh.triangles]
    return float(0.5 * np.sum((p[:, 1, 0] - p[:, 0, 0]) * (p[:, 2, 1] - p[:, 0, 1])
                              - (p[:, 1, 1] - p[:, 0, 1]) * (p[:, 2, 0] - p[:, 0, 0])))


def _build(obs: list, radius: float = 0.0):
    try:
        free = free_space(BOX, obs, radius)
        mesh = NavMesh.from_polygons(BOX, obstacles=obs, agent_radius=radius)
    except InvalidGeometryError:
        assume(False)
    return free, mesh


def _well_inside(free, pts: np.ndarray) -> np.ndarray:
    """Points clearly inside (not within the 1e-8 locate tolerance of the border)."""
    return shapely.contains_xy(free.buffer(-1e-6), pts[:, 0], pts[:, 1])


def _check_path(path, start, goal, free) -> None:
    np.testing.assert_array_equal(path.points[0], start)
    np.testing.assert_array_equal(path.points[-1], goal)
    seg = np.diff(path.points, axis=0)
    assert math.isclose(path.cost, float(np.hypot(seg[:, 0], seg[:, 1]).sum()), rel_tol=1e-12, abs_tol=1e-12)
    line = shapely.LineString(path.points) if len(path) > 1 else shapely.Point(path.points[0])
    assert free.buffer(1e-7).covers(line)


@SETTINGS
@given(obs=obstacles, ends=st.lists(point, min_size=8, max_size=8))
def test_paths_lie_in_free_space_and_exact_is_never_longer(obs, ends) -> None:
    free, mesh = _build(obs)
    pts = np.array(ends, dtype=np.float64)
    tri = np.where(_well_inside(free, pts), mesh.locate(pts), -1)
    pairs = [(pts[i], pts[i + 1]) for i in range(0, 8, 2) if tri[i] >= 0 and tri[i + 1] >= 0]
    assume(pairs)
    for start, goal in pairs:
        ex = gamenav.find_path(mesh, start, goal, exact=True)
        de = gamenav.find_path(mesh, start, goal)
        assert ex.status is de.status
        same = mesh.islands[mesh.locate(start)[0]] == mesh.islands[mesh.locate(goal)[0]]
        if not ex.found:
            assert ex.status is PathStatus.NO_PATH
            continue
        assert same
        for path in (ex, de):
            _check_path(path, start, goal, free)
            corridor = path.corridor
            ends = shapely.polygons(mesh.vertices[mesh.triangles[corridor[[0, -1]]]])
            assert shapely.distance(ends, shapely.points([start, goal])).max() <= 1e-9
            for a, b in zip(corridor[:-1], corridor[1:], strict=True):
                assert b in mesh.neighbours[a]
        assert ex.cost <= de.cost * (1 + 1e-9) + 1e-9
        assert ex.cost >= math.dist(start, goal) * (1 - 1e-12)
        if mesh.raycast(start, goal).clear:
            assert math.isclose(ex.cost, math.dist(start, goal), rel_tol=1e-9)


@SETTINGS
@given(obs=obstacles, data=st.data(), chunk=st.integers(1, 7), exact=st.booleans())
def test_sliced_equals_one_shot(obs, data, chunk, exact) -> None:
    _, mesh = _build(obs)
    # Endpoints valid by construction (nothing filtered): a convex combination, with weights of
    # at least 0.1 / 3, of the corners of two drawn triangles lies strictly inside them.
    last = len(mesh.triangles) - 1
    tris = data.draw(st.lists(st.integers(0, last), min_size=2, max_size=2), label="triangles")
    weights = np.array(data.draw(st.lists(st.tuples(*[st.floats(0.1, 1.0)] * 3), min_size=2, max_size=2),
                                 label="weights"))
    weights /= weights.sum(axis=1, keepdims=True)
    start, goal = np.einsum("pk,pkd->pd", weights, mesh.vertices[mesh.triangles[tris]])
    assert (mesh.locate([start, goal]) >= 0).all()
    one = gamenav.find_path(mesh, start, goal, exact=exact)
    search = gamenav.begin_search(mesh, start, goal, exact=exact)
    while not search.step(chunk).done:
        pass
    sliced = search.result()
    assert sliced.status is one.status and sliced.expanded == one.expanded
    assert sliced.cost == one.cost or (math.isinf(sliced.cost) and math.isinf(one.cost))
    np.testing.assert_array_equal(sliced.points, one.points)
    np.testing.assert_array_equal(sliced.corridor, one.corridor)


@SETTINGS
@given(obs=obstacles, radius=st.floats(0.05, 1.5), ends=st.lists(point, min_size=6, max_size=6))
def test_agent_radius_keeps_waypoints_clear_of_obstacles(obs, radius, ends) -> None:
    _, mesh = _build(obs, radius)
    blocked = shapely.box(-50, -50, 70, 70).difference(free_space(BOX, obs))
    pts = np.array(ends, dtype=np.float64)
    # mesh vertices (where paths bend) keep the radius too
    assert shapely.distance(blocked, shapely.points(mesh.vertices)).min() >= radius * (1 - 1e-9)
    tri = mesh.locate(pts)
    for i in range(0, 6, 2):
        if tri[i] < 0 or tri[i + 1] < 0:
            continue
        for exact in (False, True):
            path = gamenav.find_path(mesh, pts[i], pts[i + 1], exact=exact)
            if path.found:
                d = shapely.distance(blocked, shapely.points(path.points))
                assert d.min() >= radius * (1 - 1e-6) - 1e-9


@SETTINGS
@given(rings=st.lists(blob, min_size=1, max_size=3), holes=st.booleans())
def test_from_polygons_covers_repaired_free_space_or_raises(rings, holes) -> None:
    walkable = [rings[0], *rings[1:]] if holes else [shapely.Polygon(r) for r in rings]
    try:
        mesh = NavMesh.from_polygons(walkable)
    except InvalidGeometryError as err:
        if holes and "lies outside ring 0" in str(err):  # a hole that would remove nothing
            shell = shapely.make_valid(shapely.Polygon(rings[0]))
            assert any(shapely.make_valid(shapely.Polygon(r)).area > 0
                       and shell.intersection(shapely.make_valid(shapely.Polygon(r))).area == 0 for r in rings[1:])
            return
        assert "no walkable area left" in str(err) or "non-zero area" in str(err)
        return
    free = free_space(walkable)
    assert math.isclose(_mesh_area(mesh), free.area, rel_tol=1e-9, abs_tol=1e-9)
    tris = shapely.union_all(shapely.polygons(mesh.vertices[mesh.triangles]))
    assert tris.symmetric_difference(free).area <= 1e-9 * max(1.0, free.area)
    # at least one island per clearly separate part (parts within float noise of each other
    # may share a sliver triangle; parts too thin for a non-zero float area are dropped)
    parts = shapely.get_parts(free.buffer(1e-9))
    assert mesh.islands.max() + 1 >= int((shapely.area(parts) > 1e-9 * free.area).sum())


def _visibility_oracle(free, start, goal) -> tuple[float, list]:
    """Euclidean shortest path by Dijkstra on the visibility graph of the free-space corners."""
    import heapq

    corners = shapely.get_coordinates(shapely.get_rings(shapely.get_parts(free)))
    nodes = np.unique(np.vstack([corners, [start, goal]]), axis=0)
    s = int(np.flatnonzero((nodes == start).all(axis=1))[0])
    g = int(np.flatnonzero((nodes == goal).all(axis=1))[0])
    shapely.prepare(free)
    dist = {s: 0.0}
    prev: dict = {}
    heap = [(0.0, s)]
    done = set()
    while heap:
        d, u = heapq.heappop(heap)
        if u in done:
            continue
        done.add(u)
        if u == g:
            break
        for v in range(len(nodes)):
            if v in done:
                continue
            nd = d + math.dist(nodes[u], nodes[v])
            if nd < dist.get(v, math.inf) and free.covers(shapely.LineString([nodes[u], nodes[v]])):
                dist[v] = nd
                prev[v] = u
                heapq.heappush(heap, (nd, v))
    path = [g]
    while path[-1] in prev:
        path.append(prev[path[-1]])
    return dist.get(g, math.inf), [nodes[i] for i in path[::-1]]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(obs=st.lists(rect, min_size=1, max_size=4), ends=st.lists(point, min_size=2, max_size=2))
def test_exact_mode_equals_visibility_graph_oracle(obs, ends) -> None:
    free, mesh = _build(obs)
    start, goal = (np.array(e, dtype=np.float64) for e in ends)
    assume(_well_inside(free, np.stack([start, goal])).all())
    path = gamenav.find_path(mesh, start, goal, exact=True)
    cost, route = _visibility_oracle(free, start, goal)
    if path.found:
        assert path.cost >= cost * (1 - 1e-9)
    # the oracle may squeeze through pinch points (where regions only touch), the mesh may not
    pinch = {tuple(mesh.vertices[v]) for v in np.flatnonzero(mesh._kernel_arrays()["pinch"])}
    if not any(tuple(p) in pinch for p in route):
        assert path.found == math.isfinite(cost)
        if path.found:
            assert path.cost == pytest.approx(cost, rel=1e-9, abs=1e-9)


@SETTINGS
@given(cells=st.lists(st.lists(st.booleans(), min_size=10, max_size=10), min_size=8, max_size=8),
       ends=st.lists(st.tuples(st.integers(0, 9), st.integers(0, 7)), min_size=2, max_size=2),
       y_up=st.booleans())
def test_grid_mesh_never_longer_than_the_octile_grid_path(cells, ends, y_up) -> None:
    """The octile path (no corner cutting) is a path in the cells' free space: an upper bound."""
    walk = np.array(cells)
    (sx, sy), (gx, gy) = ends
    assume(walk[sy, sx] and walk[gy, gx])
    grid = gamenav.TileGrid(walk, cell_size=0.5, origin=(3.0, -2.0), y_up=y_up)
    mesh = NavMesh.from_grid(grid)
    a, b = grid.cell_to_world([(sx, sy), (gx, gy)])
    on_grid = gamenav.find_path(grid, (sx, sy), (gx, gy))
    on_mesh = gamenav.find_path(mesh, a, b, exact=True)
    assert on_mesh.found == on_grid.found  # both are 4-connected (no corner cutting)
    if on_mesh.found:
        assert on_mesh.cost <= 0.5 * on_grid.cost * (1 + 1e-9) + 1e-9
        assert on_mesh.cost >= math.dist(a, b) * (1 - 1e-12)


@SETTINGS
@given(obs=obstacles, radius=st.sampled_from([0.0, 0.4]))
@example(obs=[shapely.box(1.0, 1.0, 4.0, 3.75)], radius=0.4)  # slivers of area 1e-16 outside the segments
def test_triangles_kept_are_those_whose_centroid_is_in_the_free_space(obs, radius) -> None:
    """The side of the segments each triangle is on (inside_triangles) is the side GEOS sees."""
    import triangle

    from gamenav._kernels.navmesh import inside_triangles
    from gamenav.navmesh.build import triangulate_free_space

    free, _ = _build(obs, radius)
    rings = shapely.get_rings(shapely.get_parts(free))
    coords, ring = shapely.get_coordinates(rings, return_index=True)
    verts, inverse = np.unique(coords, axis=0, return_inverse=True)
    inverse = inverse.ravel()
    same = ring[1:] == ring[:-1]
    segs = np.stack([inverse[:-1][same], inverse[1:][same]], axis=1)
    out = triangle.triangulate({"vertices": verts, "segments": segs[segs[:, 0] != segs[:, 1]]}, "pQn")
    tris = out["triangles"].astype(np.int64)
    inside, thin, ok = inside_triangles(out["vertices"], tris, out["neighbors"].astype(np.int64),
                                        out["segments"].astype(np.int64))
    assert ok
    centroids = out["vertices"][tris].mean(axis=1)
    shapely.prepare(free)
    geos = shapely.contains_xy(free, centroids[:, 0], centroids[:, 1])
    assert (inside[~thin] == geos[~thin]).all()  # thin ones: the caller asks GEOS
    v, t = triangulate_free_space(free)
    assert float(shapely.area(shapely.polygons(v[t])).sum()) == pytest.approx(free.area, rel=1e-9)
