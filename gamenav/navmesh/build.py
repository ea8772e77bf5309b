"""Free space -> triangles: shapely repair and inflation, then a constrained Delaunay triangulation.

Everything here is world ``(x, y)``. :func:`free_space` turns user polygons into valid shapely
free space (walkable minus obstacles, shrunk by the agent radius; a polygon's holes are
subtracted from its shell like obstacles, so a hole covering it removes it, and a hole wholly
outside it removes nothing, an error for a sequence of rings); :func:`triangulate_free_space`
triangulates it with ``triangle`` (Shewchuk) using only the boundary vertices (no Steiner points
unless boundaries cross); :func:`grid_triangulation` triangulates a TileGrid's passable cells directly;
:func:`triangulate_convex` splits convex polygons (180-degree corners allowed, checked by
:func:`convex_ring`) into triangles.
Coordinates must be finite and within :data:`MAX_COORDINATE`; failures inside shapely or
``triangle`` surface as :class:`~gamenav.errors.InvalidGeometryError`, never as bare errors.
"""

from __future__ import annotations

import contextlib
import math
from typing import Any
from collections.abc import Callable, Iterable, Iterator, Sequence

import numpy as np
import numpy.typing as npt
import shapely
import shapely.errors
import triangle
from shapely.geometry.base import BaseGeometry

from gamenav._kernels import announce_compile
from gamenav._kernels.navmesh import inside_triangles, ring_graph
from gamenav._validate import float_numbers, holds_bool, real_number, shown
from gamenav.errors import GamenavError, InvalidGeometryError, InvalidInputError

__all__ = ["MAX_COORDINATE", "MIN_EDGE", "agent_radius_value", "area_list", "convex_ring", "free_space", "grid_frame",
           "grid_triangulation", "grown_radius", "merge_points", "mesh_tolerance", "stadiums", "triangulate_areas",
           "triangulate_convex", "triangulate_free_space"]

MAX_COORDINATE = 1e15
"""Largest absolute world coordinate a navmesh accepts (vertices, polygons, query points).

Far beyond any game world, and small enough that every product the kernels and ``triangle``'s
exact predicates form (up to fourth powers of coordinate differences) stays finite.
"""

QUAD_SEGS = 4
"""Segments per quarter circle when rounding corners by the agent radius."""

MIN_EDGE = 1e-100
"""Triangles with an edge shorter than this (world units) are degenerate and dropped: the
kernels divide by squared edge lengths, which must not underflow to zero. Also the smallest mesh
tolerance (see :func:`mesh_tolerance`)."""


def _polygonal(geom: BaseGeometry) -> BaseGeometry:
    """The polygonal part of a geometry with area (make_valid may return lines and points too,
    and overlay operations zero-area slivers)."""
    parts = shapely.get_parts(geom)
    polys = [p for p in parts if p.geom_type in ("Polygon", "MultiPolygon") and p.area > 0]
    return shapely.union_all(polys) if polys else shapely.Polygon()


@contextlib.contextmanager
def _geometry_errors(what: str) -> Iterator[None]:
    """Turn a failure inside shapely (GEOS) or ``triangle`` into an InvalidGeometryError.

    Only wraps calls into those libraries (their bare RuntimeError / ValueError / GEOSException).
    """
    try:
        yield
    except GamenavError:
        raise
    except (RuntimeError, ValueError, shapely.errors.ShapelyError) as exc:
        raise InvalidGeometryError(f"{what} failed ({type(exc).__name__}: {exc})") from exc


def agent_radius_value(agent_radius: Any) -> float:
    """``agent_radius`` as a float in ``[0, MAX_COORDINATE]``.

    Raises:
        InvalidInputError: not a real number (bools and strings included), NaN, negative or too big.
    """
    expected = f"a finite number >= 0 (at most {MAX_COORDINATE:g})"
    radius = real_number(agent_radius, "agent_radius", expected)
    if not 0.0 <= radius <= MAX_COORDINATE:
        raise InvalidInputError(f"agent_radius must be {expected}, got {shown(agent_radius)}")
    return radius


def _ring(value: Any, name: str, k: int) -> npt.NDArray[np.float64]:
    """Ring ``k`` of ``name`` as an ``(n >= 3, 2)`` float64 array of finite in-range points."""
    ring = float_numbers(value)  # numbers only: numpy reads a bool among them as 0 or 1
    if ring is None or ring.ndim != 2 or ring.shape[1] != 2 or ring.shape[0] < 3:
        shape = getattr(ring, "shape", None)
        got = "a bool among them" if holds_bool(value) else shape if shape is not None else type(value).__name__
        raise InvalidGeometryError(f"{name} ring {k} must be an (n >= 3, 2) array of (x, y) numbers, got {got}")
    if not np.isfinite(ring).all():
        raise InvalidGeometryError(f"{name} coordinates must be finite, got NaN or inf in ring {k}")
    return ring


def _check_coordinates(geom: BaseGeometry, name: str) -> None:
    """Reject NaN, inf and coordinates outside ``[-MAX_COORDINATE, MAX_COORDINATE]``."""
    coords = shapely.get_coordinates(geom)
    if not np.isfinite(coords).all():
        raise InvalidGeometryError(f"{name} coordinates must be finite, got NaN or inf")
    if coords.size and np.abs(coords).max() > MAX_COORDINATE:
        raise InvalidGeometryError(
            f"{name} coordinates must lie in [-{MAX_COORDINATE:g}, {MAX_COORDINATE:g}], got "
            f"{float(coords.flat[np.argmax(np.abs(coords))]):g}")


def _single_parts(geom: BaseGeometry) -> list[shapely.Polygon]:
    """The Polygons of a geometry, collections and multi-geometries flattened."""
    parts = list(shapely.get_parts(geom))
    while any(p.geom_type.startswith("Multi") or p.geom_type == "GeometryCollection" for p in parts):
        parts = list(shapely.get_parts(parts))
    return [p for p in parts if isinstance(p, shapely.Polygon)]


