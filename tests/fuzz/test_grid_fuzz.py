"""TileGrid under hostile input: construction, edits, regions, transforms, islands, copies."""

from __future__ import annotations

import copy
import math
import pickle
from typing import Any

import numpy as np
import numpy.typing as npt
from hypothesis import given
from hypothesis import strategies as st

import gamenav
from tests.fuzz._harness import (
    FuzzFailure,
    Reporter,
    attempt,
    check_grid_path,
    fuzz_settings,
    raised,
)
from tests.fuzz.conftest import Runner
from tests.fuzz.strategies import (
    GridSpec,
    cost_arrays,
    grid_specs,
    hostile,
    hostile_cell,
    hostile_float,
    hostile_point,
    maybe,
    walkable_arrays,
)


def _walkable_inputs() -> st.SearchStrategy[Any]:
    arrays = walkable_arrays(8)
    return st.one_of(
        arrays, arrays, arrays.map(lambda a: a.tolist()), arrays.map(lambda a: a.astype(np.int8)),
        arrays.map(lambda a: a.astype(np.float64)), arrays.map(lambda a: a.astype(object)),
        arrays.map(lambda a: a.astype(np.int64) * 2), arrays.map(lambda a: a[None]),
        arrays.map(lambda a: a[0]), arrays.map(lambda a: a.T.copy()),
        st.sampled_from([[[True, False], [True]], [[1, 0], [0]], [], [[]], np.zeros((0, 3), bool),
                         np.zeros((3, 0), bool), "..#", ["..", ".#"], [[None, 1]], [[math.nan, 1.0]],
                         np.array([["a", "b"]]), np.ones((2, 2), dtype=np.complex128),
                         np.ones((2, 2), dtype="datetime64[s]")]),
        hostile())


def _cost_inputs(shape: tuple[int, ...]) -> st.SearchStrategy[Any]:
    return st.one_of(
        cost_arrays(shape), cost_arrays(shape),
        st.sampled_from([np.full(shape, math.nan), np.full(shape, -1.0), np.full(shape, 0.5),
                         np.full(shape, -math.inf), np.ones((shape[0] + 1, shape[1])),
                         np.full(shape, "2"), np.full(shape, 2, dtype=object), [[1.0]], 3.0,
                         np.ones(shape, dtype=np.int64), np.ones(shape, dtype=bool),
                         np.full(shape, np.float32(1e30))]),
        hostile())


def test_tilegrid_construction(run_fuzz: Runner) -> None:
    def body(rep: Reporter) -> None:
        @fuzz_settings(700)
        @given(data=st.data(), walkable=_walkable_inputs())
        def prop(data: st.DataObject, walkable: Any) -> None:
            shape = np.shape(walkable) if isinstance(walkable, np.ndarray) and walkable.ndim == 2 else (2, 2)
            cost = data.draw(_cost_inputs(shape), "cost")
            cell_size = data.draw(hostile_float(), "cell_size")
            origin = data.draw(maybe(hostile_point()), "origin")
            y_up = data.draw(maybe(st.booleans()), "y_up")
            rep.input("TileGrid", walkable=walkable, cost=cost, cell_size=cell_size,
                      origin=origin, y_up=y_up)
            grid = attempt(gamenav.TileGrid, walkable, cost=cost, cell_size=cell_size,
                           origin=origin, y_up=y_up)
            if raised(grid):
                return
            assert isinstance(grid, gamenav.TileGrid)
            if not (math.isfinite(grid.cell_size) and grid.cell_size > 0):
                raise FuzzFailure(f"accepted cell_size {cell_size!r} -> {grid.cell_size}")
            if not all(math.isfinite(v) for v in grid.origin):
                raise FuzzFailure(f"accepted origin {origin!r} -> {grid.origin}")
            costs = grid.cost[grid.passable]
            if np.isnan(grid.cost).any() or (costs < 1).any():
                raise FuzzFailure(f"accepted costs {grid.cost.tolist()}")
        prop()
    run_fuzz(body)


