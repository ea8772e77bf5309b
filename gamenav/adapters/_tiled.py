"""Placement of Tiled layers and outlines of Tiled objects, shared by the arcade and pygame adapters
(which read maps through different parsers, pytiled_parser and pytmx, so that the same map gives
the same grid and navmesh in both).

Points are ``(x, y)`` map pixels as in the file: y grows downwards.
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterable, Sequence
from typing import Any, Literal

import numpy as np
import numpy.typing as npt
import shapely

from gamenav._validate import finite_point, shown
from gamenav.errors import InvalidInputError, MapFormatError

ELLIPSE_SIDES = 32
"""Tiled ellipses are taken as regular polygons of this many sides, inscribed in their box."""


def layer_offset(offsets: Iterable[Sequence[Any]], layer: str, path: str | os.PathLike[str] | None
                 ) -> tuple[float, float]:
    """The ``(x, y)`` map pixels by which Tiled draws the layer ``layer`` moved: the sum of
    ``offsets``, the layer's offset and those of the group layers holding it.

    In Tiled's format (TMX and JSON) ``offsetx`` / ``offsety`` are a layer's offset in pixels, which
    moves its tiles and objects, and a group layer's moves every layer in it (nested groups add
    up); a layer's ``x`` / ``y`` (in tiles) are always 0: Tiled cannot change them (and
    pytiled_parser does not read them).

    Raises:
        MapFormatError: an offset that is not a finite ``(x, y)`` pair of numbers, or a sum beyond
            float64 (the message names the layer and the file ``path``).
    """
    x = y = 0.0
    for offset in offsets:
        try:
            dx, dy = finite_point(offset, f"each offset of layer {shown(layer)} (and of its groups)").tolist()
        except InvalidInputError as exc:
            raise MapFormatError(str(exc), path=path) from None
        x, y = x + dx, y + dy  # (Python floats: a sum beyond float64 is inf, without numpy's warning)
    if not (math.isfinite(x) and math.isfinite(y)):
        raise MapFormatError(f"the offsets of layer {shown(layer)} and its groups add up beyond float64, "
                             f"got ({x}, {y})", path=path)
    return x, y


def object_outline(kind: Literal["rectangle", "ellipse", "polygon"], at: Sequence[float], size: Sequence[float],
                   rotation: float, points: npt.ArrayLike = ()) -> npt.NDArray[np.float64]:
    """The ``(k, 2)`` float64 outline of a Tiled rectangle, ellipse or polygon object in map pixels.

    Args:
        kind: the object's shape; an ellipse is an :data:`ELLIPSE_SIDES`-gon inscribed in its box.
        at: the object's ``(x, y)``: the top-left corner of a rectangle's or ellipse's box, the
            origin of a polygon's points.
        size: the box's ``(width, height)`` (rectangles and ellipses).
        rotation: degrees clockwise on screen (y down) about ``at``, as Tiled turns objects.
        points: a polygon's ``(k, 2)`` points relative to ``at``.

    Returns:
        the outline, with no warning: NaN or infinite where a size, rotation or point is (the
        caller refuses it).
    """
    w, h = size
    with np.errstate(invalid="ignore", over="ignore"):  # (infinite sizes or rotations: for the caller to refuse)
        if kind == "polygon":
            local = np.asarray(points, dtype=np.float64).reshape(-1, 2)
        elif kind == "rectangle":
            local = np.array([(0, 0), (w, 0), (w, h), (0, h)], dtype=np.float64)
        else:
            angles = np.linspace(0.0, 2 * np.pi, ELLIPSE_SIDES, endpoint=False)
            local = np.stack([(1 + np.cos(angles)) * w / 2, (1 + np.sin(angles)) * h / 2], axis=1)
        c, s = np.cos(np.radians(rotation)), np.sin(np.radians(rotation))
        outline: npt.NDArray[np.float64] = local @ np.array([[c, s], [-s, c]]) + np.asarray(at, dtype=np.float64)
    return outline


def encloses_area(outline: npt.NDArray[np.float64]) -> bool:
    """Whether a Tiled object's finite ``(k, 2)`` outline (map pixels) encloses any area: a rectangle or
    ellipse of no width or height, or a polygon of fewer than 3 points or of points on one line,
    blocks nothing (as points and polylines; ``NavMesh.from_polygons`` refuses such obstacles)."""
    return len(outline) >= 3 and bool(shapely.make_valid(shapely.Polygon(outline)).area > 0)
