"""Navmesh kernels: point location, clamping, raycasts, islands, portal A* + funnel, Polyanya.

Conventions shared by every kernel (the public wrappers in ``gamenav.navmesh`` validate inputs):

* ``verts`` ``(V, 2)`` float64 world ``(x, y)``; ``tris`` ``(T, 3)`` int64, counter-clockwise;
  ``nbrs[t, j]`` is the triangle across edge ``(tris[t, j], tris[t, (j + 1) % 3])``, -1 on the border.
* Crossing edge ``j`` of ``t`` into the neighbour, the portal's left end is ``tris[t, (j + 1) % 3]``
  and its right end ``tris[t, j]`` (as seen walking out of ``t``).
* Sliced searches keep all state in arrays owned by the caller; ``ctr`` holds the counters.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from gamenav._kernels.grid_search import heap_pop, heap_sift_up

# status codes returned by the stepping kernels
RUNNING = 0
DONE_FOUND = 1
DONE_NONE = 2
NEED_SPACE = 3


@njit(cache=True, nogil=True, inline="always")
def _orient(ox: float, oy: float, px: float, py: float, qx: float, qy: float) -> float:
    """Twice the signed area of (o, p, q): > 0 when q lies left of the ray o -> p."""
    return (px - ox) * (qy - oy) - (py - oy) * (qx - ox)


@njit(cache=True, nogil=True, inline="always")
def _dist(ax: float, ay: float, bx: float, by: float) -> float:
    """Euclidean distance (plain sqrt: faster than hypot, no overflow at game scales)."""
    d: float = np.sqrt((bx - ax) * (bx - ax) + (by - ay) * (by - ay))
    return d


@njit(cache=True, nogil=True, inline="always")
def _depth(verts, tris, t, px, py, tol):
    """How deep ``(px, py)`` lies in triangle ``t``: its least signed distance to the edges' lines
    (negative outside), or -inf beyond the triangle's box grown by ``tol`` (which keeps slivers
    from claiming far points on their edge lines)."""
    x0, x1, y0, y1 = np.inf, -np.inf, np.inf, -np.inf
    for j in range(3):
        x0 = min(x0, verts[tris[t, j], 0])
        x1 = max(x1, verts[tris[t, j], 0])
        y0 = min(y0, verts[tris[t, j], 1])
        y1 = max(y1, verts[tris[t, j], 1])
    if px < x0 - tol or px > x1 + tol or py < y0 - tol or py > y1 + tol:
        return -np.inf
    depth = np.inf
    for j in range(3):
        a = tris[t, j]
        b = tris[t, (j + 1) % 3]
        ex = verts[b, 0] - verts[a, 0]
        ey = verts[b, 1] - verts[a, 1]
        d = (ex * (py - verts[a, 1]) - ey * (px - verts[a, 0])) / np.sqrt(ex * ex + ey * ey)
        if d < depth:
            depth = d
    return depth


@njit(cache=True, nogil=True)
def locate_points(points, verts, tris, alive, grid_min, cell, nx, ny, cell_begin, cell_end, cell_items, tol):
    """Index of the alive triangle containing each point (``-1`` outside): ``(n,)`` int64.

    Candidates come from the point's cell ``c`` of a uniform bucket grid: ``cell_items[
    cell_begin[c]:cell_end[c]]`` (a built mesh's CSR offsets ``start[:-1]``, ``start[1:]``; an
    edited mesh's padded rows, which may still list removed triangles; triangles are listed in
    every cell their ``tol``-grown box touches).
    A point within ``tol`` world units of a triangle (and of its bounding box, which keeps
    slivers from claiming far points on their edge lines) counts as inside; among candidates the
    triangle the point is deepest inside wins, so points on shared edges resolve deterministically.
    """
    n = points.shape[0]
    out = np.full(n, -1, dtype=np.int64)
    for i in range(n):
        px = points[i, 0]
        py = points[i, 1]
        cx = int(np.floor((px - grid_min[0]) / cell))
        cy = int(np.floor((py - grid_min[1]) / cell))
        best = -np.inf
        if 0 <= cx < nx and 0 <= cy < ny:
            c = cy * nx + cx
            for k in range(cell_begin[c], cell_end[c]):
                t = cell_items[k]
                if not alive[t]:
                    continue
                depth = _depth(verts, tris, t, px, py, tol)
                if depth > best:
                    best = depth
                    out[i] = t
        if best < -tol:
            out[i] = -1
    return out


@njit(cache=True, nogil=True, inline="always")
def _box_gap(px, py, x0, y0, x1, y1):
    """Distance from ``(px, py)`` to the box ``[x0, x1] x [y0, y1]`` (inf when it is empty)."""
    if x0 > x1 or y0 > y1:
        return np.inf
    dx = max(x0 - px, 0.0, px - x1)
    dy = max(y0 - py, 0.0, py - y1)
    d: float = np.sqrt(dx * dx + dy * dy)
    return d


@njit(cache=True, nogil=True)
def nearest_points(points, verts, edges, edge_order, edge_start, edge_box, alive, islands, island, grid_min,
                   cell, nx, ny, cell_begin, cell_end, cell_items):
    """Closest point on the border edges (``(E, 2)`` vertex ids) to each point.

    Only edges of alive triangles (of ``islands`` label ``island``, if >= 0) count; ties go to
    the lowest edge id. Edges are found through the triangles' bucket grid (see
    :func:`locate_points`), in growing square rings of cells about the point's cell, until no
    unseen cell can hold a closer edge: ``edge_order[edge_start[t]:edge_start[t + 1]]`` are
    triangle ``t``'s edges in ascending id, ``edge_box`` ``(x0, y0, x1, y1)`` bounds every
    edge. Returns ``(n, 2)`` points and the ``(n,)`` triangle owning the chosen edge (-1 if no
    edge qualifies).
    """
    n = points.shape[0]
    out = np.empty((n, 2))
    tri = np.full(n, -1, dtype=np.int64)
    bx0, by0, bx1, by1 = edge_box[0], edge_box[1], edge_box[2], edge_box[3]
    size = max(abs(bx0), abs(by0), abs(bx1), abs(by1), abs(grid_min[0]) + nx * cell, abs(grid_min[1]) + ny * cell)
    for i in range(n):
        px = points[i, 0]
        py = points[i, 1]
        best = np.inf
        best_e = -1
        out[i, 0] = px
        out[i, 1] = py
        # rounding slack of the distances (far above a few float steps of the coordinates)
        slack = 1e-12 * (abs(px) + abs(py) + size)
        cx = int(min(max((px - grid_min[0]) / cell, 0.0), nx - 1.0))
        cy = int(min(max((py - grid_min[1]) / cell, 0.0), ny - 1.0))
        r = 0
        while True:
            x0, x1, y0, y1 = cx - r, cx + r, cy - r, cy + r
            for y in range(max(y0, 0), min(y1, ny - 1) + 1):
                step = x1 - x0 if y0 < y < y1 else 1  # inner rows: the two side cells
                for x in range(x0, x1 + 1, step):
                    if x < 0 or x >= nx:
                        continue
                    c = y * nx + x
                    for k in range(cell_begin[c], cell_end[c]):
                        t = cell_items[k]
                        if not alive[t] or (island >= 0 and islands[t] != island):
                            continue
                        for m in range(edge_start[t], edge_start[t + 1]):
                            e = edge_order[m]
                            ax = verts[edges[e, 0], 0]
                            ay = verts[edges[e, 0], 1]
                            ex = verts[edges[e, 1], 0] - ax
                            ey = verts[edges[e, 1], 1] - ay
                            ll = ex * ex + ey * ey
                            s = ((px - ax) * ex + (py - ay) * ey) / ll if ll > 0 else 0.0
                            s = min(1.0, max(0.0, s))
                            qx = ax + s * ex
                            qy = ay + s * ey
                            d = (qx - px) ** 2 + (qy - py) ** 2
                            if d < best or (d == best and e < best_e):
                                best = d
                                best_e = e
                                out[i, 0] = qx
                                out[i, 1] = qy
                                tri[i] = t
            # the unseen cells: beyond the ring on a side not at the grid's edge (the edge
            # cells also list triangles reaching past it), within the edges' box
            gx0 = grid_min[0] + x0 * cell
            gx1 = grid_min[0] + (x1 + 1) * cell
            gy0 = grid_min[1] + y0 * cell
            gy1 = grid_min[1] + (y1 + 1) * cell
            gap = np.inf
            if x0 > 0:
                gap = min(gap, _box_gap(px, py, bx0, by0, min(gx0 + slack, bx1), by1))
            if x1 < nx - 1:
                gap = min(gap, _box_gap(px, py, max(gx1 - slack, bx0), by0, bx1, by1))
            if y0 > 0:
                gap = min(gap, _box_gap(px, py, bx0, by0, bx1, min(gy0 + slack, by1)))
            if y1 < ny - 1:
                gap = min(gap, _box_gap(px, py, bx0, max(gy1 - slack, by0), bx1, by1))
            if gap == np.inf or gap > np.sqrt(best) + slack:
                break
            r += 1
    return out, tri


@njit(cache=True, nogil=True)
def raycast_walk(verts, tris, nbrs, t, sx, sy, ex, ey, tol):
    """Walk the segment start -> end through the triangles from ``t`` (which holds start within ``tol``).

    Returns the fraction of the segment on the mesh: 1.0 when it stays on the mesh (its end
    within ``tol`` of a triangle it reaches counts as on it, as in :func:`locate_points`),
    otherwise where it first leaves. A ray that meets a border edge within ``tol`` of one of its
    corners (running along the wall, or past its end) goes on from that corner, in the triangle
    around it whose angle holds the way on, if any: the rest of the walk starts there.
    """
    cx, cy = sx, sy  # where the walk's line starts: start, or the last corner it went on from
    f0 = 0.0  # the fraction of start -> end at (cx, cy)
    corner = -1  # the last corner gone round (never twice in a row: no progress)
    prev = -1
    for _ in range(tris.shape[0] + verts.shape[0] + 1):
        exit_j = -1
        for j in range(3):
            a = tris[t, j]
            b = tris[t, (j + 1) % 3]
            if nbrs[t, j] == prev and prev >= 0:
                continue
            oa = _orient(cx, cy, ex, ey, verts[a, 0], verts[a, 1])
            ob = _orient(cx, cy, ex, ey, verts[b, 0], verts[b, 1])
            if oa <= 0.0 and ob >= 0.0 and (oa < 0.0 or ob > 0.0):
                exit_j = j
                break
        if exit_j < 0:
            # the line misses t (its start lies outside t, within tol; or zero length): unless the
            # end is near t, it goes on from t's corner within tol of the line furthest ahead, if any
            if _depth(verts, tris, t, ex, ey, tol) >= -tol:
                return 1.0
            reach = tol * _dist(cx, cy, ex, ey)  # |orient| of a point within tol of the line
            w = -1
            ahead = 0.0
            for j in range(3):
                v = tris[t, j]
                d = (verts[v, 0] - cx) * (ex - cx) + (verts[v, 1] - cy) * (ey - cy)
                if d > ahead and abs(_orient(cx, cy, ex, ey, verts[v, 0], verts[v, 1])) <= reach:
                    ahead = d
                    w = v
            if w < 0:
                return f0
            u = t
        else:
            a = tris[t, exit_j]
            b = tris[t, (exit_j + 1) % 3]
            ax, ay = verts[a, 0], verts[a, 1]
            bx, by = verts[b, 0], verts[b, 1]
            o_e = _orient(ax, ay, bx, by, ex, ey)
            near = tol * _dist(ax, ay, bx, by)  # |o_e| for an end within tol of the exit edge's line
            along = o_e >= -near
            if o_e > near or (along and _depth(verts, tris, t, ex, ey, tol) >= -tol):
                return 1.0  # the end lies inside t, or within tol of it (not merely of its exit edge's line)
            if nbrs[t, exit_j] >= 0:
                prev = t
                t = nbrs[t, exit_j]
                continue
            # a border edge: passing within tol of a corner (the one ahead if both), the ray goes
            # on around it if a triangle there holds its way on; else it leaves at that corner
            # (along the wall) or where it crosses the wall
            reach = tol * _dist(cx, cy, ex, ey)
            w = -1
            if -oa <= reach and (ob > reach or (ex - cx) * (ax - bx) + (ey - cy) * (ay - by) > 0.0):
                w = a
            elif ob <= reach:
                w = b
            u = _around_vertex(verts, tris, nbrs, t, w, ex, ey, tol) if 0 <= w != corner else -1
            corner = w
            if u < 0 and (w < 0 or not along):
                o_c = _orient(ax, ay, bx, by, cx, cy)
                g = o_c / (o_c - o_e) if o_c != o_e else 0.0
                return min(1.0, max(f0, f0 + (1.0 - f0) * g))
        wx, wy = verts[w, 0], verts[w, 1]
        span = (ex - sx) * (ex - sx) + (ey - sy) * (ey - sy)  # 0 only if a tiny ray's square underflows
        if span > 0.0:
            f0 = min(1.0, max(f0, ((wx - sx) * (ex - sx) + (wy - sy) * (ey - sy)) / span))
        if u < 0:
            return f0
        cx, cy = wx, wy
        prev = -1
        t = u
    return f0  # (a bound only: every step goes on along the ray)


@njit(cache=True, nogil=True)
def _around_vertex(verts, tris, nbrs, t, v, ex, ey, tol):
    """The triangle reached from ``t`` by turning around its vertex ``v`` (through shared edges,
    so never past a pinch point) whose corner at ``v`` holds the way on of the ray ``v -> end``,
    or leaves it by at most ``tol`` before the end or the corner's side ends; -1 if none."""
    vx, vy = verts[v, 0], verts[v, 1]
    length = _dist(vx, vy, ex, ey)
    for turn in range(2):
        u = t
        for _ in range(tris.shape[0]):
            i = 0
            while i < 3 and tris[u, i] != v:
                i += 1
            if i == 3:
                break
            u = nbrs[u, i if turn == 0 else (i + 2) % 3]  # across edge (v, next) or (prev, v)
            if u < 0 or u == t:
                break
            k = 0
            while k < 3 and tris[u, k] != v:
                k += 1
            if k == 3:
                break
            p = tris[u, (k + 1) % 3]
            q = tris[u, (k + 2) % 3]
            px, py, qx, qy = verts[p, 0], verts[p, 1], verts[q, 0], verts[q, 1]
            if (_orient(vx, vy, ex, ey, px, py) <= tol * max(length, _dist(vx, vy, px, py))
                    and _orient(vx, vy, ex, ey, qx, qy) >= -tol * max(length, _dist(vx, vy, qx, qy))):
                return u
    return -1


