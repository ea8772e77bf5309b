"""Independent pure-Python oracles for the grid-search tests (no gamenav kernels inside)."""

from __future__ import annotations

import heapq
import math

import numpy as np

SQRT2 = math.sqrt(2.0)
STEPS8 = [(1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (1, -1), (-1, 1), (-1, -1)]


def diagonal_allowed(passable: np.ndarray, x: int, y: int, dx: int, dy: int, rule: str) -> bool:
    """Whether the diagonal step (dx, dy) from (x, y) obeys ``rule`` (target assumed passable)."""
    a = bool(passable[y, x + dx])
    b = bool(passable[y + dy, x])
    if rule == "never":
        return False
    if rule == "no_corner_cutting":
        return a and b
    if rule == "at_most_one_blocked":
        return a or b
    return True


def neighbours(passable: np.ndarray, cost: np.ndarray, x: int, y: int, rule: str):
    """(nx, ny, step_cost) of the moves allowed from (x, y)."""
    h, w = passable.shape
    for dx, dy in STEPS8:
        nx, ny = x + dx, y + dy
        if not (0 <= nx < w and 0 <= ny < h) or not passable[ny, nx]:
            continue
        if dx and dy:
            if not diagonal_allowed(passable, x, y, dx, dy, rule):
                continue
            yield nx, ny, SQRT2 * cost[ny, nx]
        else:
            yield nx, ny, float(cost[ny, nx])


def dijkstra(grid, sources, rule: str = "no_corner_cutting") -> np.ndarray:
    """(h, w) cheapest cost from any source (x, y) to every cell; inf if unreachable."""
    passable = np.asarray(grid.passable)
    cost = np.asarray(grid.cost)
    dist = np.full(passable.shape, np.inf)
    heap = []
    for x, y in sources:
        dist[y, x] = 0.0
        heap.append((0.0, x, y))
    heapq.heapify(heap)
    while heap:
        d, x, y = heapq.heappop(heap)
        if d > dist[y, x]:
            continue
        for nx, ny, c in neighbours(passable, cost, x, y, rule):
            if d + c < dist[ny, nx] - 1e-12:
                dist[ny, nx] = d + c
                heapq.heappush(heap, (d + c, nx, ny))
    return dist


def check_path(grid, path, start, goal, rule: str = "no_corner_cutting") -> float:
    """Assert ``path`` is a valid cell path from start to goal; return its recomputed cost."""
    cells = np.asarray(path.cells)
    passable = np.asarray(grid.passable)
    cost = np.asarray(grid.cost)
    assert cells.dtype == np.int64 and cells.ndim == 2 and cells.shape[1] == 2
    assert tuple(cells[0]) == tuple(start)
    assert tuple(cells[-1]) == tuple(goal)
    total = 0.0
    for (x0, y0), (x1, y1) in zip(cells[:-1], cells[1:], strict=True):
        dx, dy = int(x1 - x0), int(y1 - y0)
        assert max(abs(dx), abs(dy)) == 1, f"step {(x0, y0)} -> {(x1, y1)} is not to a neighbour"
        assert passable[y1, x1], f"step into blocked cell {(x1, y1)}"
        if dx and dy:
            assert diagonal_allowed(passable, int(x0), int(y0), dx, dy, rule), \
                f"diagonal {(x0, y0)} -> {(x1, y1)} breaks the {rule} rule"
            total += SQRT2 * cost[y1, x1]
        else:
            total += cost[y1, x1]
    assert passable[cells[0][1], cells[0][0]]
    np.testing.assert_allclose(path.points, grid.cell_to_world(cells))
    return total


def segment_clear(passable: np.ndarray, a, b) -> bool:
    """Whether the segment between the centres of cells a and b touches only passable cells.

    Geometric test: every cell whose closed square meets the segment must be passable (so a
    segment through a cell corner needs all four cells around it).
    """
    (ax, ay), (bx, by) = a, b
    p0 = np.array([ax + 0.5, ay + 0.5])
    p1 = np.array([bx + 0.5, by + 0.5])
    for y in range(min(ay, by) - 1, max(ay, by) + 2):
        for x in range(min(ax, bx) - 1, max(ax, bx) + 2):
            if _segment_meets_square(p0, p1, x, y):
                h, w = passable.shape
                if not (0 <= x < w and 0 <= y < h) or not passable[y, x]:
                    return False
    return True


def _segment_meets_square(p0, p1, x, y) -> bool:
    """Liang-Barsky clip of segment p0-p1 against the closed square [x, x+1] x [y, y+1]."""
    t0, t1 = 0.0, 1.0
    d = p1 - p0
    for axis, lo, hi in ((0, x, x + 1), (1, y, y + 1)):
        if d[axis] == 0:
            if p0[axis] < lo or p0[axis] > hi:
                return False
            continue
        ta = (lo - p0[axis]) / d[axis]
        tb = (hi - p0[axis]) / d[axis]
        if ta > tb:
            ta, tb = tb, ta
        t0, t1 = max(t0, ta), min(t1, tb)
        if t0 > t1:
            return False
    return True
