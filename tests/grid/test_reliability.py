"""Issue 8 on the grid core: copies, pickling, memory of dropped searches, clear errors."""

from __future__ import annotations

import copy
import gc
import math
import pickle
import weakref

import numpy as np
import pytest

import gamenav
from gamenav import (BlockedEndpointError, GamenavError, GridSearch, InvalidInputError,
                     InvalidOptionError, OutOfBoundsError, PathStatus, SearchWorkspace, TileGrid)
from gamenav.grid import search as search_module
from gamenav.grid.tilegrid import MAX_COST

COPIES = {"copy": copy.copy, "deepcopy": copy.deepcopy,
          "pickle": lambda g: pickle.loads(pickle.dumps(g)), "method": lambda g: g.copy()}


def _two_rooms() -> TileGrid:
    return TileGrid.from_strings(["..#..", "..#..", "..#.."])


# -- copies -------------------------------------------------------------------------------
@pytest.mark.parametrize("how", sorted(COPIES))
def test_a_copy_owns_its_cells_labels_and_listeners(how) -> None:
    grid = _two_rooms()
    heard: list[int] = []
    grid.subscribe(lambda change: heard.append(change.version))
    grid.set_walkable((0, 0), False)  # version 1
    twin = COPIES[how](grid)
    assert twin.version == 0 and np.array_equal(twin.passable, grid.passable)
    grid.set_walkable((4, 0), False)         # the original: still two rooms
    assert not grid.connected((0, 1), (4, 1))  # its labels are cached now
    twin.set_walkable((2, 1), True)          # the twin: a door
    assert twin.connected((0, 1), (4, 1))
    assert gamenav.find_path(twin, (0, 1), (4, 1)).cost == 4.0  # not NO_PATH from shared labels
    assert gamenav.find_path(grid, (0, 1), (4, 1)).status is PathStatus.NO_PATH
    assert heard == [1, 2]  # the twin's edit reached no listener of the original
    assert twin.walkable.base is not grid.walkable.base


def test_copies_keep_the_transform_and_costs() -> None:
    grid = TileGrid(np.ones((2, 3), bool), cost=np.full((2, 3), 2.5), cell_size=0.5,
                    origin=(1.0, -2.0), y_up=True)
    for how, make in COPIES.items():
        twin = make(grid)
        assert (twin.cell_size, twin.origin, twin.y_up) == (0.5, (1.0, -2.0), True), how
        assert np.array_equal(twin.cost, grid.cost), how


@pytest.mark.parametrize("how", ["pickle", "deepcopy", "copy"])
def test_path_arrays_stay_read_only_after_a_round_trip(how) -> None:
    path = gamenav.find_path(_two_rooms(), (0, 0), (1, 2))
    twin = {"pickle": lambda p: pickle.loads(pickle.dumps(p)), "deepcopy": copy.deepcopy,
            "copy": copy.copy}[how](path)
    assert twin.status is path.status and twin.cost == path.cost and twin.expanded == path.expanded
    assert np.array_equal(twin.cells, path.cells) and np.array_equal(twin.points, path.points)
    for name in ("cells", "points", "corridor"):
        with pytest.raises(ValueError, match="read-only"):
            getattr(twin, name)[...] = 0


@pytest.mark.parametrize("how", ["pickle", "deepcopy", "copy"])
def test_grid_change_arrays_stay_read_only_after_a_round_trip(how) -> None:
    """GridChange's cell arrays are documented read-only: pickle and deepcopy rebuilt them writable."""
    change = _two_rooms().set_walkable((0, 0, 2, 1), False)
    assert change is not None
    twin = {"pickle": lambda c: pickle.loads(pickle.dumps(c)), "deepcopy": copy.deepcopy,
            "copy": copy.copy}[how](change)
    assert twin.version == change.version and np.array_equal(twin.passable, change.passable)
    for name in ("blocked", "opened", "cost_raised", "cost_lowered", "passable"):
        assert np.array_equal(getattr(twin, name), getattr(change, name)), name
        with pytest.raises(ValueError, match="read-only"):
            getattr(twin, name)[...] = 0


