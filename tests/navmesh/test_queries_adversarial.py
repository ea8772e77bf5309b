"""Adversarial review of navmesh queries and search: hostile numbers, scales and budgets."""

from __future__ import annotations

import tracemalloc
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import shapely

import gamenav
from gamenav import NavMesh, NavMeshSearch, PathStatus
from gamenav.errors import InvalidGeometryError, InvalidInputError
from gamenav.io import read_mesh, read_mesh_scenarios


@pytest.mark.parametrize("scale", [2.0 ** -40, 2.0 ** -300], ids=["2**-40", "2**-300"])
@pytest.mark.parametrize("exact", [True, False], ids=["exact", "default"])
def test_a_mesh_scaled_by_a_power_of_two_is_searched_alike(data_dir: Path, exact: bool, scale: float) -> None:
    """Scaling by a power of two is exact in floats, so a search must expand the same nodes and
    return the same path, scaled. At 2**-40 the exact search's root pruning once used an absolute
    1e-9 slack, larger than whole paths, so it pruned nothing and ran out of memory on Iron
    Harvest; at 2**-300 the product of two orientations (a fourth power) underflowed to 0, so the
    goal was not mirrored and the exact search returned a path 4.4% too long."""
    base = data_dir / "meshes/iron-harvest/scene_mp_2p_01.mesh"
    data = read_mesh(base)
    mesh = NavMesh.from_mesh(data.vertices, data.polygons)
    tiny = NavMesh.from_mesh(np.asarray(data.vertices) * scale, data.polygons)
    for s in read_mesh_scenarios(str(base) + ".scen")[::100]:
        one = gamenav.find_path(mesh, s.start, s.goal, exact=exact)
        search = NavMeshSearch(tiny, np.multiply(s.start, scale), np.multiply(s.goal, scale), exact=exact)
        assert search.step(max(one.expanded, 1)).done, s
        path = search.result()
        assert path.expanded == one.expanded
        np.testing.assert_array_equal(path.points, one.points * scale)
        assert path.cost == one.cost * scale


@pytest.mark.parametrize("budget", [0, -1, 1.5, True, "3", 2**63])
@pytest.mark.parametrize("when", ["at_once", "stepped", "cancelled"])
def test_step_checks_its_budget_even_when_the_search_is_done(budget: object, when: str) -> None:
    """A bad budget is a programmer error whatever the query: it once passed unnoticed whenever
    the search had ended (in its constructor when start and goal share a triangle, by earlier
    steps, or by cancel), and raised otherwise."""
    mesh = NavMesh.from_polygons([(0, 0), (10, 0), (10, 10), (0, 10)],
                                 obstacles=[[(4, -1), (6, -1), (6, 8), (4, 8)]])
    search = NavMeshSearch(mesh, (1, 1), (1.1, 1) if when == "at_once" else (9, 1), exact=True)
    if when == "stepped":
        search.step()
    elif when == "cancelled":
        search.cancel()
    assert search.status.done
    with pytest.raises(InvalidInputError, match="max_expansions must be an int"):
        search.step(budget)  # type: ignore[arg-type]
    assert search.step(1) is search.status


def test_from_mesh_rejects_a_star_polygon() -> None:
    """A pentagram turns left at every corner, so the corner test passed it: it was 'triangulated'
    into one triangle of its points (most of the star lost, silently)."""
    star = np.array([(0, 0), (2, 0), (0.2, 1.5), (1, -0.5), (1.8, 1.5)], dtype=float)
    with pytest.raises(InvalidGeometryError, match="turns 2 times around"):
        NavMesh.from_mesh(star, [[0, 1, 2, 3, 4]])
    hexagon = np.array([(0, 0), (1, 0), (2, 0), (2, 1), (1, 1), (0, 1)], dtype=float)
    assert len(NavMesh.from_mesh(hexagon, [[0, 1, 2, 3, 4, 5]])) == 4  # 180-degree corners still fine


