"""Threads (second review): objects shared between threads that the first review did not race."""

from __future__ import annotations

import threading
from typing import Any

import numpy as np
import pytest

import gamenav
from gamenav._kernels import grid_search as _k


def _in_thread(fn: Any) -> list[BaseException]:
    """Run ``fn`` in another thread (joined, with a timeout); the errors it raised."""
    errors: list[BaseException] = []

    def run() -> None:
        try:
            fn()
        except BaseException as exc:  # noqa: BLE001 - returned to the test
            errors.append(exc)

    thread = threading.Thread(target=run, daemon=True)  # (a kernel that never returns is left behind)
    thread.start()
    thread.join(60)
    assert not thread.is_alive(), "hung"
    return errors


def test_a_search_on_a_workspace_a_kernel_runs_on_in_another_thread_is_refused(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A SearchWorkspace shared by two threads: a search started while another thread's search
    stepped on it reset and rewrote the arrays under that kernel (3 threads calling find_path
    with one workspace on a 200 x 200 map: a segmentation fault). Now it is refused with a
    clear error and the running search answers as a one-shot search does."""
    grid = gamenav.TileGrid.from_strings(["." * 12] * 3 + ["#" * 10 + ".."] + ["." * 12] * 3)
    expected = gamenav.find_path(grid, (0, 0), (0, 6))
    ws = gamenav.SearchWorkspace(grid.shape)
    step = _k.best_first_step
    armed, other = [True], []

    def step_while_another_thread_searches(*args: Any) -> Any:
        if armed[0]:  # (the first step only)
            armed[0] = False
            other.extend(_in_thread(lambda: gamenav.find_path(grid, (5, 0), (5, 6), workspace=ws)))
        return step(*args)

    monkeypatch.setattr(_k, "best_first_step", step_while_another_thread_searches)
    paths: list[gamenav.Path] = []
    assert not _in_thread(lambda: paths.append(gamenav.find_path(grid, (0, 0), (0, 6), workspace=ws)))
    monkeypatch.undo()
    path = paths[0]
    assert not armed[0] and len(other) == 1 and isinstance(other[0], gamenav.InvalidInputError)
    assert "in use by a search running in another thread" in str(other[0])
    assert path.cost == expected.cost and np.array_equal(path.cells, expected.cells)
    assert gamenav.find_path(grid, (5, 0), (5, 6), workspace=ws).found  # free again afterwards


def test_the_pool_lends_no_workspace_a_kernel_still_runs_on(monkeypatch: pytest.MonkeyPatch) -> None:
    """A search cancelled from another thread while it steps gives its borrowed workspace back
    to the pool at once: a search that thread started next borrowed the arrays the step's kernel
    still ran on (old code: the step never returned). The pool now lends it only once the
    kernel is done; both searches answer as one-shot searches do."""
    grid = gamenav.TileGrid.from_strings(["." * 12] * 3 + ["#" * 10 + ".."] + ["." * 12] * 3)
    expected = gamenav.find_path(grid, (0, 0), (0, 6), weight=1.5)
    running = gamenav.GridSearch(grid, (0, 0), (0, 6), weight=1.5)
    arrays = running._ws  # (the workspace the step's kernel runs on)
    step = _k.best_first_step
    armed, other = [True], []

    def cancel_and_search_in_another_thread() -> None:
        running.cancel()
        other.append(gamenav.GridSearch(grid, (0, 0), (0, 6), weight=1.5))  # (borrows from the pool)

    def step_while_another_thread_cancels(*args: Any) -> Any:
        if armed[0]:
            armed[0] = False
            assert not _in_thread(cancel_and_search_in_another_thread)
        return step(*args)

    monkeypatch.setattr(_k, "best_first_step", step_while_another_thread_cancels)
    statuses: list[gamenav.PathStatus] = []
    assert not _in_thread(lambda: statuses.append(running.step()))
    monkeypatch.undo()
    assert not armed[0] and len(other) == 1
    assert arrays is not None and other[0]._ws is not arrays
    other[0].step()
    got = other[0].result()
    assert got.cost == expected.cost and np.array_equal(got.cells, expected.cells)


def _race_a_build_that_edits(monkeypatch: pytest.MonkeyPatch, owner: Any, name: str, builds_other: Any,
                             ask: Any) -> tuple[gamenav.TileGrid, list[Any]]:
    """Two 8 x 8 grids. ``owner.name`` (a build; ``builds_other(*args)``: a build for the second
    grid) is patched so that its build for the second grid, run by ``ask(second)`` in another
    thread, edits the first grid (what a ``__del__`` run by a collection there may do) while a
    third thread edits the first grid and its listener, holding that grid's edit lock, calls
    ``ask(first)``. Returns the first grid and the listener's answers; fails on a hang."""
    grid, other = gamenav.TileGrid(np.ones((8, 8), bool)), gamenav.TileGrid(np.ones((8, 8), bool))
    building, editing = threading.Event(), threading.Event()
    answers: list[Any] = []

    def listener(change: gamenav.GridChange) -> None:
        editing.set()  # (this thread holds the grid's edit lock)
        answers.append(ask(grid))  # builds the new snapshot's data

    grid.subscribe(listener)
    build = getattr(owner, name)
    armed = [True]

    def build_collecting(*args: Any) -> Any:
        if armed[0] and builds_other(other, *args):
            armed[0] = False
            building.set()
            assert editing.wait(60)
            grid.set_walkable((3, 3), False)  # what a __del__ run by a collection here may do
        return build(*args)

    monkeypatch.setattr(owner, name, build_collecting)
    thread = threading.Thread(target=lambda: ask(other), daemon=True)
    thread.start()
    assert building.wait(60)  # (the other thread builds other's data)
    assert not _in_thread(lambda: grid.set_walkable((5, 5), False)), "the edit failed"
    thread.join(60)
    assert not thread.is_alive(), "hung"
    monkeypatch.undo()
    assert not armed[0]
    return grid, answers


def test_a_padded_build_that_edits_a_grid_does_not_deadlock_with_a_listener_searching_it(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A garbage collection inside one thread's build of a snapshot's padded arrays may run a
    ``__del__`` that edits a grid (a crate blocking its cell), while another thread edits that
    grid and its listener searches the new snapshot: each held the lock the other waited for
    (the grid's edit lock, the global padded-arrays lock) and both hung for good. Builds take
    no lock now (two threads may build the same arrays; either is kept)."""
    from gamenav.grid import search as _search

    grid, found = _race_a_build_that_edits(
        monkeypatch, _search._Padded, "__init__",
        lambda other, padded, passable, *rest: passable is other._snapshot().passable,
        lambda world: gamenav.find_path(world, (0, 0), (7, 7), weight=1.5))
    assert found[0].found and found[-1].cost == gamenav.find_path(grid, (0, 0), (7, 7)).cost


def test_a_clearance_build_that_edits_a_grid_does_not_deadlock_with_a_listener_asking_for_clearance(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The same with clearances: a ``__del__`` run by a collection inside one thread's clearance
    build edited a grid whose listener, in another thread holding that grid's edit lock, asked
    for the new snapshot's ``clearance_mask``: each waited for the other's lock (the global
    clearance lock) for good. Builds take no lock now."""
    from gamenav.grid import clearance as _clearance

    grid, masks = _race_a_build_that_edits(
        monkeypatch, _clearance, "_compute", lambda other, state: state is other._snapshot(),
        lambda world: gamenav.clearance_mask(world, 1.0))
    assert len(masks) == 2
    assert np.array_equal(masks[-1], gamenav.clearance_mask(grid.copy(), 1.0))
