"""pygame adapter: Rects/masks -> TileGrid (pygame's collision as oracle), drawing, follower, example."""

from __future__ import annotations

import importlib
import math
import os
import re
import subprocess
import sys
from pathlib import Path as FsPath
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import pygame  # noqa: E402  (after SDL_VIDEODRIVER is set by conftest)
import pytmx  # noqa: E402
import shapely  # noqa: E402

import gamenav  # noqa: E402
from gamenav.adapters.pygame import (PathFollower, draw_grid, draw_path, grid_from_mask,  # noqa: E402
                                     grid_from_rects, grid_from_tmx, navmesh_from_tmx)

ROOT = FsPath(__file__).resolve().parents[2]
WHITE = (255, 255, 255, 255)


def blocked_cells(grid: gamenav.TileGrid) -> set[tuple[int, int]]:
    ys, xs = np.nonzero(~grid.passable)
    return set(zip(xs.tolist(), ys.tolist(), strict=True))


def colliderect_oracle(rects: list[pygame.Rect], cols: int, rows: int, cs: int) -> set[tuple[int, int]]:
    """Cells whose pixel square collides (positive-area overlap) with a normalised rect, per pygame."""
    normal = [r.copy() for r in rects]
    for r in normal:
        r.normalize()
    return {(x, y) for y in range(rows) for x in range(cols)
            if pygame.Rect(x * cs, y * cs, cs, cs).collidelist(normal) >= 0}


# -- grid_from_rects ----------------------------------------------------------------------

def test_rects_block_exactly_the_overlapped_cells() -> None:
    rects = [
        pygame.Rect(20, 0, 20, 20),          # exactly cell (1, 0): touching neighbours is no overlap
        pygame.Rect(55, 25, 10, 10),         # straddles (2, 1) and (3, 1)
        pygame.Rect(90, 50, 30, 30),         # sticks out past the bottom-right corner
        pygame.FRect(0.5, 59.5, 1.0, 1.0),   # sub-pixel, last row
        pygame.Rect(-50, -50, 20, 20),       # entirely outside
        pygame.Rect(0, 40, 0, 20),           # zero width: blocks nothing
    ]
    grid = grid_from_rects(rects, size=(100, 60), cell_size=20)
    assert grid.shape == (3, 5) and grid.y_up is False and grid.cell_size == 20.0
    assert blocked_cells(grid) == {(1, 0), (2, 1), (3, 1), (4, 2), (0, 2)}


def test_rects_with_origin_partial_last_column_and_sprites() -> None:
    wall = pygame.sprite.Sprite()
    wall.rect = pygame.Rect(140, 20, 5, 5)     # the last column, only partly inside `size`
    grid = grid_from_rects([wall, (100, 10, 10, 10)], size=(45, 20), cell_size=10, origin=(100, 10))
    assert grid.shape == (2, 5) and grid.origin == (100.0, 10.0)
    assert blocked_cells(grid) == {(0, 0), (4, 1)}
    np.testing.assert_array_equal(grid.cell_to_world([4, 1]), [145.0, 25.0])
    as_array = grid_from_rects(np.array([[100, 10, 10, 10], [140, 20, 5, 5]]), size=(45, 20),
                               cell_size=10, origin=(100, 10))
    np.testing.assert_array_equal(as_array.passable, grid.passable)


rect_strategy = st.builds(pygame.Rect, st.integers(-20, 90), st.integers(-20, 70),
                          st.integers(-30, 40), st.integers(-30, 40))


@settings(max_examples=60, deadline=None)
@given(rects=st.lists(rect_strategy, max_size=6), cols=st.integers(1, 9), rows=st.integers(1, 7),
       cs=st.integers(1, 12))
def test_rects_match_pygame_colliderect(rects: list[pygame.Rect], cols: int, rows: int, cs: int) -> None:
    grid = grid_from_rects(rects, size=(cols * cs, rows * cs), cell_size=cs)
    assert grid.shape == (rows, cols)
    assert blocked_cells(grid) == colliderect_oracle(rects, cols, rows, cs)


