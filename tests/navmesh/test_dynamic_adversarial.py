"""Adversarial checks of navmeshes that change: odd obstacles and edit sequences against fresh builds."""

from __future__ import annotations

import copy
import pickle
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
import shapely
from hypothesis import Phase, given, settings
from hypothesis import strategies as st
from shapely import affinity

import gamenav
from gamenav import NavMesh
from gamenav._kernels.dynamic import stitch
from gamenav.errors import InvalidGeometryError, InvalidInputError
from gamenav.navmesh.build import free_space, grown_radius

SQUARE = [(0, 0), (10, 0), (10, 10), (0, 10)]


def live_area(mesh: NavMesh) -> float:
    return float(shapely.area(shapely.polygons(mesh.vertices[mesh.triangles[mesh.alive]])).sum())


@pytest.mark.parametrize("radius", [0.0, 0.5])
@pytest.mark.parametrize("ring", [[(2, 2), (4, 2), (2, 2), (2, 4)], [(2, 2), (4, 2), (4, 4), (4, 2)],
                                  [(2, 2), (2, 4), (2, 2), (4, 2)]])
def test_axis_aligned_ring_that_doubles_back_is_no_rectangle(ring: Any, radius: float) -> None:
    """Four axis-aligned edges that double back enclose nothing: refused like any shape without
    area (they were taken for the rectangle of their bounds and carved, inflated)."""
    mesh = NavMesh.from_polygons(SQUARE, agent_radius=radius)
    area = live_area(mesh)
    for shape in (ring, shapely.Polygon(ring)):
        with pytest.raises(InvalidGeometryError, match="polygon with area"):
            mesh.add_obstacle(shape)
    assert live_area(mesh) == pytest.approx(area) and not mesh.obstacles


def cost_weighted_area(mesh: NavMesh) -> float:
    polygons = shapely.polygons(mesh.vertices[mesh.triangles])
    alive = mesh.alive
    return float((shapely.area(polygons)[alive] * mesh.area_costs[:len(alive)][alive]).sum())


@pytest.mark.parametrize("radius", [0.0, 0.3])
def test_obstacle_across_an_area_boundary_keeps_the_areas(radius: float) -> None:
    """The re-triangulated region follows the build's area boundaries, so each new triangle lies
    in one area (one straddling the mud took the cost at its centroid: paths through the mud at
    cost 1)."""
    walk, mud = shapely.box(0, 0, 20, 10), shapely.box(8, 0, 12, 10)
    hut = shapely.box(6.5, 3, 9, 6.3)
    mesh = NavMesh.from_polygons(walk, areas=[(mud, 5.0)], agent_radius=radius)
    oid = mesh.add_obstacle(hut)
    fresh = NavMesh.from_polygons(walk, obstacles=[hut], areas=[(mud, 5.0)], agent_radius=radius)
    live = shapely.polygons(mesh.vertices[mesh.triangles[mesh.alive]])
    inside = shapely.area(shapely.intersection(live, mud)) / shapely.area(live)
    assert ((inside < 1e-9) | (inside > 1 - 1e-9)).all()
    assert cost_weighted_area(mesh) == pytest.approx(cost_weighted_area(fresh), rel=1e-9)
    for start, goal in [((1, 5), (19, 5)), ((1, 1), (19, 9))]:
        assert gamenav.find_path(mesh, start, goal).cost == pytest.approx(
            gamenav.find_path(fresh, start, goal).cost, rel=1e-9)
    mesh.remove_obstacle(oid)
    assert cost_weighted_area(mesh) == pytest.approx(cost_weighted_area(NavMesh.from_polygons(
        walk, areas=[(mud, 5.0)], agent_radius=radius)), rel=1e-9)


# a sliver of triangle's output between points 1e-16 apart (seen in a fresh build after random
# edits): its area computed from the far corner q rounds to zero, from the near ones it does not
SLIVER_Q = (14.195090322016128, 3.529010298700929)
SLIVER_P1 = (11.952671482398427, 0.726572780072623)
SLIVER_P2 = (11.952671482398427, 0.7265727800726232)
SLIVER_V = np.array([SLIVER_Q, SLIVER_P2, SLIVER_P1, (13.5, 0.0), (12.0, 3.5)])
SLIVER_T = np.array([[0, 1, 2], [2, 3, 0], [1, 0, 4]], dtype=np.int64)  # the sliver joins the other two


def test_a_sliver_between_two_triangles_is_kept_not_a_crack() -> None:
    """Dropping the sliver as zero-area cut the mesh in two across a 1.3-unit gap (NO_PATH)."""
    mesh = NavMesh(SLIVER_V, SLIVER_T)
    assert len(mesh) == 3 and int(mesh.islands.max()) == 0
    a, b = SLIVER_V[[2, 3, 0]].mean(axis=0), SLIVER_V[[1, 4, 0]].mean(axis=0)
    path = gamenav.find_path(mesh, a, b, exact=True)
    assert path.found and path.cost == pytest.approx(float(np.hypot(*(a - b))), rel=1e-12)


def test_stitching_keeps_a_sliver_of_the_re_triangulated_region() -> None:
    """The edit kernel judges new triangles the same way (one local component, all three kept)."""
    cap = 16
    out = stitch(SLIVER_V, SLIVER_T, 0, 1e-16, np.zeros((cap, 2)), 0, np.zeros((cap, 3), dtype=np.int64), 0,
                 1e-200, np.full((cap, 3), -1, dtype=np.int64), np.zeros(cap, dtype=bool),
                 np.zeros(cap, dtype=np.int64), np.zeros(cap, dtype=np.int32), np.zeros(cap, dtype=bool),
                 np.zeros(cap, dtype=bool), np.zeros(0, dtype=np.int64), np.full(cap, -1, dtype=np.int64), 1)
    k, local_root = out[1], out[5]
    assert k == 3 and len(np.unique(local_root[:k])) == 1


# -- random edit sequences against fresh builds ----------------------------------------------

ROOM = shapely.box(0, 0, 20, 12).difference(shapely.box(6, 0, 7, 8)).difference(shapely.box(13, 4, 14, 12))


def obstacle(kind: int, x: float, y: float, w: float, h: float) -> Any:
    """Obstacles of every kind: boxes touching edges, rotated, with a hole, multipolygons,
    tiny, huge, as coordinate rings."""
    if kind == 0:
        return shapely.box(x, y, x + w, y + h)
    if kind == 1:
        return affinity.rotate(shapely.box(x, y, x + w, y + h), 10 * x + 7 * y)
    if kind == 2:
        return shapely.Polygon(shapely.box(x, y, x + w + 2, y + h + 2).exterior.coords,
                               [shapely.box(x + 0.8, y + 0.8, x + w + 1.2, y + h + 1.2).exterior.coords])
    if kind == 3:
        return shapely.MultiPolygon([shapely.box(x, y, x + w, y + h),
                                     shapely.box(x + w + 0.5, y, x + 2 * w + 0.5, y + h)])
    if kind == 4:
        return shapely.box(x, y, x + 1e-5 * w, y + 1e-5 * h)
    if kind == 5:
        return shapely.box(-5, y, 30, y + h)
    if kind == 6:  # on a wall's edge exactly
        edge = (0.0, 6.0, 7.0, 13.0, 14.0, 20.0)[int(x) % 6]
        return shapely.box(edge - w, y, edge, y + h) if int(y) % 2 else shapely.box(edge, y, edge + w, y + h)
    return [(x, y), (x + w, y), (x + w, y + h), (x, y + h)]  # a ring of points


def chord_band(shapes: list[Any], radius: float) -> Any:
    """Where an edited mesh and a build may differ with an agent radius: between ``radius`` and
    the grown radius whose chords stay outside the true circle, from the blocked space (edits
    inflate each obstacle's outline, a build the outline of the free space, where obstacles meet
    walls and one another the chords fall differently: 4.6e-7 of area for a box over a wall's end)."""
    if radius == 0:
        return shapely.Polygon()
    blocked = shapely.union_all([shapely.box(-10, -10, 30, 22).difference(ROOM), *shapes])
    grow = grown_radius(radius)
    return shapely.difference(shapely.buffer(blocked, 1.001 * grow, quad_segs=64),
                              shapely.buffer(blocked, 0.999 * radius, quad_segs=64))


