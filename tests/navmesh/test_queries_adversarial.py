"""Adversarial review of navmesh queries and search: hostile numbers, scales and budgets."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import gamenav
from gamenav import NavMesh, NavMeshSearch
from gamenav.io import read_mesh, read_mesh_scenarios


@pytest.mark.parametrize("exact", [True, False], ids=["exact", "default"])
def test_a_mesh_scaled_by_a_power_of_two_is_searched_alike(data_dir: Path, exact: bool) -> None:
    """Scaling by 2**-40 is exact in floats, so a search must expand the same nodes and return the
    same path, scaled; the exact search's root pruning once used an absolute 1e-9 slack, larger
    than whole paths at this scale, so it pruned nothing and ran out of memory on Iron Harvest."""
    base = data_dir / "meshes/iron-harvest/scene_mp_2p_01.mesh"
    data = read_mesh(base)
    scale = 2.0 ** -40
    mesh = NavMesh.from_mesh(data.vertices, data.polygons)
    tiny = NavMesh.from_mesh(np.asarray(data.vertices) * scale, data.polygons)
    for s in read_mesh_scenarios(str(base) + ".scen")[::100]:
        one = gamenav.find_path(mesh, s.start, s.goal, exact=exact)
        search = NavMeshSearch(tiny, np.multiply(s.start, scale), np.multiply(s.goal, scale), exact=exact)
        assert search.step(max(one.expanded, 1)).done, s
        path = search.result()
        assert path.expanded == one.expanded
        np.testing.assert_array_equal(path.points, one.points * scale)
        assert path.cost == one.cost * scale