def _repair(geom: BaseGeometry) -> BaseGeometry:
    """Valid polygonal free space: each polygon's shell minus its holes, the polygons unioned.

    Valid input is returned as it is (only its polygonal part). Invalid input is not handed to
    ``make_valid`` whole (which would turn a hole outside its shell into walkable area, or a
    hole enclosing its shell into walkable area outside it): each ring is repaired on its own
    (self-intersections resolved), then holes are subtracted from their shell like obstacles.
    """
    if shapely.is_valid(geom):
        return _polygonal(geom)
    pieces = []
    for poly in _single_parts(geom):
        shell = _polygonal(shapely.make_valid(shapely.Polygon(poly.exterior)))
        holes = [_polygonal(shapely.make_valid(shapely.Polygon(r))) for r in poly.interiors]
        pieces.append(_polygonal(shapely.difference(shell, shapely.union_all(holes))) if holes
                      else shell)
    return shapely.union_all(pieces) if pieces else shapely.Polygon()


def _check_holes_overlap(rings: list[Any], name: str) -> None:
    """A ring after the first (a hole) with area that lies wholly outside the first would remove
    nothing: most likely a second polygon given as a hole (``obstacles=[ring_a, ring_b]``).

    Raises:
        InvalidGeometryError: naming the ring.
    """
    shell = shapely.make_valid(shapely.Polygon(rings[0]))
    if shell.area == 0:
        return  # (nothing walkable anyway: that error comes later)
    for k, ring in enumerate(rings[1:], 1):
        hole = shapely.make_valid(shapely.Polygon(ring))
        if hole.area > 0 and shapely.intersection(shell, hole).area == 0:
            raise InvalidGeometryError(
                f"{name}: ring {k} lies outside ring 0, so as its hole it would remove nothing (in a list of "
                f"rings the first is the outer boundary, the others its holes); give several polygons as a "
                f"list of shapely Polygons")


def _as_geometry(shapes: Any, name: str) -> BaseGeometry:
    """A valid polygonal shapely geometry from a geometry or a sequence of rings / geometries.

    A sequence of rings is read as one polygon: the first ring is the outer boundary, the others
    are holes (subtracted from it: see :func:`_repair`; one wholly outside it is an error, see
    :func:`_check_holes_overlap`); a single ring of ``(x, y)`` points is accepted too. A sequence
    of shapely geometries is unioned.

    Raises:
        InvalidInputError: ``shapes`` is neither a geometry nor a sequence.
        InvalidGeometryError: malformed rings, non-polygonal geometry, NaN / inf coordinates or
            coordinates outside ``[-MAX_COORDINATE, MAX_COORDINATE]``; for ``name`` "obstacles",
            a non-empty obstacle with no area.
    """
    if isinstance(shapes, BaseGeometry):
        geoms = [shapes]
    else:
        try:
            items = list(shapes)
        except TypeError:
            raise InvalidInputError(
                f"{name} must be a shapely geometry or a sequence of rings, got {type(shapes).__name__}"
            ) from None
        if not items:
            return shapely.Polygon()
        is_geom = [isinstance(i, BaseGeometry) for i in items]
        if any(is_geom) and not all(is_geom):
            raise InvalidGeometryError(f"{name} must be all shapely geometries or all rings, not a mix")
        if all(is_geom):
            geoms = items
        else:
            try:
                single = np.ndim(items[0]) == 1  # a single ring of (x, y) points
            except ValueError:
                single = False
            rings = [_ring(r, name, k) for k, r in enumerate([items] if single else items)]
            with _geometry_errors(f"reading the rings of {name}"):
                geoms = [shapely.Polygon(rings[0], rings[1:])]
                _check_holes_overlap(rings, name)
    for geom in geoms:
        if geom.geom_type not in ("Polygon", "MultiPolygon", "GeometryCollection"):
            raise InvalidGeometryError(f"{name} must be polygonal, got a {geom.geom_type}")
        _check_coordinates(geom, name)
    with _geometry_errors(f"repairing {name}"):
        parts = [_without_underflow(_repair(g)) for g in geoms]
    if name == "obstacles":  # (dropped, a wall of no width let agents through it)
        for k, (geom, part) in enumerate(zip(geoms, parts, strict=True)):
            if part.is_empty and not geom.is_empty:
                where = f"obstacles[{k}]" if len(geoms) > 1 else "obstacles"
                raise InvalidGeometryError(f"{where} has no area (a line, a point, or covered by its holes): it would "
                                           f"block nothing; give a wall a thickness")
    with _geometry_errors(f"repairing {name}"):
        return shapely.union_all(parts)


def grown_radius(radius: float) -> float:
    """How far the corners of :func:`stadiums` lie from their segments' ends: chords of
    :data:`QUAD_SEGS` per quarter circle tangent to the circle of ``radius`` (the farthest the
    outline of an inflated obstacle gets from it)."""
    return radius / math.cos(math.pi / (4 * QUAD_SEGS))


# a stadium's cap: corner directions in the frame (along, across) of its segment, half a chord's
# turn off the across direction so that the chords next to the sides lie on them
_CAP = (np.arange(2 * QUAD_SEGS) + 0.5) * (math.pi / (2 * QUAD_SEGS)) - math.pi / 2
_CAPS = np.stack([np.cos(np.concatenate([_CAP, _CAP + math.pi])),
                  np.sin(np.concatenate([_CAP, _CAP + math.pi]))], axis=1)  # (4 * QUAD_SEGS, 2)


def stadiums(segs: npt.NDArray[np.float64], radius: float) -> npt.NDArray[np.object_]:
    """The points within ``radius`` of each segment ``segs`` ``(s, 2, 2)``, as polygons whose
    sides lie at ``radius`` exactly and whose round ends are :data:`QUAD_SEGS` chords per
    quarter tangent to the circle (corners at :func:`grown_radius`): they hold the true stadium
    and no point farther than that from the segment. Zero-length segments are left out (a ring's
    other segments hold their point). A radius grown everywhere (``shapely.buffer`` of the
    segment) narrowed every passage by 2% of the radius: a unit of radius 0.495 had no way
    along a corridor 1 wide."""
    a, b = segs[:, 0], segs[:, 1]
    d = b - a
    length = np.hypot(d[:, 0], d[:, 1])
    keep = length > 0
    a, b, d = a[keep], b[keep], d[keep] / length[keep, None]
    n = np.stack([-d[:, 1], d[:, 0]], axis=1)  # to the left of the segment
    ends = np.repeat(np.stack([b, a], axis=1), 2 * QUAD_SEGS, axis=1)  # (s, 4 * QUAD_SEGS, 2)
    grow = grown_radius(radius)
    corners = ends + grow * (_CAPS[None, :, :1] * d[:, None, :] + _CAPS[None, :, 1:] * n[:, None, :])
    return np.asarray(shapely.polygons(corners), dtype=object)