_NEG_ZERO = -(2 ** 63)
"""The bits of -0.0 as an int64 (equal to 0.0, so hashed as 0.0)."""


@njit(cache=True, nogil=True, inline="always")
def point_slot(bx, by, mask):
    """Hash slot (``& mask``) of a point given by the int64 bits of its float coordinates."""
    if bx == _NEG_ZERO:
        bx = 0
    if by == _NEG_ZERO:
        by = 0
    h = (bx * 0x9E3779B97F4A7C1 + by * 0x2545F4914F6CDD1D) & 0x7FFFFFFFFFFFFFFF
    return (h ^ (h >> 29)) & mask


@njit(cache=True, nogil=True)
def ring_graph(coords, sizes):
    """The planar straight-line graph of closed rings: ``coords`` ``(n, 2)`` (C-contiguous) holds rings of
    ``sizes`` points each, every ring ending with its first point again.

    Returns ``(verts, segs)``: the distinct points (in first-seen order; a point shared by
    several rings, a pinch point, is one vertex) and the ``(s, 2)`` segments between
    consecutive points of each ring (none of zero length).
    """
    total = 0
    for r in range(sizes.shape[0]):
        total += max(sizes[r] - 1, 0)
    size = 16
    while size < 2 * total:
        size *= 2
    mask = size - 1
    table = np.full(size, -1, dtype=np.int64)
    verts = np.empty((total, 2), dtype=np.float64)
    index = np.empty(total, dtype=np.int64)
    bits = coords.view(np.int64)
    nv = 0
    k = 0
    pos = 0
    for r in range(sizes.shape[0]):
        for i in range(sizes[r] - 1):
            x = coords[pos + i, 0]
            y = coords[pos + i, 1]
            h = point_slot(bits[pos + i, 0], bits[pos + i, 1], mask)
            while table[h] >= 0 and (verts[table[h], 0] != x or verts[table[h], 1] != y):
                h = (h + 1) & mask
            if table[h] < 0:
                table[h] = nv
                verts[nv, 0] = x
                verts[nv, 1] = y
                nv += 1
            index[k] = table[h]
            k += 1
        pos += sizes[r]
    segs = np.empty((total, 2), dtype=np.int64)
    ns = 0
    first = 0
    for r in range(sizes.shape[0]):
        m = sizes[r] - 1
        for i in range(m):
            a = index[first + i]
            b = index[first + (i + 1) % m]
            if a != b:
                segs[ns, 0] = a
                segs[ns, 1] = b
                ns += 1
        first += max(m, 0)
    return verts[:nv].copy(), segs[:ns].copy()


