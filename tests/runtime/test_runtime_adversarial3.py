"""The runtime under attack, third round: hostile numbers and keys around Crowd, PathQueue and PathCache."""

from __future__ import annotations

import gc
import sys
import warnings
import weakref
from collections.abc import Callable

import numpy as np
import pytest

import gamenav
from gamenav import Crowd, PathQueue, PathStatus, TileGrid
from gamenav.errors import InvalidInputError

_BEYOND = np.longdouble("1e400")  # finite to numpy, beyond float64


def _crowd() -> Crowd:
    return Crowd(TileGrid.from_strings(["......"]), [(0.5, 0.5)], radius=0.3, max_speed=1.0)


@pytest.mark.parametrize(("action", "message"), [
    (lambda c: Crowd(c.grid, [(_BEYOND, 0.5)], radius=0.3, max_speed=1.0), r"positions must be finite; agent 0"),
    (lambda c: Crowd(c.grid, [(0.5, 0.5)], radius=np.array([_BEYOND]), max_speed=1.0), r"radius must be finite"),
    (lambda c: Crowd(c.grid, [(0.5, 0.5)], radius=0.3, max_speed=[_BEYOND]), r"max_speed must be finite"),
    (lambda c: c.add(np.array([(_BEYOND, 0.5)])), r"positions must be finite; agent 0"),
    (lambda c: c.add([(0.5, 0.5)], radius=[_BEYOND]), r"radius must be finite"),
    (lambda c: c.place([0], [(0.5, _BEYOND)]), r"positions must be finite; agent 0"),
])
def test_long_doubles_beyond_float64_are_refused_without_an_overflow_warning(
        action: Callable[[Crowd], object], message: str) -> None:
    """numpy's cast to float64 warned 'overflow encountered in cast' first (an error under -W error)."""
    crowd = _crowd()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(InvalidInputError, match=message):
            action(crowd)
    assert crowd.positions.tolist() == [[0.5, 0.5]] and len(crowd) == 1  # nothing changed


@pytest.mark.parametrize("most", [2**63, np.uint64(2**64 - 1), 10**30])
def test_a_requests_per_update_beyond_sys_maxsize_means_no_limit(most: int) -> None:
    """Accepted, then every order through a queue raised a bare ValueError from itertools.islice."""
    grid = TileGrid.from_strings(["........"] * 4)
    queue = PathQueue(budget_ms=None, max_expansions=1000)
    crowd = Crowd(grid, [(0.5, 0.5), (1.5, 0.5), (2.5, 0.5)], radius=0.3, max_speed=4.0, queue=queue,
                  requests_per_update=most)
    crowd.move([0, 1, 2], (7.5, 3.5), formation=False)
    assert len(queue) == 3  # all sent at once
    crowd.requests_per_update = most  # (assigned later too)
    for _ in range(200):
        queue.update()
        crowd.update(1 / 30)
    assert crowd.counters["path_requests"] == 3 and not crowd.failed.any()
    assert np.hypot(*(crowd.positions - (7.5, 3.5)).T).max() < 1.0


@pytest.mark.parametrize("budget_ms", [1e308, sys.float_info.max])
def test_the_largest_finite_budgets_answer_short_searches_on_a_world_not_measured_yet(budget_ms: float) -> None:
    """A search started in an update on a world whose speed was not measured yet (short searches
    only) was sized from the time left at 200 ns per expansion: int() of an infinite count raised
    OverflowError from every update."""
    grid = TileGrid.from_strings(["........"] * 4)
    queue = PathQueue(budget_ms=budget_ms)
    requests = [queue.request(grid, (0, y), (7, 3)) for y in range(3)]  # the 2nd and 3rd start in update()
    queue.update()
    assert len(queue) == 0
    for req in requests:
        fresh = gamenav.find_path(grid, req.start, req.goal)
        assert req.status is PathStatus.FOUND and np.array_equal(req.path.cells, fresh.cells)
        assert req.path.cost == fresh.cost


@pytest.mark.parametrize("ids", [np.array([2**64 - 1], np.uint64), [2**63], [np.uint64(2**63 + 5)]])
def test_unknown_ids_beyond_int64_are_reported_as_given(ids: object) -> None:
    """They were cast to int64 first and reported as other ids: 2**64 - 1 as [-1], 2**63 as [-9223372036854775808]."""
    crowd = _crowd()
    given = int(np.asarray(ids).reshape(-1)[0])
    for action in (lambda: crowd.rows(ids), lambda: crowd.move(ids, (3.5, 0.5)), lambda: crowd.remove(ids)):
        with pytest.raises(InvalidInputError, match=rf"unknown agent ids \[{given}\] \(never added, or removed[;)]"):
            action()
    assert crowd.rows(np.array([0], np.uint64)).tolist() == [0] and len(crowd) == 1


