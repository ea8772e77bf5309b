"""Moving AI benchmark formats: ``.map`` grids and ``.scen`` scenario files.

Map files: ``type octile`` / ``height H`` / ``width W`` / ``map`` and H rows of W characters.
Passable: ``.``, ``G`` and ``S``; blocked: ``@``, ``O``, ``T`` and ``W`` (water: passable only
from water in the original rules, blocked here). Arrays are indexed ``[y, x]``.

Scenario files: a ``version`` header, then lines
``bucket map W H start_x start_y goal_x goal_y optimal_length`` (tabs or spaces).

Both are ASCII (LF, CRLF or CR line endings, an optional UTF-8 byte-order mark); every problem
is a :class:`~gamenav.errors.MapFormatError` naming the file and line. Only regular files of at
most :data:`MAX_MAP_BYTES` / :data:`MAX_SCENARIO_BYTES` are read (a game loading players' maps
gets that error, not a hang, for ``/dev/zero``, a FIFO or a file of gigabytes).
"""

from __future__ import annotations

import os
import sys
from typing import NamedTuple
from collections.abc import Iterable

import numpy as np
import numpy.typing as npt

from gamenav._validate import is_int, real_number, shown
from gamenav.errors import InvalidInputError, MapFormatError
from gamenav.grid.tilegrid import TileGrid
from gamenav.io._text import file_path, read_lines, to_floats, to_ints, token_lines

__all__ = ["Scenario", "read_map", "read_scenarios", "write_map", "write_scenarios"]

PASSABLE = frozenset(".GS")
BLOCKED = frozenset("@OTW")
_PASSABLE_CODES = np.array([ord(c) for c in sorted(PASSABLE)], dtype=np.uint8)
_TERRAIN = (f"the terrain {', '.join(map(repr, sorted(PASSABLE)))} (passable) and "
            f"{', '.join(map(repr, sorted(BLOCKED)))} (blocked)")
"""The characters a map row may hold, for error messages."""
MAX_MAP_BYTES = 1 << 28
"""The largest ``.map`` file read (256 MiB): room for 16,000 x 16,000 cells, a hundred times the
largest benchmark maps (GPPC's 1550 x 1550, 2.4 MB); reading takes a few times the file's size
in memory."""
MAX_SCENARIO_BYTES = 1 << 26
"""The largest ``.scen`` file read (64 MiB): about a million scenarios, forty times the largest
benchmark file (1.5 MB); each scenario read takes some hundred bytes of memory."""


class Scenario(NamedTuple):
    """One benchmark query. ``start`` and ``goal`` are ``(x, y)`` cells."""

    bucket: int
    map_name: str
    width: int
    height: int
    start: tuple[int, int]
    goal: tuple[int, int]
    optimal_length: float


