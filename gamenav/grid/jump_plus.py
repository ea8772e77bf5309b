"""JPS+ for ``algorithm="jps"``: per-grid jump tables built once and repaired locally on edits.

Cells are ``(x, y)``; arrays are indexed ``[y, x]`` (flat padded nodes, see
:mod:`gamenav._kernels.jump_plus`).

Design (chosen from measurements on the GPPC 2014 maps; ``benchmarks/grid_large.py``): online
JPS already read precomputed straight jumps but stepped diagonal scans cell by cell. JPS+
(Harabor & Grastien 2014) adds the diagonal jump distances, so every scan is one table read plus
at most two goal checks; alone that gained 1.0-1.8x, because the time goes into the jump points
themselves (memory accesses per generated node), so the search below also prunes intermediate
jump points and keeps its open list compact. Costs are optimal, as with online JPS and A*; the
paths may differ among equal-cost ones.

* Table: ``(N, 8)`` int16 per grid (16 bytes per cell, int32 beyond 32000 cells a side), built on
  the first JPS query (two O(cells) sweeps: 0.3-0.9 s on the GPPC maps).
* Edits: the index listens to its grid (a weak subscription) and repairs the table in place in
  the editing thread: straight entries from the changed box outwards until they come out
  unchanged, diagonal entries backwards from every cell whose jump status changed (work
  proportional to the entries that change, not the map: 0.2-0.8 ms for a 4 x 4 box).
* Search: successor pruning as in JPS, plus the paper's intermediate pruning: the jump points a
  diagonal scan passes (where a straight sub-scan finds a jump point) are not expanded; their
  straight jump points become successors directly. A compact open list (a binary heap over a
  pool of generated nodes, its keys inline) keeps the random memory accesses per successor to
  about one, and that one is prefetched: an expansion collects its successors before relaxing
  them (12 % less kernel time on orz700d, same paths). The node pool lives on the search's
  workspace, reused by its next searches, and ``find_path(..., algorithm="jps")`` calls the
  search without a ``GridSearch`` (``gamenav.grid.search.try_graph_path``): the Python around
  the kernel costs about 0.15 ms per query on 1550 x 1550 maps (0.27 ms before).
* Dense maps (more than :data:`DENSE_SHARE` of the cells next to a jump point: random obstacle
  maps, 1-wide mazes) run A* instead, which is faster there; costs are optimal either way.
* Threads: each snapshot's searches must read the table of that snapshot. A search takes the
  table with :meth:`JumpIndex.acquire` (only when the index is at its snapshot's version) and
  gives it back when done; an edit repairs in place only when no search holds the table, and
  otherwise repairs a copy (the holders keep the old one). A search whose snapshot and the
  index disagree (an edit raced with its start) runs online JPS instead: same cost.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from gamenav._kernels import announce_compile
from gamenav._kernels import jump_plus as _kp
from gamenav.grid._index import GridIndex, IndexRegistry, padded_cells
from gamenav.grid.tilegrid import TileGrid, _GridState

if TYPE_CHECKING:
    from gamenav.grid.search import SearchWorkspace

__all__ = ["JumpIndex", "jump_index"]

Table = npt.NDArray[np.signedinteger[Any]]
"""A JPS+ table: ``(N, 8)`` int16 (int32 for grids over 32000 cells a side)."""

DENSE_SHARE = 0.2
"""Above this share of passable cells next to a straight jump point (random maps with 10 %+
obstacles: 0.34, corridors of width 1: 0.45; GPPC rooms and mazes: 0.005, game maps 0.02-0.09)
``algorithm="jps"`` runs A* instead: every cell is then nearly a jump point and A* is faster."""

KERNELS = (_kp.build_tables, _kp.repair_tables, _kp.search_step, _kp.write_chain)
_INT16_LIMIT = 32000


class JumpIndex(GridIndex[Table]):
    """The JPS+ table of one grid, kept at the grid's latest version (:class:`GridIndex`).

    Args:
        grid: the grid; the index subscribes to its edits (weakly) and repairs itself.

    Attributes:
        version: the grid version the current table describes.
        repaired: diagonal entries rewritten by the last repair (a measure of its work).
    """

    def _build(self, passable: npt.NDArray[np.bool_]) -> None:
        h, w = passable.shape
        self._stride = w + 2
        self._p = padded_cells(passable)
        dtype = np.int16 if max(h, w) < _INT16_LIMIT else np.int32
        announce_compile("grid search", *KERNELS)
        table: Table = np.zeros((self._p.shape[0], 8), dtype=dtype)
        self._jumps = int(_kp.build_tables(self._p, self._stride, table))
        self._data = table
        self._cells = int(passable.sum())

    def _jump_cells(self, rows: slice, columns: slice) -> int:
        """Cells next to a jump point (a straight entry of 1) in the padded ``rows`` and ``columns``."""
        table = self._data.reshape(-1, self._stride, 8)[rows, columns, :4]
        return int((table == 1).any(axis=2).sum())

    @property
    def jump_share(self) -> float:
        """Share of the passable cells next to a jump point (kept up to date by repairs)."""
        return self._jumps / max(self._cells, 1)

    @property
    def dense(self) -> bool:
        """``jump_share > DENSE_SHARE`` (searches run A* there)."""
        return self.jump_share > DENSE_SHARE

    def _copy(self, data: Table) -> Table:
        copied: Table = data.copy()
        return copied

    def _repair(self, passable: npt.NDArray[np.bool_], x0: int, y0: int, x1: int, y1: int) -> int:
        h, w = passable.shape
        pad = self._p.reshape(h + 2, w + 2)
        # an entry of 1 depends on the cells next to its own: those within one cell of the box
        rows, columns = slice(y0, y1 + 2), slice(x0, x1 + 2)
        jumps = self._jump_cells(rows, columns)
        self._cells -= int(pad[y0 + 1:y1 + 1, x0 + 1:x1 + 1].sum())
        pad[y0 + 1:y1 + 1, x0 + 1:x1 + 1] = passable[y0:y1, x0:x1]
        self._cells += int(passable[y0:y1, x0:x1].sum())
        repaired = int(_kp.repair_tables(self._p, self._stride, self._data, y0 + 1, y1 + 1, x0 + 1, x1 + 1))
        self._jumps += self._jump_cells(rows, columns) - jumps
        return repaired

    @property
    def nbytes(self) -> int:
        """Bytes held: the table plus the index's padded copy of the passable cells."""
        return int(self._data.nbytes + self._p.nbytes)

    def table(self) -> Table:
        """The current ``(N, 8)`` table (read-only use; for tests and diagnostics)."""
        return self._data

    def __repr__(self) -> str:
        return f"JumpIndex(version={self.version}, nbytes={self.nbytes})"


