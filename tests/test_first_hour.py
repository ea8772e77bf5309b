"""A new user's first hour: the mistakes a newcomer makes with the readers, writers, the tune tool
and the README's commands give a clear error naming the argument, or the answer the docs promise."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import gamenav
from gamenav import tune
from gamenav.io import Scenario, read_scenarios, write_map, write_scenarios


@pytest.mark.parametrize(("change", "message"), [
    (dict(start="10"), r"scenarios\[1\]\.start must hold ints, got '10'"),
    (dict(goal=("2", "1")), r"scenarios\[1\]\.goal must hold ints, got \('2', '1'\)"),
    (dict(bucket="5"), r"scenarios\[1\]\.bucket must hold ints, got '5'"),
    (dict(width=np.str_("3")), r"scenarios\[1\]\.width must hold ints, got '3'"),
])
def test_write_scenarios_refuses_strings_for_ints(tmp_path: Path, change: dict[str, object], message: str) -> None:
    path = tmp_path / "out.scen"  # were written: the str '10' read back as the cell (1, 0)
    good = Scenario(0, "m.map", 3, 2, (0, 0), (2, 1), 2.5)
    write_scenarios(path, [good])
    with pytest.raises(gamenav.InvalidInputError, match=message):
        write_scenarios(path, [good, good._replace(**change)])
    assert read_scenarios(path) == [good]  # left untouched


def test_write_scenarios_takes_numpy_ints(tmp_path: Path) -> None:
    path = tmp_path / "out.scen"
    write_scenarios(path, [Scenario(np.int64(1), "m.map", np.int32(3), 2, np.array([0, 1]), (2, 1), 2.5)])
    assert read_scenarios(path) == [Scenario(1, "m.map", 3, 2, (0, 1), (2, 1), 2.5)]


def test_write_map_names_a_tilegrid_passed_for_its_array(tmp_path: Path) -> None:
    grid = gamenav.TileGrid.from_strings(["..#", "..."])
    path = tmp_path / "out.map"  # was "walkable must be 2-D [y, x], got shape ()"
    with pytest.raises(gamenav.InvalidInputError, match=r"got a TileGrid .*write grid\.passable"):
        write_map(path, grid)  # type: ignore[arg-type]
    assert not path.exists()
    write_map(path, grid.passable)
    assert gamenav.TileGrid.from_movingai(path).passable.tolist() == grid.passable.tolist()


@pytest.mark.parametrize(("kwargs", "message"), [
    (dict(progress=3), "progress must be a callable or None, got 3"),  # was a TypeError after a frame
    (dict(budget_ms=None), "budget_ms must be a finite number > 0, got None"),  # named max_expansions
    (dict(budget_ms="1"), "budget_ms must be a finite number > 0, got '1'"),
])
def test_simulate_checks_budget_and_progress_before_any_work(kwargs: dict[str, object], message: str) -> None:
    grid = gamenav.TileGrid.from_strings(["....", ".##.", "...."])
    options: dict[str, object] = {"agents": 2, "budget_ms": 1.0, "frames": 2, **kwargs}
    with pytest.raises(gamenav.InvalidInputError, match=message):
        tune.simulate(grid, **options)  # type: ignore[arg-type]


def test_tune_takes_the_name_of_a_shipped_map(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)  # the README's command: `--map den011d.map` (it named a map not shipped)
    assert tune.main(["--map", "arena.map", "--agents", "2", "--frames", "2", "--budgets", "1"]) == 0
    assert "map arena.map (49x49), 2 agents" in capsys.readouterr().out


def test_tune_lists_the_shipped_maps_for_a_missing_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit):
        tune.main(["--map", "maps/brc202d.map", "--frames", "2"])
    assert "the maps shipped with gamenav: arena.map, den011d.map" in capsys.readouterr().err
