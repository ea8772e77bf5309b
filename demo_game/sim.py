"""The demo's simulation: map, two teams of units, orders, building edits and timing. No drawing.

World coordinates are arcade's (x right, y up, one cell = ``cell_size`` world units); grid
arrays are ``[y, x]`` with row 0 at the top (``TileGrid(y_up=True)``).
"""

from __future__ import annotations

import threading
import time
from collections import deque
from concurrent.futures import Future, wait
from typing import Any

import numpy as np
import numpy.typing as npt
import shapely

import gamenav
from demo_game.mapgen import BUILDING, GRASS, MARSH, Terrain

__all__ = ["Simulation", "Timings"]

FLOW_THRESHOLD = 16
REROUTE_SECONDS = 1.0
"""Armies re-plan their flow fields round each other this often (``Crowd(reroute_seconds=)``)."""
PATCH_FRAMES = 90
"""The navmesh overlay highlights the triangles of edits this many frames old or younger (3 s)."""
MESSAGE_FRAMES = 150
"""The HUD shows a message for this many frames (5 s)."""
UNIT_KINDS = (("infantry", 0.3, 7.0, 0.6), ("cavalry", 0.4, 10.0, 0.28), ("tank", 0.5, 5.0, 0.12))
"""(name, radius in cells, max speed in cells per second, share of an army)."""


class Timings:
    """Durations in ms, one per frame, in bounded memory: the one source of the HUD and the stats.

    ``count``, ``mean`` and ``max`` cover the whole run exactly; :meth:`recent_mean` the last
    ``window`` frames (the HUD); :meth:`percentile` the last ``history`` frames (all of a
    headless run shorter than that).
    """

    def __init__(self, window: int = 60, history: int = 36_000) -> None:
        self.recent: deque[float] = deque(maxlen=window)
        self.history: deque[float] = deque(maxlen=history)
        self.count = 0
        self.total = 0.0
        self.max = 0.0

    def add(self, ms: float) -> None:
        self.recent.append(ms)
        self.history.append(ms)
        self.count += 1
        self.total += ms
        self.max = max(self.max, ms)

    @property
    def mean(self) -> float:
        return self.total / self.count if self.count else 0.0

    def recent_mean(self) -> float:
        return float(np.mean(self.recent)) if self.recent else 0.0

    def percentile(self, q: float) -> float:
        return float(np.percentile(self.history, q)) if self.history else 0.0