def test_a_movement_rule_assigned_by_name_is_used_and_a_bad_one_is_refused_where_given() -> None:
    """``crowd.diagonal = "never"`` was stored as the string: the next order raised AttributeError
    ('str' object has no attribute 'value'); a bad rule was taken silently."""
    crowd = Crowd(TileGrid.from_strings(["........"] * 4), [(0.5, 0.5)], radius=0.3, max_speed=4.0)
    crowd.diagonal = "never"
    assert crowd.diagonal is gamenav.Diagonal.NEVER
    crowd.move([0], (7.5, 3.5))
    cells = crowd.path(0).cells
    assert len(cells) == 11 and (np.abs(np.diff(cells, axis=0)).sum(axis=1) == 1).all()  # 4-connected steps
    with pytest.raises(InvalidInputError, match="diagonal must be one of"):
        crowd.diagonal = "sideways"
    assert crowd.diagonal is gamenav.Diagonal.NEVER


@pytest.mark.parametrize("options", [{1: 2}, 5, "smooth", [("smooth", True)]])
def test_path_options_that_are_not_a_dict_of_names_are_refused_clearly(options: object) -> None:
    """The constructor raised TypeError ('keywords must be strings', 'int' object is not iterable)
    or ValueError from dict()."""
    grid = TileGrid.from_strings(["........"] * 4)
    with pytest.raises(InvalidInputError, match="path_options must be a dict of search options by name, or None"):
        Crowd(grid, [(0.5, 0.5)], radius=0.3, max_speed=4.0, path_options=options)


def test_path_options_assigned_later_are_checked_where_given() -> None:
    """``crowd.path_options = None`` made the next order raise TypeError ('NoneType' object is not
    iterable), and a misspelled or bad option raised only at the next order (or inside an update)."""
    grid = TileGrid.from_strings(["........"] * 4)
    crowd = Crowd(grid, [(0.5, 0.5)], radius=0.3, max_speed=4.0, path_options={"smooth": True})
    for bad, error in [({"smoth": True}, gamenav.InvalidOptionError), ({"algorithm": "bogus"}, InvalidInputError),
                       (5, InvalidInputError)]:
        with pytest.raises(error):
            crowd.path_options = bad  # type: ignore[assignment]
        assert crowd.path_options == {"smooth": True}
    crowd.path_options = None
    assert crowd.path_options == {}
    crowd.move([0], (7.5, 3.5))
    assert crowd.path(0).status is PathStatus.FOUND and len(crowd.path(0).cells) == 8  # unsmoothed: every cell


def test_path_options_cannot_be_edited_in_place_past_the_check() -> None:
    """``crowd.path_options["algorithm"] = "bogus"`` changed the live dict unchecked: the next
    order raised inside the game's update, far from the line at fault."""
    grid = TileGrid.from_strings(["........"] * 4)
    crowd = Crowd(grid, [(0.5, 0.5)], radius=0.3, max_speed=4.0, path_options={"smooth": True})
    with pytest.raises(TypeError):
        crowd.path_options["algorithm"] = "bogus"  # type: ignore[index]
    assert crowd.path_options == {"smooth": True}
    crowd.path_options = {**crowd.path_options, "algorithm": "jps"}  # the way to change one option
    assert crowd.path_options == {"smooth": True, "algorithm": "jps"}
    crowd.move([0], (7.5, 3.5))
    assert crowd.path(0).status is PathStatus.FOUND


def test_a_dropped_queue_is_freed_without_a_collection() -> None:
    """A queue with pending requests sat in a reference cycle (queue -> search -> request ->
    queue): dropped, it stayed alive and subscribed to its grid, holding its searches' worlds,
    until a garbage collection (never, for a game that disables the collector)."""
    grid = TileGrid(np.ones((20, 30), bool))
    queue = PathQueue(budget_ms=None, max_expansions=1)
    held = queue.request(grid, (0, 0), (29, 19))
    queue.request(grid, (1, 0), (29, 19), on_done=lambda req: pytest.fail("a dropped queue answered"))
    queue.request(grid, (2, 0), (29, 19), quick_expansions=3)
    queue.update()
    alive = weakref.ref(queue)
    enabled = gc.isenabled()
    gc.disable()
    try:
        del queue
        assert alive() is None
    finally:
        if enabled:
            gc.enable()
    assert len(grid._listeners) == 0
    assert held.status is PathStatus.IN_PROGRESS and held.path.status is PathStatus.IN_PROGRESS  # never answered
    assert held.frames_waited == 1
    held.cancel()
    assert held.status is PathStatus.CANCELLED and held.path.status is PathStatus.CANCELLED


