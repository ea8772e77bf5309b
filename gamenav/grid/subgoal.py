"""Subgoal graphs for ``algorithm="subgoal"``: optimal paths on a per-grid graph of obstacle
corners, built once and repaired locally on edits.

Cells are ``(x, y)``; arrays are indexed ``[y, x]`` (flat padded nodes, see
:mod:`gamenav._kernels.subgoal`).

Design (Simple Subgoal Graphs, Uras, Koenig & Hernandez, ICAPS 2013):

* Subgoals are the passable cells diagonal to a convex obstacle corner. Two cells are
  h-reachable when a path as long as their octile distance joins them; every shortest path
  turns only at subgoals, so the graph whose edges join the subgoals that are directly
  h-reachable (no other subgoal on the way) keeps every shortest distance.
* Edges are found per subgoal by the paper's clearance-bounded scan (per-cell clearances in the
  4 cardinal directions to the next blocked cell or subgoal, so a scan costs a few table reads
  per cell of its diagonals) and kept in per-node blocks with room to grow (the edge weight is
  the octile distance of the two cells, computed when searching).
* Query (one kernel): start and goal are joined to their direct-h-reachable subgoals by the same
  scan (a start that sees the goal is answered directly), A* runs on the graph and each edge is
  refined into cells by an octile walk (diagonal steps first, or straight steps first: the way
  the scan found it; each step is checked). Costs equal A*'s. Two additions to the paper's
  search, both exact:

  - Heuristic: the largest of the octile distance and differential heuristics
    (``|d(L, goal) - d(L, v)|`` for :data:`LANDMARKS` landmarks L: the border seen from the
    grid's centre is cut into as many sectors and landmark j is the subgoal farthest from the
    centre in its sector (:func:`_sectors`; ties by cell), a function of the node set alone,
    which an edit changes only where it makes or removes that subgoal; one Dijkstra over the
    graph each, at build, which follows only taut edges and pushes no node reached along a
    dead-end entry (exact, as the query's pruning: a Cauldron row 7.4 -> 6.2 ms for the dead ends,
    about 9 -> 6 ms in all; the build 1.12 -> 0.87 s CPU there, orz700d 0.24 -> 0.19 s,
    maze-1550-15 0.31 -> 0.34 s: a maze has little to prune); a query uses the :data:`ACTIVE`
    that tell the subgoals nearest to its start and goal apart best). The goal's own distances
    are bounded through the subgoals its scan finds, which keeps the heuristic admissible and
    consistent. The distances are exact (16-bit counts of straight and diagonal steps), so
    nodes on equally short paths get equal f and the tie-break towards larger g holds
    (float32's ~1e-4 noise broke it and doubled the nodes expanded). On the GPPC 2014 maps it
    cut the median nodes expanded of the 100 longest queries 10-34x (orz700d 2780 -> 263,
    Cauldron 9680 -> 286).
  - Taut successors: a subgoal reached from p only passes the search on to neighbours q such
    that p -> u -> q turns round one of u's corners or runs straight on (octile-straight);
    other turns at u are never needed by a shortest path (one bit per edge: tautness depends
    only on the two directions' classes). About 3 of 12-21 edges per expansion are followed.

  What is left is the length of the node path: on orz700d the optimal path of a long query
  runs through ~260 subgoals, 98% of them passed straight (octile-straight, no turn), which
  a two-level graph (local subgoals removed) would skip.

* Edits: the subgoals within one cell of the changed box are recomputed, the clearances of its
  rows and columns re-swept, and exactly the subgoals whose last scan read a changed cell (a
  bounding box kept per subgoal) are scanned again; edges no scan finds any more are dropped.
  The repaired graph equals one built from scratch (the tests compare them), and so do its
  landmarks, brought up to date by the edit itself: a landmark whose subgoal went, or that a
  new subgoal farther out in its sector replaces, moves and its row is computed again (one
  Dijkstra); every other row is repaired (:func:`gamenav._kernels.subgoal.repair_landmarks`:
  the entries whose shortest-path support the edit removed are reset and found again from
  their neighbours, and decreases spread from the nodes whose edges changed). The entries are
  exact step counts, so a repaired row equals a fresh Dijkstra's, entry for entry (a row whose
  counts reach 16 bits is computed again, on every edit while they do). The repair keeps each
  changed node's edge block in a build's order (by neighbour cell: a search pushes successors
  in that order). So the same query on the same cells finds the same path whatever ran before,
  as on a grid built with those cells, and the first query after an edit does no landmark
  work. Only the nodes whose neighbours the repair really changed seed the rows' repair (it
  rescans 3.4x more on AR0011SR): the repair kernel logs each block before it first changes it
  and reports those nodes, so an edit copies no edge pool (the subgoal part of a 4x4 edit on
  Cauldron 12.9 -> 12.5 ms CPU, within the noise: the kernels take the rest, the rows' repair
  7.4 ms and the graph's 4.4 ms, cProfile). Per 4x4 edit on a machine 8x slower than a laptop
  (CPU medians): the rows' repair 3.7 ms on AR0011SR, 5.9 ms on Cauldron, the whole
  set_walkable 4.7-15 ms on AR0011SR and the GPPC maps, where the first query after an edit
  spread all landmarks again (117-1221 ms). Sectors against farthest-first placement, median
  nodes expanded of the 20 longest queries: Cauldron 236 -> 210, room-1550-155 481 -> 406,
  orz700d 264 -> 264, AR0011SR 38 -> 41, maze-1550-15 682 -> 1067 (a maze's farthest subgoals
  are its dead ends, which geometry does not find).
* Threads: as :mod:`gamenav.grid.hpa` (:class:`~gamenav.grid._index.GridIndex`): a query
  borrows the graph of its snapshot's version; an edit while queries hold it repairs a copy
  (its landmark rows too). A query whose snapshot and the index disagree runs A* (same cost).

Scope: uniform-cost grids, ``diagonal="no_corner_cutting"``, weight 1, the octile heuristic and
``agent_radius`` up to half a cell (the search raises :class:`~gamenav.UnsupportedOptionError`
otherwise).
"""

