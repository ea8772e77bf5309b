"""Fuzz suite: every public entry point and file reader under hostile input, fork-isolated."""
