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
MAX_DURATION_S = 120.0  # a slow or busy machine runs longer until the rounds a test needs are done
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


def _run(
    workers: list[Callable[[], None]], grid: TileGrid, enough: Callable[[], bool] = lambda: True
) -> None:
    """Run ``workers`` (each repeatedly) against the editor; re-raise failures.

    They run for DURATION_S and then until ``enough()`` (a count of rounds, not a time: a slow
    machine must not fail the test), at most MAX_DURATION_S.
    """
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
    deadline = time.monotonic() + MAX_DURATION_S
    while not enough() and not stop.is_set() and time.monotonic() < deadline:
        time.sleep(0.05)
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

    _run([search] * 4, grid, enough=lambda: done[0] > 100)
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


# -- runtime objects used from one thread while another edits their grid ---------------------------


def _in_thread(fn: Callable[[], object]) -> None:
    """Run ``fn`` in a new thread and wait for it (an edit made "meanwhile" by another thread)."""
    errors: list[BaseException] = []

    def run() -> None:
        try:
            fn()
        except BaseException as exc:  # noqa: BLE001 - re-raised below
            errors.append(exc)

    t = threading.Thread(target=run)
    t.start()
    t.join(10)
    if errors:
        raise errors[0]


def _crosses(path: gamenav.Path, cell: tuple[int, int]) -> bool:
    return bool((path.cells == cell).all(axis=1).any())


def test_a_cache_hit_survives_an_edit_from_another_thread_during_the_lookup() -> None:
    """The cache's grid listener ran in the editing thread: an edit landing between the game
    thread's LRU ``get`` and ``move_to_end`` deleted the key under it (KeyError). Edits heard in
    another thread now wait for the cache's own thread."""
    from collections import OrderedDict

    class EditDuringLookup(OrderedDict):  # type: ignore[type-arg]
        edit: Callable[[], object] | None = None

        def move_to_end(self, key: object, last: bool = True) -> None:
            edit, self.edit = self.edit, None
            if edit is not None:
                _in_thread(edit)
            super().move_to_end(key, last)

    grid = TileGrid(np.ones((3, 5), bool))
    cache = gamenav.PathCache()
    first = cache.find_path(grid, (0, 1), (4, 1))
    assert _crosses(first, (2, 1))
    lru = cache._lru = EditDuringLookup(cache._lru)
    lru.edit = lambda: grid.set_walkable((2, 1), False)
    assert cache.find_path(grid, (0, 1), (4, 1)) is first  # looked up before the edit
    again = cache.find_path(grid, (0, 1), (4, 1))  # the edit is acted on first
    assert again is not first and again.found and not _crosses(again, (2, 1))
    assert cache.stats.invalidations == 1 and cache.stats.hits == 1


