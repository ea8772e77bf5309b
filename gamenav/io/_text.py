"""Shared reading of the ASCII text formats: lines with numbers, errors naming file and line.

Every reader accepts LF, CRLF and CR line endings and a leading UTF-8 byte-order mark; any other
non-ASCII byte is a :class:`~gamenav.errors.MapFormatError` naming its line. Only regular files
are read, and only up to the size limit of their format (a device such as ``/dev/zero`` or a FIFO
never ends: it would hang the game or fill its memory). Numbers are
parsed strictly: decimal integers (``[+-]digits``) and finite decimal floats (no ``nan``,
``inf``, underscores or hex), so ``float("nan")``-style surprises never reach the arrays.
"""

from __future__ import annotations

import codecs
import errno
import math
import os
import re
import stat
from pathlib import Path as FilePath

from gamenav._validate import shown
from gamenav.errors import InvalidInputError, MapFormatError

__all__ = ["file_path", "read_bytes", "read_lines", "to_floats", "to_ints", "token_lines"]

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
        raise InvalidInputError(f"path must be a valid file name, got {shown(path)} ({why})")
    return FilePath(name)


def read_bytes(path: str | os.PathLike[str], max_bytes: int) -> bytes:
    """The bytes of the regular file ``path``, refused before reading when there are more than ``max_bytes``.

    Raises:
        InvalidInputError: ``path`` is not a file name (see :func:`file_path`).
        MapFormatError: not a regular file (a device or FIFO, which may never end) or more than
            ``max_bytes`` bytes.
        OSError: the file cannot be read (missing, a folder, no permission).
    """
    name = file_path(path)
    # (non-blocking: opening a FIFO without a writer returns at once, to be refused below; binary:
    # Windows reads a file opened in text mode only up to its first Ctrl-Z byte)
    fd = os.open(name, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    try:
        info = os.fstat(fd)
        mode = info.st_mode
        if stat.S_ISDIR(mode):
            raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), str(name))
        if not stat.S_ISREG(mode):
            kind = "a FIFO" if stat.S_ISFIFO(mode) else "a socket" if stat.S_ISSOCK(mode) else "a device"
            raise MapFormatError(f"expected a regular file, got {kind} (it may never end)", path=path)
        with open(fd, "rb", closefd=False) as file:  # (at most one byte over: a file growing meanwhile stops too)
            data = file.read(max_bytes + 1) if info.st_size <= max_bytes else None
    finally:
        os.close(fd)
    if data is None or len(data) > max_bytes:
        raise MapFormatError(f"the file is larger than the {max_bytes:_} bytes this format may take",
                             path=path)
    return data


def read_lines(path: str | os.PathLike[str], max_bytes: int) -> list[str]:
    """The lines of an ASCII text file, without line endings (line ``k`` is ``lines[k - 1]``).

    Raises:
        InvalidInputError: ``path`` is not a file name (see :func:`file_path`).
        MapFormatError: not a regular file (a device or FIFO, which may never end), more than
            ``max_bytes`` bytes (the format's limit) or a non-ASCII byte (the message names its
            line and column).
        OSError: the file cannot be read (missing, a folder, no permission).
    """
    data = read_bytes(path, max_bytes).removeprefix(codecs.BOM_UTF8)
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


def token_lines(path: str | os.PathLike[str], max_bytes: int) -> list[tuple[int, list[str]]]:
    """The non-blank lines of :func:`read_lines` as (1-based line number, whitespace-separated tokens)."""
    return [(n, line.split()) for n, line in enumerate(read_lines(path, max_bytes), 1) if line.strip()]


def _check(tokens: list[str], pattern: re.Pattern[str], noun: str, what: str,
           path: str | os.PathLike[str], line: int | None) -> None:
    bad = [t for t in tokens if not pattern.fullmatch(t)]
    if bad:
        raise MapFormatError(f"bad {what}: expected {noun}, got {shown(bad[0])}", path=path, line=line)


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
                             f"float range in {shown(' '.join(tokens))}", path=path, line=line)
    return values
