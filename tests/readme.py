"""Code blocks of README.md, so that tests run the README's examples as they are written."""

from __future__ import annotations

import re
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"


def readme_code(heading: str) -> str:
    """The first ```python block after the README heading whose text is ``heading``."""
    text = README.read_text(encoding="utf-8")
    match = re.search(rf"^#+ {re.escape(heading)}\s*$", text, flags=re.MULTILINE)
    if match is None:
        raise LookupError(f"README.md has no heading {heading!r}")
    block = re.compile(r"^```python\n(.*?)^```", flags=re.MULTILINE | re.DOTALL).search(text, match.end())
    if block is None:
        raise LookupError(f"README.md has no python block after {heading!r}")
    return block.group(1)
