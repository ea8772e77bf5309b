"""Subgoal graphs (gamenav.grid.subgoal, ``algorithm="subgoal"``): optimal costs against the Moving
AI oracles and A*, valid paths, NO_PATH exactly when A* says so, repaired graphs equal rebuilt
ones, unsupported options."""

from __future__ import annotations

import gc
import os
import re
import weakref
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import gamenav
from gamenav._kernels import subgoal as _ks
from gamenav.grid import subgoal
from gamenav.io import read_scenarios
from tests.grid._races import race_door_edits
from tests.grid._reference import check_path

FOUND = gamenav.PathStatus.FOUND
NO_PATH = gamenav.PathStatus.NO_PATH


def _free(grid: gamenav.TileGrid) -> list[tuple[int, int]]:
    return [(int(x), int(y)) for y, x in np.argwhere(grid.passable)]


def _compare(grid: gamenav.TileGrid, a: tuple[int, int], b: tuple[int, int]) -> gamenav.Path:
    """Subgoal search against A* on one query: same status, same cost, a valid path whose
    ``cost`` is the sum of its steps' costs."""
    path = gamenav.find_path(grid, a, b, algorithm="subgoal")
    best = gamenav.find_path(grid, a, b)
    assert path.status is best.status, (a, b)
    if path.status is FOUND:
        assert check_path(grid, path, a, b) == pytest.approx(path.cost, abs=1e-9)
        assert path.cost == pytest.approx(best.cost, abs=1e-9), (a, b)
    else:
        assert len(path.cells) == 0
    return path


# -- edge cases and options ------------------------------------------------------------------

def test_unsupported_options_raise() -> None:
    grid = gamenav.TileGrid(np.ones((20, 20), dtype=bool))
    for options, what in [({"weight": 1.5}, "weight=1.5"),
                          ({"diagonal": "never"}, "diagonal='never'"),
                          ({"diagonal": "always"}, "diagonal='always'"),
                          ({"heuristic": "manhattan"}, "heuristic='manhattan'"),
                          ({"agent_radius": 1.0}, "agent_radius=1")]:
        with pytest.raises(gamenav.UnsupportedOptionError,
                           match=f"algorithm='subgoal' supports only .*{what}"):
            gamenav.find_path(grid, (0, 0), (19, 19), algorithm="subgoal", **options)
    weighted = gamenav.TileGrid(np.ones((20, 20), dtype=bool), cost=np.full((20, 20), 2.0))
    with pytest.raises(gamenav.UnsupportedOptionError, match="non-uniform cell costs"):
        gamenav.find_path(weighted, (0, 0), (19, 19), algorithm="subgoal")
    with pytest.raises(gamenav.InvalidInputError, match="algorithm must be one of"):
        gamenav.prepare(grid, "subgoals")


def test_trivial_direct_and_unreachable_queries() -> None:
    grid = gamenav.TileGrid(np.ones((20, 20), dtype=bool))
    same = gamenav.find_path(grid, (3, 3), (3, 3), algorithm="subgoal")
    assert same.status is FOUND and same.cost == 0.0 and same.cells.tolist() == [[3, 3]]
    open_ = _compare(grid, (0, 0), (19, 5))  # no subgoal at all: answered by the scan
    assert open_.expanded == 0 and subgoal.subgoal_index(grid).nodes == 0
    blocked = gamenav.TileGrid.from_strings(["..#..", "..#..", "..#.."])
    path = gamenav.find_path(blocked, (0, 0), (4, 2), algorithm="subgoal")
    assert path.status is NO_PATH and len(path.cells) == 0
    partial = gamenav.find_path(blocked, (0, 0), (4, 2), algorithm="subgoal", partial=True)
    assert partial.status is gamenav.PathStatus.PARTIAL


