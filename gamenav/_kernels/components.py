"""Connected-component labelling of a passable mask, and its repair after a local edit.

Arrays are indexed ``[y, x]``. Labels are canonical: 0, 1, 2, ... in row-major order of each
island's first cell, -1 for blocked cells; ``first`` holds each label's first cell as a flat
index ``y * w + x``.

Repair (:func:`repair_components`) of the labels after an edit that changed only the cells of
a box B, in time proportional to the box and the small islands it cuts off, not to the grid:

1. Union-find over the passable cells of B and its one-cell ring (steps inside B + ring).
2. Islands are connected outside B exactly as before the edit, so only one thing is unknown:
   whether the ring cells of one old island, now in several groups, still meet outside B (or
   the edit split the island). Interleaved breadth-first fills, one per group, one cell each
   per round, restricted to the old island outside B, decide it: groups whose fills meet are
   unioned; the fills stop when at most one is still running. Every exhausted fill has
   enumerated a whole piece, so the cost is that of the small pieces (and of the meeting); the
   running one is the rest of the old island (usually: a building in an open area leaves one
   group in the ring and no fill runs at all). An edit that cuts an island into big pieces
   (a wall across the map) makes the fills give up after a given number of cells, and the
   caller labels the grid anew.
3. Canonical renumbering: the first cell of a new island is the least of its box and ring
   cells, of its fills' cells and, for the unexplored rest of an old island, its old first
   cell (or the first unvisited cell of that label at or after it, found by a row-major scan).
   Untouched islands keep their first cells; when the old -> new label table is the identity
   (no island created, removed, merged or reordered) only the box and the visited cells are
   written, else one pass applies the table.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
from numba import njit


@njit(cache=True, nogil=True)
def label_components(passable: npt.NDArray[np.bool_], eight: bool
                     ) -> tuple[npt.NDArray[np.int32], npt.NDArray[np.int64]]:
    """Label 4- (or 8-) connected regions of ``passable`` ``(h, w)`` bool.

    Returns ``(h, w)`` int32 labels, 0, 1, 2, ... in row-major order of each region's first
    cell, and -1 for blocked cells; and ``(n,)`` int64 flat index of each region's first cell.
    """
    h, w = passable.shape
    labels = np.full((h, w), -1, dtype=np.int32)
    stack = np.empty(h * w, dtype=np.int64)
    first = np.empty(h * w, dtype=np.int64)
    next_label = 0
    for sy in range(h):
        for sx in range(w):
            if not passable[sy, sx] or labels[sy, sx] >= 0:
                continue
            labels[sy, sx] = next_label
            first[next_label] = sy * w + sx
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
    return labels, first[:next_label].copy()


@njit(cache=True, nogil=True)
def _root(parent: npt.NDArray[np.int64], i: int) -> int:
    """Root of node ``i`` in the union-find forest ``parent`` (halving the path on the way)."""
    while parent[i] != i:
        parent[i] = parent[parent[i]]
        i = parent[i]
    return i


@njit(cache=True, nogil=True)
def _union(parent: npt.NDArray[np.int64], a: int, b: int) -> None:
    """Join the sets of nodes ``a`` and ``b`` (the lower root stays the root)."""
    a, b = _root(parent, a), _root(parent, b)
    if a != b:
        parent[max(a, b)] = min(a, b)


@njit(cache=True, nogil=True)
def _push(nxt: npt.NDArray[np.int32], head: npt.NDArray[np.int64], tail: npt.NDArray[np.int64],
          f: int, c: int) -> None:
    """Append cell ``c`` to fill ``f``'s queue (linked through ``nxt``; -1: empty / the end)."""
    nxt[c] = -1
    if tail[f] < 0:
        head[f] = c
    else:
        nxt[tail[f]] = c
    tail[f] = c


