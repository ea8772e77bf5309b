"""PathCache, PathQueue, Crowd and Follower under hostile arguments and random edit programs.

Every answer handed out is checked against the grid as it is at that moment: FOUND paths cell
by cell and against a fresh search (same status, cost within 1e-9 relative); quick partial
paths of pending requests never cross a wall.
"""

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
    contract,
    fuzz_settings,
    raised,
)
from tests.fuzz.conftest import Runner
from tests.fuzz.strategies import (
    GridSpec,
    grid_specs,
    hostile,
    hostile_cell,
    hostile_count,
    hostile_float,
    hostile_point,
    maybe,
)

_CELL_OPTIONS = st.fixed_dictionaries({}, optional={
    "diagonal": st.sampled_from(["never", "no_corner_cutting", "always"]),
    "partial": st.booleans(),
    "algorithm": st.sampled_from(["astar", "dijkstra"]),
})


def _cells(spec: GridSpec) -> st.SearchStrategy[tuple[int, int]]:
    h, w = spec.shape
    return st.tuples(st.integers(0, w - 1), st.integers(0, h - 1))


@st.composite
def edit_programs(draw: st.DrawFn, queries: int = 3) -> tuple[GridSpec, list[tuple[Any, ...]]]:
    """A grid and a list of operations: edits (walkable, cost) and queries (with options)."""
    spec = draw(grid_specs(7))
    cells = _cells(spec)
    op = st.one_of(
        st.tuples(st.just("walk"), cells, st.booleans()),
        st.tuples(st.just("cost"), cells, st.sampled_from([1.0, 2.0, 1.5, 10.0, math.inf])),
        *[st.tuples(st.just("query"), cells, cells, _CELL_OPTIONS)] * queries,
    )
    return spec, draw(st.lists(op, min_size=1, max_size=14))


def _fresh(grid: gamenav.TileGrid, start: Any, goal: Any, options: dict[str, Any]) -> gamenav.Path | None:
    """A fresh search on a new copy of the grid's arrays (None if it raises)."""
    clone = gamenav.TileGrid(grid.walkable, cost=grid.cost)
    try:
        return gamenav.find_path(clone, start, goal, **options)
    except gamenav.GamenavError:
        return None


def _check_answer(grid: gamenav.TileGrid, path: gamenav.Path, start: Any, goal: Any,
                  options: dict[str, Any], what: str) -> None:
    """``path`` answered ``start -> goal`` now: valid on the grid and as good as a fresh search."""
    if path.status in (gamenav.PathStatus.CANCELLED, gamenav.PathStatus.STALE):
        return
    diagonal = gamenav.Diagonal.parse(options.get("diagonal", "no_corner_cutting")).value
    check_grid_path(grid, path, tuple(start), tuple(goal), diagonal=diagonal)
    fresh = _fresh(grid, start, goal, options)
    if fresh is None:
        raise FuzzFailure(f"{what}: answered {path}, but a fresh search now raises")
    if fresh.status is not path.status or (
            path.status.has_path and not math.isclose(path.cost, fresh.cost, rel_tol=1e-9)):
        raise FuzzFailure(f"{what} {tuple(start)}->{tuple(goal)} {options}: answered {path}, "
                          f"a fresh search gives {fresh}")


def test_path_cache_stays_exact(run_fuzz: Runner) -> None:
    """Random edits interleaved with cached queries on small weighted and unweighted grids."""
    def body(rep: Reporter) -> None:
        @fuzz_settings(900)
        @given(program=edit_programs())
        def prop(program: tuple[GridSpec, list[tuple[Any, ...]]]) -> None:
            spec, ops = program
            rep.input("PathCache program", grid=spec, ops=ops)
            grid = spec.build()
            cache = gamenav.PathCache(capacity=8)
            for op in ops:
                if op[0] == "walk":
                    grid.set_walkable(op[1], op[2])
                elif op[0] == "cost":
                    grid.set_cost(op[1], op[2])
                else:
                    _, start, goal, options = op
                    path = attempt(cache.find_path, grid, start, goal, **options)
                    if not raised(path):
                        _check_answer(grid, path, start, goal, options, "PathCache.find_path")
        prop()
    run_fuzz(body)


