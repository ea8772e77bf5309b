"""Adversarial review (third round) of navmesh builds, edits and queries."""

from __future__ import annotations

import numpy as np
import pytest
import shapely
import shapely.affinity

import gamenav
from gamenav import NavMesh, PathStatus, TileGrid


def _free(mesh: NavMesh) -> shapely.Geometry:
    return shapely.union_all(shapely.polygons(mesh.vertices[mesh.triangles[mesh.alive]]))


@pytest.mark.parametrize("radius", [0.45, 0.495, 0.4999])
def test_a_unit_just_narrower_than_a_corridor_gets_through_it(radius: float) -> None:
    # the agent radius was grown by 2% everywhere (the round ends' chords kept outside the circle),
    # walls too: a corridor 1 wide closed for radius > 0.4903 ("no walkable area left ... narrower
    # than 2 * agent_radius = 0.99"), where a grid search with that radius goes through
    grid = TileGrid.from_strings(["#####", ".....", "#####"])
    mesh = NavMesh.from_grid(grid, agent_radius=radius)
    x0, y0, x1, y1 = mesh.bounds
    assert (y0, y1) == pytest.approx((1 + radius, 2 - radius), abs=1e-12)  # the walls at the radius
    assert (x0, x1) == pytest.approx((radius, 5 - radius), abs=1e-12)
    path = gamenav.find_path(mesh, (0.5, 1.5), (4.5, 1.5), exact=True)
    assert path.status is PathStatus.FOUND and path.cost == pytest.approx(4.0)
    assert gamenav.find_path(grid, (0, 1), (4, 1), agent_radius=radius).status is PathStatus.FOUND


def test_edits_open_the_same_gap_as_a_build() -> None:
    room = shapely.box(0, 0, 20, 12)
    walls = [shapely.box(-1, 5, 9.5, 7), shapely.box(10.5, 5, 21, 7)]  # a gap 1 wide at x 9.5..10.5
    edited = NavMesh.from_polygons(room, agent_radius=0.495)
    for wall in walls:
        edited.add_obstacle(wall)
    built = NavMesh.from_polygons(room, obstacles=walls, agent_radius=0.495)
    for mesh in (edited, built):
        path = gamenav.find_path(mesh, (10, 2), (10, 10), exact=True)
        assert path.status is PathStatus.FOUND and path.cost == pytest.approx(8.0)
    assert shapely.symmetric_difference(_free(edited), _free(built)).area < 1e-9


@pytest.mark.parametrize("angle", [0.0, 10.0, 45.0, 71.0])
def test_inflation_keeps_the_radius_exactly_along_walls(angle: float) -> None:
    """The free space keeps every point at least the radius from an obstacle (the true circle
    round its corners too), and along a wall no more (up to the mesh tolerance, 2e-8 here)."""
    radius = 0.7
    room = shapely.box(-10, -10, 10, 10)
    obstacle = shapely.affinity.rotate(shapely.Polygon([(-3, -1), (4, -2), (2, 3), (-1, 1)]), angle)
    edited = NavMesh.from_polygons(room, agent_radius=radius)
    edited.add_obstacle(obstacle)
    for mesh in (NavMesh.from_polygons(room, obstacles=[obstacle], agent_radius=radius), edited):
        free = _free(mesh)
        assert shapely.distance(free, obstacle) >= radius - 1e-7
        assert shapely.distance(free, room.exterior) == pytest.approx(radius, abs=1e-7)
        # a wall's middle is at the radius, not 2% farther (0.7137)
        mid = np.mean(shapely.get_coordinates(obstacle)[:2], axis=0)
        assert shapely.distance(free, shapely.Point(mid)) == pytest.approx(radius, abs=1e-7)
