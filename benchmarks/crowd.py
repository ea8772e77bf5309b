"""Crowd avoidance: gamenav's ORCA side by side with RVO2 (``pyrvo``), and a choke point.

1. **Circle swap** (RVO2's own example): N agents, radius 1, max speed 2, dt 0.25, evenly on a
   ring of radius ``max(50, N * 2.4 / (2 pi))``, each walking to its antipode in an open world.
   Both use neighbor_dist 15, max_neighbors 10, time_horizon 5, time_horizon_obst 5.
   gamenav: a :class:`gamenav.Crowd` on an open grid (cell size 1; paths ``smooth=True``, so
   straight lines), one ``crowd.update(0.25)`` per step (paths, arrival, ORCA, overlap and wall
   projection); its ``avoidance_ms`` (the ORCA part) is shown too. pyrvo: ``do_step()`` timed
   alone (the preferred velocities are set before, as in RVO2's example: towards the goal, at
   most unit length... times max speed). The two run in lockstep, one step each in turn, so
   that load from elsewhere on the machine slows both alike. Measured: median ms per step,
   steps until every agent is within its radius of its goal (``--max-steps`` cap), the minimum
   centre distance of any pair over all steps (2 = touching).
   With ``--obstacles K`` (100 by default; sizes ``--obstacle-sizes``) the swap runs again round K
   boxes (sides 1 to 3, seeded, inside the ring): pyrvo gets them as RVO2 obstacles (preferred
   velocities still straight to the goals, as in RVO2's example, so agents may stall behind
   one), gamenav as obstacles of a NavMesh world (paths round them; ORCA walls are their edges).
2. **Choke point**: a grid map, a river with one 3-cell-wide bridge, 500 agents of radius 0.3,
   0.45 and 0.8 cells (infantry, cavalry, tanks) in two groups crossing in opposite directions.
   Every frame: the deepest overlap of a disc with a blocked (or off-map) cell square, and the
   deepest pair overlap relative to the smaller radius. Targets: no wall overlap, pair overlap
   <= 10%, >= 98% arrive, no deadlock. Seeds 1-8 (``--choke-seeds``) of the placement, each run
   on past 3000 frames until all arrive (``--choke-until``), the pathfinding budget in node
   expansions so that the runs are the same on any machine. Then the same with 2000 agents on a
   bigger map with three bridges (1 ms pathfinding budget): mean ms of ``queue.update() +
   crowd.update(dt)`` per frame (paths + avoidance).

Usage (from the repository root)::

    python benchmarks/crowd.py                   # everything (several minutes)
    python benchmarks/crowd.py --sizes 250 500 --max-steps 3000 --skip-choke
"""

from __future__ import annotations

import argparse
import contextlib
import math
import time
from typing import Any

from _common import markdown_table  # first: see _common

import numpy as np
from scipy.spatial import cKDTree

import gamenav

RADIUS, SPEED, DT = 1.0, 2.0, 0.25
NEIGHBOR_DIST, MAX_NEIGHBORS, TIME_HORIZON, TIME_HORIZON_OBST = 15.0, 10, 5.0, 5.0


def ring(n: int) -> tuple[np.ndarray, np.ndarray]:
    r = max(50.0, n * 2.4 / (2 * math.pi))
    a = 2 * math.pi * np.arange(n) / n
    pos = np.stack([r * np.cos(a), r * np.sin(a)], axis=1)
    return pos, -pos


def min_pair(pos: np.ndarray) -> float:
    return float(cKDTree(pos).query(pos, k=2)[0][:, 1].min())


def obstacle_boxes(n: int, k: int, seed: int = 1) -> list[tuple[float, float, float, float]]:
    """``k`` boxes ``(x0, y0, x1, y1)`` with sides 1 to 3 inside the ring of ``n`` agents (seeded)."""
    rng = np.random.default_rng(seed)
    reach = 0.7 * max(50.0, n * 2.4 / (2 * math.pi))
    corner = rng.uniform(-reach, reach, (k, 2))
    return [(x, y, x + w, y + h) for (x, y), (w, h) in zip(corner.tolist(), rng.uniform(1, 3, (k, 2)).tolist(),
                                                           strict=True)]


