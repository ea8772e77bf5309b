"""pygame (pygame-ce) adapter: grids from Rects, masks or Tiled maps (pytmx), navmeshes from Tiled
objects, debug drawing, a path follower.

World coordinates here are pygame pixels, ``(x, y)`` with y growing downwards, so every grid
built by this module has ``y_up=False`` and :meth:`TileGrid.cell_to_world` returns pixel
positions (``Path.points`` are pixels too). Grid arrays are indexed ``[y, x]`` (row, column).

This is a leaf module: ``import gamenav`` never imports it (or pygame). Install the extra
(pygame-ce and pytmx) from a gamenav checkout with ``pip install -e ".[pygame]"`` (once gamenav
is on the package index: ``pip install "gamenav[pygame]"``).

Example:
    >>> import pygame
    >>> from gamenav.adapters.pygame import grid_from_rects
    >>> grid = grid_from_rects([pygame.Rect(32, 0, 32, 64)], size=(128, 64), cell_size=32)
    >>> grid.passable.astype(int).tolist()
    [[1, 0, 1, 1], [1, 0, 1, 1]]
"""

from __future__ import annotations

import math
import os
import warnings
from collections.abc import Iterable, Sequence
from typing import Any
from xml.etree import ElementTree

import numpy as np
import numpy.typing as npt
import shapely

try:
    import pygame
except ImportError as exc:  # pragma: no cover - exercised by a test that hides pygame
    raise ImportError(
        'gamenav.adapters.pygame needs pygame-ce; from a gamenav checkout install it with: '
        'pip install -e ".[pygame]"'
    ) from exc

from gamenav._identity import IdentityMap
from gamenav._validate import (finite_point, flag, float_numbers, grid_dimensions, is_int, is_real, positive_number,
                               real_number, shown)
from gamenav import Follower, InvalidInputError, MapFormatError, NavMesh, Path, TileGrid
from gamenav.navmesh import MAX_COORDINATE
from gamenav.adapters._draw import clip_polyline
from gamenav.adapters._tiled import encloses_area, layer_offset, object_outline
from gamenav.io._text import read_bytes

__all__ = ["PathFollower", "draw_grid", "draw_path", "grid_from_mask", "grid_from_rects", "grid_from_tmx",
           "navmesh_from_tmx"]

ColorLike = Any
"""A colour ``pygame.Color`` accepts: a name, ``"#rrggbb"``, or ``(r, g, b)`` / ``(r, g, b, a)`` ints 0-255."""


def _color(value: ColorLike, name: str) -> pygame.Color:
    """``value`` as a ``pygame.Color``; an InvalidInputError naming ``name`` where pygame's said only
    "invalid color name" (or a TypeError), and for components that are not ints (pygame truncates
    floats and reads bools as 0 and 1: a normalised ``(1.0, 0.5, 0.0)`` drew (1, 0, 0), near black)."""
    try:
        if isinstance(value, (tuple, list, np.ndarray)) and not all(is_int(v) for v in value):
            raise TypeError
        return pygame.Color(value)
    except (TypeError, ValueError):
        raise InvalidInputError(f"{name} must be a colour: a name, '#rrggbb', or (r, g, b) or (r, g, b, a) "
                                f"ints from 0 to 255, got {shown(value)}") from None


def _pair(value: Sequence[float], name: str) -> tuple[float, float]:
    x, y = finite_point(value, name)
    return float(x), float(y)


def _check_type(value: Any, expected: type, name: str) -> None:
    """An InvalidInputError unless ``value`` is an ``expected`` (e.g. a NavMesh where a TileGrid goes)."""
    if not isinstance(value, expected):
        module = "gamenav" if expected.__module__.startswith("gamenav") else expected.__module__.split(".")[0]
        article = "an" if module[0] in "aeiou" else "a"
        raise InvalidInputError(f"{name} must be {article} {module}.{expected.__name__}, got {type(value).__name__}")


def _sprite_rect(sprite: pygame.sprite.Sprite) -> pygame.Rect | pygame.FRect:
    rect = getattr(sprite, "rect", None)
    if not isinstance(rect, (pygame.Rect, pygame.FRect)):  # (a tuple has no ``center`` to read or write)
        raise InvalidInputError(f"the sprite's rect must be a pygame.Rect or FRect, got {rect!r}: {sprite!r}")
    return rect


def _rect_array(rects: Iterable[Any]) -> npt.NDArray[np.float64]:
    """``(n, 4)`` float64 ``(x, y, w, h)`` from Rects, FRects, 4-tuples or objects with ``.rect``."""
    if isinstance(rects, (pygame.Rect, pygame.FRect, str, bytes)) or not isinstance(rects, Iterable):
        raise InvalidInputError(
            f"rects must be an iterable of (x, y, w, h) rectangles (e.g. a list), got {shown(rects)}")
    # (one by one, but for an array of numbers: a float64 cast reads "5" and True as numbers)
    rows = rects if isinstance(rects, np.ndarray) and rects.dtype != object else [_rect_row(r) for r in rects]
    try:
        raw = np.asarray(rows) if len(rows) else np.zeros((0, 4))
        if raw.dtype.kind not in "iufO":
            raise TypeError
        with np.errstate(over="ignore"):  # (a long double beyond float64 is inf: refused below)
            arr = raw.astype(np.float64)
    except (TypeError, ValueError, OverflowError):  # (OverflowError: an int beyond float64)
        raise InvalidInputError("rects must be (x, y, w, h) rectangles of numbers") from None
    if arr.ndim != 2 or arr.shape[1] != 4:
        raise InvalidInputError(
            f"rects must be (x, y, w, h) rectangles, got an array of shape {arr.shape}")
    if not np.isfinite(arr).all():
        raise InvalidInputError("rects must have finite coordinates (got NaN or inf)")
    return arr


