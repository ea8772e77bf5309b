"""Distance fields repaired after grid edits (``snapshot_field(since=)``): equal to a fresh field
bit for bit, whatever the edit (cells blocked, freed, costs changed), costs, cost scale, agent
radius, max_cost and movement rule; and the crowd's group fields re-planned that way."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import gamenav
from gamenav.errors import BlockedEndpointError
from gamenav.grid import fields
from gamenav.grid.fields import snapshot_field
from gamenav.runtime import crowd as crowd_module


def _bits(field: np.ndarray) -> np.ndarray:
    return field.view(np.int64)


def _repaired_matches_fresh(grid: gamenav.TileGrid, sources: list[tuple[int, int]], edits: list, **options) -> int:
    """Apply ``edits`` ((kind, mask, value)) one by one, repairing the field after each; assert it
    equals the fresh field bit for bit. Returns the number of repairs checked."""
    snap = grid._snapshot()
    field = snapshot_field(grid, snap, sources, **options)
    checked = 0
    for kind, mask, value in edits:
        if kind == "walkable":
            grid.set_walkable(mask, value)
        else:
            grid.set_cost(mask, value)
        now = grid._snapshot()
        try:
            fresh = snapshot_field(grid, now, sources, **options)
        except BlockedEndpointError:  # the edit blocked a source: no field to compare
            return checked
        repaired = snapshot_field(grid, now, sources, since=(snap, field), **options)
        assert np.array_equal(_bits(repaired), _bits(fresh)), (kind, value, np.argwhere(repaired != fresh))
        snap, field = now, repaired
        checked += 1
    return checked


@st.composite
def _cases(draw: st.DrawFn) -> tuple:
    h = draw(st.integers(2, 12))
    w = draw(st.integers(2, 12))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    walkable = rng.random((h, w)) > draw(st.sampled_from([0.0, 0.15, 0.35]))
    cost = np.where(rng.random((h, w)) < draw(st.sampled_from([0.0, 0.3])),
                    rng.choice([1.5, 2.0, 3.0, 1.0 + 2**-40]), 1.0)
    grid = gamenav.TileGrid(walkable, cost=cost)
    options = {
        "diagonal": draw(st.sampled_from(["never", "no_corner_cutting", "at_most_one_blocked", "always"])),
        "agent_radius": draw(st.sampled_from([0.0, 0.6, 1.0])),
        "max_cost": draw(st.sampled_from([math.inf, 3.0, 6.5])),
        "cost_scale": draw(st.sampled_from([None, "random", "tiny"])),
    }
    if options["cost_scale"] == "random":
        options["cost_scale"] = rng.choice([0.5, 1.0, 2.5], (h, w))
    elif options["cost_scale"] == "tiny":  # steps lost in rounding: one float step up
        options["cost_scale"] = np.where(rng.random((h, w)) < 0.5, 1e-300, 1.0)
    edits = []
    for _ in range(draw(st.integers(1, 4))):
        y0, x0 = draw(st.integers(0, h - 1)), draw(st.integers(0, w - 1))
        mask = np.zeros((h, w), bool)
        mask[y0:y0 + draw(st.integers(1, 4)), x0:x0 + draw(st.integers(1, 4))] = True
        kind = draw(st.sampled_from(["block", "free", "cost"]))
        edits.append(("walkable", mask, kind == "free") if kind != "cost" else
                     ("cost", mask, draw(st.sampled_from([1.0, 2.0, 7.0]))))
    return grid, options, edits, draw(st.integers(1, 3)), rng


@settings(max_examples=300, deadline=None)
@given(_cases())
def test_a_repaired_field_equals_the_fresh_one_bit_for_bit(case: tuple) -> None:
    grid, options, edits, n_sources, rng = case
    mask = gamenav.clearance_mask(grid, options["agent_radius"])
    free = np.argwhere(mask)
    if len(free) == 0:
        return
    sources = [tuple(int(v) for v in free[i][::-1]) for i in rng.choice(len(free), n_sources)]
    _repaired_matches_fresh(grid, sources, edits, **options)


@settings(max_examples=12, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from(["never", "no_corner_cutting", "at_most_one_blocked", "always"]),
       st.sampled_from([0.0, 1.0, 2.2]), st.sampled_from([math.inf, 40.0]))
def test_long_edit_sequences_on_a_larger_map_repair_exactly(seed: int, diagonal: str, radius: float,
                                                           max_cost: float) -> None:
    rng = np.random.default_rng(seed)
    walkable = np.ones((48, 48), bool)
    walkable[::12, :] = walkable[:, ::12] = False  # rooms with doors
    walkable[6::12, :] = walkable[:, 6::12] = True
    walkable &= rng.random(walkable.shape) > 0.05
    walkable[20:28, 20:28] = True  # the sources' room
    grid = gamenav.TileGrid(walkable, cost=np.where(rng.random(walkable.shape) < 0.2, 2.5, 1.0))
    edits = []
    for _ in range(15):
        y, x = rng.integers(0, 48, 2)
        mask = np.zeros(walkable.shape, bool)
        mask[y:y + rng.integers(1, 6), x:x + rng.integers(1, 6)] = True
        mask[20:28, 20:28] = False
        kind = rng.integers(3)
        edits.append(("cost", mask, 4.0) if kind == 2 else ("walkable", mask, bool(kind)))
    assert _repaired_matches_fresh(grid, [(23, 23), (25, 24)], edits, diagonal=diagonal, agent_radius=radius,
                                   max_cost=max_cost) == 15


def test_blocking_a_corridor_then_freeing_it_repairs_behind_it_and_beyond_max_cost() -> None:
    rows = ["..........",
            "########.#",
            "..........",
            ".#########",
            ".........."]
    grid = gamenav.TileGrid.from_strings(rows)
    door = np.zeros(grid.shape, bool)
    door[1, 8] = True
    for max_cost in (math.inf, 12.0):
        edits = [("walkable", door, False), ("walkable", door, True), ("cost", door, 3.0)]
        assert _repaired_matches_fresh(grid, [(0, 0)], edits, max_cost=max_cost) == 3
        grid.set_cost(door, 1.0)


def test_a_repair_searches_only_what_the_edit_reaches(monkeypatch) -> None:
    grid = gamenav.TileGrid(np.ones((60, 60), bool))
    snap = grid._snapshot()
    field = snapshot_field(grid, snap, [(0, 0)])
    corner = np.zeros(grid.shape, bool)
    corner[55:57, 55:57] = True  # near the far corner: little rests on it
    grid.set_walkable(corner, False)
    seeded = []
    run = fields._run
    monkeypatch.setattr(fields, "_run", lambda *a, **k: seeded.append(len(a[6])) or run(*a, **k))
    repaired = snapshot_field(grid, None, [(0, 0)], since=(snap, field))
    assert np.array_equal(_bits(repaired), _bits(snapshot_field(grid, None, [(0, 0)])))
    assert 0 < seeded[0] < 100, seeded  # the cells round the stale corner only, not the map (3600)


def _group(crowd: gamenav.Crowd) -> int:
    (gid,) = crowd._fields
    return gid


def test_the_crowds_group_field_is_repaired_after_an_edit_and_equals_a_fresh_one(monkeypatch) -> None:
    grid = gamenav.TileGrid(np.ones((30, 40), bool))
    crowd = gamenav.Crowd(grid, [(1.5 + i % 4, 1.5 + i // 4) for i in range(16)], radius=0.4, max_speed=2.0,
                          flow_threshold=4)
    crowd.move(range(16), (35.5, 25.5))
    gid = _group(crowd)
    calls = []  # the field each re-plan repairs
    real = crowd_module._distance_field
    monkeypatch.setattr(crowd_module, "_distance_field", lambda *a: calls.append(a[6]) or real(*a))
    wall = np.zeros(grid.shape, bool)
    wall[10:14, 15:19] = True
    for walkable in (False, True):
        grid.set_walkable(wall, walkable)
        source = tuple(int(v) for v in crowd._fields[gid][0])
        assert np.array_equal(_bits(crowd._fields[gid][1]), _bits(gamenav.distance_field(grid, source)))
    assert len(calls) == 2 and all(since is not None for since in calls)
    # a congestion re-plan (scaled costs) keeps the plain field: the next edit repairs that one
    crowd._replan_field(gid, np.full(grid.shape, 3.0))
    grid.set_walkable(wall, False)
    assert calls[-1] is not None
    assert np.array_equal(_bits(crowd._fields[gid][1]), _bits(gamenav.distance_field(grid, source)))
    crowd.close()