class Simulation:
    """Units of two teams on a terrain, moved by a :class:`gamenav.Crowd` through a PathQueue.

    Args:
        terrain: the map (kinds per cell).
        agents: number of units (split evenly between the teams).
        seed: spawn positions are drawn from this seed.
        budget_ms: the PathQueue's pathfinding budget per frame.
        max_expansions: a budget in node expansions per frame instead of milliseconds (the
            run is then deterministic, whatever the machine load: tests).
        cell_size: world units (pixels) per cell.
        reinforce_seconds: every so many seconds each team loses a few units (they die) and as
            many spawn beside one of its buildings and join its last order (None: never).
    """

    def __init__(self, terrain: Terrain, *, agents: int = 400, seed: int = 7, budget_ms: float = 1.0,
                 cell_size: float = 8.0, max_expansions: int | None = None,
                 reinforce_seconds: float | None = None) -> None:
        self.terrain = terrain
        self.grid = gamenav.TileGrid(terrain.walkable, cost=terrain.cost, cell_size=cell_size, y_up=True)
        self.budget_ms = float(budget_ms)
        self.max_expansions = max_expansions
        self.cache = gamenav.PathCache()
        self.queue = (gamenav.PathQueue(budget_ms=None, max_expansions=max_expansions, cache=self.cache)
                      if max_expansions is not None else gamenav.PathQueue(budget_ms=budget_ms, cache=self.cache))
        rng = np.random.default_rng(seed)
        positions, self.team = self._spawn(agents, rng)
        self.kind = rng.choice(len(UNIT_KINDS), len(positions), p=[k[3] for k in UNIT_KINDS])
        """Unit kind per crowd row (index into :data:`UNIT_KINDS`); rows follow ``crowd.ids``."""
        self.crowd = gamenav.Crowd(self.grid, positions, radius=self._radii(self.kind),
                                   max_speed=self._speeds(self.kind), queue=self.queue, flow_threshold=FLOW_THRESHOLD,
                                   reroute_seconds=REROUTE_SECONDS)
        self.reinforce_seconds = reinforce_seconds
        self._rng = rng
        self._clock = 0.0
        self.rally: dict[int, tuple[float, float]] = {}
        """Each team's last order target (reinforcements go there)."""
        self.spawned = 0
        self.died = 0
        self.navmesh: gamenav.NavMesh | None = None
        self.navmesh_on = False
        """Navmesh navigation requested; :attr:`navmesh` is set once a background build is done."""
        self._mesh_job: Future[tuple[gamenav.NavMesh, dict[int, npt.NDArray[np.int64]]]] | None = None
        self._mesh_obstacles: dict[int, npt.NDArray[np.int64]] = {}
        """Navmesh obstacle id -> the flat ``[y, x]`` indices of its building cells."""
        self.mesh_edit_ms = Timings()
        """Local navmesh edits (one per building placed or removed in navmesh mode)."""
        self.mesh_patches: list[tuple[int, npt.NDArray[np.int64]]] = []
        """``(frame, triangle ids)`` re-triangulated by recent navmesh edits (the overlay shows them)."""
        self._mesh_stale = False  # the grid changed while the running build read it
        self.frame = 0
        self.version_drawn = -1
        self.update_ms = Timings()
        self.path_ms = Timings()
        self.steer_ms = Timings()
        self.avoid_ms = Timings()
        self._carry_ms = 0.0  # orders and edits between frames count towards the next update
        self._carry_path_ms = 0.0
        self.messages: list[str] = []
        """Everything :meth:`say` said, oldest first."""
        self._said = -MESSAGE_FRAMES  # the frame of the newest message
        self.errors: list[str] = []
        """Problems the game survived (e.g. a navmesh that failed to build); the headless run fails on them."""

    # -- setup ----------------------------------------------------------------------------
    def _spawn(self, agents: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        g = self.grid
        band = min(g.width, max(6, g.width // 5))  # maps narrower than 12 columns: the bands overlap
        positions, teams = [], []
        for team, (x0, x1) in enumerate(((0, band), (g.width - band, g.width))):
            count = agents // 2 + (agents % 2 if team == 0 else 0)
            ys, xs = np.nonzero(g.passable[:, x0:x1])
            if len(xs) == 0 and count:  # a team of no units (--agents 1) needs no room
                raise gamenav.InvalidInputError(f"no passable cells in columns {x0}..{x1 - 1} to spawn team {team}")
            pick = rng.choice(len(xs), size=count, replace=count > len(xs))
            cells = np.stack([xs[pick] + x0, ys[pick]], axis=1)
            jitter = rng.uniform(-0.3, 0.3, (count, 2)) * g.cell_size * (count > len(xs))
            positions.append(g.cell_to_world(cells) + jitter)
            teams.append(np.full(count, team, np.int8))
        return np.concatenate(positions), np.concatenate(teams)

    def _radii(self, kind: npt.NDArray[np.integer[Any]]) -> npt.NDArray[np.float64]:
        return np.array([UNIT_KINDS[k][1] for k in kind.tolist()], np.float64) * self.grid.cell_size

    def _speeds(self, kind: npt.NDArray[np.integer[Any]]) -> npt.NDArray[np.float64]:
        return np.array([UNIT_KINDS[k][2] for k in kind.tolist()], np.float64) * self.grid.cell_size

    def reinforce(self) -> int:
        """Each team: a few random units die, as many spawn beside one of its buildings (on its
        half of the map) and head for its rally point. Returns the units spawned."""
        g, crowd, rng = self.grid, self.crowd, self._rng
        born = 0
        for team in (0, 1):
            rows = np.flatnonzero(self.team == team)
            k = min(len(rows), max(1, len(rows) // 50))
            if k == 0:
                continue
            half = slice(0, g.width // 2) if team == 0 else slice(g.width // 2, g.width)
            near = np.zeros(g.shape, bool)
            building = np.zeros((g.height + 2, g.width + 2), bool)  # a border: no wrapping round the map
            building[1:-1, 1:-1][:, half] = self.terrain.kind[:, half] == BUILDING
            for dy in (0, 1, 2):  # passable cells beside a building: the doors
                for dx in (0, 1, 2):
                    near |= building[dy:dy + g.height, dx:dx + g.width]
            near[:, slice(g.width // 2, g.width) if team == 0 else slice(0, g.width // 2)] = False
            ys, xs = np.nonzero(near & g.passable)
            if len(xs) == 0:
                continue
            dead = crowd.ids[rng.choice(rows, k, replace=False)]
            keep = ~np.isin(crowd.ids, dead)
            crowd.remove(dead)
            self.team, self.kind = self.team[keep], self.kind[keep]
            door = rng.integers(len(xs))
            cells = np.repeat([[xs[door], ys[door]]], k, axis=0)
            kind = rng.choice(len(UNIT_KINDS), k, p=[u[3] for u in UNIT_KINDS])
            spots = g.cell_to_world(cells) + rng.uniform(-0.3, 0.3, (k, 2)) * g.cell_size
            ids = crowd.add(spots, radius=self._radii(kind), max_speed=self._speeds(kind))
            self.team = np.concatenate([self.team, np.full(k, team, np.int8)])
            self.kind = np.concatenate([self.kind, kind])
            if team in self.rally:
                crowd.move(ids, self.rally[team])
            self.died += k
            born += k
        self.spawned += born
        return born

    # -- per frame ------------------------------------------------------------------------
    def step(self, dt: float) -> None:
        """One simulation frame: a finished navmesh build is switched to, then the queue's budgeted
        pathfinding, then steering (timed). Reinforcements come first: the steering parts the units that
        spawn on one spot before they are drawn."""
        if self.reinforce_seconds is not None:
            self._clock += dt
            if self._clock >= self.reinforce_seconds:
                self._clock = 0.0
                self._timed(self.reinforce)
        t0 = time.perf_counter()
        self._poll_navmesh()
        self.queue.update()
        t1 = time.perf_counter()
        self.crowd.update(dt)
        t2 = time.perf_counter()
        self.avoid_ms.add(self.crowd.avoidance_ms)
        self.frame += 1
        path = (t1 - t0) * 1e3 + self._carry_path_ms
        self.path_ms.add(path)
        self.steer_ms.add((t2 - t1) * 1e3)
        self.update_ms.add((t2 - t0) * 1e3 + self._carry_ms)
        self._carry_ms = self._carry_path_ms = 0.0

    def _timed(self, func: Any, *args: Any, pathfinding: bool = True) -> Any:
        t0 = time.perf_counter()
        result = func(*args)
        ms = (time.perf_counter() - t0) * 1e3
        self._carry_ms += ms
        if pathfinding:
            self._carry_path_ms += ms
        return result

    # -- orders ---------------------------------------------------------------------------
    def select(self, lo: tuple[float, float], hi: tuple[float, float], team: int) -> npt.NDArray[np.int64]:
        """Rows of ``team``'s units inside the world rectangle ``lo``..``hi`` (any corners)."""
        p = self.crowd.positions
        (x0, x1), (y0, y1) = sorted((lo[0], hi[0])), sorted((lo[1], hi[1]))
        inside = (p[:, 0] >= x0) & (p[:, 0] <= x1) & (p[:, 1] >= y0) & (p[:, 1] <= y1) & (self.team == team)
        return np.flatnonzero(inside)

    def nearest_unit(self, point: tuple[float, float], team: int, radius: float) -> int | None:
        """The unit of ``team`` nearest to ``point`` within ``radius``, or None."""
        d = np.hypot(*(self.crowd.positions - point).T)
        d[self.team != team] = np.inf
        i = int(np.argmin(d))
        return i if d[i] <= radius else None

    def order(self, agents: npt.ArrayLike, target: tuple[float, float]) -> None:
        """Move ``agents`` (crowd rows) to ``target`` in formation (a flow field for big groups)."""
        rows = np.asarray(agents, np.int64)
        if len(rows) == 0:
            return
        for team in np.unique(self.team[rows]).tolist():
            self.rally[int(team)] = (float(target[0]), float(target[1]))
        self._timed(self.crowd.move, self.crowd.ids[rows], target)

    @property
    def last_field(self) -> npt.NDArray[np.float64] | None:
        """The newest group order's flow field as the crowd uses it now (re-planned round edits and
        other units), or None when no group order is in progress (the expansions overlay)."""
        fields = self.crowd.flow_fields
        return fields[-1] if fields else None

    # -- world edits ----------------------------------------------------------------------
    def cell_at(self, point: tuple[float, float]) -> tuple[int, int] | None:
        c = self.grid.world_to_cell(np.asarray(point, np.float64))
        x, y = int(c[0]), int(c[1])
        return (x, y) if self.grid.in_bounds(x, y) else None

    def place_building(self, point: tuple[float, float], size: tuple[int, int] = (5, 4)) -> int:
        """Put a building (``size`` cells, cut off by the map's edges) centred on ``point`` over grass and
        marsh; returns cells blocked (0: off the map, nothing to build on, or no free cell would be left for
        the units to stand on; the last two are said on the HUD)."""
        cell = self.cell_at(point)
        if cell is None:
            return 0
        w, h = size
        x0, y0 = cell[0] - w // 2, cell[1] - h // 2
        x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x0 + w, self.grid.width), min(y0 + h, self.grid.height)
        area = self.terrain.kind[y0:y1, x0:x1]
        buildable = np.isin(area, (GRASS, MARSH))
        if not buildable.any():
            self.say("no building here: buildings stand on grass and marsh")
            return 0
        mask = np.zeros(self.grid.shape, bool)
        mask[y0:y1, x0:x1] = buildable
        if not (self.grid.passable & ~mask).any():
            self.say("no building on the last free cells: the units need somewhere to stand")
            return 0
        area[buildable] = BUILDING
        self._timed(self._edit, mask, False)
        return int(mask.sum())

    def remove_building(self, point: tuple[float, float]) -> int:
        """Demolish the building under ``point`` (its 4-connected BUILDING cells); returns cells opened.
        The ground comes back as the grid still prices it: marsh where the building stood on marsh."""
        cell = self.cell_at(point)
        if cell is None or self.terrain.kind[cell[1], cell[0]] != BUILDING:
            return 0
        kind = self.terrain.kind
        mask = np.zeros(kind.shape, bool)
        stack = [(cell[1], cell[0])]
        mask[cell[1], cell[0]] = True
        while stack:
            y, x = stack.pop()
            for ny, nx in ((y + 1, x), (y - 1, x), (y, x + 1), (y, x - 1)):
                if 0 <= ny < kind.shape[0] and 0 <= nx < kind.shape[1] and not mask[ny, nx] \
                        and kind[ny, nx] == BUILDING:
                    mask[ny, nx] = True
                    stack.append((ny, nx))
        kind[mask] = np.where(self.grid.cost[mask] > 1.0, MARSH, GRASS)
        self._timed(self._edit, mask, True)
        return int(mask.sum())

    def _edit(self, mask: np.ndarray, walkable: bool) -> None:
        self.grid.set_walkable(mask, walkable)  # the crowd and the cache listen to this
        if not self.navmesh_on:
            return
        if self.navmesh is None or self._mesh_job is not None:
            self._start_navmesh_build()  # a build is running: it is redone from the new grid
            return
        # navmesh mode: carve / uncarve the building locally (no rebuild; the cache and the
        # queue follow the mesh's change notifications)
        t0 = time.perf_counter()
        mesh = self.navmesh
        cells = np.flatnonzero(mask.ravel())
        if not walkable:
            self._mesh_obstacles[mesh.add_obstacle(self._cells_shape(cells))] = cells
        else:
            for oid, own in list(self._mesh_obstacles.items()):
                if np.isin(own, cells).any():
                    mesh.remove_obstacle(oid)
                    del self._mesh_obstacles[oid]
                    rest = own[~np.isin(own, cells)]
                    if len(rest):  # part of that building stands
                        self._mesh_obstacles[mesh.add_obstacle(self._cells_shape(rest))] = rest
        self.mesh_edit_ms.add((time.perf_counter() - t0) * 1e3)

    def _cells_shape(self, flat: npt.NDArray[np.int64]) -> Any:
        """The world-space union of the cells ``flat`` (``[y, x]`` flat indices)."""
        g = self.grid
        ys, xs = np.divmod(flat, g.width)
        centre = g.cell_to_world(np.stack([xs, ys], axis=1))
        half = 0.5 * g.cell_size
        boxes = shapely.box(centre[:, 0] - half, centre[:, 1] - half, centre[:, 0] + half, centre[:, 1] + half)
        return shapely.union_all(boxes)

    def toggle_avoidance(self) -> str:
        """Switch the units' avoidance between ORCA (bodies never overlap) and the older
        separation (pushes; bodies may overlap, crowds pass each other faster); returns the new one."""
        self.crowd.avoidance = "separation" if self.crowd.avoidance == "orca" else "orca"
        return self.crowd.avoidance

    # -- navigation mode ------------------------------------------------------------------
    @property
    def navmesh_available(self) -> bool:
        return hasattr(gamenav, "NavMesh")

    def toggle_navmesh(self) -> bool:
        """Switch path requests between the grid and a navmesh built from it; True = navmesh on.

        The navmesh is built in a background thread (shapely releases the GIL; a build takes tens
        of ms, more than a frame): units keep navigating the grid (or the previous mesh, after an
        edit) until :meth:`step` finds the build done and switches to it.
        """
        if not self.navmesh_on:
            if not self.navmesh_available:
                self.say("navmesh navigation is not available")
                return False
            self.navmesh_on = True
            self._start_navmesh_build()
        else:
            self.navmesh_on = False
            self.navmesh = None
            self.crowd.world = self.grid
        return self.navmesh_on

    def _start_navmesh_build(self) -> None:
        if self._mesh_job is not None:  # one build at a time: redo it when this one ends
            self._mesh_stale = True
            return
        g = self.grid
        job: Future[tuple[gamenav.NavMesh, dict[int, npt.NDArray[np.int64]]]] = Future()
        grids = (g.walkable.copy(), g.cost.copy(), self.terrain.kind == BUILDING)

        def build() -> None:
            try:
                job.set_result(self._build_navmesh(*grids))
            except Exception as exc:  # noqa: BLE001 - reported by _poll_navmesh
                job.set_exception(exc)

        self._mesh_job = job
        self._mesh_stale = False
        # a daemon thread: quitting never waits for a build (up to 7 s on the GPPC maps)
        threading.Thread(target=build, name="navmesh-build", daemon=True).start()

    def _build_navmesh(self, walkable: npt.NDArray[np.bool_], cost: npt.NDArray[np.float64],
                       buildings: npt.NDArray[np.bool_]) -> tuple[gamenav.NavMesh, dict[int, npt.NDArray[np.int64]]]:
        """(background thread) The navmesh of the grid without its buildings (with the cell costs:
        marsh triangles carry their cost), then each building carved as an obstacle, so that
        every building can later be placed or removed by a local edit."""
        g = self.grid
        base = walkable | buildings
        cost = np.where(buildings & ~walkable, np.where(np.isfinite(cost) & (cost >= 1), cost, 1.0), cost)
        snapshot = gamenav.TileGrid(base, cost=cost, cell_size=g.cell_size, origin=g.origin, y_up=g.y_up)
        mesh = gamenav.NavMesh.from_grid(snapshot, agent_radius=0.3 * g.cell_size)
        obstacles: dict[int, npt.NDArray[np.int64]] = {}
        todo = buildings & ~walkable
        while todo.any():  # one obstacle per 4-connected building
            start = int(np.flatnonzero(todo.ravel())[0])
            comp = [start]
            todo.ravel()[start] = False
            for c in comp:
                y, x = divmod(c, g.width)
                for ny, nx in ((y + 1, x), (y - 1, x), (y, x + 1), (y, x - 1)):
                    if 0 <= ny < g.height and 0 <= nx < g.width and todo[ny, nx]:
                        todo[ny, nx] = False
                        comp.append(ny * g.width + nx)
            cells = np.array(sorted(comp), dtype=np.int64)
            obstacles[mesh.add_obstacle(self._cells_shape(cells))] = cells
        return mesh, obstacles

    def _poll_navmesh(self) -> None:
        """Switch to a finished navmesh build (or restart it if the grid changed meanwhile)."""
        job = self._mesh_job
        if job is None or not job.done():
            return
        self._mesh_job = None
        if not self.navmesh_on:
            return
        if self._mesh_stale:
            self._start_navmesh_build()
            return
        try:
            mesh, self._mesh_obstacles = job.result()
        except Exception as exc:  # noqa: BLE001 - keep playing on the grid; the headless run reports it
            self.errors.append(f"navmesh build failed: {type(exc).__name__}: {exc}")
            self.say(self.errors[-1])
            self.navmesh_on = False
            self.navmesh = None
            self.crowd.world = self.grid
            return
        self.navmesh = mesh
        self.mesh_patches.clear()
        mesh.subscribe(self._on_mesh_change, weak=True)
        self.crowd.world = mesh

    def _on_mesh_change(self, change: gamenav.NavMeshChange) -> None:
        self.mesh_patches.append((self.frame, change.added))

    def recent_patches(self, frames: int = PATCH_FRAMES) -> npt.NDArray[np.int64]:
        """Ids of the triangles added by the navmesh edits of the last ``frames`` frames."""
        self.mesh_patches[:] = [(f, ids) for f, ids in self.mesh_patches if self.frame - f < frames]
        if not self.mesh_patches:
            return np.zeros(0, np.int64)
        return np.concatenate([ids for _, ids in self.mesh_patches])

    def finish_navmesh_build(self) -> None:
        """Wait for the background navmesh build(s) and switch to the result (tests, tools)."""
        while self._mesh_job is not None:
            wait([self._mesh_job])
            self._poll_navmesh()

    def close(self) -> None:
        """Abandon a running navmesh build (its daemon thread never holds up the exit)."""
        self._mesh_job = None

    def set_budget(self, budget_ms: float) -> None:
        """A new per-frame pathfinding budget, applied from the next frame: clamped to 0.125..16 ms, a
        range widened to the current budget when that lies outside it (so a change never goes the other way)."""
        old = self.budget_ms
        self.budget_ms = float(min(max(budget_ms, min(0.125, old)), max(16.0, old)))
        if self.max_expansions is not None:  # an expansion budget scales with the ms budget
            self.max_expansions = max(64, round(self.max_expansions * self.budget_ms / old))
            self.queue.max_expansions = self.max_expansions
        else:
            self.queue.budget_ms = self.budget_ms

    def say(self, text: str) -> None:
        """Tell the player ``text`` (the HUD's last line for :data:`MESSAGE_FRAMES` frames)."""
        self.messages.append(text)
        self._said = self.frame

    def recent_messages(self) -> list[str]:
        """The newest message while it is :data:`MESSAGE_FRAMES` frames old or younger, else none."""
        return self.messages[-1:] if self.frame - self._said < MESSAGE_FRAMES else []

    # -- checks and numbers ---------------------------------------------------------------
    def units_on_blocked_cells(self) -> int:
        cells = self.grid.world_to_cell(self.crowd.positions)
        g = self.grid
        inside = (cells[:, 0] >= 0) & (cells[:, 0] < g.width) & (cells[:, 1] >= 0) & (cells[:, 1] < g.height)
        ok = inside.copy()
        ok[inside] = g.passable[cells[inside, 1], cells[inside, 0]]
        return int((~ok).sum())

    def queue_stats(self) -> dict[str, float]:
        """Pathfinding numbers for the HUD: queue length, latency frames p50/p95, cache hit rate."""
        q = self.queue.stats
        return {"pending": float(q.pending), "latency_p50": q.latency_p50, "latency_p95": q.latency_p95,
                "cache_hit_rate": self.cache.stats.hit_rate}

    def stats(self) -> dict[str, Any]:
        """The numbers the headless run writes (update = pathfinding + steering, no rendering;
        means and maxima over the whole run, percentiles over the last 36,000 frames)."""
        c = self.crowd
        q = self.queue_stats()
        return {
            "frames": self.frame,
            "agents": len(c),
            "arrived": int(c.arrived.sum()),
            "failed": int(c.failed.sum()),
            "update_ms_mean": self.update_ms.mean,
            "update_ms_p50": self.update_ms.percentile(50),
            "update_ms_p99": self.update_ms.percentile(99),
            "update_ms_max": self.update_ms.max,
            "steering_ms_mean": self.steer_ms.mean,
            "avoidance_ms_mean": self.avoid_ms.mean,
            "avoidance_ms_p99": self.avoid_ms.percentile(99),
            "units_spawned": self.spawned,
            "units_died": self.died,
            "pathfinding_ms_mean": self.path_ms.mean,
            "pathfinding_ms_p99": self.path_ms.percentile(99),
            "pathfinding_ms_max": self.path_ms.max,
            "budget_ms": self.budget_ms,
            "queue_latency_frames_p50": q["latency_p50"],
            "queue_latency_frames_p95": q["latency_p95"],
            "cache_hit_rate": q["cache_hit_rate"],
            **{k: int(v) for k, v in c.counters.items()},
            "errors": list(self.errors),
        }
