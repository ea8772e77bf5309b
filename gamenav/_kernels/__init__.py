"""numba kernels: hot loops over numpy arrays and scalars only.

Nothing in this package validates its inputs; the public wrappers in ``gamenav.grid``,
``gamenav.navmesh`` and ``gamenav.runtime`` check every index and shape first. Every kernel is
``@njit(cache=True, nogil=True)``: the first run in a fresh environment compiles (seconds per
kernel), later runs load machine code from numba's on-disk cache.

Compile notices: wrappers call :func:`announce_compile` before the first kernel call of a group.
When numba's cache holds no machine code for some kernel of the group (a first run, or kernel
sources changed), the whole group is compiled at once by running its :mod:`gamenav.warmup`
routine, so "first run only" is true: a later run that uses another kernel of the group finds
it cached. A numba compile-event listener tells whether compiling really happens, so the notice
(one line before, one line with the time after) is printed only then; compiles outside any group
(e.g. new argument types) get their own notice. ``GAMENAV_QUIET=1`` silences the notices
(``GAMENAV_QUIET=0`` does not).

Damaged cache files (truncated by a crash or a full disk): a kernel whose cache entry cannot be
read is compiled again and its entry rewritten, with one notice (see :func:`_install_cache`).

Cache folder: where numba finds no writable one for the kernels (see :func:`_choose_cache_dir`),
they are cached in a private folder of the system's temporary directory instead.

``NUMBA_DISABLE_JIT=1``: the kernels use numba intrinsics and machine-integer arithmetic, which
do not run as plain Python, so importing gamenav then raises an ImportError that says so
(rather than a TypeError from deep inside the first search).
"""

from __future__ import annotations

import os
import stat
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from typing import Any, TextIO

from numba.core import config as _numba_config

if getattr(_numba_config, "DISABLE_JIT", False):  # (set from the environment at run time)
    raise ImportError("gamenav needs numba's compiler, but NUMBA_DISABLE_JIT is set: its kernels use numba "
                      "intrinsics and machine integers and do not run as plain Python; unset NUMBA_DISABLE_JIT "
                      "(or set it to 0) to use gamenav")

__all__ = ["CompileRecord", "announce_compile", "compiling", "is_terminal", "report"]

_PACKAGE = __name__ + "."
_lock = threading.Lock()
_seen: set[str] = set()
"""Groups whose first use in this process has been handled."""
_group_of: dict[Any, str] = {}
"""Dispatcher -> group, for notices about compiles outside a :func:`compiling` block."""
_open: dict[str, int] = {}
"""Group -> number of :func:`compiling` blocks of it open now, in any thread."""
_announced: set[str] = set()
"""Groups with an open :func:`compiling` block that has compiled (and told so) already."""


@dataclass
class CompileRecord:
    """What happened inside one :func:`compiling` block.

    Attributes:
        group: the group name.
        compiles: number of top-level kernel compilations (callees compiled with a kernel are
            part of its compilation). 0 means everything came from numba's cache or memory.
        seconds: wall time of the block once it finished.
    """

    group: str
    compiles: int = 0
    seconds: float = 0.0
    announced: bool = False
    notify: bool = True


class _State(threading.local):
    """Per thread: nesting depth of gamenav kernel compilations and open :func:`compiling` blocks."""

    def __init__(self) -> None:
        self.depth = 0
        self.started = 0.0
        self.blocks: list[CompileRecord] = []
        self.silent = False  # the compile outside a block belongs to a group another thread announces


_state = _State()


def _quiet() -> bool:
    """``GAMENAV_QUIET`` set to anything but empty, ``0``, ``false``, ``no`` or ``off``."""
    return os.environ.get("GAMENAV_QUIET", "").strip().lower() not in ("", "0", "false", "no", "off")


def report(text: str, *, end: str = "\n", stream: TextIO | None = None) -> None:
    """Print ``text`` to ``stream`` (default: stderr) and flush it; nothing when the stream is
    missing or closed (``2>&-``, ``pythonw``), no flush where it has none (a game's console object
    that only writes): a notice or a progress line never stops a game or a tool (such a stderr
    raised OSError or AttributeError from the first compiling kernel call)."""
    out = sys.stderr if stream is None else stream
    if out is None:  # no stderr at all (print would fall back to stdout)
        return
    # a closed descriptor or file; an object without flush (a game's console that only writes)
    with suppress(OSError, ValueError, AttributeError):
        print(text, end=end, file=out, flush=True)


