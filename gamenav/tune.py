"""Pick a PathQueue budget: simulate agents re-pathing on a map at 60 frames per second.

Usage::

    python -m gamenav.tune --map FILE.map --agents N --budgets 0.25,0.5,1,2,4 \\
        [--frames F] [--plot out.png] [--seed S] [--speed CELLS_PER_S] [--destinations D]

(also installed as ``gamenav-tune``; ``--map`` also takes the name of a map shipped with gamenav,
such as ``den011d.map``: see :mod:`gamenav.data`). For each budget the same scenario is replayed with a fresh
:class:`~gamenav.PathQueue` and :class:`~gamenav.PathCache`: ``N`` agents start on random
points of interest of the map's largest island (waking up over the first second), request a
path to a random point of interest, walk it at ``--speed`` cells per second and request the next one on
arrival. There are ``D`` points of interest (``--destinations 0``: every cell of the island),
so paths repeat and the cache is useful, as when units shuttle between bases and resources.

Printed per budget: pathfinding time per frame (ms, p50/p99/max, inside ``queue.update()``;
also p99 in thread CPU time, which leaves out the moments the OS ran other processes), request
latency in frames (p50/p95/max), throughput (answered requests per second of game
time) and the cache hit rate. ``--plot`` writes a PNG of latency and frame time per budget,
the frame time both as wall time and as thread CPU time (needs matplotlib:
``pip install -e ".[plot]"`` in a gamenav checkout). Progress goes to stderr: a bar on a terminal,
one plain line per budget otherwise (logs). Like a game should after loading, the tool loads every
kernel first (:func:`gamenav.warmup`) and calls ``gc.freeze()`` before simulating (see the README).
"""

from __future__ import annotations

import argparse
import decimal
import functools
import gc
import io
import math
import os
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TextIO

import numpy as np
import numpy.typing as npt

from gamenav import data
from gamenav._kernels import _writable, is_terminal, report
from gamenav._validate import is_int, positive_number, shown
from gamenav._warmup import warmup
from gamenav.errors import InvalidInputError, MapFormatError
from gamenav.grid.tilegrid import TileGrid
from gamenav.runtime.cache import PathCache
from gamenav.runtime.queue import PathQueue, PathRequest

__all__ = ["SimResult", "main", "plot_figure", "simulate"]

FPS = 60
MAX_AGENTS = 1_000_000
"""Most agents one run simulates (each holds a position, a request and a wake-up slot)."""
MAX_FRAMES = 10_000_000
"""Most frames one budget simulates (46 hours of game time; two float64 timings a frame)."""


@dataclass(frozen=True)
class SimResult:
    """Measurements of one simulated budget.

    Attributes:
        budget_ms: the queue's budget per frame.
        frame_ms: ``(frames,)`` float64 pathfinding wall time per frame (ms).
        frame_cpu_ms: ``(frames,)`` float64 the same in thread CPU time (ms): wall time minus
            the moments the OS ran something else (a busy machine shows the difference).
        latency: ``(answered,)`` int64 frames from request to answer.
        answered: requests answered (with or without a path).
        seconds: simulated game time.
        cache_hit_rate: cache hits / lookups.
    """

    budget_ms: float
    frame_ms: npt.NDArray[np.float64]
    frame_cpu_ms: npt.NDArray[np.float64]
    latency: npt.NDArray[np.int64]
    answered: int
    seconds: float
    cache_hit_rate: float

    @property
    def throughput(self) -> float:
        """Answered requests per second of game time."""
        return self.answered / self.seconds if self.seconds else 0.0

    def row(self) -> list[str]:
        """The table row (see :data:`HEADER`)."""
        f, lat = self.frame_ms, self.latency
        return [f"{self.budget_ms:g}", f"{_pct(f, 50):.3f}", f"{_pct(f, 99):.3f}",
                f"{f.max() if len(f) else 0.0:.3f}", f"{_pct(self.frame_cpu_ms, 99):.3f}",
                f"{_pct(lat, 50):g}", f"{_pct(lat, 95):g}",
                f"{lat.max() if len(lat) else 0}", f"{self.throughput:.1f}",
                f"{100 * self.cache_hit_rate:.1f}%"]


