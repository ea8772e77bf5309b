"""Agents on changing worlds, fifth round: units too big for their way, worlds edited under idle
agents, many removals, grid subclasses."""

from __future__ import annotations

import numpy as np

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