@pytest.mark.parametrize("kwargs, match", [
    (dict(rects=[(0, 0, 1)], size=(10, 10), cell_size=1), r"\(x, y, w, h\).*shape \(1, 3\)"),
    (dict(rects=[(0, 0, 1, 1), (0, 0, 1)], size=(10, 10), cell_size=1), "rectangles of numbers"),
    (dict(rects=[(0, 0, math.nan, 1)], size=(10, 10), cell_size=1), "finite coordinates"),
    (dict(rects=[], size=(10, -1), cell_size=1), r"size must be .*> 0, got \(10, -1\)"),
    (dict(rects=[], size=(10,), cell_size=1), r"size must be a \(width, height\) pair"),
    (dict(rects=[], size=(10, 10), cell_size=0), "cell_size must be .*> 0, got 0"),
    (dict(rects=[1.5], size=(10, 10), cell_size=1), "rectangles of numbers"),
    (dict(rects=[], size=(1e12, 1e12), cell_size=1), r"more than \d+ cells"),
    (dict(rects=[], size=5, cell_size=1), r"size must be a \(width, height\) pair"),
])
def test_rects_bad_input(kwargs: dict, match: str) -> None:
    rects = kwargs.pop("rects")
    with pytest.raises(gamenav.InvalidInputError, match=match):
        grid_from_rects(rects, **kwargs)


# -- grid_from_mask -----------------------------------------------------------------------

def mask_from_bits(bits: np.ndarray) -> pygame.mask.Mask:
    """A Mask with bit (x, y) set where bits[y, x]."""
    mask = pygame.mask.Mask((bits.shape[1], bits.shape[0]))
    for y, x in zip(*np.nonzero(bits), strict=True):
        mask.set_at((int(x), int(y)))
    return mask


@settings(max_examples=40, deadline=None)
@given(w=st.integers(1, 40), h=st.integers(1, 30), cs=st.integers(1, 9), density=st.floats(0, 0.3),
       threshold=st.none() | st.floats(0.01, 1.0), seed=st.integers(0, 2**32 - 1))
