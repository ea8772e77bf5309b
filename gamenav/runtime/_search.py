"""What the queue and the cache share: a query's identity key and invalidation facts, and the
weak subscription through which they follow a grid's edits.

A :class:`Query` names a search: the world, start, goal and options. Its ``key`` is what
deduplication (queue) and lookups (cache) compare: world identity, start and goal (grid cells
``(x, y)`` as ints, navmesh points as floats), and the options with the search's defaults filled
in (so ``diagonal="no_corner_cutting"`` and the default are the same query; a heuristic function
or method held weakly). Keys hold no world version: grid and navmesh entries are invalidated edit
by edit (the queue restarts searches that spanned an edit; the cache drops the entries an edit
can affect).
"""

from __future__ import annotations

import inspect
import types
import weakref
from dataclasses import dataclass
from collections.abc import Callable, Hashable
from typing import Any

from gamenav._validate import flag, shown
from gamenav.errors import InvalidInputError
from gamenav.grid._fast import fast_rule, make_path, open_ends, try_find_path
from gamenav.grid.movement import Diagonal
from gamenav.grid.tilegrid import GridChange, TileGrid
from gamenav.navmesh.mesh import world_point
from gamenav.runtime._invalidation import MANHATTAN, OCTILE
from gamenav.query import begin_search
from gamenav.types import Cell, Path, PathStatus, Point, Search, sealed

__all__ = ["RUN_TO_END", "GridWatch", "Query", "make_query", "pending_version", "refused", "start_search"]

_DEFAULTS: dict[type, dict[str, Any]] = {}


def _defaults(search: type) -> dict[str, Any]:
    """The keyword defaults of a search class (``GridSearch``, ``NavMeshSearch``; read from its
    signature), so that a request that spells a default out has the key of one that leaves it."""
    found = _DEFAULTS.get(search)
    if found is None:
        found = _DEFAULTS[search] = {
            name: p.default for name, p in inspect.signature(search).parameters.items()
            if p.kind is inspect.Parameter.KEYWORD_ONLY and p.default is not p.empty and name != "workspace"}
    return found


def _weak(heuristic: Any) -> Any:
    """A heuristic for a key: a function or bound method held weakly (its reference compares and
    hashes as it does while it lives), so that a cache's key does not keep alive what it closes
    over, such as a level's grid; anything else (or a method of an object that cannot be weakly
    referenced) as it is."""
    try:
        if isinstance(heuristic, types.MethodType):
            return weakref.WeakMethod(heuristic)
        return weakref.ref(heuristic) if isinstance(heuristic, types.FunctionType) else heuristic
    except TypeError:
        return heuristic


@dataclass(frozen=True, eq=False)
class Query:
    """One search request, validated.

    Attributes:
        world: the TileGrid or NavMesh.
        start, goal: grid cells ``(x, y)`` (ints) or navmesh points ``(x, y)`` (floats).
        options: the caller's search options, passed unchanged to the search.
        key: hashable identity (see the module docstring), or None when an option value is not
            hashable (such queries are never shared or cached).
        metric: grids only (else None): the admissible distance code of
            :mod:`gamenav.runtime._invalidation` for this movement (manhattan when 4-connected,
            octile otherwise).
        fragile: grids only: any edit may change the result (``smooth=True``: the waypoints
            depend on line of sight and the cost on the unsmoothed cells, which are not kept).
        checked: grids only: the validated search arguments, so that :func:`start_search` starts
            the search without checking them again.
    """

    world: Any
    start: Cell | Point
    goal: Cell | Point
    options: dict[str, Any]
    key: Hashable | None
    metric: int | None
    fragile: bool
    checked: Any = None

    @property
    def is_grid(self) -> bool:
        return isinstance(self.world, TileGrid)


def make_query(world: Any, start: Any, goal: Any, options: dict[str, Any]) -> Query:
    """Validate ``start``/``goal`` and build the :class:`Query`.

    Raises:
        InvalidInputError: unsupported world, malformed points, navmesh flags that are not
            bools, or a ``workspace`` option.
        InvalidOptionError: an option the world's search does not have.
        OutOfBoundsError: a grid cell outside the grid.
    """
    if "workspace" in options:
        raise InvalidInputError("the queue and the cache borrow search workspaces themselves; "
                                f"do not pass workspace= (got {shown(options['workspace'])})")
    metric: int | None = None
    fragile = False
    s: Cell | Point
    g: Cell | Point
    checked = None
    if isinstance(world, TileGrid):
        from gamenav.grid.search import GridSearch

        checked = GridSearch._check(world, start, goal, **options)  # every argument, once
        s, g = checked.start, checked.goal
        effective = dict(_defaults(GridSearch))
        effective.update(options)
        effective["diagonal"] = checked.diagonal
        effective["heuristic"] = _weak(effective["heuristic"])
        fragile = checked.smooth
        metric = MANHATTAN if checked.diagonal is Diagonal.NEVER else OCTILE
    else:
        if getattr(world, "version", None) is None:
            raise InvalidInputError(
                f"world must be a TileGrid or a NavMesh, got {type(world).__name__}")
        sp, gp = world_point(start, "start"), world_point(goal, "goal")  # finite, within MAX_COORDINATE
        s, g = (float(sp[0]), float(sp[1])), (float(gp[0]), float(gp[1]))
        from gamenav.navmesh.search import NavMeshSearch, check_search_options

        check_search_options(options)
        # its options are flags, keyed as the search reads them: exact=1.0 (refused) is not True's
        effective = {name: flag(options.get(name, default), name)
                     for name, default in _defaults(NavMeshSearch).items()}
    key: Hashable | None
    try:
        key = (id(world), s, g, tuple(sorted(effective.items())))
        hash(key)
    except TypeError:
        key = None
    return Query(world, s, g, dict(options), key, metric, fragile, checked)


