"""Simple Subgoal Graphs (Uras, Koenig & Hernandez, ICAPS 2013): subgoals at convex obstacle
corners, edges between direct-h-reachable subgoals found by a clearance-bounded scan, repaired
inside an edit box, and one query (connect, A* on the graph, refine into cells).

Layout: the padded flat grid of :mod:`gamenav._kernels.grid_search` (node
``n = (y + 1) * stride + (x + 1)``, ``p`` ``(N,)`` uint8 passable with a blocked border).
Movement: 8-connected, diagonal steps cost sqrt(2) and need both orthogonally adjacent cells
passable (no corner cutting); every cell costs 1.

* A subgoal is a passable cell with a blocked diagonal neighbour whose two cells between are
  passable (a convex corner of an obstacle). ``sg`` ``(N,)`` int32: the subgoal's node id, -1
  elsewhere.
* ``clear`` ``(N, 4)`` (int16, int32 for big maps): per cell and direction E, W, S, N
  ``j << 2 | own << 1 | end``: j the number of passable non-subgoal cells before the next
  blocked cell or subgoal, ``end`` 1 when that is a subgoal, ``own`` 1 when the cell itself is
  a subgoal (so a scan reads one array, one cache line per diagonal step).
* Scan (:func:`_scan`, the paper's GetDirectHReachable): from a cell, the cardinal rays, then
  for each diagonal its cells (steps without corner cutting) and from each the rays along the
  diagonal's two cardinals, each ray bounded by the previous rays of that cardinal; the first
  subgoal met on a ray or the diagonal is direct-h-reachable, reached by the diagonal steps then
  the straight ones. The scan's result depends only on the cells it read: their bounding box is
  kept per subgoal (``box``), so an edit rescans exactly the subgoals whose box meets the cells
  that changed (passability, or subgoal status: the edit box grown by one cell).
* Edges: per node a block ``adj[off[u]:off[u] + cnt[u]]`` (room for ``cap[u]``) of int64
  entries ``v << 36 | x << 19 | y << 2 | bits`` (v's cell inline): bit 0 when u's scan found
  v, bit 1 when v's scan found u; an entry with no bit left is dropped; ``adir`` (uint8, the
  same layout) holds each entry's direction class (:func:`_direction` of ``v - u``), so a
  search tests an edge's tautness with one byte, and the :data:`DEAD_END` flag (set by
  :func:`_settle`; about half of all entries on game maps). The weight is the octile distance
  of the two cells. ``node_x``, ``node_y`` (int32) give a node's cell,
  ``corner`` (uint8) its corners (:func:`_corners`), ``ncell`` its padded cell (-1: a free
  id, listed in ``free``). ``meta``: ``[ids used (high water), free ids, adj used]``.
* Landmarks (:func:`landmark`, repaired after edits by :func:`repair_landmarks`, used by
  :func:`query`): ``lm[j, v]`` (uint32) the graph
  distance from landmark j to node v (a row per landmark, so the few rows a query uses stay
  in cache; differential heuristics: ``|d(L, goal) - d(L, v)|`` is
  a lower bound of ``d(v, goal)`` and consistent), exact: ``straight | diagonal << 16``, the
  steps of each kind on a shortest path, for ``straight + sqrt(2) * diagonal`` (nodes on
  equally short paths get equal f, so the tie-break towards larger g holds; float32's ~1e-4
  noise broke it). The goal, rarely a subgoal, gets bounds ``lo <= d(L, goal) <= hi`` from
  the subgoals its scan finds (``d(L, u) -+ octile(u, goal)``), which keep the heuristic
  admissible and consistent.
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt
from numba import njit

from gamenav._kernels.grid_fast import _readonly, world_points
from gamenav._kernels.hpa import _octile, _sift_down, _sift_up
from gamenav._kernels.prefetch import prefetch

SQRT2 = math.sqrt(2.0)
FOUND = 1
FAILED = 2
"""The graph did not answer (a refinement step was not valid: cannot happen on a consistent
graph; the caller runs A* instead)."""

TARGET = -2
ID_SHIFT = 36
X_SHIFT = 19
COORD_MASK = (1 << 17) - 1
"""An edge entry: ``v << ID_SHIFT | x << X_SHIFT | y << 2 | bits`` (v's cell inline, so a
search reads no node array of a successor but its own state)."""
TIE = 1e-9
"""Ties of f go to the larger g (f - TIE * g): far below the smallest cost difference."""
TAG_MASK = ~np.int64(0xFFFFFFFF)
OPEN = 1
CLOSED = 2
MARK = 4
DIAGONAL_FIRST = 8
"""Key bit: the node's parent edge was found by the parent's scan (diagonal steps first from
the parent); :data:`STRAIGHT_FIRST`: by the node's own scan (straight steps first from the
parent). Neither: the start's or the goal's edges (the refinement knows those)."""
STRAIGHT_FIRST = 16
ARRIVAL_SHIFT = 8
"""Key bits ``8..12``: the direction class of the node's way in (:func:`_direction` of its
cell minus its parent's; :data:`ANY_WAY` for the start), which picks its taut edges."""
CLASS_MASK = 0x1F
"""The direction class bits of an ``adir`` byte (:func:`_direction`, below 27)."""
DEAD_END = 0x80
"""``adir`` flag of an entry u -> v: arriving at v from u, no edge of v is taut
(:data:`TAUT_MASKS`), so a shortest path through u -> v ends at v (v is the goal or its scan
found the goal): a search does not generate v from u otherwise."""
NO_DIST = np.uint32(0xFFFFFFFF)
"""A landmark entry for a node the landmark does not reach."""
"""Search state, one ``(n, 4)`` int64 row per node (one cache line holds two):
``[key, parent, g, h]``, g and h float64 (read through a float64 view of the array); ``key`` is
the query's tag (its stamp << 32) | :data:`OPEN` or :data:`CLOSED` | :data:`MARK` (the goal's
scan found the node) | :data:`DIAGONAL_FIRST` or :data:`STRAIGHT_FIRST`, or anything else for a
node this query has not touched."""


@njit(cache=True, nogil=True, inline="always")
def _is_subgoal(p, stride, n):
    if p[n] == 0:
        return False
    for dy in (-stride, stride):
        for dx in (-1, 1):
            if p[n + dx + dy] == 0 and p[n + dx] != 0 and p[n + dy] != 0:
                return True
    return False


@njit(cache=True, nogil=True, inline="always")
def _delta(k, stride):
    if k == 0:
        return 1
    if k == 1:
        return -1
    if k == 2:
        return stride
    return -stride


@njit(cache=True, nogil=True, inline="always")
def _clear_from(p, sg, clear, n, m, k):
    """``clear[n, k]`` from the next cell ``m`` in direction k (see the module docstring)."""
    if p[m] == 0:
        c = 0
    elif sg[m] >= 0:
        c = 1
    else:
        c = clear[m, k] + 4  # m's own subgoal bit is clear
    clear[n, k] = c | (2 if sg[n] >= 0 else 0)


