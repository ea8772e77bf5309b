"""Adversarial review of the runtime layer: callbacks and listeners that re-enter, extreme numbers,
sub-step bookkeeping. Each test fails on the code before its fix."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import gamenav
from gamenav import PathQueue, PathStatus


def open_grid(h: int = 10, w: int = 10, **kwargs: Any) -> gamenav.TileGrid:
    return gamenav.TileGrid(np.ones((h, w), bool), **kwargs)


@pytest.mark.parametrize("action", ["close", "update"])
def test_a_callback_that_closes_or_updates_its_queue_does_not_crash_the_update(action: str) -> None:
    grid = open_grid()
    queue = PathQueue(budget_ms=None, max_expansions=10_000)
    calls: list[Any] = []

    def done(req: gamenav.PathRequest) -> None:
        calls.append(req.goal)
        if len(calls) == 1:
            getattr(queue, action)()

    first = queue.request(grid, (0, 0), (5, 5), on_done=done)
    second = queue.request(grid, (0, 0), (6, 5), on_done=done)
    queue.update()  # IndexError (pop from an empty deque) before the fix
    assert first.status is second.status is PathStatus.FOUND
    assert calls == ([(5, 5)] if action == "close" else [(5, 5), (6, 5)])


def test_congestion_rerouting_plans_at_most_one_field_per_update_whatever_its_sub_steps() -> None:
    """``reroute_seconds`` promises one field per update; since updates run in sub-steps, a
    long frame re-planned a field in every sub-step (two groups, a 2 s frame: 16 Dijkstra
    fields in one update, a second spike on top of the hitch)."""
    grid = open_grid(20, 40)
    east = [(1.5 + i % 4, 1.5 + i // 4) for i in range(8)]
    west = [(38.5 - i % 4, 18.5 - i // 4) for i in range(8)]
    crowd = gamenav.Crowd(grid, east + west, radius=0.3, max_speed=4.0, reroute_seconds=0.05, flow_threshold=4)
    crowd.move(list(range(8)), (38.5, 18.5))
    crowd.move(list(range(8, 16)), (1.5, 1.5))
    for _ in range(3):
        crowd.update(1 / 30)
    before = crowd.counters["flow_fields"]
    crowd.update(2.0)  # 32 sub-steps
    assert crowd.counters["flow_fields"] - before == 1


def test_agents_whose_requests_someone_else_cancelled_ask_again_instead_of_waiting_forever() -> None:
    """A crowd dropped requests cancelled by someone else (``queue.cancel_all()``): its agents
    stayed idle, neither arrived nor failed nor pending, for ever."""
    grid = open_grid()
    queue = PathQueue(budget_ms=None, max_expansions=1)
    crowd = gamenav.Crowd(grid, [(1.5, 1.5)], radius=0.3, max_speed=4.0, queue=queue)
    crowd.move([0], (8.5, 8.5))
    crowd.update(1 / 30)
    queue.cancel_all()
    queue.max_expansions = 10_000
    for _ in range(120):
        queue.update()
        crowd.update(1 / 30)
    assert crowd.arrived[0] and crowd.path(0).status is PathStatus.FOUND


def test_a_crowd_on_a_closed_queue_says_so_and_keeps_its_agents_waiting_for_a_new_one() -> None:
    """Closing the queue cancelled the crowd's requests and the agents were lost silently; now the
    crowd's update raises the queue's clear error, and a new queue takes the waiting agents."""
    grid = open_grid()
    queue = PathQueue(budget_ms=None, max_expansions=1)
    crowd = gamenav.Crowd(grid, [(1.5, 1.5), (1.5, 3.5)], radius=0.3, max_speed=4.0, queue=queue)
    crowd.move([0, 1], (8.5, 8.5))
    crowd.update(1 / 30)
    queue.close()
    for _ in range(2):
        with pytest.raises(gamenav.InvalidInputError, match="closed PathQueue"):
            crowd.update(1 / 30)
        assert crowd.pending == 2
    crowd.queue = queue = PathQueue(budget_ms=None, max_expansions=10_000)
    for _ in range(120):
        queue.update()
        crowd.update(1 / 30)
    assert crowd.arrived.all()


@pytest.mark.parametrize("avoidance", ["orca", "separation"])
def test_one_very_long_frame_does_not_fail_agents_as_stuck(avoidance: str) -> None:
    """Stuck detection ran per sub-step: in a frame longer than MAX_SUBSTEPS half cells (a
    2-minute pause: sub-steps of 3.75 s) agents stopped by walls within each long sub-step
    counted as stuck 32 times and ended ``failed`` (separation from 2 minutes on; ORCA
    re-pathed them from 15 minutes on). Progress is judged per update again."""
    grid = gamenav.TileGrid(np.ones((30, 40), bool))
    grid.set_walkable((10, 0, 11, 25), False)
    grid.set_walkable((25, 5, 26, 30), False)
    crowd = gamenav.Crowd(grid, [(1.5, 1.5), (2.5, 1.5), (1.5, 2.5)], radius=0.3, max_speed=4.0,
                          avoidance=avoidance)
    crowd.move([0, 1, 2], (38.5, 1.5))
    crowd.update(900.0)
    assert not crowd.failed.any() and crowd.counters["stuck_repaths"] == 0
    for _ in range(600):
        crowd.update(1 / 30)
    assert crowd.arrived.all()


def test_the_queue_forgets_a_dropped_worlds_timing_figures() -> None:
    """The queue kept each world's measured search rates under ``id(world)`` for ever: a game
    that loads many maps grew them without end, and a new map that reused a dead map's id
    sized its chunks by the old map's figures."""
    import gc
    import weakref

    queue = PathQueue(budget_ms=1.0)
    grid = gamenav.TileGrid(np.ones((300, 300), bool))
    grid.set_walkable((100, 0, 101, 299), False)  # a wall: searches that span frames
    for goal in ((299, 299), (299, 0)):
        request = queue.request(grid, (0, 0), goal)
        while not request.done:
            queue.update()
    measured = (queue._rate, queue._per_search, queue._whole_s)
    assert any(len(table) for table in measured)
    dropped = weakref.ref(grid)
    del grid, request
    gc.collect()
    assert dropped() is None and not any(len(table) for table in measured)


