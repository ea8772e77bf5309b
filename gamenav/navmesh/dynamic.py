"""Local navmesh edits: carve and uncarve obstacles, follow a TileGrid, without a rebuild.

Everything is world ``(x, y)``. An edit touches a box (the inflated obstacle's bounds, or the
changed cells grown by the agent radius): the live triangles intersecting that box are removed,
the free space they covered (plus, when space opens, the mesh's original free space inside the
box) minus every obstacle is re-triangulated with ``triangle`` (constrained Delaunay, the same
:func:`~gamenav.navmesh.build.triangulate_free_space` a full build uses) and stitched to the
untouched triangles through their shared edges (exact vertex ids, so no T-junctions).

Triangle ids are never reused: new triangles are appended and removed ones stay as dead rows
(``NavMesh.alive`` False, no neighbours, island -1), so a ``Path.corridor`` id always names the
triangle it was made with. Every edit installs a new set of arrays at once (copy-on-write of
the arrays whose existing rows change; vertices, triangles and degrees are append-only buffers
whose old views never change), so a search holding the previous arrays reads a consistent mesh.
After the first edit the bridge pruning tables (``side``, ``tin``, ``tout``) are zero: searches
stay exact, they only lose that optional pruning.
"""

from __future__ import annotations

import math
import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from collections.abc import Callable

import numpy as np
import numpy.typing as npt
import shapely
from shapely.geometry.base import BaseGeometry

from gamenav._kernels import announce_compile
from gamenav._kernels.dynamic import flood_label
from gamenav.errors import InvalidGeometryError, InvalidInputError
from gamenav.navmesh.build import (QUAD_SEGS, _as_geometry, _geometry_errors, _polygonal,
                                   triangulate_free_space)

if TYPE_CHECKING:
    from gamenav.grid.tilegrid import GridChange, TileGrid
    from gamenav.navmesh.mesh import NavMesh

__all__ = ["NavMeshChange", "add_obstacle", "follow_grid", "remove_obstacle"]

