"""Crowds on navmesh worlds: agents round the walls between their path's corners."""

from __future__ import annotations

import numpy as np
import pytest
import shapely
import shapely.affinity
from hypothesis import example, given, settings
from hypothesis import strategies as st

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


# -- navmesh obstacles: exact walls ------------------------------------------------------------
def _overlap(crowd: gamenav.Crowd, *shapes: shapely.Geometry) -> float:
    """The deepest overlap of an agent's disc with the union of ``shapes`` (world units)."""
    union = shapely.unary_union(shapes)
    points = shapely.points(crowd.positions)
    depth = np.where(shapely.contains(union, points), 1.0, -1.0) * shapely.distance(union.boundary, points)
    return float((depth + crowd.radii).max())


@pytest.mark.parametrize("y_up", [False, True])
def test_an_agent_keeps_off_an_obstacle_edge_in_the_upper_half_of_a_cell(y_up: bool) -> None:
    # the obstacle's lower edge y = 5.6 lies above the centres of cells y 5: steering walled off
    # only the cells whose centre an obstacle covers, so the disc walked 0.2 into it
    grid = gamenav.TileGrid(np.ones((10, 10), bool), y_up=y_up)
    mesh = gamenav.NavMesh.from_polygons([(0, 0), (10, 0), (10, 10), (0, 10)])
    box = shapely.box(3.2, 5.6, 7.4, 8.0)
    mesh.add_obstacle(box)
    crowd = gamenav.Crowd(grid, [(5.5, 2.5), (4.5, 1.5)], radius=0.3, max_speed=3.0, world=mesh)
    crowd.move([0, 1], (5.2, 5.5), formation=False)  # (right under the edge: pushed against it)
    worst = -np.inf
    for _ in range(90):
        crowd.update(1 / 30)
        worst = max(worst, _overlap(crowd, box))
    assert worst <= 1e-6
    assert crowd.positions[:, 1].max() > 5.0  # (they came up to it)


def test_obstacle_walls_follow_edits_made_between_frames_and_from_a_listener() -> None:
    from tests.runtime.test_agents_adversarial6 import assert_obstacle_walls

    grid = gamenav.TileGrid(np.ones((10, 20), bool))
    mesh = gamenav.NavMesh.from_polygons([(0, 0), (20, 0), (20, 10), (0, 10)])
    first, second = shapely.box(3.3, 3.3, 5.7, 6.1), shapely.box(12.2, 1.2, 14.9, 4.4)
    added: list[int] = []

    def then_second(change: object) -> None:  # (heard before the crowd hears the first edit)
        if not added:
            added.append(mesh.add_obstacle(second))

    unsubscribe = mesh.subscribe(then_second)
    crowd = gamenav.Crowd(grid, [(1.5, 1.5)], radius=0.3, max_speed=3.0, world=mesh)
    oid = mesh.add_obstacle(first)
    unsubscribe()
    assert_obstacle_walls(crowd, first, second)
    mesh.remove_obstacle(oid)
    crowd.update(1 / 30)
    assert_obstacle_walls(crowd, second)
    mesh.remove_obstacle(added[0])
    assert_obstacle_walls(crowd)


