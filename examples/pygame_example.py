"""Click-to-move with gamenav in pygame: walls from Rects, a path follower, debug drawing.

    python examples/pygame_example.py                          # a window; Esc quits
    python examples/pygame_example.py --headless --frames 600  # no window, scripted clicks

Left click: move the agent there. Right click: toggle the wall cell under the cursor (the agent
re-plans when its route is cut). Headless runs print a one-line summary.

Needs ``pip install gamenav[pygame]``. Exits 0 (non-zero on an error).
"""

from __future__ import annotations

import argparse
import os
import sys

SIZE = (640, 480)
CELL = 32
WALLS = [(128, 0, 32, 352), (288, 128, 32, 352), (448, 0, 32, 320), (176, 400, 72, 20)]
START = (48, 48)
# Headless script: frame -> (mouse button, pixel position).
SCRIPT = {1: (1, (600, 440)), 60: (3, (144, 368))}  # the right click walls off the route


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=0,
                        help="stop after N frames (0: run until closed)")
    parser.add_argument("--headless", action="store_true",
                        help="no window (SDL_VIDEODRIVER=dummy), fixed 1/60 s steps, scripted clicks")
    args = parser.parse_args(argv)
    if args.headless:
        os.environ["SDL_VIDEODRIVER"] = "dummy"
        os.environ["SDL_AUDIODRIVER"] = "dummy"
    import pygame

    import gamenav
    from gamenav.adapters.pygame import PathFollower, draw_grid, draw_path, grid_from_rects

    pygame.init()
    screen = pygame.display.set_mode(SIZE)
    grid = grid_from_rects([pygame.Rect(w) for w in WALLS], size=SIZE, cell_size=CELL)
    sprite = pygame.sprite.Sprite()
    sprite.image = pygame.Surface((20, 20), pygame.SRCALPHA)
    pygame.draw.circle(sprite.image, (230, 60, 60), (10, 10), 10)
    sprite.rect = sprite.image.get_rect(center=START)
    agents = pygame.sprite.Group(sprite)
    queue = gamenav.PathQueue(budget_ms=1.0)  # pathfinding time per frame, shared by all agents
    follower = PathFollower(sprite, grid, speed=240, queue=queue)
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
            elif button == 3:  # toggle the wall under the cursor; the follower re-plans if needed
                cell = tuple(int(v) for v in grid.world_to_cell(pos))
                if grid.in_bounds(*cell):
                    grid.set_walkable(cell, not grid.passable[cell[1], cell[0]])
        queue.update()
        follower.update(1 / 60 if args.headless else clock.tick(60) / 1000)
        screen.fill((24, 24, 30))
        draw_grid(screen, grid, blocked_color=(90, 90, 110), line_color=(36, 36, 44))
        draw_path(screen, follower.path)
        agents.draw(screen)
        state = "arrived" if follower.arrived else "failed" if follower.failed else "moving"
        pygame.display.set_caption(f"gamenav pygame example - {state}")
        pygame.display.flip()
    x, y = follower.position
    print(f"frames={frame} arrived={follower.arrived} failed={follower.failed} "
          f"position=({x:.1f}, {y:.1f})")
    pygame.quit()
    return 0


if __name__ == "__main__":
    sys.exit(main())
