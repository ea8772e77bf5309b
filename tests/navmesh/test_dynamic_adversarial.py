"""Adversarial checks of navmeshes that change: odd obstacles and edit sequences against fresh builds."""

from __future__ import annotations

from typing import Any

import pytest
import shapely

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
