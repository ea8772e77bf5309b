"""Local navmesh edits: carve and uncarve obstacles, follow a TileGrid, without a rebuild.

Everything is world ``(x, y)``. An edit touches a box (the inflated obstacle's bounds, or the
changed cells grown by the agent radius): the live triangles intersecting that box are removed
(the *cavity*, found in the bucket index by a kernel), the free space they covered (plus, when
space opens, the mesh's original free space inside the box) minus every obstacle is
re-triangulated with ``triangle`` (constrained Delaunay, the same
:func:`~gamenav.navmesh.build.triangulate_free_space` a full build uses) and stitched to the
untouched triangles through their shared edges (vertex ids; a new point within the mesh
tolerance of a vertex they share with the cavity is that vertex, so no T-junctions, unless the
region holds that vertex too: then they are two points, as in a build). A mesh following a grid
computes the free space inside the box afresh from the grid instead (rectangle minus every
blocked cell, inflated), so cells blocked when it was built can open too, and takes the
areas of each cost from the grid's cells (cost edits re-triangulate their cells too).

Two shortcuts keep the re-triangulated region small: carving, the triangles inside the
obstacle's box only go (the union to subtract from holds just those crossing its edges);
uncarving, the build's triangles strictly inside the obstacle's box and clear of every other
obstacle come back as they are (only the space around them is re-triangulated), and when no
later edit touched the carving its removed triangles come back whole (:func:`_restore`).

Per edit, Python only does the polygon work (GEOS: the cavity polygon comes from its boundary
rings, then one difference with the nearby obstacles) and the triangulation; the kernels of
:mod:`gamenav._kernels.dynamic` find the cavity, stitch (vertex reuse, edge matching,
neighbours, degrees, border counts, corner / pinch flags, the local components for the
islands) and patch the bucket index (removed triangles stay listed, dead, until their bucket
fills; readers skip them). Islands are repaired locally: no search when every local
component meets one island; otherwise merges relabel the smaller island and possible splits
run interleaved searches that stop when one part is left.

Triangle ids are never reused by edits: new triangles are appended and removed ones stay as
dead rows (``NavMesh.alive`` False, no neighbours, island -1), so a ``Path.corridor`` id always
names the triangle it was made with. :func:`compact` (``NavMesh.compact``) reclaims them: it
renumbers the live triangles at a new version and announces the id map with every old id
removed. Every edit installs a new set of arrays at once (copy-on-write of the arrays whose
existing rows change; vertices, triangles and degrees are append-only buffers whose old views
never change), so a search holding the previous arrays reads a consistent mesh. After the first
edit the bridge pruning tables (``side``, ``tin``, ``tout``) are zero: searches stay exact, they
only lose that optional pruning (a compaction restores them until the next edit).
"""

from __future__ import annotations

import contextlib
import functools
import itertools
import logging
import math
import sys
import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NamedTuple
from collections.abc import Callable, Iterator

import numpy as np
import numpy.typing as npt
import shapely
import shapely.errors
from shapely.geometry.base import BaseGeometry

from gamenav._arrays import frozen, rebuilt
from gamenav._events import no_waits
from gamenav._kernels import announce_compile
from gamenav._kernels.dynamic import (boundary_rings, cavity, copy_rows, reindex, relabel,
                                      split_groups, stitch, tri_cells)
from gamenav._validate import float_numbers, is_int, shown
from gamenav.errors import InvalidGeometryError, InvalidInputError
from gamenav.navmesh.build import (MAX_COORDINATE, MIN_EDGE, QUAD_SEGS, _as_geometry, _geometry_errors, _polygonal,
                                   _without_threads, _without_underflow, frame_origin, grid_frame, grown_radius,
                                   merge_points, moved, stadiums, triangulate_areas, triangulate_free_space)

if TYPE_CHECKING:
    from gamenav.grid.tilegrid import GridChange, TileGrid
    from gamenav.navmesh.mesh import NavMesh

__all__ = ["NavMeshChange", "add_obstacle", "compact", "follow_grid", "remove_obstacle"]

_I64 = npt.NDArray[np.int64]
_F64 = npt.NDArray[np.float64]
_log = logging.getLogger("gamenav")


@dataclass(frozen=True, eq=False)
class NavMeshChange:
    """One edit of a :class:`~gamenav.NavMesh`, as delivered to :meth:`NavMesh.subscribe` listeners.

    Attributes:
        version: the mesh's :attr:`~gamenav.NavMesh.version` after the edit.
        bounds: ``(min_x, min_y, max_x, max_y)`` world box outside which nothing changed (the
            free space, and every triangle that intersects nothing of it, are untouched).
        removed: ``(k,)`` int64 ids of the triangles the edit removed (now dead), read-only.
        added: ``(m,)`` int64 ids of the new triangles, read-only.
        opened: True when free space may have grown inside ``bounds`` (an obstacle removed,
            cells opened), or a followed grid's cells there got cheaper: paths elsewhere may
            become shorter through the box.
        blocked: True when free space may have shrunk inside ``bounds``.
        remap: None for an edit. For :meth:`~gamenav.NavMesh.compact` (the only change that
            renames triangles): ``(T_old,)`` int64, read-only, the new id of each old triangle
            id (-1 for dead ones); ``removed`` then lists every old live id and ``added`` the
            new ids, so a cache dropping paths through removed triangles drops them all.
    """

    version: int
    bounds: tuple[float, float, float, float]
    removed: _I64
    added: _I64
    opened: bool
    blocked: bool
    remap: _I64 | None = None

    def __post_init__(self) -> None:
        for array in (self.removed, self.added, self.remap):
            if array is not None:
                array.flags.writeable = False

    def __reduce__(self) -> tuple[Callable[..., NavMeshChange], tuple[object, ...]]:
        """Pickle and copy through the constructor, so the arrays are read-only again after a
        round trip (pickle and ``deepcopy`` rebuild them writable) and own their memory."""
        return rebuilt, (type(self), self.version, self.bounds, self.removed, self.added, self.opened,
                         self.blocked, self.remap)


class _Buffer:
    """An append-only array with spare capacity: views of the first rows never change."""

    def __init__(self, data: npt.NDArray[Any]) -> None:
        self.buf = np.empty((max(16, 2 * len(data)),) + data.shape[1:], dtype=data.dtype)
        self.buf[:len(data)] = data
        self.n = len(data)

    def reserve(self, extra: int) -> npt.NDArray[Any]:
        """Room for ``extra`` more rows (a bigger copy when needed: earlier views keep the old
        buffer); returns the buffer, whose rows from ``n`` on the caller may fill."""
        need = self.n + extra
        if need > len(self.buf):
            new = np.empty((2 * need,) + self.buf.shape[1:], dtype=self.buf.dtype)
            new[:self.n] = self.buf[:self.n]
            self.buf = new
        return self.buf

    def view(self, n: int) -> npt.NDArray[Any]:
        """Mark the first ``n`` rows as used (filled by the caller); a read-only view of them."""
        self.n = n
        return frozen(self.buf[:n])

    def extend(self, rows: npt.NDArray[Any]) -> npt.NDArray[Any]:
        """Append ``rows``; returns a read-only view of all rows."""
        need = self.n + len(rows)
        if need > len(self.buf):
            new = np.empty((2 * need,) + self.buf.shape[1:], dtype=self.buf.dtype)
            new[:self.n] = self.buf[:self.n]
            self.buf = new
        self.buf[self.n:need] = rows
        self.n = need
        return frozen(self.buf[:need])


_obstacle_ids = itertools.count(1)
"""Obstacle ids, unique in the process (never 0): an id of another mesh, or of the mesh a copy was
made from (copies and pickles keep no ids), is no id of this one, refused rather than taken for its
own (not across processes: each counts from 1)."""

_LOG = 8  # edits remembered for generations that missed some
_GENS = 4  # reader generations kept at most


def _refs(bufs: dict[str, npt.NDArray[Any]]) -> int:
    return max(sys.getrefcount(b) for b in bufs.values())


_BASE_REFS = _refs({"probe": np.empty(1)})


def _unreferenced(bufs: dict[str, npt.NDArray[Any]]) -> bool:
    """No view of these buffers exists outside the generation list (no mesh state, search or
    caller holds one)."""
    return _refs(bufs) <= _BASE_REFS


def _area_part(geom: BaseGeometry) -> BaseGeometry:
    """:func:`~gamenav.navmesh.build._polygonal` without its union when nothing is dropped."""
    if geom.geom_type == "Polygon":
        return geom if geom.area > 0 else shapely.Polygon()
    if geom.geom_type == "MultiPolygon" and (shapely.area(shapely.get_parts(geom)) > 0).all():
        return geom
    return _polygonal(geom)


def _axis_box(coords: _F64) -> tuple[float, float, float, float] | None:
    """The bounds of the ring ``coords`` ``(n, 2)`` (closed) when it is an axis-aligned
    rectangle with area (edges alternately horizontal and vertical; a ring that doubles back
    along an edge has none), else None."""
    if len(coords) != 5:
        return None
    e = coords[1:] - coords[:-1]
    flat = e[:, 1] == 0
    if not ((e[:, 0] == 0) != flat).all() or (flat[1:] == flat[:-1]).any():
        return None
    lo, hi = coords.min(axis=0), coords.max(axis=0)
    if not (lo < hi).all():
        return None
    return float(lo[0]), float(lo[1]), float(hi[0]), float(hi[1])


# the corners of a rectangle grown by 1 (see build.stadiums), counter-clockwise from its lower right
# corner: half a chord's turn off the sides' normals, so that the chords next to the sides lie on them
_ANGLES = ((np.arange(QUAD_SEGS) + 0.5) * (math.pi / (2 * QUAD_SEGS)))[None, :] + (
    np.array([-1, 0, 1, 2])[:, None] * math.pi / 2)
_ARCS = np.stack([np.cos(_ANGLES), np.sin(_ANGLES)], axis=2)  # (4 corners, QUAD_SEGS, 2)


