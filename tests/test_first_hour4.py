"""Adversarial review (fourth round) of a new user's first hour: the mistakes new users make with map files.
Each gives an error of gamenav's own classes saying what was expected and what was received, never a silent
wrong answer."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import gamenav
from gamenav import MapFormatError
from gamenav.io import read_map


@pytest.mark.parametrize("kind", ["octile-corner", "raw", "hex", "Octile"])
def test_a_map_of_another_type_than_octile_is_refused_at_its_type_line(tmp_path: Path, kind: str) -> None:
    # any type was read as an octile grid without a word (HOG2, the format's reference reader, lays out
    # 'octile-corner' and 'raw' maps otherwise and refuses the others): a silent wrong grid
    path = tmp_path / "level.map"
    path.write_text(f"height 2\ntype {kind}\nwidth 3\nmap\n...\n.@.\n")
    for read in (read_map, gamenav.TileGrid.from_movingai):
        with pytest.raises(MapFormatError, match=f"the map type must be 'octile' \\(gamenav reads only octile "
                                                 f"grids\\), got '{kind}'") as info:
            read(path)
        assert (info.value.path, info.value.line) == (str(path), 2)


def test_a_map_without_a_type_line_is_still_read_as_octile(tmp_path: Path) -> None:
    path = tmp_path / "level.map"
    path.write_text("height 2\nwidth 3\nmap\n...\n.@.\n")
    assert np.array_equal(read_map(path), [[True, True, True], [True, False, True]])
