"""Adversarial review of the engine adapters: arcade sprites with extreme or broken numbers,
Tiled maps with group layers and object layers, pygame rectangles on fractional cells and mask
thresholds met exactly, drawing and following with inputs of the wrong kind or of another mesh.
Each test fails on the code before its fix."""

from __future__ import annotations

import os
import re
import warnings
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

import numpy as np
import pytest

import arcade  # noqa: E402  (after ARCADE_HEADLESS is set by conftest)
import pygame  # noqa: E402  (after SDL_VIDEODRIVER is set by conftest)
import pytiled_parser  # noqa: E402
import pytmx  # noqa: E402
import shapely  # noqa: E402
from pytiled_parser import tiled_object  # noqa: E402

import gamenav  # noqa: E402
from gamenav import InvalidInputError, MapFormatError  # noqa: E402
from gamenav.adapters.arcade import (PathFollower, draw_expansions, draw_grid, draw_navmesh, draw_path,  # noqa: E402
                                     grid_from_sprites, grid_from_tilemap, navmesh_from_tilemap)
from gamenav.adapters import pygame as pygame_adapter  # noqa: E402
from gamenav.adapters.pygame import grid_from_mask, grid_from_rects  # noqa: E402


@pytest.mark.parametrize("x", [float("nan"), float("inf")])
def test_a_wall_sprite_at_nan_or_inf_is_refused_clearly(x: float) -> None:
    """A NaN wall sprite raised shapely's GEOSException; one at inf was dropped (with a
    RuntimeWarning from casting inf to int) and its wall silently lost."""
    walls = arcade.SpriteList()
    walls.append(arcade.SpriteSolidColor(32, 64, center_x=x, center_y=32))
    with pytest.raises(InvalidInputError, match="finite hit boxes"):
        grid_from_sprites(walls, size=(128, 64), cell_size=32)


def test_a_wall_sprite_wider_than_int64_cells_blocks_the_cells_it_covers() -> None:
    """Cell ranges were cast to int before clipping: a sprite 1e30 wide overflowed the cast and
    blocked nothing (with a RuntimeWarning)."""
    walls = arcade.SpriteList()
    walls.append(arcade.SpriteSolidColor(32, 32, center_x=48, center_y=16))
    walls[0].width = 1e30
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        grid = grid_from_sprites(walls, size=(128, 64), cell_size=32)
    assert grid.passable.astype(int).tolist() == [[1, 1, 1, 1], [0, 0, 0, 0]]


def _tiny_map(data_dir: Path) -> Any:
    """The tiny test map as pytiled_parser reads it (to be edited, then loaded by arcade)."""
    return pytiled_parser.parse_map(data_dir / "tiled" / "tiny.json")


def test_a_tile_layer_inside_group_layers_is_found(data_dir: Path) -> None:
    """arcade loads tile layers nested in group layers (``sprite_lists["walls"]``), but
    grid_from_tilemap looked only at the top-level layers: "tile layer 'walls' not found"."""
    tiled_map = _tiny_map(data_dir)
    walls = tiled_map.layers[1]
    tiled_map.layers[1] = pytiled_parser.LayerGroup(
        name="level", layers=[pytiled_parser.LayerGroup(name="solid", layers=[walls])])
    tile_map = arcade.TileMap(tiled_map=tiled_map)
    grid = grid_from_tilemap(tile_map, "walls")
    sprite_cells = {tuple(grid.world_to_cell(s.position).tolist()) for s in tile_map.sprite_lists["walls"]}
    assert {(int(x), int(y)) for y, x in np.argwhere(~grid.passable)} == sprite_cells
    assert len(sprite_cells) == 5


@pytest.mark.parametrize("scaling", [1.0, 2.0])
def test_object_layer_shapes_are_placed_like_the_tile_sprites(data_dir: Path, scaling: float) -> None:
    """navmesh_from_tilemap read arcade's ``object_lists``, which lose what Tiled drew: an open
    polyline became a closed obstacle, an ellipse landed below the map (y negated) and was lost,
    a rotated rectangle was not rotated, and with ``scaling=2`` polygons stayed unscaled."""
    tiled_map = _tiny_map(data_dir)
    at, size = tiled_object.OrderedPair, tiled_object.Size
    tiled_map.layers[2].tiled_objects += [
        tiled_object.Polyline(id=3, coordinates=at(60, 10), size=size(0, 0),
                              points=[at(0, 0), at(30, 0), at(30, 40)]),
        tiled_object.Ellipse(id=4, coordinates=at(64, 40), size=size(16, 16)),
        tiled_object.Rectangle(id=5, coordinates=at(80, 20), size=size(12, 4), rotation=90),
    ]
    offset = (100.0, 50.0)
    tile_map = arcade.TileMap(tiled_map=tiled_map, scaling=scaling, offset=arcade.math.Vec2(*offset))
    mesh = navmesh_from_tilemap(tile_map, "obstacles")

    def world(x: float, y: float) -> tuple[float, float]:  # Tiled map pixels -> arcade world
        return x * scaling + offset[0], (64 - y) * scaling + offset[1]

    blocked = {"rock": (48, 14), "wall": (20, 48), "pond": (72, 48), "beam": (78, 26)}
    free = {"inside the polyline's bend": (85, 20), "where the beam lay before its rotation": (88, 22)}
    assert (mesh.locate([world(*p) for p in blocked.values()]) == -1).all()
    assert (mesh.locate([world(*p) for p in free.values()]) >= 0).all()


@pytest.mark.parametrize("axis", [0, 1])
def test_rects_on_fractional_cells_block_only_the_cells_they_overlap(axis: int) -> None:
    """Cell ranges were floor / ceil of float quotients: a wall from x = 0.3 to 0.5 on 0.1 cells
    (0.3 / 0.1 = 2.9999999999999996) also blocked cell 2, whose edge it only touches."""
    for k in range(98):
        rect = (k * 0.1, 0.0, 0.2, 0.1) if axis == 0 else (0.0, k * 0.1, 0.1, 0.2)
        size = (10.0, 0.1) if axis == 0 else (0.1, 10.0)
        blocked = np.flatnonzero(~grid_from_rects([rect], size=size, cell_size=0.1).passable.ravel())
        assert blocked.tolist() == [k, k + 1], (k, blocked.tolist())


