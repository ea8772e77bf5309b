"""gamenav.data: the shipped sample files exist, load with gamenav's readers, match tests/data."""

from __future__ import annotations

from pathlib import Path

import pytest

import gamenav
from gamenav.io import read_mesh, read_scenarios

SAMPLES = ["arena.map", "arena.map.scen", "arena.mesh", "den011d.map", "den011d.map.scen",
           "level.tmx", "tiles.png", "tiny.json", "tiny.tmx"]


def test_names_lists_the_samples_and_their_attribution() -> None:
    names = gamenav.data.names()
    assert set(SAMPLES) | {"ATTRIBUTION.md", "LICENSE-hog2.txt", "LICENSE-polyanya.txt"} == set(names)
    assert names == sorted(names)


@pytest.mark.parametrize("name", SAMPLES)
def test_path_is_a_readable_file(name: str) -> None:
    path = gamenav.data.path(name)
    assert path.is_file() and path.name == name and path.stat().st_size > 0


def test_total_size_stays_small() -> None:
    assert sum(gamenav.data.path(n).stat().st_size for n in gamenav.data.names()) < 1_000_000


@pytest.mark.parametrize("name", ["arena.map", "arena.map.scen", "den011d.map", "den011d.map.scen"])
def test_moving_ai_files_are_the_vendored_benchmark_files(name: str, data_dir: Path) -> None:
    assert gamenav.data.path(name).read_bytes() == (data_dir / "movingai" / name).read_bytes()


def test_samples_load_and_a_scenario_is_solved_optimally() -> None:
    grid = gamenav.TileGrid.from_movingai(gamenav.data.path("arena.map"))
    scenario = read_scenarios(gamenav.data.path("arena.map.scen"))[-1]
    path = gamenav.find_path(grid, scenario.start, scenario.goal)
    assert path.cost == pytest.approx(scenario.optimal_length, abs=0.01)
    mesh = read_mesh(gamenav.data.path("arena.mesh"))
    assert len(mesh.polygons) == 120


@pytest.mark.parametrize("name", ["arena", "maps/arena.map", "", "../tests/conftest.py"])
def test_unknown_name_lists_the_available_files(name: str) -> None:
    with pytest.raises(gamenav.InvalidInputError, match=rf"name must be one of .*'arena\.map'.*got {name!r}"):
        gamenav.data.path(name)


def test_tiny_tmx_is_the_same_map_as_tiny_json() -> None:
    import json

    import pytmx

    tmx = pytmx.TiledMap(str(gamenav.data.path("tiny.tmx")))
    doc = json.loads(gamenav.data.path("tiny.json").read_text(encoding="utf-8"))
    assert (tmx.width, tmx.height, tmx.tilewidth, tmx.tileheight) == (6, 4, 16, 16) == (
        doc["width"], doc["height"], doc["tilewidth"], doc["tileheight"])
    for layer in doc["layers"]:
        tmx_layer = tmx.get_layer_by_name(layer["name"])
        if layer["type"] == "tilelayer":
            assert [g for row in tmx_layer.data for g in row] == layer["data"]
        else:
            assert [(o.name, o.x, o.y, o.width, o.height) for o in tmx_layer] == [
                (o["name"], o["x"], o["y"], o.get("width", 0), o.get("height", 0)) if "polygon" not in o
                else (o["name"], o["x"], o["y"], 16.0, 20.0) for o in layer["objects"]]
            rock = next(o for o in tmx_layer if o.name == "rock")
            assert [(p.x - rock.x, p.y - rock.y) for p in rock.points] == [
                (p["x"], p["y"]) for p in layer["objects"][0]["polygon"]]