def check_against_fresh(mesh: NavMesh, given: list[Any], radius: float, rng: np.random.Generator) -> None:
    shapes = [shapely.Polygon(s) if isinstance(s, list) else s for s in given]  # one kind for a build
    try:
        free = free_space(ROOM, shapes, radius)
    except InvalidGeometryError:  # covered
        assert not mesh.alive.any()
        return
    fresh = NavMesh.from_polygons(ROOM, obstacles=shapes, agent_radius=radius)
    live = shapely.coverage_union_all(shapely.polygons(mesh.vertices[mesh.triangles[mesh.alive]]))
    assert shapely.difference(shapely.symmetric_difference(live, free), chord_band(shapes, radius)).area <= (
        1e-9 * free.area)
    assert int(mesh.islands[mesh.alive].max()) == int(fresh.islands.max())
    pts = rng.uniform((-1, -1), (21, 13), size=(60, 2))
    pts = pts[shapely.distance(free.boundary, shapely.points(pts)) > 1e-6]  # clear of borders
    found, expected = mesh.locate(pts) >= 0, fresh.locate(pts) >= 0
    assert (found == expected).all()
    assert np.allclose(np.hypot(*(mesh.nearest(pts) - pts).T), np.hypot(*(fresh.nearest(pts) - pts).T), atol=1e-7)
    inside = pts[found]
    band = shapely.buffer(free, 1e-7)
    for s, g in zip(inside[0:12:2], inside[1:12:2], strict=False):
        a, b = gamenav.find_path(mesh, s, g, exact=True), gamenav.find_path(fresh, s, g, exact=True)
        assert a.status == b.status
        if b.found:
            assert a.cost == pytest.approx(b.cost, rel=1e-9, abs=1e-9)
        d = gamenav.find_path(mesh, s, g)
        assert d.status == b.status
        if d.found:
            assert d.cost >= b.cost - 1e-9 and mesh.alive[d.corridor].all()
            legs = shapely.linestrings(np.stack([d.points[:-1], d.points[1:]], axis=1))
            assert shapely.length(shapely.difference(legs, band)).max(initial=0.0) <= 1e-7


ops = st.lists(st.tuples(st.sampled_from(["add", "add", "remove", "again", "compact", "copy"]),
                         st.integers(0, 7), st.floats(-2, 21), st.floats(-2, 13), st.floats(0.2, 5),
                         st.floats(0.2, 5)), min_size=1, max_size=9)


@settings(max_examples=30, deadline=None, phases=[Phase.explicit, Phase.generate, Phase.shrink])
@given(ops, st.sampled_from([0.0, 0.3, 0.5]), st.integers(0, 2**31 - 1))
def test_random_odd_edits_match_a_fresh_build(steps: list[Any], radius: float, seed: int) -> None:
    rng = np.random.default_rng(seed)
    mesh = NavMesh.from_polygons(ROOM, agent_radius=radius)
    heard: list[int] = []
    mesh.subscribe(lambda change: heard.append(change.version))
    shapes: dict[int, Any] = {}
    edits = 0  # changes of version (an edit changing nothing, outside the mesh, keeps it)
    for op, kind, x, y, w, h in steps:
        version = mesh.version
        if op == "remove" and shapes:
            oid = sorted(shapes)[kind % len(shapes)]
            mesh.remove_obstacle(oid)
            del shapes[oid]
            with pytest.raises(InvalidInputError, match="oid must be the id"):
                mesh.remove_obstacle(oid)  # twice
        elif op == "compact":
            mesh.compact()
        elif op == "copy" and mesh.alive.any():
            before = (mesh.version, mesh.triangles.copy(), mesh.alive.copy())
            twin = copy.deepcopy(mesh)
            twin.add_obstacle(shapely.box(x, y, x + w, y + h))
            assert (mesh.version, len(mesh)) == (before[0], len(before[1]))
            assert np.array_equal(mesh.alive, before[2])
        else:
            again = op == "again" and shapes
            shape = shapes[sorted(shapes)[kind % len(shapes)]] if again else obstacle(kind, x, y, w, h)
            try:
                oid = mesh.add_obstacle(shape)
            except InvalidGeometryError:
                continue
            assert oid not in shapes and oid > max(shapes, default=0)  # ids never reused
            shapes[oid] = shape
        edits += mesh.version != version
    assert len(heard) == edits and heard == sorted(heard)
    check_against_fresh(mesh, list(shapes.values()), radius, rng)


grid_ops = st.lists(st.tuples(st.booleans(), st.integers(0, 13), st.integers(0, 9), st.integers(1, 4),
                              st.integers(1, 4), st.booleans()), min_size=1, max_size=8)


@settings(max_examples=15, deadline=None, phases=[Phase.explicit, Phase.generate, Phase.shrink])
@given(grid_ops, st.sampled_from([0.0, 0.3]), st.integers(0, 2**31 - 1))
def test_grid_edits_interleaved_with_obstacles_match_a_fresh_build(steps: list[Any], radius: float,
                                                                   seed: int) -> None:
    rng = np.random.default_rng(seed)
    walk = rng.random((10, 14)) > 0.25
    walk[4:6, :] = True
    grid = gamenav.TileGrid(walk)
    mesh = NavMesh.from_grid(grid, agent_radius=radius, follow=True)
    shapes: dict[int, Any] = {}
    for on_grid, x, y, w, h, flag in steps:
        if on_grid:
            grid.set_walkable((x, y, min(x + w, 14), min(y + h, 10)), flag)
        elif flag and shapes:
            oid = sorted(shapes)[x % len(shapes)]
            mesh.remove_obstacle(oid)
            del shapes[oid]
        else:
            shape = shapely.box(x + 0.3, y - 0.2, x + 0.3 + w * 0.8, y - 0.2 + h * 0.8)
            shapes[mesh.add_obstacle(shape)] = shape
    cells = shapely.union_all([shapely.box(cx, cy, cx + 1, cy + 1) for cy, cx in zip(*np.nonzero(grid.passable),
                                                                                      strict=True)])
    try:
        free = free_space(cells, list(shapes.values()), radius)
    except InvalidGeometryError:
        assert not mesh.alive.any()
        return
    fresh = NavMesh.from_polygons(cells, obstacles=list(shapes.values()), agent_radius=radius)
    live = shapely.coverage_union_all(shapely.polygons(mesh.vertices[mesh.triangles[mesh.alive]]))
    assert shapely.symmetric_difference(live, free).area <= 1e-9 * free.area
    assert int(mesh.islands[mesh.alive].max()) == int(fresh.islands.max())
    pts = rng.uniform((0, 0), (14, 10), size=(40, 2))
    pts = pts[(mesh.locate(pts) >= 0) & (fresh.locate(pts) >= 0)]
    for s, g in zip(pts[0:10:2], pts[1:10:2], strict=False):
        a, b = gamenav.find_path(mesh, s, g, exact=True), gamenav.find_path(fresh, s, g, exact=True)
        assert a.status == b.status
        if b.found:
            assert a.cost == pytest.approx(b.cost, rel=1e-9, abs=1e-9)


@pytest.mark.parametrize("bad", [[(0, 0), (float("nan"), 0), (1, 1)], [(0, 0), (float("inf"), 0), (1, 1)],
                                 "a shapely polygon with a NaN corner"])
def test_nan_and_inf_obstacles_are_refused(bad: Any) -> None:
    if isinstance(bad, str):
        with np.errstate(invalid="ignore"):  # (shapely warns while building it)
            bad = shapely.Polygon([(1, 1), (2, 1), (2, float("nan"))])
    mesh = NavMesh.from_polygons(SQUARE)
    version = mesh.version
    with pytest.raises(InvalidGeometryError):
        mesh.add_obstacle(bad)
    assert mesh.version == version and not mesh.obstacles


# a 16-gon beside the top wall's foot: its inflation's outline has points 2e-15 apart
DISC = [(15.054483231797542, 4.483076878381781), (15.014108947290469, 4.2801016434130466),
        (14.899132712591651, 4.108027547993215), (14.727058617171819, 3.993051313294396),
        (14.524083382203084, 3.9526770287873227), (14.32110814723435, 3.993051313294396),
        (14.149034051814517, 4.108027547993215), (14.0340578171157, 4.2801016434130466),
        (13.993683532608626, 4.483076878381781), (14.0340578171157, 4.686052113350516),
        (14.149034051814517, 4.858126208770347), (14.32110814723435, 4.973102443469166),
        (14.524083382203084, 5.013476727976239), (14.727058617171819, 4.973102443469166),
        (14.899132712591651, 4.858126208770347), (15.014108947290469, 4.686052113350516)]