def _region() -> st.SearchStrategy[Any]:
    rect = st.tuples(*[st.integers(-3, 12)] * 4)
    return st.one_of(
        hostile_cell(), rect, rect.map(list), rect.map(np.array),
        rect.map(lambda r: np.array(r, dtype=np.float64)),
        st.tuples(*[st.sampled_from([0, 2**63, -(2**63), 2**62, True, np.int64(1), 1.0])] * 4),
        walkable_arrays(10), st.sampled_from([np.zeros((3, 3), bool), np.ones((2, 2), np.int64)]),
        hostile())


def test_tilegrid_edits_and_queries(run_fuzz: Runner) -> None:
    """Edits with hostile regions and values; after each, the grid still answers correctly."""
    def body(rep: Reporter) -> None:
        @fuzz_settings(900)
        @given(spec=grid_specs(10), data=st.data())
        def prop(spec: GridSpec, data: st.DataObject) -> None:
            grid = spec.build()
            op = data.draw(st.sampled_from(["set_walkable", "set_cost", "region_mask",
                                            "cell_to_world", "world_to_cell", "components",
                                            "connected"]), "op")
            before = (grid.walkable.copy(), grid.cost.copy(), grid.version)
            if op == "set_walkable":
                region = data.draw(_region(), "region")
                value = data.draw(st.one_of(st.booleans(), hostile()), "value")
                rep.input("set_walkable", grid=spec, region=region, value=value)
                out = attempt(grid.set_walkable, region, value)
                if not raised(out) and not _is_flag(value):
                    raise FuzzFailure(f"set_walkable accepted the non-bool value {value!r}")
            elif op == "set_cost":
                region = data.draw(_region(), "region")
                value = data.draw(st.one_of(st.sampled_from([1.0, 2.5, math.inf, 1e308]),
                                            _cost_inputs(grid.shape)), "cost")
                rep.input("set_cost", grid=spec, region=region, cost=value)
                out = attempt(grid.set_cost, region, value)
            elif op == "region_mask":
                region = data.draw(_region(), "region")
                rep.input("region_mask", grid=spec, region=region)
                out = attempt(grid.region_mask, region)
                if not raised(out) and (out.shape != grid.shape or out.dtype != np.bool_):
                    raise FuzzFailure(f"region_mask gave {out.dtype} {out.shape}")
            elif op == "cell_to_world":
                cells = data.draw(st.one_of(hostile_cell(), st.lists(hostile_cell(), max_size=3)), "cells")
                rep.input("cell_to_world", grid=spec, cells=cells)
                attempt(grid.cell_to_world, cells)
            elif op == "world_to_cell":
                points = data.draw(st.one_of(hostile_point(), st.lists(hostile_point(), max_size=3)), "points")
                rep.input("world_to_cell", grid=spec, points=points)
                out = attempt(grid.world_to_cell, points)
                if not raised(out):
                    back = grid.cell_to_world(out)
                    if not np.isfinite(back).all():
                        raise FuzzFailure(f"world_to_cell({points!r}) gave cells {out!r}")
            elif op == "components":
                diagonal = data.draw(maybe(st.sampled_from([d.value for d in gamenav.Diagonal])), "diagonal")
                rep.input("components", grid=spec, diagonal=diagonal)
                out = attempt(grid.components, diagonal)
                if not raised(out) and ((out >= 0) != grid.passable).any():
                    raise FuzzFailure("components labels blocked cells or misses passable ones")
            else:
                a = data.draw(hostile_cell(grid.width, grid.height), "a")
                b = data.draw(hostile_cell(grid.width, grid.height), "b")
                diagonal = data.draw(maybe(st.sampled_from(["never", "always"])), "diagonal")
                rep.input("connected", grid=spec, a=a, b=b, diagonal=diagonal)
                out = attempt(grid.connected, a, b, diagonal)
                if not raised(out) and not isinstance(out, bool):
                    raise FuzzFailure(f"connected gave {out!r}")
            if op in ("set_walkable", "set_cost"):
                _check_after_edit(grid, before, out)
        prop()
    run_fuzz(body)