@njit(cache=True, nogil=True)
def _clearances(p, stride, sg, clear, r0, r1, c0, c1):
    """E, W of the whole rows ``r0 <= r < r1``; S, N of the whole columns ``c0 <= c < c1``."""
    rows = p.shape[0] // stride
    for r in range(r0, r1):
        base = r * stride
        for c in range(stride - 2, 0, -1):
            _clear_from(p, sg, clear, base + c, base + c + 1, 0)
        for c in range(1, stride - 1):
            _clear_from(p, sg, clear, base + c, base + c - 1, 1)
    if c1 <= c0:
        return
    for i in range(1, rows - 1):
        base = (rows - 1 - i) * stride
        for c in range(c0, c1):
            _clear_from(p, sg, clear, base + c, base + c + stride, 2)
    for r in range(1, rows - 1):
        base = r * stride
        for c in range(c0, c1):
            _clear_from(p, sg, clear, base + c, base + c - stride, 3)


@njit(cache=True, nogil=True, inline="always")
def _on_ray(x, y, dx, dy, tx, ty):
    """Distance along the ray from ``(x, y)`` in ``(dx, dy)`` (one of them 0) to ``(tx, ty)``,
    or -1 if the target is not ahead on the ray."""
    if dy == 0:
        if ty != y:
            return -1
        t = (tx - x) * dx
    else:
        if tx != x:
            return -1
        t = (ty - y) * dy
    return t if t > 0 else -1


@njit(cache=True, nogil=True)
def _scan(sg, stride, clear, s, target, out, box):
    """The subgoals direct-h-reachable from cell ``s`` (and ``target``, a cell or -1, reported
    as :data:`TARGET` if met first on a ray or diagonal) into ``out``; ``box`` gets the padded
    ``x0, y0, x1, y1`` (inclusive) of the cells read. Returns how many were found. Reads the
    clearances of the cells on the diagonals and ``sg`` only where a ray ends at a subgoal
    (few cache lines)."""
    sy = s // stride
    sx = s - sy * stride
    ty = target // stride if target >= 0 else -10
    tx = target - ty * stride if target >= 0 else -10
    bx0 = sx
    bx1 = sx
    by0 = sy
    by1 = sy
    n = 0
    eff = np.empty(4, dtype=np.int64)
    for k in range(4):
        d = _delta(k, stride)
        dx = 1 if k == 0 else (-1 if k == 1 else 0)
        dy = 1 if k == 2 else (-1 if k == 3 else 0)
        c = np.int64(clear[s, k])
        j = c >> 2
        t = _on_ray(sx, sy, dx, dy, tx, ty)
        e = j + 1
        if t > 0 and t <= j + 1:
            out[n] = TARGET
            n += 1
            j = t - 1
            e = t
        elif c & 1:
            out[n] = sg[s + (j + 1) * d]
            n += 1
        eff[k] = j
        ex = sx + dx * e
        ey = sy + dy * e
        bx0 = min(bx0, ex)
        bx1 = max(bx1, ex)
        by0 = min(by0, ey)
        by1 = max(by1, ey)
    for q in range(4):
        dx = 1 if (q & 1) == 0 else -1
        dy = 1 if q < 2 else -1
        k1 = 0 if dx > 0 else 1
        k2 = 2 if dy > 0 else 3
        d2 = dy * stride
        dd = dx + d2
        m1 = eff[k1]
        m2 = eff[k2]
        cur = s
        cx = sx
        cy = sy
        while True:
            # the cells a step reads (both sides and the target)
            bx0 = min(bx0, cx + dx)
            bx1 = max(bx1, cx + dx)
            by0 = min(by0, cy + dy)
            by1 = max(by1, cy + dy)
            # both sides and the target passable: a clearance other than 0 (or the own
            # subgoal bit alone) says the next cell that way is passable
            if (clear[cur, k1] | 2 == 2 or clear[cur, k2] | 2 == 2
                    or clear[cur + d2, k1] | 2 == 2):
                break
            cur += dd
            cx += dx
            cy += dy
            prefetch(clear, cur + 6 * dd)  # each step reads another row (lines, pages apart)
            if cx == tx and cy == ty:
                out[n] = TARGET
                n += 1
                break
            if clear[cur, k1] & 2:  # a subgoal
                out[n] = sg[cur]
                n += 1
                break
            for side in range(2):
                k = k1 if side == 0 else k2
                mx = m1 if side == 0 else m2
                rdx = dx if side == 0 else 0
                rdy = 0 if side == 0 else dy
                c = np.int64(clear[cur, k])
                j = c >> 2
                t = _on_ray(cx, cy, rdx, rdy, tx, ty)
                hit = int(c & 1)  # what ends the ray: 0 a blocked cell, 1 a subgoal, 2 the target
                if t > 0 and t <= j + 1:
                    j = t - 1
                    hit = 2
                e = min(j + 1, mx + 1)
                if e > 0:
                    ex = cx + rdx * e
                    ey = cy + rdy * e
                    bx0 = min(bx0, ex)
                    bx1 = max(bx1, ex)
                    by0 = min(by0, ey)
                    by1 = max(by1, ey)
                if j <= mx and hit != 0:
                    out[n] = TARGET if hit == 2 else sg[cur + (j + 1) * (rdx + rdy * stride)]
                    n += 1
                    j -= 1
                if j < mx:
                    mx = j
                if side == 0:
                    m1 = mx
                else:
                    m2 = mx
    box[0] = bx0
    box[1] = by0
    box[2] = bx1
    box[3] = by1
    return n


@njit(cache=True, nogil=True)
def _grown(pool, need):
    """``pool`` with room for ``need`` entries (a new array, twice as large, if it has not)."""
    if need <= pool.shape[0]:
        return pool
    bigger = np.empty(max(need, 2 * pool.shape[0]), dtype=pool.dtype)
    bigger[:pool.shape[0]] = pool
    return bigger


@njit(cache=True, nogil=True)
def _link(u, v, bit, off, cnt, cap, adj, adir, meta, node_x, node_y):
    """Set ``bit`` on u's entry for v (adding it, with its direction class in ``adir``);
    returns the (maybe reallocated) pools ``(adj, adir)``."""
    base = off[u]
    for i in range(cnt[u]):
        if adj[base + i] >> ID_SHIFT == v:
            adj[base + i] |= bit
            return adj, adir
    if cnt[u] == cap[u]:  # move the block to the end of the pool, twice as large
        newcap = max(4, 2 * cap[u])
        start = meta[2]
        adj = _grown(adj, start + newcap)
        adir = _grown(adir, start + newcap)
        for i in range(cnt[u]):
            adj[start + i] = adj[base + i]
            adir[start + i] = adir[base + i]
        off[u] = start
        cap[u] = newcap
        meta[2] = start + newcap
        base = start
    vx = np.int64(node_x[v])
    vy = np.int64(node_y[v])
    adj[base + cnt[u]] = (v << ID_SHIFT) | (vx << X_SHIFT) | (vy << 2) | bit
    adir[base + cnt[u]] = _direction_jit(vx - node_x[u], vy - node_y[u])
    cnt[u] += 1
    return adj, adir