def test_points_a_rounding_error_apart_do_not_crack_the_mesh() -> None:
    """An edit kept two outline points 2e-15 apart as two vertices; a later edit's region had
    only one of them, so the edge of the untouched triangle on the other found no partner: a
    crack (find_path NO_PATH between two points of one island, 1.79 of 174 area cut off)."""
    areas = [(shapely.box(3, 2, 11, 9), 3.0)]
    mesh = NavMesh.from_polygons(ROOM, agent_radius=0.3, areas=areas)
    edge = mesh.add_obstacle(shapely.box(19, 3, 20, 7))
    disc = shapely.Polygon(DISC)
    block = shapely.box(11.444936493505287, 6.5450001065525925, 17.407972468320548, 10.761456121287623)
    mesh.add_obstacle(disc)
    mesh.add_obstacle(block)
    mesh.remove_obstacle(edge)
    fresh = NavMesh.from_polygons(ROOM, obstacles=[disc, block], agent_radius=0.3, areas=areas)
    centroids = mesh.vertices[mesh.triangles[mesh.alive]].mean(axis=1)[::6]
    found = [gamenav.find_path(mesh, centroids[0], c).status for c in centroids]
    expected = [gamenav.find_path(fresh, centroids[0], c).status for c in centroids]
    assert found == expected


HUT = [(15.911054386498433, 5.32230337769987), (15.552281343525452, 9.42422074361735),
       (12.507177332349896, 9.157881582000833), (12.865950375322877, 5.055964216083355)]
RING20 = [(11.228961249400564, 4.740804350646361), (11.156623030559935, 4.284078811872447),
          (10.946689342908178, 3.8720607510276683), (10.619709958486654, 3.545081366606145),
          (10.207691897641876, 3.3351476789543866), (9.750966358867961, 3.2628094601137576),
          (9.294240820094046, 3.335147678954386), (8.882222759249268, 3.545081366606145),
          (8.555243374827745, 3.8720607510276683), (8.345309687175988, 4.284078811872446),
          (8.272971468335358, 4.740804350646361), (8.345309687175988, 5.197529889420275),
          (8.555243374827745, 5.6095479502650525), (8.882222759249268, 5.936527334686576),
          (9.294240820094046, 6.146461022338334), (9.750966358867961, 6.218799241178964),
          (10.207691897641876, 6.146461022338335), (10.619709958486652, 5.936527334686577),
          (10.946689342908178, 5.609547950265053), (11.156623030559935, 5.1975298894202755)]


def test_a_build_has_no_vertices_a_rounding_error_apart() -> None:
    """A build kept two outline points 1e-15 apart as two vertices (58 of 200 random builds);
    an edit's region merging them cracked the mesh (its live triangles fell in 2 islands)."""
    mesh = NavMesh.from_polygons(ROOM, obstacles=[shapely.Polygon(HUT)], agent_radius=0.3)
    v = mesh.vertices
    gap = np.hypot(*(v[:, None, :] - v[None, :, :]).transpose(2, 0, 1))
    assert gap[np.triu_indices(len(v), 1)].min() > mesh.tolerance
    mesh.add_obstacle(shapely.Polygon(RING20))
    assert int(NavMesh(mesh.vertices, mesh.triangles[mesh.alive]).islands.max()) == 0


@pytest.mark.parametrize("ring", [[("2", "2"), ("4", "2"), ("4", "4")], np.array([["2", "2"], ["4", "2"], ["4", "4"]]),
                                  [(True, False), (True, True), (False, True)], [(10**400, 0), (1, 1), (2, 0)],
                                  [(2, 2), (4, 2), (4, 4), (True, 4)]])
def test_rings_of_strings_bools_or_huge_ints_are_refused_like_walkable_rings(ring: Any) -> None:
    """add_obstacle converted strings and bools to coordinates (carving them) and let numpy's
    OverflowError out for 10**400, where from_polygons refuses all three with one message; a
    bool among numbers was read as 0 or 1 by both. (10**400 is an infinity, as every int beyond
    float64: refused as not finite.)"""
    mesh = NavMesh.from_polygons(SQUARE)
    version = mesh.version
    huge = any(10**400 in row for row in ring if isinstance(row, tuple))
    expected = (r"coordinates must be finite, got NaN or inf in ring 0" if huge
                else r"ring 0 must be an \(n >= 3, 2\) array of \(x, y\) numbers")
    for add in (mesh.add_obstacle, lambda r: NavMesh.from_polygons(SQUARE, obstacles=[r])):
        with pytest.raises(InvalidGeometryError, match=expected):
            add(ring)
    assert mesh.version == version and not mesh.obstacles


@pytest.mark.parametrize("oid", [99, True, 1.0, "1", None])
def test_unknown_obstacle_ids_are_refused(oid: Any) -> None:
    mesh = NavMesh.from_polygons(SQUARE)
    first = mesh.add_obstacle(shapely.box(2, 2, 3, 3))
    with pytest.raises(InvalidInputError, match="oid must be the id"):
        mesh.remove_obstacle(first + 99 if oid == 99 else oid)
    mesh.remove_obstacle(np.int64(first))
    assert mesh.add_obstacle(shapely.box(2, 2, 3, 3)) > first  # not reused


# -- a mesh following a grid with cell costs ---------------------------------------------------

def costs_at(mesh: NavMesh, points: Any) -> Any:
    """The area cost of the triangle holding each point, -1 off the mesh."""
    t = mesh.locate(points)
    out = np.full(len(t), -1.0)
    out[t >= 0] = mesh.area_costs[t[t >= 0]]
    return out


@pytest.mark.parametrize("radius", [0.0, 0.3])
def test_cells_opened_after_the_build_take_the_grids_cost(radius: float) -> None:
    """Edits took each new triangle's cost from the build's triangles: cells blocked at the
    build (none there) opened at cost 1, whatever the grid said."""
    walk = np.ones((6, 8), dtype=bool)
    walk[2:4, 2:5] = False
    cost = np.ones((6, 8))
    cost[:, 3:6] = 4.0
    grid = gamenav.TileGrid(walk, cost=cost)
    mesh = NavMesh.from_grid(grid, agent_radius=radius, follow=True)
    grid.set_walkable((2, 2, 5, 4), True)
    pts = np.array([(2.5, 2.5), (3.5, 2.5), (4.5, 3.5), (6.5, 0.5), (1.5, 4.5)])
    assert costs_at(mesh, pts).tolist() == [1.0, 4.0, 4.0, 1.0, 1.0]
    fresh = NavMesh.from_grid(grid, agent_radius=radius)
    assert cost_weighted_area(mesh) == pytest.approx(cost_weighted_area(fresh), rel=1e-9)


@pytest.mark.parametrize("seed", range(6))
def test_grid_edits_keep_the_costs_of_a_fresh_build(seed: int) -> None:
    """After random passability and cost edits, the costs everywhere are a fresh build's (19 of
    30 such sequences differed; cost-only edits were not followed at all)."""
    rng = np.random.default_rng(seed)
    radius = (0.0, 0.3)[seed % 2]
    grid = gamenav.TileGrid(rng.random((10, 14)) > 0.25, cost=rng.choice([1.0, 1.0, 2.0, 5.0], size=(10, 14)))
    mesh = NavMesh.from_grid(grid, agent_radius=radius, follow=True)
    for _ in range(8):
        x, y = int(rng.integers(0, 13)), int(rng.integers(0, 9))
        region = (x, y, min(x + int(rng.integers(1, 4)), 14), min(y + int(rng.integers(1, 4)), 10))
        if rng.random() < 0.6:
            grid.set_walkable(region, bool(rng.random() < 0.6))
        else:
            grid.set_cost(region, float(rng.choice([1.0, 3.0, 7.0])))
    fresh = NavMesh.from_grid(grid, agent_radius=radius)
    pts = rng.uniform((0, 0), (14, 10), size=(400, 2))
    pts = pts[np.abs(pts - np.round(pts)).min(axis=1) > radius + 1e-3]  # clear of cell edges
    on = costs_at(mesh, pts)
    assert np.array_equal(on, costs_at(fresh, pts))
    assert cost_weighted_area(mesh) == pytest.approx(cost_weighted_area(fresh), rel=1e-9)
    pts = pts[on >= 0]
    for s, g in zip(pts[0:20:2], pts[1:20:2], strict=False):
        a, b = gamenav.find_path(mesh, s, g), gamenav.find_path(fresh, s, g)
        assert a.status == b.status


