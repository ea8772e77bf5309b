"""Free space -> triangles: shapely repair and inflation, then a constrained Delaunay triangulation.

Everything here is world ``(x, y)``. :func:`free_space` turns user polygons into valid shapely
free space (walkable minus obstacles, shrunk by the agent radius); :func:`triangulate_free_space`
triangulates it with ``triangle`` (Shewchuk) using only the boundary vertices (no Steiner points
unless boundaries cross); :func:`grid_free_space` turns a TileGrid's passable cells into polygons;
:func:`triangulate_convex` splits convex polygons (180-degree corners allowed) into triangles.
"""

from __future__ import annotations

import math
from typing import Any, Iterable, Sequence

import numpy as np
import numpy.typing as npt
import shapely
import triangle
from shapely.geometry.base import BaseGeometry

from gamenav.errors import InvalidGeometryError, InvalidInputError

__all__ = ["free_space", "grid_free_space", "triangulate_convex", "triangulate_free_space"]

QUAD_SEGS = 4
"""Segments per quarter circle when rounding corners by the agent radius."""


def _polygonal(geom: BaseGeometry) -> BaseGeometry:
    """The polygonal part of a geometry (make_valid may return lines and points too)."""
    parts = shapely.get_parts(geom)
    polys = [p for p in parts if p.geom_type in ("Polygon", "MultiPolygon")]
    return shapely.union_all(polys) if polys else shapely.Polygon()


def _as_geometry(shapes: Any, name: str) -> BaseGeometry:
    """A valid polygonal shapely geometry from a geometry or a sequence of rings / geometries.

    A sequence of rings is read as one polygon: the first ring is the outer boundary, the others
    are holes. A sequence of shapely geometries is unioned.
    """
    if isinstance(shapes, BaseGeometry):
        geom = shapes
    else:
        try:
            items = list(shapes)
        except TypeError:
            raise InvalidInputError(
                f"{name} must be a shapely geometry or a sequence of rings, got {type(shapes).__name__}"
            ) from None
        if not items:
            return shapely.Polygon()
        if all(isinstance(i, BaseGeometry) for i in items):
            geom = shapely.union_all([_polygonal(shapely.make_valid(i)) for i in items])
        else:
            rings = []
            for k, ring in enumerate(items):
                arr = np.asarray(ring, dtype=np.float64)
                if arr.ndim != 2 or arr.shape[1] != 2 or arr.shape[0] < 3:
                    raise InvalidGeometryError(
                        f"{name} ring {k} must be an (n >= 3, 2) array of (x, y) points, got shape "
                        f"{arr.shape}")
                rings.append(arr)
            geom = shapely.Polygon(rings[0], rings[1:])
    if geom.geom_type not in ("Polygon", "MultiPolygon", "GeometryCollection"):
        raise InvalidGeometryError(f"{name} must be polygonal, got a {geom.geom_type}")
    coords = shapely.get_coordinates(geom)
    if not np.isfinite(coords).all():
        raise InvalidGeometryError(f"{name} coordinates must be finite (got NaN or inf)")
    return _polygonal(shapely.make_valid(geom))


def free_space(walkable: Any, obstacles: Any = (), agent_radius: float = 0.0) -> BaseGeometry:
    """Repaired free space: ``walkable`` minus ``obstacles``, shrunk by ``agent_radius``.

    The shrink rounds corners with :data:`QUAD_SEGS` chords per quarter circle; the radius is
    enlarged so that the chords, not just their ends, stay ``agent_radius`` away from obstacles.

    Raises:
        InvalidGeometryError: nothing walkable is left, or the input is not polygonal.
        InvalidInputError: a negative or non-finite radius.
    """
    radius = float(agent_radius)
    if not math.isfinite(radius) or radius < 0:
        raise InvalidInputError(f"agent_radius must be a finite number >= 0, got {agent_radius}")
    free = _as_geometry(walkable, "walkable")
    blocked = _as_geometry(obstacles, "obstacles")
    if not blocked.is_empty:
        free = _polygonal(shapely.difference(free, blocked))
    if radius > 0 and not free.is_empty:
        grow = radius / math.cos(math.pi / (4 * QUAD_SEGS))
        free = _polygonal(shapely.make_valid(free.buffer(-grow, quad_segs=QUAD_SEGS)))
    if free.is_empty or free.area <= 0:
        raise InvalidGeometryError(
            "no walkable area left (walkable is empty, covered by obstacles or narrower than "
            f"2 * agent_radius = {2 * radius})")
    return free


def triangulate_free_space(free: BaseGeometry) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.int64]]:
    """Constrained Delaunay triangulation of a polygonal free space.

    Returns:
        ``(V, 2)`` float64 vertices and ``(T, 3)`` int64 counter-clockwise triangles covering
        exactly ``free``. Boundary points shared by several rings (pinch points) become one
        vertex; the regions meeting there share no edge, so they stay disconnected.
    """
    rings = shapely.get_rings(shapely.get_parts(free))
    coords, ring_idx = shapely.get_coordinates(rings, return_index=True)
    # drop each ring's closing point
    last = np.r_[ring_idx[1:] != ring_idx[:-1], True]
    coords, ring_idx = coords[~last], ring_idx[~last]
    verts, inverse = np.unique(coords, axis=0, return_inverse=True)
    inverse = inverse.ravel()
    nxt = np.arange(len(coords)) + 1
    first = np.r_[True, ring_idx[1:] != ring_idx[:-1]]
    starts = np.flatnonzero(first)
    ends = np.r_[starts[1:], len(coords)]
    nxt[ends - 1] = starts
    segs = np.stack([inverse, inverse[nxt]], axis=1)
    segs = segs[segs[:, 0] != segs[:, 1]]
    out = triangle.triangulate({"vertices": verts, "segments": segs}, "pQ")
    v = np.asarray(out["vertices"], dtype=np.float64)
    t = np.asarray(out["triangles"], dtype=np.int64)
    centroids = v[t].mean(axis=1)
    shapely.prepare(free)
    inside = shapely.contains_xy(free, centroids[:, 0], centroids[:, 1])
    return v, t[inside]


