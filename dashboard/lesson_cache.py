"""Cached wrappers of the lesson computations (Streamlit cache; the numbers live in lesson_data, lesson_looking
and lesson_granularity)."""

from __future__ import annotations

import numpy as np
import streamlit as st

from . import lesson_data, lesson_granularity, lesson_looking, state

# Fresh tables per run of the "picking alpha after looking" lesson: about half a second on two cores.
LOOKING_TABLES = 200


@st.cache_data(show_spinner=False, max_entries=64)
def density(n_models: int, eta: float, exposure: int | None):
    return lesson_data.density_lesson(n_models=n_models, eta=eta, exposure=exposure)


@st.cache_data(show_spinner=False, max_entries=64)
def cutoff(n_models: int, alpha: float):
    return lesson_data.cutoff_lesson(n_models=n_models, alpha=alpha)


@st.cache_data(show_spinner=False, max_entries=64)
def envelope(n_models: int, eta: float, lam: float):
    return lesson_data.envelope_lesson(n_models=n_models, eta=eta, lam=lam)


@st.cache_data(show_spinner="Simulating audits…", max_entries=32)
def power(max_models: int, eta: float, alpha: float):
    return lesson_data.power_lesson(max_models=max_models, eta=eta, alpha=alpha)


def _alpha_grid() -> tuple[float, ...]:
    """Every alpha the dashboard's slider offers."""
    return tuple(np.round(np.arange(state.ALPHA_MIN, state.ALPHA_MAX + state.ALPHA_STEP / 2, state.ALPHA_STEP), 2))


@st.cache_data(show_spinner="Simulating fresh audits…", max_entries=32)
def looking(n_items: int, n_models: int, share: float, mu: float, delta: float, alpha: float):
    return lesson_looking.looking_lesson(n_items=n_items, n_models=n_models, share=share, mu=mu, delta=delta,
                                         alpha=alpha, alphas=_alpha_grid(), reps=LOOKING_TABLES)


@st.cache_data(show_spinner=False, max_entries=256)
def _granularity_point(m: int, n_items: int, n_models: int, share: float, mu: float, delta: float, alpha: float):
    return lesson_granularity.granularity_point(calibration_size=m, n_items=n_items, n_models=n_models, share=share,
                                                mu=mu, delta=delta, alpha=alpha)


def granularity(m: int, n_items: int, n_models: int, share: float, mu: float, delta: float, alpha: float):
    """The lesson at the curve's calibration sizes and the chosen ``m``, each size cached on its own
    (moving the m slider computes one new point)."""
    sizes = sorted(set(lesson_granularity.M_GRID) | {int(m)})
    with st.spinner("Simulating fresh audits…"):
        points = [_granularity_point(size, n_items, n_models, share, mu, delta, alpha) for size in sizes]
    return lesson_granularity.granularity_lesson(points, chosen=int(m), n_items=n_items, delta=delta, alpha=alpha)
