"""The demo window: drawing, mouse and keyboard, HUD; and the scripted headless run.

World coordinates are window pixels (x right, y up); one map cell is ``CELL_PX`` pixels on the
built-in map (loaded maps are scaled to fit a window of about 1024 x 768).
"""

from __future__ import annotations

import argparse
import io
import json
import math
import sys
import time
import traceback
from collections import deque
from collections.abc import Callable
from pathlib import Path as FilePath
from typing import Any

import arcade
import numpy as np
import numpy.typing as npt

import gamenav
from demo_game.mapgen import Terrain, from_walkable, generate
from demo_game.render import SELECTED_COLOR, TEAM_COLORS, TerrainPicture, UnitRenderer
from demo_game.sim import Simulation
from gamenav.adapters.arcade import draw_expansions, draw_grid, draw_navmesh, draw_path

__all__ = ["DemoWindow", "LoadingCancelled", "LoadingWindow", "display_problem", "load_terrain", "main",
           "run_headless"]

CELL_PX = 8
AGENTS = 400
"""The units ``--agents`` gives by default: fewer on a map of fewer free cells (one a cell: 400 discs on the 19 free
cells of tiny.json lay in a heap that never parted)."""
MAX_AGENTS = 100_000
"""The most units ``--agents`` takes (100,000 already take seconds a frame; a trillion failed with a MemoryError)."""
MAX_SIDE_PX = 8_192
"""The longest side of the window and of the terrain picture: arcade's texture atlas (16384 px a side on
most GPUs, a border round each image) must hold it beside the HUD's glyphs."""
LOADING_MIN_PX = (880, 240)
"""The smallest loading screen: room for its title, bar and note (the window of a small map cut them off)."""
GAME_MIN_PX = (640, 240)
"""The smallest game window: room for the HUD over the help (about 600 x 215 px; a map smaller than this
is drawn in the bottom-left corner)."""
HUD_LINES = 9
TILED_SUFFIXES = (".json", ".tmj", ".tmx")
"""The Tiled maps ``--map`` takes (the others are Moving AI maps), whose ``--layer`` holds the walls."""
OVERLAYS = ("grid", "paths", "navmesh", "expansions", "help")
CONTROLS = """\
left drag: select   right click: move   Tab: switch team   A: select all
B: place building   X: remove building   N: grid/navmesh navigation   O: ORCA/separation
G: grid   P: paths   M: navmesh   E: expansions   +/-: budget   Space: pause   H: help"""


def load_terrain(map_file: str | None, seed: int, layer: str = "walls") -> Terrain:
    """The built-in generated map, a Moving AI ``.map`` file, or a Tiled ``.json``/``.tmx`` map
    whose tile layer ``layer`` holds the walls."""
    if map_file is None:
        return generate(seed=seed)
    if FilePath(map_file).suffix.lower() in TILED_SUFFIXES:
        from gamenav.adapters.arcade import grid_from_tilemap

        _check_tile_images(map_file)
        return from_walkable(grid_from_tilemap(arcade.load_tilemap(map_file, lazy=True), layer).passable)
    return from_walkable(np.array(gamenav.TileGrid.from_movingai(map_file).passable))


def _check_tile_images(map_file: str) -> None:
    """An InvalidInputError naming the tile images of a Tiled map that cannot be found (as arcade looks
    for them: as given, or in the map's folder): arcade loads every tile's image, and said only
    "TypeError: Invalid path type: <class 'NoneType'> for None" (a map copied without its tileset's image)."""
    import pytiled_parser

    folder = FilePath(map_file).parent
    tilesets = pytiled_parser.parse_map(FilePath(map_file)).tilesets.values()
    images = {tileset.image for tileset in tilesets if tileset.image}
    images |= {tile.image for tileset in tilesets for tile in (tileset.tiles or {}).values() if tile.image}
    missing = sorted(str(image) for image in images if not (FilePath(image).exists() or (folder / image).exists()))
    if missing:
        raise gamenav.InvalidInputError(f"the map's tile images are missing (arcade loads every tile's image; "
                                        f"looked for them in {str(folder)!r}): {', '.join(missing)}")


