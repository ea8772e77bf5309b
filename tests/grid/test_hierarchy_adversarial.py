"""Adversarial cases for the per-grid search indexes (JPS+ table, HPA* and subgoal graphs) and
the clearance transform: locks taken by first builds, listeners that search."""

from __future__ import annotations

import gc
import threading
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import gamenav
from gamenav.grid import _index, clearance, hpa, subgoal


@pytest.mark.parametrize("algorithm", ["subgoal", "hpa"])
def test_a_listener_may_build_an_index_while_another_thread_builds_it(algorithm: str,
                                                                      monkeypatch: Any) -> None:
    """Thread B's first query waits for the grid's edit lock, held by thread A's edit, whose
    listener runs a first query too: B must not hold a lock A's query needs (a lock shared
    by every grid's first build deadlocked both threads)."""
    grid = gamenav.TileGrid(np.ones((30, 30), dtype=bool))
    gamenav.prepare(gamenav.TileGrid(np.ones((4, 4), dtype=bool)), algorithm)  # compiled
    b_announced, b_building = threading.Event(), threading.Event()
    module: Any = _index if algorithm == "subgoal" else hpa
    real_announce = module.announce_compile

    def announce(group: str, *dispatchers: Any) -> None:  # B's call just before the build lock
        if threading.current_thread().name == "B":
            b_announced.set()
        real_announce(group, *dispatchers)

    monkeypatch.setattr(module, "announce_compile", announce)
    if algorithm == "subgoal":
        real_make = subgoal._indexes._make

        def make(g: gamenav.TileGrid) -> subgoal.SubgoalIndex:
            b_building.set()
            return real_make(g)

        monkeypatch.setattr(subgoal._indexes, "_make", make)
    else:
        real_index = hpa.HpaIndex

        def index(g: gamenav.TileGrid, **kwargs: Any) -> hpa.HpaIndex:
            b_building.set()
            return real_index(g, **kwargs)

        monkeypatch.setattr(hpa, "HpaIndex", index)
    costs: list[float] = []
    b = threading.Thread(name="B", daemon=True, target=lambda: costs.append(
        gamenav.find_path(grid, (0, 0), (29, 29), algorithm=algorithm).cost))

    def listener(change: gamenav.GridChange) -> None:
        b.start()
        b_announced.wait()
        b_building.wait(0.5)  # the old code: B builds holding the shared lock
        costs.append(gamenav.find_path(grid, (0, 0), (29, 29), algorithm=algorithm).cost)

    grid.subscribe(listener)
    a = threading.Thread(name="A", daemon=True, target=lambda: grid.set_walkable((5, 5), False))
    a.start()
    a.join(30)
    b.join(30)
    assert not a.is_alive() and not b.is_alive(), "deadlock"
    assert costs == [pytest.approx(gamenav.find_path(grid, (0, 0), (29, 29)).cost, abs=1e-9)] * 2


def test_the_clearance_warmup_runs_outside_the_clearance_lock(monkeypatch: Any) -> None:
    """A first clearance query with uncompiled kernels runs the "grid" warmup, which computes
    a clearance itself: called with the module's (non re-entrant) lock held it hung forever
    (builds take no lock since: the warmup runs before the build)."""
    built: list[bool] = []
    monkeypatch.setattr(clearance, "announce_compile", lambda group, *dispatchers: built.append(False))
    compute = clearance._compute
    monkeypatch.setattr(clearance, "_compute", lambda state: built.append(True) or compute(state))
    grid = gamenav.TileGrid(np.ones((5, 5), dtype=bool))
    assert gamenav.clearance_field(grid)[2].tolist() == [0.5, 1.5, 2.5, 1.5, 0.5]
    assert built == [False, True]


def _finishes_with_a_crate_to_collect(grid: gamenav.TileGrid, work: Callable[[], None]) -> bool:
    """Drop a crate (a reference cycle whose ``__del__`` blocks cell (6, 6) of ``grid``) with
    automatic collection off, run ``work`` in a thread (the test makes a collection strike inside
    it), and tell whether the thread finished within 10 s (else: a deadlock)."""

    class Crate:
        def __init__(self) -> None:
            self.me = self  # a cycle: only a collection frees it

        def __del__(self) -> None:
            grid.set_walkable((6, 6, 7, 7), False)

    gc.disable()
    try:
        Crate()
        thread = threading.Thread(target=work, daemon=True)
        thread.start()
        thread.join(10)
    finally:
        gc.enable()
    return not thread.is_alive()


