"""Adversarial review of the public value types, the change listeners and the budget tuner."""

from __future__ import annotations

import copy
import pickle
import threading
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pytest

import gamenav
from gamenav import InvalidInputError, Path, PathStatus, TileGrid
from gamenav._events import Closes
from gamenav.tune import simulate


def test_a_path_built_from_a_read_only_view_does_not_follow_its_owner() -> None:
    """``Path(...)`` kept a read-only array as it was: a read-only view of memory someone writes
    (a slice made read-only, ``crowd.positions``) moved the path's points when that memory was
    written, and the path's own arrays could be made writable again and written through."""
    base = np.zeros((3, 2))
    view = base[:2]
    view.flags.writeable = False
    path = Path(PathStatus.FOUND, 1.0, points=view)
    base[:] = 9.0
    assert not path.points.any()
    cells = np.array([[0, 0], [1, 1]], dtype=np.int64)
    cells.flags.writeable = False
    path = Path(PathStatus.FOUND, 1.0, cells=cells)
    with pytest.raises(ValueError):
        path.cells.flags.writeable = True
    twin = pickle.loads(pickle.dumps(path))
    with pytest.raises(ValueError):
        twin.cells.flags.writeable = True
    assert twin.cells.tolist() == [[0, 0], [1, 1]]


def test_a_path_of_an_ndarray_subclass_holds_plain_arrays() -> None:
    """An ndarray subclass given as points was kept (a ``np.matrix``: ``path.points[0]`` was a
    ``(1, 2)`` matrix, not an ``(x, y)`` pair); the path holds a plain array."""

    class Tagged(np.ndarray):
        pass

    path = Path(PathStatus.FOUND, 1.0, points=np.zeros((2, 2)).view(Tagged))
    assert type(path.points) is np.ndarray


@pytest.mark.parametrize("given, match", [
    ({"cost": float("nan")}, "cost must be a number >= 0"),
    ({"cost": -1.0}, "cost must be a number >= 0"),
    ({"points": [[0.0, float("nan")]]}, r"points must hold finite numbers, got \[0.0, nan\] at row 0"),
    ({"points": np.array([[0.0, 1.0], [0.0, np.inf]])}, r"points must hold finite numbers, got \[0.0, inf\] at row 1"),
    ({"cells": [[-1, 0]]}, r"cells must hold ints >= 0, got \[-1, 0\] at row 0"),
    ({"corridor": np.array([3, -1])}, "corridor must hold ints >= 0, got -1 at row 1"),
])
def test_a_path_refuses_values_no_search_gives(given: dict[str, object], match: str) -> None:
    """A NaN or negative cost, NaN / infinite waypoints and negative cells or triangle ids were
    kept: a follower walked towards NaN, a NaN cost compared false with every other."""
    with pytest.raises(InvalidInputError, match=match):
        Path(PathStatus.FOUND, **given)  # type: ignore[arg-type]


def test_an_empty_path_is_falsy_and_inf_cost_zero_cost_are_accepted() -> None:
    assert not Path.none() and not Path(PathStatus.STALE)
    assert Path(PathStatus.FOUND, -0.0, points=[[1, 2]]).cost == 0.0
    assert Path(PathStatus.PARTIAL, float("inf")).cost == float("inf")
    assert gamenav.Path is Path


class _Closing(Closes):
    """A Closes whose ``_close`` counts its runs and may close again or wait."""

    def __init__(self, again: bool = False) -> None:
        self.runs, self.again = 0, again
        self.entered, self.release = threading.Event(), threading.Event()

    def _close(self) -> None:
        self.runs += 1
        if self.again:
            self.close()  # (a listener or a __del__ that the closing runs)
        if self.runs == 1 and not self.again:
            self.entered.set()
            self.release.wait(30)


def test_close_called_by_the_closing_itself_returns_at_once() -> None:
    """``close()`` reached again from the code ``_close`` runs recursed until RecursionError."""
    obj = _Closing(again=True)
    obj.close()
    assert obj.runs == 1 and obj.closed


def test_close_from_a_second_thread_while_one_closes_does_not_close_twice() -> None:
    """Two threads closing one object both ran ``_close`` (a crowd cancelled its requests twice
    at once); the second ``close()`` waits for the first, which closes."""
    obj = _Closing()
    first, second = threading.Thread(target=obj.close), threading.Thread(target=obj.close)
    first.start()
    assert obj.entered.wait(30)
    second.start()
    obj.release.set()
    first.join(30)
    second.join(30)
    assert obj.runs == 1 and obj.closed


def test_close_that_raises_leaves_the_object_open_for_another_try() -> None:
    class Failing(Closes):
        runs = 0

        def _close(self) -> None:
            self.runs += 1
            if self.runs == 1:
                raise RuntimeError("disk gone")

    obj = Failing()
    with pytest.raises(RuntimeError, match="disk gone"):
        obj.close()
    assert not obj.closed
    with obj:
        pass
    assert obj.closed and obj.runs == 2
    obj.close()
    assert obj.runs == 2


@dataclass(frozen=True, eq=False)
class _TaggedPath(Path):
    tag: str = ""


