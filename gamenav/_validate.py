"""Argument checks shared by the public wrappers (each raises InvalidInputError with what it got)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import numpy.typing as npt

from gamenav.errors import InvalidInputError

__all__ = ["finite_point", "positive_number"]


def positive_number(value: Any, name: str) -> float:
    """``value`` as a float, which must be finite and > 0."""
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise InvalidInputError(f"{name} must be a finite number > 0, got {value!r}") from None
    if not math.isfinite(number) or number <= 0:
        raise InvalidInputError(f"{name} must be a finite number > 0, got {value!r}")
    return number


def finite_point(value: Any, name: str) -> npt.NDArray[np.float64]:
    """``value`` as a ``(2,)`` float64 array ``(x, y)``; NaN, inf and other shapes are rejected."""
    try:
        point = np.array(value, dtype=np.float64)
    except (TypeError, ValueError):
        point = None
    if point is None or point.shape != (2,) or not np.isfinite(point).all():
        raise InvalidInputError(f"{name} must be a finite (x, y) pair, got {value!r}")
    return point
