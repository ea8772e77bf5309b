"""``python -m demo_game [--headless ...]``: see ``demo_game.app.main``.

Checks first that arcade is installed (``demo_game.app`` imports it), and says how to install it
when it is not, instead of a traceback.
"""

from __future__ import annotations

import os
import sys

INSTALL_HINT = ('the demo needs the arcade package, which is not installed.\n'
                'From a checkout of gamenav:  pip install -e ".[demo]"')


def run() -> int:
    """Import the demo (arcade) and run it; exit code 2 with a hint when arcade is missing, 130 on Ctrl+C."""
    if any(len(arg) > len("--he") and "--headless".startswith(arg) for arg in sys.argv[1:]):  # argparse's --head too
        os.environ.setdefault("ARCADE_HEADLESS", "1")  # must be set before arcade is imported
    try:
        import arcade  # noqa: F401
    except ModuleNotFoundError as exc:
        if exc.name is None or exc.name.split(".")[0] not in ("arcade", "pyglet"):
            raise
        print(f"python -m demo_game: {INSTALL_HINT}", file=sys.stderr)
        return 2
    from demo_game.app import main

    try:
        return main()
    except KeyboardInterrupt:  # Ctrl+C in the terminal (say while the kernels compile): quit without a traceback
        return 130


if __name__ == "__main__":
    sys.exit(run())
