"""Adversarial review of the engine adapters, third round: the mistakes of a first hour with
them (colours of the wrong kind, ...). Each test fails on the code before its fix."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest

import arcade  # noqa: E402  (after ARCADE_HEADLESS is set by conftest)
import pygame  # noqa: E402  (after SDL_VIDEODRIVER is set by conftest)

import gamenav  # noqa: E402
from gamenav import InvalidInputError  # noqa: E402
from gamenav.adapters import arcade as arcade_adapter  # noqa: E402
from gamenav.adapters import pygame as pygame_adapter  # noqa: E402


@pytest.fixture(scope="module")
def window() -> Any:
    win = arcade.Window(200, 160, "gamenav adversarial tests 3", visible=False)
    yield win
    win.close()


def _grid() -> gamenav.TileGrid:
    return gamenav.TileGrid.from_strings(["#.", ".."], cell_size=20, y_up=True)


@pytest.mark.parametrize("color", [(0, 0, 300, 255), (0, 0, -1), (1.0, 0.5, 0.0), "red", (1, 2), (1, 2, 3, 4, 5), 7])
@pytest.mark.parametrize("draw", [
    lambda c: arcade_adapter.draw_grid(_grid(), blocked_color=c, line_color=None),
    lambda c: arcade_adapter.draw_grid(_grid(), line_color=c, blocked_color=None),
    lambda c: arcade_adapter.draw_path([(1, 2), (30, 40)], color=c),
    lambda c: arcade_adapter.draw_navmesh(gamenav.NavMesh.from_grid(_grid()), color=c),
    lambda c: arcade_adapter.draw_navmesh(gamenav.NavMesh.from_grid(_grid()), highlight=[0], highlight_color=c),
], ids=["blocked_color", "line_color", "path color", "mesh color", "highlight_color"])
def test_arcade_colours_that_are_not_ints_0_to_255_are_refused(window: Any, draw: Any, color: Any) -> None:
    """arcade takes any numbers for r, g, b and the GPU wraps or truncates them: a blocked_color of
    (0, 0, 300) drew (0, 0, 44), a line_color of (0, 0, -1) nothing, a normalised (1.0, 0.5, 0.0)
    near black; "red" raised numpy's TypeError and (1, 2) arcade's unpacking ValueError."""
    with pytest.raises(InvalidInputError, match=r"colou?r must be an \(r, g, b\) or \(r, g, b, a\) colour of ints"):
        draw(color)


def test_arcade_colours_of_numpy_ints_and_arcade_colours_are_drawn(window: Any) -> None:
    window.clear(color=(0, 0, 0, 255))
    arcade_adapter.draw_grid(_grid(), blocked_color=np.array([0, 0, 255, 255], np.uint8), line_color=None)
    arcade_adapter.draw_path([(25, 5), (35, 5)], color=arcade.color.RED, width=4)
    image = np.asarray(arcade.get_image().convert("RGB"))
    assert image[160 - 30, 10].tolist() == [0, 0, 255]  # the blocked cell (0, 0), top-left of a y-up grid
    assert image[160 - 5, 30].tolist() == [255, 0, 0]


@pytest.mark.parametrize("color", ["nocolor", (1, 2), (300, 0, 0), 1.5])
@pytest.mark.parametrize("draw", [
    lambda s, c: pygame_adapter.draw_grid(s, _grid(), blocked_color=c),
    lambda s, c: pygame_adapter.draw_grid(s, _grid(), open_color=c),
    lambda s, c: pygame_adapter.draw_grid(s, _grid(), line_color=c),
    lambda s, c: pygame_adapter.draw_path(s, [(1, 2), (30, 40)], color=c),
], ids=["blocked_color", "open_color", "line_color", "path color"])
def test_pygame_colours_pygame_refuses_are_named(draw: Any, color: Any) -> None:
    """pygame's own ValueError "invalid color name" (or a TypeError) named neither the argument
    nor the value; a bad line_color was not even looked at when the grid lay outside the clip area."""
    surface = pygame.Surface((40, 40))
    with pytest.raises(InvalidInputError, match=r"colou?r must be a colour: a name, '#rrggbb', or \(r, g, b\)"):
        draw(surface, color)
    with pytest.raises(InvalidInputError, match="line_color must be a colour"):
        pygame_adapter.draw_grid(pygame.Surface((5, 5)), gamenav.TileGrid(np.ones((2, 2), bool), origin=(500, 500)),
                                 line_color="nocolor")


def _sprite(rect: Any) -> pygame.sprite.Sprite:
    sprite = pygame.sprite.Sprite()
    sprite.image = pygame.Surface((4, 4))
    if rect is not None:
        sprite.rect = rect
    return sprite


@pytest.mark.parametrize(("rects", "named"), [
    (pygame.Rect(0, 0, 10, 10), r"rectangles \(e\.g\. a list\), got Rect\(0, 0, 10, 10\)"),
    ("0000", r"an iterable of \(x, y, w, h\) rectangles \(e\.g\. a list\), got '0000'"),
    (None, r"an iterable of \(x, y, w, h\) rectangles \(e\.g\. a list\), got None"),
    ([(0, 0, 5, 5), pygame.Surface((3, 3))], r"sprites with a rect\), got <Surface\(3x3x32\)>"),
    ([_sprite(None)], r"got <Sprite Sprite\(in 0 groups\)> with the rect None"),
    ([_sprite(("1", "2", "3", "4"))], r"got <Sprite Sprite\(in 0 groups\)> with the rect \('1', '2', '3', '4'\)"),
    ([(0, 0, "a", 3)], r"got \(0, 0, 'a', 3\)"),
    ([[pygame.Rect(0, 0, 1, 1)]], r"got \[Rect\(0, 0, 1, 1\)\]"),
    (np.array([["0", "0", "10", "10"]], dtype=object), r"got array\(\['0', '0', '10', '10'\], dtype=object\)"),
])
def test_pygame_grid_from_rects_names_what_is_not_a_rectangle(rects: Any, named: str) -> None:
    """A Surface, a sprite without a rect, one Rect where a list goes: all were "rects must be (x, y,
    w, h) rectangles of numbers", naming nothing received; an object array of strings was read as
    numbers (cell (0, 0) blocked by '0', '0', '10', '10'), while a list of them is refused."""
    with pytest.raises(InvalidInputError, match="rects must be .*" + named):
        pygame_adapter.grid_from_rects(rects, size=(100, 100), cell_size=10)


def test_pygame_grid_from_rects_still_takes_rects_sprites_and_arrays() -> None:
    rects = [pygame.Rect(0, 0, 10, 10), pygame.FRect(10.5, 0, 5, 5), (20, 0, 10, 10),
             _sprite(pygame.Rect(30, 0, 10, 10)), np.array([40, 0, 10, 10], np.int32)]
    grid = pygame_adapter.grid_from_rects(rects, size=(60, 10), cell_size=10)
    assert grid.passable.tolist() == [[False, False, False, False, False, True]]
    grid = pygame_adapter.grid_from_rects(np.array([[0, 0, 10, 10]], dtype=object), size=(20, 10), cell_size=10)
    assert grid.passable.tolist() == [[False, True]]


def _pygame_lit(points: Any) -> Any:
    surface = pygame.Surface((100, 100))
    pygame_adapter.draw_path(surface, points, color=(255, 0, 0), width=1, radius=0)
    return pygame.surfarray.array3d(surface).sum(axis=2) > 0


@pytest.mark.parametrize(("far", "near"), [
    ([(-1.7e308, -1.7e308), (1.7e308, 1.7e308)], [(-300, -300), (400, 400)]),
    ([(-1e308, 50), (1e308, 50)], [(-300, 50), (400, 50)]),
    ([(-1e20, -5e19), (1e20, 5e19)], [(-1000, -500), (1000, 500)]),
])
def test_pygame_draw_path_cuts_legs_between_far_points_exactly(far: Any, near: Any) -> None:
    """Legs beyond 2**17 pixels of the surface were cut with shapely's clip, which overflowed for a
    leg spanning more than float64 holds (RuntimeWarning, an error under -W error; the diagonal
    one drew nothing) and cut a leg between far points where its rounding put it (the one through
    (0, 0) of slope 1/2 was drawn along y = 0)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        lit = _pygame_lit(far)
    assert np.array_equal(lit, _pygame_lit(near)) and lit.sum() == 100


