"""The hypothesis profiles of tests/conftest.py: derandomized "ci" by default, a longer "nightly"."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.skipif(os.environ.get("GAMENAV_HYPOTHESIS_PROFILE", "ci") != "ci",
                    reason="another profile chosen")
def test_default_profile_is_derandomized_without_deadline_or_database() -> None:
    assert settings.get_current_profile_name() == "ci"
    profile = settings()  # the loaded profile's values
    assert profile.derandomize and profile.deadline is None and profile.database is None
    own = settings(max_examples=7)  # what a test's @settings creates: the profile fills the rest
    assert own.derandomize and own.deadline is None and own.max_examples == 7


@settings(max_examples=7)
@given(st.integers(min_value=0, max_value=10**9))
def test_seven_examples(n: int) -> None:
    log = os.environ.get("GAMENAV_EXAMPLE_LOG")  # set by the test below: one line per example run
    if log:
        with open(log, "a") as f:
            f.write(f"{n}\n")
    assert isinstance(n, int)


@pytest.mark.parametrize("how", [["--hypothesis-profile=nightly"], []])
def test_nightly_profile_multiplies_each_test_s_example_count(how: list[str], tmp_path: Path) -> None:
    log = tmp_path / "examples.txt"
    env = {**os.environ, "GAMENAV_HYPOTHESIS_PROFILE": "ci" if how else "nightly",
           "GAMENAV_EXAMPLE_LOG": str(log)}
    out = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *how,
         "tests/test_hypothesis_profiles.py::test_seven_examples"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stdout + out.stderr
    runs = log.read_text().split()
    assert len(set(runs)) == 70, f"{len(runs)} runs, {len(set(runs))} distinct examples"