def _pct(a: npt.NDArray[np.float64] | npt.NDArray[np.int64], q: float) -> float:
    """The ``q``-th percentile of ``a``, 0.0 for an empty array."""
    return float(np.percentile(a, q)) if len(a) else 0.0


HEADER = ["budget ms", "frame ms p50", "p99", "max", "CPU ms p99", "latency frames p50", "p95",
          "max", "paths/s", "cache hits"]
"""Columns of the printed table."""


def simulate(grid: TileGrid, *, agents: int, budget_ms: float, frames: int, seed: int = 0,
             speed: float = 8.0, destinations: int = 32,
             progress: Callable[[int], None] | None = None) -> SimResult:
    """Run the scenario described in the module docstring for one budget.

    Args:
        grid: the map.
        agents: number of agents (1 to :data:`MAX_AGENTS`).
        budget_ms: the PathQueue budget per frame.
        frames: frames to simulate (60 per second, at most :data:`MAX_FRAMES`).
        seed: random seed (the same seed replays the same scenario).
        speed: agent speed in cells per second (a diagonal step counts as one cell).
        destinations: number of points of interest agents start on and travel between
            (0: any cell of the largest island).
        progress: called with the frame number after each frame.

    Raises:
        InvalidInputError: ``grid`` not a TileGrid or without a passable cell, ``agents`` not
            an int >= 1, ``frames`` / ``seed`` / ``destinations`` not ints >= 0, ``agents`` /
            ``frames`` above :data:`MAX_AGENTS` / :data:`MAX_FRAMES` (their arrays would not fit
            in memory), ``speed`` or ``budget_ms`` not a finite number > 0, or ``progress``
            neither None nor callable.
    """
    _check_scenario(grid, agents, budget_ms, frames, seed, speed, destinations, progress)
    rng = np.random.default_rng(seed)
    labels = grid.components()
    sizes = np.bincount(labels[labels >= 0].ravel())
    ys, xs = np.nonzero(labels == int(np.argmax(sizes)))
    island = np.stack([xs, ys], axis=1)
    pois = island[rng.choice(len(island), size=min(destinations, len(island)), replace=False)] \
        if destinations > 0 else island
    position = [tuple(int(v) for v in c) for c in pois[rng.integers(0, len(pois), agents)]]
    wake: dict[int, list[int]] = {}
    for i, f in enumerate(rng.integers(0, FPS, agents).tolist()):
        wake.setdefault(f, []).append(i)

    cache = PathCache()
    queue = PathQueue(budget_ms=budget_ms, cache=cache)
    pending: dict[int, PathRequest] = {}
    frame_ms = np.zeros(frames)
    frame_cpu = np.zeros(frames)
    latency: list[int] = []
    per_frame = max(speed / FPS, math.ulp(0.0))  # cells per frame, > 0 for subnormal speeds too
    for frame in range(frames):
        for i in wake.pop(frame, ()):
            goal = tuple(int(v) for v in pois[rng.integers(len(pois))])
            pending[i] = queue.request(grid, position[i], goal)
        cpu = time.thread_time()
        queue.update()
        frame_cpu[frame] = (time.thread_time() - cpu) * 1e3
        frame_ms[frame] = queue.stats.last_frame_ms
        for i in [i for i, r in pending.items() if r.done]:
            req = pending.pop(i)
            latency.append(req.frames_waited)
            steps = max(len(req.path) - 1, 0)
            if req.path.status.has_path:
                position[i] = tuple(int(v) for v in req.path.cells[-1])
            walk = steps / per_frame  # frames on the way (inf for a speed too slow to arrive)
            if walk < frames:  # agents arriving after the last frame never wake again
                wake.setdefault(frame + 1 + math.ceil(walk), []).append(i)
        if progress is not None:
            progress(frame + 1)
    return SimResult(float(budget_ms), frame_ms, frame_cpu, np.asarray(latency, dtype=np.int64),
                     len(latency), frames / FPS, cache.stats.hit_rate)


