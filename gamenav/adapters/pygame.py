"""pygame (pygame-ce) adapter: tile grids from Rects or masks, debug drawing, a path follower.

World coordinates here are pygame pixels, ``(x, y)`` with y growing downwards, so every grid
built by this module has ``y_up=False`` and :meth:`TileGrid.cell_to_world` returns pixel
positions (``Path.points`` are pixels too). Grid arrays are indexed ``[y, x]`` (row, column).

This is a leaf module: ``import gamenav`` never imports it (or pygame). Install the extra with
``pip install gamenav[pygame]``.

Example:
    >>> import pygame
    >>> from gamenav.adapters.pygame import grid_from_rects
    >>> grid = grid_from_rects([pygame.Rect(32, 0, 32, 64)], size=(128, 64), cell_size=32)
    >>> grid.passable.astype(int).tolist()
    [[1, 0, 1, 1], [1, 0, 1, 1]]
"""

from __future__ import annotations

import math
from typing import Any, Iterable, Sequence

import numpy as np
import numpy.typing as npt

try:
    import pygame
except ImportError as exc:  # pragma: no cover - exercised by a test that hides pygame
    raise ImportError(
        "gamenav.adapters.pygame needs pygame-ce; install it with: pip install gamenav[pygame]"
    ) from exc

from gamenav import InvalidInputError, Path, PathStatus, TileGrid, find_path

__all__ = ["PathFollower", "draw_grid", "draw_path", "grid_from_mask", "grid_from_rects"]

ColorLike = Any
"""Anything ``pygame.Color`` accepts: a name, ``(r, g, b)``, ``(r, g, b, a)``, ``"#rrggbb"``."""


def _positive(value: float, name: str) -> float:
    number = float(value)
    if not math.isfinite(number) or number <= 0:
        raise InvalidInputError(f"{name} must be a finite number > 0, got {value!r}")
    return number


def _pair(value: Sequence[float], name: str) -> tuple[float, float]:
    arr = np.asarray(value, dtype=np.float64)
    if arr.shape != (2,) or not np.isfinite(arr).all():
        raise InvalidInputError(f"{name} must be a finite (x, y) pair, got {value!r}")
    return float(arr[0]), float(arr[1])


def _rect_array(rects: Iterable[Any]) -> npt.NDArray[np.float64]:
    """``(n, 4)`` float64 ``(x, y, w, h)`` from Rects, FRects, 4-tuples or objects with ``.rect``."""
    rows = rects if isinstance(rects, np.ndarray) else [tuple(getattr(r, "rect", r)) for r in rects]
    try:
        arr = np.array(rows, dtype=np.float64) if len(rows) else np.zeros((0, 4))
    except (TypeError, ValueError):
        raise InvalidInputError("rects must be (x, y, w, h) rectangles of numbers") from None
    if arr.ndim != 2 or arr.shape[1] != 4:
        raise InvalidInputError(
            f"rects must be (x, y, w, h) rectangles, got an array of shape {arr.shape}")
    if not np.isfinite(arr).all():
        raise InvalidInputError("rects must have finite coordinates (got NaN or inf)")
    return arr


