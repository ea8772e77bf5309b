"""Crowd and Follower under hostile use: extreme frame lengths, fully blocked maps, edits that
cut a group off its target, agents removed and added while their requests are pending."""

from __future__ import annotations

import gc
import subprocess
import sys
import warnings
from typing import Any

import numpy as np
import pytest

import gamenav
from gamenav.runtime.crowd import DIRECT, IDLE
from tests.runtime.test_crowd_invariants import wall_overlap


def test_update_refuses_an_int_beyond_float64() -> None:
    grid = gamenav.TileGrid(np.ones((3, 3), bool))
    crowd = gamenav.Crowd(grid, [(0.5, 0.5)], radius=0.3, max_speed=1.0)
    with pytest.raises(gamenav.InvalidInputError, match="dt must be a finite number >= 0"):
        crowd.update(10**400)  # (was OverflowError from math.isfinite)


@pytest.mark.parametrize("flow_threshold", [1, 16])
@pytest.mark.parametrize("target", [(1.5, 1.5), (9.0, -4.0)])
def test_order_on_a_fully_blocked_grid_fails_the_agents(flow_threshold: int, target: tuple[float, float]) -> None:
    grid = gamenav.TileGrid(np.ones((3, 3), bool))
    crowd = gamenav.Crowd(grid, [(0.5, 0.5), (1.5, 1.5)], radius=0.3, max_speed=4.0, flow_threshold=flow_threshold)
    grid.set_walkable(np.ones((3, 3), bool), False)
    crowd.move(crowd.ids, target)  # (raised BlockedEndpointError / OutOfBoundsError)
    crowd.update(0.1)
    assert crowd.failed.all() and not crowd.arrived.any() and (crowd.mode == IDLE).all()
    assert crowd.pending == 0 and crowd.flow_fields == []


def test_edit_blocking_every_cell_fails_a_group_instead_of_raising() -> None:
    grid = gamenav.TileGrid(np.ones((3, 3), bool))
    crowd = gamenav.Crowd(grid, [(0.5, 0.5), (1.5, 1.5)], radius=0.3, max_speed=4.0, flow_threshold=1)
    crowd.move(crowd.ids, (2.5, 2.5))
    grid.set_walkable(np.ones((3, 3), bool), False)  # (the crowd's listener raised BlockedEndpointError)
    crowd.update(0.1)
    assert crowd.failed.all() and not crowd.arrived.any() and (crowd.mode == IDLE).all()


@pytest.mark.parametrize("avoidance", ["orca", "separation"])
def test_group_cut_off_by_an_edit_fails_instead_of_arriving_across_the_wall(avoidance: str) -> None:
    grid = gamenav.TileGrid.from_strings(["." * 10] * 4)
    crowd = gamenav.Crowd(grid, [(0.5, 0.5), (0.5, 1.5), (1.5, 2.5), (1.5, 3.5)], radius=[0.3, 0.3, 1.3, 0.3],
                          max_speed=4.0, flow_threshold=2, avoidance=avoidance)
    crowd.move(crowd.ids, (9.5, 1.5))
    beyond = crowd.goals[:, 0] > 6  # formation slots on the far side of the wall to come
    assert beyond.any() and not beyond.all()
    for _ in range(10):
        crowd.update(1 / 30)
    grid.set_walkable((5, 0, 6, 4), False)  # a wall across the map at x = 5
    for _ in range(900):
        crowd.update(1 / 30)
        if (crowd.arrived | crowd.failed).all():
            break
    # (units with a slot beyond the wall came within 9 cells of it in a jam and counted as arrived)
    assert crowd.failed[beyond].all() and not crowd.arrived[beyond].any()
    assert (crowd.positions[:, 0] < 5).all()


def test_late_answers_after_removals_and_additions_reach_their_own_agents() -> None:
    grid = gamenav.TileGrid(np.ones((12, 12), bool))
    queue = gamenav.PathQueue(budget_ms=None, max_expansions=10_000)
    starts = [(0.5 + k, 0.5) for k in range(6)]
    crowd = gamenav.Crowd(grid, starts, radius=0.3, max_speed=2.0, queue=queue, flow_threshold=100)
    for k in range(6):
        crowd.move([k], (0.5 + k, 11.5), formation=False)
    crowd.remove([0, 2, 3])  # requests pending: the rows of 1, 4, 5 compact to 0, 1, 2
    new = crowd.add([(11.5, 5.5), (10.5, 5.5)])
    crowd.move(new, (11.5, 0.5), formation=False)
    assert new.tolist() == [6, 7]  # (ids never reused)
    for _ in range(3):
        queue.update()
        crowd.update(1 / 30)
    for agent in (1, 4, 5, 6, 7):
        path = crowd.path(agent)
        assert path.status is gamenav.PathStatus.FOUND
        assert tuple(path.cells[-1]) == tuple(grid.world_to_cell(crowd.goals[crowd.rows([agent])[0]]))
    for gone in (0, 2, 3, 99):
        with pytest.raises(gamenav.InvalidInputError, match="unknown agent ids"):
            crowd.path(gone)
        with pytest.raises(gamenav.InvalidInputError, match="unknown agent ids"):
            crowd.remaining_paths([gone])


def test_crowd_starts_empty_from_an_empty_list_as_add_does() -> None:
    grid = gamenav.TileGrid(np.ones((1, 7), bool), cell_size=0.5, origin=(10, 10), y_up=True)
    crowd = gamenav.Crowd(grid, [], radius=0.1, max_speed=1.0)  # (was: "shape (n, 2), got (1, 0)")
    assert len(crowd) == 0 and crowd.positions.shape == (0, 2)
    crowd.update(0.1)
    assert crowd.add([]).tolist() == [] and crowd.add([(13.4, 10.25)]).tolist() == [0]


def test_opening_a_cell_of_a_grid_blocked_everywhere_frees_the_agents_on_walls() -> None:
    grid = gamenav.TileGrid(np.ones((3, 3), bool), origin=(5.0, -2.0), y_up=True)
    crowd = gamenav.Crowd(grid, [(5.5, -1.5), (7.5, 0.5)], radius=0.3, max_speed=4.0)
    grid.set_walkable(np.ones((3, 3), bool), False)  # nowhere to push them: they stay
    grid.set_walkable((2, 1), True)
    crowd.update(1 / 30)  # (stayed on blocked cells for good: only edits that blocked cells freed agents)
    cells = grid.world_to_cell(crowd.positions)
    assert grid.passable[cells[:, 1], cells[:, 0]].all()


def _walk_steps(walkable: np.ndarray, start: tuple[int, int], goal: tuple[int, int]) -> int:
    """Fewest steps from cell ``start`` to ``goal`` (8 neighbours, no corner cut; breadth first)."""
    h, w = walkable.shape
    seen = {start: 0}
    frontier = [start]
    while frontier and goal not in seen:
        nxt = []
        for x, y in frontier:
            for dx in (-1, 0, 1):
                for dy in (-1, 0, 1):
                    nx, ny = x + dx, y + dy
                    if (nx, ny) in seen or not (0 <= nx < w and 0 <= ny < h and walkable[ny, nx]):
                        continue
                    if dx and dy and not (walkable[y, nx] and walkable[ny, x]):
                        continue
                    seen[nx, ny] = seen[x, y] + 1
                    nxt.append((nx, ny))
        frontier = nxt
    return seen.get(goal, 10**9)


@pytest.mark.parametrize("avoidance", ["orca", "separation"])
def test_units_jammed_across_a_wall_from_their_slots_do_not_count_as_arrived(avoidance: str) -> None:
    """32 units walk down a corridor to a gap at the end of a thin wall; their formation slots
    (3 cells apart) lie just across it. Units stuck in the jam were "held at the destination"
    by their straight-line distance (under 7 cells) and stopped for good on the wrong side,
    their way round through the gap up to 9 steps long (5 straight)."""
    walkable = np.ones((20, 30), bool)
    walkable[:19, 15] = False  # the wall, open in the bottom row
    walkable[:, :11] = False  # the corridor: x 11..14
    grid = gamenav.TileGrid(walkable)
    start = [(x + 0.5, y + 0.5) for y in range(8) for x in range(11, 15)]
    crowd = gamenav.Crowd(grid, start, radius=0.35, max_speed=3.0, avoidance=avoidance, spacing=3.0)
    crowd.move(crowd.ids, (16.5, 4.5))
    before = crowd.arrived.copy()
    long_ways = []
    for _ in range(3000):
        crowd.update(1 / 30)
        new = np.flatnonzero(crowd.arrived & ~before)
        before = crowd.arrived.copy()
        cells = grid.world_to_cell(crowd.positions[new])
        goals = grid.world_to_cell(crowd.goals[new])
        for c, g in zip(map(tuple, cells.tolist()), map(tuple, goals.tolist()), strict=True):
            straight = max(abs(c[0] - g[0]), abs(c[1] - g[1]))
            if _walk_steps(walkable, c, g) > straight + 2:
                long_ways.append((c, g))
        if (crowd.arrived | crowd.failed).all():
            break
    assert long_ways == []
    assert crowd.arrived.all() and not crowd.failed.any()


