"""The build warns when near-duplicate texts straddle the calibration / test split (their labels would be wrong)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from jecs_build.corpus import near_duplicates_across_splits

pytest.importorskip("datasketch", reason="near-duplicate texts need the text extra (datasketch)")


def _texts(n: int, seed: int) -> list[str]:
    rng = np.random.default_rng(seed)
    words = [f"w{i}" for i in range(500)]
    return [" ".join(rng.choice(words, size=40)) for _ in range(n)]


def test_a_test_copy_of_a_calibration_text_is_counted():
    texts = _texts(6, 0)
    plan = pd.DataFrame({"split": ["calibration"] * 3 + ["test"] * 5,
                         "text": [*texts[:3], *texts[3:], texts[0] + " .", texts[1].upper() + "!"]})
    message = near_duplicates_across_splits(plan)
    assert message.startswith("warning: 2 pair(s) of near-duplicate texts") and "rebuild with --force" in message


def test_copies_on_one_side_or_distinct_texts_raise_nothing():
    texts = _texts(6, 1)
    same_side = pd.DataFrame({"split": ["calibration", "calibration", "test", "test"],
                              "text": [texts[0], texts[0] + " .", texts[1], texts[1] + " ."]})
    assert near_duplicates_across_splits(same_side) is None
    distinct = pd.DataFrame({"split": ["calibration"] * 3 + ["test"] * 3, "text": texts})
    assert near_duplicates_across_splits(distinct) is None
