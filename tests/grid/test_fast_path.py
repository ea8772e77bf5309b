"""The one-kernel fast path of ``find_path`` (int cells; default options, or A* with any movement
rule, a built-in heuristic, ``smooth``, ``partial``, ``weight=1``, any ``agent_radius``): the same
answer as the general ``GridSearch`` bit for bit, the same errors, and fresh read-only arrays."""

from __future__ import annotations

import gc
import re
import threading
import weakref
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import gamenav
from gamenav.grid import _fast
from gamenav.types import Path


class ReportedTransformGrid(gamenav.TileGrid):
    """A grid whose ``origin`` / ``cell_size`` / ``y_up`` properties report another transform
    than its own (searches must use the grid's own one, as ``cell_to_world`` does)."""

    @property
    def origin(self) -> tuple[float, float]:
        return (100.0, 0.0)

    @property
    def cell_size(self) -> float:
        return 2.0

    @property
    def y_up(self) -> bool:
        return True


def _general(grid: gamenav.TileGrid, start: tuple[int, int], goal: tuple[int, int],
             **options: Any) -> Path:
    """The general path: a GridSearch run in slices of 3 expansions."""
    search = gamenav.GridSearch(grid, start, goal, **options)
    while not search.step(3).done:
        pass
    return search.result()


def _same(fast: Path, general: Path) -> None:
    assert fast.status is general.status
    assert fast.expanded == general.expanded
    assert np.float64(fast.cost).tobytes() == np.float64(general.cost).tobytes()
    for name in ("cells", "points", "corridor"):
        a, b = getattr(fast, name), getattr(general, name)
        assert a.dtype == b.dtype and a.shape == b.shape, name
        assert a.tobytes() == b.tobytes(), name
        assert not a.flags.writeable, name


@st.composite
def grids(draw: st.DrawFn) -> gamenav.TileGrid:
    h = draw(st.integers(1, 12))
    w = draw(st.integers(1, 12))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    walk = rng.random((h, w)) > draw(st.sampled_from([0.0, 0.2, 0.35, 0.5]))
    cost = None
    if draw(st.booleans()):
        cost = rng.choice([1.0, 1.0, 2.0, 3.5, np.inf], size=(h, w))
    return gamenav.TileGrid(walk, cost=cost, cell_size=draw(st.sampled_from([1.0, 0.3, 32.0])),
                            origin=draw(st.sampled_from([(0.0, 0.0), (-7.25, 3.5)])),
                            y_up=draw(st.booleans()))


@st.composite
def fast_options(draw: st.DrawFn) -> dict[str, Any]:
    """``find_path`` options: any movement rule (a member, its value, a bool) and heuristic
    (None, a member, its value), explicit ``algorithm="astar"`` or not, ``smooth`` and
    ``partial`` as bools or 0 / 1, ``weight`` at its default or not, ``agent_radius=0``."""
    options: dict[str, Any] = {}
    if draw(st.booleans()):
        rule = draw(st.sampled_from(list(gamenav.Diagonal)))
        options["diagonal"] = draw(st.sampled_from([rule, rule.value, True, False]))
    if draw(st.booleans()):
        heuristic = draw(st.sampled_from(list(gamenav.Heuristic)))
        options["heuristic"] = draw(st.sampled_from([heuristic, heuristic.value]))
    if draw(st.booleans()):
        options["algorithm"] = "astar"
    for name in ("smooth", "partial"):
        if draw(st.booleans()):
            options[name] = draw(st.sampled_from([True, False, True, False, 1, 0]))
    if draw(st.booleans()):
        options["weight"] = draw(st.sampled_from([1, 1.0, 1.5]))
    if draw(st.booleans()):  # in cells (x cell_size below); some block the ends, -1 and 9 are invalid
        options["agent_radius"] = draw(st.sampled_from([0, 0.0, 0.3, 0.5, 0.51, 0.75, 1, 1.6, -1, 9]))
    return options