def _rounded_box(box: tuple[float, float, float, float], grow: float) -> BaseGeometry:
    """The axis-aligned ``box`` inflated as :func:`~gamenav.navmesh.build.stadiums` do
    (``grow``: their :func:`~gamenav.navmesh.build.grown_radius`): sides moved out by the
    radius, :data:`QUAD_SEGS` chords per quarter round the corners (the union of the stadiums
    of its sides and the box)."""
    x0, y0, x1, y1 = box
    corners = np.array([[x1, y0], [x1, y1], [x0, y1], [x0, y0]])
    return shapely.Polygon((corners[:, None, :] + grow * _ARCS).reshape(-1, 2))


def _inflate(geom: BaseGeometry, radius: float, box: tuple[float, float, float, float] | None = None
             ) -> BaseGeometry:
    """``geom`` grown by ``radius`` the way :func:`~gamenav.navmesh.build.free_space` shrinks
    free space: the union of the :func:`~gamenav.navmesh.build.stadiums` of its boundary
    segments and ``geom``. ``box``: ``geom`` is this axis-aligned rectangle."""
    if radius <= 0 or geom.is_empty:
        return geom
    if box is not None:
        return _rounded_box(box, grown_radius(radius))
    rings = shapely.get_rings(shapely.get_parts(geom))
    coords, ring = shapely.get_coordinates(rings, return_index=True)
    same = ring[1:] == ring[:-1]
    segs = np.stack([coords[:-1][same], coords[1:][same]], axis=1)
    pieces = list(stadiums(segs, radius))
    pieces.append(geom)
    return _area_part(shapely.union_all(pieces))


class _Undo:
    """How to undo the edit that carved an obstacle (see :func:`_restore`): the triangles it
    removed (``pre``, dead rows whose vertex ids stay valid) and added (``added``), the sorted
    keys of the edges ``pre`` shared with live triangles around them (``ring``), the bounds of
    the region it re-triangulated and of the obstacle, and the other obstacles whose bounds met
    those then."""

    __slots__ = ("pre", "added", "ring", "bounds", "near")

    def __init__(self, pre: _I64, added: _I64, ring: _I64, bounds: tuple[float, float, float, float],
                 near: list[int]) -> None:
        self.pre, self.added, self.ring, self.bounds, self.near = pre, added, ring, bounds, near


class _Obstacle:
    __slots__ = ("shape", "inflated", "bounds", "inner", "thin")

    def __init__(self, shape: BaseGeometry, inflated: BaseGeometry, origin: _F64,
                 inner: tuple[float, float, float, float] | None, tol: float) -> None:
        self.shape = shape
        self.inflated = inflated  # in the edits' frame (about ``origin``, see EditState)
        self.thin = bool(shapely.minimum_clearance(inflated) <= 16 * tol)  # has parts merging may close (see reach)
        x0, y0, x1, y1 = inflated.bounds
        ox, oy = float(origin[0]), float(origin[1])
        self.bounds = (x0 + ox, y0 + oy, x1 + ox, y1 + oy)  # world
        self.inner = inner  # an axis-aligned box inside the inflated shape (the shape's), or None


