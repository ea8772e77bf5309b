"""Unit sizes on grids: radius searches against an oracle on every Moving AI map, and the cost
of keeping the clearance up to date after small edits.

Oracle: for every ``.map`` in ``<data>/movingai`` and r in {0.5, 1, 1.5} cells, the radius mask is
built here from its definition (numpy, no gamenav code: a cell is usable when the distance from
its centre to every blocked square and to the outside of the map is >= r); every scenario whose
start and goal lie in the mask is searched with ``find_path(grid, s, g, agent_radius=r)`` and with
plain A* on ``TileGrid(mask)``: a mismatch is any difference in status, cost or cells. Optimality:
the radius cost is checked against a Dijkstra field on the mask (every ``--dijkstra-every``-th
query), and for r = 0.5 (the plain grid) against the scenario's optimal length (+- 0.01).

Updates: per map, the clearance is built once, then ``--edits`` random small edits (one cell or
a 2 x 2 block toggled) each followed by the repair; medians side by side with a full rebuild.

Run: ``python benchmarks/clearance.py [--data DIR] [--per-map N] [--edits N]``
"""

from __future__ import annotations

from _common import data_dir, markdown_table  # first import of every script (see _common)

import argparse
import math
import statistics
import time
from pathlib import Path

import numpy as np

import gamenav
from gamenav import TileGrid
from gamenav.grid.clearance import _CAP, _Clearance, _of, clearance_mask
from gamenav._kernels.clearance import clearance_box
from gamenav.io import read_map, read_scenarios

RADII = (0.5, 1.0, 1.5)


def reference_mask(passable: np.ndarray, r: float) -> np.ndarray:
    h, w = passable.shape
    k = int(math.ceil(r)) + 1
    padded = np.zeros((h + 2 * k, w + 2 * k), bool)
    padded[k:k + h, k:k + w] = passable
    mask = passable.copy()
    for dy in range(-k, k + 1):
        for dx in range(-k, k + 1):
            if math.hypot(max(abs(dx) - 0.5, 0.0), max(abs(dy) - 0.5, 0.0)) < r:
                mask &= padded[k + dy:k + dy + h, k + dx:k + dx + w]
    return mask


