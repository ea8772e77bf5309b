"""The JPS+ search kernel (gamenav._kernels.jump_plus.search_step) on sparse maps, where it runs
(not the dense-map A*): each expansion collects its successors before relaxing them and the
heap keeps its keys inline; costs must equal an independent Dijkstra's, paths must be valid,
and a sliced search must equal a one-shot one bit for bit."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import gamenav
from gamenav.grid import jump_plus
from tests.grid._reference import check_path, dijkstra

FOUND = gamenav.PathStatus.FOUND


@st.composite
def sparse_grids(draw: st.DrawFn) -> gamenav.TileGrid:
    """Open grids with a few rectangular obstacles (few jump points: JPS+ runs)."""
    h = draw(st.integers(8, 40))
    w = draw(st.integers(8, 40))
    walk = np.ones((h, w), dtype=bool)
    for _ in range(draw(st.integers(0, 6))):
        x, y = draw(st.integers(0, w - 1)), draw(st.integers(0, h - 1))
        walk[y:y + draw(st.integers(1, 6)), x:x + draw(st.integers(1, 6))] = False
    return gamenav.TileGrid(walk)


@settings(max_examples=80, deadline=None)
@given(sparse_grids(), st.integers(0, 2**32 - 1), st.integers(1, 7))
def test_jps_plus_costs_are_optimal_and_sliced_equals_one_shot(grid, seed: int, budget: int) -> None:
    free = [(int(x), int(y)) for y, x in np.argwhere(grid.passable)]
    if len(free) < 2:
        return
    rng = np.random.default_rng(seed)
    a, b = (free[i] for i in rng.integers(len(free), size=2))
    search = gamenav.GridSearch(grid, a, b, algorithm="jps")
    if a != b and search.status is not gamenav.PathStatus.NO_PATH:
        assert search._plus is not None and not jump_plus.jump_index(grid).dense  # JPS+ runs
    while not search.step(budget).done:
        pass
    sliced = search.result()
    whole = gamenav.find_path(grid, a, b, algorithm="jps")
    assert sliced.status is whole.status and sliced.cost == whole.cost
    assert sliced.expanded == whole.expanded
    np.testing.assert_array_equal(sliced.cells, whole.cells)
    best = dijkstra(grid, [a])[b[1], b[0]]
    if not np.isfinite(best):
        assert whole.status is gamenav.PathStatus.NO_PATH
        return
    assert whole.status is FOUND
    assert whole.cost == pytest.approx(best, abs=1e-9)
    assert check_path(grid, whole, a, b) == pytest.approx(whole.cost, abs=1e-9)


def test_an_expansion_with_a_successor_at_every_diagonal_step() -> None:
    # every other cell of row 1 and of column 38 blocked: from each cell of the start's
    # north-east scan, the scan north (odd columns) or east (odd rows) meets a jump point in
    # row 0 or column 39, so the start's expansion finds about 40 successors, which all wait in
    # the search's successor rows before being relaxed
    walk = np.ones((40, 40), dtype=bool)
    walk[1, ::2] = False
    walk[::2, 38] = False
    grid = gamenav.TileGrid(walk)
    start = (0, 39)
    costs = dijkstra(grid, [start])
    for goal in [(1, 0), (39, 1), (21, 0), (39, 21), (20, 20)]:
        search = gamenav.GridSearch(grid, start, goal, algorithm="jps")
        assert search._plus is not None  # JPS+, not the dense-map A*
        search.step()
        path = search.result()
        assert path.status is FOUND
        assert path.cost == pytest.approx(costs[goal[1], goal[0]], abs=1e-9)
        assert check_path(grid, path, start, goal) == pytest.approx(path.cost, abs=1e-9)
