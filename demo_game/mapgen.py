"""The demo's built-in map: seeded procedural terrain with rivers, bridges, forests and buildings.

Arrays are indexed ``[y, x]`` with row 0 at the top of the map (the TileGrid ``y_up`` convention).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

import gamenav

__all__ = [
    "BRIDGE",
    "BUILDING",
    "FOREST",
    "GRASS",
    "MARSH",
    "ROCK",
    "WATER",
    "Terrain",
    "from_walkable",
    "generate",
]

GRASS, MARSH, WATER, FOREST, BUILDING, ROCK, BRIDGE = range(7)
"""Terrain kinds stored in :attr:`Terrain.kind`."""

BLOCKING = (WATER, FOREST, BUILDING, ROCK)
MARSH_COST = 2.0


@dataclass
class Terrain:
    """A generated map.

    Attributes:
        kind: ``(h, w)`` uint8 terrain kind per cell (GRASS, MARSH, ...), ``[y, x]``.
        shade: ``(h, w)`` float32 in [0, 1], a smooth noise used to vary colours.
    """

    kind: npt.NDArray[np.uint8]
    shade: npt.NDArray[np.float32]

    @property
    def walkable(self) -> npt.NDArray[np.bool_]:
        """``(h, w)`` bool: True where units may stand."""
        return ~np.isin(self.kind, BLOCKING)

    @property
    def cost(self) -> npt.NDArray[np.float64]:
        """``(h, w)`` float64 cell costs: marsh is slower (costs more) than grass."""
        return np.where(self.kind == MARSH, MARSH_COST, 1.0)


def _noise(rng: np.random.Generator, shape: tuple[int, int], scale: int) -> np.ndarray:
    """Smooth value noise in [0, 1]: random values on a coarse lattice, bilinearly upsampled."""
    h, w = shape
    gh, gw = h // scale + 2, w // scale + 2
    lattice = rng.random((gh, gw))
    ys = np.arange(h) / scale
    xs = np.arange(w) / scale
    y0, x0 = ys.astype(int), xs.astype(int)
    fy, fx = (ys - y0)[:, None], (xs - x0)[None, :]
    fy, fx = fy * fy * (3 - 2 * fy), fx * fx * (3 - 2 * fx)
    a = lattice[y0][:, x0]
    b = lattice[y0][:, x0 + 1]
    c = lattice[y0 + 1][:, x0]
    d = lattice[y0 + 1][:, x0 + 1]
    return (a * (1 - fx) + b * fx) * (1 - fy) + (c * (1 - fx) + d * fx) * fy


def _river(rng: np.random.Generator, kind: np.ndarray, vertical: bool) -> None:
    """Carve a meandering river across the map, with marsh banks and a few bridges."""
    h, w = kind.shape
    length, across = (h, w) if vertical else (w, h)
    centre = rng.uniform(0.3, 0.7) * across
    drift = 0.0
    course = []
    for _ in range(length):
        drift = 0.85 * drift + rng.normal(0, 0.35)
        centre = float(np.clip(centre + drift, 6, across - 7))
        course.append(centre)
    bridges = set()
    for b in rng.choice(np.arange(8, length - 8), size=3, replace=False):
        bridges.update(range(b - 1, b + 2))
    for t, c in enumerate(course):
        half = 1.2 + 0.8 * np.sin(t / 9.0) ** 2
        lo, hi = int(c - half), int(c + half) + 1
        bank = slice(max(lo - 2, 0), min(hi + 2, across))
        cells = slice(lo, hi)
        line = kind[:, t] if not vertical else kind[t, :]
        line[bank] = np.where(line[bank] == GRASS, MARSH, line[bank])
        line[cells] = BRIDGE if t in bridges else WATER


def _buildings(rng: np.random.Generator, kind: np.ndarray, count: int) -> None:
    """Place ``count`` rectangular buildings (some L-shaped) on grass, away from each other."""
    h, w = kind.shape
    placed = 0
    for _ in range(count * 20):
        if placed == count:
            break
        bw, bh = rng.integers(3, 8), rng.integers(3, 7)
        x, y = rng.integers(2, w - bw - 2), rng.integers(2, h - bh - 2)
        area = kind[y - 2:y + bh + 2, x - 2:x + bw + 2]
        if (area != GRASS).any():
            continue
        kind[y:y + bh, x:x + bw] = BUILDING
        if rng.random() < 0.4:  # L-shape: cut a corner
            kind[y:y + bh // 2, x:x + bw // 2] = GRASS
        placed += 1


def _labels(kind: np.ndarray) -> np.ndarray:
    return gamenav.TileGrid(~np.isin(kind, BLOCKING)).components(diagonal="never")


def _bridge_islands(kind: np.ndarray, min_share: float = 0.01) -> None:
    """Add bridges over water until every island bigger than ``min_share`` of the map is joined
    to the largest one (two rivers can cut off a region whose bridges all lead elsewhere)."""
    for _ in range(16):
        labels = _labels(kind)
        sizes = np.bincount(labels[labels >= 0])
        main = int(np.argmax(sizes))
        if not (np.delete(sizes, main) > min_share * kind.size).any():
            return
        best = None
        for grid_view, lab in ((kind, labels), (kind.T, labels.T)):
            for row in range(1, grid_view.shape[0] - 1):
                line, lrow = grid_view[row], lab[row]
                for x0 in np.flatnonzero((line[:-1] != WATER) & (line[1:] == WATER)) + 1:
                    x1 = x0
                    while x1 < len(line) and line[x1] == WATER and x1 - x0 < 8:
                        x1 += 1
                    if x1 >= len(line) or line[x1] == WATER:
                        continue
                    a, b = lrow[x0 - 1], lrow[x1]
                    if a >= 0 and b >= 0 and a != b and main in (a, b) and \
                            sizes[a + b - main] > min_share * kind.size and (best is None or x1 - x0 < best[0]):
                        best = (x1 - x0, grid_view, row, x0, x1)
        if best is None:
            return
        _, grid_view, row, x0, x1 = best
        for r in (row - 1, row, row + 1):
            grid_view[r, x0:x1] = np.where(grid_view[r, x0:x1] == WATER, BRIDGE, grid_view[r, x0:x1])


def _keep_largest_island(kind: np.ndarray) -> None:
    """Turn walkable pockets that are cut off from the main area into rock."""
    labels = _labels(kind)
    counts = np.bincount(labels[labels >= 0])
    if len(counts):
        kind[(labels >= 0) & (labels != int(np.argmax(counts)))] = ROCK


def generate(width: int = 128, height: int = 96, *, seed: int = 7) -> Terrain:
    """Generate the demo map: grass, two rivers with bridges and marshy banks, forests, rocks
    and buildings; every walkable cell is connected (4-connected) to every other.

    Args:
        width: columns (>= 32).
        height: rows (>= 32).
        seed: the same seed always gives the same map.
    """
    if width < 32 or height < 32:
        raise ValueError(f"map must be at least 32 x 32 cells, got {width} x {height}")
    rng = np.random.default_rng(seed)
    shape = (height, width)
    kind = np.full(shape, GRASS, np.uint8)
    forest = _noise(rng, shape, 12)
    clumps = _noise(rng, shape, 3)
    kind[(forest > 0.72) & (clumps > 0.35)] = FOREST
    rocks = _noise(rng, shape, 6)
    kind[rocks > 0.9] = ROCK
    # keep spawn zones (left and right thirds' edges) open
    kind[:, :10] = np.where(kind[:, :10] == FOREST, GRASS, kind[:, :10])
    kind[:, -10:] = np.where(kind[:, -10:] == FOREST, GRASS, kind[:, -10:])
    _river(rng, kind, vertical=True)
    _river(rng, kind, vertical=False)
    _buildings(rng, kind, count=max(4, width * height // 700))
    _bridge_islands(kind)
    _keep_largest_island(kind)
    shade = _noise(rng, shape, 5).astype(np.float32)
    return Terrain(kind, shade)


def from_walkable(walkable: npt.NDArray[np.bool_], cost: npt.NDArray[np.float64] | None = None) -> Terrain:
    """Terrain for a loaded map: blocked cells become rock, costly cells marsh."""
    kind = np.where(walkable, GRASS, ROCK).astype(np.uint8)
    if cost is not None:
        kind[walkable & (cost > 1.0)] = MARSH
    return Terrain(kind, np.full(walkable.shape, 0.5, np.float32))
