"""Grid searches under hostile input: find_path / begin_search options, step, result, cancel,
and distance_field. FOUND paths are checked cell by cell; sliced equals one-shot."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
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
    hostile,
    hostile_cell,
    hostile_count,
    hostile_float,
    maybe,
    spec_and_cells,
)

_VALID: dict[str, st.SearchStrategy[Any]] = {
    "algorithm": st.sampled_from(["astar", "jps", "dijkstra", "hpa"]),
    "diagonal": st.sampled_from([*(d.value for d in gamenav.Diagonal), *gamenav.Diagonal,
                                 True, False, "NO-CORNER-CUTTING", " Always "]),
    "heuristic": st.sampled_from([None, *(h.value for h in gamenav.Heuristic), *gamenav.Heuristic,
                                  lambda dx, dy: 0.0, lambda dx, dy: dx + dy,
                                  lambda dx, dy: math.nan, lambda dx, dy: -1.0,
                                  lambda dx, dy: math.inf, lambda dx, dy: 1e308,
                                  lambda dx, dy: "far", lambda dx, dy: np.zeros(3),
                                  lambda dx, dy: None, lambda: 0.0]),
    "weight": st.one_of(st.sampled_from([1.0, 1, 1.5, 2.0, 10.0]), hostile_float()),
    "partial": st.booleans(),
    "smooth": st.booleans(),
}
_MISSPELLED = ["wieght", "diagonals", "algo", "Partial", "smoothing", "heuristics", "max_cost",
               "clamp", "exact", "", "on_done", "priority"]


@st.composite
def search_options(draw: st.DrawFn) -> dict[str, Any]:
    """A dict of valid option names with mostly valid, sometimes hostile values."""
    options: dict[str, Any] = {}
    for name in draw(st.lists(st.sampled_from(sorted(_VALID)), max_size=4, unique=True)):
        options[name] = draw(maybe(_VALID[name]))
    if draw(st.integers(0, 14)) == 0:
        options["workspace"] = draw(st.sampled_from([None, "ws", gamenav.SearchWorkspace((2, 2))]))
    return options


def _check(grid: gamenav.TileGrid, path: gamenav.Path, start: Any, goal: Any,
           options: dict[str, Any]) -> None:
    diagonal = gamenav.Diagonal.parse(options.get("diagonal", gamenav.Diagonal.NO_CORNER_CUTTING))
    s = grid.check_cell(start)
    g = grid.check_cell(goal)
    check_grid_path(grid, path, s, g, diagonal=diagonal.value,
                    cell_path=not options.get("smooth", False))


def test_find_path_options(run_fuzz: Runner) -> None:
    def body(rep: Reporter) -> None:
        @fuzz_settings(1500)
        @given(case=spec_and_cells(10), options=search_options(), data=st.data())
        def prop(case: tuple[GridSpec, tuple[int, int], tuple[int, int]], options: dict[str, Any],
                 data: st.DataObject) -> None:
            spec, start, goal = case
            grid = spec.build()
            if data.draw(st.integers(0, 5), "hostile_endpoints") == 0:
                start = data.draw(hostile_cell(grid.width, grid.height), "start")
                goal = data.draw(hostile_cell(grid.width, grid.height), "goal")
            rep.input("find_path", grid=spec, start=start, goal=goal, options=options)
            path = attempt(gamenav.find_path, grid, start, goal, **options)
            if raised(path):
                return
            _check(grid, path, start, goal, options)
            if path.status not in (gamenav.PathStatus.FOUND, gamenav.PathStatus.PARTIAL,
                                   gamenav.PathStatus.NO_PATH):
                raise FuzzFailure(f"find_path returned status {path.status}")
            if "workspace" in options or options.get("weight", 1.0) != 1.0 or "heuristic" in options:
                return
            # optimal searches agree with Dijkstra on cost
            opts = {k: v for k, v in options.items() if k in ("diagonal", "partial")}
            ref = gamenav.find_path(grid, start, goal, algorithm="dijkstra", **opts)
            if path.status is not ref.status or (
                    path.found and not math.isclose(path.cost, ref.cost, rel_tol=1e-9)):
                raise FuzzFailure(f"{path} but Dijkstra gives {ref}")
        prop()
    run_fuzz(body)


def test_find_path_misspelled_options(run_fuzz: Runner) -> None:
    """An unknown option name is a GamenavError (naming it), for find_path and begin_search."""
    def body(rep: Reporter) -> None:
        grid = gamenav.TileGrid.from_strings(["....", ".##.", "...."])

        @fuzz_settings(200)
        @given(name=st.one_of(st.sampled_from(_MISSPELLED), st.text(min_size=1, max_size=8)),
               value=st.one_of(st.booleans(), hostile()), sliced=st.booleans())
        def prop(name: str, value: Any, sliced: bool) -> None:
            if name in _VALID or name in ("workspace", "world", "start", "goal"):
                return  # (the positional parameters given twice: Python's own TypeError)
            rep.input("find_path", option=name, value=value, sliced=sliced)
            fn = gamenav.begin_search if sliced else gamenav.find_path
            out = attempt(fn, grid, (0, 0), (3, 2), **{name: value})
            if not raised(out):
                raise FuzzFailure(f"unknown option {name}={value!r} accepted")
        prop()
    run_fuzz(body)


def test_sliced_search_step_result_cancel(run_fuzz: Runner) -> None:
    """begin_search, then step with hostile budgets, result/cancel at odd times; a sliced
    search equals the one-shot search bit for bit."""
    def body(rep: Reporter) -> None:
        @fuzz_settings(1200)
        @given(case=spec_and_cells(10), options=search_options(),
               steps=st.lists(hostile_count(), min_size=1, max_size=6),
               cancel_at=st.integers(-1, 6), data=st.data())
        def prop(case: tuple[GridSpec, tuple[int, int], tuple[int, int]], options: dict[str, Any],
                 steps: list[Any], cancel_at: int, data: st.DataObject) -> None:
            spec, start, goal = case
            options.pop("workspace", None)
            grid = spec.build()
            rep.input("begin_search", grid=spec, start=start, goal=goal, options=options,
                      steps=steps, cancel_at=cancel_at)
            search = attempt(gamenav.begin_search, grid, start, goal, **options)
            if raised(search):
                return
            for i, budget in enumerate(steps):
                if i == cancel_at:
                    attempt(search.cancel)
                status = attempt(search.step, budget)
                if not raised(status) and status is not search.status:
                    raise FuzzFailure(f"step returned {status}, status is {search.status}")
                partial = getattr(search, "partial_result", None)
                if partial is not None and data.draw(st.booleans(), f"partial_{i}"):
                    early = attempt(partial)
                    if not raised(early) and early.status.has_path:
                        check_grid_path(grid, early, grid.check_cell(start), None,
                                        diagonal=gamenav.Diagonal.parse(
                                            options.get("diagonal", "no_corner_cutting")).value)
            attempt(search.step, None)
            result = attempt(search.result)
            if raised(result):
                raise FuzzFailure(f"result() raised {result!r}")
            if cancel_at >= len(steps) or cancel_at < 0:
                whole = gamenav.find_path(grid, start, goal, **options)
                if result.status is not whole.status or not np.array_equal(result.cells, whole.cells) \
                        or not (result.cost == whole.cost or (math.isnan(result.cost) and math.isnan(whole.cost))):
                    raise FuzzFailure(f"sliced {result} != one-shot {whole}")
            _check(grid, result, start, goal, options)
            again = attempt(search.step, 1)
            if not raised(again) and not again.done:
                raise FuzzFailure("a finished search is not done any more")
        prop()
    run_fuzz(body)


def test_distance_field(run_fuzz: Runner) -> None:
    def body(rep: Reporter) -> None:
        @fuzz_settings(700)
        @given(case=spec_and_cells(10), data=st.data())
        def prop(case: tuple[GridSpec, tuple[int, int], tuple[int, int]], data: st.DataObject) -> None:
            spec, source, probe = case
            grid = spec.build()
            sources: Any = data.draw(st.one_of(
                st.just(source), st.just(np.array([source, probe])), st.just([source]),
                st.just(np.array([source], dtype=np.float64)), st.just(np.zeros((0, 2), np.int64)),
                hostile_cell(grid.width, grid.height),
                st.lists(hostile_cell(grid.width, grid.height), max_size=3)), "sources")
            diagonal = data.draw(maybe(_VALID["diagonal"]), "diagonal")
            max_cost = data.draw(st.one_of(st.just(math.inf), st.floats(0, 20), hostile_float()),
                                 "max_cost")
            rep.input("distance_field", grid=spec, sources=sources, diagonal=diagonal,
                      max_cost=max_cost)
            field = attempt(gamenav.distance_field, grid, sources, diagonal=diagonal,
                            max_cost=max_cost)
            if raised(field):
                return
            if field.shape != grid.shape or np.isnan(field).any() or (field < 0).any():
                raise FuzzFailure(f"distance field {field!r}")
            if np.isfinite(field[~grid.passable]).any():
                raise FuzzFailure("finite distance on a blocked cell")
            src = np.asarray(sources).reshape(-1, 2).astype(np.int64)
            if (field[src[:, 1], src[:, 0]] != 0).any():
                raise FuzzFailure(f"sources {src.tolist()} are not at distance 0: "
                                  f"{field[src[:, 1], src[:, 0]].tolist()}")
            if len(src) == 1 and max_cost == math.inf and grid.is_passable(*probe):
                s = (int(src[0, 0]), int(src[0, 1]))
                ref = gamenav.find_path(grid, s, probe, algorithm="dijkstra", diagonal=diagonal)
                if not math.isclose(field[probe[1], probe[0]], ref.cost, rel_tol=1e-9) and not (
                        math.isinf(ref.cost) and math.isinf(field[probe[1], probe[0]])):
                    raise FuzzFailure(f"field at {probe} is {field[probe[1], probe[0]]}, "
                                      f"find_path to there costs {ref.cost}")
        prop()
    run_fuzz(body)
