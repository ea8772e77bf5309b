"""HPA* kernels (Botea, Mueller & Schaeffer 2004): cluster entrances, exact intra-cluster edges
with their shortest-path trees, and one query (abstract A*, refinement, smoothing).

Layout: the padded flat grid of :mod:`gamenav._kernels.grid_search` (node
``n = (y + 1) * stride + (x + 1)``, ``p`` ``(N,)`` uint8 passable with a blocked border). Cells
are ``(x, y)`` with ``0 <= x < w``, ``0 <= y < h``; cluster ``c = cy * ncx + cx`` covers
``x0 = cx * C <= x < min(x0 + C, w)`` and the same in y. Movement: 8-connected, diagonal steps
cost sqrt(2) and need both orthogonally adjacent cells passable (no corner cutting); every cell
costs 1.

Abstract graph (arrays owned by ``gamenav.grid.hpa``):

* ``node_of`` ``(N,)`` int32: the node id of a transition cell, -1 elsewhere.
* per cluster ``cstart``, ``ccount``, ``ccap`` (int64): its nodes are ids
  ``cstart[c] .. cstart[c] + ccount[c] - 1`` (room for ``ccap[c]``), in increasing cell order;
  ``node_cell`` ``(M,)`` int64 gives their padded cell.
* ``full[doff[c] + i * ccap[c] + j]``: the length of the shortest path from node i to node j
  of cluster c that stays inside c (inf: none); ``dist`` (same layout): the same, but inf also
  when two such edges through a third node of c are as short (the abstract distances stay
  exact with fewer edges).
* ``tree[toff[c] + i * _tree_area(cw, ch) + _tiled(x - x0, y - y0, cw)]``: the shortest-path tree
  of node i inside c: the direction (index into :data:`DX`, :data:`DY`) of each cell's parent,
  the first direction to a neighbour on one of the cell's shortest ways (so the tree depends
  on the cells only, and a repair can match a build: :func:`_repair_tree`), 255 for the root
  and cells not reached; stored in 8 x 8 tiles (see :func:`_tiled`). ``cw =
  min(C, w)``, ``ch = min(C, h)``: the largest cluster's extent (a cluster size beyond the map
  takes no room beyond it).
* ``node_xy[v]`` (int64): x, y and cluster of node v (read instead of dividing ``node_cell``).
* ``inter[v, :]`` (int64, -1 after the last) and ``inter_cost[v, :]``: the border steps of
  node v: every transition cell of another cluster that is a neighbour (a valid step:
  orthogonal, cost 1, or diagonal without cutting a corner, sqrt(2)); at most 5 (a corner cell).

Entrances: on each border between two clusters, a maximal run of rows (columns) where the cells
on both sides are passable; its transition cells are both ends and every ``spacing`` cells
between them, on both sides.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

SQRT2 = math.sqrt(2.0)
DX = np.array([1, -1, 0, 0, 1, 1, -1, -1], dtype=np.int64)
DY = np.array([0, 0, 1, -1, -1, 1, -1, 1], dtype=np.int64)
NO_PARENT = 255

FOUND = 1
NOT_CONNECTED = 2
"""The abstract search did not reach the goal (the caller runs A* instead)."""


@njit(cache=True, nogil=True, inline="always")
def _sift_up(hk, hn, i, key, node, pos):
    """Place ``node`` with ``key`` at slot ``i`` of the binary min-heap ``hk`` / ``hn`` and move
    it up; with a position index (``pos`` non-empty; empty: none) every moved node's slot is
    kept there."""
    track = pos.shape[0] > 0
    while i > 0:
        up = (i - 1) >> 1
        if hk[up] <= key:
            break
        hk[i] = hk[up]
        hn[i] = hn[up]
        if track:
            pos[hn[i]] = i
        i = up
    hk[i] = key
    hn[i] = node
    if track:
        pos[node] = i


@njit(cache=True, nogil=True, inline="always")
def _sift_down(hk, hn, size, pos):
    """Remove the heap's top (the caller read it) from a heap of ``size`` entries, keeping
    ``pos`` as :func:`_sift_up` does; returns the new size."""
    track = pos.shape[0] > 0
    size -= 1
    if size > 0:
        key = hk[size]
        node = hn[size]
        i = 0
        while True:
            child = 2 * i + 1
            if child >= size:
                break
            if child + 1 < size and hk[child + 1] < hk[child]:
                child += 1
            if hk[child] >= key:
                break
            hk[i] = hk[child]
            hn[i] = hn[child]
            if track:
                pos[hn[i]] = i
            i = child
        hk[i] = key
        hn[i] = node
        if track:
            pos[node] = i
    return size


@njit(cache=True, nogil=True, inline="always")
def _tiled(lx, ly, cw):
    """Index of local cell ``(lx, ly)`` in a tree of clusters ``cw`` cells wide: 8 x 8 tiles (64
    bytes: one cache line) in row order, cells in row order inside a tile, so a walk up a tree
    touches a new cache line about every 8 steps instead of every row."""
    return ((((ly >> 3) * ((cw + 7) >> 3)) + (lx >> 3)) << 6) + ((ly & 7) << 3) + (lx & 7)


@njit(cache=True, nogil=True, inline="always")
def _tree_area(cw, ch):
    """Entries of one tree of a ``cw`` x ``ch`` cluster (whole 8 x 8 tiles)."""
    return ((cw + 7) >> 3) * ((ch + 7) >> 3) * 64


@njit(cache=True, nogil=True)
def _local_dijkstra(p, stride, cw, x0, y0, x1, y1, src, dist, tree, hk, hn):
    """Shortest paths from cell ``src`` (padded flat) to every cell of the box
    ``[x0, x1) x [y0, y1)`` (at most ``cw`` cells wide) without leaving it: ``dist`` indexed by
    local cell ``(y - y0) * cw + (x - x0)``, ``tree`` by :func:`_tiled`. Returns the number of
    cells settled."""
    dx = DX
    dy = DY
    for i in range(dist.shape[0]):
        dist[i] = np.inf
    for i in range(tree.shape[0]):
        tree[i] = NO_PARENT
    sx = src % stride - 1
    sy = src // stride - 1
    ls = (sy - y0) * cw + (sx - x0)
    dist[ls] = 0.0
    no_pos = np.empty(0, dtype=np.int32)  # a heap with duplicates: no position index
    _sift_up(hk, hn, 0, 0.0, ls, no_pos)
    n = 1
    settled = 0
    while n > 0:
        d = hk[0]
        loc = hn[0]
        n = _sift_down(hk, hn, n, no_pos)
        if d > dist[loc]:
            continue
        settled += 1
        ly = loc // cw
        lx = loc - ly * cw
        x = lx + x0
        y = ly + y0
        cell = (y + 1) * stride + x + 1
        for k in range(8):
            nx = x + dx[k]
            ny = y + dy[k]
            if nx < x0 or nx >= x1 or ny < y0 or ny >= y1:
                continue
            q = cell + dy[k] * stride + dx[k]
            if p[q] == 0:
                continue
            step = 1.0
            if k >= 4:
                if p[cell + dx[k]] == 0 or p[cell + dy[k] * stride] == 0:
                    continue
                step = SQRT2
            nd = d + step
            lq = loc + dy[k] * cw + dx[k]
            if nd < dist[lq]:
                dist[lq] = nd
                # the direction back to the parent
                tree[_tiled(nx - x0, ny - y0, cw)] = k ^ 1 if k < 4 else 11 - k
                _sift_up(hk, hn, n, nd, lq, no_pos)
                n += 1
    return settled


@njit(cache=True, nogil=True)
def _border(p, stride, fixed, lo, hi, vertical, other, spacing, single, out, n):
    """Append the transition cells of one border side to ``out`` (from ``n``): ``vertical``:
    cells ``(fixed, y)`` for ``lo <= y < hi`` facing ``(other, y)``; else ``(x, fixed)`` facing
    ``(x, other)``."""
    run = -1
    for t in range(lo, hi + 1):
        open_ = False
        if t < hi:
            if vertical:
                open_ = p[(t + 1) * stride + fixed + 1] != 0 and p[(t + 1) * stride + other + 1] != 0
            else:
                open_ = p[(fixed + 1) * stride + t + 1] != 0 and p[(other + 1) * stride + t + 1] != 0
        if open_ and run < 0:
            run = t
        elif not open_ and run >= 0:
            last = t - 1
            s = run
            if last - run < single:  # a short entrance: its middle cell only
                s = (run + last) // 2
                last = s
            while True:
                cell = (s + 1) * stride + fixed + 1 if vertical else (fixed + 1) * stride + s + 1
                out[n] = cell
                n += 1
                if s == last:
                    break
                s = min(s + spacing, last)
            run = -1
    return n


@njit(cache=True, nogil=True)
def cluster_nodes(p, stride, h, w, size, clusters, spacing, single, out, counts):
    """Transition cells of each listed cluster: ``out[i, :counts[i]]`` sorted padded cells
    (``out`` has at least ``2 * (cw + ch)`` columns)."""
    ncx = (w + size - 1) // size
    for i in range(clusters.shape[0]):
        c = clusters[i]
        cy = c // ncx
        cx = c - cy * ncx
        x0 = cx * size
        y0 = cy * size
        x1 = min(x0 + size, w)
        y1 = min(y0 + size, h)
        row = out[i]
        n = 0
        if x1 < w:
            n = _border(p, stride, x1 - 1, y0, y1, True, x1, spacing, single, row, n)
        if x0 > 0:
            n = _border(p, stride, x0, y0, y1, True, x0 - 1, spacing, single, row, n)
        if y1 < h:
            n = _border(p, stride, y1 - 1, x0, x1, False, y1, spacing, single, row, n)
        if y0 > 0:
            n = _border(p, stride, y0, x0, x1, False, y0 - 1, spacing, single, row, n)
        row[:n].sort()
        m = 0
        for j in range(n):  # corner cells may come from two borders
            if m == 0 or row[j] != row[m - 1]:
                row[m] = row[j]
                m += 1
        counts[i] = m


# rows of the tree repair's scratch (see :func:`_repair_tree`), one column per local cell
_OLD, _OS, _OD, _NEW, _NS, _ND, _SEEN, _BAD, _MARK, _LIST, _BADS, _PLIST, _DIR, _STACK = range(14)


@njit(cache=True, nogil=True, inline="always")
def _step_ok(p, cell, k, stride):
    """Whether the step from padded ``cell`` in direction ``k`` enters a passable cell without
    cutting a corner."""
    if p[cell + DY[k] * stride + DX[k]] == 0:
        return False
    return k < 4 or (p[cell + DX[k]] != 0 and p[cell + DY[k] * stride] != 0)


@njit(cache=True, nogil=True, inline="always")
def _length(s, d):
    """The length of ``s`` straight and ``d`` diagonal steps (inf for ``s < 0``: no way)."""
    return np.inf if s < 0 else s + SQRT2 * d


@njit(cache=True, nogil=True, inline="always")
def _old_dist(tree, cw, root, loc, sc, stamp):
    """Straight and diagonal steps of local cell ``loc``'s way to ``root`` in ``tree`` as it
    was before the repair (``(-1, 0)``: not reached), remembered in ``sc`` for ``stamp``."""
    n = 0
    c = loc
    while sc[_OLD, c] != stamp:
        ly = c // cw
        k = tree[_tiled(c - ly * cw, ly, cw)]
        if k == NO_PARENT:  # the root, or a cell not reached
            sc[_OLD, c] = stamp
            sc[_OS, c] = 0 if c == root else -1
            sc[_OD, c] = 0
            break
        sc[_STACK, n] = c
        n += 1
        c += DY[k] * cw + DX[k]
    s = sc[_OS, c]
    d = sc[_OD, c]
    for i in range(n - 1, -1, -1):  # back down the way: each cell one step beyond its parent
        v = sc[_STACK, i]
        if s >= 0:
            ly = v // cw
            if tree[_tiled(v - ly * cw, ly, cw)] < 4:
                s += 1
            else:
                d += 1
        sc[_OLD, v] = stamp
        sc[_OS, v] = s
        sc[_OD, v] = d
    return sc[_OS, loc], sc[_OD, loc]


@njit(cache=True, nogil=True, inline="always")
def _cur_dist(tree, cw, root, loc, sc, stamp):
    """Straight and diagonal steps of local cell ``loc``'s shortest way to the root as the
    repair knows it now (``(-1, 0)``: none)."""
    if sc[_NEW, loc] == stamp:
        return sc[_NS, loc], sc[_ND, loc]
    if sc[_BAD, loc] == stamp:
        return -1, 0
    return _old_dist(tree, cw, root, loc, sc, stamp)


@njit(cache=True, nogil=True, inline="always")
def _set_new(sc, loc, s, d, stamp, n):
    """Give ``loc`` a shorter way; returns the new length of the list of such cells."""
    if sc[_NEW, loc] != stamp:
        sc[_NEW, loc] = stamp
        sc[_LIST, n] = loc
        n += 1
    sc[_NS, loc] = s
    sc[_ND, loc] = d
    return n


@njit(cache=True, nogil=True)
def _repair_tree(p, stride, cw, x0, y0, bw, bh, root, tree, rx0, ry0, rx1, ry1, fresh, sc, hk,
                 hn, stamp):
    """Bring ``tree``, the shortest-path tree of local cell ``root`` in the ``bw`` x ``bh``
    cluster at ``(x0, y0)``, to the grid ``p``, whose steps changed only between cells of the
    local box ``[rx0, rx1) x [ry0, ry1)``; ``fresh``: ``tree`` holds no cell yet (all
    :data:`NO_PARENT`) and is built whole.

    Distances are counts of straight and diagonal steps (exact: their lengths never tie for
    different counts in a cluster), and a cell's parent is the first direction (:data:`DX`,
    :data:`DY` order) to a neighbour on one of its shortest ways: the tree depends on the grid
    only, so a repaired tree equals a fresh one. A cell whose step to its parent is gone keeps
    its distance if another neighbour gives it (checked by increasing distance), else loses it
    and its children are checked; the changed box and the cells that lost their distance take
    their neighbours' best step, a Dijkstra spreads the shorter ways (choosing the parents of
    the cells it settles), then the other cells whose parent may have changed choose again.
    ``sc`` (rows ``_OLD`` .. ``_STACK``, one column per local cell) holds nothing of ``stamp``.

    Returns:
        ``n``: the cells ``sc[_LIST, :n]`` got new distances (``sc[_NEW]`` is ``stamp``;
        ``_NS``, ``_ND`` their steps); cells ``sc[_BAD] == stamp`` outside it lost theirs.
    """
    n = 0
    na = 0
    nbad = 0
    m = 0  # cells whose parent is chosen again: sc[_PLIST, :m], marked in sc[_MARK]
    no_pos = np.empty(0, dtype=np.int32)  # heaps with duplicates: no position index
    if fresh:
        n = _set_new(sc, root, 0, 0, stamp, n)
        _sift_up(hk, hn, 0, 0.0, root, no_pos)
        na = 1
    else:
        # the cells whose step to their parent is gone, by increasing distance
        for ly in range(ry0, ry1):
            for lx in range(rx0, rx1):
                k = tree[_tiled(lx, ly, cw)]
                cell = (y0 + ly + 1) * stride + x0 + lx + 1
                if k != NO_PARENT and (p[cell] == 0 or not _step_ok(p, cell, k, stride)):
                    loc = ly * cw + lx
                    s, d = _old_dist(tree, cw, root, loc, sc, stamp)
                    sc[_SEEN, loc] = stamp
                    _sift_up(hk, hn, na, _length(s, d), loc, no_pos)
                    na += 1
        kids = np.empty(8, dtype=np.int64)
        while na > 0:
            loc = hn[0]
            na = _sift_down(hk, hn, na, no_pos)
            ly = loc // cw
            lx = loc - ly * cw
            cell = (y0 + ly + 1) * stride + x0 + lx + 1
            s = sc[_OS, loc]
            d = sc[_OD, loc]
            kept = False
            nkids = 0
            for k in range(8):
                nx = lx + DX[k]
                ny = ly + DY[k]
                q = loc + DY[k] * cw + DX[k]
                if nx < 0 or nx >= bw or ny < 0 or ny >= bh:
                    continue
                if tree[_tiled(nx, ny, cw)] == (k ^ 1 if k < 4 else 11 - k):  # a child
                    if sc[_SEEN, q] != stamp:
                        kids[nkids] = q
                        nkids += 1
                    continue
                if p[cell] == 0 or sc[_BAD, q] == stamp or not _step_ok(p, cell, k, stride):
                    continue
                qs, qd = _old_dist(tree, cw, root, q, sc, stamp)
                if qs >= 0 and (qs + 1 == s and qd == d if k < 4 else qs == s and qd + 1 == d):
                    kept = True
                    break
            if kept:  # same distance, maybe another parent
                sc[_MARK, loc] = stamp
                sc[_PLIST, m] = loc
                m += 1
                continue
            sc[_BAD, loc] = stamp
            sc[_BADS, nbad] = loc
            nbad += 1
            for i in range(nkids):  # its children are checked next
                q = kids[i]
                qs, qd = _old_dist(tree, cw, root, q, sc, stamp)
                sc[_SEEN, q] = stamp
                _sift_up(hk, hn, na, _length(qs, qd), q, no_pos)
                na += 1
        # the changed box and the cells that lost their distance take their neighbours' best
        bx = rx1 - rx0
        nbox = (ry1 - ry0) * bx
        for j in range(nbox + nbad):
            if j < nbox:
                ly = ry0 + j // bx
                lx = rx0 + j % bx
                loc = ly * cw + lx
            else:
                loc = sc[_BADS, j - nbox]
                ly = loc // cw
                lx = loc - ly * cw
            cell = (y0 + ly + 1) * stride + x0 + lx + 1
            if p[cell] == 0 or sc[_NEW, loc] == stamp:
                continue
            s, d = _cur_dist(tree, cw, root, loc, sc, stamp)
            now = _length(s, d)
            best = now
            for k in range(8):  # the ways before the repair (the Dijkstra spreads new ones)
                nx = lx + DX[k]
                ny = ly + DY[k]
                q = loc + DY[k] * cw + DX[k]
                if (nx < 0 or nx >= bw or ny < 0 or ny >= bh or sc[_BAD, q] == stamp
                        or not _step_ok(p, cell, k, stride)):
                    continue
                qs, qd = _old_dist(tree, cw, root, q, sc, stamp)
                if qs < 0:
                    continue
                if k < 4:
                    qs += 1
                else:
                    qd += 1
                if _length(qs, qd) < best:
                    best = _length(qs, qd)
                    s = qs
                    d = qd
            if best < now:
                n = _set_new(sc, loc, s, d, stamp, n)
                _sift_up(hk, hn, na, best, loc, no_pos)
                na += 1
    # Dijkstra from the cells with shorter ways; a cell's parent is chosen when it is settled
    # (its neighbours with shorter ways are settled then)
    while na > 0:
        key = hk[0]
        loc = hn[0]
        na = _sift_down(hk, hn, na, no_pos)
        s = sc[_NS, loc]
        d = sc[_ND, loc]
        if key > _length(s, d):
            continue
        ly = loc // cw
        lx = loc - ly * cw
        cell = (y0 + ly + 1) * stride + x0 + lx + 1
        parent = NO_PARENT
        for k in range(8):
            nx = lx + DX[k]
            ny = ly + DY[k]
            if nx < 0 or nx >= bw or ny < 0 or ny >= bh or not _step_ok(p, cell, k, stride):
                continue
            q = loc + DY[k] * cw + DX[k]
            qs = s + 1 if k < 4 else s
            qd = d if k < 4 else d + 1
            ts, td = _cur_dist(tree, cw, root, q, sc, stamp)
            if parent == NO_PARENT and ts >= 0 and (ts + 1 == s and td == d if k < 4
                                                    else ts == s and td + 1 == d):
                parent = k
            elif _length(qs, qd) < _length(ts, td):
                n = _set_new(sc, q, qs, qd, stamp, n)
                _sift_up(hk, hn, na, _length(qs, qd), q, no_pos)
                na += 1
            elif qs == ts and qd == td and sc[_NEW, q] != stamp and sc[_MARK, q] != stamp:
                sc[_MARK, q] = stamp  # as short through this cell as before: a new parent?
                sc[_PLIST, m] = q
                m += 1
        sc[_DIR, loc] = parent
    # the other cells whose parent may change: the changed box and the cells that lost their
    # distance (and, listed above, those kept their distance: other parent, or a new way as short)
    for j in range(nbad + (ry1 - ry0) * (rx1 - rx0)):
        if j < nbad:
            loc = sc[_BADS, j]
        else:
            b = j - nbad
            loc = (ry0 + b // (rx1 - rx0)) * cw + rx0 + b % (rx1 - rx0)
        if sc[_MARK, loc] != stamp and sc[_NEW, loc] != stamp:
            sc[_MARK, loc] = stamp
            sc[_PLIST, m] = loc
            m += 1
    for j in range(m):
        loc = sc[_PLIST, j]
        ly = loc // cw
        lx = loc - ly * cw
        cell = (y0 + ly + 1) * stride + x0 + lx + 1
        s, d = _cur_dist(tree, cw, root, loc, sc, stamp)
        parent = NO_PARENT
        if s >= 0 and loc != root and p[cell] != 0:
            for k in range(8):
                nx = lx + DX[k]
                ny = ly + DY[k]
                if nx < 0 or nx >= bw or ny < 0 or ny >= bh or not _step_ok(p, cell, k, stride):
                    continue
                qs, qd = _cur_dist(tree, cw, root, loc + DY[k] * cw + DX[k], sc, stamp)
                if qs >= 0 and (qs + 1 == s and qd == d if k < 4 else qs == s and qd + 1 == d):
                    parent = k
                    break
        sc[_DIR, loc] = parent
    for j in range(m + n):  # only now: the old tree answered every question above
        loc = sc[_PLIST, j] if j < m else sc[_LIST, j - m]
        ly = loc // cw
        tree[_tiled(loc - ly * cw, ly, cw)] = sc[_DIR, loc]
    return n


@njit(cache=True, nogil=True)
def cluster_edges(p, stride, h, w, size, clusters, relink, box, old_cell, old_start, old_tree,
                  old_full, node_of, cstart, ccount, ccap, node_cell, doff, dist, full, toff,
                  tree, inter, inter_cost):
    """Exact intra-cluster distances and shortest-path trees of every node of the listed
    ``clusters``, then the border steps (``inter``, ``inter_cost``) of every node of the
    ``relink`` clusters (see the module docstring).

    The grid changed only inside ``box`` (``x0, y0, x1, y1``, cells ``x0 <= x < x1``): a node
    that the cluster had before, ``old_cell[old_start[i]:old_start[i + 1]]`` for cluster
    ``clusters[i]``, starts from its old tree (``old_tree``, ``tree_area`` bytes per node in the
    same order) and its old row of unpruned distances (``old_full``, a ``k`` x ``k`` block per
    cluster), and is repaired (:func:`_repair_tree`); a new node is built whole. Returns the
    number of cells whose distance was computed."""
    ncx = (w + size - 1) // size
    cw, ch = min(size, w), min(size, h)  # the largest cluster's extent
    area = cw * ch
    tarea = _tree_area(cw, ch)
    sc = np.zeros((_STACK + 1, area), dtype=np.int32)
    hk = np.empty(10 * area + 8, dtype=np.float64)
    hn = np.empty(10 * area + 8, dtype=np.int64)
    stamp = 0
    settled = 0
    fo = 0
    for i in range(clusters.shape[0]):
        c = clusters[i]
        cy = c // ncx
        cx = c - cy * ncx
        x0 = cx * size
        y0 = cy * size
        bw = min(x0 + size, w) - x0
        bh = min(y0 + size, h) - y0
        # the cells of the cluster whose steps changed: the box and one cell round it
        rx0 = min(max(box[0] - 1 - x0, 0), bw)
        ry0 = min(max(box[1] - 1 - y0, 0), bh)
        rx1 = max(min(box[2] + 1 - x0, bw), rx0)
        ry1 = max(min(box[3] + 1 - y0, bh), ry0)
        k = ccount[c]
        cap = ccap[c]
        base = cstart[c]
        oo = old_start[i]
        ko = old_start[i + 1] - oo
        old = np.full(k, -1, dtype=np.int64)  # each node's index among the old ones
        for a in range(k):
            for j in range(ko):
                if old_cell[oo + j] == node_cell[base + a]:
                    old[a] = j
        for a in range(k):
            t = tree[toff[c] + a * tarea: toff[c] + (a + 1) * tarea]
            j = old[a]
            if j >= 0:
                t[:] = old_tree[(oo + j) * tarea: (oo + j + 1) * tarea]
            else:
                t[:] = NO_PARENT
            q = node_cell[base + a]
            root = (q // stride - 1 - y0) * cw + (q % stride - 1 - x0)
            stamp += 1
            if j >= 0:
                settled += _repair_tree(p, stride, cw, x0, y0, bw, bh, root, t, rx0, ry0, rx1,
                                        ry1, False, sc, hk, hn, stamp)
            else:
                settled += _repair_tree(p, stride, cw, x0, y0, bw, bh, root, t, 0, 0, 0, 0, True,
                                        sc, hk, hn, stamp)
            for b in range(k):
                q = node_cell[base + b]
                lq = (q // stride - 1 - y0) * cw + (q % stride - 1 - x0)
                if sc[_NEW, lq] != stamp and sc[_BAD, lq] != stamp and j >= 0 and old[b] >= 0:
                    d = old_full[fo + j * ko + old[b]]  # the way did not change
                else:
                    qs, qd = _cur_dist(t, cw, root, lq, sc, stamp)
                    d = _length(qs, qd)
                full[doff[c] + a * cap + b] = d
                dist[doff[c] + a * cap + b] = d
        fo += ko * ko
        # drop every edge that two edges through a third node match: abstract distances stay
        # exact (by induction on the distance), and the search relaxes fewer edges (rows read
        # in order: each third node m in turn)
        for a in range(k):
            ra = doff[c] + a * cap
            for m in range(k):
                dam = full[ra + m]
                if m == a or dam == np.inf:
                    continue
                rm = doff[c] + m * cap
                for b in range(a + 1, k):
                    if b != m and dam + full[rm + b] <= full[ra + b] + 1e-9:
                        dist[ra + b] = np.inf
                        dist[doff[c] + b * cap + a] = np.inf
    for i in range(relink.shape[0]):
        c = relink[i]
        for v in range(cstart[c], cstart[c] + ccount[c]):
            cell = node_cell[v]
            ux = cell % stride - 1
            uy = cell // stride - 1
            n = 0
            for k in range(8):
                q = cell + DY[k] * stride + DX[k]
                u = node_of[q]
                if u < 0 or ((uy + DY[k]) // size) * ncx + (ux + DX[k]) // size == c:
                    continue
                d = 1.0
                if k >= 4:
                    if p[cell + DX[k]] == 0 or p[cell + DY[k] * stride] == 0:
                        continue
                    d = SQRT2
                inter[v, n] = u
                inter_cost[v, n] = d
                n += 1
            for j in range(n, inter.shape[1]):
                inter[v, j] = -1
    return settled


@njit(cache=True, nogil=True, inline="always")
def _octile(ax, ay, bx, by):
    dx = abs(ax - bx)
    dy = abs(ay - by)
    return max(dx, dy) + (SQRT2 - 1.0) * min(dx, dy)


@njit(cache=True, nogil=True)
def _walk(tree, base, stride, cw, x0, y0, cell, out, n):
    """Append the cells after ``cell`` on the way to the root of the tree at ``tree[base:]``
    (clusters ``cw`` cells wide)."""
    dx = DX
    dy = DY
    lx = cell % stride - 1 - x0
    ly = cell // stride - 1 - y0
    while True:
        k = tree[base + _tiled(lx, ly, cw)]
        if k == NO_PARENT:
            return n
        cell += dy[k] * stride + dx[k]
        lx += dx[k]
        ly += dy[k]
        if n == out.shape[0]:
            return -1
        out[n] = cell
        n += 1


@njit(cache=True, nogil=True)
def _tree_dist(tree, base, stride, cw, x0, y0, cell, root):
    """The length of the way from ``cell`` to ``root`` in the tree at ``tree[base:]`` (clusters
    ``cw`` cells wide; inf when the tree does not reach ``cell``)."""
    straight = 0
    diagonal = 0
    lx = cell % stride - 1 - x0
    ly = cell // stride - 1 - y0
    while True:
        k = tree[base + _tiled(lx, ly, cw)]
        if k == NO_PARENT:
            break
        if k < 4:
            straight += 1
        else:
            diagonal += 1
        cell += DY[k] * stride + DX[k]
        lx += DX[k]
        ly += DY[k]
    if cell != root:
        return np.inf
    return straight + SQRT2 * diagonal


@njit(cache=True, nogil=True)
def _line(p, stride, a, b, out, n, write):
    """An octile-optimal cell path from ``a`` to ``b`` that steps only into passable cells and
    cuts no corner: the straight line (Bresenham: diagonal steps spread evenly), else all
    diagonal steps first, else all straight steps first. Returns -1 if none is clear; else,
    with ``write``, appends its cells after ``a`` to ``out`` from ``n`` and returns the new
    length (without: returns ``n``)."""
    ax = a % stride
    ay = a // stride
    ddx = b % stride - ax
    ddy = b // stride - ay
    sx = 1 if ddx > 0 else -1
    sy = 1 if ddy > 0 else -1
    adx = abs(ddx)
    ady = abs(ddy)
    steps = max(adx, ady)
    minor = min(adx, ady)
    # one step along the major axis, and the diagonal step
    major = sx if adx >= ady else sy * stride
    both = sx + sy * stride
    side = sy * stride if adx >= ady else sx  # the minor-axis part of a diagonal step
    for mode in range(3):
        num = steps  # mode 0: diagonal at step k when (2 k minor + steps) // (2 steps) grows
        thr = 2 * steps
        cell = a
        clear = True
        for k in range(1, steps + 1):
            if mode == 0:
                num += 2 * minor
                diag = num >= thr
                if diag:
                    thr += 2 * steps
            elif mode == 1:
                diag = k <= minor
            else:
                diag = k > steps - minor
            if diag:
                nxt = cell + both
                if p[nxt] == 0 or p[cell + major] == 0 or p[cell + side] == 0:
                    clear = False
                    break
            else:
                nxt = cell + major
                if p[nxt] == 0:
                    clear = False
                    break
            if write:
                out[n + k - 1] = nxt
            cell = nxt
        if clear:
            return n + steps if write else n
    return -1


@njit(cache=True, nogil=True)
def _smooth(p, stride, cells, n, out):
    """String pulling: from each anchor, the farthest later cell (exponential probe, then
    bisection) reachable by :func:`_line` replaces the cells between. Returns the new length.
    A line never has more steps than the cells it replaces, so ``out`` needs ``n`` cells."""
    m = 0
    out[m] = cells[0]
    m += 1
    i = 0
    while i < n - 1:
        best = i + 1
        span = 2
        bad = n
        while i + span < n:
            if _line(p, stride, cells[i], cells[i + span], out, m, False) >= 0:
                best = i + span
                span *= 2
            else:
                bad = i + span
                break
        if bad == n and best < n - 1 and _line(p, stride, cells[i], cells[n - 1], out, m,
                                               False) >= 0:
            best = n - 1
        hi = bad if bad < n else n - 1
        while hi - best > 1:
            mid = (best + hi) // 2
            if _line(p, stride, cells[i], cells[mid], out, m, False) >= 0:
                best = mid
            else:
                hi = mid
        m = _line(p, stride, cells[i], cells[best], out, m, True)
        i = best
    return m


@njit(cache=True, nogil=True, inline="always")
def _open(v, nd, hv, u, g, parent, pos, seen, stamp, hk, hn, size):
    """Reach node ``v`` with cost ``nd`` from ``u`` (heuristic ``hv``): indexed binary heap
    ``hk`` / ``hn`` with positions ``pos`` (-1 once closed); ``seen[v] == stamp`` marks the
    nodes of this query. Returns the new heap size."""
    if seen[v] != stamp:
        seen[v] = stamp
        i = size
        size += 1
    else:
        i = pos[v]
        if i < 0 or nd >= g[v]:
            return size
    g[v] = nd
    parent[v] = u
    _sift_up(hk, hn, i, nd + hv, v, pos)
    return size


@njit(cache=True, nogil=True)
def _close_min(g, pos, hk, hn, size):
    """Pop the heap's minimum node (marked closed: ``pos = -1``); returns it and the new size."""
    u = hn[0]
    pos[u] = -1
    return u, _sift_down(hk, hn, size, pos)


