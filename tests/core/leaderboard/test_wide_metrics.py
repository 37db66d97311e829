"""A wide results table holding two metrics whose names share a prefix (``acc_<model>``, ``acc_norm_<model>``)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from jecs_core.leaderboard import results_from_frame

IDS = [str(i) for i in range(6)]


def _wide(models, metrics) -> pd.DataFrame:
    rng = np.random.default_rng(0)
    return pd.DataFrame({"item_id": IDS, **{f"{metric}_{m}": rng.integers(0, 2, len(IDS)) for metric in metrics
                                            for m in models}})


@pytest.mark.parametrize("models", [("m0",), ("m0", "m1"), ("a", "b", "c")])
def test_the_longer_metric_is_not_read_as_models_of_the_shorter(models):
    frame = _wide(models, ("acc", "acc_norm"))
    short = results_from_frame(frame, metric="acc")
    assert short.models == models
    assert np.array_equal(short.values, frame[[f"acc_{m}" for m in models]].to_numpy(dtype=float))
    assert short.notes == (f"columns {[f'acc_norm_{m}' for m in sorted(models)]} are read as the metric 'acc_norm', "
                           "not as models of 'acc'; choose the metric 'acc_norm' to rank on them",)
    long = results_from_frame(frame, metric="acc_norm")
    assert long.models == models and not long.notes
    assert np.array_equal(long.values, frame[[f"acc_norm_{m}" for m in models]].to_numpy(dtype=float))


def test_models_named_like_a_prefix_of_each_other_stay_models_when_no_full_group_matches():
    frame = _wide(("a", "b_a", "c"), ("correct",))  # b_a covers only a, not c: models, not another metric
    assert results_from_frame(frame).models == ("a", "b_a", "c") and not results_from_frame(frame).notes


def test_an_extra_column_with_the_prefix_is_still_a_model_and_the_table_says_which():
    frame = _wide(("m0", "m1"), ("correct",)).assign(correct_answer=1)
    assert results_from_frame(frame).models == ("m0", "m1", "answer")


def test_several_longer_metrics_beside_the_shorter_are_each_set_aside():
    frame = _wide(("m0", "m1"), ("acc", "acc_norm", "acc_stderr"))
    read = results_from_frame(frame, metric="acc")
    assert read.models == ("m0", "m1") and len(read.notes) == 2
    assert "'acc_norm'" in read.notes[0] and "'acc_stderr'" in read.notes[1]


def test_only_the_longer_metric_present_is_named_as_such_when_ranked(tmp_path):
    from jecs_core import load_scores
    from jecs_core.leaderboard import leaderboard

    table = load_scores("sample_data/synthetic_k4.csv")
    frame = pd.DataFrame({"item_id": table.test_ids, **{f"acc_norm_{m}": 1 for m in table.models}})
    with pytest.raises(ValueError, match=r"are not in the score table .*; they look like the metric 'acc_norm' of the "
                                         r"table's models: choose that metric"):
        leaderboard(table, results_from_frame(frame, metric="acc"))
