"""Adversarial review 8 of error messages: ints Python cannot write out, and long text from files.

An int of more than 4300 digits (``-10**5000``) made the message itself raise a bare ValueError
("Exceeds the limit ... for integer string conversion"); a long token, line, name or list from
a file was written whole into the message (megabytes in a game's log).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

import arcade  # noqa: E402  (after ARCADE_HEADLESS is set by conftest)
import pytmx  # noqa: E402

import gamenav
from gamenav import GamenavError, MapFormatError
from gamenav.adapters import pygame as pygame_adapter
from gamenav.adapters.arcade import grid_from_tilemap
from gamenav.grid.hpa import HpaIndex, hpa_index
from gamenav.io import Scenario, read_map, read_mesh, read_mesh_scenarios, read_scenarios, write_scenarios

_HUGE = -10**5000  # (more digits than Python writes out: repr() raises ValueError)
_LONG = 100_000  # characters of a token, name or line: its message stays short
_SHORT = 1_000  # the most characters a message may have here
_GRID = gamenav.TileGrid(np.ones((5, 5), dtype=bool))


def _octile(dx: int, dy: int, scale: int) -> float:
    return float(max(dx, dy))


_HUGE_CALLS: dict[str, Callable[[], object]] = {
    "find_path diagonal": lambda: gamenav.find_path(_GRID, (0, 0), (1, 1), diagonal=_HUGE),
    "components diagonal": lambda: _GRID.components(_HUGE),
    "find_path heuristic": lambda: gamenav.find_path(_GRID, (0, 0), (1, 1), heuristic=_HUGE),
    "jps heuristic": lambda: gamenav.find_path(_GRID, (0, 0), (1, 1), algorithm="jps",
                                               heuristic=functools.partial(_octile, scale=_HUGE)),
    "hpa_index cluster_size": lambda: hpa_index(_GRID, cluster_size=_HUGE),
    "HpaIndex spacing": lambda: HpaIndex(_GRID, spacing=_HUGE),
    "data.path": lambda: gamenav.data.path(_HUGE),  # type: ignore[arg-type]
}


@pytest.mark.parametrize("call", list(_HUGE_CALLS.values()), ids=list(_HUGE_CALLS))
def test_an_int_python_cannot_write_out_gets_the_librarys_error(call: Callable[[], object]) -> None:
    with pytest.raises(GamenavError) as info:
        call()
    assert "more than 4300 digits" in str(info.value) and len(str(info.value)) < _SHORT


@pytest.mark.parametrize("field", ["map_name", "bucket"])
def test_write_scenarios_names_a_bad_field_shortly(tmp_path: Path, field: str) -> None:
    # map_name -10**5000 raised ValueError; bucket "1" * 4000 (read back as an int, yet a str) was written whole
    bad = {"map_name": _HUGE, "bucket": "1" * 4000}[field]
    scenario = Scenario(0, "a.map", 4, 4, (0, 0), (1, 1), 1.5)._replace(**{field: bad})
    path = tmp_path / "out.scen"
    with pytest.raises(gamenav.InvalidInputError, match=f"scenarios\\[0\\].{field} must") as info:
        write_scenarios(path, [scenario])
    assert len(str(info.value)) < _SHORT and not path.exists()


@pytest.mark.parametrize("text", [
    "x" * _LONG,
    "walkable " + "x" * _LONG,
    "type " + "x" * _LONG,
], ids=["header line", "header key", "type"])
def test_a_long_header_line_is_cut_in_read_maps_message(tmp_path: Path, text: str) -> None:
    path = tmp_path / "long.map"
    path.write_text(f"{text}\nheight 1\nwidth 1\nmap\n.\n")
    with pytest.raises(MapFormatError) as info:
        read_map(path)
    assert len(str(info.value)) < _SHORT and info.value.line == 1


@pytest.mark.parametrize(("header", "rows", "match"), [
    ("height 2\nwidth -" + "9" * 4000, ".\n", "width must be positive"),
    ("height 2\nwidth " + "9" * 4000, "..\n", "row 0 has 2 characters"),
    ("height " + "9" * 4000 + "\nwidth 2", "..\n", "rows, found 1"),
], ids=["width", "row", "height"])
def test_a_map_size_of_thousands_of_digits_is_cut(tmp_path: Path, header: str, rows: str, match: str) -> None:
    path = tmp_path / "big.map"
    path.write_text(f"type octile\n{header}\nmap\n{rows}")
    with pytest.raises(MapFormatError, match=match) as info:
        read_map(path)
    assert len(str(info.value)) < _SHORT


@pytest.mark.parametrize("fields", [
    f"0\ta.map\t-{'9' * 4000}\t4\t0\t0\t1\t1\t1.5",
    f"0\ta.map\t4\t4\t{'9' * 4000}\t0\t1\t1\t1.5",
    f"0\ta.map\t4\t4\t0\t{'x' * _LONG}\t1\t1\t1.5",
], ids=["size", "start", "token"])
def test_read_scenarios_cuts_long_numbers_and_tokens(tmp_path: Path, fields: str) -> None:
    path = tmp_path / "big.scen"
    path.write_text(f"version 1\n{fields}\n")
    with pytest.raises(MapFormatError) as info:
        read_scenarios(path)
    assert len(str(info.value)) < _SHORT and info.value.line == 2


_MANY = " ".join(["1"] * _LONG)
_SQUARE = "0 0\n1 0\n1 1\n0 1\n"


@pytest.mark.parametrize(("text", "match"), [
    (f"mesh\n2 {_MANY}\n0 0\n", "version 2 or 3"),
    (f"mesh\n3\n{_MANY}\n", "two counts"),
    (f"mesh\n3\n{'9' * 4000} 1\n", "vertex and 1 polygon lines"),
    (f"mesh\n3\n1 0\n0 0 {_MANY}\n", "expected 'x y'"),
    (f"mesh\n2\n1 0\n0 0 {_MANY}\n", "expected 'x y n"),
    (f"mesh\n2\n1 0\n0 0 2 {_MANY}\n", "expected 'x y n"),
    (f"mesh\n2\n1 1\n0 0 {_LONG} {_MANY}\n3 0 0 0 0 0 0\n", "polygon ids must be"),
    (f"mesh\n2\n1 0\n1{'0' * 20}.{'0' * _LONG} 0 0\n", "must lie in"),
    (f"mesh\n3\n4 1\n{_SQUARE}2 {_MANY}\n", "traversable flag"),
    (f"mesh\n3\n4 1\n{_SQUARE}1 {_MANY}\n", "with n >= 3"),
    (f"mesh\n3\n4 1\n{_SQUARE}1 {_LONG} {' '.join(['5'] * (2 * _LONG))}\n", "vertex ids must be"),
    (f"mesh\n3\n4 1\n{_SQUARE}1 {_LONG} {' '.join(['1'] * (2 * _LONG))}\n", "polygon repeats a vertex id"),
    (f"mesh\n3\n1 0\n0 {'x' * _LONG}\n", "expected finite decimal numbers"),
    (f"mesh\n3\n1 0\n0 {'9' * _LONG}\n", "beyond the float range"),
], ids=["version", "counts", "count digits", "mesh 3 vertex", "mesh 2 vertex", "vertex polygons",
        "polygon ids", "range", "flag", "polygon", "vertex ids", "repeated id", "bad token", "float range"])
def test_read_mesh_cuts_long_lines_and_lists(tmp_path: Path, text: str, match: str) -> None:
    path = tmp_path / "long.mesh"
    path.write_text(text)
    with pytest.raises(MapFormatError, match=match) as info:
        read_mesh(path)
    assert len(str(info.value)) < _SHORT


@pytest.mark.parametrize("size", [f"-0.{'0' * _LONG}1 4", f"4 0.{'0' * _LONG}"])
def test_read_mesh_scenarios_cuts_a_long_map_size(tmp_path: Path, size: str) -> None:
    path = tmp_path / "long.scen"
    path.write_text(f"version 1\n0\tm.mesh\t{size}\t0\t0\t1\t1\t1.4\n")
    with pytest.raises(MapFormatError, match="map size must be positive") as info:
        read_mesh_scenarios(path)
    assert len(str(info.value)) < _SHORT


def test_a_long_file_name_with_a_nul_is_cut() -> None:
    with pytest.raises(gamenav.InvalidInputError, match="embedded null byte") as info:
        read_map("x" * _LONG + "\0")
    assert len(str(info.value)) < _SHORT


def test_a_long_layer_name_is_cut_in_the_tiled_adapters_messages(tmp_path: Path) -> None:
    name, far = "w" * _LONG, "1" + "0" * 308  # (offsets of 1e308 in the layer and its group: inf in all)
    text = gamenav.data.path("tiny.tmx").read_text()
    text = text.replace('<layer id="2" name="walls"', f'<group id="8" name="level" offsetx="{far}" offsety="0">\n'
                        f' <layer id="2" name="{name}" offsetx="{far}" offsety="0"')
    text = text.replace(' <objectgroup id="3"', ' </group>\n <objectgroup id="3"')
    (tmp_path / "tiles.png").write_bytes(gamenav.data.path("tiles.png").read_bytes())
    (tmp_path / "named.tmx").write_text(text)
    with pytest.raises(MapFormatError, match="offsets of layer 'www") as info:
        pygame_adapter.grid_from_tmx(pytmx.TiledMap(str(tmp_path / "named.tmx")), name)
    assert len(str(info.value)) < _SHORT + len(str(tmp_path))
    tile_map = arcade.load_tilemap(tmp_path / "named.tmx", lazy=True)
    with pytest.raises(MapFormatError, match="offsets of layer 'www") as info:
        grid_from_tilemap(tile_map, name)
    assert len(str(info.value)) < _SHORT + len(str(tmp_path))
    tile_map.tiled_map.layers[1].layers[0].offset = (float("nan"), 0.0)  # (JSON reads NaN)
    with pytest.raises(MapFormatError, match="each offset of layer 'www") as info:
        grid_from_tilemap(tile_map, name)
    assert len(str(info.value)) < _SHORT + len(str(tmp_path))
