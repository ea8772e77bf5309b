"""TileGrid: construction, read-only state, transforms, edits, change events and islands."""

from __future__ import annotations

import copy
import math
import pickle
import threading
import warnings
from typing import Any

import numpy as np
import pytest

import gamenav
from gamenav import InvalidInputError, OutOfBoundsError, TileGrid


def test_construction_copies_and_exposes_read_only_views() -> None:
    walk = np.ones((2, 3), dtype=bool)
    grid = TileGrid(walk)
    walk[0, 0] = False
    assert grid.passable[0, 0] and grid.shape == (2, 3) and (grid.width, grid.height) == (3, 2)
    for view in (grid.walkable, grid.cost, grid.passable):
        with pytest.raises(ValueError):
            view[0, 0] = 0
    assert grid.uniform_cost and grid.version == 0
    assert TileGrid(np.array([[1, 0]], dtype=np.int8)).passable.tolist() == [[True, False]]


def test_cost_rules() -> None:
    cost = np.array([[1.0, np.inf], [2.5, 1.0]])
    grid = TileGrid(np.ones((2, 2), bool), cost=cost)
    assert grid.passable.tolist() == [[True, False], [True, True]]
    assert not grid.uniform_cost


@pytest.mark.parametrize(("kwargs", "message"), [
    (dict(walkable=np.ones(3, bool)), r"walkable must be 2-D \[y, x\], got shape \(3,\)"),
    (dict(walkable=np.ones((0, 3), bool)), "walkable must not be empty"),
    (dict(walkable=np.ones((2, 2)) * 0.5), "walkable must be bool .* got dtype float64"),
    (dict(walkable=np.full((2, 2), 2)), "walkable must hold only 0/1"),
    (dict(walkable=np.zeros((2, 2), "m8[s]")), "walkable must be bool .* got dtype timedelta64"),
    (dict(walkable=np.ones((2, 2), bool), cost=np.ones((3, 2))), "cost must have the shape of walkable"),
    (dict(walkable=np.ones((2, 2), bool), cost=np.full((2, 2), 0.5)), "cost must be >= 1"),
    (dict(walkable=np.ones((2, 2), bool), cost=np.full((2, 2), np.nan)), "cost must not contain NaN"),
    (dict(walkable=np.ones((2, 2), bool), cost=np.full((2, 2), "a")), "cost must be numeric"),
    (dict(walkable=np.ones((2, 2), bool), cell_size=0), "cell_size must be a finite number > 0"),
    (dict(walkable=np.ones((2, 2), bool), origin=(0, np.nan)), "origin must be a finite"),
])
def test_constructor_errors(kwargs, message) -> None:
    with pytest.raises(InvalidInputError, match=message):
        TileGrid(**kwargs)


def test_from_strings() -> None:
    grid = TileGrid.from_strings([".#T", "@.."])
    assert grid.passable.tolist() == [[True, False, False], [False, True, True]]
    with pytest.raises(InvalidInputError, match="equally long strings"):
        TileGrid.from_strings(["..", "."])


def test_from_strings_takes_a_numpy_array_of_rows_and_refuses_what_is_no_list_of_rows() -> None:
    """Two or more rows in a numpy array raised numpy's "truth value of an array is ambiguous"
    ValueError (one row worked); an int, a set or a dict raised TypeError or KeyError."""
    grid = TileGrid.from_strings(np.array(["..#", "..."]))
    assert grid.passable.tolist() == [[True, True, False], [True, True, True]]
    for rows in (5, np.array(2), np.array([[".."]]), {"..", ".#"}, {"..": 0}):
        with pytest.raises(InvalidInputError, match="rows must be a non-empty list of equally long strings, got"):
            TileGrid.from_strings(rows)  # type: ignore[arg-type]


