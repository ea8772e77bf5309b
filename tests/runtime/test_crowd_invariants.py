"""Crowd invariants checked after every update, on random small maps and on degenerate cases.

The promises (``gamenav.runtime.crowd`` docstring, README "Many units"): no agent's centre ever
stands on a blocked cell; with ORCA, discs keep apart (within a small tolerance) and off blocked
cells when there is room; an agent ends ``arrived`` or ``failed`` (never both), and then it is
idle with no path request pending until its next order.
"""

from __future__ import annotations

import numpy as np
import pytest

import gamenav
from gamenav.runtime.crowd import IDLE


def check_state(crowd: gamenav.Crowd) -> None:
    """The invariants that hold after any update, however crowded or walled in."""
    g = crowd.grid
    pos = crowd.positions
    assert np.isfinite(pos).all() and np.isfinite(crowd.velocities).all()
    cells = g.world_to_cell(pos)
    inside = ((cells >= 0) & (cells < (g.width, g.height))).all(axis=1)
    assert inside.all(), f"centres off the map: rows {np.flatnonzero(~inside).tolist()}"
    free = g.passable[cells[:, 1], cells[:, 0]]
    assert free.all(), f"centres on blocked cells: rows {np.flatnonzero(~free).tolist()}"
    done = crowd.arrived | crowd.failed
    assert not (crowd.arrived & crowd.failed).any(), "arrived and failed at once"
    assert (crowd.mode[done] == IDLE).all(), "arrived or failed, yet still moving"
    assert crowd.pending == 0 or not done[crowd._pending_mask()].any(), "arrived or failed, yet a path pending"


# -- degenerate cases --------------------------------------------------------------------
def test_an_agent_that_arrives_while_a_repath_is_pending_stays_arrived() -> None:
    """Re-pathed (the world assigned) and arriving on its old route before the queue answers:
    the answer must not send an arrived agent off again."""
    grid = gamenav.TileGrid(np.ones((6, 12), bool))
    queue = gamenav.PathQueue()
    crowd = gamenav.Crowd(grid, [(1.5, 1.5)], radius=0.3, max_speed=4.0, queue=queue)
    crowd.move([0], (10.5, 1.5), formation=False)
    queue.update()
    crowd.update(1 / 30)
    crowd.world = grid  # every path follower re-paths; the queue is not updated meanwhile
    assert crowd.pending == 1
    for _ in range(200):
        crowd.update(1 / 30)
        if crowd.arrived[0]:
            break
    assert crowd.arrived[0]
    check_state(crowd)
    queue.update()
    crowd.update(1 / 30)
    check_state(crowd)
    assert crowd.arrived[0] and np.hypot(*(crowd.positions[0] - (10.5, 1.5))) < 0.25


def test_opposing_orders_in_a_one_cell_corridor_end_arrived_or_failed_never_both() -> None:
    """Stuck near their goals, agents are declared arrived: they must not also re-path (moving
    while arrived) or fail (arrived and failed) in the same stuck check."""
    grid = gamenav.TileGrid.from_strings(["##########", "..........", "##########"])
    crowd = gamenav.Crowd(grid, [(0.5, 1.5), (1.5, 1.5), (8.5, 1.5), (9.5, 1.5)], radius=0.4, max_speed=2.0)
    crowd.move([0, 1], (9.5, 1.5))
    crowd.move([2, 3], (0.5, 1.5))
    for _ in range(900):
        crowd.update(1 / 30)
        check_state(crowd)
    assert (crowd.arrived | crowd.failed).all()