@pytest.mark.parametrize(("cell_size", "count"), [(5, 7), (10, 28), (10, 7)])
def test_a_mask_cell_with_exactly_the_threshold_fraction_set_is_blocked(cell_size: int, count: int) -> None:
    """The threshold was compared as ``count >= threshold * area``: 0.28 * 25 is 7.000000000000001,
    so a 5-pixel cell with 7 of its 25 pixels set stayed open under ``threshold=0.28``."""
    mask = pygame.mask.Mask((cell_size, cell_size))
    for i in range(count):
        mask.set_at((i % cell_size, i // cell_size))
    threshold = float(f"{count / cell_size ** 2:.6g}")  # as a user writes it: 0.28, 0.07
    assert not grid_from_mask(mask, cell_size=cell_size, threshold=threshold).passable[0, 0]
    assert grid_from_mask(mask, cell_size=cell_size, threshold=threshold + 0.01).passable[0, 0]


@pytest.mark.parametrize("points", [[], (), np.zeros(0)])
def test_arcade_draw_path_of_no_points_draws_nothing(points: Any) -> None:
    """``draw_path([])`` raised "path points must have shape (n, 2), got (0,)" in the arcade
    adapter, while the pygame adapter's ``draw_path`` draws nothing for an empty list."""
    draw_path(points)


@pytest.fixture(scope="module")
def window() -> Any:
    win = arcade.Window(200, 160, "gamenav adversarial tests", visible=False)
    yield win
    win.close()


def test_draw_navmesh_refuses_a_path_of_another_mesh(window: Any) -> None:
    """A path whose corridor names triangles the drawn mesh does not have (found on another
    mesh, e.g. before the level was rebuilt) raised IndexError from inside the adapter."""
    grid = gamenav.TileGrid.from_strings([".....", "####.", ".....", ".####", "....."])
    path = gamenav.find_path(gamenav.NavMesh.from_grid(grid), (0.5, 0.5), (0.5, 4.5))
    small = gamenav.NavMesh.from_polygons(shapely.box(0, 0, 10, 10))
    assert path.found and path.corridor.max() >= len(small.triangles)
    with pytest.raises(InvalidInputError, match=r"path's corridor must hold triangle ids of this mesh \(0 to 1\)"):
        draw_navmesh(small, path=path)


@pytest.mark.parametrize("values", [[["a", "b"], ["c", "d"]], [[1.0, None], [2.0, 3.0]]])
def test_draw_expansions_refuses_values_that_are_not_numbers(window: Any, values: Any) -> None:
    """Strings or None in the field raised numpy's TypeError ("ufunc 'isfinite' not supported")."""
    grid = gamenav.TileGrid(np.ones((2, 2), bool))
    with pytest.raises(InvalidInputError, match="values must be a bool mask or a field of numbers, got dtype"):
        draw_expansions(grid, np.array(values))


def test_a_grid_wider_than_a_texture_is_drawn_across_the_seams(window: Any) -> None:
    """A 2 x 20000 grid's picture was one 20000-pixel texture: arcade raised AllocatorException (the
    atlas holds 16384 a side); cells 1000-1199 around a block seam are drawn at one pixel each."""
    grid = gamenav.TileGrid(np.random.default_rng(5).random((2, 20000)) < 0.5, origin=(-1000, 0), y_up=True)
    shown = np.asarray(~grid.passable[:, 1000:1200])
    window.clear(color=(0, 0, 0, 255))
    draw_grid(grid, blocked_color=(0, 0, 255, 255), line_color=None)
    assert np.array_equal((np.asarray(arcade.get_image().convert("RGB"))[-2:] == (0, 0, 255)).all(axis=2), shown)
    window.clear(color=(0, 0, 0, 255))
    draw_expansions(grid, ~grid.passable, alpha=255)
    assert np.array_equal((np.asarray(arcade.get_image().convert("RGB"))[-2:] == (255, 220, 60)).all(axis=2), shown)


def test_draw_expansions_of_a_huge_negative_value_warns_of_nothing(window: Any) -> None:
    """A field holding -1e308 overflowed when scaled to its 8 shades: RuntimeWarnings "overflow
    encountered in multiply" and "invalid value encountered in cast" on every frame."""
    grid = gamenav.TileGrid(np.ones((1, 4), bool), cell_size=10, y_up=True)
    window.clear(color=(0, 0, 0, 255))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        draw_expansions(grid, np.array([[-1e308, 0.0, 1.0, 2.0]]), alpha=255)
    drawn = (np.asarray(arcade.get_image().convert("RGB"))[-5, 5:40:10] != 0).any(axis=1)
    assert drawn.tolist() == [False, True, True, True]


def test_a_sprite_at_nan_is_named_when_it_starts_a_follower() -> None:
    """A follower's sprite at NaN was refused as "start must be a finite (x, y) pair", an
    argument the arcade PathFollower does not have."""
    grid = gamenav.TileGrid.from_strings(["....", "...."], cell_size=32, y_up=True)
    sprite = arcade.SpriteSolidColor(8, 8, center_x=float("nan"), center_y=16)
    with pytest.raises(InvalidInputError, match=r"^the sprite's position must be a finite \(x, y\) pair"):
        PathFollower(sprite, grid, speed=100)


def test_an_object_at_nan_is_a_map_format_error(data_dir: Path) -> None:
    """A Tiled rectangle at x = NaN raised shapely's GEOSException ("Points of LinearRing do not
    form a closed linestring") from inside navmesh_from_tilemap."""
    tiled_map = _tiny_map(data_dir)
    tiled_map.layers[2].tiled_objects.append(tiled_object.Rectangle(
        id=9, coordinates=tiled_object.OrderedPair(float("nan"), 5), size=tiled_object.Size(4, 4)))
    with pytest.raises(MapFormatError, match=r"tiny\.json: object 9 of layer 'obstacles' has NaN or infinite"):
        navmesh_from_tilemap(arcade.TileMap(tiled_map=tiled_map), "obstacles")


@pytest.mark.parametrize("highlight", [[True, False], np.array([0.0, 1.5])])
def test_draw_navmesh_refuses_highlights_that_are_not_ids(window: Any, highlight: Any) -> None:
    """Bools and floats were cast to ids: the mask ``[True, False]`` highlighted triangles 1 and
    0, ``1.5`` highlighted triangle 1."""
    mesh = gamenav.NavMesh.from_polygons(shapely.box(0, 0, 10, 10))
    with pytest.raises(InvalidInputError, match="highlight must be triangle ids"):
        draw_navmesh(mesh, highlight=highlight)


@pytest.mark.parametrize(("size", "cell_size"), [((10, 10), 5e-324), ((1e308, 1.0), 1e-300)])
def test_a_grid_size_overflowing_cells_is_too_big_not_an_overflow(size: tuple[float, float], cell_size: float) -> None:
    """``10 / 5e-324`` cells is inf: ``math.ceil(inf)`` raised a bare OverflowError."""
    with pytest.raises(InvalidInputError, match=r"grid: more than 134217728 cells"):
        grid_from_rects([], size=size, cell_size=cell_size)


@pytest.mark.parametrize("call", [
    lambda: grid_from_mask(pygame.mask.Mask((4, 4)), cell_size=10**400),
    lambda: grid_from_mask(pygame.mask.Mask((4, 4)), cell_size=2, threshold=10**400),
    lambda: grid_from_rects([(10**400, 0, 5, 5)], size=(10, 10), cell_size=1),
    lambda: draw_path([(10**400, 0), (1, 1)]),
    lambda: pygame_adapter.draw_path(pygame.Surface((10, 10)), [(10**400, 0), (1, 1)]),
], ids=["mask cell_size", "mask threshold", "rect", "arcade path", "pygame path"])
def test_an_int_beyond_float64_is_refused_clearly(call: Any) -> None:
    """An int beyond float64 (10**400) raised a bare OverflowError ("int too large to convert to
    float") from ``float()`` or numpy inside the adapters."""
    with pytest.raises(InvalidInputError, match="must be"):
        call()


def test_a_rect_holding_a_bool_is_refused() -> None:
    """numpy read ``(True, 0, 1, 1)`` as the rectangle at x = 1 and blocked cell (1, 0); a bool
    among numbers is refused elsewhere (crowd positions, costs, world points)."""
    with pytest.raises(InvalidInputError, match=r"rects must be \(x, y, w, h\) rectangles of numbers"):
        grid_from_rects([(True, 0, 1, 1)], size=(4, 4), cell_size=1)
    assert not grid_from_rects([(1, 0, 1, 1)], size=(4, 4), cell_size=1).passable[0, 1]


@pytest.mark.parametrize("rects", [[("0", "0", "10", "10")], np.array([[True, False, True, True]])],
                         ids=["strings", "bool array"])
def test_rects_of_strings_or_bools_are_refused(rects: Any) -> None:
    """The float64 cast read ``("0", "0", "10", "10")`` as a wall (cell (0, 0) blocked) and a
    bool array as numbers (a list holding a bool was refused)."""
    with pytest.raises(InvalidInputError, match=r"rects must be \(x, y, w, h\) rectangles of numbers"):
        grid_from_rects(rects, size=(20, 20), cell_size=10)


def test_a_self_crossing_hit_box_blocks_the_cells_it_encloses() -> None:
    """A bow-tie hit box (a custom ``HitBox`` whose outline crosses itself) raised shapely's
    GEOSException ("TopologyException: side location conflict") from grid_from_sprites."""
    wall = arcade.SpriteSolidColor(96, 32, center_x=64, center_y=16)
    wall.hit_box = arcade.hitbox.HitBox([(-48, -16), (48, 16), (48, -16), (-48, 16)], position=(64, 16))
    grid = grid_from_sprites([wall], size=(160, 64), cell_size=16)
    # two triangles meeting at (64, 16), over x = 16 .. 112 and y = 0 .. 32: cells 1-6 of rows 2-3
    expected = np.ones((4, 10), bool)
    expected[2:, 1:7] = False
    assert grid.passable.tolist() == expected.tolist()


def test_pygame_draw_grid_of_sub_pixel_cells_draws_its_lines() -> None:
    """Cells of 1e-320 pixels gave an infinite line index: ``int(inf)`` raised OverflowError
    (after numpy's "overflow encountered in divide" RuntimeWarning)."""
    grid = gamenav.TileGrid(np.ones((3, 3), bool), cell_size=1e-320)
    surface = pygame.Surface((8, 8))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        pygame_adapter.draw_grid(surface, grid, line_color=(255, 0, 0))
    assert surface.get_at((0, 0))[:3] == (255, 0, 0)  # every line on pixel 0
    assert surface.get_at((1, 1))[:3] == (0, 0, 0)


@pytest.mark.parametrize(("option", "value"), [("width", 1.5), ("width", 2**31), ("width", 10**400), ("width", "3"),
                                             ("radius", 10**30), ("radius", float("nan")), ("radius", "3")])
def test_pygame_draw_path_refuses_widths_and_radii_that_are_not_pixels(option: str, value: Any) -> None:
    """pygame's own TypeError ("'float' object cannot be interpreted as an integer", "radius argument
    must be a number") or OverflowError came out of draw_path, and a NaN radius drew nothing."""
    with pytest.raises(InvalidInputError, match=f"{option} must be an? (int|number) of pixels below 2\\*\\*31"):
        pygame_adapter.draw_path(pygame.Surface((10, 10)), [(1, 1), (5, 5)], **{option: value})
    pygame_adapter.draw_path(pygame.Surface((10, 10)), [(1, 1), (5, 5)], width=3, radius=2.5)


@pytest.mark.parametrize("x", [float("nan"), float("inf")])
@pytest.mark.parametrize("draw", [lambda pts: pygame_adapter.draw_path(pygame.Surface((50, 50)), pts, radius=0),
                                  draw_path], ids=["pygame", "arcade"])
def test_draw_path_refuses_points_at_nan_or_inf(draw: Any, x: float) -> None:
    """pygame drew ``[(nan, 10), (40, 40)]`` as a line from (40, 40) to the surface's left edge
    (82 pixels lit); the arcade adapter sent NaN to the GPU."""
    with pytest.raises(InvalidInputError, match=r"path points must be finite \(got NaN or inf\)"):
        draw([(x, 10), (40, 40)])


def test_a_pygame_sprite_whose_rect_is_a_tuple_is_refused_clearly() -> None:
    """A sprite with ``rect = (10, 10, 4, 4)`` (pygame draws such sprites) raised AttributeError
    ("'tuple' object has no attribute 'center'") from inside the pygame PathFollower."""
    grid = grid_from_rects([], size=(40, 40), cell_size=10)
    sprite = pygame.sprite.Sprite()
    sprite.rect = (10, 10, 4, 4)
    with pytest.raises(InvalidInputError, match=r"the sprite's rect must be a pygame\.Rect or FRect, got \(10, 10"):
        pygame_adapter.PathFollower(sprite, grid, speed=10)


KINDS_TMX = """<?xml version="1.0" encoding="UTF-8"?>
<map version="1.10" tiledversion="1.10.2" orientation="orthogonal" renderorder="right-down" width="10"
     height="10" tilewidth="10" tileheight="10" infinite="0" nextlayerid="2" nextobjectid="6">
 <tileset firstgid="1" name="tiles" tilewidth="16" tileheight="16" tilecount="2" columns="2">
  <image source="tiles.png" width="32" height="16"/>
 </tileset>
 <objectgroup id="1" name="obstacles">
  <object id="1" name="wall" x="10" y="10" width="20" height="20"/>
  <object id="2" name="label" x="50" y="10" width="40" height="20"><text wrap="1">Gate</text></object>
  <object id="3" name="spawn" x="50" y="50"><point/></object>
  <object id="4" name="crate" gid="1" x="10" y="90" width="16" height="16"/>
  <object id="5" name="trail" x="60" y="60"><polyline points="0,0 30,0 30,30"/></object>
 </objectgroup>
</map>
"""


def test_text_point_and_tile_objects_cut_no_holes_in_either_adapter(tmp_path: Path) -> None:
    """pytmx keeps no text or point flag: navmesh_from_tmx cut a text label (50..90 x 10..30) and a
    tile object (a crate sprite) out of the mesh, 8544 of 10000 pixels left where the one
    rectangle leaves 9600; navmesh_from_tilemap (pytiled_parser's classes) ignored them already."""
    path = tmp_path / "kinds.tmx"
    path.write_text(KINDS_TMX, encoding="utf-8")
    (tmp_path / "tiles.png").write_bytes(gamenav.data.path("tiles.png").read_bytes())
    label, spawn, crate = (70, 20), (50, 50), (18, 82)
    for radius in (0, 2):
        mesh = pygame_adapter.navmesh_from_tmx(pytmx.TiledMap(str(path)), "obstacles", agent_radius=radius)
        assert (mesh.locate([label, spawn, crate]) >= 0).all() and mesh.locate([(20, 20)])[0] == -1
    assert _mesh_area(pygame_adapter.navmesh_from_tmx(pytmx.TiledMap(str(path)), "obstacles")) == pytest.approx(9600)
    arcade_mesh = navmesh_from_tilemap(arcade.load_tilemap(path), "obstacles")  # (y up: rows flipped)
    assert _mesh_area(arcade_mesh) == pytest.approx(9600)


def test_a_pygame_object_layer_filtered_in_code_keeps_the_shapes_of_its_objects(tmp_path: Path) -> None:
    """navmesh_from_tmx matched pytmx's objects to the file's by position and refused a layer whose
    list was edited (objects removed or reordered in code: "holds the objects [1, 2, 3, 4, 5] in the
    file but [5, 4, 2, 1] in tmx_map"); objects are matched by id, and the text label stays no obstacle."""
    path = tmp_path / "kinds.tmx"
    path.write_text(KINDS_TMX, encoding="utf-8")
    (tmp_path / "tiles.png").write_bytes(gamenav.data.path("tiles.png").read_bytes())
    tmx_map = pytmx.TiledMap(str(path))
    group = tmx_map.get_layer_by_name("obstacles")
    group[:] = [obj for obj in group[::-1] if obj.name != "spawn"]  # (ids 5, 4, 2, 1)
    mesh = pygame_adapter.navmesh_from_tmx(tmx_map, "obstacles")
    assert _mesh_area(mesh) == pytest.approx(9600) and mesh.locate([(70, 20)])[0] >= 0


def _mesh_area(mesh: gamenav.NavMesh) -> float:
    tri = mesh.vertices[mesh.triangles]
    a, b = tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0]
    return float(np.abs(a[:, 0] * b[:, 1] - a[:, 1] * b[:, 0]).sum() / 2)


_NAVMESH_LOADERS = [lambda path: pygame_adapter.navmesh_from_tmx(pytmx.TiledMap(str(path)), "obstacles"),
                    lambda path: navmesh_from_tilemap(arcade.load_tilemap(path), "obstacles")]


@pytest.mark.parametrize("load", _NAVMESH_LOADERS, ids=["pygame", "arcade"])
@pytest.mark.parametrize("wall", ['width="20" height="20" rotation="inf"/>',
                                  'width="inf" height="20"><ellipse/></object>'])
def test_an_infinite_rotation_or_size_is_a_map_format_error_naming_the_object(tmp_path: Path, load: Any,
                                                                              wall: str) -> None:
    """A rotation of inf raised pytmx's "ValueError: math domain error" in navmesh_from_tmx, and
    RuntimeWarnings ("invalid value encountered in cos") before the MapFormatError in
    navmesh_from_tilemap, as did an ellipse of infinite width."""
    path = tmp_path / "bad.tmx"
    path.write_text(KINDS_TMX.replace('width="20" height="20"/>', wall), encoding="utf-8")
    (tmp_path / "tiles.png").write_bytes(gamenav.data.path("tiles.png").read_bytes())
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(MapFormatError, match=r"bad\.tmx: object 1 of layer 'obstacles' has (the rotation inf|NaN)"):
            load(path)


def test_a_pygame_object_made_from_a_template_is_read_or_refused(tmp_path: Path) -> None:
    """pytmx reads no templates: an object made from the template of a 30 x 30 rectangle was a
    rectangle of size 0 and cut nothing (9600 walkable pixels where arcade leaves 8700); such an
    object is now a MapFormatError, and one made from a point or tile template is ignored."""
    path = tmp_path / "templated.tmx"
    templated = '<object id="6" template="t.tx" x="50" y="50"/>\n  <object id="5"'
    path.write_text(KINDS_TMX.replace('<object id="5"', templated), encoding="utf-8")
    (tmp_path / "tiles.png").write_bytes(gamenav.data.path("tiles.png").read_bytes())
    template = '<?xml version="1.0" encoding="UTF-8"?>\n<template>\n {}\n</template>\n'
    (tmp_path / "t.tx").write_text(template.format('<object width="30" height="30"/>'), encoding="utf-8")
    assert _mesh_area(navmesh_from_tilemap(arcade.load_tilemap(path), "obstacles")) == pytest.approx(8700)
    with pytest.raises(MapFormatError, match=r"templated\.tmx: object 6 of layer 'obstacles' is made from the "
                                             r"template 't\.tx', whose shape pytmx does not read"):
        pygame_adapter.navmesh_from_tmx(pytmx.TiledMap(str(path)), "obstacles")
    for base in ('<object><point/></object>', '<tileset firstgid="1" source="s.tsx"/>\n <object gid="1"/>'):
        (tmp_path / "t.tx").write_text(template.format(base), encoding="utf-8")
        mesh = pygame_adapter.navmesh_from_tmx(pytmx.TiledMap(str(path)), "obstacles")
        assert _mesh_area(mesh) == pytest.approx(9600)
    for damage in ("garble", "delete"):  # (a ParseError / FileNotFoundError naming neither)
        if damage == "garble":
            (tmp_path / "t.tx").write_text("<template", encoding="utf-8")
        else:
            (tmp_path / "t.tx").unlink()
        with pytest.raises(MapFormatError, match=r"templated\.tmx: object 6 of layer 'obstacles': cannot read its "
                                                 r"template 't\.tx'"):
            pygame_adapter.navmesh_from_tmx(pytmx.TiledMap(str(path)), "obstacles")


@pytest.mark.skipif(not os.path.exists("/dev/null"), reason="no /dev/null")
def test_a_pygame_template_that_never_ends_or_is_made_from_itself_is_refused(tmp_path: Path) -> None:
    """navmesh_from_tmx read templates with ElementTree.parse: one at a FIFO or /dev/stdin waited
    forever (pytmx, which reads no templates, had loaded the map: /dev/null here, which ends), and
    one made from itself (through another) raised RecursionError."""
    path = tmp_path / "templated.tmx"
    (tmp_path / "tiles.png").write_bytes(gamenav.data.path("tiles.png").read_bytes())
    template = '<?xml version="1.0" encoding="UTF-8"?>\n<template>\n <object template="{}"/>\n</template>\n'
    (tmp_path / "a.tx").write_text(template.format("b.tx"), encoding="utf-8")
    (tmp_path / "b.tx").write_text(template.format("a.tx"), encoding="utf-8")
    for name, match in (("/dev/null", r"template '/dev/null' \(/dev/null: expected a regular file, got a device"),
                        ("a.tx", r"templated\.tmx: object 6 of layer 'obstacles': its template 'a\.tx' is made from")):
        templated = f'<object id="6" template="{name}" x="50" y="50"/>\n  <object id="5"'
        path.write_text(KINDS_TMX.replace('<object id="5"', templated), encoding="utf-8")
        with pytest.raises(MapFormatError, match=match):
            pygame_adapter.navmesh_from_tmx(pytmx.TiledMap(str(path)), "obstacles")


def test_a_pygame_map_parsed_without_a_file_keeps_its_polylines_open() -> None:
    """navmesh_from_tmx of a map parsed from text (``filename`` None) read every object as a
    rectangle: a polyline became an obstacle."""
    text = re.sub(r" <tileset.*?</tileset>\n|  <object id=\"4\".*?\n", "", KINDS_TMX.split("\n", 1)[1], flags=re.S)
    tmx_map = pytmx.TiledMap()  # (pytmx loads a tileset's image from the map's folder: none here)
    tmx_map.parse_xml(ElementTree.fromstring(text))
    mesh = pygame_adapter.navmesh_from_tmx(tmx_map, "obstacles")
    assert mesh.locate([(85, 65)])[0] >= 0 and mesh.locate([(20, 20)])[0] == -1


@pytest.mark.parametrize("damage", ["delete", "garble"])
def test_a_pygame_map_whose_file_is_gone_still_loads_with_a_warning(tmp_path: Path, damage: str) -> None:
    """navmesh_from_tmx reads the map's file again for the objects' shapes: a file moved, deleted or
    rewritten after pytmx loaded it raised FileNotFoundError / ParseError; the mesh is built from
    pytmx's objects (its tile and polyline flags), with a warning naming the file."""
    path = tmp_path / "kinds.tmx"
    path.write_text(KINDS_TMX, encoding="utf-8")
    (tmp_path / "tiles.png").write_bytes(gamenav.data.path("tiles.png").read_bytes())
    tmx_map = pytmx.TiledMap(str(path))
    if damage == "delete":
        path.unlink()
    else:
        path.write_text("<map", encoding="utf-8")
    with pytest.warns(UserWarning, match=r"cannot read '.*kinds\.tmx' again .* layer 'obstacles'"):
        mesh = pygame_adapter.navmesh_from_tmx(tmx_map, "obstacles")
    crate, polyline_end = (18, 82), (85, 65)
    assert mesh.locate([crate, polyline_end]).min() >= 0 and mesh.locate([(20, 20)])[0] == -1


@pytest.mark.parametrize("load", _NAVMESH_LOADERS, ids=["pygame", "arcade"])
@pytest.mark.parametrize(("tiles", "error", "match"), [
    ("0", MapFormatError, r"sized\.tmx: tiles must be at least 1 pixel, got 0 x 0"),
    ("-10", MapFormatError, r"sized\.tmx: tiles must be at least 1 pixel, got -10 x -10"),
    (str(10**21), gamenav.InvalidGeometryError, r"walkable coordinates must lie in \[-1e\+15, 1e\+15\], got 1e\+22"),
])
def test_a_map_of_tiles_of_no_or_huge_size_is_refused_clearly(tmp_path: Path, load: Any, tiles: str,
                                                                error: type, match: str) -> None:
    """Tiles of -10 pixels gave a mesh of the map's rectangle mirrored to negative pixels, away from
    its objects; tiles of 0 "no walkable area left" naming no file; tiles of 10**21 pixels
    (beyond int64) a TypeError from numpy or shapely."""
    path = tmp_path / "sized.tmx"
    path.write_text(KINDS_TMX.replace('tilewidth="10" tileheight="10"', f'tilewidth="{tiles}" tileheight="{tiles}"'),
                    encoding="utf-8")
    (tmp_path / "tiles.png").write_bytes(gamenav.data.path("tiles.png").read_bytes())
    with pytest.raises(error, match=match):
        load(path)


@pytest.mark.parametrize("placement", [{"scaling": float("nan")}, {"offset": arcade.math.Vec2(float("nan"), 0)}])
def test_a_tilemap_placed_at_nan_is_refused_as_such(tmp_path: Path, placement: dict[str, Any]) -> None:
    """navmesh_from_tilemap of a map loaded with ``scaling=nan`` or a NaN ``offset`` blamed the
    map file: "object 1 of layer 'obstacles' has NaN or infinite coordinates"."""
    path = tmp_path / "placed.tmx"
    path.write_text(KINDS_TMX, encoding="utf-8")
    (tmp_path / "tiles.png").write_bytes(gamenav.data.path("tiles.png").read_bytes())
    with pytest.raises(InvalidInputError, match=r"tile_map\.(scaling|offset) must be a finite"):
        navmesh_from_tilemap(arcade.load_tilemap(path, **placement), "obstacles")


@pytest.mark.parametrize(("placement", "match"), [
    ({"scaling": -2.0}, r"tile_map\.scaling must be a finite number > 0, got -2\.0"),
    ({"scaling": 0.0}, r"tile_map\.scaling must be a finite number > 0, got 0\.0"),
    ({"offset": arcade.math.Vec2(float("nan"), 0)}, r"tile_map\.offset must be a finite \(x, y\) pair"),
])
def test_grid_from_tilemap_names_a_bad_scaling_or_offset(data_dir: Path, placement: dict[str, Any], match: str) -> None:
    """grid_from_tilemap of a map loaded with ``scaling=-2`` said "cell_size must be a finite number
    > 0, got -32.0" (no cell_size was given), and with a NaN offset "origin must be ..."."""
    with pytest.raises(InvalidInputError, match=match):
        grid_from_tilemap(arcade.load_tilemap(data_dir / "tiled" / "tiny.json", **placement), "walls")


@pytest.mark.parametrize("load", _NAVMESH_LOADERS, ids=["pygame", "arcade"])
def test_an_object_beyond_the_navmesh_range_is_a_map_format_error_naming_it(tmp_path: Path, load: Any) -> None:
    """An object at x = 1e300 raised InvalidGeometryError "obstacles coordinates must lie in
    [-1e+15, 1e+15], got 1e+300", naming neither the file nor the object."""
    path = tmp_path / "far.tmx"
    path.write_text(KINDS_TMX.replace('x="10" y="10" width="20"', 'x="1e300" y="10" width="20"'), encoding="utf-8")
    (tmp_path / "tiles.png").write_bytes(gamenav.data.path("tiles.png").read_bytes())
    with pytest.raises(MapFormatError, match=r"far\.tmx: object 1 of layer 'obstacles' has NaN or infinite "
                                             r"coordinates, or ones outside \[-1e\+15, 1e\+15\]: \[\[1e\+300, "):
        load(path)


def test_a_tiled_ellipse_gives_the_same_navmesh_in_both_adapters(tmp_path: Path) -> None:
    """navmesh_from_tmx took ellipses for their bounding rectangles (pytmx keeps no outline), while
    navmesh_from_tilemap makes them 32-gons: a 40 x 20 ellipse and a turned 20 x 30 one left 8600
    walkable pixels in pygame and 8907.5 in arcade, and the corner of the first's box was blocked."""
    path = tmp_path / "ponds.tmx"
    ponds = ('<object id="1" name="pond" x="10" y="10" width="40" height="20"><ellipse/></object>\n'
             '  <object id="6" name="rock" x="60" y="50" width="20" height="30" rotation="30"><ellipse/></object>')
    path.write_text(KINDS_TMX.replace('<object id="1" name="wall" x="10" y="10" width="20" height="20"/>', ponds),
                    encoding="utf-8")
    (tmp_path / "tiles.png").write_bytes(gamenav.data.path("tiles.png").read_bytes())
    pygame_mesh = pygame_adapter.navmesh_from_tmx(pytmx.TiledMap(str(path)), "obstacles")
    arcade_mesh = navmesh_from_tilemap(arcade.load_tilemap(path), "obstacles")
    pygame_area = shapely.union_all(shapely.polygons(pygame_mesh.vertices[pygame_mesh.triangles]))
    flipped = arcade_mesh.vertices * (1, -1) + (0, 100)  # (arcade's y up, 100 pixels high)
    arcade_area = shapely.union_all(shapely.polygons(flipped[arcade_mesh.triangles]))
    assert pygame_area.area == pytest.approx(arcade_area.area) == pytest.approx(8907.5, abs=0.1)
    assert pygame_area.symmetric_difference(arcade_area).area < 1e-6
    box_corner, centre = (12, 12), (30, 20)
    assert pygame_mesh.locate([box_corner])[0] >= 0 and pygame_mesh.locate([centre])[0] == -1


def test_pygame_draw_grid_paints_a_grid_again_only_when_it_or_the_drawing_changes(monkeypatch: Any) -> None:
    """draw_grid painted every cell under the clip area on every call (20 ms a frame for a
    1550 x 1550 map on a 1600 x 1600 surface, 49 ms with an open colour); the picture is kept per
    grid and painted again after an edit (which shows in the next drawing), for another clip area
    or other colours."""
    painted: list[Any] = []
    pixels3d = pygame.surfarray.pixels3d
    monkeypatch.setattr(pygame.surfarray, "pixels3d", lambda image: painted.append(image) or pixels3d(image))
    grid = gamenav.TileGrid.from_strings(["..#.", "...."], cell_size=10)
    surface = pygame.Surface((40, 20))
    for _ in range(3):
        pygame_adapter.draw_grid(surface, grid, blocked_color=(200, 0, 0), open_color=(0, 0, 90))
    assert len(painted) == 1 and surface.get_at((25, 5))[:3] == (200, 0, 0)
    grid.set_walkable((0, 1, 1, 2), False)  # cell (0, 1)
    grid.set_walkable((2, 0, 3, 1), True)   # cell (2, 0)
    pygame_adapter.draw_grid(surface, grid, blocked_color=(200, 0, 0), open_color=(0, 0, 90))
    assert len(painted) == 2
    assert surface.get_at((5, 15))[:3] == (200, 0, 0) and surface.get_at((25, 5))[:3] == (0, 0, 90)
    surface.set_clip((0, 0, 20, 20))
    pygame_adapter.draw_grid(surface, grid, blocked_color=(0, 200, 0), open_color=(0, 0, 90))
    pygame_adapter.draw_grid(surface, grid, blocked_color=(0, 200, 0), open_color=(0, 0, 90))
    assert len(painted) == 3 and surface.get_at((5, 15))[:3] == (0, 200, 0)


def test_arcade_draw_grid_makes_a_grids_lines_once(window: Any, monkeypatch: Any) -> None:
    """draw_grid built a list of the ends of every cell border in Python and sent it on every call
    (3102 lines, 4 ms of Python a frame for a 1550 x 1550 map); the lines are one line shape per
    grid kept in the GPU, and an edit's cells show in the next drawing."""
    made: list[Any] = []
    create_lines = arcade.shape_list.create_lines
    monkeypatch.setattr(arcade.shape_list, "create_lines", lambda *args: made.append(args) or create_lines(*args))
    grid = gamenav.TileGrid(np.ones((4, 5), bool), cell_size=20, origin=(10, 10), y_up=True)

    def drawn() -> Any:
        window.clear(color=(0, 0, 0, 255))
        draw_grid(grid, line_color=(0, 255, 0, 255), blocked_color=(0, 0, 255, 255))
        return np.asarray(arcade.get_image().convert("RGB"))[::-1]  # [y, x], y up

    for _ in range(3):
        image = drawn()
    assert len(made) == 1
    assert image[20:80:20, 30].tolist() == [[0, 255, 0]] * 3 and image[35, 35].tolist() == [0, 0, 0]
    grid.set_walkable((1, 2, 2, 3), False)  # cell (1, 2): world (30..50, 30..50)
    assert drawn()[40, 40].tolist() == [0, 0, 255] and len(made) == 1


class _SameSizeGrid(gamenav.TileGrid):
    """A game's grid class that counts two levels of one size as equal (hashed by size)."""

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _SameSizeGrid) and self.shape == other.shape

    def __hash__(self) -> int:
        return hash(self.shape)