RUN_TO_END = 1 << 62
"""``finish_within`` of :func:`start_search` for a search that is run to its end anyway."""


def start_search(query: Query, finish_within: int = 0) -> Search:
    """Start ``query``'s search on its world as it is now (grid arguments are not checked again).

    With ``finish_within`` > 0, a grid query that ``find_path``'s one-call kernel answers and that
    cannot expand more nodes than that (its grid has no more passable cells) is answered whole
    at once: the search returned is done, with the same path and expansions as the stepped
    :class:`~gamenav.GridSearch` (about 5 us in all on a small map, against 30 us or more to
    set that search up).

    Raises:
        BlockedEndpointError, UnsupportedOptionError: what depends on the world's current cells
            (an endpoint blocked since the query was made, JPS on a grid that became weighted).
    """
    if query.checked is not None:
        from gamenav.grid.search import GridSearch

        if finish_within > 0:
            answered = _answer_whole(query, finish_within)
            if answered is not None:
                return answered
        return GridSearch._from_checked(query.checked)
    return begin_search(query.world, query.start, query.goal, **query.options)


def pending_version(query: Query) -> int | None:
    """The world version on which ``query``'s search would start and neither raise nor end at
    once, checked without starting it (grid queries the one-call kernel answers: see
    :func:`start_search`); None when only starting the search tells."""
    checked = query.checked
    if checked is None or fast_rule(query.options) is None:
        return None
    return open_ends(checked.grid, checked.start, checked.goal, checked.diagonal, checked.agent_radius)


def _answer_whole(query: Query, cap: int) -> Search | None:
    """``query``'s search answered whole by the one-call kernel, or None (see :func:`start_search`)."""
    rule = fast_rule(query.options)
    if rule is None:
        return None
    checked = query.checked
    grid: TileGrid = checked.grid
    version = grid.version
    path = try_find_path(grid, checked.start, checked.goal, *rule, cap=cap)
    if path is None or grid.version != version:  # (an edit from another thread meanwhile)
        return None
    return Answered(path, version)


class Answered:
    """A search answered whole when it started (:class:`~gamenav.Search`; see :func:`start_search`)."""

    __slots__ = ("_path", "_version")

    def __init__(self, path: Path, version: int) -> None:
        self._path = path
        self._version = version

    @property
    def status(self) -> PathStatus:
        return self._path.status

    @property
    def expanded(self) -> int:
        return self._path.expanded

    @property
    def world_version(self) -> int:
        return self._version

    def step(self, max_expansions: int | None = None) -> PathStatus:  # noqa: ARG002 - done
        return self._path.status

    def result(self) -> Path:
        return self._path

    def partial_result(self) -> Path:
        return self._path

    def cancel(self) -> None:
        """No effect: the search is done."""


def refused(query: Query) -> bool:
    """Whether a fresh search would refuse ``query`` on its world as it is now, although no edit
    invalidated its entry (UnsupportedOptionError): ``algorithm="jps"``, ``"hpa"`` or
    ``"subgoal"`` on a grid whose costs edits made non-uniform, or ``exact=True`` on a mesh
    that edits gave area costs (a mesh following a grid's costs)."""
    if query.checked is not None:
        if query.checked.algorithm not in ("jps", "hpa", "subgoal"):
            return False
        from gamenav.grid.search import padded

        return not padded(query.world).uniform
    if not query.options.get("exact", False):
        return False
    from gamenav.navmesh.search import _has_costs

    mesh = query.world._snapshot()
    return _has_costs(query.world, mesh.version, mesh._cost_array(), mesh.alive)


def shared(path: Path) -> Path:
    """``path`` with arrays that no caller can make writable (:func:`gamenav.types.sealed`), for
    a result handed to more than one caller: the cache's entries, the requests that joined one
    search. (A search's own arrays are read-only, but numpy lets a caller set them, or the owner
    of a read-only view of them, writable: one caller scaling its points in place moved every
    other caller's path.)"""
    return make_path(path.status, path.cost, sealed(path.cells), sealed(path.points), path.expanded,
                     sealed(path.corridor))


class GridWatch:
    """Delivers one grid's edits to ``handler(grid, change)``, a bound method of the owner (a
    queue or a cache), without keeping the owner or the grid alive.

    The grid holds this watch weakly and the watch holds the handler and the grid weakly
    (``WeakMethod``, ``ref``): the owner keeps its watches, so dropping the owner ends the
    subscription (no call, no reference from the grid), and a dropped grid is freed (what the
    owner keeps for it must then not be found by a new grid given its ``id``: see
    :attr:`world`). :meth:`close` ends it explicitly.
    """

    def __init__(self, grid: TileGrid, handler: Callable[[TileGrid, GridChange], None]) -> None:
        self._world = weakref.ref(grid)
        self._handler = weakref.WeakMethod(handler)
        self._unsubscribe = grid.subscribe(self._deliver, weak=True)

    @property
    def world(self) -> TileGrid | None:
        """The grid watched; None once it was dropped."""
        return self._world()

    def _deliver(self, change: GridChange) -> None:
        handler = self._handler()
        grid = self._world()
        if handler is not None and grid is not None:
            handler(grid, change)

    def close(self) -> None:
        """End the subscription (idempotent)."""
        self._unsubscribe()
