"""Default-mode (portal A* + funnel) path quality on grid-built meshes, exact mode as the oracle."""

from __future__ import annotations

import numpy as np
import pytest
import shapely
from hypothesis import given, settings
from hypothesis import strategies as st

import gamenav
import gamenav.navmesh.search as nav_search

BOUND = 1.03
"""Default length / exact length allowed on random small maps: the search's weight ``_W`` of
:mod:`gamenav._kernels.navmesh`. Its stopping rule keeps the path within ``_W`` of the best
path among the labels it keeps; dropping dominated labels (``_DOMINANCE``) is a heuristic, so
this is a measured bound, not a proof: the worst of 16,000 random queries of this generator
was 1.011, and benchmarks/navmesh_quality.py measures the benchmark maps."""


@st.composite
def grid_queries(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    w = draw(st.integers(3, 14))
    h = draw(st.integers(3, 14))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    walk = rng.random((h, w)) > draw(st.sampled_from([0.1, 0.2, 0.3]))
    walk[0, 0] = walk[-1, -1] = True
    free = np.argwhere(walk)[:, ::-1].astype(np.float64)
    pts = free[rng.integers(len(free), size=(6, 2))] + rng.uniform(0.05, 0.95, size=(6, 2, 2))
    return walk, pts[:, 0], pts[:, 1]


@settings(max_examples=60, deadline=None)
@given(grid_queries())
def test_default_near_exact_and_inside_free_space(case: tuple[np.ndarray, np.ndarray, np.ndarray]) -> None:
    walk, starts, goals = case
    mesh = gamenav.NavMesh.from_grid(gamenav.TileGrid(walk))
    cells = np.argwhere(walk)
    free = shapely.union_all(shapely.box(cells[:, 1], cells[:, 0], cells[:, 1] + 1, cells[:, 0] + 1))
    roomy = free.buffer(1e-7)
    for s, g in zip(starts, goals, strict=True):
        exact = gamenav.find_path(mesh, s, g, exact=True)
        path = gamenav.find_path(mesh, s, g)
        assert path.status == exact.status
        if exact.status != gamenav.PathStatus.FOUND:
            continue
        assert exact.cost - 1e-9 <= path.cost <= BOUND * exact.cost + 1e-9
        assert roomy.covers(shapely.LineString(path.points)) if len(path.points) > 1 else True
        sliced = gamenav.NavMeshSearch(mesh, s, g)
        while not sliced.step(3).done:
            pass
        np.testing.assert_array_equal(sliced.result().points, path.points)



def test_label_arrays_grow_mid_search(monkeypatch: pytest.MonkeyPatch) -> None:
    """Label arrays that fill up many times (grown between kernel calls): same paths, sliced or not."""
    rng = np.random.default_rng(7)
    walk = rng.random((40, 40)) > 0.2
    walk[:36, 20] = False
    walk[1, 15] = walk[1, 25] = True
    mesh = gamenav.NavMesh.from_grid(gamenav.TileGrid(walk))
    s, g = (15.5, 1.5), (25.5, 1.5)
    path = gamenav.find_path(mesh, s, g)
    monkeypatch.setattr(nav_search, "_LABELS", 8)
    for budget in (None, 1, 5):
        small = gamenav.NavMeshSearch(mesh, s, g)
        while not small.step(budget).done:
            pass
        np.testing.assert_array_equal(small.result().points, path.points)
        np.testing.assert_array_equal(small.result().corridor, path.corridor)
        assert small.expanded == path.expanded
    exact = gamenav.find_path(mesh, s, g, exact=True)
    assert exact.cost - 1e-9 <= path.cost <= BOUND * exact.cost