class _Pyrvo:
    """RVO2 through pyrvo: the preferred velocities set as in RVO2's example, ``do_step`` timed."""

    def __init__(self, n: int, boxes: list[tuple[float, float, float, float]]) -> None:
        import pyrvo

        self.start, self.goal = ring(n)
        self.n = n
        self.sim = pyrvo.RVOSimulator()
        self.sim.set_time_step(DT)
        self.sim.set_agent_defaults(NEIGHBOR_DIST, MAX_NEIGHBORS, TIME_HORIZON, TIME_HORIZON_OBST, RADIUS, SPEED)
        for p in self.start.tolist():
            self.sim.add_agent(tuple(p))
        for x0, y0, x1, y1 in boxes:  # (counterclockwise)
            self.sim.add_obstacle([(x0, y0), (x1, y0), (x1, y1), (x0, y1)])
        if boxes:
            self.sim.process_obstacles()
        self.pos = self.start.copy()

    def step(self) -> float:
        v = self.goal - self.pos
        d = np.hypot(v[:, 0], v[:, 1])
        v = np.where(d[:, None] > 1.0, v / np.maximum(d, 1e-12)[:, None], v) * SPEED
        for i, (x, y) in enumerate(v.tolist()):
            self.sim.set_agent_pref_velocity(i, (x, y))
        t0 = time.perf_counter()
        self.sim.do_step()
        ms = (time.perf_counter() - t0) * 1e3
        self.pos = np.array([self.sim.get_agent_position(i).to_tuple() for i in range(self.n)])
        return ms

    def left(self) -> int:
        return int((np.hypot(*(self.pos - self.goal).T) >= RADIUS).sum())


class _Gamenav:
    """A Crowd on an open grid, one timed ``update(DT)`` per step."""

    def __init__(self, n: int, boxes: list[tuple[float, float, float, float]]) -> None:
        start, goal = ring(n)
        size = int(2 * np.abs(start).max() + 8)
        grid = gamenav.TileGrid(np.ones((size, size), bool), origin=(-size / 2, -size / 2))
        world = None
        if boxes:
            world = gamenav.NavMesh.from_polygons([(-size / 2, -size / 2), (size / 2, -size / 2),
                                                   (size / 2, size / 2), (-size / 2, size / 2)])
            for x0, y0, x1, y1 in boxes:
                world.add_obstacle([(x0, y0), (x1, y0), (x1, y1), (x0, y1)])
        self.crowd = gamenav.Crowd(grid, start, radius=RADIUS, max_speed=SPEED, neighbor_dist=NEIGHBOR_DIST,
                                   max_neighbors=MAX_NEIGHBORS, time_horizon=TIME_HORIZON,
                                   time_horizon_obst=TIME_HORIZON_OBST, arrive_radius=RADIUS, flow_threshold=10**9,
                                   path_options={} if boxes else {"smooth": True}, requests_per_update=10**9,
                                   world=world)
        for i in range(n):
            self.crowd.move([i], tuple(goal[i]), formation=False)
        self.pos = self.crowd.positions

    def step(self) -> float:
        t0 = time.perf_counter()
        self.crowd.update(DT)
        ms = (time.perf_counter() - t0) * 1e3
        self.pos = self.crowd.positions
        return ms

    def left(self) -> int:
        return int((~self.crowd.arrived).sum())


