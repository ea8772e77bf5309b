"""Crowd: validation, arrival, formations, flow fields, edits, and the kernels against brute force."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import pytest
import shapely
from hypothesis import given, settings
from hypothesis import strategies as st

import gamenav
from gamenav import PathStatus
from gamenav._kernels.crowd import descend_field, follow_paths, resolve_walls, separation
from gamenav.runtime._congestion import ONCOMING_COST, oncoming_scale
from gamenav.runtime.crowd import DIRECT, FIELD, PATH, _run_waypoints, _straight_runs


def open_grid(h: int = 20, w: int = 30, **kwargs) -> gamenav.TileGrid:
    return gamenav.TileGrid(np.ones((h, w), bool), **kwargs)


def on_free_cells(crowd: gamenav.Crowd) -> bool:
    g = crowd.grid
    cells = g.world_to_cell(crowd.positions)
    inside = ((cells >= 0) & (cells < (g.width, g.height))).all(axis=1)
    return bool(inside.all() and g.passable[cells[:, 1], cells[:, 0]].all())


def run(crowd: gamenav.Crowd, frames: int, dt: float = 1 / 30, queue=None, check=True) -> None:
    for _ in range(frames):
        if queue is not None:
            queue.update()
        crowd.update(dt)
        if check:
            assert on_free_cells(crowd)


# -- validation ---------------------------------------------------------------------------
def test_positions_must_be_n_by_2() -> None:
    with pytest.raises(gamenav.InvalidInputError, match=r"positions must have shape \(n, 2\), got \(2, 3\)"):
        gamenav.Crowd(open_grid(), np.zeros((2, 3)), radius=0.3, max_speed=1)


def test_positions_on_blocked_cells_are_rejected() -> None:
    grid = gamenav.TileGrid.from_strings(["..#", "..."])
    with pytest.raises(gamenav.InvalidInputError, match=r"agent 1 at \(2\.5, 0\.5\) is in blocked cell \(2, 0\)"):
        gamenav.Crowd(grid, [(0.5, 0.5), (2.5, 0.5)], radius=0.3, max_speed=1)


@pytest.mark.parametrize("name", ["radius", "max_speed", "stuck_seconds", "reroute_seconds"])
def test_nonpositive_parameters(name: str) -> None:
    kwargs = {"radius": 0.3, "max_speed": 1.0, "stuck_seconds": 1.0, name: 0.0}
    with pytest.raises(gamenav.InvalidInputError, match=f"{name} must be a finite number > 0, got 0.0"):
        gamenav.Crowd(open_grid(), [(0.5, 0.5)], **kwargs)


def test_reroute_seconds_assigned_is_checked() -> None:
    crowd = gamenav.Crowd(open_grid(), [(0.5, 0.5)], radius=0.3, max_speed=1.0)
    assert crowd.reroute_seconds is None
    crowd.reroute_seconds = 2
    assert crowd.reroute_seconds == 2.0
    for bad in (float("nan"), -1.0, "1", True):
        with pytest.raises(gamenav.InvalidInputError, match="reroute_seconds must be a finite number > 0"):
            crowd.reroute_seconds = bad
    assert crowd.reroute_seconds == 2.0


def test_bad_agent_indices_and_dt() -> None:
    crowd = gamenav.Crowd(open_grid(), [(0.5, 0.5)], radius=0.3, max_speed=1)
    with pytest.raises(gamenav.InvalidInputError, match=r"unknown agent ids \[3\]"):
        crowd.move([0, 3], (5.0, 5.0))
    with pytest.raises(gamenav.InvalidInputError, match="dt must be a finite number >= 0, got -1"):
        crowd.update(-1)


def test_state_is_read_only() -> None:
    crowd = gamenav.Crowd(open_grid(), [(0.5, 0.5)], radius=0.3, max_speed=1)
    with pytest.raises(ValueError):
        crowd.positions[0, 0] = 3.0


# -- moving -------------------------------------------------------------------------------
def test_single_agent_reaches_exact_point_without_formation() -> None:
    grid = gamenav.TileGrid.from_strings(["......", ".####.", "......"], cell_size=10.0, y_up=True)
    crowd = gamenav.Crowd(grid, grid.cell_to_world([(0, 0)]), radius=2, max_speed=40)
    crowd.move([0], (57.0, 3.0), formation=False)
    run(crowd, 120)
    assert crowd.arrived[0] and not crowd.failed[0]
    assert np.hypot(*(crowd.positions[0] - (57.0, 3.0))) < 0.25 * grid.cell_size


def test_move_formation_is_a_flag() -> None:
    """``formation`` takes bools and numpy bools like every flag; other values raise (a string
    was taken as True)."""
    grid = gamenav.TileGrid(np.ones((6, 60), bool))
    crowd = gamenav.Crowd(grid, [(1.5, 1.5)], radius=0.3, max_speed=5.0)
    crowd.move([0], (57.2, 3.1), formation=np.bool_(False))
    assert crowd.goals[0].tolist() == [57.2, 3.1]  # the exact point: no formation
    with pytest.raises(gamenav.InvalidInputError, match="formation must be a bool"):
        crowd.move([0], (57.2, 3.1), formation="no")


def test_small_group_spreads_into_formation_slots() -> None:
    grid = open_grid()
    start = grid.cell_to_world([(x, y) for x in range(2, 4) for y in range(2, 6)])
    crowd = gamenav.Crowd(grid, start, radius=0.3, max_speed=5, flow_threshold=100)
    crowd.move(np.arange(8), (20.5, 10.5))
    assert (crowd.mode == PATH).sum() + (crowd.mode == DIRECT).sum() == 8  # one find_path each
    run(crowd, 300)
    assert crowd.arrived.all()
    slots = grid.world_to_cell(crowd.goals)
    assert len({tuple(c) for c in slots.tolist()}) == 8, "every unit has its own slot"
    assert np.hypot(*(slots - (20, 10)).T).max() <= 2.5, "slots are the cells nearest the target"


def test_big_group_uses_one_flow_field_around_a_wall() -> None:
    walk = np.ones((30, 40), bool)
    walk[3:30, 20] = False  # a wall with a gap at the top
    grid = gamenav.TileGrid(walk)
    rng = np.random.default_rng(3)
    cells = np.stack([rng.integers(0, 15, 60), rng.integers(0, 30, 60)], axis=1)
    crowd = gamenav.Crowd(grid, grid.cell_to_world(cells), radius=0.35, max_speed=6, flow_threshold=16)
    crowd.move(np.arange(60), (32.5, 20.5))
    assert (crowd.mode == FIELD).all()
    assert len(crowd.flow_fields) == 1 and crowd.counters["path_requests"] == 0
    run(crowd, 900)
    assert crowd.arrived.mean() >= 0.95
    assert crowd.flow_fields == []  # dropped once nobody uses it


def test_a_mixed_group_descends_one_field_per_size_class() -> None:
    """Infantry is not held to the lanes of the group's tanks: across a three-cell bridge the
    tanks' field keeps to the middle row, the infantry's uses all three; everyone arrives."""
    walk = np.ones((15, 30), bool)
    walk[:, 12:18] = False
    walk[6:9, 12:18] = True  # the bridge, rows 6 .. 8
    grid = gamenav.TileGrid(walk)
    cells = [(x, y) for x in (2, 4, 6, 8) for y in range(2, 13, 2)]
    radius = np.where(np.arange(len(cells)) % 6 == 0, 0.8, 0.3)
    crowd = gamenav.Crowd(grid, grid.cell_to_world(cells), radius=radius, max_speed=4.0, flow_threshold=16)
    crowd.move(np.arange(len(cells)), (25.5, 7.5))
    assert (crowd.mode == FIELD).all() and len(crowd.flow_fields) == 2
    small, big = sorted(crowd.flow_fields, key=lambda f: int(np.isfinite(f).sum()), reverse=True)
    assert np.isfinite(small[6:9, 12:18]).all(), "infantry may use the whole bridge"
    assert np.isfinite(big[7, 12:18]).all() and not np.isfinite(big[[6, 8], 12:18]).any(), "tanks: its middle"
    run(crowd, 900)
    assert crowd.arrived.all()
    assert crowd.flow_fields == []


def _two_corridors(reroute: float | None) -> gamenav.Crowd:
    """Group 0 fills the top corridor eastwards; then group 1 is ordered westwards, on the
    same corridor by distance (rows 2-4 and 12-14 cross a 12-cell wall)."""
    walk = np.ones((17, 40), bool)
    walk[:, 14:26] = False
    walk[2:5, 14:26] = True
    walk[12:15, 14:26] = True
    grid = gamenav.TileGrid(walk)
    east = [(x, y) for x in range(12, 26) for y in (2, 3, 4)]
    west = [(x, y) for x in range(30, 38) for y in range(1, 6)]
    crowd = gamenav.Crowd(grid, grid.cell_to_world(east + west), radius=0.3, max_speed=3.0, flow_threshold=16,
                          reroute_seconds=reroute)
    crowd.move(np.arange(len(east)), (38.5, 3.5))
    crowd.move(np.arange(len(east), len(east) + len(west)), (1.5, 3.5))
    return crowd


def test_a_group_field_is_replanned_around_the_crowd_coming_the_other_way() -> None:
    crowd = _two_corridors(reroute=0.5)
    plain = crowd.flow_fields[1]
    assert plain[3, 27] < plain[13, 27], "by distance the westward group takes the top corridor"
    run(crowd, 20)  # both fields re-planned (one per update once 0.5 s old)
    field = crowd.flow_fields[1]
    assert field[3, 27] > field[13, 27], "the top corridor is full of the other group: go round"
    assert crowd.counters["flow_fields"] >= 4
    assert (field >= plain - 1e-9).all() and field[3, 1] == 0.0  # congestion only adds cost
    still = _two_corridors(reroute=None)
    run(still, 20)
    np.testing.assert_array_equal(still.flow_fields[1], plain)
    assert still.counters["flow_fields"] == 2


def test_oncoming_scale_counts_the_agents_climbing_the_field() -> None:
    field = np.tile(np.arange(6.0), (5, 1))  # grows eastwards: its source is the west column
    field[0, 5] = np.inf
    cells = np.array([[2, 2], [2, 2], [3, 2], [4, 0]])
    ahead = np.array([[3, 2], [1, 2], [3, 1], [5, 0]])  # east: oncoming; west, north, into inf: not
    cover = np.array([0.9, 5.0, 5.0, 5.0])
    scale = oncoming_scale(field, cells, ahead, cover)
    assert scale is not None and scale.shape == field.shape
    expected = np.ones(field.shape)
    expected[1:4, 1:4] += ONCOMING_COST * 0.9 / 9.0  # the 3 x 3 mean around cell (2, 2)
    np.testing.assert_allclose(scale, expected)
    assert oncoming_scale(field, cells[1:], ahead[1:], cover[1:]) is None


def test_the_size_classes_of_one_order_do_not_reroute_each_other() -> None:
    """The tanks of an order walk away from the gap only infantry fits (up the infantry's
    field): that is the same order going its own way, not a crowd coming the other way."""
    walk = np.ones((30, 30), bool)
    walk[:, 15] = False
    walk[2, 15] = True  # one cell: infantry only
    walk[24:28, 14:17] = True  # four cells: tanks too
    grid = gamenav.TileGrid(walk)
    cells = [(x, y) for x in range(3, 9, 2) for y in range(1, 8, 2)] + [(12, y) for y in range(2, 9, 2)]
    radius = np.where(np.arange(len(cells)) < 12, 0.3, 0.8)
    crowd = gamenav.Crowd(grid, grid.cell_to_world(cells), radius=radius, max_speed=4.0, flow_threshold=16,
                          reroute_seconds=0.2)
    crowd.move(np.arange(len(cells)), (25.5, 3.5))
    assert len(crowd.flow_fields) == 2
    infantry = max(crowd.flow_fields, key=lambda f: int(np.isfinite(f).sum()))
    tanks = radius == 0.8
    def climbed() -> npt.NDArray[np.float64]:
        x, y = grid.world_to_cell(crowd.positions[tanks]).T
        return infantry[y, x]

    before = climbed()
    run(crowd, 60)
    after = climbed()
    assert (after > before + 3).all(), "the tanks walk up the infantry's field, to the wide gap"
    assert crowd.counters["flow_fields"] == 2, "no field was re-planned"


def test_a_field_is_kept_when_nobody_comes_the_other_way() -> None:
    crowd = _two_corridors(reroute=0.2)
    crowd.stop(np.arange(42, 82))  # the westward group stands still
    before = crowd.flow_fields[0].copy()
    run(crowd, 30)
    np.testing.assert_array_equal(crowd.flow_fields[0], before)
    assert crowd.counters["flow_fields"] == 2


def test_unreachable_target_fails_the_agents() -> None:
    walk = np.ones((10, 10), bool)
    walk[:, 5] = False
    grid = gamenav.TileGrid(walk)
    crowd = gamenav.Crowd(grid, [(1.5, 1.5), (2.5, 1.5)], radius=0.3, max_speed=3, flow_threshold=1)
    crowd.move([0, 1], (8.5, 8.5))
    assert crowd.failed.all() and not crowd.arrived.any()


def test_agents_coming_through_a_queue() -> None:
    grid = open_grid()
    queue = gamenav.PathQueue(budget_ms=None, max_expansions=50)
    crowd = gamenav.Crowd(grid, grid.cell_to_world([(1, 1), (1, 3), (1, 5)]), radius=0.3, max_speed=5,
                          queue=queue)
    crowd.move([0, 1, 2], (25.5, 15.5))
    assert crowd.pending == 3
    run(crowd, 300, queue=queue)
    assert crowd.pending == 0 and crowd.arrived.all()


def test_switching_queues_moves_pending_requests() -> None:
    grid = open_grid()
    slow = gamenav.PathQueue(budget_ms=None, max_expansions=1)
    crowd = gamenav.Crowd(grid, grid.cell_to_world([(1, 1)]), radius=0.3, max_speed=5, queue=slow)
    crowd.move([0], (25.5, 15.5))
    fast = gamenav.PathQueue(budget_ms=None, max_expansions=10_000)
    crowd.queue = fast
    assert len(slow) == 0 and crowd.pending == 1
    fast.update()
    crowd.update(1 / 30)
    assert crowd.pending == 0 and crowd.mode[0] == PATH


def test_idle_agents_on_one_spot_separate() -> None:
    crowd = gamenav.Crowd(open_grid(), [(10.5, 10.5)] * 6, radius=0.3, max_speed=3)
    run(crowd, 90)
    p = crowd.positions
    d = np.hypot(*(p[:, None] - p[None]).transpose(2, 0, 1))
    assert d[~np.eye(6, dtype=bool)].min() > 0.3


# -- edits --------------------------------------------------------------------------------
def test_building_on_top_of_agents_pushes_them_out_and_they_still_arrive() -> None:
    grid = open_grid(30, 40)
    cells = [(x, y) for x in range(8, 13) for y in range(8, 13)]
    crowd = gamenav.Crowd(grid, grid.cell_to_world(cells), radius=0.35, max_speed=6, flow_threshold=10)
    crowd.move(np.arange(25), (35.5, 25.5))
    run(crowd, 5)
    change = grid.set_walkable((6, 6, 15, 15), False)
    assert change is not None and on_free_cells(crowd)
    assert crowd.counters["pushed_out"] > 0
    run(crowd, 900)
    assert crowd.arrived.all()


def test_only_agents_whose_path_crosses_the_edit_repath() -> None:
    grid = open_grid(20, 30)
    crowd = gamenav.Crowd(grid, grid.cell_to_world([(1, 2), (1, 15)]), radius=0.3, max_speed=4,
                          flow_threshold=100)
    crowd.move([0], (28.5, 2.5), formation=False)
    crowd.move([1], (28.5, 15.5), formation=False)
    requests = crowd.counters["path_requests"]
    grid.set_walkable((14, 0, 15, 6), False)  # across agent 0's straight path only
    assert crowd.counters["edit_repaths"] == 1
    assert crowd.counters["path_requests"] == requests + 1
    run(crowd, 400)
    assert crowd.arrived.all()


def test_goal_slot_on_a_new_wall_moves_to_a_free_cell() -> None:
    grid = open_grid()
    crowd = gamenav.Crowd(grid, grid.cell_to_world([(1, 1)]), radius=0.3, max_speed=5)
    crowd.move([0], (15.5, 15.5))
    grid.set_walkable((14, 14, 17, 17), False)
    gx, gy = grid.world_to_cell(crowd.goals[0])
    assert grid.is_passable(int(gx), int(gy))
    run(crowd, 300)
    assert crowd.arrived[0]


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), y_up=st.booleans())
def test_agents_never_stand_on_blocked_cells(seed: int, y_up: bool) -> None:
    rng = np.random.default_rng(seed)
    walk = rng.random((16, 16)) > 0.3
    walk[0, 0] = True
    grid = gamenav.TileGrid(walk, cell_size=2.0, y_up=y_up)
    free = np.argwhere(walk)[:, ::-1]
    cells = free[rng.integers(0, len(free), 20)]
    crowd = gamenav.Crowd(grid, grid.cell_to_world(cells) + rng.uniform(-0.9, 0.9, (20, 2)),
                          radius=0.6, max_speed=8, flow_threshold=int(rng.integers(1, 30)))
    target = grid.cell_to_world(free[rng.integers(0, len(free))])
    crowd.move(np.arange(20), tuple(target))
    for frame in range(60):
        crowd.update(1 / 20)
        assert on_free_cells(crowd)
        if frame == 20:
            grid.set_walkable(tuple(int(v) for v in rng.integers(0, 16, 2)), False)
            assert on_free_cells(crowd)


# -- helpers and kernels against brute force ----------------------------------------------
def test_straight_runs_fill_the_cells_between_corners() -> None:
    cells = np.array([[0, 0], [3, 3], [3, 5], [1, 5], [1, 5]])
    seg = _straight_runs(cells)
    assert seg.tolist() == [[0, 0, 3, 3, 3], [3, 3, 0, 2, 2], [3, 5, -2, 0, 2], [1, 5, 0, 0, 1]]
    # all of it, and from the second waypoint of the second run on
    way, run, k, owner = _run_waypoints(seg, np.array([0, 1]), np.array([1, 2]), np.array([4, 3]))
    assert way.tolist() == [[1, 1], [2, 2], [3, 3], [3, 4], [3, 5], [2, 5], [1, 5], [1, 5],
                            [3, 5], [2, 5], [1, 5], [1, 5]]
    assert run.tolist() == [0, 0, 0, 1, 1, 2, 2, 3, 1, 2, 2, 3]
    assert k.tolist() == [1, 2, 3, 1, 2, 1, 2, 1, 2, 1, 2, 1]
    assert owner.tolist() == [0] * 8 + [1] * 4


def _filled_route(corners: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Brute force: the cells of the straight runs between corners (start excluded) and the
    corner ending each one's run."""
    cells, ends = [], []
    for a, b in zip(corners[:-1], corners[1:], strict=True):
        steps = max(int(np.abs(b - a).max()), 1)
        for k in range(1, steps + 1):
            f = k * (1 / steps)
            cells.append([a[0] + round((b[0] - a[0]) * f), a[1] + round((b[1] - a[1]) * f)])
            ends.append(b)
    return np.array(cells), np.array(ends)


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), y_up=st.booleans())
def test_followers_step_through_the_waypoints_of_their_runs(seed: int, y_up: bool) -> None:
    """A path is stored as its straight runs: the route an agent reports is the filled runs,
    and an agent put on each waypoint in turn goes on along that same route (what lies ahead
    is a shorter tail of it) aiming at the end of the run it is on."""
    rng = np.random.default_rng(seed)
    grid = gamenav.TileGrid(np.ones((20, 30), bool), cell_size=1.5, origin=(-4.0, 2.0), y_up=y_up)
    corners = np.cumsum(rng.integers(-3, 4, (6, 2)), axis=0) % (30, 20)
    crowd = gamenav.Crowd(grid, grid.cell_to_world(corners[:1]), radius=0.3, max_speed=1.0, flow_threshold=10**9)
    crowd._install(0, gamenav.Path(cells=corners, points=grid.cell_to_world(corners), cost=0.0,
                                   status=PathStatus.FOUND, expanded=0))
    cells, ends = _filled_route(corners)
    route = crowd.remaining_path(0)[1:-1]  # between the agent and its goal
    np.testing.assert_allclose(route, grid.cell_to_world(cells))
    for j, point in enumerate(route):
        crowd._pos[0] = point
        target = crowd._pos.copy()
        crowd._follow_paths(target)
        if crowd._mode[0] != PATH:  # past its last waypoint
            assert j >= len(route) - 4
            break
        ahead = crowd.remaining_path(0)[1:-1]
        assert 0 < len(ahead) < len(route) - j
        np.testing.assert_allclose(ahead, route[len(route) - len(ahead):])
        np.testing.assert_allclose(target[0], grid.cell_to_world(ends[len(route) - len(ahead)]))
    else:
        raise AssertionError("the agent never left its path")


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), look_ahead=st.integers(1, 6))
def test_follow_paths_kernel_matches_the_rule_on_the_filled_route(seed: int, look_ahead: int) -> None:
    """The kernel, reading runs, takes the waypoint the documented rule picks on the filled
    route: the nearest of the next ``look_ahead``, then up to 3 more passed or within reach."""
    rng = np.random.default_rng(seed)
    corners = np.cumsum(rng.integers(-4, 5, (rng.integers(2, 6), 2)), axis=0)
    cells, ends = _filled_route(corners)
    seg = _straight_runs(corners)
    run, k = _run_waypoints(seg, np.array([0]), np.array([1]), np.array([len(seg)]))[1:3]
    world = cells + 0.5  # origin 0, cell size 1, y down
    m = 16
    cur = rng.integers(0, len(cells), m)
    pos = world[cur] + rng.normal(0.0, 1.5, (m, 2))
    mode = np.ones(m, np.int8)
    pcur, pk = run[cur].copy(), k[cur].copy()
    target = np.zeros((m, 2))
    follow_paths(pos, mode, pcur, pk, np.full(m, len(seg)), seg, corners[1:] + 0.5, 0.0, 0.0, 1.0, False, 100,
                 look_ahead, 0.6, 1, 2, target)
    last = len(cells) - 1
    for i in range(m):
        rows = [min(cur[i] + j, last) for j in range(look_ahead)]
        best = rows[int(np.argmin([np.sum((world[r] - pos[i]) ** 2) for r in rows]))]
        done = False
        for _ in range(3):
            w, a = world[best], world[min(best + 1, last)] - world[best]
            if not (np.dot(pos[i] - w, a) > 0 or np.sum((w - pos[i]) ** 2) < 0.36):
                break
            best += 1
            if best > last:
                done = True
                break
        assert (mode[i] == 2) == done
        if not done:
            assert (pcur[i], pk[i]) == (run[best], k[best])
            np.testing.assert_array_equal(target[i], ends[best] + 0.5)