class EditState:
    """What a mesh needs to edit itself locally (created at its first edit; private).

    The original triangles (and their bucket index) describe the free space the mesh was built
    from, used to restore space when an obstacle goes away.

    Every edit computes and triangulates its region in a frame about ``origin`` (world minus
    ``origin``; inflated obstacles and a followed grid's free space are kept in it): the centre
    of the mesh's bucket grid rounded to a multiple of a power of two at least 64 times its
    extent, so 0 for a mesh about the origin. GEOS's overlays fall back to snapping with a
    tolerance of about the coordinates' magnitude / 1e12, which far from the origin exceeds
    the mesh tolerance (1e-6 at 1e6 for a 20-wide mesh with 2e-8): outline points of the
    untouched triangles moved or went, and their edges lost their neighbours (a crack). In the
    frame magnitudes are those of the mesh's extent, and the mesh's vertices shift exactly
    (they and ``origin`` are multiples of their float step, within about their own magnitude
    of each other), so the region's outline comes back bit for bit.

    Readers never see a write: the editor changes private *master* arrays in place (with spare
    capacity) and copies only the rows an edit touched into a *generation*, a full set of
    reader arrays no search or view holds any more (checked by reference count), which is then
    installed as the mesh's arrays. A generation that missed a few edits replays their touched
    rows; a new one is copied from the masters only when every other generation is in use.
    """

    def __init__(self, mesh: NavMesh) -> None:
        self.radius = float(getattr(mesh, "_agent_radius", 0.0))
        gmin, cell, nx, ny = mesh._grid
        self.origin = frame_origin(gmin, gmin + cell * np.array([nx, ny]))
        if not mesh._alive.all():  # pragma: no cover - meshes start with every triangle alive
            raise InvalidGeometryError("cannot start editing a mesh with dead triangles")
        # the free space as built (restored where space opens) and its bucket index (CSR)
        self.base_verts = mesh._vertices
        self.base_tris = mesh._triangles
        self.base_nbrs = mesh._neighbours
        self.base_grid = mesh._grid
        self.base_start, self.base_items = mesh._cell_start, mesh._cell_items
        self.base_tag = np.full(len(self.base_tris), -1, dtype=np.int64)
        self.base_alive = np.ones(len(self.base_tris), dtype=bool)
        costs = getattr(mesh, "_area_costs", None)
        self.has_costs = costs is not None
        self.base_costs = (np.asarray(costs) if costs is not None and (np.asarray(costs) != 1.0).any()
                           else None)
        self.cost_index = (self.base_verts, self.base_tris, self.base_start, self.base_items)
        self.obstacles: dict[int, _Obstacle] = {}
        self.ob_box = np.empty((16, 4))  # inflated bounds of the obstacles, one row each
        self.ob_key = np.empty(16, dtype=np.int64)  # their ids
        self.ob_row: dict[int, int] = {}
        self.lock = threading.RLock()
        self.grid_blocked: npt.NDArray[np.bool_] | None = None  # following a grid: its blocked cells
        self.grid: Any = None
        self.grid_free: BaseGeometry = shapely.Polygon()  # following a grid: its cells' rectangle, shrunk (frame)
        self.last_near: tuple[tuple[float, float, float, float], list[int]] | None = None
        self.last_ring: _I64 = np.zeros(0, dtype=np.int64)  # the last edit's ring edges (stitch)
        self.load(mesh)

    def load(self, mesh: NavMesh) -> None:
        """(Re)start the editable arrays from ``mesh``'s, every triangle alive (at the first
        edit, and after :func:`compact`)."""
        self.costs = _Buffer(np.asarray(mesh._cost_array())) if self.has_costs else None
        self.verts = _Buffer(mesh._vertices)
        self.tris = _Buffer(mesh._triangles)
        n = len(mesh._triangles)
        nv = len(mesh._vertices)
        self.zero_side = _Buffer(np.zeros((n, 3), dtype=np.int8))
        self.zero_time = _Buffer(np.zeros(n, dtype=np.int64))
        self.border_edges = _Buffer(np.asarray(mesh._border_edges, dtype=np.int64).reshape(-1, 2))
        self.border_tri = _Buffer(np.asarray(mesh._border_tri, dtype=np.int64))
        self.n_t, self.n_v = n, nv
        self.cap_t, self.cap_v = 2 * n + 64, 2 * nv + 64
        self.master: dict[str, npt.NDArray[Any]] = {}
        for name, arr, fill in (("nbrs", mesh._neighbours, -1), ("alive", mesh._alive, False),
                                ("islands", mesh._islands, -1), ("degree", mesh._degree, 0)):
            buf = np.full((self.cap_t,) + arr.shape[1:], fill, dtype=arr.dtype)
            buf[:n] = arr
            self.master[name] = buf
        for name, arr in (("corner", mesh._corner), ("pinch", mesh._pinch)):
            buf = np.zeros(self.cap_v, dtype=bool)
            buf[:nv] = arr
            self.master[name] = buf
        self.border_count = np.zeros(self.cap_v, dtype=np.int32)
        self.border_count[:nv] = np.bincount(mesh._border_edges.ravel(), minlength=nv)
        self.sizes = np.zeros(self.cap_t, dtype=np.int64)
        isl = np.asarray(mesh._islands)
        self.n_labels = int(isl.max()) + 1 if len(isl) else 0
        self.sizes[:self.n_labels] = np.bincount(isl, minlength=self.n_labels)
        self.seed = np.full(self.cap_t, -1, dtype=np.int64)  # a triangle of each island, if still so
        self.seed[isl] = np.arange(n)
        self.mark = np.full(self.cap_t, -1, dtype=np.int64)
        self.stamp = 0
        self.tag = np.full(self.cap_t, -1, dtype=np.int64)  # cavity / stitch scratch (stamped)
        self.tag_stamp = 0
        # the build's triangles' scratch too: its stamps restart with this one (a stale stamp
        # equal to a new one hid build triangles from the cavity of a later edit)
        self.base_tag.fill(-1)
        self.queue = np.empty(self.cap_t, dtype=np.int64)
        self.group = np.empty(self.cap_t, dtype=np.int64)
        self.grid_box = mesh._grid
        self.tol = mesh._tol
        self.cell_cap = np.zeros(0, dtype=np.int64)
        self.cell_count = np.zeros(0, dtype=np.int64)
        self.tail = np.zeros(1, dtype=np.int64)
        _build_padded_index(self, mesh._vertices, mesh._triangles)
        self.gens: list[dict[str, npt.NDArray[Any]]] = []
        self.gen_seq: list[int] = []
        self.current: dict[str, npt.NDArray[Any]] | None = None
        self.seq = 0
        self.log: list[tuple[int, dict[str, _I64]]] = []
        self.undo: dict[int, _Undo] = {}  # triangle ids: forgotten when they are renumbered

    def ensure(self, n_t: int, n_v: int) -> None:
        """Grow the masters (and scratch arrays) to hold ``n_t`` triangles and ``n_v`` vertices
        (every generation is then dropped: the next commit copies the masters)."""
        if n_t <= self.cap_t and n_v <= self.cap_v:
            return
        cap_t, cap_v = max(self.cap_t, 2 * n_t), max(self.cap_v, 2 * n_v)
        fills = {"nbrs": -1, "alive": False, "islands": -1, "degree": 0, "corner": False, "pinch": False}
        for name, fill in fills.items():
            old = self.master[name]
            cap = cap_v if name in ("corner", "pinch") else cap_t
            buf = np.full((cap,) + old.shape[1:], fill, dtype=old.dtype)
            buf[:len(old)] = old
            self.master[name] = buf
        for name, cap, fill in (("border_count", cap_v, 0), ("sizes", cap_t, 0), ("mark", cap_t, -1),
                                ("tag", cap_t, -1), ("seed", cap_t, -1)):
            old = getattr(self, name)
            buf = np.full(cap, fill, dtype=old.dtype)
            buf[:len(old)] = old
            setattr(self, name, buf)
        self.queue = np.empty(cap_t, dtype=np.int64)
        self.group = np.empty(cap_t, dtype=np.int64)
        self.cap_t, self.cap_v = cap_t, cap_v
        self.gens.clear()
        self.gen_seq.clear()
        self.current = None

    def commit(self, touched: dict[str, _I64]) -> dict[str, npt.NDArray[Any]]:
        """Bring a free generation up to date (rows ``touched`` by this edit, and by the edits
        it missed) and return read-only views of it sized to the mesh.

        ``touched`` maps each master array to the rows (``items``: positions, ``bounds``:
        cells) written; ``degree`` rows are the ``nbrs`` rows, ``pinch`` rows the ``corner`` ones.
        """
        self.seq += 1
        self.log.append((self.seq, touched))
        del self.log[:-_LOG]
        gen = None
        for g, (bufs, seq) in enumerate(zip(self.gens, self.gen_seq, strict=True)):
            if (bufs is not self.current and seq >= self.seq - _LOG
                    and bufs["items"].shape == self.master["items"].shape and _unreferenced(bufs)):
                gen = g
                break
        if gen is None:
            if len(self.gens) >= _GENS:  # all in use: forget the oldest (its holders keep it alive)
                drop = next(g for g, b in enumerate(self.gens) if b is not self.current)
                del self.gens[drop], self.gen_seq[drop]
            self.gens.append({name: arr.copy() for name, arr in self.master.items()})
            self.gen_seq.append(self.seq)
            gen = len(self.gens) - 1
            none = np.zeros(0, dtype=np.int64)  # loads the replay kernel with the first edits
            self._replay(self.gens[gen], {name: none for name in self.master})
        else:
            bufs = self.gens[gen]
            for seq, rows in self.log:
                if seq > self.gen_seq[gen]:
                    self._replay(bufs, rows)
            self.gen_seq[gen] = self.seq
        bufs = self.current = self.gens[gen]
        views = {name: frozen(bufs[name][:self.n_v if name in ("corner", "pinch") else self.n_t])
                 for name in ("nbrs", "alive", "islands", "degree", "corner", "pinch")}
        views["items"] = frozen(bufs["items"])
        views["bounds"] = frozen(bufs["bounds"])
        return views

    def _replay(self, bufs: dict[str, npt.NDArray[Any]], rows: dict[str, _I64]) -> None:
        """Copy the master rows one edit touched into generation ``bufs``."""
        m = self.master
        announce_compile("navmesh", copy_rows)
        copy_rows(bufs["nbrs"], bufs["alive"], bufs["islands"], bufs["degree"], bufs["corner"], bufs["pinch"],
                  bufs["items"], bufs["bounds"], m["nbrs"], m["alive"], m["islands"], m["degree"], m["corner"],
                  m["pinch"], m["items"], m["bounds"], rows["nbrs"], rows["alive"], rows["islands"],
                  rows["corner"], rows["items"], rows["bounds"])

    # -- obstacles near a region --------------------------------------------------------
    def add_obstacle(self, oid: int, ob: _Obstacle) -> None:
        """Record obstacle ``oid`` (its bounds in a table searched by :meth:`blocked_near`)."""
        n = len(self.ob_row)
        if n == len(self.ob_key):
            self.ob_box = np.concatenate([self.ob_box, np.empty_like(self.ob_box)])
            self.ob_key = np.concatenate([self.ob_key, np.empty_like(self.ob_key)])
        self.obstacles[oid] = ob
        self.ob_box[n] = ob.bounds
        self.ob_key[n] = oid
        self.ob_row[oid] = n

    def remove_obstacle(self, oid: int) -> None:
        """Forget obstacle ``oid`` (the last row of the table takes its place)."""
        del self.obstacles[oid]
        row = self.ob_row.pop(oid)
        last = len(self.ob_row)
        if row != last:
            self.ob_box[row] = self.ob_box[last]
            self.ob_key[row] = self.ob_key[last]
            self.ob_row[int(self.ob_key[row])] = row

    def near_ids(self, bounds: tuple[float, float, float, float], skip: int = 0) -> list[int]:
        """Sorted ids of the obstacles (but ``skip``) whose inflated bounds meet ``bounds``."""
        x0, y0, x1, y1 = bounds
        n = len(self.ob_row)
        b, key = self.ob_box[:n], self.ob_key[:n]
        near = (b[:, 0] <= x1) & (b[:, 2] >= x0) & (b[:, 1] <= y1) & (b[:, 3] >= y0) & (key != skip)
        return sorted(key[near].tolist())

    def close_to(self, oid: int, ids: list[int]) -> list[int]:
        """Those of the obstacles ``ids`` (but ``oid``) within 16 tolerances of obstacle ``oid``
        (inflated): merging moves points by up to the tolerance, so where they meet, what either
        leaves of the free space depends on the other."""
        others = [k for k in ids if k != oid]
        if not others:
            return []
        near = shapely.dwithin([self.obstacles[k].inflated for k in others], self.obstacles[oid].inflated,
                               16 * self.tol)
        return [k for k, c in zip(others, near, strict=True) if c]

    def reach(self, oid: int) -> tuple[float, float, float, float]:
        """The bounds of obstacle ``oid`` and of the thin obstacles (see :class:`_Obstacle`)
        :meth:`close_to` it: what merging leaves of a thin one depends on those it meets (two
        walls thinner than the tolerance that meet leave a wall, either alone nothing), across
        its whole box, so an edit of ``oid`` re-triangulates them too."""
        x0, y0, x1, y1 = self.obstacles[oid].bounds
        m = 16 * self.tol
        thin = [k for k in self.close_to(oid, self.near_ids((x0 - m, y0 - m, x1 + m, y1 + m)))
                if self.obstacles[k].thin]
        return _cover([self.obstacles[k].bounds for k in [oid, *thin]])

    def blocked_near(self, bounds: tuple[float, float, float, float], skip: int = 0) -> BaseGeometry | None:
        """Union of the inflated obstacles (and a followed grid's blocked cells) whose bounds
        meet ``bounds``, or None (in the frame)."""
        ids = self.near_ids(bounds, skip)
        self.last_near = (bounds, ids)
        parts = [self.obstacles[k].inflated for k in ids]
        if self.grid_blocked is not None:
            cells = self.grid_cells_near(bounds)
            if cells is not None:
                parts.append(cells)
        if not parts:
            return None
        if len(parts) == 1:
            return parts[0]
        polygons = [p for p in parts if isinstance(p, shapely.Polygon)]
        if len(polygons) == len(parts) == len(ids):
            b = shapely.bounds(polygons)  # in the frame
            apart = ((b[:, None, 0] > b[None, :, 2]) | (b[:, None, 2] < b[None, :, 0])
                     | (b[:, None, 1] > b[None, :, 3]) | (b[:, None, 3] < b[None, :, 1]))
            if apart.sum() == len(ids) * (len(ids) - 1):  # boxes far apart: a valid multipolygon
                return shapely.MultiPolygon(polygons)
        return shapely.union(parts[0], parts[1]) if len(parts) == 2 else shapely.union_all(parts)

    def grid_window(self, bounds: tuple[float, float, float, float], reach: float
                    ) -> tuple[int, int, int, int] | None:
        """``(cx0, cx1, cy0, cy1)``, inclusive: the followed grid's cells (``[y, x]`` array
        ranges) within ``reach`` of ``bounds``, or None when there are none."""
        grid = self.grid
        assert self.grid_blocked is not None and grid is not None
        h, w = self.grid_blocked.shape
        cs, ox, oy, y_up = grid_frame(grid)
        cx0 = max(int(math.floor((bounds[0] - reach - ox) / cs)), 0)
        cx1 = min(int(math.floor((bounds[2] + reach - ox) / cs)), w - 1)
        if y_up:
            cy0 = max(h - 1 - int(math.floor((bounds[3] + reach - oy) / cs)), 0)
            cy1 = min(h - 1 - int(math.floor((bounds[1] - reach - oy) / cs)), h - 1)
        else:
            cy0 = max(int(math.floor((bounds[1] - reach - oy) / cs)), 0)
            cy1 = min(int(math.floor((bounds[3] + reach - oy) / cs)), h - 1)
        if cx0 > cx1 or cy0 > cy1:
            return None
        return cx0, cx1, cy0, cy1

    def grid_boxes(self, xs: _I64, ys: _I64) -> npt.NDArray[np.object_]:
        """The rectangles of the followed grid's cells ``(xs, ys)`` in the frame (corners on the
        lattice ``origin + k * cell_size``, as a build from the grid computes them, minus the
        frame's origin)."""
        grid = self.grid
        h = grid.shape[0]
        cs, ox, oy, y_up = grid_frame(grid)
        fx, fy = float(self.origin[0]), float(self.origin[1])
        rows = h - ys if y_up else ys + 1
        boxes: npt.NDArray[np.object_] = shapely.box(ox + xs * cs - fx, oy + (rows - 1) * cs - fy,
                                                     ox + (xs + 1) * cs - fx, oy + rows * cs - fy)
        return boxes

    def grid_cells_near(self, bounds: tuple[float, float, float, float]) -> BaseGeometry | None:
        """Inflated union of the followed grid's blocked cells near ``bounds`` (in the frame)."""
        assert self.grid_blocked is not None
        window = self.grid_window(bounds, 2 * self.radius + grid_frame(self.grid)[0])
        if window is None:
            return None
        cx0, cx1, cy0, cy1 = window
        ys, xs = np.nonzero(self.grid_blocked[cy0:cy1 + 1, cx0:cx1 + 1])
        if not len(xs):
            return None
        boxes = self.grid_boxes(xs + cx0, ys + cy0)
        return _inflate(shapely.union_all(boxes), self.radius)

    def grid_cost_zones(self, bounds: tuple[float, float, float, float]) -> list[tuple[BaseGeometry, float]]:
        """The followed grid's passable cells of each cost other than 1 near ``bounds``, one
        union per cost (the areas a build from the grid now would have there), in the frame."""
        assert self.grid_blocked is not None
        window = self.grid_window(bounds, grid_frame(self.grid)[0])
        if window is None:
            return []
        cx0, cx1, cy0, cy1 = window
        cost = np.where(self.grid_blocked[cy0:cy1 + 1, cx0:cx1 + 1], 1.0,
                        self.grid.cost[cy0:cy1 + 1, cx0:cx1 + 1])
        zones = []
        for c in np.unique(cost[cost != 1.0]).tolist():
            ys, xs = np.nonzero(cost == c)
            # without the cells' corners along straight edges (the build's areas have none: on
            # the edge of an untouched triangle such a point would be a T-junction)
            union = shapely.coverage_union_all(self.grid_boxes(xs + cx0, ys + cy0))
            zones.append((shapely.simplify(union, 0.0), float(c)))
        return zones

    def grid_costs(self, points: _F64) -> _F64:
        """The followed grid's cost at world ``points`` ``(n, 2)`` (1 on blocked cells)."""
        assert self.grid_blocked is not None
        h, w = self.grid_blocked.shape
        cells = self.grid.world_to_cell(points)
        xs, ys = np.clip(cells[:, 0], 0, w - 1), np.clip(cells[:, 1], 0, h - 1)
        out: _F64 = np.where(self.grid_blocked[ys, xs], 1.0, self.grid.cost[ys, xs])
        return out


