"""NavMesh building, point queries and NavMeshSearch edge cases and errors."""

from __future__ import annotations

import math

import numpy as np
import pytest
import shapely

import gamenav
from gamenav import (BlockedEndpointError, InvalidGeometryError, InvalidInputError, NavMesh,
                     NavMeshSearch, PathStatus, TileGrid)

SQUARE = [(0, 0), (10, 0), (10, 10), (0, 10)]
WALL = [(4, -1), (6, -1), (6, 8), (4, 8)]


@pytest.fixture(scope="module")
def walled() -> NavMesh:
    return NavMesh.from_polygons([SQUARE], obstacles=[WALL])


def test_arrays_are_immutable_and_consistent(walled: NavMesh) -> None:
    for arr in (walled.vertices, walled.triangles, walled.neighbours, walled.islands):
        assert not arr.flags.writeable
    t, v = walled.triangles, walled.vertices
    p = v[t]
    area2 = ((p[:, 1, 0] - p[:, 0, 0]) * (p[:, 2, 1] - p[:, 0, 1])
             - (p[:, 1, 1] - p[:, 0, 1]) * (p[:, 2, 0] - p[:, 0, 0]))
    assert (area2 > 0).all()  # counter-clockwise
    # neighbours are symmetric and share the edge in opposite directions
    for ti, j in zip(*np.nonzero(walled.neighbours >= 0), strict=True):
        u = walled.neighbours[ti, j]
        a, b = t[ti, j], t[ti, (j + 1) % 3]
        k = list(walled.neighbours[u]).index(ti)
        assert (t[u, k], t[u, (k + 1) % 3]) == (b, a)
    assert math.isclose(float(np.sum(area2)) / 2, 100 - 2 * 8)
    assert len(walled.portals) == int((walled.neighbours >= 0).sum()) // 2


def test_versions_are_unique() -> None:
    a = NavMesh.from_polygons([SQUARE])
    b = NavMesh.from_polygons([SQUARE])
    assert a.version != b.version
    assert NavMeshSearch(a, (1, 1), (2, 2)).mesh_version == a.version


def test_both_searches_offer_the_whole_search_protocol() -> None:
    mesh = NavMesh.from_polygons([SQUARE])
    grid = gamenav.TileGrid.from_strings(["....", "...."])
    for search in (NavMeshSearch(mesh, (1, 1), (2, 2)), gamenav.GridSearch(grid, (0, 0), (3, 1))):
        assert isinstance(search, gamenav.Search)
        assert search.world_version == (mesh if isinstance(search, NavMeshSearch) else grid).version
        early = search.partial_result()
        assert early.status in (gamenav.PathStatus.IN_PROGRESS, gamenav.PathStatus.PARTIAL)
        search.step()
        assert search.partial_result() is search.result() and search.result().found
    navmesh_search = NavMeshSearch(mesh, (1, 1), (2, 2))
    assert navmesh_search.partial_result().status is gamenav.PathStatus.IN_PROGRESS
    assert navmesh_search.mesh_version == navmesh_search.world_version
    grid_search = gamenav.GridSearch(grid, (0, 0), (3, 1))
    assert grid_search.grid_version == grid_search.world_version


def test_default_and_exact_go_round_the_wall(walled: NavMesh) -> None:
    for exact in (False, True):
        path = gamenav.find_path(walled, (1, 1), (9, 1), exact=exact)
        assert path.status is PathStatus.FOUND
        np.testing.assert_array_equal(path.points, [(1, 1), (4, 8), (6, 8), (9, 1)])
        assert path.cost == pytest.approx(2 * math.hypot(3, 7) + 2)
        assert path.cells.shape == (0, 2) and path.corridor.dtype == np.int64
        corridor = path.corridor
        assert corridor[0] == walled.locate((1, 1))[0] and corridor[-1] == walled.locate((9, 1))[0]
        for a, b in zip(corridor[:-1], corridor[1:], strict=True):
            assert b in walled.neighbours[a]


