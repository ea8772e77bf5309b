"""NavMesh: an immutable triangle mesh of the free space, with point location and raycasts.

All coordinates are world ``(x, y)``. Triangles are counter-clockwise; ``neighbours[t, j]`` is
the triangle across edge ``(triangles[t, j], triangles[t, (j + 1) % 3])`` or -1 on the border.
Triangles are connected only through shared edges: regions that touch at a single point
(pinch points) are not connected.
"""

from __future__ import annotations

import itertools
import math
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np
import numpy.typing as npt
import shapely

from gamenav._arrays import frozen
from gamenav._events import Closes, CopyState, Listeners, Unsubscribe, added_state, no_waits, without
from gamenav._kernels import announce_compile
from gamenav._kernels.navmesh import dual_graph, locate_points, nearest_points, raycast_walk
from gamenav._validate import finite_point, flag, float_numbers, holds_bool, is_int, shown
from gamenav.errors import InvalidGeometryError, InvalidInputError
from gamenav.navmesh.build import (MAX_COORDINATE, MIN_EDGE, agent_radius_value, area_list, free_space,
                                   grid_frame, grid_triangulation, mesh_tolerance, triangulate_areas,
                                   triangulate_convex, triangulate_free_space)

if TYPE_CHECKING:
    from shapely.geometry.base import BaseGeometry

    from gamenav.grid.tilegrid import TileGrid
    from gamenav.navmesh.dynamic import EditState, NavMeshChange

__all__ = ["NavMesh", "RaycastHit"]

_versions = itertools.count(1)

MIN_CELL = 1e-98
"""The narrowest grid cells :meth:`NavMesh.from_grid` takes (1e-98): a hundred times the smallest
tolerance, so that points within the tolerance of a cell's side stay far from its middle."""


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


_PAIRS = (tuple, list)
_PLAIN = (float, int)  # (not bool, nor numpy scalars: those take the general path)


def _plain_point(value: Any) -> bool:
    """Whether ``value`` is a tuple or list of two plain floats or ints within
    ``MAX_COORDINATE`` (the common case, checked in plain Python: no NaN, inf or bool; ints this
    small convert to float64 exactly). Anything else takes the general numpy checks."""
    if type(value) not in _PAIRS or len(value) != 2:
        return False
    x, y = value
    return type(x) in _PLAIN and type(y) in _PLAIN and -MAX_COORDINATE <= x <= MAX_COORDINATE \
        and -MAX_COORDINATE <= y <= MAX_COORDINATE


def _check_range(p: npt.NDArray[np.float64], name: str) -> None:
    """Reject coordinates outside ``[-MAX_COORDINATE, MAX_COORDINATE]`` (``p`` is finite)."""
    if p.size and np.abs(p).max() > MAX_COORDINATE:
        raise InvalidInputError(
            f"{name} must lie in [-{MAX_COORDINATE:g}, {MAX_COORDINATE:g}], got "
            f"{float(p.flat[np.argmax(np.abs(p))]):g}")


def points_array(points: Any, name: str = "points") -> npt.NDArray[np.float64]:
    """``(n, 2)`` float64 finite points from a ``(2,)`` or ``(n, 2)`` array-like of numbers.

    Raises:
        InvalidInputError: another shape, non-numbers (bools too, also mixed with numbers),
            NaN / inf, or a coordinate outside ``[-MAX_COORDINATE, MAX_COORDINATE]``.
    """
    if _plain_point(points):
        return np.array([points], dtype=np.float64)
    p = float_numbers(points, ndmin=2)
    if p is None:
        raise InvalidInputError(f"{name} must be (x, y) numbers, got {shown(points)}")
    if p.ndim != 2 or p.shape[1] != 2:
        raise InvalidInputError(f"{name} must have shape (2,) or (n, 2), got {np.shape(points)}")
    if not np.isfinite(p).all():
        raise InvalidInputError(f"{name} must be finite, got {shown(points)}")
    _check_range(p, name)
    return p


def world_point(value: Any, name: str) -> npt.NDArray[np.float64]:
    """One finite ``(2,)`` float64 world ``(x, y)`` within ``MAX_COORDINATE``."""
    if _plain_point(value):
        return np.array(value, dtype=np.float64)
    p = finite_point(value, name)
    _check_range(p, name)
    return p


def _vertex_array(values: Any) -> npt.NDArray[np.float64]:
    """``(V, 2)`` float64 finite in-range vertices (a copy)."""
    verts = float_numbers(values)
    if verts is None:
        raise InvalidInputError(f"vertices must be a (V, 2) array of numbers (no bools), got "
                                f"{type(values).__name__}")
    if verts.ndim != 2 or verts.shape[1] != 2:
        raise InvalidInputError(f"vertices must have shape (V, 2), got {verts.shape}")
    if not np.isfinite(verts).all():
        raise InvalidInputError("vertices must be finite (got NaN or inf)")
    _check_range(verts, "vertices")
    return verts


def _id_array(values: Any, name: str, n_vertices: int) -> npt.NDArray[np.int64]:
    """int64 vertex ids in ``0..n_vertices - 1`` (a copy); floats must be whole numbers."""
    try:
        raw = np.asarray(values)
    except (TypeError, ValueError):
        raw = np.asarray(None)
    mixed = holds_bool(values)  # numpy reads (0, True, 2) as ints
    ok = not mixed and (raw.dtype.kind in "iu" or (raw.dtype.kind == "f" and bool(
        np.all(np.isfinite(raw) & (raw == np.round(raw)) & (np.abs(raw) < 2.0**62)))))
    if not ok:
        got = ("bool values" if mixed else "non-integer or non-finite numbers" if raw.dtype.kind == "f"
               else f"{raw.dtype} values")
        raise InvalidInputError(f"{name} must hold integer vertex ids, got {got}")
    ids = raw.astype(np.int64)
    if ids.size and (raw.min() < 0 or raw.max() >= n_vertices):
        raise InvalidInputError(f"{name} has vertex ids outside 0..{n_vertices - 1}: got "
                                f"{raw.min()}..{raw.max()}")
    return ids


def _first_copies(verts: npt.NDArray[np.float64]) -> npt.NDArray[np.int64]:
    """``(V,)`` int64: for each of the ``(V, 2)`` vertices, the first id with exactly the same
    coordinates (its own when it has no earlier copy; -0.0 equals 0.0)."""
    xy = np.ascontiguousarray(verts).view(np.complex128).ravel()  # sorts by x, then y
    order = np.argsort(xy, kind="stable")  # each run of copies in id order
    s = xy[order]
    new = np.ones(len(s), dtype=bool)
    new[1:] = s[1:] != s[:-1]
    first = np.empty(len(verts), dtype=np.int64)
    first[order] = order[new][np.cumsum(new) - 1]
    return first


