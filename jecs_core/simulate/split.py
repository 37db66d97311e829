"""The paper's three-block split: turn any candidate pool into a labelled audit.

Paper appendix "Dataset split setting".  The pool is cut into three disjoint
blocks:

* **clean** (fraction ``a``): in no model's training data, so jointly pure;
* **calibration** (fraction ``b``): in *every* model's training data; this is
  the shared calibration set of known members;
* **remainder** (the rest): each model independently takes a fraction ``rho``
  of it, drawn uniformly without replacement (``rho`` is a share of the
  remainder, not of the pool).

Selection then runs on clean + remainder (split ``test``); the calibration block
is split ``calibration``.  Defaults ``a = b = 0.3`` and ``rho = 0.125`` are the
paper's.  Block sizes are rounded down, which reproduces the paper's counts
(789 items -> 553 test, 236 calibration, 39 members per model; 1000 items ->
700, 300, 50).

How to use it on a real pool
----------------------------
1. ``plan = three_block_split(item_ids, models=[...], rng=rng)`` gives every
   item its block, its split and ``member_<model>`` labels.
2. Fine-tune (or otherwise expose) model ``k`` on exactly the items with
   ``member_<k> == 1``.
3. Score every item with every model (larger = more member-like) and attach
   the matrix: ``attach_scores(plan, scores)``, or pass ``scores=`` to step 1
   when the scores can be computed from the labels (a simulator).
The result is a wide score table of the data contract; the ``block`` column is
carried through untouched.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence

import numpy as np
import pandas as pd

DEFAULT_CLEAN_FRACTION = 0.3
DEFAULT_CALIBRATION_FRACTION = 0.3
DEFAULT_RHO = 0.125
# Guards floor() against products such as 0.3 * 1000 = 299.99999999999997.
_FLOOR_SLACK = 1e-9

ScoreSource = np.ndarray | Callable[[np.ndarray, np.random.Generator], np.ndarray]


def _fraction(value, name: str) -> float:
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a number in [0, 1], got {value!r}") from None
    if not 0.0 <= number <= 1.0:
        raise ValueError(f"{name} must be in [0, 1], got {value!r}")
    return number


def _floor(x: float) -> int:
    return int(math.floor(x + _FLOOR_SLACK))


def model_names(models) -> list[str]:
    """Model names from a count (``m0, m1, ...``) or a sequence of names."""
    if isinstance(models, (int, np.integer)) and not isinstance(models, bool):
        if models < 1:
            raise ValueError(f"models must be >= 1 (or a list of names), got {models!r}")
        return [f"m{k}" for k in range(int(models))]
    names = [str(m) for m in models]
    if not names:
        raise ValueError("models must name at least one model")
    if len(set(names)) != len(names):
        raise ValueError(f"models must be unique, got {names}")
    return names


def block_sizes(pool_size: int, *, clean_fraction: float = DEFAULT_CLEAN_FRACTION,
                calibration_fraction: float = DEFAULT_CALIBRATION_FRACTION,
                names: Mapping[str, str] | None = None) -> tuple[int, int, int]:
    """Sizes ``(clean, calibration, remainder)`` of the three blocks (rounded down).

    ``names`` spells the arguments in the messages as the caller's user knows them (a
    command's flags, say ``{"pool_size": "--n-pool"}``); unnamed ones keep their own names.

    Raises
    ------
    ValueError
        If a fraction is outside [0, 1], they sum above 1, or the calibration or
        test part (clean + remainder) would be empty.

    Example
    -------
    >>> block_sizes(100, clean_fraction=0.3, calibration_fraction=0.2)
    (30, 20, 50)
    """
    name = {"pool_size": "pool_size", "clean_fraction": "clean_fraction",
            "calibration_fraction": "calibration_fraction", **(names or {})}
    a = _fraction(clean_fraction, name["clean_fraction"])
    b = _fraction(calibration_fraction, name["calibration_fraction"])
    if a + b > 1.0 + _FLOOR_SLACK:
        raise ValueError(f"{name['clean_fraction']} + {name['calibration_fraction']} must be <= 1, got {a} + {b}")
    n_clean, n_cal = _floor(a * pool_size), _floor(b * pool_size)
    n_rem = pool_size - n_clean - n_cal
    if n_cal < 1:
        raise ValueError(f"{name['calibration_fraction']} {b} leaves no calibration items in a pool of "
                         f"{name['pool_size']} {pool_size}")
    if n_clean + n_rem < 1:
        raise ValueError(f"{name['clean_fraction']} {a} and {name['calibration_fraction']} {b} leave no test items "
                         f"in a pool of {name['pool_size']} {pool_size}")
    return n_clean, n_cal, n_rem


def three_block_split(
    item_ids: Sequence,
    *,
    models=4,
    rng: np.random.Generator,
    clean_fraction: float = DEFAULT_CLEAN_FRACTION,
    calibration_fraction: float = DEFAULT_CALIBRATION_FRACTION,
    rho: float = DEFAULT_RHO,
    scores: ScoreSource | None = None,
) -> pd.DataFrame:
    """Assign blocks, splits and per-model membership labels to a pool.

    Parameters
    ----------
    item_ids : sequence
        Unique ids of the pool's items; the output keeps this row order.
    models : int or sequence of str
        Number of audited models (named ``m0 ...``) or their names.
    rng : numpy.random.Generator
        Source of randomness; the output is a pure function of its state.
    clean_fraction, calibration_fraction : float
        Block fractions ``a`` and ``b`` of the pool.
    rho : float
        Per-model training fraction of the remainder block, in [0, 1].
    scores : array (n_items, K) or callable, optional
        Scores to attach (see :func:`attach_scores`).  Without it the output is
        the membership plan only.

    Returns
    -------
    pandas.DataFrame
        ``item_id``, ``split`` (calibration/test), ``block``, then
        ``score_<model>`` (when ``scores`` is given) and ``member_<model>``.
    """
    if not isinstance(rng, np.random.Generator):
        raise ValueError(f"rng must be a numpy.random.Generator, got {type(rng).__name__}")
    ids = pd.Index(list(item_ids))
    if len(ids) == 0:
        raise ValueError("item_ids must not be empty")
    if ids.has_duplicates:
        raise ValueError(f"item_ids must be unique; {ids[ids.duplicated()][0]!r} repeats")
    rho = _fraction(rho, "rho")
    names = model_names(models)
    n_clean, n_cal, n_rem = block_sizes(len(ids), clean_fraction=clean_fraction, calibration_fraction=calibration_fraction)

    shuffled = rng.permutation(len(ids))
    block = np.empty(len(ids), dtype=object)
    block[shuffled[:n_clean]] = "clean"
    block[shuffled[n_clean:n_clean + n_cal]] = "calibration"
    remainder = shuffled[n_clean + n_cal:]
    block[remainder] = "remainder"

    members = np.zeros((len(ids), len(names)), dtype=np.int8)
    members[block == "calibration"] = 1
    per_model = _floor(rho * n_rem)
    for k in range(len(names)):
        # Independent across models, as in the paper: each draws its own subset.
        members[rng.choice(remainder, size=per_model, replace=False), k] = 1

    plan = pd.DataFrame({  # every column at once: one insert per model fragments the frame
        "item_id": ids.to_numpy(),
        "split": np.where(block == "calibration", "calibration", "test"),
        "block": block.astype(str),
        **{f"member_{name}": members[:, k] for k, name in enumerate(names)},
    })
    if scores is not None:
        plan = attach_scores(plan, scores, rng=rng)
    return plan


def attach_scores(plan: pd.DataFrame, scores: ScoreSource, *, rng: np.random.Generator | None = None) -> pd.DataFrame:
    """Add ``score_<model>`` columns to a membership plan.

    Parameters
    ----------
    plan : pandas.DataFrame
        Output of :func:`three_block_split` (needs ``member_<model>`` columns).
    scores : array (n_items, K) or callable
        A matrix in the plan's row and model order (e.g. scores of models
        fine-tuned according to the plan), or ``scores(members, rng)`` returning
        one, where ``members`` is the plan's (n_items, K) 0/1 matrix.
    rng : numpy.random.Generator, optional
        Passed to a callable ``scores``.

    Returns
    -------
    pandas.DataFrame
        A copy of ``plan`` with the score columns before the member columns.
    """
    member_cols = [c for c in plan.columns if c.startswith("member_")]
    if not member_cols:
        raise ValueError("plan has no member_<model> columns; make it with three_block_split")
    members = plan[member_cols].to_numpy(dtype=np.int8)
    matrix = scores(members, rng) if callable(scores) else scores
    matrix = np.asarray(matrix, dtype=float)
    if matrix.shape != members.shape:
        raise ValueError(f"scores must have shape {members.shape} (items x models), got {matrix.shape}")
    if not np.all(np.isfinite(matrix)):
        raise ValueError("scores must be finite")
    score_cols = pd.DataFrame(matrix, columns=["score_" + col[len("member_"):] for col in member_cols], index=plan.index)
    return pd.concat([plan.drop(columns=member_cols), score_cols, plan[member_cols]], axis=1)