def test_same_triangle_and_same_point() -> None:
    mesh = NavMesh.from_polygons([SQUARE])
    for exact in (False, True):
        path = gamenav.find_path(mesh, (2, 2), (2, 2), exact=exact)
        assert path.found and path.cost == 0.0
        np.testing.assert_array_equal(path.points[[0, -1]], [(2, 2), (2, 2)])


def test_endpoints_on_vertices_and_edges(walled: NavMesh) -> None:
    # (4, 8) and (6, 8) are wall corners (mesh vertices); (0, 5) is on the border
    for exact in (False, True):
        path = gamenav.find_path(walled, (4, 8), (6, 8), exact=exact)
        assert path.cost == pytest.approx(2.0)
        path = gamenav.find_path(walled, (0, 5), (10, 5), exact=exact)
        assert path.cost == pytest.approx(2 * math.hypot(4, 3) + 2)


def test_outside_points_raise_or_clamp(walled: NavMesh) -> None:
    with pytest.raises(BlockedEndpointError, match=r"start must lie on the navmesh .* got \(5\.0, 5\.0\)"):
        gamenav.find_path(walled, (5, 5), (9, 1))
    with pytest.raises(BlockedEndpointError, match=r"goal must lie on the navmesh .* got \(11\.0, 1\.0\)"):
        gamenav.find_path(walled, (1, 1), (11, 1), exact=True)
    path = gamenav.find_path(walled, (1, 1), (11, 1), clamp=True)
    assert path.found
    np.testing.assert_allclose(path.points[-1], (10, 1))


def test_nan_and_malformed_points() -> None:
    mesh = NavMesh.from_polygons([SQUARE])
    with pytest.raises(InvalidInputError, match=r"start must be a finite \(x, y\) pair"):
        gamenav.find_path(mesh, (math.nan, 1), (2, 2))
    with pytest.raises(InvalidInputError, match=r"goal must be a finite \(x, y\) pair"):
        gamenav.find_path(mesh, (1, 1), (2, 2, 3))
    with pytest.raises(InvalidInputError, match=r"max_expansions must be an int from 1 to 2\*\*63 - 1"):
        NavMeshSearch(mesh, (1, 1), (2, 2)).step(0)
    with pytest.raises(InvalidInputError, match="mesh must be a NavMesh"):
        NavMeshSearch("mesh", (1, 1), (2, 2))  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError, match="points must be finite"):
        mesh.locate([(1, math.inf)])


def test_islands_no_path_and_partial() -> None:
    left = [(0, 0), (4, 0), (4, 4), (0, 4)]
    right = [(6, 0), (10, 0), (10, 4), (6, 4)]
    mesh = NavMesh.from_polygons(shapely.MultiPolygon([shapely.Polygon(left), shapely.Polygon(right)]))
    assert mesh.islands.max() == 1
    for exact in (False, True):
        path = gamenav.find_path(mesh, (1, 2), (9, 2), exact=exact)
        assert path.status is PathStatus.NO_PATH and len(path) == 0
        path = gamenav.find_path(mesh, (1, 1), (9, 2), exact=exact, partial=True)
        assert path.status is PathStatus.PARTIAL
        np.testing.assert_allclose(path.points[-1], (4, 2))
        assert path.cost == pytest.approx(math.hypot(3, 1))


def test_regions_touching_at_a_corner_are_not_connected() -> None:
    a = shapely.box(0, 0, 1, 1)
    b = shapely.box(1, 1, 2, 2)
    mesh = NavMesh.from_polygons([a, b])
    assert mesh.islands.max() == 1
    assert gamenav.find_path(mesh, (0.5, 0.5), (1.5, 1.5), exact=True).status is PathStatus.NO_PATH
    # standing exactly on the pinch point is ambiguous
    assert gamenav.find_path(mesh, (1, 1), (0.5, 0.5)).status is PathStatus.NO_PATH