@pytest.mark.parametrize("avoidance", ["orca", "separation"])
@pytest.mark.parametrize("dt", [100.0, 1e8, 1e300])
def test_a_hitch_of_minutes_or_more_moves_agents_on_to_their_goals(avoidance: str, dt: float) -> None:
    """One update(100) took an agent 8 cells from its goal beyond it, update(1e8) left it where
    it stood (32 sub-steps of minutes: paths' turns overshot, ORCA's wall horizon of a sub-step
    froze it); a Follower likewise. A hitch is cut to MAX_SUBSTEPS half cells of movement, so
    the agent walks on (8 to 11 of the 11.3 cells) and arrives within the next 2 seconds."""
    grid = gamenav.TileGrid(np.ones((10, 10), bool))
    crowd = gamenav.Crowd(grid, [(0.5, 0.5)], radius=0.3, max_speed=1.0, avoidance=avoidance)
    crowd.move([0], (8.5, 8.5))
    follower = gamenav.Follower(grid, (0.5, 0.5), speed=1.0)
    follower.move_to((8.5, 8.5))
    crowd.update(dt)
    follower.update(dt)
    assert np.hypot(*(crowd.positions[0] - (8.5, 8.5))) < 1.0
    assert np.hypot(*(np.asarray(follower.position) - (8.5, 8.5))) < 1.0
    for _ in range(60):
        crowd.update(1 / 30)
        follower.update(1 / 30)
    assert crowd.arrived[0] and np.hypot(*(crowd.positions[0] - (8.5, 8.5))) < 0.5
    assert follower.arrived and np.hypot(*(np.asarray(follower.position) - (8.5, 8.5))) < 0.5


def test_a_closed_queue_is_refused_when_given_not_at_the_first_order() -> None:
    grid = gamenav.TileGrid(np.ones((5, 5), bool))
    queue = gamenav.PathQueue(budget_ms=1.0)
    queue.close()
    with pytest.raises(gamenav.InvalidInputError, match="queue is closed"):
        gamenav.Crowd(grid, [(0.5, 0.5)], radius=0.3, max_speed=1.0, queue=queue)
    with pytest.raises(gamenav.InvalidInputError, match="queue is closed"):
        gamenav.Follower(grid, (0.5, 0.5), speed=1.0, queue=queue)
    crowd = gamenav.Crowd(grid, [(0.5, 0.5)], radius=0.3, max_speed=1.0)
    with pytest.raises(gamenav.InvalidInputError, match="queue is closed"):
        crowd.queue = queue
    crowd.move([0], (4.5, 4.5))  # (synchronous paths still)
    for _ in range(300):
        crowd.update(1 / 30)
    assert crowd.arrived[0]


def test_a_position_far_off_the_grid_is_reported_with_the_grid_bounds_not_a_clamped_cell() -> None:
    """``(1e300, 0.5)`` was "in cell (4611686018427387904, 0)" (world_to_cell's clamp)."""
    grid = gamenav.TileGrid(np.ones((5, 5), bool))
    grid.set_walkable((1, 1), False)
    with pytest.raises(gamenav.InvalidInputError,
                       match=r"\(1e\+300, 0.5\) is outside the grid \(world x 0..5, y 0..5\)"):
        gamenav.Crowd(grid, [(1e300, 0.5)], radius=0.3, max_speed=1.0)
    with pytest.raises(gamenav.InvalidInputError, match=r"\(1.5, 1.5\) is in blocked cell \(1, 1\)"):
        gamenav.Follower(grid, (1.5, 1.5), speed=1.0)


def test_a_very_fast_agent_does_not_slow_the_others_down_at_usual_frame_rates() -> None:
    """Cutting hitches to 32 half cells of the fastest agent, without a floor, cut every 1/30 s
    frame of a crowd with a 1e6 cells/s agent to 1.6e-5 s: the others stood still."""
    grid = gamenav.TileGrid(np.ones((20, 20), bool))
    crowd = gamenav.Crowd(grid, [(0.5, 0.5), (10.5, 10.5)], radius=0.3, max_speed=[1e6, 1.0])
    crowd.move([1], (18.5, 10.5), formation=False)
    for _ in range(30):
        crowd.update(1 / 30)
    assert crowd.positions[1, 0] == pytest.approx(11.5, abs=0.05)


@pytest.mark.parametrize("y_up", [False, True])
def test_a_disc_centred_exactly_on_a_walls_edge_is_pushed_off_it(y_up: bool) -> None:
    """A centre exactly on the edge of a blocked (or off-grid) cell square is at distance 0 from
    it: the push off the wall had no direction and was skipped, so an idle unit spawned on a
    cell border beside a wall (or the map's edge) overlapped it by its whole radius for ever, and
    a goal on the map's edge stayed there, 0.4 beyond where the disc can stand: a lone unit sent
    there failed (walls held it up) instead of arriving."""
    grid = gamenav.TileGrid.from_strings(["......", "..#...", "......", "......"], y_up=y_up)
    wall = tuple(grid.cell_to_world(np.array([2, 1])).tolist())
    crowd = gamenav.Crowd(grid, [(wall[0] + 0.5, wall[1]), (0.0, 0.0), (0.0, 2.5)], radius=0.4, max_speed=1.0)
    crowd.update(1 / 30)
    assert (wall_overlap(crowd) <= 1e-6).all()  # (was 0.4 each: the whole radius)
    lone = gamenav.Crowd(gamenav.TileGrid(np.ones((6, 6), bool), y_up=y_up), [(3.5, 0.5)], radius=0.4, max_speed=1.0)
    lone.move([0], (0.0, 5.5), formation=False)
    assert lone.goals[0] == pytest.approx((0.4, 5.5))
    for _ in range(600):
        lone.update(1 / 30)
        if lone.arrived[0] or lone.failed[0]:
            break
    assert lone.arrived[0] and (wall_overlap(lone) <= 1e-6).all()


@pytest.mark.parametrize("huge", [2**62, 2**70])
def test_a_huge_max_neighbors_is_the_number_of_other_agents(huge: int) -> None:
    """``max_neighbors=2**62`` passed the check and then update raised ValueError ("array is too
    big": the kernel's buffers had that many rows), ``2**70`` OverflowError; an assigned 1.5 went
    to the kernel unchecked (numba TypingError). No agent has more than ``n - 1`` neighbours."""
    grid = gamenav.TileGrid(np.ones((8, 12), bool))
    start = [(1.5, 1.5), (2.5, 1.5), (1.5, 2.5), (10.5, 6.5)]
    crowds = [gamenav.Crowd(grid, start, radius=0.4, max_speed=3.0, max_neighbors=k) for k in (huge, 3)]
    for crowd in crowds:
        crowd.move([0, 1, 2], (10.5, 6.5))
        crowd.move([3], (1.5, 1.5))
        for _ in range(30):
            crowd.update(1 / 30)
    assert np.array_equal(crowds[0].positions, crowds[1].positions)
    with pytest.raises(gamenav.InvalidInputError, match="max_neighbors must be an int >= 0, got 1.5"):
        crowds[0].max_neighbors = 1.5  # type: ignore[assignment]
    assert crowds[0].max_neighbors == huge


@pytest.mark.parametrize(("name", "value"), [
    ("positions", [(2**1100, 0.5)]), ("positions", [("1.5", "1.5")]), ("positions", [(1.5, True)]),
    ("radius", [2**1100]), ("radius", ["0.3"]), ("radius", [True]),
    ("max_speed", [2**1100]), ("max_speed", ["1"]), ("max_speed", np.array([True])),
])
def test_positions_and_sizes_must_be_numbers(name: str, value: object) -> None:
    """Lists of strings or bools were read as numbers (``radius=["0.3"]`` and ``[True]`` taken, while
    ``"0.3"`` and ``True`` were refused), and an int beyond float64 raised a bare OverflowError
    (it is an infinity, refused as not finite, as a scalar ``radius=2**1100`` is)."""
    grid = gamenav.TileGrid(np.ones((5, 5), bool))
    args: dict[str, object] = {"radius": 0.3, "max_speed": 1.0, name: value}
    positions = args.pop("positions", [(1.5, 1.5)])
    huge = str(2**1100) in repr(value)
    if name == "positions":
        match = "positions must be finite" if huge else "positions must be an"
    else:
        match = f"{name} must be finite numbers > 0" if huge else f"{name} must be a number > 0 or one per agent"
    with pytest.raises(gamenav.InvalidInputError, match=match):
        gamenav.Crowd(grid, positions, **args)  # type: ignore[arg-type]
    crowd = gamenav.Crowd(grid, [(0.5, 0.5)], radius=0.3, max_speed=1.0)
    with pytest.raises(gamenav.InvalidInputError, match=match):
        crowd.add(positions, **args)  # type: ignore[arg-type]
    assert len(crowd) == 1


