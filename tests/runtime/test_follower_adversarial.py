"""Adversarial review of :class:`gamenav.Follower`: extreme numbers in its arguments.
Each test fails on the code before its fix."""

from __future__ import annotations

import pytest

from gamenav import Follower, InvalidInputError, TileGrid


def test_a_speed_above_the_limit_is_reported_as_speed() -> None:
    """``Follower(speed=1e300)`` was refused as "max_speed must be at most 1e+10", naming the
    argument of the Crowd inside, not the one the caller passed."""
    grid = TileGrid.from_strings(["....", "...."], cell_size=10)
    with pytest.raises(InvalidInputError, match=r"^speed must be at most 1e\+10, got 1e\+300$"):
        Follower(grid, (5, 5), speed=1e300)
    assert Follower(grid, (5, 5), speed=1e10).position == (5.0, 5.0)  # the limit itself is taken
