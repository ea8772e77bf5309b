"""Drawing for the demo: the terrain picture and thousands of units in one draw call.

Terrain arrays are ``[y, x]`` with row 0 at the top; world y grows upwards (arcade).
"""

from __future__ import annotations

import arcade
import numpy as np
import numpy.typing as npt
from arcade.gl import BufferDescription
from arcade.texture_atlas import TextureAtlasBase
from PIL import Image

from demo_game.mapgen import (
    BRIDGE,
    BUILDING,
    FOREST,
    GRASS,
    MARSH,
    ROCK,
    WATER,
    Terrain,
)

__all__ = ["TEAM_COLORS", "TerrainPicture", "UnitRenderer"]

_PALETTE = {
    GRASS: (86, 125, 70), MARSH: (96, 112, 78), WATER: (52, 92, 150), FOREST: (34, 74, 38),
    BUILDING: (150, 120, 96), ROCK: (110, 106, 100), BRIDGE: (140, 110, 70),
}
TEAM_COLORS = np.array([[70, 160, 255, 255], [255, 90, 70, 255]], np.uint8)
"""RGBA of team 0 (blue) and team 1 (red)."""
SELECTED_COLOR = np.array([255, 240, 120, 255], np.uint8)


def _pixels(terrain: Terrain, cell_px: int, y0: int, y1: int, x0: int, x1: int) -> npt.NDArray[np.uint8]:
    """``((y1 - y0) * cell_px, (x1 - x0) * cell_px, 4)`` RGBA pixels of the terrain's cells
    ``[y0:y1, x0:x1]``, as they look in the whole map's picture if the box reaches one cell beyond
    every cell whose look is wanted (a building's rim is drawn where it meets no building)."""
    kind = terrain.kind[y0:y1, x0:x1]
    h, w = kind.shape
    lut = np.zeros((256, 3), np.float32)
    for k, rgb in _PALETTE.items():
        lut[k] = rgb
    base = lut[kind] * (0.85 + 0.3 * terrain.shade[y0:y1, x0:x1, None])
    img = np.repeat(np.repeat(base, cell_px, axis=0), cell_px, axis=1)
    # per-pixel detail: round tree crowns in forests, roofs with a rim, ripples on water
    yy, xx = np.mgrid[0:cell_px, 0:cell_px]
    r = np.hypot(yy - (cell_px - 1) / 2, xx - (cell_px - 1) / 2) / (cell_px / 2)
    crown = np.clip(1.25 - r, 0.55, 1.0)
    big_kind = np.repeat(np.repeat(kind, cell_px, axis=0), cell_px, axis=1)
    forest = big_kind == FOREST
    img[forest] *= np.tile(crown, (h, w))[forest][:, None]
    building = big_kind == BUILDING
    padded = np.pad(building, 2)  # beyond the map: no building
    edge = np.zeros_like(building)
    for dy, dx in ((1, 0), (2, 0), (-1, 0), (-2, 0), (0, 1), (0, 2), (0, -1), (0, -2)):
        edge |= building & ~padded[2 + dy:2 + dy + building.shape[0], 2 + dx:2 + dx + building.shape[1]]
    img[edge] *= 0.55
    img[building & ~edge] *= 1.1
    water = big_kind == WATER
    ripple = 0.9 + 0.15 * np.sin(np.arange(x0 * cell_px, x1 * cell_px) / 3.0)
    img[water] *= np.broadcast_to(ripple, water.shape)[water][:, None]
    rgba = np.full(img.shape[:2] + (4,), 255, np.uint8)
    rgba[..., :3] = np.clip(img, 0, 255)
    return rgba


