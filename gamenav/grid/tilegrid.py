"""TileGrid: the walkable cells and per-cell costs of a tile map, with edits and change events.

Arrays are indexed ``[y, x]`` (row, column); the public API takes and returns ``(x, y)``.
Cell ``(x, y)`` covers the world square from ``origin + (x, y) * cell_size`` to
``origin + (x + 1, y + 1) * cell_size``; with ``y_up=True`` rows are mirrored so that row 0 is
the top of the map in a y-up world (arcade): cell ``(x, y)`` then spans world y from
``origin_y + (height - 1 - y) * cell_size`` to ``origin_y + (height - y) * cell_size``.

Thread model:

* The grid's cells live in one immutable snapshot (walkable, cost and passable arrays, the
  version, and the caches derived from them: island labels and the searches' padded arrays).
  An edit builds a new snapshot and installs it with one attribute assignment; nothing a
  snapshot holds is modified afterwards.
* Readers take the snapshot once: a search, a distance field, :meth:`TileGrid.components` and
  the kernels' arrays see the grid before or after an edit, never half of one.
* Edits (:meth:`TileGrid.set_walkable`, :meth:`TileGrid.set_cost`) are serialised by a
  re-entrant lock held until every listener has heard of the edit, so versions and change
  records arrive in order; a listener may edit the grid again (from the same thread): that
  edit is applied at once and reaches the listeners once the current change has reached them all.
* So any number of threads may search one grid while another edits it (numba kernels release
  the GIL, so searches really run in parallel). Each concurrent search needs its own
  :class:`~gamenav.SearchWorkspace` (the default: one is borrowed per search). The runtime
  objects (``PathQueue``, ``PathCache``, ``Crowd``) are not thread-safe: use each from one
  thread (they act on an edit made in another thread at their next call, in their thread).

Copies: ``grid.copy()``, ``copy.copy``, ``copy.deepcopy`` and pickle give an independent grid
of the same class with its own arrays and caches, the same cells, costs and transform (and the
attributes a subclass added), version 0 and no listeners.
"""

from __future__ import annotations

import copy
import os
import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from collections.abc import Callable, Mapping, Sequence, Set

import numpy as np
import numpy.typing as npt

from gamenav._arrays import frozen, rebuilt
from gamenav._events import CopyState, Listeners, Unsubscribe, added_state, no_waits, without
from gamenav._kernels import announce_compile
from gamenav._kernels.components import label_components, repair_components
from gamenav._validate import finite_point, flag, float_numbers, holds_bool, is_int, positive_number, shown
from gamenav.errors import InvalidInputError, OutOfBoundsError
from gamenav.grid.movement import Diagonal

if TYPE_CHECKING:
    from gamenav.grid.clearance import _Clearance
    from gamenav.grid._fast import Tables
    from gamenav.grid.search import _Padded

__all__ = ["MAX_COST", "GridChange", "Region", "TileGrid"]

_MAX_PADDED_CELLS = 2**31 - 1
"""A grid's ``(height + 2) * (width + 2)`` must stay under this (the kernels index the cells of
the grid and its blocked border with int32)."""

MAX_COST = 1e12
"""The largest finite cell cost. A path costs at most ``sqrt(2) * MAX_COST`` per cell, so no path
on any grid that fits in memory comes near float64 overflow (a FOUND path has a finite cost)."""

Region = Sequence[int] | npt.NDArray[np.bool_]
"""A cell ``(x, y)``, a rectangle ``(x0, y0, x1, y1)`` (x1, y1 exclusive) or an ``(h, w)`` bool mask."""


@dataclass(frozen=True, eq=False)
class GridChange:
    """One edit of a :class:`TileGrid`, as delivered to listeners.

    Each cell array is ``(k, 2)`` int64 ``(x, y)`` cells (read-only):

    Attributes:
        version: the grid's version after the edit.
        blocked: cells that were passable and are now blocked.
        opened: cells that were blocked and are now passable.
        cost_raised: passable cells whose cost went up.
        cost_lowered: passable cells whose cost went down.
        passable: ``(h, w)`` bool, ``[y, x]``, read-only: the passable cells after the edit.
    """

    version: int
    blocked: npt.NDArray[np.int64]
    opened: npt.NDArray[np.int64]
    cost_raised: npt.NDArray[np.int64]
    cost_lowered: npt.NDArray[np.int64]
    passable: npt.NDArray[np.bool_]

    def __post_init__(self) -> None:
        for array in (self.blocked, self.opened, self.cost_raised, self.cost_lowered, self.passable):
            array.flags.writeable = False

    def __reduce__(self) -> tuple[Callable[..., GridChange], tuple[object, ...]]:
        """Pickle and copy through the constructor, so the arrays are read-only again after a
        round trip (pickle and ``deepcopy`` rebuild them writable) and own their memory."""
        return rebuilt, (type(self), self.version, self.blocked, self.opened, self.cost_raised,
                         self.cost_lowered, self.passable)

    @property
    def worsened(self) -> npt.NDArray[np.int64]:
        """Cells a path may no longer use at the same cost: blocked or raised."""
        return np.concatenate([self.blocked, self.cost_raised])

    @property
    def improved(self) -> npt.NDArray[np.int64]:
        """Cells that may make some path shorter: opened or lowered."""
        return np.concatenate([self.opened, self.cost_lowered])