def _is_flag(value: Any) -> bool:
    """A bool, numpy bool or the integer 0 / 1 (what ``set_walkable`` documents)."""
    if isinstance(value, (bool, np.bool_)):
        return True
    return isinstance(value, (int, np.integer)) and value in (0, 1)


def _check_after_edit(grid: gamenav.TileGrid, before: tuple[npt.NDArray[Any], npt.NDArray[Any], int],
                      out: Any) -> None:
    walk, cost, version = before
    if raised(out):
        if grid.version != version or (grid.walkable != walk).any() or not np.array_equal(grid.cost, cost):
            raise FuzzFailure(f"a rejected edit ({out!r}) changed the grid")
        return
    if np.isnan(grid.cost).any() or (grid.cost < 1).any():
        raise FuzzFailure(f"an edit stored invalid costs {grid.cost.tolist()}")
    passable = grid.walkable & np.isfinite(grid.cost)
    if (passable != grid.passable).any():
        raise FuzzFailure("passable is not walkable & finite cost after an edit")
    # islands follow the edit
    labels = grid.components()
    if ((labels >= 0) != grid.passable).any():
        raise FuzzFailure("island labels stale after an edit")
    cells = np.argwhere(grid.passable)
    if len(cells) >= 2:
        (sy, sx), (gy, gx) = cells[0], cells[-1]
        path = gamenav.find_path(grid, (int(sx), int(sy)), (int(gx), int(gy)))
        check_grid_path(grid, path, (int(sx), int(sy)), (int(gx), int(gy)))


def test_tilegrid_copy_and_pickle(run_fuzz: Runner) -> None:
    """copy(), copy.copy, copy.deepcopy and pickle give independent, equal grids."""
    def body(rep: Reporter) -> None:
        @fuzz_settings(400)
        @given(spec=grid_specs(8), how=st.sampled_from(["copy", "copy.copy", "deepcopy", "pickle"]),
               data=st.data())
        def prop(spec: GridSpec, how: str, data: st.DataObject) -> None:
            grid = spec.build()
            cells = np.argwhere(grid.passable)
            if len(cells) < 2:
                return
            start = (int(cells[0][1]), int(cells[0][0]))
            goal = (int(cells[-1][1]), int(cells[-1][0]))
            gamenav.find_path(grid, start, goal)  # fills the island cache
            rep.input(how, grid=spec)
            dup = attempt({"copy": lambda g: g.copy(), "copy.copy": copy.copy,
                           "deepcopy": copy.deepcopy,
                           "pickle": lambda g: pickle.loads(pickle.dumps(g))}[how], grid)
            if raised(dup):
                return
            for name in ("walkable", "cost", "passable"):
                if not np.array_equal(getattr(dup, name), getattr(grid, name)):
                    raise FuzzFailure(f"{how}: {name} differs")
                if getattr(dup, name).flags.writeable:
                    raise FuzzFailure(f"{how}: {name} is writable after the copy")
            if (dup.cell_size, dup.origin, dup.y_up) != (grid.cell_size, grid.origin, grid.y_up):
                raise FuzzFailure(f"{how}: the transform differs")
            # an edit of the copy must not leak into the original, and vice versa
            wall = data.draw(st.sampled_from([tuple(int(v) for v in c[::-1]) for c in cells[1:-1]]
                                             or [goal]), "wall")
            dup.set_walkable(wall, False)
            if not grid.is_passable(*wall):
                raise FuzzFailure(f"{how}: editing the copy edited the original")
            for g in (grid, dup):
                if g.is_passable(*start) and g.is_passable(*goal):
                    path = gamenav.find_path(g, start, goal)
                    fresh = gamenav.find_path(gamenav.TileGrid(g.walkable, cost=g.cost), start, goal)
                    check_grid_path(g, path, start, goal)
                    if path.status is not fresh.status or not math.isclose(
                            path.cost, fresh.cost, rel_tol=1e-9) and math.isfinite(fresh.cost):
                        raise FuzzFailure(f"{how}: {path} on the {'copy' if g is dup else 'original'}, "
                                          f"a fresh grid gives {fresh}")
        prop()
    run_fuzz(body)
