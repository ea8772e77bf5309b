"""Adversarial checks of navmeshes under change: raising listeners, closing, grid transforms."""

from __future__ import annotations

import numpy as np

from gamenav import NavMesh, TileGrid


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