@njit(cache=True, nogil=True)
def inside_triangles(verts, tris, opposite, segs):
    """Which triangles of a constrained triangulation lie inside the region its segments bound.

    ``verts`` ``(V, 2)``; ``tris`` ``(T, 3)``; ``opposite[t, i]`` the triangle across the edge
    facing vertex ``i`` (-1 on the hull; Triangle's ``neighbors``); ``segs`` ``(S, 2)`` the
    boundary segments. Every segment separates inside from outside, so crossing one flips the
    side and crossing any other edge keeps it; a hull edge is inside exactly when it is a
    segment. Returns ``(inside, thin, ok)``: ``(T,)`` bool; ``(T,)`` bool, the triangles (on
    either side) too thin for float arithmetic to place their centroid (height below 1e-9 of the
    largest coordinate: the caller decides those by their centroid, as a point query would); and False
    when the sides contradict (segments that are not the boundary of a region: the caller
    tests every centroid instead).
    """
    ns = segs.shape[0]
    size = 16
    while size < 2 * ns:
        size *= 2
    mask = size - 1
    table = np.full(size, -1, dtype=np.int64)
    for s in range(ns):
        key = (min(segs[s, 0], segs[s, 1]) << 32) | max(segs[s, 0], segs[s, 1])
        h = ((key * 0x9E3779B97F4A7C1) & 0x7FFFFFFFFFFFFFFF) >> 17 & mask
        while table[h] >= 0 and table[h] != key:
            h = (h + 1) & mask
        table[h] = key
    n = tris.shape[0]
    is_seg = np.zeros((n, 3), dtype=np.bool_)
    for t in range(n):
        for i in range(3):
            a = tris[t, (i + 1) % 3]
            b = tris[t, (i + 2) % 3]
            key = (min(a, b) << 32) | max(a, b)
            h = ((key * 0x9E3779B97F4A7C1) & 0x7FFFFFFFFFFFFFFF) >> 17 & mask
            while table[h] >= 0 and table[h] != key:
                h = (h + 1) & mask
            is_seg[t, i] = table[h] == key
    side = np.full(n, -1, dtype=np.int8)
    stack = np.empty(n, dtype=np.int64)
    for root in range(n):
        if side[root] >= 0:
            continue
        seed = -1
        for i in range(3):
            if opposite[root, i] < 0:
                seed = 1 if is_seg[root, i] else 0
        if seed < 0:  # reached from a hull triangle later (every component has one)
            continue
        side[root] = seed
        stack[0] = root
        top = 1
        while top > 0:
            top -= 1
            t = stack[top]
            for i in range(3):
                u = opposite[t, i]
                if u < 0:
                    if (side[t] == 1) != is_seg[t, i]:
                        return side == 1, side == 2, False
                    continue
                want = side[t] ^ 1 if is_seg[t, i] else side[t]
                if side[u] < 0:
                    side[u] = want
                    stack[top] = u
                    top += 1
                elif side[u] != want:
                    return side == 1, side == 2, False
    scale = 1.0
    for v in range(verts.shape[0]):
        scale = max(scale, abs(verts[v, 0]), abs(verts[v, 1]))
    limit2 = (1e-9 * scale) ** 2
    thin = np.zeros(n, dtype=np.bool_)
    for t in range(n):
        if side[t] < 0:
            return side == 1, thin, False
        ax, ay = verts[tris[t, 0], 0], verts[tris[t, 0], 1]
        bx, by = verts[tris[t, 1], 0], verts[tris[t, 1], 1]
        cx, cy = verts[tris[t, 2], 0], verts[tris[t, 2], 1]
        area2 = (bx - ax) * (cy - ay) - (by - ay) * (cx - ax)
        longest2 = max((bx - ax) ** 2 + (by - ay) ** 2, (cx - bx) ** 2 + (cy - by) ** 2,
                       (ax - cx) ** 2 + (ay - cy) ** 2)
        thin[t] = area2 * area2 <= limit2 * longest2  # height <= 1e-9 * scale
    return side == 1, thin, True


@njit(cache=True, nogil=True)
def dual_graph(nbrs):
    """Islands and bridges of the triangle adjacency graph (iterative DFS, Tarjan's low-links).

    Returns ``(islands, side, tin, tout)``: ``(T,)`` int64 island labels 0, 1, ...; ``(T, 3)``
    int8 ``side[t, j]`` = 1 if edge j of t is a bridge and its neighbour is t's DFS child, -1 if
    it is a bridge and t is the child, 0 otherwise; DFS entry times ``tin`` and ``tout`` (the
    subtree of t is exactly the triangles with ``tin[t] <= tin[u] < tout[t]``). Crossing a
    bridge into the side that does not hold the goal can never be part of a shortest path.
    """
    n = nbrs.shape[0]
    islands = np.full(n, -1, dtype=np.int64)
    side = np.zeros((n, 3), dtype=np.int8)
    tin = np.full(n, -1, dtype=np.int64)
    tout = np.zeros(n, dtype=np.int64)
    low = np.zeros(n, dtype=np.int64)
    parent = np.full(n, -1, dtype=np.int64)
    stack = np.empty(n, dtype=np.int64)
    next_j = np.zeros(n, dtype=np.int64)
    timer = 0
    label = 0
    for root in range(n):
        if tin[root] >= 0:
            continue
        tin[root] = low[root] = timer
        timer += 1
        islands[root] = label
        stack[0] = root
        top = 1
        while top > 0:
            t = stack[top - 1]
            if next_j[t] < 3:
                u = nbrs[t, next_j[t]]
                next_j[t] += 1
                if u < 0 or u == parent[t]:
                    continue
                if tin[u] < 0:
                    parent[u] = t
                    tin[u] = low[u] = timer
                    timer += 1
                    islands[u] = label
                    stack[top] = u
                    top += 1
                elif tin[u] < low[t]:
                    low[t] = tin[u]
                continue
            top -= 1
            tout[t] = timer
            p = parent[t]
            if p >= 0:
                if low[t] < low[p]:
                    low[p] = low[t]
                if low[t] > tin[p]:
                    for j in range(3):
                        if nbrs[p, j] == t:
                            side[p, j] = 1
                        if nbrs[t, j] == p:
                            side[t, j] = -1
        label += 1
    return islands, side, tin, tout