@njit(cache=True, nogil=True)
def _unlink(u, v, bit, off, cnt, adj, adir):
    """Clear ``bit`` on u's entry for v (``bit`` 3: drop it); drop entries left with no bit."""
    base = off[u]
    for i in range(cnt[u]):
        e = adj[base + i]
        if e >> ID_SHIFT == v:
            e &= ~bit
            if e & 3 == 0:
                cnt[u] -= 1
                adj[base + i] = adj[base + cnt[u]]
                adir[base + i] = adir[base + cnt[u]]
            else:
                adj[base + i] = e
            return


@njit(cache=True, nogil=True, inline="always")
def _z_order(x, y):
    """The Morton code of cell ``(x, y)`` (the bits of x and y interleaved; both below 2**17)."""
    key = np.int64(0)
    for bit in range(17):
        key |= ((np.int64(x) >> bit) & 1) << (2 * bit)
        key |= ((np.int64(y) >> bit) & 1) << (2 * bit + 1)
    return key


@njit(cache=True, nogil=True, inline="always")
def _touch(u, touched, kept, log, off, cnt, adj):
    """Mark node u touched, and before its block first changes, log its neighbours (entries
    ``>> 2``: scan bits aside) at ``log[kept[u]:]`` (their count first; ``log[0]``: entries
    used; each node is logged once, before it gains entries: room for one entry per node id
    and per entry of the pool)."""
    touched[u] = True
    if kept[u] < 0:
        n = log[0]
        kept[u] = n
        log[n] = cnt[u]
        for i in range(cnt[u]):
            log[n + 1 + i] = adj[off[u] + i] >> 2
        log[0] = n + 1 + cnt[u]


@njit(cache=True, nogil=True, inline="always")
def _kept_block(u, kept, log, off, cnt, adj):
    """Whether node u's block holds the neighbours :func:`_touch` logged, in the same order."""
    k = kept[u]
    same = log[k] == cnt[u]
    i = 0
    while same and i < cnt[u]:
        same = adj[off[u] + i] >> 2 == log[k + 1 + i]
        i += 1
    return same


@njit(cache=True, nogil=True)
def repair(p, stride, x0, y0, x1, y1, sg, clear, ncell, node_x, node_y, corner, box, off, cnt, cap,
           free, adj, adir, meta):
    """Bring the graph to ``p`` after the cells ``x0 <= x < x1``, ``y0 <= y < y1`` (unpadded)
    changed (the whole grid on an empty graph builds it). Node arrays must have room for
    ``meta[0]`` plus the subgoals of the box grown by one; returns ``(adj, adir, rescanned,
    seeds, moved)`` (the edge pools may be reallocated; int64 ids, ascending): ``moved`` the ids
    whose cell changed (new and removed nodes), ``seeds`` the live nodes whose neighbours
    changed (new ones among them). Every node whose edges or corners changed gets its block
    put in a build's order (by neighbour cell), so a block whose neighbours did not change
    holds them as before: the repair rescans many more nodes than change (3.4x on AR0011SR),
    and each landmark row's repair costs a pass over its seeds."""
    rows = p.shape[0] // stride
    touched = np.zeros(ncell.shape[0], dtype=np.bool_)  # edges or corners changed: _settle
    kept = np.full(ncell.shape[0], -1, dtype=np.int64)  # see _touch
    log = np.empty(1 + ncell.shape[0] + meta[2], dtype=np.int64)  # (untouched pages cost nothing)
    log[0] = 1
    moved = np.zeros(ncell.shape[0], dtype=np.bool_)
    # the box grown by one cell, in padded coordinates, inside the grid
    gx0 = max(x0, 1)
    gy0 = max(y0, 1)
    gx1 = min(x1 + 1, stride - 2)
    gy1 = min(y1 + 1, rows - 2)
    # subgoals that went away: drop their edges and free their ids
    for y in range(gy0, gy1 + 1):
        for x in range(gx0, gx1 + 1):
            n = y * stride + x
            u = sg[n]
            if u >= 0 and not _is_subgoal(p, stride, n):
                for i in range(cnt[u]):
                    v = adj[off[u] + i] >> ID_SHIFT
                    _touch(v, touched, kept, log, off, cnt, adj)
                    _unlink(v, u, 3, off, cnt, adj, adir)
                cnt[u] = 0
                ncell[u] = -1
                moved[u] = True
                free[meta[1]] = u
                meta[1] += 1
                sg[n] = -1
    # new subgoals, numbered in the Z order of their cells: subgoals near each other get
    # nearby ids, so a query's node records and landmark entries share cache lines (the
    # 200 longest queries: orz700d 5%, Cauldron 18% faster with cold caches than row order)
    fresh = 0
    for y in range(gy0, gy1 + 1):
        for x in range(gx0, gx1 + 1):
            n = y * stride + x
            if sg[n] < 0 and _is_subgoal(p, stride, n):
                fresh += 1
    cells = np.empty(fresh, dtype=np.int64)
    keys = np.empty(fresh, dtype=np.int64)
    k = 0
    for y in range(gy0, gy1 + 1):
        for x in range(gx0, gx1 + 1):
            n = y * stride + x
            if sg[n] < 0 and _is_subgoal(p, stride, n):
                cells[k] = n
                keys[k] = _z_order(x, y)
                k += 1
    for i in np.argsort(keys):
        n = cells[i]
        if meta[1] > 0:
            meta[1] -= 1
            u = free[meta[1]]
        else:
            u = meta[0]
            meta[0] += 1
        sg[n] = u
        ncell[u] = n
        moved[u] = True
        node_x[u] = n % stride - 1
        node_y[u] = n // stride - 1
        cnt[u] = 0
        box[u, 0] = 0  # a box over everything: scanned below
        box[u, 1] = 0
        box[u, 2] = stride
        box[u, 3] = rows
    for y in range(gy0, gy1 + 1):
        for x in range(gx0, gx1 + 1):
            n = y * stride + x
            if sg[n] >= 0:  # new, or its neighbours may have changed
                corner[sg[n]] = _corners(p, stride, n)
                _touch(sg[n], touched, kept, log, off, cnt, adj)
    if gx1 - gx0 >= stride - 3 and gy1 - gy0 >= rows - 3:
        _clearances(p, stride, sg, clear, 1, rows - 1, 1, stride - 1)
    else:
        _clearances(p, stride, sg, clear, gy0, gy1 + 1, gx0, gx1 + 1)
    # the subgoals whose scans read a changed cell, and the new ones
    dirty = np.empty(meta[0], dtype=np.int64)
    nd = 0
    for u in range(meta[0]):
        if ncell[u] < 0:
            continue
        if (box[u, 0] <= gx1 and box[u, 2] >= gx0 and box[u, 1] <= gy1
                and box[u, 3] >= gy0):
            dirty[nd] = u
            nd += 1
    for i in range(nd):  # forget what their old scans found
        u = dirty[i]
        _touch(u, touched, kept, log, off, cnt, adj)
        j = 0
        while j < cnt[u]:
            e = adj[off[u] + j]
            if e & 1:
                v = e >> ID_SHIFT
                _touch(v, touched, kept, log, off, cnt, adj)
                _unlink(v, u, 2, off, cnt, adj, adir)
                if e & 2:
                    adj[off[u] + j] = e & ~1
                    j += 1
                else:
                    cnt[u] -= 1
                    adj[off[u] + j] = adj[off[u] + cnt[u]]
                    adir[off[u] + j] = adir[off[u] + cnt[u]]
            else:
                j += 1
    out = np.empty(8 + 8 * (rows + stride), dtype=np.int64)
    b = np.empty(4, dtype=np.int64)
    for i in range(nd):
        u = dirty[i]
        k = _scan(sg, stride, clear, ncell[u], -1, out, b)
        for c in range(4):
            box[u, c] = b[c]
        for j in range(k):
            v = out[j]
            _touch(v, touched, kept, log, off, cnt, adj)
            adj, adir = _link(u, v, 1, off, cnt, cap, adj, adir, meta, node_x, node_y)
            adj, adir = _link(v, u, 2, off, cnt, cap, adj, adir, meta, node_x, node_y)
    ns = 0
    for t in range(meta[0]):
        if touched[t] and ncell[t] >= 0:
            _settle(t, off, cnt, adj, adir, corner)
            _sort_block(t, off, cnt, adj, adir)
            if moved[t] or not _kept_block(t, kept, log, off, cnt, adj):
                dirty[ns] = t  # (dirty is done with: its room is every id)
                ns += 1
    return adj, adir, nd, dirty[:ns].copy(), np.flatnonzero(moved)


