"""The runtime under attack, third round: hostile numbers and keys around Crowd, PathQueue and PathCache."""

from __future__ import annotations

import sys
import warnings
from collections.abc import Callable

import numpy as np
import pytest

import gamenav
from gamenav import Crowd, PathQueue, PathStatus, TileGrid
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


@pytest.mark.parametrize("most", [2**63, np.uint64(2**64 - 1), 10**30])
def test_a_requests_per_update_beyond_sys_maxsize_means_no_limit(most: int) -> None:
    """Accepted, then every order through a queue raised a bare ValueError from itertools.islice."""
    grid = TileGrid.from_strings(["........"] * 4)
    queue = PathQueue(budget_ms=None, max_expansions=1000)
    crowd = Crowd(grid, [(0.5, 0.5), (1.5, 0.5), (2.5, 0.5)], radius=0.3, max_speed=4.0, queue=queue,
                  requests_per_update=most)
    crowd.move([0, 1, 2], (7.5, 3.5), formation=False)
    assert len(queue) == 3  # all sent at once
    crowd.requests_per_update = most  # (assigned later too)
    for _ in range(200):
        queue.update()
        crowd.update(1 / 30)
    assert crowd.counters["path_requests"] == 3 and not crowd.failed.any()
    assert np.hypot(*(crowd.positions - (7.5, 3.5)).T).max() < 1.0


@pytest.mark.parametrize("budget_ms", [1e308, sys.float_info.max])
def test_the_largest_finite_budgets_answer_short_searches_on_a_world_not_measured_yet(budget_ms: float) -> None:
    """A search started in an update on a world whose speed was not measured yet (short searches
    only) was sized from the time left at 200 ns per expansion: int() of an infinite count raised
    OverflowError from every update."""
    grid = TileGrid.from_strings(["........"] * 4)
    queue = PathQueue(budget_ms=budget_ms)
    requests = [queue.request(grid, (0, y), (7, 3)) for y in range(3)]  # the 2nd and 3rd start in update()
    queue.update()
    assert len(queue) == 0
    for req in requests:
        fresh = gamenav.find_path(grid, req.start, req.goal)
        assert req.status is PathStatus.FOUND and np.array_equal(req.path.cells, fresh.cells)
        assert req.path.cost == fresh.cost


@pytest.mark.parametrize("ids", [np.array([2**64 - 1], np.uint64), [2**63], [np.uint64(2**63 + 5)]])
def test_unknown_ids_beyond_int64_are_reported_as_given(ids: object) -> None:
    """They were cast to int64 first and reported as other ids: 2**64 - 1 as [-1], 2**63 as [-9223372036854775808]."""
    crowd = _crowd()
    given = int(np.asarray(ids).reshape(-1)[0])
    for action in (lambda: crowd.rows(ids), lambda: crowd.move(ids, (3.5, 0.5)), lambda: crowd.remove(ids)):
        with pytest.raises(InvalidInputError, match=rf"unknown agent ids \[{given}\] \(never added, or removed\)"):
            action()
    assert crowd.rows(np.array([0], np.uint64)).tolist() == [0] and len(crowd) == 1
