"""PathQueue: path requests answered over several frames within a per-frame budget.

The model is Detour's ``dtPathQueue``: requests are queued and each ``update()`` (once per frame)
advances resumable searches until a budget is spent. gamenav's queue adds what a game needs on
top: a budget in milliseconds (read from ``time.perf_counter`` once per chunk of expansions,
chunks sized from the measured expansion rate) and/or in expansions; priorities with aging and
FIFO among equals; identical requests sharing one search; cancelled requests that stop costing
time; answers that stay correct while the grid is edited; an optional :class:`PathCache`; and
statistics for tuning the budget. Cells and points are ``(x, y)``.

Frame-time spikes that no budget can prevent: Python's full garbage collections. numba and
numpy leave ~10^5 objects behind at import, and one full collection of them takes tens to
hundreds of milliseconds, in whatever frame it happens to strike. Games should call
``gc.collect(); gc.freeze()`` once after loading (``gamenav.tune`` and ``benchmarks/queue.py`` do).
"""

from __future__ import annotations

import heapq
import itertools
import math
import numbers
import sys
import time
import weakref
from collections import deque
from dataclasses import dataclass
from collections.abc import Callable, Hashable, Iterable, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from gamenav._events import Closeable, Inbox, NotCopyable
from gamenav._identity import IdentityMap
from gamenav._validate import expansion_budget, is_int, is_real, real_number, shown
from gamenav.errors import BlockedEndpointError, InvalidInputError, UnsupportedOptionError
from gamenav.grid.clearance import mask_change
from gamenav.grid.movement import Diagonal
from gamenav.grid.tilegrid import GridChange, TileGrid
from gamenav.parallel import check_workers, run_parallel
from gamenav.runtime._invalidation import EntryTable, crossed, footprint, reads_corners
from gamenav.runtime._search import GridWatch, Query, make_query, pending_version, refused, shared, start_search
from gamenav.runtime.cache import PathCache
from gamenav.types import Path, PathStatus, Search

__all__ = ["PathQueue", "PathRequest", "QueueStats"]


_MIN_CHUNK = 256
"""Smallest adaptive chunk: below this, one ``step`` call's overhead (3-9 us) starts to show."""
_MAX_CHUNK = 1 << 16
_FILL_OWN = 0.85
"""Fraction of the remaining time a chunk fills when sized from its own search's rate."""
_FILL_WORLD = 0.6
"""... when sized from the world's average rate (searches differ; stay further from the edge)."""
_EMA = 0.25
_FIRST_ANSWER_RATE = 5e6
"""Expansions per second assumed of a search answered whole at its start on a world whose speed is
not measured yet (200 ns each: the kernel takes 30-50 ns per expansion on the benchmark machine)."""
_PENDING = Path.none(PathStatus.IN_PROGRESS)
_MAX_QUICK = 1 << 62
"""``quick_expansions`` above this (more than any world has nodes) run the search to its end."""
_MAX_CHANGES = 16
"""Most edits a waiting search keeps to be checked against (each holds the grid's passable cells:
2.4 MB on a 1550 x 1550 map); a started search that waits longer starts again when served."""
_HELD_BYTES = 256 * 2**20
"""Work arrays the started searches waiting their turn (behind more urgent ones, or begun by a quick
request) may hold: beyond it the least urgent give theirs back and start again when served (a grid
search holds about 32 bytes a cell: 73 MB on 1550 x 1550)."""
_HAND_OUT = 8
"""Most jobs per worker thread handed out in one round (``workers > 1``)."""
_SPARE = 1.5
"""... as many as the work estimated to fill the threads until the deadline, times this."""
_FILL_THREADS = 0.6
"""With ``workers > 1``: chunks fill this fraction of what one worker's would (threads running
side by side are slower and vary more)."""


class PathRequest(NotCopyable):
    """A handle on one queued request, returned by :meth:`PathQueue.request` (not copyable).

    Attributes:
        world: the TileGrid or NavMesh searched.
        start, goal: as given to :meth:`PathQueue.request` (grid cells as ``(x, y)`` ints).
        priority: the priority it was queued with (higher is served first).
    """

    __slots__ = ("world", "start", "goal", "priority", "_on_done", "_queue", "_clock", "_job", "_status",
                 "_path", "_frame", "_waited", "_score", "_footprint", "_query", "_version", "__weakref__")

    def __init__(self, queue: PathQueue, query: Query, priority: float,
                 on_done: Callable[[PathRequest], Any] | None, score: float) -> None:
        self.world = query.world
        self.start = query.start
        self.goal = query.goal
        self.priority = priority
        self._query = query
        self._on_done = on_done
        self._queue = weakref.ref(queue)  # (weak: the queue holds its requests; a dropped queue goes at once)
        self._clock = queue._clock
        self._job: weakref.ref[_Job] | None = None  # (weak too: a dropped queue's jobs go with it)
        self._status = PathStatus.IN_PROGRESS
        self._path = _PENDING
        # of its quick path on a grid, while held: the footprint and its number of path cells (see crossed)
        self._footprint: tuple[npt.NDArray[np.int64], int] | None = None
        self._frame = self._clock.frame
        self._waited: int | None = None
        self._score = score
        self._version: int | None = None  # the world version its answer holds at (None: not known)

    @property
    def status(self) -> PathStatus:
        """IN_PROGRESS while queued; then FOUND, PARTIAL, NO_PATH, STALE or CANCELLED."""
        return self._status

    @property
    def done(self) -> bool:
        """True once the request has its final status."""
        return self._status.done

    @property
    def path(self) -> Path:
        """The result once done. While queued: the quick partial path when one was asked for
        and found (status PARTIAL), else an empty path with status IN_PROGRESS (also while an
        edit the queue has not acted on yet may block it: read from inside a grid listener)."""
        if not self._status.done:
            queue = self._queue()
            if queue is None:  # dropped: never answered, and no edit withdraws a quick path now
                return _PENDING
            queue._inbox.catch_up()  # an edit heard in another thread may withdraw it
            if not queue._acted_on_all(self.world):
                return _PENDING
        return self._path

    @property
    def frames_waited(self) -> int:
        """``update()`` calls from the request to its answer (0: answered at request time);
        while pending, the calls so far."""
        if self._waited is not None:
            return self._waited
        return self._clock.frame - self._frame

    def cancel(self) -> None:
        """Withdraw the request: status CANCELLED, ``on_done`` is not called. No effect once done.

        A search that no other request shares is dropped at once and costs no more time.
        """
        if not self._status.done:
            queue = self._queue()
            if queue is None:  # dropped: nothing to withdraw it from
                self._cancelled()
            else:
                queue._cancel(self)

    def _abandon(self) -> None:
        """:meth:`cancel` at the queue's next request or update: for the finalizer of an owner
        that was garbage-collected (in any thread, possibly in the middle of the queue's work)."""
        queue = self._queue()
        if not self._status.done and queue is not None:
            queue._abandoned.append(self)

    def _cancelled(self) -> None:
        """Give the request its final status CANCELLED (its job forgets it)."""
        self._status = PathStatus.CANCELLED
        self._path, self._footprint = Path.none(PathStatus.CANCELLED), None
        self._waited = self._clock.frame - self._frame
        self._job = None

    def __repr__(self) -> str:
        return (f"PathRequest(start={self.start}, goal={self.goal}, priority={self.priority}, "
                f"status={self._status.name}, frames_waited={self.frames_waited})")


