"""Grid indexes repaired under edits (JPS+ tables, subgoal graphs, HPA* graphs, clearances, distance
fields): after any sequence of edits, from any place (listeners included), a repaired index answers
as one built fresh on a copy of the edited grid, and the optimal searches cost what A* costs."""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import gamenav
from gamenav.grid import hpa, jump_plus, subgoal
from gamenav.grid.tilegrid import MAX_COST
from tests.grid.test_hpa import _assert_same_graph

FOUND = gamenav.PathStatus.FOUND

Edit = tuple[str, int, int, int, int, int]
"""``(kind, x, y, width, height, seed)``: one edit of :func:`_apply` (rectangles may leave the map)."""


def _apply(grid: gamenav.TileGrid, edit: Edit) -> None:
    kind, x, y, dw, dh, seed = edit
    rng = np.random.default_rng(seed)
    h, w = grid.shape
    rect = (x, y, x + dw, y + dh)
    if kind == "wall":
        grid.set_walkable(rect, bool(seed & 1))
    elif kind == "mask":
        grid.set_walkable(rng.random((h, w)) < 0.2, bool(seed & 1))
    elif kind == "cost":  # inf blocks; finite costs make the grid weighted until reset
        grid.set_cost(rect, (1.0, math.inf, 2.0, MAX_COST)[seed % 4])
    elif kind == "mixed":  # blocks some cells and opens others in one edit
        grid.set_cost(rng.random((h, w)) < 0.3, np.where(rng.random((h, w)) < 0.5, math.inf, 1.0))
    elif kind == "toggle":  # one cell back and forth: a version per flip
        cx, cy = x % w, y % h
        for _ in range(1 + seed % 3):
            grid.set_walkable((cx, cy), not grid.passable[cy, cx])
    elif kind == "all":  # every cell blocked, or every cell opened
        grid.set_walkable((0, 0, w, h), bool(seed & 1))
    else:
        grid.set_cost((0, 0, w, h), 1.0)


@st.composite
def _cases(draw: st.DrawFn) -> tuple[gamenav.TileGrid, int, list[Edit]]:
    h = draw(st.integers(1, 14))
    w = draw(st.integers(2 if h == 1 else 1, 14))  # 1 x N and N x 1 maps too
    seed = draw(st.integers(0, 2**32 - 1))
    density = draw(st.sampled_from([0.0, 0.15, 0.35]))
    walk = np.random.default_rng(seed).random((h, w)) >= density
    grid = gamenav.TileGrid(walk, y_up=draw(st.booleans()))
    kinds = st.sampled_from(["wall", "mask", "cost", "mixed", "toggle", "all", "uniform"])
    edits = draw(st.lists(st.tuples(kinds, st.integers(-2, w), st.integers(-2, h), st.integers(1, 4),
                                    st.integers(1, 4), st.integers(0, 2**16)), min_size=1, max_size=6))
    return grid, draw(st.integers(4, 6)), edits


def _free(grid: gamenav.TileGrid) -> list[tuple[int, int]]:
    return [(int(x), int(y)) for y, x in np.argwhere(grid.passable)]


def _assert_like_fresh(grid: gamenav.TileGrid, hpa_index: hpa.HpaIndex, rng: np.random.Generator) -> None:
    """Every index of ``grid`` (repaired) equals one built on a copy, and answers queries alike."""
    fresh = _assert_same_graph(hpa_index, grid)
    jumps, fresh_jumps = jump_plus.jump_index(grid), jump_plus.JumpIndex(fresh)
    assert jumps.version == grid.version
    np.testing.assert_array_equal(jumps.table(), fresh_jumps.table())
    assert jumps.jump_share == fresh_jumps.jump_share
    graph, fresh_graph = subgoal.subgoal_index(grid), subgoal.SubgoalIndex(fresh)
    assert graph.nodes == fresh_graph.nodes and graph.edge_set() == fresh_graph.edge_set()
    np.testing.assert_array_equal(gamenav.clearance_field(grid), gamenav.clearance_field(fresh))
    free = _free(grid)
    for _ in range(3 if free else 0):
        a, b = (free[i] for i in rng.integers(len(free), size=2))
        best = gamenav.find_path(fresh, a, b)
        for algorithm in ("jps", "subgoal", "hpa") if grid.uniform_cost else ():
            path = gamenav.find_path(grid, a, b, algorithm=algorithm)
            assert path.status is best.status, (algorithm, a, b)
            if algorithm == "hpa":
                again = gamenav.find_path(fresh, a, b, algorithm="hpa")
                assert path.cost == again.cost
                np.testing.assert_array_equal(path.cells, again.cells)
            elif path.status is FOUND:
                assert path.cost == pytest.approx(best.cost, abs=1e-9), (algorithm, a, b)
        for radius in (0.6, 1.6):
            if gamenav.clearance_mask(fresh, radius)[a[1], a[0]]:
                path = gamenav.find_path(grid, a, b, agent_radius=radius, partial=True)
                again = gamenav.find_path(fresh, a, b, agent_radius=radius, partial=True)
                assert path.status is again.status and path.cost == again.cost
                np.testing.assert_array_equal(path.cells, again.cells)
        np.testing.assert_array_equal(gamenav.distance_field(grid, a), gamenav.distance_field(fresh, a))


def _indexes(grid: gamenav.TileGrid, size: int) -> hpa.HpaIndex:
    """Build every index of ``grid`` (the clearance too) before the edits; the HPA* one."""
    gamenav.prepare(grid, "jps", "subgoal")
    gamenav.clearance_field(grid)
    return hpa.hpa_index(grid, cluster_size=size, spacing=2, single=2)