@njit(cache=True, nogil=True, inline="always")
def _useless(sd, goal_tin, tin_t, tout_t, tin_u, tout_u):
    """Whether crossing edge j of triangle t into u (``sd = side[t, j]``, ``tin``/``tout`` of
    t and u) enters a bridge side without the goal."""
    if sd == 1:
        return not (tin_u <= goal_tin < tout_u)
    if sd == -1:
        return tin_t <= goal_tin < tout_t
    return False


# ---------------------------------------------------------------------------------------------
# portal A* (default mode)

@njit(cache=True, nogil=True, inline="always")
def _on_portal(ax, ay, px, py, qx, qy):
    """Whether the apex ``a`` lies on the closed segment ``p``-``q``: such a portal constrains
    nothing (everything beyond it is visible from ``a``), and a funnel that took it as its
    sides would be flat."""
    return (_orient(px, py, qx, qy, ax, ay) == 0.0 and min(px, qx) <= ax <= max(px, qx)
            and min(py, qy) <= ay <= max(py, qy))


@njit(cache=True, nogil=True)
def _portal_point(px, py, ax, ay, bx, by, gx, gy):
    """The point x on segment ab minimising |p - x| + |x - g| (g mirrored if on p's side)."""
    side_p = _orient(ax, ay, bx, by, px, py)
    side_g = _orient(ax, ay, bx, by, gx, gy)
    if (side_p > 0.0 and side_g > 0.0) or (side_p < 0.0 and side_g < 0.0):  # not their product: it underflows
        ex = bx - ax
        ey = by - ay
        s = ((gx - ax) * ex + (gy - ay) * ey) / (ex * ex + ey * ey)
        gx, gy = 2.0 * (ax + s * ex) - gx, 2.0 * (ay + s * ey) - gy
    d1 = _orient(px, py, gx, gy, ax, ay)
    d2 = _orient(px, py, gx, gy, bx, by)
    if d1 != d2 and ((d1 <= 0.0 <= d2) or (d2 <= 0.0 <= d1)):
        s = d1 / (d1 - d2)
        return ax + s * (bx - ax), ay + s * (by - ay)
    ca = _dist(px, py, ax, ay) + _dist(ax, ay, gx, gy)
    cb = _dist(px, py, bx, by) + _dist(bx, by, gx, gy)
    if ca <= cb:
        return ax, ay
    return bx, by


_W = 1.03
"""Weight of the remaining distance in the default search's ordering (weighted A*): the search
stops once no open label's ``g + _W * h`` beats the best complete path, so that path is within
``_W`` of the best one the labels can give."""
_DOMINANCE = 3e-3
"""A new label must reach one end of its portal this much (relative) more cheaply than every
earlier label crossing that portal, or it is dropped."""


@njit(cache=True, nogil=True, inline="always")
def _funnel_dist(ax, ay, lx, ly, rx, ry, ga, px, py):
    """Lower bound of the corridor distance from the start to ``p`` (a point beyond the last
    portal) through funnel (apex ``a``, left tip ``l``, right tip ``r``, ``ga`` = g of the apex):
    straight from the apex inside the funnel's cone, else around the tip of the side it passes."""
    if (lx != ax or ly != ay) and _orient(ax, ay, lx, ly, px, py) > 0.0:
        return ga + _dist(ax, ay, lx, ly) + _dist(lx, ly, px, py)
    if (rx != ax or ry != ay) and _orient(ax, ay, rx, ry, px, py) < 0.0:
        return ga + _dist(ax, ay, rx, ry) + _dist(rx, ry, px, py)
    return ga + _dist(ax, ay, px, py)


@njit(cache=True, nogil=True)
def _refunnel(verts, ni, k, stop, kk, ax, ay, ga, prx, pry, plx, ply):
    """Re-scan a corridor after its funnel's apex moved to a side tip (simple stupid funnel).

    The new apex ``a`` (``ga`` = its g) is the tip set by the portal into label ``stop``; the
    portals after it are those into the labels after ``stop`` on the chain ending at label
    ``k``, then the portal (right end ``pr``, left end ``pl``) into label ``kk`` (or the goal
    as a one-point portal, ``kk`` = -1). Returns the funnel (apex, left tip, right tip, g of
    apex) and the labels whose portals set the two tips.
    """
    n = 0
    node = k
    while node != stop:
        n += 1
        node = ni[node, 1]
    buf = np.empty((n + 1, 3), dtype=np.int64)  # right vertex, left vertex, label
    node = k
    for i in range(n - 1, -1, -1):
        buf[i, 0] = ni[node, 4]
        buf[i, 1] = ni[node, 5]
        buf[i, 2] = node
        node = ni[node, 1]
    buf[n, 2] = kk  # its ends are pr and pl
    n += 1
    lx, ly, rx, ry = ax, ay, ax, ay
    li = ri = -1  # buffer index of the portal that set each tip (-1: the apex itself)
    i = 0
    while i < n:
        if i < n - 1:
            qrx, qry = verts[buf[i, 0], 0], verts[buf[i, 0], 1]
            qlx, qly = verts[buf[i, 1], 0], verts[buf[i, 1], 1]
        else:
            qrx, qry, qlx, qly = prx, pry, plx, ply
        if _on_portal(ax, ay, qrx, qry, qlx, qly):
            i += 1
            continue
        if (rx == ax and ry == ay) or _orient(ax, ay, rx, ry, qrx, qry) >= 0.0:
            if (lx == ax and ly == ay) or _orient(ax, ay, lx, ly, qrx, qry) < 0.0:
                rx, ry, ri = qrx, qry, i
            else:
                ga += _dist(ax, ay, lx, ly)
                ax, ay = lx, ly
                rx, ry, ri = ax, ay, li
                i = li + 1
                continue
        if (lx == ax and ly == ay) or _orient(ax, ay, lx, ly, qlx, qly) <= 0.0:
            if (rx == ax and ry == ay) or _orient(ax, ay, rx, ry, qlx, qly) > 0.0:
                lx, ly, li = qlx, qly, i
            else:
                ga += _dist(ax, ay, rx, ry)
                ax, ay = rx, ry
                lx, ly, li = ax, ay, ri
                i = ri + 1
                continue
        i += 1
    lk = buf[li, 2] if li >= 0 else stop
    rk = buf[ri, 2] if ri >= 0 else stop
    return ax, ay, lx, ly, rx, ry, ga, lk, rk


