"""Importing navmeshes made by other tools: vertex copies (OBJ / glTF, a vertex list per face), T-junctions."""

from __future__ import annotations

import itertools
import math
import tracemalloc

import numpy as np
import pytest
import shapely
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st

import gamenav
from gamenav import InvalidGeometryError, NavMesh, PathStatus
from gamenav.io import read_mesh

SQUARE = [(0, 0), (10, 0), (10, 10), (0, 10)]


def _soup(mesh: NavMesh) -> NavMesh:
    """``mesh`` with every triangle given its own copies of its vertices."""
    return NavMesh(mesh.vertices[mesh.triangles].reshape(-1, 2), np.arange(3 * len(mesh)).reshape(-1, 3))


@pytest.mark.parametrize("as_triangles", [False, True])
def test_polygons_with_their_own_copies_of_shared_vertices_are_neighbours(as_triangles: bool) -> None:
    # two squares side by side, each with its own vertices (1, 0) and (1, 1)
    verts = [(0, 0), (1, 0), (1, 1), (0, 1), (1, 0), (2, 0), (2, 1), (1, 1)]
    mesh = (NavMesh(verts, [[0, 1, 2], [0, 2, 3], [4, 5, 6], [4, 6, 7]]) if as_triangles
            else NavMesh.from_mesh(verts, [[0, 1, 2, 3], [4, 5, 6, 7]]))
    assert mesh.islands.tolist() == [0, 0, 0, 0]
    assert mesh.triangles.max() < 7 and 4 not in mesh.triangles  # the first copies
    path = gamenav.find_path(mesh, (0.5, 0.5), (1.5, 0.5))
    assert path.status is PathStatus.FOUND and path.cost == 1.0


def test_a_copied_corner_of_the_border_is_one_corner_for_the_funnel() -> None:
    mesh = NavMesh.from_polygons([SQUARE], obstacles=[[(4, -1), (6, -1), (6, 8), (4, 8)]])
    soup = _soup(mesh)
    assert soup.islands.max() == 0 and len(soup.portals) == len(mesh.portals)
    for exact in (False, True):
        path = gamenav.find_path(soup, (1, 1), (9, 1), exact=exact)
        assert [tuple(map(float, p)) for p in path.points] == [(1.0, 1.0), (4.0, 8.0), (6.0, 8.0), (9.0, 1.0)]


def test_copies_of_a_pinch_point_do_not_connect_its_regions() -> None:
    # two squares touching at (1, 1) only, each with its own copy of it: still a pinch point
    verts = [(0, 0), (1, 0), (1, 1), (0, 1), (1, 1), (2, 1), (2, 2), (1, 2)]
    mesh = NavMesh.from_mesh(verts, [[0, 1, 2, 3], [4, 5, 6, 7]])
    assert mesh.islands.tolist() == [0, 0, 1, 1]
    assert gamenav.find_path(mesh, (0.5, 0.5), (1.5, 1.5)).status is PathStatus.NO_PATH


def test_negative_zero_is_a_copy_of_zero() -> None:
    mesh = NavMesh([(0.0, 0.0), (1, 0), (0, 1), (-0.0, 1.0), (1, 0), (1, 1)], [[0, 1, 2], [3, 4, 5]])
    assert mesh.islands.tolist() == [0, 0]


def test_edits_copies_and_compaction_of_a_mesh_of_copies_answer_as_the_original() -> None:
    mesh = NavMesh.from_polygons([SQUARE])
    soup = _soup(mesh)
    queries = [((1, 1), (9, 9)), ((1, 9), (9, 1)), ((5, 0.5), (5, 9.5))]
    for m in (mesh, soup):
        m.add_obstacle([(2, 2), (8, 2), (8, 8), (2, 8)])
        m.remove_obstacle(m.add_obstacle([(4, -1), (6, -1), (6, 3), (4, 3)]))
        m.compact()
    for a, b in queries:
        want = gamenav.find_path(mesh, a, b, exact=True).cost
        assert math.isclose(gamenav.find_path(soup, a, b, exact=True).cost, want, rel_tol=1e-12)
        assert gamenav.find_path(soup, a, b).found