class _UnhashableMesh(gamenav.NavMesh):
    def __eq__(self, other: object) -> bool:
        return self is other

    __hash__ = None  # type: ignore[assignment]


def test_drawings_are_kept_per_world_object_whatever_its_eq(window: Any) -> None:
    """The drawings' caches were weak dictionaries keyed by the world's own ``__eq__``/``__hash__``:
    a TileGrid or NavMesh subclass with ``__eq__`` alone raised "TypeError: unhashable type" from
    draw_grid, draw_expansions and draw_navmesh, and of two value-equal grids the second was drawn
    with the first's cells (a wall at x 0..10 where its wall is at 20..30)."""
    first, second = (_SameSizeGrid.from_strings([row], cell_size=10, y_up=True) for row in ("#..", "..#"))
    surface = pygame.Surface((30, 10))
    for grid in (first, second):
        surface.fill((0, 0, 0))
        pygame_adapter.draw_grid(surface, grid, blocked_color=(255, 0, 0))
    assert [surface.get_at((x, 5))[:3] for x in (5, 15, 25)] == [(0, 0, 0), (0, 0, 0), (255, 0, 0)]
    for grid in (first, second):
        window.clear(color=(0, 0, 0, 255))
        draw_grid(grid, blocked_color=(255, 0, 0, 255), line_color=None)
    assert np.asarray(arcade.get_image().convert("RGB"))[-5, 5:30:10].tolist() == [[0, 0, 0], [0, 0, 0], [255, 0, 0]]
    draw_navmesh(_UnhashableMesh.from_polygons(shapely.box(0, 0, 30, 10)))
    draw_expansions(first, first.passable)
    draw_grid(first)


