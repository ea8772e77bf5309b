"""Runtime services for games: :class:`PathQueue` (time-sliced requests under a per-frame budget)
and :class:`PathCache` (an LRU path cache invalidated exactly by grid edits).

Cells and points are ``(x, y)``; grid arrays are indexed ``[y, x]``.
"""

from gamenav.runtime.cache import CacheStats, PathCache
from gamenav.runtime.queue import PathQueue, PathRequest, QueueStats

__all__ = ["CacheStats", "PathCache", "PathQueue", "PathRequest", "QueueStats"]
