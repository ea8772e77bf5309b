"""ORCA: the numba kernel against a straightforward Python transcription of RVO2, and Crowd properties.

The reference below follows RVO2's Agent::computeNewVelocity line by line on plain lists: brute-force
neighbours (all agents sorted by distance, then index), wall edges from every passable/blocked cell
pair of the grid (sorted by distance, then world row, column and side), the obstacle and agent ORCA
lines, linearProgram1/2/3. The kernel must give the same velocities (1e-9).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import gamenav
from gamenav.runtime.crowd import _dilate
from gamenav._kernels.crowd import narrow_passages, passage_waits
from gamenav._kernels.orca import _NEAREST as NEAREST
from gamenav._kernels.orca import _agent_neighbours, blocked_table, cell_list, orca_velocities, resolve_discs

EPS = 1e-5


# -- the reference -------------------------------------------------------------------------
def det(a: tuple[float, float], b: tuple[float, float]) -> float:
    return a[0] * b[1] - a[1] * b[0]


def dot(a: tuple[float, float], b: tuple[float, float]) -> float:
    return a[0] * b[0] + a[1] * b[1]


def sub(a: tuple[float, float], b: tuple[float, float]) -> tuple[float, float]:
    return (a[0] - b[0], a[1] - b[1])


def add(a: tuple[float, float], b: tuple[float, float]) -> tuple[float, float]:
    return (a[0] + b[0], a[1] + b[1])


def mul(s: float, a: tuple[float, float]) -> tuple[float, float]:
    return (s * a[0], s * a[1])


def unit(a: tuple[float, float]) -> tuple[float, float]:
    n = math.sqrt(dot(a, a))
    return (a[0] / n, a[1] / n)


Line = tuple[tuple[float, float], tuple[float, float]]  # point, direction


def lp1(lines: list[Line], no: int, radius: float, opt: tuple[float, float],
        dir_opt: bool) -> tuple[float, float] | None:
    point, direction = lines[no]
    d = dot(point, direction)
    disc = d * d + radius * radius - dot(point, point)
    if disc < 0:
        return None
    t_left, t_right = -d - math.sqrt(disc), -d + math.sqrt(disc)
    for i in range(no):
        denominator = det(direction, lines[i][1])
        numerator = det(lines[i][1], sub(point, lines[i][0]))
        if abs(denominator) <= EPS:
            if numerator < 0:
                return None
            continue
        t = numerator / denominator
        if denominator >= 0:
            t_right = min(t_right, t)
        else:
            t_left = max(t_left, t)
        if t_left > t_right:
            return None
    if dir_opt:
        return add(point, mul(t_right if dot(opt, direction) > 0 else t_left, direction))
    t = dot(direction, sub(opt, point))
    t = t_left if t < t_left else t_right if t > t_right else t
    return add(point, mul(t, direction))


def lp2(lines: list[Line], radius: float, opt: tuple[float, float], dir_opt: bool) -> tuple[int, tuple[float, float]]:
    if dir_opt:
        result = mul(radius, opt)
    elif dot(opt, opt) > radius * radius:
        result = mul(radius, unit(opt))
    else:
        result = opt
    for i, (point, direction) in enumerate(lines):
        if det(direction, sub(point, result)) > 0:
            new = lp1(lines, i, radius, opt, dir_opt)
            if new is None:
                return i, result
            result = new
    return len(lines), result


def lp3(lines: list[Line], num_obst: int, begin: int, radius: float,
        result: tuple[float, float]) -> tuple[float, float]:
    distance = 0.0
    for i in range(begin, len(lines)):
        pi, di = lines[i]
        if det(di, sub(pi, result)) > distance:
            proj = list(lines[:num_obst])
            for j in range(num_obst, i):
                pj, dj = lines[j]
                determinant = det(di, dj)
                if abs(determinant) <= EPS:
                    if dot(di, dj) > 0:
                        continue
                    point = mul(0.5, add(pi, pj))
                else:
                    point = add(pi, mul(det(dj, sub(pi, pj)) / determinant, di))
                proj.append((point, unit(sub(dj, di))))
            fail, new = lp2(proj, radius, (-di[1], di[0]), True)
            if fail >= len(proj):
                result = new
            distance = det(di, sub(pi, result))
    return result


def wall_edges(walk: np.ndarray, cs: float, origin: tuple[float, float], y_up: bool) -> list[tuple]:
    """Every edge between a passable cell and a blocked (or outside) one, as RVO2 obstacle vertices."""
    h, w = walk.shape

    def blocked(i: int, j: int) -> bool:
        if not (0 <= i < w and 0 <= j < h):
            return True
        return not walk[h - 1 - j if y_up else j, i]

    edges = []
    for j in range(-1, h + 1):
        for i in range(-1, w + 1):
            if blocked(i, j):
                continue
            for side, (nx, ny) in enumerate(((1, 0), (-1, 0), (0, 1), (0, -1))):
                if not blocked(i + nx, j + ny):
                    continue
                d = (ny, -nx)
                mid = (origin[0] + (i + 0.5 + 0.5 * nx) * cs, origin[1] + (j + 0.5 + 0.5 * ny) * cs)
                p1 = sub(mid, mul(0.5 * cs, d))
                p2 = add(mid, mul(0.5 * cs, d))
                if not blocked(i + nx + d[0], j + ny + d[1]):
                    c2, nd = True, (-d[1], d[0])
                elif not blocked(i + d[0], j + d[1]):
                    c2, nd = True, d
                else:
                    c2, nd = False, (d[1], -d[0])
                if not blocked(i + nx - d[0], j + ny - d[1]):
                    c1, pd = True, (d[1], -d[0])
                elif not blocked(i - d[0], j - d[1]):
                    c1, pd = True, d
                else:
                    c1, pd = False, (-d[1], d[0])
                edges.append(((j, i, side), p1, p2, (float(d[0]), float(d[1])), c1, c2, pd, nd))
    return edges


def seg_dist_sq(a: tuple[float, float], b: tuple[float, float], p: tuple[float, float]) -> float:
    v = sub(b, a)
    r = dot(sub(p, a), v) / dot(v, v)
    if r < 0:
        return dot(sub(p, a), sub(p, a))
    if r > 1:
        return dot(sub(p, b), sub(p, b))
    q = add(a, mul(r, v))
    return dot(sub(p, q), sub(p, q))


def obstacle_lines(p, v, r, inv_t, edges) -> list[Line]:  # noqa: C901 - RVO2's structure, kept
    lines: list[Line] = []
    for _, a1, a2, d1, convex1, convex2, prev_d, next_d in edges:
        rel1, rel2 = sub(a1, p), sub(a2, p)
        if any(det(sub(mul(inv_t, rel1), lp), ld) - inv_t * r >= -EPS
               and det(sub(mul(inv_t, rel2), lp), ld) - inv_t * r >= -EPS for lp, ld in lines):
            continue
        dist_sq1, dist_sq2 = dot(rel1, rel1), dot(rel2, rel2)
        ov = sub(a2, a1)
        s = dot(mul(-1, rel1), ov) / dot(ov, ov)
        dist_sq_line = dot(sub(mul(-1, rel1), mul(s, ov)), sub(mul(-1, rel1), mul(s, ov)))
        if s < 0 and dist_sq1 <= r * r:
            if convex1:
                lines.append(((0.0, 0.0), unit((-rel1[1], rel1[0]))))
            continue
        if s > 1 and dist_sq2 <= r * r:
            if convex2 and det(rel2, next_d) >= 0:
                lines.append(((0.0, 0.0), unit((-rel2[1], rel2[0]))))
            continue
        if 0 <= s < 1 and dist_sq_line <= r * r:
            lines.append(((0.0, 0.0), mul(-1, d1)))
            continue
        o1, o2, c1, c2, left_nb, o2d, same = a1, a2, convex1, convex2, prev_d, next_d, False

        def legs(rel, dist_sq):
            leg = math.sqrt(max(dist_sq - r * r, 0.0))
            left = ((rel[0] * leg - rel[1] * r) / dist_sq, (rel[0] * r + rel[1] * leg) / dist_sq)
            right = ((rel[0] * leg + rel[1] * r) / dist_sq, (-rel[0] * r + rel[1] * leg) / dist_sq)
            return left, right

        if s < 0 and dist_sq_line <= r * r:
            if not convex1:
                continue
            same, o2, c2, o2d = True, a1, convex1, d1
            left_leg, right_leg = legs(rel1, dist_sq1)
        elif s > 1 and dist_sq_line <= r * r:
            if not convex2:
                continue
            same, o1, c1, left_nb = True, a2, convex2, d1
            left_leg, right_leg = legs(rel2, dist_sq2)
        else:
            left_leg = legs(rel1, dist_sq1)[0] if convex1 else mul(-1, d1)
            right_leg = legs(rel2, dist_sq2)[1] if convex2 else d1
        left_foreign = right_foreign = False
        if c1 and det(left_leg, mul(-1, left_nb)) >= 0:
            left_leg, left_foreign = mul(-1, left_nb), True
        if c2 and det(right_leg, o2d) <= 0:
            right_leg, right_foreign = o2d, True
        lc, rc = mul(inv_t, sub(o1, p)), mul(inv_t, sub(o2, p))
        cv = sub(rc, lc)
        t = 0.5 if same else dot(sub(v, lc), cv) / dot(cv, cv)
        t_left, t_right = dot(sub(v, lc), left_leg), dot(sub(v, rc), right_leg)
        if (t < 0 and t_left < 0) or (same and t_left < 0 and t_right < 0):
            u = unit(sub(v, lc))
            lines.append((add(lc, mul(r * inv_t, u)), (u[1], -u[0])))
            continue
        if t > 1 and t_right < 0:
            u = unit(sub(v, rc))
            lines.append((add(rc, mul(r * inv_t, u)), (u[1], -u[0])))
            continue

        def dsq(a):
            return dot(sub(v, a), sub(v, a))

        d_cut = math.inf if (t < 0 or t > 1 or same) else dsq(add(lc, mul(t, cv)))
        d_left = math.inf if t_left < 0 else dsq(add(lc, mul(t_left, left_leg)))
        d_right = math.inf if t_right < 0 else dsq(add(rc, mul(t_right, right_leg)))
        if d_cut <= d_left and d_cut <= d_right:
            ld = mul(-1, d1)
            lines.append((add(lc, mul(r * inv_t, (-ld[1], ld[0]))), ld))
        elif d_left <= d_right:
            if not left_foreign:
                lines.append((add(lc, mul(r * inv_t, (-left_leg[1], left_leg[0]))), left_leg))
        elif not right_foreign:
            ld = mul(-1, right_leg)
            lines.append((add(rc, mul(r * inv_t, (-ld[1], ld[0]))), ld))
    return lines


def agent_line(i, j, pos, vel, radius, inv_t, dt) -> Line:
    """RVO2's ORCA line of ``i`` against ``j``; ``i`` takes half of the avoidance, or 0.9 / 0.1 when
    ``j`` / ``i`` is over 1.6 times the other's radius (big units keep their line)."""
    share = 0.9 if radius[j] > 1.6 * radius[i] else 0.1 if radius[i] > 1.6 * radius[j] else 0.5
    rp, rv = sub(pos[j], pos[i]), sub(vel[i], vel[j])
    dist_sq, comb = dot(rp, rp), radius[i] + radius[j]
    if dist_sq > comb * comb:
        w = sub(rv, mul(inv_t, rp))
        d1 = dot(w, rp)
        if d1 < 0 and d1 * d1 > comb * comb * dot(w, w):
            wl = math.sqrt(dot(w, w))
            uw = mul(1 / wl, w)
            direction, u = (uw[1], -uw[0]), mul(comb * inv_t - wl, uw)
        else:
            leg = math.sqrt(dist_sq - comb * comb)
            if det(rp, w) > 0:
                direction = ((rp[0] * leg - rp[1] * comb) / dist_sq, (rp[0] * comb + rp[1] * leg) / dist_sq)
            else:
                direction = (-(rp[0] * leg + rp[1] * comb) / dist_sq, -(-rp[0] * comb + rp[1] * leg) / dist_sq)
            u = sub(mul(dot(rv, direction), direction), rv)
    else:
        w = sub(rv, mul(1 / dt, rp))
        wl = math.sqrt(dot(w, w))
        uw = mul(1 / wl, w)
        direction, u = (uw[1], -uw[0]), mul(comb / dt - wl, uw)
    return add(vel[i], mul(share, u)), direction


