"""Small helpers shared by the benchmark scripts: data location, timing, markdown tables.

Benchmarks print tables; they are never run as timed tests. Scripts are run as files
(``python benchmarks/<name>.py``), which puts ``benchmarks/`` first on ``sys.path``, where
``queue.py`` would shadow the standard library's ``queue`` (imported by networkx and pyglet).
Importing this module takes ``benchmarks/`` off ``sys.path`` again, so every script imports it
before anything else::

    from _common import data_dir, markdown_table, time_call  # first import of every script

    root = data_dir(args.data)            # ../shared/benchmarks unless --data says otherwise
    ms = time_call(lambda: f(x), repeat=3)  # list of wall times in milliseconds
    print(markdown_table(["library", "median ms"], [["gamenav", f"{median(ms):.3f}"]]))
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

_HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _HERE]

__all__ = ["REPO_ROOT", "data_dir", "markdown_table", "time_call"]

REPO_ROOT = Path(__file__).resolve().parents[1]
"""The repository root (the folder holding ``pyproject.toml``)."""


def data_dir(arg: str | os.PathLike[str] | None = None) -> Path:
    """The benchmark data folder.

    Args:
        arg: an explicit folder (a ``--data`` option); when None, the ``GAMENAV_BENCHMARKS``
            environment variable, else ``../shared/benchmarks`` relative to the repository root.

    Raises:
        SystemExit: the folder does not exist (the message names the path tried).
    """
    if arg is None:
        arg = os.environ.get("GAMENAV_BENCHMARKS", REPO_ROOT.parent / "shared" / "benchmarks")
    path = Path(arg).expanduser().resolve()
    if not path.is_dir():
        raise SystemExit(f"benchmark data folder not found: {path} (pass --data DIR)")
    return path


def time_call(fn: Callable[[], Any], repeat: int = 1) -> list[float]:
    """Call ``fn()`` ``repeat`` times; return each call's wall time in milliseconds.

    Uses :func:`time.perf_counter`. Do any warm-up call (numba compile, caches) before this.
    """
    if repeat < 1:
        raise ValueError(f"repeat must be >= 1, got {repeat}")
    times: list[float] = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1e3)
    return times


def markdown_table(headers: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    """A GitHub markdown table; cells are converted with ``str`` and padded to align columns.

    Raises:
        ValueError: a row has a different number of cells than ``headers``.
    """
    cells = [[str(h) for h in headers]]
    for row in rows:
        if len(row) != len(headers):
            raise ValueError(f"row must have {len(headers)} cells, got {len(row)}: {row!r}")
        cells.append([str(c) for c in row])
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]

    def line(row: list[str]) -> str:
        return "| " + " | ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)) + " |"

    rule = "|" + "|".join("-" * (w + 2) for w in widths) + "|"
    return "\n".join([line(cells[0]), rule, *(line(r) for r in cells[1:])])


TCOD_CARDINAL, TCOD_DIAGONAL = 2378, 3363  # Pell pair: 3363**2 - 2 * 2378**2 == 1 (about 1 : sqrt 2)


def tcod_pathfinder(walkable: Any) -> Callable[[tuple[int, int], tuple[int, int]], Any]:
    """tcod's ``Pathfinder`` set up with gamenav's default rules (8-connected, no corner cutting,
    integer costs 2378 / 3363), as ``solve((x, y), (x, y))`` -> ``(n, 2)`` int64 ``(x, y)`` cells
    from start to goal (``(0, 2)`` when there is no path)."""
    import numpy as np
    import tcod.path

    h, w = walkable.shape
    cost = walkable.astype(np.int8)
    padded = np.pad(walkable, 1)
    graph = tcod.path.CustomGraph(walkable.shape)  # [i, j] = [y, x]
    c = TCOD_CARDINAL
    graph.add_edges(edge_map=[[0, c, 0], [c, 0, c], [0, c, 0]], cost=cost)
    for dy in (-1, 1):
        for dx in (-1, 1):  # diagonal from [y, x] only if [y, x + dx] and [y + dy, x] are walkable
            both = padded[1:h + 1, 1 + dx:w + 1 + dx] & padded[1 + dy:h + 1 + dy, 1:w + 1]
            graph.add_edge((dy, dx), TCOD_DIAGONAL, cost=cost, condition=both)
    graph.set_heuristic(cardinal=TCOD_CARDINAL, diagonal=TCOD_DIAGONAL)
    finder = tcod.path.Pathfinder(graph)

    def solve(s: tuple[int, int], g: tuple[int, int]) -> Any:
        finder.clear()
        finder.add_root((s[1], s[0]))
        path = np.asarray(finder.path_to((g[1], g[0])), dtype=np.int64).reshape(-1, 2)  # root first
        if not len(path) or tuple(path[0]) != (s[1], s[0]):
            return np.zeros((0, 2), dtype=np.int64)
        return path[:, ::-1]
    return solve
