"""Adversarial review (third round) of a new user's first hour: the README's examples, its sample
data, file readers, engine adapters and the mistakes new users make. Each mistake gives an error of
gamenav's own classes saying what was expected and what was received, or the answer a game expects."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import gamenav
from gamenav import InvalidInputError, MapFormatError, OutOfBoundsError
from gamenav.adapters.pygame import draw_grid, draw_path, grid_from_rects
from gamenav.io import read_map, read_mesh

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize(("row", "line", "match"), [
    ("..@ ", 5, "whitespace ' ' at column 4 of row 0"),  # an editor's trailing space
    (".t.", 5, "unknown terrain 't' at column 2 of row 0"),  # (lower case: not a tree)
])
def test_a_map_row_with_a_stray_character_names_it_its_column_and_the_terrain_expected(
        tmp_path: Path, row: str, line: int, match: str) -> None:
    # was "unknown terrain [' '] in row 0": neither where in the row nor what a row may hold
    path = tmp_path / "level.map"
    path.write_text(f"type octile\nheight 2\nwidth 3\nmap\n{row}\n.@.\n")
    with pytest.raises(MapFormatError, match=match) as info:
        read_map(path)
    assert (info.value.path, info.value.line) == (str(path), line)
    assert "(expected only the terrain '.', 'G', 'S' (passable) and '@', 'O', 'T', 'W' (blocked))" in str(info.value)


@pytest.mark.parametrize("header", ["height 2 3", "height", "height: 2"])
def test_a_map_header_line_of_a_known_key_says_what_the_line_should_be(tmp_path: Path, header: str) -> None:
    # was "expected 'type', 'height', 'width' or 'map', got 'height 2 3'": as if 'height' were wrong
    path = tmp_path / "level.map"
    path.write_text(f"type octile\n{header}\nwidth 3\nmap\n..@\n.@.\n")
    with pytest.raises(MapFormatError, match=re.escape(f"expected a header line 'type octile', 'height H', 'width W' "
                                                       f"or 'map', got {header!r}")) as info:
        read_map(path)
    assert info.value.line == 2

@pytest.mark.parametrize("size", [(0, 0), (640, 0), (640, float("nan")), (640, True)])
def test_a_world_size_of_no_area_names_the_size_received(size: tuple[float, float]) -> None:
    # a zero-size surface's get_size() gave "size must be a finite number > 0, got 0": one side of
    # the pair, not which, and as if size were a number
    with pytest.raises(InvalidInputError, match=re.escape(f"size must be a (width, height) pair of finite numbers "
                                                          f"> 0, got {size!r}")):
        grid_from_rects([], size=size, cell_size=16)


def test_a_mouse_position_passed_for_a_cell_is_named_as_a_world_point() -> None:
    # pygame's event.pos and arcade's on_mouse_press give ints: "start (40, 40) is outside the grid
    # (x in 0..39, y in 0..29)" said nothing of world points, where a float point did
    grid = gamenav.TileGrid(np.ones((30, 40), dtype=bool), cell_size=16)  # level.tmx: 640 x 480 pixels
    hint = "(a world point? grid.world_to_cell(point) gives its cell)"
    with pytest.raises(OutOfBoundsError, match=re.escape(f"goal (600, 440) is outside the grid (x in 0..39, y in "
                                                         f"0..29) {hint}")):
        gamenav.find_path(grid, (2, 2), (600, 440))
    with pytest.raises(OutOfBoundsError, match=re.escape(hint)):
        gamenav.PathQueue().request(grid, (40, 40), (2, 2))
    for cell in [(700, 5), (40, 5), (3, 30)]:  # off the map in pixels too, or a cell next to the grid: no hint
        with pytest.raises(OutOfBoundsError) as info:
            gamenav.find_path(grid, (2, 2), cell)
        assert "world point" not in str(info.value)
    goal = grid.world_to_cell((600, 440))
    assert gamenav.find_path(grid, (2, 2), goal).cells[-1].tolist() == [37, 27]  # type: ignore[call-overload]


_TWO_SQUARES = """mesh
3
6 {faces}
0 0
1 0
2 0
2 1
1 1
0 1
1 4 1 2 5 6 0 0 0 0
1 4 2 3 4 5 0 0 0 0
"""


@pytest.mark.parametrize("again", ["1 4 1 2 5 6 0 0 0 0", "1 4 6 5 2 1 0 0 0 0", "1 4 5 6 1 2 0 0 0 0"])
def test_a_mesh_file_giving_a_face_twice_is_refused_at_its_line(tmp_path: Path, again: str) -> None:
    # read as any other: NavMesh.from_mesh took the face's edges for walls, and a 2 x 1 rectangle
    # was 5 islands (find_path from (0.2, 0.2) to (1.8, 0.8): NO_PATH)
    path = tmp_path / "exported.mesh"
    path.write_text(_TWO_SQUARES.format(faces=2))
    data = read_mesh(path)
    assert gamenav.find_path(gamenav.NavMesh.from_mesh(*data), (0.2, 0.2), (1.8, 0.8)).status.has_path
    path.write_text(_TWO_SQUARES.format(faces=3) + again + "\n")
    with pytest.raises(MapFormatError, match="polygon repeats the one on line 10 \\(a face given twice") as info:
        read_mesh(path)
    assert (info.value.path, info.value.line) == (str(path), 12)
    path.write_text(_TWO_SQUARES.format(faces=3) + again.replace("1", "0", 1) + "\n")  # not traversable: dropped
    assert len(read_mesh(path).polygons) == 2


def _tiny_map_walled(folder: Path, walls: str) -> str:
    """A copy of the shipped tiny map (6 x 4 tiles of 16 pixels) whose ``walls`` layer is ``walls``."""
    (folder / "tiles.png").write_bytes(gamenav.data.path("tiles.png").read_bytes())
    text = gamenav.data.path("tiny.tmx").read_text()
    first = text.index("<data", text.index('name="walls"'))
    start, end = text.index(">", first) + 1, text.index("</data>", first)
    (folder / "walled.tmx").write_text(text[:start] + "\n" + walls + "\n" + text[end:])
    return str(folder / "walled.tmx")


@pytest.mark.parametrize(("walls", "code", "out"), [
    # a wall on the tile of the agent's start (48, 48): InvalidInputError traceback ("every position must
    # lie on a passable cell; agent 0 at (48.0, 48.0) is in blocked cell (3, 3)"), after the window opened
    ("0,0,2,0,0,0,\n0,0,2,0,2,0,\n0,0,0,0,2,0,\n2,0,0,2,0,0", 0, r"arrived=True failed=False position=\(88\.0, 56\."),
    (",\n".join(["2,2,2,2,2,2"] * 4), 2, r"cannot use the map .*walled\.tmx: its walls layer leaves no tile free"),
])
def test_the_pygame_example_starts_on_the_free_tile_nearest_its_start(tmp_path: Path, walls: str, code: int,
                                                                       out: str) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SDL_")}  # the example sets them
    run = subprocess.run([sys.executable, str(ROOT / "examples" / "pygame_example.py"), "--headless", "--frames",
                          "300", "--map", _tiny_map_walled(tmp_path, walls)], capture_output=True, text=True,
                         timeout=300, env=env, cwd=tmp_path)
    assert run.returncode == code, run.stderr
    assert "Traceback" not in run.stderr
    assert re.search(out, run.stdout if code == 0 else run.stderr)


@pytest.mark.parametrize("color", [(1.0, 0.5, 0.0), (255.0, 0.0, 0.0), (True, False, False), np.array([0.5, 0.5, 0.5])])
def test_pygame_colours_of_floats_or_bools_are_refused_as_in_the_arcade_adapter(color: object) -> None:
    # pygame truncates floats and reads bools as 0 / 1: a normalised (1.0, 0.5, 0.0) drew (1, 0, 0), near black
    import pygame

    surface = pygame.Surface((40, 20))
    grid = grid_from_rects([(10, 10, 5, 5)], size=(40, 20), cell_size=10)
    with pytest.raises(InvalidInputError, match=r"blocked_color must be a colour: a name, '#rrggbb', or \(r, g, b\)"):
        draw_grid(surface, grid, blocked_color=color)
    with pytest.raises(InvalidInputError, match="color must be a colour"):
        draw_path(surface, [(1, 2), (30, 15)], color=color)
    draw_grid(surface, grid, blocked_color=np.array([200, 0, 0], dtype=np.uint8))  # ints: numpy's too
    assert tuple(surface.get_at((12, 12))) == (200, 0, 0, 255)


@pytest.mark.parametrize("walkable", ["level.map", Path("maps/level.map")])
def test_a_map_file_name_given_to_tilegrid_points_to_from_movingai(walkable: object) -> None:
    # was "walkable must be 2-D [y, x], got shape () (text rows: use TileGrid.from_strings)" for a str
    # (from_strings then refuses one string) and no hint at all for a pathlib.Path
    with pytest.raises(InvalidInputError, match=re.escape("got shape () (a map file? TileGrid.from_movingai(path) "
                                                          "reads a .map file)")):
        gamenav.TileGrid(walkable)  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError, match=re.escape("(text rows: use TileGrid.from_strings)")):
        gamenav.TileGrid("..#\n...")
