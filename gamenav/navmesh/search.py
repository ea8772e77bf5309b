"""NavMeshSearch: resumable shortest-path queries on a :class:`~gamenav.NavMesh`.

Two algorithms share one interface (world ``(x, y)`` points in, :class:`~gamenav.Path` out):

* default: portal A* over the triangles' dual graph in the style of TA* (Demyen & Buro 2006):
  a triangle may be reached through several corridors (labels, each with its corridor's exact
  funnel; dominated ones dropped), and the search goes on until no open label can beat the best
  complete path; the funnel algorithm then pulls that corridor taut. Within 1.5% of the
  shortest path on the benchmark maps (mean within 0.2%), at portal-A* speed.
* ``exact=True``: Polyanya (Cui, Harabor & Grastien, IJCAI 2017), an interval search that
  returns the Euclidean shortest path.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np
import numpy.typing as npt

from gamenav._identity import IdentityMap
from gamenav._kernels import announce_compile
from gamenav._kernels.navmesh import (DONE_FOUND, NEED_SPACE, RUNNING, astar_step, funnel,
                                      polyanya_step, weighted_length)
from gamenav._validate import check_options, expansion_budget, flag, keyword_options
from gamenav.errors import BlockedEndpointError, InvalidInputError, InvalidOptionError, UnsupportedOptionError
from gamenav.navmesh.mesh import NavMesh, world_point
from gamenav.grid._fast import make_path
from gamenav.types import _NO_CELLS, Path, PathStatus

__all__ = ["NavMeshSearch", "check_search_options"]

_LABELS = 4096
"""Initial capacity of the default search's label arrays (doubled when full)."""

_WEIGHTED: IdentityMap[NavMesh, tuple[int, npt.NDArray[np.float64], bool]] = IdentityMap()
"""Per mesh: (version, cost array, whether any live triangle's cost differs from 1), so that
queries on a big mesh do not scan its costs each time."""


def _has_costs(mesh: NavMesh, version: int, costs: npt.NDArray[np.float64], alive: npt.NDArray[np.bool_]) -> bool:
    """Whether a live triangle has a cost other than 1 (``costs``, ``alive``: those of ``mesh`` at
    ``version``; triangles that edits removed keep their costs)."""
    hit = _WEIGHTED.get(mesh)
    if hit is not None and hit[0] == version and hit[1] is costs:
        return hit[2]
    weighted = bool((costs[alive] != 1.0).any())
    _WEIGHTED[mesh] = (version, costs, weighted)
    return weighted


def _local_origin(mesh: NavMesh) -> npt.NDArray[np.float64] | None:
    """The origin of a search's coordinates: per axis, the side of the mesh's box nearer zero when
    the other side is at most twice as far (then a vertex or a point of the box minus it is exact),
    else 0. Far from zero, points that the exact search computes (interval ends) would be rounded
    to world steps coarser than the mesh's tolerance (1.2e-7 at 1e9). None for ``(0, 0)``."""
    lo, hi = mesh._box
    origin = [low if low > 0 and high <= 2 * low else high if high < 0 and low >= 2 * high else 0.0
              for low, high in zip(lo.tolist(), hi.tolist(), strict=True)]
    return np.array(origin) if any(origin) else None


_LOCAL: IdentityMap[NavMesh, tuple[npt.NDArray[np.float64], tuple[float, float], npt.NDArray[np.float64]]] = (
    IdentityMap())
"""Per mesh: (vertex array, origin, the vertices minus the origin), so that queries on a mesh far
from zero do not copy its vertices each time (12 000 vertices: 47 us a query)."""


def _local_vertices(mesh: NavMesh, verts: npt.NDArray[np.float64], origin: npt.NDArray[np.float64]
                    ) -> npt.NDArray[np.float64]:
    """Read-only ``verts - origin`` (``verts``: those of ``mesh``'s current state)."""
    key = (float(origin[0]), float(origin[1]))
    hit = _LOCAL.get(mesh)
    if hit is not None and hit[0] is verts and hit[1] == key:
        return hit[2]
    local = verts - origin
    local.flags.writeable = False  # as the mesh's own (the kernels compiled for them)
    _LOCAL[mesh] = (verts, key, local)
    return local