def test_a_ray_along_a_wall_to_a_point_clamped_onto_it_is_clear(data_dir: Path) -> None:
    """From a wall's corner to a point :meth:`NavMesh.nearest` put on that wall, the ray runs
    along the wall: it once came back blocked at fraction 0 whenever the clamped point rounded to
    the outside of the wall (by ~1e-16, far within the mesh's tolerance)."""
    mesh = NavMesh.from_mesh(*read_mesh(data_dir / "meshes/iron-harvest/scene_mp_2p_01.mesh"))
    verts, edges = mesh.vertices, mesh._border_edges
    a, b = verts[edges[:, 0]], verts[edges[:, 1]]
    inward = np.stack([a[:, 1] - b[:, 1], b[:, 0] - a[:, 0]], axis=1)  # left of a -> b: the mesh
    outside = (a + b) / 2 - 1e-3 * inward / np.hypot(inward[:, 0], inward[:, 1])[:, None]
    clamped = mesh.nearest(outside)
    on_own_wall = np.hypot(*(clamped - (a + b) / 2).T) <= 1e-3 * (1 + 1e-6)
    checked = 0
    for i in np.flatnonzero(on_own_wall):
        for corner in edges[i]:
            if not mesh._pinch[corner]:  # a pinch point's triangle is ambiguous
                checked += 1
                assert mesh.raycast(verts[corner], clamped[i]).clear, (verts[corner], clamped[i])
    assert checked > 1000


@pytest.mark.parametrize("exact", [True, False], ids=["exact", "default"])
def test_clamping_onto_a_mesh_that_edits_emptied_finds_no_path(exact: bool) -> None:
    """With every triangle carved away, ``clamp`` has nothing to snap onto (triangle -1): the
    search once started from triangle -1 (numpy's last one, a dead triangle) and answered FOUND
    with a straight line across the removed floor."""
    mesh = NavMesh.from_polygons([(0, 0), (10, 0), (10, 10), (0, 10)])
    mesh.add_obstacle([(-1, -1), (11, -1), (11, 11), (-1, 11)])
    assert mesh.clamp((5, 5))[1].tolist() == [-1]
    for partial in (False, True):
        path = gamenav.find_path(mesh, (5, 5), (6, 6), clamp=True, partial=partial, exact=exact)
        assert path.status is PathStatus.NO_PATH and len(path) == 0


@pytest.mark.parametrize("with_areas", [False, True], ids=["free_space", "areas"])
def test_from_polygons_is_exact_under_power_of_two_scaling(with_areas: bool) -> None:
    """``triangle`` once failed below ~1e-80 (its exact predicates underflowed: "Triangulation
    failed", after printing an internal error), although such coordinates are accepted."""
    def build(scale: float) -> NavMesh:
        box = [(0, 0), (10, 0), (10, 10), (0, 10)]
        hole = [(2, 2), (3, 2), (3, 8), (2, 8)]
        areas = [(shapely.box(4 * scale, 0, 6 * scale, 10 * scale), 3.0)] if with_areas else ()
        return NavMesh.from_polygons(np.multiply(box, scale), obstacles=np.multiply(hole, scale), areas=areas)

    one, tiny = build(1.0), build(2.0 ** -300)
    np.testing.assert_array_equal(tiny.vertices, one.vertices * 2.0 ** -300)
    np.testing.assert_array_equal(tiny.triangles, one.triangles)
    np.testing.assert_array_equal(tiny.area_costs, one.area_costs)


def test_clamping_to_an_island_of_an_emptied_mesh_says_there_is_none() -> None:
    """The message read "island must be None or an int in 0..-1"."""
    mesh = gamenav.NavMesh.from_polygons([[(0, 0), (4, 0), (4, 4), (0, 4)]])
    mesh.add_obstacle([(-1, -1), (5, -1), (5, 5), (-1, 5)])
    with pytest.raises(gamenav.InvalidInputError,
                       match=r"^island must be None \(edits removed every triangle\), got 0$"):
        mesh.clamp((9.0, 9.0), island=0)


@pytest.mark.parametrize("exact", [True, False], ids=["exact", "default"])
def test_a_goal_a_rounding_error_from_a_pinch_point_is_not_reached_through_it(data_dir: Path, exact: bool) -> None:
    """bad-ambig: two squares touch only at (1, 1). A goal 1e-12 from that corner, inside the
    upper-left square (within the mesh tolerance of the corner), was reached from the lower-right
    square straight through the pinch point (cost 0.707, not 3.707): the goal's triangles were
    every triangle at the corner, on both sides of it."""
    mesh = NavMesh.from_mesh(*read_mesh(data_dir / "meshes/polyanya/bad-ambig.mesh"))
    goal = (1 - 1e-12, 1 + 1e-12)
    there = gamenav.find_path(mesh, (1.5, 0.5), goal, exact=exact)
    back = gamenav.find_path(mesh, goal, (1.5, 0.5), exact=exact)
    assert there.cost == pytest.approx(back.cost) == pytest.approx(3 + 0.5**0.5)
    assert gamenav.find_path(mesh, (0.5, 1.5), goal, exact=exact).cost == pytest.approx(0.5**0.5)