@pytest.mark.parametrize("rows", [[".#\n", ".#\n"], [".#\r\n", ".#\r\n"], [".#\r", ".#\r"], [".#\n", ".#"]])
def test_from_strings_drops_the_line_ends_readlines_keeps(rows: list[str]) -> None:
    """open(path).readlines() keeps each row's line end, which was read as a floor cell: a
    walled map ".#" came back 2 x 3 with an open column east of its wall (2 x 2 expected), and
    a last row without one was refused as a row of another length."""
    assert TileGrid.from_strings(rows).passable.tolist() == [[True, False]] * 2


@pytest.mark.parametrize("rows", [["\n.#", "\n.#"], [".\n#", ".\r#"], [".#\n\n", ".#\n\n"]])
def test_from_strings_refuses_rows_with_line_breaks_inside(rows: list[str]) -> None:
    """A line break inside a row would be read as a floor cell."""
    with pytest.raises(InvalidInputError, match=r"rows must not hold line breaks inside them, got .*splitlines\(\)"):
        TileGrid.from_strings(rows)


@pytest.mark.parametrize("y_up", [False, True])
def test_world_transform_round_trip(y_up: bool) -> None:
    grid = TileGrid(np.ones((4, 5), bool), cell_size=2.0, origin=(-3.0, 10.0), y_up=y_up)
    cells = np.array([[0, 0], [4, 3], [2, 1]])
    centres = grid.cell_to_world(cells)
    np.testing.assert_array_equal(grid.world_to_cell(centres), cells)
    for corner in ([-0.99, -0.99], [0.99, 0.99], [0.99, -0.99]):  # anywhere inside the square
        np.testing.assert_array_equal(grid.world_to_cell(centres + corner), cells)
    assert grid.cell_to_world((0, 0)).tolist() == [-2.0, 17.0 if y_up else 11.0]
    assert grid.world_to_cell((-3.0, 10.0)).tolist() == [0, 3 if y_up else 0]
    with pytest.raises(InvalidInputError, match="points must be finite"):
        grid.world_to_cell((np.nan, 0))
    with pytest.raises(InvalidInputError, match=r"cells must have shape \(2,\) or \(n, 2\)"):
        grid.cell_to_world([1, 2, 3])


def test_cell_to_world_refuses_cells_that_are_not_integers() -> None:
    """Like world_to_cell with NaN points, NaN / inf / fractional cells raise (they returned NaN
    or a point between cell centres); integral floats are cells."""
    grid = TileGrid(np.ones((4, 5), bool), cell_size=2.0)
    for bad in [(np.nan, 0), (0, np.inf), (0.5, 1), [(1, 1), (2, -np.inf)]]:
        with pytest.raises(InvalidInputError, match="cells must be integers"):
            grid.cell_to_world(bad)
    with pytest.raises(InvalidInputError, match="centres overflow"):
        grid.cell_to_world((1e308, 0))
    assert grid.cell_to_world((2.0, 1)).tolist() == grid.cell_to_world((2, 1)).tolist() == [5.0, 3.0]


def test_check_cell() -> None:
    grid = TileGrid(np.ones((2, 3), bool))
    assert grid.check_cell((np.int64(2), 1)) == (2, 1)
    with pytest.raises(OutOfBoundsError, match=r"cell \(3, 0\) is outside the grid \(x in 0..2, y in 0..1\)"):
        grid.check_cell((3, 0))
    with pytest.raises(InvalidInputError, match="cell must be an"):
        grid.check_cell((1.0, 0))
    assert issubclass(OutOfBoundsError, IndexError)


def test_edits_bump_version_and_notify_listeners() -> None:
    grid = TileGrid(np.ones((3, 4), bool))
    seen: list[gamenav.GridChange] = []
    unsubscribe = grid.subscribe(seen.append)
    change = grid.set_walkable((1, 0, 2, 3), False)
    assert change is not None and grid.version == 1 and seen == [change]
    assert sorted(map(tuple, change.blocked.tolist())) == [(1, 0), (1, 1), (1, 2)]
    assert change.opened.shape == (0, 2) and change.worsened.shape == (3, 2)
    assert grid.set_walkable((1, 0, 2, 3), False) is None and grid.version == 1  # no-op
    grid.set_cost((0, 0), 3.0)
    grid.set_cost((0, 0), 2.0)
    assert seen[-2].cost_raised.tolist() == [[0, 0]] and seen[-1].cost_lowered.tolist() == [[0, 0]]
    assert seen[-1].improved.tolist() == [[0, 0]]
    mask = np.zeros((3, 4), bool)
    mask[2, 1] = True
    grid.set_walkable(mask, True)
    assert seen[-1].opened.tolist() == [[1, 2]] and grid.version == 4
    unsubscribe()
    grid.set_walkable((3, 0), False)
    assert len(seen) == 4 and grid.version == 5
    grid.set_cost((0, 0), np.inf)  # inf blocks
    assert not grid.is_passable(0, 0)


