"""PathQueue and PathCache under attack: extreme numbers, agents of a size, edits from other threads."""

from __future__ import annotations

import gc
import sys
import threading
import weakref
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import gamenav
from gamenav import PathQueue, PathStatus, TileGrid


class _Armed:
    """A zero heuristic that runs ``action()`` once: at its first call after :meth:`arm` (code the
    queue runs while it checks or starts a search, as a ``__del__`` could)."""

    def __init__(self, action: Callable[[], object]) -> None:
        self._action = action
        self._armed = False

    def arm(self) -> None:
        self._armed = True

    def __call__(self, dx: Any, dy: Any) -> float:
        if self._armed:
            self._armed = False
            self._action()
        return 0.0


@pytest.mark.parametrize("kwargs, message", [
    ({"budget_ms": 10**400}, "budget_ms must be a finite number > 0 or None"),
    ({"aging": 10**400}, "aging must be a finite number >= 0"),
])
def test_numbers_beyond_float64_are_refused_clearly(kwargs: dict[str, int], message: str) -> None:
    """They raised a bare OverflowError (int too large to convert to float)."""
    with pytest.raises(gamenav.InvalidInputError, match=message):
        PathQueue(**kwargs)  # type: ignore[arg-type]
    grid = TileGrid(np.ones((2, 4), bool))
    queue = PathQueue(budget_ms=None, max_expansions=10)
    for priority in (10**400, -10**400):
        with pytest.raises(gamenav.InvalidInputError, match="priority must be a finite number"):
            queue.request(grid, (0, 0), (3, 1), priority=priority)
    assert len(queue) == 0


def test_numpy_scalar_budgets_and_aging_are_numbers() -> None:
    """``budget_ms=np.float32(2)`` and ``aging=np.int64(1)`` were refused as not numbers."""
    queue = PathQueue(budget_ms=np.float32(2.0), aging=np.int64(1))  # type: ignore[arg-type]
    assert queue.budget_ms == 2.0
    queue.budget_ms = np.int64(3)  # type: ignore[assignment]
    assert queue.budget_ms == 3.0


def test_numpy_int_counts_are_ints() -> None:
    """``chunk``, ``window`` and ``capacity`` of ``np.int64(8)`` were refused as not ints (while
    ``max_expansions`` took them); bools still are refused."""
    queue = PathQueue(budget_ms=None, max_expansions=np.int64(8), chunk=np.int64(8), window=np.int32(4),
                      cache=gamenav.PathCache(capacity=np.int64(2)))  # type: ignore[arg-type]
    grid = TileGrid(np.ones((3, 9), bool))
    req = queue.request(grid, (0, 0), (8, 2))
    while not req.done:
        queue.update()
    assert req.path.cost == gamenav.find_path(grid, (0, 0), (8, 2)).cost
    assert type(queue._chunk) is int and gamenav.PathCache(capacity=np.int64(2)).capacity == 2
    for kwargs, name in (({"chunk": np.bool_(True)}, "chunk"), ({"window": True}, "window")):
        with pytest.raises(gamenav.InvalidInputError, match=f"{name} must be an int >= 1"):
            PathQueue(**kwargs)  # type: ignore[arg-type]
    with pytest.raises(gamenav.InvalidInputError, match="capacity must be an int >= 1"):
        gamenav.PathCache(capacity=np.bool_(True))  # type: ignore[arg-type]


def test_the_budget_reads_back_as_set_and_a_tiny_one_leaves_max_expansions_settable() -> None:
    """The budget was kept in seconds: 15.7 ms read back as 15.700000000000001, and 5e-324 ms
    as 0.0, after which setting ``max_expansions`` raised 'budget_ms must be > 0, got 0.0'."""
    assert PathQueue(budget_ms=15.7).budget_ms == 15.7
    queue = PathQueue(budget_ms=5e-324)
    queue.max_expansions = 10
    assert queue.budget_ms == 5e-324 and queue.max_expansions == 10