def _check_scenario(grid: TileGrid, agents: Any, budget_ms: Any, frames: Any, seed: Any, speed: Any,
                    destinations: Any, progress: Any) -> None:
    """Raise InvalidInputError for arguments :func:`simulate` cannot replay (before any work)."""
    if not isinstance(grid, TileGrid):
        raise InvalidInputError(f"grid must be a TileGrid, got {type(grid).__name__}")
    if not grid.passable.any():
        raise InvalidInputError(f"the map has no passable cell for agents to stand on: {grid!r}")
    for name, value, low in (("agents", agents, 1), ("frames", frames, 0), ("seed", seed, 0),
                             ("destinations", destinations, 0)):
        if not is_int(value) or value < low:
            raise InvalidInputError(f"{name} must be an int >= {low}, got {shown(value)}")
    for name, value, high in (("agents", agents, MAX_AGENTS), ("frames", frames, MAX_FRAMES)):
        if value > high:
            raise InvalidInputError(f"{name} must be at most {high:_}, got {shown(value)}")
    positive_number(speed, "speed")
    positive_number(budget_ms, "budget_ms")
    if progress is not None and not callable(progress):
        raise InvalidInputError(f"progress must be a callable or None, got {shown(progress)}")


def _table(results: Sequence[SimResult]) -> str:
    lines = ["| " + " | ".join(HEADER) + " |", "|" + "---|" * len(HEADER)]
    lines += ["| " + " | ".join(r.row()) + " |" for r in results]
    return "\n".join(lines)


def plot_figure(results: Sequence[SimResult], title: str) -> Any:
    """A matplotlib figure of frame time and latency per budget (needs matplotlib).

    Left: pathfinding time per frame, p50 / p99 / max, as wall time (solid lines: what the frame
    took, including the moments the OS ran other processes) and as thread CPU time (dashed: the
    work itself, which the budget bounds), with the budget line. Right: request latency in frames.
    A plain :class:`matplotlib.figure.Figure`: pyplot's state and backend are left alone.
    """
    import matplotlib.ticker
    from matplotlib.figure import Figure

    budgets = [r.budget_ms for r in results]
    fig = Figure(figsize=(12, 4.6))
    ax_t, ax_l = fig.subplots(1, 2)
    for kind, attr, color, style in (("wall", "frame_ms", "tab:blue", "-"),
                                     ("CPU", "frame_cpu_ms", "tab:orange", "--")):
        for stat, q, marker in (("p50", 50, "o"), ("p99", 99, "s"), ("max", 100, "^")):
            values = [_pct(getattr(r, attr), q) for r in results]
            ax_t.plot(budgets, values, marker=marker, linestyle=style, color=color,
                      alpha={"p50": 1.0, "p99": 0.8, "max": 0.5}[stat], label=f"{kind} {stat}")
    ax_t.plot(budgets, budgets, color="grey", lw=1, label="budget")
    ax_t.set(xscale="log", xlabel="budget (ms per frame)", ylabel="pathfinding time per frame (ms)",
             title="frame time: wall (solid) vs thread CPU (dashed)")
    ax_t.legend(fontsize=8, ncol=2)
    for q, style, label in ((50, "o-", "p50"), (95, "s--", "p95"), (100, "^:", "max")):
        ax_l.plot(budgets, [_pct(r.latency, q) for r in results], style, label=label)
    ax_l.set(xscale="log", xlabel="budget (ms per frame)", ylabel="request latency (frames)",
             title="latency")
    ax_l.legend()
    for ax in (ax_t, ax_l):
        ax.xaxis.set_minor_locator(matplotlib.ticker.NullLocator())
        ax.set_xticks(budgets, [f"{b:g}" for b in budgets])
        ax.grid(alpha=0.3)
    fig.suptitle(title)
    fig.text(0.01, 0.01, "wall: time.perf_counter inside queue.update(); CPU: time.thread_time of "
             "the same call (excludes time the OS gave other processes)", fontsize=7, color="grey")
    fig.tight_layout(rect=(0, 0.03, 1, 1))
    return fig


