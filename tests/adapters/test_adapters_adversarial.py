"""Adversarial review of the engine adapters: sprites and maps with extreme or broken numbers.
Each test fails on the code before its fix."""

from __future__ import annotations

import warnings

import pytest

import arcade  # noqa: E402  (after ARCADE_HEADLESS is set by conftest)

from gamenav import InvalidInputError  # noqa: E402
from gamenav.adapters.arcade import grid_from_sprites  # noqa: E402


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


def test_pygame_draw_grid_paints_only_the_surface_not_the_whole_map() -> None:
    """draw_grid scaled an image of the whole map (every cell at its pixel size) before blitting:
    a 2048 x 2048 map of 16-pixel cells took a 4 GB surface per call, and bigger ones raised
    pygame.error (out of memory) though the screen showed a few cells."""
    import numpy as np
    import pygame

    import gamenav
    from gamenav.adapters.pygame import draw_grid

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
