"""PathQueue: budgets, sliced == one-shot, scheduling, cancel, dedupe, edits, stale, quick paths."""

from __future__ import annotations

import numpy as np
import pytest
import shapely

import gamenav
from gamenav import PathCache, PathQueue, PathStatus
from gamenav.runtime import QueueStats
from tests.runtime.helpers import check_walkable, connected_pairs, rooms_grid


def drain(queue: PathQueue, limit: int = 10_000) -> list[int]:
    """Update until nothing is pending; returns the expansions of each update."""
    spent = []
    while len(queue):
        queue.update()
        spent.append(queue.stats.last_frame_expansions)
        assert len(spent) < limit, "queue does not make progress"
    return spent


def same_path(a: gamenav.Path, b: gamenav.Path) -> None:
    assert a.status is b.status
    assert a.cost == b.cost
    np.testing.assert_array_equal(a.cells, b.cells)
    np.testing.assert_array_equal(a.points, b.points)


# -- budget -------------------------------------------------------------------------------
@pytest.mark.parametrize("budget, chunk", [(300, None), (1000, 64), (97, 40)])
def test_expansion_budget_is_never_exceeded_and_nothing_is_wasted(budget: int, chunk: int | None) -> None:
    grid = rooms_grid(64, 48, seed=1)
    pairs = connected_pairs(grid, 40, seed=2)
    queue = PathQueue(budget_ms=None, max_expansions=budget, chunk=chunk)
    requests = [queue.request(grid, s, g) for s, g in pairs]
    spent = drain(queue)
    # at most the budget (so certainly within one chunk of it) ...
    assert max(spent) <= budget
    # ... and every update but the last uses all of it: the budget is what bounds the work
    assert all(s == budget for s in spent[:-1])
    one_shot = [gamenav.find_path(grid, s, g) for s, g in pairs]
    assert sum(spent) == sum(p.expanded for p in one_shot)
    for req, ref in zip(requests, one_shot, strict=True):
        same_path(req.path, ref)


@pytest.mark.parametrize("options", [{}, {"diagonal": "never"}, {"agent_radius": 0.6, "smooth": True}])
def test_small_searches_are_answered_whole_when_they_start(monkeypatch: pytest.MonkeyPatch,
                                                           options: dict[str, object]) -> None:
    """On a grid with no more passable cells than an update's chunk, a queued query that
    find_path's one-call kernel answers is answered by it when it starts (and checked at request
    time without a search): no GridSearch set up (30 us or more each; every request built one
    to check it and another to run it), the same paths and expansions, the same budget spent."""
    from gamenav.grid.search import GridSearch

    grid = gamenav.TileGrid(np.random.default_rng(5).random((20, 24)) > 0.06)  # (room for a radius)
    pairs, one_shot = [], []
    for s, g in connected_pairs(grid, 40, seed=6):
        try:
            path = gamenav.find_path(grid, s, g, **options)
        except gamenav.BlockedEndpointError:  # (an end too close to a wall for the radius)
            continue
        if path.found:
            pairs.append((s, g))
            one_shot.append(path)
    assert len(pairs) >= 10
    started = []
    original = GridSearch._from_checked.__func__  # type: ignore[attr-defined]
    monkeypatch.setattr(GridSearch, "_from_checked",
                        classmethod(lambda cls, *args: started.append(1) or original(cls, *args)))
    queue = PathQueue(budget_ms=None, max_expansions=5000)
    requests = [queue.request(grid, s, g, **options) for s, g in pairs]
    spent = drain(queue)
    assert len(started) <= 1  # (the first request runs next: its search is started at once)
    assert sum(spent) == sum(p.expanded for p in one_shot) and max(spent) <= 5000
    for req, ref in zip(requests, one_shot, strict=True):
        same_path(req.path, ref)
        assert req.path.expanded == ref.expanded


