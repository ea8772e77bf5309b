"""Adversarial review of :class:`gamenav.Follower`: extreme numbers in its arguments.
Each test fails on the code before its fix."""

from __future__ import annotations

import gc
import itertools
from typing import Any

import numpy as np
import pytest

import gamenav
from gamenav import Follower, InvalidInputError, PathQueue, TileGrid


def test_a_speed_above_the_limit_is_reported_as_speed() -> None:
    """``Follower(speed=1e300)`` was refused as "max_speed must be at most 1e+10", naming the
    argument of the Crowd inside, not the one the caller passed."""
    grid = TileGrid.from_strings(["....", "...."], cell_size=10)
    with pytest.raises(InvalidInputError, match=r"^speed must be at most 1e\+10, got 1e\+300$"):
        Follower(grid, (5, 5), speed=1e300)
    assert Follower(grid, (5, 5), speed=1e10).position == (5.0, 5.0)  # the limit itself is taken


def test_a_dropped_follower_leaves_no_work_in_the_queue() -> None:
    """A follower garbage-collected with its request pending left it in the queue, spending its
    budget until answered (1 pending after the drop)."""
    grid = TileGrid.from_strings(["." * 60] * 20)
    queue = PathQueue(budget_ms=None, max_expansions=1)
    agent = Follower(grid, (0.5, 0.5), speed=2.0, queue=queue)
    agent.move_to((50.5, 15.5))
    assert len(queue) == 1
    del agent
    gc.collect()
    queue.update()
    assert len(queue) == 0 and queue.stats.cancelled == 1 and queue.stats.last_frame_expansions == 0


def _on_polyline(point: tuple[float, float], polyline: np.ndarray) -> bool:
    """Whether ``point`` lies on one of the straight legs of ``polyline`` ``(k, 2)``."""
    p, a, b = np.asarray(point), polyline[:-1], polyline[1:]
    ab = b - a
    t = np.clip(np.einsum("ij,ij->i", p - a, ab) / np.maximum(np.einsum("ij,ij->i", ab, ab), 1e-300), 0, 1)
    return bool(np.hypot(*(a + t[:, None] * ab - p).T).min() < 1e-9)


_ZIGZAG = ["..........", ".########.", "..........", "#########.", ".........."]
_STAIRS = ["#" * i + ".." + "#" * (18 - i) for i in range(19)]  # a path of 37 one-cell legs, each one a turn


@pytest.mark.parametrize("rows", [_ZIGZAG, _STAIRS])
@pytest.mark.parametrize("cells_per_second", [1.0, 2000.0, 1e9])
@pytest.mark.parametrize("dt", [1 / 60, 0.5, 100.0])
def test_any_speed_and_frame_length_walk_the_path_to_exactly_the_goal(rows: list[str], cells_per_second: float,
                                                                      dt: float) -> None:
    """The follower steered like a crowd agent: at 1 cell per second it rounded the corners (up to
    3.2 units off the path, cell size 10) and arrived 0.47 units short of its goal; on 37
    one-cell turns a 1e9 cells/s agent needed 2 frames (a sub-step stopped at each turn, 32 of
    them) and a 2000 cells/s one cut corners by 0.68 units (before the crowd capped sub-steps at
    their target, 2000 cells/s at dt 0.5 overshot the zigzag's turns and failed 18 cells short).
    Now it walks the path's legs, carrying the rest of each step round every corner, and stands
    exactly on its goal, arrived once."""
    grid = TileGrid.from_strings(rows, cell_size=10)
    goal = (5.0, 45.0) if rows is _ZIGZAG else (195.0, 185.0)
    agent = Follower(grid, (5, 5), speed=cells_per_second * 10)
    agent.move_to(goal)
    route = np.concatenate([[(5.0, 5.0)], agent.path.points])
    arrivals = 0
    for _ in range(5000):
        was = agent.arrived
        agent.update(dt)
        arrivals += agent.arrived and not was
        assert _on_polyline(agent.position, route)
        assert agent.arrived or cells_per_second < 1e9  # (there within the first frame)
        if agent.arrived:
            break
    agent.update(dt)
    assert agent.arrived and not agent.failed and arrivals == 1
    assert agent.position == goal


