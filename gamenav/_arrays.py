"""Read-only arrays handed to callers."""

from __future__ import annotations

from typing import TypeVar

import numpy as np
import numpy.typing as npt

_S = TypeVar("_S", bound=np.generic)


def frozen(array: npt.NDArray[_S]) -> npt.NDArray[_S]:
    """A read-only view of ``array`` that cannot be made writable again.

    numpy lets a caller set ``flags.writeable = True`` on a read-only view of writable memory;
    this view's memory is a read-only buffer, so that raises ValueError. No copy is made: the
    view shows later writes of its owner (which keeps ``array`` writable).
    """
    view: npt.NDArray[_S] = np.asarray(array.data.toreadonly())
    return view
