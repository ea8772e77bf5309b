"""Per-grid search data kept at the grid's latest version: the base of the JPS+ table
(:mod:`gamenav.grid.jump_plus`), the HPA* graph (:mod:`gamenav.grid.hpa`) and the subgoal graph
(:mod:`gamenav.grid.subgoal`), one per grid (:class:`IndexRegistry`), and the options the graph
searches take (:func:`check_graph_options`).

An index is built from a grid snapshot and subscribes (weakly) to the grid's edits; each edit
is repaired in the editing thread, inside the box of changed cells. Searches borrow the data of
their own snapshot's version (:meth:`GridIndex.acquire` / :meth:`GridIndex.release`); an edit
while any is borrowed repairs a copy, so running searches keep consistent data. A search on the
grid's current snapshot that the edit's notice has not reached yet (a listener subscribed before
the index searching in its turn) repairs the index up to it first, inside the box of the cells
that differ. An edit the index missed (a version gap) or a new grid shape rebuilds it.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Callable
from typing import Any, Generic, Protocol, TypeVar

import numpy as np
import numpy.typing as npt

from gamenav._identity import IdentityMap
from gamenav._kernels import announce_compile
from gamenav._validate import shown
from gamenav.errors import UnsupportedOptionError
from gamenav.grid.movement import Diagonal, Heuristic
from gamenav.grid.tilegrid import GridChange, TileGrid, _GridState

__all__ = ["GraphIndex", "GridIndex", "IndexRegistry", "answer_once", "check_graph_options",
           "graph_options_error", "let_go", "padded_cells"]

Data = TypeVar("Data")
IndexT = TypeVar("IndexT")
Answer = TypeVar("Answer", covariant=True)


def padded_cells(passable: npt.NDArray[np.bool_]) -> npt.NDArray[np.uint8]:
    """``(h + 2) * (w + 2)`` flat uint8 passable cells of an ``(h, w)`` grid with a blocked border."""
    h, w = passable.shape
    pad = np.zeros((h + 2, w + 2), dtype=np.uint8)
    pad[1:-1, 1:-1] = passable
    return pad.ravel()


class GridIndex(Generic[Data]):
    """Search data of one grid at its latest version (subclasses define the data).

    Subclasses implement :meth:`_build` (set :attr:`_data`, :attr:`shape`), :meth:`_copy` and
    :meth:`_repair`.

    Attributes:
        version: the grid version the current data describes.
        shape: ``(h, w)`` of that grid version.
        repaired: a measure of the last repair's work (defined by the subclass).
    """

    _data: Data
    shape: tuple[int, int]

    def __init__(self, grid: TileGrid) -> None:
        # re-entrant: a garbage collection in a repair may drop a search, whose __del__ gives its
        # data back (release) in this thread
        self._lock = threading.RLock()
        self._users = 0
        self.repaired = 0
        self.version = -1
        self._grid = weakref.ref(grid)
        with grid._edit_lock:  # no edit between the snapshot and the subscription
            state = grid._snapshot()
            self._rebuild_all(state.passable, state.version)
            self._unsubscribe = grid.subscribe(self._on_change, weak=True)

    def _rebuild_all(self, passable: npt.NDArray[np.bool_], version: int) -> None:
        self.shape = (int(passable.shape[0]), int(passable.shape[1]))
        self._build(passable)
        self._passable = passable  # (a snapshot's array: never modified)
        self.version = version

    def _build(self, passable: npt.NDArray[np.bool_]) -> None:
        """Compute :attr:`_data` from scratch for ``(h, w)`` cells ``passable``."""
        raise NotImplementedError

    def _copy(self, data: Data) -> Data:
        """An independent copy of ``data`` (repaired while searches hold the original)."""
        raise NotImplementedError

    def _repair(self, passable: npt.NDArray[np.bool_], x0: int, y0: int, x1: int, y1: int) -> int:
        """Bring :attr:`_data` to ``passable``, which differs from the last state only inside
        the cells ``x0 <= x < x1``, ``y0 <= y < y1``; returns :attr:`repaired`."""
        raise NotImplementedError

    def acquire(self, state: _GridState) -> Data | None:
        """The data of snapshot ``state`` for one search, or None if the index is at another
        version (brought up to ``state`` first if that is the grid's current snapshot and the
        edit's notice has not reached the index yet). Give it back with :meth:`release`."""
        if 0 <= self.version < state.version:
            self._catch_up(state)
        with self._lock:
            if state.version != self.version or state.passable.shape != self.shape:
                return None
            self._users += 1
            return self._data

    def _catch_up(self, state: _GridState) -> None:
        """Repair the data up to ``state`` if that is the grid's current snapshot (an edit whose
        notice has not reached the index yet), inside the box of the cells that differ."""
        grid = self._grid()
        # the edit lock first, as an edit's notice takes them; not waited for: another thread's
        # edit brings the index up itself, and it may be waiting for this thread (a listener
        # joining worker threads)
        if grid is None or not grid._edit_lock.acquire(blocking=False):
            return
        try:
            with self._lock:
                if 0 <= self.version < state.version and state is grid._snapshot():
                    changed = np.argwhere(state.passable != self._passable)[:, ::-1]  # (x, y)
                    self._advance(state.passable, state.version, changed)
        finally:
            grid._edit_lock.release()

    def release(self, data: Data) -> None:
        """Give back data from :meth:`acquire` (once per acquire)."""
        with self._lock:
            if data is self._data:
                self._users -= 1

    def _on_change(self, change: GridChange) -> None:
        with self._lock:
            if change.version <= self.version:  # built or brought up after this edit (in a listener)
                return
            missed = change.version != self.version + 1  # (or a failed repair: version -1)
            self._advance(change.passable, change.version,
                          None if missed else np.concatenate([change.blocked, change.opened]))

    def _advance(self, passable: npt.NDArray[np.bool_], version: int,
                 changed: npt.NDArray[np.int64] | None) -> None:
        """Bring the data to ``passable``, grid version ``version``: repair the box of the cells
        ``changed`` (``(k, 2)`` x, y) since the index's version, or (None) rebuild it."""
        if self._users:  # searches hold the data: they keep it, we repair a copy
            self._data = self._copy(self._data)
            self._users = 0
        self.version = -1  # no version while changing: a repair or build that fails part-way
        # (MemoryError) leaves data that no search borrows (rebuilt next edit)
        if changed is None or passable.shape != self.shape:
            self._rebuild_all(passable, version)
            return
        if len(changed):
            x0, y0 = changed.min(axis=0).tolist()
            x1, y1 = (changed.max(axis=0) + 1).tolist()
            self.repaired = self._repair(passable, x0, y0, x1, y1)
        self._passable = passable
        self.version = version


class Lender(Protocol):
    """An index that lends data to searches (:class:`GridIndex`, :class:`GraphIndex`)."""

    def release(self, data: Any) -> None: ...


def let_go(held: tuple[Lender, Any] | None) -> None:
    """Give back the data of ``held`` (None is ignored)."""
    if held is not None:
        held[0].release(held[1])


class GraphIndex(Lender, Protocol[Answer]):
    """An index whose graph answers whole queries (HPA*, subgoal graphs)."""

    def answer(self, graph: Any, grid: TileGrid, state: _GridState, start: tuple[int, int],
               goal: tuple[int, int]) -> Answer | None: ...


def answer_once(held: tuple[GraphIndex[Answer], Any] | None, grid: TileGrid, state: _GridState,
                start: tuple[int, int], goal: tuple[int, int]) -> Answer | None:
    """The answer of the graph ``held`` (from the index's ``hold``) to one query on snapshot
    ``state``, or None (no graph held, or plain A* should answer); the graph is given back."""
    try:
        return None if held is None else held[0].answer(held[1], grid, state, start, goal)
    finally:
        let_go(held)


class IndexRegistry(Generic[IndexT]):
    """One index per grid, built on first use and kept while the grid lives.

    Args:
        make: builds the index of a grid.
        kernels: the kernels it runs (compiled, with a notice, before the first build).
    """

    def __init__(self, make: Callable[[TileGrid], IndexT], kernels: tuple[Any, ...]) -> None:
        self._make = make
        self._kernels = kernels
        self._indexes: IdentityMap[TileGrid, IndexT] = IdentityMap()

    def existing(self, grid: TileGrid) -> IndexT | None:
        """The grid's index if one was built, else None."""
        return self._indexes.get(grid)

    def of(self, grid: TileGrid) -> IndexT:
        """The grid's index, built now if there is none."""
        index = self._indexes.get(grid)
        if index is None:
            announce_compile("grid search", *self._kernels)  # before any lock (it may run the warmup)
            with grid._edit_lock:  # the build's own lock: a listener of an edit may build one
                index = self._indexes.get(grid)
                if index is None:
                    index = self._make(grid)
                    self._indexes[grid] = index
        return index


def graph_options_error(algorithm: str, problems: list[str]) -> UnsupportedOptionError:
    """The error for options ``algorithm`` ("jps", "hpa", "subgoal") cannot honour."""
    radius = "" if algorithm == "jps" else " and agent_radius up to half a cell"
    return UnsupportedOptionError(
        f"algorithm={algorithm!r} supports only uniform-cost grids with diagonal='no_corner_cutting', "
        f"weight 1, the octile heuristic{radius}; got " + ", ".join(problems) + ". Use algorithm='astar' instead.")


def check_graph_options(algorithm: str, diagonal: Diagonal, heuristic: Heuristic | object, given: object,
                        weight: float, mask: int, agent_radius: float) -> None:
    """Raise :func:`graph_options_error` for options the searches on per-grid indexes do not
    support (``heuristic`` resolved, ``given`` as passed; ``mask`` the clearance threshold of
    ``agent_radius``, which ``"jps"`` takes whole and the graphs up to half a cell)."""
    problems = []
    if diagonal is not Diagonal.NO_CORNER_CUTTING:
        problems.append(f"diagonal={diagonal.value!r} (needs 'no_corner_cutting')")
    if heuristic is not Heuristic.OCTILE:
        problems.append(f"heuristic={shown(given)} (needs None or 'octile')")
    if weight != 1.0:
        problems.append(f"weight={weight} (needs 1)")
    if mask > 1 and algorithm != "jps":
        problems.append(f"agent_radius={float(agent_radius)!r} (needs at most half a cell)")
    if problems:
        raise graph_options_error(algorithm, problems)