GridListener = Callable[[GridChange], None]



_FAR = 1e300
"""World coordinates :meth:`TileGrid.cell_to_world` computes in (no overflow on the way)."""
_REACH = 2.0**40
"""Largest distance of a grid's corner from (0, 0), in cells: there, world points are still
precise to 1/4096 cell (at 1e17 from (0, 0), all the cells of a 1-unit row had one centre)."""
_FINEST = 1e-323
"""Smallest ``cell_size``: two of float64's smallest steps, so that every cell has a centre of its
own (on cells of one step, 5e-324, the centres of cells 1 and 2 were one float)."""
_WORLD_POINT = " (a world point? grid.world_to_cell(point) gives its cell)"
"""The hint of :meth:`TileGrid.check_cell` for a cell that looks like a world point."""


def _check_size(shape: tuple[int, ...]) -> None:
    """Refuse a ``(h, w)`` grid whose cells and blocked border the searches cannot index."""
    h, w = shape
    if (h + 2) * (w + 2) >= _MAX_PADDED_CELLS:
        raise InvalidInputError(
            f"walkable has too many cells: shape {shape}, but (height + 2) * (width + 2) "
            f"must stay under {_MAX_PADDED_CELLS} (the searches index cells with int32)")


def _float_array(values: npt.ArrayLike, name: str) -> npt.NDArray[np.float64]:
    """``values`` as float64 numbers (not strings, bools or objects; beyond float64: infinite)."""
    numbers = float_numbers(values)
    if numbers is None:
        raise InvalidInputError(f"{name} must be numbers of shape (2,) or (n, 2), got {shown(values, 200)}")
    return numbers


def _cells_of(mask: npt.NDArray[np.bool_], corner: tuple[int, int] = (0, 0)) -> npt.NDArray[np.int64]:
    """``(k, 2)`` read-only ``(x, y)`` cells of a ``[y, x]`` mask whose cell [0, 0] is ``corner``."""
    ys, xs = np.nonzero(mask)
    cells: npt.NDArray[np.int64] = np.stack([xs + corner[0], ys + corner[1]], axis=1).astype(np.int64)
    return frozen(cells)


def _check_cost(cost: npt.NDArray[np.float64], name: str = "cost") -> None:
    if np.isnan(cost).any():
        raise InvalidInputError(f"{name} must not contain NaN")
    if (cost < 1.0).any():
        raise InvalidInputError(
            f"{name} must be >= 1 (inf = blocked), got minimum {float(cost.min())}")
    finite = cost[np.isfinite(cost)]
    if finite.size and finite.max() > MAX_COST:
        raise InvalidInputError(
            f"{name} must be at most MAX_COST = {MAX_COST:g} (or inf = blocked), got {float(finite.max())}")


def _numeric(value: Any, name: str) -> npt.NDArray[Any]:
    """``value`` as an array of real numbers (no bools, strings, objects or ragged rows)."""
    try:
        arr = np.asarray(value)
    except ValueError:  # ragged rows
        raise InvalidInputError(f"{name} must be an array of numbers with rows of equal length, "
                                f"got {shown(value, 80)}") from None
    if arr.dtype.kind not in "iuf":
        raise InvalidInputError(f"{name} must be numeric, got dtype {arr.dtype} ({shown(value, 80)})")
    if holds_bool(value):  # numpy reads [[True, 2.0]] as [[1.0, 2.0]]
        raise InvalidInputError(f"{name} must be numeric, got a bool among the numbers ({shown(value, 80)})")
    if arr.dtype.kind == "f" and arr.dtype.itemsize > 8:  # longdouble: finite values float64 cannot hold
        beyond = np.isfinite(arr) & (np.abs(arr) > np.finfo(np.float64).max)
        if beyond.any():
            raise InvalidInputError(f"{name} must hold float64 numbers (inf = blocked), got "
                                    f"{shown(arr[beyond].flat[0])}: a finite value that float64 would round to inf")
    return arr


Box = tuple[int, int, int, int]
"""``(y0, y1, x0, x1)``: rows ``y0:y1``, columns ``x0:x1`` of a grid."""

Islands = tuple[npt.NDArray[np.int32], npt.NDArray[np.int64]]
"""Island labels ``(h, w)`` int32 and each label's first cell ``(n,)`` int64 (flat ``y * w + x``),
as :func:`~gamenav._kernels.components.label_components` returns them; read-only."""


def _since(done: Any, base: tuple[Any, Box] | None, changed: Box) -> tuple[Any, Box] | None:
    """What a snapshot may repair from: ``(table of the previous snapshot, changed)`` when it has
    ``done`` the table, else the previous snapshot's own base with its box widened by ``changed``."""
    if done is not None:
        return done, changed
    if base is None:
        return None
    old, box = base
    if box[0] == box[1]:
        return old, changed
    if changed[0] == changed[1]:
        return base
    return old, (min(box[0], changed[0]), max(box[1], changed[1]), min(box[2], changed[2]), max(box[3], changed[3]))