def read_map(path: str | os.PathLike[str]) -> npt.NDArray[np.bool_]:
    """Read a Moving AI ``.map`` file.

    LF, CRLF and CR line endings and a UTF-8 byte-order mark are accepted; blank lines in the
    header and after the last row are ignored. The declared size is checked against the rows
    actually present before anything is allocated.

    Returns:
        ``(height, width)`` bool array, ``[y, x]``, True where passable.

    Raises:
        MapFormatError: an empty file, a malformed or incomplete header (a ``type`` other than
            ``octile`` too), a declared size that
            does not match the rows, unknown terrain (tabs and spaces included) or non-ASCII
            bytes (the message names the file and line); not a regular file (a device or FIFO)
            or more than :data:`MAX_MAP_BYTES` bytes (refused before reading).

    Example:
        >>> import gamenav
        >>> walkable = read_map(gamenav.data.path("arena.map"))  # a sample map shipped with gamenav
        >>> walkable.shape, walkable.dtype.name, int(walkable.sum())
        ((49, 49), 'bool', 2054)
    """
    lines = read_lines(path, MAX_MAP_BYTES)
    if not any(line.strip() for line in lines):
        raise MapFormatError("empty file (expected a Moving AI map header)", path=path)
    header: dict[str, tuple[str, int]] = {}
    n = 0
    while n < len(lines) and lines[n].strip() != "map":
        parts = lines[n].split()
        if parts:
            if len(parts) != 2 or parts[0] not in ("type", "height", "width"):
                raise MapFormatError(f"expected a header line 'type octile', 'height H', 'width W' or 'map', got "
                                     f"{shown(lines[n])}", path=path, line=n + 1)
            if parts[0] in header:
                raise MapFormatError(f"'{parts[0]}' appears twice in the header", path=path,
                                     line=n + 1)
            header[parts[0]] = (parts[1], n + 1)
        n += 1
    if n == len(lines):
        raise MapFormatError("missing the 'map' line that starts the grid", path=path, line=n)
    kind, line_no = header.get("type", ("octile", 0))
    if kind != "octile":  # (HOG2's 'octile-corner' and 'raw' lay their grids out otherwise: read as octile, wrong)
        raise MapFormatError(f"the map type must be 'octile' (gamenav reads only octile grids), got {shown(kind)}",
                             path=path, line=line_no)
    size: dict[str, int] = {}
    for key in ("height", "width"):
        if key not in header:
            raise MapFormatError(f"missing '{key}' in the header", path=path, line=n + 1)
        value, line_no = header[key]
        (size[key],) = to_ints([value], key, path, line_no)
        if size[key] <= 0:
            raise MapFormatError(f"{key} must be positive, got {shown(size[key])}", path=path, line=line_no)
    height, width = size["height"], size["width"]
    rows = lines[n + 1:]
    while rows and not rows[-1].strip():
        rows.pop()
    for y, row in enumerate(rows):  # (before the count: a blank or cut row is named at its line)
        unknown = set(row) - PASSABLE - BLOCKED
        if unknown:
            x = min(row.index(ch) for ch in unknown)
            what = "unknown terrain" if row[x:].strip() else "whitespace"  # (a blank row, or trailing spaces)
            raise MapFormatError(f"{what} {row[x]!r} at column {x + 1} of row {y} (expected only {_TERRAIN})",
                                 path=path, line=n + 2 + y)
        if len(row) != width:
            raise MapFormatError(f"row {y} has {len(row)} characters, expected {shown(width)}",
                                 path=path, line=n + 2 + y)
    if len(rows) != height:
        where = n + 1 + min(len(rows), height + 1)
        raise MapFormatError(f"expected {shown(height)} rows, found {len(rows)}", path=path,
                             line=where)
    codes = np.frombuffer("".join(rows).encode("ascii"), dtype=np.uint8).reshape(height, width)
    return np.isin(codes, _PASSABLE_CODES)


def write_map(path: str | os.PathLike[str], walkable: npt.ArrayLike) -> None:
    """Write a ``(h, w)`` bool array as a Moving AI ``.map`` file (``.`` passable, ``@`` blocked).

    Raises:
        InvalidInputError: ``walkable`` is not what :class:`~gamenav.TileGrid` takes (a non-empty
            2-D array of bools or 0/1 integers; a TileGrid is not, as the file holds no costs:
            ``grid.passable`` is its array); the file is left untouched then.
    """
    if isinstance(walkable, TileGrid):  # (read as a 0-D object array: "got shape ()")
        raise InvalidInputError("walkable must be a 2-D bool array [y, x], got a TileGrid (a .map file holds "
                                "no costs: write grid.passable)")
    walk = TileGrid(walkable).passable
    rows = ["".join("." if v else "@" for v in row) for row in walk]
    text = f"type octile\nheight {walk.shape[0]}\nwidth {walk.shape[1]}\nmap\n" + "\n".join(rows) + "\n"
    file_path(path).write_text(text, encoding="ascii")


def read_scenarios(path: str | os.PathLike[str]) -> list[Scenario]:
    """Read a Moving AI ``.scen`` file (``version 1`` tab-separated, or legacy space-separated).

    Blank lines are ignored (before the ``version`` header too) and so is indentation.

    Raises:
        MapFormatError: an empty file (blank lines only: a file of no scenarios, as
            :func:`write_scenarios` writes one, holds its ``version`` line), a line without 9
            fields, non-numeric values, a map size <= 0, a start or goal outside its declared
            map size, a non-finite or negative optimal length, or non-ASCII bytes (file and
            line); not a regular file (a device or FIFO) or more than
            :data:`MAX_SCENARIO_BYTES` bytes (refused before reading).
    """
    lines = token_lines(path, MAX_SCENARIO_BYTES)
    if not lines:  # (a truncated download, not a file of no scenarios: that one has its header)
        raise MapFormatError("empty file (expected a 'version' header line or scenario lines)", path=path)
    if lines[0][1][0].lower().startswith("version"):
        lines = lines[1:]
    return [_scenario(fields, path, n) for n, fields in lines]


