"""Resumable tile-grid searches: :class:`GridSearch` (A*, weighted A*, JPS, Dijkstra) and
:class:`SearchWorkspace` (the reusable search state).

Cells are ``(x, y)``; grid arrays are indexed ``[y, x]``. Moving into a cell costs the cell's cost
times the step length (1 orthogonally, sqrt(2) diagonally).
"""

from __future__ import annotations

import contextlib
import inspect
import math
import threading
import weakref
from collections import OrderedDict, deque
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from collections.abc import Callable, Iterator, Sequence

import numpy as np
import numpy.typing as npt

from gamenav._identity import IdentityMap
from gamenav._kernels import announce_compile
from gamenav._kernels import grid_search as _k
from gamenav._kernels import jps as _jps
from gamenav._kernels.grid_fast import world_points as _world_points
from gamenav._events import NotCopyable
from gamenav._validate import (check_options, expansion_budget, flag, is_int, is_real, keyword_options,
                               real_number, shown)
from gamenav.errors import BlockedEndpointError, InvalidInputError, UnsupportedOptionError
from gamenav.grid import hpa as _hpa
from gamenav.grid import jump_plus as _jump_plus
from gamenav.grid import subgoal as _subgoal
from gamenav.grid._fast import int_pairs, make_path
from gamenav.grid._index import GraphIndex, answer_once, check_graph_options, graph_options_error, let_go
from gamenav.grid.movement import (Diagonal, Heuristic, HeuristicLike, default_heuristic,
                                   resolve_heuristic)
from gamenav.grid.clearance import radius_state, threshold
from gamenav.grid.tilegrid import Box, TileGrid, _GridState
from gamenav.types import Path, PathStatus

if TYPE_CHECKING:
    from typing_extensions import Never  # no keyword outside the signature type-checks

__all__ = ["ALGORITHMS", "POOL_MAX_BYTES", "GridSearch", "Lease", "SearchWorkspace", "prepare"]

ALGORITHMS = ("astar", "jps", "dijkstra", "hpa", "subgoal")
"""Accepted values of ``algorithm=``."""

_Heap = tuple[npt.NDArray[np.float64], npt.NDArray[np.float64], npt.NDArray[np.int32], npt.NDArray[np.int32]]
"""Binary-heap arrays ``(hf, hg, hn, pos)`` of the kernels."""

KERNELS = (_k.best_first_step, _k.field_stale, _k.move_masks, _k.trace_path, _k.smooth_path, _jps.jump_tables,
           _world_points, *_jump_plus.KERNELS, *_hpa.KERNELS, *_subgoal.KERNELS)
"""The numba kernels of the "grid search" compile group (announced together)."""


class SearchWorkspace:
    """Reusable search state for grids of one shape: numpy arrays stamped with a generation.

    Each search bumps the generation instead of clearing the arrays, so reusing a workspace
    costs nothing per query. A workspace serves one running search at a time: starting a new
    search on it takes it over, and the previous (unfinished) search then refuses to ``step``;
    starting or stepping a search on it while another thread steps one there is refused too.
    Searches created without ``workspace=`` borrow one from a pool and give it back when they
    finish, are cancelled or are dropped unfinished. The pool keeps at most 4 workspaces per
    grid shape and :data:`POOL_MAX_BYTES` in total (least recently returned go first), and
    frees a shape's workspaces once no grid of that shape is alive. A workspace holds about
    32 bytes per cell, 56 once a weighted search used it, and once a JPS+ search did, its node
    pool too: about ``1500 * (height + width)`` bytes, more after long searches (4.6 MB on a
    1550 x 1550 grid). Its array attributes are the kernels' state, described in
    ``gamenav._kernels.grid_search`` and ``gamenav._kernels.jump_plus``; do not modify them.
    ``copy.copy``, ``copy.deepcopy`` and pickle give a new workspace of the same shape.

    Args:
        shape: ``(height, width)`` of the grids it will search (``TileGrid.shape``).

    Example:
        >>> import gamenav
        >>> grid = gamenav.TileGrid.from_strings(["...", "..."])
        >>> ws = gamenav.SearchWorkspace(grid.shape)
        >>> gamenav.find_path(grid, (0, 0), (2, 1), workspace=ws).cost
        2.414213562373095
    """

    def __init__(self, shape: Sequence[int]) -> None:
        try:
            h, w = shape
        except (TypeError, ValueError):
            raise InvalidInputError(f"shape must be (height, width), got {shown(shape)}") from None
        if not (is_int(h) and is_int(w)):
            raise InvalidInputError(f"shape must be (height, width) ints, got {shown(shape)}")
        h, w = int(h), int(w)
        if h <= 0 or w <= 0:
            raise InvalidInputError(f"shape must be positive (height, width), got {shown((h, w))}")
        if (h + 2) * (w + 2) >= np.iinfo(np.int32).max:
            raise InvalidInputError(f"shape {shown((h, w))} has too many cells for a workspace")
        self.shape = (h, w)
        n = (h + 2) * (w + 2)
        self.g = np.empty(n, dtype=np.float64)
        self.parent = np.empty(n, dtype=np.int32)
        self.mark = np.zeros(n, dtype=np.int32)
        self.rkey = np.empty(n, dtype=np.int64)
        self.rnext = np.empty(n, dtype=np.int32)
        self.rprev = np.empty(n, dtype=np.int32)
        self.rhead = np.empty(64, dtype=np.int32)
        self.rmin = np.empty(64, dtype=np.int64)
        self._heap: _Heap | None = None
        # the JPS+ node pool (gamenav.grid.jump_plus.PlusSearch), allocated by the first JPS+ search
        self.plus_arrays: tuple[npt.NDArray[Any], ...] | None = None
        self._stamp = 0
        self._owner: object | None = None  # a token of the running search, never the search
        self._busy = threading.Lock()  # held while a search sets up or runs on the arrays

    @property
    def nbytes(self) -> int:
        """Bytes held by the arrays (the heap and JPS+ arrays count once allocated)."""
        arrays = (self.g, self.parent, self.mark, self.rkey, self.rnext, self.rprev, self.rhead,
                  self.rmin) + (self._heap or ()) + (self.plus_arrays or ())
        return sum(a.nbytes for a in arrays)

    @property
    def heap(self) -> _Heap:
        """Binary-heap arrays ``(hf, hg, hn, pos)``, allocated on first use (weighted A*)."""
        if self._heap is None:
            n = self.g.shape[0]
            self._heap = (np.empty(n, dtype=np.float64), np.empty(n, dtype=np.float64),
                          np.empty(n, dtype=np.int32), np.empty(n, dtype=np.int32))
        return self._heap

    @contextlib.contextmanager
    def _using(self, owner: object | None = None) -> Iterator[None]:
        """Hold the arrays for one search's set-up or step (``owner``: its token, which must still
        hold the workspace; None: a search taking it over).

        Raises:
            InvalidInputError: a search in another thread is using the workspace (two kernels on
                the same arrays corrupt both searches), or ``owner`` no longer holds it.
        """
        if not self._busy.acquire(blocking=False):
            raise InvalidInputError(
                "this SearchWorkspace is in use by a search running in another thread; give each "
                "concurrent search its own workspace")
        try:
            if owner is not None and self._owner is not owner:
                raise InvalidInputError(
                    "this search's SearchWorkspace was taken over by a newer search; give each "
                    "concurrent search its own workspace")
            yield
        finally:
            self._busy.release()

    def _begin(self, owner: object, nodes: npt.NDArray[np.int64], monotone: bool) -> npt.NDArray[np.int64]:
        """Take the workspace for ``owner`` (a token that must not reference the search, so a
        dropped search is freed by reference counting) and open ``nodes`` (sorted, unique) with
        g = 0 (inside :meth:`_using` if the caller did not borrow it from the pool).

        Returns the kernels' ``istate`` (see :mod:`gamenav._kernels.grid_search`).
        """
        self._stamp += 2
        if self._stamp >= np.iinfo(np.int32).max - 2:
            self.mark.fill(0)
            self._stamp = 2
        self._owner = owner
        k = nodes.shape[0]
        self.mark[nodes] = self._stamp
        self.g[nodes] = 0.0
        self.parent[nodes] = -1
        if monotone:  # one list in bucket 0, key 0
            self.rhead.fill(-1)
            self.rhead[0] = nodes[0]
            self.rmin[0] = 0
            self.rkey[nodes] = 0
            self.rnext[nodes[:-1]] = nodes[1:]
            self.rnext[nodes[-1]] = -1
            self.rprev[nodes[1:]] = nodes[:-1]
            self.rprev[nodes[0]] = -1
        else:  # equal keys in increasing order form a valid heap
            hf, hg, hn, pos = self.heap
            hf[:k] = 0.0
            hg[:k] = 0.0
            hn[:k] = nodes
            pos[nodes] = np.arange(k, dtype=np.int32)
        return np.array([self._stamp, k, 0, nodes[0], 0, 1], dtype=np.int64)

    def _release(self, owner: object) -> bool:
        """Drop ownership if ``owner`` still holds the workspace; returns whether it did."""
        if self._owner is owner:
            self._owner = None
            return True
        return False

    def __repr__(self) -> str:
        return f"SearchWorkspace(shape={self.shape})"

    def __reduce__(self) -> tuple[type[SearchWorkspace], tuple[tuple[int, int]]]:
        """``copy.copy``, ``copy.deepcopy`` and pickle give a new, independent workspace of the
        same shape (never one sharing these arrays, which two searches would then corrupt)."""
        return SearchWorkspace, (self.shape,)


