"""PathCache: hits, exact invalidation by grid edits, LRU, navmesh versions, errors."""

from __future__ import annotations

import numpy as np
import pytest
import shapely

import gamenav
from gamenav import PathCache, PathStatus
from gamenav.runtime._invalidation import footprint
from tests.runtime.helpers import check_walkable

OPEN = ["." * 12] * 7


def test_hit_returns_the_same_result_and_counts() -> None:
    grid = gamenav.TileGrid.from_strings(OPEN)
    cache = PathCache(capacity=10)
    first = cache.find_path(grid, (0, 0), (11, 6))
    assert cache.find_path(grid, (0, 0), (11, 6)) is first
    assert cache.find_path(grid, (0, 0), (11, 6), diagonal="no_corner_cutting") is first
    other = cache.find_path(grid, (0, 0), (11, 6), diagonal="never")
    assert other.cost == 17.0 and other is not first
    s = cache.stats
    assert (s.hits, s.misses, s.size, s.capacity) == (2, 2, 2, 10)
    assert s.hit_rate == 0.5 and len(cache) == 2


def test_a_miss_is_answered_by_the_one_call_kernel(monkeypatch: pytest.MonkeyPatch) -> None:
    """A miss on a query that find_path's fast path answers sets up no GridSearch (74 -> 46 us
    per miss on a 48x40 grid): the same path and expansions as find_path."""
    from gamenav.grid.search import GridSearch

    grid = gamenav.TileGrid(np.random.default_rng(2).random((30, 40)) > 0.2)
    started = []
    original = GridSearch._from_checked.__func__  # type: ignore[attr-defined]
    monkeypatch.setattr(GridSearch, "_from_checked",
                        classmethod(lambda cls, *args: started.append(1) or original(cls, *args)))
    cache = PathCache()
    for options in ({}, {"diagonal": "never", "smooth": True}):
        ref = gamenav.find_path(grid, (1, 1), (38, 28), **options)
        path = cache.find_path(grid, (1, 1), (38, 28), **options)
        assert path.status is ref.status and path.cost == ref.cost and path.expanded == ref.expanded
        np.testing.assert_array_equal(path.cells, ref.cells)
    assert not started


def test_blocking_drops_exactly_the_paths_that_cross() -> None:
    grid = gamenav.TileGrid.from_strings(OPEN)
    cache = PathCache()
    top = cache.find_path(grid, (0, 0), (11, 0))
    bottom = cache.find_path(grid, (0, 6), (11, 6))
    grid.set_walkable((5, 0), False)
    assert cache.stats.invalidations == 1
    assert cache.find_path(grid, (0, 6), (11, 6)) is bottom
    fresh = cache.find_path(grid, (0, 0), (11, 0))
    assert fresh is not top and fresh.cost > top.cost
    check_walkable(grid, fresh, (0, 0), (11, 0))


def test_blocking_a_corner_of_a_diagonal_step_drops_the_path() -> None:
    grid = gamenav.TileGrid.from_strings(["...", "...", "..."])
    cache = PathCache()
    diag = cache.find_path(grid, (0, 0), (2, 2))
    assert len(diag) == 3                      # (0,0) (1,1) (2,2): corners (1,0) (0,1) ...
    grid.set_walkable((1, 0), False)           # no longer allowed without corner cutting
    assert len(cache) == 0
    check_walkable(grid, cache.find_path(grid, (0, 0), (2, 2)), (0, 0), (2, 2))
    # the footprint of rules that read corners: the cells and the corners of diagonal steps
    assert set(footprint(diag.cells, 3).tolist()) == {0, 1, 3, 4, 5, 7, 8}
    assert set(footprint(diag.cells, 3, corners=False).tolist()) == {0, 4, 8}


def test_opening_drops_only_paths_it_could_shorten() -> None:
    rows = ["." * 20, "#" * 19 + ".", "." * 20, "." * 20, "#" * 20]
    grid = gamenav.TileGrid.from_strings(rows)
    cache = PathCache()
    around = cache.find_path(grid, (0, 0), (0, 2))          # the long way round the wall
    assert around.cost == 40.0
    local = cache.find_path(grid, (0, 3), (3, 3))           # cost 3
    grid.set_walkable((19, 4), True)    # octile bound via (19, 4): 20.66 + 19.83 >= 40: keep
    assert cache.find_path(grid, (0, 0), (0, 2)) is around
    grid.set_walkable((18, 1), True)    # 18.41 + 18.41 < 40 and really shorter: drop
    assert cache.find_path(grid, (0, 0), (0, 2)).cost == 38.0
    grid.set_walkable((1, 1), True)     # bound 1.41 + 1.41 < 38: drop
    assert cache.find_path(grid, (0, 0), (0, 2)).cost == 4.0   # no corner cutting past (0, 1)
    assert cache.find_path(grid, (0, 3), (3, 3)) is local  # no opening can beat cost 3
    assert cache.stats.invalidations == 2


