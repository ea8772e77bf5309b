"""Agents on changing worlds, fifth round: units too big for their way, worlds edited under idle
agents, many removals, grid subclasses."""

from __future__ import annotations

import numpy as np
import pytest

import gamenav
from gamenav import Crowd, TileGrid


def _corridor_grid() -> TileGrid:
    """A 30 x 9 room cut by a wall 10 cells thick with a 1-cell corridor through it (row 4)."""
    walk = np.ones((9, 30), bool)
    walk[:, 10:20] = False
    walk[4, 10:20] = True
    return TileGrid(walk)


def _seconds_to_end(crowd: Crowd, agents: list[int], most: float) -> float:
    """Simulated seconds until every agent of ``agents`` arrived or failed (at most ``most``)."""
    dt = 1 / 30
    for frame in range(int(most / dt)):
        crowd.update(dt)
        if (crowd.arrived | crowd.failed)[agents].all():
            return (frame + 1) * dt
    return most


def test_a_unit_too_big_for_a_corridor_fails_as_soon_with_an_idle_unit_near_as_alone() -> None:
    """A 0.7-cell unit walking a navmesh route through a 1-cell corridor is held at its mouth by the
    walls. Alone it failed after 7 s; with an idle unit 5 cells behind it (within ORCA's reach) it
    counted as jammed and failed after 81 s. Idle units and units behind it make no jam now."""
    grid = _corridor_grid()
    mesh = gamenav.NavMesh.from_grid(grid)
    times = []
    for positions in ([(3.5, 4.5)], [(3.5, 4.5), (8.5, 6.5)], [(3.5, 4.5), (4.5, 6.5)]):
        crowd = Crowd(grid, positions, radius=0.7, max_speed=2.0, world=mesh)
        crowd.move([0], (25.5, 4.5), formation=False)
        times.append(_seconds_to_end(crowd, [0], 30.0))
        assert crowd.failed[0] and not crowd.arrived[0] and crowd.positions[0][0] < 10.0
    assert times[1] == times[2] == times[0] < 10.0


def test_a_small_unit_behind_a_unit_too_big_for_the_corridor_waits_then_reports_failure() -> None:
    """The big unit ahead fails promptly, and then stands idle in the corridor's mouth: the small one
    behind it waited in a jam for 81 s; it fails soon after the big one now."""
    grid = _corridor_grid()
    crowd = Crowd(grid, [(5.5, 4.5), (3.5, 4.5)], radius=[0.7, 0.3], max_speed=2.0,
                  world=gamenav.NavMesh.from_grid(grid))
    crowd.move([0, 1], (25.5, 4.5), formation=False)
    assert _seconds_to_end(crowd, [0, 1], 60.0) < 20.0
    assert crowd.failed.all()


def test_units_queueing_through_a_one_cell_corridor_all_get_through() -> None:
    """Units that fit the corridor wait behind each other in it (a jam with movers in front) and
    none gives up."""
    grid = _corridor_grid()
    starts = [(3.5 - 1.0 * k, 4.5) for k in range(4)] + [(3.5 - 1.0 * k, 2.5) for k in range(4)]
    crowd = Crowd(grid, starts, radius=0.4, max_speed=2.0)
    crowd.move(list(range(8)), (25.5, 4.5))
    _seconds_to_end(crowd, list(range(8)), 60.0)
    assert crowd.arrived.all() and not crowd.failed.any()


@pytest.mark.parametrize("make", ["crowd", "follower"])
def test_agents_on_a_grid_subclass_reporting_another_transform_move_as_on_the_grid_itself(make: str) -> None:
    """On a TileGrid subclass whose ``cell_size`` / ``origin`` / ``y_up`` properties report another
    transform (2, (100, 0), y up) than its own (1, (0, 0), y down: ``cell_to_world`` and every
    search's points use it), crowds read the reported one: radii planned in cells of 2 (a unit of
    radius 1 was planned as a point), formation slots, steering and walls in another place than
    the agents' points. They read the grid's own now, and move exactly as on a plain grid."""
    from tests.grid.test_fast_path import ReportedTransformGrid

    walk = np.ones((12, 16), bool)
    walk[3:9, 7] = False
    walk[5, 3:7] = False
    tracks = []
    for grid in (ReportedTransformGrid(walk), TileGrid(walk)):
        if make == "follower":
            agent = gamenav.Follower(grid, (1.5, 1.5), speed=3.0, radius=0.6)
            agent.move_to((13.5, 10.5))
            crowd = agent._crowd
        else:
            crowd = Crowd(grid, [(1.5, 1.5), (2.5, 1.5), (1.5, 3.5), (4.5, 8.5)], radius=[1.0, 0.3, 0.3, 0.3],
                          max_speed=3.0)
            crowd.move([0, 1, 2, 3], (12.5, 6.5))
        track = []
        for _ in range(150):
            crowd.update(1 / 20)
            track.append(crowd.positions.copy())
        tracks.append((np.array(track), crowd.goals.copy(), crowd.arrived.copy(), crowd.time_horizon_obst))
    (got, got_goals, got_arrived, got_horizon), (want, want_goals, want_arrived, want_horizon) = tracks
    np.testing.assert_array_equal(got_goals, want_goals)
    np.testing.assert_array_equal(got, want)
    assert want_arrived.all() and got_arrived.all() and got_horizon == want_horizon


