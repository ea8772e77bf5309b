"""File readers on mutated real files, and the engine adapters' grid builders.

Real files from tests/data get byte flips, truncations, insertions (non-ASCII, NUL, huge
numbers, NaN), duplicated or dropped lines and huge declared sizes. Whatever a reader accepts
must also build a TileGrid / NavMesh or fail with a GamenavError.
"""

from __future__ import annotations

import math
import os
import re
import tempfile
from pathlib import Path
from typing import Any

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

import gamenav
from gamenav.io import read_map, read_mesh, read_mesh_scenarios, read_scenarios
from tests.fuzz._harness import FuzzFailure, Reporter, attempt, fuzz_settings, raised
from tests.fuzz.conftest import Runner
from tests.fuzz.strategies import hostile, hostile_float, hostile_point

DATA = Path(__file__).resolve().parents[1] / "data"
_FILES = {
    "map": ["movingai/arena.map"],
    "scen": ["movingai/arena.map.scen"],
    "mesh": ["meshes/polyanya/square.mesh", "meshes/polyanya/bad-ambig.mesh",
             "meshes/polyanya/bad-collinear2-rot45.mesh", "meshes/polyanya/hard.mesh",
             "meshes/polyanya/arena-merged.mesh"],
    "mesh_scen": ["meshes/polyanya/square.scen", "meshes/polyanya/bad-ambig.scen",
                  "meshes/polyanya/arena.scen"],
}
_TOKENS = [b"nan", b"inf", b"-inf", b"-1", b"0", b"1e400", b"99999999999999999999",
           b"1000000000", b"4000000000", b"2147483648", b"-0", b"3.5", b"0x10", b"\xc3\xa9",
           b"\xff\xfe", b"\x00", b"\t", b"\r", b"\r\n", b" ", b"mesh", b"version 1", b"@", b"."]


@st.composite
def mutations(draw: st.DrawFn) -> list[tuple[str, float, bytes]]:
    """A short list of edits ``(kind, where in the file 0..1, payload)``."""
    kind = st.sampled_from(["flip", "truncate", "insert", "replace_number", "dup_line",
                            "drop_line", "header_size"])
    payload = st.one_of(st.sampled_from(_TOKENS), st.binary(min_size=1, max_size=3))
    return draw(st.lists(st.tuples(kind, st.floats(0, 1), payload), min_size=1, max_size=3))


def mutate(text: bytes, edits: list[tuple[str, float, bytes]]) -> bytes:
    """Apply ``edits`` to a file's bytes."""
    for kind, where, payload in edits:
        i = min(int(where * len(text)), max(0, len(text) - 1))
        if kind == "flip" and text:
            text = text[:i] + bytes([text[i] ^ (payload[0] | 1)]) + text[i + 1:]
        elif kind == "truncate":
            text = text[:i]
        elif kind == "insert":
            text = text[:i] + payload + text[i:]
        elif kind in ("dup_line", "drop_line"):
            lines = text.split(b"\n")
            k = min(int(where * len(lines)), len(lines) - 1)
            lines[k:k + 1] = [lines[k]] * (2 if kind == "dup_line" else 0)
            text = b"\n".join(lines)
        else:
            numbers = list(re.finditer(rb"-?\d+(\.\d+)?", text))
            if numbers:
                limit = min(3, len(numbers)) if kind == "header_size" else len(numbers)
                m = numbers[min(int(where * limit), limit - 1)]
                if kind == "header_size":
                    payload = draw_size(payload)
                text = text[:m.start()] + payload + text[m.end():]
    return text


def draw_size(payload: bytes) -> bytes:
    """A huge or odd declared size chosen by the payload's first byte."""
    sizes = [b"1000000000", b"4294967296", b"99999999999999999999", b"0", b"-5", b"nan", b"1e9",
             b"2147483647", b"100000"]
    return sizes[payload[0] % len(sizes)]