def _plot(results: Sequence[SimResult], out: str, title: str) -> None:
    try:
        fig = plot_figure(results, title)
    except ImportError:
        raise SystemExit('--plot needs matplotlib: pip install -e ".[plot]" (in a gamenav checkout)') from None
    suffix = os.path.splitext(out)[1].lstrip(".")
    fig.savefig(out, dpi=100, format=None if suffix else "png")  # no suffix: a PNG under that name


def _progress_printer(budgets: Sequence[float], frames: int, stream: TextIO | None
                      ) -> Callable[[int, int], None]:
    """``show(k, frame)``: frame ``frame`` of budget ``k`` done. A bar redrawn with ``\\r`` on a
    terminal; otherwise one plain line per finished budget (no carriage returns in logs); nothing
    where ``stream`` is missing or closed (see :func:`~gamenav._kernels.report`)."""
    total = len(budgets) * frames
    tty = is_terminal(stream) if stream is not None else False
    shown = -1

    def show(k: int, frame: int) -> None:
        nonlocal shown
        if not tty:
            if frame == frames:
                report(f"gamenav-tune: budget {budgets[k]:g} ms done ({k + 1}/{len(budgets)})",
                       stream=stream)
            return
        pct = 100 * (k * frames + frame) // total
        if pct != shown:
            shown = pct
            bar = "#" * (pct // 4) + "." * (25 - pct // 4)
            end = "\n" if pct == 100 else ""
            report(f"\r[{bar}] {pct:3d}%", end=end, stream=stream)

    return show


def _budgets(text: str) -> list[float]:
    try:
        values = [float(v) for v in text.split(",") if v.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"budgets must be comma-separated numbers of ms, got {text!r}") from None
    if not values or any(not (0 < v < math.inf) for v in values):
        raise argparse.ArgumentTypeError(f"budgets must be finite positive numbers of ms, got {text!r}")
    return values


def _integer(text: str) -> int | None:
    """``text`` as ``int()`` reads it, or None when it is no integer; also one of more digits
    than ``int()`` reads (``sys.get_int_max_str_digits()``: a ValueError too), through Decimal."""
    try:
        return int(text)
    except ValueError:
        digits = text.strip().lstrip("+-").replace("_", "")
        if len(digits) <= sys.get_int_max_str_digits() or not digits.isdecimal():
            return None
    try:
        return int(decimal.Decimal(text))
    except decimal.InvalidOperation:  # ("+-" and more digits)
        return None


def _positive_int(text: str, limit: int) -> int:
    value = _integer(text)
    if value is None or value < 1:
        raise argparse.ArgumentTypeError(f"must be an integer >= 1, got {shown(text)}")
    if value > limit:
        raise argparse.ArgumentTypeError(f"must be at most {limit:_}, got {shown(text)}")
    return value


def _natural(text: str) -> int:
    value = _integer(text)
    if value is None or value < 0:
        raise argparse.ArgumentTypeError(f"must be an integer >= 0, got {shown(text)}")
    return value


def main(argv: Sequence[str] | None = None) -> int:
    """Command-line entry point (``python -m gamenav.tune`` / ``gamenav-tune``)."""
    parser = argparse.ArgumentParser(
        prog="gamenav-tune", description="Simulate agents re-pathing at 60 fps and compare "
        "PathQueue budgets: frame time, latency, throughput, cache hit rate.")
    samples = [name for name in data.names() if name.endswith(".map")]
    parser.add_argument("--map", required=True, help="a Moving AI .map file, or the name of one shipped with "
                        f"gamenav ({', '.join(samples)})")
    parser.add_argument("--agents", type=functools.partial(_positive_int, limit=MAX_AGENTS), default=100,
                        help=f"agents (default 100, at most {MAX_AGENTS:_})")
    parser.add_argument("--budgets", type=_budgets, default=[0.25, 0.5, 1.0, 2.0, 4.0],
                        help="comma-separated budgets in ms per frame (default 0.25,0.5,1,2,4)")
    parser.add_argument("--frames", type=functools.partial(_positive_int, limit=MAX_FRAMES), default=600,
                        help=f"frames per budget at 60 fps (default 600 = 10 s, at most {MAX_FRAMES:_})")
    parser.add_argument("--plot", metavar="PNG", help="write a plot of latency and frame time")
    parser.add_argument("--seed", type=_natural, default=0, help="random seed (default 0)")
    parser.add_argument("--speed", type=float, default=8.0, help="cells per second (default 8)")
    parser.add_argument("--destinations", type=int, default=32,
                        help="points of interest agents travel between; 0 = any cell (default 32)")
    args = parser.parse_args(argv)
    if not 0 < args.speed < math.inf:
        parser.error(f"--speed must be a finite number > 0, got {args.speed}")
    if args.destinations < 0:
        parser.error(f"--destinations must be >= 0, got {args.destinations}")
    if args.plot:  # fail before the long run, not after it
        try:
            import matplotlib  # noqa: F401
            from matplotlib.backend_bases import FigureCanvasBase
            from matplotlib.figure import Figure
        except ImportError:
            parser.error('--plot needs matplotlib: pip install -e ".[plot]" (in a gamenav checkout)')
        folder = os.path.dirname(os.path.abspath(args.plot))
        if os.path.isdir(args.plot) or not os.path.isdir(folder):
            parser.error(f"--plot must name a PNG file in an existing folder, got {args.plot!r}")
        if not _writable(folder):
            parser.error(f"--plot {args.plot!r}: cannot write files in {folder}")
        formats = FigureCanvasBase.get_supported_filetypes()
        suffix = os.path.splitext(args.plot)[1].lstrip(".").lower()
        if suffix and suffix not in formats:
            parser.error(f"--plot {args.plot!r}: matplotlib cannot write .{suffix} files "
                         f"(it writes {', '.join(sorted(formats))})")
        probe = Figure()  # a listed format may still need a tool that is missing (.pgf: LaTeX)
        probe.text(0.5, 0.5, "gamenav")
        try:
            probe.savefig(io.BytesIO(), format=suffix or "png")
        except Exception as exc:  # noqa: BLE001 - whatever the writer raises, before the run
            parser.error(f"--plot {args.plot!r}: matplotlib cannot write .{suffix or 'png'} files here: {exc}")
    try:
        grid = TileGrid.from_movingai(data.map_file(args.map))
    except (OSError, InvalidInputError, MapFormatError) as exc:  # (InvalidInputError: an unknown or empty name)
        parser.error(f"cannot read --map {args.map!r}: {exc}")
    if not grid.passable.any():  # before the warmup, not after it
        parser.error(f"--map {args.map!r} has no passable cell")
    warmup(navmesh=False, crowd=False)  # load (first run: compile) the kernels before timing
    show = _progress_printer(args.budgets, args.frames, sys.stderr)
    results = []
    gc.collect()  # as a game should after loading: full collections of the objects numba
    gc.freeze()   # creates at import cost tens of ms and would land inside random frames
    try:
        for k, budget in enumerate(args.budgets):
            results.append(simulate(grid, agents=args.agents, budget_ms=budget,
                                    frames=args.frames, seed=args.seed, speed=args.speed,
                                    destinations=args.destinations,
                                    progress=functools.partial(show, k)))
    finally:
        gc.unfreeze()
    print(f"map {args.map} ({grid.width}x{grid.height}), {args.agents} agents, {args.frames} frames "
          f"at {FPS} fps, speed {args.speed:g} cells/s, destinations {args.destinations or 'any'}, "
          f"seed {args.seed}")
    print(_table(results))
    if args.plot:
        _plot(results, args.plot, f"{args.map.rsplit('/', 1)[-1]}: {args.agents} agents")
        print(f"plot written to {args.plot}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
