"""pyproject.toml: one version source, package data that exists; .gitignore covers the README's outputs."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import gamenav

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    tomllib = pytest.importorskip("tomli")

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def test_the_version_has_one_source_gamenav_dunder_version() -> None:
    project = PYPROJECT["project"]
    assert "version" not in project and "version" in project["dynamic"]
    assert PYPROJECT["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "gamenav.__version__"}
    assert re.fullmatch(r"\d+\.\d+\.\d+", gamenav.__version__)


@pytest.mark.parametrize("package, patterns", sorted(PYPROJECT["tool"]["setuptools"]["package-data"].items()))
def test_every_package_data_pattern_matches_files(package: str, patterns: list[str]) -> None:
    folder = ROOT.joinpath(*package.split("."))
    assert (folder / "__init__.py").is_file(), f"package-data names {package!r}, which is not a package"
    for pattern in patterns:
        assert list(folder.glob(pattern)), f"package-data {package!r}: {pattern!r} matches no file"


def test_package_data_ships_every_sample_file() -> None:
    patterns = PYPROJECT["tool"]["setuptools"]["package-data"]["gamenav.data"]
    for name in gamenav.data.names():
        assert any(Path(name).match(p) for p in patterns), f"{name} would be left out of the wheel"


def test_gitignore_covers_the_files_the_readme_commands_write() -> None:
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    written = set(re.findall(r"--(?:screenshot|stats|plot) (\S+?\.(?:png|json))", readme))
    assert {"out.png", "out.json", "budgets.png"} <= written
    ignored = subprocess.run(["git", "check-ignore", *sorted(written)], cwd=ROOT, capture_output=True,
                             text=True, check=False).stdout.split()
    assert sorted(ignored) == sorted(written)
