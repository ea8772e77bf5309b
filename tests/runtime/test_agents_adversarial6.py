"""Adversarial review 6: crowds and followers on changing worlds."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest
import shapely

import gamenav
from gamenav import Crowd, TileGrid
from gamenav.runtime._obstacle_walls import edge_rows


def _deepest_in_obstacles(seed: int, frames: int) -> tuple[float, Crowd]:
    """A crowd on a navmesh world whose obstacles (on the mesh only) drop round its agents every few
    frames, some taken away again: the deepest any agent centre stood inside one."""
    rng = np.random.default_rng(seed)
    mesh = gamenav.NavMesh.from_polygons([(0, 0), (30, 0), (30, 20), (0, 20)])
    grid = TileGrid(np.ones((20, 30), bool))
    n = 12
    crowd = Crowd(grid, rng.uniform((1, 1), (29, 19), (n, 2)), radius=0.3, max_speed=3.0, world=mesh)
    obstacles: dict[int, shapely.Polygon] = {}
    deepest = 0.0
    for f in range(frames):
        if f % 50 == 0:
            crowd.move(np.arange(n), tuple(rng.uniform((2, 2), (28, 18))), formation=bool(rng.integers(2)))
        if f % 7 == 0:
            x, y = crowd.positions[rng.integers(n)]
            w = rng.uniform(0.5, 3.0)
            box = shapely.box(x - w * rng.uniform(0.2, 0.8), y - w * rng.uniform(0.2, 0.8), x + w, y + w)
            obstacles[mesh.add_obstacle(box)] = box
        if f % 23 == 0 and obstacles:
            gone = list(obstacles)[rng.integers(len(obstacles))]
            mesh.remove_obstacle(gone)
            del obstacles[gone]
        crowd.update(1 / 30)
        union = shapely.unary_union(list(obstacles.values()))
        points = shapely.points(crowd.positions)
        inside = shapely.contains(union, points)
        if inside.any():
            deepest = max(deepest, float(shapely.distance(union.boundary, points[inside]).max()))
    return deepest, crowd


def test_crowd_steering_keeps_off_navmesh_only_obstacles() -> None:
    """Steering's walls were the grid's blocked cells only: an obstacle added with
    ``mesh.add_obstacle`` (not on the grid) was no wall to it, and agents re-pathed beside it cut
    into it (1.28 units deep; agents that stood off the mesh walked across it). The cells an
    obstacle covers (centre inside) are walls of the steering now: a centre gets in about as far as
    half a cell less the radius (a little further where obstacles overlap)."""
    deepest, _ = _deepest_in_obstacles(1, 70)
    assert deepest <= 0.35


class _HookQueue(gamenav.PathQueue):
    """A PathQueue whose ``request`` first runs the functions put in ``hook`` (once), as a
    ``__del__`` that a garbage collection runs inside ``Crowd.update`` could."""

    hook: list[Callable[[], object]]

    def request(self, *args: Any, **kwargs: Any) -> Any:
        while self.hook:
            self.hook.pop()()
        return super().request(*args, **kwargs)


def _walking_crowd() -> Crowd:
    """Three agents on their way; one path request is sent per update, the last in the next one."""
    queue = _HookQueue(budget_ms=None, max_expansions=100_000)
    queue.hook = []
    grid = TileGrid(np.ones((12, 12), bool))
    crowd = Crowd(grid, [(1.5, 1.5), (1.5, 5.5), (1.5, 9.5), (6.5, 1.5)], radius=0.3, max_speed=3.0,
                  requests_per_update=1, queue=queue)
    for k, goal in enumerate([(10.5, 9.5), (10.5, 5.5), (10.5, 1.5), (6.5, 10.5)]):
        crowd.move([k], goal)
    for _ in range(2):
        queue.update()
        crowd.update(1 / 30)
    assert crowd.pending == 2  # (one request not sent yet)
    return crowd


@pytest.mark.parametrize("change", ["remove", "add"])
def test_agents_added_or_removed_during_an_update_join_or_leave_at_its_end(change: str) -> None:
    """``crowd.remove`` / ``crowd.add`` called from inside ``Crowd.update`` (a ``__del__`` run by a
    collection there) changed the state arrays in the middle of it: its steering arrays, made for
    the rows before, went with the rows after (agents steered by others' targets), or past them
    into the kernels. They take effect when the update ends: the crowd moves as if they came after it."""
    crowd, twin = _walking_crowd(), _walking_crowd()

    def act(c: Crowd) -> None:
        c.remove([0]) if change == "remove" else c.add([(2.2, 5.5)])

    crowd.queue.hook.append(lambda: act(crowd))
    for c in (crowd, twin):
        c.queue.update()
        c.update(1 / 30)
    assert not crowd.queue.hook  # (it ran inside the update)
    act(twin)
    assert crowd.ids.tolist() == twin.ids.tolist()
    assert np.array_equal(crowd.positions, twin.positions)
    assert np.array_equal(crowd.velocities, twin.velocities)


def test_pushed_out_counts_only_agents_an_edit_moved() -> None:
    """``counters["pushed_out"]`` counted an agent on a newly blocked cell that the edit could not
    move (every cell blocked: it stays where it stands) as pushed out; it counts those moved only."""
    grid = TileGrid(np.ones((3, 3), bool))
    crowd = Crowd(grid, [(1.5, 1.5)], radius=0.3, max_speed=1.0)
    for x, y in [(x, y) for y in range(3) for x in range(3) if (x, y) != (1, 1)] + [(1, 1)]:
        grid.set_walkable((x, y), False)
    assert crowd.positions.tolist() == [[1.5, 1.5]]
    assert crowd.counters["pushed_out"] == 0
    grid.set_walkable((0, 0), True)
    grid.set_walkable((1, 1), True)
    grid.set_walkable((1, 1), False)  # (now it moves to the free corner cell)
    assert crowd.positions.tolist() == [[0.5, 0.5]]
    assert crowd.counters["pushed_out"] == 1


def test_a_follower_standing_still_has_no_velocity() -> None:
    """A follower kept the velocity of its last step once it stood still: arrived (it reported
    walking at full speed at its goal), or waiting for the new path an edit asked for. It is zero
    whenever the follower does not walk; while it walks, its last step's move over ``dt``."""
    grid = TileGrid(np.ones((5, 12), bool))
    queue = gamenav.PathQueue(budget_ms=None, max_expansions=100_000)
    agent = gamenav.Follower(grid, (0.5, 2.5), speed=3.0, queue=queue)
    agent.move_to((11.5, 2.5))
    for _ in range(10):
        queue.update()
        before = agent.position
        agent.update(0.1)
    assert agent.velocity == pytest.approx(((agent.position[0] - before[0]) / 0.1, 0.0))
    assert agent.velocity[0] > 0
    grid.set_walkable((8, 2), False)  # across its way: it waits for a new path (the queue not updated yet)
    here = agent.position
    agent.update(0.1)
    assert agent.position == here and agent.velocity == (0.0, 0.0)
    assert agent._crowd.velocities[0].tolist() == [0.0, 0.0]
    for _ in range(100):
        queue.update()
        agent.update(0.1)
        if agent.arrived:
            break
    assert agent.arrived and agent.velocity == (0.0, 0.0)
    assert agent._crowd.velocities[0].tolist() == [0.0, 0.0]


def assert_obstacle_walls(crowd: Crowd, *shapes: shapely.Geometry) -> None:
    """The crowd's steering walls are the edges of the union of ``shapes`` (none inside it), and
    its bucket index finds each: a disc on each edge's midpoint is pushed off the union."""
    union = shapely.unary_union(shapes) if shapes else shapely.Polygon()
    expected = edge_rows(union)[:, :4]
    table = crowd._walls.table[0][:, :4]
    assert sorted(map(tuple, table.round(9).tolist())) == sorted(map(tuple, expected.round(9).tolist()))
    discs = (expected[:, :2] + expected[:, 2:]) / 2
    crowd._discs_off_walls(discs, np.full(len(discs), 0.2))
    assert (shapely.distance(union, shapely.points(discs)) >= 0.2 - 1e-6).all()


@pytest.mark.parametrize("y_up", [False, True])
def test_steering_walls_of_navmesh_obstacles_on_a_y_up_grid(y_up: bool) -> None:
    """The cells a navmesh world's obstacles cover were marked for steering only in a row or two of
    a ``y_up`` grid (the box clipped to the grid's extent read its corners' rows as top and bottom:
    an obstacle of 6 rows was a wall in 2 of them), so agents cut into the rest. Every obstacle
    edge is a wall of the steering now: those there when the crowd is made, added and removed since."""
    x0, y0 = 100.0, -50.0
    grid = TileGrid(np.ones((10, 20), bool), cell_size=2.0, origin=(x0, y0), y_up=y_up)
    mesh = gamenav.NavMesh.from_polygons([(x0, y0), (x0 + 40, y0), (x0 + 40, y0 + 20), (x0, y0 + 20)])
    first, second = shapely.box(x0 + 4.5, y0 + 2.5, x0 + 15.5, y0 + 17.5), shapely.box(x0 + 25, y0 + 5, x0 + 31, y0 + 9)
    mesh.add_obstacle(first)
    crowd = Crowd(grid, [(x0 + 1, y0 + 1)], radius=0.5, max_speed=2.0, world=mesh)
    assert_obstacle_walls(crowd, first)
    oid = mesh.add_obstacle(second)
    crowd.update(1 / 30)
    assert_obstacle_walls(crowd, first, second)
    mesh.remove_obstacle(oid)
    crowd.update(1 / 30)
    assert_obstacle_walls(crowd, first)


@pytest.mark.parametrize("avoidance", ["separation", "orca"])
def test_an_agent_an_obstacle_lands_on_leaves_the_cells_it_covers(avoidance: str) -> None:
    """An agent an obstacle was added on moved to the obstacle's border, on a cell the obstacle
    covers (its centre inside), a wall of the steering: with ``avoidance="separation"`` it stood
    there for good (every move stayed in the cell), and failed its next order. It moves off the
    obstacle at once (as far as its radius)."""
    mesh = gamenav.NavMesh.from_polygons([(0, 0), (20, 0), (20, 10), (0, 10)])
    grid = TileGrid(np.ones((10, 20), bool))
    crowd = Crowd(grid, [(5.3, 5.2)], radius=0.3, max_speed=3.0, world=mesh, avoidance=avoidance)
    mesh.add_obstacle(shapely.box(5.2, 3.0, 8.0, 7.0))
    assert crowd.positions[0, 0] == pytest.approx(5.2 - 0.3, abs=1e-6) and crowd.counters["pushed_out"] == 1
    crowd.move([0], (1.5, 5.5), formation=False)
    for _ in range(150):
        crowd.update(1 / 30)
    assert crowd.arrived[0] and not crowd.failed[0]


def test_group_fields_replanned_by_an_edit_are_restacked_without_gathering_every_cell(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """After a grid edit the crowd's next update took 3 times a normal one in the demo (18 ms, was 6):
    re-stacking each re-planned group field gathered the 9 neighbours of every cell of the map one
    by one (:func:`_field_near` of all cells, 6.6 ms a field). It takes the 3 x 3 minimum by shifted
    slices now, the same numbers (8 ms)."""
    import gamenav.runtime.crowd as crowd_module

    grid = TileGrid(np.ones((30, 40), bool))
    rng = np.random.default_rng(3)
    crowd = Crowd(grid, rng.uniform((1, 1), (12, 29), (20, 2)), radius=0.3, max_speed=3.0, flow_threshold=10)
    crowd.move(np.arange(20), (35.5, 15.5))
    crowd.update(1 / 30)
    wall = np.zeros(grid.shape, bool)
    wall[10:20, 20] = True
    grid.set_walkable(wall, False)  # (the field is planned again)
    gathered: list[int] = []
    near = crowd_module._field_near

    def counted(field: npt.NDArray[np.float64], cells: npt.NDArray[np.int64]) -> npt.NDArray[np.float64]:
        gathered.append(len(cells))
        return near(field, cells)

    monkeypatch.setattr(crowd_module, "_field_near", counted)
    crowd.update(1 / 30)
    assert crowd._fstack is not None and max(gathered, default=0) < grid.width * grid.height
    field = crowd.flow_fields[0]
    every = np.stack(np.meshgrid(np.arange(grid.width), np.arange(grid.height)), axis=-1).reshape(-1, 2)
    assert np.array_equal(crowd._fstack[2][0], near(field, every).reshape(grid.shape))