def test_draw_navmesh_fills_its_highlighted_triangles_in_one_shape_made_once(window: Any, monkeypatch: Any) -> None:
    """draw_navmesh drew each highlighted triangle with its own draw call on every frame: a path's
    corridor of 512 triangles highlighted on a 1550 x 1550 map's mesh took 64.5 ms a frame, all
    14728 triangles 662 ms; they are one shape, made again only for other ids, colour or an edit."""
    made: list[Any] = []
    create = arcade.shape_list.create_triangles_filled_with_colors
    monkeypatch.setattr(arcade.shape_list, "create_triangles_filled_with_colors",
                        lambda points, colors: made.append(points) or create(points, colors))
    mesh = gamenav.NavMesh.from_polygons(shapely.box(0, 0, 200, 160))
    corners = mesh.vertices[mesh.triangles]

    def lit(ids: Any) -> Any:
        window.clear(color=(0, 0, 0, 255))
        draw_navmesh(mesh, color=(0, 0, 0, 0), highlight=ids, highlight_color=(255, 0, 0, 255))
        image = np.asarray(arcade.get_image().convert("RGB"))[::-1]  # [y, x], y up
        return [image[int(y), int(x), 0] == 255 for x, y in corners.mean(axis=1)]

    for _ in range(3):
        assert lit([0]) == [True] + [False] * (len(corners) - 1)
    assert len(made) == 1
    assert lit(np.arange(len(corners))) == [True] * len(corners) and len(made) == 2
    mesh.add_obstacle(shapely.box(90, 70, 110, 90))  # (kills both triangles)
    draw_navmesh(mesh, highlight=np.arange(len(corners)))
    assert len(made) == 2  # (nothing alive to fill)
    draw_navmesh(mesh, highlight=np.flatnonzero(mesh.alive))
    assert len(made) == 3 and len(made[-1]) == 3 * np.count_nonzero(mesh.alive)