def circle(n: int, max_steps: int, obstacles: int = 0) -> tuple[dict[str, float], dict[str, float] | None]:
    """Both simulations in lockstep (one step of each in turn, so that a busy machine slows both
    alike): per simulation the median ms per step, steps until all arrived, min pair distance
    (round ``obstacles`` boxes: :func:`obstacle_boxes`)."""
    boxes = obstacle_boxes(n, obstacles)
    sims: dict[str, Any] = {"gamenav": _Gamenav(n, boxes)}
    with contextlib.suppress(ImportError):
        sims["pyrvo"] = _Pyrvo(n, boxes)
    stats = {name: {"times": [], "orca": [], "closest": math.inf, "steps": max_steps} for name in sims}
    live = set(sims)
    for step in range(max_steps):
        for name in list(live):
            sim, st = sims[name], stats[name]
            st["times"].append(sim.step())
            if name == "gamenav":
                st["orca"].append(sim.crowd.avoidance_ms)
            st["closest"] = min(st["closest"], min_pair(sim.pos))
            if sim.left() == 0:
                st["steps"] = step + 1
                live.discard(name)
        if not live:
            break
    out = {name: {"ms": float(np.median(st["times"])), "orca_ms": float(np.median(st["orca"] or [math.nan])),
                  "steps": st["steps"], "min_pair": st["closest"], "left": sims[name].left()}
           for name, st in stats.items()}
    return out["gamenav"], out.get("pyrvo")


# -- choke point ---------------------------------------------------------------------------
CHOKE_EXPANSIONS = 20_000
"""Pathfinding budget of the 500-agent choke runs, in node expansions per frame (about 1 ms here)."""
KINDS = ((0.3, 4.0, 0.6), (0.45, 5.0, 0.3), (0.8, 3.0, 0.1))
"""(radius in cells, max speed in cells/s, share): infantry, cavalry, tanks."""


def river_map(width: int, height: int, bridges: int) -> np.ndarray:
    walk = np.ones((height, width), bool)
    x0 = width // 2 - 4
    walk[:, x0:x0 + 8] = False
    for k in range(bridges):
        y = (k + 1) * height // (bridges + 1) - 1
        walk[y:y + 3, x0:x0 + 8] = True
    return walk