def grid_from_rects(rects: Iterable[Any], *, size: Sequence[float], cell_size: float,
                    origin: Sequence[float] = (0, 0)) -> TileGrid:
    """A :class:`~gamenav.TileGrid` whose cells overlapped by any wall rectangle are blocked.

    A cell is blocked when a rectangle covers part of it with positive area; rectangles that only
    touch a cell's edge, have zero width or height, or lie outside the grid block nothing.
    Negative sizes are normalised like ``Rect.normalize()``. Runs in O(rects + cells) numpy
    operations (a 2-D difference array), with no Python loop over cells.

    Args:
        rects: wall rectangles in pixels: ``pygame.Rect`` / ``FRect``, ``(x, y, w, h)``
            tuples, sprites (their ``.rect`` is used) or an ``(n, 4)`` array.
        size: ``(width, height)`` in pixels of the area the grid covers (e.g.
            ``screen.get_size()``); the grid has ``ceil(width / cell_size)`` columns and
            ``ceil(height / cell_size)`` rows.
        cell_size: pixels per cell (> 0).
        origin: pixel ``(x, y)`` of the grid's top-left corner.

    Returns:
        a y-down grid (``y_up=False``) with uniform cost 1.

    Example:
        >>> grid = grid_from_rects([(10, 10, 5, 5)], size=(40, 20), cell_size=10)
        >>> grid.passable.astype(int).tolist()
        [[1, 1, 1, 1], [1, 0, 1, 1]]
    """
    cs = _positive(cell_size, "cell_size")
    width, height = (_positive(v, "size") for v in _pair(size, "size"))
    ox, oy = _pair(origin, "origin")
    cols, rows = math.ceil(width / cs), math.ceil(height / cs)
    r = _rect_array(rects)
    left, right = np.minimum(r[:, 0], r[:, 0] + r[:, 2]), np.maximum(r[:, 0], r[:, 0] + r[:, 2])
    top, bottom = np.minimum(r[:, 1], r[:, 1] + r[:, 3]), np.maximum(r[:, 1], r[:, 1] + r[:, 3])
    # Half-open cell ranges [x0, x1) overlapped with positive area, clipped to the grid.
    x0 = np.clip(np.floor((left - ox) / cs), 0, cols).astype(np.int64)
    x1 = np.clip(np.ceil((right - ox) / cs), 0, cols).astype(np.int64)
    y0 = np.clip(np.floor((top - oy) / cs), 0, rows).astype(np.int64)
    y1 = np.clip(np.ceil((bottom - oy) / cs), 0, rows).astype(np.int64)
    keep = (x0 < x1) & (y0 < y1) & (left < right) & (top < bottom)
    x0, x1, y0, y1 = x0[keep], x1[keep], y0[keep], y1[keep]
    diff = np.zeros((rows + 1, cols + 1), dtype=np.int64)
    np.add.at(diff, (y0, x0), 1)
    np.add.at(diff, (y0, x1), -1)
    np.add.at(diff, (y1, x0), -1)
    np.add.at(diff, (y1, x1), 1)
    covered = diff.cumsum(axis=0).cumsum(axis=1)[:rows, :cols] > 0
    return TileGrid(~covered, cell_size=cs, origin=(ox, oy), y_up=False)


def grid_from_mask(mask: pygame.mask.Mask, *, cell_size: int, threshold: float | None = None,
                   origin: Sequence[float] = (0, 0)) -> TileGrid:
    """A :class:`~gamenav.TileGrid` whose cells are blocked where a ``pygame.mask.Mask`` has set bits.

    Mask pixel ``(px, py)`` lies in cell ``(px // cell_size, py // cell_size)``; the grid has
    ``ceil(mask_width / cell_size)`` columns (edge cells may hold fewer pixels). The mask is
    rendered once into an 8-bit surface (``Mask.to_surface``) and read through
    ``pygame.surfarray``; counting per cell is a numpy block sum, with no Python loop over
    cells. A 2048x2048 mask takes ~17 ms with 16-pixel cells and ~40 ms with 4-pixel cells
    (a one-time cost at level load). A Python loop of ``Mask.overlap_area`` per cell is O(cells)
    calls: faster for a few thousand big cells, slower for fine grids.

    Args:
        mask: set bits are walls (e.g. ``pygame.mask.from_surface(level_image)``).
        cell_size: pixels per cell, an integer >= 1.
        threshold: ``None`` blocks a cell with any set bit; a number in (0, 1] blocks a cell
            when at least that fraction of its pixels (inside the mask) is set.
        origin: pixel ``(x, y)`` of the mask's top-left corner in the world.

    Returns:
        a y-down grid (``y_up=False``) with uniform cost 1.
    """
    if not isinstance(mask, pygame.mask.Mask):
        raise InvalidInputError(f"mask must be a pygame.mask.Mask, got {type(mask).__name__}")
    if isinstance(cell_size, bool) or not float(cell_size).is_integer() or cell_size < 1:
        raise InvalidInputError(f"cell_size must be an integer >= 1 for masks, got {cell_size!r}")
    if threshold is not None and not 0 < float(threshold) <= 1:
        raise InvalidInputError(f"threshold must be None or in (0, 1], got {threshold!r}")
    cs = int(cell_size)
    width, height = mask.get_size()
    if width == 0 or height == 0:
        raise InvalidInputError(f"mask must not be empty, got size {(width, height)}")
    surface = pygame.Surface((width, height), depth=8)
    surface.set_palette([(0, 0, 0)] + [(255, 255, 255)] * 255)
    mask.to_surface(surface, setcolor=(255, 255, 255, 255), unsetcolor=(0, 0, 0, 255))
    bits = pygame.surfarray.pixels2d(surface).T != 0  # [y, x]
    xs, ys = np.arange(0, width, cs), np.arange(0, height, cs)  # first pixel of each cell
    # Block sums; reduceat's last block runs to the end, so edge cells need no padding.
    counts = np.add.reduceat(np.add.reduceat(bits, xs, axis=1, dtype=np.int64), ys, axis=0)
    if threshold is None:
        blocked = counts > 0
    else:
        area = np.outer(np.minimum(cs, height - ys), np.minimum(cs, width - xs))
        blocked = counts >= float(threshold) * area
    return TileGrid(~blocked, cell_size=cs, origin=_pair(origin, "origin"), y_up=False)