def test_a_big_turned_wall_sprite_is_intersected_only_along_its_outline(monkeypatch: Any) -> None:
    """grid_from_sprites intersected a hit box with every cell of its bounding box (a sprite turned
    30 degrees over 1000 x 1000 cells took 12 s and 1 GB); blocks of cells inside it or apart from it
    are taken whole, so only cells along its outline are intersected, and the same cells are blocked."""
    intersected: list[int] = []
    intersection = shapely.intersection
    monkeypatch.setattr(shapely, "intersection", lambda a, b: intersected.append(np.size(b)) or intersection(a, b))
    walls = arcade.SpriteList()
    walls.append(arcade.SpriteSolidColor(160, 160, center_x=100, center_y=100))
    walls[0].angle = 30
    grid = grid_from_sprites(walls, size=(200, 200), cell_size=1)
    monkeypatch.undo()
    xs, ys = np.meshgrid(np.arange(200), np.arange(200))
    hit_box = shapely.Polygon(walls[0].hit_box.get_adjusted_points())
    every_cell = shapely.area(shapely.intersection(hit_box, shapely.box(xs, ys, xs + 1, ys + 1))) > 1e-9  # [y up, x]
    assert np.array_equal(~grid.passable, every_cell[::-1]) and every_cell.sum() > 25000
    assert sum(intersected) < every_cell.sum() / 10


@pytest.mark.parametrize("far", [3e9, 2.0**32 + 50, 1e300])
def test_pygame_draw_path_draws_the_visible_part_of_a_leg_to_a_far_point(far: float) -> None:
    """pygame walks a line pixel by pixel, off the surface too, and wraps pixel numbers beyond 2**31:
    a leg from (10, 10) to x = 3e9 took 1.7 s (1e8: 90 ms) and was drawn from x 0 to 10 instead of
    10 to 99, and a waypoint at x = 2**32 + 50 put a dot at x = 50; legs are cut 2**17 pixels off
    the clip area first."""
    surface = pygame.Surface((100, 100))
    pygame_adapter.draw_path(surface, [(10, 10), (far, 50)], color=(255, 0, 0), width=1, radius=3)
    lit = np.argwhere(pygame.surfarray.array3d(surface)[..., 0] > 0)  # (x, y)
    assert lit[:, 0].min() == 7 and lit[:, 0].max() == 99 and lit[:, 1].max() <= 13


class _EditedWhileDrawn(gamenav.NavMesh):
    """A mesh another thread edits right after the drawing starts reading it (whatever it reads first)."""

    armed = False

    def _edit_once(self) -> None:
        if self.armed:
            self.armed = False
            self.add_obstacle(shapely.box(90, 70, 110, 90))

    @property
    def vertices(self) -> Any:
        vertices = super().vertices
        self._edit_once()
        return vertices

    def _snapshot(self) -> gamenav.NavMesh:
        state = super()._snapshot()
        self._edit_once()
        return state


def test_draw_navmesh_reads_one_state_of_a_mesh_edited_meanwhile(window: Any, monkeypatch: Any) -> None:
    """draw_navmesh read the vertices, triangles, alive flags and version one by one: an edit landing
    between the reads (another thread's) gave it the triangles of the new state with the old
    vertices, and IndexError ("index 6 is out of bounds for axis 0 with size 4"); it draws one state,
    and the edit in the next drawing."""
    made: list[Any] = []
    create_lines = arcade.shape_list.create_lines
    monkeypatch.setattr(arcade.shape_list, "create_lines", lambda *args: made.append(args[0]) or create_lines(*args))
    mesh = _EditedWhileDrawn.from_polygons(shapely.box(0, 0, 200, 160))
    mesh.armed = True
    draw_navmesh(mesh, highlight=[0, 1])
    draw_navmesh(mesh, highlight=[0, 1])
    def edges(ends: Any) -> set[frozenset[tuple[float, float]]]:
        return {frozenset(map(tuple, pair)) for pair in np.reshape(ends, (-1, 2, 2)).tolist()}

    assert len(made) == 2 and len(edges(made[0])) == 5  # (the two triangles of the box before the edit)
    assert edges(mesh.vertices[mesh.portals]) <= edges(made[1])


@pytest.mark.parametrize("width", [float("nan"), -3.0, 0.0, "2", None, True])
@pytest.mark.parametrize("draw", ["path", "navmesh"])
def test_arcade_drawing_refuses_a_width_that_is_not_a_positive_number(window: Any, draw: str, width: Any) -> None:
    """arcade draw_path and draw_navmesh took any width: NaN and 0 drew nothing, -3 drew 3-pixel lines,
    True 1-pixel ones, and "2" or None raised arcade's "unsupported operand type(s) for /" or "must be
    real number"."""
    with pytest.raises(InvalidInputError, match=r"width must be a finite number > 0, got "):
        if draw == "path":
            draw_path([(0, 0), (100, 100)], width=width)
        else:
            draw_navmesh(gamenav.NavMesh.from_polygons(shapely.box(0, 0, 20, 10)), width=width)