def test_orca_circle_swap_all_arrive() -> None:
    """RVO2's circle example, small: agents pushed off their straight paths head on to the goal
    (not back to the cells of the line), so the crossing at the centre does not jam."""
    n = 32
    angle = 2 * np.pi * np.arange(n) / n
    start = 12.0 * np.stack([np.cos(angle), np.sin(angle)], axis=1)
    grid = gamenav.TileGrid(np.ones((32, 32), bool), origin=(-16.0, -16.0))
    crowd = gamenav.Crowd(grid, start, radius=0.5, max_speed=2.0, arrive_radius=0.5, flow_threshold=10**9,
                          path_options={"smooth": True}, requests_per_update=10**9)
    for i in range(n):
        crowd.move([i], tuple(-start[i]), formation=False)
    for _ in range(1000):
        crowd.update(0.1)
        if crowd.arrived.all():
            break
    assert crowd.arrived.all() and not crowd.failed.any()
    assert (np.hypot(*(crowd.positions + start).T) < 1.5).all()


@settings(max_examples=40, deadline=None)
@given(n=st.integers(0, 60), seed=st.integers(0, 2**31 - 1), radius=st.floats(0.1, 3.0))
def test_separation_matches_brute_force(n: int, seed: int, radius: float) -> None:
    rng = np.random.default_rng(seed)
    pos = rng.uniform(0, 10, (n, 2))
    vel = rng.normal(size=(n, 2))
    push, flow = np.empty((n, 2)), np.empty((n, 2))
    separation(pos, vel, radius, push, flow)
    for i in range(n):
        d = pos[i] - pos
        dist = np.hypot(d[:, 0], d[:, 1])
        near = (dist < 2 * radius) & (np.arange(n) != i) & (dist > 1e-12)
        expect = (d[near] / dist[near, None] * (1 - dist[near, None] / (2 * radius))).sum(axis=0)
        np.testing.assert_allclose(push[i], expect, atol=1e-9)
        around = (dist < 4 * radius) & (np.arange(n) != i)
        mean = vel[around].mean(axis=0) if around.any() else np.zeros(2)
        np.testing.assert_allclose(flow[i], mean, atol=1e-9)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), y_up=st.booleans())