def test_mask_matches_per_cell_overlap_area(w: int, h: int, cs: int, density: float,
                                            threshold: float | None, seed: int) -> None:
    bits = np.random.default_rng(seed).random((h, w)) < density
    mask = mask_from_bits(bits)
    grid = grid_from_mask(mask, cell_size=cs, threshold=threshold)
    rows, cols = -(-h // cs), -(-w // cs)
    assert grid.shape == (rows, cols)
    full = pygame.mask.Mask((cs, cs), fill=True)
    for y in range(rows):
        for x in range(cols):
            count = mask.overlap_area(full, (x * cs, y * cs))
            area = min(cs, w - x * cs) * min(cs, h - y * cs)
            blocked = count > 0 if threshold is None else count >= threshold * area
            assert grid.passable[y, x] == (not blocked), (x, y, count, area)


def test_mask_and_rects_agree_on_pixel_aligned_walls() -> None:
    rects = [pygame.Rect(5, 0, 10, 30), pygame.Rect(30, 17, 33, 4), pygame.Rect(60, 40, 10, 10)]
    mask = pygame.mask.Mask((64, 48))
    for r in rects:
        mask.draw(pygame.mask.Mask(r.size, fill=True), r.topleft)
    from_mask = grid_from_mask(mask, cell_size=8, origin=(3, 4))
    moved = [r.move(3, 4) for r in rects]
    from_rects = grid_from_rects(moved, size=(64, 48), cell_size=8, origin=(3, 4))
    np.testing.assert_array_equal(from_mask.passable, from_rects.passable)
    assert from_mask.origin == (3.0, 4.0) and from_mask.y_up is False


@pytest.mark.parametrize("kwargs, match", [
    (dict(cell_size=2.5), r"integer from 1 to 2\*\*31 for masks, got 2\.5"),
    (dict(cell_size=0), "integer from 1 to 2\\*\\*31 for masks, got 0"),
    (dict(cell_size=4, threshold=0), r"threshold must be None or in \(0, 1\], got 0"),
    (dict(cell_size=4, threshold=1.5), r"threshold must be None or in \(0, 1\], got 1\.5"),
    (dict(cell_size=4, threshold=[]), r"threshold must be None or in \(0, 1\], got \[\]"),
    (dict(cell_size=4, threshold="x"), r"threshold must be None or in \(0, 1\], got 'x'"),
    (dict(cell_size="x"), "integer from 1 to 2\\*\\*31 for masks, got 'x'"),
    (dict(cell_size=1e300), "integer from 1 to 2\\*\\*31 for masks, got 1e\\+300"),
])
def test_mask_bad_input(kwargs: dict, match: str) -> None:
    with pytest.raises(gamenav.InvalidInputError, match=match):
        grid_from_mask(pygame.mask.Mask((8, 8)), **kwargs)
    with pytest.raises(gamenav.InvalidInputError, match="pygame.mask.Mask, got ndarray"):
        grid_from_mask(np.zeros((8, 8)), cell_size=4)  # type: ignore[arg-type]


# -- Tiled maps through pytmx -------------------------------------------------------------

TINY_TMX = gamenav.data.path("tiny.tmx")


@pytest.fixture(scope="module")
def tmx_map() -> pytmx.TiledMap:
    return pytmx.TiledMap(str(TINY_TMX))


def test_tmx_layer_blocks_exactly_pytmx_s_non_empty_tiles(tmx_map: pytmx.TiledMap) -> None:
    for name in ("walls", "floor"):
        index = tmx_map.layers.index(tmx_map.get_layer_by_name(name))
        occupied = {(x, y) for y in range(tmx_map.height) for x in range(tmx_map.width)
                    if tmx_map.get_tile_gid(x, y, index) != 0}
        grid = grid_from_tmx(tmx_map, name)
        assert grid.shape == (4, 6) and grid.cell_size == 16.0 and grid.y_up is False
        assert blocked_cells(grid) == occupied
        floor = grid_from_tmx(tmx_map, name, walls=False)
        assert blocked_cells(floor) == {(x, y) for x in range(6) for y in range(4)} - occupied
    assert len(blocked_cells(grid_from_tmx(tmx_map, "walls"))) == 5


def test_tmx_grid_matches_pytmx_s_drawn_tiles_with_load_pygame() -> None:
    pygame.display.init()
    pygame.display.set_mode((96, 64))
    try:
        loaded = pytmx.load_pygame(str(TINY_TMX))
        drawn = {(x, y) for x, y, _image in loaded.get_layer_by_name("walls").tiles()}
        grid = grid_from_tmx(loaded, "walls")
    finally:
        pygame.display.quit()
    assert blocked_cells(grid) == drawn
    # the tile (2, 0) is drawn at pixels (32..47, 0..15): the grid's cell (2, 0) covers them
    np.testing.assert_array_equal(grid.world_to_cell([[32, 0], [47.9, 15.9]]), [[2, 0], [2, 0]])


def test_tmx_path_goes_around_the_walls(tmx_map: pytmx.TiledMap) -> None:
    grid = grid_from_tmx(tmx_map, "walls")
    path = gamenav.find_path(grid, (0, 0), (5, 0))
    assert path.status is gamenav.PathStatus.FOUND
    assert all(grid.is_passable(x, y) for x, y in path.cells.tolist())
    assert path.points[-1].tolist() == [88.0, 8.0]  # the centre of tile (5, 0) in pixels


def test_tmx_navmesh_cuts_out_pytmx_s_objects(tmx_map: pytmx.TiledMap) -> None:
    mesh = navmesh_from_tmx(tmx_map, "obstacles")
    objects = {obj.name: obj for obj in tmx_map.get_layer_by_name("obstacles")}
    rock, wall = objects["rock"], objects["wall"]
    rock_shape = shapely.Polygon([tuple(p) for p in rock.points])
    rock_area = rock_shape.area
    map_area = tmx_map.width * tmx_map.tilewidth * tmx_map.height * tmx_map.tileheight
    assert mesh_area(mesh) == pytest.approx(map_area - wall.width * wall.height - rock_area)
    rng = np.random.default_rng(7)
    points = rng.uniform((0, 0), (96, 64), size=(2000, 2))
    in_wall = ((points[:, 0] > wall.x) & (points[:, 0] < wall.x + wall.width)
               & (points[:, 1] > wall.y) & (points[:, 1] < wall.y + wall.height))
    in_rock = shapely.contains_xy(rock_shape, points[:, 0], points[:, 1])
    inside = mesh.locate(points) >= 0
    np.testing.assert_array_equal(inside, ~(in_wall | in_rock))
    path = gamenav.find_path(mesh, (4, 60), (60, 20))
    assert path.status is gamenav.PathStatus.FOUND
    inflated = navmesh_from_tmx(tmx_map, "obstacles", agent_radius=2)
    assert mesh_area(inflated) < mesh_area(mesh)


def mesh_area(mesh: gamenav.NavMesh) -> float:
    tri = mesh.vertices[mesh.triangles]
    a, b = tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0]
    return float(np.abs(a[:, 0] * b[:, 1] - a[:, 1] * b[:, 0]).sum() / 2)


