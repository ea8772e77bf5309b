"""The snapshot after a small edit (gamenav.grid.tilegrid._GridState, gamenav.grid.search.padded):
its island labels are repaired around the edited box and its padded arrays patched from the box
the edit knows, so the first query after an edit relabels and compares no whole grid; both equal
what a fresh build of the edited cells gives, and older snapshots keep theirs."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import gamenav
from gamenav._kernels.components import label_components
from gamenav.grid import search, tilegrid
from gamenav.grid.clearance import radius_state, threshold
from gamenav.grid.movement import Diagonal
from gamenav.grid.search import _Padded, padded

Edit = tuple[str, int, int, int, int, Any]
"""``(kind, x, y, width, height, value)``: ``set_walkable`` / ``set_cost`` on a rectangle, or
``query`` (value: which labels to read before the next edit; none: the boxes accumulate)."""


def _fresh(passable: np.ndarray, eight: bool) -> tuple[np.ndarray, np.ndarray]:
    labels, first = label_components(passable, eight)
    return labels, first


def _same_padded(pad: _Padded, fresh: _Padded) -> None:
    np.testing.assert_array_equal(pad.passable, fresh.passable)
    np.testing.assert_array_equal(pad.cost, fresh.cost)
    assert (pad.uniform, pad.nonunit) == (fresh.uniform, fresh.nonunit)
    for diagonal in Diagonal:
        np.testing.assert_array_equal(pad.moves(diagonal), fresh.moves(diagonal))
    np.testing.assert_array_equal(pad.jump_table(), fresh.jump_table())


@st.composite
def _chains(draw: st.DrawFn) -> tuple[np.ndarray, list[Edit]]:
    h = draw(st.integers(1, 14))
    w = draw(st.integers(1, 14))
    density = draw(st.sampled_from([0.0, 0.2, 0.35, 0.5, 0.65]))
    walk = np.random.default_rng(draw(st.integers(0, 2**32 - 1))).random((h, w)) >= density
    edit = st.tuples(st.sampled_from(["walk", "walk", "cost", "query"]), st.integers(-1, w - 1),
                     st.integers(-1, h - 1), st.integers(1, 5), st.integers(1, 5),
                     st.sampled_from([False, True, 2.0, float("inf"), "4", "8", "both"]))
    return walk, draw(st.lists(edit, min_size=1, max_size=12))


def _apply(grid: gamenav.TileGrid, edit: Edit) -> None:
    kind, x, y, bw, bh, value = edit
    box = (x, y, x + bw, y + bh)
    if kind == "walk":
        grid.set_walkable(box, bool(value) if isinstance(value, bool) else value == 2.0)
    elif kind == "cost":
        grid.set_cost(box, value if isinstance(value, float) else (1.0 if value else float("inf")))


@settings(max_examples=400, deadline=None)
@given(_chains())
def test_repaired_labels_equal_a_fresh_labelling_after_any_chain_of_edits(case: tuple[np.ndarray, list[Edit]]
                                                                         ) -> None:
    """Blocking and freeing rectangles (on the border too), costs set to and from inf, islands
    split, merged, created and removed, labels read after some edits only (the boxes of the
    others accumulate): every snapshot's labels and first cells equal a fresh labelling's,
    4- and 8-connected, and no snapshot's labels change once read."""
    walk, edits = case
    grid = gamenav.TileGrid(walk)
    grid.components()
    grid.components("always")
    kept: list[tuple[np.ndarray, np.ndarray]] = []
    for edit in edits:
        _apply(grid, edit)
        if edit[0] != "query":
            continue
        state = grid._snapshot()
        for eight in {"4": [False], "8": [True]}.get(edit[5], [False, True]):  # type: ignore[call-overload]
            labels = state.components(Diagonal.ALWAYS if eight else Diagonal.NO_CORNER_CUTTING)
            want, first = _fresh(grid.passable, eight)
            np.testing.assert_array_equal(labels, want)
            np.testing.assert_array_equal(state.labels[eight][1], first)
            assert not labels.flags.writeable and not state.labels[eight][1].flags.writeable
            kept.append((labels, labels.copy()))
    for eight in (False, True):  # and at the end of every chain
        labels = grid.components(Diagonal.ALWAYS if eight else Diagonal.NO_CORNER_CUTTING)
        np.testing.assert_array_equal(labels, _fresh(grid.passable, eight)[0])
        np.testing.assert_array_equal(grid._snapshot().labels[eight][1], _fresh(grid.passable, eight)[1])
    for labels, copy in kept:
        np.testing.assert_array_equal(labels, copy)