@njit(cache=True, nogil=True)
def query(p, stride, h, w, size, cstart, ccount, ccap, node_cell, node_xy, doff, dist, toff, tree,
          inter, inter_cost, sx, sy, gx, gy, smooth, weight, g, parent, pos, seen, stamp, ak, an):
    """One HPA* query from ``(sx, sy)`` to ``(gx, gy)`` (both passable).

    Joins start and goal to their clusters' nodes (walking the nodes' trees), runs A* on the
    abstract graph (``f = g + weight * octile``), refines every abstract edge into cells through
    the stored trees and, with ``smooth``, shortens the path by :func:`_smooth`. The workspace
    ``g``, ``parent``, ``pos``, ``seen`` (int32), ``ak``, ``an`` has room for
    ``node_cell.shape[0] + 2`` nodes; ``stamp`` is new for each query (``seen`` never holds it).

    Returns:
        ``(status, cells, cost, expanded)``: FOUND with ``(n, 2)`` int64 ``(x, y)`` cells from
        start to goal (consecutive cells adjacent, steps valid) and their cost, or
        NOT_CONNECTED with an empty array.
    """
    ncx = (w + size - 1) // size
    cw, ch = min(size, w), min(size, h)  # the largest cluster's extent
    area = cw * ch
    tarea = _tree_area(cw, ch)
    m = node_cell.shape[0]
    s_node = m
    g_node = m + 1
    start = (sy + 1) * stride + sx + 1
    goal = (gy + 1) * stride + gx + 1
    cs = (sy // size) * ncx + sx // size
    cg = (gy // size) * ncx + gx // size
    sx0 = (cs % ncx) * size
    sy0 = (cs // ncx) * size
    gx0 = (cg % ncx) * size
    gy0 = (cg // ncx) * size
    # start and goal join their clusters' nodes along the nodes' trees
    sdist = np.empty(ccount[cs], dtype=np.float64)
    expanded = 0
    for j in range(ccount[cs]):
        sdist[j] = _tree_dist(tree, toff[cs] + j * tarea, stride, cw, sx0, sy0, start,
                              node_cell[cstart[cs] + j])
    gdist = np.empty(ccount[cg], dtype=np.float64)
    for j in range(ccount[cg]):
        gdist[j] = _tree_dist(tree, toff[cg] + j * tarea, stride, cw, gx0, gy0, goal,
                              node_cell[cstart[cg] + j])
    direct = np.inf  # start and goal in one cluster: the way inside it
    gtree = np.empty(tarea if cs == cg else 0, dtype=np.uint8)
    if cs == cg:
        ldist = np.empty(area, dtype=np.float64)
        hk = np.empty(8 * area + 8, dtype=np.float64)
        hn = np.empty(8 * area + 8, dtype=np.int64)
        expanded += _local_dijkstra(p, stride, cw, gx0, gy0, min(gx0 + size, w),
                                    min(gy0 + size, h), goal, ldist, gtree, hk, hn)
        direct = ldist[(sy - gy0) * cw + (sx - gx0)]

    # abstract A*
    na = _open(s_node, 0.0, weight * _octile(sx, sy, gx, gy), -1, g, parent, pos, seen, stamp,
               ak, an, 0)
    found = False
    while na > 0:
        u, na = _close_min(g, pos, ak, an, na)
        expanded += 1
        if u == g_node:
            found = True
            break
        gu = g[u]
        if u == s_node:
            c = cs
            for j in range(ccount[c]):
                v = cstart[c] + j
                d = sdist[j]
                if d < np.inf:
                    na = _open(v, gu + d, weight * _octile(node_xy[v, 0], node_xy[v, 1], gx, gy),
                               u, g, parent, pos, seen, stamp, ak, an, na)
            if direct < np.inf:
                na = _open(g_node, gu + direct, 0.0, u, g, parent, pos, seen, stamp, ak, an, na)
            continue
        c = node_xy[u, 2]
        a = u - cstart[c]
        row = doff[c] + a * ccap[c]
        base = cstart[c]
        for j in range(ccount[c]):
            d = dist[row + j]
            if j == a or d == np.inf:
                continue
            v = base + j
            na = _open(v, gu + d, weight * _octile(node_xy[v, 0], node_xy[v, 1], gx, gy), u, g,
                       parent, pos, seen, stamp, ak, an, na)
        for k in range(inter.shape[1]):
            v = inter[u, k]
            if v < 0:
                break
            na = _open(v, gu + inter_cost[u, k], weight * _octile(node_xy[v, 0], node_xy[v, 1],
                                                                  gx, gy),
                       u, g, parent, pos, seen, stamp, ak, an, na)
        if c == cg:
            d = gdist[a]
            if d < np.inf:
                na = _open(g_node, gu + d, 0.0, u, g, parent, pos, seen, stamp, ak, an, na)
    if not found:
        return NOT_CONNECTED, np.zeros((0, 2), dtype=np.int64), np.inf, expanded

    # abstract path, start first
    count = 0
    v = g_node
    while v != s_node:
        count += 1
        v = parent[v]
    count += 1
    nodes = np.empty(count, dtype=np.int64)
    v = g_node
    for i in range(count - 1, -1, -1):
        nodes[i] = v
        v = parent[v]

    # refinement: each edge through the tree of its target node (start and goal: their own)
    cells = np.empty(max(4 * int(g[g_node]) + 16, 64), dtype=np.int64)
    n = 1
    cells[0] = start
    for i in range(1, count):
        v = nodes[i]
        cur = cells[n - 1]
        while True:
            if v == g_node and nodes[i - 1] == s_node:  # the way inside one cluster
                n2 = _walk(gtree, 0, stride, cw, gx0, gy0, cur, cells, n)
            elif v == g_node:  # up the tree of the last node from the goal, reversed
                u = nodes[i - 1]
                n2 = -1
                if n < cells.shape[0]:
                    cells[n] = goal
                    n2 = _walk(tree, toff[cg] + (u - cstart[cg]) * tarea, stride, cw, gx0, gy0,
                               goal, cells, n + 1)
                if n2 >= 0:
                    n2 -= 1  # drop the node itself (already the last cell)
                    cells[n:n2] = cells[n:n2][::-1].copy()
            else:
                q = node_cell[v]
                qx = q % stride - 1
                qy = q // stride - 1
                c = (qy // size) * ncx + qx // size
                cx = cur % stride - 1
                cy = cur // stride - 1
                if (cy // size) * ncx + cx // size != c:  # an inter-cluster step
                    if n == cells.shape[0]:
                        n2 = -1
                    else:
                        cells[n] = q
                        n2 = n + 1
                else:
                    base = toff[c] + (v - cstart[c]) * tarea
                    n2 = _walk(tree, base, stride, cw, (c % ncx) * size, (c // ncx) * size,
                               cur, cells, n)
            if n2 >= 0:
                n = n2
                break
            cells = np.concatenate((cells, np.empty(cells.shape[0], dtype=np.int64)))
    if smooth:
        out = np.empty(n, dtype=np.int64)
        n = _smooth(p, stride, cells, n, out)
        cells = out
    result = np.empty((n, 2), dtype=np.int64)
    result[0, 0] = sx
    result[0, 1] = sy
    straight = 0
    diagonal = 0
    for i in range(1, n):  # consecutive cells are neighbours: no division per cell
        d = cells[i] - cells[i - 1]
        if d > 1:
            dy = 1
            dx = d - stride
        elif d < -1:
            dy = -1
            dx = d + stride
        else:
            dy = 0
            dx = d
        result[i, 0] = result[i - 1, 0] + dx
        result[i, 1] = result[i - 1, 1] + dy
        if dx != 0 and dy != 0:
            diagonal += 1
        else:
            straight += 1
    return FOUND, result, straight + SQRT2 * diagonal, expanded
