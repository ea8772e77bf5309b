"""Adversarial checks of navmeshes that change: odd obstacles and edit sequences against fresh builds."""

from __future__ import annotations

from typing import Any

import pytest
import shapely

import gamenav
from gamenav import NavMesh
from gamenav.errors import InvalidGeometryError

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
