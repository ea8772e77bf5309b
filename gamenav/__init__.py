"""gamenav: navigation for Python games.

Tile-grid A* / Jump Point Search / Dijkstra, navmesh portal A* with the funnel algorithm,
a time-sliced path-request queue with a per-frame budget and an exactly invalidated path cache.
Coordinates are ``(x, y)``; grid arrays are indexed ``[y, x]``.

Example:
    >>> import gamenav
    >>> grid = gamenav.TileGrid.from_strings(["....", ".##.", "...."])
    >>> path = gamenav.find_path(grid, (0, 0), (3, 2))
    >>> path.status is gamenav.PathStatus.FOUND
    True
"""

import sys as _sys
import types as _types

from gamenav._warmup import warmup
from gamenav.errors import (BlockedEndpointError, GamenavError, InvalidGeometryError,
                            InvalidInputError, InvalidOptionError, MapFormatError,
                            OutOfBoundsError, UnsupportedOptionError)
from gamenav.grid import (Diagonal, GridChange, GridSearch, Heuristic, SearchWorkspace, TileGrid,
                          clearance_field, clearance_mask, distance_field, prepare)
from gamenav.navmesh import NavMesh, NavMeshSearch, RaycastHit
from gamenav.parallel import find_paths
from gamenav.query import begin_search, find_path
from gamenav.runtime.cache import CacheStats, PathCache
from gamenav.runtime.crowd import Crowd
from gamenav.runtime.follower import Follower
from gamenav.runtime.queue import PathQueue, PathRequest, QueueStats
from gamenav.types import Path, PathStatus, Search
from gamenav import data as data  # sample maps: gamenav.data.path("arena.map")

__version__ = "0.1.0"

__all__ = [
    "BlockedEndpointError",
    "CacheStats",
    "Crowd",
    "Diagonal",
    "Follower",
    "GamenavError",
    "GridChange",
    "GridSearch",
    "Heuristic",
    "InvalidGeometryError",
    "InvalidInputError",
    "InvalidOptionError",
    "MapFormatError",
    "NavMesh",
    "NavMeshSearch",
    "OutOfBoundsError",
    "Path",
    "PathCache",
    "PathQueue",
    "PathRequest",
    "PathStatus",
    "QueueStats",
    "RaycastHit",
    "Search",
    "SearchWorkspace",
    "TileGrid",
    "UnsupportedOptionError",
    "begin_search",
    "clearance_field",
    "clearance_mask",
    "distance_field",
    "find_path",
    "find_paths",
    "prepare",
    "warmup",
]


class _Package(_types.ModuleType):
    """gamenav's module type: ``gamenav.warmup`` stays the function.

    ``gamenav/warmup.py`` is the ``python -m gamenav.warmup`` command; importing it would otherwise
    rebind the package attribute ``warmup`` to that module.
    """

    def __setattr__(self, name: str, value: object) -> None:
        if name == "warmup" and isinstance(value, _types.ModuleType):
            return
        super().__setattr__(name, value)


_sys.modules[__name__].__class__ = _Package
