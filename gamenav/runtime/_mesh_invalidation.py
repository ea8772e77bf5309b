"""Exact invalidation of cached navmesh paths: which entries a :class:`~gamenav.NavMeshChange`
can invalidate or shorten.

A mesh edit (:meth:`NavMesh.add_obstacle`, :meth:`~NavMesh.remove_obstacle`, a mesh following a
grid) changes the free space only inside its ``bounds`` box ``B`` and removes exactly the
triangles ``removed`` (ids are never reused). For a cached result of the query ``s -> g``:

* a path is **invalidated** when its corridor holds a removed triangle or its polyline touches
  ``B`` (closed, grown by a tolerance): otherwise every point of it lies in free space the edit
  did not touch, in triangles that are still alive;
* a path is **shortened** only through new free space, so only when the edit opened space
  (``change.opened``) and a path through some point ``p`` of ``B`` could beat its cost:
  ``min over p in B of |s - p| + |p - g| < cost``, with ``s`` and ``g`` the path's ends (for
  ``clamp=True``, the points the query's were snapped to). The bound is exact (the minimum of a convex
  function over the box, computed in closed form) and holds for meshes with area costs too
  (multipliers >= 1 make a weighted length at least the Euclidean one);
* "no path" results are dropped when space opens or when the start or goal lies in ``B`` (a
  pinch point there may have become an ordinary vertex); partial results on any edit;
  results of ``clamp=True`` queries also when ``B`` comes closer to the query point than the
  point it was snapped to (space opened there) or on any edit for "no path".

Default-mode results (``exact=False``, portal A* + funnel) are not shortest paths: the answer
depends on the triangles the search looked at, not only on free space, and an A* over portals
looks at triangles whose lower bound ``|s - p| + |p - g|`` is below its portal-path cost (a
little above the funnel's). As a margin for that, default-mode entries are also dropped by a
*blocking* edit whose box meets the ellipse ``|s - p| + |p - g| < DEFAULT_SLACK * cost``. This
is a heuristic margin, not a proof: tested on random edit sequences (cached default paths equal
fresh default searches), it held even with no margin at all.
"""

from __future__ import annotations

import math
import weakref
from collections.abc import Callable, Hashable
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from gamenav.types import Path, PathStatus

if TYPE_CHECKING:
    from gamenav.navmesh.dynamic import NavMeshChange
    from gamenav.runtime._search import Query

__all__ = ["DEFAULT_SLACK", "MeshEntries", "MeshEntryTable", "box_bound", "segments_touch_box"]

DEFAULT_SLACK = 1.5
"""Default-mode entries: a blocking edit drops them when its box lies within the ellipse of
``DEFAULT_SLACK * cost`` (see the module docstring)."""

_F = npt.NDArray[np.float64]
_NORMAL, _NO_PATH, _FRAGILE = 0, 1, 2
_ROW_BYTES = 4 * 16 + 6 * 16 + 8 + 1 + 1 + 8
"""Bytes an entry keeps besides its segments and corridor: its query ends and box ((2,) float64
each) and its row of the packed arrays (ends and box again, cost, kind, exact, snap)."""


def box_bound(s: _F, g: _F, box: tuple[float, float, float, float]) -> _F:
    """``min over p in box of |s - p| + |p - g|`` per row (exact, closed box).

    Args:
        s, g: ``(n, 2)`` float64 points.
        box: ``(x0, y0, x1, y1)``.

    Returns:
        ``(n,)`` float64: ``|s - g|`` when the segment meets the box, else the minimum over the
        box's four edges (the function is convex, so its minimum over the box lies on the
        boundary; along an edge line the unconstrained minimiser is where the straight line to
        the mirrored other point crosses it, clamped to the edge).
    """
    x0, y0, x1, y1 = box
    sx, sy, gx, gy = s[:, 0], s[:, 1], g[:, 0], g[:, 1]
    direct = np.hypot(gx - sx, gy - sy)
    best = np.full(len(s), np.inf)
    for c, lo, hi, along in ((y0, x0, x1, 0), (y1, x0, x1, 0), (x0, y0, y1, 1), (x1, y0, y1, 1)):
        if along == 0:  # horizontal edge y = c, x in [lo, hi]
            su, sv, gu, gv = sx, sy, gx, gy
        else:           # vertical edge x = c, y in [lo, hi]
            su, sv, gu, gv = sy, sx, gy, gx
        a, b = np.abs(sv - c), np.abs(gv - c)
        ab = a + b
        with np.errstate(invalid="ignore", divide="ignore"):
            u = np.where(ab > 0, su + (gu - su) * a / np.where(ab > 0, ab, 1.0), 0.5 * (su + gu))
        u = np.clip(u, lo, hi)
        best = np.minimum(best, np.hypot(su - u, a) + np.hypot(gu - u, b))
    meets = segments_touch_box(s, g, box)
    out: _F = np.where(meets, direct, best)
    return out


