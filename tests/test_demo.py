"""The demo game, headless in a real (off-screen) arcade window: scripted orders and building edits."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path as FilePath
from typing import Any

import numpy as np
import pytest

import gamenav
from demo_game import app as demo_app
from demo_game.app import main, run_headless
from demo_game.mapgen import BLOCKING, BUILDING, generate
from demo_game import sim as demo_sim
from demo_game.sim import Simulation

ROOT = FilePath(__file__).resolve().parents[1]


def test_generated_map_is_seeded_and_connected() -> None:
    a, b, c = generate(seed=3), generate(seed=3), generate(seed=4)
    assert a.kind.shape == (96, 128)
    assert np.array_equal(a.kind, b.kind) and not np.array_equal(a.kind, c.kind)
    labels = gamenav.TileGrid(a.walkable).components(diagonal="never")
    assert set(np.unique(labels[labels >= 0]).tolist()) == {0}, "one island"
    assert 0.5 < a.walkable.mean() < 0.95
    assert np.array_equal(a.walkable, ~np.isin(a.kind, BLOCKING))


def test_headless_run_units_arrive_and_never_stand_on_walls(tmp_path: FilePath) -> None:
    agents, frames = 240, 630  # ORCA bodies: the armies take about 25 s to pass each other
    sim = Simulation(generate(seed=7), agents=agents, seed=7, max_expansions=20_000)  # load-independent
    on_walls: list[int] = []
    versions: list[int] = []

    def check(s: Simulation) -> None:
        on_walls.append(s.units_on_blocked_cells())
        versions.append(s.grid.version)

    shot = tmp_path / "demo.png"
    stats = run_headless(sim, frames, screenshot=str(shot), dt=1 / 20, on_frame=check)
    assert len(on_walls) == frames and max(on_walls) == 0
    assert stats["blocked_violations"] == 0 and stats["errors"] == []
    assert versions[-1] >= 3, "two buildings placed and one removed"
    assert stats["pushed_out"] > 0, "the building dropped on the blue army displaced units"
    assert stats["arrived"] >= 0.85 * agents, stats
    assert stats["flow_fields"] >= 2 and stats["path_requests"] > 0
    from PIL import Image

    pixels = np.asarray(Image.open(shot).convert("RGB"), dtype=np.float64)
    assert pixels.shape == (96 * 8, 128 * 8, 3)
    assert pixels.std() > 15, "screenshot is not blank"
    blue = (pixels[..., 2] > 200) & (pixels[..., 0] < 120)
    assert blue.sum() > 200, "blue units are drawn"


def test_cli_headless_with_a_moving_ai_map(tmp_path: FilePath) -> None:
    rows = ["." * 40 for _ in range(32)]
    rows[10] = "." * 5 + "@" * 30 + "." * 5
    map_file = tmp_path / "tiny.map"
    map_file.write_text("type octile\nheight 32\nwidth 40\nmap\n" + "\n".join(rows) + "\n")
    stats_file, shot = tmp_path / "stats.json", tmp_path / "shot.png"
    env = dict(os.environ, GAMENAV_QUIET="1")
    proc = subprocess.run(
        [sys.executable, "-m", "demo_game", "--headless", "--map", str(map_file), "--agents", "60",
         "--frames", "120", "--stats", str(stats_file), "--screenshot", str(shot)],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    stats = json.loads(stats_file.read_text())
    for key in ("frames", "agents", "arrived", "update_ms_mean", "update_ms_p99", "pathfinding_ms_p99",
                "budget_ms"):
        assert key in stats
    assert (stats["frames"], stats["agents"], stats["budget_ms"]) == (120, 60, 1.0)
    assert stats["blocked_violations"] == 0 and shot.stat().st_size > 1000


def test_cli_rejects_bad_agent_count() -> None:
    proc = subprocess.run([sys.executable, "-m", "demo_game", "--headless", "--agents", "0"],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and "--agents must be >= 1, got 0" in proc.stderr


def test_cli_rejects_more_agents_than_the_demo_can_hold(capsys: pytest.CaptureFixture[str]) -> None:
    # 10**12 agents: numpy MemoryError traceback ("Unable to allocate 3.64 TiB") while spawning
    with pytest.raises(SystemExit) as info:
        main(["--headless", "--agents", str(10**12), "--frames", "1"])
    assert info.value.code == 2 and "--agents must be <= 100000, got 1000000000000" in capsys.readouterr().err


def test_budget_keys_scale_the_queue_budget() -> None:
    sim = Simulation(generate(seed=7), agents=10, seed=7, max_expansions=1000)
    sim.set_budget(2.0)
    assert (sim.budget_ms, sim.max_expansions, sim.crowd.queue) == (2.0, 2000, sim.queue)
    sim.set_budget(100.0)
    assert sim.budget_ms == 16.0


def test_budget_keys_never_move_a_command_line_budget_the_wrong_way() -> None:
    # --budget 0.01 then '-' raised the budget to 0.125 ms; --budget 100 then '+' cut it to 16 ms
    import arcade

    from demo_game.app import DemoWindow

    for budget, symbol, expected in ((0.01, arcade.key.MINUS, 0.01), (0.01, arcade.key.PLUS, 0.02),
                                     (100.0, arcade.key.PLUS, 100.0), (100.0, arcade.key.MINUS, 50.0)):
        sim = Simulation(generate(seed=7), agents=4, seed=7, budget_ms=budget)
        window = DemoWindow(sim, visible=False, fixed_dt=1 / 30)
        try:
            window.on_key_press(symbol, 0)
            assert sim.budget_ms == expected and sim.queue.budget_ms == expected
        finally:
            window.close()
            sim.close()


def test_every_key_and_overlay_draws(tmp_path: FilePath) -> None:
    import arcade

    from demo_game.app import DemoWindow

    sim = Simulation(generate(seed=7), agents=40, seed=7, max_expansions=20_000)
    window = DemoWindow(sim, visible=False, fixed_dt=1 / 30)
    try:
        key = arcade.key
        window.on_key_press(key.A, 0)  # select all blue units
        assert window.selected.sum() == (sim.team == 0).sum()
        window.on_mouse_press(500, 380, arcade.MOUSE_BUTTON_RIGHT, 0)
        for symbol in (key.G, key.E, key.N, key.P, key.H, key.EQUAL, key.MINUS, key.MINUS):
            window.on_key_press(symbol, 0)
        assert sim.navmesh_on and sim.crowd.world is sim.grid, "the grid serves while the mesh builds"
        sim.finish_navmesh_build()
        assert window.show == {"grid": True, "paths": False, "navmesh": True, "expansions": True, "help": False}
        assert sim.navmesh is not None and sim.crowd.world is sim.navmesh and sim.budget_ms == 0.5
        assert len(sim.recent_patches()) == 0
        mesh, alive, version = sim.navmesh, sim.navmesh.alive.copy(), sim.navmesh.version
        w, h = window.width, window.height
        placed = next(p for p in ((x * w / 10, y * h / 10) for x in range(1, 10) for y in range(1, 10))
                      if sim.place_building(p))
        assert sim.navmesh is mesh and mesh.version == version + 1
        patch = sim.recent_patches()  # the triangles the edit added: new ids, alive, shown lit
        assert len(patch) and (patch >= len(alive)).all() and mesh.alive[patch].all()
        window.on_draw()
        sim.frame += demo_sim.PATCH_FRAMES
        assert len(sim.recent_patches()) == 0  # the highlight fades after PATCH_FRAMES frames
        assert sim.remove_building(placed) and mesh.version == version + 2
        window.on_key_press(key.TAB, 0)
        assert window.team == 1 and not window.selected.any()
        window.on_mouse_press(0, 0, arcade.MOUSE_BUTTON_LEFT, 0)
        window.on_mouse_release(1, 1, arcade.MOUSE_BUTTON_LEFT, 0)  # a click far from red units
        assert not window.selected.any()
        for _ in range(5):
            window.on_update(1 / 30)
            window.on_draw()
        assert sim.crowd.avoidance == "orca"
        window.on_key_press(key.O, 0)
        window.on_update(1 / 30)
        window.on_draw()
        assert sim.crowd.avoidance == "separation"
        window.on_key_press(key.O, 0)
        assert sim.crowd.avoidance == "orca"
        window.on_key_press(key.SPACE, 0)
        frame = sim.frame
        window.on_update(1 / 30)
        assert window.paused and sim.frame == frame
        window.on_key_press(key.N, 0)
        assert sim.navmesh is None and sim.crowd.world is sim.grid and sim.errors == []
    finally:
        window.close()


def _demo(args: list[str], env: dict[str, str], pre: str = "") -> subprocess.CompletedProcess[str]:
    """``python -m demo_game ARGS`` in a fresh interpreter; ``pre`` runs first (import blockers)."""
    code = pre + ("import runpy, sys\nsys.argv = ['demo_game'] + sys.argv[1:]\n"
                  "runpy.run_module('demo_game', run_name='__main__')\n")
    return subprocess.run([sys.executable, "-c", code, *args], check=False, cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=120)


def test_without_arcade_one_clear_message() -> None:
    blocker = ("import sys\n"
               "class _NoArcade:\n"
               "    def find_spec(self, name, path=None, target=None):\n"
               "        if name.split('.')[0] == 'arcade':\n"
               "            raise ModuleNotFoundError(f\"No module named '{name}'\", name=name)\n"
               "sys.meta_path.insert(0, _NoArcade())\n")
    proc = _demo(["--headless", "--frames", "2"], dict(os.environ), pre=blocker)
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr
    assert 'pip install -e ".[demo]"' in proc.stderr and "arcade" in proc.stderr


def test_ctrl_c_quits_without_a_traceback() -> None:
    # Ctrl+C in the terminal (a first run compiles for about 20 s) printed a KeyboardInterrupt traceback
    interrupt = ("from demo_game import sim\n"
                 "def step(self, dt):\n"
                 "    raise KeyboardInterrupt\n"
                 "sim.Simulation.step = step\n")
    proc = _demo(["--headless", "--agents", "4", "--frames", "5"], dict(os.environ, GAMENAV_QUIET="1"), pre=interrupt)
    assert proc.returncode == 130 and proc.stderr == "", proc.stderr


def test_an_abbreviated_headless_flag_runs_without_a_display() -> None:
    # argparse takes --head for --headless, but only the full spelling set ARCADE_HEADLESS before arcade was
    # imported: with no display, a NoSuchDisplayException traceback from the first window
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "ARCADE_HEADLESS")}
    proc = _demo(["--head", "--agents", "4", "--frames", "2"], dict(env, GAMENAV_QUIET="1"))
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr
    assert json.loads(proc.stdout)["frames"] == 2


def test_without_a_display_one_clear_message_before_compiling() -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "ARCADE_HEADLESS")}
    proc = _demo([], env)
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr
    assert "no display" in proc.stderr and "--headless" in proc.stderr
    assert "compiling" not in proc.stderr  # checked before any kernel is loaded


def test_arcade_headless_without_the_headless_flag_is_one_clear_message() -> None:
    # ARCADE_HEADLESS=1 python -m demo_game (no --headless): pyglet found a display, so the game started and
    # arcade.run() drew off-screen for ever: no window, no output, no input to quit
    proc = subprocess.run([sys.executable, "-m", "demo_game", "--agents", "4"], cwd=ROOT, capture_output=True,
                          text=True, env=dict(os.environ, ARCADE_HEADLESS="1", GAMENAV_QUIET="1"), timeout=60)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert "no display to open a window on (ARCADE_HEADLESS is set" in proc.stderr and "--headless" in proc.stderr


def test_hud_and_stats_share_bounded_timings() -> None:
    from demo_game.sim import Timings

    t = Timings(window=3, history=5)
    for ms in (4.0, 1.0, 2.0, 3.0, 9.0, 1.0, 1.0):
        t.add(ms)
    assert (t.count, t.max, len(t.recent), len(t.history)) == (7, 9.0, 3, 5)
    assert t.mean == 3.0 and t.recent_mean() == 11 / 3
    assert t.percentile(100) == 9.0
    sim = Simulation(generate(seed=7), agents=10, seed=7, max_expansions=1000)
    for _ in range(80):
        sim.step(1 / 30)
    stats = sim.stats()
    assert len(sim.update_ms.recent) == 60 and sim.update_ms.count == 80
    assert stats["update_ms_max"] == sim.update_ms.max and stats["pathfinding_ms_max"] == sim.path_ms.max


@pytest.mark.parametrize(("args", "message"), [
    (["--budget", "-1"], "argument --budget: expected a number > 0, got '-1'"),
    (["--budget", "nan"], "argument --budget: expected a number > 0, got 'nan'"),
    (["--frames", "0"], "argument --frames: expected an integer >= 1, got '0'"),
    (["--dt", "0"], "argument --dt: expected a number > 0, got '0'"),
    (["--reinforce", "nan"], "argument --reinforce: expected a number >= 0, got 'nan'"),
    (["--seed", "-1"], "argument --seed: expected an integer >= 0, got '-1'"),
    (["--screenshot-frame", "-1"], "argument --screenshot-frame: expected an integer >= 0, got '-1'"),
    (["--overlays", "grid,pahts"], "argument --overlays: unknown overlays ['pahts']; choose from grid, paths"),
    (["--screenshot", "shot.xyz"], "--screenshot 'shot.xyz': not an image type PIL can write (e.g. shot.png)"),
    (["--screenshot", "shot"], "--screenshot 'shot': not an image type PIL can write"),
    (["--screenshot", "/dev/null/shot.png"], "--screenshot '/dev/null/shot.png': cannot make its folder '/dev/null'"),
    (["--stats", "."], "--stats '.': is a folder"),
])
def test_cli_rejects_bad_numbers_and_overlays_before_starting(args: list[str], message: str,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    # each was a traceback from inside gamenav or the demo (output files: after the run), or a silent run
    # (0 frames, NaN reinforcements)
    with pytest.raises(SystemExit) as info:
        main(["--headless", "--agents", "4", "--frames", "1", *args])
    assert info.value.code == 2
    assert message in capsys.readouterr().err


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="needs Linux's /proc")
def test_cli_rejects_an_output_file_it_cannot_write_before_the_run(tmp_path: FilePath,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    # only the folder was checked (os.access): --stats /proc/version (or a read-only stats.json, for users other
    # than root) ran the whole scene, then an OSError traceback when the stats were written
    for args, message in ((["--stats", "/proc/version"], "--stats '/proc/version': cannot write to it"),
                          (["--screenshot", "/proc/shot.png"], "--screenshot '/proc/shot.png': cannot write to it")):
        with pytest.raises(SystemExit) as info:
            main(["--headless", "--agents", "4", "--frames", "1", *args])
        assert info.value.code == 2 and message in capsys.readouterr().err
    stats, link = tmp_path / "stats.json", tmp_path / "link.json"
    link.symlink_to(tmp_path / "target.json")  # a dangling link
    for path in (stats, link):
        with pytest.raises(SystemExit):
            main(["--headless", "--stats", str(path), "--map", str(tmp_path / "nosuch.map")])
    assert not stats.exists(), "the check leaves no empty file behind"
    assert link.is_symlink() and not (tmp_path / "target.json").exists(), "nor a link's target, and keeps the link"


def test_cli_names_a_missing_or_malformed_map_and_takes_the_sample_maps(tmp_path: FilePath,
                                                                        capsys: pytest.CaptureFixture[str]) -> None:
    for map_arg, problem in ((str(tmp_path / "nosuch.map"), "no such file"), (str(tmp_path), "is not a file"),
                             ("arena", "no such file")):
        with pytest.raises(SystemExit) as info:
            main(["--headless", "--map", map_arg])
        assert info.value.code == 2
        err = capsys.readouterr().err
        assert f"--map {map_arg!r}: {problem}; the maps shipped with gamenav: arena.map, den011d.map" in err
    ragged = tmp_path / "ragged.map"
    ragged.write_text("type octile\nheight 2\nwidth 3\nmap\n...\n..\n")
    walls = tmp_path / "walls.map"
    walls.write_text("type octile\nheight 2\nwidth 3\nmap\n@@@\n@@@\n")
    for map_file, message in ((ragged, f"cannot load the map {ragged}: {ragged}:6: row 1 has 2 characters"),
                              (walls, "cannot start on this map: no passable cells")):
        assert main(["--headless", "--map", str(map_file)]) == 2
        err = capsys.readouterr().err
        assert message in err and "Traceback" not in err
    assert main(["--headless", "--map", "arena.map", "--agents", "4", "--frames", "2"]) == 0


def test_armies_spawn_on_maps_narrower_than_their_spawn_bands() -> None:
    # the second army's band started at a negative column: agents were placed off the map (InvalidInputError)
    from demo_game.mapgen import from_walkable

    for width in (1, 4, 11):
        sim = Simulation(from_walkable(np.ones((3, width), bool)), agents=6, seed=1, max_expansions=1000)
        cells = sim.grid.world_to_cell(sim.crowd.positions)
        assert ((cells >= 0) & (cells < (width, 3))).all() and sim.units_on_blocked_cells() == 0
        sim.close()


def test_one_unit_starts_on_a_map_with_no_room_on_the_red_side() -> None:
    # --agents 1 (no red army) on a map whose 6 right columns are wall: "cannot start on this map: no passable cells in
    # columns 14..19 to spawn team 1", for a team of no units
    from demo_game.mapgen import from_walkable

    walkable = np.ones((3, 20), bool)
    walkable[:, 14:] = False
    sim = Simulation(from_walkable(walkable), agents=1, seed=1, max_expansions=1000)
    try:
        assert sim.team.tolist() == [0] and sim.units_on_blocked_cells() == 0
        sim.step(1 / 30)
    finally:
        sim.close()
    with pytest.raises(gamenav.InvalidInputError, match="no passable cells in columns 14..19 to spawn team 1"):
        Simulation(from_walkable(walkable), agents=2, seed=1, max_expansions=1000)


def test_paths_overlay_after_reinforcements_draws_the_units_own_paths(monkeypatch: pytest.MonkeyPatch) -> None:
    # the overlay passed crowd rows as agent ids: once units died, InvalidInputError (or another unit's path)
    import arcade

    from demo_game.app import DemoWindow

    drawn: list[np.ndarray[Any, Any]] = []
    monkeypatch.setattr(demo_app, "draw_path", lambda points, **kw: drawn.append(points))
    sim = Simulation(generate(seed=7), agents=20, seed=7, max_expansions=20_000, reinforce_seconds=0.05)
    window = DemoWindow(sim, visible=False, fixed_dt=1 / 30)
    try:
        window.on_key_press(arcade.key.A, 0)
        window.on_mouse_press(500, 380, arcade.MOUSE_BUTTON_RIGHT, 0)
        for _ in range(5):
            window.on_update(1 / 30)
            drawn.clear()
            window.on_draw()
        assert sim.died > 0 and not np.array_equal(sim.crowd.ids, np.arange(len(sim.crowd)))
        moving = np.flatnonzero(window.selected & ~sim.crowd.arrived)[:60]
        assert 0 < len(drawn) == len(moving)
        assert np.array_equal([p[0] for p in drawn], sim.crowd.positions[moving])
    finally:
        window.close()


def test_cli_screenshot_in_a_new_folder_and_as_jpeg(tmp_path: FilePath) -> None:
    # a .jpg screenshot was quantized to a palette first: OSError "cannot write mode P as JPEG" after the run
    from PIL import Image

    shot, stats = tmp_path / "new" / "shot.jpg", tmp_path / "deeper" / "new" / "stats.json"
    assert main(["--headless", "--agents", "4", "--frames", "2", "--screenshot", str(shot), "--stats", str(stats)]) == 0
    assert Image.open(shot).format == "JPEG" and json.loads(stats.read_text())["frames"] == 2


def test_cli_one_unit_scripted_run(capsys: pytest.CaptureFixture[str]) -> None:
    # with no red army the script aimed its building at the median of no units: NaN -> ValueError traceback
    assert main(["--headless", "--agents", "1", "--frames", "4"]) == 0
    assert "Traceback" not in capsys.readouterr().err


def test_a_building_never_covers_the_last_free_cells() -> None:
    # B over a 5 x 1 map blocked every cell: the units stood inside the building (the headless run failed)
    import arcade

    from demo_game.app import DemoWindow
    from demo_game.mapgen import from_walkable

    sim = Simulation(from_walkable(np.ones((1, 5), bool)), agents=4, seed=1, max_expansions=1000)
    window = DemoWindow(sim, visible=False, fixed_dt=1 / 30)
    try:
        window.on_mouse_motion(20, 4, 0, 0)  # the middle of the 40 x 8 px map
        window.on_key_press(arcade.key.B, 0)
        window.on_update(1 / 30)
        window.on_draw()
        assert sim.grid.passable.all() and sim.units_on_blocked_cells() == 0
        assert sim.messages[-1] == "no building on the last free cells: the units need somewhere to stand"
        assert sim.place_building((4.0, 4.0), size=(1, 1)) == 1  # one cell of five: built
    finally:
        window.close()


def test_cli_map_too_big_for_the_window_is_one_line(tmp_path: FilePath, capsys: pytest.CaptureFixture[str]) -> None:
    # 8192 x 1 cells at 2 px: arcade's texture atlas had no room for the terrain picture (traceback in frame 0)
    long = tmp_path / "long.map"
    long.write_text("type octile\nheight 1\nwidth 8192\nmap\n" + "." * 8192 + "\n")
    assert main(["--headless", "--map", str(long), "--agents", "4", "--frames", "2"]) == 2
    err = capsys.readouterr().err
    assert "too big for the demo: 8192 x 1 cells at 2 px need a 16384 x 2 px window (at most 8192 px a side)" in err
    assert "Traceback" not in err


def test_resized_window_keeps_the_terrain_under_the_units_and_the_hud_on_top(monkeypatch: pytest.MonkeyPatch) -> None:
    # the terrain picture was stretched over the window (1 x 1: one pixel) while units and overlays kept their
    # world positions, and the HUD text stayed where the first window size put it
    import arcade

    from demo_game.app import DemoWindow

    rects: list[Any] = []
    real = arcade.draw_texture_rect

    def record(texture: Any, rect: Any, **kw: Any) -> None:
        rects.append(rect)
        real(texture, rect, **kw)

    monkeypatch.setattr(arcade, "draw_texture_rect", record)
    sim = Simulation(generate(seed=7), agents=10, seed=7, max_expansions=1000)
    window = DemoWindow(sim, visible=False, fixed_dt=1 / 30)
    try:
        for size in ((1, 1), (512, 384), (3000, 2000)):
            monkeypatch.setattr(window, "get_size", lambda size=size: size)  # what the window manager did
            window.on_resize(*size)
            rects.clear()
            window.on_update(1 / 30)
            window.on_draw()
            assert (rects[0].left, rects[0].bottom, rects[0].width, rects[0].height) == (0, 0, 128 * 8, 96 * 8)
            assert [text.y for text in window.hud[:2]] == [size[1] - 16, size[1] - 31]
    finally:
        window.close()


def test_expansions_overlay_draws_the_flow_field_the_crowd_uses_now(monkeypatch: pytest.MonkeyPatch) -> None:
    # the overlay kept the field of the order: after a building on the way (or a re-plan round the other army) it
    # showed a finite distance on the building's cells while the crowd already walked round it
    import arcade

    from demo_game.app import DemoWindow

    drawn: list[np.ndarray[Any, Any]] = []
    monkeypatch.setattr(demo_app, "draw_expansions", lambda grid, field, **kw: drawn.append(np.array(field)))
    sim = Simulation(generate(seed=7), agents=200, seed=7, max_expansions=20_000)
    window = DemoWindow(sim, visible=False, fixed_dt=1 / 30, overlays={"expansions"})
    try:
        window.on_key_press(arcade.key.A, 0)
        window.on_mouse_press(700, 380, arcade.MOUSE_BUTTON_RIGHT, 0)
        window.on_mouse_motion(660, 380, 0, 0)
        window.on_key_press(arcade.key.B, 0)  # a building just before the target
        for _ in range(3):
            window.on_update(1 / 30)
        window.on_draw()
        cells = np.flatnonzero(sim.terrain.kind.ravel() == BUILDING)
        assert sim.grid.version == 1 and len(drawn) == 1 and np.array_equal(drawn[0], sim.crowd.flow_fields[-1])
        assert np.isinf(drawn[0].ravel()[cells]).all()
    finally:
        window.close()


def test_loading_screen_of_a_map_a_few_cells_wide() -> None:
    # a 1 x 1 map opens a 16 x 16 px window: the progress bar got a negative width (ValueError from arcade)
    from demo_game.app import LoadingWindow

    window = LoadingWindow(16, 16, visible=False)
    try:
        for done in range(5):
            window.draw_progress(done, 4, "grid")
        assert window.status.text.startswith("ready   4/4")
    finally:
        window.close()


def test_the_loading_screen_of_a_small_map_has_room_for_its_text(monkeypatch: pytest.MonkeyPatch) -> None:
    # the loading window took the map's size: 96 x 64 px for tiny.json, where the title, the status and the note
    # (832 px wide: "the first run compiles ... about 20 s") were cut off during the first run's compile
    from demo_game.app import LoadingWindow

    shown: list[tuple[int, int, float]] = []

    class Closed(LoadingWindow):
        def __init__(self, width: int, height: int) -> None:
            super().__init__(width, height, visible=False)
            self.draw_progress(0, 4, "grid")
            texts = (self.title, self.status, self.note)
            shown.append((width, height, max(text.content_width for text in texts)))
            self.on_close()  # the player closes it: the demo quits before compiling

    monkeypatch.setattr(demo_app, "LoadingWindow", Closed)
    monkeypatch.setattr(demo_app, "display_problem", lambda: None)
    assert main(["--map", "tiny.json", "--agents", "4"]) == 0
    (width, height, widest), = shown
    assert widest <= width and height >= 240


def test_reinforcements_spawn_beside_a_building_on_the_map_edge() -> None:
    # the doors were found with np.roll, which wraps: beside a building on the top edge, units spawned on the
    # bottom edge, 36 cells away (seeds 4 and 6 of these)
    from demo_game.mapgen import from_walkable

    for seed in range(8):
        sim = Simulation(from_walkable(np.ones((40, 60), bool)), agents=100, seed=seed, max_expansions=1000)
        assert sim.place_building((16.0, 296.0)) == 20  # cells x 0..4, rows 0..3 (the top edge)
        ids = sim.crowd.ids.copy()
        sim.reinforce()
        rows = np.flatnonzero(~np.isin(sim.crowd.ids, ids) & (sim.team == 0))
        cells = sim.grid.world_to_cell(sim.crowd.positions[rows])
        assert len(rows) and (cells[:, 0] <= 5).all() and (cells[:, 1] <= 4).all(), (seed, cells.tolist())
        sim.close()


def test_scripted_orders_leave_blue_playing_with_no_red_units_selected() -> None:
    # the script set window.team = 0 directly: the HUD said "team blue   selected 10" over ten red units
    from demo_game.app import DemoWindow, script_events

    sim = Simulation(generate(seed=7), agents=60, seed=7, max_expansions=1000)
    window = DemoWindow(sim, visible=False, fixed_dt=1 / 30)
    try:
        script_events(window, 100)[1]()
        assert window.team == 0 and (sim.team[window.selected] == 0).all()
        assert sim.crowd.pending + len(sim.crowd.flow_fields) > 0, "the orders were given"
    finally:
        window.close()


def test_closing_the_loading_window_stops_the_warmup() -> None:
    # the progress callback only stopped drawing: a first run went on compiling (about 20 s) with no window
    from demo_game.app import LoadingWindow

    window = LoadingWindow(320, 200, visible=False)
    calls: list[str] = []

    def progress(done: int, total: int, name: str) -> None:
        calls.append(name)
        window.progress(done, total, name)

    window.on_close()
    stopped: Exception | None = None
    try:
        gamenav.warmup(progress=progress)
    except Exception as exc:
        stopped = exc
    assert type(stopped).__name__ == "LoadingCancelled" and window.cancelled
    assert len(calls) == 1, "no kernel group ran after the close"


def test_a_building_demolished_on_marsh_leaves_marsh() -> None:
    # the cells came back as grass (drawn and rebuilt into the navmesh as grass) while the grid still charged
    # the marsh cost 2.0 there: units avoided ground the picture showed as open grass
    from demo_game.mapgen import GRASS, MARSH, Terrain

    kind = np.full((8, 12), GRASS, np.uint8)
    kind[2:6, 2:5] = MARSH
    sim = Simulation(Terrain(kind, np.full(kind.shape, 0.5, np.float32)), agents=2, seed=1, max_expansions=1000)
    try:
        point = tuple(sim.grid.cell_to_world((3, 3)))
        assert sim.place_building(point) == 20 and sim.remove_building(point) == 20
        assert np.array_equal(sim.terrain.kind, kind) and np.array_equal(sim.terrain.cost, sim.grid.cost)
    finally:
        sim.close()


def test_quitting_never_waits_for_a_navmesh_build(monkeypatch: pytest.MonkeyPatch) -> None:
    # close() left the build running in an executor thread that the interpreter joins at exit: after N on a big
    # map and Esc, the process lingered with no window until the build ended (Cauldron.map: 10 s). The build
    # runs on threads the exit does not join (daemons), checked here while the build is held (no timeout)
    import threading

    from demo_game.mapgen import from_walkable

    release = threading.Event()
    monkeypatch.setattr(Simulation, "_build_navmesh", lambda self, *grids: release.wait())
    before = set(threading.enumerate())
    sim = Simulation(from_walkable(np.ones((4, 6), bool)), agents=2, max_expansions=100)
    try:
        sim.toggle_navmesh()
        started = set(threading.enumerate()) - before
        assert started and all(thread.daemon for thread in started), sorted(t.name for t in started)
        sim.close()
    finally:
        release.set()


def test_paths_overlay_draws_straight_runs_as_one_segment(monkeypatch: pytest.MonkeyPatch) -> None:
    # a flow-field trace has a point a cell, and the overlay drew them all: 240,000 points through arcade's line
    # strips a frame on maze-1550-15.map (the default overlay took 0.5 s a frame there, about 0.08 s now)
    import arcade

    from demo_game.app import DemoWindow
    from demo_game.mapgen import from_walkable

    drawn: list[np.ndarray[Any, Any]] = []
    monkeypatch.setattr(demo_app, "draw_path", lambda points, **kw: drawn.append(np.asarray(points)))
    sim = Simulation(from_walkable(np.ones((3, 120), bool)), agents=40, seed=3, max_expansions=20_000)
    window = DemoWindow(sim, visible=False, fixed_dt=1 / 30)
    try:
        window.on_key_press(arcade.key.A, 0)
        window.on_mouse_press(window.width - 4, 12, arcade.MOUSE_BUTTON_RIGHT, 0)
        window.on_update(1 / 30)
        window.on_draw()
        moving = np.flatnonzero(window.selected & ~sim.crowd.arrived)
        full = sim.crowd.remaining_paths(sim.crowd.ids[moving])
        assert len(drawn) == len(full) == 20 and max(len(p) for p in full) > 90
        for points, route in zip(drawn, full, strict=True):
            assert len(points) <= 6 and np.array_equal(points[[0, -1]], route[[0, -1]])
            ends = (points[:-1, None, :], points[1:, None, :])  # every point of the route lies on the polyline
            t = np.clip(np.einsum("sij,sij->si", route[None] - ends[0], ends[1] - ends[0])
                        / np.maximum(np.einsum("sij,sij->si", ends[1] - ends[0], ends[1] - ends[0]), 1e-12), 0, 1)
            gap = np.linalg.norm(ends[0] + t[..., None] * (ends[1] - ends[0]) - route[None], axis=2).min(axis=0)
            assert gap.max() < 1e-9
    finally:
        window.close()


def test_a_building_redraws_only_its_cells_and_the_picture_stays_exact(monkeypatch: pytest.MonkeyPatch) -> None:
    # every building placed or demolished redrew the whole terrain picture: a 60 ms frame on the default map
    # (30 ms of pixels, the rest uploading a new texture), 1.6 s on the 1550 x 1550 maps
    from demo_game import render
    from demo_game.app import DemoWindow

    terrain = generate(48, 32, seed=5)
    sim = Simulation(terrain, agents=10, seed=5, max_expansions=2000)
    window = DemoWindow(sim, visible=False, fixed_dt=1 / 30)
    redrawn: list[tuple[int, int]] = []
    pixels = render._pixels

    def spy(t: Any, px: int, y0: int, y1: int, x0: int, x1: int) -> Any:
        redrawn.append((y1 - y0, x1 - x0))
        return pixels(t, px, y0, y1, x0, x1)

    monkeypatch.setattr(render, "_pixels", spy)
    rng = np.random.default_rng(5)
    h, w = terrain.kind.shape
    px = int(sim.grid.cell_size)
    try:
        window.on_draw()  # the picture goes into the atlas
        corners = [(0.5, 0.5), (w - 0.5, h - 0.5), (0.5, h - 0.5), (w - 0.5, 0.5)]  # map corners and edges too
        for i in range(16):
            x, y = corners[i] if i < 4 else rng.uniform(0, (w, h))
            if i % 4 == 3:
                sim.remove_building((x * px, y * px))
            else:
                sim.place_building((x * px, y * px), size=(2, 2))
            redrawn.clear()
            window.on_update(1 / 30)
            window.on_draw()
            assert all(rows <= 6 and cols <= 6 for rows, cols in redrawn)  # the 2 x 2 cells, rims and margin
        full = pixels(sim.terrain, px, 0, h, 0, w)
        assert (sim.terrain.kind == BUILDING).sum() > 0
        assert np.array_equal(np.asarray(window.background.texture.image), full)
        atlas = window.ctx.default_atlas
        shown = np.asarray(atlas.read_texture_image_from_atlas(window.background.texture))
        assert np.array_equal(shown, full)  # what the GPU draws
    finally:
        window.close()


def _recorded_boxes(monkeypatch: pytest.MonkeyPatch) -> list[tuple[float, float, float, float]]:
    """The ``(left, right, bottom, top)`` of every filled box arcade draws from now on (the HUD's
    and the help's), in order."""
    import arcade

    boxes: list[tuple[float, float, float, float]] = []
    real = arcade.draw_lrbt_rectangle_filled

    def record(left: float, right: float, bottom: float, top: float, color: Any) -> None:
        boxes.append((left, right, bottom, top))
        real(left, right, bottom, top, color)

    monkeypatch.setattr(arcade, "draw_lrbt_rectangle_filled", record)
    return boxes


def test_hud_and_help_boxes_hold_their_longest_lines(monkeypatch: pytest.MonkeyPatch) -> None:
    # the boxes were 520 and 600 px wide whatever they held: the HUD's steering and queue lines (558 px in DejaVu
    # Sans Mono) and long messages ran out of the box over the map, hard to read on bright ground
    from demo_game.app import DemoWindow

    boxes = _recorded_boxes(monkeypatch)
    sim = Simulation(generate(seed=7), agents=10, seed=7, max_expansions=1000)
    window = DemoWindow(sim, visible=False, fixed_dt=1 / 30, overlays={"help"})
    try:
        sim.say("navmesh build failed: " + "a long reason " * 8)
        window.on_update(1 / 30)
        window.on_draw()
        hud, help_box = boxes
        assert hud[1] >= max(text.x + text.content_width for text in window.hud if text.text)
        assert window.hud[6].text == sim.messages[-1] and hud[2] < window.hud[6].y
        assert help_box[1] >= max(text.x + text.content_width for text in window.help)
    finally:
        window.close()


def test_a_building_on_the_map_edge_is_cut_off_not_shifted() -> None:
    # at the left and top edges the 5 x 4 building was pushed inwards (its full size, 2 cells past the cursor's
    # side) while at the right and bottom edges it was cut off: B over column 0 blocked columns 0..4
    from demo_game.mapgen import from_walkable

    sim = Simulation(from_walkable(np.ones((40, 60), bool)), agents=2, seed=1, max_expansions=1000)
    try:
        for cell, columns, rows in (((0, 20), (0, 2), (18, 21)), ((59, 20), (57, 59), (18, 21)),
                                    ((30, 0), (28, 32), (0, 1)), ((30, 39), (28, 32), (37, 39))):
            point = tuple(sim.grid.cell_to_world(cell))
            assert sim.place_building(point) > 0
            ys, xs = np.nonzero(sim.terrain.kind == BUILDING)
            assert (xs.min(), xs.max(), ys.min(), ys.max()) == (*columns, *rows), cell
            assert sim.remove_building(point) > 0
    finally:
        sim.close()


def test_a_hud_message_goes_away(monkeypatch: pytest.MonkeyPatch) -> None:
    # the newest message stayed on the HUD for ever: "no building on the last free cells" under later buildings,
    # "navmesh build failed" over a navmesh that had been built since
    import arcade

    from demo_game.app import DemoWindow
    from demo_game.mapgen import from_walkable

    drawn: list[str] = []
    monkeypatch.setattr(arcade.Text, "draw", lambda text: drawn.append(text.text))
    sim = Simulation(from_walkable(np.ones((1, 5), bool)), agents=2, seed=1, max_expansions=1000)
    window = DemoWindow(sim, visible=False, fixed_dt=1 / 30, overlays=set())
    try:
        window.on_mouse_motion(20, 4, 0, 0)  # the middle of the 40 x 8 px map
        window.on_key_press(arcade.key.B, 0)  # refused: the message
        texts = []
        for _ in range(151):  # 5 s at 30 frames a second
            drawn.clear()
            window.on_draw()
            texts.append(list(drawn))
            window.on_update(1 / 30)
        said = "no building on the last free cells: the units need somewhere to stand"
        assert said in texts[0] and said in texts[-2] and said not in texts[-1]
        assert sim.messages == [said]
    finally:
        window.close()


def test_a_small_map_fills_the_window_instead_of_hiding_under_the_hud(tmp_path: FilePath) -> None:
    # tiny.json (6 x 4 cells, shipped with gamenav) got 16 px a cell: a 96 x 64 px window wholly under the HUD
    from PIL import Image

    shot = tmp_path / "tiny.png"
    assert main(["--headless", "--map", "tiny.json", "--agents", "4", "--frames", "2", "--screenshot", str(shot)]) == 0
    assert Image.open(shot).size == (6 * 170, 4 * 170)


def test_reinforcements_are_parted_before_they_are_drawn() -> None:
    # the units that spawn on one door cell were added after the crowd's update, so each reinforcement frame drew
    # them stacked (discs 1.9 radii deep in each other); the update now parts them first
    sim = Simulation(generate(seed=7), agents=400, seed=7, max_expansions=1000, reinforce_seconds=1 / 20)
    try:
        ids = sim.crowd.ids.copy()
        sim.step(1 / 20)
        new = np.flatnonzero(~np.isin(sim.crowd.ids, ids))
        p, r = sim.crowd.positions, sim.crowd.radii
        depth = r[new, None] + r[None, :] - np.hypot(*(p[new, None] - p[None, :]).transpose(2, 0, 1))
        depth[np.arange(len(new)), new] = -np.inf  # a unit and itself
        assert len(new) == 8 and (depth / np.minimum(r[new, None], r[None, :])).max() < 0.1
    finally:
        sim.close()


def test_a_map_one_cell_high_leaves_room_for_the_hud_and_orders_stay_on_it(monkeypatch: pytest.MonkeyPatch) -> None:
    # a 1 x 40 map opened a 1000 x 25 px window: the HUD (six lines, 108 px) and the help ran out of it, and
    # nothing but a strip of the first line was drawn
    from demo_game.app import DemoWindow, script_events
    from demo_game.mapgen import from_walkable

    boxes = _recorded_boxes(monkeypatch)
    sim = Simulation(from_walkable(np.ones((1, 40), bool)), agents=6, seed=1, max_expansions=1000, cell_size=25)
    window = DemoWindow(sim, visible=False, fixed_dt=1 / 30, overlays={"help"})
    try:
        script_events(window, 8)[1]()  # the scripted orders: on the map, not in the window's empty part
        assert all(0 <= x <= 1000 and 0 <= y <= 25 for x, y in sim.rally.values()) and len(sim.rally) == 2
        window.on_update(1 / 30)
        window.on_draw()
        (_, _, hud_bottom, hud_top), (_, _, help_bottom, help_top) = boxes
        assert hud_top == window.height and help_bottom == 0 and help_top <= hud_bottom
    finally:
        window.close()


@pytest.mark.parametrize(("args", "message"), [
    (["--headless", "--screenshot-frame", "3"], "--screenshot-frame needs --screenshot"),
    (["--screenshot", "shot.png"], "--screenshot needs --headless"),
    (["--stats", "stats.json"], "--stats needs --headless"),
])
def test_cli_rejects_output_options_that_would_be_ignored(args: list[str], message: str, tmp_path: FilePath,
                                                          monkeypatch: pytest.MonkeyPatch,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    # --screenshot-frame without --screenshot, and --screenshot or --stats in the game window, were silently
    # ignored: the run ended with no file and no word why
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(demo_app, "display_problem", lambda: None)
    monkeypatch.setattr(demo_app, "LoadingWindow", None)  # the old code opened the game here: fail at once
    with pytest.raises(SystemExit) as info:
        main(["--agents", "4", "--frames", "1", *args])
    assert info.value.code == 2 and message in capsys.readouterr().err
    assert not list(tmp_path.iterdir())


@pytest.mark.parametrize("stats", ["shot.png", "./shot.png", "link.png"])
def test_cli_refuses_stats_and_screenshot_in_one_file(stats: str, tmp_path: FilePath, monkeypatch: pytest.MonkeyPatch,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    # --screenshot shot.png --stats shot.png ran the scene, saved the screenshot, then wrote the stats over it
    monkeypatch.chdir(tmp_path)
    (tmp_path / "link.png").symlink_to(tmp_path / "shot.png")
    with pytest.raises(SystemExit) as info:
        main(["--headless", "--agents", "4", "--frames", "1", "--screenshot", "shot.png", "--stats", stats])
    assert info.value.code == 2
    assert f"--screenshot and --stats name the same file {stats!r}" in capsys.readouterr().err
    assert sorted(path.name for path in tmp_path.iterdir()) == ["link.png"]


@pytest.mark.parametrize(("args", "agents"), [(["--map", "tiny.json"], 19),
                                              (["--map", "tiny.json", "--agents", "40"], 40), ([], 400)])
def test_the_default_army_fits_a_small_map(args: list[str], agents: int, monkeypatch: pytest.MonkeyPatch) -> None:
    # --map tiny.json (6 x 4 cells, 19 of them free) spawned the default 400 units: a heap of discs up to a whole
    # disc deep in each other that never parted; the default is one unit a free cell on such a map
    asked: list[int] = []

    class Started(Exception):
        pass

    def simulation(terrain: Any, *, agents: int, **options: Any) -> None:
        asked.append(agents)
        raise Started

    monkeypatch.setattr(demo_app, "Simulation", simulation)
    with pytest.raises(Started):
        main(["--headless", "--frames", "1", *args])
    assert asked == [agents]


def test_keys_that_do_nothing_say_why(monkeypatch: pytest.MonkeyPatch) -> None:
    # B over water, M before any navmesh and E without a group order did nothing at all: the key seemed broken
    import arcade

    from demo_game.app import DemoWindow
    from demo_game.mapgen import WATER, from_walkable

    drawn: list[str] = []
    monkeypatch.setattr(arcade.Text, "draw", lambda text: drawn.append(text.text))
    terrain = from_walkable(np.ones((4, 12), bool))
    terrain.kind[:, 3:9] = WATER  # a river between the armies
    sim = Simulation(terrain, agents=2, seed=1, max_expansions=1000, cell_size=20)
    window = DemoWindow(sim, visible=False, fixed_dt=1 / 30, overlays=set())
    try:
        window.on_mouse_motion(130, 40, 0, 0)  # over the river
        for key, said in ((arcade.key.B, "no building here: buildings stand on grass and marsh"),
                          (arcade.key.M, "no navmesh to show: N switches navigation to a navmesh"),
                          (arcade.key.E, "no group order in progress: E shows the flow field of the newest")):
            window.on_key_press(key, 0)
            drawn.clear()
            window.on_draw()
            assert said in drawn
        assert sim.grid.version == 0 and window.show["navmesh"] and window.show["expansions"]
        window.on_key_press(arcade.key.M, 0)  # hidden again: nothing to say
        window.on_key_press(arcade.key.N, 0)  # a navmesh is coming: M has something to show
        window.on_key_press(arcade.key.M, 0)
        window.on_key_press(arcade.key.M, 0)
        assert len(sim.messages) == 3
    finally:
        sim.close()
        window.close()


def test_the_window_keeps_arcades_mouse_polling_handler() -> None:
    # the demo kept the mouse's last position in window.mouse, over arcade's polling handler of that name
    # (window.mouse["x"], window.mouse.LEFT): a tuple after the first mouse move, and B built where it pointed
    import arcade
    import pyglet

    from demo_game.app import DemoWindow

    sim = Simulation(generate(seed=7), agents=2, seed=7, max_expansions=1000)
    window = DemoWindow(sim, visible=False, fixed_dt=1 / 30)
    try:
        window.on_mouse_motion(300, 500, 0, 0)
        assert window.mouse is None or isinstance(window.mouse, pyglet.window.mouse.MouseStateHandler)
        assert window.pointer == (300, 500)
        buildings = int((sim.terrain.kind == BUILDING).sum())
        window.on_key_press(arcade.key.B, 0)  # built where the mouse points
        assert sim.grid.version == 1 and (sim.terrain.kind == BUILDING).sum() > buildings
        x, y = sim.grid.world_to_cell((300, 500)).tolist()
        assert sim.terrain.kind[y, x] == BUILDING
    finally:
        window.close()
