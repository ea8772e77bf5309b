"""The walls a crowd's steering takes from its navmesh world's obstacles: their exact edges.

A :class:`~gamenav.Crowd` on a NavMesh world steers round the grid's blocked cells and round
the obstacles added to the mesh only (:meth:`~gamenav.NavMesh.add_obstacle`), whose edges the
ORCA kernel (:func:`gamenav._kernels.orca.crowd_step`) takes as RVO2 takes its obstacles, and
pushes discs off. Obstacles that overlap or touch form one block, the edges of their union (an
edge inside another obstacle would push a disc out of one obstacle into the other). An edit
re-unions only the blocks it touches (an obstacle added merges those it meets; one removed
re-unions the rest of its block), then the table of all edges and its bucket index are rebuilt
with numpy.

Coordinates are world ``(x, y)``; buckets count world cells ``(i, j)`` (``j`` along world y, as
the kernels do; grid arrays are ``[y, x]``).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import numpy.typing as npt
import shapely
from shapely.geometry.base import BaseGeometry

from gamenav.grid.tilegrid import TileGrid

__all__ = ["ObstacleWalls"]

_F64 = npt.NDArray[np.float64]
_I64 = npt.NDArray[np.int64]
Edges = tuple[_F64, _I64, _I64, float, int]
"""The kernels' obstacle table ``(seg, start, items, size, nbx)``, see :func:`~gamenav._kernels.orca.crowd_step`."""

_BUCKET_CELLS = 4.0
"""Bucket side in cells (more on a grid of over ``2**16`` such buckets: the index stays small)."""
_MOST_BUCKETS = 2 ** 16


def edge_rows(shape: BaseGeometry) -> _F64:
    """The edges of a polygonal ``shape``, (k, 8) float64 world ``x0 y0 x1 y1 xp yp xn yn``: each
    edge with the shape on its left (rings counterclockwise, holes clockwise), the vertex before
    it and the one after on its ring. Rings of fewer than 3 distinct points add none."""
    rows = [np.zeros((0, 8))]
    for part in shapely.get_parts(shape):
        if not isinstance(part, shapely.Polygon) or part.is_empty:
            continue
        part = shapely.geometry.polygon.orient(part, 1.0)
        for ring in (part.exterior, *part.interiors):
            v = np.asarray(shapely.remove_repeated_points(ring).coords, np.float64)[:-1]
            if len(v) >= 3:
                rows.append(np.hstack([v, np.roll(v, -1, axis=0), np.roll(v, 1, axis=0), np.roll(v, -2, axis=0)]))
    return np.vstack(rows)


