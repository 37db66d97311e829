"""``jecs select``'s printed summary: each rule's fit line, the comparison table and the post-hoc line."""

from __future__ import annotations

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
    for method in comparison.methods:
        row = f"{row_label(method):<34}{int(comparison.selected(method).sum()):>9}"
        found = comparison.metrics(method)
        if found is not None:
            flag = " *" if found.gcp > comparison.alpha else ""
            row += f"{found.gcp:>8.3f}{found.power:>8.3f}{flag}"
        lines.append(row)
    if any(found is not None and found.gcp > comparison.alpha for found in map(comparison.metrics, comparison.methods)):
        lines.append("(* GCP above alpha on this table)")
    return "\n".join(lines)


def post_hoc_summary(comparison, name: str, recorded: dict) -> str:
    """Rule ``name``'s post-hoc line from its :func:`~jecs_core.posthoc.report.post_hoc_record` (the one
    the sidecar holds)."""
    line = post_hoc_line(int(recorded["max_contaminated"]), int(comparison.selected(name).sum()), delta=recorded["delta"])
    return f"{row_label(name)}: {line}"