def edit_state(mesh: NavMesh) -> EditState:
    """The mesh's :class:`EditState`, created on first use (under the mesh's lock)."""
    state: EditState | None = mesh._edits
    if state is None:
        with mesh._lock:
            state = mesh._edits
            if state is None:
                state = mesh._edits = EditState(mesh)
    return state


# -- the edit ---------------------------------------------------------------------------------

_NO_BOX = np.array([0.0, 0.0, 0.0, 0.0])
_NO_BOXES = np.zeros((0, 4))


class _Cavity(NamedTuple):
    """Triangles meeting an edit's box (see :func:`cavity`)."""

    ids: _I64
    covered: npt.NDArray[np.bool_]  # strictly inside the inner box and clear of the given boxes
    bounds: tuple[float, float, float, float]  # of all of them


def _cavity(es: EditState, verts: _F64, tris: _I64, box: tuple[float, float, float, float],
            base: bool = False, inner: tuple[float, float, float, float] | None = None,
            clear: npt.NDArray[np.float64] = _NO_BOXES) -> _Cavity:
    """The alive triangles meeting the closed ``box`` (of the mesh, or with ``base`` of the
    mesh as built); which of them lie strictly inside ``inner`` with bounds clear of the boxes
    ``clear`` ``(k, 4)``; and their bounds."""
    gmin, cell, nx, ny = es.grid_box
    es.tag_stamp += 1
    if base:
        start = es.base_start
        begin, end, items, alive, tag = start[:-1], start[1:], es.base_items, es.base_alive, es.base_tag
    else:
        bounds = es.master["bounds"]
        begin, end, items, alive, tag = (bounds[:, 0], bounds[:, 1], es.master["items"],
                                         es.master["alive"], es.tag)
    announce_compile("navmesh", cavity)
    ids, covered, lo_hi = cavity(verts, tris, alive, begin, end, items, float(gmin[0]), float(gmin[1]), cell,
                                 nx, ny, box[0], box[1], box[2], box[3], tag, es.tag_stamp,
                                 _NO_BOX if inner is None else np.array(inner, dtype=np.float64), clear)
    return _Cavity(ids, covered, (float(lo_hi[0]), float(lo_hi[1]), float(lo_hi[2]), float(lo_hi[3])))


def _union(es: EditState, verts: _F64, tris: _I64, nbrs: _I64, ids: _I64, tag: _I64,
           inner: tuple[float, float, float, float] | None = None) -> BaseGeometry:
    """The union of triangles ``ids`` (edge-adjacent through ``nbrs``) as a shapely geometry,
    built from its boundary rings: each edge-connected component of ``ids`` is one polygon,
    its outline and its holes (GEOS's coverage union when a pinch point leaves that unclear,
    its general union when slivers make the triangles no coverage GEOS accepts); in the frame
    (see :class:`EditState`).

    ``inner``: a box to be subtracted from the union afterwards; holes strictly inside it are
    left out (the caller's difference removes them anyway, with less work).
    """
    es.tag_stamp += 1
    announce_compile("navmesh", boundary_rings)
    box = inner if inner is not None else (0.0, 0.0, 0.0, 0.0)
    coords, ring_offsets, poly_offsets, ok = boundary_rings(verts, tris, nbrs, ids, tag, es.tag_stamp, *box)
    es.tag_stamp += len(ids) + 1
    if ok:
        coords = coords - es.origin
        n = len(poly_offsets) - 1
        if n == 1:
            out: BaseGeometry = shapely.from_ragged_array(shapely.GeometryType.POLYGON, coords,
                                                          (ring_offsets, poly_offsets))[0]
        else:
            out = shapely.from_ragged_array(shapely.GeometryType.MULTIPOLYGON, coords,
                                            (ring_offsets, poly_offsets, np.array([0, n])))[0]
        return out
    return _dissolve(verts[tris[ids]] - es.origin)


def _dissolve(corners: _F64) -> BaseGeometry:
    """The union of the triangles ``corners`` ``(n, 3, 2)`` (edge to edge): GEOS's coverage
    union, or its general union when slivers (kept, see NavMesh) make them no coverage it accepts."""
    polygons = shapely.polygons(corners)
    try:
        return shapely.coverage_union_all(polygons)
    except shapely.errors.GEOSException:
        return shapely.union_all(polygons)


def remesh(mesh: NavMesh, es: EditState, box: tuple[float, float, float, float], *, opened: bool,
           blocked: bool, skip: int = 0, undo_key: int = 0) -> NavMeshChange | None:
    """Re-triangulate the free space inside ``box`` and install the result (caller holds es.lock).

    ``opened``: space may have been freed inside the box (restore the original free space there).
    ``skip``: an obstacle id to ignore (being removed). ``undo_key``: the id of the obstacle
    being carved, under which to remember how to undo the edit (see :func:`_restore`).
    Returns the change, or None when the box meets no triangle and frees nothing.
    """
    verts = mesh._vertices
    tris = mesh._triangles
    # carving: the triangles inside the obstacle's box only need to go (see _region)
    inner = es.obstacles[undo_key].inner if undo_key and es.grid is None else None
    while True:
        cav = _cavity(es, verts, tris, box, inner=inner)
        rem = cav.ids
        es.last_near = None
        reuse = np.zeros(0, dtype=np.int64)
        with _geometry_errors("re-triangulating an edited region"):
            if es.grid is not None:
                region = _grid_region(mesh, es, box, rem, skip)
            else:
                region, reuse = _region(mesh, es, box, cav, opened, skip, undo_key)
            if region is None:
                return None
            # one vertex for outline points a rounding error apart (GEOS keeps some): of two such
            # mesh vertices a later edit's region may hold one, and the edge on the other would
            # crack; the spikes merging leaves are cut off as in a build, but not where triangles
            # left as they are meet the region (a crack)
            kept = functools.partial(_kept_points, es, verts, tris, rem, reuse)
            region = _without_threads(_area_part(merge_points(region, es.tol, kept)), es.tol)
        # a spike may run on in the triangles around at most the tolerance high: the region
        # grows over them and is made again, so that the whole spike goes, as in a build
        grown = _grown_over_thin(es, verts, tris, rem, box)
        if grown == box:
            break
        box = grown
    if region.is_empty:
        new_v = np.zeros((0, 2))
        new_t = np.zeros((0, 3), dtype=np.int64)
    else:
        zones = _cost_zones(es, region) if es.grid is not None or es.base_costs is not None else []
        with _geometry_errors("re-triangulating an edited region"):
            new_v, new_t = (triangulate_areas(region, zones)[:2] if zones
                            else triangulate_free_space(region))
        new_v, inverse = np.unique(new_v + es.origin, axis=0, return_inverse=True)
        new_t = _upright(new_v, inverse.reshape(-1)[new_t])
    n_fixed = 0
    if len(reuse):  # the build's triangles copied as they are, first (stitch merges their corners)
        n_fixed = 3 * len(reuse)
        new_t = np.concatenate([np.arange(n_fixed).reshape(-1, 3), new_t + n_fixed])
        new_v = np.concatenate([es.base_verts[es.base_tris[reuse]].reshape(-1, 2), new_v])
    near = es.last_near
    change = _install(mesh, es, box, rem, new_v, new_t, opened, blocked, n_fixed)
    if undo_key and es.grid is None and near is not None and len(rem) and len(change.added):
        # with the obstacle's own box: where it lay in other obstacles, their removal carved it
        # since, outside this region (so their removal must make the undo invalid)
        lo_hi = (min(box[0], near[0][0]), min(box[1], near[0][1]), max(box[2], near[0][2]), max(box[3], near[0][3]))
        es.undo[undo_key] = _Undo(rem, np.array(change.added), es.last_ring, lo_hi,
                                  es.near_ids(lo_hi, skip=undo_key))
    return change


def _kept_points(es: EditState, verts: _F64, tris: _I64, rem: _I64, reuse: _I64) -> _F64:
    """The points (in the frame) where triangles surviving an edit meet its region, at which no
    spike may be cut (that would crack their edges): the corners of the edges the removed
    triangles ``rem`` share with live ones, and of the build's triangles put back as they are
    (``reuse``)."""
    keys = _ring_keys(es, tris, rem)
    ring = verts[np.concatenate([keys >> 32, keys & 0xFFFFFFFF])]
    kept: _F64 = np.concatenate([ring, es.base_verts[es.base_tris[reuse]].reshape(-1, 2)]) - es.origin
    return kept