# -- memory -------------------------------------------------------------------------------
def _live_workspaces() -> list[SearchWorkspace]:
    return [o for o in gc.get_objects() if isinstance(o, SearchWorkspace)]


def test_dropped_unfinished_searches_free_their_workspaces_without_gc() -> None:
    grid = TileGrid(np.ones((30, 30), bool))
    gc.collect()
    before = len(_live_workspaces())
    gc.disable()
    try:
        for _ in range(200):
            search = GridSearch(grid, (0, 0), (29, 29))
            search.step(3)  # unfinished, never cancelled
            del search
        alive = len(_live_workspaces()) - before
    finally:
        gc.enable()
    assert alive <= 1  # each dropped search gave its workspace back; the next one reused it
    assert len([ws for ws in search_module._pool.spare() if ws.shape == grid.shape]) == 1


def test_a_dropped_search_keeps_no_reference_cycle() -> None:
    grid = TileGrid(np.ones((5, 5), bool))
    search = GridSearch(grid, (0, 0), (4, 4), workspace=SearchWorkspace(grid.shape))
    search.step(1)
    ref = weakref.ref(search)
    gc.disable()
    try:
        del search
        assert ref() is None
    finally:
        gc.enable()


def test_pool_is_freed_with_the_last_grid_of_a_shape() -> None:
    grid = TileGrid(np.ones((17, 13), bool))
    other = TileGrid(np.ones((17, 13), bool))
    # workspace= takes the general path, which pools (fast-path queries use a thread's workspace)
    gamenav.find_path(grid, (0, 0), (12, 16), workspace=None)
    gamenav.find_path(other, (0, 0), (12, 16), workspace=None)

    def pooled() -> int:
        return sum(ws.shape == (17, 13) for ws in search_module._pool.spare())

    assert pooled() == 1
    del grid
    gc.collect()
    assert pooled() == 1  # another grid of that shape is alive
    del other
    gc.collect()
    assert pooled() == 0


def test_pool_is_bounded_by_bytes(monkeypatch) -> None:
    small = SearchWorkspace((10, 10)).nbytes
    monkeypatch.setattr(search_module, "POOL_MAX_BYTES", 3 * small)
    grids = [TileGrid(np.ones((10, 10 + i), bool)) for i in range(6)]  # 6 shapes, all alive
    for grid in grids:
        gamenav.find_path(grid, (0, 0), (9, 9), workspace=None)
    spare = search_module._pool.spare()
    assert sum(ws.nbytes for ws in spare) <= 3 * small
    assert search_module._pool._bytes == sum(ws.nbytes for ws in spare)  # the running total
    assert [ws.shape for ws in spare][-1] == (10, 15)  # least recently returned went first
    huge = TileGrid(np.ones((60, 60), bool))
    gamenav.find_path(huge, (0, 0), (59, 59))
    assert all(ws.shape != (60, 60) for ws in search_module._pool.spare())  # above the cap


# -- checked once, started later ----------------------------------------------------------
def test_check_once_start_later() -> None:
    grid = _two_rooms()
    request = GridSearch._check(grid, (0, 0), (1, 2), diagonal="never")
    search = GridSearch._from_checked(request)
    search.step()
    assert search.result().cost == gamenav.find_path(grid, (0, 0), (1, 2), diagonal="never").cost
    grid.set_walkable((1, 2), False)
    with pytest.raises(BlockedEndpointError, match=r"goal \(1, 2\) is a blocked cell"):
        GridSearch._from_checked(request)  # the cells are checked when starting
    with pytest.raises(InvalidOptionError, match="unknown GridSearch option 'diagnal'"):
        GridSearch._check(grid, (0, 0), (1, 2), diagnal="never")


# -- errors -------------------------------------------------------------------------------
@pytest.mark.parametrize("call", [
    lambda g: gamenav.find_path(g, (0, 0), (1, 2), diagnal="never"),
    lambda g: gamenav.begin_search(g, (0, 0), (1, 2), diagnal="never"),
    lambda g: GridSearch(g, (0, 0), (1, 2), diagnal="never"),
])
def test_a_misspelled_option_names_itself_and_the_closest_valid_one(call) -> None:
    with pytest.raises(InvalidOptionError) as info:
        call(_two_rooms())
    assert isinstance(info.value, TypeError) and isinstance(info.value, GamenavError)
    message = str(info.value)
    assert "'diagnal'" in message and "did you mean 'diagonal'?" in message
    assert "valid options: agent_radius, algorithm, diagonal, heuristic, partial, smooth, weight" in message


