"""The kernels' cache prefetch hint (:mod:`gamenav._kernels.prefetch`): it compiles for the
arrays the kernels give it, emits a real prefetch instruction, and changes no result (indices
past either end are clamped, an empty array is skipped)."""

from __future__ import annotations

import platform

import numpy as np
from numba import njit

from gamenav._kernels.prefetch import prefetch


@njit(nogil=True)
def _hinted_sum(values, rows, indices):  # type: ignore[no-untyped-def]
    total = 0
    for i in indices:
        prefetch(values, i)
        prefetch(rows, i)
        prefetch(values[:0], i)
    for v in values:
        total += v
    return total + rows.sum()


def test_prefetch_changes_no_result_at_any_index() -> None:
    values = np.arange(1000, dtype=np.int16)
    rows = np.arange(4000, dtype=np.int64).reshape(1000, 4)
    indices = np.array([-2**62, -7, 0, 1, 999, 1000, 10**9, 2**62], dtype=np.int64)
    assert _hinted_sum(values, rows, indices) == int(values.sum()) + int(rows.sum())


def test_prefetch_emits_a_prefetch_instruction() -> None:
    values = np.arange(10, dtype=np.uint8)
    rows = np.zeros((3, 4), dtype=np.int32)
    _hinted_sum(values, rows, np.zeros(1, dtype=np.int64))
    asm = "\n".join(_hinted_sum.inspect_asm().values()).lower()
    if platform.machine().lower() in ("x86_64", "amd64"):
        assert "prefetcht0" in asm
    else:  # ARM64: prfm; other targets may have none (a hint, not a contract)
        assert "prfm" in asm or platform.machine().lower() not in ("arm64", "aarch64")
