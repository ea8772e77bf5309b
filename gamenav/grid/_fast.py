"""The fast path of ``gamenav.find_path`` on a :class:`~gamenav.TileGrid`.

A query with ``int`` cells inside the grid (plain or numpy ints, or a ``(2,)`` integer array) and
no options but ``algorithm="astar"``, any ``diagonal`` rule (a :class:`~gamenav.Diagonal`, its
exact value or a bool), a built-in ``heuristic`` (None, a :class:`~gamenav.Heuristic` or its
exact value) that keeps the search monotone (not manhattan with diagonal moves), ``smooth`` and
``partial`` (bools), ``weight=1`` and an ``agent_radius`` (an int or float; the search then runs
on the radius's view of the snapshot, as the general path's does) is answered by one kernel call
that seeds, searches, traces (and smooths) the cells and computes the world points
(:func:`gamenav._kernels.grid_fast.find_path_once`). Everything else, and every query that would
raise (a blocked start or goal, wrong types, cells off the grid, an invalid radius), goes through
the general :class:`~gamenav.GridSearch`, so errors and messages are the general path's; so does
a ``partial=True`` query whose goal is on another island (its answer is a PARTIAL path). The
answer is the general path's bit for bit (same kernel, same tie-breaking; a property test checks
it).

Per grid snapshot (``TileGrid._snapshot()``, or its view for an agent radius), the kernel's
tables (padded passable, move bits, costs, island labels, the world transform) are built once and
kept on the snapshot (its ``fast`` slot; a snapshot belongs to one grid, so its transform is the
grid's). Each thread searches in its own packed workspace (44 bytes per padded cell), kept for
grids of at most :data:`MAX_CELLS` padded cells; larger grids use the general path, whose
per-call overhead is negligible next to their search times.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any, cast

import numba
import numpy as np
import numpy.typing as npt

from gamenav._kernels import announce_compile
from gamenav._kernels import grid_fast as _kf
from gamenav._kernels import grid_search as _ks
from gamenav._validate import is_int
from gamenav.errors import InvalidInputError
from gamenav.grid.clearance import radius_state, threshold
from gamenav.grid.movement import Diagonal, Heuristic
from gamenav.grid.tilegrid import TileGrid, _GridState
from gamenav.types import Path, PathStatus

__all__ = ["MAX_CELLS", "FastWorkspace", "Tables", "fast_rule", "int_pairs", "snapshot_tables", "try_find_path"]

MAX_CELLS = 1 << 18
"""Largest padded grid ``(h + 2) * (w + 2)`` served from a thread's own workspace (11.5 MB)."""

_FOUND = PathStatus.FOUND
_DEFAULT_RULE = Diagonal.NO_CORNER_CUTTING
_NEVER = Diagonal.NEVER
_MANHATTAN = Heuristic.MANHATTAN
_OCTILE = Heuristic.OCTILE.code
_MANHATTAN_CODE = _MANHATTAN.code
_RULES = {rule.value: rule for rule in Diagonal}
_HEURISTICS = {h.value: h for h in Heuristic}
_NUMBERS = (int, float)
_NUMPY_BOOL = np.bool_
_FOUND_CODE = _ks.FOUND
_BLOCKED = _kf.BLOCKED
_PAIRS = (tuple, list)
_find_path_once = _kf.find_path_once
_NO_PATH = PathStatus.NO_PATH
_EMPTY_CORRIDOR = np.zeros(0, dtype=np.int64)
_EMPTY_CORRIDOR.flags.writeable = False
_new = object.__new__
_typeof = cast(Callable[[object], Any], numba.typeof)


Kernel = Callable[..., tuple[int, float, int, npt.NDArray[np.int64], npt.NDArray[np.float64]]]
""":func:`~gamenav._kernels.grid_fast.find_path_once` compiled for one set of argument types."""