@pytest.mark.parametrize("rows", [
    ["#######", "#.....#", "#####.#", "#.....#", "#######"],  # held up 4 cells from the goal
    ["################", "#..............#", "#############..#", "#..............#", "################"],
])
@pytest.mark.parametrize("radius", [0.55, 1.2])
def test_a_lone_unit_that_walls_hold_up_fails_and_is_not_arrived_off_its_goal(rows: list[str], radius: float) -> None:
    """No cell of the 1-cell corridor fits the unit (its path is planned as a point) and ORCA keeps
    its disc out of the walls: it gets stuck at the bend with nobody around. ORCA's bend counted
    the walls as a jam, so it was declared arrived near the goal, or waited as jammed for ever."""
    grid = gamenav.TileGrid.from_strings(rows)
    crowd = gamenav.Crowd(grid, [(1.5, 1.5)], radius=radius, max_speed=3.0)
    crowd.move([0], (1.5, 3.5), formation=False)
    for _ in range(900):
        crowd.update(1 / 30)
        check_state(crowd)
        if crowd.arrived[0] or crowd.failed[0]:
            break
    assert crowd.failed[0] or (crowd.arrived[0] and np.hypot(*(crowd.positions[0] - (1.5, 3.5))) < 0.5)


def test_stopping_a_unit_that_failed_makes_it_arrived_and_no_longer_failed() -> None:
    """``stop`` is an order: the unit counts as arrived where it stands, so not failed too."""
    grid = gamenav.TileGrid.from_strings(["..#..", "..#..", "..#.."])
    crowd = gamenav.Crowd(grid, [(0.5, 0.5), (1.5, 1.5)], radius=0.3, max_speed=2.0)
    crowd.move([0, 1], (4.5, 1.5))
    crowd.update(1 / 30)
    assert crowd.failed.all()
    crowd.stop([0])
    check_state(crowd)
    assert crowd.arrived[0] and not crowd.failed[0] and crowd.failed[1]
    agent = gamenav.Follower(grid, (0.5, 0.5), speed=2.0)
    agent.move_to((4.5, 0.5))
    agent.update(1 / 30)
    assert agent.failed
    agent.stop()
    assert agent.arrived and not agent.failed


@pytest.mark.parametrize("speeds", [(1.0, 2.0), (1.93, 3.75)])
def test_separation_units_sent_to_one_point_arrive_instead_of_circling_it(speeds: tuple[float, float]) -> None:
    """Two units ordered to the same exact point push each other round it: they kept moving, so
    never counted as stuck, and circled it for ever, neither arrived nor failed."""
    grid = gamenav.TileGrid(np.ones((9, 13), bool), cell_size=0.5)
    crowd = gamenav.Crowd(grid, [(0.6, 0.6), (5.5, 3.6)], radius=0.25, max_speed=np.array(speeds) * 0.5,
                          avoidance="separation")
    crowd.move([0, 1], (2.0, 2.2), formation=False)
    for _ in range(600):
        crowd.update(1 / 30)
        check_state(crowd)
    assert crowd.arrived.all()
    assert (np.hypot(*(crowd.positions - (2.0, 2.2)).T) < 1.0).all()


@pytest.mark.parametrize("avoidance", ["orca", "separation"])
@pytest.mark.parametrize("dt", [5e-324, 1e-310, 1e-200])
def test_velocities_stay_finite_and_capped_over_a_vanishing_dt(avoidance: str, dt: float) -> None:
    """Overlapping discs pushed apart (ORCA) or a centre pushed off a wall's margin (separation)
    within a tiny dt: the move over dt overflowed to inf (NaN once capped), or was far above the
    speed cap."""
    grid = gamenav.TileGrid.from_strings(["#....", ".....", "....."])
    crowd = gamenav.Crowd(grid, [(1.05, 0.5), (1.5, 1.5), (1.5, 1.5), (1.6, 1.5)], radius=0.4, max_speed=2.0,
                          avoidance=avoidance)
    crowd.update(dt)
    check_state(crowd)
    assert (np.hypot(*crowd.velocities.T) <= 1.5 * 2.0 + 1e-9).all()
    crowd.move([0, 1, 2, 3], (4.5, 0.5))
    for _ in range(3):
        crowd.update(dt)
        check_state(crowd)