@njit(cache=True, nogil=True)
def _sort_block(u, off, cnt, adj, adir):
    """Order node u's entries by their neighbour's cell (row order; insertion sort, blocks are
    short). A search pushes a node's successors in that order, which decides among equal keys
    which of equally short paths it finds: a repaired block must be in a build's order."""
    base = off[u]
    for i in range(1, cnt[u]):
        e = adj[base + i]
        d = adir[base + i]
        key = ((e >> 2) & COORD_MASK) << 17 | ((e >> X_SHIFT) & COORD_MASK)
        j = i - 1
        while j >= 0:
            f = adj[base + j]
            if ((f >> 2) & COORD_MASK) << 17 | ((f >> X_SHIFT) & COORD_MASK) <= key:
                break
            adj[base + j + 1] = f
            adir[base + j + 1] = adir[base + j]
            j -= 1
        adj[base + j + 1] = e
        adir[base + j + 1] = d


@njit(cache=True, nogil=True, inline="always")
def _reach(v, nd, u, rec, recf, tag):
    """Reach node ``v`` with cost ``nd`` from ``u`` (state ``rec``, its float64 view ``recf``);
    returns whether ``v`` improved (the caller pushes it)."""
    k = rec[v, 0]
    if k & TAG_MASK != tag:
        k = tag
    elif (k & 3) == CLOSED or nd >= recf[v, 2]:
        return False
    recf[v, 2] = nd
    rec[v, 1] = u
    rec[v, 0] = (k & MARK) | tag | OPEN
    return True


@njit(cache=True, nogil=True, inline="always")
def _h(v, vx, vy, gx, gy, lm, lmuse, lo, hi):
    """The heuristic of node ``v`` at ``(vx, vy)``: the octile distance to the goal, raised by
    each landmark's bounds (``lo <= d(L, goal) <= hi``: ``d(v, goal) >= lo - d(L, v)`` and
    ``>= d(L, v) - hi``; infinite distances, other islands, compare false)."""
    h = _octile(vx, vy, gx, gy)
    for j in range(lmuse.shape[0]):
        d = _lm_dist(lm[lmuse[j], v])
        a = lo[j] - d
        if a > h:
            h = a
        b = d - hi[j]
        if b > h:
            h = b
    return h


@njit(cache=True, nogil=True, inline="always")
def _lm_dist(e):
    """The distance a landmark entry stands for (see :data:`NO_DIST`)."""
    if e == NO_DIST:
        return np.inf
    return np.float64(e & 0xFFFF) + np.float64(e >> 16) * SQRT2


@njit(cache=True, nogil=True)
def landmark(off, cnt, adj, adir, corner, node_x, node_y, src, dist, rec, stamp, hk, hn):
    """Dijkstra over the whole graph from node ``src``: ``dist`` (uint32, one per node id) gets
    every node's distance as a landmark entry (:data:`NO_DIST`: not reached), counted along
    the shortest-path tree. A node passes the search on only along its edges taut after its
    way in (as :func:`query`; exact: a turn that is not taut has a strictly shorter way round,
    so no shortest path makes it, whichever equally short way in the search recorded), about
    a fifth of the edges, and a node reached along a :data:`DEAD_END` entry is not pushed (no
    shortest path goes on from it; pushed if a shorter way reaches it later): its entry is
    counted at the end from the parent it kept. Workspace as :func:`query`'s. Returns False if
    a count does not fit 16 bits (the column is unusable)."""
    tag = np.int64(stamp) << 32
    recf = rec.view(np.float64)
    for i in range(dist.shape[0]):
        dist[i] = NO_DIST
    _reach(src, 0.0, -1, rec, recf, tag)
    rec[src, 0] |= ANY_WAY << ARRIVAL_SHIFT
    no_pos = np.empty(0, dtype=np.int64)  # a heap with duplicates: no position index
    _sift_up(hk, hn, 0, 0.0, src, no_pos)
    na = 1
    while na > 0:
        u = hn[0]
        na = _sift_down(hk, hn, na, no_pos)
        ku = rec[u, 0]
        if ku & 3 == CLOSED:
            continue
        rec[u, 0] = ku ^ (OPEN | CLOSED)
        if not _count_steps(u, rec, dist, node_x, node_y):
            return False
        gu = recf[u, 2]
        ux = np.int64(node_x[u])
        uy = np.int64(node_y[u])
        allowed = np.int64(ARRIVAL_MASKS[corner[u], (ku >> ARRIVAL_SHIFT) & CLASS_MASK])
        base = off[u]
        for i in range(cnt[u]):
            a = adir[base + i]
            if not (allowed >> (a & CLASS_MASK)) & 1:
                continue
            e = adj[base + i]
            v = e >> ID_SHIFT
            vx = (e >> X_SHIFT) & COORD_MASK
            vy = (e >> 2) & COORD_MASK
            nd = gu + _octile(ux, uy, vx, vy)
            if _reach(v, nd, u, rec, recf, tag):
                rec[v, 0] |= np.int64(a & CLASS_MASK) << ARRIVAL_SHIFT
                if not a & DEAD_END:
                    _sift_up(hk, hn, na, nd, v, no_pos)
                    na += 1
    for v in range(dist.shape[0]):  # the nodes reached only along dead-end entries
        if (rec[v, 0] & TAG_MASK == tag and rec[v, 0] & 3 == OPEN
                and not _count_steps(v, rec, dist, node_x, node_y)):
            return False
    return True