def _rect_row(item: Any) -> tuple[Any, ...]:
    """The ``(x, y, w, h)`` of one of :func:`_rect_array`'s rectangles (a sprite's ``.rect``), checked to be
    numbers (how many: by the array's shape); the message names the item (a Surface, or a sprite with no
    rect, was not named)."""
    row = getattr(item, "rect", item)
    values = tuple(row) if isinstance(row, Iterable) else ()
    if not values or not all(is_real(v) for v in values):
        raise InvalidInputError(f"rects must be (x, y, w, h) rectangles of numbers (Rects, 4-tuples or sprites "
                                f"with a rect), got {shown(item)}"
                                + ("" if row is item else f" with the rect {shown(row)}"))
    return values


def grid_from_rects(rects: Iterable[Any], *, size: Sequence[float], cell_size: float,
                    origin: Sequence[float] = (0, 0)) -> TileGrid:
    """A :class:`~gamenav.TileGrid` whose cells overlapped by any wall rectangle are blocked.

    A cell is blocked when a rectangle covers part of it with positive area; rectangles that only
    touch a cell's edge, have zero width or height, or lie outside the grid block nothing.
    Negative sizes are normalised like ``Rect.normalize()``. Runs in O(rects + cells) numpy
    operations (a 2-D difference array), with no Python loop over cells.

    Args:
        rects: wall rectangles in pixels: ``pygame.Rect`` / ``FRect``, ``(x, y, w, h)``
            tuples, sprites (their ``.rect`` is used) or an ``(n, 4)`` array.
        size: ``(width, height)`` in pixels of the area the grid covers (e.g.
            ``screen.get_size()``); the grid has ``ceil(width / cell_size)`` columns and
            ``ceil(height / cell_size)`` rows.
        cell_size: pixels per cell (> 0).
        origin: pixel ``(x, y)`` of the grid's top-left corner.

    Returns:
        a y-down grid (``y_up=False``) with uniform cost 1.

    Example:
        >>> grid = grid_from_rects([(10, 10, 5, 5)], size=(40, 20), cell_size=10)
        >>> grid.passable.astype(int).tolist()
        [[1, 1, 1, 1], [1, 0, 1, 1]]
    """
    cs = positive_number(cell_size, "cell_size")
    cols, rows = grid_dimensions(size, cs)
    ox, oy = _pair(origin, "origin")
    r = _rect_array(rects)
    with np.errstate(over="ignore"):  # (beyond float64: an infinite edge or cell number, clipped to the grid)
        left, right = np.minimum(r[:, 0], r[:, 0] + r[:, 2]), np.maximum(r[:, 0], r[:, 0] + r[:, 2])
        top, bottom = np.minimum(r[:, 1], r[:, 1] + r[:, 3]), np.maximum(r[:, 1], r[:, 1] + r[:, 3])
        # Half-open cell ranges [x0, x1) overlapped with positive area, clipped to the grid; float
        # noise of 1e-9 cell is forgiven (0.3 / 0.1 is 2.9999999999999996: an edge, not an overlap).
        x0 = np.clip(np.floor((left - ox) / cs + 1e-9), 0, cols).astype(np.int64)
        x1 = np.clip(np.ceil((right - ox) / cs - 1e-9), 0, cols).astype(np.int64)
        y0 = np.clip(np.floor((top - oy) / cs + 1e-9), 0, rows).astype(np.int64)
        y1 = np.clip(np.ceil((bottom - oy) / cs - 1e-9), 0, rows).astype(np.int64)
    keep = (x0 < x1) & (y0 < y1) & (left < right) & (top < bottom)
    x0, x1, y0, y1 = x0[keep], x1[keep], y0[keep], y1[keep]
    diff = np.zeros((rows + 1, cols + 1), dtype=np.int64)
    np.add.at(diff, (y0, x0), 1)
    np.add.at(diff, (y0, x1), -1)
    np.add.at(diff, (y1, x0), -1)
    np.add.at(diff, (y1, x1), 1)
    covered = diff.cumsum(axis=0).cumsum(axis=1)[:rows, :cols] > 0
    return TileGrid(~covered, cell_size=cs, origin=(ox, oy), y_up=False)