def _diff_box(a: _GridState, passable: npt.NDArray[np.bool_], cost: npt.NDArray[np.float64]) -> Box:
    """The box of the cells whose passability or cost differs between ``a`` and the arrays given
    (``(0, 0, 0, 0)``: none), found by comparing them whole (for snapshots made without an edit)."""
    changed = (a.passable != passable) | (a.cost != cost)
    ys = np.flatnonzero(changed.any(axis=1))
    if ys.size == 0:
        return (0, 0, 0, 0)
    xs = np.flatnonzero(changed.any(axis=0))
    return int(ys[0]), int(ys[-1]) + 1, int(xs[0]), int(xs[-1]) + 1


_FILL_LIMIT = 4096
"""Cells the fills of one island repair may visit (more on big grids: 1/16 of the cells) before it
gives up for a new labelling. Cutting corridors of the 1550 x 1550 maze: 4 ms per repair (median
of 40 cuts and reopenings); the 3 cuts that split off big pieces gave up at 60-73 ms, a new
labelling alone taking 38 ms (a limit of 1/64 of the cells made moderate splits pay a labelling:
24 -> 82 ms)."""


def _small(base: tuple[Any, Box] | None, shape: tuple[int, ...]) -> tuple[Any, Box] | None:
    """``base`` when patching its box pays (it covers at most a quarter of the grid), else None
    (the table is built anew: the old one is not kept alive for nothing)."""
    if base is None or (base[1][1] - base[1][0]) * (base[1][3] - base[1][2]) * 4 > shape[0] * shape[1]:
        return None
    return base


class _GridState:
    """One immutable snapshot of a grid's cells (see the module docstring).

    Each table derived from the cells (island labels, padded arrays, clearance) is built on first
    use; after an edit it is repaired from the table of an older snapshot, whose ``*_base`` entry
    holds ``(that table, (y0, y1, x0, x1) box of every cell changed since)``: an edit knows its
    box, so no repair compares whole arrays (a snapshot made without one, such as a clearance
    view, compares its arrays with the previous snapshot's once). A base is dropped once its
    table is built, and the labels' and padded arrays' as soon as the box covers more than a
    quarter of the grid (they are then built anew).

    Attributes:
        walkable, cost, passable: ``(h, w)`` arrays, ``[y, x]``; never modified.
        version: the grid's version when the snapshot was installed.
        labels: :data:`Islands` per ``eight`` flag, filled lazily by :meth:`components`.
        labels_base: per ``eight`` flag, ``(older Islands, box)`` to repair them from.
        padded: the searches' kernel arrays, filled lazily by ``gamenav.grid.search.padded``.
        padded_base: ``(an older snapshot's padded, box)``.
        clearance: the distance transform (``gamenav.grid.clearance``), filled lazily.
        clearance_base: ``(an older snapshot's clearance, box)``.
        fast: the fast path's kernel tables (``gamenav.grid._fast.snapshot_tables``), filled lazily.
    """

    __slots__ = ("walkable", "cost", "passable", "version", "labels", "labels_base", "padded", "padded_base",
                 "clearance", "clearance_base", "fast")

    def __init__(self, walkable: npt.NDArray[np.bool_], cost: npt.NDArray[np.float64],
                 passable: npt.NDArray[np.bool_], version: int,
                 previous: _GridState | None = None, changed: Box | None = None) -> None:
        for array in (walkable, cost, passable):  # frozen: a view handed out cannot be made writable
            array.flags.writeable = False
        self.walkable = walkable
        self.cost = cost
        self.passable = passable
        self.version = version
        self.labels: dict[bool, Islands] = {}
        self.labels_base: dict[bool, tuple[Islands, Box]] = {}
        self.padded: _Padded | None = None
        self.padded_base: tuple[_Padded, Box] | None = None
        self.clearance: _Clearance | None = None
        self.clearance_base: tuple[_Clearance, Box] | None = None
        self.fast: Tables | None = None
        if previous is not None:
            if changed is None:
                changed = _diff_box(previous, passable, cost)
            for eight in (False, True):
                base = _small(_since(previous.labels.get(eight), previous.labels_base.get(eight), changed),
                              passable.shape)
                if base is not None:
                    self.labels_base[eight] = base
            self.padded_base = _small(_since(previous.padded, previous.padded_base, changed), passable.shape)
            self.clearance_base = _since(previous.clearance, previous.clearance_base, changed)

    def components(self, diagonal: Diagonal) -> npt.NDArray[np.int32]:
        """Read-only island labels of this snapshot (see :meth:`TileGrid.components`)."""
        eight = diagonal is Diagonal.ALWAYS
        islands = self.labels.get(eight)
        if islands is None:  # two threads may both compute them: same result, no harm
            announce_compile("grid", label_components, repair_components)
            islands = self._islands(eight)
            for array in islands:
                array.flags.writeable = False
            self.labels[eight] = islands
            self.labels_base.pop(eight, None)
        return islands[0]

    def _islands(self, eight: bool) -> Islands:
        """The labels, repaired from an older snapshot's (a copy of them, patched: see
        :mod:`gamenav._kernels.components`) or, without one, after a large edit or one that split
        off big pieces, labelled anew."""
        base = self.labels_base.get(eight)
        if base is not None:
            (old, first), box = base
            if box[0] == box[1]:
                return old, first
            labels = old.copy()
            limit = max(_FILL_LIMIT, self.passable.size >> 4)
            repaired, first = repair_components(self.passable, labels, first, eight, *box, limit)
            if repaired:
                return labels, first
        labels, first = label_components(self.passable, eight)
        return labels.copy(), first.copy()  # numpy's own (numba's may be made writable)


