"""Adversarial review of the arcade adapter: sprites with extreme or broken numbers, Tiled maps
with group layers and object layers.
Each test fails on the code before its fix."""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import arcade  # noqa: E402  (after ARCADE_HEADLESS is set by conftest)
import pytiled_parser  # noqa: E402

from gamenav import InvalidInputError  # noqa: E402
from gamenav.adapters.arcade import grid_from_sprites, grid_from_tilemap  # noqa: E402


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
