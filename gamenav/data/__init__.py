"""Small sample maps shipped with gamenav, so examples run without downloading anything.

==========================  ===============================================================
``arena.map``, ``.scen``    Moving AI grid map (Dragon Age: Origins, 49 x 49) and its 160
                            scenarios with optimal octile lengths
``den011d.map``, ``.scen``  Moving AI grid map (Dragon Age: Origins, 247 x 167), 780 scenarios
``arena.mesh``              "mesh 2" navmesh of ``arena`` (Polyanya's format, 120 triangles)
``tiny.tmx``, ``tiny.json`` 6 x 4 Tiled map, 16-pixel tiles: tile layers ``floor`` and
                            ``walls``, object layer ``obstacles`` (a triangle and a rectangle);
                            the same map saved as TMX (pytmx) and JSON (arcade)
``level.tmx``               40 x 30 Tiled map, 16-pixel tiles (640 x 480 pixels): the same
                            layers, with four wall runs and a triangular rock
``tiles.png``               the two-tile tileset of ``tiny`` and ``level``
==========================  ===============================================================

Provenance and licences: ``ATTRIBUTION.md`` (``gamenav.data.path("ATTRIBUTION.md")``).

Example:
    >>> import gamenav
    >>> grid = gamenav.TileGrid.from_movingai(gamenav.data.path("arena.map"))
    >>> grid.shape
    (49, 49)
    >>> "tiny.tmx" in gamenav.data.names()
    True
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import os
import pathlib
from importlib import resources

from gamenav._validate import shown
from gamenav.errors import InvalidInputError
from gamenav.io._text import file_path

__all__ = ["map_file", "names", "path"]

_files = contextlib.ExitStack()
atexit.register(_files.close)


def names() -> list[str]:
    """The names of the shipped data files (sorted), each a valid argument of :func:`path`."""
    return sorted(entry.name for entry in resources.files(__name__).iterdir()
                  if entry.is_file() and not entry.name.endswith((".py", ".pyc")))


def path(name: str) -> pathlib.Path:
    """The filesystem path of the shipped data file ``name`` (see :func:`names`).

    The file stays readable until the interpreter exits (a zipped install extracts it once).

    Raises:
        InvalidInputError: ``name`` is not one of :func:`names`.

    Example:
        >>> path("arena.map").name
        'arena.map'
    """
    available = names()
    if name not in available:
        raise InvalidInputError(
            f"name must be one of gamenav's sample data files {available}, got {shown(name)}")
    return _extracted(name)


@functools.cache
def _extracted(name: str) -> pathlib.Path:
    return _files.enter_context(resources.as_file(resources.files(__name__) / name))


def map_file(name: str, suffixes: tuple[str, ...] = (".map",)) -> str:
    """The map ``--map name`` means on the command lines of ``gamenav-tune`` and the demo: the file
    ``name`` when there is one, else the shipped map ``name`` (one of :func:`names` ending in one
    of ``suffixes``).

    Raises:
        InvalidInputError: ``name`` is not a valid file name (empty, a NUL character), or is
            neither a file nor a shipped map; the message says which (no such file, or not a
            file) and lists the shipped maps.

    Example:
        >>> map_file("arena.map") == str(path("arena.map"))  # (no arena.map in the current folder)
        True
    """
    if file_path(name).is_file():
        return name
    maps = [entry for entry in names() if entry.endswith(suffixes)]
    if name not in maps:
        problem = "is not a file" if os.path.exists(name) else "no such file"
        raise InvalidInputError(f"{problem}; the maps shipped with gamenav: {', '.join(maps)}")
    return str(path(name))