@njit(cache=True, nogil=True)
def repair_components(passable: npt.NDArray[np.bool_], labels: npt.NDArray[np.int32],
                      first: npt.NDArray[np.int64], eight: bool, y0: int, y1: int, x0: int, x1: int,
                      limit: int) -> tuple[bool, npt.NDArray[np.int64]]:
    """Turn the labels of an older ``passable`` into this one's, in place (see the module docstring).

    ``labels`` ``(h, w)`` int32 holds on entry the :func:`label_components` labels of a mask
    that differs from ``passable`` ``(h, w)`` bool only inside rows ``y0:y1``, columns ``x0:x1``
    (``first``: ``(n,)`` int64 flat index ``y * w + x`` of each label's first cell), and on exit
    those of ``passable``, equal to ``label_components(passable, eight)``. Returns ``(True, the
    new first cells)``, or ``(False, empty)`` when the fills would visit more than ``limit``
    cells (the edit split off big pieces: labelling anew is cheaper; ``labels`` is then left
    half made).
    """
    h, w = passable.shape
    flat = labels.ravel()
    n_old = first.shape[0]
    ry0, ry1, rx0, rx1 = max(y0 - 1, 0), min(y1 + 1, h), max(x0 - 1, 0), min(x1 + 1, w)
    bw = rx1 - rx0
    parent = np.full((ry1 - ry0) * bw, -1, dtype=np.int64)
    low = np.full((ry1 - ry0) * bw, h * w, dtype=np.int64)  # a component's first cell (per root)
    touched = np.zeros(n_old, dtype=np.bool_)
    ring = np.empty(parent.shape[0], dtype=np.int64)  # local nodes of the passable cells around the box
    n_ring = 0
    for y in range(ry0, ry1):
        for x in range(rx0, rx1):
            i = (y - ry0) * bw + x - rx0
            v = labels[y, x]
            if v >= 0:
                touched[v] = True
            inside = y0 <= y < y1 and x0 <= x < x1
            if inside:
                labels[y, x] = -1
            if passable[y, x]:
                parent[i] = i
                low[i] = y * w + x
                if not inside:
                    ring[n_ring] = i
                    n_ring += 1
    # 1. union the passable cells of box + ring through their steps inside box + ring
    for y in range(ry0, ry1):
        for x in range(rx0, rx1):
            i = (y - ry0) * bw + x - rx0
            if parent[i] < 0:
                continue
            for dy, dx in ((0, 1), (1, 0), (1, 1), (1, -1)):
                if dy != 0 and dx != 0 and not eight:
                    continue
                ny, nx = y + dy, x + dx
                if ny >= ry1 or nx < rx0 or nx >= rx1:
                    continue
                j = (ny - ry0) * bw + nx - rx0
                if parent[j] >= 0:
                    _union(parent, i, j)
    # 2. per old label around the box: its ring cells in several local groups may still be
    #    joined outside the box (or not: a split); interleaved fills from each group decide
    big = np.full(n_old, -1, dtype=np.int64)  # local node of the piece of old label that no fill exhausted
    key = np.empty(n_ring, dtype=np.int64)
    for k in range(n_ring):
        i = ring[k]
        key[k] = flat[(ry0 + i // bw) * w + rx0 + i % bw]
    order = np.argsort(key)
    nxt = np.empty(0, dtype=np.int32)
    seen = np.empty(0, dtype=np.int32)
    n_seen = 0
    n_fill = 0
    fnode = np.empty(n_ring, dtype=np.int64)
    frep = np.empty(n_ring, dtype=np.int64)
    head = np.empty(n_ring, dtype=np.int64)
    tail = np.empty(n_ring, dtype=np.int64)
    fmin = np.empty(n_ring, dtype=np.int64)
    k = 0
    while k < n_ring:
        lab = key[order[k]]
        r = _root(parent, ring[order[k]])
        end = k
        one = True
        while end < n_ring and key[order[end]] == lab:
            one = one and _root(parent, ring[order[end]]) == r
            end += 1
        if one:  # one group: the whole rest of the island hangs on it
            big[lab] = r
            k = end
            continue
        if nxt.shape[0] == 0:
            nxt = np.empty(h * w, dtype=np.int32)
            seen = np.empty(h * w, dtype=np.int32)
        f0 = n_fill
        for m in range(k, end):  # seed one fill per group with its ring cells
            i = ring[order[m]]
            r = _root(parent, i)
            f = f0
            while f < n_fill and fnode[f] != r:
                f += 1
            if f == n_fill:
                fnode[f] = r
                frep[f] = f
                head[f] = -1
                tail[f] = -1
                fmin[f] = h * w
                n_fill += 1
            c = (ry0 + i // bw) * w + rx0 + i % bw
            flat[c] = -2 - f
            seen[n_seen] = c
            n_seen += 1
            fmin[f] = min(fmin[f], c)
            _push(nxt, head, tail, f, c)
        alive = n_fill - f0
        while alive > 1:
            if n_seen > limit:
                return False, np.empty(0, dtype=np.int64)
            for f in range(f0, n_fill):
                if frep[f] != f or head[f] < 0 or alive <= 1:
                    continue
                c = head[f]
                head[f] = nxt[c]
                if head[f] < 0:
                    tail[f] = -1
                y = c // w
                x = c - y * w
                for dy in range(-1, 2):
                    ny = y + dy
                    if ny < 0 or ny >= h:
                        continue
                    for dx in range(-1, 2):
                        if (dx == 0 and dy == 0) or (not eight and dx != 0 and dy != 0):
                            continue
                        nx = x + dx
                        if nx < 0 or nx >= w:
                            continue
                        n = ny * w + nx
                        v = flat[n]
                        if v >= 0:  # unvisited, passable, outside the box: this fill's
                            flat[n] = -2 - f
                            seen[n_seen] = n
                            n_seen += 1
                            fmin[f] = min(fmin[f], n)
                            _push(nxt, head, tail, f, n)
                        elif v <= -2:  # another fill's cell: the two groups are one piece
                            g = _root(frep, -2 - v)
                            if g != f:
                                frep[g] = f
                                _union(parent, fnode[f], fnode[g])
                                fmin[f] = min(fmin[f], fmin[g])
                                if head[g] >= 0:
                                    if tail[f] < 0:
                                        head[f] = head[g]
                                    else:
                                        nxt[tail[f]] = head[g]
                                    tail[f] = tail[g]
                                    alive -= 1
                                head[g] = -1
                                tail[g] = -1
                if head[f] < 0:
                    alive -= 1
        for f in range(f0, n_fill):
            if frep[f] == f:
                r = _root(parent, fnode[f])
                low[r] = min(low[r], fmin[f])
                if head[f] >= 0:
                    big[lab] = r
        k = end
    # 3. first cells of the components around the box, then the canonical numbering
    for i in range(parent.shape[0]):
        if parent[i] >= 0:
            r = _root(parent, i)
            low[r] = min(low[r], low[i])
    for lab in range(n_old):
        if not touched[lab] or big[lab] < 0:
            continue
        r = _root(parent, big[lab])
        c = first[lab]
        v = flat[c]
        if v <= -2 and _root(parent, fnode[_root(frep, -2 - v)]) == r:
            continue  # the old first cell is on a fill of this component: its first cell already
        while c < h * w and flat[c] != lab and c < low[r]:
            c += 1
        low[r] = min(low[r], c)
    roots = np.empty(parent.shape[0], dtype=np.int64)
    n_new = 0
    for i in range(parent.shape[0]):
        if parent[i] == i:
            roots[n_new] = i
            n_new += 1
    roots = roots[:n_new]
    roots = roots[np.argsort(low[roots])]
    new_first = np.empty(n_old - np.count_nonzero(touched) + n_new, dtype=np.int64)
    remap = np.full(n_old, -1, dtype=np.int32)
    ident = np.full(parent.shape[0], -1, dtype=np.int32)  # root -> new label
    lab = 0
    m = 0
    same = True
    for out in range(new_first.shape[0]):
        while lab < n_old and touched[lab]:
            lab += 1
        if m < n_new and (lab >= n_old or low[roots[m]] < first[lab]):
            ident[roots[m]] = out
            new_first[out] = low[roots[m]]
            m += 1
        else:
            remap[lab] = out
            new_first[out] = first[lab]
            same = same and out == lab
            lab += 1
    for lab in range(n_old):
        if touched[lab] and big[lab] >= 0:
            remap[lab] = ident[_root(parent, big[lab])]
            same = same and remap[lab] == lab
    if not same:
        for c in range(h * w):
            if flat[c] >= 0:
                flat[c] = remap[flat[c]]
    for s in range(n_seen):
        c = seen[s]
        flat[c] = ident[_root(parent, fnode[_root(frep, -2 - flat[c])])]
    for y in range(y0, y1):
        for x in range(x0, x1):
            if passable[y, x]:
                labels[y, x] = ident[_root(parent, (y - ry0) * bw + x - rx0)]
    return True, new_first
