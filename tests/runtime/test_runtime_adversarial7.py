"""Adversarial review 7 of the runtime: concurrent close, huge ints in messages (shared paths: test_cache.py)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import gamenav
from gamenav import _events


def _until(condition: Callable[[], bool]) -> None:
    """Wait (polling an event, no fixed sleep) until ``condition()`` holds."""
    tick = threading.Event()
    for _ in range(100_000):
        if condition():
            return
        tick.wait(0.001)
    raise AssertionError("the condition never held")


def _blocking_close(obj: Any) -> tuple[threading.Event, threading.Event]:
    """Make ``obj``'s close block inside ``_close`` until ``release`` is set: (entered, release)."""
    entered, release, original = threading.Event(), threading.Event(), obj._close

    def blocked() -> None:
        entered.set()
        release.wait()
        original()

    obj._close = blocked
    return entered, release


def test_a_close_from_another_thread_returns_once_the_object_is_closed() -> None:
    cache = gamenav.PathCache()
    entered, release = _blocking_close(cache)
    first = threading.Thread(target=cache.close, daemon=True)
    first.start()
    entered.wait()
    seen: list[bool] = []
    second = threading.Thread(target=lambda: seen.append((cache.close(), cache.closed)[1]), daemon=True)
    second.start()
    try:
        _until(lambda: not second.is_alive() or second.ident in _events._waiting_for)
        assert not seen  # (the old code returned at once, the cache still open)
    finally:
        release.set()
    first.join()
    second.join()
    assert seen == [True]


def test_a_close_from_the_closing_code_itself_returns_at_once() -> None:
    queue = gamenav.PathQueue()
    original, inner = queue._close, []

    def closing() -> None:
        queue.close()  # re-entrant (a callback, a __del__): returns at once, the close goes on
        inner.append(queue.closed)
        original()

    queue._close = closing
    thread = threading.Thread(target=queue.close, daemon=True)
    thread.start()
    thread.join(60)
    assert not thread.is_alive() and queue.closed and inner == [False]


def test_a_close_from_a_listener_under_the_edit_lock_does_not_deadlock_with_a_waiting_close() -> None:
    mesh = gamenav.NavMesh.from_polygons([(0, 0), (10, 0), (10, 10), (0, 10)])
    entered, release = _blocking_close(mesh)
    release.set()  # (entered tells that the other thread's close runs: it waits for the edit lock)
    in_listener, results = threading.Event(), []

    def listener(change: object) -> None:
        in_listener.set()
        entered.wait()
        mesh.close()  # waiting here for that close, which waits for this edit's lock, deadlocked
        results.append("listener returned")

    mesh.subscribe(listener)
    square = [(4, 4), (6, 4), (6, 6), (4, 6)]
    editor = threading.Thread(target=lambda: results.append(mesh.add_obstacle(square)), daemon=True)
    editor.start()
    in_listener.wait()
    closer = threading.Thread(target=mesh.close, daemon=True)
    closer.start()
    editor.join(120)
    closer.join(120)
    assert not editor.is_alive() and not closer.is_alive()
    assert results[0] == "listener returned" and mesh.closed