def grid_from_mask(mask: pygame.mask.Mask, *, cell_size: int, threshold: float | None = None,
                   origin: Sequence[float] = (0, 0)) -> TileGrid:
    """A :class:`~gamenav.TileGrid` whose cells are blocked where a ``pygame.mask.Mask`` has set bits.

    Mask pixel ``(px, py)`` lies in cell ``(px // cell_size, py // cell_size)``; the grid has
    ``ceil(mask_width / cell_size)`` columns (edge cells may hold fewer pixels). The mask is
    rendered once into an 8-bit surface (``Mask.to_surface``) and read through
    ``pygame.surfarray``; counting per cell is a numpy block sum, with no Python loop over
    cells. A 2048x2048 mask takes roughly 20 ms with 16-pixel cells and 40-80 ms with 4-pixel
    cells (a one-time cost at level load). A Python loop of ``Mask.overlap_area`` per cell is
    O(cells) calls: about 4x faster for 16k big cells, slower for fine grids.

    Args:
        mask: set bits are walls (e.g. ``pygame.mask.from_surface(level_image)``).
        cell_size: pixels per cell, an integer >= 1.
        threshold: ``None`` blocks a cell with any set bit; a number in (0, 1] blocks a cell
            when at least that fraction of its pixels (inside the mask) is set.
        origin: pixel ``(x, y)`` of the mask's top-left corner in the world.

    Returns:
        a y-down grid (``y_up=False``) with uniform cost 1.
    """
    if not isinstance(mask, pygame.mask.Mask):
        raise InvalidInputError(f"mask must be a pygame.mask.Mask, got {type(mask).__name__}")
    if not is_real(cell_size) or not 1 <= cell_size <= 1 << 31 or not float(cell_size).is_integer():
        raise InvalidInputError(f"cell_size must be an integer from 1 to 2**31 for masks, got {shown(cell_size)}")
    if threshold is not None and not (is_real(threshold) and 0 < threshold <= 1):  # (no float(): 10**400)
        raise InvalidInputError(f"threshold must be None or in (0, 1], got {shown(threshold)}")
    cs = int(cell_size)
    width, height = mask.get_size()
    if width == 0 or height == 0:
        raise InvalidInputError(f"mask must not be empty, got size {(width, height)}")
    surface = pygame.Surface((width, height), depth=8)
    surface.set_palette([(0, 0, 0)] + [(255, 255, 255)] * 255)
    mask.to_surface(surface, setcolor=(255, 255, 255, 255), unsetcolor=(0, 0, 0, 255))
    bits = pygame.surfarray.pixels2d(surface).T != 0  # [y, x]
    xs, ys = np.arange(0, width, cs), np.arange(0, height, cs)  # first pixel of each cell
    # Block sums; reduceat's last block runs to the end, so edge cells need no padding.
    counts = np.add.reduceat(np.add.reduceat(bits, xs, axis=1, dtype=np.int64), ys, axis=0)
    if threshold is None:
        blocked = counts > 0
    else:
        area = np.outer(np.minimum(cs, height - ys), np.minimum(cs, width - xs))
        blocked = counts / area >= float(threshold)  # (0.28 * 25 is 7.000000000000001; 7 / 25 is 0.28)
    return TileGrid(~blocked, cell_size=cs, origin=_pair(origin, "origin"), y_up=False)


def _pytmx() -> Any:
    try:
        import pytmx
    except ImportError as exc:
        raise ImportError(
            'Tiled maps in the pygame adapter need pytmx; from a gamenav checkout install it with: '
            'pip install -e ".[pygame]"') from exc
    return pytmx


def _tmx_layer(tmx_map: Any, name: str, kind: str) -> Any:
    """The layer ``name`` of a ``pytmx.TiledMap``, checked to be a ``"tile"`` or ``"object"`` layer."""
    pytmx = _pytmx()
    if not isinstance(tmx_map, pytmx.TiledMap):
        raise InvalidInputError(f"tmx_map must be a pytmx.TiledMap, got {type(tmx_map).__name__}")
    if not isinstance(name, str):
        raise InvalidInputError(f"layer must be a layer name (str), got {shown(name)}")
    if tmx_map.orientation != "orthogonal":
        raise InvalidInputError(f"tmx_map must be an orthogonal map, got {tmx_map.orientation!r}")
    layer_type = pytmx.TiledTileLayer if kind == "tile" else pytmx.TiledObjectGroup
    layer = tmx_map.layernames.get(name)
    if not isinstance(layer, layer_type):
        names = [n for n, lay in tmx_map.layernames.items() if isinstance(lay, layer_type)]
        raise InvalidInputError(f"{kind} layer {name!r} not found; the map's {kind} layers are {names}")
    if min(tmx_map.tilewidth, tmx_map.tileheight) <= 0:
        raise MapFormatError(f"tiles must be at least 1 pixel, got {tmx_map.tilewidth} x {tmx_map.tileheight}",
                             path=tmx_map.filename)
    return layer


def _tmx_gids(tmx_map: Any, tiles: Any) -> npt.NDArray[np.int64]:
    """The ``(height, width)`` tile ids of a pytmx tile layer, ``[y, x]``.

    Raises:
        MapFormatError: the layer is not the map's size, or its data is not ``height`` rows of
            ``width`` tile ids (pytmx cuts the data into rows of the layer's width).
    """
    height, width = int(tmx_map.height), int(tmx_map.width)
    rows = tiles.data
    if (tiles.width, tiles.height) != (width, height) or len(rows) != height \
            or any(len(row) != width for row in rows):
        raise MapFormatError(
            f"tile layer {tiles.name!r} must hold {height} rows of {width} tile ids (the map's size), got a "
            f"{tiles.width} x {tiles.height} layer with {len(rows)} rows of {sorted({len(r) for r in rows})} ids",
            path=tmx_map.filename)
    return np.array(rows, dtype=np.int64).reshape(height, width)


_MAX_TEMPLATE_BYTES = 1 << 24
"""The largest Tiled object template (``.tx``) read (16 MiB): a template holds one object, this
room for a polygon of some 500,000 points."""


def _tmx_root(tmx_map: Any, caller: str, lost: str) -> ElementTree.Element | None:
    """The root element of the file of ``tmx_map``, read again for what pytmx does not keep; None for
    a map parsed without a file, or for a file that cannot be read again, with a warning from
    ``caller`` that says what is ``lost``."""
    if tmx_map.filename is None:
        return None
    try:
        return ElementTree.parse(tmx_map.filename).getroot()
    except (OSError, ElementTree.ParseError) as exc:  # moved, deleted or rewritten since pytmx read it
        warnings.warn(f"{caller}: cannot read {os.fspath(tmx_map.filename)!r} again ({exc}): {lost}", stacklevel=3)
        return None


def _tmx_offset(tmx_map: Any, layer: Any, tag: str, root: ElementTree.Element | None) -> tuple[float, float]:
    """The Tiled offset of the pytmx layer ``layer``, its own and its groups', in map pixels (see
    :func:`~gamenav.adapters._tiled.layer_offset`). pytmx keeps no link from a layer to its group
    layers: they are those holding the last ``tag`` element of that name (the one pytmx names) in
    ``root``, the map's file (without it, none)."""
    def holding(node: ElementTree.Element) -> list[ElementTree.Element] | None:
        found = None
        for child in node:
            if child.tag == tag and child.get("name") == layer.name:
                found = []
            elif child.tag == "group" and (inner := holding(child)) is not None:
                found = [child, *inner]
        return found

    def number(text: str) -> float | str:
        try:
            return float(text)
        except ValueError:
            return text  # (for layer_offset to refuse)

    groups = (holding(root) if root is not None else None) or []
    offsets = [(layer.offsetx, layer.offsety)]
    offsets += [(number(node.get("offsetx", "0")), number(node.get("offsety", "0"))) for node in groups]
    return layer_offset(offsets, layer.name, tmx_map.filename)