from __future__ import annotations

import itertools
import threading
from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt

from gamenav._kernels import announce_compile
from gamenav._kernels import subgoal as _ks
from gamenav.grid._index import GridIndex, IndexRegistry, answer_once, padded_cells
from gamenav.grid.tilegrid import TileGrid, _GridState

__all__ = ["SubgoalIndex", "SubgoalResult", "find", "fits", "hold", "subgoal_index"]

KERNELS = (_ks.repair, _ks.query, _ks.landmark, _ks.repair_landmarks)
_INT16_LIMIT = 8000
"""Grids up to this size a side keep clearances in int16 (``j << 2`` must fit)."""

LANDMARKS = 96
"""Landmarks of the heuristic (differential heuristics; see the module docstring)."""

LANDMARK_BUDGET = 1_500_000
"""Node visits the build spends on landmark Dijkstras: big graphs get fewer landmarks (at least
:data:`ACTIVE`), so that random-obstacle maps of 60 000+ subgoals still build in about 1 s."""

ACTIVE = 4
"""Landmarks a query uses: those whose distances to the subgoals nearest to its start and goal
differ most."""

TAUT = True
"""Expand only taut successors (see :func:`gamenav._kernels.subgoal._taut`)."""

_SECTOR_ORDER = np.arange(LANDMARKS, dtype=np.int64) * 59 % LANDMARKS
"""The sector of landmark j (:func:`_sectors`): 59 is prime to :data:`LANDMARKS` and near its
golden section, so the first landmarks (a big graph gets fewer) spread round the map."""

_POOL_SLACK = 4096
"""Edge entries the pool may hold beyond twice the live ones before a repair compacts it
(:meth:`_Graph.compact_edges`)."""

_generations = itertools.count()

_Transform = tuple[tuple[float, float], float, bool, float]
"""A grid's cell-to-world transform: ``(origin, cell_size, y_up, height in cells)``."""


class SubgoalResult(NamedTuple):
    """One answered query: read-only ``(n, 2)`` int64 cells and float64 world points, the
    cells' grid cost, graph nodes expanded (a named tuple: built on every query)."""

    cells: npt.NDArray[np.int64]
    points: npt.NDArray[np.float64]
    cost: float
    expanded: int