def reference_velocities(pos, vel, pref, radius, max_speed, neighbor_dist, max_neighbors, th, tho, dt,
                         walk, cs, origin, y_up, nearest: int | None = NEAREST) -> np.ndarray:
    pos = [tuple(p) for p in pos.tolist()]
    vel = [tuple(v) for v in vel.tolist()]
    edges = wall_edges(walk, cs, origin, y_up) if walk is not None else []
    out = []
    for i, p in enumerate(pos):
        reach = tho * max_speed[i] + radius[i]
        near = []
        for e in edges:
            key, a1, a2 = e[0], e[1], e[2]
            if det(sub(a1, p), sub(a2, p)) >= 0:
                continue
            d2 = seg_dist_sq(a1, a2, p)
            if d2 < reach * reach:
                near.append((d2, key, e))
        near.sort(key=lambda item: (item[0], item[1]))
        lines = obstacle_lines(p, vel[i], radius[i], 1 / tho, [e for _, _, e in near])
        num_obst = len(lines)
        others = sorted((dot(sub(pos[j], p), sub(pos[j], p)), j) for j in range(len(pos)) if j != i)
        for _, j in [o for o in others if o[0] < neighbor_dist ** 2][:max_neighbors]:
            lines.append(agent_line(i, j, pos, vel, radius, 1 / th, dt))
        out.append(solve(lines, num_obst, max_speed[i], tuple(pref[i]), nearest))
    return np.array(out, np.float64).reshape(-1, 2)


