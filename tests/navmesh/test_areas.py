"""Area costs: triangles follow area boundaries, the default search minimises cost-weighted length."""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest

import gamenav
from gamenav.errors import InvalidInputError, UnsupportedOptionError

SQUARE = [(0, 0), (10, 0), (10, 10), (0, 10)]
STRIP = [(4, 0), (6, 0), (6, 8), (4, 8)]


def test_cheap_detour_beats_expensive_straight_line() -> None:
    mesh = gamenav.NavMesh.from_polygons(SQUARE, areas=[(STRIP, 10.0)])
    path = gamenav.find_path(mesh, (1, 1), (9, 1))
    assert [tuple(map(float, p)) for p in path.points] == [(1, 1), (4, 8), (6, 8), (9, 1)]
    assert path.cost == pytest.approx(2 * np.hypot(3, 7) + 2)
    assert (mesh.area_costs[path.corridor] == 1.0).all()


def test_cheap_enough_area_is_crossed_with_weighted_cost() -> None:
    mesh = gamenav.NavMesh.from_polygons(SQUARE, areas=[(STRIP, 1.5)])
    path = gamenav.find_path(mesh, (1, 1), (9, 1))
    assert len(path.points) == 2
    assert path.cost == pytest.approx(3 + 2 * 1.5 + 3)


def test_triangles_follow_area_boundaries() -> None:
    mesh = gamenav.NavMesh.from_polygons(SQUARE, areas=[(STRIP, 3.0), ([(5, 5), (9, 5), (9, 9), (5, 9)], 2.0)])
    tri = mesh.vertices[mesh.triangles]
    a, b = tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0]
    area = 0.5 * np.abs(a[:, 0] * b[:, 1] - a[:, 1] * b[:, 0])
    # later areas win where they overlap: strip minus the overlap costs 3, the second square 2
    assert area[mesh.area_costs == 3.0].sum() == pytest.approx(16 - 3)
    assert area[mesh.area_costs == 2.0].sum() == pytest.approx(16)
    assert area.sum() == pytest.approx(100)


def test_area_costs_read_only_and_kept_by_pickle_and_copy() -> None:
    mesh = gamenav.NavMesh.from_polygons(SQUARE, areas=[(STRIP, 4.0)])
    assert mesh.area_costs.dtype == np.float64 and mesh.area_costs.shape == (len(mesh),)
    with pytest.raises(ValueError):
        mesh.area_costs[0] = 2.0
    for other in (pickle.loads(pickle.dumps(mesh)), copy.copy(mesh), copy.deepcopy(mesh)):
        np.testing.assert_array_equal(other.area_costs, mesh.area_costs)
        assert not other.area_costs.flags.writeable


def test_unit_costs_equal_no_costs_bit_for_bit() -> None:
    rng = np.random.default_rng(3)
    walk = rng.random((24, 24)) > 0.25
    plain = gamenav.NavMesh.from_grid(gamenav.TileGrid(walk))
    ones = gamenav.NavMesh.from_grid(gamenav.TileGrid(walk, cost=np.ones((24, 24))))
    listed = gamenav.NavMesh(plain.vertices, plain.triangles, np.ones(len(plain)))
    np.testing.assert_array_equal(plain.triangles, ones.triangles)
    free = np.argwhere(walk)[:, ::-1] + 0.5
    for _ in range(40):
        a, b = free[rng.integers(len(free), size=2)]
        ref = gamenav.find_path(plain, a, b)
        for mesh in (ones, listed):
            got = gamenav.find_path(mesh, a, b)
            assert got.status == ref.status and got.cost == ref.cost
            np.testing.assert_array_equal(got.points, ref.points)


def test_from_grid_takes_cell_costs() -> None:
    cost = np.ones((6, 10))
    cost[:5, 4:6] = 20.0  # an expensive marsh with a cheap way around below it
    grid = gamenav.TileGrid(np.ones((6, 10), dtype=bool), cost=cost)
    mesh = gamenav.NavMesh.from_grid(grid)
    centre = mesh.vertices[mesh.triangles].mean(axis=1)
    np.testing.assert_array_equal(mesh.area_costs, cost[centre[:, 1].astype(int), centre[:, 0].astype(int)])
    path = gamenav.find_path(mesh, (1.5, 0.5), (8.5, 0.5))
    assert (mesh.area_costs[path.corridor] == 1.0).all()
    assert path.points[:, 1].max() >= 5.0
    radius = gamenav.NavMesh.from_grid(grid, agent_radius=0.2)
    assert set(np.unique(radius.area_costs)) == {1.0, 20.0}
    assert (radius.area_costs[gamenav.find_path(radius, (1.5, 0.5), (8.5, 0.5)).corridor] == 1.0).all()


def test_exact_mode_on_costs_is_unsupported() -> None:
    mesh = gamenav.NavMesh.from_polygons(SQUARE, areas=[(STRIP, 2.0)])
    with pytest.raises(UnsupportedOptionError, match="exact=True"):
        gamenav.find_path(mesh, (1, 1), (9, 1), exact=True)
    ones = gamenav.NavMesh.from_polygons(SQUARE, areas=[(STRIP, 1.0)])
    assert gamenav.find_path(ones, (1, 1), (9, 1), exact=True).cost == pytest.approx(8.0)


@pytest.mark.parametrize("areas, match", [
    (5, "areas must be a sequence"),
    ([STRIP], r"areas\[0\] must be a \(polygon, cost\) pair"),
    ([(STRIP, 0.5)], r"areas\[0\] cost must be a finite number >= 1"),
    ([(STRIP, float("nan"))], r"areas\[0\] cost"),
    ([(STRIP, "x")], r"areas\[0\] cost"),
])
def test_bad_areas(areas: object, match: str) -> None:
    with pytest.raises(InvalidInputError, match=match):
        gamenav.NavMesh.from_polygons(SQUARE, areas=areas)


def test_bad_area_costs_array() -> None:
    mesh = gamenav.NavMesh.from_polygons(SQUARE)
    with pytest.raises(InvalidInputError, match="area_costs"):
        gamenav.NavMesh(mesh.vertices, mesh.triangles, np.ones(len(mesh) + 1))
    with pytest.raises(InvalidInputError, match="area_costs must be finite numbers >= 1"):
        gamenav.NavMesh(mesh.vertices, mesh.triangles, np.full(len(mesh), 0.5))


def test_costs_of_triangles_an_edit_removed_do_not_count() -> None:
    """With its only costly area carved away, a mesh once refused ``exact=True`` (the removed
    triangles, kept as dead rows, still cost 5) and searched in the weighted mode, until compact()."""
    mesh = gamenav.NavMesh.from_polygons(SQUARE, areas=[([(4, 4), (6, 4), (6, 6), (4, 6)], 5.0)])
    mesh.add_obstacle([(3.5, 3.5), (6.5, 3.5), (6.5, 6.5), (3.5, 6.5)])
    assert mesh.area_costs.max() == 5.0 and mesh.area_costs[mesh.alive].max() == 1.0
    path = gamenav.find_path(mesh, (1, 1), (9, 9), exact=True)
    default = gamenav.find_path(mesh, (1, 1), (9, 9))
    mesh.compact()
    for exact, found in [(True, path), (False, default)]:
        again = gamenav.find_path(mesh, (1, 1), (9, 9), exact=exact)
        np.testing.assert_array_equal(found.points, again.points)
        assert found.cost == again.cost