def test_a_collection_inside_a_clearance_build_may_edit_the_grid(monkeypatch: Any) -> None:
    """A garbage collection that struck while a clearance was built ran the __del__ of a crate
    that blocks its cell; a listener asked for the new snapshot's clearance mask in the same
    thread and waited forever for the clearance lock its own thread held."""
    grid = gamenav.TileGrid(np.ones((12, 12), dtype=bool))
    gamenav.clearance_field(gamenav.TileGrid(np.ones((3, 3), dtype=bool)))  # compiled
    usable: list[int] = []
    grid.subscribe(lambda change: usable.append(int(gamenav.clearance_mask(grid, 1.0).sum())))

    real = clearance.clearance_box

    def collecting(*args: Any) -> None:
        gc.collect()  # the collection strikes here, inside the build
        real(*args)

    monkeypatch.setattr(clearance, "clearance_box", collecting)
    field: list[float] = []
    assert _finishes_with_a_crate_to_collect(grid, lambda: field.append(float(gamenav.clearance_field(grid)[6, 6]))), \
        "deadlock"
    assert field == [5.5] and usable == [100 - 9]  # the field of the snapshot it took; the crate's mask


def test_a_collection_inside_a_padded_build_may_edit_the_grid(monkeypatch: Any) -> None:
    """The same with a search: a collection inside the build of a snapshot's padded arrays ran a
    crate's __del__ that blocks its cell; a listener's find_path on the new snapshot waited
    forever for the padded-arrays lock its own thread held."""
    from gamenav.grid import search

    grid = gamenav.TileGrid(np.ones((12, 12), dtype=bool))
    gamenav.find_path(gamenav.TileGrid(np.ones((3, 3), dtype=bool)), (0, 0), (2, 2))  # compiled
    seen: list[float] = []
    grid.subscribe(lambda change: seen.append(gamenav.find_path(grid, (0, 0), (11, 11)).cost))
    real = search._Padded.__init__

    def collecting(self: Any, *args: Any) -> None:
        gc.collect()  # the collection strikes here, inside the build
        real(self, *args)

    monkeypatch.setattr(search._Padded, "__init__", collecting)
    assert _finishes_with_a_crate_to_collect(
        grid, lambda: seen.append(gamenav.find_path(grid, (0, 0), (11, 0)).cost)), "deadlock"
    crated = gamenav.TileGrid(np.ones((12, 12), dtype=bool))
    crated.set_walkable((6, 6, 7, 7), False)
    # the listener's search on the crate's snapshot, then the first one on the snapshot it took
    assert seen == [gamenav.find_path(crated, (0, 0), (11, 11)).cost, 11.0]


@pytest.mark.parametrize("algorithm", ["jps", "hpa", "subgoal"])
def test_an_index_whose_repair_failed_lends_no_data(algorithm: str, monkeypatch: pytest.MonkeyPatch) -> None:
    # a repair that raised part-way (MemoryError growing a pool) kept the index's version: a search on
    # the snapshot before the edit borrowed the half-repaired data
    from gamenav.grid import jump_plus

    grid = gamenav.TileGrid(np.ones((24, 24), dtype=bool))
    make = {"jps": jump_plus.jump_index, "hpa": hpa.hpa_index, "subgoal": subgoal.subgoal_index}[algorithm]
    index: Any = make(grid)
    before = grid._snapshot()

    def fail(*args: Any) -> int:
        raise MemoryError("no room to repair")

    monkeypatch.setattr(index, "_repair", fail)
    with pytest.raises(MemoryError):
        grid.set_walkable((4, 2, 20, 3), False)
    assert index.acquire(before) is None and index.acquire(grid._snapshot()) is None
    for s, g in (((0, 0), (23, 23)), ((10, 0), (10, 10))):
        assert gamenav.find_path(grid, s, g, algorithm=algorithm).cost == pytest.approx(
            gamenav.find_path(grid, s, g).cost, abs=1e-9)
    monkeypatch.undo()
    grid.set_walkable((4, 20, 20, 21), False)  # the next edit rebuilds it
    data = index.acquire(grid._snapshot())
    assert data is not None
    index.release(data)
    assert gamenav.find_path(grid, (10, 0), (10, 23), algorithm=algorithm).cost == pytest.approx(
        gamenav.find_path(grid, (10, 0), (10, 23)).cost, abs=1e-9)
