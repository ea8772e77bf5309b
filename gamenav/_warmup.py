"""Load every numba kernel before the first timed frame: :func:`warmup` (``gamenav.warmup``).

gamenav's hot loops are numba kernels, compiled on first use and cached on disk (numba's cache:
``__pycache__`` beside the kernels, or ``NUMBA_CACHE_DIR``). A first run in a fresh environment
compiles them (tens of seconds in all); later runs load them (a few milliseconds each). Either way
the first call of each kernel pays that price. :func:`warmup` pays it up front, behind a loading
screen or in an installer, by running tiny real queries of every kind in groups:

========================  ======  ============================================================
group                     part    what runs
========================  ======  ============================================================
``grid``                  grid    island labels (4- and 8-connected), clearance (unit sizes)
``grid search``           grid    A* (every diagonal rule and heuristic, weighted, user
                                  heuristic, partial, smooth), JPS, HPA*, subgoal graphs,
                                  Dijkstra, distance fields, sliced searches, edits,
                                  PathQueue + PathCache
``navmesh``               navmesh mesh building, locate, nearest / clamp, raycast
``navmesh-search``        navmesh portal A* with the funnel (also with area costs), exact
                                  (Polyanya) search
``crowd``                 crowd   Crowd updates: paths through a queue, flow fields, ORCA and separation,
                                  wall sliding (and navmesh paths with ``navmesh=True``)
========================  ======  ============================================================

The command line ``python -m gamenav.warmup`` (module :mod:`gamenav.warmup`) runs it for
installers and CI. :func:`gamenav._kernels.announce_compile` runs a group's routine when the group
is first used in a run that finds its kernels uncached.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import numpy as np

from gamenav._kernels import compiling
from gamenav._validate import shown
from gamenav.errors import InvalidInputError
from gamenav.grid import Diagonal, GridSearch, Heuristic, TileGrid, distance_field
from gamenav.grid.clearance import clearance_mask
from gamenav.grid.fields import snapshot_field
from gamenav.grid.search import padded
from gamenav.navmesh import NavMesh, NavMeshSearch
from gamenav.query import find_path
from gamenav.runtime.cache import PathCache
from gamenav.runtime.crowd import Crowd
from gamenav.runtime.queue import PathQueue

__all__ = ["GROUPS", "ROUTINES", "Progress", "warmup"]

Progress = Callable[[int, int, str], object]
"""``progress(done, total, name)``: ``done`` groups of ``total`` finished, ``name`` runs next
(``"done"`` at the end)."""

_MAP = ("........",
        ".##..#..",
        "..#..#..",
        "..#.....",
        "......#.")
"""A small map with walls, corners and two-cell gaps (``#`` blocked)."""


def _grid_map(**kwargs: object) -> TileGrid:
    return TileGrid.from_strings(list(_MAP), **kwargs)  # type: ignore[arg-type]


def _warm_grid() -> None:
    grid = _grid_map()
    for diagonal in Diagonal:
        grid.components(diagonal)
    clearance_mask(grid, 1.0)  # the distance transform (unit sizes), then its repair after an edit
    grid.set_walkable((4, 3), False)
    clearance_mask(grid, 1.0)
    grid.components()  # the island labels' repair


def _warm_grid_search() -> None:
    grid = _grid_map()
    grid.components()  # the "grid" group first, in its own notice (searches need its labels)
    start, goal = (0, 0), (7, 4)
    for diagonal in Diagonal:
        find_path(grid, start, goal, diagonal=diagonal)
    for heuristic in Heuristic:
        find_path(grid, start, goal, heuristic=heuristic)
    find_path(grid, start, goal, weight=1.5)  # binary heap
    find_path(grid, start, goal, heuristic=lambda dx, dy: np.maximum(dx, dy))  # table
    find_path(grid, start, goal, algorithm="jps")
    find_path(grid, start, goal, algorithm="dijkstra")
    find_path(grid, start, goal, smooth=True)  # the one-call kernel smooths
    find_path(grid, start, goal, smooth=True, workspace=None)  # GridSearch smooths (another array type)
    find_path(grid, start, (1, 1), partial=True)  # blocked goal: closest reachable cell
    search = GridSearch(grid, start, goal)
    search.step(1)
    search.partial_result()
    search.cancel()
    distance_field(grid, [start, goal], max_cost=20.0)
    cost = np.ones(grid.shape)
    cost[2, 3:5] = 3.0
    weighted = TileGrid(grid.passable, cost=cost)
    find_path(weighted, start, goal)
    distance_field(weighted, start)
    plain, field = grid._snapshot(), distance_field(grid, start)
    # edits patch the cached move and jump tables in place
    grid.set_walkable((4, 3), False)
    snapshot_field(grid, None, start, since=(plain, field))  # a field repaired after the edit
    find_path(grid, start, goal)
    find_path(grid, start, goal, algorithm="jps")
    grid.set_walkable((4, 3), True)
    # JPS+ on an open map (the map above has so many jump points that "jps" runs A* there)
    rooms = TileGrid(np.ones((6, 12), dtype=bool))
    find_path(rooms, (0, 0), (11, 5), algorithm="jps")
    jps_plus = GridSearch(rooms, (0, 0), (11, 4), algorithm="jps")
    jps_plus.step(1)
    rooms.set_walkable((5, 1, 6, 5), False)  # a wall: the JPS+ table repaired in place
    jps_plus.step()
    padded(rooms).jump_table()  # online JPS: searches that started just before an edit
    # HPA* (algorithm="hpa"): the cluster graph, a query on it, a repair
    wide = TileGrid(np.ones((200, 200), dtype=bool))
    find_path(wide, (0, 0), (199, 150), algorithm="hpa")
    wide.set_walkable((100, 0, 101, 190), False)
    find_path(wide, (0, 0), (199, 150), algorithm="hpa")
    # subgoal graphs (algorithm="subgoal"): the graph, a query on it, a repair
    find_path(wide, (0, 0), (199, 150), algorithm="subgoal")
    wide.set_walkable((50, 50, 54, 54), False)
    find_path(wide, (0, 0), (199, 150), algorithm="subgoal")
    # the runtime layer: a budgeted queue with a cache
    cache = PathCache()
    queue = PathQueue(budget_ms=1.0, cache=cache)
    try:
        requests = [queue.request(grid, start, goal), queue.request(grid, goal, start)]
        for _ in range(100):
            queue.update()
            if all(r.done for r in requests):
                break
        queue.request(grid, start, goal)  # a cache hit
        queue.update()
    finally:
        queue.close()
        cache.close()


def _mesh() -> NavMesh:
    return NavMesh.from_polygons([(0, 0), (10, 0), (10, 10), (0, 10)],
                                 obstacles=[[(3, 3), (7, 3), (7, 7), (3, 7)]], agent_radius=0.25)


def _mesh_states() -> Iterator[NavMesh]:
    """A mesh following a grid and a mesh with an obstacle, as built, edited, compacted and
    edited again (the kernels see their arrays in other layouts: yielded after each step)."""
    floor = _grid_map(cell_size=2.0)
    followed = NavMesh.from_grid(floor, agent_radius=0.2, follow=True)
    open_floor = TileGrid(np.ones((5, 8), dtype=bool))
    open_followed = NavMesh.from_grid(open_floor, agent_radius=0.2, follow=True)
    carved = _mesh()
    yield open_followed
    open_floor.set_walkable((3, 2), False)  # (a hole in one piece of free space: its index rebuilt whole)
    yield open_followed
    for edit in (None, lambda: floor.set_walkable((4, 3), False), followed.compact,
                 lambda: floor.set_walkable((4, 3), True),
                 lambda: carved.add_obstacle([(8.0, 1.0), (9.0, 1.0), (9.0, 2.0)]), carved.compact,
                 lambda: carved.add_obstacle([(1.0, 8.0), (2.0, 8.0), (2.0, 9.0)])):
        if edit is not None:
            edit()
        yield followed
        yield carved


def _warm_navmesh() -> None:
    for state in _mesh_states():
        state.locate([(1.0, 1.0)])
        state.nearest((50.0, 50.0))
    mesh = _mesh()
    mesh.locate([(1.0, 1.0), (50.0, 50.0)])
    mesh.locate(np.array([[1.0, 2.0], [8.0, 9.0]]).T.copy().T)  # any memory layout
    mesh.nearest((50.0, 50.0))
    mesh.clamp([(-1.0, 5.0), (5.0, 5.0)], island=0)
    mesh.raycast((1.0, 1.0), (9.0, 9.0))
    mesh.raycast((1.0, 1.0), (1.0, 9.0))
    NavMesh.from_grid(_grid_map(cell_size=2.0), agent_radius=0.2)
    # splits (split_groups), merges back (relabel)
    oid = mesh.add_obstacle([(-1.0, 4.0), (11.0, 4.0), (11.0, 6.0), (-1.0, 6.0)])
    mesh.locate([(1.0, 1.0)])  # an edited mesh's padded index (another locate_points layout)
    # an obstacle inside the carved one: its removal re-triangulates with the build's triangles
    # (cavity, boundary_rings on the build's arrays) instead of putting the old triangles back
    mesh.add_obstacle([(4.5, 4.5), (5.5, 4.5), (5.5, 5.5), (4.5, 5.5)])
    mesh.remove_obstacle(oid)
    # an edit of a mesh with area costs locates the new triangles in the build (locate_points)
    costly = NavMesh.from_polygons([[(0, 0), (10, 0), (10, 10), (0, 10)]],
                                   areas=[([(0, 0), (5, 0), (5, 5), (0, 5)], 2.0)])
    costly.remove_obstacle(costly.add_obstacle([(1.0, 1.0), (2.0, 1.0), (2.0, 2.0), (1.0, 2.0)]))


def _warm_navmesh_search() -> None:
    for state in _mesh_states():
        for exact in (False, True):
            find_path(state, (1.0, 1.0), (9.0, 9.0), exact=exact, clamp=True)
    mesh = _mesh()
    for exact in (False, True):
        find_path(mesh, (1.0, 1.0), (9.0, 9.0), exact=exact)
        search = NavMeshSearch(mesh, (1.0, 9.0), (9.0, 1.0), exact=exact)
        while not search.step(2).done:
            pass
        search.result()
    costly = NavMesh(mesh.vertices, mesh.triangles, np.linspace(1.0, 3.0, len(mesh)))  # area costs
    find_path(costly, (1.0, 1.0), (9.0, 9.0))
    # an edited mesh hands the kernels read-only snapshot arrays: another specialisation
    mesh.add_obstacle([(4.0, 8.0), (6.0, 8.0), (6.0, 9.0), (4.0, 9.0)])
    for exact in (False, True):
        find_path(mesh, (1.0, 1.0), (9.0, 9.0), exact=exact)
        find_path(mesh, (-5.0, 1.0), (9.0, 9.0), exact=exact, clamp=True)
    mesh.nearest((50.0, 50.0))


def _warm_crowd(navmesh: bool) -> None:
    grid = _grid_map(cell_size=4.0)
    cache = PathCache()
    queue = PathQueue(budget_ms=1.0, cache=cache)
    cells = [(0, 0), (1, 0), (0, 1), (0, 2), (1, 2), (0, 3), (1, 3), (0, 4)]
    crowd = Crowd(grid, grid.cell_to_world(cells), radius=1.0, max_speed=8.0, queue=queue,
                  flow_threshold=4)
    try:
        crowd.move(range(6), (30.0, 18.0))  # a group order: flow field
        crowd.move([6, 7], (30.0, 2.0))  # a squad: path requests
        for _ in range(3):
            queue.update()
            crowd.update(1 / 30)
        grid.set_walkable((6, 0), False)  # re-paths and field updates after an edit
        queue.update()
        crowd.update(1 / 30)
        big = crowd.add(grid.cell_to_world([(7, 0)]), radius=2.5)  # spawning; a unit too big to pass
        crowd.update(1 / 30)  # another one in the map's gaps (passages taking turns)
        crowd._near_goal(crowd.rows(big))  # the walk check of units stuck near their goals (idle: at it)
        crowd.remove(big)
        crowd.avoidance = "separation"  # the older steering
        crowd.update(1 / 30)
        crowd.avoidance = "orca"
        if navmesh:
            crowd.world = NavMesh.from_grid(grid, agent_radius=0.5)
            crowd.move([6, 7], (18.0, 2.0))
            for _ in range(3):
                queue.update()
                crowd.update(1 / 30)
    finally:
        for closable in (crowd, queue, cache):
            close = getattr(closable, "close", None)
            if close is not None:
                close()


GROUPS: dict[str, str] = {"grid": "grid", "grid search": "grid", "navmesh": "navmesh",
                          "navmesh-search": "navmesh", "crowd": "crowd"}
"""Kernel group -> the :func:`warmup` flag (part) that selects it, in warm-up order."""

ROUTINES: dict[str, Callable[[], None]] = {
    "grid": _warm_grid,
    "grid search": _warm_grid_search,
    "navmesh": _warm_navmesh,
    "navmesh-search": _warm_navmesh_search,
    "crowd": lambda: _warm_crowd(navmesh=False),
}
"""Kernel group -> the routine that loads (compiling if needed) all its kernels."""


def warmup(*, grid: bool = True, navmesh: bool = True, crowd: bool = True,
           progress: Progress | None = None) -> dict[str, float]:
    """Load (compiling on a first run) every kernel the selected parts of gamenav use.

    Call it once at start-up, before the first timed frame (behind a loading screen): then no
    frame pays for loading or compiling a kernel. Cheap when everything is already loaded.

    Args:
        grid: tile-grid searches, distance fields, PathQueue / PathCache on grids.
        navmesh: navmesh building, queries and searches.
        crowd: :class:`~gamenav.Crowd` / :class:`~gamenav.Follower` steering.
        progress: ``progress(done, total, name)`` is called before each group (``done`` groups
            of ``total`` finished, ``name`` about to run) and once at the end with
            ``(total, total, "done")``. Redraw a loading bar from it. With a callback the
            compile notices on stderr are left out (the caller shows progress).

    Returns:
        seconds spent per group (compiling or loading), in the order they ran.

    Raises:
        InvalidInputError: a flag that is not a bool, or ``progress`` not callable.

    Example:
        >>> import gamenav
        >>> seconds = gamenav.warmup(navmesh=False)
        >>> list(seconds)
        ['grid', 'grid search', 'crowd']
    """
    parts = {"grid": grid, "navmesh": navmesh, "crowd": crowd}
    for name, flag in parts.items():
        if not isinstance(flag, (bool, np.bool_)):
            raise InvalidInputError(f"{name} must be True or False, got {shown(flag)}")
    if progress is not None and not callable(progress):
        raise InvalidInputError(f"progress must be a callable or None, got {shown(progress)}")
    groups = [g for g, part in GROUPS.items() if parts[part]]
    routines: dict[str, Callable[[], None]] = ROUTINES
    if crowd and navmesh:
        routines = {**ROUTINES, "crowd": lambda: _warm_crowd(navmesh=True)}
    seconds: dict[str, float] = {}
    for done, group in enumerate(groups):
        if progress is not None:
            progress(done, len(groups), group)
        with compiling(group, notify=progress is None) as record:
            routines[group]()
        seconds[group] = record.seconds
    if progress is not None:
        progress(len(groups), len(groups), "done")
    return seconds
