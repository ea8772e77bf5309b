"""Agents on changing worlds, fourth round: followers and crowds re-planning where their paths put
them, small formations, and worlds edited under them."""

from __future__ import annotations

import gc
import weakref
from typing import Any

import numpy as np
import pytest
import shapely

import gamenav
from gamenav import Crowd, PathQueue, TileGrid
from gamenav.runtime import crowd as crowd_module


def test_small_formation_plans_only_the_cells_its_slots_can_lie_on(monkeypatch: pytest.MonkeyPatch) -> None:
    """A formation of fewer than ``flow_threshold`` agents planned a distance field of the whole map
    for its slots (25 ms per order on 1024 x 1024); it plans the window its slot budget reaches,
    and its slots and their costs are those of the whole map's field."""
    rng = np.random.default_rng(3)
    walk = rng.random((120, 150)) > 0.2
    cost = np.where(rng.random(walk.shape) < 0.3, 3.0, 1.0)
    grid = TileGrid(walk, cost=cost)
    free = np.argwhere(walk)[:: 997][:6]
    crowd = Crowd(grid, grid.cell_to_world(free[:, ::-1]), radius=0.3, max_speed=2.0, queue=PathQueue())
    planned: list[tuple[int, int]] = []
    field_of = crowd_module._distance_field

    def spy(g: TileGrid, *args: Any, **kwargs: Any) -> Any:
        planned.append(g.shape)
        return field_of(g, *args, **kwargs)

    monkeypatch.setattr(crowd_module, "_distance_field", spy)
    crowd.move(np.arange(6), (75.3, 60.6))
    assert planned and max(h * w for h, w in planned) <= 41 * 41  # (budget 2 * (sqrt(6) + 4) cells each way)
    goals = grid.world_to_cell(crowd.goals)
    target = crowd._snap_cell(grid.world_to_cell(np.array([75.3, 60.6])))
    whole = gamenav.distance_field(grid, tuple(target.tolist()))
    assert len({tuple(c) for c in goals.tolist()}) == 6
    np.testing.assert_array_equal(crowd._slot_cost, whole[goals[:, 1], goals[:, 0]])


def _bow_tie() -> gamenav.NavMesh:
    """A 10 x 10 room with two thin walls pointing at (5, 5) from the right, touching there: a
    pinch point, round which the left region's paths turn (from (5, 1) to (6, 8): via (5, 5));
    the wedge between the walls (e.g. (7, 5)) is reached round their far ends."""
    return gamenav.NavMesh.from_polygons([(0, 0), (10, 0), (10, 10), (0, 10)], obstacles=[
        shapely.Polygon([(5, 5), (8, 1), (9, 2)]), shapely.Polygon([(5, 5), (9, 8), (8, 9)])])


def test_follower_standing_on_a_pinch_waypoint_of_its_path_plans_again() -> None:
    """A follower stopped exactly on its path's waypoint at a pinch point and ordered on got
    NO_PATH (the search refuses a start there) and failed for good; its start is now taken a
    hair's breadth into the triangle it came from: it walks round the walls to the far wedge
    (not through the pinch, a path of 2) and to a goal on its side."""
    mesh = _bow_tie()
    assert gamenav.find_path(mesh, (5, 1), (6, 8)).points.tolist() == [[5, 1], [5, 5], [6, 8]]
    agent = gamenav.Follower(TileGrid(np.ones((10, 10), bool)), (5, 1), speed=15.0, world=mesh)
    agent.move_to((6, 8))
    for _ in range(8):
        agent.update(1 / 30)
    assert agent.position == (5.0, 5.0)
    agent.move_to((7, 5))
    assert agent.path.status.name == "FOUND" and not agent.failed
    assert agent.path.cost > 9.0 and [8, 1] in agent.path.points.tolist()  # round the upper wall's far end
    for _ in range(300):
        agent.update(1 / 30)
    assert agent.arrived and agent.position == (7.0, 5.0)


def test_crowd_agents_ordered_onto_and_off_a_pinch_point_arrive() -> None:
    """A goal exactly on a pinch point (no path to it) and a start there (no path from it): the
    crowd's agents failed; they arrive now."""
    grid = TileGrid(np.ones((10, 10), bool))
    crowd = Crowd(grid, [(2.5, 5.0)], radius=0.25, max_speed=2.0, world=_bow_tie())
    crowd.move([0], (5.0, 5.0), formation=False)
    assert crowd.path(0).status.name == "FOUND"
    for _ in range(120):
        crowd.update(1 / 30)
    assert crowd.arrived[0] and not crowd.failed[0]
    crowd.place([0], [(5.0, 5.0)])
    crowd.move([0], (2.5, 8.5), formation=False)
    assert crowd.path(0).status.name == "FOUND"
    for _ in range(240):
        crowd.update(1 / 30)
    assert crowd.arrived[0] and np.hypot(*(crowd.positions[0] - (2.5, 8.5))) <= crowd.arrive_radius


