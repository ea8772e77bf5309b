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
