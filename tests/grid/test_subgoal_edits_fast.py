"""Subgoal graphs after edits (gamenav.grid.subgoal): the landmarks are placed by geometry and
their distance rows repaired with the graph, so the first query after an edit runs no Dijkstra
over the graph and answers as a grid built with the edited cells."""

from __future__ import annotations

import heapq
import math
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import gamenav
from gamenav._kernels import subgoal as _ks
from gamenav.grid import subgoal


def _rows(index: subgoal.SubgoalIndex) -> tuple[Any, ...]:
    """The landmarks by cell (node ids differ between a repair and a build): each row's
    landmark cell, whether it is used and its entry for every subgoal's cell."""
    gr = index._data
    marks = gr.marks
    np.testing.assert_array_equal(marks.by_node, marks.dist.T)
    ids = np.flatnonzero(gr.ncell >= 0)
    order = np.argsort(gr.ncell[ids])
    return (marks.cells.tobytes(), marks.use.tobytes(), gr.ncell[ids][order].tobytes(),
            marks.dist[:, ids[order]].tobytes())


def _blocks_in_build_order(index: subgoal.SubgoalIndex) -> bool:
    gr = index._data
    for u in np.flatnonzero(gr.ncell >= 0).tolist():
        e = gr.adj[gr.off[u]:gr.off[u] + gr.cnt[u]]
        key = ((e >> 2) & _ks.COORD_MASK) << 17 | ((e >> _ks.X_SHIFT) & _ks.COORD_MASK)
        if np.any(np.diff(key) <= 0):
            return False
    return True


@st.composite
def _edited(draw: st.DrawFn) -> tuple[np.ndarray, list[tuple[int, int, int, int, bool]]]:
    h = draw(st.integers(2, 26))
    w = draw(st.integers(2, 26))
    density = draw(st.sampled_from([0.0, 0.1, 0.25, 0.4]))
    walk = np.random.default_rng(draw(st.integers(0, 2**32 - 1))).random((h, w)) >= density
    edits = draw(st.lists(st.tuples(st.integers(-1, w - 1), st.integers(-1, h - 1), st.integers(1, 6),
                                    st.integers(1, 6), st.booleans()), min_size=1, max_size=8))
    return walk, edits


@settings(max_examples=120, deadline=None)
@given(_edited())
def test_repaired_landmark_rows_equal_a_build(case: tuple[np.ndarray, list[tuple[int, int, int, int, bool]]]) -> None:
    """After every edit (before any query): each landmark's cell and distance row equals those of
    a grid built with the edited cells, entry for entry, and every edge block is in a build's
    order (the old code left the rows and blocks to the first query after the edit)."""
    walk, edits = case
    grid = gamenav.TileGrid(walk)
    index = subgoal.subgoal_index(grid)
    for x, y, dw, dh, value in edits:
        grid.set_walkable((x, y, x + dw, y + dh), value)
        assert _rows(index) == _rows(subgoal.SubgoalIndex(grid.copy()))
        assert _blocks_in_build_order(index)


