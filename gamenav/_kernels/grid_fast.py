"""One-call grid query: seed, search, trace the path and convert it to world points in a single
kernel call (the fast path of ``gamenav.find_path``; see :mod:`gamenav.grid._fast`).

It runs :func:`gamenav._kernels.grid_search.best_first_step` exactly as ``GridSearch`` does for
A* at weight 1 with a heuristic that keeps the search monotone (radix heap), so the answer is
the same bit for bit. Layout as in :mod:`gamenav._kernels.grid_search` (padded flat
arrays, node ``n = (y + 1) * stride + x + 1``). The workspace is packed to keep the call cheap:

* ``ints``: ``(5, M)`` int32 rows ``parent, mark, rnext, rprev, rhead`` (``rhead`` uses the first
  64 entries), ``M >= max(N, 128) + 8`` (the last 8 columns: scratch).
* ``longs``: ``(3, M)`` int64 rows ``rkey``, ``rmin`` (first 64 entries; ``longs[1, 127]`` holds
  the workspace's generation stamp) and ``g`` (float64 bits).

The grid: ``bits`` ``(2, N)`` uint8 rows ``moves`` (of the movement rule) and ``passable``;
``cost`` ``(N,)`` float64; ``geo`` float64 ``[origin_x, origin_y, cell_size, y_up, height,
uniform]``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit
from numba.extending import intrinsic

from gamenav._kernels.grid_search import EXHAUSTED, FOUND, best_first_step, smooth_path, trace_path

BLOCKED = 3
"""Status: the start or the goal is blocked (the caller raises through the general path)."""
NO_PATH = 4
"""Status: start and goal lie on different islands (0 expansions)."""

_STAMP_SLOT = 127
_INT32_MAX = 2147483647


def _readonly_typer(typingctx, arr):  # noqa: ARG001 - numba intrinsic signature
    """The same array typed read-only: Python receives it with ``flags.writeable`` False (saves
    the caller two ``setflags`` calls, ~0.4 us, per query)."""
    sig = arr.copy(readonly=True)(arr)

    def codegen(context, builder, signature, args):  # noqa: ARG001
        context.nrt.incref(builder, signature.return_type, args[0])  # a new reference
        return args[0]

    return sig, codegen


_readonly: Any = intrinsic(_readonly_typer)


def _borrowed_typer(typingctx, arr):  # noqa: ARG001 - numba intrinsic signature
    """The same array without an owner (null meminfo): passing it on and slicing it touch no
    reference count. Each of those is an atomic operation: a best_first_step call incremented
    and decremented its 19 array arguments (~0.35 us of an adjacent query). Only for arrays the
    caller keeps alive for the whole call; never return or store one."""
    sig = arr(arr)

    def codegen(context, builder, signature, args):  # noqa: ARG001
        array = context.make_array(signature.return_type)(context, builder, value=args[0])
        array.meminfo = array.meminfo.type(None)  # (an LLVM type called on None: its null)
        array.parent = array.parent.type(None)
        return array._getvalue()

    return sig, codegen


_borrowed: Any = intrinsic(_borrowed_typer)


@njit(cache=True, nogil=True)
def world_points(cells, ox, oy, size, y_up, height):
    """Read-only ``(n, 2)`` float64 world centres of ``(n, 2)`` int64 cells, as
    ``TileGrid.cell_to_world`` for a grid of ``height`` rows at origin ``(ox, oy)`` with
    ``size``-unit cells (rows mirrored when ``y_up``)."""
    n = cells.shape[0]
    out = np.empty((n, 2), dtype=np.float64)
    top = height - 1.0
    for i in range(n):
        cx = float(cells[i, 0])
        cy = float(cells[i, 1])
        out[i, 0] = ox + (cx + 0.5) * size
        row = (top - cy) if y_up else cy
        out[i, 1] = oy + (row + 0.5) * size
    return _readonly(out)


@njit(cache=True, nogil=True, inline="always")
def _points(cells, geo):
    """:func:`world_points` with the grid's transform in ``geo``."""
    return world_points(cells, geo[0], geo[1], geo[2], geo[3] != 0.0, geo[4])


