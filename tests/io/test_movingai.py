"""Moving AI .map / .scen readers and writers, and TileGrid.from_movingai, on the vendored data."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

import numpy as np
import pytest

import gamenav
from gamenav.io import Scenario, movingai, read_map, read_mesh, read_mesh_scenarios, read_scenarios, write_map, \
    write_scenarios


def test_read_vendored_maps(data_dir: Path) -> None:
    arena = read_map(data_dir / "movingai" / "arena.map")
    assert arena.shape == (49, 49) and arena.dtype == np.bool_
    assert not arena[0].any()  # the outer ring of arena is out of bounds ('@')
    den = read_map(data_dir / "movingai" / "den011d.map")
    assert den.shape == (167, 247)
    text = (data_dir / "movingai" / "den011d.map").read_text().splitlines()[4:]
    expected = np.array([[c in ".GS" for c in row] for row in text])
    np.testing.assert_array_equal(den, expected)


def test_read_vendored_scenarios(data_dir: Path) -> None:
    scenarios = read_scenarios(data_dir / "movingai" / "arena.map.scen")
    assert len(scenarios) == 160
    first = scenarios[0]
    assert isinstance(first, Scenario) and first.map_name.endswith("arena.map")
    assert (first.width, first.height) == (49, 49)
    grid = gamenav.TileGrid.from_movingai(data_dir / "movingai" / "arena.map")
    for s in scenarios:
        assert grid.is_passable(*s.start) and grid.is_passable(*s.goal)
        assert s.optimal_length >= 0
    assert max(s.bucket for s in scenarios) == scenarios[-1].bucket


def test_from_movingai_passes_keyword_arguments(data_dir: Path) -> None:
    grid = gamenav.TileGrid.from_movingai(data_dir / "movingai" / "arena.map", cell_size=0.5,
                                          y_up=True)
    assert grid.shape == (49, 49) and grid.cell_size == 0.5 and grid.y_up


def test_round_trips(tmp_path: Path, data_dir: Path) -> None:
    walkable = read_map(data_dir / "movingai" / "arena.map")
    write_map(tmp_path / "copy.map", walkable)
    np.testing.assert_array_equal(read_map(tmp_path / "copy.map"), walkable)
    scenarios = read_scenarios(data_dir / "movingai" / "arena.map.scen")
    write_scenarios(tmp_path / "copy.scen", scenarios)
    assert read_scenarios(tmp_path / "copy.scen") == scenarios
    with pytest.raises(gamenav.InvalidInputError, match=r"walkable must be 2-D \[y, x\], got shape \(3,\)"):
        write_map(tmp_path / "bad.map", np.ones(3, bool))


@pytest.mark.parametrize(("walkable", "message"), [
    (np.array([[np.nan, 0.0]]), r"walkable must be bool \(or 0/1 integers\), got dtype float64"),
    ([[2, 0]], r"walkable must hold only 0/1 \(or bool\) values"),
    ([[None, 1]], "got dtype object"),
    (np.array([["False", ""]]), "got dtype <U5"),
    ([[1], [1, 0]], "rows of equal length"),
], ids=["nan", "two", "none", "strings", "ragged"])
def test_write_map_takes_what_tilegrid_takes(tmp_path: Path, walkable: object, message: str) -> None:
    path = tmp_path / "out.map"  # NaN and 2 were written passable, None blocked, "False" a bare ValueError
    write_map(path, [[1, 0]])
    with pytest.raises(gamenav.InvalidInputError, match=message):
        write_map(path, walkable)
    assert read_map(path).tolist() == [[True, False]]  # left untouched


@pytest.mark.parametrize(("change", "message"), [
    (dict(map_name="my map.map"), r"scenarios\[1\]\.map_name must be ASCII without whitespace, got 'my map.map'"),
    (dict(map_name=""), "map_name must be ASCII without whitespace, got ''"),
    (dict(map_name="caf\u00e9.map"), "map_name must be ASCII without whitespace"),
    (dict(optimal_length=float("nan")), r"cannot write scenarios\[1\]: bad optimal length: .* got 'nan'"),
    (dict(optimal_length=-1.0), r"cannot write scenarios\[1\]: the optimal length must be >= 0, got -1.0"),
    (dict(start=(3, 0)), r"start \(3, 0\) lies outside the 3 x 2 map"),
    (dict(goal=(1.0, 1)), "expected integers, got '1.0'"),
    (dict(bucket=True), "expected integers, got 'True'"),
    # were an OverflowError, a TypeError, the length 1.0 and the map name "b'm.map'"
    (dict(optimal_length=10**400), r"cannot write scenarios\[1\]: bad optimal length: .* got 'inf'"),
    (dict(optimal_length=None), r"scenarios\[1\]\.optimal_length must be a finite number >= 0, got None"),
    (dict(optimal_length=True), r"optimal_length must be a finite number >= 0, got True"),
    (dict(map_name=b"m.map"), "map_name must be ASCII without whitespace, got b'm.map'"),
    # were a bare ValueError (int to str digit limit) and a TypeError (unpacking an int)
    (dict(bucket=10**5000), r"cannot write scenarios\[1\]: an integer field has more than \d+ digits"),
    (dict(start=5), r"scenarios\[1\]\.start and \.goal must be \(x, y\) cells, got int and tuple"),
])
def test_write_scenarios_refuses_what_it_could_not_read_back(tmp_path: Path, change: dict[str, object],
                                                             message: str) -> None:
    path = tmp_path / "out.scen"  # were written (an empty file for a non-ASCII name) and unreadable
    good = Scenario(0, "m.map", 3, 2, (0, 0), (2, 1), 2.5)
    write_scenarios(path, [good])
    with pytest.raises(gamenav.InvalidInputError, match=message):
        write_scenarios(path, [good, good._replace(**change)])
    assert read_scenarios(path) == [good]  # left untouched


@pytest.mark.parametrize(("scenarios", "message"), [
    ([(0, "m.map", 3, 2, (0, 0), (2, 1), 2.5)], r"scenarios\[0\] must be a Scenario, got tuple"),
    (Scenario(0, "m.map", 3, 2, (0, 0), (2, 1), 2.5), r"scenarios\[0\] must be a Scenario, got int"),
])
def test_write_scenarios_takes_scenarios(tmp_path: Path, scenarios: object, message: str) -> None:
    path = tmp_path / "out.scen"  # were AttributeErrors ('tuple' / 'int' object has no attribute 'map_name')
    with pytest.raises(gamenav.InvalidInputError, match=message):
        write_scenarios(path, scenarios)  # type: ignore[arg-type]
    assert not path.exists()


def test_terrain_letters(tmp_path: Path) -> None:
    path = tmp_path / "letters.map"
    path.write_text("type octile\nheight 1\nwidth 8\nmap\n.GS@OTW.\n")
    assert read_map(path).tolist() == [[True, True, True, False, False, False, False, True]]


@pytest.mark.parametrize(("text", "line", "message"), [
    ("type octile\nheight 2\nwidth 2\nmap\n..\n.x\n", 6, "unknown terrain 'x' at column 2 of row 1"),
    ("type octile\nheight 2\nwidth 2\nmap\n..\n...\n", 6, "row 1 has 3 characters, expected 2"),
    ("type octile\nheight 3\nwidth 2\nmap\n..\n..\n", 6, "expected 3 rows, found 2"),
    ("type octile\nheight 2\nwidth 2\n..\n..\n", 4, "expected a header line 'type octile', 'height H'"),
    ("type octile\nheight 2\nwidth 2\n", 3, "missing the 'map' line"),
    ("type octile\nwidth 2\nmap\n..\n", 3, "missing 'height' in the header"),
    ("type octile\nheight two\nwidth 2\nmap\n..\n", 2, "bad height: expected integers, got 'two'"),
    ("type octile\nheight 0\nwidth 2\nmap\n", 2, "height must be positive, got 0"),
    ("", None, "empty file"),
    ("\n  \n", None, "empty file"),
    ("type octile\nheight 2\n", 2, "missing the 'map' line"),
    ("type octile\nheight 2\nheight 2\nwidth 2\nmap\n..\n..\n", 3, "'height' appears twice"),
    ("type octile\nheight 1\nwidth 2\nmap\n..\n..\n", 6, "expected 1 rows, found 2"),
    ("type octile\nheight 1\nwidth 2\nmap\n.\t\n", 5, r"whitespace '\\t' at column 2 of row 0"),
    ("type octile\nheight 1\nwidth 2\nmap\n.. \n", 5, "whitespace ' ' at column 3 of row 0"),
    # a huge declared size is checked against the rows present, never allocated
    ("type octile\nheight 1\nwidth 1000000000000\nmap\n..\n", 5, "row 0 has 2 characters, expected 1000000000000"),
    ("type octile\nheight 1000000000000\nwidth 2\nmap\n..\n", 5, "expected 1000000000000 rows, found 1"),
    ("type octile\nheight 99999999999999999999999\nwidth 2\nmap\n..\n", 5, "expected 99999999999999999999999 rows"),
])
def test_map_errors_name_file_and_line(tmp_path: Path, text: str, line: int | None, message: str) -> None:
    path = tmp_path / "bad.map"
    path.write_text(text)
    with pytest.raises(gamenav.MapFormatError, match=message) as info:
        read_map(path)
    assert info.value.path == str(path) and info.value.line == line
    assert str(info.value).startswith(f"{path}:{line}:" if line else f"{path}: ")


@pytest.mark.parametrize(("reader", "text", "what"), [
    (read_map, "type octile\nheight {}\nwidth 2\nmap\n..\n", "height"),
    (read_scenarios, "version 1\n0\tm.map\t{}\t2\t0\t0\t1\t1\t1.5\n", "bucket, map size and cells"),
], ids=["map", "scen"])
def test_integers_beyond_the_text_limit_name_file_and_line(tmp_path: Path, reader, text: str,
                                                           what: str) -> None:
    path = tmp_path / "bad.txt"  # more than Python's 4300 digits: was a bare ValueError
    path.write_text(text.format("9" * 5000))
    with pytest.raises(gamenav.MapFormatError,
                       match=f"bad {what}: expected integers, got one with 5000 digits") as info:
        reader(path)
    assert info.value.line == 2


@pytest.mark.parametrize("newline", [b"\n", b"\r\n", b"\r"])
@pytest.mark.parametrize("reader", [read_map, read_scenarios])
def test_non_ascii_bytes_name_the_line(tmp_path: Path, reader, newline: bytes) -> None:
    path = tmp_path / "bad.txt"  # CR line ends named line 1 (lines were counted by LF)
    path.write_bytes(b"version 1\nheight 1\nwidth 1\nmap\n.\xc3\xa9\n".replace(b"\n", newline))
    with pytest.raises(gamenav.MapFormatError, match=r"bad\.txt:5: non-ASCII byte 0xc3 at column 2") as info:
        reader(path)
    assert info.value.line == 5


@pytest.mark.parametrize("reader", [read_map, read_scenarios])
def test_paths_must_be_file_names(tmp_path: Path, reader) -> None:
    with pytest.raises(gamenav.InvalidInputError, match="path must be a str or os.PathLike, got float"):
        reader(float("nan"))
    with pytest.raises(gamenav.InvalidInputError, match="path must be a valid file name"):
        reader("bad\0name.map")
    with pytest.raises(FileNotFoundError):
        reader(tmp_path / "missing.map")


class _BytesPath:
    def __fspath__(self) -> bytes:
        return b"out.map"


@pytest.mark.parametrize("call", [
    lambda path: read_map(path), lambda path: write_map(path, [[True]]),
    lambda path: write_scenarios(path, [Scenario(0, "m.map", 1, 1, (0, 0), (0, 0), 0.0)]),
], ids=["read", "write_map", "write_scenarios"])
def test_writers_check_paths_as_readers_do(call) -> None:
    with pytest.raises(gamenav.InvalidInputError, match="path must be a str or os.PathLike, got float"):
        call(1.5)  # the writers raised a bare TypeError
    with pytest.raises(gamenav.InvalidInputError, match="got _BytesPath giving bytes"):
        call(_BytesPath())  # so did the readers
    with pytest.raises(gamenav.InvalidInputError, match="path must be a valid file name"):
        call("bad\0name.map")  # the writers raised a bare ValueError


def test_crlf_cr_and_byte_order_mark_simply_work(tmp_path: Path) -> None:
    text = "type octile\nheight 2\nwidth 3\nmap\n.@.\n..@\n"
    expected = [[True, False, True], [True, True, False]]
    for name, data in [("crlf", text.replace("\n", "\r\n").encode()),
                       ("cr", text.replace("\n", "\r").encode()),
                       ("bom", b"\xef\xbb\xbf" + text.encode()),
                       ("trailing-blank-lines", (text + "\n\n").encode())]:
        path = tmp_path / f"{name}.map"
        path.write_bytes(data)
        assert read_map(path).tolist() == expected, name
    scen = tmp_path / "crlf.scen"
    scen.write_bytes(b"\xef\xbb\xbfversion 1\r\n0\tm.map\t3\t2\t0\t0\t2\t1\t2.5\r\n")
    assert read_scenarios(scen) == [Scenario(0, "m.map", 3, 2, (0, 0), (2, 1), 2.5)]


@pytest.mark.parametrize(("row", "message"), [
    ("0\tarena.map\t49\t49\t1\t2\t3\t4", "expected 9 fields, got 8"),
    ("0\tarena.map\t49\t49\t1\t2\tthree\t4\t5.0", "expected integers, got 'three'"),
    ("0\tarena.map\t49\t49\t1\t2\t3\t4\tfar", "bad optimal length: expected finite decimal numbers, got 'far'"),
    ("0\tarena.map\t49\t49\t1\t2\t3\t4\tnan", "expected finite decimal numbers, got 'nan'"),
    ("0\tarena.map\t49\t49\t1\t2\t3\t4\tinf", "expected finite decimal numbers, got 'inf'"),
    ("0\tarena.map\t49\t49\t1\t2\t3\t4\t1e999", "beyond the float range"),
    ("0\tarena.map\t49\t49\t1\t2\t3\t4\t-2.5", "optimal length must be >= 0, got -2.5"),
    ("0\tarena.map\t49\t49\t1\t2\t3\t4_0\t5.0", "expected integers, got '4_0'"),
    ("0\tarena.map\t0\t49\t0\t0\t0\t0\t5.0", "map size must be positive, got 0 x 49"),
    ("0\tarena.map\t49\t49\t-1\t2\t3\t4\t5.0", r"start \(-1, 2\) lies outside the 49 x 49 map"),
    ("0\tarena.map\t49\t49\t1\t2\t3\t49\t5.0", r"goal \(3, 49\) lies outside the 49 x 49 map"),
])
def test_scenario_errors_name_file_and_line(tmp_path: Path, row: str, message: str) -> None:
    path = tmp_path / "bad.scen"
    path.write_text(f"version 1\n0\tarena.map\t49\t49\t1\t2\t3\t4\t5.5\n{row}\n")
    with pytest.raises(gamenav.MapFormatError, match=message) as info:
        read_scenarios(path)
    assert info.value.line == 3


def test_legacy_space_separated_scenarios(tmp_path: Path) -> None:
    path = tmp_path / "old.scen"
    path.write_text("version 1.0\n3 maps/bgmaps/AR0011SR.map 512 512 10 20 30 40 50.25\n\n")
    (s,) = read_scenarios(path)
    assert s == Scenario(3, "maps/bgmaps/AR0011SR.map", 512, 512, (10, 20), (30, 40), 50.25)


def test_blank_lines_and_indentation_before_the_scenario_header(tmp_path: Path) -> None:
    path = tmp_path / "indented.scen"
    path.write_bytes(b"\r\n  \r\n\tversion 1\r\n\r\n0\tm.map\t3\t2\t0\t0\t2\t1\t2.5\r\n")
    assert read_scenarios(path) == [Scenario(0, "m.map", 3, 2, (0, 0), (2, 1), 2.5)]


def _feed(fifo: Path, data: bytes, stop: threading.Event) -> None:
    """Write ``data`` into ``fifo`` for the first reader that opens it (until ``stop``)."""
    while not stop.is_set():
        try:
            fd = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
        except OSError:  # (ENXIO: no reader yet)
            time.sleep(0.005)
            continue
        try:
            os.write(fd, data)
        except OSError:  # (the reader left)
            pass
        finally:
            os.close(fd)
        return


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this platform")
def test_a_fifo_is_refused_without_waiting_for_a_writer(tmp_path: Path) -> None:
    """A FIFO (or a device: /dev/zero) never ends: read_map waited in open() for a writer, or read
    /dev/zero until the memory ran out. A writer feeds this one, so the old code read its map."""
    fifo = tmp_path / "level.map"
    os.mkfifo(fifo)
    stop = threading.Event()
    feeder = threading.Thread(target=_feed, args=(fifo, b"type octile\nheight 1\nwidth 1\nmap\n.\n", stop))
    feeder.start()
    try:
        with pytest.raises(gamenav.MapFormatError, match=r"level\.map: expected a regular file, got a FIFO"):
            read_map(fifo)
    finally:
        stop.set()
        feeder.join()


@pytest.mark.skipif(not os.path.exists("/dev/null"), reason="no /dev/null")
@pytest.mark.parametrize("reader", [read_map, read_scenarios, read_mesh, read_mesh_scenarios])
def test_devices_are_refused(reader) -> None:
    with pytest.raises(gamenav.MapFormatError, match=r"/dev/null: expected a regular file, got a device"):
        reader("/dev/null")  # (read_scenarios returned [])


def test_a_file_beyond_the_format_limit_is_refused_before_reading(tmp_path: Path, monkeypatch) -> None:
    path = tmp_path / "big.map"
    path.write_text("type octile\nheight 1\nwidth 3\nmap\n...\n")
    monkeypatch.setattr(movingai, "MAX_MAP_BYTES", 20)
    with pytest.raises(gamenav.MapFormatError, match=r"big\.map: the file is larger than the 20 bytes"):
        read_map(path)
