"""Soak: random edits interleaved with cached queries, a path queue and a crowd; every answer checked.

Two copies of a real map (Moving AI ``den011d``, 247 x 167, vendored in tests/data) are edited at
random, alternately: an unweighted one (walkable edits, and cost edits of 1 or inf) and a
weighted one (walkable edits and costs 1..5). Between edits:

* ``PathCache.find_path`` queries (A*, 4-connected, Dijkstra, JPS on the unweighted grid,
  weighted A*, partial);
* ``PathQueue`` requests (sharing the cache) with quick paths, cancels, and ``on_done``
  callbacks that request again;
* a ``Crowd`` of 24 agents per grid, ordered around through the same queue.

Every FOUND or PARTIAL path handed out is checked when it is handed out: cell by cell (passable,
neighbouring steps, no cut corner, finite cost equal to the sum of its steps) and against a fresh
search on the grid as it is then (same status; cost equal within 1e-9 relative, or within the
weight for weighted A*). Quick partial paths of pending requests are re-checked after every edit.
RSS is read from ``/proc/self/statm`` every 1000 edits and must stay flat: after the first 20 %
of the run, the least-squares growth over the rest must stay under 16 MB (checked from 20,000
edits on). Exit status 1 on any mismatch or growth.

Usage::

    python benchmarks/soak.py                 # 100,000 edits
    python benchmarks/soak.py --quick         # 3,000 edits (also run by tests/fuzz)
    python benchmarks/soak.py --edits 20000 --seed 7
"""

# ruff: noqa: I001  (_common is imported before numpy and gamenav on purpose)
from __future__ import annotations

import argparse
import math
import os
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from _common import REPO_ROOT, markdown_table  # first: see _common

import numpy as np
import numpy.typing as npt

import gamenav
from gamenav.io import read_map

_PAGE = os.sysconf("SC_PAGE_SIZE")
_SQRT2 = math.sqrt(2.0)
RSS_EVERY = 1000
"""Edits between two RSS samples."""
RSS_LIMIT_MB = 16.0
"""Largest tolerated RSS growth over the run after warm-up (least-squares fit)."""
RSS_MIN_EDITS = 20_000
POOL = 48
"""Recurring queries per grid; 3 in 4 queries and requests come from this pool."""
"""Shorter runs report RSS but do not judge its flatness (too few samples)."""


def rss_mb() -> float:
    """Resident set size of this process in MB, from /proc/self/statm."""
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * _PAGE / 2**20


class Mismatch(Exception):
    """An answer that a fresh search or the grid contradicts."""


def check_cells(grid: gamenav.TileGrid, path: gamenav.Path, start: tuple[int, int],
                goal: tuple[int, int], diagonal: str) -> None:
    """A FOUND/PARTIAL path is walkable cell by cell with the cost of its steps."""
    cells = path.cells
    if not math.isfinite(path.cost) or len(cells) == 0 or tuple(cells[0]) != start:
        raise Mismatch(f"{path} does not start at {start} with a finite cost")
    if path.found and tuple(cells[-1]) != goal:
        raise Mismatch(f"FOUND path ends at {tuple(cells[-1])}, not {goal}")
    xs, ys = cells[:, 0], cells[:, 1]
    passable = grid.passable
    if not passable[ys, xs].all():
        raise Mismatch(f"path crosses a blocked cell: {cells[~passable[ys, xs]][0].tolist()}")
    d = np.abs(np.diff(cells, axis=0))
    if ((d > 1).any(axis=1) | (d.sum(axis=1) == 0)).any():
        raise Mismatch("path has a step that is not to a neighbour")
    diag = (d[:, 0] == 1) & (d[:, 1] == 1)
    if diagonal == "never" and diag.any():
        raise Mismatch("4-connected path with a diagonal step")
    if diag.any():
        a, b = cells[:-1][diag], cells[1:][diag]
        if not (passable[a[:, 1], b[:, 0]] & passable[b[:, 1], a[:, 0]]).all():
            raise Mismatch("diagonal step cuts a blocked corner")
    steps = np.where(diag, _SQRT2, 1.0) * grid.cost[ys[1:], xs[1:]]
    if not math.isclose(float(steps.sum()), path.cost, rel_tol=1e-9, abs_tol=1e-9):
        raise Mismatch(f"path cost {path.cost!r} != sum of its steps {float(steps.sum())!r}")


