"""Adversarial review of the grid search core: option combinations against the pure-Python
oracle, the fast path against the general search, sliced against one-shot, and hostile edits."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

import gamenav
from gamenav import GridSearch, PathStatus, TileGrid, find_path
from gamenav.errors import BlockedEndpointError, InvalidInputError, UnsupportedOptionError
from tests.grid._reference import check_path, dijkstra, segment_clear

RULES = ("never", "no_corner_cutting", "at_most_one_blocked", "always")


def _octile(dx: np.ndarray, dy: np.ndarray) -> np.ndarray:
    return np.maximum(dx, dy) + (math.sqrt(2.0) - 1.0) * np.minimum(dx, dy)


def _random_query(seed: int) -> tuple[TileGrid, tuple[int, int], tuple[int, int]] | None:
    """A small random grid (costs 1..1e6 and inf, odd transforms) with a passable start."""
    rng = np.random.default_rng(seed)
    h, w = (int(v) for v in rng.integers(1, 9, size=2))
    walk = rng.random((h, w)) > rng.uniform(0.0, 0.5)
    cost = None if seed % 3 == 0 else rng.choice([1.0, 2.0, 7.5, 1e6, np.inf], size=(h, w))
    grid = TileGrid(walk, cost=cost, y_up=bool(seed % 2), origin=(-1e5 * seed, 3.25), cell_size=0.25)
    cells = np.argwhere(grid.passable)
    if len(cells) == 0:
        return None
    sy, sx = cells[rng.integers(len(cells))]
    return grid, (int(sx), int(sy)), (int(rng.integers(w)), int(rng.integers(h)))


@pytest.mark.parametrize("seed", range(12))
def test_every_option_combination_agrees_with_the_oracle(seed: int) -> None:
    query = _random_query(seed)
    if query is None:
        return
    grid, start, goal = query
    for rule in RULES:
        optimum = dijkstra(grid, [start], rule)[goal[1], goal[0]]
        for algorithm, heuristic, weight in [("astar", None, 1), ("astar", "euclidean", 1), ("astar", "zero", 3),
                                             ("astar", "callable", 2), ("jps", None, 1), ("dijkstra", None, 1)]:
            options: dict[str, object] = {"algorithm": algorithm, "diagonal": rule}
            if heuristic == "callable":
                options["heuristic"] = (lambda dx, dy: dx + dy) if rule == "never" else _octile
            elif heuristic is not None:
                options["heuristic"] = heuristic
            if weight != 1:
                options["weight"] = weight
            for partial in (False, True):
                for smooth in (False, True):
                    try:
                        path = find_path(grid, start, goal, partial=partial, smooth=smooth, **options)
                    except UnsupportedOptionError:
                        assert algorithm == "jps"
                        continue
                    except BlockedEndpointError:
                        assert not partial and not grid.passable[goal[1], goal[0]]
                        continue
                    sliced = GridSearch(grid, start, goal, partial=partial, smooth=smooth, **options)
                    while not sliced.step(2).done:
                        pass
                    again = sliced.result()
                    assert (again.status, again.cost) == (path.status, path.cost)
                    assert np.array_equal(again.cells, path.cells)
                    if not math.isfinite(optimum):
                        assert path.status is (PathStatus.PARTIAL if partial else PathStatus.NO_PATH)
                        continue
                    assert path.status is PathStatus.FOUND
                    assert path.cost <= weight * optimum * (1 + 1e-12)
                    if smooth:
                        for a, b in zip(path.cells[:-1], path.cells[1:], strict=True):
                            assert max(abs(a - b)) == 1 or segment_clear(grid.passable, a, b)
                    else:
                        assert check_path(grid, path, start, goal, rule) == pytest.approx(path.cost, rel=1e-12)


def test_partial_result_cost_is_the_cost_of_its_cells() -> None:
    # weighted A* reopened (3, 4) on a cheaper route after reaching (2, 4) through it: the traced
    # path costs 3, while g of (2, 4) still said 1 + 2 sqrt(2)
    grid = TileGrid.from_strings(["......", "......", "......", "...###", ".#....", "..#..."])
    search = GridSearch(grid, (5, 4), (0, 5), weight=2)
    for _ in range(6):
        search.step(1)
    assert search.status is PathStatus.IN_PROGRESS
    path = search.partial_result()
    assert path.cells.tolist() == [[5, 4], [4, 4], [3, 4], [2, 4]]
    assert path.cost == check_path(grid, path, (5, 4), (2, 4)) == 3.0


@pytest.mark.parametrize("weight", [2, 5])
def test_partial_results_of_weighted_searches_cost_their_cells(weight: int) -> None:
    rng = np.random.default_rng(weight)
    for _ in range(20):
        grid = TileGrid(rng.random((12, 15)) > 0.25, cost=rng.choice([1.0, 3.0], size=(12, 15)))
        cells = np.argwhere(grid.passable)
        (sy, sx), (gy, gx) = cells[rng.choice(len(cells), 2, replace=False)]
        for rule in RULES:
            search = GridSearch(grid, (int(sx), int(sy)), (int(gx), int(gy)), weight=weight, diagonal=rule)
            while not search.step(3).done:
                path = search.partial_result()
                end = tuple(path.cells[-1])
                assert path.cost == pytest.approx(check_path(grid, path, (sx, sy), end, rule), rel=1e-12)


@pytest.mark.parametrize("rows", ["..#.", "..\n.#"])
def test_from_strings_refuses_one_string(rows: str) -> None:
    # it was read as one row per character: "..#." gave a 4 x 1 column
    with pytest.raises(InvalidInputError, match="one per row, got one string"):
        TileGrid.from_strings(rows)


def test_from_strings_refuses_rows_that_are_not_strings() -> None:
    with pytest.raises(InvalidInputError, match="equally long strings"):
        TileGrid.from_strings(["..", 5])  # type: ignore[list-item]
    with pytest.raises(InvalidInputError, match="equally long strings"):
        TileGrid.from_strings([b".."])  # type: ignore[list-item]


@pytest.mark.parametrize("cost", [math.nan, 0.5, 1e13, -math.inf])
def test_set_cost_checks_a_scalar_cost_even_for_an_empty_region(cost: float) -> None:
    grid = TileGrid(np.ones((2, 3), dtype=bool))
    for region in [(5, 5, 9, 9), np.zeros((2, 3), dtype=bool)]:
        with pytest.raises(InvalidInputError, match="cost must"):
            grid.set_cost(region, cost)
    assert grid.version == 0


def test_fast_path_equals_the_general_search_bit_for_bit() -> None:
    for seed in range(40):
        query = _random_query(seed)
        if query is None:
            continue
        grid, start, goal = query
        if not grid.passable[goal[1], goal[0]]:
            continue
        for rule in [*RULES, True, False]:
            for heuristic in (None, "octile", "chebyshev", "euclidean", "zero"):
                options = {"diagonal": rule} if heuristic is None else {"diagonal": rule, "heuristic": heuristic}
                fast = find_path(grid, start, goal, **options)
                search = GridSearch(grid, start, goal, **options)  # type: ignore[arg-type]
                search.step(None)
                general = search.result()
                assert (fast.status, fast.cost, fast.expanded) == (general.status, general.cost, general.expanded)
                assert np.array_equal(fast.cells, general.cells) and np.array_equal(fast.points, general.points)


@pytest.mark.parametrize("algorithm", ["astar", "jps", "dijkstra"])
def test_sliced_searches_keep_their_snapshot_through_edits(algorithm: str) -> None:
    rng = np.random.default_rng(7)
    walk = rng.random((14, 14)) > 0.2
    walk[0], walk[-1] = True, True
    reference = TileGrid(walk)
    expected = find_path(reference, (0, 0), (13, 13), algorithm=algorithm)
    for k in (1, 2, 7):
        grid = reference.copy()
        gamenav.prepare(grid, "jps")
        search = GridSearch(grid, (0, 0), (13, 13), algorithm=algorithm)
        while not search.step(k).done:
            x, y = (int(v) for v in rng.integers(14, size=2))
            grid.set_walkable((x, y, x + 3, y + 2), bool(rng.integers(2)))
            if grid.passable[0, 0]:
                find_path(grid, (0, 0), (13, 13), algorithm=algorithm, partial=True)  # reuses pooled state
        got = search.result()
        assert (got.status, got.cost) == (expected.status, expected.cost)
        assert np.array_equal(got.cells, expected.cells)


def test_heuristic_that_edits_the_grid_searches_the_snapshot_it_started_on() -> None:
    grid = TileGrid(np.ones((4, 5), dtype=bool))

    def wall(dx: np.ndarray, dy: np.ndarray) -> np.ndarray:
        grid.set_walkable((2, 0, 3, 4), False)
        return np.zeros_like(dx)

    path = find_path(grid, (0, 0), (4, 3), heuristic=wall)
    assert grid.version == 1
    assert path.status is PathStatus.FOUND
    assert path.cost == pytest.approx(1 + 3 * math.sqrt(2.0))  # straight through the new wall's column
    assert any(x == 2 for x, _ in path.cells.tolist())


@pytest.mark.parametrize("value", [math.nan, math.inf, -1.0, None])
def test_heuristic_values_that_are_not_finite_and_non_negative_are_refused(value: object) -> None:
    grid = TileGrid(np.ones((3, 3), dtype=bool))
    with pytest.raises(InvalidInputError, match="heuristic"):
        find_path(grid, (0, 0), (2, 2), heuristic=lambda dx, dy: value)


def test_listener_errors_lose_no_edit_and_nested_edits_arrive_in_order() -> None:
    grid = TileGrid(np.ones((3, 4), dtype=bool))
    heard: list[tuple[str, int]] = []

    def first(change: gamenav.GridChange) -> None:
        heard.append(("first", change.version))
        if change.version == 1:
            grid.set_walkable((1, 1), False)  # re-entrant: applied now, delivered after this change

    def second(change: gamenav.GridChange) -> None:
        heard.append(("second", change.version))
        raise ValueError("listener bug")

    grid.subscribe(first)
    grid.subscribe(second)
    with pytest.raises(ValueError, match="listener bug"):
        grid.set_walkable((0, 1), False)
    assert heard == [("first", 1), ("second", 1), ("first", 2), ("second", 2)]
    assert grid.version == 2 and not grid.passable[1, 0] and not grid.passable[1, 1]


@pytest.mark.parametrize("shape", [(1, 1), (1, 7), (7, 1)])
def test_degenerate_shapes(shape: tuple[int, int]) -> None:
    grid = TileGrid(np.ones(shape, dtype=bool), y_up=True, origin=(-1e-289, 1e-289), cell_size=1e-300)
    end = (shape[1] - 1, shape[0] - 1)
    for algorithm in ("astar", "jps", "dijkstra", "hpa", "subgoal"):
        path = find_path(grid, (0, 0), end, algorithm=algorithm, smooth=algorithm == "astar")
        assert path.status is PathStatus.FOUND and path.cost == max(shape) - 1
    blocked = TileGrid(np.zeros(shape, dtype=bool))
    with pytest.raises(BlockedEndpointError):
        find_path(blocked, (0, 0), end, partial=True)
    with pytest.raises(BlockedEndpointError):
        gamenav.distance_field(blocked, (0, 0))


def test_grids_beyond_the_int32_node_limit_are_refused_before_allocating() -> None:
    cell = np.ones((1, 1), dtype=bool)
    for shape in [(46339, 46339), (1, 2**31), (715827881, 1)]:
        with pytest.raises(InvalidInputError, match="too many cells"):
            TileGrid(np.broadcast_to(cell, shape))
        with pytest.raises(InvalidInputError, match="too many cells"):
            gamenav.SearchWorkspace(shape)


def test_weak_listeners_live_as_long_as_their_owner() -> None:
    grid = TileGrid(np.ones((2, 2), dtype=bool))
    heard: list[int] = []

    class Owner:
        def on_change(self, change: gamenav.GridChange) -> None:
            heard.append(change.version)

    owner = Owner()
    grid.subscribe(owner.on_change, weak=True)
    grid.subscribe(lambda change: heard.append(-change.version), weak=True)  # no other reference: gone
    grid.set_walkable((0, 0), False)
    del owner
    grid.set_walkable((0, 0), True)
    assert heard == [1]


def test_the_arrays_a_grid_hands_out_cannot_be_made_writable() -> None:
    # numpy lets a read-only view be made writable again when its base is writable: the
    # grid's cells changed behind its back (no new version, no listener, stale caches)
    grid = TileGrid.from_strings(["...", "...", "..."])
    change = grid.set_walkable((0, 0), False)
    assert change is not None
    for view in (grid.walkable, grid.cost, grid.passable, change.passable):
        with pytest.raises(ValueError, match="WRITEABLE"):
            view.flags.writeable = True
    assert find_path(grid, (0, 1), (2, 1)).cells.tolist() == [[0, 1], [1, 1], [2, 1]]
    assert grid.version == 1 and grid.passable.sum() == 8


@pytest.mark.parametrize("diagonal", ["no_corner_cutting", "always"])
def test_island_labels_and_change_cells_cannot_be_made_writable(diagonal: str) -> None:
    # the labels came from numba (a writable base) and a change's cells were frozen owners:
    # both could be made writable, and labels written there made searches answer NO_PATH
    grid = TileGrid.from_strings(["....", "....", "...."])
    labels = grid.components(diagonal)
    change = grid.set_walkable((0, 0, 2, 1), False)
    assert change is not None
    for view in (labels, grid.components(diagonal), change.blocked, change.opened,
                 change.cost_raised, change.cost_lowered):
        with pytest.raises(ValueError, match="WRITEABLE"):
            view.flags.writeable = True
    assert find_path(grid, (0, 2), (3, 0), diagonal=diagonal).status is PathStatus.FOUND
    assert change.blocked.tolist() == [[0, 0], [1, 0]]


def test_a_search_collected_during_an_index_repair_gives_its_table_back() -> None:
    """A garbage collection that struck while an edit repaired the JPS+ table dropped an unfinished
    JPS+ search held in a reference cycle; its __del__ gave the table back, taking the index's
    lock that the repair held: the edit (and the game) hung for ever."""
    import gc
    import threading

    from gamenav.grid import jump_plus

    rng = np.random.default_rng(1)
    walk = rng.random((60, 60)) > 0.02  # sparse walls: JPS+ answers
    walk[0], walk[-1] = True, True
    grid = TileGrid(walk)
    gamenav.prepare(grid, "jps")

    class Unit:
        def __init__(self) -> None:
            self.me = self  # a cycle: only a collection frees it
            self.search = GridSearch(grid, (0, 0), (59, 59), algorithm="jps")
            self.search.step(1)

    index = jump_plus.jump_index(grid)
    repair = index._repair

    def collecting(*args: int) -> int:
        gc.collect()  # the collection strikes here, inside the repair
        return repair(*args)

    gc.disable()
    try:
        Unit()
        assert index._users == 1  # the dropped unit's search holds the table
        index._repair = collecting  # type: ignore[method-assign]
        editor = threading.Thread(target=grid.set_walkable, args=((30, 30, 33, 33), False), daemon=True)
        editor.start()
        editor.join(10)  # (the old code never returned)
    finally:
        gc.enable()
    assert not editor.is_alive() and grid.version == 1 and index.version == 1
    expected = find_path(grid, (0, 0), (59, 59))
    got = find_path(grid, (0, 0), (59, 59), algorithm="jps")
    assert got.status is PathStatus.FOUND and got.cost == pytest.approx(expected.cost, rel=1e-12)


def test_an_edit_by_a_del_during_another_edit_is_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    """A garbage collection that struck while an edit built its new snapshot ran the __del__ of a
    dropped crate, which edits the grid (blocks its cell): the outer edit then installed a
    snapshot made from the grid before that edit. The crate's edit was lost (cell (2, 2) open
    again, although the listeners had heard it blocked) and version 1 was reported twice."""
    import gc

    from gamenav.grid import tilegrid

    grid = TileGrid(np.ones((3, 3), dtype=bool))
    heard: list[tuple[int, list[list[int]]]] = []
    grid.subscribe(lambda change: heard.append((change.version, change.blocked.tolist())))

    class Crate:
        def __init__(self) -> None:
            self.me = self  # a cycle: only a collection frees it

        def __del__(self) -> None:
            grid.set_walkable((2, 2), False)

    strike = [gc.collect]
    init = tilegrid._GridState.__init__

    def collecting(state: tilegrid._GridState, *args: Any, **kwargs: Any) -> None:
        if strike and args[3] == 1:  # while the snapshot of version 1 is built
            strike.pop()()
        init(state, *args, **kwargs)

    monkeypatch.setattr(tilegrid._GridState, "__init__", collecting)
    gc.disable()
    try:
        Crate()
        change = grid.set_walkable((0, 0), False)
    finally:
        gc.enable()
    assert not strike and change is not None and change.version == 2
    assert heard == [(1, [[2, 2]]), (2, [[0, 0]])]
    assert grid.version == 2 and not grid.passable[2, 2] and not grid.passable[0, 0]
