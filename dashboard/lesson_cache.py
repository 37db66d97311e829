"""Cached wrappers of the lesson computations (Streamlit cache; the numbers live in lesson_data)."""

from __future__ import annotations

import streamlit as st

from . import lesson_data


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