POOL_MAX_BYTES = 256 * 2**20
"""Most bytes of spare :class:`SearchWorkspace` arrays the pool keeps (256 MiB; one workspace of
a 1500 x 1500 grid holds 72 MB, 77 MB after JPS+ searches, 126 MB after weighted ones). Larger
workspaces are not kept."""

_POOL_PER_SHAPE = 4


class _WorkspacePool:
    """Spare workspaces by grid shape: LRU, bounded by count per shape and by total bytes, and
    emptied for a shape when its last grid is garbage-collected.

    Returns (from ``GridSearch.__del__``) and dead grids (from ``weakref.finalize``) may arrive
    at any allocation, even inside a pool operation of the same thread: they are queued
    (``deque.append`` is atomic) and settled under the lock by whoever holds it next.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._spare: OrderedDict[int, SearchWorkspace] = OrderedDict()  # id -> ws, oldest first
        self._sizes: dict[int, int] = {}  # id -> the spare's nbytes when it was kept
        self._bytes = 0  # their sum
        self._grids: IdentityMap[TileGrid, tuple[int, int]] = IdentityMap()  # grids counted, their shape
        self._alive: dict[tuple[int, int], int] = {}  # live grids per shape
        self._returned: deque[SearchWorkspace] = deque()
        self._gone: deque[tuple[int, int]] = deque()

    def borrow(self, grid: TileGrid) -> SearchWorkspace:
        """A spare workspace for ``grid``'s shape (the most recently returned), or a new one."""
        shape = grid.shape
        with self._lock:
            if self._grids.get(grid) is None:
                self._grids[grid] = shape
                self._alive[shape] = self._alive.get(shape, 0) + 1
                weakref.finalize(grid, self._grid_gone, shape)
            self._settle()
            # (not one a kernel still runs on: a search cancelled from another thread gave it back)
            same = [key for key, spare in self._spare.items() if spare.shape == shape and not spare._busy.locked()]
            if same:
                return self._take(same[-1])
        return SearchWorkspace(shape)

    def give_back(self, ws: SearchWorkspace) -> None:
        """Keep ``ws`` for reuse if a grid of its shape is alive and it fits the bounds."""
        self._returned.append(ws)
        self._try_settle()

    def _grid_gone(self, shape: tuple[int, int]) -> None:
        self._gone.append(shape)
        self._try_settle()

    def _try_settle(self) -> None:
        if self._lock.acquire(blocking=False):  # else the holder (maybe this thread) settles
            try:
                self._settle()
            finally:
                self._lock.release()

    def _settle(self) -> None:
        """Apply the queued dead grids and returned workspaces (the caller holds the lock)."""
        while self._gone:
            shape = self._gone.popleft()
            self._alive[shape] -= 1
            if self._alive[shape] == 0:
                del self._alive[shape]
                for key in [k for k, spare in self._spare.items() if spare.shape == shape]:
                    self._take(key)
        while self._returned:
            ws = self._returned.popleft()
            size = ws.nbytes
            if not self._alive.get(ws.shape) or size > POOL_MAX_BYTES:
                continue
            same = [key for key, spare in self._spare.items() if spare.shape == ws.shape]
            if len(same) >= _POOL_PER_SHAPE:
                self._take(same[0])
            self._spare[id(ws)] = ws
            self._sizes[id(ws)] = size
            self._bytes += size
        while self._bytes > POOL_MAX_BYTES:
            self._take(next(iter(self._spare)))

    def _take(self, key: int) -> SearchWorkspace:
        """Remove the spare ``key`` from the pool (the caller holds the lock) and return it."""
        self._bytes -= self._sizes.pop(key)
        return self._spare.pop(key)

    def spare(self) -> list[SearchWorkspace]:
        """The pooled workspaces, oldest first (for tests and diagnostics)."""
        with self._lock:
            self._settle()
            return list(self._spare.values())


_pool = _WorkspacePool()

_JUMP_EDITS = 64
"""Edits whose rows and columns a pending jump-table patch keeps apart (see :class:`_Padded`)."""