def _tmx_shapes(tmx_map: Any, group: Any, root: ElementTree.Element | None) -> list[str | None]:
    """The Tiled shape of each object of a pytmx object group, in order: the tag of its shape element
    (``"ellipse"``, ``"point"``, ``"polygon"``, ``"polyline"``, ``"text"``), ``"tile"`` for a tile
    object, None for a rectangle. pytmx keeps no such flag and reads no templates, so shapes are
    read from the object of the same id in ``root``, the map's file (in the last object group of
    that name, the one pytmx names) and its template; an object not found there (no ``root``, an
    id missing or used twice) has only pytmx's tile object and polyline flags.

    Raises:
        MapFormatError: an object made from the template of a rectangle, ellipse or polygon (pytmx
            reads none of its shape), or from a template that cannot be read (not a regular file,
            larger than :data:`_MAX_TEMPLATE_BYTES`, not XML) or is made from itself.
    """
    tags = ("ellipse", "point", "polygon", "polyline", "text")

    def shape(node: ElementTree.Element, file: str, seen: frozenset[str] = frozenset(),
              owner: str | None = None) -> str | None:  # (owner: the id of the map's object, for a template's)
        tag = next((child.tag for child in node if child.tag in tags), None)
        template, owner = node.get("template"), node.get("id") if owner is None else owner
        if tag is None and node.get("gid", "0") != "0":
            tag = "tile"
        elif tag is None and template is not None:
            template_file = os.path.join(os.path.dirname(file), template)
            if os.path.realpath(template_file) in seen:
                raise MapFormatError(f"object {owner} of layer {group.name!r}: its template {template!r} is made "
                                     "from itself", path=tmx_map.filename)
            try:  # (a regular file of at most _MAX_TEMPLATE_BYTES: a FIFO or /dev/stdin never ends)
                base = ElementTree.fromstring(read_bytes(template_file, _MAX_TEMPLATE_BYTES)).find("object")
            except (OSError, MapFormatError, ElementTree.ParseError) as exc:
                raise MapFormatError(f"object {owner} of layer {group.name!r}: cannot read its template "
                                     f"{template!r} ({exc})", path=tmx_map.filename) from exc
            tag = None if base is None else shape(base, template_file, seen | {os.path.realpath(template_file)}, owner)
            if tag in (None, "ellipse", "polygon"):
                raise MapFormatError(f"object {owner} of layer {group.name!r} is made from the template "
                                     f"{template!r}, whose shape pytmx does not read: detach it in Tiled",
                                     path=tmx_map.filename)
        return tag

    by_id: dict[int, ElementTree.Element | None] = {}
    if root is not None:
        found = [node for node in root.iter("objectgroup") if node.get("name") == group.name]
        for node in found[-1].findall("object") if found else []:
            key = int(node.get("id", 0))
            by_id[key] = None if key in by_id else node  # (an id used twice: not known)
    shapes = []
    for obj in group:
        known = by_id.get(obj.id)
        shapes.append(shape(known, os.fspath(tmx_map.filename)) if known is not None
                      else "tile" if obj.gid else None if obj.closed else "polyline")
    return shapes


def grid_from_tmx(tmx_map: Any, layer: str, *, walls: bool = True) -> TileGrid:
    """A :class:`~gamenav.TileGrid` from a tile layer of a Tiled map loaded with pytmx.

    One cell per tile: cell ``(x, y)`` is the layer's tile ``(x, y)`` (``layer.data[y][x]``),
    ``cell_size`` is the tile size in pixels and ``origin`` the layer's Tiled offset
    (``offsetx``, ``offsety`` pixels, those of the group layers holding it added: read from
    ``tmx_map.filename``, as pytmx keeps no groups), so the grid lines up with the map drawn at
    ``(0, 0)`` (``y_up=False``), as :func:`gamenav.adapters.arcade.grid_from_tilemap` places it.

    Args:
        tmx_map: a ``pytmx.TiledMap`` (orthogonal, finite, square tiles), e.g. from
            ``pytmx.load_pygame("level.tmx")`` or ``pytmx.TiledMap("level.tmx")``.
        layer: the name of a tile layer.
        walls: True: the layer's non-empty tiles are walls and every other cell is walkable;
            False: the layer's non-empty tiles are the walkable floor.

    Raises:
        InvalidInputError: not a ``pytmx.TiledMap``, no such tile layer, ``walls`` not a bool,
            non-orthogonal map or non-square tiles.
        MapFormatError: the layer is not the map's size, tiles of 0 or fewer pixels, or a layer
            offset that is not finite (the message names the file).

    Example:
        >>> import pytmx, gamenav
        >>> tmx_map = pytmx.TiledMap(gamenav.data.path("tiny.tmx"))
        >>> grid_from_tmx(tmx_map, "walls").passable.astype(int).tolist()
        [[1, 1, 0, 1, 1, 1], [1, 1, 0, 1, 0, 1], [1, 1, 1, 1, 0, 1], [0, 1, 1, 1, 1, 1]]
    """
    walls = flag(walls, "walls")
    tiles = _tmx_layer(tmx_map, layer, "tile")
    if tmx_map.tilewidth != tmx_map.tileheight:
        raise InvalidInputError(
            f"tiles must be square, got {tmx_map.tilewidth} x {tmx_map.tileheight} pixels")
    occupied = _tmx_gids(tmx_map, tiles) != 0
    pytmx = _pytmx()
    layers = (pytmx.TiledTileLayer, pytmx.TiledObjectGroup, pytmx.TiledImageLayer)  # (the others are groups)
    moved = any(not isinstance(found, layers) and (getattr(found, "offsetx", 0) or getattr(found, "offsety", 0))
                for found in tmx_map.layers)  # (groups with offsets: else no file to read again)
    root = _tmx_root(tmx_map, "grid_from_tmx", f"the offsets of the groups holding layer {layer!r} are left out") \
        if moved else None
    return TileGrid(~occupied if walls else occupied, cell_size=tmx_map.tilewidth,
                    origin=_tmx_offset(tmx_map, tiles, "layer", root), y_up=False)


