"""Adversarial review of :class:`gamenav.Follower`: extreme numbers in its arguments.
Each test fails on the code before its fix."""

from __future__ import annotations

import gc

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
