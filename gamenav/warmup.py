"""``python -m gamenav.warmup``: compile (first run) or load every gamenav kernel, for installers
and CI.

Prints progress on stderr (a bar on a terminal, one plain line per kernel group otherwise) and
the total time; exits 0. In code, call :func:`gamenav.warmup` (defined in ``gamenav._warmup``)
before the first timed frame instead of importing this module.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence

from gamenav._kernels import is_terminal, report
from gamenav._warmup import GROUPS, warmup

__all__ = ["main"]


def main(argv: Sequence[str] | None = None) -> int:
    """Parse ``[--only PART ...]``, warm up, report the time on stderr; returns the exit code."""
    parser = argparse.ArgumentParser(
        prog="python -m gamenav.warmup",
        description="Compile (first run) or load every gamenav numba kernel into numba's cache.")
    parser.add_argument("--only", nargs="+", choices=sorted(set(GROUPS.values())),
                        help="warm up only these parts (default: all)")
    args = parser.parse_args(argv)
    parts = set(args.only or GROUPS.values())
    tty = is_terminal()
    t0 = last = time.perf_counter()
    running = ""

    def show(done: int, total: int, name: str) -> None:
        nonlocal last, running
        now = time.perf_counter()
        if tty:
            bar = "#" * (20 * done // total) + "-" * (20 - 20 * done // total)
            report(f"\rgamenav warmup: [{bar}] {done}/{total} {name:<16}", end="")
        elif done:  # one plain line per finished group in logs
            report(f"gamenav warmup: {done}/{total} {running} ({now - last:.1f} s)")
        last, running = now, name

    seconds = warmup(grid="grid" in parts, navmesh="navmesh" in parts, crowd="crowd" in parts,
                     progress=show)
    if tty:
        report("")
    detail = ", ".join(f"{group} {s:.1f} s" for group, s in seconds.items())
    report(f"gamenav warmup: done in {time.perf_counter() - t0:.1f} s ({detail})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