def navmesh_from_tmx(tmx_map: Any, object_layer: str, *, walkable: bool = False,
                     agent_radius: float = 0.0) -> NavMesh:
    """A :class:`~gamenav.NavMesh` from the polygons, rectangles and ellipses of a Tiled object layer (pytmx).

    Coordinates are map pixels (y down), the objects' points as pytmx places them (rotation
    applied, as ``obj.apply_transformations()`` does) plus the Tiled offsets of the layer and of
    the group layers holding it; ellipses are 32-gons, as in the arcade adapter. Points, text,
    polylines and shapes of no area (zero width or height, fewer than 3 points or points on one line)
    enclose no area and are ignored, and so are tile
    objects (sprites such as decorations or spawn markers: draw a rectangle or polygon to block, or
    put wall tiles in a tile layer for :func:`grid_from_tmx`), as in the arcade adapter. The shapes
    pytmx does not keep (it reads an ellipse as a rectangle), and the groups holding the layer, are
    read again from ``tmx_map.filename`` and its object templates.

    Args:
        tmx_map: a ``pytmx.TiledMap`` (orthogonal).
        object_layer: the name of an object layer.
        walkable: False: the objects are obstacles cut out of the map rectangle
            ``(0, 0, width * tilewidth, height * tileheight)``; True: their union is the
            walkable area.
        agent_radius: obstacles are inflated (the free space shrunk) by this many pixels (>= 0).

    Raises:
        InvalidInputError: not a ``pytmx.TiledMap``, no such object layer, a layer with no
            polygon, rectangle or ellipse, ``walkable`` not a bool or a bad ``agent_radius``.
        MapFormatError: an object with NaN or infinite coordinates or rotation, or coordinates
            outside ``gamenav.navmesh.MAX_COORDINATE`` (the message names the file and the object's
            id), one made from the template of a rectangle, ellipse or polygon (pytmx reads none of
            its shape: detach it in Tiled), tiles of 0 or fewer pixels, or a layer offset that is
            not finite.

    Example:
        >>> import pytmx, gamenav
        >>> mesh = navmesh_from_tmx(pytmx.TiledMap(gamenav.data.path("tiny.tmx")), "obstacles")
        >>> mesh.locate([(10, 10), (48, 12), (20, 48)]).tolist()[1:]  # inside the rock, the wall
        [-1, -1]
    """
    walkable = flag(walkable, "walkable")
    group = _tmx_layer(tmx_map, object_layer, "object")
    root = _tmx_root(tmx_map, "navmesh_from_tmx", f"text and point objects of layer {object_layer!r} are taken "
                     "for rectangles, and the offsets of its groups are left out")
    shift = _tmx_offset(tmx_map, group, "objectgroup", root)
    polygons = []
    for obj, shape in zip(group, _tmx_shapes(tmx_map, group, root), strict=True):
        if shape in ("point", "polyline", "text", "tile"):
            continue  # no area, or a tile object (a sprite)
        if not np.isfinite(obj.rotation):  # (pytmx's math.sin raised "math domain error" for inf)
            raise MapFormatError(f"object {obj.id} of layer {object_layer!r} has the rotation {obj.rotation}",
                                 path=tmx_map.filename)
        at, size = (obj.x, obj.y), (obj.width, obj.height)
        if hasattr(obj, "points"):  # (pytmx's polygon points are the map's: made relative to the object's)
            outline = object_outline("polygon", at, size, obj.rotation, np.subtract(obj.points, at))
        else:
            outline = object_outline("ellipse" if shape == "ellipse" else "rectangle", at, size, obj.rotation)
        points = outline + shift
        if not (np.abs(points) <= MAX_COORDINATE).all():  # (NaN too)
            raise MapFormatError(f"object {obj.id} of layer {object_layer!r} has NaN or infinite coordinates, or "
                                 f"ones outside [-{MAX_COORDINATE:g}, {MAX_COORDINATE:g}]: {points.tolist()}",
                                 path=tmx_map.filename)
        if encloses_area(outline):
            polygons.append(shapely.Polygon(points))
    if not polygons:
        raise InvalidInputError(f"object layer {object_layer!r} has no polygons or rectangles")
    if walkable:
        return NavMesh.from_polygons(polygons, agent_radius=agent_radius)
    area = shapely.box(0.0, 0.0, float(tmx_map.width * tmx_map.tilewidth), float(tmx_map.height * tmx_map.tileheight))
    return NavMesh.from_polygons(area, obstacles=polygons, agent_radius=agent_radius)


_pictures: IdentityMap[TileGrid, tuple[tuple[Any, ...], pygame.Surface | None, tuple[int, int],
                                       npt.NDArray[np.bool_]]] = IdentityMap()
"""The cells :func:`draw_grid` painted last for each grid: ``(the clip area and the colours; the
picture, None when no cell is in the clip area or both colours are None; where it goes; the
passable cells it shows, a grid snapshot's array)``. Dropped with the grid."""


