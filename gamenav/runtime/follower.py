"""Follower: one agent that walks to a point along requested paths (a one-agent :class:`Crowd`).

Engine adapters subclass it to write the position into a sprite after each update. Points are
world ``(x, y)``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from gamenav._validate import finite_point, positive_number
from gamenav._events import Closeable
from gamenav.errors import InvalidInputError
from gamenav.grid.tilegrid import TileGrid
from gamenav.runtime.crowd import _MAX_CELLS_PER_SECOND, Crowd, _bounded
from gamenav.types import Path

__all__ = ["Follower"]



class Follower(Closeable):
    """One agent following paths on a grid: the steering of :class:`Crowd` for a single unit.

    Arrival, wall sliding, stuck detection and re-pathing after grid edits come from ``Crowd``.
    With a :class:`~gamenav.PathQueue`, call ``queue.update()`` once per frame, then
    :meth:`update`. For dozens of agents use one ``Crowd``: its update is vectorised.

    The follower follows the grid's edits through a weak subscription: a dropped follower is
    neither kept alive nor notified, and its pending path request is cancelled at the queue's
    next request or update. :meth:`close` (or leaving a ``with Follower(...) as
    agent:`` block) ends it and cancels a pending path request; afterwards :meth:`move_to`,
    :meth:`stop` and :meth:`update` raise InvalidInputError, the state stays readable.

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
        >>> agent.arrived, [round(v) for v in agent.position]
        (True, [35, 25])
        >>> agent.path.status.name, agent.path.points[-1].tolist()
        ('FOUND', [35.0, 25.0])
    """

    def __init__(self, grid: TileGrid, start: Sequence[float], *, speed: float, queue: Any = None,
                 world: Any = None, radius: float | None = None, **path_options: Any) -> None:
        if not isinstance(grid, TileGrid):
            raise InvalidInputError(f"grid must be a gamenav.TileGrid, got {type(grid).__name__}")
        r = grid.cell_size / 4 if radius is None else positive_number(radius, "radius")
        diagonal = path_options.pop("diagonal", "no_corner_cutting")
        self._crowd = Crowd(grid, [finite_point(start, "start")], radius=r,
                            max_speed=_bounded(speed, "speed", _MAX_CELLS_PER_SECOND * grid.cell_size),
                            queue=queue, world=world,
                            diagonal=diagonal, path_options=path_options,
                            arrive_radius=min(0.5, grid.cell_size / 8))

    @property
    def position(self) -> tuple[float, float]:
        """The agent's world position ``(x, y)``."""
        x, y = self._crowd.positions[0]
        return float(x), float(y)

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

    def update(self, dt: float) -> None:
        """Advance ``dt`` seconds."""
        self._check_open("update")
        self._crowd.update(dt)