def test_edit_errors() -> None:
    grid = TileGrid(np.ones((3, 4), bool))
    with pytest.raises(OutOfBoundsError, match=r"region cell \(4, 0\) is outside"):
        grid.set_walkable((4, 0), False)
    with pytest.raises(InvalidInputError, match=r"region mask must have shape \(3, 4\)"):
        grid.set_walkable(np.ones((2, 2), bool), False)
    with pytest.raises(InvalidInputError, match="rectangle must have x0 <= x1"):
        grid.set_walkable((2, 0, 1, 1), False)
    with pytest.raises(InvalidInputError, match=r"region cell must be an \(x, y\) pair of ints"):
        grid.set_walkable((0.5, 1.5), False)
    with pytest.raises(InvalidInputError, match="region must be a cell"):
        grid.set_walkable((0.0, 0.0, 1.0, 1.0), False)
    with pytest.raises(InvalidInputError, match="cost must be >= 1"):
        grid.set_cost((0, 0), 0.5)
    with pytest.raises(InvalidInputError, match=r"cost must be a scalar or an array of shape \(3, 4\)"):
        grid.set_cost((0, 0), np.ones((2, 2)))
    with pytest.raises(InvalidInputError, match=r"cost must be a scalar or an array of shape \(3, 4\)"):
        grid.set_cost((0, 0), np.ones(4))
    assert grid.version == 0
    grid.set_walkable((-5, -5, 100, 1), False)  # rectangles are clipped to the grid
    assert not grid.passable[0].any() and grid.passable[1:].all()


def test_islands_follow_edits_and_the_movement_rule() -> None:
    grid = TileGrid.from_strings([".#.", "#..", "..."])
    labels = grid.components()
    assert labels[0, 0] >= 0 and labels[0, 1] == -1
    assert not grid.connected((0, 0), (2, 2))  # only a corner touches
    assert grid.connected((0, 0), (2, 2), diagonal="always")
    grid.set_walkable((1, 0), True)
    assert grid.connected((0, 0), (2, 2))
    assert gamenav.find_path(grid, (0, 0), (2, 2)).found
    with pytest.raises(ValueError):
        labels[0, 0] = 5


def test_copy_is_independent() -> None:
    grid = TileGrid(np.ones((2, 2), bool), cost=np.full((2, 2), 2.0), cell_size=3.0)
    grid.set_walkable((0, 0), False)
    twin = grid.copy()
    twin.set_walkable((1, 1), False)
    assert grid.is_passable(1, 1) and not twin.is_passable(0, 0) and twin.version == 1
    assert twin.cell_size == 3.0 and math.isclose(float(twin.cost[1, 0]), 2.0)


class _Level(TileGrid):
    """A game's grid subclass whose constructor takes other arguments."""

    def __init__(self, name: str, rows: list[str]) -> None:
        super().__init__(np.array([[ch != "#" for ch in row] for row in rows]), y_up=True)
        self.name = name
        self.spawns = [(0, 0)]