def _shrink(free: BaseGeometry, radius: float) -> BaseGeometry:
    """Points of ``free`` at least ``radius`` from its boundary: the :func:`stadiums` of its
    boundary segments (no inside turns for GEOS to snap) are cut from it."""
    rings = shapely.get_rings(shapely.get_parts(free))
    coords, ring = shapely.get_coordinates(rings, return_index=True)
    same = ring[1:] == ring[:-1]
    segs = np.stack([coords[:-1][same], coords[1:][same]], axis=1)
    return _polygonal(shapely.difference(free, shapely.union_all(stadiums(segs, radius))))


def _without_slivers(free: BaseGeometry) -> BaseGeometry:
    """``free`` without the parts that are float noise (overlay slivers): an area of at most
    ``16 * eps * extent**2``, with ``extent`` the larger side of its bounding box, and nowhere
    wider than the mesh tolerance. A part that small but wider is free space (a corner cut off
    by an obstacle 3e-8 from it), which an edit keeps as it is: dropped, a build had one island
    fewer."""
    if free.is_empty:
        return free
    x0, y0, x1, y1 = free.bounds
    extent = max(x1 - x0, y1 - y0)
    parts = shapely.get_parts(free)
    noise = shapely.area(parts) <= 16 * np.finfo(np.float64).eps * extent ** 2
    if noise.any():
        tol = mesh_tolerance(extent, max(abs(x0), abs(y0), abs(x1), abs(y1)))
        noise[noise] = shapely.is_empty(shapely.buffer(parts[noise], -0.5 * tol))
    parts = parts[~noise]
    return shapely.union_all(parts) if len(parts) else shapely.Polygon()


def mesh_tolerance(extent: float, largest: float) -> float:
    """The :attr:`~gamenav.NavMesh.tolerance` of a mesh whose bounding box's larger side is
    ``extent`` and whose largest absolute coordinate is ``largest``: never below
    :data:`MIN_EDGE`, so that points a build or an edit keeps apart (farther than the
    tolerance) never make an edge short enough to be dropped (a crack)."""
    return max(1e-9 * extent, 4 * float(np.spacing(largest)), MIN_EDGE)


def merge_points(geom: BaseGeometry, tol: float, fixed: Callable[[], npt.NDArray[np.float64]] | None = None
                 ) -> BaseGeometry:
    """Polygonal ``geom`` with coordinates near 0 made 0 (see :func:`_zeroed`), outline points
    within ``tol`` merged and the spikes that leaves cut off (see :func:`_cut_spikes`); a ring
    that collapses (a hole or a part within ``tol`` of one point, which GEOS refuses as a ring)
    goes. ``fixed``: gives ``(k, 2)`` points that stay (no spike is cut at them), called when
    there is a spike."""
    zeroed = _zeroed(geom, tol)
    spliced = _relinked(zeroed, same_ring=False)

    def split(g: BaseGeometry) -> BaseGeometry:  # rings passing a point twice split there again
        return g if spliced is zeroed else _relinked(g, same_ring=True)

    merged = _merge_repeated(spliced, tol)
    cut = _cut_spikes(merged, tol, fixed)
    while cut is not None and (shapely.is_valid(split(cut)) or not shapely.is_valid(split(merged))):
        merged = _merge_repeated(cut, tol)  # (no cut across an edge)
        cut = _cut_spikes(merged, tol, fixed)
    return split(merged)


def _relinked(geom: BaseGeometry, same_ring: bool) -> BaseGeometry:
    """Polygonal ``geom`` with its rings joined or split at pinch points; ``geom`` itself when
    there is none.

    ``same_ring`` False: two rings of a polygon that share a point (a hole touching the outline
    or another hole) become one ring passing the point twice (invalid for GEOS), the free space
    on one side of it, so that merging and spike cutting follow the outline through the point
    as in an edit's region holding the free space on one side of the hole only: the strips at
    most the tolerance wide on either side of it are dead ends, cut off (merging each ring on
    its own dropped the point from one of them and opened a strip through it). The outline
    keeps its direction and first point (merging keeps the first of close points). True: a
    ring passing a point twice is split there again; the loops winding as the outline does make
    the outline, the others holes.
    """
    polys = _single_parts(geom)
    per = shapely.get_num_interior_rings(polys) + 1
    if not same_ring and not (per > 1).any():
        return geom
    coords, ring = shapely.get_coordinates(shapely.get_rings(polys), return_index=True)
    if not len(coords):
        return geom
    opened = np.r_[ring[1:] == ring[:-1], False]  # without each ring's closing point
    p, ring = np.ascontiguousarray(coords[opened]), ring[opened]
    poly = np.repeat(np.arange(len(polys)), per)[ring]
    _, inverse, count = np.unique(p.view(np.complex128).ravel(), return_inverse=True, return_counts=True)
    inverse = inverse.ravel()
    twice = np.flatnonzero(count[inverse] == 2)
    twice = twice[np.argsort(inverse[twice], kind="stable")]
    a, b = twice[0::2], twice[1::2]
    pair = (poly[a] == poly[b]) & ((ring[a] == ring[b]) == same_ring)
    a, b = a[pair], b[pair]
    if not len(a):
        return geom
    size = np.bincount(ring)
    start = np.repeat(np.cumsum(size) - size, size)
    k = np.arange(len(p)) - start
    nxt, prv = start + (k + 1) % size[ring], start + (k - 1) % size[ring]
    rel = p - p[start]  # twice each ring's signed area, about its first point
    ccw = np.bincount(ring, weights=rel[:, 0] * rel[nxt, 1] - rel[nxt, 0] * rel[:, 1]) > 0
    lead = np.repeat(np.cumsum(per) - per, per)  # each ring's polygon's outline
    flip = (ccw == ccw[lead]) != (lead == np.arange(len(size)))  # a hole winding like its outline
    nxt = np.where(flip[ring], prv, nxt)  # the free space on one side of every ring
    nxt[a], nxt[b] = nxt[b], nxt[a]  # joins two rings at the point, or splits one there
    succ = nxt.tolist()
    out: list[BaseGeometry] = list(polys)
    for j in np.unique(poly[a]).tolist():
        seen: set[int] = set()
        shells: list[npt.NDArray[np.float64]] = []
        holes: list[npt.NDArray[np.float64]] = []
        for first in np.flatnonzero(poly == j).tolist():
            if first in seen:
                continue
            loop = [first]
            while succ[loop[-1]] != first:
                loop.append(succ[loop[-1]])
            seen.update(loop)
            rel = p[loop] - p[first]
            twice_area = float(np.sum(rel[:, 0] * np.roll(rel[:, 1], -1) - np.roll(rel[:, 0], -1) * rel[:, 1]))
            if twice_area:  # (a loop merging collapsed goes)
                (shells if (twice_area > 0) == ccw[lead[ring[first]]] else holes).append(p[loop])
        out[j] = (shapely.Polygon(shells[0], holes) if len(shells) == 1
                  else _polygonal(shapely.make_valid(polys[j], method="structure")))
    return shapely.MultiPolygon([part for g in out for part in _single_parts(g)])  # (no overlay: joined rings stay)


