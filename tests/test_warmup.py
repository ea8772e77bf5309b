"""gamenav.warmup and the compile notices, each case in a fresh interpreter.

The notice tests use a temporary ``NUMBA_CACHE_DIR``: the first run compiles (cold), the second
loads from that cache (warm).
"""

from __future__ import annotations

import errno
import io
import os
import shlex
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import gamenav

ROOT = Path(__file__).resolve().parents[1]


def run(*code: str, cache: Path | None = None, **env: str) -> subprocess.CompletedProcess[str]:
    """Run the (dedented, joined) ``code`` parts in a fresh interpreter; ``cache``: the numba
    cache directory."""
    environ = {k: v for k, v in os.environ.items() if k != "GAMENAV_QUIET"}
    if cache is not None:
        environ["NUMBA_CACHE_DIR"] = str(cache)
    environ.update(env)
    return subprocess.run([sys.executable, "-c", "".join(textwrap.dedent(c) for c in code)], capture_output=True,
                          text=True, cwd=ROOT, env=environ, timeout=600, check=True)


def notices(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("gamenav:")]


FIND_PATH = """
    import gamenav
    grid = gamenav.TileGrid.from_strings(["....", ".##.", "...."])
    print(gamenav.find_path(grid, (0, 0), (3, 2)).cost)
"""


COMPONENTS = """
    import gamenav
    print(gamenav.TileGrid.from_strings(["..", ".#"]).components().tolist())
"""


def test_notice_only_when_compiling_and_with_the_time(tmp_path: Path) -> None:
    # on the "grid" group (two kernels): a cold compile of the grid search group took three
    # minutes of a slow CI machine; find_path's group is checked in-process below
    cold = run(COMPONENTS, cache=tmp_path)
    lines = notices(cold.stderr)
    assert lines[0] == "gamenav: compiling grid kernels with numba (first run only)..."
    assert len(lines) == 2, cold.stderr  # one start and one "done in" line
    assert lines[1].startswith("gamenav: ... done in ") and lines[1].endswith(" s"), lines
    # the warm run loads from the cache: nothing to announce
    warm = run(COMPONENTS, cache=tmp_path)
    assert notices(warm.stderr) == []
    assert warm.stdout == cold.stdout
    # a kernel of the group that this run uses for the first time (clearance_box) was compiled
    # by the first run, which never called it
    field = run("import gamenav; print(gamenav.clearance_field("
                "gamenav.TileGrid.from_strings(['..', '.#'])).tolist())", cache=tmp_path)
    assert notices(field.stderr) == [] and field.stdout.strip(), field.stderr


def test_find_path_announces_the_grid_search_group_first(monkeypatch: pytest.MonkeyPatch) -> None:
    # a first find_path compiles (and announces) the whole "grid search" group before its kernel
    from gamenav import _kernels
    from gamenav.grid import _fast

    calls: list[tuple[str, int]] = []

    def announce(group: str, *kernels: Any) -> None:
        calls.append((group, len(kernels)))
        _kernels.announce_compile(group, *kernels)

    monkeypatch.setattr(_fast, "announce_compile", announce)
    grid = gamenav.TileGrid.from_strings(["....", ".##.", "...."])  # a new snapshot: new tables
    assert gamenav.find_path(grid, (0, 0), (3, 2)).cost > 0
    assert calls and calls[0][0] == "grid search" and calls[0][1] > 1, calls


def test_every_kernels_cache_entry_is_stamped_with_all_kernel_modules(tmp_path: Path) -> None:
    """numba stamps a cache entry with its own module's source only: find_path_once (grid_fast)
    has best_first_step (grid_search) compiled into it, so after an edit of grid_search.py alone
    (a git pull in an editable install) it was loaded with the old callee ("'descr' is NULL")."""
    from gamenav._kernels import grid_fast, grid_search, sources_stamp

    stamp = sources_stamp()
    assert {"grid_fast.py", "grid_search.py"} <= {name for name, _, _ in stamp}
    kernels: list[Any] = [grid_fast.find_path_once, grid_search.best_first_step]
    for kernel in kernels:
        assert kernel._cache._cache_file._source_stamp[1] == stamp
    (tmp_path / "a.py").write_text("x = 1\n")
    (tmp_path / "__init__.py").write_text("")  # (holds no kernel: its edits compile nothing again)
    before = sources_stamp(str(tmp_path))
    (tmp_path / "a.py").write_text("x = 22\n")
    assert sources_stamp(str(tmp_path)) != before and [name for name, _, _ in before] == ["a.py"]
    assert sources_stamp(str(tmp_path / "missing")) == ()