def test_copies_and_pickles_of_a_subclass_keep_its_class_and_attributes() -> None:
    """Copies called the subclass's __init__ with TileGrid's arguments: copy and deepcopy raised
    TypeError, and pickle.dumps worked while pickle.loads raised it (a save that cannot be
    loaded); a subclass's own attributes were dropped."""
    level = _Level("cave", ["..#", "..."])
    level.subscribe(lambda change: None)
    level.set_walkable((0, 1), False)
    for twin in (level.copy(), copy.copy(level), copy.deepcopy(level), pickle.loads(pickle.dumps(level))):
        assert type(twin) is _Level and twin.name == "cave" and twin.spawns == [(0, 0)]
        assert twin.passable.tolist() == [[True, True, False], [False, True, True]] and twin.y_up
        assert twin.version == 0 and len(twin._listeners) == 0 and twin._edit_lock is not level._edit_lock
        twin.set_walkable((0, 0), False)
        assert level.is_passable(0, 0)
    assert copy.copy(level).spawns is level.spawns and copy.deepcopy(level).spawns is not level.spawns


class _SlottedLevel(TileGrid):
    """A subclass that keeps its attributes in ``__slots__`` (one name-mangled)."""

    __slots__ = ("extra", "__secret", "unset")

    def secret(self) -> int:
        return self.__secret

    def hide(self, value: int) -> None:
        self.__secret = value


def test_copies_and_pickles_of_a_subclass_keep_the_values_of_its_slots() -> None:
    """__reduce__ copied only vars(self): a subclass's __slots__ values were lost (extra=5 came back
    missing from copy(), copy.copy, copy.deepcopy and pickle)."""
    level = _SlottedLevel(np.ones((1, 3), bool))
    level.extra, level.note = [5], "kept"
    level.hide(7)
    level.subscribe(lambda change: None)
    level.set_walkable((1, 0), False)
    for twin in (level.copy(), copy.copy(level), copy.deepcopy(level), pickle.loads(pickle.dumps(level))):
        assert type(twin) is _SlottedLevel and twin.extra == [5] and twin.secret() == 7 and twin.note == "kept"
        assert not hasattr(twin, "unset") and twin.passable.tolist() == [[True, False, True]]
        assert twin.version == 0 and len(twin._listeners) == 0
        twin.set_walkable((0, 0), False)
        assert level.is_passable(0, 0)
    assert copy.copy(level).extra is level.extra and copy.deepcopy(level).extra is not level.extra


class _TexturedLevel(TileGrid):
    """A subclass holding an attribute pickle cannot take (a texture), left out by ``__getstate__``
    in Python's documented way: from ``super().__getstate__()``, or (``from_vars``) from ``vars(self)``."""

    from_vars = False

    def __init__(self) -> None:
        super().__init__(np.ones((1, 2), bool))
        self.name, self.texture = "cave", threading.Lock()

    def __getstate__(self) -> dict[str, Any]:
        state = dict(vars(self) if self.from_vars else super().__getstate__() or {})
        del state["texture"]
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        vars(self).update(state)
        self.texture = threading.Lock()


class _TexturedFromVars(_TexturedLevel):
    from_vars = True


@pytest.mark.parametrize("cls", [_TexturedLevel, _TexturedFromVars])
def test_copies_and_pickles_of_a_subclass_follow_its_getstate(cls: type[_TexturedLevel]) -> None:
    """__reduce__ ignored a subclass's __getstate__: deepcopy and pickle raised "cannot pickle
    '_thread.lock' object" for the attribute it leaves out; a state taken from vars(self) must not
    bring the original's listeners or lock into the copy either."""
    level = cls()
    heard: list[int] = []
    level.subscribe(lambda change: heard.append(change.version))
    for twin in (level.copy(), copy.copy(level), copy.deepcopy(level), pickle.loads(pickle.dumps(level))):
        assert type(twin) is cls and twin.name == "cave" and twin.texture is not level.texture
        assert twin._listeners is not level._listeners and twin._edit_lock is not level._edit_lock
        twin.set_walkable((0, 0), False)
        assert level.is_passable(0, 0) and heard == []


