"""Adversarial review 7 of the pygame adapter: frame times in milliseconds."""

from __future__ import annotations

import warnings
from collections.abc import Callable

import pytest

import gamenav
from gamenav.adapters.pygame import PathFollower, grid_from_rects  # (SDL_VIDEODRIVER: set by conftest)


def _walker() -> PathFollower:
    grid = grid_from_rects([], size=(2000, 40), cell_size=20)
    agent = PathFollower((10, 10), grid, speed=100)
    agent.move_to((1990, 10))
    return agent


def test_dt_ms_takes_clock_tick_milliseconds() -> None:
    by_ms, by_seconds = _walker(), _walker()
    for _ in range(3):
        by_ms.update(dt_ms=17)
        by_seconds.update(0.017)
    assert by_ms.position == pytest.approx(by_seconds.position) and 14 < by_ms.position[0] < 16


def test_clock_tick_milliseconds_given_as_seconds_warn_once() -> None:
    agent = _walker()
    with pytest.warns(UserWarning, match=r"takes seconds, got the int 16: .*dt_ms=clock.tick"):
        agent.update(16)  # (the old code walked 16 s silently: 1600 pixels in a frame)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        agent.update(16)  # once per follower
        _walker().update(2.5)  # a long frame in seconds is a float: no warning
        _walker().update(0)


@pytest.mark.parametrize(("dt", "dt_ms", "match"), [
    (None, None, "got neither"),
    (0.016, 16, r"got both \(dt=0.016, dt_ms=16\)"),
    (None, -1, "dt_ms must be a finite number >= 0 of milliseconds, got -1"),
    (None, float("nan"), "got nan"),
    (None, 10**5000, "an int of more than"),
    (None, True, "got True"),
    (None, "16", "got '16'"),
], ids=["neither", "both", "negative", "nan", "huge", "bool", "str"])
def test_bad_frame_times_are_refused(dt: object, dt_ms: object, match: str) -> None:
    with pytest.raises(gamenav.InvalidInputError, match=match):
        _walker().update(dt, dt_ms=dt_ms)  # type: ignore[arg-type]


_HUGE = -10**5000  # (more digits than Python writes out: repr() raises ValueError)


@pytest.mark.parametrize("call", [
    lambda: grid_from_rects([(0, 0, _HUGE, 1)], size=(10, 10), cell_size=5),
    lambda: grid_from_rects(_HUGE, size=(10, 10), cell_size=5),
    lambda: grid_from_rects([], size=(_HUGE, 10), cell_size=5),
    lambda: PathFollower((_HUGE, 0), grid_from_rects([], size=(10, 10), cell_size=5), speed=1),
], ids=["rect", "rects", "size", "target"])
def test_an_int_python_cannot_write_out_gets_the_librarys_error(call: Callable[[], object]) -> None:
    with pytest.raises(gamenav.GamenavError):
        call()