@njit(cache=True, nogil=True)
def astar_step(verts, tris, nbrs, side, tin, tout, goal_tin, goal_mask, start, goal, nf, ni, rec,
               tslot, hf, hg, hn, pos, ctr, ucost, max_expansions, costs, weighted):
    """Advance portal A* over triangle labels by at most ``max_expansions`` expansions.

    A label is a triangle reached through a corridor: ``nf[k]`` = (apex x, apex y, left x,
    left y, right x, right y, g of apex, f), ``ni[k]`` = (triangle, parent label, labels whose
    portals set the left and right tips, right and left vertex of the label's entry portal).
    The funnel is the simple stupid funnel, kept incrementally: one step per portal; when a
    side crosses over, the apex moves to the other side's tip and the portals after it are
    re-scanned (:func:`_refunnel`), so ``g`` of the apex is the corridor's exact distance.

    A triangle may hold several labels (TA*, Demyen & Buro 2006: reached through different
    corridors): a new label crossing a portal is kept unless labels that crossed the same
    (undirected) portal already reach both its ends within ``_DOMINANCE`` (relative) of as
    cheaply (``rec``: per triangle slot ``tslot[t]``, 3 edges x (right end, left end) best
    distances, the edge stored in its lower-numbered triangle; tested first with the straight
    lines from the apex, a lower bound, before the funnel step). Labels are ordered by
    ``f = g(apex) + |apex - x| + _W * |x - goal|`` with ``x`` the point of the portal that best
    lines up apex and goal. A label entering a goal triangle is a complete path, costed at
    once (its funnel closed on the goal; with ``weighted``, :func:`weighted_length` of the
    corridor's :func:`funnel`) and never queued; the cheapest so far is ``ucost[0]`` (label
    ``ctr[2]``). The search goes on until no open label's ``f`` beats it. Bridges leading away
    from the goal are skipped (:func:`dual_graph`, ``goal_tin`` = ``tin`` of the goal's
    triangle). Heap: see :mod:`gamenav._kernels.grid_search` (``hn``/``pos`` int32, by label).
    ``ctr`` = [heap size, expanded, best goal label, label count, slot count]. Returns RUNNING,
    DONE_FOUND (``ctr[2]`` = final label; ``hn[:ctr[0]]`` is then its corridor, start to goal
    triangle), DONE_NONE, or NEED_SPACE (grow ``nf``/``ni``/``rec``/heap and call again;
    nothing was changed).

    With ``weighted`` (area costs: ``costs[t]`` >= 1 multiplies lengths inside triangle t), a
    label holds (entry x, entry y, ..., g, f): a triangle is entered at the point of its portal
    that best lines up the previous entry point with the goal and ``g`` sums cost-weighted legs
    between entry points (Detour's scheme).
    """
    cap = nf.shape[0]
    gx = goal[0]
    gy = goal[1]
    count = 0
    li = ri = 0
    while True:
        if ctr[0] == 0 or hf[0] >= ucost[0]:
            if ctr[2] < 0:
                return DONE_NONE
            m = 0
            node = ctr[2]
            while node >= 0:
                m += 1
                node = ni[node, 1]
            ctr[0] = m  # the heap is done with: it now holds the corridor
            node = ctr[2]
            for i in range(m - 1, -1, -1):
                hn[i] = ni[node, 0]
                node = ni[node, 1]
            return DONE_FOUND
        if count >= max_expansions:
            return RUNNING
        if ctr[3] + 4 > cap or ctr[4] + 4 > cap:
            return NEED_SPACE
        k = heap_pop(hf, hg, hn, pos, ctr[0])
        ctr[0] -= 1
        ctr[1] += 1
        count += 1
        t = ni[k, 0]
        if goal_mask[t]:  # only the start label: start and goal share a triangle
            ucost[0] = (costs[t] if weighted else 1.0) * _dist(start[0], start[1], gx, gy)
            ctr[2] = k
            continue
        back = ni[ni[k, 1], 0] if ni[k, 1] >= 0 else -1
        for j in range(3):
            u = nbrs[t, j]
            if u < 0 or u == back:
                continue
            if not goal_mask[u] and _useless(side[t, j], goal_tin, tin[t], tout[t], tin[u],
                                             tout[u]):
                continue
            vr = tris[t, j]
            vl = tris[t, (j + 1) % 3]
            prx = verts[vr, 0]
            pry = verts[vr, 1]
            plx = verts[vl, 0]
            ply = verts[vl, 1]
            ax, ay, lx, ly, rx, ry, ga = (nf[k, 0], nf[k, 1], nf[k, 2], nf[k, 3], nf[k, 4],
                                          nf[k, 5], nf[k, 6])
            kk = ctr[3]
            s = b_r = b_l = 0
            if not goal_mask[u]:
                # the portal's dominance record, stored once per undirected edge: slot s of
                # its lower-numbered triangle, columns b_r / b_l for its ends as seen from t
                if t < u:
                    owner = t
                    b_r = 2 * j
                    b_l = b_r + 1
                else:
                    owner = u
                    e = 0
                    while nbrs[u, e] != t:
                        e += 1
                    b_l = 2 * e
                    b_r = b_l + 1
                s = tslot[owner]
                if s < 0:
                    s = ctr[4]
                    ctr[4] += 1
                    tslot[owner] = s
                    for i in range(6):
                        rec[s, i] = np.inf
                if not weighted:  # straight from the apex: a lower bound, cheap to test first
                    d_r = ga + _dist(ax, ay, prx, pry)
                    d_l = ga + _dist(ax, ay, plx, ply)
                    if (d_r >= rec[s, b_r] - _DOMINANCE * d_r
                            and d_l >= rec[s, b_l] - _DOMINANCE * d_l):
                        continue
            if weighted:
                qx, qy = _portal_point(ax, ay, prx, pry, plx, ply, gx, gy)
                c = costs[t]
                gq = ga + c * _dist(ax, ay, qx, qy)
                f = gq + _W * _dist(qx, qy, gx, gy)
                d_r = ga + c * _dist(ax, ay, prx, pry)
                d_l = ga + c * _dist(ax, ay, plx, ply)
                ax, ay, ga = qx, qy, gq
            else:
                li = ni[k, 2]
                ri = ni[k, 3]
                if not _on_portal(ax, ay, prx, pry, plx, ply):
                    stop = -1
                    if (rx == ax and ry == ay) or _orient(ax, ay, rx, ry, prx, pry) >= 0.0:
                        if (lx == ax and ly == ay) or _orient(ax, ay, lx, ly, prx, pry) < 0.0:
                            rx, ry, ri = prx, pry, kk
                        else:  # the right side crosses the left one: the apex moves to its tip
                            stop = li
                            ga += _dist(ax, ay, lx, ly)
                            ax, ay = lx, ly
                    if stop < 0 and ((lx == ax and ly == ay)
                                     or _orient(ax, ay, lx, ly, plx, ply) <= 0.0):
                        if (rx == ax and ry == ay) or _orient(ax, ay, rx, ry, plx, ply) > 0.0:
                            lx, ly, li = plx, ply, kk
                        elif ri == kk:  # onto this portal's right end: nothing to re-scan
                            ga += _dist(ax, ay, rx, ry)
                            ax, ay = rx, ry
                            lx, ly, li = ax, ay, kk
                        else:
                            stop = ri
                            ga += _dist(ax, ay, rx, ry)
                            ax, ay = rx, ry
                    if stop >= 0:
                        ax, ay, lx, ly, rx, ry, ga, li, ri = _refunnel(
                            verts, ni, k, stop, kk, ax, ay, ga, prx, pry, plx, ply)
                d_r = _funnel_dist(ax, ay, lx, ly, rx, ry, ga, prx, pry)
                d_l = _funnel_dist(ax, ay, lx, ly, rx, ry, ga, plx, ply)
                f = 0.0  # after the dominance test
            nf[kk, 0], nf[kk, 1], nf[kk, 2], nf[kk, 3] = ax, ay, lx, ly
            nf[kk, 4], nf[kk, 5], nf[kk, 6] = rx, ry, ga
            ni[kk, 0], ni[kk, 1], ni[kk, 2], ni[kk, 3], ni[kk, 4], ni[kk, 5] = u, k, li, ri, vr, vl
            if goal_mask[u]:  # a complete path: the corridor pulled taut to the goal
                if weighted:
                    m = 0
                    node = kk
                    while node >= 0:
                        m += 1
                        node = ni[node, 1]
                    corridor = np.empty(m, dtype=np.int64)
                    node = kk
                    for i in range(m - 1, -1, -1):
                        corridor[i] = ni[node, 0]
                        node = ni[node, 1]
                    pts = funnel(verts, tris, nbrs, corridor, start, goal)
                    c = weighted_length(verts, tris, nbrs, corridor, pts, costs)
                else:
                    stop = -1
                    if (lx != ax or ly != ay) and _orient(ax, ay, lx, ly, gx, gy) > 0.0:
                        stop = li
                        ga += _dist(ax, ay, lx, ly)
                        ax, ay = lx, ly
                    elif (rx != ax or ry != ay) and _orient(ax, ay, rx, ry, gx, gy) < 0.0:
                        stop = ri
                        ga += _dist(ax, ay, rx, ry)
                        ax, ay = rx, ry
                    if stop >= 0:  # the goal is outside the funnel: re-scan from the new apex
                        ax, ay, lx, ly, rx, ry, ga, li, ri = _refunnel(
                            verts, ni, kk, stop, -1, ax, ay, ga, gx, gy, gx, gy)
                    c = ga + _dist(ax, ay, gx, gy)
                if c < ucost[0]:
                    ucost[0] = c
                    ctr[2] = kk
                    ctr[3] += 1
                continue
            if (d_r >= rec[s, b_r] - _DOMINANCE * d_r
                    and d_l >= rec[s, b_l] - _DOMINANCE * d_l):
                continue
            if not weighted:
                qx, qy = _portal_point(ax, ay, prx, pry, plx, ply, gx, gy)
                f = ga + _dist(ax, ay, qx, qy) + _W * _dist(qx, qy, gx, gy)
            if f >= ucost[0]:
                continue
            nf[kk, 7] = f
            rec[s, b_r] = min(rec[s, b_r], d_r)
            rec[s, b_l] = min(rec[s, b_l], d_l)
            ctr[3] += 1
            heap_sift_up(hf, hg, hn, pos, ctr[0], kk, f, ga)
            ctr[0] += 1