@pytest.mark.parametrize("radius", [0.0, 0.3])
def test_an_edit_made_by_a_grid_listener_never_gives_the_mesh_an_infinite_cost(radius: float) -> None:
    """A grid listener (heard before the mesh) that walls cells off by cost inf: the mesh followed
    the first edit with the costs of the second (inf) on cells it still took as open, and its
    listeners saw triangles of area cost inf; now it applies both from the grid after the second
    (each change saying that space was blocked)."""
    grid = gamenav.TileGrid(np.ones((6, 8), dtype=bool))
    nested: list[Any] = []

    def wall_off(change: Any) -> None:
        if not nested:
            nested.append(grid.set_cost((3, 0, 5, 6), float("inf")))

    grid.subscribe(wall_off)
    mesh = NavMesh.from_grid(grid, agent_radius=radius, follow=True)
    heard: list[tuple[float, bool]] = []
    mesh.subscribe(lambda change: heard.append((float(mesh.area_costs[:len(mesh.alive)][mesh.alive].max()),
                                                change.blocked)))
    grid.set_cost((2, 0, 6, 6), 2.0)
    assert nested[0] is not None and heard == [(2.0, True)] * len(heard) and heard  # each change shows the wall
    fresh = NavMesh.from_grid(grid, agent_radius=radius)
    assert cost_weighted_area(mesh) == pytest.approx(cost_weighted_area(fresh), rel=1e-9)
    assert gamenav.find_path(mesh, (0.5, 3), (7.5, 3)).status is gamenav.PathStatus.NO_PATH


# -- compaction ------------------------------------------------------------------------------

def test_build_triangles_are_found_after_compactions() -> None:
    """A compaction restarted the edit scratch stamps but not the build triangles' ones: a stale
    stamp equal to a new one hid build triangles from a later removal, whose freed space then
    stayed uncovered (fuzz seed 2046: 223.5439 of 223.7380 after removing an obstacle)."""
    rng = np.random.default_rng(0)
    mesh = NavMesh.from_polygons(ROOM)
    full = live_area(mesh)
    for _ in range(20):
        x, y = rng.uniform(0, 18), rng.uniform(0, 10)
        oid = mesh.add_obstacle(shapely.box(x, y, x + rng.uniform(0.5, 3), y + rng.uniform(0.5, 3)))
        mesh.compact()  # the removal cannot undo the carving: it re-triangulates from the build
        mesh.remove_obstacle(oid)
        assert live_area(mesh) == pytest.approx(full, rel=1e-12)


def test_compacting_an_emptied_mesh_maps_every_id_to_minus_one() -> None:
    """Every triangle dead: the map said each old id was still its own (the identity, promised
    only when nothing is dead), so a corridor translated with it named dead triangles."""
    mesh = NavMesh.from_polygons(SQUARE)
    mesh.add_obstacle(shapely.box(2, 2, 4, 4))
    oid = mesh.add_obstacle(shapely.box(-1, -1, 11, 11))
    version, n = mesh.version, len(mesh)
    remap = mesh.compact()
    assert remap.tolist() == [-1] * n and not remap.flags.writeable
    assert (mesh.version, len(mesh)) == (version, n)  # nothing renumbered
    mesh.remove_obstacle(oid)
    assert live_area(mesh) == pytest.approx(96.0)


# -- pickling an emptied mesh ------------------------------------------------------------------

def outcome(call: Any) -> Any:
    try:
        return call()
    except gamenav.errors.GamenavError as e:
        return type(e).__name__


@pytest.mark.parametrize("radius", [0.0, 0.5])
def test_a_mesh_that_edits_emptied_round_trips_through_pickle_and_copy(radius: float) -> None:
    """Unpickling rebuilt the mesh from its live triangles, and a mesh needs one."""
    mesh = NavMesh.from_polygons(SQUARE, agent_radius=radius, areas=[(shapely.box(0, 0, 5, 10), 3.0)])
    mesh.add_obstacle(shapely.box(-1, -1, 11, 11))
    assert not mesh.alive.any()

    def answers(m: NavMesh) -> list[Any]:
        return [outcome(lambda: gamenav.find_path(m, (2, 2), (8, 8)).status),
                outcome(lambda: gamenav.find_path(m, (2, 2), (8, 8), clamp=True).status),
                m.locate([(2, 2), (8, 8)]).tolist(), m.clamp([(2, 2)])[1].tolist(), m.raycast((2, 2), (8, 8)).clear,
                m.islands.max(initial=-1), m.agent_radius]

    expected = answers(mesh)
    for twin in (pickle.loads(pickle.dumps(mesh)), copy.copy(mesh), copy.deepcopy(mesh)):
        assert not twin.alive.any() and twin.version != mesh.version and not twin.obstacles
        assert answers(twin) == expected
        again = pickle.loads(pickle.dumps(twin))
        assert not again.alive.any() and answers(again) == expected
        twin.add_obstacle(shapely.box(2, 2, 3, 3))  # nothing left to carve
        assert not twin.alive.any()
    assert not mesh.alive.any() and answers(mesh) == expected


def test_an_edit_next_to_a_sliver_of_an_area_boundary_succeeds() -> None:
    """Removing an obstacle that an area boundary crosses left a sliver triangle (vertex 1e-16 off
    its long edge); the next carve there failed with InvalidGeometryError (GEOS's coverage union
    refused the triangles around it) for a valid obstacle."""
    areas = [(shapely.box(3, 2, 11, 9), 3.0)]
    mesh = NavMesh.from_polygons(ROOM, areas=areas)
    wall = mesh.add_obstacle(shapely.box(2, 6, 8, 7))
    bar = shapely.Polygon([(6.602949912282201, 3.812774794705871), (1.5436620520803919, 5.684769177992477),
                           (1.3268116149102642, 5.098705034825485), (6.386099475112072, 3.2267106515388795)])
    mesh.add_obstacle(bar)
    mesh.remove_obstacle(wall)
    spike = shapely.Polygon([(4.175156688270741, 4.1226272208328965), (8.793362914120763, 4.1226272208328965),
                             (6.484259801195751, 7.014455815780691)])
    mesh.add_obstacle(spike)
    fresh = NavMesh.from_polygons(ROOM, obstacles=[bar, spike], areas=areas)
    assert live_area(mesh) == pytest.approx(live_area(fresh), rel=1e-12)
    assert cost_weighted_area(mesh) == pytest.approx(cost_weighted_area(fresh), rel=1e-12)
    for start, goal in [((1, 1), (19, 11)), ((2, 3), (10, 5)), ((5, 8), (8, 3))]:
        assert gamenav.find_path(mesh, start, goal).cost == pytest.approx(
            gamenav.find_path(fresh, start, goal).cost, rel=1e-9)


@pytest.mark.parametrize("offset", [3e9, 7e9])
def test_an_edit_far_from_the_origin_carves_only_the_obstacle(offset: float) -> None:
    """The outline of an edit's triangles had its orientation from products of absolute
    coordinates (9e18 at 3e9, rounded to 2048): an outline taken for a hole dropped the region,
    and a 3 x 4 box removed 76 of 224 area, leaving 2 islands where a build has 1."""
    room = shapely.affinity.translate(ROOM, offset, offset)
    box = shapely.box(offset + 10, offset + 1, offset + 13, offset + 5)
    mesh = NavMesh.from_polygons(room)
    mesh.add_obstacle(box)
    assert live_area(mesh) == pytest.approx(212.0)
    assert int(mesh.islands[mesh.alive].max()) == 0
    path = gamenav.find_path(mesh, (offset + 8, offset + 1), (offset + 15, offset + 1), exact=True)
    fresh = gamenav.find_path(NavMesh.from_polygons(room, obstacles=[box]), (offset + 8, offset + 1),
                              (offset + 15, offset + 1), exact=True)
    assert path.found and path.cost == pytest.approx(fresh.cost, rel=1e-9)


@pytest.mark.parametrize("shape", [shapely.box(5, 5, 5 + 1e-10, 5 + 1e-10),
                                   shapely.Polygon([(5, 5), (5 + 1e-9, 5), (5, 5 + 1e-9)])])
