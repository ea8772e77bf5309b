"""Jump Point Search moves for uniform-cost 8-connected grids without corner cutting.

Used by :func:`gamenav._kernels.grid_search.best_first_step` (same padded flat layout: node
``n = (y + 1) * stride + (x + 1)``, ``passable`` ``(N,)`` uint8 with a blocked border).
Directions are node offsets ``d = dx + dy * stride`` with ``dx, dy`` in -1..1. Straight scans
read :func:`jump_tables` (one O(cells) sweep per grid snapshot; after an edit only the rows and
columns next to the changed cells are swept again); diagonal scans step cell by cell and
consult the tables at each step.

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


@njit(cache=True, nogil=True)
def jump_tables(p, stride, tables, r0, r1, c0, c1):
    """Write the straight-scan results ``tables`` ``(4, N)`` int32 of the padded rows
    ``r0 <= r < r1`` (E and W, whole rows) and columns ``c0 <= c < c1`` (S and N, whole
    columns); 1 .. size for all cells.

    Row ``i`` of ``tables`` is the direction ``(1, -1, stride, -stride)[i]`` (E, W, S, N). For a
    passable cell, ``t > 0``: the scan stops at a jump point (a forced neighbour) ``t`` cells
    away; ``t <= 0``: it runs into a wall after ``-t`` passable cells (0 for blocked cells). The
    goal is not included (:func:`jump` checks it). One sweep per row / column and direction.
    """
    rows = p.shape[0] // stride
    for i in range(4):
        d = (1, -1, stride, -stride)[i]
        side = stride if i < 2 else 1
        along = 1 if i < 2 else stride  # unit step of the sweep, across = the lines swept
        lines_from, lines_to = (r0, r1) if i < 2 else (c0, c1)
        length = stride - 2 if i < 2 else rows - 2
        table = tables[i]
        for line in range(lines_from, lines_to):
            base = line * stride if i < 2 else line
            for j in range(length, 0, -1):
                n = base + (j if d > 0 else length + 1 - j) * along
                m = n + d
                if p[n] == 0 or p[m] == 0:
                    table[n] = 0
                elif (p[m + side] != 0 and p[n + side] == 0) or (
                        p[m - side] != 0 and p[n - side] == 0):
                    table[n] = 1
                else:
                    t = table[m]
                    table[n] = t + 1 if t > 0 else t - 1


@njit(cache=True, nogil=True, inline="always")
def _table_index(d, stride):
    if d == 1:
        return 0
    if d == -1:
        return 1
    return 2 if d == stride else 3


@njit(cache=True, nogil=True)
def jump(p, tables, stride, n, d, goal, gx, gy):
    """The jump point reached from node ``n`` in direction ``d``, or -1 (wall / dead end).

    ``goal`` is the goal node at padded ``(gx, gy)``: every scan stops there.
    """
    y = n // stride
    x = n - y * stride
    if d == 1 or d == -1 or d == stride or d == -stride:
        t = tables[_table_index(d, stride), n]
        reach = t if t > 0 else -t
        if d == 1 or d == -1:
            if y == gy and 0 < (gx - x) * d <= reach:
                return goal
        elif x == gx and 0 < (gy - y) * (1 if d > 0 else -1) <= reach:
            return goal
        return n + t * d if t > 0 else -1
    dx = 1 if (d - 1) % stride == 0 else -1
    dys = d - dx
    dy = 1 if dys > 0 else -1
    th = tables[0 if dx > 0 else 1]
    tv = tables[2 if dy > 0 else 3]
    while True:
        if p[n + dx] == 0 or p[n + dys] == 0 or p[n + d] == 0:
            return -1
        n += d
        x += dx
        y += dy
        if n == goal:
            return n
        a = th[n]
        b = tv[n]
        if a > 0 or b > 0:
            return n
        if (y == gy and 0 < (gx - x) * dx <= -a) or (x == gx and 0 < (gy - y) * dy <= -b):
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