def test_resolve_walls_keeps_points_on_free_cells(seed: int, y_up: bool) -> None:
    rng = np.random.default_rng(seed)
    walk = rng.random((8, 8)) > 0.4
    walk[4, 4] = True
    grid = gamenav.TileGrid(walk, cell_size=1.5, origin=(2.0, -1.0), y_up=y_up)
    free = np.argwhere(walk)[:, ::-1]
    prev = grid.cell_to_world(free[rng.integers(0, len(free), 50)])
    pos = prev + rng.normal(scale=1.5, size=prev.shape)
    passable, _ = grid._kernel_arrays()
    resolve_walls(prev, pos, passable, grid.origin[0], grid.origin[1], grid.cell_size, grid.y_up, 0.3)
    cells = grid.world_to_cell(pos)
    inside = ((cells >= 0) & (cells < 8)).all(axis=1)
    assert inside.all() and walk[cells[:, 1], cells[:, 0]].all()


def test_descending_a_distance_field_reaches_the_source() -> None:
    rng = np.random.default_rng(5)
    walk = rng.random((25, 25)) > 0.25
    walk[12, 12] = True
    grid = gamenav.TileGrid(walk)
    field = gamenav.distance_field(grid, (12, 12))
    start = np.argwhere(np.isfinite(field))[:, ::-1].astype(np.int64)
    cells = start.copy()
    passable, _ = grid._kernel_arrays()
    for _ in range(25 * 25):
        nxt = np.empty_like(cells)
        descend_field(field, passable, cells, nxt)
        assert (field[nxt[:, 1], nxt[:, 0]] <= field[cells[:, 1], cells[:, 0]]).all()
        cells = nxt
    assert (cells == (12, 12)).all()
    assert np.isinf(field[~walk]).all()