class _Padded:
    """The kernel view of one grid snapshot: padded flat arrays and facts about it.

    After an edit it is built from an older snapshot's and the box of the cells changed since
    (``_GridState.padded_base``, kept only while the box is small): each array whose box changed
    is copied (running searches keep the old ones) and patched in and next to the box; the others are
    shared (a wall placed on a map of unit costs copies no cost array; a cost edit, no passable
    cells, moves or jumps). No pass compares or scans whole arrays. The arrays are never
    modified once built. The online-JPS jump table (38 MB on a 1550 x 1550 map) is patched only
    when a search asks for it: until then ``_jump_base`` holds an older table and the boxes of the
    rows and columns to redo, one per edit since (at most :data:`_JUMP_EDITS`, then their union).
    """

    __slots__ = ("shape", "stride", "passable", "cost", "nonunit", "uniform", "_moves", "_jump_table",
                 "_jump_base")

    def __init__(self, passable: npt.NDArray[np.bool_], cost: npt.NDArray[np.float64],
                 base: tuple[_Padded, Box] | None = None) -> None:
        self.shape = h, w = passable.shape
        self.stride = w + 2
        self.passable: npt.NDArray[np.uint8]
        self.cost: npt.NDArray[np.float64]
        self.nonunit: int  # padded cells whose cost is not 1 (uniform: none)
        self._moves: dict[int, npt.NDArray[np.uint8]] = {}
        self._jump_table: npt.NDArray[np.int32] | None = None
        self._jump_base: tuple[npt.NDArray[np.int32], tuple[Box, ...]] | None = None
        if base is None:  # build from scratch
            pad = np.zeros((h + 2, w + 2), dtype=np.uint8)
            pad[1:-1, 1:-1] = passable
            self.passable = pad.ravel()
            cpad = np.ones((h + 2, w + 2), dtype=np.float64)
            cpad[1:-1, 1:-1] = np.where(passable, cost, 1.0)
            self.cost = cpad.ravel()
            self.nonunit = int(np.count_nonzero(self.cost != 1.0))
            self.uniform = self.nonunit == 0
            return
        previous, (y0, y1, x0, x1) = base
        inner = (slice(y0 + 1, y1 + 1), slice(x0 + 1, x1 + 1))
        patch = np.where(passable[y0:y1, x0:x1], cost[y0:y1, x0:x1], 1.0)
        was = previous.cost.reshape(h + 2, w + 2)[inner]
        self.nonunit = previous.nonunit - int(np.count_nonzero(was != 1.0)) + int(np.count_nonzero(patch != 1.0))
        self.uniform = self.nonunit == 0
        self.passable = _patched(previous.passable, (h + 2, w + 2), inner, passable[y0:y1, x0:x1])
        self.cost = _patched(previous.cost, (h + 2, w + 2), inner, patch)
        if self.passable is previous.passable:  # the same cells: the same moves and jumps
            self._moves = previous._moves  # never mutated: moves() replaces the dict
            self._jump_table = previous._jump_table
            self._jump_base = previous._jump_base
            return
        # moves depend on the 8 neighbours; the jumps of a row / column on the next ones
        region = (max(y0, 1), min(y1 + 2, h + 1), max(x0, 1), min(x1 + 2, w + 1))
        for code, moves in previous._moves.items():
            patched = moves.copy()
            _k.move_masks(self.passable, self.stride, code, patched, *region)
            self._moves[code] = patched
        self._jump_base = previous._jumps_since(region)

    def _jumps_since(self, region: Box) -> tuple[npt.NDArray[np.int32], tuple[Box, ...]] | None:
        """What a later snapshot's jump table may be patched from: this one's table (or its own
        base) and the padded ``(r0, r1, c0, c1)`` rows and columns to redo, ``region`` added."""
        table = self._jump_table
        if table is not None:
            return table, (region,)
        if self._jump_base is None:
            return None
        table, regions = self._jump_base
        if len(regions) < _JUMP_EDITS:
            return table, (*regions, region)
        r0, r1, c0, c1 = zip(*regions, region, strict=True)
        return table, ((min(r0), max(r1), min(c0), max(c1)),)

    def moves(self, diagonal: Diagonal) -> npt.NDArray[np.uint8]:
        """``(N,)`` uint8 allowed-move bits for a movement rule (computed once per rule).

        The dict of computed rules is replaced, never mutated, so other threads may read or
        copy it meanwhile."""
        code = diagonal.code
        moves = self._moves.get(code)
        if moves is None:
            announce_compile("grid search", *KERNELS)
            moves = np.zeros(self.passable.shape[0], dtype=np.uint8)
            h, w = self.shape
            _k.move_masks(self.passable, self.stride, code, moves, 1, h + 1, 1, w + 1)
            self._moves = {**self._moves, code: moves}
        return moves

    def jump_table(self) -> npt.NDArray[np.int32]:
        """``(4, N)`` int32 straight-jump table for JPS (computed on first use: patched from an
        older snapshot's when there is one, see the class docstring)."""
        if self._jump_table is None:
            announce_compile("grid search", *KERNELS)
            base = self._jump_base
            h, w = self.shape
            if base is None:
                table = np.zeros((4, self.passable.shape[0]), dtype=np.int32)
                regions: tuple[Box, ...] = ((1, h + 1, 1, w + 1),)
            else:
                table, regions = base[0].copy(), base[1]
            for region in regions:
                _jps.jump_tables(self.passable, self.stride, table, *region)
            self._jump_table = table  # (before the base is dropped: another thread may read both)
            self._jump_base = None
        return self._jump_table


def _patched(flat: npt.NDArray[Any], shape: tuple[int, int], box: tuple[slice, slice],
             values: npt.NDArray[Any]) -> npt.NDArray[Any]:
    """``flat`` (a padded array of ``shape``, raveled) with ``values`` in ``box``: ``flat`` itself
    when they are there already, else a patched copy (``flat`` is never modified)."""
    if np.array_equal(flat.reshape(shape)[box], values):
        return flat
    out: npt.NDArray[Any] = flat.copy()
    out.reshape(shape)[box] = values
    return out


def padded(grid: TileGrid | _GridState) -> _Padded:
    """The padded kernel arrays of a grid snapshot (``grid``'s current one, or the one given),
    built on first use (patching the previous snapshot's arrays) and kept on the snapshot.

    Built under no lock: two threads may both build them (equal arrays, the first kept). A lock
    deadlocked: a garbage collection inside a build may run a ``__del__`` that edits a grid,
    whose edit lock another thread holds while its listener searches that grid.
    """
    state = grid._snapshot() if isinstance(grid, TileGrid) else grid
    pad = state.padded
    if pad is None:
        built = _Padded(state.passable, state.cost, state.padded_base)
        pad = state.padded
        if pad is None:
            pad = state.padded = built
        state.padded_base = None
    return pad


def _heuristic_value(value: Any) -> float:
    """One cell's value of a user heuristic as a float (TypeError: not an int or a float)."""
    if not is_real(value):
        got = f"an array of shape {value.shape}" if isinstance(value, np.ndarray) else f"{shown(value, 80)}"
        raise TypeError(f"{got} is not an int or a float")
    return float(value)


