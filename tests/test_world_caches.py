"""Caches keyed by world (TileGrid / NavMesh) identity: the per-grid indexes of "jps", "hpa" and
"subgoal", the fast path's kernel tables, the workspace pool's grid count, the navmesh queries'
cost and local-vertex caches and a PathQueue's per-world figures. None may hash or compare a
world with its own ``__eq__`` / ``__hash__``, share an entry between two worlds (copies and
pickles included) or keep one after its world died."""

from __future__ import annotations

import copy
import gc
import pickle
import weakref
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import gamenav
from gamenav import NavMesh, TileGrid
from gamenav._identity import IdentityMap
from gamenav.grid import hpa, jump_plus, subgoal
from gamenav.grid import search as grid_search
from gamenav.navmesh import search as mesh_search
from gamenav.types import Path

ALGORITHMS = ("astar", "jps", "hpa", "subgoal", "dijkstra")
QUERIES = (((0, 47), (47, 47)), ((0, 0), (47, 47)), ((3, 40), (44, 2)))


class EqGrid(TileGrid):
    """Defines ``__eq__`` only, so Python sets ``__hash__`` to None."""

    def __eq__(self, other: object) -> bool:
        return isinstance(other, TileGrid) and self.shape == other.shape


class ValueGrid(TileGrid):
    """Value equality: every grid of one shape is equal to, and hashes like, every other."""

    def __eq__(self, other: object) -> bool:
        return isinstance(other, TileGrid) and self.shape == other.shape

    def __hash__(self) -> int:
        return hash(self.shape)


class EqMesh(NavMesh):
    def __eq__(self, other: object) -> bool:
        return isinstance(other, NavMesh)


class ValueMesh(NavMesh):
    def __eq__(self, other: object) -> bool:
        return isinstance(other, NavMesh)

    def __hash__(self) -> int:
        return 1


def _cells(walled: bool) -> np.ndarray:
    """48 x 48 floor; ``walled``: a wall down column 24 with a gap at the top only."""
    walk = np.ones((48, 48), dtype=bool)
    if walled:
        walk[1:, 24] = False
    return walk


def _answers(grid: TileGrid, **options: Any) -> list[tuple[Any, ...]]:
    """Every algorithm's answer to every query on ``grid`` (plus a general-path A*)."""
    out = []
    for algorithm in ALGORITHMS:
        for start, goal in QUERIES:
            path = gamenav.find_path(grid, start, goal, algorithm=algorithm, **options)
            out.append((algorithm, start, path.status, path.cost, path.cells.tolist()))
    out.append(_summary(gamenav.find_path(grid, (0, 47), (47, 47), weight=2.0)))
    return out


def _summary(path: Path) -> tuple[Any, ...]:
    return path.status, path.cost, path.cells.tolist(), path.points.tolist()


@pytest.mark.parametrize("cls", [EqGrid, ValueGrid])
def test_grid_subclasses_with_their_own_equality_get_the_answers_of_plain_grids(cls: type[TileGrid]) -> None:
    """With ``__eq__`` only, "jps", "hpa", "subgoal" and every general search raised
    ``TypeError: unhashable type``; with value equality, two grids of one shape shared one index:
    "jps" and "subgoal" answered the walled grid from the open one's (cost 47, through the
    wall, instead of 114.6)."""
    for first in (False, True):  # either grid searched first (its index built first)
        grids = [cls(_cells(first)), cls(_cells(not first))]
        for grid in grids:
            walled = not grid.passable[47, 24]
            assert _answers(grid) == _answers(TileGrid(_cells(walled)))


def test_a_path_queue_and_a_path_cache_take_grids_with_their_own_equality() -> None:
    """Both raised ``TypeError: unhashable type`` from the workspace pool's set of grids."""
    plain = gamenav.find_path(TileGrid(_cells(True)), (0, 47), (47, 47))
    queue = gamenav.PathQueue()
    cache = gamenav.PathCache()
    for cls in (EqGrid, ValueGrid):
        open_grid, grid = cls(_cells(False)), cls(_cells(True))
        assert _summary(cache.find_path(open_grid, (0, 47), (47, 47))) != _summary(plain)
        assert _summary(cache.find_path(grid, (0, 47), (47, 47))) == _summary(plain)
        request = queue.request(grid, (0, 47), (47, 47))
        while not request.done:
            queue.update()
        assert _summary(request.path) == _summary(plain)