def is_terminal(stream: TextIO | None = None) -> bool:
    """Whether ``stream`` (default: stderr) is a terminal, for a redrawn progress bar: False for a
    missing or closed one, or one without ``isatty`` (as :func:`report` prints nothing there)."""
    out = sys.stderr if stream is None else stream
    try:
        return bool(out is not None and out.isatty())
    except (AttributeError, ValueError, OSError):
        return False


def _say(text: str) -> None:
    report(f"gamenav: {text}")


def _start_line(what: str) -> str:
    return f"compiling {what} with numba (first run only)..."


def _is_ours(dispatcher: Any) -> bool:
    module = getattr(getattr(dispatcher, "py_func", None), "__module__", "") or ""
    return module.startswith(_PACKAGE)


def _on_compile_start(dispatcher: Any) -> None:
    """A real compilation (not a cache load) of a gamenav kernel begins in this thread."""
    _state.depth += 1
    if _state.depth > 1:  # a callee compiled as part of the kernel being compiled
        return
    _state.started = time.perf_counter()
    if _state.blocks:
        record = _state.blocks[-1]
        record.compiles += 1
        if record.notify and not record.announced and not _quiet():
            _say(_start_line(f"{record.group} kernels"))
        record.announced = True
        with _lock:
            _announced.add(record.group)
        return
    group = _group_of.get(dispatcher)
    _state.silent = group in _announced  # (a kernel of a group another thread is compiling: its notice tells)
    if not _state.silent and not _quiet():
        name = getattr(getattr(dispatcher, "py_func", None), "__name__", "?")
        _say(_start_line(f"{group} kernels" if group else f"the {name} kernel"))


def _on_compile_end() -> None:
    _state.depth = max(_state.depth - 1, 0)
    if _state.depth == 0 and not _state.blocks and not _state.silent and not _quiet():
        _say(f"... done in {time.perf_counter() - _state.started:.1f} s")


def _install_listener() -> bool:
    """Listen to numba's ``numba:compile`` events (fired only when machine code is really
    compiled, not when it is loaded from the cache). False when numba's event API is missing."""
    try:
        from numba.core import event

        class _Listener(event.Listener):
            def on_start(self, ev: event.Event) -> None:
                dispatcher = (ev.data or {}).get("dispatcher")
                if _is_ours(dispatcher):
                    _on_compile_start(dispatcher)

            def on_end(self, ev: event.Event) -> None:
                if _is_ours((ev.data or {}).get("dispatcher")):
                    _on_compile_end()

        # numba.core.event.register is unannotated: give it its documented signature.
        register: Callable[[str, event.Listener], None] = event.register
        register("numba:compile", _Listener())
    except (ImportError, AttributeError, TypeError):  # numba internals changed: no notices
        return False
    return True


_LISTENING = _install_listener()

_told: set[str] = set()
"""Cache troubles already reported in this process (one notice each)."""


def _tell_once(kind: str, text: str) -> None:
    with _lock:
        if kind in _told:
            return
        _told.add(kind)
    if not _quiet():
        _say(text)


def _damaged(where: str, exc: Exception) -> None:
    reason = " ".join(str(exc).split())  # one line (LLVM's messages span several)
    _tell_once("damaged", f"numba's cache of compiled kernels has an unreadable file in {where} "
               f"({type(exc).__name__}: {reason}): compiling again (the new machine code replaces it)")


def sources_stamp(folder: str = os.path.dirname(__file__)) -> tuple[tuple[str, int, int], ...]:
    """``(name, mtime in ns, size)`` of every ``.py`` file in ``folder`` (default: the kernel
    modules) but ``__init__.py``, sorted; empty if it cannot be listed.

    Every gamenav kernel's cache entry is stamped with all of them: numba stamps an entry with
    its own module's source only, so a kernel calling one of another module (``find_path_once``
    calls ``best_first_step``, compiled into it) was loaded from the cache with the old callee
    after an edit of that module alone (a ``git pull`` in an editable install): old answers, or
    numba's "'descr' is NULL" error inside a query. ``__init__.py`` (this module: notices and
    caching, no kernel, imported by none) is left out, so an edit of it compiles nothing again.
    """
    try:
        names = sorted(name for name in os.listdir(folder) if name.endswith(".py") and name != "__init__.py")
        return tuple((name, (st := os.stat(os.path.join(folder, name))).st_mtime_ns, st.st_size)
                     for name in names)
    except OSError:
        return ()


