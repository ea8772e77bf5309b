"""Every Python block of README.md runs as written (engine blocks with scripted input, headless).

Blocks run in order of appearance, each in a fresh namespace, in a temporary working directory.
A block that loops on engine input (the arcade and pygame quick starts) gets scripted input
through a driver below; what a block prints is checked against what its comments promise.
"""

from __future__ import annotations

import gc
import math
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from tests.readme import Block, readme_blocks

BLOCKS = readme_blocks()
PYTHON = [b for b in BLOCKS if b.language == "python"]
NOT_PYTHON = {"bash", "text"}
"""The other fence languages allowed: shell commands and program output."""

Driver = Callable[[pytest.MonkeyPatch, dict[str, Any]], Iterator[None]]
"""Installs scripted input before the block runs (code before ``yield``), checks after it."""


def drive_arcade(monkeypatch: pytest.MonkeyPatch, namespace: dict[str, Any]) -> Iterator[None]:
    """``arcade.run()`` replaced by 240 frames after a click on the map's bottom-right tile."""
    import arcade

    frames = []

    def run() -> None:
        game = arcade.get_window()
        try:
            game.on_mouse_press(88, 8, arcade.MOUSE_BUTTON_LEFT, 0)  # around the walls of tiny.json
            for _ in range(240):
                game.on_update(1 / 60)
                game.on_draw()
                frames.append(game.hero.position)
                assert game.grid.is_passable(*game.grid.world_to_cell(game.hero.position).tolist())
            assert game.follower.arrived and math.dist(game.hero.position, (88, 8)) < 2
        finally:
            game.close()

    monkeypatch.setattr(arcade, "run", run)
    yield
    assert len(frames) == 240


def drive_pygame(monkeypatch: pytest.MonkeyPatch, namespace: dict[str, Any]) -> Iterator[None]:
    """A click on the far corner of level.tmx, 16 ms frames, then quit once the agent arrived."""
    import pygame

    frames: list[tuple[float, float]] = []
    goal = (600, 440)

    def scripted_events() -> list[pygame.event.Event]:
        agent, grid = namespace["agent"], namespace["grid"]
        frames.append(agent.position)
        assert grid.is_passable(*grid.world_to_cell(agent.position).tolist())
        if len(frames) == 1:
            return [pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=goal, button=1)]
        if (agent.arrived and len(frames) > 2) or len(frames) > 2000:
            return [pygame.event.Event(pygame.QUIT)]
        return []

    class FakeClock:
        def tick(self, fps: int = 0) -> int:
            return 16

    monkeypatch.setattr(pygame.event, "get", scripted_events)
    monkeypatch.setattr(pygame.time, "Clock", FakeClock)
    yield
    assert namespace["agent"].arrived and math.dist(namespace["agent"].position, goal) < 0.35 * 16
    assert len(frames) < 2000


DRIVERS: dict[tuple[str, int], Driver] = {
    ("Quick start: arcade", 0): drive_arcade,
    ("Quick start: pygame", 0): drive_pygame,
}
"""(heading, n-th python block under it) -> driver."""

PRINTS: dict[tuple[str, int], list[str]] = {
    ("Tile-grid pathfinding", 0): ["PathStatus.FOUND 309.238 280\n", "(8, 123) (221, 4) 309.238\n"],
    ("Navmeshes", 0): ["59.03"],
    ("Path requests under a frame budget: `PathQueue` and `PathCache`", 0): [
        "PathStatus.FOUND after ", " frame(s), 280 waypoints\n"],
    ("Many units: `gamenav.Crowd`", 0): ["30 of 30 arrived\n"],
    ("Quick start: pygame", 1): ["PathStatus.FOUND ", " (24, 32)\n"],
}
"""(heading, n-th python block under it) -> texts its output must contain (what its comments say)."""


def keyed(blocks: list[Block]) -> list[tuple[tuple[str, int], Block]]:
    """Each block with its key: (heading, how many python blocks precede it under that heading)."""
    seen: dict[str, int] = {}
    out = []
    for block in blocks:
        n = seen.get(block.heading, 0)
        seen[block.heading] = n + 1
        out.append(((block.heading, n), block))
    return out


KEYED = keyed(PYTHON)


def test_the_readme_has_python_blocks_and_only_known_fence_languages() -> None:
    assert len(PYTHON) >= 7
    unknown = [(b.line, b.language) for b in BLOCKS if b.language not in NOT_PYTHON | {"python"}]
    assert not unknown, f"README fences must be python (run by this test), bash or text: {unknown}"


def test_every_driver_and_expected_output_names_an_existing_block() -> None:
    keys = {key for key, _ in KEYED}
    assert set(DRIVERS) <= keys and set(PRINTS) <= keys, (set(DRIVERS) | set(PRINTS)) - keys


@pytest.mark.parametrize("key, block", KEYED, ids=[f"line{b.line}" for _, b in KEYED])
def test_block_runs_as_written(key: tuple[str, int], block: Block, monkeypatch: pytest.MonkeyPatch,
                               tmp_path: Any, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)  # anything a block writes lands here
    namespace: dict[str, Any] = {"__name__": "__readme__"}
    driver = DRIVERS.get(key)
    steps = driver(monkeypatch, namespace) if driver else None
    if steps is not None:
        next(steps)
    try:
        exec(compile(block.code, f"README.md:{block.line}", "exec"), namespace)
    finally:
        gc.unfreeze()  # the PathQueue block freezes the objects alive so far (as a game should)
    if steps is not None:
        next(steps, None)
    printed = capsys.readouterr().out
    for text in PRINTS.get(key, []):
        assert text in printed, f"README.md:{block.line} should print {text!r}, printed {printed!r}"


def test_a_block_that_raises_fails_the_block_test(monkeypatch: pytest.MonkeyPatch, tmp_path: Any,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    text = "# Broken\n\n```python\nimport gamenav\nraise RuntimeError('a broken example')\n```\n"
    [(key, block)] = keyed([b for b in readme_blocks(text) if b.language == "python"])
    assert key == ("Broken", 0) and block.line == 4
    with pytest.raises(RuntimeError, match="a broken example"):
        test_block_runs_as_written(key, block, monkeypatch, tmp_path, capsys)