def draw_grid(surface: pygame.Surface, grid: TileGrid, *, blocked_color: ColorLike = (70, 70, 80),
              open_color: ColorLike | None = None, line_color: ColorLike | None = None) -> None:
    """Draw a grid's blocked (and optionally open) cells and grid lines onto a surface.

    The cells are painted into a ``width x height`` pixel image with ``pygame.surfarray`` and
    scaled up by ``cell_size`` in one ``pygame.transform.scale`` call (no loop over cells), then
    blitted at the grid's origin. Colours may carry alpha for translucent overlays. For a static
    map, draw once onto a background surface and blit that each frame.

    Args:
        surface: the target; world coordinates are its pixel coordinates.
        grid: the grid to draw (``y_up`` grids are drawn with row 0 at the bottom).
        blocked_color: fill of cells that are not passable.
        open_color: fill of passable cells; ``None`` leaves them untouched.
        line_color: colour of 1-pixel cell borders; ``None`` draws none.
    """
    h, w = grid.shape
    blocked = ~grid.passable
    if grid.y_up:
        blocked = blocked[::-1]
    image = pygame.Surface((w, h), pygame.SRCALPHA)
    rgb, alpha = pygame.surfarray.pixels3d(image), pygame.surfarray.pixels_alpha(image)
    for cells, color in ((blocked.T, blocked_color), (~blocked.T, open_color)):
        if color is not None:
            c = pygame.Color(color)
            rgb[cells] = (c.r, c.g, c.b)
            alpha[cells] = c.a
    del rgb, alpha  # release the surface lock before scaling
    cs = grid.cell_size
    ox, oy = grid.origin
    surface.blit(pygame.transform.scale(image, (round(w * cs), round(h * cs))), (round(ox), round(oy)))
    if line_color is not None:
        for x in range(w + 1):
            px = round(ox + x * cs)
            pygame.draw.line(surface, line_color, (px, round(oy)), (px, round(oy + h * cs)))
        for y in range(h + 1):
            py = round(oy + y * cs)
            pygame.draw.line(surface, line_color, (round(ox), py), (round(ox + w * cs), py))


def draw_path(surface: pygame.Surface, path: Path | npt.ArrayLike, *, color: ColorLike = (255, 190, 0),
              width: int = 2, radius: int = 3) -> None:
    """Draw a path as a polyline through its waypoints, with a dot on each waypoint.

    Args:
        surface: the target; world coordinates are its pixel coordinates.
        path: a :class:`~gamenav.Path` (its ``points``) or an ``(n, 2)`` array of pixel ``(x, y)``.
        color: line and dot colour.
        width: line width in pixels.
        radius: waypoint dot radius in pixels (0: no dots).
    """
    points = np.asarray(path.points if isinstance(path, Path) else path, dtype=np.float64)
    if points.size == 0:
        return
    if points.ndim != 2 or points.shape[1] != 2:
        raise InvalidInputError(f"path points must have shape (n, 2), got {points.shape}")
    pts = points.tolist()
    if len(pts) >= 2:
        pygame.draw.lines(surface, color, False, pts, width)
    if radius > 0:
        for p in pts:
            pygame.draw.circle(surface, color, p, radius)


