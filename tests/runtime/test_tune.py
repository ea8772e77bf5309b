"""The budget tuning tool: table, plot, progress, errors (small map, few frames)."""

from __future__ import annotations

import io
import shlex
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import gamenav
from gamenav import tune
from gamenav.io.movingai import write_map


@pytest.fixture
def small_map(tmp_path: Path) -> Path:
    rng = np.random.default_rng(0)
    walk = rng.random((40, 48)) > 0.2
    walk[20, :] = True
    path = tmp_path / "small.map"
    write_map(path, walk)
    return path


def test_table_and_plot(small_map: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    png = tmp_path / "tune.png"
    assert tune.main(["--map", str(small_map), "--agents", "30", "--budgets", "0.05,1",
                      "--frames", "90", "--plot", str(png), "--seed", "3"]) == 0
    out, err = capsys.readouterr()
    lines = [line for line in out.splitlines() if line.startswith("| ")]
    assert lines[0].startswith("| budget ms | frame ms p50 | p99 | max | CPU ms p99 | latency frames p50")
    rows = [line.strip("| ").split(" | ") for line in lines[1:]]
    assert [r[0] for r in rows] == ["0.05", "1"]
    tight, loose = rows
    assert float(tight[5]) >= float(loose[5])          # a bigger budget never waits longer (p50)
    assert float(loose[8]) > 0 and loose[9].endswith("%")
    # stderr is not a terminal here: one plain line per budget, no carriage returns
    assert "\r" not in err
    assert [line for line in err.splitlines() if line.startswith("gamenav-tune:")] == [
        "gamenav-tune: budget 0.05 ms done (1/2)", "gamenav-tune: budget 1 ms done (2/2)"]
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_plot_without_a_file_suffix_is_a_png_under_that_name(small_map: Path, tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "plot"  # was written as plot.png while "plot written to .../plot" was printed
    assert tune.main(["--map", str(small_map), "--agents", "2", "--budgets", "1", "--frames", "2",
                      "--plot", str(out)]) == 0
    assert f"plot written to {out}" in capsys.readouterr().out
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_progress_bar_on_a_terminal() -> None:
    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    stream = Terminal()
    show = tune._progress_printer([0.5, 1.0], 10, stream)
    for k in range(2):
        for frame in range(1, 11):
            show(k, frame)
    text = stream.getvalue()
    assert text.count("\r") == 20  # 5 %, 10 %, ... 100 %
    assert text.endswith("[#########################] 100%\n")


def test_plot_shows_cpu_and_wall_time(small_map: Path) -> None:
    grid = gamenav.TileGrid.from_movingai(small_map)
    results = [tune.simulate(grid, agents=10, budget_ms=b, frames=30, seed=2) for b in (0.5, 2.0)]
    fig = tune.plot_figure(results, "test")
    frame_axes = fig.axes[0]
    lines = {line.get_label(): line for line in frame_axes.get_lines()}
    assert {"wall p50", "wall p99", "wall max", "CPU p50", "CPU p99", "CPU max", "budget"} <= set(lines)
    assert list(lines["CPU p99"].get_ydata()) == [float(np.percentile(r.frame_cpu_ms, 99)) for r in results]
    assert list(lines["wall max"].get_ydata()) == [float(r.frame_ms.max()) for r in results]
    assert "wall" in frame_axes.get_title() and "CPU" in frame_axes.get_title()
    import matplotlib.pyplot as plt

    plt.close(fig)


def test_plot_figure_leaves_the_callers_matplotlib_backend_alone(small_map: Path) -> None:
    import matplotlib

    grid = gamenav.TileGrid.from_movingai(small_map)
    results = [tune.simulate(grid, agents=3, budget_ms=1.0, frames=5)]
    before = matplotlib.get_backend()
    matplotlib.use("svg")  # the caller's choice (a notebook's, a GUI's)
    try:
        tune.plot_figure(results, "backend")  # switched every caller to Agg
        assert matplotlib.get_backend() == "svg"
    finally:
        matplotlib.use(before)


def test_plot_of_a_run_without_frames(small_map: Path) -> None:
    grid = gamenav.TileGrid.from_movingai(small_map)  # frames=0 is valid: its row shows zeros
    result = tune.simulate(grid, agents=3, budget_ms=1.0, frames=0)
    fig = tune.plot_figure([result], "empty")  # was IndexError from np.percentile
    assert all(list(line.get_ydata()) == [0.0] for ax in fig.axes for line in ax.get_lines()
               if line.get_label() != "budget")
    import matplotlib.pyplot as plt

    plt.close(fig)


def test_simulate_is_reproducible(small_map: Path) -> None:
    grid = gamenav.TileGrid.from_movingai(small_map)
    a = tune.simulate(grid, agents=20, budget_ms=50.0, frames=60, seed=1)
    b = tune.simulate(grid, agents=20, budget_ms=50.0, frames=60, seed=1)
    assert a.answered > 0 and a.frame_ms.shape == a.frame_cpu_ms.shape == (60,)
    assert a.seconds == 1.0 and a.throughput == a.answered
    assert 0.0 <= a.cache_hit_rate <= 1.0
    # the same scenario (the budget is never the bottleneck here): the same answers
    assert a.answered == b.answered and (a.latency == b.latency).all()


def test_plot_without_matplotlib(small_map: Path, monkeypatch: pytest.MonkeyPatch,
                                 capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    with pytest.raises(SystemExit):
        tune.main(["--map", str(small_map), "--plot", "x.png", "--frames", "2"])
    assert '--plot needs matplotlib: pip install -e ".[plot]" (in a gamenav checkout)' in capsys.readouterr().err


def test_bad_arguments(small_map: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        tune.main(["--map", str(small_map), "--budgets", "1,fast"])
    assert "budgets must be comma-separated numbers of ms, got '1,fast'" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        tune.main(["--map", str(small_map), "--agents", "0"])
    assert "must be an integer >= 1, got '0'" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        tune.main(["--map", str(small_map.parent / "missing.map")])
    assert "cannot read --map" in capsys.readouterr().err


def test_module_entry_point(small_map: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "gamenav.tune", "--map", str(small_map),
                           "--agents", "5", "--budgets", "1", "--frames", "10"],
                          capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    assert "| 1 |" in done.stdout


def test_runs_with_stderr_closed(small_map: Path) -> None:
    # with `2>&-` printing the progress raised OSError (bad file descriptor): exit 1, nothing printed
    command = shlex.join([sys.executable, "-m", "gamenav.tune", "--map", str(small_map), "--agents", "5",
                          "--budgets", "1", "--frames", "10"])
    done = subprocess.run(command + " 2>&-", shell=True, stdout=subprocess.PIPE, text=True, timeout=300,
                          check=False)
    assert done.returncode == 0 and "| 1 |" in done.stdout


@pytest.mark.parametrize("stream", ["closed", "write-only"])
def test_the_progress_printer_takes_a_closed_or_write_only_stream(stream: str) -> None:
    # a closed sys.stderr (an embedding that closed it) raised ValueError from isatty(); a
    # game's console object with only write() raised AttributeError
    class Console:
        def __init__(self) -> None:
            self.text: list[str] = []

        def write(self, text: str) -> int:
            self.text.append(text)
            return len(text)

    out: object
    if stream == "closed":
        out = io.StringIO()
        out.close()
    else:
        out = Console()
    show = tune._progress_printer([1.0, 2.0], 10, out)  # type: ignore[arg-type]
    for k in range(2):
        for frame in range(1, 11):
            show(k, frame)
    if isinstance(out, Console):
        assert "".join(out.text).splitlines() == ["gamenav-tune: budget 1 ms done (1/2)",
                                                  "gamenav-tune: budget 2 ms done (2/2)"]


@pytest.mark.parametrize(("args", "message"), [
    (["--budgets", "1,inf"], "budgets must be finite positive numbers of ms, got '1,inf'"),
    (["--budgets", "1e400"], "budgets must be finite positive numbers of ms"),
    (["--seed", "-1"], "must be an integer >= 0, got '-1'"),
    # MemoryError (7.28 TiB for the agents' start cells) after the warmup
    (["--agents", str(10**12)], "argument --agents: must be at most 1_000_000, got '1000000000000'"),
    (["--frames", str(10**12)], "argument --frames: must be at most 10_000_000, got '1000000000000'"),
    (["--speed", "inf"], "--speed must be a finite number > 0, got inf"),
    # the plot was written after the run: a missing folder or a folder name failed only then
    (["--plot", "no-such-folder/tune.png"],
     "--plot must name a PNG file in an existing folder, got 'no-such-folder/tune.png'"),
    (["--plot", "."], "--plot must name a PNG file in an existing folder, got '.'"),
    (["--plot", "tune.xyz"], "--plot 'tune.xyz': matplotlib cannot write .xyz files (it writes "),
])
def test_arguments_the_simulation_cannot_use_fail_before_the_run(small_map: Path, args: list[str], message: str,
                                                                 capsys: pytest.CaptureFixture[str],
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(small_map.parent)  # the old code wrote '--plot .' as ./.png after the run
    with pytest.raises(SystemExit):
        tune.main(["--map", str(small_map), "--frames", "2", *args])
    assert message in capsys.readouterr().err


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="needs /proc, where nobody can make files")
def test_a_folder_that_cannot_be_written_fails_before_the_run(small_map: Path, monkeypatch: pytest.MonkeyPatch,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(tune, "warmup", lambda **kwargs: pytest.fail("the run started"))
    with pytest.raises(SystemExit):  # was a FileNotFoundError / PermissionError after the whole run
        tune.main(["--map", str(small_map), "--frames", "2", "--plot", "/proc/tune.png"])
    assert "--plot '/proc/tune.png': cannot write files in /proc" in capsys.readouterr().err


def test_a_listed_format_that_cannot_be_written_here_fails_before_the_run(
        small_map: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))  # no LaTeX: matplotlib lists .pgf but cannot write it
    monkeypatch.setattr(tune, "warmup", lambda **kwargs: pytest.fail("the run started"))
    with pytest.raises(SystemExit):  # was a RuntimeError ('xelatex' not found) after the whole run
        tune.main(["--map", str(small_map), "--frames", "2", "--plot", str(tmp_path / "tune.pgf")])
    assert "tune.pgf': matplotlib cannot write .pgf files here: 'xelatex' not found" in capsys.readouterr().err
    assert not (tmp_path / "tune.pgf").exists()


@pytest.mark.parametrize(("text", "message"), [
    ("type octile\nheight 2\nwidth 3\nmap\n@@@\n@@@\n", "has no passable cell"),
    ("type octile\nheight 3\nwidth 3\nmap\n...\n", "cannot read --map"),
])
def test_unusable_maps_are_argument_errors(tmp_path: Path, text: str, message: str,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "bad.map"
    path.write_text(text)
    with pytest.raises(SystemExit):
        tune.main(["--map", str(path), "--frames", "2"])
    assert message in capsys.readouterr().err


@pytest.mark.parametrize(("kwargs", "message"), [
    (dict(agents=0), "agents must be an int >= 1, got 0"),
    (dict(agents=2.5), "agents must be an int >= 1, got 2.5"),
    (dict(frames=-1), "frames must be an int >= 0, got -1"),
    (dict(agents=10**12), "agents must be at most 1_000_000, got 1000000000000"),  # was MemoryError
    (dict(frames=10**12), "frames must be at most 10_000_000, got 1000000000000"),
    (dict(seed=-3), "seed must be an int >= 0, got -3"),
    (dict(destinations=-1), "destinations must be an int >= 0, got -1"),
    (dict(speed=float("nan")), "speed must be a finite number > 0, got nan"),
])
def test_simulate_checks_its_arguments(small_map: Path, kwargs: dict[str, object], message: str) -> None:
    grid = gamenav.TileGrid.from_movingai(small_map)
    options: dict[str, object] = {"agents": 2, "budget_ms": 1.0, "frames": 2, **kwargs}
    with pytest.raises(gamenav.InvalidInputError, match=message):
        tune.simulate(grid, **options)  # type: ignore[arg-type]


@pytest.mark.parametrize("speed", [5e-324, 1e-310])
def test_simulate_with_a_subnormal_speed(small_map: Path, speed: float) -> None:
    grid = gamenav.TileGrid.from_movingai(small_map)  # was ZeroDivisionError / OverflowError
    result = tune.simulate(grid, agents=5, budget_ms=50.0, frames=90, speed=speed)
    assert result.answered >= 5  # every agent woke up once; none arrives at that speed


def test_simulate_on_a_map_without_a_passable_cell() -> None:
    grid = gamenav.TileGrid(np.zeros((3, 4), dtype=bool))
    with pytest.raises(gamenav.InvalidInputError, match="the map has no passable cell"):
        tune.simulate(grid, agents=2, budget_ms=1.0, frames=2)