@njit(cache=True, nogil=True, inline="always")
def _count_steps(u, rec, dist, node_x, node_y):
    """``dist[u]``: the entry of u's parent in ``rec`` (counted already) plus the edge's steps;
    False if a count reaches 16 bits."""
    pu = rec[u, 1]
    if pu < 0:
        dist[u] = 0
        return True
    dx = abs(np.int64(node_x[u]) - np.int64(node_x[pu]))
    dy = abs(np.int64(node_y[u]) - np.int64(node_y[pu]))
    e = np.int64(dist[pu])
    straight = (e & 0xFFFF) + abs(dx - dy)
    diagonal = (e >> 16) + min(dx, dy)
    if straight >= 0xFFFF or diagonal >= 0xFFFF:
        return False
    dist[u] = straight | (diagonal << 16)
    return True


@njit(cache=True, nogil=True, inline="always")
def _plus_edge(e, ux, uy, vx, vy):
    """The landmark entry ``e`` (finite) plus the steps of the edge between ``(ux, uy)`` and
    ``(vx, vy)``, as ``(straight, diagonal)`` counts (int64: may exceed 16 bits)."""
    dx = abs(ux - vx)
    dy = abs(uy - vy)
    return (np.int64(e) & 0xFFFF) + abs(dx - dy), (np.int64(e) >> 16) + min(dx, dy)


@njit(cache=True, nogil=True, inline="always")
def _lm_set(lm, lm_by_node, j, v, e):
    lm[j, v] = e
    lm_by_node[v, j] = e


@njit(cache=True, nogil=True)
def _lend(j, x, lm, lm_by_node, off, cnt, adj, node_x, node_y, rec, tag, hk, hn, na, fresh, nf,
          no_pos):
    """Phase (1) of :func:`repair_landmarks`: node x's entry holds, so its neighbours without one
    (new nodes, or unreached before) get x's entry plus the edge as a tentative one (they may
    support others). Returns ``(na, nf)``, or ``(-1, nf)`` when a count reached 16 bits."""
    ex = lm[j, x]
    xx = np.int64(node_x[x])
    xy = np.int64(node_y[x])
    for i in range(cnt[x]):
        e = adj[off[x] + i]
        w = e >> ID_SHIFT
        kw = rec[w, 0]
        if kw & TAG_MASK == tag:
            if kw & 3 != OPEN:
                continue  # checked, lost, or a settled tentative one
        elif lm[j, w] != NO_DIST:
            continue  # an entry of the graph before
        st, dg = _plus_edge(ex, xx, xy, (e >> X_SHIFT) & COORD_MASK, (e >> 2) & COORD_MASK)
        nd = st + SQRT2 * dg
        if kw & TAG_MASK == tag and nd >= _lm_dist(lm[j, w]):
            continue
        if st >= 0xFFFF or dg >= 0xFFFF:
            return -1, nf
        if kw & TAG_MASK != tag:
            fresh[nf] = w
            nf += 1
        rec[w, 0] = tag | OPEN
        _lm_set(lm, lm_by_node, j, w, st | (dg << 16))
        _sift_up(hk, hn, na, nd, w, no_pos)
        na += 1
    return na, nf


@njit(cache=True, nogil=True)
def repair_landmarks(off, cnt, adj, node_x, node_y, lm, lm_by_node, rows, srcs, seeds, rec, stamp,
                     hk, hn, ok):
    """Bring the landmark rows ``rows`` of ``lm`` (and ``lm_by_node``, its transpose) from the
    graph before an edit to the graph now, for landmark nodes ``srcs`` (kept by the edit), as
    :func:`landmark` would compute them. ``seeds`` (int64): the live nodes whose edges changed
    (new nodes among them, their entries :data:`NO_DIST`, as those of removed ids).

    Per row (a dynamic shortest-path repair, Ramalingam & Reps): (1) in order of distance
    from the seeds, a node none of whose neighbours still supports its entry (a neighbour's
    entry plus the edge's steps equal to it, the neighbour not itself unsupported) loses it,
    and its neighbours that it supported are checked in turn; a node whose entry holds lends
    it to neighbours without one (:func:`_lend`: a new corner on a shortest path supports the
    nodes behind it, which keep their entries); (2) the nodes that lost theirs get the best
    entry of their neighbours, and a Dijkstra from them, the seeds and the lent entries lowers
    every entry a shorter way now reaches. Entries are exact step counts and equally long paths
    have equal counts, so the result equals :func:`landmark`'s. ``ok[r]`` is False for a row
    where a count reached 16 bits (the caller computes it again). Uses stamps ``stamp .. stamp
    + 2 * len(rows) - 1`` of the workspace ``rec``; the heap ``hk``, ``hn`` needs room for the
    entries of ``adj`` plus three times the node ids.
    """
    no_pos = np.empty(0, dtype=np.int64)
    lost = np.empty(node_x.shape[0], dtype=np.int64)
    fresh = np.empty(node_x.shape[0], dtype=np.int64)
    for r in range(rows.shape[0]):
        j = rows[r]
        src = srcs[r]
        tag = np.int64(stamp + 2 * r) << 32
        ok[r] = True
        na = 0
        for i in range(seeds.shape[0]):
            v = seeds[i]
            if lm[j, v] != NO_DIST:
                _sift_up(hk, hn, na, _lm_dist(lm[j, v]), v, no_pos)
                na += 1
        nl = 0
        nf = 0
        while na > 0:  # (1) entries that lost their support; entries lent
            d = hk[0]
            v = hn[0]
            na = _sift_down(hk, hn, na, no_pos)
            kv = rec[v, 0]
            if kv & TAG_MASK == tag:
                if kv & 3 != OPEN or d > _lm_dist(lm[j, v]):
                    continue  # checked, or an older copy
                rec[v, 0] = tag | CLOSED  # a lent entry, settled
            else:
                rec[v, 0] = tag
                ev = lm[j, v]
                vx = np.int64(node_x[v])
                vy = np.int64(node_y[v])
                held = v == src
                for i in range(cnt[v]):
                    if held:
                        break
                    e = adj[off[v] + i]
                    u = e >> ID_SHIFT
                    eu = lm[j, u]
                    if eu == NO_DIST or rec[u, 0] == tag | MARK or rec[u, 0] == tag | OPEN:
                        continue
                    st, dg = _plus_edge(eu, (e >> X_SHIFT) & COORD_MASK, (e >> 2) & COORD_MASK, vx, vy)
                    held = st | (dg << 16) == ev
                if not held:
                    rec[v, 0] = tag | MARK
                    lost[nl] = v
                    nl += 1
                    for i in range(cnt[v]):
                        e = adj[off[v] + i]
                        w = e >> ID_SHIFT
                        ew = lm[j, w]
                        if ew == NO_DIST or rec[w, 0] & TAG_MASK == tag:
                            continue
                        st, dg = _plus_edge(ev, vx, vy, (e >> X_SHIFT) & COORD_MASK, (e >> 2) & COORD_MASK)
                        if st | (dg << 16) == ew:
                            _sift_up(hk, hn, na, _lm_dist(ew), w, no_pos)
                            na += 1
                    continue
            na, nf = _lend(j, v, lm, lm_by_node, off, cnt, adj, node_x, node_y, rec, tag, hk, hn, na,
                           fresh, nf, no_pos)
            if na < 0:
                ok[r] = False
                break
        if not ok[r]:
            continue
        for i in range(nl):
            _lm_set(lm, lm_by_node, j, lost[i], NO_DIST)
        tag += np.int64(1) << 32
        for i in range(nl):  # (2) their best neighbour's entry...
            v = lost[i]
            vx = np.int64(node_x[v])
            vy = np.int64(node_y[v])
            best = np.inf
            for k in range(cnt[v]):
                e = adj[off[v] + k]
                eu = lm[j, e >> ID_SHIFT]
                if eu == NO_DIST:
                    continue
                st, dg = _plus_edge(eu, (e >> X_SHIFT) & COORD_MASK, (e >> 2) & COORD_MASK, vx, vy)
                d = st + SQRT2 * dg
                if d < best:
                    if st >= 0xFFFF or dg >= 0xFFFF:
                        ok[r] = False
                        break
                    best = d
                    lm[j, v] = st | (dg << 16)
            if best < np.inf:
                lm_by_node[v, j] = lm[j, v]
                _sift_up(hk, hn, na, best, v, no_pos)
                na += 1
        for i in range(seeds.shape[0] + nf):  # ...and the seeds' and lent ones lower others
            v = seeds[i] if i < seeds.shape[0] else fresh[i - seeds.shape[0]]
            if lm[j, v] != NO_DIST:
                _sift_up(hk, hn, na, _lm_dist(lm[j, v]), v, no_pos)
                na += 1
        while na > 0 and ok[r]:
            d = hk[0]
            u = hn[0]
            na = _sift_down(hk, hn, na, no_pos)
            eu = lm[j, u]
            if rec[u, 0] == tag or d > _lm_dist(eu):
                continue  # expanded, or an older copy
            rec[u, 0] = tag
            ux = np.int64(node_x[u])
            uy = np.int64(node_y[u])
            for i in range(cnt[u]):
                e = adj[off[u] + i]
                w = e >> ID_SHIFT
                st, dg = _plus_edge(eu, ux, uy, (e >> X_SHIFT) & COORD_MASK, (e >> 2) & COORD_MASK)
                nd = st + SQRT2 * dg
                if nd < _lm_dist(lm[j, w]):
                    if st >= 0xFFFF or dg >= 0xFFFF:
                        ok[r] = False
                        break
                    _lm_set(lm, lm_by_node, j, w, st | (dg << 16))
                    _sift_up(hk, hn, na, nd, w, no_pos)
                    na += 1


