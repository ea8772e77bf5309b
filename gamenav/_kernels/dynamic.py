"""Kernels for navmesh edits (see :mod:`gamenav.navmesh.dynamic`): the cavity an edit removes
(:func:`cavity`) and its boundary rings (:func:`boundary_rings`), stitching the new triangles in
(:func:`stitch`), island relabelling (:func:`relabel`, :func:`split_groups`), reader
generations (:func:`copy_rows`) and the padded bucket index (:func:`reindex`, :func:`tri_cells`;
located with
:func:`gamenav._kernels.navmesh.locate_points`).

Arrays and scalars only, no validation (the editor owns every array it passes in).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from gamenav._kernels.navmesh import point_slot

__all__ = ["boundary_rings", "cavity", "copy_rows", "reindex", "relabel", "split_groups", "stitch", "tri_cells"]


@njit(cache=True, nogil=True)
def relabel(nbrs, labels, seed, old, new, queue):
    """Breadth first from ``seed`` over the triangles labelled ``old``, giving them ``new``
    (in place). ``queue`` (``(T,)`` int64 scratch) holds the relabelled ids; returns how many."""
    if labels[seed] != old:
        return 0
    labels[seed] = new
    queue[0] = seed
    head = 0
    tail = 1
    while head < tail:
        t = queue[head]
        head += 1
        for j in range(3):
            u = nbrs[t, j]
            if u >= 0 and labels[u] == old:
                labels[u] = new
                queue[tail] = u
                tail += 1
    return tail


@njit(cache=True, nogil=True)
def _find(parent, x):
    while parent[x] != x:
        parent[x] = parent[parent[x]]
        x = parent[x]
    return x


@njit(cache=True, nogil=True)
def split_groups(nbrs, seeds, mark, stamp, queue, group):
    """Which of ``m`` seed triangles are still edge-connected: interleaved breadth-first
    searches, one per seed, that stop as soon as at most one of them can still grow.

    Work is bounded by the searches that run out (each a whole separated part) times ``m``,
    never by the part that keeps growing. ``mark`` (``(T,)`` int64, < ``stamp`` everywhere)
    records visits as ``stamp + seed index``; ``queue`` and ``group`` are ``(T,)`` scratch.

    Returns ``(root, done, tail)``: ``root[i]`` the seed index representing seed ``i``'s
    connected group (as far as the searches met), ``done[i]`` True when seed ``i``'s group was
    searched to the end (a complete separate part, its triangles are the ``queue[:tail]``
    entries whose ``root[group]`` equals it), ``tail`` the number of queue entries.
    """
    m = seeds.shape[0]
    parent = np.arange(m)
    active = np.zeros(m, dtype=np.int64)
    done = np.zeros(m, dtype=np.bool_)
    tail = 0
    for i in range(m):
        s = seeds[i]
        if mark[s] >= stamp:  # two seeds in one triangle
            a = _find(parent, mark[s] - stamp)
            if a != i:
                parent[i] = a
            continue
        mark[s] = stamp + i
        queue[tail] = s
        group[tail] = i
        tail += 1
        active[i] += 1
    live = 0
    for i in range(m):
        if parent[i] == i:
            live += 1
    head = 0
    while head < tail and live > 1:
        t = queue[head]
        g = _find(parent, group[head])
        head += 1
        active[g] -= 1
        for j in range(3):
            u = nbrs[t, j]
            if u < 0:
                continue
            if mark[u] >= stamp:
                h = _find(parent, mark[u] - stamp)
                if h != g:
                    parent[h] = g
                    active[g] += active[h]
                    live -= 1
            else:
                mark[u] = stamp + g
                queue[tail] = u
                group[tail] = g
                tail += 1
                active[g] += 1
        if active[g] == 0 and live > 1:
            done[g] = True
            live -= 1
    root = np.empty(m, dtype=np.int64)
    for i in range(m):
        root[i] = _find(parent, i)
    for k in range(tail):
        group[k] = root[group[k]]
    return root, done, tail


@njit(cache=True, nogil=True)
def _index_add(items, bounds, cap, tail, alive, cells, ids, changed):
    """Append triangle ``ids[k]`` to bucket ``cells[k]``. A full bucket first drops its dead
    triangles (removals leave them listed: readers skip them), then, still full, moves to
    ``items[tail[0]:]`` with twice the room (the caller keeps enough room there). ``changed``
    receives the positions written; returns how many."""
    n = 0
    for k in range(cells.shape[0]):
        c = cells[k]
        b = bounds[c, 0]
        e = bounds[c, 1]
        if e - b >= cap[c]:
            kept = b
            for p in range(b, e):
                t = items[p]
                if alive[t]:
                    if kept != p:
                        items[kept] = t
                        changed[n] = kept
                        n += 1
                    kept += 1
            e = kept
            bounds[c, 1] = e
        if e - b >= cap[c]:
            nb = tail[0]
            for p in range(b, e):
                items[nb + p - b] = items[p]
                changed[n] = nb + p - b
                n += 1
            cap[c] = 2 * cap[c] + 8
            tail[0] = nb + cap[c]
            bounds[c, 0] = nb
            bounds[c, 1] = nb + e - b
            e = nb + e - b
        items[e] = ids[k]
        bounds[c, 1] = e + 1
        changed[n] = e
        n += 1
    return n


@njit(cache=True, nogil=True)
def cavity(verts, tris, alive, begin, end, items, gx, gy, cell, nx, ny, x0, y0, x1, y1, tag, stamp,
           inner, clear):
    """Ids of the alive triangles listed in the bucket cells overlapping the closed box
    ``(x0, y0, x1, y1)`` that intersect it (touching counts), in first-seen order.

    Bucket ``c`` lists ``items[begin[c]:end[c]]`` (entries < 0 are padding). ``tag`` (``(T,)``
    int64, < ``stamp`` everywhere) records the triangles seen as ``stamp``.

    Returns ``(ids, covered, bounds)``: ``covered[i]`` when triangle ``ids[i]`` lies strictly
    inside the box ``inner`` (4 floats; an empty box covers none) and its bounding box meets
    none of the boxes ``clear`` ``(k, 4)``; ``bounds`` the box of all of them (4 floats).
    """
    i0 = min(max(int((x0 - gx) // cell), 0), nx - 1)
    j0 = min(max(int((y0 - gy) // cell), 0), ny - 1)
    i1 = min(max(int((x1 - gx) // cell), 0), nx - 1)
    j1 = min(max(int((y1 - gy) // cell), 0), ny - 1)
    total = 0
    for j in range(j0, j1 + 1):
        for i in range(i0, i1 + 1):
            c = j * nx + i
            total += end[c] - begin[c]
    out = np.empty(total, dtype=np.int64)
    covered = np.zeros(total, dtype=np.bool_)
    bounds = np.array([np.inf, np.inf, -np.inf, -np.inf])
    n = 0
    cx = np.array([x0, x1, x1, x0])
    cy = np.array([y0, y0, y1, y1])
    for j in range(j0, j1 + 1):
        for i in range(i0, i1 + 1):
            c = j * nx + i
            for p in range(begin[c], end[c]):
                t = items[p]
                if t < 0 or tag[t] == stamp:
                    continue
                tag[t] = stamp
                if not alive[t]:
                    continue
                ax = verts[tris[t, 0], 0]
                ay = verts[tris[t, 0], 1]
                bx = verts[tris[t, 1], 0]
                by = verts[tris[t, 1], 1]
                qx = verts[tris[t, 2], 0]
                qy = verts[tris[t, 2], 1]
                if (min(ax, min(bx, qx)) > x1 or max(ax, max(bx, qx)) < x0
                        or min(ay, min(by, qy)) > y1 or max(ay, max(by, qy)) < y0):
                    continue
                ok = True
                for e in range(3):
                    if e == 0:
                        px, py, ex, ey = ax, ay, bx - ax, by - ay
                    elif e == 1:
                        px, py, ex, ey = bx, by, qx - bx, qy - by
                    else:
                        px, py, ex, ey = qx, qy, ax - qx, ay - qy
                    some = False
                    for q in range(4):
                        if ex * (cy[q] - py) - ey * (cx[q] - px) >= 0:
                            some = True
                            break
                    if not some:
                        ok = False
                        break
                if ok:
                    out[n] = t
                    inside = (inner[0] < min(ax, min(bx, qx)) and max(ax, max(bx, qx)) < inner[2]
                              and inner[1] < min(ay, min(by, qy)) and max(ay, max(by, qy)) < inner[3])
                    for k in range(clear.shape[0]):
                        if not inside:
                            break
                        inside = (min(ax, min(bx, qx)) > clear[k, 2] or max(ax, max(bx, qx)) < clear[k, 0]
                                  or min(ay, min(by, qy)) > clear[k, 3] or max(ay, max(by, qy)) < clear[k, 1])
                    covered[n] = inside
                    bounds[0] = min(bounds[0], min(ax, min(bx, qx)))
                    bounds[1] = min(bounds[1], min(ay, min(by, qy)))
                    bounds[2] = max(bounds[2], max(ax, max(bx, qx)))
                    bounds[3] = max(bounds[3], max(ay, max(by, qy)))
                    n += 1
    return out[:n], covered[:n], bounds


@njit(cache=True, nogil=True)
def _slot(table, keys, a, b, mask):
    """Open-addressing slot of the directed key ``(a, b)`` (``table`` -1 = empty)."""
    h = (a * 0x9E3779B97F4A7C1 + b * 0x2545F4914F6CDD1D) & 0x7FFFFFFFFFFFFFFF
    h = (h ^ (h >> 29)) & mask
    while table[h] >= 0 and (keys[table[h], 0] != a or keys[table[h], 1] != b):
        h = (h + 1) & mask
    return h


@njit(cache=True, nogil=True, inline="always")
def _cell_slot(x, y, mask):
    """Hash slot of the integer cell ``(x, y)``."""
    h = (x * 0x9E3779B97F4A7C1 + y * 0x2545F4914F6CDD1D) & 0x7FFFFFFFFFFFFFFF
    return (h ^ (h >> 29)) & mask


@njit(cache=True, nogil=True)
def _add_candidate(vbuf, vbits, vid, c, table, cells, cell_x, cell_y, q, by_cell, mask):
    """Enter candidate ``c`` (vertex ``vid[c]``) in the exact-coordinate table (of vertices at
    one point the lowest id stays) and, while ``by_cell``, in the cell table. Returns
    ``(by_cell, fresh)``: ``by_cell`` False once coordinates are too large for int64 cells
    (snapping then scans every candidate); ``fresh`` 0 when the vertex is a candidate already."""
    v = vid[c]
    x = vbuf[v, 0]
    y = vbuf[v, 1]
    h = _vslot(table, vbuf, vid, x, y, vbits[v, 0], vbits[v, 1], mask)
    if table[h] >= 0:
        if vid[table[h]] == v:
            return by_cell, 0
        if v < vid[table[h]]:
            table[h] = c
    else:
        table[h] = c
    if by_cell:
        if not (abs(x / q) < 4e18 and abs(y / q) < 4e18):
            return False, 1
        cell_x[c] = int(math.floor(x / q))
        cell_y[c] = int(math.floor(y / q))
        h = _cell_slot(cell_x[c], cell_y[c], mask)
        while cells[h] >= 0:
            h = (h + 1) & mask
        cells[h] = c
    return by_cell, 1


@njit(cache=True, nogil=True)
def _vslot(table, vbuf, ids, x, y, bx, by, mask):
    """Open-addressing slot of the point ``(x, y)`` (``bx``, ``by``: the bits of its
    coordinates) among ``vbuf[ids[table[...]]]``."""
    h = point_slot(bx, by, mask)
    while table[h] >= 0 and (vbuf[ids[table[h]], 0] != x or vbuf[ids[table[h]], 1] != y):
        h = (h + 1) & mask
    return h


@njit(cache=True, nogil=True, inline="always")
def _taken(own, new_v, own_ids, vbuf, vbits, v, own_mask):
    """Vertex ``v`` of ``vbuf`` lies exactly at a point of the table ``own`` (of ``new_v``)."""
    return own[_vslot(own, new_v, own_ids, vbuf[v, 0], vbuf[v, 1], vbits[v, 0], vbits[v, 1], own_mask)] >= 0


@njit(cache=True, nogil=True)
def stitch(new_v, new_t, n_fixed, tol2, vbuf, nv_old, tbuf, n_old, min_edge2,
           nbrs, alive, degree, border_count, corner, pinch, rem, tag, stamp):
    """Append a re-triangulated cavity to the mesh and connect it, in place.

    ``new_v`` / ``new_t``: the cavity's triangles; a new vertex at the coordinates of a
    vertex on the outline of the removed triangles ``rem`` (exactly, else, of the vertices
    live triangles keep, on the edges they share with ``rem``, the nearest within squared
    distance ``tol2``: the same point rounded another way) reuses its id, others are
    appended to ``vbuf`` from ``nv_old``. The first ``n_fixed`` new vertices (those of
    triangles copied as they are) are candidates too, for the later ones. A candidate that
    one of the later new vertices lies at exactly takes no other within ``tol2``: those are
    points of their own (a passage narrower than the tolerance, kept as a build keeps it).
    A vertex that only removed triangles had takes none either (nothing needs it kept).
    Triangles are oriented counter-clockwise, degenerate ones (zero area, an edge with squared
    length below ``min_edge2``) dropped, and appended to ``tbuf`` from ``n_old``. The removed
    triangles ``rem`` die (no neighbours, degree 0); half-edges of new triangles and of the
    surviving *ring* triangles across removed ones are matched by vertex pair (exactly one in
    each direction: a portal; anything else: a border edge); degrees, per-vertex border counts
    and the corner / pinch flags follow. ``tag`` (``(T,)`` int64, < ``stamp`` everywhere) is
    scratch: stamps ``stamp .. stamp + 3 * len(rem)`` are used.

    Returns ``(nv, k, b_edges, b_owner, vtouch, local_root, ring_u, ring_keys)``: vertex count, new
    triangle count, new border edges ``(b, 2)`` and their triangles, touched vertices (with
    repeats), and the components (union-find roots over local indices: new triangles ``0..k-1``, then the distinct
    ring triangles ``ring_u``) of the new triangles and the ring linked by matched edges (and
    ring triangles by their shared edges); ``ring_keys``: the edges the removed triangles shared
    with the ring, as sorted keys ``min * 2**32 + max`` of their vertex ids.
    """
    # -- vertices: reuse the removed triangles' at identical coordinates (then the first
    # n_fixed new ones); interior ones die with the cavity
    nr = rem.shape[0]
    n_fixed = min(n_fixed, new_v.shape[0])
    vbits = vbuf.view(np.int64)  # coordinate bits, for hashing
    new_bits = new_v.view(np.int64)
    vid = np.empty(3 * nr + n_fixed, dtype=np.int64)  # candidate ids
    size = 16
    while size < 2 * (3 * nr + n_fixed):
        size *= 2
    mask = size - 1
    table = np.full(size, -1, dtype=np.int64)
    # candidates by cell of side 4 * tol: a point within tol of one lies in its 3 x 3 cells
    q = 4.0 * math.sqrt(tol2)
    cell_x = np.empty(3 * nr + n_fixed, dtype=np.int64)
    cell_y = np.empty(3 * nr + n_fixed, dtype=np.int64)
    cells = np.full(size, -1, dtype=np.int64)
    by_cell = q > 0
    for i in range(nr):
        tag[rem[i]] = stamp
    n_cand = 0
    snap = np.zeros(3 * nr + n_fixed, dtype=np.bool_)  # candidates a point within tol may take
    for ring in (True, False):  # the vertices on the cavity's outline: first those of edges
        for i in range(nr):     # shared with live triangles (theirs), then of border edges
            t = rem[i]
            for j in range(3):
                u = nbrs[t, j]
                if (u >= 0 and tag[u] == stamp) or (u >= 0) != ring:
                    continue
                for v in (tbuf[t, j], tbuf[t, (j + 1) % 3]):
                    vid[n_cand] = v
                    snap[n_cand] = ring
                    by_cell, fresh = _add_candidate(vbuf, vbits, vid, n_cand, table, cells, cell_x, cell_y, q,
                                                    by_cell, mask)
                    n_cand += fresh
    m = new_v.shape[0]
    # the later new vertices by coordinates: a candidate among them is no rounding copy's
    own_size = 16
    while own_size < 2 * m:
        own_size *= 2
    own_mask = own_size - 1
    own = np.full(own_size, -1, dtype=np.int64)
    own_ids = np.arange(m)
    for i in range(n_fixed, m):
        own[_vslot(own, new_v, own_ids, new_v[i, 0], new_v[i, 1], new_bits[i, 0], new_bits[i, 1], own_mask)] = i
    vmap = np.empty(m, dtype=np.int64)
    nv = nv_old
    for i in range(m):
        px = new_v[i, 0]
        py = new_v[i, 1]
        h = _vslot(table, vbuf, vid, px, py, new_bits[i, 0], new_bits[i, 1], mask)
        near = table[h]
        if near < 0 and tol2 > 0:  # a point a rounding error off a candidate (computed twice) snaps to it
            best = tol2  # the nearest within tol; of equally near ones the last
            if by_cell and abs(px / q) < 4e18 and abs(py / q) < 4e18:
                ix = int(math.floor(px / q))
                iy = int(math.floor(py / q))
                for ax in range(ix - 1, ix + 2):
                    for ay in range(iy - 1, iy + 2):
                        h = _cell_slot(ax, ay, mask)
                        while cells[h] >= 0:
                            c = cells[h]
                            if cell_x[c] == ax and cell_y[c] == ay:
                                d = (vbuf[vid[c], 0] - px) ** 2 + (vbuf[vid[c], 1] - py) ** 2
                                if (d < best or (d == best and (near < 0 or vid[c] > vid[near]))) and snap[c] and \
                                        not _taken(own, new_v, own_ids, vbuf, vbits, vid[c], own_mask):
                                    best = d
                                    near = c
                            h = (h + 1) & mask
            else:
                for c in range(n_cand):
                    d = (vbuf[vid[c], 0] - px) ** 2 + (vbuf[vid[c], 1] - py) ** 2
                    if (d < best or (d == best and (near < 0 or vid[c] > vid[near]))) and snap[c] and not _taken(
                            own, new_v, own_ids, vbuf, vbits, vid[c], own_mask):
                        best = d
                        near = c
        if near >= 0:
            vmap[i] = vid[near]
        else:
            vbuf[nv, 0] = px
            vbuf[nv, 1] = py
            vmap[i] = nv
            if i < n_fixed:  # later new vertices at (or a rounding error off) it reuse it
                vid[n_cand] = nv
                snap[n_cand] = True
                by_cell, fresh = _add_candidate(vbuf, vbits, vid, n_cand, table, cells, cell_x, cell_y, q,
                                                by_cell, mask)
                n_cand += fresh
            nv += 1
    # -- triangles: counter-clockwise, no degenerate ones
    k = 0
    for i in range(new_t.shape[0]):
        a = vmap[new_t[i, 0]]
        b = vmap[new_t[i, 1]]
        c = vmap[new_t[i, 2]]
        ax, ay = vbuf[a, 0], vbuf[a, 1]
        bx, by = vbuf[b, 0], vbuf[b, 1]
        cx, cy = vbuf[c, 0], vbuf[c, 1]
        e0 = (ax - bx) ** 2 + (ay - by) ** 2
        e1 = (bx - cx) ** 2 + (by - cy) ** 2
        e2 = (cx - ax) ** 2 + (cy - ay) ** 2
        # from the corner opposite the longest edge: the least rounding (a sliver between
        # points 1e-16 apart keeps its sign, not a zero area that would drop it: a crack)
        if e0 >= e1 and e0 >= e2:
            area2 = (ax - cx) * (by - cy) - (ay - cy) * (bx - cx)
        elif e1 >= e2:
            area2 = (bx - ax) * (cy - ay) - (by - ay) * (cx - ax)
        else:
            area2 = (cx - bx) * (ay - by) - (cy - by) * (ax - bx)
        if area2 == 0 or e0 < min_edge2 or e1 < min_edge2 or e2 < min_edge2:
            continue
        t = n_old + k
        tbuf[t, 0] = a
        if area2 > 0:
            tbuf[t, 1] = b
            tbuf[t, 2] = c
        else:
            tbuf[t, 1] = c
            tbuf[t, 2] = b
        k += 1
    # -- ring: surviving triangles across an edge of a removed one; border edges that go
    ring_t = np.empty(3 * nr, dtype=np.int64)
    ring_j = np.empty(3 * nr, dtype=np.int64)
    ring_u = np.empty(3 * nr, dtype=np.int64)
    gone = np.empty(6 * nr, dtype=np.int64)
    n_ring = 0
    n_u = 0
    n_gone = 0
    for i in range(nr):
        t = rem[i]
        for j in range(3):
            u = nbrs[t, j]
            if u < 0:
                gone[n_gone] = tbuf[t, j]
                gone[n_gone + 1] = tbuf[t, (j + 1) % 3]
                n_gone += 2
            elif tag[u] < stamp:
                for ju in range(3):
                    if nbrs[u, ju] == t:
                        ring_t[n_ring] = u
                        ring_j[n_ring] = ju
                        n_ring += 1
                        break
                tag[u] = stamp + 1 + n_u
                ring_u[n_u] = u
                n_u += 1
            elif tag[u] > stamp:  # a ring triangle met again
                for ju in range(3):
                    if nbrs[u, ju] == t:
                        ring_t[n_ring] = u
                        ring_j[n_ring] = ju
                        n_ring += 1
                        break
    # -- half-edges: 3 per new triangle, then the ring's; directed keys with counts
    nh = 3 * k + n_ring
    owner = np.empty(nh, dtype=np.int64)
    slot = np.empty(nh, dtype=np.int64)
    keys = np.empty((nh, 2), dtype=np.int64)
    loc = np.empty(nh, dtype=np.int64)
    for i in range(k):
        t = n_old + i
        for j in range(3):
            h = 3 * i + j
            owner[h] = t
            slot[h] = j
            keys[h, 0] = tbuf[t, j]
            keys[h, 1] = tbuf[t, (j + 1) % 3]
            loc[h] = i
    for i in range(n_ring):
        h = 3 * k + i
        t = ring_t[i]
        owner[h] = t
        slot[h] = ring_j[i]
        keys[h, 0] = tbuf[t, ring_j[i]]
        keys[h, 1] = tbuf[t, (ring_j[i] + 1) % 3]
        loc[h] = k + tag[t] - stamp - 1
    size = 16
    while size < 2 * nh:
        size *= 2
    mask = size - 1
    table = np.full(size, -1, dtype=np.int64)
    count = np.zeros(nh, dtype=np.int64)
    first = np.empty(nh, dtype=np.int64)
    for h in range(nh):
        s = _slot(table, keys, keys[h, 0], keys[h, 1], mask)
        if table[s] < 0:
            table[s] = h
        first[h] = table[s]
        count[table[s]] += 1
    # -- masters: the removed die, the ring forgets them, the new start empty
    for i in range(nr):
        t = rem[i]
        nbrs[t, 0] = -1
        nbrs[t, 1] = -1
        nbrs[t, 2] = -1
        alive[t] = False
        degree[t] = 0
    for i in range(n_ring):
        nbrs[ring_t[i], ring_j[i]] = -1
    for i in range(k):
        t = n_old + i
        nbrs[t, 0] = -1
        nbrs[t, 1] = -1
        nbrs[t, 2] = -1
        alive[t] = True
    parent = np.arange(k + n_u)
    b_edges = np.empty((nh, 2), dtype=np.int64)
    b_owner = np.empty(nh, dtype=np.int64)
    n_b = 0
    for h in range(nh):
        a = keys[h, 0]
        b = keys[h, 1]
        g = -1
        if count[first[h]] == 1:
            s = _slot(table, keys, b, a, mask)
            if table[s] >= 0 and count[table[s]] == 1:
                g = table[s]
        if g >= 0:
            nbrs[owner[h], slot[h]] = owner[g]
            if h < g:
                x = loc[h]
                while parent[x] != x:
                    parent[x] = parent[parent[x]]
                    x = parent[x]
                y = loc[g]
                while parent[y] != y:
                    parent[y] = parent[parent[y]]
                    y = parent[y]
                if x != y:
                    parent[x] = y
        else:
            b_edges[n_b, 0] = a
            b_edges[n_b, 1] = b
            b_owner[n_b] = owner[h]
            n_b += 1
            border_count[a] += 1
            border_count[b] += 1
    for i in range(n_gone):
        border_count[gone[i]] -= 1
    for i in range(n_u):
        t = ring_u[i]
        degree[t] = (nbrs[t, 0] >= 0) + (nbrs[t, 1] >= 0) + (nbrs[t, 2] >= 0)
    for i in range(k):
        t = n_old + i
        degree[t] = (nbrs[t, 0] >= 0) + (nbrs[t, 1] >= 0) + (nbrs[t, 2] >= 0)
    # -- corner / pinch flags of every vertex whose border count may have changed
    vtouch = np.empty(n_gone + 2 * n_b + nv - nv_old, dtype=np.int64)
    for i in range(n_gone):
        vtouch[i] = gone[i]
    for i in range(n_b):
        vtouch[n_gone + 2 * i] = b_edges[i, 0]
        vtouch[n_gone + 2 * i + 1] = b_edges[i, 1]
    for i in range(nv - nv_old):
        vtouch[n_gone + 2 * n_b + i] = nv_old + i
    for i in range(vtouch.shape[0]):
        v = vtouch[i]
        corner[v] = border_count[v] > 0
        pinch[v] = border_count[v] > 2
    # ring triangles that are neighbours of each other are connected too
    for i in range(n_u):
        t = ring_u[i]
        for j in range(3):
            u = nbrs[t, j]
            if u >= 0 and u < n_old and tag[u] > stamp:
                x = i + k
                while parent[x] != x:
                    parent[x] = parent[parent[x]]
                    x = parent[x]
                y = k + tag[u] - stamp - 1
                while parent[y] != y:
                    parent[y] = parent[parent[y]]
                    y = parent[y]
                if x != y:
                    parent[x] = y
    local_root = np.empty(k + n_u, dtype=np.int64)
    for i in range(k + n_u):
        x = i
        while parent[x] != x:
            x = parent[x]
        local_root[i] = x
    ring_keys = np.empty(n_ring, dtype=np.int64)
    for i in range(n_ring):
        a = keys[3 * k + i, 0]
        b = keys[3 * k + i, 1]
        ring_keys[i] = min(a, b) * 4294967296 + max(a, b)
    ring_keys.sort()
    return nv, k, b_edges[:n_b].copy(), b_owner[:n_b].copy(), vtouch, local_root, ring_u[:n_u].copy(), ring_keys


@njit(cache=True, nogil=True)
def tri_cells(verts, tris, ids, gx, gy, cell, nx, ny, tol):
    """The bucket cells of triangles ``ids`` (their boxes grown by ``tol``, clipped to the
    ``nx`` x ``ny`` grid): ``(cells, owner ids)``."""
    n = ids.shape[0]
    lo = np.empty((n, 2), dtype=np.int64)
    hi = np.empty((n, 2), dtype=np.int64)
    total = 0
    for i in range(n):
        t = ids[i]
        for d in range(2):
            g = gx if d == 0 else gy
            top = nx - 1 if d == 0 else ny - 1
            a = verts[tris[t, 0], d]
            b = verts[tris[t, 1], d]
            c = verts[tris[t, 2], d]
            low = int((min(a, min(b, c)) - tol - g) // cell)
            high = int((max(a, max(b, c)) + tol - g) // cell)
            lo[i, d] = min(max(low, 0), top)
            hi[i, d] = min(max(high, 0), top)
        total += (hi[i, 0] - lo[i, 0] + 1) * (hi[i, 1] - lo[i, 1] + 1)
    cells = np.empty(total, dtype=np.int64)
    owner = np.empty(total, dtype=np.int64)
    n_c = 0
    for i in range(n):
        for y in range(lo[i, 1], hi[i, 1] + 1):
            for x in range(lo[i, 0], hi[i, 0] + 1):
                cells[n_c] = y * nx + x
                owner[n_c] = ids[i]
                n_c += 1
    return cells, owner


@njit(cache=True, nogil=True)
def boundary_rings(verts, tris, nbrs, ids, tag, stamp, x0, y0, x1, y1):
    """The union of triangles ``ids`` as polygons: one per edge-connected component, its
    outline (counter-clockwise) and its holes (clockwise), in shapely's ragged layout.

    Boundary half-edges (no neighbour, or a neighbour outside ``ids``) are chained head to
    tail. Holes with every point strictly inside the box ``(x0, y0, x1, y1)`` are left out
    (an empty box leaves none out). ``tag`` (``(T,)`` int64, < ``stamp`` everywhere) is
    scratch: stamps ``stamp .. stamp + len(ids)`` are used.

    Returns ``(coords, ring_offsets, polygon_offsets, ok)``: ``(n, 2)`` ring coordinates
    (each ring closed by repeating its first point), the offsets of the rings in ``coords``
    and of the polygons in the rings; ``ok`` False (nothing else valid) when a vertex starts
    two boundary half-edges (a pinch point: chaining is ambiguous) or a ring has no area.
    """
    n = ids.shape[0]
    for i in range(n):
        tag[ids[i]] = stamp
    # components: members are tagged stamp, visited ones stamp + 1 + their component
    stack = np.empty(n, dtype=np.int64)
    n_comp = 0
    for i in range(n):
        if tag[ids[i]] != stamp:
            continue
        tag[ids[i]] = stamp + 1 + n_comp
        stack[0] = ids[i]
        top = 1
        while top > 0:
            top -= 1
            t = stack[top]
            for j in range(3):
                u = nbrs[t, j]
                if u >= 0 and tag[u] == stamp:
                    tag[u] = stamp + 1 + n_comp
                    stack[top] = u
                    top += 1
        n_comp += 1
    ea = np.empty(3 * n, dtype=np.int64)
    eb = np.empty(3 * n, dtype=np.int64)
    ec = np.empty(3 * n, dtype=np.int64)
    ne = 0
    for i in range(n):
        t = ids[i]
        for j in range(3):
            u = nbrs[t, j]
            if u < 0 or tag[u] <= stamp or tag[u] > stamp + n_comp:
                ea[ne] = tris[t, j]
                eb[ne] = tris[t, (j + 1) % 3]
                ec[ne] = tag[t] - stamp - 1
                ne += 1
    size = 16
    while size < 2 * ne:
        size *= 2
    mask = size - 1
    table = np.full(size, -1, dtype=np.int64)
    ok = True
    for e in range(ne):
        h = (ea[e] * 0x9E3779B97F4A7C1) & 0x7FFFFFFFFFFFFFFF
        h = (h ^ (h >> 29)) & mask
        while table[h] >= 0 and ea[table[h]] != ea[e]:
            h = (h + 1) & mask
        if table[h] >= 0:
            ok = False
            break
        table[h] = e
    coords = np.empty((ne + ne, 2), dtype=np.float64)
    starts = np.zeros(ne + 1, dtype=np.int64)
    area2 = np.zeros(ne, dtype=np.float64)
    comp = np.zeros(ne, dtype=np.int64)
    none = np.zeros(1, dtype=np.int64)
    if not ok:
        return coords[:0], none, none, False
    used = np.zeros(ne, dtype=np.bool_)
    nc = 0
    nr = 0
    for e0 in range(ne):
        if used[e0]:
            continue
        e = e0
        a2 = 0.0
        # twice the area about the ring's first point (products of coordinates far from the
        # origin, 3e9, cancel to noise larger than the area: its sign made outlines holes)
        x0r = verts[ea[e0], 0]
        y0r = verts[ea[e0], 1]
        while not used[e]:
            used[e] = True
            xa = verts[ea[e], 0]
            ya = verts[ea[e], 1]
            xb = verts[eb[e], 0]
            yb = verts[eb[e], 1]
            a2 += (xa - x0r) * (yb - y0r) - (xb - x0r) * (ya - y0r)
            coords[nc, 0] = xa
            coords[nc, 1] = ya
            nc += 1
            h = (eb[e] * 0x9E3779B97F4A7C1) & 0x7FFFFFFFFFFFFFFF
            h = (h ^ (h >> 29)) & mask
            while table[h] >= 0 and ea[table[h]] != eb[e]:
                h = (h + 1) & mask
            if table[h] < 0:  # open chain: cannot happen for a union of triangles
                return coords[:0], none, none, False
            e = table[h]
        if e != e0 or a2 == 0:
            return coords[:0], none, none, False
        coords[nc, 0] = verts[ea[e0], 0]
        coords[nc, 1] = verts[ea[e0], 1]
        nc += 1
        area2[nr] = a2
        comp[nr] = ec[e0]
        nr += 1
        starts[nr] = nc
    # rings by component, the outline first; holes inside the box left out
    first = np.full(n_comp, -1, dtype=np.int64)
    count = np.zeros(n_comp, dtype=np.int64)
    keep = np.ones(nr, dtype=np.bool_)
    for r in range(nr):
        if area2[r] > 0:
            if first[comp[r]] >= 0:  # two outlines: pinch points made one component two
                return coords[:0], none, none, False
            first[comp[r]] = r
        else:
            inside = True
            for k in range(starts[r], starts[r + 1]):
                if not (x0 < coords[k, 0] < x1 and y0 < coords[k, 1] < y1):
                    inside = False
                    break
            keep[r] = not inside
        if keep[r]:
            count[comp[r]] += 1
    polygon_offsets = np.zeros(n_comp + 1, dtype=np.int64)
    for c in range(n_comp):
        polygon_offsets[c + 1] = polygon_offsets[c] + count[c]
    slot = polygon_offsets[:-1].copy()
    order = np.empty(polygon_offsets[n_comp], dtype=np.int64)
    for c in range(n_comp):
        order[slot[c]] = first[c]
        slot[c] += 1
    for r in range(nr):
        if area2[r] < 0 and keep[r]:
            order[slot[comp[r]]] = r
            slot[comp[r]] += 1
    ring_offsets = np.zeros(order.shape[0] + 1, dtype=np.int64)
    out = np.empty((nc, 2), dtype=np.float64)
    m = 0
    for i in range(order.shape[0]):
        r = order[i]
        for k in range(starts[r], starts[r + 1]):
            out[m, 0] = coords[k, 0]
            out[m, 1] = coords[k, 1]
            m += 1
        ring_offsets[i + 1] = m
    return out[:m], ring_offsets, polygon_offsets, True


@njit(cache=True, nogil=True)
def copy_rows(nbrs, alive, islands, degree, corner, pinch, items, bounds,
              m_nbrs, m_alive, m_islands, m_degree, m_corner, m_pinch, m_items, m_bounds,
              r_tri, r_alive, r_islands, r_vert, r_items, r_bounds):
    """Bring a generation's arrays up to date with the masters (``m_*``) at the rows one edit
    touched: ``r_tri`` (neighbours and degrees), ``r_alive``, ``r_islands``, ``r_vert`` (corner
    and pinch flags), ``r_items`` (bucket entries), ``r_bounds`` (bucket ranges)."""
    for i in range(r_tri.shape[0]):
        t = r_tri[i]
        nbrs[t, 0] = m_nbrs[t, 0]
        nbrs[t, 1] = m_nbrs[t, 1]
        nbrs[t, 2] = m_nbrs[t, 2]
        degree[t] = m_degree[t]
    for i in range(r_alive.shape[0]):
        alive[r_alive[i]] = m_alive[r_alive[i]]
    for i in range(r_islands.shape[0]):
        islands[r_islands[i]] = m_islands[r_islands[i]]
    for i in range(r_vert.shape[0]):
        corner[r_vert[i]] = m_corner[r_vert[i]]
        pinch[r_vert[i]] = m_pinch[r_vert[i]]
    for i in range(r_items.shape[0]):
        items[r_items[i]] = m_items[r_items[i]]
    for i in range(r_bounds.shape[0]):
        bounds[r_bounds[i], 0] = m_bounds[r_bounds[i], 0]
        bounds[r_bounds[i], 1] = m_bounds[r_bounds[i], 1]


@njit(cache=True, nogil=True)
def reindex(items, bounds, cap, tail, count, alive, verts, tris, n_old, k, gx, gy, cell, nx, ny, tol):
    """Patch the padded bucket index for an edit: the new triangles ``n_old .. n_old + k - 1``
    join their cells (see :func:`_index_add`); removed ones stay listed until their bucket
    fills (``alive`` tells them apart). ``count`` ``(nx * ny,)`` int64 is zero scratch (left zero).

    Nothing is written unless ``items`` has the room the additions may need at its end (full
    buckets move there): returns ``(ok, need, positions, cells)``, with ``ok`` False and
    ``need`` the room to provide when it lacks; else the item positions and bucket cells written.
    """
    added = np.arange(n_old, n_old + k)
    ac, aid = tri_cells(verts, tris, added, gx, gy, cell, nx, ny, tol)
    for c in ac:
        count[c] += 1
    need = 0
    purge = 0
    for c in ac:  # every bucket's moves, counted as if none had dead entries (a bound)
        m = count[c]
        if m == 0:  # bucket counted already
            continue
        count[c] = 0
        e = bounds[c, 1] - bounds[c, 0]
        purge += e  # a bucket drops its dead entries at most once
        cp = cap[c]
        for _ in range(m):
            if e >= cp:
                cp = 2 * cp + 8
                need += cp
            e += 1
    if tail[0] + need > items.shape[0]:
        return False, need, np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    pos = np.empty(purge + ac.shape[0] + need, dtype=np.int64)
    n = _index_add(items, bounds, cap, tail, alive, ac, aid, pos)
    return True, need, pos[:n].copy(), ac
