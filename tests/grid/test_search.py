"""GridSearch / find_path / distance_field: outcomes, options, errors (with their messages)."""

from __future__ import annotations

import heapq
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import gamenav
from gamenav import (BlockedEndpointError, InvalidInputError, OutOfBoundsError, PathStatus,
                     UnsupportedOptionError)
from tests.grid._reference import check_path

ROOM = ["......",
        ".####.",
        ".#..#.",
        ".#..#.",
        "......"]


@pytest.fixture
def room() -> gamenav.TileGrid:
    return gamenav.TileGrid.from_strings(ROOM)


def test_start_equals_goal_is_found_with_one_cell(room) -> None:
    path = gamenav.find_path(room, (0, 0), (0, 0))
    assert path.status is PathStatus.FOUND and path.cost == 0.0 and path.expanded == 0
    assert path.cells.tolist() == [[0, 0]]
    np.testing.assert_allclose(path.points, [[0.5, 0.5]])


def test_simple_path_is_valid_optimal_and_world_points_follow_the_transform() -> None:
    grid = gamenav.TileGrid.from_strings(["...", ".#.", "..."], cell_size=2.0, origin=(10, 20),
                                         y_up=True)
    path = gamenav.find_path(grid, (0, 0), (2, 2))
    assert path.status is PathStatus.FOUND
    assert math.isclose(path.cost, 4.0)
    check_path(grid, path, (0, 0), (2, 2))
    assert path.points[0].tolist() == [11.0, 25.0]  # row 0 is the top in a y-up world
    assert isinstance(path.cost, float) and path.cells.dtype == np.int64


def test_results_are_deterministic_and_read_only(room) -> None:
    a = gamenav.find_path(room, (0, 0), (5, 4))
    b = gamenav.find_path(room, (0, 0), (5, 4))
    np.testing.assert_array_equal(a.cells, b.cells)
    assert a.cost == b.cost and a.expanded == b.expanded
    with pytest.raises(ValueError):
        a.cells[0, 0] = 3


def test_unreachable_goal_is_no_path_without_expanding() -> None:
    grid = gamenav.TileGrid.from_strings(["..#..", "..#..", "..#.."])
    for algorithm in ("astar", "jps", "dijkstra"):
        search = gamenav.GridSearch(grid, (0, 0), (4, 2), algorithm=algorithm)
        assert search.status is PathStatus.NO_PATH and search.expanded == 0
        assert search.step() is PathStatus.NO_PATH
        path = search.result()
        assert path.status is PathStatus.NO_PATH and path.cells.shape == (0, 2)
        assert math.isinf(path.cost)


def test_partial_path_to_unreachable_goal_ends_next_to_the_wall() -> None:
    grid = gamenav.TileGrid.from_strings(["..#..", "..#..", "..#.."])
    for algorithm in ("astar", "jps", "dijkstra"):
        path = gamenav.find_path(grid, (0, 0), (4, 1), partial=True, algorithm=algorithm)
        assert path.status is PathStatus.PARTIAL
        assert path.cells[-1].tolist() == [1, 1]
        assert math.isclose(path.cost, math.sqrt(2))


def test_blocked_goal_with_partial_stops_at_the_closest_cell(room) -> None:
    path = gamenav.find_path(room, (0, 0), (2, 1), partial=True)  # (2, 1) is a wall
    assert path.status is PathStatus.PARTIAL
    assert path.cells[-1].tolist() == [2, 0]
    assert path.cost == 2.0


def test_corner_cutting_rules_change_the_path() -> None:
    grid = gamenav.TileGrid.from_strings([".#", "#."])
    assert gamenav.find_path(grid, (0, 0), (1, 1)).status is PathStatus.NO_PATH
    assert gamenav.find_path(grid, (0, 0), (1, 1), diagonal="at_most_one_blocked").status \
        is PathStatus.NO_PATH
    path = gamenav.find_path(grid, (0, 0), (1, 1), diagonal="always")
    assert path.status is PathStatus.FOUND and math.isclose(path.cost, math.sqrt(2))
    half = gamenav.TileGrid.from_strings(["..", "#."])
    assert math.isclose(gamenav.find_path(half, (0, 0), (1, 1), diagonal="at_most_one_blocked").cost,
                        math.sqrt(2))
    assert gamenav.find_path(half, (0, 0), (1, 1)).cost == 2.0