def test_subgoals_are_the_convex_corners() -> None:
    grid = gamenav.TileGrid.from_strings([".....",
                                          ".##..",
                                          ".##..",
                                          "....."])
    index = subgoal.subgoal_index(grid)
    gr = index._data
    cells = {(int(gr.node_x[u]), int(gr.node_y[u])) for u in np.flatnonzero(gr.ncell >= 0)}
    assert cells == {(0, 0), (3, 0), (0, 3), (3, 3)}
    # the four corners see each other around the block; opposite corners do not
    assert (0, 0, 3, 0) in index.edge_set() and (0, 0, 3, 3) not in index.edge_set()
    _compare(grid, (0, 1), (4, 2))


def test_a_detour_runs_the_graph_in_one_step() -> None:
    walk = np.ones((64, 64), dtype=bool)
    walk[10:60, 30] = False
    grid = gamenav.TileGrid(walk)
    gamenav.prepare(grid, "subgoal")
    search = gamenav.GridSearch(grid, (2, 40), (60, 40), algorithm="subgoal")
    assert search.status is gamenav.PathStatus.IN_PROGRESS
    assert search.step(1) is FOUND  # the whole query in the first step
    path = _compare(grid, (2, 40), (60, 40))
    assert 0 < path.expanded < 10
    smooth = gamenav.find_path(grid, (2, 40), (60, 40), algorithm="subgoal", smooth=True)
    assert smooth.cost == path.cost and len(smooth.cells) < len(path.cells)


# -- oracles ---------------------------------------------------------------------------------

def _oracle(grid: gamenav.TileGrid, scenarios: list) -> None:
    for s in scenarios:
        path = gamenav.find_path(grid, s.start, s.goal, algorithm="subgoal")
        assert path.status is FOUND, s
        assert abs(path.cost - s.optimal_length) <= max(0.01, 1e-5 * s.optimal_length), (
            s, path.cost)
        assert check_path(grid, path, s.start, s.goal) == pytest.approx(path.cost, abs=1e-9)


@pytest.mark.parametrize("name", ["arena", "den011d"])
def test_every_vendored_scenario_is_optimal(data_dir: Path, name: str) -> None:
    grid = gamenav.TileGrid.from_movingai(data_dir / "movingai" / f"{name}.map")
    _oracle(grid, read_scenarios(data_dir / "movingai" / f"{name}.map.scen"))


@pytest.mark.slow
def test_sample_of_the_shared_maps(shared_benchmarks: Path | None) -> None:
    """Moving AI maps of every kind (mazes, rooms, random, game maps) and the GPPC 2014 maps:
    an evenly spaced sample plus the longest scenario of each."""
    if shared_benchmarks is None:
        if os.environ.get("CI"):
            pytest.fail("no shared benchmark maps (set GAMENAV_BENCHMARKS)")
        pytest.skip("../shared/benchmarks is not present")
    maps = sorted((shared_benchmarks / "movingai").glob("*.map"))
    maps += sorted((shared_benchmarks / "gppc-2014").glob("*.map"))
    assert maps
    for map_path in maps:
        scen = map_path.with_name(map_path.name + ".scen")
        if not scen.exists():
            continue
        grid = gamenav.TileGrid.from_movingai(map_path)
        scenarios = read_scenarios(scen)
        picks = np.linspace(0, len(scenarios) - 1, 12).round().astype(int)
        sample = [scenarios[i] for i in picks]
        sample.append(max(scenarios, key=lambda s: s.optimal_length))
        _oracle(grid, sample)


# -- against A* ------------------------------------------------------------------------------

@settings(max_examples=60, deadline=None)
@given(st.integers(1, 32), st.integers(1, 32), st.sampled_from([0.0, 0.05, 0.15, 0.3, 0.45]),
       st.integers(0, 2**32 - 1))
