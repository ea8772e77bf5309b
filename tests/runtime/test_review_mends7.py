"""Review mends of this session's commits (runtime)."""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt
import pytest
import shapely

import gamenav
from gamenav import Crowd, TileGrid


def test_a_navmesh_edit_merges_only_the_obstacles_near_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each edit of a navmesh world merged every obstacle of the mesh to mark the cells they cover
    for steering (the demo's buildings: 400 of them cost 112 ms an edit on the test machine). Only
    those whose box meets the edited cells are merged now, with the same cells marked: two touching
    obstacles cover the centre on their common side, and a removed one's cells are free again."""
    grid = TileGrid(np.ones((40, 60), bool))
    mesh = gamenav.NavMesh.from_polygons([(0, 0), (60, 0), (60, 40), (0, 40)])
    far = [shapely.box(x, 30.2, x + 1.6, 31.8) for x in range(2, 58, 3)]
    for box in far:
        mesh.add_obstacle(box)
    crowd = Crowd(grid, [(5.5, 5.5)], radius=0.3, max_speed=2.0, world=mesh)
    cells = np.argwhere(np.ones(grid.shape, bool))[:, ::-1]
    centres = grid.cell_to_world(cells)

    def covered(*boxes: shapely.Polygon) -> npt.NDArray[np.bool_]:
        mask = np.zeros(grid.shape, bool)
        inside = shapely.contains_xy(shapely.unary_union(boxes), centres[:, 0], centres[:, 1])
        mask[cells[inside, 1], cells[inside, 0]] = True
        return mask

    assert np.array_equal(~crowd._steering_passable(), covered(*far))
    merged: list[int] = []
    union_all = shapely.union_all

    def counted(geometries: Any, *args: Any, **kwargs: Any) -> Any:
        merged.append(len(geometries))
        return union_all(geometries, *args, **kwargs)

    monkeypatch.setattr(shapely, "union_all", counted)
    monkeypatch.setattr(shapely, "unary_union", counted)
    left, right = shapely.box(20.1, 10.1, 22.5, 12.9), shapely.box(22.5, 10.1, 24.9, 12.9)
    gone = mesh.add_obstacle(left)
    mesh.add_obstacle(right)
    crowd.positions  # noqa: B018  (the crowd acts on the edits)
    assert 0 < max(merged) <= 2
    monkeypatch.undo()
    assert np.array_equal(~crowd._steering_passable(), covered(*far, left, right))
    assert not crowd._steering_passable()[11, 22]  # (on the side both share: inside their union only)
    mesh.remove_obstacle(gone)
    crowd.positions  # noqa: B018
    assert np.array_equal(~crowd._steering_passable(), covered(*far, right))