def test_sliced_equals_one_shot_and_cancel(walled: NavMesh) -> None:
    for exact in (False, True):
        one = gamenav.find_path(walled, (1, 1), (9, 1), exact=exact)
        search = gamenav.begin_search(walled, (1, 1), (9, 1), exact=exact)
        assert isinstance(search, gamenav.Search) and isinstance(search, NavMeshSearch)
        assert search.result().status is PathStatus.IN_PROGRESS
        steps = 0
        while search.step(1) is PathStatus.IN_PROGRESS:
            steps += 1
        assert steps >= 2
        sliced = search.result()
        np.testing.assert_array_equal(sliced.points, one.points)
        np.testing.assert_array_equal(sliced.corridor, one.corridor)
        assert (sliced.cost, sliced.expanded) == (one.cost, one.expanded)
        other = NavMeshSearch(walled, (1, 1), (9, 1), exact=exact)
        other.cancel()
        assert other.status is PathStatus.CANCELLED and other.step() is PathStatus.CANCELLED
        assert other.result().status is PathStatus.CANCELLED


def test_locate_nearest_raycast(walled: NavMesh) -> None:
    pts = np.array([(1, 1), (5, 5), (9, 9), (-1, 3), (5, 9)])
    idx = walled.locate(pts)
    assert idx.dtype == np.int64 and idx.shape == (5,)
    assert (idx[[0, 2, 4]] >= 0).all() and (idx[[1, 3]] == -1).all()
    for p, t in zip(pts[[0, 2, 4]], idx[[0, 2, 4]], strict=True):
        assert shapely.Polygon(walled.vertices[walled.triangles[t]]).buffer(1e-9).contains(shapely.Point(p))
    near = walled.nearest(pts)
    np.testing.assert_allclose(near, [(1, 1), (4, 5), (9, 9), (0, 3), (5, 9)])
    hit = walled.raycast((1, 1), (9, 1))
    assert not hit.clear and hit.fraction == pytest.approx(3 / 8)
    np.testing.assert_allclose(hit.point, (4, 1))
    hit = walled.raycast((1, 9), (9, 9))
    assert hit.clear and hit.fraction == 1.0
    np.testing.assert_allclose(hit.point, (9, 9))
    assert not walled.raycast((5, 5), (9, 9)).clear


def test_from_mesh_convex_polygons_with_collinear_corners() -> None:
    verts = np.array([(0, 0), (1, 0), (2, 0), (2, 1), (2, 2), (1, 2), (0, 2), (0, 1), (3, 1)], float)
    # an octagon-ish square with midpoints (all 180-degree corners) and a triangle on its right
    mesh = NavMesh.from_mesh(verts, [[0, 1, 2, 3, 4, 5, 6, 7], [2, 8, 4, 3]])
    p = verts[mesh.triangles]
    area = 0.5 * np.abs((p[:, 1, 0] - p[:, 0, 0]) * (p[:, 2, 1] - p[:, 0, 1])
                        - (p[:, 1, 1] - p[:, 0, 1]) * (p[:, 2, 0] - p[:, 0, 0]))
    assert (area > 0).all() and area.sum() == pytest.approx(5.0)
    assert mesh.islands.max() == 0
    assert gamenav.find_path(mesh, (0.1, 1), (2.9, 1), exact=True).cost == pytest.approx(2.8)
    with pytest.raises(InvalidGeometryError, match="polygon 0 must be convex"):
        NavMesh.from_mesh(verts, [[0, 2, 1, 4]])
    with pytest.raises(InvalidInputError, match="polygon 0 has vertex ids outside"):
        NavMesh.from_mesh(verts, [[0, 1, 99]])


def test_from_polygons_errors() -> None:
    with pytest.raises(InvalidGeometryError, match="no walkable area left"):
        NavMesh.from_polygons([SQUARE], obstacles=[[(-1, -1), (11, -1), (11, 11), (-1, 11)]])
    with pytest.raises(InvalidGeometryError, match="no walkable area left"):
        NavMesh.from_polygons([SQUARE], agent_radius=6)
    with pytest.raises(InvalidGeometryError, match=r"ring 0 must be an \(n >= 3, 2\) array"):
        NavMesh.from_polygons([[(0, 0), (1, 1)]])
    with pytest.raises(InvalidGeometryError, match="walkable must be polygonal, got a LineString"):
        NavMesh.from_polygons(shapely.LineString([(0, 0), (1, 1)]))
    with pytest.raises(InvalidGeometryError, match="coordinates must be finite"):
        NavMesh.from_polygons([[(0, 0), (1, math.nan), (1, 1)]])
    with pytest.raises(InvalidInputError,
                       match=r"agent_radius must be a finite number >= 0 \(at most 1e\+15\), got -1"):
        NavMesh.from_polygons([SQUARE], agent_radius=-1)