def _without_underflow(geom: BaseGeometry) -> BaseGeometry:
    """Polygonal ``geom`` with coordinates below ``2**-60`` of its largest in absolute value set to
    0 (as :func:`_triangulate` takes them): beside larger ones GEOS's overlays underflow on them
    and answer wrongly (a difference with a polygon whose corner lies at (1e-300, 1e-300), beside
    a room's corner at the origin, subtracted nothing)."""
    largest = float(np.abs(shapely.get_coordinates(geom)).max(initial=0.0))
    return _zeroed(geom, largest * 2.0 ** -51)


def _zeroed(geom: BaseGeometry, tol: float) -> BaseGeometry:
    """Polygonal ``geom`` with coordinates below ``tol * 2**-9`` in absolute value set to 0
    (made valid again when that closes a strip): every coordinate :func:`_triangulate` would
    take as 0 (below ``2**-60`` of the largest, the tolerance being at least ``2**-51`` of it),
    before merging; taken as 0 only there, a strip between a wall at 0 and an obstacle 1e-238
    off it, open at both ends, was pinched shut after the spikes were cut, and what it left of
    the strip stayed as a spike."""
    limit = tol * 2.0 ** -9
    coords = shapely.get_coordinates(geom)
    if not ((np.abs(coords) < limit) & (coords != 0.0)).any():
        return geom
    out: BaseGeometry = shapely.transform(geom, lambda c: np.where(np.abs(c) < limit, 0.0, c))
    return out if shapely.is_valid(out) else _polygonal(shapely.make_valid(out, method="structure"))


def _merge_repeated(geom: BaseGeometry, tol: float) -> BaseGeometry:
    """Polygonal ``geom`` with consecutive outline points within ``tol`` merged (collapsed rings go)."""
    try:
        return shapely.remove_repeated_points(geom, tol)
    except shapely.errors.GEOSException:  # a ring collapsed: merge ring by ring
        pass
    polygons = []
    for poly in _single_parts(geom):
        rings = [shapely.get_coordinates(shapely.remove_repeated_points(shapely.LineString(r.coords), tol))
                 for r in (poly.exterior, *poly.interiors)]
        if len(rings[0]) >= 4:
            polygons.append(shapely.Polygon(rings[0], [r for r in rings[1:] if len(r) >= 4]))
    return shapely.MultiPolygon(polygons)


def _cut_spikes(geom: BaseGeometry, tol: float, fixed: Callable[[], npt.NDArray[np.float64]] | None
                ) -> BaseGeometry | None:
    """``geom`` without its spike tips (not at the points ``fixed()``), or None when it has none.

    A tip is an outline point where the outline turns back, the polygon inside the turn, with
    the nearer neighbour within ``tol`` of the edge to the farther one: the end of a part at
    most ``tol`` wide (a strip between a wall and an obstacle a rounding error off it, whose
    end merging collapsed). Dropping the tip cuts that sliver off; cutting again (after
    merging) shortens a longer spike down to nothing. A turn back outward is a crack (an
    obstacle that thin still blocks) unless an edge from the point crosses an edge of the
    outline: merging moved the tip across it (the sliver then twisted into a lobe, an island of
    its own; past the edge after the other neighbour, or, along a strip merged at both ends,
    past one further on). A ring that is all tips goes.
    """
    polys = shapely.get_parts(geom)
    polys = polys[~shapely.is_empty(polys)]
    coords, ring = shapely.get_coordinates(shapely.get_rings(polys), return_index=True)
    if not len(coords):
        return None
    last = np.r_[ring[1:] != ring[:-1], True]  # each ring's closing point
    p, ring = coords[~last], ring[~last]
    size = np.bincount(ring)  # points per ring, without the closing one
    start = np.repeat(np.cumsum(size) - size, size)
    k = np.arange(len(p)) - start
    prv, nxt = start + (k - 1) % size[ring], start + (k + 1) % size[ring]
    u, v = p[prv] - p, p[nxt] - p
    cross = u[:, 0] * v[:, 1] - u[:, 1] * v[:, 0]
    far = np.maximum(np.hypot(u[:, 0], u[:, 1]), np.hypot(v[:, 0], v[:, 1]))
    tip = ((u * v).sum(axis=1) > 0) & (np.abs(cross) <= tol * far)  # turning back (or a thin crack)
    if not tip.any():
        return None
    if fixed is not None:  # rows compared as complex numbers
        tip &= ~np.isin(p.view(np.complex128).ravel(), np.ascontiguousarray(fixed()).view(np.complex128).ravel())
    per_poly = shapely.get_num_interior_rings(polys) + 1  # rings per polygon, the outline first
    hole = np.ones(len(size), dtype=bool)
    hole[np.cumsum(per_poly) - per_poly] = False
    q = p - p[start]  # twice each ring's signed area, about its first point (no cancellation far out)
    area2 = np.bincount(ring, weights=q[:, 0] * q[nxt, 1] - q[nxt, 0] * q[:, 1])
    cross[((area2 > 0) == hole)[ring]] *= -1  # > 0: a turn round the polygon's outside
    outward = np.flatnonzero(tip & (cross > 0))
    if len(outward):  # a spike when an edge from the tip crosses any edge (of any ring)
        legs = np.stack([np.repeat(p[outward], 2, axis=0), p[np.stack([prv[outward], nxt[outward]], axis=1).ravel()]],
                        axis=1)
        tree = shapely.STRtree(np.asarray(shapely.linestrings(np.stack([p, p[nxt]], axis=1))))
        hit = np.zeros(2 * len(outward), dtype=bool)
        hit[tree.query(np.asarray(shapely.linestrings(legs)), predicate="crosses")[0]] = True
        tip[outward] = hit[0::2] | hit[1::2]
    if not tip.any():
        return None
    thin = np.bincount(ring, weights=tip, minlength=len(size)) == size
    cut = (tip & ~tip[prv]) | thin[ring]  # one of adjacent tips at a time
    kept = np.bincount(ring[~cut], minlength=len(size))
    ring_ok = kept >= 3
    ring_ok &= np.repeat(ring_ok[np.cumsum(per_poly) - per_poly], per_poly)  # no outline, no holes
    sel = ~cut & ring_ok[ring]
    q, r = p[sel], ring[sel]
    if not len(q):
        return shapely.Polygon()
    first = np.flatnonzero(np.r_[True, r[1:] != r[:-1]])
    closed = np.insert(q, np.r_[first[1:], len(q)], q[first], axis=0)
    rings_kept = np.bincount(np.repeat(np.arange(len(polys)), per_poly)[ring_ok], minlength=len(polys))
    rings_kept = rings_kept[rings_kept > 0]
    offsets = (np.r_[0, np.cumsum(kept[ring_ok] + 1)], np.r_[0, np.cumsum(rings_kept)], np.array([0, len(rings_kept)]))
    out: BaseGeometry = shapely.from_ragged_array(shapely.GeometryType.MULTIPOLYGON, closed, offsets)[0]
    return out