TRANSFORMED_TMX = """<?xml version="1.0" encoding="UTF-8"?>
<map version="1.10" orientation="orthogonal" renderorder="right-down" width="4" height="3"
     tilewidth="10" tileheight="10" infinite="0">
 <layer id="1" name="walls" width="4" height="3" offsetx="5" offsety="7">
  <data encoding="csv">0,0,0,3,
0,5,0,0,
0,0,0,0</data>
 </layer>
 <objectgroup id="2" name="blocks" offsetx="2" offsety="1">
  <object id="1" x="10" y="10" width="10" height="5" rotation="90"/>
  <object id="2" x="0" y="0"><polyline points="0,0 30,0 30,20"/></object>
 </objectgroup>
 <objectgroup id="3" name="rooms">
  <object id="3" x="0" y="0" width="20" height="30"/>
  <object id="4" x="20" y="10" width="20" height="10"/>
 </objectgroup>
 <objectgroup id="4" name="lines">
  <object id="5" x="0" y="0"><polyline points="0,0 5,5"/></object>
 </objectgroup>
</map>
"""


@pytest.fixture(scope="module")
def transformed(tmp_path_factory: pytest.TempPathFactory) -> pytmx.TiledMap:
    path = tmp_path_factory.mktemp("tmx") / "transformed.tmx"
    path.write_text(TRANSFORMED_TMX, encoding="utf-8")
    return pytmx.TiledMap(str(path))


def test_tmx_layer_offsets_rotation_polylines_and_walkable_objects(transformed: pytmx.TiledMap) -> None:
    grid = grid_from_tmx(transformed, "walls")
    assert blocked_cells(grid) == {(3, 0), (1, 1)} and grid.origin == (5.0, 7.0)
    blocks = navmesh_from_tmx(transformed, "blocks")
    # the 10 x 5 rectangle rotated by 90 degrees about its (x, y) corner, shifted by the offset:
    # x in (7, 12), y in (11, 21); the polyline encloses nothing
    assert mesh_area(blocks) == pytest.approx(40 * 30 - 50)
    assert blocks.locate([(9, 15), (14, 13), (25, 2)]).tolist()[0] == -1
    assert (blocks.locate([(14, 13), (25, 2)]) >= 0).all()
    rooms = navmesh_from_tmx(transformed, "rooms", walkable=True)
    assert mesh_area(rooms) == pytest.approx(20 * 30 + 20 * 10)
    assert rooms.locate([(30, 15), (30, 5)]).tolist()[1] == -1
    with pytest.raises(gamenav.InvalidInputError, match="object layer 'lines' has no polygons or rectangles"):
        navmesh_from_tmx(transformed, "lines")


@pytest.mark.parametrize("call, match", [
    (lambda m: grid_from_tmx(m, "obstacles"),
     r"tile layer 'obstacles' not found; the map's tile layers are \['floor', 'walls'\]"),
    (lambda m: grid_from_tmx(m, "nope"), r"tile layer 'nope' not found"),
    (lambda m: navmesh_from_tmx(m, "walls"),
     r"object layer 'walls' not found; the map's object layers are \['obstacles'\]"),
    (lambda m: grid_from_tmx(str(TINY_TMX), "walls"), "tmx_map must be a pytmx.TiledMap, got str"),
    (lambda m: navmesh_from_tmx(m, "obstacles", agent_radius=-1), "agent_radius"),
])
def test_tmx_bad_input(tmx_map: pytmx.TiledMap, call: Any, match: str) -> None:
    with pytest.raises(gamenav.InvalidInputError, match=match):
        call(tmx_map)


def test_tmx_non_square_tiles_and_non_orthogonal_maps(tmp_path: FsPath) -> None:
    text = TRANSFORMED_TMX.replace('tileheight="10"', 'tileheight="8"')
    (tmp_path / "a.tmx").write_text(text, encoding="utf-8")
    with pytest.raises(gamenav.InvalidInputError, match="tiles must be square, got 10 x 8 pixels"):
        grid_from_tmx(pytmx.TiledMap(str(tmp_path / "a.tmx")), "walls")
    (tmp_path / "b.tmx").write_text(TRANSFORMED_TMX.replace("orthogonal", "isometric"), encoding="utf-8")
    with pytest.raises(gamenav.InvalidInputError, match="orthogonal map, got 'isometric'"):
        grid_from_tmx(pytmx.TiledMap(str(tmp_path / "b.tmx")), "walls")