def draw_grid(surface: pygame.Surface, grid: TileGrid, *, blocked_color: ColorLike = (70, 70, 80),
              open_color: ColorLike | None = None, line_color: ColorLike | None = None) -> None:
    """Draw a grid's blocked (and optionally open) cells and grid lines onto a surface.

    Only the part of the grid inside the surface's clip area is painted: each pixel there takes
    the colour of the cell under its centre, built with ``pygame.surfarray`` in one picture the
    size of that area (no loop over cells, and memory bounded by the surface, however big the
    map), then blitted. The picture is kept (one per grid): a frame blits it (about 0.5 ms for
    1550 x 1550 cells); after an edit only its part over the cells the edit changed is painted
    again, and all of it for another clip area or other colours. Colours may carry alpha for
    translucent overlays.

    Args:
        surface: the target; world coordinates are its pixel coordinates.
        grid: the grid to draw (``y_up`` grids are drawn with row 0 at the bottom).
        blocked_color: fill of cells that are not passable.
        open_color: fill of passable cells; ``None`` leaves them untouched.
        line_color: colour of 1-pixel cell borders; ``None`` draws none.
    """
    _check_type(surface, pygame.Surface, "surface")
    _check_type(grid, TileGrid, "grid")
    state = grid._snapshot()  # (the version and the cells of one snapshot: an edit in a thread cannot tear them)
    clip = surface.get_clip()
    colors = tuple(None if color is None else tuple(_color(color, name))
                   for color, name in ((blocked_color, "blocked_color"), (open_color, "open_color")))
    lined = None if line_color is None else _color(line_color, "line_color")
    key = (tuple(clip), colors)
    picture = _pictures.get(grid)
    if picture is None or picture[0] != key:
        picture = _pictures[grid] = (key, *_cell_picture(grid, state.passable, clip, colors), state.passable)
    elif picture[3] is not state.passable:  # (edited: a snapshot's arrays are never modified)
        if picture[1] is not None:
            _repaint(picture[1], picture[2], grid, picture[3], state.passable, colors)
        picture = _pictures[grid] = (*picture[:3], state.passable)
    if picture[1] is not None:
        surface.blit(picture[1], picture[2])
    if lined is not None:  # the lines' parts inside the clip area (pixel numbers stay small)
        cs = grid.cell_size
        (ox, oy), (h, w) = grid.origin, grid.shape
        left, right, top, bottom = clip.left, clip.right - 1, clip.top, clip.bottom - 1
        x_lo, x_hi = max(round(ox), left), min(round(ox + w * cs), right)
        y_lo, y_hi = max(round(oy), top), min(round(oy + h * cs), bottom)
        if x_lo <= x_hi and y_lo <= y_hi:  # (1-pixel fills: the pixels of 1-pixel lines, 4x as fast)
            color = lined
            # (a fill writes its colour, alpha too: translucent lines are filled in a picture blitted over)
            lines, (dx, dy) = (surface, (0, 0)) if color.a == 255 else (
                pygame.Surface((x_hi - x_lo + 1, y_hi - y_lo + 1), pygame.SRCALPHA), (x_lo, y_lo))
            for px in _lines(ox, cs, w, left, right):
                lines.fill(color, (px - dx, y_lo - dy, 1, y_hi - y_lo + 1))
            for py in _lines(oy, cs, h, top, bottom):
                lines.fill(color, (x_lo - dx, py - dy, x_hi - x_lo + 1, 1))
            if lines is not surface:
                surface.blit(lines, (dx, dy))


def _cell_picture(grid: TileGrid, passable: npt.NDArray[np.bool_], clip: pygame.Rect,
                  colors: tuple[tuple[int, ...] | None, ...]) -> tuple[pygame.Surface | None, tuple[int, int]]:
    """The cells ``passable`` of ``grid`` under the pixels of ``clip`` painted ``colors`` (blocked,
    open: RGBA or None), and where the picture goes; None when no cell is under ``clip`` or both
    colours are None."""
    h, w = passable.shape
    blocked = ~passable[::-1] if grid.y_up else ~passable
    cs = grid.cell_size
    ox, oy = grid.origin

    def cells(first: int, count: int, offset: float, n: int) -> npt.NDArray[np.int64]:
        """The cell under the centre of pixels ``first ..`` (-1: outside the grid's ``n``)."""
        with np.errstate(over="ignore"):  # (a tiny cell: infinite quotients, clipped below)
            pos = np.floor((np.arange(first, first + count) + 0.5 - offset) / cs)
        index: npt.NDArray[np.int64] = np.clip(pos, -1, n).astype(np.int64)  # (clipped before the cast)
        index[index >= n] = -1
        return index

    cx, cy = cells(clip.x, clip.w, ox, w), cells(clip.y, clip.h, oy, h)
    xs, ys = np.flatnonzero(cx >= 0), np.flatnonzero(cy >= 0)  # (contiguous runs)
    if not len(xs) or not len(ys) or colors == (None, None):
        return None, (0, 0)
    cx, cy = cx[xs[0]:xs[-1] + 1], cy[ys[0]:ys[-1] + 1]
    pixels = blocked[cy[:, None], cx[None, :]].T  # [px, py], as surfarray indexes
    image = pygame.Surface((len(cx), len(cy)), pygame.SRCALPHA)
    rgb, alpha = pygame.surfarray.pixels3d(image), pygame.surfarray.pixels_alpha(image)
    for where, color in ((pixels, colors[0]), (~pixels, colors[1])):
        if color is not None:
            rgb[where] = color[:3]
            alpha[where] = color[3]
    del rgb, alpha  # release the surface lock before blitting
    return image, (clip.x + int(xs[0]), clip.y + int(ys[0]))