def test_damaged_cache_files_are_compiled_again_with_one_notice(tmp_path: Path) -> None:
    # a cache file truncated by a crash or a full disk, or garbage, made the first kernel call raise
    # numba's UnpicklingError / ValueError / EOFError: the game died on start
    code = """
        import gamenav
        print(gamenav.TileGrid.from_strings(["..", ".#"]).components().tolist())
    """
    cold = run(code, cache=tmp_path)
    (index,) = tmp_path.glob("*/components.label_components-*.nbi")
    index.write_bytes(b"garbage")
    (data,) = tmp_path.glob("*/clearance.clearance_box-*.nbc")
    data.write_bytes(data.read_bytes()[:100])
    damaged = run(code, cache=tmp_path)
    assert damaged.stdout == cold.stdout
    lines = notices(damaged.stderr)
    assert lines[0].startswith("gamenav: numba's cache of compiled kernels has an unreadable file in "), lines
    assert lines[0].endswith("compiling again (the new machine code replaces it)")
    assert lines[1:2] == notices(cold.stderr)[:1] and len(lines) == 3, lines  # then the compile notice
    repaired = run(code, cache=tmp_path)
    assert notices(repaired.stderr) == [] and repaired.stdout == cold.stdout


def test_a_closed_stderr_stops_neither_a_game_nor_the_warmup_command(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    # with `2>&-` the compile notice raised OSError (bad file descriptor) from the first kernel call;
    # `python -m gamenav.warmup` exited 1 (AttributeError without stderr, OSError with a closed one)
    code = "import gamenav; print(gamenav.TileGrid.from_strings(['..', '.#']).components().tolist())"
    environ = {k: v for k, v in os.environ.items() if k != "GAMENAV_QUIET"}
    environ["NUMBA_CACHE_DIR"] = str(tmp_path)
    game = subprocess.run(shlex.join([sys.executable, "-c", code]) + " 2>&-", shell=True, stdout=subprocess.PIPE,
                          text=True, cwd=ROOT, env=environ, timeout=600, check=False)
    assert (game.returncode, game.stdout) == (0, "[[0, 0], [0, -1]]\n")
    from gamenav.warmup import main

    class Closed(io.StringIO):
        def write(self, text: str) -> int:
            raise OSError(errno.EBADF, "Bad file descriptor")

    class WriteOnly:  # a game's console: isatty raised AttributeError, as a closed file's ValueError
        def write(self, text: str) -> int:
            return len(text)

    closed = io.StringIO()
    closed.close()
    for stderr in (None, Closed(), closed, WriteOnly()):
        monkeypatch.setattr(sys, "stderr", stderr)
        assert main(["--only", "grid"]) == 0


def test_a_stderr_that_only_writes_gets_the_notice(tmp_path: Path) -> None:
    # a game's console object in place of sys.stderr, without flush: the compile notice raised
    # AttributeError from the first kernel call
    code = """
        import sys
        class Console:
            def __init__(self): self.lines = []
            def write(self, text): self.lines.append(text); return len(text)
        sys.stderr = console = Console()
        import gamenav
        print(gamenav.TileGrid.from_strings(["..", ".#"]).components().tolist())
        sys.stderr = sys.__stderr__  # (Python flushes stderr at exit)
        print(console.lines[0])
    """
    assert run(code, cache=tmp_path).stdout.splitlines() == [
        "[[0, 0], [0, -1]]", "gamenav: compiling grid kernels with numba (first run only)..."]


def test_quiet_silences_the_notice(tmp_path: Path) -> None:
    code = """
        import gamenav
        gamenav.TileGrid.from_strings(["..", ".."]).components()
    """
    assert notices(run(code, cache=tmp_path, GAMENAV_QUIET="1").stderr) == []


SNAPSHOT = """
    import importlib, pkgutil
    from numba.core.registry import CPUDispatcher
    import gamenav._kernels as kernels

    def snapshot():
        out = {}
        for info in pkgutil.iter_modules(kernels.__path__):
            module = importlib.import_module(f"gamenav._kernels.{info.name}")
            for name, obj in vars(module).items():
                if isinstance(obj, CPUDispatcher) and obj.py_func.__module__ == module.__name__:
                    out[f"{info.name}.{name}"] = {str(s) for s in obj.signatures}
        return out
"""

EVERY_KIND = """
    import numpy as np
    import gamenav

    walk = np.asfortranarray(np.ones((6, 9), dtype=np.int64))  # any dtype and layout
    walk[2, 2:6] = 0
    cost = np.ones((6, 9), dtype=np.float32)
    cost[4, :] = 2
    for grid in (gamenav.TileGrid(walk, cell_size=3, origin=(1, 2), y_up=True),
                 gamenav.TileGrid(walk, cost=cost)):
        for diagonal in ("never", "no_corner_cutting", "at_most_one_blocked", "always"):
            gamenav.find_path(grid, np.array([0, 0], np.int32), (8, 5), diagonal=diagonal,
                              smooth=True)
        gamenav.find_path(grid, (0, 0), (8, 5), weight=2, heuristic="euclidean")
        gamenav.find_path(grid, (0, 0), (3, 2), partial=True, algorithm="dijkstra")
        gamenav.distance_field(grid, np.array([[0, 0], [8, 5]], np.int32), max_cost=7)
        search = gamenav.begin_search(grid, (0, 0), (8, 5))
        search.step(3)
        search.partial_result()
        grid.set_walkable(np.array([4, 4]), False)
    plain = gamenav.TileGrid(walk)
    gamenav.find_path(plain, (0, 0), (8, 5), algorithm="jps")
    mesh = gamenav.NavMesh.from_mesh(np.array([[0, 0], [4, 0], [4, 4], [0, 4]], np.int32),
                                      [[0, 1, 2], [0, 2, 3]])
    mesh.locate(np.array([[1, 1], [9, 9]], np.int32).T.T)
    mesh.clamp([[9.0, 9.0]])
    mesh.raycast([1, 1], [3.5, 0.5])
    for exact in (False, True):
        gamenav.find_path(mesh, (0.5, 0.5), (3.5, 3.5), exact=exact)
    # meshes edited, compacted and following a grid (a compacted one compiled nearest_points and
    # polyanya_step after the warm-up: its arrays were writable where an edited mesh's are not)
    floor = gamenav.TileGrid(np.ones((5, 8), bool))
    followed = gamenav.NavMesh.from_grid(floor, agent_radius=0.2, follow=True)
    walled = gamenav.NavMesh.from_polygons([[(0, 0), (8, 0), (8, 5), (0, 5)]], agent_radius=0.2)
    for edit in (lambda: floor.set_walkable((3, 2), False), lambda: walled.add_obstacle([(3, 2), (4, 2), (4, 3)]),
                 followed.compact, walled.compact, lambda: floor.set_walkable((5, 1), False)):
        edit()
        for world in (followed, walled):
            world.nearest((20.0, 20.0))
            for exact in (False, True):
                gamenav.find_path(world, (0.5, 0.5), (7.5, 4.5), exact=exact)
    cache = gamenav.PathCache()
    queue = gamenav.PathQueue(budget_ms=2, cache=cache)
    crowd = gamenav.Crowd(plain, plain.cell_to_world([(0, 0), (1, 0), (0, 1)]), radius=0.3,
                          max_speed=2, queue=queue, flow_threshold=2)
    crowd.move([0, 1], (8.5, 5.5))
    crowd.move([2], (8.5, 0.5))
    follower = gamenav.Follower(plain, (0.5, 0.5), speed=3, queue=queue)
    follower.move_to((8.5, 5.5))
    for _ in range(5):
        queue.update()
        crowd.update(0.1)
        follower.update(0.1)
    cache.find_path(plain, (0, 0), (8, 5))
"""


def test_warmup_loads_every_kernel_a_program_uses() -> None:
    code = (SNAPSHOT, """
        import gamenav
        gamenav.warmup()
        before = snapshot()
    """, EVERY_KIND, """
        after = snapshot()
        new = {k: sorted(after[k] - before[k]) for k in after if after[k] - before[k]}
        assert not new, new
        unused = sorted(k for k, v in before.items() if not v and not k.split(".")[1][0] == "_")
        print(" ".join(unused))
    """)
    out = run(*code).stdout.split()
    # only kernels called from inside other kernels stay without a Python-level signature
    assert set(out) <= {"grid_search.heap_sift_up", "grid_search.heap_pop", "grid_search.heuristic",
                        "jps.jump", "jps.jump_directions", "crowd.build_hash", "orca.cell_list",
                        "orca.orca_velocities", "orca.resolve_discs", "navmesh.point_slot", "prefetch.prefetch"}, out


def test_no_notice_inside_a_silent_block(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    # warmup(progress=...) leaves the notices out, but a group that one of its routines used first
    # (warmup(grid=False, crowd=True) on a first run: the grid kernels) printed its own notice
    from gamenav import _kernels

    monkeypatch.delenv("GAMENAV_QUIET", raising=False)
    with _kernels.compiling("outer test group", notify=False), _kernels.compiling("inner test group"):
        _kernels._on_compile_start(None)  # as numba's compile event does
        _kernels._on_compile_end()
    assert capsys.readouterr().err == ""


def test_a_kernel_of_a_group_another_thread_compiles_prints_no_notice_of_its_own(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    # on a cold cache, a thread that used a kernel of a group while another thread's announce_compile
    # compiled that group compiled the kernel itself and printed one more "compiling <group> kernels"
    # / "... done" pair per kernel (the group counted as seen at once): one notice pair per group
    import threading

    from gamenav import _kernels

    monkeypatch.delenv("GAMENAV_QUIET", raising=False)
    monkeypatch.setattr(_kernels, "_group_of", {})
    kernel = object()  # a dispatcher of the group that the first announce did not name

    def other_thread_compiles() -> None:
        _kernels.announce_compile("threads test group", kernel)  # (seen already: no warmup here)
        _kernels._on_compile_start(kernel)  # as numba's compile event does
        _kernels._on_compile_end()

    with _kernels.compiling("threads test group"):
        worker = threading.Thread(target=other_thread_compiles)
        worker.start()
        worker.join()  # the block compiled nothing (all from the cache): the worker tells its own
        assert capsys.readouterr().err.count("compiling threads test group kernels") == 1
        _kernels._on_compile_start(None)  # the block compiles: its notice
        _kernels._on_compile_end()
        worker = threading.Thread(target=other_thread_compiles)
        worker.start()
        worker.join()
    assert capsys.readouterr().err.count("compiling threads test group kernels") == 1  # the block's alone
    other_thread_compiles()  # after the group's block: a compile of its own, with its notice
    err = capsys.readouterr().err.splitlines()
    assert err[0] == "gamenav: compiling threads test group kernels with numba (first run only)..."
    assert err[1].startswith("gamenav: ... done in ") and len(err) == 2, err


@pytest.mark.parametrize(("value", "quiet"), [("1", True), ("yes", True), ("0", False), ("false", False),
                                              ("No", False), ("off", False), ("", False), (" 0 ", False)])
def test_gamenav_quiet_set_to_0_or_false_leaves_the_notices_on(
        value: str, quiet: bool, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    # GAMENAV_QUIET=0 silenced the notices too (any value counted as set)
    from gamenav import _kernels

    monkeypatch.setenv("GAMENAV_QUIET", value)
    with _kernels.compiling("quiet test group"):
        _kernels._on_compile_start(None)  # as numba's compile event does
        _kernels._on_compile_end()
    assert (capsys.readouterr().err == "") is quiet


def test_warmup_reports_groups_and_progress() -> None:
    calls: list[tuple[int, int, str]] = []
    seconds = gamenav.warmup(navmesh=False, progress=lambda *a: calls.append(a))
    assert list(seconds) == ["grid", "grid search", "crowd"]
    assert all(s >= 0 for s in seconds.values())
    assert calls == [(0, 3, "grid"), (1, 3, "grid search"), (2, 3, "crowd"), (3, 3, "done")]
    assert list(gamenav.warmup(navmesh=np.bool_(False), crowd=np.bool_(False))) == ["grid", "grid search"]


def test_warmup_command_writes_plain_lines_to_logs() -> None:
    proc = subprocess.run([sys.executable, "-m", "gamenav.warmup", "--only", "grid"],
                          capture_output=True, text=True, cwd=ROOT, timeout=600, check=True)
    assert "\r" not in proc.stderr
    lines = proc.stderr.splitlines()
    assert [line.split(" (")[0] for line in lines] == [
        "gamenav warmup: 1/2 grid", "gamenav warmup: 2/2 grid search", "gamenav warmup: done in"
        + lines[-1].split("done in")[1].split(" (")[0]]
    assert "RuntimeWarning" not in proc.stderr


@pytest.mark.parametrize(("bad", "match"), [({"grid": "yes"}, "grid must be True or False"),
                                          ({"progress": 3}, "progress must be a callable")])
def test_warmup_rejects_bad_arguments(bad: dict[str, object], match: str) -> None:
    with pytest.raises(gamenav.InvalidInputError, match=match):
        gamenav.warmup(**bad)  # type: ignore[arg-type]


def test_importing_the_command_module_keeps_gamenav_warmup_the_function() -> None:
    import importlib

    import gamenav
    from gamenav._warmup import warmup

    module = importlib.import_module("gamenav.warmup")
    assert callable(module.main)
    assert gamenav.warmup is warmup


def test_a_read_only_install_with_no_writable_cache_folder_still_imports(tmp_path: Path) -> None:
    # numba caches kernels beside their sources or in the user's cache folder; with neither writable
    # (a read-only install, a user with no writable home) it refused to define them: import gamenav
    # raised "RuntimeError: cannot cache function ...: no locator available"
    import shutil

    copy = tmp_path / "site"
    shutil.copytree(ROOT / "gamenav", copy / "gamenav", ignore=shutil.ignore_patterns("__pycache__"))
    (copy / "gamenav" / "_kernels" / "__pycache__").write_text("")  # not a folder: nothing can go in there
    (tmp_path / "file").write_text("")
    temp = tmp_path / "temp"
    temp.mkdir()
    environ = {k: v for k, v in os.environ.items() if k not in ("GAMENAV_QUIET", "NUMBA_CACHE_DIR")}
    environ.update(PYTHONPATH=str(copy), XDG_CACHE_HOME=str(tmp_path / "file" / "cache"), TMPDIR=str(temp))
    code = "import gamenav; from numba.core import config; print(gamenav.__file__); print(config.CACHE_DIR)"
    first, second = (subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path,
                                    env=environ, timeout=600, check=True) for _ in range(2))
    where, folder = first.stdout.split()
    assert where.startswith(str(copy)) and Path(folder).parent == temp and second.stdout == first.stdout
    assert oct(Path(folder).stat().st_mode & 0o777) == "0o700"
    assert "caching them in " + folder in first.stderr and notices(second.stderr) == []  # said once, when made


def test_numba_disable_jit_is_refused_at_import_with_the_reason() -> None:
    # the kernels do not run as plain Python: find_path raised "TypeError: ufunc 'bitwise_or' not
    # supported" from deep inside the search kernel (and NotImplementedError for the intrinsics)
    environ = {k: v for k, v in os.environ.items() if k != "GAMENAV_QUIET"}
    environ["NUMBA_DISABLE_JIT"] = "1"
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(FIND_PATH)], capture_output=True, text=True,
                          cwd=ROOT, env=environ, timeout=600, check=False)
    assert done.returncode != 0
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("ImportError: gamenav needs numba's compiler") and "NUMBA_DISABLE_JIT" in last
    grid = gamenav.TileGrid.from_strings(["....", ".##.", "...."])
    assert float(run(FIND_PATH, NUMBA_DISABLE_JIT="0").stdout) == gamenav.find_path(grid, (0, 0), (3, 2)).cost

