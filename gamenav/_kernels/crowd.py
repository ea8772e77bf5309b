"""Crowd kernels: the agents' spatial hash, separation, wall sliding, path following and flow-field descent.

Positions are ``(n, 2)`` float64 world ``(x, y)``; grid arrays are ``[y, x]``. The public wrapper
is :class:`gamenav.runtime.crowd.Crowd`; nothing here validates its inputs.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from gamenav._kernels.grid_search import _line_clear

__all__ = ["build_hash", "descend_field", "field_targets", "follow_paths", "narrow_passages", "passage_waits",
           "preferred_velocities", "resolve_walls", "separation", "walk_steps"]


_MAX_CELL = float(2**52)
"""Hash cell coordinates are clamped here (exact in float64, no int64 overflow in ``+ 1``)."""
MAX_CANDIDATES = 1024
"""Neighbour searches examine at most this many agents around each one: a crowd has a few dozen
there, while thousands spawned on one spot made them n**2 work (5000: seconds per update)."""
_MIX_X = np.uint64(0x9E3779B97F4A7C15)
_MIX_Y = np.uint64(0xC2B2AE3D27D4EB4F)
_SHIFT = np.uint64(29)


@njit(cache=True, nogil=True, inline="always")
def _slot(cx, cy, mask):  # pragma: no cover - compiled
    """First probe slot of hash cell ``(cx, cy)`` (both >= 0) in a table of ``mask + 1`` slots."""
    h = np.uint64(cx) * _MIX_X + np.uint64(cy) * _MIX_Y
    h ^= h >> _SHIFT
    return np.int64(h & np.uint64(mask))


@njit(cache=True, nogil=True, inline="always")
def _find(keys, cx, cy, mask):  # pragma: no cover - compiled
    """Slot of hash cell ``(cx, cy)`` in ``keys`` ((m, 2), -1 = empty): its own or the empty
    slot where it would go (linear probing; the table is never full)."""
    s = _slot(cx, cy, mask)
    while keys[s, 0] != -1 and (keys[s, 0] != cx or keys[s, 1] != cy):
        s = (s + 1) & mask
    return s


@njit(cache=True, nogil=True)
def build_hash(pos, hcell):  # pragma: no cover - compiled
    """The spatial hash of ``pos`` (n, 2) with square cells of ``hcell`` world units.

    Only occupied cells are stored: an open-addressing table ``keys`` (>= ``2 * n`` slots,
    (x, y) hash cell per slot, -1 empty) with ``head`` (first agent of the slot's cell) and
    ``nxt`` ((n,), next agent of the same cell, -1 last), each cell's agents chained in index
    order; ``cx, cy`` (n,) are the agents' hash cells, counted from the lowest agent
    coordinates and clamped to ``2**52``. O(n) time and memory whatever the world's extent; a
    clamped cell only holds more agents to test, it never hides a neighbour.
    Returns ``(keys, head, nxt, cx, cy)``; :func:`_find` looks a cell up.
    """
    n = pos.shape[0]
    minx = pos[0, 0] if n else 0.0
    miny = pos[0, 1] if n else 0.0
    for i in range(n):
        minx = min(minx, pos[i, 0])
        miny = min(miny, pos[i, 1])
    size = 4
    while size < 2 * n:
        size *= 2
    mask = size - 1
    keys = np.full((size, 2), -1, np.int64)
    head = np.full(size, -1, np.int64)
    nxt = np.empty(n, np.int64)
    cx = np.empty(n, np.int64)
    cy = np.empty(n, np.int64)
    for i in range(n - 1, -1, -1):  # head insertion in reverse: chains in ascending index order
        cx[i] = int(min((pos[i, 0] - minx) / hcell, _MAX_CELL))
        cy[i] = int(min((pos[i, 1] - miny) / hcell, _MAX_CELL))
        s = _find(keys, cx[i], cy[i], mask)
        keys[s, 0] = cx[i]
        keys[s, 1] = cy[i]
        nxt[i] = head[s]
        head[s] = i
    return keys, head, nxt, cx, cy


@njit(cache=True, nogil=True)
def separation(pos, vel, radius, out, flow):  # pragma: no cover - compiled
    """Neighbour terms of each agent, written into ``out`` and ``flow`` (both (n, 2)).

    ``out``: the push away from agents closer than ``2 * radius``, growing linearly from 0 at
    distance ``2 * radius`` to 1 at distance 0 (a sum of unit vectors; agents within
    ``2e-6 * radius`` of each other split along a direction set by their index). ``flow``: the
    mean velocity (``vel``, (n, 2); e.g. desired headings) of the agents closer than
    ``4 * radius`` (zero if none).
    Neighbours are found in the 3 x 3 cells around each agent in the spatial hash
    (:func:`build_hash`) of cell size ``4 * radius``, at most :data:`MAX_CANDIDATES` of them: O(n).
    """
    n = pos.shape[0]
    out[:, :] = 0.0
    flow[:, :] = 0.0
    if n < 2:
        return
    diam = 2.0 * radius
    reach = 2.0 * diam
    keys, head, nxt, cx, cy = build_hash(pos, reach)
    mask = keys.shape[0] - 1
    for i in range(n):
        px = pos[i, 0]
        py = pos[i, 1]
        sx = 0.0
        sy = 0.0
        fx = 0.0
        fy = 0.0
        count = 0
        left = MAX_CANDIDATES
        for yy in range(max(cy[i] - 1, 0), cy[i] + 2):
            for xx in range(max(cx[i] - 1, 0), cx[i] + 2):
                j = head[_find(keys, xx, yy, mask)]
                while j != -1 and left > 0:
                    left -= 1
                    if j != i:
                        dx = (px - pos[j, 0]) / diam  # (in diameters: no square underflows or overflows)
                        dy = (py - pos[j, 1]) / diam
                        d2 = dx * dx + dy * dy
                        if d2 < 4.0:  # (within reach)
                            fx += vel[j, 0]
                            fy += vel[j, 1]
                            count += 1
                            if d2 < 1.0:
                                if d2 < 1e-12:  # coincident: split deterministically by index
                                    angle = 2.399963 * (i + 1)
                                    dx = math.cos(angle)
                                    dy = math.sin(angle)
                                    d = 1.0
                                    strength = 1.0
                                else:
                                    d = math.sqrt(d2)
                                    strength = 1.0 - d
                                sx += dx / d * strength
                                sy += dy / d * strength
                    j = nxt[j]
        out[i, 0] = sx
        out[i, 1] = sy
        if count > 0:
            flow[i, 0] = fx / count
            flow[i, 1] = fy / count


@njit(cache=True, nogil=True, inline="always")
def _cell_of(x, y, ox, oy, cs, y_up, height):
    cxf = math.floor((x - ox) / cs)
    row = math.floor((y - oy) / cs)
    cy = height - 1 - row if y_up else row
    return int(cxf), int(cy)


@njit(cache=True, nogil=True, inline="always")
def _clamped_cell(x, y, ox, oy, cs, y_up, height, width):
    """The cell ``(x, y)`` of world point ``(x, y)``, clamped onto a grid of ``height`` x ``width``."""
    cx, cy = _cell_of(x, y, ox, oy, cs, y_up, height)
    return min(max(cx, 0), width - 1), min(max(cy, 0), height - 1)


@njit(cache=True, nogil=True, inline="always")
def _free(passable, x, y):
    return 0 <= y < passable.shape[0] and 0 <= x < passable.shape[1] and passable[y, x]


@njit(cache=True, nogil=True)
def resolve_walls(prev, pos, passable, ox, oy, cs, y_up, margin):  # pragma: no cover - compiled
    """Keep every agent on passable cells; modifies ``pos`` (n, 2) in place.

    An agent whose new position lies in a blocked (or off-grid) cell slides: it keeps the x move
    or the y move alone if that lands on a passable cell, else it stays at ``prev``. Then an agent
    closer than ``margin`` world units to the edge of a blocked neighbour cell is pushed back
    to that distance. ``prev`` must be on passable cells. Returns the number of agents that had
    to slide or stop.
    """
    h = passable.shape[0]
    hits = 0
    for i in range(pos.shape[0]):
        x = pos[i, 0]
        y = pos[i, 1]
        cx, cy = _cell_of(x, y, ox, oy, cs, y_up, h)
        if not _free(passable, cx, cy):
            hits += 1
            ax, ay = _cell_of(x, prev[i, 1], ox, oy, cs, y_up, h)
            bx, by = _cell_of(prev[i, 0], y, ox, oy, cs, y_up, h)
            if _free(passable, ax, ay):
                y = prev[i, 1]
            elif _free(passable, bx, by):
                x = prev[i, 0]
            else:
                x = prev[i, 0]
                y = prev[i, 1]
            cx, cy = _cell_of(x, y, ox, oy, cs, y_up, h)
        # push away from blocked orthogonal neighbours; world y of the cell's lower edge:
        left = ox + cx * cs
        row = h - 1 - cy if y_up else cy
        bottom = oy + row * cs
        up_dy = -1 if y_up else 1  # cell-row step that increases world y
        if not _free(passable, cx - 1, cy) and x < left + margin:
            x = left + margin
        if not _free(passable, cx + 1, cy) and x > left + cs - margin:
            x = left + cs - margin
        if not _free(passable, cx, cy - up_dy) and y < bottom + margin:
            y = bottom + margin
        if not _free(passable, cx, cy + up_dy) and y > bottom + cs - margin:
            y = bottom + cs - margin
        pos[i, 0] = x
        pos[i, 1] = y
    return hits


@njit(cache=True, nogil=True)
def walk_steps(passable, starts, goals, limits, out):  # pragma: no cover - compiled
    """Steps of the shortest walk from cell ``starts[i]`` to cell ``goals[i]`` (``(n, 2)`` int64
    ``(x, y)``) of at most ``limits[i]`` steps into ``out[i]`` (-1: none that short, or an end on a
    blocked cell). Moves: the 8 neighbours, a diagonal one only past two free cells (no corner
    cut), each one step. A breadth-first search of the ``2 * limits[i] + 1`` square around the
    start, stopped at the goal."""
    n = starts.shape[0]
    big = 0
    for i in range(n):
        big = max(big, limits[i])
    side = 2 * big + 1
    seen = np.zeros(side * side, np.int32)  # the stamp i + 1 of the last search that queued a cell
    queue = np.empty(min(side * side, passable.size), np.int64)
    for i in range(n):
        out[i] = -1
        sx, sy, gx, gy, lim = starts[i, 0], starts[i, 1], goals[i, 0], goals[i, 1], limits[i]
        if not (_free(passable, sx, sy) and _free(passable, gx, gy)) or max(abs(gx - sx), abs(gy - sy)) > lim:
            continue
        if sx == gx and sy == gy:
            out[i] = 0
            continue
        stamp = i + 1
        seen[big * side + big] = stamp
        queue[0] = sy * passable.shape[1] + sx
        head, tail, level_end, steps = 0, 1, 1, 0
        while head < tail and out[i] < 0:
            if head == level_end:
                steps += 1
                level_end = tail
            if steps >= lim:
                break
            y, x = divmod(queue[head], passable.shape[1])
            head += 1
            for dy in range(-1, 2):
                for dx in range(-1, 2):
                    nx, ny = x + dx, y + dy
                    if (dx == 0 and dy == 0) or abs(nx - sx) > lim or abs(ny - sy) > lim \
                            or not _free(passable, nx, ny):
                        continue
                    if dx != 0 and dy != 0 and not (passable[y, nx] and passable[ny, x]):
                        continue
                    k = (ny - sy + big) * side + nx - sx + big
                    if seen[k] == stamp:
                        continue
                    if nx == gx and ny == gy:
                        out[i] = steps + 1
                    seen[k] = stamp
                    queue[tail] = ny * passable.shape[1] + nx
                    tail += 1
    return out


@njit(cache=True, nogil=True)
def descend_field(field, passable, cells, out):  # pragma: no cover - compiled
    """For each ``(x, y)`` cell in ``cells`` (m, 2), write into ``out`` (m, 2) its lowest neighbour.

    Neighbours are the 8 surrounding cells; a diagonal one only when both orthogonal cells
    between are passable (no corner cutting). A cell with no lower neighbour maps to itself.
    """
    for k in range(cells.shape[0]):
        out[k, 0], out[k, 1] = _lowest_neighbour(field, passable, cells[k, 0], cells[k, 1])


@njit(cache=True, nogil=True, inline="always")
def _stopping_speed(dist, brake, dt):  # pragma: no cover - compiled
    """The highest speed from which braking at ``brake`` in steps of ``dt`` (each moving at the
    speed it ends with) stops within ``dist``: ``v`` with ``v**2 / (2 * brake) + v * dt / 2 = dist``;
    inf when that overflows (no limit)."""
    h = 0.5 * brake * dt
    s = math.sqrt(2.0 * dist) * math.sqrt(brake)  # (sqrt of each factor: no underflow on tiny grids)
    if not (h < math.inf and s < math.inf):
        return math.inf
    return s * (s / (math.hypot(h, s) + h)) if s > 0.0 else 0.0


@njit(cache=True, nogil=True)
def preferred_velocities(pos, goal, target, mode, speeds, idle, direct, arrive_radius, ease_dist, min_ease, dt,
                         brake, heading, want, desired):
    """Heading and preferred speed of every agent towards its steering target, in place.

    ``target`` ``(n, 2)``: the point each agent steers at, never overshot in ``dt`` (a very fast
    agent's sub-step may be longer than a turn of its path); agents in ``direct`` mode steer at
    their ``goal`` instead, slowing down within ``ease_dist`` of it, to no less than
    ``min_ease`` of their speed, and never overshooting it in ``dt``. Every agent is also slow
    enough to stop at its goal braking at ``brake`` (world units per second squared; inf:
    velocities change at once) in steps of ``dt`` (:func:`_stopping_speed`). ``heading`` ``(n, 2)``
    receives the unit direction (0 within ``1e-9 * ease_dist`` of the target: scaled
    with the grid); ``want`` ``(n,)`` the speed, 0 for agents in
    ``idle`` mode and for those arriving; ``desired`` ``(n, 2)`` their product, the preferred
    velocity. Returns the ``(n,)`` bool mask of agents arriving: in
    ``direct`` mode and closer than ``arrive_radius`` to their goal.
    """
    n = pos.shape[0]
    arrive = np.zeros(n, dtype=np.bool_)
    for i in range(n):
        px = pos[i, 0]
        py = pos[i, 1]
        goal_dist = math.hypot(goal[i, 0] - px, goal[i, 1] - py)
        if mode[i] == direct:
            dx = goal[i, 0] - px
            dy = goal[i, 1] - py
            ease = min(max(goal_dist / ease_dist, min_ease), 1.0)
            speed = min(speeds[i] * ease, goal_dist / dt)
            arrive[i] = goal_dist < arrive_radius
        else:
            dx = target[i, 0] - px
            dy = target[i, 1] - py
            speed = min(speeds[i], math.hypot(dx, dy) / dt)
        speed = min(speed, _stopping_speed(goal_dist, brake, dt))
        dist = math.hypot(dx, dy)
        if dist > 1e-9 * ease_dist:
            heading[i, 0] = dx / dist
            heading[i, 1] = dy / dist
        else:
            heading[i, 0] = 0.0
            heading[i, 1] = 0.0
        want[i] = 0.0 if mode[i] == idle or arrive[i] else speed
        desired[i, 0] = heading[i, 0] * want[i]
        desired[i, 1] = heading[i, 1] * want[i]
    return arrive


@njit(cache=True, nogil=True, inline="always")
def _put_waypoint(seg, aim, s, k, inv, ox, oy, cs, y_up, height, wx, wy, j):  # pragma: no cover - compiled
    """Store waypoint ``k`` of run ``s`` (``inv = 1 / steps``) at ``wx[j], wy[j]`` (see :func:`follow_paths`)."""
    if k >= seg[s, 4]:
        wx[j] = aim[s, 0]
        wy[j] = aim[s, 1]
    else:
        f = k * inv
        cy = seg[s, 1] + np.rint(seg[s, 3] * f)
        wx[j] = ox + (seg[s, 0] + np.rint(seg[s, 2] * f) + 0.5) * cs
        wy[j] = oy + ((height - 1 - cy if y_up else cy) + 0.5) * cs


@njit(cache=True, nogil=True)
def follow_paths(pos, mode, pcur, pk, pend, seg, aim, ox, oy, cs, y_up, height, look_ahead, reach, path_mode,
                 done_mode, target):  # pragma: no cover - compiled
    """Advance each path follower (``mode == path_mode``) along its waypoints; write its aim.

    Paths are stored by straight runs: row ``s`` of ``seg`` ((m, 5) int64: start cell ``ax, ay``,
    step ``dx, dy``, ``steps``) and ``aim`` ((m, 2) world: the run's end point) stands for the
    waypoints ``k = 1 .. steps``: the centres of cells ``a + rint(d * (k * (1 / steps)))``, the
    last one the run's end point itself (for navmesh paths, runs of one waypoint). Agent ``i``
    is at waypoint ``pk[i]`` of run ``pcur[i]``; its path ends before run ``pend[i]``.

    The agent takes the nearest of its next ``look_ahead`` waypoints, then skips (up to 3) ones
    it has passed (beyond the waypoint along the path) or come within ``reach`` of; past its
    last waypoint its mode becomes ``done_mode``, else it moves there and ``target[i]`` is that
    run's end point.
    """
    wx = np.empty(look_ahead + 4)
    wy = np.empty_like(wx)
    ws = np.empty(look_ahead + 4, np.int64)
    wk = np.empty_like(ws)
    for i in range(pos.shape[0]):
        if mode[i] != path_mode:
            continue
        px = pos[i, 0]
        py = pos[i, 1]
        # waypoints ahead into wx, wy (their run and number: ws, wk) as far as needed; the
        # path's last one is number final (-1: not among them yet); s, k: the next one to put
        s = pcur[i]
        k = pk[i]
        inv = 1.0 / seg[s, 4]
        count = 0
        final = -1
        best = 0
        best_d = np.inf
        for skip in range(look_ahead + 3):
            if final < 0 and (skip < look_ahead or best + 1 >= count):  # (the next one is needed)
                _put_waypoint(seg, aim, s, k, inv, ox, oy, cs, y_up, height, wx, wy, count)
                ws[count] = s
                wk[count] = k
                if k < seg[s, 4]:
                    k += 1
                elif s < pend[i] - 1:
                    s += 1
                    k = 1
                    inv = 1.0 / seg[s, 4]
                else:
                    final = count
                count += 1
            if skip < look_ahead:  # the nearest of the next look_ahead
                if skip < count:
                    d = math.hypot(wx[skip] - px, wy[skip] - py)  # (unsquared: no under- or overflow at any scale)
                    if d < best_d:
                        best = skip
                        best_d = d
                continue
            # then past the nearest (up to 3): beyond it along the path, or close enough
            ax = 0.0
            ay = 0.0
            if best != final:
                ax = (wx[best + 1] - wx[best]) / cs  # (in cells: the product does not underflow)
                ay = (wy[best + 1] - wy[best]) / cs
            if not ((px - wx[best]) * ax + (py - wy[best]) * ay > 0.0 or
                    math.hypot(wx[best] - px, wy[best] - py) < reach):
                break
            if best == final:
                mode[i] = done_mode
                break
            best += 1
        if mode[i] == path_mode:
            pcur[i] = ws[best]
            pk[i] = wk[best]
            target[i, 0] = aim[ws[best], 0]
            target[i, 1] = aim[ws[best], 1]


@njit(cache=True, nogil=True)
def _lowest_neighbour(field, passable, x, y):  # pragma: no cover - compiled
    """The lowest of cell ``(x, y)``'s 8 neighbours (no corner cutting), or itself."""
    h = field.shape[0]
    w = field.shape[1]
    bx = x
    by = y
    best = field[y, x] if (0 <= y < h and 0 <= x < w) else np.inf
    for dy in range(-1, 2):
        for dx in range(-1, 2):
            if dx == 0 and dy == 0:
                continue
            nx = x + dx
            ny = y + dy
            if not _free(passable, nx, ny):
                continue
            if dx != 0 and dy != 0 and not (_free(passable, x + dx, y) and _free(passable, x, y + dy)):
                continue
            v = field[ny, nx]
            if v < best:
                best = v
                bx = nx
                by = ny
    return bx, by


@njit(cache=True, nogil=True)
def field_targets(fields, near_min, ahead, sight, slot, group, passable, pos, goal, slot_cost, near, ox, oy, cs, y_up,
                  look_ahead, mode, field_mode, done_mode, target, blind):  # pragma: no cover - compiled
    """Flow-field descent of every agent in ``field_mode``, in one pass.

    Agent ``i`` descends ``fields[slot[group[i]]]`` (fields stacked ``(k, h, w)`` [y, x]; ``slot``
    maps group ids to their layer). Its cell (``pos`` (n, 2) world, clamped onto the grid) is
    valued by ``near_min`` (per layer, the lowest of the field in the 3 x 3 cells around each
    cell); within ``near`` of its slot's value (``slot_cost`` (n,)) its mode becomes
    ``done_mode`` (direct approach) when the straight line from its cell to its goal's cell
    (``goal`` (n, 2) world) is clear on its layer of ``sight`` ((k, (h + 2) * (w + 2)) uint8, the
    layer's finite cells padded with a ring of zeros; see ``grid_search._line_clear``), else
    ``blind[i]`` becomes True (the field, which leads to the order's target, does not lead to
    the slot round what is in the way). Otherwise ``target[i]`` is the world centre of the cell
    ``look_ahead`` steps down the field: ``ahead`` (per layer, int64 ``y * w + x``; -1 unknown)
    memoises it.
    """
    h = fields.shape[1]
    w = fields.shape[2]
    for i in range(pos.shape[0]):
        if mode[i] != field_mode:
            continue
        k = slot[group[i]]
        x, y = _clamped_cell(pos[i, 0], pos[i, 1], ox, oy, cs, y_up, h, w)
        if near_min[k, y, x] <= slot_cost[i] + near:
            gx, gy = _clamped_cell(goal[i, 0], goal[i, 1], ox, oy, cs, y_up, h, w)
            if _line_clear(sight[k], w + 2, x + 1, y + 1, gx + 1, gy + 1):
                mode[i] = done_mode
                continue
            blind[i] = True
        a = ahead[k, y, x]
        if a < 0:
            ax = x
            ay = y
            for _ in range(look_ahead):
                ax, ay = _lowest_neighbour(fields[k], passable, ax, ay)
            a = ay * w + ax
            ahead[k, y, x] = a
        ax = a % w
        ay = a // w
        target[i, 0] = ox + (ax + 0.5) * cs
        target[i, 1] = oy + ((h - 1 - ay if y_up else ay) + 0.5) * cs


@njit(cache=True, nogil=True)
def narrow_passages(passable, width):  # pragma: no cover - compiled
    """Label the one-way passages of ``passable`` [y, x]: the free cells whose run of free cells
    across them (the shorter of the row run and the column run; off-grid counts as blocked) is
    at most ``width`` cells, grouped into 4-connected passages numbered from 0.

    Returns ``(labels, count)``: ``labels`` [y, x] int64, -1 outside every passage.
    """
    h = passable.shape[0]
    w = passable.shape[1]
    run = np.zeros((h, w), np.int64)
    for y in range(h):  # row runs
        x = 0
        while x < w:
            if not passable[y, x]:
                x += 1
                continue
            x1 = x
            while x1 < w and passable[y, x1]:
                x1 += 1
            for k in range(x, x1):
                run[y, k] = x1 - x
            x = x1
    labels = np.full((h, w), -1, np.int64)
    for x in range(w):  # column runs
        y = 0
        while y < h:
            if not passable[y, x]:
                y += 1
                continue
            y1 = y
            while y1 < h and passable[y1, x]:
                y1 += 1
            for k in range(y, y1):
                if min(run[k, x], y1 - y) <= width:
                    labels[k, x] = -2  # narrow, not yet labelled
            y = y1
    count = 0
    stack = np.empty(h * w, np.int64)
    for y in range(h):
        for x in range(w):
            if labels[y, x] != -2:
                continue
            labels[y, x] = count
            stack[0] = y * w + x
            top = 1
            while top > 0:
                top -= 1
                c = stack[top]
                cy = c // w
                cx = c % w
                for d in range(4):
                    nx = cx + (1 if d == 0 else -1 if d == 1 else 0)
                    ny = cy + (1 if d == 2 else -1 if d == 3 else 0)
                    if 0 <= nx < w and 0 <= ny < h and labels[ny, nx] == -2:
                        labels[ny, nx] = count
                        stack[top] = ny * w + nx
                        top += 1
            count += 1
    return labels, count


@njit(cache=True, nogil=True)
def passage_waits(pos, pref, order, labels, count, near, look, ox, oy, cs, y_up, claims, hold, dt,
                  wait):  # pragma: no cover - compiled
    """Which agents wait at the mouth of a one-way passage (``labels``, ``count``:
    :func:`narrow_passages`), written into ``wait`` (n,) bool: opposing crossings take turns.

    An agent outside every passage whose preferred heading (``pref`` (n, 2); zero rows are
    idle agents, which never wait) meets a passage within ``look`` world units (probed every
    half cell, on the heading and half a cell to each side of it, so that an agent a little off
    the line of a narrow passage still sees it) is at its mouth. It waits when the agents inside
    mostly come towards it (the sum of their unit headings against its own below -0.5), or
    while the passage is claimed by an older order (``order`` (n,), lower is older) heading the
    other way (more than 120 degrees apart): the older order crosses first. ``claims`` (count,
    4) float64, kept between calls (initially all 0): per passage the claiming order, its
    heading (x, y) and the seconds the claim still holds; the oldest agent in a passage or at
    its mouth claims it (or renews its order's claim) for ``hold`` seconds, so that one pushed
    back from the mouth for a moment keeps its turn; ``dt`` seconds pass per call. ``near``
    [y, x] bool: the cells from which a probe can meet a passage (at least those within
    ``look`` plus a cell of one); agents elsewhere are not probed.
    """
    h = labels.shape[0]
    w = labels.shape[1]
    n = pos.shape[0]
    flow = np.zeros((max(count, 1), 2), np.float64)
    oldest = np.full(max(count, 1), -1, np.int64)  # the agent with the oldest order at each passage
    at = np.full(n, -1, np.int64)  # the passage each agent is in or at the mouth of
    inside = np.zeros(n, np.bool_)
    steps = int(look / (0.5 * cs))
    for i in range(n):
        wait[i] = False
        p = math.hypot(pref[i, 0], pref[i, 1])
        if p == 0.0:
            continue
        x = int(math.floor((pos[i, 0] - ox) / cs))
        row = int(math.floor((pos[i, 1] - oy) / cs))
        y = h - 1 - row if y_up else row
        if 0 <= x < w and 0 <= y < h and not near[y, x]:
            continue  # (far from every passage)
        ux = pref[i, 0] / p
        uy = pref[i, 1] / p
        for s in range(steps + 1):
            for side in range(3 if s > 0 else 1):  # on the heading, then half a cell to each side
                off = 0.0 if side == 0 else (0.5 * cs if side == 1 else -0.5 * cs)
                x = int(math.floor((pos[i, 0] + ux * 0.5 * cs * s - uy * off - ox) / cs))
                row = int(math.floor((pos[i, 1] + uy * 0.5 * cs * s + ux * off - oy) / cs))
                y = h - 1 - row if y_up else row
                if 0 <= x < w and 0 <= y < h and labels[y, x] >= 0:
                    at[i] = labels[y, x]
                    inside[i] = s == 0
                    break
            if at[i] >= 0:
                break
        c = at[i]
        if c < 0:
            continue
        if inside[i]:
            flow[c, 0] += ux
            flow[c, 1] += uy
        k = oldest[c]
        if k < 0 or order[i] < order[k] or (order[i] == order[k] and i < k):
            oldest[c] = i
    for c in range(count):
        claims[c, 3] = max(claims[c, 3] - dt, 0.0)
        k = oldest[c]
        if k >= 0 and (claims[c, 3] == 0.0 or order[k] <= claims[c, 0]):
            p = math.hypot(pref[k, 0], pref[k, 1])
            claims[c, 0] = order[k]
            claims[c, 1] = pref[k, 0] / p
            claims[c, 2] = pref[k, 1] / p
            claims[c, 3] = hold
    for i in range(n):
        c = at[i]
        if c < 0 or inside[i]:
            continue  # inside, it goes on (head-on meetings inside are ORCA's right of way)
        p = math.hypot(pref[i, 0], pref[i, 1])
        ux = pref[i, 0] / p
        uy = pref[i, 1] / p
        older = claims[c, 3] > 0.0 and claims[c, 0] < order[i] and claims[c, 1] * ux + claims[c, 2] * uy < -0.5
        wait[i] = older or flow[c, 0] * ux + flow[c, 1] * uy < -0.5