@njit(cache=True, nogil=True, inline="always")
def _corners(p, stride, n):
    """Bit k set (k = 2 * (dy > 0) + (dx > 0)) when cell ``n`` has a convex corner of an
    obstacle towards ``(dx, dy)``: that diagonal neighbour blocked, the two cells between free."""
    out = 0
    for k in range(4):
        dx = 1 if (k & 1) else -1
        dy = stride if (k & 2) else -stride
        if p[n + dx + dy] == 0 and p[n + dx] != 0 and p[n + dy] != 0:
            out |= 1 << k
    return out


def _taut(ax: int, ay: int, bx: int, by: int, corners: int) -> bool:
    """Whether a shortest path may come in along ``(ax, ay)`` and leave along ``(bx, by)`` at a
    subgoal with ``corners``: the path turns round one of the corners (the blocked cell on the
    turning side of both legs, or in line with one), or the two legs make one octile-straight
    line (both in one cone between a cardinal and a neighbouring diagonal direction: same
    signs, same dominant axis or a diagonal leg)."""
    turn = ax * by - ay * bx
    if turn == 0:
        return ax * bx + ay * by > 0  # straight on (a reversal is never shortest)
    for k in range(4):
        if corners & (1 << k):
            ox = 1 if (k & 1) else -1
            oy = 1 if (k & 2) else -1
            if (ax * oy - ay * ox) * turn >= 0 and (bx * oy - by * ox) * turn >= 0:
                return True
    if ax * bx < 0 or ay * by < 0:
        return False
    aax = abs(ax)
    aay = abs(ay)
    abx = abs(bx)
    aby = abs(by)
    return (aax >= aay and abx >= aby) or (aay >= aax and aby >= abx)


def _direction(dx: int, dy: int) -> int:
    """The class of the direction ``(dx, dy)`` that decides :func:`_taut`: the signs of dx, dy
    and ``|dx| - |dy|`` (an index below 27)."""
    ax = abs(dx)
    ay = abs(dy)
    return ((int(dx > 0) - int(dx < 0) + 1) * 9 + (int(dy > 0) - int(dy < 0) + 1) * 3
            + int(ax > ay) - int(ax < ay) + 1)


_direction_jit = njit(cache=True, nogil=True, inline="always")(_direction)


def _taut_masks() -> npt.NDArray[np.uint32]:
    """``masks[corners, _direction(a)]`` (uint32): bit ``_direction(b)`` set when
    :func:`_taut` holds for ``a``, ``b`` and ``corners``; :func:`_taut` depends only on the
    two classes (a brute-force test checks it), so a search tests one bit per edge."""
    rep: dict[int, tuple[int, int]] = {}
    for dx in range(-2, 3):
        for dy in range(-2, 3):
            if dx or dy:
                rep.setdefault(_direction(dx, dy), (dx, dy))
    masks = np.zeros((16, 27), dtype=np.uint32)
    for corners in range(16):
        for ca, (ax, ay) in rep.items():
            for cb, (bx, by) in rep.items():
                if _taut(ax, ay, bx, by, corners):
                    masks[corners, ca] |= np.uint32(1 << cb)
    return masks


TAUT_MASKS = _taut_masks()
ANY_WAY = 27
"""The arrival class of a node reached with no way in (the start): every edge is taut."""
ARRIVAL_MASKS = np.hstack([TAUT_MASKS, np.full((16, 1), 0xFFFFFFFF, dtype=np.uint32)])
""":data:`TAUT_MASKS` with a column for :data:`ANY_WAY`."""


@njit(cache=True, nogil=True)
def _settle(t, off, cnt, adj, adir, corner):
    """Set the :data:`DEAD_END` flag of every entry into node ``t`` (each neighbour's entry for
    ``t``) as ``t``'s edges and corners now say. A flag depends only on those, so a repair
    settles every node whose edges or corners it changed."""
    bt = off[t]
    for i in range(cnt[t]):
        u = adj[bt + i] >> ID_SHIFT
        bu = off[u]
        for k in range(cnt[u]):
            if adj[bu + k] >> ID_SHIFT == t:
                cls = adir[bu + k] & CLASS_MASK
                allowed = np.int64(TAUT_MASKS[corner[t], cls])
                flag = DEAD_END
                for j in range(cnt[t]):
                    if (allowed >> (adir[bt + j] & CLASS_MASK)) & 1:
                        flag = 0
                        break
                adir[bu + k] = cls | flag
                break


@njit(cache=True, nogil=True, inline="always")
def _node_xy(v, node_x, node_y, m, x, y):
    """The cell of node ``v``; ``(x, y)`` for the virtual nodes (``v >= m``)."""
    if v < m:
        return np.int64(node_x[v]), np.int64(node_y[v])
    return np.int64(x), np.int64(y)