class _Graph:
    """The arrays of one version of the subgoal graph (see :mod:`gamenav._kernels.subgoal`)."""

    __slots__ = ("p", "sg", "clear", "ncell", "node_x", "node_y", "corner", "box", "off", "cnt",
                 "cap", "free", "adj", "adir", "meta", "generation", "marks")

    def __init__(self, p: npt.NDArray[np.uint8], clear_dtype: type[np.signedinteger[Any]]) -> None:
        self.p = p
        self.sg = np.full(p.shape[0], -1, dtype=np.int32)
        self.clear = np.zeros((p.shape[0], 4), dtype=clear_dtype)
        self.meta = np.zeros(3, dtype=np.int64)
        self.adj = np.zeros(64, dtype=np.int64)
        self.adir = np.zeros(64, dtype=np.uint8)
        self.generation = next(_generations)
        self.marks = _Landmarks(0, 0)  # (placed by the build)
        self._nodes(0)

    def _nodes(self, cap: int) -> None:
        self.ncell = np.full(cap, -1, dtype=np.int64)
        self.node_x = np.zeros(cap, dtype=np.int32)
        self.node_y = np.zeros(cap, dtype=np.int32)
        self.corner = np.zeros(cap, dtype=np.uint8)
        self.box = np.zeros((cap, 4), dtype=np.int32)
        self.off = np.zeros(cap, dtype=np.int64)
        self.cnt = np.zeros(cap, dtype=np.int32)
        self.cap = np.zeros(cap, dtype=np.int32)
        self.free = np.zeros(cap, dtype=np.int32)

    def reserve(self, more: int) -> None:
        """Room for ``more`` new node ids."""
        need = int(self.meta[0]) + more
        have = self.ncell.shape[0]
        if need <= have:
            return
        old = [getattr(self, name) for name in _NODE_ARRAYS]
        self._nodes(max(need, 2 * have, 64))
        for name, array in zip(_NODE_ARRAYS, old, strict=True):
            getattr(self, name)[:have] = array

    def compact_edges(self) -> None:
        """Lay the edge blocks out again in node order, each exactly as long as its entries. A
        block that outgrows its room moves to the end of the pool and leaves its old place
        unused, so edits would grow the pool (and every search workspace's heap, sized by it)
        without bound; and blocks in node order put the edges of nodes near in Z order, which a
        query expands one after the other, in shared cache lines."""
        cnt = self.cnt.astype(np.int64)
        live = int(cnt.sum())
        off = np.zeros_like(self.off)
        np.cumsum(cnt[:-1], out=off[1:])
        source = np.repeat(self.off - off, cnt) + np.arange(live)
        room = live + live // 4 + 64  # for the blocks the next edits move
        adj = np.zeros(room, dtype=np.int64)
        adir = np.zeros(room, dtype=np.uint8)
        adj[:live] = self.adj[source]
        adir[:live] = self.adir[source]
        self.adj, self.adir, self.off = adj, adir, off
        self.cap[:] = self.cnt
        self.meta[2] = live

    def copy(self) -> _Graph:
        other = _Graph.__new__(_Graph)
        for name in _ARRAYS:
            setattr(other, name, getattr(self, name).copy())
        other.generation, other.marks = self.generation, self.marks.copy()
        return other

    @property
    def nbytes(self) -> int:
        return sum(int(getattr(self, name).nbytes) for name in _ARRAYS)


_NODE_ARRAYS = ("ncell", "node_x", "node_y", "corner", "box", "off", "cnt", "cap", "free")
_ARRAYS = _Graph.__slots__[:-2]


class _Landmarks:
    """The landmarks of one graph version, kept exact through its repairs: ``dist[j, v]``
    (uint32 entries, see :mod:`gamenav._kernels.subgoal`) from landmark j to node id v (a row
    per landmark: a query reads a few rows) and ``by_node`` the same entries a row per node id
    (``(ids, landmarks)``: a query chooses its landmarks by two of its rows); ``cells[j]`` the
    landmark's padded cell (-1: none); ``fits[j]`` whether row j is exact (placed, its step
    counts under 16 bits); ``use`` those rows."""

    __slots__ = ("dist", "by_node", "cells", "fits", "use")

    def __init__(self, rows: int, ids: int) -> None:
        self.dist = np.full((rows, ids), _ks.NO_DIST, dtype=np.uint32)
        self.by_node = np.full((ids, rows), _ks.NO_DIST, dtype=np.uint32)
        self.cells = np.full(rows, -1, dtype=np.int64)
        self.fits = np.zeros(rows, dtype=bool)
        self.use = np.zeros(0, dtype=np.int64)

    def resized(self, rows: int, ids: int) -> _Landmarks:
        """A copy with ``rows`` landmarks (the first ones kept) and entries for ``ids`` node ids."""
        other = _Landmarks(rows, ids)
        r, n = min(rows, self.cells.shape[0]), min(ids, self.dist.shape[1])
        other.dist[:r, :n] = self.dist[:r, :n]
        other.by_node[:n, :r] = self.by_node[:n, :r]
        other.cells[:r] = self.cells[:r]
        other.fits[:r] = self.fits[:r]
        other.use = np.flatnonzero(other.fits).astype(np.int64)
        return other

    def copy(self) -> _Landmarks:
        return self.resized(*self.dist.shape)

    def put(self, j: int, column: npt.NDArray[np.uint32] | None) -> None:
        """Row j from a column of :meth:`SubgoalIndex._distances` (None: it does not fit)."""
        self.fits[j] = column is not None
        self.dist[j] = _ks.NO_DIST if column is None else column
        self.by_node[:, j] = self.dist[j]


