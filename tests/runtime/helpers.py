"""Grids and path checks shared by the runtime tests (imported, not a conftest)."""

from __future__ import annotations

import math

import numpy as np
import gamenav
from gamenav.grid.movement import Diagonal


def rooms_grid(width: int = 48, height: int = 40, seed: int = 0, costs: bool = False) -> gamenav.TileGrid:
    """A deterministic map: random walls (~22%) with a connected open cross, optional costs 1..4."""
    rng = np.random.default_rng(seed)
    walk = rng.random((height, width)) > 0.22
    walk[height // 2, :] = True
    walk[:, width // 2] = True
    cost = rng.integers(1, 5, size=(height, width)).astype(float) if costs else None
    return gamenav.TileGrid(walk, cost=cost)


def connected_pairs(grid: gamenav.TileGrid, n: int, seed: int = 0,
                    diagonal: str = "no_corner_cutting") -> list[tuple[tuple[int, int], tuple[int, int]]]:
    """``n`` random (start, goal) pairs of distinct cells on the same island."""
    rng = np.random.default_rng(seed)
    labels = grid.components(diagonal)
    ys, xs = np.nonzero(labels >= 0)
    pairs: list[tuple[tuple[int, int], tuple[int, int]]] = []
    while len(pairs) < n:
        a, b = rng.integers(0, len(xs), 2)
        if a != b and labels[ys[a], xs[a]] == labels[ys[b], xs[b]]:
            pairs.append(((int(xs[a]), int(ys[a])), (int(xs[b]), int(ys[b]))))
    return pairs


def check_walkable(grid: gamenav.TileGrid, path: gamenav.Path, start, goal,
                   diagonal: Diagonal = Diagonal.NO_CORNER_CUTTING) -> float:
    """Assert ``path`` is a legal cell path from start to goal on ``grid`` now; return its cost."""
    cells = np.asarray(path.cells)
    assert tuple(cells[0]) == tuple(start) and tuple(cells[-1]) == tuple(goal)
    passable = grid.passable
    assert passable[cells[:, 1], cells[:, 0]].all(), "path crosses a blocked cell"
    cost = 0.0
    for (x0, y0), (x1, y1) in zip(cells[:-1], cells[1:], strict=True):
        dx, dy = int(x1 - x0), int(y1 - y0)
        assert max(abs(dx), abs(dy)) == 1, "non-adjacent step"
        if dx and dy:
            assert diagonal is not Diagonal.NEVER
            a, b = passable[y0, x1], passable[y1, x0]
            if diagonal is Diagonal.NO_CORNER_CUTTING:
                assert a and b, "diagonal step cuts a corner"
            elif diagonal is Diagonal.AT_MOST_ONE_BLOCKED:
                assert a or b, "diagonal step squeezes between two walls"
        cost += (math.sqrt(2.0) if dx and dy else 1.0) * float(grid.cost[y1, x1])
    return cost
