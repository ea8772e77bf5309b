"""Navigation-mesh file formats: Polyanya "mesh 2", Iron Harvest "mesh 3" and their ``.scen`` files.

Coordinates are world ``(x, y)``. "mesh 2" (Cui, Harabor & Grastien 2017)::

    mesh
    2
    V P
    x y n p_1 .. p_n          (V lines: vertex and its n surrounding polygons, -1 = outside)
    n v_1 .. v_n q_1 .. q_n   (P lines: polygon, 0-based counter-clockwise vertex ids, neighbours)

"mesh 3" (ShortestPathLab Iron Harvest benchmark)::

    mesh
    3
    V F
    x y                           (V lines)
    trav n v_1 .. v_n k_1 .. k_n  (F lines: traversable flag 0/1, 1-based vertex ids, neighbours)

Whitespace (blank lines, tabs) is insignificant. Neighbour columns are checked for count only:
adjacency is recomputed from shared edges by :class:`gamenav.NavMesh`.

Scenario files: a ``version`` line, then ``bucket mesh W H start_x start_y goal_x goal_y cost``
where ``cost`` is the expected path length (``-1``: no path).
"""

from __future__ import annotations

import os
from pathlib import Path as FilePath
from typing import NamedTuple

import numpy as np
import numpy.typing as npt

from gamenav.errors import MapFormatError

__all__ = ["MeshData", "MeshScenario", "read_mesh", "read_mesh_scenarios"]


class MeshData(NamedTuple):
    """The traversable polygons of a mesh file.

    Attributes:
        vertices: ``(V, 2)`` float64 world ``(x, y)``.
        polygons: one int64 array of 0-based counter-clockwise vertex ids per traversable polygon.
    """

    vertices: npt.NDArray[np.float64]
    polygons: list[npt.NDArray[np.int64]]


class MeshScenario(NamedTuple):
    """One navmesh query: world points and the expected Euclidean length (``-1``: no path)."""

    bucket: int
    mesh_name: str
    start: tuple[float, float]
    goal: tuple[float, float]
    cost: float


def _tokens(path: str | os.PathLike[str]) -> list[tuple[int, list[str]]]:
    """Non-blank lines as (1-based line number, whitespace-separated tokens)."""
    try:
        text = FilePath(path).read_text(encoding="ascii", errors="strict")
    except UnicodeDecodeError as exc:
        raise MapFormatError(f"not an ASCII text file ({exc.reason})", path=path) from None
    return [(n, line.split()) for n, line in enumerate(text.splitlines(), 1) if line.strip()]


def _numbers(tokens: list[str], kind: type, path: str | os.PathLike[str], line: int,
             what: str) -> list:
    try:
        return [kind(t) for t in tokens]
    except ValueError:
        raise MapFormatError(f"{what} must be {kind.__name__} numbers, got {' '.join(tokens)!r}",
                             path=path, line=line) from None


