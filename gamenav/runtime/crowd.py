"""Crowd: many agents on a TileGrid, moved by paths or a shared flow field, all in numpy arrays.

Positions and velocities are ``(n, 2)`` float64 world ``(x, y)``; grid arrays are ``[y, x]``.
A :class:`Crowd` owns every agent's state (no per-agent Python objects) and each
:meth:`Crowd.update` does, vectorised over all agents:

- path following (waypoints from :class:`~gamenav.PathQueue` requests or ``find_path``; on a
  NavMesh world the funnel corners in turn, moved off the wall corners they round by the radius
  where the disc fits, skipped only when come near or in sight), or
  descent of a shared distance field for big groups (one Dijkstra search per group order; a
  unit near its formation slot goes straight to it when the line there is clear for its size,
  else it asks for a path there: the field leads to the order's target, not round what stands
  between the unit and its slot);
- arrival (slowing down near the goal);
- local avoidance: ORCA (``avoidance="orca"``, the default; van den Berg, Guy, Lin, Manocha,
  "Reciprocal n-body collision avoidance", 2009, as in RVO2): each agent picks the velocity
  nearest its preferred one that avoids its ``max_neighbors`` nearest neighbours for
  ``time_horizon`` seconds and the walls for ``time_horizon_obst`` seconds: the grid's blocked
  cell edges and, on a NavMesh world, the exact edges of the obstacles added to the mesh (kept in
  step with its edits, see :mod:`gamenav.runtime._obstacle_walls`), a small linear program per
  agent in numba over a cell grid of the agents (an agent whose constraints cannot all be met
  keeps to the walls and its 4 nearest neighbours first;
  RVO2's 3-D fallback only when even those leave no velocity); an idle agent that moving ones
  come at steps off their lines; counter-flows keep right, and in a head-on jam the agent with
  the younger order gives way (steps right and back; the ones right behind it back off; the
  older one goes on and shoves it aside), so that a corridor only one fits through does not
  deadlock. One-way passages (grid cells whose free run across is too narrow for two of the
  largest agents side by side, e.g. a bridge) take turns: an agent about to enter one waits at
  the mouth, standing aside and giving way to those coming out, while the agents inside come
  towards it or while an older order at the other mouth claims the passage (a claim holds a
  few seconds); then overlapping discs are pushed apart (Gauss-Seidel sweeps over the touching
  pairs) and out of blocked cells (corners included) and navmesh obstacles, so that an agent's
  disc never overlaps a blocked cell when its path was planned for its radius, nor an obstacle.
  The whole step is one kernel call. The older ``avoidance="separation"`` (pushes and "keep right", discs may
  overlap) is kept;
- wall sliding: no agent's centre ever stands on a blocked cell, even right after a grid edit
  (agents on newly blocked cells are moved to the nearest passable cell and re-path);
- stuck detection (too little progress for ``stuck_seconds``) and re-pathing;
- path invalidation on grid edits: only agents whose remaining path enters a newly blocked cell
  (or, under the movement rules that read corners and for smoothed paths, steps diagonally past
  one) re-path; group flow fields are repaired; after an edit that opens cells, agents that
  had failed (no way to their goals, or stuck) ask for a path again; likewise on a NavMesh
  world's edits (``add_obstacle``, ...): agents whose way ahead touches the edited box re-path;
- optionally (``reroute_seconds``), congestion-aware group fields: re-planned now and then
  around the agents of other orders coming the other way.

It uses no game engine: any game loop calls ``queue.update()`` then ``crowd.update(dt)`` and
draws ``crowd.positions``.

Unit sizes: ``radius`` and ``max_speed`` are one number or one per agent. On a grid world each
agent's paths (and its group's flow field: one per size class of the group, i.e. per radius
paths are planned for) use only the cells whose centre disc of its radius is clear of blocked
cells (``find_path(..., agent_radius=)``), so a tank never plans through a gap only infantry
fits, and infantry is not held to the middle of a bridge the group's tanks need. Formation
slots are on the cells the group's largest unit fits.

Agents and ids: every agent has a stable id (``int``; the first ``n`` are ``0..n-1``, then
:meth:`Crowd.add` hands out new ones, never reused). Orders take ids; the state arrays
(``positions``, ``arrived``, ...) have one row per live agent, in the order of :attr:`Crowd.ids`
(``crowd.rows(ids)`` maps ids to rows). :meth:`Crowd.remove` drops agents and compacts the rows,
so ids equal rows only until the first removal.

Lifetime: a crowd follows its grid's edits through a weak subscription, so a dropped crowd is
neither kept alive nor notified by the grid, and its pending path requests are cancelled at the
queue's next request or update. :meth:`Crowd.close` (or leaving a ``with Crowd(...) as crowd:``
block) ends the subscription and cancels the pending path requests; afterwards the orders and
:meth:`Crowd.update` raise InvalidInputError, while the state (positions, paths, ...) stays
readable. A crowd whose :class:`~gamenav.PathQueue` was closed keeps the path requests of its
orders and of grid edits waiting (:attr:`Crowd.pending`) until an open queue is assigned
(:attr:`Crowd.queue`): an order or an edit never raises for it, :meth:`Crowd.update` raises
the queue's InvalidInputError. So does a re-path a grid edit asks for that the search refuses
(``path_options={"algorithm": "jps"}`` once the grid's costs are no longer uniform): the edit
does not raise, the agents wait, and :meth:`Crowd.update` raises the search's error.
"""

from __future__ import annotations

import contextlib
import itertools
import math
import sys
import time
import weakref
from collections.abc import Callable, Iterator, Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Generic, TypeVar, overload

import numpy as np
import numpy.typing as npt

from gamenav._arrays import frozen
from gamenav._kernels import announce_compile
from gamenav._kernels.crowd import (descend_field, field_targets, follow_paths, narrow_passages, passage_waits,
                                    preferred_velocities, resolve_walls, separation, walk_steps)
from gamenav._kernels.navmesh import raycast_walk
from gamenav._kernels.orca import blocked_table, crowd_step, discs_off_walls
from gamenav._validate import (finite_point, flag, float_numbers, holds_bool, is_int, is_real, positive_number,
                               real_number, shown)
from gamenav.runtime._congestion import oncoming_scale
from gamenav.runtime._obstacle_walls import ObstacleWalls
from gamenav.runtime._mesh_invalidation import segments_touch_box
from gamenav._events import Closeable, Inbox
from gamenav.errors import BlockedEndpointError, GamenavError, InvalidInputError
from gamenav.grid.movement import Diagonal
from gamenav.grid.tilegrid import GridChange, TileGrid, _GridState
from gamenav.types import Path, PathStatus

if TYPE_CHECKING:
    from gamenav.navmesh.dynamic import NavMeshChange

__all__ = ["Crowd"]

_T = TypeVar("_T")
_F64 = npt.NDArray[np.float64]
_I64 = npt.NDArray[np.int64]
_Idx = npt.NDArray[np.integer[Any]]
"""Agent indices (int64 or intp)."""

IDLE, PATH, FIELD, DIRECT = 0, 1, 2, 3
"""Navigation modes of an agent (:attr:`Crowd.mode`)."""

_STUCK_WINDOWS = 2  # consecutive stuck windows before acting
_LOOK_AHEAD = 4
"""Path following on a grid world looks for the nearest of this many next waypoints (cell
centres one step apart: one pushed ahead of the agent's waypoint is on its way). On a navmesh
world it takes the next one only: the waypoints are funnel corners, rounded in turn, and a later
one nearer in a straight line may lie behind a wall (agents walked into it and gave up)."""
_FIELD_LOOK_AHEAD = 3
"""Flow-field agents aim at the cell this many steps down the field."""
_MAX_REPATHS = 4  # stuck re-paths before an agent gives up (``failed``)
_MAX_JAM_REPATHS = 8  # jam re-paths in which it did not move a cell, nobody near it making headway
_NEAR_WALK = 64
"""A stuck unit is near its goal only on a walk of at most this many steps (so the walk search
stays small whatever the slot spacing)."""
_MIN_ARRIVAL_SPEED = 0.2
"""Slowing down for the goal never goes below this fraction of ``max_speed`` (so arrival
takes finite time), and never beyond reaching the goal within one update; with
``avoidance="separation"`` an agent is also never too fast to stop at its goal braking at
``max_accel`` (a fast one brakes early)."""
MAX_SUBSTEPS = 32
"""Most sub-steps of one :meth:`Crowd.update`, each moving an agent at most half a cell (a
longer update is cut to this many half cells of the fastest agent, unless under a second)."""
_UNCUT_SECONDS = 1.0
_MAX_CELLS_PER_SECOND = 1e9  # speeds (and accelerations per second) above this many cells are refused
_CORNER_RULES = (Diagonal.NO_CORNER_CUTTING, Diagonal.AT_MOST_ONE_BLOCKED)  # rules whose diagonal steps read corners
_NO_ROUTE = Path.none(PathStatus.NO_PATH)
_WAITING = Path.none(PathStatus.IN_PROGRESS)


def _distance_field(grid: TileGrid, sources: _I64, max_cost: float, agent_radius: float = 0.0,
                    cost_scale: _F64 | None = None, snapshot: _GridState | None = None,
                    since: tuple[_GridState, _F64] | None = None) -> _F64:
    """The distance field of ``snapshot`` (a state of ``grid``; None: the current one): sources
    chosen on a snapshot stay passable on it whatever another thread edits meanwhile (``since``:
    the same field on an earlier snapshot, repaired)."""
    from gamenav.grid.fields import snapshot_field

    if agent_radius > 0.0:
        return snapshot_field(grid, snapshot, sources, max_cost=max_cost, agent_radius=agent_radius,
                              cost_scale=cost_scale, since=since)
    return snapshot_field(grid, snapshot, sources, max_cost=max_cost, cost_scale=cost_scale, since=since)


def _widening(most: int) -> Iterator[int]:
    """Half-widths of square windows round a cell, each about twice as wide as the last: 0, 1, 3, 7, ...,
    then ``most - 1`` (a window holding the whole grid), so that finding the first passable cell
    ``r`` cells away scans O(r**2) cells (window by window: O(r**3))."""
    r = 0
    while r < most - 1:
        yield r
        r = 2 * r + 1
    yield most - 1


def _field_near(field: _F64, cells: _I64) -> _F64:
    """The lowest value of ``field`` [y, x] in the 3 x 3 cells around each cell (m, 2): an agent
    standing beside the cells its size may use still finds its way onto them."""
    h, w = field.shape
    best = np.full(len(cells), np.inf)
    for dy in (-1, 0, 1):
        for dx in (-1, 0, 1):
            x, y = cells[:, 0] + dx, cells[:, 1] + dy
            ok = (x >= 0) & (x < w) & (y >= 0) & (y < h)
            best[ok] = np.minimum(best[ok], field[y[ok], x[ok]])
    return best


def _min_around(field: _F64, out: _F64) -> None:
    """:func:`_field_near` of every cell of ``field`` [y, x], into ``out`` (same shape): the 3 x 3
    minimum by shifted slices (the gathers of every cell's 9 neighbours cost a frame after each edit)."""
    h, w = field.shape
    pad = np.full((h + 2, w + 2), np.inf)
    pad[1:-1, 1:-1] = field
    out[...] = field
    for dy in (0, 1, 2):
        for dx in (0, 1, 2):
            np.minimum(out, pad[dy:dy + h, dx:dx + w], out=out)


_RADIUS_PATHS: list[bool] = []


def _radius_paths() -> bool:
    """Whether grid searches take ``agent_radius`` (gamenav.grid.clearance)."""
    if not _RADIUS_PATHS:
        import gamenav

        try:
            gamenav.find_path(TileGrid(np.ones((1, 1), bool)), (0, 0), (0, 0), agent_radius=0.0)
            _RADIUS_PATHS.append(True)
        except (GamenavError, TypeError):
            _RADIUS_PATHS.append(False)
    return _RADIUS_PATHS[0]


def _max_radius_cells() -> float:
    from gamenav.grid.clearance import MAX_RADIUS_CELLS

    return float(MAX_RADIUS_CELLS)


def _clearance_mask(grid: TileGrid, radius: float, snapshot: _GridState | None = None) -> npt.NDArray[np.bool_]:
    """The cells an agent of ``radius`` fits, on ``snapshot`` (None: the grid as it is now)."""
    from gamenav.grid.clearance import clearance_mask, radius_state, threshold

    if snapshot is None:
        return clearance_mask(grid, radius)
    return radius_state(snapshot, threshold(grid, radius)).passable  # (threshold checks the radius)


def _positive_int(value: Any, name: str) -> int:
    """``value`` as an int, which must be an integer >= 1 (bools rejected)."""
    if not is_int(value) or value < 1:
        raise InvalidInputError(f"{name} must be an int >= 1, got {shown(value)}")
    return int(value)


def _count(value: Any, name: str) -> int:
    """``value`` as an int, which must be an integer >= 0 (bools rejected)."""
    if not is_int(value) or value < 0:
        raise InvalidInputError(f"{name} must be an int >= 0, got {shown(value)}")
    return int(value)


def _agent_id(agent: Any) -> int:
    """``agent`` as an int: one agent id (bools, lists and arrays refused)."""
    if not is_int(agent):
        raise InvalidInputError(f"agent must be one agent id (an int), got {shown(agent)}")
    return int(agent)


def _bounded(value: Any, name: str, most: float) -> float:
    """``value`` as a float, which must be finite, > 0 and at most ``most``."""
    number = positive_number(value, name)
    if number > most:
        raise InvalidInputError(f"{name} must be at most {most:g}, got {shown(value)}")
    return number


def _per_agent(value: Any, n: int, name: str, most: float = math.inf) -> _F64 | float:
    """A number > 0 (returned as float) or ``n`` finite numbers > 0 (an (n,) float64 array),
    none above ``most``."""
    try:
        arr = None if np.ndim(value) == 0 else _numbers(value).reshape(-1)
    except (TypeError, ValueError):  # ragged, or not numbers
        raise InvalidInputError(f"{name} must be a number > 0 or one per agent, got {shown(value)}") from None
    if arr is None:
        return _bounded(value, name, most)
    if arr.shape != (n,):
        raise InvalidInputError(f"{name} must be a number or one per agent ({n}), got {arr.size} values")
    bad = ~(np.isfinite(arr) & (arr > 0) & (arr <= most))
    if bad.any():
        k = int(np.flatnonzero(bad)[0])
        limit = "" if most == math.inf else f" (at most {most:g})"
        raise InvalidInputError(f"{name} must be finite numbers > 0{limit}; agent {k} has {float(arr[k])!r}")
    return arr


def _non_negative(value: Any, name: str) -> float:
    """``value`` as a float, which must be finite and >= 0."""
    number = real_number(value, name, "a finite number >= 0")
    if not math.isfinite(number) or number < 0:
        raise InvalidInputError(f"{name} must be a finite number >= 0, got {shown(value)}")
    return number


class _Setting(Generic[_T]):
    """A public setting of a :class:`Crowd`, checked by ``check(value, name)`` on every assignment
    (the constructor's included): a bad value fails where it is given, not in a later update."""

    def __init__(self, check: Callable[[Any, str], _T], doc: str) -> None:
        self._check = check
        self.__doc__ = doc

    def __set_name__(self, owner: type, name: str) -> None:
        self._name = name

    @overload
    def __get__(self, obj: None, owner: type) -> _Setting[_T]: ...
    @overload
    def __get__(self, obj: object, owner: type) -> _T: ...
    def __get__(self, obj: object | None, owner: type) -> _Setting[_T] | _T:
        if obj is None:
            return self
        value: _T = obj.__dict__[self._name]
        return value

    def __set__(self, obj: object, value: _T) -> None:
        obj.__dict__[self._name] = self._check(value, self._name)


_AVOIDANCE = ("orca", "separation")
_KEEP_RIGHT = 0.5
"""ORCA: an agent with oncoming neighbours bends its preferred velocity to the right by this
fraction of its preferred speed (counter-flows form lanes instead of jamming)."""
_MOUTH = 6.0
"""ORCA: an agent waits at a one-way passage when its heading meets the passage within this
many cells plus the largest diameter (:meth:`Crowd._wait_at_passages`): a waiting crowd holds
back from the mouth, not pressed on it, and leaves room for those coming out (the choke
point, seeds 1-8: 2 cells 97.5%, 4 cells 98.2%, 6 cells 98.6% arrived within 3000 frames)."""
_HOLD = 3.0
"""ORCA: seconds an order's claim on a one-way passage holds after its last agent at the mouth
(one pushed back from the mouth for a moment keeps its order's turn)."""
_OVERLAP_ITERATIONS = 300
"""ORCA: at most this many Gauss-Seidel sweeps push overlapping discs apart after each move."""
_IDLE_MASS = 0.25
"""ORCA: an idle agent weighs this much of a moving one of its size when overlaps are resolved."""
_OVERLAP_TOLERANCE = 0.01
"""... and they stop once no pair overlaps by more than this fraction of its radii's sum."""