@settings(max_examples=300, deadline=None)
@given(grid=grids(), data=st.data())
def test_fast_path_matches_general_search(grid: gamenav.TileGrid, data: st.DataObject) -> None:
    h, w = grid.shape
    cell = st.tuples(st.integers(0, w - 1), st.integers(0, h - 1))
    for _ in range(4):
        start, goal = data.draw(cell), data.draw(cell)
        if not (grid.passable[start[1], start[0]] and grid.passable[goal[1], goal[0]]):
            with pytest.raises(gamenav.BlockedEndpointError):
                gamenav.find_path(grid, start, goal)
            continue
        fast = _fast.try_find_path(grid, start, goal)
        assert fast is not None  # the fast path answered
        _same(fast, _general(grid, start, goal))
        _same(gamenav.find_path(grid, start, goal), fast)
        # a list, explicit default options: same answer
        _same(gamenav.find_path(grid, list(start), goal, algorithm="astar"), fast)
        # other movement rules and heuristics: the fast path where it can, the same answer
        options = data.draw(fast_options())
        if "agent_radius" in options:
            options["agent_radius"] *= grid.cell_size
        rule = _fast.fast_rule(options)
        try:
            expected = _general(grid, start, goal, **options)
        except gamenav.InvalidInputError as error:  # a radius that blocks an end, or out of range
            assert rule is None or _fast.try_find_path(grid, start, goal, *rule) is None
            with pytest.raises(type(error), match=re.escape(str(error))):
                gamenav.find_path(grid, start, goal, **options)
            continue
        if rule is not None:
            answered = _fast.try_find_path(grid, start, goal, *rule)
            if answered is None:  # only a partial query whose goal is on another island
                assert rule[3] and expected.status is gamenav.PathStatus.PARTIAL
            else:
                _same(answered, expected)
        _same(gamenav.find_path(grid, start, goal, **options), expected)
        if data.draw(st.booleans()):  # an edit: the tables follow the new snapshot
            x, y = data.draw(cell)
            grid.set_walkable((x, y), not grid.walkable[y, x])


def test_adjacent_same_cell_and_islands() -> None:
    grid = gamenav.TileGrid.from_strings(["..#..", "..#..", "..#.."], cell_size=2.0, y_up=True)
    _same(gamenav.find_path(grid, (0, 0), (1, 0)), _general(grid, (0, 0), (1, 0)))
    same = gamenav.find_path(grid, (3, 1), (3, 1))
    assert same.status is gamenav.PathStatus.FOUND and same.cost == 0.0
    assert same.cells.tolist() == [[3, 1]] and same.points.tolist() == [[7.0, 3.0]]
    _same(same, _general(grid, (3, 1), (3, 1)))
    apart = gamenav.find_path(grid, (0, 0), (4, 2))  # another island: 0 expansions
    assert apart.status is gamenav.PathStatus.NO_PATH and apart.expanded == 0
    _same(apart, _general(grid, (0, 0), (4, 2)))


def test_a_subclass_with_transform_properties_gets_the_general_paths_points() -> None:
    """The kernel's points come from the grid's own transform, as GridSearch's and cell_to_world's
    do: a subclass reporting another one through ``origin`` / ``cell_size`` / ``y_up`` got
    (101, 5) from find_path against (0.5, 0.5) from GridSearch."""

    grid = ReportedTransformGrid(np.ones((3, 4), dtype=bool))
    _same(gamenav.find_path(grid, (0, 0), (3, 0)), _general(grid, (0, 0), (3, 0)))
    assert gamenav.find_path(grid, (0, 0), (3, 0)).points[0].tolist() == [0.5, 0.5]