def test_a_timed_queue_answers_short_searches_whole_before_any_speed_is_measured(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Short searches never run a chunk long enough to measure the world's speed; a timed queue
    then bounds a whole answer at 200 ns per passable cell (a 30x30 grid: 909 of 1000 short
    queries answered whole at 1 ms per update, none before)."""
    from gamenav.grid.search import GridSearch

    grid = gamenav.TileGrid(np.random.default_rng(3).random((30, 30)) > 0.15)
    assert int(grid.passable.sum()) > 256  # (more than a first chunk)
    pairs = [(s, (min(s[0] + 3, 29), s[1])) for s, _ in connected_pairs(grid, 60, seed=8)]
    pairs = [(s, g) for s, g in pairs if s != g and grid.is_passable(*g) and gamenav.find_path(grid, s, g).found]
    assert len(pairs) >= 20
    started = []
    original = GridSearch._from_checked.__func__  # type: ignore[attr-defined]
    monkeypatch.setattr(GridSearch, "_from_checked",
                        classmethod(lambda cls, *args: started.append(1) or original(cls, *args)))
    queue = PathQueue(budget_ms=1000.0)  # (time enough for every answer: only the rule is tested)
    requests = [queue.request(grid, s, g) for s, g in pairs]
    drain(queue)
    assert len(started) <= 1
    for req, (s, g) in zip(requests, pairs, strict=True):
        same_path(req.path, gamenav.find_path(grid, s, g))


def test_a_chunk_smaller_than_the_grid_still_steps_a_search() -> None:
    """With fewer expansions per update than the grid has passable cells, searches are stepped as
    before (the budget holds exactly)."""
    grid = rooms_grid(24, 20, seed=5)
    pairs = connected_pairs(grid, 10, seed=7)
    queue = PathQueue(budget_ms=None, max_expansions=50)
    requests = [queue.request(grid, s, g) for s, g in pairs]
    spent = drain(queue)
    assert max(spent) <= 50 and all(s == 50 for s in spent[:-1])
    for req, (s, g) in zip(requests, pairs, strict=True):
        same_path(req.path, gamenav.find_path(grid, s, g))


def test_time_budget_completes_everything_with_one_shot_results() -> None:
    grid = rooms_grid(64, 48, seed=3, costs=True)
    pairs = connected_pairs(grid, 30, seed=4)
    queue = PathQueue(budget_ms=0.2)
    requests = [queue.request(grid, s, g) for s, g in pairs]
    drain(queue)
    for req, (s, g) in zip(requests, pairs, strict=True):
        same_path(req.path, gamenav.find_path(grid, s, g))
    stats = queue.stats
    assert isinstance(stats, QueueStats)
    assert stats.completed == 30 and stats.pending == 0 and stats.searches == 0
    assert stats.frames == queue.frame >= 1 and stats.latency_max >= 1
    assert stats.frame_ms_max >= stats.frame_ms_p99 >= stats.frame_ms_p50 > 0


@pytest.mark.parametrize("options", [
    {},
    {"algorithm": "jps"},
    {"algorithm": "dijkstra"},
    {"diagonal": "never"},
    {"diagonal": "always"},
    {"diagonal": "at_most_one_blocked", "weight": 1.7},
    {"heuristic": "chebyshev"},
    {"smooth": True},
])
def test_sliced_results_equal_one_shot(options: dict) -> None:
    grid = rooms_grid(40, 32, seed=5)
    pairs = connected_pairs(grid, 12, seed=6)
    queue = PathQueue(budget_ms=None, max_expansions=37)  # odd budget: slices end anywhere
    requests = [queue.request(grid, s, g, **options) for s, g in pairs]
    drain(queue)
    for req, (s, g) in zip(requests, pairs, strict=True):
        same_path(req.path, gamenav.find_path(grid, s, g, **options))


def test_costs_partial_and_unreachable_goals_match_one_shot() -> None:
    grid = rooms_grid(40, 32, seed=7, costs=True)
    grid.set_walkable((0, 0, 40, 1), False)
    grid.set_walkable((5, 0), True)          # a cell on its own island
    grid.set_walkable((5, 1), False)
    start, island = (20, 16), (5, 0)
    queue = PathQueue(budget_ms=None, max_expansions=50)
    partial = queue.request(grid, start, island, partial=True)
    none = queue.request(grid, start, island)
    assert none.done and none.status is PathStatus.NO_PATH and none.frames_waited == 0
    drain(queue)
    same_path(partial.path, gamenav.find_path(grid, start, island, partial=True))
    assert partial.status is PathStatus.PARTIAL


# -- scheduling ---------------------------------------------------------------------------
def test_priorities_then_fifo() -> None:
    grid = rooms_grid(48, 40, seed=8)
    pairs = connected_pairs(grid, 8, seed=9)
    queue = PathQueue(budget_ms=None, max_expansions=1, aging=0)  # one expansion per frame
    order: list[int] = []
    priorities = [0, 5, 0, 5, 1, -2, 1, 5]
    for i, ((s, g), p) in enumerate(zip(pairs, priorities, strict=True)):
        queue.request(grid, s, g, priority=p, on_done=lambda r, i=i: order.append(i))
    drain(queue, limit=100_000)
    assert order == [1, 3, 7, 4, 6, 0, 2, 5]


def _flood(aging: float, frames: int) -> tuple[gamenav.PathRequest, int]:
    """A priority-0 request against 2 new priority-10 requests per frame (more than the budget
    serves). Returns the low request and how many high requests were made."""
    grid = rooms_grid(64, 48, seed=10)
    pairs = connected_pairs(grid, 2 * frames + 1, seed=11)
    queue = PathQueue(budget_ms=None, max_expansions=100, aging=aging)
    low = queue.request(grid, *pairs[0], priority=0)
    made = 0
    for _ in range(frames):
        for _ in range(2):
            made += 1
            queue.request(grid, *pairs[made], priority=10)
        queue.update()
        if low.done:
            break
    return low, made


def test_aging_bounds_the_wait_of_a_low_priority_request() -> None:
    aging = 0.5
    # A priority-10 request made k frames after the low one outranks it only if 10 > aging * k:
    # only the requests of the first 10 / aging = 20 frames (40 of them) can go first.
    grid = rooms_grid(64, 48, seed=10)
    pairs = connected_pairs(grid, 41, seed=11)
    work = sum(gamenav.find_path(grid, s, g).expanded for s, g in pairs)  # low + 40 high
    bound = -(-work // 100) + 1
    low, made = _flood(aging, 2 * bound + 50)
    assert low.done and low.status is PathStatus.FOUND
    assert low.frames_waited <= bound
    starved, _ = _flood(0.0, 2 * bound + 50)  # strict priorities: it never gets a turn
    assert not starved.done


def test_cancel_stops_costing_time_and_skips_callbacks() -> None:
    grid = rooms_grid(64, 48, seed=12)
    (s1, g1), (s2, g2) = connected_pairs(grid, 2, seed=13)
    called: list[gamenav.PathRequest] = []
    queue = PathQueue(budget_ms=None, max_expansions=25)
    a = queue.request(grid, s1, g1, on_done=called.append)
    b = queue.request(grid, s2, g2, on_done=called.append)
    queue.update()                      # a is running
    a.cancel()
    assert a.status is PathStatus.CANCELLED and a.done and len(a.path) == 0
    spent = 25 + sum(drain(queue))
    assert spent == gamenav.find_path(grid, s2, g2).expanded + 25
    assert called == [b] and queue.stats.cancelled == 1
    b.cancel()                          # no effect once done
    assert b.status is PathStatus.FOUND and queue.stats.cancelled == 1


def test_identical_requests_share_one_search() -> None:
    grid = rooms_grid(64, 48, seed=14)
    (s, g), = connected_pairs(grid, 1, seed=15)
    queue = PathQueue(budget_ms=None, max_expansions=50)
    reqs = [queue.request(grid, s, g) for _ in range(4)]
    reqs.append(queue.request(grid, s, g, diagonal="no_corner_cutting"))   # the default, spelt out
    other = queue.request(grid, s, g, diagonal="never")
    assert queue.stats.shared == 4 and queue.stats.searches == 2 and len(queue) == 6
    reqs[0].cancel()                   # the others keep the search
    total = sum(drain(queue))
    assert total == (gamenav.find_path(grid, s, g).expanded
                     + gamenav.find_path(grid, s, g, diagonal="never").expanded)
    assert all(r.path is reqs[1].path for r in reqs[1:])
    assert other.path.cost != reqs[1].path.cost
    assert reqs[0].status is PathStatus.CANCELLED


# -- edits --------------------------------------------------------------------------------
def _long_request(queue: PathQueue, grid: gamenav.TileGrid, **kwargs):
    s, g = (0, 20), (47, 20)
    grid.set_walkable((0, 18, 48, 23), True)
    ref = gamenav.find_path(grid, s, g)
    req = queue.request(grid, s, g, **kwargs)
    return req, ref, s, g


def test_edit_blocking_a_running_search_restarts_it() -> None:
    grid = rooms_grid(48, 40, seed=16)
    queue = PathQueue(budget_ms=None, max_expansions=10)
    req, ref, s, g = _long_request(queue, grid)
    queue.update()
    queue.update()                      # in progress on the old snapshot
    wall = tuple(int(v) for v in ref.cells[len(ref.cells) // 2])
    grid.set_walkable(wall, False)
    drain(queue)
    assert req.status is PathStatus.FOUND and queue.stats.restarts == 1
    check_walkable(grid, req.path, s, g)
    assert not (req.path.cells == wall).all(axis=1).any()
    same_path(req.path, gamenav.find_path(grid, s, g))


def test_edit_that_cannot_matter_keeps_the_running_search() -> None:
    grid = rooms_grid(48, 40, seed=16)
    queue = PathQueue(budget_ms=None, max_expansions=10)
    req, ref, s, g = _long_request(queue, grid)
    queue.update()
    far = next((x, y) for y in range(39, 0, -1) for x in range(47, 0, -1) if grid.passable[y, x]
               and abs(y - 20) > 12)
    grid.set_walkable(far, False)       # off the path: the optimum cannot get cheaper
    grid.set_cost((0, 0), 3.0)          # a cost rise off the path
    drain(queue)
    assert queue.stats.restarts == 0
    same_path(req.path, ref)
    assert req.path.cost == gamenav.find_path(grid, s, g).cost


def test_opening_a_shortcut_during_a_search_is_not_missed() -> None:
    grid = gamenav.TileGrid.from_strings(["." * 30] + ["#" * 29 + "."] + ["." * 30])
    queue = PathQueue(budget_ms=None, max_expansions=5)
    req = queue.request(grid, (0, 0), (0, 2))
    queue.update()
    grid.set_walkable((0, 1), True)     # a much shorter way appears
    drain(queue)
    assert req.path.cost == 2.0 and queue.stats.restarts == 1


def test_edits_made_by_callbacks_during_update() -> None:
    grid = rooms_grid(48, 40, seed=16)
    queue = PathQueue(budget_ms=None, max_expansions=20)
    req, ref, s, g = _long_request(queue, grid)
    wall = tuple(int(v) for v in ref.cells[len(ref.cells) // 2])
    edits: list[object] = []
    # a short urgent request is answered first; the long search then starts in the same update,
    # and the short one's callback edits the grid while the long one runs on the old snapshot
    near = (s[0] + 1, s[1])
    queue.request(grid, s, near, priority=1,
                  on_done=lambda r: edits.append(grid.set_walkable(wall, False)))
    queue.update()
    assert edits and edits[0] is not None and not req.done
    drain(queue)
    assert queue.stats.restarts == 1
    check_walkable(grid, req.path, s, g)
    same_path(req.path, gamenav.find_path(grid, s, g))


@pytest.mark.parametrize("on_change", ["restart", "stale"])
def test_update_from_a_grid_listener_that_runs_before_the_queue(on_change: str) -> None:
    # a game that re-plans at once on every edit, subscribed before the queue
    grid = gamenav.TileGrid(np.ones((5, 9), dtype=bool))
    queue = PathQueue(budget_ms=None, max_expansions=1000, on_change=on_change)
    grid.subscribe(lambda change: queue.update())
    req = queue.request(grid, (0, 2), (8, 2))  # the queue subscribes now, after the game
    grid.set_walkable((4, 0, 5, 4), False)  # a wall across the straight line, open at y = 4
    assert req.done
    if on_change == "stale":
        assert req.status is PathStatus.STALE
    else:
        assert check_walkable(grid, req.path, (0, 2), (8, 2)) == pytest.approx(
            gamenav.find_path(grid, (0, 2), (8, 2)).cost)


def test_stale_mode_answers_stale_instead_of_restarting() -> None:
    grid = rooms_grid(48, 40, seed=16)
    called: list[gamenav.PathRequest] = []
    queue = PathQueue(budget_ms=None, max_expansions=10, on_change="stale")
    req, ref, s, g = _long_request(queue, grid, on_done=called.append)
    queue.update()
    grid.set_walkable(tuple(int(v) for v in ref.cells[5]), False)
    drain(queue)
    assert req.status is PathStatus.STALE and len(req.path) == 0
    assert called == [req]
    stats = queue.stats
    assert stats.stale == 1 and stats.restarts == 0 and stats.completed == 0


# -- cache, quick paths -------------------------------------------------------------------
def test_cache_answers_at_request_time_and_callbacks_wait_for_update() -> None:
    grid = rooms_grid(48, 40, seed=17)
    (s, g), = connected_pairs(grid, 1, seed=18)
    cache = PathCache()
    queue = PathQueue(budget_ms=None, max_expansions=10_000, cache=cache)
    first = queue.request(grid, s, g)
    drain(queue)
    called: list[gamenav.PathRequest] = []
    again = queue.request(grid, s, g, on_done=called.append)
    assert again.done and again.frames_waited == 0 and again.path is first.path
    assert called == []
    queue.update()
    assert called == [again]
    assert queue.stats.cache_hits == 1 and cache.stats.hits == 1


def test_quick_path_lets_an_agent_start_moving() -> None:
    grid = rooms_grid(64, 48, seed=19)
    s, g = (0, 24), (63, 24)
    grid.set_walkable((0, 22, 64, 27), True)
    queue = PathQueue(budget_ms=None, max_expansions=100)
    req = queue.request(grid, s, g, quick_expansions=30)
    assert not req.done and req.path.status is PathStatus.PARTIAL and len(req.path) > 1
    cells = req.path.cells
    check_walkable(grid, req.path, s, tuple(cells[-1]))
    drain(queue)
    same_path(req.path, gamenav.find_path(grid, s, g))
    short = queue.request(grid, s, (s[0] + 3, s[1]), quick_expansions=200)
    assert short.done and short.frames_waited == 0 and short.status is PathStatus.FOUND


def test_quick_path_is_withdrawn_when_an_edit_blocks_it() -> None:
    grid = rooms_grid(64, 48, seed=19)
    s, g = (0, 24), (63, 24)
    grid.set_walkable((0, 22, 64, 27), True)
    queue = PathQueue(budget_ms=None, max_expansions=100)
    req = queue.request(grid, s, g, quick_expansions=30)
    grid.set_walkable(tuple(int(v) for v in req.path.cells[-1]), False)
    assert req.path.status is PathStatus.IN_PROGRESS and len(req.path) == 0
    drain(queue)
    check_walkable(grid, req.path, s, g)


# -- errors -------------------------------------------------------------------------------
def test_errors_name_what_was_expected() -> None:
    grid = rooms_grid(16, 16, seed=20)
    with pytest.raises(gamenav.InvalidInputError, match="give budget_ms or max_expansions"):
        PathQueue(budget_ms=None)
    with pytest.raises(gamenav.InvalidInputError, match=r"budget_ms must be .* got -1"):
        PathQueue(budget_ms=-1)
    with pytest.raises(gamenav.InvalidInputError, match=r"max_expansions must be an int from 1 to .* got 0"):
        PathQueue(max_expansions=0)
    with pytest.raises(gamenav.InvalidInputError, match=r"max_expansions must be an int from 1 to 2\*\*63 - 1"):
        PathQueue(max_expansions=2**63)  # rejected here, never inside update()
    with pytest.raises(gamenav.InvalidInputError, match="on_change must be 'restart' or 'stale'"):
        PathQueue(on_change="ignore")
    with pytest.raises(gamenav.InvalidInputError, match="cache must be a PathCache"):
        PathQueue(cache={})
    queue = PathQueue()
    blocked = tuple(int(v) for v in np.argwhere(~grid.passable)[0][::-1])
    free = tuple(int(v) for v in np.argwhere(grid.passable)[0][::-1])
    with pytest.raises(gamenav.BlockedEndpointError, match="start"):
        queue.request(grid, blocked, free)
    with pytest.raises(gamenav.OutOfBoundsError, match="outside the grid"):
        queue.request(grid, free, (99, 0))
    with pytest.raises(gamenav.InvalidInputError, match="priority must be a finite number"):
        queue.request(grid, free, free, priority=float("nan"))
    with pytest.raises(gamenav.InvalidInputError, match="do not pass workspace="):
        queue.request(grid, free, free, workspace=gamenav.SearchWorkspace(grid.shape))
    with pytest.raises(gamenav.InvalidInputError, match="algorithm must be one of"):
        queue.request(grid, free, free, algorithm="bfs")
    assert len(queue) == 0


def test_navmesh_requests_match_one_shot() -> None:
    room = [(0.0, 0.0), (20.0, 0.0), (20.0, 12.0), (0.0, 12.0)]
    pillars = [shapely.box(x, 2.0, x + 1.0, 10.0) for x in (4.0, 9.0, 14.0)]  # (rings: a shell and its holes)
    mesh = gamenav.NavMesh.from_polygons([room], obstacles=pillars)
    assert (mesh.locate([(4.5, 6.0), (9.5, 6.0), (14.5, 6.0)]) == -1).all()
    pairs = [((0.5, 0.5), (19.5, 11.5)), ((2.0, 6.0), (17.0, 6.0)), ((0.5, 11.5), (19.5, 0.5))]
    queue = PathQueue(budget_ms=None, max_expansions=2)
    requests = [queue.request(mesh, s, g) for s, g in pairs]
    requests.append(queue.request(mesh, *pairs[0]))     # shared
    assert queue.stats.shared == 1
    drain(queue)
    for req, (s, g) in zip(requests, [*pairs, pairs[0]], strict=True):
        same_path(req.path, gamenav.find_path(mesh, s, g))
    assert requests[-1].path is requests[0].path


def test_time_budget_logic_with_a_simulated_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    """A fake clock that advances 0.07-0.13 us per expansion (a speed per search, as searches
    differ) + 3 us per step call: the chunk sizing must stop every update within its budget and
    use most of it while work remains."""
    import types

    from gamenav.grid.search import GridSearch
    from gamenav.runtime import queue as queue_module

    clock = [0.0]
    real_step = GridSearch.step

    def step(self: GridSearch, max_expansions: int | None = None) -> PathStatus:
        before = self.expanded
        status = real_step(self, max_expansions)
        speed = 0.7 + 0.6 * ((self.start[0] * 7 + self.goal[1] * 13) % 11) / 10
        clock[0] += 3e-6 + (self.expanded - before) * speed * 1e-7
        return status

    monkeypatch.setattr(GridSearch, "step", step)
    monkeypatch.setattr(queue_module, "time", types.SimpleNamespace(perf_counter=lambda: clock[0]))
    grid = rooms_grid(200, 160, seed=21)
    pairs = connected_pairs(grid, 60, seed=22)
    queue = PathQueue(budget_ms=0.2)
    requests = [queue.request(grid, s, g) for s, g in pairs]
    used = []
    while len(queue):
        t0 = clock[0]
        queue.update()
        used.append((clock[0] - t0) * 1e3)
        assert len(used) < 10_000
    assert max(used) <= 0.2 + 1e-9                      # never past the budget
    assert np.median(used[:-1]) >= 0.18                  # and most of it is used
    for req, (s, g) in zip(requests, pairs, strict=True):
        same_path(req.path, gamenav.find_path(grid, s, g))


def test_budget_can_be_changed_between_frames() -> None:
    grid = gamenav.TileGrid(np.ones((40, 40), dtype=bool))
    queue = gamenav.PathQueue(budget_ms=None, max_expansions=10)
    request = queue.request(grid, (0, 0), (39, 39))
    queue.update()
    assert queue.stats.last_frame_expansions == 10 and not request.done
    queue.max_expansions = 1000
    queue.update()
    assert request.done and request.status is gamenav.PathStatus.FOUND
    queue.budget_ms = 2.0
    assert queue.budget_ms == 2.0
    queue.budget_ms = None
    with pytest.raises(gamenav.InvalidInputError, match="give budget_ms or max_expansions"):
        queue.max_expansions = None
    with pytest.raises(gamenav.InvalidInputError, match="budget_ms must be a finite number > 0"):
        queue.budget_ms = float("nan")
