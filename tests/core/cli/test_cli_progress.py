"""The progress bar of ``jecs evaluate`` and ``jecs sweep``: on a terminal only, counting the whole run."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from jecs_cli import main

SAMPLE = str(Path(__file__).resolve().parents[3] / "sample_data" / "synthetic_k4.csv")


class Terminal(io.StringIO):
    """A stderr that says it is a terminal."""

    def isatty(self) -> bool:
        return True


class Recorder:
    """Stands in for tqdm: keeps what the command reported."""

    made: list[Recorder] = []

    def __init__(self, *, total, desc, unit, file, **_):
        self.total, self.desc, self.unit, self.file, self.closed = total, desc, unit, file, False
        self.seen: list[int] = []  # every count the bar was given
        self.descriptions: list[str] = [desc]
        self._n = 0
        Recorder.made.append(self)

    @property
    def n(self) -> int:
        return self._n

    @n.setter
    def n(self, value: int) -> None:
        assert value >= self._n, "the count went backwards"
        self._n = value
        self.seen.append(value)

    def set_description(self, text: str, refresh: bool = True) -> None:
        self.descriptions.append(text)

    def refresh(self) -> None:
        pass

    def update(self, step: int) -> None:
        self.n += step

    def close(self) -> None:
        self.closed = True
        self.file.write("<bar closed>\n")


@pytest.fixture
def recorded(monkeypatch):
    import tqdm

    Recorder.made = []
    monkeypatch.setattr(tqdm, "tqdm", Recorder)
    return Recorder.made


def _run(argv, capsys, *, terminal: io.StringIO | None = None) -> tuple[int, str, str]:
    """Exit code, stdout and stderr of ``jecs ARGV``, on a terminal unless ``terminal`` says otherwise.

    The stream is swapped here, not in a fixture: pytest puts its own capture back before each test runs."""
    terminal = Terminal() if terminal is None else terminal
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr("sys.stderr", terminal)
        code = main(argv)
    out, _ = capsys.readouterr()
    return code, out, terminal.getvalue()


def test_evaluate_counts_every_repetition_then_every_twin_table(recorded, capsys):
    code, _, _ = _run(["evaluate", SAMPLE, "--reps", "12", "--alphas", "0.1", "--twin", "--twin-tables", "3"], capsys)
    assert code == 0
    reps, twins = recorded
    assert (reps.desc, reps.unit, reps.total, reps.n, reps.closed) == ("repetitions", "rep", 12, 12, True)
    # three exposure patterns, three tables each
    assert (twins.desc, twins.unit, twins.n, twins.closed) == ("twin tables", "table", twins.total, True)
    assert twins.total == 9 and twins.seen == sorted(twins.seen)


@pytest.mark.parametrize("argv, settings", [
    (["sweep", "k", SAMPLE, "--ks", "2,3,4"], 3),
    (["sweep", "lambda", SAMPLE, "--lambdas", "0.5,0.7"], 1),  # one protocol run, every lambda on the same draws
    (["sweep", "rho", "--rhos", "0.2,0.6", "--pool-size", "200", "--models", "3"], 2),
])
def test_a_sweep_counts_one_running_total_over_its_settings(argv, settings, recorded, capsys):
    code, _, _ = _run([*argv, "--reps", "6"], capsys)
    assert code == 0
    (bar,) = recorded
    assert bar.desc == f"sweep {argv[1]}" and bar.closed
    assert bar.total == bar.n == 6 * settings
    assert bar.seen == sorted(bar.seen)


def test_the_bar_goes_to_stderr_and_leaves_stdout_as_it_was(capsys):
    argv = ["evaluate", SAMPLE, "--reps", "10", "--alphas", "0.1"]
    _, plain, _ = _run([*argv, "--no-progress"], capsys)
    _, drawn, bar = _run(argv, capsys)
    assert drawn == plain
    assert "repetitions" in bar and "/10" in bar


@pytest.mark.parametrize("stream, flag", [(io.StringIO, []), (Terminal, ["--no-progress"])])
def test_no_bar_off_a_terminal_or_when_turned_off(stream, flag, capsys):
    code, _, err = _run(["evaluate", SAMPLE, "--reps", "4", "--alphas", "0.1", *flag], capsys, terminal=stream())
    assert code == 0 and err == ""


def test_an_error_before_the_work_prints_only_the_error(recorded, tmp_path, capsys):
    code, _, err = _run(["evaluate", str(tmp_path / "nope.csv"), "--reps", "4"], capsys)
    assert code == 2 and recorded == []
    assert len(err.splitlines()) == 1 and "nope.csv" in err


@pytest.mark.parametrize("argv", [["select"], ["evaluate"], ["sweep", "lambda"], ["sweep", "knn"], ["sweep", "k"], ["sweep", "rho"],
                                  ["report"]])
def test_every_run_command_offers_no_progress(argv, capsys):
    with pytest.raises(SystemExit):
        main([*argv, "--help"])
    assert "--no-progress" in capsys.readouterr().out


@pytest.mark.parametrize("out", [True, False])
def test_select_names_each_step_and_clears_the_bar_before_printing(out, recorded, tmp_path, capsys):
    import pandas as pd

    frame = pd.read_csv(SAMPLE)
    twin = frame[frame["split"] == "test"].iloc[[0]].assign(item_id="copy-of-the-first")  # a duplicated score row: a warning
    source = tmp_path / "scores.csv"
    pd.concat([frame, twin]).to_csv(source, index=False)
    argv = ["select", str(source), *(["--out", str(tmp_path / "sel.csv")] if out else [])]
    code, printed, err = _run(argv, capsys)
    assert code == 0
    (bar,) = recorded
    names = ["reading scores.csv", "p-values", "rules", *(["writing sel.csv"] if out else []), "checks"]
    assert bar.unit == "step" and bar.closed
    shown = [f"jecs select: {name}" for name in names]
    assert bar.descriptions == [shown[0], *shown]  # the first step's name from the start
    assert bar.total == len(names) and bar.seen == sorted(bar.seen) and bar.n == len(names) - 1
    closed, warnings = err.index("<bar closed>"), [i for i, line in enumerate(err.splitlines()) if "jecs select:" in line]
    assert warnings and closed < err.index("jecs select:"), "a warning was printed while the bar was drawn"
    _, plain, _ = _run([*argv, "--no-progress"], capsys)
    assert printed == plain


def test_a_file_name_reaches_the_bar_escaped(recorded, tmp_path, capsys):
    source = tmp_path / "odd\x1b[31m.csv"
    source.write_bytes(Path(SAMPLE).read_bytes())
    code, _, _ = _run(["select", str(source)], capsys)
    assert code == 0
    assert all("\x1b" not in text for text in recorded[0].descriptions)
    assert "\\x1b" in recorded[0].descriptions[0]


def test_report_names_each_step(recorded, tmp_path, capsys):
    pytest.importorskip("plotly", reason="jecs report draws its figures with the app extra")
    code, printed, _ = _run(["report", SAMPLE, "--out", str(tmp_path / "r.html")], capsys)
    assert code == 0 and printed.startswith("wrote ")
    (bar,) = recorded
    names = ["reading synthetic_k4.csv", "p-values and rules", "diagnostics", "figures and page", "writing r.html"]
    assert bar.descriptions == [f"jecs report: {names[0]}", *(f"jecs report: {name}" for name in names)]
    assert bar.total == 5 and bar.closed and bar.seen == sorted(bar.seen)
