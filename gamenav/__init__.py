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

from gamenav._warmup import warmup
from gamenav.errors import (BlockedEndpointError, GamenavError, InvalidGeometryError,
                            InvalidInputError, InvalidOptionError, MapFormatError,
                            OutOfBoundsError, UnsupportedOptionError)
from gamenav.grid import (Diagonal, GridChange, GridSearch, Heuristic, SearchWorkspace, TileGrid,
                          distance_field)
from gamenav.navmesh import NavMesh, NavMeshSearch
from gamenav.query import begin_search, find_path
from gamenav.runtime.cache import PathCache
from gamenav.runtime.crowd import Crowd
from gamenav.runtime.follower import Follower
from gamenav.runtime.queue import PathQueue, PathRequest
from gamenav.types import Path, PathStatus, Search
from gamenav import data as data  # sample maps: gamenav.data.path("arena.map")

__version__ = "0.1.0"

__all__ = [
    "BlockedEndpointError",
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
    "Search",
    "SearchWorkspace",
    "TileGrid",
    "UnsupportedOptionError",
    "begin_search",
    "distance_field",
    "find_path",
    "warmup",
]