def test_step_budgets() -> None:
    grid = _two_rooms()
    search = GridSearch(grid, (0, 0), (1, 2))
    assert search.step(2**63 - 1) is PathStatus.FOUND  # the largest budget the kernels count
    search = GridSearch(grid, (0, 0), (1, 2))
    for bad in (0, -1, True, np.bool_(True), 1.5, "3", 2**63, 10**30):
        with pytest.raises(InvalidInputError, match=r"max_expansions must be an int from 1 to 2\*\*63 - 1"):
            search.step(bad)  # type: ignore[arg-type]
    search.step(None)  # finished: a bad budget is still an error, not a silent no-op
    for bad in (0, -1, 1.5):
        with pytest.raises(InvalidInputError, match=r"max_expansions must be an int from 1 to 2\*\*63 - 1"):
            search.step(bad)  # type: ignore[arg-type]
    assert search.step(1) is PathStatus.FOUND


@pytest.mark.parametrize(("options", "message"), [
    (dict(weight="2"), "weight must be a number >= 1, got '2'"),
    (dict(weight=True), "weight must be a number >= 1, got True"),
    (dict(partial="no"), "partial must be a bool, got 'no'"),
    (dict(smooth=2), "smooth must be a bool, got 2"),
    (dict(algorithm=["astar"]), "algorithm must be one of"),
    (dict(heuristic=lambda dx, dy: "far"), r"heuristic\(dx, dy\) must return a number"),
    # a number-like string or a bool is not read as a number
    (dict(heuristic=lambda dx, dy: "1"), r"must return a number for every cell, got an error: '1' is not"),
    (dict(heuristic=lambda dx, dy: dx > 0), r"must return a number for every cell, got an error: \w+ is not"),
    (dict(heuristic=lambda dx, dy: True), r"must return a number for every cell, got an error: True is not"),
])
def test_search_option_values(options, message) -> None:
    with pytest.raises(InvalidInputError, match=message):
        gamenav.find_path(_two_rooms(), (0, 0), (1, 2), **options)


def test_set_walkable_needs_a_bool() -> None:
    grid = _two_rooms()
    for bad in ("no", "", 2, 0.0, None):
        with pytest.raises(InvalidInputError, match=f"walkable must be a bool, got {bad!r}"):
            grid.set_walkable((0, 0), bad)  # type: ignore[arg-type]
    assert grid.version == 0 and grid.is_passable(0, 0)
    grid.set_walkable((0, 0), np.False_)
    grid.set_walkable((1, 0), 0)
    assert not grid.is_passable(0, 0) and not grid.is_passable(1, 0)
    grid.set_walkable((0, 0, 2, 1), 1)
    assert grid.is_passable(0, 0) and grid.is_passable(1, 0)


@pytest.mark.parametrize(("kwargs", "message"), [
    (dict(cell_size="2"), "cell_size must be a finite number > 0, got '2'"),
    (dict(cell_size=True), "cell_size must be a finite number > 0, got True"),
    (dict(cell_size=float("nan")), "cell_size must be a finite number > 0, got nan"),
    (dict(origin=(float("nan"), 0)), r"origin must be a finite \(x, y\) pair of numbers, got \(nan, 0\)"),
    (dict(origin=5), r"origin must be a finite \(x, y\) pair of numbers, got 5"),
    (dict(origin=(1, 2, 3)), r"origin must be a finite \(x, y\) pair of numbers, got \(1, 2, 3\)"),
    (dict(origin=("1", "2")), r"origin must be a finite \(x, y\) pair"),
    (dict(origin=(0, 1e400)), r"origin must be a finite \(x, y\) pair"),
    (dict(y_up="no"), "y_up must be a bool, got 'no'"),
    (dict(cost=np.full((2, 2), 1e308)), r"cost must be at most MAX_COST = 1e\+12"),
    (dict(cost=np.full((2, 2), True)), "cost must be numeric, got dtype bool"),
])
def test_constructor_argument_types(kwargs, message) -> None:
    with pytest.raises(InvalidInputError, match=message):
        TileGrid(np.ones((2, 2), bool), **kwargs)


