"""Long frames: do crowd units still arrive when ``crowd.update(dt)`` gets a hitch-sized ``dt``?

A game that stalls (loading, a debugger, a slow frame) hands the next update a ``dt`` of half a
second or more. Each case: a random 30 x 30 map with a quarter of the cells walls (seeded), six
units on free cells of its largest island sent as one group to another free cell, ``max_speed``
5 cells/s, updated with a fixed ``dt`` until all arrive or 40 simulated seconds pass. The table
gives, per avoidance and ``dt``, how many of the ``--maps`` x 6 units arrived and the median
simulated time the maps took (40 s for a map where some unit did not arrive).

Usage (from the repository root)::

    python benchmarks/hitch.py
    python benchmarks/hitch.py --maps 12 --seed 2
"""

from __future__ import annotations

import argparse
import statistics

from _common import markdown_table  # first: see _common

import numpy as np
import numpy.typing as npt

import gamenav

UNITS = 6
SPEED = 5.0
LIMIT_S = 40.0
DTS = (1 / 30, 0.5, 1.0, 2.0)


def case(rng: np.random.Generator) -> tuple[npt.NDArray[np.bool_], npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """A map, the units' start points ``(UNITS, 2)`` and their goal ``(2,)``."""
    walkable = rng.random((30, 30)) > 0.25
    labels = gamenav.TileGrid(walkable).components()
    largest = np.bincount(labels[labels >= 0]).argmax()
    free = np.argwhere(labels == largest)[:, ::-1] + 0.5
    pick = free[rng.choice(len(free), UNITS + 1, replace=False)]
    return walkable, pick[:UNITS], pick[UNITS]


def run(walkable: npt.NDArray[np.bool_], starts: npt.NDArray[np.float64], goal: npt.NDArray[np.float64],
        avoidance: str, dt: float) -> tuple[int, float]:
    """Units arrived and simulated seconds taken (LIMIT_S when some did not arrive)."""
    crowd = gamenav.Crowd(gamenav.TileGrid(walkable), starts, radius=0.3, max_speed=SPEED, avoidance=avoidance)
    crowd.move(np.arange(UNITS), goal)
    t = 0.0
    while t < LIMIT_S and not crowd.arrived.all():
        crowd.update(dt)
        t += dt
    return int(crowd.arrived.sum()), t


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--maps", type=int, default=6)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    cases = [case(rng) for _ in range(args.maps)]
    rows = []
    for avoidance in ("orca", "separation"):
        for dt in DTS:
            results = [run(*c, avoidance, dt) for c in cases]
            rows.append([avoidance, f"{dt:.3g}", f"{sum(a for a, _ in results)}/{UNITS * len(cases)}",
                         f"{statistics.median(t for _, t in results):.1f}"])
    print(f"{args.maps} random 30x30 maps (seed {args.seed}), {UNITS} units at {SPEED:g} cells/s, "
          f"limit {LIMIT_S:g} s")
    print(markdown_table(["avoidance", "dt s", "arrived", "median s"], rows))


if __name__ == "__main__":
    main()
