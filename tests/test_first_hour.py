"""A new user's first hour: the mistakes a newcomer makes with the readers, writers, the tune tool
and the README's commands give a clear error naming the argument, or the answer the docs promise."""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import gamenav
from gamenav import tune
from gamenav.io import Scenario, read_map, read_mesh, read_scenarios, write_map, write_scenarios


@pytest.mark.parametrize(("change", "message"), [
    (dict(start="10"), r"scenarios\[1\]\.start must hold ints, got '10'"),
    (dict(goal=("2", "1")), r"scenarios\[1\]\.goal must hold ints, got \('2', '1'\)"),
    (dict(bucket="5"), r"scenarios\[1\]\.bucket must hold ints, got '5'"),
    (dict(width=np.str_("3")), r"scenarios\[1\]\.width must hold ints, got (np\.str_\()?'3'"),  # (numpy 2's repr)
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


def test_tune_names_an_unknown_map_as_the_demo_does(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    # tune said "[Errno 2] No such file or directory: 'nosuch.map' (the maps shipped ...)", the demo
    # "no such file; the maps shipped ...": both now ask gamenav.data.map_file
    monkeypatch.chdir(tmp_path)
    listed = "the maps shipped with gamenav: arena.map, den011d.map"
    with pytest.raises(gamenav.InvalidInputError, match=f"^no such file; {listed}$"):
        gamenav.data.map_file("nosuch.map")
    with pytest.raises(gamenav.InvalidInputError, match=f"^is not a file; {listed}, level.tmx, tiny.json, tiny.tmx$"):
        gamenav.data.map_file(".", (".map", ".json", ".tmx"))
    with pytest.raises(SystemExit):
        tune.main(["--map", "nosuch.map", "--frames", "2"])
    assert f"--map 'nosuch.map': no such file; {listed}\n" in capsys.readouterr().err
    (tmp_path / "arena.map").write_text("type octile\nheight 1\nwidth 2\nmap\n..\n")
    assert gamenav.data.map_file("arena.map") == "arena.map"  # a file of that name comes first


_MS = np.timedelta64(16, "ms")


@pytest.mark.parametrize(("call", "message"), [
    # were TypeErrors from float() (a timedelta64 with a unit) or taken as numbers (without one)
    (lambda g: gamenav.TileGrid(g.passable, cell_size=_MS), "cell_size must be a finite number > 0"),
    (lambda g: gamenav.PathQueue(budget_ms=_MS), "budget_ms must be a finite number > 0"),
    (lambda g: tune.simulate(g, agents=2, budget_ms=_MS, frames=2), "budget_ms must be a finite number > 0"),
    (lambda g: tune.simulate(g, agents=np.timedelta64(2), budget_ms=1.0, frames=2), "agents must be an int >= 1"),
    (lambda g: gamenav.find_path(g, (0, 0), (3, 2), weight=np.timedelta64(2)), "weight must be a number >= 1"),
    (lambda g: gamenav.begin_search(g, (0, 0), (3, 2)).step(np.timedelta64(5)), "max_expansions must be an int"),
    (lambda g: gamenav.find_path(g, (0, 0), (3, 2), partial=np.timedelta64(1)), "partial must be a bool"),
    (lambda g: gamenav.find_path(g, (np.timedelta64(0), 0), (3, 2)), "start must be an \\(x, y\\) pair of ints"),
    (lambda g: g.set_walkable((np.timedelta64(0), 0, 2, 2), False), "region must be a cell"),
    (lambda g: gamenav.SearchWorkspace((np.timedelta64(3), 4)), "shape must be \\(height, width\\) ints"),
    (lambda g: gamenav.NavMesh.from_polygons([[(0, 0), (4, 0), (4, 4), (0, 4)]]).clamp((9, 9), np.timedelta64(0)),
     "island must be None or an int"),
    (lambda g: gamenav.Crowd(g, [(0.5, 0.5)], radius=0.3, max_speed=2.0).update(_MS), "dt must be a finite number"),
    (lambda g: gamenav.Crowd(g, [(0.5, 0.5)], radius=0.3, max_speed=2.0).stop([np.timedelta64(0)]), "agent"),
], ids=["cell_size", "budget_ms", "simulate budget_ms", "simulate agents", "weight", "max_expansions", "partial",
        "cell", "region", "workspace shape", "clamp island", "crowd dt", "crowd agent"])
def test_numpy_timedelta_is_not_a_number(call: Any, message: str) -> None:
    grid = gamenav.TileGrid.from_strings(["....", ".##.", "...."])
    with pytest.raises(gamenav.InvalidInputError, match=message):
        call(grid)


@pytest.mark.parametrize("call", [
    lambda: read_map(""), lambda: read_mesh(""), lambda: read_scenarios(""),
    lambda: gamenav.TileGrid.from_movingai(""), lambda: write_map("", [[1, 0]]),
], ids=["read_map", "read_mesh", "read_scenarios", "from_movingai", "write_map"])
def test_an_empty_file_name_is_named(call: Any) -> None:
    # pathlib reads "" as ".": these raised IsADirectoryError "Is a directory: '.'"
    with pytest.raises(gamenav.InvalidInputError, match=r"path must be a valid file name, got '' \(empty\)"):
        call()


def test_tune_names_an_empty_map(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        tune.main(["--map", "", "--frames", "2"])
    assert "cannot read --map '': path must be a valid file name, got '' (empty)" in capsys.readouterr().err


@pytest.mark.parametrize("call", [
    lambda big: gamenav.TileGrid(np.ones((2, 2), dtype=bool), origin=(big, 0)),
    lambda big: gamenav.find_path(gamenav.NavMesh.from_polygons([[(0, 0), (4, 0), (4, 4), (0, 4)]]), (big, 1), (3, 3)),
], ids=["origin", "navmesh start"])
def test_a_long_double_beyond_float64_is_refused_without_a_numpy_warning(call: Any) -> None:
    big = np.longdouble("1e400")  # finite where long double is wider than float64 (x86-64 Linux), else inf
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # was numpy's "RuntimeWarning: overflow encountered in cast" first
        with pytest.raises(gamenav.InvalidInputError, match=r"must be a finite \(x, y\) pair of numbers"):
            call(big)


_SQUARE = [(0, 0), (4, 0), (4, 4), (0, 4)]


@pytest.mark.parametrize(("call", "message"), [
    (lambda big: gamenav.NavMesh.from_polygons([_SQUARE]).locate([(1, 1), (big, 1)]), "points must be finite"),
    (lambda big: gamenav.NavMesh.from_polygons([_SQUARE]).nearest(np.array([[big, 1]])), "points must be finite"),
    (lambda big: gamenav.TileGrid(np.ones((2, 2), dtype=bool)).world_to_cell([(big, 1)]), "points must be finite"),
    (lambda big: gamenav.NavMesh(_SQUARE[:3] + [(big, 0)], [(0, 1, 2)]), "vertices must be finite"),
    (lambda big: gamenav.NavMesh(_SQUARE, [(0, 1, 2), (0, 2, 3)], area_costs=[1, big]), "area_costs must be finite"),
], ids=["locate", "nearest", "world_to_cell", "vertices", "area_costs"])
def test_long_doubles_beyond_float64_in_arrays_are_refused_without_a_numpy_warning(call: Any, message: str) -> None:
    """The array paths converted with numpy's overflow warning first (an exception under -W error);
    one shared conversion (``_validate.float_numbers``) now serves points, vertices and costs."""
    big = np.longdouble("1e400")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(gamenav.InvalidInputError, match=message):
            call(big)


@pytest.mark.parametrize("call", [
    lambda mesh: gamenav.find_path(mesh, (1, 1), (3, 3), agent_radius=0.5),
    lambda mesh: gamenav.find_paths(mesh, [(1, 1)], [(3, 3)], agent_radius=0.5),
    lambda mesh: gamenav.PathCache().find_path(mesh, (1, 1), (3, 3), agent_radius=0.5),
    lambda mesh: gamenav.PathQueue().request(mesh, (1, 1), (3, 3), agent_radius=0.5),
    lambda mesh: gamenav.Crowd(gamenav.TileGrid(np.ones((4, 4), bool)), [(1, 1)], radius=0.3, max_speed=1.0,
                               world=mesh, path_options={"agent_radius": 0.5}),
], ids=["find_path", "find_paths", "PathCache", "PathQueue", "Crowd"])
def test_a_navmesh_search_given_an_agent_radius_says_where_a_navmesh_takes_it(call: Any) -> None:
    """A grid user's ``agent_radius=`` on a navmesh got only "unknown NavMeshSearch option"."""
    mesh = gamenav.NavMesh.from_polygons([_SQUARE])
    with pytest.raises(gamenav.InvalidOptionError, match=r"'agent_radius': a navmesh is inflated by the agent "
                                                         r"radius when it is built \(NavMesh.from_polygons"):
        call(mesh)


@pytest.mark.parametrize(("starts", "goals", "name"), [((0, 0), (3, 2), "starts"), ([(0, 0)], (3, 2), "goals")])
def test_find_paths_given_one_pair_for_a_batch_says_so(starts: Any, goals: Any, name: str) -> None:
    """One (x, y) pair where find_paths wants a batch said "start must be an (x, y) pair of ints,
    got 0" or "starts and goals must have the same length, got 1 and 2"."""
    grid = gamenav.TileGrid.from_strings(["....", ".##.", "...."])
    with pytest.raises(gamenav.InvalidInputError, match=f"{name} must be a sequence of \\(x, y\\) pairs, got one pair"):
        gamenav.find_paths(grid, starts, goals)


def test_mesh_rings_and_obstacle_ids_use_the_shared_number_checks() -> None:
    """A long double beyond float64 in a ring went through numpy's overflow warning (an exception
    under -W error) before the build's error, and a timedelta64 obstacle id was taken as an int."""
    room = [(0, 0), (10, 0), (10, 10), (0, 10)]
    big = np.longdouble("1e400")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(gamenav.InvalidGeometryError, match="walkable coordinates must be finite"):
            gamenav.NavMesh.from_polygons([room[:2] + [(big, 10)] + room[3:]])
        mesh = gamenav.NavMesh.from_polygons([room])
        with pytest.raises(gamenav.InvalidGeometryError, match="coordinates must be finite"):
            mesh.add_obstacle([(1, 1), (2, 1), (big, 2)])
    oid = mesh.add_obstacle([(1, 1), (2, 1), (2, 2)])
    with pytest.raises(gamenav.InvalidInputError, match="oid must be the id of an obstacle"):
        mesh.remove_obstacle(np.timedelta64(oid))