@pytest.mark.parametrize("agent", [[], [0, 1], np.array([1]), True, 1.0])
def test_path_and_remaining_path_take_one_agent_id(agent: object) -> None:
    """``path([])`` and ``remaining_path([])`` raised a bare IndexError; ``path([0, 1])`` and
    ``path(np.array([1]))`` answered for some agent; ``path(True)`` read True as a mask."""
    grid = gamenav.TileGrid(np.ones((5, 5), bool))
    crowd = gamenav.Crowd(grid, [(0.5, 0.5), (1.5, 1.5)], radius=0.3, max_speed=1.0)
    for method in (crowd.path, crowd.remaining_path):
        with pytest.raises(gamenav.InvalidInputError, match="agent must be one agent id"):
            method(agent)  # type: ignore[arg-type]
    assert crowd.path(np.int64(1)).status is gamenav.PathStatus.NO_PATH
    assert crowd.remaining_path(np.uint8(1)).tolist() == [[1.5, 1.5]]


@pytest.mark.parametrize(("name", "value"), [
    ("time_horizon", 0.0), ("keep_right", None), ("keep_right", float("nan")), ("requests_per_update", 0),
    ("flow_threshold", None), ("stuck_seconds", -1.0), ("arrive_radius", float("inf")), ("max_accel", None),
    ("radius", None), ("max_speed", 1e300), ("max_neighbors", -1),
])
def test_settings_assigned_after_construction_are_checked(name: str, value: object) -> None:
    """The settings the constructor checks took anything once assigned, to fail later, far from the
    cause: ``time_horizon = 0`` made the next update raise ZeroDivisionError, ``keep_right = None``
    a numba TypingError, ``requests_per_update = 0`` kept path requests waiting for ever,
    ``radius = None`` (the default of ``add``) a TypeError once the last agent was removed."""
    grid = gamenav.TileGrid(np.ones((6, 6), bool))
    crowd = gamenav.Crowd(grid, [(0.5, 0.5), (1.5, 0.5)], radius=0.3, max_speed=2.0, queue=gamenav.PathQueue(),
                          avoidance="separation" if name == "max_accel" else "orca")
    before = getattr(crowd, name)
    with pytest.raises(gamenav.InvalidInputError, match=f"{name} must be"):
        setattr(crowd, name, value)
    assert getattr(crowd, name) == before
    crowd.flow_threshold = 2  # (as benchmarks/demo.py sets it)
    crowd.move(crowd.ids, (4.5, 4.5))
    for _ in range(150):
        crowd.queue.update()
        crowd.update(1 / 30)
    assert crowd.arrived.all() and crowd.flow_threshold == 2


def test_the_arrays_a_crowd_hands_out_cannot_be_made_writable() -> None:
    # numpy let a caller set flags.writeable = True on these views of the crowd's own state
    grid = gamenav.TileGrid(np.ones((8, 8), dtype=bool))
    crowd = gamenav.Crowd(grid, [(1.5, 1.5), (5.5, 5.5)], radius=0.3, max_speed=2.0)
    crowd.move([0, 1], (4.5, 4.5))
    crowd.update(1 / 30)
    arrays = [crowd.ids, crowd.radii, crowd.max_speeds, crowd.positions, crowd.velocities, crowd.goals,
              crowd.arrived, crowd.failed, crowd.mode, *crowd.flow_fields]
    for array in arrays:
        with pytest.raises(ValueError, match="WRITEABLE"):
            array.flags.writeable = True
    before = crowd.positions.copy()
    crowd.update(1 / 30)
    assert not np.array_equal(crowd.positions, before)  # the views still come from the live state


def test_an_order_given_again_every_frame_lets_its_search_finish() -> None:
    # each repeated order cancelled the pending search and started it again: with a queue whose
    # searches take several frames, a unit ordered to the same place every frame never moved
    grid = gamenav.TileGrid(np.ones((120, 120), dtype=bool))
    queue = gamenav.PathQueue(max_expansions=50)
    follower = gamenav.Follower(grid, (1.5, 1.5), speed=20.0, queue=queue)
    crowd = gamenav.Crowd(grid, [(1.5, 110.5), (3.5, 110.5), (5.5, 110.5)], radius=0.3, max_speed=20.0,
                          queue=queue)
    for _ in range(120):
        follower.move_to((110.5, 100.5))
        crowd.move(crowd.ids, (110.5, 20.5))
        queue.update()
        follower.update(1 / 30)
        crowd.update(1 / 30)
    assert follower.path.status is gamenav.PathStatus.FOUND and follower.position[0] > 40
    assert (crowd.positions[:, 0] > 40).all()
    requests = crowd.counters["path_requests"]
    assert requests < 3 * 120 / 4  # not one a frame each (slots handed round afresh may still differ)
    # an order given again once arrived is a new order (an agent pushed off its goal walks back)
    for _ in range(400):
        queue.update()
        crowd.update(1 / 30)
    assert crowd.arrived.all()
    crowd.move(crowd.ids, (110.5, 20.5))
    assert crowd.counters["path_requests"] == requests + 3


def test_a_dropped_crowd_leaves_no_work_in_the_queue() -> None:
    """A crowd garbage-collected with requests pending left them in the queue: they kept spending
    its budget (2 pending after the drop, 1 expansion per update, until answered)."""
    grid = gamenav.TileGrid(np.ones((20, 60), bool))
    queue = gamenav.PathQueue(budget_ms=None, max_expansions=1)
    crowd = gamenav.Crowd(grid, [(0.5, 0.5), (0.5, 2.5)], radius=0.3, max_speed=2.0, queue=queue)
    crowd.move(crowd.ids, (55.5, 10.5))
    kept = gamenav.Crowd(grid, [(0.5, 4.5)], radius=0.3, max_speed=2.0, queue=queue)
    kept.move(kept.ids, (55.5, 4.5))
    assert len(queue) == 3
    del crowd
    gc.collect()
    queue.update()
    assert len(queue) == 1 and queue.stats.cancelled == 2 and queue.stats.searches == 1
    kept.remove(kept.ids)  # removed agents' requests are cancelled at once
    assert len(queue) == 0


def _walk(cell_size: float, avoidance: str) -> tuple[list[bool], np.ndarray]:
    grid = gamenav.TileGrid(np.ones((10, 20), bool), cell_size=cell_size)
    start = np.array([(0.5, 0.5), (0.5, 2.5), (1.5, 4.5)]) * cell_size
    crowd = gamenav.Crowd(grid, start, radius=0.3 * cell_size, max_speed=4.0 * cell_size, avoidance=avoidance)
    crowd.move(crowd.ids, np.array([15.5, 5.5]) * cell_size, formation=False)
    for _ in range(150):
        crowd.update(0.05)
    return crowd.arrived.tolist(), crowd.positions / cell_size


@pytest.mark.parametrize("avoidance", ["orca", "separation"])
@pytest.mark.parametrize("cell_size", [1e-10, 1e-30, 1e9])
def test_agents_walk_the_same_in_cells_of_any_size(avoidance: str, cell_size: float) -> None:
    """On a grid of 1e-10 cells no agent moved (absolute length cutoffs: no heading within 1e-9
    of the target, accelerations divided by at least 1e-12), and they ended up failed."""
    arrived, cells = _walk(cell_size, avoidance)
    expected_arrived, expected_cells = _walk(1.0, avoidance)
    assert arrived == expected_arrived == [True] * 3
    np.testing.assert_allclose(cells, expected_cells, atol=1e-6)