def test_an_obstacle_within_the_tolerance_of_a_point_is_carved_without_error(shape: Any) -> None:
    """Merging the region's outline points within the tolerance (2e-8) collapsed the obstacle's
    hole to 2 points: add_obstacle raised InvalidGeometryError for a valid (tiny) obstacle."""
    mesh = NavMesh.from_polygons(SQUARE)
    oid = mesh.add_obstacle(shape)
    assert live_area(mesh) == pytest.approx(100.0)
    mesh.remove_obstacle(oid)
    assert live_area(mesh) == pytest.approx(100.0)


class _EditFirst:
    """The edit lock, with one edit made just before it is first taken (as another thread's
    edit lands while ``compact`` waits for the lock)."""

    def __init__(self, lock: Any, edit: Any) -> None:
        self.lock, self.edit = lock, edit

    def __enter__(self) -> Any:
        edit, self.edit = self.edit, None
        if edit is not None:
            edit()
        return self.lock.__enter__()

    def __exit__(self, *exc: Any) -> Any:
        return self.lock.__exit__(*exc)


def test_compact_counts_the_triangles_of_an_edit_made_while_it_waited() -> None:
    """compact read the number of triangles before taking the edit lock: an edit in another
    thread meanwhile appended some, and compact raised IndexError (index 465 is out of bounds
    for axis 0 with size 465; 1 of 4 threads editing and compacting)."""
    mesh = NavMesh.from_polygons(SQUARE)
    mesh.remove_obstacle(mesh.add_obstacle(shapely.box(4, 4, 6, 6)))  # dead triangles to reclaim
    es = mesh._edits
    assert es is not None
    es.lock = _EditFirst(es.lock, lambda: mesh.add_obstacle(shapely.box(1, 1, 2, 2)))
    n = len(mesh)
    remap = mesh.compact()
    assert len(remap) > n and bool(mesh.alive.all())
    assert live_area(mesh) == pytest.approx(99.0)


def test_the_arrays_a_mesh_hands_out_cannot_be_made_writable() -> None:
    # numpy let a caller set flags.writeable = True on them and write: a triangle's vertex ids
    # set to 10**9 crashed the process in the next find_path (kernels trust the mesh)
    mesh = NavMesh.from_polygons(ROOM, agent_radius=0.25)
    fresh = [mesh.vertices, mesh.triangles, mesh.neighbours, mesh.area_costs, mesh.islands, mesh.alive]
    changes: list[Any] = []
    mesh.subscribe(changes.append)
    mesh.add_obstacle(shapely.box(2, 2, 3, 3))
    edited = [mesh.vertices, mesh.triangles, mesh.neighbours, mesh.islands, mesh.alive, changes[0].added,
              changes[0].removed]
    for array in fresh + edited:
        with pytest.raises(ValueError, match="WRITEABLE"):
            array.flags.writeable = True
    assert gamenav.find_path(mesh, (1, 1), (19, 11)).status is gamenav.PathStatus.FOUND


# a 20 x 12 room with two walls, and four obstacles (relative to the room's corner)
CRACK_ROOM = [(0, 12), (13, 12), (13, 4), (14, 4), (14, 12), (20, 12), (20, 0), (7, 0), (7, 8), (6, 8), (6, 0),
              (0, 0)]
CRACK_OBSTACLES = [
    [(10.870236855465919, 0.8031923619564623), (8.145884013036266, 3.19269840430934),
     (5.897372359060682, 0.6290978076867759), (8.621725201490335, -1.7604082346661016)],
    [(9.482023371150717, -1.4451654036529362), (9.482023371150717, 1.9868652576114982),
     (6.244756682775915, 1.9868652576114982), (6.244756682775915, -1.4451654036529362)],
    [(10, -2), (10, 2), (7, 2), (7, -2)],
    [(11.298744523664936, 5.92333525326103), (11.20177052973304, 5.561423380742781),
     (10.936832651146688, 5.296485502156429), (10.574920778628439, 5.199511508224532),
     (10.21300890611019, 5.296485502156429), (9.948071027523838, 5.561423380742781),
     (9.851097033591941, 5.92333525326103), (9.948071027523838, 6.285247125895694),
     (10.21300890611019, 6.5501850043656304), (10.574920778628439, 6.647158998413943),
     (10.936832651146688, 6.5501850043656304), (11.20177052973304, 6.285247125895694)],
]


@pytest.mark.parametrize("offset", [0.0, 1e6, 1e9])
def test_edits_far_from_the_origin_leave_no_crack(offset: float) -> None:
    """Overlays about the origin of the world snapped with a tolerance of about the coordinates'
    magnitude / 1e12 (1e-6 at 1e6, where the mesh tolerance is 2e-8): removing two of four
    obstacles at 1e6 dropped a corner 3.2e-7 off a wall, so an untouched triangle lost its
    neighbour (2 islands where a build has 1, and no path where it finds one)."""
    room = shapely.Polygon([(offset + x, offset + y) for x, y in CRACK_ROOM])
    shapes = [affinity.translate(shapely.Polygon(s), offset, offset) for s in CRACK_OBSTACLES]
    mesh = NavMesh.from_polygons(room)
    ids = [mesh.add_obstacle(s) for s in shapes]
    mesh.remove_obstacle(ids[2])
    mesh.remove_obstacle(ids[1])
    fresh = NavMesh.from_polygons(room, obstacles=[shapes[0], shapes[3]])
    assert int(mesh.islands[mesh.alive].max()) == int(fresh.islands.max()) == 0
    points = [(7.05, 1.99), (1, 1), (19, 1), (17, 10), (10.5, 9), (3, 11)]
    for (sx, sy), (gx, gy) in zip(points, points[1:] + points[:1], strict=True):
        start, goal = (offset + sx, offset + sy), (offset + gx, offset + gy)
        a, b = gamenav.find_path(mesh, start, goal, exact=True), gamenav.find_path(fresh, start, goal, exact=True)
        assert a.status == b.status == gamenav.PathStatus.FOUND
        assert a.cost == pytest.approx(b.cost, rel=1e-9)
        assert gamenav.find_path(mesh, start, goal).status == gamenav.find_path(fresh, start, goal).status


def test_removing_an_obstacle_from_a_copy_of_an_emptied_mesh_frees_nothing() -> None:
    """A copy of a mesh that edits emptied is built from its dead triangles, then emptied: those
    triangles stayed the copy's free space as built, so removing an obstacle added to the copy
    brought back the part inside its box (1.0 of area, find_path FOUND where everything is covered)."""
    mesh = NavMesh.from_polygons(SQUARE, agent_radius=0.25)
    mesh.add_obstacle(shapely.box(4, 4, 6, 6))
    mesh.add_obstacle(shapely.box(-1, -1, 11, 11))
    for twin in (pickle.loads(pickle.dumps(mesh)), copy.deepcopy(mesh)):
        twin.remove_obstacle(twin.add_obstacle(shapely.box(2, 2, 3, 3)))
        assert not twin.alive.any()
        with pytest.raises(gamenav.errors.BlockedEndpointError):
            gamenav.find_path(twin, (2.5, 2.5), (2.9, 2.1))


# a carving at 1e5 leaves slivers along the area boundary; a copy's build holds them
FAR_SLAB = shapely.box(100010.45360806573, 100002.49567835806, 100013.0474626708, 100002.76276441781)
FAR_WEDGE = shapely.Polygon([(100010.60850373942, 100002.96387000894), (100009.66004861196, 100012.23180534958),
                             (100020.41704438295, 100003.72472314734)])


def test_an_edit_of_a_copy_whose_costly_triangles_hold_slivers_succeeds() -> None:
    """The costly triangles of a copy's build (an edited mesh's live ones) may hold slivers, no
    coverage GEOS accepts: the next add_obstacle across the area let GEOSException out ("CoverageUnion
    cannot process incorrectly noded inputs") for a valid obstacle."""
    off = 1e5
    room, areas = affinity.translate(ROOM, off, off), [(shapely.box(off + 3, off + 2, off + 11, off + 9), 3.0)]
    mesh = NavMesh.from_polygons(room, agent_radius=0.5, areas=areas)
    mesh.add_obstacle(FAR_SLAB)
    twin = pickle.loads(pickle.dumps(mesh))
    twin.add_obstacle(FAR_WEDGE)
    fresh = NavMesh.from_polygons(room, obstacles=[FAR_SLAB, FAR_WEDGE], agent_radius=0.5, areas=areas)
    assert live_area(twin) == pytest.approx(live_area(fresh), rel=1e-9)
    assert cost_weighted_area(twin) == pytest.approx(cost_weighted_area(fresh), rel=1e-9)