class FastWorkspace:
    """Packed search state of :func:`gamenav._kernels.grid_fast.find_path_once` for any grid of
    at most ``cells`` padded cells (arrays as described there). One per thread."""

    __slots__ = ("cells", "ints", "longs")

    def __init__(self, cells: int) -> None:
        m = max(int(cells), 128) + 8
        self.cells = m - 8
        self.ints = np.zeros((5, m), dtype=np.int32)
        self.longs = np.zeros((3, m), dtype=np.int64)


class Tables:
    """The kernel's view of one grid snapshot (built by :func:`snapshot_tables`; its arrays are never
    modified, and the tables of other movement rules are added by :meth:`rule`). It holds no
    reference to the snapshot that holds it (no cycle to wait for the garbage collector)."""

    __slots__ = ("width", "height", "cells", "free", "bits", "cost", "labels", "geo", "kernel", "_rules")

    def __init__(self, grid: TileGrid, state: _GridState) -> None:
        from gamenav.grid.search import KERNELS, padded

        announce_compile("grid search", *KERNELS, _kf.find_path_once)
        pad = padded(state)
        self.height, self.width = pad.shape
        self.cells = int(pad.passable.shape[0])
        self.free = int(np.count_nonzero(state.passable))  # (no search expands more nodes)
        self.bits = np.stack([pad.moves(Diagonal.NO_CORNER_CUTTING), pad.passable])
        self.cost = pad.cost
        self.labels: npt.NDArray[np.int32] = state.components(Diagonal.NO_CORNER_CUTTING).ravel()
        ox, oy = grid._origin  # (as GridSearch reads the transform, not through properties a subclass may override)
        self.geo = np.array([ox, oy, grid._cell_size, float(grid._y_up), float(self.height),
                             float(pad.uniform)], dtype=np.float64)
        self.kernel = self._compiled(self.bits, self.labels)
        self._rules: dict[Diagonal, tuple[npt.NDArray[np.uint8], npt.NDArray[np.int32], Kernel]] = {
            _DEFAULT_RULE: (self.bits, self.labels, self.kernel)}

    def rule(self, state: _GridState, diagonal: Diagonal
             ) -> tuple[npt.NDArray[np.uint8], npt.NDArray[np.int32], Kernel]:
        """``(bits, labels, kernel)`` for movement rule ``diagonal``: as :attr:`bits`,
        :attr:`labels` and :attr:`kernel` for that rule's moves and islands (built on first use
        from ``state``, the snapshot these tables belong to; the dict is replaced, never mutated,
        so other threads may read it meanwhile)."""
        found = self._rules.get(diagonal)
        if found is None:
            from gamenav.grid.search import padded

            pad = padded(state)
            bits = np.stack([pad.moves(diagonal), pad.passable])
            labels = state.components(diagonal).ravel()
            found = (bits, labels, self._compiled(bits, labels))
            self._rules = {**self._rules, diagonal: found}
        return found

    def _compiled(self, bits: npt.NDArray[np.uint8], labels: npt.NDArray[np.int32]) -> Kernel:
        """The kernel compiled for these tables' argument types (from numba's cache after the
        first run), to be called directly: numba's dispatcher would work out the types of all 12
        arguments again on every call (0.26 us of a 2-3 us query). It checks no types, so every
        call passes exactly these: the tables' arrays, a :class:`FastWorkspace`'s, plain ints and
        a bool."""
        sample = FastWorkspace(0)
        args = (bits, self.cost, labels, self.geo, sample.ints, sample.longs, 0, 0, 0, 0, 0, False)
        kernel: Kernel = _find_path_once.compile(tuple(_typeof(a) for a in args))
        return kernel


_local = threading.local()


def _workspace(cells: int) -> FastWorkspace:
    """This thread's workspace, grown to ``cells`` padded cells if needed."""
    ws: FastWorkspace | None = getattr(_local, "ws", None)
    if ws is None or ws.cells < cells:
        ws = _local.ws = FastWorkspace(cells)
    return ws


