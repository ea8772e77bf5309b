"""Adversarial checks of navmeshes under change: listeners, copies and searches across edit sequences."""

from __future__ import annotations

import numpy as np
import pytest

from gamenav import NavMesh, TileGrid
from gamenav.navmesh.dynamic import NavMeshChange


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