def test_costs_are_bounded_so_no_path_cost_overflows() -> None:
    grid = TileGrid(np.ones((30, 30), bool), cost=np.full((30, 30), MAX_COST))
    path = gamenav.find_path(grid, (0, 0), (29, 29))
    assert path.found and math.isfinite(path.cost)
    assert path.cost == pytest.approx(29 * math.sqrt(2) * MAX_COST)
    with pytest.raises(InvalidInputError, match="cost must be at most MAX_COST"):
        grid.set_cost((0, 0), 1e308)
    for bad in ("3", True, np.array(["3"])):
        with pytest.raises(InvalidInputError, match="cost must be numeric"):
            grid.set_cost((0, 0), bad)
    assert grid.version == 0


@pytest.mark.parametrize(("region", "error", "message"), [
    ((0.0, 0, 1, 1), InvalidInputError, "region must be a cell"),
    ((True, 0, 1, 1), InvalidInputError, "region must be a cell"),
    ([[0, 1], [2]], InvalidInputError, "region must be a cell"),
    ((1.0, 1), InvalidInputError, r"region cell must be an \(x, y\) pair of ints"),
    ((2**70, 0), OutOfBoundsError, r"region cell \(1180591620717411303424, 0\) is outside"),
    (np.array([2**63, 0], dtype=np.uint64), OutOfBoundsError, "is outside the grid"),
    ("ab", InvalidInputError, "region must be a cell"),
])
def test_malformed_regions(region, error, message) -> None:
    with pytest.raises(error, match=message):
        _two_rooms().set_walkable(region, False)


def test_huge_rectangles_are_clipped() -> None:
    grid = _two_rooms()
    grid.set_walkable((-(2**70), 0, 2**70, 1), False)
    grid.set_walkable(np.array([0, 2, 2**63, 3], dtype=np.uint64), False)
    assert not grid.passable[0].any() and not grid.passable[2].any() and grid.passable[1, 0]


def test_far_world_points_map_far_outside() -> None:
    grid = _two_rooms()
    cells = grid.world_to_cell([[1e300, -1e300], [-1e300, 1e300]])
    assert (np.abs(cells) >= 2**61).all() and not any(grid.in_bounds(*c) for c in cells.tolist())


def test_distance_field_max_cost() -> None:
    grid = _two_rooms()
    zero = gamenav.distance_field(grid, (0, 0), max_cost=0.0)
    assert zero[0, 0] == 0.0 and np.isinf(zero).sum() == zero.size - 1
    assert np.array_equal(gamenav.distance_field(grid, (0, 0), max_cost=-0.0), zero)
    for bad in (-1e-300, float("nan"), "1", True):
        with pytest.raises(InvalidInputError, match="max_cost must be a number >= 0"):
            gamenav.distance_field(grid, (0, 0), max_cost=bad)  # type: ignore[arg-type]
    with pytest.raises(OutOfBoundsError, match="source .* is outside the grid"):
        gamenav.distance_field(grid, np.array([[2**63, 0]], dtype=np.uint64))


def test_workspace_shapes() -> None:
    for bad in ((2.5, 3), ("3", 3), (True, 3)):
        with pytest.raises(InvalidInputError, match=r"shape must be \(height, width\) ints"):
            SearchWorkspace(bad)  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError, match="too many cells"):
        SearchWorkspace((2**20, 2**20))


@pytest.mark.parametrize("region", [float("nan"), 3, None, "ab", (1.0, 2.0, 3.0, 4.0), np.float64(2)])
def test_set_walkable_rejects_scalar_and_float_regions(region: object) -> None:
    grid = gamenav.TileGrid(np.ones((1, 1), dtype=bool))
    with pytest.raises(gamenav.InvalidInputError, match="region must be a cell"):
        grid.set_walkable(region, False)  # type: ignore[arg-type]
    assert grid.version == 0