def test_draw_expansions_repaints_only_when_its_values_change(window: Any, monkeypatch: Any) -> None:
    """draw_expansions repainted and uploaded its picture on every call: a 1550 x 1550 distance
    field shown each frame took 138 ms a frame (a bool mask 59 ms); it repaints when the values
    (also edited in place), their dtype or alpha change, and the same values cost a comparison."""
    from gamenav.adapters import arcade as arcade_adapter

    paints: list[Any] = []
    paint = arcade_adapter._CellPicture.paint
    monkeypatch.setattr(arcade_adapter._CellPicture, "paint",
                        lambda self, *args: paints.append(args) or paint(self, *args))
    grid = gamenav.TileGrid(np.ones((1, 4), bool), cell_size=10, y_up=True)
    field = np.array([[0.0, 1.0, np.nan, np.inf]])

    def shown() -> Any:
        window.clear(color=(0, 0, 0, 255))
        draw_expansions(grid, field, alpha=255)
        return np.asarray(arcade.get_image().convert("RGB"))[-5, 5:40:10].tolist()

    first = [shown() for _ in range(3)][-1]
    assert len(paints) == 1 and first[2:] == [[0, 0, 0], [0, 0, 0]]
    field[0, 2] = 0.5  # (in place)
    assert shown()[2] == arcade_adapter._FIELD_COLORS[4].tolist() and len(paints) == 2  # (half the largest)
    draw_expansions(grid, field.astype(np.float32), alpha=255)
    draw_expansions(grid, field.astype(np.float32), alpha=200)
    draw_expansions(grid, field < 1, alpha=200)
    draw_expansions(grid, (field < 1).astype(np.int64), alpha=200)
    assert len(paints) == 6


@pytest.mark.parametrize("y_up", [False, True])
def test_pygame_draw_grid_paints_again_only_where_an_edit_changed_cells(monkeypatch: Any, y_up: bool) -> None:
    """After an edit draw_grid painted its whole picture again: 130 ms for a 4 x 4 edit of a 1550 x
    1550 map on a 1600 x 1600 surface (with open_color); only the part over the changed cells is
    (1.5 ms), and the picture equals one painted afresh."""
    painted: list[tuple[int, int]] = []
    pixels3d = pygame.surfarray.pixels3d
    monkeypatch.setattr(pygame.surfarray, "pixels3d", lambda image: painted.append(image.get_size()) or pixels3d(image))
    rng = np.random.default_rng(12)
    grid = gamenav.TileGrid(rng.random((30, 40)) < 0.7, cell_size=2.5, origin=(3.5, -1), y_up=y_up)
    surface, fresh = pygame.Surface((120, 80), pygame.SRCALPHA), pygame.Surface((120, 80), pygame.SRCALPHA)
    colors = {"blocked_color": (200, 0, 0, 160), "open_color": (0, 0, 90, 70)}
    pygame_adapter.draw_grid(surface, grid, **colors)
    for x, y in ((5, 7), (0, 0), (39, 29)):
        grid.set_walkable((x, y, x + 1, y + 1), not grid.passable[y, x])
        surface.fill((0, 0, 0, 0))
        pygame_adapter.draw_grid(surface, grid, **colors)
        assert max(painted[-1]) <= 5  # (a cell of 2.5 pixels and a pixel each way)
        fresh.fill((0, 0, 0, 0))
        pygame_adapter.draw_grid(fresh, grid.copy(), **colors)
        assert pygame.image.tobytes(surface, "RGBA") == pygame.image.tobytes(fresh, "RGBA")
    assert painted[0] == (100, 74) and len(painted) == 7


def test_an_arcade_sprite_the_game_moves_walks_on_from_where_it_was_put() -> None:
    """A sprite teleported by the game (``sprite.position = (176, 16)``) snapped back on the next
    update ((22.7, 80): the follower wrote its agent's position over it). Now the follower
    puts its agent where the sprite was moved and it walks to its goal from there."""
    grid = gamenav.TileGrid.from_strings(["......", ".####.", "......"], cell_size=32, y_up=True)
    sprite = arcade.SpriteSolidColor(8, 8, center_x=16, center_y=80)
    follower = PathFollower(sprite, grid, speed=200)
    follower.move_to((176, 80))
    follower.update(1 / 60)
    sprite.position = (176, 16)  # a teleporter into the bottom row
    follower.update(1 / 60)
    assert sprite.position[0] == 176 and sprite.position[1] > 16  # (on its new way: up the right column)
    for _ in range(60):
        follower.update(1 / 60)
        assert grid.passable[tuple(grid.world_to_cell(np.array(sprite.position)).tolist()[::-1])]
    assert follower.arrived and sprite.position == (176, 80)
    sprite.center_x = 144  # a knockback of an idle sprite: it stands there
    follower.update(1 / 60)
    assert follower.arrived and sprite.position == (144, 80)
    sprite.position = (float("nan"), 16)
    with pytest.raises(InvalidInputError, match=r"^the sprite's position must be a finite \(x, y\) pair"):
        follower.update(1 / 60)


def test_a_pygame_sprite_the_game_moves_walks_on_from_its_new_rect_center() -> None:
    """A sprite whose ``rect.center`` the game moved snapped back on the next update (to the
    agent's old position). Now the agent is put at the new centre and walks on from there."""
    grid = grid_from_rects([(10, 10, 40, 10)], size=(60, 30), cell_size=10)
    sprite = pygame.sprite.Sprite()
    sprite.rect = pygame.Rect(0, 0, 4, 4)
    sprite.rect.center = (5, 5)
    follower = pygame_adapter.PathFollower(sprite, grid, speed=60)
    follower.move_to((55, 5))
    follower.update(1 / 30)
    sprite.rect.center = (55, 25)  # a teleporter into the bottom row
    follower.update(1 / 30)
    assert sprite.rect.centerx == 55 and sprite.rect.centery < 25
    for _ in range(30):
        follower.update(1 / 30)
    assert follower.arrived and sprite.rect.center == (55, 5)
    sprite.rect.move_ip(-20, 0)  # a knockback of an idle sprite: it stands there
    follower.update(1 / 30)
    assert follower.arrived and follower.position == (35.0, 5.0) and sprite.rect.center == (35, 5)


def test_a_sprite_the_game_moves_onto_a_wall_or_off_the_map_stops_beside_it() -> None:
    """A sprite knocked into a wall or off the map raised InvalidInputError from the follower's
    update ("every position must lie on a passable cell"), a traceback every frame: now the
    agent is put at the nearest point of the nearest free cell, its radius in from the sides,
    and walks on from there (arcade and pygame)."""
    grid = gamenav.TileGrid.from_strings(["......", ".####.", "......"], cell_size=32, y_up=True)
    sprite = arcade.SpriteSolidColor(8, 8, center_x=16, center_y=80)
    follower = PathFollower(sprite, grid, speed=200, radius=4)
    sprite.position = (80, 50)  # into the wall, nearer its top row (y 64..96)
    follower.update(1 / 60)
    assert follower.arrived and sprite.position == (80, 68)
    sprite.position = (-50, 20)  # off the map, beside the bottom-left cell
    follower.update(1 / 60)
    assert sprite.position == (4, 20)
    follower.move_to((176, 80))
    for _ in range(90):
        follower.update(1 / 60)
    assert follower.arrived and sprite.position == (176, 80)
    walls = grid_from_rects([(10, 10, 40, 10)], size=(60, 30), cell_size=10)
    body = pygame.sprite.Sprite()
    body.rect = pygame.Rect(0, 0, 4, 4)
    body.rect.center = (5, 5)
    walker = pygame_adapter.PathFollower(body, walls, speed=60, radius=2)
    body.rect.center = (35, 14)  # into the wall (rows y 10..20), nearer its top side
    walker.update(1 / 30)
    assert walker.position == (35.0, 8.0) and body.rect.center == (35, 8)


def test_an_arcade_sprite_the_game_nudges_every_frame_keeps_its_path_and_arrives() -> None:
    """A sprite the game nudged by a pixel or two every frame (physics resolving a collision, a
    small knockback) was re-pathed every frame: through a PathQueue its new path came only the
    next frame, when it had been nudged again, so it never walked (1.7 px in 5 s, of a 256 px
    way). A move of at most half a cell beside its route is a push: it keeps its path."""
    grid = gamenav.TileGrid.from_strings(["......", ".####.", ".####.", "......"], cell_size=32, y_up=True)
    queue = gamenav.PathQueue(budget_ms=None, max_expansions=10_000)
    sprite = arcade.SpriteSolidColor(8, 8, center_x=16, center_y=112)
    follower = PathFollower(sprite, grid, speed=100, queue=queue)
    follower.move_to((176, 16))
    queue.update()
    follower.update(1 / 60)
    route = follower.path
    for frame in range(300):  # (5 s)
        queue.update()
        sprite.center_x += (-2, 1, 2, -1)[frame % 4]
        follower.update(1 / 60)
        assert grid.passable[tuple(grid.world_to_cell(np.array(sprite.position)).tolist()[::-1])]
        if follower.arrived:
            break
    assert follower.arrived and sprite.position == (176, 16) and follower.path is route


def test_a_pygame_sprite_whose_rect_the_game_nudges_every_frame_arrives() -> None:
    """A rect moved a pixel every frame put the agent at the rect's centre, a whole pixel: the
    agent lost the part of a pixel it had walked, and slowing down for its goal (under half a
    pixel a frame) it walked no more (stuck 10 px short, re-pathing). The agent now moves as far
    as the rect did."""
    queue = gamenav.PathQueue(budget_ms=None, max_expansions=10_000)
    walls = grid_from_rects([(10, 10, 40, 10)], size=(60, 30), cell_size=10)
    body = pygame.sprite.Sprite()
    body.rect = pygame.Rect(0, 0, 4, 4)
    body.rect.center = (5, 5)
    walker = pygame_adapter.PathFollower(body, walls, speed=30, queue=queue)
    walker.move_to((55, 25))
    queue.update()
    walker.update(1 / 30)
    route = walker.path
    for frame in range(150):
        queue.update()
        body.rect.move_ip((1, -1)[frame % 2], 0)
        walker.update(1 / 30)
        if walker.arrived:
            break
    assert walker.arrived and walker.position == (55.0, 25.0) and walker.path is route


