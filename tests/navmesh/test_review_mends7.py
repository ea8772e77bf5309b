"""Review mends of this session's commits (navmesh)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

import gamenav
import gamenav.navmesh.mesh as mesh_module
from gamenav.errors import InvalidGeometryError


class _CountingUfunc:
    """A numpy ufunc whose ``at`` calls are counted (one per pass of :func:`copy_roots`' loop)."""

    def __init__(self, ufunc: np.ufunc, calls: list[int]) -> None:
        self._ufunc, self._calls = ufunc, calls

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self._ufunc(*args, **kwargs)

    def at(self, *args: Any, **kwargs: Any) -> None:
        self._calls.append(1)
        self._ufunc.at(*args, **kwargs)


class _Numpy:
    """numpy, with :class:`_CountingUfunc` for ``minimum``."""

    def __init__(self, calls: list[int]) -> None:
        self.minimum = _CountingUfunc(np.minimum, calls)

    def __getattr__(self, name: str) -> Any:
        return getattr(np, name)


def test_a_chain_of_corner_copies_merges_in_few_passes(monkeypatch: pytest.MonkeyPatch) -> None:
    """``copy_roots`` (``NavMesh.from_mesh``, ``read_mesh``) spread the lowest id of a group of near
    copies one link of a chain per pass over all the pairs: a file with a chain of 30000 copies
    (each within twice the tolerance of the next) took 16 s, 100000 minutes. Each pass hooks a
    group under the lowest next to it and jumps to the roots: O(log n) passes, the same groups."""
    n = 4096
    k = np.arange(n)
    chain = np.stack([1.5e-9 * k, np.zeros(n)], axis=1)[::-1]  # (reach 2e-9; the lowest id at its far end)
    verts = np.vstack([chain, [[1.0, 0.0], [0.5, 1.0]]])
    calls: list[int] = []
    monkeypatch.setattr(mesh_module, "np", _Numpy(calls))
    root = mesh_module.copy_roots(verts, np.arange(len(verts)))
    monkeypatch.undo()
    assert root.tolist() == [0] * n + [n, n + 1]
    assert len(calls) <= 2 * math.log2(n)


def test_repeated_faces_are_found_without_a_set_per_polygon(monkeypatch: pytest.MonkeyPatch) -> None:
    """87857a7 found the faces given again (up to copies) by a Python ``frozenset`` of each
    polygon's corners, in ``from_mesh`` and again in ``read_mesh``: on aurora.mesh (34816 faces)
    ``from_mesh`` took 1.26 s against 0.82 s before it. Polygons with as many corners are compared
    as sorted rows now (0.92 s); the first of repeats is kept, as before."""
    calls: list[int] = []

    def counted(items: Any = ()) -> frozenset[Any]:
        calls.append(1)
        return frozenset(items)

    monkeypatch.setattr(mesh_module, "frozenset", counted, raising=False)
    k = np.arange(21)
    verts = np.stack([np.repeat(k, 2)[:40] % 20, np.tile([0, 1], 20)], axis=1).astype(np.float64)
    tris = [[i, i + 1, i + 2] for i in range(38)]
    again = [[i + 2, i, i + 1] for i in range(0, 38, 5)]  # (the same faces, corners in another order)
    mesh = gamenav.NavMesh.from_mesh(verts, tris + again)
    monkeypatch.undo()
    assert not calls
    assert np.array_equal(mesh.triangles, gamenav.NavMesh.from_mesh(verts, tris).triangles)
    _, first = mesh_module.face_firsts(verts, [np.array(t) for t in tris + again])
    assert first.tolist() == list(range(38)) + list(range(0, 38, 5))


@pytest.mark.parametrize("polygons", [[[]], [[0, 1, 2], []]])
def test_a_polygon_of_no_corners_is_refused_by_name(polygons: list[list[int]]) -> None:
    # 7ccca19's face_firsts reshaped the corners of corner-less polygons to (-1, 0): a bare numpy
    # ValueError ("cannot reshape array of size 0") instead of the error naming the polygon
    vertices = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]])
    with pytest.raises(InvalidGeometryError, match=rf"polygon {len(polygons) - 1} must have at least 3 vertices"):
        gamenav.NavMesh.from_mesh(vertices, polygons)
