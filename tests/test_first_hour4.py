"""Adversarial review (fourth round) of a new user's first hour: the mistakes new users make with map files,
and the example they copy. Each gives an error of gamenav's own classes saying what was expected and what was
received, or the answer a game expects: never a silent wrong or stale one."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import shapely

import gamenav
from gamenav import MapFormatError
from gamenav.io import read_map

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("kind", ["octile-corner", "raw", "hex", "Octile"])
def test_a_map_of_another_type_than_octile_is_refused_at_its_type_line(tmp_path: Path, kind: str) -> None:
    # any type was read as an octile grid without a word (HOG2, the format's reference reader, lays out
    # 'octile-corner' and 'raw' maps otherwise and refuses the others): a silent wrong grid
    path = tmp_path / "level.map"
    path.write_text(f"height 2\ntype {kind}\nwidth 3\nmap\n...\n.@.\n")
    for read in (read_map, gamenav.TileGrid.from_movingai):
        with pytest.raises(MapFormatError, match=f"the map type must be 'octile' \\(gamenav reads only octile "
                                                 f"grids\\), got '{kind}'") as info:
            read(path)
        assert (info.value.path, info.value.line) == (str(path), 2)


def test_a_map_without_a_type_line_is_still_read_as_octile(tmp_path: Path) -> None:
    path = tmp_path / "level.map"
    path.write_text("height 2\nwidth 3\nmap\n...\n.@.\n")
    assert np.array_equal(read_map(path), [[True, True, True], [True, False, True]])


def test_the_pygame_example_carves_a_right_click_wall_into_its_navmesh(monkeypatch: pytest.MonkeyPatch) -> None:
    # a right click walled a cell of the grid only: the navmesh path drawn beside the grid path (blue) went on
    # through the new wall, reported FOUND
    import gamenav.adapters.pygame as adapter

    spec = importlib.util.spec_from_file_location("pygame_example", ROOT / "examples" / "pygame_example.py")
    assert spec is not None and spec.loader is not None
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")  # (the example sets them: put back after the test)
    monkeypatch.setenv("SDL_AUDIODRIVER", "dummy")
    blue: list[gamenav.Path] = []
    real = adapter.draw_path

    def draw_path(surface: Any, path: Any, **options: Any) -> None:
        if options.get("color") == (80, 160, 255):
            blue.append(path)
        real(surface, path, **options)

    monkeypatch.setattr(adapter, "draw_path", draw_path)
    assert example.SCRIPT[60] == (3, (296, 120))  # frame 60: a right click walls the cell (18, 7)
    assert example.main(["--headless", "--frames", "61"]) == 0
    wall = shapely.box(288, 112, 304, 128)
    before, after = blue[58], blue[59]  # frames 59 and 60
    assert shapely.LineString(before.points).intersects(wall), "the route went through the cell"
    assert after.status is gamenav.PathStatus.FOUND and not shapely.LineString(after.points).intersects(wall)
