"""Clearance: exact squared distance from cell centres to the nearest blocked square.

Units: quarter cells squared. A cell at offset ``(dx, dy)`` (in cells) from a cell centre has
its square at distance ``sqrt(f(dx) + f(dy)) / 2`` cells from that centre, with
``f(d) = (2|d| - 1)**2`` for ``d != 0`` and ``f(0) = 0``, so every distance squared is an exact
integer ``D = f(dx) + f(dy)``. Cells outside the map count as blocked.
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def clearance_box(passable, oy, ox, height, width, out, y0, y1, x0, x1, cap):
    """Fill ``out[y0:y1, x0:x1]`` with ``min(D, cap)``, D the smallest ``f(dx) + f(dy)`` over
    blocked squares (0 on blocked cells).

    ``passable``: ``(hw, ww)`` bool window of a ``(height, width)`` map whose cell ``[0, 0]`` is
    map cell ``(oy, ox)`` (row, column); ``out``: ``(hw, ww)`` uint8, same frame; the box is in
    window coordinates. Map cells outside the window are not read: the window must cover the box
    grown by the reach ``k`` (the largest k with ``(2k - 1)**2 < cap``) wherever that is inside
    the map. ``1 <= cap <= 255``.
    """
    reach = 0
    while (2 * reach + 1) * (2 * reach + 1) < cap:
        reach += 1
    bw = x1 - x0
    r0 = y0 - reach
    rows = y1 - y0 + 2 * reach
    if bw <= 0 or y1 <= y0:
        return
    g = np.empty((rows, bw), dtype=np.int32)
    for ri in range(rows):
        y = r0 + ri
        my = y + oy
        if my < 0 or my >= height:
            for i in range(bw):
                g[ri, i] = 0
            continue
        # left sweep: distance to the nearest blocked square at or left of x (within reach)
        last = x0 - reach - 1  # "none within reach"
        for x in range(x0 - reach, x1):
            mx = x + ox
            if mx < 0 or mx >= width or not passable[y, x]:
                last = x
            if x >= x0:
                d = x - last
                if d > reach:
                    g[ri, x - x0] = cap
                elif d == 0:
                    g[ri, x - x0] = 0
                else:
                    g[ri, x - x0] = min((2 * d - 1) * (2 * d - 1), cap)
        last = x1 + reach
        for x in range(x1 + reach - 1, x0 - 1, -1):
            mx = x + ox
            if mx < 0 or mx >= width or not passable[y, x]:
                last = x
            if x < x1:
                d = last - x
                if d <= reach:
                    v = 0 if d == 0 else (2 * d - 1) * (2 * d - 1)
                    if v < g[ri, x - x0]:
                        g[ri, x - x0] = v
    for y in range(y0, y1):
        ri = y - r0
        for i in range(bw):
            best = g[ri, i]
            k = 1
            while k <= reach:
                fk = (2 * k - 1) * (2 * k - 1)
                if fk >= best:
                    break
                v = fk + min(g[ri - k, i], g[ri + k, i])
                if v < best:
                    best = v
                k += 1
            out[y, x0 + i] = min(best, cap)