def _battle(n: int = 60) -> tuple[TileGrid, Crowd, gamenav.PathQueue]:
    rng = np.random.default_rng(5)
    grid = TileGrid(np.ones((30, 30), bool))
    cells = rng.permutation(900)[:n]
    queue = gamenav.PathQueue(budget_ms=None, max_expansions=400)  # (the same answers whatever the clock)
    crowd = Crowd(grid, grid.cell_to_world(np.stack([cells % 30, cells // 30], axis=1)), radius=0.3,
                  max_speed=2.0, queue=queue, requests_per_update=7, flow_threshold=20)
    for k in range(0, n // 2, 3):  # small path orders: requests queued, waiting in the backlog, followed
        crowd.move(np.arange(k, k + 3), (float(rng.uniform(1, 29)), float(rng.uniform(1, 29))))
        if k == 12:
            queue.update()
            crowd.update(1 / 30)
    crowd.move(np.arange(n // 2, n), (15.5, 15.5))  # a group on a flow field
    return grid, crowd, queue


def _state(crowd: Crowd) -> dict[str, object]:
    """The crowd's per-agent arrays, id map, requests, routes, order records and fields (read after
    ``len``, which drops the rows of removed agents)."""
    n = len(crowd)
    rows = {name: getattr(crowd, name).copy() for name in Crowd._ROW_STATE}
    return {**rows, "row_of": crowd._row_of.copy(), "requests": sorted(crowd._requests), "len": n,
            "backlog": list(crowd._backlog), "routes": {i: p.points.tolist() for i, p in crowd._routes.items()},
            "given": dict(crowd._given), "fields": sorted(crowd._fields), "pending": crowd.pending}


def test_removing_agents_one_call_each_passes_over_the_crowd_once_with_the_same_result() -> None:
    """``remove`` compacted every per-agent array and re-keyed every pending request and route at
    each call: a battle removing 1000 of 2000 units one call each took 5.6 s here (quadratic). The
    rows are dropped once, when the crowd is next read or changed; the state is that of removing
    them all in one call (ids, the order of the rows left, requests, routes, orders, fields)."""
    dead = np.random.default_rng(1).permutation(60)[:35]
    _, one_by_one, _ = _battle()
    _, at_once, _ = _battle()
    arrays = one_by_one._pos
    for agent in dead.tolist():
        one_by_one.remove([agent])
    assert one_by_one._pos is arrays  # (no row dropped yet)
    at_once.remove(dead)
    got, want = _state(one_by_one), _state(at_once)
    assert got.keys() == want.keys() and want["len"] == 25 and len(want["_pos"]) == 25
    for key in want:
        np.testing.assert_equal(got[key], want[key], err_msg=key)
    assert sorted(one_by_one.ids.tolist()) == sorted(set(range(60)) - set(dead.tolist()))
    with pytest.raises(gamenav.InvalidInputError, match="unknown agent ids"):
        one_by_one.remove([int(dead[0])])


def test_agents_removed_then_edits_orders_and_masks_act_on_the_agents_left() -> None:
    """Between a removal and the next read, a grid edit (heard at once), an order, a placement and a
    removal by mask act on the agents left, as after a removal that compacted at once."""
    runs = []
    for lazy in (True, False):
        grid, crowd, queue = _battle()
        crowd.remove([3, 40])
        if not lazy:
            crowd._compact()
        grid.set_walkable((4, 14, 26, 15), False)  # a wall through the crowd and its target's row
        crowd.remove([7])
        crowd.move([0, 1, 2], (2.5, 27.5))
        crowd.remove([50])
        crowd.place([8], [(20.5, 20.5)])
        mask = np.zeros(len(crowd), bool)
        mask[[0, 5]] = True
        crowd.remove(mask)
        for _ in range(30):
            queue.update()
            crowd.update(1 / 30)
        runs.append((crowd.ids.copy(), crowd.positions.copy(), crowd.goals.copy(), crowd.pending))
    np.testing.assert_equal(runs[0], runs[1])
    ids, positions, _, _ = runs[0]
    assert not {0, 3, 6, 7, 40, 50}.intersection(ids.tolist()) and len(ids) == 54
    cells = grid.world_to_cell(positions)
    assert grid.passable[cells[:, 1], cells[:, 0]].all()


def _depth(point: object, box: tuple[float, float, float, float]) -> float:
    """How deep ``point`` lies inside ``box`` (x0, y0, x1, y1): <= 0 outside."""
    x, y = np.asarray(point, float)
    return float(min(x - box[0], box[2] - x, y - box[1], box[3] - y))


@pytest.mark.parametrize("make", ["follower", "crowd"])
def test_an_idle_agent_inside_a_new_navmesh_obstacle_moves_out_of_it(make: str) -> None:
    """An obstacle added with ``NavMesh.add_obstacle`` on an idle agent left it standing inside (its
    next order walked out of it from there), where a wall dropped on a grid world's agent moves it
    to the nearest free cell. It moves to the nearest point of the mesh now, and stays out."""
    mesh = gamenav.NavMesh.from_polygons([(0, 0), (20, 0), (20, 10), (0, 10)])
    grid = TileGrid(np.ones((10, 20), bool))
    if make == "follower":
        follower = gamenav.Follower(grid, (14.0, 5.2), speed=3.0, world=mesh)
        crowd = follower._crowd
        crowd.add([(3.0, 3.0)])  # (an agent away from the obstacle stays where it is)
    else:
        crowd = Crowd(grid, [(14.0, 5.2), (3.0, 3.0)], radius=0.25, max_speed=3.0, world=mesh)
    box = (13.0, 3.0, 17.0, 7.0)
    mesh.add_obstacle([(13, 3), (17, 3), (17, 7), (13, 7)])
    # (on to where its disc, radius 0.25, is off the obstacle's nearest exact edge, x = 13)
    out = [[12.75, 5.2], [3.0, 3.0]]
    assert np.allclose(crowd.positions, out, rtol=0, atol=1e-6) and crowd.counters["pushed_out"] == 1
    assert crowd.arrived.all() and (crowd.mode == 0).all()
    crowd.move([0], (15.0, 9.0), formation=False)
    deepest = -1.0
    for _ in range(150):
        crowd.update(1 / 30)
        deepest = max(deepest, _depth(crowd.positions[0], box))
    assert crowd.arrived[0] and deepest <= (0.0 if make == "follower" else 0.25)  # (a crowd agent steers)


def test_agents_off_a_navmesh_shrunk_by_a_radius_are_not_moved_by_an_edit_beside_them() -> None:
    """An agent standing off a mesh built with an ``agent_radius`` (nearer a wall than the radius)
    stood off it before the edit: it is not moved by an obstacle added near it."""
    mesh = gamenav.NavMesh.from_polygons([(0, 0), (20, 0), (20, 10), (0, 10)], agent_radius=0.5)
    grid = TileGrid(np.ones((10, 20), bool))
    crowd = Crowd(grid, [(14.0, 0.2), (14.0, 5.2)], radius=0.25, max_speed=3.0, world=mesh)
    mesh.add_obstacle([(13, 2), (17, 2), (17, 7), (13, 7)])
    assert crowd.positions[0].tolist() == [14.0, 0.2] and crowd.counters["pushed_out"] == 1
    assert mesh.locate(crowd.positions[1])[0] >= 0 and _depth(crowd.positions[1], (13.0, 2.0, 17.0, 7.0)) < 0.0


def test_a_wall_dropped_on_an_agent_of_a_mesh_following_the_grid_moves_it_as_on_the_grid() -> None:
    """(A mend of the push out of new navmesh obstacles above.) A mesh following the grid, made
    before the crowd, reports a grid edit to the crowd before the grid does: the agent on the new
    wall was moved to the wall's border by the mesh's edit, not to the centre
    of the nearest free cell as on the grid world. The grid's edit moves it, once."""
    ends = []
    for follow in (True, False):
        grid = TileGrid(np.ones((8, 8), bool))
        world = gamenav.NavMesh.from_grid(grid, follow=True) if follow else None
        crowd = Crowd(grid, [(4.8, 4.4)], radius=0.3, max_speed=2.0, world=world)
        grid.set_walkable((4, 4), False)
        ends.append((crowd.positions[0].tolist(), crowd.counters["pushed_out"]))
    assert ends[0] == ends[1] == ([5.5, 4.5], 1)


def test_an_agent_walking_straight_to_its_slot_asks_for_a_path_round_a_wall_dropped_across_its_way() -> None:
    """A unit near its slot walks straight to it (mode 3, direct). A wall dropped across that line
    re-routed path followers and group agents cut off from the field, not it: it walked into the
    wall and asked for a path only once stuck detection caught it (a navmesh world's edits re-route
    such agents). It asks for a path round the wall at the edit now."""
    grid = TileGrid(np.ones((12, 20), bool))
    crowd = Crowd(grid, [(1.5, 5.5)], radius=0.3, max_speed=3.0, flow_threshold=1, spacing=5.0)
    crowd.move([0], (15.5, 5.5))
    for _ in range(200):
        crowd.update(1 / 30)
        if crowd.mode[0] == 3:
            break
    x = int(crowd.positions[0][0]) + 2
    assert crowd.mode[0] == 3 and x < 15
    grid.set_walkable((x, 2, x + 1, 10), False)
    assert crowd.mode[0] != 3 and crowd.counters["edit_repaths"] == 1
    assert any(y <= 2.0 or y >= 10.0 for _, y in crowd.remaining_path(0).tolist())  # (round the wall)
    _seconds_to_end(crowd, [0], 20.0)
    assert crowd.arrived[0] and crowd.counters["stuck_repaths"] == 0