def _mesh_answers(mesh: NavMesh) -> list[tuple[Any, ...]]:
    return [_summary(gamenav.find_path(mesh, start, goal))
            for start, goal in (((1e6 + 1, 1), (1e6 + 9, 9)), ((1e6 + 1, 9), (1e6 + 9, 1)))]


@pytest.mark.parametrize("cls", [EqMesh, ValueMesh])
def test_navmesh_subclasses_with_their_own_equality_get_the_answers_of_plain_meshes(cls: type[NavMesh]) -> None:
    """With ``__eq__`` only, a query on a mesh (here with area costs, far from zero: both cached
    per mesh) raised ``TypeError: unhashable type``."""
    x = 1e6
    verts = [(x, 0), (x + 10, 0), (x + 10, 10), (x, 10)]
    meshes = [(cls(verts, [(0, 1, 2), (0, 2, 3)], area_costs=costs), costs) for costs in ([1, 1], [1, 5], [5, 1])]
    shifted = cls([(vx, vy + 1) for vx, vy in verts], [(0, 1, 2), (0, 2, 3)])
    for mesh, costs in meshes:
        assert _mesh_answers(mesh) == _mesh_answers(NavMesh(verts, [(0, 1, 2), (0, 2, 3)], area_costs=costs))
    plain = NavMesh([(vx, vy + 1) for vx, vy in verts], [(0, 1, 2), (0, 2, 3)])
    assert _mesh_answers(shifted) == _mesh_answers(plain)
    for exact in (False, True):
        found = gamenav.find_path(shifted, (x + 1, 10.5), (x + 9, 1.5), exact=exact)
        assert _summary(found) == _summary(gamenav.find_path(plain, (x + 1, 10.5), (x + 9, 1.5), exact=exact))


def _grid_caches() -> list[Callable[[TileGrid], object]]:
    return [lambda grid: grid._snapshot().fast, jump_plus._indexes.existing, subgoal._indexes.existing,
            hpa._indexes.get, grid_search._pool._grids.get]


def test_a_dead_worlds_cache_entries_are_dropped() -> None:
    caches: list[IdentityMap[Any, Any]] = [
        jump_plus._indexes._indexes, subgoal._indexes._indexes, hpa._indexes,
        grid_search._pool._grids, mesh_search._WEIGHTED, mesh_search._LOCAL]
    gc.collect()
    before = [len(cache) for cache in caches]
    grid = ValueGrid(_cells(True))
    _answers(grid)
    assert all(get(grid) is not None for get in _grid_caches())
    mesh = ValueMesh([(1e6, 0), (1e6 + 10, 0), (1e6 + 10, 10)], [(0, 1, 2)], area_costs=[2])
    gamenav.find_path(mesh, (1e6 + 5, 1), (1e6 + 9, 2))
    assert mesh_search._WEIGHTED.get(mesh) is not None and mesh_search._LOCAL.get(mesh) is not None
    dead = weakref.ref(grid), weakref.ref(mesh)
    del grid, mesh
    gc.collect()
    assert dead[0]() is None and dead[1]() is None
    assert all(len(cache) <= n for cache, n in zip(caches, before, strict=True))  # (others may die too)


def test_an_object_with_a_dead_objects_id_never_finds_its_entry() -> None:
    class Key:
        pass

    table: IdentityMap[Key, int] = IdentityMap()
    old = Key()
    table[old] = 1
    table[old] = 2  # (one entry per object)
    assert table.get(old) == 2 and len(table) == 1
    used = id(old)
    del old
    assert len(table) == 0
    for _ in range(1000):  # CPython soon hands the dead object's memory to a new one
        new = Key()
        if id(new) == used:
            break
    assert table.get(new) is None
    table[new] = 3
    assert table.get(new) == 3 and table.get(Key()) is None


