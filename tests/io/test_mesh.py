"""Readers for the "mesh 2" / "mesh 3" navmesh formats and their scenarios (errors name file:line)."""

from __future__ import annotations

import copy
import pickle
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

import gamenav.errors
from gamenav import MapFormatError, NavMesh
from gamenav.io import read_mesh, read_mesh_scenarios


def test_iron_harvest_mesh3_keeps_traversable_faces_and_converts_ids(data_dir: Path) -> None:
    data = read_mesh(data_dir / "meshes/iron-harvest/scene_mp_2p_01.mesh")
    assert data.vertices.shape == (4150, 2)
    assert len(data.polygons) == 3860  # SOURCES.md: 3860 of 8294 faces are traversable
    ids = np.concatenate(data.polygons)
    assert ids.min() >= 0 and ids.max() <= 4149
    assert np.allclose(data.vertices.min(axis=0), (-112.453, -117.9202))
    # the first traversable face, 1-based in the file, is 0-based here
    line = next(ln for ln in (data_dir / "meshes/iron-harvest/scene_mp_2p_01.mesh").read_text()
                .splitlines()[3 + 4150:] if ln.startswith("1 "))
    first = [int(v) - 1 for v in line.split()[2:5]]
    assert data.polygons[0].tolist() == first


def test_polyanya_mesh2_with_blank_lines_and_tabs(data_dir: Path) -> None:
    data = read_mesh(data_dir / "meshes/polyanya/bad-collinear.mesh")
    assert data.vertices.shape == (16, 2)
    assert [len(p) for p in data.polygons] == [4, 6, 4, 6, 4, 4]
    assert data.polygons[1].tolist() == [2, 3, 4, 5, 1, 0]


def test_scenarios_real_coordinates_and_no_path_marker(data_dir: Path) -> None:
    scen = read_mesh_scenarios(data_dir / "meshes/polyanya/bad-ambig.scen")
    assert [s.cost for s in scen] == [4.0, -1.0, -1.0, -1.0]
    assert scen[0].start == (0.99, 1.01) and scen[0].goal == (1.01, 0.99)
    ih = read_mesh_scenarios(data_dir / "meshes/iron-harvest/scene_mp_2p_01.mesh.scen")
    assert len(ih) == 2000 and ih[0].cost == pytest.approx(0.1767766952966)


