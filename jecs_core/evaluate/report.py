"""Plain-text tables of evaluation results, laid out like the paper's tables."""

from __future__ import annotations

import textwrap

import numpy as np
import pandas as pd

from ..rules import METHODS, REGISTRY, Guarantee, declared_options

DAGGER = "\u2020"  # marks a mean GCP above its alpha, as in the paper


def _cell(mean: float, se: float, digits: int, flag: bool = False) -> str:
    se_text = "n/a" if np.isnan(se) else f"{se:.{digits}f}"
    return f"{mean:.{digits}f} \u00b1 {se_text}" + (DAGGER if flag else " ")


def _method_order(frame: pd.DataFrame) -> list[str]:
    present = set(frame["method"])
    return [m for m in METHODS if m in present]


def guarantee_notes(methods) -> list[str]:
    """One line per rule shown without a finite-sample guarantee, read from the registry."""
    return [f"{REGISTRY[m].label}: {REGISTRY[m].guarantee.description}."
            for m in methods if REGISTRY[m].guarantee is not Guarantee.FINITE_SAMPLE]


def format_summary(summary: pd.DataFrame, *, digits: int = 3) -> str:
    """GCP and power blocks, methods x alpha, from an evaluation summary frame."""
    alphas = sorted(summary["alpha"].unique())
    methods = _method_order(summary)
    width = max(len(REGISTRY[m].label) for m in methods) + 2
    cell_width = 2 * digits + 10  # "0.051 ± 0.002†" plus two spaces of gutter
    header = f"{'method':<{width}}" + "".join(f"{f'alpha={a:g}':>{cell_width - 1}} " for a in alphas)
    lines = []
    titles = (("gcp", f"GCP (mean \u00b1 SE; {DAGGER} = mean GCP above alpha)"), ("power", "Power (mean \u00b1 SE)"))
    for metric, title in titles:
        lines += [title, header]
        for method in methods:
            cells = []
            for alpha in alphas:
                row = summary[(summary["method"] == method) & (summary["alpha"] == alpha)].iloc[0]
                flag = metric == "gcp" and bool(row["over_target"])
                cells.append(f"{_cell(row[metric], row[metric + '_se'], digits, flag):>{cell_width}}")
            lines.append(f"{REGISTRY[method].label:<{width}}" + "".join(cells))
        lines.append("")
    return "\n".join(line.rstrip() for line in lines).rstrip("\n")


def format_evaluation(evaluation, *, source: str | None = None, digits: int = 3) -> str:
    """The evaluator's result as text: a header of the run, then GCP and power tables.

    Parameters
    ----------
    evaluation : jecs_core.evaluate.Evaluation
        What :func:`jecs_core.evaluate.evaluate` returned.
    source : str, optional
        Name of the input shown in the header.
    digits : int
        Decimals of means and standard errors.

    Returns
    -------
    str
        The report, lines joined by newlines (what ``jecs evaluate`` prints).

    Examples
    --------
    >>> import numpy as np, jecs_core as jc
    >>> from jecs_core.evaluate import evaluate
    >>> from jecs_core.simulate import make_scenario
    >>> table = make_scenario("paper", np.random.default_rng(0), pool_size=400)
    >>> text = jc.format_evaluation(evaluate(table, alphas=(0.1,), reps=20, seed=0), source="paper")
    >>> text.splitlines()[0]
    'input: paper'
    """
    from .montecarlo import Evaluation  # loaded already where an evaluation was made

    if not isinstance(evaluation, Evaluation):
        raise TypeError(f"evaluation must be an Evaluation (what jecs_core.evaluate.evaluate returns), "
                        f"got {type(evaluation).__name__}")
    ev = evaluation
    lines = []
    if source:
        lines.append(f"input: {source}")
    lines.append(
        f"n (test) = {ev.n_test} ({ev.n_test_drawn} drawn per repetition)   "
        f"m (calibration) = {ev.n_calibration} ({ev.n_calibration_drawn} drawn)   K = {len(ev.models)}"
    )
    lines.append(f"reps = {ev.reps}   seed = {ev.seed}   " + "   ".join(
        f"{name} = {option.to_url(ev.options[name])}" for name, (option, _) in declared_options().items()))
    lines.append("")
    lines.append(format_summary(ev.summary, digits=digits))
    lines.append(textwrap.fill(f"SE = std / sqrt(reps) (ddof={ev.se_ddof}). {ev.se_note}", width=100))
    lines += guarantee_notes(ev.methods)
    return "\n".join(lines)


_SWEEP_COLUMNS = ("parameter", "setting", "method", "alpha", "gcp", "gcp_se", "power", "power_se", "over_target", "reps")


def _check_sweep(frame) -> None:
    """``frame`` is a sweep's result: a DataFrame with rows and the sweep columns."""
    if not isinstance(frame, pd.DataFrame):
        raise TypeError(f"frame must be a pandas.DataFrame from a sweep (sweep_lambda, ...), got {type(frame).__name__}")
    missing = [c for c in _SWEEP_COLUMNS if c not in frame.columns]
    if missing:
        raise ValueError(f"frame must be a sweep's result (sweep_lambda, sweep_knn, sweep_k or sweep_rho); it lacks the columns {missing}")
    if frame.empty:
        raise ValueError("frame must hold at least one row of a sweep, got an empty frame")