def solve(lines: list[Line], num_obst: int, max_speed: float, pref: tuple[float, float],
          nearest: int | None = NEAREST) -> tuple[float, float]:
    """RVO2's linear programs; infeasible: the walls and the ``nearest`` nearest agents' lines
    (the kernel's rule; None: RVO2's 3-D fallback at once)."""
    fail, result = lp2(lines, max_speed, pref, False)
    if fail < len(lines):
        near = len(lines) if nearest is None else min(len(lines), num_obst + nearest)
        if near < len(lines):
            fail_near, result_near = lp2(lines[:near], max_speed, pref, False)
            if fail_near == near:
                return result_near
        result = lp3(lines, num_obst, fail, max_speed, result)
    return result


NO_OBSTACLES = (np.zeros((0, 8)), np.zeros(2, np.int64), np.zeros(0, np.int64), 4.0, 1)
"""The kernels' obstacle table without an obstacle (see crowd_step)."""


def kernel_velocities(pos, vel, pref, radius, max_speed, neighbor_dist, max_neighbors, th, tho, dt,
                      walk, cs, origin, y_up, hcell) -> np.ndarray:
    out = np.empty_like(pos)
    passable = np.ones((1, 1), bool) if walk is None else walk
    none = np.zeros(len(pos), np.int64)
    orca_velocities(pos, vel, pref, radius, max_speed, np.zeros(len(pos)), np.zeros(len(pos)), np.zeros_like(pos), 0.0,
                    hcell, neighbor_dist, max_neighbors, th, tho, dt, passable, blocked_table(passable, y_up),
                    NO_OBSTACLES, origin[0], origin[1], cs, y_up, walk is not None, out, none, none.copy(),
                    np.zeros(len(pos), bool))
    return out


