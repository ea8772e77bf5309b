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
