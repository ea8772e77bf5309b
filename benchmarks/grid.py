"""Tile-grid pathfinding: gamenav A* and JPS side by side with tcod, pyastar2d, pathfinding, networkx.

Data: the Moving AI maps brc202d (Dragon Age: Origins), BigGameHunters (StarCraft) and maze512-1-0
(corridor width 1) and their ``.scen`` files, read from ``--data`` (default ``../shared/benchmarks``
relative to the repository root; the maps are in its ``movingai/`` folder). On each map the
``--queries`` (default 100) longest scenarios by optimal length are run by every library in one
process, interleaved query by query so that machine noise hits all libraries alike.

Timing: gamenav first answers one query on the small arena map (numba compilation or cache
loading, untimed). On each map every library builds its grid or graph once ("setup ms") and answers
the first query once ("1st query ms": lazy per-grid work such as gamenav's JPS jump tables shows
up here); neither counts in the median. Then every query is run ``--repeat`` times (default 3) and
its best time kept; "median ms/query" is the median over queries: *warm* figures.
python-pathfinding and networkx (pure Python) only run an evenly spaced sample of
``--slow-sample`` queries (default 10) once each; their ratio is taken against gamenav A* on the
same sample.

Optimality: the benchmark recomputes every returned path's length from its cells with octile step
costs (1 orthogonal, sqrt(2) diagonal) and checks its validity under the Moving AI rules (start and
goal match, every cell walkable, every step to one of the 8 neighbours, no diagonal step past a
blocked orthogonal neighbour, i.e. no corner cutting). A path is optimal when it is valid and its
length is within 0.01 of the scenario's optimal length.

Peers and their movement rules:

* ``tcod AStar``: libtcod's C A* (``tcod.path.AStar``, diagonal multiplier sqrt(2)); its diagonal
  moves cut corners, so some paths are invalid under the Moving AI rules (and can be shorter).
* ``tcod Pathfinder``: ``tcod.path.CustomGraph`` + ``Pathfinder`` (A* with the octile heuristic) with
  the Moving AI rules: integer costs cardinal 2378 / diagonal 3363 (3363/2378 = sqrt(2) to 1e-7),
  each diagonal edge conditioned on both orthogonal neighbours being walkable (no corner cutting):
  the same problem gamenav solves. (``SimpleGraph`` has no such rule: it cuts corners.)
* ``pyastar2d``: C++ A* with ``allow_diagonal=True``: a diagonal step costs the same as an
  orthogonal one (the entered cell's weight) and diagonals cut corners, so its paths are rarely
  optimal under octile costs.
* ``python-pathfinding``: ``AStarFinder`` with ``DiagonalMovement.only_when_no_obstacle`` (the Moving
  AI rule).
* ``networkx``: ``astar_path`` on a graph of walkable cells with orthogonal edges of weight 1 and
  no-corner-cutting diagonal edges of weight sqrt(2), octile heuristic.

Also measured: the first ``find_path`` in a fresh process with a warm numba cache (a subprocess
that imports gamenav, loads brc202d and answers one query; run twice so the cache is warm).

Usage (from the repository root)::

    python benchmarks/grid.py                     # full run, prints markdown tables
    python benchmarks/grid.py --queries 20 --repeat 1 --slow-sample 3   # quick check
"""

from __future__ import annotations

import argparse
import math
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path as FilePath

from _common import REPO_ROOT, data_dir, markdown_table, tcod_pathfinder, time_call  # first: see _common

import numpy as np
import numpy.typing as npt

import gamenav
from gamenav.io import Scenario, read_map, read_scenarios

MAPS = ("brc202d", "BigGameHunters", "maze512-1-0")
SQRT2 = math.sqrt(2.0)
TOLERANCE = 0.01

Cell = tuple[int, int]
Solver = Callable[[Cell, Cell], npt.NDArray[np.int64]]
"""Answer one query: ``(x, y)`` start and goal -> ``(n, 2)`` int64 ``(x, y)`` cells, start to goal
(empty when no path)."""


@dataclass(frozen=True)
class Library:
    """One row of the table: how to build a solver for a ``[y, x]`` bool walkable array."""

    name: str
    prepare: Callable[[npt.NDArray[np.bool_]], Solver]
    note: str
    slow: bool = False


