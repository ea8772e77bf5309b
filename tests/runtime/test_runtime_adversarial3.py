"""The runtime under attack, third round: hostile numbers and keys around Crowd, PathQueue and PathCache."""

from __future__ import annotations

import warnings
from collections.abc import Callable

import numpy as np
import pytest

from gamenav import Crowd, TileGrid
from gamenav.errors import InvalidInputError

_BEYOND = np.longdouble("1e400")  # finite to numpy, beyond float64


def _crowd() -> Crowd:
    return Crowd(TileGrid.from_strings(["......"]), [(0.5, 0.5)], radius=0.3, max_speed=1.0)


@pytest.mark.parametrize(("action", "message"), [
    (lambda c: Crowd(c.grid, [(_BEYOND, 0.5)], radius=0.3, max_speed=1.0), r"positions must be finite; agent 0"),
    (lambda c: Crowd(c.grid, [(0.5, 0.5)], radius=np.array([_BEYOND]), max_speed=1.0), r"radius must be finite"),
    (lambda c: Crowd(c.grid, [(0.5, 0.5)], radius=0.3, max_speed=[_BEYOND]), r"max_speed must be finite"),
    (lambda c: c.add(np.array([(_BEYOND, 0.5)])), r"positions must be finite; agent 0"),
    (lambda c: c.add([(0.5, 0.5)], radius=[_BEYOND]), r"radius must be finite"),
    (lambda c: c.place([0], [(0.5, _BEYOND)]), r"positions must be finite; agent 0"),
])
def test_long_doubles_beyond_float64_are_refused_without_an_overflow_warning(
        action: Callable[[Crowd], object], message: str) -> None:
    """numpy's cast to float64 warned 'overflow encountered in cast' first (an error under -W error)."""
    crowd = _crowd()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(InvalidInputError, match=message):
            action(crowd)
    assert crowd.positions.tolist() == [[0.5, 0.5]] and len(crowd) == 1  # nothing changed
