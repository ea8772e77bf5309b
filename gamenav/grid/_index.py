"""Per-grid search data kept at the grid's latest version: the base of the JPS+ table
(:mod:`gamenav.grid.jump_plus`) and the HPA* graph (:mod:`gamenav.grid.hpa`).

An index is built from a grid snapshot and subscribes (weakly) to the grid's edits; each edit
is repaired in the editing thread, inside the box of changed cells. Searches borrow the data of
their own snapshot's version (:meth:`GridIndex.acquire` / :meth:`GridIndex.release`); an edit
while any is borrowed repairs a copy, so running searches keep consistent data. An edit the
index missed (a version gap) or a new grid shape rebuilds it.
"""

from __future__ import annotations

import threading
from typing import Generic, TypeVar

import numpy as np
import numpy.typing as npt

from gamenav.grid.tilegrid import GridChange, TileGrid, _GridState

__all__ = ["GridIndex", "padded_cells"]

Data = TypeVar("Data")


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
        self._lock = threading.Lock()
        self._users = 0
        self.repaired = 0
        self.version = -1
        with grid._edit_lock:  # no edit between the snapshot and the subscription
            state = grid._snapshot()
            self._rebuild_all(state.passable, state.version)
            self._unsubscribe = grid.subscribe(self._on_change, weak=True)

    def _rebuild_all(self, passable: npt.NDArray[np.bool_], version: int) -> None:
        self.shape = (int(passable.shape[0]), int(passable.shape[1]))
        self._build(passable)
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
        version. Give it back with :meth:`release`."""
        with self._lock:
            if state.version != self.version or state.passable.shape != self.shape:
                return None
            self._users += 1
            return self._data

    def release(self, data: Data) -> None:
        """Give back data from :meth:`acquire` (once per acquire)."""
        with self._lock:
            if data is self._data:
                self._users -= 1

    def _on_change(self, change: GridChange) -> None:
        with self._lock:
            if self._users:  # searches hold the data: they keep it, we repair a copy
                self._data = self._copy(self._data)
                self._users = 0
            passable = change.passable
            if change.version != self.version + 1 or passable.shape != self.shape:
                self._rebuild_all(passable, change.version)  # missed an edit: start again
                return
            cells = np.concatenate([change.blocked, change.opened])
            if len(cells):
                x0, y0 = cells.min(axis=0).tolist()
                x1, y1 = (cells.max(axis=0) + 1).tolist()
                self.repaired = self._repair(passable, x0, y0, x1, y1)
            self.version = change.version