def _heuristic_table(func: Callable[..., Any], shape: tuple[int, int], goal: tuple[int, int]
                     ) -> npt.NDArray[np.float64]:
    """Evaluate a user heuristic ``func(dx, dy)`` for every cell into a padded flat table (its
    values must be ints or floats: a bool or a string such as ``"1"`` is refused, not read as a
    number)."""
    h, w = shape
    dy, dx = np.abs(np.mgrid[0:h, 0:w] - np.array(goal[::-1])[:, None, None])
    with np.errstate(over="ignore"):  # a long double beyond float64 is inf (refused below), not a RuntimeWarning
        try:
            raw = np.asarray(func(dx, dy))
            if raw.dtype.kind == "O":  # Python numbers, one by one
                raw = np.vectorize(_heuristic_value, otypes=[np.float64])(raw)
            elif raw.dtype.kind not in "iuf":
                raise TypeError(f"values of dtype {raw.dtype} are not numbers")
            try:
                values = np.broadcast_to(raw.astype(np.float64), (h, w))
            except ValueError:  # (numpy's message names "remapped shapes")
                raise ValueError(f"it returned an array of shape {raw.shape}") from None
        except Exception as whole:  # noqa: BLE001 - scalar-only callables: evaluate cell by cell instead
            try:
                values = np.vectorize(lambda x, y: _heuristic_value(func(x, y)), otypes=[np.float64])(dx, dy)
            except (TypeError, ValueError, OverflowError) as exc:
                raise InvalidInputError(
                    f"heuristic(dx, dy) must return a number for every cell, got an error: {exc} (given the "
                    f"arrays dx, dy of shape {(h, w)}: {whole})") from exc
    if not np.isfinite(values).all() or (values < 0).any():
        raise InvalidInputError("heuristic(dx, dy) must return finite values >= 0 for every cell")
    table = np.zeros((h + 2, w + 2), dtype=np.float64)
    table[1:-1, 1:-1] = values
    return table.ravel()


def _cells_cost(cells: npt.NDArray[np.int64], pad: _Padded) -> float:
    """The grid cost of an ``(n, 2)`` cell path on ``pad``, summed step by step in path order
    as the search kernel sums ``g`` (so equal to it bit for bit along an A* parent chain)."""
    entered = pad.cost[(cells[1:, 1] + 1) * pad.stride + cells[1:, 0] + 1]
    diagonal = (np.diff(cells, axis=0) != 0).all(axis=1)
    steps = np.where(diagonal, math.sqrt(2.0) * entered, entered)
    return float(np.cumsum(steps)[-1]) if len(steps) else 0.0


def _octile(dx: int, dy: int) -> float:
    ax, ay = abs(dx), abs(dy)
    return max(ax, ay) + (math.sqrt(2.0) - 1.0) * min(ax, ay)


_GraphHeld = tuple[GraphIndex[_hpa.HpaResult | _subgoal.SubgoalResult], Any]
"""The hpa / subgoal index and its graph of a search's snapshot, held until its first step."""

_EMPTY_TABLE = np.zeros(1, dtype=np.float64)
_NO_TABLE = np.zeros((4, 1), dtype=np.int32)
_NO_HEAP = (np.zeros(1, dtype=np.float64), np.zeros(1, dtype=np.float64),
            np.zeros(1, dtype=np.int32), np.zeros(1, dtype=np.int32))


@dataclass(frozen=True)
class _Request:
    """The validated arguments of one :class:`GridSearch` (nothing here depends on the cells)."""

    grid: TileGrid
    start: tuple[int, int]
    goal: tuple[int, int]
    algorithm: str
    diagonal: Diagonal
    heuristic: Heuristic | Callable[..., Any]
    weight: float
    partial: bool
    smooth: bool
    workspace: SearchWorkspace | None
    agent_radius: float = 0.0
    mask: int = 0  # the clearance threshold of agent_radius (<= 1: the plain passable cells)


def _blocked(req: _Request) -> str:
    """How a blocked endpoint is blocked, for error messages."""
    if req.mask <= 1:
        return "a blocked cell"
    return (f"blocked for agent_radius={shown(req.agent_radius)} (a centre closer than that to a blocked "
            "cell or the map edge; see gamenav.clearance_mask)")


def _check(grid: TileGrid, start: Sequence[int], goal: Sequence[int], algorithm: str,
           diagonal: Diagonal | str | bool, heuristic: HeuristicLike, weight: float,
           partial: bool, smooth: bool, workspace: SearchWorkspace | None,
           agent_radius: float = 0.0) -> _Request:
    """Validate :class:`GridSearch`'s arguments (see its docstring for the errors)."""
    if not isinstance(grid, TileGrid):
        raise InvalidInputError(f"grid must be a TileGrid, got {type(grid).__name__}")
    if not isinstance(algorithm, str) or algorithm not in ALGORITHMS:
        raise InvalidInputError(f"algorithm must be one of {list(ALGORITHMS)}, got {shown(algorithm)}")
    diag = Diagonal.parse(diagonal)
    weight = real_number(weight, "weight", "a number >= 1")
    if not (math.isfinite(weight) and weight >= 1.0):
        raise InvalidInputError(f"weight must be a finite number >= 1, got {weight}")
    heur = resolve_heuristic(heuristic, diag)
    if algorithm == "dijkstra" and (heuristic is not None or weight != 1.0):
        raise UnsupportedOptionError(
            "algorithm='dijkstra' uses no heuristic: leave heuristic=None and weight=1, got "
            f"heuristic={shown(heuristic)}, weight={weight}")
    s = grid.check_cell(start, "start")
    g = grid.check_cell(goal, "goal")
    if workspace is not None:
        if not isinstance(workspace, SearchWorkspace):
            raise InvalidInputError(
                f"workspace must be a SearchWorkspace, got {type(workspace).__name__}")
        if workspace.shape != grid.shape:
            raise InvalidInputError(
                f"workspace shape {workspace.shape} does not match the grid shape {grid.shape}")
    mask = threshold(grid, agent_radius)
    if algorithm in ("jps", "hpa", "subgoal"):
        check_graph_options(algorithm, diag, heur, heuristic, weight, mask, agent_radius)
    return _Request(grid, s, g, algorithm, diag, heur, weight, flag(partial, "partial"),
                    flag(smooth, "smooth"), workspace, float(agent_radius), mask)


_DEFAULTS: dict[str, Any] = {}


def _defaults() -> dict[str, Any]:
    """:class:`GridSearch`'s keyword defaults, read once from its signature."""
    if not _DEFAULTS:
        _DEFAULTS.update({name: p.default for name, p in inspect.signature(GridSearch).parameters.items()
                          if p.kind is inspect.Parameter.KEYWORD_ONLY})
    return _DEFAULTS


def prepare(grid: TileGrid, *algorithms: str) -> None:
    """Build now the per-grid data that ``algorithm="jps"`` (the JPS+ jump table),
    ``algorithm="hpa"`` (the cluster graph) and ``algorithm="subgoal"`` (the subgoal graph)
    otherwise build on their first query: 0.05-1.3 s on 1000-cell maps, for a loading screen
    rather than a frame. They are then kept in step with ``set_walkable`` while the grid lives.
    ``"astar"`` and ``"dijkstra"`` need nothing.

    Raises:
        InvalidInputError: ``grid`` is not a TileGrid, no algorithm is given, or one is not a
            name of :data:`ALGORITHMS`.
    """
    if not isinstance(grid, TileGrid):
        raise InvalidInputError(f"grid must be a TileGrid, got {type(grid).__name__}")
    if not algorithms:
        raise InvalidInputError(f"name the algorithms to prepare, e.g. prepare(grid, 'jps'); "
                                f"one of {list(ALGORITHMS)}")
    for name in algorithms:
        if not isinstance(name, str) or name not in ALGORITHMS:
            raise InvalidInputError(f"algorithm must be one of {list(ALGORITHMS)}, got {shown(name)}")
    for name in ("jps", "hpa", "subgoal"):
        if name in algorithms:
            build_index(grid, name)