def test_a_navmesh_request_that_spells_out_a_default_option_is_the_same_request() -> None:
    """Grid requests had their option defaults filled in before keying; navmesh ones did not,
    so ``exact=False`` (the default) missed the cache entry of the same request without it."""
    from gamenav import PathCache

    mesh = gamenav.NavMesh.from_grid(open_grid(8, 12))
    cache = PathCache()
    first = cache.find_path(mesh, (0.5, 0.5), (11.5, 7.5))
    again = cache.find_path(mesh, (0.5, 0.5), (11.5, 7.5), exact=False, clamp=False, partial=False)
    assert again is first and cache.stats.hits == 1 and cache.stats.misses == 1


@pytest.mark.parametrize("avoidance", ["orca", "separation"])
def test_a_unit_held_off_its_goal_by_an_idle_unit_that_cannot_give_way_arrives(avoidance: str) -> None:
    """A unit sent to where an idle unit stands at the end of a corridor stops touching it; with
    ORCA it re-pathed, then ended ``failed`` a few tenths of a cell from its goal (ORCA shoves
    idle units instead of bending round them, so "held back by the others" never saw it)."""
    grid = gamenav.TileGrid.from_strings(["######", ".....#", "######"])
    crowd = gamenav.Crowd(grid, [(4.5, 1.5), (0.5, 1.5)], radius=0.3, max_speed=3.0, avoidance=avoidance)
    crowd.move([1], (4.5, 1.5), formation=False)
    for _ in range(600):
        crowd.update(1 / 30)
        if crowd.arrived[1] or crowd.failed[1]:
            break
    assert crowd.arrived[1] and not crowd.failed[1]
    assert np.hypot(*(crowd.positions[1] - (4.5, 1.5))) < 0.7  # against the idle unit


def test_path_options_and_worlds_are_checked_when_they_enter_not_inside_an_update() -> None:
    """A misspelled or bad path option (``smoth=True``, ``smooth="yes"``) was taken by the
    Follower / Crowd constructor and raised at the first order, or inside ``update()`` when the
    requests went through a queue; a world that is neither the grid nor a NavMesh likewise."""
    from gamenav import InvalidInputError, InvalidOptionError

    grid = open_grid(6, 6)
    with pytest.raises(InvalidOptionError, match="smooth"):
        gamenav.Follower(grid, (0.5, 0.5), speed=1.0, smoth=True)
    with pytest.raises(InvalidInputError, match="smooth must be a bool"):
        gamenav.Crowd(grid, [(0.5, 0.5)], radius=0.3, max_speed=1.0, queue=PathQueue(), path_options={"smooth": "yes"})
    with pytest.raises(InvalidOptionError, match="NavMeshSearch"):
        gamenav.Follower(grid, (0.5, 0.5), speed=1.0, world=gamenav.NavMesh.from_grid(grid), smooth=True)
    crowd = gamenav.Crowd(grid, [(0.5, 0.5)], radius=0.3, max_speed=1.0, path_options={"smooth": True})
    with pytest.raises(InvalidInputError, match="grid or a NavMesh"):
        crowd.world = open_grid(6, 6)
    assert crowd.world is grid
    agent = gamenav.Follower(grid, (0.5, 0.5), speed=5.0, smooth=True)  # good options still work
    agent.move_to((5.5, 5.5))
    for _ in range(100):
        agent.update(0.05)
    assert agent.arrived


def test_a_unit_wedged_for_good_in_a_jam_gives_up_instead_of_trying_for_ever() -> None:
    """A 0.7-cell unit stuck against a 1-cell corridor's walls, an idle unit within ORCA's reach:
    it counted as jammed, so it re-pathed every 12 stuck periods and never failed (still
    trying after 120 s). Now 8 jam re-paths in which it did not move a cell, with no unit near it
    making headway, fail it (75 s)."""
    grid = gamenav.TileGrid.from_strings([
        "##############",
        "#............#",
        "##....###.##.#",
        "##...#...#...#",
        "####.......#.#",
        "#............#",
        "#...#......#.#",
        "##..###......#",
        "#.....#......#",
        "##############"])
    crowd = gamenav.Crowd(grid, [(9.48, 1.53), (5.5, 2.5)], radius=[0.7, 0.2], max_speed=3.0)
    crowd.move([0], (5.5, 5.5))
    for _ in range(90 * 20):  # 90 s
        crowd.update(1 / 20)
    assert crowd.failed[0] and not crowd.arrived[0] and crowd.mode[0] == 0  # (idle)
    assert crowd.arrived[1] and not crowd.failed[1]


@pytest.mark.parametrize("value", ["ORCA", "bogus", None, ["orca"]])
def test_assigning_an_unknown_avoidance_is_refused(value: Any) -> None:
    """``avoidance`` may be assigned; anything but "orca" or "separation" was taken and ran half of
    each (ORCA's velocities with separation's stuck rules)."""
    crowd = gamenav.Crowd(open_grid(), [(0.5, 0.5)], radius=0.3, max_speed=1.0)
    with pytest.raises(gamenav.InvalidInputError, match="avoidance must be one of orca, separation"):
        crowd.avoidance = value
    assert crowd.avoidance == "orca"