def test_tmx_flags_and_layer_names_are_checked(tmx_map: pytmx.TiledMap) -> None:
    # a string is not a bool: walkable="no" used to build the walkable area from the obstacles
    with pytest.raises(gamenav.InvalidInputError, match="walkable must be a bool, got 'no'"):
        navmesh_from_tmx(tmx_map, "obstacles", walkable="no")
    with pytest.raises(gamenav.InvalidInputError, match="walls must be a bool, got 'no'"):
        grid_from_tmx(tmx_map, "walls", walls="no")
    for call in (grid_from_tmx, navmesh_from_tmx):
        with pytest.raises(gamenav.InvalidInputError, match=r"layer must be a layer name \(str\), got \['walls'\]"):
            call(tmx_map, ["walls"])


def test_tmx_tile_layer_of_another_size_than_the_map_is_a_format_error(tmp_path: FsPath) -> None:
    # 12 ids in a 6 x 2 layer of a 4 x 3 map: read as 3 rows of 4, a scrambled grid, before
    path = tmp_path / "sized.tmx"
    path.write_text(TRANSFORMED_TMX.replace('name="walls" width="4" height="3"', 'name="walls" width="6" height="2"'),
                    encoding="utf-8")
    with pytest.raises(gamenav.MapFormatError, match=r"sized\.tmx: tile layer 'walls' must hold 3 rows of 4 tile ids "
                                                    r"\(the map's size\), got a 6 x 2 layer with 2 rows of \[6\] ids"):
        grid_from_tmx(pytmx.TiledMap(str(path)), "walls")
    path.write_text(TRANSFORMED_TMX.replace('width="4" height="3"\n', 'width="0" height="0"\n'), encoding="utf-8")
    with pytest.raises(gamenav.MapFormatError, match="must hold 0 rows of 0 tile ids"):
        grid_from_tmx(pytmx.TiledMap(str(path)), "walls")


def test_tmx_objects_without_area_are_ignored_and_nan_coordinates_named(tmp_path: FsPath) -> None:
    text = TINY_TMX.read_text(encoding="utf-8")
    path = tmp_path / "objects.tmx"
    (tmp_path / "tiles.png").write_bytes((TINY_TMX.parent / "tiles.png").read_bytes())
    for points in ("0,0 16,0", "0,0"):  # a polygon of 2 or 1 points encloses nothing, like a polyline
        path.write_text(text.replace('points="0,0 16,0 8,20"', f'points="{points}"'), encoding="utf-8")
        mesh = navmesh_from_tmx(pytmx.TiledMap(str(path)), "obstacles")
        assert mesh_area(mesh) == pytest.approx(96 * 64 - 24 * 16)
    path.write_text(text.replace('x="40" y="8"', 'x="nan" y="8"'), encoding="utf-8")
    with pytest.raises(gamenav.MapFormatError, match=r"objects\.tmx: object 1 of layer 'obstacles' has NaN or "
                                                    "infinite coordinates"):
        navmesh_from_tmx(pytmx.TiledMap(str(path)), "obstacles")


# -- drawing ------------------------------------------------------------------------------

def test_draw_grid_paints_blocked_cells_lines_and_respects_y_up() -> None:
    grid = gamenav.TileGrid.from_strings(["..#", "#..", "..."], cell_size=10, origin=(5, 5))
    surface = pygame.Surface((40, 40))
    surface.fill(WHITE)
    draw_grid(surface, grid, blocked_color=(200, 0, 0))
    # cell (2, 0) spans pixels x 25..34, y 5..14; cell (0, 1) spans x 5..14, y 15..24
    for pixel in [(25, 5), (34, 14), (5, 15), (14, 24)]:
        assert surface.get_at(pixel) == (200, 0, 0, 255), pixel
    for pixel in [(24, 5), (35, 14), (25, 15), (15, 20), (4, 15), (0, 0), (20, 30)]:
        assert surface.get_at(pixel) == WHITE, pixel

    draw_grid(surface, grid, blocked_color=(200, 0, 0), open_color=(0, 0, 90), line_color=(0, 255, 0))
    assert surface.get_at((20, 30)) == (0, 0, 90, 255)   # open cell (1, 2)
    assert surface.get_at((15, 22)) == (0, 255, 0, 255)  # the line between columns 0 and 1
    assert surface.get_at((0, 0)) == WHITE               # outside the grid

    flipped = gamenav.TileGrid(grid.walkable, cell_size=10, origin=(5, 5), y_up=True)
    surface.fill(WHITE)
    draw_grid(surface, flipped, blocked_color=(200, 0, 0))
    assert surface.get_at((30, 30)) == (200, 0, 0, 255)  # row 0 is now at the bottom
    assert surface.get_at((30, 10)) == WHITE
    assert flipped.world_to_cell([30, 30]).tolist() == [2, 0]


