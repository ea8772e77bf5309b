"""Hypothesis strategies for hostile input: wrong types, NaN, inf, huge ints, numpy scalars,
ragged and empty arrays, and small random grids and polygons."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import numpy.typing as npt
from hypothesis import reject
from hypothesis import strategies as st

import gamenav

__all__ = ["GridSpec", "cost_arrays", "grid_specs", "hostile", "hostile_cell", "hostile_count",
           "hostile_float", "hostile_point", "maybe", "rings", "spec_and_cells", "walkable_arrays"]

_ODD_SCALARS: list[Any] = [
    math.nan, math.inf, -math.inf, 2**63, 2**64, -(2**63) - 1, 10**30, -1, 0, 1, 2, 3, -0.0, 0.5,
    1e-300, 1e300, 1.7e308, True, False, None, "3", "x", "", b"1", [], (), {}, 1 + 1j,
    np.int64(3), np.int32(-2), np.uint8(200), np.uint64(2**64 - 1), np.float32("nan"),
    np.float64("inf"), np.float16(1.5), np.bool_(True), np.array(2), np.array([]),
    np.array([1, 2]), np.datetime64("2020-01-01"), object(), Ellipsis, slice(1, 2),
]


def hostile() -> st.SearchStrategy[Any]:
    """Any odd value: a mix of fixed nasty scalars, integers, floats and text."""
    return st.one_of(
        st.sampled_from(_ODD_SCALARS),
        st.integers(min_value=-(2**70), max_value=2**70),
        st.floats(allow_nan=True, allow_infinity=True),
        st.text(max_size=4),
    )


def hostile_float() -> st.SearchStrategy[Any]:
    """Mostly numbers (sensible, tiny, huge, NaN, inf), sometimes anything."""
    return st.one_of(
        st.floats(min_value=0.01, max_value=100.0),
        st.sampled_from([math.nan, math.inf, -math.inf, -1.0, 0.0, -0.0, 1e-300, 1e300, 1.7e308,
                         2**63, np.float32(2.5), np.int64(4), True, "2", None]),
        hostile(),
    )


def hostile_count() -> st.SearchStrategy[Any]:
    """Mostly small ints, sometimes huge, negative, floats, bools, numpy scalars, None."""
    return st.one_of(
        st.integers(min_value=1, max_value=50),
        st.sampled_from([0, -1, 2**63, 2**63 - 1, 2**64, -(2**63), None, True, False, 1.0, 2.5,
                         math.nan, math.inf, np.int64(5), np.uint64(2**63), np.int8(-1), "5"]),
        hostile(),
    )


def maybe(strategy: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """``strategy`` most of the time, any hostile value otherwise."""
    return st.one_of(strategy, strategy, strategy, hostile())


def walkable_arrays(max_side: int = 10) -> st.SearchStrategy[npt.NDArray[Any]]:
    """``(h, w)`` bool arrays, mostly walkable."""
    @st.composite
    def build(draw: st.DrawFn) -> npt.NDArray[Any]:
        h = draw(st.integers(1, max_side))
        w = draw(st.integers(1, max_side))
        density = draw(st.sampled_from([0.0, 0.1, 0.25, 0.4]))
        seed = draw(st.integers(0, 2**32 - 1))
        return np.random.default_rng(seed).random((h, w)) >= density
    return build()


_COSTS = np.array([1.0, 1.0, 1.0, 1.5, 2.0, 10.0, math.inf, 1e3])
_BIG_COSTS = np.array([1.0, 1e12, 1e11, 2.0, math.inf])
_EXTREME_COSTS = np.array([1.0, 1e300, 1.7e308, math.inf, 1e154])


def cost_arrays(shape: tuple[int, ...]) -> st.SearchStrategy[npt.NDArray[Any] | None]:
    """None (uniform), or an ``(h, w)`` cost array: small, big (up to 1e12) or, rarely,
    extreme (near 1e308: a grid may reject these)."""
    @st.composite
    def build(draw: st.DrawFn) -> npt.NDArray[Any] | None:
        kind = draw(st.sampled_from(["none"] * 4 + ["weighted"] * 4 + ["big", "extreme"]))
        if kind == "none":
            return None
        seed = draw(st.integers(0, 2**32 - 1))
        values = {"weighted": _COSTS, "big": _BIG_COSTS, "extreme": _EXTREME_COSTS}[kind]
        return np.random.default_rng(seed).choice(values, size=shape)
    return build()


class GridSpec:
    """The arguments of a :class:`gamenav.TileGrid`; its repr is code that builds the grid, so
    a falsifying example can be pasted into a reproducer."""

    def __init__(self, walkable: npt.NDArray[Any], cost: npt.NDArray[Any] | None, cell_size: float,
                 origin: tuple[float, float], y_up: bool) -> None:
        self.walkable, self.cost, self.cell_size, self.origin, self.y_up = (
            walkable, cost, cell_size, origin, y_up)

    @property
    def shape(self) -> tuple[int, int]:
        return (int(self.walkable.shape[0]), int(self.walkable.shape[1]))

    def build(self) -> gamenav.TileGrid:
        """A new grid from these arguments; an example the grid rejects (a GamenavError, e.g.
        extreme costs) is dropped, anything else propagates."""
        try:
            return gamenav.TileGrid(self.walkable, cost=self.cost, cell_size=self.cell_size,
                                    origin=self.origin, y_up=self.y_up)
        except gamenav.GamenavError:
            reject()

    def __repr__(self) -> str:
        rows = ["".join("." if v else "#" for v in row) for row in self.walkable]
        cost = "None" if self.cost is None else f"np.array({self.cost.tolist()!r})"
        return (f"TileGrid(np.array([[c == '.' for c in r] for r in {rows!r}]), cost={cost}, "
                f"cell_size={self.cell_size!r}, origin={self.origin!r}, y_up={self.y_up!r})")


def grid_specs(max_side: int = 10) -> st.SearchStrategy[GridSpec]:
    """Valid small grids, weighted or not, with odd but valid transforms."""
    @st.composite
    def build(draw: st.DrawFn) -> GridSpec:
        walk = draw(walkable_arrays(max_side))
        cost = draw(cost_arrays(walk.shape))
        cell_size = draw(st.sampled_from([1.0, 0.5, 16.0, 1e-6, 1e6]))
        origin = draw(st.sampled_from([(0.0, 0.0), (-5.0, 3.0), (1e6, -1e6)]))
        return GridSpec(walk, cost, cell_size, origin, draw(st.booleans()))
    return build()


def spec_and_cells(max_side: int = 10) -> st.SearchStrategy[tuple[GridSpec, tuple[int, int], tuple[int, int]]]:
    """A grid spec and two in-bounds cells (not necessarily passable)."""
    @st.composite
    def build(draw: st.DrawFn) -> tuple[GridSpec, tuple[int, int], tuple[int, int]]:
        spec = draw(grid_specs(max_side))
        h, w = spec.shape
        cell = st.tuples(st.integers(0, w - 1), st.integers(0, h - 1))
        return spec, draw(cell), draw(cell)
    return build()


def hostile_cell(width: int = 10, height: int = 10) -> st.SearchStrategy[Any]:
    """An ``(x, y)`` cell, in bounds or not, as a tuple, list or numpy array of odd dtypes, or junk."""
    xs = st.one_of(st.integers(0, max(0, width - 1)), st.integers(-3, width + 3), hostile())
    ys = st.one_of(st.integers(0, max(0, height - 1)), st.integers(-3, height + 3), hostile())
    pair = st.tuples(xs, ys)
    return st.one_of(
        pair, pair, pair,
        pair.map(list),
        st.tuples(st.integers(0, max(0, width - 1)), st.integers(0, max(0, height - 1))).flatmap(
            lambda c: st.sampled_from([np.array(c, dtype=d) for d in
                                       ("int64", "int8", "uint16", "float64", "bool", "object")])),
        st.lists(st.integers(0, 3), max_size=4),
        hostile(),
    )


def hostile_point() -> st.SearchStrategy[Any]:
    """A world ``(x, y)``: sensible, huge, tiny, NaN, inf, wrong shapes, numpy, junk."""
    coord = st.one_of(st.floats(-20, 20), st.floats(allow_nan=True, allow_infinity=True),
                      st.sampled_from([1e300, -1e300, 1e-300, 2**63, np.float32(1.5), np.int64(3)]))
    pair = st.tuples(coord, coord)
    return st.one_of(pair, pair, pair, pair.map(list), pair.map(np.array),
                     st.lists(st.floats(-5, 5), max_size=5), hostile())


def rings(max_vertices: int = 8) -> st.SearchStrategy[list[tuple[float, float]]]:
    """Random rings: convex-ish, self-intersecting, collinear or repeated points, odd scales."""
    @st.composite
    def build(draw: st.DrawFn) -> list[tuple[float, float]]:
        n = draw(st.integers(0, max_vertices))
        kind = draw(st.sampled_from(["random", "star", "collinear", "repeated"]))
        seed = draw(st.integers(0, 2**32 - 1))
        rng = np.random.default_rng(seed)
        if kind == "star" and n >= 3:
            angle = np.sort(rng.random(n)) * 2 * np.pi
            radius = 0.3 + rng.random(n)
            pts = np.stack([np.cos(angle) * radius, np.sin(angle) * radius], axis=1) * 5 + 5
        elif kind == "collinear":
            t = rng.random(n)
            pts = np.stack([t * 10, t * 5], axis=1)
        elif kind == "repeated":
            pts = np.repeat(rng.random((max(1, n // 2), 2)) * 10, 2, axis=0)[:n]
        else:
            pts = rng.random((n, 2)) * 10
        scale = draw(st.sampled_from([1.0, 1.0, 1.0, 1e-11, 1e-6, 1e6, 1e12, 1e80, 1e160, 1e300]))
        shift = draw(st.sampled_from([0.0, 0.0, -5.0, 1e9]))
        return [(float(x), float(y)) for x, y in pts * scale + shift]
    return build()