def test_cell_costs_are_paid_on_entry() -> None:
    cost = np.array([[1.0, 9.0, 1.0], [1.0, 1.0, 1.0]])
    grid = gamenav.TileGrid(np.ones((2, 3), bool), cost=cost)
    path = gamenav.find_path(grid, (0, 0), (2, 0), diagonal=False)
    assert path.cells.tolist() == [[0, 0], [0, 1], [1, 1], [2, 1], [2, 0]]
    assert path.cost == 4.0
    assert gamenav.find_path(grid, (1, 1), (1, 0)).cost == 9.0


def test_heuristic_options_and_callables(room) -> None:
    base = gamenav.find_path(room, (0, 0), (5, 4)).cost
    for heuristic in ("octile", "euclidean", "chebyshev", "zero", gamenav.Heuristic.OCTILE,
                      lambda dx, dy: np.maximum(dx, dy),   # vectorised
                      lambda dx, dy: math.hypot(dx, dy)):  # scalar only: evaluated per cell
        assert gamenav.find_path(room, (0, 0), (5, 4), heuristic=heuristic).cost == base
    with pytest.raises(InvalidInputError, match="heuristic must be one of"):
        gamenav.find_path(room, (0, 0), (5, 4), heuristic="nearest")
    with pytest.raises(InvalidInputError, match="heuristic must be a name, a callable or None"):
        gamenav.find_path(room, (0, 0), (5, 4), heuristic=3)
    with pytest.raises(InvalidInputError, match=r"heuristic\(dx, dy\) must return finite values >= 0"):
        gamenav.find_path(room, (0, 0), (5, 4), heuristic=lambda dx, dy: -1.0 * dx)


def test_endpoint_errors(room) -> None:
    with pytest.raises(BlockedEndpointError, match=r"start \(1, 1\) is a blocked cell"):
        gamenav.find_path(room, (1, 1), (0, 0))
    with pytest.raises(BlockedEndpointError, match=r"goal \(2, 1\) is a blocked cell.*partial=True"):
        gamenav.find_path(room, (0, 0), (2, 1))
    with pytest.raises(OutOfBoundsError, match=r"start \(6, 0\) is outside the grid \(x in 0..5"):
        gamenav.find_path(room, (6, 0), (0, 0))
    with pytest.raises(OutOfBoundsError, match=r"goal \(0, -1\) is outside the grid"):
        gamenav.find_path(room, (0, 0), (0, -1))
    for bad in ((0.5, 1), "ab", (1, 2, 3), None, (True, 0)):
        with pytest.raises(InvalidInputError, match="start must be an \\(x, y\\) pair of ints"):
            gamenav.find_path(room, bad, (0, 0))
    assert gamenav.find_path(room, np.array([0, 0]), (np.int32(5), np.int64(4))).found


@pytest.mark.parametrize("unordered", [{5, 0}, frozenset({5, 0}), {5: "x", 0: "y"}])
def test_unordered_cells_are_refused(room, unordered: object) -> None:
    # a set or a dict unpacked in hash order: {5, 0} was searched from (0, 5)
    for entry in (lambda: gamenav.find_path(room, unordered, (0, 0)),
                  lambda: gamenav.find_paths(room, [unordered], [(0, 0)])[0],
                  lambda: gamenav.GridSearch(room, unordered, (0, 0), algorithm="jps")):
        with pytest.raises(InvalidInputError, match=r"start must be an \(x, y\) pair of ints"):
            entry()


