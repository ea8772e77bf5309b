"""Adversarial review of the runtime layer: callbacks and listeners that re-enter, extreme numbers,
sub-step bookkeeping. Each test fails on the code before its fix."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import gamenav
from gamenav import PathQueue, PathStatus


def open_grid(h: int = 10, w: int = 10, **kwargs: Any) -> gamenav.TileGrid:
    return gamenav.TileGrid(np.ones((h, w), bool), **kwargs)


@pytest.mark.parametrize("action", ["close", "update"])
def test_a_callback_that_closes_or_updates_its_queue_does_not_crash_the_update(action: str) -> None:
    grid = open_grid()
    queue = PathQueue(budget_ms=None, max_expansions=10_000)
    calls: list[Any] = []

    def done(req: gamenav.PathRequest) -> None:
        calls.append(req.goal)
        if len(calls) == 1:
            getattr(queue, action)()

    first = queue.request(grid, (0, 0), (5, 5), on_done=done)
    second = queue.request(grid, (0, 0), (6, 5), on_done=done)
    queue.update()  # IndexError (pop from an empty deque) before the fix
    assert first.status is second.status is PathStatus.FOUND
    assert calls == ([(5, 5)] if action == "close" else [(5, 5), (6, 5)])


def test_congestion_rerouting_plans_at_most_one_field_per_update_whatever_its_sub_steps() -> None:
    """``reroute_seconds`` promises one field per update; since updates run in sub-steps, a
    long frame re-planned a field in every sub-step (two groups, a 2 s frame: 16 Dijkstra
    fields in one update, a second spike on top of the hitch)."""
    grid = open_grid(20, 40)
    east = [(1.5 + i % 4, 1.5 + i // 4) for i in range(8)]
    west = [(38.5 - i % 4, 18.5 - i // 4) for i in range(8)]
    crowd = gamenav.Crowd(grid, east + west, radius=0.3, max_speed=4.0, reroute_seconds=0.05, flow_threshold=4)
    crowd.move(list(range(8)), (38.5, 18.5))
    crowd.move(list(range(8, 16)), (1.5, 1.5))
    for _ in range(3):
        crowd.update(1 / 30)
    before = crowd.counters["flow_fields"]
    crowd.update(2.0)  # 32 sub-steps
    assert crowd.counters["flow_fields"] - before == 1