def test_two_closes_whose_closing_code_closes_the_other_do_not_deadlock() -> None:
    a, b = gamenav.PathCache(), gamenav.PathCache()
    a_runs, b_runs = threading.Event(), threading.Event()
    a_close, b_close = a._close, b._close

    def close_a() -> None:  # a's close closes b, b's close closes a, both running at once
        a_runs.set()
        b_runs.wait()
        b.close()
        a_close()

    def close_b() -> None:
        b_runs.set()
        a_runs.wait()
        a.close()
        b_close()

    a._close, b._close = close_a, close_b
    threads = [threading.Thread(target=a.close, daemon=True), threading.Thread(target=b.close, daemon=True)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    assert not any(thread.is_alive() for thread in threads) and a.closed and b.closed


_HUGE = -10**5000  # (more digits than Python writes out: repr() raises ValueError)
_GRID = gamenav.TileGrid(np.ones((5, 5), dtype=bool))
_HUGE_CALLS: dict[str, Callable[[], object]] = {
    "queue budget_ms": lambda: gamenav.PathQueue(budget_ms=_HUGE),
    "queue aging": lambda: gamenav.PathQueue(aging=_HUGE),
    "queue on_change": lambda: gamenav.PathQueue(on_change=_HUGE),
    "queue chunk": lambda: gamenav.PathQueue(chunk=_HUGE),
    "request priority": lambda: gamenav.PathQueue().request(_GRID, (0, 0), (1, 1), priority=_HUGE),
    "request on_done": lambda: gamenav.PathQueue().request(_GRID, (0, 0), (1, 1), on_done=_HUGE),
    "request quick_expansions": lambda: gamenav.PathQueue().request(_GRID, (0, 0), (1, 1), quick_expansions=_HUGE),
    "request workspace": lambda: gamenav.PathQueue().request(_GRID, (0, 0), (1, 1), workspace=_HUGE),
    "request start": lambda: gamenav.PathQueue().request(_GRID, (_HUGE, 0), (1, 1)),
    "cache capacity": lambda: gamenav.PathCache(capacity=_HUGE),
    "cache max_bytes": lambda: gamenav.PathCache(max_bytes=_HUGE),
    "find_path start": lambda: gamenav.find_path(_GRID, (0, _HUGE), (1, 1)),
    "find_path algorithm": lambda: gamenav.find_path(_GRID, (0, 0), (1, 1), algorithm=_HUGE),
    "find_paths workers": lambda: gamenav.find_paths(_GRID, [(0, 0)], [(1, 1)], workers=_HUGE),
    "find_paths one pair": lambda: gamenav.find_paths(_GRID, (_HUGE, 0), (1, 1)),
    "grid cell_size": lambda: gamenav.TileGrid(np.ones((2, 2), dtype=bool), cell_size=_HUGE),
    "grid walkable": lambda: gamenav.TileGrid([[True, _HUGE]]),
    "grid rows": lambda: gamenav.TileGrid.from_strings([_HUGE]),
    "grid blocked": lambda: gamenav.TileGrid.from_strings(["..", ".."], blocked=_HUGE),
    "grid check_cell": lambda: _GRID.check_cell((_HUGE, 0)),
    "workspace shape": lambda: gamenav.SearchWorkspace((-_HUGE, 2)),
    "navmesh island": lambda: gamenav.NavMesh.from_polygons([(0, 0), (4, 0), (4, 4)]).clamp([(1, 1)], island=_HUGE),
    "navmesh agent_radius": lambda: gamenav.NavMesh.from_polygons([(0, 0), (4, 0), (4, 4)], agent_radius=_HUGE),
    "navmesh area cost": lambda: gamenav.NavMesh.from_polygons([(0, 0), (4, 0), (4, 4)],
                                                               areas=[([(0, 0), (1, 0), (1, 1)], _HUGE)]),
}


@pytest.mark.parametrize("call", list(_HUGE_CALLS.values()), ids=list(_HUGE_CALLS))
def test_an_int_python_cannot_write_out_gets_the_librarys_error(call: Callable[[], object]) -> None:
    with pytest.raises(gamenav.GamenavError):  # (not repr's bare ValueError from the message)
        call()


@pytest.mark.parametrize(("option", "message"), [
    ("--agents", "argument --agents: must be at most 1_000_000, got '1111"),
    ("--frames", "argument --frames: must be at most 10_000_000, got '1111"),
])
def test_tune_names_a_count_of_more_digits_than_int_reads_too_big(option: str, message: str,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    from gamenav import tune

    with pytest.raises(SystemExit):  # (the old message: "must be an integer >= 1")
        tune.main(["--map", "unused.map", option, "1" * 5000])
    err = capsys.readouterr().err
    assert message in err and "characters)" in err  # (cut: not 5000 digits written out)