def test_option_errors(room) -> None:
    with pytest.raises(InvalidInputError,
                       match=r"algorithm must be one of \['astar', 'jps', 'dijkstra', 'hpa', 'subgoal'\], got 'bfs'"):
        gamenav.find_path(room, (0, 0), (5, 4), algorithm="bfs")
    for weight in (0.5, float("nan"), float("inf")):
        with pytest.raises(InvalidInputError, match="weight must be a finite number >= 1"):
            gamenav.find_path(room, (0, 0), (5, 4), weight=weight)
    with pytest.raises(InvalidInputError, match="weight must be a number >= 1, got 'heavy'"):
        gamenav.find_path(room, (0, 0), (5, 4), weight="heavy")
    with pytest.raises(InvalidInputError, match="diagonal must be one of"):
        gamenav.find_path(room, (0, 0), (5, 4), diagonal="sometimes")
    with pytest.raises(UnsupportedOptionError, match="dijkstra' uses no heuristic"):
        gamenav.find_path(room, (0, 0), (5, 4), algorithm="dijkstra", weight=2.0)
    with pytest.raises(InvalidInputError, match="grid must be a TileGrid, got ndarray"):
        gamenav.GridSearch(np.ones((3, 3), bool), (0, 0), (1, 1))


@pytest.mark.parametrize(("options", "message"), [
    (dict(diagonal="never"), "diagonal='never' \\(needs 'no_corner_cutting'\\)"),
    (dict(diagonal="always"), "diagonal='always'"),
    (dict(weight=1.5), "weight=1.5 \\(needs 1\\)"),
    (dict(heuristic="euclidean"), "heuristic='euclidean' \\(needs None or 'octile'\\)"),
])
def test_jps_rejects_options_it_cannot_honour(room, options, message) -> None:
    with pytest.raises(UnsupportedOptionError, match=message):
        gamenav.find_path(room, (0, 0), (5, 4), algorithm="jps", **options)


def test_jps_rejects_weighted_grids() -> None:
    grid = gamenav.TileGrid(np.ones((3, 3), bool), cost=np.full((3, 3), 2.0))
    with pytest.raises(UnsupportedOptionError, match="non-uniform cell costs.*Use algorithm='astar'"):
        gamenav.find_path(grid, (0, 0), (2, 2), algorithm="jps")
    assert gamenav.find_path(grid, (0, 0), (2, 2)).cost == pytest.approx(4 * math.sqrt(2))


def test_sliced_search_protocol(room) -> None:
    search = gamenav.GridSearch(room, (0, 0), (5, 4))
    assert isinstance(search, gamenav.Search)
    assert (search.start, search.goal, search.grid_version) == ((0, 0), (5, 4), 0)
    assert search.status is PathStatus.IN_PROGRESS
    assert search.result().status is PathStatus.IN_PROGRESS and len(search.result()) == 0
    assert search.step(1) is PathStatus.IN_PROGRESS and search.expanded == 1
    for bad in (0, -3, 1.5, True, "2"):
        with pytest.raises(InvalidInputError, match=r"max_expansions must be an int from 1 to 2\*\*63 - 1 or None"):
            search.step(bad)
    assert search.step(None) is PathStatus.FOUND
    assert search.step(5) is PathStatus.FOUND  # done: no further work
    assert search.result().cost == gamenav.find_path(room, (0, 0), (5, 4)).cost


def test_cancel(room) -> None:
    search = gamenav.GridSearch(room, (0, 0), (5, 4))
    search.step(2)
    search.cancel()
    assert search.status is PathStatus.CANCELLED and search.step() is PathStatus.CANCELLED
    assert search.result().status is PathStatus.CANCELLED and search.result().expanded == 2
    done = gamenav.GridSearch(room, (0, 0), (5, 4))
    done.step()
    done.cancel()  # no effect once done
    assert done.status is PathStatus.FOUND


def test_search_keeps_its_grid_snapshot_across_edits(room) -> None:
    search = gamenav.GridSearch(room, (0, 0), (5, 0))
    search.step(1)
    room.set_walkable((0, 2, 6, 3), False)  # a wall row the search must not see
    room.set_walkable((2, 0, 4, 1), False)
    assert room.version == 2 and search.grid_version == 0
    search.step()
    assert search.result().cost == 5.0
    fresh = gamenav.GridSearch(room, (0, 0), (5, 0))
    assert fresh.grid_version == 2 and fresh.step() is PathStatus.NO_PATH


