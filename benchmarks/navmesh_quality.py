"""Default-mode navmesh path quality: length / exact shortest and query time, before vs after.

For every Moving AI map in ``movingai/`` the mesh is ``NavMesh.from_grid`` of the map (cell centres
of the ``.scen`` queries, evenly sampled, as start and goal); the oracle is exact mode (Polyanya)
on the same mesh. For Iron Harvest (``meshes/iron-harvest-v3``) the mesh is built from the
polygons' union with ``NavMesh.from_polygons`` and the oracle is the scenario file's exact cost
(all 2000 queries). Default mode (portal A* + funnel) is run by two source trees in one run, map
by map, alternately: ``--before`` (e.g. a worktree of an older commit) and this repository.
Each query's time is the best of ``--repeat`` calls of ``gamenav.find_path``; the table prints
the median over the queries.

Usage::

    git worktree add /tmp/old <commit>
    python benchmarks/navmesh_quality.py --before /tmp/old [--queries 300] [--data DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from _common import REPO_ROOT, data_dir, markdown_table  # first: see _common

import numpy as np

IRON = "meshes/iron-harvest-v3/scene_mp_2p_01.mesh"
MAX_RATIO, MEAN_RATIO, TIME_RATIO = 1.05, 1.003, 1.3
"""Targets of the default mode (issue 9): length / exact, and median time vs ``--before``."""


def _queries(data: Path, name: str, limit: int) -> tuple[Any, np.ndarray, np.ndarray | None]:
    """(mesh, (n, 4) float start/goal points, exact costs or None) for one map."""
    import shapely

    import gamenav
    from gamenav.io import read_mesh, read_mesh_scenarios, read_scenarios

    if name == "iron-harvest":
        vertices, polygons = read_mesh(data / IRON)
        free = shapely.coverage_union_all(shapely.polygons(vertices[np.array(polygons)]))
        mesh = gamenav.NavMesh.from_polygons(free)
        scen = read_mesh_scenarios(f"{data / IRON}.scen")
        pts = np.array([[*s.start, *s.goal] for s in scen], dtype=np.float64)
        return mesh, pts, np.array([s.cost for s in scen])
    grid = gamenav.TileGrid.from_movingai(data / "movingai" / name)
    mesh = gamenav.NavMesh.from_grid(grid)
    scen = read_scenarios(data / "movingai" / f"{name}.scen")
    idx = np.unique(np.linspace(0, len(scen) - 1, min(limit, len(scen))).astype(np.int64))
    cells = np.array([[*scen[i].start, *scen[i].goal] for i in idx], dtype=np.float64)
    pts = np.concatenate([grid.cell_to_world(cells[:, :2]), grid.cell_to_world(cells[:, 2:])], axis=1)
    return mesh, pts, None


def worker(data: Path, name: str, limit: int, repeat: int, exact: bool) -> dict[str, Any]:
    """Run one map's queries with the gamenav found on ``sys.path``; JSON-able results."""
    import gamenav

    mesh, pts, oracle = _queries(data, name, limit)
    for p in pts[:20]:  # warm-up (numba cache load)
        gamenav.find_path(mesh, p[:2], p[2:])
    lengths, times = [], []
    for p in pts:
        best = float("inf")
        for _ in range(repeat):
            t0 = time.perf_counter()
            path = gamenav.find_path(mesh, p[:2], p[2:])
            best = min(best, time.perf_counter() - t0)
        lengths.append(path.cost)
        times.append(best)
    out: dict[str, Any] = {"lengths": lengths, "times": times, "triangles": len(mesh)}
    if exact:
        out["exact"] = (oracle.tolist() if oracle is not None else
                        [gamenav.find_path(mesh, p[:2], p[2:], exact=True).cost for p in pts])
    return out


def _run(tree: Path, args: argparse.Namespace, name: str, exact: bool) -> dict[str, Any]:
    env = dict(os.environ, PYTHONPATH=str(tree))
    cmd = [sys.executable, __file__, "--worker", name, "--data", str(args.data),
           "--queries", str(args.queries), "--repeat", str(args.repeat)]
    if exact:
        cmd.append("--exact")
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, cwd=tree, check=False)
    if proc.returncode:
        raise SystemExit(f"worker failed on {name} in {tree}:\n{proc.stderr}")
    return dict(json.loads(proc.stdout.splitlines()[-1]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", help="benchmark data folder (default: ../shared/benchmarks)")
    parser.add_argument("--before", help="source tree to compare with (e.g. a git worktree)")
    parser.add_argument("--queries", type=int, default=300, help="queries per Moving AI map")
    parser.add_argument("--repeat", type=int, default=3, help="calls per query (best time kept)")
    parser.add_argument("--maps", nargs="*", help="only these map names")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    parser.add_argument("--exact", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    args.data = data_dir(args.data)
    if args.worker:
        print(json.dumps(worker(args.data, args.worker, args.queries, args.repeat, args.exact)))
        return
    names = sorted(p.name for p in (args.data / "movingai").glob("*.map")) + ["iron-harvest"]
    if args.maps:
        names = [n for n in names if n in args.maps]
    trees = [("after", REPO_ROOT)] + ([("before", Path(args.before).resolve())] if args.before else [])
    rows, worst, missed = [], {}, []
    for name in names:
        res = {label: _run(tree, args, name, exact=label == "after") for label, tree in trees}
        exact = np.array(res["after"]["exact"])
        cells: list[Any] = [name, len(exact), res["after"]["triangles"]]
        for label in ("before", "after"):
            if label not in res:
                cells += ["-", "-", "-"]
                continue
            length = np.array(res[label]["lengths"])
            ok = exact > 0
            ratio = np.where(ok, length / np.where(ok, exact, 1.0), 1.0)
            worst[(name, label)] = float(ratio.max())
            cells += [f"{ratio.max():.4f}", f"{ratio.mean():.5f}",
                      f"{statistics.median(res[label]['times']) * 1e3:.3f}"]
        after = np.array(res["after"]["lengths"]) / np.where(exact > 0, exact, 1.0)
        after = np.where(exact > 0, after, 1.0)
        if after.max() > MAX_RATIO or after.mean() > MEAN_RATIO:
            missed.append(f"{name} (length)")
        if "before" in res:
            speed = statistics.median(res["after"]["times"]) / statistics.median(res["before"]["times"])
            cells.append(f"{speed:.2f}")
            if speed > TIME_RATIO:
                missed.append(f"{name} (time)")
        else:
            cells.append("-")
        rows.append(cells)
        print(" | ".join(map(str, cells)), file=sys.stderr, flush=True)
    print(f"\nDefault mode (portal A* + funnel), length / exact shortest; median query time in ms "
          f"(best of {args.repeat} calls per query); before = {args.before or '-'}\n")
    print(markdown_table(["map", "queries", "triangles", "max before", "mean before", "ms before",
                          "max after", "mean after", "ms after", "time after/before"], rows))
    print(f"\nTargets (after): max <= {MAX_RATIO}, mean <= {MEAN_RATIO}"
          + (f", median time <= {TIME_RATIO}x before" if args.before else "")
          + (f"; missed: {', '.join(missed)}" if missed else "; met on every map"))


if __name__ == "__main__":
    main()