# a square across the cost area's left edge, relative to the room's corner
ACROSS_AREA = [(5.318683087825775, 3.5502615198493004), (2.854093696922064, 5.552581261843443),
               (1.372746642678976, 3.729239985346794), (3.8373360373079777, 1.7269202433526516)]


@pytest.mark.parametrize("offset", [1e5, -3e7])
def test_an_edit_far_from_the_origin_makes_no_island_of_a_sliver(offset: float) -> None:
    """Triangles made in the edit's frame are moved to the world, whose coarser float steps turned
    slivers over (apex within a step of the long edge, where the area's edge meets the obstacle's):
    stitched the other way round they met no neighbour, islands of their own (2 or 3 where a build
    has 1), and find_path from 92 of 396 points on the obstacle's edges answered NO_PATH."""
    room = affinity.translate(ROOM, offset, offset)
    areas = [(shapely.box(offset + 3, offset + 2, offset + 11, offset + 9), 3.0)]
    square = shapely.Polygon([(offset + x, offset + y) for x, y in ACROSS_AREA])
    mesh = NavMesh.from_polygons(room, areas=areas)
    mesh.add_obstacle(square)
    fresh = NavMesh.from_polygons(room, obstacles=[square], areas=areas)
    assert int(mesh.islands[mesh.alive].max()) == int(fresh.islands.max()) == 0
    goal = (offset + 17, offset + 2)
    corners = shapely.get_coordinates(square)
    for a, b in zip(corners[:-1], corners[1:], strict=True):
        for t in np.linspace(0.02, 0.98, 25):
            start = a + t * (b - a)
            assert gamenav.find_path(mesh, start, goal).status is gamenav.PathStatus.FOUND
    assert cost_weighted_area(mesh) == pytest.approx(cost_weighted_area(fresh), rel=1e-9)


@pytest.mark.parametrize("gap", [1e-300, 1e-10])
def test_a_strip_thinner_than_the_tolerance_left_by_edits_is_no_island(gap: float) -> None:
    """Two buildings side by side a rounding error above the wall: the strip under them kept the
    first one's corner (a triangle of height ``gap``), an island of its own where a build (merging
    points within the tolerance) has none, and find_path(clamp=True) from inside the buildings
    snapped onto it: NO_PATH."""
    mesh = NavMesh.from_polygons(ROOM)
    shapes = [shapely.box(0, gap, 1, 1 + gap), shapely.box(1, gap, 6, 1 + gap)]
    for shape in shapes:
        mesh.add_obstacle(shape)
    fresh = NavMesh.from_polygons(ROOM, obstacles=shapes)
    assert int(mesh.islands[mesh.alive].max()) == int(fresh.islands.max()) == 0
    path = gamenav.find_path(mesh, (3, 0.3), (3, 3), clamp=True)
    assert path.found and path.cost == pytest.approx(gamenav.find_path(fresh, (3, 0.3), (3, 3), clamp=True).cost)


# at 1e5 with areas, two obstacles carved in a copy: their outlines meet at points a float step
# apart in the edit's frame (one point in the world)
NEAR_WEDGE = [(100007.1707526137, 100003.90124944698), (100018.27589474687, 100013.34066411716),
              (100015.47079595529, 99999.46297319722)]
NEAR_DISC = [(100009.62836704611, 100009.43275187092), (100009.31520702405, 100008.67671669844),
             (100008.55917185156, 100008.36355667637), (100007.8031366791, 100008.67671669844),
             (100007.48997665703, 100009.43275187092), (100007.8031366791, 100010.1887870434),
             (100008.55917185156, 100010.50194706547), (100009.31520702405, 100010.1887870434)]
NEAR_SPIKE = [(100019.03217515982, 100008.82755325253), (100004.7420566737, 100001.39132058184),
              (100005.46999990311, 100009.14727588418)]


def test_points_of_an_edit_that_are_one_world_point_get_one_vertex() -> None:
    """Two new points a float step apart in the edit's frame were two vertices at the same world
    coordinates: the triangles on either side shared no edge, and a 0.2-area triangle was an
    island of its own (5 where a build has 4; find_path from it NO_PATH, where a build finds one)."""
    off = 1e5
    room, areas = affinity.translate(ROOM, off, off), [(shapely.box(off + 3, off + 2, off + 11, off + 9), 3.0)]
    shapes = [shapely.Polygon(NEAR_WEDGE), shapely.Polygon(NEAR_DISC), shapely.Polygon(NEAR_SPIKE)]
    mesh = NavMesh.from_polygons(room, agent_radius=0.3, areas=areas)
    mesh.add_obstacle(shapes[0])
    twin = pickle.loads(pickle.dumps(mesh))
    twin.add_obstacle(shapes[1])
    twin.add_obstacle(shapes[2])
    fresh = NavMesh.from_polygons(room, obstacles=shapes, agent_radius=0.3, areas=areas)
    assert int(twin.islands[twin.alive].max()) == int(fresh.islands.max()) == 3
    v = twin.vertices[np.unique(twin.triangles[twin.alive])]
    assert len(np.unique(v, axis=0)) == len(v)
    start, goal = (off + 7.654, off + 2.435), (off + 10, off + 1)
    assert gamenav.find_path(twin, start, goal).status is gamenav.find_path(fresh, start, goal).status
    assert gamenav.find_path(twin, start, goal).found


def test_navmesh_change_arrays_stay_read_only_after_a_round_trip() -> None:
    """A NavMeshChange's arrays (documented read-only) came back writable from pickle and
    deepcopy: a listener keeping a copy could write into it."""
    from gamenav.navmesh.dynamic import NavMeshChange

    mesh = gamenav.NavMesh.from_polygons([[(0, 0), (10, 0), (10, 10), (0, 10)]])
    changes: list[NavMeshChange] = []
    mesh.subscribe(changes.append)
    mesh.add_obstacle([(4, 4), (6, 4), (6, 6), (4, 6)])
    mesh.compact()
    for change in changes:
        for twin in (pickle.loads(pickle.dumps(change)), copy.deepcopy(change), copy.copy(change)):
            arrays = [twin.removed, twin.added] + ([] if twin.remap is None else [twin.remap])
            assert len(arrays) == (2 if change.remap is None else 3)
            assert not any(a.flags.writeable for a in arrays)
            assert twin.version == change.version and twin.bounds == change.bounds
            assert np.array_equal(twin.removed, change.removed) and np.array_equal(twin.added, change.added)
            assert (twin.opened, twin.blocked) == (change.opened, change.blocked)
    assert [c.remap is None for c in changes] == [True, False]


# obstacles by the left wall a rounding error or a gap below the tolerance off it, with strips
# that thin between them and the wall; and the point of the free space nearest (-0.4, 0.7)
SPIKE_CASES = [
    # the strip ends at the first box (y = 1): the edit left a spike down to it
    ([shapely.box(0, 0, 1, 1), shapely.box(1e-300, -2.991111378076175e-291, 1 + 1e-300, 2 - 2.991111378076175e-291)],
     (0.0, 2.0)),
    # a build left one (the edits none)
    ([shapely.box(1e-10, 0, 1 + 1e-10, 2), shapely.box(0, 0, 1, 1)], (0.0, 2.0)),
    ([shapely.box(5.307568066548211e-76, 0, 1, 2), shapely.box(0, 0, 1, 1)], (0.0, 2.0)),
    # merging twisted a build's strip into a lobe: an island of its own
    ([shapely.box(0, 0, 1, 0.5), affinity.rotate(shapely.box(1e-12, 0, 1 + 1e-12, 1), 1e-11)], (0.0, 1.0)),
    # a strip round the first box (by the bottom wall too), closed at the top by the second: the
    # edit kept the part outside the second one's box
    ([shapely.box(3.740756975700933e-142, 2.615910348899725e-217, 1, 1), shapely.box(0, 1, 1, 2)], (0.0, 2.0)),
]