def test_a_quick_path_that_an_agent_no_longer_fits_through_is_withdrawn() -> None:
    """A wall next to an ``agent_radius`` agent's quick partial path takes its cells out of the
    radius mask without blocking them: the partial path stayed (status PARTIAL) through a gap the
    agent does not fit in."""
    grid = TileGrid(np.ones((9, 30), bool))
    queue = PathQueue(budget_ms=None, max_expansions=10)
    req = queue.request(grid, (1, 4), (28, 4), agent_radius=0.8, quick_expansions=8)
    assert req.path.status is PathStatus.PARTIAL and [3, 4] in req.path.cells.tolist()
    grid.set_walkable((3, 6), False)  # two rows away: the path's cells still fit
    assert req.path.status is PathStatus.PARTIAL
    grid.set_walkable((3, 5), False)  # next to the path: (2..4, 4) leave the mask
    assert not gamenav.clearance_mask(grid, 0.8)[4, 3]
    assert req.path.status is PathStatus.IN_PROGRESS and len(req.path.cells) == 0
    while not req.done:
        queue.update()
    assert req.status is PathStatus.FOUND
    assert req.path.cost == gamenav.find_path(grid, (1, 4), (28, 4), agent_radius=0.8).cost


def test_a_result_stored_after_an_edit_from_another_thread_is_not_dropped_by_that_edit() -> None:
    """The queue stored a path found after another thread's edit into a cache that had not acted
    on that edit yet; acting on it later dropped the new path too (an opening on it, as if it could
    shorten it): an invalidation too many and a miss. The cache now acts on waiting edits first."""
    walk = np.ones((5, 10), bool)
    walk[:4, 5] = False  # a wall with a gap in the bottom row
    grid = TileGrid(walk)
    cache = gamenav.PathCache()
    queue = PathQueue(budget_ms=None, max_expansions=10_000, cache=cache)
    cache.find_path(grid, (0, 0), (9, 0))  # the cache follows the grid (this entry detours)
    req = queue.request(grid, (0, 2), (9, 2))
    editor = threading.Thread(target=grid.set_walkable, args=((5, 2), True))
    editor.start()
    editor.join()
    assert len(cache._inbox) == 1  # heard in the editor's thread: waits for the cache's
    queue.update()
    assert req.status is PathStatus.FOUND and req.path.cost == 9.0  # through the opening
    assert cache.find_path(grid, (0, 2), (9, 2)) is req.path
    assert cache.stats.invalidations == 1  # the detour only