# -- kernel == reference ---------------------------------------------------------------------
@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), n=st.integers(1, 14), walls=st.booleans(), y_up=st.booleans(),
       max_neighbors=st.integers(1, 10))
def test_orca_kernel_matches_the_python_reference(seed: int, n: int, walls: bool, y_up: bool,
                                                  max_neighbors: int) -> None:
    rng = np.random.default_rng(seed)
    cs = float(rng.choice([1.0, 2.0]))
    origin = (float(rng.uniform(-3, 3)), float(rng.uniform(-3, 3)))
    walk = rng.random((6, 7)) > 0.3 if walls else None
    if walls:
        h, w = walk.shape
        free = np.argwhere(walk)
        if len(free) == 0:
            walk[2, 2] = True
            free = np.argwhere(walk)
        cells = free[rng.integers(0, len(free), n)]
        col = cells[:, 1]
        row_world = (h - 1 - cells[:, 0]) if y_up else cells[:, 0]
        pos = np.stack([origin[0] + (col + rng.uniform(0.1, 0.9, n)) * cs,
                        origin[1] + (row_world + rng.uniform(0.1, 0.9, n)) * cs], axis=1)
    else:
        pos = rng.uniform(0, 8, (n, 2))
    vel = rng.normal(scale=0.8, size=(n, 2))
    pref = rng.normal(scale=1.0, size=(n, 2))
    radius = rng.uniform(0.1, 0.5, n) * cs
    max_speed = rng.uniform(0.5, 2.0, n)
    args = (pos, vel, pref, radius, max_speed, float(rng.uniform(1, 6)), max_neighbors, float(rng.uniform(0.5, 3)),
            float(rng.uniform(0.3, 2)), 0.1, walk, cs, origin, y_up)
    got = kernel_velocities(*args, hcell=float(rng.uniform(0.5, 3)))
    want = reference_velocities(*args)
    np.testing.assert_allclose(got, want, atol=1e-9, rtol=0)


def test_a_pressed_agent_keeps_to_its_nearest_neighbours_before_the_3d_fallback() -> None:
    """Agent 0 between four agents close behind it and four a little farther ahead, all eight
    coming at it: no velocity meets all eight lines. It takes the velocity nearest its preferred
    one that the walls and its four nearest neighbours allow (here its preferred velocity, away
    from the four behind); RVO2's 3-D fallback compromises against all eight and crawls."""
    behind = np.pi + np.array([-0.9, -0.3, 0.3, 0.9])
    ahead = np.array([-0.9, -0.3, 0.3, 0.9])
    ring = np.vstack([np.stack([np.cos(behind), np.sin(behind)], axis=1) * 0.62,
                      np.stack([np.cos(ahead), np.sin(ahead)], axis=1) * 0.9])
    pos = np.vstack([[0.0, 0.0], ring])
    pref = np.vstack([[1.0, 0.0], -ring / np.hypot(*ring.T)[:, None]])
    vel = pref.copy()
    vel[0] = 0.0  # (agent 0 stands)
    n = len(pos)
    args = (pos, vel, pref, np.full(n, 0.3), np.full(n, 1.0), 5.0, 8, 1.0, 1.0, 0.1, None, 1.0, (0.0, 0.0),
            False)
    got = kernel_velocities(*args, hcell=1.0)[0]
    np.testing.assert_allclose(got, reference_velocities(*args)[0], atol=1e-9, rtol=0)
    np.testing.assert_allclose(got, [1.0, 0.0], atol=1e-9)
    assert np.hypot(*reference_velocities(*args, nearest=None)[0]) < 0.2, "RVO2 alone: a crawl"


def test_an_idle_agent_steps_off_a_movers_line_instead_of_being_shoved_along() -> None:
    """An idle agent right on the line of one walking 21 cells: it steps aside and is back to
    rest within a couple of cells of its spot (shoved ahead, it went all the way, 13.6 cells)."""
    grid = gamenav.TileGrid(np.ones((20, 30), bool))
    crowd = gamenav.Crowd(grid, [(4.5, 10.5), (12.5, 10.5)], radius=0.4, max_speed=3.0)
    crowd.move([0], (25.5, 10.5), formation=False)
    along = 0.0
    for _ in range(300):
        crowd.update(1 / 30)
        along = max(along, abs(crowd.positions[1, 0] - 12.5))
        assert min_pair_ratio(crowd.positions, crowd.radii) >= 0.95
        if crowd.arrived[0]:
            break
    assert crowd.arrived[0]
    assert along < 3.0