def make_path(status: PathStatus, cost: float, cells: npt.NDArray[np.int64],
              points: npt.NDArray[np.float64], expanded: int,
              corridor: npt.NDArray[np.int64] = _EMPTY_CORRIDOR) -> Path:
    """A :class:`~gamenav.Path` equal to ``Path(status, cost, cells, points, expanded,
    corridor)``, built without the dataclass machinery (0.2 us against 3 us): the arrays must be
    read-only already and not shared with a caller (as the kernels return them)."""
    path: Path = _new(Path)
    fields = path.__dict__
    fields["status"] = status
    fields["cost"] = cost
    fields["cells"] = cells
    fields["points"] = points
    fields["expanded"] = expanded
    fields["corridor"] = corridor
    return path


def int_pairs(start: Any, goal: Any) -> tuple[int, int, int, int] | None:
    """``(sx, sy, gx, gy)`` as plain ints when ``start`` and ``goal`` are both ``(x, y)`` cells
    given as tuples or lists of ints or numpy integers, or as ``(2,)`` integer arrays (what
    ``TileGrid.world_to_cell`` returns), else None (the general path validates)."""
    if type(start) in _PAIRS and type(goal) in _PAIRS:  # (the common case first)
        try:
            sx, sy = start
            gx, gy = goal
        except ValueError:  # not two values
            return None
        if type(sx) is int and type(sy) is int and type(gx) is int and type(gy) is int:
            return sx, sy, gx, gy
    first = _int_cell(start)
    second = _int_cell(goal)
    if first is None or second is None:
        return None
    return first + second


def _int_cell(cell: Any) -> tuple[int, int] | None:
    """One cell of :func:`int_pairs` as plain ints, or None."""
    if type(cell) is np.ndarray:
        if cell.shape != (2,) or cell.dtype.kind not in "iu":
            return None
        x, y = cell.tolist()
        return x, y
    if type(cell) not in _PAIRS or len(cell) != 2:
        return None
    x, y = cell
    if not is_int(x) or not is_int(y):
        return None  # (bools, numpy bools and timedeltas, floats, ...)
    return int(x), int(y)


def fast_rule(options: dict[str, Any]) -> tuple[Diagonal, int, bool, bool, float] | None:
    """The movement rule, heuristic code, ``smooth``, ``partial`` and ``agent_radius`` (not yet
    validated) of ``find_path`` options that the one-call kernel answers as
    :class:`~gamenav.GridSearch` would (see the module docstring), else None. (One pass over the
    options given: ~0.2 us for one option.)"""
    diagonal: Diagonal | None = _DEFAULT_RULE
    heuristic: Heuristic | None = None
    smooth = partial = False
    radius = 0.0
    for name, value in options.items():
        kind = type(value)
        if name == "diagonal":
            if kind is str or kind is Diagonal:
                diagonal = _RULES.get(value)
            elif kind is bool or kind is _NUMPY_BOOL:
                diagonal = _DEFAULT_RULE if value else _NEVER
            else:
                return None
        elif name == "heuristic":
            if value is not None:
                heuristic = _HEURISTICS.get(value) if kind is str or kind is Heuristic else None
                if heuristic is None:
                    return None
        elif name == "smooth" or name == "partial":
            if kind is not bool:
                return None
            if name == "smooth":
                smooth = value
            else:
                partial = value
        elif name == "weight":
            if kind not in _NUMBERS or value != 1:
                return None
        elif name == "agent_radius":
            if kind not in _NUMBERS:
                return None
            radius = value
        elif name != "algorithm" or kind is not str or value != "astar":
            return None
    if diagonal is None:
        return None
    if heuristic is None:  # (default_heuristic, without its two enum lookups)
        return diagonal, _MANHATTAN_CODE if diagonal is _NEVER else _OCTILE, smooth, partial, radius
    if heuristic is _MANHATTAN and diagonal is not _NEVER:
        return None  # a binary-heap search
    return diagonal, heuristic.code, smooth, partial, radius