def _sectors(shape: tuple[int, int], x: npt.NDArray[np.int64], y: npt.NDArray[np.int64]
             ) -> npt.NDArray[np.int64]:
    """The sector (0 to :data:`LANDMARKS` - 1) of each cell ``(x, y)`` seen from the centre of a
    grid of ``shape``: where the ray from the centre through the cell leaves the grid, the
    border cut into equal parts (exact integer arithmetic: the same sectors on every machine)."""
    h, w = shape
    q = LANDMARKS // 8
    big_x = (2 * x - (w - 1)) * h
    big_y = (2 * y - (h - 1)) * w
    flat = np.abs(big_y) <= np.abs(big_x)
    out = np.zeros(x.shape, dtype=np.int64)
    for face, (side, num, den) in enumerate([(flat & (big_x > 0), big_y, big_x),
                                             (~flat & (big_y > 0), -big_x, big_y),
                                             (flat & (big_x < 0), big_y, big_x),
                                             (~flat & (big_y < 0), -big_x, big_y)]):
        out[side] = (2 * face + 1) * q + q * num[side] // den[side]
    return out % LANDMARKS


def _farthest(gr: _Graph, shape: tuple[int, int], ids: npt.NDArray[np.int64],
              sector: npt.NDArray[np.int64]) -> dict[int, int]:
    """The node of ``ids`` (in sectors ``sector``) farthest from the grid's centre in each sector
    (ties by cell in row order)."""
    h, w = shape
    dx = 2 * gr.node_x[ids].astype(np.int64) - (w - 1)
    dy = 2 * gr.node_y[ids].astype(np.int64) - (h - 1)
    order = np.lexsort((gr.ncell[ids], -(dx * dx + dy * dy), sector))
    first = np.ones(order.size, dtype=bool)
    first[1:] = sector[order[1:]] != sector[order[:-1]]
    return dict(zip(sector[order[first]].tolist(), ids[order[first]].tolist(), strict=True))


_STAMP_LIMIT = int(np.iinfo(np.int32).max)
"""Query stamps wrap round (and the search records are cleared) here."""


class _Workspace:
    """One thread's graph-search state (see :func:`gamenav._kernels.subgoal.query`): the heap
    (with duplicates) has room for every push a search can make (one per edge entry, the
    start's and the goal's subgoals), so the kernels never grow it."""

    def __init__(self, graph: _Graph, shape: tuple[int, int]) -> None:
        n = graph.ncell.shape[0] + 2
        self.scratch = np.empty(8 + 8 * (shape[0] + shape[1] + 4), dtype=np.int64)
        self.rec = np.zeros((n, 4), dtype=np.int64)
        heap = self.heap_need(graph)
        self.hk = np.empty(heap, dtype=np.float64)  # (untouched pages cost no memory)
        self.hn = np.empty(heap, dtype=np.int64)
        self.stamp = 0
        self.generation = -1  # of the graph last checked to fit (a copy keeps it, and its sizes)

    def heap_need(self, graph: _Graph) -> int:
        return int(graph.meta[2]) + 2 * self.scratch.shape[0] + 2

    def fits(self, graph: _Graph) -> bool:
        return (self.rec.shape[0] >= graph.ncell.shape[0] + 2
                and self.hk.shape[0] >= self.heap_need(graph))

    def next_stamp(self, count: int = 1) -> int:
        """The first of ``count`` new stamps."""
        if self.stamp + count >= _STAMP_LIMIT:
            self.rec[:, 0] = 0
            self.stamp = 0
        self.stamp += count
        return self.stamp - count + 1