def test_workspaces(room) -> None:
    ws = gamenav.SearchWorkspace(room.shape)
    first = gamenav.find_path(room, (0, 0), (5, 4), workspace=ws)
    for _ in range(3):
        again = gamenav.find_path(room, (0, 0), (5, 4), workspace=ws)
        np.testing.assert_array_equal(first.cells, again.cells)
    older = gamenav.GridSearch(room, (0, 0), (5, 4), workspace=ws)
    older.step(1)
    newer = gamenav.GridSearch(room, (5, 4), (0, 0), workspace=ws)
    with pytest.raises(InvalidInputError, match="SearchWorkspace was taken over by a newer search"):
        older.step()
    assert newer.step() is PathStatus.FOUND
    with pytest.raises(InvalidInputError, match=r"workspace shape \(2, 2\) does not match the grid shape \(5, 6\)"):
        gamenav.GridSearch(room, (0, 0), (5, 4), workspace=gamenav.SearchWorkspace((2, 2)))
    with pytest.raises(InvalidInputError, match="workspace must be a SearchWorkspace, got dict"):
        gamenav.GridSearch(room, (0, 0), (5, 4), workspace={})
    with pytest.raises(InvalidInputError, match="shape must be positive"):
        gamenav.SearchWorkspace((0, 3))
    with pytest.raises(InvalidInputError, match=r"shape must be \(height, width\)"):
        gamenav.SearchWorkspace(5)


def test_smooth_removes_waypoints_on_open_ground() -> None:
    grid = gamenav.TileGrid(np.ones((5, 9), bool))
    raw = gamenav.find_path(grid, (0, 0), (8, 2))
    path = gamenav.find_path(grid, (0, 0), (8, 2), smooth=True)
    assert path.cells.tolist() == [[0, 0], [8, 2]] and len(raw) == 9
    assert path.cost == raw.cost
    walled = gamenav.TileGrid.from_strings([".....", "..#..", "....."])
    bend = gamenav.find_path(walled, (0, 1), (4, 1), smooth=True)
    assert len(bend) == 3  # the wall cell forces one turning point