def test_costs_equal_astar_on_random_grids(h: int, w: int, density: float, seed: int) -> None:
    rng = np.random.default_rng(seed)
    grid = gamenav.TileGrid(rng.random((h, w)) >= density)
    free = _free(grid)
    for _ in range(12 if len(free) > 1 else 0):
        a, b = (free[i] for i in rng.integers(len(free), size=2))
        _compare(grid, a, b)


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_costs_equal_astar_on_rooms_and_corridors(seed: int) -> None:
    """Rectangular rooms and one-cell pillars: many collinear corners and long rays."""
    rng = np.random.default_rng(seed)
    walk = np.ones((40, 40), dtype=bool)
    for _ in range(int(rng.integers(2, 8))):
        x, y = (int(v) for v in rng.integers(0, 36, size=2))
        w, h = (int(v) for v in rng.integers(1, 12, size=2))
        walk[y:y + h, x:x + w] = False
    for _ in range(int(rng.integers(0, 10))):
        walk[int(rng.integers(40)), int(rng.integers(40))] = False
    grid = gamenav.TileGrid(walk)
    free = _free(grid)
    for _ in range(15 if len(free) > 1 else 0):
        a, b = (free[i] for i in rng.integers(len(free), size=2))
        _compare(grid, a, b)


# -- edits -----------------------------------------------------------------------------------

@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from(["subgoal", "hpa"]))
def test_find_path_short_cut_answers_as_a_grid_search(seed: int, algorithm: str) -> None:
    """``find_path(..., algorithm=)`` skips the GridSearch machinery for hpa and subgoal
    queries (:func:`gamenav.grid.search.try_graph_path`); its answers, errors included, are
    those of a GridSearch run to the end, also after an edit and for bad or odd endpoints, on
    grids with any world transform."""
    rng = np.random.default_rng(seed)
    grid = gamenav.TileGrid(rng.random((24, 30)) > 0.25, cell_size=float(rng.choice([1.0, 0.5, 32.0])),
                            origin=(float(rng.uniform(-50, 50)), float(rng.uniform(-50, 50))),
                            y_up=bool(rng.integers(2)))
    free = _free(grid)
    for query in range(12):
        if query == 6:
            grid.set_walkable((int(rng.integers(0, 26)), int(rng.integers(0, 20)), 30, 24), False)
            grid.set_walkable((int(rng.integers(0, 30)), int(rng.integers(0, 24))), True)
            gamenav.prepare(grid, algorithm)  # (nothing left to do after the edits)
        a: object = free[int(rng.integers(len(free)))]
        b: object = free[int(rng.integers(len(free)))]
        if query == 3:
            b = a  # the same cell
        if query == 4:
            b = (int(rng.integers(0, 30)), int(rng.integers(0, 24)))  # maybe blocked
        if query == 5:
            b = (40, 3)  # off the grid
        try:
            expected: object = gamenav.GridSearch(grid, a, b, algorithm=algorithm)
            expected.step()
            expected = expected.result()
        except gamenav.GamenavError as exc:
            with pytest.raises(type(exc), match=re.escape(str(exc))):
                gamenav.find_path(grid, a, b, algorithm=algorithm)
            continue
        got = gamenav.find_path(grid, a, b, algorithm=algorithm)
        assert (got.status, got.cost, got.expanded) == (expected.status, expected.cost, expected.expanded)
        np.testing.assert_array_equal(got.cells, expected.cells)
        np.testing.assert_array_equal(got.points, expected.points)
        assert not got.cells.flags.writeable and not got.points.flags.writeable


def _check_directions(index: subgoal.SubgoalIndex) -> None:
    """Every live edge entry's ``adir`` byte: the direction class of its two cells, and the
    dead-end flag set exactly when the far node has no edge taut after arriving along it."""
    gr = index._data

    def block(u: int) -> list[tuple[int, int]]:
        span = slice(int(gr.off[u]), int(gr.off[u] + gr.cnt[u]))
        return list(zip((np.asarray(gr.adj[span]) >> _ks.ID_SHIFT).tolist(), gr.adir[span].tolist(), strict=True))

    for u in np.flatnonzero(gr.ncell >= 0).tolist():
        for v, d in block(u):
            cls = _ks._direction(int(gr.node_x[v] - gr.node_x[u]), int(gr.node_y[v] - gr.node_y[u]))
            assert d & _ks.CLASS_MASK == cls
            allowed = int(_ks.TAUT_MASKS[gr.corner[v], cls])
            dead = not any((allowed >> (c & _ks.CLASS_MASK)) & 1 for _, c in block(v))
            assert bool(d & _ks.DEAD_END) == dead, (u, v)