class _Clock:
    """A queue's ``update()`` calls so far, shared with its requests (which hold their queue
    weakly: a queue with pending requests is in no reference cycle, so one dropped goes at once)."""

    __slots__ = ("frame",)

    def __init__(self) -> None:
        self.frame = 0


class _Job:
    """One search shared by every identical pending request; its ``score`` is the highest of
    theirs, held by ``top`` of them (so that cancelling one of thousands costs O(1), not a scan)."""

    __slots__ = ("query", "search", "requests", "score", "top", "seq", "changes", "alive", "rate",
                 "checked", "stepping", "__weakref__")

    def __init__(self, query: Query, score: float, seq: int, checked: int) -> None:
        self.query = query
        self.search: Search | None = None
        self.checked = checked  # the world version its search last started on
        self.requests: dict[PathRequest, None] = {}  # (ordered: answered in request order)
        self.score = score
        self.top = 0
        self.seq = seq
        self.changes: list[GridChange] = []
        self.alive = True
        self.rate: float | None = None  # this search's expansions per second
        self.stepping = False  # a thread is stepping its search (see PathQueue._step)

    def add(self, req: PathRequest) -> bool:
        """Add ``req``; returns whether that raised the job's score."""
        self.requests[req] = None
        if req._score > self.score:
            self.score, self.top = req._score, 1
            return True
        self.top += req._score == self.score
        return False

    def remove(self, req: PathRequest) -> bool:
        """Remove ``req``; returns whether that lowered the job's score (requests are left)."""
        del self.requests[req]
        if req._score != self.score or not self.requests:
            return False
        self.top -= 1
        if self.top:
            return False
        self.score = max(r._score for r in self.requests)
        self.top = sum(r._score == self.score for r in self.requests)
        return True


class _GridJobs(GridWatch):
    """The pending jobs on one grid; the requests whose answer on it waits for their ``on_done``
    and no edit the queue acted on since has outdated (``answers``; their paths are put in
    ``table`` at the first edit after them: most are delivered before any); the queue's
    subscription to its edits; and ``seen``, the grid version of the last edit the queue acted on."""

    def __init__(self, grid: TileGrid, handler: Callable[[TileGrid, GridChange], None]) -> None:
        super().__init__(grid, handler)
        self.jobs: set[_Job] = set()
        self.answers: dict[PathRequest, None] = {}
        self.fresh: dict[PathRequest, None] = {}  # answers not in the table yet
        self.table: EntryTable | None = None
        self.shape = grid.shape
        self.seen = grid.version  # read once subscribed: every later edit is heard

    @property
    def idle(self) -> bool:
        """No pending job and no answer waiting: the subscription can end."""
        return not self.jobs and not self.answers

    def outdated(self, change: GridChange) -> list[PathRequest]:
        """Remove and return the requests whose answer ``change`` outdates (the rule of
        :class:`~gamenav.runtime._invalidation.EntryTable`, as for a search that spanned it)."""
        if not self.answers:
            return []
        table = self.table = self.table or EntryTable(self.shape)
        for req in self.fresh:
            table.add_result(req, req._query, req._path)
        self.fresh.clear()
        gone: list[PathRequest] = table.invalidate(change)  # type: ignore[assignment]  # (its keys)
        for req in gone:
            del self.answers[req]
        return gone

    def forget(self, req: PathRequest) -> None:
        """Stop checking the answer of ``req``."""
        self.answers.pop(req, None)
        self.fresh.pop(req, None)
        if self.table is not None:
            self.table.remove(req)


@dataclass(frozen=True)
class QueueStats:
    """A snapshot of a :class:`PathQueue`'s measurements.

    Frame figures cover the last ``window`` updates; latency figures the last ``window``
    answered requests. Times are milliseconds of wall time inside ``update()`` (callbacks
    excluded); latency is in frames (``update()`` calls from request to answer, 0 for answers
    at request time: cache hits, trivial and quick-finished searches).

    Attributes:
        frames: ``update()`` calls so far.
        frame_ms_p50, frame_ms_p99, frame_ms_max: time per update.
        last_frame_ms: the time of the most recent update.
        expansions_p50, expansions_max: node expansions per update.
        last_frame_expansions: expansions in the most recent update.
        pending: requests waiting for an answer.
        searches: distinct searches pending (identical requests share one).
        completed: requests answered FOUND, PARTIAL or NO_PATH (STALE ones count in ``stale``).
        cancelled: requests cancelled.
        stale: requests answered STALE (``on_change="stale"``).
        restarts: searches restarted because an edit invalidated their result.
        shared: requests that joined an identical pending search.
        cache_hits: requests answered from the cache.
        latency_p50, latency_p95, latency_max: frames from request to answer.
    """

    frames: int
    frame_ms_p50: float
    frame_ms_p99: float
    frame_ms_max: float
    last_frame_ms: float
    expansions_p50: float
    expansions_max: int
    last_frame_expansions: int
    pending: int
    searches: int
    completed: int
    cancelled: int
    stale: int
    restarts: int
    shared: int
    cache_hits: int
    latency_p50: float
    latency_p95: float
    latency_max: int

    def __str__(self) -> str:
        return (f"frame {self.frame_ms_p50:.3f}/{self.frame_ms_p99:.3f}/{self.frame_ms_max:.3f} ms "
                f"(p50/p99/max), latency {self.latency_p50:g}/{self.latency_p95:g}/"
                f"{self.latency_max} frames (p50/p95/max), pending {self.pending}, completed "
                f"{self.completed}, cancelled {self.cancelled}, cache hits {self.cache_hits}")


def _track(estimate: float, sample: float) -> float:
    """Update a cost estimate (seconds): follows drops at once, rises slowly and ignores spikes
    (a descheduled thread makes single samples many times too long)."""
    if sample <= estimate:
        return estimate + 0.5 * (sample - estimate)
    return estimate + 0.05 * (min(sample, 4.0 * estimate) - estimate)


def _margin(margin: float, late: float, budget: float) -> float:
    """The margin (seconds) by which threads stop before the deadline (``workers > 1``), after
    an update that ended ``late`` seconds after the deadline (negative: before it).

    A thread's last chunk can run long (a thread waiting for the GIL or descheduled), which no
    rate estimate foresees. The margin tracks the 95th percentile of that delay: it grows by 5%
    of the budget after a late update and shrinks by a nineteenth of that after one on time
    (so about 1 update in 20 ends late), within 0 .. half the budget."""
    step = 0.05 * budget
    margin = margin + step if late > 0.0 else margin - step / 19.0
    return min(max(margin, 0.0), 0.5 * budget)


def _search_bytes(job: _Job) -> int:
    """About the bytes of work arrays ``job``'s started search holds (a navmesh search: 1-2 MB)."""
    world = job.query.world
    return 32 * (world.width + 2) * (world.height + 2) if isinstance(world, TileGrid) else 2**21


def _whole(job: _Job, search: Search) -> bool:
    """Whether ``search``'s next step runs whole whatever its budget: the first step of an
    ``algorithm="hpa"`` or ``"subgoal"`` search (the whole query, 0.1-4 ms on big maps)."""
    return search.expanded == 0 and job.query.options.get("algorithm") in ("hpa", "subgoal")


def _percentile(values: Sequence[float], q: float) -> float:
    return float(np.percentile(values, q)) if len(values) else 0.0