def _area_costs(values: Any, n: int) -> npt.NDArray[np.float64]:
    """``(n,)`` float64 cost multipliers in ``[1, MAX_COORDINATE]`` (ones for None; a copy)."""
    if values is None:
        return np.ones(n)
    costs = float_numbers(values)
    if costs is None or costs.shape != (n,):
        raise InvalidInputError(f"area_costs must be a ({n},) array of numbers (one per triangle), "
                                f"got {getattr(costs, 'shape', type(values).__name__)}")
    if not (np.isfinite(costs) & (costs >= 1.0) & (costs <= MAX_COORDINATE)).all():
        raise InvalidInputError(f"area_costs must be finite numbers >= 1, got {costs.min()}..{costs.max()}")
    return costs



def _area2(p: npt.NDArray[np.float64], edge2: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """Twice the signed areas of triangles ``p`` ``(T, 3, 2)`` (``edge2``: squared lengths of
    their edges ``v_j -> v_{j+1}``), from the two edges at the corner opposite the longest one:
    the smallest rounding, so that a thin triangle (a sliver of ``triangle``'s output between
    points 1e-16 apart) keeps its sign instead of rounding to zero area and being dropped,
    which would leave a crack between its neighbours."""
    k = (np.argmax(edge2, axis=1) + 2) % 3  # the corner opposite the longest edge
    rows = np.arange(len(p))
    o, a, b = p[rows, k], p[rows, (k + 1) % 3], p[rows, (k + 2) % 3]
    area2: npt.NDArray[np.float64] = ((a[:, 0] - o[:, 0]) * (b[:, 1] - o[:, 1])
                                      - (a[:, 1] - o[:, 1]) * (b[:, 0] - o[:, 0]))
    return area2


def box_cells(lo: npt.NDArray[np.int64], hi: npt.NDArray[np.int64],
              nx: int) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """The bucket cells of ``(n, 2)`` inclusive cell boxes ``lo..hi`` on a grid ``nx`` cells wide:
    flat cell indices ``y * nx + x`` and, for each, the index of its box (vectorised, no loop)."""
    wx = hi[:, 0] - lo[:, 0] + 1
    counts = wx * (hi[:, 1] - lo[:, 1] + 1)
    owner = np.repeat(np.arange(len(lo)), counts)
    k = np.arange(len(owner)) - np.repeat(np.cumsum(counts) - counts, counts)
    w = wx[owner]
    cells: npt.NDArray[np.int64] = (lo[owner, 1] + k // w) * nx + lo[owner, 0] + k % w
    return cells, owner

def _polygon_ids(verts: npt.NDArray[np.float64], polygons: Any) -> list[npt.NDArray[np.int64]]:
    """:meth:`NavMesh.from_mesh`'s ``polygons``: 1-D int64 vertex-id arrays (checked; the rows
    of a ``(P, 3)`` array as they are)."""
    if isinstance(polygons, np.ndarray) and polygons.ndim == 2 and polygons.shape[1] == 3:
        return list(_id_array(polygons, "polygons", len(verts)))
    try:
        items = list(polygons)
    except TypeError:
        raise InvalidInputError(f"polygons must be a sequence of vertex-id sequences, got "
                                f"{type(polygons).__name__}") from None
    polys = [_id_array(p, f"polygon {k}", len(verts)) for k, p in enumerate(items)]
    for k, p in enumerate(polys):
        if p.ndim != 1:
            raise InvalidInputError(f"polygon {k} must be a 1-D sequence of vertex ids, got shape "
                                    f"{p.shape}")
    return polys


def copy_roots(verts: npt.NDArray[np.float64], used: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    """``(V,)`` int64: for each of the ``(V, 2)`` vertices, the lowest id of its copies: those
    with the same coordinates and, among the ``used`` ids, those within twice the tolerance
    (1e-9 of their extent) of one another, in chains (copies of a point, each within the
    tolerance of it, lie up to twice that apart)."""
    root = _first_copies(verts)
    ids = np.unique(root[used])
    if len(ids) < 2:
        return root
    p = verts[ids]
    reach = 2 * mesh_tolerance(float(np.ptp(p, axis=0).max()), 0.0)
    points = np.asarray(shapely.points(p))
    i, j = shapely.STRtree(points).query(points, predicate="dwithin", distance=reach)
    i, j = ids[i[i < j]], ids[j[i < j]]
    while (root[i] != root[j]).any():  # each group's id under the lowest next to it, then every id its group's
        np.minimum.at(root, np.maximum(root[i], root[j]), np.minimum(root[i], root[j]))
        while (root[root] != root).any():  # (pointer jumping: a chain of n copies takes O(log n) passes, not n)
            root = root[root]
    return root


def face_firsts(verts: npt.NDArray[np.float64], polys: list[npt.NDArray[np.int64]]
                ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """The copy roots of the ``(V, 2)`` vertices over the corners of ``polys`` (1-D vertex-id
    arrays; see :func:`copy_roots`), and for each polygon the index of the first one with the
    same corners up to copies, as a set (itself when none comes before): sorted by polygon and
    root, polygons with as many corners compared as rows (no Python work per polygon)."""
    flat = np.concatenate([np.zeros(0, np.int64), *polys])
    root = copy_roots(verts, flat)
    owner = np.repeat(np.arange(len(polys)), np.fromiter(map(len, polys), np.int64, len(polys)))
    corner = root[flat]
    order = np.lexsort((corner, owner))
    corner, owner = corner[order], owner[order]
    once = np.ones(len(corner), bool)  # (each corner once a polygon)
    once[1:] = (corner[1:] != corner[:-1]) | (owner[1:] != owner[:-1])
    corner, owner = corner[once], owner[once]
    size = np.bincount(owner, minlength=len(polys))
    first = np.arange(len(polys))
    for n in np.unique(size[size > 0]).tolist():  # (a polygon of no corners is refused later)
        ids = np.flatnonzero(size == n)
        _, where, inverse = np.unique(corner[np.isin(owner, ids)].reshape(-1, n), axis=0, return_index=True,
                                      return_inverse=True)
        first[ids] = ids[where[inverse.ravel()]]
    return root, first


def _merged_triangles(verts: npt.NDArray[np.float64], polygons: Any) -> npt.NDArray[np.int64]:
    """:meth:`NavMesh.from_mesh`'s ``polygons`` as triangles on the vertices' copy roots (see
    :func:`copy_roots`): each polygon once (one given again, up to copies, is the same face),
    cut on its own coordinates, without the slivers that merging copies turned over (thinner
    than the copies were apart: taken the other way round, one would lie over its neighbour)."""
    polys = _polygon_ids(verts, polygons)
    root, first = face_firsts(verts, polys)
    polys = [polys[k] for k in np.flatnonzero(first == np.arange(len(polys))).tolist()]  # (the first of repeats)
    tris = (np.array(polys, dtype=np.int64).reshape(-1, 3) if all(len(p) == 3 for p in polys)
            else triangulate_convex(verts, polys))
    merged = root[tris]
    before, after = verts[tris], verts[merged]
    same = (np.sign(_area2(before, ((before - np.roll(before, -1, axis=1)) ** 2).sum(axis=2)))
            == np.sign(_area2(after, ((after - np.roll(after, -1, axis=1)) ** 2).sum(axis=2))))
    result: npt.NDArray[np.int64] = merged[same]
    return result


def _fan(tri: tuple[int, int, int], chains: dict[tuple[int, int], list[int]]) -> list[tuple[int, int, int]]:
    """Triangle ``tri`` split so that each of its edges ``(u, v)`` with vertices
    ``chains[(u, v)]`` lying inside it (in order from ``u``; ``chains`` holds no other edge)
    becomes edges through them: fans from the opposite corners, one edge after the other."""
    for j in range(3):
        a, b, c = tri[j], tri[(j + 1) % 3], tri[(j + 2) % 3]
        inner = chains.get((a, b))
        if inner:
            ring = [a, *inner, b]
            rest = {edge: ids for edge, ids in chains.items() if edge != (a, b)}
            return [piece for u, v in itertools.pairwise(ring) for piece in _fan((u, v, c), rest)]
    return [tri]


def _stitch(mesh: NavMesh) -> npt.NDArray[np.int64] | None:
    """``mesh``'s triangles with its border edges split at the border vertices within twice the
    tolerance (1e-9 of the mesh's extent) of them, farther from their ends (T-junctions: another
    polygon's vertex in the middle of an edge, both a rounding error off), or None when there is
    none (copies of a point are merged before, see :func:`copy_roots`)."""
    verts, edges, owner = mesh._vertices, mesh._border_edges, mesh._border_tri
    a, b = edges[:, 0], edges[:, 1]
    lo, hi = np.minimum(verts[a], verts[b]), np.maximum(verts[a], verts[b])
    gmin = np.array([lo[:, 0].min(), lo[:, 1].min()])  # (columns: axis reductions are slow)
    top = np.array([hi[:, 0].max(), hi[:, 1].max()])
    extent = float((top - gmin).max())
    # the tolerance without its floor of float steps far from the origin (the same answer
    # wherever the mesh lies), twice: the vertex and the edge may each be that far off
    tol = 2 * mesh_tolerance(extent, 0.0)
    # each corner against the border edges near it: edges in classes by size (powers of 2, at
    # least 2**-20 of the extent), each class on a bucket grid of cells of its size, so that
    # a box meets few cells and a cell few edges, on meshes of any mix of scales
    size = np.maximum(hi[:, 0] - lo[:, 0], hi[:, 1] - lo[:, 1])
    scale = np.ceil(np.log2(np.maximum(size, extent / 2**20)))
    lo, hi, gmin = lo - tol, hi + tol, gmin - tol
    corner = np.flatnonzero(mesh._corner)
    spot = verts[corner] - gmin
    buckets = []
    for k in np.unique(scale).tolist():
        cell = 2.0**k
        nx = int((top[0] + tol - gmin[0]) // cell) + 1
        ids = np.flatnonzero(scale == k)
        cells, edge = box_cells(np.floor((lo[ids] - gmin) / cell).astype(np.int64),
                                np.floor((hi[ids] - gmin) / cell).astype(np.int64), nx)
        order = np.argsort(cells)
        cells, edge = cells[order], ids[edge[order]]
        at = np.floor(spot / cell).astype(np.int64)
        at = at[:, 1] * nx + at[:, 0]
        begin, end = np.searchsorted(cells, at), np.searchsorted(cells, at, side="right")
        buckets.append((edge, end, end - begin))
    if sum(int(count.sum()) for _, _, count in buckets) <= 32 * (len(corner) + len(edges)):
        vertex = np.concatenate([np.repeat(corner, count) for _, _, count in buckets])
        edge = np.concatenate([edge[np.repeat(end - np.cumsum(count), count) + np.arange(count.sum())]
                               for edge, end, count in buckets])
    else:  # many long edges side by side (a comb of thin strips): GEOS's R-tree, in C
        tree = shapely.STRtree(np.asarray(shapely.linestrings(verts[edges] - gmin)))
        found, edge = tree.query(shapely.points(spot), predicate="dwithin", distance=tol)
        vertex = corner[found]
    a, b = a[edge], b[edge]
    d, m = verts[b] - verts[a], verts[vertex] - verts[a]
    length = np.hypot(d[:, 0], d[:, 1])
    along = (m[:, 0] * d[:, 0] + m[:, 1] * d[:, 1]) / length
    off = np.abs(d[:, 0] * m[:, 1] - d[:, 1] * m[:, 0]) / length
    # the corner facing each edge, opposite: splitting there, both pieces must turn left (a
    # vertex beside the edge inside a sliver is its neighbour's corner, not a T-junction)
    c = verts[mesh._triangles[owner[edge]].sum(axis=1) - a - b] - verts[a]
    left = (m[:, 0] * c[:, 1] - m[:, 1] * c[:, 0] > 0) & (
        (d[:, 0] - m[:, 0]) * (c[:, 1] - m[:, 1]) - (d[:, 1] - m[:, 1]) * (c[:, 0] - m[:, 0]) > 0)
    hit = (off <= tol) & (along > tol) & (along < length - tol) & left
    if not hit.any():
        return None
    chains: dict[tuple[int, int], list[int]] = {}
    for k in np.flatnonzero(hit)[np.lexsort((along[hit], edge[hit]))].tolist():
        chain = chains.setdefault((int(a[k]), int(b[k])), [])
        chain.append(int(vertex[k]))
    tris = mesh._triangles
    split = np.unique(owner[edge[hit]])
    pieces = []
    for t in tris[split].tolist():
        own = {(u, v): chains[u, v] for u, v in itertools.pairwise(t + t[:1]) if (u, v) in chains}
        pieces += _fan((t[0], t[1], t[2]), own)
    stitched: npt.NDArray[np.int64] = np.concatenate([np.delete(tris, split, axis=0),
                                                      np.array(pieces, dtype=np.int64).reshape(-1, 3)])
    return stitched


class NavMesh(Closes):
    """A triangulated walkable area (immutable numpy arrays).

    Build one with :meth:`from_polygons`, :meth:`from_grid` or :meth:`from_mesh`; search it
    with :func:`gamenav.find_path`. Every mesh gets a unique :attr:`version` so caches can key on it.

    Args:
        vertices: ``(V, 2)`` finite world ``(x, y)`` numbers within ``[-MAX_COORDINATE,
            MAX_COORDINATE]`` (1e15).
        triangles: ``(T, 3)`` integer vertex ids in ``0..V - 1``; any orientation (stored
            counter-clockwise); degenerate triangles (zero area, or an edge shorter than
            :data:`MIN_EDGE`) are dropped. Vertices with exactly the same coordinates are one
            vertex (as exported by OBJ / glTF, or with a vertex list per face): :attr:`triangles`
            name the first of them, the other copies stay in :attr:`vertices` unused, so
            triangles meeting along an edge are neighbours whatever ids they use (only along
            a whole edge: :meth:`from_mesh` also splits edges at T-junctions).
        area_costs: ``(T,)`` cost multipliers (finite, >= 1) of the triangles, or None (all 1).

    Raises:
        InvalidInputError: arrays of another shape or dtype, NaN / inf / out-of-range
            coordinates, ids out of range (checked before any kernel sees the arrays).
        InvalidGeometryError: no triangle is left.

    The arrays are copied and read-only; pickling and copying rebuild the mesh from them (with
    the same checks) and keep them read-only. Every method that takes world points accepts
    finite coordinates within ``MAX_COORDINATE`` and raises InvalidInputError for others.
    The :attr:`tolerance` is relative to the mesh's extent, so meshes of any size behave alike.

    :meth:`close` (or leaving a ``with`` block) ends the mesh's edits: it stops following its
    grid (see :meth:`from_grid`), and :meth:`add_obstacle`, :meth:`remove_obstacle` and
    :meth:`compact` raise InvalidInputError afterwards; queries and listeners keep working on
    the mesh as it is. A copy or pickle of a closed mesh is open (and follows no grid).

    Example:
        >>> import gamenav
        >>> mesh = gamenav.NavMesh.from_polygons([[(0, 0), (10, 0), (10, 10), (0, 10)]],
        ...                                      obstacles=[[(4, -1), (6, -1), (6, 8), (4, 8)]])
        >>> path = gamenav.find_path(mesh, (1, 1), (9, 1))
        >>> [tuple(map(float, p)) for p in path.points]
        [(1.0, 1.0), (4.0, 8.0), (6.0, 8.0), (9.0, 1.0)]
    """

    def __init__(self, vertices: npt.ArrayLike, triangles: npt.ArrayLike,
                 area_costs: npt.ArrayLike | None = None) -> None:
        verts = _vertex_array(vertices)
        tris = _id_array(triangles, "triangles", len(verts))
        if tris.ndim != 2 or tris.shape[1] != 3:
            raise InvalidInputError(f"triangles must have shape (T, 3), got {tris.shape}")
        tris = _first_copies(verts)[tris]  # copies of a vertex are one vertex (shared edges, corners)
        p = verts[tris]
        edge2 = ((p - np.roll(p, -1, axis=1)) ** 2).sum(axis=2)
        area2 = _area2(p, edge2)
        keep = (area2 != 0) & (edge2 >= MIN_EDGE * MIN_EDGE).all(axis=1)
        tris = tris[keep]
        costs = _area_costs(area_costs, len(keep))[keep]
        flip = area2[keep] < 0
        tris[flip] = tris[flip][:, ::-1]
        if len(tris) == 0:
            raise InvalidGeometryError("a navmesh needs at least one triangle with non-zero area")
        self._vertices = frozen(verts)
        self._triangles: npt.NDArray[np.int64] = frozen(tris)
        self._area_costs: npt.NDArray[np.float64] = frozen(costs)
        self._version = next(_versions)
        self._alive: npt.NDArray[np.bool_] = frozen(np.ones(len(tris), dtype=bool))
        self._lock = threading.RLock()  # installs of edited arrays vs readers taking a set of them
        self._listeners: Listeners[NavMeshChange] = Listeners()
        self._edits: EditState | None = None  # gamenav.navmesh.dynamic, created at the first edit
        self._agent_radius = 0.0
        self._border_cache: list[tuple[Any, ...]] = [(None,)]  # see _border_index
        self._island_counts: list[tuple[int, int]] = [(0, 0)]  # see _island_count
        self._build_topology()
        self._build_index()

    def __getstate__(self) -> CopyState:
        """What copies and pickles keep besides the triangles: the agent radius and the attributes
        a subclass (or the caller) added, in ``__slots__`` too. A subclass may override it (and
        ``__setstate__``) to leave some out; the mesh's own arrays, listeners and locks are never
        copied."""
        return added_state(self, _OWN_ATTRIBUTES)

    def __reduce__(self) -> tuple[Callable[..., NavMesh], tuple[Any, ...], object]:
        """Pickle (and copy) as ``(class, vertices, live triangles, area costs)`` plus
        :meth:`__getstate__`: unpickling runs NavMesh's :meth:`__init__` (not a subclass's, which
        may take other arguments), which validates the arrays, rebuilds everything derived from
        them read-only, and gives the copy a new :attr:`version` (obstacle ids, subscriptions, grid
        following and dead triangle ids are not kept; carved obstacles stay carved, and obstacles
        added to the copy are inflated by the same :attr:`agent_radius`). A mesh that edits emptied
        (no live triangle) is rebuilt from its dead triangles, then emptied by one edit: a copy as
        empty, answering queries alike."""
        with self._lock:
            alive = self._alive
            state = without(self.__getstate__(), _OWN_ATTRIBUTES)
            if not alive.any():
                return (_emptied, (type(self), self._vertices, self._triangles, self._cost_array(),
                                   self._agent_radius), state)
            return (_rebuild, (type(self), self._vertices, self._triangles[alive], self._cost_array()[alive]),
                    state)

    # -- construction ---------------------------------------------------------------------
    @classmethod
    def from_polygons(cls, walkable: Any, *, obstacles: Any = (), agent_radius: float = 0.0,
                      areas: Any = ()) -> NavMesh:
        """Triangulate walkable polygons minus obstacles, shrunk by ``agent_radius``.

        Args:
            walkable: a shapely (Multi)Polygon, a sequence of shapely polygons, a sequence of
                rings (``(n, 2)`` world ``(x, y)`` points: outer boundary first, then holes), or
                one ring.
                Invalid input (self-intersections, overlaps) is repaired with shapely.
                A polygon's holes are subtracted from its shell: a hole covering the shell
                leaves nothing of it; in a sequence of rings, a hole wholly outside the first
                ring is an InvalidGeometryError (it would remove nothing: several polygons go as
                shapely polygons), in a shapely polygon it removes nothing.
            obstacles: the same kinds of input, subtracted from ``walkable`` (several obstacles:
                a sequence of shapely polygons; a sequence of rings is one polygon and its holes).
            agent_radius: world units to keep between the agent's centre and any obstacle,
                a number in ``[0, MAX_COORDINATE]``.
            areas: ``[(polygon, cost), ...]``: regions (the same kinds of input as
                ``walkable``) whose triangles carry a cost multiplier >= 1 (:attr:`area_costs`;
                later areas win where they overlap). Triangles follow the area boundaries; the
                default search minimises cost-weighted length (``exact=True`` is unsupported
                on a mesh with a cost other than 1).

        Raises:
            InvalidGeometryError: nothing walkable is left, the input is not polygonal, an
                obstacle has no area (a wall of no width would block nothing), or a
                coordinate is NaN, inf or outside ``[-MAX_COORDINATE, MAX_COORDINATE]``
                (``MAX_COORDINATE`` = 1e15, see :data:`gamenav.navmesh.MAX_COORDINATE`).
            InvalidInputError: a bad ``agent_radius``.
        """
        free = free_space(walkable, obstacles, agent_radius)
        zones = area_list(areas)
        mesh = cls(*triangulate_areas(free, zones)) if zones else cls(*triangulate_free_space(free))
        mesh._agent_radius = agent_radius_value(agent_radius)
        return mesh

    @classmethod
    def from_grid(cls, grid: Any, *, agent_radius: float = 0.0, follow: bool = False) -> NavMesh:
        """Triangulate the passable cells of a :class:`~gamenav.TileGrid`.

        World coordinates follow the grid's ``cell_size``, ``origin`` and ``y_up``; cells that
        touch only at a corner are not connected.

        Args:
            grid: the TileGrid.
            agent_radius: world units kept between agents' centres and blocked cells.
            follow: keep the mesh in step with ``grid``: each ``set_walkable`` or ``set_cost``
                re-triangulates only the region around the cells whose passability or cost
                changed (see :meth:`add_obstacle`), in both directions: cells blocked when the
                mesh was built open the mesh there too. New triangles take the grid's cell
                costs, as a build would. The grid holds the mesh weakly (a mesh dropped stops
                following), and :meth:`close` stops it. The mesh is built from
                one state of the grid, and follows every edit after it (an edit in another thread
                waits for the build).

        Raises:
            InvalidGeometryError: no passable cell (or none wide enough for ``agent_radius``).
            InvalidInputError: ``grid`` is not a TileGrid, its cells are narrower than
                :data:`MIN_CELL` (1e-98) or reach beyond ``MAX_COORDINATE``, or a bad
                ``agent_radius`` or ``follow``.
        """
        from gamenav.grid.tilegrid import TileGrid

        follow = flag(follow, "follow")
        if not isinstance(grid, TileGrid):
            raise InvalidInputError(f"grid must be a TileGrid, got {type(grid).__name__}")
        with no_waits(), grid._edit_lock:  # one state of the grid: no edit between the build and the subscription
            mesh = cls._from_grid(grid, agent_radius)
            if follow:
                from gamenav.navmesh.dynamic import follow_grid

                follow_grid(mesh, grid)
        return mesh

    @classmethod
    def _from_grid(cls, grid: TileGrid, agent_radius: float) -> NavMesh:
        agent_radius = agent_radius_value(agent_radius)
        (cs, ox, oy, y_up), (h, w) = grid_frame(grid), grid.shape
        reach = max(abs(ox), abs(oy), abs(ox + w * cs), abs(oy + h * cs))
        if not (cs >= MIN_CELL and reach <= MAX_COORDINATE):
            raise InvalidInputError(
                f"a navmesh needs grid cells at least {MIN_CELL:g} wide within [-{MAX_COORDINATE:g}, "
                f"{MAX_COORDINATE:g}], got cell_size={shown(cs)} and origin={shown((ox, oy))}: "
                f"cells reach {shown(reach)}")
        passable = grid.passable
        values, classes = np.unique(np.where(passable, grid.cost, 1.0), return_inverse=True)
        uniform = bool(values[values < np.inf].max(initial=1.0) == 1.0)
        verts, tris = grid_triangulation(passable, cs, (ox, oy), y_up,
                                         None if uniform else classes.reshape(passable.shape) + 1)
        if len(tris) == 0:
            raise InvalidGeometryError("the grid has no passable cell")
        costs = None
        if not uniform:  # each triangle lies in cells of one cost: take its centroid's cell
            cells = grid.world_to_cell(verts[tris].mean(axis=1))
            costs = grid.cost[cells[:, 1], cells[:, 0]]
        if agent_radius == 0:
            return cls(verts, tris, costs)
        free = shapely.coverage_union_all(shapely.polygons(verts[tris]))
        areas = [] if costs is None else [
            (shapely.coverage_union_all(shapely.polygons(verts[tris[costs == c]])), float(c))
            for c in np.unique(costs) if c > 1.0]
        return cls.from_polygons(free, agent_radius=agent_radius, areas=areas)

    @classmethod
    def from_mesh(cls, vertices: npt.ArrayLike, polygons: Any) -> NavMesh:
        """Import an existing mesh of convex polygons (or triangles), in either orientation.

        Args:
            vertices: ``(V, 2)`` world ``(x, y)``.
            polygons: a ``(P, 3)`` int array of triangles, or a sequence of convex polygons
                (vertex-id sequences; 180-degree corners allowed), e.g. from
                :func:`gamenav.io.read_mesh`. Adjacency comes from shared edges, by
                coordinates (vertices with the same coordinates are one, see :class:`NavMesh`).
                Cracks that exporters leave are closed, for points rounded up to 1e-9 of the
                mesh's extent: vertices up to twice that apart (copies of a point, each that
                close to it) are one vertex (the lowest id; a sliver that this turns over is
                dropped), and an edge with another polygon's vertex that close inside it (a
                T-junction) is split there, so that the polygons along it are neighbours (the
                triangles split come last). A polygon given again (the same corners, up to such
                copies) counts once. Polygons must not overlap otherwise (not checked): two on
                the same side of an edge are not neighbours across it, and a point in an
                overlap is located in one of them.

        Raises:
            InvalidGeometryError: a non-convex polygon, or no polygon with area.
            InvalidInputError: malformed arrays: vertices not ``(V, 2)`` finite numbers within
                ``MAX_COORDINATE``, polygons that are not sequences of integer vertex ids in range.
        """
        verts = _vertex_array(vertices)
        mesh = cls(verts, _merged_triangles(verts, polygons))
        fixed = _stitch(mesh)
        return mesh if fixed is None else cls(verts, fixed)

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
        self._neighbours: npt.NDArray[np.int64] = frozen(nbrs.reshape(n_t, 3))
        _announce()
        # (every array read-only, as an edit's and a compaction's: one kernel specialisation for all)
        islands, side, tin, tout = dual_graph(self._neighbours)
        self._islands: npt.NDArray[np.int64] = frozen(islands)
        self._side, self._tin, self._tout = frozen(side), frozen(tin), frozen(tout)
        border = self._neighbours.ravel() < 0
        self._border_edges = frozen(np.stack([a[border], b[border]], axis=1))
        self._border_tri = frozen(np.flatnonzero(border) // 3)
        counts = np.bincount(self._border_edges.ravel(), minlength=n_v)
        self._corner = frozen(counts > 0)
        self._pinch = frozen(counts > 2)
        self._degree = frozen((self._neighbours >= 0).sum(axis=1).astype(np.int64))

    def _build_index(self, cover: tuple[float, float, float, float] | None = None) -> None:
        """Bucket grid: every triangle is listed in each cell its (tolerance-grown) box touches.

        Everything scales with the mesh: the tolerance is 1e-9 of the extent (the larger side of
        the triangles' bounding box, > 0 since every triangle has area; at least 4 float steps of
        the largest coordinate, see :attr:`tolerance`) and the grid covers the
        tolerance-grown box with at most 4096 cells a side; also ``cover`` (``(x0, y0, x1, y1)``,
        where edits may add triangles later: a followed grid's rectangle), if given.
        """
        p = self._vertices[self._triangles]
        lo = p.min(axis=1)
        hi = p.max(axis=1)
        size = hi.max(axis=0) - lo.min(axis=0)
        self._tol = mesh_tolerance(float(size.max()), float(np.abs(p).max()))
        lo -= self._tol
        hi += self._tol
        gmin = lo.min(axis=0)
        gmax = hi.max(axis=0)
        if cover is not None:
            gmin = np.minimum(gmin, np.array(cover[:2], dtype=np.float64) - self._tol)
            gmax = np.maximum(gmax, np.array(cover[2:], dtype=np.float64) + self._tol)
        extent = gmax - gmin
        cell = float(max(2.0 * math.sqrt(extent[0] * extent[1] / len(p)), extent.max() / 4096))
        nx = int(extent[0] // cell) + 1
        ny = int(extent[1] // cell) + 1
        cells, tri_id = box_cells(((lo - gmin) // cell).astype(np.int64),
                                  ((hi - gmin) // cell).astype(np.int64), nx)
        order = np.argsort(cells)
        self._cell_items = tri_id[order]
        self._cell_start = np.searchsorted(cells[order], np.arange(nx * ny + 1))
        self._grid = (gmin.astype(np.float64), cell, nx, ny)
        self._box = (gmin.astype(np.float64), gmax.astype(np.float64))

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
    def area_costs(self) -> npt.NDArray[np.float64]:
        """``(T,)`` float64 cost multiplier (>= 1) of each triangle, read-only; all ones unless built
        with areas or from a grid with cell costs."""
        return self._area_costs

    def _cost_array(self) -> npt.NDArray[np.float64]:
        """:attr:`area_costs`, padded with ones for triangles added after the build (edits)."""
        with self._lock:
            costs, n = self._area_costs, len(self._triangles)
        return costs if len(costs) >= n else np.r_[costs, np.ones(n - len(costs))]

    @property
    def islands(self) -> npt.NDArray[np.int64]:
        """``(T,)`` int64 label of each triangle's edge-connected region (0, 1, ...)."""
        return self._islands

    @property
    def portals(self) -> npt.NDArray[np.int64]:
        """``(P, 2)`` int64 vertex ids of the interior edges shared by two triangles (each once)."""
        mesh = self._snapshot()
        t, j = np.nonzero(mesh._neighbours > np.arange(len(mesh._triangles))[:, None])
        return np.stack([mesh._triangles[t, j], mesh._triangles[t, (j + 1) % 3]], axis=1)

    @property
    def version(self) -> int:
        """A number unique to this mesh and its current state in this process: every edit
        (:meth:`add_obstacle`, :meth:`remove_obstacle`, a followed grid's edit) sets a new,
        larger one."""
        return self._version

    @property
    def alive(self) -> npt.NDArray[np.bool_]:
        """``(T,)`` bool, read-only: False for the triangles an edit removed.

        Edits never reuse triangle ids (so a ``Path.corridor`` keeps naming the triangles it
        was made with): removed triangles stay as dead rows of :attr:`triangles` (their
        geometry kept, no :attr:`neighbours`, island -1) and new ones are appended, until
        :meth:`compact` renumbers the live ones (a new version, announced with an id map).
        """
        return self._alive

    @property
    def agent_radius(self) -> float:
        """The radius the mesh was built with; obstacles are inflated by it."""
        return self._agent_radius

    # -- edits ----------------------------------------------------------------------------
    def add_obstacle(self, shape: Any) -> int:
        """Carve an obstacle out of the mesh, locally; returns its id (an int unique in this
        process: an id of another mesh, or of the mesh a copy was made from, is refused by
        :meth:`remove_obstacle`; copies and pickles keep no ids, and an id issued in another
        process, e.g. kept in a saved game, may be the id of an obstacle of this one).

        Only the triangles meeting the bounding box of the obstacle inflated by
        :attr:`agent_radius` are removed; that region minus every obstacle is re-triangulated
        (constrained Delaunay) and stitched to the untouched triangles. Overlapping obstacles,
        obstacles across the mesh border, and obstacles that split or join islands are handled;
        :attr:`islands` stay right. Bumps :attr:`version` and notifies :meth:`subscribe` listeners.

        A listener that raises does not undo the edit (every listener hears of it, as of any
        mesh or grid edit): the first listener error propagates once all have run, with the new
        id on it as ``error.obstacle_id``, so the obstacle can still be removed.

        Args:
            shape: a shapely polygon, or an ``(n, 2)`` ring of world ``(x, y)`` points (more
                rings: outer boundary first, then holes).

        Raises:
            InvalidGeometryError: not a polygon with area, NaN / inf or out-of-range coordinates.
            InvalidInputError: ``shape`` is neither a geometry nor a sequence, or the mesh is closed.

        Example:
            >>> import gamenav
            >>> mesh = gamenav.NavMesh.from_polygons([(0, 0), (10, 0), (10, 10), (0, 10)])
            >>> oid = mesh.add_obstacle([(4, -1), (6, -1), (6, 8), (4, 8)])
            >>> round(gamenav.find_path(mesh, (1, 1), (9, 1), exact=True).cost, 6)
            17.231546
            >>> mesh.remove_obstacle(oid)
            >>> round(gamenav.find_path(mesh, (1, 1), (9, 1), exact=True).cost, 6)
            8.0
        """
        from gamenav.navmesh.dynamic import add_obstacle

        self._check_open("add obstacles to")
        return add_obstacle(self, shape)

    def remove_obstacle(self, oid: int) -> None:
        """Remove obstacle ``oid`` (from :meth:`add_obstacle`), restoring the free space it
        covered (except where other obstacles still are), locally.

        Raises:
            InvalidInputError: ``oid`` is not an obstacle of this mesh, or the mesh is closed.
        """
        from gamenav.navmesh.dynamic import remove_obstacle

        self._check_open("remove obstacles from")
        remove_obstacle(self, oid)

    def compact(self) -> npt.NDArray[np.int64]:
        """Reclaim the dead triangles (and unused vertices) that edits leave behind.

        Edits never reuse a triangle id, so :attr:`triangles` only grows; every search
        allocates work arrays of ``len(mesh)``. ``compact`` renumbers the live triangles
        ``0..n-1`` (in their order) at a new :attr:`version` and notifies :meth:`subscribe`
        listeners with a :class:`~gamenav.NavMeshChange` whose ``remap`` maps old ids to new
        ones and whose ``removed`` lists every old live id: a :class:`~gamenav.PathCache`
        drops its paths on this mesh and a :class:`~gamenav.PathQueue` restarts its searches,
        so no cached corridor names a renamed triangle. A corridor kept elsewhere should be
        kept with the :attr:`version` it was found on (a search's ``world_version``) and
        translated with the returned map. The free space, islands, obstacles and grid
        following are unchanged. Costs O(live triangles), like a build of the same mesh: call
        it when a pause is acceptable (e.g. when ``(~mesh.alive).sum()`` exceeds ``len`` of
        the live part).

        Returns:
            ``(T_old,)`` int64, read-only: the new id of each old triangle id, -1 for dead ones
            (the identity, with no new version, when nothing is dead; all -1, with no new
            version, when edits removed every triangle). When a listener raises, the
            compaction stays (as any edit) and the map is on the first listener error, which
            propagates once all have run, as ``error.remap``.

        Example:
            >>> import gamenav
            >>> mesh = gamenav.NavMesh.from_polygons([(0, 0), (10, 0), (10, 10), (0, 10)])
            >>> mesh.remove_obstacle(mesh.add_obstacle([(4, 4), (6, 4), (6, 6), (4, 6)]))
            >>> bool(mesh.alive.all())
            False
            >>> remap = mesh.compact()
            >>> bool(mesh.alive.all()), len(remap) > len(mesh)
            (True, True)
        """
        from gamenav.navmesh.dynamic import compact

        self._check_open("compact")
        return compact(self)

    @property
    def obstacles(self) -> dict[int, BaseGeometry]:
        """The obstacles carved so far: ``{id: shapely polygon as given}`` (a copy)."""
        edits = self._edits
        if edits is None:
            return {}
        with edits.lock:
            return {k: o.shape for k, o in edits.obstacles.items()}

    def subscribe(self, listener: Callable[[NavMeshChange], object], *, weak: bool = False) -> Unsubscribe:
        """Call ``listener(change)`` after every edit (a :class:`~gamenav.NavMeshChange`: new
        version, changed box, removed and added triangle ids); returns a function that unsubscribes.

        Same guarantees as :meth:`gamenav.TileGrid.subscribe` (every listener runs even when
        one raises; ``weak=True`` does not keep the listener's owner alive). Listeners run in
        the editing thread, after the new arrays are installed. An edit stays applied when a
        listener raises: the first error propagates from the edit once all have run, with what
        the edit returns on it (see :meth:`add_obstacle`, :meth:`compact`).
        """
        return self._listeners.subscribe(listener, weak=weak)

    def _close(self) -> None:
        from gamenav.navmesh.dynamic import close_edits

        close_edits(self)

    @property
    def tolerance(self) -> float:
        """World distance within which a point off a triangle still counts as on it.

        1e-9 of the mesh extent (the larger side of :attr:`bounds`), so meshes of any scale
        behave alike; far from the origin at least 4 float steps of the largest coordinate (a
        230-unit mesh at 7e10: 6.1e-5), so that the points :meth:`clamp` rounds onto a wall
        stay on the mesh; at least :data:`MIN_EDGE` (1e-100, meshes under 1e-91 wide), the
        shortest edge a triangle may have.
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
                f"islands={self._snapshot()._island_count()}, version={self._version})")

    # -- queries --------------------------------------------------------------------------
    def locate(self, points: npt.ArrayLike) -> npt.NDArray[np.int64]:
        """Triangle index of each point, -1 outside the mesh (vectorised, bucket-grid index).

        Args:
            points: ``(2,)`` or ``(n, 2)`` world ``(x, y)``.

        Returns:
            ``(n,)`` int64 (``(1,)`` for a single point). Points on a shared edge get one of
            the triangles; points within :attr:`tolerance` outside a border count as inside.
        """
        return self._locate(points_array(points))

    def _locate(self, p: npt.NDArray[np.float64]) -> npt.NDArray[np.int64]:
        """:meth:`locate` of ``(n, 2)`` points that :func:`points_array` checked already."""
        lo, hi = self._box
        # the rest is outside (and points far out would overflow the kernel's cell index)
        near = ((p >= lo) & (p <= hi)).all(axis=1)
        gmin, cell, nx, ny = self._grid
        with self._lock:  # one consistent set of arrays (edits install new ones)
            verts, tris, alive, rows = self._vertices, self._triangles, self._alive, self._cell_rows()
        if near.all() and p.flags.c_contiguous:  # the common case: no copies
            found: npt.NDArray[np.int64] = locate_points(p, verts, tris, alive, gmin, cell, nx, ny, *rows, self._tol)
            return found
        out = np.full(len(p), -1, dtype=np.int64)
        out[near] = locate_points(p[near], verts, tris, alive, gmin, cell, nx, ny, *rows, self._tol)
        return out

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
        """Like :meth:`nearest`, also returning each result's triangle (-1, the point unchanged,
        when there is no triangle to clamp onto: edits removed every one).

        Args:
            points: ``(2,)`` or ``(n, 2)`` world ``(x, y)``.
            island: restrict to the triangles with this :attr:`islands` label.

        Raises:
            InvalidInputError: malformed points, or ``island`` not an int in ``0..islands - 1``.
        """
        mesh = self._snapshot()  # every read below from one state of the mesh
        p = points_array(points)
        n_islands = mesh._island_count()
        if island is not None and not (is_int(island) and 0 <= island < n_islands):
            expected = f"None or an int in 0..{n_islands - 1}" if n_islands else "None (edits removed every triangle)"
            raise InvalidInputError(f"island must be {expected}, got {shown(island)}")
        tri = mesh._locate(p)
        if island is not None:
            tri[(tri >= 0) & (mesh._islands[np.maximum(tri, 0)] != island)] = -1
        out = p.copy()
        outside = tri < 0
        if outside.any() and n_islands:  # edited meshes keep dead triangles' border entries: skipped
            gmin, cell, nx, ny = mesh._grid
            pts, t = nearest_points(p[outside], mesh._vertices, mesh._border_edges,
                                    *mesh._border_index(), mesh._alive, mesh._islands,
                                    -1 if island is None else int(island), gmin, cell, nx, ny,
                                    *mesh._cell_rows())
            out[outside] = pts
            tri[outside] = t
        return out, tri

    def raycast(self, start: npt.ArrayLike, end: npt.ArrayLike) -> RaycastHit:
        """Walk the segment ``start -> end`` over the mesh.

        Args:
            start, end: world ``(x, y)``.

        Returns:
            :class:`RaycastHit`: ``clear`` True if the segment stays on the mesh; otherwise the
            first point where it leaves (``fraction`` 0 when ``start`` is off the mesh). A
            ``start`` on a pinch point (regions touching at one vertex, not connected) is in the
            region :meth:`locate` picks: a ray from it into the other region leaves at once.
        """
        s = world_point(start, "start")
        e = world_point(end, "end")
        mesh = self._snapshot()  # the walk starts from the triangle located on the same state
        t = int(mesh._locate(s.reshape(1, 2))[0])
        if t < 0:
            return RaycastHit(False, s.copy(), 0.0)
        frac = raycast_walk(mesh._vertices, mesh._triangles, mesh._neighbours, t, s[0], s[1], e[0], e[1],
                            mesh._tol)
        clear = frac >= 1.0  # then the end itself: s + (e - s) may round off it
        return RaycastHit(clear, e if clear else s + frac * (e - s), float(frac))

    def _cell_rows(self) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.int64]]:
        """The bucket index as ``(begin, end, items)``: cell ``c`` lists ``items[begin[c]:end[c]]``
        (an edited mesh's index has a [begin, end) row per cell, with spare room; a built one CSR
        offsets, also while a mesh following a grid has seen no edit yet). Call under the lock
        or on a snapshot."""
        start = self._cell_start
        begin, end = (start[:, 0], start[:, 1]) if start.ndim == 2 else (start[:-1], start[1:])
        return begin, end, self._cell_items

    def _border_index(self) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.float64]]:
        """The border edges by triangle for :func:`nearest_points`: ``order[start[t]:start[t + 1]]``
        are triangle ``t``'s entries of ``_border_edges`` (ascending), and ``(x0, y0, x1, y1)``
        bounds every entry (the vertices' box). Computed once per state (edits install new border
        arrays); call on a snapshot."""
        owner = self._border_tri
        held = self._border_cache[0]
        if held[0] is not owner:
            order = np.argsort(owner, kind="stable")
            start = np.zeros(len(self._triangles) + 1, dtype=np.int64)
            np.cumsum(np.bincount(owner, minlength=len(self._triangles)), out=start[1:])
            x, y = self._vertices[:, 0], self._vertices[:, 1]  # (columns: axis-0 reductions are slow)
            held = (owner, order, start, np.array([x.min(), y.min(), x.max(), y.max()]))
            self._border_cache[0] = held  # shared with snapshots (a plain list: swapped at once)
        return held[1], held[2], held[3]

    def _island_count(self) -> int:
        """``islands.max() + 1`` (0 once edits removed every triangle), computed once per
        :attr:`version` (a whole-array pass: 119k triangles, not one per query); shared with
        snapshots, keyed by version rather than by the islands array (a reference to an edited
        mesh's array would keep its buffers from being reused); call on a snapshot."""
        version, count = self._island_counts[0]
        if version != self._version:
            count = int(self._islands.max()) + 1
            self._island_counts[0] = (self._version, count)
        return count

    def _snapshot(self) -> NavMesh:
        """The mesh's current state: a read-only NavMesh sharing its arrays, taken at once under
        the lock. A query that reads only from it sees an edit made meanwhile in another thread
        entirely or not at all (never triangle ids of one state with the arrays of another).
        Never edit or subscribe to a snapshot."""
        snap = object.__new__(_Snapshot)
        with self._lock:
            snap.__dict__.update(self.__dict__)
        return snap

    def _kernel_arrays(self) -> dict[str, npt.NDArray[Any]]:
        """The mesh's own arrays for the search kernels (private: some are writable; never modify).

        One consistent set (an edit installs new arrays at once, under the same lock).
        """
        with self._lock:
            return {"verts": self._vertices, "tris": self._triangles, "nbrs": self._neighbours,
                    "corner": self._corner, "degree": self._degree, "pinch": self._pinch,
                    "side": self._side, "tin": self._tin, "tout": self._tout}


_OWN_ATTRIBUTES = frozenset((
    "_vertices", "_triangles", "_area_costs", "_version", "_alive", "_lock", "_listeners", "_edits",
    "_border_cache", "_island_counts", "_neighbours", "_islands", "_side", "_tin", "_tout",
    "_border_edges", "_border_tri", "_corner", "_pinch", "_degree", "_tol", "_grid", "_box", "_cell_items",
    "_cell_start", "_edits_follower", "_closed"))
"""What a mesh's construction and edits set; a copy makes its own (other attributes, and the agent
radius, are copied)."""


def _rebuild(cls: type[NavMesh], vertices: npt.NDArray[np.float64], triangles: npt.NDArray[np.int64],
             area_costs: npt.NDArray[np.float64]) -> NavMesh:
    """Unpickle / copy helper: a mesh of class ``cls`` made by NavMesh's constructor (see
    :meth:`NavMesh.__reduce__`)."""
    mesh = cls.__new__(cls)
    NavMesh.__init__(mesh, vertices, triangles, area_costs)
    return mesh


def _emptied(cls: type[NavMesh], vertices: npt.NDArray[np.float64], triangles: npt.NDArray[np.int64],
             area_costs: npt.NDArray[np.float64], agent_radius: float) -> NavMesh:
    """Unpickle a mesh that edits emptied (see :meth:`NavMesh.__reduce__`): built from its
    triangles, all dead, then every one removed by one edit (the radius set first: the edit
    state keeps it for obstacles added later)."""
    from gamenav.navmesh.dynamic import remove_all

    mesh = _rebuild(cls, vertices, triangles, area_costs)
    mesh._agent_radius = agent_radius
    remove_all(mesh)
    return mesh


class _Snapshot(NavMesh):
    """One state of a :class:`NavMesh` (see :meth:`NavMesh._snapshot`); its snapshot is itself."""

    def _snapshot(self) -> NavMesh:
        return self