@pytest.mark.parametrize("values", ["", "ab", [[1, 2], [3]], [True, False], None])
def test_coordinate_conversions_reject_non_numbers(values: object) -> None:
    grid = gamenav.TileGrid(np.ones((2, 2), dtype=bool))
    with pytest.raises(gamenav.InvalidInputError, match="cells must be numbers"):
        grid.cell_to_world(values)  # type: ignore[arg-type]
    with pytest.raises(gamenav.InvalidInputError, match="points must be numbers"):
        grid.world_to_cell(values)  # type: ignore[arg-type]


def test_ragged_arrays_are_clear_errors() -> None:
    with pytest.raises(gamenav.InvalidInputError, match="rows of equal length"):
        gamenav.TileGrid([[True, False], [True]])
    with pytest.raises(gamenav.InvalidInputError, match="cost must be an array of numbers with rows of equal length"):
        gamenav.TileGrid([[True, True]], cost=[[1, [2]]])
    grid = gamenav.TileGrid(np.ones((3, 3), dtype=bool))
    with pytest.raises(gamenav.InvalidInputError, match="radius must be a number > 0 or one per agent"):
        gamenav.Crowd(grid, [(0.5, 0.5)], radius=[[1, 2], [3]], max_speed=1)


@pytest.mark.parametrize("algorithm", ["jps", "hpa", "subgoal"])
def test_an_index_built_inside_a_listener_is_not_rebuilt_for_the_edit_it_holds(algorithm, monkeypatch) -> None:
    from gamenav.grid._index import GridIndex

    builds: list[int] = []
    rebuild = GridIndex._rebuild_all

    def counted(self: GridIndex, passable: np.ndarray, version: int) -> None:  # type: ignore[type-arg]
        builds.append(version)
        rebuild(self, passable, version)

    monkeypatch.setattr(GridIndex, "_rebuild_all", counted)
    grid = gamenav.TileGrid(np.ones((24, 24), dtype=bool))
    paths: list[gamenav.Path] = []

    def on_change(change: gamenav.GridChange) -> None:
        if change.version == 1:
            grid.set_walkable((5, 0, 6, 20), False)  # version 2, delivered after this one
            gamenav.prepare(grid, algorithm)  # the index is built at version 2
            paths.append(gamenav.find_path(grid, (0, 0), (23, 0), algorithm=algorithm))

    grid.subscribe(on_change)
    grid.set_walkable((10, 10, 12, 12), False)
    assert paths[0].cost == pytest.approx(gamenav.find_path(grid.copy(), (0, 0), (23, 0)).cost)
    grid.set_walkable((0, 20, 1, 21), False)  # version 3: repaired
    assert builds == [2]


@pytest.mark.parametrize("shape", [(1, 2**40), (2**20, 2**20), (2**31, 1)])
@pytest.mark.parametrize("dtype", [bool, np.uint8])
def test_grids_too_large_to_index_are_refused_before_any_copy(shape, dtype) -> None:
    huge = np.broadcast_to(np.ones((1, 1), dtype=dtype), shape)  # no memory behind it
    with pytest.raises(InvalidInputError, match=r"walkable has too many cells: shape .* must stay under"):
        TileGrid(huge)


class _Row(str):
    """A text row that refuses to be read character by character."""

    def __iter__(self):  # type: ignore[override]
        raise AssertionError("the row was read cell by cell")


def test_text_maps_too_large_to_index_are_refused_before_reading_their_cells() -> None:
    """from_strings listed every cell (8 bytes each in Python) before the constructor refused the
    size: 50000 rows of 50000 characters (one shared 50 kB string) wanted a 20 GB list."""
    with pytest.raises(InvalidInputError, match=r"walkable has too many cells: shape \(50000, 50000\)"):
        TileGrid.from_strings([_Row("." * 50_000)] * 50_000)
    assert TileGrid.from_strings([".#", ".."]).passable.tolist() == [[True, False], [True, True]]


