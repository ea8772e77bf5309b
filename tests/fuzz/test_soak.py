"""A short run of benchmarks/soak.py (3,000 edits): no mismatch between any answer and a fresh search."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_quick_soak_has_no_mismatch() -> None:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])}
    run = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "soak.py"), "--quick"],
                         capture_output=True, text=True, timeout=300, env=env, check=False)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "| mismatches" in run.stdout and "| 0 " in run.stdout.split("| mismatches")[1].split("\n")[0]