def segments_touch_box(a: _F, b: _F, box: tuple[float, float, float, float]) -> npt.NDArray[np.bool_]:
    """Bool per row: the closed segment ``a[i] -> b[i]`` (``(n, 2)``) meets the closed ``box``."""
    x0, y0, x1, y1 = box
    ax, ay, bx, by = a[:, 0], a[:, 1], b[:, 0], b[:, 1]
    overlap = ((np.minimum(ax, bx) <= x1) & (np.maximum(ax, bx) >= x0)
               & (np.minimum(ay, by) <= y1) & (np.maximum(ay, by) >= y0))
    dx, dy = bx - ax, by - ay
    # the box's corners on both sides of (or on) the segment's line
    side = [dx * (cy - ay) - dy * (cx - ax) for cx, cy in ((x0, y0), (x1, y0), (x1, y1), (x0, y1))]
    lo = np.minimum(np.minimum(side[0], side[1]), np.minimum(side[2], side[3]))
    hi = np.maximum(np.maximum(side[0], side[1]), np.maximum(side[2], side[3]))
    out: npt.NDArray[np.bool_] = overlap & (lo <= 0) & (hi >= 0)
    return out


class MeshEntryTable:
    """Cached results of one mesh, each under a hashable key; :meth:`invalidate` returns (and
    forgets) the keys a :class:`~gamenav.NavMeshChange` may invalidate or shorten."""

    def __init__(self) -> None:
        self._entries: dict[Hashable, tuple[Any, ...]] = {}
        self._keys: list[Hashable] = []
        self._rows: dict[Hashable, int] = {}
        self._arr: dict[str, Any] | None = None  # (packed by _arrays; None: to pack again)

    def __len__(self) -> int:
        return len(self._entries)

    def add_result(self, key: Hashable, query: Query, path: Path, tolerance: float) -> int:
        """Store ``path``, the result of navmesh ``query``; ``tolerance``: the mesh's point
        tolerance (boxes are grown by it). Returns the bytes kept for it besides the path's own
        arrays (it keeps views of them): its ends and its rows in the packed arrays an edit
        checks (polyline segments, corridor, their owners)."""
        opts = query.options
        exact = bool(opts.get("exact", False))
        clamp = bool(opts.get("clamp", False))
        s = np.array(query.start, dtype=np.float64)
        g = np.array(query.goal, dtype=np.float64)
        if path.status is PathStatus.FOUND:
            kind = _NORMAL
        elif path.status is PathStatus.NO_PATH:
            kind = _FRAGILE if clamp else _NO_PATH
        else:
            kind = _FRAGILE
        pts = np.asarray(path.points, dtype=np.float64).reshape(-1, 2)
        if kind == _NORMAL and not len(pts):
            kind = _FRAGILE
        snap = 0.0
        if kind == _NORMAL and clamp:  # distance the endpoints were snapped by
            snap = float(max(np.hypot(*(pts[0] - s)), np.hypot(*(pts[-1] - g))))
        lo = pts.min(axis=0) if len(pts) else np.minimum(s, g)
        hi = pts.max(axis=0) if len(pts) else np.maximum(s, g)
        self._entries[key] = (s, g, float(path.cost) if kind == _NORMAL else math.inf, kind, exact,
                              snap, pts, np.asarray(path.corridor, dtype=np.int64), lo, hi,
                              float(tolerance))
        self._arr = None
        segments = max(len(pts) - 1, min(len(pts), 1))  # (a one-point path: its point to itself)
        return int(segments * (2 * 16 + 8) + 2 * path.corridor.nbytes + _ROW_BYTES)

    def remove(self, key: Hashable) -> None:
        if self._entries.pop(key, None) is not None:
            self._arr = None  # (the packed copy goes too: it held the entry's segments)

    def _arrays(self) -> dict[str, Any]:
        if self._arr is not None:
            return self._arr
        keys = list(self._entries)
        rows = list(self._entries.values())
        n = len(rows)
        arr: dict[str, Any] = {"keys": keys}
        arr["s"] = np.array([r[0] for r in rows]).reshape(n, 2)
        arr["g"] = np.array([r[1] for r in rows]).reshape(n, 2)
        # the ends of the paths (clamp=True: the points the query's were snapped to), else the query's
        arr["ps"] = np.array([r[6][0] if len(r[6]) else r[0] for r in rows]).reshape(n, 2)
        arr["pg"] = np.array([r[6][-1] if len(r[6]) else r[1] for r in rows]).reshape(n, 2)
        arr["cost"] = np.array([r[2] for r in rows], dtype=np.float64)
        arr["kind"] = np.array([r[3] for r in rows], dtype=np.int8)
        arr["exact"] = np.array([r[4] for r in rows], dtype=bool)
        arr["snap"] = np.array([r[5] for r in rows], dtype=np.float64)
        arr["lo"] = np.array([r[8] for r in rows]).reshape(n, 2)
        arr["hi"] = np.array([r[9] for r in rows]).reshape(n, 2)
        arr["tol"] = max((r[10] for r in rows), default=0.0)
        corr = [r[7] for r in rows]
        arr["corr"] = np.concatenate(corr) if n else np.zeros(0, dtype=np.int64)
        arr["corr_owner"] = np.repeat(np.arange(n), [len(c) for c in corr])
        # polyline segments (a one-point path is the segment from its point to itself)
        seg_a = [r[6][:-1] if len(r[6]) > 1 else r[6] for r in rows]
        seg_b = [r[6][1:] if len(r[6]) > 1 else r[6] for r in rows]
        arr["seg_a"] = np.concatenate(seg_a).reshape(-1, 2) if n else np.zeros((0, 2))
        arr["seg_b"] = np.concatenate(seg_b).reshape(-1, 2) if n else np.zeros((0, 2))
        arr["seg_owner"] = np.repeat(np.arange(n), [len(a) for a in seg_a])
        self._arr = arr
        return arr

    def invalidate(self, change: NavMeshChange) -> list[Hashable]:
        """Remove and return the keys ``change`` may invalidate or shorten."""
        if not self._entries:
            return []
        arr = self._arrays()
        keys: list[Hashable] = arr["keys"]
        kind, cost = arr["kind"], arr["cost"]
        t = 2.0 * arr["tol"]
        b = change.bounds
        box = (b[0] - t, b[1] - t, b[2] + t, b[3] + t)
        s, g = arr["s"], arr["g"]
        drop = kind == _FRAGILE
        ends_in = ((s[:, 0] >= box[0]) & (s[:, 0] <= box[2]) & (s[:, 1] >= box[1]) & (s[:, 1] <= box[3])
                   | (g[:, 0] >= box[0]) & (g[:, 0] <= box[2]) & (g[:, 1] >= box[1]) & (g[:, 1] <= box[3]))
        no_path = kind == _NO_PATH
        drop |= no_path & (ends_in | change.opened)
        normal = kind == _NORMAL
        # paths whose bounding box meets the edit box: test corridor ids and polyline segments
        lo, hi = arr["lo"], arr["hi"]
        near = normal & (lo[:, 0] <= box[2]) & (hi[:, 0] >= box[0]) & (lo[:, 1] <= box[3]) & (hi[:, 1] >= box[1])
        removed = np.asarray(change.removed, dtype=np.int64)
        corr = arr["corr"]
        if len(removed) and len(corr):
            mark = np.zeros(max(int(removed.max()), int(corr.max())) + 1, dtype=bool)
            mark[removed] = True
            drop[arr["corr_owner"][mark[corr]]] |= normal[arr["corr_owner"][mark[corr]]]
        cand = near & ~drop
        if cand.any():
            owner = arr["seg_owner"]
            take = cand[owner]
            hit = segments_touch_box(arr["seg_a"][take], arr["seg_b"][take], box)
            drop[owner[take][hit]] = True
        left = normal & ~drop
        if left.any():
            idx = np.flatnonzero(left)
            lb = box_bound(arr["ps"][idx], arr["pg"][idx], box)  # a path through the box joins these
            c = cost[idx]
            slack = 1e-9 * np.maximum(1.0, c)
            shorter = np.zeros(len(idx), dtype=bool)
            if change.opened:
                shorter |= lb < c + slack
                snap = arr["snap"][idx]
                snapped = snap > 0
                if snapped.any():  # clamp=True: open space nearer than the snapped endpoint
                    ds = box_bound(s[idx], s[idx], box)
                    dg = box_bound(g[idx], g[idx], box)
                    shorter |= snapped & (np.minimum(ds, dg) < 2.0 * snap + slack)
            default = ~arr["exact"][idx]
            if default.any():  # a heuristic search's answer depends on the triangles it saw
                shorter |= default & (lb < DEFAULT_SLACK * c + slack)
            drop[idx[shorter]] = True
        gone = [keys[i] for i in np.flatnonzero(drop)]
        for k in gone:
            del self._entries[k]
        if gone:
            self._arr = None
        return gone


class MeshEntries:
    """The cached results of one mesh: their :class:`MeshEntryTable`, the version they were
    checked against (``seen``) and the weak edit subscription delivering changes to
    ``handler(mesh, change)`` (a bound method, held weakly: a dropped owner ends it; the mesh
    is held weakly too, as by :class:`gamenav.runtime._search.GridWatch`)."""

    def __init__(self, mesh: Any, handler: Callable[[Any, NavMeshChange], None]) -> None:
        self._world = weakref.ref(mesh)
        self.table = MeshEntryTable()
        self._handler = weakref.WeakMethod(handler)
        self._unsubscribe = mesh.subscribe(self._deliver, weak=True)
        self.seen: int = mesh.version  # read once subscribed: every later edit is heard

    @property
    def world(self) -> Any:
        """The mesh; None once it was dropped."""
        return self._world()

    def _deliver(self, change: NavMeshChange) -> None:
        handler = self._handler()
        mesh = self._world()
        if handler is not None and mesh is not None:
            handler(mesh, change)

    def close(self) -> None:
        """End the subscription (idempotent)."""
        self._unsubscribe()