def test_draw_grid_translucent_overlay_blends() -> None:
    surface = pygame.Surface((10, 10))
    surface.fill(WHITE)
    draw_grid(surface, gamenav.TileGrid([[False]], cell_size=10), blocked_color=(0, 0, 0, 128))
    r, g, b, _ = surface.get_at((5, 5))
    assert 120 <= r <= 130 and r == g == b


def test_a_navmesh_where_a_grid_goes_and_other_wrong_objects_are_named() -> None:
    surface = pygame.Surface((40, 40))
    grid = gamenav.TileGrid(np.ones((3, 3), bool), cell_size=10)
    mesh = gamenav.NavMesh.from_grid(grid)
    path = gamenav.find_path(grid, (0, 0), (2, 2))
    calls = [  # each raised an AttributeError, TypeError or ValueError from inside the adapter
        (lambda: draw_grid(surface, mesh), "grid must be a gamenav.TileGrid, got NavMesh"),
        (lambda: draw_grid(grid, surface), "surface must be a pygame.Surface, got TileGrid"),
        (lambda: draw_path(path, surface), "surface must be a pygame.Surface, got Path"),
        (lambda: draw_path(surface, grid),
         r"path must be a gamenav.Path or an \(n, 2\) array of \(x, y\) numbers, got TileGrid"),
        (lambda: draw_path(surface, [("a", "b")]), "path must be a gamenav.Path or an"),
    ]
    for call, match in calls:
        with pytest.raises(gamenav.InvalidInputError, match=match):
            call()


def test_draw_path_polyline_and_dots() -> None:
    surface = pygame.Surface((60, 40))
    surface.fill(WHITE)
    grid = gamenav.TileGrid(np.ones((2, 3), dtype=bool), cell_size=20)
    path = gamenav.Path(gamenav.PathStatus.FOUND, 2.0, np.array([[0, 0], [1, 0], [1, 1]]),
                        grid.cell_to_world([[0, 0], [1, 0], [1, 1]]))
    draw_path(surface, path, color=(0, 0, 255), width=3, radius=4)
    for pixel in [(20, 10), (30, 10), (30, 20), (30, 30), (10, 13)]:  # on the lines, and a dot
        assert surface.get_at(pixel) == (0, 0, 255, 255), pixel
    for pixel in [(20, 25), (50, 10), (5, 30)]:
        assert surface.get_at(pixel) == WHITE, pixel
    before = pygame.image.tobytes(surface, "RGBA")
    draw_path(surface, gamenav.Path.none())
    assert pygame.image.tobytes(surface, "RGBA") == before
    with pytest.raises(gamenav.InvalidInputError, match=r"shape \(n, 2\), got \(4,\)"):
        draw_path(surface, [1.0, 2.0, 3.0, 4.0])


# -- PathFollower -------------------------------------------------------------------------

MAZE = [pygame.Rect(60, 0, 20, 140), pygame.Rect(140, 60, 20, 140), pygame.Rect(200, 100, 45, 15)]
CELL = 20


def maze() -> gamenav.TileGrid:
    return grid_from_rects(MAZE, size=(260, 200), cell_size=CELL)


def run(follower: PathFollower, frames: int, queue: object = None) -> list[tuple[float, float]]:
    """Step 60 FPS frames until arrival; every position must lie in a passable cell."""
    positions = []
    for _ in range(frames):
        if queue is not None:
            queue.update()  # type: ignore[attr-defined]
        follower.update(1 / 60)
        positions.append(follower.position)
        cell = follower._crowd.grid.world_to_cell(follower.position)
        assert follower._crowd.grid.is_passable(*cell.tolist()), (follower.position, cell)
        if follower.arrived or follower.failed:
            break
    return positions


def near(a: tuple[float, float], b: tuple[float, float]) -> bool:
    """Within the crowd's arrival distance (a quarter cell) plus its braking after arrival."""
    return math.dist(a, b) < 0.35 * CELL