def _merged(free: BaseGeometry) -> BaseGeometry:
    """``free`` with outline points within the tolerance of its mesh merged (overlays leave
    some a rounding error apart; as two vertices, an edit whose region holds one of them
    would leave the edge on the other without its neighbour: a crack), and without the parts
    at most that wide everywhere (see :func:`_without_threads`)."""
    if free.is_empty:
        return free
    x0, y0, x1, y1 = free.bounds
    tol = mesh_tolerance(max(x1 - x0, y1 - y0), max(abs(x0), abs(y0), abs(x1), abs(y1)))
    return _without_threads(_polygonal(merge_points(free, tol)), tol)


def _without_threads(geom: BaseGeometry, tol: float) -> BaseGeometry:
    """Polygonal ``geom`` without the parts at most ``tol`` wide everywhere.

    Merging the outline points within ``tol`` collapses most such parts (a strip between a wall
    and obstacles a rounding error off it), not all: an edit's region may hold a corner of an
    earlier edit in it, far from any other point (the strip a triangle of height 1e-10), and a
    band between two obstacles, one in the other's hole, has its sides on two rings. Kept, such
    a part was an island of its own, onto which ``clamp`` snapped points (NO_PATH); builds and
    edits both drop them.
    """
    parts = shapely.get_parts(geom)
    thin = shapely.area(parts) < tol * shapely.length(parts)  # (area <= width * length / 2)
    if not thin.any():
        return geom
    thin[thin] = shapely.is_empty(shapely.buffer(parts[thin], -0.5 * tol))
    if not thin.any():
        return geom
    return shapely.MultiPolygon(list(parts[~thin]))  # the other parts as they were


