"""Exceptions raised by gamenav.

Every exception derives from :class:`GamenavError` and also from the matching built-in, so
``except ValueError`` keeps working for callers that do not know gamenav::

    GamenavError (Exception)
    ├── InvalidInputError (ValueError)        wrong shape, dtype, NaN, unknown option value
    │   ├── BlockedEndpointError              start or goal on a blocked cell / outside the mesh
    │   ├── InvalidOptionError (TypeError)    an unknown keyword option (misspelled name)
    │   ├── UnsupportedOptionError            an algorithm asked for options it cannot honour
    │   └── InvalidGeometryError              polygons that cannot be repaired into free space
    ├── OutOfBoundsError (IndexError)         a cell or point outside the grid
    └── MapFormatError (ValueError)           malformed map / mesh / scenario file (file and line)

Normal outcomes (no path, partial path, cancelled, stale) are never exceptions: they are
:class:`gamenav.PathStatus` values on the returned :class:`gamenav.Path`.
"""

from __future__ import annotations

import functools
import os
from typing import Any

__all__ = [
    "BlockedEndpointError",
    "GamenavError",
    "InvalidGeometryError",
    "InvalidInputError",
    "InvalidOptionError",
    "MapFormatError",
    "OutOfBoundsError",
    "UnsupportedOptionError",
]


class GamenavError(Exception):
    """Root of every exception gamenav raises on purpose."""


class InvalidInputError(GamenavError, ValueError):
    """An argument has the wrong shape, dtype or value (NaN, negative cost, unknown name, ...)."""


class BlockedEndpointError(InvalidInputError):
    """A path's start or goal lies on a blocked cell (grids) or outside the free space (navmeshes)."""


class InvalidOptionError(InvalidInputError, TypeError):
    """An unknown keyword option, e.g. a misspelled ``find_path(..., diagnal=...)``.

    Also a ``TypeError``, like the error Python raises for an unexpected keyword argument.
    """


class UnsupportedOptionError(InvalidInputError):
    """The chosen algorithm cannot honour the requested options (e.g. JPS on a weighted grid)."""


class InvalidGeometryError(InvalidInputError):
    """Polygons that cannot be turned into walkable free space (empty, degenerate, wrong rings)."""


class OutOfBoundsError(GamenavError, IndexError):
    """A cell index or coordinate lies outside the grid."""


class MapFormatError(GamenavError, ValueError):
    """A map, mesh or scenario file is malformed.

    Attributes:
        path: the file that was being read (``None`` for in-memory text).
        line: the 1-based line number of the problem (``None`` when it concerns the whole file).
    """

    def __init__(self, message: str, *, path: str | os.PathLike[str] | None = None,
                 line: int | None = None) -> None:
        self.path = None if path is None else os.fspath(path)
        self.line = line
        self._message = message
        where = self.path or "<text>"
        if line is not None:
            where = f"{where}:{line}"
        super().__init__(f"{where}: {message}")

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickle and copy by the constructor's arguments (``args`` holds the message with its place)."""
        return functools.partial(type(self), path=self.path, line=self.line), (self._message,), self.__dict__
