"""Adversarial review (third round) of the map and mesh file readers: every malformed file is a
MapFormatError naming its file and line."""

from __future__ import annotations

from pathlib import Path

import pytest

from gamenav import MapFormatError, NavMesh
from gamenav.io import read_map, read_mesh, read_mesh_scenarios, read_scenarios, write_scenarios


@pytest.mark.parametrize(("text", "line", "match"), [
    # mesh 2: a dart (reflex corner at vertex 3, ids as in the file)
    ("mesh\n2\n5 1\n0 0 1 0\n2 0 1 0\n2 2 1 0\n1 0.5 1 0\n0 2 1 0\n\n5 0 1 2 3 4 -1 -1 -1 -1 -1\n", 10,
     "polygon must be convex, got a reflex corner at vertex 3"),
    # mesh 3: a pentagram (left turns only, twice around), 1-based ids, after a non-traversable face
    ("mesh\n3\n6 2\n0 1\n0.588 -0.809\n-0.951 0.309\n0.951 0.309\n-0.588 -0.809\n5 5\n"
     "0 3 1 2 6 0 0 0\n1 5 1 2 3 4 5 0 0 0 0 0\n", 11, "polygon must be convex, got a ring that turns 2 times"),
    # clockwise is fine, a clockwise dart is not (its reflex corner named by its 1-based id)
    ("mesh\n3\n5 1\n0 0\n0 2\n1 0.5\n2 2\n2 0\n1 5 1 2 3 4 5 0 0 0 0 0\n", 9,
     "polygon must be convex, got a reflex corner at vertex 3"),
])
def test_non_convex_polygon_names_file_and_line(tmp_path: Path, text: str, line: int, match: str) -> None:
    # read_mesh took these, and NavMesh.from_mesh then refused them naming neither file nor line
    # ("polygon 0 must be convex": the index among traversable polygons, not the file's)
    path = tmp_path / "dart.mesh"
    path.write_text(text)
    with pytest.raises(MapFormatError, match=match) as info:
        read_mesh(path)
    assert (info.value.path, info.value.line) == (str(path), line)
    assert str(info.value).startswith(f"{path}:{line}: ")


def test_convex_polygons_in_either_orientation_still_read(tmp_path: Path) -> None:
    # a clockwise square with a 180-degree corner, and a non-traversable dart (not checked)
    path = tmp_path / "ok.mesh"
    path.write_text("mesh\n3\n9 2\n0 0\n0 1\n0 2\n2 2\n2 0\n5 0\n6 0\n6 1\n5.5 0.2\n"
                    "1 5 1 2 3 4 5 0 0 0 0 0\n0 4 6 7 8 9 0 0 0 0\n")
    data = read_mesh(path)
    assert [p.tolist() for p in data.polygons] == [[0, 1, 2, 3, 4]]
    assert NavMesh.from_mesh(*data).islands.tolist() == [0, 0, 0]


@pytest.mark.parametrize("text", ["", "\n \t\r\n", "\ufeff"])
def test_empty_scenario_file_is_refused_not_read_as_no_scenarios(tmp_path: Path, text: str) -> None:
    # read_scenarios returned [] for it: a truncated download checked nothing and "passed"
    path = tmp_path / "cut.scen"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(MapFormatError, match="empty file") as info:
        read_scenarios(path)
    assert info.value.path == str(path)


def test_scenario_file_of_no_scenarios_keeps_its_header(tmp_path: Path) -> None:
    path = tmp_path / "none.scen"
    write_scenarios(path, [])
    assert path.read_text() == "version 1\n"
    assert read_scenarios(path) == []


@pytest.mark.parametrize("size", ["-5 1", "0 238", "224 -0.0", "224 -1e-300"])
def test_mesh_scenario_map_size_must_be_positive(tmp_path: Path, size: str) -> None:
    # was read as any other (only checked to be finite), where read_scenarios refuses it
    path = tmp_path / "m.scen"
    path.write_text(f"version 1\n0\tm.mesh\t224\t238\t0\t0\t1\t1\t1.4\n0\tm.mesh\t{size}\t0\t0\t1\t1\t1.4\n")
    with pytest.raises(MapFormatError, match=f"map size must be positive, got {size.replace(' ', ' x ')}") as info:
        read_mesh_scenarios(path)
    assert (info.value.path, info.value.line) == (str(path), 3)


@pytest.mark.parametrize(("text", "line", "match"), [
    # a blank line inside the grid: was "expected 2 rows, found 3" at the last row (line 7)
    ("type octile\nheight 2\nwidth 2\nmap\n..\n\n..\n", 6, "row 1 has 0 characters, expected 2"),
    ("type octile\r\nheight 2\r\nwidth 2\r\nmap\r\n..\r\n  \r\n..\r\n", 6, "whitespace ' ' at column 1 of row 1"),
    # a file cut in the middle of a row: was "expected 3 rows, found 2"
    ("type octile\nheight 3\nwidth 4\nmap\n....\n..", 6, "row 1 has 2 characters, expected 4"),
])
def test_a_map_row_cut_or_blank_is_named_at_its_line(tmp_path: Path, text: str, line: int, match: str) -> None:
    path = tmp_path / "cut.map"
    path.write_bytes(text.encode("ascii"))
    with pytest.raises(MapFormatError, match=match) as info:
        read_map(path)
    assert (info.value.path, info.value.line) == (str(path), line)