def _scenario(fields: list[str], path: str | os.PathLike[str], n: int | None) -> Scenario:
    """The scenario on line ``n`` (split into fields), or the MapFormatError :func:`read_scenarios` raises."""
    if len(fields) != 9:
        raise MapFormatError(f"expected 9 fields, got {len(fields)}", path=path, line=n)
    bucket, width, height, sx, sy, gx, gy = to_ints(
        [fields[i] for i in (0, 2, 3, 4, 5, 6, 7)], "bucket, map size and cells", path, n)
    (length,) = to_floats(fields[8:], "optimal length", path, n)
    if width <= 0 or height <= 0:
        raise MapFormatError(f"map size must be positive, got {shown(width)} x {shown(height)}", path=path,
                             line=n)
    for name, (x, y) in (("start", (sx, sy)), ("goal", (gx, gy))):
        if not (0 <= x < width and 0 <= y < height):
            raise MapFormatError(f"{name} {shown((x, y))} lies outside the {shown(width)} x {shown(height)} map",
                                 path=path, line=n)
    if length < 0:
        raise MapFormatError(f"the optimal length must be >= 0, got {length}", path=path, line=n)
    return Scenario(bucket, fields[1], width, height, (sx, sy), (gx, gy), length)


def write_scenarios(path: str | os.PathLike[str], scenarios: Iterable[Scenario]) -> None:
    """Write scenarios in the ``version 1`` tab-separated layout.

    Raises:
        InvalidInputError: an item that is not a :class:`Scenario`, or a scenario
            :func:`read_scenarios` could not read back (a map name that is not a str, empty,
            non-ASCII or holds whitespace, a start or goal that is not a pair, a bucket, size or
            cell that is not an int (a str such as ``'7'`` too), a cell off its map, an integer
            too long for ``int()`` to read back, a length that is not a real number, negative or
            non-finite); the file is left untouched then.
    """
    out = ["version 1"]
    for k, s in enumerate(scenarios):
        if not isinstance(s, Scenario):
            raise InvalidInputError(f"scenarios[{k}] must be a Scenario, got {type(s).__name__}")
        name = s.map_name
        if not isinstance(name, str) or name.split() != [name] or not name.isascii():
            raise InvalidInputError(f"scenarios[{k}].map_name must be ASCII without whitespace, got {shown(name)}")
        length = real_number(s.optimal_length, f"scenarios[{k}].optimal_length", "a finite number >= 0")
        try:
            ints = (s.bucket, s.width, s.height, *s.start, *s.goal)
            fields = [str(v) for v in (ints[0], name, *ints[1:])] + [repr(length)]
        except TypeError:  # a start or goal that is not a sequence
            raise InvalidInputError(f"scenarios[{k}].start and .goal must be (x, y) cells, got "
                                    f"{type(s.start).__name__} and {type(s.goal).__name__}") from None
        except ValueError:  # str() of an int beyond the digits int() reads back
            raise InvalidInputError(f"cannot write scenarios[{k}]: an integer field has more than "
                                    f"{sys.get_int_max_str_digits()} digits") from None
        try:
            _scenario(fields, f"scenarios[{k}]", None)  # the reader's checks, named by index
        except MapFormatError as exc:
            raise InvalidInputError(f"cannot write {exc}") from None
        for field, value in zip(("bucket", "width", "height", "start", "start", "goal", "goal"), ints, strict=True):
            if not is_int(value):  # a str such as '7' reads back as 7
                raise InvalidInputError(f"scenarios[{k}].{field} must hold ints, got {shown(getattr(s, field))}")
        out.append("\t".join(fields))
    file_path(path).write_text("\n".join(out) + "\n", encoding="ascii")