def _install_cache() -> None:
    """Give every gamenav kernel a numba disk cache that treats an unreadable file as a miss.

    numba loads a kernel's index (``*.nbi``) and machine code (``*.nbc``) when it is first called
    with new argument types, and an unpickling error there (a file truncated by a crash or a full
    disk, garbage) escaped from the call: the game died on start. Here a file that cannot be read
    or rebuilt is a cache miss (one notice): the kernel is compiled and its entry overwritten; a
    file that cannot be written (a full disk) leaves the kernel compiled but uncached (one notice).
    Only compilations pass here: calls with known argument types cost nothing more. An entry is
    stamped with every kernel module's source (:func:`sources_stamp`): an edit of any of them
    compiles every kernel again. Where numba's caching internals changed, numba's own cache is
    used.
    """
    try:
        from numba.core import caching as numba_caching
        from numba.core import dispatcher as numba_dispatcher

        caching: Any = numba_caching  # numba's caching internals are unannotated
        dispatcher_class: Any = numba_dispatcher.Dispatcher

        class _CacheFile(caching.IndexDataCacheFile):  # type: ignore[misc]  # (subclasses Any)
            def _load_index(self) -> dict[Any, str]:
                try:
                    index: dict[Any, str] = super()._load_index()
                except Exception as exc:  # noqa: BLE001 - whatever unpickling garbage raises
                    _damaged(self._index_path, exc)
                    return {}  # a miss; saving the compiled kernel writes a new index
                return index

        stamp = sources_stamp()

        class _Cache(caching.FunctionCache):  # type: ignore[misc]  # (subclasses Any)
            _cache_file: Any

            def __init__(self, py_func: Callable[..., Any]) -> None:
                super().__init__(py_func)
                self._cache_file = _CacheFile(self._cache_path, self._impl.filename_base,
                                              (self._cache_file._source_stamp, stamp))

            def load_overload(self, sig: Any, target_context: Any) -> Any:
                try:
                    return super().load_overload(sig, target_context)
                except Exception as exc:  # noqa: BLE001 - an unreadable data file: a miss
                    _damaged(self._cache_path, exc)
                    return None

            def save_overload(self, sig: Any, data: Any) -> None:
                try:
                    super().save_overload(sig, data)
                except OSError as exc:
                    _tell_once("unwritable", f"cannot write numba's cache of compiled kernels in "
                               f"{self._cache_path} ({exc}): the kernels work, but the next run "
                               "compiles them again")

        numba_enable: Callable[[Any], None] = dispatcher_class.enable_caching

        def enable_caching(dispatcher: Any) -> None:
            if _is_ours(dispatcher):
                dispatcher._cache = _Cache(dispatcher.py_func)
            else:
                numba_enable(dispatcher)

        dispatcher_class.enable_caching = enable_caching
    except (ImportError, AttributeError):  # numba internals changed: numba's own cache
        pass


_install_cache()


def _writable(folder: str) -> bool:
    """Whether numba can cache in ``folder`` (made if missing), tested as its cache locators test."""
    try:
        os.makedirs(folder, exist_ok=True)
        tempfile.TemporaryFile(dir=folder).close()
    except OSError:
        return False
    return True


def _private_folder(folder: str) -> bool:
    """Whether ``folder`` exists or was made, belongs to this user and only this user can write it
    (numba's cache files hold machine code: a folder in a shared temporary directory that another
    user made or can write is not used)."""
    try:
        os.makedirs(folder, mode=0o700, exist_ok=True)
        info = os.lstat(folder)
    except OSError:
        return False
    mine = not hasattr(os, "getuid") or info.st_uid == os.getuid()
    return stat.S_ISDIR(info.st_mode) and mine and not info.st_mode & 0o022 and _writable(folder)


