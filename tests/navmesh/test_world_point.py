"""Query inputs on a navmesh: the plain-Python fast path of ``world_point`` and ``points_array``
(tuples and lists of two floats or ints) answers as the general numpy path does, value for value
and error for error; ``locate`` answers alike for any layout of its points."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import gamenav
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


@given(st.lists(st.tuples(st.floats(-30, 30), st.floats(-30, 30)) | st.sampled_from([(1e15, 0.0), (-1e15, 5.0)]),
                min_size=1, max_size=12),
       st.sampled_from(["C", "F", "strided"]))
def test_locate_answers_each_point_alike_in_any_layout(points: list[tuple[float, float]], layout: str) -> None:
    """``locate`` of many points (inside, outside, far out; any memory layout) is the list of
    each point's own answer (its no-copy path for C-ordered points inside the box included)."""
    mesh = gamenav.NavMesh.from_polygons([[(0, 0), (10, 0), (10, 10), (0, 10)]],
                                         obstacles=[[(4, -1), (6, -1), (6, 8), (4, 8)]])
    arr = np.array(points, dtype=np.float64)
    if layout == "F":
        arr = np.asfortranarray(arr)
    elif layout == "strided":
        arr = np.repeat(arr, 2, axis=0)[::2]
    expected = [int(mesh.locate(p)[0]) for p in points]
    assert mesh.locate(arr).tolist() == expected
    assert mesh.locate(np.clip(arr, 0.5, 9.5)).tolist() == [int(mesh.locate(p)[0]) for p in np.clip(arr, 0.5, 9.5)]