def check_answer(grid: gamenav.TileGrid, path: gamenav.Path, start: tuple[int, int],
                 goal: tuple[int, int], options: dict[str, Any]) -> None:
    """``path`` answers ``start -> goal`` on ``grid`` as it is now."""
    diagonal = str(options.get("diagonal", "no_corner_cutting"))
    if path.status.has_path:
        check_cells(grid, path, start, goal, diagonal)
    fresh_options = {k: v for k, v in options.items() if k != "weight"}
    fresh = gamenav.find_path(grid, start, goal, **fresh_options)
    if fresh.status is not path.status:
        raise Mismatch(f"answered {path}, a fresh search gives {fresh}")
    if not path.status.has_path:
        return
    weight = float(options.get("weight", 1.0))
    if weight == 1.0:
        if not math.isclose(path.cost, fresh.cost, rel_tol=1e-9):
            raise Mismatch(f"answered cost {path.cost!r}, a fresh search {fresh.cost!r}")
    elif path.found and path.cost > weight * fresh.cost * (1 + 1e-9):
        raise Mismatch(f"weighted answer {path.cost!r} > {weight} x optimum {fresh.cost!r}")


@dataclass
class World:
    """One edited grid with its original cells and its crowd."""

    name: str
    grid: gamenav.TileGrid
    original: npt.NDArray[np.bool_]
    original_cost: npt.NDArray[np.float64]
    weighted: bool
    crowd: gamenav.Crowd | None = None
    pool: list[tuple[tuple[int, int], tuple[int, int], dict[str, Any]]] = field(default_factory=list)
    """Recurring queries (units asking for the same routes), so that the cache gets hits."""


@dataclass
class Counters:
    edits: int = 0
    effective_edits: int = 0
    cache_queries: int = 0
    queue_requests: int = 0
    queue_answers: int = 0
    quick_checks: int = 0
    cancels: int = 0
    chained: int = 0
    crowd_orders: int = 0
    crowd_updates: int = 0
    checked: int = 0
    mismatches: int = 0
    first_mismatch: str = ""
    statuses: dict[str, int] = field(default_factory=dict)