@njit(cache=True, nogil=True)
def funnel(verts, tris, nbrs, corridor, start, goal):
    """String-pull a corridor of adjacent triangles (simple stupid funnel): ``(n, 2)`` waypoints."""
    m = corridor.shape[0]
    left = np.empty((m, 2))
    right = np.empty((m, 2))
    for i in range(m - 1):
        t = corridor[i]
        u = corridor[i + 1]
        for j in range(3):
            if nbrs[t, j] == u:
                right[i, 0] = verts[tris[t, j], 0]
                right[i, 1] = verts[tris[t, j], 1]
                left[i, 0] = verts[tris[t, (j + 1) % 3], 0]
                left[i, 1] = verts[tris[t, (j + 1) % 3], 1]
                break
    left[m - 1, 0] = goal[0]
    left[m - 1, 1] = goal[1]
    right[m - 1, 0] = goal[0]
    right[m - 1, 1] = goal[1]
    out = np.empty((m + 2, 2))
    out[0, 0] = start[0]
    out[0, 1] = start[1]
    n = 1
    ax, ay = start[0], start[1]
    lx, ly = ax, ay
    rx, ry = ax, ay
    li = 0
    ri = 0
    i = 0
    while i < m:
        plx, ply = left[i, 0], left[i, 1]
        prx, pry = right[i, 0], right[i, 1]
        if i < m - 1 and _on_portal(ax, ay, prx, pry, plx, ply):
            i += 1
            continue
        # tighten the right side
        if _orient(ax, ay, rx, ry, prx, pry) >= 0.0:
            if (ax == rx and ay == ry) or _orient(ax, ay, lx, ly, prx, pry) < 0.0:
                rx, ry = prx, pry
                ri = i
            else:
                ax, ay = lx, ly
                if out[n - 1, 0] != ax or out[n - 1, 1] != ay:
                    out[n, 0] = ax
                    out[n, 1] = ay
                    n += 1
                rx, ry = ax, ay
                ri = li
                i = li + 1
                continue
        # tighten the left side
        if _orient(ax, ay, lx, ly, plx, ply) <= 0.0:
            if (ax == lx and ay == ly) or _orient(ax, ay, rx, ry, plx, ply) > 0.0:
                lx, ly = plx, ply
                li = i
            else:
                ax, ay = rx, ry
                if out[n - 1, 0] != ax or out[n - 1, 1] != ay:
                    out[n, 0] = ax
                    out[n, 1] = ay
                    n += 1
                lx, ly = ax, ay
                li = ri
                i = ri + 1
                continue
        i += 1
    if out[n - 1, 0] != goal[0] or out[n - 1, 1] != goal[1] or n == 1:
        out[n, 0] = goal[0]
        out[n, 1] = goal[1]
        n += 1
    return out[:n].copy()


@njit(cache=True, nogil=True)
def weighted_length(verts, tris, nbrs, corridor, points, costs):
    """Cost-weighted length of a taut path ``points`` ``(n, 2)`` through ``corridor``: each part
    between consecutive portal crossings is weighted by ``costs`` of the triangle it lies in."""
    m = corridor.shape[0]
    n = points.shape[0]
    total = 0.0
    done = 0.0  # arclength at the last portal crossing
    run = 0.0  # arclength at the start of segment k
    k = 0
    for i in range(m - 1):
        t = corridor[i]
        j = 0
        while nbrs[t, j] != corridor[i + 1]:
            j += 1
        prx, pry = verts[tris[t, j], 0], verts[tris[t, j], 1]
        plx, ply = verts[tris[t, (j + 1) % 3], 0], verts[tris[t, (j + 1) % 3], 1]
        while k < n - 2 and _orient(prx, pry, plx, ply, points[k + 1, 0], points[k + 1, 1]) > 0.0:
            run += _dist(points[k, 0], points[k, 1], points[k + 1, 0], points[k + 1, 1])
            k += 1
        op = _orient(prx, pry, plx, ply, points[k, 0], points[k, 1])
        oq = _orient(prx, pry, plx, ply, points[k + 1, 0], points[k + 1, 1])
        tt = 0.0 if op <= 0.0 else (op / (op - oq) if oq < 0.0 else 1.0)
        at = run + tt * _dist(points[k, 0], points[k, 1], points[k + 1, 0], points[k + 1, 1])
        if at > done:
            total += costs[t] * (at - done)
            done = at
    for kk in range(k, n - 1):
        run += _dist(points[kk, 0], points[kk, 1], points[kk + 1, 0], points[kk + 1, 1])
    if run > done:
        total += costs[corridor[m - 1]] * (run - done)
    return total


