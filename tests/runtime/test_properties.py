"""Properties under random edits: the cache and the queue never hand out an invalid or
longer-than-optimal path, whatever the interleaving of edits, queries and updates."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import gamenav
from gamenav import PathCache, PathQueue, PathStatus
from gamenav.grid.movement import Diagonal
from tests.runtime.helpers import check_walkable

RULES = [Diagonal.NO_CORNER_CUTTING, Diagonal.NEVER, Diagonal.ALWAYS, Diagonal.AT_MOST_ONE_BLOCKED]
COSTS = [1.0, 1.0, 2.0, 3.5, math.inf]


def apply_edit(grid: gamenav.TileGrid, op: tuple) -> None:
    _, x, y, w, h, kind, value = op
    region = (x, y, min(x + w, grid.width), min(y + h, grid.height))
    if kind == 0:
        grid.set_walkable(region, False)
    elif kind == 1:
        grid.set_walkable(region, True)
    else:
        grid.set_cost(region, COSTS[value % len(COSTS)])


def pick(grid: gamenav.TileGrid, i: int) -> tuple[int, int] | None:
    ys, xs = np.nonzero(grid.passable)
    if len(xs) == 0:
        return None
    k = i % len(xs)
    return int(xs[k]), int(ys[k])


def check_against_fresh(grid: gamenav.TileGrid, path: gamenav.Path, s, g, rule: Diagonal) -> None:
    fresh = gamenav.find_path(grid, s, g, diagonal=rule)
    assert path.status is fresh.status
    if fresh.found:
        cost = check_walkable(grid, path, s, g, rule)
        assert math.isclose(cost, path.cost, rel_tol=1e-9)
        assert math.isclose(path.cost, fresh.cost, rel_tol=1e-9, abs_tol=1e-9)


edit_op = st.tuples(st.just("edit"), st.integers(0, 13), st.integers(0, 11), st.integers(1, 3),
                    st.integers(1, 3), st.integers(0, 2), st.integers(0, 9))
query_op = st.tuples(st.just("query"), st.integers(0, 10_000), st.integers(0, 10_000),
                     st.integers(0, 3))
update_op = st.tuples(st.just("update"))
grids = st.integers(0, 2**32 - 1).map(
    lambda seed: np.random.default_rng(seed).random((12, 14)) > 0.3)


@settings(max_examples=60, deadline=None)
@given(walk=grids, ops=st.lists(st.one_of(edit_op, query_op, query_op), min_size=20, max_size=80))
def test_cache_paths_stay_valid_and_optimal(walk: np.ndarray, ops: list[tuple]) -> None:
    grid = gamenav.TileGrid(walk)
    cache = PathCache(capacity=64)
    for op in ops:
        if op[0] == "edit":
            apply_edit(grid, op)
            continue
        s, g = pick(grid, op[1]), pick(grid, op[2])
        if s is None:
            continue
        rule = RULES[op[3]]
        check_against_fresh(grid, cache.find_path(grid, s, g, diagonal=rule), s, g, rule)


def test_thousands_of_edits_with_a_busy_cache() -> None:
    """3000 random single-cell edits interleaved with 12000 queries over a fixed set of 60
    query pairs (so that entries live long enough to be hit and must be invalidated right)."""
    rng = np.random.default_rng(7)
    grid = gamenav.TileGrid(rng.random((32, 40)) > 0.25)
    cache = PathCache(capacity=256)
    cells = np.argwhere(grid.passable)[:, ::-1]
    pairs = [(tuple(int(v) for v in cells[a]), tuple(int(v) for v in cells[b]), RULES[int(r)])
             for a, b, r in zip(*rng.integers(0, (len(cells), len(cells), 4), (60, 3)).T, strict=True)]
    for _ in range(3000):
        x, y = (int(v) for v in rng.integers(0, (40, 32)))
        apply_edit(grid, ("edit", x, y, 1, 1, int(rng.integers(0, 3)), int(rng.integers(0, 10))))
        for _ in range(4):
            s, g, rule = pairs[int(rng.integers(0, len(pairs)))]
            if grid.passable[s[1], s[0]] and grid.passable[g[1], g[0]]:
                check_against_fresh(grid, cache.find_path(grid, s, g, diagonal=rule), s, g, rule)
    stats = cache.stats
    assert stats.hits > 500 and stats.invalidations > 500  # the cache really was exercised


@settings(max_examples=40, deadline=None)
@given(walk=grids, ops=st.lists(st.one_of(edit_op, query_op, update_op, update_op),
                                min_size=20, max_size=80))
def test_queue_answers_stay_valid_and_optimal_under_edits(walk: np.ndarray, ops: list[tuple]) -> None:
    grid = gamenav.TileGrid(walk)
    queue = PathQueue(budget_ms=None, max_expansions=7, cache=PathCache(capacity=32))
    open_requests: list[tuple[gamenav.PathRequest, tuple, tuple, Diagonal]] = []

    def check_answered() -> None:
        for item in list(open_requests):
            req, s, g, rule = item
            if req.done:
                open_requests.remove(item)
                if req.status is PathStatus.STALE:  # only when an endpoint got blocked
                    assert not (grid.passable[s[1], s[0]] and grid.passable[g[1], g[0]])
                else:
                    check_against_fresh(grid, req.path, s, g, rule)

    for op in ops + [("update",)] * 200:
        if op[0] == "edit":
            apply_edit(grid, op)
        elif op[0] == "query":
            s, g = pick(grid, op[1]), pick(grid, op[2])
            if s is None:
                continue
            rule = RULES[op[3]]
            open_requests.append((queue.request(grid, s, g, diagonal=rule), s, g, rule))
        else:
            queue.update()
        check_answered()
    assert not open_requests and len(queue) == 0
