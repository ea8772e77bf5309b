"""Connected-component labelling of a passable mask (flood fill with an explicit stack)."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
from numba import njit


@njit(cache=True, nogil=True)
def label_components(passable: npt.NDArray[np.bool_], eight: bool) -> npt.NDArray[np.int32]:
    """Label 4- (or 8-) connected regions of ``passable`` ``(h, w)`` bool.

    Returns ``(h, w)`` int32 labels, 0, 1, 2, ... in row-major order of each region's first
    cell, and -1 for blocked cells.
    """
    h, w = passable.shape
    labels = np.full((h, w), -1, dtype=np.int32)
    stack = np.empty(h * w, dtype=np.int64)
    next_label = 0
    for sy in range(h):
        for sx in range(w):
            if not passable[sy, sx] or labels[sy, sx] >= 0:
                continue
            labels[sy, sx] = next_label
            top = 0
            stack[0] = sy * w + sx
            top = 1
            while top > 0:
                top -= 1
                y = stack[top] // w
                x = stack[top] - y * w
                for dy in range(-1, 2):
                    ny = y + dy
                    if ny < 0 or ny >= h:
                        continue
                    for dx in range(-1, 2):
                        if dx == 0 and dy == 0:
                            continue
                        if not eight and dx != 0 and dy != 0:
                            continue
                        nx = x + dx
                        if nx < 0 or nx >= w:
                            continue
                        if passable[ny, nx] and labels[ny, nx] < 0:
                            labels[ny, nx] = next_label
                            stack[top] = ny * w + nx
                            top += 1
            next_label += 1
    return labels
