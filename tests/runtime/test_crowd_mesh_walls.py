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


@pytest.mark.parametrize("radius", [0.28, 0.3])
def test_navmesh_agent_rounds_a_corner_whose_next_leg_runs_along_the_wall(radius: float) -> None:
    # a wall x in [11, 13], y in [6, 16]: the path turns at its corner (13, 6) and runs along its
    # bottom edge to (11, 6); come near the corner, the agent steered along that edge with its disc
    # against the wall's side, crawled, was stuck and gave up (9 of 60 trips on den011d's navmesh)
    walk = np.ones((16, 16), bool)
    walk[6:, 11:13] = False
    grid = gamenav.TileGrid(walk)
    mesh = gamenav.NavMesh.from_grid(grid)
    crowd = gamenav.Crowd(grid, [(14.5, 12.5)], radius=radius, max_speed=3.0, world=mesh)
    crowd.move([0], (2.5, 9.5))
    for _ in range(600):
        crowd.update(1 / 30)
        if crowd.arrived[0] or crowd.failed[0]:
            break
    assert crowd.arrived[0] and not crowd.failed[0]


def test_navmesh_path_corners_move_off_the_wall_corners_they_round() -> None:
    walk = np.ones((10, 10), bool)
    walk[:8, 5] = False
    grid = gamenav.TileGrid(walk)
    mesh = gamenav.NavMesh.from_grid(grid)
    crowd = gamenav.Crowd(grid, [(2.5, 2.5)], radius=0.35, max_speed=3.0, world=mesh)
    points = np.array([[2.5, 2.5], [5.0, 8.0], [6.0, 8.0], [7.5, 2.5]])  # (round the wall's end)
    moved = crowd._off_walls(points, 0.35)
    assert moved[[0, 3]].tolist() == points[[0, 3]].tolist()  # (the ends stay)
    for k, outer in ((1, (-1.0, 1.0)), (2, (1.0, 1.0))):  # radially off the corner, on the outer side
        offset = moved[k] - points[k]
        assert np.hypot(*offset) == pytest.approx(0.35, abs=1e-6)
        assert (np.sign(offset) == outer).all()
    # round the inner corner (6, 3) of an L-shaped corridor one cell wide, a corner moves only for
    # a disc that fits there
    walk = np.zeros((10, 10), bool)
    walk[2, 1:7] = True
    walk[2:9, 6] = True
    grid = gamenav.TileGrid(walk)
    points = gamenav.find_path(gamenav.NavMesh.from_grid(grid), (1.5, 2.5), (6.5, 8.5)).points
    assert points.tolist() == [[1.5, 2.5], [6.0, 3.0], [6.5, 8.5]]
    crowd = gamenav.Crowd(grid, [(1.5, 2.5)], radius=0.6, max_speed=3.0)
    assert crowd._off_walls(points, 0.6).tolist() == points.tolist()
    assert np.hypot(*(crowd._off_walls(points, 0.3)[1] - points[1])) == pytest.approx(0.3, abs=1e-6)