coord = st.floats(0, 20, allow_nan=False, width=32)
rect = st.tuples(coord, coord, st.floats(0.5, 6, width=32), st.floats(0.5, 6, width=32)).map(
    lambda r: shapely.box(r[0], r[1], r[0] + r[2], r[1] + r[3]))


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(obstacles=st.lists(rect, max_size=5), ends=st.lists(st.tuples(coord, coord), min_size=8, max_size=8))
def test_a_mesh_and_its_triangles_each_with_own_vertices_answer_alike(obstacles, ends) -> None:
    try:
        mesh = NavMesh.from_polygons(shapely.box(0, 0, 20, 20), obstacles=obstacles)
    except InvalidGeometryError:
        assume(False)
    soup = _soup(mesh)
    np.testing.assert_array_equal(soup.islands, mesh.islands)
    np.testing.assert_array_equal(soup.neighbours, mesh.neighbours)
    for start, goal in zip(ends[::2], ends[1::2], strict=True):
        for exact in (False, True):
            want = gamenav.find_path(mesh, start, goal, exact=exact, clamp=True)
            got = gamenav.find_path(soup, start, goal, exact=exact, clamp=True)
            assert got.status is want.status
            assert got.cost == want.cost


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(obstacles=st.lists(rect, max_size=5), ends=st.lists(st.tuples(coord, coord), min_size=8, max_size=8),
       seed=st.integers(0, 2**32 - 1))
def test_a_triangle_soup_with_copies_a_float_step_apart_is_stitched_whole(obstacles, ends, seed: int) -> None:
    # each triangle's own copies of its corners, each moved by -1, 0 or 1 float step
    try:
        mesh = NavMesh.from_polygons(shapely.box(0, 0, 20, 20), obstacles=obstacles)
    except InvalidGeometryError:
        assume(False)
    p = mesh.vertices[mesh.triangles].reshape(-1, 2)
    step = np.random.default_rng(seed).integers(-1, 2, p.shape) * np.spacing(np.abs(p) + 1.0)
    soup = NavMesh.from_mesh(p + step, np.arange(len(p)).reshape(-1, 3))
    assert soup.islands.max() == mesh.islands.max()
    for start, goal in zip(ends[::2], ends[1::2], strict=True):
        want = gamenav.find_path(mesh, start, goal, exact=True, clamp=True)
        got = gamenav.find_path(soup, start, goal, exact=True, clamp=True)
        assert got.status is want.status
        assert math.isclose(got.cost, want.cost, rel_tol=1e-12, abs_tol=1e-12)


# -- T-junctions: a vertex of one polygon in the middle of another's edge --------------------
def test_an_edge_with_a_neighbours_vertex_inside_it_is_split_into_portals() -> None:
    # a square beside two rectangles: (1, 0.5) lies in the middle of the square's right edge
    verts = [(0, 0), (1, 0), (1, 1), (0, 1), (2, 0), (2, 0.5), (1, 0.5), (2, 1)]
    for polygons in ([[0, 1, 2, 3], [1, 4, 5, 6], [6, 5, 7, 2]],
                     np.array([[0, 1, 2], [0, 2, 3], [1, 4, 5], [1, 5, 6], [6, 5, 7], [6, 7, 2]])):
        mesh = NavMesh.from_mesh(verts, polygons)
        assert int(mesh.islands.max()) == 0
        for goal in ((1.5, 0.25), (1.5, 0.75)):
            path = gamenav.find_path(mesh, (0.5, 0.5), goal, exact=True)
            assert path.found and math.isclose(path.cost, math.dist((0.5, 0.5), goal), rel_tol=1e-12)