def _grown_over_thin(es: EditState, verts: _F64, tris: _I64, rem: _I64, box: tuple[float, float, float, float]
                     ) -> tuple[float, float, float, float]:
    """``box`` grown over the live triangles across an edge of triangles ``rem`` (not among
    them) at most the mesh tolerance high."""
    es.tag_stamp += 1
    es.tag[rem] = es.tag_stamp
    nb = es.master["nbrs"][rem].ravel()
    nb = nb[nb >= 0]
    nb = nb[es.tag[nb] != es.tag_stamp]
    p = verts[tris[nb]]
    e = np.roll(p, -1, axis=1) - p
    area2 = np.abs(e[:, 0, 0] * e[:, 1, 1] - e[:, 0, 1] * e[:, 1, 0])
    p = p[area2 <= es.tol * np.hypot(e[..., 0], e[..., 1]).max(axis=1, initial=0.0)]  # height <= tol
    if not len(p):
        return box
    lo, hi = p.min(axis=(0, 1)), p.max(axis=(0, 1))
    return (min(box[0], float(lo[0])), min(box[1], float(lo[1])), max(box[2], float(hi[0])), max(box[3], float(hi[1])))


def _upright(verts: _F64, tris: _I64) -> _I64:
    """Triangles ``tris``, counter-clockwise in the frame they were made in, counter-clockwise
    at the world vertices ``verts`` (distinct points, ``tris`` naming one id per world point).

    Moving to the world rounds the vertices to its coarser float steps. Points a step apart
    become one (two ids there, the triangles on either side shared no edge: a crack); the
    triangles between them collapse and go, their neighbours then share an edge. A sliver
    whose apex lay within a step of its long edge turns over (stitched as it is, its edges ran
    along its neighbours' in their direction: no portal, an island of its own, where points on
    an obstacle's edge answered NO_PATH): it and the triangle across its long edge exchange that
    edge for the one joining their apexes (the two then cover the same quadrilateral, a float
    step off); with none across (a border), the sliver goes.
    """
    from gamenav.navmesh.mesh import _area2  # mesh imports this module lazily

    tris = tris[(tris != np.roll(tris, 1, axis=1)).all(axis=1)]  # collapsed: corners one world point
    p = verts[tris]
    edge2 = ((p - np.roll(p, -1, axis=1)) ** 2).sum(axis=2)
    bad = np.flatnonzero(_area2(p, edge2) <= 0)
    if not len(bad):
        return tris
    tris = tris.copy()
    keep = np.ones(len(tris), dtype=bool)
    made = np.zeros(len(tris), dtype=bool)  # rows rewritten (checked again at the end)
    for i in bad.tolist():
        if made[i]:
            continue
        e = int(np.argmax(edge2[i]))
        a, b, m = tris[i, e], tris[i, (e + 1) % 3], tris[i, (e + 2) % 3]
        row, col = np.nonzero((tris == b) & (np.roll(tris, -1, axis=1) == a) & keep[:, None])
        if len(row):  # the triangle (b, a, c) across the long edge a -> b
            c = tris[row[0], (col[0] + 2) % 3]
            tris[row[0]] = (a, c, m)
            tris[i] = (c, b, m)
            made[[i, row[0]]] = True
        else:
            keep[i] = False
    p = verts[tris]
    keep &= _area2(p, ((p - np.roll(p, -1, axis=1)) ** 2).sum(axis=2)) > 0
    out: _I64 = tris[keep]
    return out


def _cost_zones(es: EditState, region: BaseGeometry) -> list[tuple[BaseGeometry, float]]:
    """The areas of each cost other than 1 near ``region`` (both in the frame): constraints for
    its re-triangulation, so that every new triangle lies in one area, as in a build, and takes
    that area's cost. Those of the build (unions of its triangles of that cost); following a
    grid, those of the grid now (its cells of that cost: cells opened or costed since the
    build have none of the build's triangles)."""
    bounds = _world_bounds(es, region)
    if es.grid is not None:
        return es.grid_cost_zones(bounds)
    assert es.base_costs is not None
    ids = _cavity(es, es.base_verts, es.base_tris, bounds, base=True).ids
    costs = es.base_costs[ids]
    zones = []
    for c in np.unique(costs[costs != 1.0]).tolist():
        zones.append((_dissolve(es.base_verts[es.base_tris[ids[costs == c]]] - es.origin), float(c)))
    return zones


def _world_bounds(es: EditState, geom: BaseGeometry) -> tuple[float, float, float, float]:
    """The world bounds of ``geom``, given in the frame."""
    x0, y0, x1, y1 = geom.bounds
    ox, oy = float(es.origin[0]), float(es.origin[1])
    return (x0 + ox, y0 + oy, x1 + ox, y1 + oy)


def _frame_box(es: EditState, box: tuple[float, float, float, float]) -> tuple[float, float, float, float]:
    """World ``box`` in the frame."""
    ox, oy = float(es.origin[0]), float(es.origin[1])
    return (box[0] - ox, box[1] - oy, box[2] - ox, box[3] - oy)


def _ring_keys(es: EditState, tris: _I64, ids: _I64) -> _I64:
    """Sorted keys ``min * 2**32 + max`` of the edges (vertex id pairs) that triangles ``ids``
    share with live triangles not in ``ids``."""
    es.tag_stamp += 1
    es.tag[ids] = es.tag_stamp
    nb = es.master["nbrs"][ids]
    t = tris[ids]
    out = nb >= 0
    out[out] = es.tag[nb[out]] != es.tag_stamp
    a, b = t[out], t[:, [1, 2, 0]][out]
    keys: _I64 = np.sort(np.minimum(a, b) * (1 << 32) + np.maximum(a, b))
    return keys


def _restore(mesh: NavMesh, es: EditState, box: tuple[float, float, float, float], oid: int,
             undo: _Undo) -> NavMeshChange | None:
    """Remove obstacle ``oid`` by putting back the triangles its carving removed, when that
    is exactly the free space a re-triangulation would give; else None (nothing changed).

    The conditions: the mesh follows no grid; every triangle the carving added is still alive
    (no edit since touched the region it re-triangulated, so that region still holds just
    them); the edges they share with the live triangles around are the edges the removed
    triangles shared with them then (the same vertex ids, so they stitch back); and the other
    obstacles whose bounds meet the region or the obstacle's are the ones that did then
    (obstacles never change, ids are never reused; where the obstacle lay in another one, that
    one's removal carved it outside the region). The removed triangles covered the region's free space with exactly
    those obstacles carved; so do the copies (new ids, the same vertices and geometry).
    """
    if es.grid is not None or not es.master["alive"][undo.added].all():
        return None
    if es.near_ids(undo.bounds, skip=oid) != undo.near:
        return None
    tris = mesh._triangles
    if not np.array_equal(_ring_keys(es, tris, undo.added), undo.ring):
        return None
    used, inverse = np.unique(tris[undo.pre], return_inverse=True)
    bounds = (min(box[0], undo.bounds[0]), min(box[1], undo.bounds[1]), max(box[2], undo.bounds[2]),
              max(box[3], undo.bounds[3]))
    return _install(mesh, es, bounds, undo.added, mesh._vertices[used], inverse.reshape(-1, 3), True, False)


def _grid_region(mesh: NavMesh, es: EditState, box: tuple[float, float, float, float], rem: _I64,
                 skip: int) -> BaseGeometry | None:
    """The new free space of the cavity of a mesh following a grid (in the frame): inside
    ``box`` computed afresh from the grid (its rectangle shrunk at the border, minus every
    blocked cell and obstacle, inflated), outside it the removed triangles as they were.

    Subtracting the inflated walls from the old triangles instead would cut them along lines
    the build computed with other rounding (1e-16 apart): slivers and vertices off the edges of
    the untouched triangles. Inside the box everything comes from one computation; the two
    parts meet only on the box's edges, which no untouched triangle reaches. None when the box
    meets neither triangles nor free space.
    """
    clip = shapely.box(*_frame_box(es, box))
    inside = shapely.intersection(es.grid_free, clip)
    blocked = es.blocked_near(box, skip)
    if blocked is not None:
        inside = shapely.difference(inside, blocked)
    if len(rem):
        outside = shapely.difference(_union(es, mesh._vertices, mesh._triangles, es.master["nbrs"], rem, es.tag),
                                     clip)
        inside = shapely.union(inside, outside)
    region = _area_part(inside)
    return None if region.is_empty and not len(rem) else region


def _clip(geom: BaseGeometry, box: tuple[float, float, float, float]) -> BaseGeometry:
    """``geom`` intersected with ``box``: GEOS's rectangle clipping (an order of magnitude
    faster) when no vertex of ``geom`` lies on a line of the box, where its output may be
    invalid (spikes along the box); the general intersection otherwise."""
    p = shapely.get_coordinates(geom)
    x, y = p[:, 0], p[:, 1]
    if ((x == box[0]) | (x == box[2]) | (y == box[1]) | (y == box[3])).any():
        return shapely.intersection(geom, shapely.box(*box))
    return shapely.clip_by_rect(geom, *box)


