"""Small maps: the fixed cost of one ``find_path`` call, side by side with tcod (and arcade).

Most arcade and pygame games have small tile maps, where a query expands a few dozen cells and
the time is the cost of the call itself. Cases (each a fixed, seeded set of queries):

* ``20x15``: a room-and-corridor map of 20 x 15 cells (typical arcade level), random pairs of
  floor cells on the same island; ``20x15 across``: only pairs whose path costs 15 or more
  (crossing the map, like a unit sent to the other side).
* ``10x5``: a 10 x 5 map with a wall across the middle, random pairs.
* ``adjacent``: the 20x15 map, start and goal next to each other (the smallest real query).
* ``<map> bucket b``: a small Moving AI map (lak104d, 41 x 41, when ``--data`` has it; else the
  49 x 49 arena) and its ``.scen`` file, by scenario bucket (bucket ``b`` holds optimal lengths
  ``4b .. 4b + 4``).

Libraries, called as a user would call them (setup once per map, not timed):

* ``gamenav``: ``gamenav.find_path(grid, start, goal)`` (default A*, octile, no corner cutting),
  the full result: cells and world points.
* ``general path``: the same query with an explicit default option (``workspace=None``), which
  takes the general ``GridSearch`` path: what every query cost before the fast path.
* ``smooth``: ``find_path(grid, start, goal, smooth=True)`` (line-of-sight waypoints; also on the
  fast path, as are ``partial``, ``weight=1`` and ``agent_radius=0``).
* ``4-connected``: ``find_path(grid, start, goal, diagonal="never")`` (another query: manhattan
  moves; the fast path serves every movement rule and built-in heuristic).
* ``tcod AStar``: ``tcod.path.AStar(cost, diagonal=sqrt(2)).get_path(...)`` (libtcod's C A*,
  returns a list of (x, y); its diagonals cut corners, so some paths differ).
* ``tcod Pathfinder``: ``tcod.path.Pathfinder`` on a ``CustomGraph`` with gamenav's rules (no
  corner cutting), ``clear(); add_root(); path_to()``.
* ``arcade``: ``arcade.astar_calculate_path`` (pure Python) on the 10x5 and 20x15 maps only.

Timing: every query is run by each library in turn (interleaved, so machine noise hits all alike),
``--repeat`` times (default 7), keeping each query's best time (``time.perf_counter_ns``); the
table gives the median over queries in microseconds and the ratio tcod AStar / gamenav. gamenav
answers are checked against the scenario's optimal length (Moving AI cases).

Usage (from the repository root)::

    python benchmarks/small_maps.py
    python benchmarks/small_maps.py --queries 100 --repeat 3
"""

from __future__ import annotations

import argparse
import math
import os
import statistics
import time
from collections.abc import Callable
from pathlib import Path as FilePath

from _common import data_dir, markdown_table, tcod_pathfinder  # first: see _common

import numpy as np
import numpy.typing as npt

import gamenav
from gamenav.io import read_map, read_scenarios

SQRT2 = math.sqrt(2.0)

Cell = tuple[int, int]
Query = Callable[[Cell, Cell], object]

ROOMS_20x15 = [
    "####################",
    "#......#...........#",
    "#......#...........#",
    "#..........####....#",
    "#......#......#....#",
    "###.####......#....#",
    "#......#......#....#",
    "#......#...........#",
    "#......######.######",
    "#..................#",
    "#....##.......#....#",
    "#....##.......#....#",
    "#.............#....#",
    "#.............#....#",
    "####################",
]
WALL_10x5 = [
    "..........",
    ".....#....",
    ".....#....",
    ".....#....",
    "..........",
]


def _tcod_astar(walkable: npt.NDArray[np.bool_]) -> Query:
    import tcod.path

    astar = tcod.path.AStar(walkable.T.astype(np.int8), diagonal=SQRT2)  # legacy API: [x, y]
    return lambda s, g: astar.get_path(s[0], s[1], g[0], g[1])




def _arcade(walkable: npt.NDArray[np.bool_]) -> Query | None:
    os.environ.setdefault("ARCADE_HEADLESS", "1")
    try:
        import arcade
    except Exception:  # noqa: BLE001 - no arcade or no display support: skip it
        return None
    size = 32
    h, w = walkable.shape
    walls = arcade.SpriteList()
    for y, x in np.argwhere(~walkable):
        sprite = arcade.SpriteSolidColor(size, size, color=arcade.color.GRAY)
        sprite.center_x, sprite.center_y = (x + 0.5) * size, (y + 0.5) * size
        walls.append(sprite)
    player = arcade.SpriteSolidColor(size, size, color=arcade.color.BLUE)
    barriers = arcade.AStarBarrierList(player, walls, size, 0, w * size, 0, h * size)

    def solve(s: Cell, g: Cell) -> object:
        return arcade.astar_calculate_path(((s[0] + 0.5) * size, (s[1] + 0.5) * size),
                                           ((g[0] + 0.5) * size, (g[1] + 0.5) * size),
                                           barriers, diagonal_movement=True)
    return solve


