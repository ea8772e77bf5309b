"""Jump Point Search for uniform-cost 8-connected grids without corner cutting.

Same padded flat layout, workspace arrays and heap as :mod:`gamenav._kernels.grid_search`. The
jumps are computed online (nothing precomputed), so grid edits need no preprocessing.

Rules (no corner cutting, Harabor & Grastien 2014): a diagonal step needs both orthogonally
adjacent cells passable. A straight scan stops at the goal or at a cell with a forced
neighbour: a passable side cell whose cell behind (against the scan direction) is blocked. A
diagonal scan stops at the goal or where one of its two straight sub-scans finds a jump point.
Successors of a jump point reached diagonally are the two straight directions and the diagonal;
reached straight, the straight direction plus, for each forced side, the side direction and the
forward diagonal towards it. Consecutive jump points lie on one straight or diagonal line.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from gamenav._kernels.grid_search import (EXHAUSTED, FOUND, IN_PROGRESS, SQRT2, heap_pop,
                                          heap_push, heap_update)


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
def _jump_diagonal(p, n, dx, dys, stride, goal):
    """Scan diagonally from ``n`` by ``dx`` (+-1) and ``dys`` (+-stride)."""
    while True:
        if p[n + dx] == 0 or p[n + dys] == 0 or p[n + dx + dys] == 0:
            return -1
        n += dx + dys
        if n == goal:
            return n
        if _jump_straight(p, n, dx, stride, goal) >= 0 or _jump_straight(p, n, dys, 1, goal) >= 0:
            return n


@njit(cache=True, nogil=True, inline="always")
def _octile(node, stride, gx, gy):
    y = node // stride
    dx = abs(node - y * stride - gx)
    dy = abs(y - gy)
    if dx > dy:
        return dx + (SQRT2 - 1.0) * dy
    return dy + (SQRT2 - 1.0) * dx


@njit(cache=True, nogil=True)
def jps_step(passable, stride, goal, gx, gy, max_expansions,
             g, parent, mark, hf, hg, hn, pos, istate):
    """Run JPS for at most ``max_expansions`` jump-point expansions (same state as A*).

    Returns IN_PROGRESS, FOUND (goal popped) or EXHAUSTED.
    """
    p = passable
    stamp = np.int32(istate[0])
    closed = np.int32(stamp + 1)
    size = istate[1]
    expanded = istate[2]
    budget = max_expansions
    dirs_x = np.empty(8, dtype=np.int64)
    dirs_y = np.empty(8, dtype=np.int64)
    status = IN_PROGRESS
    while True:
        if size == 0:
            status = EXHAUSTED
            break
        if hn[0] == goal:
            status = FOUND
            break
        if budget <= 0:
            break
        n = heap_pop(hf, hg, hn, pos, size)
        size -= 1
        mark[n] = closed
        gn = g[n]
        expanded += 1
        budget -= 1
        # successor directions (dx in -1..1, dy in -1..1)
        count = 0
        par = parent[n]
        if par < 0:
            for dy in range(-1, 2):
                for dx in range(-1, 2):
                    if dx != 0 or dy != 0:
                        dirs_x[count] = dx
                        dirs_y[count] = dy
                        count += 1
        else:
            ny = n // stride
            py = par // stride
            ddx = (n - ny * stride) - (par - py * stride)
            ddy = ny - py
            dx = (ddx > 0) - (ddx < 0)
            dy = (ddy > 0) - (ddy < 0)
            if dx != 0 and dy != 0:
                dirs_x[0] = dx
                dirs_y[0] = 0
                dirs_x[1] = 0
                dirs_y[1] = dy
                dirs_x[2] = dx
                dirs_y[2] = dy
                count = 3
            elif dx != 0:
                dirs_x[0] = dx
                dirs_y[0] = 0
                count = 1
                for s in (-1, 1):
                    if p[n + s * stride] != 0 and p[n - dx + s * stride] == 0:
                        dirs_x[count] = 0
                        dirs_y[count] = s
                        dirs_x[count + 1] = dx
                        dirs_y[count + 1] = s
                        count += 2
            else:
                dirs_x[0] = 0
                dirs_y[0] = dy
                count = 1
                for s in (-1, 1):
                    if p[n + s] != 0 and p[n + s - dy * stride] == 0:
                        dirs_x[count] = s
                        dirs_y[count] = 0
                        dirs_x[count + 1] = s
                        dirs_y[count + 1] = dy
                        count += 2
        for k in range(count):
            dx = dirs_x[k]
            dy = dirs_y[k]
            if dx != 0 and dy != 0:
                jp = _jump_diagonal(p, n, dx, dy * stride, stride, goal)
                if jp < 0:
                    continue
                ng = gn + SQRT2 * (abs(jp - n) // abs(dx + dy * stride))
            elif dx != 0:
                jp = _jump_straight(p, n, dx, stride, goal)
                if jp < 0:
                    continue
                ng = gn + abs(jp - n)
            else:
                jp = _jump_straight(p, n, dy * stride, 1, goal)
                if jp < 0:
                    continue
                ng = gn + abs(jp - n) // stride
            m = mark[jp]
            if m == stamp:
                if ng < g[jp]:
                    g[jp] = ng
                    parent[jp] = n
                    heap_update(hf, hg, hn, pos, jp, ng + _octile(jp, stride, gx, gy), ng)
                continue
            if m == closed and not ng < g[jp] - 1e-9:
                continue
            g[jp] = ng
            parent[jp] = n
            mark[jp] = stamp
            size = heap_push(hf, hg, hn, pos, size, jp, ng + _octile(jp, stride, gx, gy), ng)
    istate[1] = size
    istate[2] = expanded
    return status

