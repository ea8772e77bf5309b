"""Clearance on tile grids: how far each cell centre is from the nearest blocked cell, and the
cells an agent of a given radius may use.

Arrays are indexed ``[y, x]``; the public API takes and returns ``(x, y)``.

Units: ``agent_radius`` is in the grid's world units (like ``cell_size``, ``Crowd(radius=)`` and
``NavMesh.from_grid(agent_radius=)``); on a grid with ``cell_size=1`` world units are cells. A
cell is usable by an agent of radius ``r`` when the disc of radius ``r`` around the cell's centre
overlaps no blocked cell: the distance from the centre to every blocked cell's square (and to the
outside of the map, which counts as blocked) is at least ``r``. In cells:

* ``r <= 0.5``: every passable cell (the neighbours' squares are 0.5 away);
* ``0.5 < r <= sqrt(2)/2``: passable cells with no blocked 4-neighbour (and not on the map edge);
* ``sqrt(2)/2 < r <= 1.5``: passable cells whose 8 neighbours are all passable;
* larger radii keep larger margins, up to :data:`MAX_RADIUS_CELLS`.

Searches and distance fields with ``agent_radius=r`` run on that mask with the grid's costs and
the usual movement rule (``no_corner_cutting`` reads the mask's corners).

How: each grid snapshot keeps (lazily, on first use with a radius > 0.5 cells) an exact distance
transform: ``D = 4 * d**2`` per cell, ``d`` the distance in cells to the nearest blocked square,
an integer because cell centres sit half a cell from the squares' edges, stored as uint8 and
capped at 255 (no blocked square within ~8 cells). A radius is then one comparison per cell
(``D >= ceil(4 * r**2)``), shared by every radius with the same threshold. An edit repairs only
the cells within 8 cells of the edited box (copy-on-write, like the rest of the snapshot).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import numpy.typing as npt

from gamenav._arrays import frozen
from gamenav._kernels import announce_compile
from gamenav._kernels.clearance import clearance_box
from gamenav._kernels.components import label_components
from gamenav._validate import real_number
from gamenav.errors import InvalidInputError
from gamenav.grid.tilegrid import GridChange, TileGrid, _cells_of, _GridState

__all__ = ["MAX_RADIUS_CELLS", "clearance_field", "clearance_mask"]

MAX_RADIUS_CELLS = 7.5
"""The largest supported ``agent_radius``, in cells (``agent_radius / cell_size``)."""

_CAP = 255
"""Stored ``D`` values are capped here: 255 is no sum of two odd squares, so it means "farther
than every supported radius needs" (about 7.98 cells)."""

def threshold(grid: TileGrid, agent_radius: Any, name: str = "agent_radius") -> int:
    """Validate ``agent_radius`` (world units) and return its mask threshold ``ceil(4 r**2)``
    (``r`` in cells); 0 or 1 mean the plain passable cells (``r <= 0.5`` cells).

    Raises:
        InvalidInputError: not a finite number in ``[0, MAX_RADIUS_CELLS * cell_size]``.
    """
    r = real_number(agent_radius, name, "a number >= 0 (world units)")
    size = grid._cell_size  # (the grid's own, as cell_to_world and the searches' points read it)
    limit = MAX_RADIUS_CELLS * size
    if not (math.isfinite(r) and 0.0 <= r <= limit):
        raise InvalidInputError(
            f"{name} must be a finite number in [0, {limit:g}] world units ({MAX_RADIUS_CELLS} cells "
            f"of cell_size {size:g}), got {r}")
    cells = min(r / size, MAX_RADIUS_CELLS)  # (a subnormal cell_size rounds the limit up to 8 cells)
    return max(0, math.ceil(4.0 * cells * cells - 1e-9))


def reach(thr: int) -> int:
    """The farthest cell offset (Chebyshev, cells) whose square can be closer than the radius of
    threshold ``thr``: the largest ``k`` with ``(2k - 1)**2 < thr``."""
    k = 0
    while (2 * k + 1) ** 2 < thr:
        k += 1
    return k