def frame_origin(lo: npt.NDArray[np.float64], hi: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """An origin for overlays of geometry in the box ``lo``..``hi`` ``(2,)``: its centre rounded
    to a multiple of a power of two at least 64 times its extent (0 for a box about the origin).
    GEOS's overlays fall back to snapping with a tolerance of about the coordinates' magnitude /
    1e12, which far from the origin exceeds the mesh tolerance; about this origin magnitudes are
    those of the extent, and the box's points move there and back exactly (multiples of their
    float step within about their own magnitude of it)."""
    step = 2.0 ** math.ceil(math.log2(64 * float((hi - lo).max())))
    origin: npt.NDArray[np.float64] = np.round((lo + 0.5 * (hi - lo)) / step) * step
    return origin


def moved(geom: BaseGeometry, off: npt.NDArray[np.float64]) -> BaseGeometry:
    """``geom`` translated by ``off`` ``(2,)``."""
    if not off.any():
        return geom
    out: BaseGeometry = shapely.transform(geom, lambda p: p + off)
    return out


def free_space(walkable: Any, obstacles: Any = (), agent_radius: float = 0.0) -> BaseGeometry:
    """Repaired free space: ``walkable`` minus ``obstacles``, shrunk by ``agent_radius``.

    See :func:`_as_geometry` for the accepted inputs and :func:`_shrink` for how the radius is
    applied; parts with an area below float noise are dropped (:func:`_without_slivers`),
    outline points within the mesh tolerance merged and parts at most that wide everywhere
    dropped (:func:`_merged`).

    Raises:
        InvalidGeometryError: nothing walkable is left, the input is not polygonal, or has
            NaN / inf coordinates or coordinates outside ``[-MAX_COORDINATE, MAX_COORDINATE]``.
        InvalidInputError: ``agent_radius`` is not a number in ``[0, MAX_COORDINATE]``.
    """
    radius = agent_radius_value(agent_radius)
    free = _as_geometry(walkable, "walkable")
    blocked = _as_geometry(obstacles, "obstacles")
    with _geometry_errors("subtracting obstacles and agent_radius"):
        # the overlays about the walkable's centre (see frame_origin): a room at 1e12 kept a side
        # that its shrinking by the radius had snapped away, 226.3 of area where 221.2 was walkable
        origin = np.zeros(2) if free.is_empty else frame_origin(*np.reshape(free.bounds, (2, 2)))
        free, blocked = moved(free, -origin), moved(blocked, -origin)
        if not blocked.is_empty:
            free = _polygonal(shapely.difference(free, blocked))
        if radius > 0 and not free.is_empty:
            free = _shrink(free, radius)
        free = _merged(_without_slivers(moved(free, origin)))
    if free.is_empty:
        raise InvalidGeometryError(
            "no walkable area left (walkable is empty, covered by obstacles or narrower than "
            f"2 * agent_radius = {2 * radius})")
    return free


def _triangulate(verts: npt.NDArray[np.float64], segs: npt.NDArray[np.int64], opts: str) -> dict[str, Any]:
    """``triangle.triangulate`` of a planar straight-line graph, run on the vertices scaled by a
    power of two (exact) to at most 1 in size: its exact predicates underflow on coordinates
    below ~1e-80 (and it fails); the output vertices are scaled back. Scaled coordinates below
    2**-60 (1e-18 of the extent, far below the mesh tolerance) are taken as 0, and points that
    makes one are one: beside larger ones they underflowed in its predicates, and it looped
    for ever (a point at x = 2.7e-298 beside x = 0)."""
    exp = int(np.frexp(np.abs(verts).max(initial=0.0))[1])
    scaled = np.ldexp(verts, -exp)
    tiny = np.abs(scaled) < 2.0 ** -60
    if (tiny & (scaled != 0.0)).any():
        scaled[tiny] = 0.0
        scaled, inverse = np.unique(scaled, axis=0, return_inverse=True)
        segs = np.unique(np.sort(inverse.reshape(-1)[segs], axis=1), axis=0)
        segs = segs[segs[:, 0] != segs[:, 1]]
    out: dict[str, Any] = triangle.triangulate({"vertices": scaled, "segments": segs}, opts)
    out["vertices"] = np.ldexp(np.asarray(out["vertices"], dtype=np.float64), exp)
    return out


def triangulate_free_space(free: BaseGeometry) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.int64]]:
    """Constrained Delaunay triangulation of a polygonal free space.

    Returns:
        ``(V, 2)`` float64 vertices and ``(T, 3)`` int64 counter-clockwise triangles covering
        exactly ``free``. Boundary points shared by several rings (pinch points) become one
        vertex; the regions meeting there share no edge, so they stay disconnected.
    """
    rings = shapely.get_rings(shapely.get_parts(free))
    size = shapely.get_num_coordinates(rings).astype(np.int64)  # each with its closing point
    announce_compile("navmesh", ring_graph, inside_triangles)
    verts, segs = ring_graph(shapely.get_coordinates(rings), size)
    with _geometry_errors("triangulating the free space"):
        out = _triangulate(verts, segs, "pQn")
    v = np.asarray(out["vertices"], dtype=np.float64)
    t = np.asarray(out["triangles"], dtype=np.int64).reshape(-1, 3)
    inside, thin, ok = inside_triangles(v, t, np.asarray(out["neighbors"], dtype=np.int64).reshape(-1, 3),
                                        np.asarray(out["segments"], dtype=np.int64).reshape(-1, 2))
    check = thin if ok else np.ones(len(t), dtype=bool)  # not ok: cannot happen for valid geometry
    if check.any():
        centroids = v[t[check]].mean(axis=1)
        inside[check] = shapely.contains_xy(free, centroids[:, 0], centroids[:, 1])
    return v, t[inside]


def area_list(areas: Any) -> list[tuple[BaseGeometry, float]]:
    """``areas`` as ``[(valid polygonal geometry, cost), ...]``: each item a pair of a polygon
    (what :func:`free_space` accepts as ``walkable``) and a finite cost multiplier >= 1; areas
    whose shape has no area (empty, or flat rings) cover nothing and are left out.

    Raises:
        InvalidInputError: not a sequence of pairs, or a cost that is not a number in ``[1, 1e15]``.
        InvalidGeometryError: a shape that is not polygonal or has bad coordinates.
    """
    try:
        items = list(areas)
    except TypeError:
        raise InvalidInputError(f"areas must be a sequence of (polygon, cost) pairs, got "
                                f"{type(areas).__name__}") from None
    out = []
    for k, item in enumerate(items):
        if isinstance(item, BaseGeometry) or not isinstance(item, Sequence) or len(item) != 2:
            raise InvalidInputError(f"areas[{k}] must be a (polygon, cost) pair, got {shown(item)}")
        cost = real_number(item[1], f"areas[{k}] cost", "a finite number >= 1")
        if not 1.0 <= cost <= MAX_COORDINATE:
            raise InvalidInputError(f"areas[{k}] cost must be a finite number >= 1, got {shown(item[1])}")
        geom = _as_geometry(item[0], f"areas[{k}]")
        if not geom.is_empty:
            out.append((geom, cost))
    return out


def triangulate_areas(free: BaseGeometry, areas: list[tuple[BaseGeometry, float]]
                      ) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.int64], npt.NDArray[np.float64]]:
    """Like :func:`triangulate_free_space`, with the area boundaries (inside ``free``) as
    constraints too, so that every triangle lies in one area; returns ``(V, 2)`` vertices,
    ``(T, 3)`` triangles and ``(T,)`` float64 cost multipliers (1 outside every area; where areas
    overlap, the later one wins).
    """
    with _geometry_errors("triangulating the areas"):
        lines = [shapely.boundary(free)]
        lines += [shapely.intersection(shapely.boundary(g), free) for g, _ in areas]
        noded = shapely.union_all([ln for ln in lines if not ln.is_empty])
        parts = shapely.get_parts(shapely.line_merge(noded)) if noded.geom_type != "LineString" else [noded]
        parts = [p for p in shapely.get_parts(parts) if p.geom_type in ("LineString", "LinearRing")]
        coords, idx = shapely.get_coordinates(parts, return_index=True)
        verts, inverse = np.unique(coords, axis=0, return_inverse=True)
        inverse = inverse.ravel()
        same = idx[1:] == idx[:-1]
        segs = np.stack([inverse[:-1][same], inverse[1:][same]], axis=1)
        segs = segs[segs[:, 0] != segs[:, 1]]
        out = _triangulate(verts, segs, "pQ")
    v = np.asarray(out["vertices"], dtype=np.float64)
    t = np.asarray(out["triangles"], dtype=np.int64).reshape(-1, 3)
    c = v[t].mean(axis=1)
    shapely.prepare(free)
    inside = shapely.contains_xy(free, c[:, 0], c[:, 1])
    t, c = t[inside], c[inside]
    costs = np.ones(len(t))
    for geom, cost in areas:
        shapely.prepare(geom)
        costs[shapely.contains_xy(geom, c[:, 0], c[:, 1])] = cost
    return v, t, costs