def build_index(grid: TileGrid, algorithm: str) -> None:
    """Build ``grid``'s index for ``algorithm`` (``"jps"``: the JPS+ table, ``"hpa"``, ``"subgoal"``:
    the graphs; subgoal graphs only where :func:`gamenav.grid.subgoal.fits`) if it has none."""
    if algorithm == "jps":
        _jump_plus.jump_index(grid)
    elif algorithm == "hpa":
        _hpa.hpa_index(grid)
    elif algorithm == "subgoal" and _subgoal.fits(grid.shape):
        _subgoal.subgoal_index(grid)


def _centres(grid: TileGrid, cells: npt.NDArray[np.int64]) -> npt.NDArray[np.float64]:
    """Read-only world centres of a search's own ``(n, 2)`` int64 cells (as
    :meth:`TileGrid.cell_to_world`, without its input checks: about 0.5 us instead of 10)."""
    ox, oy = grid._origin
    points: npt.NDArray[np.float64] = _world_points(cells, ox, oy, grid._cell_size, grid._y_up,
                                                    float(grid.height))
    return points


def try_graph_path(grid: TileGrid, start: Any, goal: Any, algorithm: str) -> Path | None:
    """``find_path(grid, start, goal, algorithm=algorithm)`` for ``"hpa"`` / ``"subgoal"`` / ``"jps"``
    without the :class:`GridSearch` machinery (about 15 us less per query, 40 us with cold
    caches; ``"jps"``: :func:`_plus_path`), or None when the general path must answer: anything
    but two different passable ``(x, y)`` pairs of ``int`` in one island of a uniform-cost grid,
    or a query the graph hands to A*. The answer is the general path's (property tests check it)."""
    cells = int_pairs(start, goal)
    if cells is None:
        return None
    sx, sy, gx, gy = cells
    state = grid._snapshot()
    passable = state.passable
    h, w = passable.shape
    if not (0 <= sx < w and 0 <= gx < w and 0 <= sy < h and 0 <= gy < h) or (sx, sy) == (gx, gy):
        return None
    labels = state.components(Diagonal.NO_CORNER_CUTTING)
    if not (passable[sy, sx] and passable[gy, gx] and labels[sy, sx] == labels[gy, gx]) or \
            not padded(state).uniform:
        return None
    if algorithm == "jps":
        return _plus_path(grid, state, (sx, sy), (gx, gy))
    if algorithm == "subgoal":
        by_subgoals = _subgoal.find(grid, state, (sx, sy), (gx, gy))
        if by_subgoals is None:
            return None
        return make_path(PathStatus.FOUND, by_subgoals.cost, by_subgoals.cells, by_subgoals.points,
                         by_subgoals.expanded)
    found = _hpa.find(grid, state, (sx, sy), (gx, gy))
    if found is None:
        return None
    way = found.cells
    way.flags.writeable = False  # (fresh: no one else holds it; make_path takes read-only arrays)
    return make_path(PathStatus.FOUND, found.cost, way, _centres(grid, way), found.expanded)


def _plus_path(grid: TileGrid, state: _GridState, start: tuple[int, int], goal: tuple[int, int]) -> Path | None:
    """The JPS+ search of ``find_path(grid, start, goal, algorithm="jps")`` for two different
    cells in one island of ``state``, the grid's current uniform-cost snapshot, run whole on a
    pooled workspace: the kernel calls of :meth:`GridSearch._open` and :meth:`GridSearch.step`
    without the search object (about 90 us less per query on 1550 x 1550 maps). None where
    JPS+ does not run (dense maps: A*; the table behind the snapshot: online JPS)."""
    plus = _jump_plus.start(grid, state, True)[1]
    if plus is None:
        return None
    announce_compile("grid search", *KERNELS)
    (sx, sy), (gx, gy) = start, goal
    pad = padded(state)
    stride = pad.stride
    node, goal_node = (sy + 1) * stride + sx + 1, (gy + 1) * stride + gx + 1
    ws, token = _pool.borrow(grid), object()  # (borrowed: no other search holds it)
    try:
        stamp = int(ws._begin(token, np.array([node], dtype=np.int64), True)[0])
        plus.begin(stamp, node, _octile(sx - gx, sy - gy), ws)
        code = plus.step(pad.passable, stride, goal_node, gx + 1, gy + 1, expansion_budget(None), ws)
        if code != _k.FOUND:  # cannot happen: one island
            raise RuntimeError(f"JPS+ from {start} to {goal} in one island ended with code {code}")
        cells = _k.trace_path(ws.parent, goal_node, stride)
        cost = float(ws.g[goal_node])
    finally:
        ws._release(token)
        _pool.give_back(ws)
        plus.release()
    cells.flags.writeable = False  # (fresh and read-only, as make_path takes arrays)
    return make_path(PathStatus.FOUND, cost, cells, _centres(grid, cells), plus.expanded)


class _Shared:
    """A graph index that answers but takes nothing back: each search of a :class:`Lease` holds
    the lease's graph through one (the lease gives it back once, when closed)."""

    def __init__(self, index: GraphIndex[_hpa.HpaResult | _subgoal.SubgoalResult]) -> None:
        self._index = index

    def answer(self, graph: Any, grid: TileGrid, state: _GridState, start: tuple[int, int],
               goal: tuple[int, int]) -> _hpa.HpaResult | _subgoal.SubgoalResult | None:
        return self._index.answer(graph, grid, state, start, goal)

    def release(self, data: Any) -> None:
        """Nothing: the lease gives the graph back."""


class Lease:
    """The per-grid index data of one grid snapshot (the JPS+ table, the hpa / subgoal graph) for
    searches with ``request``'s options started on that snapshot later
    (:meth:`GridSearch._from_checked`), when the grid may have moved on (a batch of ``find_paths``):
    each runs as a search started at once would (not online JPS or A* for want of its snapshot's
    data). Take it while ``state`` is current; :meth:`close` gives the data back."""

    def __init__(self, grid: TileGrid, state: _GridState, request: _Request) -> None:
        jps = request.algorithm == "jps"
        # (searches on an agent radius's view of the snapshot have no table: online JPS)
        self._jps = _jump_plus.start(grid, state, jps) if request.mask <= 1 else (jps, None)
        module = {"hpa": _hpa, "subgoal": _subgoal}.get(request.algorithm)
        self._graph: _GraphHeld | None = None if module is None else module.hold(grid, state)

    def graph(self) -> _GraphHeld | None:
        """The hpa / subgoal graph for one search (given back by the lease, not the search)."""
        return None if self._graph is None else (_Shared(self._graph[0]), self._graph[1])

    def jps(self, jps: bool) -> tuple[bool, _jump_plus.PlusSearch | None]:
        """:func:`gamenav.grid.jump_plus.start` for one search on the snapshot."""
        if not jps:
            return False, None
        online, plus = self._jps
        return online, None if plus is None else plus.shared()

    def close(self) -> None:
        """Give the data back (idempotent)."""
        let_go(self._graph)
        self._graph = None
        _jump_plus.release(self._jps[1])