class PathFollower:
    """Moves a point, or a sprite's ``rect.center``, along grid paths at a speed, with arrival.

    ``go_to(goal)`` plans from the agent's cell to the goal's cell, either at once with
    :func:`gamenav.find_path` or through a shared ``gamenav.PathQueue`` (the game calls
    ``queue.update()`` once per frame; the agent holds still until its request is done).
    ``update(dt)`` moves the agent: first to its own cell's centre, then through the path's cell
    centres, finally to the exact goal point inside the goal cell. Each leg stays inside free
    cells, so the agent never enters a blocked cell. Within ``slow_radius`` of the goal the
    speed falls in proportion to the remaining distance (arrival); within ``arrive_radius`` it
    snaps onto the goal and stops. When the grid changes so that the path crosses a blocked cell
    (with ``smooth=True``: after any edit), the agent re-plans to the same goal.

    Args:
        grid: the walkable grid; its transform maps cells to pixels (see :func:`grid_from_rects`).
        target: the start ``(x, y)`` in pixels, or a ``pygame.sprite.Sprite`` whose
            ``rect.center`` is read once and then written on every update.
        speed: pixels per second (> 0).
        queue: a ``gamenav.PathQueue`` to request paths through, or ``None`` to search at once.
        slow_radius: pixels before the goal where slowing down starts (0: full speed to the
            end); defaults to one cell.
        arrive_radius: pixels from the goal where the agent snaps onto it (> 0).
        **search_options: passed to ``find_path`` / ``queue.request`` (e.g. ``diagonal="never"``).

    Example:
        >>> grid = grid_from_rects([(40, 0, 20, 80)], size=(100, 100), cell_size=20)
        >>> agent = PathFollower(grid, (10, 10), speed=100)
        >>> agent.go_to((90, 10)).name
        'FOUND'
        >>> for _ in range(200):
        ...     agent.update(1 / 30)
        >>> agent.arrived, agent.position
        (True, (90.0, 10.0))
    """

    def __init__(self, grid: TileGrid, target: Sequence[float] | pygame.sprite.Sprite, *, speed: float,
                 queue: Any = None, slow_radius: float | None = None, arrive_radius: float = 0.5,
                 **search_options: Any) -> None:
        if not isinstance(grid, TileGrid):
            raise InvalidInputError(f"grid must be a gamenav.TileGrid, got {type(grid).__name__}")
        self.grid = grid
        self.queue = queue
        self.sprite = target if isinstance(target, pygame.sprite.Sprite) else None
        start = self.sprite.rect.center if self.sprite is not None else target
        self._pos = np.array(_pair(start, "target"), dtype=np.float64)
        self.speed = _positive(speed, "speed")
        slow = grid.cell_size if slow_radius is None else float(slow_radius)
        if not math.isfinite(slow) or slow < 0:
            raise InvalidInputError(f"slow_radius must be a finite number >= 0, got {slow_radius!r}")
        self.slow_radius = slow
        self.arrive_radius = _positive(arrive_radius, "arrive_radius")
        self.search_options = search_options
        self.goal: tuple[float, float] | None = None
        self.path: Path | None = None
        self.status: PathStatus | None = None
        self.arrived = False
        self._request: Any = None
        self._waypoints = np.zeros((0, 2))
        self._tail = np.zeros(0)
        self._next = 0
        self._version = grid.version

    @property
    def position(self) -> tuple[float, float]:
        """The agent's pixel position ``(x, y)``."""
        return float(self._pos[0]), float(self._pos[1])

    @property
    def moving(self) -> bool:
        """True while there are waypoints left to walk."""
        return self._next < len(self._waypoints)

    def go_to(self, goal: Sequence[float]) -> PathStatus:
        """Plan a path to the pixel position ``goal``; returns the request's status.

        A goal outside the grid or on a blocked cell (or an agent standing on one) gives
        ``NO_PATH`` and the agent stops: clicking a wall is a normal outcome, not an error.
        With ``partial=True`` a blocked goal gives the ``PARTIAL`` path towards it instead.
        """
        self.stop()
        self.goal = _pair(goal, "goal")
        self._version = self.grid.version  # edits after this are checked against the path
        start_cell = tuple(int(v) for v in self.grid.world_to_cell(self._pos))
        goal_cell = tuple(int(v) for v in self.grid.world_to_cell(self.goal))
        goal_ok = self.grid.in_bounds(*goal_cell) if self.search_options.get("partial") \
            else self.grid.is_passable(*goal_cell)
        if not (self.grid.is_passable(*start_cell) and goal_ok):
            self.status = PathStatus.NO_PATH
        elif self.queue is None:
            self._take(find_path(self.grid, start_cell, goal_cell, **self.search_options))
        else:
            self._request = self.queue.request(self.grid, start_cell, goal_cell, **self.search_options)
            self.status = PathStatus.IN_PROGRESS
            self._poll()
        return self.status  # type: ignore[return-value]

    def stop(self) -> None:
        """Cancel any pending request and stand still (the goal is forgotten)."""
        if self._request is not None:
            self._request.cancel()
        self._request = None
        self.path, self.status, self.goal, self.arrived = None, None, None, False
        self._waypoints, self._next = np.zeros((0, 2)), 0

    def update(self, dt: float) -> None:
        """Advance by ``dt`` seconds: collect a finished request, re-plan after grid edits, move."""
        if not (math.isfinite(dt) and dt >= 0):
            raise InvalidInputError(f"dt must be a finite number of seconds >= 0, got {dt!r}")
        self._poll()
        if self.grid.version != self._version and self.path is not None and self.moving:
            self._version = self.grid.version
            cells = self.path.cells  # smoothed paths keep only waypoints: re-plan on any edit
            smooth = bool(self.search_options.get("smooth"))
            if smooth or not self.grid.passable[cells[:, 1], cells[:, 0]].all():
                self.go_to(self.goal)  # type: ignore[arg-type]
        self._move(self.speed * dt)
        if self.sprite is not None:
            self.sprite.rect.center = (round(self._pos[0]), round(self._pos[1]))

    def _poll(self) -> None:
        request = self._request
        if request is None or not request.done:
            return
        self._request = None
        if request.status is PathStatus.STALE and self.goal is not None:
            self.go_to(self.goal)
        else:
            self._take(request.path if request.status.has_path else Path.none(request.status))

    def _take(self, path: Path) -> None:
        self.path, self.status = path, path.status
        if not path.status.has_path:
            return
        start_centre = self.grid.cell_to_world(self.grid.world_to_cell(self._pos))
        legs = [start_centre[None], path.points]
        if path.status is PathStatus.FOUND:
            legs.append(np.asarray([self.goal], dtype=np.float64))
        self._waypoints, self._next = np.concatenate(legs), 0
        seg = np.hypot(*np.diff(self._waypoints, axis=0).T)
        self._tail = np.append(np.cumsum(seg[::-1])[::-1], 0.0)  # length from waypoint i to the end

    def _move(self, step: float) -> None:
        wps = self._waypoints
        if self._next >= len(wps):
            return
        here = wps[self._next] - self._pos
        remaining = math.hypot(here[0], here[1]) + float(self._tail[self._next])
        if self.slow_radius > 0:
            step *= min(1.0, remaining / self.slow_radius)
        if remaining - step <= self.arrive_radius:
            self._pos = wps[-1].copy()
            self._next = len(wps)
            self.arrived = self.status is PathStatus.FOUND
            return
        while step > 0:
            delta = wps[self._next] - self._pos
            dist = math.hypot(delta[0], delta[1])
            if dist > step:
                self._pos = self._pos + delta * (step / dist)
                return
            self._pos = wps[self._next].copy()
            step -= dist
            self._next += 1
