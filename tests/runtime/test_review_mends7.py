"""Review mends of this session's commits (runtime)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import shapely

import gamenav
from gamenav import Crowd, TileGrid
from tests.runtime.test_agents_adversarial6 import _walking_crowd, assert_obstacle_walls


def test_a_navmesh_edit_merges_only_the_obstacles_near_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each edit of a navmesh world merged every obstacle of the mesh to mark the cells they cover
    for steering (400 small ones, like the demo's buildings: 45 ms an edit on the test machine). Only
    those the edited one meets are merged now (into the steering's obstacle edges), with the same
    walls: two touching obstacles have no wall on their common side, a removed one's are gone."""
    grid = TileGrid(np.ones((40, 60), bool))
    mesh = gamenav.NavMesh.from_polygons([(0, 0), (60, 0), (60, 40), (0, 40)])
    far = [shapely.box(x, 30.2, x + 1.6, 31.8) for x in range(2, 58, 3)]
    for box in far:
        mesh.add_obstacle(box)
    crowd = Crowd(grid, [(5.5, 5.5)], radius=0.3, max_speed=2.0, world=mesh)
    assert_obstacle_walls(crowd, *far)
    merged: list[int] = []
    union_all = shapely.union_all

    def counted(geometries: Any, *args: Any, **kwargs: Any) -> Any:
        merged.append(len(geometries))
        return union_all(geometries, *args, **kwargs)

    monkeypatch.setattr(shapely, "union_all", counted)
    monkeypatch.setattr(shapely, "unary_union", counted)
    left, right = shapely.box(20.1, 10.1, 22.5, 12.9), shapely.box(22.5, 10.1, 24.9, 12.9)
    gone = mesh.add_obstacle(left)
    mesh.add_obstacle(right)
    crowd.positions  # noqa: B018  (the crowd acts on the edits)
    assert 0 < max(merged) <= 2
    monkeypatch.undo()
    assert_obstacle_walls(crowd, *far, left, right)  # (the side both share is no wall: inside their union)
    mesh.remove_obstacle(gone)
    crowd.positions  # noqa: B018
    assert_obstacle_walls(crowd, *far, right)


def test_a_navmesh_world_without_obstacles_keeps_its_paths_ends() -> None:
    """2cc4157 moved every navmesh path's points off the grid's walls by the agent's radius, also
    on a world without obstacles, whose mesh keeps to those walls as before: agents squeezing
    through gaps were wedged on the moved corners (3 random maps of 40 x 30 cells, 16 agents
    each: 23 of 48 arrived, 38 before). Corners move radially off the wall corners they round now,
    where the disc fits (tests/runtime/test_crowd_mesh_walls.py); the ends stay as found."""
    walk = np.ones((10, 10), bool)
    walk[:8, 5] = False
    grid = TileGrid(walk)
    mesh = gamenav.NavMesh.from_grid(grid)
    crowd = Crowd(grid, [(2.5, 2.5)], radius=0.35, max_speed=3.0, world=mesh)
    crowd.move([0], (7.5, 2.5))
    path = gamenav.find_path(mesh, (2.5, 2.5), (7.5, 2.5))
    assert path.points.tolist() == [[2.5, 2.5], [5.0, 8.0], [6.0, 8.0], [7.5, 2.5]]  # (round the wall's end)
    crowd._install(0, path)  # (as the answer to its request is)
    assert crowd._paim[crowd._pend[0] - 1].tolist() == [7.5, 2.5]
    assert crowd.goals[0].tolist() == [7.5, 2.5]


def test_an_answer_searched_again_before_its_callback_counts_once() -> None:
    """An answer waiting for its ``on_done`` that an edit outdated (889b82d) was searched again
    without counting a restart, and its request's latency was counted twice (the first answer's
    too): one request answered in 1 frame showed a latency p50 of 0.5. A request's latency is
    counted when it is delivered, and the new search counts as a restart."""
    grid = TileGrid(np.ones((20, 20), bool))
    queue = gamenav.PathQueue(budget_ms=100)
    done: list[gamenav.PathRequest] = []
    req = queue.request(grid, (0, 10), (19, 10), on_done=done.append, quick_expansions=10_000)
    assert req.done and not done  # (answered at once; its callback waits for an update)
    wall = np.zeros(grid.shape, bool)
    wall[5:15, 10] = True
    grid.set_walkable(wall, False)  # (crosses the path: searched again)
    for _ in range(3):
        queue.update()
    stats = queue.stats
    assert done == [req] and req.status is gamenav.PathStatus.FOUND and req.path.cost > 19
    assert (stats.completed, stats.restarts, stats.latency_p50, stats.latency_max) == (1, 1, 1, 1)


