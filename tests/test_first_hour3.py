"""Adversarial review (third round) of a new user's first hour: the README's examples, its sample
data, file readers, engine adapters and the mistakes new users make. Each mistake is an error of
gamenav's own classes saying what was expected and what was received."""

from __future__ import annotations

from pathlib import Path

import pytest

from gamenav import MapFormatError
from gamenav.io import read_map


@pytest.mark.parametrize(("row", "line", "match"), [
    ("..@ ", 5, "whitespace ' ' at column 4 of row 0"),  # an editor's trailing space
    (".t.", 5, "unknown terrain 't' at column 2 of row 0"),  # (lower case: not a tree)
])
def test_a_map_row_with_a_stray_character_names_it_its_column_and_the_terrain_expected(
        tmp_path: Path, row: str, line: int, match: str) -> None:
    # was "unknown terrain [' '] in row 0": neither where in the row nor what a row may hold
    path = tmp_path / "level.map"
    path.write_text(f"type octile\nheight 2\nwidth 3\nmap\n{row}\n.@.\n")
    with pytest.raises(MapFormatError, match=match) as info:
        read_map(path)
    assert (info.value.path, info.value.line) == (str(path), line)
    assert "(expected only the terrain '.', 'G', 'S' (passable) and '@', 'O', 'T', 'W' (blocked))" in str(info.value)