class _Clearance:
    """The distance transform of one snapshot and the radius views built from it (immutable once
    built, except the ``views`` dict, which is replaced, never mutated)."""

    __slots__ = ("dist", "views", "bases")

    def __init__(self, dist: npt.NDArray[np.uint8], previous: _Clearance | None = None) -> None:
        self.dist = dist
        self.views: dict[int, _GridState] = {}
        # older snapshots' views by threshold: a new view patches their search arrays
        self.bases: dict[int, _GridState] = {} if previous is None else {**previous.bases, **previous.views}


def _compute(state: _GridState) -> _Clearance:
    """Build the snapshot's distance transform, repairing the previous one when there is one."""
    passable = state.passable
    h, w = passable.shape
    base = state.clearance_base
    if base is not None:
        old, (y0, y1, x0, x1) = base
        k = reach(_CAP)
        y0, y1, x0, x1 = max(y0 - k, 0), min(y1 + k, h), max(x0 - k, 0), min(x1 + k, w)
        if (y1 - y0) * (x1 - x0) * 2 <= h * w:
            dist = old.dist.copy()
            if y1 > y0 and x1 > x0:
                clearance_box(passable, 0, 0, h, w, dist, y0, y1, x0, x1, _CAP)
            dist.flags.writeable = False
            return _Clearance(dist, old)
    dist = np.empty((h, w), dtype=np.uint8)
    clearance_box(passable, 0, 0, h, w, dist, 0, h, 0, w, _CAP)
    dist.flags.writeable = False
    return _Clearance(dist, None if base is None else base[0])


def _of(state: _GridState) -> _Clearance:
    """The snapshot's clearance, built on first use and kept on the snapshot.

    Built under no lock (as views are): two threads may both build it (equal, the first kept).
    A lock deadlocked: a garbage collection inside a build may run a ``__del__`` that edits a
    grid, whose edit lock another thread holds while its listener asks for that grid's clearance.
    """
    done = state.clearance
    if done is None:
        announce_compile("grid", label_components, clearance_box)
        built = _compute(state)
        done = state.clearance
        if done is None:
            done = state.clearance = built
        state.clearance_base = None
    return done


def radius_state(state: _GridState, thr: int) -> _GridState:
    """A snapshot-like view of ``state`` whose passable cells are the mask of threshold ``thr``
    (the same costs and version), cached per threshold; ``state`` itself when ``thr <= 1``.

    Searches and fields read it exactly like a snapshot (island labels and padded kernel arrays
    are built lazily on it, patched from the previous snapshot's view of the same threshold).
    """
    if thr <= 1:
        return state
    clr = _of(state)
    view = clr.views.get(thr)
    if view is None:
        mask = clr.dist >= thr
        mask.flags.writeable = False
        built = _GridState(mask, state.cost, mask, state.version, clr.bases.get(thr))
        view = clr.views.get(thr)
        if view is None:
            view = built
            clr.views = {**clr.views, thr: view}
    return view


def clearance_field(grid: TileGrid) -> npt.NDArray[np.float64]:
    """Distance from each cell centre to the nearest blocked cell's square or the map edge.

    Args:
        grid: the grid.

    Returns:
        ``(h, w)`` float64, ``[y, x]``, world units (cells times ``cell_size``): 0 on blocked
        cells, 0.5 cells next to a wall, ``inf`` where nothing blocked lies within about 8 cells
        (more than :data:`MAX_RADIUS_CELLS`). A cell is usable by an agent of radius ``r`` when
        its clearance is ``>= r``, or below ``r`` by float noise: radii up to 1e-9 cells above a
        clearance fit there too (``0.1 * 7`` is 0.7000000000000001, a radius meant as 0.7).

    Example:
        >>> import gamenav
        >>> grid = gamenav.TileGrid.from_strings(["....", "....", "...#"])
        >>> gamenav.clearance_field(grid)[1].tolist()
        [0.5, 1.5, 0.7071067811865476, 0.5]
    """
    if not isinstance(grid, TileGrid):
        raise InvalidInputError(f"grid must be a TileGrid, got {type(grid).__name__}")
    dist = _of(grid._snapshot()).dist
    out = np.sqrt(dist.astype(np.float64)) * (0.5 * grid._cell_size)
    out[dist == _CAP] = np.inf
    return out


