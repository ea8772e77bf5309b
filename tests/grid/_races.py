"""Searches racing grid edits, shared by the tests of the per-grid indexes (hpa, subgoal)."""

from __future__ import annotations

import threading
import time

import numpy as np

import gamenav


def race_door_edits(grid: gamenav.TileGrid, door: tuple[int, int, int, int], algorithm: str,
                    left: int, right: int) -> list[tuple[np.ndarray, gamenav.Path]]:
    """Two threads search from random passable cells with ``x < left`` to ones with
    ``x >= right`` (``algorithm``, one ``step()`` each) while this thread closes and reopens
    ``door`` (``(x0, y0, x1, y1)`` cells) 30 times.

    Returns:
        each answer with the passable cells of the grid version it describes. Raises the first
        error a thread met; asserts that there were more than 10 answers.
    """
    h, w = grid.shape
    versions = {grid.version: grid.passable.copy()}
    errors: list[BaseException] = []
    answers: list[tuple[int, gamenav.Path]] = []
    stop = threading.Event()

    def worker(seed: int) -> None:
        rng = np.random.default_rng(seed)
        walk = versions[min(versions)]
        try:
            while not stop.is_set():
                a = (int(rng.integers(0, left)), int(rng.integers(0, h)))
                b = (int(rng.integers(right, w)), int(rng.integers(0, h)))
                if not walk[a[1], a[0]] or not walk[b[1], b[0]]:
                    continue
                search = gamenav.GridSearch(grid, a, b, algorithm=algorithm)
                search.step()
                answers.append((search.world_version, search.result()))
        except BaseException as exc:  # noqa: BLE001 - re-raised below
            errors.append(exc)

    threads = [threading.Thread(target=worker, args=(seed,)) for seed in range(2)]
    for t in threads:
        t.start()
    try:
        for i in range(30):
            grid.set_walkable(door, i % 2 == 1)  # close / reopen the door
            versions[grid.version] = grid.passable.copy()
            time.sleep(0.002)
    finally:
        stop.set()
        for t in threads:
            t.join()
    if errors:
        raise errors[0]
    assert len(answers) > 10
    return [(versions[version], path) for version, path in answers]