@pytest.mark.parametrize(("shapes", "nearest"), SPIKE_CASES)
def test_a_strip_thinner_than_the_tolerance_by_a_wall_leaves_no_spike(shapes: list[Any],
                                                                       nearest: tuple[float, float]) -> None:
    """Merging a strip's end points left a spike (in the edited mesh, a fresh build, or both,
    depending on the order of the edits and on GEOS's rounding), and nearest snapped (-0.4, 0.7)
    onto its tip (0.46 away where the other mesh, without it, gave 1.32; where both kept one,
    0.83 instead of 1.32), or the spike was an island of its own. Edits and builds now cut such
    spikes off."""
    mesh = NavMesh.from_polygons(ROOM)
    for shape in shapes:
        mesh.add_obstacle(shape)
    fresh = NavMesh.from_polygons(ROOM, obstacles=shapes)
    point = np.array([[-0.4, 0.7]])
    for m in (mesh, fresh):
        assert m.nearest(point)[0] == pytest.approx(nearest, abs=1e-9)
        assert int(m.islands[m.alive].max()) == 0
    assert gamenav.find_path(mesh, (3, 3), (0.5, 11)).cost == pytest.approx(
        gamenav.find_path(fresh, (3, 3), (0.5, 11)).cost, rel=1e-12)


def test_a_spike_whose_tip_untouched_triangles_share_is_kept() -> None:
    """A sliver 1e-10 wide whose far corner (0, 5) is a corner of triangles the edit leaves as
    they are: the edit's region has a spike there, and cutting it off would open a crack (two
    islands, NO_PATH across the room)."""
    verts = np.array([(0, 5), (10, 5), (5, 5 + 1e-10), (0, 0), (10, 0), (10, 10), (0, 10)], dtype=float)
    tris = np.array([(3, 4, 1), (3, 1, 0), (0, 1, 2), (0, 2, 6), (2, 1, 5), (2, 5, 6)])
    mesh = NavMesh(verts, tris)
    mesh.add_obstacle(shapely.box(7, 5 + 3e-11 + 16 * mesh.tolerance, 8, 6))  # its box meets the sliver only
    assert int(mesh.islands[mesh.alive].max()) == 0
    assert live_area(mesh) == pytest.approx(100 - (1 - 3e-11 - 16 * mesh.tolerance), rel=1e-12)
    assert gamenav.find_path(mesh, (1, 2), (1, 8)).found


@pytest.mark.parametrize("radius", [0.0, 0.3])
@pytest.mark.parametrize("gap", [1e-12, 5e-9])
@pytest.mark.parametrize("order", [(0, 1), (1, 0)])
def test_a_passage_thinner_than_the_tolerance_open_at_both_ends_stays_open_as_in_a_build(
        gap: float, order: tuple[int, int], radius: float) -> None:
    """Two walls from either side leave a gap ``gap`` (below the tolerance 1e-8; with an agent
    radius, between their inflations) between the rooms above and below: a build keeps that
    passage; carving the second wall snapped its corners onto the first one's (within the
    tolerance), closing it (two islands, NO_PATH from (2, 2) to (2, 8) where the build finds
    9.21). Edits keep it too now."""
    far = 5 + 2 * radius + gap  # the inflations' sides (at the radius: see build.stadiums)
    walls = [shapely.box(-1, 4, 5, 6), shapely.box(far, 4, 11, 6)]
    mesh = NavMesh.from_polygons(SQUARE, agent_radius=radius)
    for k in order:
        mesh.add_obstacle(walls[k])
    fresh = NavMesh.from_polygons(SQUARE, obstacles=walls, agent_radius=radius)
    assert int(mesh.islands[mesh.alive].max()) == int(fresh.islands.max()) == 0
    a, b = (gamenav.find_path(m, (2, 2), (2, 8), exact=True) for m in (mesh, fresh))
    assert a.found and b.found and a.cost == pytest.approx(b.cost, rel=1e-12)


def test_a_strip_merged_at_both_ends_into_a_twisted_spike_is_cut_off_in_a_build() -> None:
    """Two boxes 2e-13 and 1e-238 off the wall x = 0, one on the other, leave a strip closed at
    the floor; merging its ends twisted it (its tip's edge crossed the edge two further on, not
    the next one, which alone was checked), so a build kept it as a crack, and triangulating it
    left an island of two triangles (area 1e-13) that the edited mesh has not."""
    shapes = [shapely.box(2e-13, 0, 1 + 2e-13, 1), shapely.box(1e-238, 1, 1 + 1e-238, 2)]
    for mesh, fresh in _edited_in_either_order_and_built(shapes):
        assert int(mesh.islands[mesh.alive].max()) == int(fresh.islands.max()) == 0
        assert live_area(mesh) == pytest.approx(live_area(fresh), rel=1e-12)


def _edited_in_either_order_and_built(shapes: list[Any]) -> Iterator[tuple[NavMesh, NavMesh]]:
    """``(ROOM edited by adding shapes in order, the same reversed)``, each with a fresh build of
    ROOM with those obstacles."""
    fresh = NavMesh.from_polygons(ROOM, obstacles=shapes)
    for order in (shapes, shapes[::-1]):
        mesh = NavMesh.from_polygons(ROOM)
        for shape in order:
            mesh.add_obstacle(shape)
        yield mesh, fresh


def test_a_strip_by_the_wall_at_zero_open_at_both_ends_closes_alike_in_builds_and_edits() -> None:
    """Boxes 1e-238 and 2e-13 off the wall x = 0, one over the other, leave a strip open at
    both ends. A build kept it, then ``triangle`` read 1e-238 as 0, pinching it shut after the
    spikes were cut: a spike 2e-13 wide was left, onto which nearest snapped (-0.38, 0.74)
    (0.377 away; the edited mesh, whose first edit had closed the strip, gave 0.447). Such
    coordinates are 0 before merging now, in builds and edits alike."""
    shapes = [shapely.box(1e-238, 1, 1 + 1e-238, 2), shapely.box(2e-13, 0.5, 1 + 2e-13, 1.5)]
    point = np.array([[-0.38, 0.74]])
    for mesh, fresh in _edited_in_either_order_and_built(shapes):
        assert int(mesh.islands[mesh.alive].max()) == int(fresh.islands.max()) == 0
        assert live_area(mesh) == pytest.approx(live_area(fresh), rel=1e-12)
        for m in (mesh, fresh):
            assert m.nearest(point)[0] == pytest.approx((0, 0.5), abs=1e-9)


def test_a_corner_merged_away_in_a_build_is_no_snap_target_of_an_edit() -> None:
    """A box over the foot of the wall at x = 13..14 reaching 1.9e-8 below it (tolerance 2e-8):
    a build merges the wall's corner (14, 4) into the box's (14, 4 - 1.9e-8); the edit merged
    it alike, then stitched the box's corner onto the removed triangles' (14, 4) within the
    tolerance, so paths around it cost 1.8e-8 less than in the build (more than the 1e-9
    relative the random-edits test allows). Only corners that live triangles keep take a
    point within the tolerance now."""
    box = shapely.box(13.5, 4 - 1.9e-8, 14, 5)
    mesh = NavMesh.from_polygons(ROOM)
    mesh.add_obstacle(box)
    fresh = NavMesh.from_polygons(ROOM, obstacles=[box])
    a, b = (gamenav.find_path(m, (16, 11), (4, 5), exact=True) for m in (mesh, fresh))
    assert a.points[1] == pytest.approx((14, 4 - 1.9e-8), abs=1e-15)
    assert a.cost == pytest.approx(b.cost, rel=1e-15)


# a rotated box whose corner touches a box 1e-10 right of a third one (the boxes' strip pinched
# shut there), in the order a random edit fuzz added them
PINCHED_STRIPS = [
    shapely.Polygon([(3.589519607309465, 9.78404103331904), (0.2763533364129138, 11.9164814273377),
                     (-1.3923617051410062, 9.323803851485234), (1.920804565755545, 7.191363457466573)]),
    shapely.box(3.589519607309465, 7.191363457466573, 5.357736994824593, 11.9164814273377),
    shapely.box(-0.1773297732429766, 7.191363457466573, 3.589519607209465, 11.9164814273377),
]


