"""Best-first search on a padded tile grid: A* / weighted A* / Dijkstra, path tracing, smoothing.

Layout shared with :mod:`gamenav._kernels.jps`: the grid is padded with a one-cell blocked border
and flattened row-major, so node ``n = (y + 1) * stride + (x + 1)`` and the neighbours of any
passable node are valid indices (no bounds checks in the loops). Arrays (``N`` padded cells):

* ``moves``: ``(N,)`` uint8, bit ``k`` set when the step ``OFFSET_X[k], OFFSET_Y[k]`` from the
  cell is allowed by the movement rule (0 for blocked cells and the border).
* ``cost``: ``(N,)`` float64 cell costs (>= 1; unread where blocked).
* ``g``: ``(N,)`` float64 best known cost from the start(s); ``parent``: ``(N,)`` int32.
* ``mark``: ``(N,)`` int32 generation stamps: ``== stamp`` open, ``== stamp + 1`` closed,
  ``== -stamp`` unseen with an upper bound of its g in ``g`` (a repaired distance field: see
  :func:`field_stale`; entered only below it), anything else unseen (so the arrays never need
  clearing between searches).
* Open list, one of two:

  - radix heap (monotone searches: Dijkstra, and A* with weight 1 and a consistent
    heuristic, where f never decreases): ``rkey`` (int64 bits of f, non-negative so ordered
    like the floats), ``rnext`` / ``rprev`` (int32 doubly linked bucket lists), ``rhead``
    ``(64,)`` int32 list heads and ``rmin`` ``(64,)`` int64 lower bounds of each bucket's keys.
    Bucket ``b > 0`` holds keys whose highest bit differing from ``last`` (the last key taken)
    is ``b - 1``; bucket 0 holds keys equal to it, taken last in first out; ``istate[5]`` has
    bit ``b`` set when bucket ``b`` is non-empty. A refill sets ``last`` to a lower bound of the
    first non-empty bucket, which agrees with the old ``last`` on every bit above that bucket,
    so every key keeps the bucket it would get from the new ``last`` (no bucket index needs
    storing). Decrease-key moves a node between lists, so there are no stale entries.
  - indexed binary heap (weighted A*, user heuristics): ``hf`` / ``hg`` (float64 f and g) and
    ``hn`` (int32 node) per slot, ``pos`` (int32) the slot of each open node. Order: smaller f,
    then larger g. Closed nodes whose g improves are reopened.

* ``istate``: int64 ``[stamp, open_count, expanded, best_node, last, nonempty]``;
  ``fstate``: float64 ``[best_h, best_g]`` (the closest node so far, for partial paths).

Expansion order is deterministic (a pure function of the inputs and the sequence of
operations), so a search sliced into any number of calls expands exactly what one call does.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import cast

import numpy as np
from numba import njit, types
from numba.extending import intrinsic

from gamenav._kernels.jps import jump, jump_directions

SQRT2 = math.sqrt(2.0)

IN_PROGRESS = 0
FOUND = 1
EXHAUSTED = 2

OFFSET_X = (1, -1, 0, 0, 1, 1, -1, -1)
"""x step of move bit k: east, west, south, north, then the diagonals NE, SE, NW, SW."""
OFFSET_Y = (0, 0, 1, -1, -1, 1, -1, 1)
"""y step of move bit k (rows grow downwards)."""


def _clz64_typing(typingctx, x):  # noqa: ARG001 - numba intrinsic signature
    """Count of leading zero bits of a non-zero int64 (LLVM ctlz)."""
    sig = types.int64(types.int64)

    def codegen(context, builder, signature, args):  # noqa: ARG001
        return builder.ctlz(args[0], context.get_constant(types.boolean, True))

    return sig, codegen


# numba's `intrinsic` keeps the typing function's signature (typingctx, x) for type checkers;
# kernels call it as f(x) -> int.
_clz64 = cast(Callable[[int], int], intrinsic(_clz64_typing))


def _ctz64_typing(typingctx, x):  # noqa: ARG001 - numba intrinsic signature
    """Count of trailing zero bits of a non-zero int64 (LLVM cttz)."""
    sig = types.int64(types.int64)

    def codegen(context, builder, signature, args):  # noqa: ARG001
        return builder.cttz(args[0], context.get_constant(types.boolean, True))

    return sig, codegen


_ctz64 = cast(Callable[[int], int], intrinsic(_ctz64_typing))


def _float_bits_typing(typingctx, x):  # noqa: ARG001 - numba intrinsic signature
    """The int64 with the bits of a float64 (ordered like the floats when both are >= 0)."""
    sig = types.int64(types.float64)

    def codegen(context, builder, signature, args):  # noqa: ARG001
        return builder.bitcast(args[0], context.get_value_type(types.int64))

    return sig, codegen


_float_bits = cast(Callable[[float], int], intrinsic(_float_bits_typing))


@njit(cache=True, nogil=True, inline="always")
def _bucket(key, last):
    x = key ^ last
    return 0 if x == 0 else 64 - _clz64(x)


@njit(cache=True, nogil=True, inline="always")
def _before(f1: float, g1: float, f2: float, g2: float) -> bool:
    """Binary heap order: smaller f, then larger g (branch-free)."""
    return (f1 < f2) | ((f1 == f2) & (g1 > g2))


@njit(cache=True, nogil=True)
def heap_sift_up(hf, hg, hn, pos, i, node, f, g):
    """Place ``node`` with keys ``f, g`` at slot ``i`` (free, or its own) and sift it up."""
    while i > 0:
        p = (i - 1) >> 1
        if not _before(f, g, hf[p], hg[p]):
            break
        hf[i] = hf[p]
        hg[i] = hg[p]
        hn[i] = hn[p]
        pos[hn[i]] = i
        i = p
    hf[i] = f
    hg[i] = g
    hn[i] = node
    pos[node] = i


@njit(cache=True, nogil=True)
def heap_pop(hf, hg, hn, pos, size):
    """Remove and return the top node of a heap of ``size`` entries (the caller decrements
    its size). Floyd's variant: sink the hole along the better children, sift the last up."""
    top = hn[0]
    size -= 1
    if size > 0:
        i = np.int64(0)  # not a literal: one specialisation of heap_sift_up for every caller
        while True:
            c = 2 * i + 1
            if c >= size:
                break
            if c + 1 < size:
                c += _before(hf[c + 1], hg[c + 1], hf[c], hg[c])
            hf[i] = hf[c]
            hg[i] = hg[c]
            hn[i] = hn[c]
            pos[hn[i]] = i
            i = c
        heap_sift_up(hf, hg, hn, pos, i, np.int64(hn[size]), hf[size], hg[size])
    return top


