"""Mends of this session's runtime fixes (a review of their commits)."""

from __future__ import annotations

import numpy as np
import pytest

import gamenav
from gamenav import Crowd, TileGrid


def test_an_obstacle_heard_after_a_compaction_moves_the_agents_inside_it_without_an_error() -> None:
    """(A mend of c629197.) A crowd hears a mesh edit after the edits its listeners made (here a
    game compacting the mesh after each obstacle): the edit's triangle ids named other triangles of
    the compacted mesh, and ``add_obstacle`` raised the crowd's IndexError, the agent left inside
    the obstacle. The agents in it move out all the same."""
    mesh = gamenav.NavMesh.from_polygons([(0, 0), (20, 0), (20, 10), (0, 10)])
    mesh.remove_obstacle(mesh.add_obstacle([(2, 2), (3, 2), (3, 3), (2, 3)]))  # dead triangles

    def tidy(change: gamenav.NavMeshChange) -> None:
        if change.remap is None and change.blocked:
            mesh.compact()

    mesh.subscribe(tidy)
    grid = TileGrid(np.ones((10, 20), bool))
    crowd = Crowd(grid, [(14.0, 5.2), (3.0, 3.0)], radius=0.25, max_speed=3.0, world=mesh)
    mesh.add_obstacle([(13, 3), (17, 3), (17, 7), (13, 7)])
    # (off the obstacle's nearest exact edge, x = 13, as far as its radius)
    assert np.allclose(crowd.positions, [[12.75, 5.2], [3.0, 3.0]], rtol=0, atol=1e-6)
    assert crowd.counters["pushed_out"] == 1
    assert (mesh.locate(crowd.positions) >= 0).all()


@pytest.mark.parametrize("options, message", [({"exact": "yes"}, "exact must be a bool, got 'yes'"),
                                              ({"clamp": 2}, "clamp must be a bool, got 2")])
def test_a_bad_navmesh_option_value_of_a_crowd_is_refused_at_once(options: dict[str, object], message: str) -> None:
    """(A mend of aceca7f, which checked the values in ``find_paths`` only.) A crowd on a navmesh
    checked its path options' names at once, their values only in its first path request (an
    order, or a request sent from an update), where a grid world's are checked at once."""
    mesh = gamenav.NavMesh.from_polygons([(0, 0), (20, 0), (20, 10), (0, 10)])
    grid = TileGrid(np.ones((10, 20), bool))
    with pytest.raises(gamenav.InvalidInputError, match=message):
        Crowd(grid, [(1.5, 1.5)], radius=0.25, max_speed=3.0, world=mesh, path_options=options)
    with pytest.raises(gamenav.InvalidInputError, match=message):
        gamenav.Follower(grid, (1.5, 1.5), speed=3.0, world=mesh, **options)
    crowd = Crowd(grid, [(1.5, 1.5)], radius=0.25, max_speed=3.0, world=mesh, path_options={"exact": np.bool_(True)})
    with pytest.raises(gamenav.InvalidInputError, match=message):
        crowd.path_options = options
    assert crowd.path_options == {"exact": True}