def _reader_test(rep: Reporter, kind: str, examples: int) -> None:
    sources = {name: (DATA / name).read_bytes() for name in _FILES[kind]}
    folder = tempfile.mkdtemp(prefix="gamenav-fuzz-")
    path = os.path.join(folder, "mutated." + kind.replace("_", "."))

    @fuzz_settings(examples)
    @given(name=st.sampled_from(sorted(sources)), edits=mutations())
    def prop(name: str, edits: list[tuple[str, float, bytes]]) -> None:
        data = mutate(sources[name], edits)
        rep.input(f"read {kind}", source=name, edits=edits)
        with open(path, "wb") as f:
            f.write(data)
        if kind == "map":
            walkable = attempt(read_map, path)
            if not raised(walkable):
                attempt(gamenav.TileGrid, walkable)
                attempt(gamenav.TileGrid.from_movingai, path)
        elif kind == "scen":
            attempt(read_scenarios, path)
        elif kind == "mesh":
            mesh_data = attempt(read_mesh, path)
            if not raised(mesh_data):
                if not np.isfinite(mesh_data.vertices).all():
                    raise FuzzFailure("read_mesh returned non-finite vertices")
                mesh = attempt(gamenav.NavMesh.from_mesh, *mesh_data)
                if not raised(mesh):
                    centre = mesh.vertices[mesh.triangles[0]].mean(axis=0)
                    attempt(gamenav.find_path, mesh, centre, mesh.vertices[-1], clamp=True, exact=True)
        else:
            scenarios = attempt(read_mesh_scenarios, path)
            if not raised(scenarios):
                for s in scenarios:
                    if not (all(math.isfinite(v) for v in (*s.start, *s.goal))):
                        raise FuzzFailure(f"read_mesh_scenarios returned a non-finite point: {s}")
    prop()


def test_read_map_mutated(run_fuzz: Runner) -> None:
    run_fuzz(lambda rep: _reader_test(rep, "map", 500))


def test_read_scenarios_mutated(run_fuzz: Runner) -> None:
    run_fuzz(lambda rep: _reader_test(rep, "scen", 300))


def test_read_mesh_mutated(run_fuzz: Runner) -> None:
    run_fuzz(lambda rep: _reader_test(rep, "mesh", 500))


def test_read_mesh_scenarios_mutated(run_fuzz: Runner) -> None:
    run_fuzz(lambda rep: _reader_test(rep, "mesh_scen", 300))


def test_readers_hostile_paths(run_fuzz: Runner) -> None:
    """Paths that are not files: missing, a folder, empty, hostile objects."""
    def body(rep: Reporter) -> None:
        folder = tempfile.mkdtemp(prefix="gamenav-fuzz-")
        empty = os.path.join(folder, "empty")
        open(empty, "wb").close()

        @fuzz_settings(100)
        @given(reader=st.sampled_from([read_map, read_scenarios, read_mesh, read_mesh_scenarios]),
               path=st.one_of(st.sampled_from([empty, folder, os.path.join(folder, "missing.map")]),
                              hostile()))
        def prop(reader: Any, path: Any) -> None:
            rep.input(reader.__name__, path=path)
            try:
                reader(path)
            except (gamenav.GamenavError, OSError):
                pass  # a missing file or a folder: the OS's own error is fine
            except Exception as exc:
                raise FuzzFailure(f"{reader.__name__}({path!r}) raised {type(exc).__name__}: {exc}") from exc
        prop()
    run_fuzz(body)


def test_pygame_grid_builders(run_fuzz: Runner) -> None:
    def body(rep: Reporter) -> None:
        import pygame

        from gamenav.adapters.pygame import grid_from_mask, grid_from_rects

        rect = st.one_of(st.tuples(*[st.floats(-50, 150)] * 4), st.tuples(*[hostile_float()] * 4),
                         st.just(pygame.Rect(10, 10, 20, 5)), hostile())
        size = st.one_of(st.tuples(st.floats(1, 200), st.floats(1, 200)), hostile_point(),
                         st.just((1e12, 1e12)), st.just((1e30, 1.0)))

        @fuzz_settings(500)
        @given(which=st.sampled_from(["rects", "mask"]), rects=st.lists(rect, max_size=4),
               size=size, cell_size=st.one_of(st.sampled_from([1, 8, 10.0, 0.001]), hostile_float()),
               origin=st.one_of(st.just((0, 0)), hostile_point()),
               mask_size=st.tuples(st.integers(0, 40), st.integers(0, 40)),
               threshold=st.one_of(st.none(), st.floats(0, 1), hostile()), seed=st.integers(0, 99))
        def prop(which: str, rects: list[Any], size: Any, cell_size: Any, origin: Any,
                 mask_size: tuple[int, int], threshold: Any, seed: int) -> None:
            if which == "rects":
                rep.input("grid_from_rects", rects=rects, size=size, cell_size=cell_size, origin=origin)
                attempt(grid_from_rects, rects, size=size, cell_size=cell_size, origin=origin)
            else:
                rep.input("grid_from_mask", mask_size=mask_size, cell_size=cell_size,
                          threshold=threshold, origin=origin, seed=seed)
                mask = pygame.mask.Mask(mask_size)
                rng = np.random.default_rng(seed)
                for x, y in rng.integers(0, max(1, min(mask_size)), size=(10, 2)):
                    if x < mask_size[0] and y < mask_size[1]:
                        mask.set_at((int(x), int(y)))
                attempt(grid_from_mask, mask, cell_size=cell_size, threshold=threshold, origin=origin)
        prop()
    run_fuzz(body)