@pytest.mark.parametrize("exponent", [30, 48])
def test_a_mesh_far_from_the_origin_is_searched_as_well_as_near_it(data_dir: Path, exponent: int) -> None:
    """Iron Harvest on a 1/8 grid (exact at 2**48 too), moved by 2**exponent: the exact search
    computes interval ends in world coordinates, rounded to 1.2e-7 at 2**30 (0.06 at 2**48),
    far coarser than the mesh tolerance; ends meant to be on a vertex were not, so the search
    missed turning there: 3 of 200 paths longer at 2**30 (by up to 0.06%), 11 at 2**48 (3.8%).
    (A path may cut a corner by the mesh's tolerance, which is 4 float steps there: 0.25.)"""
    data = read_mesh(data_dir / "meshes/iron-harvest/scene_mp_2p_01.mesh")
    verts = np.round(np.asarray(data.vertices) * 8) / 8
    near = NavMesh.from_mesh(verts, data.polygons)
    off = 2.0 ** exponent
    far = NavMesh.from_mesh(verts + off, data.polygons)
    rng = np.random.default_rng(0)
    pts = np.round(rng.uniform(verts.min(axis=0), verts.max(axis=0), (1000, 2)) * 8) / 8
    pts = pts[near.locate(pts) >= 0][:400]
    for a, b in zip(pts[::2], pts[1::2], strict=True):
        for exact in (True, False):
            one = gamenav.find_path(near, a, b, exact=exact)
            other = gamenav.find_path(far, a + off, b + off, exact=exact)
            assert other.cost == pytest.approx(one.cost, rel=1e-12, abs=far.tolerance), (a, b, exact)


def test_searches_on_a_mesh_far_from_the_origin_share_its_local_vertices() -> None:
    """Each search on a mesh far from zero copied all its vertices into local coordinates
    (12 000 vertices: 47 us more per query); they are made once per mesh state."""
    far = NavMesh.from_polygons([[(5000, 5000), (5100, 5000), (5100, 5100), (5000, 5100)],
                                 [(5040, 5040), (5060, 5040), (5060, 5060), (5040, 5060)]])
    one = gamenav.NavMeshSearch(far, (5001, 5001), (5099, 5099), exact=True)
    two = gamenav.NavMeshSearch(far, (5001, 5099), (5099, 5001))
    assert one._k["verts"] is two._k["verts"] and not one._k["verts"].flags.writeable
    assert one.step() is two.step() is gamenav.PathStatus.FOUND
    assert one.result().cost == pytest.approx(2 * np.hypot(39, 59), rel=1e-9)
    far.add_obstacle([(5010, 5080), (5020, 5080), (5020, 5090), (5010, 5090)])
    three = gamenav.NavMeshSearch(far, (5001, 5001), (5099, 5099), exact=True)
    assert three._k["verts"] is not one._k["verts"] and three._k["verts"].shape[0] > one._k["verts"].shape[0]


def test_points_clamped_onto_a_mesh_far_from_the_origin_are_on_it(data_dir: Path) -> None:
    """Iron Harvest moved by 2**36: world coordinates there are steps of 1.5e-5 apart, while the
    tolerance was 1e-9 of the extent (2.1e-7), so a point :meth:`NavMesh.nearest` rounded onto
    a slanted wall was often off the mesh for the other queries (258 of 1669 outside points:
    locate -1, raycast blocked at 0, find_path BlockedEndpointError)."""
    data = read_mesh(data_dir / "meshes/iron-harvest/scene_mp_2p_01.mesh")
    verts = np.asarray(data.vertices)
    off = 2.0 ** 36
    mesh = NavMesh.from_mesh(verts + off, data.polygons)
    pts = np.random.default_rng(0).uniform(verts.min(axis=0), verts.max(axis=0), (5000, 2)) + off
    pts = pts[mesh.locate(pts) < 0]
    clamped = mesh.nearest(pts)
    assert len(pts) > 1000 and (mesh.locate(clamped) >= 0).all()
    island = mesh.islands[mesh.locate(clamped)]
    for p, same in zip(clamped[1:100], island[1:100] == island[0], strict=True):
        assert mesh.raycast(p, p).clear
        assert gamenav.find_path(mesh, p, clamped[0]).status is (PathStatus.FOUND if same else PathStatus.NO_PATH)


