"""NavMesh: an immutable triangle mesh of the free space, with point location and raycasts.

All coordinates are world ``(x, y)``. Triangles are counter-clockwise; ``neighbours[t, j]`` is
the triangle across edge ``(triangles[t, j], triangles[t, (j + 1) % 3])`` or -1 on the border.
Triangles are connected only through shared edges: regions that touch at a single point
(pinch points) are not connected.
"""

from __future__ import annotations

import itertools
import math
from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt
import shapely

from gamenav._kernels import announce_compile
from gamenav._kernels.navmesh import dual_graph, locate_points, nearest_points, raycast_walk
from gamenav.errors import InvalidGeometryError, InvalidInputError
from gamenav.navmesh.build import (free_space, grid_triangulation, triangulate_convex,
                                   triangulate_free_space)

__all__ = ["NavMesh", "RaycastHit"]

_versions = itertools.count(1)


class RaycastHit(NamedTuple):
    """Result of :meth:`NavMesh.raycast`.

    Attributes:
        clear: True when the whole segment lies on the mesh (line of sight).
        point: ``(2,)`` float64 world ``(x, y)``: the end when clear, else the first border hit.
        fraction: how far along the segment ``point`` is, in ``[0, 1]``.
    """

    clear: bool
    point: npt.NDArray[np.float64]
    fraction: float


def _announce() -> None:
    announce_compile("navmesh", dual_graph, locate_points, nearest_points, raycast_walk)


def _readonly(a: np.ndarray) -> np.ndarray:
    a.flags.writeable = False
    return a


def points_array(points: Any, name: str = "points") -> npt.NDArray[np.float64]:
    """``(n, 2)`` float64 finite points from a ``(2,)`` or ``(n, 2)`` array-like."""
    try:
        p = np.array(points, dtype=np.float64, ndmin=2)
    except (TypeError, ValueError):
        raise InvalidInputError(f"{name} must be (x, y) numbers, got {points!r}") from None
    if p.ndim != 2 or p.shape[1] != 2:
        raise InvalidInputError(f"{name} must have shape (2,) or (n, 2), got {np.shape(points)}")
    if not np.isfinite(p).all():
        raise InvalidInputError(f"{name} must be finite, got {points!r}")
    return p