def test_fresh_arrays_per_answer() -> None:
    grid = gamenav.TileGrid.from_strings(["....", "....", "...."])
    a = gamenav.find_path(grid, (0, 0), (3, 2))
    b = gamenav.find_path(grid, (0, 0), (3, 2))
    assert a.cells is not b.cells and not np.shares_memory(a.cells, b.cells)
    assert not np.shares_memory(a.points, b.points)
    with pytest.raises(ValueError):
        a.cells[0, 0] = 5


@pytest.mark.parametrize(("start", "goal", "error", "match"), [
    ((0, 0), (9, 0), gamenav.OutOfBoundsError, "goal"),
    ((-1, 0), (1, 0), gamenav.OutOfBoundsError, "start"),
    ((0, 0), (1, 1), gamenav.BlockedEndpointError, "goal"),
    ((1, 1), (0, 0), gamenav.BlockedEndpointError, "start"),
    ((True, 0), (2, 0), gamenav.InvalidInputError, "start"),
    ((0, 0, 0), (2, 0), gamenav.InvalidInputError, "start"),
    ((0.0, 0), (2, 0), gamenav.InvalidInputError, "start"),
    ("ab", (2, 0), gamenav.InvalidInputError, "start"),
])
def test_errors_come_from_the_general_path(start: object, goal: object, error: type[Exception],
                                           match: str) -> None:
    grid = gamenav.TileGrid.from_strings(["...", ".#.", "..."])
    with pytest.raises(error, match=match):
        gamenav.find_path(grid, start, goal)


def test_numpy_ints_and_lists_give_the_same_answer() -> None:
    grid = gamenav.TileGrid.from_strings(["....", ".##.", "...."])
    expected = gamenav.find_path(grid, (0, 0), (3, 2))
    _same(gamenav.find_path(grid, (np.int64(0), np.int32(0)), np.array([3, 2])), expected)
    _same(gamenav.find_path(grid, [0, 0], [3, 2]), expected)


@pytest.mark.parametrize("start", [np.array([0, 0]), np.array([0, 0], np.uint8), (np.int64(0), np.int32(0)),
                                   [np.int16(0), 0]])
def test_numpy_cells_take_the_fast_path(start: object) -> None:
    """``world_to_cell`` gives a (2,) int64 array: such cells were sent to the general path
    (48 us against 2 us on a 4x4 grid)."""
    grid = gamenav.TileGrid.from_strings(["....", ".##.", "...."])
    assert type(grid.world_to_cell((0.5, 0.5))) is np.ndarray
    fast = _fast.try_find_path(grid, start, np.array([3, 2]))
    assert fast is not None
    _same(fast, _general(grid, (0, 0), (3, 2)))


@pytest.mark.parametrize("start", [np.array([0.0, 0.0]), np.array([True, False]), np.array([[0, 0]]),
                                   (np.bool_(False), 0), (0.0, 0), np.array([0, 0], object),
                                   (np.timedelta64(0), 0), np.array([0, 0], "m8[s]")])
def test_other_numpy_cells_take_the_general_path(start: object) -> None:
    grid = gamenav.TileGrid.from_strings(["....", ".##.", "...."])
    assert _fast.try_find_path(grid, start, (3, 2)) is None


def test_big_grids_take_the_general_path() -> None:
    side = int(_fast.MAX_CELLS ** 0.5)  # (side + 2)^2 padded cells > MAX_CELLS
    grid = gamenav.TileGrid(np.ones((side, side), dtype=bool))
    assert _fast.try_find_path(grid, (0, 0), (5, 5)) is None
    assert gamenav.find_path(grid, (0, 0), (5, 5)).cost == pytest.approx(5 * 2**0.5)