@pytest.mark.parametrize("cell_size", [1e-323, 1e-300])
def test_world_to_cell_with_tiny_cells_clips_far_points_without_overflow_warnings(cell_size: float) -> None:
    """With cells this small the quotient overflowed: a RuntimeWarning (an exception under
    ``-W error``, as many test suites run) before the clip to far away."""
    grid = TileGrid(np.ones((3, 3), bool), cell_size=cell_size)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        cells = grid.world_to_cell([(1e308, 1e308), (-1e308, 0.0), (0.0, 0.0)])
    assert cells[0, 0] == cells[0, 1] == 2**62 and cells[1, 0] == -2**62
    assert cells[2].tolist() == [0, 0]


def test_world_to_cell_of_points_near_the_float_limit_warns_nothing() -> None:
    """A point near 1.8e308 minus a far origin overflowed: a RuntimeWarning (an exception under
    ``-W error``) before the clip to far away."""
    grid = TileGrid(np.ones((3, 3), bool), origin=(-1e299, 1e299), cell_size=1e288, y_up=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        cells = grid.world_to_cell([(1.7976931348623157e308, 1e299), (-1e299, -1.7976931348623157e308)])
    assert cells.tolist() == [[2**62, 2], [0, 2**62 + 2]]


@pytest.mark.parametrize(("origin", "cell_size"), [((1e17, 0.0), 1.0), ((0.0, -2.0**40 - 2**-12), 1.0),
                                                   ((-1e6, 1e6), 1e-6)])
def test_a_grid_too_far_from_the_origin_for_its_cell_size_is_refused(origin: tuple[float, float],
                                                                      cell_size: float) -> None:
    """At 1e17 from (0, 0) the 1-unit cells of a row all had one world centre: a path's points
    stood still, and world_to_cell(cell_to_world(3, 0)) was cell 0."""
    with pytest.raises(InvalidInputError, match="too far from \\(0, 0\\) for cell_size"):
        TileGrid(np.ones((3, 5), bool), origin=origin, cell_size=cell_size)
    grid = TileGrid(np.ones((3, 5), bool), origin=(-(2.0**40) * cell_size, 0.0), cell_size=cell_size)  # the farthest
    cells = np.array([(x, y) for y in range(3) for x in range(5)])
    assert (grid.world_to_cell(grid.cell_to_world(cells)) == cells).all()
    assert len(np.unique(grid.cell_to_world(cells)[:, 0])) == 5


@pytest.mark.parametrize(("cell_size", "origin"), [(1e300, (0.0, 0.0)), (1.0, (-1e300, 0.0)), (1e299, (0.0, 7e299))])
def test_a_grid_whose_cells_lie_beyond_1e300_is_refused(cell_size: float, origin: tuple[float, float]) -> None:
    """Such a grid was built, then every ``cell_to_world`` of its own cells raised "too far"."""
    with pytest.raises(InvalidInputError, match="put the grid's cells beyond 1e\\+300 world units"):
        TileGrid(np.ones((3, 3), bool), cell_size=cell_size, origin=origin)


def test_the_two_first_hour_mistakes_get_a_hint() -> None:
    """Text rows given to the constructor, a sprite's world position given as a cell."""
    with pytest.raises(InvalidInputError, match=r"got shape \(2,\) \(text rows: use TileGrid.from_strings\)"):
        TileGrid(["..", ".#"])
    grid = TileGrid.from_strings(["..", ".."])
    with pytest.raises(InvalidInputError, match=r"got \(0.5, 1.5\) \(a world point\? grid.world_to_cell"):
        gamenav.find_path(grid, (0.5, 1.5), (1, 1))
    with pytest.raises(InvalidInputError, match=r"pair of ints, got '01'$"):
        gamenav.find_path(grid, "01", (1, 1))


def test_is_passable_refuses_cells_that_are_not_ints() -> None:
    """``is_passable(True, False)`` indexed the cells with bools (a boolean mask: an empty array,
    so False for a passable cell), ``is_passable(True, True)`` raised numpy's ValueError and a
    float its IndexError."""
    grid = TileGrid(np.ones((2, 3), bool))
    for x, y in [(True, False), (True, True), (np.True_, 0), (0.5, 0.5), (1.0, 0), ("1", 0)]:
        with pytest.raises(InvalidInputError, match=r"cell must be an \(x, y\) pair of ints"):
            grid.is_passable(x, y)  # type: ignore[arg-type]
    assert grid.is_passable(np.uint8(1), np.int64(0))
    assert not grid.is_passable(3, 0) and not grid.is_passable(-1, 0) and not grid.is_passable(0, 2**70)


def test_in_bounds_refuses_cells_that_are_not_ints() -> None:
    """``in_bounds(0.5, 0.5)`` and ``in_bounds(True, False)`` answered True for cells that do not
    exist (indexing the arrays with them then failed), ``in_bounds("1", 0)`` raised a bare TypeError."""
    grid = TileGrid(np.ones((2, 3), bool))
    for x, y in [(0.5, 0.5), (2.9, 0), (True, False), (np.True_, 0), (1.0, 0), ("1", 0), (None, 0)]:
        with pytest.raises(InvalidInputError, match=r"cell must be an \(x, y\) pair of ints"):
            grid.in_bounds(x, y)  # type: ignore[arg-type]
    assert grid.in_bounds(np.uint8(2), np.int64(1)) and grid.in_bounds(0, 0)
    assert not grid.in_bounds(3, 0) and not grid.in_bounds(-1, 0) and not grid.in_bounds(0, 2**70)


def test_bools_among_numbers_are_refused() -> None:
    """numpy reads ``[[True, 2.0]]`` as ``[[1.0, 2.0]]``: a bool among the costs was the cost 1,
    among world points or cells the coordinate 1 (a bool array alone was refused already)."""
    with pytest.raises(InvalidInputError, match="cost must be numeric, got a bool among the numbers"):
        TileGrid(np.ones((1, 2), bool), cost=[[True, 2.0]])
    grid = TileGrid(np.ones((2, 2), bool))
    with pytest.raises(InvalidInputError, match="cost must be numeric, got a bool among the numbers"):
        grid.set_cost((0, 0), [[True, 2.0], [2.0, 2.0]])
    with pytest.raises(InvalidInputError, match="points must be numbers"):
        grid.world_to_cell([(0.5, 0.5), (True, 1.5)])
    with pytest.raises(InvalidInputError, match="cells must be numbers"):
        grid.cell_to_world([True, 1])
    assert grid.version == 0 and grid.cell_to_world([1, 1]).tolist() == [1.5, 1.5]


def test_an_edit_that_changes_nothing_keeps_the_snapshot_and_its_tables() -> None:
    """set_walkable of an open cell to open (a game re-opening its doors every frame) installed
    a new snapshot: the fast path's kernel tables, island labels and padded arrays were built
    again for the next query."""
    grid = TileGrid(np.ones((30, 40), bool))
    grid.set_walkable((5, 0, 6, 20), False)
    grid.set_cost((10, 10, 12, 12), 3.0)
    gamenav.find_path(grid, (0, 0), (39, 29))
    before = grid._snapshot()
    assert grid.set_walkable((1, 1, 4, 4), True) is None
    assert grid.set_walkable((5, 0, 6, 20), False) is None
    assert grid.set_cost((10, 10, 12, 12), 3.0) is None
    assert grid._snapshot() is before and grid.version == before.version
    grid.set_cost((5, 3), 2.0)  # under a wall: stored, not seen by searches (a new snapshot, same version)
    assert grid._snapshot() is not before and grid.version == before.version
    assert grid.cost[3, 5] == 2.0


@pytest.mark.parametrize("blocked", [None, ["#"], 3])
def test_from_strings_needs_a_string_of_wall_characters(blocked: object) -> None:
    """``blocked=None`` raised a bare TypeError ("argument of type 'NoneType' is not iterable")."""
    with pytest.raises(InvalidInputError, match="blocked must be a string of wall characters"):
        TileGrid.from_strings(["..#", "..."], blocked=blocked)  # type: ignore[arg-type]
    assert TileGrid.from_strings(["..x", "..."], blocked="x").passable.sum() == 5