def _step_jobs(jobs: list[_Job], caps: list[int], workers: int,
               size: Callable[[_Job, float, int, bool, bool], int],
               measure: Callable[[_Job, int, float, bool], None], first: bool) -> tuple[list[int], bool]:
    """Step ``jobs`` (started searches, in the order served) on ``workers`` threads, the calling
    thread being one; returns the expansions done per job and whether a thread ran out of time.

    Each thread takes the next job no thread took yet and steps it in chunks of
    ``size(job, now, cap_left, first_chunk, whole)`` expansions, reading the clock itself, until
    the search is done or has spent its cap ``caps[i]``; a size of 0 means the thread's time is
    up: it stops. ``first_chunk`` is true for the round's first chunk (of any thread) when
    ``first``: one chunk per update at least, whatever the time; ``whole``: the step runs whole
    (:func:`_whole`). Each step is reported as ``measure(job, expansions, seconds, whole)``."""
    done = [0] * len(jobs)
    firsts = [True] if first else []
    late: list[bool] = []

    def make_worker() -> Callable[[int], None]:
        stopped = False

        def run(i: int) -> None:
            nonlocal stopped
            job, cap = jobs[i], caps[i]
            search = job.search
            while search is not None and cap > 0 and not stopped and not search.status.done \
                    and job.requests:  # (all cancelled meanwhile: it costs no more time)
                t = time.perf_counter()
                try:
                    first_chunk = firsts.pop()  # atomic: one thread gets it
                except IndexError:
                    first_chunk = False
                whole = _whole(job, search)
                n = size(job, t, cap, first_chunk, whole)
                if n <= 0:
                    stopped = True
                    late.append(True)
                    return
                before = search.expanded
                search.step(n)
                k = search.expanded - before
                measure(job, k, time.perf_counter() - t, whole)
                done[i] += k
                cap -= k
                if k == 0:
                    return  # a search that cannot advance: never spin

        return run

    if jobs:
        run_parallel(len(jobs), workers, make_worker)
    return done, bool(late)


def _finite(value: numbers.Real) -> bool:
    """Whether ``value`` is finite as a float (an int beyond float64, such as ``10**400``, is not)."""
    try:
        return math.isfinite(value)
    except OverflowError:
        return False


def _score(priority: float, aging: float, frame: int) -> float:
    """The serving rank of a request of ``priority`` made at ``frame`` (higher first): ``priority -
    aging * frame``, divided by ``aging`` when that is above 1 (a positive factor: the same order),
    so that it stays finite for any finite priority and aging (1e308 - 1e308 * 2 was -inf, and
    every such request tied)."""
    return priority - aging * frame if aging <= 1.0 else priority / aging - frame


def _count(value: Any, name: str, expected: str = "an int >= 1", most: float = math.inf) -> int:
    """``value`` as an int from 1 to ``most`` (a Python or numpy int, not a bool: :func:`is_int`)."""
    if not is_int(value) or not 1 <= value <= most:
        raise InvalidInputError(f"{name} must be {expected}, got {shown(value)}")
    return int(value)


def _check_budget(budget_ms: float | None, max_expansions: int | None) -> int | None:
    """Check a budget pair; returns ``max_expansions`` as a Python int (or None)."""
    if budget_ms is not None:
        expected = "a finite number > 0 or None"
        ms = real_number(budget_ms, "budget_ms", expected)  # (an int beyond float64 is infinite)
        if not math.isfinite(ms) or ms <= 0:
            raise InvalidInputError(f"budget_ms must be {expected}, got {shown(budget_ms)}")
    if budget_ms is None and max_expansions is None:
        raise InvalidInputError("give budget_ms or max_expansions (or both); got neither")
    # what a search's step takes: checked here, not in update(); an int (np.uint64 arithmetic gives floats)
    return None if max_expansions is None else expansion_budget(max_expansions)


