"""``world_point`` and ``points_array``: their plain-Python fast path (tuples and lists of two
floats or ints) answers as the general numpy path does, value for value and error for error."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from gamenav.errors import InvalidInputError
from gamenav.navmesh.build import MAX_COORDINATE
from gamenav.navmesh.mesh import points_array, world_point

_EDGES = [MAX_COORDINATE, -MAX_COORDINATE, np.nextafter(MAX_COORDINATE, np.inf), 2.0**53 + 1, 10**15, 10**15 + 1,
          -(10**15) - 1, 2**63, 0.0, -0.0, 5e-324, float("nan"), float("inf"), -float("inf"), True, False]
_COORD = st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.integers(-(2**70), 2**70),
                   st.sampled_from(_EDGES), st.booleans())


class _Seq(tuple):  # type: ignore[type-arg]
    """A tuple subclass: not ``type(value) is tuple``, so it takes the general path."""


def _answer(check: Any, value: Any) -> Any:
    """What ``check(value, "p")`` returns, or InvalidInputError."""
    try:
        return check(value, "p")
    except InvalidInputError:
        return InvalidInputError


@given(_COORD, _COORD, st.sampled_from([tuple, list]), st.sampled_from([world_point, points_array]))
def test_fast_path_answers_as_the_general_path(x: Any, y: Any, kind: type, check: Any) -> None:
    value = kind((x, y))
    fast, general = _answer(check, value), _answer(check, _Seq(value))
    if general is InvalidInputError:
        assert fast is InvalidInputError
    else:
        assert isinstance(fast, np.ndarray) and fast.dtype == np.float64 and fast.shape == general.shape
        assert fast.flags.writeable and fast.tobytes() == general.tobytes()  # bit for bit (signed zeros too)


@pytest.mark.parametrize("value", [(float("nan"), 0.0), (0.0, float("inf")), (1e16, 0.0), (0, -(10**16)),
                                   (True, 1.0), [1.0, False], (1.0,), (1.0, 2.0, 3.0), ("1", 2.0)])
@pytest.mark.parametrize("check", [world_point, points_array])
def test_fast_path_still_rejects(value: Any, check: Any) -> None:
    with pytest.raises(InvalidInputError, match="p must"):
        check(value, "p")