def cell_px_for(shape: tuple[int, int]) -> int:
    """Pixels per cell (at least 2) so that the map fills about 1024 x 768 (8 for the built-in map)."""
    h, w = shape
    return int(max(2, min(1024 // w, 768 // h)))


class DemoWindow(arcade.Window):
    """The RTS scene: terrain, units, overlays and HUD over a :class:`Simulation`."""

    def __init__(self, sim: Simulation, *, visible: bool = True, fixed_dt: float | None = None,
                 overlays: set[str] | None = None) -> None:
        g = sim.grid
        super().__init__(max(int(g.width * g.cell_size), GAME_MIN_PX[0]),
                         max(int(g.height * g.cell_size), GAME_MIN_PX[1]), "gamenav demo",
                         visible=visible, vsync=False, update_rate=1 / 60)
        self.sim = sim
        self.fixed_dt = fixed_dt
        self.units = UnitRenderer(self.ctx, 2 * len(sim.crowd) + 64)  # room for reinforcements
        self.background = TerrainPicture(sim.terrain, int(sim.grid.cell_size))
        self.background_version = sim.grid.version
        self.team = 0
        self.selected = np.zeros(len(sim.crowd), bool)
        self.drag_start: tuple[float, float] | None = None
        self.pointer = (self.width / 2, self.height / 2)
        """The mouse's last position (``mouse`` is arcade's polling handler)."""
        self.paused = False
        shown = {"paths", "help"} if overlays is None else overlays
        unknown = shown - set(OVERLAYS)
        if unknown:
            raise ValueError(f"unknown overlays {sorted(unknown)}; choose from {', '.join(OVERLAYS)}")
        self.show = {name: name in shown for name in OVERLAYS}
        self.frame_times: deque[float] = deque(maxlen=60)
        self._last_frame = time.perf_counter()
        self.hud = [arcade.Text("", 8, 0, (255, 255, 255, 255), 11,
                                font_name=("DejaVu Sans Mono", "Courier New", "monospace"))
                    for _ in range(HUD_LINES)]
        self.on_resize(self.width, self.height)
        self.help = [arcade.Text(line, 8, 8 + 15 * i, (255, 255, 255, 230), 10)
                     for i, line in enumerate(reversed(CONTROLS.splitlines()))]
        arcade.set_background_color((20, 22, 26))

    # -- frame ----------------------------------------------------------------------------
    def on_update(self, delta_time: float) -> None:
        if self.paused:
            return
        dt = self.fixed_dt if self.fixed_dt is not None else min(delta_time, 1 / 20)
        ids = self.sim.crowd.ids.copy()
        self.sim.step(dt)
        if not np.array_equal(ids, self.sim.crowd.ids):  # units died or spawned: keep the selection by id
            self.selected = np.isin(self.sim.crowd.ids, ids[self.selected[:len(ids)]])

    def on_draw(self) -> None:
        now = time.perf_counter()
        self.frame_times.append(now - self._last_frame)
        self._last_frame = now
        self.clear()
        sim = self.sim
        if self.background_version != sim.grid.version:  # buildings placed or demolished: redraw their cells
            self.background.update(self.ctx.default_atlas)
            self.background_version = sim.grid.version
        world = arcade.LBWH(0, 0, sim.grid.width * sim.grid.cell_size, sim.grid.height * sim.grid.cell_size)
        arcade.draw_texture_rect(self.background.texture, world, pixelated=True)  # under the units, any window size
        field = sim.last_field if self.show["expansions"] else None
        if field is not None:
            draw_expansions(sim.grid, field, alpha=90)
        if self.show["grid"]:
            draw_grid(sim.grid, line_color=(255, 255, 255, 28), blocked_color=(220, 40, 40, 60))
        if self.show["navmesh"] and sim.navmesh is not None:
            draw_navmesh(sim.navmesh, highlight=sim.recent_patches())  # re-triangulated patches lit
        if self.show["paths"]:
            self._draw_paths()
        colors = TEAM_COLORS[sim.team]
        colors[self.selected] = SELECTED_COLOR
        self.units.draw(sim.crowd.positions, colors, radius=sim.crowd.radii)  # true sizes: no overlaps
        if self.drag_start is not None:
            (x0, x1) = sorted((self.drag_start[0], self.pointer[0]))
            (y0, y1) = sorted((self.drag_start[1], self.pointer[1]))
            arcade.draw_lrbt_rectangle_outline(x0, x1, y0, y1, (255, 255, 255, 220), 1)
        self._draw_hud()

    def _draw_paths(self) -> None:
        crowd = self.sim.crowd
        shown = np.flatnonzero(self.selected & ~crowd.arrived)
        if len(shown) == 0:
            shown = np.flatnonzero(~crowd.arrived)
        for points in crowd.remaining_paths(crowd.ids[shown[:60]]):  # rows -> ids (reinforcements)
            draw_path(_corners(points), color=(255, 255, 255, 90), width=1)

    def _draw_hud(self) -> None:
        sim = self.sim
        fps = len(self.frame_times) / max(sum(self.frame_times), 1e-9)
        upd, path = sim.update_ms, sim.path_ms  # means: last 60 frames; max: the run (as in the stats)
        q = sim.queue_stats()
        crowd = sim.crowd
        nav = "navmesh" if sim.navmesh is not None else "navmesh (building)" if sim.navmesh_on else "grid"
        lines = [
            f"FPS {fps:5.1f}   units {len(crowd)}   team {'blue' if self.team == 0 else 'red'}"
            f"   selected {int(self.selected.sum())}{'   PAUSED' if self.paused else ''}",
            f"update   {upd.recent_mean():5.2f} ms (max {upd.max:5.2f})   "
            f"steering {sim.steer_ms.recent_mean():5.2f} ms ({crowd.avoidance} {sim.avoid_ms.recent_mean():5.2f})",
            f"pathfind {path.recent_mean():5.2f} ms / budget {sim.budget_ms:.3g} ms (max {path.max:5.2f})",
            f"queue {int(q['pending']):4d}   waiting units {crowd.pending:4d}   "
            f"latency p50 {q['latency_p50']:.0f} / p95 {q['latency_p95']:.0f} frames",
            f"cache hit rate {q['cache_hit_rate'] * 100:5.1f} %   navigation {nav}",
            f"arrived {int(crowd.arrived.sum())}   failed {int(crowd.failed.sum())}   "
            f"re-paths stuck {crowd.counters['stuck_repaths']} edit {crowd.counters['edit_repaths']}",
        ] + sim.recent_messages()
        shown = self.hud[:len(lines)]
        for text, line in zip(shown, lines, strict=True):
            text.text = line
        _draw_panel(shown, self.height - 18 - 15 * len(lines), self.height)
        if self.show["help"]:
            _draw_panel(self.help, 0, 14 + 15 * len(self.help))

    def on_resize(self, width: int, height: int) -> None:
        """Keep the HUD at the top of the window (the map stays one pixel per world unit)."""
        for i, text in enumerate(self.hud):
            text.y = height - 16 - 15 * i

    # -- input ----------------------------------------------------------------------------
    def on_mouse_motion(self, x: int, y: int, dx: int, dy: int) -> None:
        self.pointer = (x, y)

    def on_mouse_press(self, x: int, y: int, button: int, modifiers: int) -> None:
        self.pointer = (x, y)
        if button == arcade.MOUSE_BUTTON_LEFT:
            self.drag_start = (x, y)
        elif button == arcade.MOUSE_BUTTON_RIGHT:
            self.sim.order(np.flatnonzero(self.selected), (float(x), float(y)))

    def on_mouse_drag(self, x: int, y: int, dx: int, dy: int, buttons: int, modifiers: int) -> None:
        self.pointer = (x, y)

    def on_mouse_release(self, x: int, y: int, button: int, modifiers: int) -> None:
        self.pointer = (x, y)
        if button != arcade.MOUSE_BUTTON_LEFT or self.drag_start is None:
            return
        start, self.drag_start = self.drag_start, None
        add = bool(modifiers & arcade.key.MOD_SHIFT)
        if not add:
            self.selected[:] = False
        if abs(x - start[0]) + abs(y - start[1]) < 4:
            unit = self.sim.nearest_unit((x, y), self.team, radius=2 * self.sim.grid.cell_size)
            if unit is not None:
                self.selected[unit] = True
        else:
            self.selected[self.sim.select(start, (x, y), self.team)] = True

    def on_key_press(self, symbol: int, modifiers: int) -> None:
        sim, key = self.sim, arcade.key
        if symbol == key.B:
            sim.place_building(self.pointer)
        elif symbol in (key.X, key.DELETE):
            sim.remove_building(self.pointer)
        elif symbol == key.N:
            self.show["navmesh"] = sim.toggle_navmesh()
        elif symbol == key.O:
            sim.toggle_avoidance()
        elif symbol == key.TAB:
            self.team = 1 - self.team
            self.selected[:] = False
        elif symbol == key.A:
            self.selected[:] = sim.team == self.team
        elif symbol in (key.PLUS, key.EQUAL, key.NUM_ADD):
            sim.set_budget(sim.budget_ms * 2)
        elif symbol in (key.MINUS, key.NUM_SUBTRACT):
            sim.set_budget(sim.budget_ms / 2)
        elif symbol == key.SPACE:
            self.paused = not self.paused
        elif symbol == key.ESCAPE:
            self.close()
        else:
            names = {key.G: "grid", key.P: "paths", key.M: "navmesh", key.E: "expansions", key.H: "help"}
            if symbol in names:
                self._toggle_overlay(names[symbol])

    def _toggle_overlay(self, name: str) -> None:
        """Show or hide the overlay ``name``; one shown with nothing to draw says why on the HUD (it drew nothing)."""
        self.show[name] = not self.show[name]
        sim = self.sim
        if self.show[name] and name == "navmesh" and sim.navmesh is None and not sim.navmesh_on:
            sim.say("no navmesh to show: N switches navigation to a navmesh")
        elif self.show[name] and name == "expansions" and sim.last_field is None:
            sim.say("no group order in progress: E shows the flow field of the newest")


def _draw_panel(texts: list[arcade.Text], bottom: float, top: float) -> None:
    """``texts`` on a dark box from the window's left edge to just past the longest of them (their
    widths depend on the numbers shown and on the font found)."""
    right = max(text.x + text.content_width for text in texts) + 8
    arcade.draw_lrbt_rectangle_filled(0, right, bottom, top, (0, 0, 0, 150))
    for text in texts:
        text.draw()


def _corners(points: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """``points`` ``(k, 2)`` without the inner points of straight runs (equal steps): the same polyline
    in fewer vertices (a flow-field trace has one a cell, up to 6,000 on a 1550 x 1550 maze)."""
    if len(points) < 3:
        return points
    step = np.diff(points, axis=0)
    corners: npt.NDArray[np.float64] = points[np.concatenate([[True], (step[1:] != step[:-1]).any(axis=1), [True]])]
    return corners


# -- headless scripted run ---------------------------------------------------------------
def _click(window: DemoWindow, x: float, y: float, button: int) -> None:
    window.on_mouse_press(int(x), int(y), button, 0)
    window.on_mouse_release(int(x), int(y), button, 0)


def _drag_select(window: DemoWindow, lo: tuple[float, float], hi: tuple[float, float]) -> None:
    window.on_mouse_press(int(lo[0]), int(lo[1]), arcade.MOUSE_BUTTON_LEFT, 0)
    window.on_mouse_drag(int(hi[0]), int(hi[1]), 0, 0, arcade.MOUSE_BUTTON_LEFT, 0)
    window.on_mouse_release(int(hi[0]), int(hi[1]), arcade.MOUSE_BUTTON_LEFT, 0)


def script_events(window: DemoWindow, frames: int) -> dict[int, Callable[[], None]]:
    """Scripted input, by frame, through the same handlers the mouse and keyboard use:

    frame 1: both teams get a group move order across the map (flow fields); a small squad of
    each team gets its own order (path requests through the queue); frame 25% of the run: a
    building is placed on the blue army; 35%: one on the red army's way; 50%: a generated
    building is removed; navmesh navigation is toggled on at 60% and off at 75% (when present).
    """
    sim = window.sim
    cs = sim.grid.cell_size
    w, h = sim.grid.width * cs, sim.grid.height * cs  # the map (a small map's window is bigger)

    def orders() -> None:
        for team, target in ((0, (0.66 * w, 0.5 * h)), (1, (0.34 * w, 0.5 * h))):
            window.team = team
            _drag_select(window, (0, 0), (w, h))
            squad = np.flatnonzero(window.selected)[:10]
            window.selected[squad] = False
            _click(window, *target, arcade.MOUSE_BUTTON_RIGHT)
            window.selected[:] = False
            window.selected[squad] = True
            _click(window, target[0], target[1] + (0.3 if team == 0 else -0.3) * h, arcade.MOUSE_BUTTON_RIGHT)
        window.on_key_press(arcade.key.TAB, 0)  # back to blue, as a player would: the red squad is deselected

    def key_at(symbol: int, point: tuple[float, float]) -> None:
        window.on_mouse_motion(int(point[0]), int(point[1]), 0, 0)
        window.on_key_press(symbol, 0)
        window.on_key_release(symbol, 0)

    def on_army(team: int) -> tuple[float, float]:
        moving = (sim.team == team) & ~sim.crowd.arrived
        pts = sim.crowd.positions[moving] if moving.any() else sim.crowd.positions[sim.team == team]
        return tuple(np.median(pts, axis=0)) if len(pts) else (w / 2, h / 2)  # --agents 1: no red army

    def remove_one() -> None:
        ys, xs = np.nonzero(sim.terrain.kind == 4)
        if len(xs):
            key_at(arcade.key.X, tuple(sim.grid.cell_to_world((xs[0], ys[0]))))

    def ahead_of_red() -> tuple[float, float]:
        x, y = on_army(1)
        return (x - 6 * cs, y)

    events: dict[int, Callable[[], None]] = {1: orders}
    events[max(2, frames // 4)] = lambda: key_at(arcade.key.B, on_army(0))
    events[max(3, frames * 35 // 100)] = lambda: key_at(arcade.key.B, ahead_of_red())
    events[max(4, frames // 2)] = remove_one
    if sim.navmesh_available:
        events[max(5, frames * 6 // 10)] = lambda: key_at(arcade.key.N, (0, 0))
        events[max(6, frames * 3 // 4)] = lambda: key_at(arcade.key.N, (0, 0))
    return events


def run_headless(sim: Simulation, frames: int, *, screenshot: str | None = None, dt: float = 1 / 30,
                 on_frame: Callable[[Simulation], None] | None = None, overlays: set[str] | None = None,
                 screenshot_frame: int | None = None) -> dict[str, Any]:
    """Run the scripted scene in an off-screen arcade window for ``frames`` frames.

    Each frame runs the simulation step and draws everything (as in the game). After every
    frame the number of units on blocked cells is counted (``blocked_violations`` in the stats)
    and ``on_frame(sim)`` is called. The screenshot shows frame ``screenshot_frame`` (default:
    the last). Returns the stats (see :meth:`Simulation.stats`).

    Raises:
        ValueError: ``screenshot_frame`` is not one of the run's frames ``0 .. frames - 1``.
    """
    if screenshot_frame is not None and not 0 <= screenshot_frame < frames:  # (was moved into the run: another frame)
        raise ValueError(f"screenshot_frame must be one of the run's frames 0..{frames - 1}, got {screenshot_frame}")
    shot_at = frames - 1 if screenshot_frame is None else screenshot_frame
    gamenav.warmup()  # load (first run: compile) every kernel before the first timed frame
    window = DemoWindow(sim, visible=False, fixed_dt=dt, overlays=overlays)
    try:
        events = script_events(window, frames)
        violations = 0
        draw_ms: list[float] = []
        for frame in range(frames):
            if frame in events:
                events[frame]()
            window.on_update(dt)
            t0 = time.perf_counter()
            window.on_draw()
            window.ctx.finish()  # finish rendering here, not during the next timed update
            draw_ms.append((time.perf_counter() - t0) * 1e3)
            violations += sim.units_on_blocked_cells()
            if screenshot and frame == shot_at:
                FilePath(screenshot).parent.mkdir(parents=True, exist_ok=True)
                image = arcade.get_image(0, 0, window.width, window.height).convert("RGB")
                if FilePath(screenshot).suffix.lower() == ".png":
                    image = image.quantize(colors=256)  # ~4x smaller PNG (JPEG cannot store a palette)
                image.save(screenshot, optimize=True)
            if on_frame is not None:
                on_frame(sim)
        stats = sim.stats()
        stats["blocked_violations"] = violations
        stats["draw_ms_mean"] = float(np.mean(draw_ms)) if draw_ms else 0.0
        return stats
    finally:
        window.close()


class LoadingCancelled(Exception):
    """The loading window was closed: raised by :meth:`LoadingWindow.progress` to stop :func:`gamenav.warmup`."""


class LoadingWindow(arcade.Window):
    """The loading screen shown while :func:`gamenav.warmup` loads (first run: compiles) the kernels.

    Pass :meth:`progress` as warmup's ``progress``: it redraws the bar between kernel groups and
    handles window events, so the window stays responsive. Closing it sets :attr:`cancelled`, and
    the next progress call raises :class:`LoadingCancelled` (no more kernels are compiled).
    """

    def __init__(self, width: int, height: int, *, visible: bool = True) -> None:
        super().__init__(width, height, "gamenav demo - loading", visible=visible, vsync=False)
        self.cancelled = False
        self.started = time.perf_counter()
        font = ("DejaVu Sans", "Arial", "sans-serif")
        cx, cy = width / 2, height / 2
        self.title = arcade.Text("gamenav demo", cx, cy + 70, (235, 235, 235, 255), 26, anchor_x="center",
                                 font_name=font)
        self.status = arcade.Text("", cx, cy + 28, (210, 210, 210, 255), 13, anchor_x="center", font_name=font)
        self.note = arcade.Text("The first run compiles the pathfinding kernels with numba (about 20 s); "
                                "later runs load them from the cache.", cx, cy - 52, (150, 150, 150, 255), 11,
                                anchor_x="center", font_name=font)
        arcade.set_background_color((20, 22, 26))

    def on_close(self) -> None:
        self.cancelled = True
        super().on_close()

    def progress(self, done: int, total: int, name: str) -> None:
        """Draw the bar at ``done / total`` groups with ``name`` running (a warmup progress callback).

        Raises:
            LoadingCancelled: the window was closed.
        """
        if not self.cancelled:
            self.dispatch_events()
        if self.cancelled:
            raise LoadingCancelled
        self.switch_to()
        self.draw_progress(done, total, name)
        self.flip()

    def draw_progress(self, done: int, total: int, name: str) -> None:
        """Draw the loading screen (no flip)."""
        self.clear()
        bar_w, bar_h = max(min(480, self.width - 80), 0), 18  # none in a window under 80 px (a map of a few cells)
        x0, y0 = (self.width - bar_w) / 2, self.height / 2 - 9
        frac = done / total if total else 1.0
        arcade.draw_lrbt_rectangle_filled(x0, x0 + bar_w, y0, y0 + bar_h, (50, 54, 62))
        arcade.draw_lrbt_rectangle_filled(x0, x0 + bar_w * frac, y0, y0 + bar_h, (80, 160, 255))
        arcade.draw_lrbt_rectangle_outline(x0, x0 + bar_w, y0, y0 + bar_h, (200, 200, 200), 1)
        step = "ready" if done >= total else f"preparing {name} kernels"
        self.status.text = f"{step}   {done}/{total}   {time.perf_counter() - self.started:.0f} s"
        for text in (self.title, self.status, self.note):
            text.draw()


def display_problem() -> str | None:
    """Why no window can be opened (pyglet finds no display, or arcade runs headless), or None when one can."""
    if arcade.headless:  # arcade.run() would draw off-screen for ever, with no input to quit
        return "ARCADE_HEADLESS is set: arcade draws off-screen"
    import pyglet

    display = getattr(pyglet, "display", None) or getattr(pyglet, "canvas", None)
    try:
        display.get_display()  # type: ignore[union-attr]
    except Exception as exc:  # noqa: BLE001 - pyglet's NoSuchDisplayException is platform-specific
        return f"{type(exc).__name__}: {exc}"
    return None


def _number(kind: type, low: float, low_ok: bool) -> Callable[[str], Any]:
    """An argparse type: a finite ``kind`` (int or float) above ``low`` (or equal, with ``low_ok``)."""
    noun = "an integer" if kind is int else "a number"

    def parse(text: str) -> Any:
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected {noun}, got {text!r}") from None
        if (kind is float and not math.isfinite(value)) or value < low or (value == low and not low_ok):
            raise argparse.ArgumentTypeError(f"expected {noun} {'>=' if low_ok else '>'} {low:g}, got {text!r}")
        return value
    parse.__name__ = kind.__name__  # argparse names the type in its messages
    return parse


def _overlays(text: str) -> set[str]:
    """An argparse type: comma-separated overlay names."""
    names = {name.strip() for name in text.split(",") if name.strip()}
    unknown = names - set(OVERLAYS)
    if unknown:
        raise argparse.ArgumentTypeError(f"unknown overlays {sorted(unknown)}; choose from {', '.join(OVERLAYS)}")
    return names


def _check_output(parser: argparse.ArgumentParser, option: str, path: str, *, image: bool = False) -> None:
    """Fail before the run, not after it: ``path`` must be a file that can be written, in a folder that
    exists or can be made (an ``image`` of a type PIL writes)."""
    file = FilePath(path)
    if file.is_dir():
        parser.error(f"{option} {path!r}: is a folder")
    if image:
        from PIL import Image

        Image.init()
        kind = Image.registered_extensions().get(file.suffix.lower())
        try:
            Image.new("RGB", (1, 1)).save(io.BytesIO(), format=kind)
        except (KeyError, OSError, ValueError):
            parser.error(f"{option} {path!r}: not an image type PIL can write (e.g. shot.png)")
    try:
        file.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        parser.error(f"{option} {path!r}: cannot make its folder {str(file.parent)!r} ({exc.strerror})")
    existed = file.exists()
    try:
        with file.open("ab"):  # as the run will: a read-only file or folder, /proc, /sys fail here
            pass
    except OSError as exc:
        parser.error(f"{option} {path!r}: cannot write to it ({exc.strerror})")
    if not existed:
        file.resolve().unlink()  # (a dangling link stays: its target goes)


def main(argv: list[str] | None = None) -> int:
    """Command line entry point (``python -m demo_game --help``)."""
    parser = argparse.ArgumentParser(prog="python -m demo_game",
                                     description="gamenav demo: an arcade RTS scene with hundreds of units "
                                                 "(two teams, group orders, buildings, HUD).",
                                     epilog="controls:\n" + CONTROLS,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--map", help="a Moving AI .map or Tiled .json/.tmx file, or the name of a map shipped with "
                                      "gamenav such as arena.map (default: the built-in map)")
    parser.add_argument("--layer", help="the Tiled tile layer holding walls (default 'walls')")
    parser.add_argument("--agents", type=int, help=f"number of units, 1..{MAX_AGENTS} (default {AGENTS}, or one a free "
                                                   f"cell on a map of fewer)")
    parser.add_argument("--seed", type=_number(int, 0, True), default=7, help="map and spawn seed (>= 0; default 7)")
    parser.add_argument("--budget", type=_number(float, 0, False), default=1.0,
                        help="pathfinding budget in ms per frame (default 1)")
    parser.add_argument("--reinforce", type=_number(float, 0, True), default=3.0,
                        help="every so many seconds units die and reinforcements spawn at buildings "
                             "(0: off; default 3)")
    parser.add_argument("--headless", action="store_true", help="scripted run without a display")
    parser.add_argument("--frames", type=_number(int, 1, True), default=600,
                        help="frames of the headless run (default 600)")
    parser.add_argument("--dt", type=_number(float, 0, False), default=1 / 30,
                        help="seconds per headless frame (default 1/30)")
    parser.add_argument("--screenshot", help="save a headless frame to this PNG (the last one by default)")
    parser.add_argument("--screenshot-frame", type=_number(int, 0, True), help="which frame --screenshot saves")
    parser.add_argument("--stats", help="write the headless stats JSON here")
    parser.add_argument("--overlays", type=_overlays, default="paths",
                        help="comma-separated overlays shown at start: grid, paths, navmesh, expansions, help "
                             "(default paths)")
    args = parser.parse_args(argv)
    if args.agents is not None and args.agents < 1:
        parser.error(f"--agents must be >= 1, got {args.agents}")
    if args.agents is not None and args.agents > MAX_AGENTS:
        parser.error(f"--agents must be <= {MAX_AGENTS}, got {args.agents}")
    if args.layer is not None and FilePath(args.map or "").suffix.lower() not in TILED_SUFFIXES:
        parser.error(f"--layer names the tile layer of a Tiled map (--map FILE.json or FILE.tmx) that holds the walls; "
                     f"{'the built-in map' if args.map is None else repr(args.map)} has no layers")
    if args.screenshot_frame is not None and not args.screenshot:
        parser.error("--screenshot-frame needs --screenshot (the file that frame is saved to)")
    if args.screenshot_frame is not None and args.screenshot_frame >= args.frames:
        parser.error(f"--screenshot-frame {args.screenshot_frame} is past the run's last frame "
                     f"(--frames {args.frames}: frames 0..{args.frames - 1})")
    for option, value in (("--screenshot", args.screenshot), ("--stats", args.stats)):
        if value and not args.headless:
            parser.error(f"{option} needs --headless (the scripted run writes it; the game window does not)")
    if args.screenshot and args.stats and FilePath(args.screenshot).resolve() == FilePath(args.stats).resolve():
        parser.error(f"--screenshot and --stats name the same file {args.stats!r}: the stats would overwrite the "
                     f"screenshot")
    if args.screenshot:
        _check_output(parser, "--screenshot", args.screenshot, image=True)
    if args.stats:
        _check_output(parser, "--stats", args.stats)
    if not args.headless:
        problem = display_problem()
        if problem is not None:
            print(f"python -m demo_game: no display to open a window on ({problem}).\n"
                  "Run the scripted scene without a window instead, e.g.\n"
                  "  python -m demo_game --headless --frames 600 --stats stats.json --screenshot shot.png",
                  file=sys.stderr)
            return 2
    map_file = args.map
    if map_file is not None:
        try:
            map_file = gamenav.data.map_file(map_file, (".map", ".json", ".tmx"))
        except gamenav.InvalidInputError as exc:
            parser.error(f"--map {map_file!r}: {exc}")
    try:
        terrain = load_terrain(map_file, args.seed, "walls" if args.layer is None else args.layer)
    except Exception as exc:  # noqa: BLE001 - a malformed map: one line, no traceback
        problem = str(exc) if isinstance(exc, gamenav.GamenavError) else f"{type(exc).__name__}: {exc}"
        print(f"python -m demo_game: cannot load the map {map_file}: {problem}", file=sys.stderr)
        return 2
    overlays: set[str] = args.overlays
    cell_px = cell_px_for(terrain.kind.shape)
    h, w = terrain.kind.shape
    if max(w, h) * cell_px > MAX_SIDE_PX:
        print(f"python -m demo_game: the map {map_file} is too big for the demo: {w} x {h} cells at {cell_px} px "
              f"need a {w * cell_px} x {h * cell_px} px window (at most {MAX_SIDE_PX} px a side)", file=sys.stderr)
        return 2
    if not args.headless:
        loading = LoadingWindow(max(w * cell_px, LOADING_MIN_PX[0]), max(h * cell_px, LOADING_MIN_PX[1]))
        try:
            gamenav.warmup(progress=loading.progress)  # before anything is timed: no compile in a frame
        except LoadingCancelled:  # the window was closed while loading: quit without compiling the rest
            return 0
        loading.close()
    agents = args.agents if args.agents is not None else max(1, min(AGENTS, int(terrain.walkable.sum())))
    try:
        sim = Simulation(terrain, agents=agents, seed=args.seed, budget_ms=args.budget, cell_size=cell_px,
                         reinforce_seconds=None if args.reinforce <= 0 else args.reinforce)
    except gamenav.GamenavError as exc:  # e.g. a map with no room for an army
        print(f"python -m demo_game: cannot start on this map: {exc}", file=sys.stderr)
        return 2
    try:
        if not args.headless:
            DemoWindow(sim, overlays=overlays | {"help"})
            arcade.run()
            return 0
        stats = run_headless(sim, args.frames, screenshot=args.screenshot, dt=args.dt, overlays=overlays,
                             screenshot_frame=args.screenshot_frame)
    except Exception:  # noqa: BLE001 - report, then fail the run
        traceback.print_exc()
        return 1
    finally:
        sim.close()
    text = json.dumps(stats, indent=2)
    print(text)
    if args.stats:
        FilePath(args.stats).write_text(text + "\n")
    failed = False
    if stats["blocked_violations"]:
        print(f"error: units stood on blocked cells {stats['blocked_violations']} times", file=sys.stderr)
        failed = True
    for error in stats["errors"]:
        print(f"error: {error}", file=sys.stderr)
        failed = True
    return 1 if failed else 0
