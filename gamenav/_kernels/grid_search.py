"""Best-first search on a padded tile grid: A* / weighted A* / Dijkstra, path tracing, smoothing.

Layout shared with :mod:`gamenav._kernels.jps`: the grid is padded with a one-cell blocked border
and flattened row-major, so node ``n = (y + 1) * stride + (x + 1)`` and the neighbours of any
passable node are valid indices (no bounds checks in the loops). Arrays:

* ``passable``: ``(N,)`` uint8, 1 = passable (the border is 0).
* ``cost``: ``(N,)`` float64 cell costs (>= 1; unread where ``passable`` is 0).
* ``g``: ``(N,)`` float64 best known cost from the start(s); ``parent``: ``(N,)`` int32.
* ``mark``: ``(N,)`` int32 generation stamps: ``== stamp`` open, ``== stamp + 1`` closed,
  anything else unseen (so the arrays never need clearing between searches).
* heap: ``hf`` / ``hg`` (float64 f and g) and ``hn`` (int32 node) per slot, ``pos`` (int32) the
  slot of each open node (an indexed binary heap with decrease-key).
* ``istate``: int64 ``[stamp, heap_size, expanded, best_node]``; ``fstate``: float64
  ``[best_h, best_g]`` (the closest node found so far, for partial paths).

Heap order (deterministic tie-breaking): smaller f first; among equal f, larger g; then the
smaller node index (i.e. row-major order of the cell).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

SQRT2 = math.sqrt(2.0)

IN_PROGRESS = 0
FOUND = 1
EXHAUSTED = 2


@njit(cache=True, nogil=True, inline="always")
def _before(f1: float, g1: float, n1: int, f2: float, g2: float, n2: int) -> bool:
    if f1 != f2:
        return f1 < f2
    if g1 != g2:
        return g1 > g2
    return n1 < n2


@njit(cache=True, nogil=True)
def _sift_up(hf, hg, hn, pos, i):
    f, gg, n = hf[i], hg[i], hn[i]
    while i > 0:
        p = (i - 1) >> 1
        if not _before(f, gg, n, hf[p], hg[p], hn[p]):
            break
        hf[i] = hf[p]
        hg[i] = hg[p]
        hn[i] = hn[p]
        pos[hn[i]] = i
        i = p
    hf[i] = f
    hg[i] = gg
    hn[i] = n
    pos[n] = i


@njit(cache=True, nogil=True)
def _pop(hf, hg, hn, pos, size):
    """Remove the top of a heap of ``size`` entries; returns the node."""
    top = hn[0]
    size -= 1
    if size == 0:
        return top
    f, gg, n = hf[size], hg[size], hn[size]
    i = 0
    while True:
        c = 2 * i + 1
        if c >= size:
            break
        r = c + 1
        if r < size and _before(hf[r], hg[r], hn[r], hf[c], hg[c], hn[c]):
            c = r
        if not _before(hf[c], hg[c], hn[c], f, gg, n):
            break
        hf[i] = hf[c]
        hg[i] = hg[c]
        hn[i] = hn[c]
        pos[hn[i]] = i
        i = c
    hf[i] = f
    hg[i] = gg
    hn[i] = n
    pos[n] = i
    return top


@njit(cache=True, nogil=True)
def heap_push(hf, hg, hn, pos, size, node, f, g):
    """Insert ``node`` (not in the heap) with keys ``f, g``; returns the new size."""
    hf[size] = f
    hg[size] = g
    hn[size] = node
    _sift_up(hf, hg, hn, pos, size)
    return size + 1


@njit(cache=True, nogil=True)
def heap_pop(hf, hg, hn, pos, size):
    """Remove and return the best node of a heap of ``size`` entries (size becomes size - 1)."""
    return _pop(hf, hg, hn, pos, size)


@njit(cache=True, nogil=True)
def heap_update(hf, hg, hn, pos, node, f, g):
    """Lower the keys of a node already in the heap."""
    i = pos[node]
    hf[i] = f
    hg[i] = g
    _sift_up(hf, hg, hn, pos, i)


@njit(cache=True, nogil=True, inline="always")
def heuristic(code, table, node, stride, gx, gy):
    """Heuristic from ``node`` to goal cell ``(gx, gy)`` (padded coordinates).

    ``code``: 0 manhattan, 1 octile, 2 chebyshev, 3 euclidean, 4 zero, 5 per-node ``table``.
    """
    if code == 4:
        return 0.0
    if code == 5:
        return table[node]
    y = node // stride
    dx = abs(node - y * stride - gx)
    dy = abs(y - gy)
    if code == 1:
        if dx > dy:
            return dx + (SQRT2 - 1.0) * dy
        return dy + (SQRT2 - 1.0) * dx
    if code == 0:
        return float(dx + dy)
    if code == 2:
        return float(max(dx, dy))
    return math.sqrt(float(dx * dx + dy * dy))


@njit(cache=True, nogil=True)
def best_first_step(passable, cost, uniform, stride, diagonal, goal, gx, gy, hcode, htable,
                    weight, max_f, track_best, max_expansions,
                    g, parent, mark, hf, hg, hn, pos, istate, fstate):
    """Run A* (``weight`` >= 1), or Dijkstra (``weight`` 0), for at most ``max_expansions``.

    The heap must have been seeded (start node(s) open with their g). ``goal`` is a node or -1
    (no goal: run until the heap is empty or the best f exceeds ``max_f``). ``diagonal``:
    0 never, 1 no corner cutting, 2 at most one blocked, 3 always. With ``track_best``, every
    expanded node is compared with ``fstate`` by (heuristic, g) and the best kept in
    ``istate[3]``. A closed node whose g improves (inconsistent heuristics) is reopened.

    Returns IN_PROGRESS (budget used up), FOUND (goal popped) or EXHAUSTED.
    """
    stamp = np.int32(istate[0])
    closed = np.int32(stamp + 1)
    size = istate[1]
    expanded = istate[2]
    budget = max_expansions
    orth = np.array([1, -1, stride, -stride], dtype=np.int64)
    diag_d = np.array([1 - stride, 1 + stride, -1 - stride, -1 + stride], dtype=np.int64)
    diag_a = np.array([1, 1, -1, -1], dtype=np.int64)
    diag_b = np.array([-stride, stride, -stride, stride], dtype=np.int64)
    status = IN_PROGRESS
    while True:
        if size == 0:
            status = EXHAUSTED
            break
        if hn[0] == goal:
            status = FOUND
            break
        if hf[0] > max_f:
            status = EXHAUSTED
            break
        if budget <= 0:
            break
        n = heap_pop(hf, hg, hn, pos, size)
        size -= 1
        mark[n] = closed
        gn = g[n]
        expanded += 1
        budget -= 1
        if track_best:
            hb = heuristic(hcode, htable, n, stride, gx, gy)
            if hb < fstate[0] or (hb == fstate[0] and gn < fstate[1]):
                fstate[0] = hb
                fstate[1] = gn
                istate[3] = n
        for k in range(8):
            if k < 4:
                nb = n + orth[k]
                if passable[nb] == 0:
                    continue
                step = 1.0 if uniform else cost[nb]
            else:
                if diagonal == 0:
                    break
                j = k - 4
                nb = n + diag_d[j]
                if passable[nb] == 0:
                    continue
                if diagonal == 1:
                    if passable[n + diag_a[j]] == 0 or passable[n + diag_b[j]] == 0:
                        continue
                elif diagonal == 2:
                    if passable[n + diag_a[j]] == 0 and passable[n + diag_b[j]] == 0:
                        continue
                step = SQRT2 if uniform else SQRT2 * cost[nb]
            ng = gn + step
            m = mark[nb]
            if m == stamp:
                if ng < g[nb]:
                    g[nb] = ng
                    parent[nb] = n
                    heap_update(hf, hg, hn, pos, nb,
                                ng + weight * heuristic(hcode, htable, nb, stride, gx, gy), ng)
                continue
            if m == closed and not ng < g[nb] - 1e-9:
                continue
            g[nb] = ng
            parent[nb] = n
            mark[nb] = stamp
            size = heap_push(hf, hg, hn, pos, size, nb,
                             ng + weight * heuristic(hcode, htable, nb, stride, gx, gy), ng)
    istate[1] = size
    istate[2] = expanded
    return status


@njit(cache=True, nogil=True)
def trace_path(parent, node, stride):
    """Cells ``(n, 2)`` int64 ``(x, y)`` (unpadded) from the root to ``node``.

    Consecutive nodes of the parent chain must lie on a straight or diagonal line (always true
    for A*, and for JPS jump points); the segments between them are filled in cell by cell.
    """
    count = 1
    n = node
    while parent[n] >= 0:
        p = parent[n]
        py = p // stride
        ny = n // stride
        count += max(abs(ny - py), abs((n - ny * stride) - (p - py * stride)))
        n = p
    out = np.empty((count, 2), dtype=np.int64)
    i = count - 1
    n = node
    out[i, 0] = n % stride - 1
    out[i, 1] = n // stride - 1
    while parent[n] >= 0:
        p = parent[n]
        py = p // stride
        px = p - py * stride
        ny = n // stride
        nx = n - ny * stride
        sx = (nx > px) - (nx < px)
        sy = (ny > py) - (ny < py)
        while nx != px or ny != py:
            nx -= sx
            ny -= sy
            i -= 1
            out[i, 0] = nx - 1
            out[i, 1] = ny - 1
        n = p
    return out


@njit(cache=True, nogil=True)
def _line_clear(passable, stride, x0, y0, x1, y1):
    """Whether the segment between the centres of padded cells is clear (supercover).

    Every cell the segment touches must be passable; where it passes exactly through a cell
    corner, both cells beside the corner must be passable too (no corner cutting).
    """
    nx = abs(x1 - x0)
    ny = abs(y1 - y0)
    sx = 1 if x1 > x0 else -1
    sy = 1 if y1 > y0 else -1
    x = x0
    y = y0
    ix = 0
    iy = 0
    while ix < nx or iy < ny:
        a = (1 + 2 * ix) * ny
        b = (1 + 2 * iy) * nx
        if a == b:
            if passable[y * stride + x + sx] == 0 or passable[(y + sy) * stride + x] == 0:
                return False
            x += sx
            y += sy
            ix += 1
            iy += 1
        elif a < b:
            x += sx
            ix += 1
        else:
            y += sy
            iy += 1
        if passable[y * stride + x] == 0:
            return False
    return True


@njit(cache=True, nogil=True)
def smooth_path(cells, passable, stride):
    """Indices of the waypoints kept by greedy line-of-sight smoothing of ``cells`` (n, 2).

    From each kept waypoint, the path is followed as long as the straight segment to the next
    cell is clear (:func:`_line_clear`); the last clear cell becomes the next waypoint. The first
    and last cells are always kept; a step of the input path that is not itself clear (a corner
    cut allowed by the movement rule) is kept as it is.
    """
    n = cells.shape[0]
    keep = np.empty(n, dtype=np.int64)
    keep[0] = 0
    count = 1
    anchor = 0
    i = 1
    while i < n - 1:
        if _line_clear(passable, stride, cells[anchor, 0] + 1, cells[anchor, 1] + 1,
                       cells[i + 1, 0] + 1, cells[i + 1, 1] + 1):
            i += 1
        else:
            keep[count] = i
            count += 1
            anchor = i
            i += 1
    if n > 1:
        keep[count] = n - 1
        count += 1
    return keep[:count]