@pytest.mark.parametrize(("call", "message"), [
    (lambda g: gamenav.find_path(g, (0, 0), (4, 0), weight=2**1100), "weight must be a finite number >= 1"),
    (lambda g: gamenav.find_path(g, (0, 0), (4, 0), agent_radius=2**1100), "agent_radius must be a finite number"),
    (lambda g: gamenav.find_path(g, (0, 0), (4, 0), agent_radius=-(2**1100)), "agent_radius must be a finite number"),
    (lambda g: gamenav.clearance_mask(g, 2**1100), "agent_radius must be a finite number"),
    (lambda g: TileGrid(g.walkable, cell_size=2**1100), "cell_size must be a finite number > 0"),
    (lambda g: gamenav.distance_field(g, (0, 0), max_cost=-(2**1100)), "max_cost must be a number >= 0"),
])
def test_ints_beyond_float64_are_clear_errors(call, message) -> None:
    with pytest.raises(InvalidInputError, match=message):
        call(_two_rooms())


def test_an_int_beyond_float64_as_max_cost_is_no_limit() -> None:
    field = gamenav.distance_field(_two_rooms(), (0, 0), max_cost=2**1100)
    assert (field == gamenav.distance_field(_two_rooms(), (0, 0))).all()


@pytest.mark.parametrize("how", ["pickle", "deepcopy", "copy"])
@pytest.mark.parametrize("algorithm", ["astar", "jps", "dijkstra", "hpa", "subgoal"])
def test_searches_refuse_copies(how, algorithm) -> None:
    """A copy would share the running search's workspace: dropping it gave the workspace back to
    the pool under the original (whose next step() then failed), two copies stepping it
    corrupted each other."""
    grid = TileGrid(np.ones((40, 40), bool))
    grid.set_walkable((10, 0, 11, 35), False)
    search = GridSearch(grid, (0, 0), (39, 0), algorithm=algorithm)
    search.step(3)
    with pytest.raises(TypeError, match="GridSearch objects cannot be copied or pickled"):
        COPIES[how](search)
    assert search.step() is PathStatus.FOUND
    assert search.result().cost == pytest.approx(gamenav.find_path(grid, (0, 0), (39, 0)).cost)


@pytest.mark.parametrize("how", ["pickle", "deepcopy", "copy"])
def test_a_copied_workspace_shares_no_arrays(how) -> None:
    grid = TileGrid(np.ones((30, 30), bool))
    grid.set_walkable((10, 0, 11, 25), False)
    ws = SearchWorkspace(grid.shape)
    twin = COPIES[how](ws)
    assert type(twin) is SearchWorkspace and twin.shape == ws.shape
    assert not np.shares_memory(twin.g, ws.g) and not np.shares_memory(twin.mark, ws.mark)
    a = GridSearch(grid, (0, 0), (29, 0), workspace=ws)
    b = GridSearch(grid, (29, 29), (0, 0), workspace=twin)
    while not (a.status.done and b.status.done):  # interleaved: each on its own arrays
        a.step(7)
        b.step(7)
    assert a.result().cost == gamenav.find_path(grid, (0, 0), (29, 0)).cost
    assert b.result().cost == gamenav.find_path(grid, (29, 29), (0, 0)).cost


@pytest.mark.skipif(np.finfo(np.longdouble).max <= np.finfo(np.float64).max, reason="longdouble is float64 here")
@pytest.mark.parametrize("value", ["1e400", "-1e400"])
def test_a_finite_longdouble_cost_beyond_float64_is_refused_not_a_wall(value) -> None:
    big = np.longdouble(value)
    with pytest.raises(InvalidInputError, match="a finite value that float64 would round to inf"):
        TileGrid(np.ones((2, 2), bool), cost=np.full((2, 2), big))
    grid = TileGrid(np.ones((2, 2), bool))
    with pytest.raises(InvalidInputError, match="a finite value that float64 would round to inf"):
        grid.set_cost((0, 0), big)
    assert grid.version == 0 and grid.passable.all()
    assert grid.set_cost((0, 0), np.longdouble("inf")).blocked.tolist() == [[0, 0]]  # inf still blocks
