"""Adversarial review 6: crowds and followers on changing worlds."""

from __future__ import annotations

import numpy as np
import shapely

import gamenav
from gamenav import Crowd, TileGrid


def _deepest_in_obstacles(seed: int, frames: int) -> tuple[float, Crowd]:
    """A crowd on a navmesh world whose obstacles (on the mesh only) drop round its agents every few
    frames, some taken away again: the deepest any agent centre stood inside one."""
    rng = np.random.default_rng(seed)
    mesh = gamenav.NavMesh.from_polygons([(0, 0), (30, 0), (30, 20), (0, 20)])
    grid = TileGrid(np.ones((20, 30), bool))
    n = 12
    crowd = Crowd(grid, rng.uniform((1, 1), (29, 19), (n, 2)), radius=0.3, max_speed=3.0, world=mesh)
    obstacles: dict[int, shapely.Polygon] = {}
    deepest = 0.0
    for f in range(frames):
        if f % 50 == 0:
            crowd.move(np.arange(n), tuple(rng.uniform((2, 2), (28, 18))), formation=bool(rng.integers(2)))
        if f % 7 == 0:
            x, y = crowd.positions[rng.integers(n)]
            w = rng.uniform(0.5, 3.0)
            box = shapely.box(x - w * rng.uniform(0.2, 0.8), y - w * rng.uniform(0.2, 0.8), x + w, y + w)
            obstacles[mesh.add_obstacle(box)] = box
        if f % 23 == 0 and obstacles:
            gone = list(obstacles)[rng.integers(len(obstacles))]
            mesh.remove_obstacle(gone)
            del obstacles[gone]
        crowd.update(1 / 30)
        union = shapely.unary_union(list(obstacles.values()))
        points = shapely.points(crowd.positions)
        inside = shapely.contains(union, points)
        if inside.any():
            deepest = max(deepest, float(shapely.distance(union.boundary, points[inside]).max()))
    return deepest, crowd


def test_crowd_steering_keeps_off_navmesh_only_obstacles() -> None:
    """Steering's walls were the grid's blocked cells only: an obstacle added with
    ``mesh.add_obstacle`` (not on the grid) was no wall to it, and agents re-pathed beside it cut
    into it (1.2 units deep, agents that stood off the mesh walked across it). The cells an
    obstacle covers (centre inside) are walls of the steering now: no centre gets further in than
    half a cell less the radius."""
    deepest, _ = _deepest_in_obstacles(1, 70)
    assert deepest <= 0.5 - 0.3 + 1e-6