@dataclass
class Outcome:
    """Per-library results on one map, keyed by query index (ratio: path length / optimal)."""

    times: dict[int, float] = field(default_factory=dict)
    valid: dict[int, bool] = field(default_factory=dict)
    optimal: dict[int, bool] = field(default_factory=dict)
    ratio: dict[int, float] = field(default_factory=dict)
    setup_ms: float = math.nan
    first_ms: float = math.nan
    error: str | None = None


# ----------------------------------------------------------------------------- solvers


def _as_cells(points: object, swap: bool = False) -> npt.NDArray[np.int64]:
    cells = np.asarray(points, dtype=np.int64).reshape(-1, 2)
    return cells[:, ::-1] if swap else cells


def _gamenav(algorithm: str) -> Callable[[npt.NDArray[np.bool_]], Solver]:
    def prepare(walkable: npt.NDArray[np.bool_]) -> Solver:
        grid = gamenav.TileGrid(walkable)
        return lambda s, g: gamenav.find_path(grid, s, g, algorithm=algorithm).cells
    return prepare


def _tcod_astar(walkable: npt.NDArray[np.bool_]) -> Solver:
    import tcod.path

    astar = tcod.path.AStar(walkable.T.astype(np.int8), diagonal=SQRT2)  # legacy API: [x, y]

    def solve(s: Cell, g: Cell) -> npt.NDArray[np.int64]:
        steps = astar.get_path(s[0], s[1], g[0], g[1])  # excludes the start
        return _as_cells([s, *steps]) if steps or s == g else _as_cells([])
    return solve




def _pyastar2d(walkable: npt.NDArray[np.bool_]) -> Solver:
    import pyastar2d

    weights = np.where(walkable, 1.0, np.inf).astype(np.float32)

    def solve(s: Cell, g: Cell) -> npt.NDArray[np.int64]:
        path = pyastar2d.astar_path(weights, (s[1], s[0]), (g[1], g[0]), allow_diagonal=True)
        return _as_cells([] if path is None else path, swap=True)
    return solve


def _python_pathfinding(walkable: npt.NDArray[np.bool_]) -> Solver:
    from pathfinding.core.diagonal_movement import DiagonalMovement
    from pathfinding.core.grid import Grid
    from pathfinding.finder.a_star import AStarFinder

    grid = Grid(matrix=walkable.astype(np.int64))  # [y, x], 0 = blocked, 1 = cost 1
    finder = AStarFinder(diagonal_movement=DiagonalMovement.only_when_no_obstacle)

    def solve(s: Cell, g: Cell) -> npt.NDArray[np.int64]:
        path, _runs = finder.find_path(grid.node(*s), grid.node(*g), grid)  # cleans up if dirty
        return _as_cells([(n.x, n.y) for n in path])
    return solve