def test_an_update_from_code_an_update_runs_does_nothing() -> None:
    """An update called from code an update runs (a ``__del__``) ran a whole update inside it and,
    ending, marked the crowd as no longer updating (c2578b2): agents added after it in the outer
    update (another ``__del__``) changed its arrays in the middle of it again. It does nothing
    now; the agents added join when the outer update ends."""
    crowd, twin = _walking_crowd(), _walking_crowd()
    crowd.queue.hook += [lambda: crowd.add([(2.2, 5.5)]), lambda: crowd.update(1 / 30)]  # (the last runs first)
    for c in (crowd, twin):
        c.queue.update()
        c.update(1 / 30)
    assert not crowd.queue.hook  # (they ran inside the update)
    twin.add([(2.2, 5.5)])
    assert crowd.ids.tolist() == twin.ids.tolist()
    assert np.array_equal(crowd.positions, twin.positions)
    assert np.array_equal(crowd.velocities, twin.velocities)


@pytest.mark.parametrize("assigned", [False, True])
def test_an_agent_inside_an_obstacle_of_its_new_navmesh_world_walks_out(assigned: bool) -> None:
    """Since 2cc4157 steering keeps agents off a navmesh world's obstacles, but leads none out of
    them: an agent standing in an obstacle of the mesh it was given (a crowd made with
    ``world=mesh``, or ``world`` assigned) stood there and gave up (before 2cc4157 it walked out
    and arrived). It moves out of it by its radius when the world is set, as after an edit."""
    mesh = gamenav.NavMesh.from_polygons([(0, 0), (20, 0), (20, 10), (0, 10)])
    box = shapely.box(5.2, 3.0, 8.0, 7.0)
    mesh.add_obstacle(box)
    grid = TileGrid(np.ones((10, 20), bool))
    crowd = Crowd(grid, [(6.5, 5.2)], radius=0.3, max_speed=3.0, world=None if assigned else mesh)
    if assigned:
        crowd.world = mesh
    assert box.distance(shapely.Point(crowd.positions[0])) >= 0.3 - 1e-6 and crowd.counters["pushed_out"] == 1
    crowd.move([0], (1.5, 5.5), formation=False)
    for _ in range(150):
        crowd.update(1 / 30)
    assert crowd.arrived[0] and not crowd.failed[0]


def test_points_of_a_disc_as_big_as_the_map_are_checked_without_a_grid_each() -> None:
    """The check whether a navmesh path's point lies by an obstacle (00b98b9) gathered every cell
    of each point's disc box: a disc as big as the map (a radius is only capped at the map's size)
    gathered the whole grid per point (a 144 MB peak for 40 points on 300 x 300 cells).
    Each box is tested as a slice now."""
    import tracemalloc

    grid = TileGrid(np.ones((300, 300), bool))
    mesh = gamenav.NavMesh.from_polygons([(0, 0), (300, 0), (300, 300), (0, 300)])
    mesh.add_obstacle(shapely.box(100.2, 100.2, 110.8, 110.8))
    crowd = Crowd(grid, [(5.5, 5.5)], radius=1e6, max_speed=2.0, world=mesh)
    points = np.stack([np.linspace(1, 299, 40), np.linspace(299, 1, 40)], axis=1)
    first = crowd._off_walls(points, 1e6)  # (the steering's tables made)
    tracemalloc.start()
    try:
        again = crowd._off_walls(points, 1e6)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 4 << 20, f"{peak} bytes allocated"
    assert np.array_equal(again, first)
    # (by the obstacle, whose edge is x = 100.2: moved off it by the radius)
    assert crowd._off_walls(np.array([[100.0, 105.5]]), 0.3)[0, 0] == pytest.approx(99.9, abs=1e-6)
