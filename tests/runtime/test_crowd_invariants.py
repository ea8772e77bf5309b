"""Crowd invariants checked after every update, on random small maps and on degenerate cases.

The promises (``gamenav.runtime.crowd`` docstring, README "Many units"): no agent's centre ever
stands on a blocked cell; with ORCA, discs keep apart (within a small tolerance) and off blocked
cells when there is room; an agent ends ``arrived`` or ``failed`` (never both), and then it is
idle with no path request pending until its next order.
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import gamenav
from gamenav.runtime.crowd import IDLE

DTS = (1e-4, 1 / 60, 1 / 30, 0.5, 2.0)
"""Frame lengths: tiny, usual, and hitches that take many sub-steps."""


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


def wall_overlap(crowd: gamenav.Crowd) -> npt.NDArray[np.float64]:
    """Per agent, the deepest overlap (world units) of its disc with a blocked or off-grid cell."""
    g = crowd.grid
    cs = g.cell_size
    out = np.zeros(len(crowd))
    for a, ((x, y), r) in enumerate(zip(crowd.positions.tolist(), crowd.radii.tolist(), strict=True)):
        cx, cy = g.world_to_cell(np.array([x, y])).tolist()
        k = int(math.ceil(r / cs)) + 1
        for j in range(cy - k, cy + k + 1):
            for i in range(cx - k, cx + k + 1):
                if 0 <= i < g.width and 0 <= j < g.height and g.passable[j, i]:
                    continue
                lo = g.cell_to_world(np.array([i, j])) - cs / 2
                q = np.clip((x, y), lo, lo + cs)
                out[a] = max(out[a], r - float(np.hypot(x - q[0], y - q[1])))
    return out


def min_pair_ratio(crowd: gamenav.Crowd) -> float:
    """The smallest centre distance over the sum of the radii, over all pairs (inf: < 2 agents)."""
    pos, r = crowd.positions, crowd.radii
    d = np.hypot(*(pos[:, None] - pos[None]).transpose(2, 0, 1))
    np.fill_diagonal(d, np.inf)
    return float((d / (r[:, None] + r[None])).min(initial=np.inf))


# -- random small maps -------------------------------------------------------------------
@settings(max_examples=100, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), avoidance=st.sampled_from(["orca", "separation"]),
       cell_size=st.sampled_from([0.5, 1.0, 2.0]), y_up=st.booleans(), queued=st.booleans())
def test_random_orders_edits_and_spawns_keep_the_invariants(seed: int, avoidance: str, cell_size: float,
                                                            y_up: bool, queued: bool) -> None:
    """Random maps up to 12 x 10 with up to a third walls, 1-9 agents of radii 0.2-1.5 cells (some
    coincident) and speeds 0.5-8 cells/s; group and single orders to any point (on walls, off the
    map), walls built on agents and opened, agents added, removed and stopped while moving, frames
    from 1e-4 to 2 s. After every update: :func:`check_state`, and with ORCA a disc of at most
    half a cell (its paths are planned on the plain cells, which it fits) off every wall. Then,
    without orders or edits, no agent is left idle, neither arrived nor failed."""
    rng = np.random.default_rng(seed)
    w, h = int(rng.integers(3, 13)), int(rng.integers(3, 11))
    walk = rng.random((h, w)) > rng.uniform(0.0, 0.33)
    walk[rng.integers(h), rng.integers(w)] = True
    grid = gamenav.TileGrid(walk, cell_size=cell_size, y_up=y_up, origin=tuple(rng.uniform(-5, 5, 2).tolist()))
    cs = cell_size

    def free_points(m: int) -> npt.NDArray[np.float64]:
        free = np.argwhere(grid.passable)[:, ::-1]
        return grid.cell_to_world(free[rng.integers(0, len(free), m)]) + rng.uniform(-0.45, 0.45, (m, 2)) * cs

    n = int(rng.integers(1, 10))
    pos = free_points(n)
    if n > 1:
        pos[1] = pos[0]  # coincident
    queue = gamenav.PathQueue() if queued else None
    crowd = gamenav.Crowd(grid, pos, radius=rng.uniform(0.2, 1.5, n) * cs, max_speed=rng.uniform(0.5, 8, n) * cs,
                          avoidance=avoidance, queue=queue, flow_threshold=int(rng.choice([2, 4, 16])))

    def update(dt: float) -> None:
        if queue is not None:
            queue.update()
        crowd.update(dt)
        check_state(crowd)
        if avoidance == "orca":
            small = crowd.radii <= 0.5 * cs
            assert (wall_overlap(crowd)[small] <= 1e-6 * cs).all()

    for _ in range(int(rng.integers(10, 40))):
        op, ids = rng.random(), crowd.ids
        if op < 0.15 and len(ids):
            target = grid.origin + rng.uniform(-2, (w + 2, h + 2)) * cs
            crowd.move(ids[rng.random(len(ids)) < 0.6], tuple(target.tolist()), formation=bool(rng.integers(2)))
        elif op < 0.22:
            if len(ids) and rng.random() < 0.6:  # a wall on an agent
                cell = grid.world_to_cell(crowd.positions[rng.integers(len(ids))])
            else:
                cell = np.array([rng.integers(w), rng.integers(h)])
            opening = bool(rng.random() < 0.3)
            if opening or grid.passable.sum() > 1:
                grid.set_walkable(tuple(cell.tolist()), opening)
        elif op < 0.26:
            crowd.add(free_points(1), radius=float(rng.uniform(0.2, 1.5) * cs),
                      max_speed=float(rng.uniform(0.5, 8) * cs))
        elif op < 0.29 and len(ids):
            crowd.remove([int(rng.choice(ids))])
        elif op < 0.31 and len(ids):
            crowd.stop([int(rng.choice(ids))])
        update(float(rng.choice(DTS)))
    for _ in range(1200):
        if (crowd.arrived | crowd.failed).all():
            break
        update(0.1)
    # never silently idle: a unit not arrived nor failed is still on its way (a unit wedged for
    # ever between a wall and an idle unit counts as jammed, and jams never fail: not checked)
    unfinished = ~(crowd.arrived | crowd.failed)
    assert (crowd.mode[unfinished] != IDLE).all() or crowd.pending


@settings(max_examples=50, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), y_up=st.booleans())
def test_orca_discs_keep_apart_on_an_open_map_whatever_the_spawns_and_frames(seed: int, y_up: bool) -> None:
    """Room for everyone (an open 16 x 12 map, up to 12 discs of 0.2-0.5 cells, mixed speeds):
    coincident and touching spawns, agents added and removed while moving, cells opened, frames
    from 1e-4 to 2 s; after every update no disc overlaps a wall, and no pair overlaps by more
    than a tenth of its radii (a disc pushed further than the overlap pass had looked for
    neighbours overlapped discs it had not collected: 0.55 of the radii's sum, seed 2640732)."""
    rng = np.random.default_rng(seed)
    grid = gamenav.TileGrid(np.ones((12, 16), bool), y_up=y_up)
    n = int(rng.integers(2, 12))
    pos = rng.uniform(0.5, (15.5, 11.5), (n, 2))
    pos[1] = pos[0]
    radius = rng.uniform(0.2, 0.5, n)
    if n > 2:
        pos[2] = pos[0] + np.array([radius[0] + radius[2], 0.0]) * (1 if pos[0, 0] < 8 else -1)  # touching
    crowd = gamenav.Crowd(grid, pos, radius=radius, max_speed=rng.uniform(0.5, 8, n))
    worst = np.inf
    for _ in range(60):
        op, ids = rng.random(), crowd.ids
        if op < 0.15 and len(ids):
            crowd.move(ids[rng.random(len(ids)) < 0.7], tuple(rng.uniform(0, (16, 12)).tolist()),
                       formation=bool(rng.integers(2)))
        elif op < 0.2 and len(crowd) < 14:
            crowd.add(crowd.positions[rng.integers(len(crowd))], radius=float(rng.uniform(0.2, 0.5)),
                      max_speed=float(rng.uniform(0.5, 8)))  # on top of another
        elif op < 0.24 and len(ids) > 2:
            crowd.remove([int(rng.choice(ids))])
        crowd.update(float(rng.choice(DTS)))
        check_state(crowd)
        assert (wall_overlap(crowd) <= 1e-6).all()
        worst = min(worst, min_pair_ratio(crowd))
    assert worst >= 0.9, f"ORCA left a pair at {worst:.2f} of its radii's sum"


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


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from([0.05, 1.0, 6.0, 1e300]))
def test_the_stuck_checks_nearest_gaps_equal_all_pairs(seed: int, reach: float) -> None:
    """The sorted sweep of ``_nearest_gap`` (agents near along x only) gives the nearest gap of
    all pairs, inf beyond ``reach``; ties in x and overlapping discs included."""
    rng = np.random.default_rng(seed)
    grid = gamenav.TileGrid(np.ones((20, 30), bool))
    n = int(rng.integers(1, 60))
    pos = rng.uniform(0.5, (29.5, 19.5), (n, 2))
    pos[: n // 3, 0] = pos[0, 0]
    radius = rng.uniform(0.2, 1.0, n)
    crowd = gamenav.Crowd(grid, pos, radius=radius, max_speed=1.0)
    idx = rng.choice(n, int(rng.integers(0, n + 1)), replace=False).astype(np.int64)
    gap = np.hypot(*(pos[idx, None] - pos[None]).transpose(2, 0, 1)) - (radius[idx, None] + radius[None])
    gap[np.arange(len(idx)), idx] = np.inf
    want = gap.min(axis=1, initial=np.inf)
    want[want >= reach] = np.inf
    assert np.array_equal(crowd._nearest_gap(idx, reach), want)