def _networkx(walkable: npt.NDArray[np.bool_]) -> Solver:
    import networkx as nx

    h, w = walkable.shape
    graph = nx.Graph()
    ys, xs = np.nonzero(walkable)
    graph.add_nodes_from((y * w + x) for y, x in zip(ys.tolist(), xs.tolist(), strict=True))
    for dy, dx in ((0, 1), (1, 0), (1, 1), (1, -1)):
        a = walkable[:h - dy, max(0, -dx):w - max(0, dx)]
        b = walkable[dy:, max(0, dx):w + min(0, dx)]
        ok = a & b
        if dx and dy:  # no corner cutting: both orthogonal neighbours walkable
            ok &= walkable[:h - dy, max(0, dx):w + min(0, dx)]
            ok &= walkable[dy:, max(0, -dx):w - max(0, dx)]
        ey, ex = np.nonzero(ok)
        ex = ex + max(0, -dx)
        u = ey * w + ex
        v = (ey + dy) * w + (ex + dx)
        weight = SQRT2 if dx and dy else 1.0
        graph.add_weighted_edges_from(zip(u.tolist(), v.tolist(), [weight] * len(u), strict=True))

    def octile(a: int, b: int) -> float:
        dx, dy = abs(a % w - b % w), abs(a // w - b // w)
        return max(dx, dy) + (SQRT2 - 1.0) * min(dx, dy)

    def solve(s: Cell, g: Cell) -> npt.NDArray[np.int64]:
        try:
            nodes = nx.astar_path(graph, s[1] * w + s[0], g[1] * w + g[0], heuristic=octile,
                                  weight="weight")
        except nx.NetworkXNoPath:
            return _as_cells([])
        return _as_cells([(n % w, n // w) for n in nodes])
    return solve


LIBRARIES = (
    Library("gamenav A*", _gamenav("astar"), "8-conn, no corner cutting"),
    Library("gamenav JPS", _gamenav("jps"), "8-conn, no corner cutting"),
    Library("tcod AStar", _tcod_astar, "libtcod C A*, diagonal x sqrt(2); cuts corners"),
    Library("tcod Pathfinder", tcod_pathfinder, "CustomGraph, no corner cutting, 2378/3363"),
    Library("pyastar2d", _pyastar2d, "allow_diagonal=True: diagonal step costs 1, cuts corners"),
    Library("python-pathfinding", _python_pathfinding, "only_when_no_obstacle; sample", slow=True),
    Library("networkx", _networkx, "astar_path, octile h; sample", slow=True),
)
BASELINE = "gamenav A*"


# ----------------------------------------------------------------------------- checks


def measure(cells: npt.NDArray[np.int64], walkable: npt.NDArray[np.bool_], start: Cell,
            goal: Cell) -> tuple[float, bool]:
    """Octile length of ``cells`` ((n, 2) ``(x, y)``) and whether it obeys the Moving AI rules.

    Valid: starts at ``start``, ends at ``goal``, every cell inside and walkable, every step to
    one of the 8 neighbours, and a diagonal step only when both orthogonal neighbours are walkable.
    The length is NaN when the path is empty or has a step longer than one cell.
    """
    if len(cells) == 0:
        return math.nan, False
    h, w = walkable.shape
    x, y = cells[:, 0], cells[:, 1]
    dx, dy = np.diff(x), np.diff(y)
    if (np.abs(dx) > 1).any() or (np.abs(dy) > 1).any():
        return math.nan, False
    diag = (dx != 0) & (dy != 0)
    n_diag = int(diag.sum())
    length = int(((dx != 0) | (dy != 0)).sum()) - n_diag + SQRT2 * n_diag
    inside = (x >= 0).all() and (x < w).all() and (y >= 0).all() and (y < h).all()
    if not inside or tuple(cells[0]) != start or tuple(cells[-1]) != goal:
        return length, False
    x0, y0 = x[:-1][diag], y[:-1][diag]
    valid = bool(walkable[y, x].all() and ((dx != 0) | (dy != 0)).all()
                 and walkable[y0, x0 + dx[diag]].all() and walkable[y0 + dy[diag], x0].all())
    return length, valid


# ----------------------------------------------------------------------------- runs


def longest_scenarios(path: FilePath, n: int) -> list[Scenario]:
    """The ``n`` scenarios with the largest optimal length (ties: file order)."""
    scens = read_scenarios(path)
    order = sorted(range(len(scens)), key=lambda i: (-scens[i].optimal_length, i))
    return [scens[i] for i in order[:n]]


def run_map(name: str, folder: FilePath, args: argparse.Namespace,
            libraries: tuple[Library, ...]) -> tuple[list[Scenario], dict[str, Outcome]]:
    """Run every library on the longest scenarios of one map; returns the queries and outcomes."""
    walkable = read_map(folder / f"{name}.map")
    queries = longest_scenarios(folder / f"{name}.map.scen", args.queries)
    k = min(args.slow_sample, len(queries))
    sample = sorted({round(i * len(queries) / k) for i in range(k)}) if k else []
    outcomes: dict[str, Outcome] = {}
    solvers: dict[str, Solver] = {}
    for lib in libraries:
        out = outcomes[lib.name] = Outcome()
        q = queries[0]
        try:
            t0 = time.perf_counter()
            solver = lib.prepare(walkable)
            t1 = time.perf_counter()
            solver(q.start, q.goal)  # warm-up: first query on the fresh grid or graph
            t2 = time.perf_counter()
        except Exception as exc:  # noqa: BLE001 - report the row as failed, keep the others going
            out.error = f"{type(exc).__name__}: {exc}"
            print(f"  {name}: {lib.name} failed: {out.error}", file=sys.stderr)
            continue
        solvers[lib.name] = solver
        out.setup_ms, out.first_ms = (t1 - t0) * 1e3, (t2 - t1) * 1e3
        print(f"  {name}: {lib.name}: setup {out.setup_ms:.1f} ms, first query "
              f"{out.first_ms:.1f} ms", file=sys.stderr, flush=True)
    in_sample = set(sample)
    for i, q in enumerate(queries):
        for lib in libraries:
            solver = solvers.get(lib.name)
            out = outcomes[lib.name]
            if solver is None or out.error or (lib.slow and i not in in_sample):
                continue
            box: list[npt.NDArray[np.int64]] = []
            try:
                times = time_call(lambda f=solver, q=q, box=box: box.append(f(q.start, q.goal)),
                                  1 if lib.slow else args.repeat)
            except Exception as exc:  # noqa: BLE001 - a failing peer stops its row only
                out.error = f"query {i}: {type(exc).__name__}: {exc}"
                continue
            length, valid = measure(box[-1], walkable, q.start, q.goal)
            out.times[i] = min(times)
            out.ratio[i] = length / q.optimal_length
            out.valid[i] = valid
            out.optimal[i] = valid and abs(length - q.optimal_length) <= TOLERANCE
    return queries, outcomes


def table(name: str, libraries: tuple[Library, ...], outcomes: dict[str, Outcome]) -> str:
    """The markdown table of one map."""
    base = outcomes[BASELINE]
    rows = []
    for lib in libraries:
        out = outcomes[lib.name]
        if not out.times:
            rows.append([lib.name, *["n/a"] * 7, f"{lib.note}; {(out.error or 'no queries')[:80]}"])
            continue
        med = statistics.median(out.times.values())
        same = [base.times[i] for i in out.times if i in base.times]
        ratio = f"{med / statistics.median(same):.2f}x" if same else "n/a"
        total = len(out.times)
        note = lib.note + (f" ({total} queries)" if lib.slow else "")
        if out.error:
            note += f"; stopped: {out.error[:80]}"
        rows.append([lib.name, f"{med:.3f}", ratio, f"{sum(out.optimal.values())}/{total}",
                     f"{sum(out.valid.values())}/{total}",
                     f"{statistics.median(out.ratio.values()):.4f}", f"{out.setup_ms:.0f}",
                     f"{out.first_ms:.1f}", note])
    head = ["library", "median ms/query", "x slower than gamenav A*", "optimal/total",
            "valid/total", "length/optimal", "setup ms", "1st query ms", "notes"]
    return f"### {name}\n\n" + markdown_table(head, rows)


def target_lines(results: dict[str, dict[str, Outcome]]) -> list[str]:
    """The issue's targets, each with PASS/FAIL and the measured figure."""
    lines = []

    def speedup(outcomes: dict[str, Outcome], fast: str, slow: str = "tcod AStar") -> float | None:
        a, b = outcomes[fast].times, outcomes[slow].times
        common = [i for i in a if i in b]
        if not common:
            return None
        return statistics.median(b[i] for i in common) / statistics.median(a[i] for i in common)

    for name, outcomes in results.items():
        s = speedup(outcomes, "gamenav A*")
        ok = s is not None and s >= 1.5
        lines.append(f"- [{'PASS' if ok else 'FAIL'}] {name}: gamenav A* >= 1.5x faster than tcod "
                     f"AStar: {'n/a' if s is None else f'{s:.2f}x'}")
    for name in ("brc202d", "BigGameHunters"):
        if name in results:
            s = speedup(results[name], "gamenav JPS")
            ok = s is not None and s >= 10
            lines.append(f"- [{'PASS' if ok else 'FAIL'}] {name}: gamenav JPS >= 10x faster than "
                         f"tcod AStar: {'n/a' if s is None else f'{s:.1f}x'}")
    for name, outcomes in results.items():
        s = speedup(outcomes, "gamenav A*", "tcod Pathfinder") if "tcod Pathfinder" in outcomes \
            else None
        if s is not None:
            lines.append(f"- [info] {name}: gamenav A* vs tcod Pathfinder with the same "
                         f"no-corner-cutting rules: {s:.2f}x faster")
    bad, total = 0, 0
    for outcomes in results.values():
        for lib in ("gamenav A*", "gamenav JPS"):
            out = outcomes[lib]
            total += len(out.optimal)
            bad += sum(not v for v in out.optimal.values())
            if out.error:
                bad += 1
    ok = bad == 0 and total > 0
    lines.append(f"- [{'PASS' if ok else 'FAIL'}] 0 suboptimal gamenav paths: {bad} suboptimal, "
                 f"invalid or failed of {total}")
    return lines


FIRST_CALL = """
import time
t0 = time.perf_counter()
import gamenav
t1 = time.perf_counter()
grid = gamenav.TileGrid.from_movingai({map!r})
t2 = time.perf_counter()
path = gamenav.find_path(grid, {start!r}, {goal!r})
t3 = time.perf_counter()
print(f"{{t1 - t0:.4f}} {{t2 - t1:.4f}} {{t3 - t2:.4f}} {{path.status.name}}")
"""


def first_call(folder: FilePath) -> list[str]:
    """Fresh-process timings (import, grid load, first find_path), run twice: cold?, then warm."""
    scen = longest_scenarios(folder / "brc202d.map.scen", 1)[0]
    code = FIRST_CALL.format(map=str(folder / "brc202d.map"), start=scen.start, goal=scen.goal)
    env = {k: v for k, v in os.environ.items() if k != "GAMENAV_QUIET"}
    lines = []
    for run in (1, 2):
        t0 = time.perf_counter()
        proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                              env=env, cwd=REPO_ROOT, check=False)
        wall = time.perf_counter() - t0
        if proc.returncode:
            lines.append(f"- run {run}: failed: {proc.stderr.strip().splitlines()[-1:]}")
            continue
        imp, load, find = (float(v) * 1e3 for v in proc.stdout.split()[:3])
        compiled = "compiling" in proc.stderr
        lines.append(f"- run {run}{' (numba compiled: cache was cold)' if compiled else ''}: "
                     f"import gamenav {imp:.0f} ms + grid load {load:.0f} ms + first find_path "
                     f"{find:.0f} ms = {imp + load + find:.0f} ms ({proc.stdout.split()[3]}; whole "
                     f"process incl. interpreter start {wall * 1e3:.0f} ms)")
        if run == 2:
            ok = imp + load + find < 1000 and not compiled
            lines.append(f"- [{'PASS' if ok else 'FAIL'}] first call in a fresh process with a warm "
                         f"numba cache under 1 s: {imp + load + find:.0f} ms")
    return lines


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", help="benchmark folder holding movingai/ "
                        "(default: ../shared/benchmarks from the repository root)")
    parser.add_argument("--maps", nargs="+", default=list(MAPS), help="map names")
    parser.add_argument("--queries", type=int, default=100, help="longest scenarios per map")
    parser.add_argument("--repeat", type=int, default=3, help="runs per query (best kept)")
    parser.add_argument("--slow-sample", type=int, default=10,
                        help="queries per map for python-pathfinding and networkx")
    parser.add_argument("--skip", nargs="*", default=[], help="library names to leave out")
    parser.add_argument("--no-first-call", action="store_true",
                        help="skip the fresh-process first-call measurement")
    args = parser.parse_args(argv)
    folder = data_dir(args.data) / "movingai"
    libraries = tuple(lib for lib in LIBRARIES if lib.name not in args.skip)
    if BASELINE not in {lib.name for lib in libraries}:
        parser.error(f"{BASELINE!r} is the baseline and cannot be skipped")

    print(f"# gamenav grid benchmark: {args.queries} longest scenarios per map, warm medians "
          f"(best of {args.repeat} per query; slow peers: {args.slow_sample} queries, 1 run)\n")
    print(f"gamenav {gamenav.__version__}, numpy {np.__version__}, Python "
          f"{sys.version.split()[0]}, {os.cpu_count()} CPUs\n")
    warm = gamenav.TileGrid(read_map(folder / "arena.map"))  # numba compile / cache load, untimed
    scen = longest_scenarios(folder / "arena.map.scen", 1)[0]
    for algorithm in ("astar", "jps"):
        gamenav.find_path(warm, scen.start, scen.goal, algorithm=algorithm)
    results: dict[str, dict[str, Outcome]] = {}
    for name in args.maps:
        print(f"running {name} ...", file=sys.stderr, flush=True)
        walkable_shape = read_map(folder / f"{name}.map").shape
        queries, outcomes = run_map(name, folder, args, libraries)
        results[name] = outcomes
        lengths = [q.optimal_length for q in queries]
        print(table(f"{name} ({walkable_shape[1]}x{walkable_shape[0]}, {len(queries)} queries, "
                    f"optimal length {min(lengths):.0f}-{max(lengths):.0f})", libraries, outcomes))
        print()
    if all(n in {lib.name for lib in libraries} for n in ("gamenav A*", "gamenav JPS",
                                                          "tcod AStar")):
        print("### Targets\n")
        print("\n".join(target_lines(results)))
        print()
    if not args.no_first_call:
        print("### First call in a fresh process (brc202d, longest query, A*)\n")
        print("\n".join(first_call(folder)))


if __name__ == "__main__":
    main()
