"""Every registered rule's alpha-free fit selects exactly what a direct run selects."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from jecs_core import METHODS, REGISTRY

LATTICE = np.arange(1, 21) / 20  # conformal-like p-values with many ties


# Tiny lattice tables leave no max-p value above the paper's lambdas: its fallback warning is expected.
@pytest.mark.filterwarnings("ignore::jecs_core.JECSFallbackWarning")
@pytest.mark.parametrize("method", METHODS)
@given(
    p=arrays(float, st.tuples(st.integers(1, 40), st.integers(1, 4)), elements=st.sampled_from(LATTICE)),
    alpha=st.sampled_from([0.01, 0.05, 0.1, 0.3, 0.7]),
)
def test_fit_then_select_equals_a_direct_run(method, p, alpha):
    rule = REGISTRY[method]
    direct = rule.run(p, alpha=alpha)
    fitted = rule.prepare(p).select(alpha)
    np.testing.assert_array_equal(fitted.selected, direct.selected)
    assert fitted.n_selected == direct.n_selected


def test_the_fit_is_reused_across_alphas():
    rng = np.random.default_rng(3)
    p = rng.uniform(size=(500, 3)) ** 2
    for method in METHODS:
        fit = REGISTRY[method].prepare(p)
        counts = [fit.select(a).n_selected for a in (0.05, 0.1, 0.2, 0.4)]
        assert counts == [REGISTRY[method].run(p, alpha=a).n_selected for a in (0.05, 0.1, 0.2, 0.4)]
