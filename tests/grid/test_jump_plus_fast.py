"""The JPS+ search kernel (gamenav._kernels.jump_plus.search_step) on sparse maps, where it runs
(not the dense-map A*): each expansion collects its successors before relaxing them and the
heap keeps its keys inline; costs must equal an independent Dijkstra's, paths must be valid,
and a sliced search must equal a one-shot one bit for bit."""

from __future__ import annotations

import re
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import gamenav
from gamenav.grid import jump_plus
from gamenav.grid.search import try_graph_path
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


def _stepped(grid: gamenav.TileGrid, a: object, b: object, budget: int) -> gamenav.Path:
    """A ``GridSearch(algorithm="jps")`` run to the end in steps of ``budget`` expansions."""
    search = gamenav.GridSearch(grid, a, b, algorithm="jps")  # type: ignore[arg-type]
    while not search.step(budget).done:
        pass
    return search.result()


@settings(max_examples=40, deadline=None)
@given(sparse_grids(), st.integers(0, 2**32 - 1), st.integers(1, 5))
def test_find_path_short_cut_answers_as_a_stepped_grid_search(grid, seed: int, budget: int) -> None:
    """``find_path(..., algorithm="jps")`` runs JPS+ without the GridSearch machinery
    (:func:`gamenav.grid.search.try_graph_path`): its answers, errors included, are those of a
    GridSearch stepped to the end, bit for bit, also after an edit (a repaired table), for bad
    or odd endpoints and with any world transform."""
    rng = np.random.default_rng(seed)
    grid = gamenav.TileGrid(grid.passable, cell_size=float(rng.choice([1.0, 0.5, 32.0])),
                            origin=(float(rng.uniform(-50, 50)), float(rng.uniform(-50, 50))),
                            y_up=bool(rng.integers(2)))
    h, w = grid.shape
    for query in range(8):
        if query == 4:
            x, y = int(rng.integers(0, w)), int(rng.integers(0, h))
            grid.set_walkable((x, y, min(w, x + 3), min(h, y + 2)), False)
        free = [(int(x), int(y)) for y, x in np.argwhere(grid.passable)]
        if len(free) < 2:
            return
        a: object = free[int(rng.integers(len(free)))]
        b: object = free[int(rng.integers(len(free)))]
        if query == 2:
            b = (int(rng.integers(0, w)), int(rng.integers(0, h)))  # maybe blocked
        if query == 3:
            b = (w + 3, 0)  # off the grid
        try:
            expected = _stepped(grid, a, b, budget)
        except gamenav.GamenavError as exc:
            with pytest.raises(type(exc), match=re.escape(str(exc))):
                gamenav.find_path(grid, a, b, algorithm="jps")  # type: ignore[arg-type]
            continue
        if expected.status is FOUND and a != b and not jump_plus.jump_index(grid).dense:
            assert try_graph_path(grid, a, b, "jps") is not None  # the short cut answers
        got = gamenav.find_path(grid, a, b, algorithm="jps")  # type: ignore[arg-type]
        assert (got.status, got.cost, got.expanded) == (expected.status, expected.cost, expected.expanded)
        np.testing.assert_array_equal(got.cells, expected.cells)
        np.testing.assert_array_equal(got.points, expected.points)
        assert not got.cells.flags.writeable and not got.points.flags.writeable


def test_find_path_short_cut_in_threads_answers_as_one_thread() -> None:
    """Concurrent ``find_path(..., algorithm="jps")`` calls each run on their own workspace:
    the same answers as one after the other."""
    rng = np.random.default_rng(7)
    walk = np.ones((60, 80), dtype=bool)
    for _ in range(30):
        x, y = int(rng.integers(0, 78)), int(rng.integers(0, 58))
        walk[y:y + 4, x:x + 6] = False
    grid = gamenav.TileGrid(walk)
    free = [(int(x), int(y)) for y, x in np.argwhere(walk)]
    queries = [(free[i], free[j]) for i, j in rng.integers(len(free), size=(200, 2))]
    expected = [_stepped(grid, a, b, 1_000_000) for a, b in queries]

    def run(part: int) -> list[gamenav.Path]:
        return [gamenav.find_path(grid, a, b, algorithm="jps") for a, b in queries[part::4]]

    with ThreadPoolExecutor(4) as pool:
        parts = list(pool.map(run, range(4)))
    for part, paths in enumerate(parts):
        for want, got in zip(expected[part::4], paths, strict=True):
            assert (got.status, got.cost, got.expanded) == (want.status, want.cost, want.expanded)
            np.testing.assert_array_equal(got.cells, want.cells)
