"""Movement rules on tile grids: which neighbours a cell has, and the matching heuristics.

A diagonal step costs ``sqrt(2)`` times the entered cell's cost, an orthogonal step 1 times it.
Cell costs are >= 1, so every heuristic below, scaled by 1, is admissible for its movement.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Callable

import numpy as np

from gamenav._validate import shown
from gamenav.errors import InvalidInputError

__all__ = ["Diagonal", "Heuristic", "HeuristicLike", "default_heuristic", "heuristic_distance",
           "resolve_heuristic"]

SQRT2 = math.sqrt(2.0)


class Diagonal(str, enum.Enum):
    """When a diagonal step is allowed between two cells.

    ``NO_CORNER_CUTTING`` is the default and the Moving AI benchmark convention.
    """

    NEVER = "never"
    """4-connected movement."""
    NO_CORNER_CUTTING = "no_corner_cutting"
    """Diagonal only when both orthogonally adjacent cells are walkable."""
    AT_MOST_ONE_BLOCKED = "at_most_one_blocked"
    """Diagonal unless both orthogonally adjacent cells are blocked."""
    ALWAYS = "always"
    """Diagonal whenever the target cell is walkable (squeezes between touching walls)."""

    @property
    def code(self) -> int:
        """Small integer passed to the kernels (0..3 in declaration order)."""
        return _DIAGONAL_CODES[self]

    @classmethod
    def parse(cls, value: Diagonal | str | bool | np.bool_) -> Diagonal:
        """Accept a member, its name/value (any case), or a bool or numpy bool (True = default,
        False = never)."""
        if isinstance(value, Diagonal):
            return value
        if isinstance(value, (bool, np.bool_)):
            return cls.NO_CORNER_CUTTING if value else cls.NEVER
        if isinstance(value, str):
            key = value.strip().lower().replace("-", "_").replace(" ", "_")
            for member in cls:
                if key in (member.value, member.name.lower()):
                    return member
        raise InvalidInputError(
            f"diagonal must be one of {[m.value for m in cls]} or a bool, got {shown(value)}")


_DIAGONAL_CODES = {member: i for i, member in enumerate(Diagonal)}


class Heuristic(str, enum.Enum):
    """Distance estimates between cells ``dx, dy`` apart (absolute differences)."""

    MANHATTAN = "manhattan"
    OCTILE = "octile"
    CHEBYSHEV = "chebyshev"
    EUCLIDEAN = "euclidean"
    ZERO = "zero"

    @property
    def code(self) -> int:
        """Small integer passed to the kernels (0..4 in declaration order)."""
        return _HEURISTIC_CODES[self]


_HEURISTIC_CODES = {member: i for i, member in enumerate(Heuristic)}

HeuristicLike = Heuristic | str | Callable[[int, int], float] | None
"""A :class:`Heuristic`, its name, ``None`` (match the movement) or ``f(dx, dy) -> float``."""


def default_heuristic(diagonal: Diagonal) -> Heuristic:
    """The tightest admissible heuristic for a movement rule (manhattan or octile)."""
    return Heuristic.MANHATTAN if diagonal is Diagonal.NEVER else Heuristic.OCTILE


def heuristic_distance(heuristic: Heuristic, dx: float, dy: float) -> float:
    """Evaluate ``heuristic`` for absolute offsets ``dx, dy`` (pure Python; for callers outside kernels)."""
    dx, dy = abs(dx), abs(dy)
    if heuristic is Heuristic.MANHATTAN:
        return dx + dy
    if heuristic is Heuristic.OCTILE:
        return max(dx, dy) + (SQRT2 - 1.0) * min(dx, dy)
    if heuristic is Heuristic.CHEBYSHEV:
        return max(dx, dy)
    if heuristic is Heuristic.EUCLIDEAN:
        return math.hypot(dx, dy)
    return 0.0


def resolve_heuristic(heuristic: HeuristicLike, diagonal: Diagonal
                      ) -> Heuristic | Callable[[int, int], float]:
    """Turn a user's ``heuristic=`` argument into a :class:`Heuristic` or a callable."""
    if heuristic is None:
        return default_heuristic(diagonal)
    if isinstance(heuristic, Heuristic):
        return heuristic
    if isinstance(heuristic, str):
        try:
            return Heuristic(heuristic.strip().lower())
        except ValueError:
            raise InvalidInputError(
                f"heuristic must be one of {[h.value for h in Heuristic]}, a callable or None, "
                f"got {shown(heuristic)}") from None
    if callable(heuristic):
        return heuristic
    raise InvalidInputError(f"heuristic must be a name, a callable or None, got {shown(heuristic)}")