@njit(cache=True, nogil=True)
def _walk(p, stride, ax, ay, bx, by, diagonal_first, check, cells, n, steps):
    """Append the cells after ``(ax, ay)`` up to ``(bx, by)`` of an octile walk (diagonal steps
    first, or straight ones first) to ``cells`` (``(x, y)`` rows) from row ``n``, counting
    diagonal steps in ``steps[0]``; with ``check``, each step is checked (passable cells, no
    corner cut) and -1 returned for an invalid one. Returns the new row count."""
    dx = bx - ax
    dy = by - ay
    sx = 1 if dx > 0 else (-1 if dx < 0 else 0)
    sy = 1 if dy > 0 else (-1 if dy < 0 else 0)
    ndiag = min(abs(dx), abs(dy))
    nstr = max(abs(dx), abs(dy)) - ndiag
    tx = sx if abs(dx) > abs(dy) else 0
    ty = sy if abs(dy) > abs(dx) else 0
    x = ax
    y = ay
    cur = (ay + 1) * stride + ax + 1
    for phase in range(2):
        diag = (phase == 0) == diagonal_first
        count = ndiag if diag else nstr
        for _ in range(count):
            if diag:
                if check and (p[cur + sx] == 0 or p[cur + sy * stride] == 0):
                    return -1
                x += sx
                y += sy
                cur += sx + sy * stride
            else:
                x += tx
                y += ty
                cur += tx + ty * stride
            if check and p[cur] == 0:
                return -1
            cells[n, 0] = x
            cells[n, 1] = y
            n += 1
        if diag:
            steps[0] += count
    return n


@njit(cache=True, nogil=True, inline="always")
def _push(hk, hn, na, held, held_key, key, v, no_pos):
    """Add ``v`` with ``key`` to the open list: the heap ``hk``, ``hn`` of ``na`` entries and
    one held entry (``held`` -1: none) below every key in the heap, which the next pop takes
    without heap work (a search mostly goes on with the successor it just made). Returns
    ``(na, held, held_key)``."""
    if held >= 0 and key >= held_key:
        _sift_up(hk, hn, na, key, v, no_pos)
        return na + 1, held, held_key
    if held >= 0:
        _sift_up(hk, hn, na, held_key, held, no_pos)
        na += 1
    elif na > 0 and key >= hk[0]:
        _sift_up(hk, hn, na, key, v, no_pos)
        return na + 1, held, held_key
    return na, v, key


@njit(cache=True, nogil=True, inline="always")
def _nearest(node, found, n, node_x, node_y, m, x, y):
    """``node`` if it is a subgoal (below ``m``), else the one of ``found[:n]`` nearest to
    ``(x, y)`` (-1: none)."""
    if node < m:
        return node
    best = -1
    bd = np.inf
    for i in range(n):
        v = found[i]
        d = _octile(np.int64(node_x[v]), np.int64(node_y[v]), x, y)
        if d < bd:
            bd = d
            best = v
    return best


@njit(cache=True, nogil=True, inline="always")
def _failed(expanded):
    """The result of a query the graph did not answer."""
    return (FAILED, _readonly(np.zeros((0, 2), dtype=np.int64)),
            _readonly(np.zeros((0, 2), dtype=np.float64)), np.inf, expanded)


