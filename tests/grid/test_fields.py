"""distance_field: the flow-field contract (steepest descent from any reached cell leads to a
source) under extreme cost scales and costs."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import gamenav

_STEPS = {"never": ((1, 0), (-1, 0), (0, 1), (0, -1))}
_STEPS["always"] = _STEPS["no_corner_cutting"] = _STEPS["never"] + ((1, 1), (1, -1), (-1, 1), (-1, -1))


def _lower_neighbours(field: np.ndarray, walk: np.ndarray, rule: str) -> np.ndarray:
    """``(h, w)`` (x, y) of each cell's lowest neighbour by ``rule``, (-1, -1) if none is lower."""
    h, w = field.shape
    lowest = np.full((h, w, 2), -1)
    for y in range(h):
        for x in range(w):
            best = field[y, x]
            for dx, dy in _STEPS[rule]:
                nx, ny = x + dx, y + dy
                if not (0 <= nx < w and 0 <= ny < h and walk[ny, nx]):
                    continue
                if dx and dy and rule == "no_corner_cutting" and not (walk[y, nx] and walk[ny, x]):
                    continue
                if field[ny, nx] < best:
                    best = field[ny, nx]
                    lowest[y, x] = nx, ny
    return lowest


def _assert_descent_reaches_a_source(field: np.ndarray, walk: np.ndarray, rule: str,
                                     sources: list[tuple[int, int]]) -> None:
    lowest = _lower_neighbours(field, walk, rule)
    for y, x in np.argwhere(np.isfinite(field)).tolist():
        for _ in range(field.size):  # strictly decreasing: never longer than the grid
            if (x, y) in sources:
                break
            nx, ny = lowest[y, x].tolist()
            assert nx >= 0, f"stuck at {(x, y)} (value {field[y, x]!r}) on the way to a source"
            x, y = nx, ny
        else:
            raise AssertionError("descent did not reach a source")


@settings(max_examples=80, deadline=None)
@given(st.integers(0, 2**31 - 1), st.sampled_from(["never", "no_corner_cutting", "always"]))
def test_steepest_descent_reaches_a_source_whatever_the_cost_scale(seed: int, rule: str) -> None:
    """Scales from 5e-324 to 1e300 side by side: a step lost in rounding next to the value of
    the cell it comes from made a plateau ([0, 1, 1, 1, ...] on a 1 x 8 grid scaled 1e-20 from
    x = 2), on which descent stuck; each cell is now at least one float above its predecessor."""
    rng = np.random.default_rng(seed)
    h, w = int(rng.integers(1, 8)), int(rng.integers(2, 9))
    walk = rng.random((h, w)) < 0.85
    sources = [(int(rng.integers(0, w)), int(rng.integers(0, h))) for _ in range(int(rng.integers(1, 3)))]
    for x, y in sources:
        walk[y, x] = True
    scale = rng.choice([5e-324, 1e-300, 1e-20, 1e-8, 1.0, 3.0, 1e20, 1e300], (h, w))
    field = gamenav.distance_field(gamenav.TileGrid(walk), sources, diagonal=rule, cost_scale=scale)
    _assert_descent_reaches_a_source(field, walk, rule, sources)


def test_a_row_scaled_far_below_one_still_descends_to_its_source() -> None:
    grid = gamenav.TileGrid.from_strings(["........"])
    scale = np.ones((1, 8))
    scale[0, 2:] = 1e-20
    field = gamenav.distance_field(grid, (0, 0), cost_scale=scale)[0]
    assert field[:2].tolist() == [0.0, 1.0]
    assert (np.diff(field) > 0).all()
    assert field[-1] - 1.0 < 1e-14  # (the cost, up to rounding: 1 + 6e-20)


def test_cheap_cells_after_an_expensive_corridor_still_descend() -> None:
    """Without cost_scale: costs of 1e12 (MAX_COST) along 9100 cells bring the field past 2**53,
    where a step of 1 rounded away (every cell after the corridor had the corridor's value)."""
    cost = np.ones((1, 9110))
    cost[0, 1:9100] = 1e12
    grid = gamenav.TileGrid(np.ones((1, 9110), bool), cost=cost)
    field = gamenav.distance_field(grid, (0, 0))[0]
    assert field[9099] > 2.0**53
    assert (np.diff(field) > 0).all()


def test_a_huge_scale_on_cells_never_entered_is_not_refused() -> None:
    """cost_scale 1e308 on a wall (or a cell too narrow for agent_radius) was refused as "too
    large: a path's cost would not be a finite number", though no path enters it; it is ignored
    there as any scale of a blocked cell is, and still refused on a cell a path may enter."""
    grid = gamenav.TileGrid.from_strings(["..#", "..."])
    scale = np.ones((2, 3))
    scale[0, 2] = 1e308
    np.testing.assert_array_equal(gamenav.distance_field(grid, (0, 0), cost_scale=scale),
                                  gamenav.distance_field(grid, (0, 0)))
    room = gamenav.TileGrid.from_strings([".....", ".....", ".....", "....."])
    wide = np.ones((4, 5))
    wide[0, :] = 1e308  # (the cells beside the border: too narrow for a radius of 1)
    np.testing.assert_array_equal(gamenav.distance_field(room, (2, 2), agent_radius=1.0, cost_scale=wide),
                                  gamenav.distance_field(room, (2, 2), agent_radius=1.0))
    with pytest.raises(gamenav.InvalidInputError, match="cost_scale is too large"):
        gamenav.distance_field(room, (2, 2), cost_scale=wide)
