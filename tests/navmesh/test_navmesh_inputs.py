"""NavMesh against hostile input: pickling, array validation, coordinate range, holes, clamping,
tiny and huge meshes. Every bad input is a GamenavError naming the argument; nothing crashes."""

from __future__ import annotations

import copy
import pickle
import subprocess
import sys
from typing import Any

import numpy as np
import pytest
import shapely

import gamenav
from gamenav import InvalidGeometryError, InvalidInputError, NavMesh
from gamenav.navmesh import MAX_COORDINATE

SQUARE = [(0, 0), (10, 0), (10, 10), (0, 10)]
WALL = [(4, -1), (6, -1), (6, 8), (4, 8)]


@pytest.fixture(scope="module")
def walled() -> NavMesh:
    return NavMesh.from_polygons([SQUARE], obstacles=[WALL])


# -- pickling and copying -------------------------------------------------------------------
@pytest.mark.parametrize("clone", [lambda m: pickle.loads(pickle.dumps(m)), copy.deepcopy, copy.copy],
                         ids=["pickle", "deepcopy", "copy"])
def test_copies_keep_arrays_read_only_and_answer_alike(walled: NavMesh, clone) -> None:
    m2 = clone(walled)
    for name in ("vertices", "triangles", "neighbours", "islands"):
        arr = getattr(m2, name)
        assert not arr.flags.writeable, name
        np.testing.assert_array_equal(arr, getattr(walled, name))
    with pytest.raises(ValueError, match="read-only"):
        m2.triangles[0, 0] = 10**9
    assert m2.version != walled.version
    for exact in (False, True):
        a = gamenav.find_path(walled, (1, 1), (9, 1), exact=exact)
        b = gamenav.find_path(m2, (1, 1), (9, 1), exact=exact)
        np.testing.assert_array_equal(a.points, b.points)
        np.testing.assert_array_equal(a.corridor, b.corridor)


class _NamedMesh(NavMesh):
    """A subclass whose constructor takes another argument first."""

    def __init__(self, name: str, vertices: Any, triangles: Any, area_costs: Any = None) -> None:
        super().__init__(vertices, triangles, area_costs)
        self.name = name


@pytest.mark.parametrize("clone", [lambda m: pickle.loads(pickle.dumps(m)), copy.deepcopy, copy.copy],
                         ids=["pickle", "deepcopy", "copy"])
@pytest.mark.parametrize("emptied", [False, True])
def test_copies_keep_the_class_and_added_attributes(clone, emptied: bool) -> None:
    """A subclass whose ``__init__`` takes other arguments is copied through NavMesh's constructor
    (copying raised 'vertices must have shape (V, 2), got (1, 3)'), and attributes added to a mesh
    are kept (they were dropped), also by a mesh that edits emptied."""
    mesh = _NamedMesh("level 1", SQUARE, [[0, 1, 2], [0, 2, 3]])
    mesh.spawn = [(1.0, 1.0)]
    if emptied:
        mesh.add_obstacle([(-1, -1), (11, -1), (11, 11), (-1, 11)])
    twin = clone(mesh)
    assert type(twin) is _NamedMesh and (twin.name, twin.spawn) == ("level 1", [(1.0, 1.0)])
    assert twin.alive.any() != emptied and len(twin.obstacles) == 0
    twin.add_obstacle([(4, 4), (6, 4), (6, 6), (4, 6)])  # editable: its own edit state
    assert len(mesh.obstacles) == emptied


class _Forged:
    """Pickles as a NavMesh built from the given (possibly corrupt) arrays."""

    def __init__(self, vertices: np.ndarray, triangles: np.ndarray) -> None:
        self.args = (vertices, triangles)

    def __reduce__(self):
        return (NavMesh, self.args)