def _entry_bytes(gr: subgoal._Graph) -> dict[tuple[int, int], int]:
    """Each live edge entry's ``adir`` byte, by the padded cells of its two nodes."""
    out = {}
    for u in np.flatnonzero(gr.ncell >= 0).tolist():
        for i in range(int(gr.off[u]), int(gr.off[u] + gr.cnt[u])):
            out[int(gr.ncell[u]), int(gr.ncell[int(gr.adj[i]) >> _ks.ID_SHIFT])] = int(gr.adir[i])
    return out


@st.composite
def edited_grids(draw: st.DrawFn) -> tuple[gamenav.TileGrid, list[tuple[int, int, int, int, bool]]]:
    h = draw(st.integers(2, 28))
    w = draw(st.integers(2, 28))
    density = draw(st.sampled_from([0.0, 0.1, 0.25, 0.4]))
    seed = draw(st.integers(0, 2**32 - 1))
    walk = np.random.default_rng(seed).random((h, w)) >= density
    edits = draw(st.lists(st.tuples(st.integers(0, w - 1), st.integers(0, h - 1),
                                    st.integers(1, 4), st.integers(1, 4), st.booleans()),
                          min_size=1, max_size=8))
    return gamenav.TileGrid(walk), edits


@settings(max_examples=80, deadline=None)
@given(edited_grids(), st.integers(0, 2**32 - 1))
def test_repaired_graph_equals_rebuilt_graph(case, seed: int) -> None:
    grid, edits = case
    index = subgoal.subgoal_index(grid)
    rng = np.random.default_rng(seed)
    for x, y, w, h, value in edits:
        grid.set_walkable((x, y, x + w, y + h), value)
        assert index.version == grid.version
        fresh = subgoal.SubgoalIndex(grid.copy())
        assert index.nodes == fresh.nodes
        assert index.edge_set() == fresh.edge_set()
        _check_directions(index)
        gr, fr = index._data, fresh._data
        assert _entry_bytes(gr) == _entry_bytes(fr)
        np.testing.assert_array_equal(gr.sg >= 0, fr.sg >= 0)
        np.testing.assert_array_equal(gr.clear[gr.p != 0], fr.clear[fr.p != 0])
        free = _free(grid)
        for _ in range(4 if len(free) > 1 else 0):
            a, b = (free[i] for i in rng.integers(len(free), size=2))
            _compare(grid, a, b)


def test_edits_on_a_big_map_repair_locally() -> None:
    walk = np.ones((300, 300), dtype=bool)
    for y in range(20, 300, 40):
        walk[y, 10:290] = False
        walk[y, 150:153] = True
    grid = gamenav.TileGrid(walk)
    index = subgoal.subgoal_index(grid)
    before = index.nodes
    edges = index.edge_set()
    grid.set_walkable((100, 110, 104, 114), False)
    assert index.nodes == before + 4
    assert 0 < index.repaired < before  # only the subgoals that read the box were rescanned
    assert index.edge_set() == subgoal.SubgoalIndex(grid.copy()).edge_set()
    _compare(grid, (5, 5), (295, 295))
    grid.set_walkable((100, 110, 104, 114), True)
    assert index.nodes == before and index.edge_set() == edges
    _compare(grid, (100, 109), (102, 115))


