"""Kernels for navmesh edits (see :mod:`gamenav.navmesh.dynamic`): island relabelling."""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["flood_label"]


@njit(cache=True, nogil=True)
def flood_label(nbrs, labels, seed, label):
    """Give ``label`` to every triangle edge-connected to ``seed`` (breadth first, in place).

    ``nbrs`` is the ``(T, 3)`` int64 adjacency (-1 = border), ``labels`` the ``(T,)`` int64
    island labels; ``label`` must differ from every label of the component before the call.
    Returns the number of triangles relabelled.
    """
    queue = np.empty(labels.shape[0], dtype=np.int64)
    labels[seed] = label
    queue[0] = seed
    head = 0
    tail = 1
    while head < tail:
        t = queue[head]
        head += 1
        for j in range(3):
            u = nbrs[t, j]
            if u >= 0 and labels[u] != label:
                labels[u] = label
                queue[tail] = u
                tail += 1
    return tail