def _room_mesh() -> gamenav.NavMesh:
    return gamenav.NavMesh.from_polygons([(0, 0), (20, 0), (20, 10), (0, 10)])


@pytest.mark.parametrize("queued", [False, True])
def test_an_obstacle_added_to_the_navmesh_world_reroutes_the_agents_it_meets(queued: bool) -> None:
    """The crowd heard only its grid's edits: a follower on a navmesh world walked 30 frames
    through an obstacle added across its way (`mesh.add_obstacle`); it re-paths round it now."""
    mesh = _room_mesh()
    queue = PathQueue() if queued else None
    agent = gamenav.Follower(TileGrid(np.ones((10, 20), bool)), (1.5, 5.0), speed=2.0, world=mesh, queue=queue)
    agent.move_to((18.5, 5.0))
    for _ in range(30):
        if queue is not None:
            queue.update()
        agent.update(1 / 30)
    mesh.add_obstacle([(9, 2), (11, 2), (11, 8), (9, 8)])
    assert agent._crowd.pending == 1
    inside = 0
    for _ in range(400):
        if queue is not None:
            queue.update()
        agent.update(1 / 30)
        x, y = agent.position
        inside += 9 < x < 11 and 2 < y < 8
    assert inside == 0 and agent.arrived and agent.position == (18.5, 5.0)
    assert any(y <= 2 or y >= 8 for _, y in agent.path.points.tolist())  # round the obstacle


def test_agents_that_failed_on_a_navmesh_world_try_again_once_an_obstacle_is_removed() -> None:
    """A wall across the navmesh world cuts the agent off its goal (it fails); removing it left
    the agent failed for good; it now tries again and arrives. Once the world is the grid again,
    the mesh's edits are not followed."""
    mesh = _room_mesh()
    grid = TileGrid(np.ones((10, 20), bool))
    crowd = Crowd(grid, [(1.5, 5.0)], radius=0.25, max_speed=4.0, world=mesh)
    wall = mesh.add_obstacle([(9, -1), (11, -1), (11, 11), (9, 11)])
    crowd.move([0], (18.5, 5.0))
    assert crowd.failed[0]
    mesh.remove_obstacle(wall)
    assert not crowd.failed[0] and crowd.pending == 1
    for _ in range(200):
        crowd.update(1 / 30)
    assert crowd.arrived[0] and not crowd.failed[0]
    crowd.world = grid
    crowd.move([0], (1.5, 5.0))
    requests = crowd.counters["path_requests"]
    mesh.add_obstacle([(0.5, 4), (3, 4), (3, 6), (0.5, 6)])
    crowd.update(1 / 30)
    assert crowd.counters["path_requests"] == requests


def test_a_dropped_crowd_is_not_kept_alive_by_its_navmesh_world() -> None:
    mesh = _room_mesh()
    crowd = Crowd(TileGrid(np.ones((10, 20), bool)), [(1.5, 5.0)], radius=0.25, max_speed=4.0, world=mesh)
    crowd.move([0], (18.5, 5.0))
    ref = weakref.ref(crowd)
    del crowd
    gc.collect()
    assert ref() is None
    mesh.add_obstacle([(9, 2), (11, 2), (11, 8), (9, 8)])  # (no listener left to call)


def test_an_agent_standing_on_a_pinch_point_between_islands_plans_on_its_goals_island() -> None:
    """Two islands touching only at (4, 4): a square, and a C round it whose far end lies in
    the square's direction from the pinch. An agent standing there (no way it came from) was
    nudged towards its goal, into the square: no path; it takes the side on its goal's island."""
    mesh = gamenav.NavMesh.from_polygons([
        shapely.Polygon([(0, 0), (4, 0), (4, 4), (0, 4)]),
        shapely.Polygon([(4, 4), (6, 4), (6, -1), (0, -1), (0, -4), (8, -4), (8, 8), (4, 8)])])
    assert len(set(mesh.islands.tolist())) == 2
    grid = TileGrid(np.ones((12, 8), bool), origin=(0, -4))
    crowd = Crowd(grid, [(4.0, 4.0)], radius=0.25, max_speed=4.0, world=mesh)
    crowd.move([0], (2.0, -2.5), formation=False)
    assert crowd.path(0).status.name == "FOUND" and crowd.path(0).cost > 10.0  # round the C
    for _ in range(200):
        crowd.update(1 / 30)
    assert crowd.arrived[0] and not crowd.failed[0]


def _depth(point: Any, box: tuple[float, float, float, float]) -> float:
    """How deep ``point`` lies inside ``box`` (x0, y0, x1, y1): <= 0 outside."""
    x, y = point
    return min(x - box[0], box[2] - x, y - box[1], box[3] - y)