def test_an_exact_search_from_a_vertex_of_an_edited_mesh_does_not_index_the_whole_mesh() -> None:
    """The exact search starts on every triangle around a start vertex: on an edited mesh it
    found them by sorting all triangles into a vertex index, per search (111 bytes and 40x the
    time of a short query on a 116k-triangle mesh); it now turns around the vertex."""
    rng = np.random.default_rng(0)
    mesh = NavMesh.from_grid(gamenav.TileGrid(rng.random((300, 300)) > 0.3))
    mesh.remove_obstacle(mesh.add_obstacle(shapely.box(1, 1, 2, 2)))
    v = mesh.vertices[mesh.triangles[mesh.alive][100, 0]]
    NavMeshSearch(mesh, v, v, exact=True)  # compile and warm up outside the measurement
    tracemalloc.start()
    try:
        path = gamenav.find_path(mesh, v, v + 0.5, exact=True)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert path.status is PathStatus.FOUND
    assert peak < 4 * len(mesh)  # the goal's triangle mask (1 byte a triangle), not an index


def test_the_exact_search_turns_at_a_corner_next_to_a_sliver() -> None:
    """A mesh that grid-following edits left with a 5e-7-wide sliver (vertices (15, 9) and
    (15, 8.999999472)): interval ends computed past it drifted 2e-8 off the corner (12, 6), which
    became a new root only when an end was exactly on it, so the way round it was lost: from
    (16, 14) the exact path cost 41.55 against A*'s 19.48 (9 of 300 random queries longer than
    A*'s, by up to 15.3). Ends within the mesh tolerance of a vertex are that vertex now."""
    data = np.load(Path(__file__).parents[1] / "data" / "sliver_corner_mesh.npz")
    mesh = NavMesh.from_mesh(data["vertices"], data["triangles"])
    goal = (3.304115380044095, 0.3297611729183545)
    exact = gamenav.find_path(mesh, (16.0, 14.0), goal, exact=True)
    assert exact.cost == pytest.approx(gamenav.find_path(mesh, (16.0, 14.0), goal).cost, rel=1e-9)
    assert exact.cost == pytest.approx(np.hypot(4, 8) + np.hypot(3, 3) + np.hypot(9 - goal[0], 3 - goal[1]), rel=1e-9)
    rng = np.random.default_rng(0)
    points = rng.uniform(0, 30, (3000, 2))
    points = points[mesh.locate(points) >= 0][:600]
    for a, b in zip(points[::2], points[1::2], strict=True):
        shortest, portal = gamenav.find_path(mesh, a, b, exact=True), gamenav.find_path(mesh, a, b)
        assert shortest.cost <= portal.cost + 1e-9, (a, b)


@pytest.mark.parametrize("budget", [1, 5])
def test_an_exact_search_step_keeps_to_its_budget_along_a_corridor(budget: int) -> None:
    """Polyanya expands a lone successor in a corridor triangle at once, off the heap: that went
    on past the budget, so ``step(1)`` expanded 394 nodes along a strip of 398 triangles (and up
    to 18 on Iron Harvest), overrunning queue budgets. The next corridor node now waits for the
    next step; slices still give the one-shot path, bit for bit."""
    n = 200
    verts = np.r_[np.c_[np.arange(n), np.ones(n)], np.c_[np.arange(n) + 0.5, np.zeros(n)]]
    tris = [t for i in range(n - 1) for t in ([n + i, i + 1, i], [n + i, n + i + 1, i + 1])]
    mesh = NavMesh(verts, np.array(tris))
    one = gamenav.find_path(mesh, (0.5, 0.4), (198.0, 0.6), exact=True)
    search = NavMeshSearch(mesh, (0.5, 0.4), (198.0, 0.6), exact=True)
    before = 0
    while not search.step(budget).done:
        assert search.expanded - before == budget
        before = search.expanded
    assert search.expanded - before <= budget
    path = search.result()
    assert path.status is PathStatus.FOUND and path.expanded == one.expanded > 300
    np.testing.assert_array_equal(path.points, one.points)
    np.testing.assert_array_equal(path.corridor, one.corridor)
    assert path.cost == one.cost


def test_a_clear_ray_hits_its_end_exactly() -> None:
    """``RaycastHit.point`` is the end when the ray is clear, but it was computed as
    ``start + 1.0 * (end - start)``, which rounds off the end: 244 of 1000 random clear rays in a
    square came back a float step away from it."""
    mesh = NavMesh.from_polygons([(0, 0), (10, 0), (10, 10), (0, 10)])
    rng = np.random.default_rng(0)
    for start, end in rng.uniform(0, 10, (1000, 2, 2)):
        hit = mesh.raycast(start, end)
        assert hit.clear and hit.fraction == 1.0
        assert hit.point.tolist() == end.tolist(), (start, end)


