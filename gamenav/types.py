"""Shared result types and aliases: :class:`Path`, :class:`PathStatus`, :class:`Search`.

Coordinates in the public API are always ``(x, y)``. Grid arrays are indexed ``[y, x]``
(row, column); ``Path.cells`` is nonetheless stored as ``(x, y)`` pairs.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field, fields
from collections.abc import Callable
from typing import Any, Protocol, TypeVar, runtime_checkable

import numpy as np
import numpy.typing as npt

from gamenav._arrays import rebuilt
from gamenav._validate import float_numbers, holds_bool, is_int, masked, real_number, shown
from gamenav.errors import InvalidInputError

__all__ = ["Cell", "Path", "PathStatus", "Point", "Search"]

Point = tuple[float, float]
"""A world position ``(x, y)`` in world units."""

Cell = tuple[int, int]
"""A grid cell ``(x, y)``: column, row."""

_G = TypeVar("_G", bound=np.generic)


class PathStatus(enum.Enum):
    """Outcome of a search. Only ``IN_PROGRESS`` means "call ``step`` again"."""

    FOUND = "found"
    """A complete path from start to goal."""
    PARTIAL = "partial"
    """The goal is unreachable; the path leads to the reachable node closest to it."""
    NO_PATH = "no_path"
    """The goal is unreachable (and no partial path was asked for)."""
    IN_PROGRESS = "in_progress"
    """A sliced search that needs more ``step`` calls."""
    CANCELLED = "cancelled"
    """The request was cancelled before it finished."""
    STALE = "stale"
    """The world changed under the request; the result was discarded."""

    @property
    def done(self) -> bool:
        """True for every status except ``IN_PROGRESS``."""
        return self is not PathStatus.IN_PROGRESS

    @property
    def has_path(self) -> bool:
        """True when the result holds a usable path (``FOUND`` or ``PARTIAL``)."""
        return self in (PathStatus.FOUND, PathStatus.PARTIAL)


def sealed(array: npt.NDArray[_G]) -> npt.NDArray[_G]:
    """``array`` over an immutable ``bytes`` buffer: read-only, and neither it nor its ``.base``
    can be made writable (:func:`~gamenav._arrays.frozen` views writable memory). An array
    sealed already is returned as it is, any other copied."""
    base: object = array.base
    if type(base) is bytes:  # (not a subclass: one may export its buffer writable)
        return array
    copy: npt.NDArray[_G] = np.ndarray(array.shape, array.dtype, array.tobytes())
    return copy


def _empty(shape: tuple[int, ...], dtype: type[_G]) -> npt.NDArray[_G]:
    """A sealed empty array (paths share it)."""
    return sealed(np.zeros(shape, dtype=dtype))


_NO_CELLS, _NO_POINTS, _NO_CORRIDOR = _empty((0, 2), np.int64), _empty((0, 2), np.float64), _empty((0,), np.int64)
"""The defaults of :class:`Path`'s arrays, shared: the constructor copies none of them."""


_ARRAYS = (("cells", np.int64, 2), ("points", np.float64, 2), ("corridor", np.int64, 1))
""":class:`Path`'s array fields: name, dtype and dimensions (``(n, 2)`` or ``(k,)``)."""


def _read_only(value: Any, name: str, dtype: type[np.int64] | type[np.float64], ndim: int) -> npt.NDArray[Any]:
    """``value`` as a new ``dtype`` array of ``ndim`` dimensions (``(n, 2)`` or ``(k,)``) that no
    caller can make writable (:func:`sealed`), converted from ints (or for floats
    from numbers); an empty read-only array of the right shape is kept (nothing in it can
    change: the shared defaults). Any other array is copied, also a read-only one: it may view memory its owner
    writes later (``crowd.positions``, a read-only slice of the caller's array).

    Raises:
        InvalidInputError: not such an array: other shapes, floats for ints, bools, strings,
            negative ints (cells and triangle ids are >= 0), NaN or infinite points.
    """
    if type(value) is np.ndarray and value.dtype == dtype and value.shape == (0, 2)[:ndim] \
            and not value.flags.writeable:
        return value
    array = _ints(value) if dtype is np.int64 else float_numbers(value)
    if array is not None and array.shape == (0,) and ndim == 2 and not isinstance(value, np.ndarray):
        array = array.reshape(0, 2)  # [] or (): no rows
    if array is None or array.ndim != ndim or (ndim == 2 and array.shape[1] != 2):
        shape, kind = "(n, 2)" if ndim == 2 else "(k,)", "ints" if dtype is np.int64 else "numbers"
        got = f"an array of shape {value.shape} and dtype {value.dtype}" if isinstance(value, np.ndarray) \
            else shown(value, 120)
        raise InvalidInputError(f"{name} must be an array of {kind} of shape {shape}, got {got}")
    bad = array < 0 if dtype is np.int64 else ~np.isfinite(array)
    if bad.any():
        row = int(np.argwhere(bad)[0][0])
        kind = "ints >= 0" if dtype is np.int64 else "finite numbers"
        raise InvalidInputError(f"{name} must hold {kind}, got {shown(array[row].tolist())} at row {row}")
    return sealed(array)