def oracle(path: Path, per_map: int, dijkstra_every: int) -> list[list[object]]:
    walk = read_map(path)
    scen = read_scenarios(path.with_name(path.name + ".scen"))
    step = max(1, len(scen) // per_map) if per_map else 1
    items = scen[::step]
    grid = TileGrid(walk)
    rows = []
    for r in RADII:
        mask = reference_mask(walk, r)
        same_mask = bool((clearance_mask(grid, r) == mask).all())
        plain = TileGrid(mask)
        searched = mismatches = optimal_bad = checked = skipped = 0
        t_radius = t_plain = 0.0
        for n, item in enumerate(items):
            (sx, sy), (gx, gy) = item.start, item.goal
            if not (mask[sy, sx] and mask[gy, gx]):
                skipped += 1
                continue
            t0 = time.perf_counter()
            got = gamenav.find_path(grid, item.start, item.goal, agent_radius=r)
            t1 = time.perf_counter()
            want = gamenav.find_path(plain, item.start, item.goal)
            t2 = time.perf_counter()
            t_radius += t1 - t0
            t_plain += t2 - t1
            searched += 1
            if got.status is not want.status or got.cost != want.cost or not np.array_equal(got.cells, want.cells):
                mismatches += 1
            if r == 0.5 and abs(got.cost - item.optimal_length) > 0.01:
                optimal_bad += 1
            if dijkstra_every and n % dijkstra_every == 0:
                field = gamenav.distance_field(plain, item.start)
                best = field[gy, gx]
                checked += 1
                if not (got.cost == best or abs(got.cost - best) <= 1e-9 * max(1.0, best)):
                    optimal_bad += 1
        rows.append([path.stem, r, "yes" if same_mask else "NO", searched, skipped, mismatches, checked,
                     optimal_bad, f"{1000 * t_radius / max(searched, 1):.3f}",
                     f"{1000 * t_plain / max(searched, 1):.3f}"])
    return rows


def updates(path: Path, edits: int, seed: int) -> tuple[float, float, float, float]:
    """Median ms: repair after a small edit, full rebuild, the whole edit (set_walkable), and the
    first radius search's extra work after an edit (clearance repair + mask view)."""
    walk = read_map(path)
    grid = TileGrid(walk)
    rng = np.random.default_rng(seed)
    h, w = walk.shape
    _of(grid._snapshot())
    repair, edit, view = [], [], []
    for _ in range(edits):
        x, y = int(rng.integers(0, w - 1)), int(rng.integers(0, h - 1))
        size = int(rng.integers(1, 3))
        walkable = not bool(grid.passable[y, x])
        t0 = time.perf_counter()
        change = grid.set_walkable((x, y, x + size, y + size), walkable)
        t1 = time.perf_counter()
        if change is None:
            continue
        state = grid._snapshot()
        t2 = time.perf_counter()
        _of(state)
        t3 = time.perf_counter()
        clearance_mask(grid, 1.0)
        t4 = time.perf_counter()
        edit.append(t1 - t0)
        repair.append(t3 - t2)
        view.append(t4 - t2)
    passable = grid.passable.copy()
    full = []
    for _ in range(max(5, edits // 20)):
        dist = np.empty((h, w), dtype=np.uint8)
        t0 = time.perf_counter()
        clearance_box(passable, 0, 0, h, w, dist, 0, h, 0, w, _CAP)
        _Clearance(dist)
        full.append(time.perf_counter() - t0)
    ms = [1000 * statistics.median(v) for v in (repair, full, edit, view)]
    return ms[0], ms[1], ms[2], ms[3]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=None, help="benchmark folder (default ../shared/benchmarks)")
    parser.add_argument("--per-map", type=int, default=0, help="scenarios per map (0: all)")
    parser.add_argument("--dijkstra-every", type=int, default=50, help="Dijkstra check every Nth query")
    parser.add_argument("--edits", type=int, default=300, help="random small edits per map")
    args = parser.parse_args()
    maps = sorted((data_dir(args.data) / "movingai").glob("*.map"))
    gamenav.warmup(navmesh=False, crowd=False)
    rows = []
    for path in maps:
        rows += oracle(path, args.per_map, args.dijkstra_every)
    print("## Radius searches vs A* on the reference mask (every Moving AI map)\n")
    print(markdown_table(["map", "r (cells)", "mask == ref", "searched", "endpoint outside mask",
                          "mismatches", "Dijkstra checks", "not optimal", "radius ms/query",
                          "plain-mask ms/query"], rows))
    total = sum(int(r[3]) for r in rows)  # type: ignore[call-overload]
    bad = sum(int(r[5]) for r in rows)  # type: ignore[call-overload]
    worse = sum(int(r[7]) for r in rows)  # type: ignore[call-overload]
    print(f"\n{len(maps)} maps, {total} searches: {bad} mismatches, {worse} non-optimal costs\n")
    print("## Clearance upkeep after a small edit (median ms)\n")
    urows = []
    for i, path in enumerate(maps):
        walk_shape = read_map(path).shape
        repair, full, edit, view = updates(path, args.edits, i)
        urows.append([path.stem, f"{walk_shape[1]}x{walk_shape[0]}", f"{repair:.4f}", f"{full:.3f}",
                      f"{full / repair:.0f}x", f"{edit:.4f}", f"{view:.4f}"])
    print(markdown_table(["map", "size", "repair ms", "full rebuild ms", "rebuild / repair",
                          "set_walkable ms", "repair + r=1 mask ms"], urows))
    print(f"\nmedian repair over maps: {statistics.median(float(r[2]) for r in urows):.4f} ms "
          f"(max {max(float(r[2]) for r in urows):.4f} ms); target < 0.2 ms")


if __name__ == "__main__":
    main()