def test_cost_changes() -> None:
    grid = gamenav.TileGrid.from_strings(OPEN)
    cache = PathCache()
    p = cache.find_path(grid, (0, 3), (11, 3))
    grid.set_cost((5, 0), 4.0)                 # raised off the path: kept
    assert cache.find_path(grid, (0, 3), (11, 3)) is p
    grid.set_cost((5, 3), 4.0)                 # raised on the path: dropped
    detour = cache.find_path(grid, (0, 3), (11, 3))
    assert detour.cost > p.cost
    grid.set_cost((5, 3), 1.0)                 # lowered where it helps: dropped
    assert cache.find_path(grid, (0, 3), (11, 3)).cost == p.cost
    assert cache.stats.invalidations == 2


def test_no_path_entries() -> None:
    grid = gamenav.TileGrid.from_strings(["..#..", "..#..", "..#.."])
    cache = PathCache()
    none = cache.find_path(grid, (0, 0), (4, 0))
    assert none.status is PathStatus.NO_PATH
    grid.set_cost((0, 2), 2.0)                 # a cost edit cannot connect islands: kept
    assert cache.find_path(grid, (0, 0), (4, 0)) is none
    grid.set_walkable((2, 1), True)            # an opening may: dropped
    assert cache.find_path(grid, (0, 0), (4, 0)).status is PathStatus.FOUND
    grid.set_walkable((2, 1), False)
    assert cache.find_path(grid, (0, 0), (4, 0)).status is PathStatus.NO_PATH
    grid.set_walkable((0, 0), False)           # the start itself: the error a search gives
    with pytest.raises(gamenav.BlockedEndpointError, match="start"):
        cache.find_path(grid, (0, 0), (4, 0))


def test_partial_and_smoothed_entries_die_with_any_edit() -> None:
    grid = gamenav.TileGrid.from_strings(["..#..", "..#..", "..#.."])
    cache = PathCache()
    partial = cache.find_path(grid, (0, 0), (4, 0), partial=True)
    smooth = cache.find_path(grid, (0, 0), (1, 2), smooth=True)
    assert partial.status is PathStatus.PARTIAL and smooth.found
    assert cache.find_path(grid, (0, 0), (4, 0), partial=True) is partial
    grid.set_cost((4, 2), 3.0)                 # far from both
    assert len(cache) == 0


def test_lru_eviction_and_unsubscribe() -> None:
    grid = gamenav.TileGrid.from_strings(OPEN)
    cache = PathCache(capacity=2)
    a = cache.find_path(grid, (0, 0), (1, 0))
    cache.find_path(grid, (0, 0), (2, 0))
    assert cache.find_path(grid, (0, 0), (1, 0)) is a      # a is now the most recent
    cache.find_path(grid, (0, 0), (3, 0))                   # evicts (2, 0)
    assert cache.stats.evictions == 1 and len(cache) == 2
    assert cache.find_path(grid, (0, 0), (1, 0)) is a
    assert len(grid._listeners) == 1
    cache.clear()
    assert len(cache) == 0 and cache.stats.hits == 0 and len(grid._listeners) == 0


def _bytes_of(cache: PathCache, *paths: gamenav.Path) -> int:
    """What ``paths`` hold (cells, points, corridor) and the footprints ``cache`` keeps for them."""
    tables = [*cache._grids.values(), *cache._meshes.values()]
    own = sum(p.cells.nbytes + p.points.nbytes + p.corridor.nbytes for p in paths)
    return own + sum(fp.nbytes for t in tables for fp in getattr(t.table, "_fps", []) if fp is not None)