def read_mesh(path: str | os.PathLike[str]) -> MeshData:
    """Read a "mesh 2" or "mesh 3" file; keep only traversable polygons.

    Returns:
        :class:`MeshData` with 0-based vertex ids (mesh 3's 1-based ids are converted).

    Raises:
        MapFormatError: bad header, wrong counts, non-numeric fields, vertex ids out of range,
            polygons with fewer than 3 vertices (message names file and line).

    Example:
        >>> import gamenav
        >>> data = read_mesh(gamenav.data.path("arena.mesh"))  # a sample mesh shipped with gamenav
        >>> data.vertices.shape, len(data.polygons)
        ((112, 2), 120)
        >>> mesh = gamenav.NavMesh.from_mesh(*data)
    """
    lines = _tokens(path)
    if len(lines) < 3 or lines[0][1] != ["mesh"]:
        raise MapFormatError("expected the header line 'mesh'", path=path,
                             line=lines[0][0] if lines else 1)
    line_no, version_tok = lines[1]
    if version_tok not in (["2"], ["3"]):
        raise MapFormatError(f"expected format version 2 or 3, got {' '.join(version_tok)!r}",
                             path=path, line=line_no)
    version = int(version_tok[0])
    line_no, counts = lines[2]
    sizes = _numbers(counts, int, path, line_no, "the vertex and polygon counts")
    if len(sizes) != 2 or min(sizes) < 0:
        raise MapFormatError(f"expected two counts 'V P', got {' '.join(counts)!r}", path=path,
                             line=line_no)
    n_vert, n_poly = sizes
    if len(lines) != 3 + n_vert + n_poly:
        raise MapFormatError(f"expected {n_vert} vertex and {n_poly} polygon lines, got "
                             f"{len(lines) - 3} lines in total", path=path, line=lines[-1][0])
    vertices = np.empty((n_vert, 2), dtype=np.float64)
    for i in range(n_vert):
        line_no, tok = lines[3 + i]
        vals = _numbers(tok, float, path, line_no, "vertex fields")
        if version == 2 and (len(vals) < 3 or len(vals) != 3 + int(vals[2])):
            raise MapFormatError(f"expected 'x y n p_1..p_n', got {' '.join(tok)!r}", path=path,
                                 line=line_no)
        if version == 3 and len(vals) != 2:
            raise MapFormatError(f"expected 'x y', got {' '.join(tok)!r}", path=path, line=line_no)
        vertices[i] = vals[:2]
    if not np.isfinite(vertices).all():
        raise MapFormatError("vertex coordinates must be finite", path=path)
    polygons: list[npt.NDArray[np.int64]] = []
    base = 1 if version == 3 else 0
    for i in range(n_poly):
        line_no, tok = lines[3 + n_vert + i]
        vals = _numbers(tok, int, path, line_no, "polygon fields")
        if version == 3:
            if not vals or vals[0] not in (0, 1):
                raise MapFormatError(f"expected a traversable flag 0 or 1 first, got {' '.join(tok)!r}",
                                     path=path, line=line_no)
            traversable, vals = vals[0] == 1, vals[1:]
        else:
            traversable = True
        n = vals[0] if vals else 0
        if n < 3 or len(vals) != 1 + 2 * n:
            raise MapFormatError(f"expected 'n v_1..v_n neighbour_1..neighbour_n' with n >= 3, got "
                                 f"{' '.join(tok)!r}", path=path, line=line_no)
        ids = np.array(vals[1:1 + n], dtype=np.int64) - base
        if ids.min() < 0 or ids.max() >= n_vert:
            raise MapFormatError(f"vertex ids must be in {base}..{n_vert - 1 + base}, got "
                                 f"{(ids + base).tolist()}", path=path, line=line_no)
        if traversable:
            polygons.append(ids)
    return MeshData(vertices, polygons)


def read_mesh_scenarios(path: str | os.PathLike[str]) -> list[MeshScenario]:
    """Read a navmesh ``.scen`` file (real-valued points, expected cost last; ``-1`` = no path).

    Raises:
        MapFormatError: missing ``version`` line, wrong column count or non-numeric fields.
    """
    lines = _tokens(path)
    if not lines or lines[0][1][:1] != ["version"]:
        raise MapFormatError("expected a 'version' header line", path=path,
                             line=lines[0][0] if lines else 1)
    out = []
    for line_no, tok in lines[1:]:
        if len(tok) != 9:
            raise MapFormatError(f"expected 9 columns 'bucket mesh W H sx sy gx gy cost', got "
                                 f"{len(tok)}", path=path, line=line_no)
        bucket = _numbers(tok[:1], int, path, line_no, "the bucket")[0]
        sx, sy, gx, gy, cost = _numbers(tok[4:], float, path, line_no, "coordinates and cost")
        out.append(MeshScenario(bucket, tok[1], (sx, sy), (gx, gy), cost))
    return out