@pytest.mark.parametrize(("text", "line", "match"), [
    ("mash\n2\n0 0\n", 1, "expected the header line 'mesh'"),
    ("mesh\n2\n", 1, "expected the header line 'mesh' followed by a version and counts"),
    ("mesh\n4\n0 0\n", 2, "expected format version 2 or 3, got '4'"),
    ("mesh\n2\n3 x\n", 3, "bad vertex and polygon counts: expected integers, got 'x'"),
    ("mesh\n2\nnan 1\n", 3, "expected integers, got 'nan'"),
    ("mesh\n3\ninf inf\n", 3, "expected integers, got 'inf'"),
    ("mesh\n2\n3.0 1\n", 3, "expected integers, got '3.0'"),
    ("mesh\n2\n-3 1\n", 3, "expected two counts 'V P' >= 0"),
    # huge declared counts are compared with the lines present, never allocated
    ("mesh\n2\n1000000000000 1000000000000\n0 0 0\n", 4,
     "expected 1000000000000 vertex and 1000000000000 polygon lines"),
    ("mesh\n2\n99999999999999999999999 0\n0 0 0\n", 4, "expected 99999999999999999999999 vertex"),
    ("mesh\n3\n3 1\nnan 0\n1 0\n0 1\n1 3 1 2 3 0 0 0\n", 4,
     "bad vertex coordinates: expected finite decimal numbers, got 'nan'"),
    ("mesh\n3\n3 1\n1e400 0\n1 0\n0 1\n1 3 1 2 3 0 0 0\n", 4, "beyond the float range"),
    ("mesh\n2\n3 1\n0 0 nan 0\n1 0 1 0\n0 1 1 0\n3 0 1 2 -1 -1 -1\n", 4, "expected integers, got 'nan'"),
    ("mesh\n2\n3 1\n0 0 inf 0\n1 0 1 0\n0 1 1 0\n3 0 1 2 -1 -1 -1\n", 4, "expected integers, got 'inf'"),
    ("mesh\n2\n3 1\n0 0 -2\n1 0 1 0\n0 1 1 0\n3 0 1 2 -1 -1 -1\n", 4, "expected 'x y n p_1..p_n'"),
    ("mesh\n2\n3 1\n0 0 1 5\n1 0 1 0\n0 1 1 0\n3 0 1 2 -1 -1 -1\n", 4,
     r"polygon ids must be -1 \(outside\) or in 0\.\.0, got \[5\]"),
    ("mesh\n2\n3 1\n0 0 1 0\n1 0 1 0\n0 1 1 0\n3 0 1 2 -1 -1 7\n", 7,
     r"polygon ids must be -1 \(outside\) or in 0\.\.0, got \[-1, -1, 7\]"),
    ("mesh\n2\n3 1\n0 0 1 0\n1 0 1 0\n0 1 1 0\n3 0 1 -3 -1 -1 -1\n", 7,
     r"vertex ids must be in 0\.\.2, got \[0, 1, -3\]"),
    ("mesh\n2\n3 1\n0 0 1 0\n1 0 1 0\n0 1 1 0\n3 0 1 2.5 -1 -1 -1\n", 7,
     "bad polygon fields: expected integers, got '2.5'"),
    ("mesh\n3\n3 1\n0 0\n1 0\n0 1\n1 3 1 2 4 0 0 0\n", 7, r"vertex ids must be in 1\.\.3, got \[1, 2, 4\]"),
    ("mesh\n3\n3 1\n0 0\n1 0\n0 1\n2 3 1 2 3 0 0 0\n", 7, "traversable flag 0 or 1"),
    ("mesh\n3\n3 1\n0 0\n1 0 5\n0 1\n1 3 1 2 3 0 0 0\n", 5, "expected 'x y'"),
    ("mesh\n2\n3 1\n0 0 1 0\n1 0 1 0\n0 1 1 0\n3 0 1 2 -1 -1\n", 7, "n >= 3"),
    ("mesh\n2\n3 1\n0 0 2 0\n1 0 1 0\n0 1 1 0\n3 0 1 2 -1 -1 -1\n", 4, "expected 'x y n p_1..p_n'"),
    ("mesh\n2\n3 2\n0 0 1 0\n1 0 1 0\n0 1 1 0\n3 0 1 2 -1 -1 -1\n", 7, "expected 3 vertex and 2 polygon lines"),
    # what NavMesh.from_mesh refused naming no file (range) or dropped silently (repeated corners)
    ("mesh\n2\n3 1\n1e300 0 1 0\n1 0 1 0\n0 1 1 0\n3 0 1 2 -1 -1 -1\n", 4,
     r"vertex coordinates must lie in \[-1e\+15, 1e\+15\], got '1e300 0'"),
    ("mesh\n3\n3 1\n0 0\n1 -2e15\n0 1\n1 3 1 2 3 0 0 0\n", 5, r"must lie in \[-1e\+15, 1e\+15\], got '1 -2e15'"),
    ("mesh\n2\n3 1\n0 0 1 0\n1 0 1 0\n0 1 1 0\n3 0 0 0 -1 -1 -1\n", 7, r"polygon repeats a vertex id: \[0, 0, 0\]"),
    ("mesh\n3\n3 2\n0 0\n1 0\n0 1\n1 3 1 2 3 0 0 0\n0 3 1 1 2 0 0 0\n", 8,
     r"polygon repeats a vertex id: \[1, 1, 2\]"),  # (not traversable, still malformed; the file's ids)
    ("mesh\n2\n4 1\n0 0 1 0\n1 0 1 0\n0 1 1 0\n-0.0 0 0\n4 0 1 2 3 -1 -1 -1 -1\n", 8,
     r"polygon repeats a point under vertex ids 0 and 3 \(one vertex to a NavMesh\): \[0, 1, 2, 3\]"),
])
def test_mesh_errors_name_file_and_line(tmp_path: Path, text: str, line: int, match: str) -> None:
    path = tmp_path / "bad.mesh"
    path.write_text(text)
    with pytest.raises(MapFormatError, match=match) as info:
        read_mesh(path)
    assert info.value.line == line
    assert str(info.value).startswith(f"{path}:{line}: ")


def test_zero_area_polygon_with_distinct_corners_is_read_and_dropped_by_from_mesh(tmp_path: Path) -> None:
    path = tmp_path / "flat.mesh"  # (all on a line: covers nothing, as rounded coordinates leave slivers)
    path.write_text("mesh\n2\n4 2\n0 0 2 0 1\n1 0 2 0 1\n0 1 1 0\n2 0 1 1\n3 0 1 2 -1 1 -1\n3 0 3 1 -1 -1 0\n")
    data = read_mesh(path)
    assert [p.tolist() for p in data.polygons] == [[0, 1, 2], [0, 3, 1]]
    assert NavMesh.from_mesh(*data).triangles.tolist() == [[0, 1, 2]]