def grid_free_space(passable: npt.NDArray[np.bool_], cell_size: float, origin: Sequence[float],
                    y_up: bool) -> BaseGeometry:
    """Union of the passable cells of a ``(h, w)`` ``[y, x]`` mask as world polygons.

    Rows are cut into runs of passable cells; runs with the same columns in consecutive rows are
    merged into one rectangle, then the rectangles (which only share edges) are unioned exactly
    in cell units, collinear points removed, and the result is mapped to world coordinates.
    """
    h, w = passable.shape
    pad = np.zeros((h, w + 2), dtype=np.int8)
    pad[:, 1:-1] = passable
    d = np.diff(pad, axis=1)
    ry, x0 = np.nonzero(d == 1)
    _, x1 = np.nonzero(d == -1)
    if ry.size == 0:
        return shapely.Polygon()
    # merge vertically: a run continues the run with the same columns in the previous row
    key = (x0.astype(np.int64) * (w + 1) + x1)
    order = np.lexsort((ry, key))
    k, yy = key[order], ry[order]
    new = np.r_[True, (k[1:] != k[:-1]) | (yy[1:] != yy[:-1] + 1)]
    group = np.cumsum(new) - 1
    y0 = yy[new]
    y1 = np.zeros(group[-1] + 1, dtype=np.int64)
    np.maximum.at(y1, group, yy + 1)
    bx0 = x0[order][new]
    bx1 = x1[order][new]
    boxes = shapely.box(bx0, y0, bx1, y1)
    free = shapely.coverage_union_all(boxes)
    free = shapely.simplify(free, 0.0)
    cs = float(cell_size)
    ox, oy = (float(o) for o in origin)
    if y_up:
        return shapely.transform(free, lambda c: np.stack([ox + c[:, 0] * cs, oy + (h - c[:, 1]) * cs], axis=1))
    return shapely.transform(free, lambda c: np.stack([ox + c[:, 0] * cs, oy + c[:, 1] * cs], axis=1))


def triangulate_convex(vertices: npt.NDArray[np.float64],
                       polygons: Iterable[npt.ArrayLike]) -> npt.NDArray[np.int64]:
    """Split convex counter-clockwise polygons into triangles without zero-area pieces.

    Collinear (180-degree) corners are allowed: ears are clipped only at strictly convex corners
    and never so that the rest becomes flat. Zero-area polygons are dropped.

    Raises:
        InvalidGeometryError: a polygon is not convex (or not counter-clockwise), or repeats a vertex.
    """
    out: list[tuple[int, int, int]] = []
    for k, poly in enumerate(polygons):
        ids = [int(i) for i in np.asarray(poly, dtype=np.int64).ravel()]
        if len(ids) < 3:
            raise InvalidGeometryError(f"polygon {k} must have at least 3 vertices, got {len(ids)}")
        if len(set(ids)) != len(ids):
            raise InvalidGeometryError(f"polygon {k} repeats a vertex: {ids}")
        pts = vertices[ids]
        scale = float(np.ptp(pts, axis=0).max()) or 1.0
        eps = 1e-12 * scale * scale
        n = len(ids)
        nxt = np.roll(pts, -1, axis=0)
        prv = np.roll(pts, 1, axis=0)
        turns = (pts[:, 0] - prv[:, 0]) * (nxt[:, 1] - pts[:, 1]) - (pts[:, 1] - prv[:, 1]) * (nxt[:, 0] - pts[:, 0])
        area = 0.5 * float(np.sum(pts[:, 0] * nxt[:, 1] - nxt[:, 0] * pts[:, 1]))
        if area <= eps:
            if area < -eps or (turns < -eps).any():
                raise InvalidGeometryError(
                    f"polygon {k} must be convex and counter-clockwise, got signed area {area:.6g}")
            continue
        if (turns < -eps).any():
            raise InvalidGeometryError(
                f"polygon {k} must be convex and counter-clockwise, got a reflex corner at vertex "
                f"{ids[int(np.argmin(turns))]}")
        if n == 3:
            out.append((ids[0], ids[1], ids[2]))
            continue
        ring = list(range(n))
        while len(ring) > 3:
            m = len(ring)
            for i in range(m):
                a, b, c = ring[i - 1], ring[i], ring[(i + 1) % m]
                ear = ((pts[b, 0] - pts[a, 0]) * (pts[c, 1] - pts[b, 1])
                       - (pts[b, 1] - pts[a, 1]) * (pts[c, 0] - pts[b, 0]))
                if ear > eps and area - 0.5 * ear > eps:
                    out.append((ids[a], ids[b], ids[c]))
                    area -= 0.5 * ear
                    del ring[i]
                    break
            else:
                break  # the rest is flat
        if len(ring) == 3:
            a, b, c = ring
            out.append((ids[a], ids[b], ids[c]))
    return np.array(out, dtype=np.int64).reshape(-1, 3)
