"""The fuzz suite's size: at least 10,000 generated inputs per full run (collected last)."""

from __future__ import annotations

import pytest

from tests.fuzz._harness import SCALE
from tests.fuzz.conftest import RAN, TOTAL

MINIMUM = 10_000


def test_fuzz_suite_generated_enough_inputs(request: pytest.FixtureRequest) -> None:
    fuzz_tests = {item.nodeid for item in request.session.items
                  if "run_fuzz" in getattr(item, "fixturenames", ())}
    if not fuzz_tests or fuzz_tests - RAN:
        pytest.skip("only part of the fuzz suite ran in this session")
    print(f"fuzz inputs generated: {TOTAL[0]} in {len(RAN)} tests")
    assert TOTAL[0] >= MINIMUM * min(SCALE, 1.0), (
        f"the fuzz suite generated {TOTAL[0]} inputs, expected at least {MINIMUM}")
