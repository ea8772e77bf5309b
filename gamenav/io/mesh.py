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

Whitespace (blank lines, tabs) is insignificant; files are ASCII (LF, CRLF or CR line endings,
an optional UTF-8 byte-order mark), regular files of at most :data:`MAX_MESH_BYTES`. Neighbour
columns are checked for count and range ("mesh 2": ``-1..P-1``) or for being integers ("mesh 3"):
adjacency is recomputed from shared edges by :class:`gamenav.NavMesh`.

Scenario files: a ``version`` line, then ``bucket mesh W H start_x start_y goal_x goal_y cost``
where ``cost`` is the expected path length (``-1``: no path).
"""

from __future__ import annotations

import os
from typing import NamedTuple

import numpy as np
import numpy.typing as npt

from gamenav._validate import shown
from gamenav.errors import InvalidGeometryError, MapFormatError
from gamenav.io._text import to_floats, to_ints, token_lines
from gamenav.navmesh.build import MAX_COORDINATE, convex_ring
from gamenav.navmesh.mesh import _first_copies, face_firsts

__all__ = ["MeshData", "MeshScenario", "read_mesh", "read_mesh_scenarios"]

MAX_MESH_BYTES = 1 << 26
"""The largest mesh or mesh ``.scen`` file read (64 MiB): thirty times the largest benchmark mesh
(Polyanya's aurora, 2.2 MB); reading takes ten times or more the file's size in memory (a Python
string per number)."""


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


def read_mesh(path: str | os.PathLike[str]) -> MeshData:
    """Read a "mesh 2" or "mesh 3" file; keep only traversable polygons.

    The declared counts are checked against the lines present before anything is allocated.
    A polygon names each corner once and is convex, in either orientation (180-degree corners
    allowed; non-traversable ones are not checked); one of zero area with distinct corners (all
    on a line) is kept: it covers nothing, and :meth:`gamenav.NavMesh.from_mesh` drops it.

    Returns:
        :class:`MeshData` with 0-based vertex ids (mesh 3's 1-based ids are converted).

    Raises:
        MapFormatError: bad header, wrong counts, non-numeric, non-integer or non-finite
            fields (``nan``, ``inf``), coordinates outside ``[-MAX_COORDINATE, MAX_COORDINATE]``
            (1e15, see :data:`gamenav.navmesh.MAX_COORDINATE`), vertex ids out of range,
            "mesh 2" polygon ids outside ``-1..P-1``, polygons with fewer than 3 vertices, not
            convex or repeating a corner (a vertex id, or a point under two ids: one vertex to
            :class:`gamenav.NavMesh`), a traversable polygon given twice (its corners in any
            order, or copies of them that :meth:`gamenav.NavMesh.from_mesh` merges), non-ASCII
            bytes (message names file and line); not a regular file (a device or FIFO) or more
            than :data:`MAX_MESH_BYTES` bytes (refused before reading).

    Example:
        >>> import gamenav
        >>> data = read_mesh(gamenav.data.path("arena.mesh"))  # a sample mesh shipped with gamenav
        >>> data.vertices.shape, len(data.polygons)
        ((112, 2), 120)
        >>> mesh = gamenav.NavMesh.from_mesh(*data)
    """
    lines = token_lines(path, MAX_MESH_BYTES)
    if len(lines) < 3 or lines[0][1] != ["mesh"]:
        raise MapFormatError("expected the header line 'mesh' followed by a version and counts",
                             path=path, line=lines[0][0] if lines else None)
    line_no, version_tok = lines[1]
    if version_tok not in (["2"], ["3"]):
        raise MapFormatError(f"expected format version 2 or 3, got {shown(' '.join(version_tok))}",
                             path=path, line=line_no)
    version = int(version_tok[0])
    line_no, counts = lines[2]
    sizes = to_ints(counts, "vertex and polygon counts", path, line_no)
    if len(sizes) != 2 or min(sizes) < 0:
        raise MapFormatError(f"expected two counts 'V P' >= 0, got {shown(' '.join(counts))}", path=path,
                             line=line_no)
    n_vert, n_poly = sizes
    if len(lines) != 3 + n_vert + n_poly:
        raise MapFormatError(f"expected {shown(n_vert)} vertex and {shown(n_poly)} polygon lines, got "
                             f"{len(lines) - 3} lines in total", path=path, line=lines[-1][0])
    vertices = np.empty((n_vert, 2), dtype=np.float64)
    for i in range(n_vert):
        line_no, tok = lines[3 + i]
        if version == 3 and len(tok) != 2:
            raise MapFormatError(f"expected 'x y', got {shown(' '.join(tok))}", path=path, line=line_no)
        vertices[i] = to_floats(tok[:2], "vertex coordinates", path, line_no)
        if version == 2:
            rest = to_ints(tok[2:], "vertex polygon count and ids", path, line_no)
            if not rest or rest[0] < 0 or len(rest) != 1 + rest[0]:
                raise MapFormatError(f"expected 'x y n p_1..p_n', got {shown(' '.join(tok))}", path=path,
                                     line=line_no)
            _check_polygon_ids(rest[1:], n_poly, path, line_no)
    far = np.flatnonzero(np.abs(vertices).max(axis=1, initial=0.0) > MAX_COORDINATE)
    if far.size:
        line_no, tok = lines[3 + far[0]]
        raise _range_error("vertex coordinates", tok[:2], path, line_no)
    point = _first_copies(vertices).tolist()  # each vertex -> the first at its coordinates
    polygons: list[npt.NDArray[np.int64]] = []
    lines_of: list[int] = []  # each traversable polygon's line
    base = 1 if version == 3 else 0
    for i in range(n_poly):
        line_no, tok = lines[3 + n_vert + i]
        vals = to_ints(tok, "polygon fields", path, line_no)
        if version == 3:
            if not vals or vals[0] not in (0, 1):
                raise MapFormatError(f"expected a traversable flag 0 or 1 first, got {shown(' '.join(tok))}",
                                     path=path, line=line_no)
            traversable, vals = vals[0] == 1, vals[1:]
        else:
            traversable = True
        n = vals[0] if vals else 0
        if n < 3 or len(vals) != 1 + 2 * n:
            raise MapFormatError(f"expected 'n v_1..v_n neighbour_1..neighbour_n' with n >= 3, got "
                                 f"{shown(' '.join(tok))}", path=path, line=line_no)
        ids = vals[1:1 + n]
        if min(ids) < base or max(ids) >= n_vert + base:
            raise MapFormatError(f"vertex ids must be in {base}..{n_vert - 1 + base}, got {shown(ids)}",
                                 path=path, line=line_no)
        _check_corners(ids, point, base, path, line_no)
        if version == 2:
            _check_polygon_ids(vals[1 + n:], n_poly, path, line_no)
        if traversable:
            polygon = np.array(ids, dtype=np.int64) - base
            if n > 3:  # (a triangle with distinct corners is convex)
                _check_convex(vertices[polygon], ids, path, line_no)
            polygons.append(polygon)
            lines_of.append(line_no)
    _check_faces(vertices, polygons, lines_of, path)
    return MeshData(vertices, polygons)


def _range_error(what: str, tokens: list[str], path: str | os.PathLike[str], line: int) -> MapFormatError:
    """The error for coordinates ``tokens`` outside ``[-MAX_COORDINATE, MAX_COORDINATE]``."""
    return MapFormatError(f"{what} must lie in [-{MAX_COORDINATE:g}, {MAX_COORDINATE:g}], got "
                          f"{shown(' '.join(tokens))}", path=path, line=line)


def _check_corners(ids: list[int], point: list[int], base: int, path: str | os.PathLike[str],
                   line: int) -> None:
    """A polygon's vertex ids (``base``-based, in range) name each corner once, by id and by point
    (``point[v]``: the first vertex at vertex ``v``'s coordinates, 0-based)."""
    seen: dict[int, int] = {}  # a point's first vertex -> the polygon's id there
    for i in ids:
        first = point[i - base]
        if first in seen:
            why = ("a vertex id" if seen[first] == i else
                   f"a point under vertex ids {seen[first]} and {i} (one vertex to a NavMesh)")
            raise MapFormatError(f"polygon repeats {why}: {shown(ids)}", path=path, line=line)
        seen[first] = i


def _check_convex(pts: npt.NDArray[np.float64], ids: list[int], path: str | os.PathLike[str],
                  line: int) -> None:
    """The polygon ``pts`` (vertex ``ids`` as in the file) is convex, as
    :meth:`gamenav.NavMesh.from_mesh` takes it (:func:`gamenav.navmesh.build.convex_ring`)."""
    try:
        convex_ring(pts, ids, "polygon")
    except InvalidGeometryError as exc:
        raise MapFormatError(str(exc), path=path, line=line) from None


def _check_faces(vertices: npt.NDArray[np.float64], polygons: list[npt.NDArray[np.int64]], lines: list[int],
                 path: str | os.PathLike[str]) -> None:
    """No traversable polygon (on ``lines``) repeats another under the same corners, up to copies
    a rounding error apart (one vertex to :meth:`gamenav.NavMesh.from_mesh`, see
    :func:`gamenav.navmesh.mesh.copy_roots`): a face given twice, which an importer would take for
    walls along its edges (:meth:`gamenav.NavMesh.from_mesh` keeps the first)."""
    first = face_firsts(vertices, polygons)[1]
    again = np.flatnonzero(first != np.arange(len(polygons)))
    if len(again):
        k = int(again[0])
        raise MapFormatError(f"polygon repeats the one on line {lines[first[k]]} (a face given twice, "
                             "up to copies a rounding error apart)", path=path, line=lines[k])


def _check_polygon_ids(ids: list[int], n_poly: int, path: str | os.PathLike[str], line: int) -> None:
    """"mesh 2" polygon references: ``-1`` (outside) or ``0..n_poly - 1``."""
    if ids and (min(ids) < -1 or max(ids) >= n_poly):
        raise MapFormatError(f"polygon ids must be -1 (outside) or in 0..{n_poly - 1}, got {shown(ids)}",
                             path=path, line=line)


def read_mesh_scenarios(path: str | os.PathLike[str]) -> list[MeshScenario]:
    """Read a navmesh ``.scen`` file (real-valued points, expected cost last; ``-1`` = no path).

    Raises:
        MapFormatError: missing ``version`` line, wrong column count, non-numeric or non-finite
            fields (the map size too), a map size <= 0 (as :func:`gamenav.io.read_scenarios`),
            coordinates outside ``[-MAX_COORDINATE, MAX_COORDINATE]`` (as
            :func:`gamenav.find_path` takes), a negative cost other than ``-1``, non-ASCII bytes
            (file and line); not a regular file or more than :data:`MAX_MESH_BYTES` bytes.
    """
    lines = token_lines(path, MAX_MESH_BYTES)
    if not lines or lines[0][1][:1] != ["version"]:
        raise MapFormatError("expected a 'version' header line", path=path,
                             line=lines[0][0] if lines else 1)
    out = []
    for line_no, tok in lines[1:]:
        if len(tok) != 9:
            raise MapFormatError(f"expected 9 columns 'bucket mesh W H sx sy gx gy cost', got "
                                 f"{len(tok)}", path=path, line=line_no)
        (bucket,) = to_ints(tok[:1], "bucket", path, line_no)
        width, height = to_floats(tok[2:4], "map width and height", path, line_no)  # checked, not kept
        if not (width > 0 and height > 0):
            raise MapFormatError(f"map size must be positive, got {tok[2]:.80} x {tok[3]:.80}", path=path,
                                 line=line_no)
        sx, sy, gx, gy, cost = to_floats(tok[4:], "coordinates and cost", path, line_no)
        if max(abs(sx), abs(sy), abs(gx), abs(gy)) > MAX_COORDINATE:
            raise _range_error("start and goal coordinates", tok[4:8], path, line_no)
        if cost < 0 and cost != -1:
            raise MapFormatError(f"cost must be >= 0 or -1 (no path), got {cost}", path=path,
                                 line=line_no)
        out.append(MeshScenario(bucket, tok[1], (sx, sy), (gx, gy), cost))
    return out