def test_path_cache_hostile_arguments(run_fuzz: Runner) -> None:
    def body(rep: Reporter) -> None:
        @fuzz_settings(300)
        @given(spec=grid_specs(6), capacity=maybe(st.integers(1, 4)), data=st.data())
        def prop(spec: GridSpec, capacity: Any, data: st.DataObject) -> None:
            grid = spec.build()
            start = data.draw(hostile_cell(grid.width, grid.height), "start")
            goal = data.draw(hostile_cell(grid.width, grid.height), "goal")
            options = data.draw(st.dictionaries(
                st.sampled_from(["diagonal", "weight", "partial", "smooth", "workspace", "wieght"]),
                hostile(), max_size=2), "options")
            rep.input("PathCache", capacity=capacity, grid=spec, start=start, goal=goal, options=options)
            cache = attempt(gamenav.PathCache, capacity)
            if raised(cache):
                return
            for _ in range(2):
                attempt(cache.find_path, grid, start, goal, **options)
            with contract("PathCache.clear/len/stats"):
                len(cache)
                _ = cache.stats
                cache.clear()
        prop()
    run_fuzz(body)


_QUEUE_ARGS = st.fixed_dictionaries({}, optional={
    "budget_ms": st.one_of(st.just(None), hostile_float()),
    "max_expansions": hostile_count(),
    "chunk": hostile_count(),
    "aging": hostile_float(),
    "on_change": st.one_of(st.sampled_from(["restart", "stale"]), hostile()),
    "window": hostile_count(),
    "cache": st.one_of(st.just("cache"), hostile()),
})


def test_path_queue_construction_and_requests(run_fuzz: Runner) -> None:
    """Hostile constructor and request arguments: accepted or a GamenavError, at once."""
    def body(rep: Reporter) -> None:
        @fuzz_settings(500)
        @given(spec=grid_specs(6), qargs=_QUEUE_ARGS, data=st.data())
        def prop(spec: GridSpec, qargs: dict[str, Any], data: st.DataObject) -> None:
            grid = spec.build()
            if isinstance(qargs.get("cache"), str) and qargs["cache"] == "cache":  # (not an array's ==)
                qargs["cache"] = gamenav.PathCache()
            start = data.draw(hostile_cell(grid.width, grid.height), "start")
            goal = data.draw(hostile_cell(grid.width, grid.height), "goal")
            rargs = data.draw(st.fixed_dictionaries({}, optional={
                "priority": hostile_float(), "on_done": st.one_of(st.just(print), hostile()),
                "quick_expansions": hostile_count(), "diagonal": maybe(st.just("never")),
                "smooth": hostile(), "wieght": st.just(2.0)}), "request_args")
            rep.input("PathQueue", qargs=qargs, grid=spec, start=start, goal=goal, rargs=rargs)
            queue = attempt(gamenav.PathQueue, **qargs)
            if raised(queue):
                return
            req = attempt(queue.request, grid, start, goal, **rargs)
            for _ in range(3):
                with contract("PathQueue.update"):
                    queue.update()
            if not raised(req) and not req.done and queue.max_expansions is None:
                pass  # a time budget may legitimately need more frames
            with contract("PathQueue.stats/cancel_all"):
                _ = queue.stats
                queue.cancel_all()
        prop()
    run_fuzz(body)


@st.composite
def queue_programs(draw: st.DrawFn) -> tuple[GridSpec, dict[str, Any], list[tuple[Any, ...]]]:
    """A grid, queue settings and a program of requests, updates, cancels and edits."""
    spec = draw(grid_specs(7))
    cells = _cells(spec)
    settings = {"max_expansions": draw(st.sampled_from([1, 3, 10, 100])), "budget_ms": None,
                "on_change": draw(st.sampled_from(["restart", "stale"])),
                "cached": draw(st.booleans())}
    op = st.one_of(
        st.tuples(st.just("request"), cells, cells, _CELL_OPTIONS, st.sampled_from([0, 0, 1, 5, 50]),
                  st.sampled_from(["none", "again", "cancel_other", "twice"])),
        st.tuples(st.just("update")), st.tuples(st.just("update")),
        st.tuples(st.just("cancel"), st.integers(0, 20)),
        st.tuples(st.just("walk"), cells, st.booleans()),
        st.tuples(st.just("cost"), cells, st.sampled_from([1.0, 2.0, 10.0, math.inf])),
        st.tuples(st.just("cancel_all")),
    )
    return spec, settings, draw(st.lists(op, min_size=1, max_size=16))


