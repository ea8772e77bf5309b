"""The one entry point for one-shot and sliced queries on any world (TileGrid or NavMesh).

The options are those of :class:`~gamenav.GridSearch` (grids) and :class:`~gamenav.NavMeshSearch`
(navmeshes), documented there; the overloads below give type checkers the same lists.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, overload

from gamenav.errors import InvalidInputError
from gamenav.grid._fast import fast_rule, try_find_path
from gamenav.grid.search import try_graph_path
from gamenav.grid.tilegrid import TileGrid
from gamenav.types import Path, Search

if TYPE_CHECKING:
    from gamenav.grid.movement import Diagonal, HeuristicLike
    from gamenav.grid.search import SearchWorkspace
    from gamenav.navmesh.mesh import NavMesh

__all__ = ["begin_search", "find_path"]


@overload
def begin_search(world: TileGrid, start: Sequence[int], goal: Sequence[int], *, algorithm: str = ...,
                 diagonal: Diagonal | str | bool = ..., heuristic: HeuristicLike = ...,
                 weight: float = ..., partial: bool = ..., smooth: bool = ...,
                 workspace: SearchWorkspace | None = ..., agent_radius: float = ...) -> Search: ...


@overload
def begin_search(world: NavMesh, start: Sequence[float], goal: Sequence[float], *, exact: bool = ...,
                 clamp: bool = ..., partial: bool = ...) -> Search: ...



def begin_search(world: Any, start: Any, goal: Any, **options: Any) -> Search:
    """Start a resumable search on ``world``; drive it with ``step`` and read ``result()``.

    Args:
        world: a :class:`~gamenav.TileGrid` (``start``/``goal`` are ``(x, y)`` cells) or a
            :class:`~gamenav.NavMesh` (``start``/``goal`` are world points).
        **options: the keyword options of :class:`~gamenav.GridSearch` or
            :class:`~gamenav.NavMeshSearch`.

    Raises:
        InvalidOptionError: an option the world's search does not have (also a TypeError).
        InvalidInputError: an unsupported world, and the errors of the search's constructor.
    """
    if isinstance(world, TileGrid):
        from gamenav.grid.search import GridSearch

        return GridSearch(world, start, goal, **options)
    from gamenav.navmesh.mesh import NavMesh

    if isinstance(world, NavMesh):
        from gamenav.navmesh.search import NavMeshSearch, check_search_options

        check_search_options(options)
        return NavMeshSearch(world, start, goal, **options)
    raise InvalidInputError(f"world must be a TileGrid or a NavMesh, got {type(world).__name__}")


@overload
def find_path(world: TileGrid, start: Sequence[int], goal: Sequence[int], *, algorithm: str = ...,
              diagonal: Diagonal | str | bool = ..., heuristic: HeuristicLike = ...,
              weight: float = ..., partial: bool = ..., smooth: bool = ...,
              workspace: SearchWorkspace | None = ..., agent_radius: float = ...) -> Path: ...


@overload
def find_path(world: NavMesh, start: Sequence[float], goal: Sequence[float], *, exact: bool = ...,
              clamp: bool = ..., partial: bool = ...) -> Path: ...


def find_path(world: Any, start: Any, goal: Any, **options: Any) -> Path:
    """Find a path on a TileGrid or a NavMesh in one call.

    Same arguments as :func:`begin_search`; the result is identical to running that search to
    completion. A goal that no path reaches (another island) gives ``PathStatus.NO_PATH`` (or
    ``PARTIAL`` with ``partial=True``), never an exception; a start or goal on no walkable ground
    (a blocked cell, a point off the mesh) is bad input: :class:`~gamenav.BlockedEndpointError`,
    except a blocked goal cell with ``partial=True`` and points off a mesh with ``clamp=True``
    (snapped onto it).

    Raises:
        The errors of :func:`begin_search`; BlockedEndpointError as above.

    Example:
        >>> import gamenav
        >>> grid = gamenav.TileGrid.from_strings(["....", ".##.", "...."])
        >>> gamenav.find_path(grid, (0, 0), (3, 2)).status.name
        'FOUND'
    """
    if isinstance(world, TileGrid):
        if not options:  # the common case: one kernel call
            path = try_find_path(world, start, goal)
            if path is not None:
                return path
        elif len(options) == 1 and type(alg := options.get("algorithm")) is str and alg in ("jps", "hpa", "subgoal"):
            path = try_graph_path(world, start, goal, alg)
            if path is not None:
                return path
        elif (rule := fast_rule(options)) is not None:  # another movement rule or heuristic
            path = try_find_path(world, start, goal, *rule)
            if path is not None:
                return path
    search = begin_search(world, start, goal, **options)
    search.step(None)
    return search.result()
