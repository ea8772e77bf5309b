"""Threads: searches on one grid from several threads while another thread edits it.

The editor cycles through a known list of grid states (each edit is effective, so a grid at
version ``v`` is in state ``v % len(states)``). Every result a searching thread gets must be
exactly right for the state its search saw: a torn read (a cost set to inf with the cell still
passable) or a half-applied edit shows up as a wrong cost, an infinite cost or a path through a
wall; a race in the grid's caches as an exception.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable

import numpy as np
import pytest

import gamenav
from gamenav import TileGrid

SIDE = 20
DURATION_S = 1.5
QUERIES = [((0, 0), (19, 19)), ((0, 19), (19, 0)), ((3, 10), (17, 10)), ((9, 0), (11, 19))]
WALL = (10, 0, 11, 16)  # column 10, rows 0..15: opened and closed by the editor


def _edits() -> list[Callable[[TileGrid], object]]:
    """Edits that lead from state 0 through every state and back to state 0."""
    return [
        lambda g: g.set_walkable(WALL, False),
        lambda g: g.set_cost((10, 17), math.inf),          # the last gap: blocked by cost
        lambda g: g.set_cost((10, 17), 1.0),
        lambda g: g.set_cost((5, 3, 15, 12), 3.0),
        lambda g: g.set_walkable((10, 18, 11, 20), False),
        lambda g: g.set_walkable((10, 18, 11, 20), True),
        lambda g: g.set_cost((5, 3, 15, 12), 1.0),
        lambda g: g.set_walkable(WALL, True),
    ]


def _base() -> TileGrid:
    cost = np.ones((SIDE, SIDE))
    cost[:, 4] = 2.0
    return TileGrid(np.ones((SIDE, SIDE), bool), cost=cost)


def _states() -> list[TileGrid]:
    grid = _base()
    states = []
    for edit in _edits():
        states.append(grid.copy())
        assert edit(grid) is not None  # every edit is effective: version == step count
    assert np.array_equal(grid.passable, states[0].passable)
    return states


def _check_path(path: gamenav.Path, state: TileGrid, expected: gamenav.Path) -> None:
    """``path`` is right for ``state``: same status, same optimal cost, walkable cell by cell."""
    assert path.status is expected.status
    if not path.found:
        return
    assert math.isfinite(path.cost) and path.cost == pytest.approx(expected.cost, abs=1e-9)
    cells = path.cells
    assert state.passable[cells[:, 1], cells[:, 0]].all()
    steps = np.abs(np.diff(cells, axis=0))
    assert (steps.max(axis=1) == 1).all()
    diag = steps.sum(axis=1) == 2
    length = np.where(diag, math.sqrt(2.0), 1.0)
    assert float((length * state.cost[cells[1:, 1], cells[1:, 0]]).sum()) == pytest.approx(
        path.cost, abs=1e-9)
    corners = cells[:-1][diag], cells[1:][diag]
    assert state.passable[corners[0][:, 1], corners[1][:, 0]].all()  # no corner cutting
    assert state.passable[corners[1][:, 1], corners[0][:, 0]].all()


def _run(workers: list[Callable[[], None]], grid: TileGrid) -> None:
    """Run ``workers`` (each repeatedly) against the editor for DURATION_S; re-raise failures."""
    stop = threading.Event()
    errors: list[BaseException] = []

    def loop(work: Callable[[], None]) -> None:
        try:
            while not stop.is_set():
                work()
        except BaseException as exc:  # noqa: BLE001 - reported by the main thread
            errors.append(exc)
            stop.set()

    def edit() -> None:
        for step in _edits():
            step(grid)

    threads = [threading.Thread(target=loop, args=(w,)) for w in [edit, *workers]]
    for t in threads:
        t.start()
    time.sleep(DURATION_S)
    stop.set()
    for t in threads:
        t.join()
    if errors:
        raise errors[0]


def test_searches_race_edits_and_see_one_consistent_state() -> None:
    states = _states()
    expected = [[gamenav.find_path(s, a, b) for a, b in QUERIES] for s in states]
    grid = _base()
    rng = np.random.default_rng(0)
    done = [0]

    def search() -> None:
        q = int(rng.integers(len(QUERIES)))
        start, goal = QUERIES[q]
        if rng.random() < 0.5:
            found = gamenav.GridSearch(grid, start, goal)
            while not found.step(int(rng.integers(1, 40))).done:
                pass
            path, version = found.result(), found.grid_version
        else:
            path, version = gamenav.find_path(grid, start, goal), None
        if version is not None:
            i = version % len(states)
            _check_path(path, states[i], expected[i][q])
        else:  # the state is unknown: it must be right for one of them
            matches = 0
            for state, answers in zip(states, expected, strict=True):
                try:
                    _check_path(path, state, answers[q])
                    matches += 1
                except AssertionError:
                    pass
            assert matches, f"{path} fits no grid state"
        done[0] += 1

    _run([search] * 4, grid)
    assert done[0] > 100


def test_distance_fields_and_islands_race_edits() -> None:
    states = _states()
    fields = [gamenav.distance_field(s, (0, 0)) for s in states]
    grid = _base()

    def field() -> None:
        got = gamenav.distance_field(grid, (0, 0))
        assert any(np.array_equal(got, f) for f in fields), "a field of no grid state"

    def islands() -> None:
        passable, cost = grid._kernel_arrays()  # one snapshot: never passable with cost inf
        assert np.isfinite(cost[passable]).all()
        labels = grid.components()
        assert any(np.array_equal(labels >= 0, s.passable) for s in states)

    _run([field, field, islands, islands], grid)