def test_the_route_of_a_field_agent_follows_the_field_however_long_it_winds() -> None:
    """The field descent ``remaining_paths`` traces stopped after 2 * (width + height) steps, then
    the route went straight to the goal: 22 rows across the walls of a 12 x 41 serpentine."""
    walk = np.ones((41, 12), bool)
    walk[1::4, :-1] = False
    walk[3::4, 1:] = False
    grid = TileGrid(walk)
    starts = [(0.5 + k % 8, 0.5 + 2 * (k // 8)) for k in range(16)]
    crowd = Crowd(grid, starts, radius=0.3, max_speed=3.0, flow_threshold=4)
    crowd.move(crowd.ids, (0.5, 40.5))
    assert (crowd.mode == 2).all()  # descending the group's field
    for route in crowd.remaining_paths(crowd.ids):
        assert not _crosses_a_wall(grid, route)  # cell to cell, then round to its slot
        assert route[-1][1] >= 37.0 and len(route) > 200


def test_a_goal_on_a_wall_moves_to_the_nearest_free_cell_not_the_nearest_ring() -> None:
    """The free cells were searched ring by ring (3 x 3, 5 x 5, ...) and the nearest of the first
    ring holding one was taken: (3, 3), 4.24 cells from the goal (0.5, 0.5), not (0, 4), 4.0 away
    in the next ring (a ring's corner is farther than the next ring's side)."""
    walk = np.zeros((6, 6), bool)
    for x, y in [(3, 3), (3, 4), (2, 4), (1, 4), (0, 4)]:
        walk[y, x] = True
    grid = TileGrid(walk)
    crowd = Crowd(grid, [(3.5, 3.5)], radius=0.3, max_speed=2.0)
    crowd.move([0], (0.5, 0.5))
    assert crowd.goals.tolist() == [[0.5, 4.5]]
    follower = gamenav.Follower(grid, (3.5, 3.5), speed=2.0)
    follower.move_to((0.5, 0.5))
    for _ in range(100):
        follower.update(0.1)
    assert follower.arrived and follower.position == (0.5, 4.5)


def test_tracing_field_routes_steps_only_the_agents_still_descending(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every agent was stepped (and stacked) as long as the longest route: memory and work of
    agents x longest route (16 GB for 2000 units on a big maze with one far away)."""
    from gamenav.runtime import crowd as crowd_module

    walk = np.ones((41, 12), bool)
    walk[1::4, :-1] = False
    walk[3::4, 1:] = False
    grid = TileGrid(walk)
    starts = [(0.5, 0.5)] + [(0.5 + k % 12, 40.5 - 2 * (k // 12)) for k in range(15)]  # one far, 15 by the target
    crowd = Crowd(grid, starts, radius=0.3, max_speed=3.0, flow_threshold=4)
    crowd.move(crowd.ids, (11.5, 40.5))
    stepped = [0]
    descend = crowd_module.descend_field

    def counting(field: np.ndarray, passable: np.ndarray, cells: np.ndarray, out: np.ndarray) -> None:
        stepped[0] += len(cells)
        descend(field, passable, cells, out)

    monkeypatch.setattr(crowd_module, "descend_field", counting)
    routes = crowd.remaining_paths(crowd.ids)
    assert len(routes[0]) > 200  # the far one winds through the maze
    traced = sum(len(route) - 2 for route in routes)  # (less its position and its goal)
    assert stepped[0] <= traced + len(crowd)


@pytest.mark.parametrize(("radius", "speed", "message"), [
    ([0.3, -1.0], 1.0, r"radius must be finite numbers > 0; agent 1 has -1\.0$"),
    ([0.3, 0.3], [1.0, 2e9], r"max_speed must be finite numbers > 0 \(at most 1e\+09\); agent 1 has 2000000000\.0$"),
])
def test_per_agent_sizes_name_a_limit_only_where_there_is_one(radius: object, speed: object, message: str) -> None:
    """A bad radius among several was refused as 'radius must be finite numbers > 0 (at most inf)'."""
    with pytest.raises(InvalidInputError, match=message):
        Crowd(TileGrid.from_strings(["......"]), [(0.5, 0.5), (1.5, 0.5)], radius=radius, max_speed=speed)


def _crosses_a_wall(grid: TileGrid, route: np.ndarray) -> bool:
    """Whether a leg of ``route`` (world points) passes over a blocked cell (sampled)."""
    t = np.linspace(0.0, 1.0, 64)[:, None]
    for a, b in zip(route[:-1], route[1:], strict=True):
        cells = grid.world_to_cell(a + t * (b - a))
        if not grid.passable[cells[:, 1], cells[:, 0]].all():
            return True
    return False


def test_the_drawn_route_of_a_field_agent_goes_round_a_wall_before_its_slot() -> None:
    """The route ended with a straight leg from where the agent stops descending the field to its
    slot, through the wall between them, where the agent asks for a path round it (the demo's
    route overlay drew 138-171 of 400 routes across walls)."""
    walk = np.ones((24, 24), bool)
    walk[0:12, 12] = False
    grid = TileGrid(walk)
    starts = [(x + 0.5, y + 0.5) for x in range(8) for y in range(14, 22)]
    crowd = Crowd(grid, starts, radius=0.3, max_speed=3.0, flow_threshold=1)
    crowd.move(crowd.ids, (11.5, 9.5))
    routes = crowd.remaining_paths(crowd.ids)
    assert (grid.world_to_cell(crowd.goals)[:, 0] > 12).any()  # slots behind the wall too
    assert not any(_crosses_a_wall(grid, route) for route in routes)
    for route, goal, position in zip(routes, crowd.goals, crowd.positions, strict=True):
        assert np.array_equal(route[0], position) and np.array_equal(route[-1], goal)