def test_a_queue_answer_is_not_withdrawn_by_an_edit_from_another_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    """The queue's grid listener ran in the editing thread: while it checked a quick partial path
    against the edit, the game thread answered the request, then the listener withdrew the
    answer (status FOUND, path IN_PROGRESS and empty). The edit now waits for the queue's thread."""
    import gamenav.runtime.queue as queue_module

    main = threading.get_ident()
    inside, resume = threading.Event(), threading.Event()
    original = queue_module.footprint

    def footprint(*args: object, **kwargs: object) -> object:
        if threading.get_ident() != main:  # the listener, in the editing thread
            inside.set()
            resume.wait(5)
        return original(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(queue_module, "footprint", footprint)
    grid = TileGrid(np.ones((5, 20), bool))
    queue = gamenav.PathQueue(budget_ms=None, max_expansions=100_000)
    req = queue.request(grid, (0, 2), (19, 2), quick_expansions=3)
    assert req.status is gamenav.PathStatus.IN_PROGRESS and _crosses(req.path, (1, 2))
    editor = threading.Thread(target=grid.set_walkable, args=((1, 2), False))
    editor.start()
    while not inside.is_set() and editor.is_alive():
        editor.join(0.01)
    queue.update()  # the game thread's frame, while (old code) the listener is half-way
    resume.set()
    editor.join(5)
    assert req.status is gamenav.PathStatus.FOUND
    assert req.path.status is gamenav.PathStatus.FOUND and not _crosses(req.path, (1, 2))


def test_an_edit_made_while_a_request_subscribes_is_not_missed(monkeypatch: pytest.MonkeyPatch) -> None:
    """A grid edit landing after a queued request's search started but before the queue
    subscribed to the grid was never heard; a later edit elsewhere made the queue believe it had
    checked every edit and it delivered a path through the new wall. A search is now delivered
    only if the queue acted on every edit since its snapshot."""
    import gamenav.runtime.queue as queue_module

    grid = TileGrid(np.ones((3, 10), bool))
    original = queue_module.start_search

    def start_search(query: object) -> object:
        search = original(query)  # type: ignore[arg-type]
        grid.set_walkable((5, 1), False)  # (as if from another thread) before the subscription
        return search

    monkeypatch.setattr(queue_module, "start_search", start_search)
    queue = gamenav.PathQueue(budget_ms=None, max_expansions=100_000)
    req = queue.request(grid, (0, 1), (9, 1))
    monkeypatch.setattr(queue_module, "start_search", original)
    grid.set_walkable((9, 2), False)  # heard: an edit that cannot touch the path
    queue.update()
    assert req.status is gamenav.PathStatus.FOUND and not _crosses(req.path, (5, 1))
    assert queue.stats.restarts == 1


def test_an_edit_made_while_the_cache_subscribes_is_not_missed(monkeypatch: pytest.MonkeyPatch) -> None:
    """The cache checked a result's version, then subscribed to the grid: an edit in between
    was never heard, and the path (through the new wall) was served as current. The version is
    now checked again once subscribed."""
    import gamenav.runtime.cache as cache_module

    grid = TileGrid(np.ones((3, 10), bool))
    original = cache_module._GridEntries

    class EditFirst(original):  # type: ignore[misc, valid-type]
        def __init__(self, *args: object) -> None:
            grid.set_walkable((5, 1), False)  # (as if from another thread) before subscribing
            super().__init__(*args)

    monkeypatch.setattr(cache_module, "_GridEntries", EditFirst)
    cache = gamenav.PathCache()
    first = cache.find_path(grid, (0, 1), (9, 1))
    assert _crosses(first, (5, 1))  # found before the edit: right when the search ran
    monkeypatch.setattr(cache_module, "_GridEntries", original)
    again = cache.find_path(grid, (0, 1), (9, 1))
    assert again.found and not _crosses(again, (5, 1))


def test_edits_waiting_for_the_owner_make_the_cache_miss_and_the_queue_search_again(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Correctness does not depend on when the owner acts on an edit heard in another thread:
    while it waits, versions differ, so the cache misses and a finished search runs again."""
    from gamenav._events import Inbox

    grid = TileGrid(np.ones((3, 10), bool))
    cache = gamenav.PathCache()
    queue = gamenav.PathQueue(budget_ms=None, max_expansions=100_000)
    first = cache.find_path(grid, (0, 1), (9, 1))
    req = queue.request(grid, (0, 1), (9, 1), quick_expansions=2)
    monkeypatch.setattr(Inbox, "catch_up", lambda self: None)  # the owner never catches up
    _in_thread(lambda: grid.set_walkable((5, 1), False))
    assert len(cache._inbox) == 1 and len(queue._inbox) == 1
    again = cache.find_path(grid, (0, 1), (9, 1))
    assert again is not first and not _crosses(again, (5, 1)) and cache.stats.hits == 0
    queue.update()
    assert req.status is gamenav.PathStatus.FOUND and not _crosses(req.path, (5, 1))
    assert queue.stats.restarts == 1
    monkeypatch.undo()
    assert len(cache) == 0 or not _crosses(cache.find_path(grid, (0, 1), (9, 1)), (5, 1))
    assert len(cache._inbox) == 0


@pytest.mark.parametrize("case", ["path", "field", "replan"])
def test_crowd_plans_on_one_grid_state_while_another_thread_walls_off_the_target(
        case: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Crowd.move (and a group's field re-planning) picked the free cell nearest the target,
    then computed the distance field from it on the grid as it was by then: an edit from another
    thread in between blocking that cell raised BlockedEndpointError. Both now read one snapshot."""
    grid = TileGrid(np.ones((12, 12), bool))
    n = 1 if case == "path" else 6
    crowd = gamenav.Crowd(grid, [(1.5 + i, 1.5) for i in range(n)], radius=0.3, max_speed=4.0,
                          flow_threshold=2)
    if case == "replan":
        crowd.move(crowd.ids, (9.5, 9.5))
    original = gamenav.Crowd._snap_cell

    def snap_then_wall(self: gamenav.Crowd, cell: np.ndarray, *args: object) -> np.ndarray:
        chosen: np.ndarray = original(self, cell, *args)
        _in_thread(lambda: grid.set_walkable(tuple(int(v) for v in chosen), False))
        return chosen

    monkeypatch.setattr(gamenav.Crowd, "_snap_cell", snap_then_wall)
    if case == "replan":
        gid = next(iter(crowd._fields))
        crowd._replan_field(gid)
        monkeypatch.undo()
    else:
        crowd.move(crowd.ids, (9.5, 9.5))
        monkeypatch.undo()
    assert not grid.is_passable(9, 9)
    for _ in range(90):
        crowd.update(1 / 30)  # acts on the edit: goals off the wall, fields and paths re-planned
    cells = grid.world_to_cell(crowd.goals)
    assert grid.passable[cells[:, 1], cells[:, 0]].all() and not crowd.failed.any()


def _churned_mesh() -> gamenav.NavMesh:
    """A mesh whose edits left high triangle ids and dead rows (compact renumbers them)."""
    from shapely.geometry import box

    mesh = gamenav.NavMesh.from_polygons(box(0, 0, 40, 30), obstacles=[box(10, 5, 14, 25)])
    for k in range(6):
        mesh.remove_obstacle(mesh.add_obstacle(box(20 + k, 10, 22 + k, 12)))
        mesh.add_obstacle(box(30, 2 + 4 * k, 31, 3 + 4 * k))
    return mesh


def _carve(mesh: gamenav.NavMesh) -> object:
    from shapely.geometry import box

    return mesh.add_obstacle(box(2, 14, 8, 16))


_MESH_QUERIES: dict[str, Callable[[gamenav.NavMesh], object]] = {
    "find_path": lambda m: round(gamenav.find_path(m, (38, 28), (2, 2)).cost, 9),
    "exact": lambda m: round(gamenav.find_path(m, (38, 28), (2, 2), exact=True).cost, 9),
    "through": lambda m: round(gamenav.find_path(m, (5, 10), (5, 20), exact=True).cost, 9),
    "clamp": lambda m: m.clamp([(38, 28), (-1, 3)], island=0)[0].round(9).tolist(),
    "raycast": lambda m: (lambda hit: (hit.clear, round(hit.fraction, 9)))(m.raycast((5, 10), (5, 20))),
}


@pytest.mark.parametrize("edit", [gamenav.NavMesh.compact, _carve], ids=["compact", "carve"])
@pytest.mark.parametrize("query", list(_MESH_QUERIES))
def test_navmesh_queries_read_one_state_while_another_thread_edits(
        query: str, edit: Callable[[gamenav.NavMesh], object], monkeypatch: pytest.MonkeyPatch) -> None:
    """Searches, clamp and raycast located their points on one state of the mesh and read its
    arrays (or islands, costs) a moment later: an edit from another thread in between mixed two
    states (IndexError after compact, a carved start triangle made find_path return an infinite
    cost and raycast stop in the open). Each query now reads one snapshot of the mesh."""
    ask = _MESH_QUERIES[query]
    before = ask(_churned_mesh())
    edited = _churned_mesh()
    edit(edited)
    after = ask(edited)
    mesh = _churned_mesh()
    locate = gamenav.NavMesh._locate  # (what locate and every query locate their checked points with)
    armed = [True]

    def locate_then_edit(self: gamenav.NavMesh, points: np.ndarray) -> np.ndarray:
        found: np.ndarray = locate(self, points)
        if armed[0]:
            armed[0] = False
            _in_thread(lambda: edit(mesh))
        return found

    monkeypatch.setattr(gamenav.NavMesh, "_locate", locate_then_edit)
    answer = ask(mesh)
    monkeypatch.undo()
    assert not armed[0]  # the edit landed during the query
    assert answer in (before, after)