# points at least a quarter cell (the agent radius) from every cell edge: the crowd keeps agents
# that far from walls and from the grid border
cell_point = st.tuples(st.integers(0, 12), st.integers(0, 9),
                       st.floats(0.25, 0.75), st.floats(0.25, 0.75))


@settings(max_examples=30, deadline=None)
@given(start=cell_point, goal=cell_point,
       options=st.sampled_from([{}, {"smooth": True}, {"algorithm": "jps"}, {"diagonal": "never"}]))
def test_follower_reaches_any_reachable_goal_without_entering_walls(start: tuple, goal: tuple,
                                                                    options: dict) -> None:
    grid = maze()
    if not (grid.is_passable(start[0], start[1]) and grid.is_passable(goal[0], goal[1])):
        return
    start_px = ((start[0] + start[2]) * CELL, (start[1] + start[3]) * CELL)
    goal_px = ((goal[0] + goal[2]) * CELL, (goal[1] + goal[3]) * CELL)
    follower = PathFollower(start_px, grid, speed=300, **options)
    follower.move_to(goal_px)
    optimal = gamenav.find_path(grid, (start[0], start[1]), (goal[0], goal[1]), **options).cost * CELL
    frames = run(follower, math.ceil((optimal + 2 * CELL) / 300 * 60) + 90)  # + speeding up, arrival
    assert follower.arrived and not follower.failed, len(frames)
    assert near(follower.position, goal_px)


def test_follower_speed_and_arrival() -> None:
    follower = PathFollower((10, 10), maze(), speed=120)
    follower.move_to((10, 190))                          # straight down column 0
    positions = np.array(run(follower, 400))
    steps = np.hypot(*np.diff(positions, axis=0).T)
    assert steps.max() == pytest.approx(2.0, abs=0.05)   # 120 px/s at 60 FPS
    assert steps[-1] < 1.0                               # slowed down for the arrival
    assert follower.arrived and near(follower.position, (10, 190))
    np.testing.assert_allclose(follower.remaining_path, [follower.position])  # nothing left ahead


def test_follower_diagonal_option_sets_the_movement_rule() -> None:
    follower = PathFollower((10, 10), maze(), speed=100, diagonal="never")
    follower.move_to((50, 50))
    cells = maze().world_to_cell(follower.path.points)
    steps = np.abs(np.diff(cells, axis=0)).sum(axis=1)
    assert steps.sum() == 4 and (steps <= 1).all()  # orthogonal only (the goal repeats its cell)


def test_follower_moves_a_sprite_and_replans_around_a_new_wall() -> None:
    grid = maze()
    sprite = pygame.sprite.Sprite()
    sprite.rect = pygame.Rect(0, 0, 8, 8)
    sprite.rect.center = (30, 190)
    follower = PathFollower(sprite, grid, speed=200)
    follower.move_to((110, 190))                         # straight along row 9, under the first wall
    assert [4, 9] in grid.world_to_cell(follower.path.points).tolist()
    run(follower, 10)
    assert sprite.rect.center == tuple(round(v) for v in follower.position)
    grid.set_walkable((4, 9), False)                     # wall off the route ahead of the sprite
    assert [4, 9] not in grid.world_to_cell(follower.path.points).tolist()
    run(follower, 300)                                   # asserts: never inside the new wall
    assert follower.arrived and near(follower.position, (110, 190))
    assert sprite.rect.center == tuple(round(v) for v in follower.position)


def test_follower_goal_in_a_wall_goes_next_to_it_and_unreachable_fails() -> None:
    follower = PathFollower((10, 10), maze(), speed=300)
    follower.move_to((70, 10))                           # inside the first wall, cell (3, 0)
    run(follower, 300)
    assert follower.arrived and maze().world_to_cell(follower.position).tolist() in ([2, 0], [4, 0])
    split = grid_from_rects([(100, 0, 20, 200)], size=(260, 200), cell_size=CELL)
    follower = PathFollower((10, 10), split, speed=300)
    follower.move_to((200, 100))                         # the other side of a full-height wall
    run(follower, 60)
    assert follower.failed and not follower.arrived and follower.position == (10.0, 10.0)


