"""Extreme scale: work that grows with the map or the number of orders, not with the answer."""
from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import gamenav
from gamenav.runtime import crowd as crowd_module


def _count_fields(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Count the distance fields the crowd plans."""
    calls: list[int] = []
    real = crowd_module._distance_field

    def counted(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(crowd_module, "_distance_field", counted)
    return calls


@pytest.mark.parametrize("formation", [True, False])
def test_an_order_of_one_slot_plans_no_field_of_the_map(monkeypatch: pytest.MonkeyPatch, formation: bool) -> None:
    # each such order planned a field and scanned every cell of the map for its one slot (the target's
    # cell): 1000 units ordered one by one on a 1024 x 1024 map took 19 s, 1.5 s without it
    grid = gamenav.TileGrid(np.ones((200, 300), bool))
    crowd = gamenav.Crowd(grid, [(1.5, 1.5), (5.5, 1.5), (9.5, 1.5)], radius=0.3, max_speed=2.0)
    calls = _count_fields(monkeypatch)
    crowd.move([0], (250.5, 150.5), formation=formation)
    crowd.move([1, 2], (120.25, 80.75), formation=False)
    assert calls == []
    np.testing.assert_array_equal(crowd.goals, [(250.5, 150.5), (120.25, 80.75), (120.25, 80.75)])
    crowd.move([1, 2], (120.5, 80.5))  # a formation of two still spreads its agents over slots
    assert len(calls) == 1
    assert len({tuple(g) for g in crowd.goals[1:].tolist()}) == 2


class _CountingDict(dict[int, Any]):
    """A dict counting the entries its ``items()`` hands out."""

    visited = 0

    def items(self) -> Any:
        for item in super().items():
            _CountingDict.visited += 1
            yield item


def test_orders_given_one_agent_at_a_time_do_work_independent_of_the_orders_given() -> None:
    # each order swept the records of every order still carried out (a dict rebuilt per order):
    # 4000 units ordered one by one spent 22 of 60 s there, a time quadratic in the orders
    grid = gamenav.TileGrid(np.ones((40, 40), bool))
    cells = np.argwhere(np.ones((40, 40), bool))[:300, ::-1] + 0.5
    crowd = gamenav.Crowd(grid, cells, radius=0.3, max_speed=2.0)
    for i, a in enumerate(crowd.ids.tolist()):
        crowd.move([a], (39.5 - i % 40, 20.5), formation=False)
    counting = _CountingDict(crowd._given)
    crowd._given = counting
    _CountingDict.visited = 0
    crowd.move([0, 1], (3.5, 3.5), formation=False)
    assert _CountingDict.visited == 0
    assert set(crowd._given) == set(np.unique(crowd._order).tolist())  # the replaced orders forgotten
    crowd.remove([5, 6, 7])  # so are the orders of removed agents
    assert set(crowd._given) == set(np.unique(crowd._order).tolist())
    crowd.move([8], (3.5, 3.5), formation=False)
    assert set(crowd._given) == set(np.unique(crowd._order).tolist())


def test_the_nearest_free_cell_deep_inside_a_wall_is_found_in_few_windows(monkeypatch: pytest.MonkeyPatch) -> None:
    # the windows round the target grew one ring at a time, each scanned whole: cubic in the distance
    # to the nearest free cell (an order into the middle of a 1024 x 1024 wall took 2.2 s, now 0.1 s)
    walk = np.zeros((201, 201), bool)
    walk[0, :] = True
    crowd = gamenav.Crowd(gamenav.TileGrid(walk), [(0.5, 0.5)], radius=0.3, max_speed=2.0)
    windows: list[int] = []
    real = gamenav.Crowd._nearest_within

    def counted(self: gamenav.Crowd, passable: Any, cell: Any, r: int, point: Any) -> Any:
        windows.append(r)
        return real(self, passable, cell, r, point)

    monkeypatch.setattr(gamenav.Crowd, "_nearest_within", counted)
    crowd.move([0], (100.5, 100.5))
    np.testing.assert_array_equal(crowd.goals, [(100.5, 0.5)])
    assert len(windows) <= 10  # 0, 1, 3, ..., 127, then the found cell's reach (old: 0, 1, 2, ..., 100)


def _held(queue: gamenav.PathQueue) -> int:
    return sum(job.search is not None for job in queue._jobs.values())


def test_searches_waiting_their_turn_give_back_their_work_arrays_beyond_a_bound() -> None:
    # every started search kept its workspace until served: quick requests (or requests each more
    # urgent than the last) on a 1550 x 1550 maze held 67 MB each, 808 MB for 12 of them
    grid = gamenav.TileGrid(np.ones((300, 300), bool))
    cap = (256 << 20) // (32 * 302 * 302)  # searches of 32 bytes a padded cell within 256 MiB
    queue = gamenav.PathQueue(budget_ms=None, max_expansions=50)
    goals = [(299, y) for y in range(cap + 30)]
    requests = [queue.request(grid, (0, 0), goal, quick_expansions=10) for goal in goals]
    assert _held(queue) <= cap
    more = [queue.request(grid, (0, 5), goal, priority=i) for i, goal in enumerate(goals)]  # each preempts
    for _ in range(len(more)):
        queue.update()
    assert _held(queue) <= cap + 1  # (the update's own start)
    assert queue._held_bytes == 32 * 302 * 302 * _held(queue)
    queue.max_expansions = 10**9
    queue.update()
    assert len(queue) == 0
    for req, goal in zip(requests, goals, strict=True):
        expected = gamenav.find_path(grid, (0, 0), goal)
        assert req.path.cost == expected.cost
        np.testing.assert_array_equal(req.path.cells, expected.cells)