def bucket_index(seg: _F64, grid: TileGrid) -> Edges:
    """The kernels' table of the edges ``seg`` (m, 8) over ``grid``'s cells: CSR buckets of
    :data:`_BUCKET_CELLS` cells each listing the edges whose bounding box meets it (clipped to
    the border buckets); no edge: one empty bucket (each agent looks at one, not at the dozens
    its wall horizon spans: ORCA was 20% slower without any obstacle). Edges whose coordinates in
    cells are not finite (on a grid of cells under 1e-293 units) are dropped: the kernels
    compute in cells."""
    ox, oy = grid._origin
    cs = grid._cell_size
    cells = (seg - (ox, oy) * 4) / cs
    seg = seg[np.isfinite(cells).all(axis=1)]
    cells = cells[np.isfinite(cells).all(axis=1)]
    size = max(_BUCKET_CELLS, math.ceil(math.sqrt(grid.width * grid.height / _MOST_BUCKETS)))
    nbx, nby = (math.ceil(grid.width / size), math.ceil(grid.height / size)) if len(seg) else (1, 1)
    lo = np.floor(np.minimum(cells[:, 0:2], cells[:, 2:4]) / size)  # (as the kernels: cell / size)
    hi = np.floor(np.maximum(cells[:, 0:2], cells[:, 2:4]) / size)
    lo = np.clip(lo, 0, (nbx - 1, nby - 1)).astype(np.int64)
    hi = np.clip(hi, 0, (nbx - 1, nby - 1)).astype(np.int64)
    wide = hi[:, 0] - lo[:, 0] + 1
    count = wide * (hi[:, 1] - lo[:, 1] + 1)
    row = np.repeat(np.arange(len(seg)), count)
    k = np.arange(int(count.sum())) - np.repeat(np.cumsum(count) - count, count)
    bucket = (lo[row, 1] + k // wide[row]) * nbx + lo[row, 0] + k % wide[row]
    start = np.zeros(nbx * nby + 1, np.int64)
    np.cumsum(np.bincount(bucket, minlength=nbx * nby), out=start[1:])
    return np.ascontiguousarray(seg), start, row[np.argsort(bucket, kind="stable")].astype(np.int64), float(size), nbx


class ObstacleWalls:
    """The edges of a navmesh world's obstacles for a crowd on ``grid``, kept in step with the
    mesh's obstacles by :meth:`sync` (call it after every mesh edit heard)."""

    def __init__(self, grid: TileGrid) -> None:
        self._grid = grid
        self._block_of: dict[int, int] = {}  # obstacle id -> block id
        self._blocks: dict[int, tuple[list[int], BaseGeometry, _F64]] = {}  # id -> (members, union, edges)
        self._next = 0
        self._tree = shapely.STRtree([])  # of the blocks' unions
        self.table: Edges = bucket_index(np.zeros((0, 8)), grid)
        """The kernels' obstacle table (no obstacle: no edges)."""

    def inside(self, points: _F64) -> npt.NDArray[np.bool_]:
        """Which world ``points`` (m, 2) lie inside an obstacle (on its border: no)."""
        return self._hits(self._tree.query(shapely.points(points), predicate="within")[0], len(points))

    def out_of(self, points: _F64) -> _F64:
        """World ``points`` (m, 2), each inside an obstacle moved to the nearest point of its border
        (the kernels lead a centre out only from within a cell of the border)."""
        out: _F64 = points.copy()
        tree = self._tree  # (once: a sync may replace it meanwhile)
        at, block = tree.query(shapely.points(points), predicate="within")
        if len(at):
            lines = shapely.shortest_line(shapely.boundary(tree.geometries[block]), shapely.points(points[at]))
            out[at] = shapely.get_coordinates(lines)[::2]
        return out

    def room(self, point: _F64, radius: float) -> _F64:
        """The point nearest to world ``point`` (2,) where a disc of ``radius`` overlaps no obstacle
        nor the grid's border (within a box growing from 4 radii about it to the grid's size);
        ``point`` itself when there is none. For a centre squeezed into an obstacle by another or
        by the border: a gap narrower than the disc."""
        g = self._grid
        reach, most = 4.0 * radius, (g.width + g.height) * g._cell_size
        (ox, oy), cs = g._origin, g._cell_size
        inner = shapely.box(ox + radius, oy + radius, ox + g.width * cs - radius, oy + g.height * cs - radius)
        tree = self._tree  # (once: a sync may replace it meanwhile)
        while True:
            box = shapely.intersection(shapely.box(*(point - reach), *(point + reach)), inner)
            walls = tree.geometries[tree.query(shapely.buffer(box, radius))]
            space = shapely.difference(box, shapely.buffer(shapely.union_all(walls), radius))
            if not space.is_empty:
                nearest: _F64 = shapely.get_coordinates(shapely.shortest_line(space, shapely.Point(point)))[0]
                return nearest
            if reach >= most:
                return point
            reach *= 2.0

    def near(self, points: _F64, distance: float | _F64) -> npt.NDArray[np.bool_]:
        """Which world ``points`` (m, 2) lie within ``distance`` (one or (m,)) of an obstacle."""
        return self._hits(self._tree.query(shapely.points(points), predicate="dwithin", distance=distance)[0],
                          len(points))

    @staticmethod
    def _hits(rows: _I64, m: int) -> npt.NDArray[np.bool_]:
        hit = np.zeros(m, bool)
        hit[rows] = True
        return hit

    def sync(self, obstacles: dict[int, Any]) -> bool:
        """Take the obstacles ``{id: shapely polygon}`` as they are now (those gone and those new
        since the last call); returns whether anything changed."""
        gone = [oid for oid in self._block_of if oid not in obstacles]
        new = [oid for oid in obstacles if oid not in self._block_of]
        if not gone and not new:
            return False
        for bid in {self._block_of.pop(oid) for oid in gone}:
            left = [oid for oid in self._blocks.pop(bid)[0] if oid in obstacles]
            if left:
                self._add_block(left, shapely.union_all([obstacles[oid] for oid in left]))
        for oid in new:
            shape = obstacles[oid]
            ids = np.fromiter(self._blocks, np.int64, len(self._blocks))
            unions = np.fromiter((b[1] for b in self._blocks.values()), object, len(self._blocks))
            meets = ids[shapely.intersects(unions, shape)].tolist()
            members = [oid] + [m for bid in meets for m in self._blocks[bid][0]]
            union = shapely.union_all([shape] + [self._blocks.pop(bid)[1] for bid in meets])
            self._add_block(members, union)
        self._tree = shapely.STRtree([union for _, union, _ in self._blocks.values()])
        self.table = bucket_index(np.vstack([np.zeros((0, 8))] + [e for _, _, e in self._blocks.values()]),
                                  self._grid)
        return True

    def _add_block(self, members: list[int], union: BaseGeometry) -> None:
        bid = self._next
        self._next += 1
        self._blocks[bid] = (members, union, edge_rows(union))
        for oid in members:
            self._block_of[oid] = bid