class GridSearch(NotCopyable):
    """A resumable shortest-path search on a :class:`~gamenav.TileGrid`.

    Build it, call :meth:`step` until the status is done, then read :meth:`result`. Running to
    completion in any number of ``step`` calls gives the same path, bit for bit, as
    ``gamenav.find_path`` with the same arguments. The grid's arrays are captured at construction
    (edits replace them copy-on-write), so a running search sees one consistent snapshot;
    :attr:`world_version` tells which.

    Args:
        grid: the grid to search.
        start, goal: ``(x, y)`` cells.
        algorithm: ``"astar"`` (default), ``"jps"`` (Jump Point Search: uniform-cost grids,
            ``diagonal="no_corner_cutting"``, weight 1 and the octile heuristic only; otherwise
            :class:`~gamenav.UnsupportedOptionError`) or ``"dijkstra"`` (no heuristic).
            ``"jps"`` runs JPS+ (:mod:`gamenav.grid.jump_plus`: a per-grid table of jump
            distances, built on the first JPS query and repaired in place on edits) and counts
            the jump points it expands in ``expanded``; on dense maps (random obstacles, 1-wide
            mazes) it runs A*, which is faster there. Costs are optimal either way; among paths
            of equal cost it may pick another one than A* (whose steps, summed in another order,
            may give a cost another float rounding apart: compare costs with a tolerance).
            ``"hpa"``: near-optimal hierarchical search (:mod:`gamenav.grid.hpa`: clusters
            built on the first query, repaired locally on edits; same options as ``"jps"``
            except that ``agent_radius`` must stay within half a cell); the path is
            string-pulled into valid cell steps and ``cost`` is its grid cost. Start and goal
            in the same or neighbouring clusters run A* (exact unless it needs more than 4 x
            the cluster area in expansions). The query runs whole in the first :meth:`step`
            (0.1-4 ms on 1000-cell maps), whatever its ``max_expansions``, on the graph of the
            search's snapshot (held from its start: an edit meanwhile repairs a copy).
            ``"subgoal"``: optimal search on a graph of obstacle corners (:mod:`gamenav.grid.
            subgoal`: Simple Subgoal Graphs, built on the first query or by
            :func:`prepare`, repaired locally on edits; same options as ``"hpa"``); costs
            are A*'s optimum (as with ``"jps"``, maybe a float rounding apart), ``expanded``
            counts graph nodes. Runs whole in the first :meth:`step`
            like ``"hpa"`` (0.1-1 ms on 1000-cell maps).
        diagonal: a :class:`~gamenav.Diagonal` rule (name or member; True/False).
        heuristic: ``None`` (manhattan for 4-connected movement, octile otherwise), a
            :class:`~gamenav.Heuristic` name, or ``f(dx, dy) -> float`` of absolute cell offsets,
            evaluated once per search over the whole grid (with numpy arrays, or cell by cell if
            it rejects them). Only admissible heuristics guarantee optimal paths.
        weight: >= 1; weighted A* (``f = g + weight * h``) returns a path costing at most
            ``weight`` times the optimum (with an admissible, consistent heuristic).
        partial: when the goal is unreachable (another island, or blocked), return the path to
            the reachable cell with the smallest heuristic to the goal (ties: smaller cost) with
            status PARTIAL instead of NO_PATH (a blocked goal then raises no error). Finding it
            expands the start's whole island (JPS uses A* for that case). Dijkstra ranks cells
            by the movement's default heuristic.
        smooth: replace the cell path by line-of-sight waypoints (see :meth:`result`).
        workspace: a :class:`SearchWorkspace` of the grid's shape to reuse; by default one is
            borrowed from a pool.
        agent_radius: the agent's radius in world units (default 0): use only cells whose
            centre is at least that far from every blocked cell and the map edge, with the
            movement rule applied to those cells (see :mod:`gamenav.grid.clearance`; radii up to
            half a cell change nothing, at most ``MAX_RADIUS_CELLS`` = 7.5 cells).

    Outcomes: ``start == goal`` gives FOUND with one cell and cost 0; a goal on another island
    gives NO_PATH at once (0 expansions), or PARTIAL with ``partial=True``.

    Tie-breaking is deterministic (same inputs, same path, every run): cells are expanded in
    order of ``f = g + weight * h``. Among equal f, the default searches (a radix heap) take
    cells last in, first out, which mostly follows one optimal line towards the goal instead of
    flooding the plateau; weighted searches and user heuristics (a binary heap) take the larger
    ``g`` first. Neighbours are generated in the order (x+1, y), (x-1, y), (x, y+1), (x, y-1),
    (x+1, y-1), (x+1, y+1), (x-1, y-1), (x-1, y+1).

    Raises:
        InvalidInputError: unknown algorithm, bad weight, heuristic or workspace, wrong types.
        OutOfBoundsError: start or goal outside the grid.
        BlockedEndpointError: start blocked, or goal blocked without ``partial=True`` (with
            ``agent_radius``: too close to a blocked cell or the map edge).
        UnsupportedOptionError: JPS, HPA* or subgoal graphs with options they cannot honour;
            Dijkstra with a heuristic or weight.

    Example:
        >>> import gamenav
        >>> grid = gamenav.TileGrid.from_strings(["....", ".##.", "...."])
        >>> search = gamenav.GridSearch(grid, (0, 0), (3, 2))
        >>> while not search.step(2).done:
        ...     pass
        >>> search.result().cells.tolist()
        [[0, 0], [0, 1], [0, 2], [1, 2], [2, 2], [3, 2]]
    """

    # (copy and pickle refused: a copy would share or duplicate the workspace and JPS+ table lease)
    _why_not_copyable = "a copy would share the running search's workspace (start a new search instead, " \
                        "or copy its result())"

    def __init__(self, grid: TileGrid, start: Sequence[int], goal: Sequence[int], *,
                 algorithm: str = "astar",
                 diagonal: Diagonal | str | bool = Diagonal.NO_CORNER_CUTTING,
                 heuristic: HeuristicLike = None, weight: float = 1.0, partial: bool = False,
                 smooth: bool = False, workspace: SearchWorkspace | None = None,
                 agent_radius: float = 0.0, **unknown: Never) -> None:
        check_options(unknown, keyword_options(GridSearch), "GridSearch")
        self._launch(_check(grid, start, goal, algorithm, diagonal, heuristic, weight, partial,
                            smooth, workspace, agent_radius))

    @classmethod
    def _check(cls, grid: TileGrid, start: Sequence[int], goal: Sequence[int],
               **options: Any) -> _Request:
        """Validate the constructor's arguments without starting (for the runtime, which checks
        a request once and may start it later with :meth:`_from_checked`).

        Raises what the constructor raises, except the errors that depend on the grid's cells
        (a blocked start or goal, JPS on a weighted grid): those are checked when starting.
        """
        check_options(options, keyword_options(GridSearch), "GridSearch")
        return _check(grid, start, goal, **{**_defaults(), **options})

    @classmethod
    def _from_checked(cls, request: _Request, state: _GridState | None = None,
                      lease: Lease | None = None) -> GridSearch:
        """Start a search from :meth:`_check`'s result on snapshot ``state`` of its grid
        (default: the grid's current one), with ``lease``, the index data of that snapshot
        (needed when the grid may have moved on since ``state``).

        Raises:
            BlockedEndpointError, UnsupportedOptionError: an edit since the check blocked an
                endpoint or made the grid weighted for JPS.
        """
        search = cls.__new__(cls)
        search._launch(request, state, lease)
        return search

    def _launch(self, req: _Request, state: _GridState | None = None, lease: Lease | None = None) -> None:
        """Start the search on snapshot ``state`` of the grid (default: take the current one once)
        with ``lease``'s index data (default: the grid's for the current snapshot)."""
        self._ws: SearchWorkspace | None = None
        grid = req.grid
        state = radius_state(grid._snapshot() if state is None else state, req.mask)  # the radius mask's view, if any
        (sx, sy), (gx, gy) = req.start, req.goal
        if not state.passable[sy, sx]:
            raise BlockedEndpointError(f"start {(sx, sy)} is {_blocked(req)}; it must be passable")
        goal_open = bool(state.passable[gy, gx])
        if not goal_open and not req.partial:
            raise BlockedEndpointError(
                f"goal {(gx, gy)} is {_blocked(req)}; it must be passable (or pass partial=True)")
        if req.algorithm in ("jps", "hpa", "subgoal") and not padded(state).uniform:
            raise graph_options_error(req.algorithm, ["a grid with non-uniform cell costs (needs every cost == 1)"])

        self._grid = grid
        self._start = req.start
        self._goal = req.goal
        self._algorithm = req.algorithm
        self._diagonal = diag = req.diagonal
        self._smooth = req.smooth
        self._world_version = state.version
        self._expanded = 0
        self._hpa_start: tuple[_Request, _GridState, _GraphHeld | None] | None = None
        self._result: Path | None = None
        self._status = PathStatus.IN_PROGRESS
        self._borrowed = req.workspace is None
        self._token = object()  # owns the workspace; holds no reference back to the search

        if self._start == self._goal:
            self._finish_with(PathStatus.FOUND, np.array([self._start], dtype=np.int64), 0.0)
            return
        labels = state.components(diag)
        reachable = goal_open and labels[sy, sx] == labels[gy, gx]
        if not reachable and not req.partial:
            self._finish_with(PathStatus.NO_PATH)
            return

        pad = padded(state)
        self._pad: _Padded | None = pad
        stride = pad.stride
        self._stride = stride
        if req.algorithm in ("hpa", "subgoal") and reachable:
            # the hpa / subgoal query runs whole in the first step(), not here (queues start
            # searches in request()), on the graph of this snapshot, held from now on (an edit
            # meanwhile repairs a copy), as JPS+ holds its table; A* is set up only if the graph
            # cannot answer
            held = lease.graph() if lease is not None else \
                (_subgoal if req.algorithm == "subgoal" else _hpa).hold(grid, state)
            self._hpa_start = (req, state, held)
            return
        self._open(req, state, reachable, lease)

    def _open(self, req: _Request, state: _GridState, reachable: bool, lease: Lease | None = None) -> None:
        """Set up the A* / JPS / Dijkstra kernel state on ``state`` (with ``lease``'s JPS+ table,
        if given) and open the start node."""
        grid = req.grid
        (sx, sy), (gx, gy) = req.start, req.goal
        diag = req.diagonal
        pad = padded(state)
        stride = pad.stride
        self._goal_node = (gy + 1) * stride + gx + 1 if reachable else -1
        heur = req.heuristic
        self._htable: npt.NDArray[np.float64] | None
        if callable(heur):
            self._hcode = 5
            self._htable = _heuristic_table(heur, grid.shape, self._goal)
        else:
            self._hcode = heur.code if req.algorithm != "dijkstra" else default_heuristic(diag).code
            self._htable = _EMPTY_TABLE
        # Dijkstra runs the same kernel with weight 0 (the heuristic only ranks partial targets).
        self._weight = 0.0 if req.algorithm == "dijkstra" else req.weight
        # f never decreases along a search (radix-heap open list) for Dijkstra and for A* at
        # weight 1 with a consistent heuristic; user heuristics and weights use a binary heap.
        self._monotone = self._weight == 0.0 or (self._weight == 1.0 and not callable(heur) and (
            heur is not Heuristic.MANHATTAN or diag is Diagonal.NEVER))
        use_jps = req.algorithm == "jps" and reachable
        # JPS+ on this snapshot's table; online JPS if the grid moved on; A* on dense maps
        self._use_jps, self._plus = lease.jps(use_jps) if lease is not None else \
            _jump_plus.start(grid, state, use_jps)
        self._moves: npt.NDArray[np.uint8] | None = pad.moves(diag)
        self._track_best = not reachable

        ws = req.workspace if req.workspace is not None else _pool.borrow(grid)
        self._ws = ws
        start_node = np.array([(sy + 1) * stride + sx + 1], dtype=np.int64)
        with ws._using():
            self._istate = ws._begin(self._token, start_node, self._monotone)
            if self._plus is not None:
                self._plus.begin(int(self._istate[0]), int(start_node[0]), _octile(sx - gx, sy - gy), ws)
        self._fstate = np.array([np.inf, np.inf], dtype=np.float64)

    def __del__(self) -> None:
        """A search dropped unfinished gives its borrowed workspace back to the pool."""
        ws = getattr(self, "_ws", None)
        if ws is not None and self._borrowed and ws._release(self._token):
            _pool.give_back(ws)
        _jump_plus.release(getattr(self, "_plus", None))
        self._let_go_graph()

    # -- public state ---------------------------------------------------------------------
    @property
    def status(self) -> PathStatus:
        """The current :class:`~gamenav.PathStatus` (IN_PROGRESS until the search is done)."""
        return self._status

    @property
    def expanded(self) -> int:
        """Nodes expanded so far (JPS: jump points)."""
        return self._expanded

    @property
    def world_version(self) -> int:
        """The grid's ``version`` when this search captured its arrays (the Search protocol's
        name; :attr:`grid_version` is the same)."""
        return self._world_version

    @property
    def grid_version(self) -> int:
        """Alias of :attr:`world_version`."""
        return self._world_version

    @property
    def start(self) -> tuple[int, int]:
        """The start cell ``(x, y)``."""
        return self._start

    @property
    def goal(self) -> tuple[int, int]:
        """The goal cell ``(x, y)``."""
        return self._goal

    @property
    def algorithm(self) -> str:
        """``"astar"``, ``"jps"``, ``"dijkstra"``, ``"hpa"`` or ``"subgoal"``."""
        return self._algorithm

    # -- driving --------------------------------------------------------------------------
    def step(self, max_expansions: int | None = None) -> PathStatus:
        """Expand at most ``max_expansions`` nodes (``None``: run to the end); return the status.

        Raises:
            InvalidInputError: ``max_expansions`` not a positive int or None, or the workspace
                was taken over by a newer search.
        """
        budget = expansion_budget(max_expansions)  # (checked on a finished search too)
        if self._status.done:
            return self._status
        if self._hpa_start is not None:  # the whole hpa / subgoal query, whatever the budget
            req, state, held = self._hpa_start
            self._hpa_start = None
            found = answer_once(held, self._grid, state, self._start, self._goal)
            if found is not None:
                self._expanded = found.expanded
                self._finish_with(PathStatus.FOUND, found.cells, found.cost)
                return self._status
            self._open(req, state, True)  # the graph could not answer: A*
        ws = self._ws
        if ws is None:  # set whenever the search is running
            raise RuntimeError(f"{self!r} lost its workspace while running")
        announce_compile("grid search", *KERNELS)
        with ws._using(self._token):  # refused if taken over, or in use in another thread
            end = self._run(ws, budget)
        if end is not None:  # the workspace is let go (maybe to the pool) only after its use
            self._finish_with(*end)
        return self._status

    def _run(self, ws: SearchWorkspace, budget: int) -> tuple[PathStatus, npt.NDArray[np.int64] | None, float] | None:
        """Step the kernel on ``ws`` (held); the search's end (status, cells, cost), or None while
        it runs on."""
        pad, moves, htable = self._pad, self._moves, self._htable
        if pad is None or moves is None or htable is None:  # set whenever the search is running
            raise RuntimeError(f"{self!r} lost its kernel arrays while running")
        gx, gy = self._goal[0] + 1, self._goal[1] + 1
        hf, hg, hn, pos = _NO_HEAP if self._monotone else ws.heap
        plus = self._plus
        if plus is not None:  # JPS+ (gamenav.grid.jump_plus): same costs as online JPS
            code = plus.step(pad.passable, self._stride, self._goal_node, gx, gy, budget, ws)
            self._expanded = plus.expanded
        else:
            table = pad.jump_table() if self._use_jps else _NO_TABLE
            code = _k.best_first_step(
                moves, pad.passable, table, pad.cost, pad.uniform, self._use_jps, self._stride,
                self._goal_node, gx, gy, self._hcode, htable, self._weight, np.inf,
                self._track_best, self._monotone, budget, ws.g, ws.parent, ws.mark, ws.rkey,
                ws.rnext, ws.rprev, ws.rhead, ws.rmin, hf, hg, hn, pos, self._istate,
                self._fstate)
            self._expanded = int(self._istate[2])
        if code == _k.FOUND:
            return self._traced(ws, self._goal_node, PathStatus.FOUND)
        if code == _k.EXHAUSTED:
            if self._track_best:
                return self._traced(ws, int(self._istate[3]), PathStatus.PARTIAL)
            return PathStatus.NO_PATH, None, math.inf  # cannot happen: reachability was checked (islands)
        return None

    def cancel(self) -> None:
        """Stop the search: status CANCELLED and an empty result (no effect once done)."""
        if not self._status.done:
            self._finish_with(PathStatus.CANCELLED)

    def result(self) -> Path:
        """The :class:`~gamenav.Path` found (FOUND / PARTIAL) or an empty one (other statuses).

        Before the search is done this is ``Path.none(IN_PROGRESS)`` (no exception). ``cells``
        is the full cell-by-cell path (also for JPS). With ``smooth=True``, ``cells`` keeps only
        the line-of-sight waypoints (start, turning cells, end; consecutive waypoints see each
        other through passable cells without cutting a blocked corner) and ``cost`` stays the grid
        cost of the unsmoothed cell path (on uniform-cost grids the smoothed polyline, measured in
        cells, is never longer than that cost). Smoothing looks at passability only: on grids
        with costs a shortcut may cross dearer cells than the cell path did.
        """
        if self._result is None:
            return Path.none(self._status, expanded=self._expanded)
        return self._result

    def partial_result(self) -> Path:
        """The best path so far (Detour's ``finalizeSlicedFindPathPartial``).

        While IN_PROGRESS: the path to the expanded cell closest to the goal by the movement's
        distance (manhattan or octile; ties: smaller cost), status PARTIAL, not smoothed, so an
        agent can start moving before the search ends. Scans the workspace (``O(cells)``).
        Once done (or if the workspace was taken over): :meth:`result`.
        """
        ws = self._ws
        if self._status.done or (ws is not None and ws._owner is not self._token):
            return self.result()
        best = None
        if ws is not None:
            with ws._using(self._token):
                best = self._best_so_far(ws)
        # (None: an hpa search before its step)
        cells, cost = (np.array([self._start], dtype=np.int64), 0.0) if best is None else best
        cells.flags.writeable = False  # (fresh and read-only, as make_path takes arrays)
        return make_path(PathStatus.PARTIAL, cost, cells, _centres(self._grid, cells), self._expanded)

    def _best_so_far(self, ws: SearchWorkspace) -> tuple[npt.NDArray[np.int64], float] | None:
        """The cells and cost of :meth:`partial_result`'s path, read from ``ws`` (held); None
        before the first expansion."""
        closed = np.flatnonzero(ws.mark == self._istate[0] + 1)
        if len(closed) == 0:
            return None
        ys, xs = np.divmod(closed, self._stride)
        dx = np.abs(xs - (self._goal[0] + 1))
        dy = np.abs(ys - (self._goal[1] + 1))
        h = dx + dy if self._diagonal is Diagonal.NEVER else \
            np.maximum(dx, dy) + (math.sqrt(2.0) - 1.0) * np.minimum(dx, dy)
        node = int(closed[np.lexsort((ws.g[closed], h))[0]])
        if self._plus is not None:  # JPS+ keeps its chains in its node pool
            self._plus.chain(node, ws.rkey, ws.parent)
        cells = _k.trace_path(ws.parent, node, self._stride)
        # a binary-heap search may since have reopened a cell on the way to ``node`` (a cheaper
        # parent chain, g[node] not yet lowered): the cost is that of the cells traced
        cost = float(ws.g[node]) if self._monotone or self._pad is None else _cells_cost(cells, self._pad)
        return cells, cost

    # -- internals ------------------------------------------------------------------------
    def _traced(self, ws: SearchWorkspace, node: int,
                status: PathStatus) -> tuple[PathStatus, npt.NDArray[np.int64], float]:
        """The end of a search at ``node``: ``status``, its cells and cost, read from ``ws``."""
        return status, _k.trace_path(ws.parent, node, self._stride), float(ws.g[node])

    def _finish_with(self, status: PathStatus, cells: npt.NDArray[np.int64] | None = None,
                     cost: float = math.inf) -> None:
        self._status = status
        if cells is not None:
            if self._smooth and len(cells) > 2:
                pad = self._pad  # set whenever there are more than 2 cells (start != goal)
                if pad is not None:
                    cells = cells[_k.smooth_path(cells, pad.passable, self._stride)]
            cells.flags.writeable = False  # (fresh and read-only, as make_path takes arrays)
            self._result = make_path(status, cost, cells, _centres(self._grid, cells), self._expanded)
        else:
            self._result = Path.none(status, expanded=self._expanded)
        ws = self._ws
        if ws is not None and ws._release(self._token) and self._borrowed:
            _pool.give_back(ws)
        _jump_plus.release(getattr(self, "_plus", None))
        self._plus = None
        self._let_go_graph()
        # a finished search keeps only its result, not the grid snapshot or the workspace
        self._ws = self._pad = self._moves = self._htable = None

    def _let_go_graph(self) -> None:
        """Give back the hpa / subgoal graph held for the first step, if any (idempotent)."""
        start = getattr(self, "_hpa_start", None)
        self._hpa_start = None
        if start is not None:
            let_go(start[2])

    def __repr__(self) -> str:
        return (f"GridSearch({self._algorithm}, start={self._start}, goal={self._goal}, "
                f"status={self._status.name}, expanded={self._expanded})")