def test_two_dead_end_strips_meeting_at_a_pinch_point_stay_closed_in_a_build() -> None:
    """The strip 1e-10 wide between the boxes is two dead ends meeting at the corner, where the
    right box (a hole of the free space) touches the outline. A build merged each ring on its
    own: the outline lost the corner (merged into a point 1.6e-10 off it), the hole kept it, so
    the strip was open through it: find_path from below the boxes to above them cost 4.95 in a
    build, 8.27 round the boxes in the edited mesh, which cut the dead ends off. Merging and
    spike cutting now follow the outline through a pinch point."""
    mesh = NavMesh.from_polygons(ROOM)
    for shape in PINCHED_STRIPS:
        mesh.add_obstacle(shape)
    fresh = NavMesh.from_polygons(ROOM, obstacles=PINCHED_STRIPS)
    start, goal = (3.58951960725, 7.0), (3.58951960725, 11.95)
    for m in (mesh, fresh):
        assert gamenav.find_path(m, start, goal).cost == pytest.approx(8.27219531735474, rel=1e-9)
        assert m.nearest(np.array([[1.563, 9.63]]))[0] == pytest.approx((1.563, 11.9164814273377), abs=1e-9)
    assert live_area(mesh) == pytest.approx(live_area(fresh), rel=1e-12)


def test_an_obstacle_overlapping_a_carved_one_by_a_rounding_error_leaves_no_strip() -> None:
    """A box over the wall's face reaching 1.5e-8 beyond it (tolerance 2e-8), then one that
    overlaps it by 1e-10: merging the first one's corners with the wall's left its edge slanted
    up to 1.5e-8 inside it, and carving subtracted only the second box from that, leaving a
    strip up to 1e-8 wide between them, open at both ends: find_path from below the second box
    to above it cost 2.25 through it, where a build (no strip) goes round the box: 2.98.
    Carving subtracts the obstacles within the tolerance of the new one too now."""
    boxes = [shapely.box(5.167555993503664, 4.336094576085674, 7.000000015, 7.174911606001009),
             shapely.box(7.0000000149, 5.121869488374122, 8.375891213636095, 6.324737206570164)]
    mesh = NavMesh.from_polygons(ROOM)
    for box in boxes:
        mesh.add_obstacle(box)
    fresh = NavMesh.from_polygons(ROOM, obstacles=boxes)
    for m in (mesh, fresh):
        assert gamenav.find_path(m, (7.5, 5), (7.5, 6.5)).cost == pytest.approx(2.9804504744431166, rel=1e-9)
        assert m.locate(np.array([[7.000000012, 6.0]]))[0] == -1
    assert live_area(mesh) == pytest.approx(live_area(fresh), rel=1e-12)


# two obstacles touching at a corner (holes sharing a point) and, elsewhere, a box with a
# rotated one whose corner lies 1e-8 below the box's (the free space's outline has points
# closer than the tolerance there)
TOUCHING_AND_CLOSE = [
    shapely.Polygon([(12.834461788390046, 3.699709687081313), (12.999999997, 4.000000003),
                     (11.421602862107315, 4.870108096182632), (11.256064653497361, 4.569817780263944)]),
    shapely.Polygon([(11.256064653497361, 4.569817780263944), (8.460666886662025, 4.569817780263944),
                     (11.256064653497361, 3.8188784552260016)]),
    shapely.box(5.979521517414335, 8, 6.816782048219621, 10.610591955829623),
    shapely.Polygon([(6.385935314692141, 10.430621900706857), (6.9727180376212345, 11.75571238695943),
                     (6.566304240343429, 11.935682432082197), (5.9795215174143355, 10.610591945829622)]),
]


def test_a_pinch_point_leaves_the_points_a_build_merges_elsewhere_as_they_were() -> None:
    """Joining the rings at the pinch point (see the test above) must keep every ring's
    direction: merging keeps the first of close points, and rings turned round kept the other
    point of the close pair by the box's corner, 4.4e-9 off the one an edit keeps (a path past
    it 1.6e-9 shorter in the edited mesh than the build's exact one)."""
    mesh = NavMesh.from_polygons(ROOM)
    for shape in TOUCHING_AND_CLOSE:
        mesh.add_obstacle(shape)
    fresh = NavMesh.from_polygons(ROOM, obstacles=TOUCHING_AND_CLOSE)
    start, goal = (6.83842751, 10.22886731), (5.94613862, 9.78912497)
    assert gamenav.find_path(mesh, start, goal, exact=True).cost == pytest.approx(
        gamenav.find_path(fresh, start, goal, exact=True).cost, rel=1e-12)


def test_a_corner_cut_off_by_an_obstacle_near_it_is_an_island_in_a_build_too() -> None:
    """A rotated box 3e-8 from the room's corner cuts off a triangle 3e-8 x 6e-8 (area 9e-16,
    wider than the tolerance 2e-8): an edit keeps it, an island of its own; a build dropped it
    as float noise (an area below 16 * eps * 20**2 = 1.4e-12), so the islands differed (2 and
    1) and find_path from inside it was FOUND in the build, NO_PATH in the edited mesh. A build
    drops only such parts that are nowhere wider than the tolerance now."""
    box = shapely.Polygon([(3e-8, 0), (1.4223895257205175, 0.7101037136828187),
                           (1.1367942610546335, 1.282171844944168), (-0.2855952346658838, 0.5720681312613491)])
    mesh = NavMesh.from_polygons(ROOM)
    mesh.add_obstacle(box)
    fresh = NavMesh.from_polygons(ROOM, obstacles=[box])
    for m in (mesh, fresh):
        assert int(m.islands[m.alive].max()) == 1
        assert gamenav.find_path(m, (1e-8, 1e-8), (3, 3)).status is gamenav.PathStatus.NO_PATH
    assert live_area(mesh) == pytest.approx(live_area(fresh), rel=1e-12)


# a rotated box with a corner at (1e-300, 1e-300), by the room's corner at the origin
CORNER_AT_1E_300 = [(2.0384435117214355, -1.5689606233951077), (1.813369091169281, 0.2272273322802923),
                    (1e-300, 1e-300), (0.2250744205521546, -1.7961879556754)]


@pytest.mark.parametrize("walk", [ROOM, shapely.box(0, 0, 20, 12)])
def test_an_obstacle_with_a_corner_at_1e_300_is_carved(walk: Any) -> None:
    """GEOS's difference underflowed on the corner beside the room's corner and subtracted
    nothing: add_obstacle left the mesh as it was (live area 224 in ROOM, where the obstacle
    covers 0.21 of it, and (1, 0.05) inside the obstacle walkable), and a build from the box
    room kept the whole box (240). Such coordinates are 0 before any overlay now."""
    shape = shapely.Polygon(CORNER_AT_1E_300)
    mesh = NavMesh.from_polygons(walk)
    mesh.add_obstacle(shape)
    fresh = NavMesh.from_polygons(walk, obstacles=[shape])
    covered = shapely.intersection(walk, shapely.Polygon([p if p[0] > 1e-100 else (0, 0) for p in CORNER_AT_1E_300]))
    for m in (mesh, fresh):
        assert live_area(m) == pytest.approx(walk.area - covered.area, rel=1e-12)
        assert m.locate(np.array([[1.0, 0.05]]))[0] == -1


def test_free_space_whose_rings_joined_at_a_pinch_point_merge_to_nothing_is_none() -> None:
    """A sliver 1e-9 high with a hole touching its apex: joined at the apex, every point is a
    spike tip and goes; splitting the (empty) rest again raised a bare IndexError from
    from_polygons instead of saying that no walkable area is left."""
    sliver = shapely.Polygon([(0, 0), (2, 0), (1, 1e-9)], [[(0.9, 1e-10), (1, 1e-9), (1.1, 1e-10)]])
    with pytest.raises(InvalidGeometryError, match="no walkable area left"):
        NavMesh.from_polygons(sliver)


@pytest.mark.parametrize("gap", [1e-9, 1e-12])
def test_a_band_thinner_than_the_tolerance_round_an_obstacle_in_a_hole_is_no_island(gap: float) -> None:
    """A box in a square obstacle's hole, ``gap`` from its sides (below the tolerance 2e-8):
    the band between them has its sides on two rings, which merging leaves apart, so a build
    kept it, an island of its own (2 where the edited mesh, dropping parts that thin, has 1),
    and nearest snapped (3.5, 3.5) onto it (0.5 away; 1.5 in the edited mesh). Builds drop
    such parts too now."""
    shapes = [shapely.box(2, 2, 5, 5).difference(shapely.box(3, 3, 4, 4)),
              shapely.box(3 + gap, 3 + gap, 4 - gap, 4 - gap)]
    for mesh, fresh in _edited_in_either_order_and_built(shapes):
        for m in (mesh, fresh):
            assert int(m.islands[m.alive].max()) == 0
            assert m.nearest(np.array([[3.5, 3.5]]))[0] == pytest.approx((2, 3.5), abs=1e-12)