# ---------------------------------------------------------------------------------------------
# Polyanya over triangles (exact mode; Cui, Harabor & Grastien 2017)
#
# node float fields (nf): 0 root x, 1 root y, 2 left x, 3 left y, 4 right x, 5 right y, 6 g, 7 f
# node int fields (ni):   0 root vertex (-1 start point, -2 free bend point), 1 left vertex,
#                         2 right vertex, 3 next triangle (-1: final node), 4 parent node,
#                         5 triangle the node was generated from
#
# Everything touching arrays lives in the body of polyanya_step: numba increfs and decrefs
# (atomically) every array handed to an inlined helper with branches, which once cost most of
# the run time. Helpers below take and return scalars only, or are branch-free (_succ).

_EPS = 1e-9


@njit(cache=True, nogil=True, inline="always")
def _interval_h(rx, ry, lx, ly, qx, qy, gx, gy):
    """Lower bound of root -> interval [right q, left l] -> goal (goal mirrored if behind)."""
    side_r = _orient(qx, qy, lx, ly, rx, ry)
    scale = abs(qx - lx) + abs(qy - ly) + abs(qx - rx) + abs(qy - ry)
    if abs(side_r) <= _EPS * scale * scale:
        return _dist(rx, ry, gx, gy)
    side_g = _orient(qx, qy, lx, ly, gx, gy)
    if (side_g > 0.0 and side_r > 0.0) or (side_g < 0.0 and side_r < 0.0):  # goal on the root's side: reflect it
        ex = lx - qx
        ey = ly - qy
        s = ((gx - qx) * ex + (gy - qy) * ey) / (ex * ex + ey * ey)
        fx = qx + s * ex
        fy = qy + s * ey
        gx = 2.0 * fx - gx
        gy = 2.0 * fy - gy
    if _orient(rx, ry, lx, ly, gx, gy) > 0.0:  # left of the left ray
        return _dist(rx, ry, lx, ly) + _dist(lx, ly, gx, gy)
    if _orient(rx, ry, qx, qy, gx, gy) < 0.0:  # right of the right ray
        return _dist(rx, ry, qx, qy) + _dist(qx, qy, gx, gy)
    return _dist(rx, ry, gx, gy)


@njit(cache=True, nogil=True, inline="always")
def _ray_param(rx, ry, dx, dy, px, py, qx, qy):
    """Parameter along segment p -> q where the line through r and d crosses it, in [0, 1]."""
    op = _orient(rx, ry, dx, dy, px, py)
    oq = _orient(rx, ry, dx, dy, qx, qy)
    if op == oq:
        return 0.0
    t = op / (op - oq)
    if t < 1e-10:
        return 0.0
    if t > 1.0 - 1e-10:
        return 1.0
    return t


@njit(cache=True, nogil=True, inline="always")
def _root_ok(best, g):
    """Root-level pruning: a new root vertex is kept only if reached (almost) as cheaply as
    its best ``g`` so far (``best``): within a relative 1e-9, so meshes of any scale prune alike."""
    return g <= best + 1e-9 * g


@njit(cache=True, nogil=True, inline="always")
def _succ(sf, si, n, rid, rx, ry, g, pv, qv, t0, t1, e, tri_from):
    """Record candidate successor ``n`` (on edge ``e`` = p -> q of ``tri_from``, params
    ``t0 < t1``, right end at ``t0``) in the scratch rows ``sf``/``si``; returns ``n + 1``."""
    sf[n, 0] = rx
    sf[n, 1] = ry
    sf[n, 2] = g
    sf[n, 3] = t0
    sf[n, 4] = t1
    si[n, 0] = rid
    si[n, 1] = pv
    si[n, 2] = qv
    si[n, 3] = e
    si[n, 4] = tri_from
    return n + 1


