"""Fuzz fixtures: the fork-isolated runner, the session's input counter and a kernel warm-up."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

import gamenav
from tests.fuzz._harness import Reporter, isolated

TOTAL: list[int] = [0]
"""Inputs generated in this session by the fuzz tests (summed over their children)."""
RAN: set[str] = set()
"""Node ids of the fuzz tests that ran in this session."""

Runner = Callable[[Callable[[Reporter], None]], int]


@pytest.fixture(scope="session", autouse=True)
def _warm_kernels() -> None:
    """Load every numba kernel once in the parent, so forked children do not each load them (a
    compile inside a child counts against its inputs' time: one hung at 15 s under load)."""
    gamenav.warmup()
    grid = gamenav.TileGrid(np.ones((6, 6), bool), cost=np.full((6, 6), 2.0))
    for options in ({}, {"algorithm": "dijkstra"}, {"weight": 2.0}, {"smooth": True},
                    {"partial": True}, {"diagonal": "never"}):
        gamenav.find_path(grid, (0, 0), (5, 5), **options)
    flat = gamenav.TileGrid(np.ones((6, 6), bool))
    gamenav.find_path(flat, (0, 0), (5, 5), algorithm="jps")
    gamenav.distance_field(grid, (0, 0))
    mesh = gamenav.NavMesh.from_grid(flat)
    for exact in (False, True):
        gamenav.find_path(mesh, (0.5, 0.5), (5.5, 5.5), exact=exact)
    mesh.clamp((-1.0, -1.0))
    mesh.raycast((0.5, 0.5), (9.0, 9.0))
    crowd = gamenav.Crowd(flat, [(0.5, 0.5), (1.5, 0.5)], radius=0.3, max_speed=2.0)
    crowd.move([0, 1], (5.5, 5.5))
    crowd.update(0.1)


@pytest.fixture
def run_fuzz(request: pytest.FixtureRequest) -> Runner:
    """``run_fuzz(body)``: run ``body(reporter)`` fork-isolated; returns its input count."""
    def run(body: Callable[[Reporter], None]) -> int:
        RAN.add(request.node.nodeid)
        return isolated(request.node.nodeid, body, TOTAL)
    return run
