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
