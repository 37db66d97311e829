"""Pure plotly figure builders.

Each ``plot_xxx`` returns a ``plotly.graph_objects.Figure`` and draws what a
private ``_xxx_data`` computes from jecs_core objects; tests check the data and the
figure's properties.  Nothing here imports Streamlit.
"""

from .catalog import FIGURE_KEYS, SELECT_FIGURES, FigureSpec, build_all, envelope_source, get_figure_spec
from .distributions import plot_score_distributions
from .envelope import plot_envelope
from .grid import plot_lambda_grid
from .maxp import plot_maxp_histogram
from .overlap import plot_overlap
from .stepup import plot_stepup

__all__ = [
    "FIGURE_KEYS", "SELECT_FIGURES", "FigureSpec", "build_all", "envelope_source", "get_figure_spec",
    "plot_envelope", "plot_lambda_grid", "plot_maxp_histogram", "plot_overlap", "plot_score_distributions", "plot_stepup",
]