@pytest.mark.parametrize("workers", [1, 2])
def test_the_largest_finite_budget_runs_like_no_time_limit(workers: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """``budget_ms=1e308`` was accepted, then the first update that sized a chunk from the
    measured rate raised OverflowError (int of an infinite expansion count), and so did every
    update after it."""
    import types

    from gamenav.runtime import queue as queue_module

    clock = [0.0]

    def perf_counter() -> float:  # a simulated clock: 1 us per reading
        clock[0] += 1e-6
        return clock[0]

    monkeypatch.setattr(queue_module, "time", types.SimpleNamespace(perf_counter=perf_counter))
    walk = np.ones((40, 40), bool)
    walk[1::4, :-1] = False
    walk[3::4, 1:] = False  # a serpentine: searches of more than one chunk
    grid = TileGrid(walk)
    queue = PathQueue(budget_ms=1e308, workers=workers)
    requests = [queue.request(grid, (0, 0), (39, 38 - 2 * i)) for i in range(4)]
    queue.update()
    assert len(queue) == 0
    for req in requests:
        assert req.path.cost == gamenav.find_path(grid, req.start, req.goal).cost


def test_a_quick_request_that_raises_for_a_blocked_start_is_not_queued() -> None:
    """Joining a queued, not yet started search with ``quick_expansions`` raised
    BlockedEndpointError (its start was blocked since), yet the request stayed queued: counted in
    ``len(queue)`` and its ``on_done`` called with STALE for a handle the caller never got."""
    grid = TileGrid(np.ones((5, 10), bool))
    queue = PathQueue(budget_ms=None, max_expansions=10)
    queue.request(grid, (0, 0), (9, 4))  # runs next: started at once
    waiting = queue.request(grid, (0, 4), (9, 0))  # started lazily in update()
    grid.set_walkable((0, 4), False)
    calls: list[gamenav.PathRequest] = []
    with pytest.raises(gamenav.BlockedEndpointError, match="start"):
        queue.request(grid, (0, 4), (9, 0), quick_expansions=5, on_done=calls.append)
    assert len(queue) == 2
    while len(queue):
        queue.update()
    assert waiting.status is PathStatus.STALE and calls == [] and queue.stats.stale == 1


@pytest.mark.parametrize("workers", [1, 2])
def test_an_unsigned_numpy_expansion_budget_is_spent_as_an_int(workers: int) -> None:
    """``max_expansions=np.uint64(100)`` was accepted and kept as given; ``uint64 - int`` is a
    float in numpy 1.x, so the update after a finished search raised InvalidInputError
    ('max_expansions must be an int ..., got 97.0') from inside ``update()``."""
    grid = TileGrid(np.ones((5, 40), bool))
    queue = PathQueue(budget_ms=None, max_expansions=np.uint64(100), workers=workers)  # type: ignore[arg-type]
    short = queue.request(grid, (0, 0), (3, 0))
    long = queue.request(grid, (0, 4), (39, 4))
    queue.update()
    assert short.status is PathStatus.FOUND and long.status is PathStatus.FOUND
    queue.max_expansions = np.uint64(7)  # type: ignore[assignment]
    assert type(queue.max_expansions) is int and queue.max_expansions == 7


def test_a_request_joining_a_search_whose_goal_an_edit_blocked_raises_like_a_new_one() -> None:
    """A request identical to a pending one, made after an edit blocked its goal (or made the
    grid weighted for JPS), joined the pending search: queued, then answered STALE, where a new
    request raises (the errors of ``find_path`` are raised at request time, not in ``update``)."""
    grid = TileGrid(np.ones((5, 20), bool))
    queue = PathQueue(budget_ms=None, max_expansions=3)
    first = queue.request(grid, (0, 0), (19, 4))
    queue.request(grid, (0, 4), (19, 0), algorithm="jps")  # started lazily in update()
    queue.update()
    grid.set_walkable((19, 4), False)
    with pytest.raises(gamenav.BlockedEndpointError, match="goal"):
        queue.request(grid, (0, 0), (19, 4))
    grid.set_cost((10, 2), 2.0)
    with pytest.raises(gamenav.UnsupportedOptionError, match="non-uniform"):
        queue.request(grid, (0, 4), (19, 0), algorithm="jps")
    assert len(queue) == 2 and queue.stats.shared == 0
    while len(queue):
        queue.update()
    assert first.status is PathStatus.STALE and queue.stats.stale == 2


def test_a_window_beyond_a_deques_length_is_refused_clearly() -> None:
    """``window=10**20`` raised a bare OverflowError (too large to convert to C ssize_t)."""
    with pytest.raises(gamenav.InvalidInputError, match="window must be an int >= 1 and at most"):
        PathQueue(window=10**20)
    assert PathQueue(window=np.int64(sys.maxsize)).stats.frames == 0  # type: ignore[arg-type]


@pytest.mark.parametrize("cell, status", [((30, 29), PathStatus.FOUND), ((30, 0), PathStatus.STALE)])
def test_an_edit_from_another_thread_during_an_update_is_checked_exactly(
        cell: tuple[int, int], status: PathStatus, monkeypatch: pytest.MonkeyPatch) -> None:
    """A search that another thread's edit overtook during ``update()`` was answered STALE
    (``on_change="stale"``; restarted by default) even when the edit could not affect its path:
    the edit waited in the inbox, unchecked. The queue acts on it first now."""
    import time
    import types

    from gamenav.runtime import queue as queue_module

    grid = TileGrid(np.ones((30, 60), bool))
    edited: list[bool] = []

    def perf_counter() -> float:  # the update's first clock reading: another thread edits
        if not edited:
            edited.append(True)
            editor = threading.Thread(target=grid.set_walkable, args=(cell, False))
            editor.start()
            editor.join()
        return time.perf_counter()

    queue = PathQueue(budget_ms=None, max_expansions=100_000, on_change="stale")
    req = queue.request(grid, (0, 0), (59, 0))  # started at once, on the grid before the edit
    monkeypatch.setattr(queue_module, "time", types.SimpleNamespace(perf_counter=perf_counter))
    queue.update()
    assert edited and req.status is status and queue.stats.stale == (status is PathStatus.STALE)
    if status is PathStatus.FOUND:
        assert req.path.cost == gamenav.find_path(grid, (0, 0), (59, 0)).cost == 59.0


def test_a_closed_cache_is_refused_where_it_is_given() -> None:
    """``PathQueue(cache=closed_cache)`` was accepted; every request then raised 'cannot look up
    paths in a closed PathCache', far from the cause (as a Crowd given a closed queue did)."""
    cache = gamenav.PathCache()
    cache.close()
    with pytest.raises(gamenav.InvalidInputError, match="cache is closed: pass an open PathCache"):
        PathQueue(cache=cache)


def test_a_grid_listener_never_reads_a_quick_path_across_the_wall_just_built() -> None:
    """A listener of the grid subscribed before the queue (the game's own) read ``req.path``
    during an edit: the quick partial path still crossed the cell just blocked (the queue, told
    later, withdrew it only then). It reads an empty IN_PROGRESS path until the queue acted."""
    grid = TileGrid(np.ones((5, 30), bool))
    read: list[gamenav.Path] = []
    grid.subscribe(lambda change: read.append(req.path))
    queue = PathQueue(budget_ms=None, max_expansions=10)
    req = queue.request(grid, (0, 2), (29, 2), quick_expansions=8)
    assert req.path.status is PathStatus.PARTIAL and [3, 2] in req.path.cells.tolist()
    grid.set_walkable((3, 2), False)
    assert read[0].status is PathStatus.IN_PROGRESS and len(read[0].cells) == 0
    assert req.path.status is PathStatus.IN_PROGRESS  # withdrawn
    other = queue.request(grid, (0, 4), (29, 4), quick_expansions=8)
    grid.set_walkable((10, 0), False)  # off its path: kept, read once the queue acted on the edit
    assert other.path.status is PathStatus.PARTIAL and len(other.path.cells) == 8


def test_a_quick_path_searched_before_an_edit_the_queue_never_heard_is_not_handed_out(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Another thread blocked a cell between the start of a new search and the queue's
    subscription to the grid: the quick partial path, from the snapshot before, crossed it and
    no notification would ever withdraw it."""
    from gamenav.runtime import queue as queue_module

    grid = TileGrid(np.ones((5, 30), bool))
    start_search = queue_module.start_search

    def start_then_edit(query: Any) -> Any:
        search = start_search(query)
        editor = threading.Thread(target=grid.set_walkable, args=((3, 2), False))
        editor.start()
        editor.join()
        return search

    monkeypatch.setattr(queue_module, "start_search", start_then_edit)
    queue = PathQueue(budget_ms=None, max_expansions=10)
    req = queue.request(grid, (0, 2), (29, 2), quick_expansions=8)
    assert grid.version == 1 and req.path.status is PathStatus.IN_PROGRESS
    monkeypatch.undo()
    while not req.done:
        queue.update()
    assert req.path.cost == gamenav.find_path(grid, (0, 2), (29, 2)).cost


@pytest.mark.parametrize("aging", [1e308, 5e-324])
def test_priorities_and_aging_near_the_float_limit_keep_their_order(aging: float) -> None:
    """A request of priority 1e308 made a frame after one of -1e308 must go first (2e308 >
    aging * 1): with ``aging=1e308`` both ranks overflowed to -inf and tied, so the older went first."""
    grid = TileGrid(np.ones((3, 30), bool))
    queue = PathQueue(budget_ms=None, max_expansions=1, aging=aging)
    served: list[str] = []
    queue.update()
    queue.request(grid, (0, 0), (29, 1), priority=-1e308, on_done=lambda r: served.append("low"))
    queue.update()
    queue.request(grid, (0, 2), (29, 0), priority=1e308, on_done=lambda r: served.append("high"))
    while len(queue):
        queue.update()
    queue.update()
    assert served == ["high", "low"]


@pytest.mark.parametrize("end", ["close", "cancel_all"])
def test_a_queue_whose_requests_were_all_cancelled_keeps_no_world_alive(end: str) -> None:
    """A level unloaded with ``close()`` or ``cancel_all()``: the cancelled searches stayed in
    the queue's heap with their grid (and a closed queue never updates again to drop them)."""
    grid = TileGrid(np.ones((400, 400), bool))
    queue = PathQueue(budget_ms=None, max_expansions=1)
    queue.request(grid, (0, 0), (300, 300))
    queue.request(grid, (0, 0), (200, 300), priority=1)
    alive = weakref.ref(grid)
    getattr(queue, end)()
    del grid
    gc.collect()
    assert alive() is None


def test_a_request_made_after_an_edit_is_not_answered_stale_for_it() -> None:
    """``on_change="stale"``: a request identical to a pending one, made after an edit walled off
    the pending search's path, joined that search and was answered STALE with it, where a new
    request (or the same one made alone) finds the path on the edited grid."""
    grid = TileGrid(np.ones((3, 30), bool))
    queue = PathQueue(budget_ms=None, max_expansions=5, on_change="stale")
    first = queue.request(grid, (0, 1), (29, 1))
    queue.update()
    grid.set_walkable((15, 1), False)  # on the path the pending search follows
    second = queue.request(grid, (0, 1), (29, 1))
    while len(queue):
        queue.update()
    fresh = gamenav.find_path(grid, (0, 1), (29, 1))
    assert second.status is PathStatus.FOUND and second.path.cost == fresh.cost
    assert queue.stats.shared == 1 and queue.stats.stale == 0
    assert first.path is second.path


def test_a_request_cancelled_while_its_search_starts_is_dropped_once() -> None:
    """A request cancelled from code the queue runs while starting its search (a ``__del__`` that a
    collection runs there; here its heuristic) had its search dropped twice: ``stats.searches``
    went to -1, and the queue lost track of the searches still queued (one never answered)."""
    grid = TileGrid(np.ones((20, 20), bool))
    queue = PathQueue(budget_ms=None, max_expansions=10_000)
    victim: list[gamenav.PathRequest] = []

    def heuristic(dx: int, dy: int) -> float:
        if victim and not victim[0].done:
            victim[0].cancel()
        return 0.0

    first = queue.request(grid, (0, 19), (19, 0))
    victim.append(queue.request(grid, (0, 0), (19, 19), heuristic=heuristic, priority=1))  # started in update()
    last = queue.request(grid, (1, 1), (18, 18))
    assert queue.stats.searches == 3
    queue.update()
    assert victim[0].status is PathStatus.CANCELLED
    assert first.status is PathStatus.FOUND and last.status is PathStatus.FOUND
    assert (queue.stats.searches, queue.stats.pending, len(queue)) == (0, 0, 0)


def test_an_update_made_while_a_search_starts_answers_its_requests_once() -> None:
    """``update()`` run from code the queue runs while starting a search (its heuristic; a
    ``__del__``) answered that search's request there, and the outer update answered it again:
    ``on_done`` called twice, ``len(queue)`` -1."""
    grid = TileGrid(np.ones((20, 20), bool))
    queue = PathQueue(budget_ms=None, max_expansions=10_000)
    answers: list[gamenav.PathRequest] = []
    heuristic = _Armed(queue.update)

    first = queue.request(grid, (0, 19), (19, 0))
    nested = queue.request(grid, (0, 0), (19, 19), heuristic=heuristic, priority=1, on_done=answers.append)
    heuristic.arm()  # (the heuristic also runs when the request is checked)
    queue.update()
    queue.update()
    assert nested.status is PathStatus.FOUND and first.status is PathStatus.FOUND
    assert answers == [nested]
    assert (len(queue), queue.stats.pending, queue.stats.completed, queue.stats.searches) == (0, 0, 2, 0)


@pytest.mark.parametrize("on_change", ["restart", "stale"])
@pytest.mark.parametrize("algorithm", ["jps", "hpa", "subgoal"])
def test_a_uniform_cost_search_spanning_an_edit_that_weights_the_grid_is_not_found(
        algorithm: str, on_change: str) -> None:
    """A ``jps`` / ``hpa`` / ``subgoal`` search started before an edit made the grid weighted (a
    cost of 5 off its path) was answered FOUND (cost 59), where a fresh search raises
    UnsupportedOptionError and a request still waiting for its start is answered STALE."""
    grid = TileGrid(np.ones((3, 60), bool))
    queue = PathQueue(budget_ms=None, max_expansions=3, on_change=on_change)
    req = queue.request(grid, (0, 1), (59, 1), algorithm=algorithm)  # started at once
    waiting = queue.request(grid, (0, 0), (59, 0), algorithm=algorithm)  # started in update()
    grid.set_cost((30, 2), 5.0)
    while len(queue):
        queue.update()
    assert req.status is PathStatus.STALE and waiting.status is PathStatus.STALE
    with pytest.raises(gamenav.UnsupportedOptionError, match="non-uniform cell costs"):
        gamenav.find_path(grid, (0, 1), (59, 1), algorithm=algorithm)


@pytest.mark.parametrize("drop", ["cancel", "update"])
def test_a_request_joining_a_search_that_its_check_dropped_is_answered(drop: str) -> None:
    """A request joining a search re-checks it on the edited grid by starting it; code run there
    (its heuristic, a ``__del__``) that cancelled the search's only request or answered it from a
    nested ``update()`` dropped the search, and the request joined it anyway: IN_PROGRESS for ever,
    ``len(queue)`` 1 with no search left."""
    grid = TileGrid(np.ones((20, 20), bool))
    queue = PathQueue(budget_ms=None, max_expansions=10_000)
    first: list[gamenav.PathRequest] = []
    heuristic = _Armed(lambda: first[0].cancel() if drop == "cancel" else queue.update())

    queue.request(grid, (0, 19), (19, 0))  # served first: the next search starts lazily
    first.append(queue.request(grid, (0, 0), (19, 19), heuristic=heuristic))
    grid.set_walkable((5, 10), False)
    heuristic.arm()
    joiner = queue.request(grid, (0, 0), (19, 19), heuristic=heuristic)
    for _ in range(3):
        queue.update()
    assert joiner.status is PathStatus.FOUND
    assert joiner.path.cost == gamenav.find_path(grid, (0, 0), (19, 19), heuristic=heuristic).cost
    assert (queue.stats.searches, queue.stats.pending) == (0, 0)


@pytest.mark.parametrize("joins", [False, True])
@pytest.mark.parametrize("closer", ["heuristic", "listener"])
def test_a_queue_closed_while_a_request_starts_its_search_cancels_that_request(
        closer: str, joins: bool) -> None:
    """``close()`` from code run while ``request()`` starts its search (its heuristic; a grid
    listener of an edit made there) left that request IN_PROGRESS for ever (``len(queue)`` 1
    after close, the grid still followed by the closed queue)."""
    grid = TileGrid(np.ones((20, 20), bool))
    queue = PathQueue(budget_ms=None, max_expansions=10_000)
    answers: list[gamenav.PathRequest] = []
    heuristic = _Armed(queue.close if closer == "heuristic" else lambda: grid.set_cost((19, 0), 2.0))

    first = queue.request(grid, (0, 19), (19, 0), on_done=answers.append)
    if joins:  # the request joins a search that the edit since makes it check by starting
        queue.request(grid, (0, 0), (19, 19), heuristic=heuristic, on_done=answers.append)
        grid.set_walkable((5, 10), False)
    if closer == "listener":
        grid.subscribe(lambda change: queue.close())  # (after the queue's own listener)
    heuristic.arm()
    req = queue.request(grid, (0, 0), (19, 19), heuristic=heuristic, on_done=answers.append)
    assert queue.closed and req.status is PathStatus.CANCELLED and first.status is PathStatus.CANCELLED
    assert (len(queue), queue.stats.searches, queue.stats.cancelled) == (0, 0, 3 if joins else 2)
    assert answers == [] and len(grid._listeners) == (closer == "listener")  # the queue's ended


@pytest.mark.parametrize("workers", [1, 2])
def test_a_search_cancelled_while_it_starts_costs_no_expansions(workers: int) -> None:
    """A request cancelled by code run while ``update()`` starts its search (its heuristic, a
    ``__del__``) had that search stepped anyway: 3600 expansions of the frame on a 60 x 60 grid
    for a cancelled request (``cancel()`` promises it costs no more time)."""
    grid = TileGrid(np.ones((60, 60), bool))
    queue = PathQueue(budget_ms=None, max_expansions=100_000, workers=workers)
    victim: list[gamenav.PathRequest] = []
    heuristic = _Armed(lambda: victim[0].cancel())

    first = queue.request(grid, (0, 59), (1, 59))
    victim.append(queue.request(grid, (0, 0), (59, 59), heuristic=heuristic))  # started in update()
    heuristic.arm()
    queue.update()
    assert victim[0].status is PathStatus.CANCELLED and first.status is PathStatus.FOUND
    assert queue.stats.last_frame_expansions == first.path.expanded == 1


@pytest.mark.parametrize("workers", [1, 2])
def test_a_heuristic_that_raises_when_its_search_starts_does_not_stall_the_queue(workers: int) -> None:
    """A heuristic that raises once its search starts in ``update()`` (here: its level was
    unloaded) raised from every update after, and no other request was ever served (3 pending
    after 3 updates). The error is still raised, once; its request is cancelled."""
    grid = TileGrid(np.ones((20, 20), bool))
    queue = PathQueue(budget_ms=None, max_expansions=100_000, workers=workers)
    loaded = [True]

    def heuristic(dx: int, dy: int) -> float:
        if not loaded:
            raise KeyError("level unloaded")
        return 0.0

    first = queue.request(grid, (0, 19), (19, 0))
    failing = queue.request(grid, (0, 0), (19, 19), heuristic=heuristic, priority=5)  # started in update()
    other = queue.request(grid, (0, 1), (19, 18), priority=1)
    loaded.clear()
    with pytest.raises(KeyError, match="level unloaded"):
        queue.update()
    queue.update()
    queue.update()
    assert failing.status is PathStatus.CANCELLED
    assert first.status is PathStatus.FOUND and other.status is PathStatus.FOUND
    assert (len(queue), queue.stats.searches, queue.stats.cancelled) == (0, 0, 1)


def test_a_search_cancelled_while_another_starts_is_not_started_by_two_workers() -> None:
    """With ``workers=2`` the searches of a round are taken before they start; one cancelled by
    code run while an earlier one starts (its heuristic, a ``__del__``) was started anyway: its
    heuristic ran (once) for a cancelled request, and could raise from ``update()`` for it."""
    grid = TileGrid(np.ones((20, 20), bool))
    queue = PathQueue(budget_ms=None, max_expansions=100_000, workers=2)
    victim: list[gamenav.PathRequest] = []
    cancelling = _Armed(lambda: victim[0].cancel())

    def cancelled(dx: int, dy: int) -> float:
        if victim and victim[0].done:
            raise AssertionError("the heuristic of a cancelled request ran")
        return 0.0

    first = queue.request(grid, (0, 19), (19, 0))
    other = queue.request(grid, (0, 0), (19, 19), heuristic=cancelling, priority=2)  # started in update()
    victim.append(queue.request(grid, (0, 0), (18, 19), heuristic=cancelled, priority=1))
    cancelling.arm()
    queue.update()
    assert victim[0].status is PathStatus.CANCELLED
    assert first.status is PathStatus.FOUND and other.status is PathStatus.FOUND


def test_a_heuristic_that_turns_nan_is_an_error_when_its_search_starts_not_stale() -> None:
    """A heuristic that returned NaN by the time ``update()`` started its search (a game value it
    reads became NaN) was answered STALE, as if an edit had blocked it, and the error was
    swallowed (``find_path`` raises InvalidInputError)."""
    grid = TileGrid(np.ones((20, 20), bool))
    queue = PathQueue(budget_ms=None, max_expansions=100_000)
    scale = [0.0]

    def heuristic(dx: Any, dy: Any) -> Any:
        return np.full(np.shape(dx), scale[0])

    first = queue.request(grid, (0, 19), (19, 0))
    req = queue.request(grid, (0, 0), (19, 19), heuristic=heuristic)  # started in update()
    scale[0] = np.nan
    with pytest.raises(gamenav.InvalidInputError, match="finite values >= 0"):
        gamenav.find_path(grid, (0, 0), (19, 19), heuristic=heuristic)
    with pytest.raises(gamenav.InvalidInputError, match="finite values >= 0"):
        queue.update()
    queue.update()
    assert req.status is PathStatus.CANCELLED and first.status is PathStatus.FOUND
    assert (queue.stats.stale, len(queue)) == (0, 0)


@pytest.mark.parametrize("when", ["checked", "answered"])
def test_a_request_cancelled_by_a_finalizer_while_its_search_finishes_is_dropped_once(
        when: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A ``__del__`` that a collection runs while a finished search is checked against the edits
    made since it started, or while its requests are answered, and that cancels one of them: the
    search was dropped twice (the request queued behind it was never answered) or the request
    counted twice (``len(queue)`` raised ValueError for -1). A hook stands in for the ``__del__``."""
    from gamenav.runtime import queue as queue_module

    grid = TileGrid(np.ones((3, 30), bool))
    queue = PathQueue(budget_ms=None, max_expansions=5)
    first = queue.request(grid, (0, 1), (29, 1))
    joined = queue.request(grid, (0, 1), (29, 1))
    behind = queue.request(grid, (0, 0), (29, 0))
    queue.update()
    grid.set_walkable((10, 2), False)  # the search spans an edit: its result is checked
    victims = [first, joined] if when == "checked" else [first]

    def finalizer() -> None:
        while victims:
            victims.pop().cancel()

    if when == "checked":
        class Table(queue_module.EntryTable):
            def add_result(self, *args: Any, **kwargs: Any) -> None:
                finalizer()
                super().add_result(*args, **kwargs)

        monkeypatch.setattr(queue_module, "EntryTable", Table)
    else:
        shared = queue_module.shared

        def answering(path: gamenav.Path) -> gamenav.Path:
            finalizer()
            return shared(path)

        monkeypatch.setattr(queue_module, "shared", answering)
    for _ in range(30):
        queue.update()
    answer = PathStatus.CANCELLED if when == "checked" else PathStatus.FOUND  # (decided: no effect)
    assert first.status is answer and joined.status is answer
    assert behind.status is PathStatus.FOUND
    assert (len(queue), queue.stats.searches, queue.stats.pending) == (0, 0, 0)


@pytest.mark.parametrize("workers", [1, 2])
def test_a_request_cancelled_while_a_kernel_steps_its_search_keeps_the_workspace_until_the_step_ends(
        workers: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """A cancel made while a kernel stepped the request's search (from another thread, or a
    ``__del__`` that a collection runs in a worker thread) gave the search's workspace back to the
    pool at once: the next search in any thread borrowed the arrays the kernel was still writing
    (here the step that went on to the goal then traced the borrower's parents: ``update()`` hung
    for ever). The search is now dropped when its step returns; the request ends CANCELLED."""
    from gamenav._kernels import grid_search as kernels

    grid = TileGrid(np.ones((60, 60), bool))
    far = TileGrid(np.ones((50, 70), bool))  # another shape: its workspaces never mix with grid's
    queue = PathQueue(budget_ms=None, max_expansions=100_000, chunk=50, workers=workers)
    answers: list[gamenav.PathRequest] = []
    req = queue.request(grid, (0, 0), (59, 59), on_done=answers.append)
    other = queue.request(far, (0, 49), (69, 0), on_done=answers.append)
    step = kernels.best_first_step
    borrowed: list[bool] = []

    def stepping(*args: Any) -> Any:
        job = req._job and req._job()  # (held weakly)
        if not borrowed and job is not None and args[17] is job.search._ws.g:  # (its workspace's g)
            canceller = threading.Thread(target=req.cancel)
            canceller.start()
            canceller.join()
            searches: list[gamenav.GridSearch] = []
            searcher = threading.Thread(target=lambda: searches.append(gamenav.GridSearch(grid, (0, 0), (5, 5))))
            searcher.start()
            searcher.join()
            borrowed.append(searches[0]._ws.g is args[17])
            searches[0].cancel()
        return step(*args)

    monkeypatch.setattr(kernels, "best_first_step", stepping)
    for _ in range(100):
        queue.update()
    assert borrowed == [False]
    assert req.status is PathStatus.CANCELLED and req.path.status is PathStatus.CANCELLED
    assert other.status is PathStatus.FOUND and answers == [other]
    assert (len(queue), queue.stats.searches, queue.stats.cancelled, queue.stats.completed) == (0, 0, 1, 1)


@pytest.mark.parametrize("workers", [1, 2])
@pytest.mark.parametrize("nested", ["update", "quick request"])
def test_code_run_during_a_step_does_not_finish_the_search_being_stepped(
        nested: str, workers: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """``update()``, or a ``quick_expansions`` request for the same path, made by code run while a
    search was being stepped (a ``__del__`` that a collection runs in the step) stepped that search
    to its end there: its workspace went back to the pool before the outer step's kernel ran on it
    (another thread's search could borrow it meanwhile). Such code now leaves that search alone."""
    from gamenav._kernels import grid_search as kernels
    from gamenav.grid import search as search_module

    grid = TileGrid(np.ones((60, 60), bool))
    queue = PathQueue(budget_ms=None, max_expansions=100_000, chunk=50, workers=workers)
    answers: list[gamenav.PathRequest] = []
    req = queue.request(grid, (0, 0), (59, 59), on_done=answers.append)
    step = kernels.best_first_step
    pooled: list[bool] = []
    armed = [True]

    def stepping(*args: Any) -> Any:
        if armed:
            armed.clear()
            if nested == "update":
                queue.update()
            else:
                answers.append(queue.request(grid, (0, 0), (59, 59), quick_expansions=10**6))
            pooled.append(any(ws.g is args[17] for ws in search_module._pool.spare()))
        return step(*args)

    monkeypatch.setattr(kernels, "best_first_step", stepping)
    for _ in range(100):
        queue.update()
    assert pooled == [False]
    cost = gamenav.find_path(grid, (0, 0), (59, 59)).cost
    assert req.status is PathStatus.FOUND and req.path.cost == cost
    assert all(answer.path.cost == cost for answer in answers) and answers.count(req) == 1
    assert (len(queue), queue.stats.searches, queue.stats.pending) == (0, 0, 0)