class PathQueue(Closeable):
    """Time-sliced path requests: call :meth:`request` any time, :meth:`update` once per frame.

    Args:
        budget_ms: wall time per :meth:`update` in milliseconds (> 0), or None for no time limit.
            Searches run in chunks of expansions sized from the measured expansion rate so the
            clock is read a few times per update; an update stops before a chunk that would not
            fit, so it ends close to the budget however long the searches are.
        max_expansions: node expansions per update (>= 1), or None. Exact: an update never
            expands more, except by the first step of an ``algorithm="hpa"`` or ``"subgoal"``
            search, which runs the whole query whatever its budget (see
            :class:`~gamenav.GridSearch`). With ``budget_ms=None`` the queue is fully
            deterministic (tests, lockstep multiplayer).
        cache: an open :class:`PathCache` consulted before queueing and filled with every result.
        chunk: fixed expansions per ``step`` call instead of the adaptive size (>= 1), or None.
        aging: priority gained per frame of waiting (>= 0). A request of priority ``p`` is
            overtaken by a later request of priority ``q`` arriving ``k`` frames after it only
            when ``q - p > aging * k``: nothing waits forever behind a stream of more urgent
            requests (0 disables aging: strict priorities).
        on_change: what to do with a search whose grid was edited while it ran and whose
            result the edit invalidates (checked exactly, as in :class:`PathCache`):
            ``"restart"`` it on the new grid (default, keeping its place in the queue) or answer
            ``"stale"`` (status STALE). Results the edit cannot affect are delivered as they are.
            The same goes for answers whose ``on_done`` has not been called yet (see
            :meth:`request`).
            With ``"stale"``, a request that joins a search started before an edit starts it
            again on the world as it is (no request is answered STALE for an edit made before it).
            A request whose start or goal cell was blocked since it was made, or an
            ``algorithm="jps"``, ``"hpa"`` or ``"subgoal"`` request on a grid made weighted
            since, is answered STALE in either mode (a new search would raise
            BlockedEndpointError, UnsupportedOptionError).
        window: how many recent frames / answers :attr:`stats` summarises.
        workers: searches stepped at once on threads (>= 1, at most the usable cores; None:
            every core). With N > 1,
            each update hands the searches served next to the N threads once (the calling
            thread is one): each thread steps them in turn, in chunks sized from its measured
            speed, reads the clock itself and stops short of the budget; starting, finishing
            and answering stay in the calling thread (after the join). With
            ``max_expansions`` an update spends exactly what one worker's would. An update
            waits for its threads, and a thread that waits for the GIL or is descheduled runs
            its last chunk long: the threads stop early by a margin that adapts so that about
            one update in 20 ends late. Worth it when searches are long (big maps) and cores
            are free; on cores busy with other work the margin grows and one worker can do more
            per frame. Answers are the same as with one worker.

    Results are bit for bit those of :func:`gamenav.find_path` with the same options. Requests
    with the same world, start, goal and options made while one of them is pending share a
    single search (a navmesh search that spanned a mesh edit is restarted, or answered STALE,
    whatever the edit).

    The queue follows the edits of the grids it has pending searches on through weak
    subscriptions: a dropped queue is neither kept alive nor notified by a grid, nor kept alive by
    the requests it handed out (they hold it weakly; its pending ones are never answered). The pending
    requests of a dropped :class:`~gamenav.Crowd` or :class:`~gamenav.Follower` are cancelled at
    the next :meth:`request` or :meth:`update`. :meth:`close`
    (or leaving a ``with PathQueue(...) as queue:`` block) cancels every pending request and
    ends the subscriptions; after it, :meth:`request` and :meth:`update` raise
    InvalidInputError, while :attr:`stats` and the answered requests stay readable.

    Example:
        >>> import gamenav
        >>> grid = gamenav.TileGrid.from_strings(["....", ".##.", "...."])
        >>> queue = gamenav.PathQueue(budget_ms=None, max_expansions=100)
        >>> req = queue.request(grid, (0, 0), (3, 2))
        >>> queue.update()
        >>> req.status.name, req.path.cost, req.frames_waited
        ('FOUND', 5.0, 1)
    """

    def __init__(self, *, budget_ms: float | None = 1.0, max_expansions: int | None = None,
                 cache: PathCache | None = None, chunk: int | None = None, aging: float = 0.05,
                 on_change: str = "restart", window: int = 600, workers: int | None = 1) -> None:
        max_expansions = _check_budget(budget_ms, max_expansions)
        self._workers = check_workers(workers)
        if cache is not None and not isinstance(cache, PathCache):
            raise InvalidInputError(f"cache must be a PathCache or None, got {type(cache).__name__}")
        if cache is not None and cache.closed:  # (else the first request raises, far from the cause)
            raise InvalidInputError("cache is closed: pass an open PathCache (or None)")
        if not 0.0 <= real_number(aging, "aging", "a finite number >= 0") < math.inf:
            raise InvalidInputError(f"aging must be a finite number >= 0, got {shown(aging)}")
        if on_change not in ("restart", "stale"):
            raise InvalidInputError(f"on_change must be 'restart' or 'stale', got {shown(on_change)}")
        chunk = None if chunk is None else _count(chunk, "chunk", "an int >= 1 or None")
        window = _count(window, "window", f"an int >= 1 and at most {sys.maxsize}", sys.maxsize)
        self._budget_ms = None if budget_ms is None else float(budget_ms)
        self._max_expansions = max_expansions
        self._cache = cache
        self._chunk = chunk
        self._aging = float(aging)
        self._restart = on_change == "restart"
        self._clock = _Clock()
        self._seq = itertools.count()
        self._heap: list[tuple[float, int, int, _Job]] = []
        self._pushes = itertools.count()
        self._jobs: dict[Hashable, _Job] = {}
        self._held: dict[_Job, None] = {}  # jobs whose search was started (some restarted since)
        self._held_bytes = 0  # their _search_bytes
        self._grids: dict[int, _GridJobs] = {}
        self._searches = 0
        self._pending = 0
        self._answered: dict[PathRequest, None] = {}  # answered, on_done not called yet (in order)
        self._abandoned: deque[PathRequest] = deque()  # to cancel (PathRequest._abandon; any thread appends)
        # per world (weak: a dropped world's figures go with it, none passes to a new world)
        self._rate: IdentityMap[Any, float] = IdentityMap()  # expansions per second
        self._start_s = 20e-6                  # measured cost of starting a search
        self._finish_s = 20e-6                 # measured cost of finishing one
        self._margin_s = 0.0                   # workers > 1: threads stop this early (_margin)
        self._per_search: IdentityMap[Any, float] = IdentityMap()  # expansions per search
        self._whole_s: IdentityMap[Any, float] = IdentityMap()  # whole first steps (_whole)
        self._frame_s: deque[float] = deque(maxlen=window)
        self._frame_exp: deque[int] = deque(maxlen=window)
        self._latency: deque[int] = deque(maxlen=window)
        self._counts = dict.fromkeys(
            ("completed", "cancelled", "stale", "restarts", "shared", "cache_hits"), 0)
        self._inbox = Inbox(self._edited)  # edits heard in other threads wait for this one

    # -- budget ----------------------------------------------------------------------------
    @property
    def budget_ms(self) -> float | None:
        """Pathfinding wall time per :meth:`update` in ms, or None; settable between frames."""
        return self._budget_ms

    @budget_ms.setter
    def budget_ms(self, value: float | None) -> None:
        _check_budget(value, self._max_expansions)
        self._budget_ms = None if value is None else float(value)

    @property
    def max_expansions(self) -> int | None:
        """Node expansions per :meth:`update`, or None; settable between frames."""
        return self._max_expansions

    @max_expansions.setter
    def max_expansions(self, value: int | None) -> None:
        self._max_expansions = _check_budget(self.budget_ms, value)

    # -- requests --------------------------------------------------------------------------
    def request(self, world: Any, start: Any, goal: Any, *, priority: float = 0,
                on_done: Callable[[PathRequest], Any] | None = None, quick_expansions: int = 0,
                **search_options: Any) -> PathRequest:
        """Queue a path request; returns its :class:`PathRequest` handle.

        Args:
            world: a :class:`~gamenav.TileGrid` (``start``/``goal`` are ``(x, y)`` cells) or a
                :class:`~gamenav.NavMesh` (world points).
            priority: higher is served first (any real number; equal priorities are FIFO).
            on_done: ``on_done(request)``, called from a later :meth:`update` once the request
                is answered (also for answers given at request time); not called on cancel.
                A request made while callbacks run (e.g. by a callback) has its callback
                called in the next update at the earliest, so chains of requests answered at
                once (cache hits) run one link per update. Until its callback is called, an
                answer (also one given at request time) is checked against the world's edits as
                a running search's result is (a navmesh answer is outdated by any mesh edit): one
                an edit outdates is searched again (pending again: ``done`` is False until the
                new answer, which the callback gets) or answered STALE, as ``on_change`` says.
                Each request gets one callback.
            quick_expansions: expand up to this many nodes right now, outside the frame
                budget (Detour's quick search): short requests are answered at once (done,
                0 frames waited); otherwise, on grids, :attr:`PathRequest.path` holds the best
                partial path so far (status PARTIAL) until the answer arrives, so an agent can
                start moving. The quick expansions always search the world as it is now (a
                shared search started before an edit starts again). An edit that blocks a cell
                of that partial path (or a diagonal step's corner, as its movement rule forbids)
                or raises the cost of a cell it enters withdraws it.
            **search_options: passed to the search (see :func:`gamenav.find_path`).

        Raises:
            The errors of :func:`gamenav.find_path` for bad input (checked here, not in
            ``update``); InvalidInputError for a bad priority, on_done or quick_expansions,
            or when the queue (or its cache) is closed.
        """
        self._check_open("request paths from")
        self._inbox.claim()
        self._cancel_abandoned()
        if isinstance(priority, (bool, np.timedelta64)) or not isinstance(priority, numbers.Real) \
                or not _finite(priority):
            plain = priority.item() if is_real(priority) and isinstance(priority, np.generic) else priority
            raise InvalidInputError(f"priority must be a finite number, got {shown(plain)}")
        if on_done is not None and not callable(on_done):
            raise InvalidInputError(f"on_done must be callable or None, got {shown(on_done)}")
        if not is_int(quick_expansions) or quick_expansions < 0:
            raise InvalidInputError(f"quick_expansions must be an int >= 0, got {shown(quick_expansions)}")
        query = make_query(world, start, goal, search_options)
        score = _score(float(priority), self._aging, self._clock.frame)
        req = PathRequest(self, query, priority, on_done, score)
        if self._cache is not None:
            hit = self._cache._lookup(query)
            if hit is not None:
                self._counts["cache_hits"] += 1
                self._answer(req, hit, query.world.version)  # (a hit is current)
                return req
        job = self._jobs.get(query.key) if query.key is not None else None
        if job is not None and job.stepping:  # made by code run during its step (a __del__): its
            job = None                        # search must not restart or step meanwhile
        if job is not None and (quick_expansions or not self._restart and job.search is not None) \
                and not self._current(job):
            # quick paths, and "stale" answers, come from the world as it is now (a request made
            # after an edit never gets STALE for it); raises, if it does, before any change
            self._begin(job)
        elif job is not None and job.checked != query.world.version:
            check = start_search(query)  # raises what a fresh search would (an endpoint blocked since)
            check.cancel()
            job.checked = check.world_version
        if job is not None and not job.alive:  # answered or cancelled by code its start ran (a
            job = None                         # heuristic, a __del__): this request searches anew
        version = None
        if job is None and not quick_expansions and self._peek() is not None:  # (queued: see below)
            version = pending_version(query)
        if version is not None:  # checked without a search: started lazily in update()
            job = _Job(query, score, next(self._seq), version)
            self._add_job(job)
        elif job is None:
            search = start_search(query)
            if search.status.done:  # start == goal, or another island: answered at once
                self._store_and_answer(query, search.result(), [req], search.world_version)
                return req
            job = _Job(query, score, next(self._seq), search.world_version)
            if quick_expansions or self._peek() is None:  # it runs next: keep it started
                job.search = search
                self._hold(job)
            else:
                search.cancel()  # started lazily in update(): no workspace held while queued
            self._add_job(job)
        else:
            self._counts["shared"] += 1
        self._join(job, req)
        if self._closed:  # by code its search's start ran: cancelled, as close() cancels the others
            req.cancel()
            return req
        if quick_expansions:
            self._quick(job, req, min(int(quick_expansions), _MAX_QUICK))
        self._shed()
        return req

    def _quick(self, job: _Job, req: PathRequest, expansions: int) -> None:
        """Run ``expansions`` of ``job`` (started on the current world) now; answer it if done,
        else give ``req`` a partial path."""
        search: Search = job.search  # type: ignore[assignment]
        self._step(job, search, expansions)
        if search.status.done:
            self._finish(job)
        partial = getattr(job.search, "partial_result", None)
        entry = self._grids.get(id(job.query.world))
        # (an edit since the search's snapshot that the queue never heard could not withdraw it)
        if not req.done and partial is not None and (entry is None or entry.seen <= search.world_version):
            req._path = partial()
            if entry is not None:  # (the corners of its diagonal steps only under rules that read them)
                cells = req._path.cells
                req._footprint = (footprint(cells, job.query.world.width, reads_corners(job.query.checked.diagonal)),
                                  len(cells))

    def _cancel_abandoned(self) -> None:
        """Cancel the requests abandoned since the last call (:meth:`PathRequest._abandon`)."""
        while self._abandoned:
            self._abandoned.popleft().cancel()

    def cancel_all(self) -> None:
        """Cancel every pending request (e.g. when a level is unloaded)."""
        self._inbox.catch_up()
        self._abandoned.clear()
        for job in list(self._jobs_alive()):
            for req in list(job.requests):
                req.cancel()

    def _close(self) -> None:
        """Cancel every pending request, forget the callbacks not yet called and stop following
        grid edits; afterwards :meth:`request` and :meth:`update` raise."""
        self.cancel_all()
        self._answered.clear()
        self._inbox.clear()
        for entry in self._grids.values():  # (those of the answers left)
            entry.close()
        self._grids.clear()

    def __len__(self) -> int:
        """Pending requests."""
        return self._pending

    # -- the frame -------------------------------------------------------------------------
    def update(self) -> None:
        """Advance the queued searches until the frame budget is spent; call once per frame.

        Answered requests get their final status and path; then the ``on_done`` callbacks of
        the requests answered so far run (callback time is not part of the budget or of
        :attr:`stats`; callbacks of requests the callbacks make wait for the next update).

        Raises:
            InvalidInputError: the queue is closed.
            What a request's heuristic raises when its search starts, and InvalidInputError
            when its values are not finite numbers >= 0 (that request is then cancelled; the next
            update goes on with the others).
        """
        self._check_open("update")
        self._inbox.claim()
        self._cancel_abandoned()
        self._shed()
        t0 = now = time.perf_counter()
        self._clock.frame += 1
        budget_s = None if self._budget_ms is None else self._budget_ms / 1000.0
        timed = budget_s is not None
        deadline = t0 + budget_s if budget_s is not None else math.inf
        left = self._max_expansions if self._max_expansions is not None else _MAX_CHUNK
        spent = 0
        worked = False
        if self._workers > 1:
            spent = self._update_parallel(now, deadline)
            left = 0  # done: the one-worker loop below does nothing
            if budget_s is not None:
                self._margin_s = _margin(self._margin_s, time.perf_counter() - deadline, budget_s)
        while left > 0:
            job = self._peek()
            if job is None or job.stepping:  # (an update run by code run during its step: a __del__)
                break
            search = job.search
            if search is None:
                if timed and worked and now + self._start_s > deadline:
                    break
                worked = True
                t = now
                search, now = self._start(job, now, self._answer_within(job, now, deadline, left))
                if search is None:
                    continue
                k = search.expanded  # (> 0: answered whole at its start)
                if k:
                    self._measure(job, k, now - t, False)
                    spent += k
                    if self._max_expansions is not None:
                        left -= k
            if not search.status.done:
                whole = _whole(job, search)
                if whole and timed and worked \
                        and now + (self._whole_s.get(job.query.world) or 0.0) > deadline:
                    break  # the rest of the frame cannot hold it: first in the next one
                n = self._chunk_size(job, now, deadline, left, worked)
                if n == 0:
                    break
                before = search.expanded
                self._step(job, search, n)
                t = time.perf_counter()
                k = search.expanded - before
                self._measure(job, k, t - now, whole)
                now = t
                spent += k
                worked = True
                if self._max_expansions is not None:
                    left -= k
                if not search.status.done and k == 0:
                    break  # a search that cannot advance: never spin
            if search.status.done:
                self._finish(job)
                t = time.perf_counter()
                self._finish_s = _track(self._finish_s, t - now)
                now = t
            if now >= deadline:
                break
        self._frame_s.append(time.perf_counter() - t0)
        self._frame_exp.append(spent)
        self._fire_callbacks()

    def _update_parallel(self, now: float, deadline: float) -> int:
        """The searches of :meth:`update` with several workers; returns the expansions spent.

        The calling thread takes the jobs served next (enough to keep every thread busy until
        the deadline, estimated from the measured expansions per search and expansion rates),
        starts them, and hands them to the threads once: each thread takes the next job no
        thread took, steps it in chunks sized to the time left and reads the clock itself,
        stopping short of the deadline by the measured time to join and to finish the jobs.
        After the join the calling thread finishes the done jobs. Another round follows only
        if time and expansions are left and the round advanced. With ``max_expansions`` the
        expansions left are split equally among a round's jobs (a frame spends what one worker
        would; with ``budget_ms=None`` the queue stays deterministic).
        """
        timed = deadline != math.inf
        limit = self._max_expansions
        left = limit if limit is not None else _MAX_QUICK
        spent = 0
        first = True
        while left > 0:
            jobs, now = self._hand_out(now, deadline, left, not first)
            if not jobs:
                break
            count = len(jobs)
            caps = [left // count + (i < left % count) for i in range(count)]
            end = deadline - self._finish_s * count - self._margin_s

            def size(job: _Job, t: float, cap: int, first_chunk: bool, whole: bool,
                     end: float = end) -> int:
                if not timed:
                    return self._chunk_size(job, t, end, cap, True)
                if t >= end and not first_chunk:
                    return 0
                if whole and not first_chunk and t + (self._whole_s.get(job.query.world) or 0.0) > end:
                    return 0  # the rest of the frame cannot hold it: first in the next one
                n = self._chunk_size(job, t, end, cap, not first_chunk)
                if self._chunk is None and n > _MIN_CHUNK:  # smaller steps, same stopping point
                    n = max(int(n * _FILL_THREADS), _MIN_CHUNK)
                return n

            for job in jobs:
                job.stepping = True
            try:
                steps, late = _step_jobs(jobs, caps, self._workers, size, self._measure, first)
            finally:
                for job in jobs:
                    self._stepped(job)
            now = time.perf_counter()
            first = False
            advanced = sum(steps)
            spent += advanced
            if limit is not None:
                left -= advanced
            finished = False
            for job in jobs:
                search = job.search
                if job.alive and search is not None and search.status.done:
                    key = job.query.world
                    old = self._per_search.get(key)
                    self._per_search[key] = float(search.expanded) if old is None \
                        else old + _EMA * (search.expanded - old)
                    self._finish(job)
                    t = time.perf_counter()
                    self._finish_s = _track(self._finish_s, t - now)
                    now = t
                    finished = True
            if late or now >= deadline or (not advanced and not finished):
                break  # out of time, or nothing could advance: never spin
        return spent

    def _hand_out(self, now: float, deadline: float, left: int, worked: bool
                  ) -> tuple[list[_Job], float]:
        """The started jobs for a parallel round and the clock after starting them.

        The ``workers`` jobs served next; in a timed update more while the estimated work of
        those taken (expansions per search on the world, less those done, at the measured rate)
        would leave a thread idle before the deadline and fall short of the expansions ``left``.
        """
        timed = deadline != math.inf
        workers = self._workers
        jobs: list[_Job] = []
        seconds = 0.0  # estimated thread time of the jobs taken
        work = 0  # ... in expansions
        for job in self._top(_HAND_OUT * workers):
            if not job.alive or job.stepping:  # dropped by code an earlier job's start ran (a
                continue  # heuristic, a __del__), or stepped by the update that ran that code
            if len(jobs) >= workers and (not timed or work >= left
                                         or seconds >= _SPARE * workers * (deadline - now)):
                break
            if timed and worked and not jobs and \
                    self._chunk_size(job, now, deadline - self._finish_s, left, True) == 0:
                break  # no time for another round
            search = job.search
            if search is None:
                if timed and (worked or jobs) and now + self._start_s > deadline:
                    break
                search, now = self._start(job, now)
                if search is None:
                    continue
            if search.status.done:  # restarted on a world where it ends at once
                self._finish(job)
                now = time.perf_counter()
                continue
            jobs.append(job)
            key = job.query.world
            per_search, rate = self._per_search.get(key), job.rate or self._rate.get(key)
            if per_search is None or rate is None:  # not measured yet: one job fills a thread
                seconds, work = seconds + deadline - now, left
            else:
                remaining = max(per_search - search.expanded, _MIN_CHUNK)
                seconds, work = seconds + remaining / rate, work + int(remaining)
        return jobs, now

    def _measure(self, job: _Job, k: int, seconds: float, whole: bool) -> None:
        """Record that ``job``'s search did ``k`` expansions in ``seconds`` (chunk sizing), or,
        for a ``whole`` step (:func:`_whole`), how long such a step takes on its world."""
        if whole:
            key = job.query.world
            old = self._whole_s.get(key)
            self._whole_s[key] = seconds if old is None else _track(old, seconds)
        elif k >= _MIN_CHUNK and not self._chunk:
            key = job.query.world
            measured = k / max(seconds, 1e-9)
            old = self._rate.get(key)
            self._rate[key] = measured if old is None else old + _EMA * (measured - old)
            job.rate = measured if job.rate is None else 0.5 * (job.rate + measured)

    def _top(self, count: int) -> list[_Job]:
        """The ``count`` jobs to serve next (highest score, then oldest), left in the queue;
        outdated heap entries met on the way are dropped (as :meth:`_peek` does)."""
        heap = self._heap
        jobs: list[_Job] = []
        kept: list[tuple[float, int, int, _Job]] = []
        while heap and len(jobs) < count:
            entry = heapq.heappop(heap)
            job = entry[-1]
            if job.alive and -entry[0] == job.score and job not in jobs:
                jobs.append(job)
                kept.append(entry)
        for entry in kept:
            heapq.heappush(heap, entry)
        return jobs

    def _answer_within(self, job: _Job, now: float, deadline: float, left: int) -> int:
        """The most expansions a search may need to be answered whole when it starts
        (:func:`start_search`): the chunk it would step now (:meth:`_chunk_size`); in a timed
        update on a world whose speed is not measured yet (short searches only: no chunk long
        enough), what the time left holds at :data:`_FIRST_ANSWER_RATE`."""
        if self._chunk is not None or deadline == math.inf or self._rate.get(job.query.world) is not None:
            return self._chunk_size(job, now, deadline, left, True)
        spare = deadline - now - self._finish_s - self._start_s
        return max(int(min(_FIRST_ANSWER_RATE * spare * _FILL_WORLD, left)), 0)  # (the product may be inf)

    def _chunk_size(self, job: _Job, now: float, deadline: float, left: int, worked: bool) -> int:
        """Expansions for the next ``step``: fixed, or what fits in the remaining time."""
        if self._chunk is not None:
            return min(self._chunk, left)
        if deadline == math.inf:
            return min(_MAX_CHUNK, left)
        rate, fill = job.rate, _FILL_OWN
        if rate is None:
            rate, fill = self._rate.get(job.query.world), _FILL_WORLD
        if rate is None:
            n = _MIN_CHUNK  # first chunk on this world: measure
        else:
            n = int(min(_MAX_CHUNK, rate * (deadline - now - self._finish_s) * fill))  # (may be inf)
            if n < _MIN_CHUNK:
                n = 0 if worked else _MIN_CHUNK  # one small chunk per update at least
        return min(n, left)

    # -- internals -------------------------------------------------------------------------
    def _jobs_alive(self) -> list[_Job]:
        return [entry[-1] for entry in self._heap if entry[-1].alive]

    def _push(self, job: _Job) -> None:
        heapq.heappush(self._heap, (-job.score, job.seq, next(self._pushes), job))

    def _peek(self) -> _Job | None:
        """The job to serve next (highest score, then oldest), dropping outdated heap entries."""
        heap = self._heap
        while heap:
            neg, _, _, job = heap[0]
            if job.alive and -neg == job.score:
                return job
            heapq.heappop(heap)
        return None

    def _add_job(self, job: _Job) -> None:
        if job.query.key is not None:
            self._jobs[job.query.key] = job
        self._push(job)
        self._searches += 1
        world = job.query.world
        if isinstance(world, TileGrid):
            self._follow(world).jobs.add(job)

    def _follow(self, grid: TileGrid) -> _GridJobs:
        """The entry of ``grid``, subscribed to its edits (made if need be)."""
        entry = self._grids.get(id(grid))
        if entry is None:
            entry = self._grids[id(grid)] = _GridJobs(grid, self._heard)
        return entry

    def _unfollow(self, grid: Any) -> None:
        """End the subscription to ``grid`` once it has neither a pending job nor an answer waiting."""
        entry = self._grids.get(id(grid))
        if entry is not None and entry.idle:
            entry.close()
            del self._grids[id(grid)]

    def _start(self, job: _Job, now: float, finish_within: int = 0) -> tuple[Search | None, float]:
        """Start ``job``'s search (timed from ``now``; answered whole at once when it cannot
        expand more than ``finish_within`` nodes: see :func:`start_search`) and return it with the
        time after; when an edit blocked its start or goal since the request, answer STALE and
        return None (None too when the job was dropped meanwhile). When its heuristic raises,
        cancel its requests (each update would raise again, serving no other request) and
        re-raise."""
        try:
            search = self._begin(job, finish_within)
        except (BlockedEndpointError, UnsupportedOptionError):  # (see start_search)
            if job.alive:  # (see _finish)
                self._drop_job(job)
                self._pending -= len(job.requests)
                self._store_and_answer(job.query, Path.none(PathStatus.STALE), job.requests, None)
            return None, time.perf_counter()
        except Exception:
            for req in list(job.requests):
                req.cancel()
            raise
        t = time.perf_counter()
        self._start_s = _track(self._start_s, t - now)
        if not job.alive:  # dropped by code run while it started (see _finish): costs no more time
            search.cancel()
            return None, t
        return search, t

    def _begin(self, job: _Job, finish_within: int = 0) -> Search:
        """(Re)start ``job``'s search on the world as it is now and return it (the old search,
        if any, is cancelled once the new one started: a failing start changes nothing; see
        :func:`start_search` for ``finish_within``)."""
        query = job.query
        search = start_search(query, finish_within)
        if job.search is not None:
            job.search.cancel()
        job.search = search
        self._hold(job)
        job.checked = search.world_version
        job.changes.clear()
        job.rate = None
        return search

    def _shed(self) -> None:
        """Once the started searches hold more than :data:`_HELD_BYTES`, cancel those of the least
        urgent waiting jobs down to half of it (each held its workspace until served: 12 quick requests
        on a 1550 x 1550 maze held 808 MB); they start again when served, with the same answers."""
        if self._held_bytes <= _HELD_BYTES:
            return
        held = self._held
        for job in [j for j in held if j.search is None]:  # (to be restarted: after an edit, say)
            self._unhold(job)
        served = self._peek()
        for job in sorted(held, key=lambda j: (j.score, -j.seq)):  # the last to be served first
            if self._held_bytes <= _HELD_BYTES // 2:
                break
            search = job.search
            if job is served or job.stepping or search is None or search.status.done:
                continue
            search.cancel()
            job.search = None
            self._unhold(job)

    def _hold(self, job: _Job) -> None:
        """Count ``job``'s search, just started, among those :meth:`_shed` bounds."""
        if job not in self._held:
            self._held[job] = None
            self._held_bytes += _search_bytes(job)

    def _unhold(self, job: _Job) -> None:
        if self._held.pop(job, self) is None:
            self._held_bytes -= _search_bytes(job)

    def _step(self, job: _Job, search: Search, n: int) -> None:
        """``search.step(n)`` for ``job``. A cancel of its last request made meanwhile (from
        another thread, or a ``__del__`` that a collection runs) leaves the search to
        :meth:`_stepped`, and an update or request made meanwhile does not step or restart it:
        ending it would give its workspace back to the pool while the kernel still uses it, for
        another search to borrow."""
        job.stepping = True
        try:
            search.step(n)
        finally:
            self._stepped(job)

    def _stepped(self, job: _Job) -> None:
        """End ``job``'s step; drop it if its last request was cancelled during the step."""
        job.stepping = False
        if job.alive and not job.requests:
            job.search.cancel()  # type: ignore[union-attr]
            self._drop_job(job)

    def _current(self, job: _Job) -> bool:
        """Whether ``job``'s search is started and searches the world as it is now (also before
        the queue has heard of an edit: from inside another listener of the world)."""
        search = job.search
        return search is not None and bool(search.world_version == job.query.world.version)

    def _acted_on_all(self, world: Any) -> bool:
        """Whether the queue has acted on every edit of ``world`` that it follows (False while an
        edit's notification is on its way: from inside another listener of the grid)."""
        entry = self._grids.get(id(world))
        return entry is None or entry.seen == world.version

    def _drop_job(self, job: _Job) -> None:
        job.alive = False
        self._unhold(job)
        self._searches -= 1
        if not self._searches:  # only dropped jobs left in the heap: they would hold their worlds
            self._heap.clear()
        if job.query.key is not None and self._jobs.get(job.query.key) is job:
            del self._jobs[job.query.key]
        entry = self._grids.get(id(job.query.world))
        if entry is not None:
            entry.jobs.discard(job)
            self._unfollow(job.query.world)

    def _heard(self, grid: TileGrid, change: GridChange) -> None:
        """The grid listener (in the editing thread): acted on in the queue's thread."""
        self._inbox.deliver(grid, change)

    def _edited(self, grid: TileGrid, change: GridChange) -> None:
        """Remember the edit for every search running on an older snapshot of ``grid``, and
        withdraw quick partial paths that it makes unwalkable or dearer, as it drops cache entries
        (:func:`~gamenav.runtime._invalidation.crossed`; for an ``agent_radius``: on the radius
        mask, whose cells may leave it).

        Robust to whatever other listeners did first (e.g. cancelled every job on ``grid``)."""
        entry = self._grids.get(id(grid))
        if entry is None:
            return
        entry.seen = max(entry.seen, change.version)
        worsened = len(change.worsened) > 0  # (else no cell left a radius mask either)
        quick: dict[tuple[int, bool], list[PathRequest]] = {}  # the requests holding a quick path,
        # by radius mask and rule (at_most_one_blocked or not: see crossed)
        served: list[_Job] | None = None  # the jobs served next (found when a search waited long)
        for job in list(entry.jobs):
            search = job.search
            if search is not None and change.version > search.world_version:
                waiting = len(job.changes) >= _MAX_CHANGES and not (search.status.done or job.stepping)
                if waiting:
                    served = self._top(self._workers) if served is None else served
                    waiting = job not in served
                if waiting:  # (see _MAX_CHANGES) started again when served, on the world as it is then
                    search.cancel()
                    job.search = None
                    job.changes.clear()
                else:
                    job.changes.append(change)
            held = [req for req in job.requests if req._footprint is not None] if worsened else []
            if held:
                checked = job.query.checked
                quick.setdefault((checked.mask, checked.diagonal is Diagonal.AT_MOST_ONE_BLOCKED), []).extend(held)
        for (mask, either), held in quick.items():  # (one pass over them all: thousands may be pending)
            seen = change if mask <= 1 else mask_change(change, mask)
            fps, counts = zip(*[req._footprint for req in held], strict=True)
            for i in np.flatnonzero(crossed(fps, counts, np.full(len(held), either), seen)).tolist():
                held[i]._path, held[i]._footprint = _PENDING, None
        for req in entry.outdated(change):
            self._outdated(req)

    def _valid_at(self, job: _Job, path: Path) -> int | None:
        """The world version at which ``path``, found on the snapshot the search started from,
        is known to hold now, or None (search again). Grid paths that spanned edits are checked
        against every one of them, after acting on the edits other threads made meanwhile; an
        edit the queue has not heard of yet (its notification on its way) means searching again,
        and so does one after which a fresh search would refuse the query (JPS on a grid made
        weighted: its start answers STALE)."""
        self._inbox.catch_up()
        query = job.query
        now: int = query.world.version
        seen: int = job.search.world_version  # type: ignore[union-attr]
        if seen == now:
            return now
        if not query.is_grid or refused(query):
            return None
        changes = job.changes  # versions seen + 1 .. now, in order, if none is missing
        if len(changes) != now - seen or changes[-1].version != now:
            return None
        table = EntryTable(query.world.shape)
        table.add_result(0, query, path)
        return None if any(table.invalidate(change) for change in changes) else now

    def _finish(self, job: _Job) -> None:
        path = job.search.result()  # type: ignore[union-attr]
        version = self._valid_at(job, path)
        if not job.alive:  # dropped by code run while its search started or was checked here (a
            return         # heuristic, a __del__): cancelled, or answered by an update() made there
        if version is None:
            if self._restart:
                self._counts["restarts"] += 1
                job.search = None  # runs again from the start, keeping its place in the queue
                return
            path = Path.none(PathStatus.STALE, expanded=path.expanded)
        self._drop_job(job)
        self._pending -= len(job.requests)
        self._store_and_answer(job.query, path, job.requests, version)

    def _store_and_answer(self, query: Query, path: Path, requests: Iterable[PathRequest],
                          version: int | None) -> None:
        """Answer ``requests`` with ``path``, cached when it holds at world ``version``."""
        path = shared(path)
        if self._cache is not None and version is not None:
            self._cache._store(query, path, version)
        for req in requests:
            self._answer(req, path, version)

    def _answer(self, req: PathRequest, path: Path, version: int | None) -> None:
        """Give ``req`` its final ``path``, which holds at world ``version`` (None: not known);
        its ``on_done`` waits for :meth:`_fire_callbacks` (its latency is counted there: an
        answer an edit outdates meanwhile is not the last), and until then the edits of a grid
        are checked against the path (:meth:`_outdated`)."""
        req._status = path.status
        req._path, req._footprint = path, None
        req._job = None
        req._waited = self._clock.frame - req._frame
        req._version = version
        self._counts["stale" if path.status is PathStatus.STALE else "completed"] += 1
        if req._on_done is None:
            self._latency.append(req._waited)
            return
        self._answered[req] = None
        world = req.world
        if path.status is not PathStatus.STALE and version is not None and isinstance(world, TileGrid):
            entry = self._follow(world)
            if version >= entry.seen:  # (else edits in between went unchecked: searched again when due)
                entry.answers[req] = entry.fresh[req] = None

    def _holds(self, req: PathRequest) -> bool:
        """Whether the answer of ``req`` (waiting for its ``on_done``) holds on its world as it is
        now: a grid path no edit the queue acted on outdated since (an edit whose notification is
        on its way counts as one that did) and that a fresh search would not refuse (``jps`` on a
        grid made weighted: see :func:`refused`), a navmesh path found on this version of the
        mesh, or STALE."""
        if req._status is PathStatus.STALE:
            return True
        world = req.world
        entry = self._grids.get(id(world)) if isinstance(world, TileGrid) else None
        if entry is None:
            return bool(req._version == world.version)
        return req in entry.answers and bool(entry.seen == world.version) and not refused(req._query)

    def _outdated(self, req: PathRequest) -> None:
        """Act on the answer of ``req``, waiting for its ``on_done``, that an edit since may have
        outdated, as on a search that spanned an edit (``on_change``): search again (pending
        again, on a search started lazily in an update; its ``on_done`` waits for that answer) or
        answer STALE."""
        self._counts["completed"] -= 1
        if self._restart:
            del self._answered[req]
            req._status, req._path, req._waited = PathStatus.IN_PROGRESS, _PENDING, None
            query = req._query
            job = self._jobs.get(query.key) if query.key is not None else None
            if job is None or job.stepping:
                job = _Job(query, req._score, next(self._seq), -1)  # (checked when it starts, or is joined)
                self._add_job(job)
                self._counts["restarts"] += 1
            self._join(job, req)
        else:
            self._answer(req, Path.none(PathStatus.STALE), None)
        self._forget_answer(req)

    def _forget_answer(self, req: PathRequest) -> None:
        """Stop checking the answer of ``req`` against edits (its ``on_done`` is called, or due)."""
        entry = self._grids.get(id(req.world))
        if entry is not None:
            entry.forget(req)
            self._unfollow(req.world)

    def _join(self, job: _Job, req: PathRequest) -> None:
        """Make ``req`` one of ``job``'s pending requests."""
        if job.add(req):
            self._push(job)
        req._job = weakref.ref(job)
        self._pending += 1

    def _cancel(self, req: PathRequest) -> None:
        job = None if req._job is None else req._job()
        if job is None or not job.alive:  # answered, or being answered (a __del__ run meanwhile)
            return
        req._cancelled()
        self._counts["cancelled"] += 1
        self._pending -= 1
        lowered = job.remove(req)
        if not job.requests:
            if job.stepping:  # dropped when the step returns: its kernel still uses the workspace
                return
            if job.search is not None:
                job.search.cancel()
            self._drop_job(job)
            return
        if lowered:
            self._push(job)

    def _fire_callbacks(self) -> None:
        """Call ``on_done`` of the requests answered before this call, oldest first, each with an
        answer that holds now (:meth:`_holds`; else :meth:`_outdated`: searched again, or STALE).
        Requests answered meanwhile wait for the next update; if a callback raises, the callbacks
        not called yet stay queued for the next update. A callback may close the queue (the rest
        are forgotten), update it (which calls the rest itself) or edit a world (the answers
        left are checked against the edit)."""
        for req in list(self._answered):
            self._inbox.catch_up()  # (edits heard in other threads, or made by a callback: act on them first)
            if req not in self._answered:  # called by an update made by a callback, searched again, closed
                continue
            if not self._holds(req):
                self._outdated(req)
                if req not in self._answered:  # searched again: called when answered
                    continue
            del self._answered[req]
            self._forget_answer(req)
            self._latency.append(req._waited)  # type: ignore[arg-type]  # (answered: an int)
            req._on_done(req)  # type: ignore[misc]

    # -- statistics ------------------------------------------------------------------------
    @property
    def stats(self) -> QueueStats:
        """A :class:`QueueStats` snapshot of the recent frames and answers."""
        ms = [s * 1000.0 for s in self._frame_s]
        exp = list(self._frame_exp)
        lat = list(self._latency)
        c = self._counts
        return QueueStats(
            frames=self._clock.frame,
            frame_ms_p50=_percentile(ms, 50), frame_ms_p99=_percentile(ms, 99),
            frame_ms_max=max(ms, default=0.0), last_frame_ms=ms[-1] if ms else 0.0,
            expansions_p50=_percentile(exp, 50), expansions_max=max(exp, default=0),
            last_frame_expansions=exp[-1] if exp else 0,
            pending=self._pending, searches=self._searches, completed=c["completed"],
            cancelled=c["cancelled"], stale=c["stale"], restarts=c["restarts"],
            shared=c["shared"], cache_hits=c["cache_hits"],
            latency_p50=_percentile(lat, 50), latency_p95=_percentile(lat, 95),
            latency_max=max(lat, default=0))

    @property
    def frame(self) -> int:
        """``update()`` calls so far."""
        return self._clock.frame

    def __repr__(self) -> str:
        budget = "none" if self._budget_ms is None else f"{self._budget_ms:g} ms"
        return (f"PathQueue(budget={budget}, max_expansions={self._max_expansions}, "
                f"pending={self._pending}, frames={self._clock.frame})")