def _runs(code: npt.NDArray[Any]) -> tuple[npt.NDArray[np.intp], npt.NDArray[np.intp], npt.NDArray[np.intp]]:
    """Maximal runs of equal non-zero values along the rows of ``code``: (row, first, last)."""
    pad = np.zeros((code.shape[0], code.shape[1] + 2), dtype=code.dtype)
    pad[:, 1:-1] = code
    mid = pad[:, 1:-1]
    starts = (mid != 0) & (mid != pad[:, :-2])
    ends = (mid != 0) & (mid != pad[:, 2:])
    row, first = np.nonzero(starts)
    _, last = np.nonzero(ends)
    return row, first, last


def grid_frame(grid: Any) -> tuple[float, float, float, bool]:
    """``(cell_size, origin_x, origin_y, y_up)``: a TileGrid's own transform, as its
    ``cell_to_world`` and searches use it (a subclass may override the properties)."""
    return float(grid._cell_size), float(grid._origin[0]), float(grid._origin[1]), bool(grid._y_up)


def grid_triangulation(passable: npt.NDArray[np.bool_], cell_size: float, origin: Sequence[float],
                       y_up: bool, classes: npt.NDArray[np.int64] | None = None
                       ) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.int64]]:
    """Constrained Delaunay triangulation of the passable cells of a ``(h, w)`` ``[y, x]`` mask.

    The boundary between passable and blocked cells is cut into maximal straight segments (in
    exact cell units), triangulated with ``triangle``, and triangles are kept when their centroid
    lies in a passable cell; then vertices are mapped to world coordinates. With ``classes``
    (``(h, w)`` int, > 0 on passable cells), boundaries between cells of different classes are
    constraints too (each triangle lies in cells of one class). Cells that touch only
    at a corner share a vertex but no edge, so they stay disconnected.

    Returns:
        ``(V, 2)`` float64 world vertices and ``(T, 3)`` int64 triangles (``(0, 3)`` if none).
    """
    h, w = passable.shape
    pp = np.zeros((h + 2, w + 2), dtype=np.int64)
    pp[1:-1, 1:-1] = passable if classes is None else np.where(passable, classes, 0)
    k = int(pp.max()) + 1
    # grid lines: a run continues while the classes on both sides stay the same
    hcode = (pp[:-1, 1:-1] != pp[1:, 1:-1]) * (1 + pp[:-1, 1:-1] * k + pp[1:, 1:-1])
    hy, hx0, hx1 = _runs(hcode)
    vcode = ((pp[1:-1, :-1] != pp[1:-1, 1:]) * (1 + pp[1:-1, :-1] * k + pp[1:-1, 1:])).T
    vx, vy0, vy1 = _runs(vcode)
    ends = np.concatenate([np.stack([hx0, hy, hx1 + 1, hy], axis=1),
                           np.stack([vx, vy0, vx, vy1 + 1], axis=1)]).astype(np.int64)
    if len(ends) == 0:
        return np.zeros((0, 2)), np.zeros((0, 3), dtype=np.int64)
    keys = np.concatenate([ends[:, 1] * (w + 1) + ends[:, 0], ends[:, 3] * (w + 1) + ends[:, 2]])
    uniq, inverse = np.unique(keys, return_inverse=True)
    verts = np.stack([uniq % (w + 1), uniq // (w + 1)], axis=1).astype(np.float64)
    segs = inverse.reshape(2, -1).T
    with _geometry_errors("triangulating the grid's passable cells"):
        out = triangle.triangulate({"vertices": verts, "segments": segs}, "pQ")
    v = np.asarray(out["vertices"], dtype=np.float64)
    t = np.asarray(out["triangles"], dtype=np.int64).reshape(-1, 3)
    c = v[t].mean(axis=1)
    cx = np.clip(np.floor(c[:, 0]).astype(np.int64), 0, w - 1)
    cy = np.clip(np.floor(c[:, 1]).astype(np.int64), 0, h - 1)
    t = t[passable[cy, cx]]
    cs = float(cell_size)
    world = np.empty_like(v)
    world[:, 0] = float(origin[0]) + v[:, 0] * cs
    world[:, 1] = float(origin[1]) + ((h - v[:, 1]) if y_up else v[:, 1]) * cs
    return world, t


def convex_ring(pts: npt.NDArray[np.float64], ids: Sequence[int],
                name: str) -> tuple[list[int], npt.NDArray[np.float64], float, float]:
    """Check that the polygon ``pts`` ``(n, 2)`` (vertex ``ids``, named in messages as ``name``)
    is convex in either orientation; 180-degree corners are allowed, and so are a corner's copies
    within a rounding error of it (turning by no more than that, in any direction).

    Returns:
        ``(ids, pts, area, eps)`` counter-clockwise (a clockwise polygon reversed), its area and
        the rounding tolerance of areas at its scale and position (``area <= eps``: a flat
        polygon).

    Raises:
        InvalidGeometryError: a reflex corner, a ring turning more than once around (a star) or
            a point given twice (under another vertex id).
    """
    ids = list(ids)
    scale = float(np.ptp(pts, axis=0).max()) or 1.0
    # (far from the origin, points computed on a line, 180-degree corners, are float steps off it)
    eps = max(1e-12 * scale, 4 * float(np.spacing(np.abs(pts).max()))) * scale
    # about a corner: products of absolute coordinates cancel
    rel, rel_nxt = pts - pts[0], np.roll(pts, -1, axis=0) - pts[0]
    area = 0.5 * float(np.sum(rel[:, 0] * rel_nxt[:, 1] - rel_nxt[:, 0] * rel[:, 1]))
    if area < 0:  # clockwise: taken the other way round
        ids, pts, area = ids[::-1], pts[::-1], -area
    nxt = np.roll(pts, -1, axis=0)
    prv = np.roll(pts, 1, axis=0)
    turns: npt.NDArray[np.float64] = ((pts[:, 0] - prv[:, 0]) * (nxt[:, 1] - pts[:, 1])
                                      - (pts[:, 1] - prv[:, 1]) * (nxt[:, 0] - pts[:, 0]))
    if area <= eps:
        if (turns < -eps).any():
            raise InvalidGeometryError(f"{name} must be convex, got signed area {area:.6g}")
        return ids, pts, area, eps
    if (turns < -eps).any():
        raise InvalidGeometryError(
            f"{name} must be convex, got a reflex corner at vertex {ids[int(np.argmin(turns))]}")
    # the turns between edges, but for those of a corner's copy a rounding error away (merged by
    # NavMesh.from_mesh), which may lie in any direction from it: edges under 1e-9 of the scale
    # turning by no more than the rounding at both ends
    edge = nxt - pts
    length = np.hypot(edge[:, 0], edge[:, 1])
    flat = np.abs(turns) <= eps
    e = edge[(length > 1e-9 * scale) | ~(flat & np.roll(flat, -1))]
    ep = np.roll(e, 1, axis=0)
    winding = float(np.arctan2(ep[:, 0] * e[:, 1] - ep[:, 1] * e[:, 0],
                               ep[:, 0] * e[:, 0] + ep[:, 1] * e[:, 1]).sum()) / (2.0 * math.pi)
    if abs(winding - 1.0) > 1e-6 or not length.all():  # left turns only, yet not once around: a star
        if len(np.unique(pts, axis=0)) < len(ids):  # or a point given twice
            raise InvalidGeometryError(f"{name} repeats a point (under another vertex id): {ids}")
        raise InvalidGeometryError(f"{name} must be convex, got a ring that turns {winding:.6g} times around")
    return ids, pts, area, eps


def triangulate_convex(vertices: npt.NDArray[np.float64],
                       polygons: Iterable[npt.ArrayLike]) -> npt.NDArray[np.int64]:
    """Split convex polygons into counter-clockwise triangles without zero-area pieces.

    Either orientation: a clockwise polygon is taken the other way round (as :class:`~gamenav.NavMesh`
    takes triangles). Collinear (180-degree) corners are allowed: ears are clipped only at
    strictly convex corners and never so that the rest becomes flat; a rest with no such ear (its
    corners have copies a rounding error away) is cut as a fan (see :func:`_fan`). Zero-area
    polygons are dropped.

    Raises:
        InvalidGeometryError: a polygon is not convex, or repeats a vertex (see :func:`convex_ring`).
    """
    out: list[tuple[int, int, int]] = []
    for k, poly in enumerate(polygons):
        ids = [int(i) for i in np.asarray(poly, dtype=np.int64).ravel()]
        if len(ids) < 3:
            raise InvalidGeometryError(f"polygon {k} must have at least 3 vertices, got {len(ids)}")
        if len(set(ids)) != len(ids):
            raise InvalidGeometryError(f"polygon {k} repeats a vertex: {ids}")
        ids, pts, area, eps = convex_ring(vertices[ids], ids, f"polygon {k}")
        if area <= eps:
            continue
        n = len(ids)
        if n == 3:
            out.append((ids[0], ids[1], ids[2]))
            continue
        ring = list(range(n))
        while len(ring) > 3 and (found := _ear(pts, ring, area, eps)) is not None:
            i, ear = found
            out.append((ids[ring[i - 1]], ids[ring[i]], ids[ring[(i + 1) % len(ring)]]))
            area -= 0.5 * ear
            del ring[i]
        if len(ring) == 3:
            out.append((ids[ring[0]], ids[ring[1]], ids[ring[2]]))
        else:  # no ear to clip: corners with copies a rounding error away
            out += _fan(pts[ring], [ids[i] for i in ring], eps)
    return np.array(out, dtype=np.int64).reshape(-1, 3)


def _ear(pts: npt.NDArray[np.float64], ring: list[int], area: float,
         eps: float) -> tuple[int, float] | None:
    """The first strictly convex corner (its position in ``ring``, indices of the convex polygon
    ``pts`` counter-clockwise, of ``area`` > ``eps``) whose ear (twice its area, > ``eps``) can be
    clipped leaving a rest with area, or None: a triangle, or a ring whose every corner has a
    neighbour a rounding error away (or beside it, on a line)."""
    m = len(ring)
    for i in range(m):
        a, b, c = ring[i - 1], ring[i], ring[(i + 1) % m]
        ear = float((pts[b, 0] - pts[a, 0]) * (pts[c, 1] - pts[b, 1])
                    - (pts[b, 1] - pts[a, 1]) * (pts[c, 0] - pts[b, 0]))
        if ear > eps and area - 0.5 * ear > eps:
            return i, ear
    return None


def _fan(pts: npt.NDArray[np.float64], ids: list[int], eps: float) -> list[tuple[int, int, int]]:
    """The convex polygon ``pts`` (vertex ``ids``, counter-clockwise) as a fan of triangles from
    its sharpest corner (of the largest ear: neither a corner's copy nor on a line with its
    neighbours, so that no triangle of the fan runs along a line through it), without the
    triangles of area within the rounding (``eps``): they lie along an edge of the fan, and
    :meth:`~gamenav.NavMesh.from_mesh` merges their points with its ends or splits it there."""
    prv, nxt = np.roll(pts, 1, axis=0), np.roll(pts, -1, axis=0)
    ears: npt.NDArray[np.float64] = ((pts[:, 0] - prv[:, 0]) * (nxt[:, 1] - pts[:, 1])
                                     - (pts[:, 1] - prv[:, 1]) * (nxt[:, 0] - pts[:, 0]))
    k = int(np.argmax(ears))
    rel = np.roll(pts, -k, axis=0)[1:] - pts[k]
    turn = rel[:-1, 0] * rel[1:, 1] - rel[:-1, 1] * rel[1:, 0]
    ring = ids[k:] + ids[:k]
    return [(ring[0], ring[j + 1], ring[j + 2]) for j in np.flatnonzero(turn > eps).tolist()]
