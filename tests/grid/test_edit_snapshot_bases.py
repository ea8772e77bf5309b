"""What a grid snapshot keeps of older snapshots' tables (gamenav.grid.tilegrid._GridState): an
older table is kept, to repair from, only while the box of the cells changed since stays small
enough to patch; past that the table is built anew, so nothing holds the old one."""

from __future__ import annotations

import gc
import weakref

import numpy as np

import gamenav
from gamenav._kernels.components import label_components
from gamenav.grid.search import _Padded, padded


def test_labels_of_a_rule_no_longer_read_are_not_kept_past_a_large_edit() -> None:
    """8-connected labels read once, then only 4-connected ones: after an edit over more than a
    quarter of the grid nothing can be repaired from the old 8-connected labels, and no snapshot
    keeps them (the old code carried them from snapshot to snapshot for good: 4 bytes a cell);
    the labels and padded arrays made afterwards equal fresh ones."""
    walk = np.random.default_rng(5).random((40, 40)) >= 0.3
    grid = gamenav.TileGrid(walk)
    eight = weakref.ref(grid._snapshot().components(gamenav.Diagonal.ALWAYS))
    pad = weakref.ref(padded(grid).passable)
    grid.components()
    grid.set_walkable((2, 2, 4, 4), False)  # small: the next snapshot may repair from them
    grid.components()
    gc.collect()
    assert eight() is not None and pad() is not None
    grid.set_walkable((0, 0, 30, 30), True)  # 900 of 1600 cells: built anew
    gc.collect()
    assert eight() is None and pad() is None
    state = grid._snapshot()
    assert state.labels_base == {} and state.padded_base is None
    for rule, connect in ((gamenav.Diagonal.ALWAYS, True), (gamenav.Diagonal.NO_CORNER_CUTTING, False)):
        np.testing.assert_array_equal(grid.components(rule), label_components(grid.passable, connect)[0])
    fresh = _Padded(*grid._kernel_arrays())
    np.testing.assert_array_equal(padded(grid).passable, fresh.passable)
    np.testing.assert_array_equal(padded(grid).cost, fresh.cost)
