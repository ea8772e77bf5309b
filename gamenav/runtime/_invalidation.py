"""Which grid paths an edit can invalidate: exact, vectorised, never optimistic.

A path of cost ``c`` from ``s`` to ``g`` stays valid and optimal after a :class:`GridChange` when

* no cell of its *footprint* was blocked or got more expensive. The footprint is every cell the
  path enters plus, for each diagonal step, the two orthogonal corner cells (a blocked corner
  forbids the step without corner cutting);
* no cell ``p`` that was opened or got cheaper could shorten it: any path through ``p`` costs at
  least ``h(s, p) + h(p, g)`` with ``h`` admissible for the movement (manhattan when 4-connected,
  octile otherwise; cell costs are >= 1), so the path is kept only when that bound is >= ``c``
  for every such ``p`` (with a relative tolerance of 1e-9 on the side of dropping).

Worsened cells off the footprint cannot make the optimum cheaper, and improved cells that fail
the bound cannot beat ``c``: so the kept path is still as short as a fresh search. A "no path"
result is dropped when any cell opens (or its start/goal cell changes); a partial path, and a
smoothed one (its waypoints depend on line of sight, its cost on cells it no longer lists), is
dropped by any edit. For weighted A* results the same rule keeps the cost within ``weight``
times the (new) optimum, the guarantee weighted A* gives.

Cells are ``(x, y)``; flat indices are ``y * width + x`` (row-major on the ``[y, x]`` arrays).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Hashable

import numpy as np
import numpy.typing as npt

from gamenav.grid.tilegrid import GridChange
from gamenav.types import Path, PathStatus

__all__ = ["MANHATTAN", "OCTILE", "EntryTable", "footprint"]

if TYPE_CHECKING:
    from gamenav.runtime._search import Query

_SQRT2_M1 = math.sqrt(2.0) - 1.0
_NORMAL, _NO_PATH, _FRAGILE = 0, 1, 2
MANHATTAN, OCTILE = 0, 1
"""Metric codes of the admissible bound (see :meth:`EntryTable.add`)."""
_BLOCK = 1 << 20  # max elements of one (entries x cells) block in the bound check
_EXACT_LIMIT = 1 << 25  # beyond this many (entry, cell) pairs, the rectangle bound decides alone


def footprint(cells: npt.NDArray[np.int64], width: int) -> npt.NDArray[np.int64]:
    """Flat indices of the cells a grid path depends on (see the module docstring).

    Args:
        cells: ``(n, 2)`` int ``(x, y)`` path cells, start first, consecutive cells adjacent.
        width: grid width (for the flat index ``y * width + x``).

    Returns:
        ``(k,)`` int64 flat indices (a corner cell may appear twice).
    """
    cells = np.asarray(cells, dtype=np.int64).reshape(-1, 2)
    x, y = cells[:, 0], cells[:, 1]
    flat = y * width + x
    if len(cells) < 2:
        return flat
    diag = (x[1:] != x[:-1]) & (y[1:] != y[:-1])
    ax, ay, bx, by = x[:-1][diag], y[:-1][diag], x[1:][diag], y[1:][diag]
    return np.concatenate([flat, ay * width + bx, by * width + ax])


def _bound(sx: np.ndarray, sy: np.ndarray, gx: np.ndarray, gy: np.ndarray, metric: np.ndarray,
           px: np.ndarray, py: np.ndarray) -> np.ndarray:
    """``h(s, p) + h(p, g)`` (broadcasting float64): a lower bound on any path s -> p -> g."""
    return _pair(sx, sy, px, py, metric) + _pair(px, py, gx, gy, metric)


class EntryTable:
    """Grid paths of one grid, each under a hashable key, with vectorised invalidation.

    Per entry: start, goal, the drop threshold (its cost), the movement heuristic kind, the
    footprint's bounding box (in arrays, for vectorised tests) and the footprint itself (one
    array per entry, gathered only for entries whose box meets an edit). :meth:`invalidate`
    returns the keys an edit invalidates and removes them.

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
        self._alive = np.zeros(cap, dtype=bool)
        self._fps: list[npt.NDArray[np.int64] | None] = []  # footprint (flat indices) per slot
        self._n = 0

    def __len__(self) -> int:
        return len(self._slot)

    def add(self, key: Hashable, start: tuple[int, int], goal: tuple[int, int], cost: float,
            cells: npt.NDArray[np.int64], *, found: bool, fragile: bool, metric: int) -> None:
        """Store a path result under ``key`` (replacing any entry with that key).

        Args:
            start, goal: the query's ``(x, y)`` cells.
            cost: the path cost (ignored unless ``found``).
            cells: ``(n, 2)`` ``(x, y)`` path cells; ignored without a path.
            found: the path reaches the goal (else: no path, or partial with ``fragile``).
            fragile: dropped by any edit (partial and smoothed paths).
            metric: the admissible distance for the bound: MANHATTAN or OCTILE.
        """
        self.remove(key)
        if self._n == len(self._alive):
            self._make_room()
        ends = np.array([start, goal], dtype=np.int64)
        cells = np.asarray(cells, dtype=np.int64) if found else ends
        i = self._n
        self._fps.append(footprint(cells, self._width))
        lo, hi = cells.min(axis=0), cells.max(axis=0)  # diagonal corners lie inside this box
        self._box[i] = (lo[0], lo[1], hi[0], hi[1])
        self._ends[i] = (*start, *goal)
        self._thr[i] = cost if found else math.inf
        self._kind[i] = _FRAGILE if fragile else (_NORMAL if found else _NO_PATH)
        self._metric[i] = metric
        self._alive[i] = True
        self._keys.append(key)
        self._slot[key] = i
        self._n += 1

    def add_result(self, key: Hashable, query: Query, path: Path) -> None:
        """Store a finished grid search result (FOUND, PARTIAL or NO_PATH) of ``query``."""
        self.add(key, query.start, query.goal, path.cost, path.cells,
                 found=path.status is PathStatus.FOUND,
                 fragile=query.fragile or path.status is PathStatus.PARTIAL,
                 metric=int(query.metric or 0))

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
            for name in ("_ends", "_box", "_thr", "_kind", "_metric"):
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
            for name in ("_ends", "_box", "_thr", "_kind", "_metric", "_alive"):
                arr = getattr(self, name)
                grown = np.zeros((cap,) + arr.shape[1:], dtype=arr.dtype)
                grown[:len(arr)] = arr
                setattr(self, name, grown)

    def invalidate(self, change: GridChange) -> list[Hashable]:
        """Remove and return the keys whose paths ``change`` may invalidate or shorten."""
        live = np.flatnonzero(self._alive[:self._n])
        if len(live) == 0:
            return []
        drop = self._kind[live] == _FRAGILE
        worse = change.worsened
        if len(worse):
            drop |= self._crossing(live, worse)
        opened, lowered = change.opened, change.cost_lowered
        if len(opened):
            drop |= self._kind[live] == _NO_PATH
        better = np.concatenate([opened, lowered])
        if len(better):
            normal = ~drop & (self._kind[live] == _NORMAL)
            drop[normal] |= self._shortened(live[normal], better)
        gone = live[drop]
        keys = [self._keys[i] for i in gone]
        for k in keys:
            self.remove(k)
        return keys

    def _crossing(self, live: np.ndarray, cells: np.ndarray) -> np.ndarray:
        """Bool per ``live`` entry: its footprint holds one of ``cells`` ``(k, 2)``."""
        x0, y0 = cells.min(axis=0)
        x1, y1 = cells.max(axis=0)
        box = self._box[live]
        near = (box[:, 0] <= x1) & (box[:, 2] >= x0) & (box[:, 1] <= y1) & (box[:, 3] >= y0)
        out = np.zeros(len(live), dtype=bool)
        cand = np.flatnonzero(near)
        if len(cand) == 0:
            return out
        fps = [self._fps[i] for i in live[cand]]
        owner = np.repeat(np.arange(len(cand)), [len(f) for f in fps])
        flat = np.concatenate(fps)
        mark = np.zeros(self._height * self._width, dtype=bool)
        mark[cells[:, 1] * self._width + cells[:, 0]] = True
        hit = np.zeros(len(cand), dtype=bool)
        hit[owner[mark[flat]]] = True
        out[cand] = hit
        return out

    def _shortened(self, idx: np.ndarray, cells: np.ndarray) -> np.ndarray:
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
        col = lambda a: a[maybe][:, None]  # noqa: E731
        for j in range(0, len(cells), step):
            b = _bound(col(sx), col(sy), col(gx), col(gy), col(metric), px[:, j:j + step],
                       py[:, j:j + step])
            best = np.minimum(best, b.min(axis=1))
        out[maybe] = best < limit[maybe]
        return out


def _pair(ax: np.ndarray, ay: np.ndarray, bx: np.ndarray, by: np.ndarray,
          metric: np.ndarray) -> np.ndarray:
    """Admissible distance between points ``a`` and ``b`` (element-wise) under ``metric``."""
    dx, dy = np.abs(ax - bx), np.abs(ay - by)
    hi, lo = np.maximum(dx, dy), np.minimum(dx, dy)
    return np.where(metric == MANHATTAN, hi + lo, hi + _SQRT2_M1 * lo)