class Soak:
    """The soak's state: worlds, cache, queue, pending requests and counters."""

    def __init__(self, walkable: npt.NDArray[np.bool_], seed: int) -> None:
        self.rng = np.random.default_rng(seed)
        h, w = walkable.shape
        costs = self.rng.choice([1.0, 1.0, 1.5, 2.0, 3.0, 5.0], size=(h, w))
        self.worlds = [
            World("unweighted", gamenav.TileGrid(walkable), walkable.copy(), np.ones((h, w)), False),
            World("weighted", gamenav.TileGrid(walkable, cost=costs), walkable.copy(), costs, True),
        ]
        self.cache = gamenav.PathCache(capacity=2048)
        self.queue = gamenav.PathQueue(budget_ms=None, max_expansions=20000, cache=self.cache)
        self.pending: list[tuple[Any, World, dict[str, Any]]] = []
        self.count = Counters()
        for world in self.worlds:
            free = np.argwhere(world.grid.passable)[:, ::-1]
            picks = free[self.rng.choice(len(free), size=24, replace=False)]
            for _ in range(POOL):
                start = self.passable_cell(world)
                world.pool.append((start, self.passable_cell(world, start), self.options(world)))
            world.crowd = gamenav.Crowd(world.grid, world.grid.cell_to_world(picks), radius=0.3,
                                        max_speed=6.0, queue=self.queue, flow_threshold=12)

    # -- helpers ---------------------------------------------------------------------------
    def mismatch(self, error: Exception, what: str) -> None:
        self.count.mismatches += 1
        if not self.count.first_mismatch:
            self.count.first_mismatch = f"{what}: {error}"

    def passable_cell(self, world: World, near: tuple[int, int] | None = None,
                      radius: int = 40) -> tuple[int, int]:
        grid = world.grid
        for _ in range(100):
            if near is None:
                x, y = int(self.rng.integers(grid.width)), int(self.rng.integers(grid.height))
            else:
                x = int(np.clip(near[0] + self.rng.integers(-radius, radius + 1), 0, grid.width - 1))
                y = int(np.clip(near[1] + self.rng.integers(-radius, radius + 1), 0, grid.height - 1))
            if grid.is_passable(x, y):
                return x, y
        free = np.argwhere(grid.passable)
        y, x = free[self.rng.integers(len(free))]
        return int(x), int(y)

    def options(self, world: World) -> dict[str, Any]:
        choice = self.rng.integers(10)
        if choice == 0:
            return {"diagonal": "never"}
        if choice == 1:
            return {"algorithm": "dijkstra"}
        if choice == 2:
            return {"algorithm": "jps"} if not world.weighted else {"weight": 1.5}
        if choice == 3:
            return {"partial": True}
        return {}

    # -- operations ------------------------------------------------------------------------
    def edit(self, world: World) -> None:
        grid = world.grid
        x, y = int(self.rng.integers(grid.width)), int(self.rng.integers(grid.height))
        size = int(self.rng.choice([1, 1, 1, 2, 3]))
        x1, y1 = min(x + size, grid.width), min(y + size, grid.height)
        region = (x, y, x1, y1)
        restore = self.rng.random() < 0.5
        kind = self.rng.random()
        if kind < 0.6:  # walkable edit
            value = bool(world.original[y, x]) if restore else not bool(grid.walkable[y, x])
            change = grid.set_walkable(region, value)
        elif world.weighted:
            value_c = float(world.original_cost[y, x]) if restore else float(
                self.rng.choice([1.0, 1.5, 2.0, 4.0, 5.0, math.inf]))
            change = grid.set_cost(region, value_c)
        else:  # uniform grid: costs 1 or inf only
            value_c = 1.0 if restore else float(self.rng.choice([1.0, math.inf]))
            change = grid.set_cost(region, value_c)
        self.count.edits += 1
        self.count.effective_edits += change is not None
        if change is not None:
            self.audit_pending("after an edit")

    def query(self, world: World) -> tuple[tuple[int, int], tuple[int, int], dict[str, Any]]:
        """A recurring query from the pool (endpoints still passable) or a new one."""
        if self.rng.random() < 0.75:
            start, goal, options = world.pool[int(self.rng.integers(len(world.pool)))]
            if world.grid.is_passable(*start) and (world.grid.is_passable(*goal) or "partial" in options):
                return start, goal, options
        start = self.passable_cell(world)
        goal = self.passable_cell(world, start)
        options = self.options(world)
        if "partial" in options and self.rng.random() < 0.5:  # a blocked goal
            goal = (int(self.rng.integers(world.grid.width)), int(self.rng.integers(world.grid.height)))
        return start, goal, options

    def cached_query(self, world: World) -> None:
        start, goal, options = self.query(world)
        path = self.cache.find_path(world.grid, start, goal, **options)
        self.count.cache_queries += 1
        self.verify(world, path, start, goal, options, "PathCache")

    def request(self, world: World, start: tuple[int, int] | None = None, depth: int = 0) -> None:
        if start is not None and world.grid.is_passable(*start):  # a chained request
            goal, options = self.passable_cell(world, start), self.options(world)
        else:
            start, goal, options = self.query(world)
        quick = int(self.rng.choice([0, 0, 0, 40, 400]))

        def on_done(req: Any) -> None:
            if depth < 3 and self.rng.random() < 0.4:
                self.count.chained += 1
                self.request(world, req.goal, depth + 1)

        req = self.queue.request(world.grid, start, goal, quick_expansions=quick, on_done=on_done,
                                 **options)
        self.count.queue_requests += 1
        self.pending.append((req, world, options))
        self.audit_pending("after a request")

    def cancel_some(self) -> None:
        if self.pending:
            req = self.pending[int(self.rng.integers(len(self.pending)))][0]
            if not req.done:
                req.cancel()
                self.count.cancels += 1

    def order_crowd(self, world: World) -> None:
        assert world.crowd is not None
        n = len(world.crowd)
        agents = self.rng.choice(n, size=int(self.rng.choice([1, 4, 16])), replace=False)
        target = world.grid.cell_to_world(self.passable_cell(world))
        world.crowd.move(agents, target)
        self.count.crowd_orders += 1

    def frame(self) -> None:
        self.queue.update()
        self.audit_pending("after update")
        for world in self.worlds:
            assert world.crowd is not None
            world.crowd.update(1 / 30)
            pos = world.crowd.positions
            grid = world.grid
            lo = np.array(grid.origin)
            hi = lo + np.array([grid.width, grid.height]) * grid.cell_size
            if not np.isfinite(pos).all() or (pos < lo).any() or (pos > hi).any():
                self.mismatch(Mismatch(f"crowd positions {pos.tolist()}"), f"Crowd on {world.name}")
        self.count.crowd_updates += 1

    # -- checks ----------------------------------------------------------------------------
    def verify(self, world: World, path: gamenav.Path, start: tuple[int, int], goal: tuple[int, int],
               options: dict[str, Any], what: str) -> None:
        self.count.checked += 1
        key = path.status.name
        self.count.statuses[key] = self.count.statuses.get(key, 0) + 1
        if path.status in (gamenav.PathStatus.CANCELLED, gamenav.PathStatus.STALE):
            return
        try:
            check_answer(world.grid, path, start, goal, options)
        except (Mismatch, gamenav.GamenavError) as exc:
            self.mismatch(exc, f"{what} on {world.name} {start}->{goal} {options}")

    def audit_pending(self, when: str) -> None:
        keep = []
        for req, world, options in self.pending:
            if req.done:
                if req.status is not gamenav.PathStatus.CANCELLED:
                    self.count.queue_answers += 1
                self.verify(world, req.path, tuple(req.start), tuple(req.goal), options,
                            f"PathQueue ({when})")
                continue
            if req.path.status.has_path:  # a quick partial path: still walkable
                self.count.quick_checks += 1
                cells = req.path.cells
                if not world.grid.passable[cells[:, 1], cells[:, 0]].all():
                    self.mismatch(Mismatch(f"quick partial path {cells.tolist()} crosses a wall"),
                                  f"PathQueue quick path on {world.name} ({when})")
            keep.append((req, world, options))
        self.pending = keep


