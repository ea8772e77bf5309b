"""Fork isolation, the error contract and cheap result checks shared by the fuzz tests.

Every fuzz test runs its whole hypothesis search inside one forked child (:func:`isolated`), so a
segfault or a hang fails that test with the input that caused it instead of killing pytest. The
child reports each input before trying it; the parent watches the time per input.

Contract checked everywhere (:func:`attempt`): a call returns, or raises a
:class:`gamenav.GamenavError` subclass; any other exception is a defect.
"""

from __future__ import annotations

import math
import os
import pickle
import resource
import select
import signal
import struct
import time
import traceback
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np
from hypothesis import HealthCheck, Phase, settings

import gamenav

__all__ = ["FuzzFailure", "Reporter", "attempt", "check_grid_path", "check_mesh_path",
           "fuzz_settings", "isolated", "short_repr"]

INPUT_TIMEOUT_S = 15.0
"""A single input running longer than this is reported as a hang."""
TOTAL_TIMEOUT_S = 240.0
"""A whole child (one test's batch) running longer than this is killed."""
MEMORY_HEADROOM = 3 << 30
"""Address space a child may allocate beyond what the parent had (a blow-up becomes MemoryError)."""
SCALE = float(os.environ.get("GAMENAV_FUZZ_SCALE", "1"))
"""Multiplies every test's example count (deeper local runs: GAMENAV_FUZZ_SCALE=10)."""

_HEADER = struct.Struct("<cI")


class FuzzFailure(AssertionError):
    """A broken contract: the message holds the input and what happened."""


def short_repr(value: Any, limit: int = 3000) -> str:
    """``repr(value)`` cut to ``limit`` characters (numpy arrays printed in full up to that)."""
    with np.printoptions(threshold=200, linewidth=200):
        text = repr(value)
    return text if len(text) <= limit else text[:limit] + f"... [{len(text)} chars]"


def fuzz_settings(examples: int) -> settings:
    """Derandomized settings for ``examples`` inputs (times :data:`SCALE`), no deadline, no
    database, and no "explain" phase (it traces every line and would look like a hang)."""
    return settings(max_examples=max(1, int(examples * SCALE)), derandomize=True, database=None,
                    deadline=None, print_blob=False,
                    phases=[Phase.explicit, Phase.reuse, Phase.generate, Phase.target, Phase.shrink],
                    suppress_health_check=list(HealthCheck))


class Reporter:
    """The child's side of the pipe: announces inputs before they run."""

    def __init__(self, fd: int) -> None:
        self._fd = fd
        self.count = 0

    def _send(self, kind: bytes, payload: bytes) -> None:
        data = _HEADER.pack(kind, len(payload)) + payload
        while data:
            data = data[os.write(self._fd, data):]

    def input(self, label: str, **values: Any) -> None:
        """Announce the input about to be tried (printed if it crashes or hangs)."""
        self.count += 1
        text = label + "(" + ", ".join(f"{k}={short_repr(v)}" for k, v in values.items()) + ")"
        self._send(b"I", text.encode("utf-8", "replace"))

    def finish(self, error: str | None) -> None:
        self._send(b"D", pickle.dumps((self.count, error)))


def _limit_memory() -> None:
    with open("/proc/self/statm") as f:
        vm_pages = int(f.read().split()[0])
    limit = vm_pages * os.sysconf("SC_PAGE_SIZE") + MEMORY_HEADROOM
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


def _child(body: Callable[[Reporter], None], fd: int) -> None:
    reporter = Reporter(fd)
    error: str | None = None
    try:
        _limit_memory()
        body(reporter)
    except BaseException as exc:  # noqa: BLE001  (everything goes back to the parent)
        error = "".join(traceback.format_exception(exc))
    try:
        reporter.finish(error)
    finally:
        os._exit(0)


