"""Error messages of crowds, distance fields and the warm-up with ints Python cannot write out
(over 4300 digits): the library's error, not the bare ValueError ``repr`` raises."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import gamenav
from gamenav import Crowd, TileGrid

HUGE = -10**5000


def _crowd() -> Crowd:
    return Crowd(TileGrid(np.ones((6, 6), dtype=bool)), [(1.5, 1.5)], radius=0.3, max_speed=1.0)


CALLS: dict[str, Callable[[], Any]] = {
    "Crowd(max_neighbors)": lambda: Crowd(TileGrid(np.ones((6, 6), dtype=bool)), [(1.5, 1.5)], radius=0.3,
                                          max_speed=1.0, max_neighbors=HUGE),
    "Crowd.update(dt)": lambda: _crowd().update(HUGE),
    "Crowd.remove(agent)": lambda: _crowd().remove([HUGE]),
    "distance_field(sources)": lambda: gamenav.distance_field(TileGrid(np.ones((4, 4), dtype=bool)), HUGE),
    "distance_field(source cell)": lambda: gamenav.distance_field(TileGrid(np.ones((4, 4), dtype=bool)),
                                                                  [(HUGE, 0)]),
    "warmup(grid)": lambda: gamenav.warmup(grid=HUGE),
    "warmup(progress)": lambda: gamenav.warmup(progress=HUGE),
}


@pytest.mark.parametrize("call", sorted(CALLS))
def test_a_huge_int_gets_the_librarys_error(call: str) -> None:
    with pytest.raises(gamenav.GamenavError) as error:
        CALLS[call]()
    assert "4300" in str(error.value) or "digits" in str(error.value) or "int" in str(error.value)