@settings(max_examples=25, deadline=None)
@given(_cases(), st.integers(0, 2**32 - 1))
def test_random_edits_leave_every_index_as_a_fresh_build(case: tuple[gamenav.TileGrid, int, list[Edit]],
                                                         seed: int) -> None:
    grid, size, edits = case
    hpa_index = _indexes(grid, size)
    rng = np.random.default_rng(seed)
    for edit in edits:
        _apply(grid, edit)
        _assert_like_fresh(grid, hpa_index, rng)


@settings(max_examples=15, deadline=None)
@given(_cases(), st.integers(0, 2**32 - 1), st.booleans())
def test_edits_made_by_listeners_leave_every_index_as_a_fresh_build(
        case: tuple[gamenav.TileGrid, int, list[Edit]], seed: int, listener_first: bool) -> None:
    """A listener heard before or after the indexes edits the grid again (applied at once, reported
    after the current change) and searches it on every change."""
    grid, size, edits = case
    rng = np.random.default_rng(seed)
    nested = iter(edits[1:])
    answers: list[tuple[gamenav.PathStatus, gamenav.PathStatus]] = []

    def edit_again(change: gamenav.GridChange) -> None:
        again = next(nested, None)
        if again is not None:
            _apply(grid, again)
        free = _free(grid)
        if len(free) > 1 and grid.uniform_cost:
            a, b = free[0], free[-1]
            answers.append((gamenav.find_path(grid, a, b, algorithm="jps").status,
                            gamenav.find_path(grid.copy(), a, b).status))

    unsubscribe = grid.subscribe(edit_again) if listener_first else None
    hpa_index = _indexes(grid, size)
    if unsubscribe is None:
        unsubscribe = grid.subscribe(edit_again)
    _apply(grid, edits[0])
    unsubscribe()
    _assert_like_fresh(grid, hpa_index, rng)
    assert all(got is expected for got, expected in answers)


@pytest.mark.parametrize(("cost", "scale", "match"), [
    (MAX_COST, lambda: np.float64(1e300), "cost_scale is too large"),  # the product overflows
    pytest.param(1.0, lambda: np.longdouble(10) ** 400, r"finite numbers > 0, got inf at cell \(0, 0\)",
                 marks=pytest.mark.skipif(np.finfo(np.longdouble).max <= np.finfo(np.float64).max,
                                          reason="longdouble is float64 here")),  # the cast overflows
])
def test_a_cost_scale_beyond_float64_raises_only_the_input_error(cost: float, scale: Callable[[], np.floating],
                                                                 match: str) -> None:
    """Cell costs scaled beyond float64 (MAX_COST x 1e300, or a longdouble 1e400 scale) were refused
    with InvalidInputError after numpy had warned of the overflow (an error of its own where warnings
    are errors)."""
    grid = gamenav.TileGrid(np.ones((2, 3), dtype=bool), cost=np.full((2, 3), cost))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(gamenav.InvalidInputError, match=match):
            gamenav.distance_field(grid, (0, 0), cost_scale=np.full((2, 3), scale()))


@pytest.mark.parametrize(("setting", "value"), [("cluster_size", 0), ("cluster_size", 1), ("cluster_size", 3),
                                                ("spacing", 0), ("single", -1), ("cluster_size", True),
                                                ("cluster_size", 2**31), ("spacing", 4.0),
                                                ("spacing", np.timedelta64(5))])
def test_an_hpa_index_made_directly_checks_its_settings(setting: str, value: object) -> None:
    """HpaIndex checked nothing (only hpa_index did): cluster_size=0 raised ZeroDivisionError and
    1 wrote up to 8 border steps per node into rows of 5 inside a kernel (IndexError under
    NUMBA_BOUNDSCHECK, memory overwritten without); both took a timedelta64 (an np.integer) as an int."""
    grid = gamenav.TileGrid(np.ones((9, 9), dtype=bool))
    for make in (hpa.HpaIndex, hpa.hpa_index):
        with pytest.raises(gamenav.InvalidInputError, match=f"{setting} must be an int from"):
            make(grid, **{setting: value})  # type: ignore[operator]


@pytest.mark.parametrize(("sources", "cost_scale", "match"), [
    ((np.timedelta64(1), 0), None, "sources must be an"),
    ([(0, 0), (np.timedelta64(1), np.timedelta64(0))], None, "sources must be an"),
    (np.array([[1, 0]], dtype="m8"), None, "sources must be an"),
    ((0, 0), np.full((2, 3), np.timedelta64(2)), "cost_scale must be a 2 x 3 array of numbers"),
])
def test_a_field_refuses_timedeltas_as_cells_or_costs(sources: object, cost_scale: object, match: str) -> None:
    """numpy counts timedelta64 as an integer type: distance_field read (timedelta64(1), 0) as the
    cell (1, 0) and a timedelta64(2) cost_scale as 2 (find_path refuses such cells)."""
    grid = gamenav.TileGrid(np.ones((2, 3), dtype=bool))
    with pytest.raises(gamenav.InvalidInputError, match=match):
        gamenav.distance_field(grid, sources, cost_scale=cost_scale)  # type: ignore[arg-type]


def test_an_hpa_index_made_directly_takes_none_for_a_default_setting() -> None:
    """hpa_index reads None as the default setting; HpaIndex raised a bare TypeError from int(None)."""
    grid = gamenav.TileGrid(np.ones((9, 9), dtype=bool))
    made = hpa.HpaIndex(grid, cluster_size=None, spacing=None, single=None)
    assert (made.size, made.spacing, made.single) == (hpa.CLUSTER_SIZE, hpa.SPACING, hpa.SINGLE)
