"""Argument checks shared by the public wrappers (each raises a GamenavError with what it got).

Numbers must be real numbers (``int``, ``float`` or numpy scalars; never ``bool`` or ``str``,
which ``float()`` would silently accept, nor a numpy ``timedelta64``, which numpy counts as an
integer); flags must be bools (or numpy bools, 0, 1).
"""

from __future__ import annotations

import difflib
import functools
import inspect
import math
import sys
from typing import Any
from collections.abc import Callable, Collection, Mapping

import numpy as np
import numpy.typing as npt

from gamenav.errors import InvalidInputError, InvalidOptionError

__all__ = ["MAX_GRID_CELLS", "check_options", "expansion_budget", "finite_point", "flag", "float_numbers",
           "grid_dimensions", "holds_bool", "is_int", "is_real", "keyword_options", "masked", "positive_number",
           "real_number", "shown"]

MAX_GRID_CELLS = 1 << 27
"""The most cells a grid built from a world size may have (134M: a TileGrid needs ~10 bytes a cell)."""


_NOT_NUMBERS = (bool, np.bool_, np.timedelta64)
"""Types that ``isinstance(value, (int, np.integer))`` takes but that are no numbers here: bools,
and numpy's ``timedelta64`` (an ``np.integer``: ``float(np.timedelta64(16, 'ms'))`` is a
TypeError, while ``np.timedelta64(2)`` passed for 2)."""


def shown(value: Any, limit: int = 200) -> str:
    """``repr(value)`` for an error message, cut to ``limit`` characters; an int of more digits than
    Python writes out (``10**5000``: ``repr`` raises ValueError) is shown by its size."""
    try:
        text = repr(value)
    except ValueError:  # beyond sys.get_int_max_str_digits(), also inside a list or an array
        digits = f"an int of more than {sys.get_int_max_str_digits()} digits"
        return digits if isinstance(value, int) else f"{type(value).__name__} holding {digits}"
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text)} characters)"


def is_real(value: Any) -> bool:
    """Whether ``value`` is a real number: a Python or numpy int or float, not a bool (nor a
    numpy ``timedelta64``)."""
    return isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, _NOT_NUMBERS)


def is_int(value: Any) -> bool:
    """Whether ``value`` is an integer: a Python or numpy int, not a bool (nor a numpy ``timedelta64``)."""
    return isinstance(value, (int, np.integer)) and not isinstance(value, _NOT_NUMBERS)


def real_number(value: Any, name: str, expected: str = "a number") -> float:
    """``value`` as a float (may be NaN or inf: the caller checks the range; an int beyond
    float64, such as ``2**1100``, is an infinity of its sign).

    Raises:
        InvalidInputError: not a real number; the message says ``name must be {expected}``.
    """
    if not is_real(value):
        raise InvalidInputError(f"{name} must be {expected}, got {shown(value)}")
    return _as_float(value)


def _as_float(value: Any) -> float:
    """A real number (:func:`is_real`) as a float: an int beyond float64 (``2**1100``) is an
    infinity of its sign."""
    try:
        return float(value)
    except OverflowError:
        return math.inf if value > 0 else -math.inf


def positive_number(value: Any, name: str) -> float:
    """``value`` as a float, which must be finite and > 0."""
    number = real_number(value, name, "a finite number > 0")
    if not math.isfinite(number) or number <= 0:
        raise InvalidInputError(f"{name} must be a finite number > 0, got {shown(value)}")
    return number