def spawn(walk: np.ndarray, n: int, x0: int, x1: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """``n`` non-overlapping discs of the mixed kinds in columns x0..x1, clear of walls."""
    h = walk.shape[0]
    kinds = rng.choice(len(KINDS), n, p=[k[2] for k in KINDS])
    radii = np.array([KINDS[k][0] for k in kinds])
    pos = np.zeros((0, 2))
    placed = []
    order = np.argsort(-radii, kind="stable")
    for i in order:
        for _ in range(2000):
            p = rng.uniform((x0 + 1.0, 1.0), (x1 - 1.0, h - 1.0))
            r = radii[i]
            if len(placed) and (np.hypot(*(pos - p).T) < radii[placed] + r + 0.05).any():
                continue
            break
        else:
            raise SystemExit("could not place the agents: map too small")
        placed.append(i)
        pos = np.vstack([pos, p])
    out = np.empty((n, 2))
    out[placed] = pos
    return out, kinds


def wall_overlap(grid: gamenav.TileGrid, pos: np.ndarray, radii: np.ndarray) -> float:
    """Deepest overlap (cells) of a disc with a blocked or off-map cell square (cell size 1, y down)."""
    blocked = np.pad(~grid.passable, 2, constant_values=True)
    worst = 0.0
    for dy in (-1, 0, 1):
        for dx in (-1, 0, 1):
            cx = np.floor(pos[:, 0]).astype(int) + dx
            cy = np.floor(pos[:, 1]).astype(int) + dy
            hit = blocked[np.clip(cy + 2, 0, blocked.shape[0] - 1), np.clip(cx + 2, 0, blocked.shape[1] - 1)]
            qx = np.clip(pos[:, 0], cx, cx + 1)
            qy = np.clip(pos[:, 1], cy, cy + 1)
            over = radii - np.hypot(pos[:, 0] - qx, pos[:, 1] - qy)
            if hit.any():
                worst = max(worst, float(over[hit].max()))
    return worst


def pair_overlap(pos: np.ndarray, radii: np.ndarray) -> float:
    """Deepest pair overlap as a fraction of the smaller radius."""
    pairs = cKDTree(pos).query_pairs(2 * radii.max(), output_type="ndarray")
    if len(pairs) == 0:
        return 0.0
    i, j = pairs.T
    over = radii[i] + radii[j] - np.hypot(*(pos[i] - pos[j]).T)
    return float(max(0.0, (over / np.minimum(radii[i], radii[j])).max()))


def choke(n: int, width: int, height: int, bridges: int, frames: int, seed: int = 1, check: bool = True,
          expansions: int | None = None, until_all: int = 0) -> dict[str, float]:
    """One choke-point run: ``frames`` frames (then on, up to ``until_all`` frames, until every
    agent has arrived). ``expansions``: the queue's budget in node expansions per frame
    (deterministic: paths arrive at the same frames on any machine); None: 1 ms per frame."""
    rng = np.random.default_rng(seed)
    walk = river_map(width, height, bridges)
    grid = gamenav.TileGrid(walk)
    band = width // 2 - 6
    left, kl = spawn(walk, n // 2, 0, band, rng)
    right, kr = spawn(walk, n - n // 2, width - band, width, rng)
    kinds = np.concatenate([kl, kr])
    radii = np.array([KINDS[k][0] for k in kinds])
    speeds = np.array([KINDS[k][1] for k in kinds])
    queue = gamenav.PathQueue(budget_ms=None, max_expansions=expansions) if expansions else \
        gamenav.PathQueue(budget_ms=1.0)
    crowd = gamenav.Crowd(grid, np.vstack([left, right]), radius=radii, max_speed=speeds, queue=queue)
    ids = crowd.ids
    side = np.arange(n) < n // 2
    # orders by squad (one flow field each), to the far bank
    for team, (tx0, tx1) in ((True, (width - band, width - 2)), (False, (2, band))):
        members = ids[side == team]
        for s, squad in enumerate(np.array_split(members, max(1, len(members) // 100))):
            ty = (s + 0.5) * height / max(1, len(members) // 100)
            crowd.move(squad, ((tx0 + tx1) / 2, ty))
    times, wall, pair, ran = [], 0.0, 0.0, 0
    arrived_at_frames, f98, f_all = 0.0, math.nan, math.nan
    for frame in range(max(frames, until_all)):
        ran = frame + 1
        t0 = time.perf_counter()
        queue.update()
        crowd.update(1 / 30)
        times.append((time.perf_counter() - t0) * 1e3)
        if check:
            wall = max(wall, wall_overlap(grid, crowd.positions, crowd.radii))
            pair = max(pair, pair_overlap(crowd.positions, crowd.radii))
        share = float(crowd.arrived.mean())
        if ran == frames:
            arrived_at_frames = share
        if share >= 0.98 and math.isnan(f98):
            f98 = ran
        if share >= 1.0:
            f_all = ran
            break
        if ran >= frames and not until_all:
            break
    if ran < frames:
        arrived_at_frames = 1.0
    queue.close()
    return {"frames": frames, "arrived": arrived_at_frames, "f98": f98, "all": f_all, "failed": int(crowd.failed.sum()),
            "wall": wall, "pair": pair, "mean_ms": float(np.mean(times)), "p99_ms": float(np.percentile(times, 99)),
            "avoid_ms": crowd.avoidance_ms, "infeasible": crowd.counters["infeasible"]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[250, 500, 1000, 2000])
    parser.add_argument("--max-steps", type=int, default=6000)
    parser.add_argument("--skip-circle", action="store_true")
    parser.add_argument("--skip-choke", action="store_true")
    parser.add_argument("--obstacles", type=int, default=100, help="boxes of the second circle swap (0: none)")
    parser.add_argument("--obstacle-sizes", type=int, nargs="+", default=[250])
    parser.add_argument("--choke-seeds", type=int, nargs="+", default=list(range(1, 9)))
    parser.add_argument("--choke-until", type=int, default=9000, help="run each choke seed until all arrive, "
                        "at most this many frames (0: stop at 3000)")
    args = parser.parse_args()
    gamenav.warmup(navmesh=False)
    if not args.skip_circle:
        rows = []
        runs = [(n, 0) for n in args.sizes] + [(n, args.obstacles) for n in args.obstacle_sizes if args.obstacles]
        for n, obstacles in runs:
            ours, maybe_ref = circle(n, args.max_steps, obstacles)
            ref = maybe_ref or {"ms": math.nan, "steps": math.nan, "min_pair": math.nan, "left": -1}

            def steps(r: dict[str, float]) -> str:
                return f"{r['steps']}" + (f" ({r['left']} not arrived)" if r["left"] > 0 else "")

            rows.append([n, obstacles, f"{ours['ms']:.3f}", f"{ours['orca_ms']:.3f}", f"{ref['ms']:.3f}",
                         f"{ours['ms'] / ref['ms']:.2f}", steps(ours), steps(ref),
                         f"{ours['min_pair']:.3f}", f"{ref['min_pair']:.3f}"])
            print(f"circle N={n}, {obstacles} obstacles done", flush=True)
        print("\nCircle swap (radius 1, speed 2, dt 0.25; min pair distance 2 = touching)\n")
        print(markdown_table(["N", "obstacles", "gamenav ms/step", "of which ORCA ms", "pyrvo do_step ms", "ratio",
                              "gamenav steps", "pyrvo steps", "gamenav min dist", "pyrvo min dist"], rows))
    if not args.skip_choke:
        rows, runs = [], []
        for seed in args.choke_seeds:
            r = choke(500, 64, 40, 1, 3000, seed=seed, expansions=CHOKE_EXPANSIONS, until_all=args.choke_until)
            runs.append(r)
            rows.append([seed, f"{100 * r['arrived']:.1f}%", f"{r['f98']:.0f}", f"{r['all']:.0f}", r["failed"],
                         f"{r['wall']:.2e}", f"{100 * r['pair']:.1f}%", f"{r['mean_ms']:.2f}"])
            print(f"choke seed {seed} done", flush=True)
        rows.append(["mean", f"{100 * np.mean([r['arrived'] for r in runs]):.1f}%",
                     f"{np.mean([r['f98'] for r in runs]):.0f}", f"{np.mean([r['all'] for r in runs]):.0f}",
                     sum(r["failed"] for r in runs), f"{max(r['wall'] for r in runs):.2e}",
                     f"{100 * max(r['pair'] for r in runs):.1f}%", f"{np.mean([r['mean_ms'] for r in runs]):.2f}"])
        print(f"\nChoke point: 500 agents (r 0.3 / 0.45 / 0.8 cells), 3-wide bridge, two groups crossing; "
              f"{CHOKE_EXPANSIONS} node expansions of pathfinding per frame (deterministic); frames to 98% and "
              f"to all arrived (nan: not within {args.choke_until}); the mean row takes the largest overlaps\n")
        print(markdown_table(["seed", "arrived in 3000 frames", "frames to 98%", "frames to all", "failed",
                              "max wall overlap (cells)", "max pair overlap / smaller r", "mean update ms"], rows))
        big = choke(2000, 128, 80, 3, 900, check=False)
        print("\n2000 agents, 128 x 80 map, three 3-wide bridges (900 frames, checks off)\n")
        print(markdown_table(["frames", "arrived", "mean update ms (paths + avoidance)", "p99 ms"],
                             [[big["frames"], f"{100 * big['arrived']:.1f}%", f"{big['mean_ms']:.2f}",
                               f"{big['p99_ms']:.2f}"]]))


if __name__ == "__main__":
    main()
