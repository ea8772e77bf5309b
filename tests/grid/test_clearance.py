"""Unit sizes on grids: clearance, ``find_path(..., agent_radius=r)`` and radius flow fields.

Oracles: the radius mask is rebuilt here from its definition (a cell is usable when the distance
from its centre to every blocked square, and to the outside of the map, is at least r), with
floats and no gamenav code; searches with ``agent_radius`` must equal a plain search on a new
TileGrid of that mask.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import gamenav
from gamenav import BlockedEndpointError, InvalidInputError, PathCache, PathStatus, TileGrid
from gamenav.grid.clearance import MAX_RADIUS_CELLS, clearance_field, clearance_mask, mask_change, threshold
from gamenav.io import read_map, read_scenarios

DATA = Path(__file__).resolve().parents[1] / "data" / "movingai"
SHARED = Path(__file__).resolve().parents[3] / "shared" / "benchmarks" / "movingai"
RADII = (0.5, 1.0, 1.5)


def reference_distance(passable: np.ndarray) -> np.ndarray:
    """(h, w) distance in cells from each centre to the nearest blocked square or the outside."""
    h, w = passable.shape
    walls = np.ones((h + 2, w + 2), bool)
    walls[1:-1, 1:-1] = ~passable
    wy, wx = np.nonzero(walls)
    wy, wx = wy - 1.0, wx - 1.0
    ys, xs = np.mgrid[0:h, 0:w]
    out = np.empty((h, w))
    for y, x in zip(ys.ravel(), xs.ravel(), strict=True):
        dx = np.maximum(np.abs(wx - x) - 0.5, 0.0)
        dy = np.maximum(np.abs(wy - y) - 0.5, 0.0)
        out[y, x] = np.sqrt(dx * dx + dy * dy).min()
    return out


def reference_mask(passable: np.ndarray, r: float) -> np.ndarray:
    """Cells whose disc of radius ``r`` (cells) overlaps no blocked square (outside = blocked)."""
    h, w = passable.shape
    k = int(math.ceil(r)) + 1
    padded = np.zeros((h + 2 * k, w + 2 * k), bool)
    padded[k:k + h, k:k + w] = passable
    mask = passable.copy()
    for dy in range(-k, k + 1):
        for dx in range(-k, k + 1):
            if math.hypot(max(abs(dx) - 0.5, 0.0), max(abs(dy) - 0.5, 0.0)) < r:
                mask &= padded[k + dy:k + dy + h, k + dx:k + dx + w]
    return mask


def _grids() -> st.SearchStrategy[np.ndarray]:
    def build(shape: tuple[int, int], seed: int, density: float) -> np.ndarray:
        return np.random.default_rng(seed).random(shape) >= density
    return st.builds(build, st.tuples(st.integers(1, 24), st.integers(1, 24)), st.integers(0, 2**32 - 1),
                     st.sampled_from([0.0, 0.05, 0.15, 0.3, 0.6]))


# -- the distance transform -----------------------------------------------------------------

def test_clearance_of_a_small_map_by_hand() -> None:
    grid = TileGrid.from_strings(["....", "....", "...#"])
    c = clearance_field(grid)
    assert c[1].tolist() == [0.5, 1.5, math.sqrt(0.5), 0.5]
    assert c[2, 3] == 0.0
    assert (clearance_field(TileGrid.from_strings(["....", "....", "...#"], cell_size=4.0)) == 4.0 * c).all()


@settings(max_examples=60, deadline=None)
@given(_grids())
def test_clearance_equals_the_reference_distance(passable: np.ndarray) -> None:
    got = clearance_field(TileGrid(passable))
    ref = reference_distance(passable)
    far = np.isinf(got)
    assert (ref[far] > 7.9).all()  # capped: nothing blocked within about 8 cells
    np.testing.assert_allclose(got[~far], ref[~far], rtol=0, atol=1e-12)


def test_clearance_far_from_walls_is_inf_and_exact_near_them() -> None:
    grid = TileGrid(np.ones((40, 40), bool))
    c = clearance_field(grid)
    assert np.isinf(c[20, 20]) and c[0, 20] == 0.5 and c[7, 20] == 7.5


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_grids(), st.lists(st.tuples(st.integers(0, 30), st.integers(0, 30), st.integers(0, 5),
                                    st.integers(0, 5), st.booleans()), min_size=1, max_size=8),
       st.lists(st.booleans(), min_size=8, max_size=8))
def test_clearance_after_random_edits_equals_a_fresh_computation(
        passable: np.ndarray, edits: list[tuple[int, int, int, int, bool]], look: list[bool]) -> None:
    grid = TileGrid(passable)
    clearance_field(grid)  # computed once, then repaired edit by edit (or after several edits)
    for (x, y, dw, dh, walkable), now in zip(edits, look, strict=False):
        grid.set_walkable((x, y, x + dw, y + dh), walkable)
        if now:
            np.testing.assert_array_equal(clearance_field(grid), clearance_field(TileGrid(grid.passable)))
    np.testing.assert_array_equal(clearance_field(grid), clearance_field(TileGrid(grid.passable)))
    for r in RADII:
        np.testing.assert_array_equal(clearance_mask(grid, r), reference_mask(grid.passable, r))


def test_a_cost_edit_keeps_the_clearance() -> None:
    grid = TileGrid.from_strings(["....", ".#..", "...."])
    before = clearance_field(grid)
    grid.set_cost((3, 0), 5.0)
    assert (clearance_field(grid) == before).all()
    grid.set_cost((3, 0), math.inf)  # blocks
    assert clearance_field(grid)[0, 3] == 0.0


# -- the radius mask ------------------------------------------------------------------------

@pytest.mark.parametrize("r", [0.0, 0.25, 0.5, 0.6, 0.75, 1.0, 1.5, 1.6, 2.2, 3.0, 7.5])
def test_mask_equals_the_reference_mask(r: float) -> None:
    passable = np.random.default_rng(3).random((30, 40)) > 0.08
    for cell_size in (1.0, 0.25):
        got = clearance_mask(TileGrid(passable, cell_size=cell_size), r * cell_size)
        np.testing.assert_array_equal(got, reference_mask(passable, r))


def test_radius_thresholds() -> None:
    grid = TileGrid(np.ones((2, 2), bool), cell_size=2.0)
    assert threshold(grid, 0) == 0 and threshold(grid, 1.0) == 1  # half a cell: plain cells
    assert threshold(grid, 2.0) == 4 and threshold(grid, 3.0) == 9
    for bad in (-0.1, math.nan, math.inf, "1", None, True, 2.0 * MAX_RADIUS_CELLS + 0.01):
        with pytest.raises(InvalidInputError, match="agent_radius"):
            gamenav.find_path(grid, (0, 0), (1, 1), agent_radius=bad)



def test_the_largest_radius_on_a_subnormal_cell_size() -> None:
    """``7.5 * 5e-324`` rounded to 8 cells (threshold 256, beyond the kernel's uint8 cap of
    255): the largest radius left no cell usable (find_path raised BlockedEndpointError). Cells
    are at least 1e-323 now; ``7.5 * 2.5e-323`` rounds up the same way (to 7.6 cells)."""
    plain = TileGrid(np.ones((20, 20), bool))
    for cell_size in (2.5e-323, 1e-323):
        grid = TileGrid(np.ones((20, 20), bool), cell_size=cell_size)
        r = MAX_RADIUS_CELLS * cell_size
        assert threshold(grid, r) == threshold(plain, MAX_RADIUS_CELLS) == 225
        np.testing.assert_array_equal(clearance_mask(grid, r), clearance_mask(plain, MAX_RADIUS_CELLS))
        assert gamenav.find_path(grid, (10, 10), (9, 9), agent_radius=r).cost == pytest.approx(math.sqrt(2))

# -- searches with a radius equal plain searches on the mask --------------------------------

def _check_equal(grid: TileGrid, pairs: list[tuple[tuple[int, int], tuple[int, int]]], r: float,
                 **options: object) -> int:
    """Compare find_path(agent_radius=r) with a plain search on a TileGrid of the reference
    mask for every pair; returns how many pairs were searchable."""
    mask = reference_mask(grid.passable, r / grid.cell_size)
    plain = TileGrid(mask, cost=np.where(mask, grid.cost, np.inf))
    searched = 0
    for s, g in pairs:
        if not (mask[s[1], s[0]] and mask[g[1], g[0]]):
            with pytest.raises(BlockedEndpointError, match="blocked"):
                gamenav.find_path(grid, s, g, agent_radius=r, **options)
            continue
        got = gamenav.find_path(grid, s, g, agent_radius=r, **options)
        want = gamenav.find_path(plain, s, g, **options)
        assert got.status is want.status, (s, g, r)
        if options.get("algorithm") == "jps":
            # the plain grid runs JPS+ (its own jump tables), the radius view online JPS: equally
            # optimal paths, costs summed along different jump points
            assert math.isclose(got.cost, want.cost, rel_tol=1e-12), (s, g, r)
        else:
            assert got.cost == want.cost, (s, g, r)
            assert (got.cells == want.cells).all()
        if got.found:
            assert mask[got.cells[:, 1], got.cells[:, 0]].all()
        searched += 1
    return searched


def _pairs(shape: tuple[int, int], n: int, seed: int) -> list[tuple[tuple[int, int], tuple[int, int]]]:
    rng = np.random.default_rng(seed)
    h, w = shape
    return [((int(rng.integers(w)), int(rng.integers(h))), (int(rng.integers(w)), int(rng.integers(h))))
            for _ in range(n)]


@pytest.mark.parametrize("name", ["arena.map", "den011d.map"])
@pytest.mark.parametrize("r", RADII)
def test_radius_paths_equal_astar_on_the_mask_on_real_maps(name: str, r: float) -> None:
    walk = read_map(DATA / name)
    grid = TileGrid(walk)
    mask = reference_mask(walk, r)
    ys, xs = np.nonzero(mask)
    rng = np.random.default_rng(int(r * 10))
    pick = rng.integers(0, len(xs), (60, 2))
    pairs = [((int(xs[a]), int(ys[a])), (int(xs[b]), int(ys[b]))) for a, b in pick]
    assert _check_equal(grid, pairs, r) == 60
    assert _check_equal(grid, pairs[:15], r, algorithm="jps") == 15


def test_radius_paths_keep_optimal_scenario_lengths_where_the_mask_allows() -> None:
    # r = 0.5 cells is the plain grid: the scenario's optimal lengths hold exactly
    grid = TileGrid(read_map(DATA / "arena.map"))
    for item in read_scenarios(DATA / "arena.map.scen")[::10]:
        path = gamenav.find_path(grid, item.start, item.goal, agent_radius=0.5)
        assert abs(path.cost - item.optimal_length) <= 0.01


@pytest.mark.skipif(not SHARED.is_dir(), reason="shared benchmark maps not present")
def test_radius_paths_on_a_sample_of_the_benchmark_maps() -> None:
    names = sorted(p.name for p in SHARED.glob("*.map"))[::4]
    for name in names:
        walk = read_map(SHARED / name)
        grid = TileGrid(walk)
        for r in RADII:
            _check_equal(grid, _pairs(walk.shape, 6, len(name)), r)


@pytest.mark.parametrize("options", [{}, {"diagonal": "never"}, {"diagonal": "always"},
                                     {"diagonal": "at_most_one_blocked"}, {"smooth": True},
                                     {"algorithm": "dijkstra"}, {"weight": 1.5}])
def test_radius_paths_with_costs_and_every_option(options: dict[str, object]) -> None:
    rng = np.random.default_rng(7)
    walk = rng.random((24, 30)) > 0.1
    cost = rng.integers(1, 4, size=walk.shape).astype(float)
    for cell_size in (1.0, 16.0):
        grid = TileGrid(walk, cost=cost, cell_size=cell_size)
        for r in (0.9, 1.0, 2.0):
            _check_equal(grid, _pairs(walk.shape, 25, 1), r * cell_size, **options)


def test_blocked_endpoints_and_partial() -> None:
    grid = TileGrid.from_strings(["........", "........", "...##...", "........", "........"])
    with pytest.raises(BlockedEndpointError, match=r"start \(0, 0\) is blocked for agent_radius=1"):
        gamenav.find_path(grid, (0, 0), (6, 3), agent_radius=1.0)
    with pytest.raises(BlockedEndpointError, match=r"goal \(6, 4\) is blocked for agent_radius=1"):
        gamenav.find_path(grid, (1, 2), (6, 4), agent_radius=1.0)  # the map edge is a wall
    partial = gamenav.find_path(grid, (1, 2), (6, 4), agent_radius=1.0, partial=True)
    assert partial.status is PathStatus.PARTIAL and tuple(partial.cells[-1]) == (1, 3)
    assert gamenav.find_path(grid, (1, 1), (6, 3)).status is PathStatus.FOUND
    assert gamenav.find_path(grid, (1, 1), (6, 2), agent_radius=1.0).status is PathStatus.NO_PATH


def test_sliced_radius_search_equals_one_shot() -> None:
    grid = TileGrid(read_map(DATA / "den011d.map"))
    mask = clearance_mask(grid, 1.0)
    ys, xs = np.nonzero(mask)
    s, g = (int(xs[0]), int(ys[0])), (int(xs[-1]), int(ys[-1]))
    search = gamenav.begin_search(grid, s, g, agent_radius=1.0)
    while not search.step(7).done:
        pass
    one = gamenav.find_path(grid, s, g, agent_radius=1.0)
    assert search.result().cost == one.cost and (search.result().cells == one.cells).all()


def test_distance_field_with_a_radius_equals_the_field_on_the_mask() -> None:
    walk = read_map(DATA / "arena.map")
    grid = TileGrid(walk)
    for r in RADII:
        mask = reference_mask(walk, r)
        plain = TileGrid(mask)
        ys, xs = np.nonzero(mask)
        sources = np.stack([xs[::97], ys[::97]], axis=1)
        got = gamenav.distance_field(grid, sources, agent_radius=r)
        np.testing.assert_array_equal(got, gamenav.distance_field(plain, sources))
    with pytest.raises(BlockedEndpointError, match="agent_radius"):
        gamenav.distance_field(grid, (0, 0), agent_radius=1.0)


def test_distance_field_refuses_bools_mixed_with_numbers() -> None:
    """numpy reads ``[(0, 0), (True, 1)]`` as ints: the field took True as the cell (1, 1)
    (``find_path`` refuses it) and a ``cost_scale`` row ``[True, 1.0]`` as the scale 1.0."""
    grid = TileGrid(np.ones((2, 2), bool))
    for sources in ([(0, 0), (True, 1)], (np.True_, 0)):
        with pytest.raises(InvalidInputError, match="sources must be"):
            gamenav.distance_field(grid, sources)
    with pytest.raises(InvalidInputError, match="cost_scale must be"):
        gamenav.distance_field(grid, (0, 0), cost_scale=[[True, 1.0], [1.0, 1.0]])
    assert gamenav.distance_field(grid, [[0, 0], [1, 1]], cost_scale=[[1, 2], [3, 4]]).tolist() == [[0.0, 2.0],
                                                                                                 [3.0, 0.0]]


def test_distance_field_takes_the_int_cells_find_path_takes() -> None:
    """numpy reads ``(np.uint64(1), 1)`` as floats and ``(2**70, 0)`` as objects: the field called
    those ``(x, y)`` cells "not an (x, y) cell" (InvalidInputError), where ``find_path`` takes
    the first and calls the second outside the grid."""
    grid = TileGrid(np.ones((3, 3), bool))
    centre = gamenav.distance_field(grid, (1, 1))
    np.testing.assert_array_equal(gamenav.distance_field(grid, (np.uint64(1), 1)), centre)
    np.testing.assert_array_equal(gamenav.distance_field(grid, [(np.int8(1), np.uint64(1)), (1, 1)]), centre)
    for sources in ((2**70, 0), [(0, 0), (1, -2**70)], (np.uint64(2**64 - 1), -1)):
        with pytest.raises(gamenav.OutOfBoundsError, match="outside the grid"):
            gamenav.distance_field(grid, sources)
    for sources in ((2**70, True), [(0, 0), (1.5, 1)], np.array([[1, 1]], dtype=object)):
        with pytest.raises(InvalidInputError, match="sources must be"):
            gamenav.distance_field(grid, sources)

def test_radius_searches_follow_edits() -> None:
    grid = TileGrid(np.ones((12, 12), bool))
    assert gamenav.find_path(grid, (2, 2), (9, 9), agent_radius=1.5).cost == pytest.approx(7 * math.sqrt(2))
    grid.set_walkable((5, 0, 7, 12), False)  # a wall across: no way round
    assert gamenav.find_path(grid, (2, 2), (9, 9), agent_radius=1.5).status is PathStatus.NO_PATH
    grid.set_walkable((5, 4, 7, 6), True)  # a 2-cell gap: too narrow for a disc 3 cells across
    assert gamenav.find_path(grid, (2, 2), (9, 9), agent_radius=1.5).status is PathStatus.NO_PATH
    assert gamenav.find_path(grid, (2, 2), (9, 9), agent_radius=0.5).found
    grid.set_walkable((5, 4, 7, 7), True)  # 3 cells: the disc just touches both sides, and fits
    assert gamenav.find_path(grid, (2, 2), (9, 9), agent_radius=1.5).found
    _check_equal(grid, [((2, 2), (9, 9)), ((1, 10), (10, 1))], 1.5)


# -- the cache and queue stay exact for radius paths ----------------------------------------

@st.composite
def _scenarios(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray, list[tuple[tuple[int, int], str, float]], float]:
    h, w = draw(st.integers(6, 10)), draw(st.integers(6, 11))
    walk = np.array(draw(st.lists(st.booleans(), min_size=h * w, max_size=h * w)), bool).reshape(h, w)
    walk |= np.random.default_rng(h * w).random((h, w)) < 0.9  # mostly open
    cost = np.array(draw(st.lists(st.sampled_from([1.0, 1.0, 1.5, 2.0]), min_size=h * w,
                                  max_size=h * w))).reshape(h, w)
    cell = st.tuples(st.integers(0, w - 1), st.integers(0, h - 1))
    edit = st.tuples(cell, st.sampled_from(["open", "block", "cost"]), st.sampled_from([1.0, 2.0, 3.0]))
    return walk, cost, draw(st.lists(edit, min_size=1, max_size=5)), draw(st.sampled_from([0.75, 1.0, 1.6]))


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_scenarios())
def test_cached_radius_paths_equal_a_fresh_search_after_random_edits(scenario: tuple) -> None:
    walk, cost, edits, r = scenario
    grid = TileGrid(walk, cost=cost)
    cache = PathCache()
    h, w = grid.shape
    cells = [(x, y) for y in range(h) for x in range(w)]

    def ask_all() -> None:
        for radius in (0.0, r):
            mask = clearance_mask(grid, radius)
            for s in cells[::9]:
                for g in cells:
                    if mask[s[1], s[0]] and mask[g[1], g[0]]:
                        got = cache.find_path(grid, s, g, agent_radius=radius)
                        fresh = gamenav.find_path(grid, s, g, agent_radius=radius)
                        assert got.status is fresh.status
                        if got.found:
                            assert got.cost == pytest.approx(fresh.cost, rel=1e-9, abs=1e-9)
                            assert mask[got.cells[:, 1], got.cells[:, 0]].all()

    ask_all()
    for cell, kind, value in edits:
        if kind == "open":
            grid.set_walkable(cell, True)
        elif kind == "block":
            grid.set_walkable(cell, False)
        else:
            grid.set_cost(cell, value)
        ask_all()


@settings(max_examples=80, deadline=None)
@given(_grids(), st.integers(0, 30), st.integers(0, 30), st.integers(0, 3), st.booleans(),
       st.sampled_from([0.75, 1.0, 1.6, 2.5]))
def test_mask_change_is_the_difference_of_the_masks(passable: np.ndarray, x: int, y: int, size: int,
                                                    walkable: bool, r: float) -> None:
    grid = TileGrid(passable)
    before = reference_mask(passable, r)
    change = grid.set_walkable((x, y, x + size, y + size), walkable)
    if change is None:
        return
    after = reference_mask(grid.passable, r)
    seen = mask_change(change, threshold(grid, r))
    h, w = passable.shape

    def as_mask(cells: np.ndarray) -> np.ndarray:
        m = np.zeros((h, w), bool)
        m[cells[:, 1], cells[:, 0]] = True
        return m

    np.testing.assert_array_equal(as_mask(seen.blocked), before & ~after)
    np.testing.assert_array_equal(as_mask(seen.opened), after & ~before)
    near = np.zeros((h, w), bool)  # the change's mask is exact around every cell that opened
    for cx, cy in seen.opened:
        near[max(cy - 1, 0):cy + 2, max(cx - 1, 0):cx + 2] = True
    np.testing.assert_array_equal(seen.passable[near], after[near])


def test_queue_and_cache_keep_radius_classes_apart() -> None:
    grid = TileGrid(read_map(DATA / "arena.map"))
    mask = clearance_mask(grid, 1.5)
    ys, xs = np.nonzero(mask)
    s, g = (int(xs[0]), int(ys[0])), (int(xs[-1]), int(ys[-1]))
    cache = PathCache()
    queue = gamenav.PathQueue(budget_ms=None, max_expansions=500, cache=cache)
    small, big = queue.request(grid, s, g), queue.request(grid, s, g, agent_radius=1.5)
    while not (small.done and big.done):
        queue.update()
    assert small.path.cost == gamenav.find_path(grid, s, g).cost
    assert big.path.cost == gamenav.find_path(grid, s, g, agent_radius=1.5).cost
    assert big.path.cost > small.path.cost
    assert len(cache) == 2
    queue.close()