def _region(mesh: NavMesh, es: EditState, box: tuple[float, float, float, float], cav: _Cavity, opened: bool,
            skip: int, new: int = 0) -> tuple[BaseGeometry | None, _I64]:
    """The new free space of the cavity ``cav`` (in the frame): the removed triangles (and with
    ``opened`` the free space of the build inside ``box`` minus the obstacles); None when there
    is none of either. Also returns the build's triangles to put back as they are, left out of
    the region.

    ``new``: the id of the obstacle being carved. Without ``opened`` the removed triangles
    already lie outside every other obstacle (they cover the mesh's free space), so only that
    one is subtracted (no union of the obstacles around; the other ones' edges are already
    the triangles' edges), with those within 16 tolerances of it: merging may have moved the
    triangles' corners up to the tolerance into another obstacle, and one overlapping it by
    less left a strip between them (a passage a build has not). The triangles inside its box
    add nothing: only the others go into the union (holes inside the box left out too).

    ``skip``: the obstacle being removed. The build's triangles strictly inside its box and
    clear of every other obstacle's bounds are put back as they are: the live triangles lie
    outside the obstacle, so nothing overlaps them, and the freed space around them is
    re-triangulated (their edges are the region's boundary with the same coordinates, which
    the stitching matches). Only the obstacles meeting ``box`` (where space is freed) are
    subtracted, from the build's free space only: one thinner than the tolerance carves nothing
    alone, and subtracted beyond the box it cut the removed triangles up to edges that untouched
    ones share (a crack); the removed triangles lie outside every obstacle already, and one
    subtracted again (a wall as thin as the tolerance, carved as merging left it) cut a sliver
    off them along such an edge, far from the obstacle removed (a crack).
    """
    reuse = np.zeros(0, dtype=np.int64)
    verts, tris = mesh._vertices, mesh._triangles
    rem = cav.ids
    parts = []
    if len(rem):
        keep = rem[~cav.covered]
        inner = es.obstacles[new].inner if new else None
        parts.append(_union(es, verts, tris, es.master["nbrs"], keep, es.tag, inner) if len(keep)
                     else shapely.Polygon())
    if opened:
        inner = es.obstacles[skip].inner if skip else None
        near = es.near_ids(inner, skip) if inner is not None else []
        clear = np.array([es.obstacles[k].bounds for k in near]).reshape(-1, 4)
        base = _cavity(es, es.base_verts, es.base_tris, box, base=True, inner=inner, clear=clear)
        reuse = base.ids[base.covered]
        bc = base.ids[~base.covered]
        if len(bc):
            freed = _clip(_union(es, es.base_verts, es.base_tris, es.base_nbrs, bc, es.base_tag),
                          _frame_box(es, box))
            blocked = es.blocked_near(box, skip)
            parts.append(freed if blocked is None else shapely.difference(freed, blocked))
    if not parts:
        return (shapely.Polygon() if len(reuse) else None), reuse
    region = parts[0] if len(parts) == 1 else shapely.union(parts[0], parts[1])
    if new and not opened:
        es.last_near = (cav.bounds, es.near_ids(cav.bounds))
        if new in es.last_near[1]:
            ob = es.obstacles[new].inflated
            close = [es.obstacles[k].inflated for k in es.close_to(new, es.last_near[1])]
            region = shapely.difference(region, shapely.union_all([ob, *close]) if close else ob)
    return _area_part(region), reuse


def _install(mesh: NavMesh, es: EditState, box: tuple[float, float, float, float], rem: _I64,
             new_v: _F64, new_t: _I64, opened: bool, blocked: bool, n_fixed: int = 0) -> NavMeshChange:
    """Stitch the new triangles to the mesh and install the new arrays at once (``n_fixed``:
    the first new vertices, those of triangles copied as they are, see :func:`stitch`).

    Work is proportional to the edit (removed, new and ring triangles), not to the mesh:
    masters change in place, readers get a generation with those rows copied.
    """
    from gamenav.navmesh.mesh import _versions  # mesh imports this module lazily

    verts = mesh._vertices
    tris = mesh._triangles
    n_old = es.n_t
    nv_old = es.n_v
    es.ensure(n_old + len(new_t), nv_old + len(new_v))
    vbuf = es.verts.reserve(len(new_v))
    tbuf = es.tris.reserve(len(new_t))
    m = es.master
    es.tag_stamp += 1
    stamp = es.tag_stamp
    es.tag_stamp += 3 * len(rem) + 2
    announce_compile("navmesh", stitch)
    nv, k, b_edges, b_owner, vtouch, local_root, ring_u, es.last_ring = stitch(
        np.ascontiguousarray(new_v, dtype=np.float64), np.ascontiguousarray(new_t, dtype=np.int64), n_fixed,
        es.tol * es.tol, vbuf, nv_old, tbuf, n_old, MIN_EDGE * MIN_EDGE, m["nbrs"], m["alive"], m["degree"],
        es.border_count, m["corner"], m["pinch"], rem, es.tag, stamp)
    all_verts = es.verts.view(nv) if nv > nv_old else verts
    all_tris = es.tris.view(n_old + k) if k else tris
    added = np.arange(n_old, n_old + k, dtype=np.int64)
    border_edges = es.border_edges.extend(b_edges) if len(b_edges) else frozen(es.border_edges.buf[:es.border_edges.n])
    border_tri = es.border_tri.extend(b_owner) if len(b_owner) else frozen(es.border_tri.buf[:es.border_tri.n])
    # -- islands, point location index
    relabelled = _islands(es, rem, added, local_root, ring_u, k, blocked)
    es.n_t, es.n_v = n_old + k, nv
    index_rows, index_cells = _reindex(es, all_verts, all_tris, added)
    rows_t = np.concatenate([rem, ring_u, added])
    touched = {"nbrs": rows_t, "alive": np.concatenate([rem, added]), "degree": rows_t,
               "islands": relabelled, "corner": vtouch, "pinch": vtouch, "items": index_rows,
               "bounds": index_cells}
    views = es.commit(touched)
    n_new = n_old + k
    side = es.zero_side.extend(np.zeros((k, 3), dtype=np.int8)) if k else frozen(es.zero_side.buf[:n_new])
    tin = es.zero_time.extend(np.zeros(k, dtype=np.int64)) if k else frozen(es.zero_time.buf[:n_new])
    version = next(_versions)
    state = {
        "_vertices": all_verts, "_triangles": all_tris, "_neighbours": views["nbrs"],
        "_alive": views["alive"], "_islands": views["islands"], "_side": side, "_tin": tin, "_tout": tin,
        "_degree": views["degree"], "_border_edges": border_edges, "_border_tri": border_tri,
        "_corner": views["corner"], "_pinch": views["pinch"],
        "_cell_start": views["bounds"], "_cell_items": views["items"], "_version": version,
    }
    if es.costs is not None:  # area costs: a new triangle takes the cost at its centroid
        new_costs = np.ones(k)
        if k and es.grid is not None:  # the grid's now
            new_costs = es.grid_costs(all_verts[all_tris[added]].mean(axis=1))
        elif k and es.base_costs is not None:  # the build's
            from gamenav._kernels.navmesh import locate_points

            gmin, cell, nx, ny = es.base_grid
            cv, ct, cs, ci = es.cost_index
            base = locate_points(all_verts[all_tris[added]].mean(axis=1), cv, ct, es.base_alive, gmin, cell, nx, ny,
                                 cs[:-1], cs[1:], ci, mesh._tol)
            new_costs[base >= 0] = es.base_costs[base[base >= 0]]
        state["_area_costs"] = es.costs.extend(new_costs)
    with mesh._lock:
        mesh.__dict__.update(state)
    bounds = (float(box[0]), float(box[1]), float(box[2]), float(box[3]))
    return NavMeshChange(version, bounds, frozen(rem.astype(np.int64)), frozen(added), opened, blocked)


def _islands(es: EditState, rem: _I64, added: _I64, local_root: _I64, ring_u: _I64, k: int,
             blocked: bool = True) -> _I64:
    """Island labels after an edit, in the master (labels stay 0..n-1); returns the triangle
    ids whose label changed.

    The common case needs no merge: every local component (new triangles and the distinct
    ring triangles ``ring_u``, linked by matched edges; ``local_root`` their union-find
    roots) meets exactly one island, and every island that lost triangles keeps a ring
    triangle. New triangles then take their component's label; an island met by several
    components may have split (only when space was ``blocked``: see :func:`_split`).
    Otherwise see :func:`_islands_general`.
    """
    labels = es.master["islands"]
    sizes = es.sizes
    nu = len(ring_u)
    if nu:
        ring_lab = labels[ring_u]
        ring_root = local_root[k:]
        lab_of_root = np.full(k + nu, -1, dtype=np.int64)
        lab_of_root[ring_root] = ring_lab
        ul = np.unique(ring_lab)
        new_lab = lab_of_root[local_root[:k]]
        old = labels[rem]
        if ((lab_of_root[ring_root] == ring_lab).all() and (new_lab >= 0).all()
                and (ul[np.searchsorted(ul, old) % len(ul)] == old).all()):
            np.subtract.at(sizes, old, 1)
            labels[rem] = -1
            labels[added] = new_lab
            es.seed[new_lab] = added
            np.add.at(sizes, new_lab, 1)
            changed = [rem, added]
            if blocked:
                roots = np.unique(ring_root)
                comp_lab = lab_of_root[roots]
                if len(ul) < len(roots):
                    local = np.concatenate([added, ring_u])
                    for lab in ul.tolist():
                        comps = roots[comp_lab == lab]
                        if len(comps) > 1:
                            changed += _split(es, lab, local[comps])
            out: _I64 = np.concatenate(changed)
            return out
    elif not k and not len(rem):
        return rem
    return _islands_general(es, rem, added, local_root, ring_u, k, blocked)


def _split(es: EditState, lab: int, seeds: _I64) -> list[_I64]:
    """Give new labels to the parts of island ``lab`` the edit separated, searching from
    ``seeds`` (a triangle of each local component meeting it) until at most one search can
    still grow (work bounded by the separated parts); returns the relabelled triangle ids."""
    labels = es.master["islands"]
    announce_compile("navmesh", split_groups)
    _, done, tail = split_groups(es.master["nbrs"], seeds, es.mark, es.stamp, es.queue, es.group)
    es.stamp += len(seeds)
    changed = []
    for g in np.flatnonzero(done).tolist():
        part = es.queue[:tail][es.group[:tail] == g].copy()
        fresh = es.n_labels
        es.n_labels += 1
        labels[part] = fresh
        es.seed[fresh] = part[0]
        es.sizes[fresh] = len(part)
        es.sizes[lab] -= len(part)
        changed.append(part)
    return changed


