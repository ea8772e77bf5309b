"""The bounded JPS+ table repair (gamenav._kernels.jump_plus.repair_tables): straight entries are
recomputed from the edited box outwards only until they come out unchanged, diagonal entries only
from the cells next to the box and from those whose straight jump status changed. After any edit
the table must equal a fresh build: edits on the border and in the corners (boxes clipped by the
map), at the far end of long corridors (changes that run the whole corridor back), and in open
rooms (long diagonal chains)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import gamenav
from gamenav.grid import jump_plus

Edit = tuple[int, int, int, int, bool]
"""``(x, y, width, height, walkable)``: a box set by ``set_walkable`` (it may leave the map)."""


def _assert_like_fresh(grid: gamenav.TileGrid) -> None:
    index = jump_plus.jump_index(grid)
    fresh = jump_plus.JumpIndex(grid.copy())
    assert index.version == grid.version
    np.testing.assert_array_equal(index.table(), fresh.table())
    assert index.jump_share == fresh.jump_share


def _edit_all(grid: gamenav.TileGrid, edits: list[Edit]) -> None:
    jump_plus.jump_index(grid)  # built before the edits: every edit is repaired
    for x, y, w, h, value in edits:
        grid.set_walkable((x, y, x + w, y + h), value)  # (clipped to the map)
        _assert_like_fresh(grid)


@st.composite
def _corridors(draw: st.DrawFn) -> tuple[gamenav.TileGrid, list[Edit]]:
    """Long open corridors (1-6 wide, up to 90 long, either way) with a few pillars, and boxes
    edited anywhere, on the border and past it."""
    across = draw(st.integers(1, 6))
    along = draw(st.integers(8, 90))
    walk = np.ones((across, along), dtype=bool)
    for _ in range(draw(st.integers(0, 3))):
        walk[draw(st.integers(0, across - 1)), draw(st.integers(0, along - 1))] = False
    if draw(st.booleans()):
        walk = walk.T.copy()
    h, w = walk.shape
    ends = st.sampled_from([-3, -1, 0, 1]) | st.integers(-3, max(w, h))
    edits = draw(st.lists(st.tuples(ends, ends, st.integers(1, 4), st.integers(1, 4), st.booleans()),
                          min_size=1, max_size=5))
    return gamenav.TileGrid(walk), edits


@settings(max_examples=60, deadline=None)
@given(_corridors())
def test_corridor_and_border_edits_leave_the_table_as_a_fresh_build(case: tuple[gamenav.TileGrid, list[Edit]]
                                                                   ) -> None:
    grid, edits = case
    _edit_all(grid, edits)


@st.composite
def _rooms(draw: st.DrawFn) -> tuple[gamenav.TileGrid, list[Edit]]:
    """Open rooms up to 48 x 48 with a few rectangular walls (long straight and diagonal jumps)."""
    h, w = draw(st.integers(6, 48)), draw(st.integers(6, 48))
    walk = np.ones((h, w), dtype=bool)
    for _ in range(draw(st.integers(0, 4))):
        x, y = draw(st.integers(0, w - 1)), draw(st.integers(0, h - 1))
        walk[y:y + draw(st.integers(1, 8)), x:x + draw(st.integers(1, 3))] = False
    box = st.tuples(st.integers(-3, w), st.integers(-3, h), st.integers(1, 4), st.integers(1, 4), st.booleans())
    return gamenav.TileGrid(walk), draw(st.lists(box, min_size=1, max_size=5))


@settings(max_examples=40, deadline=None)
@given(_rooms())
def test_room_edits_leave_the_table_as_a_fresh_build(case: tuple[gamenav.TileGrid, list[Edit]]) -> None:
    grid, edits = case
    _edit_all(grid, edits)


@pytest.mark.parametrize("transpose", [False, True])
@pytest.mark.parametrize("at", ["far end", "near end", "middle"])
def test_a_box_in_a_long_corridor_repairs_the_whole_corridor(transpose: bool, at: str) -> None:
    """A 5-wide, 150-long corridor: blocking a box makes jump points whose status runs back along
    every row of the corridor (and the diagonals crossing them); reopening it undoes them."""
    walk = np.ones((5, 150), dtype=bool)
    x = {"far end": 146, "near end": 0, "middle": 70}[at]
    edits: list[Edit] = [(x, 1, 4, 4, False), (x, 1, 4, 4, True), (x, 0, 4, 2, False), (x + 1, 3, 9, 2, False)]
    if transpose:
        walk = walk.T.copy()
        edits = [(y, x, h, w, value) for x, y, w, h, value in edits]
    _edit_all(gamenav.TileGrid(walk), edits)


@pytest.mark.parametrize("corner", [(0, 0), (36, 0), (0, 36), (36, 36), (-2, -2), (38, 38)])
def test_corner_boxes_leave_the_table_as_a_fresh_build(corner: tuple[int, int]) -> None:
    walk = np.ones((40, 40), dtype=bool)
    walk[10:30, 19] = False  # a wall: jump points at its ends
    x, y = corner
    _edit_all(gamenav.TileGrid(walk), [(x, y, 4, 4, False), (x + 1, y + 1, 2, 2, True), (x, y, 4, 4, True)])
