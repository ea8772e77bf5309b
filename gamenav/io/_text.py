"""Shared reading of the ASCII text formats: lines with numbers, errors naming file and line.

Every reader accepts LF, CRLF and CR line endings and a leading UTF-8 byte-order mark; any other
non-ASCII byte is a :class:`~gamenav.errors.MapFormatError` naming its line. Numbers are
parsed strictly: decimal integers (``[+-]digits``) and finite decimal floats (no ``nan``,
``inf``, underscores or hex), so ``float("nan")``-style surprises never reach the arrays.
"""

from __future__ import annotations

import codecs
import math
import os
import re
from pathlib import Path as FilePath

from gamenav.errors import InvalidInputError, MapFormatError

__all__ = ["file_path", "read_lines", "to_floats", "to_ints", "token_lines"]

_INT = re.compile(r"[+-]?[0-9]+")
_FLOAT = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")


def file_path(path: str | os.PathLike[str]) -> FilePath:
    """``path`` (a file to read or write) as a :class:`pathlib.Path`.

    Raises:
        InvalidInputError: ``path`` is not a ``str`` or an ``os.PathLike`` giving one, is empty
            (which pathlib reads as the current folder, ``.``) or holds a NUL character.
    """
    name = os.fspath(path) if isinstance(path, (str, os.PathLike)) else None
    if not isinstance(name, str):  # (an os.PathLike may give bytes)
        got = type(path).__name__ if name is None else f"{type(path).__name__} giving {type(name).__name__}"
        raise InvalidInputError(f"path must be a str or os.PathLike, got {got}")
    if not name or "\0" in name:
        why = "embedded null byte" if name else "empty"
        raise InvalidInputError(f"path must be a valid file name, got {path!r} ({why})")
    return FilePath(name)


def read_lines(path: str | os.PathLike[str]) -> list[str]:
    """The lines of an ASCII text file, without line endings (line ``k`` is ``lines[k - 1]``).

    Raises:
        InvalidInputError: ``path`` is not a file name (see :func:`file_path`).
        MapFormatError: a non-ASCII byte (the message names its line and column).
        OSError: the file cannot be read (missing, a folder, no permission).
    """
    data = file_path(path).read_bytes().removeprefix(codecs.BOM_UTF8)
    data = data.replace(b"\r\n", b"\n").replace(b"\r", b"\n")  # LF only: errors count lines by LF
    try:
        text = data.decode("ascii")
    except UnicodeDecodeError as exc:
        line_start = data.rfind(b"\n", 0, exc.start) + 1
        raise MapFormatError(
            f"non-ASCII byte 0x{data[exc.start]:02x} at column {exc.start - line_start + 1} "
            "(expected an ASCII text file)",
            path=path, line=data.count(b"\n", 0, exc.start) + 1) from None
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    return lines


def token_lines(path: str | os.PathLike[str]) -> list[tuple[int, list[str]]]:
    """The non-blank lines of :func:`read_lines` as (1-based line number, whitespace-separated tokens)."""
    return [(n, line.split()) for n, line in enumerate(read_lines(path), 1) if line.strip()]


def _check(tokens: list[str], pattern: re.Pattern[str], noun: str, what: str,
           path: str | os.PathLike[str], line: int | None) -> None:
    bad = [t for t in tokens if not pattern.fullmatch(t)]
    if bad:
        raise MapFormatError(f"bad {what}: expected {noun}, got {bad[0]!r}", path=path, line=line)


def to_ints(tokens: list[str], what: str, path: str | os.PathLike[str], line: int | None) -> list[int]:
    """``tokens`` as Python ints (any size), or a MapFormatError naming ``what``, file and line."""
    _check(tokens, _INT, "integers", what, path, line)
    try:
        return [int(t) for t in tokens]
    except ValueError:  # more digits than sys.get_int_max_str_digits() allows
        digits = max(len(t.lstrip("+-")) for t in tokens)
        raise MapFormatError(f"bad {what}: expected integers, got one with {digits} digits",
                             path=path, line=line) from None


def to_floats(tokens: list[str], what: str, path: str | os.PathLike[str], line: int | None) -> list[float]:
    """``tokens`` as finite floats, or a MapFormatError naming ``what``, file and line."""
    _check(tokens, _FLOAT, "finite decimal numbers", what, path, line)
    values = [float(t) for t in tokens]
    if not all(math.isfinite(v) for v in values):
        raise MapFormatError(f"bad {what}: expected finite decimal numbers, got one beyond the "
                             f"float range in {' '.join(tokens)!r}", path=path, line=line)
    return values