def test_memory_is_bounded_as_well_as_the_entry_count() -> None:
    """Only the entry count was bounded: 4096 long paths of a 1550 x 1550 map (cells, points and
    footprints, ~100 KB each) took hundreds of MB. ``max_bytes`` bounds their arrays too."""
    grid = gamenav.TileGrid(np.ones((4, 400), bool))
    probe = PathCache()
    long = probe.find_path(grid, (0, 0), (399, 0))
    one = _bytes_of(probe, long)
    cache = PathCache(max_bytes=3 * one)
    paths = [cache.find_path(grid, (0, y), (399, y)) for y in range(4)]
    stats = cache.stats
    assert stats.size == 3 and stats.evictions == 1 and stats.nbytes == _bytes_of(cache, *paths[1:])
    assert stats.nbytes <= stats.max_bytes == 3 * one
    assert cache.find_path(grid, (0, 1), (399, 1)) is paths[1]      # the most recent three stay
    grid.set_walkable((200, 1), False)                               # invalidation frees bytes too
    assert cache.stats.size == 2 and cache.stats.nbytes == _bytes_of(cache, *paths[2:])
    cache.clear()
    assert cache.stats.nbytes == 0
    small = PathCache(max_bytes=one // 2)                            # one result alone too big
    assert small.find_path(grid, (0, 0), (399, 0)).found and len(small) == 0
    assert len(grid._listeners) == 1                                 # (probe's): small keeps none
    with pytest.raises(gamenav.InvalidInputError, match="max_bytes must be an int >= 1"):
        PathCache(max_bytes=0)


def test_grid_listener_goes_when_the_last_entry_dies() -> None:
    grid = gamenav.TileGrid.from_strings(OPEN)
    cache = PathCache()
    cache.find_path(grid, (0, 0), (3, 0))
    grid.set_walkable((2, 0), False)
    assert len(cache) == 0 and len(grid._listeners) == 0


def test_weighted_entries_keep_their_guarantee() -> None:
    rng = np.random.default_rng(3)
    grid = gamenav.TileGrid(rng.random((30, 30)) > 0.25, cost=rng.integers(1, 4, (30, 30)))
    grid.set_walkable((0, 0, 30, 1), True)
    cache = PathCache()
    for _ in range(50):
        p = cache.find_path(grid, (0, 0), (29, 0), weight=2.0)
        opt = gamenav.find_path(grid, (0, 0), (29, 0))
        check_walkable(grid, p, (0, 0), (29, 0))
        assert p.cost <= 2.0 * opt.cost + 1e-9
        x, y = (int(v) for v in rng.integers(0, 30, 2))
        if y:
            grid.set_walkable((x, y), bool(rng.random() < 0.5))


def test_a_grid_listener_never_gets_a_stale_path_from_the_cache() -> None:
    # a game re-paths its units on every map change, from a listener subscribed before the cache
    grid = gamenav.TileGrid.from_strings(OPEN)
    cache = PathCache()
    answers: list[gamenav.Path] = []
    grid.subscribe(lambda change: answers.append(cache.find_path(grid, (0, 3), (11, 3))))
    straight = cache.find_path(grid, (0, 3), (11, 3))  # the cache subscribes now, after the game
    assert straight.cost == 11.0
    grid.set_walkable((5, 0, 6, 6), False)  # a wall across the straight line, open at y = 6
    fresh = gamenav.find_path(grid, (0, 3), (11, 3))
    assert answers[-1].cost == fresh.cost > 11.0
    assert check_walkable(grid, answers[-1], (0, 3), (11, 3)) == pytest.approx(fresh.cost)
    assert cache.find_path(grid, (0, 3), (11, 3)).cost == fresh.cost


def test_a_listener_that_edits_again_never_gets_a_stale_path_from_the_cache() -> None:
    grid = gamenav.TileGrid.from_strings(OPEN)
    cache = PathCache()
    cache.find_path(grid, (0, 3), (11, 3))  # the cache listens first
    answers: list[gamenav.Path] = []

    def game(change: gamenav.GridChange) -> None:
        if change.version == 1:
            grid.set_walkable((5, 0, 6, 6), False)  # version 2, heard by the cache after this
        answers.append(cache.find_path(grid, (0, 3), (11, 3)))

    grid.subscribe(game)
    grid.set_walkable((0, 0), False)
    fresh = gamenav.find_path(grid, (0, 3), (11, 3))
    assert len(answers) == 2 and fresh.cost > 11.0
    for path in answers:
        assert check_walkable(grid, path, (0, 3), (11, 3)) == pytest.approx(fresh.cost)


def test_navmesh_entries_are_keyed_by_version() -> None:
    room = [(0.0, 0.0), (8.0, 0.0), (8.0, 6.0), (0.0, 6.0)]
    pillar = [(3.0, 1.0), (4.0, 1.0), (4.0, 5.0), (3.0, 5.0)]
    mesh = gamenav.NavMesh.from_polygons([room], obstacles=[pillar])
    cache = PathCache()
    a = cache.find_path(mesh, (0.5, 0.5), (7.5, 5.5))
    assert cache.find_path(mesh, (0.5, 0.5), (7.5, 5.5)) is a
    assert a.found and a.cost == gamenav.find_path(mesh, (0.5, 0.5), (7.5, 5.5)).cost
    rebuilt = gamenav.NavMesh.from_polygons([room], obstacles=[pillar])
    assert rebuilt.version != mesh.version
    assert cache.find_path(rebuilt, (0.5, 0.5), (7.5, 5.5)) is not a


def test_errors() -> None:
    with pytest.raises(gamenav.InvalidInputError, match="capacity must be an int >= 1, got 0"):
        PathCache(capacity=0)
    grid = gamenav.TileGrid.from_strings(OPEN)
    cache = PathCache()
    with pytest.raises(gamenav.OutOfBoundsError, match=r"goal \(12, 0\) is outside the grid"):
        cache.find_path(grid, (0, 0), (12, 0))
    with pytest.raises(gamenav.InvalidInputError, match=r"start must be an \(x, y\) pair of ints"):
        cache.find_path(grid, (0.5, 0), (1, 0))
    with pytest.raises(gamenav.InvalidInputError, match="world must be a TileGrid or a NavMesh"):
        cache.find_path("map", (0, 0), (1, 0))
    assert len(cache) == 0



def test_a_dropped_grid_or_mesh_is_freed_and_a_world_under_its_id_finds_none_of_its_paths(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The cache held each world strongly until its entries left: an unloaded level's grid (and
    its search indexes) stayed in memory. Now it is freed, and a new world that gets its ``id``
    (keys are by id; simulated here, CPython reuses freed memory) finds none of its paths."""
    import gc
    import weakref

    import gamenav.runtime._search as search_module
    import gamenav.runtime.cache as cache_module

    ids: dict[int, int] = {}  # id(world) -> the id the cache sees (the first level's, for both levels)

    def level(blocked: bool) -> tuple[gamenav.TileGrid, gamenav.NavMesh]:
        walk = np.ones((8, 8), bool)
        walk[1:8, 3] = not blocked
        grid = gamenav.TileGrid(walk)
        return grid, gamenav.NavMesh.from_grid(grid)

    def seen_id(obj: object) -> int:
        return ids.get(id(obj), id(obj))

    for module in (search_module, cache_module):
        monkeypatch.setattr(module, "id", seen_id, raising=False)
    cache = PathCache()
    grid, mesh = level(blocked=False)
    assert cache.find_path(grid, (0, 7), (7, 7)).cost == 7.0
    assert cache.find_path(mesh, (0.5, 7.5), (7.5, 7.5)).cost == 7.0
    assert len(cache) == 2
    refs = weakref.ref(grid), weakref.ref(mesh)
    old = id(grid), id(mesh)
    del grid, mesh
    gc.collect()
    assert refs[0]() is None and refs[1]() is None  # (kept alive by the cache before)
    grid, mesh = level(blocked=True)
    ids[id(grid)], ids[id(mesh)] = old
    cached, fresh = cache.find_path(grid, (0, 7), (7, 7)), gamenav.find_path(grid, (0, 7), (7, 7))
    assert cached.cost == fresh.cost > 7.0 and np.array_equal(cached.cells, fresh.cells)
    assert cache.find_path(mesh, (0.5, 7.5), (7.5, 7.5)).cost > 7.0
    assert len(cache) == 2 and cache.stats.hits == 0


@pytest.mark.parametrize("algorithm", ["jps", "hpa", "subgoal"])
def test_graph_algorithm_entries_are_not_answered_once_the_grid_has_costs(algorithm: str) -> None:
    """After ``set_cost((5, 5), 3.0)`` far off the path, ``find_path(..., algorithm="jps")`` raises
    UnsupportedOptionError, but the cache (and a queue using it) answered the old query FOUND:
    the answer depended on what was cached. Such entries now miss and the search raises."""
    grid = gamenav.TileGrid.from_strings(["." * 10] * 6)
    cache = PathCache()
    cache.find_path(grid, (0, 0), (9, 0), algorithm=algorithm)
    grid.set_cost((5, 5), 3.0)
    with pytest.raises(gamenav.UnsupportedOptionError, match="uniform-cost"):
        gamenav.find_path(grid, (0, 0), (9, 0), algorithm=algorithm)
    with pytest.raises(gamenav.UnsupportedOptionError, match="uniform-cost"):
        cache.find_path(grid, (0, 0), (9, 0), algorithm=algorithm)
    queue = gamenav.PathQueue(budget_ms=None, max_expansions=10, cache=cache)
    with pytest.raises(gamenav.UnsupportedOptionError, match="uniform-cost"):
        queue.request(grid, (0, 0), (9, 0), algorithm=algorithm)
    grid.set_cost((5, 5), 1.0)  # uniform again: the entry (still exact) answers
    assert cache.find_path(grid, (0, 0), (9, 0), algorithm=algorithm).cost == 9.0
    assert cache.stats.hits == 1


def test_exact_mesh_entries_are_not_answered_once_the_mesh_has_area_costs() -> None:
    """A mesh following a grid gets area costs from ``set_cost`` far from a cached path: a fresh
    ``exact=True`` search then raises UnsupportedOptionError, but the cache answered FOUND."""
    grid = gamenav.TileGrid(np.ones((40, 20), bool))
    mesh = gamenav.NavMesh.from_grid(grid, follow=True)
    cache = PathCache()
    assert cache.find_path(mesh, (0.5, 0.5), (19.5, 0.5), exact=True).cost == 19.0
    grid.set_cost((10, 39), 3.0)
    with pytest.raises(gamenav.UnsupportedOptionError, match="area costs"):
        gamenav.find_path(mesh, (0.5, 0.5), (19.5, 0.5), exact=True)
    with pytest.raises(gamenav.UnsupportedOptionError, match="area costs"):
        cache.find_path(mesh, (0.5, 0.5), (19.5, 0.5), exact=True)
    assert cache.find_path(mesh, (0.5, 0.5), (19.5, 0.5)).cost == 19.0  # the default mode answers


def _owners(array: np.ndarray) -> list[object]:
    """``array`` and every object down its ``.base`` chain (a memoryview's exporter too)."""
    chain: list[object] = [array]
    while True:
        last = chain[-1]
        nxt = last.obj if isinstance(last, memoryview) else getattr(last, "base", None)
        if nxt is None:
            return chain
        chain.append(nxt)


def test_a_path_handed_to_several_callers_cannot_be_made_writable() -> None:
    # the cache returns one Path to every caller and a queue one Path to the requests that joined a
    # search; numpy let a caller make its arrays writable, and one caller scaling its points in
    # place moved every other caller's path
    grid = gamenav.TileGrid(np.ones((6, 6), dtype=bool))
    cache = gamenav.PathCache()
    first = cache.find_path(grid, (0, 0), (5, 5))
    queue = gamenav.PathQueue()
    requests = [queue.request(grid, (0, 0), (5, 4)) for _ in range(2)]
    queue.update()
    assert cache.find_path(grid, (0, 0), (5, 5)) is first and requests[0].path is requests[1].path
    for path in (first, requests[0].path):
        for array in (path.cells, path.points, path.corridor):
            for owner in _owners(array):  # (no owner down the .base chain either)
                if isinstance(owner, np.ndarray):
                    with pytest.raises(ValueError, match="WRITEABLE"):
                        owner.flags.writeable = True
                else:
                    assert isinstance(owner, bytes), type(owner)
    fresh = gamenav.find_path(grid, (0, 0), (5, 5))
    assert np.array_equal(first.points, fresh.points) and first.cost == fresh.cost


def test_equal_mesh_queries_share_one_entry_and_refused_flags_are_not_answered() -> None:
    """Equal queries spelt differently (-0.0, ints, numpy scalars, numpy bools, 0/1 flags) share
    one entry; a flag a fresh search refuses (``exact=1.0``) shared the key of ``exact=True``
    (``1.0 == True``), so the cache answered FOUND where ``find_path`` raises InvalidInputError."""
    mesh = gamenav.NavMesh.from_polygons([(-5, -5), (10, -5), (10, 10), (-5, 10)])
    cache = PathCache()
    first = cache.find_path(mesh, (0.0, 0.0), (3.0, 3.0), exact=True)
    for start, goal, exact in [((-0.0, -0.0), (3.0, 3.0), True), ((0, 0), (3, 3), 1),
                               (np.float32([0, -0.0]), (np.float64(3), np.int8(3)), np.True_)]:
        assert cache.find_path(mesh, start, goal, exact=exact) is first
    assert (cache.stats.hits, len(cache)) == (3, 1)
    for bad in (1.0, np.float64(1.0), "yes"):
        with pytest.raises(gamenav.InvalidInputError, match="exact must be a bool"):
            gamenav.find_path(mesh, (0.0, 0.0), (3.0, 3.0), exact=bad)
        with pytest.raises(gamenav.InvalidInputError, match="exact must be a bool"):
            cache.find_path(mesh, (0.0, 0.0), (3.0, 3.0), exact=bad)
    with pytest.raises(gamenav.InvalidOptionError, match="exakt"):
        cache.find_path(mesh, (0.0, 0.0), (3.0, 3.0), exakt=True)


@pytest.mark.parametrize("exact", [True, False], ids=["exact", "default"])
def test_a_clamped_mesh_entry_is_dropped_when_space_opens_a_shorter_way(exact: bool) -> None:
    """``clamp=True`` with both ends far off the mesh: the bound "could a path through the opened
    box beat the cached cost" was taken from the ends as given (1e6 away), not from the points
    they were snapped to, so opening a door kept a 198.9-long path where a fresh search finds 100."""
    walls = [[(40, 1), (60, 1), (60, 80), (40, 80)], [(40, 82), (60, 82), (60, 101), (40, 101)]]
    mesh = gamenav.NavMesh.from_polygons([(0, 0), (100, 0), (100, 100), (0, 100)],
                                         obstacles=[shapely.Polygon(w) for w in walls])
    door = mesh.add_obstacle([(45, 79), (55, 79), (55, 83), (45, 83)])
    cache = PathCache()
    start, goal = (-1e6, 81.0), (1e6 + 100, 81.0)
    around = cache.find_path(mesh, start, goal, clamp=True, exact=exact)
    assert around.cost == pytest.approx(198.885438) and around.points[0].tolist() == [0.0, 81.0]
    mesh.remove_obstacle(door)
    through = cache.find_path(mesh, start, goal, clamp=True, exact=exact)
    assert through.cost == pytest.approx(100.0) and cache.stats.invalidations == 1


def test_a_result_whose_bookkeeping_passes_max_bytes_is_not_stored() -> None:
    """(A mend of max_bytes above: a result was refused only when its own arrays passed the bound;
    one that passed it with its invalidation footprint was stored, and ``stats.nbytes`` stayed
    above ``stats.max_bytes``, documented as the most it may reach.)"""
    grid = gamenav.TileGrid(np.ones((4, 400), bool))
    probe = PathCache()
    long = probe.find_path(grid, (0, 0), (399, 0))
    own = long.cells.nbytes + long.points.nbytes + long.corridor.nbytes
    one = _bytes_of(probe, long)
    assert own < one - 1                                             # the footprint counts
    cache = PathCache(max_bytes=one - 1)
    assert cache.find_path(grid, (0, 0), (399, 0)).found
    assert len(cache) == 0 and cache.stats.nbytes == 0 <= cache.stats.max_bytes
    assert len(grid._listeners) == 1                                 # (probe's): cache keeps none
    fits = PathCache(max_bytes=one)
    fits.find_path(grid, (0, 0), (399, 0))
    assert len(fits) == 1 and fits.stats.nbytes == one


def test_navmesh_entries_count_the_packed_arrays_an_edit_checks() -> None:
    """(A mend of max_bytes above: navmesh entries were counted as their paths' arrays alone, but
    an edit packs every entry's ends, polyline segments and corridor into arrays it keeps, about
    twice the paths' points again: a cache of navmesh paths held about 3x its ``max_bytes``.)"""
    mesh = gamenav.NavMesh.from_polygons([(0, 0), (40, 0), (40, 40), (0, 40)],
                                         obstacles=[[(10, 10), (30, 10), (30, 30), (10, 30)]])
    cache = PathCache()
    paths = [cache.find_path(mesh, (12, 1 + k), (28, 2 + k), exact=True) for k in range(5)]
    mesh.add_obstacle([(19, 34), (21, 34), (21, 36), (19, 36)])  # across the wall: it drops no path
    assert len(cache) == 5
    table = next(iter(cache._meshes.values())).table
    packed = sum(v.nbytes for v in table._arr.values() if isinstance(v, np.ndarray))
    ends = sum(row[i].nbytes for row in table._entries.values() for i in (0, 1, 8, 9))
    own = sum(p.cells.nbytes + p.points.nbytes + p.corridor.nbytes for p in paths)
    assert cache.stats.nbytes == own + packed + ends