_indexes: IndexRegistry[JumpIndex] = IndexRegistry(JumpIndex, KERNELS)


def jump_index(grid: TileGrid) -> JumpIndex:
    """The grid's :class:`JumpIndex`, built on first use (kept while the grid lives)."""
    return _indexes.of(grid)



class PlusSearch:
    """The JPS+ state of one running search: the table of its snapshot and a node pool.

    Created by :func:`acquire`; :meth:`begin` takes the node pool from the search's workspace
    (its ``plus_arrays``, allocated by its first JPS+ search and kept there, grown, for the next
    ones: about ``1500 * (height + width)`` bytes); :meth:`step` runs the kernel on the
    workspace's arrays (see :func:`gamenav._kernels.jump_plus.search_step`); :meth:`release`
    gives the table back.

    Attributes:
        reserve: free pool slots an expansion may need (the rows of ``found``): 8 + 2 per cell
            of its diagonal scans.
    """

    __slots__ = ("index", "table", "state", "reserve", "pool", "found")

    def __init__(self, index: JumpIndex, table: Table) -> None:
        self.index: JumpIndex | None = index
        self.table = table
        self.state = np.zeros(5, dtype=np.int64)
        self.reserve = 8 + 8 * (index._stride + table.shape[0] // index._stride)
        self.pool: tuple[npt.NDArray[Any], ...] = ()  # (set by begin)
        self.found: npt.NDArray[np.int64] = np.empty((0, 5), dtype=np.int64)

    @staticmethod
    def _alloc(cap: int) -> tuple[npt.NDArray[Any], ...]:
        """Pool arrays of capacity ``cap``: ``pg, pnode, pparent, pvia, heap, hf, hg, hpos,
        order`` (see :func:`gamenav._kernels.jump_plus.search_step`)."""
        return tuple(np.empty(cap, dtype=np.float64 if i in (0, 5, 6) else np.int64) for i in range(9))

    def begin(self, stamp: int, start: int, h: float, ws: SearchWorkspace) -> None:
        """Open the start node on workspace ``ws`` (held; ``stamp`` from its ``_begin``)."""
        if ws.plus_arrays is None:  # (the reserve depends on the grid shape only: ws's)
            ws.plus_arrays = (np.empty((self.reserve, 5), dtype=np.int64), *self._alloc(2 * self.reserve))
        self.found, *pool = ws.plus_arrays
        self.pool = tuple(pool)
        ws.rkey[start] = stamp << 32
        pg, pnode, pparent, pvia, heap, hf, hg, hpos, _ = self.pool
        pg[0], pnode[0], pparent[0], pvia[0], heap[0], hf[0], hg[0], hpos[0] = 0.0, start, -1, -1, 0, h, 0.0, 0
        self.state[:] = (stamp, 1, 1, 0, 0)

    def step(self, passable: npt.NDArray[np.uint8], stride: int, goal: int, gx: int, gy: int,
             budget: int, ws: SearchWorkspace) -> int:
        """Run up to ``budget`` expansions on workspace ``ws`` (held; the one of :meth:`begin`);
        returns a ``gamenav._kernels.grid_search`` status (FOUND: the goal's chain written into
        ``ws.parent``)."""
        while True:
            pg, pnode, pparent, pvia, heap, hf, hg, hpos, order = self.pool
            expanded = self.expanded
            code = int(_kp.search_step(self.table, passable, stride, goal, gx, gy, budget, ws.rkey, ws.g,
                                       ws.mark, pg, pnode, pparent, pvia, heap, hf, hg, hpos, order,
                                       self.found, self.state))
            if code == _kp.FOUND:
                self.chain(goal, ws.rkey, ws.parent)
            if code != _kp.GROW:
                return code
            budget -= self.expanded - expanded  # (GROW comes with budget left)
            used = max(int(self.state[1]), int(self.state[3]))
            bigger = self._alloc(2 * self.pool[0].shape[0])
            for new, old in zip(bigger, self.pool, strict=True):
                new[:used] = old[:used]
            self.pool = bigger
            ws.plus_arrays = (self.found, *bigger)  # (kept grown for the workspace's next searches)

    def chain(self, node: int, key: npt.NDArray[np.int64], parent: npt.NDArray[np.int32]) -> None:
        """Write the parent chain of the closed ``node`` into the workspace's ``parent`` (for
        ``trace_path``; ``key`` the workspace's ``rkey``)."""
        _, pnode, pparent, pvia, *_ = self.pool
        _kp.write_chain(int(key[node]) & 0xFFFFFFFF, pnode, pparent, pvia, parent)

    @property
    def expanded(self) -> int:
        return int(self.state[3])

    def shared(self) -> PlusSearch:
        """JPS+ state for another search on this one's table, which this one holds: the new
        state gives nothing back (this one does, in its :meth:`release`)."""
        if self.index is None:
            raise RuntimeError("shared() of a released PlusSearch")
        twin = PlusSearch(self.index, self.table)
        twin.index = None
        return twin

    def release(self) -> None:
        """Give the table back (idempotent)."""
        if self.index is not None:
            self.index.release(self.table)
            self.index = None


def start(grid: TileGrid, state: _GridState, jps: bool) -> tuple[bool, PlusSearch | None]:
    """How a search asked for ``algorithm="jps"`` (``jps``: and the goal is reachable) runs:
    ``(online_jps, plus)``: JPS+ state on the table of ``state`` (the grid's own snapshot, not
    a derived one such as an agent-radius view), or online JPS when the grid has moved on
    meanwhile, or neither (A*, on dense maps)."""
    if not jps or state is not grid._snapshot():
        return jps, None
    index = jump_index(grid)
    table = index.acquire(state)  # (the table is brought up to ``state`` first if it lags)
    if table is None:
        return True, None
    if index.dense:
        index.release(table)
        return False, None
    return False, PlusSearch(index, table)


def release(held: PlusSearch | None) -> None:
    """Give back what :func:`acquire` returned (None is ignored)."""
    if held is not None:
        held.release()