def test_a_small_agent_steps_aside_for_a_big_one() -> None:
    """Head on, a tank (radius 0.8) and a soldier (0.3): the soldier makes most of the detour."""
    pos = np.array([[0.0, 0.0], [12.0, 0.05]])
    vel = np.array([[1.0, 0.0], [-1.0, 0.0]])
    radius = np.array([0.8, 0.3])
    aside = np.zeros(2)
    for _ in range(200):
        pref = np.array([[1.0, 0.0], [-1.0, 0.0]])
        vel = kernel_velocities(pos, vel, pref, radius, np.full(2, 1.0), 5.0, 5, 2.0, 1.0, 0.1, None, 1.0,
                                (0.0, 0.0), False, hcell=2.0)
        pos = pos + 0.1 * vel
        aside = np.maximum(aside, np.abs(pos[:, 1] - [0.0, 0.05]))
        assert np.hypot(*(pos[0] - pos[1])) >= 1.1 - 1e-6
    assert pos[0, 0] > 12 and pos[1, 0] < 0, "they passed each other"
    assert aside[1] > 4 * aside[0] > 0, aside


def test_head_on_pair_passes_without_touching() -> None:
    pos = np.array([[0.0, 0.0], [10.0, 0.001]])
    vel = np.array([[1.0, 0.0], [-1.0, 0.0]])
    radius = np.full(2, 0.5)
    for _ in range(200):
        pref = np.array([[1.0, 0.0], [-1.0, 0.0]])
        vel = kernel_velocities(pos, vel, pref, radius, np.full(2, 1.0), 5.0, 5, 2.0, 1.0, 0.1, None, 1.0,
                                (0.0, 0.0), False, hcell=2.0)
        pos = pos + 0.1 * vel
        assert np.hypot(*(pos[0] - pos[1])) >= 1.0 - 1e-6
    assert pos[0, 0] > 10 and pos[1, 0] < 0, "they passed each other"


def test_agent_stops_short_of_a_wall() -> None:
    walk = np.ones((5, 10), bool)
    walk[:, 6] = False
    pos = np.array([[1.5, 2.5]])
    vel = np.zeros((1, 2))
    for _ in range(300):
        vel = kernel_velocities(pos, vel, np.array([[2.0, 0.0]]), np.array([0.4]), np.array([2.0]), 3.0, 5, 2.0,
                                1.0, 0.05, walk, 1.0, (0.0, 0.0), False, hcell=1.0)
        pos = pos + 0.05 * vel
        assert pos[0, 0] <= 6.0 - 0.4 + 1e-6
    assert pos[0, 0] > 5.5, "it still gets close"


# -- the crowd -------------------------------------------------------------------------------
def min_pair_ratio(pos: np.ndarray, radius: np.ndarray) -> float:
    """Smallest centre distance over the sum of radii, over all pairs."""
    d = np.hypot(*(pos[:, None] - pos[None]).transpose(2, 0, 1))
    comb = radius[:, None] + radius[None]
    np.fill_diagonal(d, np.inf)
    return float((d / comb).min())


def wall_overlap(crowd: gamenav.Crowd) -> float:
    """Deepest overlap (world units) of an agent's disc with a blocked or off-grid cell square."""
    g = crowd.grid
    worst = 0.0
    cs = g.cell_size
    walk = g.passable
    for (x, y), r in zip(crowd.positions.tolist(), crowd.radii.tolist(), strict=True):
        cx, cy = g.world_to_cell(np.array([x, y])).tolist()
        k = int(math.ceil(r / cs)) + 1
        for j in range(cy - k, cy + k + 1):
            for i in range(cx - k, cx + k + 1):
                if 0 <= i < g.width and 0 <= j < g.height and walk[j, i]:
                    continue
                lo = g.cell_to_world(np.array([i, j])) - cs / 2
                q = np.clip((x, y), lo, lo + cs)
                worst = max(worst, r - float(np.hypot(x - q[0], y - q[1])))
    return worst


