"""A new user's first hour, second round: the example scripts and the demo as a newcomer runs them
(a map name without its folder, a headless run without ``--frames``, a map of other layers) end with
the answer or a one-line error, never a traceback or a run that never ends."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import gamenav

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "pygame_example.py"


def _example(*args: str, cwd: Path, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SDL_")}  # the example sets them
    return subprocess.run([sys.executable, str(EXAMPLE), "--headless", *args], capture_output=True, text=True,
                          timeout=timeout, env=env, cwd=cwd)


def test_pygame_example_takes_the_name_of_a_shipped_map(tmp_path: Path) -> None:
    """``--map tiny.tmx`` (a map shipped with gamenav, as the demo's ``--map`` takes it) raised
    pytmx's FileNotFoundError traceback in any folder but gamenav/data."""
    out = _example("--map", "tiny.tmx", "--frames", "3", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("frames=3 ")


@pytest.mark.parametrize(("make", "message"), [
    (lambda folder: "nosuch.tmx", r"--map 'nosuch.tmx': no such file; the maps shipped with gamenav: level\.tmx"),
    (lambda folder: str(folder), "is not a file; the maps shipped with gamenav"),
    (lambda folder: _renamed_walls(folder), r"cannot use the map .*floors\.tmx: tile layer 'walls' not found; the "
                                            r"map's tile layers are \['floor', 'stone'\]"),
    (lambda folder: _without_images(folder), r"cannot use the map .*tiny\.tmx: FileNotFoundError: .*tiles\.png"),
])
def test_pygame_example_refuses_a_map_it_cannot_use_in_one_line(tmp_path: Path, make: object, message: str) -> None:
    """A missing file, a folder, a map without a ``walls`` layer or without its tile images gave a
    traceback (pytmx's FileNotFoundError / IsADirectoryError, the adapter's InvalidInputError; pygame's
    FileNotFoundError from load_pygame), the layer's after a window opened."""
    out = _example("--map", make(tmp_path), "--frames", "3", cwd=tmp_path)  # type: ignore[operator]
    assert out.returncode == 2
    assert "Traceback" not in out.stderr
    assert len(out.stderr.strip().splitlines()) <= 2  # (argparse's usage line, then the message)
    assert re.search(message, out.stderr), out.stderr


def _renamed_walls(folder: Path) -> str:
    """A copy of the shipped level whose wall layer is called ``stone``."""
    for name in ("level.tmx", "tiles.png"):
        (folder / name).write_bytes(gamenav.data.path(name).read_bytes())
    text = (folder / "level.tmx").read_text().replace('name="walls"', 'name="stone"')
    (folder / "floors.tmx").write_text(text)
    return str(folder / "floors.tmx")


def _without_images(folder: Path) -> str:
    """A copy of the shipped tiny map without its tileset's image (pytmx.load_pygame raised)."""
    (folder / "tiny.tmx").write_bytes(gamenav.data.path("tiny.tmx").read_bytes())
    return str(folder / "tiny.tmx")


@pytest.mark.parametrize("frames", [[], ["--frames", "0"], ["--frames", "-5"]])
def test_pygame_example_headless_run_ends(tmp_path: Path, frames: list[str]) -> None:
    """``--headless`` without ``--frames`` (or with 0 or fewer) ran for ever: frames 0 meant "until
    the window is closed", and a headless run has no window to close. It now runs 600 frames; 0 or
    fewer is a usage error."""
    out = _example(*frames, cwd=tmp_path, timeout=240)
    if frames:
        assert out.returncode == 2 and f"--frames must be >= 1 with --headless, got {frames[1]}" in out.stderr
    else:
        assert out.returncode == 0, out.stderr
        assert out.stdout.startswith("frames=600 arrived=True failed=False ")


def test_demo_refuses_a_screenshot_frame_past_the_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``--frames 10 --screenshot s.png --screenshot-frame 30`` ran the scene and saved frame 9 without a
    word (the frame was moved into the run); it is a usage error before anything starts, and
    ``run_headless`` refuses such a frame."""
    from demo_game.app import main, run_headless
    from demo_game.mapgen import from_walkable
    from demo_game.sim import Simulation

    shot = tmp_path / "s.png"
    for frame in ("10", "30"):
        with pytest.raises(SystemExit) as info:
            main(["--headless", "--agents", "4", "--frames", "10", "--screenshot", str(shot),
                  "--screenshot-frame", frame])
        assert info.value.code == 2
        assert f"--screenshot-frame {frame} is past the run's last frame (--frames 10: frames 0..9)" in \
            capsys.readouterr().err
    assert not shot.exists()
    sim = Simulation(from_walkable(np.ones((4, 20), bool)), agents=2, seed=1, max_expansions=1000)
    try:
        with pytest.raises(ValueError, match=r"screenshot_frame must be one of the run's frames 0\.\.2, got 3"):
            run_headless(sim, 3, screenshot=str(shot), screenshot_frame=3)
    finally:
        sim.close()
    assert not shot.exists()


@pytest.mark.parametrize("name", ["tiny.json", "tiny.tmx"])
def test_demo_names_the_missing_tile_images_of_a_tiled_map(tmp_path: Path, name: str,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    """A Tiled map copied without its tileset's image said "cannot load the map ...: TypeError: Invalid
    path type: <class 'NoneType'> for None" (arcade loads every tile's image); it names the image and
    where it was looked for, and the map loads once the image is beside it."""
    from demo_game.app import load_terrain, main

    (tmp_path / name).write_bytes(gamenav.data.path(name).read_bytes())
    assert main(["--headless", "--agents", "4", "--frames", "1", "--map", str(tmp_path / name)]) == 2
    err = capsys.readouterr().err
    assert f"the map's tile images are missing (arcade loads every tile's image; looked for them in " \
           f"{str(tmp_path)!r}): tiles.png" in err and "TypeError" not in err
    (tmp_path / "tiles.png").write_bytes(gamenav.data.path("tiles.png").read_bytes())
    assert load_terrain(str(tmp_path / name), 7).kind.shape == (4, 6)


@pytest.mark.parametrize(("args", "named"), [(["--layer", "floor"], "the built-in map"),
                                             (["--map", "arena.map", "--layer", "floor"], "'arena.map'")])
def test_demo_refuses_a_layer_of_a_map_without_layers(args: list[str], named: str,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    """``--layer`` of the built-in map or of a Moving AI map was ignored without a word (the run went on
    with walls the option did not name); it is a usage error, as other options that would be ignored."""
    from demo_game.app import main

    with pytest.raises(SystemExit) as info:
        main(["--headless", "--agents", "4", "--frames", "1", *args])
    assert info.value.code == 2
    assert ("--layer names the tile layer of a Tiled map (--map FILE.json or FILE.tmx) that holds the walls; "
            f"{named} has no layers") in capsys.readouterr().err
