"""Local navmesh edits vs full rebuilds (issue 9).

Iron Harvest (``scene_mp_2p_01``, built from its polygons) and Aurora (``from_grid`` with an
agent radius): random building-sized obstacles (footprint <= 0.5% of the map area) are added,
then removed in random order. Per edit: median / p99 / max CPU time of the editing thread (and
wall clock), and the speed-up over one full rebuild of the same mesh. Every ``--check-every``
edits, and once more after :meth:`NavMesh.compact` at the end, the edited mesh must give the
same exact-mode costs (1e-9) as a mesh built from scratch from the same free space, on 100
random queries. Prints a markdown table.

Usage::

    python benchmarks/navmesh_dynamic.py [--data ../shared/benchmarks] [--edits 500] [--quick]
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from typing import Any

from _common import data_dir  # first: see _common

import numpy as np
import shapely

import gamenav
from gamenav.io import read_map, read_mesh


def _obstacles(free: Any, n: int, rng: np.random.Generator) -> list[Any]:
    """``n`` random rectangles (footprint <= 0.5% of the bounding box) centred on free space."""
    x0, y0, x1, y1 = free.bounds
    area = (x1 - x0) * (y1 - y0)
    shapely.prepare(free)
    out: list[Any] = []
    while len(out) < n:
        cx, cy = rng.uniform((x0, y0), (x1, y1))
        if not shapely.contains_xy(free, cx, cy):
            continue
        fp = rng.uniform(0.05, 0.5) / 100 * area
        aspect = rng.uniform(0.5, 2.0)
        w = math.sqrt(fp * aspect)
        h = fp / w
        out.append(shapely.box(cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2))
    return out


def _check(mesh: gamenav.NavMesh, reference: gamenav.NavMesh, rng: np.random.Generator,
           n: int = 100) -> float:
    """Max |cost difference| (relative) of exact searches on ``n`` random queries."""
    x0, y0, x1, y1 = reference.bounds
    pts = rng.uniform((x0, y0), (x1, y1), size=(20 * n, 2))
    pts = pts[(reference.locate(pts) >= 0) & (mesh.locate(pts) >= 0)][: 2 * n]
    worst = 0.0
    for s, g in zip(pts[0::2], pts[1::2], strict=False):
        a = gamenav.find_path(mesh, s, g, exact=True)
        b = gamenav.find_path(reference, s, g, exact=True)
        if a.status != b.status:
            return math.inf
        if b.found:
            worst = max(worst, abs(a.cost - b.cost) / max(1.0, b.cost))
    return worst


def run(name: str, mesh: gamenav.NavMesh, rebuild: Any, free: Any, edits: int, check_every: int,
        rng: np.random.Generator) -> dict[str, Any]:
    shapes = _obstacles(free, edits // 2, rng)
    t = time.thread_time()
    reference = rebuild([])
    full = time.thread_time() - t
    mesh.add_obstacle(shapes[0])  # first edit prepares the edit state (not timed)
    mesh.remove_obstacle(next(iter(mesh.obstacles)))
    ops: list[tuple[bool, int]] = [(True, i) for i in range(len(shapes))]
    removes = [(False, i) for i in rng.permutation(len(shapes))]
    # interleave: adds first in order, removals start once half the obstacles are in
    order = ops[: len(ops) // 2] + [x for pair in zip(ops[len(ops) // 2:], removes, strict=False) for x in pair] \
        + removes[len(ops) - len(ops) // 2:]
    live: dict[int, int] = {}
    times: list[float] = []
    walls: list[float] = []
    checks: list[float] = []
    for k, (add, i) in enumerate(order, 1):
        if add or i in live:
            w, t = time.perf_counter(), time.thread_time()
            if add:
                live[i] = mesh.add_obstacle(shapes[i])
            else:
                mesh.remove_obstacle(live.pop(i))
            times.append(time.thread_time() - t)
            walls.append(time.perf_counter() - w)
        if k % check_every == 0:
            reference = rebuild([shapes[j] for j in live])
            checks.append(_check(mesh, reference, rng))
    ms = np.array(times) * 1e3
    wall = np.array(walls) * 1e3
    grown = len(mesh)
    t = time.thread_time()
    mesh.compact()
    compact_ms = (time.thread_time() - t) * 1e3
    checks.append(_check(mesh, rebuild([shapes[j] for j in live]), rng))
    return {"name": name, "triangles": len(reference), "edits": len(times),
            "median": float(np.median(ms)), "p99": float(np.percentile(ms, 99)), "max": float(ms.max()),
            "wall_median": float(np.median(wall)), "wall_p99": float(np.percentile(wall, 99)),
            "rebuild": full * 1e3, "checks": len(checks), "worst": max(checks) if checks else 0.0,
            "grown": grown, "compacted": len(mesh), "compact_ms": compact_ms}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=None, help="benchmark data folder (../shared/benchmarks)")
    parser.add_argument("--edits", type=int, default=500)
    parser.add_argument("--check-every", type=int, default=50)
    parser.add_argument("--quick", action="store_true", help="Iron Harvest only, 100 edits")
    args = parser.parse_args()
    root = data_dir(args.data)
    rng = np.random.default_rng(9)
    gamenav.warmup()
    rows = []
    verts, polys = read_mesh(root / "meshes/iron-harvest-v3/scene_mp_2p_01.mesh")
    free = shapely.coverage_union_all(shapely.polygons(verts[np.array(polys)]))
    ih = gamenav.NavMesh.from_polygons(free)
    rows.append(run("Iron Harvest (from_polygons)", ih,
                    lambda obs: gamenav.NavMesh.from_polygons(free, obstacles=obs),
                    free, 100 if args.quick else args.edits, args.check_every, rng))
    if not args.quick:
        grid = gamenav.TileGrid(read_map(root / "movingai/Aurora.map"))
        radius = 0.5
        walk = shapely.coverage_union_all(shapely.box(*np.stack(
            [*np.nonzero(grid.passable)[::-1], *(np.array(np.nonzero(grid.passable)[::-1]) + 1)])))
        t = time.perf_counter()
        aurora = gamenav.NavMesh.from_grid(grid, agent_radius=radius)
        print(f"Aurora from_grid(agent_radius={radius}): {time.perf_counter() - t:.1f} s", file=sys.stderr)
        rows.append(run(f"Aurora (from_grid, agent_radius={radius})", aurora,
                        lambda obs: gamenav.NavMesh.from_polygons(walk, obstacles=obs, agent_radius=radius),
                        walk, args.edits, args.check_every, rng))
    print("\nPer edit, CPU time of the editing thread (wall clock in brackets); full rebuild: CPU time.")
    print("\n| mesh | triangles | edits | median | p99 | max | full rebuild | speed-up (median) | "
          "exact-cost checks (100 queries) | compact() |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---|---|")
    for r in rows:
        ok = "all equal (max rel. diff {:.1e})".format(r["worst"]) if r["worst"] <= 1e-9 else \
            "DIFFER (max {:.2e})".format(r["worst"])
        print(f"| {r['name']} | {r['triangles']} | {r['edits']} | {r['median']:.2f} ms ({r['wall_median']:.2f}) | "
              f"{r['p99']:.2f} ms ({r['wall_p99']:.2f}) | {r['max']:.1f} ms | {r['rebuild']:.0f} ms | "
              f"{r['rebuild'] / r['median']:.0f}x | {r['checks']} checks: {ok} | "
              f"{r['grown']} -> {r['compacted']} triangles in {r['compact_ms']:.0f} ms |")


if __name__ == "__main__":
    main()