@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), y_up=st.booleans())
def test_crowd_discs_stay_apart_and_off_walls(seed: int, y_up: bool) -> None:
    rng = np.random.default_rng(seed)
    walk = np.ones((18, 24), bool)
    for _ in range(6):  # rectangular blocks, leaving corridors of at least 2 cells
        x, y = rng.integers(2, 20), rng.integers(2, 15)
        walk[y:y + rng.integers(1, 3), x:x + rng.integers(1, 4)] = False
    grid = gamenav.TileGrid(walk, cell_size=2.0, y_up=y_up)
    free = np.argwhere(walk)[:, ::-1]
    n = 30
    picks = free[rng.choice(len(free), n, replace=False)]
    radius = rng.choice([0.3, 0.45, 0.6], n)
    crowd = gamenav.Crowd(grid, grid.cell_to_world(picks), radius=radius, max_speed=6.0)
    for start in range(0, n, 10):
        crowd.move(np.arange(start, start + 10), tuple(grid.cell_to_world(free[rng.integers(0, len(free))])))
    for _ in range(120):
        crowd.update(1 / 20)
        assert wall_overlap(crowd) <= 1e-6
        assert min_pair_ratio(crowd.positions, crowd.radii) >= 0.9


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), n=st.integers(1, 60), spread=st.sampled_from([1.0, 30.0, 1e7]),
       hcell=st.floats(0.05, 20.0), k=st.integers(1, 12))
def test_cell_list_neighbours_are_the_k_nearest(seed: int, n: int, spread: float, hcell: float, k: int) -> None:
    """Any cell size, any extent (a huge one makes the cells grow): the k nearest within range, by
    distance then index, as brute force finds them."""
    rng = np.random.default_rng(seed)
    pos = rng.uniform(0, 10, (n, 2)) + rng.integers(0, 2, (n, 1)) * spread  # one or two clusters
    pos[rng.random(n) < 0.2] = pos[0]  # coincident agents: ties by index
    size, ncx, ncy, start, order, cx, cy, minx, miny = cell_list(pos, hcell)
    assert size >= hcell and ncx * ncy <= 64 * n + 4096
    assert sorted(order.tolist()) == list(range(n)) and start[-1] == n
    reach = 6.0
    nb = np.empty(k, np.int64)
    nbd = np.empty(k)
    for i in range(n):
        count = _agent_neighbours(i, pos, size, ncx, ncy, start, order, cx, cy, minx, miny, reach, k, nb, nbd)
        d2 = ((pos - pos[i]) ** 2).sum(axis=1)
        want = sorted((float(d2[j]), j) for j in range(n) if j != i and d2[j] < reach * reach)[:k]
        assert [(float(a), int(b)) for a, b in zip(nbd[:count], nb[:count], strict=True)] == want


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), n=st.integers(2, 40), y_up=st.booleans())
def test_resolve_discs_separates_overlaps_and_keeps_off_walls(seed: int, n: int, y_up: bool) -> None:
    """Sparse enough to fit: the Gauss-Seidel sweeps leave no pair overlapping and no disc on a wall."""
    rng = np.random.default_rng(seed)
    walk = np.ones((24, 24), bool)
    walk[rng.integers(0, 24, 6), rng.integers(0, 24, 6)] = False
    grid = gamenav.TileGrid(walk, y_up=y_up)
    free = np.argwhere(walk)[:, ::-1]
    pos = grid.cell_to_world(free[rng.choice(len(free), n, replace=False)]) + rng.uniform(-0.5, 0.5, (n, 2))
    pos[1] = pos[0] + 0.01  # a deep overlap
    radius = rng.uniform(0.2, 0.5, n)
    mass = rng.choice([0.0, 0.5, 1.0], n)
    ox, oy = grid.origin
    stuck = resolve_discs(pos, radius, mass, walk, blocked_table(walk, y_up), NO_OBSTACLES, ox, oy, 1.0, y_up, 200, 0.0)
    assert stuck == 0
    d = np.hypot(*(pos[:, None] - pos[None]).transpose(2, 0, 1))
    np.fill_diagonal(d, np.inf)
    assert (d >= (radius[:, None] + radius[None]) * 0.999).all()
    crowd = gamenav.Crowd(grid, pos, radius=radius, max_speed=1.0)
    assert wall_overlap(crowd) <= 1e-6


def test_head_on_in_a_one_cell_corridor_the_older_order_goes_first() -> None:
    """Two discs that cannot pass each other in a corridor: the younger order backs out of it,
    then both arrive; never a wall overlap nor a pair overlap beyond 10% of a radius."""
    walk = np.zeros((7, 22), bool)
    walk[1:6, 1:6] = True  # rooms at both ends
    walk[1:6, 16:21] = True
    walk[3, 6:16] = True  # the corridor
    grid = gamenav.TileGrid(walk)
    crowd = gamenav.Crowd(grid, [(2.5, 3.5), (19.5, 3.5)], radius=0.4, max_speed=2.0)
    crowd.move([0], (19.5, 3.5), formation=False)
    crowd.move([1], (2.5, 3.5), formation=False)
    for _ in range(1500):
        crowd.update(1 / 30)
        assert wall_overlap(crowd) <= 1e-6
        assert min_pair_ratio(crowd.positions, crowd.radii) >= 0.95
        if crowd.arrived.all():
            break
    assert crowd.arrived.all() and not crowd.failed.any()


