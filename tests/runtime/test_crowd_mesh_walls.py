"""Crowds on navmesh worlds: agents round the walls between their path's corners."""

from __future__ import annotations

import numpy as np
import pytest

import gamenav


@pytest.mark.parametrize("mirror", [False, True])
def test_navmesh_agent_rounds_the_corner_before_a_nearer_later_one(mirror: bool) -> None:
    # a wall x in [5, 6], y in [0, 8]: the goal, right behind it, is nearer in a straight line than
    # the corner (5, 8) the path rounds first; steering to it walked into the wall and gave up
    walk = np.ones((10, 10), bool)
    walk[:8, 5] = False
    start, goal = np.array([2.5, 2.5]), np.array([7.5, 2.5])
    if mirror:  # (the wall x in [4, 5], walked round from the right)
        walk, start, goal = walk[:, ::-1], goal, start
    grid = gamenav.TileGrid(walk)
    mesh = gamenav.NavMesh.from_grid(grid)
    crowd = gamenav.Crowd(grid, [start], radius=0.35, max_speed=3.0, world=mesh)
    crowd.move([0], tuple(goal))
    crowd.update(1 / 30)
    corner = mesh.raycast(crowd.positions[0], crowd.remaining_path(0)[1])
    assert corner.clear, "the agent steers at a waypoint behind a wall"
    for _ in range(300):
        crowd.update(1 / 30)
        if crowd.arrived[0] or crowd.failed[0]:
            break
    assert crowd.arrived[0] and not crowd.failed[0]
    assert np.hypot(*(crowd.positions[0] - goal)) < 0.5
