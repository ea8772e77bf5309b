"""Shared fixtures: where the benchmark data lives, headless graphics for engine tests, and the
hypothesis profiles.

Hypothesis profiles (``GAMENAV_HYPOTHESIS_PROFILE=nightly`` or ``--hypothesis-profile=nightly``):

- ``ci`` (default): derandomized (the same examples on every run, so CI is reproducible), each
  test's own example count, no deadline, no example database.
- ``nightly``: random examples on every run, ten times each test's example count (its own
  ``max_examples``, or hypothesis's default of 100), no deadline;
  failures are saved in ``.hypothesis/`` and replayed first on the next run.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings

os.environ.setdefault("ARCADE_HEADLESS", "1")
os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
os.environ.setdefault("GAMENAV_QUIET", "1")

NIGHTLY_SCALE = 10
"""The nightly profile multiplies every test's ``max_examples`` by this."""

settings.register_profile("ci", derandomize=True, deadline=None, database=None, print_blob=True)
settings.register_profile("nightly", derandomize=False, deadline=None)
settings.load_profile(os.environ.get("GAMENAV_HYPOTHESIS_PROFILE", "ci"))


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Under the nightly profile, give every hypothesis test ten times its usual example count."""
    if settings.get_current_profile_name() != "nightly":
        return
    for item in items:
        test: Any = getattr(item, "obj", None)
        own = getattr(test, "_hypothesis_internal_use_settings", None)  # set by @given / @settings
        if own is not None:
            test._hypothesis_internal_use_settings = settings(
                own, max_examples=own.max_examples * NIGHTLY_SCALE)

@pytest.hookimpl(optionalhook=True)  # (a pytest-xdist hook: unknown without it)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """Under xdist, the fuzz tests run on one worker, in order (``tests/fuzz/test_zz_total.py``
    sums the inputs of the fuzz tests run in its own process); any other test goes wherever
    there is room. (``--dist loadgroup`` with ``xdist_group`` marks did not group them under
    pytest 9.2: xdist 3.8 renames node ids through an attribute pytest no longer reads.)"""
    from xdist.scheduler import LoadScopeScheduling

    class FuzzTogether(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return "tests/fuzz" if nodeid.startswith("tests/fuzz/") else nodeid

    return FuzzTogether(config, log)


WARMUP_BATCHES = [[["grid"], ["navmesh"]], [["navmesh", "crowd"]]]
"""``python -m gamenav.warmup --only ...`` runs before xdist's workers start: the processes of a
batch run at once; the crowd comes last (its routine uses the grid's and the navmesh's kernels)."""


def pytest_sessionstart(session: pytest.Session) -> None:
    """With several xdist workers, compile the kernels once, into numba's cache on disk, before
    they start: each worker compiled the same groups at the same time (on a cold cache, a third
    of a CI run). Cheap on a warm cache. A failure here is left to the tests to report."""
    workers = getattr(session.config.option, "numprocesses", None) or 0
    if hasattr(session.config, "workerinput") or workers < 2:
        return
    for batch in WARMUP_BATCHES:
        runs = [subprocess.Popen([sys.executable, "-m", "gamenav.warmup", "--only", *parts])
                for parts in batch]
        for run in runs:
            run.wait()


DATA = Path(__file__).parent / "data"
SHARED_BENCHMARKS = Path(os.environ.get(
    "GAMENAV_BENCHMARKS", Path(__file__).resolve().parents[2] / "shared" / "benchmarks"))


@pytest.fixture(scope="session")
def data_dir() -> Path:
    """Small benchmark files vendored into tests/data (with their attribution)."""
    return DATA


@pytest.fixture(scope="session")
def shared_benchmarks() -> Path | None:
    """../shared/benchmarks when present (large maps); None otherwise."""
    return SHARED_BENCHMARKS if SHARED_BENCHMARKS.is_dir() else None