@pytest.mark.parametrize("smooth", [False, True])
@pytest.mark.parametrize("speed", [30, 100])
def test_a_game_that_rounds_sprites_to_whole_pixels_does_not_stop_its_followers(speed: float, smooth: bool) -> None:
    """A pixel-art game rounding ``sprite.position`` every frame looked to the PathFollower like a
    game moving the sprite: each rounding was a push, the slow steps were undone, and the unit was
    stuck and reported arrived 315 px short (speed 30) or 14-34 px short near its goal (speed
    60-100, where it slows down)."""
    grid = gamenav.TileGrid.from_strings(["..........", ".####.....", "..........", "......##..",
                                          ".........."], cell_size=32, y_up=True)
    sprite = arcade.SpriteSolidColor(8, 8, center_x=16, center_y=16)
    follower = PathFollower(sprite, grid, speed=speed, smooth=smooth)
    goal = (9 * 32 + 16, 4 * 32 + 16)
    follower.move_to(goal)
    for _ in range(60 * 30):
        follower.update(1 / 60)
        sprite.position = (round(sprite.position[0]), round(sprite.position[1]))
        if follower.arrived:
            break
    assert follower.arrived and not follower.failed
    assert sprite.position == goal


def test_a_sprite_moved_by_more_than_rounding_is_still_placed() -> None:
    """The rounding allowance is half a unit per axis: a knockback of one pixel moves the agent."""
    grid = gamenav.TileGrid(np.ones((4, 8), bool), cell_size=32, y_up=True)
    sprite = arcade.SpriteSolidColor(8, 8, center_x=16, center_y=16)
    follower = PathFollower(sprite, grid, speed=60)
    follower.update(1 / 60)
    sprite.position = (16.5, 15.5)  # rounding's worth: the agent stays where it was
    follower.update(1 / 60)
    assert follower.position == (16.0, 16.0)
    sprite.position = (17.0, 16.0)  # a push
    follower.update(1 / 60)
    assert follower.position == (17.0, 16.0)