@settings(max_examples=150, deadline=None)
@given(_chains())
def test_patched_padded_arrays_equal_a_fresh_build_after_any_chain_of_edits(case: tuple[np.ndarray, list[Edit]]
                                                                           ) -> None:
    """The padded arrays, move bits and jump table patched from the edit's box (accumulated over
    edits no search saw) equal a build from the snapshot's arrays; older snapshots keep theirs."""
    walk, edits = case
    grid = gamenav.TileGrid(walk)
    first = padded(grid)
    for diagonal in Diagonal:
        first.moves(diagonal)
    first.jump_table()
    kept = [(first, first.passable.copy(), first.cost.copy(), first.jump_table().copy())]
    for edit in edits:
        _apply(grid, edit)
        if edit[0] != "query":
            continue
        pad = padded(grid)
        _same_padded(pad, _Padded(*grid._kernel_arrays()))
        kept.append((pad, pad.passable.copy(), pad.cost.copy(), pad.jump_table().copy()))
    _same_padded(padded(grid), _Padded(*grid._kernel_arrays()))
    for pad, passable, cost, jumps in kept:
        np.testing.assert_array_equal(pad.passable, passable)
        np.testing.assert_array_equal(pad.cost, cost)
        np.testing.assert_array_equal(pad.jump_table(), jumps)


def _refuse(*args: object) -> None:
    raise AssertionError("a whole-grid pass the edit's box makes needless")


@pytest.mark.parametrize("eight", [False, True])
def test_a_small_edit_repairs_the_labels_without_labelling_the_grid(monkeypatch: pytest.MonkeyPatch,
                                                                    eight: bool) -> None:
    """A wall across the map splits an island; the first labels after it are repaired from the old
    snapshot's (the old code labelled the whole grid again after every edit) and equal a fresh
    labelling; the old snapshot's labels stay as they were."""
    walk = np.ones((30, 40), dtype=bool)
    walk[:, 20] = False
    walk[15, 20] = True  # one door
    walk[3, 3] = False
    grid = gamenav.TileGrid(walk)
    diagonal = Diagonal.ALWAYS if eight else Diagonal.NO_CORNER_CUTTING
    before = grid.components(diagonal)
    copy = before.copy()
    monkeypatch.setattr(tilegrid, "label_components", _refuse)
    grid.set_walkable((20, 15), False)  # close the door: two islands
    after = grid.components(diagonal)
    np.testing.assert_array_equal(after, _fresh(grid.passable, eight)[0])
    assert after.max() == 1 and after[0, 0] != after[0, 39]
    grid.set_walkable((3, 3), True)  # another snapshot, repaired from the last
    grid.set_walkable((19, 14, 22, 17), True)  # the door, wider (two edits, no query between)
    np.testing.assert_array_equal(grid.components(diagonal), _fresh(grid.passable, eight)[0])
    np.testing.assert_array_equal(before, copy)


def test_padded_arrays_after_an_edit_are_patched_from_the_edit_box(monkeypatch: pytest.MonkeyPatch) -> None:
    """The padded arrays of the snapshot after an edit come from the box the edit passed on (the
    old code compared the old and new cell arrays whole to find it), and an array whose box did
    not change is shared: a wall on a map of unit costs copies no cost array, a cost edit no
    passable cells, moves or jumps."""
    monkeypatch.setattr(tilegrid, "_diff_box", _refuse, raising=False)
    grid = gamenav.TileGrid(np.ones((20, 30), dtype=bool))
    old = padded(grid)
    old.moves(Diagonal.NO_CORNER_CUTTING)
    old.jump_table()
    grid.set_walkable((5, 5, 9, 9), False)
    state = grid._snapshot()
    assert state.padded_base == (old, (5, 9, 5, 9))
    pad = padded(grid)
    _same_padded(pad, _Padded(*grid._kernel_arrays()))
    assert state.padded_base is None and pad.passable is not old.passable and pad.cost is old.cost
    grid.set_cost((10, 10, 12, 12), 3.0)
    costly = padded(grid)
    _same_padded(costly, _Padded(*grid._kernel_arrays()))
    assert costly.passable is pad.passable and costly.jump_table() is pad.jump_table()
    assert costly.cost is not pad.cost and not costly.uniform and costly.nonunit == 4


def test_the_jump_table_is_patched_only_when_a_search_asks_for_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """Online JPS's jump table (38 MB on a 1550 x 1550 map) is not copied by the snapshots of
    edits after which no online-JPS search runs (the old code copied and patched it in every
    ``padded()`` after an edit, 15 ms there, whatever the algorithm); asked for later, it is
    patched from the last table over the rows and columns of all those edits (here, past two
    edits, over their union), equal to a fresh one."""
    monkeypatch.setattr(search, "_JUMP_EDITS", 2)
    grid = gamenav.TileGrid(np.ones((20, 30), dtype=bool))
    old = padded(grid).jump_table()
    kept = old.copy()
    real = search._jps.jump_tables
    monkeypatch.setattr(search._jps, "jump_tables", _refuse)
    for box in ((5, 5, 9, 9), (20, 2, 21, 18), (0, 0, 2, 1)):  # each edit's padded() builds no table
        grid.set_walkable(box, False)
        padded(grid).moves(Diagonal.NO_CORNER_CUTTING)
    monkeypatch.setattr(search._jps, "jump_tables", real)
    np.testing.assert_array_equal(padded(grid).jump_table(), _Padded(*grid._kernel_arrays()).jump_table())
    np.testing.assert_array_equal(old, kept)


