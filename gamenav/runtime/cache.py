"""PathCache: a bounded LRU cache of path results that is never stale.

Grid entries are keyed by (grid identity, start cell, goal cell, options) and survive edits that
cannot affect them: the cache subscribes to every :class:`~gamenav.TileGrid` it holds paths for
and, on each :class:`~gamenav.GridChange`, drops exactly the entries whose path crosses a blocked
or more expensive cell, or that an opened or cheaper cell could shorten (see
:mod:`gamenav.runtime._invalidation` for the rule and why it is exact). Navmesh entries survive
mesh edits the same way: the cache subscribes to the mesh and, on each
:class:`~gamenav.NavMeshChange`, drops exactly the entries whose polyline or corridor touches the
changed region, or that the opened region could shorten (see
:mod:`gamenav.runtime._mesh_invalidation`). A rebuilt mesh is another world (its own entries).
Coordinates are ``(x, y)``.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass
from collections.abc import Callable, Hashable
from typing import Any

from gamenav._events import Closeable, Inbox
from gamenav._validate import is_int, shown
from gamenav.errors import InvalidInputError
from gamenav.grid.tilegrid import GridChange, TileGrid
from gamenav.runtime._invalidation import EntryTable
from gamenav.runtime._mesh_invalidation import MeshEntries
from gamenav.runtime._search import RUN_TO_END, GridWatch, Query, make_query, refused, shared, start_search
from gamenav.types import Path, PathStatus

__all__ = ["CacheStats", "PathCache"]


_CACHEABLE = (PathStatus.FOUND, PathStatus.PARTIAL, PathStatus.NO_PATH)


@dataclass(frozen=True)
class CacheStats:
    """A snapshot of a :class:`PathCache`'s counters.

    Attributes:
        hits: lookups answered from the cache.
        misses: lookups that had to search.
        invalidations: entries dropped because the world changed (grid or navmesh edits).
        evictions: entries dropped to stay within ``capacity`` and ``max_bytes`` (least
            recently used first).
        size: entries held now.
        capacity: the maximum number of entries.
        nbytes: bytes of the arrays the entries hold now (the paths' and their bookkeeping's).
        max_bytes: the most ``nbytes`` may reach.
    """

    hits: int
    misses: int
    invalidations: int
    evictions: int
    size: int
    capacity: int
    nbytes: int = 0
    max_bytes: int = 0

    @property
    def hit_rate(self) -> float:
        """``hits / (hits + misses)``; 0.0 before the first lookup."""
        total = self.hits + self.misses
        return self.hits / total if total else 0.0


class _GridEntries(GridWatch):
    """The entries of one grid: its invalidation table, the (weak) edit subscription and
    ``seen``, the grid version of the last edit the table heard of."""

    def __init__(self, grid: TileGrid, handler: Callable[[TileGrid, GridChange], None]) -> None:
        super().__init__(grid, handler)
        self.table = EntryTable(grid.shape)
        self.seen = grid.version  # read once subscribed: every later edit is heard


_Entries = _GridEntries | MeshEntries
"""The entries of one world (:class:`_GridEntries` or :class:`MeshEntries`)."""


class PathCache(Closeable):
    """A bounded, exactly invalidated cache of path results (grids and navmeshes).

    Args:
        capacity: the maximum number of entries (>= 1); the least recently used go first.
        max_bytes: the most memory the entries' arrays may take (>= 1; 64 MiB by default: a few
            hundred long paths of a GPPC-size map, thousands of a small map's); the least
            recently used go first, and a result larger than this alone (with the cache's
            bookkeeping for it) is not stored.

    Use it on its own with :meth:`find_path`, or hand it to :class:`~gamenav.PathQueue`
    (``PathQueue(cache=cache)``), which looks requests up before queueing them and stores what
    it computes. Results with status FOUND, PARTIAL and NO_PATH are cached. A cached path is
    always one a fresh search could return now: walkable and as short as the optimum (for
    weighted A* entries: still within ``weight`` times the optimum).

    The cache follows the edits of the grids it holds entries for through weak subscriptions:
    a dropped cache is neither kept alive nor notified by a grid, and a dropped grid or mesh is
    not kept alive by the cache (its entries are never found again and leave as least
    recently used, or at once when another world takes its ``id``). :meth:`close` (or leaving a
    ``with PathCache() as cache:`` block) drops every entry and ends the subscriptions; after
    it, :meth:`find_path` (and requests of a queue using the cache) raise InvalidInputError,
    results are no longer stored, and :attr:`stats` stays readable.

    Example:
        >>> import gamenav
        >>> grid = gamenav.TileGrid.from_strings(["....", ".##.", "...."])
        >>> cache = gamenav.PathCache(capacity=100)
        >>> first = cache.find_path(grid, (0, 0), (3, 2))
        >>> cache.find_path(grid, (0, 0), (3, 2)) is first
        True
        >>> change = grid.set_walkable(tuple(first.cells[2]), False)  # on the path: dropped
        >>> cache.stats.invalidations, len(cache)
        (1, 0)
    """

    def __init__(self, capacity: int = 4096, *, max_bytes: int = 64 << 20) -> None:
        if not is_int(capacity) or capacity < 1:
            raise InvalidInputError(f"capacity must be an int >= 1, got {shown(capacity)}")
        if not is_int(max_bytes) or max_bytes < 1:
            raise InvalidInputError(f"max_bytes must be an int >= 1, got {shown(max_bytes)}")
        self._capacity = int(capacity)
        self._max_bytes = int(max_bytes)
        self._nbytes = 0
        self._lru: OrderedDict[Hashable, tuple[Path, _Entries, int]] = OrderedDict()
        self._grids: dict[int, _GridEntries] = {}
        self._meshes: dict[int, MeshEntries] = {}  # (by id(world): the entries hold it weakly)
        self._hits = self._misses = self._invalidations = self._evictions = 0
        self._inbox = Inbox(self._edited)  # edits heard in other threads wait for this one

    @property
    def capacity(self) -> int:
        return self._capacity

    @property
    def max_bytes(self) -> int:
        return self._max_bytes

    @property
    def stats(self) -> CacheStats:
        """Counters since construction (or the last :meth:`clear`)."""
        self._inbox.catch_up()
        return CacheStats(self._hits, self._misses, self._invalidations, self._evictions,
                          len(self._lru), self._capacity, self._nbytes, self._max_bytes)

    def __len__(self) -> int:
        self._inbox.catch_up()
        return len(self._lru)

    def find_path(self, world: Any, start: Any, goal: Any, **options: Any) -> Path:
        """The cached path for this query, or a fresh search's result (then cached).

        Same arguments and result as :func:`gamenav.find_path`; errors for bad input too, and
        InvalidInputError once the cache is closed.
        """
        query = make_query(world, start, goal, options)
        hit = self._lookup(query)  # (catches up with edits heard in other threads first)
        if hit is not None:
            return hit
        search = start_search(query, RUN_TO_END)
        search.step(None)
        path = shared(search.result())
        self._store(query, path, search.world_version)
        return path

    def _lookup(self, query: Query) -> Path | None:
        """The cached result of ``query`` (counted as a hit or a miss), or None.

        Raises:
            InvalidInputError: the cache is closed.
        """
        self._check_open("look up paths in")
        self._inbox.claim()  # (also for a queue using the cache: the same thread)
        key = query.key
        if key is None:
            self._misses += 1
            return None
        self._entries(query.world)  # (first forgets a dead world's entries under this id)
        entry = self._lru.get(key)
        if entry is None or not self._current(query) or refused(query):
            self._misses += 1
            return None
        self._lru.move_to_end(key)
        self._hits += 1
        return entry[0]

    def _store(self, query: Query, path: Path, version: int) -> None:
        """Cache ``path``, the result of ``query`` computed on version ``version`` of its world
        (nothing unless that is the world's version now, or once the cache is closed)."""
        key = query.key
        if key is None or path.status not in _CACHEABLE or self._closed or version != query.world.version:
            return
        self._inbox.catch_up()  # edits heard in another thread: acted on before, not on this result
        world = query.world
        holder = self._entries(world)
        if holder is None:
            watch = _GridEntries if query.is_grid else MeshEntries
            holder = self._tables(world)[id(world)] = watch(world, self._heard)
        # checked again once subscribed (an edit may have come meanwhile, unheard); a result older
        # than what the table heard would miss the edits in between, and mesh tables take results
        # only once they have acted on every edit
        if version != world.version or version < holder.seen or (not query.is_grid and holder.seen != version):
            if not len(holder.table):
                self._drop(holder)
            return
        if isinstance(holder, _GridEntries):
            kept = holder.table.add_result(key, query, path)
        else:
            kept = holder.table.add_result(key, query, path, float(world.tolerance))
        size = path.cells.nbytes + path.points.nbytes + path.corridor.nbytes + kept
        self._pop(key)  # (a key stored again: its old size goes)
        if size > self._max_bytes:  # alone beyond the bound, bookkeeping included: not stored
            self._forget(key, holder)
            return
        self._lru[key] = (path, holder, size)
        self._nbytes += size
        while len(self._lru) > self._capacity or self._nbytes > self._max_bytes:
            old_key = next(iter(self._lru))
            self._forget(old_key, self._lru[old_key][1])
            self._pop(old_key)
            self._evictions += 1

    def clear(self) -> None:
        """Drop every entry, unsubscribe from every grid and reset the counters."""
        self._drop_entries()
        self._hits = self._misses = self._invalidations = self._evictions = 0

    def _close(self) -> None:
        """Drop every entry and stop following grid edits (the counters stay readable);
        afterwards :meth:`find_path` raises InvalidInputError."""
        self._drop_entries()

    # -- internals -------------------------------------------------------------------------
    def _drop_entries(self) -> None:
        self._inbox.clear()
        for entries in self._grids.values():
            entries.close()
        for record in self._meshes.values():
            record.close()
        self._grids.clear()
        self._meshes.clear()
        self._lru.clear()
        self._nbytes = 0

    def _tables(self, world: Any) -> dict[int, Any]:
        """The entry tables of ``world``'s kind (grids or meshes), by ``id(world)``."""
        return self._grids if isinstance(world, TileGrid) else self._meshes

    def _entries(self, world: Any) -> _Entries | None:
        """The entries of ``world`` (None: none yet). Those of a dropped world whose ``id``
        ``world`` now has are forgotten first (their keys are ``world``'s)."""
        holder: _Entries | None = self._tables(world).get(id(world))
        if holder is None or holder.world is world:
            return holder
        for key in [k for k, (_, h, _) in self._lru.items() if h is holder]:
            self._pop(key)
        self._drop(holder)
        return None

    def _pop(self, key: Hashable) -> None:
        """Remove ``key``'s LRU entry, if any, and its bytes (its table's bookkeeping stays)."""
        entry = self._lru.pop(key, None)
        if entry is not None:
            self._nbytes -= entry[2]

    def _forget(self, key: Hashable, holder: _Entries) -> None:
        """Remove ``key``'s bookkeeping from ``holder``'s table."""
        holder.table.remove(key)
        if not len(holder.table):
            self._drop(holder)

    def _drop(self, holder: _Entries) -> None:
        """End ``holder``'s subscription and forget it (its table is empty or forgotten)."""
        holder.close()
        tables = self._grids if isinstance(holder, _GridEntries) else self._meshes
        for wid in [wid for wid, h in tables.items() if h is holder]:
            del tables[wid]

    def _heard(self, world: Any, change: Any) -> None:
        """A grid or mesh listener (in the editing thread): acted on in the cache's thread."""
        self._inbox.deliver(world, change)

    def _edited(self, world: Any, change: Any) -> None:
        """Drop the entries of ``world`` that ``change`` may invalidate (in the cache's thread)."""
        holder = self._entries(world)
        if holder is None or holder.seen >= change.version:  # subscribed since: the table holds it
            return
        for key in holder.table.invalidate(change):
            self._pop(key)
            self._invalidations += 1
        holder.seen = change.version
        if not len(holder.table):
            self._drop(holder)

    def _current(self, query: Query) -> bool:
        """Whether the entries of ``query``'s world have acted on its every edit (False while an
        edit's notification is on its way, from inside another listener of the world, or waits
        in the inbox: heard in another thread)."""
        world = query.world
        holder = self._entries(world)
        return holder is None or bool(holder.seen == world.version)

    def __repr__(self) -> str:
        s = self.stats
        return (f"PathCache(size={s.size}/{s.capacity}, bytes={s.nbytes}/{s.max_bytes}, hits={s.hits}, "
                f"misses={s.misses}, invalidations={s.invalidations})")
