"""Debug drawing helpers shared by the arcade and pygame adapters.

Points are ``(x, y)`` world coordinates of the engine (pygame pixels, arcade world units).
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import numpy.typing as npt

Point = tuple[float, float]


def clip_polyline(points: npt.NDArray[np.float64], lo: npt.ArrayLike, hi: npt.ArrayLike
                  ) -> list[npt.NDArray[np.float64]]:
    """The parts inside the box ``lo`` .. ``hi`` (``(x, y)`` corners) of the polyline ``points``
    (``(n, 2)`` finite, n >= 2): ``[points]`` when it lies inside, else each part, ``(k, 2)``, k >= 2.

    Legs crossing the box's sides are cut exactly (:func:`_clip_leg`): shapely's clip overflowed
    for a leg spanning more than float64 holds (from -1e308 to 1e308: a RuntimeWarning, and a
    diagonal one was lost) and cut a leg between far points where its rounding put it (the leg
    from (-1e20, -5e19) to (1e20, 5e19) through y = 0 at x = 101, not y = 50.5)."""
    low, high = np.asarray(lo, np.float64), np.asarray(hi, np.float64)
    inside = np.asarray(((points >= low) & (points <= high)).all(axis=1))
    if inside.all():
        return [points]
    a, b = points[:-1], points[1:]
    beyond = ((a < low) & (b < low) | (a > high) & (b > high)).any(axis=1)  # (wholly past one side)
    parts: list[list[Point]] = []
    last = -2
    for i in np.flatnonzero(~beyond).tolist():
        start, end = (a[i][0], a[i][1]), (b[i][0], b[i][1])
        leg = (start, end) if inside[i] and inside[i + 1] else _clip_leg(start, end, low, high)
        if leg is None:
            continue
        if last == i - 1 and parts[-1][-1] == leg[0]:
            parts[-1].append(leg[1])
        else:
            parts.append(list(leg))
        last = i
    return [np.array(part, np.float64) for part in parts]


def _clip_leg(start: Point, end: Point, low: npt.NDArray[np.float64], high: npt.NDArray[np.float64]
              ) -> tuple[Point, Point] | None:
    """The part of the leg ``start`` .. ``end`` inside the box ``low`` .. ``high`` (Liang-Barsky in
    rationals: exact, then rounded once), or None when it has no length there."""
    origin = [Fraction(float(v)) for v in start]
    step = [Fraction(float(e)) - o for e, o in zip(end, origin, strict=True)]
    first, final = Fraction(0), Fraction(1)
    for o, d, lo, hi in zip(origin, step, low.tolist(), high.tolist(), strict=True):
        if d == 0:
            if not lo <= o <= hi:
                return None
            continue
        t_lo, t_hi = (Fraction(lo) - o) / d, (Fraction(hi) - o) / d
        first, final = max(first, min(t_lo, t_hi)), min(final, max(t_lo, t_hi))
    if first >= final:
        return None
    x0, y0 = (float(o + first * d) for o, d in zip(origin, step, strict=True))
    x1, y1 = (float(o + final * d) for o, d in zip(origin, step, strict=True))
    return (x0, y0), (x1, y1)
