"""Congestion-aware flow fields: a group's field re-planned around the crowds coming the other way.

Two armies ordered through each other on the same corridor jam when their bodies may not
overlap (ORCA): the corridor is full of one army and the other cannot enter. A group's field
is therefore re-planned now and then with each cell's cost scaled up by the oncoming crowd on
it (:func:`oncoming_scale`), so that a group takes another corridor when one is free and stays
when there is none. This is the congestion term of continuum crowds (Treuille, Cooper and
Popovic, "Continuum Crowds", SIGGRAPH 2006) on a group's distance field.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

__all__ = ["ONCOMING_COST", "oncoming_scale"]

ONCOMING_COST = 20.0
"""A cell fully covered by oncoming agents costs this much more than its own cost (1 + 20 times)."""

_F64 = npt.NDArray[np.float64]
_I64 = npt.NDArray[np.int64]


def oncoming_scale(field: _F64, cells: _I64, ahead: _I64, cover: _F64) -> _F64 | None:
    """Cost scale ``(h, w)`` ``[y, x]`` for re-planning ``field`` (a distance field ``(h, w)``):
    ``1 + ONCOMING_COST * c`` with ``c`` the share of each cell covered by oncoming agents, the
    mean over the 3 x 3 cells around it. None when no agent comes the other way.

    ``cells`` and ``ahead`` ``(m, 2)`` ``(x, y)``: the cell of each candidate agent (the moving
    agents of other groups) and the cell one step along its heading; an agent comes the other
    way when ``field`` grows along its step (both cells finite). ``cover`` ``(m,)``: the share of
    a cell each one's disc covers (``pi r^2 / cell_size^2``).
    """
    h, w = field.shape
    here = field[cells[:, 1], cells[:, 0]]
    there = field[ahead[:, 1], ahead[:, 0]]
    oncoming = np.isfinite(here) & np.isfinite(there) & (there > here)
    if not oncoming.any():
        return None
    flat = cells[oncoming, 1] * w + cells[oncoming, 0]
    share = np.bincount(flat, weights=cover[oncoming], minlength=h * w).reshape(h, w)
    padded = np.pad(share, 1)
    box = np.zeros((h, w))
    for dy in range(3):
        for dx in range(3):
            box += padded[dy:dy + h, dx:dx + w]
    scale: _F64 = 1.0 + (ONCOMING_COST / 9.0) * box
    return scale
