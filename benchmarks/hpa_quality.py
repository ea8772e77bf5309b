"""Path quality of ``algorithm="hpa"`` on open maps with scattered obstacles.

The GPPC maps (``benchmarks/grid_large.py``) are rooms, corridors and a maze: there HPA*'s
paths are within 2% of the shortest. On open ground strewn with single-cell obstacles the
cluster borders are long entrances whose transition cells sit only at the ends, and the
string-pulling's cell lines are often blocked: this script measures how much longer the paths
are there. Maps: ``--size`` x ``--size`` cells, each cell blocked with probability
``--densities`` (seeded); queries: ``--queries`` random pairs of free cells whose shortest path
is at least ``--min-cost`` long. Lengths are ``Path.cost`` over A*'s (optimal) cost.

Usage (from the repository root)::

    python benchmarks/hpa_quality.py
    python benchmarks/hpa_quality.py --densities 0.01,0.02 --size 512
"""

from __future__ import annotations

import argparse

from _common import markdown_table  # first: see _common

import numpy as np

import gamenav


def measure(size: int, density: float, queries: int, min_cost: float, seed: int) -> list[str]:
    rng = np.random.default_rng(seed)
    walkable = rng.random((size, size)) >= density
    grid = gamenav.TileGrid(walkable)
    free = np.argwhere(walkable)
    ratios: list[float] = []
    while len(ratios) < queries:
        (sy, sx), (gy, gx) = free[rng.choice(len(free), 2)].tolist()
        best = gamenav.find_path(grid, (sx, sy), (gx, gy))
        if not best.found or best.cost < min_cost:
            continue
        ratios.append(gamenav.find_path(grid, (sx, sy), (gx, gy), algorithm="hpa").cost / best.cost)
    r = np.array(ratios)
    return [f"{density:.0%}", str(len(r)), f"{r.mean():.4f}", f"{np.percentile(r, 95):.4f}", f"{r.max():.4f}",
            f"{(r > 1.05).mean():.1%}"]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--size", type=int, default=320)
    parser.add_argument("--densities", default="0.02,0.05,0.10")
    parser.add_argument("--queries", type=int, default=150)
    parser.add_argument("--min-cost", type=float, default=50.0)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    rows = [measure(args.size, float(d), args.queries, args.min_cost, args.seed)
            for d in args.densities.split(",")]
    print(f"hpa path cost / optimal on {args.size} x {args.size} maps with random single-cell obstacles")
    print(markdown_table(["obstacles", "queries", "mean", "p95", "max", "over 1.05"], rows))


if __name__ == "__main__":
    main()