@njit(cache=True, nogil=True)
def query(p, stride, sg, clear, node_x, node_y, corner, off, cnt, adj, adir, lm, lm_by_node, lmuse, active,
          taut, sx, sy, gx, gy, rec, stamp, hk, hn, scratch, ox, oy, size, y_up, height):
    """One query from ``(sx, sy)`` to ``(gx, gy)`` (both passable, connected, different).

    Start and goal are joined to their direct-h-reachable subgoals (each scan also looks for the
    other end; a start that sees the goal skips the rest), A* (a binary heap with duplicates)
    runs on the graph, and every edge is refined by an octile walk (diagonal steps first, else
    straight steps first). With ``taut``, a node's edges are those taut after its way in, and
    :data:`DEAD_END` entries are skipped unless they lead to the goal or a node its scan found.
    The heuristic is the largest of the octile distance and the landmark
    bounds (:func:`_h`) of the ``active`` rows among ``lmuse`` of ``lm`` whose distances to the
    subgoals nearest to start and goal differ most (none: octile only), read for that choice
    from ``lm_by_node`` (the same entries, ``(nodes, landmarks)``: two rows instead of a
    scattered read per landmark). The workspace: ``rec`` (see :data:`MARK`) has a row for each
    of ``node_x.shape[0] + 2`` nodes; the heap ``hk``, ``hn`` room for one push per edge entry
    (``adj`` used) plus twice the length of ``scratch`` (int64, room for ``8 + 8 * (rows +
    stride)`` scan results); ``stamp`` (>= 1) is new for each query (no key holds it).

    Returns:
        ``(status, cells, points, cost, expanded)``: FOUND with read-only ``(n, 2)`` int64
        cells, their world centres (:func:`gamenav._kernels.grid_fast.world_points` with the
        grid's transform ``ox, oy, size, y_up, height``) and their cost, or FAILED with empty
        arrays.
    """
    m = node_x.shape[0]
    tag = np.int64(stamp) << 32
    recf = rec.view(np.float64)
    s_virtual = m
    g_virtual = m + 1
    start = (sy + 1) * stride + sx + 1
    goal = (gy + 1) * stride + gx + 1
    s_node = sg[start] if sg[start] >= 0 else s_virtual
    t_node = sg[goal] if sg[goal] >= 0 else g_virtual
    out = scratch
    b = np.empty(4, dtype=np.int64)
    ns = _scan(sg, stride, clear, start, goal, out, b)
    from_start = out[:ns].copy()
    direct = False
    for i in range(ns):
        if from_start[i] == TARGET:
            direct = True
    ng = 0
    if not direct:
        ng = _scan(sg, stride, clear, goal, start, out, b)
        for i in range(ng):
            if out[i] == TARGET:
                direct = True
    expanded = 0
    found = direct
    if not direct:
        # the ``active`` landmarks that tell the subgoals nearest to start and goal apart best
        na_ = _nearest(s_node, from_start, ns, node_x, node_y, m, sx, sy)
        nb_ = _nearest(t_node, out, ng, node_x, node_y, m, gx, gy)
        k = lmuse.shape[0]
        score = np.zeros(k)
        if na_ >= 0 and nb_ >= 0 and active < k:
            for j in range(k):
                score[j] = abs(_lm_dist(lm_by_node[na_, lmuse[j]]) - _lm_dist(lm_by_node[nb_, lmuse[j]]))
        use = lmuse[np.argsort(-score)[:active]]  # (NaN, no bound, last)
        # their bounds of the goal's distance from each landmark
        use_lo = np.empty(use.shape[0], dtype=np.float64)
        use_hi = np.empty(use.shape[0], dtype=np.float64)
        for j in range(use.shape[0]):
            c = use[j]
            if t_node < m:
                use_lo[j] = _lm_dist(lm[c, t_node])
                use_hi[j] = use_lo[j]
            else:
                use_lo[j] = -np.inf
                use_hi[j] = np.inf
                for i in range(ng):
                    v = out[i]
                    d = _lm_dist(lm[c, v])
                    o = _octile(np.int64(node_x[v]), np.int64(node_y[v]), gx, gy)
                    use_lo[j] = max(use_lo[j], d - o)
                    use_hi[j] = min(use_hi[j], d + o)
        for i in range(ng):  # the goal's subgoals: marked, h known
            v = out[i]
            rec[v, 0] = tag | MARK
            recf[v, 2] = np.inf
            recf[v, 3] = _h(v, np.int64(node_x[v]), np.int64(node_y[v]), gx, gy, lm, use,
                            use_lo, use_hi)
        _reach(s_node, 0.0, -1, rec, recf, tag)
        rec[s_node, 0] |= ANY_WAY << ARRIVAL_SHIFT
        no_pos = np.empty(0, dtype=np.int64)  # a heap with duplicates: no position index
        na = 0
        held = s_node  # the best entry, kept out of the heap (see _push)
        held_key = 0.0
        while held >= 0 or na > 0:
            if held >= 0:
                u = held
                held = -1
            else:
                u = hn[0]
                na = _sift_down(hk, hn, na, no_pos)
            ku = rec[u, 0]
            if ku & 3 == CLOSED:
                continue  # an older copy
            rec[u, 0] = ku ^ (OPEN | CLOSED)
            expanded += 1
            if u == t_node:
                found = True
                break
            gu = recf[u, 2]
            if u < m:
                ux = np.int64(node_x[u])
                uy = np.int64(node_y[u])
                allowed = np.int64(-1)  # the directions taut after the way in (bits)
                if taut:
                    allowed = np.int64(ARRIVAL_MASKS[corner[u], (ku >> ARRIVAL_SHIFT) & CLASS_MASK])
                base = off[u]
                for i in range(cnt[u]):
                    a = adir[base + i]
                    if not (allowed >> (a & CLASS_MASK)) & 1:
                        continue
                    e = adj[base + i]
                    v = e >> ID_SHIFT
                    kv = rec[v, 0]
                    if (taut and a & DEAD_END and v != t_node
                            and (kv & TAG_MASK != tag or kv & MARK == 0)):
                        continue  # v leads nowhere after u, and not to the goal
                    vx = (e >> X_SHIFT) & COORD_MASK
                    vy = (e >> 2) & COORD_MASK
                    nd = gu + _octile(ux, uy, vx, vy)
                    if kv & TAG_MASK == tag:
                        if (kv & 3) == CLOSED or nd >= recf[v, 2]:
                            continue  # closed, or open at no more
                        hv = recf[v, 3]
                    else:
                        kv = tag
                        hv = _h(v, vx, vy, gx, gy, lm, use, use_lo, use_hi)
                        recf[v, 3] = hv
                    recf[v, 2] = nd
                    rec[v, 1] = u
                    rec[v, 0] = ((kv & MARK) | tag | OPEN | (STRAIGHT_FIRST >> (e & 1))
                                 | np.int64(a & CLASS_MASK) << ARRIVAL_SHIFT)
                    ov = off[v]  # v's edges, read if v is expanded (mostly soon: the path's chain)
                    prefetch(adir, ov)
                    prefetch(adj, ov)
                    prefetch(adj, ov + 7)
                    na, held, held_key = _push(hk, hn, na, held, held_key,
                                               nd + hv - TIE * nd, v, no_pos)
                if ku & MARK:
                    nd = gu + _octile(ux, uy, gx, gy)
                    if _reach(t_node, nd, u, rec, recf, tag):
                        na, held, held_key = _push(hk, hn, na, held, held_key, nd - TIE * nd,
                                                   t_node, no_pos)
            else:
                ux = np.int64(sx)
                uy = np.int64(sy)
            if u == s_node:
                for i in range(ns):
                    v = from_start[i]
                    vx = np.int64(node_x[v])
                    vy = np.int64(node_y[v])
                    nd = gu + _octile(ux, uy, vx, vy)
                    if _reach(v, nd, u, rec, recf, tag):
                        rec[v, 0] |= np.int64(_direction_jit(int(vx - ux), int(vy - uy))) << ARRIVAL_SHIFT
                        if rec[v, 0] & MARK == 0:
                            recf[v, 3] = _h(v, vx, vy, gx, gy, lm, use, use_lo, use_hi)
                        na, held, held_key = _push(hk, hn, na, held, held_key,
                                                   nd + recf[v, 3] - TIE * nd, v, no_pos)
    if not found:
        return _failed(expanded)
    # the node path, start first
    count = 2 if direct else 1
    if not direct:
        v = t_node
        while v != s_node:
            count += 1
            v = rec[v, 1]
    nodes = np.empty(count, dtype=np.int64)
    nodes[0] = s_node
    v = t_node
    for i in range(count - 1, 0, -1):
        nodes[i] = v
        v = rec[v, 1]
    length = 1
    for i in range(1, count):
        ax, ay = _node_xy(nodes[i - 1], node_x, node_y, m, sx, sy)
        bx, by = _node_xy(nodes[i], node_x, node_y, m, gx, gy)
        if i == count - 1:
            bx, by = gx, gy
        length += max(abs(ax - bx), abs(ay - by))
    result = np.empty((length, 2), dtype=np.int64)
    result[0, 0] = sx
    result[0, 1] = sy
    steps = np.zeros(1, dtype=np.int64)
    n = 1
    ax, ay = np.int64(sx), np.int64(sy)
    for i in range(1, count):
        a = nodes[i - 1]
        c = nodes[i]
        bx, by = _node_xy(c, node_x, node_y, m, gx, gy)
        if i == count - 1:
            bx, by = gx, gy
        # which walk the scans vouch for: the start's scan and u's scan go diagonal steps
        # first from their cell; the goal's scan and v's scan straight steps first from u
        how = 0
        if i == 1:
            for j in range(ns):
                if from_start[j] == c or (from_start[j] == TARGET and i == count - 1):
                    how = 1
        if how == 0 and i == count - 1 and (direct or (a < m and rec[a, 0] & MARK)):
            how = 2
        if how == 0 and a < m and c < m:  # the edge the search took: its bits say whose scan
            way = rec[c, 0] & (DIAGONAL_FIRST | STRAIGHT_FIRST)
            how = 1 if way == DIAGONAL_FIRST else (2 if way == STRAIGHT_FIRST else 0)
        if how != 0:
            n2 = _walk(p, stride, ax, ay, bx, by, how == 1, False, result, n, steps)
        else:  # not expected: try both, checking each step
            n2 = _walk(p, stride, ax, ay, bx, by, True, True, result, n, steps)
            if n2 < 0:
                n2 = _walk(p, stride, ax, ay, bx, by, False, True, result, n, steps)
        if n2 < 0:
            return _failed(expanded)
        n = n2
        ax, ay = bx, by
    diagonal = steps[0]
    straight = n - 1 - diagonal
    return (FOUND, _readonly(result), world_points(result, ox, oy, size, y_up, height),
            straight + SQRT2 * diagonal, expanded)
