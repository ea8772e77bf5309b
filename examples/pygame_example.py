"""Click-to-move with gamenav in pygame: a Tiled map (pytmx), a path follower, debug drawing.

    python examples/pygame_example.py                          # a window; Esc quits
    python examples/pygame_example.py --headless --frames 600  # no window, scripted clicks

The level is gamenav's sample Tiled map ``level.tmx`` (or ``--map FILE.tmx``, or the name of a Tiled
map shipped with gamenav such as ``tiny.tmx``): the grid comes from
its ``walls`` tile layer (:func:`gamenav.adapters.pygame.grid_from_tmx`), a navmesh from its
``obstacles`` object layer (:func:`gamenav.adapters.pygame.navmesh_from_tmx`).

Left click: move the agent there along the grid (orange path); the navmesh's any-angle path to the
same point is drawn in blue for comparison. Right click: toggle the wall cell under the cursor (the
agent re-plans when its route is cut; a wall made so is carved into the navmesh too, and the blue path
found again). Headless runs print a one-line summary.

Needs the pygame extra (pygame-ce and pytmx): ``pip install -e ".[pygame]"`` in a gamenav
checkout. Exits 0; 2 with a one-line message for a map it cannot use (non-zero on any other error).
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from gamenav import NavMesh, TileGrid

START = (48, 48)  # (on a map with a wall there, or smaller: the centre of the nearest free cell)
# Headless script: frame -> (mouse button, pixel position).
SCRIPT = {1: (1, (600, 440)), 60: (3, (296, 120))}  # the right click walls off a cell of the route


def start_point(grid: TileGrid) -> tuple[float, float]:
    """START, or the centre of the free cell of ``grid`` nearest to it when START is on a wall or off the map."""
    from gamenav import InvalidInputError

    if grid.is_passable(*grid.world_to_cell(START).tolist()):
        return START
    free = grid.cell_to_world(np.argwhere(grid.passable)[:, ::-1])  # (argwhere: [y, x])
    if not len(free):
        raise InvalidInputError("its walls layer leaves no tile free")
    x, y = free[np.argmin(np.hypot(*(free - START).T))].tolist()
    return x, y


def toggle_wall(grid: TileGrid, mesh: NavMesh, carved: dict[tuple[int, int], int], cell: tuple[int, int]) -> None:
    """Wall or open the grid cell ``cell``; a wall made here is carved into ``mesh`` too (``carved``: cell ->
    obstacle id), and taken out again when opened (the map's own walls come from its obstacles layer: they stay)."""
    x, y = cell
    walled = bool(grid.passable[y, x])
    grid.set_walkable(cell, not walled)
    if walled:
        corner = grid.cell_to_world(cell) - grid.cell_size / 2
        carved[cell] = mesh.add_obstacle(corner + grid.cell_size * np.array([(0, 0), (1, 0), (1, 1), (0, 1)]))
    elif cell in carved:
        mesh.remove_obstacle(carved.pop(cell))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--map", default=None, help="a Tiled .tmx map with a 'walls' tile layer and "
                        "an 'obstacles' object layer, or the name of one shipped with gamenav such as "
                        "tiny.tmx (default: gamenav's sample level.tmx)")
    parser.add_argument("--frames", type=int, default=None,
                        help="stop after N frames (default: run until closed; with --headless, 600)")
    parser.add_argument("--headless", action="store_true",
                        help="no window or sound (SDL dummy drivers), fixed 1/60 s steps, scripted clicks")
    args = parser.parse_args(argv)
    if args.frames is None:  # (headless, nothing can close the window: the run must end by itself)
        args.frames = 600 if args.headless else 0
    if args.frames < 1 and (args.headless or args.frames < 0):
        parser.error(f"--frames must be {'>= 1 with --headless' if args.headless else '>= 0'}, got {args.frames}")
    if args.headless:
        os.environ["SDL_VIDEODRIVER"] = "dummy"
        os.environ["SDL_AUDIODRIVER"] = "dummy"  # no sound device: no ALSA errors on stderr
    import pygame
    import pytmx

    import gamenav
    from gamenav.adapters.pygame import PathFollower, draw_grid, draw_path, grid_from_tmx, navmesh_from_tmx

    try:  # (a file of that name first, else a shipped map: as the demo's --map)
        level_file = gamenav.data.map_file(args.map or "level.tmx", (".tmx",))
    except gamenav.InvalidInputError as exc:
        parser.error(f"--map {args.map!r}: {exc}")
    try:  # the size first (load_pygame needs a display mode), and the map's layers checked before a window opens
        header = pytmx.TiledMap(level_file)
        grid = grid_from_tmx(header, "walls")
        start = start_point(grid)
        mesh = navmesh_from_tmx(header, "obstacles", agent_radius=4)
        pygame.init()
        screen = pygame.display.set_mode((header.width * header.tilewidth, header.height * header.tileheight))
        level = pytmx.load_pygame(level_file)  # (its tile images: a map copied without them fails here)
    except Exception as exc:  # noqa: BLE001 - a map it cannot use: one line, no traceback
        pygame.quit()
        problem = str(exc) if isinstance(exc, gamenav.GamenavError) else f"{type(exc).__name__}: {exc}"
        print(f"{parser.prog}: cannot use the map {level_file}: {problem}", file=sys.stderr)
        return 2
    background = screen.copy()
    for layer in level.visible_layers:
        if isinstance(layer, pytmx.TiledTileLayer):
            for x, y, image in layer.tiles():
                background.blit(image, (x * level.tilewidth, y * level.tileheight))
    sprite = pygame.sprite.Sprite()
    sprite.image = pygame.Surface((20, 20), pygame.SRCALPHA)
    pygame.draw.circle(sprite.image, (230, 60, 60), (10, 10), 10)
    sprite.rect = sprite.image.get_rect(center=start)
    agents = pygame.sprite.Group(sprite)
    queue = gamenav.PathQueue(budget_ms=1.0)  # pathfinding time per frame, shared by all agents
    follower = PathFollower(sprite, grid, speed=240, queue=queue)
    mesh_path, goal = gamenav.Path.none(), None
    carved: dict[tuple[int, int], int] = {}
    clock = pygame.time.Clock()
    frame, running = 0, True
    while running and (args.frames <= 0 or frame < args.frames):
        frame += 1
        clicks = []
        for event in pygame.event.get():
            escape = event.type == pygame.KEYDOWN and event.key == pygame.K_ESCAPE
            if event.type == pygame.QUIT or escape:
                running = False
            elif event.type == pygame.MOUSEBUTTONDOWN:
                clicks.append((event.button, event.pos))
        if args.headless and frame in SCRIPT:
            clicks.append(SCRIPT[frame])
        for button, pos in clicks:
            if button == 1:
                follower.move_to(pos)
                goal = pos
            elif button == 3:  # toggle the wall under the cursor; the follower re-plans if needed
                x, y = (int(v) for v in grid.world_to_cell(pos))
                if grid.in_bounds(x, y):
                    toggle_wall(grid, mesh, carved, (x, y))
        if clicks and goal is not None:  # a new goal, or an edit the navmesh path may cross
            mesh_path = gamenav.find_path(mesh, follower.position, goal, clamp=True)
        queue.update()
        follower.update(1 / 60 if args.headless else clock.tick(60) / 1000)
        screen.blit(background, (0, 0))
        draw_grid(screen, grid, blocked_color=(90, 90, 110, 160))  # includes right-click edits
        draw_path(screen, mesh_path, color=(80, 160, 255), width=1, radius=0)
        draw_path(screen, follower.remaining_path)  # what lies ahead
        agents.draw(screen)
        state = "arrived" if follower.arrived else "failed" if follower.failed else "moving"
        pygame.display.set_caption(f"gamenav pygame example - {state}")
        pygame.display.flip()
    x, y = follower.position
    print(f"frames={frame} arrived={follower.arrived} failed={follower.failed} "
          f"position=({x:.1f}, {y:.1f}) navmesh_path={mesh_path.status.name}")
    pygame.quit()
    return 0


if __name__ == "__main__":
    sys.exit(main())