@pytest.mark.parametrize(("vertices", "triangles", "match"), [
    ([(0, 0), (1, 0), (0, 1)], [[0, 1, 10**9]], r"triangles has vertex ids outside 0\.\.2: got 0\.\.1000000000"),
    ([(0, 0), (1, 0), (0, 1)], [[0, 1, -1]], r"triangles has vertex ids outside 0\.\.2"),
    ([(0, 0), (1, 0), (np.nan, 1)], [[0, 1, 2]], "vertices must be finite"),
    ([(0, 0), (1, 0), (0, 1e300)], [[0, 1, 2]], r"vertices must lie in \[-1e\+15, 1e\+15\], got 1e\+300"),
])
def test_unpickling_validates_the_arrays(vertices, triangles, match) -> None:
    payload = pickle.dumps(_Forged(np.array(vertices, dtype=float), np.array(triangles)))
    with pytest.raises(InvalidInputError, match=match):
        pickle.loads(payload)


def test_no_public_attribute_hands_out_writable_kernel_arrays(walled: NavMesh) -> None:
    assert not hasattr(walled, "kernel_arrays")
    kernel = list(walled._kernel_arrays().values())
    for name in dir(walled):
        if name.startswith("_"):
            continue
        value = getattr(walled, name)
        if isinstance(value, np.ndarray) and value.flags.writeable:
            assert not any(np.shares_memory(value, k) for k in kernel), name


# -- array validation ------------------------------------------------------------------------
@pytest.mark.parametrize(("vertices", "triangles", "match"), [
    ([(0, 0), (1, 0), (0, 1)], [[0, 1, 2.5]], "triangles must hold integer vertex ids, got non-integer"),
    ([(0, 0), (1, 0), (0, 1)], [[0, 1, np.nan]], "triangles must hold integer vertex ids"),
    ([(0, 0), (1, 0), (0, 1)], [["a", "b", "c"]], "triangles must hold integer vertex ids, got <U1 values"),
    ([(0, 0), (1, 0), (0, 1)], [[True, False, True]], "triangles must hold integer vertex ids, got bool"),
    ([(0, 0), (1, 0), (0, 1)], [[0, 1, 2**70]], "triangles must hold integer vertex ids, got object"),
    ([(0, 0), (1, 0), (0, 1)], [0, 1, 2], r"triangles must have shape \(T, 3\), got \(3,\)"),
    ([("a", 0), (1, 0), (0, 1)], [[0, 1, 2]], "vertices must be a .V, 2. array of numbers"),
    ([(0, 0, 0), (1, 0, 0), (0, 1, 0)], [[0, 1, 2]], r"vertices must have shape \(V, 2\), got \(3, 3\)"),
    ([(0, 0), (1, 0), (0, np.inf)], [[0, 1, 2]], "vertices must be finite"),
    ([(0, 0), (2e15, 0), (0, 1)], [[0, 1, 2]], r"vertices must lie in \[-1e\+15, 1e\+15\], got 2e\+15"),
])
def test_constructor_rejects_malformed_arrays(vertices, triangles, match) -> None:
    with pytest.raises(InvalidInputError, match=match):
        NavMesh(vertices, triangles)


def test_whole_float_ids_are_accepted() -> None:
    mesh = NavMesh([(0, 0), (1, 0), (0, 1)], np.array([[0.0, 1.0, 2.0]]))
    assert mesh.triangles.dtype == np.int64 and mesh.triangles.tolist() == [[0, 1, 2]]


@pytest.mark.parametrize(("polygons", "match"), [
    (5, "polygons must be a sequence of vertex-id sequences, got int"),
    ([[0, 1, 2, 3.5]], "polygon 0 must hold integer vertex ids"),
    ([[0, 1, 2], [0, 1, "x"]], "polygon 1 must hold integer vertex ids"),
    ([[0, 1, 9]], r"polygon 0 has vertex ids outside 0\.\.3: got 0\.\.9"),
    ([[[0, 1], [2, 3]]], r"polygon 0 must be a 1-D sequence of vertex ids, got shape \(2, 2\)"),
    ([2], r"polygon 0 must be a 1-D sequence of vertex ids, got shape \(\)"),
])
def test_from_mesh_validates_polygons_before_any_kernel(polygons, match) -> None:
    verts = [(0, 0), (1, 0), (1, 1), (0, 1)]
    with pytest.raises(InvalidInputError, match=match):
        NavMesh.from_mesh(verts, polygons)


