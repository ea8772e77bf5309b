"""Which grid paths an edit can invalidate: exact, vectorised, never optimistic.

A path of cost ``c`` from ``s`` to ``g``, optimal before a :class:`GridChange`, stays valid and
optimal after it when

1. no cell it enters got more expensive (the start's own cost is never paid), and no cell of its
   *footprint* was blocked as its rule forbids. The footprint is its cells plus, for each
   diagonal step under a rule that reads corners (``no_corner_cutting``, ``at_most_one_blocked``),
   the two orthogonal corner cells: a blocked corner forbids the step under
   ``no_corner_cutting``, and under ``at_most_one_blocked`` once the other one is blocked too
   (their costs are never paid);
2. no *improved cell* ``p`` could shorten it: ``h(s, p) + h(p, g) >= c`` for every such ``p``,
   with ``h`` admissible for the movement (manhattan when 4-connected, octile otherwise; cell
   costs are >= 1), with a relative tolerance of 1e-9 on the side of dropping.

Proof of 2 (which cells must count as improved). A step ``u -> v`` costs ``len(u, v) * cost(v)``
and is allowed when ``u`` and ``v`` are passable and, for a diagonal step, its corners
``(u.x, v.y)`` and ``(v.x, u.y)`` satisfy the rule: ``no_corner_cutting`` needs both passable,
``at_most_one_blocked`` one of them, ``always`` and ``never`` look at no corner (``never`` has
no diagonal steps). Take any path ``P'`` that the edit made cheaper than ``c``. If every step
of ``P'`` was allowed before and no cell it enters got cheaper, ``P'`` cost no more before the
edit than now, so less than ``c``: impossible, ``c`` was optimal. So ``P'`` has a step
``u -> v`` that

* enters a cell ``v`` whose cost was lowered (``p = v`` lies on ``P'``), or
* was forbidden before: ``u`` or ``v`` was opened (``p`` on ``P'``), or the step is diagonal and
  one of its corners was opened, which changes what is allowed only under
  ``no_corner_cutting`` and ``at_most_one_blocked``. That corner ``p`` is a 4-neighbour of both
  ``u`` and ``v``, which lie on ``P'``. (A lowered cost never changes what is allowed:
  the cell was passable before and after.)

Any path through a cell ``q`` costs at least ``h(s, q) + h(q, g)``, so ``P'`` is cheaper than
``c`` only if that bound is below ``c`` for ``q = p`` or, for a corner opened under those two
rules, for some 4-neighbour ``q`` of an opened cell. The improved cells are therefore the
opened and lowered cells, plus the 4-neighbours of opened cells for paths whose rule reads
corners; of those, only the ones that can end such a step count (passable, with a passable
perpendicular 4-neighbour of the opened cell: :func:`corner_cells`). Cells merely blocked or
raised off the footprint cannot make any path cheaper, so the kept path is still as short as
a fresh search.

A "no path" result is dropped when any cell opens (or its start/goal cell changes); a partial
path, and a smoothed one (its waypoints depend on line of sight, its cost on cells it no longer
lists), is dropped by any edit. For weighted A* results the same rule keeps the cost within
``weight`` times the (new) optimum, the guarantee weighted A* gives. The queue checks a search
that spanned edits with the same rule, one change record at a time.

Agent sizes: a search with ``agent_radius`` runs on the radius mask (the cells far enough from
every blocked cell, :mod:`gamenav.grid.clearance`) with the same movement rule, so the rule above
holds word for word on that mask. Entries are grouped by mask, and each group sees the edit as
the mask's change (:func:`gamenav.grid.clearance.mask_change`): the cells that entered or left
the mask (an edited cell moves the mask up to the radius away) and the cost changes inside it.

Cells are ``(x, y)``; flat indices are ``y * width + x`` (row-major on the ``[y, x]`` arrays).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, TypeVar
from collections.abc import Hashable, Sequence

import numpy as np
import numpy.typing as npt

from gamenav.grid.clearance import mask_change, threshold
from gamenav.grid.movement import Diagonal
from gamenav.grid.tilegrid import GridChange
from gamenav.types import Path, PathStatus

__all__ = ["MANHATTAN", "OCTILE", "EntryTable", "corner_cells", "crossed", "footprint", "reads_corners"]

if TYPE_CHECKING:
    from gamenav.runtime._search import Query

_SQRT2_M1 = math.sqrt(2.0) - 1.0
_NORMAL, _NO_PATH, _FRAGILE = 0, 1, 2
MANHATTAN, OCTILE = 0, 1
"""Metric codes of the admissible bound (see :meth:`EntryTable.add`)."""
_BLOCK = 1 << 20  # max elements of one (entries x cells) block in the bound check
_EXACT_LIMIT = 1 << 25  # beyond this many (entry, cell) pairs, the rectangle bound decides alone


def reads_corners(diagonal: Diagonal) -> bool:
    """Whether movement rule ``diagonal`` allows a diagonal step depending on its two corner cells
    (``no_corner_cutting``, ``at_most_one_blocked``; ``always`` and ``never`` read none)."""
    return diagonal in (Diagonal.NO_CORNER_CUTTING, Diagonal.AT_MOST_ONE_BLOCKED)


def footprint(cells: npt.NDArray[np.int64], width: int, corners: bool = True) -> npt.NDArray[np.int64]:
    """Flat indices of the cells a grid path depends on (see the module docstring).

    Args:
        cells: ``(n, 2)`` int ``(x, y)`` path cells, start first, consecutive cells adjacent.
        width: grid width (for the flat index ``y * width + x``).
        corners: add the two corner cells of each diagonal step (rules that read them).

    Returns:
        ``(k,)`` int64 flat indices: the ``n`` path cells in order, then the corner cells (a
        corner cell may appear twice).
    """
    cells = np.asarray(cells, dtype=np.int64).reshape(-1, 2)
    x, y = cells[:, 0], cells[:, 1]
    flat = y * width + x
    if len(cells) < 2 or not corners:
        return flat
    diag = (x[1:] != x[:-1]) & (y[1:] != y[:-1])
    ax, ay, bx, by = x[:-1][diag], y[:-1][diag], x[1:][diag], y[1:][diag]
    return np.concatenate([flat, ay * width + bx, by * width + ax])


def crossed(fps: Sequence[npt.NDArray[np.int64]], counts: npt.ArrayLike, either: npt.ArrayLike,
            change: GridChange) -> npt.NDArray[np.bool_]:
    """Bool per path: ``change`` makes it unwalkable or dearer (rule 1 of the module docstring).

    Args:
        fps: each path's :func:`footprint` (flat indices: its cells, start first, then the
            corners of its diagonal steps, if its rule reads them).
        counts: ``(k,)`` each path's number of cells (the first entries of its footprint).
        either: ``(k,)`` bool, per path: its rule is ``at_most_one_blocked`` (a step needs one
            corner open: a corner blocked counts once the other one is not passable after the edit).
        change: the edit (its ``passable`` after it; False where unknown counts as blocked).
    """
    out = np.zeros(len(fps), dtype=bool)
    width = change.passable.shape[1]
    marks = []
    for cells in (change.blocked, change.cost_raised):
        mark = np.zeros(change.passable.size, dtype=bool)
        mark[cells[:, 1] * width + cells[:, 0]] = True
        marks.append(mark)
    flat = np.concatenate(fps) if len(fps) else np.zeros(0, dtype=np.int64)
    at = np.flatnonzero(marks[0][flat] | marks[1][flat])  # the footprint entries an edited cell holds
    if not len(at):
        return out
    lens = np.fromiter(map(len, fps), dtype=np.int64, count=len(fps))
    starts = np.cumsum(lens) - lens
    owner = np.searchsorted(starts, at, side="right") - 1
    pos = at - starts[owner]  # within its footprint
    n = np.asarray(counts, dtype=np.int64)[owner]
    cell = flat[at]
    hit = marks[1][cell] & (pos >= 1) & (pos < n)  # a cell it enters got dearer
    # a blocked corner of a step whose other corner is passable (at_most_one_blocked): still allowed
    half = (lens[owner] - n) // 2
    partner = np.clip(np.where(pos < n + half, at + half, at - half), 0, len(flat) - 1)
    kept = (pos >= n) & np.asarray(either, dtype=bool)[owner] & change.passable.ravel()[flat[partner]]
    hit |= marks[0][cell] & ~kept
    out[owner[hit]] = True
    return out


def corner_cells(opened: npt.NDArray[np.int64], passable: npt.NDArray[np.bool_]
                 ) -> npt.NDArray[np.int64]:
    """The cells a diagonal step cornering on an opened cell can touch.

    Args:
        opened: ``(m, 2)`` ``(x, y)`` opened cells.
        passable: ``(h, w)`` bool ``[y, x]``, the grid after the edit.

    Returns:
        ``(k, 2)`` ``(x, y)`` cells (maybe repeated): each passable horizontal 4-neighbour of an
        opened cell that has a passable vertical 4-neighbour, and vice versa (the two ends of a
        diagonal step with that corner).
    """
    h, w = passable.shape
    x, y = opened[:, 0], opened[:, 1]

    def open_at(nx: npt.NDArray[np.int64], ny: npt.NDArray[np.int64]) -> npt.NDArray[np.bool_]:
        inside = (nx >= 0) & (nx < w) & (ny >= 0) & (ny < h)
        found: npt.NDArray[np.bool_] = inside & passable[np.clip(ny, 0, h - 1), np.clip(nx, 0, w - 1)]
        return found

    east, west = open_at(x + 1, y), open_at(x - 1, y)
    south, north = open_at(x, y + 1), open_at(x, y - 1)
    vertical, horizontal = south | north, east | west
    parts = [opened[east & vertical] + (1, 0), opened[west & vertical] - (1, 0),
             opened[south & horizontal] + (0, 1), opened[north & horizontal] - (0, 1)]
    cells: npt.NDArray[np.int64] = np.concatenate(parts).astype(np.int64)
    return cells


_F = npt.NDArray[np.float64]
_M = npt.NDArray[np.int8]
_T = TypeVar("_T", bound=np.generic)


def _bound(sx: _F, sy: _F, gx: _F, gy: _F, metric: _M, px: _F, py: _F) -> _F:
    """``h(s, p) + h(p, g)`` (broadcasting float64): a lower bound on any path s -> p -> g."""
    return _pair(sx, sy, px, py, metric) + _pair(px, py, gx, gy, metric)


class EntryTable:
    """Grid paths of one grid, each under a hashable key, with vectorised invalidation.

    Per entry: start, goal, the drop threshold (its cost), the movement heuristic kind, whether
    its movement rule reads diagonal corners and whether one open corner will do, the
    footprint's bounding box and its number of path cells (in arrays, for vectorised tests), and
    the footprint itself (one array per entry, gathered only for entries whose box meets an
    edit). :meth:`invalidate` returns the keys an edit invalidates and removes them.

    Args:
        shape: the grid's ``(height, width)``.
    """

    def __init__(self, shape: tuple[int, int]) -> None:
        self._height, self._width = shape
        self._keys: list[Hashable | None] = []
        self._slot: dict[Hashable, int] = {}
        cap = 64
        self._ends = np.zeros((cap, 4), dtype=np.int64)      # sx, sy, gx, gy
        self._box = np.zeros((cap, 4), dtype=np.int64)       # footprint x0, y0, x1, y1 (inclusive)
        self._thr = np.zeros(cap, dtype=np.float64)
        self._kind = np.zeros(cap, dtype=np.int8)
        self._metric = np.zeros(cap, dtype=np.int8)
        self._corners = np.zeros(cap, dtype=bool)
        self._either = np.zeros(cap, dtype=bool)             # at_most_one_blocked (see crossed)
        self._count = np.zeros(cap, dtype=np.int64)          # its path cells (its footprint's first)
        self._mask = np.zeros(cap, dtype=np.int16)           # clearance threshold (radius)
        self._alive = np.zeros(cap, dtype=bool)
        self._fps: list[npt.NDArray[np.int64] | None] = []  # footprint (flat indices) per slot
        self._n = 0

    def __len__(self) -> int:
        return len(self._slot)

    def add(self, key: Hashable, start: tuple[int, int], goal: tuple[int, int], cost: float,
            cells: npt.NDArray[np.int64], *, found: bool, fragile: bool, metric: int,
            diagonal: Diagonal, mask: int = 0) -> int:
        """Store a path result under ``key`` (replacing any entry with that key); returns the
        bytes of the arrays it keeps for it (the footprint).

        Args:
            start, goal: the query's ``(x, y)`` cells.
            cost: the path cost (ignored unless ``found``).
            cells: ``(n, 2)`` ``(x, y)`` path cells; ignored without a path.
            found: the path reaches the goal (else: no path, or partial with ``fragile``).
            fragile: dropped by any edit (partial and smoothed paths).
            metric: the admissible distance for the bound: MANHATTAN or OCTILE.
            diagonal: the movement rule. Under those that read a diagonal step's corner cells
                (:func:`reads_corners`) a blocked corner may forbid a step, and an opened cell
                also improves its 4-neighbours (see the module docstring).
            mask: the clearance threshold of the search's ``agent_radius``
                (``gamenav.grid.clearance.threshold``; <= 1: the plain passable cells).
        """
        self.remove(key)
        if self._n == len(self._alive):
            self._make_room()
        ends = np.array([start, goal], dtype=np.int64)
        cells = np.asarray(cells, dtype=np.int64) if found else ends
        i = self._n
        corners = reads_corners(diagonal)
        fp = footprint(cells, self._width, corners and found)
        self._fps.append(fp)
        lo, hi = cells.min(axis=0), cells.max(axis=0)  # diagonal corners lie inside this box
        self._box[i] = (lo[0], lo[1], hi[0], hi[1])
        self._ends[i] = (*start, *goal)
        self._thr[i] = cost if found else math.inf
        self._kind[i] = _FRAGILE if fragile else (_NORMAL if found else _NO_PATH)
        self._metric[i] = metric
        self._corners[i] = corners
        self._either[i] = diagonal is Diagonal.AT_MOST_ONE_BLOCKED
        self._count[i] = len(cells)
        self._mask[i] = mask
        self._alive[i] = True
        self._keys.append(key)
        self._slot[key] = i
        self._n += 1
        return int(fp.nbytes)

    def add_result(self, key: Hashable, query: Query, path: Path) -> int:
        """Store a finished grid search result (FOUND, PARTIAL or NO_PATH) of ``query``; returns
        the bytes kept for it besides the path's own arrays."""
        from gamenav.grid.search import _defaults

        diagonal = Diagonal.parse(query.options.get("diagonal", _defaults()["diagonal"]))
        (sx, sy), (gx, gy) = query.start, query.goal  # grid queries: int cells
        return self.add(key, (int(sx), int(sy)), (int(gx), int(gy)), path.cost, path.cells,
                 found=path.status is PathStatus.FOUND,
                 fragile=query.fragile or path.status is PathStatus.PARTIAL,
                 metric=int(query.metric or 0),
                 diagonal=diagonal,
                 mask=threshold(query.world, query.options.get("agent_radius", 0.0)))

    def remove(self, key: Hashable) -> None:
        """Forget ``key`` (no-op when absent)."""
        i = self._slot.pop(key, None)
        if i is not None:
            self._alive[i] = False
            self._keys[i] = None
            self._fps[i] = None

    def _make_room(self) -> None:
        live = np.flatnonzero(self._alive[:self._n])
        if len(live) <= len(self._alive) // 2:  # compact in place
            for name in ("_ends", "_box", "_thr", "_kind", "_metric", "_corners", "_either", "_count", "_mask"):
                arr = getattr(self, name)
                arr[:len(live)] = arr[live]
            self._alive[:] = False
            self._alive[:len(live)] = True
            self._keys = [self._keys[i] for i in live]
            self._fps = [self._fps[i] for i in live]
            self._slot = {k: j for j, k in enumerate(self._keys)}
            self._n = len(live)
        else:
            cap = 2 * len(self._alive)
            for name in ("_ends", "_box", "_thr", "_kind", "_metric", "_corners", "_either", "_count", "_mask",
                         "_alive"):
                arr = getattr(self, name)
                grown = np.zeros((cap,) + arr.shape[1:], dtype=arr.dtype)
                grown[:len(arr)] = arr
                setattr(self, name, grown)

    def invalidate(self, change: GridChange) -> list[Hashable]:
        """Remove and return the keys whose paths ``change`` may invalidate or shorten."""
        live = np.flatnonzero(self._alive[:self._n])
        if len(live) == 0:
            return []
        masks = self._mask[live]
        drop = np.zeros(len(live), dtype=bool)
        for thr in np.unique(masks):  # agents of one size see the edit through their radius mask
            group = masks == thr
            seen = change if thr <= 1 else mask_change(change, int(thr))
            drop[group] = self._dropped(live[group], seen)
        gone = live[drop]
        keys = [self._keys[i] for i in gone]
        for k in keys:
            self.remove(k)
        return keys

    def _dropped(self, live: npt.NDArray[np.int64], change: GridChange) -> npt.NDArray[np.bool_]:
        """Bool per ``live`` entry: ``change`` may invalidate or shorten its path."""
        drop: npt.NDArray[np.bool_] = self._kind[live] == _FRAGILE
        worse = change.worsened
        if len(worse):
            drop |= self._crossed(live, worse, change)
        opened, lowered = change.opened, change.cost_lowered
        if len(opened):
            drop |= self._kind[live] == _NO_PATH
        better = np.concatenate([opened, lowered])
        if len(better):
            normal = ~drop & (self._kind[live] == _NORMAL)
            corners = self._corners[live]
            wider = np.concatenate([better, corner_cells(opened, change.passable)])
            for group, cells in ((normal & ~corners, better), (normal & corners, wider)):
                if group.any():
                    drop[group] |= self._shortened(live[group], cells)
        return drop

    def _crossed(self, live: npt.NDArray[np.int64], worse: npt.NDArray[np.int64],
                 change: GridChange) -> npt.NDArray[np.bool_]:
        """Bool per ``live`` entry: :func:`crossed` (checked for the entries whose footprint's box
        meets that of ``worse``, ``change``'s blocked and dearer cells ``(k, 2)``)."""
        x0, y0 = worse.min(axis=0)
        x1, y1 = worse.max(axis=0)
        box = self._box[live]
        near = (box[:, 0] <= x1) & (box[:, 2] >= x0) & (box[:, 1] <= y1) & (box[:, 3] >= y0)
        out = np.zeros(len(live), dtype=bool)
        cand = live[near]
        if len(cand):
            fps: list[npt.NDArray[np.int64]] = [self._fps[i] for i in cand]
            out[near] = crossed(fps, self._count[cand], self._either[cand], change)
        return out

    def _shortened(self, idx: npt.NDArray[np.int64], cells: npt.NDArray[np.int64]) -> npt.NDArray[np.bool_]:
        """Bool per entry ``idx``: some cell of ``cells`` ``(m, 2)`` could beat its cost."""
        if len(idx) == 0:
            return np.zeros(0, dtype=bool)
        ends = self._ends[idx].astype(np.float64)
        sx, sy, gx, gy = ends.T
        metric = self._metric[idx]
        limit = self._thr[idx] + 1e-9 * np.maximum(1.0, self._thr[idx])
        # rectangle bound: any p in the cells' box is at least as far as the box point nearest
        # to s (and to g) in each axis, and both heuristics grow with |dx| and |dy|
        (x0, y0), (x1, y1) = cells.min(axis=0), cells.max(axis=0)
        lb = (_pair(sx, sy, np.clip(sx, x0, x1), np.clip(sy, y0, y1), metric)
              + _pair(np.clip(gx, x0, x1), np.clip(gy, y0, y1), gx, gy, metric))
        maybe = np.flatnonzero(lb < limit)
        out = np.zeros(len(idx), dtype=bool)
        if len(maybe) == 0 or len(maybe) * len(cells) > _EXACT_LIMIT:
            out[maybe] = True
            return out
        px = cells[:, 0].astype(np.float64)[None, :]
        py = cells[:, 1].astype(np.float64)[None, :]
        best = np.full(len(maybe), np.inf)
        step = max(1, _BLOCK // len(maybe))

        def col(a: npt.NDArray[_T]) -> npt.NDArray[_T]:
            return a[maybe][:, None]

        for j in range(0, len(cells), step):
            b = _bound(col(sx), col(sy), col(gx), col(gy), col(metric), px[:, j:j + step],
                       py[:, j:j + step])
            best = np.minimum(best, b.min(axis=1))
        out[maybe] = best < limit[maybe]
        return out


def _pair(ax: _F, ay: _F, bx: _F, by: _F, metric: _M) -> _F:
    """Admissible distance between points ``a`` and ``b`` (element-wise) under ``metric``."""
    dx, dy = np.abs(ax - bx), np.abs(ay - by)
    hi, lo = np.maximum(dx, dy), np.minimum(dx, dy)
    return np.where(metric == MANHATTAN, hi + lo, hi + _SQRT2_M1 * lo)
