"""Adversarial checks of navmeshes under change: listeners, copies and searches across edit sequences."""

from __future__ import annotations

import math

import numpy as np
import pytest
import shapely

import gamenav
from gamenav import NavMesh, TileGrid
from gamenav.navmesh.dynamic import NavMeshChange

ROOM = shapely.box(0, 0, 20, 12)


def test_a_failing_mesh_listener_leaves_no_grid_edit_of_a_listener_unapplied() -> None:
    # a grid listener (subscribed before the mesh) blocks column 10 while column 3's edit is
    # delivered: the follower applies both boxes in one go, and a mesh listener raises on the first
    grid = TileGrid(np.ones((10, 14), dtype=bool))
    done: list[int] = []

    def wall_too(change: object) -> None:
        if not done:
            done.append(1)
            grid.set_walkable((10, 0, 11, 10), False)

    grid.subscribe(wall_too)
    mesh = NavMesh.from_grid(grid, follow=True)
    heard: list[NavMeshChange] = []

    def broken(change: NavMeshChange) -> None:
        heard.append(change)
        raise RuntimeError("listener bug")

    mesh.subscribe(broken)
    with pytest.raises(RuntimeError, match="listener bug"):
        grid.set_walkable((3, 0, 4, 10), False)
    assert (mesh.locate([(3.5, 5.0), (10.5, 5.0)]) == -1).all()  # both walls are in the mesh
    assert len(heard) == 2 and heard[-1].version == mesh.version  # and both edits were announced
    assert (mesh.locate([(1.5, 5.0), (6.5, 5.0), (12.5, 5.0)]) >= 0).all()
    assert int(mesh.islands[mesh.alive].max()) + 1 == 3


@pytest.mark.parametrize("first", [0, 1])
def test_removing_one_of_two_thin_obstacles_that_meet_leaves_what_a_build_of_the_other_has(first: int) -> None:
    # 1e-12 wide, far thinner than the tolerance (2e-8): alone, a build carves nothing of either;
    # meeting in an L they leave a wall, which must go with either of them
    thin = [shapely.box(5, 5, 5 + 1e-12, 6), shapely.box(5, 6, 6, 6 + 1e-12)]
    mesh = NavMesh.from_polygons(ROOM)
    ids = [mesh.add_obstacle(shape) for shape in thin]
    mesh.remove_obstacle(ids[first])
    fresh = NavMesh.from_polygons(ROOM, obstacles=[thin[1 - first]])
    for s, g in (((2.7, 8.7), (10.5, 3.7)), ((4, 5.5), (6, 5.5)), ((5.5, 4), (5.5, 8))):
        path, built = gamenav.find_path(mesh, s, g, exact=True), gamenav.find_path(fresh, s, g, exact=True)
        # corners may differ by the walls' width: within a few mesh tolerances (2e-8)
        assert path.found and path.cost == pytest.approx(built.cost, abs=1e-7)
    assert len(np.unique(mesh.vertices[np.unique(mesh.triangles[mesh.alive])], axis=0)) == len(fresh.vertices)


def test_a_thin_obstacle_joined_by_a_later_one_is_carved_as_in_a_build() -> None:
    # a wall 1e-9 wide alone carves nothing (thinner than the tolerance, 2e-8); a wall 1e-8 wide
    # added later meets its top: together they leave a T of walls along both, as a build does
    walls = [shapely.box(6, 4, 6 + 1e-9, 6), shapely.box(7, 4, 8, 5), shapely.box(5, 6, 7, 6 + 1e-8)]
    mesh = NavMesh.from_polygons(ROOM)
    for wall in walls:
        mesh.add_obstacle(wall)
    fresh = NavMesh.from_polygons(ROOM, obstacles=walls)
    for s, g in (((17.26, 6.5), (5.99, 5.07)), ((0.57, 1.49), (13.4, 7.77)), ((9, 4.5), (5.5, 5))):
        path, built = gamenav.find_path(mesh, s, g, exact=True), gamenav.find_path(fresh, s, g, exact=True)
        # corners may differ by the walls' width: within a few mesh tolerances (2e-8)
        assert path.found and path.cost == pytest.approx(built.cost, abs=1e-7)


def test_removing_an_obstacle_cuts_no_uncarved_thin_one_into_the_triangles_around() -> None:
    # the wall 1e-12 wide at x = 7 carves nothing (thinner than the tolerance, 2e-8); removing the
    # speck at (7, 2) subtracted it from the triangle the speck's box met, up to the diagonal that
    # triangle shares with an untouched one: a T-junction at (7, 7.8), the room cut in 2 islands
    mesh = NavMesh.from_polygons(ROOM)
    speck = mesh.add_obstacle(shapely.box(7, 2, 7 + 1e-12, 2 + 1e-10))
    mesh.add_obstacle(shapely.box(7, 7, 7 + 1e-12, 8))
    mesh.remove_obstacle(speck)
    assert int(mesh.islands[mesh.alive].max()) == 0
    path = gamenav.find_path(mesh, (10.87, 11.22), (16.3, 0.03), exact=True)
    assert path.found and path.cost == pytest.approx(math.hypot(16.3 - 10.87, 11.22 - 0.03), rel=1e-12)


@pytest.mark.parametrize("offset", [1e12, -3.3e9])
def test_a_build_far_from_the_origin_shrinks_every_side_by_the_radius(offset: float) -> None:
    # GEOS snapped the shrinking of a room at 1e12 (with one small turned box in it) by a grid
    # coarser than the mesh tolerance: one side kept its whole width, 226.3 of area where 221.2
    # (19.4 x 11.4) is walkable at all
    box = np.array([[1.3462, 5.9988], [1.3243, 6.2152], [0.6527, 6.1477], [0.6746, 5.9313]])

    def area(mesh: NavMesh) -> float:
        return float(shapely.area(shapely.polygons(mesh.vertices[mesh.triangles])).sum())

    near = NavMesh.from_polygons(ROOM, obstacles=[box], agent_radius=0.3)
    far = NavMesh.from_polygons(shapely.box(offset, offset, offset + 20, offset + 12),
                                obstacles=[box + offset], agent_radius=0.3)
    # the far mesh's points are rounded to its float steps (2**-13 at 1e12): its sides (64 long) move by one
    assert area(far) == pytest.approx(area(near), abs=64 * 2.0**-13)
    assert far.locate([(offset + 0.116, offset + 10.854), (offset + 19.9, offset + 6)]).tolist() == [-1, -1]