def test_place_walks_on_to_the_goal_from_the_new_place_not_along_the_old_route() -> None:
    """A follower could not be put somewhere (a teleport, a knockback): now :meth:`Follower.place`
    puts it there, and it walks to its goal on a path from there, never across the wall."""
    grid = TileGrid.from_strings(["......", ".####.", "......"], cell_size=10)
    queue = PathQueue(budget_ms=None, max_expansions=10_000)
    agent = Follower(grid, (5, 5), speed=20, queue=queue)
    agent.move_to((45, 5))
    for _ in range(15):
        queue.update()
        agent.update(1 / 30)
    agent.move_to((55, 5))  # (a request pending when it is put elsewhere)
    agent.place((5, 25))
    assert agent.position == (5.0, 25.0) and agent.path.status is gamenav.PathStatus.IN_PROGRESS
    agent.update(1 / 30)  # waits for its new path
    assert agent.position == (5.0, 25.0) and not agent.arrived
    for _ in range(300):
        queue.update()
        agent.update(1 / 30)
        x, y = grid.world_to_cell(np.array(agent.position)).tolist()
        assert grid.passable[y, x]
    assert agent.arrived and agent.position == (55.0, 5.0)
    assert agent.path.points[0].tolist() == [5.0, 25.0]
    agent.place((25, 25))  # arrived: it stands there
    for _ in range(30):
        agent.update(1 / 30)
    assert agent.arrived and agent.position == (25.0, 25.0)
    with pytest.raises(InvalidInputError, match="blocked cell"):
        agent.place((25, 15))
    agent.close()
    with pytest.raises(InvalidInputError, match="cannot place a closed Follower"):
        agent.place((5, 5))


def _crosses_a_wall(grid: TileGrid, a: np.ndarray, b: np.ndarray) -> bool:
    """Whether the segment ``a``-``b`` runs through the inside of a blocked cell (touching one is allowed)."""
    ys, xs = np.nonzero(~grid.passable)
    lo = grid.cell_to_world(np.stack([xs, ys], axis=1)) - 0.5 * grid.cell_size + 1e-9
    hi = lo + grid.cell_size - 2e-9
    t_in, t_out = np.zeros(len(lo)), np.ones(len(lo))
    for axis in (0, 1):  # slabs: the part of the segment within each cell's extent on this axis
        d = b[axis] - a[axis]
        if d == 0:
            t_in = np.where((lo[:, axis] <= a[axis]) & (a[axis] <= hi[:, axis]), t_in, 2.0)
        else:
            t1, t2 = (lo[:, axis] - a[axis]) / d, (hi[:, axis] - a[axis]) / d
            t_in, t_out = np.maximum(t_in, np.minimum(t1, t2)), np.minimum(t_out, np.maximum(t1, t2))
    return bool((t_in <= t_out).any())


def _walk_nudged(grid: TileGrid, agent: Follower, queue: PathQueue | None, nudge: Any, frames: int) -> int:
    """Update ``agent`` until it arrives, putting it at ``nudge(position)`` (a point, or None)
    before each update, after the queue's (as the adapters' followers do); each frame it stands
    on a passable cell and no leg of its route ahead crosses a wall. Returns the frames it took
    (``frames``: not there)."""
    for frame in range(frames):
        if queue is not None:
            queue.update()
        moved = nudge(np.array(agent.position)) if frame else None
        if moved is not None:
            agent.place(moved)
        agent.update(1 / 30)
        x, y = grid.world_to_cell(np.array(agent.position)).tolist()
        assert grid.passable[y, x]
        route = agent.remaining_path
        assert not any(_crosses_a_wall(grid, route[k], route[k + 1]) for k in range(len(route) - 1)), route
        if agent.arrived:
            return frame
    return frames


_RING = ["......", ".####.", ".####.", "......"]


@pytest.mark.parametrize("queued", [False, True])
def test_a_follower_the_game_nudges_every_frame_keeps_its_path_and_arrives(queued: bool) -> None:
    """A game nudging its unit a little every frame (physics resolving a collision, rounding)
    made it drop its route and ask for a new one every frame: with a PathQueue the path came
    the next frame, when it had been nudged again, so it never walked (not a cell in 5 s).
    A move of at most half a cell beside the route is a push: the agent keeps its path."""
    grid = TileGrid.from_strings(_RING, cell_size=10)
    queue = PathQueue(budget_ms=None, max_expansions=10_000) if queued else None
    agent = Follower(grid, (5, 5), speed=30, queue=queue)
    agent.move_to((55, 35))
    if queue is not None:
        queue.update()
    agent.update(1 / 30)
    route = agent.path
    rng = np.random.default_rng(7)

    def jitter(at: np.ndarray) -> np.ndarray | None:
        to = at + rng.uniform(-0.1, 0.1, 2)
        x, y = grid.world_to_cell(to).tolist()
        return to if 0 <= x < 6 and 0 <= y < 4 and grid.passable[y, x] else None

    assert _walk_nudged(grid, agent, queue, jitter, 150) < 150
    assert agent.path is route and agent.position == (55.0, 35.0)