def test_the_edge_pool_stays_bounded_under_repeated_edits(monkeypatch: pytest.MonkeyPatch) -> None:
    """Blocks that outgrow their room move to the end of the edge pool; the pool is compacted
    (blocks in node order, answers unchanged) instead of growing with every edit."""
    monkeypatch.setattr(subgoal, "_POOL_SLACK", 64, raising=False)
    walk = np.ones((40, 40), dtype=bool)
    walk[8:32:4, 8:32:4] = False  # pillars: many subgoals, many edges
    grid = gamenav.TileGrid(walk)
    index = subgoal.subgoal_index(grid)
    edges = index.edge_set()
    rng = np.random.default_rng(3)
    for _ in range(300):
        x, y = (int(v) for v in rng.integers(2, 36, size=2))
        if not walk[y:y + 2, x:x + 2].all():
            continue  # (reopening a box gives back open floor only)
        grid.set_walkable((x, y, x + 2, y + 2), False)
        grid.set_walkable((x, y, x + 2, y + 2), True)
        graph = index._data
        live = int(graph.cnt.sum())
        assert graph.meta[2] <= 2 * live + 64 and graph.adj.shape[0] <= 2 * (2 * live + 64)
    assert index.edge_set() == edges == subgoal.SubgoalIndex(grid.copy()).edge_set()
    for a, b in [((0, 0), (39, 39)), ((9, 7), (30, 33)), ((39, 0), (0, 39))]:
        _compare(grid, a, b)


def test_a_held_graph_is_copied_not_repaired() -> None:
    walk = np.ones((32, 32), dtype=bool)
    walk[5, 5:20] = False
    grid = gamenav.TileGrid(walk)
    index = subgoal.subgoal_index(grid)
    state = grid._snapshot()
    held = index.acquire(state)
    assert held is not None
    before = held.p.copy(), held.adj.copy()
    grid.set_walkable((10, 0, 11, 30), False)
    assert index._data is not held and index.acquire(state) is None  # old version refused
    np.testing.assert_array_equal(held.p, before[0])
    np.testing.assert_array_equal(held.adj, before[1])
    old = index.query(held, (0, 10), (31, 10), ((0.0, 0.0), 1.0, False, 30.0))
    assert old is not None and old.cost == pytest.approx(31.0)
    index.release(held)
    _compare(grid, (0, 10), (31, 10))


def test_queries_in_threads_while_the_grid_is_edited() -> None:
    """Each answer is valid on the snapshot its search saw (copy-on-write graph, repairs)."""
    walk = np.ones((120, 160), dtype=bool)
    walk[:, 80] = False
    walk[50:60, 80] = True  # a door in a wall across the map
    walk[20:30, 20:30] = False
    grid = gamenav.TileGrid(walk)
    gamenav.prepare(grid, "subgoal")
    for passable, path in race_door_edits(grid, (80, 50, 81, 60), "subgoal", 60, 100):
        if path.status is FOUND:
            snapshot = gamenav.TileGrid(passable)
            a, b = tuple(path.cells[0]), tuple(path.cells[-1])
            assert check_path(snapshot, path, a, b) == pytest.approx(path.cost, abs=1e-9)
            assert path.cost == pytest.approx(gamenav.find_path(snapshot, a, b).cost, abs=1e-9)
        else:
            assert path.status is NO_PATH and not passable[50:60, 80].any()


def test_the_index_does_not_keep_its_grid_alive() -> None:
    grid = gamenav.TileGrid(np.ones((50, 50), dtype=bool))
    assert gamenav.find_path(grid, (0, 0), (49, 49), algorithm="subgoal").status is FOUND
    alive = weakref.ref(grid), weakref.ref(subgoal.subgoal_index(grid))
    del grid
    gc.collect()
    assert alive[0]() is None and alive[1]() is None


def test_a_path_queue_runs_a_subgoal_request_whole() -> None:
    walk = np.ones((64, 64), dtype=bool)
    walk[10:60, 30] = False
    grid = gamenav.TileGrid(walk)
    queue = gamenav.PathQueue(budget_ms=50.0, max_expansions=1)
    try:
        request = queue.request(grid, (2, 40), (60, 40), algorithm="subgoal")
        for _ in range(5):
            queue.update()
            if request.done:
                break
        assert request.done and request.path.status is FOUND
        assert request.path.cost == pytest.approx(gamenav.find_path(grid, (2, 40), (60, 40)).cost)
    finally:
        queue.close()