def test_triangles_with_underflowing_edges_are_dropped() -> None:
    # an edge of 1e-200 has a squared length of 0.0 in float64: the kernels would divide by it
    mesh = NavMesh([(0, 0), (1e-200, 0), (0, 1), (1, 1)], [[0, 1, 2], [1, 3, 2]])
    assert mesh.triangles.tolist() == [[1, 3, 2]]
    assert mesh.locate([(1e-201, 0.5), (0.5, 0.9)]).tolist() == [0, 0]
    for exact in (False, True):
        path = gamenav.find_path(mesh, (0.0, 0.5), (0.9, 0.95), exact=exact, clamp=True)
        assert path.found and np.isfinite(path.cost)



@pytest.mark.parametrize("offset", [3e9, 1e12, 9.9e14])
def test_from_mesh_keeps_convex_polygons_far_from_the_origin(offset: float) -> None:
    # the signed area of a polygon was summed from products of absolute coordinates: at 3e9
    # both polygons rounded to no area and were dropped, at 1e12 one was refused as clockwise
    verts = np.array([(0, 0), (1, 0), (2, 0), (2, 1), (0, 1), (3, 0), (3, 1)]) * 64.0 + offset
    mesh = NavMesh.from_mesh(verts, [[0, 1, 2, 3, 4], [2, 5, 6, 3]])
    assert int(mesh.islands.max()) == 0
    assert float(shapely.area(shapely.polygons(mesh.vertices[mesh.triangles])).sum()) == 64.0 * 64 * 3

# -- from_polygons input ---------------------------------------------------------------------
@pytest.mark.parametrize("exponent", [16, 80, 120, 150])
def test_coordinates_beyond_the_range_are_rejected_before_triangulating(exponent: int) -> None:
    s = 10.0 ** exponent
    circle = shapely.affinity.scale(shapely.Point(0, 0).buffer(10, quad_segs=8).difference(
        shapely.Point(3, 3).buffer(1)), s, s, origin=(0, 0))
    with pytest.raises(InvalidGeometryError, match=r"walkable coordinates must lie in \[-1e\+15, 1e\+15\]"):
        NavMesh.from_polygons(circle)
    with pytest.raises(InvalidGeometryError, match=r"obstacles coordinates must lie in"):
        NavMesh.from_polygons([SQUARE], obstacles=[[(1, 1), (2, 1), (2, s)]])


@pytest.mark.parametrize("radius", [0.0, 0.1])
@pytest.mark.parametrize("follow", [False, True])
@pytest.mark.parametrize(("cell_size", "origin"), [(1e5, (1e16, 0.0)), (1e3, (1e15 - 5e3, 0.0)), (1e14, (0.0, 0.0)),
                                                   (1e-120, (0.0, 0.0))])
def test_a_grid_beyond_the_range_or_with_underflowing_cells_names_the_grid(
        cell_size: float, origin: tuple[float, float], follow: bool, radius: float) -> None:
    """Such a grid is refused naming its cell size and origin, whatever the radius (the error named
    'vertices' or 'walkable coordinates' the caller never gave, InvalidInputError without a radius and
    InvalidGeometryError with one; cells of 1e-120 were 'no triangle with non-zero area')."""
    grid = gamenav.TileGrid(np.ones((3, 20), dtype=bool), cell_size=cell_size, origin=origin)
    with pytest.raises(InvalidInputError, match=r"grid cells at least 1e-98 wide within \[-1e\+15, 1e\+15\], "
                                                r"got cell_size=.* and origin=.*: cells reach"):
        NavMesh.from_grid(grid, agent_radius=radius, follow=follow)


