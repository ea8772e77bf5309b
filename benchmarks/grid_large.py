"""Big maps (GPPC 2014): gamenav JPS+ (``algorithm="jps"``), online JPS, subgoal graphs
(``algorithm="subgoal"``), HPA* (``algorithm="hpa"``), A* and tcod's Pathfinder.

Data: the four maps of ``gppc-2014/`` under ``--data`` (default ``../shared/benchmarks``):
maze-1550-15, room-1550-155 (1550 x 1550), orz700d (Dragon Age, 1104 x 1260) and Cauldron
(StarCraft, 1024 x 1024), with their ``.scen`` files. On each map the ``--queries`` (default 200)
longest scenarios by optimal length are run; every library answers the same query in turn
(interleaved, in a new random order for every query, so machine noise and cache effects hit
all alike); the figure is the median over queries of the best
of ``--repeat`` (default 1) runs. The slow solvers (gamenav A*, tcod) run only an evenly spaced
sample of ``--slow-sample`` queries (default 20); every ratio is taken on the same queries.

Solvers (same rules: 8-connected, octile costs, no corner cutting):

* ``jps+``: ``find_path(grid, s, g, algorithm="jps")`` with the per-grid JPS+ table
  (:mod:`gamenav.grid.jump_plus`), built by the first query (its time is "prep ms").
* ``jps online``: the same search with the table switched off (what ``algorithm="jps"`` was
  before JPS+: precomputed straight jumps, diagonal scans cell by cell).
* ``subgoal``: ``find_path(grid, s, g, algorithm="subgoal")``: optimal, on the per-grid subgoal
  graph (:mod:`gamenav.grid.subgoal`), built before the queries (its time is in the notes).
* ``hpa``: ``find_path(grid, s, g, algorithm="hpa")``: near-optimal, on the per-grid cluster
  graph (:mod:`gamenav.grid.hpa`), built before the queries (its time is in the notes).
* ``astar``: ``find_path(grid, s, g)``.
* ``tcod Pathfinder``: ``tcod.path.CustomGraph`` + ``Pathfinder``, cardinal 2378 / diagonal 3363,
  diagonals conditioned on both orthogonal neighbours (see benchmarks/grid.py).

Times: wall (``perf_counter``) and thread CPU time (``thread_time``); on a busy machine the CPU
figure is the steadier one. "vs astar" is the median CPU time of ``astar`` (on its sample) over the
solver's median. Optimality: each path's octile length from its cells, checked valid and within
max(0.011, 1e-5 x length) of the scenario's optimum ("suboptimal" counts the others; invalid
paths count there too); "len mean" / "len max" are the mean and largest length / optimum.
Repair: 4 x 4 blocks at random free cells are blocked and reopened; "repair ms" is the median
thread CPU time of the JPS+ table repair kernel alone, "hpa repair" that of the HPA* cluster
rebuild, "subgoal repair" that of the subgoal graph's repair kernel, "edit ms" that of the whole
``set_walkable`` (grid copies and every listener included), "landmarks" that of the subgoal
landmark rows' repair inside it, and "first query" that of the first ``algorithm="subgoal"``
query after the edit (the longest scenario; the same query again is "next query").

Usage (from the repository root)::

    python benchmarks/grid_large.py                       # all four maps
    python benchmarks/grid_large.py --queries 50 --slow-sample 5 --maps orz700d   # quick
    python benchmarks/grid_large.py --maps movingai/random512-10-0 --slow-sample 200

A map name with a folder (``movingai/random512-10-0``) is read from that folder of the data
instead of ``gppc-2014/``. On dense maps (random obstacles) ``algorithm="jps"`` runs A*
(see :data:`gamenav.grid.jump_plus.DENSE_SHARE`), so "jps+" there is A* through the jps entry.
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import time
from collections.abc import Callable
from typing import Any
from pathlib import Path as FilePath

from _common import data_dir, markdown_table, tcod_pathfinder  # first: see _common

import numpy as np
import numpy.typing as npt

import gamenav
from gamenav._kernels import jump_plus as _kp
from gamenav._kernels import subgoal as _ks
from gamenav.grid import hpa, jump_plus, subgoal
from gamenav.io import Scenario, read_map, read_scenarios

MAPS = ("maze-1550-15", "room-1550-155", "orz700d", "Cauldron")
HEADER = ["map", "solver", "queries", "median ms wall", "median ms CPU", "tcod CPU / solver CPU",
          "vs jps online", "vs astar", "suboptimal", "len mean", "len max"]
SQRT2 = math.sqrt(2.0)

Cell = tuple[int, int]
Solver = Callable[[Cell, Cell], npt.NDArray[np.int64]]




def gamenav_solver(grid: gamenav.TileGrid, algorithm: str, plus: bool = True) -> Solver:
    start = jump_plus.start

    def online(grid: object, state: object, jps: bool) -> tuple[bool, None]:
        return jps, None  # online JPS, whatever the map

    def solve(s: Cell, g: Cell) -> npt.NDArray[np.int64]:
        if plus:
            return gamenav.find_path(grid, s, g, algorithm=algorithm).cells
        jump_plus.start = online  # type: ignore[assignment]
        try:
            return gamenav.find_path(grid, s, g, algorithm=algorithm).cells
        finally:
            jump_plus.start = start
    return solve


def octile_length(cells: npt.NDArray[np.int64], walkable: npt.NDArray[np.bool_], start: Cell,
                  goal: Cell) -> float:
    """Octile length of a valid path (NaN if the path breaks the Moving AI rules)."""
    if len(cells) == 0 or tuple(cells[0]) != start or tuple(cells[-1]) != goal:
        return math.nan
    x, y = cells[:, 0], cells[:, 1]
    dx, dy = np.diff(x), np.diff(y)
    if (np.abs(dx) > 1).any() or (np.abs(dy) > 1).any() or not walkable[y, x].all():
        return math.nan
    diag = (dx != 0) & (dy != 0)
    x0, y0 = x[:-1][diag], y[:-1][diag]
    if not (walkable[y0, x0 + dx[diag]].all() and walkable[y0 + dy[diag], x0].all()):
        return math.nan
    n_diag = int(diag.sum())
    return int(((dx != 0) | (dy != 0)).sum()) - n_diag + SQRT2 * n_diag


def timed(fn: Callable[[], npt.NDArray[np.int64]], repeat: int
          ) -> tuple[float, float, npt.NDArray[np.int64]]:
    best_wall = best_cpu = math.inf
    out = np.zeros((0, 2), dtype=np.int64)
    for _ in range(repeat):
        c0, w0 = time.thread_time(), time.perf_counter()
        out = fn()
        w1, c1 = time.perf_counter(), time.thread_time()
        best_wall, best_cpu = min(best_wall, w1 - w0), min(best_cpu, c1 - c0)
    return best_wall * 1e3, best_cpu * 1e3, out


def repair_times(grid: gamenav.TileGrid, edits: int, query: Scenario, seed: int = 0
                 ) -> tuple[float, float, float, float, float, float, float]:
    """Median thread CPU ms of the JPS+ repair kernel, of the HPA* cluster rebuild, of the
    subgoal graph repair, of the whole set_walkable (4 x 4 blocks), of the subgoal landmark
    repair inside it, and of the subgoal ``query`` just after the edit and once more."""
    index = jump_plus.jump_index(grid)
    graph = hpa.hpa_index(grid)
    sub = subgoal.subgoal_index(grid)
    rng = np.random.default_rng(seed)
    kernel: list[float] = []
    clusters: list[float] = []
    subgoals: list[float] = []
    orig = _kp.repair_tables
    rebuild = graph._rebuild
    sub_repair = _ks.repair
    place = subgoal.SubgoalIndex._place_landmarks
    landmarks: list[float] = []

    def timed_place(*args: Any) -> None:
        c0 = time.thread_time()
        place(*args)
        landmarks.append(time.thread_time() - c0)

    def timed_sub(*args: Any) -> Any:
        c0 = time.thread_time()
        out = sub_repair(*args)
        subgoals.append(time.thread_time() - c0)
        return out

    def timed_repair(*args: object) -> object:
        c0 = time.thread_time()
        out = orig(*args)
        kernel.append(time.thread_time() - c0)
        return out

    def timed_rebuild(*args: Any) -> None:
        c0 = time.thread_time()
        rebuild(*args)
        clusters.append(time.thread_time() - c0)

    whole: list[float] = []
    first: list[float] = []
    again: list[float] = []
    _kp.repair_tables = timed_repair
    graph._rebuild = timed_rebuild  # type: ignore[method-assign]
    _ks.repair = timed_sub
    subgoal.SubgoalIndex._place_landmarks = timed_place  # type: ignore[method-assign]
    try:
        free = np.argwhere(grid.passable)
        for _ in range(edits):
            y, x = (int(v) for v in free[rng.integers(len(free))])
            for value in (False, True):
                c0 = time.thread_time()
                grid.set_walkable((x, y, x + 4, y + 4), value)
                whole.append(time.thread_time() - c0)
                for times in (first, again):
                    c0 = time.thread_time()
                    gamenav.find_path(grid, query.start, query.goal, algorithm="subgoal")
                    times.append(time.thread_time() - c0)
    finally:
        _kp.repair_tables = orig
        _ks.repair = sub_repair
        subgoal.SubgoalIndex._place_landmarks = place  # type: ignore[method-assign]
        del graph._rebuild
    if {index.version, graph.version, sub.version} != {grid.version}:
        raise SystemExit("JPS+ / HPA* / subgoal index out of step with its grid after the edits")
    return (statistics.median(kernel) * 1e3, statistics.median(clusters) * 1e3,
            statistics.median(subgoals) * 1e3, statistics.median(whole) * 1e3,
            statistics.median(landmarks) * 1e3, statistics.median(first) * 1e3,
            statistics.median(again) * 1e3)


def run_map(name: str, folder: FilePath, args: argparse.Namespace) -> tuple[list[list[str]], list[str]]:
    if "/" in name:  # another folder of the data, e.g. movingai/random512-10-0
        folder, name = folder.parent / name.rsplit("/", 1)[0], name.rsplit("/", 1)[1]
    walkable = read_map(folder / f"{name}.map")
    scens: list[Scenario] = sorted(read_scenarios(folder / f"{name}.map.scen"),
                                   key=lambda s: -s.optimal_length)[:args.queries]
    grid = gamenav.TileGrid(walkable)
    c0, w0 = time.thread_time(), time.perf_counter()
    index = jump_plus.jump_index(grid)
    prep_wall, prep_cpu = (time.perf_counter() - w0) * 1e3, (time.thread_time() - c0) * 1e3
    c0, w0 = time.thread_time(), time.perf_counter()
    graph = hpa.hpa_index(grid)
    hpa_wall, hpa_cpu = (time.perf_counter() - w0) * 1e3, (time.thread_time() - c0) * 1e3
    c0, w0 = time.thread_time(), time.perf_counter()
    sub = subgoal.subgoal_index(grid)
    sub_wall, sub_cpu = (time.perf_counter() - w0) * 1e3, (time.thread_time() - c0) * 1e3
    c0 = time.thread_time()
    solve_tcod = tcod_pathfinder(walkable)
    tcod_setup = (time.thread_time() - c0) * 1e3
    solvers: dict[str, Solver] = {
        "jps+": gamenav_solver(grid, "jps"),
        "jps online": gamenav_solver(grid, "jps", plus=False),
        "subgoal": gamenav_solver(grid, "subgoal"),
        "hpa": gamenav_solver(grid, "hpa"),
        "astar": gamenav_solver(grid, "astar"),
        "tcod Pathfinder": solve_tcod,
    }
    slow = {"astar", "tcod Pathfinder"}
    step = max(1, len(scens) // max(args.slow_sample, 1))
    sample = set(range(0, len(scens), step)[:args.slow_sample])
    for solve in solvers.values():  # warm-up (compile, lazy tables), untimed
        solve(scens[-1].start, scens[-1].goal)
    shuffle = random.Random(0)
    wall: dict[str, list[float]] = {k: [] for k in solvers}
    cpu: dict[str, list[float]] = {k: [] for k in solvers}
    bad: dict[str, int] = dict.fromkeys(solvers, 0)
    ratio: dict[str, list[float]] = {k: [] for k in solvers}  # cpu(tcod) / cpu(k) on the sample
    lengths: dict[str, list[float]] = {k: [] for k in solvers}  # length / optimum
    for i, sc in enumerate(scens):
        row: dict[str, float] = {}
        order = list(solvers.items())
        shuffle.shuffle(order)  # a new order every query: no solver always follows another
        for key, solve in order:
            if key in slow and i not in sample:
                continue
            w, c, cells = timed(lambda solve=solve, sc=sc: solve(sc.start, sc.goal), args.repeat)
            wall[key].append(w)
            cpu[key].append(c)
            row[key] = c
            length = octile_length(cells, walkable, sc.start, sc.goal)
            lengths[key].append(length / sc.optimal_length if sc.optimal_length else 1.0)
            if not abs(length - sc.optimal_length) <= max(0.011, 1e-5 * sc.optimal_length):
                bad[key] += 1
        if "tcod Pathfinder" in row:
            for key, c in row.items():
                ratio[key].append(row["tcod Pathfinder"] / c)
    jps_sample = cpu["jps+"]
    rows = []
    for key in solvers:
        n = len(cpu[key])
        rows.append([name, key, str(n), f"{statistics.median(wall[key]):.3f}",
                     f"{statistics.median(cpu[key]):.3f}",
                     f"{statistics.median(ratio[key]):.1f}x" if ratio[key] else "",
                     f"{statistics.median(cpu['jps online']) / statistics.median(cpu[key]):.2f}x"
                     if key not in slow else "",
                     f"{statistics.median(cpu['astar']) / statistics.median(cpu[key]):.1f}x",
                     str(bad[key]), f"{np.mean(lengths[key]):.4f}", f"{max(lengths[key]):.4f}"])
    repair_ms, hpa_ms, sub_ms, edit_ms, landmark_ms, first_ms, next_ms = repair_times(grid, args.edits, scens[0])
    notes = [f"- {name}: JPS+ table built in {prep_wall:.0f} ms wall / {prep_cpu:.0f} ms CPU, "
             f"{index.nbytes / 2**20:.1f} MiB; HPA* graph ({graph.size}-cell clusters, "
             f"{graph.nodes} nodes) built in {hpa_wall:.0f} ms wall / {hpa_cpu:.0f} ms CPU, "
             f"{graph.nbytes / 2**20:.1f} MiB; subgoal graph ({sub.nodes} subgoals, {sub.edges} "
             f"edges) built in {sub_wall:.0f} ms wall / {sub_cpu:.0f} ms CPU, "
             f"{sub.nbytes / 2**20:.1f} MiB; 4x4 edit: JPS+ repair {repair_ms:.2f} ms CPU, "
             f"HPA* repair {hpa_ms:.2f} ms CPU, subgoal repair {sub_ms:.2f} ms CPU, whole "
             f"set_walkable {edit_ms:.2f} ms CPU (subgoal landmark repair {landmark_ms:.2f} ms CPU), "
             f"first subgoal query after it {first_ms:.1f} ms CPU (next {next_ms:.2f}); tcod "
             f"graph setup {tcod_setup:.0f} ms CPU; jps+ / hpa medians over {len(jps_sample)} "
             "queries"]
    return rows, notes


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", default=None)
    parser.add_argument("--maps", default=",".join(MAPS))
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--slow-sample", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--edits", type=int, default=20)
    args = parser.parse_args(argv)
    folder = data_dir(args.data) / "gppc-2014"
    gamenav.warmup()
    rows: list[list[str]] = []
    notes: list[str] = []
    for name in args.maps.split(","):
        r, n = run_map(name, folder, args)
        rows += r
        notes += n
        print(markdown_table(HEADER, r), flush=True)
    print()
    print(markdown_table(HEADER, rows))
    print("\n".join(notes))


if __name__ == "__main__":
    main()