def test_navmesh_world_paths_keep_agents_off_walls() -> None:
    walk = np.ones((20, 30), bool)
    walk[0:15, 10] = False
    grid = gamenav.TileGrid(walk)
    mesh = gamenav.NavMesh.from_polygons(shapely.box(0, 0, 30, 20), obstacles=[shapely.box(10, 0, 11, 15)],
                                         agent_radius=0.3)
    queue = gamenav.PathQueue(budget_ms=None, max_expansions=200)
    crowd = gamenav.Crowd(grid, grid.cell_to_world([(2, 2), (3, 5), (4, 8)]), radius=0.3, max_speed=5,
                          queue=queue, world=mesh)
    crowd.move([0, 1, 2], (20.5, 3.5))
    assert crowd.pending == 3
    run(crowd, 300, queue=queue)
    assert crowd.arrived.all() and crowd.counters["path_requests"] == 3
    crowd.world = grid  # switching back re-paths nobody (all arrived)
    assert crowd.counters["path_requests"] == 3


def test_path_answered_before_an_edit_is_checked_against_it() -> None:
    grid = open_grid(10, 20)
    queue = gamenav.PathQueue(budget_ms=None, max_expansions=10_000)
    crowd = gamenav.Crowd(grid, grid.cell_to_world([(1, 5)]), radius=0.3, max_speed=5, queue=queue)
    crowd.move([0], (8.5, 5.5), formation=False)
    queue.update()  # answered: straight along row 5, not yet collected by the crowd
    grid.set_walkable((5, 5), False)
    assert crowd.counters["edit_repaths"] == 1
    run(crowd, 200, queue=queue)
    assert crowd.arrived[0] and np.hypot(*(crowd.positions[0] - (8.5, 5.5))) < 0.3