def isolated(name: str, body: Callable[[Reporter], None], counter: list[int]) -> int:
    """Run ``body(reporter)`` in a forked child; fail on its error, a crash or a hang.

    Args:
        name: the test's name (for messages).
        body: runs a hypothesis test (or a loop) calling ``reporter.input(...)`` per input.
        counter: the session's input counter; the child's count is added to ``counter[0]``.

    Returns:
        the number of inputs the child announced.

    Raises:
        FuzzFailure: the child raised (hypothesis' falsifying example included), died of a
            signal, or spent more than :data:`INPUT_TIMEOUT_S` on one input.
    """
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        os.close(read_fd)
        _child(body, write_fd)
    os.close(write_fd)
    buffer = b""
    last_input = "<none yet>"
    count = 0
    result: tuple[int, str | None] | None = None
    started = last_time = time.monotonic()
    problem: str | None = None
    try:
        while result is None:
            ready, _, _ = select.select([read_fd], [], [], 0.5)
            now = time.monotonic()
            if ready:
                chunk = os.read(read_fd, 1 << 16)
                if not chunk:
                    break  # the child died without saying goodbye
                buffer += chunk
                while len(buffer) >= _HEADER.size:
                    kind, size = _HEADER.unpack_from(buffer)
                    if len(buffer) < _HEADER.size + size:
                        break
                    payload = buffer[_HEADER.size:_HEADER.size + size]
                    buffer = buffer[_HEADER.size + size:]
                    if kind == b"I":
                        count += 1
                        last_input = payload.decode("utf-8", "replace")
                        last_time = now
                    else:
                        result = pickle.loads(payload)
            if result is None and now - last_time > INPUT_TIMEOUT_S:
                problem = f"HANG: one input ran longer than {INPUT_TIMEOUT_S:.0f} s"
                break
            if result is None and now - started > TOTAL_TIMEOUT_S:
                problem = f"TIMEOUT: the batch ran longer than {TOTAL_TIMEOUT_S:.0f} s"
                break
    finally:
        os.close(read_fd)
        if problem is not None:
            os.kill(pid, signal.SIGKILL)
        _, status = os.waitpid(pid, 0)
    counter[0] += count
    if problem is None and result is None:
        if os.WIFSIGNALED(status):
            problem = f"CRASH: the child died of {signal.Signals(os.WTERMSIG(status)).name}"
        else:
            problem = f"CRASH: the child exited with status {os.waitstatus_to_exitcode(status)}"
    if problem is not None:
        raise FuzzFailure(f"{name}: {problem} after {count} inputs; last input:\n  {last_input}")
    assert result is not None
    if result[1] is not None:
        raise FuzzFailure(f"{name}: failed after {count} inputs (last: {last_input})\n{result[1]}")
    return count


class _Raised:
    """Marker returned by :func:`attempt` when the call raised a GamenavError."""

    def __init__(self, error: gamenav.GamenavError) -> None:
        self.error = error

    def __repr__(self) -> str:
        return f"<raised {type(self.error).__name__}: {self.error}>"


