"""ORCA kernels: reciprocal velocities (van den Berg, Guy, Lin, Manocha 2009) among agents and grid walls.

Positions and velocities are ``(n, 2)`` float64 world ``(x, y)``; grid arrays are ``[y, x]``.
The algorithm is RVO2's (agent ORCA lines, obstacle ORCA lines with convex/concave vertices,
the 2-D linear program and its 3-D fallback when infeasible), written for arrays: neighbours
come from a cell grid of sorted arrays (:func:`cell_list`), the k nearest within
``neighbor_dist`` found in rings of hash cells that stop once nothing nearer can come;
static obstacles are the edges between passable and blocked cells (outside the grid counts as
blocked), each a segment of a wall contour whose vertices know their convexity, and the edges of
an obstacle table (a navmesh world's obstacles, exact: see :func:`crowd_step`) found through its
bucket index, so that an agent looks at the few edges near it however many obstacles there are.

Ties (equal distances) are broken by index (agents) and by scan order (walls: world cell row,
column, side), so the result is deterministic. :func:`crowd_step` is a whole avoidance step
in one call: ORCA, the move, then overlapping discs pushed apart (Gauss-Seidel over the touching
pairs) and out of blocked cells and obstacles. The public wrapper is
:class:`gamenav.runtime.crowd.Crowd`; nothing here validates its inputs.
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt
from numba import njit

from gamenav._kernels.crowd import MAX_CANDIDATES, resolve_walls

__all__ = ["blocked_table", "cell_list", "crowd_step", "discs_off_walls", "orca_velocities", "resolve_discs"]

EPS = 1e-5
"""RVO_EPSILON: parallel-line and coverage tolerance of RVO2."""
_WAIT_CHAIN = 10
"""An agent waits behind one that gives way, and so on: chains end after this many agents."""
_BIGGER = 1.6
_BIG_SHARE = 0.1
"""Of two agents whose radii differ more than :data:`_BIGGER` times, the bigger takes this share of
their avoidance and the smaller the rest (RVO2: half each): tanks keep their line through a crowd
of infantry instead of waiting for a gap they fit (the choke point's 8 seeds: all across in 3798
instead of 4125 frames on average)."""
_ASIDE = 0.3
"""An agent waiting at the mouth of a one-way passage steps to its right at this fraction of its
preferred speed, out of the way of those coming out."""

_NEAREST = 4
"""When an agent's constraints cannot all be met (a dense crowd), it first takes the velocity
nearest its preferred one that meets the walls and only its this many nearest neighbours' lines
(the later ones are the farther agents, whose overlaps the disc resolution after the move
removes); only when even those leave no velocity does RVO2's 3-D fallback (the least violation
of all of them) decide. The fallback against every neighbour settles on a crawl in a pressed
crowd: the choke point's single group crossed a 3-cell bridge in 1353 frames on average (seeds
1-8), 977 with this."""

_TINY = float(np.finfo(np.float64).tiny)
"""The smallest normal float64, the least cell size of :func:`cell_list`."""

_DODGE = 0.5
"""An idle agent that moving ones come at steps off their lines at this fraction of its speed
(instead of being shoved ahead of them, e.g. through a passage)."""

# wall sides, scan order: a free cell's neighbour at +x, -x, +y, -y (world axes)
_NX = np.array([1, -1, 0, 0], np.int64)
_NY = np.array([0, 0, 1, -1], np.int64)


@njit(cache=True, nogil=True, inline="always")
def _blocked(passable, i, j, y_up):  # pragma: no cover - compiled
    """Whether world cell ``(i, j)`` (x to the right, y up the world axis) is blocked or outside."""
    h = passable.shape[0]
    if i < 0 or j < 0 or i >= passable.shape[1] or j >= h:
        return True
    row = h - 1 - j if y_up else j
    return not passable[row, i]


_RELAX = 1.15
"""Over-relaxation of the overlap sweeps from sweep :data:`_RELAX_AFTER` on: a pair is pushed 15%
past touching, so that chains of contacts in a dense crowd settle in fewer sweeps (a jammed frame
of the demo's 1000 units: the whole avoidance step 3.1 -> 2.3 ms). Not from the first sweep: the
few overlaps of a crowd that ORCA keeps apart are closed exactly (relaxed at once, the circle swap
took 35% more steps)."""
_RELAX_AFTER = 4

_MAX_PAIRS = 32
"""The overlap resolution pushes each disc off at most this many others of higher index near it
(a disc has a dozen at most in a crowd, even one pressed together; where the cells around it hold
more, it looks at this many of each cell's): thousands of agents on one spot made every pair of
them one, millions, and collecting and sweeping them took seconds."""

_COARSE = 16
"""Cells per side of the coarse summed-area table's blocks (:func:`blocked_table`)."""

_HAIR = 1e-6
"""A disc overlapping a wall by at most this many cells counts as clear of it (``wall_overlaps``):
pushed off one side of a gap exactly as wide as itself (a disc of half a cell in a corridor one
cell wide) by the push's margin of 1e-9 cells, it touches the other side by as much, for ever."""


def blocked_table(passable: npt.NDArray[np.bool_], y_up: bool) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """Summed-area tables of ``~passable`` [y, x] with rows in world order (row 0 lowest world
    y), for :func:`_window_clear`: ``(sat, coarse)``. ``sat`` ``(h + 1, w + 1)`` int64:
    ``sat[j, i]`` counts the blocked cells below row j, left of column i; ``coarse`` is ``sat``
    at every :data:`_COARSE`-th row and column and the last (small enough to stay in cache).
    Plain numpy (built once per grid snapshot)."""
    blocked = ~np.asarray(passable, dtype=np.bool_)
    if y_up:
        blocked = blocked[::-1]
    h, w = blocked.shape
    sat = np.zeros((h + 1, w + 1), np.int64)
    sat[1:, 1:] = blocked.cumsum(axis=0).cumsum(axis=1)
    rows = np.minimum(np.arange(0, h + _COARSE, _COARSE), h)
    cols = np.minimum(np.arange(0, w + _COARSE, _COARSE), w)
    return sat, np.ascontiguousarray(sat[rows][:, cols])


@njit(cache=True, nogil=True, inline="always")
def _window_clear(sat, i0, j0, i1, j1):  # pragma: no cover - compiled
    """Whether world cells ``i0 <= i < i1``, ``j0 <= j < j1`` (inside the grid) are all free,
    from ``sat = blocked_table(...)``: the coarse blocks around the window first."""
    fine, coarse = sat
    b0 = i0 // _COARSE
    c0 = j0 // _COARSE
    b1 = (i1 + _COARSE - 1) // _COARSE
    c1 = (j1 + _COARSE - 1) // _COARSE
    if coarse[c1, b1] - coarse[c0, b1] - coarse[c1, b0] + coarse[c0, b0] == 0:
        return True
    return fine[j1, i1] - fine[j0, i1] - fine[j1, i0] + fine[j0, i0] == 0


@njit(cache=True, nogil=True, inline="always")
def _det(ax, ay, bx, by):  # pragma: no cover - compiled
    return ax * by - ay * bx


@njit(cache=True, nogil=True, inline="always")
def _tangents(relx, rely, dist_sq, r):  # pragma: no cover - compiled
    """Left and right leg directions ``(llx, lly, rlx, rly)`` of the tangents from the agent to a
    disc of radius ``r`` around an obstacle vertex at ``rel`` (``dist_sq = |rel|^2 > r^2``)."""
    leg = math.sqrt(max(dist_sq - r * r, 0.0))
    return ((relx * leg - rely * r) / dist_sq, (relx * r + rely * leg) / dist_sq,
            (relx * leg + rely * r) / dist_sq, (-relx * r + rely * leg) / dist_sq)


@njit(cache=True, nogil=True, inline="always")
def _lp1(lines, line_no, radius, optx, opty, direction_opt, res):  # pragma: no cover - compiled
    """RVO2 linearProgram1: optimum on line ``line_no`` subject to lines ``0..line_no-1`` and the disc."""
    px = lines[line_no, 0]
    py = lines[line_no, 1]
    dx = lines[line_no, 2]
    dy = lines[line_no, 3]
    dot = px * dx + py * dy
    disc = dot * dot + radius * radius - (px * px + py * py)
    if disc < 0.0:
        return False
    sq = math.sqrt(disc)
    t_left = -dot - sq
    t_right = -dot + sq
    for i in range(line_no):
        denominator = _det(dx, dy, lines[i, 2], lines[i, 3])
        numerator = _det(lines[i, 2], lines[i, 3], px - lines[i, 0], py - lines[i, 1])
        if abs(denominator) <= EPS:
            if numerator < 0.0:
                return False
            continue
        t = numerator / denominator
        if denominator >= 0.0:
            t_right = min(t_right, t)
        else:
            t_left = max(t_left, t)
        if t_left > t_right:
            return False
    if direction_opt:
        if optx * dx + opty * dy > 0.0:
            res[0] = px + t_right * dx
            res[1] = py + t_right * dy
        else:
            res[0] = px + t_left * dx
            res[1] = py + t_left * dy
    else:
        t = dx * (optx - px) + dy * (opty - py)
        if t < t_left:
            t = t_left
        elif t > t_right:
            t = t_right
        res[0] = px + t * dx
        res[1] = py + t * dy
    return True


@njit(cache=True, nogil=True)
def _lp2(lines, count, radius, optx, opty, direction_opt, res):  # pragma: no cover - compiled
    """RVO2 linearProgram2 over ``lines[:count]``; returns the first failing line (``count``: none)."""
    if direction_opt:
        res[0] = optx * radius
        res[1] = opty * radius
    elif optx * optx + opty * opty > radius * radius:
        norm = math.sqrt(optx * optx + opty * opty)
        res[0] = optx / norm * radius
        res[1] = opty / norm * radius
    else:
        res[0] = optx
        res[1] = opty
    for i in range(count):
        if _det(lines[i, 2], lines[i, 3], lines[i, 0] - res[0], lines[i, 1] - res[1]) > 0.0:
            tx = res[0]
            ty = res[1]
            if not _lp1(lines, i, radius, optx, opty, direction_opt, res):
                res[0] = tx
                res[1] = ty
                return i
    return count


@njit(cache=True, nogil=True)
def _lp3(lines, count, num_obst, begin, radius, res, proj):  # pragma: no cover - compiled
    """RVO2 linearProgram3: the velocity that least violates the agent lines (walls stay hard)."""
    distance = 0.0
    for i in range(begin, count):
        pix = lines[i, 0]
        piy = lines[i, 1]
        dix = lines[i, 2]
        diy = lines[i, 3]
        if _det(dix, diy, pix - res[0], piy - res[1]) > distance:
            m = num_obst
            proj[:num_obst, :] = lines[:num_obst, :]
            for j in range(num_obst, i):
                djx = lines[j, 2]
                djy = lines[j, 3]
                determinant = _det(dix, diy, djx, djy)
                if abs(determinant) <= EPS:
                    if dix * djx + diy * djy > 0.0:
                        continue
                    qx = 0.5 * (pix + lines[j, 0])
                    qy = 0.5 * (piy + lines[j, 1])
                else:
                    s = _det(djx, djy, pix - lines[j, 0], piy - lines[j, 1]) / determinant
                    qx = pix + s * dix
                    qy = piy + s * diy
                ex = djx - dix
                ey = djy - diy
                norm = math.sqrt(ex * ex + ey * ey)
                proj[m, 0] = qx
                proj[m, 1] = qy
                proj[m, 2] = ex / norm
                proj[m, 3] = ey / norm
                m += 1
            tx = res[0]
            ty = res[1]
            if _lp2(proj, m, radius, -diy, dix, True, res) < m:
                res[0] = tx
                res[1] = ty
            distance = _det(dix, diy, pix - res[0], piy - res[1])


@njit(cache=True, nogil=True)
def cell_list(pos, hcell):  # pragma: no cover - compiled
    """A grid of square cells over the agents ``pos`` (n, 2), as sorted arrays (a counting sort).

    Cells are ``size >= max(hcell, _TINY)`` world units (larger when the agents' bounding box
    would need more than ``64 n + 4096`` cells, so memory stays O(n) whatever the world's
    extent), counted from the lowest agent coordinates ``(minx, miny)``: agent ``i`` is in cell
    ``(cx[i], cy[i])``, numbered ``cy * ncx + cx``; ``order`` (n,) lists the agents cell by cell
    (ascending index within a cell), cell ``c`` being ``order[start[c]:start[c + 1]]`` and a run
    of cells of one row one slice. Returns ``(size, ncx, ncy, start, order, cx, cy, minx, miny)``.
    """
    n = pos.shape[0]
    minx = pos[0, 0] if n else 0.0
    miny = pos[0, 1] if n else 0.0
    maxx = minx
    maxy = miny
    for i in range(n):
        minx = min(minx, pos[i, 0])
        miny = min(miny, pos[i, 1])
        maxx = max(maxx, pos[i, 0])
        maxy = max(maxy, pos[i, 1])
    cap = 64.0 * n + 4096.0
    size = max(hcell, _TINY)  # (a subnormal size times 1.01 rounded back to itself: the loop never ended)
    while True:
        fx = math.floor(min((maxx - minx) / size, cap)) + 1.0
        fy = math.floor(min((maxy - miny) / size, cap)) + 1.0
        if fx * fy <= cap:
            break
        size *= max(math.sqrt(fx * fy / cap), 1.01)
    ncx = int(fx)
    ncy = int(fy)
    start = np.zeros(ncx * ncy + 1, np.int64)
    order = np.empty(n, np.int64)
    cell = np.empty(n, np.int64)
    cx = np.empty(n, np.int64)
    cy = np.empty(n, np.int64)
    for i in range(n):
        cx[i] = min(int((pos[i, 0] - minx) / size), ncx - 1)
        cy[i] = min(int((pos[i, 1] - miny) / size), ncy - 1)
        c = cy[i] * ncx + cx[i]
        cell[i] = c
        start[c + 1] += 1
    for c in range(ncx * ncy):
        start[c + 1] += start[c]
    for i in range(n):
        c = cell[i]
        order[start[c]] = i
        start[c] += 1
    for c in range(ncx * ncy, 0, -1):  # (each start moved to its cell's end: shift back)
        start[c] = start[c - 1]
    start[0] = 0
    return size, ncx, ncy, start, order, cx, cy, minx, miny


@njit(cache=True, nogil=True, inline="always")
def _consider(i, j, pos, px, py, range_sq, max_neighbors, count, nb, nbd):  # pragma: no cover - compiled
    """Insert agent ``j`` into ``i``'s nearest list ``nb``/``nbd`` (RVO2's insertAgentNeighbor;
    ties by index); returns the new count."""
    if j == i:
        return count
    dx = pos[j, 0] - px
    dy = pos[j, 1] - py
    d2 = dx * dx + dy * dy
    if d2 >= range_sq:
        return count
    if count == max_neighbors:
        last = nbd[count - 1]
        if d2 > last or (d2 == last and j > nb[count - 1]):
            return count
    # its place: how many listed come first; then the later ones move up one (no data-dependent
    # branches: this runs for every candidate of every agent)
    k = 0
    for t in range(count):
        k += (nbd[t] < d2) | ((nbd[t] == d2) & (nb[t] < j))
    for t in range(count if count < max_neighbors else count - 1, 0, -1):
        later = t > k
        nbd[t] = nbd[t - 1] if later else nbd[t]
        nb[t] = nb[t - 1] if later else nb[t]
    nbd[k] = d2
    nb[k] = j
    return count + 1 if count < max_neighbors else count


@njit(cache=True, nogil=True)
def _agent_neighbours(i, pos, size, ncx, ncy, start, order, cx, cy, minx, miny, neighbor_dist, max_neighbors, nb,
                      nbd):  # pragma: no cover - compiled
    """The ``max_neighbors`` agents nearest to ``i`` closer than ``neighbor_dist`` into ``nb``
    (sorted by squared distance ``nbd``, then index); returns their count.

    Cells (:func:`cell_list`) are visited in square rings around ``i``'s cell; no agent of
    ring ``r`` is nearer than ``(r - 1) * size`` plus ``i``'s distance to its own cell's
    border, so the search stops once that is beyond ``neighbor_dist`` or, with ``max_neighbors``
    found, beyond the farthest of them (RVO2 shrinks its k-d tree query range the same way), or
    once :data:`~gamenav._kernels.crowd.MAX_CANDIDATES` were examined (the nearest of those: on a
    spot thousands stand on).
    """
    count = 0
    range_sq = neighbor_dist * neighbor_dist
    px = pos[i, 0]
    py = pos[i, 1]
    ci = cx[i]
    cj = cy[i]
    fx = (px - minx) / size - ci
    fy = (py - miny) / size - cj
    inner = max(min(min(fx, 1.0 - fx), min(fy, 1.0 - fy)), 0.0) * size * (1.0 - 1e-9)
    rings = min(int(math.ceil(neighbor_dist / size)), max(max(ci, ncx - 1 - ci), max(cj, ncy - 1 - cj)))
    left = MAX_CANDIDATES
    for ring in range(rings + 1):
        if ring > 0:
            bound = (ring - 1) * size + inner
            reach_sq = nbd[count - 1] if count == max_neighbors else range_sq
            if bound * bound > reach_sq:
                break
        x0 = max(ci - ring, 0)
        x1 = min(ci + ring, ncx - 1)
        for yy in range(max(cj - ring, 0), min(cj + ring, ncy - 1) + 1):
            row = yy * ncx
            if yy == cj - ring or yy == cj + ring:  # the ring's top or bottom: one slice
                a = start[row + x0]
                b = min(start[row + x1 + 1], a + left)
                for q in range(a, b):
                    count = _consider(i, order[q], pos, px, py, range_sq, max_neighbors, count, nb, nbd)
                left -= b - a
            else:
                if ci - ring >= 0:
                    a = start[row + ci - ring]
                    b = min(start[row + ci - ring + 1], a + left)
                    for q in range(a, b):
                        count = _consider(i, order[q], pos, px, py, range_sq, max_neighbors, count, nb, nbd)
                    left -= b - a
                if ring > 0 and ci + ring < ncx:
                    a = start[row + ci + ring]
                    b = min(start[row + ci + ring + 1], a + left)
                    for q in range(a, b):
                        count = _consider(i, order[q], pos, px, py, range_sq, max_neighbors, count, nb, nbd)
                    left -= b - a
            if left == 0:
                return count
    return count


@njit(cache=True, nogil=True, inline="always")
def _seg_dist_sq(ax, ay, bx, by, px, py):  # pragma: no cover - compiled
    """Squared distance from ``p`` to segment ``a``-``b`` (RVO2 distSqPointLineSegment)."""
    vx = bx - ax
    vy = by - ay
    length_sq = vx * vx + vy * vy
    if length_sq == 0.0:  # (a cell size so small its square underflows)
        return (px - ax) ** 2 + (py - ay) ** 2
    r = ((px - ax) * vx + (py - ay) * vy) / length_sq
    if r < 0.0:
        return (px - ax) ** 2 + (py - ay) ** 2
    if r > 1.0:
        return (px - bx) ** 2 + (py - by) ** 2
    qx = ax + r * vx
    qy = ay + r * vy
    return (px - qx) ** 2 + (py - qy) ** 2


@njit(cache=True, nogil=True, inline="always")
def _insert_seg(segs, segd, count, d2, ax, ay, bx, by, dx, dy, c1, c2, pdx, pdy, ndx, ndy):  # pragma: no cover
    """Insert a wall edge row (see :func:`_wall_segments`) into ``segs[:count]`` sorted by ``segd``
    (stable: equal distances keep the order of insertion); returns the new count."""
    m = count
    while m > 0 and segd[m - 1] > d2:
        segd[m] = segd[m - 1]
        segs[m, :] = segs[m - 1, :]
        m -= 1
    segd[m] = d2
    segs[m, 0] = ax
    segs[m, 1] = ay
    segs[m, 2] = bx
    segs[m, 3] = by
    segs[m, 4] = dx
    segs[m, 5] = dy
    segs[m, 6] = c1
    segs[m, 7] = c2
    segs[m, 8] = pdx
    segs[m, 9] = pdy
    segs[m, 10] = ndx
    segs[m, 11] = ndy
    return count + 1


@njit(cache=True, nogil=True, inline="always")
def _bucket_of(v, o, cs, size, n):  # pragma: no cover - compiled
    """The bucket (0..n-1, clipped) of world coordinate ``v`` for buckets of ``size`` cells from ``o``."""
    return min(max(int(math.floor((v - o) / cs / size)), 0), n - 1)


@njit(cache=True, nogil=True, inline="always")
def _bucket_window(x, y, reach, ox, oy, cs, obst):  # pragma: no cover - compiled
    """The buckets ``(bx0, by0, bx1, by1)`` (inclusive) of the obstacle table ``obst`` (see
    :func:`crowd_step`) that the box of half side ``reach`` around ``(x, y)`` meets."""
    _, start, _, size, nbx = obst
    nby = (start.shape[0] - 1) // nbx
    return (_bucket_of(x - reach, ox, cs, size, nbx), _bucket_of(y - reach, oy, cs, size, nby),
            _bucket_of(x + reach, ox, cs, size, nbx), _bucket_of(y + reach, oy, cs, size, nby))


@njit(cache=True, nogil=True, inline="always")
def _first_listing(row, bx, by, bx0, by0, ox, oy, cs, obst):  # pragma: no cover - compiled
    """Whether bucket ``(bx, by)`` of a window from ``(bx0, by0)`` is the first of the window that
    lists obstacle edge ``row`` (an edge is listed in every bucket its box meets): each edge once."""
    seg, start, _, size, nbx = obst
    nby = (start.shape[0] - 1) // nbx
    lo_x = _bucket_of(min(seg[row, 0], seg[row, 2]), ox, cs, size, nbx)
    lo_y = _bucket_of(min(seg[row, 1], seg[row, 3]), oy, cs, size, nby)
    return bx == max(lo_x, bx0) and by == max(lo_y, by0)


@njit(cache=True, nogil=True, inline="always")
def _unit(x, y):  # pragma: no cover - compiled
    norm = math.sqrt(x * x + y * y)
    return (x / norm, y / norm) if norm > 0.0 else (0.0, 0.0)


@njit(cache=True, nogil=True)
def _wall_segments(px, py, reach, passable, sat, ox, oy, cs, y_up, segs, segd):  # pragma: no cover - compiled
    """Wall edges within ``reach`` of ``(px, py)`` that face it, sorted by distance then scan order.

    ``sat`` (:func:`blocked_table`): a window inside the grid without any blocked cell is
    skipped at once.

    Each row of ``segs`` (k, 12): p1 (x, y), p2 (x, y), direction (x, y) with blocked on the
    left, convex1, convex2, previous edge direction (x, y), next edge direction (x, y).
    Returns k.
    """
    h = passable.shape[0]
    w = passable.shape[1]
    ci = int(math.floor((px - ox) / cs))
    cj = int(math.floor((py - oy) / cs))
    k = int(math.ceil(min(reach / cs, w + h))) + 1
    reach_sq = reach * reach
    count = 0
    i0 = ci - k - 1  # the window, one more cell around (the blocked neighbours of its free cells)
    j0 = cj - k - 1
    i1 = ci + k + 2
    j1 = cj + k + 2
    if i0 >= 0 and j0 >= 0 and i1 <= w and j1 <= h and _window_clear(sat, i0, j0, i1, j1):
        return 0
    for j in range(max(cj - k, 0), min(cj + k, h - 1) + 1):  # edges lie beside passable cells
        for i in range(max(ci - k, 0), min(ci + k, w - 1) + 1):
            if _blocked(passable, i, j, y_up):
                continue
            for side in range(4):
                nx = _NX[side]
                ny = _NY[side]
                if not _blocked(passable, i + nx, j + ny, y_up):
                    continue
                dx = float(ny)
                dy = float(-nx)
                mx = ox + (i + 0.5 + 0.5 * nx) * cs
                my = oy + (j + 0.5 + 0.5 * ny) * cs
                ax = mx - 0.5 * cs * dx
                ay = my - 0.5 * cs * dy
                bx = mx + 0.5 * cs * dx
                by = my + 0.5 * cs * dy
                left_of = _det(ax - px, ay - py, bx - px, by - py)  # RVO2 leftOf(a, b, p)
                if left_of >= 0.0:
                    continue  # the agent is not on the free side
                d2 = _seg_dist_sq(ax, ay, bx, by, px, py)
                if d2 >= reach_sq:
                    continue
                idx = int(dx)  # direction as integers
                idy = int(dy)
                # vertex at p2: continue along d beyond the edge
                if not _blocked(passable, i + nx + idx, j + ny + idy, y_up):
                    c2 = 1.0  # convex corner: turn left
                    ndx = -dy
                    ndy = dx
                elif not _blocked(passable, i + idx, j + idy, y_up):
                    c2 = 1.0  # straight
                    ndx = dx
                    ndy = dy
                else:
                    c2 = 0.0  # concave: turn right
                    ndx = dy
                    ndy = -dx
                # vertex at p1: behind the edge
                if not _blocked(passable, i + nx - idx, j + ny - idy, y_up):
                    c1 = 1.0
                    pdx = dy
                    pdy = -dx
                elif not _blocked(passable, i - idx, j - idy, y_up):
                    c1 = 1.0
                    pdx = dx
                    pdy = dy
                else:
                    c1 = 0.0
                    pdx = -dy
                    pdy = dx
                count = _insert_seg(segs, segd, count, d2, ax, ay, bx, by, dx, dy, c1, c2, pdx, pdy, ndx, ndy)
    return count


@njit(cache=True, nogil=True)
def _obstacle_segments(px, py, reach, obst, ox, oy, cs, segs, segd, count):  # pragma: no cover - compiled
    """:func:`_wall_segments` for the edges of the obstacle table ``obst`` (:func:`crowd_step`; its
    bucket index lists the edges near the agent), added to the ``count`` rows of ``segs`` found
    so far (by distance, then after those); returns the new count."""
    reach_sq = reach * reach
    seg, start, items, _, nbx = obst
    bx0, by0, bx1, by1 = _bucket_window(px, py, reach, ox, oy, cs, obst)
    for by in range(by0, by1 + 1):
        for bx in range(bx0, bx1 + 1):
            b = by * nbx + bx
            for q in range(start[b], start[b + 1]):
                s = items[q]
                ax = seg[s, 0]
                ay = seg[s, 1]
                bx_ = seg[s, 2]
                by_ = seg[s, 3]
                if _det(ax - px, ay - py, bx_ - px, by_ - py) >= 0.0 or \
                        not _first_listing(s, bx, by, bx0, by0, ox, oy, cs, obst):
                    continue  # not on the free side, or seen in an earlier bucket
                d2 = _seg_dist_sq(ax, ay, bx_, by_, px, py)
                if d2 >= reach_sq:
                    continue
                dx, dy = _unit(bx_ - ax, by_ - ay)
                pdx, pdy = _unit(ax - seg[s, 4], ay - seg[s, 5])
                ndx, ndy = _unit(seg[s, 6] - bx_, seg[s, 7] - by_)
                c1 = 1.0 if _det(pdx, pdy, dx, dy) >= 0.0 else 0.0  # a left turn: convex (RVO2 isConvex)
                c2 = 1.0 if _det(dx, dy, ndx, ndy) >= 0.0 else 0.0
                count = _insert_seg(segs, segd, count, d2, ax, ay, bx_, by_, dx, dy, c1, c2, pdx, pdy, ndx, ndy)
    return count


@njit(cache=True, nogil=True, inline="always")
def _add_line(lines, n, px, py, dx, dy):  # pragma: no cover - compiled
    lines[n, 0] = px
    lines[n, 1] = py
    lines[n, 2] = dx
    lines[n, 3] = dy
    return n + 1


@njit(cache=True, nogil=True, inline="always")
def _cutoff_line(lines, n, vx, vy, cx, cy, radius):  # pragma: no cover - compiled
    """Add the line of velocity ``(vx, vy)`` projected on the cut-off circle at ``(cx, cy)`` of
    ``radius`` (RVO2's obstacle legs); returns the new line count."""
    wx = vx - cx
    wy = vy - cy
    norm = max(math.sqrt(wx * wx + wy * wy), 1e-300)
    ux = wx / norm
    uy = wy / norm
    return _add_line(lines, n, cx + radius * ux, cy + radius * uy, uy, -ux)


@njit(cache=True, nogil=True)
def _obstacle_lines(px, py, vx, vy, r, inv_t, segs, nseg, lines):  # pragma: no cover - compiled
    """RVO2's obstacle ORCA lines of the wall edges ``segs[:nseg]`` for an agent at ``p`` with
    velocity ``v`` and radius ``r`` (``inv_t`` = 1 / time_horizon_obst); returns the line count."""
    n = 0
    r_sq = r * r
    for s in range(nseg):
        a1x = segs[s, 0]
        a1y = segs[s, 1]
        a2x = segs[s, 2]
        a2y = segs[s, 3]
        rel1x = a1x - px
        rel1y = a1y - py
        rel2x = a2x - px
        rel2y = a2y - py
        covered = False
        for j in range(n):
            if (_det(inv_t * rel1x - lines[j, 0], inv_t * rel1y - lines[j, 1], lines[j, 2], lines[j, 3])
                    - inv_t * r >= -EPS and
                    _det(inv_t * rel2x - lines[j, 0], inv_t * rel2y - lines[j, 1], lines[j, 2], lines[j, 3])
                    - inv_t * r >= -EPS):
                covered = True
                break
        if covered:
            continue
        dist_sq1 = rel1x * rel1x + rel1y * rel1y
        dist_sq2 = rel2x * rel2x + rel2y * rel2y
        ovx = a2x - a1x
        ovy = a2y - a1y
        if ovx * ovx + ovy * ovy == 0.0:
            continue
        sfrac = (-rel1x * ovx - rel1y * ovy) / (ovx * ovx + ovy * ovy)
        lx = -rel1x - sfrac * ovx
        ly = -rel1y - sfrac * ovy
        dist_sq_line = lx * lx + ly * ly
        d1x = segs[s, 4]  # obstacle1 direction
        d1y = segs[s, 5]
        convex1 = segs[s, 6] > 0.5
        convex2 = segs[s, 7] > 0.5
        prev_x = segs[s, 8]
        prev_y = segs[s, 9]
        next_x = segs[s, 10]
        next_y = segs[s, 11]
        if sfrac < 0.0 and dist_sq1 <= r_sq:
            if convex1:  # collision with the left vertex
                norm = math.sqrt(dist_sq1)
                if norm > 0.0:
                    n = _add_line(lines, n, 0.0, 0.0, -rel1y / norm, rel1x / norm)
                else:  # the centre on the vertex: as the segment
                    n = _add_line(lines, n, 0.0, 0.0, -d1x, -d1y)
            continue
        if sfrac > 1.0 and dist_sq2 <= r_sq:
            if convex2 and _det(rel2x, rel2y, next_x, next_y) >= 0.0:  # collision with the right vertex
                norm = math.sqrt(dist_sq2)
                if norm > 0.0:
                    n = _add_line(lines, n, 0.0, 0.0, -rel2y / norm, rel2x / norm)
                else:
                    n = _add_line(lines, n, 0.0, 0.0, -d1x, -d1y)
            continue
        if 0.0 <= sfrac < 1.0 and dist_sq_line <= r_sq:  # collision with the segment
            n = _add_line(lines, n, 0.0, 0.0, -d1x, -d1y)
            continue
        # no collision: legs (o1, o2 are the vertices defining them; same = one vertex)
        same = False
        o1x = a1x
        o1y = a1y
        o2x = a2x
        o2y = a2y
        c1 = convex1
        c2 = convex2
        left_nb_x = prev_x  # direction of obstacle1's previous edge
        left_nb_y = prev_y
        o2dx = next_x  # direction of obstacle2's edge
        o2dy = next_y
        if sfrac < 0.0 and dist_sq_line <= r_sq:  # seen obliquely: the left vertex defines it
            if not convex1:
                continue
            same = True
            o2x = a1x
            o2y = a1y
            c2 = convex1
            o2dx = d1x
            o2dy = d1y
            llx, lly, rlx, rly = _tangents(rel1x, rel1y, dist_sq1, r)
        elif sfrac > 1.0 and dist_sq_line <= r_sq:  # the right vertex defines it
            if not convex2:
                continue
            same = True
            o1x = a2x
            o1y = a2y
            c1 = convex2
            left_nb_x = d1x
            left_nb_y = d1y
            llx, lly, rlx, rly = _tangents(rel2x, rel2y, dist_sq2, r)
        else:
            if convex1:
                llx, lly, _, _ = _tangents(rel1x, rel1y, dist_sq1, r)
            else:  # non-convex left vertex: the left leg extends the cut-off line
                llx = -d1x
                lly = -d1y
            if convex2:
                _, _, rlx, rly = _tangents(rel2x, rel2y, dist_sq2, r)
            else:
                rlx = d1x
                rly = d1y
        # legs never point into the neighbouring edge of a convex vertex
        left_foreign = False
        right_foreign = False
        if c1 and _det(llx, lly, -left_nb_x, -left_nb_y) >= 0.0:
            llx = -left_nb_x
            lly = -left_nb_y
            left_foreign = True
        if c2 and _det(rlx, rly, o2dx, o2dy) <= 0.0:
            rlx = o2dx
            rly = o2dy
            right_foreign = True
        lcx = inv_t * (o1x - px)  # cut-off centres
        lcy = inv_t * (o1y - py)
        rcx = inv_t * (o2x - px)
        rcy = inv_t * (o2y - py)
        cvx = rcx - lcx
        cvy = rcy - lcy
        t = 0.5 if same or cvx * cvx + cvy * cvy == 0.0 else \
            ((vx - lcx) * cvx + (vy - lcy) * cvy) / (cvx * cvx + cvy * cvy)
        t_left = (vx - lcx) * llx + (vy - lcy) * lly
        t_right = (vx - rcx) * rlx + (vy - rcy) * rly
        if (t < 0.0 and t_left < 0.0) or (same and t_left < 0.0 and t_right < 0.0):
            n = _cutoff_line(lines, n, vx, vy, lcx, lcy, r * inv_t)
            continue
        if t > 1.0 and t_right < 0.0:
            n = _cutoff_line(lines, n, vx, vy, rcx, rcy, r * inv_t)
            continue
        d_cut = math.inf if t < 0.0 or t > 1.0 or same else (vx - (lcx + t * cvx)) ** 2 + (vy - (lcy + t * cvy)) ** 2
        d_left = math.inf if t_left < 0.0 else (vx - (lcx + t_left * llx)) ** 2 + (vy - (lcy + t_left * lly)) ** 2
        d_right = math.inf if t_right < 0.0 else \
            (vx - (rcx + t_right * rlx)) ** 2 + (vy - (rcy + t_right * rly)) ** 2
        if d_cut <= d_left and d_cut <= d_right:
            ldx = -d1x
            ldy = -d1y
            n = _add_line(lines, n, lcx + r * inv_t * -ldy, lcy + r * inv_t * ldx, ldx, ldy)
            continue
        if d_left <= d_right:
            if left_foreign:
                continue
            n = _add_line(lines, n, lcx + r * inv_t * -lly, lcy + r * inv_t * llx, llx, lly)
            continue
        if right_foreign:
            continue
        ldx = -rlx
        ldy = -rly
        n = _add_line(lines, n, rcx + r * inv_t * -ldy, rcy + r * inv_t * ldx, ldx, ldy)
    return n


@njit(cache=True, nogil=True, inline="always")
def _agent_line(i, j, pos, vel, radius, inv_t, dt, share, lines, n):  # pragma: no cover - compiled
    """RVO2's ORCA line of agent ``i`` with neighbour ``j``; ``i`` takes ``share`` of the
    avoidance (RVO2: 0.5, each half)."""
    rpx = pos[j, 0] - pos[i, 0]
    rpy = pos[j, 1] - pos[i, 1]
    rvx = vel[i, 0] - vel[j, 0]
    rvy = vel[i, 1] - vel[j, 1]
    dist_sq = rpx * rpx + rpy * rpy
    comb = radius[i] + radius[j]
    comb_sq = comb * comb
    if dist_sq > comb_sq:
        wx = rvx - inv_t * rpx
        wy = rvy - inv_t * rpy
        w_len_sq = wx * wx + wy * wy
        dot1 = wx * rpx + wy * rpy
        if dot1 < 0.0 and dot1 * dot1 > comb_sq * w_len_sq:  # project on the cut-off circle
            w_len = math.sqrt(w_len_sq)
            ux = wx / w_len
            uy = wy / w_len
            dx = uy
            dy = -ux
            s = comb * inv_t - w_len
            ux *= s
            uy *= s
        else:  # project on the legs
            leg = math.sqrt(dist_sq - comb_sq)
            if _det(rpx, rpy, wx, wy) > 0.0:
                dx = (rpx * leg - rpy * comb) / dist_sq
                dy = (rpx * comb + rpy * leg) / dist_sq
            else:
                dx = -(rpx * leg + rpy * comb) / dist_sq
                dy = -(-rpx * comb + rpy * leg) / dist_sq
            dot2 = rvx * dx + rvy * dy
            ux = dot2 * dx - rvx
            uy = dot2 * dy - rvy
    else:  # already overlapping: separate within one time step
        inv_dt = 1.0 / dt
        wx = rvx - inv_dt * rpx
        wy = rvy - inv_dt * rpy
        w_len = math.sqrt(wx * wx + wy * wy)
        if w_len < 1e-12:  # coincident and at rest: split deterministically (golden angle by index)
            angle = 2.399963 * (min(i, j) + 1)
            wx = math.cos(angle) if i < j else -math.cos(angle)
            wy = math.sin(angle) if i < j else -math.sin(angle)
            w_len = 1.0
        ux = wx / w_len
        uy = wy / w_len
        dx = uy
        dy = -ux
        s = comb * inv_dt - w_len
        ux *= s
        uy *= s
    return _add_line(lines, n, vel[i, 0] + share * ux, vel[i, 1] + share * uy, dx, dy)


@njit(cache=True, nogil=True)
def orca_velocities(pos, vel, pref, radius, max_speed, priority, rank, goal_dir, keep_right, hcell, neighbor_dist,
                    max_neighbors, time_horizon, time_horizon_obst, dt, passable, sat, obst, ox, oy, cs, y_up, walls,
                    out, yielded_before, yielded, wait):  # pragma: no cover - compiled
    """New velocities ``out`` (n, 2) of every agent: RVO2's ``computeNewVelocity``.

    ``pos``, ``vel``, ``pref`` (n, 2): positions, current and preferred velocities; ``radius`` and
    ``max_speed`` (n,). ``priority`` (n,): of two agents, the one with the lower priority takes all
    of their avoidance and the other ignores it (equal: 0.5 each, as RVO2, unless one is over
    :data:`_BIGGER` times the other's radius: then the bigger takes :data:`_BIG_SHARE`); an
    agent at rest (preferred velocity zero) that ones of higher priority come at, less than its
    diameter between the discs, steps off their lines at :data:`_DODGE` of its speed rather
    than being shoved along ahead of them. ``rank``
    (n,): right of way in head-on jams. Agent ``i`` gives way to a neighbour ``j`` of equal priority
    and higher rank when they face each other (preferred velocities more than about 107 degrees
    apart, each ahead of the other), their goals lie in opposite directions (``goal_dir`` (n, 2)
    unit vectors to the goals), one of them is held up (under a quarter of its preferred speed) and
    less than two of ``i``'s diameters lie between the discs: ``i`` takes all of their avoidance and
    its preferred velocity turns to its right and back (``yielded[i] = 1``). An agent right behind
    one that gave way in the last step (``yielded_before`` (n,) int, the last step's ``yielded``;
    heading the same way) backs off (``yielded[i]`` = its level + 1; chains end at ``_WAIT_CHAIN``).
    Two agents held up side by side (neither ahead by more than half their radii's sum) heading the
    same way (preferred velocities less than about 73 degrees apart), less than half a radius apart,
    as at a door only one fits through: the one with the lower rank (equal ranks: the higher index)
    takes all of their avoidance and backs off a little (``yielded[i] = _WAIT_CHAIN - 1``), so that
    the other goes first.
    Equal ranks share equally. ``keep_right``: an agent with an oncoming
    neighbour (one whose preferred velocity opposes its own, so also when both are held up in a
    jam; less than a diameter apart between the discs) adds ``keep_right`` times its preferred
    speed to the right of its preferred velocity, so that counter-flows form lanes (0: RVO2).
    Neighbours come from a :func:`cell_list` of ``pos`` with cells of ``hcell`` (any size > 0
    gives the same neighbours; about the distance of the ``max_neighbors``-th is fastest).
    ``wait`` (n,) bool: agents waiting at the mouth of a one-way passage (see
    :func:`gamenav._kernels.crowd.passage_waits`): such an agent steps to its right at
    ``_ASIDE`` of its preferred speed, and takes all of the avoidance with an agent that does not
    wait and comes towards it (out of the passage) or is giving way or backing off, which
    ignores it (the overlap resolution pushes the waiting one aside). An agent that gave way in
    the last step is ignored likewise by the one it gave way to.
    ``walls``: also avoid the grid's blocked cells (``passable`` [y, x], its summed-area tables
    ``sat`` of blocked cells by world row (:func:`blocked_table`), origin ``ox, oy``, cell size
    ``cs``, ``y_up``) and the edges of the obstacle table ``obst`` (see :func:`crowd_step`, in the
    units of ``pos``); agents take the walls as hard constraints (obstacle lines) and share the
    avoidance of each other. An agent whose lines cannot all be met keeps to the walls and its
    :data:`_NEAREST` nearest neighbours' lines if it can, else RVO2's 3-D fallback. Returns the
    number of agents whose linear program was infeasible.
    """
    n = pos.shape[0]
    size, ncx, ncy, start, order, cx, cy, minx, miny = cell_list(pos, hcell)
    nb = np.empty(max(max_neighbors, 1), np.int64)
    nbd = np.empty(max(max_neighbors, 1), np.float64)
    inv_t = 1.0 / time_horizon
    inv_to = 1.0 / time_horizon_obst
    kmax = 1
    if walls:
        reach_max = 0.0
        for i in range(n):
            reach_max = max(reach_max, time_horizon_obst * max_speed[i] + radius[i])
        kmax = int(math.ceil(min(reach_max / cs, passable.shape[0] + passable.shape[1]))) + 1
    nseg_max = 4 * min(2 * kmax + 1, passable.shape[0]) * min(2 * kmax + 1, passable.shape[1]) + obst[0].shape[0] \
        if walls else 1
    segs = np.empty((nseg_max, 12), np.float64)
    segd = np.empty(nseg_max, np.float64)
    lines = np.empty((nseg_max + max_neighbors + 1, 4), np.float64)
    proj = np.empty_like(lines)
    res = np.empty(2, np.float64)
    infeasible = 0
    for i in range(n):
        px = pos[i, 0]
        py = pos[i, 1]
        nl = 0
        if walls:
            reach = time_horizon_obst * max_speed[i] + radius[i]
            nseg = _wall_segments(px, py, reach, passable, sat, ox, oy, cs, y_up, segs, segd)
            if obst[0].shape[0]:  # (no obstacle: not a step more than without the table)
                nseg = _obstacle_segments(px, py, reach, obst, ox, oy, cs, segs, segd, nseg)
            nl = _obstacle_lines(px, py, vel[i, 0], vel[i, 1], radius[i], inv_to, segs, nseg, lines)
        num_obst = nl
        prx = pref[i, 0]
        pry = pref[i, 1]
        p_len = math.sqrt(prx * prx + pry * pry)
        bend = False
        dodge_x = 0.0  # an idle agent: away from the lines of the movers coming at it
        dodge_y = 0.0
        give_way = 0
        jammed = vel[i, 0] ** 2 + vel[i, 1] ** 2 < (0.25 * p_len) ** 2  # held up: under a quarter of its pace
        if max_neighbors > 0:
            k = _agent_neighbours(i, pos, size, ncx, ncy, start, order, cx, cy, minx, miny, neighbor_dist,
                                  max_neighbors, nb, nbd)
            for q in range(k):
                j = nb[q]
                oncoming = pref[j, 0] * prx + pref[j, 1] * pry < \
                    -0.3 * math.sqrt(pref[j, 0] ** 2 + pref[j, 1] ** 2) * p_len
                gap = math.sqrt(nbd[q]) - radius[i] - radius[j]
                ahead = (pos[j, 0] - px) * prx + (pos[j, 1] - py) * pry > 0.0  # j before i
                share = 0.5  # RVO2; a much smaller agent steps aside for a big one
                if radius[j] > _BIGGER * radius[i]:
                    share = 1.0 - _BIG_SHARE
                elif radius[i] > _BIGGER * radius[j]:
                    share = _BIG_SHARE
                if wait[i] != wait[j] and (oncoming or yielded_before[i] > 0 or yielded_before[j] > 0):
                    # out of a passage (or backing out of it) past the ones waiting at its mouth
                    if wait[j]:
                        continue  # j gives way alone (and is pushed aside)
                    share = 1.0
                elif priority[i] != priority[j]:
                    if priority[i] > priority[j]:
                        continue  # the other gives way alone (and is pushed aside)
                    share = 1.0
                    if p_len == 0.0 and gap < 2.0 * radius[i]:  # idle, j close: on j's line?
                        pj = math.sqrt(pref[j, 0] ** 2 + pref[j, 1] ** 2)
                        ahead_of_j = (px - pos[j, 0]) * pref[j, 0] + (py - pos[j, 1]) * pref[j, 1]
                        if pj > 0.0 and ahead_of_j > 0.5 * pj * math.sqrt(nbd[q]):  # (squares of 1e-160: 0)
                            side = _det(pref[j, 0], pref[j, 1], px - pos[j, 0], py - pos[j, 1])
                            sign = 1.0 if side > 0.0 or (side == 0.0 and i > j) else -1.0
                            dodge_x += -sign * pref[j, 1] / pj
                            dodge_y += sign * pref[j, 0] / pj
                elif oncoming:
                    if gap < 2.0 * radius[i]:
                        bend = True
                    if (jammed or vel[j, 0] ** 2 + vel[j, 1] ** 2 < 0.0625 * (pref[j, 0] ** 2 + pref[j, 1] ** 2)) and \
                            rank[i] < rank[j] and gap < 4.0 * radius[i] and ahead and \
                            (px - pos[j, 0]) * pref[j, 0] + (py - pos[j, 1]) * pref[j, 1] > 0.0 and \
                            goal_dir[i, 0] * goal_dir[j, 0] + goal_dir[i, 1] * goal_dir[j, 1] < -0.3:
                        give_way = 1  # head on, one held up, and j has the right of way: i avoids alone
                        share = 1.0
                    elif yielded_before[j] == 1 and rank[j] < rank[i]:
                        continue  # j gives way to i alone (and is pushed aside)
                elif jammed and give_way == 0 and gap < 0.5 * radius[i] and \
                        (rank[i] < rank[j] or (rank[i] == rank[j] and i > j)) and \
                        abs((pos[j, 0] - px) * prx + (pos[j, 1] - py) * pry) < \
                        0.5 * p_len * (radius[i] + radius[j]) and \
                        vel[j, 0] ** 2 + vel[j, 1] ** 2 < 0.0625 * (pref[j, 0] ** 2 + pref[j, 1] ** 2) and \
                        pref[j, 0] * prx + pref[j, 1] * pry > \
                        0.3 * math.sqrt(pref[j, 0] ** 2 + pref[j, 1] ** 2) * p_len:
                    give_way = _WAIT_CHAIN - 1  # abreast, the same way, both held up (a door): the other first
                    share = 1.0
                elif 0 < yielded_before[j] < _WAIT_CHAIN and gap < 2.0 * radius[i] and ahead and \
                        give_way != 1 and (give_way == 0 or yielded_before[j] + 1 < give_way) and \
                        pref[j, 0] * prx + pref[j, 1] * pry > \
                        0.7 * math.sqrt(pref[j, 0] ** 2 + pref[j, 1] ** 2) * p_len:  # j leads the way i goes
                    give_way = yielded_before[j] + 1  # the one ahead gives way: wait behind it
                nl = _agent_line(i, j, pos, vel, radius, inv_t, dt, share, lines, nl)
        yielded[i] = give_way
        if wait[i]:  # at the mouth of a passage the others come out of: stand aside, to the right
            prx, pry = _ASIDE * pry, -_ASIDE * prx
        elif give_way == 1:  # step aside to the right and back, out of the way of the oncoming
            prx, pry = 0.6 * pry - 0.4 * prx, -0.6 * prx - 0.4 * pry
        elif give_way > 1:  # back off a little behind it
            prx, pry = -0.3 * prx, -0.3 * pry
        elif bend and keep_right > 0.0:
            prx, pry = prx + keep_right * pry, pry - keep_right * prx
        d_len = math.sqrt(dodge_x * dodge_x + dodge_y * dodge_y)
        if d_len > 1e-9:  # idle, movers coming at it: step off their lines
            prx = _DODGE * max_speed[i] * dodge_x / d_len
            pry = _DODGE * max_speed[i] * dodge_y / d_len
        fail = _lp2(lines, nl, max_speed[i], prx, pry, False, res)
        if fail < nl:
            infeasible += 1
            # pressed on all sides: the nearest few (and the walls) first, if they leave a way
            # (the lines are met one after another, so those before ``fail`` can all be met)
            if fail >= num_obst + _NEAREST:
                _lp2(lines, num_obst + _NEAREST, max_speed[i], prx, pry, False, res)
            else:
                _lp3(lines, nl, num_obst, fail, max_speed[i], res, proj)
        out[i, 0] = res[0]
        out[i, 1] = res[1]
    return infeasible


@njit(cache=True, nogil=True, inline="always")
def _near_walls(x, y, r, sat, ox, oy, cs):  # pragma: no cover - compiled
    """Whether a blocked (or off-grid) cell lies within one cell of the disc's bounding box
    (``sat``: :func:`blocked_table`); False means the disc is certainly clear of every wall."""
    h = sat[0].shape[0] - 1
    w = sat[0].shape[1] - 1
    size = max(h, w) + 2
    if not r < size * cs:
        return True
    k = int(math.ceil(r / cs)) + 1
    i0 = int(math.floor((x - ox) / cs)) - k
    j0 = int(math.floor((y - oy) / cs)) - k
    i1 = i0 + 2 * k + 1
    j1 = j0 + 2 * k + 1
    if i0 < 0 or j0 < 0 or i1 > w or j1 > h:
        return True
    return not _window_clear(sat, i0, j0, i1, j1)


@njit(cache=True, nogil=True, inline="always")
def _near_obstacles(x, y, r, ox, oy, cs, obst):  # pragma: no cover - compiled
    """Whether a bucket of the obstacle table ``obst`` within a cell of the disc's bounding box
    lists an edge; False means the disc is certainly clear of every obstacle edge."""
    start = obst[1]
    nbx = obst[4]
    bx0, by0, bx1, by1 = _bucket_window(x, y, r + cs, ox, oy, cs, obst)
    listed = 0
    for by in range(by0, by1 + 1):  # (a row of buckets: one slice)
        listed += start[by * nbx + bx1 + 1] - start[by * nbx + bx0]
    return listed > 0


@njit(cache=True, nogil=True, inline="always")
def _off_walls_near(pos, i, r, passable, sat, obst, ox, oy, cs, y_up):  # pragma: no cover - compiled
    """:func:`_disc_off_walls` for disc ``i`` unless nothing blocked is near it (then False at once)."""
    x = pos[i, 0]
    y = pos[i, 1]
    if not (_near_walls(x, y, r, sat, ox, oy, cs)
            or obst[0].shape[0] > 0 and _near_obstacles(x, y, r, ox, oy, cs, obst)):
        return False
    return _disc_off_walls(pos, i, r, passable, obst, ox, oy, cs, y_up)


@njit(cache=True, nogil=True, inline="always")
def _nearest_on_edge(seg, s, x, y):  # pragma: no cover - compiled
    """The point of obstacle edge row ``s`` of ``seg`` nearest ``(x, y)``: ``(t, cx, cy, vx, vy)``,
    ``t`` in [0, 1] its place along the edge ``(vx, vy)`` from the edge's first vertex."""
    ax = seg[s, 0]
    ay = seg[s, 1]
    vx = seg[s, 2] - ax
    vy = seg[s, 3] - ay
    length_sq = vx * vx + vy * vy
    t = 0.0 if length_sq == 0.0 else min(max(((x - ax) * vx + (y - ay) * vy) / length_sq, 0.0), 1.0)
    return t, ax + t * vx, ay + t * vy, vx, vy


@njit(cache=True, nogil=True)
def _escape(x, y, reach, gap, obst, ox, oy, cs):  # pragma: no cover - compiled
    """The point ``(x, y)`` moved out of the obstacle of ``obst`` it lies inside (its nearest edge
    within ``reach``, by the side of that edge, or by the nearest vertex's convexity: a concave
    one is inside) to ``gap`` beyond the nearest boundary point. Returns ``(x, y, depth)``:
    ``depth`` ``gap`` plus how deep it was (0: not inside, unmoved)."""
    seg, start, items, _, nbx = obst
    bx0, by0, bx1, by1 = _bucket_window(x, y, reach, ox, oy, cs, obst)
    best = reach * reach
    inside = False
    qx = x
    qy = y
    nx = 0.0
    ny = 0.0
    for by in range(by0, by1 + 1):  # the nearest edge: is the centre inside?
        for bx in range(bx0, bx1 + 1):
            b = by * nbx + bx
            for q in range(start[b], start[b + 1]):
                s = items[q]
                if not _first_listing(s, bx, by, bx0, by0, ox, oy, cs, obst):
                    continue
                t, cx, cy, vx, vy = _nearest_on_edge(seg, s, x, y)
                ax = seg[s, 0]
                ay = seg[s, 1]
                d2 = (x - cx) ** 2 + (y - cy) ** 2
                if d2 >= best:
                    continue
                best = d2
                qx = cx
                qy = cy
                dx, dy = _unit(vx, vy)
                nx = dy  # the outward normal: the obstacle is on the edge's left
                ny = -dx
                if 0.0 < t < 1.0:
                    inside = _det(vx, vy, x - ax, y - ay) > 0.0
                else:  # a vertex: inside when it is concave (a right turn)
                    if t == 0.0:
                        px, py = _unit(ax - seg[s, 4], ay - seg[s, 5])
                        inside = _det(px, py, dx, dy) < 0.0
                    else:
                        px, py = _unit(seg[s, 6] - seg[s, 2], seg[s, 7] - seg[s, 3])
                        inside = _det(dx, dy, px, py) < 0.0
    depth = 0.0
    if inside:
        d = math.sqrt(best)
        ux, uy = _unit(qx - x, qy - y)
        if d == 0.0:
            ux = nx
            uy = ny
        depth = gap + d
        x = qx + ux * (gap + 1e-9 * cs)
        y = qy + uy * (gap + 1e-9 * cs)
    return x, y, depth


@njit(cache=True, nogil=True)
def _off_obstacles(x, y, r, obst, ox, oy, cs):  # pragma: no cover - compiled
    """The centre ``(x, y)`` of a disc of radius ``r`` moved out of the obstacles of ``obst`` and
    off their edges: a centre inside one (:func:`_escape`, within ``r`` plus a cell) goes to
    ``r`` beyond the nearest boundary point; then the disc is pushed off each edge it overlaps,
    from the edge's nearest point. Returns ``(x, y, depth)``: ``depth`` the deepest overlap found."""
    seg, start, items, _, nbx = obst
    x, y, depth = _escape(x, y, r + cs, r, obst, ox, oy, cs)
    bx0, by0, bx1, by1 = _bucket_window(x, y, r, ox, oy, cs, obst)
    for by in range(by0, by1 + 1):  # then off each edge the disc overlaps
        for bx in range(bx0, bx1 + 1):
            b = by * nbx + bx
            for q in range(start[b], start[b + 1]):
                s = items[q]
                if not _first_listing(s, bx, by, bx0, by0, ox, oy, cs, obst):
                    continue
                _, cx, cy, vx, vy = _nearest_on_edge(seg, s, x, y)
                dx = x - cx
                dy = y - cy
                d2 = dx * dx + dy * dy
                if d2 >= r * r:
                    continue
                d = math.sqrt(d2)
                if d < 1e-9 * cs:  # on the edge: out along its outward normal
                    dx, dy = _unit(vy, -vx)
                    d = 0.0
                else:
                    dx /= d
                    dy /= d
                depth = max(depth, r - d)
                x += dx * (r - d + 1e-9 * cs)
                y += dy * (r - d + 1e-9 * cs)
    return x, y, depth


@njit(cache=True, nogil=True, inline="always")
def _out_by_side(x, y, r, ii, j, x0, y0, cs, passable, y_up):  # pragma: no cover - compiled
    """The centre ``(x, y)`` on (or in) blocked square ``(ii, j)`` (lower corner ``x0, y0``) moved
    ``r`` beyond its nearest side that has a free cell across (unmoved when none has)."""
    best = np.inf
    nx = x
    ny = y
    eps = 1e-9 * cs
    if not _blocked(passable, ii + 1, j, y_up) and x0 + cs - x < best:
        best, nx, ny = x0 + cs - x, x0 + cs + r + eps, y
    if not _blocked(passable, ii - 1, j, y_up) and x - x0 < best:
        best, nx, ny = x - x0, x0 - r - eps, y
    if not _blocked(passable, ii, j + 1, y_up) and y0 + cs - y < best:
        best, nx, ny = y0 + cs - y, x, y0 + cs + r + eps
    if not _blocked(passable, ii, j - 1, y_up) and y - y0 < best:
        nx, ny = x, y0 - r - eps
    return nx, ny


@njit(cache=True, nogil=True)
def _disc_off_walls(pos, i, r, passable, obst, ox, oy, cs, y_up):  # pragma: no cover - compiled
    """Move disc ``i`` of ``pos`` out of the blocked and off-grid cell squares and the obstacles of
    ``obst`` it overlaps (see :func:`discs_off_walls`); returns whether it still overlaps one
    (by more than :data:`_HAIR`)."""
    size = max(passable.shape[0], passable.shape[1]) + 2
    x = pos[i, 0]
    y = pos[i, 1]
    home_i = int(math.floor((x - ox) / cs))
    home_j = int(math.floor((y - oy) / cs))
    if not r < size * cs:  # bigger than the map: it fits nowhere
        return True
    k = int(math.ceil(r / cs))
    clear = False
    depth = 0.0  # the deepest overlap the last pass found
    for _ in range(4):
        ci = int(math.floor((x - ox) / cs))
        cj = int(math.floor((y - oy) / cs))
        clear = True
        depth = 0.0
        for j in range(cj - k, cj + k + 1):
            for ii in range(ci - k, ci + k + 1):
                if not _blocked(passable, ii, j, y_up):
                    continue
                x0 = ox + ii * cs
                y0 = oy + j * cs
                qx = min(max(x, x0), x0 + cs)
                qy = min(max(y, y0), y0 + cs)
                dx = x - qx
                dy = y - qy
                d2 = dx * dx + dy * dy
                if d2 >= r * r:
                    continue
                clear = False
                if d2 < 1e-18:  # centre on the square's boundary or inside: leave by the nearest side
                    depth = r
                    x, y = _out_by_side(x, y, r, ii, j, x0, y0, cs, passable, y_up)
                    continue
                d = math.sqrt(d2)
                depth = max(depth, r - d)
                over = r - d + 1e-9 * cs
                x += dx / d * over
                y += dy / d * over
        if obst[0].shape[0]:  # (no obstacle: not a step more than without the table)
            x, y, over = _off_obstacles(x, y, r, obst, ox, oy, cs)
            if over > 0.0:
                clear = False
                depth = max(depth, over)
        if clear:
            break
    stuck = depth > _HAIR * cs
    if _blocked(passable, int(math.floor((x - ox) / cs)), int(math.floor((y - oy) / cs)), y_up):
        x = pos[i, 0]
        y = pos[i, 1]
        if _blocked(passable, home_i, home_j, y_up):
            stuck = True
    if obst[0].shape[0]:  # a centre pressed into an obstacle (a gap narrower than the disc): to its border
        ex, ey, over = _escape(x, y, r + cs, 0.0, obst, ox, oy, cs)
        if over > 0.0 and not _blocked(passable, int(math.floor((ex - ox) / cs)), int(math.floor((ey - oy) / cs)),
                                       y_up):
            x = ex
            y = ey
            stuck = True
    pos[i, 0] = x
    pos[i, 1] = y
    return stuck


@njit(cache=True, nogil=True)
def discs_off_walls(pos, radius, passable, sat, obst, ox, oy, cs, y_up):  # pragma: no cover - compiled
    """Move each disc (centre ``pos`` (n, 2), ``radius`` (n,)) out of the blocked and off-grid cell
    squares and the obstacles of the table ``obst`` (:func:`crowd_step`) it overlaps, in place:
    up to 4 passes of pushes from each square's nearest point (corners included) and each
    obstacle edge's (a centre inside an obstacle leaves it first, see :func:`_off_obstacles`). A
    centre never moves onto a blocked cell (such a move is undone: the disc cannot fit there).
    Discs whose surroundings hold no blocked cell (summed-area tables ``sat``,
    :func:`blocked_table`) and no obstacle edge are skipped at once. Returns the number of discs
    still overlapping a blocked square or an obstacle (by more than :data:`_HAIR` cells).
    """
    stuck = 0
    for i in range(pos.shape[0]):
        if _off_walls_near(pos, i, radius[i], passable, sat, obst, ox, oy, cs, y_up):
            stuck += 1
    return stuck


@njit(cache=True, nogil=True, inline="always")
def _pairs_from(i, lo, hi, pos, radius, margin, order, pairs, m, first):  # pragma: no cover - compiled
    """Append to ``pairs[:m]`` the pairs ``(i, j)``, ``j > i`` in ``order[lo:hi]``, closer than their
    radii plus ``margin``, until ``i`` has :data:`_MAX_PAIRS` (its pairs begin at ``first``);
    returns the new ``m``, -1 if they do not fit."""
    for q in range(lo, hi):
        j = order[q]
        if j <= i or m - first == _MAX_PAIRS:
            continue
        reach = radius[i] + radius[j] + margin
        dx = pos[i, 0] - pos[j, 0]
        dy = pos[i, 1] - pos[j, 1]
        if dx * dx + dy * dy < reach * reach:
            if m == pairs.shape[0]:
                return -1
            pairs[m, 0] = i
            pairs[m, 1] = j
            m += 1
    return m


@njit(cache=True, nogil=True)
def _close_pairs(pos, radius, margin, ncx, ncy, start, order, cx, cy, pairs):  # pragma: no cover - compiled
    """The pairs ``i < j`` closer than their radii plus ``margin`` into ``pairs`` (a
    :func:`cell_list` with cells at least that wide), at most :data:`_MAX_PAIRS` for each ``i``
    (the first in scan order; in a row of cells holding more, the first of each cell after ``i``
    only); returns their count, -1 if they do not fit."""
    m = 0
    for i in range(pos.shape[0]):
        first = m
        x0 = max(cx[i] - 1, 0)
        x1 = min(cx[i] + 1, ncx - 1)
        for yy in range(max(cy[i] - 1, 0), min(cy[i] + 1, ncy - 1) + 1):
            row = yy * ncx
            if start[row + x1 + 1] - start[row + x0] <= _MAX_PAIRS:  # (as a rule: the row's cells in one slice)
                m = _pairs_from(i, start[row + x0], start[row + x1 + 1], pos, radius, margin, order, pairs, m, first)
            else:  # crowded: each cell from its first j > i (a cell lists its agents in ascending order)
                for c in range(row + x0, row + x1 + 1):
                    lo = start[c]
                    hi = start[c + 1]
                    while lo < hi:
                        mid = (lo + hi) // 2
                        if order[mid] <= i:
                            lo = mid + 1
                        else:
                            hi = mid
                    m = _pairs_from(i, lo, min(start[c + 1], lo + _MAX_PAIRS), pos, radius, margin, order, pairs, m,
                                    first)
                    if m < 0:
                        return -1
            if m < 0:
                return -1
    return m


@njit(cache=True, nogil=True)
def _sweep(pos, radius, mass, pairs, m, full, active, count, hits, moved, prev, relax):  # pragma: no cover - compiled
    """One Gauss-Seidel sweep over all ``m`` pairs (``full``) or over ``active[:count]``: each
    overlapping pair is pushed apart by the mass shares, ``relax`` times its overlap;
    ``moved``/``prev`` mark the discs it moved and where they were. Returns the deepest overlap
    (relative to the radii's sum) and the number of overlapping pairs, listed in ``hits``."""
    worst = 0.0
    found = 0
    for q in range(m if full else count):
        p = q if full else active[q]
        i = pairs[p, 0]
        j = pairs[p, 1]
        dx = pos[i, 0] - pos[j, 0]
        dy = pos[i, 1] - pos[j, 1]
        comb = radius[i] + radius[j]
        d2 = dx * dx + dy * dy
        if d2 >= comb * comb:
            continue
        hits[found] = p
        found += 1
        if d2 < 1e-18:  # coincident: split deterministically (golden angle by index)
            angle = 2.399963 * (i + 1)
            ux = math.cos(angle)
            uy = math.sin(angle)
            over = comb
        else:
            d = math.sqrt(d2)
            ux = dx / d
            uy = dy / d
            over = comb - d
        worst = max(worst, over / comb)
        over *= relax
        total = mass[i] + mass[j]
        wi = mass[j] / total if total > 0.0 else 0.5
        for a in (i, j):
            if not moved[a]:
                moved[a] = True
                prev[a, 0] = pos[a, 0]
                prev[a, 1] = pos[a, 1]
        pos[i, 0] += ux * over * wi
        pos[i, 1] += uy * over * wi
        pos[j, 0] -= ux * over * (1.0 - wi)
        pos[j, 1] -= uy * over * (1.0 - wi)
    return worst, found


@njit(cache=True, nogil=True)
def resolve_discs(pos, radius, mass, passable, sat, obst, ox, oy, cs, y_up, iterations, tolerance):  # pragma: no cover
    """Push overlapping discs apart, then out of blocked cells; modifies ``pos`` (n, 2) in place.

    The pairs closer than the sum of their radii plus half the largest radius are collected once
    (a :func:`cell_list` of cells at least ``2.5`` times the largest radius); then up to
    ``iterations`` Gauss-Seidel sweeps (mostly over the pairs that overlapped in the previous
    sweep; over all of them every 8th sweep and before stopping) move each overlapping pair apart
    along its centre line (over-relaxed from sweep :data:`_RELAX_AFTER` on), each disc by its
    share of the overlap (``mass`` (n,): the heavier moves less; both 0: half each), followed by
    wall sliding (no centre onto a blocked cell) and :func:`discs_off_walls` (``obst``). The sweeps stop
    early once no pair overlaps by more than ``tolerance`` times the sum of its radii. Walls win:
    a disc is never left in a blocked cell square it could leave. Returns the number of discs
    still overlapping a blocked cell (by more than :data:`_HAIR` cells).
    """
    n = pos.shape[0]
    r_max = 0.0
    for i in range(n):
        r_max = max(r_max, radius[i])
    stuck_at = np.zeros(n, np.bool_)
    for a in range(n):
        stuck_at[a] = _off_walls_near(pos, a, radius[a], passable, sat, obst, ox, oy, cs, y_up)
    if n < 2 or iterations <= 0 or r_max <= 0.0:
        return int(stuck_at.sum())
    margin = 0.5 * r_max
    pairs = np.empty((4 * n + 16, 2), np.int64)
    prev = np.empty_like(pos)
    moved = np.zeros(n, np.bool_)
    anchor = np.empty_like(pos)  # the positions the pairs were collected at
    m = -1
    full = True
    stale = False
    for sweep in range(iterations):
        if m < 0:  # (re)collect the pairs near enough to meet before a disc moves margin / 2
            _, ncx, ncy, start, order, cx, cy, _, _ = cell_list(pos, 2.0 * r_max + margin)
            m = _close_pairs(pos, radius, margin, ncx, ncy, start, order, cx, cy, pairs)
            while m < 0:  # (the buffer grows outside the scan: a reassigned array slows the loop down)
                pairs = np.empty((2 * pairs.shape[0], 2), np.int64)
                m = _close_pairs(pos, radius, margin, ncx, ncy, start, order, cx, cy, pairs)
            anchor[:] = pos
            active = np.empty(m, np.int64)  # the pairs that overlapped in the last sweep
            hits = np.empty(m, np.int64)
            count = 0
            full = True
        worst, found = _sweep(pos, radius, mass, pairs, m, full, active, count, hits, moved, prev,
                              _RELAX if sweep >= _RELAX_AFTER else 1.0)
        active, hits = hits, active
        count = found
        far = False
        for a in range(n):  # the discs pushed this sweep: centres off blocked cells, discs off walls
            if not moved[a]:
                continue
            moved[a] = False
            _slide(prev, pos, a, passable, ox, oy, cs, y_up)
            stuck_at[a] = _off_walls_near(pos, a, radius[a], passable, sat, obst, ox, oy, cs, y_up)
            far = far or math.hypot(pos[a, 0] - anchor[a, 0], pos[a, 1] - anchor[a, 1]) > 0.5 * margin
        stale = stale or far
        if worst <= tolerance and full:
            if not stale:
                break
            m = -1  # a disc went far enough to overlap one the pairs do not hold: look again
            stale = False
        else:  # mostly the pairs that overlapped last time; all of them every 8th sweep and to confirm
            full = worst <= tolerance or count == 0 or sweep % 8 == 7
    return int(stuck_at.sum())


@njit(cache=True, nogil=True)
def _slide(prev, pos, i, passable, ox, oy, cs, y_up):  # pragma: no cover - compiled
    """Keep disc ``i``'s centre off blocked cells after a move from ``prev[i]`` (as
    :func:`~gamenav._kernels.crowd.resolve_walls`): keep the x move or the y move alone, or stay."""
    x = pos[i, 0]
    y = pos[i, 1]
    ci = int(math.floor((x - ox) / cs))
    cj = int(math.floor((y - oy) / cs))
    if not _blocked(passable, ci, cj, y_up):
        return
    if not _blocked(passable, ci, int(math.floor((prev[i, 1] - oy) / cs)), y_up):
        pos[i, 1] = prev[i, 1]
    elif not _blocked(passable, int(math.floor((prev[i, 0] - ox) / cs)), cj, y_up):
        pos[i, 0] = prev[i, 0]
    else:
        pos[i, 0] = prev[i, 0]
        pos[i, 1] = prev[i, 1]


@njit(cache=True, nogil=True)
def crowd_step(pos, vel, pref, radius, radius_cap, max_speed, moving, order, goal, idle_mass, keep_right, hcell,
               neighbor_dist, max_neighbors, time_horizon, time_horizon_obst, dt, passable, sat, obst, ox, oy, cs,
               y_up, iterations, tolerance, new_vel, yielded_before, yielded, wait, bend):  # pragma: no cover
    """One avoidance step of a crowd, in place: ORCA velocities (:func:`orca_velocities`, into
    ``new_vel``), the move by ``new_vel * dt`` with wall sliding (no centre onto a blocked cell),
    then overlaps resolved (:func:`resolve_discs`, ``iterations``, ``tolerance``). ``vel``
    becomes the velocity actually moved, capped at ``max_speed``.

    Per agent (n,): ``radius`` (taken as at most ``radius_cap``), ``moving`` (idle agents give
    way to moving ones, which ignore them: priority ``-inf``, else 0), ``order`` (the number of
    its order: older orders have right of way, ``rank = -order``), ``goal`` (n, 2) (its
    direction is ``goal_dir``). Masses for the overlap resolution: ``radius**2``, times
    ``idle_mass`` for idle agents and 0.1 for those that gave way, backed off (``yielded``) or
    wait at a passage (``wait``). ``bend`` (n, 2) is set to how much the others and the walls
    bent the preferred velocity: ``(pref - new_vel) / max_speed`` (0 for a speed of 0 cells per
    second). Returns ``(infeasible, stuck)``: agents whose linear program was infeasible, discs left
    overlapping a blocked cell or an obstacle.

    ``obst``: obstacle walls besides the grid's blocked cells, exact (a navmesh world's obstacles),
    ``(seg, start, items, size, nbx)``: ``seg`` (m, 8) float64 world units, one row per edge
    ``x0 y0 x1 y1 xp yp xn yn``: the edge from ``(x0, y0)`` to ``(x1, y1)`` with the obstacle on
    its left (rings counterclockwise, holes clockwise), ``(xp, yp)`` the vertex before it on
    its ring and ``(xn, yn)`` the one after (convexity and the neighbouring edges of RVO2's
    obstacle lines); a bucket index of square buckets of ``size`` cells from the origin,
    ``nbx`` per row along world x (bucket ``by * nbx + bx``): bucket ``b`` lists the edges whose
    bounding box meets it (clipped to the border buckets), ``items[start[b]:start[b + 1]]``.
    No edges: ``(0, 8)``, ``start`` of one empty bucket.

    All of it runs in cells from the origin, the units its
    tolerances are tuned in (in world units, on cells of 1e200 or 1e-200 the squares of distances
    overflowed or underflowed: nobody was avoided or pushed apart); ``new_vel`` is in cells per
    second. A move that a rounding back to world units would carry across a cell border (onto a
    wall, off the map) is not made.
    """
    n = pos.shape[0]
    start = np.empty((n, 2))  # in cells: positions, velocities, preferred velocities, speeds, radii
    at = np.empty((n, 2))
    v = np.empty((n, 2))
    want = np.empty((n, 2))
    speed = np.empty(n)
    r = np.empty(n)
    priority = np.empty(n)
    rank = np.empty(n)
    goal_dir = np.empty((n, 2))
    for i in range(n):
        start[i, 0] = (pos[i, 0] - ox) / cs
        start[i, 1] = (pos[i, 1] - oy) / cs
        for k in range(2):
            at[i, k] = start[i, k]
            v[i, k] = vel[i, k] / cs
            want[i, k] = pref[i, k] / cs
        speed[i] = max_speed[i] / cs
        r[i] = min(radius[i], radius_cap) / cs
        priority[i] = 0.0 if moving[i] else -np.inf
        rank[i] = -float(order[i])
        gx = (goal[i, 0] - ox) / cs - start[i, 0]
        gy = (goal[i, 1] - oy) / cs - start[i, 1]
        norm = max(math.sqrt(gx * gx + gy * gy), 1e-12)
        goal_dir[i, 0] = gx / norm
        goal_dir[i, 1] = gy / norm
    seg = obst[0]
    cells = np.empty_like(seg)  # the obstacle edges in cells from the origin too
    for s in range(seg.shape[0]):
        for c in range(0, 8, 2):
            cells[s, c] = (seg[s, c] - ox) / cs
            cells[s, c + 1] = (seg[s, c + 1] - oy) / cs
    edges = (cells, obst[1], obst[2], obst[3], obst[4])
    infeasible = orca_velocities(at, v, want, r, speed, priority, rank, goal_dir, keep_right, hcell / cs,
                                 neighbor_dist / cs, max_neighbors, time_horizon, time_horizon_obst, dt, passable,
                                 sat, edges, 0.0, 0.0, 1.0, y_up, True, new_vel, yielded_before, yielded, wait)
    mass = np.empty(n)
    for i in range(n):
        mass[i] = r[i] * r[i] * (1.0 if moving[i] else idle_mass)
        if yielded[i] > 0 or wait[i]:  # who gives way is also pushed aside
            mass[i] *= 0.1
        slow = speed[i] == 0.0  # (a max_speed under 5e-324 cells per second: it does not move)
        bend[i, 0] = 0.0 if slow else (want[i, 0] - new_vel[i, 0]) / speed[i]
        bend[i, 1] = 0.0 if slow else (want[i, 1] - new_vel[i, 1]) / speed[i]
        at[i, 0] += new_vel[i, 0] * dt
        at[i, 1] += new_vel[i, 1] * dt
    resolve_walls(start, at, passable, 0.0, 0.0, 1.0, y_up, 0.0)
    stuck = resolve_discs(at, r, mass, passable, sat, edges, 0.0, 0.0, 1.0, y_up, iterations, tolerance)
    for i in range(n):  # (finite for any dt > 0: a subnormal dt would make the move over dt inf)
        dx = at[i, 0] - start[i, 0]
        dy = at[i, 1] - start[i, 1]
        d = math.hypot(dx, dy)
        if d > speed[i] * dt:
            vel[i, 0] = dx / d * max_speed[i]
            vel[i, 1] = dy / d * max_speed[i]
        else:
            vel[i, 0] = dx / dt * cs
            vel[i, 1] = dy / dt * cs
        x = pos[i, 0] + dx * cs  # (the move: no rounding of whole positions)
        y = pos[i, 1] + dy * cs
        if math.floor((x - ox) / cs) == math.floor(at[i, 0]) and math.floor((y - oy) / cs) == math.floor(at[i, 1]):
            pos[i, 0] = x
            pos[i, 1] = y
    return infeasible, stuck