def test_landmarks_follow_edits() -> None:
    """An edit brings the landmark rows to the new graph (repaired, or computed again where a
    landmark moved): queries stay optimal, the rows equal a build's and prepare() has nothing
    left to do."""
    walk = np.ones((60, 80), dtype=bool)
    walk[:50, 40] = False
    walk[20:30, 10:30] = False
    grid = gamenav.TileGrid(walk)
    gamenav.prepare(grid, "subgoal")
    index = subgoal.subgoal_index(grid)
    k = index.landmarks_current
    assert k > 0
    grid.set_walkable((40, 50, 41, 60), False)  # close the way round the wall...
    assert index.landmarks_current == subgoal.SubgoalIndex(grid.copy()).landmarks_current > 0
    assert gamenav.find_path(grid, (5, 5), (75, 5), algorithm="subgoal").status is NO_PATH
    grid.set_walkable((40, 20, 41, 22), True)  # ...and open another one
    marks = index._data.marks
    built = subgoal.SubgoalIndex(grid.copy())._data.marks
    for i in range(3):
        _compare(grid, (5, 5 + i), (75, 55 - i))
        assert index._data.marks is marks
        np.testing.assert_array_equal(marks.by_node, marks.dist.T)
    np.testing.assert_array_equal(marks.cells, built.cells)
    np.testing.assert_array_equal(marks.use, built.use)
    gamenav.prepare(grid, "subgoal")
    assert index._data.marks is marks
    _compare(grid, (5, 5), (75, 55))


def test_grids_too_wide_for_the_packed_graph_run_astar() -> None:
    walk = np.ones((3, 131_100), dtype=bool)
    walk[1, 10:131_000] = False
    grid = gamenav.TileGrid(walk)
    assert not subgoal.fits(grid.shape)
    gamenav.prepare(grid, "subgoal")  # nothing to build
    path = _compare(grid, (0, 1), (131_050, 1))
    assert path.cost == pytest.approx(gamenav.find_path(grid, (0, 1), (131_050, 1)).cost)
    assert subgoal._indexes.existing(grid) is None  # no graph was built


@settings(max_examples=200, deadline=None)
@given(st.integers(-3000, 3000), st.integers(-3000, 3000), st.integers(-3000, 3000),
       st.integers(-3000, 3000), st.integers(0, 15))
def test_taut_depends_only_on_the_direction_classes(ax: int, ay: int, bx: int, by: int,
                                                     corners: int) -> None:
    """The search tests tautness with one bit of ``TAUT_MASKS`` per edge: the same answer as
    :func:`_taut` for legs of any length."""
    from gamenav._kernels import subgoal as ks

    if (ax, ay) == (0, 0) or (bx, by) == (0, 0):
        return
    for b in [(bx, by), (-ax, -ay), (-ax + 1, -ay), (ax * 3, ay * 3 + 1)]:
        if b == (0, 0):
            continue
        bit = int(ks.TAUT_MASKS[corners, ks._direction(ax, ay)]) >> int(
            ks._direction(*b)) & 1
        assert bool(bit) == ks._taut(ax, ay, b[0], b[1], corners), (ax, ay, b, corners)


def test_landmarks_beyond_16_bit_step_counts_are_left_out() -> None:
    """Landmark distances are exact 16-bit step counts: a graph whose paths run over 65 535
    straight steps gets no landmark there (octile heuristic), and stays optimal."""
    walk = np.ones((5, 70_000), dtype=bool)
    walk[2, :-1] = False  # one long hairpin: (0, 0) -> (69 999, 2) -> (0, 4)
    walk[0, 5] = walk[4, 5] = False  # pillars near the start of each leg (subgoals)
    grid = gamenav.TileGrid(walk)
    index = subgoal.subgoal_index(grid)
    assert index.nodes > 4 and index.landmarks_current == 0
    assert _compare(grid, (1, 0), (1, 4)).cost > 139_000
    _compare(grid, (9, 0), (2, 1))