def test_distance_field_values_and_errors(room) -> None:
    field = gamenav.distance_field(room, (0, 0))
    assert field.shape == room.shape and field.dtype == np.float64
    assert field[0, 0] == 0.0 and np.isinf(field[1, 1]) and field[2, 2] == 8.0
    assert field[4, 5] == gamenav.find_path(room, (0, 0), (5, 4)).cost
    two = gamenav.distance_field(room, [(0, 0), (5, 4)], diagonal=False, max_cost=3)
    assert two[4, 5] == 0.0 and two[0, 3] == 3.0 and two[2, 0] == 2.0
    assert np.isinf(two[0, 4])  # 4 from (0, 0) and 5 from (5, 4): beyond max_cost
    with pytest.raises(BlockedEndpointError, match=r"source \(1, 1\) is a blocked cell"):
        gamenav.distance_field(room, [(0, 0), (1, 1)])
    with pytest.raises(OutOfBoundsError, match=r"source \(9, 0\) is outside the grid"):
        gamenav.distance_field(room, (9, 0))
    with pytest.raises(InvalidInputError, match=r"sources must be an \(x, y\) cell or an \(n, 2\) int array"):
        gamenav.distance_field(room, [(0.5, 0)])
    with pytest.raises(InvalidInputError, match=r"sources must be"):
        gamenav.distance_field(room, np.zeros((0, 2), dtype=int))
    with pytest.raises(InvalidInputError, match="max_cost must be a number >= 0"):
        gamenav.distance_field(room, (0, 0), max_cost=-1)
    with pytest.raises(InvalidInputError, match="grid must be a TileGrid"):
        gamenav.distance_field(None, (0, 0))


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**31 - 1), st.sampled_from(["no_corner_cutting", "never", "always"]))
def test_distance_field_cost_scale_equals_a_grid_with_those_costs(seed: int, diagonal: str) -> None:
    """Scaling each cell's cost for one field equals a grid whose costs are scaled (the grid
    itself is not changed)."""
    rng = np.random.default_rng(seed)
    h, w = int(rng.integers(1, 9)), int(rng.integers(1, 9))
    walk = rng.random((h, w)) < 0.8
    walk[0, 0] = True
    cost = rng.uniform(2.0, 3.0, (h, w))
    scale = rng.choice([0.5, 1.0, 2.0, 7.25], (h, w))  # (products >= 1: a grid's costs)
    grid = gamenav.TileGrid(walk, cost=cost)
    scaled = gamenav.distance_field(grid, (0, 0), diagonal=diagonal, cost_scale=scale)
    expected = gamenav.distance_field(gamenav.TileGrid(walk, cost=cost * scale), (0, 0), diagonal=diagonal)
    np.testing.assert_allclose(scaled, expected, rtol=1e-12)
    np.testing.assert_array_equal(gamenav.distance_field(grid, (0, 0), diagonal=diagonal),
                                  gamenav.distance_field(gamenav.TileGrid(walk, cost=cost), (0, 0),
                                                         diagonal=diagonal))


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**31 - 1))
def test_distance_field_cost_scale_below_one_is_still_dijkstra(seed: int) -> None:
    """Scales below 1 (cheaper cells, which a grid's own costs cannot be) against a plain
    4-connected Dijkstra where entering a cell costs its scale."""
    rng = np.random.default_rng(seed)
    h, w = int(rng.integers(1, 10)), int(rng.integers(1, 10))
    walk = rng.random((h, w)) < 0.85
    walk[0, 0] = True
    scale = rng.choice([0.01, 0.3, 0.5, 1.0, 3.0], (h, w))
    field = gamenav.distance_field(gamenav.TileGrid(walk), (0, 0), diagonal="never", cost_scale=scale)
    want = np.full((h, w), np.inf)
    want[0, 0] = 0.0
    heap = [(0.0, 0, 0)]
    while heap:
        d, y, x = heapq.heappop(heap)
        if d > want[y, x]:
            continue
        for ny, nx in ((y + 1, x), (y - 1, x), (y, x + 1), (y, x - 1)):
            if 0 <= ny < h and 0 <= nx < w and walk[ny, nx] and d + scale[ny, nx] < want[ny, nx]:
                want[ny, nx] = d + scale[ny, nx]
                heapq.heappush(heap, (want[ny, nx], ny, nx))
    np.testing.assert_allclose(field, want, rtol=1e-12)


def test_distance_field_cost_scale_errors(room) -> None:
    ones = np.ones(room.shape)
    for bad, message in (
            (np.ones((2, 2)), "cost_scale must be a 5 x 6 array of numbers"),
            (np.ones(room.shape, bool), "cost_scale must be a 5 x 6 array of numbers"),
            ([[1, 2]], "cost_scale must be a 5 x 6 array of numbers"),
            ("x", "cost_scale must be a 5 x 6 array of numbers"),
            (np.where(np.eye(5, 6, k=2, dtype=bool), np.nan, ones), r"finite numbers > 0, got nan at cell \(2, 0\)"),
            (np.where(np.eye(5, 6, dtype=bool), 0.0, ones), r"finite numbers > 0, got 0.0 at cell \(0, 0\)"),
            (-ones, "finite numbers > 0"),
            (np.full(room.shape, 1e308), "cost_scale is too large")):
        with pytest.raises(InvalidInputError, match=message):
            gamenav.distance_field(room, (0, 0), cost_scale=bad)


def test_jps_follows_grid_edits() -> None:
    grid = gamenav.TileGrid(np.ones((12, 16), bool))
    before = gamenav.find_path(grid, (0, 5), (15, 5), algorithm="jps")
    assert before.cost == 15.0
    grid.set_walkable((8, 0, 9, 11), False)  # a wall with a gap in the last row
    after = gamenav.find_path(grid, (0, 5), (15, 5), algorithm="jps")
    astar = gamenav.find_path(grid, (0, 5), (15, 5))
    assert math.isclose(after.cost, astar.cost) and after.cost > before.cost
    check_path(grid, after, (0, 5), (15, 5))
    grid.set_walkable((8, 11), False)  # close the gap
    assert gamenav.find_path(grid, (0, 5), (15, 5), algorithm="jps").status is PathStatus.NO_PATH