def _rooms(seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    walk = np.ones((90, 120), dtype=bool)
    for _ in range(60):
        x, y = rng.integers(0, 112), rng.integers(0, 82)
        walk[y:y + rng.integers(2, 8), x:x + rng.integers(2, 8)] = False
    return walk


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_first_query_after_an_edit_runs_no_landmark_dijkstra(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """4 x 4 blocks placed: each edit computes again only the rows whose landmark moved (the
    others are repaired), and the first query after it none (it spread all 96 landmarks again:
    0.12-1.2 s CPU on AR0011SR and the GPPC maps); its answer equals a fresh build's."""
    grid = gamenav.TileGrid(_rooms(seed))
    index = subgoal.subgoal_index(grid)
    computed: list[int] = []
    distances = subgoal.SubgoalIndex._distances
    monkeypatch.setattr(subgoal.SubgoalIndex, "_distances",
                        lambda self, graph, src: computed.append(src) or distances(self, graph, src))
    rng = np.random.default_rng(seed)
    free = np.argwhere(grid.walkable[20:70, 20:100]) + (20, 20)
    moved = 0
    for _ in range(6):
        y, x = (int(v) for v in free[rng.integers(len(free))])
        cells = index._data.marks.cells.copy()
        grid.set_walkable((x, y, x + 4, y + 4), False)
        after = index._data.marks.cells
        assert len(computed) == np.count_nonzero((after != cells) & (after >= 0))
        moved += len(computed)
        computed.clear()
        a, b = (1, 1), (118, 88)
        got = gamenav.find_path(grid, a, b, algorithm="subgoal")
        assert computed == []
        built = gamenav.TileGrid(grid.walkable)
        want = gamenav.find_path(built, a, b, algorithm="subgoal")
        computed.clear()  # (by the build)
        assert (got.cost, got.expanded, got.cells.tobytes()) == (want.cost, want.expanded, want.cells.tobytes())
        assert got.cost == pytest.approx(gamenav.find_path(grid, a, b).cost, abs=1e-9)
    assert moved < subgoal.LANDMARKS  # (most rows repaired)


def test_a_landmark_whose_subgoal_goes_is_placed_again() -> None:
    """Blocking the corner that made a landmark's subgoal moves it (to the subgoal now nearest its
    anchor, as a build places it) and computes its row again."""
    walk = np.ones((30, 40), dtype=bool)
    walk[10:20, 15:25] = False
    grid = gamenav.TileGrid(walk)
    index = subgoal.subgoal_index(grid)
    before = index._data.marks.cells.copy()
    grid.set_walkable((14, 9, 26, 21), False)  # grow the block: its corners move out by one
    after = index._data.marks.cells
    assert not np.array_equal(before[index._data.marks.use], after[index._data.marks.use])
    assert _rows(index) == _rows(subgoal.SubgoalIndex(grid.copy()))


def test_rows_over_16_bit_counts_come_back_when_an_edit_shortens_the_paths() -> None:
    """A hairpin whose paths run over 65 535 straight steps has no usable row; an edit opening
    its wall makes them fit, as on a grid built so (and blocking it again drops them)."""
    walk = np.ones((5, 70_000), dtype=bool)
    walk[2, :-1] = False
    walk[0, 5] = walk[4, 5] = False
    grid = gamenav.TileGrid(walk)
    index = subgoal.subgoal_index(grid)
    assert index.landmarks_current == 0
    grid.set_walkable((35_000, 2), True)
    assert index.landmarks_current > 0
    assert _rows(index) == _rows(subgoal.SubgoalIndex(grid.copy()))
    grid.set_walkable((35_000, 2), False)
    assert index.landmarks_current == 0
    path = gamenav.find_path(grid, (1, 0), (1, 4), algorithm="subgoal")
    assert path.cost == pytest.approx(gamenav.find_path(grid, (1, 0), (1, 4)).cost)


def test_an_edit_while_a_query_holds_the_graph_leaves_its_landmarks() -> None:
    """A held graph is copied by an edit (see GridIndex): its landmark rows too, so a search that
    holds it reads the rows of its own version."""
    grid = gamenav.TileGrid(_rooms(3))
    index = subgoal.subgoal_index(grid)
    held = index.acquire(grid._snapshot())
    assert held is not None
    rows = held.marks.dist.copy()
    try:
        grid.set_walkable((50, 40, 54, 44), False)
        assert index._data is not held and index._data.marks is not held.marks
        np.testing.assert_array_equal(held.marks.dist, rows)
    finally:
        index.release(held)
    assert _rows(index) == _rows(subgoal.SubgoalIndex(grid.copy()))


@settings(max_examples=40, deadline=None)
@given(_edited())
def test_a_graph_growing_past_the_landmark_budget_keeps_its_first_rows(
        case: tuple[np.ndarray, list[tuple[int, int, int, int, bool]]]) -> None:
    """Big graphs get fewer landmarks (LANDMARK_BUDGET, here small): an edit that changes how many
    keeps the first rows (repaired), computes the new ones, and equals a build."""
    walk, edits = case
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(subgoal, "LANDMARK_BUDGET", 300)
        grid = gamenav.TileGrid(walk)
        index = subgoal.subgoal_index(grid)
        for x, y, dw, dh, value in edits:
            grid.set_walkable((x, y, x + dw, y + dh), value)
            assert _rows(index) == _rows(subgoal.SubgoalIndex(grid.copy()))


def test_an_edit_that_gives_a_graph_more_landmarks_places_the_new_ones_among_all_subgoals() -> None:
    """Blocking cells leaves fewer subgoals, so more landmarks (LANDMARK_BUDGET, here small): the
    new rows' sectors take their farthest subgoal of the whole graph, as a build does (the old
    code looked only among the subgoals the edit made, and left their rows unlike a build's)."""
    walk = np.random.default_rng(1).random((10, 10)) >= 0.25
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(subgoal, "LANDMARK_BUDGET", 300)
        grid = gamenav.TileGrid(walk)
        index = subgoal.subgoal_index(grid)
        rows = index._data.marks.cells.size
        grid.set_walkable((5, 6, 6, 9), False)
        assert index._data.marks.cells.size > rows
        assert _rows(index) == _rows(subgoal.SubgoalIndex(grid.copy()))


def _neighbours(gr: Any, u: int, shift: int = _ks.ID_SHIFT) -> list[int]:
    """Node u's neighbour ids in block order (``shift`` 2: with their cells)."""
    return (gr.adj[gr.off[u]:gr.off[u] + gr.cnt[u]] >> shift).tolist()


def _dijkstra(gr: Any, src: int) -> dict[int, float]:
    """Graph distances from node ``src`` over every edge (plain Dijkstra, no pruning)."""
    dist = {src: 0.0}
    heap = [(0.0, src)]
    while heap:
        d, u = heapq.heappop(heap)
        if d > dist[u]:
            continue
        for v in _neighbours(gr, u):
            dx, dy = abs(int(gr.node_x[v] - gr.node_x[u])), abs(int(gr.node_y[v] - gr.node_y[u]))
            nd = d + max(dx, dy) + (math.sqrt(2) - 1) * min(dx, dy)
            if nd < dist.get(v, math.inf):
                dist[v] = nd
                heapq.heappush(heap, (nd, v))
    return dist


@settings(max_examples=60, deadline=None)
@given(_edited())
def test_landmark_rows_equal_a_dijkstra_over_every_edge(
        case: tuple[np.ndarray, list[tuple[int, int, int, int, bool]]]) -> None:
    """The build's landmark Dijkstra follows only taut edges: its rows still equal a plain
    Dijkstra over every edge, entry for entry (unreached nodes included), after a build and
    after edits (whose rows are repaired over every edge)."""
    walk, edits = case
    grid = gamenav.TileGrid(walk)
    index = subgoal.subgoal_index(grid)
    for edit in [None, *edits]:
        if edit is not None:
            x, y, dw, dh, value = edit
            grid.set_walkable((x, y, x + dw, y + dh), value)
        gr = index._data
        marks = gr.marks
        for j in marks.use.tolist():
            want = _dijkstra(gr, int(gr.sg[marks.cells[j]]))
            for v in np.flatnonzero(gr.ncell >= 0).tolist():
                e = int(marks.dist[j, v])
                got = math.inf if e == _ks.NO_DIST else (e & 0xFFFF) + (e >> 16) * math.sqrt(2)
                assert got == pytest.approx(want.get(v, math.inf), abs=1e-9), (j, v)


@settings(max_examples=80, deadline=None)
@given(_edited())
def test_the_repair_reports_the_nodes_whose_neighbours_changed(
        case: tuple[np.ndarray, list[tuple[int, int, int, int, bool]]]) -> None:
    """The repair kernel tells which ids changed cell and which live nodes' neighbours (ids and
    cells, in block order) changed (the seeds of the landmark rows' repair): exactly those,
    compared with the graph before the edit, whatever nodes it rescanned."""
    walk, edits = case
    grid = gamenav.TileGrid(walk)
    index = subgoal.subgoal_index(grid)
    reports: list[tuple[Any, Any]] = []
    run = subgoal.SubgoalIndex._run

    def spy(self: subgoal.SubgoalIndex, *args: Any) -> Any:
        out = run(self, *args)
        reports.append(out[1:])
        return out

    for x, y, dw, dh, value in edits:
        gr = index._data
        before = {u: (int(gr.ncell[u]), _neighbours(gr, u, 2)) for u in range(gr.ncell.shape[0])}
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(subgoal.SubgoalIndex, "_run", spy)
            grid.set_walkable((x, y, x + dw, y + dh), value)
        if not reports:
            continue  # nothing changed
        seeds, moved = reports.pop()
        gr = index._data
        ids = range(gr.ncell.shape[0])
        old = {u: before.get(u, (-1, [])) for u in ids}
        assert moved.tolist() == [u for u in ids if old[u][0] != gr.ncell[u]]
        assert seeds.tolist() == [u for u in ids if gr.ncell[u] >= 0
                                  and (old[u][0] != gr.ncell[u] or old[u][1] != _neighbours(gr, u, 2))]