def test_path_queue_programs(run_fuzz: Runner) -> None:
    """Requests (quick, shared, chained callbacks, cancels) across edits; every answer is exact
    for the grid at the moment it is given; quick partial paths never cross a wall."""
    def body(rep: Reporter) -> None:
        @fuzz_settings(900)
        @given(program=queue_programs())
        def prop(program: tuple[GridSpec, dict[str, Any], list[tuple[Any, ...]]]) -> None:
            spec, settings, ops = program
            rep.input("PathQueue program", grid=spec, settings=settings, ops=ops)
            grid = spec.build()
            cache = gamenav.PathCache() if settings["cached"] else None
            queue = gamenav.PathQueue(budget_ms=None, max_expansions=settings["max_expansions"],
                                      on_change=settings["on_change"], cache=cache)
            requests: list[tuple[Any, dict[str, Any]]] = []
            checked: set[int] = set()

            def submit(start: Any, goal: Any, options: dict[str, Any], quick: int, then: str) -> None:
                def on_done(req: Any) -> None:
                    if then == "again" and len(requests) < 60:
                        submit(req.goal, req.start, options, 0, "none")
                    elif then == "cancel_other" and requests:
                        requests[len(requests) // 2][0].cancel()
                    elif then == "twice" and len(requests) < 60:
                        submit(req.start, req.goal, options, quick, "none")
                req = attempt(queue.request, grid, start, goal, on_done=on_done,
                              quick_expansions=quick, **options)
                if not raised(req):
                    requests.append((req, options))

            def audit(where: str) -> None:
                for req, options in requests:
                    if req.done and id(req) not in checked:
                        checked.add(id(req))
                        _check_answer(grid, req.path, req.start, req.goal, options,
                                      f"PathQueue answer ({where})")
                    elif not req.done and req.path.status.has_path:
                        check_grid_path(grid, req.path, tuple(req.start), None,
                                        diagonal=gamenav.Diagonal.parse(
                                            options.get("diagonal", "no_corner_cutting")).value)

            for op in ops:
                if op[0] == "request":
                    submit(*op[1:])
                elif op[0] == "update":
                    with contract("PathQueue.update"):
                        queue.update()
                elif op[0] == "cancel" and requests:
                    requests[op[1] % len(requests)][0].cancel()
                elif op[0] == "cancel_all":
                    queue.cancel_all()
                elif op[0] == "walk":
                    with contract("set_walkable with a queue subscribed"):
                        grid.set_walkable(op[1], op[2])
                elif op[0] == "cost":
                    with contract("set_cost with a queue subscribed"):
                        grid.set_cost(op[1], op[2])
                audit(op[0])
            for _ in range(200):
                if not len(queue):
                    break
                with contract("PathQueue.update"):
                    queue.update()
                audit("drain")
            if len(queue):
                raise FuzzFailure(f"{len(queue)} requests still pending after 200 updates")
        prop()
    run_fuzz(body)


_CROWD_ARGS = st.fixed_dictionaries({
    "radius": st.one_of(st.sampled_from([0.3, 0.01, 1e-9, 5.0]), hostile_float()),
    "max_speed": st.one_of(st.sampled_from([2.0, 100.0]), hostile_float()),
}, optional={
    "max_accel": hostile_float(), "spacing": hostile_float(), "stuck_seconds": hostile_float(),
    "flow_threshold": hostile_count(), "requests_per_update": hostile_count(),
    "arrive_radius": hostile_float(), "diagonal": maybe(st.sampled_from(["never", "always"])),
    "queue": st.sampled_from(["queue", None, "junk"]),
    "reroute_seconds": st.one_of(st.sampled_from([0.01, 0.5]), hostile_float()),
})


@st.composite
def crowd_cases(draw: st.DrawFn) -> tuple[GridSpec, Any, dict[str, Any], list[tuple[Any, ...]]]:
    """A grid (sometimes with a huge or tiny cell size), start positions, Crowd args, a program."""
    spec = draw(grid_specs(6))
    spec.cell_size = draw(st.sampled_from([1.0, 1.0, 16.0, 1e-3, 1e9, 2.0**40]))
    h, w = spec.shape
    free = np.argwhere(spec.walkable & (np.ones(spec.shape) if spec.cost is None
                                        else np.isfinite(spec.cost)).astype(bool))
    n = draw(st.integers(0, 6))
    if len(free) and n:
        picks = free[draw(st.lists(st.integers(0, len(free) - 1), min_size=n, max_size=n))]
        corners = np.array([[0.05, 0.05], [0.95, 0.95], [0.5, 0.5]])
        offs = corners[draw(st.lists(st.integers(0, 2), min_size=n, max_size=n))]
        positions: Any = (picks[:, ::-1] + offs) * spec.cell_size + np.array(spec.origin)
        if spec.y_up:
            positions[:, 1] = spec.origin[1] + (h - picks[:, 0] - 1 + offs[:, 1]) * spec.cell_size
    else:
        positions = np.zeros((0, 2))
    if draw(st.integers(0, 9)) == 0:
        positions = draw(st.one_of(hostile_point(), hostile()))
    args = draw(_CROWD_ARGS)
    agent = st.integers(-1, 7)
    op = st.one_of(
        st.tuples(st.just("move"), st.one_of(st.lists(agent, max_size=4), hostile()),
                  st.tuples(st.floats(-1, w + 1), st.floats(-1, h + 1)), st.booleans()),
        st.tuples(st.just("move_hostile"), st.lists(agent, max_size=3), hostile_point()),
        st.tuples(st.just("update"), st.sampled_from([0.016, 0.1, 0.5, 0.0])),
        st.tuples(st.just("update"), hostile_float()),
        st.tuples(st.just("stop"), st.one_of(st.lists(agent, max_size=3), hostile())),
        st.tuples(st.just("walk"), _cells(spec), st.booleans()),
    )
    return spec, positions, args, draw(st.lists(op, max_size=10))


def test_crowd(run_fuzz: Runner) -> None:
    """Crowd construction, move / stop / update(dt) and edits: positions stay finite and on
    the grid; huge worlds and tiny radii neither crash nor blow up."""
    def body(rep: Reporter) -> None:
        @fuzz_settings(600)
        @given(case=crowd_cases())
        def prop(case: tuple[GridSpec, Any, dict[str, Any], list[tuple[Any, ...]]]) -> None:
            spec, positions, args, ops = case
            rep.input("Crowd program", grid=spec, positions=positions, args=args, ops=ops)
            grid = spec.build()
            args = dict(args)
            if args.get("queue") == "queue":
                args["queue"] = gamenav.PathQueue(budget_ms=None, max_expansions=50)
            queue = args.get("queue")
            crowd = attempt(gamenav.Crowd, grid, positions, **args)
            if raised(crowd):
                return
            extent = np.array([grid.width, grid.height]) * grid.cell_size
            lo = np.array(grid.origin) - 1e-9 * extent
            hi = np.array(grid.origin) + (1 + 1e-9) * extent
            for op in ops:
                if op[0] in ("move", "move_hostile"):
                    target = op[2] if op[0] == "move_hostile" else \
                        np.array(op[2]) * grid.cell_size + np.array(grid.origin)
                    kwargs = {"formation": op[3]} if op[0] == "move" else {}
                    attempt(crowd.move, op[1], target, **kwargs)
                elif op[0] == "update":
                    if isinstance(queue, gamenav.PathQueue):
                        with contract("PathQueue.update (crowd)"):
                            queue.update()
                    attempt(crowd.update, op[1])
                elif op[0] == "stop":
                    attempt(crowd.stop, op[1])
                else:
                    with contract("set_walkable under a crowd"):
                        grid.set_walkable(op[1], op[2])
                pos = crowd.positions
                if not np.isfinite(pos).all():
                    raise FuzzFailure(f"crowd positions not finite after {op}: {pos.tolist()}")
                if len(pos) and ((pos < lo).any() or (pos > hi).any()):
                    raise FuzzFailure(f"crowd agent left the grid after {op}: {pos.tolist()}")
            close = getattr(crowd, "close", None)
            if close is not None:
                with contract("Crowd.close"):
                    close()
        prop()
    run_fuzz(body)


def test_follower(run_fuzz: Runner) -> None:
    def body(rep: Reporter) -> None:
        @fuzz_settings(400)
        @given(spec=grid_specs(6), data=st.data())
        def prop(spec: GridSpec, data: st.DataObject) -> None:
            grid = spec.build()
            free = np.argwhere(grid.passable)
            start: Any = grid.cell_to_world(free[0][::-1]) if len(free) else (0.0, 0.0)
            if data.draw(st.integers(0, 4), "hostile_start") == 0:
                start = data.draw(hostile_point(), "start")
            speed = data.draw(st.one_of(st.just(3.0), hostile_float()), "speed")
            kwargs = data.draw(st.fixed_dictionaries({}, optional={
                "radius": hostile_float(), "smooth": st.booleans(), "diagonal": maybe(st.just("never")),
                "queue": st.sampled_from([None, "queue", 7])}), "kwargs")
            goals = data.draw(st.lists(st.one_of(
                _cells(spec).map(lambda c: tuple(grid.cell_to_world(c).tolist())), hostile_point()),
                max_size=3), "goals")
            dts = data.draw(st.lists(st.one_of(st.just(0.1), hostile_float()), max_size=6), "dts")
            rep.input("Follower", grid=spec, start=start, speed=speed, kwargs=kwargs, goals=goals, dts=dts)
            if kwargs.get("queue") == "queue":
                kwargs["queue"] = gamenav.PathQueue(budget_ms=None, max_expansions=100)
            agent = attempt(gamenav.Follower, grid, start, speed=speed, **kwargs)
            if raised(agent):
                return
            for goal in goals:
                attempt(agent.move_to, goal)
                for dt in dts:
                    if isinstance(kwargs.get("queue"), gamenav.PathQueue):
                        kwargs["queue"].update()
                    attempt(agent.update, dt)
                    if not all(math.isfinite(v) for v in agent.position):
                        raise FuzzFailure(f"follower position {agent.position}")
            with contract("Follower.path/stop"):
                _ = agent.path
                agent.stop()
        prop()
    run_fuzz(body)