@pytest.mark.parametrize("edit", [False, True])
@pytest.mark.parametrize("make", ["follower", "crowd"])
def test_a_goal_off_the_navmesh_world_is_its_nearest_point_not_walked_into(make: str, edit: bool) -> None:
    """A goal inside a navmesh obstacle (given there, or an obstacle added on it) was searched
    from its nearest mesh point, but the agent then went on straight to the goal itself, 1 unit
    deep into the obstacle. The goal is now the path's end, the nearest point of the mesh."""
    box = (13.0, 3.0, 17.0, 7.0)
    square = [(13, 3), (17, 3), (17, 7), (13, 7)]
    mesh = _room_mesh()
    if not edit:
        mesh.add_obstacle(square)
    grid = TileGrid(np.ones((10, 20), bool))
    if make == "follower":
        follower = gamenav.Follower(grid, (1.5, 5.0), speed=3.0, world=mesh)
        follower.move_to((14.0, 5.0))
        crowd = follower._crowd
    else:
        crowd = Crowd(grid, [(1.5, 5.0)], radius=0.25, max_speed=3.0, world=mesh)
        crowd.move([0], (14.0, 5.0), formation=False)
    deepest = -1.0
    for frame in range(300):
        if edit and frame == 20:
            mesh.add_obstacle(square)
        crowd.update(1 / 30)
        deepest = max(deepest, _depth(crowd.positions[0], box))
    # (the goal: on the obstacle's nearest edge, x = 13, or as far out as the disc's radius, 0.25,
    # where the disc fits off the obstacle's exact edges)
    goal_x, goal_y = crowd.goals[0].tolist()
    assert crowd.arrived[0] and 12.75 - 1e-6 <= goal_x <= 13.0 and goal_y == pytest.approx(5.0)
    assert deepest <= (0.0 if make == "follower" else 0.25)  # (a crowd agent steers: within its radius)


def test_a_queued_answer_from_before_a_navmesh_edit_is_checked_against_it() -> None:
    """A path the queue answered before an obstacle was added, collected after it, was followed
    through the obstacle (1 unit deep); it is checked like the routes held at the edit."""
    mesh = _room_mesh()
    queue = PathQueue()
    agent = gamenav.Follower(TileGrid(np.ones((10, 20), bool)), (1.5, 5.0), speed=3.0, world=mesh, queue=queue)
    agent.move_to((18.5, 5.0))
    queue.update()  # answered, not collected yet
    mesh.add_obstacle([(9, 2), (11, 2), (11, 8), (9, 8)])
    deepest = -1.0
    for _ in range(400):
        queue.update()
        agent.update(1 / 30)
        deepest = max(deepest, _depth(agent.position, (9.0, 2.0, 11.0, 8.0)))
    assert agent.arrived and deepest <= 0.0


def test_navmesh_request_ends_are_located_once_when_none_is_on_a_pinch_point(monkeypatch: pytest.MonkeyPatch) -> None:
    """(A mend of the pinch-point ends above: each path request located its start and goal four
    times, for their islands and their pinch points, though ends on a pinch point are rare: 495 us
    of ends against 186 before, for a 370 us search.) Both ends are located in one look-up; the
    islands only when an end is on a pinch point, and such ends still move off it."""
    mesh = _bow_tie()
    grid = TileGrid(np.ones((10, 10), bool))
    crowd = Crowd(grid, [(2.5, 5.0), (1.5, 1.5)], radius=0.25, max_speed=2.0, world=mesh)
    state_type = type(mesh._snapshot())
    looked: list[int] = []
    locate = state_type._locate

    def counted(self: Any, points: Any) -> Any:
        looked.append(len(points))
        return locate(self, points)

    monkeypatch.setattr(state_type, "_locate", counted)
    mesh.nearest(np.full((2, 2), 1.5))  # (the ends are snapped onto the mesh first: its own look-ups)
    snapping = len(looked)
    looked.clear()
    crowd._goal[:] = [(7.5, 8.5), (2.5, 8.5)]
    starts, goals = crowd._mesh_ends(np.arange(2))
    assert len(looked) == 2 * snapping + 1 and looked[-1] == 4  # (it was 2 * snapping + 4)
    np.testing.assert_array_equal(np.concatenate([starts, goals]), [(2.5, 5.0), (1.5, 1.5), (7.5, 8.5), (2.5, 8.5)])
    crowd._goal[1] = (5.0, 5.0)  # on the pinch point: moved off it, into the start's side
    starts, goals = crowd._mesh_ends(np.arange(2))
    assert len(looked) > 2 and 0 < np.hypot(*(goals[1] - (5.0, 5.0))) < 1e-3 and goals[1][0] < 5.0