@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), y_up=st.booleans())
def test_no_disc_ends_a_step_in_an_obstacle(seed: int, y_up: bool) -> None:
    """Random obstacles (rotated boxes and triangles, one per 5 x 5 block: gaps between them and to
    the border over two radii wide), agents ordered about among them: no disc overlaps one by more
    than 0.05 after any update."""
    rng = np.random.default_rng(seed)
    grid = gamenav.TileGrid(np.ones((15, 20), bool), y_up=y_up)
    mesh = gamenav.NavMesh.from_polygons([(0, 0), (20, 0), (20, 15), (0, 15)])
    shapes = []
    for bx in range(4):
        for by in range(3):
            if rng.random() < 0.25:
                continue
            c = np.array([bx * 5 + 2.5, by * 5 + 2.5]) + rng.uniform(-0.3, 0.3, 2)  # (at most 1.72 from c)
            if rng.random() < 0.5:
                shape = shapely.box(-rng.uniform(0.3, 1.0), -rng.uniform(0.3, 1.0), rng.uniform(0.3, 1.0),
                                    rng.uniform(0.3, 1.0))
            else:
                shape = shapely.Polygon(rng.uniform(-1.0, 1.0, (3, 2))).buffer(0)
                if shape.area < 0.1:
                    continue
            shape = shapely.affinity.translate(shapely.affinity.rotate(shape, rng.uniform(0, 360)), *c)
            shapes.append(shape)
            mesh.add_obstacle(shape)
    union = shapely.unary_union(shapes) if shapes else shapely.Polygon()
    free = [p for p in rng.uniform((0.5, 0.5), (19.5, 14.5), (200, 2)) if union.distance(shapely.Point(p)) > 0.4]
    start = np.array(free[:8])
    start = start[[k for k in range(len(start)) if (np.hypot(*(start[:k] - start[k]).T) > 0.7).all()]]
    crowd = gamenav.Crowd(grid, start, radius=0.3, max_speed=3.0, world=mesh)
    for frame in range(90):
        if frame % 30 == 0:
            crowd.move(np.arange(len(start)), tuple(free[rng.integers(len(free))]), formation=bool(frame % 60))
        crowd.update(1 / 30)
        if shapes:
            assert _overlap(crowd, *shapes) <= 0.05, frame


def test_agents_deep_inside_a_new_obstacle_or_squeezed_by_two_move_where_they_fit() -> None:
    # agent 0 two units inside a new obstacle; agent 1 on the border of a new one 0.17 above
    # another (no room for the disc between them): each ends clear of every obstacle
    grid = gamenav.TileGrid(np.ones((20, 30), bool))
    mesh = gamenav.NavMesh.from_polygons([(0, 0), (30, 0), (30, 20), (0, 20)])
    below = shapely.box(18.0, 2.0, 24.0, 9.39)
    mesh.add_obstacle(below)
    crowd = gamenav.Crowd(grid, [(5.5, 5.5), (20.5, 9.9)], radius=0.3, max_speed=3.0, world=mesh)
    deep, above = shapely.box(3.0, 3.0, 9.0, 9.0), shapely.box(17.0, 9.56, 25.0, 14.0)
    mesh.add_obstacle(deep)
    mesh.add_obstacle(above)
    assert _overlap(crowd, below, deep, above) <= 1e-6


@settings(max_examples=40, deadline=None)
@given(x=st.floats(0.0, 2.0), y=st.floats(2.5, 6.5), radius=st.floats(0.1, 0.45))
@example(x=0.25, y=4.5, radius=0.3)
def test_the_disc_push_leads_a_centre_pressed_into_an_obstacle_out_of_it(x: float, y: float, radius: float) -> None:
    """An obstacle 0.2 from the map's border (a gap narrower than any of the discs): wherever a
    disc's centre is, :func:`discs_off_walls` leaves it neither inside the obstacle nor on a
    blocked cell (the kernel pushed it off the obstacle onto the border and back: it stayed in)."""
    from gamenav._kernels.orca import blocked_table, discs_off_walls
    from gamenav.runtime._obstacle_walls import bucket_index, edge_rows

    grid = gamenav.TileGrid(np.ones((10, 10), bool))
    box = shapely.box(0.2, 3.0, 1.4, 6.0)
    passable, _ = grid._kernel_arrays()
    pos = np.array([[x, y]])
    discs_off_walls(pos, np.full(1, radius), passable, blocked_table(passable, grid._y_up),
                    bucket_index(edge_rows(box), grid), *grid._origin, grid._cell_size, grid._y_up)
    assert not box.contains(shapely.Point(pos[0]))
    assert 0.0 <= pos[0, 0] <= 10.0 and 0.0 <= pos[0, 1] <= 10.0
