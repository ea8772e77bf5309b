"""JPS+ (Harabor & Grastien, ICAPS 2014): jump distances for every cell and direction, built once,
repaired in place after an edit, and a search that reads them with a compact open list.

Layout: the padded flat grid of :mod:`gamenav._kernels.grid_search` (node
``n = (y + 1) * stride + (x + 1)``, ``p`` ``(N,)`` uint8 passable with a blocked border) and a
table ``(N, 8)`` (int16, or int32 beyond 32000 cells a side; one cache line per cell) whose
columns are the directions E, W, S, N, SE, SW, NE, NW (``k = 4 + (dx < 0) + 2 * (dy < 0)`` for
diagonals).

Entries of a passable cell (0 for blocked cells), as in :mod:`gamenav._kernels.jps`:

* straight ``t > 0``: the scan stops at a cell with a forced neighbour (a passable side cell whose
  cell behind is blocked) ``t`` cells away; ``t <= 0``: it runs into a wall after ``-t`` cells.
* diagonal (a step needs the two orthogonally adjacent cells and the target passable, no corner
  cutting) ``t > 0``: the cell ``t`` steps away is the first whose straight scan in ``dx`` or
  ``dy`` finds a jump point; ``t <= 0``: a wall after ``-t`` steps.

:func:`_jump` answers any scan, including the goal checks of online JPS, in O(1): the goal can
only be met on the goal's row or column, i.e. at one known step of a diagonal scan.

Repair (:func:`repair_tables`): an edit inside a box changes the straight entries of the rows
and columns next to it, recomputed from the box outwards against each scan until one comes out
unchanged (every entry reads only the next one's); diagonal entries are walked backwards, until
one comes out unchanged, from each cell whose straight jump status changed (at once, only along
the two diagonals that read that status: no buffer, whatever the box) and from the cells next
to the box. The result equals a full rebuild (tests compare them). On the GPPC maps a 4 x 4
edit takes 0.2-0.8 ms median (the whole rows, columns and 16 diagonals per touched cell
re-swept before: 2.1-4.6 ms).

Search (:func:`search_step`): JPS successor pruning (``jump_directions``) and :func:`_jump`; the
open list is a binary heap over a small per-search pool of generated nodes (g, node, parent
slot, heap position), found from a node through ``key[n] = stamp << 32 | slot`` (verified
against the pool), so a generated successor costs one random memory access, not six. The heap
keeps each entry's f and g beside its slot (sifting reads no pool entry), and an expansion
first finds all its successors, prefetching their ``key`` entries and table rows, then relaxes
them in the same order, so those loads overlap the scans instead of stalling each relax (on
orz700d's 200 longest queries: kernel 1.86 -> 1.65 ms median, same paths). The jump points of a
diagonal scan (two per expansion there) are the loads nothing earlier can name: each one's
successor on the diagonal is prefetched as soon as it is known, before the straight scans and
sub-scans that come first (find_path 4-5 % faster on orz700d and Cauldron, same paths).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from gamenav._kernels.jps import jump_directions
from gamenav._kernels.prefetch import prefetch

SQRT2 = math.sqrt(2.0)
IN_PROGRESS = 0
FOUND = 1
EXHAUSTED = 2
GROW = 3
"""Returned by :func:`search_step` when the node pool needs more room (call again after growing)."""


@njit(cache=True, nogil=True, inline="always")
def _straight_entry(p, tables, n, m, side, i):
    if p[n] == 0 or p[m] == 0:
        return 0
    if (p[m + side] != 0 and p[n + side] == 0) or (p[m - side] != 0 and p[n - side] == 0):
        return 1
    t = tables[m, i]
    return t + 1 if t > 0 else t - 1


@njit(cache=True, nogil=True, inline="always")
def _diagonal_entry(p, stride, tables, k, n):
    """The diagonal entry ``k`` (4..7) at node ``n`` from the entries one step further."""
    dx = 1 if (k & 1) == 0 else -1
    dys = stride if k < 6 else -stride
    d = dx + dys
    if p[n] == 0 or p[n + dx] == 0 or p[n + dys] == 0 or p[n + d] == 0:
        return 0
    m = n + d
    if tables[m, 0 if dx > 0 else 1] > 0 or tables[m, 2 if dys > 0 else 3] > 0:
        return 1
    t = tables[m, k]
    return t + 1 if t > 0 else t - 1


@njit(cache=True, nogil=True)
def build_tables(p, stride, tables):
    """Fill ``tables`` ``(N, 8)`` (zeroed) for the whole padded grid ``p`` in two sweeps: down
    the rows (E, W, N, NE, NW: the last three read the row above) and up (S, SE, SW). Returns
    the number of cells next to a jump point (a straight entry of 1)."""
    rows = p.shape[0] // stride
    jumps = 0
    for r in range(1, rows - 1):
        base = r * stride
        for c in range(stride - 2, 0, -1):
            n = base + c
            tables[n, 0] = _straight_entry(p, tables, n, n + 1, stride, 0)
        for c in range(1, stride - 1):
            n = base + c
            tables[n, 1] = _straight_entry(p, tables, n, n - 1, stride, 1)
            tables[n, 3] = _straight_entry(p, tables, n, n - stride, 1, 3)
            tables[n, 6] = _diagonal_entry(p, stride, tables, 6, n)
            tables[n, 7] = _diagonal_entry(p, stride, tables, 7, n)
    for r in range(rows - 2, 0, -1):
        base = r * stride
        for c in range(1, stride - 1):
            n = base + c
            tables[n, 2] = _straight_entry(p, tables, n, n + stride, 1, 2)
            tables[n, 4] = _diagonal_entry(p, stride, tables, 4, n)
            tables[n, 5] = _diagonal_entry(p, stride, tables, 5, n)
            if tables[n, 0] == 1 or tables[n, 1] == 1 or tables[n, 2] == 1 or tables[n, 3] == 1:
                jumps += 1
    return jumps


@njit(cache=True, nogil=True)
def _walk(p, stride, tables, k, n):
    """Recompute entry ``k`` at ``n`` and backwards along the diagonal while entries change."""
    rows = p.shape[0] // stride
    dx = 1 if (k & 1) == 0 else -1
    d = dx + (stride if k < 6 else -stride)
    count = 0
    while True:
        y = n // stride
        x = n - y * stride
        if y < 1 or y > rows - 2 or x < 1 or x > stride - 2:
            return count
        t = _diagonal_entry(p, stride, tables, k, n)
        if t == tables[n, k]:
            return count
        tables[n, k] = t
        count += 1
        n -= d


@njit(cache=True, nogil=True)
def _line(p, stride, tables, i, n, zone, limit):
    """Recompute the straight entry ``i`` (0..3) at node ``n`` and on backwards against its scan
    (each entry reads the next one's), for at most ``limit`` cells: the first ``zone``
    unconditionally (their own cells changed), then while entries change. Where an entry's jump
    status (``> 0``) changes, the two diagonal entries that read it are walked (:func:`_walk`);
    returns the diagonal entries rewritten."""
    step = 1 if i == 0 else -1 if i == 1 else stride if i == 2 else -stride
    side = stride if i < 2 else 1
    count = 0
    for j in range(limit):
        t = _straight_entry(p, tables, n, n + step, side, i)
        old = tables[n, i]
        if t == old and j >= zone:
            break
        tables[n, i] = t
        if (t > 0) != (old > 0):
            for e in range(2):
                k = 4 + i + 2 * e if i < 2 else 4 + 2 * (i - 2) + e
                d = (1 if (k & 1) == 0 else -1) + (stride if k < 6 else -stride)
                count += _walk(p, stride, tables, k, n - d)
        n -= step
    return count


@njit(cache=True, nogil=True)
def repair_tables(p, stride, tables, y0, y1, x0, x1):
    """Repair ``tables`` in place after the cells in padded rows ``y0 <= y < y1`` and columns
    ``x0 <= x < x1`` changed in ``p`` (already updated). Returns the diagonal entries rewritten.

    Straight entries are recomputed from the box outwards against their scans until they come
    out unchanged; diagonal entries are walked backwards from every cell whose straight jump
    status changed (only along the two diagonals that read it) and from every cell next to the
    box. A walk may read a straight entry that changes later: that change walks it again, so
    every entry is recomputed after its inputs last changed (as a fresh build has them).
    """
    rows = p.shape[0] // stride
    r0 = max(y0 - 1, 1)  # rows and columns of the straight entries that read a changed cell
    r1 = min(y1 + 1, rows - 1)
    c0 = max(x0 - 1, 1)
    c1 = min(x1 + 1, stride - 1)
    count = 0
    for r in range(r0, r1):
        count += _line(p, stride, tables, 0, r * stride + x1 - 1, x1 - c0, x1 - 1)
        count += _line(p, stride, tables, 1, r * stride + x0, c1 - x0, stride - 1 - x0)
    for c in range(c0, c1):
        count += _line(p, stride, tables, 2, (y1 - 1) * stride + c, y1 - r0, y1 - 1)
        count += _line(p, stride, tables, 3, y0 * stride + c, r1 - y0, rows - 1 - y0)
    for k in range(4, 8):  # entries whose own four cells include a changed one
        sx = 1 if (k & 1) == 0 else 0
        sy = 1 if k < 6 else 0
        for y in range(max(y0 - sy, 1), min(y1 + 1 - sy, rows - 1)):
            for x in range(max(x0 - sx, 1), min(x1 + 1 - sx, stride - 1)):
                count += _walk(p, stride, tables, k, y * stride + x)
    return count


@njit(cache=True, nogil=True, inline="always")
def _jump(tables, stride, n, x, y, dx, dy, gx, gy):
    """The steps from node ``n`` at padded ``(x, y)`` in direction ``(dx, dy)`` to the jump
    point reached, or 0 (none); every scan stops at the goal at padded ``(gx, gy)``."""
    if dy == 0:
        t = tables[n, 0 if dx > 0 else 1]
        reach = t if t > 0 else -t
        if y == gy and 0 < (gx - x) * dx <= reach:
            return (gx - x) * dx
        return t if t > 0 else 0
    if dx == 0:
        t = tables[n, 2 if dy > 0 else 3]
        reach = t if t > 0 else -t
        if x == gx and 0 < (gy - y) * dy <= reach:
            return (gy - y) * dy
        return t if t > 0 else 0
    d = dx + dy * stride
    t = tables[n, 4 + (dx < 0) + 2 * (dy < 0)]
    run = t if t > 0 else -t
    stop = t if t > 0 else run + 1  # the first step that returns a cell
    k = (gy - y) * dy  # the step that reaches the goal's row
    if 0 < k < stop:
        xk = x + k * dx
        if xk == gx or 0 < (gx - xk) * dx <= -tables[n + k * d, 0 if dx > 0 else 1]:
            stop = k
    k = (gx - x) * dx  # the step that reaches the goal's column
    if 0 < k < stop:
        yk = y + k * dy
        if yk == gy or 0 < (gy - yk) * dy <= -tables[n + k * d, 2 if dy > 0 else 3]:
            stop = k
    return stop if stop <= run else 0


@njit(cache=True, nogil=True, inline="always")
def _expects(tables, p, stride, n):
    """Prefetch what expanding node ``n`` (a successor just found) reads: its table row and
    the cells around it (:func:`gamenav._kernels.jps.jump_directions`)."""
    prefetch(tables, n)
    prefetch(p, n - stride)
    prefetch(p, n + stride)


@njit(cache=True, nogil=True, inline="always")
def _ahead(tables, stride, n, d, half):
    """Prefetch the table row of the next jump point of a scan from node ``n`` in direction
    ``d`` if diagonal (``half``: ``stride // 2``): a diagonal scan's jump points are its only
    loads that nothing earlier could ask for."""
    dy = (d > half) - (d < -half)
    dx = d - dy * stride
    if dx != 0 and dy != 0:
        t = tables[n, 4 + (dx < 0) + 2 * (dy < 0)]
        if t > 0:
            prefetch(tables, n + t * d)


@njit(cache=True, nogil=True, inline="always")
def _before(f1, g1, f2, g2):
    return f1 < f2 or (f1 == f2 and g1 > g2)


@njit(cache=True, nogil=True)
def _sift_up(heap, hf, hg, hpos, i, s, f, g):
    """Place slot ``s`` with keys ``(f, g)`` at heap position ``i`` or above."""
    while i > 0:
        q = (i - 1) >> 1
        if not _before(f, g, hf[q], hg[q]):
            break
        o = heap[q]
        heap[i] = o
        hf[i] = hf[q]
        hg[i] = hg[q]
        hpos[o] = i
        i = q
    heap[i] = s
    hf[i] = f
    hg[i] = g
    hpos[s] = i


@njit(cache=True, nogil=True)
def _pop(heap, hf, hg, hpos, size):
    """Remove the top slot of a heap of ``size`` entries."""
    top = heap[0]
    size -= 1
    if size > 0:
        last = heap[size]
        f = hf[size]
        g = hg[size]
        i = 0
        while True:
            c = 2 * i + 1
            if c >= size:
                break
            if c + 1 < size and _before(hf[c + 1], hg[c + 1], hf[c], hg[c]):
                c += 1
            if not _before(hf[c], hg[c], f, g):
                break
            o = heap[c]
            heap[i] = o
            hf[i] = hf[c]
            hg[i] = hg[c]
            hpos[o] = i
            i = c
        heap[i] = last
        hf[i] = f
        hg[i] = g
        hpos[last] = i
    hpos[top] = -1


@njit(cache=True, nogil=True, inline="always")
def _relax(nb, via, ng, nx, ny, s, gx, gy, stamp, used, size, key, pg, pnode, pparent, pvia,
           heap, hf, hg, hpos):
    """Offer node ``nb`` at padded ``(nx, ny)`` with cost ``ng`` from slot ``s`` (through the
    cell ``via``, or -1); returns the new ``(used, size)``."""
    ax = abs(nx - gx)
    ay = abs(ny - gy)
    f = ng + (ax + (SQRT2 - 1.0) * ay if ax > ay else ay + (SQRT2 - 1.0) * ax)
    kv = key[nb]
    sl = kv & 0xFFFFFFFF
    if (kv >> 32) == stamp and sl < used and pnode[sl] == nb:
        if hpos[sl] < 0 or not ng < pg[sl]:
            return used, size
        pg[sl] = ng
        pparent[sl] = s
        pvia[sl] = via
        _sift_up(heap, hf, hg, hpos, hpos[sl], sl, f, ng)
        return used, size
    sl = used
    key[nb] = (stamp << 32) | sl
    pnode[sl] = nb
    pg[sl] = ng
    pparent[sl] = s
    pvia[sl] = via
    _sift_up(heap, hf, hg, hpos, size, sl, f, ng)
    return used + 1, size + 1


@njit(cache=True, nogil=True, inline="always")
def _found(found, count, nb, via, x, y, steps, key, tables, p, stride):
    """Note successor ``nb`` at padded ``(x, y)`` (through ``via`` or -1; ``steps``: diagonal
    steps << 32 | straight steps from the expanded node) as row ``count`` of ``found``, and start
    loading what relaxing and expanding it reads; returns ``count + 1``."""
    prefetch(key, nb)
    _expects(tables, p, stride, nb)
    found[count, 0] = nb
    found[count, 1] = via
    found[count, 2] = x
    found[count, 3] = y
    found[count, 4] = steps
    return count + 1


@njit(cache=True, nogil=True)
def write_chain(s, pnode, pparent, pvia, parent):
    """Write the parent chain of pool slot ``s`` into ``parent`` (through the intermediate
    cells), for ``trace_path``. Only one chain at a time holds: an intermediate cell may be a
    closed node itself or lie on the chains of several."""
    node = pnode[s]
    q = pparent[s]
    v = pvia[s]
    while q >= 0:
        if v >= 0:
            parent[node] = v
            node = v
        parent[node] = pnode[q]
        node = pnode[q]
        v = pvia[q]
        q = pparent[q]
    parent[node] = -1


@njit(cache=True, nogil=True)
def search_step(tables, p, stride, goal, gx, gy, max_expansions, key, g, mark,
                pg, pnode, pparent, pvia, heap, hf, hg, hpos, order, found, state):
    """Run JPS+ from the state in the pool for at most ``max_expansions`` expansions.

    ``key`` ``(N,)`` int64 maps nodes to pool slots (``stamp << 32 | slot``); ``g`` and ``mark``
    ``(N,)`` are the workspace arrays of :mod:`gamenav._kernels.grid_search`: expanded nodes are
    written there (g and closed mark ``stamp + 1``) when a call returns IN_PROGRESS, and the
    goal's g when found; :func:`write_chain` then writes the parent chain of the goal (or of a
    partial path's node) into the workspace's ``parent`` for ``trace_path``.
    Pool arrays (capacity ``C``), by slot: ``pg`` float64 g, ``pnode`` int64 node, ``pparent``
    int64 parent slot, ``pvia`` int64 the intermediate cell a successor was reached through (-1:
    on a straight or diagonal line from its parent), ``hpos`` int64 heap position (-1 once
    closed); by heap position: ``heap`` int64 slot, ``hf``, ``hg`` float64 its f and g (the
    keys, read without an indirection); ``order`` int64 slots in expansion order.
    ``found`` ``(R, 5)`` int64 holds one expansion's successors (``R`` the reserve: at most 8 +
    2 per cell of its diagonal scans). ``state`` int64 ``[stamp, slots_used, heap_size,
    expanded, written]``.

    Returns IN_PROGRESS, FOUND, EXHAUSTED or GROW (fewer than ``R`` free slots: grow, call again).
    """
    stamp = state[0]
    closed = np.int32(stamp + 1)
    used = state[1]
    size = state[2]
    expanded = state[3]
    cap = pg.shape[0]
    reserve = found.shape[0]
    budget = max_expansions
    dirs = np.empty(8, dtype=np.int64)
    half = stride // 2  # a direction d is dx + dy * stride: dy from d's sign past half a row
    status = IN_PROGRESS
    while True:
        if size == 0:
            status = EXHAUSTED
            break
        s = heap[0]
        n = pnode[s]
        if n == goal:
            status = FOUND
            g[n] = pg[s]
            break
        if budget <= 0:
            break
        if used + reserve > cap or expanded >= cap:
            status = GROW
            break
        _pop(heap, hf, hg, hpos, size)
        size -= 1
        expanded += 1
        budget -= 1
        gn = pg[s]
        ps = pparent[s]
        pn = pvia[s] if pvia[s] >= 0 else (pnode[ps] if ps >= 0 else -1)  # arrival direction
        order[expanded - 1] = s
        y = n // stride
        x = n - y * stride
        nd = jump_directions(p, stride, n, pn, dirs)
        for i in range(nd):  # the diagonal scans' first jump points load during the straight scans
            _ahead(tables, stride, n, dirs[i], half)
        # all successors first (their loads overlap the scans), then relaxed in the same order
        count = 0
        for i in range(nd):
            d = dirs[i]
            dy = (d > half) - (d < -half)
            dx = d - dy * stride
            if dx == 0 or dy == 0:
                dist = _jump(tables, stride, n, x, y, dx, dy, gx, gy)
                if dist > 0:
                    count = _found(found, count, n + dist * d, -1, x + dx * dist, y + dy * dist,
                                   dist, key, tables, p, stride)
                continue
            # diagonal: intermediate jump points are not expanded; their straight jump points
            # become successors of n directly (via the intermediate), and the scan goes on
            c = n
            cx = x
            cy = y
            steps = 0
            while True:
                k = _jump(tables, stride, c, cx, cy, dx, dy, gx, gy)
                if k == 0:
                    break
                c += k * d
                cx += dx * k
                cy += dy * k
                steps += k
                _ahead(tables, stride, c, d, half)  # the next one loads during the straight sub-scans
                if cy == gy or cx == gx:  # maybe a goal event: a node of its own, expanded
                    count = _found(found, count, c, -1, cx, cy, steps << 32, key, tables, p, stride)
                    break
                for e in range(2):
                    ex = dx if e == 0 else 0
                    ey = 0 if e == 0 else dy
                    dist = _jump(tables, stride, c, cx, cy, ex, ey, gx, gy)
                    if dist > 0:
                        count = _found(found, count, c + dist * (ex + ey * stride), c, cx + ex * dist,
                                       cy + ey * dist, (steps << 32) | dist, key, tables, p, stride)
        for j in range(count):
            steps = found[j, 4]  # g as before: (gn + diagonal steps * sqrt 2) + straight steps
            ng = gn + (steps >> 32) * SQRT2 + (steps & 0xFFFFFFFF)
            used, size = _relax(found[j, 0], found[j, 1], ng, found[j, 2], found[j, 3], s, gx, gy,
                                stamp, used, size, key, pg, pnode, pparent, pvia, heap, hf, hg,
                                hpos)
    if status == IN_PROGRESS:  # partial paths pick from the closed nodes in the workspace
        for j in range(state[4], expanded):
            s = order[j]
            mark[pnode[s]] = closed
            g[pnode[s]] = pg[s]
        state[4] = expanded
    state[1] = used
    state[2] = size
    state[3] = expanded
    return status