@njit(cache=True, nogil=True, error_model="numpy")
def polyanya_step(verts, tris, nbrs, corner, degree, side, tin, tout, goal_tin, goal_mask, goal,
                  start, starts, nf, ni, hf, hg, hn, pos, root_g, ctr, max_expansions, tol):
    """Advance a Polyanya search by at most ``max_expansions`` node expansions.

    ``ctr`` = [heap size, expanded, node count, final node, start vertex (-1: none), node to
    expand first: -1 the initial intervals (set by the caller), -2 one popped from the heap, else
    a corridor node the last call's budget stopped at]. The first call pushes the initial
    intervals: the edges of the start triangle ``starts[0]`` (root = start point), or, when the
    start is vertex ``ctr[4]``, the opposite edge of each incident triangle in ``starts``. A lone
    successor entering a corridor triangle (two neighbours, not the goal's) is expanded next
    without touching the heap (Polyanya's intermediate pruning): in this call if the budget
    allows, else first in the next one (so slices expand the nodes in the one-shot order).
    Empty successors, those leading off the mesh and those crossing a bridge away from the goal
    (:func:`dual_graph`) are dropped. An interval end within
    ``tol`` (world units, the mesh tolerance) of its edge's end vertex is that vertex: computed
    ends drift (next to a sliver, 2e-8 from a corner at (12, 6)), and a corner is a new root
    only when an end is exactly on it (else the way round it was lost). Returns RUNNING,
    DONE_FOUND (``ctr[3]`` = final node), DONE_NONE, or NEED_SPACE (grow ``nf``/``ni``/heap
    and call again; nothing was changed). On DONE_FOUND, ``hn[:ctr[0]]`` is the chain of nodes
    from an initial one to the final one.
    """
    cap = nf.shape[0]
    gx = goal[0]
    gy = goal[1]
    sf = np.empty((max(4, 3 * starts.shape[0]), 5))
    si = np.empty((sf.shape[0], 5), dtype=np.int64)
    count = 0
    k = ctr[5]  # node to expand next: -2 pop one from the heap, -1 the initial intervals
    ctr[5] = -2
    while True:
        n = 0
        first = ctr[2]
        if k == -1:
            v = ctr[4]
            for idx in range(starts.shape[0]):
                t = starts[idx]
                if v >= 0:
                    j = 0
                    while tris[t, j] != v:
                        j += 1
                    n = _succ(sf, si, n, v, start[0], start[1], 0.0, tris[t, (j + 1) % 3],
                              tris[t, (j + 2) % 3], 0.0, 1.0, (j + 1) % 3, t)
                else:
                    for j in range(3):
                        n = _succ(sf, si, n, -1, start[0], start[1], 0.0, tris[t, j],
                                  tris[t, (j + 1) % 3], 0.0, 1.0, j, t)
        else:
            if k == -2:
                if ctr[0] == 0:
                    return DONE_NONE
                if count >= max_expansions:
                    return RUNNING
                if ctr[2] + 8 > cap:
                    return NEED_SPACE
                k = heap_pop(hf, hg, hn, pos, ctr[0])
                ctr[0] -= 1
                if ni[k, 3] < 0:  # final node: the cheapest complete path
                    ctr[3] = k
                    ctr[1] += 1
                    m = 0
                    node = k
                    while node >= 0:
                        m += 1
                        node = ni[node, 4]
                    ctr[0] = m  # the heap is done with: it now holds the node chain
                    for i in range(m - 1, -1, -1):
                        hn[i] = k
                        k = ni[k, 4]
                    return DONE_FOUND
                rid = ni[k, 0]
                if rid >= 0 and not _root_ok(root_g[rid], nf[k, 6]):
                    k = -2
                    continue
            ctr[1] += 1
            count += 1
            # expand node k: its successors go to sf/si, a final node straight to nf/ni
            rid = ni[k, 0]
            g = nf[k, 6]
            rx, ry = nf[k, 0], nf[k, 1]
            lx, ly = nf[k, 2], nf[k, 3]
            qx, qy = nf[k, 4], nf[k, 5]
            a = ni[k, 1]  # left vertex
            b = ni[k, 2]  # right vertex
            t = ni[k, 3]
            j = 0
            while tris[t, j] != a:
                j += 1
            c = tris[t, (j + 2) % 3]
            ebc = (j + 1) % 3  # edge b -> c
            eca = (j + 2) % 3  # edge c -> a
            if goal_mask[t]:
                # final node: bend at an interval end if the goal is outside the visible cone
                kk = ctr[2]
                ctr[2] += 1
                fx, fy, gg, frid = rx, ry, g, rid
                if rid != a and rid != b:
                    if _orient(rx, ry, lx, ly, gx, gy) > 0.0:
                        fx, fy, frid = lx, ly, -2
                        gg = g + _dist(rx, ry, lx, ly)
                    elif _orient(rx, ry, qx, qy, gx, gy) < 0.0:
                        fx, fy, frid = qx, qy, -2
                        gg = g + _dist(rx, ry, qx, qy)
                nf[kk, 0], nf[kk, 1] = fx, fy
                nf[kk, 2], nf[kk, 3] = gx, gy
                nf[kk, 4], nf[kk, 5] = gx, gy
                nf[kk, 6] = gg
                nf[kk, 7] = gg + _dist(fx, fy, gx, gy)
                ni[kk, 0] = frid
                ni[kk, 1] = -1
                ni[kk, 2] = -1
                ni[kk, 3] = -1
                ni[kk, 4] = k
                ni[kk, 5] = t
            elif rid == a or rid == b:  # noqa: SIM109 - root at an interval end: the whole triangle is visible
                n = _succ(sf, si, n, rid, rx, ry, g, b, c, 0.0, 1.0, ebc, t)
                n = _succ(sf, si, n, rid, rx, ry, g, c, a, 0.0, 1.0, eca, t)
            else:
                cx, cy = verts[c, 0], verts[c, 1]
                ax, ay = verts[a, 0], verts[a, 1]
                bx, by = verts[b, 0], verts[b, 1]
                # an interval end at a corner vertex may become a new root (non-observable part)
                new_b = qx == bx and qy == by and corner[b]
                new_a = lx == ax and ly == ay and corner[a]
                gb = ga = 0.0
                inside = (_orient(rx, ry, qx, qy, cx, cy) > 0.0
                          and _orient(rx, ry, lx, ly, cx, cy) < 0.0)
                if new_b and not inside:
                    gb = g + _dist(rx, ry, bx, by)
                    new_b = _root_ok(root_g[b], gb)
                    if new_b:
                        root_g[b] = min(root_g[b], gb)
                if new_a and not inside:
                    ga = g + _dist(rx, ry, ax, ay)
                    new_a = _root_ok(root_g[a], ga)
                    if new_a:
                        root_g[a] = min(root_g[a], ga)
                if _orient(rx, ry, qx, qy, cx, cy) <= 0.0:
                    # c on or right of the right ray: edge b-c lies in b's shadow
                    t_r = _ray_param(rx, ry, qx, qy, cx, cy, ax, ay)
                    t_l = _ray_param(rx, ry, lx, ly, cx, cy, ax, ay)
                    if new_b:
                        n = _succ(sf, si, n, b, bx, by, gb, b, c, 0.0, 1.0, ebc, t)
                        n = _succ(sf, si, n, b, bx, by, gb, c, a, 0.0, t_r, eca, t)
                    n = _succ(sf, si, n, rid, rx, ry, g, c, a, t_r, t_l, eca, t)
                    if new_a:
                        n = _succ(sf, si, n, a, ax, ay, ga, c, a, t_l, 1.0, eca, t)
                elif _orient(rx, ry, lx, ly, cx, cy) >= 0.0:
                    # c on or left of the left ray: edge c-a lies in a's shadow
                    t_r = _ray_param(rx, ry, qx, qy, bx, by, cx, cy)
                    t_l = _ray_param(rx, ry, lx, ly, bx, by, cx, cy)
                    if new_b:
                        n = _succ(sf, si, n, b, bx, by, gb, b, c, 0.0, t_r, ebc, t)
                    n = _succ(sf, si, n, rid, rx, ry, g, b, c, t_r, t_l, ebc, t)
                    if new_a:
                        n = _succ(sf, si, n, a, ax, ay, ga, b, c, t_l, 1.0, ebc, t)
                        n = _succ(sf, si, n, a, ax, ay, ga, c, a, 0.0, 1.0, eca, t)
                else:
                    # c inside the cone: both far edges are partly visible from the root
                    t_r = _ray_param(rx, ry, qx, qy, bx, by, cx, cy)
                    t_l = _ray_param(rx, ry, lx, ly, cx, cy, ax, ay)
                    n = _succ(sf, si, n, rid, rx, ry, g, b, c, t_r, 1.0, ebc, t)
                    n = _succ(sf, si, n, rid, rx, ry, g, c, a, 0.0, t_l, eca, t)
        # turn the candidates into nodes
        for m in range(n):
            t0 = sf[m, 3]
            t1 = sf[m, 4]
            if t1 - t0 <= 1e-12:
                continue
            tf = si[m, 4]
            e = si[m, 3]
            nxt = nbrs[tf, e]
            if nxt < 0 or (not goal_mask[nxt] and _useless(side[tf, e], goal_tin, tin[tf],
                                                           tout[tf], tin[nxt], tout[nxt])):
                continue
            pv = si[m, 1]
            qv = si[m, 2]
            px, py = verts[pv, 0], verts[pv, 1]
            ex, ey = verts[qv, 0], verts[qv, 1]
            span = _dist(px, py, ex, ey)
            if t0 > 0.0 and t0 * span <= tol:
                t0 = 0.0
            if t1 < 1.0 and (1.0 - t1) * span <= tol:
                t1 = 1.0
            rgx, rgy = px, py  # right end (at t0)
            lfx, lfy = ex, ey  # left end (at t1)
            if t0 > 0.0:
                rgx, rgy = px + t0 * (ex - px), py + t0 * (ey - py)
            if t1 < 1.0:
                lfx, lfy = px + t1 * (ex - px), py + t1 * (ey - py)
            nrx, nry, ng = sf[m, 0], sf[m, 1], sf[m, 2]
            kk = ctr[2]
            ctr[2] += 1
            nf[kk, 0], nf[kk, 1] = nrx, nry
            nf[kk, 2], nf[kk, 3] = lfx, lfy
            nf[kk, 4], nf[kk, 5] = rgx, rgy
            nf[kk, 6] = ng
            nf[kk, 7] = ng + _interval_h(nrx, nry, lfx, lfy, rgx, rgy, gx, gy)
            ni[kk, 0] = si[m, 0]
            ni[kk, 1] = qv
            ni[kk, 2] = pv
            ni[kk, 3] = nxt
            ni[kk, 4] = k
            ni[kk, 5] = tf
        if k >= 0 and ctr[2] == first + 1 and ctr[2] + 8 <= cap:
            nxt = ni[first, 3]
            if nxt >= 0 and degree[nxt] == 2 and not goal_mask[nxt]:
                if count >= max_expansions:
                    ctr[5] = first
                    return RUNNING
                k = first
                continue
        for kk in range(first, ctr[2]):
            heap_sift_up(hf, hg, hn, pos, ctr[0], kk, nf[kk, 7], nf[kk, 6])
            ctr[0] += 1
        k = -2