def test_a_dropped_map_leaves_no_references_on_its_objects() -> None:
    """The entries' weak-reference callbacks held the map (a cycle): with the collector off, as
    games often run, every dropped PathQueue left a reference on its grid for ever (50 dropped
    queues: 52 weak references on the grid instead of 2)."""
    grid = TileGrid(_cells(True))
    gc.collect()
    gc.disable()
    try:
        counts = []
        for _ in range(5):
            table: IdentityMap[TileGrid, int] = IdentityMap()
            table[grid] = 1
            queue = gamenav.PathQueue(budget_ms=0.5)
            request = queue.request(grid, (0, 47), (47, 47))
            while not request.done:
                queue.update()
            assert len(queue._rate) + len(queue._per_search) + len(queue._whole_s)
            del table, queue, request
            counts.append(weakref.getweakrefcount(grid))  # (the first search adds the module caches')
        assert counts[1:] == counts[:1] * 4
    finally:
        gc.enable()


def test_a_new_grid_at_a_dead_grids_address_gets_its_own_search_data() -> None:
    walled = _cells(True)
    expected = _answers(TileGrid(walled))
    for _ in range(20):  # a few grids, some at the address of one dropped before
        grid = TileGrid(_cells(False))
        _answers(grid)
        del grid
        assert _answers(TileGrid(walled)) == expected


@pytest.mark.parametrize("duplicate", [copy.copy, copy.deepcopy, TileGrid.copy,
                                       lambda g: pickle.loads(pickle.dumps(g))])
def test_copied_grids_never_share_search_data(duplicate: Callable[[TileGrid], TileGrid]) -> None:
    for cls in (TileGrid, ValueGrid):
        grid = cls(_cells(False))
        original = _answers(grid)
        twin = duplicate(grid)
        assert type(twin) is cls
        assert all(get(twin) is None or get(twin) is not get(grid) for get in _grid_caches())
        twin.set_walkable((24, 1, 25, 48), False)  # the wall of _cells(True)
        assert _answers(twin) == _answers(TileGrid(_cells(True)))
        assert _answers(grid) == original
        grid.set_walkable((24, 1, 25, 48), False)
        assert _answers(grid) == _answers(twin)


@pytest.mark.parametrize("duplicate", [copy.copy, copy.deepcopy, lambda m: pickle.loads(pickle.dumps(m))])
def test_copied_meshes_never_share_query_data(duplicate: Callable[[NavMesh], NavMesh]) -> None:
    verts = [(1e6, 0), (1e6 + 10, 0), (1e6 + 10, 10), (1e6, 10)]
    mesh = ValueMesh(verts, [(0, 1, 2), (0, 2, 3)], area_costs=[1, 5])
    answers = _mesh_answers(mesh)
    twin = duplicate(mesh)
    assert _mesh_answers(twin) == answers
    assert mesh_search._LOCAL.get(twin) is not mesh_search._LOCAL.get(mesh)
    assert mesh_search._WEIGHTED.get(twin) is not mesh_search._WEIGHTED.get(mesh)


def test_world_subclasses_with_slots_are_searched_alike() -> None:
    """A subclass with ``__slots__`` (no ``__weakref__`` of its own) still inherits the weak
    references the caches need from TileGrid / NavMesh."""

    class SlotGrid(TileGrid):
        __slots__ = ("extra",)

    class SlotMesh(NavMesh):
        __slots__ = ()

    assert _answers(SlotGrid(_cells(True))) == _answers(TileGrid(_cells(True)))
    verts = [(1e6, 0), (1e6 + 10, 0), (1e6 + 10, 10), (1e6, 10)]
    tris = [(0, 1, 2), (0, 2, 3)]
    assert _mesh_answers(SlotMesh(verts, tris, area_costs=[1, 5])) == _mesh_answers(
        NavMesh(verts, tris, area_costs=[1, 5]))
