"""Error control by simulation on the paper's synthetic setup (runs in seconds)."""

from __future__ import annotations

import numpy as np

from jecs_core import compare_pvalues, conformal_pvalues
from jecs_core.simulate.synthetic import paper_synthetic

ALPHAS = (0.1, 0.2, 0.3)
REPS = 200


def test_gcr_control_and_power_on_paper_synthetic_setup():
    rng = np.random.default_rng(2026)
    gcp = {a: {m: [] for m in ("jecs", "jmcs", "union", "intersection")} for a in ALPHAS}
    power = {a: {m: [] for m in ("jecs", "jmcs")} for a in ALPHAS}
    for _ in range(REPS):
        frame = paper_synthetic(rng)
        cal = frame[frame.split == "calibration"].filter(like="score_").to_numpy()
        test_rows = frame[frame.split == "test"]
        test = test_rows.filter(like="score_").to_numpy()
        contaminated = test_rows.filter(like="member_").to_numpy().any(axis=1)
        p = conformal_pvalues(test, cal)
        for alpha in ALPHAS:
            out = compare_pvalues(p, alpha=alpha, contaminated=contaminated)
            for method in gcp[alpha]:
                gcp[alpha][method].append(out.metrics(method).gcp)
            for method in power[alpha]:
                power[alpha][method].append(out.metrics(method).power)
    for alpha in ALPHAS:
        for method in ("jecs", "jmcs"):
            values = np.array(gcp[alpha][method])
            mean, se = values.mean(), values.std(ddof=1) / np.sqrt(REPS)
            assert mean <= alpha + 2 * se, (alpha, method, mean, se)
        assert np.mean(gcp[alpha]["union"]) > 0.6  # the paper reports about 0.76
        assert np.mean(power[alpha]["jecs"]) >= np.mean(power[alpha]["jmcs"])
    # The intersection breaks the target once alpha is loose (paper: 0.614 at alpha = 0.2).
    assert np.mean(gcp[0.3]["intersection"]) > 0.3