def grid_dimensions(size: Any, cell_size: float) -> tuple[int, int]:
    """``(columns, rows)`` of a grid covering a world ``size`` ``(width, height)`` with square cells.

    A side spans ``ceil(side / cell_size)`` cells (a relative 1e-9 of float noise is forgiven, so
    ``100 / 0.1`` gives 1000 columns, not 1001).

    Raises:
        InvalidInputError: ``size`` is not a pair of finite numbers > 0, or the grid would have
            more than :data:`MAX_GRID_CELLS` cells.
    """
    try:
        width, height = size
    except (TypeError, ValueError):
        raise InvalidInputError(f"size must be a (width, height) pair of numbers, got {shown(size)}") from None
    if not all(is_real(side) and 0 < _as_float(side) < math.inf for side in (width, height)):
        raise InvalidInputError(f"size must be a (width, height) pair of finite numbers > 0, got {shown(size)}")
    width, height = _as_float(width), _as_float(height)
    spans = [side / cell_size for side in (width, height)]  # (inf when a tiny cell_size overflows)
    if max(spans) <= MAX_GRID_CELLS:
        cols, rows = (max(1, math.ceil(span * (1.0 - 1e-9))) for span in spans)
        if cols * rows <= MAX_GRID_CELLS:
            return cols, rows
    raise InvalidInputError(
        f"size {shown(size)} with cell_size {cell_size} gives a {spans[0]:.6g} x {spans[1]:.6g} grid: more than "
        f"{MAX_GRID_CELLS} cells")


def expansion_budget(value: Any) -> int:
    """A search step's ``max_expansions``: ``None`` is no limit (2**63 - 1), else an int from 1 to
    2**63 - 1 (the kernels count in int64).

    Raises:
        InvalidInputError: anything else (0, negatives, bools, floats, strings, 2**63 and above).
    """
    limit = (1 << 63) - 1
    if value is None:
        return limit
    if not is_int(value) or not 1 <= value <= limit:
        raise InvalidInputError(f"max_expansions must be an int from 1 to 2**63 - 1 or None, got {shown(value)}")
    return int(value)


def holds_bool(value: Any) -> bool:
    """Whether ``value`` is a bool, or a list / tuple holding one (also in a nested list /
    tuple): numpy reads ``(True, 1.5)`` as the numbers ``(1.0, 1.5)``, so the dtype of
    ``np.asarray(value)`` does not tell."""
    if isinstance(value, (bool, np.bool_)):
        return True
    if isinstance(value, (list, tuple)):
        for item in value:
            if isinstance(item, (bool, np.bool_)) or (
                    isinstance(item, (list, tuple)) and any(isinstance(v, (bool, np.bool_)) for v in item)):
                return True
    return False


def masked(value: Any) -> bool:
    """Whether ``value`` is a numpy masked array with a value masked (``np.asarray`` would read
    what lies under the mask)."""
    return isinstance(value, np.ma.MaskedArray) and bool(np.any(value.mask))


def float_numbers(value: Any, ndmin: int = 0) -> npt.NDArray[np.float64] | None:
    """``value``, an array-like of ints and floats, as a new float64 array of at least ``ndmin``
    dimensions, or None when it holds anything else (strings, bools, also mixed with numbers,
    objects, ragged rows, masked arrays with a value masked: numpy would read what lies under the
    mask). A longdouble beyond float64 becomes an infinity, without numpy's
    overflow warning (the callers refuse it as not finite); so does an int beyond float64 (numpy
    holds ints beyond 64 bits as objects: they are numbers too, as for :func:`real_number`)."""
    if masked(value):
        return None
    try:
        raw = np.asarray(value)
        if raw.dtype.kind == "O" and raw.size and all(map(is_real, raw.flat)):
            raw = np.array([_as_float(v) for v in raw.flat], dtype=np.float64).reshape(raw.shape)
        if raw.dtype.kind not in "iuf" or holds_bool(value):  # numpy reads [True, 2.5] as [1.0, 2.5]
            return None
        with np.errstate(over="ignore"):
            return np.array(raw, dtype=np.float64, ndmin=ndmin)
    except (TypeError, ValueError, OverflowError):
        return None


def finite_point(value: Any, name: str) -> npt.NDArray[np.float64]:
    """``value`` as a ``(2,)`` float64 array ``(x, y)``; NaN, inf, strings, bools (also mixed
    with numbers), other shapes and values beyond float64 are rejected."""
    point = float_numbers(value)
    if point is None or point.shape != (2,) or not np.isfinite(point).all():
        raise InvalidInputError(f"{name} must be a finite (x, y) pair of numbers, got {shown(value)}")
    return point


def flag(value: Any, name: str) -> bool:
    """``value`` as a bool: accepts ``bool``, numpy bools and the integers 0 and 1."""
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if is_int(value) and value in (0, 1):
        return bool(value)
    raise InvalidInputError(f"{name} must be a bool, got {shown(value)}")


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