def test_prepare_builds_the_jps_and_hpa_data_before_the_first_query(monkeypatch: pytest.MonkeyPatch) -> None:
    from gamenav.grid import hpa, jump_plus

    walk = np.ones((120, 130), dtype=bool)
    walk[10:110, 60] = False
    grid = gamenav.TileGrid(walk)
    gamenav.prepare(grid, "jps", "hpa", "astar")
    table, graph = jump_plus.jump_index(grid), hpa.hpa_index(grid)

    def no_build(*args: object, **kwargs: object) -> None:
        raise AssertionError("built on a query after prepare()")

    monkeypatch.setattr(jump_plus.JumpIndex, "__init__", no_build)
    monkeypatch.setattr(hpa.HpaIndex, "__init__", no_build)
    for algorithm in ("jps", "hpa"):
        path = gamenav.find_path(grid, (2, 60), (120, 60), algorithm=algorithm)
        assert path.found and path.cost >= gamenav.find_path(grid, (2, 60), (120, 60)).cost - 1e-9
    grid.set_walkable((60, 50), True)  # kept in step with edits, not rebuilt
    assert jump_plus.jump_index(grid) is table and hpa.hpa_index(grid) is graph
    assert gamenav.find_path(grid, (2, 60), (120, 60), algorithm="jps").cost == \
        pytest.approx(gamenav.find_path(grid, (2, 60), (120, 60)).cost, rel=1e-12)


@pytest.mark.parametrize("args", [(), ("bfs",), (None,), (["jps"],)])
def test_prepare_rejects_bad_algorithms(args: tuple[object, ...]) -> None:
    with pytest.raises(InvalidInputError, match="algorithm"):
        gamenav.prepare(gamenav.TileGrid(np.ones((3, 3), bool)), *args)  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError, match="must be a TileGrid"):
        gamenav.prepare(np.ones((3, 3), bool), "jps")  # type: ignore[arg-type]


def test_numpy_bools_are_accepted_wherever_bools_are(room) -> None:
    """``diagonal=np.bool_(False)`` raised InvalidInputError while ``False`` was accepted."""
    for value, rule in ((False, "never"), (True, "no_corner_cutting")):
        expected = gamenav.find_path(room, (0, 0), (5, 4), diagonal=rule)
        for given_value in (value, np.bool_(value)):
            path = gamenav.find_path(room, (0, 0), (5, 4), diagonal=given_value)
            assert path.cost == expected.cost and path.cells.tolist() == expected.cells.tolist()
            search = gamenav.GridSearch(room, (0, 0), (5, 4), diagonal=given_value)
            search.step(None)
            assert search.result().cost == expected.cost
        field = gamenav.distance_field(room, [(0, 0)], diagonal=np.bool_(value))
        np.testing.assert_array_equal(field, gamenav.distance_field(room, [(0, 0)], diagonal=rule))
    assert gamenav.Diagonal.parse(np.bool_(False)) is gamenav.Diagonal.NEVER


def test_jps_partial_results_trace_the_chain_of_their_node() -> None:
    # JPS+ reached (10, 14) through the closed jump point (10, 16) and wrote that cell's parent
    # over: the partial path to (2, 14) zig-zagged through it, its cells cost 33.7, not 30.3
    grid = gamenav.TileGrid.from_strings([
        "...........#######.....", "...........#######.....", "...........#######.....",
        "...........#######.....", "...........#######....#", "......############....#",
        "......############.....", "......########.........", "......########.........",
        "......########.........", "......########.........", "......########.........",
        "....#####..............", "....#####...........###", "....#####....####...###",
        "...#######...####......", "....#####....####......", "....#####....####......",
        "....#####..............", "......................."])
    search = gamenav.GridSearch(grid, (22, 9), (3, 3), algorithm="jps")
    while search.step(1) is PathStatus.IN_PROGRESS:
        path = search.partial_result()
        end = tuple(path.cells[-1])
        assert path.cost == pytest.approx(check_path(grid, path, (22, 9), end), rel=1e-12)
        assert path.cost == pytest.approx(gamenav.find_path(grid, (22, 9), end).cost, rel=1e-12)
    assert search.result().cost == pytest.approx(gamenav.find_path(grid, (22, 9), (3, 3)).cost)


