"""Adversarial review of the grid searches and the query API, fourth round (claims against
behaviour): each test fails on the code before its fix."""

from __future__ import annotations

import numpy as np
import pytest

import gamenav
from gamenav.grid.search import GridSearch


def _rooms() -> gamenav.TileGrid:
    """A 40 x 40 map of rooms joined by doors (sparse: JPS runs JPS+ there)."""
    walk = np.ones((40, 40), dtype=bool)
    for i in range(0, 40, 8):
        walk[i + 3, 2:38] = False
        walk[i + 3, 10:12] = True
        walk[5:35, i + 2] = False
        walk[20:22, i + 2] = True
    return gamenav.TileGrid(walk)


@pytest.mark.parametrize("options", [
    {"algorithm": "jps"}, {"algorithm": "subgoal"}, {"algorithm": "hpa"},
    {"algorithm": "jps", "agent_radius": 0.8},
])
def test_find_paths_answers_every_query_on_the_batch_snapshots_index_after_an_edit(
        options: dict[str, object], monkeypatch: pytest.MonkeyPatch) -> None:
    """``find_paths`` started each query's search on the batch's snapshot, but took the JPS+
    table or the hpa / subgoal graph from the grid's index only while that snapshot was still
    the grid's current one: after another thread's edit (here made as the fourth search starts,
    on a cell no query goes near) the later queries ran online JPS or A* and answered otherwise
    than ``find_path`` (the subgoal graph: 299 expansions instead of 17 and another last bit of
    the cost; JPS: more jump points). With an agent radius JPS runs online on the radius's view
in both."""
    grid = _rooms()
    rng = np.random.default_rng(1)
    usable = gamenav.clearance_mask(grid, float(options.get("agent_radius", 0.0)))  # type: ignore[arg-type]
    free = np.argwhere(usable & (grid.components() == grid.components()[0, 0]))[:, ::-1]
    pairs = rng.integers(0, len(free), size=(10, 2))
    starts = [tuple(int(v) for v in free[i]) for i in pairs[:, 0]]
    goals = [tuple(int(v) for v in free[j]) for j in pairs[:, 1]]
    want = [gamenav.find_path(grid, s, g, **options) for s, g in zip(starts, goals, strict=True)]
    assert sum(path.found for path in want) >= 2

    started = GridSearch._from_checked.__func__  # type: ignore[attr-defined]
    calls = []

    def edit_meanwhile(cls: type[GridSearch], *args: object) -> GridSearch:
        calls.append(1)
        if len(calls) == 4:  # another thread's edit, in a corner of the map
            grid.set_walkable((39, 39), not grid.walkable[39, 39])
        return started(cls, *args)  # type: ignore[no-any-return]

    monkeypatch.setattr(GridSearch, "_from_checked", classmethod(edit_meanwhile))
    got = gamenav.find_paths(grid, starts, goals, workers=1, **options)
    assert grid.version == 1
    for a, b in zip(want, got, strict=True):
        assert (b.status, b.cost, b.expanded) == (a.status, a.cost, a.expanded)
        np.testing.assert_array_equal(b.cells, a.cells)
        np.testing.assert_array_equal(b.points, a.points)


def test_path_reads_array_likes_as_its_documented_arrays() -> None:
    """``Path(...)`` built by a caller kept what it was given: a list of cells raised
    ``AttributeError: 'list' object has no attribute 'flags'``, int32 cells stayed int32 and int
    points ints (documented: int64 and float64), and a status given as a string was kept until
    ``repr`` or ``found`` met it."""
    path = gamenav.Path(gamenav.PathStatus.FOUND, 1, [[0, 0], [1, 0]], [[0.5, 0.5], [1, 0]], np.int64(2),
                        [3, 4])
    assert (path.cells.dtype, path.points.dtype, path.corridor.dtype) == (np.int64, np.float64, np.int64)
    assert path.cells.tolist() == [[0, 0], [1, 0]] and path.points.tolist() == [[0.5, 0.5], [1.0, 0.0]]
    assert (path.cost, path.expanded, path.corridor.tolist()) == (1.0, 2, [3, 4])
    assert not path.cells.flags.writeable and not path.corridor.flags.writeable
    assert gamenav.Path(gamenav.PathStatus.FOUND, cells=np.zeros((1, 2), np.int32)).cells.dtype == np.int64
    assert repr(path) == "Path(status=FOUND, cost=1, waypoints=2, expanded=2)"


