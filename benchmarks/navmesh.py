"""Navmesh benchmark on the Iron Harvest map (2000 queries with exact Euclidean costs).

Compares gamenav (default portal A* + funnel, and exact Polyanya) with extremitypathfinder
(visibility graph over the polygon free space) and pynavmesh (navmesh A* + funnel) in one run:
build time, median query time and path length / oracle (mean, max). Prints a markdown table.

Usage::

    python benchmarks/navmesh.py [--data ../shared/benchmarks] [--ext-queries 200]
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import time
import traceback
from collections.abc import Callable
from typing import Any

from _common import data_dir  # first: see _common

import numpy as np
import shapely

import gamenav
from gamenav.io import read_mesh, read_mesh_scenarios

MAP = "meshes/iron-harvest-v3/scene_mp_2p_01.mesh"


def _median_time(fn: Callable[[], Any], repeat: int) -> tuple[float, Any]:
    times, out = [], None
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times), out


def _length(points: Any) -> float:
    p = np.asarray(points, dtype=np.float64)
    return float(np.hypot(*np.diff(p, axis=0).T).sum()) if len(p) > 1 else 0.0


def _run_queries(query: Callable[[tuple, tuple], float], scen: list) -> tuple[list[float], list[float]]:
    times, ratios = [], []
    for s in scen:
        t = time.perf_counter()
        length = query(s.start, s.goal)
        times.append(time.perf_counter() - t)
        ratios.append(length / s.cost if s.cost > 0 else 1.0)
    return times, ratios


def bench_gamenav(vertices: np.ndarray, polygons: list, free: Any, scen: list) -> list[dict]:
    build_poly, mesh = _median_time(lambda: gamenav.NavMesh.from_polygons(free), 5)
    build_mesh, imported = _median_time(lambda: gamenav.NavMesh.from_mesh(vertices, polygons), 5)
    rows = []
    for exact in (False, True):
        for s in scen[:20]:  # warm-up (numba cache load)
            gamenav.find_path(mesh, s.start, s.goal, exact=exact)
        times, ratios = _run_queries(
            lambda a, b, exact=exact: gamenav.find_path(mesh, a, b, exact=exact).cost, scen)
        rows.append({"name": f"gamenav ({'exact' if exact else 'default'})",
                     "build": f"{build_poly * 1e3:.1f} ms from polygons, {build_mesh * 1e3:.1f} ms from mesh",
                     "times": times, "ratios": ratios, "n": len(scen)})
    del imported
    return rows


def bench_extremitypathfinder(free: Any, scen: list) -> dict:
    row: dict = {"name": "extremitypathfinder", "n": 0}
    try:
        from extremitypathfinder import PolygonEnvironment

        def build() -> list:
            envs = []
            for part in shapely.get_parts(free):
                part = shapely.geometry.polygon.orient(part, 1.0)
                env = PolygonEnvironment()
                env.store(np.asarray(part.exterior.coords[:-1]),
                          [np.asarray(r.coords[:-1]) for r in part.interiors])
                env.prepare()
                shapely.prepare(part)
                envs.append((part, env))
            return envs

        t_build, envs = _median_time(build, 1)

        def query(a: tuple, b: tuple) -> float:
            for part, env in envs:
                if part.covers(shapely.Point(a)):
                    try:
                        _, length = env.find_shortest_path(a, b)
                    except ValueError:  # "does not lie within the map" (points on borders)
                        return math.nan
                    return float(length) if length is not None else math.nan
            return math.nan

        times, ratios = _run_queries(query, scen)
        row.update(build=f"{t_build * 1e3:.0f} ms (visibility graph)", times=times, ratios=ratios,
                   n=len(scen))
    except Exception as exc:  # numpy 2 incompatibilities surface at runtime
        row["error"] = f"failed: {type(exc).__name__}: {exc}".splitlines()[0][:120]
        traceback.print_exc()
    return row


def bench_pynavmesh(vertices: np.ndarray, polygons: list, scen: list) -> dict:
    row: dict = {"name": "pynavmesh", "n": 0}
    try:
        import pathfinder as pf

        sys.setrecursionlimit(max(sys.getrecursionlimit(), 100_000))  # its BVH build recurses deeply
        v3 = [(float(x), 0.0, float(y)) for x, y in vertices]
        polys = [[int(i) for i in p] for p in polygons]
        t_build, finder = _median_time(lambda: pf.PathFinder(v3, polys), 1)

        def query(a: tuple, b: tuple) -> float:
            path = finder.search_path((a[0], 0.0, a[1]), (b[0], 0.0, b[1]))
            return _length([(p[0], p[2]) for p in path]) if path else math.nan

        times, ratios = _run_queries(query, scen)
        row.update(build=f"{t_build * 1e3:.0f} ms (from mesh)", times=times, ratios=ratios,
                   n=len(scen))
    except Exception as exc:
        row["error"] = f"failed: {type(exc).__name__}: {exc}".splitlines()[0][:120]
        traceback.print_exc()
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", help="benchmark data folder (default: ../shared/benchmarks)")
    parser.add_argument("--ext-queries", type=int, default=200,
                        help="evenly spaced queries for extremitypathfinder (slow); others run all")
    args = parser.parse_args()
    mesh_path = data_dir(args.data) / MAP
    vertices, polygons = read_mesh(mesh_path)
    scen = read_mesh_scenarios(f"{mesh_path}.scen")
    free = shapely.coverage_union_all(shapely.polygons(vertices[np.array(polygons)]))

    rows = bench_gamenav(vertices, polygons, free, scen)
    rows.append(bench_pynavmesh(vertices, polygons, scen))
    stride = max(1, len(scen) // args.ext_queries)
    sample = np.arange(0, len(scen), stride)
    rows.append(bench_extremitypathfinder(free, [scen[i] for i in sample]))

    ext = next((r for r in rows if r["name"] == "extremitypathfinder" and "times" in r), None)
    print(f"\nIron Harvest `scene_mp_2p_01` ({len(polygons)} faces, {len(scen)} queries), "
          f"length / oracle over the queries run; speed-up = median time of extremitypathfinder / "
          f"median time on the same {len(sample)} queries (every {stride}th)\n")
    print("| library | build | queries | median query | speed-up vs extremitypathfinder | "
          "length/oracle mean | max |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for r in rows:
        if "error" in r:
            print(f"| {r['name']} | {r['error']} | 0 | - | - | - | - |")
            continue
        med = statistics.median(r["times"])
        ratios = np.array(r["ratios"], dtype=np.float64)
        ok = np.isfinite(ratios)
        same = r["times"] if r["n"] == len(sample) else [r["times"][i] for i in sample]
        speed = f"{statistics.median(ext['times']) / statistics.median(same):.0f}x" if ext else "-"
        missing = "" if ok.all() else f" ({int((~ok).sum())} failed)"
        print(f"| {r['name']} | {r['build']} | {r['n']}{missing} | {med * 1e3:.3f} ms | {speed} | "
              f"{ratios[ok].mean():.6f} | {ratios[ok].max():.6f} |")


if __name__ == "__main__":
    main()