def test_each_thread_has_its_own_workspace() -> None:
    rng = np.random.default_rng(7)
    grid = gamenav.TileGrid(rng.random((30, 40)) > 0.25)
    free = np.argwhere(grid.passable)[:, ::-1]
    pairs = [(tuple(map(int, free[i])), tuple(map(int, free[j])))
             for i, j in rng.integers(0, len(free), size=(60, 2))]
    expected = [_general(grid, s, g) for s, g in pairs]
    errors: list[BaseException] = []

    def worker() -> None:
        try:
            for _ in range(20):
                for (s, g), want in zip(pairs, expected, strict=True):
                    _same(gamenav.find_path(grid, s, g), want)
        except BaseException as exc:  # noqa: BLE001 - reported in the main thread
            errors.append(exc)

    threads = [threading.Thread(target=worker) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors[0]


def test_a_grid_too_big_for_the_fast_path_gets_no_kernel_tables() -> None:
    """Above MAX_CELLS the general search answers, but the fast path first built its tables
    (a copy of the grid's moves and passable cells, island labels) for every new snapshot:
    about 1 ms of the 3.8 ms first query after each edit on orz700d."""
    side = int(_fast.MAX_CELLS ** 0.5)  # (side + 2) ** 2 > MAX_CELLS
    grid = gamenav.TileGrid(np.ones((side, side), bool))
    path = gamenav.find_path(grid, (0, 0), (side - 1, side - 1))
    assert path.cost == pytest.approx((side - 1) * 2 ** 0.5)
    assert grid._snapshot().fast is None


@pytest.mark.parametrize("options", [{"smooth": 1}, {"partial": np.bool_(True)}, {"weight": 1.5}, {"weight": True},
                                     {"agent_radius": True}, {"agent_radius": np.float64(0.3)}, {"workspace": None},
                                     {"algorithm": "jps"}])
def test_other_option_values_take_the_general_path(options: dict[str, Any]) -> None:
    assert _fast.fast_rule(options) is None
    assert _fast.fast_rule({"smooth": True, "partial": False, "weight": 1, "agent_radius": 0}) is not None



@pytest.mark.parametrize("radius", [float("nan"), float("inf"), -0.5, 8.0])
def test_an_invalid_radius_gets_the_general_paths_error(radius: float) -> None:
    grid = gamenav.TileGrid.from_strings(["....", "....", "...."])
    rule = _fast.fast_rule({"agent_radius": radius})
    assert rule is not None and _fast.try_find_path(grid, (0, 0), (3, 2), *rule) is None
    with pytest.raises(gamenav.InvalidInputError, match="agent_radius must be a finite number"):
        gamenav.find_path(grid, (0, 0), (3, 2), agent_radius=radius)


def test_a_radius_query_takes_the_fast_path_on_the_radius_view() -> None:
    """``agent_radius`` > 0 took the general path (26.6 us against 3.9 us on a 12x10 grid)."""
    grid = gamenav.TileGrid.from_strings(["." * 12] * 10)
    grid.set_walkable((5, 5), False)
    rule = _fast.fast_rule({"agent_radius": 0.9})
    assert rule is not None
    fast = _fast.try_find_path(grid, (2, 2), (9, 8), *rule)
    assert fast is not None
    _same(fast, _general(grid, (2, 2), (9, 8), agent_radius=0.9))
    assert not np.array_equal(fast.cells, gamenav.find_path(grid, (2, 2), (9, 8)).cells)  # the radius mattered


def test_a_snapshots_tables_are_freed_with_it_even_with_the_garbage_collector_off() -> None:
    """The kernel tables live on the grid's snapshot: they must not refer back to it, or every
    snapshot an edit replaces would wait for the cycle collector (never, in a game that turns it
    off during play)."""
    grid = gamenav.TileGrid(np.ones((12, 9), bool))
    gamenav.find_path(grid, (0, 0), (8, 11), diagonal="never")  # (builds another rule's tables too)
    old = weakref.ref(grid._snapshot().fast.bits)  # type: ignore[union-attr]
    gc.disable()
    try:
        grid.set_walkable((4, 5), False)
        assert gamenav.find_path(grid, (0, 0), (8, 11)).status is gamenav.PathStatus.FOUND
        assert old() is None
    finally:
        gc.enable()
