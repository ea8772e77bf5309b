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