_I64 = npt.NDArray[np.int64]
_F64 = npt.NDArray[np.float64]


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
            cells opened): paths elsewhere may become shorter through the box.
        blocked: True when free space may have shrunk inside ``bounds``.
    """

    version: int
    bounds: tuple[float, float, float, float]
    removed: _I64
    added: _I64
    opened: bool
    blocked: bool


def _ro(a: npt.NDArray[Any]) -> npt.NDArray[Any]:
    v = a.view()
    v.flags.writeable = False
    return v


class _Buffer:
    """An append-only array with spare capacity: views of the first rows never change."""

    def __init__(self, data: npt.NDArray[Any]) -> None:
        self.buf = np.empty((max(16, 2 * len(data)),) + data.shape[1:], dtype=data.dtype)
        self.buf[:len(data)] = data
        self.n = len(data)

    def extend(self, rows: npt.NDArray[Any]) -> npt.NDArray[Any]:
        """Append ``rows``; returns a read-only view of all rows."""
        need = self.n + len(rows)
        if need > len(self.buf):
            new = np.empty((2 * need,) + self.buf.shape[1:], dtype=self.buf.dtype)
            new[:self.n] = self.buf[:self.n]
            self.buf = new
        self.buf[self.n:need] = rows
        self.n = need
        return _ro(self.buf[:need])


def _inflate(geom: BaseGeometry, radius: float) -> BaseGeometry:
    """``geom`` grown by ``radius`` the way :func:`~gamenav.navmesh.build.free_space` shrinks
    free space: a stadium around each boundary segment (chords kept outside the true circle)."""
    if radius <= 0 or geom.is_empty:
        return geom
    rings = shapely.get_rings(shapely.get_parts(geom))
    coords, ring = shapely.get_coordinates(rings, return_index=True)
    same = ring[1:] == ring[:-1]
    segs = np.stack([coords[:-1][same], coords[1:][same]], axis=1)
    grow = radius / math.cos(math.pi / (4 * QUAD_SEGS))
    stadiums = shapely.buffer(shapely.linestrings(segs), grow, quad_segs=QUAD_SEGS)
    return _polygonal(shapely.union_all([*stadiums, geom]))


def _index_cells(grid: tuple[_F64, float, int, int], box: tuple[float, float, float, float]
                 ) -> tuple[int, int, int, int]:
    """Inclusive cell ranges ``(i0, j0, i1, j1)`` of a bucket grid overlapping ``box`` (clipped)."""
    gmin, cell, nx, ny = grid
    i0 = min(max(int((box[0] - gmin[0]) // cell), 0), nx - 1)
    j0 = min(max(int((box[1] - gmin[1]) // cell), 0), ny - 1)
    i1 = min(max(int((box[2] - gmin[0]) // cell), 0), nx - 1)
    j1 = min(max(int((box[3] - gmin[1]) // cell), 0), ny - 1)
    return i0, j0, i1, j1


def _candidates(grid: tuple[_F64, float, int, int], start: _I64, items: _I64,
                box: tuple[float, float, float, float]) -> _I64:
    """Unique triangle ids listed in the bucket cells overlapping ``box``."""
    i0, j0, i1, j1 = _index_cells(grid, box)
    nx = grid[2]
    rows = np.arange(j0, j1 + 1) * nx
    lo = start[rows + i0]
    hi = start[rows + i1 + 1]
    if len(lo) == 1:
        one: _I64 = np.unique(items[lo[0]:hi[0]])
        return one
    many: _I64 = np.unique(np.concatenate([items[a:b] for a, b in zip(lo.tolist(), hi.tolist(), strict=False)]))
    return many


def _touch_box(p: _F64, box: tuple[float, float, float, float]) -> npt.NDArray[np.bool_]:
    """Which CCW triangles ``p`` (``(k, 3, 2)``) intersect the closed ``box`` (touching counts)."""
    x0, y0, x1, y1 = box
    ok = ((p[:, :, 0].min(axis=1) <= x1) & (p[:, :, 0].max(axis=1) >= x0)
          & (p[:, :, 1].min(axis=1) <= y1) & (p[:, :, 1].max(axis=1) >= y0))
    corners = np.array([(x0, y0), (x1, y0), (x1, y1), (x0, y1)])
    for j in range(3):
        a = p[:, j, None, :]
        e = p[:, (j + 1) % 3, None, :] - a
        d = corners[None] - a
        side = e[..., 0] * d[..., 1] - e[..., 1] * d[..., 0]  # (k, 4): < 0 right of the edge
        ok &= (side >= 0).any(axis=1)
    result: npt.NDArray[np.bool_] = ok
    return result


class _Obstacle:
    __slots__ = ("shape", "inflated", "bounds")

    def __init__(self, shape: BaseGeometry, inflated: BaseGeometry) -> None:
        self.shape = shape
        self.inflated = inflated
        self.bounds = inflated.bounds


class EditState:
    """What a mesh needs to edit itself locally (created at its first edit; private).

    The original triangles (and their bucket index) describe the free space the mesh was built
    from, used to restore space when an obstacle goes away.
    """

    def __init__(self, mesh: NavMesh) -> None:
        self.radius = float(getattr(mesh, "_agent_radius", 0.0))
        self.base_verts = mesh._vertices
        self.base_tris = mesh._triangles[mesh._alive]
        self.base_grid = mesh._grid
        if mesh._alive.all():
            self.base_start, self.base_items = mesh._cell_start, mesh._cell_items
        else:  # pragma: no cover - meshes start with every triangle alive
            raise InvalidGeometryError("cannot start editing a mesh with dead triangles")
        self.obstacles: dict[int, _Obstacle] = {}
        costs = getattr(mesh, "_area_costs", None)
        self.costs = _Buffer(np.asarray(mesh._cost_array())) if costs is not None else None
        self.base_costs = (np.asarray(costs)[mesh._alive]
                           if costs is not None and (np.asarray(costs) != 1.0).any() else None)
        self.next_id = 1
        self.lock = threading.RLock()
        self.verts = _Buffer(mesh._vertices)
        self.tris = _Buffer(mesh._triangles)
        self.degree = _Buffer(mesh._degree)
        n = len(mesh._triangles)
        self.zero_side = _Buffer(np.zeros((n, 3), dtype=np.int8))
        self.zero_time = _Buffer(np.zeros(n, dtype=np.int64))
        self.border_count = np.bincount(mesh._border_edges.ravel(),
                                        minlength=len(mesh._vertices)).astype(np.int32)
        self.grid_blocked: npt.NDArray[np.bool_] | None = None  # following a grid: cells blocked since the build
        self.grid: Any = None
        self.follower: Any = None

    # -- obstacles near a region --------------------------------------------------------
    def blocked_near(self, bounds: tuple[float, float, float, float], skip: int = 0) -> BaseGeometry | None:
        """Union of the inflated obstacles (and grid cells blocked since the build) whose
        bounds meet ``bounds``, or None."""
        x0, y0, x1, y1 = bounds
        parts = [o.inflated for k, o in self.obstacles.items()
                 if k != skip and o.bounds[0] <= x1 and o.bounds[2] >= x0
                 and o.bounds[1] <= y1 and o.bounds[3] >= y0]
        if self.grid_blocked is not None:
            cells = self.grid_cells_near(bounds)
            if cells is not None:
                parts.append(cells)
        if not parts:
            return None
        return parts[0] if len(parts) == 1 else shapely.union_all(parts)

    def grid_cells_near(self, bounds: tuple[float, float, float, float]) -> BaseGeometry | None:
        """Inflated union of the cells blocked since the build within ``radius`` of ``bounds``."""
        grid = self.grid
        assert self.grid_blocked is not None and grid is not None
        h, w = self.grid_blocked.shape
        cs = float(grid.cell_size)
        ox, oy = float(grid.origin[0]), float(grid.origin[1])
        reach = 2 * self.radius + cs
        cx0 = max(int(math.floor((bounds[0] - reach - ox) / cs)), 0)
        cx1 = min(int(math.floor((bounds[2] + reach - ox) / cs)), w - 1)
        if grid.y_up:
            cy0 = max(h - 1 - int(math.floor((bounds[3] + reach - oy) / cs)), 0)
            cy1 = min(h - 1 - int(math.floor((bounds[1] - reach - oy) / cs)), h - 1)
        else:
            cy0 = max(int(math.floor((bounds[1] - reach - oy) / cs)), 0)
            cy1 = min(int(math.floor((bounds[3] + reach - oy) / cs)), h - 1)
        if cx0 > cx1 or cy0 > cy1:
            return None
        ys, xs = np.nonzero(self.grid_blocked[cy0:cy1 + 1, cx0:cx1 + 1])
        if not len(xs):
            return None
        xs = xs + cx0
        ys = ys + cy0
        x0 = ox + xs * cs
        y0 = oy + (h - ys - 1) * cs if grid.y_up else oy + ys * cs
        boxes = shapely.box(x0, y0, x0 + cs, y0 + cs)
        return _inflate(shapely.union_all(boxes), self.radius)


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

def remesh(mesh: NavMesh, es: EditState, box: tuple[float, float, float, float], *, opened: bool,
           blocked: bool, skip: int = 0) -> NavMeshChange | None:
    """Re-triangulate the free space inside ``box`` and install the result (caller holds es.lock).

    ``opened``: space may have been freed inside the box (restore the original free space there).
    ``skip``: an obstacle id to ignore (being removed). Returns the change, or None when the
    box meets no triangle and frees nothing.
    """
    verts = mesh._vertices
    tris = mesh._triangles
    alive = mesh._alive
    cand = _candidates(mesh._grid, mesh._cell_start, mesh._cell_items, box)
    cand = cand[alive[cand]]
    rem = cand[_touch_box(verts[tris[cand]], box)] if len(cand) else cand
    with _geometry_errors("re-triangulating an edited region"):
        parts = []
        if len(rem):
            parts.append(shapely.coverage_union_all(shapely.polygons(verts[tris[rem]])))
        if opened:
            bc = _candidates(es.base_grid, es.base_start, es.base_items, box)
            if len(bc):
                bp = es.base_verts[es.base_tris[bc]]
                bc = bc[_touch_box(bp, box)]
            if len(bc):
                base = shapely.coverage_union_all(shapely.polygons(es.base_verts[es.base_tris[bc]]))
                parts.append(shapely.intersection(base, shapely.box(*box)))
        if not parts:
            return None
        region = parts[0] if len(parts) == 1 else shapely.union_all(parts)
        obstacles = es.blocked_near(region.bounds, skip)
        if obstacles is not None:
            region = shapely.difference(region, obstacles)
        region = _polygonal(region)
    if region.is_empty:
        new_v = np.zeros((0, 2))
        new_t = np.zeros((0, 3), dtype=np.int64)
    else:
        new_v, new_t = triangulate_free_space(region)
    return _install(mesh, es, box, rem, new_v, new_t, opened, blocked)


def _install(mesh: NavMesh, es: EditState, box: tuple[float, float, float, float], rem: _I64,
             new_v: _F64, new_t: _I64, opened: bool, blocked: bool) -> NavMeshChange:
    """Stitch the new triangles to the mesh and install the new arrays at once."""
    from gamenav.navmesh.mesh import MIN_EDGE, _versions

    verts = mesh._vertices
    tris = mesh._triangles
    nbrs = mesh._neighbours
    n_old = len(tris)
    nv_old = len(verts)
    # -- vertices: reuse the removed triangles' vertices at exactly the same coordinates
    known: dict[tuple[float, float], int] = {}
    rv = np.unique(tris[rem].ravel())
    for vid, xy in zip(rv.tolist(), verts[rv].tolist(), strict=False):
        known[(xy[0], xy[1])] = vid
    vmap = np.empty(len(new_v), dtype=np.int64)
    fresh: list[int] = []
    for i, xy in enumerate(new_v.tolist()):
        vid = known.get((xy[0], xy[1]))
        if vid is None:
            vid = nv_old + len(fresh)
            fresh.append(i)
        vmap[i] = vid
    all_verts = es.verts.extend(new_v[fresh]) if fresh else verts
    # -- triangles: CCW, no degenerate ones
    t = vmap[new_t]
    p = all_verts[t]
    area2 = ((p[:, 1, 0] - p[:, 0, 0]) * (p[:, 2, 1] - p[:, 0, 1])
             - (p[:, 1, 1] - p[:, 0, 1]) * (p[:, 2, 0] - p[:, 0, 0]))
    edge2 = ((p - np.roll(p, -1, axis=1)) ** 2).sum(axis=2)
    keep = (area2 != 0) & (edge2 >= MIN_EDGE * MIN_EDGE).all(axis=1)
    t = t[keep]
    flip = area2[keep] < 0
    t[flip] = t[flip][:, ::-1]
    k = len(t)
    added = np.arange(n_old, n_old + k, dtype=np.int64)
    # -- ring: surviving triangles across an edge of a removed one
    dead = np.zeros(n_old, dtype=bool)
    dead[rem] = True
    rn = nbrs[rem]
    ring_mask = (rn >= 0)
    ring_mask[ring_mask] = ~dead[rn[ring_mask]]
    ring_t = rn[ring_mask]
    ring_j = np.argmax(nbrs[ring_t] == np.repeat(rem, ring_mask.sum(axis=1))[:, None], axis=1)
    # -- match edges: new half-edges and ring half-edges, keyed by their vertex pair
    owner = np.concatenate([np.repeat(added, 3), ring_t])
    slot = np.concatenate([np.tile(np.arange(3), k), ring_j])
    rows = np.concatenate([t, tris[ring_t]]) if len(ring_t) else t
    rows_idx = np.concatenate([np.repeat(np.arange(k), 3), k + np.arange(len(ring_t))])
    a = rows[rows_idx, slot]
    b = rows[rows_idx, (slot + 1) % 3]
    nv = len(all_verts)
    key = np.minimum(a, b) * nv + np.maximum(a, b)
    order = np.argsort(key, kind="stable")
    ks = key[order]
    starts = np.flatnonzero(np.r_[True, ks[1:] != ks[:-1]])
    lens = np.diff(np.r_[starts, len(ks)])
    pair = starts[lens == 2]
    i, j = order[pair], order[pair + 1]
    opposite = a[i] == b[j]
    i, j = i[opposite], j[opposite]
    # -- neighbours (copy-on-write)
    new_nbrs = np.full((n_old + k, 3), -1, dtype=np.int64)
    new_nbrs[:n_old] = nbrs
    new_nbrs[rem] = -1
    new_nbrs[ring_t, ring_j] = -1
    new_nbrs[owner[i], slot[i]] = owner[j]
    new_nbrs[owner[j], slot[j]] = owner[i]
    matched = np.zeros(len(owner), dtype=bool)
    matched[i] = matched[j] = True
    ring_lost = ~matched[3 * k:]
    new_alive = np.ones(n_old + k, dtype=bool)
    new_alive[:n_old] = mesh._alive
    new_alive[rem] = False
    # -- degrees (append-only unless a ring edge became a border)
    all_tris = es.tris.extend(t) if k else tris
    deg_new = (new_nbrs[n_old:] >= 0).sum(axis=1).astype(np.int64)
    if ring_lost.any():
        deg = np.concatenate([mesh._degree, deg_new])
        deg[ring_t] = (new_nbrs[ring_t] >= 0).sum(axis=1)
        es.degree = _Buffer(deg)
        degree = _ro(es.degree.buf[:len(deg)])
    else:
        degree = es.degree.extend(deg_new) if k else mesh._degree
    # -- border edges and per-vertex border counts (corners, pinch points)
    bt = mesh._border_tri
    stay = ~dead[bt]
    gone_edges = mesh._border_edges[~stay]
    new_border = np.flatnonzero(~matched)
    b_edges = np.stack([a[new_border], b[new_border]], axis=1)
    b_tri = owner[new_border]
    border_edges = np.concatenate([mesh._border_edges[stay], b_edges])
    border_tri = np.concatenate([bt[stay], b_tri])
    counts = np.zeros(nv, dtype=np.int32)
    counts[:nv_old] = es.border_count
    np.subtract.at(counts, gone_edges.ravel(), 1)
    np.add.at(counts, b_edges.ravel(), 1)
    es.border_count = counts
    # -- islands
    islands = _islands(mesh._islands, new_nbrs, rem, ring_t, added, owner, slot, i, j, k, n_old)
    # -- point location index
    cell_start, cell_items = _reindex(mesh, all_verts, all_tris, rem, added)
    n_new = n_old + k
    side = es.zero_side.extend(np.zeros((k, 3), dtype=np.int8)) if k else _ro(es.zero_side.buf[:n_new])
    tin = es.zero_time.extend(np.zeros(k, dtype=np.int64)) if k else _ro(es.zero_time.buf[:n_new])
    version = next(_versions)
    state = {
        "_vertices": all_verts, "_triangles": all_tris, "_neighbours": _ro(new_nbrs),
        "_alive": _ro(new_alive), "_islands": _ro(islands), "_side": side, "_tin": tin, "_tout": tin,
        "_degree": degree, "_border_edges": border_edges, "_border_tri": border_tri,
        "_corner": _ro(counts > 0), "_pinch": _ro(counts > 2), "_vtri_start": None, "_vtri": None,
        "_cell_start": cell_start, "_cell_items": cell_items, "_version": version,
    }
    if es.costs is not None:  # area costs: a new triangle takes the build's cost at its centroid
        new_costs = np.ones(k)
        if k and es.base_costs is not None:
            from gamenav._kernels.navmesh import locate_points

            gmin, cell, nx, ny = es.base_grid
            base = locate_points(all_verts[t].mean(axis=1), es.base_verts, es.base_tris, gmin, cell,
                                 nx, ny, es.base_start, es.base_items, mesh._tol)
            new_costs[base >= 0] = es.base_costs[base[base >= 0]]
        state["_area_costs"] = es.costs.extend(new_costs)
    with mesh._lock:
        mesh.__dict__.update(state)
    bounds = (float(box[0]), float(box[1]), float(box[2]), float(box[3]))
    return NavMeshChange(version, bounds, _ro(rem.astype(np.int64)), _ro(added), opened, blocked)


def _islands(old: _I64, nbrs: _I64, rem: _I64, ring_t: _I64, added: _I64, owner: _I64,
             slot: _I64, i: _I64, j: _I64, k: int, n_old: int) -> _I64:
    """Island labels after an edit: new triangles join their neighbours' island; islands that
    may have split or merged are flood-filled again (labels stay 0..n-1)."""
    labels = np.full(n_old + k, -1, dtype=np.int64)
    labels[:n_old] = old
    removed_labels = set(old[rem].tolist())
    labels[rem] = -1
    ring = np.unique(ring_t)
    ring_labels = old[ring]
    # local components of (new triangles + ring) through the matched edges
    local = np.concatenate([added, ring])
    pos = {int(t): n for n, t in enumerate(local.tolist())}
    parent = list(range(len(local)))

    def find(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for u, v in zip(owner[i].tolist(), owner[j].tolist(), strict=False):
        ru, rv = find(pos[u]), find(pos[v])
        if ru != rv:
            parent[ru] = rv
    roots = [find(x) for x in range(len(local))]
    comp_labels: dict[int, set[int]] = {}
    for n, lab in zip(roots[k:], ring_labels.tolist(), strict=False):
        comp_labels.setdefault(n, set()).add(lab)
    label_comps: dict[int, set[int]] = {}
    for root, labs in comp_labels.items():
        for lab in labs:
            label_comps.setdefault(lab, set()).add(root)
    simple = (all(len(s) == 1 for s in comp_labels.values())
              and all(len(s) == 1 for s in label_comps.values())
              and removed_labels <= set(label_comps))
    if simple:
        fresh = int(old.max()) + 1 if len(old) else 0
        new_root_label: dict[int, int] = {}
        for n in range(k):
            root = roots[n]
            labs = comp_labels.get(root, set())
            if labs:
                labels[n_old + n] = next(iter(labs))
            else:
                if root not in new_root_label:
                    new_root_label[root] = fresh
                    fresh += 1
                labels[n_old + n] = new_root_label[root]
        return labels
    # flood-fill every component touching the edit with fresh labels, then renumber 0..n-1
    announce_compile("navmesh", flood_label)
    first = top = int(labels.max()) + 1
    for seed in local.tolist():
        if 0 <= labels[seed] < first or (labels[seed] < 0 and seed >= n_old):
            flood_label(nbrs, labels, seed, top)
            top += 1
    live = labels >= 0
    used, inverse = np.unique(labels[live], return_inverse=True)
    labels[live] = inverse.ravel()
    del used
    return labels


def _reindex(mesh: NavMesh, verts: _F64, tris: _I64, rem: _I64, added: _I64) -> tuple[_I64, _I64]:
    """The bucket index without ``rem`` and with ``added`` (same grid; see NavMesh._build_index)."""
    gmin, cell, nx, ny = mesh._grid
    start = mesh._cell_start
    items = mesh._cell_items
    tol = mesh._tol

    def cells_of(ids: _I64) -> tuple[_I64, _I64]:
        p = verts[tris[ids]]
        lo = ((p.min(axis=1) - tol - gmin) // cell).astype(np.int64)
        hi = ((p.max(axis=1) + tol - gmin) // cell).astype(np.int64)
        lo[:, 0] = np.clip(lo[:, 0], 0, nx - 1)
        hi[:, 0] = np.clip(hi[:, 0], 0, nx - 1)
        lo[:, 1] = np.clip(lo[:, 1], 0, ny - 1)
        hi[:, 1] = np.clip(hi[:, 1], 0, ny - 1)
        wx = hi[:, 0] - lo[:, 0] + 1
        wy = hi[:, 1] - lo[:, 1] + 1
        counts = wx * wy
        tid = np.repeat(np.arange(len(ids)), counts)
        kk = np.arange(len(tid)) - np.repeat(np.cumsum(counts) - counts, counts)
        w = wx[tid]
        cells = (lo[tid, 1] + kk // w) * nx + lo[tid, 0] + kk % w
        return cells, ids[tid]

    ncell = nx * ny
    if len(rem):
        rcells, _ = cells_of(rem)
        ucells = np.unique(rcells)
        lo, hi = start[ucells], start[ucells + 1]
        span = np.concatenate([np.arange(x, y) for x, y in zip(lo.tolist(), hi.tolist(), strict=False)])
        dead = np.zeros(len(tris), dtype=bool)
        dead[rem] = True
        del_pos = span[dead[items[span]]]
        removed_per_cell = np.bincount(np.searchsorted(start, del_pos, side="right") - 1,
                                       minlength=ncell)
        items = np.delete(items, del_pos)
        start = start.copy()
        start[1:] -= np.cumsum(removed_per_cell)
    if len(added):
        acells, aitems = cells_of(added)
        order = np.argsort(acells, kind="stable")  # equal positions (empty cells) stay in cell order
        acells, aitems = acells[order], aitems[order]
        items = np.insert(items, start[acells + 1], aitems)
        added_per_cell = np.bincount(acells, minlength=ncell)
        start = start.copy() if not len(rem) else start
        start[1:] += np.cumsum(added_per_cell)
    return _ro(start), _ro(items)


# -- public operations (NavMesh methods delegate here) ---------------------------------------

def _notify(mesh: NavMesh, change: NavMeshChange | None) -> None:
    if change is not None:
        mesh._listeners.notify(change)


def add_obstacle(mesh: NavMesh, shape: Any) -> int:
    """See :meth:`gamenav.NavMesh.add_obstacle`."""
    geom = _as_geometry(shape, "shape")
    if geom.is_empty:
        raise InvalidGeometryError("shape must be a polygon with area, got an empty geometry")
    es = edit_state(mesh)
    with _geometry_errors("inflating the obstacle"):
        inflated = _inflate(geom, es.radius)
    with es.lock:
        oid = es.next_id
        es.next_id += 1
        ob = _Obstacle(geom, inflated)
        es.obstacles[oid] = ob
        try:
            change = remesh(mesh, es, _grown(mesh, ob.bounds), opened=False, blocked=True)
        except BaseException:
            del es.obstacles[oid]
            raise
        _notify(mesh, change)
    return oid


def remove_obstacle(mesh: NavMesh, oid: Any) -> None:
    """See :meth:`gamenav.NavMesh.remove_obstacle`."""
    es = edit_state(mesh)
    with es.lock:
        if isinstance(oid, bool) or not isinstance(oid, (int, np.integer)) or int(oid) not in es.obstacles:
            raise InvalidInputError(f"oid must be the id of an obstacle of this mesh (one of "
                                    f"{sorted(es.obstacles)[:10]}), got {oid!r}")
        ob = es.obstacles[int(oid)]
        change = remesh(mesh, es, _grown(mesh, ob.bounds), opened=True, blocked=False, skip=int(oid))
        del es.obstacles[int(oid)]
        _notify(mesh, change)


def _grown(mesh: NavMesh, bounds: tuple[float, float, float, float]) -> tuple[float, float, float, float]:
    m = 16 * mesh._tol
    return (bounds[0] - m, bounds[1] - m, bounds[2] + m, bounds[3] + m)


class GridFollower:
    """Applies a TileGrid's passability edits to a mesh built from it (held weakly both ways:
    the grid holds this follower weakly, the follower holds the mesh weakly)."""

    def __init__(self, mesh: NavMesh, grid: TileGrid) -> None:
        import weakref

        self._mesh = weakref.ref(mesh)
        es = edit_state(mesh)
        es.grid = grid
        es.grid_blocked = np.zeros(grid.shape, dtype=bool)
        self._initial = grid.passable.copy()
        self.unsubscribe: Callable[[], None] = grid.subscribe(self.on_change, weak=True)

    def on_change(self, change: GridChange) -> None:
        mesh = self._mesh()
        if mesh is None:
            self.unsubscribe()
            return
        cells = np.concatenate([change.blocked, change.opened])
        if not len(cells):
            return
        es = edit_state(mesh)
        grid = es.grid
        initial = self._initial
        ys, xs = cells[:, 1], cells[:, 0]
        if (~initial[ys, xs]).any():
            raise InvalidGeometryError(
                "a mesh following a grid cannot yet open cells that were blocked when it was built; "
                "build a new mesh with NavMesh.from_grid")
        assert es.grid_blocked is not None
        with es.lock:
            blocked = es.grid_blocked.copy()
            blocked[change.blocked[:, 1], change.blocked[:, 0]] = True
            blocked[change.opened[:, 1], change.opened[:, 0]] = False
            es.grid_blocked = blocked
            cs = float(grid.cell_size)
            ox, oy = float(grid.origin[0]), float(grid.origin[1])
            h = grid.shape[0]
            x0 = ox + xs.min() * cs
            x1 = ox + (xs.max() + 1) * cs
            if grid.y_up:
                y0, y1 = oy + (h - ys.max() - 1) * cs, oy + (h - ys.min()) * cs
            else:
                y0, y1 = oy + ys.min() * cs, oy + (ys.max() + 1) * cs
            g = es.radius / math.cos(math.pi / (4 * QUAD_SEGS)) if es.radius > 0 else 0.0
            box = _grown(mesh, (x0 - g, y0 - g, x1 + g, y1 + g))
            result = remesh(mesh, es, box, opened=bool(len(change.opened)), blocked=bool(len(change.blocked)))
            _notify(mesh, result)


def follow_grid(mesh: NavMesh, grid: TileGrid) -> None:
    """Make ``mesh`` follow ``grid``'s passability edits (see :meth:`NavMesh.from_grid`)."""
    mesh.__dict__["_edits_follower"] = GridFollower(mesh, grid)