class NavMeshSearch:
    """A resumable navmesh query (``begin -> step -> result``), the Search protocol.

    Args:
        mesh: the :class:`~gamenav.NavMesh` to search.
        start, goal: world ``(x, y)`` points.
        exact: True for the Euclidean shortest path (Polyanya); False (default) for portal A*
            plus the funnel, usually within a fraction of a percent of it.
        clamp: snap a start or goal outside the mesh onto its nearest point instead of raising
            (``NO_PATH`` when edits left no triangle to snap onto).
        partial: when the goal is on another island, return a ``PARTIAL`` path to the point
            of the start's island closest to the goal instead of ``NO_PATH`` (with ``clamp``:
            when the goal's nearest point is on another island, to the point of the start's
            island closest to the goal as given).

    Raises:
        InvalidInputError: NaN / malformed points, coordinates outside
            ``[-MAX_COORDINATE, MAX_COORDINATE]`` (1e15, also with ``clamp``), flags that are
            not bools, or ``mesh`` is not a NavMesh.
        BlockedEndpointError: start or goal outside the mesh (without ``clamp``).
        UnsupportedOptionError: ``exact=True`` on a mesh with :attr:`~gamenav.NavMesh.area_costs`
            other than 1.

    On a mesh with area costs the default search minimises cost-weighted length (Detour's
    scheme: legs between portal points weighted by their triangle's cost, then the funnel) and
    ``Path.cost`` is the cost-weighted length of the returned points. Each complete corridor
    found is costed by its funnel and the cheapest kept, but there is no bound there: Detour's
    ``g`` is not a lower bound of a weighted funnel path.

    An endpoint exactly on a pinch point (a vertex where regions touch only at that point)
    is ambiguous and gives ``NO_PATH``. Stepping in any number of slices gives the same path,
    bit for bit, as one call to ``step()``.

    Example:
        >>> import gamenav
        >>> mesh = gamenav.NavMesh.from_polygons([[(0, 0), (4, 0), (4, 4), (0, 4)]])
        >>> search = gamenav.NavMeshSearch(mesh, (0.5, 0.5), (3.5, 3.5), exact=True)
        >>> while not search.step(max_expansions=1).done:
        ...     pass
        >>> round(search.result().cost, 6)
        4.242641
    """

    def __init__(self, mesh: NavMesh, start: Any, goal: Any, *, exact: bool = False,
                 clamp: bool = False, partial: bool = False) -> None:
        if not isinstance(mesh, NavMesh):
            raise InvalidInputError(f"mesh must be a NavMesh, got {type(mesh).__name__}")
        s = world_point(start, "start")
        g = world_point(goal, "goal")
        clamp = flag(clamp, "clamp")
        partial = flag(partial, "partial")
        self._exact = flag(exact, "exact")
        owner, mesh = mesh, mesh._snapshot()  # every read from one state, whatever edits come meanwhile
        # the state's tolerance as a number, not the state: a pickled copy of it would be rebuilt from its
        # live triangles, with their own (smaller) tolerance, and resume on another path
        self._tol = mesh.tolerance
        self._costs = mesh._cost_array()
        self._weighted = _has_costs(owner, mesh.version, self._costs, mesh.alive)
        if self._exact and self._weighted:
            raise UnsupportedOptionError(
                "exact=True is not supported on a mesh with area costs (weighted-region shortest "
                "paths); use the default mode")
        self._world_version = mesh.version
        self._expanded = 0
        self._result: Path | None = None
        self._status = PathStatus.IN_PROGRESS
        tri = mesh._locate(np.array([s, g])).tolist()
        for i, name in enumerate(("start", "goal")):
            if tri[i] < 0 and not clamp:
                x0, y0, x1, y1 = mesh.bounds
                raise BlockedEndpointError(
                    f"{name} must lie on the navmesh (bounds x {x0:g}..{x1:g}, y {y0:g}..{y1:g}), "
                    f"got {(float((s, g)[i][0]), float((s, g)[i][1]))}; pass clamp=True to snap it")
        asked = g  # a partial path ends nearest to the goal as given, not to its clamped point
        if min(tri) < 0:
            pts, snapped = mesh.clamp(np.stack([s, g]))
            s, g, tri = pts[0].copy(), pts[1].copy(), snapped.tolist()
        start_tri, goal_tri = tri
        self._target_status = PathStatus.FOUND
        self._k = mesh._kernel_arrays()
        if min(tri) < 0 or self._on_pinch(s, start_tri) or self._on_pinch(g, goal_tri):
            self._finish(Path.none(PathStatus.NO_PATH))  # nothing to clamp onto, or ambiguous
            return
        islands = mesh.islands
        if islands[start_tri] != islands[goal_tri]:
            if not partial:
                self._finish(Path.none(PathStatus.NO_PATH))
                return
            pts, t = mesh.clamp(asked, island=int(islands[start_tri]))
            g = pts[0].copy()
            goal_tri = int(t[0])
            self._target_status = PathStatus.PARTIAL
        self._origin = o = _local_origin(mesh)
        if o is not None:  # the search runs in exact local coordinates (see _local_origin)
            self._k["verts"] = _local_vertices(owner, self._k["verts"], o)
            s, g = s - o, g - o
        self._start, self._goal = s, g
        self._start_tri = start_tri
        self._goal_mask = self._containing(g, goal_tri)
        self._goal_tin = int(self._k["tin"][goal_tri])
        if self._exact:
            self._begin_polyanya(s)
        else:
            self._begin_astar()

    # -- setup ------------------------------------------------------------------------------
    def _vertex_at(self, p: npt.NDArray[Any], t: int) -> int:
        """The vertex of triangle ``t`` exactly at ``p``, or -1."""
        ids: list[int] = self._k["tris"][t].tolist()  # plain numbers: numpy scalars are slow here
        px, py = p.tolist()
        for v, (x, y) in zip(ids, self._k["verts"][ids].tolist(), strict=True):
            if x == px and y == py:
                return v
        return -1

    def _on_pinch(self, p: npt.NDArray[Any], t: int) -> bool:
        v = self._vertex_at(p, t)
        return v >= 0 and bool(self._k["pinch"][v])

    def _fan(self, v: int, t: int) -> list[int]:
        """The triangles around vertex ``v`` of ``t`` reached from ``t`` across edges at ``v``, in
        id order: all of ``v``'s triangles, except at a pinch point (only ``t``'s side of it)."""
        tris, nbrs = self._k["tris"], self._k["nbrs"]
        fan, todo = {t}, [t]
        while todo:
            u = todo.pop()
            i = tris[u].tolist().index(v)
            for w in (int(nbrs[u, i]), int(nbrs[u, (i + 2) % 3])):  # across (v, next), (prev, v)
                if w >= 0 and w not in fan:
                    fan.add(w)
                    todo.append(w)
        return sorted(fan)

    def _containing(self, p: npt.NDArray[Any], t: int) -> npt.NDArray[np.uint8]:
        """``(T,)`` uint8 mask of the triangles containing ``p`` (several on edges and vertices;
        near a pinch point only those on ``t``'s side: the regions are not connected there)."""
        verts, tris, nbrs = self._k["verts"], self._k["tris"], self._k["nbrs"]
        mask = np.zeros(len(tris), dtype=np.uint8)
        mask[t] = 1
        tol = self._tol
        px, py = float(p[0]), float(p[1])
        ids = tris[t].tolist()  # plain floats: numpy scalars are slow for three edges
        corners = verts[ids].tolist()
        across = nbrs[t].tolist()
        for j in range(3):
            (ax, ay), (bx, by) = corners[j], corners[(j + 1) % 3]
            if math.hypot(px - ax, py - ay) <= tol:
                mask[self._fan(ids[j], t)] = 1
            ex, ey = bx - ax, by - ay
            dist = (ex * (py - ay) - ey * (px - ax)) / math.hypot(ex, ey)
            if abs(dist) <= tol and across[j] >= 0:
                mask[across[j]] = 1
        return mask

    def _begin_astar(self) -> None:
        cap = _LABELS
        s, g = self._start, self._goal
        f = math.hypot(float(g[0] - s[0]), float(g[1] - s[1]))
        self._nf = nf = np.empty((cap, 8))
        nf[0, 0:6:2] = s[0]  # apex and both tips at the start, g = 0
        nf[0, 1:6:2] = s[1]
        nf[0, 6] = 0.0
        nf[0, 7] = f
        self._ni = np.empty((cap, 6), dtype=np.int64)
        self._ni[0] = (self._start_tri, -1, 0, 0, -1, -1)
        self._rec = np.empty((cap, 6))
        self._tslot = np.full(len(self._k["tris"]), -1, dtype=np.int32)
        self._heap(cap, cap)
        self._hf[0], self._hg[0], self._hn[0], self._pos[0] = f, 0.0, 0, 0
        self._ucost = np.array([np.inf])
        # ctr: heap size, expanded, best goal label, label count, record slot count
        self._ctr = np.array([1, 0, -1, 1, 0], dtype=np.int64)

    def _heap(self, slots: int, nodes: int) -> None:
        self._hf = np.empty(slots)
        self._hg = np.empty(slots)
        self._hn = np.empty(slots, dtype=np.int32)
        self._pos = np.empty(nodes, dtype=np.int32)

    def _begin_polyanya(self, s: npt.NDArray[Any]) -> None:
        v = self._vertex_at(s, self._start_tri)
        starts = np.array(self._fan(v, self._start_tri) if v >= 0 else [self._start_tri])
        shared = starts[self._goal_mask[starts] > 0]  # triangles holding both ends (and the segment)
        if len(shared):
            self._finish(self._make_path([self._start, self._goal], shared[:1].astype(np.int64)))
            return
        cap = 16384 + 2 * len(starts)
        self._nf = np.empty((cap, 8))
        self._ni = np.empty((cap, 6), dtype=np.int64)
        self._heap(cap, cap)
        self._root_g = np.full(len(self._k["verts"]), np.inf)
        # ctr: heap size, expanded, node count, final node, start vertex, node to expand first
        self._ctr = np.array([0, 0, 0, -1, v, -1], dtype=np.int64)
        self._starts = np.ascontiguousarray(starts, dtype=np.int64)
        if v >= 0:
            self._root_g[v] = 0.0

    # -- protocol -------------------------------------------------------------------------
    @property
    def status(self) -> PathStatus:
        """The current status (``IN_PROGRESS`` until the search ends)."""
        return self._status

    @property
    def expanded(self) -> int:
        """Nodes expanded so far (triangles for A*, intervals for the exact search)."""
        return self._expanded

    @property
    def world_version(self) -> int:
        """The :attr:`NavMesh.version` of the mesh this search runs on (the Search protocol's
        name; :attr:`mesh_version` is the same)."""
        return self._world_version

    @property
    def mesh_version(self) -> int:
        """Alias of :attr:`world_version`."""
        return self._world_version

    def step(self, max_expansions: int | None = None) -> PathStatus:
        """Expand at most ``max_expansions`` nodes (``None``: run to the end); return the status.

        Raises:
            InvalidInputError: ``max_expansions`` not an int from 1 to 2**63 - 1 or None (also
                once the search is done).
        """
        budget = expansion_budget(max_expansions)
        if self._status.done:
            return self._status
        k = self._k
        announce_compile("navmesh-search", astar_step, funnel, polyanya_step, weighted_length)
        if self._exact:
            while True:
                code = polyanya_step(k["verts"], k["tris"], k["nbrs"], k["corner"], k["degree"],
                                     k["side"], k["tin"], k["tout"], self._goal_tin,
                                     self._goal_mask, self._goal, self._start, self._starts,
                                     self._nf, self._ni, self._hf, self._hg, self._hn, self._pos,
                                     self._root_g, self._ctr, budget, self._tol)
                if code != NEED_SPACE:
                    break
                self._grow()
        else:
            while True:
                code = astar_step(k["verts"], k["tris"], k["nbrs"], k["side"], k["tin"],
                                  k["tout"], self._goal_tin, self._goal_mask, self._start,
                                  self._goal, self._nf, self._ni, self._rec, self._tslot,
                                  self._hf, self._hg, self._hn, self._pos, self._ctr,
                                  self._ucost, budget, self._costs, self._weighted)
                if code != NEED_SPACE:
                    break
                self._grow()
        self._expanded = int(self._ctr[1])
        if code == RUNNING:
            return self._status
        if code == DONE_FOUND:
            self._finish(self._polyanya_path() if self._exact else self._astar_path())
        else:
            self._finish(Path.none(PathStatus.NO_PATH, expanded=self._expanded))
        return self._status

    def result(self) -> Path:
        """The path once :attr:`status` is done (``Path.none(IN_PROGRESS)`` before that)."""
        if self._result is None:
            return Path.none(PathStatus.IN_PROGRESS, expanded=self._expanded)
        return self._result

    def partial_result(self) -> Path:
        """The best path so far (the Search protocol; Detour's ``finalizeSlicedFindPathPartial``).

        Navmesh searches have no usable path before they end: while IN_PROGRESS this is
        ``Path.none(IN_PROGRESS)`` (as :meth:`result`); once done, :meth:`result` (a PARTIAL
        path there comes from ``partial=True`` and an unreachable goal).
        """
        return self.result()

    def cancel(self) -> None:
        """Stop the search; :meth:`result` becomes an empty ``CANCELLED`` path."""
        if not self._status.done:
            self._finish(Path.none(PathStatus.CANCELLED, expanded=self._expanded))

    def __copy__(self) -> NavMeshSearch:
        """An independent search in the same state: its work arrays are copied (the mesh state
        it reads, never written, is shared), so stepping one never changes the other."""
        dup = object.__new__(type(self))
        dup.__dict__.update({name: value.copy() if isinstance(value, np.ndarray) and name != "_costs"
                             else value for name, value in self.__dict__.items()})
        return dup

    def __deepcopy__(self, memo: dict[int, Any]) -> NavMeshSearch:
        """As :meth:`__copy__` (the shared mesh state is read-only)."""
        dup = memo[id(self)] = self.__copy__()
        return dup

    def __getstate__(self) -> tuple[dict[str, Any], frozenset[str]]:
        """Pickle state: the attributes and the names of the read-only arrays (``_k.<name>`` for
        the mesh state's)."""
        arrays = [(name, a) for name, a in self.__dict__.items() if isinstance(a, np.ndarray)]
        arrays += [(f"_k.{name}", a) for name, a in self.__dict__.get("_k", {}).items()]
        return self.__dict__, frozenset(name for name, a in arrays if not a.flags.writeable)

    def __setstate__(self, state: tuple[dict[str, Any], frozenset[str]]) -> None:
        """Unpickle with arrays of its own, as writable as the original's: pickle protocol 5 may
        hand out arrays over buffers that are read-only (the kernels cannot write their work
        arrays) or that their owner writes later."""
        attrs, readonly = state

        def own(name: str, value: Any) -> Any:
            if not isinstance(value, np.ndarray):
                return value
            array = np.array(value)
            array.flags.writeable = name not in readonly  # (the kernels were compiled for these flags)
            return array

        self.__dict__.update({name: own(name, value) for name, value in attrs.items()})
        if "_k" in attrs:
            self._k = {name: own(f"_k.{name}", a) for name, a in attrs["_k"].items()}

    # -- internals ------------------------------------------------------------------------
    def _finish(self, path: Path) -> None:
        self._result = path
        self._status = path.status
        self._release()

    def _release(self) -> None:
        for name in ("_hf", "_hg", "_hn", "_pos", "_nf", "_ni", "_root_g", "_rec", "_tslot"):
            self.__dict__.pop(name, None)

    def _grow(self) -> None:
        cap = 2 * len(self._nf)
        for name in ("_nf", "_ni", "_hf", "_hg", "_hn", "_pos", "_rec"):
            if name not in self.__dict__:
                continue
            old = getattr(self, name)
            new = np.empty((cap,) + old.shape[1:], dtype=old.dtype)
            new[: len(old)] = old
            setattr(self, name, new)

    def _make_path(self, points: list[npt.NDArray[Any]] | npt.NDArray[Any], corridor: npt.NDArray[np.int64]) -> Path:
        """The result through ``points`` (local coordinates) along ``corridor``, an int64 array
        of the search's own that nobody else holds (it becomes the path's, read-only)."""
        pts = np.array(points, dtype=np.float64).reshape(-1, 2)
        if self._weighted and len(pts) > 1:
            k = self._k
            cost = float(weighted_length(k["verts"], k["tris"], k["nbrs"], corridor, pts, self._costs))
        else:
            seg = pts[1:] - pts[:-1]
            cost = float(np.hypot(seg[:, 0], seg[:, 1]).sum())
        if self._origin is not None:
            pts += self._origin
        pts.flags.writeable = corridor.flags.writeable = False  # (fresh and read-only, as make_path takes arrays)
        return make_path(self._target_status, cost, _NO_CELLS, pts, self._expanded, corridor)

    def _astar_path(self) -> Path:
        corridor = self._hn[: self._ctr[0]].astype(np.int64)  # see astar_step
        k = self._k
        pts = funnel(k["verts"], k["tris"], k["nbrs"], corridor, self._start, self._goal)
        return self._make_path(pts, corridor)

    def _polyanya_path(self) -> Path:
        nf, ni = self._nf, self._ni
        chain = self._hn[: self._ctr[0]]  # first node to final node (see polyanya_step)
        roots = np.empty((len(chain) + 2, 2))
        roots[0], roots[-1] = self._start, self._goal
        roots[1:-1] = nf[chain, :2]
        keep = np.ones(len(roots), dtype=bool)
        keep[1:] = (roots[1:] != roots[:-1]).any(axis=1)
        tris = ni[chain][:, [5, 3]].ravel()
        tris = tris[tris >= 0]
        first = np.ones(len(tris), dtype=bool)
        first[1:] = tris[1:] != tris[:-1]
        return self._make_path(roots[keep], tris[first])


def check_search_options(options: Mapping[str, Any]) -> None:
    """Reject the options :class:`NavMeshSearch` does not take (``find_path``, queues, caches,
    batches and crowds on a navmesh): unknown names, and values it refuses (its options are
    flags, read as it reads them), so that a batch, queue or crowd refuses them before any query.

    Raises:
        InvalidOptionError: naming the unknown option and the valid ones; for ``agent_radius`` (a
            grid search option), also where a navmesh takes it.
        InvalidInputError: a value that is not a bool.
    """
    valid = keyword_options(NavMeshSearch)
    if "agent_radius" in options:
        raise InvalidOptionError("unknown NavMeshSearch option 'agent_radius': a navmesh is inflated by the agent "
                                 "radius when it is built (NavMesh.from_polygons(..., agent_radius=r)); valid "
                                 f"options: {', '.join(sorted(valid))}")
    check_options(options, valid, "NavMeshSearch")
    for name, value in options.items():
        flag(value, name)
