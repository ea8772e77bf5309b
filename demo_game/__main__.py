"""``python -m demo_game [--headless ...]``: see ``demo_game.app.main``."""

from __future__ import annotations

import os
import sys

if "--headless" in sys.argv[1:]:
    os.environ.setdefault("ARCADE_HEADLESS", "1")  # must be set before arcade is imported

from demo_game.app import main  # noqa: E402

sys.exit(main())