@pytest.mark.parametrize(("fields", "message"), [
    ({"status": "found"}, "status must be a PathStatus, got 'found'"),
    ({"cost": None}, "cost must be a number, got None"),
    ({"expanded": -1}, "expanded must be an int >= 0, got -1"),
    ({"cells": [[0.5, 0]]}, r"cells must be an array of ints of shape \(n, 2\), got \[\[0.5, 0\]\]"),
    ({"cells": np.ones((2, 2), dtype=bool)}, "cells must be .* got an array of shape \\(2, 2\\) and dtype bool"),
    ({"cells": np.array([[2**64 - 1, 0]], dtype=np.uint64)}, "cells must be an array of ints"),
    ({"points": np.zeros((2, 3))}, r"points must be an array of numbers of shape \(n, 2\), got an array of shape"),
    ({"corridor": [[1, 2]]}, r"corridor must be an array of ints of shape \(k,\)"),
])
def test_path_refuses_fields_of_another_type_or_shape(fields: dict[str, object], message: str) -> None:
    """The same bad fields were kept (or crashed with AttributeError); they are InvalidInputError."""
    given: dict[str, object] = {"status": gamenav.PathStatus.FOUND, **fields}
    with pytest.raises(gamenav.InvalidInputError, match=message):
        gamenav.Path(**given)  # type: ignore[arg-type]


def test_find_path_documents_the_error_of_a_blocked_end() -> None:
    """``find_path``'s docstring said unreachable goals never raise, but a goal on a blocked cell
    raises BlockedEndpointError (and gives PARTIAL with ``partial=True``); it says so now."""
    grid = gamenav.TileGrid.from_strings(["..#", "###", "..."])
    assert gamenav.find_path(grid, (0, 0), (0, 2)).status is gamenav.PathStatus.NO_PATH
    assert gamenav.find_path(grid, (0, 0), (2, 0), partial=True).status is gamenav.PathStatus.PARTIAL
    with pytest.raises(gamenav.BlockedEndpointError):
        gamenav.find_path(grid, (0, 0), (2, 0))
    assert "BlockedEndpointError" in (gamenav.find_path.__doc__ or "")


@pytest.mark.parametrize(("heuristic", "shape"), [
    (lambda dx, dy: np.ones((6, 5)), r"\(6, 5\)"),
    (lambda dx, dy: np.zeros(3), r"\(3,\)"),
    (lambda dx, dy: np.ones((1, 5, 6)), r"\(1, 5, 6\)"),
])
def test_a_heuristic_returning_an_array_of_another_shape_is_told_so(heuristic: object, shape: str) -> None:
    """A heuristic returning an array of another shape than the grid's was told "must return a
    number for every cell, got an error: array([[1., 1., ...]]) is not an int or a float" (the
    array printed whole, numpy's broadcasting message dropped); the message names the shape it
    returned and the grid's."""
    grid = gamenav.TileGrid.from_strings(["......", ".####.", "......", "#.##.#", "......"])
    pattern = (rf"must return a number for every cell, got an error: an array of shape {shape} is not an int "
               rf"or a float \(given the arrays dx, dy of shape \(5, 6\): it returned an array of shape {shape}\)")
    with pytest.raises(gamenav.InvalidInputError, match=pattern):
        gamenav.find_path(grid, (0, 0), (5, 4), heuristic=heuristic)


@pytest.mark.parametrize("algorithm", ["jps", "subgoal"])
def test_optimal_algorithms_are_documented_to_round_their_costs_otherwise(algorithm: str) -> None:
    """``GridSearch``'s docstring said that subgoal costs equal A*'s (and JPS's are optimal),
    but about half of the queries on a rooms map cost another float rounding than A*'s (the same
    optimum, its steps summed in another order); the docstring says to compare with a tolerance."""
    grid = _rooms()
    rng = np.random.default_rng(0)
    free = np.argwhere(grid.components() == grid.components()[0, 0])[:, ::-1]
    for i, j in rng.integers(0, len(free), size=(60, 2)):
        start, goal = tuple(int(v) for v in free[i]), tuple(int(v) for v in free[j])
        exact = gamenav.find_path(grid, start, goal).cost
        cost = gamenav.find_path(grid, start, goal, algorithm=algorithm).cost
        assert cost == pytest.approx(exact, rel=1e-14, abs=0.0)  # (equal costs, if summed alike one day, pass too)
    assert "rounding" in (GridSearch.__doc__ or "")