@njit(cache=True, nogil=True, inline="always")
def heuristic(code, table, node, x, y, gx, gy):
    """Heuristic from ``node`` at padded ``(x, y)`` to the goal at padded ``(gx, gy)``.

    ``code``: 0 manhattan, 1 octile, 2 chebyshev, 3 euclidean, 4 zero, 5 per-node ``table``.
    """
    if code == 4:
        return 0.0
    if code == 5:
        return table[node]
    dx = abs(x - gx)
    dy = abs(y - gy)
    if code == 1:
        if dx > dy:
            return dx + (SQRT2 - 1.0) * dy
        return dy + (SQRT2 - 1.0) * dx
    if code == 0:
        return float(dx + dy)
    if code == 2:
        return float(max(dx, dy))
    return math.sqrt(float(dx * dx + dy * dy))


@njit(cache=True, nogil=True)
def best_first_step(moves, passable, jump_table, cost, uniform, jps, stride, goal, gx, gy, hcode,
                    htable, weight, max_f, track_best, monotone, max_expansions, g, parent, mark,
                    rkey, rnext, rprev, rhead, rmin, hf, hg, hn, pos, istate, fstate):
    """Run A* (``weight`` >= 1), Dijkstra (``weight`` 0) or, with ``jps``, Jump Point Search
    for at most ``max_expansions`` expansions.

    The open list (radix heap if ``monotone``, else binary heap; JPS needs ``monotone``) must
    have been seeded with the start node(s). ``goal`` is a node or -1 (no goal: run until the
    open list is empty or the next f exceeds ``max_f``). A* and Dijkstra step along ``moves``;
    JPS jumps on ``passable`` and its ``jump_table`` (uniform cost, no corner cutting, octile
    ``hcode``; see :mod:`gamenav._kernels.jps`). With ``track_best``, every expanded node is
    compared with ``fstate`` by (heuristic, g) and the best kept in ``istate[3]``. With no
    goal (a distance field), a node's g always exceeds its parent's: a step too small to change
    the parent's g in float64 makes it the next float up (so the field's steepest descent from
    any reached node leads to a source).

    The radix-heap operations are written out here rather than called: with a call inside the
    loop the whole search ran about twice as slow. The binary heap (weighted A*, user
    heuristics) is called.

    Returns IN_PROGRESS (budget used up), FOUND (the goal is next) or EXHAUSTED.
    """
    stamp = np.int32(istate[0])
    closed = np.int32(stamp + 1)
    count = istate[1]
    expanded = istate[2]
    last = istate[4]
    nonempty = istate[5]
    budget = max_expansions
    max_key = _float_bits(max_f)
    dirs = np.empty(8 if jps else 0, dtype=np.int64)
    status = IN_PROGRESS
    while True:
        if count == 0:
            status = EXHAUSTED
            break
        if monotone:
            while rhead[0] < 0:  # refill bucket 0 from the first non-empty bucket
                b = _ctz64(nonempty)
                last = rmin[b]  # a lower bound of the bucket's keys, maybe not attained
                q = rhead[b]
                rhead[b] = -1
                nonempty ^= 1 << b
                while q >= 0:
                    r = rnext[q]
                    key = rkey[q]
                    b = _bucket(key, last)
                    rprev[q] = -1
                    h = rhead[b]
                    rnext[q] = h
                    if h >= 0:
                        rprev[h] = q
                        rmin[b] = min(rmin[b], key)
                    else:
                        rmin[b] = key
                        nonempty |= 1 << b
                    rhead[b] = q
                    q = r
            n = rhead[0]
            beyond = rkey[n] > max_key
        else:
            n = hn[0]
            beyond = hf[0] > max_f
        if n == goal:
            status = FOUND
            break
        if beyond:
            status = EXHAUSTED
            break
        if budget <= 0:
            break
        if monotone:
            h = rnext[n]
            rhead[0] = h
            if h >= 0:
                rprev[h] = -1
            else:
                nonempty ^= 1
        else:
            heap_pop(hf, hg, hn, pos, count)
        count -= 1
        mark[n] = closed
        gn = g[n]
        y = n // stride
        x = n - y * stride
        expanded += 1
        budget -= 1
        if track_best:
            hb = heuristic(hcode, htable, n, x, y, gx, gy)
            if hb < fstate[0] or (hb == fstate[0] and gn < fstate[1]):
                fstate[0] = hb
                fstate[1] = gn
                istate[3] = n
        if jps:  # noqa: SIM108 - bits of the successors to try: directions in dirs, or moves
            todo = (1 << jump_directions(passable, stride, n, parent[n], dirs)) - 1
        else:
            todo = np.int64(moves[n])
        while todo != 0:
            k = _ctz64(todo)
            todo &= todo - 1
            if jps:
                d = dirs[k]
                nb = jump(passable, jump_table, stride, n, d, goal, gx, gy)
                if nb < 0:
                    continue
                dist = abs(nb - n) // abs(d)
                dx = d - ((d + stride // 2) // stride) * stride  # offsets -1, 0, 1 only
                nx = x + dx * dist
                ny = y + (d - dx) // stride * dist
                ng = gn + (dist * SQRT2 if dx != 0 and d != dx else float(dist))
            else:
                dx = OFFSET_X[k]
                dy = OFFSET_Y[k]
                nb = n + dx + dy * stride
                nx = x + dx
                ny = y + dy
                if k < 4:  # noqa: SIM108 - one step kind per branch
                    ng = gn + (1.0 if uniform else cost[nb])
                else:
                    ng = gn + (SQRT2 if uniform else SQRT2 * cost[nb])
            if goal < 0 and ng <= gn:  # a field: a step lost in rounding next to gn counts one float step
                ng = np.nextafter(gn, np.inf)
            m = mark[nb]
            if m == stamp:
                if not ng < g[nb]:
                    continue
                is_open = True
            elif (m == closed and (monotone or not ng < g[nb] - 1e-9)) or (m == -stamp and not ng < g[nb]):
                continue  # closed, or unseen with a bound (a field repair) not beaten
            else:
                is_open = False
                mark[nb] = stamp
                count += 1
            g[nb] = ng
            parent[nb] = n
            f = ng + weight * heuristic(hcode, htable, nb, nx, ny, gx, gy)
            if monotone:
                if is_open:  # unlink from its bucket
                    q = rprev[nb]
                    r = rnext[nb]
                    if q >= 0:
                        rnext[q] = r
                    else:
                        b = _bucket(rkey[nb], last)  # still its bucket: see the module doc
                        rhead[b] = r
                        if r < 0:
                            nonempty ^= 1 << b
                    if r >= 0:
                        rprev[r] = q
                key = max(_float_bits(f), last)  # f >= last up to rounding
                b = _bucket(key, last)
                rkey[nb] = key
                rprev[nb] = -1
                h = rhead[b]
                rnext[nb] = h
                if h >= 0:
                    rprev[h] = nb
                    rmin[b] = min(rmin[b], key)
                else:
                    rmin[b] = key
                    nonempty |= 1 << b
                rhead[b] = nb
            else:
                heap_sift_up(hf, hg, hn, pos, pos[nb] if is_open else count - 1, nb, f, ng)
    istate[1] = count
    istate[2] = expanded
    istate[4] = last
    istate[5] = nonempty
    return status


@njit(cache=True, nogil=True, inline="always")
def _field_step(g, cost, node, k):
    """The value a distance field's step ``k`` into ``node`` gives from ``g`` (as
    :func:`best_first_step` adds it: cost times length, at least one float step up)."""
    ng = g + (cost[node] if k < 4 else SQRT2 * cost[node])
    return ng if ng > g else np.nextafter(g, np.inf)


@njit(cache=True, nogil=True, inline="always")
def _rests_on(old_moves, new_moves, old_cost, new_cost, g, stride, v):
    """``(kept, tight)``: the steps into ``v`` its value ``g[v]`` rests on (equal to the step's
    value from its cell) before an edit, and how many of them the edit kept (allowed, no dearer)."""
    kept = 0
    tight = 0
    for k in range(8):
        u = v - OFFSET_X[k] - OFFSET_Y[k] * stride
        if (old_moves[u] >> k) & 1:
            before = _field_step(g[u], old_cost, v, k)
            if before == g[v]:
                tight += 1
                kept += (new_moves[u] >> k) & 1 != 0 and not _field_step(g[u], new_cost, v, k) > before
    return kept, tight


@njit(cache=True, nogil=True, inline="always")
def _room(a, n):
    """``a`` (int64) with room for index ``n``: doubled when full."""
    return a if n < a.shape[0] else np.concatenate((a, np.empty(n, dtype=np.int64)))


@njit(cache=True, nogil=True)
def field_stale(old_moves, new_moves, old_cost, new_cost, g, stride, r0, r1, c0, c1, flags):
    """Find what a distance field ``g`` ((N,) float64, of the grid before an edit: its steps
    ``old_moves``, costs ``old_cost``) needs repaired after the edit (``new_moves``,
    ``new_cost``), which changed moves and costs only in the padded rows ``r0 <= r < r1`` and
    columns ``c0 <= c < c1`` (the changed cells and their neighbours).

    Sets ``flags`` ((N,) uint8, zeros on entry) to 1 on the stale cells: those whose value rests
    (is equal to the step's value from its cell) on no step the edit kept (allowed, no dearer)
    from a cell not stale; then to 2 on the seeds: the cells neither stale nor at inf with a step
    after the edit into a stale cell or into the box (others it leaves at 0 or 3 + the count of
    kept steps from cells not stale). Every cell not stale keeps a step from one not stale, so
    its value after the edit is at most the one before; with the stale cells at inf, a Dijkstra
    that starts from the seeds at their values and enters a cell only below its value
    (:func:`best_first_step`, marks ``-stamp``) gives the field of the edited grid exactly.
    Returns the number of stale cells.
    """
    stale = np.empty(1024, dtype=np.int64)
    count = 0
    for r in range(r0, r1):
        for c in range(c0, c1):
            v = r * stride + c
            if g[v] < np.inf:
                kept, tight = _rests_on(old_moves, new_moves, old_cost, new_cost, g, stride, v)
                if tight > 0 and kept == 0:  # (a source rests on no step)
                    stale = _room(stale, count)
                    stale[count] = v
                    count += 1
                    flags[v] = 1
                else:
                    flags[v] = 3 + kept
    i = 0
    while i < count:  # each stale cell takes one kept step from the cells resting on it
        x = stale[i]
        i += 1
        for k in range(8):
            y = x + OFFSET_X[k] + OFFSET_Y[k] * stride
            if (old_moves[x] >> k) & 1 and flags[y] != 1 and g[y] < np.inf:
                before = _field_step(g[x], old_cost, y, k)
                if before == g[y] and (new_moves[x] >> k) & 1 and not _field_step(g[x], new_cost, y, k) > before:
                    if flags[y] == 0:
                        flags[y] = 3 + _rests_on(old_moves, new_moves, old_cost, new_cost, g, stride, y)[0]
                    flags[y] -= 1
                    if flags[y] == 3:
                        stale = _room(stale, count)
                        stale[count] = y
                        count += 1
                        flags[y] = 1
    for i in range(count + (r1 - r0) * (c1 - c0)):  # the seeds: steps into stale and box cells
        if i < count:
            v = stale[i]
        else:
            j = i - count
            v = (r0 + j // (c1 - c0)) * stride + c0 + j % (c1 - c0)
        for k in range(8):
            u = v - OFFSET_X[k] - OFFSET_Y[k] * stride
            if flags[u] != 1 and (new_moves[u] >> k) & 1 and g[u] < np.inf:
                flags[u] = 2
    return count


@njit(cache=True, nogil=True)
def move_masks(passable, stride, diagonal, moves, r0, r1, c0, c1):
    """Write ``moves`` (see the module docstring) of a padded ``passable`` (N,) uint8 grid for
    the padded rows ``r0 <= r < r1`` and columns ``c0 <= c < c1`` (1 .. size for all cells).

    ``diagonal``: 0 never, 1 no corner cutting (both orthogonal neighbours passable),
    2 at most one of them blocked, 3 always.
    """
    for r in range(r0, r1):
        for c in range(c0, c1):
            n = r * stride + c
            mv = 0
            if passable[n] != 0:
                for k in range(8):
                    dx = OFFSET_X[k]
                    dy = OFFSET_Y[k]
                    if passable[n + dx + dy * stride] == 0:
                        continue
                    if k >= 4:
                        a = passable[n + dx]
                        b = passable[n + dy * stride]
                        if diagonal == 0 or (diagonal == 1 and (a == 0 or b == 0)) or (
                                diagonal == 2 and a == 0 and b == 0):
                            continue
                    mv |= 1 << k
            moves[n] = mv


@njit(cache=True, nogil=True)
def trace_path(parent, node, stride):
    """Cells ``(n, 2)`` int64 ``(x, y)`` (unpadded) from the root to ``node``.

    Consecutive nodes of the parent chain must lie on a straight or diagonal line (always true
    for A*, and for JPS jump points); the segments between them are filled in cell by cell.
    """
    count = 1
    n = node
    while parent[n] >= 0:
        p = parent[n]
        py = p // stride
        ny = n // stride
        count += max(abs(ny - py), abs((n - ny * stride) - (p - py * stride)))
        n = p
    out = np.empty((count, 2), dtype=np.int64)
    i = count - 1
    n = node
    out[i, 0] = n % stride - 1
    out[i, 1] = n // stride - 1
    while parent[n] >= 0:
        p = parent[n]
        py = p // stride
        px = p - py * stride
        ny = n // stride
        nx = n - ny * stride
        sx = (nx > px) - (nx < px)
        sy = (ny > py) - (ny < py)
        while nx != px or ny != py:
            nx -= sx
            ny -= sy
            i -= 1
            out[i, 0] = nx - 1
            out[i, 1] = ny - 1
        n = p
    return out


@njit(cache=True, nogil=True)
def _line_clear(passable, stride, x0, y0, x1, y1):
    """Whether the segment between the centres of padded cells is clear (supercover).

    Every cell the segment touches must be passable; where it passes exactly through a cell
    corner, both cells beside the corner must be passable too (no corner cutting).
    """
    nx = abs(x1 - x0)
    ny = abs(y1 - y0)
    sx = 1 if x1 > x0 else -1
    sy = 1 if y1 > y0 else -1
    x = x0
    y = y0
    ix = 0
    iy = 0
    while ix < nx or iy < ny:
        a = (1 + 2 * ix) * ny
        b = (1 + 2 * iy) * nx
        if a == b:
            if passable[y * stride + x + sx] == 0 or passable[(y + sy) * stride + x] == 0:
                return False
            x += sx
            y += sy
            ix += 1
            iy += 1
        elif a < b:
            x += sx
            ix += 1
        else:
            y += sy
            iy += 1
        if passable[y * stride + x] == 0:
            return False
    return True


@njit(cache=True, nogil=True)
def smooth_path(cells, passable, stride):
    """Indices of the waypoints kept by greedy line-of-sight smoothing of ``cells`` (n, 2).

    From each kept waypoint, the path is followed as long as the straight segment to the next
    cell is clear (:func:`_line_clear`); the last clear cell becomes the next waypoint. The first
    and last cells are always kept; a step of the input path that is not itself clear (a corner
    cut allowed by the movement rule) is kept as it is.
    """
    n = cells.shape[0]
    keep = np.empty(n, dtype=np.int64)
    keep[0] = 0
    count = 1
    anchor = 0
    i = 1
    while i < n - 1:
        if _line_clear(passable, stride, cells[anchor, 0] + 1, cells[anchor, 1] + 1,
                       cells[i + 1, 0] + 1, cells[i + 1, 1] + 1):
            i += 1
        else:
            keep[count] = i
            count += 1
            anchor = i
            i += 1
    if n > 1:
        keep[count] = n - 1
        count += 1
    return keep[:count]