def test_remaining_paths_follow_the_field_around_walls() -> None:
    walk = np.ones((20, 20), bool)
    walk[0:15, 10] = False
    grid = gamenav.TileGrid(walk)
    crowd = gamenav.Crowd(grid, grid.cell_to_world([(2, 2), (3, 2), (2, 3)]), radius=0.3, max_speed=3,
                          flow_threshold=1)
    crowd.move([0, 1, 2], (15.5, 2.5))
    routes = crowd.remaining_paths([2, 0])
    assert len(routes) == 2 and np.allclose(routes[0][0], crowd.positions[2])
    for route, agent in zip(routes, (2, 0), strict=True):
        assert np.allclose(route[-1], crowd.goals[agent])
        inner = grid.world_to_cell(route[1:-1])
        assert walk[inner[:, 1], inner[:, 0]].all()
        assert inner[:, 1].max() >= 15, "the route goes around the wall's end"
    crowd.stop([1])
    assert crowd.remaining_path(1).shape == (1, 2)


def test_slowing_down_on_arrival_is_not_getting_stuck() -> None:
    grid = open_grid(6, 10, cell_size=32.0)
    crowd = gamenav.Crowd(grid, grid.cell_to_world([(0, 0)]), radius=8, max_speed=200, arrive_radius=0.5)
    crowd.move([0], (300.0, 170.0), formation=False)
    run(crowd, 240, dt=1 / 60)
    assert crowd.arrived[0] and crowd.counters["stuck_repaths"] == 0
    assert np.hypot(*(crowd.positions[0] - (300.0, 170.0))) < 0.5
    with pytest.raises(gamenav.InvalidInputError, match="arrive_radius must be a finite number > 0, got -1"):
        gamenav.Crowd(grid, grid.cell_to_world([(0, 0)]), radius=8, max_speed=200, arrive_radius=-1)


def test_requests_are_sent_a_few_per_update() -> None:
    grid = open_grid(30, 30)
    queue = gamenav.PathQueue(budget_ms=None, max_expansions=100_000)
    cells = [(x, y) for x in range(0, 10) for y in range(0, 10)]
    crowd = gamenav.Crowd(grid, grid.cell_to_world(cells), radius=0.2, max_speed=5, queue=queue,
                          flow_threshold=1000, requests_per_update=16)
    crowd.move(np.arange(100), (25.5, 25.5))
    assert crowd.counters["path_requests"] == 16 and crowd.pending == 100
    queue.update()
    crowd.update(1 / 30)
    assert crowd.counters["path_requests"] == 32
    run(crowd, 10, queue=queue)
    assert crowd.counters["path_requests"] == 100
    with pytest.raises(gamenav.InvalidInputError, match="requests_per_update must be an int >= 1, got 0"):
        gamenav.Crowd(grid, grid.cell_to_world(cells), radius=0.2, max_speed=5, requests_per_update=0)
