"""All cores: ``gamenav.find_paths`` and ``PathQueue(workers=N)`` against one worker.

Data: Moving AI brc202d (530 x 481, Dragon Age: Origins) and its scenarios, read from ``--data``
(default ``../shared/benchmarks``). ``--queries`` scenarios (default 1000, taken evenly over the
file, so short and long ones mix) are answered by ``find_paths`` with ``workers=1`` and with
``workers=N`` for each N in ``--workers`` (default 2), interleaved, ``--repeat`` times (default
5); the table gives the best and the median wall time per batch, the throughput (queries per
second, best run) and the ratio to one worker, and the process CPU time per batch (user + system,
all threads: the work done, which stays about constant when threads really run in parallel;
wall time is what a shared or busy machine inflates). Every answer is checked against
``find_path`` (bit for bit) and the scenario's optimal length.

The queue part runs the same scenarios through ``PathQueue(budget_ms=B, workers=N)`` until all
are answered (``--repeat`` runs, interleaved), and reports frames, answers per frame (the
throughput within the budget, against one worker), the per-frame wall time pooled over the runs
(p50 / p99 / max, and the share of frames over the budget + 0.15 ms) and the process CPU time.
On a machine whose cores are busy with other processes, a thread can be descheduled for
milliseconds in the middle of a chunk; an update waits for its threads, so ``workers=N`` is
exposed to that N times: read the frame times with the load average printed with them.

Usage (from the repository root)::

    python benchmarks/parallel.py                        # 1000 scenarios, workers 1 vs 2
    python benchmarks/parallel.py --queries 200 --repeat 2 --workers 2 4
"""

from __future__ import annotations

import argparse
import gc
import os
import statistics
import time

from _common import data_dir, markdown_table  # first: see _common

import numpy as np

import gamenav
from gamenav.io import read_scenarios