def _count_subgoals(pad: npt.NDArray[np.uint8]) -> int:
    """Subgoals among the inner cells of a padded window (the grid, or a part of it with a
    rim of one cell: cells with a blocked diagonal neighbour whose two cells between are
    passable)."""
    free = pad != 0
    mid = free[1:-1, 1:-1]
    corner = np.zeros_like(mid)
    for dy in (-1, 1):
        for dx in (-1, 1):
            diag = free[1 + dy:pad.shape[0] - 1 + dy, 1 + dx:pad.shape[1] - 1 + dx]
            side_x = free[1:-1, 1 + dx:pad.shape[1] - 1 + dx]
            side_y = free[1 + dy:pad.shape[0] - 1 + dy, 1:-1]
            corner |= ~diag & side_x & side_y
    return int((mid & corner).sum())


class SubgoalIndex(GridIndex[_Graph]):
    """The subgoal graph of one grid, kept at the grid's latest version (:class:`GridIndex`).

    Args:
        grid: the grid; the index subscribes to its edits (weakly) and repairs itself.

    Attributes:
        version: the grid version the current graph describes.
        repaired: subgoals rescanned by the last repair (a measure of its work).
    """

    def __init__(self, grid: TileGrid) -> None:
        self._local = threading.local()
        super().__init__(grid)

    def _build(self, passable: npt.NDArray[np.bool_]) -> None:
        h, w = passable.shape
        self.stride = w + 2
        dtype = np.int16 if max(h, w) < _INT16_LIMIT else np.int32
        gr = _Graph(padded_cells(passable), dtype)
        announce_compile("grid search", *KERNELS)
        self._run(gr, 0, 0, w, h, _count_subgoals(gr.p.reshape(h + 2, w + 2)))
        gr.compact_edges()
        self._place_landmarks(gr, np.zeros(0, dtype=np.int64), np.flatnonzero(gr.ncell >= 0))
        self._data = gr

    def _run(self, gr: _Graph, x0: int, y0: int, x1: int, y1: int, more: int
             ) -> tuple[int, npt.NDArray[np.int64], npt.NDArray[np.int64]]:
        """Repair ``gr`` in the box; returns the subgoals rescanned, the live nodes whose
        neighbours changed and the ids whose cell changed (see
        :func:`gamenav._kernels.subgoal.repair`)."""
        gr.reserve(more)
        gr.adj, gr.adir, rescanned, seeds, moved = _ks.repair(
            gr.p, self.stride, x0, y0, x1, y1, gr.sg, gr.clear, gr.ncell, gr.node_x, gr.node_y,
            gr.corner, gr.box, gr.off, gr.cnt, gr.cap, gr.free, gr.adj, gr.adir, gr.meta)
        if gr.meta[2] > 2 * int(gr.cnt.sum()) + _POOL_SLACK:  # mostly moved-out blocks
            gr.compact_edges()
        return int(rescanned), seeds, moved

    def _copy(self, data: _Graph) -> _Graph:
        return data.copy()

    def _repair(self, passable: npt.NDArray[np.bool_], x0: int, y0: int, x1: int, y1: int) -> int:
        h, w = self.shape
        gr = self._data
        gr.generation = next(_generations)
        pad = gr.p.reshape(h + 2, w + 2)
        pad[y0 + 1:y1 + 1, x0 + 1:x1 + 1] = passable[y0:y1, x0:x1]
        # new ids: at most the subgoals within one cell of the box (not its area: one edit
        # loading a whole map would reserve an id per cell, and landmark rows as many entries)
        more = _count_subgoals(pad[max(y0 - 1, 0):y1 + 3, max(x0 - 1, 0):x1 + 3])
        rescanned, seeds, moved = self._run(gr, x0, y0, x1, y1, more)
        self._place_landmarks(gr, seeds, moved)
        return rescanned

    @property
    def nbytes(self) -> int:
        """Bytes held by the graph's arrays (the index's padded copy of the cells included) and
        the landmark distances (not the per-thread search workspaces)."""
        gr = self._data
        return gr.nbytes + int(gr.marks.dist.nbytes) + int(gr.marks.by_node.nbytes)

    @property
    def nodes(self) -> int:
        """Subgoals in the graph."""
        return int((self._data.ncell >= 0).sum())

    @property
    def edges(self) -> int:
        """Edges in the graph (each counted once)."""
        gr = self._data
        return int(gr.cnt[gr.ncell >= 0].sum()) // 2

    def edge_set(self) -> set[tuple[int, int, int, int]]:
        """Every edge as ``(x, y, x2, y2)`` (both directions; for tests and diagnostics)."""
        gr = self._data
        out = set()
        for u in np.flatnonzero(gr.ncell >= 0).tolist():
            for e in gr.adj[gr.off[u]:gr.off[u] + gr.cnt[u]].tolist():
                v = e >> _ks.ID_SHIFT
                out.add((int(gr.node_x[u]), int(gr.node_y[u]), int(gr.node_x[v]),
                         int(gr.node_y[v])))
        return out

    def _workspace(self, graph: _Graph) -> _Workspace:
        ws: _Workspace | None = getattr(self._local, "ws", None)
        if ws is None or ws.generation != graph.generation:  # checked once per graph version
            if ws is None or not ws.fits(graph):
                ws = self._local.ws = _Workspace(graph, self.shape)
            ws.generation = graph.generation
        return ws

    def _distances(self, graph: _Graph, src: int) -> npt.NDArray[np.uint32] | None:
        """Landmark entries (:data:`gamenav._kernels.subgoal.NO_DIST`: not reached) from node
        ``src`` to every node id of ``graph``, or None if the step counts overflow 16 bits
        (paths over 65 000 steps: the landmark is left out)."""
        ws = self._workspace(graph)
        out = np.empty(graph.ncell.shape[0], dtype=np.uint32)
        fits = _ks.landmark(graph.off, graph.cnt, graph.adj, graph.adir, graph.corner,
                            graph.node_x, graph.node_y, src, out, ws.rec, ws.next_stamp(), ws.hk,
                            ws.hn)
        return out if fits else None

    def _place_landmarks(self, gr: _Graph, seeds: npt.NDArray[np.int64],
                         changed: npt.NDArray[np.int64]) -> None:
        """Bring the landmarks of ``gr`` up to it after a build or a repair that changed the
        edges of the nodes ``seeds`` and the cells of the ids ``changed`` (new or removed
        nodes): landmark j is the subgoal farthest from the grid's centre in sector
        :data:`_SECTOR_ORDER` [j] (:func:`_sectors`; ties by cell: a function of the node set
        alone, as a build places it); a row whose landmark moved (or that did not fit) is
        computed again (a Dijkstra), the others are repaired
        (:func:`gamenav._kernels.subgoal.repair_landmarks`)."""
        live = np.flatnonzero(gr.ncell >= 0)
        rows = min(LANDMARKS, max(ACTIVE, LANDMARK_BUDGET // max(live.size, 1)))
        marks = gr.marks
        grew = rows > marks.cells.shape[0]  # (new rows' sectors: their farthest subgoal among all)
        if marks.dist.shape != (rows, gr.ncell.shape[0]):
            marks = gr.marks = marks.resized(rows, gr.ncell.shape[0])
        marks.dist[:, changed] = _ks.NO_DIST
        marks.by_node[changed] = _ks.NO_DIST
        old = np.where(marks.cells >= 0, gr.sg[np.maximum(marks.cells, 0)], -1).astype(np.int64)
        gone = (marks.cells >= 0) & (old < 0)
        ids = live if grew or gone.any() else changed[gr.ncell[changed] >= 0]  # (new ones: sectors gain)
        sector = _sectors(self.shape, gr.node_x[ids].astype(np.int64), gr.node_y[ids].astype(np.int64))
        best = _farthest(gr, self.shape, np.append(ids, old[old >= 0]),
                         np.append(sector, _SECTOR_ORDER[:rows][old >= 0]))
        src = np.array([best.get(int(k), -1) for k in _SECTOR_ORDER[:rows]], dtype=np.int64)
        marks.cells = np.full(rows, -1, dtype=np.int64)
        marks.cells[src >= 0] = gr.ncell[src[src >= 0]]
        kept = np.flatnonzero((src == old) & (src >= 0) & marks.fits)
        again = np.flatnonzero(~np.isin(np.arange(rows), kept)).tolist()
        if kept.size:
            ws = self._workspace(gr)
            heap = int(gr.meta[2]) + 3 * gr.ncell.shape[0] + 2
            ok = np.zeros(kept.size, dtype=bool)
            _ks.repair_landmarks(gr.off, gr.cnt, gr.adj, gr.node_x, gr.node_y, marks.dist,
                                 marks.by_node, kept, src[kept], seeds, ws.rec,
                                 ws.next_stamp(2 * kept.size), np.empty(heap),
                                 np.empty(heap, dtype=np.int64), ok)
            again += kept[~ok].tolist()
        for j in again:
            marks.put(j, None if src[j] < 0 else self._distances(gr, int(src[j])))
        marks.use = np.flatnonzero(marks.fits).astype(np.int64)

    @property
    def landmarks_current(self) -> int:
        """Landmarks the heuristic of the current graph uses."""
        return int(self._data.marks.use.size)

    def query(self, graph: _Graph, start: tuple[int, int], goal: tuple[int, int],
              transform: _Transform) -> SubgoalResult | None:
        """Run one query on ``graph`` (from :meth:`acquire`; start and goal passable, connected
        and different); None if the graph did not answer (the caller runs A*). ``transform``:
        the grid's ``(origin, cell_size, y_up, height)`` for the world points."""
        announce_compile("grid search", *KERNELS)
        marks = graph.marks
        ws = self._workspace(graph)
        ox, oy = transform[0]
        status, cells, points, cost, expanded = _ks.query(
            graph.p, self.stride, graph.sg, graph.clear, graph.node_x, graph.node_y, graph.corner,
            graph.off, graph.cnt, graph.adj, graph.adir, marks.dist, marks.by_node, marks.use, ACTIVE,
            TAUT, start[0], start[1], goal[0], goal[1], ws.rec, ws.next_stamp(), ws.hk, ws.hn,
            ws.scratch, ox, oy, transform[1], transform[2], transform[3])
        if status != _ks.FOUND:
            return None
        return SubgoalResult(cells, points, float(cost), int(expanded))

    def answer(self, graph: _Graph, grid: TileGrid, state: _GridState, start: tuple[int, int],
               goal: tuple[int, int]) -> SubgoalResult | None:
        """:meth:`query` for snapshot ``state`` of ``grid`` with ``graph``, this index's graph of
        that snapshot (from :func:`hold`), in the grid's own transform (as ``GridSearch`` and
        ``cell_to_world`` read it, not properties a subclass may override)."""
        return self.query(graph, start, goal, (grid._origin, grid._cell_size, grid._y_up,
                                               float(state.passable.shape[0])))

    def __repr__(self) -> str:
        return f"SubgoalIndex(version={self.version}, nodes={self.nodes}, nbytes={self.nbytes})"


_indexes: IndexRegistry[SubgoalIndex] = IndexRegistry(SubgoalIndex, KERNELS)


def subgoal_index(grid: TileGrid) -> SubgoalIndex:
    """The grid's :class:`SubgoalIndex`, built on first use (kept while the grid lives)."""
    return _indexes.of(grid)


def fits(shape: tuple[int, ...]) -> bool:
    """Whether a grid of ``shape`` fits the graph's packed edges (cells under 2**17 a side, under
    2**27 in all: larger grids run A* for ``algorithm="subgoal"``)."""
    h, w = shape
    return max(h, w) + 2 < _ks.COORD_MASK and (h + 2) * (w + 2) < 1 << 27


def hold(grid: TileGrid, state: _GridState) -> tuple[SubgoalIndex, _Graph] | None:
    """The grid's index (built now if there is none) and its graph of snapshot ``state``, lent
    to one search until :func:`~gamenav.grid._index.let_go` (an edit meanwhile repairs a copy),
    or None: a snapshot that is not the grid's current one (an agent-radius view, or an edit
    raced with the search's start), or a grid too large for the packed graph (:func:`fits`)."""
    if state is not grid._snapshot() or not fits(state.passable.shape):
        return None
    index = subgoal_index(grid)
    graph = index.acquire(state)
    return None if graph is None else (index, graph)


def find(grid: TileGrid, state: _GridState, start: tuple[int, int], goal: tuple[int, int]
         ) -> SubgoalResult | None:
    """Answer a query for ``algorithm="subgoal"`` on snapshot ``state`` (start and goal passable
    and connected, start != goal), or None when plain A* should answer it instead (see
    :func:`hold`)."""
    return answer_once(hold(grid, state), grid, state, start, goal)