@pytest.mark.parametrize("args, kwargs, match", [
    (((10, 10),), dict(speed=0), "speed must be a finite number > 0, got 0"),
    (((10, 10),), dict(speed=1, radius=-1), "radius must be a finite number > 0, got -1"),
    (((70, 10),), dict(speed=1), "must lie on a passable cell"),
    (((10,),), dict(speed=1), r"target must be a finite \(x, y\) pair.*, got \(10,\)"),
])
def test_follower_bad_arguments(args: tuple, kwargs: dict, match: str) -> None:
    with pytest.raises(gamenav.InvalidInputError, match=match):
        PathFollower(*args, maze(), **kwargs)
    with pytest.raises(gamenav.InvalidInputError, match="TileGrid, got list"):
        PathFollower((10, 10), [[True]], speed=1)  # type: ignore[arg-type]
    with pytest.raises(gamenav.InvalidInputError, match=r"goal must be a finite \(x, y\) pair"):
        PathFollower((10, 10), maze(), speed=1).move_to((math.nan, 1))


def test_follower_through_a_path_queue_holds_still_until_answered() -> None:
    grid = maze()
    queue = gamenav.PathQueue(budget_ms=None, max_expansions=10)  # deterministic, many frames
    follower = PathFollower((10, 10), grid, speed=300, queue=queue)
    follower.move_to((250, 10))
    follower.move_to((250, 190))
    assert (queue.stats.cancelled, len(queue)) == (1, 1)          # a new order cancels the old one
    waited = 0
    while len(queue):
        assert follower.position == (10.0, 10.0)
        run(follower, 1, queue)
        waited += 1
    assert waited > 3 and queue.stats.completed == 1
    run(follower, 600, queue)
    assert follower.arrived and near(follower.position, (250, 190))


def test_follower_avoids_a_wall_built_before_it_collects_its_path() -> None:
    grid = maze()
    queue = gamenav.PathQueue(budget_ms=None, max_expansions=10_000)
    follower = PathFollower((30, 190), grid, speed=200, queue=queue)
    follower.move_to((110, 190))
    queue.update()                                   # answered: straight along row 9
    grid.set_walkable((4, 9), False)                 # edited before the follower collects it
    run(follower, 400, queue)                        # asserts: never inside the new wall
    assert follower.arrived and near(follower.position, (110, 190))


# -- packaging and the example ------------------------------------------------------------

def test_import_error_names_the_pygame_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "pygame", None)
    monkeypatch.delitem(sys.modules, "gamenav.adapters.pygame")
    with pytest.raises(ImportError, match=r'checkout install it with: pip install -e "\.\[pygame\]"'):
        importlib.import_module("gamenav.adapters.pygame")


def test_gamenav_does_not_import_the_adapter() -> None:
    code = ("import sys, gamenav; "
            "print('pygame' in sys.modules, 'gamenav.adapters.pygame' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]


def test_example_runs_headless_and_arrives() -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SDL_")}  # the example sets them
    out = subprocess.run([sys.executable, str(ROOT / "examples" / "pygame_example.py"), "--headless",
                          "--frames", "600"], capture_output=True, text=True, timeout=300, env=env)
    assert out.returncode == 0, out.stderr
    summary = re.search(r"frames=600 arrived=True failed=False position=\((.+), (.+)\) navmesh_path=FOUND",
                        out.stdout)
    assert summary, out.stdout
    assert math.dist((float(summary[1]), float(summary[2])), (600, 440)) < 0.35 * 32
    assert "ALSA" not in out.stderr


def test_pygame_draw_grid_paints_only_the_surface_not_the_whole_map() -> None:
    """draw_grid scaled an image of the whole map (every cell at its pixel size) before blitting:
    a 2048 x 2048 map of 16-pixel cells took a 4 GB surface per call, and bigger ones raised
    pygame.error (out of memory) though the screen showed a few cells."""
    walkable = np.ones((10, 10), bool)
    walkable[0, 1] = walkable[1, 0] = False
    grid = gamenav.TileGrid(walkable, cell_size=40_000, origin=(-39_990, -39_980))  # 400 000 px square
    surface = pygame.Surface((30, 30))
    surface.fill((255, 255, 255))
    draw_grid(surface, grid, blocked_color=(200, 0, 0), open_color=(0, 0, 90), line_color=(0, 255, 0))
    # cells (0, 0) | (1, 0) meet at x = 10, rows 0 | 1 at y = 20 (where the lines are)
    assert surface.get_at((5, 5)) == (0, 0, 90, 255) and surface.get_at((15, 5)) == (200, 0, 0, 255)
    assert surface.get_at((5, 25)) == (200, 0, 0, 255) and surface.get_at((15, 25)) == (0, 0, 90, 255)
    assert surface.get_at((10, 3)) == surface.get_at((3, 20)) == (0, 255, 0, 255)
