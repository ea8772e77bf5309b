"""arcade adapter: grids from Tiled maps and wall sprites, navmeshes from Tiled polygons,
debug drawing, and a path follower for sprites.

arcade's world y axis points up while Tiled rows (and grid rows) grow downwards, so every grid
built here has ``y_up=True``: row 0 is the top row of the map, and
:meth:`~gamenav.TileGrid.cell_to_world` returns arcade world positions. Grid arrays are indexed
``[y, x]``; points are ``(x, y)``.

This is a leaf module: ``import gamenav`` never imports it (or arcade). Install the extra from a
gamenav checkout with ``pip install -e ".[arcade]"`` (once gamenav is on the package index:
``pip install "gamenav[arcade]"``). The drawing functions need an active arcade window.

Example:
    >>> import arcade
    >>> from gamenav.adapters.arcade import grid_from_sprites
    >>> walls = arcade.SpriteList()
    >>> walls.append(arcade.SpriteSolidColor(32, 64, center_x=48, center_y=32))
    >>> grid = grid_from_sprites(walls, size=(128, 64), cell_size=32)
    >>> grid.passable.astype(int).tolist()
    [[1, 0, 1, 1], [1, 0, 1, 1]]
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

try:
    import arcade
except ImportError as exc:  # pragma: no cover - depends on the environment
    raise ImportError(
        'gamenav.adapters.arcade needs arcade; from a gamenav checkout install it with: '
        'pip install -e ".[arcade]"') from exc

import PIL.Image
import pytiled_parser
import shapely
from pytiled_parser import tiled_object

from gamenav import Follower, InvalidInputError, MapFormatError, NavMesh, Path, TileGrid
from gamenav.navmesh import MAX_COORDINATE
from gamenav._identity import IdentityMap
from gamenav._validate import finite_point, flag, float_numbers, grid_dimensions, is_int, positive_number, shown
from gamenav.adapters._draw import clip_polyline
from gamenav.adapters._tiled import encloses_area, layer_offset, object_outline

__all__ = ["PathFollower", "draw_expansions", "draw_grid", "draw_navmesh", "draw_path",
           "grid_from_sprites", "grid_from_tilemap", "navmesh_from_tilemap"]

Color = Any
"""Anything arcade accepts as a colour: ``(r, g, b)`` or ``(r, g, b, a)`` ints 0-255."""


def _color(value: Color, name: str) -> arcade.types.Color:
    """``value`` as an ``arcade.types.Color``: 3 or 4 ints from 0 to 255 (arcade takes others and the
    GPU wraps or truncates them: ``(0, 0, 300)`` drew ``(0, 0, 44)``, ``(1.0, 0.5, 0.0)`` near black)."""
    parts = tuple(value) if isinstance(value, (tuple, list, np.ndarray)) else ()
    if len(parts) not in (3, 4) or not all(is_int(v) and 0 <= v <= 255 for v in parts):
        raise InvalidInputError(f"{name} must be an (r, g, b) or (r, g, b, a) colour of ints from 0 to 255, "
                                f"got {shown(value)}")
    return arcade.types.Color(*(int(v) for v in parts))


# -- grids ----------------------------------------------------------------------------------
def _check_type(value: Any, expected: type, name: str) -> None:
    """An InvalidInputError unless ``value`` is an ``expected`` (e.g. a NavMesh where a TileGrid goes)."""
    if not isinstance(value, expected):
        module = "gamenav" if expected.__module__.startswith("gamenav") else expected.__module__.split(".")[0]
        article = "an" if module[0] in "aeiou" else "a"
        raise InvalidInputError(f"{name} must be {article} {module}.{expected.__name__}, got {type(value).__name__}")


def _path_points(path: Any) -> npt.NDArray[np.float64]:
    """The ``(n, 2)`` world points of a :class:`~gamenav.Path` or of an array of ``(x, y)`` numbers."""
    pts = float_numbers(path.points if isinstance(path, Path) else path)  # (not strings, bools, timedeltas)
    if pts is None:
        raise InvalidInputError("path must be a gamenav.Path or an (n, 2) array of (x, y) numbers, got "
                                f"{type(path).__name__}")
    if pts.size and (pts.ndim != 2 or pts.shape[1] != 2):
        raise InvalidInputError(f"path points must have shape (n, 2), got {pts.shape}")
    if not np.isfinite(pts).all():
        raise InvalidInputError("path points must be finite (got NaN or inf)")
    return pts.reshape(-1, 2)  # (no points, e.g. ``[]``: (0, 2), as in the pygame adapter)


def _layers(tile_map: Any) -> list[Any]:
    """Every layer of an ``arcade.TileMap``'s Tiled map, those inside group layers too (arcade
    loads them all, under their own names); InvalidInputError for a map that is not orthogonal,
    MapFormatError for tiles of no size."""
    tiled_map = getattr(tile_map, "tiled_map", None)
    top = getattr(tiled_map, "layers", None)
    if top is None:
        raise InvalidInputError(f"tile_map must be an arcade.TileMap, got {type(tile_map).__name__}")
    orientation = getattr(tiled_map, "orientation", "orthogonal")
    if orientation != "orthogonal":  # its tiles and objects are not laid out on a square grid
        raise InvalidInputError(f"tile_map must be an orthogonal map, got {shown(orientation)} "
                                f"({getattr(tiled_map, 'map_file', 'the map')})")
    if min(tile_map.tile_width, tile_map.tile_height) <= 0:
        raise MapFormatError(f"tiles must be at least 1 pixel, got {tile_map.tile_width} x {tile_map.tile_height}",
                             path=getattr(tiled_map, "map_file", None))

    def flatten(layers: Iterable[Any]) -> list[Any]:
        flat = []
        for layer in layers:
            flat += [layer, *flatten(getattr(layer, "layers", None) or ())]
        return flat

    return flatten(top)


def _tile_layer(tile_map: Any, name: str) -> Any:
    """The tile layer ``name`` of an ``arcade.TileMap``: of several, the last, whose sprites arcade
    keeps in ``sprite_lists[name]`` (and pytmx names: the pygame adapter's)."""
    layers = _layers(tile_map)
    if not isinstance(name, str):
        raise InvalidInputError(f"layer must be a layer name (str), got {shown(name)}")
    found = [layer for layer in layers if layer.name == name
             and (getattr(layer, "data", None) is not None or getattr(layer, "chunks", None))]
    tile_layers = [layer.name for layer in layers if getattr(layer, "data", None) is not None]
    if found and getattr(found[-1], "data", None) is None:
        raise InvalidInputError(f"tile layer {name!r} belongs to an infinite map (chunks), which is "
                                "not supported; save the map with a fixed size")
    if not found:
        raise InvalidInputError(f"tile layer {name!r} not found; the map's tile layers are {tile_layers}")
    return found[-1]


def _layer_gids(tile_map: Any, tiles: Any) -> npt.NDArray[np.int64]:
    """The ``(height, width)`` tile ids of the tile layer ``tiles``, ``[y, x]`` with row 0 at the top.

    Raises:
        MapFormatError: the layer's data is not ``height`` rows of ``width`` integer tile ids
            (or ``height * width`` of them in one list), the map's size.
    """
    data, name = tiles.data, tiles.name
    height, width = int(tile_map.height), int(tile_map.width)
    shapes = ((height, width), (height * width,))
    try:
        raw: npt.NDArray[Any] | None = np.asarray(data)
    except (TypeError, ValueError):
        raw = None  # ragged rows
    if raw is not None and raw.shape in shapes and raw.dtype.kind in "iu":
        return raw.astype(np.int64).reshape(height, width)
    if raw is not None and raw.shape in shapes:
        got = f"entries of dtype {raw.dtype}"
    elif isinstance(data, (list, tuple)) and all(isinstance(r, (list, tuple)) for r in data):
        got = f"{len(data)} rows of {sorted({len(r) for r in data})} entries"
    else:
        got = f"shape {np.shape(raw)}" if raw is not None else type(data).__name__
    raise MapFormatError(
        f"tile layer {name!r} must hold {height} rows of {width} integer tile ids (the map's size), "
        f"got {got}", path=getattr(getattr(tile_map, "tiled_map", None), "map_file", None))


def grid_from_tilemap(tile_map: Any, layer: str, *, walls: bool = True) -> TileGrid:
    """A :class:`~gamenav.TileGrid` from a tile layer of a map loaded with ``arcade.load_tilemap``.

    Args:
        tile_map: an ``arcade.TileMap`` (orthogonal, finite) loaded from a Tiled ``.tmx``/``.json``.
        layer: the name of a tile layer (of several, the last: the one in ``tile_map.sprite_lists``).
        walls: True: the layer's non-empty tiles are walls and everything else is walkable;
            False: the layer's non-empty tiles are the walkable floor.

    The grid's cells are the map's tiles scaled by ``tile_map.scaling`` (square tiles only) and
    ``y_up=True``; ``origin`` is the map's ``offset`` moved by the layer's Tiled offset
    (``offsetx`` / ``offsety`` pixels, those of the group layers holding it added, scaled; y down
    in Tiled, so ``offsety`` moves the origin down), where Tiled draws the layer, as
    :func:`gamenav.adapters.pygame.grid_from_tmx` places it.
    Grid cells and the layer's sprites line up in arcade world coordinates when the layer has no
    offset (arcade 3 places tile sprites without it).

    Raises:
        InvalidInputError: ``layer`` is not the name of a tile layer, ``walls`` is not a bool,
            an infinite map, non-square tiles, or a ``tile_map.scaling`` or ``offset`` that is not
            finite (scaling: > 0).
        MapFormatError: the layer's data is not the map's height rows of width integer tile ids,
            tiles of 0 or fewer pixels, or a layer offset that is not finite.
    """
    walls = flag(walls, "walls")
    tiles = _tile_layer(tile_map, layer)
    gids = _layer_gids(tile_map, tiles)
    if tile_map.tile_width != tile_map.tile_height:
        raise InvalidInputError(
            f"tiles must be square, got {tile_map.tile_width} x {tile_map.tile_height} pixels")
    occupied = gids != 0
    scale, (ox, oy) = _placement(tile_map)
    dx, dy = _layer_offset(tile_map, tiles)
    return TileGrid(~occupied if walls else occupied, cell_size=tile_map.tile_width * scale,
                    origin=(ox + dx * scale, oy - dy * scale), y_up=True)


def _layer_offset(tile_map: Any, layer: Any) -> tuple[float, float]:
    """The Tiled offset of a pytiled_parser layer, its own and its groups', in map pixels (see
    :func:`~gamenav.adapters._tiled.layer_offset`)."""
    def holding(layers: Iterable[Any]) -> list[Any]:  # (``layer`` and the group layers holding it)
        for found in layers:
            inner = [found] if found is layer else holding(getattr(found, "layers", None) or ())
            if inner:
                return inner if found is layer else [*inner, found]
        return []

    return layer_offset([getattr(found, "offset", (0.0, 0.0)) for found in holding(tile_map.tiled_map.layers)],
                        layer.name, getattr(tile_map.tiled_map, "map_file", None))


def _placement(tile_map: Any) -> tuple[float, tuple[float, float]]:
    """An ``arcade.TileMap``'s ``scaling`` (> 0) and world ``offset``, checked to be finite."""
    ox, oy = finite_point(getattr(tile_map, "offset", (0.0, 0.0)), "tile_map.offset")
    return positive_number(tile_map.scaling, "tile_map.scaling"), (float(ox), float(oy))


def grid_from_sprites(sprites: Iterable[arcade.BasicSprite], *, size: Sequence[float], cell_size: float,
                      origin: Sequence[float] = (0.0, 0.0)) -> TileGrid:
    """A grid whose cells overlapped (with positive area) by any sprite's hit box are blocked.

    Args:
        sprites: wall sprites (e.g. an ``arcade.SpriteList``); their current hit boxes
            (position, scale and angle applied) are used.
        size: the world ``(width, height)`` the grid covers, from ``origin``.
        cell_size: world units per cell (> 0).
        origin: world ``(x, y)`` of the bottom-left corner.

    Returns:
        A grid of ``ceil(height / cell_size)`` rows by ``ceil(width / cell_size)`` columns,
        ``y_up=True``. Hit boxes that only touch a cell's edge do not block it.

    Raises:
        InvalidInputError: a bad ``size``, ``cell_size`` or ``origin``, an object that is not a
            sprite, a hit box that is not finite, or one over the grid that reaches beyond
            1e150 cells from its origin.
    """
    cs = positive_number(cell_size, "cell_size")
    width, height = grid_dimensions(size, cs)
    ox, oy = (float(v) for v in finite_point(origin, "origin"))
    blocked = np.zeros((height, width), bool)
    if not isinstance(sprites, Iterable):
        raise InvalidInputError(f"sprites must be an iterable of arcade sprites, got {type(sprites).__name__}")
    for sprite in sprites:
        _check_type(sprite, arcade.BasicSprite, "each wall sprite")
        points = sprite.hit_box.get_adjusted_points()
        pts = float_numbers(points)  # (a long double beyond float64 is inf, without numpy's warning: refused below)
        if pts is not None and len(pts) < 3:
            continue
        if pts is None or not np.isfinite(pts).all():
            raise InvalidInputError(f"wall sprites must have finite hit boxes (position, scale, angle); "
                                    f"{sprite!r} has the points {list(points)}")
        # in cells from the origin (shapely's areas of cells stay in range at any cell size), and
        # cell ranges clipped to the grid before they become ints (a huge sprite stays in range)
        with np.errstate(over="ignore"):  # (beyond float64: refused below, unless off the grid)
            cells = (pts - (ox, oy)) / cs
        lo = np.clip(np.floor(cells.min(axis=0)), 0, (width, height)).astype(np.int64)
        hi = np.clip(np.ceil(cells.max(axis=0)), 0, (width, height)).astype(np.int64)
        if not (hi > lo).all():
            continue
        if not (np.abs(cells) <= _MAX_CELLS).all():
            raise InvalidInputError(f"wall sprites over the grid must have hit boxes within {_MAX_CELLS:g} cells of "
                                    f"its origin; {sprite!r} has the points {pts.tolist()} (cell_size {cs:g})")
        poly = shapely.make_valid(shapely.Polygon(cells))  # (a self-crossing hit box: the areas it encloses)
        _block_overlapped(blocked, poly, lo, hi)
    return TileGrid(~blocked, cell_size=cs, origin=(ox, oy), y_up=True)


_MAX_CELLS = 1e150
"""How far (in cells from the grid's origin) the hit box of a wall sprite over the grid may reach:
shapely multiplies coordinates, and beyond about 1e154 its products overflowed and its answers
were wrong (a sprite covering the grid blocked nothing)."""


def _block_overlapped(blocked: npt.NDArray[np.bool_], poly: Any, lo: npt.NDArray[np.int64],
                      hi: npt.NDArray[np.int64]) -> None:
    """Block the cells of ``blocked`` (``[y, x]``, row 0 on top) that ``poly`` (in cells: cell
    ``(x, y)`` is the unit square at ``(x, y)``, y counted from the bottom row) overlaps with
    positive area (over 1e-9 cell), among the cells ``lo <= (x, y) < hi``.

    Square blocks of cells are tried from one covering the whole range down: a block ``poly``
    covers is blocked whole, one apart from it is skipped and the others are split in four, so
    only the cells its outline crosses are intersected one by one (the work grows with the
    outline, not the area: a sprite over 1000 x 1000 cells took 12 s and 1 GB cell by cell)."""
    height = len(blocked)
    shapely.prepare(poly)
    size = 1 << int(max(hi - lo) - 1).bit_length()  # (a power of two, at least the range's side)
    x0, y0 = lo[:1], lo[1:]
    while len(x0):
        x1, y1 = np.minimum(x0 + size, hi[0]), np.minimum(y0 + size, hi[1])
        boxes = shapely.box(x0, y0, x1, y1)
        # (size 1: the cells' own boxes, as the blocks' corners: a cell of a covered block is covered)
        whole = shapely.area(shapely.intersection(poly, boxes)) > 1e-9 if size == 1 else shapely.covers(poly, boxes)
        for bx0, bx1, by0, by1 in zip(x0[whole], x1[whole], y0[whole], y1[whole], strict=True):
            blocked[height - by1:height - by0, bx0:bx1] = True
        split = ~whole & shapely.intersects(poly, boxes) if size > 1 else whole[:0]
        size //= 2
        x0 = np.concatenate([x0[split], x0[split] + size, x0[split], x0[split] + size])
        y0 = np.concatenate([y0[split], y0[split], y0[split] + size, y0[split] + size])
        inside = (x0 < hi[0]) & (y0 < hi[1])
        x0, y0 = x0[inside], y0[inside]


def _object_outline(obj: Any) -> npt.NDArray[np.float64] | None:
    """The ``(k, 2)`` outline of a Tiled rectangle, ellipse (as a 32-gon) or polygon object in
    map pixels (y down, its rotation applied); None for points, polylines, text and tiles."""
    at, size = (obj.coordinates.x, obj.coordinates.y), (obj.size.width, obj.size.height)
    if isinstance(obj, tiled_object.Polygon):
        return object_outline("polygon", at, size, obj.rotation, [(p.x, p.y) for p in obj.points])
    if isinstance(obj, tiled_object.Rectangle):
        return object_outline("rectangle", at, size, obj.rotation)
    if isinstance(obj, tiled_object.Ellipse):
        return object_outline("ellipse", at, size, obj.rotation)
    return None


def navmesh_from_tilemap(tile_map: Any, layer: str, *, walkable: bool = False,
                         agent_radius: float = 0.0) -> Any:
    """A :class:`~gamenav.NavMesh` from the polygons, rectangles and ellipses of a Tiled object layer.

    Args:
        tile_map: an ``arcade.TileMap``.
        layer: the name of an object layer (also one inside a group layer; of several, the last:
            the one in ``tile_map.object_lists``).
        walkable: False: the objects are obstacles cut out of the whole map rectangle;
            True: their union is the walkable area.
        agent_radius: obstacles are inflated (the free space shrunk) by this many world units.

    Coordinates are arcade world coordinates, those of the map's tile sprites (``scaling`` and
    ``offset`` applied): objects are read from ``tile_map.tiled_map`` with their rotation and the
    Tiled offsets of the layer and its groups (as :func:`gamenav.adapters.pygame.navmesh_from_tmx`
    places them),
    ellipses as 32-gons; points, polylines, text and tile objects, and shapes of no area (zero width
    or height, points on one line), enclose no area and are ignored.

    Raises:
        InvalidInputError: ``layer`` is not the name of an object layer with polygons,
            rectangles or ellipses, ``walkable`` is not a bool, a bad ``agent_radius``, or a
            ``tile_map.scaling`` or ``offset`` that is not finite (scaling: > 0).
        MapFormatError: an object with NaN or infinite coordinates or ones outside
            ``gamenav.navmesh.MAX_COORDINATE`` (the message names the file and the object's id),
            tiles of 0 or fewer pixels, or a layer offset that is not finite.
        InvalidGeometryError: the objects leave no walkable area, or the map reaches beyond
            ``gamenav.navmesh.MAX_COORDINATE``.
    """
    import gamenav

    layers = [found for found in _layers(tile_map) if isinstance(found, pytiled_parser.ObjectLayer)]
    if not isinstance(layer, str):
        raise InvalidInputError(f"layer must be a layer name (str), got {shown(layer)}")
    walkable = flag(walkable, "walkable")
    group = next((found for found in reversed(layers) if found.name == layer), None)  # (the last, as in arcade)
    if group is None:
        raise InvalidInputError(
            f"object layer {layer!r} not found; the map's object layers are {[found.name for found in layers]}")
    scale, (ox, oy) = _placement(tile_map)
    shift = _layer_offset(tile_map, group)
    bottom = float(tile_map.height * tile_map.tile_height)  # map pixels (y down) of the map's bottom edge
    polygons = []
    for obj in group.tiled_objects:
        outline = _object_outline(obj)
        if outline is None or len(outline) < 3:
            continue
        outline += shift
        if not (np.abs(outline) <= MAX_COORDINATE).all():  # (NaN too; map pixels, as in the file)
            raise MapFormatError(f"object {obj.id} of layer {layer!r} has NaN or infinite coordinates, or "
                                 f"ones outside [-{MAX_COORDINATE:g}, {MAX_COORDINATE:g}]: {outline.tolist()}",
                                 path=getattr(tile_map.tiled_map, "map_file", None))
        points = np.stack([outline[:, 0] * scale + ox, (bottom - outline[:, 1]) * scale + oy], axis=1)
        if encloses_area(outline):  # (in map pixels: scaled far out, a shape may lose its area to rounding)
            polygons.append(shapely.Polygon(points))
    if not polygons:
        raise InvalidInputError(f"object layer {layer!r} has no polygons, rectangles or ellipses")
    if walkable:
        return gamenav.NavMesh.from_polygons(polygons, agent_radius=agent_radius)
    w = tile_map.width * tile_map.tile_width * scale
    h = tile_map.height * tile_map.tile_height * scale
    return gamenav.NavMesh.from_polygons(shapely.box(ox, oy, ox + w, oy + h), obstacles=polygons,
                                         agent_radius=agent_radius)


# -- debug drawing -----------------------------------------------------------------------
_BLOCK = 1024
"""Cells per side of one picture texture: every OpenGL 3.3 GPU holds 1024 x 1024 (a 1 x 20000 map
was one texture wider than the atlas's 16384)."""


class _CellPicture:
    """An RGBA picture of a grid's cells as arcade textures, one pixel per cell, in blocks of at
    most ``_BLOCK`` x ``_BLOCK`` cells drawn over their part of the grid's area with pixelated
    sampling; repainted in place in the atlas. ``key``: what the picture shows (its owner
    repaints it when that changes)."""

    _count = itertools.count()

    def __init__(self, grid: TileGrid, atlas: Any, name: str) -> None:
        self.atlas = atlas
        self.key: Any = None
        self.blocks = [  # (first image row, first column, texture); image row 0 is on top
            (i, j, arcade.Texture(PIL.Image.new("RGBA", (min(_BLOCK, grid.width - j), min(_BLOCK, grid.height - i))),
                                  hash=f"gamenav-{name}-{next(self._count)}",
                                  hit_box_algorithm=arcade.hitbox.algo_bounding_box))
            for i in range(0, grid.height, _BLOCK) for j in range(0, grid.width, _BLOCK)]

    @property
    def texture(self) -> arcade.Texture:
        """The first block's texture (the only one for a grid of at most ``_BLOCK`` cells a side)."""
        return self.blocks[0][2]

    def paint(self, grid: TileGrid, rgba: npt.NDArray[np.uint8]) -> None:
        """Show ``rgba`` ``(h, w, 4)``, a colour per cell (row y of the grid at index y)."""
        rows = rgba if grid.y_up else rgba[::-1]  # (the image's row 0 is on top)
        for i, j, texture in self.blocks:
            texture.image.paste(PIL.Image.fromarray(np.ascontiguousarray(rows[i:i + _BLOCK, j:j + _BLOCK])))
            if self.atlas.has_texture(texture):
                self.atlas.update_texture_image(texture)

    def draw(self, grid: TileGrid) -> None:
        ox, oy = grid.origin
        cs = grid.cell_size
        for i, j, texture in self.blocks:
            w, h = texture.image.size
            arcade.draw_texture_rect(texture, arcade.LBWH(ox + j * cs, oy + (grid.height - i - h) * cs, w * cs, h * cs),
                                     pixelated=True)


_pictures: IdentityMap[TileGrid, _CellPicture] = IdentityMap()
"""The blocked-cell picture of each grid drawn (dropped with the grid; the atlas frees its texture)."""
_field_pictures: IdentityMap[TileGrid, _CellPicture] = IdentityMap()
"""The :func:`draw_expansions` picture of each grid drawn."""
_grid_lines: IdentityMap[TileGrid, tuple[Any, Any]] = IdentityMap()
"""Each grid's cell borders as an arcade line shape, with the (colour, context) it shows (a grid's
lines never move: its shape, cell size and origin are fixed)."""


def _picture(pictures: IdentityMap[TileGrid, _CellPicture], grid: TileGrid, name: str) -> _CellPicture:
    """The grid's picture in ``pictures``, made anew for another window's atlas."""
    atlas = arcade.get_window().ctx.default_atlas
    picture = pictures.get(grid)
    if picture is None or picture.atlas is not atlas:
        picture = pictures[grid] = _CellPicture(grid, atlas, name)
    return picture


def draw_grid(grid: TileGrid, *, line_color: Color | None = (255, 255, 255, 40),
              blocked_color: Color | None = (200, 40, 40, 90)) -> None:
    """Draw grid lines and (optionally) blocked cells as translucent squares.

    The blocked cells are one cached texture per grid (one pixel per cell, drawn scaled with
    pixelated sampling), repainted only when the grid's version or ``blocked_color`` changes; the
    lines are one line shape per grid kept in the GPU, made again only for another ``line_color``
    or window (3102 lines of a 1550 x 1550 grid took 4 ms of Python a frame)."""
    _check_type(grid, TileGrid, "grid")
    blocked = None if blocked_color is None else _color(blocked_color, "blocked_color")
    lined = None if line_color is None else _color(line_color, "line_color")
    cs = grid.cell_size
    ox, oy = grid.origin
    if blocked is not None:
        color = tuple(blocked)
        picture = _picture(_pictures, grid, "blocked-cells")
        key = (grid.version, color)
        if key != picture.key:
            rgba = np.zeros((*grid.shape, 4), dtype=np.uint8)
            rgba[~grid.passable] = color
            picture.paint(grid, rgba)
            picture.key = key
        picture.draw(grid)
    if lined is not None:
        line_key = (tuple(lined), arcade.get_window().ctx)
        lines = _grid_lines.get(grid)
        if lines is None or lines[0] != line_key:
            lx = ox + np.arange(grid.width + 1) * cs
            ly = oy + np.arange(grid.height + 1) * cs
            top, right = oy + grid.height * cs, ox + grid.width * cs
            vertical = np.stack([np.stack([lx, np.full_like(lx, oy)], 1), np.stack([lx, np.full_like(lx, top)], 1)], 1)
            horizontal = np.stack([np.stack([np.full_like(ly, ox), ly], 1),
                                   np.stack([np.full_like(ly, right), ly], 1)], 1)
            shape: arcade.shape_list.ShapeElementList[Any] = arcade.shape_list.ShapeElementList()
            shape.append(arcade.shape_list.create_lines(
                [(x, y) for x, y in np.concatenate([vertical, horizontal]).reshape(-1, 2).tolist()], lined))
            lines = _grid_lines[grid] = (line_key, shape)
        lines[1].draw()


_FIELD_COLORS = np.array([(int(255 - 120 * t), int(220 - 200 * t), int(60 + 160 * t))
                          for t in np.arange(8) / 7], dtype=np.uint8)
"""The 8 shades of :func:`draw_expansions`, near (yellow) to far (purple)."""


def draw_expansions(grid: TileGrid, values: npt.ArrayLike, *, alpha: int = 110) -> None:
    """Draw the cells a search reached: an ``(h, w)`` bool mask, or a float field (distance
    field / g-costs; ``inf`` = not reached) shaded from yellow (near) to purple (far).

    One texture per grid (a pixel per cell, drawn scaled with pixelated sampling), repainted only
    when the values (compared with a copy of those it shows: edits in place count) or ``alpha``
    change; a repaint of a 1550 x 1550 field takes about 60 ms, a frame showing the same values
    a few ms."""
    _check_type(grid, TileGrid, "grid")
    arr = np.asarray(values)
    if arr.shape != grid.shape:
        raise InvalidInputError(f"values must have the grid's shape {grid.shape}, got {arr.shape}")
    if arr.dtype.kind not in "biuf":
        raise InvalidInputError(f"values must be a bool mask or a field of numbers, got dtype {arr.dtype}")
    if not (is_int(alpha) and 0 <= alpha <= 255):
        raise InvalidInputError(f"alpha must be an int from 0 to 255, got {shown(alpha)}")
    if arr.dtype.kind == "f" and arr.dtype.itemsize > 8:  # (long doubles: beyond float64, inf: not reached)
        with np.errstate(over="ignore"):
            arr = arr.astype(np.float64)
    reached = arr if arr.dtype == np.bool_ else np.isfinite(arr)
    if not reached.any():
        return
    picture = _picture(_field_pictures, grid, "expansions")
    drawn = picture.key
    if drawn is None or drawn[1] != alpha or drawn[0].dtype != arr.dtype or not (
            np.array_equal(drawn[0], arr) or arr.dtype.kind == "f" and np.array_equal(drawn[0], arr, equal_nan=True)):
        picture.paint(grid, _field_rgba(arr, reached, int(alpha)))
        picture.key = (arr.copy(), alpha)
    picture.draw(grid)


def _field_rgba(arr: npt.NDArray[Any], reached: npt.NDArray[np.bool_], alpha: int) -> npt.NDArray[np.uint8]:
    """The ``(h, w, 4)`` colours :func:`draw_expansions` shows for ``arr`` (``reached``: its finite cells)."""
    palette = np.zeros((9, 4), dtype=np.uint8)  # (by shade + 1; 0: not drawn)
    palette[1:] = (255, 220, 60, alpha) if arr.dtype == np.bool_ else np.c_[_FIELD_COLORS, np.full(8, alpha)]
    if arr.dtype == np.bool_:
        shade = reached.view(np.uint8)
    else:
        v = np.where(reached, arr, 0).astype(np.float64, copy=False)
        with np.errstate(over="ignore"):  # (-1e308 scaled is -inf: clipped, not drawn)
            scaled = v / max(float(v[reached].max()), 1e-9) * 8
        # (clipped before the cast; values below -1/8 of the largest: not drawn, as before; above: the first shade)
        shade = np.where(reached, np.clip(scaled, -1, 7).astype(np.int8) + 1, 0).astype(np.uint8, copy=False)
    rgba: npt.NDArray[np.uint8] = palette[shade]  # (one lookup per cell: fancy-indexed writes took twice as long)
    return rgba


def draw_path(path: Path | npt.ArrayLike, *, color: Color = (255, 255, 255, 200), width: float = 2.0,
              points: bool = False) -> None:
    """Draw a :class:`~gamenav.Path` (its world ``points``) or an ``(n, 2)`` array as a polyline;
    with ``points=True``, also a square dot on each point."""
    pts = _path_points(path)
    color = _color(color, "color")
    width = positive_number(width, "width")
    points = flag(points, "points")  # (not a truth value: an array of points given here was ambiguous to numpy)
    if not len(pts):
        return
    lines, dots = [pts] if len(pts) >= 2 else [], pts
    if not (np.abs(pts) <= _NEAR).all():
        # arcade draws in float32: a point beyond 3.4e38 was inf and the whole line was lost (its legs on
        # screen too), and a leg whose ends both lie far away was drawn 0 wide; legs are cut near the view
        lo, hi = _view_box()
        pad = (hi - lo).max() + 2 * width  # (a dot's or a thick line's edge may reach into the view)
        lo, hi = lo - pad, hi + pad
        lines = clip_polyline(pts, lo, hi) if lines else []
        dots = pts[((pts >= lo) & (pts <= hi)).all(axis=1)]  # (a dot beyond cannot reach into the view)
    for line in lines:
        arcade.draw_line_strip(line.tolist(), color, width)
    if points and len(dots):
        arcade.draw_points(dots.tolist(), color, size=width * 2.5)


_NEAR = 2.0**20
"""World units from the origin within which :func:`draw_path` hands a path to arcade as it is (further
points are cut near the view: the clipping looks up the window's projection, 0.2 ms on a slow machine)."""


def _view_box() -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """The lower and upper world ``(x, y)`` corners of what the window shows: its projection and view
    (a camera's position, zoom and angle) inverted at the screen's corners (all of float64 when they
    cannot be inverted)."""
    ctx = arcade.get_window().ctx
    to_clip = np.array(ctx.view_matrix, np.float64).reshape(4, 4) @ np.array(ctx.projection_matrix,
                                                                              np.float64).reshape(4, 4)
    try:
        corners = np.array([(x, y, 0.0, 1.0) for x in (-1, 1) for y in (-1, 1)]) @ np.linalg.inv(to_clip)
    except np.linalg.LinAlgError:
        corners = np.zeros((1, 4))
    with np.errstate(divide="ignore", invalid="ignore"):
        xy = corners[:, :2] / corners[:, 3:]
    if not np.isfinite(xy).all():
        return np.full(2, -np.finfo(np.float64).max / 4), np.full(2, np.finfo(np.float64).max / 4)
    return xy.min(axis=0), xy.max(axis=0)


_mesh_lines: IdentityMap[NavMesh, tuple[Any, Any]] = IdentityMap()
"""Each navmesh's edges as an arcade line shape, with the (version, colour, context) it shows."""
_mesh_fills: IdentityMap[NavMesh, tuple[Any, Any]] = IdentityMap()
"""Each navmesh's highlighted triangles as an arcade shape, with the (version, ids, colour, context) it shows."""


def _edge_ends(verts: npt.NDArray[np.float64], tris: npt.NDArray[np.int64]) -> npt.NDArray[np.float64]:
    """The two ends of every edge of triangles ``tris`` (each shared edge once): ``(2 * edges, 2)``."""
    edges = np.concatenate([tris[:, [0, 1]], tris[:, [1, 2]], tris[:, [2, 0]]])
    edges = np.unique(np.sort(edges, axis=1), axis=0)
    ends: npt.NDArray[np.float64] = verts[edges].reshape(-1, 2)
    return ends


def draw_navmesh(mesh: Any, *, color: Color = (120, 220, 255, 110), path: Path | None = None,
                 portal_color: Color = (255, 200, 40, 220), width: float = 1.0,
                 highlight: npt.ArrayLike | None = None, highlight_color: Color = (255, 240, 120, 90)) -> None:
    """Draw a navmesh's triangle edges; with ``path``, also the portals (shared edges) of its
    corridor; with ``highlight`` (triangle ids, e.g. :attr:`gamenav.NavMeshChange.added`), also
    fill those triangles. Dead triangles of an edited mesh are never drawn. At ``width`` 1 the
    edges are kept in the GPU as one shape per mesh, made again only after an edit or with
    another colour (big meshes drew for seconds a frame); so are the highlighted triangles, made
    again for other ids."""
    _check_type(mesh, NavMesh, "mesh")
    if path is not None:
        _check_type(path, Path, "path")
    width = positive_number(width, "width")
    color, portal_color = _color(color, "color"), _color(portal_color, "portal_color")
    fill = _color(highlight_color, "highlight_color")
    state = mesh._snapshot()  # (one state: an edit in another thread meanwhile cannot tear the arrays)
    verts = np.asarray(state.vertices, dtype=np.float64)
    tris = np.asarray(state.triangles, dtype=np.int64)  # rows are triangle ids, dead ones too
    if path is not None and len(path.corridor) and not 0 <= path.corridor.min() <= path.corridor.max() < len(tris):
        raise InvalidInputError(
            f"path's corridor must hold triangle ids of this mesh (0 to {len(tris) - 1}), got ids "
            f"{path.corridor.min()} to {path.corridor.max()} (a path found on another mesh?)")
    live = np.asarray(state.alive, dtype=bool)
    if highlight is not None:
        try:
            raw = np.asarray(highlight)
            ints = raw.size == 0 or raw.dtype.kind in "iu"  # (not bools, floats, or 10**30: an object)
        except ValueError:  # ragged
            ints = False
        if not ints:
            raise InvalidInputError(f"highlight must be triangle ids (ints), got {shown(highlight)}")
        ids = raw.astype(np.int64).ravel()
        ids = ids[(ids >= 0) & (ids < len(tris))]
        ids = ids[live[ids]]
        fill_key = (state.version, ids.tobytes(), fill, arcade.get_window().ctx)
        fills = _mesh_fills.get(mesh)
        if fills is None or fills[0] != fill_key:  # (one shape of all the triangles: a draw call each took 0.1 ms)
            filled: arcade.shape_list.ShapeElementList[Any] = arcade.shape_list.ShapeElementList()
            if len(ids):
                corners = verts[tris[ids]].reshape(-1, 2).tolist()
                filled.append(arcade.shape_list.create_triangles_filled_with_colors(corners, [fill] * len(corners)))
            fills = _mesh_fills[mesh] = (fill_key, filled)
        fills[1].draw()
    if width == 1.0:  # the edges as one line shape in the GPU, made again only after an edit
        key = (state.version, tuple(color), arcade.get_window().ctx)
        cached = _mesh_lines.get(mesh)
        if cached is None or cached[0] != key:
            shape: arcade.shape_list.ShapeElementList[Any] = arcade.shape_list.ShapeElementList()
            ends = _edge_ends(verts, tris[live])
            if len(ends):
                shape.append(arcade.shape_list.create_lines(ends.tolist(), color))
            cached = _mesh_lines[mesh] = (key, shape)
        cached[1].draw()
    else:
        ends = _edge_ends(verts, tris[live])
        if len(ends):
            arcade.draw_lines(ends.tolist(), color, width)
    if path is not None and len(path.corridor) >= 2:  # (ids index the unfiltered rows)
        here, there = tris[path.corridor[:-1]], tris[path.corridor[1:]]
        shared = (here[:, :, None] == there[:, None, :]).any(axis=2)  # here's corners that are there's too
        portals = shared.sum(axis=1) == 2  # (a pair of triangles sharing an edge: its two ends, lower id first)
        ends = np.sort(np.where(shared, here, len(verts)), axis=1)[portals, :2]
        if len(ends):
            arcade.draw_lines([(x, y) for x, y in verts[ends].reshape(-1, 2).tolist()], portal_color, width * 2)


# -- following ---------------------------------------------------------------------------
_ROUNDING = 0.5
"""A sprite moved by at most this much per axis since a PathFollower wrote its position was
rounded by the game (to whole pixels), not moved (on cells under 4 units: onto whole numbers,
or by at most an eighth of a cell; a knock of 0.4 units on cells of 0.25, 1.6 cells, is a move)."""


def _unmoved(value: float, written: float, allowance: float) -> bool:
    """Whether a sprite's coordinate ``value`` is ``written`` (as its PathFollower wrote it) up to
    the game's rounding: at most ``allowance`` away, or :data:`_ROUNDING` onto a whole number."""
    change = abs(value - written)  # (NaN: moved, and refused)
    return change <= allowance or change <= _ROUNDING and float(value).is_integer()


class PathFollower(Follower):
    """Moves an arcade sprite along paths requested through a ``gamenav.PathQueue``.

    A :class:`~gamenav.Follower`: it walks its path's legs (any speed, stopping exactly on the
    goal), with stuck detection and re-pathing after grid edits. Call ``queue.update()`` once per
    frame, then :meth:`update` for each follower; the sprite's position is written on every update.
    When the game moved the sprite since (a teleport, a knockback, a respawn: ``sprite.position =
    ...``), :meth:`update` first puts the agent there (:meth:`~gamenav.Follower.place`), so it walks
    on from where the sprite now is (moved onto a wall or off the map: from the nearest point of
    the nearest free cell; a push of at most half a cell beside its route keeps its path). A game
    that rounds sprite positions to whole pixels (pixel art) is not moving them: a change of at
    most half a unit on each axis (on cells under 4 units: onto a whole number, or of at most an
    eighth of a cell) is taken as rounding, and the agent walks on from its own unrounded position.

    Args:
        sprite: the sprite to move (its current position is the start; it must be on a passable cell).
        grid: the walkable grid (e.g. from :func:`grid_from_tilemap`).
        speed: world units per second.
        queue: a ``gamenav.PathQueue``, or ``None`` to search at once with ``find_path``.
        world: search on this NavMesh instead of the grid (the grid still keeps the sprite off walls).
        radius: the sprite's radius for wall margins (default: a quarter cell).
        **path_options: options for each path request (e.g. ``smooth=True``).

    Example:
        >>> import arcade, gamenav
        >>> grid = gamenav.TileGrid.from_strings(["....", ".##.", "...."], cell_size=32, y_up=True)
        >>> sprite = arcade.SpriteSolidColor(8, 8, center_x=16, center_y=80)
        >>> follower = PathFollower(sprite, grid, speed=200)
        >>> follower.move_to((112, 16))
        >>> for _ in range(120):
        ...     follower.update(1 / 60)
        >>> follower.arrived, [round(v) for v in sprite.position]
        (True, [112, 16])
    """

    def __init__(self, sprite: arcade.BasicSprite, grid: TileGrid, *, speed: float, queue: Any = None,
                 world: Any = None, radius: float | None = None, **path_options: Any) -> None:
        _check_type(sprite, arcade.BasicSprite, "sprite")
        self.sprite = sprite
        start = finite_point(sprite.position, "the sprite's position").tolist()
        super().__init__(grid, start, speed=speed, queue=queue, world=world, radius=radius, **path_options)
        self._written = sprite.position  # (the sprite's position as the follower left it)
        self._rounding = min(_ROUNDING, grid.cell_size / 8)  # (any change this small is not a move)

    def update(self, dt: float) -> None:
        """Place the agent where the game moved the sprite (if it did), advance ``dt`` seconds
        and write the sprite's new position."""
        self._check_open("update")
        if not all(_unmoved(v, w, self._rounding) for v, w in zip(self.sprite.position, self._written, strict=True)):
            self._place_near(finite_point(self.sprite.position, "the sprite's position").tolist())
        super().update(dt)
        self.sprite.position = self.position
        self._written = self.sprite.position
