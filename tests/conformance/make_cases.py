"""Generate the conformance cases: score tables and what a brute-force reference says about them.

The reference below is written from the rule definitions in docs/GUARANTEES.md and the paper
(*Provable Joint Decontamination for Benchmarking Multiple Large Language Models*, section 3.2
and appendix C.1), in plain Python loops with no numpy and no import from ``jecs_core``: every
p-value is a count over the calibration column, every step-up tries every rank. It is slow
(quadratic) and meant only to be obviously right.

Run ``python tests/conformance/make_cases.py`` to rewrite ``tests/conformance/cases/``;
``tests/conformance/test_conformance.py`` checks that the committed files equal a fresh run.
"""

from __future__ import annotations

import csv
import io
import json
import math
import random
from pathlib import Path

CASES_DIR = Path(__file__).resolve().parent / "cases"
ALPHAS = ("0.05", "0.1", "0.2")
LAMBDA_GRID = (0.5, 0.6, 0.7, 0.8, 0.9)


# ---------------------------------------------------------------- the brute-force reference

def conformal_p(test_score: float, calibration: list[float]) -> float:
    """``(1 + #{calibration <= test}) / (m + 1)``: small when the item looks unlike a member."""
    return (1 + sum(1 for c in calibration if c <= test_score)) / (len(calibration) + 1)


def step_up(values: list[float], alpha: float, pi0: float) -> list[bool]:
    """Storey-BH: the largest r with at least r values <= alpha r / (pi0 n); keep those values."""
    n = len(values)
    best = 0
    for r in range(1, n + 1):
        if sum(1 for v in values if v <= alpha * r / (pi0 * n)) >= r:
            best = r
    if best == 0:
        return [False] * n
    cut = sorted(values)[best - 1]
    return [v <= cut for v in values]


def envelope(p_max: list[float], lam: float) -> dict | None:
    """The right-tail fit at ``lam``: tail size, k_n, anchor F_fit(lam); None for an empty tail."""
    tail = sorted(v for v in p_max if v > lam)
    m_r = len(tail)
    if m_r == 0:
        return None
    k_n = min(max(math.ceil(math.sqrt(m_r)), 1), m_r)
    g_hat = k_n / (m_r * (tail[k_n - 1] - lam))
    f_lam = lam * g_hat / (1 + lam * g_hat)
    return {"lambda": lam, "tail": tail, "m_R": m_r, "k_n": k_n, "F_fit_lambda": f_lam, "slope": f_lam / lam}


def transformed(x: float, env: dict) -> float:
    """F_fit(x): linear through the anchor below lambda, the rescaled tail ECDF above it."""
    lam, f_lam, tail = env["lambda"], env["F_fit_lambda"], env["tail"]
    if x <= lam:
        return f_lam * (x / lam)
    return f_lam + (1 - f_lam) * sum(1 for t in tail if t <= x) / len(tail)


def cap_correction(n: int, lam: float = 0.5) -> tuple[float, float]:
    """The default rule's ``w(n)`` and ``c(n) = max(1, max over n0 of E[max(n0 (1 - lam) / (1 + B), w n0 / n)])``.

    ``B ~ Binomial(n0 - 1, 1 - lam)``, summed term by term (docs/GUARANTEES.md, for n <= 3000).
    """
    w = min(0.99, max(0.5, 1 - 1.5 / math.sqrt(n)))
    best = 1.0
    for n0 in range(1, n + 1):
        terms = (math.comb(n0 - 1, b) * (1 - lam) ** b * lam ** (n0 - 1 - b) * max(n0 * (1 - lam) / (1 + b), w * n0 / n)
                 for b in range(n0))
        best = max(best, sum(terms))
    return w, best


def storey_maxp(p_max: list[float], alpha: float, lam: float = 0.5) -> tuple[list[bool], float]:
    """The default rule: Storey-BH on max-p with the "+1" estimate capped at 1/w(n) times c(n).

    It selects nothing when no max-p value is at or below alpha (the documented guard).
    """
    n = len(p_max)
    w, c = cap_correction(n, lam)
    pi0 = c * min((1 + sum(1 for v in p_max if v > lam)) / (n * (1 - lam)), 1 / w)
    if min(p_max) > alpha:
        return [False] * n, pi0
    return step_up(p_max, alpha, pi0), pi0


