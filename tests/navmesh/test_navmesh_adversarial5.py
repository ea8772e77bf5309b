"""Adversarial checks of navmeshes under change: raising listeners, closing, grid transforms."""

from __future__ import annotations

import copy
import gc
import math
import weakref
from collections.abc import Callable

import numpy as np
import pytest
import shapely
import shapely.affinity

import gamenav
from gamenav import InvalidInputError, NavMesh, TileGrid
from gamenav.navmesh.dynamic import NavMeshChange

ROOM = shapely.box(0, 0, 20, 12)


def _walls() -> np.ndarray:
    walk = np.ones((7, 9), dtype=bool)
    walk[3, 1:8] = False
    return walk


def test_a_mesh_from_a_grid_is_in_the_grids_own_transform() -> None:
    """On a TileGrid subclass whose ``cell_size`` / ``origin`` / ``y_up`` properties report another
    transform (2, (100, 0), y up) than its own (1, (0, 0), y down: ``cell_to_world`` and every
    search use it), ``from_grid`` built the mesh in the reported one: a mesh 2x as large, 100
    units away and upside down from the grid's points. It uses the grid's own transform, and so
    do the edits of a mesh following the grid."""
    from tests.grid.test_fast_path import ReportedTransformGrid

    reported, plain = ReportedTransformGrid(_walls()), TileGrid(_walls())
    for radius in (0.0, 0.25):
        got = NavMesh.from_grid(reported, agent_radius=radius)
        want = NavMesh.from_grid(plain, agent_radius=radius)
        np.testing.assert_array_equal(got.vertices, want.vertices)
        np.testing.assert_array_equal(got.triangles, want.triangles)
    got, want = NavMesh.from_grid(reported, follow=True), NavMesh.from_grid(plain, follow=True)
    for grid in (reported, plain):
        grid.set_walkable((4, 3), True)
        grid.set_walkable((2, 5), False)
    np.testing.assert_array_equal(got.vertices, want.vertices)
    np.testing.assert_array_equal(got.triangles[got.alive], want.triangles[want.alive])
    assert got.locate([(4.5, 3.5), (2.5, 5.5)]).tolist()[1] == -1
    assert got.locate((4.5, 3.5))[0] >= 0


def _broken(heard: list[NavMeshChange]) -> Callable[[NavMeshChange], None]:
    def listener(change: NavMeshChange) -> None:
        heard.append(change)
        raise RuntimeError("listener bug")

    return listener


def test_an_obstacle_added_under_a_raising_listener_keeps_its_id() -> None:
    """A listener raising on ``add_obstacle``'s change let the error out with the obstacle carved
    and its id lost: nobody could ever ``remove_obstacle`` it. The edit stays (every listener
    heard of it, as of a grid edit) and the error carries the id, which removes it."""
    mesh = NavMesh.from_polygons(ROOM)
    heard: list[NavMeshChange] = []
    calm: list[NavMeshChange] = []
    mesh.subscribe(_broken(heard))
    mesh.subscribe(calm.append)
    with pytest.raises(RuntimeError, match="listener bug") as caught:
        mesh.add_obstacle(shapely.box(5, 5, 7, 7))
    oid = caught.value.obstacle_id  # type: ignore[attr-defined]
    assert list(mesh.obstacles) == [oid] and mesh.locate((6, 6))[0] == -1
    assert len(heard) == len(calm) == 1 and calm[0].version == mesh.version
    with pytest.raises(RuntimeError, match="listener bug"):
        mesh.remove_obstacle(oid)
    assert mesh.obstacles == {} and mesh.locate((6, 6))[0] >= 0 and len(calm) == 2


def test_a_compaction_under_a_raising_listener_keeps_its_map() -> None:
    """``compact``'s id map, lost with a listener's error, is on the error."""
    mesh = NavMesh.from_polygons(ROOM)
    mesh.remove_obstacle(mesh.add_obstacle(shapely.box(5, 5, 7, 7)))
    before = mesh.vertices[mesh.triangles]
    live = np.flatnonzero(mesh.alive)
    mesh.subscribe(_broken([]))
    with pytest.raises(RuntimeError, match="listener bug") as caught:
        mesh.compact()
    remap = caught.value.remap  # type: ignore[attr-defined]
    np.testing.assert_array_equal(mesh.vertices[mesh.triangles[remap[live]]], before[live])