def _pairs(grid: gamenav.TileGrid, n: int, seed: int, adjacent: bool = False,
           min_cost: float = 0.0) -> list[tuple[Cell, Cell]]:
    """``n`` (start, goal) pairs of floor cells on one island (neighbours with ``adjacent``;
    path cost at least ``min_cost``)."""
    rng = np.random.default_rng(seed)
    labels = grid.components()
    free = [(int(x), int(y)) for y, x in np.argwhere(grid.passable)]
    out: list[tuple[Cell, Cell]] = []
    while len(out) < n:
        s = free[rng.integers(len(free))]
        if adjacent:
            dx, dy = [(1, 0), (-1, 0), (0, 1), (0, -1)][rng.integers(4)]
            g = (s[0] + dx, s[1] + dy)
            if not grid.is_passable(*g):
                continue
        else:
            g = free[rng.integers(len(free))]
        if s != g and labels[s[1], s[0]] == labels[g[1], g[0]] and (
                not min_cost or gamenav.find_path(grid, s, g).cost >= min_cost):
            out.append((s, g))
    return out


def _time(queries: list[tuple[Cell, Cell]], libs: dict[str, Query], repeat: int) -> dict[str, float]:
    """Median over queries of each query's best time, in microseconds, per library."""
    best: dict[str, list[int]] = {name: [] for name in libs}
    clock = time.perf_counter_ns
    for s, g in queries:
        for name, solve in libs.items():
            fastest = 1 << 62
            for _ in range(repeat):
                t0 = clock()
                solve(s, g)
                fastest = min(fastest, clock() - t0)
            best[name].append(fastest)
    return {name: statistics.median(ts) / 1e3 for name, ts in best.items()}


def _libraries(walkable: npt.NDArray[np.bool_], arcade: bool) -> dict[str, Query]:
    grid = gamenav.TileGrid(walkable)
    libs: dict[str, Query] = {"gamenav": lambda s, g: gamenav.find_path(grid, s, g),
                              "general": lambda s, g: gamenav.find_path(grid, s, g, workspace=None),
                              "smooth": lambda s, g: gamenav.find_path(grid, s, g, smooth=True),
                              "4-connected": lambda s, g: gamenav.find_path(grid, s, g, diagonal="never"),
                              "tcod AStar": _tcod_astar(walkable),
                              "tcod Pathfinder": tcod_pathfinder(walkable)}
    if arcade:
        solve = _arcade(walkable)
        if solve is not None:
            libs["arcade"] = solve
    return libs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", default=None, help="benchmark data folder (default ../shared/benchmarks)")
    parser.add_argument("--queries", type=int, default=200, help="queries per synthetic case")
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--no-arcade", action="store_true")
    args = parser.parse_args()
    gamenav.warmup(navmesh=False, crowd=False)

    cases: list[tuple[str, npt.NDArray[np.bool_], list[tuple[Cell, Cell]], list[float] | None]] = []
    rooms = gamenav.TileGrid.from_strings(ROOMS_20x15)
    wall = gamenav.TileGrid.from_strings(WALL_10x5)
    cases.append(("20x15", rooms.passable, _pairs(rooms, args.queries, 1), None))
    cases.append(("20x15 across (cost >= 15)", rooms.passable, _pairs(rooms, args.queries, 4, min_cost=15.0),
                  None))
    cases.append(("10x5", wall.passable, _pairs(wall, args.queries, 2), None))
    cases.append(("adjacent (20x15)", rooms.passable, _pairs(rooms, args.queries, 3, adjacent=True), None))

    root = data_dir(args.data) / "movingai"
    name = "lak104d" if (root / "lak104d.map").is_file() else "arena"
    walk = read_map(FilePath(root / f"{name}.map"))
    by_bucket: dict[int, list[tuple[Cell, Cell, float]]] = {}
    for sc in read_scenarios(root / f"{name}.map.scen"):
        by_bucket.setdefault(sc.bucket, []).append((sc.start, sc.goal, sc.optimal_length))
    grid = gamenav.TileGrid(walk)
    for bucket, items in sorted(by_bucket.items()):
        for s, g, optimal in items:
            if abs(gamenav.find_path(grid, s, g).cost - optimal) > 0.01:
                raise SystemExit(f"{name} {s}->{g}: gamenav cost differs from the optimum {optimal}")
        cases.append((f"{name} {walk.shape[1]}x{walk.shape[0]} bucket {bucket}", walk,
                      [(s, g) for s, g, _ in items], None))

    rows = []
    for label, walkable, queries, _ in cases:
        libs = _libraries(walkable, arcade=not args.no_arcade and walkable.size <= 400)
        us = _time(queries, libs, args.repeat)
        expanded = statistics.median(gamenav.find_path(gamenav.TileGrid(walkable), s, g).expanded
                                     for s, g in queries)
        rows.append([label, len(queries), f"{expanded:g}", f"{us['gamenav']:.2f}", f"{us['general']:.1f}",
                     f"{us['smooth']:.2f}", f"{us['4-connected']:.2f}", f"{us['tcod AStar']:.2f}",
                     f"{us['tcod Pathfinder']:.2f}",
                     f"{us['arcade']:.1f}" if "arcade" in us else "-",
                     f"{us['tcod AStar'] / us['gamenav']:.2f}x"])
    print(f"median us per query (best of {args.repeat} per query), one run, libraries interleaved")
    print(markdown_table(["case", "queries", "gamenav expanded (median)", "gamenav us", "general path us",
                          "smooth us", "4-connected us", "tcod AStar us", "tcod Pathfinder us", "arcade us",
                          "tcod AStar / gamenav"], rows))


if __name__ == "__main__":
    main()