@pytest.mark.parametrize("gap", [2.0**-52, -(2.0**-53), 1.9e-9, -1.9e-9])
def test_copies_a_rounding_error_apart_are_one_vertex(gap: float) -> None:
    # two squares side by side whose shared corners were computed apart: a float step, or
    # just under 1e-9 of the extent (2), off each other
    verts = [(0, 0), (1, 0), (1, 1), (0, 1), (1 + gap, 0), (2, 0), (2, 1), (1 + gap, 1)]
    mesh = NavMesh.from_mesh(verts, [[0, 1, 2, 3], [4, 5, 6, 7]])
    assert mesh.islands.tolist() == [0, 0, 0, 0]
    assert gamenav.find_path(mesh, (0.5, 0.5), (1.5, 0.5), exact=True).cost == 1.0
    # farther apart than twice that (copies each within it of a point): a gap
    far = NavMesh.from_mesh(verts[:4] + [(1 + 5e-9, 0), (2, 0), (2, 1), (1 + 5e-9, 1)], [[0, 1, 2, 3], [4, 5, 6, 7]])
    assert far.islands.tolist() == [0, 0, 1, 1]


def test_a_mesh_of_fine_detail_and_one_long_edge_is_checked_in_little_memory() -> None:
    # 600 triangles in a unit square beside one 1000-unit triangle: with one bucket size for
    # all, the long edge made the buckets so large that the square's 900 corners were paired
    # with all its 1800 border edges (221 MB; 30 000 edges: killed for lack of memory)
    n = 30
    xs, ys = np.meshgrid(np.arange(n + 1) / n, np.arange(n + 1) / n)
    verts = np.r_[np.c_[xs.ravel(), ys.ravel()], [(5, 0), (1000, 700), (5, 3)]]
    tris = [(k, k + 1, k + n + 2) for k in range(n * (n + 1)) if k % (n + 1) < n and k % 3]
    tris.append((len(verts) - 3, len(verts) - 2, len(verts) - 1))
    NavMesh.from_mesh(verts, np.array(tris))  # (loads the kernels first)
    tracemalloc.start()
    try:
        mesh = NavMesh.from_mesh(verts, np.array(tris))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert len(mesh) == len(tris) and peak < 40e6


@pytest.mark.parametrize("turn", [0.0, math.pi / 4])
def test_a_comb_of_thin_strips_is_checked_in_little_memory(turn: float) -> None:
    # 250 strips 1000 long, 2 apart: every corner was paired with all 500 long edges, which
    # share buckets of their size (73 MB; 1000 strips: 1.2 GB and 13 s)
    n, rotation = 250, np.array([[math.cos(turn), -math.sin(turn)], [math.sin(turn), math.cos(turn)]])
    verts = np.array([(x, 4.0 * i + dy) for i in range(n) for x, dy in ((0, 0), (1000, 0), (1000, 2), (0, 2))])
    tris = np.array([(4 * i, 4 * i + 1 + j, 4 * i + 2 + j) for i in range(n) for j in (0, 1)])
    NavMesh.from_mesh(verts[:8] @ rotation.T, tris[:1])  # (loads the kernels first)
    tracemalloc.start()
    try:
        mesh = NavMesh.from_mesh(verts @ rotation.T, tris)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert len(mesh) == 2 * n and int(mesh.islands.max()) == n - 1 and peak < 20e6


def test_a_corner_touching_the_middle_of_an_edge_stays_a_pinch_point() -> None:
    # a triangle standing on its apex at (0.5, 1), the middle of the square's top edge
    mesh = NavMesh.from_mesh([(0, 0), (1, 0), (1, 1), (0, 1), (0.5, 1), (1, 2), (0, 2)],
                             [[0, 1, 2, 3], [4, 5, 6]])
    assert int(mesh.islands.max()) == 1
    assert gamenav.find_path(mesh, (0.5, 0.5), (0.5, 1.5)).status is PathStatus.NO_PATH


cut = st.lists(st.floats(0.01, 7.99, allow_nan=False), max_size=4)


@settings(max_examples=40, deadline=None)
@example(rows=[[1.0, 0.01], [0.010000000000000002]], heights=[1.0] * 4, ends=[(0, 0), (0, 0), (0, 0), (0, 1)],
         turn=0.0)  # cuts a float step apart: (0.01, 1) was no corner of the row above, a path went round
@given(rows=st.lists(cut, min_size=2, max_size=4), heights=st.lists(st.floats(0.25, 3), min_size=4, max_size=4),
       ends=st.lists(st.tuples(st.floats(0, 8), st.floats(0, 1)), min_size=4, max_size=4),
       turn=st.sampled_from([0.0, 0.3, 2.0]))