def test_an_obstacle_added_by_a_listener_returns_its_id_there() -> None:
    """An edit made from a listener is delivered after the current one, so its own call
    returns the id at once, and the outer call's error carries only its own id."""
    mesh = NavMesh.from_polygons(ROOM)
    inner: list[int] = []

    def door(change: NavMeshChange) -> None:
        if not inner:
            inner.append(mesh.add_obstacle(shapely.box(1, 1, 2, 2)))
        raise RuntimeError("listener bug")

    mesh.subscribe(door)
    with pytest.raises(RuntimeError) as caught:
        mesh.add_obstacle(shapely.box(5, 5, 7, 7))
    outer = caught.value.obstacle_id  # type: ignore[attr-defined]
    assert sorted(mesh.obstacles) == sorted([outer, *inner]) and outer not in inner


def test_a_closed_mesh_no_longer_follows_its_grid() -> None:
    """A mesh following a grid could not be closed: a game rebuilding its navmesh kept every old
    one re-triangulating on each grid edit. ``close()`` (or a ``with`` block) ends the following
    and the mesh's edits; queries answer on the mesh as it is, and a copy is open."""
    grid = TileGrid(np.ones((6, 8), dtype=bool))
    with NavMesh.from_grid(grid, follow=True) as mesh:
        heard: list[NavMeshChange] = []
        mesh.subscribe(heard.append)
        grid.set_walkable((2, 2), False)
        assert len(heard) == 1 and mesh.locate((2.5, 2.5))[0] == -1 and not mesh.closed
    assert mesh.closed
    version = mesh.version
    grid.set_walkable((5, 3), False)
    grid.set_walkable((2, 2), True)
    assert len(heard) == 1 and mesh.version == version
    assert mesh.locate([(2.5, 2.5), (5.5, 3.5)]).tolist()[0] == -1 and mesh.locate((5.5, 3.5))[0] >= 0
    with pytest.raises(InvalidInputError, match="cannot add obstacles to a closed NavMesh"):
        mesh.add_obstacle(shapely.box(0, 0, 1, 1))
    with pytest.raises(InvalidInputError, match="cannot compact a closed NavMesh"):
        mesh.compact()
    mesh.close()  # idempotent
    twin = copy.copy(mesh)
    rock = twin.add_obstacle(shapely.box(0, 0, 1, 1))
    assert not twin.closed and list(twin.obstacles) == [rock]
    assert gamenav.find_path(mesh, (0.5, 0.5), (7.5, 5.5)).found


def test_a_mesh_closed_by_a_listener_applies_no_waiting_grid_edit() -> None:
    """Closed from a mesh listener while the follower applies the grid edits a grid listener made
    meanwhile: the edits still waiting are dropped, not applied to the closed mesh."""
    grid = TileGrid(np.ones((6, 14), dtype=bool))
    done: list[int] = []

    def wall_too(change: object) -> None:
        if not done:
            done.append(1)
            grid.set_walkable((10, 0, 11, 6), False)

    grid.subscribe(wall_too)
    mesh = NavMesh.from_grid(grid, follow=True)
    mesh.subscribe(lambda change: mesh.close())
    grid.set_walkable((3, 0, 4, 6), False)
    assert mesh.closed and mesh.locate((10.5, 3.0))[0] >= 0  # the second box was never applied
    assert mesh.locate((3.5, 3.0))[0] == -1


def test_a_mesh_dropped_by_the_game_is_not_kept_alive_by_its_grid() -> None:
    grid = TileGrid(np.ones((6, 8), dtype=bool))
    mesh = NavMesh.from_grid(grid, follow=True)
    mesh.subscribe(lambda change: None)
    dead = weakref.ref(mesh)
    del mesh
    gc.collect()
    assert dead() is None
    assert grid.set_walkable((2, 2), False) is not None and len(grid._listeners) == 0


def test_navmesh_results_skip_the_checked_path_constructor(monkeypatch: pytest.MonkeyPatch) -> None:
    """(Speed: the checked ``Path(...)`` took about 6 us of a 300 us query.) Found paths of the
    library's own kernels are made with ``make_path``, as grid results are: fresh read-only
    arrays, the same values."""
    mesh = NavMesh.from_polygons(ROOM, obstacles=[shapely.box(4, -1, 6, 8)])
    costly = NavMesh.from_polygons(ROOM, areas=[(shapely.box(8, 0, 12, 12), 3.0)])
    checked: list[object] = []
    post_init = gamenav.Path.__post_init__

    def counted(self: gamenav.Path) -> None:
        checked.append(self)
        post_init(self)

    monkeypatch.setattr(gamenav.Path, "__post_init__", counted)
    paths = [gamenav.find_path(mesh, (1, 1), (9, 1)), gamenav.find_path(mesh, (1, 1), (9, 1), exact=True),
             gamenav.find_path(mesh, (1, 1), (2, 2), exact=True), gamenav.find_path(costly, (1, 6), (19, 6))]
    assert checked == []
    for path in paths:
        assert path.found and path.cells.shape == (0, 2) and path.cells.dtype == np.int64
        for array in (path.cells, path.points, path.corridor):
            assert not array.flags.writeable
        assert path.points.dtype == np.float64 and path.corridor.dtype == np.int64 and len(path.corridor)
    assert [p.points.tolist() for p in paths[1:3]] == [[[1, 1], [4, 8], [6, 8], [9, 1]], [[1, 1], [2, 2]]]
    assert paths[1].cost == pytest.approx(2 * math.hypot(3, 7) + 2, rel=1e-15)
    assert paths[3].cost == pytest.approx(14 + 4 * 3, rel=1e-12)


