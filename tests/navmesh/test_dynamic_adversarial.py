"""Adversarial checks of navmeshes that change: odd obstacles and edit sequences against fresh builds."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import shapely

import gamenav
from gamenav import NavMesh
from gamenav._kernels.dynamic import stitch
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