def test_scenario_errors_name_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.scen"
    path.write_text("version 1\n0\tm.mesh\t1\t1\t0\t0\t1\t1\t1.4\n0 m.mesh 1 1 0 0 1\n")
    with pytest.raises(MapFormatError, match=r"bad\.scen:3: expected 9 columns"):
        read_mesh_scenarios(path)
    path.write_text("0 m.mesh 1 1 0 0 1 1 1.4\n")
    with pytest.raises(MapFormatError, match=r"bad\.scen:1: expected a 'version' header"):
        read_mesh_scenarios(path)
    path.write_text("version 1\n0 m.mesh 1 1 0 zero 1 1 1.4\n")
    with pytest.raises(MapFormatError, match=r"bad\.scen:2: bad coordinates and cost: expected finite "
                       r"decimal numbers, got 'zero'"):
        read_mesh_scenarios(path)
    path.write_text("version 1\n0 m.mesh 1 1 0 0 1 1 1.4\n0 m.mesh wide 1 0 0 1 1 1.4\n")  # was accepted
    with pytest.raises(MapFormatError, match=r"bad\.scen:3: bad map width and height: expected finite "
                       r"decimal numbers, got 'wide'"):
        read_mesh_scenarios(path)
    path.write_text("version 1\n0 m.mesh 1 1 0 0 1 1 nan\n")
    with pytest.raises(MapFormatError, match=r"bad\.scen:2: .* got 'nan'"):
        read_mesh_scenarios(path)
    path.write_text("version 1\n0 m.mesh 1 1 0 0 1 1 -2\n")
    with pytest.raises(MapFormatError, match=r"bad\.scen:2: cost must be >= 0 or -1 \(no path\), got -2"):
        read_mesh_scenarios(path)
    path.write_text("version 1\n0 m.mesh 1 1 0 0 1 1 1.4\n0 m.mesh 1 1 1e300 0 1 1 -1\n")  # find_path refused it
    with pytest.raises(MapFormatError, match=r"bad\.scen:3: start and goal coordinates must lie in "
                       r"\[-1e\+15, 1e\+15\], got '1e300 0 1 1'"):
        read_mesh_scenarios(path)


def test_empty_file_and_non_ascii_bytes_name_the_problem(tmp_path: Path) -> None:
    path = tmp_path / "bad.mesh"
    path.write_text("")
    with pytest.raises(MapFormatError, match=r"bad\.mesh: expected the header line 'mesh'") as info:
        read_mesh(path)
    assert info.value.line is None
    path.write_bytes(b"mesh\n2\n3 1\n0 0 1 0\n1 0 1 0\n0 1 1 0\xff\n3 0 1 2 -1 -1 -1\n")
    with pytest.raises(MapFormatError, match=r"bad\.mesh:6: non-ASCII byte 0xff at column 8"):
        read_mesh(path)
    path.write_bytes(b"version 1\n0 m.mesh 1 1 0 0 1 1 1.4 \xe2\x82\xac\n")
    with pytest.raises(MapFormatError, match=r"bad\.mesh:2: non-ASCII byte 0xe2"):
        read_mesh_scenarios(path)


def test_crlf_and_byte_order_mark_simply_work(tmp_path: Path) -> None:
    text = "mesh\n2\n3 1\n0 0 1 0\n1 0 1 0\n0 1 1 0\n3 0 1 2 -1 -1 -1\n"
    path = tmp_path / "crlf.mesh"
    path.write_bytes(b"\xef\xbb\xbf" + text.replace("\n", "\r\n").encode())
    data = read_mesh(path)
    assert data.vertices.tolist() == [[0, 0], [1, 0], [0, 1]]
    assert [p.tolist() for p in data.polygons] == [[0, 1, 2]]


@pytest.mark.parametrize("clone", [copy.copy, copy.deepcopy, lambda e: pickle.loads(pickle.dumps(e))])
def test_errors_keep_message_and_attributes_through_pickle_and_copy(
        tmp_path: Path, clone: Callable[[BaseException], BaseException]) -> None:
    path = tmp_path / "bad.mesh"  # (a process pool pickles the error of a worker's read)
    path.write_text("mesh\n2\n3 x\n")
    with pytest.raises(MapFormatError) as info:
        read_mesh(path)
    errors = [info.value, *(getattr(gamenav.errors, name)("bad row") for name in gamenav.errors.__all__)]
    for error in errors:
        copied = clone(error)  # MapFormatError's was '<text>: .../bad.mesh:3: bad ...'
        assert type(copied) is type(error)
        assert str(copied) == str(error) and copied.args == error.args
        assert vars(copied) == vars(error)
    assert str(clone(info.value)).startswith(f"{path}:3: bad vertex and polygon counts")
