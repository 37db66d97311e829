"""``jecs select``'s printed summary: each rule's fit line, the comparison table, the post-hoc line,
the checks' blocks, notes and warnings."""

from __future__ import annotations

import sys
from typing import NamedTuple

from ..posthoc import post_hoc_line
from ..rules import DEFAULT_METHOD, REGISTRY


def row_label(name: str) -> str:
    """A rule's label in the summary, marked when it is the default."""
    return REGISTRY[name].label + (" (default)" if name == DEFAULT_METHOD else "")


def _fit_line(name: str, result) -> list[str]:
    """One labelled line of a rule's alpha-free fit (lambda, k_n, F_fit(lambda), pi0_hat: whichever it has)."""
    label = REGISTRY[name].label
    lines = [] if result.fallback_reason is None else [f"{label} fell back to JMCS: {result.fallback_reason}"]
    rows = result.fit_summary()
    if rows:
        lines.append(f"{label} fit: " + "   ".join(f"{row.label} = {row.text}" for row in rows))
    lines.extend(f"warning: {label}: {note}" for note in result.fit_notes())
    return lines


def _fit_lines(comparison) -> list[str]:
    """Each rule's fit line, the default rule's first."""
    order = sorted(comparison.methods, key=lambda name: name != DEFAULT_METHOD)
    return [line for name in order for line in _fit_line(name, comparison.result(name))]


def format_summary(table, comparison) -> str:
    lines = [
        f"input: {table.source}",
        f"n (test) = {table.n}   m (calibration) = {table.m}   K = {table.K}   alpha = {comparison.alpha:g}",
        *_fit_lines(comparison),
    ]
    header = f"{'method':<34}{'selected':>9}"
    if table.has_labels:
        header += f"{'GCP':>8}{'power':>8}"
    lines.append(header)
    over = False
    for method in comparison.methods:
        row = f"{row_label(method):<34}{int(comparison.selected(method).sum()):>9}"
        found = comparison.metrics(method)
        if found is not None:
            above = found.gcp > comparison.alpha
            over |= above
            row += f"{found.gcp:>8.3f}{found.power:>8.3f}{' *' if above else ''}"
        lines.append(row)
    if over:
        lines.append("(* GCP above alpha on this table)")
    return "\n".join(lines)


def post_hoc_summary(comparison, name: str, recorded: dict) -> str:
    """Rule ``name``'s post-hoc line from its :func:`~jecs_core.posthoc.report.post_hoc_record` (the one
    the sidecar holds)."""
    line = post_hoc_line(int(recorded["max_contaminated"]), int(comparison.selected(name).sum()), delta=recorded["delta"])
    return f"{row_label(name)}: {line}"


class SelectOutcome(NamedTuple):
    """What ``jecs select`` computed, for :func:`print_outcome`."""

    table: object
    comparison: object
    clusters: object  # cluster index per test item with --cluster duplicates, else None
    exported: str  # the rule whose selection the export and the post-hoc line carry
    recorded: dict  # the post-hoc record
    blocks: tuple  # the shift check, the shift p-values and the diagnostics; None where not run
    notes: list
    warnings: list
    written: tuple | None  # (CSV path, sidecar path) with --out


def print_outcome(args, outcome: SelectOutcome) -> None:
    """The summary on stdout, each warning as one line on stderr (so the summary stays parseable)."""
    table, comparison, clusters = outcome.table, outcome.comparison, outcome.clusters
    if clusters is not None:
        print(f"cluster: one hypothesis per cluster of duplicated items ({int(clusters.max()) + 1 if len(clusters) else 0} "
              f"clusters among n = {table.n} test items)")
    print(format_summary(table, comparison))
    print(post_hoc_summary(comparison, outcome.exported, outcome.recorded))
    for block in outcome.blocks:
        if block is not None:
            print("\n".join(block.lines()))
    for note in outcome.notes:
        print(note)
    for line in outcome.warnings:
        print(f"jecs select: {line}", file=sys.stderr)
    if outcome.written is not None:
        csv_path, json_path = outcome.written
        print(f"wrote {csv_path} ({args.method}) and {json_path}")
