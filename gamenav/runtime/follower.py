"""Follower: one agent that walks to a point along requested paths (a one-agent :class:`Crowd`).

Engine adapters subclass it to write the position into a sprite after each update. Points are
world ``(x, y)``.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from gamenav._validate import finite_point, positive_number
from gamenav._events import Closeable
from gamenav._kernels.crowd import resolve_walls
from gamenav.errors import InvalidInputError
from gamenav.grid.tilegrid import TileGrid
from gamenav.runtime.crowd import _MAX_CELLS_PER_SECOND, _MIN_ARRIVAL_SPEED, DIRECT, PATH, Crowd, _bounded
from gamenav.types import Path

__all__ = ["Follower"]


def _leg_clear(grid: TileGrid, a: npt.NDArray[np.float64], b: npt.NDArray[np.float64]) -> bool:
    """Whether the straight leg from world point ``a`` to ``b`` runs through the inside of no
    blocked cell of ``grid`` (along or across a blocked cell's side or corner is clear)."""
    ends = np.clip(grid.world_to_cell(np.stack([a, b])), 0, (grid.width - 1, grid.height - 1))
    lo, hi = ends.min(axis=0), ends.max(axis=0)
    ys, xs = np.nonzero(~grid.passable[lo[1]:hi[1] + 1, lo[0]:hi[0] + 1])
    if not len(xs):
        return True
    centres = grid.cell_to_world(np.stack([xs + lo[0], ys + lo[1]], axis=1))
    t_in, t_out = np.zeros(len(xs)), np.ones(len(xs))
    for axis in (0, 1):  # slabs: the part of the leg strictly within each cell's extent on this axis
        near, d = centres[:, axis] - 0.5 * grid._cell_size - a[axis], b[axis] - a[axis]
        far = near + grid._cell_size
        if d == 0:
            t_out = np.where((near < 0) & (far > 0), t_out, -1.0)
        else:
            t1, t2 = near / d, far / d
            t_in, t_out = np.maximum(t_in, np.minimum(t1, t2)), np.minimum(t_out, np.maximum(t1, t2))
    return not (t_in < t_out).any()


def _inside_free_cell(grid: TileGrid, point: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """``point`` (2,) if its cell is passable; else, when it lies on a side or corner of a passable
    cell (a navmesh path runs along the walls, and a point on a border belongs to one cell of the
    two), the nearest float point of that cell, a few ulps away; else ``point``."""
    x, y = grid.world_to_cell(point).tolist()
    if grid.in_bounds(x, y) and grid.passable[y, x]:
        return point
    half = 0.5 * grid._cell_size
    for dy, dx in itertools.product((0, -1, 1), repeat=2):
        cell = np.array([x + dx, y + dy])
        if not (grid.in_bounds(*cell.tolist()) and grid.passable[cell[1], cell[0]]):
            continue
        centre = grid.cell_to_world(cell)
        inside = np.clip(point, centre - half, centre + half)
        if np.abs(inside - point).max() > 1e-9 * half:  # (it does not touch this cell)
            continue
        for _ in range(64):
            off = grid.world_to_cell(inside) != cell
            if not off.any():
                return inside
            inside = np.where(off, np.nextafter(inside, centre), inside)
    return point


class _Walker(Crowd):
    """The one-agent crowd of a :class:`Follower`: instead of steering, its agent walks its route."""

    _first_leg = True
    """The agent has not reached the first waypoint of its path yet (it walks from where it stood)."""

    def _install(self, i: int, path: Path) -> None:
        super()._install(i, path)
        self._first_leg = True

    def _cover_obstacles(self, bounds: tuple[float, float, float, float]) -> None:
        """Nothing: the agent does not steer, it walks its navmesh route, which keeps off the obstacles."""

    def _off_walls(self, points: npt.NDArray[np.float64], radius: float) -> npt.NDArray[np.float64]:
        """The path's points as they are: the agent walks its route exactly."""
        return points

    def place(self, agents: npt.ArrayLike, positions: npt.ArrayLike) -> None:
        """:meth:`Crowd.place`; an agent pushed off its route slides along walls back onto it."""
        super().place(agents, positions)
        self._first_leg = True

    def _pushes(self, rows: npt.NDArray[np.integer[Any]], pos: npt.NDArray[np.float64]) -> npt.NDArray[np.bool_]:
        """:meth:`Crowd._pushes`; on a path, the agent walks straight on to the end of its run
        (not to its next waypoint): a push is one only if no blocked cell is on that leg."""
        pushed = super()._pushes(rows, pos)
        if pushed.all() and self._mode[0] == PATH:
            pushed[:] = _leg_clear(self._grid, pos[0], self._paim[self._pcur[0]])
        return pushed

    def _step(self, dt: float) -> None:
        """Walk along the route ahead, ``speed * dt`` (slowing down for the goal as crowd agents
        do): the distance left at a corner of the path goes on along its next leg (at any speed
        no turn is cut, so no wall between corners is crossed), and the walk ends exactly on the
        goal. The legs that are not the path's (from where the agent stood to its first corner,
        from the last one to a goal off the path) slide along walls. While a new route is
        searched the agent waits. Standing still (arrived in this step included), its velocity is zero."""
        self._want = np.zeros(len(self))
        self._vel[0] = 0.0
        mode = self._mode[0]
        if mode not in (PATH, DIRECT) or self.pending:
            return
        first, end = (int(self._pcur[0]), int(self._pend[0])) if mode == PATH else (0, 0)
        g = self._grid
        reach = max(float(self._speeds[0]) * dt, 1.5 * g._cell_size)  # (and the goal's slowing-down distance)
        count = 4
        while True:  # the route's legs as far as the walk may reach: from the agent over the runs' ends (corners)
            last = min(first + count, end)
            route = np.concatenate([self._pos[:1], self._paim[first:last], self._goal[:1] if last == end else
                                    self._goal[:0]])
            legs = np.diff(route, axis=0)
            ends = np.cumsum(np.hypot(legs[:, 0], legs[:, 1]))
            if last == end or ends[-1] > reach:
                break
            count *= 4
        final = len(legs) - 1 if last == end else -1  # the leg to the goal (-1: beyond these)
        self._want[0] = self._speeds[0] * min(max(ends[-1] / (1.5 * g._cell_size), _MIN_ARRIVAL_SPEED), 1.0)
        walk = float(self._want[0]) * dt
        leg = min(int(np.searchsorted(ends, walk, side="right")), len(legs) - 1)  # the leg it stops on
        start = ends[leg - 1] if leg else 0.0
        pos = route[leg + 1:leg + 2].copy() if walk >= ends[leg] else \
            route[leg:leg + 1] + legs[leg] * ((walk - start) / (ends[leg] - start))
        self._first_leg &= leg == 0
        if self._first_leg or leg == final:
            resolve_walls(route[leg:leg + 1], pos, g._kernel_arrays()[0], g._origin[0], g._origin[1], g._cell_size,
                          g._y_up, 0.0)
        if self._world is not g:  # (a navmesh path runs along walls; a grid path's legs join free cells' centres)
            pos[0] = _inside_free_cell(g, pos[0])
        self._vel[0] = (pos[0] - route[0]) / dt
        self._pos[0] = pos[0]
        if leg == final and np.array_equal(pos[0], route[-1]):
            self._vel[0] = 0.0  # (it stands at its goal)
            self._arrive(np.array([0]))
        elif leg == final:  # past the path's last corner: on to the goal
            self._mode[0] = DIRECT
        else:  # on run ``first + leg``: past the waypoints (cells) of it behind the agent
            run = first + leg
            steps = int(self._pseg[run, 4])
            ahead = steps
            if steps > 1:
                way = self._paim[run] - g.cell_to_world(self._pseg[run, :2])
                span = np.hypot(*way)
                left = np.dot(self._paim[run] - pos[0], way / span)  # (along the run: a pushed agent is beside it)
                ahead = min(max(math.ceil(steps * left / span - 1e-9), 1), steps)
            self._pcur[0], self._pk[0] = run, steps + 1 - ahead


class Follower(Closeable):
    """One agent following paths on a grid: a one-agent :class:`Crowd` that walks its route.

    Each update it walks ``speed * dt`` along its path's legs, whatever the speed and ``dt``
    (turning at every waypoint, so never across a wall between two), and stops exactly on its
    goal (then :attr:`arrived`). Path requests, goals on walls, stuck detection and re-pathing
    after grid (and navmesh ``world``) edits come from ``Crowd`` (while a new route is searched the agent waits), as
    does the cut of a very long ``dt`` (see :meth:`Crowd.update`). With a
    :class:`~gamenav.PathQueue`, call ``queue.update()`` once per frame, then :meth:`update`.
    For dozens of agents use one ``Crowd``: its update is vectorised.

    The follower follows the grid's edits through a weak subscription: a dropped follower is
    neither kept alive nor notified, and its pending path request is cancelled at the queue's
    next request or update. :meth:`close` (or leaving a ``with Follower(...) as
    agent:`` block) ends it and cancels a pending path request; afterwards :meth:`move_to`,
    :meth:`stop`, :meth:`place` and :meth:`update` raise InvalidInputError, the state stays readable.

    Args:
        grid: the walkable grid; ``start`` must lie on a passable cell.
        start: world ``(x, y)`` start position.
        speed: world units per second (> 0, at most 1e9 cells per second).
        queue: a ``PathQueue`` to request paths through, or ``None`` to search at once.
        world: search on this NavMesh instead of the grid (the grid still keeps the agent off walls).
        radius: the agent's radius in world units (default: a quarter cell), for wall margins
            and for its paths: above half a cell they are planned with ``agent_radius=radius``
            (only cells whose centre is at least that far from every blocked cell; see
            :func:`gamenav.clearance_mask`).
        **path_options: options for each path request (e.g. ``smooth=True``); ``diagonal`` also
            sets the movement rule the agent steers by.

    Example:
        >>> import gamenav
        >>> grid = gamenav.TileGrid.from_strings(["....", ".##.", "...."], cell_size=10)
        >>> agent = Follower(grid, (5, 5), speed=50)
        >>> agent.move_to((35, 25))
        >>> for _ in range(120):
        ...     agent.update(1 / 30)
        >>> agent.arrived, agent.position
        (True, (35.0, 25.0))
        >>> agent.path.status.name, agent.path.points[-1].tolist()
        ('FOUND', [35.0, 25.0])
    """

    def __init__(self, grid: TileGrid, start: Sequence[float], *, speed: float, queue: Any = None,
                 world: Any = None, radius: float | None = None, **path_options: Any) -> None:
        if not isinstance(grid, TileGrid):
            raise InvalidInputError(f"grid must be a gamenav.TileGrid, got {type(grid).__name__}")
        r = grid._cell_size / 4 if radius is None else positive_number(radius, "radius")
        diagonal = path_options.pop("diagonal", "no_corner_cutting")
        self._crowd = _Walker(grid, [finite_point(start, "start")], radius=r,
                              max_speed=_bounded(speed, "speed", _MAX_CELLS_PER_SECOND * grid._cell_size),
                              queue=queue, world=world,
                              diagonal=diagonal, path_options=path_options,
                              arrive_radius=min(0.5, grid._cell_size / 8))

    @property
    def position(self) -> tuple[float, float]:
        """The agent's world position ``(x, y)``."""
        x, y = self._crowd.positions[0]
        return float(x), float(y)

    @property
    def velocity(self) -> tuple[float, float]:
        """The agent's velocity ``(vx, vy)``, world units per second: its walk in the last update
        over its ``dt``, ``(0.0, 0.0)`` when it stands still (arrived, failed, stopped, or waiting
        for a path)."""
        vx, vy = self._crowd.velocities[0]
        return float(vx), float(vy)

    @property
    def arrived(self) -> bool:
        """True when the agent stands at its goal (or was never sent anywhere)."""
        return bool(self._crowd.arrived[0])

    @property
    def failed(self) -> bool:
        """True when the goal was unreachable or the agent stayed stuck."""
        return bool(self._crowd.failed[0])

    @property
    def path(self) -> Path:
        """The :class:`~gamenav.Path` the agent follows (or last followed) to its goal: its
        ``points`` are the whole route (status IN_PROGRESS and no points while the path is
        pending, NO_PATH before the first :meth:`move_to` or after :meth:`stop`)."""
        return self._crowd.path(0)

    @property
    def remaining_path(self) -> npt.NDArray[np.float64]:
        """``(k, 2)`` float64 world waypoints still ahead, the agent's position first."""
        return self._crowd.remaining_path(0)

    def _close(self) -> None:
        """Stop following grid edits and cancel a pending path request."""
        self._crowd.close()

    def move_to(self, goal: Sequence[float]) -> None:
        """Walk to world point ``goal`` (a goal on a wall is moved to the nearest free cell)."""
        self._check_open("order")
        self._crowd.move([0], finite_point(goal, "goal"), formation=False)

    def stop(self) -> None:
        """Stand still where the agent is."""
        self._check_open("order")
        self._crowd.stop([0])

    def place(self, point: Sequence[float]) -> None:
        """Put the agent at once at world point ``point`` (on a passable cell): a teleport, a
        knockback, a respawn (see :meth:`Crowd.place`). On its way, it walks to its goal from
        there on a new path (it waits for it, the old route is never followed again), unless
        the move is a push (at most half a cell, beside its route with no wall between): then
        it walks on along its path, sliding along walls back onto it; else it stands there
        idle, arrived."""
        self._check_open("place")
        self._crowd.place([0], finite_point(point, "point")[None, :])

    def _place_near(self, point: Sequence[float]) -> None:
        """:meth:`place` the agent at ``point`` (a finite world point), or, on a blocked cell or
        off the grid, at the nearest point of the passable cell nearest to it, the agent's
        radius in from its sides (adapters: a sprite the game knocked into a wall stops beside
        it, one moved off the map comes back onto it)."""
        crowd = self._crowd
        g = crowd.grid
        at = finite_point(point, "point")
        cell = g.world_to_cell(at)
        if not (0 <= cell[0] < g.width and 0 <= cell[1] < g.height and g.passable[cell[1], cell[0]]):
            free = crowd._nearest_passable(cell[None, :], at[None, :])[0]
            half = 0.5 * g._cell_size
            inset = min(float(crowd.radii[0]), half)
            centre = g.cell_to_world(free)
            at = np.clip(at, centre - (half - inset), centre + (half - inset))
        self.place(at.tolist())

    def update(self, dt: float) -> None:
        """Advance ``dt`` seconds."""
        self._check_open("update")
        self._crowd.update(dt)
