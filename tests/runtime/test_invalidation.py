"""The invalidation rule shared by PathCache and PathQueue (gamenav.runtime._invalidation).

A cached path, or a path found by a search that spanned edits, must equal a fresh search after
any edit. The corner case: opening a cell that is only the corner of a newly allowed diagonal
step lets a path get cheaper without passing through the opened cell.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import gamenav
from gamenav import Diagonal, PathCache, PathQueue, PathStatus
from gamenav.runtime._invalidation import corner_cells
from tests.runtime.helpers import check_walkable

FRESH = 1.0 + 2.0 * math.sqrt(2.0)  # (0,0) -> (1,0) -> (2,1) -> (3,0) once (3, 1) opens


def _corner_grid() -> gamenav.TileGrid:
    """2 x 4: (3, 1) blocked, (2, 0) costs 2: the straight path costs 4; opening (3, 1) lets the
    diagonal (2, 1) -> (3, 0) skip the dear cell, through a step (3, 1) is only a corner of."""
    walkable = np.ones((2, 4), bool)
    walkable[1, 3] = False
    cost = np.ones((2, 4))
    cost[0, 2] = 2.0
    return gamenav.TileGrid(walkable, cost=cost)


def test_cache_drops_a_path_a_corner_opening_shortens() -> None:
    diagonal = "no_corner_cutting"
    grid = _corner_grid()
    cache = PathCache()
    assert cache.find_path(grid, (0, 0), (3, 0), diagonal=diagonal).cost == 4.0
    grid.set_walkable((3, 1), True)
    fresh = gamenav.find_path(grid, (0, 0), (3, 0), diagonal=diagonal)
    assert fresh.cost == pytest.approx(FRESH)
    assert cache.find_path(grid, (0, 0), (3, 0), diagonal=diagonal).cost == pytest.approx(FRESH)
    assert cache.stats.invalidations == 1


def test_cache_keeps_paths_a_corner_opening_cannot_shorten() -> None:
    grid = _corner_grid()
    cache = PathCache()
    kept = {d: cache.find_path(grid, (0, 0), (3, 0), diagonal=d) for d in ("always", "never")}
    grid.set_walkable((3, 1), True)  # "always" could already step past the corner; "never" never
    for diagonal, path in kept.items():
        assert cache.find_path(grid, (0, 0), (3, 0), diagonal=diagonal) is path
        assert path.cost == gamenav.find_path(grid, (0, 0), (3, 0), diagonal=diagonal).cost


def test_queue_search_spanning_a_corner_opening_is_not_answered_with_the_old_path() -> None:
    grid = _corner_grid()
    queue = PathQueue(budget_ms=None, max_expansions=1)
    req = queue.request(grid, (0, 0), (3, 0))
    queue.update()  # the search started on the old grid
    assert not req.done
    grid.set_walkable((3, 1), True)
    for _ in range(100):
        queue.update()
        if req.done:
            break
    assert req.status is PathStatus.FOUND and req.path.cost == pytest.approx(FRESH)


def test_corner_cells_are_the_ends_of_diagonal_steps_around_an_opened_cell() -> None:
    passable = np.array([[1, 1, 1],
                         [0, 1, 1],
                         [1, 1, 0]], bool)
    got = corner_cells(np.array([[1, 1]]), passable)  # around the centre: N, E, S (W blocked)
    assert sorted(map(tuple, got.tolist())) == [(1, 0), (1, 2), (2, 1)]
    lone = corner_cells(np.array([[0, 2]]), passable)  # N (0, 1) blocked: E has no partner
    assert lone.shape == (0, 2)


RULES = ["never", "no_corner_cutting", "at_most_one_blocked", "always"]


@st.composite
def _scenarios(draw: st.DrawFn) -> tuple:
    h, w = draw(st.integers(2, 5)), draw(st.integers(2, 6))
    walk = np.array(draw(st.lists(st.booleans(), min_size=h * w, max_size=h * w)), bool)
    walk = walk.reshape(h, w) | (np.arange(h * w).reshape(h, w) % 3 == 0)  # mostly open
    cost = np.array(draw(st.lists(st.sampled_from([1.0, 1.0, 1.5, 2.0, 4.0]), min_size=h * w,
                                  max_size=h * w))).reshape(h, w)
    cell = st.tuples(st.integers(0, w - 1), st.integers(0, h - 1))
    edit = st.tuples(cell, st.sampled_from(["open", "block", "cost"]), st.sampled_from([1.0, 2.0, 3.0]))
    return walk, cost, draw(st.lists(edit, min_size=1, max_size=6)), draw(st.sampled_from(RULES))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_scenarios())
@example((_corner_grid().walkable.copy(), _corner_grid().cost.copy(), [((3, 1), "open", 1.0)],
          "no_corner_cutting"))  # the case, which random grids rarely hit
def test_cached_paths_equal_a_fresh_search_after_any_edit(scenario) -> None:
    walk, cost, edits, rule = scenario
    grid = gamenav.TileGrid(walk, cost=cost)
    cache = PathCache()
    h, w = grid.shape
    cells = [(x, y) for y in range(h) for x in range(w)]

    def ask_all() -> None:
        passable = grid.passable
        for s in cells:
            for g in cells:
                if passable[s[1], s[0]] and passable[g[1], g[0]]:
                    got = cache.find_path(grid, s, g, diagonal=rule)
                    fresh = gamenav.find_path(grid, s, g, diagonal=rule)
                    assert got.status is fresh.status
                    if got.found:
                        assert got.cost == pytest.approx(fresh.cost, rel=1e-9, abs=1e-9)
                        walked = check_walkable(grid, got, s, g, Diagonal.parse(rule))
                        assert math.isclose(walked, got.cost, rel_tol=1e-9)

    ask_all()
    for cell, kind, value in edits:
        if kind == "open":
            grid.set_walkable(cell, True)
        elif kind == "block":
            grid.set_walkable(cell, False)
        else:
            grid.set_cost(cell, value)
        ask_all()