def _islands_general(es: EditState, rem: _I64, added: _I64, local_root: _I64, ring_u: _I64,
                     k: int, blocked: bool = True) -> _I64:
    """Island labels after any edit (see :func:`_islands`).

    New triangles join their local component's island; a component touching several islands
    merges them (the smaller ones are relabelled); a component touching none is a new island.
    An island whose ring triangles fall in several local components may have split: searches
    from each component that stop once at most one can still grow find the separated parts,
    which get new labels (work bounded by the separated parts). Labels left unused are filled
    from the top label.

    An edit that only frees space (``blocked`` False: an obstacle removed, cells opened)
    splits no island, so it runs no split search: the new free space contains the old one, and
    two triangles joined by a chain of shared edges (a path through the interior of the free
    space) stay joined by one through the interior of the larger space, which the stitched
    triangulation (no cracks, pinch points not connecting) covers edge to edge.
    """
    labels = es.master["islands"]
    nbrs = es.master["nbrs"]
    sizes = es.sizes
    old = labels[rem]
    np.subtract.at(sizes, old[old >= 0], 1)
    labels[rem] = -1
    changed: list[_I64] = [rem, added]
    affected = set(old[old >= 0].tolist())
    local = np.concatenate([added, ring_u])
    ring_roots = local_root[k:]
    key = ring_roots * (es.n_labels + 1) + labels[ring_u]
    _, first = np.unique(key, return_index=True)  # one entry per (component, island)
    comp_labels: dict[int, set[int]] = {}  # local component root -> islands its ring meets
    for root, lab in zip(ring_roots[first].tolist(), labels[ring_u[first]].tolist(), strict=True):
        comp_labels.setdefault(root, set()).add(lab)
    alias: dict[int, int] = {}

    def resolve(lab: int) -> int:
        while lab in alias:
            lab = alias[lab]
        return lab

    comp_final: dict[int, int] = {}
    new_roots = sorted(set(np.unique(local_root[:k]).tolist()) | set(comp_labels))
    for root in new_roots:
        labs = {resolve(x) for x in comp_labels.get(root, ())}
        if not labs:  # a new island
            lab = es.n_labels
            es.n_labels += 1
            sizes[lab] = 0
        else:
            lab = max(labs, key=lambda x: (int(sizes[x]), -x))
            for other in labs - {lab}:  # merge: relabel the smaller island
                # from each of its ring triangles: the removed ones may have been all that held
                # its pieces together (the new triangles, unlabelled yet, do not link them)
                for seed in ring_u[labels[ring_u] == other].tolist():
                    cnt = relabel(nbrs, labels, seed, other, lab, es.queue)
                    changed.append(es.queue[:cnt].copy())
                sizes[lab] += sizes[other]
                sizes[other] = 0
                alias[other] = lab
                affected.add(other)
        comp_final[root] = lab
    # new triangles take their component's label
    final = np.full(len(local_root), -1, dtype=np.int64)
    # resolve: a component handled before a later merge may hold the merged-away label
    final[list(comp_final)] = [resolve(lab) for lab in comp_final.values()]
    new_lab = final[local_root[:k]]
    labels[added] = new_lab
    es.seed[new_lab] = added
    if k:
        np.add.at(sizes, new_lab, 1)
    # possible splits: one island met by several local components
    by_label: dict[int, list[int]] = {}
    for root in new_roots:
        if root in comp_labels:
            by_label.setdefault(resolve(comp_final[root]), []).append(root)
    for lab, comps in by_label.items():
        if len(comps) < 2 or not blocked:
            continue
        changed += _split(es, lab, local[np.array(comps, dtype=np.int64)])
    # fill unused labels from the top
    holes = sorted(x for x in affected if x < es.n_labels and sizes[x] == 0)
    while holes:
        top = es.n_labels - 1
        if sizes[top] == 0:
            es.n_labels -= 1
            if top in holes:
                holes.remove(top)
            continue
        h = holes.pop(0)
        if h > top:
            break
        seed = int(es.seed[top])
        if seed < 0 or labels[seed] != top:  # the remembered triangle died or moved on
            seed = int(np.argmax(labels[:es.n_t + k] == top))
        es.seed[h] = seed
        cnt = relabel(nbrs, labels, seed, top, h, es.queue)
        changed.append(es.queue[:cnt].copy())
        sizes[h] = sizes[top]
        sizes[top] = 0
        es.n_labels -= 1
    out: _I64 = np.concatenate(changed)
    return out


def _tri_cells(es: EditState, verts: _F64, tris: _I64, ids: _I64) -> tuple[_I64, _I64]:
    """Bucket cells of triangles ``ids`` (their tolerance-grown boxes), and the id per cell."""
    gmin, cell, nx, ny = es.grid_box
    announce_compile("navmesh", tri_cells)
    cells, owner = tri_cells(verts, tris, np.ascontiguousarray(ids, dtype=np.int64), float(gmin[0]),
                             float(gmin[1]), cell, nx, ny, es.tol)
    return cells, owner