class TerrainPicture:
    """The terrain's picture as an arcade texture; after an edit only the changed cells (and their
    neighbours) are redrawn and sent to the GPU (the whole picture took 30 ms on the default map)."""

    _count = 0

    def __init__(self, terrain: Terrain, cell_px: int) -> None:
        self._terrain = terrain
        self._cell_px = cell_px
        self._kind = terrain.kind.copy()
        h, w = self._kind.shape
        TerrainPicture._count += 1
        image = Image.fromarray(_pixels(terrain, cell_px, 0, h, 0, w))
        self.texture = arcade.Texture(image, hash=f"demo-terrain-{TerrainPicture._count}")

    def update(self, atlas: TextureAtlasBase) -> None:
        """Redraw the cells whose kind changed since the last call (in the texture's image and,
        once the texture is in ``atlas``, in the atlas)."""
        changed = np.argwhere(self._terrain.kind != self._kind)
        if len(changed) == 0:
            return
        h, w = self._kind.shape
        (y0, x0), (y1, x1) = changed.min(axis=0), changed.max(axis=0) + 1
        # the cells to redraw: one around the changed ones (rims); one more around those to draw them
        ry0, rx0, ry1, rx1 = max(y0 - 1, 0), max(x0 - 1, 0), min(y1 + 1, h), min(x1 + 1, w)
        by0, bx0, by1, bx1 = max(ry0 - 1, 0), max(rx0 - 1, 0), min(ry1 + 1, h), min(rx1 + 1, w)
        px = self._cell_px
        pixels = _pixels(self._terrain, px, by0, by1, bx0, bx1)
        inner = pixels[(ry0 - by0) * px:(ry1 - by0) * px, (rx0 - bx0) * px:(rx1 - bx0) * px]
        patch = Image.fromarray(np.ascontiguousarray(inner))
        self.texture.image.paste(patch, (rx0 * px, ry0 * px))
        if atlas.has_texture(self.texture):
            region = atlas.get_image_region_info(self.texture.image_data.hash)
            atlas.texture.write(patch.tobytes(), 0,
                                viewport=(region.x + rx0 * px, region.y + ry0 * px, patch.width, patch.height))
        self._kind[...] = self._terrain.kind


_VERTEX = """
#version 330
in vec2 in_pos;
in vec4 in_color;
in float in_radius;
out vec4 g_color;
out float g_radius;
void main() {
    gl_Position = vec4(in_pos, 0.0, 1.0);
    g_color = in_color;
    g_radius = in_radius;
}
"""
_GEOMETRY = """
#version 330
layout (points) in;
layout (triangle_strip, max_vertices = 4) out;
uniform WindowBlock { mat4 projection; mat4 view; } window;
in vec4 g_color[];
in float g_radius[];
out vec2 v_uv;
out vec4 v_color;
void main() {
    mat4 mvp = window.projection * window.view;
    vec2 c = gl_in[0].gl_Position.xy;
    for (int i = 0; i < 4; i++) {
        vec2 corner = vec2(i % 2 == 0 ? -1.0 : 1.0, i < 2 ? -1.0 : 1.0);
        gl_Position = mvp * vec4(c + corner * g_radius[0], 0.0, 1.0);
        v_uv = corner;
        v_color = g_color[0];
        EmitVertex();
    }
    EndPrimitive();
}
"""
_FRAGMENT = """
#version 330
in vec2 v_uv;
in vec4 v_color;
out vec4 f_color;
void main() {
    float r = dot(v_uv, v_uv);
    if (r > 1.0) discard;
    vec3 rgb = mix(v_color.rgb * 1.1, v_color.rgb * 0.25, smoothstep(0.5, 1.0, r));
    f_color = vec4(rgb, v_color.a);
}
"""


class UnitRenderer:
    """Draws ``n`` round units from numpy arrays with one GL draw call (points expanded to quads)."""

    def __init__(self, ctx: arcade.ArcadeContext, capacity: int) -> None:
        self._ctx = ctx
        self._program = ctx.program(vertex_shader=_VERTEX, geometry_shader=_GEOMETRY, fragment_shader=_FRAGMENT)
        self._capacity = max(capacity, 1)
        self._pos = ctx.buffer(reserve=self._capacity * 8)
        self._col = ctx.buffer(reserve=self._capacity * 4)
        self._rad = ctx.buffer(reserve=self._capacity * 4)
        self._geometry = ctx.geometry([BufferDescription(self._pos, "2f", ["in_pos"]),
                                       BufferDescription(self._col, "4f1", ["in_color"]),
                                       BufferDescription(self._rad, "f", ["in_radius"])],
                                      mode=ctx.POINTS)

    def draw(self, positions: npt.NDArray[np.float64], colors: npt.NDArray[np.uint8],
             radius: float | npt.NDArray[np.float64]) -> None:
        """Draw discs at ``positions`` (n, 2) world (x, y), ``colors`` (n, 4) uint8 RGBA, of
        ``radius`` world units (one number or one per disc, (n,)). At most ``capacity`` discs."""
        n = min(len(positions), self._capacity)
        if n == 0:
            return
        radii = np.broadcast_to(np.asarray(radius, np.float32), (len(positions),))
        self._pos.write(np.ascontiguousarray(positions[:n], np.float32).tobytes())
        self._col.write(np.ascontiguousarray(colors[:n], np.uint8).tobytes())
        self._rad.write(np.ascontiguousarray(radii[:n], np.float32).tobytes())
        self._ctx.enable(self._ctx.BLEND)
        self._geometry.render(self._program, vertices=n)
