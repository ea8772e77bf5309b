"""Adversarial review of the tile grids, third round: each test fails on the code before its fix."""

from __future__ import annotations

import gc
import math
import warnings

import numpy as np
import pytest

import gamenav
from gamenav._validate import grid_dimensions
from gamenav.grid import hpa, subgoal
from tests.grid.test_fast_path import ReportedTransformGrid


@pytest.mark.parametrize("algorithm", ["astar", "jps", "subgoal", "hpa"])
def test_every_algorithm_gives_points_of_the_grids_own_transform(algorithm: str) -> None:
    """``find_path(..., algorithm="subgoal")`` took its world points from the ``origin`` /
    ``cell_size`` / ``y_up`` properties, which a subclass may override, while ``GridSearch``,
    ``cell_to_world`` and the other algorithms read the grid's own transform: (101, 5) against
    (0.5, 3.5) for the same cell."""

    grid = ReportedTransformGrid(np.ones((6, 8), dtype=bool))
    grid.set_walkable((3, 1, 4, 5), False)
    path = gamenav.find_path(grid, (0, 3), (7, 3), algorithm=algorithm)
    search = gamenav.GridSearch(grid, (0, 3), (7, 3), algorithm=algorithm)
    search.step(None)
    np.testing.assert_array_equal(path.points, grid.cell_to_world(path.cells))
    np.testing.assert_array_equal(path.points, search.result().points)
    assert path.points[0].tolist() == [0.5, 3.5]


@pytest.mark.parametrize("heuristic", [
    lambda dx, dy: np.longdouble("1e400") + dx * 0,  # an array of long doubles
    lambda dx, dy: np.longdouble("1e400"),  # one long double
    lambda dx, dy: (dx + dy).astype(np.longdouble) * np.longdouble("1e400"),  # beyond float64 but at the goal
], ids=["array", "scalar", "beyond"])
def test_a_long_double_heuristic_beyond_float64_is_refused_without_a_warning(heuristic: object) -> None:
    """A user heuristic giving long doubles beyond float64 went through numpy's "overflow
    encountered in cast" RuntimeWarning (an exception under ``-W error``, which then escaped
    instead of the InvalidInputError) before it was refused as not finite."""
    grid = gamenav.TileGrid(np.ones((3, 4), dtype=bool))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(gamenav.InvalidInputError, match=r"heuristic\(dx, dy\) must return finite values"):
            gamenav.find_path(grid, (0, 0), (3, 2), heuristic=heuristic)


@pytest.mark.parametrize(("size", "cell_size", "columns"), [
    ((8410218.9, 1.0), 0.3, 28034063),  # 8410218.9 / 0.3 = 28034063.000000004
    ((5169655.300000001, 0.05), 0.05, 103393106),
    ((100.0, 1.0), 0.1, 1000),
    ((100.0001, 1.0), 0.1, 1001),
])
def test_grid_dimensions_forgive_a_relative_float_noise(size: tuple[float, float], cell_size: float,
                                                        columns: int) -> None:
    """``grid_dimensions`` (the adapters' grids of a world size) says it forgives a relative 1e-9
    of float noise but forgave an absolute 1e-9: a world 28034063 cells of 0.3 wide got 28034064
    columns, one beyond its edge."""
    assert grid_dimensions(size, cell_size) == (columns, math.ceil(size[1] / cell_size))


def test_every_cell_has_a_centre_of_its_own() -> None:
    """On cells of 5e-324 (one float step) the centres ``(x + 0.5) * cell_size`` of cells 1 and 2
    were one float: ``world_to_cell(cell_to_world(c))`` gave another cell for half of them and
    a path's points stood still between them. Such cells are refused; from 1e-323 (two steps,
    the smallest accepted) every centre maps back to its cell."""
    with pytest.raises(gamenav.InvalidInputError, match=r"cell_size must be at least 1e-323.*got 5e-324"):
        gamenav.TileGrid(np.ones((3, 4), dtype=bool), cell_size=5e-324)
    cells = np.array([(x, y) for x in range(50) for y in range(3)])
    for cell_size in (1e-323, 1.5e-323, 2.5e-323):
        for y_up in (False, True):
            grid = gamenav.TileGrid(np.ones((3, 50), dtype=bool), cell_size=cell_size, origin=(cell_size, 0.0),
                                    y_up=y_up)
            np.testing.assert_array_equal(grid.world_to_cell(grid.cell_to_world(cells)), cells)
            path = gamenav.find_path(grid, (0, 1), (49, 1))
            assert len(np.unique(path.points, axis=0)) == len(path.points) == 50