def snapshot_tables(grid: TileGrid, agent_radius: float) -> tuple[_GridState, Tables] | None:
    """``grid``'s current snapshot (its view for ``agent_radius`` when that is not 0) and its
    kernel tables (built on first use per snapshot and kept on it), or None: an invalid radius,
    or a grid over :data:`MAX_CELLS`."""
    state = grid._state
    if agent_radius:
        try:
            state = radius_state(state, threshold(grid, agent_radius))
        except InvalidInputError:  # (the general path raises it)
            return None
    t: Tables | None = state.fast
    if t is None:
        h, w = state.passable.shape
        if (h + 2) * (w + 2) > MAX_CELLS:  # (no tables built for a search that will not use them)
            return None
        t = state.fast = Tables(grid, state)  # (two threads may both build: equal tables, either is kept)
    return (state, t) if t.cells <= MAX_CELLS else None


def open_ends(grid: TileGrid, start: tuple[int, int], goal: tuple[int, int], diagonal: Diagonal,
              agent_radius: float) -> int | None:
    """The version of ``grid``'s snapshot on which a search from ``start`` to ``goal`` (validated
    cells) with movement rule ``diagonal`` and ``agent_radius`` neither raises nor ends at once:
    both ends passable (for the radius), apart and on one island; else None (also when
    :func:`snapshot_tables` gives none). Checked without a search."""
    found = snapshot_tables(grid, agent_radius)
    if found is None:
        return None
    state, t = found
    (sx, sy), (gx, gy) = start, goal
    bits, labels, _ = t.rule(state, diagonal)
    stride = t.width + 2
    a, b = (sy + 1) * stride + sx + 1, (gy + 1) * stride + gx + 1
    if a == b or not bits[1, a] or not bits[1, b] or labels[sy * t.width + sx] != labels[gy * t.width + gx]:
        return None
    return state.version


def try_find_path(grid: TileGrid, start: Any, goal: Any, diagonal: Diagonal = _DEFAULT_RULE,
                  heuristic: int = _OCTILE, smooth: bool = False, partial: bool = False,
                  agent_radius: float = 0.0, cap: int | None = None) -> Path | None:
    """The answer of ``find_path(grid, start, goal)`` with movement rule ``diagonal``, the
    heuristic of code ``heuristic``, ``smooth``, ``partial`` and ``agent_radius`` (defaults: the
    default options; see :func:`fast_rule`), or None when the general path must answer (cells
    not as :func:`int_pairs` takes them or off the grid, a blocked endpoint, an invalid radius,
    a grid over :data:`MAX_CELLS`, a partial path), or when the search might expand more than
    ``cap`` nodes (the grid's passable cells: None for no cap)."""
    pair = int_pairs(start, goal)
    if pair is None:
        return None
    sx, sy, gx, gy = pair
    state = grid._state
    t = state.fast  # (snapshot_tables's common case without its call: 0.3 us of an 8 us query here)
    if t is None or agent_radius:
        found = snapshot_tables(grid, agent_radius)
        if found is None:
            return None
        state, t = found
    w = t.width
    h = t.height
    if not (0 <= sx < w and 0 <= gx < w and 0 <= sy < h and 0 <= gy < h) or (cap is not None and t.free > cap):
        return None
    ws = getattr(_local, "ws", None)
    if ws is None or ws.cells < t.cells:
        ws = _workspace(t.cells)
    if diagonal is _DEFAULT_RULE:
        bits, labels, kernel = t.bits, t.labels, t.kernel
    else:
        bits, labels, kernel = t.rule(state, diagonal)
    code, cost, expanded, cells, points = kernel(
        bits, t.cost, labels, t.geo, ws.ints, ws.longs, sx, sy, gx, gy, heuristic, smooth)
    if code == _BLOCKED or (partial and code != _FOUND_CODE):
        return None
    return make_path(_FOUND if code == _FOUND_CODE else _NO_PATH, cost, cells, points, expanded)
