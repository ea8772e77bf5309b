"""Oracle tests: Polyanya's edge-case meshes and the Iron Harvest benchmark (exact Euclidean costs)."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
import shapely

import gamenav
from gamenav import NavMesh, PathStatus
from gamenav.io import read_mesh, read_mesh_scenarios

POLYANYA = ["bad-ambig", "bad-collinear", "bad-collinear2-rot0", "bad-collinear2-rot45",
            "bad-collinear2-rot90", "square"]

# Two upstream costs are rounded as if the points sat on the pinch corner (1, 1): the exact
# lengths for the real query points, worked out by hand from the meshes, are checked tightly.
EXACT = {
    ("bad-ambig", 0): 2 * math.hypot(0.01, 0.99) + 2.0,
    ("bad-collinear", 0): math.hypot(0.001, 0.999) + 3.0 + math.sqrt(2.0) + math.hypot(1.999, 0.001),
}


@pytest.mark.parametrize("exact", [True, False], ids=["exact", "default"])
@pytest.mark.parametrize("name", POLYANYA)
def test_polyanya_edge_cases_give_expected_costs(data_dir: Path, name: str, exact: bool) -> None:
    mesh = NavMesh.from_mesh(*read_mesh(data_dir / f"meshes/polyanya/{name}.mesh"))
    for i, s in enumerate(read_mesh_scenarios(data_dir / f"meshes/polyanya/{name}.scen")):
        path = gamenav.find_path(mesh, s.start, s.goal, exact=exact)
        if s.cost < 0:
            assert path.status is PathStatus.NO_PATH, (name, i)
            assert len(path) == 0 and path.cost == math.inf
            continue
        assert path.status is PathStatus.FOUND, (name, i)
        assert path.cost == pytest.approx(s.cost, abs=0.025), (name, i)
        assert path.cost == pytest.approx(EXACT.get((name, i), s.cost), rel=1e-9), (name, i)


def test_pinch_point_is_not_a_passage(data_dir: Path) -> None:
    """bad-ambig: two squares touch only at (1, 1); the path must go round (cost ~4, not 0.03)."""
    mesh = NavMesh.from_mesh(*read_mesh(data_dir / "meshes/polyanya/bad-ambig.mesh"))
    path = gamenav.find_path(mesh, (0.99, 1.01), (1.01, 0.99), exact=True)
    assert path.cost > 3.9
    assert not np.any(np.all(path.points == (1.0, 1.0), axis=1))


def test_hard_mesh_exact_never_longer_than_default(data_dir: Path) -> None:
    mesh = NavMesh.from_mesh(*read_mesh(data_dir / "meshes/polyanya/hard.mesh"))
    rng = np.random.default_rng(7)
    lo, hi = mesh.vertices.min(axis=0), mesh.vertices.max(axis=0)
    pts = rng.uniform(lo, hi, size=(400, 2))
    pts = pts[mesh.locate(pts) >= 0]
    found = 0
    for a, b in zip(pts[::2], pts[1::2], strict=False):
        ex = gamenav.find_path(mesh, a, b, exact=True)
        de = gamenav.find_path(mesh, a, b)
        assert ex.status is de.status
        if ex.found:
            found += 1
            assert ex.cost <= de.cost * (1 + 1e-12)
            assert ex.cost >= math.dist(a, b) * (1 - 1e-12)
    assert found > 20


def test_merged_convex_polygons_give_the_same_exact_costs_as_the_cdt(data_dir: Path) -> None:
    """arena-merged (convex polygons, 180-degree corners) covers the same free space as arena (CDT)."""
    cdt = NavMesh.from_mesh(*read_mesh(data_dir / "meshes/polyanya/arena.mesh"))
    merged = NavMesh.from_mesh(*read_mesh(data_dir / "meshes/polyanya/arena-merged.mesh"))
    for s in read_mesh_scenarios(data_dir / "meshes/polyanya/arena.scen"):
        a = gamenav.find_path(cdt, s.start, s.goal, exact=True)
        b = gamenav.find_path(merged, s.start, s.goal, exact=True)
        assert a.found and b.found
        assert a.cost == pytest.approx(b.cost, rel=1e-9)
        assert a.cost >= math.dist(s.start, s.goal) * (1 - 1e-12)
        assert gamenav.find_path(merged, s.start, s.goal).cost >= b.cost * (1 - 1e-12)


@pytest.fixture(scope="module")
def iron_harvest(data_dir: Path) -> tuple[NavMesh, NavMesh, list]:
    base = data_dir / "meshes/iron-harvest/scene_mp_2p_01.mesh"
    data = read_mesh(base)
    imported = NavMesh.from_mesh(*data)
    free = shapely.coverage_union_all(shapely.polygons(data.vertices[np.array(data.polygons)]))
    rebuilt = NavMesh.from_polygons(free)
    return imported, rebuilt, read_mesh_scenarios(str(base) + ".scen")


@pytest.mark.parametrize("which", [0, 1], ids=["imported", "from_polygons"])
def test_iron_harvest_exact_matches_oracle_on_every_query(iron_harvest, which: int) -> None:
    mesh, scen = iron_harvest[which], iron_harvest[2]
    for i, s in enumerate(scen):
        path = gamenav.find_path(mesh, s.start, s.goal, exact=True)
        assert path.found, i
        assert path.cost == pytest.approx(s.cost, rel=1e-6), (i, s)


@pytest.mark.parametrize("which", [0, 1], ids=["imported", "from_polygons"])
def test_iron_harvest_default_mode_is_within_one_percent_on_average(iron_harvest, which: int) -> None:
    mesh, scen = iron_harvest[which], iron_harvest[2]
    ratios = []
    for s in scen:
        path = gamenav.find_path(mesh, s.start, s.goal)
        assert path.found
        ratios.append(path.cost / s.cost)
    ratios = np.array(ratios)
    assert ratios.min() >= 1 - 1e-6  # never shorter than the true shortest path
    assert ratios.mean() <= 1.01


def test_iron_harvest_free_space_keeps_pinch_points_apart(iron_harvest) -> None:
    imported, rebuilt, _ = iron_harvest
    assert imported.islands.max() == rebuilt.islands.max()
    assert rebuilt.triangles.shape[0] == imported.triangles.shape[0]
