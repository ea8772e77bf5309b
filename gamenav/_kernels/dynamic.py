"""Kernels for navmesh edits (see :mod:`gamenav.navmesh.dynamic`): island relabelling and the
padded bucket index (located with :func:`gamenav._kernels.navmesh.locate_points`).

Arrays and scalars only, no validation (the editor owns every array it passes in).
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["index_add", "index_remove", "relabel", "split_groups"]


@njit(cache=True, nogil=True)
def relabel(nbrs, labels, seed, old, new, queue):
    """Breadth first from ``seed`` over the triangles labelled ``old``, giving them ``new``
    (in place). ``queue`` (``(T,)`` int64 scratch) holds the relabelled ids; returns how many."""
    if labels[seed] != old:
        return 0
    labels[seed] = new
    queue[0] = seed
    head = 0
    tail = 1
    while head < tail:
        t = queue[head]
        head += 1
        for j in range(3):
            u = nbrs[t, j]
            if u >= 0 and labels[u] == old:
                labels[u] = new
                queue[tail] = u
                tail += 1
    return tail


@njit(cache=True, nogil=True)
def _find(parent, x):
    while parent[x] != x:
        parent[x] = parent[parent[x]]
        x = parent[x]
    return x


@njit(cache=True, nogil=True)
def split_groups(nbrs, seeds, mark, stamp, queue, group):
    """Which of ``m`` seed triangles are still edge-connected: interleaved breadth-first
    searches, one per seed, that stop as soon as at most one of them can still grow.

    Work is bounded by the searches that run out (each a whole separated part) times ``m``,
    never by the part that keeps growing. ``mark`` (``(T,)`` int64, < ``stamp`` everywhere)
    records visits as ``stamp + seed index``; ``queue`` and ``group`` are ``(T,)`` scratch.

    Returns ``(root, done, tail)``: ``root[i]`` the seed index representing seed ``i``'s
    connected group (as far as the searches met), ``done[i]`` True when seed ``i``'s group was
    searched to the end (a complete separate part, its triangles are the ``queue[:tail]``
    entries whose ``root[group]`` equals it), ``tail`` the number of queue entries.
    """
    m = seeds.shape[0]
    parent = np.arange(m)
    active = np.zeros(m, dtype=np.int64)
    done = np.zeros(m, dtype=np.bool_)
    tail = 0
    for i in range(m):
        s = seeds[i]
        if mark[s] >= stamp:  # two seeds in one triangle
            a = _find(parent, mark[s] - stamp)
            if a != i:
                parent[i] = a
            continue
        mark[s] = stamp + i
        queue[tail] = s
        group[tail] = i
        tail += 1
        active[i] += 1
    live = 0
    for i in range(m):
        if parent[i] == i:
            live += 1
    head = 0
    while head < tail and live > 1:
        t = queue[head]
        g = _find(parent, group[head])
        head += 1
        active[g] -= 1
        for j in range(3):
            u = nbrs[t, j]
            if u < 0:
                continue
            if mark[u] >= stamp:
                h = _find(parent, mark[u] - stamp)
                if h != g:
                    parent[h] = g
                    active[g] += active[h]
                    live -= 1
            else:
                mark[u] = stamp + g
                queue[tail] = u
                group[tail] = g
                tail += 1
                active[g] += 1
        if active[g] == 0 and live > 1:
            done[g] = True
            live -= 1
    root = np.empty(m, dtype=np.int64)
    for i in range(m):
        root[i] = _find(parent, i)
    for k in range(tail):
        group[k] = root[group[k]]
    return root, done, tail


@njit(cache=True, nogil=True)
def index_remove(items, bounds, cells, ids, changed):
    """Remove triangle ``ids[k]`` from bucket ``cells[k]`` (``bounds[c]`` = ``[begin, end)`` of
    its live entries in ``items``: swap with the last one, shrink). ``changed`` receives the
    positions written; returns how many."""
    n = 0
    for k in range(cells.shape[0]):
        c = cells[k]
        last = bounds[c, 1] - 1
        for p in range(bounds[c, 0], last + 1):
            if items[p] == ids[k]:
                items[p] = items[last]
                items[last] = -1
                bounds[c, 1] = last
                changed[n] = p
                changed[n + 1] = last
                n += 2
                break
    return n


@njit(cache=True, nogil=True)
def index_add(items, bounds, cap, tail, cells, ids, changed):
    """Append triangle ``ids[k]`` to bucket ``cells[k]``; a full bucket moves to ``items[tail[0]:]``
    with twice the room (the caller keeps enough room there). ``changed`` receives the positions
    written; returns how many."""
    n = 0
    for k in range(cells.shape[0]):
        c = cells[k]
        b = bounds[c, 0]
        e = bounds[c, 1]
        if e - b >= cap[c]:
            nb = tail[0]
            for p in range(b, e):
                items[nb + p - b] = items[p]
                changed[n] = nb + p - b
                n += 1
            cap[c] = 2 * cap[c] + 8
            tail[0] = nb + cap[c]
            bounds[c, 0] = nb
            bounds[c, 1] = nb + e - b
            e = nb + e - b
        items[e] = ids[k]
        bounds[c, 1] = e + 1
        changed[n] = e
        n += 1
    return n