@settings(max_examples=100, deadline=None)
@given(_chains())
def test_a_jump_table_asked_for_now_and_then_equals_a_fresh_one(case: tuple[np.ndarray, list[Edit]]) -> None:
    """Snapshots built after every edit, the jump table asked for only at some of them (the rows
    and columns to redo accumulate across the others): each table equals a fresh build's."""
    walk, edits = case
    grid = gamenav.TileGrid(walk)
    padded(grid).jump_table()
    for edit in edits:
        _apply(grid, edit)
        pad = padded(grid)
        if edit[0] == "query":
            np.testing.assert_array_equal(pad.jump_table(), _Padded(*grid._kernel_arrays()).jump_table())
    np.testing.assert_array_equal(padded(grid).jump_table(), _Padded(*grid._kernel_arrays()).jump_table())


def test_an_edit_that_splits_off_big_pieces_labels_anew(monkeypatch: pytest.MonkeyPatch) -> None:
    """Closing the one door of a wall across a 100 x 100 map leaves two halves of 4950 cells: the
    repair's fills give up (tilegrid._FILL_LIMIT) and the grid is labelled anew, with the same result."""
    walk = np.ones((100, 100), dtype=bool)
    walk[:, 50] = False
    walk[60, 50] = True
    grid = gamenav.TileGrid(walk)
    grid.components()
    calls: list[bool] = []

    def counted(passable: np.ndarray, eight: bool) -> tuple[np.ndarray, np.ndarray]:
        calls.append(eight)
        return label_components(passable, eight)

    monkeypatch.setattr(tilegrid, "label_components", counted)
    grid.set_walkable((50, 60), False)
    np.testing.assert_array_equal(grid.components(), _fresh(grid.passable, False)[0])
    assert calls == [False]
    grid.set_walkable((50, 10), True)  # a new door: islands merge, repaired (no fill runs)
    np.testing.assert_array_equal(grid.components(), _fresh(grid.passable, False)[0])
    assert calls == [False]


def test_a_large_edit_builds_the_labels_and_arrays_anew() -> None:
    """An edit over more than a quarter of the grid is built from scratch (same results)."""
    rng = np.random.default_rng(7)
    grid = gamenav.TileGrid(rng.random((24, 24)) < 0.6)
    grid.components()
    old = padded(grid)
    grid.set_walkable((0, 0, 20, 20), False)
    grid.set_walkable((2, 2, 5, 5), True)
    np.testing.assert_array_equal(grid.components(), _fresh(grid.passable, False)[0])
    _same_padded(padded(grid), _Padded(*grid._kernel_arrays()))
    assert padded(grid).passable is not old.passable


def test_a_cost_edit_under_a_wall_shares_the_labels_and_arrays() -> None:
    """A cost change on blocked cells changes no passability: the snapshot keeps the tables."""
    walk = np.ones((6, 6), dtype=bool)
    walk[2, :] = False
    grid = gamenav.TileGrid(walk)
    labels, pad = grid.components(), padded(grid)
    grid.set_cost((0, 2, 6, 3), 5.0)
    assert np.shares_memory(grid.components(), labels) and padded(grid) is pad


def test_radius_views_still_repair_from_their_previous_view() -> None:
    """A clearance view is made without an edit box: its arrays are compared with the previous
    view's once, and its labels and padded arrays equal fresh ones."""
    walk = np.random.default_rng(3).random((40, 40)) >= 0.05
    walk[3:8, 3:8] = walk[32:37, 32:37] = True
    grid = gamenav.TileGrid(walk)
    start, goal = (5, 5), (34, 34)
    thr = threshold(grid, 1.0)
    assert thr > 1
    gamenav.find_path(grid, start, goal, agent_radius=1.0)
    old = radius_state(grid._snapshot(), thr)
    grid.set_walkable((10, 10, 14, 14), False)
    gamenav.find_path(grid, start, goal, agent_radius=1.0)
    view = radius_state(grid._snapshot(), thr)
    assert view.version == grid.version and view is not old and not np.array_equal(view.passable, old.passable)
    np.testing.assert_array_equal(view.components(Diagonal.NO_CORNER_CUTTING), _fresh(view.passable, False)[0])
    _same_padded(search.padded(view), _Padded(view.passable, view.cost))