def _check_queue(queue: Any) -> None:
    if queue is not None and not callable(getattr(queue, "request", None)):
        raise InvalidInputError(f"queue must be a PathQueue (or None), got {type(queue).__name__}")
    if getattr(queue, "closed", False) is True:  # (else the first order raises, far from the cause)
        raise InvalidInputError("queue is closed: pass an open PathQueue (or None)")


def _path_options(value: Any) -> dict[str, Any]:
    """``path_options`` (a mapping of option names to values, or None) as a new dict."""
    if value is None:
        return {}
    if not isinstance(value, Mapping) or not all(isinstance(name, str) for name in value):
        raise InvalidInputError(f"path_options must be a dict of search options by name, or None, got {shown(value)}")
    return dict(value)


def _numbers(values: Any) -> _F64:
    """``values`` as a float64 array (:func:`float_numbers`: a long double or an int beyond
    float64 is inf, refused by the callers, without numpy's overflow warning); raises TypeError
    for anything but numbers (strings, bools, objects, ragged rows), which
    ``np.array(values, np.float64)`` would read as numbers or fail on."""
    numbers = float_numbers(values)
    if numbers is None:
        raise TypeError
    return numbers


def _points(positions: npt.ArrayLike) -> _F64:
    """``positions`` as a float64 array, at least 2-D (an empty one: ``(0, 2)``)."""
    try:
        pos = np.array(_numbers(positions), ndmin=2)
    except (TypeError, ValueError):
        raise InvalidInputError(f"positions must be an (n, 2) array of numbers, got {shown(positions)}") from None
    return pos.reshape(0, 2) if pos.size == 0 else pos


def _check_positions(grid: TileGrid, pos: _F64) -> None:
    """``pos`` must be ``(n, 2)`` finite world points on passable cells."""
    if pos.ndim != 2 or pos.shape[1] != 2:
        raise InvalidInputError(f"positions must have shape (n, 2), got {pos.shape}")
    if not np.isfinite(pos).all():
        bad = int(np.flatnonzero(~np.isfinite(pos).all(axis=1))[0])
        raise InvalidInputError(f"positions must be finite; agent {bad} is at {tuple(pos[bad].tolist())}")
    cells = grid.world_to_cell(pos) if len(pos) else np.zeros((0, 2), np.int64)
    inside = np.asarray(((cells >= 0) & (cells < (grid.width, grid.height))).all(axis=1))
    on_free = inside.copy()
    on_free[inside] = grid.passable[cells[inside, 1], cells[inside, 0]]
    if not on_free.all():
        bad = int(np.flatnonzero(~on_free)[0])
        where = f"in blocked cell {tuple(cells[bad].tolist())}" if inside[bad] else "outside the grid (world x " \
            f"{grid._origin[0]:g}..{grid._origin[0] + grid.width * grid._cell_size:g}, y " \
            f"{grid._origin[1]:g}..{grid._origin[1] + grid.height * grid._cell_size:g})"
        raise InvalidInputError(
            f"every position must lie on a passable cell; agent {bad} at {tuple(pos[bad].tolist())} is {where}")


_KERNELS = (crowd_step, follow_paths, field_targets, separation, resolve_walls, descend_field, narrow_passages,
            passage_waits, preferred_velocities, walk_steps, blocked_table, discs_off_walls)
"""The crowd's kernels, compiled as one group (:func:`gamenav._kernels.announce_compile`) on first use."""


def _dilate(mask: npt.NDArray[np.bool_], k: int) -> npt.NDArray[np.bool_]:
    """The cells [y, x] within ``k`` cells (Chebyshev) of a True cell of ``mask``."""
    h, w = mask.shape
    sat = np.zeros((h + 1, w + 1), np.int64)
    sat[1:, 1:] = mask.cumsum(0).cumsum(1)
    y0 = np.clip(np.arange(h) - k, 0, h)[:, None]
    y1 = np.clip(np.arange(h) + k + 1, 0, h)[:, None]
    x0 = np.clip(np.arange(w) - k, 0, w)[None, :]
    x1 = np.clip(np.arange(w) + k + 1, 0, w)[None, :]
    near: npt.NDArray[np.bool_] = (sat[y1, x1] - sat[y0, x1] - sat[y1, x0] + sat[y0, x0]) > 0
    return near


def _straight_runs(corners: npt.NDArray[np.integer[Any]]) -> _I64:
    """The runs between consecutive path cells ``(k, 2)``: ``(k - 1, 5)`` rows of start cell
    ``ax, ay``, step ``dx, dy`` and ``steps`` (the 8-direction cell steps it takes, at least 1),
    as :func:`gamenav._kernels.crowd.follow_paths` reads them."""
    a = corners[:-1].astype(np.int64)
    d = np.diff(corners, axis=0).astype(np.int64)
    steps = np.maximum(np.abs(d).max(axis=1, initial=0), 1)
    return np.concatenate([a, d, steps[:, None]], axis=1)


def _run_waypoints(seg: _I64, first: _I64, k_first: _I64, count: _I64) -> tuple[_I64, _I64, _I64, _I64]:
    """The waypoints of consecutive runs: for each ``j``, runs ``first[j] .. first[j] + count[j]
    - 1`` of ``seg`` (:func:`_straight_runs`), from waypoint ``k_first[j]`` of the first.

    Returns:
        ``(cells (m, 2), the run of each waypoint (m,), its number ``k`` in the run (m,), the
        ``j`` it belongs to (m,))``; the cell of waypoint ``k`` is ``a + rint(d * (k * (1 / steps)))``.
    """
    offsets = np.cumsum(count) - count
    runs = np.repeat(first - offsets, count) + np.arange(int(count.sum()))
    start = np.ones(len(runs), np.int64)
    start[offsets[count > 0]] = k_first[count > 0]
    n_way = seg[runs, 4] - start + 1
    row = np.repeat(runs, n_way)
    k = np.repeat(start - (np.cumsum(n_way) - n_way), n_way) + np.arange(int(n_way.sum()))
    cells: _I64 = seg[row, :2] + np.rint(seg[row, 2:4] * (k * (1.0 / seg[row, 4]))[:, None]).astype(np.int64)
    owner = np.repeat(np.repeat(np.arange(len(first)), count), n_way)
    return cells, row, k, owner