def test_add_and_remove_keep_ids_stable() -> None:
    grid = gamenav.TileGrid(np.ones((10, 10), bool))
    crowd = gamenav.Crowd(grid, [(1.5, 1.5), (2.5, 1.5), (3.5, 1.5)], radius=0.3, max_speed=2.0)
    assert crowd.ids.tolist() == [0, 1, 2]
    new = crowd.add([(5.5, 5.5), (6.5, 5.5)], radius=[0.2, 0.4], max_speed=3.0)
    assert new.tolist() == [3, 4] and len(crowd) == 5
    crowd.move([4], (8.5, 8.5), formation=False)
    crowd.remove([1, 3])
    assert crowd.ids.tolist() == [0, 2, 4] and len(crowd) == 3
    rows = crowd.rows([4, 0])
    assert rows.tolist() == [2, 0]
    assert crowd.radii[rows].tolist() == [0.4, 0.3] and crowd.max_speeds[2] == 3.0
    np.testing.assert_allclose(crowd.positions[1], (3.5, 1.5))
    with pytest.raises(gamenav.InvalidInputError, match=r"unknown agent ids \[1\]"):
        crowd.move([1], (2.0, 2.0))
    assert crowd.add([(1.5, 8.5)]).tolist() == [5], "ids are never reused"
    for _ in range(200):
        crowd.update(1 / 30)
    assert crowd.arrived[crowd.rows([4])[0]]
    np.testing.assert_allclose(crowd.positions[crowd.rows([4])[0]], (8.5, 8.5), atol=0.3)
    crowd.remove(crowd.ids)
    assert len(crowd) == 0
    crowd.update(1 / 30)


def test_big_units_plan_for_their_size_and_never_touch_walls() -> None:
    rows = ["...................."] * 3 + [
            "###...###.##########"] + [  # a 3-cell gap (tanks too) and a 1-cell gap (infantry)
            "...................."] * 3
    grid = gamenav.TileGrid.from_strings(rows, cell_size=2.0)
    crowd = gamenav.Crowd(grid, grid.cell_to_world([(10, 1), (14, 1)]), radius=[0.6, 1.6], max_speed=6.0)
    crowd.move([0], tuple(grid.cell_to_world((10, 5))), formation=False)
    crowd.move([1], tuple(grid.cell_to_world((14, 5))), formation=False)
    assert crowd.path(0).status.has_path and crowd.path(1).status.has_path
    tank_cells = np.asarray(crowd.path(1).cells)
    infantry_cells = np.asarray(crowd.path(0).cells)
    assert [9, 3] in infantry_cells.tolist(), "the infantry takes the short way through the 1-cell gap"
    assert (tank_cells[tank_cells[:, 1] == 3, 0] <= 5).all() and (tank_cells[:, 1] == 3).any(), \
        "the tank plans through the wide gap"
    for _ in range(300):
        crowd.update(1 / 20)
        assert wall_overlap(crowd) <= 1e-6
    assert crowd.arrived.all()


# -- one-way passages ----------------------------------------------------------------------------
def corridor_world(length: int = 10) -> tuple[gamenav.TileGrid, np.ndarray]:
    """Rooms at both ends of a one-cell corridor (row 3, columns 6 .. 5 + length)."""
    walk = np.zeros((7, 12 + length), bool)
    walk[1:6, 1:6] = True
    walk[1:6, 6 + length:11 + length] = True
    walk[3, 6:6 + length] = True
    return gamenav.TileGrid(walk), walk


def test_narrow_passages_label_the_corridor_only() -> None:
    grid, walk = corridor_world()
    labels, count = narrow_passages(walk, 1)
    assert count == 1
    assert (labels[3, 6:16] == 0).all() and (labels[walk] >= 0).sum() == 10, "the rooms are not narrow"
    labels, count = narrow_passages(walk, 5)
    assert count == 1 and (labels[walk] == 0).all(), "five-wide rooms are narrow for width 5"
    bridge = np.ones((9, 12), bool)
    bridge[:, 4:8] = False
    bridge[3:6, 4:8] = True  # three rows wide
    labels, count = narrow_passages(bridge, 3)
    assert count == 1 and (labels[3:6, 4:8] == 0).all() and (labels[bridge] >= 0).sum() == 12
    assert narrow_passages(bridge, 2)[1] == 0


def test_the_cells_near_passages_are_a_chebyshev_dilation() -> None:
    rng = np.random.default_rng(5)
    for k in (0, 1, 3):
        mask = rng.random((9, 13)) > 0.9
        ys, xs = np.nonzero(mask)
        yy, xx = np.mgrid[0:9, 0:13]
        want = np.zeros(mask.shape, bool)
        for y, x in zip(ys.tolist(), xs.tolist(), strict=True):
            want |= (np.abs(yy - y) <= k) & (np.abs(xx - x) <= k)
        assert np.array_equal(_dilate(mask, k), want)


def mouth_waits(pos, pref, order, claims=None, dt: float = 0.1) -> np.ndarray:
    """passage_waits on the corridor world (look 2 cells, claims held 1 s)."""
    _, walk = corridor_world()
    labels, count = narrow_passages(walk, 1)
    wait = np.empty(len(pos), bool)
    claims = np.zeros((1, 4)) if claims is None else claims
    passage_waits(np.asarray(pos, float), np.asarray(pref, float), np.asarray(order, np.int64), labels, count,
                  np.ones(walk.shape, bool), 2.0, 0.0, 0.0, 1.0, False, claims, 1.0, dt, wait)
    return wait