def reference(ids: list[str], calibration: list[list[float]], test: list[list[float]]) -> dict:
    """Everything a case checks, from columns of calibration and test scores (one list per model)."""
    n, k = len(test[0]), len(test)
    p = [[conformal_p(test[j][i], calibration[j]) for j in range(k)] for i in range(n)]
    p_max = [max(row) for row in p]
    fits = [envelope(p_max, lam) for lam in LAMBDA_GRID]
    usable = [f for f in fits if f is not None]
    chosen = None
    for fit in usable:  # strictly smaller slope wins, so ties go to the smaller lambda
        if chosen is None or fit["slope"] < chosen["slope"]:
            chosen = fit
    grid = [{"lambda": lam, "m_R": 0} if f is None else {key: f[key] for key in ("lambda", "m_R", "k_n", "F_fit_lambda", "slope")}
            for lam, f in zip(LAMBDA_GRID, fits)]
    out = {"n": n, "K": k, "p_max": p_max, "lambda_grid": grid, "alphas": {}}
    for text in ALPHAS:
        alpha = float(text)
        per_model = [step_up([row[j] for row in p], alpha, 1.0) for j in range(k)]
        default, default_pi0 = storey_maxp(p_max, alpha)
        want = {
            "storey_maxp_selected": [ids[i] for i, s in enumerate(default) if s],
            "storey_maxp_pi0_hat": default_pi0,
            "jmcs_selected": [ids[i] for i, s in enumerate(step_up(p_max, alpha, 1.0)) if s],
            "union_selected": [ids[i] for i in range(n) if any(col[i] for col in per_model)],
            "intersection_selected": [ids[i] for i in range(n) if all(col[i] for col in per_model)],
        }
        if chosen is None:  # no usable lambda: JECS is JMCS
            want.update(jecs_selected=want["jmcs_selected"], jecs_fallback_to_jmcs=True)
        else:
            pi0 = min(1.0, (chosen["m_R"] / n) / (1 - chosen["F_fit_lambda"]))
            kept = step_up([transformed(v, chosen) for v in p_max], alpha, pi0)
            want.update(jecs_selected=[ids[i] for i, s in enumerate(kept) if s], lambda_=chosen["lambda"],
                        F_fit_lambda=chosen["F_fit_lambda"], pi0_hat=pi0)
            want["lambda"] = want.pop("lambda_")
        out["alphas"][text] = want
    return out


# ---------------------------------------------------------------- the cases

def _members(rng: random.Random, n: int, k: int, share: float) -> list[list[bool]]:
    return [[rng.random() < share for _ in range(k)] for _ in range(n)]


def _table(rng, *, m, n, k, mu, share, digits=9, round_to_int=False, noise=1.0):
    """Calibration rows are members of every model; test rows are members with probability ``share``."""
    def score(member):
        value = mu * member + rng.gauss(0.0, noise)
        return float(round(value)) if round_to_int else round(value, digits)
    cal = [[score(True) for _ in range(k)] for _ in range(m)]
    flags = _members(rng, n, k, share)
    test = [[score(flag) for flag in row] for row in flags]
    return cal, test


CASES = {
    "case1_synthetic_k4": ("the paper's synthetic setup, 400 items, K = 4",
                           dict(m=120, n=280, k=4, mu=4.0, share=0.3)),
    "case2_ties_k3": ("scores rounded to integers: many ties between calibration and test",
                      dict(m=80, n=200, k=3, mu=4.0, share=0.3, round_to_int=True)),
    "case3_single_model": ("K = 1: max-p is the model's own p-value", dict(m=60, n=150, k=1, mu=3.0, share=0.3)),
    "case4_no_tail": ("every test item is clearly clean: no max-p above any lambda, JECS falls back to JMCS",
                      dict(m=50, n=120, k=2, mu=6.0, share=0.0, noise=0.3)),
    "case5_short_tail": ("n = 12: tails under ten points, k_n clipped to the tail",
                         dict(m=30, n=12, k=2, mu=4.0, share=0.6)),
}


def build_case(name: str) -> tuple[str, str]:
    """The CSV text and the expected JSON text of one case (deterministic: seeded by its name)."""
    description, spec = CASES[name]
    rng = random.Random(name)
    cal, test = _table(rng, **spec)
    k = spec["k"]
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["item_id", "split", *[f"score_m{j}" for j in range(k)]])
    writer.writerows([f"c{i}", "calibration", *map(repr, row)] for i, row in enumerate(cal))
    writer.writerows([f"t{i}", "test", *map(repr, row)] for i, row in enumerate(test))
    # The reference reads the numbers back from the CSV text, exactly as the code under test does.
    rows = list(csv.reader(io.StringIO(buffer.getvalue())))[1:]
    ids = [r[0] for r in rows if r[1] == "test"]
    columns = {split: [[float(r[2 + j]) for r in rows if r[1] == split] for j in range(k)] for split in ("calibration", "test")}
    expected = {"description": description, "m": spec["m"], **reference(ids, columns["calibration"], columns["test"])}
    return buffer.getvalue(), json.dumps(expected, indent=1) + "\n"


def main() -> None:
    CASES_DIR.mkdir(exist_ok=True)
    for name in CASES:
        table, expected = build_case(name)
        (CASES_DIR / f"{name}.csv").write_text(table, encoding="utf-8")
        (CASES_DIR / f"{name}.expected.json").write_text(expected, encoding="utf-8")
        print(f"wrote {name}")


if __name__ == "__main__":
    main()