def _cpu() -> float:
    t = os.times()
    return t.user + t.system


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", default=None, help="benchmark data folder (default ../shared/benchmarks)")
    parser.add_argument("--map", default="brc202d")
    parser.add_argument("--queries", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--workers", type=int, nargs="+", default=[2])
    parser.add_argument("--budget-ms", type=float, default=2.0)
    args = parser.parse_args()

    root = data_dir(args.data) / "movingai"
    grid = gamenav.TileGrid.from_movingai(root / f"{args.map}.map")
    scenarios = read_scenarios(root / f"{args.map}.map.scen")
    pick = np.linspace(0, len(scenarios) - 1, min(args.queries, len(scenarios))).astype(int)
    chosen = [scenarios[i] for i in pick]
    starts = [tuple(s.start) for s in chosen]
    goals = [tuple(s.goal) for s in chosen]
    gamenav.warmup(navmesh=False, crowd=False)
    gc.collect()
    gc.freeze()

    expected = [gamenav.find_path(grid, s, g) for s, g in zip(starts, goals, strict=True)]
    bad = sum(abs(p.cost - s.optimal_length) > 0.01 for p, s in zip(expected, chosen, strict=True))
    cores = gamenav.parallel.default_workers()
    print(f"map {args.map} {grid.width}x{grid.height}, {len(chosen)} scenarios, cores available: "
          f"{cores} (os.cpu_count() = {os.cpu_count()}), suboptimal answers: {bad}, load average "
          f"(1/5/15 min) {' '.join(f'{x:.2f}' for x in os.getloadavg())}")

    # the share of one worker's time spent inside the kernel (GIL released): Amdahl's bound
    from gamenav.grid._fast import FastWorkspace, snapshot_tables

    found = snapshot_tables(grid, 0.0)
    if found is None:
        raise SystemExit(f"{args.map} is over the one-call kernel's MAX_CELLS: find_paths takes the general path")
    t = found[1]
    ws = FastWorkspace(t.cells)
    t0 = time.perf_counter()
    for s, g in zip(starts, goals, strict=True):  # (the kernel as find_paths calls it: directly)
        t.kernel(t.bits, t.cost, t.labels, t.geo, ws.ints, ws.longs, *s, *g, gamenav.Heuristic.OCTILE.code, False)
    kernel = time.perf_counter() - t0
    t0 = time.perf_counter()
    gamenav.find_paths(grid, starts, goals, workers=1)
    whole = time.perf_counter() - t0
    share = min(kernel / whole, 1.0)
    bounds = ", ".join(f"{n} workers <= {1 / ((1 - share) + share / n):.2f}x" for n in args.workers)
    print(f"kernel (GIL released) share of one worker's time: {share:.1%}; Amdahl bound: {bounds}")

    counts = sorted({1, *args.workers})
    wall: dict[int, list[float]] = {n: [] for n in counts}
    cpu: dict[int, list[float]] = {n: [] for n in counts}
    for _ in range(args.repeat):
        for n in counts:
            c0, t0 = _cpu(), time.perf_counter()
            paths = gamenav.find_paths(grid, starts, goals, workers=n)
            wall[n].append(time.perf_counter() - t0)
            cpu[n].append(_cpu() - c0)
            for p, e in zip(paths, expected, strict=True):
                if p.cost != e.cost or p.expanded != e.expanded or not np.array_equal(p.cells, e.cells):
                    raise SystemExit(f"workers={n}: an answer differs from find_path")
    rows = []
    base = min(wall[1])
    for n in counts:
        best = min(wall[n])
        rows.append([n, f"{best * 1e3:.1f}", f"{statistics.median(wall[n]) * 1e3:.1f}",
                     f"{len(chosen) / best:,.0f}", f"{base / best:.2f}x",
                     f"{statistics.median(wall[1]) / statistics.median(wall[n]):.2f}x",
                     f"{statistics.median(cpu[n]) * 1e3:.0f}"])
    print()
    print(f"find_paths on {args.map}, {len(chosen)} scenarios, {args.repeat} runs (interleaved)")
    print(markdown_table(["workers", "best ms", "median ms", "queries/s (best)", "speed-up (best)",
                          "speed-up (median)", "CPU ms (median)"], rows))

    frame_ms: dict[int, list[float]] = {n: [] for n in counts}
    frames: dict[int, list[int]] = {n: [] for n in counts}
    walls: dict[int, list[float]] = {n: [] for n in counts}
    cpus: dict[int, list[float]] = {n: [] for n in counts}
    for _ in range(args.repeat):  # interleaved: load from other processes hits every count alike
        for n in counts:
            queue = gamenav.PathQueue(budget_ms=args.budget_ms, workers=n)
            requests = [queue.request(grid, s, g) for s, g in zip(starts, goals, strict=True)]
            c0, t0 = _cpu(), time.perf_counter()
            while len(queue):
                t1 = time.perf_counter()
                queue.update()
                frame_ms[n].append((time.perf_counter() - t1) * 1e3)
            walls[n].append(time.perf_counter() - t0)
            cpus[n].append(_cpu() - c0)
            frames[n].append(queue.stats.frames)
            for r, e in zip(requests, expected, strict=True):
                if r.path.cost != e.cost or not np.array_equal(r.path.cells, e.cells):
                    raise SystemExit(f"PathQueue(workers={n}): an answer differs from find_path")
            queue.close()
    rows = []
    for n in counts:
        ms = np.array(frame_ms[n])
        per = statistics.median(frames[n])
        rows.append([n, args.budget_ms, f"{per:.0f}", f"{len(chosen) / per:.2f}",
                     f"{statistics.median(frames[1]) / per:.2f}x",
                     f"{np.percentile(ms, 50):.3f}", f"{np.percentile(ms, 99):.3f}", f"{ms.max():.3f}",
                     f"{100 * np.mean(ms > args.budget_ms + 0.15):.1f}%",
                     f"{statistics.median(walls[n]) * 1e3:.0f}", f"{statistics.median(cpus[n]) * 1e3:.0f}"])
    print()
    print(f"PathQueue on {args.map}: the same {len(chosen)} requests, update() until all answered, "
          f"{args.repeat} runs (interleaved; frame times pooled, others medians); load average "
          f"(1 min) {os.getloadavg()[0]:.2f} at the end")
    print(markdown_table(["workers", "budget ms", "frames", "answers/frame", "throughput vs 1",
                          "frame ms p50", "p99", "max", f"frames > {args.budget_ms + 0.15:g} ms",
                          "total wall ms", "CPU ms"], rows))

if __name__ == "__main__":
    main()