@pytest.mark.parametrize("twin", [copy.copy, copy.deepcopy, lambda p: pickle.loads(pickle.dumps(p))])
def test_a_path_subclass_keeps_its_fields_through_copies_and_pickles(twin: Callable[[Path], Path]) -> None:
    """A dataclass subclass of Path (a game tagging its paths) came back from ``copy.copy``,
    ``deepcopy`` and pickle with its own fields at their defaults: ``tag="scout"`` became ``""``."""
    path = _TaggedPath(PathStatus.FOUND, 1.0, points=[[0.0, 0.0], [1.0, 0.0]], tag="scout")
    other = twin(path)
    assert isinstance(other, _TaggedPath) and other.tag == "scout"
    assert other.points.tolist() == path.points.tolist() and not other.points.flags.writeable


def test_a_path_takes_empty_lists_for_no_cells_points_or_corridor() -> None:
    """``Path(NO_PATH, cells=[], points=[], corridor=[])`` raised "corridor must be an array of
    ints of shape (k,), got []" (numpy reads ``[]`` as float64, and as shape ``(0,)``)."""
    path = Path(PathStatus.NO_PATH, cells=[], points=(), corridor=[])
    assert path.cells.shape == (0, 2) and path.cells.dtype == np.int64
    assert path.points.shape == (0, 2) and path.corridor.shape == (0,) and not path
    with pytest.raises(InvalidInputError, match="cells must be an array of ints"):
        Path(PathStatus.NO_PATH, cells=np.zeros((0, 2)))  # an array keeps its dtype's meaning
    with pytest.raises(InvalidInputError, match="points must be an array of numbers"):
        Path(PathStatus.NO_PATH, points=[[]])


@pytest.mark.parametrize("make, match", [
    (lambda: Path(PathStatus.FOUND, expanded=-10**5000), "expanded must be an int >= 0, got an int of more than"),
    (lambda: Path(PathStatus.FOUND, cost=-10**5000), "cost must be a number >= 0"),
    (lambda: Path(PathStatus.FOUND, cells=[[-10**5000, 0]]), "cells must be .* got list holding an int of more"),
    (lambda: simulate(TileGrid(np.ones((3, 3), bool)), agents=1, budget_ms=-10**5000, frames=1),
     "budget_ms must be a finite number > 0, got an int of more than"),
    (lambda: simulate(TileGrid(np.ones((3, 3), bool)), agents=10**5000, budget_ms=1.0, frames=1),
     "agents must be at most 1_000_000, got an int of more than"),
])
def test_errors_about_ints_python_cannot_write_out_are_invalid_input(make: Callable[[], object], match: str) -> None:
    """An int of more than 4300 digits in a Path, a budget or ``simulate``'s counts raised
    ``ValueError: Exceeds the limit (4300 digits) for integer string conversion`` from the
    message that was to refuse it; the message shows its size now."""
    with pytest.raises(InvalidInputError, match=match):
        make()



@pytest.mark.parametrize("name, shape", [("cells", (0, 3)), ("cells", (0,)), ("corridor", (0, 2))])
def test_a_path_refuses_an_empty_read_only_array_of_another_shape(name: str, shape: tuple[int, ...]) -> None:
    """An empty read-only int64 array was kept whatever its shape (6546bd3): ``cells`` of shape
    ``(0, 3)`` made a Path whose cells were not ``(n, 2)``."""
    empty = np.zeros(shape, np.int64)
    empty.flags.writeable = False
    with pytest.raises(InvalidInputError, match=f"{name} must be an array of ints of shape"):
        Path(PathStatus.NO_PATH, **{name: empty})  # type: ignore[arg-type]


@pytest.mark.parametrize("name, data", [("points", [[1.0, 2.0], [3.0, 4.0]]), ("cells", [[1, 2], [3, 4]])])
def test_a_path_refuses_masked_values(name: str, data: list[list[float]]) -> None:
    """A masked array with a value masked gave the path what lay under the mask (numpy's
    ``asarray`` drops the mask): a waypoint the caller had masked out was walked to."""
    value = np.ma.masked_array(data, mask=[[True, False], [False, False]])
    with pytest.raises(InvalidInputError, match=f"{name} must be an array of"):
        Path(PathStatus.FOUND, **{name: value})  # type: ignore[arg-type]
    unmasked = Path(PathStatus.FOUND, **{name: np.ma.masked_array(data)})  # type: ignore[arg-type]
    assert getattr(unmasked, name).tolist() == data


def test_no_base_of_a_paths_array_leads_to_writable_memory() -> None:
    """A Path's arrays were read-only views of a writable array reachable as
    ``path.points.base.obj``: writing there moved the path's points."""
    path = Path(PathStatus.FOUND, 1.0, cells=[[1, 2]], points=[[1.0, 2.0]], corridor=[4])
    for array in (path.cells, path.points, path.corridor):
        base: object = array
        while base is not None:
            if isinstance(base, np.ndarray):
                with pytest.raises(ValueError):
                    base.flags.writeable = True
                base = base.base
            else:
                assert isinstance(base, bytes)  # immutable memory
                base = None
    assert path.points.tolist() == [[1.0, 2.0]] and path.corridor.tolist() == [4]