def _ints(value: Any) -> npt.NDArray[np.int64] | None:
    """``value``, an array-like of ints within int64 (no bools, no masked values; an empty list or
    tuple too), as a new int64 array, or None."""
    if masked(value):
        return None
    try:
        raw = np.asarray(value)
    except (TypeError, ValueError):  # ragged rows
        return None
    empty_list = not raw.size and not isinstance(value, np.ndarray)  # ([] is float64 to numpy)
    if (raw.dtype.kind not in "iu" and not empty_list) or holds_bool(value) or (
            raw.size and raw.max() > np.iinfo(np.int64).max):
        return None
    return raw.astype(np.int64)


@dataclass(frozen=True, eq=False)
class Path:
    """A search result.

    Attributes:
        status: the outcome; a path is present only for ``FOUND`` and ``PARTIAL``.
        cost: the path cost (grids: sum of step length x entered-cell cost; navmeshes: Euclidean
            length). ``inf`` when there is no path.
        cells: ``(n, 2)`` int64 grid cells as ``(x, y)``, start first; ``(0, 2)`` for navmesh paths.
        points: ``(n, 2)`` float64 waypoints in world coordinates, start first.
        expanded: how many nodes the search expanded.
        corridor: ``(k,)`` int64 navmesh triangle indices from start to goal; empty for grids.

    The arrays are read-only; the constructor copies the arrays and array-likes it is given (the
    caller's own arrays stay writable, and nothing the caller writes later changes the path).
    Paths compare and hash by identity (compare their fields to compare two paths). ``len(path)``
    is the number of waypoints, so a path without any (``NO_PATH``, ``STALE``, ...) is falsy.

    Raises:
        InvalidInputError: a field of another type, shape or range (``status`` not a PathStatus,
            cells that are not ``(n, 2)`` ints >= 0, points that are not finite, a NaN or
            negative cost, ...).
    """

    status: PathStatus
    cost: float = float("inf")
    cells: npt.NDArray[np.int64] = field(default_factory=lambda: _NO_CELLS)
    points: npt.NDArray[np.float64] = field(default_factory=lambda: _NO_POINTS)
    expanded: int = 0
    corridor: npt.NDArray[np.int64] = field(default_factory=lambda: _NO_CORRIDOR)

    def __post_init__(self) -> None:
        if not isinstance(self.status, PathStatus):
            raise InvalidInputError(f"status must be a PathStatus, got {shown(self.status)}")
        cost = real_number(self.cost, "cost")
        if not cost >= 0:  # (NaN too)
            raise InvalidInputError(f"cost must be a number >= 0 (inf: no path), got {shown(self.cost)}")
        object.__setattr__(self, "cost", cost)
        if not is_int(self.expanded) or self.expanded < 0:
            raise InvalidInputError(f"expanded must be an int >= 0, got {shown(self.expanded)}")
        object.__setattr__(self, "expanded", int(self.expanded))
        for name, dtype, ndim in _ARRAYS:
            object.__setattr__(self, name, _read_only(getattr(self, name), name, dtype, ndim))

    def __reduce__(self) -> tuple[Callable[..., Path], tuple[object, ...]]:
        """Pickle and copy through the constructor, so the arrays are read-only again after a
        round trip (pickle and ``deepcopy`` rebuild them writable) and own their memory; a
        dataclass subclass's own fields go along."""
        return rebuilt, (type(self), *(getattr(self, f.name) for f in fields(self) if f.init))

    @classmethod
    def none(cls, status: PathStatus = PathStatus.NO_PATH, *, expanded: int = 0) -> Path:
        """An empty result (no waypoints, infinite cost) with the given status."""
        return cls(status=status, expanded=expanded)

    @property
    def found(self) -> bool:
        """True when the path reaches the goal."""
        return self.status is PathStatus.FOUND

    def __len__(self) -> int:
        """Number of waypoints."""
        return int(self.points.shape[0])

    def __repr__(self) -> str:
        return (f"Path(status={self.status.name}, cost={self.cost:.6g}, waypoints={len(self)}, "
                f"expanded={self.expanded})")


@runtime_checkable
class Search(Protocol):
    """A resumable search (the Detour sliced-query pattern).

    ``begin`` is the constructor; ``step`` advances by at most ``max_expansions`` node
    expansions (``None``: until done) and returns the status; ``result`` returns the final :class:`Path` once
    ``status.done``. Running to completion in any number of ``step`` calls gives the same path,
    bit for bit, as the one-shot ``find_path``. Both :class:`~gamenav.GridSearch` and
    :class:`~gamenav.NavMeshSearch` implement every member.
    """

    @property
    def status(self) -> PathStatus:
        """The current status (``IN_PROGRESS`` until the search is done)."""
        ...

    @property
    def expanded(self) -> int:
        """Nodes expanded so far."""
        ...

    @property
    def world_version(self) -> int:
        """The world's ``version`` when the search captured it (grids also call it
        ``grid_version``, navmeshes ``mesh_version``)."""
        ...

    def step(self, max_expansions: int | None = None) -> PathStatus:
        """Expand at most ``max_expansions`` nodes (``None``: run to the end); return the status."""
        ...

    def result(self) -> Path:
        """The final :class:`Path` once done; ``Path.none(IN_PROGRESS)`` before that."""
        ...

    def partial_result(self) -> Path:
        """The best path so far while IN_PROGRESS (grids: a PARTIAL path towards the goal;
        navmeshes: none yet), :meth:`result` once done."""
        ...

    def cancel(self) -> None:
        """Stop the search: status CANCELLED (no effect once done)."""
        ...
