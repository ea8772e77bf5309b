"""HPA* for ``algorithm="hpa"``: a per-grid cluster graph, built once and repaired locally on edits.

Cells are ``(x, y)``; arrays are indexed ``[y, x]`` (flat padded nodes, see
:mod:`gamenav._kernels.hpa`).

Design (Botea, Mueller & Schaeffer 2004, "Near optimal hierarchical path-finding"; sizes chosen
from measurements on the GPPC 2014 maps, ``benchmarks/grid_large.py``, 200 longest scenarios):

* Clusters of :data:`CLUSTER_SIZE` x :data:`CLUSTER_SIZE` cells. On every border between two
  clusters, each entrance (a maximal run of rows / columns passable on both sides) gets
  transition cells on both sides: its middle cell if it is at most :data:`SINGLE` cells long,
  else both ends and every :data:`SPACING` cells between. Transition cells of different
  clusters that are neighbours are joined by that step (orthogonal 1, diagonal sqrt(2) without
  cutting a corner).
* Inside a cluster, every pair of its transition cells is joined by the exact shortest path
  that stays in the cluster (a Dijkstra per transition cell, numba); the Dijkstra's
  shortest-path tree is kept (1 byte per cell of the cluster per transition cell; a cell's
  parent is the first direction to a neighbour on one of its shortest ways, so a tree depends
  on the cells only and a repaired tree is the one a build gives), so refining
  an abstract edge into cells, and joining a query's start and goal to their cluster's nodes,
  is a walk up a tree (trees stored in 8 x 8 tiles: one cache line per ~8 steps). An edge that
  two edges through a third node of the cluster match is dropped (distances stay exact; on the
  GPPC maps 16 % (rooms) to 83 % (maze) of the node pairs of a cluster keep no edge, and the
  queries took 0.19 -> 0.14 ms on orz700d, 3.9 -> 2.7 ms on the maze).
* The graph lives in flat numpy arrays: per cluster a block of node ids, a distance matrix and
  the trees, in pools that grow when a repaired cluster needs more room; per node its border
  steps.
* Query (one kernel): start and goal are joined to their clusters' transition cells along the
  trees; A* (octile heuristic, indexed binary heap) runs on the abstract graph; the edges are
  refined through the trees, then string-pulled: from each anchor, the farthest later cell
  reachable by an octile-optimal cell line (straight Bresenham, else diagonal steps first, else
  straight steps first) that enters only passable cells and cuts no corner. So every step is
  valid for ``diagonal="no_corner_cutting"``, and ``cost`` is the grid cost of the returned
  cells (a line never costs more than the cells it replaces). Start and goal in the same or
  neighbouring clusters run A* (exact) for up to :data:`NEAR_EXPANSIONS` x the cluster area
  expansions, then (a long detour round a wall) the cluster graph. An abstract search that
  does not connect runs A* (it cannot when the island labels say the cells are connected;
  kept as a safety net), so "hpa" answers NO_PATH exactly when A* does.
* Result (``python benchmarks/grid_large.py``, one run, CPU medians, 2026-11-27): maze 4.0 ms
  (A* 147 ms, 37x), rooms 0.68 ms (56x), orz700d 0.20 ms (24x), Cauldron 0.69 ms (43x); mean length
  1.0000-1.0051 x optimal, max 1.0188 x (a later run on a busy machine: 21-52x, mean <= 1.0053,
  max 1.0214). Graph build 53-1552 ms CPU, 9.6-73 MiB; a 4 x 4 edit repaired in 0.24-0.46 ms
  (median CPU, trees repaired in place, see Edits). Open ground strewn with single-cell obstacles
  is the worst case: long entrances get transitions only at their ends and the string-pulling's
  lines are often blocked
  (``benchmarks/hpa_quality.py``: 2% of the cells blocked, max 1.147 x; transitions
  every 16 cells gave 1.029 x, but Cauldron's queries took 0.50 -> 0.98 ms); A* is faster there anyway.
* Sizes (medians, ms per query / mean and max length over optimal; one machine, one run):
  16-cell clusters with transitions every 8 cells gave near-optimal paths (mean <= 1.0006 after
  smoothing) but searched graphs of 25 000 - 80 000 nodes (room 9.5 ms, maze 21 ms); sparser
  transitions (entrance ends only) and larger clusters shrink the graph: 32 -> 64 -> 80 cells
  took Cauldron 1.6 -> 0.81 -> 0.60, room 1.7 -> 0.79 -> 0.57, maze 9.2 -> 5.5 -> 3.9,
  orz700d 0.43 -> 0.25 -> 0.19, means 1.0000 - 1.0057, maxima <= 1.0185. One middle cell for
  every entrance up to 16 cells was faster still but cost the 15-cell maze openings 4 % (mean
  1.037), hence :data:`SINGLE` = 8. 96 and 128 cells were 5-10 % faster again but repairs and
  memory grow with the cluster area (the trees: transition cells x cluster cells bytes).
* Edits: the index listens to its grid (a weak subscription) and, in the editing thread,
  rebuilds only the clusters within one cell of the changed box (their entrances, edges and
  trees) and relinks the border steps of their neighbours; the other clusters keep their nodes.
  A node that stays keeps its tree, repaired in place: only the cells whose shortest way
  changed are searched again (:func:`gamenav._kernels.hpa._repair_tree`), with the unpruned
  distances kept to match; a new node gets a whole Dijkstra. A 4 x 4 block set or cleared on
  random512-10-0 (54 nodes per cluster) took 27.1 ms (median CPU, the clusters' Dijkstras)
  before, 2.7-2.8 ms now (two runs on a busy machine); orz700d 0.78 -> 0.28-0.31 ms.
* Threads: a query takes the graph with :meth:`HpaIndex.acquire` (only when the index is at its
  snapshot's version; a ``GridSearch`` from its start to its first step, :func:`hold`) and gives
  it back when done; an edit repairs in place only when no query holds the graph, and otherwise
  repairs a copy. A query whose snapshot and the index disagree (an agent-radius view, an edit
  raced with its start) runs A* (same answer status, optimal cost). Each thread has its own
  search workspace.

Scope: uniform-cost grids, ``diagonal="no_corner_cutting"``, weight 1, the octile heuristic and
``agent_radius`` up to half a cell (the search raises :class:`~gamenav.UnsupportedOptionError`
otherwise).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from gamenav._identity import IdentityMap
from gamenav._kernels import announce_compile
from gamenav._kernels import hpa as _kh
from gamenav._validate import is_int, shown
from gamenav.errors import InvalidInputError
from gamenav.grid._index import GridIndex, answer_once, padded_cells
from gamenav.grid.tilegrid import TileGrid, _GridState
from gamenav.types import PathStatus

__all__ = ["CLUSTER_SIZE", "SPACING", "HpaIndex", "HpaResult", "find", "hold", "hpa_index"]

CLUSTER_SIZE = 80
"""Cells per cluster side (see the module docstring for how it was chosen)."""

SPACING = 80
"""Most cells between two transition cells of one entrance (80 = :data:`CLUSTER_SIZE`: only
the two ends of entrances longer than :data:`SINGLE`)."""

SINGLE = 8
"""Entrances of at most this many cells get one transition cell (their middle)."""

NEAR_EXPANSIONS = 4
"""Start and goal in the same or neighbouring clusters: A* answers if it needs at most this
many times the cluster area in expansions (else the cluster graph does)."""

WEIGHT = 1.0
"""Heuristic weight of the abstract A* (``f = g + WEIGHT * octile``)."""

KERNELS = (_kh.cluster_nodes, _kh.cluster_edges, _kh.query)

I64 = npt.NDArray[np.int64]


@dataclass(frozen=True)
class HpaResult:
    """One answered query: ``(n, 2)`` int64 cells, their grid cost, nodes expanded."""

    cells: I64
    cost: float
    expanded: int


class _Graph:
    """The arrays of one version of the abstract graph (see :mod:`gamenav._kernels.hpa`)."""

    __slots__ = ("p", "node_of", "cstart", "ccount", "ccap", "node_cell", "doff", "dist", "full",
                 "toff", "tree", "inter", "inter_cost", "node_xy", "nodes_used", "dist_used",
                 "tree_used")

    def __init__(self, p: npt.NDArray[np.uint8], clusters: int) -> None:
        self.p = p
        self.node_of = np.full(p.shape[0], -1, dtype=np.int32)
        self.cstart = np.zeros(clusters, dtype=np.int64)
        self.ccount = np.zeros(clusters, dtype=np.int64)
        self.ccap = np.zeros(clusters, dtype=np.int64)
        self.doff = np.zeros(clusters, dtype=np.int64)
        self.toff = np.zeros(clusters, dtype=np.int64)
        self.node_cell = np.zeros(0, dtype=np.int64)
        self.dist = np.zeros(0, dtype=np.float64)
        self.full = np.zeros(0, dtype=np.float64)
        self.tree = np.zeros(0, dtype=np.uint8)
        self.inter = np.zeros((0, 5), dtype=np.int64)
        self.inter_cost = np.zeros((0, 5), dtype=np.float64)
        self.node_xy = np.zeros((0, 3), dtype=np.int64)
        self.nodes_used = self.dist_used = self.tree_used = 0

    def copy(self) -> _Graph:
        other = _Graph.__new__(_Graph)
        for name in _Graph.__slots__:
            value = getattr(self, name)
            setattr(other, name, value.copy() if isinstance(value, np.ndarray) else value)
        return other

    @property
    def nbytes(self) -> int:
        return sum(int(getattr(self, name).nbytes) for name in _Graph.__slots__[:14])


class _Workspace:
    """One thread's abstract-search state (see :func:`gamenav._kernels.hpa.query`), stamped so
    that queries need no clearing."""

    def __init__(self, nodes: int) -> None:
        n = nodes + 2
        self.g = np.empty(n, dtype=np.float64)
        self.parent = np.empty(n, dtype=np.int64)
        self.pos = np.empty(n, dtype=np.int64)
        self.seen = np.zeros(n, dtype=np.int32)
        self.hk = np.empty(n, dtype=np.float64)
        self.hn = np.empty(n, dtype=np.int64)
        self.stamp = 0

    def next_stamp(self) -> int:
        self.stamp += 1
        if self.stamp >= np.iinfo(np.int32).max:
            self.seen.fill(0)
            self.stamp = 1
        return self.stamp


def _grown(array: npt.NDArray[Any], need: int, fill: Any) -> npt.NDArray[Any]:
    """``array`` with room for at least ``need`` entries (doubling; new room holds ``fill``)."""
    if need <= array.shape[0]:
        return array
    bigger = np.full((max(need, 2 * array.shape[0], 64), *array.shape[1:]), fill, dtype=array.dtype)
    bigger[:array.shape[0]] = array
    return bigger


class HpaIndex(GridIndex[_Graph]):
    """The HPA* graph of one grid, kept at the grid's latest version (:class:`GridIndex`).

    Args:
        grid: the grid; the index subscribes to its edits (weakly) and repairs itself.
        cluster_size: cells per cluster side (>= 4).
        spacing: most cells between two transition cells of one entrance (>= 1).

    Attributes:
        version: the grid version the current graph describes.
        repaired: clusters rebuilt by the last repair (a measure of its work).

    Raises:
        InvalidInputError: settings out of range (see :func:`hpa_index`).
    """

    def __init__(self, grid: TileGrid, *, cluster_size: int | None = CLUSTER_SIZE,
                 spacing: int | None = SPACING, single: int | None = SINGLE) -> None:
        given = (cluster_size, spacing, single)
        _check_settings(given)
        self.size, self.spacing, self.single = _settings(None, given)  # (None: the default, as hpa_index)
        self._local = threading.local()
        super().__init__(grid)

    def _build(self, passable: npt.NDArray[np.bool_]) -> None:
        h, w = passable.shape
        self.stride = w + 2
        self.ncx = -(-w // self.size)
        self.ncy = -(-h // self.size)
        cw, ch = min(self.size, w), min(self.size, h)  # the largest cluster's extent
        self.tree_area = ((cw + 7) // 8) * ((ch + 7) // 8) * 64  # one tree: whole 8 x 8 tiles
        self.border = 2 * (cw + ch)  # the most transition cells of one cluster
        # A* budget of near queries (never beyond 4 h w: A* expands each cell at most once)
        self.near_expansions = NEAR_EXPANSIONS * min(self.size, max(h, w)) ** 2
        self._data = _Graph(padded_cells(passable), self.ncx * self.ncy)
        announce_compile("grid search", *KERNELS)
        self._rebuild(self._data, np.arange(self.ncx * self.ncy, dtype=np.int64), (0, 0, w, h))

    def _copy(self, data: _Graph) -> _Graph:
        return data.copy()

    def _repair(self, passable: npt.NDArray[np.bool_], x0: int, y0: int, x1: int, y1: int) -> int:
        """Repair the clusters within one cell of the changed box."""
        h, w = self.shape
        gr = self._data
        gr.p.reshape(h + 2, w + 2)[y0 + 1:y1 + 1, x0 + 1:x1 + 1] = passable[y0:y1, x0:x1]
        s = self.size
        cx0, cx1 = max(x0 - 1, 0) // s, min(x1, w - 1) // s
        cy0, cy1 = max(y0 - 1, 0) // s, min(y1, h - 1) // s
        cys, cxs = np.mgrid[cy0:cy1 + 1, cx0:cx1 + 1]
        dirty = (cys * self.ncx + cxs).ravel().astype(np.int64)
        self._rebuild(gr, dirty, (x0, y0, x1, y1))
        return int(dirty.size)

    def _rebuild(self, gr: _Graph, clusters: I64, box: tuple[int, int, int, int]) -> None:
        """Recompute the nodes, distances and trees of ``clusters`` in ``gr`` (in place) for cells
        that changed only inside ``box`` (``x0, y0, x1, y1``): the trees of nodes that stay are
        repaired there."""
        size, area = self.size, self.tree_area
        h, w = self.shape
        cells = np.empty((clusters.shape[0], self.border), dtype=np.int64)
        counts = np.empty(clusters.shape[0], dtype=np.int64)
        _kh.cluster_nodes(gr.p, self.stride, h, w, size, clusters, self.spacing, self.single,
                          cells, counts)
        # the old nodes of these clusters with their trees and unpruned distances
        olds = [(int(gr.cstart[c]), int(gr.ccount[c]), int(gr.toff[c]), int(gr.doff[c]), int(gr.ccap[c]))
                for c in clusters.tolist()]
        old_start = np.cumsum([0] + [k for _, k, _, _, _ in olds], dtype=np.int64)
        old_cell = np.concatenate([gr.node_cell[s:s + k] for s, k, _, _, _ in olds])
        old_tree = np.concatenate([gr.tree[t:t + k * area] for _, k, t, _, _ in olds])
        old_full = np.concatenate([gr.full[d:d + k * cap].reshape(k, cap)[:, :k].ravel()
                                   for _, k, _, d, cap in olds])
        # forget the old nodes of these clusters
        for c in clusters.tolist():
            old = gr.node_cell[gr.cstart[c]:gr.cstart[c] + gr.ccount[c]]
            gr.node_of[old] = -1
        # clusters that outgrew their blocks get new ones at the end of the pools
        need = counts > gr.ccap[clusters]
        moving = clusters[need]
        if moving.size:
            caps = counts[need] + (counts[need] + 3) // 4  # some room for later edits
            starts = gr.nodes_used + np.concatenate(([0], np.cumsum(caps)[:-1]))
            doffs = gr.dist_used + np.concatenate(([0], np.cumsum(caps * caps)[:-1]))
            toffs = gr.tree_used + np.concatenate(([0], np.cumsum(caps * area)[:-1]))
            gr.nodes_used += int(caps.sum())
            gr.dist_used += int((caps * caps).sum())
            gr.tree_used += int((caps * area).sum())
            gr.node_cell = _grown(gr.node_cell, gr.nodes_used, -1)
            gr.inter = _grown(gr.inter, gr.node_cell.shape[0], -1)
            gr.node_xy = _grown(gr.node_xy, gr.node_cell.shape[0], -1)
            gr.inter_cost = _grown(gr.inter_cost, gr.node_cell.shape[0], 0.0)
            gr.dist = _grown(gr.dist, gr.dist_used, np.inf)
            gr.full = _grown(gr.full, gr.dist_used, np.inf)
            gr.tree = _grown(gr.tree, gr.tree_used, _kh.NO_PARENT)
            gr.cstart[moving], gr.ccap[moving] = starts, caps
            gr.doff[moving], gr.toff[moving] = doffs, toffs
        gr.ccount[clusters] = counts
        for i, c in enumerate(clusters.tolist()):
            k, start = int(counts[i]), int(gr.cstart[c])
            gr.node_cell[start:start + k] = cells[i, :k]
            gr.node_xy[start:start + k, 0] = cells[i, :k] % self.stride - 1
            gr.node_xy[start:start + k, 1] = cells[i, :k] // self.stride - 1
            gr.node_xy[start:start + k, 2] = c
            gr.node_of[cells[i, :k]] = np.arange(start, start + k, dtype=np.int32)
        # the border steps of these clusters' nodes and of their neighbours' (new node ids)
        cy, cx = np.divmod(clusters, self.ncx)
        near = np.zeros((self.ncy + 2, self.ncx + 2), dtype=bool)
        for dy in (0, 1, 2):
            for dx in (0, 1, 2):
                near[cy + dy, cx + dx] = True
        relink = np.flatnonzero(near[1:-1, 1:-1].ravel()).astype(np.int64)
        _kh.cluster_edges(gr.p, self.stride, h, w, size, clusters, relink, np.array(box, dtype=np.int64),
                          old_cell, old_start, old_tree, old_full, gr.node_of, gr.cstart, gr.ccount,
                          gr.ccap, gr.node_cell, gr.doff, gr.dist, gr.full, gr.toff, gr.tree, gr.inter,
                          gr.inter_cost)

    @property
    def nbytes(self) -> int:
        """Bytes held by the graph's arrays (the index's padded copy of the cells included)."""
        return self._data.nbytes

    @property
    def nodes(self) -> int:
        """Transition cells (abstract nodes) in the graph."""
        return int(self._data.ccount.sum())

    def query(self, graph: _Graph, start: tuple[int, int], goal: tuple[int, int], *,
              smooth: bool = True, weight: float = WEIGHT) -> HpaResult | None:
        """Run one HPA* query on ``graph`` (from :meth:`acquire`); None if the abstract search
        did not connect start and goal."""
        h, w = self.shape
        announce_compile("grid search", *KERNELS)
        ws: _Workspace | None = getattr(self._local, "ws", None)
        if ws is None or ws.g.shape[0] < graph.node_cell.shape[0] + 2:
            ws = self._local.ws = _Workspace(graph.node_cell.shape[0])
        status, cells, cost, expanded = _kh.query(
            graph.p, self.stride, h, w, self.size, graph.cstart, graph.ccount, graph.ccap,
            graph.node_cell, graph.node_xy, graph.doff, graph.dist, graph.toff, graph.tree, graph.inter,
            graph.inter_cost, start[0], start[1], goal[0], goal[1], smooth, float(weight), ws.g, ws.parent, ws.pos,
            ws.seen, ws.next_stamp(), ws.hk, ws.hn)
        if status != _kh.FOUND:
            return None
        return HpaResult(cells, float(cost), int(expanded))

    def answer(self, graph: _Graph, grid: TileGrid, state: _GridState, start: tuple[int, int],
               goal: tuple[int, int]) -> HpaResult | None:
        """Answer a query for ``algorithm="hpa"`` on snapshot ``state`` of ``grid`` with ``graph``,
        this index's graph of that snapshot (from :func:`hold`), or None when plain A* should
        answer it instead (an abstract search that did not connect).

        Start and goal in the same or neighbouring clusters: A* first, exact, unless it needs more
        than :data:`NEAR_EXPANSIONS` x cluster area expansions (a long detour round a wall); then
        the cluster graph answers.
        """
        expanded = 0
        if self.near(start, goal):
            from gamenav.grid.search import GridSearch  # here: gamenav.grid.search imports hpa

            # on ``state`` itself: an edit from another thread since the check above may have
            # blocked start or goal on the grid's current snapshot
            exact = GridSearch._from_checked(GridSearch._check(grid, start, goal), state)
            if exact.step(self.near_expansions).done:
                path = exact.result()
                if path.status is not PathStatus.FOUND:
                    return None
                return HpaResult(path.cells, path.cost, path.expanded)
            expanded = exact.expanded
            exact.cancel()
        found = self.query(graph, start, goal)
        return None if found is None else HpaResult(found.cells, found.cost, found.expanded + expanded)

    def near(self, start: tuple[int, int], goal: tuple[int, int]) -> bool:
        """Whether ``start`` and ``goal`` lie in the same or neighbouring clusters."""
        s = self.size
        return abs(start[0] // s - goal[0] // s) <= 1 and abs(start[1] // s - goal[1] // s) <= 1

    def __repr__(self) -> str:
        return (f"HpaIndex(version={self.version}, cluster_size={self.size}, nodes={self.nodes}, "
                f"nbytes={self.nbytes})")


_indexes: IdentityMap[TileGrid, HpaIndex] = IdentityMap()


def hpa_index(grid: TileGrid, *, cluster_size: int | None = None, spacing: int | None = None,
              single: int | None = None) -> HpaIndex:
    """The grid's :class:`HpaIndex`, built on first use (kept while the grid lives).

    ``cluster_size``, ``spacing``, ``single`` (default: the current index's, else
    :data:`CLUSTER_SIZE`, :data:`SPACING`, :data:`SINGLE`): when given and different from the
    current index's, the grid's index is rebuilt with them (later ``algorithm="hpa"`` queries on
    the grid use it).

    Raises:
        InvalidInputError: ``cluster_size`` not an int from 4, ``spacing`` not an int from 1 or
            ``single`` not an int from 0, to ``2**31 - 1`` (Python or numpy ints).
    """
    given = (cluster_size, spacing, single)
    _check_settings(given)
    index = _indexes.get(grid)
    if index is None or _settings(index, given) != (index.size, index.spacing, index.single):
        announce_compile("grid search", *KERNELS)  # before any lock (it may run the warmup)
        with grid._edit_lock:  # the build's own lock: a listener of an edit may build one
            index = _indexes.get(grid)
            params = _settings(index, given)
            if index is None or params != (index.size, index.spacing, index.single):
                old, index = index, HpaIndex(grid, cluster_size=params[0], spacing=params[1],
                                             single=params[2])
                if old is not None:  # only once the new one is built (a failed build keeps it)
                    old._unsubscribe()
                _indexes[grid] = index
    return index


def _check_settings(given: tuple[Any, Any, Any]) -> None:
    """Raise InvalidInputError unless each of ``(cluster_size, spacing, single)`` is None or an
    int from 4, 1, 0 to ``2**31 - 1`` (smaller clusters overflow the kernels' border steps)."""
    for name, value, low in zip(("cluster_size", "spacing", "single"), given, (4, 1, 0), strict=True):
        if value is not None and not (is_int(value) and low <= value < 2**31):
            raise InvalidInputError(f"{name} must be an int from {low} to 2**31 - 1, got {shown(value)}")


def _settings(index: HpaIndex | None, given: tuple[Any, Any, Any]) -> tuple[int, ...]:
    """``given`` ``(cluster_size, spacing, single)`` as ints, None as ``index``'s setting (no
    index: the default)."""
    have = (CLUSTER_SIZE, SPACING, SINGLE) if index is None else (index.size, index.spacing, index.single)
    return tuple(int(h if v is None else v) for v, h in zip(given, have, strict=True))


def hold(grid: TileGrid, state: _GridState) -> tuple[HpaIndex, _Graph] | None:
    """The grid's index (built now if there is none) and its graph of snapshot ``state``, lent
    to one search until :func:`~gamenav.grid._index.let_go` (an edit meanwhile repairs a copy),
    or None: a snapshot that is not the grid's current one (an agent-radius view, or an edit
    raced with the search's start)."""
    if state is not grid._snapshot():
        return None
    index = hpa_index(grid)
    graph = index.acquire(state)
    return None if graph is None else (index, graph)


def find(grid: TileGrid, state: _GridState, start: tuple[int, int], goal: tuple[int, int]
         ) -> HpaResult | None:
    """Answer a query for ``algorithm="hpa"`` on snapshot ``state`` (start and goal passable and
    connected, start != goal), or None when plain A* should answer it instead (see :func:`hold`
    and :meth:`HpaIndex.answer`)."""
    return answer_once(hold(grid, state), grid, state, start, goal)
