"""Select page (e): the lambda grid behind the data-driven choice (smallest slope F_fit(λ)/λ wins)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from jecs_core import JECSFit

from ..theme import PALETTE, REFERENCE_COLOR, figure, layout


def _lambda_grid_data(fit: JECSFit) -> pd.DataFrame:
    """``fit.grid.to_frame()``: one row per lambda (m_R, k_n, g_hat, F_fit(λ), slope, pi0_hat, flags)."""
    return fit.grid.to_frame()


def plot_lambda_grid(fit: JECSFit, *, color: str = PALETTE[0]) -> go.Figure:
    """Bars of the slope F_fit(λ)/λ per λ on the grid; the chosen λ in ``color``."""
    frame = _lambda_grid_data(fit)
    colors = [color if c else REFERENCE_COLOR for c in frame["chosen"]]
    labels = []
    for _, row in frame.iterrows():
        if not row["usable"]:
            labels.append("empty tail")
        elif row["few_tail_points"]:
            labels.append(f"{row['slope']:.3f} (few tail points)")
        else:
            labels.append(f"{row['slope']:.3f}")
    hover = np.column_stack([frame["m_R"], frame["k_n"].astype(object).where(frame["k_n"].notna(), "-"),
                             frame["F_fit_lambda"].round(4)])
    bars = {
        "type": "bar", "x": [f"{v:g}" for v in frame["lambda"]], "y": np.nan_to_num(frame["slope"].to_numpy(dtype=float)),
        "marker": {"color": colors}, "text": labels, "textposition": "outside", "cliponaxis": False, "customdata": hover,
        "hovertemplate": "λ = %{x}<br>slope F_fit(λ)/λ = %{y:.4f}<br>m_R = %{customdata[0]}"
        "<br>k_n = %{customdata[1]}<br>F_fit(λ) = %{customdata[2]}<extra></extra>",
    }
    mode = "data-driven" if fit.lambda_mode == "auto" else "manual"
    return figure([bars], layout(
        title=f"Slope per λ ({mode}; chosen in colour)", height=360,
        xaxis={"title": {"text": "λ (tail threshold)"}, "type": "category"},
        yaxis={"title": {"text": "slope F_fit(λ) / λ"}},
    ))