def _repaint(picture: pygame.Surface, at: tuple[int, int], grid: TileGrid, old: npt.NDArray[np.bool_],
             new: npt.NDArray[np.bool_], colors: tuple[tuple[int, ...] | None, ...]) -> None:
    """Paint ``picture`` (placed at pixel ``at``, showing ``grid``'s cells ``old``) again where the cells
    that ``new`` changed lie (a pixel more each way: pixel centres decide), as :func:`_cell_picture`."""
    changed = old != new
    ys, xs = np.flatnonzero(changed.any(axis=1)), np.flatnonzero(changed.any(axis=0))  # (np.nonzero: 5x as long)
    if not len(ys):
        return
    rows = len(new) - 1 - ys if grid.y_up else ys  # (the picture's rows: the top one first)
    cs, (ox, oy), (x0, y0) = grid.cell_size, grid.origin, at
    left, right = max(x0, math.floor(ox + xs.min() * cs) - 1), min(x0 + picture.get_width(),
                                                                   math.ceil(ox + (xs.max() + 1) * cs) + 1)
    top, bottom = max(y0, math.floor(oy + rows.min() * cs) - 1), min(y0 + picture.get_height(),
                                                                     math.ceil(oy + (rows.max() + 1) * cs) + 1)
    if left < right and top < bottom:
        area = pygame.Rect(left, top, right - left, bottom - top)
        patch, (px, py) = _cell_picture(grid, new, area, colors)
        picture.fill((0, 0, 0, 0), area.move(-x0, -y0))
        if patch is not None:  # (the maximum of nothing and the patch: the patch's pixels as they are)
            picture.blit(patch, (px - x0, py - y0), special_flags=pygame.BLEND_RGBA_MAX)


def _lines(offset: float, cs: float, n: int, lo: int, hi: int) -> list[int]:
    """The pixel positions ``round(offset + k * cs)`` (k = 0 .. n) of grid lines within ``lo .. hi``."""
    # (a line or two early: rounding; clipped before the cast: a tiny cell gives an infinite quotient)
    first = int(np.clip(np.floor((lo - 1 - offset) / cs), 0, n))
    last = int(np.clip(np.ceil((hi + 1 - offset) / cs), 0, n))
    if cs <= 0.5:  # (lines at most half a pixel apart are on every pixel from the first's to the last's:
        # no array of them all, 160 MB and 0.35 s a frame for a 1 x 20,000,000 grid)
        return list(range(max(lo, round(offset + first * cs)), min(hi, round(offset + last * cs)) + 1))
    at = np.round(offset + np.arange(first, last + 1) * cs)
    return [int(p) for p in np.unique(at[(at >= lo) & (at <= hi)])]  # (cells under a pixel: lines on one pixel)


_FAR = 1 << 17
"""Pixels around a surface's clip area within which :func:`draw_path` draws a path's legs and dots as they are."""


def draw_path(surface: pygame.Surface, path: Path | npt.ArrayLike, *, color: ColorLike = (255, 190, 0),
              width: int = 2, radius: int = 3) -> None:
    """Draw a path as a polyline through its waypoints, with a dot on each waypoint.

    Args:
        surface: the target; world coordinates are its pixel coordinates.
        path: a :class:`~gamenav.Path` (its ``points``) or an ``(n, 2)`` array of pixel ``(x, y)``.
        color: line and dot colour.
        width: line width in pixels.
        radius: waypoint dot radius in pixels (0: no dots).
    """
    _check_type(surface, pygame.Surface, "surface")
    color = _color(color, "color")
    if not is_real(width) or not abs(width) < 1 << 31 or not float(width).is_integer():
        raise InvalidInputError(f"width must be an int of pixels below 2**31, got {shown(width)}")
    if not is_real(radius) or not abs(radius) < 1 << 31:  # (not NaN: pygame drew nothing)
        raise InvalidInputError(f"radius must be a number of pixels below 2**31, got {shown(radius)}")
    points = float_numbers(path.points if isinstance(path, Path) else path)  # (not strings, bools, timedeltas)
    if points is None:
        raise InvalidInputError("path must be a gamenav.Path or an (n, 2) array of (x, y) numbers, got "
                                f"{type(path).__name__}")
    if points.size == 0:
        return
    if points.ndim != 2 or points.shape[1] != 2:
        raise InvalidInputError(f"path points must have shape (n, 2), got {points.shape}")
    if not np.isfinite(points).all():  # (pygame drew a NaN as a line to the surface's left edge)
        raise InvalidInputError("path points must be finite (got NaN or inf)")
    # pygame walks a line pixel by pixel, off the surface too, and wraps pixel numbers beyond 2**31 (a
    # leg to x = 3e9 took 1.7 s and was drawn towards x = 0): parts beyond _FAR of the clip area are cut off
    clip = surface.get_clip()
    lo, hi = np.array(clip.topleft) - _FAR, np.array(clip.bottomright) + _FAR
    near = ((points >= lo) & (points <= hi)).all(axis=1)
    for line in clip_polyline(points, lo, hi) if len(points) >= 2 else []:
        pygame.draw.lines(surface, color, False, line.tolist(), int(width))
    if radius > 0:  # (a dot this big covers the clip area from any point drawn: pygame walks a dot's radius,
        # 2.5 s for 1e9, and drew nothing of one of 2**31 - 1)
        reach = min(radius, 2 * _FAR + clip.w + clip.h)
        for p in points[near].tolist():
            pygame.draw.circle(surface, color, p, reach)