def test_the_search_workspace_grows_with_the_graph_after_edits() -> None:
    """The per-thread workspace is checked against the graph once per graph version: after edits
    that add many subgoals and edges, the next query's workspace has room for them."""
    grid = gamenav.TileGrid(np.ones((40, 40), dtype=bool))
    index = subgoal.subgoal_index(grid)
    assert gamenav.find_path(grid, (0, 0), (39, 39), algorithm="subgoal").found
    before = index._local.ws
    for k in range(2, 38, 3):  # a field of pillars: hundreds of subgoals and edges
        for j in range(2, 38, 3):
            grid.set_walkable((k, j, k + 1, j + 1), False)
    path = gamenav.find_path(grid, (0, 0), (39, 39), algorithm="subgoal")
    assert path.cost == pytest.approx(gamenav.find_path(grid, (0, 0), (39, 39)).cost)
    graph = index._data
    ws = index._local.ws
    assert ws is not before and ws.fits(graph) and ws.generation == graph.generation


def test_one_edit_loading_a_map_reserves_ids_for_its_subgoals_not_its_cells() -> None:
    """A map loaded by one set_walkable into a grid built empty: the repair reserved a node id
    per cell of the box (27 000 here; 1.4 million on orz700d, whose 96 landmark rows then held
    1.1 GB and each query's landmark update copied them: 2.6 s)."""
    walk = np.ones((200, 200), dtype=bool)
    for i in range(8):
        walk[20 * i + 10:20 * i + 16, 25 * i + 5:25 * i + 12] = False
    grid = gamenav.TileGrid(np.ones(walk.shape, dtype=bool))
    index = subgoal.subgoal_index(grid)
    grid.set_walkable(~walk, False)
    fresh = subgoal.subgoal_index(gamenav.TileGrid(walk))
    assert index.nodes == fresh.nodes == 32
    assert index._data.ncell.shape[0] <= 64
    assert index.nbytes < 2 * fresh.nbytes
    _compare(grid, (0, 0), (199, 199))
    assert index.nbytes < 2 * fresh.nbytes


@pytest.mark.parametrize("first", [None, (10, 10, 12, 12)])
def test_landmarks_are_placed_over_the_graph_an_edit_loads(first) -> None:
    """A grid built open (no landmark, or all of them round one block) and then loaded with a
    map by an edit: the edit places the landmarks over the new graph (they once stayed where the
    build put them: none, or 1.36x the nodes a grid built with the map expands here; 6x on
    orz700d's 100 longest queries)."""
    rng = np.random.default_rng(5)
    walk = np.ones((150, 200), dtype=bool)
    for _ in range(120):
        x, y = rng.integers(0, 190), rng.integers(0, 140)
        walk[y:y + rng.integers(2, 12), x:x + rng.integers(2, 12)] = False
    grid = gamenav.TileGrid(np.ones(walk.shape, dtype=bool))
    if first is not None:
        grid.set_walkable(first, False)
    gamenav.prepare(grid, "subgoal")
    grid.set_walkable(~walk, False)
    gamenav.prepare(grid, "subgoal")
    built = gamenav.TileGrid(walk)
    gamenav.prepare(built, "subgoal")
    assert subgoal.subgoal_index(grid).landmarks_current == subgoal.subgoal_index(built).landmarks_current > 48
    cells = np.argwhere(walk)
    expanded = [0, 0]
    for _ in range(40):
        (ay, ax), (by, bx) = cells[rng.choice(len(cells), 2, replace=False)]
        a, b = (int(ax), int(ay)), (int(bx), int(by))
        expanded[0] += _compare(grid, a, b).expanded
        expanded[1] += gamenav.find_path(built, a, b, algorithm="subgoal").expanded
    assert expanded[0] <= 1.2 * expanded[1]