@pytest.mark.parametrize("exact", [True, False], ids=["exact", "default"])
def test_a_clamped_partial_path_ends_nearest_the_goal_as_given(exact: bool) -> None:
    """A goal off the mesh in the gap of a U, 0.9 from the arm the start is on, 0.4 from a small
    island: ``clamp`` put it on that island, and ``partial`` then led to the start island's point
    closest to the clamped point, on the other arm: round the U (cost 18.71), ending 1.1 from the
    goal. The partial path ends at the start island's point closest to the goal as given."""
    u = shapely.box(0, 0, 4, 1).union(shapely.box(0, 0, 1, 10)).union(shapely.box(3, 0, 4, 10))
    mesh = NavMesh.from_polygons([u, shapely.box(2.3, 9, 2.5, 9.5)])
    path = gamenav.find_path(mesh, (0.5, 9.5), (1.9, 9.2), clamp=True, partial=True, exact=exact)
    assert path.status is PathStatus.PARTIAL
    np.testing.assert_allclose(path.points[-1], (1.0, 9.2), atol=1e-12)
    assert path.cost == pytest.approx(np.hypot(0.5, 0.3))


def _clamp_by_scan(mesh: NavMesh, points: np.ndarray, island: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """What :meth:`NavMesh.clamp` answered by scanning every border entry of an alive
    triangle (of ``island``): the closest point, ties to the lowest entry (the oracle)."""
    mesh = mesh._snapshot()
    tri = mesh.locate(points)
    if island is not None:
        tri[(tri >= 0) & (mesh.islands[np.maximum(tri, 0)] != island)] = -1
    out = points.copy()
    owner = mesh._border_tri
    ok = mesh.alive[owner] if island is None else mesh.alive[owner] & (mesh.islands[owner] == island)
    ids = np.flatnonzero(ok)
    if not len(ids):
        return out, tri
    a = mesh.vertices[mesh._border_edges[ids, 0]]
    e = mesh.vertices[mesh._border_edges[ids, 1]] - a
    ll = e[:, 0] * e[:, 0] + e[:, 1] * e[:, 1]
    for i in np.flatnonzero(tri < 0):
        px, py = points[i]
        s = np.where(ll > 0, ((px - a[:, 0]) * e[:, 0] + (py - a[:, 1]) * e[:, 1]) / np.where(ll > 0, ll, 1.0), 0.0)
        s = np.minimum(1.0, np.maximum(0.0, s))
        qx, qy = a[:, 0] + s * e[:, 0], a[:, 1] + s * e[:, 1]
        k = int(np.argmin((qx - px) ** 2 + (qy - py) ** 2))
        out[i] = qx[k], qy[k]
        tri[i] = owner[ids[k]]
    return out, tri


def _probe_points(mesh: NavMesh, rng: np.random.Generator) -> np.ndarray:
    """Random points inside and around the mesh, on its half-unit lattice (ties between edges
    meeting at a corner or running parallel), on its vertices, and far away."""
    x0, y0, x1, y1 = mesh.bounds
    w = max(x1 - x0, y1 - y0)
    return np.concatenate([rng.uniform([x0 - 2, y0 - 2], [x1 + 2, y1 + 2], (300, 2)),
                           np.round(rng.uniform([x0 - 2, y0 - 2], [x1 + 2, y1 + 2], (300, 2)) * 2) / 2,
                           mesh.vertices[rng.integers(0, len(mesh.vertices), 40)],
                           rng.uniform([x0 - 50 * w, y0 - 50 * w], [x1 + 50 * w, y1 + 50 * w], (40, 2)),
                           [(1e12, -3e11), (-1e15, 1e15), (x0 - w, (y0 + y1) / 2)]])


def _assert_clamps_as_the_scan(mesh: NavMesh, rng: np.random.Generator) -> None:
    pts = _probe_points(mesh, rng)
    n_islands = int(mesh.islands.max()) + 1
    for island in [None, *range(min(n_islands, 3))]:
        got, tri = mesh.clamp(pts, island)
        want, want_tri = _clamp_by_scan(mesh, pts, island)
        np.testing.assert_array_equal(got, want)
        np.testing.assert_array_equal(tri, want_tri)


@pytest.mark.parametrize("follow", [False, True], ids=["built", "following"])
def test_clamping_searches_the_bucket_grid_but_answers_as_a_scan_of_every_border_edge(follow: bool) -> None:
    """``clamp`` once tested every border edge for each point (450 us a point on a 186k-triangle
    mesh); it now searches rings of the triangles' bucket grid about the point and must answer
    exactly as the scan: the same point and triangle (ties to the lowest border entry), inside,
    outside, far away, per island, and after edits (dead triangles' entries, edges appended
    out of triangle order, the edited index) and compaction."""
    rng = np.random.default_rng(11)
    walk = rng.random((40, 56)) > 0.3
    walk[:, 27:29] = False  # two halves: islands
    grid = gamenav.TileGrid(walk)
    mesh = NavMesh.from_grid(grid, follow=follow)
    _assert_clamps_as_the_scan(mesh, rng)
    if follow:
        for k in range(8):
            x, y = int(rng.integers(0, 50)), int(rng.integers(0, 34))
            grid.set_walkable((x, y, x + 3, y + 3), k % 2 == 1)
    else:
        ids = [mesh.add_obstacle(shapely.Point(rng.uniform(0, 56), rng.uniform(0, 40)).buffer(rng.uniform(0.5, 3)))
               for _ in range(8)]
        for oid in ids[::3]:
            mesh.remove_obstacle(oid)
    assert not mesh.alive.all()
    _assert_clamps_as_the_scan(mesh, rng)
    mesh.compact()
    _assert_clamps_as_the_scan(mesh, rng)


def test_clamping_polygons_with_islands_and_slivers_answers_as_a_scan() -> None:
    """Free-form meshes (long thin triangles listed in many cells, islands far apart, an
    obstacle carved and removed) clamp exactly as the scan over every border edge."""
    rng = np.random.default_rng(12)
    square = [(0, 0), (100, 0), (100, 1), (0, 1)]
    parts = [square, [(300, 300), (301, 300), (300.5, 400)], [(-40, 50), (-10, 55), (-30, 80)]]
    mesh = NavMesh.from_polygons([shapely.Polygon(p) for p in parts],
                                 obstacles=[[(10, 0.2), (90, 0.2), (90, 0.8), (10, 0.8)]])
    _assert_clamps_as_the_scan(mesh, rng)
    oid = mesh.add_obstacle([(299, 320), (302, 320), (302, 330), (299, 330)])
    _assert_clamps_as_the_scan(mesh, rng)
    mesh.remove_obstacle(oid)
    _assert_clamps_as_the_scan(mesh, rng)


def test_clamping_one_point_allocates_nothing_the_size_of_the_border() -> None:
    """Clamping a point off the mesh once built an array over every border edge at each call
    (which of them to test) and scanned them all; it now reads only the buckets about it."""
    rng = np.random.default_rng(13)
    mesh = NavMesh.from_grid(gamenav.TileGrid(rng.random((200, 200)) > 0.2))
    n_edges = len(mesh._border_edges)
    assert n_edges > 20_000
    mesh.clamp((-3.0, 7.0))
    tracemalloc.start()
    try:
        mesh.clamp((-3.0, 7.0))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < n_edges // 3, peak  # the old scan: n_edges + 4 KB


class _CountingMax(np.ndarray):  # type: ignore[type-arg]
    """An ndarray view that counts its whole-array ``max`` calls."""

    calls = 0

    def max(self, *args: object, **kwargs: object) -> object:  # type: ignore[override]
        type(self).calls += 1
        return super().max(*args, **kwargs)  # type: ignore[arg-type]


def test_clamp_and_nearest_count_the_islands_once_per_version(monkeypatch: pytest.MonkeyPatch) -> None:
    """``clamp``/``nearest`` took ``islands.max()`` on every call: a pass over every triangle per
    query (119k on random512-10-0). Now once per version, and an edit's new islands are counted
    again (a split mesh accepts ``island=1`` after the edit, not before)."""
    mesh = NavMesh.from_polygons([(0, 0), (10, 0), (10, 10), (0, 10)])
    monkeypatch.setattr(_CountingMax, "calls", 0)
    mesh.__dict__["_islands"] = mesh._islands.view(_CountingMax)
    for _ in range(5):
        np.testing.assert_array_equal(mesh.nearest((12.0, 5.0)), [[10.0, 5.0]])
        pts, tri = mesh.clamp([(-1.0, 5.0), (5.0, 5.0)], island=0)
        np.testing.assert_array_equal(pts, [[0.0, 5.0], [5.0, 5.0]])
        assert (tri >= 0).all()
    assert _CountingMax.calls == 1
    with pytest.raises(InvalidInputError, match=r"island must be None or an int in 0\.\.0, got 1"):
        mesh.clamp((12.0, 5.0), island=1)
    mesh.add_obstacle([(4, -1), (6, -1), (6, 11), (4, 11)])  # splits the mesh in two islands
    pts, tri = mesh.clamp((5.2, 5.0), island=int(mesh.islands[mesh.locate((9.0, 5.0))[0]]))
    np.testing.assert_allclose(pts, [[6.0, 5.0]])
    assert repr(mesh).count("islands=2")



@pytest.mark.parametrize(("vertices", "triangles", "costs", "match"), [
    ([(0, 0), (True, 0), (1, 1)], [[0, 1, 2]], None, r"vertices must be a \(V, 2\) array of numbers \(no bools\)"),
    ([(0, 0), (1, 0), (1, 1)], [[0, True, 2]], None, "triangles must hold integer vertex ids, got bool values"),
    ([(0, 0), (1, 0), (1, 1)], [[0, 1, 2]], [True], "area_costs must be a"),
    ([(0, 0), (1, 0), (1, 1), (0, 1)], [[0, 1, 2], [0, 2, 3]], [2.0, True], "area_costs must be a"),
], ids=["vertex", "triangle", "cost", "mixed_costs"])
def test_a_bool_among_a_meshs_numbers_is_refused(vertices: Any, triangles: Any, costs: Any, match: str) -> None:
    """A bool mixed with numbers was read as 0 or 1 (numpy reads ``[0, True, 2]`` as the ints
    ``[0, 1, 2]``): ``NavMesh(vertices, [[0, True, 2]])`` built a triangle; bools among query
    points were already refused, as were arrays of bools."""
    with pytest.raises(InvalidInputError, match=match):
        NavMesh(vertices, triangles, costs)


def test_a_bool_among_from_mesh_polygons_is_refused() -> None:
    """As :func:`test_a_bool_among_a_meshs_numbers_is_refused`, through ``from_mesh``."""
    square = [(0, 0), (1, 0), (1, 1), (0, 1)]
    with pytest.raises(InvalidInputError, match="polygon 0 must hold integer vertex ids, got bool values"):
        NavMesh.from_mesh(square, [[0, True, 2, 3]])
    with pytest.raises(InvalidInputError, match=r"vertices must be a \(V, 2\) array of numbers \(no bools\)"):
        NavMesh.from_mesh([(0, 0), (1, False), (1, 1), (0, 1)], [[0, 1, 2, 3]])


def test_an_exact_path_from_a_vertex_has_a_corridor_holding_both_ends() -> None:
    """A start on a vertex whose fan holds the goal ended the exact search at once with the
    fan's first triangle as the corridor, which need not hold the goal: 10 of 128 vertex-to-vertex
    paths on this mesh (``(0, 0) -> (0, 10)``: corridor ``[0]``, the triangle (0, 0), (4, 0),
    (4, 8)). Now the corridor is a triangle of the fan that holds the goal."""
    mesh = NavMesh.from_polygons([(0, 0), (10, 0), (10, 10), (0, 10)],
                                 obstacles=[[(4, -1), (6, -1), (6, 8), (4, 8)]])

    def holds(t: int, p: np.ndarray) -> bool:
        corners = shapely.Polygon(mesh.vertices[mesh.triangles[t]])
        return bool(corners.distance(shapely.Point(p)) <= mesh.tolerance)

    for start in mesh.vertices:
        for goal in mesh.vertices:
            path = gamenav.find_path(mesh, start, goal, exact=True)
            assert path.status is PathStatus.FOUND
            assert holds(path.corridor[0], start) and holds(path.corridor[-1], goal), (start, goal, path.corridor)


def test_a_search_copied_by_pickle_on_a_mesh_that_edits_shrank_resumes_on_the_same_path() -> None:
    """A pickled search carried its mesh state, which unpickling rebuilt from the live
    triangles: edits had cut this 500-unit mesh to 300, so the copy's tolerance was 3e-7, not
    5e-7, and the exact search resumed from it snapped interval ends onto the corners 4e-7 off
    their rows differently: a path of 5 points, not the one-shot path's 6."""
    import pickle

    rng = np.random.default_rng(40)
    cells = rng.random((10, 10)) > 0.25
    grid_mesh = NavMesh.from_grid(gamenav.TileGrid(cells, cell_size=50.0))
    jitter = rng.choice([0.0, 4e-7, -4e-7], grid_mesh.vertices.shape)
    mesh = NavMesh(grid_mesh.vertices + jitter, grid_mesh.triangles)
    mesh.add_obstacle([(-1, 300), (501, 300), (501, 501), (-1, 501)])
    mesh.add_obstacle([(300, -1), (501, -1), (501, 501), (300, 501)])
    a, b = (105.77949579801198, 294.9688601976139), (275.5053840247623, 187.9953762125781)
    want = gamenav.find_path(mesh, a, b, exact=True)
    search = NavMeshSearch(mesh, a, b, exact=True)
    assert search.step(1) is PathStatus.IN_PROGRESS
    twin = pickle.loads(pickle.dumps(search))
    assert twin.step() is search.step() is PathStatus.FOUND
    for path in (search.result(), twin.result()):
        assert path.cost == want.cost and path.expanded == want.expanded
        np.testing.assert_array_equal(path.points, want.points)
        np.testing.assert_array_equal(path.corridor, want.corridor)
    assert len(want.points) == 6


def test_a_ray_along_a_wall_stops_where_the_wall_ends() -> None:
    """A wall whose top vertex is 1e-10 off the vertical: a ray from that top down along the wall
    and on through 1 unit of solid ground into another room was clear, because an end within the
    tolerance of the infinite line of the edge the walk left by counted as on the mesh. A ray
    5e-10 beside a square's wall (its start on the mesh within the tolerance, its line missing
    the start's triangle) was clear to a point 5 units off the mesh."""
    top = 1 + 1e-10
    mesh = NavMesh([(0, 1), (1, 1), (top, 2), (0, 2), (top, -1), (2, -1), (2, 0), (top, 0)],
                   [(0, 1, 2), (0, 2, 3), (4, 5, 6), (4, 6, 7)])
    assert (mesh.locate([(top, 2.0), (top, 0.0)]) >= 0).all()
    hit = mesh.raycast((top, 2.0), (top, 0.0))
    assert not hit.clear and hit.fraction == pytest.approx(0.5)
    assert mesh.raycast((top, 2.0), (top, 1.0)).clear
    square = NavMesh([(0, 0), (1, 0), (1, 1), (0, 1)], [(0, 1, 2), (0, 2, 3)])
    hit = square.raycast((1 + 5e-10, 0.5), (1 + 5e-10, -5.0))
    assert not hit.clear and hit.fraction == pytest.approx(0.5 / 5.5)
    assert square.raycast((1 + 5e-10, 0.5), (1 + 5e-10, 0.0)).clear


@pytest.mark.parametrize("bend", [0.0, 0.5, 0.9])
def test_a_ray_grazing_a_corner_within_the_tolerance_goes_on_along_the_wall(bend: float) -> None:
    """A ray passing 0.15 tolerances outside a wall's corner (1, 0.6) and on along the wall, whose
    next vertex is 1e-4 further and ``bend`` tolerances below the wall's line, was blocked at the
    corner: a ray went on round a border corner only through it exactly. One passing 1.5
    tolerances outside the corner stays blocked."""
    tol = 2.5e-9
    wall = [(2.5, 0.0), (1.0001, 0.6 - 0.00004 - bend * tol), (1.0, 0.6)]
    mesh = NavMesh.from_polygons([(0, -1), (2.5, -1), *wall, (0, 1.5)])
    assert mesh.tolerance == tol
    assert mesh.raycast((0.0, 1.0 + 0.3 * tol), (2.0, 0.2)).clear
    assert not mesh.raycast((0.0, 1.0 + 3 * tol), (2.0, 0.2)).clear


def test_rays_on_jittered_grid_meshes_are_clear_exactly_when_they_stay_on_the_mesh() -> None:
    """Grid meshes with vertices moved by up to 3e-9, rays between random vertices: 108 of 4800
    were clear through walls (up to a unit of solid ground), and 4 of 504 exact path legs along
    walls of nearly collinear edges were blocked. A ray is clear when it stays within 1e-6 of the
    free space, blocked when it comes that near to leaving it, and every path leg is clear."""
    rng = np.random.default_rng(0)
    for trial in range(8):
        grid_mesh = NavMesh.from_grid(gamenav.TileGrid(rng.random((10, 10)) > 0.3))
        jitter = (1e-10, 3e-9)[trial % 2]
        mesh = NavMesh(grid_mesh.vertices + rng.choice([0.0, jitter, -jitter], grid_mesh.vertices.shape),
                       grid_mesh.triangles)
        free = shapely.coverage_union_all(shapely.polygons(mesh.vertices[mesh.triangles]))
        ends = mesh.vertices[rng.integers(len(mesh.vertices), size=(600, 2))]
        ends = ends[mesh.locate(ends[:, 0]) >= 0]
        clear = np.array([mesh.raycast(a, b).clear for a, b in ends])
        rays = shapely.linestrings(ends)
        near, inside = shapely.covers(free.buffer(1e-6), rays), shapely.covers(free.buffer(-1e-6), rays)
        assert near[clear].all(), ends[clear & ~near]
        assert not inside[~clear].any(), ends[~clear & inside]
        for a, b in ends[:40]:
            points = gamenav.find_path(mesh, a, b, exact=True).points
            assert all(mesh.raycast(u, v).clear for u, v in zip(points[:-1], points[1:], strict=True)), (a, b)