class PathFollower(Follower):
    """Moves a pygame sprite's ``rect.center`` (or a bare point) along paths: a :class:`gamenav.Follower`.

    It walks its path's legs (any speed, stopping exactly on the goal), with stuck detection
    and re-pathing after grid edits, and has the same interface as the arcade adapter's follower. With
    a ``gamenav.PathQueue``, call ``queue.update()`` once per frame, then :meth:`update` for
    each follower. When the game moved the sprite's ``rect`` since the last update (a teleport,
    a knockback, a respawn), :meth:`update` first moves the agent as far as ``rect.center`` moved
    (:meth:`~gamenav.Follower.place`; the agent's place within the pixel is kept), so it walks on
    from there (moved onto a wall or off the map, at the nearest point of the nearest free cell;
    a push of at most half a cell beside its route keeps its path). For dozens of agents use one
    :class:`gamenav.Crowd` instead: its update is vectorised over all agents.

    Args:
        target: a ``pygame.sprite.Sprite`` (its ``rect.center`` is the start and is written on
            every update) or a start ``(x, y)`` in pixels; it must lie on a passable cell.
        grid: the walkable grid (e.g. from :func:`grid_from_rects`).
        speed: pixels per second (> 0).
        queue: a ``gamenav.PathQueue`` to request paths through, or ``None`` to search at once.
        radius: the agent's radius in pixels for wall margins (default: a quarter cell).
        **path_options: options for each path request (e.g. ``smooth=True``); ``diagonal``
            sets the crowd's movement rule, which its paths then use.

    Example:
        >>> grid = grid_from_rects([(40, 0, 20, 80)], size=(100, 100), cell_size=20)
        >>> agent = PathFollower((10, 10), grid, speed=100)
        >>> agent.move_to((90, 10))
        >>> for _ in range(200):
        ...     agent.update(1 / 30)
        >>> agent.arrived, grid.world_to_cell(agent.position).tolist()
        (True, [4, 0])
    """

    _RECT_MOST = 2**31 - 1
    """A ``pygame.Rect`` holds C ints: beyond this a coordinate wraps round (5e9 became 705032704)."""
    _FRECT_MOST = float(np.finfo(np.float32).max)
    """A ``pygame.FRect`` holds float32: beyond this a coordinate is inf."""

    def __init__(self, target: pygame.sprite.Sprite | Sequence[float], grid: TileGrid, *,
                 speed: float, queue: Any = None, radius: float | None = None,
                 **path_options: Any) -> None:
        self.sprite: pygame.sprite.Sprite | None
        point: Sequence[float]
        if isinstance(target, pygame.sprite.Sprite):
            self.sprite, point = target, _sprite_rect(target).center
        else:
            self.sprite, point = None, target
        start = _pair(point, "target")
        super().__init__(grid, start, speed=speed, queue=queue, radius=radius, **path_options)
        self._written = None if self.sprite is None else _sprite_rect(self.sprite).center
        """The sprite's ``rect.center`` as the follower left it."""
        self._warned_seconds = False
        """Whether :meth:`update` warned of an int ``dt`` (once)."""

    def update(self, dt: float | None = None, *, dt_ms: float | None = None) -> None:
        """Move the agent as far as the game moved the sprite's ``rect.center`` (if it did),
        advance the frame's time and write the sprite's ``rect.center`` (rounded to pixels).

        Args:
            dt: the frame's time in seconds, e.g. ``clock.tick(60) / 1000``.
            dt_ms: or in milliseconds, as ``pygame.time.Clock.tick()`` returns it:
                ``update(dt_ms=clock.tick(60))``. Give one of the two.

        Raises:
            InvalidInputError: neither or both given, or not a finite number >= 0.

        Warns:
            UserWarning: once per follower, when ``dt`` is an int >= 1: most likely
                ``clock.tick()``'s milliseconds given as seconds (the agent would leap a second
                or more a frame). A long frame in seconds is a float and never warns.
        """
        seconds = self._seconds(dt, dt_ms)
        self._check_open("update")
        written = self._written
        if self.sprite is not None and written is not None and _sprite_rect(self.sprite).center != written:
            moved = np.subtract(_pair(_sprite_rect(self.sprite).center, "the sprite's rect.center"), written)
            self._place_near(np.add(self.position, moved).tolist())  # (by as much as the rect: no rounding lost)
        super().update(seconds)
        if self.sprite is not None:
            x, y = self.position
            rect = _sprite_rect(self.sprite)
            most = self._RECT_MOST if isinstance(rect, pygame.Rect) else self._FRECT_MOST
            if max(abs(x), abs(y)) + max(rect.size) > most:
                raise InvalidInputError(f"the agent at ({x:g}, {y:g}) is beyond what the sprite's "
                                        f"{type(rect).__name__} holds (coordinates up to {most:.10g})")
            rect.center = (round(x), round(y))
            self._written = rect.center

    def _seconds(self, dt: Any, dt_ms: Any) -> Any:
        """The frame's time in seconds from :meth:`update`'s ``dt`` or ``dt_ms`` (``dt`` is
        checked by the crowd); warns once of an int ``dt`` >= 1 (see :meth:`update`)."""
        if (dt is None) == (dt_ms is None):
            got = "neither" if dt is None else f"both (dt={shown(dt)}, dt_ms={shown(dt_ms)})"
            raise InvalidInputError(f"update takes dt (seconds) or dt_ms (milliseconds, as clock.tick() "
                                    f"returns them), got {got}")
        if dt_ms is not None:
            ms = real_number(dt_ms, "dt_ms", "a finite number >= 0 of milliseconds")
            if not 0 <= ms < math.inf:
                raise InvalidInputError(f"dt_ms must be a finite number >= 0 of milliseconds, got {shown(dt_ms)}")
            return ms / 1000
        if is_int(dt) and dt >= 1 and not self._warned_seconds:
            self._warned_seconds = True
            warnings.warn(f"PathFollower.update(dt) takes seconds, got the int {shown(dt)}: if it is "
                          "clock.tick()'s milliseconds, pass update(dt_ms=clock.tick(60)) or "
                          "clock.tick(60) / 1000 (else pass a float to silence this)", stacklevel=3)
        return dt