def test_both_adapters_place_tiled_layer_offsets_alike(tmp_path: Path) -> None:
    """A layer's ``offsetx`` / ``offsety`` (Tiled moves its tiles and objects by them) moved the
    pygame grid and navmesh but not the arcade ones: grid origins (8, 4) and (0, 0)."""
    text = gamenav.data.path("tiny.tmx").read_text()
    text = text.replace('name="walls"', 'name="walls" offsetx="8" offsety="4"')
    text = text.replace('name="obstacles"', 'name="obstacles" offsetx="-6" offsety="10"')
    (tmp_path / "tiles.png").write_bytes(gamenav.data.path("tiles.png").read_bytes())
    (tmp_path / "moved.tmx").write_text(text)
    pixels = pygame_adapter.grid_from_tmx(pytmx.TiledMap(str(tmp_path / "moved.tmx")), "walls")
    tile_map = arcade.load_tilemap(tmp_path / "moved.tmx", lazy=True)
    world = grid_from_tilemap(tile_map, "walls")
    assert np.array_equal(world.passable, pixels.passable) and world.cell_size == pixels.cell_size == 16
    assert pixels.origin == (8.0, 4.0) and world.origin == (8.0, -4.0)  # (its top-left corner 4 px below the top, 64)
    cells = np.argwhere(np.ones(pixels.shape, bool))[:, ::-1]
    flipped = pixels.cell_to_world(cells) * (1, -1) + (0, 64)  # map pixels (y down) -> arcade world (y up)
    assert np.array_equal(world.cell_to_world(cells), flipped)
    mesh_pixels = pygame_adapter.navmesh_from_tmx(pytmx.TiledMap(str(tmp_path / "moved.tmx")), "obstacles")
    mesh_world = navmesh_from_tilemap(tile_map, "obstacles")
    probes = np.array([(x + 0.5, y + 0.5) for x in range(0, 96, 3) for y in range(0, 64, 3)])
    inside = mesh_pixels.locate(probes) >= 0
    assert np.array_equal(mesh_world.locate(probes * (1, -1) + (0, 64)) >= 0, inside)
    assert not inside[np.all(probes == (42.5, 27.5), axis=1)].any()  # in the rock, moved by (-6, 10): blocked
    tile_map.tiled_map.layers[1].offset = pytiled_parser.OrderedPair(float("nan"), 0.0)  # (JSON reads NaN)
    with pytest.raises(MapFormatError, match=r"moved\.tmx: each offset of layer 'walls' \(and of its groups\) must"):
        grid_from_tilemap(tile_map, "walls")
    tile_map.tiled_map.layers[1] = pytiled_parser.LayerGroup(name="level", layers=[tile_map.tiled_map.layers[1]],
                                                             offset=pytiled_parser.OrderedPair(1e308, 0.0))
    tile_map.tiled_map.layers[1].layers[0].offset = pytiled_parser.OrderedPair(1e308, 0.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # (numpy's overflow warning came first)
        with pytest.raises(MapFormatError, match=r"offsets of layer 'walls' and its groups add up beyond float64"):
            grid_from_tilemap(tile_map, "walls")


def test_group_layer_offsets_move_the_layers_in_them(tmp_path: Path) -> None:
    """Tiled adds the offsets of the group layers holding a layer to its own; both adapters left
    them out (pytmx keeps no link from a layer to its groups: the pygame adapter reads the file)."""
    text = gamenav.data.path("tiny.tmx").read_text()
    text = text.replace('<layer id="2" name="walls"', '<group id="8" name="level" offsetx="4" offsety="-2">\n'
                        ' <group id="9" name="solid" offsetx="-1" offsety="-1">\n <layer id="2" name="walls" '
                        'offsetx="8" offsety="4"')
    text = text.replace(' <objectgroup id="3" name="obstacles">', ' </group>\n </group>\n <group id="10" name="props" '
                        'offsetx="16" offsety="16">\n <objectgroup id="3" name="obstacles">')
    text = text.replace(" </objectgroup>", " </objectgroup>\n </group>")
    (tmp_path / "tiles.png").write_bytes(gamenav.data.path("tiles.png").read_bytes())
    (tmp_path / "grouped.tmx").write_text(text)
    tmx_map = pytmx.TiledMap(str(tmp_path / "grouped.tmx"))
    tile_map = arcade.load_tilemap(tmp_path / "grouped.tmx", lazy=True)
    assert pygame_adapter.grid_from_tmx(tmx_map, "walls").origin == (11.0, 1.0)  # (8 + 4 - 1, 4 - 2 - 1)
    assert grid_from_tilemap(tile_map, "walls").origin == (11.0, -1.0)
    rock, was = (64.0, 28.0), (48.0, 12.0)  # inside the rock moved by (16, 16), and where it lay unmoved
    pixels = pygame_adapter.navmesh_from_tmx(tmx_map, "obstacles").locate([rock, was])
    world = navmesh_from_tilemap(tile_map, "obstacles").locate([(rock[0], 64 - rock[1]), (was[0], 64 - was[1])])
    assert pixels[0] == world[0] == -1 and min(pixels[1], world[1]) >= 0


def test_a_layer_name_used_twice_names_the_last_layer_in_both_adapters(tmp_path: Path) -> None:
    """Of two layers of one name, arcade's ``sprite_lists`` / ``object_lists`` and pytmx keep the
    last, but the arcade adapter took the first: its grid was not the wall sprites' cells, nor the
    pygame adapter's grid, and its navmesh cut out the other layer's objects."""
    text = gamenav.data.path("tiny.tmx").read_text().replace("</map>", """ <group id="4" name="level2">
 <layer id="5" name="walls" width="6" height="4">
  <data encoding="csv">
2,2,2,2,2,2,
0,0,0,0,0,0,
0,0,0,0,0,0,
0,0,0,0,0,2
</data>
 </layer>
 <objectgroup id="6" name="obstacles">
  <object id="7" x="0" y="0" width="16" height="16"/>
 </objectgroup>
 </group>
</map>""")
    (tmp_path / "tiles.png").write_bytes(gamenav.data.path("tiles.png").read_bytes())
    (tmp_path / "twice.tmx").write_text(text)
    tile_map = arcade.load_tilemap(tmp_path / "twice.tmx", lazy=True)
    grid = grid_from_tilemap(tile_map, "walls")
    sprites = grid.world_to_cell([sprite.position for sprite in tile_map.sprite_lists["walls"]])
    assert sorted(map(tuple, sprites.tolist())) == sorted(map(tuple, np.argwhere(~grid.passable)[:, ::-1].tolist()))
    pixels = pygame_adapter.grid_from_tmx(pytmx.TiledMap(str(tmp_path / "twice.tmx")), "walls")
    assert np.array_equal(grid.passable, pixels.passable) and (~grid.passable).sum() == 7
    mesh = navmesh_from_tilemap(tile_map, "obstacles")
    mesh_pixels = pygame_adapter.navmesh_from_tmx(pytmx.TiledMap(str(tmp_path / "twice.tmx")), "obstacles")
    assert mesh.locate([(8.0, 56.0), (12.0, 12.0)]).tolist()[0] == mesh_pixels.locate([(8.0, 8.0)])[0] == -1
    assert min(mesh.locate([(12.0, 12.0)])[0], mesh_pixels.locate([(12.0, 52.0)])[0]) >= 0  # (the first layer's wall)


@pytest.mark.parametrize("flags", [0, pygame.SRCALPHA])
def test_pygame_draw_grid_blends_a_translucent_line_color_as_its_cells(flags: int) -> None:
    """Colours may carry alpha for translucent overlays, but the lines were filled with theirs:
    opaque white for (255, 255, 255, 40), and on a surface with alpha a hole of alpha 40."""
    grid = grid_from_rects([(20, 0, 20, 20)], size=(80, 60), cell_size=20)
    surface = pygame.Surface((100, 80), flags)
    surface.fill((0, 0, 0, 255))
    pygame_adapter.draw_grid(surface, grid, blocked_color=(255, 0, 0, 128), line_color=(255, 255, 255, 40))
    assert surface.get_at((30, 10)) == (128, 0, 0, 255)  # (a blocked cell, blended)
    assert surface.get_at((0, 30)) == surface.get_at((20, 20)) == (40, 40, 40, 255)  # (a line, a crossing: once)
    assert surface.get_at((50, 50)) == (0, 0, 0, 255)


def _turned_walls_grid(unit: float) -> gamenav.TileGrid:
    """A 40 x 24 wall turned 30 degrees on a 128 x 64 map of 8-unit cells, all in ``unit``s."""
    walls = arcade.SpriteList()
    walls.append(arcade.SpriteSolidColor(1, 1, center_x=64 * unit, center_y=32 * unit))
    walls[0].width, walls[0].height, walls[0].angle = 40 * unit, 24 * unit, 30
    return grid_from_sprites(walls, size=(128 * unit, 64 * unit), cell_size=8 * unit)


@pytest.mark.parametrize("unit", [1e-170, 1e-150, 1e140, 1e160])
def test_sprite_walls_block_the_same_cells_in_any_world_unit(unit: float) -> None:
    """Hit boxes were intersected with cells in world units, whose areas (cell_size squared) left
    float64's range: with cells of 8e-170 units the wall blocked none of its 26 cells (8e-150: 20),
    and with 8e140 shapely's products overflowed (RuntimeWarning, an error under -W error)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert np.array_equal(_turned_walls_grid(unit).passable, _turned_walls_grid(1.0).passable)
    assert (~_turned_walls_grid(1.0).passable).sum() == 26


def test_a_wall_sprite_beyond_shapelys_range_is_refused_over_the_grid_and_ignored_elsewhere() -> None:
    """A hit box reaching 1e154 cells overflowed shapely's products (RuntimeWarning) and turned its
    answers: a square of side 3.2e301 turned 45 degrees over the grid blocked none of its cells."""
    giant = arcade.SpriteSolidColor(32, 32, center_x=1e300, center_y=32)
    giant.scale, giant.angle = 1e300, 45
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(InvalidInputError, match=r"within 1e\+150 cells of its origin"):
            grid_from_sprites([giant], size=(128, 64), cell_size=8)
        parked = arcade.SpriteSolidColor(32, 32, center_x=1e300, center_y=-1e300)  # (off the map: no wall here)
        assert grid_from_sprites([parked], size=(128, 64), cell_size=8).passable.all()


@pytest.mark.parametrize(("rect", "blocked"), [((1e308, 0, 10, 10), 0), ((0, 0, 1.5e308, 10), 16),
                                               ((1.7e308, 0, 1.7e308, 1), 0), ((-1.7e308, 0, -1.7e308, 1), 0)])
def test_pygame_rects_whose_edges_or_cells_pass_float64_give_no_warning(rect: tuple[float, ...], blocked: int) -> None:
    """A rect at x = 1e308 on half-pixel cells (cell number 2e308) or whose x + w passed float64
    raised numpy's RuntimeWarning (overflow in divide / add; an error under -W error)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        grid = grid_from_rects([rect], size=(2, 2), cell_size=0.5)
    assert (~grid.passable).sum() == blocked


def test_pygame_draw_grid_of_millions_of_sub_pixel_cells_makes_no_array_of_all_the_lines() -> None:
    """The grid lines within the clip area were found in arrays of every line there: 104 MB at the
    peak each frame for a 1 x 4,000,000 grid of 1e-4-pixel cells (0.35 s a frame at 20,000,000)."""
    import tracemalloc

    grid = gamenav.TileGrid(np.ones((1, 4_000_000), bool), cell_size=1e-4)
    surface = pygame.Surface((500, 20))
    pygame_adapter.draw_grid(surface, grid, blocked_color=None, line_color=(255, 255, 255))
    tracemalloc.start()
    try:  # (a frame after the first)
        pygame_adapter.draw_grid(surface, grid, blocked_color=None, line_color=(255, 255, 255))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 1 << 20
    # (the grid is 400 x 1e-4 px: its lines are every pixel of row 0 up to x = 400)
    assert [surface.get_at((x, 0))[0] for x in (0, 399, 400, 401)] == [255, 255, 255, 0]
    assert surface.get_at((200, 1))[0] == 0


@pytest.mark.parametrize("radius", [10**6, 2**31 - 1])
def test_pygame_draw_path_dots_bigger_than_the_surface_cover_it(radius: int) -> None:
    """pygame walks a dot's radius: a waypoint dot of radius 1e9 took 2.5 s, and one of
    2**31 - 1 (an accepted radius) drew nothing; dots beyond the clip area's reach are cut to it."""
    surface = pygame.Surface((100, 100))
    pygame_adapter.draw_path(surface, [(50.0, 50.0), (60.0, 60.0)], radius=radius, color=(255, 0, 0))
    assert pygame.mask.from_threshold(surface, (255, 0, 0), (1, 1, 1)).count() == 100 * 100


@pytest.mark.parametrize("points", [[(True, 0), (5, 5)], [("1", "2"), ("3", "4")], np.array([[1, 2], [3, 4]], "m8")],
                         ids=["bool", "strings", "timedelta64"])
@pytest.mark.parametrize("draw", [lambda pts: pygame_adapter.draw_path(pygame.Surface((50, 50)), pts), draw_path],
                         ids=["pygame", "arcade"])
def test_draw_path_refuses_points_that_are_not_numbers(window: Any, draw: Any, points: Any) -> None:
    """Both adapters read a path's points with a float64 cast, which takes True, "1" and
    timedelta64 for numbers: they drew what the rest of gamenav refuses as points."""
    with pytest.raises(InvalidInputError, match=r"must be a gamenav.Path or an \(n, 2\) array of \(x, y\) numbers"):
        draw(points)
    draw([pygame.Vector2(1, 2), pygame.Vector2(3, 4)])


def test_arcade_draw_path_points_is_a_flag(window: Any) -> None:
    """``draw_path(path, points=path.points)`` (the points where the flag goes) raised numpy's
    "truth value of an array ... is ambiguous" ValueError; ``points="no"`` drew the dots."""
    path = gamenav.find_path(gamenav.TileGrid.from_strings(["...", "..."]), (0, 0), (2, 1))
    for value in (path.points, "no"):
        with pytest.raises(InvalidInputError, match="points must be a bool, got"):
            draw_path(path, points=value)
    draw_path(path, points=np.True_)


def test_an_arcade_sprite_knocked_a_fraction_of_a_unit_on_small_cells_is_placed() -> None:
    """The rounding allowance was half a unit whatever the cells: in a world of 0.25-unit cells a
    sprite knocked 0.4 units (1.6 cells) up was taken as rounded and written back onto its path."""
    grid = gamenav.TileGrid(np.ones((3, 8), bool), cell_size=0.25, y_up=True)
    sprite = arcade.SpriteSolidColor(1, 1, center_x=0.125, center_y=0.125)
    follower = PathFollower(sprite, grid, speed=0.5)
    follower.move_to((1.875, 0.125))
    for _ in range(30):
        follower.update(1 / 60)
    sprite.position = (sprite.position[0], 0.525)  # knocked onto the top lane
    follower.update(1 / 60)
    assert grid.world_to_cell(sprite.position).tolist() == [1, 0] and sprite.position[1] > 0.5
    for _ in range(600):
        follower.update(1 / 60)
    assert follower.arrived and sprite.position == (1.875, 0.125)
    # (on 1-unit cells, rounding to whole units still is not a move)
    grid = gamenav.TileGrid(np.ones((6, 12), bool), cell_size=1, y_up=True)
    sprite = arcade.SpriteSolidColor(1, 1, center_x=0.8, center_y=0.7)
    follower = PathFollower(sprite, grid, speed=3)
    follower.move_to((11.5, 5.5))
    for _ in range(600):
        follower.update(1 / 60)
        sprite.position = (round(sprite.position[0]), round(sprite.position[1]))
    assert follower.arrived and sprite.position == (12, 6)


def test_draw_expansions_of_a_long_double_beyond_float64_draws_it_as_not_reached(window: Any) -> None:
    """A long double field holding 1e400 (finite to numpy) overflowed in the cast to float64
    (RuntimeWarning, an error under -W error), and the cell's shade was inf / inf cast to int."""
    grid = gamenav.TileGrid(np.ones((1, 4), bool), cell_size=10, y_up=True)
    window.clear(color=(0, 0, 0, 255))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        draw_expansions(grid, np.array([[np.longdouble("1e400"), 0.0, 1.0, 2.0]], dtype=np.longdouble), alpha=255)
    drawn = (np.asarray(arcade.get_image().convert("RGB"))[-5, 5:40:10] != 0).any(axis=1)
    assert drawn.tolist() == [False, True, True, True]


@pytest.mark.parametrize("rects", [[(np.longdouble("1e400"), 0, 5, 5)],
                                   np.array([[np.longdouble("-1e400"), 0, 5, 5]], dtype=np.longdouble)])
def test_a_pygame_rect_of_a_long_double_beyond_float64_is_refused_with_no_warning(rects: Any) -> None:
    """A rect holding the long double 1e400 went through numpy's "overflow encountered in cast"
    RuntimeWarning (an error under -W error) before its InvalidInputError."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(InvalidInputError, match="rects must have finite coordinates"):
            grid_from_rects(rects, size=(10, 10), cell_size=1)


def test_a_wall_sprite_at_a_long_double_beyond_float64_is_refused_with_no_warning() -> None:
    """A sprite at x = 1e400 as a long double (arcade keeps it, and its hit box) went through
    numpy's "overflow encountered in cast" RuntimeWarning (an error under -W error) first."""
    sprite = arcade.SpriteSolidColor(8, 8)
    sprite.position = (np.longdouble("1e400"), 0.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(InvalidInputError, match="finite hit boxes"):
            grid_from_sprites([sprite], size=(64, 64), cell_size=8)
