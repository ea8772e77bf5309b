"""JPS+ (gamenav.grid.jump_plus): repaired tables equal rebuilt ones, costs equal A*, on random
grids with random edits, a GPPC 2014 sample, sliced searches and searches that outlive an edit."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import gamenav
from gamenav.grid import jump_plus
from gamenav.io import read_scenarios
from tests.grid._reference import check_path

FOUND = gamenav.PathStatus.FOUND


@st.composite
def edited_grids(draw: st.DrawFn) -> tuple[gamenav.TileGrid, list[tuple[int, int, int, int, bool]]]:
    h = draw(st.integers(2, 24))
    w = draw(st.integers(2, 24))
    density = draw(st.sampled_from([0.05, 0.15, 0.3]))
    seed = draw(st.integers(0, 2**32 - 1))
    walk = np.random.default_rng(seed).random((h, w)) > density
    edits = draw(st.lists(st.tuples(st.integers(0, w - 1), st.integers(0, h - 1), st.integers(1, 4),
                                    st.integers(1, 4), st.booleans()), max_size=6))
    return gamenav.TileGrid(walk), edits


def _free(grid: gamenav.TileGrid) -> list[tuple[int, int]]:
    return [(int(x), int(y)) for y, x in np.argwhere(grid.passable)]


@settings(max_examples=60, deadline=None)
@given(edited_grids())
def test_repaired_table_equals_rebuilt_table(case) -> None:
    grid, edits = case
    index = jump_plus.jump_index(grid)
    for x, y, w, h, value in edits:
        grid.set_walkable((x, y, x + w, y + h), value)
        assert index.version == grid.version
        rebuilt = jump_plus.JumpIndex(grid.copy())
        np.testing.assert_array_equal(index.table(), rebuilt.table())


@settings(max_examples=60, deadline=None)
@given(edited_grids(), st.integers(0, 2**32 - 1))
def test_jps_costs_equal_astar_after_edits(case, seed: int) -> None:
    grid, edits = case
    rng = np.random.default_rng(seed)
    for x, y, w, h, value in [(0, 0, 0, 0, True), *edits]:
        if w:
            grid.set_walkable((x, y, x + w, y + h), value)
        free = _free(grid)
        if len(free) < 2:
            continue
        for _ in range(4):
            a, b = (free[i] for i in rng.integers(len(free), size=2))
            jps = gamenav.find_path(grid, a, b, algorithm="jps")
            astar = gamenav.find_path(grid, a, b)
            assert jps.status is astar.status
            if jps.status is FOUND:
                assert jps.cost == pytest.approx(astar.cost, abs=1e-9)
                assert check_path(grid, jps, a, b) == pytest.approx(jps.cost, abs=1e-9)


def _open_room(n: int = 60) -> gamenav.TileGrid:
    """Rooms with doors: few jump points, so the JPS+ search (not the dense-map A*) runs."""
    walk = np.ones((n, n), dtype=bool)
    walk[::15, :] = False
    walk[:, ::15] = False
    walk[7::15, :] = True
    walk[:, 7::15] = True
    return gamenav.TileGrid(walk)


def test_open_maps_use_the_table_and_dense_maps_use_astar() -> None:
    grid = _open_room()
    search = gamenav.GridSearch(grid, (1, 1), (58, 58), algorithm="jps")
    assert search._plus is not None and not jump_plus.jump_index(grid).dense
    dense = gamenav.TileGrid(np.random.default_rng(0).random((40, 40)) > 0.3)
    free = _free(dense)
    jps = gamenav.find_path(dense, free[0], free[-1], algorithm="jps")
    assert jump_plus.jump_index(dense).dense
    assert jps.cost == pytest.approx(gamenav.find_path(dense, free[0], free[-1]).cost)


@pytest.mark.parametrize("budget", [1, 3, 50])
def test_sliced_jps_plus_equals_one_shot(budget: int) -> None:
    grid = _open_room()
    whole = gamenav.find_path(grid, (1, 1), (58, 57), algorithm="jps")
    search = gamenav.GridSearch(grid, (1, 1), (58, 57), algorithm="jps")
    while not search.step(budget).done:
        partial = search.partial_result()
        assert partial.status is gamenav.PathStatus.PARTIAL
        assert tuple(partial.cells[0]) == (1, 1)
        check_path(grid, partial, (1, 1), tuple(partial.cells[-1]))
    result = search.result()
    assert result.cost == whole.cost
    np.testing.assert_array_equal(result.cells, whole.cells)


def test_a_search_keeps_its_snapshot_across_an_edit() -> None:
    grid = _open_room()
    before = grid.copy()
    search = gamenav.GridSearch(grid, (1, 1), (58, 58), algorithm="jps")
    search.step(2)
    table = search._plus.table
    grid.set_walkable((7, 0, 8, 60), False)  # close every door of one column of walls
    assert jump_plus.jump_index(grid).table() is not table  # repaired a copy
    search.step()
    result = search.result()
    assert result.cost == pytest.approx(gamenav.find_path(before, (1, 1), (58, 58)).cost)
    check_path(before, result, (1, 1), (58, 58))
    after = gamenav.find_path(grid, (1, 1), (58, 58), algorithm="jps", partial=True)
    assert after.status is not FOUND  # the map is now cut in two


def test_gppc_sample_is_optimal(shared_benchmarks: Path | None) -> None:
    folder = None if shared_benchmarks is None else shared_benchmarks / "gppc-2014"
    if folder is None or not folder.is_dir():
        if os.environ.get("CI"):
            pytest.fail(f"no GPPC maps under {shared_benchmarks} (set GAMENAV_BENCHMARKS)")
        pytest.skip("../shared/benchmarks/gppc-2014 is not present")
    grid = gamenav.TileGrid.from_movingai(folder / "Cauldron.map")
    scenarios = read_scenarios(folder / "Cauldron.map.scen")
    picks = np.linspace(0, len(scenarios) - 1, 30).round().astype(int)
    for s in (scenarios[i] for i in picks):
        path = gamenav.find_path(grid, s.start, s.goal, algorithm="jps")
        assert path.status is FOUND
        assert abs(path.cost - s.optimal_length) <= max(0.011, 1e-5 * s.optimal_length), s
        assert check_path(grid, path, s.start, s.goal) == pytest.approx(path.cost, abs=1e-9)