@pytest.mark.parametrize("queued", [False, True])
def test_nudges_towards_a_wall_corner_never_take_a_follower_through_it(queued: bool) -> None:
    """Pushed towards the nearest wall corner every frame (now and then by half a cell, into
    the cell diagonal past it), the agent keeps off the walls and no leg of its route crosses
    one: a push that would put its next waypoint past a wall corner is a teleport (a new path)."""
    grid = TileGrid.from_strings(_RING, cell_size=10)
    queue = PathQueue(budget_ms=None, max_expansions=10_000) if queued else None
    agent = Follower(grid, (5, 5), speed=30, queue=queue)
    agent.move_to((55, 35))
    walls = grid.cell_to_world(np.argwhere(~grid.passable)[:, ::-1])
    corners = np.concatenate([walls + (dx, dy) for dx in (-5, 5) for dy in (-5, 5)])
    frame = itertools.count()

    def towards_corner(at: np.ndarray) -> np.ndarray | None:
        d = corners[np.argmin(np.hypot(*(corners - at).T))] - at
        k = next(frame)
        to = at + d / max(float(np.hypot(*d)), 1e-9) * (5.0 if k % 10 == 5 and k < 100 else 0.15)
        x, y = grid.world_to_cell(to).tolist()
        return to if 0 <= x < 6 and 0 <= y < 4 and grid.passable[y, x] else None

    assert _walk_nudged(grid, agent, queue, towards_corner, 300) < 300
    assert agent.position == (55.0, 35.0)


def test_a_move_beyond_half_a_cell_or_past_a_wall_corner_still_re_paths() -> None:
    grid = TileGrid.from_strings(_RING, cell_size=10)
    agent = Follower(grid, (5, 5), speed=30)
    agent.move_to((55, 35))
    agent.update(1 / 30)
    route = agent.path
    agent.place((5.0, 11.0))  # (a push: on down its column)
    assert agent.path is route
    agent.place((5.0, 16.5))  # 0.55 cells: a teleport, a path from there
    assert agent.path is not route and agent.path.points[0].tolist() == [5.0, 15.0]
    agent.move_to((5, 5))
    for _ in range(60):
        agent.update(1 / 30)
    assert agent.arrived
    agent.move_to((55, 5))
    agent.update(1 / 30)
    route = agent.path
    agent.place((9.0, 11.0))  # (beside its waypoint (1, 0), but past the corner of the wall cell (1, 1))
    assert agent.path is not route and agent.path.points[0].tolist() == [5.0, 15.0]


@pytest.mark.parametrize("smooth", [False, True])
@pytest.mark.parametrize("rows", [_ZIGZAG, _RING + ["......"], [".........", ".#.#.#.#.", ".........", ".#.#.#.#."]])
def test_followers_pushed_about_at_random_keep_off_walls_and_their_routes_clear(rows: list[str],
                                                                               smooth: bool) -> None:
    """Pushed up to half a cell in any direction every frame, a follower stands on passable
    cells and no leg of its route ahead crosses a wall, on plain paths and on smoothed ones
    (long straight runs: it walks to a run's end, so a push beside a run with a wall between
    the agent and that end is a teleport; its next waypoint is the one beside it on the run)."""
    grid = TileGrid.from_strings(rows, cell_size=10)
    free = np.argwhere(grid.passable)[:, ::-1]
    rng = np.random.default_rng(0)

    def shove(at: np.ndarray) -> np.ndarray | None:
        to = at + rng.uniform(-3.5, 3.5, 2)
        x, y = grid.world_to_cell(to).tolist()
        return to if 0 <= x < grid.width and 0 <= y < grid.height and grid.passable[y, x] else None

    for _ in range(4):
        start, goal = grid.cell_to_world(free[rng.choice(len(free), 2, replace=False)])
        agent = Follower(grid, start, speed=60, smooth=smooth)
        agent.move_to(goal)
        _walk_nudged(grid, agent, None, shove, 200)  # (shoved about, it need not arrive: it keeps off walls)


def _walked_past(grid: TileGrid, start: tuple[float, float], goal: tuple[float, float], axis: int,
                 reach: float) -> tuple[Follower, gamenav.Path, float]:
    """A follower on a smoothed path from ``start`` to ``goal``, walked until its coordinate
    ``axis`` is at least ``reach``: ``(follower, its path, that coordinate)``."""
    agent = Follower(grid, start, speed=60, smooth=True)
    agent.move_to(goal)
    while agent.position[axis] < reach:
        agent.update(1 / 30)
    return agent, agent.path, agent.position[axis]