@njit(cache=True, nogil=True)
def find_path_once(bits, cost, labels, geo, ints, longs, sx, sy, gx, gy, hcode, smooth):
    """Answer one A* query ``(sx, sy) -> (gx, gy)`` (unpadded, in bounds) with heuristic
    ``hcode`` (``Heuristic.code``; one that keeps the search monotone) on the moves of ``bits``;
    with ``smooth``, the cells are the line-of-sight waypoints of :func:`smooth_path`.

    ``labels``: ``(h * w,)`` int32 island labels of the moves' rule. Returns
    ``(status, cost, expanded, cells, points)``: status FOUND, NO_PATH or BLOCKED (then the
    other values are empty); ``cells`` ``(n, 2)`` int64, ``points`` ``(n, 2)`` float64.
    """
    bits = _borrowed(bits)  # all five live in the caller for the whole call
    cost = _borrowed(cost)
    labels = _borrowed(labels)
    ints = _borrowed(ints)
    longs = _borrowed(longs)
    moves = bits[0]
    passable = bits[1]
    stride = moves.shape[0] // (int(geo[4]) + 2)
    width = stride - 2
    start = (sy + 1) * stride + sx + 1
    goal = (gy + 1) * stride + gx + 1
    if passable[start] == 0 or passable[goal] == 0:
        return BLOCKED, np.inf, 0, _readonly(np.empty((0, 2), np.int64)), _readonly(np.empty((0, 2), np.float64))
    if start == goal:
        cells = np.empty((1, 2), np.int64)
        cells[0, 0] = sx
        cells[0, 1] = sy
        return FOUND, 0.0, 0, _readonly(cells), _points(cells, geo)
    if labels[sy * width + sx] != labels[gy * width + gx]:
        return NO_PATH, np.inf, 0, _readonly(np.zeros((0, 2), np.int64)), _readonly(np.zeros((0, 2), np.float64))
    parent = ints[0]
    mark = ints[1]
    rnext = ints[2]
    rprev = ints[3]
    rhead = ints[4][:64]
    rkey = longs[0]
    rmin = longs[1][:64]
    g = longs[2].view(np.float64)
    stamp = longs[1, _STAMP_SLOT] + 2  # as SearchWorkspace._begin, for one start node
    if stamp >= _INT32_MAX - 2:
        mark[:] = 0
        stamp = 2
    longs[1, _STAMP_SLOT] = stamp
    mark[start] = stamp
    g[start] = 0.0
    parent[start] = -1
    rhead[:] = -1
    rhead[0] = start
    rmin[0] = 0
    rkey[start] = 0
    rnext[start] = -1
    rprev[start] = -1
    m = ints.shape[1]  # the last 8 columns are scratch (no allocation per call)
    istate = longs[0][m - 8:m - 2]
    istate[0] = stamp
    istate[1] = 1
    istate[2] = 0
    istate[3] = start
    istate[4] = 0
    istate[5] = 1
    fstate = g[m - 8:m - 6]
    fstate[:] = np.inf
    table = ints[:4, m - 1:]
    htable = g[m - 1:]
    hf = g[m - 2:m - 1]
    hn = ints[4][m - 2:m - 1]
    code = best_first_step(moves, passable, table, cost, geo[5] != 0.0, False, stride, goal,
                           gx + 1, gy + 1, hcode, htable, 1.0, np.inf, False, True,
                           np.iinfo(np.int64).max, g, parent, mark, rkey, rnext, rprev, rhead,
                           rmin, hf, hf, hn, hn, istate, fstate)
    expanded = istate[2]
    if code == EXHAUSTED:  # cannot happen: the island labels said reachable
        return (NO_PATH, np.inf, expanded, _readonly(np.zeros((0, 2), np.int64)),
                _readonly(np.zeros((0, 2), np.float64)))
    cells = trace_path(parent, goal, stride)
    if smooth and cells.shape[0] > 2:
        kept = cells[smooth_path(cells, passable, stride)]
        return FOUND, g[goal], expanded, _readonly(kept), _points(kept, geo)
    return FOUND, g[goal], expanded, _readonly(cells), _points(cells, geo)