def test_an_obstacle_id_of_another_mesh_is_refused() -> None:
    """Obstacle ids counted from 1 on every mesh: the id of a door carved in one mesh (or in the
    mesh a copy was made from: copies keep no ids) removed another obstacle of another mesh
    without a word. Ids are unique in the process: such an id is refused, nothing removed."""
    mesh = NavMesh.from_polygons(ROOM)
    door = mesh.add_obstacle(shapely.box(5, 0, 6, 12))
    twin = copy.deepcopy(mesh)
    other = NavMesh.from_polygons(ROOM)
    rocks = [world.add_obstacle(shapely.box(14, 5, 15, 6)) for world in (twin, other)]
    for world, rock in zip((twin, other), rocks, strict=True):
        with pytest.raises(InvalidInputError, match="oid must be the id of an obstacle of this mesh"):
            world.remove_obstacle(door)
        assert list(world.obstacles) == [rock] and world.locate((14.5, 5.5))[0] == -1
    assert door not in rocks and rocks[0] != rocks[1]


def test_a_mesh_of_tiny_cells_keeps_its_edges_through_edits() -> None:
    """Cells of 1e-95: the tolerance (1e-9 of the extent, 8e-104) was below ``MIN_EDGE`` (1e-100),
    the shortest edge a triangle may have; an edit kept points 1.3e-102 apart (its box's margin)
    whose triangle was then dropped: a crack, 2 islands, NO_PATH round the wall. The tolerance is
    at least ``MIN_EDGE`` now, and cells under 1e-98 (where that is no longer small) are refused."""
    walk = np.ones((6, 8), dtype=bool)
    walk[2, 1:7] = False
    grid = TileGrid(walk, cell_size=1e-95)
    mesh = NavMesh.from_grid(grid, follow=True)
    grid.set_walkable((3, 2), True)
    assert int(mesh.islands[mesh.alive].max()) == 0 and mesh.tolerance == 1e-100
    ends = grid.cell_to_world(np.array([(0, 0), (7, 5)]))
    assert gamenav.find_path(mesh, ends[0], ends[1]).found
    ys, xs = np.mgrid[0:6, 0:8]
    centres = grid.cell_to_world(np.stack([xs.ravel(), ys.ravel()], axis=1))
    np.testing.assert_array_equal(mesh.locate(centres) >= 0, grid.passable.ravel())
    with pytest.raises(InvalidInputError, match="grid cells at least 1e-98 wide"):
        NavMesh.from_grid(TileGrid(walk, cell_size=5e-99))


def test_rooms_at_the_scale_of_min_edge_are_built_and_edited_as_at_scale_one() -> None:
    """Rooms 2e-99 wide with turned boxes (tolerance 4e-107 without the floor): builds and edits
    dropped triangles with edges under ``MIN_EDGE`` (2 of 6 of these rooms had other islands)."""
    rng = np.random.default_rng(5)
    s = 1e-100
    for _ in range(6):
        boxes = []
        for _ in range(3):
            c = rng.uniform((2, 2), (18, 10))
            half = rng.uniform(0.2, 1.5, 2)
            boxes.append(shapely.affinity.rotate(shapely.box(*(c - half), *(c + half)), rng.uniform(0, 90)))
        want = int(NavMesh.from_polygons(ROOM, obstacles=boxes).islands.max())
        tiny = [shapely.affinity.scale(b, s, s, origin=(0, 0)) for b in boxes]
        room = shapely.affinity.scale(ROOM, s, s, origin=(0, 0))
        edited = NavMesh.from_polygons(room)
        for b in tiny:
            edited.add_obstacle(b)
        assert int(NavMesh.from_polygons(room, obstacles=tiny).islands.max()) == want
        assert int(edited.islands[edited.alive].max()) == want