def test_clearance_field_documents_the_noise_a_radius_may_have() -> None:
    """``clearance_field`` said a cell is usable by radius ``r`` when its clearance is ``>= r``,
    but ``clearance_mask`` (and every search with ``agent_radius``) forgives float noise: a
    radius a float step above a clearance of 0.5 or 1.5 cells still fits there (195 cells of a
    30 x 30 map the field excluded). The docstring says so."""
    grid = gamenav.TileGrid(np.random.default_rng(0).random((30, 30)) > 0.03, cell_size=0.3)
    field = gamenav.clearance_field(grid)
    for value in (0.5 * 0.3, 1.5 * 0.3):
        radius = float(np.nextafter(value, np.inf))
        fits = gamenav.clearance_mask(grid, radius)
        assert fits[field == value].all() and not (field[fits] >= radius).all()
        np.testing.assert_array_equal(fits, field >= value)
    assert "float noise" in (gamenav.clearance_field.__doc__ or "")


def test_find_paths_runs_no_heuristic_under_the_grids_edit_lock() -> None:
    """(A mend of the lease above: the first query's search, which runs the caller's heuristic,
    was started under the grid's edit lock; a heuristic waiting for another thread's edit of the
    grid hung.) The heuristic runs while another thread may edit the grid."""
    import threading

    grid = gamenav.TileGrid.from_strings(["....", ".#..", "...."])
    free: list[bool] = []  # whether another thread could take the edit lock meanwhile

    def other_thread() -> None:
        got = grid._edit_lock.acquire(timeout=5)
        if got:
            grid._edit_lock.release()
        free.append(got)

    def heuristic(dx: object, dy: object) -> float:
        probe = threading.Thread(target=other_thread)
        probe.start()
        probe.join()
        return 0.0

    paths = gamenav.find_paths(grid, [(0, 0)], [(3, 2)], heuristic=heuristic, workers=1)
    assert paths[0].cost == gamenav.find_path(grid, (0, 0), (3, 2)).cost
    assert free and all(free)


def test_agent_radii_are_read_in_the_grids_own_cell_size() -> None:
    """On a TileGrid subclass whose ``cell_size`` property reports another size (2) than its own
    (1: ``cell_to_world`` and every search's points use it), ``agent_radius`` was read in the
    reported size: an agent of radius 1 (one cell) was taken for half a cell and walked along
    the wall, ``clearance_field`` gave 1.0 next to a wall instead of 0.5, and radii from 7.5 to
    15 were accepted. Radii and clearances are in the grid's own units now, as its points."""
    from tests.grid.test_fast_path import ReportedTransformGrid

    walk = np.ones((7, 9), dtype=bool)
    walk[3, 1:8] = False
    reported, plain = ReportedTransformGrid(walk), gamenav.TileGrid(walk)
    np.testing.assert_array_equal(gamenav.clearance_field(reported), gamenav.clearance_field(plain))
    np.testing.assert_array_equal(gamenav.clearance_mask(reported, 1.0), gamenav.clearance_mask(plain, 1.0))
    for options in ({"agent_radius": 1.0}, {"agent_radius": 1.0, "algorithm": "jps"}):
        got = gamenav.find_path(reported, (1, 1), (7, 5), **options)
        want = gamenav.find_path(plain, (1, 1), (7, 5), **options)
        assert got.cost == want.cost
        np.testing.assert_array_equal(got.cells, want.cells)
    with pytest.raises(gamenav.InvalidInputError, match=r"in \[0, 7.5\] world units .* of cell_size 1\)"):
        gamenav.find_path(reported, (1, 1), (7, 5), agent_radius=10.0)


def test_empty_paths_share_read_only_empty_arrays() -> None:
    """(A mend of the Path checks above: ``Path.none``, which a queue builds for every cancelled
    or stale request, made three new empty arrays and copied them on top of the checks: about 33
    us against 23 before the checks on this machine.) Empty results share read-only empty arrays,
    which hold nothing to write."""
    a, b = gamenav.Path.none(gamenav.PathStatus.CANCELLED), gamenav.Path(gamenav.PathStatus.NO_PATH)
    for name in ("cells", "points", "corridor"):
        array = getattr(a, name)
        assert array is getattr(b, name) and array.size == 0 and not array.flags.writeable
    assert (a.cells.shape, a.cells.dtype, a.points.shape, a.points.dtype, a.corridor.shape, a.corridor.dtype) == (
        (0, 2), np.int64, (0, 2), np.float64, (0,), np.int64)