def clearance_mask(grid: TileGrid, agent_radius: float) -> npt.NDArray[np.bool_]:
    """The cells an agent of ``agent_radius`` (world units) may occupy (see the module docstring).

    Returns:
        ``(h, w)`` bool, ``[y, x]``, read-only: the grid's passable cells for
        ``agent_radius <= cell_size / 2``.

    Raises:
        InvalidInputError: ``agent_radius`` not a number in ``[0, MAX_RADIUS_CELLS * cell_size]``.

    Example:
        >>> import gamenav
        >>> grid = gamenav.TileGrid.from_strings(["....", "....", "...#"])
        >>> gamenav.clearance_mask(grid, 1.0).astype(int).tolist()
        [[0, 0, 0, 0], [0, 1, 0, 0], [0, 0, 0, 0]]
    """
    if not isinstance(grid, TileGrid):
        raise InvalidInputError(f"grid must be a TileGrid, got {type(grid).__name__}")
    thr = threshold(grid, agent_radius)
    return frozen(radius_state(grid._snapshot(), thr).passable)


def mask_change(change: GridChange, thr: int) -> GridChange:
    """``change`` as seen by agents of threshold ``thr`` (``> 1``): the cells that entered or
    left the radius mask, and the cost changes of cells inside it before and after.

    Its ``passable`` is the mask after the edit around the changed cells only (within one cell of
    every cell that entered the mask; False elsewhere): enough for the invalidation rule.
    """
    after = change.passable
    h, w = after.shape
    flips = np.concatenate([change.blocked, change.opened])
    costs = np.concatenate([change.cost_raised, change.cost_lowered])
    if not len(flips) and not len(costs):
        return change
    k = reach(thr)
    boxes = []
    if len(flips):
        lo, hi = flips.min(axis=0), flips.max(axis=0)
        boxes.append((lo[0] - k - 1, lo[1] - k - 1, hi[0] + k + 2, hi[1] + k + 2))
    if len(costs):
        lo, hi = costs.min(axis=0), costs.max(axis=0)
        boxes.append((lo[0], lo[1], hi[0] + 1, hi[1] + 1))
    rx0, ry0 = max(min(b[0] for b in boxes), 0), max(min(b[1] for b in boxes), 0)
    rx1, ry1 = min(max(b[2] for b in boxes), w), min(max(b[3] for b in boxes), h)
    wx0, wy0, wx1, wy1 = max(rx0 - k, 0), max(ry0 - k, 0), min(rx1 + k, w), min(ry1 + k, h)
    win_after = np.ascontiguousarray(after[wy0:wy1, wx0:wx1])
    win_before = win_after.copy()
    if len(change.blocked):
        win_before[change.blocked[:, 1] - wy0, change.blocked[:, 0] - wx0] = True
    if len(change.opened):
        win_before[change.opened[:, 1] - wy0, change.opened[:, 0] - wx0] = False
    announce_compile("grid", label_components, clearance_box)
    box = (ry0 - wy0, ry1 - wy0, rx0 - wx0, rx1 - wx0)
    masks = []
    for win in (win_before, win_after):
        dist = np.zeros(win.shape, dtype=np.uint8)
        clearance_box(win, wy0, wx0, h, w, dist, *box, thr)
        masks.append(dist[box[0]:box[1], box[2]:box[3]] >= thr)
    before, now = masks
    both = before & now

    def inside(cells: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
        keep = both[cells[:, 1] - ry0, cells[:, 0] - rx0]
        kept: npt.NDArray[np.int64] = cells[keep]
        kept.flags.writeable = False
        return kept

    passable = np.zeros((h, w), dtype=bool)
    passable[ry0:ry1, rx0:rx1] = now
    passable.flags.writeable = False
    corner = (rx0, ry0)
    return GridChange(change.version, _cells_of(before & ~now, corner), _cells_of(now & ~before, corner),
                      inside(change.cost_raised), inside(change.cost_lowered), passable)
