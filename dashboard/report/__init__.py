"""The one-file audit report: a self-contained HTML page (no Streamlit here).

:func:`build_report` writes settings, a data summary, the label-free diagnostics (when
the installed jecs_core has :func:`audit_diagnostics`), every rule's counts, warnings,
the Select page's figures with plotly.js inlined once (so the file opens offline), the
provenance sidecar of the scores when there is one, and the selection sidecar's record
(hashes included).  Every user-supplied string is HTML-escaped.
"""

from __future__ import annotations

from .build import (
    ReportInputs,
    audit_diagnostics_or_none,
    build_report,
    figure_html,
    provenance_for,
    report_file_name,
)
from .posthoc import PostHocContext, apply_to_sidecar

__all__ = ["PostHocContext", "ReportInputs", "apply_to_sidecar", "audit_diagnostics_or_none", "build_report", "figure_html", "provenance_for", "report_file_name"]