def run(edits: int, seed: int, map_path: Path) -> tuple[Soak, list[tuple[int, float]], float]:
    """Run the soak; returns its state, the RSS samples ``(edits, MB)`` and the seconds."""
    walkable = read_map(map_path)
    soak = Soak(walkable, seed)
    t0 = time.perf_counter()
    samples = [(0, rss_mb())]
    for i in range(edits):
        world = soak.worlds[i % 2]
        soak.edit(world)
        r = soak.rng.random()
        if r < 0.25:
            soak.cached_query(world)
        elif r < 0.45:
            soak.request(world)
        elif r < 0.5:
            soak.cancel_some()
        elif r < 0.52:
            soak.order_crowd(world)
        if i % 4 == 3:
            soak.frame()
        if (i + 1) % RSS_EVERY == 0:
            samples.append((i + 1, rss_mb()))
    for _ in range(1000):  # drain
        if not len(soak.queue):
            break
        soak.frame()
    return soak, samples, time.perf_counter() - t0


def rss_growth(samples: list[tuple[int, float]], edits: int) -> float:
    """Least-squares RSS growth in MB over the run after the first 20 % (warm-up)."""
    later = [(e, m) for e, m in samples if e >= 0.2 * edits]
    if len(later) < 3:
        return 0.0
    x = np.array([e for e, _ in later], dtype=float)
    y = np.array([m for _, m in later])
    slope = float(np.polyfit(x, y, 1)[0])
    return slope * float(x[-1] - x[0])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--edits", type=int, default=100_000, help="number of random edits")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--quick", action="store_true", help="a short run (3,000 edits)")
    parser.add_argument("--map", type=Path, default=REPO_ROOT / "tests" / "data" / "movingai" / "den011d.map",
                        help="a Moving AI .map file")
    args = parser.parse_args(argv)
    edits = 3000 if args.quick else args.edits
    gamenav.find_path(gamenav.TileGrid.from_strings(["..", ".."]), (0, 0), (1, 1))  # load kernels
    soak, samples, seconds = run(edits, args.seed, args.map)
    count, cache = soak.count, soak.cache.stats
    mbs = [m for _, m in samples]
    growth = rss_growth(samples, edits)
    judged = edits >= RSS_MIN_EDITS
    flat = not judged or growth < RSS_LIMIT_MB
    rows: list[list[Any]] = [
        ["map", f"{args.map.name}, unweighted and weighted copies"],
        ["edits (effective)", f"{count.edits} ({count.effective_edits})"],
        ["cached queries", count.cache_queries],
        ["cache hits / misses / invalidations",
         f"{cache.hits} / {cache.misses} / {cache.invalidations}"],
        ["queue requests (chained in on_done)", f"{count.queue_requests} ({count.chained})"],
        ["queue answers (cancels)", f"{count.queue_answers} ({count.cancels})"],
        ["quick partial paths re-checked", count.quick_checks],
        ["crowd orders / frames", f"{count.crowd_orders} / {count.crowd_updates}"],
        ["answers checked", count.checked],
        ["statuses", ", ".join(f"{k} {v}" for k, v in sorted(count.statuses.items()))],
        ["mismatches", count.mismatches],
        ["RSS start / end / max (MB)", f"{mbs[0]:.1f} / {mbs[-1]:.1f} / {max(mbs):.1f}"],
        ["RSS growth after warm-up (MB, fit)", f"{growth:+.2f}" + ("" if judged else " (not judged)")],
        ["seconds", f"{seconds:.1f}"],
    ]
    print(markdown_table([f"soak (seed {args.seed})", "value"], rows))
    if count.first_mismatch:
        print(f"first mismatch: {count.first_mismatch}")
    if not flat:
        print(f"RSS grew by {growth:.1f} MB (limit {RSS_LIMIT_MB} MB)")
    return 0 if count.mismatches == 0 and flat else 1


if __name__ == "__main__":
    sys.exit(main())
