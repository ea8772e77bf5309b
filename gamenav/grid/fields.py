"""Distance fields on tile grids: multi-source Dijkstra maps (flow fields for group moves).

Arrays are indexed ``[y, x]``; sources are ``(x, y)`` cells.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import numpy.typing as npt

from gamenav._kernels import announce_compile
from gamenav._kernels import grid_search as _k
from gamenav._validate import float_numbers, holds_bool, is_int, real_number
from gamenav.errors import BlockedEndpointError, InvalidInputError, OutOfBoundsError
from gamenav.grid.clearance import radius_state, threshold
from gamenav.grid.movement import Diagonal
from gamenav.grid.search import KERNELS, _NO_HEAP, _NO_TABLE, _pool, padded
from gamenav.grid.tilegrid import TileGrid, _GridState

__all__ = ["distance_field"]

_EMPTY_TABLE = np.zeros(1, dtype=np.float64)


def distance_field(grid: TileGrid, sources: npt.ArrayLike, *,
                   diagonal: Diagonal | str | bool = Diagonal.NO_CORNER_CUTTING,
                   max_cost: float = math.inf, agent_radius: float = 0.0,
                   cost_scale: npt.ArrayLike | None = None) -> npt.NDArray[np.float64]:
    """Cost of the cheapest path from the nearest source to every cell (multi-source Dijkstra).

    Same movement and costs as :class:`~gamenav.GridSearch`: entering a cell costs its cost
    times the step length. Following the steepest descent of the field from any cell leads to a
    source (a flow field): a step too small to change the value it adds to in float64 (cost
    scales or costs far apart) still counts, as one float step up.

    Args:
        grid: the grid.
        sources: one ``(x, y)`` cell or an ``(n, 2)`` int array of cells (passable, n >= 1).
        diagonal: movement rule (see :class:`~gamenav.Diagonal`).
        max_cost: stop expanding beyond this cost; farther cells are ``inf``.
        agent_radius: the agents' radius in world units: the field covers only the cells an
            agent of that size may use (as ``find_path(..., agent_radius=)``; see
            :mod:`gamenav.grid.clearance`); other cells are ``inf``.
        cost_scale: ``(h, w)`` finite numbers > 0, ``[y, x]``: each cell's cost is multiplied by
            its scale for this field only (e.g. crowds or danger to route around; the grid is
            not changed). None: the grid's costs.

    Returns:
        ``(h, w)`` float64, ``[y, x]``: 0 at sources, ``inf`` where blocked, unreachable or
        beyond ``max_cost``.

    Raises:
        InvalidInputError: sources not integer ``(x, y)`` cells, ``max_cost`` NaN / negative,
            a bad ``agent_radius``, or ``cost_scale`` of another shape or with a value that is
            not a finite number > 0.
        OutOfBoundsError: a source outside the grid.
        BlockedEndpointError: a source on a blocked cell (for ``agent_radius``: a cell the
            agents may not use).

    Example:
        >>> import gamenav
        >>> grid = gamenav.TileGrid.from_strings(["...", ".#.", "..."])
        >>> gamenav.distance_field(grid, (0, 0))[2].tolist()
        [2.0, 3.0, 4.0]
    """
    return snapshot_field(grid, None, sources, diagonal=diagonal, max_cost=max_cost,
                          agent_radius=agent_radius, cost_scale=cost_scale)


def snapshot_field(grid: TileGrid, snapshot: _GridState | None, sources: npt.ArrayLike, *,
                   diagonal: Diagonal | str | bool = Diagonal.NO_CORNER_CUTTING,
                   max_cost: float = math.inf, agent_radius: float = 0.0,
                   cost_scale: npt.ArrayLike | None = None) -> npt.NDArray[np.float64]:
    """:func:`distance_field` on ``snapshot``, a state of ``grid`` taken earlier with
    ``grid._snapshot()`` (None: the current one), so that a caller that chose the sources on
    that state gets a field of the same state whatever another thread edited since."""
    if not isinstance(grid, TileGrid):
        raise InvalidInputError(f"grid must be a TileGrid, got {type(grid).__name__}")
    diag = Diagonal.parse(diagonal)
    limit = real_number(max_cost, "max_cost", "a number >= 0")
    if math.isnan(limit) or limit < 0:
        raise InvalidInputError(f"max_cost must be a number >= 0 (inf = no limit), got {max_cost}")
    limit = abs(limit)  # -0.0 is 0.0 (the kernel compares the float bits)
    scale = None if cost_scale is None else _cost_scale(cost_scale, grid.shape)
    mask = threshold(grid, agent_radius)
    src = _source_cells(sources)
    if src is None:
        raise InvalidInputError(
            f"sources must be an (x, y) cell or an (n, 2) int array with n >= 1, got {sources!r}")
    xs, ys = src[:, 0], src[:, 1]  # compared before any cast (uint64 or Python ints beyond int64)
    outside = (xs < 0) | (xs >= grid.width) | (ys < 0) | (ys >= grid.height)
    if outside.any():
        i = int(np.argmax(outside))
        raise OutOfBoundsError(
            f"source {(int(xs[i]), int(ys[i]))} is outside the grid "
            f"(x in 0..{grid.width - 1}, y in 0..{grid.height - 1})")
    xs, ys = xs.astype(np.int64), ys.astype(np.int64)
    state = radius_state(grid._snapshot() if snapshot is None else snapshot, mask)  # read only this one
    blocked = ~state.passable[ys, xs]
    if blocked.any():
        i = int(np.argmax(blocked))
        what = "a blocked cell" if mask <= 1 else f"blocked for agent_radius={float(agent_radius)!r}"
        raise BlockedEndpointError(f"source {(int(xs[i]), int(ys[i]))} is {what}; "
                                   "sources must be passable")

    pad = padded(state)
    stride = pad.stride
    cost, uniform = pad.cost, pad.uniform
    if scale is not None:
        cost = cost.copy()
        cells = cost.reshape(grid.height + 2, stride)[1:-1, 1:-1]
        with np.errstate(over="ignore"):  # a product beyond float64 is inf: refused just below (if entered)
            cells *= scale
        if not math.isfinite(float(cells[state.passable].max()) * 2.0 * cost.size):  # (any path's cost stays finite)
            raise InvalidInputError("cost_scale is too large: a path's cost would not be a finite number")
        uniform = False
    nodes = np.unique((ys + 1) * stride + xs + 1)
    ws = _pool.borrow(grid)
    token = object()
    istate = ws._begin(token, nodes, True)
    fstate = np.array([np.inf, np.inf], dtype=np.float64)
    announce_compile("grid search", *KERNELS)
    _k.best_first_step(pad.moves(diag), pad.passable, _NO_TABLE, cost, uniform, False,
                       stride, -1, 0, 0, 4, _EMPTY_TABLE, 0.0, limit, False, True,
                       np.iinfo(np.int64).max, ws.g, ws.parent,
                       ws.mark, ws.rkey, ws.rnext, ws.rprev, ws.rhead, ws.rmin,
                       *_NO_HEAP, istate, fstate)
    field = np.where(ws.mark == istate[0] + 1, ws.g, np.inf)
    ws._release(token)
    _pool.give_back(ws)
    inner: npt.NDArray[np.float64] = field.reshape(grid.height + 2, stride)[1:-1, 1:-1].copy()
    return inner


def _source_cells(sources: npt.ArrayLike) -> npt.NDArray[Any] | None:
    """``sources`` as an ``(n, 2)`` array of ints, n >= 1 (an object array of the given ints
    where numpy would not keep them as ints: a uint64 beside an int, ints beyond 64 bits), or
    None if it is not one ``(x, y)`` cell or a sequence of them."""
    try:
        src = np.asarray(sources)
    except (TypeError, ValueError):  # ragged
        return None
    if src.dtype.kind in "fO" and not isinstance(sources, np.ndarray):
        src = np.asarray(sources, dtype=object)
        if not all(is_int(v) for v in src.flat):
            return None
    elif src.dtype.kind not in "iu":  # (numpy counts timedelta64 as an integer type)
        return None
    if src.ndim == 1:
        src = src.reshape(1, -1)
    if src.ndim != 2 or src.shape[1] != 2 or src.shape[0] == 0 or holds_bool(sources):  # (True, 1) reads as ints
        return None
    return src


def _cost_scale(value: npt.ArrayLike, shape: tuple[int, int]) -> npt.NDArray[np.float64]:
    """``cost_scale`` checked: an ``shape`` float64 array of finite numbers > 0."""
    scale = float_numbers(value)  # (a longdouble beyond float64 is inf: refused below)
    if scale is None or scale.shape != shape:
        try:
            raw = np.asarray(value)
            given = f"shape {raw.shape} and dtype {raw.dtype}"  # (the dtype: bools of the right shape)
        except (TypeError, ValueError):  # ragged rows
            given = "ragged rows"
        raise InvalidInputError(f"cost_scale must be a {shape[0]} x {shape[1]} array of numbers ([y, x], no bools), "
                                f"got {type(value).__name__} of {given}")
    bad = ~(np.isfinite(scale) & (scale > 0))
    if bad.any():
        y, x = np.argwhere(bad)[0].tolist()
        raise InvalidInputError(f"cost_scale must be finite numbers > 0, got {scale[y, x]} at cell {(x, y)}")
    return scale
