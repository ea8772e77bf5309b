"""Agents on changing worlds, fourth round: followers and crowds re-planning where their paths put
them, small formations, and worlds edited under them."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import gamenav
from gamenav import Crowd, PathQueue, TileGrid
from gamenav.runtime import crowd as crowd_module


def test_small_formation_plans_only_the_cells_its_slots_can_lie_on(monkeypatch: pytest.MonkeyPatch) -> None:
    """A formation of fewer than ``flow_threshold`` agents planned a distance field of the whole map
    for its slots (25 ms per order on 1024 x 1024); it plans the window its slot budget reaches,
    and its slots and their costs are those of the whole map's field."""
    rng = np.random.default_rng(3)
    walk = rng.random((120, 150)) > 0.2
    cost = np.where(rng.random(walk.shape) < 0.3, 3.0, 1.0)
    grid = TileGrid(walk, cost=cost)
    free = np.argwhere(walk)[:: 997][:6]
    crowd = Crowd(grid, grid.cell_to_world(free[:, ::-1]), radius=0.3, max_speed=2.0, queue=PathQueue())
    planned: list[tuple[int, int]] = []
    field_of = crowd_module._distance_field

    def spy(g: TileGrid, *args: Any, **kwargs: Any) -> Any:
        planned.append(g.shape)
        return field_of(g, *args, **kwargs)

    monkeypatch.setattr(crowd_module, "_distance_field", spy)
    crowd.move(np.arange(6), (75.3, 60.6))
    assert planned and max(h * w for h, w in planned) <= 41 * 41  # (budget 2 * (sqrt(6) + 4) cells each way)
    goals = grid.world_to_cell(crowd.goals)
    target = crowd._snap_cell(grid.world_to_cell(np.array([75.3, 60.6])))
    whole = gamenav.distance_field(grid, tuple(target.tolist()))
    assert len({tuple(c) for c in goals.tolist()}) == 6
    np.testing.assert_array_equal(crowd._slot_cost, whole[goals[:, 1], goals[:, 0]])