class Crowd(Closeable):
    """Many agents on a tile grid, steered in numpy (see the module docstring).

    Args:
        grid: the walkable cells; the crowd subscribes to its edits.
        positions: ``(n, 2)`` world ``(x, y)`` start positions, each on a passable cell.
        radius: agent radius in world units: one number, or one per agent (``(n,)``).
        max_speed: world units per second: one number, or one per agent (at most 1e9 cells per
            second; max_accel at most 8e9 cells per second squared).
        max_accel: world units per second squared (default ``8 * max_speed``; separation only:
            ORCA picks each velocity outright, as RVO2 does).
        queue: a :class:`~gamenav.PathQueue` for path requests; ``None`` calls
            :func:`~gamenav.find_path` synchronously.
        world: what paths are searched on: ``grid`` (default) or a :class:`~gamenav.NavMesh`
            covering the same free space (assign :attr:`world` to switch; agents re-path; a
            NavMesh's edits are followed like the grid's).
        flow_threshold: group orders with at least this many agents descend one shared
            distance field instead of sending one path request per agent.
        spacing: distance between formation slots in world units (default ``2.5 *`` the
            largest radius, rounded up to whole cells).
        stuck_seconds: how long an agent may make too little progress before it re-paths.
        diagonal: the grid movement rule of path requests (group flow fields step as
            ``no_corner_cutting`` whatever the rule: the moves a disc can make between cells).
        path_options: extra keyword options for each path request (e.g. ``algorithm="jps"``).
        arrive_radius: an agent has arrived within this distance of its goal (world units;
            default a quarter cell).
        requests_per_update: at most this many path requests go to the queue per
            :meth:`update` (more wait in the crowd, first come first served), so that a thousand
            agents re-pathing at once cost no frame spike; the queue's budget is the real limit.
        avoidance: ``"orca"`` (default) or ``"separation"`` (the older pushes; discs may overlap).
        neighbor_dist: ORCA: the farthest other agent considered, centre to centre, world units
            (default ``max(8 * largest radius, max_speed * time_horizon)``).
        max_neighbors: ORCA: at most this many nearest agents are avoided (default 10).
        time_horizon: ORCA: seconds ahead an agent's velocity is safe from the others (default 1).
        time_horizon_obst: ORCA: seconds ahead it is safe from walls (default: the time to cross
            1.5 cells at ``max_speed``; must not be shorter than a frame).
        reroute_seconds: congestion-aware flow fields: every so many seconds each group's field
            is planned again with the cells taken by agents of other orders coming the other
            way made dearer (one field per :meth:`update`), so that a group takes a free
            corridor instead of pushing against another group in a full one (see
            :mod:`gamenav.runtime._congestion`). None (default): fields are planned once per
            order and grid edit. Worth it where there are other routes; on a single bridge the
            detours round waiting crowds cost time.

    Example:
        >>> import numpy as np, gamenav
        >>> grid = gamenav.TileGrid(np.ones((20, 20), bool))
        >>> crowd = gamenav.Crowd(grid, [(1.5, 1.5), (2.5, 1.5)], radius=0.3, max_speed=4.0)
        >>> crowd.move([0, 1], (15.0, 15.0))
        >>> for _ in range(400):
        ...     crowd.update(1 / 30)
        >>> bool(crowd.arrived.all())
        True
    """

    def __init__(self, grid: TileGrid, positions: npt.ArrayLike, *, radius: float | npt.ArrayLike,
                 max_speed: float | npt.ArrayLike, max_accel: float | None = None, queue: Any = None,
                 world: Any = None, flow_threshold: int = 16, spacing: float | None = None,
                 stuck_seconds: float = 0.75, diagonal: Diagonal | str = Diagonal.NO_CORNER_CUTTING,
                 path_options: dict[str, Any] | None = None, arrive_radius: float | None = None,
                 requests_per_update: int = 16, avoidance: str = "orca", neighbor_dist: float | None = None,
                 max_neighbors: int = 10, time_horizon: float = 1.0,
                 time_horizon_obst: float | None = None, reroute_seconds: float | None = None) -> None:
        if not isinstance(grid, TileGrid):
            raise InvalidInputError(f"grid must be a TileGrid, got {type(grid).__name__}")
        pos = _points(positions)
        self._grid = grid
        self._removed: list[_Idx] = []  # rows of agents removed, dropped at the next :meth:`_compact`
        self._updating = False  # in :meth:`update`: agents added join, those removed leave, at its end
        self._joining: list[dict[str, npt.NDArray[Any]]] = []  # the rows of agents added during an update
        _check_positions(grid, pos)
        n = len(pos)
        radii = _per_agent(radius, n, "radius")
        speeds = _per_agent(max_speed, n, "max_speed", _MAX_CELLS_PER_SECOND * grid._cell_size)
        r_max = float(np.max(radii)) if np.size(radii) else 0.25 * grid._cell_size
        v_max = float(np.max(speeds)) if np.size(speeds) else min(1.0, _MAX_CELLS_PER_SECOND * grid._cell_size)
        self._spacing = None if spacing is None else positive_number(spacing, "spacing")
        self.arrive_radius = 0.25 * grid._cell_size if arrive_radius is None else arrive_radius
        self.requests_per_update = requests_per_update
        self.flow_threshold = flow_threshold
        self.avoidance = avoidance
        self.max_neighbors = max_neighbors
        self.time_horizon = time_horizon
        self.keep_right = _KEEP_RIGHT
        self._time_horizon_obst = None if time_horizon_obst is None else \
            positive_number(time_horizon_obst, "time_horizon_obst")
        self._neighbor_dist = None if neighbor_dist is None else positive_number(neighbor_dist, "neighbor_dist")
        self.radius = radii if isinstance(radii, float) else r_max
        self.max_speed = speeds if isinstance(speeds, float) else v_max
        self.max_accel = 8.0 * v_max if max_accel is None else max_accel
        _check_queue(queue)
        self._queue = queue
        self._stride = 1
        self.stuck_seconds = stuck_seconds
        self._diagonal = Diagonal.parse(diagonal)
        self._path_options = _path_options(path_options)
        self._world: Any = self._routing_checked(grid if world is None else world, self._diagonal,
                                                 self._path_options)
        self._pos = pos
        self._radii = np.broadcast_to(np.asarray(radii, np.float64), (n,)).copy()
        self._speeds = np.broadcast_to(np.asarray(speeds, np.float64), (n,)).copy()
        self._ids = np.arange(n, dtype=np.int64)
        self._row_of = np.arange(n, dtype=np.int64)  # id -> row (-1: removed)
        self._sizes_changed()
        self._vel = np.zeros((n, 2))
        self._goal = pos.copy()
        self._mode = np.zeros(n, np.int8)
        self._arrived = np.ones(n, bool)
        self._failed = np.zeros(n, bool)
        # paths: one flat buffer of straight runs (:func:`_straight_runs`); agent i is at waypoint
        # pk[i] of run pcur[i], and its path ends before run pend[i]
        self._pseg = np.zeros((0, 5), np.int64)  # rows 0 .. _plen-1 are used (capacity grows x2)
        self._paim = np.zeros((0, 2), np.float64)  # per run: its end point (the steering aim)
        self._plen = 0
        self._pcur = np.zeros(n, np.int64)
        self._pk = np.zeros(n, np.int64)
        self._pend = np.zeros(n, np.int64)
        # flow-field groups: agent -> group id; group id -> (target cell, field)
        self._group = np.full(n, -1, np.int64)
        self._fields: dict[int, tuple[_I64, _F64]] = {}
        self._field_radius: dict[int, float] = {}  # group id -> the agent_radius of its field
        # group id -> (snapshot, source (x, y), agent_radius, None) of its field when planned with the
        # grid's own costs, else (..., that plain field): what an edit's re-plan repairs (fields.py)
        self._field_basis: dict[int, tuple[_GridState, tuple[int, int], float, _F64 | None]] = {}
        self._field_age: dict[int, float] = {}  # group id -> seconds since its field was planned
        # the plain fields of group orders, (x, y, agent_radius) -> field, all planned on grid version
        # _plans_version (those of the live groups and of the last group order: :meth:`_planned`)
        self._plans: dict[tuple[int, int, float], _F64] = {}
        self._plans_version = -1
        # orders carried out: order number -> (target x, y, formation, group, grid version, slot stride)
        self._given: dict[int, tuple[float, float, bool, bool, int, int]] = {}
        self.reroute_seconds = reroute_seconds
        # field descent: the group fields stacked for one kernel call (:meth:`_stacked_fields`;
        # None: to rebuild)
        self._fstack: tuple[list[_F64], _F64, _F64, _I64, npt.NDArray[np.uint8], npt.NDArray[np.bool_],
                            _I64] | None = None
        self._slot_cost = np.zeros(n)
        self._next_group = 0
        self._requests: dict[int, Any] = {}  # (changed in place only: the finalizer holds it)
        weakref.finalize(self, _abandon, self._requests)
        self._backlog: dict[int, None] = {}  # agents waiting to send a request (insertion order)
        self._routes: dict[int, Path] = {}  # the path result each path-following agent follows
        self._sent = 0  # requests sent since the last update began
        self._rerouted = False  # a congestion re-plan was made in this update
        self._stuck_clock = 0.0
        self._snapshot = pos.copy()
        self._stuck_count = np.zeros(n, np.int64)
        self._repaths = np.zeros(n, np.int64)
        self._jams = np.zeros(n, np.int64)  # stuck periods in a jam (this order)
        self._jam_mark = np.full((n, 2), np.nan)  # position at the last jam period with progress
        self._jam_since = np.zeros(n, np.int64)  # ``_jams`` at that period
        self._sep = np.zeros((n, 2))
        self._flow = np.zeros((n, 2))
        self._want = np.zeros(n)  # desired speed of each agent in the last update
        self._heading = np.zeros((n, 2))  # unit direction it steered at in the last update (0: none)
        self._yielded = np.zeros(n, np.int64)  # ORCA: gave way (1) or waited behind (2...) last update
        self._order = np.zeros(n, np.int64)  # number of the agent's last order (older goes first)
        self._orders = 0
        self.counters = {"path_requests": 0, "stuck_repaths": 0, "edit_repaths": 0, "pushed_out": 0,
                         "flow_fields": 0, "infeasible": 0, "wall_overlaps": 0}
        """Running totals: requests sent, re-paths after getting stuck or after edits, agents an
        edit moved off newly blocked cells or out of a new navmesh obstacle (also out of those of
        a navmesh world set; not those left where they stood: nowhere free, or on the obstacle's
        border already), flow fields
        computed; ORCA: agents whose constraints could not all be met (RVO2's 3-D fallback),
        discs left overlapping a wall (their path was not planned for their radius)."""
        self._sat: tuple[npt.NDArray[np.bool_], tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]] | None = None
        self._walls = ObstacleWalls(grid)  # the edges of the navmesh world's obstacles
        self._passages: tuple[npt.NDArray[np.bool_], int, _I64, int, _F64] | None = None
        self._near: tuple[_I64, int, npt.NDArray[np.bool_]] | None = None  # (labels, reach, cells within reach)
        self.avoidance_ms = 0.0
        """Wall-clock milliseconds of the last update's avoidance (neighbours, ORCA, overlap
        and wall projection; all its sub-steps)."""
        self._inbox = Inbox(self._edited)  # edits heard in other threads wait for the crowd's thread
        self._unsubscribe = grid.subscribe(self._on_change, weak=True)
        self._seen = grid.version  # the last grid edit acted on (read once subscribed)
        self._unfollow: Callable[[], object] = _nothing
        self._follow_world()

    # settings (may be assigned)
    radius = _Setting(positive_number, "The default radius of :meth:`add` (the largest when one was given per agent).")
    requests_per_update = _Setting(_positive_int, "At most this many path requests go to the queue per update.")
    flow_threshold = _Setting(_positive_int, "Group orders of at least this many agents descend a shared field.")
    stuck_seconds = _Setting(positive_number, "Seconds of too little progress before an agent re-paths.")
    arrive_radius = _Setting(positive_number, "An agent has arrived within this distance of its goal (world units).")
    time_horizon = _Setting(positive_number, "ORCA: seconds ahead an agent's velocity is safe from the others.")
    max_neighbors = _Setting(_count, "ORCA: at most this many nearest agents are avoided.")
    keep_right = _Setting(_non_negative, "ORCA: with oncoming neighbours an agent bends its preferred velocity to the "
                          "right by this fraction of its preferred speed, so that counter-flows form lanes (0: plain "
                          "RVO2).")

    # -- lifetime -------------------------------------------------------------------------
    def _close(self) -> None:
        """Stop following grid edits and cancel the pending path requests; the state stays
        readable, orders and :meth:`update` raise InvalidInputError afterwards."""
        self._unsubscribe()
        self._unfollow()
        self._inbox.clear()
        self._cancel(np.array(sorted(self._requests), np.int64))
        self._backlog.clear()

    # -- agents ---------------------------------------------------------------------------
    _ROW_STATE = ("_pos", "_radii", "_speeds", "_ids", "_vel", "_goal", "_mode", "_arrived", "_failed",
                  "_pcur", "_pk", "_pend", "_group", "_slot_cost", "_snapshot", "_stuck_count",
                  "_repaths", "_jams", "_jam_mark", "_jam_since", "_sep", "_flow", "_want", "_heading",
                  "_order", "_yielded")
    """The per-agent arrays (one row per live agent), compacted together by :meth:`_compact`."""

    def add(self, positions: npt.ArrayLike, *, radius: float | npt.ArrayLike | None = None,
            max_speed: float | npt.ArrayLike | None = None) -> npt.NDArray[np.int64]:
        """Spawn agents at ``positions`` ((m, 2) world ``(x, y)``, on passable cells), idle.

        Args:
            radius: one number or one per new agent (default :attr:`radius`).
            max_speed: one number or one per new agent (default :attr:`max_speed`).

        Returns:
            their ids, ``(m,)`` int64 (new, never used before in this crowd); their rows are the
            last ``m`` rows. Added from code an update runs (a ``__del__``), they join when it ends.
        """
        self._check_open("add agents to")
        self._catch_up()
        pos = _points(positions)
        _check_positions(self._grid, pos)
        m = len(pos)
        radii = _per_agent(self.radius if radius is None else radius, m, "radius")
        speeds = _per_agent(self.max_speed if max_speed is None else max_speed, m, "max_speed",
                            _MAX_CELLS_PER_SECOND * self._grid._cell_size)
        start = int(len(self._row_of))
        ids = np.arange(start, start + m, dtype=np.int64)
        zeros2 = np.zeros((m, 2))
        fresh: dict[str, npt.NDArray[Any]] = {
            "_pos": pos, "_radii": np.broadcast_to(np.asarray(radii, np.float64), (m,)),
            "_speeds": np.broadcast_to(np.asarray(speeds, np.float64), (m,)), "_ids": ids, "_vel": zeros2,
            "_goal": pos, "_mode": np.zeros(m, np.int8), "_arrived": np.ones(m, bool),
            "_failed": np.zeros(m, bool), "_pcur": np.zeros(m, np.int64), "_pk": np.zeros(m, np.int64),
            "_pend": np.zeros(m, np.int64), "_group": np.full(m, -1, np.int64), "_slot_cost": np.zeros(m),
            "_snapshot": pos, "_stuck_count": np.zeros(m, np.int64), "_repaths": np.zeros(m, np.int64),
            "_jams": np.zeros(m, np.int64), "_jam_mark": np.full((m, 2), np.nan),
            "_jam_since": np.zeros(m, np.int64), "_sep": zeros2, "_flow": zeros2, "_want": np.zeros(m),
            "_heading": zeros2, "_order": np.zeros(m, np.int64), "_yielded": np.zeros(m, np.int64)}
        self._row_of = np.concatenate([self._row_of, np.full(m, -1, np.int64)])
        if self._updating:  # (code the update runs, a ``__del__``: its arrays are in use)
            self._joining.append(fresh)
        else:
            self._append(fresh)
        return ids

    def _append(self, fresh: dict[str, npt.NDArray[Any]]) -> None:
        """Add the rows ``fresh`` (one array per name of :data:`_ROW_STATE`) after the others."""
        n, m = len(self._pos), len(fresh["_ids"])
        for name in self._ROW_STATE:
            setattr(self, name, np.concatenate([getattr(self, name), fresh[name]]))
        self._row_of[fresh["_ids"]] = np.arange(n, n + m, dtype=np.int64)
        self._sizes_changed()

    def remove(self, agents: npt.ArrayLike) -> None:
        """Remove agents (ids, or a bool mask over the rows): their requests are cancelled and
        the rows of the others compact (keeping their order); ids stay valid. The rows are dropped
        when the crowd is next read or changed, all those removed since at once: a battle removing
        its dead one call each costs no pass over every agent per call (removed from code an
        update runs, a ``__del__``, they leave when it ends)."""
        self._check_open("remove agents from")
        rows = self._indices(agents)
        if len(rows):
            self._cancel(rows)
            self._row_of[self._ids[rows]] = -1
            self._removed.append(rows)

    def _compact(self) -> None:
        """Drop the rows of the agents removed since the last call (:meth:`remove`), keeping the
        order of the others. Every read or change of the agents' state comes after it, but those
        :meth:`update` makes (a ``__del__`` removing agents there: the rows go when it ends)."""
        if not self._removed or self._updating:
            return
        rows = np.concatenate(self._removed)
        self._removed.clear()
        self._cancel(rows)  # (asked again in the update they were removed in)
        orders = np.unique(self._order[rows])
        keep = np.ones(len(self._pos), bool)
        keep[rows] = False
        new_row = np.full(len(keep), -1, np.int64)
        new_row[keep] = np.arange(int(keep.sum()))
        for name in self._ROW_STATE:
            setattr(self, name, getattr(self, name)[keep])
        self._row_of[self._ids] = np.arange(len(self._ids))

        def remap(d: dict[int, Any]) -> dict[int, Any]:
            return {int(new_row[i]): v for i, v in d.items() if new_row[i] >= 0}

        requests = remap(self._requests)
        self._requests.clear()
        self._requests.update(requests)
        self._backlog = remap(self._backlog)
        self._routes = remap(self._routes)
        self._forget_orders(orders)
        self._drop_unused_fields()
        self._sizes_changed()

    @property
    def ids(self) -> npt.NDArray[np.int64]:
        """``(n,)`` int64: the id of the agent in each row, read-only view."""
        self._compact()
        return frozen(self._ids)

    def rows(self, ids: npt.ArrayLike) -> npt.NDArray[np.int64]:
        """The rows (into :attr:`positions` etc.) of agents ``ids``, in the order given."""
        self._compact()
        return self._rows_now(ids)

    def _rows_now(self, ids: npt.ArrayLike) -> npt.NDArray[np.int64]:
        """:meth:`rows` in the state arrays as they are (rows of agents removed included until
        :meth:`_compact`)."""
        idx = np.asarray(ids)
        if idx.size == 0:
            return np.zeros(0, np.int64)
        if idx.dtype.kind not in "iu" or holds_bool(ids):  # ([True, 2] reads as the ints [1, 2])
            raise InvalidInputError(f"ids must be ints, got {shown(ids)}" if idx.dtype.kind in "iu" else
                                    f"ids must be ints, got dtype {idx.dtype}")
        idx = idx.reshape(-1)  # (its own dtype: a uint64 beyond int64 is not read as a negative id)
        known = (idx >= 0) & (idx < len(self._row_of))
        rows = np.full(len(idx), -1, np.int64)
        rows[known] = self._row_of[idx[known].astype(np.int64)]
        if (rows < 0).any():
            raise InvalidInputError(f"unknown agent ids {idx[rows < 0][:8].tolist()} (never added, or removed; "
                                    f"agents added during an update join at its end)")
        return rows

    @property
    def radii(self) -> npt.NDArray[np.float64]:
        """``(n,)`` float64 radius of each agent, world units, read-only view."""
        self._compact()
        return frozen(self._radii)

    @property
    def max_speeds(self) -> npt.NDArray[np.float64]:
        """``(n,)`` float64 max speed of each agent, world units per second, read-only view."""
        self._compact()
        return frozen(self._speeds)

    @property
    def avoidance(self) -> str:
        """``"orca"`` or ``"separation"`` (may be assigned)."""
        return self._avoidance

    @avoidance.setter
    def avoidance(self, value: str) -> None:
        if not isinstance(value, str) or value not in _AVOIDANCE:
            raise InvalidInputError(f"avoidance must be one of {', '.join(_AVOIDANCE)}, got {shown(value)}")
        self._avoidance = str(value)

    @property
    def reroute_seconds(self) -> float | None:
        """Group fields are re-planned around oncoming crowds about this often (seconds; None:
        never; may be assigned)."""
        return self._reroute_seconds

    @reroute_seconds.setter
    def reroute_seconds(self, value: float | None) -> None:
        self._reroute_seconds = None if value is None else positive_number(value, "reroute_seconds")

    @property
    def max_speed(self) -> float:
        """The default max_speed of :meth:`add` (the largest when one was given per agent; may be assigned)."""
        return self._max_speed

    @max_speed.setter
    def max_speed(self, value: float) -> None:
        self._max_speed = _bounded(value, "max_speed", _MAX_CELLS_PER_SECOND * self._grid._cell_size)

    @property
    def max_accel(self) -> float:
        """Separation: world units per second squared (may be assigned)."""
        return self._max_accel

    @max_accel.setter
    def max_accel(self, value: float) -> None:
        self._max_accel = _bounded(value, "max_accel", 8.0 * _MAX_CELLS_PER_SECOND * self._grid._cell_size)

    @property
    def neighbor_dist(self) -> float:
        """ORCA's neighbour distance (world units; the default follows the agents' sizes and speeds)."""
        if self._neighbor_dist is not None:
            return self._neighbor_dist
        r, v = (self._r_max, self._v_max) if len(self) else (self.radius, self.max_speed)
        return max(8.0 * r, v * self.time_horizon)

    @property
    def time_horizon_obst(self) -> float:
        """ORCA's time horizon for walls, seconds."""
        if self._time_horizon_obst is not None:
            return self._time_horizon_obst
        return 1.5 * self._grid._cell_size / (self._v_max if len(self) else self.max_speed)

    def _sizes_changed(self) -> None:
        """Agents came or went: their largest and mean radius and largest speed (the defaults'
        when there are none), the formation stride."""
        some = len(self._radii) > 0
        self._r_max = float(self._radii.max()) if some else self.radius
        with np.errstate(over="ignore"):  # (radii near 1e308 sum to inf: a disc the map's size where used)
            self._r_mean = float(self._radii.mean()) if some else self.radius
        self._v_max = float(self._speeds.max()) if some else self.max_speed
        gap = 2.5 * self._r_max if self._spacing is None else self._spacing
        # formation slots more than a map apart are pointless: the cap also keeps huge radii finite
        self._stride = max(1, math.ceil(min(gap / self._grid._cell_size, self._grid.width + self._grid.height) - 1e-9))

    # -- state ----------------------------------------------------------------------------
    def _routing_checked(self, world: Any, diagonal: Diagonal, options: dict[str, Any]) -> Any:
        """``world`` if paths can be searched on it with the movement rule ``diagonal`` and the path
        ``options``: raises now what every path request would raise later, inside an update (an
        unknown option or a bad value), and for a world that is neither the crowd's grid nor a
        NavMesh."""
        from gamenav.navmesh.mesh import NavMesh
        from gamenav.navmesh.search import check_search_options
        from gamenav.runtime._search import make_query

        grid = self._grid
        if isinstance(world, NavMesh):
            check_search_options(options)
        elif world is not grid:
            raise InvalidInputError(f"world must be the crowd's grid or a NavMesh, got {type(world).__name__}")
        else:
            first = int(np.argmax(grid.passable))  # (no copy of a big map's cells)
            if grid.passable.flat[first]:  # a request from a free cell to itself checks every option
                cell = (first % grid.width, first // grid.width)
                with contextlib.suppress(BlockedEndpointError):  # (a cell too narrow for an agent_radius given)
                    make_query(grid, cell, cell, dict(options, diagonal=diagonal.value))
        return world

    def __len__(self) -> int:
        self._compact()
        return int(self._pos.shape[0])

    @property
    def grid(self) -> TileGrid:
        return self._grid

    @property
    def positions(self) -> npt.NDArray[np.float64]:
        """``(n, 2)`` float64 world ``(x, y)``, read-only view."""
        self._catch_up()
        return frozen(self._pos)

    @property
    def velocities(self) -> npt.NDArray[np.float64]:
        """``(n, 2)`` float64 world units per second, read-only view."""
        self._catch_up()
        return frozen(self._vel)

    @property
    def goals(self) -> npt.NDArray[np.float64]:
        """``(n, 2)`` float64 world ``(x, y)`` of each agent's current goal, read-only view."""
        self._catch_up()
        return frozen(self._goal)

    @property
    def arrived(self) -> npt.NDArray[np.bool_]:
        """``(n,)`` bool: the agent reached its goal (or was never ordered), or stayed stuck
        within ``2 * s + 1`` cells of it (``s``: the slot spacing in whole cells) with others in
        its way, on a walk at most 2 steps longer than a straight one (not across a wall);
        read-only view."""
        self._catch_up()
        return frozen(self._arrived)

    @property
    def failed(self) -> npt.NDArray[np.bool_]:
        """``(n,)`` bool: the goal was unreachable, or the agent stayed stuck (walls held it up
        through 4 re-paths, or a jam through 8 re-paths in which it did not move a cell while
        no agent near it made headway); read-only view."""
        self._catch_up()
        return frozen(self._failed)

    @property
    def mode(self) -> npt.NDArray[np.int8]:
        """``(n,)`` int8 navigation mode: 0 idle, 1 path, 2 flow field, 3 direct approach."""
        self._catch_up()
        return frozen(self._mode)

    @property
    def flow_fields(self) -> list[npt.NDArray[np.float64]]:
        """Distance fields ``(h, w)`` float64 ``[y, x]`` of group orders still in progress, oldest first."""
        self._catch_up()
        return [frozen(field) for _, field in self._fields.values()]

    @property
    def pending(self) -> int:
        """Number of agents waiting for a path (request queued, or not yet sent)."""
        self._catch_up()
        return len(self._requests) + len(self._backlog)

    @property
    def queue(self) -> Any:
        """The PathQueue path requests go to (None: synchronous ``find_path``); assigning one
        moves the pending requests over."""
        return self._queue

    @queue.setter
    def queue(self, queue: Any) -> None:
        self._check_open("assign the queue of")
        _check_queue(queue)
        self._catch_up()
        waiting = np.array(sorted(self._requests), np.int64)
        self._cancel(waiting)
        self._queue = queue
        self._request(np.concatenate([waiting, np.array(list(self._backlog), np.int64)]))

    @property
    def world(self) -> Any:
        """What paths are searched on (the grid or a NavMesh); assigning re-paths path followers."""
        return self._world

    @world.setter
    def world(self, world: Any) -> None:
        self._check_open("assign the world of")
        self._catch_up()
        self._world = self._routing_checked(world, self._diagonal, self._path_options)
        self._follow_world()
        self._repath(np.flatnonzero((self._mode == PATH) | self._pending_mask()))

    def _follow_world(self) -> None:
        """Follow the edits of :attr:`world` when it is a NavMesh (weakly, as the grid's), not
        those of the world before it; steering walls are its obstacles' edges
        (:class:`~gamenav.runtime._obstacle_walls.ObstacleWalls`), and agents inside one move out
        (as after an edit, :meth:`_off_obstacles`)."""
        self._unfollow()
        self._unfollow = _nothing if self._world is self._grid else self._world.subscribe(self._on_change, weak=True)
        self._walls = ObstacleWalls(self._grid)
        if self._world is not self._grid and self._walls.sync(self._world.obstacles):
            self._push_out(*self._off_obstacles(np.zeros(0, np.int64), np.zeros((0, 2))))

    @property
    def diagonal(self) -> Diagonal:
        """The grid movement rule of path requests; may be assigned (a :class:`~gamenav.Diagonal`
        or its name: checked with :attr:`path_options` at once; later requests use it)."""
        return self._diagonal

    @diagonal.setter
    def diagonal(self, value: Diagonal | str) -> None:
        rule = Diagonal.parse(value)
        self._routing_checked(self._world, rule, self._path_options)
        self._diagonal = rule

    @property
    def path_options(self) -> Mapping[str, Any]:
        """Extra keyword options of each path request, read-only; may be assigned (a dict or None:
        checked on :attr:`world` at once; later requests use them)."""
        return MappingProxyType(self._path_options)  # (an edit in place would skip the check)

    @path_options.setter
    def path_options(self, value: Mapping[str, Any] | None) -> None:
        options = _path_options(value)
        self._routing_checked(self._world, self._diagonal, options)
        self._path_options = options

    def remaining_paths(self, agents: npt.ArrayLike) -> list[npt.NDArray[np.float64]]:
        """The route still ahead of each agent in ``agents`` (ids, in the order given).

        Returns:
            one ``(k, 2)`` float64 array of world points per agent: its position, the waypoints
            of its path (flow-field agents: the cells of the field's steepest descent), then its
            goal; just the position for idle agents.
        """
        self._catch_up()
        idx = self.rows(agents)
        traces: dict[int, _F64] = {}
        for gid, (_, field) in self._fields.items():
            members = np.unique(idx[(self._group[idx] == gid) & (self._mode[idx] == FIELD)])
            if len(members):
                traces.update(zip(members.tolist(), self._trace(field, members), strict=True))
        empty = np.zeros((0, 2))
        paths = []
        for i in idx.tolist():
            mode = self._mode[i]
            middle = self._waypoints(np.array([i]))[1] if mode == PATH else traces.get(i, empty)
            tail = self._goal[i:i + 1] if mode != IDLE else empty
            paths.append(np.concatenate([self._pos[i:i + 1], middle, tail]))
        return paths

    def remaining_path(self, agent: int) -> npt.NDArray[np.float64]:
        """``remaining_paths([agent])[0]``: the ``(k, 2)`` world route ahead of one agent."""
        return self.remaining_paths([_agent_id(agent)])[0]

    def path(self, agent: int) -> Path:
        """The path result ``agent`` follows (or last followed) for its current order.

        Returns:
            the :class:`~gamenav.Path` as the search returned it (``points`` is the whole
            route, from where it was requested; :meth:`remaining_path` is what lies ahead).
            While the order's first path is pending: an empty path with status IN_PROGRESS.
            Without a path to follow (never ordered, stopped, or descending a group's flow
            field): an empty path with status NO_PATH.
        """
        self._catch_up()
        i = int(self.rows([_agent_id(agent)])[0])
        route = self._routes.get(i)
        if route is not None:
            return route
        return _WAITING if i in self._requests or i in self._backlog else _NO_ROUTE

    def _trace(self, field: _F64, members: _Idx) -> list[_F64]:
        """World points of the field descent of each agent until it would switch to its slot,
        then of the way on to its slot's cell (:meth:`_way_to_slot`)."""
        passable, _ = self._grid._kernel_arrays()
        cells = self._cells(members)
        near = self._slot_cost[members] + 1.5 * self._stride
        going = np.flatnonzero(field[cells[:, 1], cells[:, 0]] > near)
        who: list[_I64] = []  # the agents (indices into members) that moved at each step, and where to
        where: list[_I64] = []
        while len(going):  # (each step lowers the field: at most one per cell)
            nxt = np.empty((len(going), 2), np.int64)
            descend_field(field, passable, cells[going], nxt)
            moved = (nxt != cells[going]).any(axis=1)
            going, nxt = going[moved], nxt[moved]
            cells[going] = nxt
            who.append(going)
            where.append(nxt)
            going = going[field[nxt[:, 1], nxt[:, 0]] > near[going]]
        agent = np.concatenate([np.zeros(0, np.int64), *who])
        steps = np.concatenate([np.zeros((0, 2), np.int64), *where])[np.argsort(agent, kind="stable")]
        ends = np.cumsum(np.bincount(agent, minlength=len(members)))[:-1]
        descents = np.split(self._grid.cell_to_world(steps).reshape(-1, 2), ends)
        goals = self._grid.world_to_cell(self._goal[members])
        return [np.concatenate([d, self._way_to_slot(passable, c, g)])
                for d, c, g in zip(descents, cells, goals, strict=True)]

    def _way_to_slot(self, passable: npt.NDArray[np.bool_], cell: _I64, goal: _I64) -> _F64:
        """World waypoints between ``cell``, where a field agent stops descending, and ``goal``,
        its slot's cell (both ends left out): none when the line between them is clear (it walks
        straight), else the line-of-sight waypoints of a grid path, as it then asks for a path
        round what is in the way (none either when there is no such path)."""
        h, w = passable.shape
        x, y = int(goal[0]), int(goal[1])
        if not (0 <= x < w and 0 <= y < h and passable[y, x]) or (x, y) == (int(cell[0]), int(cell[1])):
            return np.zeros((0, 2))
        import gamenav

        way = gamenav.find_path(self._grid, (int(cell[0]), int(cell[1])), (x, y), diagonal=self._diagonal,
                                smooth=True)
        return way.points[1:-1]

    # -- orders ---------------------------------------------------------------------------
    def move(self, agents: npt.ArrayLike, target: npt.ArrayLike, *, formation: bool = True) -> None:
        """Order ``agents`` (ids, or a bool mask over the rows) to ``target`` world ``(x, y)``.

        With ``formation`` the agents spread over the nearest free cells around the target
        (``spacing`` apart, on the target's island) instead of piling onto one point. Groups of
        ``flow_threshold`` or more agents on a grid world descend shared distance fields (one per
        size class, see the module docstring); smaller groups (and navmesh worlds) send one path
        request per agent. The same order given again (every frame, say) to the agents carrying it
        out changes nothing, but that those of a group pushed away from their goals since they
        arrived, and those that failed, walk to their goals again; nothing is planned again until
        the grid changes (or some of the agents were stopped: :meth:`stop` ends their order).
        """
        self._check_open("order")
        self._catch_up()
        point = finite_point(target, "target")
        formation = flag(formation, "formation")
        idx = self._indices(agents)
        if len(idx) == 0:
            return
        snap = self._grid._snapshot()  # cells chosen and fields planned on one state of the grid
        use_field = len(idx) >= self.flow_threshold and self._world is self._grid
        record = (float(point[0]), float(point[1]), formation, use_field, snap.version, self._stride)
        if self._carrying_out(idx, record):  # (given again every frame): it goes on, nothing planned again
            done = idx[self._arrived[idx]]
            back = np.concatenate([done[~self._near_goal(done)], idx[self._failed[idx]]])
            self._arrived[back] = False  # those pushed away from their goals since they arrived walk back,
            self._failed[back] = False  # those that gave up try again (as a player clicking again means)
            self._reset_stuck(back)
            self._request(back)
            return
        if not snap.passable.any():  # every cell blocked: there is nowhere to go
            for i in idx.tolist():
                self._routes.pop(i, None)
            self._arrived[idx] = False
            self._fail(idx)
            return
        tcell = self._snap_cell(self._grid.world_to_cell(point), snap.passable)
        count = len(idx) if formation else 1
        # slots (and a group's field) on the cells the group's largest unit fits
        radius = self._plan_radius(float(self._radii[idx].max()))
        if radius > 0.0:
            mask = _clearance_mask(self._grid, radius, snap)
            if mask.any():
                tcell = self._nearest_passable(tcell[None, :], point[None, :], mask)[0]
            else:
                radius = 0.0
        if use_field:
            field = self._planned(tcell, radius, snap)
            slots, slot_cost = self._slots(idx, field, tcell, count, True)
        elif count > 1:
            field, corner = self._slot_field(tcell, count, mask if radius > 0.0 else snap.passable, snap)
            slots, slot_cost = self._slots(idx, field, tcell, count, False, corner)
        else:  # one slot: the target's cell, the field's only 0 (no field of the map planned for it)
            slots, slot_cost = np.repeat(tcell[None, :], len(idx), axis=0), np.zeros(len(idx))
        goals = self._grid.cell_to_world(slots)
        px, py = self._grid.world_to_cell(point).tolist()
        if not formation and self._grid.in_bounds(px, py) and snap.passable[py, px]:
            goals = np.repeat(point[None, :], len(idx), axis=0)  # the exact point, not its cell centre
        announce_compile("crowd", *_KERNELS)  # (the first order may come before any update)
        self._keep_off_walls(goals.copy(), goals, self._radii[idx])  # as far from walls as agents keep
        if not use_field and self._following(idx, goals):
            number = self._one_order(idx)
            if number is not None:
                self._given[number] = record  # (given again, it is known at once)
            return  # the order they carry out already (given again every frame): their searches go on
        self._cancel(idx)
        for i in idx.tolist():
            self._routes.pop(i, None)
        self._goal[idx] = goals
        self._slot_cost[idx] = slot_cost
        self._orders += 1
        replaced = np.unique(self._order[idx])
        self._order[idx] = self._orders
        self._arrived[idx] = False
        self._failed[idx] = False
        self._reset_stuck(idx)
        self._group[idx] = -1
        if use_field:
            # one field per size class: small units are not held to the lanes the largest fits
            plan = np.array([self._plan_radius(float(r)) for r in self._radii[idx]]) if radius > 0.0 else \
                np.zeros(len(idx))
            planned: list[tuple[int, int, float]] = []
            for r in np.unique(plan).tolist():
                sub = idx[plan == r]
                sub_cell, sub_field = tcell, field
                if r != radius:
                    sub_cell = tcell
                    if r > 0.0:
                        mask = _clearance_mask(self._grid, r, snap)
                        sub_cell = self._nearest_passable(tcell[None, :], point[None, :], mask)[0]
                    sub_field = self._planned(sub_cell, r, snap)
                    self._slot_cost[sub] = sub_field[slots[plan == r][:, 1], slots[plan == r][:, 0]]
                gid = self._next_group
                self._next_group += 1
                self._fields[gid] = (sub_cell, sub_field)
                self._field_basis[gid] = (snap, (int(sub_cell[0]), int(sub_cell[1])), r, None)
                planned.append((int(sub_cell[0]), int(sub_cell[1]), r))
                self._field_age[gid] = 0.0
                self._fstack = None
                self._field_radius[gid] = r
                self._group[sub] = gid
                self._mode[sub] = FIELD
                unreachable = ~np.isfinite(_field_near(sub_field, self._cells(sub)))
                self._fail(sub[unreachable])
        else:
            self._mode[idx] = IDLE
            self._request(idx)
        self._drop_unused_fields()
        self._forget_orders(replaced)
        self._given[self._orders] = record
        if use_field:
            # planned fields kept: this order's (given again once arrived, it is planned alike) and the live groups'
            used = set(planned) | {(int(cell[0]), int(cell[1]), self._field_radius[gid])
                                   for gid, (cell, _) in self._fields.items()}
            self._plans = {key: plan for key, plan in self._plans.items() if key in used}

    def _planned(self, cell: _I64, radius: float, snap: _GridState) -> _F64:
        """The distance field of a group order to ``cell`` (x, y) for ``agent_radius`` ``radius`` on
        ``snap``: the one planned for an earlier group order on the same grid version, else planned now."""
        if self._plans_version != snap.version:
            self._plans, self._plans_version = {}, snap.version
        key = (int(cell[0]), int(cell[1]), radius)
        field = self._plans.get(key)
        if field is None:
            field = self._plans[key] = _distance_field(self._grid, cell[None, :], math.inf, radius, snapshot=snap)
            self.counters["flow_fields"] += 1
        return field

    def _carrying_out(self, idx: _Idx, record: tuple[float, float, bool, bool, int, int]) -> bool:
        """Whether the agents ``idx`` are all those of one order given as ``record`` (target x, y,
        formation, group order, grid version, slot stride) that they carry out: a group order
        while not all of them failed (those arrived included), a path order while every one is on
        its way (:meth:`_on_paths`)."""
        number = self._one_order(idx)
        if number is None or self._given.get(number) != record:
            return False
        return not self._failed[idx].all() if record[3] else self._on_paths(idx)

    def _forget_orders(self, numbers: _I64) -> None:
        """Forget the records of the orders ``numbers`` that no agent carries out any more (only the
        orders of the agents given another or removed: every order's record was swept, work quadratic
        in the orders given one agent at a time)."""
        for number in numbers[~np.isin(numbers, self._order)].tolist():
            self._given.pop(number, None)

    def _one_order(self, idx: _Idx) -> int | None:
        """The number of the order whose agents are exactly ``idx`` (None: there is none)."""
        number = int(self._order[idx[0]])
        if (self._order[idx] == number).all() and np.count_nonzero(self._order == number) == len(idx):
            return number
        return None

    def _following(self, idx: _Idx, goals: _F64) -> bool:
        """Whether every agent of ``idx`` is on its way (:meth:`_on_paths`) to its goal in ``goals`` (``(n, 2)``)."""
        return np.array_equal(self._goal[idx], goals) and self._on_paths(idx)

    def _on_paths(self, idx: _Idx) -> bool:
        """Whether every agent of ``idx`` is on its way on a path order: its path pending or
        followed (not arrived, failed or in a group)."""
        if (self._failed[idx] | self._arrived[idx]).any() or (self._group[idx] >= 0).any():
            return False
        return all(i in self._requests or i in self._backlog or i in self._routes for i in idx.tolist())

    def stop(self, agents: npt.ArrayLike) -> None:
        """Stop ``agents`` (ids, or a bool mask over the rows) where they stand (they count as arrived)."""
        self._check_open("order")
        self._catch_up()
        self._halt(self._indices(agents))

    def _halt(self, idx: _Idx) -> None:
        """:meth:`stop` of rows ``idx``."""
        self._cancel(idx)
        for i in idx.tolist():
            self._routes.pop(i, None)
        self._mode[idx] = IDLE
        self._group[idx] = -1
        self._goal[idx] = self._pos[idx]
        self._vel[idx] = 0.0  # (separation limits acceleration: a unit kept its speed and coasted on)
        self._arrived[idx] = True
        self._failed[idx] = False  # (a new order: a unit that had given up is no longer failed)
        for number in np.unique(self._order[idx]).tolist():  # their orders are not carried out as given
            self._given.pop(number, None)
        self._drop_unused_fields()

    def place(self, agents: npt.ArrayLike, positions: npt.ArrayLike) -> None:
        """Put ``agents`` (ids, in the order given, or a bool mask over the rows) at once at
        ``positions`` ((m, 2) world ``(x, y)``, one per agent, on passable cells as for
        :meth:`add`): a teleport, a knockback, a respawn. Their velocity becomes zero; agents
        placed on others separate as overlapping agents do.

        An agent on its way keeps its order from the new place: a path follower waits for a new
        path from there (its pending request is replaced, through the queue if there is one;
        the old route is never followed again), a group agent descends its flow field from
        there (or asks for a path when the field does not reach it). An agent with no order in
        progress (arrived, failed or never ordered) stands idle there as after :meth:`stop`:
        arrived, its goal the new place.

        A small move of an agent on its way is a push, as avoidance pushes agents (a game's
        physics resolving a collision, a knockback of a few pixels, rounding): at most half a
        cell, within its cell or into a neighbouring one with no wall between (a diagonal
        neighbour only past two free cells), and into the cell of its next waypoint (of its goal
        when it walks straight there) or one so beside it. Only its position changes: it keeps
        its route or field, a pending path request, its velocity and its progress for stuck
        detection, so a game nudging it every frame does not make it wait for a new path every
        frame.
        """
        self._check_open("place agents of")
        self._catch_up()
        rows = self._indices(agents) if np.asarray(agents).dtype == np.bool_ else self.rows(agents)
        if len(np.unique(rows)) != len(rows):
            raise InvalidInputError(f"each agent may be placed once, got {shown(agents)}")
        pos = _points(positions)
        if pos.shape != (len(rows), 2):
            raise InvalidInputError(f"positions must have shape ({len(rows)}, 2), one per agent, got {pos.shape}")
        _check_positions(self._grid, pos)
        if len(rows) == 0:
            return
        busy = ~self._arrived[rows] & ~self._failed[rows]
        pushed = busy & self._pushes(rows, pos)
        self._pos[rows[pushed]] = pos[pushed]
        rows, pos, busy = rows[~pushed], pos[~pushed], busy[~pushed]
        self._pos[rows] = pos
        self._vel[rows] = 0.0
        self._reset_stuck(rows)
        self._halt(rows[~busy])
        walking = rows[busy]
        grouped = walking[self._group[walking] >= 0]
        cut_off = np.zeros(len(grouped), bool)
        for gid in np.unique(self._group[grouped]).tolist():
            members = self._group[grouped] == gid
            cut_off[members] = ~np.isfinite(_field_near(self._fields[gid][1], self._cells(grouped[members])))
        self._mode[grouped] = FIELD  # (one near its slot walked straight to it: from here, down the field)
        ask = np.concatenate([walking[self._group[walking] < 0], grouped[cut_off]])
        for i in ask.tolist():
            self._routes.pop(i, None)
        self._mode[ask] = IDLE  # (waits for its new path)
        self._request(ask)

    def _reset_stuck(self, idx: _Idx) -> None:
        """Forget the stuck state of agents ``idx`` (a new order or place, a try again): their
        progress counts from where they stand, with no slow windows, re-paths or jams behind them."""
        self._snapshot[idx] = self._pos[idx]
        self._stuck_count[idx] = 0
        self._repaths[idx] = 0
        self._jams[idx] = 0
        self._jam_mark[idx] = np.nan
        self._jam_since[idx] = 0

    def _pushes(self, rows: _Idx, pos: _F64) -> npt.NDArray[np.bool_]:
        """Which agents of ``rows`` a move to ``pos`` (on passable cells) only pushes (see
        :meth:`place`): at most half a cell, into their cell or a neighbour with no wall between,
        and (so that the way on is straight and free) the cell of the next waypoint (walking
        straight to the goal: of the goal) or such a neighbour of it."""
        g = self._grid
        new = g.world_to_cell(pos)
        near = np.hypot(*(pos - self._pos[rows]).T) <= 0.5 * g._cell_size
        ahead = new.copy()
        direct = self._mode[rows] == DIRECT
        ahead[direct] = np.clip(g.world_to_cell(self._goal[rows[direct]]), 0, (g.width - 1, g.height - 1))
        follow = np.flatnonzero(self._mode[rows] == PATH)
        if len(follow):
            cells, _, owner = self._waypoints(rows[follow])
            agent, first = np.unique(owner, return_index=True)
            ahead[follow[agent]] = cells[first]
        passable = g.passable  # (one state of the grid for both tests)
        pushed: npt.NDArray[np.bool_] = near & _adjacent(passable, self._cells(rows), new) & \
            _adjacent(passable, ahead, new)
        return pushed

    # -- per frame ------------------------------------------------------------------------
    def update(self, dt: float) -> None:
        """Advance every agent by ``dt`` seconds (call after ``queue.update()``).

        A long ``dt`` (a hitch) or a fast agent is simulated in equal sub-steps in which no agent
        moves more than half a cell, so agents keep to their paths' turns: at most
        :data:`MAX_SUBSTEPS` of them. A hitch longer than that (the fastest agent could cross
        more than ``MAX_SUBSTEPS`` half cells) and than a second is cut to that length, as game
        engines cap their frame time: the rest of it is not simulated. Called from code an update
        runs (a ``__del__``), it does nothing: that update moves the agents.
        """
        self._check_open("update")
        if type(dt) is not float and not is_real(dt) or \
                not 0 <= dt <= sys.float_info.max:  # (no float(): an int beyond float64 would overflow)
            raise InvalidInputError(f"dt must be a finite number >= 0, got {shown(dt)}")
        dt = float(dt)  # kernels take float64 (a Python int beyond int64 would not convert)
        if self._updating:  # (from code an update runs, a ``__del__``: that update moves the agents)
            return
        self._compact()
        self._inbox.claim()
        if dt == 0 or len(self) == 0:
            return
        self._updating = True  # (agents added or removed from code it runs join or leave at its end)
        try:
            self._advance(dt)
        finally:
            self._updating = False
            for fresh in self._joining:
                self._append(fresh)
            self._joining.clear()

    def _advance(self, dt: float) -> None:
        """The work of :meth:`update` (``dt`` > 0 seconds) on the agents as they are."""
        announce_compile("crowd", *_KERNELS)
        self._collect_paths()
        self._sent = 0
        self._flush()
        self.avoidance_ms = 0.0
        self._rerouted = False  # (one congestion re-plan per update, not per sub-step)
        reach = (1.5 if self.avoidance == "separation" else 1.0) * self._v_max  # (separation: up to 1.5 x)
        # longer sub-steps overshoot their paths' turns, and ORCA's wall horizon (at least a
        # sub-step) froze agents: a minute's hitch left them where they stood, or further away.
        # (Not below a second: a frame of very fast agents runs whole, in longer sub-steps.)
        if reach > 0:
            dt = min(dt, max(MAX_SUBSTEPS * self._grid._cell_size / (2.0 * reach), _UNCUT_SECONDS))
        half_cells = 2.0 * reach * dt / self._grid._cell_size
        steps = min(max(1, math.ceil(half_cells)), MAX_SUBSTEPS)
        for _ in range(steps):
            self._step(dt / steps)
        self._detect_stuck(dt)  # (progress is judged per update)

    def _step(self, dt: float) -> None:
        """One sub-step of :meth:`update`: steer, avoid, move ``dt`` seconds."""
        target = self._pos.copy()
        self._follow_paths(target)
        self._descend_fields(target)
        heading = self._heading = np.empty_like(self._pos)
        desired = np.empty_like(self._pos)
        self._want = np.empty(len(self))
        arrive = preferred_velocities(self._pos, self._goal, target, self._mode, self._speeds, IDLE, DIRECT,
                                      self.arrive_radius, 1.5 * self._grid._cell_size, _MIN_ARRIVAL_SPEED, dt,
                                      self.max_accel if self.avoidance == "separation" else math.inf,
                                      heading, self._want, desired)
        if arrive.any():
            self._arrive(np.flatnonzero(arrive))
        self._reroute(heading, dt)
        if self.avoidance == "orca":
            self._avoid(desired, dt, self._wait_at_passages(desired, dt))
            return

        t0 = time.perf_counter()
        moving = self._mode != IDLE
        separation(self._pos, heading * moving[:, None], self._r_max, self._sep, self._flow)
        push = self._sep
        # counter-flow: keep to the right of the heading when the neighbours come the other way
        oncoming = np.einsum("ij,ij->i", self._flow, heading) < -0.3
        right = np.stack([heading[:, 1], -heading[:, 0]], axis=1)
        desired += right * (0.6 * self._speeds * (oncoming & moving))[:, None]
        desired += push * (1.5 * self._speeds)[:, None]

        change = desired - self._vel
        mag = np.hypot(change[:, 0], change[:, 1])
        limit = self.max_accel * dt
        self._vel += change * _shrink(mag, limit)[:, None]
        vmag = np.hypot(self._vel[:, 0], self._vel[:, 1])
        cap = 1.5 * self._speeds
        self._vel *= _shrink(vmag, cap)[:, None]
        prev = self._pos.copy()
        self._pos += self._vel * dt
        self._keep_off_walls(prev, self._pos)
        self._vel = _moved_velocity(self._pos - prev, dt, cap)
        self.avoidance_ms += (time.perf_counter() - t0) * 1e3

    def _avoid(self, desired: _F64, dt: float, wait: npt.NDArray[np.bool_]) -> None:
        """ORCA velocities for the preferred ``desired`` (n, 2), the move, then overlaps resolved:
        one kernel call (:func:`crowd_step`)."""
        t0 = time.perf_counter()
        g = self._grid
        ox, oy = g._origin
        passable, _ = g._kernel_arrays()
        cap = self._radius_cap()
        neighbor_dist = min(self.neighbor_dist, cap + 2 * min(self._r_max, cap))
        # cells about as wide as a typical disc and its move: the rings stop at the k-th neighbour
        hcell = min(max(2.0 * min(self._r_mean, cap) + self._v_max * dt, 1e-9 * g._cell_size), neighbor_dist)
        # who gives way: idle agents to moving ones, which do not avoid them (they shove them
        # aside); moving agents share equally, as RVO2, but in head-on jams the older order
        # goes first (see crowd_step)
        yielded = np.empty(len(self), np.int64)
        new_vel = np.empty_like(self._vel)
        neighbours = min(self.max_neighbors, len(self) - 1)  # (no agent has more: a huge max allocates nothing)
        moving = self._mode != IDLE
        # an idle agent steps aside at most half a cell per sub-step, as in any update of fewer than
        # MAX_SUBSTEPS sub-steps (at full speed, arrived agents of 20000 cells/s dodged 20 cells off)
        speeds = np.where(moving, self._speeds, np.minimum(self._speeds, 0.5 * g._cell_size / dt))
        infeasible, stuck = crowd_step(
            self._pos, self._vel, desired, self._radii, cap, speeds, moving, self._order, self._goal,
            _IDLE_MASS, self.keep_right, hcell, neighbor_dist, neighbours, self.time_horizon,
            min(max(self.time_horizon_obst, dt), 1e9), dt, passable, self._blocked_table(passable), self._walls.table,
            ox, oy, g._cell_size, g._y_up, _OVERLAP_ITERATIONS, _OVERLAP_TOLERANCE, new_vel, self._yielded, yielded,
            wait, self._sep)
        self._yielded = yielded
        if len(self._walls.table[0]):  # (a centre the kernel left in an obstacle: its way out off the map or walled)
            rows, to = self._off_obstacles(np.zeros(0, np.int64), np.zeros((0, 2)))
            self._pos[rows] = to
        self.counters["infeasible"] += infeasible
        self.counters["wall_overlaps"] += stuck
        self.avoidance_ms += (time.perf_counter() - t0) * 1e3

    def _wait_at_passages(self, desired: _F64, dt: float) -> npt.NDArray[np.bool_]:
        """One-way passages (too narrow for two of the crowd's largest agents side by side): which
        agents (n,) are at a mouth while the agents inside, or an older order at the other mouth,
        come the other way; they wait (standing aside, giving way to those coming out), so that
        opposing crossings take turns."""
        g = self._grid
        passable, _ = g._kernel_arrays()
        r_max = min(self._r_max, self._radius_cap())
        width = max(math.ceil(4.0 * r_max / g._cell_size - 1e-9) - 1, 0)
        if self._passages is None or self._passages[0] is not passable or self._passages[1] != width:
            labels, count = narrow_passages(passable, width)
            self._passages = (passable, width, labels, int(count), np.zeros((max(int(count), 1), 4)))
        _, _, labels, count, claims = self._passages
        if count == 0:  # no narrow passage on the map
            return np.zeros(len(self), bool)
        wait = np.empty(len(self), bool)
        ox, oy = g._origin
        look = _MOUTH * g._cell_size + 2.0 * r_max
        reach = math.ceil(look / g._cell_size) + 1
        if self._near is None or self._near[0] is not labels or self._near[1] != reach:
            self._near = (labels, reach, _dilate(labels >= 0, reach))
        passage_waits(self._pos, desired, self._order, labels, count, self._near[2], look, ox, oy, g._cell_size,
                      g._y_up, claims, _HOLD, dt, wait)
        self._want[wait] = 0.0  # (waiting is not being stuck)
        return wait

    def _radius_cap(self) -> float:
        """The largest radius the steering computes with: a disc bigger than the map behaves as one
        the map's size (keeps the numbers finite)."""
        return (self._grid.width + self._grid.height + 2) * self._grid._cell_size

    def _blocked_table(self, passable: npt.NDArray[np.bool_]) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
        """The summed-area tables of blocked cells (:func:`blocked_table`), kept per grid snapshot."""
        if self._sat is None or self._sat[0] is not passable:
            self._sat = (passable, blocked_table(passable, self._grid._y_up))
        return self._sat[1]

    # -- internals ------------------------------------------------------------------------
    def _keep_off_walls(self, prev: _F64, pos: _F64, radii: _F64 | None = None) -> None:
        """Keep ``pos`` (m, 2) off walls, in place: wall sliding (:func:`resolve_walls`), then
        (ORCA) discs of ``radii`` (m,) pushed out of blocked cells and navmesh obstacles, or
        (separation) margins off both."""
        g = self._grid
        ox, oy = g._origin
        passable, _ = g._kernel_arrays()
        if self.avoidance == "orca" and radii is not None:
            resolve_walls(prev, pos, passable, ox, oy, g._cell_size, g._y_up, 0.0)
            self._discs_off_walls(pos, radii)
            return
        r = float(self._radii.min()) if len(self._radii) else self.radius
        margin = min(r, 0.45 * g._cell_size)
        resolve_walls(prev, pos, passable, ox, oy, g._cell_size, g._y_up, margin)
        if len(self._walls.table[0]):
            self._discs_off_walls(pos, np.full(len(pos), margin))

    def _discs_off_walls(self, pos: _F64, radii: _F64) -> int:
        """:func:`discs_off_walls` for discs at ``pos`` (m, 2, moved in place) of ``radii`` (m,):
        off the grid's blocked cells and the navmesh world's obstacles; returns how many still
        overlap one."""
        g = self._grid
        passable, _ = g._kernel_arrays()
        return int(discs_off_walls(pos, np.minimum(radii, self._radius_cap()), passable, self._blocked_table(passable),
                                   self._walls.table, g._origin[0], g._origin[1], g._cell_size, g._y_up))

    def _indices(self, agents: npt.ArrayLike) -> _Idx:
        idx = np.asarray(agents)
        if idx.dtype == np.bool_:  # (over the rows of the agents left: those removed are dropped first)
            if idx.shape != (len(self),):
                raise InvalidInputError(f"agent mask must have shape ({len(self)},), got {idx.shape}")
            return np.flatnonzero(idx)
        if idx.size == 0:
            return np.zeros(0, dtype=np.int64)
        if idx.dtype.kind not in "iu" or holds_bool(agents):  # ([True, 2] reads as the ints [1, 2])
            got = repr(agents) if idx.dtype.kind in "iu" else f"dtype {idx.dtype}"
            raise InvalidInputError(f"agents must be agent ids (ints; the agent indices until one is removed) "
                                    f"or a bool mask, got {got}")
        unique: _I64 = np.unique(self._rows_now(idx))
        return unique

    def _cells(self, idx: _Idx | slice = slice(None)) -> _I64:
        cells = self._grid.world_to_cell(self._pos[idx])
        np.clip(cells, 0, (self._grid.width - 1, self._grid.height - 1), out=cells)
        return cells

    def _pending_mask(self) -> npt.NDArray[np.bool_]:
        mask = np.zeros(len(self), bool)
        mask[list(self._requests)] = True
        mask[list(self._backlog)] = True
        return mask

    def _snap_cell(self, cell: _I64, passable: npt.NDArray[np.bool_] | None = None) -> _I64:
        """The passable cell (of ``passable`` [y, x], default the grid's) nearest to ``cell``
        (x, y) (the cell itself when passable)."""
        g = self._grid
        x, y = int(cell[0]), int(cell[1])
        if 0 <= x < g.width and 0 <= y < g.height and (g.passable if passable is None else passable)[y, x]:
            return np.array([x, y], np.int64)  # (no ring search: each group's re-plan after an edit)
        nearest: _I64 = self._nearest_passable(cell[None, :], g.cell_to_world(cell)[None, :], passable)[0]
        return nearest

    def _nearest_passable(self, cells: _I64, points: _F64, passable: npt.NDArray[np.bool_] | None = None) -> _I64:
        """For each cell (m, 2), the passable cell (of ``passable`` [y, x], default the grid's)
        whose centre is nearest to the matching point (the cell itself when none is)."""
        g = self._grid
        passable = g.passable if passable is None else passable
        out = np.array(cells, np.int64)
        cells = np.clip(cells, 0, (g.width - 1, g.height - 1))
        most = max(g.width, g.height)
        for k in range(len(out)):
            for r in _widening(most):
                found = self._nearest_within(passable, cells[k], r, points[k])
                if found is not None:
                    # a cell r' rings out is at least r' - 1/2 cells from the point, so one nearer than
                    # the one found (a ring's corner is farther than the next ring's side) lies within
                    reach = int(min(4.0 * found[1] / g._cell_size + 0.5, most))
                    nearer = self._nearest_within(passable, cells[k], reach, points[k])
                    out[k] = nearer[0] if nearer is not None and nearer[1] < found[1] else found[0]
                    break
        return out

    def _nearest_within(self, passable: npt.NDArray[np.bool_], cell: _I64, r: int, point: _F64
                        ) -> tuple[_I64, float] | None:
        """The cell of ``passable`` at most ``r`` cells from ``cell`` on each axis whose centre is
        nearest to ``point``, with that distance quartered; None when there is none."""
        g = self._grid
        x, y = cell
        y0, y1, x0, x1 = max(y - r, 0), min(y + r + 1, g.height), max(x - r, 0), min(x + r + 1, g.width)
        ys, xs = np.nonzero(passable[y0:y1, x0:x1])
        if not len(xs):
            return None
        cand = np.stack([xs + x0, ys + y0], axis=1)
        # quartered (exactly), so that no difference or distance of finite points overflows
        d = np.hypot(*(0.25 * g.cell_to_world(cand) - 0.25 * point).T)
        best = int(np.argmin(d))
        return cand[best], float(d[best])

    def _plan_radius(self, radius: float) -> float:
        """The ``agent_radius`` grid paths are planned for (0: the plain passable cells)."""
        cs = self._grid._cell_size
        if radius <= 0.5 * cs or not _radius_paths():
            return 0.0
        return min(radius, _max_radius_cells() * cs)

    def _slot_budget(self, count: int) -> float:
        return (math.sqrt(count) * self._stride + 4.0) * 2.0

    def _slot_field(self, tcell: _I64, count: int, passable: npt.NDArray[np.bool_], snap: _GridState
                    ) -> tuple[_F64, _I64]:
        """The distance field from ``tcell`` (x, y) over the cells ``passable`` [y, x] (those the
        group fits) of ``snap`` within the slot budget of ``count`` agents, and the corner cell
        (x, y) of the window it covers: the cells a walk of that budget reaches (each step costs at
        least 1), not the whole map (a field of a 1024 x 1024 map took 25 ms per formation order)."""
        budget = self._slot_budget(count)
        k = int(min(budget, self._grid.width + self._grid.height))
        (x, y), (h, w) = tcell.tolist(), self._grid.shape
        y0, y1, x0, x1 = max(y - k, 0), min(y + k + 1, h), max(x - k, 0), min(x + k + 1, w)
        window = TileGrid(passable[y0:y1, x0:x1], cost=snap.cost[y0:y1, x0:x1])
        corner = np.array([x0, y0], np.int64)
        return _distance_field(window, (tcell - corner)[None, :], budget), corner

    def _slots(self, idx: _Idx, field: _F64, tcell: _I64, count: int, grouped: bool,
               corner: _I64 | None = None) -> tuple[_I64, _F64]:
        """The goal cells of agents ``idx`` ordered to ``tcell``: :meth:`_pick_slots` of ``field`` (a
        group order's when ``grouped``; its cell [0, 0] is ``corner`` (x, y), default the grid's
        first) shared out by :meth:`_assign`, and their values in ``field``."""
        corner = np.zeros(2, np.int64) if corner is None else corner
        slots = np.resize(self._pick_slots(field, tcell - corner, count) + corner, (len(idx), 2))
        slots = slots[self._assign(idx, slots, tcell, field if grouped else None)]
        return slots, field[slots[:, 1] - corner[1], slots[:, 0] - corner[0]]

    def _pick_slots(self, field: _F64, tcell: _I64, count: int) -> _I64:
        """The ``count`` reachable cells nearest to ``tcell`` on a lattice of ``stride`` cells."""
        ys, xs = np.nonzero(np.isfinite(field))
        s = self._stride
        lattice = ((xs - tcell[0]) % s == 0) & ((ys - tcell[1]) % s == 0)
        if lattice.any():
            xs, ys = xs[lattice], ys[lattice]
        order = np.lexsort((np.hypot(xs - tcell[0], ys - tcell[1]), field[ys, xs]))[:count]
        slots: _I64 = np.stack([xs[order], ys[order]], axis=1).astype(np.int64)
        return slots

    def _assign(self, idx: _Idx, slots: _I64, tcell: _I64, field: _F64 | None) -> _I64:
        """A permutation of ``slots`` for ``idx``: nearer agents take inner slots, matched by angle per ring."""
        centre = self._grid.cell_to_world(tcell)
        rel = self._pos[idx] - centre
        if field is not None:
            here = self._cells(idx)
            d_agent = _field_near(field, here)
        else:
            d_agent = np.hypot(rel[:, 0], rel[:, 1])
        agent_order = np.argsort(d_agent, kind="stable")
        slot_rel = self._grid.cell_to_world(slots) - centre
        ring = max(8, int(2 * math.sqrt(len(idx))))
        result = np.empty(len(idx), np.int64)
        for start in range(0, len(idx), ring):
            a = agent_order[start:start + ring]
            s = np.arange(start, min(start + ring, len(idx)))
            a_sorted = a[np.argsort(np.arctan2(rel[a, 1], rel[a, 0]), kind="stable")]
            s_sorted = s[np.argsort(np.arctan2(slot_rel[s, 1], slot_rel[s, 0]), kind="stable")]
            result[a_sorted] = s_sorted
        return result

    def _cancel(self, idx: _Idx) -> None:
        for i in idx.tolist():
            self._backlog.pop(i, None)
            req = self._requests.pop(i, None)
            if req is not None:
                req.cancel()

    def _request(self, idx: _Idx) -> None:
        """Path requests from each agent's position to its goal: at once without a queue, else
        through the backlog (at most ``requests_per_update`` sent per update; none while the
        queue is closed: a grid edit's listener must not raise)."""
        if len(idx) == 0:
            return
        self._cancel(idx)
        self._backlog.update(dict.fromkeys(idx.tolist()))  # (each taken off once sent: one refused stays)
        if self._queue is None:
            self._send(idx)
        elif getattr(self._queue, "closed", False) is not True:  # (closed: they wait for an open one)
            self._flush()

    def _flush(self) -> None:
        room = min(self.requests_per_update - self._sent, len(self._backlog))  # (any int: islice takes <= maxsize)
        if room <= 0:
            return
        take = list(itertools.islice(self._backlog, room))
        self._sent += len(take)
        self._send(np.array(take, np.int64))  # (takes them off the backlog as they are sent)

    def _send(self, idx: _Idx) -> None:
        """Send one request per agent (grid: cells, navmesh: points snapped onto the mesh)."""
        on_grid = self._world is self._grid
        starts: _I64 | _F64
        goals: _I64 | _F64
        if on_grid:
            starts = self._cells(idx)
            goals = self._grid.world_to_cell(self._goal[idx])
        else:
            starts, goals = self._mesh_ends(idx)
        self.counters["path_requests"] += len(idx)
        for k, i in enumerate(idx.tolist()):
            retry = False
            opts = dict(self._path_options, diagonal=self._diagonal.value) if on_grid else self._path_options
            if on_grid:
                r = self._plan_radius(float(self._radii[i]))
                if r > 0.0:  # a path for the agent's size: start and goal snap onto the cells it fits
                    opts["agent_radius"] = r
                    mask = _clearance_mask(self._grid, r)
                    ends = np.stack([starts[k], goals[k]])
                    inside = ((ends >= 0) & (ends < (self._grid.width, self._grid.height))).all(axis=1)
                    usable = inside.copy()
                    usable[inside] = mask[ends[inside, 1], ends[inside, 0]]
                    if not usable.all():  # snap onto the nearest cell it fits, if that is close
                        points = np.stack([self._pos[i], self._goal[i]])
                        snapped = self._nearest_passable(ends[~usable], points[~usable], mask)
                        if np.abs(snapped - ends[~usable]).max() <= 2:
                            ends[~usable] = snapped
                            starts[k], goals[k] = ends
                        else:  # no room for its size around here: plan as a point
                            del opts["agent_radius"]
            start = tuple(int(v) for v in starts[k]) if on_grid else tuple(float(v) for v in starts[k])
            goal = tuple(int(v) for v in goals[k]) if on_grid else tuple(float(v) for v in goals[k])
            for attempt in (opts, {k: v for k, v in opts.items() if k != "agent_radius"}):
                try:
                    if self._queue is None:
                        import gamenav

                        self._install(i, gamenav.find_path(self._world, start, goal, **attempt))
                    else:
                        self._requests[i] = self._queue.request(self._world, start, goal, **attempt)
                    break
                except BlockedEndpointError:  # e.g. a goal outside the navmesh: not reachable
                    if "agent_radius" not in attempt:  # (no cell fits the agent: plan as a point)
                        if self._grid.version != self._seen:  # walled in by an edit not acted on yet
                            retry = True  # asked again once it is (goals moved off walls)
                            self._backlog[i] = None
                        else:
                            self._fail(np.array([i]))
                        break
            if not retry:  # sent (or failed); an error raised above (a closed queue) leaves it waiting
                self._backlog.pop(i, None)

    def _mesh_ends(self, idx: _Idx) -> tuple[_F64, _F64]:
        """The starts and goals (m, 2) of path requests for agents ``idx`` on the navmesh world:
        snapped onto it (a mesh shrunk by the agent radius), and off its pinch points (an end there
        is ambiguous: no path), the start into the triangle the agent came from (against its
        velocity; standing still: one on its goal's island, facing it), the goal into one on the
        start's island, facing it."""
        starts, goals = self._pos[idx], self._goal[idx]
        snap = getattr(self._world, "nearest", None)
        if snap is not None:
            starts, goals = snap(starts), snap(goals)
        state = self._world._snapshot()  # (one state of an edited mesh)
        on = _pinch_under(state, np.concatenate([starts, goals]))  # (one look-up for both)
        if on.max(initial=-1) < 0:  # (the common case: no end there)
            return starts, goals
        on_start, on_goal = on[:len(idx)], on[len(idx):]
        moving = (self._vel[idx] != 0).any(axis=1)
        came = np.where(moving[:, None], -self._vel[idx], goals - starts)
        starts = _off_pinches(state, starts, on_start, came, np.where(moving, -1, _islands(state, goals)))
        return starts, _off_pinches(state, goals, on_goal, starts - goals, _islands(state, starts))

    def _collect_paths(self) -> None:
        done = [(i, req) for i, req in self._requests.items() if req.status.done]
        for i, req in done:
            del self._requests[i]
            if req.status is PathStatus.STALE:
                self._request(np.array([i]))
            elif req.status is PathStatus.CANCELLED:  # by someone else (cancel_all, close): ask again
                self._backlog[i] = None  # (sent at the next update; the crowd drops its own first)
            else:
                self._install(i, req.path)

    def _install(self, i: int, path: Path) -> None:
        """Make ``path`` agent ``i``'s route (or fail the agent when there is none)."""
        self._routes[i] = path
        if not path.status.has_path:
            self._fail(np.array([i]))
            return
        short = path.status is PathStatus.PARTIAL  # (the goal becomes the path's end)
        if len(path.cells):
            corners = np.asarray(path.cells, np.int64)
            seg = _straight_runs(corners)
            aim = self._grid.cell_to_world(corners)
        else:  # a navmesh path: one waypoint per point (off the walls, :meth:`_off_walls`); to a goal off
            # the mesh, its nearest point
            points = np.asarray(path.points, np.float64)
            aim = self._off_walls(points, float(self._radii[i]))
            seg = np.zeros((max(len(aim) - 1, 0), 5), np.int64)
            seg[:, :2] = self._grid.world_to_cell(aim[1:]) if len(seg) else 0
            seg[:, 4] = 1
            short |= self._world is not self._grid and bool(self._world.locate(self._goal[i:i + 1])[0] < 0)
            short |= bool((aim[-1:] != points[-1:]).any())  # (a goal its disc does not fit: where it does)
        if short:
            self._goal[i] = aim[-1]
        aim = aim[1:]  # (the first point is where the agent stands)
        self._compact_paths()
        start = self._plen
        end = start + len(seg)
        if end > len(self._pseg):  # grow the buffer (amortised O(1) per row)
            size = max(end, 2 * len(self._pseg), 256)
            pseg, paim = np.zeros((size, 5), np.int64), np.zeros((size, 2), np.float64)
            pseg[:start], paim[:start] = self._pseg[:start], self._paim[:start]
            self._pseg, self._paim = pseg, paim
        self._pseg[start:end] = seg
        self._paim[start:end] = aim
        self._plen = end
        self._pcur[i], self._pk[i], self._pend[i] = start, 1, end
        self._group[i] = -1
        self._mode[i] = PATH if len(seg) else DIRECT
        self._drop_unused_fields()

    def _off_walls(self, points: _F64, radius: float) -> _F64:
        """Navmesh path ``points`` (k, 2) moved off the walls of the steering (the grid's blocked
        cells, the navmesh world's obstacles) as far as a disc of ``radius`` there fits: each corner
        the path turns at radially off the wall corner it rounds (on the outer side of the turn),
        the ends only by a navmesh obstacle. The mesh is not shrunk by the radius:
        on a corner itself an agent cannot stand, and one at a corner heading along the next wall
        was wedged against it. A corner whose disc fits nowhere near (a gap narrower than the
        agent) stays as found: moved off one side, agents squeezing through were wedged."""
        g = self._grid
        r = min(radius, self._radius_cap())
        out: _F64 = points.copy()
        out[1:-1] += _outward(points) * (1e-6 * g._cell_size)  # (off the corner: pushed from it, not by a side)
        fits = np.array([self._discs_off_walls(out[k:k + 1], np.full(1, r)) == 0 for k in range(len(out))], bool)
        move = np.zeros(len(out), bool)
        move[1:-1] = fits[1:-1]
        move |= self._walls.near(points, r)
        moved: _F64 = np.where(move[:, None], out, points)
        return moved

    def _compact_paths(self) -> None:
        """Drop buffer rows no agent uses any more once they outnumber the live ones."""
        live = np.where(self._mode == PATH, self._pend - self._pcur, 0)
        if self._plen < 4096 or self._plen < 3 * live.sum():
            return
        keep = np.flatnonzero(live)
        offsets = np.cumsum(live[keep]) - live[keep]
        rows = np.repeat(self._pcur[keep] - offsets, live[keep]) + np.arange(int(live[keep].sum()))
        self._pseg, self._paim = self._pseg[rows], self._paim[rows]
        self._plen = len(rows)
        self._pcur[:] = self._pend[:] = 0
        self._pcur[keep] = offsets
        self._pend[keep] = offsets + live[keep]

    def _waypoints(self, agents: _Idx) -> tuple[_I64, _F64, _I64]:
        """The waypoints still ahead of path followers ``agents``: ``(cells (m, 2), world points
        (m, 2), the index in agents of each waypoint's agent (m,))``."""
        count = self._pend[agents] - self._pcur[agents]
        cells, row, k, owner = _run_waypoints(self._pseg, self._pcur[agents], self._pk[agents], count)
        ends = k == self._pseg[row, 4]
        points = np.where(ends[:, None], self._paim[row], self._grid.cell_to_world(cells))
        return cells, points, owner

    def _follow_paths(self, target: _F64) -> None:
        """Steer each path agent to its next waypoint. Avoidance pushes agents off their lines, so
        a waypoint need not be reached: the agent skips to the nearest of the next few on a grid
        world (:data:`_LOOK_AHEAD`: it may have been pushed ahead; on a navmesh world only to the
        next corner) and past every one it has passed (beyond the waypoint along the path) or come
        near, on a navmesh world only as far as it sees (:meth:`_in_sight`); going back to a cell
        centre it was pushed away from would jam crowds."""
        if not self._plen:
            return
        g = self._grid
        reach = 0.6 * g._cell_size
        if self._world is g:
            self._take_waypoints(_LOOK_AHEAD, reach, target)
            return
        before, mode = self._pcur.copy(), self._mode.copy()
        self._take_waypoints(1, reach, target)
        moved = np.flatnonzero((self._pcur != before) | (self._mode != mode))  # (path followers only)
        if len(moved):
            self._in_sight(moved, before[moved], reach, target)

    def _take_waypoints(self, look_ahead: int, reach: float, target: _F64) -> None:
        """:func:`follow_paths` of every path agent (``look_ahead`` waypoints, ``reach`` world units)."""
        g = self._grid
        follow_paths(self._pos, self._mode, self._pcur, self._pk, self._pend, self._pseg, self._paim, g._origin[0],
                     g._origin[1], g._cell_size, g._y_up, g.height, look_ahead, reach, PATH, DIRECT, target)

    def _in_sight(self, idx: _I64, before: _I64, reach: float, target: _F64) -> None:
        """Navmesh path followers ``idx`` that :func:`follow_paths` moved on from waypoint ``before``
        (their run numbers before; one waypoint a run) move on only to waypoints each one sees in
        turn (the mesh's raycast from where it stands, or from the nearest point of the mesh), or
        to the next one when within ``reach`` of its waypoint (as on a grid); their aims in
        ``target`` (n, 2). Come near a corner, an agent has often passed the next one along the leg
        after it, though that one lies round the end of a wall it has not rounded yet (it walked
        into the wall)."""
        state = self._world._snapshot()
        at, tri = state.clamp(self._pos[idx])  # (from the nearest point of the mesh for one off it)
        for i, s, t, (x, y) in zip(idx.tolist(), before.tolist(), tri.tolist(), at.tolist(), strict=True):
            last = int(self._pcur[i] if self._mode[i] == PATH else self._pend[i] - 1)  # (past the last: done)
            if math.hypot(x - self._paim[s, 0], y - self._paim[s, 1]) < reach:
                s = min(s + 1, last)  # (come near its waypoint: on to the next one, as on a grid)
            while s < last and t >= 0 and raycast_walk(state._vertices, state._triangles, state._neighbours, t, x, y,
                                                       self._paim[s + 1, 0], self._paim[s + 1, 1], state._tol) >= 1.0:
                s += 1
            if s < last:
                self._mode[i], self._pcur[i], self._pk[i] = PATH, s, 1
                target[i] = self._paim[s]

    def _descend_fields(self, target: _F64) -> None:
        """Steer each field agent down its group's field; one near its slot goes straight there
        when nothing stands in the way (:func:`field_targets`), else it asks for a path there."""
        if not self._fields or not (self._mode == FIELD).any():  # (no group descends a field)
            return
        passable, _ = self._grid._kernel_arrays()
        _, fields, near_min, ahead, sight, _, slot = self._stacked_fields(passable)
        g = self._grid
        blind = np.zeros(len(self), bool)
        # aim a few cells down the field, not at the next cell centre: agents pushed aside keep
        # their lanes and do not all converge on the cells' centre lines (separation: re-aimed below)
        field_targets(fields, near_min, ahead, sight, slot, self._group, passable, self._pos, self._goal,
                      self._slot_cost, 1.5 * self._stride, g._origin[0], g._origin[1], g._cell_size, g._y_up,
                      _FIELD_LOOK_AHEAD, self._mode, FIELD, DIRECT, target, blind)
        self._request(np.flatnonzero(blind & ~self._pending_mask()))
        field_agents = np.flatnonzero(self._mode == FIELD)
        if self.avoidance == "orca" or len(field_agents) == 0:
            return
        by_group = field_agents[np.argsort(self._group[field_agents], kind="stable")]
        gids, first = np.unique(self._group[by_group], return_index=True)
        for gid, idx in zip(gids.tolist(), np.split(by_group, first[1:]), strict=True):
            # the next cell, mildly pulled to the cell centre (lanes)
            cells = self._cells(idx)
            nxt = np.empty_like(cells)
            descend_field(self._fields[gid][1], passable, cells, nxt)
            centre = self._grid.cell_to_world(cells)
            target[idx] = self._pos[idx] + self._grid.cell_to_world(nxt) - centre + 0.35 * (centre - self._pos[idx])

    def _stacked_fields(self, passable: npt.NDArray[np.bool_]) -> tuple[
            list[_F64], _F64, _F64, _I64, npt.NDArray[np.uint8], npt.NDArray[np.bool_], _I64]:
        """The group fields stacked for :func:`field_targets`: ``(the layers' fields, fields
        (k, h, w), the lowest value around each cell (k, h, w), memoised look-ahead cells
        (k, h, w), the cells each layer's units may cross (k, (h + 2) * (w + 2)) uint8 (its finite
        cells, padded), the passable array they were made for, group id -> layer (-1: none))``.
        Rebuilt when a group's field is new or recomputed or the grid changed (a group's field
        then becomes a view of its layer, so it is not held twice); fields of finished groups
        stay in it until then (their layers are unused)."""
        stack = self._fstack
        if stack is not None and stack[5] is passable:
            return stack
        gids = list(self._fields)
        h, w = self._grid.shape
        fields = np.empty((max(len(gids), 1), h, w))
        near_min = np.empty_like(fields)
        old = {id(f): k for k, f in enumerate(stack[0])} if stack is not None else {}
        layers = []
        moved: dict[int, _F64] = {}  # id(field) -> its layer
        for k, gid in enumerate(gids):
            field = self._fields[gid][1]
            moved[id(field)] = fields[k]
            fields[k] = field
            if id(field) in old and stack is not None and stack[0][old[id(field)]] is field:
                near_min[k] = stack[2][old[id(field)]]
            else:
                _min_around(field, near_min[k])
            layers.append(fields[k])
            self._fields[gid] = (self._fields[gid][0], fields[k])
        self._plans = {key: moved.get(id(plan), plan) for key, plan in self._plans.items()}  # (not held twice)
        slot = np.full(max(self._next_group, 1), -1, np.int64)
        slot[gids] = np.arange(len(gids))
        sight = np.zeros((len(fields), h + 2, w + 2), np.uint8)
        sight[:, 1:-1, 1:-1] = np.isfinite(fields)
        self._fstack = (layers, fields, near_min, np.full(fields.shape, -1, np.int64), sight.reshape(len(fields), -1),
                        passable, slot)
        return self._fstack

    def _arrive(self, idx: _Idx) -> None:
        """Agents ``idx`` reached their goals: idle, their pending re-paths cancelled."""
        if len(idx):
            self._cancel(idx)
            self._mode[idx] = IDLE
            self._arrived[idx] = True
            self._group[idx] = -1
            self._drop_unused_fields()

    def _fail(self, idx: _Idx) -> None:
        """Agents ``idx`` gave up: idle, their pending re-paths cancelled."""
        if len(idx):
            self._cancel(idx)
            self._mode[idx] = IDLE
            self._failed[idx] = True
            self._group[idx] = -1
            self._drop_unused_fields()

    def _drop_unused_fields(self) -> None:
        used = set(np.unique(self._group[self._group >= 0]).tolist())
        for gid in [g for g in self._fields if g not in used]:
            del self._fields[gid]
            self._field_radius.pop(gid, None)
            self._field_age.pop(gid, None)
            self._field_basis.pop(gid, None)

    def _replan_field(self, gid: int, cost_scale: _F64 | None = None) -> None:
        """Plan group ``gid``'s field anew on the current grid (its size class's cells; costs
        times ``cost_scale`` (h, w) if given; without, its last plain field of the same source
        and size is repaired), and its members' slot costs."""
        g = self._grid
        snap = g._snapshot()  # the source chosen and the field planned on one state of the grid
        if not snap.passable.any():  # every cell blocked: the group has nowhere to go
            self._fail(np.flatnonzero(self._group == gid))
            return
        tcell = self._fields[gid][0]
        radius = self._field_radius.get(gid, 0.0)
        source = self._snap_cell(tcell, snap.passable)
        if radius > 0.0:
            mask = _clearance_mask(g, radius, snap)
            if mask.any():
                source = self._nearest_passable(source[None, :], g.cell_to_world(source)[None, :], mask)[0]
            else:
                radius = 0.0
        at = (int(source[0]), int(source[1]))
        basis = self._field_basis.get(gid)
        since = None  # the group's last plain field of this source and size, repaired (an edit's re-plan)
        if cost_scale is None and basis is not None and basis[1:3] == (at, radius):
            since = (basis[0], self._fields[gid][1] if basis[3] is None else basis[3])
        field = _distance_field(g, source[None, :], math.inf, radius, cost_scale, snap, since)
        if cost_scale is None:
            self._field_basis[gid] = (snap, at, radius, None)
        elif basis is not None and basis[3] is None:  # (kept for the next edit's repair)
            self._field_basis[gid] = (*basis[:3], self._fields[gid][1].copy())
        self.counters["flow_fields"] += 1
        self._fields[gid] = (tcell, field)
        self._field_age[gid] = 0.0
        self._fstack = None
        members = self._group == gid
        slots = g.world_to_cell(self._goal[members])
        self._slot_cost[members] = field[slots[:, 1], slots[:, 0]]

    def _reroute(self, heading: _F64, dt: float) -> None:
        """Re-plan the field of the group planned longest ago, if over :attr:`reroute_seconds`,
        around the moving agents of other orders that come the other way
        (:func:`~gamenav.runtime._congestion.oncoming_scale`); ``heading`` (n, 2) unit headings.
        At most one field per :meth:`update`, whatever its number of sub-steps."""
        if self.reroute_seconds is None or not self._fields:
            return
        for gid in self._field_age:
            self._field_age[gid] += dt
        if self._rerouted:
            return
        gid = max(self._field_age, key=self._field_age.__getitem__)
        if self._field_age[gid] < self.reroute_seconds:
            return
        self._field_age[gid] = 0.0
        members = self._group == gid
        if not members.any():
            return
        # agents of other orders (a group's other size classes go the same way)
        others = np.flatnonzero((self._mode != IDLE) & (self._order != self._order[np.argmax(members)]))
        if len(others) == 0:
            return
        g = self._grid
        cells = self._cells(others)
        step = self._pos[others] + heading[others] * g._cell_size
        ahead = np.clip(g.world_to_cell(step), 0, (g.width - 1, g.height - 1))
        cover = np.pi * (np.minimum(self._radii[others], self._radius_cap()) / g._cell_size) ** 2
        scale = oncoming_scale(self._fields[gid][1], cells, ahead, cover)
        if scale is not None:
            self._rerouted = True
            self._replan_field(gid, scale)

    def _detect_stuck(self, dt: float) -> None:
        self._stuck_clock += dt
        if self._stuck_clock < self.stuck_seconds / _STUCK_WINDOWS:
            return
        window, self._stuck_clock = self._stuck_clock, 0.0
        step = self._pos - self._snapshot
        limit = 0.3 * window * self._want  # (the arrival slow-down is not stuck)
        slow = (self._mode != IDLE) & (np.hypot(step[:, 0], step[:, 1]) < limit)  # (no square: speeds up to 1e308)
        if self.avoidance == "separation":
            # on the final approach, progress is getting closer to the goal: units that push each
            # other round one goal point circle it for ever (ORCA shoves them instead)
            closer = np.hypot(*(self._snapshot - self._goal).T) - np.hypot(*(self._pos - self._goal).T)
            slow |= (self._mode == DIRECT) & (closer < limit)
        self._snapshot[:] = self._pos
        if self._requests or self._backlog:
            slow &= ~self._pending_mask()
        self._stuck_count += 1
        self._stuck_count *= slow
        stuck = np.flatnonzero(self._stuck_count >= _STUCK_WINDOWS)
        if len(stuck) == 0:
            return
        self._stuck_count[stuck] = 0
        near = self._near_goal(stuck)
        # bent off its way by the others. ORCA's bend also counts walls: at the destination only
        # with another disc within a cell, and a jam needs a moving agent in front of it within
        # ORCA's reach (idle ones do not bend its way, it shoves them, and they do not move off by
        # themselves; those behind it do not hold it up); a unit that walls alone hold up (one too
        # big for a corridor, whoever stands near) re-paths, then fails
        cell = self._grid._cell_size
        gap = self._nearest_gap(stuck, cell)
        crowded = jam = np.hypot(*self._sep[stuck].T) > 0.1
        if self.avoidance == "orca":
            crowded = crowded & (gap < cell)
            jam = jam & np.isfinite(self._nearest_gap(stuck, min(self.neighbor_dist, 1e300), self._mode != IDLE,
                                                      self._heading[stuck]))
        # held back by the others at the destination (ORCA does not bend a unit's way round idle
        # units, it shoves them, and one that cannot give way holds it off): close enough
        held = near & (crowded | (gap < 0.1 * cell))
        self._arrive(stuck[held])
        # in a jam a new route rarely helps: wait, and re-path only every few stuck periods; give
        # up when no unit near made headway in this window (idle ones do not move off by
        # themselves) and it has not moved a cell through 8 of those re-paths (wedged for good;
        # a jam that moves somewhere dissolves, a queue crawls on); those that just arrived
        # neither re-path nor fail
        in_jam = jam & ~near
        jammed = stuck[in_jam]
        self._jams[jammed] += 1
        every = 12 if self.avoidance == "orca" else 4  # (ORCA's jams move, slowly)
        headway = (self._mode != IDLE) & ~slow
        alive = np.isfinite(self._nearest_gap(jammed, min(self.neighbor_dist, 1e300), among=headway))
        moved = jammed[alive | ~(np.hypot(*(self._pos[jammed] - self._jam_mark[jammed]).T) < cell)]  # (NaN: first)
        self._jam_mark[moved] = self._pos[moved]
        self._jam_since[moved] = self._jams[moved]
        wedged = self._jams[jammed] - self._jam_since[jammed] > every * _MAX_JAM_REPATHS
        self._fail(jammed[wedged])
        jammed = jammed[~wedged]
        walled = stuck[~in_jam & ~held]
        self._repaths[walled] += 1
        self._fail(walled[self._repaths[walled] > _MAX_REPATHS])
        stuck = np.concatenate([walled[self._repaths[walled] <= _MAX_REPATHS],
                                jammed[self._jams[jammed] % every == 0]])
        self.counters["stuck_repaths"] += len(stuck)
        self._repath(stuck)

    def _near_goal(self, idx: _Idx) -> npt.NDArray[np.bool_]:
        """Whether each agent of ``idx`` is near its goal: within ``2 * stride + 1`` cells, on a
        walk at most 2 steps longer than an unobstructed one (see
        :func:`~gamenav._kernels.crowd.walk_steps`): round a corner, not across a wall from a goal
        the way round to which is long."""
        g = self._grid
        near: npt.NDArray[np.bool_] = np.hypot(*(self._goal[idx] - self._pos[idx]).T) < \
            (2.0 * self._stride + 1.0) * g._cell_size
        if near.any():
            rows = idx[near]
            cells = self._cells(rows)
            goals = np.clip(g.world_to_cell(self._goal[rows]), 0, (g.width - 1, g.height - 1))
            steps = np.empty(len(rows), np.int64)
            limits = np.abs(goals - cells).max(axis=1) + 2
            limits[limits > _NEAR_WALK] = -1  # (no search)
            walk_steps(g._kernel_arrays()[0], cells, goals, limits, steps)
            near[near] = steps >= 0
        return near

    def _nearest_gap(self, idx: _Idx, reach: float, among: npt.NDArray[np.bool_] | None = None,
                     ahead: _F64 | None = None) -> _F64:
        """The gap (world units; < 0: overlap) between each agent of ``idx``'s disc and the
        nearest other agent's (of those ``among`` marks, ``(n,)``; None: all; with ``ahead``
        ``(len(idx), 2)``, directions: only those whose centre lies in front of it that way)
        when that gap is under ``reach``, else inf. Only the agents near enough along x (a
        sorted sweep) are compared."""
        nearest = np.full(len(idx), np.inf)
        if len(self) < 2 or len(idx) == 0:
            return nearest
        pos, r = self._pos, self._radii
        order = np.argsort(pos[:, 0], kind="stable")
        xs = pos[order, 0]
        with np.errstate(over="ignore"):  # (radii near 1e308 add up to inf, which compares right)
            window = reach + r[idx] + self._r_max
        lo = np.searchsorted(xs, pos[idx, 0] - window, "left")
        counts = np.searchsorted(xs, pos[idx, 0] + window, "right") - lo
        ends = np.cumsum(counts)
        first = 0
        while first < len(idx):  # blocks of about a million candidate pairs
            last = max(int(np.searchsorted(ends, ends[first] - counts[first] + 2**20, "right")), first + 1)
            c = counts[first:last]
            rows = np.repeat(np.arange(first, last), c)
            cand = order[np.repeat(lo[first:last] - (np.cumsum(c) - c), c) + np.arange(len(rows))]
            me = idx[rows]
            with np.errstate(over="ignore", invalid="ignore"):
                rel = pos[cand] - pos[me]
                gap = np.hypot(*rel.T) - (r[me] + r[cand])
                behind = np.zeros(len(rows), bool) if ahead is None else ~(np.einsum("ij,ij->i", rel, ahead[rows]) > 0)
            far = (cand == me) | (gap >= reach) | behind
            if among is not None:
                far |= ~among[cand]
            gap[far] = np.inf
            np.minimum.at(nearest, rows, gap)
            first = last
        return nearest

    def _repath(self, idx: _Idx) -> None:
        """New path requests for ``idx``; they keep moving on their old route until it arrives."""
        self._request(idx)

    def _on_change(self, change: GridChange | NavMeshChange) -> None:
        """Grid or navmesh world edit: acted on at once in the crowd's thread; an edit made in another thread
        waits for the crowd's next update, order or read of its state (the listener runs in the
        editing thread, which must not touch the crowd's state while the crowd's thread uses it)."""
        self._inbox.deliver(change)

    def _catch_up(self) -> None:
        """Drop the rows of removed agents, then act on the edits heard and not acted on yet, in order."""
        self._compact()
        self._inbox.catch_up()

    def _edited(self, change: GridChange | NavMeshChange) -> None:
        """Grid edit: move agents off newly blocked cells, re-route whoever crosses them (a navmesh
        world's edit: :meth:`_mesh_edited`)."""
        self._compact()
        if isinstance(change, GridChange):
            self._seen = max(self._seen, change.version)
        # a request refused here (e.g. for path options the edited grid no longer supports) waits in
        # the backlog and update() raises it: an edit never raises because of the crowd
        with contextlib.suppress(GamenavError):
            self._collect_paths()  # answers from before the edit are checked below like any route
        if not isinstance(change, GridChange):
            self._mesh_edited(change)
            return
        g = self._grid
        passable = g.passable
        cells = self._cells()  # (after any edit: one that opens a cell of a grid blocked everywhere frees them too)
        trapped = np.flatnonzero(~passable[cells[:, 1], cells[:, 0]])
        if len(trapped):
            self._push_out(trapped, g.cell_to_world(self._nearest_passable(cells[trapped], self._pos[trapped])))
        if len(change.blocked):
            # goals on blocked cells move to the nearest passable cell
            gcell = np.clip(g.world_to_cell(self._goal), 0, (g.width - 1, g.height - 1))
            bad_goal = np.flatnonzero(~passable[gcell[:, 1], gcell[:, 0]] & ~self._arrived)
            if len(bad_goal):
                self._goal[bad_goal] = g.cell_to_world(self._nearest_passable(gcell[bad_goal], self._goal[bad_goal]))
        affected = np.zeros(len(self), bool)
        path_agents = np.flatnonzero(self._mode == PATH)
        if len(change.blocked) and self._plen and len(path_agents):
            if self._world is g:
                affected[path_agents[self._steps_meet(path_agents, change.blocked)]] = True
            else:  # straight legs between navmesh waypoints
                affected[path_agents[self._legs_meet(path_agents, change.blocked)]] = True
        direct = np.flatnonzero(self._mode == DIRECT)  # (walking straight to their goals)
        if len(change.blocked) and len(direct):
            affected[direct[self._segments_meet(self._pos[direct], self._goal[direct], change.blocked)]] = True
        for gid in list(self._fields):
            self._replan_field(gid)
            members = np.flatnonzero(self._group == gid)  # (none when the group failed: nothing free)
            if len(members):  # those the edit cut off from the group's target ask for a path
                affected[members[~np.isfinite(_field_near(self._fields[gid][1], self._cells(members)))]] = True
        repath = np.flatnonzero(affected)
        if self._world is g:
            self.counters["edit_repaths"] += len(repath)
            with contextlib.suppress(GamenavError):  # (refused: waits in the backlog, see above)
                self._repath(repath)
        else:  # searched at the next update: a mesh following the grid may not have heard the edit yet
            self._repath_later(repath)
        if len(change.opened):  # a way may have opened for those that gave up: they try again
            self._retry_failed()

    def _push_out(self, idx: _Idx, to: _F64) -> None:
        """Agents ``idx``, on what an edit walled off, moved to the points ``to`` (m, 2); they
        stand still there (counted as pushed out when they moved)."""
        self.counters["pushed_out"] += int(np.count_nonzero((self._pos[idx] != to).any(axis=1)))
        self._pos[idx] = to
        self._vel[idx] = 0.0

    def _mesh_edited(self, change: NavMeshChange) -> None:
        """Navmesh world edit (an obstacle added or removed; a mesh following the grid): agents
        it walled off (in a new obstacle) move to the nearest point of the mesh, as agents on
        newly blocked cells of the grid move off them; the agents whose way ahead touches the
        edited box (grown by the mesh's tolerance) re-path, and after an edit that opens space
        those that gave up try again."""
        x0, y0, x1, y1 = change.bounds
        t = 0.0  # (an edit heard before the world became the grid)
        if self._world is not self._grid:
            t = 2.0 * self._world.tolerance
            self._walls.sync(self._world.obstacles)
            state = self._world._snapshot()  # (one state of an edited mesh)
            trapped = self._walled_off(state, change)
            self._push_out(*self._off_obstacles(trapped, state.nearest(self._pos[trapped])))
        follow = np.flatnonzero(self._mode == PATH)
        direct = np.flatnonzero(self._mode == DIRECT)
        a, b, owner = self._legs(follow)
        who = np.concatenate([follow[owner], direct])
        hit = segments_touch_box(np.concatenate([a, self._pos[direct]]), np.concatenate([b, self._goal[direct]]),
                                 (x0 - t, y0 - t, x1 + t, y1 + t))
        self._repath_later(np.unique(who[hit]))
        if change.opened:
            self._retry_failed()

    def _off_obstacles(self, idx: _I64, to: _F64) -> tuple[_I64, _F64]:
        """The agents ``idx`` moving to ``to`` (m, 2) and those whose centre lies inside a navmesh
        obstacle, and where they go: out of it to its border, then off the walls as far as their
        radius (:meth:`_discs_off_walls`); one whose disc still overlaps an obstacle (a gap
        narrower than the disc) to the nearest point where the disc fits; one on a blocked cell to
        the nearest passable cell."""
        g = self._grid
        pos = self._pos.copy()
        pos[idx] = to
        rows = np.union1d(idx, np.flatnonzero(self._walls.inside(pos)))
        out = self._walls.out_of(pos[rows])
        radii = np.minimum(self._radii[rows], self._radius_cap())
        self._discs_off_walls(out, radii)
        squeezed = self._walls.near(out, np.maximum(radii - 1e-6 * g._cell_size, 0.0))  # (between obstacles)
        for k in np.flatnonzero(squeezed):  # (where it fits)
            out[k] = self._walls.room(out[k], float(radii[k]))
        at = np.clip(g.world_to_cell(out), 0, (g.width - 1, g.height - 1))
        still = ~g.passable[at[:, 1], at[:, 0]]
        out[still] = g.cell_to_world(self._nearest_passable(at[still], out[still]))
        return rows, out

    def _walled_off(self, state: Any, change: NavMeshChange) -> _I64:
        """The agents that stood on triangles the edit ``change`` of the navmesh world removed
        and stand off the mesh state ``state`` now, on a passable cell (agents that stood off it
        already, beside a wall of a mesh shrunk by a radius, are left where they are, and those on
        a blocked cell to the grid's edit: a mesh following the grid may report it first). When
        ``state`` is not the one the edit made (edits since, heard later: made by a listener or
        in another thread; a compaction renumbers the triangles), every agent in its box off the
        mesh on a passable cell."""
        if not change.blocked or change.remap is not None or not len(change.removed):
            return np.zeros(0, np.int64)
        x0, y0, x1, y1 = change.bounds
        inside = np.flatnonzero(((self._pos >= (x0, y0)) & (self._pos <= (x1, y1))).all(axis=1))
        cells = self._cells(inside)
        inside = inside[self._grid.passable[cells[:, 1], cells[:, 0]]]
        off: _I64 = inside[state._locate(np.ascontiguousarray(self._pos[inside])) < 0]
        if state.version != change.version:  # (the edit's triangle ids may name others now)
            return off
        corners = state._vertices[state._triangles[change.removed]]  # (k, 3, 2): dead triangles keep theirs
        found: _I64 = off[_in_triangles(self._pos[off], corners)]
        return found

    def _repath_later(self, idx: _Idx) -> None:
        """New path requests for ``idx`` after an edit, sent from the next update (those waiting to
        be sent already are not counted again: a mesh following the grid reports its edits too)."""
        self.counters["edit_repaths"] += int(np.count_nonzero(~np.isin(idx, np.fromiter(self._backlog, np.int64))))
        self._cancel(idx)
        self._backlog.update(dict.fromkeys(idx.tolist()))

    def _retry_failed(self) -> None:
        """A way may have opened for the agents that gave up: they try again (sent over the next updates)."""
        retry = np.flatnonzero(self._failed)
        self._failed[retry] = False
        self._reset_stuck(retry)
        self.counters["edit_repaths"] += len(retry)
        self._backlog.update(dict.fromkeys(retry.tolist()))

    def _steps_meet(self, agents: _Idx, blocked: _I64) -> npt.NDArray[np.bool_]:
        """Which grid path followers ``agents`` have a route ahead (cell steps from the agent's
        cell through the waypoints) that enters one of the newly ``blocked`` cells (k, 2) or
        takes a diagonal step past one (a corner) that the movement rule now forbids. A smoothed
        leg's straight line runs through the cells its steps enter and the corners of its
        diagonal steps (touching them), so for smoothed paths every new corner counts."""
        g = self._grid
        mask = np.zeros(g.shape, bool)
        mask[blocked[:, 1], blocked[:, 0]] = True
        cells, _, owner = self._waypoints(agents)
        hit = mask[cells[:, 1], cells[:, 0]]
        smoothed = bool(self._path_options.get("smooth"))
        if smoothed or self._diagonal in _CORNER_RULES:
            prev = np.roll(cells, 1, axis=0)
            first = np.ones(len(owner), bool)
            first[1:] = owner[1:] != owner[:-1]
            prev[first] = self._cells(agents[owner[first]])
            ay, bx = prev[:, 1], cells[:, 0]  # the corners (bx, ay) and (ax, by)
            ax, by = prev[:, 0], cells[:, 1]
            corner = mask[ay, bx] | mask[by, ax]
            if not smoothed and self._diagonal is Diagonal.AT_MOST_ONE_BLOCKED:
                corner &= ~g.passable[ay, bx] & ~g.passable[by, ax]
            hit |= corner
        meets = np.zeros(len(agents), bool)
        meets[owner[hit]] = True
        return meets

    def _legs(self, agents: _Idx) -> tuple[_F64, _F64, _I64]:
        """The straight legs ahead of path followers ``agents``, from the position through the
        waypoints: ``(starts (m, 2), ends (m, 2), the index in agents of each leg's agent (m,))``."""
        if len(agents) == 0:
            return np.zeros((0, 2)), np.zeros((0, 2)), np.zeros(0, np.int64)
        _, points, owner = self._waypoints(agents)
        first = np.ones(len(owner), bool)
        first[1:] = owner[1:] != owner[:-1]
        starts: _F64 = np.where(first[:, None], self._pos[agents[owner]], np.roll(points, 1, axis=0))
        return starts, points, owner

    def _legs_meet(self, agents: _Idx, cells: _I64) -> npt.NDArray[np.bool_]:
        """Which path followers ``agents`` have a route ahead (straight legs from the position
        through the waypoints) that meets (touches included) one of the grid ``cells`` (k, 2)."""
        a, points, owner = self._legs(agents)
        meets = np.zeros(len(agents), bool)
        meets[owner[self._segments_meet(a, points, cells)]] = True
        return meets

    def _segments_meet(self, a: _F64, b: _F64, cells: _I64) -> npt.NDArray[np.bool_]:
        """Which straight segments from ``a`` to ``b`` (m, 2) meet (touches included) one of the
        grid ``cells`` (k, 2)."""
        g = self._grid
        d = b - a
        meets = np.zeros(len(a), bool)
        for lo in np.array_split(g.cell_to_world(cells) - 0.5 * g._cell_size, max(1, len(a) * len(cells) // 2**20)):
            t_in, t_out = np.zeros((len(a), len(lo))), np.ones((len(a), len(lo)))
            for axis in (0, 1):  # slabs: the part of each leg within each cell's extent on this axis
                with np.errstate(divide="ignore", invalid="ignore"):
                    t1 = (lo[None, :, axis] - a[:, None, axis]) / d[:, None, axis]
                    t2 = (lo[None, :, axis] + g._cell_size - a[:, None, axis]) / d[:, None, axis]
                flat = d[:, axis] == 0  # parallel to the slab: inside it or not at all
                inside = (lo[None, :, axis] <= a[:, None, axis]) & \
                    (a[:, None, axis] <= lo[None, :, axis] + g._cell_size)
                t_in = np.maximum(t_in, np.where(flat[:, None], np.where(inside, 0.0, 2.0), np.minimum(t1, t2)))
                t_out = np.minimum(t_out, np.where(flat[:, None], 1.0, np.maximum(t1, t2)))
            meets |= (t_in <= t_out).any(axis=1)
        return meets


def _adjacent(passable: npt.NDArray[np.bool_], a: _I64, b: _I64) -> npt.NDArray[np.bool_]:
    """Whether each cell of ``b`` (m, 2) is the cell of ``a`` beside it or one of its 8
    neighbours with no wall between (of ``passable`` [y, x]): both passable, a diagonal one
    only past two passable cells."""
    near = np.abs(b - a).max(axis=1) <= 1
    a, b = np.where(near[:, None], a, 0), np.where(near[:, None], b, 0)
    free: npt.NDArray[np.bool_] = near & passable[a[:, 1], b[:, 0]] & passable[b[:, 1], a[:, 0]] & \
        passable[a[:, 1], a[:, 0]] & passable[b[:, 1], b[:, 0]]
    return free


def _outward(points: _F64) -> _F64:
    """Unit vectors (k - 2, 2) at the inner points of a path ``points`` (k, 2) away from the inside
    of its turn there (0 where it runs straight on or back)."""
    a = points[:-2] - points[1:-1]
    b = points[2:] - points[1:-1]
    a /= np.maximum(np.hypot(a[:, 0], a[:, 1]), 1e-300)[:, None]
    b /= np.maximum(np.hypot(b[:, 0], b[:, 1]), 1e-300)[:, None]
    out = -(a + b)
    norm = np.hypot(out[:, 0], out[:, 1])
    unit: _F64 = np.where((norm > 1e-9)[:, None], out / np.maximum(norm, 1e-300)[:, None], 0.0)
    return unit


def _in_triangles(points: _F64, corners: _F64) -> npt.NDArray[np.bool_]:
    """Whether each point (m, 2) lies in (or on the border of) one of the triangles ``corners``
    (k, 3, 2), in either orientation."""
    a, b, c = (corners[None, :, k, :] for k in range(3))
    p = points[:, None, :]

    def side(u: _F64, v: _F64) -> _F64:
        d, q = v - u, p - u
        cross: _F64 = d[..., 0] * q[..., 1] - d[..., 1] * q[..., 0]
        return cross

    s = np.stack([side(a, b), side(b, c), side(c, a)])  # (3, m, k)
    within: npt.NDArray[np.bool_] = np.all(s >= 0, axis=0) | np.all(s <= 0, axis=0)
    inside: npt.NDArray[np.bool_] = np.any(within, axis=1)
    return inside


def _islands(state: Any, points: _F64) -> _I64:
    """The island of mesh state ``state`` each point (m, 2) lies on (-1: off the mesh)."""
    tri = state._locate(np.ascontiguousarray(points))
    found: _I64 = np.where(tri >= 0, state.islands[tri], -1)
    return found


def _pinch_under(state: Any, points: _F64) -> _I64:
    """The pinch point (a vertex where regions touch only there: an ambiguous end, from or to which
    a search finds no path) of mesh state ``state`` each point (m, 2) lies exactly on (-1: none)."""
    tri = state._locate(np.ascontiguousarray(points))
    corners = state._triangles[np.maximum(tri, 0)]  # (m, 3)
    on = (tri >= 0)[:, None] & state._pinch[corners] & (state._vertices[corners] == points[:, None, :]).all(axis=2)
    found: _I64 = np.where(on.any(axis=1), corners[np.arange(len(points)), np.argmax(on, axis=1)], -1)
    return found


def _off_pinches(state: Any, points: _F64, pinches: _I64, toward: _F64, islands: _I64) -> _F64:
    """``points`` (m, 2) on mesh state ``state``, each one on a pinch point in ``pinches`` (m,)
    (:func:`_pinch_under`; -1: none) moved a hair's breadth into a triangle round it
    (:func:`_into_corner`, towards its direction in ``toward`` (m, 2), on its island in ``islands``
    (m,) if it can: -1 any), the others as they are."""
    out: _F64 = points.copy()
    for k in np.flatnonzero(pinches >= 0).tolist():
        out[k] = _into_corner(state, int(pinches[k]), toward[k], int(islands[k]))
    return out


def _into_corner(mesh: Any, v: int, toward: _F64, island: int) -> _F64:
    """A point a hair's breadth from vertex ``v`` of ``mesh`` (a state), strictly inside the
    triangle round ``v`` on ``island`` (if one is) whose corner there best holds the direction
    ``toward`` (2,) (any one for a zero direction): on the way from ``v`` to its centroid, the
    nearest of a few the mesh locates in it (``v`` itself when none is)."""
    verts, tris = mesh._vertices, mesh._triangles
    around = np.flatnonzero((tris == v).any(axis=1) & mesh._alive)
    others = tris[around][tris[around] != v].reshape(-1, 2)  # each one's two other corners
    a, b = verts[others[:, 0]] - verts[v], verts[others[:, 1]] - verts[v]
    turn = np.sign(a[:, 0] * b[:, 1] - a[:, 1] * b[:, 0])  # (sides a then b counterclockwise: 1)
    into_a = turn * (a[:, 0] * toward[1] - a[:, 1] * toward[0]) / np.hypot(a[:, 0], a[:, 1])
    into_b = turn * (toward[0] * b[:, 1] - toward[1] * b[:, 0]) / np.hypot(b[:, 0], b[:, 1])
    held = np.minimum(into_a, into_b)  # (> 0: inside the corner)
    best = int(around[np.lexsort((-held, mesh.islands[around] != island))[0]])
    centre = verts[tris[best]].mean(axis=0)
    for step in 2.0 ** np.arange(-20, 0, 4):
        point: _F64 = verts[v] + step * (centre - verts[v])
        if (point != verts[v]).any() and mesh._locate(point[None, :])[0] == best:
            return point
    vertex: _F64 = verts[v].copy()
    return vertex


def _nothing() -> None:
    """No subscription to end."""


def _abandon(requests: dict[int, Any]) -> None:
    """Finalizer of a dropped crowd: cancel its pending requests (a PathQueue's at its next request
    or update: a garbage collection may strike in the middle of the queue's work)."""
    for req in requests.values():
        getattr(req, "_abandon", req.cancel)()


def _shrink(length: _F64, most: _F64 | float) -> _F64:
    """Factors (n,) that scale vectors of ``length`` (n,) down to at most ``most`` (1 for those
    within it), at any scale (no floor on the length: on a grid of 1e-30 cells every length is tiny)."""
    over = length > most
    return np.where(over, most / np.where(over, length, 1.0), 1.0)


def _moved_velocity(step: _F64, dt: float, cap: _F64) -> _F64:
    """The velocity of each move ``step`` (n, 2) over ``dt`` seconds, its length capped at
    ``cap`` (n,): finite for any ``dt > 0`` (over a subnormal one a push off a wall would be inf)."""
    length = np.hypot(step[:, 0], step[:, 1])
    with np.errstate(over="ignore"):
        speed = np.minimum(length / dt, cap)
    unit = step / np.where(length > 0.0, length, 1.0)[:, None]
    moved: _F64 = unit * speed[:, None]
    return moved
