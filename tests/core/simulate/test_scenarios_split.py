"""The three-block split protocol (paper appendix "Dataset split setting")."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from jecs_core import table_from_frame
from jecs_core.simulate import attach_scores, three_block_split
from jecs_core.simulate.scenarios import three_block
from jecs_core.simulate.split import block_sizes


@pytest.mark.parametrize(
    "pool, test, calibration, members",
    [(789, 553, 236, 39), (786, 551, 235, 39), (1000, 700, 300, 50)],  # the paper's dataset-statistics table
)
def test_block_counts_match_the_paper(pool, test, calibration, members):
    plan = three_block_split(range(pool), models=16, rng=np.random.default_rng(0))
    assert (plan["split"] == "test").sum() == test
    assert (plan["split"] == "calibration").sum() == calibration
    test_rows = plan[plan["split"] == "test"]
    per_model = test_rows.filter(like="member_").sum()
    assert (per_model == members).all()


def test_labels_follow_the_blocks():
    plan = three_block_split([f"x{i}" for i in range(1000)], models=["a", "b", "c"], rng=np.random.default_rng(1),
                             clean_fraction=0.2, calibration_fraction=0.3, rho=0.25)
    members = plan[["member_a", "member_b", "member_c"]].to_numpy()
    block = plan["block"].to_numpy()
    assert (members[block == "clean"] == 0).all()
    assert (members[block == "calibration"] == 1).all()
    assert (plan.loc[block == "calibration", "split"] == "calibration").all()
    assert (plan.loc[block != "calibration", "split"] == "test").all()
    assert (block == "clean").sum() == 200 and (block == "calibration").sum() == 300
    remainder = members[block == "remainder"]
    assert (remainder.sum(axis=0) == 125).all()  # floor(0.25 * 500) per model
    # Each model draws its own subset (independent across models, not one shared set).
    assert not (remainder[:, 0] == remainder[:, 1]).all()
    assert list(plan["item_id"]) == [f"x{i}" for i in range(1000)]  # input order kept


def test_joint_purity_in_the_remainder_is_one_minus_rho_to_the_K():
    plan = three_block_split(range(20_000), models=4, rng=np.random.default_rng(2), rho=0.3)
    remainder = plan[plan["block"] == "remainder"].filter(like="member_").to_numpy()
    assert abs((remainder.sum(axis=1) == 0).mean() - 0.7 ** 4) < 0.01


def test_deterministic_under_a_seed():
    first = three_block_split(range(300), models=5, rng=np.random.default_rng(9))
    pd.testing.assert_frame_equal(first, three_block_split(range(300), models=5, rng=np.random.default_rng(9)))
    assert not first.equals(three_block_split(range(300), models=5, rng=np.random.default_rng(10)))


@pytest.mark.parametrize("rho", [0.0, 1.0])
def test_rho_edges(rho):
    plan = three_block_split(range(100), models=3, rng=np.random.default_rng(0), rho=rho)
    remainder = plan[plan["block"] == "remainder"].filter(like="member_").to_numpy()
    assert (remainder == int(rho)).all()


@pytest.mark.parametrize(
    "kwargs, name",
    [
        ({"rho": 1.5}, "rho"),
        ({"rho": -0.1}, "rho"),
        ({"clean_fraction": 0.8, "calibration_fraction": 0.3}, "clean_fraction \\+ calibration_fraction"),
        ({"calibration_fraction": 0.0}, "calibration"),
        ({"clean_fraction": 0.0, "calibration_fraction": 1.0}, "no test items"),
        ({"models": 0}, "models"),
    ],
)
def test_bad_parameters_name_the_argument(kwargs, name):
    with pytest.raises(ValueError, match=name):
        three_block_split(range(100), rng=np.random.default_rng(0), **{"models": 2, **kwargs})


def test_ids_must_be_unique_and_rng_a_generator():
    with pytest.raises(ValueError, match="unique"):
        three_block_split(["a", "a", "b"], rng=np.random.default_rng(0))
    with pytest.raises(ValueError, match="rng"):
        three_block_split(range(10), rng=1)


def test_attach_scores_from_a_matrix_and_a_callable():
    plan = three_block_split(range(200), models=["p", "q"], rng=np.random.default_rng(3))
    members = plan[["member_p", "member_q"]].to_numpy()
    matrix = 3.0 * members + np.random.default_rng(0).standard_normal(members.shape)
    wide = attach_scores(plan, matrix)
    assert list(wide.columns) == ["item_id", "split", "block", "score_p", "score_q", "member_p", "member_q"]
    np.testing.assert_array_equal(wide[["score_p", "score_q"]].to_numpy(), matrix)
    table = table_from_frame(wide)
    assert table.n == 140 and table.m == 60 and list(table.test_extra.columns) == ["block"]

    direct = three_block_split(range(200), models=["p", "q"], rng=np.random.default_rng(3),
                               scores=lambda m, rng: 3.0 * m + rng.standard_normal(m.shape))
    assert (direct[["member_p", "member_q"]].to_numpy() == members).all()
    with pytest.raises(ValueError, match="shape"):
        attach_scores(plan, np.zeros((200, 3)))


def test_block_sizes_guard_against_float_rounding():
    assert block_sizes(1000, clean_fraction=0.3, calibration_fraction=0.3) == (300, 300, 400)
    assert block_sizes(10, clean_fraction=0.7, calibration_fraction=0.3) == (7, 3, 0)


def test_synthetic_three_block_scenario_is_a_paper_sized_audit():
    table = table_from_frame(three_block(np.random.default_rng(0)))
    assert (table.n, table.m, table.K) == (553, 236, 16)
    assert (table.test_members.sum(axis=0) == 39).all()