def test_an_agent_at_the_mouth_waits_for_the_ones_coming_out() -> None:
    inside_east = ((10.5, 3.5), (-2.0, 0.0))  # in the corridor, heading west
    at_west_mouth = ((4.9, 3.5), (2.0, 0.0))  # a cell before the corridor, heading in
    assert mouth_waits([inside_east[0], at_west_mouth[0]], [inside_east[1], at_west_mouth[1]], [2, 1]).tolist() == \
        [False, True], "the one inside goes on, whatever the orders"
    assert not mouth_waits([(10.5, 3.5), at_west_mouth[0]], [(2.0, 0.0), at_west_mouth[1]], [2, 1]).any(), \
        "following one the same way: no wait"
    assert not mouth_waits([(2.5, 3.5), at_west_mouth[0]], [(0.0, 0.0), at_west_mouth[1]], [2, 1]).any(), \
        "idle agents neither wait nor hold anyone up"
    assert not mouth_waits([at_west_mouth[0]], [(0.0, 2.0)], [1]).any(), "heading past the mouth: no wait"


def test_the_older_order_at_the_other_mouth_goes_first_and_keeps_its_turn() -> None:
    west, east = (4.9, 3.5), (16.1, 3.5)  # both a cell before the corridor, heading in
    claims = np.zeros((1, 4))
    assert mouth_waits([west, east], [(2.0, 0.0), (-2.0, 0.0)], [1, 2], claims).tolist() == [False, True]
    assert claims[0, 0] == 1 and claims[0, 3] == 1.0
    # the older one is pushed back out of sight for a moment: its claim holds (1 s), then lapses
    for _ in range(3):
        assert mouth_waits([east], [(-2.0, 0.0)], [2], claims, dt=0.25).tolist() == [True]
    assert mouth_waits([east], [(-2.0, 0.0)], [2], claims, dt=0.25).tolist() == [False]
    assert claims[0, 0] == 2, "the younger claims it now"


def test_the_younger_order_waits_well_back_from_a_claimed_passage() -> None:
    """A 3-cell bridge (rows 4 .. 6, columns 15 .. 24) between two rooms, two tanks (radius 0.8,
    too wide to pass each other on it): the older order enters from the west while the younger
    one stands seven cells east of the east mouth. The younger holds back there (steps aside,
    does not walk up to the mouth) while the older one crosses; both arrive."""
    walk = np.zeros((11, 44), bool)
    walk[1:10, 1:15] = True
    walk[1:10, 25:43] = True
    walk[4:7, 15:25] = True
    grid = gamenav.TileGrid(walk)
    crowd = gamenav.Crowd(grid, [(13.0, 5.5), (32.0, 5.5)], radius=0.8, max_speed=3.0)
    crowd.move([0], (40.5, 5.5), formation=False)
    crowd.move([1], (2.5, 5.5), formation=False)
    for _ in range(30):  # a second: the younger would have walked 3 cells
        crowd.update(1 / 30)
        assert crowd.positions[1, 0] > 30.5, "held back about six cells from the mouth"
    for _ in range(1200):
        crowd.update(1 / 30)
        if crowd.arrived.all():
            break
    assert crowd.arrived.all() and not crowd.failed.any()


def test_one_way_corridor_takes_turns_never_two_ways_at_once() -> None:
    """Four agents (the older order) and two (the younger) at both ends of a one-cell corridor:
    never agents of both directions inside at the same time; all arrive, never touching a wall
    nor overlapping another by more than 10% of a radius."""
    grid, walk = corridor_world()
    west = [(4.5, 2.5), (4.5, 3.5), (4.5, 4.5), (3.5, 3.5)]
    east = [(16.5, 3.5), (17.5, 2.5)]
    crowd = gamenav.Crowd(grid, west + east, radius=0.3, max_speed=3.0)
    for k, goal in enumerate([(19.5, 1.5), (19.5, 2.5), (19.5, 3.5), (19.5, 4.5)]):
        crowd.move([k], goal, formation=False)
    crowd.move([4], (1.5, 1.5), formation=False)
    crowd.move([5], (1.5, 2.5), formation=False)
    heading_east = np.arange(6) < 4
    entered = np.zeros(6, bool)
    for _ in range(1200):
        crowd.update(1 / 30)
        cells = grid.world_to_cell(crowd.positions)
        inside = (cells[:, 1] == 3) & (cells[:, 0] >= 6) & (cells[:, 0] < 16)
        entered |= inside
        assert not ((inside & heading_east).any() and (inside & ~heading_east).any())
        assert wall_overlap(crowd) <= 1e-6
        assert min_pair_ratio(crowd.positions, crowd.radii) >= 0.95
        if crowd.arrived.all():
            break
    assert crowd.arrived.all() and not crowd.failed.any() and entered.all()