def test_jps_measures_the_share_of_jump_cells_after_edits_too() -> None:
    # it was measured at the build only: random obstacles loaded into a grid built open kept
    # JPS+ (2.6x A*'s time there), a map loaded into one built from noise kept A*
    from gamenav.grid import jump_plus

    rng = np.random.default_rng(3)
    noise = rng.random((60, 80)) > 0.25
    grid = gamenav.TileGrid(np.ones(noise.shape, dtype=bool))
    index = jump_plus.jump_index(grid)
    assert index.jump_share == 0.0 and not index.dense
    grid.set_walkable(~noise, False)
    assert index.dense
    labels = grid.components()
    (ay, ax), (by, bx) = np.argwhere(labels == np.bincount(labels[noise]).argmax())[[0, -1]]
    assert gamenav.GridSearch(grid, (ax, ay), (bx, by), algorithm="jps")._plus is None  # A*
    for _ in range(30):
        x, y = rng.integers(0, 80), rng.integers(0, 60)
        grid.set_walkable((int(x), int(y), int(x) + 3, int(y) + 2), bool(rng.integers(0, 2)))
        assert index.jump_share == jump_plus.JumpIndex(gamenav.TileGrid(grid.passable)).jump_share
    grid.set_walkable(np.ones(noise.shape, dtype=bool), True)
    assert index.jump_share == 0.0 and not index.dense


def test_jps_steps_keep_their_budget_when_the_node_pool_grows() -> None:
    # JPS+ grows its node pool mid-step (long searches through a dense part of an open map), and
    # the kernel then ran again with the whole budget: step(10) expanded 19 nodes on a 1500 x 1500
    # open map with an 800 x 800 block of random obstacles
    walk = np.ones((40, 40), dtype=bool)
    walk[4::6, 3::5] = False
    walk[10:30, 20] = False
    grid = gamenav.TileGrid(walk)
    search = gamenav.GridSearch(grid, (0, 0), (39, 39), algorithm="jps")
    plus = search._plus
    assert plus is not None  # JPS+, not A* (not a dense map)
    small = plus._alloc(plus.reserve + 8)  # room for 8 nodes: grows at the first steps
    for new, old in zip(small, plus.pool, strict=True):
        new[:1] = old[:1]  # the start, opened by begin()
    plus.pool = small
    done = [0]
    while search.step(5) is PathStatus.IN_PROGRESS:
        done.append(search.expanded)
    done.append(search.expanded)
    assert len(plus.pool[0]) > len(small[0])  # it grew
    assert max(np.diff(done)) <= 5
    one = gamenav.find_path(grid, (0, 0), (39, 39), algorithm="jps")
    assert search.result().cost == one.cost and search.expanded == one.expanded
    np.testing.assert_array_equal(search.result().cells, one.cells)


def test_distance_field_cost_scale_error_says_what_was_wrong_with_the_right_shape(room) -> None:
    """A bool mask of the grid's shape got "must be a 5 x 6 array of numbers ([y, x]), got ndarray of
    shape (5, 6)": the message named the shape it asked for and not what was wrong."""
    with pytest.raises(InvalidInputError, match=r"no bools\), got ndarray of shape \(5, 6\) and dtype bool"):
        gamenav.distance_field(room, (0, 0), cost_scale=np.ones(room.shape, bool))
    with pytest.raises(InvalidInputError, match=r"got list of ragged rows"):
        gamenav.distance_field(room, (0, 0), cost_scale=[[1.0, 2.0], [3.0]])
