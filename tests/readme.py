"""Code blocks of README.md, so that tests run the README's examples as they are written."""

from __future__ import annotations

import re
from pathlib import Path
from typing import NamedTuple

README = Path(__file__).resolve().parents[1] / "README.md"
FENCE = re.compile(r"^```(\S*)\n(.*?)^```\s*$", flags=re.MULTILINE | re.DOTALL)
HEADING = re.compile(r"^#+ (.+?)\s*$", flags=re.MULTILINE)


class Block(NamedTuple):
    """A fenced block: its language tag, the heading above it, its first code line and its code."""

    language: str
    heading: str
    line: int
    code: str


def readme_blocks(text: str | None = None) -> list[Block]:
    """Every fenced code block of README.md (or of ``text``), in order."""
    text = README.read_text(encoding="utf-8") if text is None else text
    blocks = []
    for fence in FENCE.finditer(text):
        headings = HEADING.findall(text, 0, fence.start())
        blocks.append(Block(fence.group(1), headings[-1] if headings else "",
                            text.count("\n", 0, fence.start(2)) + 1, fence.group(2)))
    return blocks


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