@pytest.mark.parametrize("avoidance", ["orca", "separation"])
def test_an_order_before_the_first_update_compiles_the_crowd_kernels_as_one_group(
        avoidance: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """move() runs the wall kernels (goal slots kept off walls) before any update: on a first
    run they compiled one by one, each with its own notice, outside the crowd group."""
    import gamenav.runtime.crowd as crowd_module
    from gamenav._kernels.crowd import resolve_walls
    from gamenav._kernels.orca import discs_off_walls

    calls: list[tuple[str, tuple[object, ...]]] = []
    real_resolve = crowd_module.resolve_walls

    def spy(*args: object) -> object:
        assert calls, "a crowd kernel ran before its group was announced"
        return real_resolve(*args)

    monkeypatch.setattr(crowd_module, "announce_compile", lambda group, *kernels: calls.append((group, kernels)))
    monkeypatch.setattr(crowd_module, "resolve_walls", spy)
    grid = gamenav.TileGrid.from_strings(["......", ".##...", "......"])
    crowd = gamenav.Crowd(grid, [(0.5, 0.5), (4.5, 2.5)], radius=0.3, max_speed=2.0, avoidance=avoidance)
    crowd.move([0, 1], (5.5, 0.5))
    assert calls and calls[0][0] == "crowd"
    assert {resolve_walls, discs_off_walls} <= set(calls[0][1])


@pytest.mark.parametrize("max_speed", [1e4, 1e9])
def test_a_very_fast_agent_follows_its_path_round_a_wall_to_its_goal(max_speed: float) -> None:
    """A frame under a second runs whole, so a sub-step of a 1e4 cells/s agent covered 10 cells:
    it overshot each turn of its path into the walls and ended failed in a corner of the map
    ((0.3, 4.7) for a goal at (1.5, 4.5)). It now slows down to reach its steering point within
    a sub-step, as on the final approach, and arrives in 2 frames."""
    grid = gamenav.TileGrid.from_strings(["....................",
                                          "....................",
                                          "#################...",
                                          "....................",
                                          "...................."])
    crowd = gamenav.Crowd(grid, [(1.5, 0.5)], radius=0.3, max_speed=max_speed)
    crowd.move([0], (1.5, 4.5))
    for _ in range(2):
        crowd.update(1 / 30)
    assert crowd.arrived[0] and not crowd.failed[0]
    assert np.hypot(*(crowd.positions[0] - (1.5, 4.5))) < crowd.arrive_radius


@pytest.mark.parametrize("avoidance", ["orca", "separation"])
def test_radii_near_the_float64_limit_raise_no_overflow_warnings(avoidance: str) -> None:
    """Radii of 1e308 (accepted: a disc bigger than the map behaves as one the map's size) summed
    to inf: Crowd() warned 'overflow encountered in reduce' (their mean) and the stuck check
    'overflow encountered in add' in update; under -W error both raised RuntimeWarning."""
    grid = gamenav.TileGrid(np.ones((20, 20), bool))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        crowd = gamenav.Crowd(grid, [(2.5, 2.5), (5.5, 2.5)], radius=1e308, max_speed=3.0, avoidance=avoidance)
        crowd.add([(8.5, 3.5)], radius=0.3)
        crowd.move([0, 1, 2], (15.5, 15.5))
        for _ in range(40):
            crowd.update(1 / 30)
    assert np.isfinite(crowd.positions).all()


@pytest.mark.parametrize("agents", [[True, 2], [[True], [2]], (1, np.bool_(False))])
def test_agent_ids_mixed_with_bools_are_refused_not_read_as_ids(agents: object) -> None:
    """numpy reads [True, 2] as the ints [1, 2]: move([True, 2]) ordered agents 1 and 2 and
    remove([[True], [2]]) removed them, where [True] alone is refused (a mask of the wrong
    shape) and path(True) too; mixed lists are an InvalidInputError now, as in positions."""
    grid = gamenav.TileGrid(np.ones((5, 5), bool))
    crowd = gamenav.Crowd(grid, [(0.5, 0.5), (1.5, 0.5), (2.5, 0.5)], radius=0.3, max_speed=1.0)
    for order in (lambda: crowd.move(agents, (4.5, 4.5)), lambda: crowd.remove(agents),
                  lambda: crowd.stop(agents), lambda: crowd.rows(agents), lambda: crowd.remaining_paths(agents)):
        with pytest.raises(gamenav.InvalidInputError, match="ints"):
            order()
    assert len(crowd) == 3 and crowd.arrived.all() and (crowd.mode == IDLE).all()


def test_congestion_rerouting_takes_units_of_any_radius() -> None:
    """With reroute_seconds, an oncoming unit's share of its cell was pi * r**2 / cell**2 whatever
    its size: radius 1e200 (accepted) made it inf and update raised InvalidInputError 'cost_scale
    must be finite numbers > 0, got inf'. A disc bigger than the map counts as one the map's size,
    as in avoidance."""
    walk = np.ones((12, 24), bool)
    walk[3, 4:20] = walk[8, 4:20] = False
    grid = gamenav.TileGrid(walk)
    west = [(x + 0.5, y + 0.5) for x in range(2) for y in range(4, 8)]
    east = [(x + 0.5, y + 0.5) for x in range(22, 24) for y in range(4, 8)]
    crowd = gamenav.Crowd(grid, west + east, radius=[1e200] * 8 + [0.3] * 8, max_speed=4.0, reroute_seconds=0.1,
                          flow_threshold=4)
    crowd.move(np.arange(8), (22.5, 5.5))
    crowd.move(np.arange(8, 16), (1.5, 5.5))
    for _ in range(15):
        crowd.update(1 / 30)
    assert crowd.counters["flow_fields"] > 2  # (re-planned around the oncoming units)
    assert np.isfinite(crowd.positions).all()


def test_an_idle_agent_beside_a_mover_of_a_vanishing_speed_does_not_stop_the_update() -> None:
    """An idle agent dodging a mover of max_speed 1e-300 (accepted) divided by the length of the
    mover's preferred velocity, whose squares underflowed to 0: update raised ZeroDivisionError
    from the ORCA kernel. A mover that slow is not dodged now."""
    grid = gamenav.TileGrid(np.ones((5, 10), bool))
    crowd = gamenav.Crowd(grid, [(2.5, 2.5), (3.4, 2.5)], radius=0.3, max_speed=[1e-300, 1.0])
    crowd.move([0], (8.5, 2.5), formation=False)
    for _ in range(3):
        crowd.update(1 / 30)
    assert np.isfinite(crowd.positions).all() and np.isfinite(crowd.velocities).all()


def test_an_empty_crowd_given_empty_sizes_is_made_on_any_cell_size() -> None:
    """With no agents the default max_speed was 1.0 world units per second, over the 1e9 cells
    per second a grid of 1e-12 cells takes: Crowd(grid, [], radius=[], max_speed=[]) raised
    'max_speed must be at most 0.001, got 1.0', a value nobody gave."""
    grid = gamenav.TileGrid(np.ones((3, 3), bool), cell_size=1e-12)
    crowd = gamenav.Crowd(grid, [], radius=[], max_speed=[])
    ids = crowd.add([(1.5e-12, 1.5e-12)], radius=3e-13, max_speed=2e-12)
    crowd.move(ids, (2.5e-12, 2.5e-12))
    for _ in range(60):
        crowd.update(1 / 30)
    assert len(crowd) == 1 and crowd.arrived[0]


@pytest.mark.parametrize("max_accel", [None, 60.0])
@pytest.mark.parametrize("max_speed", [20.0, 50.0, 2000.0])
def test_a_fast_separation_agent_stops_at_its_goal_instead_of_drifting_past_it(max_speed: float,
                                                                              max_accel: float | None) -> None:
    """With avoidance="separation" the acceleration is limited, but an agent slowed down only on
    its direct approach, 0.6 cells from its goal: at 20 cells/s it came to rest 0.67 cells past
    it (2.4 at 50) while marked arrived. It now brakes in time (stopping distance and sub-steps)."""
    grid = gamenav.TileGrid(np.ones((5, 120), bool))
    crowd = gamenav.Crowd(grid, [(1.5, 2.5)], radius=0.3, max_speed=max_speed, max_accel=max_accel,
                          avoidance="separation")
    crowd.move([0], (100.5, 2.5))
    offsets = []
    for _ in range(60 * 60):
        crowd.update(1 / 60)
        if crowd.arrived[0]:
            offsets.append(float(np.hypot(*(crowd.positions[0] - (100.5, 2.5)))))
            if len(offsets) == 60:
                break
    assert len(offsets) == 60 and max(offsets) < crowd.arrive_radius


@pytest.mark.parametrize("max_speed", [2000.0, 20000.0])
def test_an_idle_agent_a_very_fast_one_passes_steps_aside_as_far_as_from_a_slow_one(max_speed: float) -> None:
    """ORCA: an idle agent gives way at its max_speed. Past MAX_SUBSTEPS half cells per update
    a sub-step is longer than half a cell of that speed: a bystander of 20000 cells/s dodged a
    passer 5.2 cells aside (1.09 at 2000; 0.78 at 4 cells/s). Idle agents now move at most half
    a cell per sub-step."""
    grid = gamenav.TileGrid(np.ones((11, 40), bool))
    crowd = gamenav.Crowd(grid, [(1.5, 5.5), (20.5, 5.5)], radius=0.3, max_speed=max_speed)
    crowd.move([0], (38.5, 5.5))
    for _ in range(120):
        crowd.update(1 / 60)
    assert crowd.arrived.all() and np.hypot(*(crowd.positions[1] - (20.5, 5.5))) < 1.0


def test_a_very_fast_group_stays_near_its_slots_after_arriving() -> None:
    """ORCA at 20000 cells/s: arrived agents dodged the later ones at full speed, several cells
    per sub-step, and ended up to 20 cells off their slots while marked arrived (at 2 cells/s:
    4.8). Now as far as slow crowds."""
    grid = gamenav.TileGrid(np.ones((40, 120), bool))
    rng = np.random.default_rng(1)
    starts = np.unique(np.floor(np.stack([rng.uniform(1, 20, 30), rng.uniform(5, 35, 30)], 1)) + 0.5, axis=0)
    crowd = gamenav.Crowd(grid, starts, radius=0.3, max_speed=20000.0)
    crowd.move(crowd.ids, (100.5, 20.5))
    for _ in range(120):
        crowd.update(1 / 60)
    assert crowd.arrived.all() and np.hypot(*(crowd.positions - crowd.goals).T).max() < 6.0


@pytest.mark.parametrize("avoidance", ["orca", "separation"])
@pytest.mark.parametrize("cell_size", [1e-200, 1e200])
def test_path_followers_pass_their_waypoints_in_cells_of_extreme_sizes(avoidance: str, cell_size: float) -> None:
    """Path following compared squared distances: on a grid of 1e-200 cells they underflowed to 0
    (1e200: overflowed to inf, ORCA), so no agent came near a waypoint or beyond it: they stood at
    their first waypoint for ever, never arrived. Distances are compared unsquared now."""
    arrived, cells = _walk(cell_size, avoidance)
    assert arrived == [True] * 3 and (np.hypot(*(cells - (15.5, 5.5)).T) < 2.0).all()


@pytest.mark.parametrize("cell_size", [1e-200, 1e200])
def test_separation_pushes_overlapping_agents_apart_in_cells_of_extreme_sizes(cell_size: float) -> None:
    """The separation kernel compared squared distances: on a grid of 1e-200 cells they underflowed
    to 0 (1e200: overflowed to inf), so overlapping agents were never pushed apart. Distances are
    measured in diameters now."""
    def spread(cs: float) -> float:
        grid = gamenav.TileGrid(np.ones((11, 11), bool), cell_size=cs)
        crowd = gamenav.Crowd(grid, np.array([(5.5, 5.5), (5.6, 5.5)]) * cs, radius=0.3 * cs, max_speed=4.0 * cs,
                              avoidance="separation")
        for _ in range(30):
            crowd.update(1 / 30)
        return float(np.hypot(*(crowd.positions[1] - crowd.positions[0]))) / cs

    assert spread(cell_size) == pytest.approx(spread(1.0), abs=1e-6) and spread(1.0) > 0.5


@pytest.mark.parametrize("avoidance", ["separation", "orca"])
@pytest.mark.parametrize("speed", [4.0, 20.0, 200.0])
def test_stop_stops_a_moving_unit_where_it_stands(avoidance: str, speed: float) -> None:
    """stop() (documented: "where they stand") set the goal to the unit's position but kept its
    velocity: under separation's limited acceleration it coasted 1.09 cells on at 20 cells/s,
    12.3 at 200, marked arrived meanwhile."""
    grid = gamenav.TileGrid(np.ones((5, 400), bool))
    crowd = gamenav.Crowd(grid, [(1.5, 2.5)], radius=0.3, max_speed=speed, avoidance=avoidance)
    crowd.move([0], (398.5, 2.5))
    for _ in range(int(60 * 100 / speed)):
        crowd.update(1 / 60)
    at = crowd.positions[0].copy()
    assert at[0] > 50  # (it was under way)
    crowd.stop([0])
    for _ in range(120):
        crowd.update(1 / 60)
    assert np.hypot(*(crowd.positions[0] - at)) < 0.01 and crowd.arrived[0]
    assert not crowd.velocities[0].any()



def _group_crowd() -> gamenav.Crowd:
    walls = np.ones((40, 60), bool)
    walls[10:30, 30] = False
    grid = gamenav.TileGrid(walls)
    starts = np.array([(2.5 + 2 * (i % 5), 5.5 + 2 * (i // 5)) for i in range(20)])
    return gamenav.Crowd(grid, starts, radius=np.where(np.arange(20) % 4 == 0, 0.7, 0.3), max_speed=6.0)


def test_an_order_given_again_every_frame_goes_on_without_planning_anything_again(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A group order given again every frame (a rally point, a target under a held mouse button)
    planned its flow fields anew each time (150 agents on a 512 x 512 map: 20.8 ms per call) and
    handed the slots round afresh, so the group moved otherwise than under one order; a path
    order planned its slots' field (8 agents on a 1024 x 1024 map: 3.4 ms per call). Now the same
    order goes on; an edit, another target or an agent pushed off its goal still acts."""
    import gamenav.runtime.crowd as crowd_module

    planned = []
    plan = crowd_module._distance_field
    monkeypatch.setattr(crowd_module, "_distance_field", lambda *a, **k: planned.append(1) or plan(*a, **k))
    few = _group_crowd()
    few.move([0, 1, 2], (50.5, 20.5))
    for _ in range(10):
        few.move([0, 1, 2], (50.5, 20.5))
        few.update(1 / 30)
    assert len(planned) == 1 and few.counters["path_requests"] == 3
    once, again = _group_crowd(), _group_crowd()
    once.move(once.ids, (50.5, 20.5))
    for _ in range(150):
        again.move(again.ids, (50.5, 20.5))
        once.update(1 / 30)
        again.update(1 / 30)
    assert np.array_equal(again.positions, once.positions) and again.counters == once.counters
    assert once.counters["flow_fields"] == 2  # (one per size class)
    again.grid.set_walkable((40, 5), False)  # an edit: the order given again plans on the new grid
    again.move(again.ids, (50.5, 20.5))
    assert again.counters["flow_fields"] == 6  # (the edit re-planned both groups' fields, the order too)
    cell = again.grid.world_to_cell((50.5, 20.5))
    fields = [gamenav.distance_field(again.grid, cell, agent_radius=r) for r in (0.0, 0.7)]
    assert all(np.array_equal(a, b) for a, b in zip(again.flow_fields[-2:], fields, strict=True))
    again.move(again.ids, (50.5, 30.5))  # another target
    assert again.counters["flow_fields"] == 8
    for _ in range(300):
        again.update(1 / 30)
    assert again.arrived.all()
    before = dict(again.counters)
    again.move(again.ids, (50.5, 30.5))  # carried out: nothing to do
    assert again.counters == before and again.arrived.all()
    again._pos[3] += (-8.0, 0.0)  # pushed away from its slot, it walks back; the others stay
    again.move(again.ids, (50.5, 30.5))
    assert list(np.flatnonzero(~again.arrived)) == [3] and again.counters["flow_fields"] == 8
    for _ in range(60):
        again.update(1 / 30)
    assert again.arrived.all() and np.hypot(*(again.positions[3] - again.goals[3])) < 3.0


@pytest.mark.parametrize("agents", [[0, 1, 2], list(range(20))])
def test_the_same_order_after_stop_moves_the_stopped_agents_again(agents: list[int]) -> None:
    """Units stopped on their way (the player's stop key) and sent to the same point again stood
    still, counted as arrived, when the order was a group order: the order given again was taken
    for the one they carried out. stop() ends their order."""
    crowd = _group_crowd()
    crowd.move(agents, (50.5, 20.5))
    for _ in range(20):
        crowd.update(1 / 30)
    crowd.stop(agents[:2])  # some of them: the rest of the order goes on
    for _ in range(5):
        crowd.update(1 / 30)
    at = crowd.positions[agents].copy()
    crowd.move(agents, (50.5, 20.5))
    for _ in range(20):
        crowd.update(1 / 30)
    assert not crowd.arrived[agents].any()
    assert (np.hypot(*(crowd.positions[agents] - at).T) > 1.0).all()


def test_the_same_group_order_given_again_sends_its_failed_agents_again() -> None:
    """A group order given again (a player clicking again) left its failed agents failed while
    the others were on their way: those that gave up now try again (here one on an island of its
    own, which fails again)."""
    walls = np.ones((40, 60), bool)
    walls[:, 30] = False
    walls[0:3, 0:3] = False
    walls[1, 1] = True  # a one-cell island
    grid = gamenav.TileGrid(walls)
    starts = [(1.5, 1.5)] + [(5.5 + 2 * (i % 5), 5.5 + 2 * (i // 5)) for i in range(19)]
    crowd = gamenav.Crowd(grid, starts, radius=0.3, max_speed=6.0)
    crowd.move(crowd.ids, (20.5, 20.5))
    crowd.update(1 / 30)
    assert list(np.flatnonzero(crowd.failed)) == [0]
    requests = crowd.counters["path_requests"]
    crowd.move(crowd.ids, (20.5, 20.5))
    assert crowd.counters["path_requests"] == requests + 1 and crowd.counters["flow_fields"] == 1
    crowd.update(1 / 30)
    assert list(np.flatnonzero(crowd.failed)) == [0] and not crowd.arrived[1:].any()


def test_thousands_of_agents_on_one_spot_cost_linear_work() -> None:
    """5000 agents spawned on one point: every pair of them was a candidate of the overlap
    resolution (12.5 million pairs), of ORCA's neighbour search and of separation, and the first
    update took 2.9 s (a frozen game; 3.3 s for 5000 within one cell). The pairs per disc and the
    agents examined around each are bounded now (first update 0.1 s); a crowd of ordinary density,
    even pressed together, keeps every pair within reach."""
    from gamenav._kernels.crowd import MAX_CANDIDATES, separation
    from gamenav._kernels.orca import _MAX_PAIRS, _agent_neighbours, _close_pairs, cell_list

    n = 3000
    pile = np.full((n, 2), 50.5)
    radius = np.full(n, 0.3)
    _, ncx, ncy, start, order, cx, cy, _, _ = cell_list(pile, 0.75)
    pairs = np.empty((_MAX_PAIRS * n, 2), np.int64)
    assert 0 < _close_pairs(pile, radius, 0.15, ncx, ncy, start, order, cx, cy, pairs) <= _MAX_PAIRS * n
    push, flow = np.zeros((n, 2)), np.zeros((n, 2))
    separation(pile, np.zeros((n, 2)), 0.3, push, flow)  # (coincident: each other agent pushes 1 one way)
    assert np.hypot(*push.T).max() < MAX_CANDIDATES + 0.5
    # agent 0 at the centre, 2000 agents 0.5 away, then 10 at 0.01: the search stops before those
    ring = np.stack([np.cos(np.arange(2000)), np.sin(np.arange(2000))], axis=1) * 0.5
    near = np.stack([np.cos(np.arange(10)), np.sin(np.arange(10))], axis=1) * 0.01
    pos = 50.5 + np.concatenate([np.zeros((1, 2)), ring, near])
    size, ncx, ncy, start, order, cx, cy, minx, miny = cell_list(pos, 2.0)
    nb, nbd = np.empty(10, np.int64), np.empty(10)
    assert _agent_neighbours(0, pos, size, ncx, ncy, start, order, cx, cy, minx, miny, 3.0, 10, nb, nbd) == 10
    assert nb.max() <= MAX_CANDIDATES
    # ordinary densities, up to discs side by side (rows of cells holding over _MAX_PAIRS): every pair
    rng = np.random.default_rng(2)
    for spacing, big, share in ((1.0, 0.45, 0.5), (0.6, 0.8, 0.01)):  # (infantry 0.3 and cavalry or tanks)
        pos = np.argwhere(np.ones((40, 40), bool))[:, ::-1] * spacing + rng.uniform(-0.01, 0.01, (1600, 2))
        radius = np.where(rng.random(len(pos)) < share, big, 0.3)
        margin = 0.5 * big
        _, ncx, ncy, start, order, cx, cy, _, _ = cell_list(pos, 2 * big + margin)
        rows = np.diff(start).reshape(ncy, ncx)
        assert (rows[:, :-2] + rows[:, 1:-1] + rows[:, 2:]).max() > _MAX_PAIRS or spacing == 1.0
        pairs = np.empty((_MAX_PAIRS * len(pos), 2), np.int64)
        m = _close_pairs(pos, radius, margin, ncx, ncy, start, order, cx, cy, pairs)
        d = np.hypot(*(pos[:, None] - pos[None]).transpose(2, 0, 1))
        i, j = np.nonzero(np.triu(d < radius[:, None] + radius[None] + margin, 1))
        assert sorted(map(tuple, pairs[:m].tolist())) == sorted(zip(i.tolist(), j.tolist(), strict=True))


def _walk_group(cell_size: float) -> np.ndarray:
    walk = np.ones((20, 30), bool)
    walk[5:15, 15] = False
    grid = gamenav.TileGrid(walk, cell_size=cell_size, origin=(-3 * cell_size, 2 * cell_size))
    starts = np.array([(1.5 + i % 5, 1.5 + i // 5) for i in range(20)])
    crowd = gamenav.Crowd(grid, grid.cell_to_world(np.floor(starts).astype(np.int64)), radius=0.3 * cell_size,
                          max_speed=4.0 * cell_size)
    crowd.move(crowd.ids, grid.cell_to_world((25, 10)))
    for _ in range(150):
        crowd.update(1 / 30)
    cells: np.ndarray = (crowd.positions - grid.origin) / cell_size
    return cells


@pytest.mark.parametrize("cell_size", [2.0**-600, 2.0**-300, 2.0**300, 2.0**600])
def test_orca_avoids_and_pushes_apart_alike_on_cells_of_any_size(cell_size: float) -> None:
    """ORCA ran in world units: on cells of 2**600 (or 2**-600) units the squares of distances
    overflowed (underflowed), so no agent avoided or pushed apart another (a group of 20 ended up
    to 7.9 cells elsewhere than on 1-unit cells, two discs of radius 0.3 cells 0.1 cells apart); on
    2**300 its tolerances (absolute, tuned in cells) bent the ways by up to 9.6 cells. It runs in
    cells now: power-of-two cell sizes move the agents exactly as cells of 1."""
    assert np.array_equal(_walk_group(cell_size), _walk_group(1.0))


def _ring_grid() -> gamenav.TileGrid:
    """A 10 x 5 ring of 1-unit cells round a wall: the top row and the bottom row are joined at both ends."""
    return gamenav.TileGrid.from_strings(["..........", ".########.", ".########.", ".########.", ".........."])


def test_place_re_paths_a_walking_agent_from_its_new_place_through_the_queue() -> None:
    """No way to put an agent somewhere (a teleport): a game writing positions had the crowd walk
    on along the old route from anywhere. Now its pending request is replaced (through the queue)
    and it waits, then walks from where it stands, never across the wall."""
    grid = _ring_grid()
    queue = gamenav.PathQueue(budget_ms=None, max_expansions=10_000)
    crowd = gamenav.Crowd(grid, [(0.5, 0.5)], radius=0.25, max_speed=4.0, queue=queue)
    crowd.move([0], (9.5, 0.5), formation=False)
    queue.update()
    crowd.update(0.25)  # on its way along the top row
    assert crowd.mode[0] != IDLE and crowd.positions[0, 1] < 1.0
    crowd.move([0], (6.5, 0.5), formation=False)  # a request pending ...
    crowd.place([0], [(0.5, 4.5)])  # ... when the game teleports it to the bottom row
    assert crowd.pending == 1 and len(queue) == 1 and queue.stats.cancelled == 1
    assert crowd.positions[0].tolist() == [0.5, 4.5] and crowd.velocities[0].tolist() == [0.0, 0.0]
    assert crowd.path(0).status is gamenav.PathStatus.IN_PROGRESS and crowd.remaining_path(0).tolist() == [[0.5, 4.5]]
    crowd.update(0.1)  # waits for its path: the old route is not walked from here
    assert crowd.positions[0].tolist() == [0.5, 4.5]
    for _ in range(200):
        queue.update()
        crowd.update(1 / 30)
        x, y = grid.world_to_cell(crowd.positions[0]).tolist()
        assert grid.passable[y, x]
    assert crowd.arrived[0] and crowd.positions[0].tolist() == pytest.approx([6.5, 0.5], abs=0.3)
    assert tuple(crowd.path(0).cells[0]) == (0, 4)  # (its path starts where it was put)


def test_place_leaves_idle_agents_idle_and_arrived_where_they_are_put() -> None:
    grid = _ring_grid()
    crowd = gamenav.Crowd(grid, [(0.5, 0.5), (2.5, 0.5)], radius=0.25, max_speed=4.0)
    crowd.move([1], (9.5, 4.5), formation=False)
    for _ in range(120):
        crowd.update(1 / 30)
    assert crowd.arrived.all()
    crowd.place([1, 0], [(3.5, 4.5), (4.5, 0.5)])  # (ids in the order given)
    assert crowd.positions.tolist() == [[4.5, 0.5], [3.5, 4.5]]
    assert crowd.goals.tolist() == [[4.5, 0.5], [3.5, 4.5]] and crowd.arrived.all()
    for _ in range(30):
        crowd.update(1 / 30)
    assert (crowd.mode == IDLE).all() and crowd.positions.tolist() == [[4.5, 0.5], [3.5, 4.5]]


def test_place_lets_group_agents_descend_their_field_from_the_new_place() -> None:
    grid = _ring_grid()
    starts = [(0.5, 0.5), (1.5, 0.5), (2.5, 0.5)]
    crowd = gamenav.Crowd(grid, starts, radius=0.25, max_speed=4.0, flow_threshold=2)
    crowd.move([0, 1, 2], (8.5, 0.5))
    crowd.update(1 / 30)
    crowd.place([0], [(0.5, 4.5)])
    assert crowd.mode[0] == 2 and crowd.pending == 0  # (still on the field: no path asked for)
    for _ in range(300):
        crowd.update(1 / 30)
        x, y = grid.world_to_cell(crowd.positions[0]).tolist()
        assert grid.passable[y, x]
    assert crowd.arrived.all()


@pytest.mark.parametrize(("agents", "positions", "message"), [
    ([0], [(1.5, 1.5)], "in blocked cell"),
    ([0], [(float("nan"), 0.5)], "must be finite"),
    ([0], [(0.5, -3.0)], "outside the grid"),
    ([0, 1], [(0.5, 0.5)], r"shape \(2, 2\)"),
    ([0, 0], [(0.5, 0.5), (2.5, 0.5)], "placed once"),
    ([7], [(0.5, 0.5)], "unknown agent ids"),
    ([True, False], [(0.5, 0.5), (2.5, 0.5)], r"shape \(1, 2\)"),
    ([0], [("a", "b")], "array of numbers"),
])
def test_place_refuses_bad_agents_and_positions_and_changes_nothing(agents: Any, positions: Any,
                                                                    message: str) -> None:
    grid = _ring_grid()
    crowd = gamenav.Crowd(grid, [(0.5, 0.5), (2.5, 0.5)], radius=0.25, max_speed=4.0)
    with pytest.raises(gamenav.InvalidInputError, match=message):
        crowd.place(agents, positions)
    assert crowd.positions.tolist() == [[0.5, 0.5], [2.5, 0.5]]


def test_place_sends_a_group_agent_near_its_slot_down_the_field_not_straight_at_the_wall() -> None:
    """An agent near its slot walks straight to it (DIRECT); put across the wall from it, it kept
    walking straight into the wall (the first version of :meth:`Crowd.place`: not arrived after
    10 s, stuck). It descends the field again from the new place."""
    grid = _ring_grid()
    crowd = gamenav.Crowd(grid, [(6.5, 0.5), (7.5, 0.5)], radius=0.25, max_speed=4.0, flow_threshold=2)
    crowd.move([0, 1], (8.5, 0.5))
    crowd.update(1 / 30)
    assert crowd.mode.tolist() == [3, 3]
    crowd.place([0], [(5.5, 4.5)])
    assert crowd.mode[0] == 2
    for _ in range(150):
        crowd.update(1 / 30)
    assert crowd.arrived.all() and crowd.counters["stuck_repaths"] == 0


def test_place_on_an_island_the_field_does_not_reach_fails_the_group_agent_there() -> None:
    grid = gamenav.TileGrid.from_strings(["......#..", "......#.."])
    crowd = gamenav.Crowd(grid, [(0.5, 0.5), (1.5, 0.5)], radius=0.25, max_speed=4.0, flow_threshold=2)
    crowd.move([0, 1], (5.5, 1.5))
    crowd.place([0], [(8.5, 0.5)])  # (its path request finds no path: it gives up there)
    for _ in range(120):
        crowd.update(1 / 30)
    assert crowd.failed.tolist() == [True, False] and crowd.arrived[1]
    assert crowd.positions[0].tolist() == [8.5, 0.5]


@pytest.mark.parametrize("agents", [3, 30])
def test_agents_that_failed_try_again_when_an_edit_opens_a_way(agents: int) -> None:
    """Units whose goal was walled off failed and stood there for ever after the wall was
    opened (the demo: a chokepoint building removed); an edit that opens cells now sends them
    again (sent over the next updates, path orders and group orders alike)."""
    walls = np.ones((20, 30), bool)
    walls[:, 15] = False
    grid = gamenav.TileGrid(walls)
    crowd = gamenav.Crowd(grid, [(2.5 + (i % 6), 2.5 + i // 6) for i in range(agents)], radius=0.3, max_speed=6.0)
    crowd.move(crowd.ids, (25.5, 10.5))
    crowd.update(1 / 30)
    assert crowd.failed.all()
    grid.set_walkable((15, 3), True)  # a door, far from where they stand
    assert not crowd.failed.any()
    for _ in range(600):
        crowd.update(1 / 30)
    assert crowd.arrived.all() and (crowd.positions[:, 0] > 15).all()
    grid.set_walkable((15, 3), False)
    grid.set_walkable((0, 0), False)  # an edit that opens nothing leaves those that fail failed
    crowd.move(crowd.ids, (2.5, 2.5))
    crowd.update(1 / 30)
    assert crowd.failed.all()
    grid.set_cost((20, 10), 3.0)
    crowd.update(1 / 30)
    assert crowd.failed.all()



def _held(crowd: gamenav.Crowd, frames: int) -> None:
    """``frames`` updates after each of which the game puts agent 0 back at (1.5, 2.5) (a push:
    its route is kept), so it makes no progress."""
    for _ in range(frames):
        crowd.update(1 / 30)
        if crowd.failed[0]:
            return
        crowd.place([0], [(1.5, 2.5)])


def test_an_agent_tried_again_after_an_edit_starts_with_no_stuck_state() -> None:
    """An agent failed by an edit (its goal walled in) and sent again when the wall opened kept its
    count of windows without progress: held back again, it re-pathed as stuck after one window
    (a fresh order waits two); it now starts afresh, as after a new order or a place."""
    grid = gamenav.TileGrid(np.ones((5, 14), bool))
    crowd = gamenav.Crowd(grid, [(1.5, 2.5)], radius=0.3, max_speed=4.0)
    crowd.move([0], (10.5, 2.5))
    _held(crowd, 12)  # one stuck window (stuck_seconds / 2) without progress
    ring = np.zeros((5, 14), bool)
    ring[1:4, 9:12] = True
    ring[2, 10] = False
    grid.set_walkable(ring, False)  # the goal walled in: no way, the agent fails
    assert crowd.failed[0]
    grid.set_walkable(ring, True)  # opened again: it tries again
    assert not crowd.failed[0]
    _held(crowd, 12)
    assert crowd.counters["stuck_repaths"] == 0
    _held(crowd, 12)  # the second window without progress: stuck, as for a fresh order
    assert crowd.counters["stuck_repaths"] == 1


def test_a_group_order_given_again_gives_its_failed_agent_its_re_paths_again() -> None:
    """The same group order given again sent its failed agent (held back until it gave up after
    4 re-paths) again with its re-path count spent: it failed after 2 windows without progress,
    with no re-path (23 frames); it now re-paths 4 times first, as under the first order."""
    grid = gamenav.TileGrid(np.ones((7, 14), bool))
    crowd = gamenav.Crowd(grid, [(1.5, 2.5), (1.5, 5.5)], radius=0.3, max_speed=4.0, flow_threshold=2)
    for _ in range(2):
        crowd.move([0, 1], (10.5, 3.5))
        before = crowd.counters["stuck_repaths"]
        _held(crowd, 400)
        assert crowd.failed.tolist() == [True, False] and crowd.arrived[1]
        assert crowd.counters["stuck_repaths"] - before == 4


@pytest.mark.parametrize(("name", "value"), [("max_speed", 5e-324), ("neighbor_dist", 5e-324)])
def test_a_speed_or_neighbour_distance_below_a_subnormal_cell_runs(name: str, value: float) -> None:
    """ORCA works in cells: on cells of 2 units a max_speed of 5e-324 (accepted) is 0 cells per
    second, and the update raised ZeroDivisionError from the kernel (the bend divided by the
    speed); a neighbor_dist of 5e-324 gave the agents' cell list cells of size 0 (the same)."""
    grid = gamenav.TileGrid(np.ones((4, 4), bool), cell_size=2.0)
    sizes = {"radius": 0.6, "max_speed": 2.0, name: value}
    crowd = gamenav.Crowd(grid, [(1.0, 1.0), (3.0, 1.0)], **sizes)
    crowd.move([0], (7.0, 7.0), formation=False)
    for _ in range(3):
        crowd.update(0.1)
    assert np.isfinite(crowd.positions).all() and np.isfinite(crowd.velocities).all()
    assert (crowd.positions[0] > 1.0).all() == (name == "neighbor_dist")


def test_a_subnormal_neighbour_distance_does_not_freeze_the_update() -> None:
    """A neighbor_dist of 5e-324 on 1-unit cells made the agents' cell list start from cells of
    5e-324, which its growth by 1.01 rounded back to 5e-324: the update looped for ever. It runs
    in a child, so the old code fails by the timeout."""
    code = ("import numpy as np, gamenav\n"
            "grid = gamenav.TileGrid(np.ones((4, 4), bool))\n"
            "crowd = gamenav.Crowd(grid, [(0.5, 0.5), (1.5, 0.5)], radius=0.3, max_speed=1.0, neighbor_dist=5e-324)\n"
            "crowd.move([0], (3.5, 3.5), formation=False)\n"
            "crowd.update(0.1)\n"
            "print(crowd.positions[0].tolist())\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[0.5707106781186547, 0.5707106781186547]"


def _on_free_cells(grid: gamenav.TileGrid, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Whether each segment from ``a`` to ``b`` ((m, 2) world) stays on passable cells (sampled)."""
    t = np.linspace(0.0, 1.0, 200)[None, :, None]
    cells = grid.world_to_cell((a[:, None] * (1.0 - t) + b[:, None] * t).reshape(-1, 2))
    return np.asarray(grid.passable[cells[:, 1], cells[:, 0]].reshape(len(a), t.shape[1]).all(axis=1))


@pytest.mark.parametrize("avoidance", ["orca", "separation"])
def test_a_group_unit_goes_straight_to_its_slot_only_when_nothing_stands_between(avoidance: str) -> None:
    """A group's unit went straight for its slot as soon as the field's cost (the distance to the
    order's target, not to the slot) said it was close: 6 of 20 units coming round a pillar next
    to the target took a straight leg through it to a slot on the other side (on arena.map, legs
    through pillars or across water in about 6 of 60 group routes). It goes straight only when
    the line from its cell to its slot's is clear, else it asks for a path there."""
    walk = np.ones((16, 24), bool)
    walk[5:11, 9:12] = False  # the pillar, just east of the target
    grid = gamenav.TileGrid(walk)
    rng = np.random.default_rng(0)
    free = np.array([(x, y) for x in range(17, 23) for y in range(3, 13)])
    crowd = gamenav.Crowd(grid, grid.cell_to_world(free[rng.choice(len(free), 20, replace=False)]), radius=0.3,
                          max_speed=4.0, avoidance=avoidance)
    crowd.move(crowd.ids, (7.5, 7.5))
    mode = crowd.mode.copy()
    for _ in range(600):
        before = crowd.positions.copy()
        crowd.update(1 / 30)
        assert _on_free_cells(grid, before, crowd.positions).all()  # (each step keeps off the pillar)
        new = np.flatnonzero((crowd.mode == DIRECT) & (mode != DIRECT))
        centres = grid.cell_to_world(grid.world_to_cell(crowd.positions[new]))
        assert _on_free_cells(grid, centres, crowd.goals[new]).all(), new
        mode = crowd.mode.copy()
        if crowd.arrived.all():
            break
    assert crowd.arrived.all()


def test_an_edit_after_the_crowds_queue_closed_does_not_raise_and_its_re_paths_wait() -> None:
    """``grid.set_walkable`` raised the closed queue's InvalidInputError ("cannot request paths
    from a closed PathQueue") out of the crowd's edit listener into the game: the re-paths the
    edit asks for now wait in the crowd (``pending``); ``update`` still says the queue is
    closed, and an open queue assigned takes them."""
    grid = gamenav.TileGrid(np.ones((12, 12), bool))
    queue = gamenav.PathQueue(budget_ms=None, max_expansions=10_000)
    crowd = gamenav.Crowd(grid, [(1.5, 1.5), (1.5, 3.5)], radius=0.3, max_speed=4.0, queue=queue)
    crowd.move([0, 1], (10.5, 10.5))
    queue.update()
    crowd.update(1 / 30)
    assert crowd.pending == 0
    queue.close()
    grid.set_walkable((0, 6, 11, 7), False)  # a wall across every path, a gap at its end
    assert crowd.pending == 2
    with pytest.raises(gamenav.InvalidInputError, match="closed PathQueue"):
        crowd.update(1 / 30)
    crowd.queue = queue = gamenav.PathQueue(budget_ms=None, max_expansions=10_000)
    for _ in range(300):
        queue.update()
        crowd.update(1 / 30)
    assert crowd.arrived.all()


def test_a_disc_as_wide_as_its_corridor_is_not_counted_overlapping_the_walls() -> None:
    """A unit of radius half a cell a hair (1e-9 cells) off the centre line of a corridor one cell
    wide was pushed off one wall by the push's margin of 1e-9 cells into the other, for ever, and
    counted as a wall overlap in every sub-step (30 in 30 frames; the demo's 5000 units, whose
    tanks are half a cell, reported hundreds, none deeper than that hair). Overlaps of at most a
    millionth of a cell are not counted."""
    walk = np.zeros((3, 12), bool)
    walk[1, :] = True
    grid = gamenav.TileGrid(walk)
    crowd = gamenav.Crowd(grid, [(5.5, 1.5 - 1e-9)], radius=0.5, max_speed=4.0)
    for _ in range(30):
        crowd.update(1 / 30)
    crowd.move([0], (11.5, 1.5))
    for _ in range(90):
        crowd.update(1 / 30)
    assert crowd.arrived[0] and crowd.counters["wall_overlaps"] == 0
    assert wall_overlap(crowd).max() < 1e-6


@pytest.mark.parametrize("with_queue", [False, True])
def test_an_edit_whose_re_paths_the_search_refuses_does_not_raise_and_they_wait(with_queue: bool) -> None:
    """A crowd with ``path_options={"algorithm": "jps"}`` on a grid whose costs later stopped being
    uniform: ``grid.set_walkable`` across its 2 agents' paths raised UnsupportedOptionError out of
    the crowd's edit listener, and (without a queue) the agents kept their routes through the new
    wall with no re-path pending. The re-paths now wait in the crowd; ``update`` raises the
    search's error, and goes on once the options are mended."""
    grid = gamenav.TileGrid(np.ones((12, 12), bool))
    queue = gamenav.PathQueue(budget_ms=None, max_expansions=10_000) if with_queue else None
    crowd = gamenav.Crowd(grid, [(1.5, 1.5), (1.5, 3.5)], radius=0.3, max_speed=4.0, queue=queue,
                          path_options={"algorithm": "jps"})
    crowd.move([0, 1], (10.5, 10.5))
    if queue is not None:
        queue.update()
    crowd.update(1 / 30)
    grid.set_cost((0, 9, 12, 10), 3.0)  # (no path is blocked: nothing re-paths)
    grid.set_walkable((0, 6, 11, 7), False)  # a wall across both paths, a gap at its end
    assert crowd.pending == 2
    with pytest.raises(gamenav.UnsupportedOptionError, match="uniform-cost"):
        crowd.update(1 / 30)
    crowd.path_options = {}
    for _ in range(300):
        if queue is not None:
            queue.update()
        crowd.update(1 / 30)
    assert crowd.arrived.all()



def test_a_place_or_target_at_the_edge_of_float64_finds_the_nearest_passable_cell() -> None:
    """The passable cell nearest to (1.7e308, -1e308) (a Follower's sprite moved off the map, a
    big group's target on the cells it fits) went through numpy's "overflow encountered in
    hypot" (an error under -W error) and then took the first candidate, every distance being
    inf: cell (4, 4) below, where (5, 4) is nearer (by 5e298, far above float64's rounding
    there). Distances are now computed quartered, which is exact and cannot overflow."""
    walkable = np.ones((6, 6), bool)
    walkable[5, 5] = False  # (the corner the far point clamps to)
    big = gamenav.TileGrid(walkable, cell_size=5e298, y_up=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        follower = gamenav.Follower(big, big.cell_to_world((2, 2)).tolist(), speed=1e298)
        follower._place_near([1.7e308, -1e308])  # (what the arcade and pygame followers do with their sprites)
        assert big.world_to_cell(np.array(follower.position)).tolist() == [5, 4]
        grid = gamenav.TileGrid(walkable)
        for target in ((1.7e308, -1.7e308), (-1.7e308, 1.7e308)):
            crowd = gamenav.Crowd(grid, [(2.5, 2.5), (2.5, 3.5)], radius=0.8, max_speed=1.0)
            crowd.move(crowd.ids, target)
            cells = grid.world_to_cell(crowd.goals)
            assert grid.passable[cells[:, 1], cells[:, 0]].all()