class NavMesh:
    """A triangulated walkable area (immutable numpy arrays).

    Build one with :meth:`from_polygons`, :meth:`from_grid` or :meth:`from_mesh`; search it
    with :func:`gamenav.find_path`. Every mesh gets a unique :attr:`version` so caches can key on it.

    Args:
        vertices: ``(V, 2)`` float64 world ``(x, y)``.
        triangles: ``(T, 3)`` vertex ids; any orientation (stored counter-clockwise),
            zero-area triangles are dropped.

    Example:
        >>> import gamenav
        >>> mesh = gamenav.NavMesh.from_polygons([[(0, 0), (10, 0), (10, 10), (0, 10)]],
        ...                                      obstacles=[[(4, -1), (6, -1), (6, 8), (4, 8)]])
        >>> path = gamenav.find_path(mesh, (1, 1), (9, 1))
        >>> [tuple(map(float, p)) for p in path.points]
        [(1.0, 1.0), (4.0, 8.0), (6.0, 8.0), (9.0, 1.0)]
    """

    def __init__(self, vertices: npt.ArrayLike, triangles: npt.ArrayLike) -> None:
        verts = np.array(vertices, dtype=np.float64)
        tris = np.array(triangles, dtype=np.int64)
        if verts.ndim != 2 or verts.shape[1] != 2:
            raise InvalidInputError(f"vertices must have shape (V, 2), got {verts.shape}")
        if not np.isfinite(verts).all():
            raise InvalidInputError("vertices must be finite (got NaN or inf)")
        if tris.ndim != 2 or tris.shape[1] != 3:
            raise InvalidInputError(f"triangles must have shape (T, 3), got {tris.shape}")
        if tris.size and (tris.min() < 0 or tris.max() >= len(verts)):
            raise InvalidInputError(
                f"triangle vertex ids must be in 0..{len(verts) - 1}, got {tris.min()}..{tris.max()}")
        p = verts[tris]
        area2 = ((p[:, 1, 0] - p[:, 0, 0]) * (p[:, 2, 1] - p[:, 0, 1])
                 - (p[:, 1, 1] - p[:, 0, 1]) * (p[:, 2, 0] - p[:, 0, 0]))
        tris = tris[area2 != 0]
        flip = area2[area2 != 0] < 0
        tris[flip] = tris[flip][:, ::-1]
        if len(tris) == 0:
            raise InvalidGeometryError("a navmesh needs at least one triangle with non-zero area")
        self._vertices = _readonly(verts)
        self._triangles = _readonly(tris)
        self._version = next(_versions)
        self._build_topology()
        self._build_index()

    # -- construction ---------------------------------------------------------------------
    @classmethod
    def from_polygons(cls, walkable: Any, *, obstacles: Any = (), agent_radius: float = 0.0) -> NavMesh:
        """Triangulate walkable polygons minus obstacles, shrunk by ``agent_radius``.

        Args:
            walkable: a shapely (Multi)Polygon, a sequence of shapely polygons, a sequence of
                rings (``(n, 2)`` world ``(x, y)`` points: outer boundary first, then holes), or
                one ring.
                Invalid input (self-intersections, overlaps) is repaired with shapely.
            obstacles: the same kinds of input, subtracted from ``walkable``.
            agent_radius: world units to keep between the agent's centre and any obstacle.

        Raises:
            InvalidGeometryError: nothing walkable is left or the input is not polygonal.
        """
        free = free_space(walkable, obstacles, agent_radius)
        return cls(*triangulate_free_space(free))

    @classmethod
    def from_grid(cls, grid: Any, *, agent_radius: float = 0.0) -> NavMesh:
        """Triangulate the passable cells of a :class:`~gamenav.TileGrid`.

        World coordinates follow the grid's ``cell_size``, ``origin`` and ``y_up``; cells that
        touch only at a corner are not connected.

        Raises:
            InvalidGeometryError: no passable cell (or none wide enough for ``agent_radius``).
        """
        from gamenav.grid.tilegrid import TileGrid

        if not isinstance(grid, TileGrid):
            raise InvalidInputError(f"grid must be a TileGrid, got {type(grid).__name__}")
        verts, tris = grid_triangulation(grid.passable, grid.cell_size, grid.origin, grid.y_up)
        if len(tris) == 0:
            raise InvalidGeometryError("the grid has no passable cell")
        if agent_radius == 0:
            return cls(verts, tris)
        free = shapely.coverage_union_all(shapely.polygons(verts[tris]))
        return cls.from_polygons(free, agent_radius=agent_radius)

    @classmethod
    def from_mesh(cls, vertices: npt.ArrayLike, polygons: Any) -> NavMesh:
        """Import an existing mesh of convex counter-clockwise polygons (or triangles).

        Args:
            vertices: ``(V, 2)`` world ``(x, y)``.
            polygons: a ``(P, 3)`` int array of triangles, or a sequence of convex polygons
                (vertex-id sequences; 180-degree corners allowed), e.g. from
                :func:`gamenav.io.read_mesh`. Adjacency comes from shared edges.

        Raises:
            InvalidGeometryError: a non-convex polygon, or no polygon with area.
        """
        verts = np.asarray(vertices, dtype=np.float64)
        if verts.ndim != 2 or verts.shape[1] != 2:
            raise InvalidInputError(f"vertices must have shape (V, 2), got {verts.shape}")
        arr = polygons if isinstance(polygons, np.ndarray) else None
        if arr is not None and arr.ndim == 2 and arr.shape[1] == 3:
            return cls(verts, arr)
        polys = [np.asarray(p, dtype=np.int64).ravel() for p in polygons]
        for k, p in enumerate(polys):
            if p.size and (p.min() < 0 or p.max() >= len(verts)):
                raise InvalidInputError(f"polygon {k} has vertex ids outside 0..{len(verts) - 1}: "
                                        f"{p.tolist()}")
        if all(len(p) == 3 for p in polys):
            return cls(verts, np.array(polys, dtype=np.int64).reshape(-1, 3))
        return cls(verts, triangulate_convex(verts, polys))

    # -- topology and index ---------------------------------------------------------------
    def _build_topology(self) -> None:
        tris = self._triangles
        n_t = len(tris)
        n_v = len(self._vertices)
        a = tris.ravel()
        b = np.roll(tris, -1, axis=1).ravel()
        key = np.minimum(a, b) * n_v + np.maximum(a, b)
        order = np.argsort(key, kind="stable")
        ks = key[order]
        nbrs = np.full(3 * n_t, -1, dtype=np.int64)
        # an edge shared by exactly two triangles in opposite directions is a portal
        group_start = np.flatnonzero(np.r_[True, ks[1:] != ks[:-1]])
        group_len = np.diff(np.r_[group_start, len(ks)])
        pair = group_start[group_len == 2]  # edges used by 3+ triangles stay borders
        i, j = order[pair], order[pair + 1]
        opposite = a[i] == b[j]
        i, j = i[opposite], j[opposite]
        nbrs[i] = j // 3
        nbrs[j] = i // 3
        self._neighbours = _readonly(nbrs.reshape(n_t, 3))
        _announce()
        islands, self._side, self._tin, self._tout = dual_graph(self._neighbours)
        self._islands = _readonly(islands)
        border = self._neighbours.ravel() < 0
        self._border_edges = np.stack([a[border], b[border]], axis=1)
        self._border_tri = np.flatnonzero(border) // 3
        counts = np.bincount(self._border_edges.ravel(), minlength=n_v)
        self._corner = _readonly(counts > 0)
        self._pinch = _readonly(counts > 2)
        self._degree = (self._neighbours >= 0).sum(axis=1).astype(np.int64)
        # vertex -> incident triangles (CSR)
        order_v = np.argsort(a, kind="stable")
        self._vtri_start = np.searchsorted(a[order_v], np.arange(n_v + 1))
        self._vtri = order_v // 3

    def _build_index(self) -> None:
        """Bucket grid: every triangle is listed in each cell its (tolerance-grown) box touches."""
        p = self._vertices[self._triangles]
        lo = p.min(axis=1)
        hi = p.max(axis=1)
        extent = np.maximum(hi.max(axis=0) - lo.min(axis=0), 1e-12)
        self._tol = 1e-9 * float(max(extent.max(), 1.0))
        lo -= self._tol
        hi += self._tol
        gmin = lo.min(axis=0)
        cell = float(max(2.0 * math.sqrt(extent[0] * extent[1] / len(p)), extent.max() / 4096, 1e-12))
        nx = int(extent[0] // cell) + 2
        ny = int(extent[1] // cell) + 2
        i0 = ((lo - gmin) // cell).astype(np.int64)
        i1 = ((hi - gmin) // cell).astype(np.int64)
        wx = i1[:, 0] - i0[:, 0] + 1
        wy = i1[:, 1] - i0[:, 1] + 1
        counts = wx * wy
        tri_id = np.repeat(np.arange(len(p)), counts)
        k = np.arange(len(tri_id)) - np.repeat(np.cumsum(counts) - counts, counts)
        w = wx[tri_id]
        cells = (i0[tri_id, 1] + k // w) * nx + i0[tri_id, 0] + k % w
        order = np.argsort(cells)
        self._cell_items = tri_id[order]
        self._cell_start = np.searchsorted(cells[order], np.arange(nx * ny + 1))
        self._grid = (gmin.astype(np.float64), cell, nx, ny)

    # -- read-only state ------------------------------------------------------------------
    @property
    def vertices(self) -> npt.NDArray[np.float64]:
        """``(V, 2)`` float64 world ``(x, y)``, read-only."""
        return self._vertices

    @property
    def triangles(self) -> npt.NDArray[np.int64]:
        """``(T, 3)`` int64 counter-clockwise vertex ids, read-only."""
        return self._triangles

    @property
    def neighbours(self) -> npt.NDArray[np.int64]:
        """``(T, 3)`` int64: triangle across edge ``(v_j, v_{j+1})``, -1 on the border; read-only."""
        return self._neighbours

    @property
    def islands(self) -> npt.NDArray[np.int64]:
        """``(T,)`` int64 label of each triangle's edge-connected region (0, 1, ...)."""
        return self._islands

    @property
    def portals(self) -> npt.NDArray[np.int64]:
        """``(P, 2)`` int64 vertex ids of the interior edges shared by two triangles (each once)."""
        t, j = np.nonzero(self._neighbours > np.arange(len(self._triangles))[:, None])
        return np.stack([self._triangles[t, j], self._triangles[t, (j + 1) % 3]], axis=1)

    @property
    def version(self) -> int:
        """A number unique to this mesh in this process (meshes never change)."""
        return self._version

    @property
    def tolerance(self) -> float:
        """World distance within which a point off a triangle still counts as on it.

        1e-9 of the mesh extent (at least 1e-9).
        """
        return self._tol

    @property
    def bounds(self) -> tuple[float, float, float, float]:
        """``(min_x, min_y, max_x, max_y)`` of the vertices."""
        lo = self._vertices.min(axis=0)
        hi = self._vertices.max(axis=0)
        return (float(lo[0]), float(lo[1]), float(hi[0]), float(hi[1]))

    def __len__(self) -> int:
        """Number of triangles."""
        return len(self._triangles)

    def __repr__(self) -> str:
        return (f"NavMesh(vertices={len(self._vertices)}, triangles={len(self._triangles)}, "
                f"islands={int(self._islands.max()) + 1}, version={self._version})")

    # -- queries --------------------------------------------------------------------------
    def locate(self, points: npt.ArrayLike) -> npt.NDArray[np.int64]:
        """Triangle index of each point, -1 outside the mesh (vectorised, bucket-grid index).

        Args:
            points: ``(2,)`` or ``(n, 2)`` world ``(x, y)``.

        Returns:
            ``(n,)`` int64 (``(1,)`` for a single point). Points on a shared edge get one of
            the triangles; points within :attr:`tolerance` outside a border count as inside.
        """
        p = points_array(points)
        gmin, cell, nx, ny = self._grid
        return locate_points(p, self._vertices, self._triangles, gmin, cell, nx, ny,
                             self._cell_start, self._cell_items, self._tol)

    def nearest(self, points: npt.ArrayLike) -> npt.NDArray[np.float64]:
        """Clamp points onto the mesh: points inside are returned as they are.

        Args:
            points: ``(2,)`` or ``(n, 2)`` world ``(x, y)``.

        Returns:
            ``(n, 2)`` float64: each point, or the closest point of the mesh border.
        """
        return self.clamp(points)[0]

    def clamp(self, points: npt.ArrayLike, island: int | None = None
              ) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.int64]]:
        """Like :meth:`nearest`, also returning each result's triangle.

        Args:
            points: ``(2,)`` or ``(n, 2)`` world ``(x, y)``.
            island: restrict to the triangles with this :attr:`islands` label.
        """
        p = points_array(points)
        tri = self.locate(p)
        if island is not None:
            tri[(tri >= 0) & (self._islands[np.maximum(tri, 0)] != island)] = -1
        out = p.copy()
        outside = tri < 0
        if outside.any():
            ok = np.ones(len(self._border_tri), dtype=bool) if island is None else (
                self._islands[self._border_tri] == island)
            pts, t = nearest_points(p[outside], self._vertices, self._border_edges,
                                    self._border_tri, ok)
            out[outside] = pts
            tri[outside] = t
        return out, tri

    def raycast(self, start: npt.ArrayLike, end: npt.ArrayLike) -> RaycastHit:
        """Walk the segment ``start -> end`` over the mesh.

        Args:
            start, end: world ``(x, y)``.

        Returns:
            :class:`RaycastHit`: ``clear`` True if the segment stays on the mesh; otherwise the
            first point where it leaves (``fraction`` 0 when ``start`` is off the mesh).
        """
        s = points_array(start, "start")[0]
        e = points_array(end, "end")[0]
        t = int(self.locate(s)[0])
        if t < 0:
            return RaycastHit(False, s.copy(), 0.0)
        frac = raycast_walk(self._vertices, self._triangles, self._neighbours, t,
                               s[0], s[1], e[0], e[1])
        return RaycastHit(frac >= 1.0, s + frac * (e - s), float(frac))

    def kernel_arrays(self) -> dict[str, np.ndarray]:
        """The mesh's own arrays for search kernels (never modify them)."""
        return {"verts": self._vertices, "tris": self._triangles, "nbrs": self._neighbours,
                "corner": self._corner, "degree": self._degree, "pinch": self._pinch,
                "side": self._side, "tin": self._tin, "tout": self._tout,
                "vtri_start": self._vtri_start, "vtri": self._vtri}