def _build_padded_index(es: EditState, verts: _F64, tris: _I64) -> None:
    """The bucket index of the live triangles with spare room in every cell and at the end
    (``bounds[c]`` = ``[begin, end)`` of cell ``c``'s entries; a full cell moves to the end)."""
    gmin, cell, nx, ny = es.grid_box
    live = np.flatnonzero(es.master["alive"][:len(tris)])
    cells, ids = _tri_cells(es, verts, tris, live)
    count = np.bincount(cells, minlength=nx * ny).astype(np.int64)
    cap = count + 4
    begin = np.zeros(nx * ny, dtype=np.int64)
    np.cumsum(cap[:-1], out=begin[1:])
    order = np.argsort(cells, kind="stable")
    cells, ids = cells[order], ids[order]
    first = np.searchsorted(cells, np.arange(nx * ny))
    used = int(begin[-1] + cap[-1])
    items = np.full(used + used // 2 + 1024, -1, dtype=np.int64)
    items[begin[cells] + np.arange(len(cells)) - first[cells]] = ids
    es.master["items"] = items
    es.master["bounds"] = np.stack([begin, begin + count], axis=1)
    es.cell_cap = cap
    es.cell_count = np.zeros(nx * ny, dtype=np.int64)  # reindex's scratch
    es.tail = np.array([used], dtype=np.int64)


def _reindex(es: EditState, verts: _F64, tris: _I64, added: _I64) -> tuple[_I64, _I64]:
    """Patch the bucket index (master) for an edit's new triangles ``added`` (consecutive ids;
    removed ones stay listed, dead, until their bucket fills); returns the item positions and
    the cells written."""
    gmin, cell, nx, ny = es.grid_box
    n_old = int(added[0]) if len(added) else es.n_t
    announce_compile("navmesh", reindex)
    while True:
        ok, need, pos, cells = reindex(es.master["items"], es.master["bounds"], es.cell_cap, es.tail,
                                       es.cell_count, es.master["alive"], verts, tris, n_old, len(added),
                                       float(gmin[0]), float(gmin[1]), cell, nx, ny, es.tol)
        if ok:
            return pos, cells
        items = es.master["items"]  # grow the spare room at the end (generations reset)
        grown = np.full(2 * (int(es.tail[0]) + int(need)), -1, dtype=np.int64)
        grown[:len(items)] = items
        es.master["items"] = grown


# -- public operations (NavMesh methods delegate here) ---------------------------------------

def _notify(mesh: NavMesh, change: NavMeshChange | None, **result: object) -> None:
    """Deliver ``change`` (if any) to the mesh's listeners. An edit stays applied when one raises
    (every listener has heard of it, as of a grid edit): the first error propagates once all have
    run, carrying what the edit returns (``result``, e.g. ``obstacle_id=3``) as attributes, so
    that the caller still gets it (an obstacle it could not remove is lost)."""
    if change is None:
        return
    try:
        mesh._listeners.notify(change)
    except BaseException as exc:
        for name, value in result.items():
            with contextlib.suppress(Exception):  # (a listener's exception class may refuse attributes)
                setattr(exc, name, value)
        raise


def _obstacle_geometry(shape: Any) -> tuple[BaseGeometry, tuple[float, float, float, float] | None]:
    """``shape`` as :func:`~gamenav.navmesh.build._as_geometry` reads it (a valid polygon, or
    one ring of points making one, with finite in-range coordinates is taken as it is, but for
    coordinates that would underflow, see :func:`~gamenav.navmesh.build._without_underflow`),
    and its bounds when it is an axis-aligned rectangle (see :func:`_axis_box`)."""
    geom: BaseGeometry | None = None
    if isinstance(shape, shapely.Polygon):
        geom = shape
    elif isinstance(shape, (list, tuple, np.ndarray)) and len(shape) >= 3:
        ring = float_numbers(shape)  # numbers only (no strings, bools or ints beyond float), as _as_geometry reads them
        if ring is not None and ring.ndim == 2 and ring.shape[1] == 2 and np.isfinite(ring).all():
            geom = shapely.Polygon(ring)
    if geom is not None:
        coords = shapely.get_coordinates(geom)
        if len(coords) and np.isfinite(coords).all() and np.abs(coords).max() <= MAX_COORDINATE:
            box = _axis_box(coords) if not shapely.get_num_interior_rings(geom) else None
            if box is not None or (shapely.is_valid(geom) and geom.area > 0):
                return _without_underflow(geom), box
    read = _as_geometry(shape, "shape")
    box = None
    if isinstance(read, shapely.Polygon) and not shapely.get_num_interior_rings(read):
        box = _axis_box(shapely.get_coordinates(read))
    return read, box


@contextlib.contextmanager
def _edit_locks(es: EditState) -> Iterator[None]:
    """``es.lock``, taken after the followed grid's edit lock (if any) as a grid edit takes them
    (its follower takes ``es.lock``): a mesh edit whose listener edits the grid deadlocked with
    an edit of the grid in another thread."""
    with no_waits(), es.grid._edit_lock if es.grid is not None else contextlib.nullcontext(), es.lock:
        yield


@contextlib.contextmanager
def _open_edit(mesh: NavMesh, es: EditState, action: str) -> Iterator[None]:
    """The edit locks (see :func:`_edit_locks`), the mesh checked open under them: an edit in
    flight when :meth:`~gamenav.NavMesh.close` is called (which takes them) lands whole before
    it returns, and none lands after."""
    with _edit_locks(es):
        mesh._check_open(action)
        yield


def add_obstacle(mesh: NavMesh, shape: Any) -> int:
    """See :meth:`gamenav.NavMesh.add_obstacle`."""
    geom, box = _obstacle_geometry(shape)
    if geom.is_empty:
        raise InvalidGeometryError("shape must be a polygon with area, got an empty geometry")
    es = edit_state(mesh)
    with _geometry_errors("inflating the obstacle"):  # as a build shrinks free space; kept in the frame
        inflated = moved(_inflate(geom, es.radius, box), -es.origin)
    with _open_edit(mesh, es, "add obstacles to"):
        oid = next(_obstacle_ids)
        es.add_obstacle(oid, _Obstacle(geom, inflated, es.origin, box, es.tol))
        try:
            change = remesh(mesh, es, _grown(mesh, es.reach(oid)), opened=False, blocked=True, undo_key=oid)
        except BaseException:
            es.remove_obstacle(oid)
            es.undo.pop(oid, None)
            raise
        _notify(mesh, change, obstacle_id=oid)
    return oid


def remove_obstacle(mesh: NavMesh, oid: Any) -> None:
    """See :meth:`gamenav.NavMesh.remove_obstacle`."""
    es = edit_state(mesh)
    with _open_edit(mesh, es, "remove obstacles from"):
        if not is_int(oid) or int(oid) not in es.obstacles:
            raise InvalidInputError(f"oid must be the id of an obstacle of this mesh (one of "
                                    f"{sorted(es.obstacles)[:10]}), got {shown(oid)}")
        box = _grown(mesh, es.reach(int(oid)))
        undo = es.undo.pop(int(oid), None)
        change = _restore(mesh, es, box, int(oid), undo) if undo is not None else None
        if change is None:
            change = remesh(mesh, es, box, opened=True, blocked=False, skip=int(oid))
        es.remove_obstacle(int(oid))
        _notify(mesh, change)


def compact(mesh: NavMesh) -> _I64:
    """See :meth:`gamenav.NavMesh.compact`."""
    from gamenav.navmesh.mesh import NavMesh, _versions

    es = mesh._edits
    if es is None:
        return frozen(np.arange(len(mesh._triangles), dtype=np.int64))
    with _open_edit(mesh, es, "compact"):
        with mesh._lock:
            alive, verts, tris = mesh._alive, mesh._vertices, mesh._triangles
            costs = mesh._cost_array() if es.has_costs else None
        n = len(tris)  # under the lock: an edit in another thread appends triangles
        live = np.flatnonzero(alive)
        remap = np.full(n, -1, dtype=np.int64)
        remap[live] = np.arange(len(live))
        if len(live) == n or not len(live):
            return frozen(remap)  # nothing dead (the identity), or nothing left to renumber (all -1)
        used, inverse = np.unique(tris[live], return_inverse=True)
        fresh = NavMesh(verts[used], inverse.reshape(-1, 3), None if costs is None else costs[live])
        if len(fresh) != len(live):  # pragma: no cover - edits keep no degenerate triangle
            raise InvalidGeometryError("compacting dropped a degenerate triangle")
        # keep the bucket grid (the build's index shares it) and the tolerance
        fresh._grid, fresh._tol, fresh._box = mesh._grid, mesh._tol, mesh._box
        es.load(fresh)
        views = es.commit({name: np.zeros(0, dtype=np.int64) for name in es.master})
        version = next(_versions)
        state = {
            "_vertices": fresh._vertices, "_triangles": fresh._triangles, "_neighbours": views["nbrs"],
            "_alive": views["alive"], "_islands": views["islands"], "_side": fresh._side,
            "_tin": fresh._tin, "_tout": fresh._tout, "_degree": views["degree"],
            "_border_edges": fresh._border_edges, "_border_tri": fresh._border_tri,
            "_corner": views["corner"], "_pinch": views["pinch"], "_cell_start": views["bounds"],
            "_cell_items": views["items"],
            "_version": version}
        if costs is not None:
            state["_area_costs"] = fresh._area_costs
        lo, hi = verts.min(axis=0), verts.max(axis=0)
        with mesh._lock:
            mesh.__dict__.update(state)
        change = NavMeshChange(version, (float(lo[0]), float(lo[1]), float(hi[0]), float(hi[1])),
                               frozen(live), frozen(np.arange(len(live), dtype=np.int64)), False, False,
                               frozen(remap))
        _notify(mesh, change, remap=change.remap)
    return change.remap if change.remap is not None else remap


def remove_all(mesh: NavMesh) -> None:
    """Remove every triangle of ``mesh`` in one edit, as an obstacle covering it would (no
    obstacle is recorded; nobody is notified: for unpickling a mesh that edits emptied). The
    free space as built is then none: no later removal of an obstacle brings any back."""
    es = edit_state(mesh)
    with es.lock:
        rem = np.flatnonzero(es.master["alive"][:es.n_t])
        _install(mesh, es, mesh.bounds, rem, np.zeros((0, 2)), np.zeros((0, 3), dtype=np.int64), False, True)
        es.base_alive[:] = False


def _cover(boxes: list[tuple[float, float, float, float]]) -> tuple[float, float, float, float]:
    """The bounds of ``boxes`` (``(x0, y0, x1, y1)`` each)."""
    x0, y0, x1, y1 = zip(*boxes, strict=True)
    return min(x0), min(y0), max(x1), max(y1)


def _grown(mesh: NavMesh, bounds: tuple[float, float, float, float]) -> tuple[float, float, float, float]:
    m = 16 * mesh._tol
    return (bounds[0] - m, bounds[1] - m, bounds[2] + m, bounds[3] + m)


class GridFollower:
    """Applies a TileGrid's passability edits to a mesh built from it (held weakly both ways:
    the grid holds this follower weakly, the follower holds the mesh weakly) until :meth:`close`."""

    def __init__(self, mesh: NavMesh, grid: TileGrid) -> None:
        import weakref

        from gamenav.navmesh.build import free_space

        self._mesh = weakref.ref(mesh)
        self.pending: list[tuple[tuple[float, float, float, float], bool, bool]] = []  # (box, opened, blocked)
        es = edit_state(mesh)
        with es.lock:
            es.grid = grid
            es.grid_blocked = ~grid.passable  # every blocked cell is an obstacle (inflated)
            # space restored where cells open: the whole grid, shrunk at its outer border only
            cs, ox, oy, _ = grid_frame(grid)
            w, h = grid.shape[1] * cs, grid.shape[0] * cs
            es.grid_free = moved(free_space(shapely.box(ox, oy, ox + w, oy + h), agent_radius=es.radius), -es.origin)
        self.unsubscribe: Callable[[], None] = grid.subscribe(self.on_change, weak=True)

    def close(self) -> None:
        """Stop following: no grid edit reaches the mesh afterwards (edits already heard but not
        applied yet, waiting for a listener's edit, are dropped too)."""
        self.unsubscribe()
        self.pending.clear()

    def on_change(self, change: GridChange) -> None:
        mesh = self._mesh()
        if mesh is None:
            self.unsubscribe()
            return
        # cells whose cost changed too: the re-triangulation follows the grid's cost areas
        cells = np.concatenate([change.blocked, change.opened, change.cost_raised, change.cost_lowered])
        if not len(cells):
            return
        es = edit_state(mesh)
        grid = es.grid
        ys, xs = cells[:, 1], cells[:, 0]
        assert es.grid_blocked is not None
        with es.lock:
            es.grid_blocked[change.blocked[:, 1], change.blocked[:, 0]] = True
            es.grid_blocked[change.opened[:, 1], change.opened[:, 0]] = False
            cs, ox, oy, y_up = grid_frame(grid)
            h = grid.shape[0]
            x0 = ox + xs.min() * cs
            x1 = ox + (xs.max() + 1) * cs
            if y_up:
                y0, y1 = oy + (h - ys.max() - 1) * cs, oy + (h - ys.min()) * cs
            else:
                y0, y1 = oy + ys.min() * cs, oy + (ys.max() + 1) * cs
            g = grown_radius(es.radius)
            box = _grown(mesh, (x0 - g, y0 - g, x1 + g, y1 + g))
            opened = bool(len(change.opened) or len(change.cost_lowered))  # paths may get cheaper
            self.pending.append((box, opened, bool(len(change.blocked))))
            # the costs are read from the grid as it is now: while a later edit (made by a listener)
            # is still to come, the boxes wait for it, so that passability and costs agree; each
            # box then shows the state after every waiting edit, so its change says what any did
            opened = any(p[1] for p in self.pending)
            blocked = any(p[2] for p in self.pending)
            first: BaseException | None = None
            while self.pending and grid.version == change.version:
                box = self.pending.pop(0)[0]
                edit = remesh(mesh, es, box, opened=opened, blocked=blocked)
                try:
                    _notify(mesh, edit)
                except BaseException as exc:  # a mesh listener's: the boxes after it still go in
                    if first is not None:
                        _log.error("gamenav: another change listener failed too", exc_info=exc)
                    first = first or exc
            if first is not None:
                raise first


def follow_grid(mesh: NavMesh, grid: TileGrid) -> None:
    """Make ``mesh`` follow ``grid``'s passability edits (see :meth:`NavMesh.from_grid`)."""
    # cells blocked at the build may open: point location must cover the whole grid, not only
    # the triangles built (before the edit state copies the index as the base one)
    cs, ox, oy, _ = grid_frame(grid)
    w, h = grid.shape[1] * cs, grid.shape[0] * cs
    with mesh._lock:
        mesh._build_index(cover=(ox, oy, ox + w, oy + h))
    mesh.__dict__["_edits_follower"] = GridFollower(mesh, grid)


def close_edits(mesh: NavMesh) -> None:
    """End ``mesh``'s edits (see :meth:`NavMesh.close`): closed under the edit locks, so that an
    edit in flight in another thread (a grid edit too) lands whole first and any later one is
    refused; it stops following its grid, if it does."""
    with mesh._lock:  # (edit_state makes the state under it: an edit starting now sees it closed)
        es = mesh._edits
        if es is None:
            mesh._closed = True
            return
    with _edit_locks(es):
        mesh._closed = True
        follower = mesh.__dict__.pop("_edits_follower", None)
        if follower is not None:
            follower.close()
