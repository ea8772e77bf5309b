"""numba kernels: hot loops over numpy arrays and scalars only.

Nothing in this package validates its inputs; the public wrappers in ``gamenav.grid``,
``gamenav.navmesh`` and ``gamenav.runtime`` check every index and shape first. Every kernel is
``@njit(cache=True, nogil=True)``: the first run in a fresh environment compiles (tens of
seconds), later runs load machine code from numba's on-disk cache. :func:`announce_compile`
tells the user when that first compile happens.
"""

from __future__ import annotations

import os
import sys
from typing import Any

__all__ = ["announce_compile"]

_announced: set[str] = set()


def _is_cached(dispatcher: Any) -> bool:
    """Whether numba's on-disk cache already holds machine code for ``dispatcher``."""
    try:
        index_path = dispatcher._cache._cache_file._index_path  # numba's FunctionCache internals
    except AttributeError:
        return True  # unknown numba internals: stay quiet rather than guess
    return os.path.exists(index_path)


def announce_compile(group: str, *dispatchers: Any) -> None:
    """Print one line to stderr if ``dispatchers`` are about to be compiled (first run only).

    Call it from a public wrapper right before the first kernel call of a group; it costs a
    set lookup afterwards. Set ``GAMENAV_QUIET=1`` to silence it.
    """
    if group in _announced:
        return
    _announced.add(group)
    if os.environ.get("GAMENAV_QUIET") or all(_is_cached(d) for d in dispatchers):
        return
    print(f"gamenav: compiling {group} kernels with numba (first run only; cached afterwards)...",
          file=sys.stderr, flush=True)
