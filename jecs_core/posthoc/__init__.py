"""Post-hoc bounds: how many selected items can be contaminated, for a set picked after looking.

Closed testing with Simes local tests in the closed form of Goeman, Meijer, Krebs & Solari (2019),
on the per-item max-p; with the calibration size known, the smaller of that and the calibration-urn
bound for conformal p-values (``urn``), each at delta / 2.  See ``docs/GUARANTEES.md`` ("Post-hoc bounds").
"""

from .closed_simes import hommel_h
from .copies import post_hoc_calibration_size
from .fit import METHOD, PostHocFit, fit_post_hoc, post_hoc_bound
from .path import PostHocPath, post_hoc_path
from .report import post_hoc_line, post_hoc_record
from .template import GRANULARITY_NOTE, simes_template_bound

__all__ = [
    "METHOD", "GRANULARITY_NOTE", "PostHocFit", "PostHocPath",
    "fit_post_hoc", "hommel_h", "post_hoc_bound", "post_hoc_calibration_size", "post_hoc_line", "post_hoc_path",
    "post_hoc_record",
    "simes_template_bound",
]