def test_from_polygons_accepts_one_ring_and_rings_with_holes() -> None:
    one = NavMesh.from_polygons(SQUARE)
    holed = NavMesh.from_polygons([SQUARE, [(4, 4), (6, 4), (6, 6), (4, 6)]])
    assert one.locate((5, 5))[0] >= 0 and holed.locate((5, 5))[0] == -1
    assert gamenav.find_path(holed, (3, 5), (7, 5), exact=True).cost == pytest.approx(2 * math.hypot(1, 1) + 2)


def test_from_polygons_repairs_a_bow_tie() -> None:
    mesh = NavMesh.from_polygons([[(0, 0), (2, 2), (2, 0), (0, 2)]])  # self-intersecting
    assert mesh.islands.max() == 1  # two triangles meeting at (1, 1)
    assert 0.5 * len(mesh) > 0


def test_from_grid_follows_the_transform_and_corners() -> None:
    rows = ["..#", ".#.", "..."]
    for y_up in (False, True):
        grid = TileGrid.from_strings(rows, cell_size=2.0, origin=(10.0, 20.0), y_up=y_up)
        mesh = NavMesh.from_grid(grid)
        # free area = 7 cells of 4 world units each
        p = mesh.vertices[mesh.triangles]
        area = 0.5 * ((p[:, 1, 0] - p[:, 0, 0]) * (p[:, 2, 1] - p[:, 0, 1])
                      - (p[:, 1, 1] - p[:, 0, 1]) * (p[:, 2, 0] - p[:, 0, 0]))
        assert area.sum() == pytest.approx(28.0)
        centres = grid.cell_to_world(np.argwhere(grid.passable)[:, ::-1])
        assert (mesh.locate(centres) >= 0).all()
        blocked = grid.cell_to_world(np.argwhere(~grid.passable)[:, ::-1])
        assert (mesh.locate(blocked) == -1).all()
        # (2, 1) touches (1, 0) only at a corner but joins the rest through (2, 2): one island
        assert mesh.islands.max() == 0
    diag = TileGrid.from_strings([".#", "#."])
    assert NavMesh.from_grid(diag).islands.max() == 1  # corner contact only
    with pytest.raises(InvalidGeometryError, match="no passable cell"):
        NavMesh.from_grid(TileGrid.from_strings(["##"]))
    with pytest.raises(InvalidInputError, match="grid must be a TileGrid"):
        NavMesh.from_grid(np.ones((2, 2)))


def test_from_grid_path_matches_geometry() -> None:
    grid = TileGrid.from_strings(["....", ".##.", "...."])
    mesh = NavMesh.from_grid(grid)
    path = gamenav.find_path(mesh, (0.5, 0.5), (3.5, 2.5), exact=True)
    assert path.cost == pytest.approx(math.hypot(2.5, 0.5) + math.hypot(0.5, 1.5))