def _choose_cache_dir() -> None:
    """Give numba a writable cache folder when it would find none.

    numba caches a ``cache=True`` kernel in ``NUMBA_CACHE_DIR``, beside its source
    (``__pycache__``) or in the user's cache folder; where none is writable (a read-only install
    run by a user with no writable home, as in some containers) it refuses to define the kernel,
    and ``import gamenav`` failed with "no locator available". Then the kernels are cached in
    ``gamenav-numba-<user id>`` of the system's temporary directory (with a notice when it is
    made; a fresh private folder each run if that one is not this user's alone), and when
    nothing is writable the import fails saying what to set.
    """
    from numba.core import config
    from numba.misc import appdirs

    app_dirs: Callable[..., Any] = appdirs.AppDirs  # numba's choice of the user's cache folder
    given = getattr(config, "CACHE_DIR", "")  # NUMBA_CACHE_DIR (set by numba at import)
    tried = [str(given)] if given else []
    tried += [os.path.join(os.path.dirname(__file__), "__pycache__"),
              str(app_dirs(appname="numba", appauthor=False).user_cache_dir)]
    if any(_writable(folder) for folder in tried):
        return
    folder = os.path.join(tempfile.gettempdir(), f"gamenav-numba-{os.getuid() if hasattr(os, 'getuid') else 0}")
    fresh = not os.path.isdir(folder)
    try:
        if not _private_folder(folder):
            folder, fresh = tempfile.mkdtemp(prefix="gamenav-numba-"), True
    except OSError:
        raise ImportError("gamenav: numba finds no writable folder to cache its compiled kernels in (not beside "
                          f"gamenav, not in {tried[-1]}, not in {tempfile.gettempdir()}): set NUMBA_CACHE_DIR to "
                          "a writable folder") from None
    config.CACHE_DIR = folder  # type: ignore[attr-defined]  # read by numba as each kernel is defined
    if fresh and not _quiet():  # (later runs use the folder silently)
        _say(f"numba cannot cache compiled kernels beside gamenav or in {tried[-1]}: caching them in {folder} "
             "(set NUMBA_CACHE_DIR to choose the folder)")


_choose_cache_dir()


@contextmanager
def compiling(group: str, *, notify: bool = True) -> Iterator[CompileRecord]:
    """Attribute the kernel compilations inside the block to ``group``.

    If anything is compiled, prints ``gamenav: compiling <group> kernels with numba (first run
    only)...`` when the first compilation starts and ``gamenav: ... done in <s> s`` when the
    block ends (unless ``notify`` is False, here or in an enclosing block of this thread, or
    ``GAMENAV_QUIET`` is set). Also marks the group as handled, so :func:`announce_compile` does
    not warm it up again; while the block is open and has compiled, kernels of the group that
    other threads compile print no notice of their own (the block's notice tells).

    Yields:
        the :class:`CompileRecord` of the block (filled in when it ends).
    """
    with _lock:
        _seen.add(group)
        _open[group] = _open.get(group, 0) + 1
    record = CompileRecord(group, notify=notify and all(block.notify for block in _state.blocks))
    _state.blocks.append(record)
    t0 = time.perf_counter()
    try:
        yield record
    finally:
        _state.blocks.remove(record)
        _close(group)
        record.seconds = time.perf_counter() - t0
        if record.announced and record.notify and not _quiet():
            _say(f"... done in {record.seconds:.1f} s")


def _cached(dispatcher: Any) -> bool:
    """Whether ``dispatcher`` has machine code in memory or a valid entry in numba's disk cache
    (an index for the current sources and numba version). Unknown internals count as cached."""
    if getattr(dispatcher, "signatures", None):
        return True
    try:
        index = dispatcher._cache._cache_file._load_index()  # numba's IndexDataCacheFile
    except AttributeError:
        return True
    except Exception:  # noqa: BLE001 - an unreadable index: numba will compile
        return False
    return bool(index)


def announce_compile(group: str, *dispatchers: Any) -> None:
    """Call before the first kernel call of ``group`` (cheap afterwards: two lookups).

    On the group's first use in the process: when some of ``dispatchers`` is neither in memory
    nor in numba's cache, compile the whole group now (its :mod:`gamenav.warmup` routine, with a
    notice) rather than kernel by kernel over this and later runs. Another thread that uses the
    group meanwhile does not wait; the kernels it compiles then print no notice of their own.
    """
    if group in _seen and group not in _open:
        return
    with _lock:
        for dispatcher in dispatchers:  # (also while another thread compiles the group: see _on_compile_start)
            _group_of.setdefault(dispatcher, group)
        if group in _seen:
            return
        _seen.add(group)
        _open[group] = 1
    try:
        if not _LISTENING or all(_cached(d) for d in dispatchers):
            return
        try:
            from gamenav._warmup import ROUTINES
        except ImportError:  # gamenav itself still importing: compile lazily
            return
        routine = ROUTINES.get(group)
        if routine is not None:
            with compiling(group):
                routine()
    finally:
        _close(group)


def _close(group: str) -> None:
    """One fewer open :func:`compiling` block (or first-use check) of ``group``."""
    with _lock:
        _open[group] -= 1
        if not _open[group]:
            del _open[group]
            _announced.discard(group)