def format_sweep(frame: pd.DataFrame, *, digits: int = 3) -> str:
    """A sweep frame as text: one block per alpha, rows setting x method, GCP and power columns.

    Parameters
    ----------
    frame : pandas.DataFrame
        What a sweep (:func:`jecs_core.sweep_lambda`, ``sweep_knn``, ``sweep_k``, ``sweep_rho``) returned.
    digits : int
        Decimals of means and standard errors.

    Returns
    -------
    str
        The tables, lines joined by newlines (what ``jecs sweep`` prints).

    Examples
    --------
    >>> import jecs_core as jc
    >>> from sample_data import SAMPLE_DIR
    >>> table = jc.load_scores(SAMPLE_DIR / "synthetic_k4.csv")
    >>> print(format_sweep(jc.sweep_knn(table, knns=[5, None], reps=5, methods=["jecs"], seed=0)))
    knn sweep, alpha = 0.1  († = mean GCP above alpha)
    setting  method                    GCP           power
    5        JECS (paper)    0.064 ± 0.010   0.968 ± 0.008
    auto     JECS (paper)    0.050 ± 0.004   0.949 ± 0.005
    <BLANKLINE>
    reps = 5 per setting; SE = std / sqrt(reps) (ddof=1).
    """
    _check_sweep(frame)
    parameter = frame["parameter"].iloc[0]
    methods = _method_order(frame)
    settings = list(dict.fromkeys(frame["setting"]))
    set_width = max(len("setting"), *(len(s) for s in settings)) + 2
    width = max(len(REGISTRY[m].label) for m in methods) + 2
    cell_width = 2 * digits + 10
    lines = []
    for alpha in sorted(frame["alpha"].unique()):
        lines.append(f"{parameter} sweep, alpha = {alpha:g}  ({DAGGER} = mean GCP above alpha)")
        lines.append(f"{'setting':<{set_width}}{'method':<{width}}{'GCP':>{cell_width - 1}} {'power':>{cell_width - 1}} ")
        block = frame[frame["alpha"] == alpha]
        for setting in settings:
            for method in methods:
                rows = block[(block["setting"] == setting) & (block["method"] == method)]
                if rows.empty:
                    continue
                row = rows.iloc[0]
                gcp = _cell(row["gcp"], row["gcp_se"], digits, bool(row["over_target"]))
                power = _cell(row["power"], row["power_se"], digits)
                lines.append(
                    f"{setting:<{set_width}}{REGISTRY[method].label:<{width}}{gcp:>{cell_width}}{power:>{cell_width}}"
                )
        lines.append("")
    reps = int(frame["reps"].iloc[0])
    lines.append(f"reps = {reps} per setting; SE = std / sqrt(reps) (ddof=1).")
    return "\n".join(line.rstrip() for line in lines)


def format_twin_comparison(evaluation, twin, *, digits: int = 3) -> str:
    """The protocol's GCP beside the twin (unconditional) GCR of each rule, per exposure pattern.

    The last column compares the between-table standard deviation of GCP on the twins
    (largest over patterns) with the protocol's standard error: how much wider the
    spread over fresh tables is than the subsampling noise the protocol reports.
    """
    ev, rows = evaluation, twin.summary
    width = max(len(REGISTRY[m].label) for m in ev.methods) + 2
    cell = 2 * digits + 10
    head = f"{'method':<{width}}{'alpha':>6}  {'protocol GCP':>{cell}}" + "".join(
        f"{'twin ' + p:>{cell + 1}}" for p in twin.patterns) + "   table SD / protocol SE"
    lines = [f"Twin estimate: mean GCP over {twin.tables} fresh tables matched to this audit, per exposure pattern "
             f"(* = above alpha + 2 SE)", head]
    for method in ev.methods:
        for alpha in ev.alphas:
            pro = ev.summary[(ev.summary["method"] == method) & (ev.summary["alpha"] == alpha)].iloc[0]
            mine = rows[(rows["method"] == method) & np.isclose(rows["alpha"], alpha)]
            if mine.empty:
                continue
            cells = "".join(f"{_cell(r['gcr'], r['gcr_se'], digits) .rstrip() + ('*' if r['over_2se'] else ' '):>{cell + 1}}"
                            for _, r in mine.iterrows())
            ratio = mine["gcp_sd"].max() / pro["gcp_se"] if pro["gcp_se"] > 0 else np.nan
            ratio_text = "n/a" if not np.isfinite(ratio) else f"{ratio:.0f}x"
            lines.append(f"{REGISTRY[method].label:<{width}}{alpha:>6g}  {_cell(pro['gcp'], pro['gcp_se'], digits):>{cell}}"
                         f"{cells}   {ratio_text:>6}")
    lines.append(f"twin run: {twin.seconds:.1f} s, seed {twin.seed}; " + twin.model.lines()[0])
    return "\n".join(line.rstrip() for line in lines)
