"""The names of the ways covariates can enter the p-values (``method=`` of :func:`~jecs_core.shift.shift_pvalues`).

On their own so that the command line's parsers list them without importing the methods.
"""

SHIFT_METHODS = ("auto", "weighted", "residual", "none")