def _open_map(size: int, seed: int) -> gamenav.TileGrid:
    """A ``size`` x ``size`` map with 2 % of its cells blocked (corners kept open)."""
    walk = np.random.default_rng(seed).random((size, size)) > 0.02
    walk[0, 0] = walk[-1, -1] = True
    return gamenav.TileGrid(walk)


@pytest.mark.parametrize("algorithm", ["hpa", "subgoal"])
def test_a_graph_search_stepped_after_an_edit_answers_as_find_path_did_at_its_start(algorithm: str) -> None:
    """``GridSearch(algorithm="hpa" | "subgoal")`` ran its query in its first ``step()`` on the
    grid's graph of that moment: after any edit since the search started (a PathQueue starts
    searches in ``request()`` and steps them in ``update()``), the graph had moved on and the
    search ran plain A* on its snapshot instead: on a 400 x 400 map 6501 expansions and another
    path (cost 565.23) where ``find_path`` at the start gave 40 and 566.40. The search now holds
    its snapshot's graph from its start (an edit meanwhile repairs a copy, as for JPS+ tables)."""
    grid = _open_map(400, 3)
    start, goal = (0, 0), (399, 390)
    one_shot = gamenav.find_path(grid, start, goal, algorithm=algorithm)
    search = gamenav.GridSearch(grid, start, goal, algorithm=algorithm)
    grid.set_walkable((200, 0), not grid.passable[0, 200])  # far from the path: its answer holds
    search.step(1)
    path = search.result()
    assert path.cost == one_shot.cost and path.expanded == one_shot.expanded
    np.testing.assert_array_equal(path.cells, one_shot.cells)
    np.testing.assert_array_equal(path.points, one_shot.points)


@pytest.mark.parametrize("algorithm", ["hpa", "subgoal"])
@pytest.mark.parametrize("end", ["step", "cancel", "drop"])
def test_a_graph_search_gives_its_graph_back(algorithm: str, end: str) -> None:
    """The graph a search holds from its start goes back to the index when it ends, is cancelled
    or is dropped unfinished (an edit then repairs the index in place again)."""
    grid = _open_map(60, 4)
    gamenav.prepare(grid, algorithm)
    index = (hpa.hpa_index if algorithm == "hpa" else subgoal.subgoal_index)(grid)
    search = gamenav.GridSearch(grid, (0, 0), (59, 59), algorithm=algorithm)
    assert index._users == 1
    if end == "step":
        assert search.step(1).done
    elif end == "cancel":
        search.cancel()
    else:
        del search
        gc.collect()
    assert index._users == 0


@pytest.mark.parametrize("big", [10**20, -(2**70)])
def test_an_int_beyond_64_bits_is_a_number_like_its_float(big: int) -> None:
    """numpy holds ints beyond 64 bits as objects, and points, origins and sizes made of them
    were refused as "not numbers" while the same value as a float was taken: now both are
    taken, or refused, alike."""
    grid = gamenav.TileGrid.from_strings(["...", "..."])
    np.testing.assert_array_equal(grid.world_to_cell((big, 0)), grid.world_to_cell((float(big), 0)))
    np.testing.assert_array_equal(grid.world_to_cell([(0, big), (1, 1)]),
                                  grid.world_to_cell([(0.0, float(big)), (1.0, 1.0)]))
    with pytest.raises(gamenav.InvalidInputError) as as_float:
        gamenav.TileGrid.from_strings(["..."], origin=(float(big), 0.0))
    with pytest.raises(gamenav.InvalidInputError) as as_int:
        gamenav.TileGrid.from_strings(["..."], origin=(big, 0))
    assert str(as_int.value) == str(as_float.value)
    mesh = gamenav.NavMesh.from_polygons([(0, 0), (4, 0), (4, 4), (0, 4)])
    with pytest.raises(gamenav.InvalidInputError) as as_float:
        mesh.locate((float(big), 0.0))
    with pytest.raises(gamenav.InvalidInputError) as as_int:
        mesh.locate((big, 0))
    assert str(as_int.value) == str(as_float.value)  # (beyond MAX_COORDINATE, both)