def _arcade_lit(window: Any, path: Any, **options: Any) -> Any:
    window.clear(color=(0, 0, 0, 255))
    arcade_adapter.draw_path(path, **options)
    return np.asarray(arcade.get_image().convert("RGB")).sum(axis=2) > 0


def test_arcade_draw_path_draws_legs_to_points_beyond_float32(window: Any) -> None:
    """arcade draws in float32: a point beyond 3.4e38 was inf and the whole line was lost, its legs
    on screen too (0 pixels lit); a leg between far points drew nothing."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        lit = _arcade_lit(window, [(10, 80), (1e39, 80), (1e39, 30), (10, 30)], width=4, points=True)
        near = _arcade_lit(window, [(10, 80), (1e5, 80), (1e5, 30), (10, 30)], width=4, points=True)
        assert np.array_equal(lit, near) and lit.sum() > 1000
        lit = _arcade_lit(window, [(-1.7e308, -1.7e308), (1.7e308, 1.7e308)], width=2)
        assert np.array_equal(lit, _arcade_lit(window, [(-300, -300), (500, 500)], width=2)) and lit.sum() > 200
        camera = arcade.camera.Camera2D()
        camera.position, camera.zoom, camera.angle = (1000.0, 1000.0), 3.0, 30.0
        camera.use()
        try:  # (cut near what the camera shows)
            lit = _arcade_lit(window, [(-1e300, -1e300), (1e300, 1e300)], width=2)
            near = _arcade_lit(window, [(800, 800), (1200, 1200)], width=2)
        finally:
            window.default_camera.use()
        assert lit.sum() > 500 and (lit != near).sum() <= 0.02 * near.sum()  # (other ends: a few edge pixels)
