"""Adversarial review of :class:`gamenav.Follower`: extreme numbers in its arguments.
Each test fails on the code before its fix."""

from __future__ import annotations

import gc

import pytest

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
