"""Jump Point Search moves for uniform-cost 8-connected grids without corner cutting.

Used by :func:`gamenav._kernels.grid_search.best_first_step` (same padded flat layout: node
``n = (y + 1) * stride + (x + 1)``, ``passable`` ``(N,)`` uint8 with a blocked border). The jumps
are computed online from ``passable`` (nothing precomputed), so grid edits need no preprocessing.
Directions are node offsets ``d = dx + dy * stride`` with ``dx, dy`` in -1..1.

Rules (no corner cutting, as in Harabor & Grastien 2014): a diagonal step needs both
orthogonally adjacent cells passable. A straight scan stops at the goal or at a cell with a
forced neighbour: a passable side cell whose cell behind (against the scan direction) is
blocked. A diagonal scan stops at the goal or where one of its two straight sub-scans finds a
jump point. Successors of a jump point reached diagonally: the two straight directions and the
diagonal; reached straight: the straight direction plus, for each forced side, the side
direction and the forward diagonal towards it; the start: all 8. Consecutive jump points lie on
one straight or diagonal line.
"""

from __future__ import annotations

from numba import njit


@njit(cache=True, nogil=True, inline="always")
def _jump_straight(p, n, d, side, goal):
    """Scan from ``n`` by offset ``d`` (``side`` is the perpendicular unit offset)."""
    while True:
        n += d
        if p[n] == 0:
            return -1
        if n == goal:
            return n
        if (p[n + side] != 0 and p[n - d + side] == 0) or (p[n - side] != 0 and p[n - d - side] == 0):
            return n


@njit(cache=True, nogil=True)
def jump(p, stride, n, d, goal):
    """The jump point reached from node ``n`` in direction ``d``, or -1 (blocked / dead end)."""
    if d == 1 or d == -1:
        return _jump_straight(p, n, d, stride, goal)
    if d == stride or d == -stride:
        return _jump_straight(p, n, d, 1, goal)
    dx = 1 if (d - 1) % stride == 0 else -1
    dys = d - dx
    while True:
        if p[n + dx] == 0 or p[n + dys] == 0 or p[n + d] == 0:
            return -1
        n += d
        if n == goal:
            return n
        if _jump_straight(p, n, dx, stride, goal) >= 0 or _jump_straight(p, n, dys, 1, goal) >= 0:
            return n


@njit(cache=True, nogil=True)
def jump_directions(p, stride, n, parent, dirs):
    """Write the pruned successor directions of jump point ``n`` into ``dirs``; return how many.

    ``parent`` is the jump point ``n`` was reached from (-1 for the start).
    """
    if parent < 0:
        nd = 0
        for dy in range(-1, 2):
            for dx in range(-1, 2):
                if dx != 0 or dy != 0:
                    dirs[nd] = dx + dy * stride
                    nd += 1
        return nd
    ny = n // stride
    py = parent // stride
    ddx = (n - ny * stride) - (parent - py * stride)
    ddy = ny - py
    dx = (ddx > 0) - (ddx < 0)
    dys = ((ddy > 0) - (ddy < 0)) * stride
    if dx != 0 and dys != 0:
        dirs[0] = dx
        dirs[1] = dys
        dirs[2] = dx + dys
        return 3
    if dx != 0:
        dirs[0] = dx
        nd = 1
        for s in (-stride, stride):
            if p[n + s] != 0 and p[n - dx + s] == 0:
                dirs[nd] = s
                dirs[nd + 1] = dx + s
                nd += 2
        return nd
    dirs[0] = dys
    nd = 1
    for s in (-1, 1):
        if p[n + s] != 0 and p[n + s - dys] == 0:
            dirs[nd] = s
            dirs[nd + 1] = s + dys
            nd += 2
    return nd
