"""Argument checks shared by the public wrappers (each raises a GamenavError with what it got).

Numbers must be real numbers (``int``, ``float`` or numpy scalars; never ``bool`` or ``str``,
which ``float()`` would silently accept); flags must be bools (or numpy bools, 0, 1).
"""

from __future__ import annotations

import difflib
import functools
import inspect
import math
from typing import Any
from collections.abc import Callable, Collection, Mapping

import numpy as np
import numpy.typing as npt

from gamenav.errors import InvalidInputError, InvalidOptionError

__all__ = ["check_options", "finite_point", "flag", "is_real", "keyword_options", "positive_number",
           "real_number"]


def is_real(value: Any) -> bool:
    """Whether ``value`` is a real number: a Python or numpy int or float, not a bool."""
    return isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(
        value, (bool, np.bool_))


def real_number(value: Any, name: str, expected: str = "a number") -> float:
    """``value`` as a float (may be NaN or inf: the caller checks the range).

    Raises:
        InvalidInputError: not a real number; the message says ``name must be {expected}``.
    """
    if not is_real(value):
        raise InvalidInputError(f"{name} must be {expected}, got {value!r}")
    return float(value)


def positive_number(value: Any, name: str) -> float:
    """``value`` as a float, which must be finite and > 0."""
    number = real_number(value, name, "a finite number > 0")
    if not math.isfinite(number) or number <= 0:
        raise InvalidInputError(f"{name} must be a finite number > 0, got {value!r}")
    return number


def finite_point(value: Any, name: str) -> npt.NDArray[np.float64]:
    """``value`` as a ``(2,)`` float64 array ``(x, y)``; NaN, inf, strings, bools, other shapes
    and values beyond float64 are rejected."""
    try:
        raw = np.asarray(value)
        point = raw.astype(np.float64) if raw.dtype.kind in "iuf" else None
    except (TypeError, ValueError, OverflowError):
        point = None
    if point is None or point.shape != (2,) or not np.isfinite(point).all():
        raise InvalidInputError(f"{name} must be a finite (x, y) pair of numbers, got {value!r}")
    return point


def flag(value: Any, name: str) -> bool:
    """``value`` as a bool: accepts ``bool``, numpy bools and the integers 0 and 1."""
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (int, np.integer)) and value in (0, 1):
        return bool(value)
    raise InvalidInputError(f"{name} must be a bool, got {value!r}")


@functools.cache
def keyword_options(func: Callable[..., Any]) -> tuple[str, ...]:
    """The keyword-only parameter names of ``func`` (a function or a class), sorted."""
    params = inspect.signature(func).parameters.values()
    return tuple(sorted(p.name for p in params if p.kind is inspect.Parameter.KEYWORD_ONLY))


def check_options(options: Mapping[str, Any] | Collection[str], valid: Collection[str],
                  what: str) -> None:
    """Reject option names that are not in ``valid``.

    Raises:
        InvalidOptionError: "unknown {what} option ...", naming the first unknown option, the
            closest valid one and all valid ones.
    """
    unknown = [name for name in options if name not in valid]
    if not unknown:
        return
    bad = sorted(unknown)[0]
    close = difflib.get_close_matches(bad, list(valid), n=1)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    raise InvalidOptionError(
        f"unknown {what} option {bad!r}{hint}; valid options: {', '.join(sorted(valid))}")