def test_a_brick_wall_of_rectangles_is_one_convex_room(rows, heights, ends, turn: float) -> None:
    # rows of rectangles cut at random places, each with its own corners: every cut is a
    # T-junction of the rows above and below; the wall is a rectangle, so paths are straight.
    # Turned, the cuts lie off the edges they meet by rounding errors.
    verts: list[tuple[float, float]] = []
    polygons = []
    y = np.cumsum([0.0, *heights[:len(rows)]])
    for r, xs in enumerate(rows):
        xs = sorted({0.0, 8.0, *xs})
        for x0, x1 in itertools.pairwise(xs):
            polygons.append(list(range(len(verts), len(verts) + 4)))
            verts += [(x0, y[r]), (x1, y[r]), (x1, y[r + 1]), (x0, y[r + 1])]
    rotation = np.array([[math.cos(turn), -math.sin(turn)], [math.sin(turn), math.cos(turn)]])
    mesh = NavMesh.from_mesh(np.array(verts) @ rotation.T, polygons)
    assert int(mesh.islands.max()) == 0
    top = float(y[len(rows)])
    for (x0, f0), (x1, f1) in zip(ends[::2], ends[1::2], strict=True):
        start, goal = rotation @ (x0, f0 * top), rotation @ (x1, f1 * top)
        path = gamenav.find_path(mesh, start, goal, exact=True, clamp=True)
        assert path.found and math.isclose(path.cost, math.dist(start, goal), rel_tol=1e-9, abs_tol=1e-9)


# -- orientation: clockwise polygons (y-down editors) -----------------------------------------
def test_clockwise_convex_polygons_are_taken_the_other_way_round() -> None:
    # the arena mesh mirrored in y (as a y-down editor exports it): every polygon clockwise
    data = read_mesh(gamenav.data.path("arena.mesh"))
    mirrored = data.vertices * [1.0, -1.0]
    mesh = NavMesh.from_mesh(data.vertices, data.polygons)
    flipped = NavMesh.from_mesh(mirrored, data.polygons)
    np.testing.assert_array_equal(flipped.islands, mesh.islands)
    rng = np.random.default_rng(7)
    pts = mesh.nearest(rng.uniform(data.vertices.min(axis=0), data.vertices.max(axis=0), (40, 2)))
    for a, b in zip(pts[::2], pts[1::2], strict=True):
        want = gamenav.find_path(mesh, a, b, exact=True)
        got = gamenav.find_path(flipped, a * [1, -1], b * [1, -1], exact=True)
        assert got.status is want.status and math.isclose(got.cost, want.cost, rel_tol=1e-9, abs_tol=1e-9)
    # a clockwise triangle is taken alike beside a polygon (it was refused there, not alone)
    verts = [(0, 0), (1, 0), (1, 1), (2, 0), (2, 1)]
    assert NavMesh.from_mesh(verts, [[2, 1, 0], [1, 3, 4, 2]]).islands.tolist() == [0, 0, 0]


@pytest.mark.parametrize("ring", [[0, 1, 2, 3, 4], [4, 3, 2, 1, 0], [0, 4, 1, 2, 3]])
def test_a_polygon_repeating_a_point_under_another_id_says_so(ring: list[int]) -> None:
    # a ring closed by a copy of its first point (or a point given twice) lost that corner's
    # turn: "must be convex, got a ring that turns 0.75 times around"
    square = [(0, 0), (1, 0), (1, 1), (0, 1), (0, 0)]
    with pytest.raises(InvalidGeometryError, match=r"polygon 0 repeats a point \(under another vertex id\)"):
        NavMesh.from_mesh(square, [ring])


@pytest.mark.parametrize("ring", [[0, 1, 2, 3], [3, 2, 1, 0]])
def test_a_non_convex_polygon_is_refused_in_either_orientation(ring: list[int]) -> None:
    with pytest.raises(InvalidGeometryError, match="polygon 0 must be convex, got a reflex corner at vertex 2"):
        NavMesh.from_mesh([(0, 0), (2, 0), (1, 0.5), (1, 2)], [ring])