@pytest.mark.parametrize("how", ["copy", "deepcopy", "pickle"])
@pytest.mark.parametrize("exact", [False, True])
def test_a_copied_search_is_independent(monkeypatch: pytest.MonkeyPatch, how: str, exact: bool) -> None:
    import copy
    import pickle

    from gamenav.navmesh import search as search_module

    rng = np.random.default_rng(1)
    mesh = NavMesh.from_grid(gamenav.TileGrid(rng.random((30, 30)) > 0.35))
    mesh.remove_obstacle(mesh.add_obstacle([(14, 14), (16, 14), (16, 16), (14, 16)]))  # dead triangles
    pts = rng.uniform(0, 30, size=(400, 2))
    pts = pts[mesh.locate(pts) >= 0]
    pts = pts[mesh.islands[mesh.locate(pts)] == np.bincount(mesh.islands[mesh.locate(pts)]).argmax()]
    a, b = pts[0], pts[np.argmax(np.hypot(*(pts - pts[0]).T))]
    want = gamenav.find_path(mesh, a, b, exact=exact)
    dup = {"copy": copy.copy, "deepcopy": copy.deepcopy,
           "pickle": lambda s: pickle.loads(pickle.dumps(s))}[how]
    search = NavMeshSearch(mesh, a, b, exact=exact)
    search.step(5)
    other = dup(search)
    assert other.step(None).done and other.result().cost == want.cost
    assert search.step(1) is PathStatus.IN_PROGRESS and search.expanded <= 6  # not run on by the copy
    search.step(None)
    for p in (search.result(), other.result()):
        assert (p.status, p.cost, p.expanded) == (want.status, want.cost, want.expanded)
        assert np.array_equal(p.points, want.points) and np.array_equal(p.corridor, want.corridor)
    # interleaved slices while the label arrays grow (they were shared: out-of-bounds writes)
    monkeypatch.setattr(search_module, "_LABELS", 4)
    search = NavMeshSearch(mesh, a, b, exact=exact)
    search.step(1)
    other = dup(search)
    k = 0
    while not (search.status.done and other.status.done):
        (search if k % 2 else other).step(3)
        k += 1
    for p in (search.result(), other.result()):
        assert (p.status, p.cost, p.expanded) == (want.status, want.cost, want.expanded)


def test_raycast_grazing_walls_and_corners_is_clear_but_not_through_pinch_points() -> None:
    """A ray through a vertex whose border edge it leaves by was stopped there, although the
    triangle beyond that vertex holds it: along a wall's edge, past a wall's corner."""
    mesh = NavMesh.from_grid(TileGrid.from_strings(["....#...", "........", "..#.....", "........"]))
    assert mesh.raycast((2.5, 1.0), (7.0, 1.0)).clear  # along the wall's bottom edge, from inside
    assert mesh.raycast((4.0, 1.0), (7.5, 1.0)).clear  # from the wall's corner
    assert mesh.raycast((7.5, 1.0), (0.5, 1.0)).clear  # the other way
    assert mesh.raycast((0.5, 3.5), (3.5, 0.5)).clear  # touching the corner (2, 2) of the middle wall
    assert mesh.raycast((0.0, 1.0), (4.0, 1.0)).clear
    hit = mesh.raycast((0.5, 0.5), (5.5, 0.5))  # into the wall: stopped at its face
    assert not hit.clear and np.array_equal(hit.point, (4.0, 0.5))
    pinched = NavMesh.from_grid(TileGrid.from_strings([".#", "#."]))
    hit = pinched.raycast((0.5, 0.5), (1.5, 1.5))  # cells touching at a corner are not connected
    assert not hit.clear and np.array_equal(hit.point, (1.0, 1.0))
    assert not pinched.raycast((0.0, 0.5), (1.5, 1.0)).clear
    # random rays between half-integer points: clear exactly when on the free space and
    # through no pinch point
    rng = np.random.default_rng(5)
    for trial in range(8):
        grid = TileGrid(rng.random((10, 10)) > 0.25)
        mesh = NavMesh.from_grid(grid)
        free = shapely.union_all(shapely.polygons(mesh.vertices[mesh.triangles])).buffer(1e-9)
        pinch = shapely.multipoints(mesh.vertices[mesh._pinch])
        pts = rng.integers(0, 21, size=(400, 2)) / 2.0
        for s, e in zip(pts[0::2], pts[1::2], strict=True):
            if mesh.locate(s)[0] < 0 or np.array_equal(s, e):
                continue
            seg = shapely.LineString([s, e])
            clear = mesh.raycast(s, e).clear
            assert not clear or free.covers(seg), (trial, s, e)
            assert clear or not free.covers(seg) or seg.intersects(pinch), (trial, s, e)
