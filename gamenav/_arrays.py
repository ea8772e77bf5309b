"""Read-only arrays handed to callers."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import numpy as np
import numpy.typing as npt

_S = TypeVar("_S", bound=np.generic)
_T = TypeVar("_T")


def frozen(array: npt.NDArray[_S]) -> npt.NDArray[_S]:
    """A read-only view of ``array`` that cannot be made writable again.

    numpy lets a caller set ``flags.writeable = True`` on a read-only view of writable memory;
    this view's memory is a read-only buffer, so that raises ValueError. No copy is made: the
    view shows later writes of its owner (which keeps ``array`` writable).
    """
    view: npt.NDArray[_S] = np.asarray(array.data.toreadonly())
    return view


def rebuilt(cls: Callable[..., _T], *args: Any) -> _T:
    """``cls(*args)`` with each array argument that does not own its memory copied first: the
    unpickle helper of records with read-only arrays (an array unpickled from pickle protocol 5's
    out-of-band buffers views a buffer that its owner may write later)."""
    return cls(*(np.array(a) if isinstance(a, np.ndarray) and not a.flags.owndata else a for a in args))
