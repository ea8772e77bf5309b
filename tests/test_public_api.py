"""The public surface is exactly gamenav.__all__, and every name in it exists and is documented."""

from __future__ import annotations

import inspect

import gamenav
import gamenav.errors


def test_all_names_exist_and_are_documented() -> None:
    for name in gamenav.__all__:
        obj = getattr(gamenav, name)
        assert inspect.getdoc(obj), f"gamenav.{name} has no docstring"


def test_no_public_name_outside_all() -> None:
    public = {n for n in vars(gamenav) if not n.startswith("_")}
    modules = {n for n in public if inspect.ismodule(getattr(gamenav, n))}
    assert public - modules == set(gamenav.__all__)


def test_all_is_sorted_and_unique() -> None:
    assert list(gamenav.__all__) == sorted(set(gamenav.__all__))


def test_every_error_inherits_root_and_a_builtin() -> None:
    for name in gamenav.errors.__all__:
        cls = getattr(gamenav.errors, name)
        assert issubclass(cls, gamenav.GamenavError)
        if cls is not gamenav.GamenavError:
            assert any(issubclass(cls, b) for b in (ValueError, IndexError)), name


def test_map_format_error_names_file_and_line() -> None:
    err = gamenav.MapFormatError("bad row", path="maps/x.map", line=7)
    assert str(err) == "maps/x.map:7: bad row"
    assert (err.path, err.line) == ("maps/x.map", 7)