_OWN_ATTRIBUTES = frozenset(("_cell_size", "_origin", "_y_up", "_state", "_edit_lock", "_listeners"))
"""What :meth:`TileGrid.__init__` sets; a copy makes its own (a subclass's other attributes are copied)."""


def _rebuild(cls: type[TileGrid], walkable: npt.NDArray[np.bool_], cost: npt.NDArray[np.float64], cell_size: float,
             origin: tuple[float, float], y_up: bool) -> TileGrid:
    """Unpickle / copy helper: a new grid of class ``cls`` (see :meth:`TileGrid.__reduce__`), made
    by TileGrid's constructor (a subclass's own ``__init__`` may take other arguments)."""
    grid = cls.__new__(cls)
    TileGrid.__init__(grid, walkable, cost=cost, cell_size=cell_size, origin=origin, y_up=y_up)
    return grid


class TileGrid:
    """Walkable cells and per-cell costs of a tile map.

    Args:
        walkable: ``(h, w)`` bool-like array, ``[y, x]``; True where an agent may stand.
        cost: optional ``(h, w)`` float array of cell costs, finite and >= 1, or ``inf`` for
            blocked. Entering a cell costs its cost times the step length (1, or sqrt(2)
            diagonally). Defaults to 1 everywhere.
        cell_size: world units per cell (at least 1e-323, two of float64's smallest steps).
        origin: world ``(x, y)`` of the grid's corner (top-left, or bottom-left with ``y_up``).
        y_up: True when world y grows upwards while rows grow downwards (arcade, Tiled maps).

    The grid owns copies of the arrays; :attr:`walkable`, :attr:`cost` and :attr:`passable` are
    read-only views. Edit with :meth:`set_walkable` / :meth:`set_cost`; each effective edit
    increments :attr:`version` and is reported to listeners added with :meth:`subscribe`.

    Example:
        >>> import numpy as np
        >>> grid = TileGrid(np.ones((3, 4), dtype=bool))
        >>> change = grid.set_walkable((1, 0, 2, 3), False)  # wall at column 1
        >>> change.blocked.tolist()                          # the cells it blocked, (x, y)
        [[1, 0], [1, 1], [1, 2]]
        >>> grid.version, bool(grid.passable[2, 1])
        (1, False)
    """

    def __init__(self, walkable: npt.ArrayLike, *, cost: npt.ArrayLike | None = None,
                 cell_size: float = 1.0, origin: Sequence[float] = (0.0, 0.0),
                 y_up: bool = False) -> None:
        try:
            walk = np.asarray(walkable)
        except ValueError:  # ragged rows (numpy >= 2 refuses them)
            raise InvalidInputError("walkable must be a 2-D array [y, x] with rows of equal length") from None
        if walk.ndim != 2:
            hint = (" (a map file? TileGrid.from_movingai(path) reads a .map file)"
                    if isinstance(walkable, os.PathLike) or (isinstance(walkable, str) and "\n" not in walkable)
                    else " (text rows: use TileGrid.from_strings)" if walk.dtype.kind == "U" else "")
            raise InvalidInputError(f"walkable must be 2-D [y, x], got shape {walk.shape}{hint}")
        if walk.size == 0:
            raise InvalidInputError(f"walkable must not be empty, got shape {walk.shape}")
        _check_size(walk.shape)  # before any copy: a broadcast view may be huge
        if walk.dtype != np.bool_:
            if walk.dtype.kind not in "iu":  # (numpy counts timedelta64 as an integer type)
                raise InvalidInputError(f"walkable must be bool (or 0/1 integers), got dtype {walk.dtype}")
            if not np.isin(walk, (0, 1)).all():
                raise InvalidInputError("walkable must hold only 0/1 (or bool) values")
        walk = np.array(walk, dtype=np.bool_, order="C")
        if cost is None:
            cost_arr = np.ones(walk.shape, dtype=np.float64)
        else:
            c = _numeric(cost, "cost")
            if c.shape != walk.shape:
                raise InvalidInputError(f"cost must have the shape of walkable {walk.shape}, got {c.shape}")
            cost_arr = np.array(c, dtype=np.float64, order="C")
            _check_cost(cost_arr)
        self._cell_size = positive_number(cell_size, "cell_size")
        if self._cell_size < _FINEST:
            raise InvalidInputError(f"cell_size must be at least {_FINEST!r} (two of float64's smallest steps: "
                                    f"smaller cells have no centres of their own), got {shown(cell_size)}")
        ox, oy = finite_point(origin, "origin")
        self._origin = (float(ox), float(oy))
        if not (max(walk.shape) + 1.0) * self._cell_size + abs(self._origin[0]) + abs(self._origin[1]) < _FAR:
            raise InvalidInputError(f"cell_size={self._cell_size} and origin={self._origin} put the grid's cells "
                                    f"beyond {_FAR:g} world units")
        if not abs(self._origin[0]) + abs(self._origin[1]) <= _REACH * self._cell_size:
            raise InvalidInputError(f"origin={self._origin} is too far from (0, 0) for cell_size={self._cell_size}: "
                                    f"world points there lose their precision (keep |x| + |y| of the origin "
                                    f"within {_REACH * self._cell_size:g}, 2**40 cells)")
        self._y_up = flag(y_up, "y_up")
        self._state = _GridState(walk, cost_arr, walk & np.isfinite(cost_arr), 0)
        self._edit_lock = threading.RLock()
        self._listeners: Listeners[GridChange] = Listeners()

    # -- construction helpers -------------------------------------------------------------
    @classmethod
    def from_movingai(cls, path: str | os.PathLike[str], **kwargs: object) -> TileGrid:
        """Load a Moving AI ``.map`` file (see :func:`gamenav.io.read_map`); kwargs go to the constructor."""
        from gamenav.io.movingai import read_map

        return cls(read_map(path), **kwargs)  # type: ignore[arg-type]

    @classmethod
    def from_strings(cls, rows: Sequence[str], *, blocked: str = "#@T", **kwargs: object) -> TileGrid:
        """Build a grid from text rows (a list or a 1-D numpy array of equally long strings; a
        line end closing a row, as ``readlines()`` keeps it, is dropped); characters in
        ``blocked`` are walls, anything else is floor.

        Example:
            >>> TileGrid.from_strings(["..#", "..."]).shape
            (2, 3)
        """
        if not isinstance(blocked, str):
            raise InvalidInputError(f"blocked must be a string of wall characters, got {shown(blocked)}")
        if isinstance(rows, str):  # would be read as one row per character: a 1-column grid
            raise InvalidInputError(f"rows must be a list of strings, one per row, got one string {shown(rows, 80)} "
                                    "(text.splitlines() gives its rows)")
        ordered = isinstance(rows, Sequence) or (isinstance(rows, np.ndarray) and rows.ndim == 1)
        lines = list(rows) if ordered else []  # (a numpy array of rows has no truth value)
        lines = [r.removesuffix("\n").removesuffix("\r") if isinstance(r, str) else r for r in lines]
        if not lines or any(not isinstance(r, str) or len(r) != len(lines[0]) for r in lines):
            raise InvalidInputError(f"rows must be a non-empty list of equally long strings, got {shown(rows, 80)}")
        if any("\n" in r or "\r" in r for r in lines):  # (read as a column of floor)
            raise InvalidInputError(f"rows must not hold line breaks inside them, got {shown(rows, 80)} "
                                    "(text.splitlines() gives the rows)")
        _check_size((len(lines), len(lines[0])))  # before a list of every cell
        walk = np.array([[ch not in blocked for ch in row] for row in lines], dtype=bool)
        return cls(walk, **kwargs)  # type: ignore[arg-type]

    def copy(self) -> TileGrid:
        """An independent grid with the same cells, costs and transform (version 0, no listeners).

        ``copy.copy``, ``copy.deepcopy`` and pickle give the same (see :meth:`__reduce__`).
        """
        return copy.copy(self)

    def __getstate__(self) -> CopyState:
        """What copies and pickles keep besides the cells, costs and transform: the attributes a
        subclass added (its ``__slots__`` too). A subclass may override it (and ``__setstate__``)
        to leave some out; the grid's own state, listeners and caches are never copied."""
        return added_state(self, _OWN_ATTRIBUTES)

    def __reduce__(self) -> tuple[Callable[..., TileGrid], tuple[Any, ...], object]:
        """Copy and pickle support: the class, cells, costs and transform, and
        :meth:`__getstate__`. A subclass's ``__init__`` is not called."""
        state = self._state
        return _rebuild, (type(self), state.walkable, state.cost, self._cell_size, self._origin,
                          self._y_up), without(self.__getstate__(), _OWN_ATTRIBUTES)

    # -- read-only state ------------------------------------------------------------------
    @property
    def width(self) -> int:
        """Number of columns."""
        return int(self._state.walkable.shape[1])

    @property
    def height(self) -> int:
        """Number of rows."""
        return int(self._state.walkable.shape[0])

    @property
    def shape(self) -> tuple[int, int]:
        """``(height, width)``, the shape of every array of the grid."""
        return (self.height, self.width)

    @property
    def cell_size(self) -> float:
        return self._cell_size

    @property
    def origin(self) -> tuple[float, float]:
        return self._origin

    @property
    def y_up(self) -> bool:
        return self._y_up

    @property
    def version(self) -> int:
        """Incremented by every edit that changed at least one cell."""
        return self._state.version

    @property
    def walkable(self) -> npt.NDArray[np.bool_]:
        """``(h, w)`` bool, read-only view, ``[y, x]`` (of the snapshot current when read)."""
        return frozen(self._state.walkable)

    @property
    def cost(self) -> npt.NDArray[np.float64]:
        """``(h, w)`` float64 cell costs (>= 1, inf = blocked), read-only view, ``[y, x]``."""
        return frozen(self._state.cost)

    @property
    def passable(self) -> npt.NDArray[np.bool_]:
        """``(h, w)`` bool: walkable and finite cost; read-only view, ``[y, x]``."""
        return frozen(self._state.passable)

    @property
    def uniform_cost(self) -> bool:
        """True when every passable cell costs exactly 1 (what Jump Point Search needs)."""
        state = self._state
        return bool((state.cost[state.passable] == 1.0).all())

    def _kernel_arrays(self) -> tuple[npt.NDArray[np.bool_], npt.NDArray[np.float64]]:
        """``(passable, cost)`` of one snapshot for kernels (frozen: kernels only read them).

        Both come from the same snapshot (an edit in another thread cannot tear the pair).
        """
        state = self._state
        return state.passable, state.cost

    def _snapshot(self) -> _GridState:
        """The current immutable snapshot (readers take it once, then read only from it)."""
        return self._state

    # -- cells ----------------------------------------------------------------------------
    def in_bounds(self, x: int, y: int) -> bool:
        """Whether cell ``(x, y)`` lies on the grid.

        Raises:
            InvalidInputError: ``x`` or ``y`` is not an int (a bool, a float: see :meth:`check_cell`).
        """
        try:
            self.check_cell((x, y))
        except OutOfBoundsError:
            return False
        return True

    def is_passable(self, x: int, y: int) -> bool:
        """Whether cell ``(x, y)`` is on the grid and passable.

        Raises:
            InvalidInputError: ``x`` or ``y`` is not an int (a bool, a float: see :meth:`check_cell`).
        """
        try:
            x, y = self.check_cell((x, y))
        except OutOfBoundsError:
            return False
        return bool(self._state.passable[y, x])

    def check_cell(self, cell: Sequence[int], name: str = "cell") -> tuple[int, int]:
        """Validate one ``(x, y)`` cell and return it as Python ints.

        Raises:
            InvalidInputError: not a pair of integers (or an unordered one: a set or a mapping).
            OutOfBoundsError: outside the grid.
        """
        if isinstance(cell, (Set, Mapping)):  # would unpack in hash order: {3, 0} as (0, 3)
            raise InvalidInputError(f"{name} must be an (x, y) pair of ints, got {shown(cell)}")
        try:
            x, y = cell
        except (TypeError, ValueError):
            raise InvalidInputError(f"{name} must be an (x, y) pair of ints, got {shown(cell)}") from None
        if not (is_int(x) and is_int(y)):
            hint = _WORLD_POINT if isinstance(x, (float, np.floating)) or isinstance(y, (float, np.floating)) else ""
            raise InvalidInputError(f"{name} must be an (x, y) pair of ints, got {shown(cell)}{hint}")
        x, y = int(x), int(y)
        if not (0 <= x < self.width and 0 <= y < self.height):
            (ox, oy), cs = self._origin, self._cell_size  # (a mouse position: ints, on the map; not a cell
            # next to the grid, an off-by-one)
            world = ox <= x < ox + self.width * cs and oy <= y < oy + self.height * cs and \
                not (-1 <= x <= self.width and -1 <= y <= self.height)
            raise OutOfBoundsError(
                f"{name} {shown((x, y))} is outside the grid (x in 0..{self.width - 1}, y in 0..{self.height - 1})"
                + (_WORLD_POINT if world else ""))
        return x, y

    def cell_to_world(self, cells: npt.ArrayLike) -> npt.NDArray[np.float64]:
        """World coordinates of cell centres.

        Args:
            cells: ``(2,)`` or ``(n, 2)`` ``(x, y)`` cells: integers (integral floats too; not
                bounds-checked: cells beyond the edge extend the same lattice).

        Returns:
            float64 array of the same shape: world ``(x, y)`` of each cell's centre.

        Raises:
            InvalidInputError: a wrong shape, a NaN, inf or fractional cell, or a cell so far
                away that its centre is not a finite float.
        """
        integral = isinstance(cells, np.ndarray) and cells.dtype.kind in "iu"  # the common case
        c = _float_array(cells, "cells")
        if c.shape[-1:] != (2,) or c.ndim > 2:
            raise InvalidInputError(f"cells must have shape (2,) or (n, 2), got {c.shape}")
        if not integral and not (np.isfinite(c) & (c == np.floor(c))).all():
            raise InvalidInputError(f"cells must be integers (got NaN, inf or a fraction): {shown(cells, 200)}")
        reach = (float(np.abs(c).max(initial=0.0)) + self.height + 1.0) * self._cell_size
        if not reach + abs(self._origin[0]) + abs(self._origin[1]) < _FAR:
            raise InvalidInputError(f"cells too far from the grid: their centres overflow: {shown(cells, 200)}")
        out = np.empty_like(c)
        out[..., 0] = self._origin[0] + (c[..., 0] + 0.5) * self._cell_size
        row = (self.height - 1 - c[..., 1]) if self._y_up else c[..., 1]
        out[..., 1] = self._origin[1] + (row + 0.5) * self._cell_size
        return out

    def world_to_cell(self, points: npt.ArrayLike) -> npt.NDArray[np.int64]:
        """The cells containing world points (not bounds-checked; see :meth:`in_bounds`).

        Args:
            points: ``(2,)`` or ``(n, 2)`` world ``(x, y)``; must be finite.

        Returns:
            int64 array of the same shape: ``(x, y)`` cells.
        """
        p = _float_array(points, "points")
        if p.shape[-1:] != (2,) or p.ndim > 2:
            raise InvalidInputError(f"points must have shape (2,) or (n, 2), got {p.shape}")
        if not np.isfinite(p).all():
            raise InvalidInputError("points must be finite (got NaN or inf)")
        out = np.empty(p.shape, dtype=np.int64)
        lim = float(2**62)  # far points stay far outside the grid instead of wrapping around
        size = self._cell_size
        far = lim * size  # (clipped first: with tiny cells the quotient would overflow)
        with np.errstate(over="ignore"):  # a point near 1.8e308 minus a far origin is inf: clipped to far
            dx, dy = p[..., 0] - self._origin[0], p[..., 1] - self._origin[1]
        out[..., 0] = np.clip(np.floor(np.clip(dx, -far, far) / size), -lim, lim)
        row = np.clip(np.floor(np.clip(dy, -far, far) / size), -lim, lim).astype(np.int64)
        out[..., 1] = (self.height - 1 - row) if self._y_up else row
        return out

    # -- edits ----------------------------------------------------------------------------
    def _region_box(self, region: Region) -> tuple[tuple[slice, slice], npt.NDArray[np.bool_]]:
        """The region's bounding box as ``(rows, columns)`` slices, and its bool mask inside the box."""
        try:
            arr = np.asarray(region)
        except (TypeError, ValueError):  # ragged sequences
            arr = np.zeros(0)
        h, w = self.shape
        if arr.dtype == np.bool_ and arr.ndim == 2:
            if arr.shape != self.shape:
                raise InvalidInputError(f"region mask must have shape {self.shape}, got {arr.shape}")
            rows, cols = np.flatnonzero(arr.any(axis=1)), np.flatnonzero(arr.any(axis=0))
            if len(rows) == 0:
                return (slice(0, 0), slice(0, 0)), np.zeros((0, 0), dtype=bool)
            box = (slice(int(rows[0]), int(rows[-1]) + 1), slice(int(cols[0]), int(cols[-1]) + 1))
            return box, arr[box].copy()
        if arr.shape == (2,):
            x, y = self.check_cell(tuple(region), "region cell")
            return (slice(y, y + 1), slice(x, x + 1)), np.ones((1, 1), dtype=bool)
        corners = (arr.tolist() if isinstance(region, np.ndarray) else list(region)) if arr.shape == (4,) else []
        if corners and all(is_int(v) for v in corners):
            x0, y0, x1, y1 = (int(v) for v in corners)
            if x1 < x0 or y1 < y0:
                raise InvalidInputError(f"rectangle must have x0 <= x1 and y0 <= y1, got {(x0, y0, x1, y1)}")
            ys = slice(min(max(y0, 0), h), min(max(y1, 0), h))
            xs = slice(min(max(x0, 0), w), min(max(x1, 0), w))
            return (ys, xs), np.ones((ys.stop - ys.start, xs.stop - xs.start), dtype=bool)
        raise InvalidInputError(
            "region must be a cell (x, y), a rectangle (x0, y0, x1, y1) of ints or an "
            f"{self.shape} bool mask, got {shown(region, 200)}")

    def region_mask(self, region: Region) -> npt.NDArray[np.bool_]:
        """An ``(h, w)`` bool mask for a cell, a clipped rectangle or a mask.

        Raises:
            OutOfBoundsError: a single cell outside the grid.
            InvalidInputError: anything else malformed (wrong mask shape, x1 < x0, ...).
        """
        box, inside = self._region_box(region)
        mask = np.zeros(self.shape, dtype=bool)
        mask[box] = inside
        return mask

    def set_walkable(self, region: Region, walkable: bool = True) -> GridChange | None:
        """Mark a region walkable or blocked. Returns the change, or None if nothing changed.

        ``walkable`` is a bool (numpy bools and the ints 0 / 1 are accepted too). The work is
        proportional to the region's bounding box, plus one copy of the arrays (edits are
        copy-on-write, so a running search keeps a consistent snapshot).
        """
        value = flag(walkable, "walkable")
        box, inside = self._region_box(region)

        def edit(state: _GridState) -> tuple[npt.NDArray[np.bool_], npt.NDArray[np.float64]]:
            new_walkable = state.walkable.copy()
            new_walkable[box][inside] = value
            return new_walkable, state.cost

        return self._apply(edit, box)

    def set_cost(self, region: Region, cost: float | npt.ArrayLike) -> GridChange | None:
        """Set the cost of a region (a scalar, or an ``(h, w)`` array read where the region is).

        Costs are finite, >= 1 and <= :data:`MAX_COST`, or ``inf`` to block. Returns the
        change, or None.
        """
        box, inside = self._region_box(region)
        given = _numeric(cost, "cost")
        if given.ndim not in (0, 2) or (given.ndim == 2 and given.shape != self.shape):
            raise InvalidInputError(
                f"cost must be a scalar or an array of shape {self.shape}, got shape {given.shape}")
        values = np.broadcast_to(given.astype(np.float64), self.shape)[box][inside]
        _check_cost(values if given.ndim else given.astype(np.float64))  # a scalar even for an empty region

        def edit(state: _GridState) -> tuple[npt.NDArray[np.bool_], npt.NDArray[np.float64]]:
            new_cost = state.cost.copy()
            new_cost[box][inside] = values
            return state.walkable, new_cost

        return self._apply(edit, box)

    def _apply(self, edit: Callable[[_GridState], tuple[npt.NDArray[np.bool_], npt.NDArray[np.float64]]],
               box: tuple[slice, slice]) -> GridChange | None:
        """Install ``edit(state)``, the arrays of the current snapshot ``state`` changed inside
        ``box``, as the new snapshot and notify the listeners.

        Made again from the grid's new snapshot if it changed meanwhile: in this thread (the
        edit lock is re-entrant) a garbage collection may run a ``__del__`` that edits the grid,
        and that edit must stay (a ``close()`` it makes does not wait: :func:`~gamenav._events.no_waits`).
        """
        with no_waits(), self._edit_lock:
            state: _GridState | None = None
            while state is not self._state:
                state = self._state
                new, change = self._successor(state, *edit(state), box)
            if new is not state:
                self._state = new
            if change is not None:
                self._listeners.notify(change)
            return change

    @staticmethod
    def _successor(state: _GridState, walkable: npt.NDArray[np.bool_], cost: npt.NDArray[np.float64],
                   box: tuple[slice, slice]) -> tuple[_GridState, GridChange | None]:
        """The snapshot after ``state`` whose arrays are ``walkable`` and ``cost`` (they differ
        from ``state``'s only inside ``box``), and the change to report (None: none to report)."""
        if np.array_equal(walkable[box], state.walkable[box]) and np.array_equal(cost[box], state.cost[box]):
            return state, None  # nothing changed: the snapshot, and every table built on it, stays
        was = state.passable[box]
        now = walkable[box] & np.isfinite(cost[box])
        both = now & was
        blocked, opened = was & ~now, now & ~was
        raised = both & (cost[box] > state.cost[box])
        lowered = both & (cost[box] < state.cost[box])
        if not (blocked.any() or opened.any() or raised.any() or lowered.any()):
            # e.g. a cost edit under a wall: stored, but no search can see it
            quiet = _GridState(walkable, cost, state.passable, state.version)
            quiet.labels, quiet.labels_base = state.labels, state.labels_base
            quiet.padded, quiet.padded_base = state.padded, state.padded_base
            quiet.clearance, quiet.clearance_base = state.clearance, state.clearance_base
            quiet.fast = state.fast
            return quiet, None
        passable = state.passable.copy()
        passable[box] = now
        corner = (box[1].start, box[0].start)
        return (_GridState(walkable, cost, passable, state.version + 1, state,
                           (box[0].start, box[0].stop, box[1].start, box[1].stop)),
                GridChange(state.version + 1, _cells_of(blocked, corner), _cells_of(opened, corner),
                           _cells_of(raised, corner), _cells_of(lowered, corner), frozen(passable)))

    def subscribe(self, listener: GridListener, *, weak: bool = False) -> Unsubscribe:
        """Call ``listener(change)`` after every effective edit; returns a function that unsubscribes.

        Every listener hears every edit, even when another one raises (the first error is
        re-raised after all have run) or unsubscribes meanwhile. With ``weak=True`` the grid
        holds the listener through a weak reference, so subscribing does not keep its owner alive
        (pass a bound method of an object kept elsewhere: a lambda or ``functools.partial`` made
        for the call has no other reference and is dropped at once, never hearing an edit).
        Listeners run in the editing thread, with the grid's edit lock held; an edit made by a
        listener is reported to every listener after the current change (versions stay in order).
        """
        return self._listeners.subscribe(listener, weak=weak)

    # -- islands --------------------------------------------------------------------------
    def components(self, diagonal: Diagonal | str = Diagonal.NO_CORNER_CUTTING) -> npt.NDArray[np.int32]:
        """Island labels: ``(h, w)`` int32, equal labels = mutually reachable, -1 = blocked.

        Only ``diagonal="always"`` connects more than 4-connectivity (it squeezes between
        diagonal walls); every other rule has the 4-connected islands. Numbered 0, 1, 2, ... in
        row-major order of each island's first cell. Made lazily after edits, by repairing the
        labels around the edited cells (a small edit costs about one copy of the labels). Read-only.
        """
        return frozen(self._state.components(Diagonal.parse(diagonal)))

    def connected(self, a: Sequence[int], b: Sequence[int],
                  diagonal: Diagonal | str = Diagonal.NO_CORNER_CUTTING) -> bool:
        """Whether passable cells ``a`` and ``b`` (x, y) are on the same island."""
        ax, ay = self.check_cell(a, "a")
        bx, by = self.check_cell(b, "b")
        labels = self.components(diagonal)
        return bool(labels[ay, ax] >= 0 and labels[ay, ax] == labels[by, bx])

    def __repr__(self) -> str:
        state = self._state
        return (f"TileGrid({self.width}x{self.height}, passable={int(state.passable.sum())}, "
                f"cell_size={self._cell_size}, origin={self._origin}, y_up={self._y_up}, "
                f"version={state.version})")