def test_arcade_grid_builders(run_fuzz: Runner) -> None:
    def body(rep: Reporter) -> None:
        os.environ.setdefault("ARCADE_HEADLESS", "1")
        import arcade

        from gamenav.adapters.arcade import grid_from_sprites, grid_from_tilemap

        tile_map = arcade.load_tilemap(DATA / "tiled" / "tiny.json")
        layer: Any = next(layer for layer in tile_map.tiled_map.layers if layer.name == "walls")
        original = [list(row) for row in layer.data]

        @fuzz_settings(400)
        @given(which=st.sampled_from(["tilemap", "sprites"]), data=st.data())
        def prop(which: str, data: st.DataObject) -> None:
            if which == "tilemap":
                rows = [list(r) for r in original]
                change = data.draw(st.sampled_from(["none", "drop_row", "short_row", "long_row",
                                                    "odd_gid", "flat", "empty"]), "change")
                if change == "drop_row":
                    rows = rows[:-1]
                elif change == "short_row":
                    rows[0] = rows[0][:-1]
                elif change == "long_row":
                    rows[-1] = rows[-1] + [1]
                elif change == "odd_gid":
                    rows[1][1] = data.draw(st.one_of(st.sampled_from([-1, 2**40, 2**63]), hostile()), "gid")
                elif change == "flat":
                    rows = [gid for row in rows for gid in row]
                elif change == "empty":
                    rows = []
                name = data.draw(st.one_of(st.sampled_from(["walls", "floor", "obstacles"]), hostile()), "layer")
                walls = data.draw(st.one_of(st.booleans(), hostile()), "walls")
                rep.input("grid_from_tilemap", change=change, rows=rows, layer=name, walls=walls)
                layer.data = rows
                try:
                    attempt(grid_from_tilemap, tile_map, name, walls=walls)
                finally:
                    layer.data = [list(r) for r in original]
            else:
                n = data.draw(st.integers(0, 3), "sprites")
                sprites: Any = arcade.SpriteList()
                for _ in range(n):
                    s = arcade.SpriteSolidColor(int(data.draw(st.integers(1, 40), "w")),
                                                int(data.draw(st.integers(1, 40), "h")),
                                                color=(255, 0, 0, 255))
                    s.position = data.draw(st.tuples(st.floats(-50, 150), st.floats(-50, 150)), "pos")
                    s.angle = data.draw(st.floats(0, 360), "angle")
                    sprites.append(s)
                size = data.draw(st.one_of(st.tuples(st.floats(1, 200), st.floats(1, 200)),
                                           hostile_point(), st.just((1e12, 1e12))), "size")
                cell = data.draw(st.one_of(st.sampled_from([8.0, 1, 0.5]), hostile_float()), "cell_size")
                origin = data.draw(st.one_of(st.just((0.0, 0.0)), hostile_point()), "origin")
                rep.input("grid_from_sprites", sprites=[(s.position, s.width, s.height, s.angle) for s in sprites],
                          size=size, cell_size=cell, origin=origin)
                attempt(grid_from_sprites, sprites, size=size, cell_size=cell, origin=origin)
        prop()
    run_fuzz(body)
