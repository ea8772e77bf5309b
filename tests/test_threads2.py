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