def attempt(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """Call ``fn``; a GamenavError is an accepted outcome (returned as a marker, see
    :func:`raised`), anything else propagates as a :class:`FuzzFailure` naming the call."""
    try:
        return fn(*args, **kwargs)
    except gamenav.GamenavError as exc:
        return _Raised(exc)
    except Exception as exc:
        where = getattr(fn, "__qualname__", repr(fn))
        raise FuzzFailure(f"{where} raised {type(exc).__name__} (not a GamenavError): {exc}\n"
                          f"args={short_repr(args)} kwargs={short_repr(kwargs)}") from exc


def raised(value: object) -> bool:
    """True when ``value`` is :func:`attempt`'s marker for a GamenavError."""
    return isinstance(value, _Raised)


@contextmanager
def contract(what: str) -> Iterator[None]:
    """A block whose GamenavErrors are fine and whose other exceptions are defects."""
    try:
        yield
    except gamenav.GamenavError:
        pass
    except Exception as exc:
        raise FuzzFailure(f"{what} raised {type(exc).__name__} (not a GamenavError): {exc}") from exc


_OCTILE = math.sqrt(2.0)


def check_grid_path(grid: gamenav.TileGrid, path: gamenav.Path, start: tuple[int, int],
                    goal: tuple[int, int] | None, *, diagonal: str = "no_corner_cutting",
                    cell_path: bool = True) -> None:
    """A FOUND/PARTIAL grid path: starts at ``start`` (ends at ``goal`` when FOUND), every cell
    passable, steps between neighbours allowed by ``diagonal``, finite cost equal to the sum of
    the step costs (``cell_path=False``: smoothed waypoints, only the ends and cells checked)."""
    cells = path.cells
    if not path.status.has_path:
        if len(cells) or math.isfinite(path.cost):
            raise FuzzFailure(f"{path.status.name} path with cells {cells.tolist()} cost {path.cost}")
        return
    if not math.isfinite(path.cost) or path.cost < 0:
        raise FuzzFailure(f"{path.status.name} path with cost {path.cost}")
    if cells.ndim != 2 or cells.shape[1] != 2 or len(cells) == 0:
        raise FuzzFailure(f"path cells of shape {cells.shape}")
    if tuple(cells[0]) != tuple(start):
        raise FuzzFailure(f"path starts at {tuple(cells[0])}, not at {start}")
    if path.status is gamenav.PathStatus.FOUND and goal is not None and tuple(cells[-1]) != tuple(goal):
        raise FuzzFailure(f"FOUND path ends at {tuple(cells[-1])}, not at the goal {goal}")
    xs, ys = cells[:, 0], cells[:, 1]
    if (xs < 0).any() or (ys < 0).any() or (xs >= grid.width).any() or (ys >= grid.height).any():
        raise FuzzFailure(f"path leaves the grid: {cells.tolist()}")
    passable = grid.passable
    if not passable[ys, xs].all():
        bad = cells[~passable[ys, xs]][0]
        raise FuzzFailure(f"path crosses blocked cell {tuple(bad)}: {cells.tolist()}")
    if not np.allclose(path.points, grid.cell_to_world(cells)):
        raise FuzzFailure("path points are not the centres of its cells")
    if not cell_path:
        return
    d = np.diff(cells, axis=0)
    adx, ady = np.abs(d[:, 0]), np.abs(d[:, 1])
    if ((adx > 1) | (ady > 1) | ((adx == 0) & (ady == 0))).any():
        raise FuzzFailure(f"path has a step that is not to a neighbour: {cells.tolist()}")
    diag = (adx == 1) & (ady == 1)
    if diagonal == "never" and diag.any():
        raise FuzzFailure(f"4-connected path with a diagonal step: {cells.tolist()}")
    if diagonal in ("no_corner_cutting", "at_most_one_blocked") and diag.any():
        a, b = cells[:-1][diag], cells[1:][diag]
        side1 = passable[a[:, 1], b[:, 0]]
        side2 = passable[b[:, 1], a[:, 0]]
        ok = (side1 & side2) if diagonal == "no_corner_cutting" else (side1 | side2)
        if not ok.all():
            raise FuzzFailure(f"diagonal step cuts a blocked corner ({diagonal}): {cells.tolist()}")
    entered = grid.cost[ys[1:], xs[1:]]
    expected = float(np.sum(np.where(diag, _OCTILE, 1.0) * entered))
    if not math.isclose(expected, path.cost, rel_tol=1e-9, abs_tol=1e-9):
        raise FuzzFailure(f"path cost {path.cost!r} != sum of its step costs {expected!r}")


def check_mesh_path(mesh: gamenav.NavMesh, path: gamenav.Path) -> None:
    """A FOUND/PARTIAL navmesh path: finite cost equal to its polyline length (with area costs:
    between the length and the largest cost times it), every waypoint and points along every
    segment on the mesh."""
    if not path.status.has_path:
        if len(path.points) or math.isfinite(path.cost):
            raise FuzzFailure(f"{path.status.name} navmesh path with points / cost {path.cost}")
        return
    pts = path.points
    if pts.ndim != 2 or pts.shape[1] != 2 or len(pts) == 0 or not np.isfinite(pts).all():
        raise FuzzFailure(f"navmesh path points {short_repr(pts)}")
    length = float(np.hypot(*np.diff(pts, axis=0).T).sum())
    top = float(mesh.area_costs.max()) if len(mesh.area_costs) else 1.0
    tol = 1e-9 * max(1.0, length)
    if not math.isfinite(path.cost) or (top == 1.0 and abs(length - path.cost) > tol) \
            or not length - tol <= path.cost <= top * length + tol:
        raise FuzzFailure(f"navmesh path cost {path.cost!r} does not fit its length {length!r} "
                          f"(area costs up to {top})")
    fractions = np.array([0.0, 0.25, 0.5, 0.75, 1.0])
    if len(pts) > 1:
        a, b = pts[:-1], pts[1:]
        samples = (a[:, None, :] + (b - a)[:, None, :] * fractions[None, :, None]).reshape(-1, 2)
    else:
        samples = pts
    off = mesh.locate(samples) < 0
    if off.any():
        raise FuzzFailure(f"navmesh path point {samples[off][0].tolist()} lies off the mesh "
                          f"(path {short_repr(pts)})")
