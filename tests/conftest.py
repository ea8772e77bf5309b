"""Shared fixtures: where the benchmark data lives, and headless graphics for engine tests."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

os.environ.setdefault("ARCADE_HEADLESS", "1")
os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("GAMENAV_QUIET", "1")

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
