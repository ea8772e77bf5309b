"""Hypothesis properties of the grid searches on random grids with walls and costs."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import gamenav
from gamenav.grid.movement import Heuristic, heuristic_distance
from tests.grid._reference import check_path, dijkstra, neighbours, segment_clear

RULES = ("never", "no_corner_cutting", "at_most_one_blocked", "always")
SETTINGS = settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def grids(draw, *, uniform: bool = False, min_side: int = 1, max_side: int = 14):
    h = draw(st.integers(min_side, max_side))
    w = draw(st.integers(min_side, max_side))
    seed = draw(st.integers(0, 2**32 - 1))
    wall_rate = draw(st.sampled_from([0.0, 0.15, 0.3, 0.45]))
    rng = np.random.default_rng(seed)
    walkable = rng.random((h, w)) >= wall_rate
    cost = None
    if not uniform and draw(st.booleans()):
        cost = rng.choice([1.0, 1.0, 1.5, 2.0, 3.0, 7.25], size=(h, w))
    return gamenav.TileGrid(walkable, cost=cost)


@st.composite
def queries(draw, *, uniform: bool = False, connected: bool = False):
    grid = draw(grids(uniform=uniform))
    ys, xs = np.nonzero(grid.passable)
    assume(len(xs) >= 1)
    i = draw(st.integers(0, len(xs) - 1))
    j = draw(st.integers(0, len(xs) - 1))
    start, goal = (int(xs[i]), int(ys[i])), (int(xs[j]), int(ys[j]))
    if connected:
        assume(grid.connected(start, goal))
    return grid, start, goal


def _optimal(grid, start, goal, rule: str) -> float:
    return float(dijkstra(grid, [start], rule)[goal[1], goal[0]])


@SETTINGS
@given(queries(), st.sampled_from(RULES))
def test_astar_and_dijkstra_are_optimal_and_valid(query, rule: str) -> None:
    grid, start, goal = query
    best = _optimal(grid, start, goal, rule)
    for algorithm in ("astar", "dijkstra"):
        path = gamenav.find_path(grid, start, goal, algorithm=algorithm, diagonal=rule)
        if math.isinf(best):
            assert path.status is gamenav.PathStatus.NO_PATH
            assert path.cells.shape == (0, 2) and path.expanded == 0
            continue
        assert path.status is gamenav.PathStatus.FOUND
        assert math.isclose(path.cost, best, rel_tol=1e-9, abs_tol=1e-9)
        assert math.isclose(check_path(grid, path, start, goal, rule), path.cost, rel_tol=1e-9)


@SETTINGS
@given(queries(uniform=True, connected=True))
def test_jps_matches_astar_on_uniform_grids(query) -> None:
    grid, start, goal = query
    astar = gamenav.find_path(grid, start, goal)
    jps = gamenav.find_path(grid, start, goal, algorithm="jps")
    assert jps.status is gamenav.PathStatus.FOUND
    assert math.isclose(jps.cost, astar.cost, rel_tol=1e-9, abs_tol=1e-9)
    assert math.isclose(check_path(grid, jps, start, goal), jps.cost, rel_tol=1e-9)


@SETTINGS
@given(queries(), st.sampled_from(("astar", "jps", "dijkstra")), st.sampled_from(RULES),
       st.sampled_from([1.0, 1.5]), st.booleans(), st.data())
def test_sliced_equals_one_shot(query, algorithm, rule, weight, partial, data) -> None:
    grid, start, goal = query
    options = dict(algorithm=algorithm, diagonal=rule, weight=weight, partial=partial)
    if algorithm == "jps":
        assume(grid.uniform_cost)
        options.update(diagonal="no_corner_cutting", weight=1.0)
    if algorithm == "dijkstra":
        options.update(weight=1.0)
    one_shot = gamenav.find_path(grid, start, goal, **options)
    search = gamenav.GridSearch(grid, start, goal, **options)
    steps = 0
    while not search.step(data.draw(st.integers(1, 7), label="slice")).done:
        steps += 1
        assert search.result().status is gamenav.PathStatus.IN_PROGRESS
        assert steps < 10_000
    sliced = search.result()
    assert sliced.status is one_shot.status
    assert sliced.cost == one_shot.cost
    assert sliced.expanded == one_shot.expanded == search.expanded
    np.testing.assert_array_equal(sliced.cells, one_shot.cells)


@SETTINGS
@given(queries(connected=True), st.sampled_from([1.0, 1.25, 2.0, 5.0]), st.sampled_from(RULES),
       st.sampled_from([None, "euclidean", "chebyshev"]))
def test_weighted_astar_is_within_weight_of_optimal(query, weight, rule, heuristic) -> None:
    grid, start, goal = query
    if rule == "never" and heuristic is not None:
        heuristic = "manhattan"
    best = _optimal(grid, start, goal, rule)
    path = gamenav.find_path(grid, start, goal, diagonal=rule, weight=weight, heuristic=heuristic)
    assert path.status is gamenav.PathStatus.FOUND
    assert path.cost <= weight * best + 1e-9
    check_path(grid, path, start, goal, rule)


@SETTINGS
@given(queries(connected=True))
def test_four_connected_paths_are_orthogonal_and_optimal(query) -> None:
    grid, start, goal = query
    path = gamenav.find_path(grid, start, goal, diagonal=False)
    steps = np.abs(np.diff(path.cells, axis=0)).sum(axis=1)
    assert (steps == 1).all()
    assert math.isclose(path.cost, _optimal(grid, start, goal, "never"), rel_tol=1e-9, abs_tol=1e-9)


@SETTINGS
@given(queries(), st.sampled_from(RULES), st.booleans())
def test_partial_path_ends_at_the_closest_reachable_cell(query, rule, block_goal) -> None:
    grid, start, goal = query
    if block_goal and goal != start:
        grid.set_walkable(goal, False)
    dist = dijkstra(grid, [start], rule)
    path = gamenav.find_path(grid, start, goal, diagonal=rule, partial=True)
    if np.isfinite(dist[goal[1], goal[0]]):
        assert path.status is gamenav.PathStatus.FOUND
        return
    assert path.status is gamenav.PathStatus.PARTIAL
    end = tuple(int(v) for v in path.cells[-1])
    check_path(grid, path, start, end, rule)
    h = Heuristic.MANHATTAN if rule == "never" else Heuristic.OCTILE
    ys, xs = np.nonzero(np.isfinite(dist))
    scores = [(heuristic_distance(h, x - goal[0], y - goal[1]), dist[y, x]) for x, y in zip(xs, ys, strict=True)]
    best_h = min(s[0] for s in scores)
    best_g = min(g for hh, g in scores if hh == best_h)
    assert math.isclose(heuristic_distance(h, end[0] - goal[0], end[1] - goal[1]), best_h)
    assert math.isclose(path.cost, best_g, rel_tol=1e-9)


@SETTINGS
@given(grids(min_side=2), st.sampled_from(RULES), st.integers(1, 4), st.data())
def test_distance_field_agrees_with_dijkstra(grid, rule, n_sources, data) -> None:
    ys, xs = np.nonzero(grid.passable)
    assume(len(xs) >= 1)
    idx = data.draw(st.lists(st.integers(0, len(xs) - 1), min_size=1, max_size=n_sources))
    sources = np.array([(xs[i], ys[i]) for i in idx], dtype=np.int64)
    field = gamenav.distance_field(grid, sources, diagonal=rule)
    expected = dijkstra(grid, [tuple(s) for s in sources], rule)
    np.testing.assert_allclose(field, expected, rtol=1e-9, atol=1e-9)
    # a search to any reachable cell costs exactly the field value (single source)
    finite = np.argwhere(np.isfinite(field))
    y, x = finite[data.draw(st.integers(0, len(finite) - 1))]
    single = gamenav.distance_field(grid, sources[0], diagonal=rule)
    if np.isfinite(single[y, x]):
        path = gamenav.find_path(grid, tuple(sources[0]), (int(x), int(y)), diagonal=rule)
        assert math.isclose(path.cost, single[y, x], rel_tol=1e-9, abs_tol=1e-9)
    limited = gamenav.distance_field(grid, sources, diagonal=rule, max_cost=2.5)
    np.testing.assert_array_equal(limited, np.where(expected <= 2.5, expected, np.inf))
    # flow field: every reached cell other than a source has a neighbour it is entered from on
    # a cheapest path (field there + this cell's cost x step length == field here); the rules
    # are symmetric, so that neighbour is also an allowed next step downhill
    passable, cost = np.asarray(grid.passable), np.asarray(grid.cost)
    for y, x in np.argwhere(np.isfinite(field) & (field > 0)):
        assert any(math.isclose(field[ny, nx] + cost[y, x] * c / cost[ny, nx], field[y, x],
                                rel_tol=1e-9)
                   for nx, ny, c in neighbours(passable, cost, x, y, rule)), (x, y)


@SETTINGS
@given(queries(connected=True), st.sampled_from(RULES), st.sampled_from(("astar", "jps")))
def test_smoothed_paths_keep_line_of_sight(query, rule, algorithm) -> None:
    grid, start, goal = query
    if algorithm == "jps":
        assume(grid.uniform_cost)
        rule = "no_corner_cutting"
    raw = gamenav.find_path(grid, start, goal, diagonal=rule, algorithm=algorithm)
    smooth = gamenav.find_path(grid, start, goal, diagonal=rule, algorithm=algorithm, smooth=True)
    assert smooth.status is raw.status
    assert smooth.cost == raw.cost  # cost stays the grid cost of the unsmoothed path
    cells = [tuple(c) for c in raw.cells]
    kept = [tuple(c) for c in smooth.cells]
    assert kept[0] == cells[0] and kept[-1] == cells[-1]
    index = [cells.index(c) for c in kept]
    assert index == sorted(index) and len(kept) <= len(cells)
    passable = np.asarray(grid.passable)
    for (a, i), (b, j) in zip(zip(kept, index, strict=True), zip(kept[1:], index[1:], strict=True), strict=False):
        # a shortcut (not an original step) never crosses a blocked cell or cuts a corner
        assert j == i + 1 or segment_clear(passable, a, b)
    if grid.uniform_cost:
        length = float(np.hypot(*np.diff(smooth.cells, axis=0).T).sum())
        assert length <= raw.cost + 1e-9


@SETTINGS
@given(grids(min_side=3), st.lists(st.tuples(st.integers(0, 13), st.integers(0, 13),
                                             st.integers(1, 4), st.integers(1, 4),
                                             st.sampled_from(["wall", "open", "cost", "none"])),
                                   min_size=1, max_size=6))
def test_snapshots_patched_after_edits_equal_fresh_ones(grid, edits) -> None:
    from gamenav.grid.search import _Padded, padded

    rules = [gamenav.Diagonal.parse(r) for r in RULES]
    for x, y, dx, dy, kind in edits:
        snap = padded(grid)
        for rule in rules:
            snap.moves(rule)
        snap.jump_table()
        rect = (x, y, x + dx, y + dy)
        if kind == "wall":
            grid.set_walkable(rect, False)
        elif kind == "open":
            grid.set_walkable(rect, True)
        elif kind == "cost":
            grid.set_cost(rect, float(dx))
        else:
            grid.set_walkable(rect, bool(grid.walkable[min(y, grid.height - 1), min(x, grid.width - 1)]))
        patched = padded(grid)
        fresh = _Padded(*grid._kernel_arrays())
        np.testing.assert_array_equal(patched.passable, fresh.passable)
        np.testing.assert_array_equal(patched.cost, fresh.cost)
        assert patched.uniform == fresh.uniform == grid.uniform_cost
        for rule in rules:
            np.testing.assert_array_equal(patched.moves(rule), fresh.moves(rule))
        np.testing.assert_array_equal(patched.jump_table(), fresh.jump_table())