def test_a_push_beside_a_long_run_towards_a_wall_re_paths() -> None:
    """A follower walks straight to the end of its path's run (a smoothed path: one leg of 11
    cells). Pushed off it beside a blocked cell that lies between it and that end, keeping its
    route would walk it along the wall (its route ahead crossed it); it re-paths from there."""
    grid = TileGrid.from_strings(["............", ".....#......", "............"], cell_size=10)
    agent, route, x = _walked_past(grid, (5, 5), (115, 5), 0, 37)
    agent.place((x, 9.9))
    assert agent.path is route  # (a push: on along the run)
    agent.place((x + 0.5, 14.0))  # (beside the run, the blocked cell (5, 1) ahead between it and the run's end)
    assert agent.path is not route and agent.path.points[0].tolist() == [35.0, 15.0]
    assert _walk_nudged(grid, agent, None, lambda at: None, 200) < 200


def test_the_next_waypoint_of_a_follower_pushed_beside_its_run_is_the_one_beside_it() -> None:
    """Pushed sideways off a long run near its end, a follower's next waypoint was counted by its
    distance to the run's end, two cells back up the run: its route ahead went back round the
    corner of a blocked cell (from (14.6, 41.1) to (25, 35) through the cell (1, 3)). It is
    counted along the run: the waypoint beside it."""
    grid = TileGrid.from_strings(["...........", ".#.#.#.#.#.", "...........", ".#.#.#.#.#.", "..........."],
                                 cell_size=10)
    agent, route, y = _walked_past(grid, (25, 5), (25, 45), 1, 40.5)
    for x in (21.0, 17.0, 13.0):  # (three pushes into the cell (1, 4) beside the run's end)
        agent.place((x, y))
    assert agent.path is route
    assert _walk_nudged(grid, agent, None, lambda at: None, 60) < 60


@pytest.mark.parametrize("cell_size", [1e9, 1e200])
def test_a_pygame_rect_that_cannot_hold_the_agents_position_is_a_clear_error(cell_size: float) -> None:
    """A pygame.Rect holds C ints: the PathFollower wrote an agent at x = 4.5e9 pixels as 205032704
    without a word (1e200 cells: TypeError "invalid rect assignment" from inside pygame); it now
    raises InvalidInputError, and an FRect takes the same position."""
    pygame = pytest.importorskip("pygame")
    from gamenav.adapters.pygame import PathFollower

    grid = TileGrid.from_strings(["....."], cell_size=cell_size)
    for rect, holds in ((pygame.FRect(0, 0, 4, 4), cell_size < 1e38), (pygame.Rect(0, 0, 4, 4), False)):
        sprite = pygame.sprite.Sprite()
        sprite.rect = rect
        agent = PathFollower((0.5 * cell_size, 0.5 * cell_size), grid, speed=cell_size)
        agent.sprite = sprite
        agent.place((4.5 * cell_size, 0.5 * cell_size))
        if holds:
            agent.update(0.1)
            assert sprite.rect.center == pytest.approx((4.5 * cell_size, 0.5 * cell_size), rel=1e-6)
        else:
            with pytest.raises(InvalidInputError, match=rf"^the agent at \(4\.5e\+\d+, 5e\+\d+\) is beyond what the "
                               rf"sprite's {type(rect).__name__} holds \(coordinates up to "):
                agent.update(0.1)


@pytest.mark.parametrize(("cell_size", "origin", "y_up"), [(1.0, (0.0, 0.0), False), (0.1, (1e6, -3.3), True)])
def test_a_follower_on_a_navmesh_path_along_a_wall_stays_off_the_walls_cells(cell_size: float,
                                                                             origin: tuple[float, float],
                                                                             y_up: bool) -> None:
    """A navmesh path runs along the walls: the follower walked the top side of a wall, y = 1.0,
    which is in the wall's row (15 frames on a blocked cell); an edit elsewhere then threw it 0.6
    cells to a cell centre (as if walled in) and ``place(agent.position)`` was refused. It now
    walks the side a few ulps inside the free cells."""
    grid = TileGrid.from_strings(["......", "..#...", "..#...", "......"], cell_size=cell_size, origin=origin,
                                 y_up=y_up)
    agent = Follower(grid, tuple(grid.cell_to_world(np.array([0, 1]))), speed=2.0 * cell_size,
                     world=gamenav.NavMesh.from_grid(grid, follow=True))
    agent.move_to(tuple(grid.cell_to_world(np.array([5, 2]))))
    side = grid.cell_to_world(np.array([[2, 0], [2, 1]]))[:, 1].mean()  # the wall's top side
    on_side = 0
    for _ in range(300):
        agent.update(1 / 30)
        x, y = grid.world_to_cell(np.array(agent.position)).tolist()
        assert grid.passable[y, x]
        here = agent.position
        if abs(here[1] - side) <= 1e-9 * cell_size:
            on_side += 1
            grid.set_walkable((5, 3), not grid.passable[3, 5])  # an edit elsewhere leaves it where it is
            assert agent.position == here
            agent.place(here)
            assert agent.position == here
        if agent.arrived:
            break
    assert agent.arrived and on_side > 5
