"""Oracle: Moving AI scenarios (optimal octile lengths, no corner cutting) for A*, JPS, Dijkstra."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

import gamenav
from gamenav.io import read_scenarios
from tests.grid._reference import check_path

ALGORITHMS = ("astar", "jps", "dijkstra")
VENDORED = ("arena", "den011d")
SAMPLE_PER_MAP = 40


def _run_scenarios(grid, scenarios, algorithm: str) -> None:
    workspace = gamenav.SearchWorkspace(grid.shape)
    for s in scenarios:
        path = gamenav.find_path(grid, s.start, s.goal, algorithm=algorithm, workspace=workspace)
        assert path.status is gamenav.PathStatus.FOUND, (s, algorithm)
        assert abs(path.cost - s.optimal_length) <= 0.01, (s, algorithm, path.cost)
        walked = check_path(grid, path, s.start, s.goal)
        assert abs(walked - path.cost) <= 1e-9 * max(1.0, path.cost)


@pytest.mark.parametrize("algorithm", ALGORITHMS)
@pytest.mark.parametrize("name", VENDORED)
def test_every_vendored_scenario_is_optimal_and_valid(data_dir: Path, name: str, algorithm: str) -> None:
    grid = gamenav.TileGrid.from_movingai(data_dir / "movingai" / f"{name}.map")
    scenarios = read_scenarios(data_dir / "movingai" / f"{name}.map.scen")
    assert len(scenarios) == {"arena": 160, "den011d": 780}[name]
    _run_scenarios(grid, scenarios, algorithm)


def _shared_maps(root: Path | None) -> list[Path]:
    if root is None or not (root / "movingai").is_dir():
        return []
    return sorted(p for p in (root / "movingai").glob("*.map")
                  if p.stem not in VENDORED and p.with_name(p.name + ".scen").exists())


@pytest.mark.slow
@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_sample_of_every_shared_map(shared_benchmarks: Path | None, algorithm: str) -> None:
    maps = _shared_maps(shared_benchmarks)
    if not maps:
        if os.environ.get("CI"):  # CI runs beside shared/: a missing oracle is a failure there
            pytest.fail(f"no Moving AI maps under {shared_benchmarks} (set GAMENAV_BENCHMARKS)")
        pytest.skip("../shared/benchmarks/movingai is not present")
    for map_path in maps:
        grid = gamenav.TileGrid.from_movingai(map_path)
        scenarios = read_scenarios(map_path.with_name(map_path.name + ".scen"))
        # deterministic sample: evenly spaced over the file (short to long buckets), plus the longest
        picks = np.linspace(0, len(scenarios) - 1, SAMPLE_PER_MAP - 1).round().astype(int)
        sample = [scenarios[i] for i in picks]
        sample.append(max(scenarios, key=lambda s: s.optimal_length))
        _run_scenarios(grid, sample, algorithm)