def test_coordinates_near_1e160_do_not_hang() -> None:
    # before: an uninterruptible hang inside triangle; run in a child process to bound it
    code = ("import gamenav, shapely\n"
            "g = shapely.affinity.scale(shapely.Point(0, 0).buffer(10, quad_segs=8).difference("
            "shapely.Point(3, 3).buffer(1)), 1e160, 1e160, origin=(0, 0))\n"
            "try:\n    gamenav.NavMesh.from_polygons(g)\n"
            "except gamenav.InvalidGeometryError as e:\n    print('rejected', e)\n")
    out = subprocess.run([sys.executable, "-c", code], check=False, capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0 and out.stdout.startswith("rejected walkable coordinates must lie in")


def test_the_largest_coordinates_work() -> None:
    s = MAX_COORDINATE / 10
    mesh = NavMesh.from_polygons([[(x * s, y * s) for x, y in SQUARE]],
                                 obstacles=[[(x * s, y * s) for x, y in WALL]])
    path = gamenav.find_path(mesh, (s, s), (9 * s, s), exact=True)
    assert path.found and path.cost == pytest.approx(s * (2 * np.hypot(3, 7) + 2))


def test_library_failures_become_invalid_geometry_errors(monkeypatch) -> None:
    import triangle

    def broken(*args, **kwargs):
        raise RuntimeError("Triangulation failed")

    monkeypatch.setattr(triangle, "triangulate", broken)
    with pytest.raises(InvalidGeometryError, match=r"triangulating the free space failed \(RuntimeError"):
        NavMesh.from_polygons([SQUARE])
    with pytest.raises(InvalidGeometryError, match="triangulating the grid's passable cells failed"):
        NavMesh.from_grid(gamenav.TileGrid.from_strings(["..", ".."]))


@pytest.mark.parametrize(("walkable", "match"), [
    ([[(0, 0), (1, np.nan), (1, 1)]], "walkable coordinates must be finite"),
    (shapely.Polygon([(0, 0), (1, np.inf), (1, 1)]), "walkable coordinates must be finite"),
    ([[(0, 0), (1, 0), (1, 1)], [(0.1, 0.1), (0.2, 0.1), "x"]], r"walkable ring 1 must be an \(n >= 3, 2\)"),
    ([shapely.box(0, 0, 1, 1), [(0, 0), (1, 0), (1, 1)]], "all shapely geometries or all rings"),
])
def test_malformed_walkable_input(walkable, match) -> None:
    with pytest.raises(InvalidGeometryError, match=match):
        NavMesh.from_polygons(walkable)


@pytest.mark.parametrize("radius", ["1", True, np.nan, -1.0, np.inf, 1e300, None, [1]])
def test_agent_radius_must_be_a_finite_number_in_range(radius) -> None:
    with pytest.raises(InvalidInputError, match=r"agent_radius must be a finite number >= 0 \(at most 1e\+15\)"):
        NavMesh.from_polygons([SQUARE], agent_radius=radius)
    with pytest.raises(InvalidInputError, match="agent_radius must be"):
        NavMesh.from_grid(gamenav.TileGrid.from_strings(["...", "..."]), agent_radius=radius)


@pytest.mark.parametrize("shape", [shapely.Polygon(), [(1, 1), (2, 1), (3, 1)], []])
def test_an_area_without_area_covers_nothing(shape: Any) -> None:
    """An empty (or flat) area raised a bare AttributeError from inside the triangulation."""
    mesh = NavMesh.from_polygons([SQUARE], areas=[(shape, 2.0), (shapely.box(0, 0, 5, 10), 3.0)])
    assert sorted(set(mesh.area_costs.tolist())) == [1.0, 3.0]
    alone = NavMesh.from_polygons([SQUARE], areas=[(shape, 2.0)])
    assert (alone.area_costs == 1.0).all() and len(alone) == 2


def test_numpy_radius_and_single_ring_array_are_accepted() -> None:
    mesh = NavMesh.from_polygons(np.array(SQUARE, dtype=float), agent_radius=np.float32(0.5))
    x0, y0, x1, y1 = mesh.bounds
    assert 0.5 <= x0 < 0.52 and 9.48 < x1 <= 9.5 and (x0, x1) == (y0, y1)


# -- holes -----------------------------------------------------------------------------------
OUTSIDE_HOLE = [(20, 0), (30, 0), (30, 10), (20, 10)]
ENCLOSING_HOLE = [(-5, -5), (15, -5), (15, 15), (-5, 15)]


def test_a_hole_outside_its_shell_adds_no_walkable_area() -> None:
    mesh = NavMesh.from_polygons(shapely.Polygon(SQUARE, [OUTSIDE_HOLE]))
    assert mesh.bounds == (0, 0, 10, 10)
    assert mesh.locate([(25, 5), (5, 5)]).tolist()[0] == -1


@pytest.mark.parametrize("name", ["walkable", "obstacles"])
def test_a_ring_wholly_outside_the_first_is_refused_not_dropped(name: str) -> None:
    """``obstacles=[ring_a, ring_b]`` reads ring_b as a hole of ring_a: wholly outside it, it
    removed nothing, so the second obstacle was silently walkable (a path of 50.0 ran straight
    through it)."""
    floor = [(0, 0), (60, 0), (60, 20), (0, 20)]
    rings = [[(10, 0), (14, 0), (14, 15), (10, 15)], [(30, 5), (34, 5), (34, 20), (30, 20)]]
    with pytest.raises(InvalidGeometryError, match=f"{name}: ring 1 lies outside ring 0, so as its hole it would "
                                                   "remove nothing"):
        if name == "walkable":
            NavMesh.from_polygons(rings)
        else:
            NavMesh.from_polygons([floor], obstacles=rings)
    mesh = NavMesh.from_polygons([floor], obstacles=[shapely.Polygon(r) for r in rings])  # as meant
    assert mesh.locate([(32, 10), (12, 5)]).tolist() == [-1, -1]


@pytest.mark.parametrize("as_shapely", [False, True])
def test_a_hole_enclosing_its_shell_leaves_nothing_walkable(as_shapely: bool) -> None:
    walkable = shapely.Polygon(SQUARE, [ENCLOSING_HOLE]) if as_shapely else [SQUARE, ENCLOSING_HOLE]
    with pytest.raises(InvalidGeometryError, match="no walkable area left"):
        NavMesh.from_polygons(walkable)


def test_holes_are_subtracted_like_obstacles() -> None:
    # a hole crossing the shell's border, and two overlapping holes
    holes = [[(8, 4), (12, 4), (12, 6), (8, 6)], [(2, 2), (4, 2), (4, 4), (2, 4)],
             [(3, 3), (5, 3), (5, 5), (3, 5)]]
    mesh = NavMesh.from_polygons([SQUARE, *holes])
    expected = shapely.Polygon(SQUARE).difference(shapely.union_all([shapely.Polygon(h) for h in holes]))
    area = shapely.union_all(shapely.polygons(mesh.vertices[mesh.triangles])).area
    assert area == pytest.approx(expected.area) == pytest.approx(100 - 4 - 4 - 4 + 1)
    assert mesh.locate([(11, 5), (3.5, 3.5), (9, 5), (1, 1)]).tolist()[:3] == [-1, -1, -1]


@pytest.mark.parametrize("hole", [shapely.box(5, 5, 5 + 1e-10, 5 + 1e-10),
                                  shapely.Polygon([(5, 5), (5 + 1e-9, 5), (5, 5 + 1e-9)])])
def test_an_obstacle_within_the_tolerance_of_a_point_is_no_error(hole: shapely.Polygon) -> None:
    # merging outline points within the mesh tolerance (2e-8 here) collapsed the hole's ring to 2
    # points, which GEOS refused: "subtracting obstacles ... failed (Invalid number of points)"
    mesh = NavMesh.from_polygons([SQUARE], obstacles=[hole])
    assert float(shapely.area(shapely.polygons(mesh.vertices[mesh.triangles])).sum()) == pytest.approx(100.0)


def test_a_self_intersecting_shell_is_still_repaired() -> None:
    bowtie = [(0, 0), (2, 2), (2, 0), (0, 2)]
    mesh = NavMesh.from_polygons([bowtie])
    assert mesh.islands.max() == 1  # two triangles touching at (1, 1)


# -- clamping and locating -------------------------------------------------------------------
def test_far_points_are_rejected_with_the_range_or_snapped(walled: NavMesh) -> None:
    with pytest.raises(InvalidInputError, match=r"start must lie in \[-1e\+15, 1e\+15\], got 1e\+300"):
        gamenav.find_path(walled, (1e300, 1e300), (9, 1), clamp=True)
    with pytest.raises(InvalidInputError, match=r"goal must lie in \[-1e\+15, 1e\+15\], got -1e\+300"):
        gamenav.NavMeshSearch(walled, (1, 1), (5, -1e300), clamp=True)
    with pytest.raises(InvalidInputError, match=r"points must lie in"):
        walled.clamp([(1e300, 5)])
    with pytest.raises(InvalidInputError, match=r"end must lie in"):
        walled.raycast((1, 1), (1e200, 1))
    # the far end of the range still snaps onto the mesh
    path = gamenav.find_path(walled, (MAX_COORDINATE, MAX_COORDINATE), (1, 1), clamp=True)
    assert path.found and path.points[0].tolist() == [10.0, 10.0]
    assert np.isfinite(path.cost) and path.cost < 30
    assert walled.locate([(-MAX_COORDINATE, 3)]).tolist() == [-1]


@pytest.mark.parametrize("island", [99, -1, 1, True, 0.0, "0"])
def test_clamp_island_out_of_range_names_the_range(walled: NavMesh, island) -> None:
    with pytest.raises(InvalidInputError, match=r"island must be None or an int in 0\.\.0, got"):
        walled.clamp([(5, 9)], island=island)


def test_clamp_island_restricts_to_that_island() -> None:
    two = NavMesh.from_polygons([shapely.box(0, 0, 1, 1), shapely.box(5, 0, 6, 1)])
    label = int(two.islands[two.locate([5.5, 0.5])[0]])
    pts, tri = two.clamp([(0.5, 0.5)], island=label)
    assert pts.tolist() == [[5.0, 0.5]] and two.islands[tri[0]] == label
    _, tri = two.clamp([(0.5, 0.5)], island=np.int64(1 - label))
    assert two.islands[tri[0]] == 1 - label


@pytest.mark.parametrize("option", ["clamp", "partial", "exact"])
def test_search_flags_must_be_bools(walled: NavMesh, option: str) -> None:
    with pytest.raises(InvalidInputError, match=f"{option} must be a bool, got 'no'"):
        gamenav.NavMeshSearch(walled, (1, 1), (9, 1), **{option: "no"})


@pytest.mark.parametrize("extent", [1e-11, 1e-40, 1e-80])
def test_tiny_meshes_locate_their_own_centre(extent: float) -> None:
    s = extent / 10
    mesh = NavMesh.from_polygons([[(x * s, y * s) for x, y in SQUARE]])
    assert mesh.tolerance == pytest.approx(1e-9 * extent)
    assert mesh.locate([(5 * s, 5 * s), (0.1 * s, 9.9 * s)]).min() >= 0
    assert mesh.locate([(-0.01 * s, 5 * s)]).tolist() == [-1]
    for exact in (False, True):
        path = gamenav.find_path(mesh, (s, s), (9 * s, 8 * s), exact=exact)
        assert path.found and path.cost == pytest.approx(np.hypot(8, 7) * s)


def test_results_scale_exactly_with_the_mesh() -> None:
    """Scaling everything by a power of two scales every answer exactly: no absolute epsilon."""
    def answers(s: float) -> list[np.ndarray]:
        mesh = NavMesh.from_polygons([[(x * s, y * s) for x, y in SQUARE]],
                                     obstacles=[[(x * s, y * s) for x, y in WALL]], agent_radius=0.5 * s)
        a = gamenav.find_path(mesh, (s, s), (9 * s, s))
        b = gamenav.find_path(mesh, (s, s), (9 * s, s), exact=True)
        clamped, _ = mesh.clamp([(20 * s, -3 * s), (5 * s, 8.6 * s)])
        return [mesh.vertices / s, a.points / s, b.points / s, clamped / s, np.array(mesh.tolerance / s)]

    base = answers(1.0)
    for k in (-60, -30, 30, 45):
        for got, want in zip(answers(2.0 ** k), base, strict=True):
            np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("point", [(True, 1.5), (1, np.True_), [False, 2.0]])
@pytest.mark.parametrize("query", ["locate", "locate_many", "clamp", "nearest", "raycast_start",
                                   "raycast_end", "find_path", "search_goal", "grid_origin"])
def test_a_bool_among_the_coordinates_is_refused(walled: NavMesh, point: Any, query: str) -> None:
    """numpy reads (True, 1.5) as (1.0, 1.5): the dtype alone let a bool pass as a coordinate."""
    calls = {
        "locate": lambda: walled.locate(point),
        "locate_many": lambda: walled.locate([(1.0, 1.0), point]),
        "clamp": lambda: walled.clamp([point]),
        "nearest": lambda: walled.nearest(point),
        "raycast_start": lambda: walled.raycast(point, (2.0, 2.0)),
        "raycast_end": lambda: walled.raycast((2.0, 2.0), point),
        "find_path": lambda: gamenav.find_path(walled, point, (2.0, 2.0), clamp=True),
        "search_goal": lambda: gamenav.NavMeshSearch(walled, (2.0, 2.0), point, clamp=True),
        "grid_origin": lambda: gamenav.TileGrid(np.ones((4, 4), dtype=bool), origin=point),
    }
    with pytest.raises(InvalidInputError, match="got"):
        calls[query]()


def test_a_build_with_points_a_hair_off_an_axis_finishes() -> None:
    """Obstacles whose corners lay 1e-206 and 1e-297 from x = 0 (beside corners at 0) made
    ``triangle`` loop for ever inside ``from_polygons``, a frozen game (its exact predicates
    underflowed); the build runs in a child, so the old code fails by the timeout."""
    code = """
import shapely
from gamenav import NavMesh
room = shapely.box(0, 0, 20, 12).difference(shapely.box(6, 0, 7, 8)).difference(shapely.box(13, 4, 14, 12))
boxes = [shapely.box(x, y, x + w, y + h) for x, y, w, h in
         [(0.0, 0.0, 1.0, 1.0), (2.89519519947692e-206, 0.0, 1.0, 1.0), (1.0, 0.0, 1.0, 3.0), (1.0, 7.0, 1.0, 4.0)]]
x = 8.755858494212829e-297
boxes.append(shapely.MultiPolygon([shapely.box(x, 2.0, x + 1.0, 5.0), shapely.box(x + 1.5, 2.0, x + 2.5, 5.0)]))
mesh = NavMesh.from_polygons(room, obstacles=boxes)
free = room.difference(shapely.union_all(boxes))
print(abs(sum(shapely.Polygon(mesh.vertices[t]).area for t in mesh.triangles) - free.area) < 1e-9 * free.area)
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["True"]


@pytest.mark.parametrize("obstacles, where", [
    ([[(2, 2), (4, 2), (6, 2)]], "obstacles"),  # one ring, flat
    ([shapely.box(1, 1, 2, 2), shapely.Polygon([(4, 0), (4, 3), (4, 6)])], r"obstacles\[1\]"),
    ([shapely.Polygon([(3, 3), (5, 3), (5, 5), (3, 5)], [[(2, 2), (6, 2), (6, 6), (2, 6)]])], "obstacles"),
])
@pytest.mark.parametrize("radius", [0.0, 0.5])
def test_an_obstacle_without_area_is_refused_as_add_obstacle_refuses_it(obstacles: Any, where: str,
                                                                         radius: float) -> None:
    """from_polygons dropped it without a word (add_obstacle refused it): a wall drawn as a line
    let every path through it, with or without agent_radius."""
    with pytest.raises(InvalidGeometryError, match=rf"^{where} has no area"):
        NavMesh.from_polygons([SQUARE], obstacles=obstacles, agent_radius=radius)
    mesh = NavMesh.from_polygons([SQUARE], agent_radius=radius)
    with pytest.raises(InvalidGeometryError, match="polygon with area"):
        mesh.add_obstacle(obstacles[-1])
    # empty obstacles are nothing to block: still accepted
    assert NavMesh.from_polygons([SQUARE], obstacles=[shapely.Polygon()]).triangles.shape == (2, 3)
