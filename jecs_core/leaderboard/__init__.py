"""The clean leaderboard: per-item results in, each model's standing on the certified clean subset out.

See ``docs/LEADERBOARD.md``: the inputs (long, wide, lm-eval sample logs), the intervals, the
post-hoc range on the truly clean items, and the lm-eval round trip.
"""

from .board import LEADERBOARD_COLUMNS, Leaderboard, LeaderboardWarning, align_results, by_rank, leaderboard
from .intervals import mean_interval, truly_clean_range, wilson_interval
from .lmeval import lm_eval_samples, write_lm_eval_samples
from .load import combine_results, load_results, load_results_bytes
from .pairwise import PAIRWISE_COLUMNS, holm, mcnemar_exact, pairwise_table, sign_flip
from .results import DEFAULT_METRIC, ResultsTable, results_from_frame

__all__ = [
    "DEFAULT_METRIC", "LEADERBOARD_COLUMNS", "PAIRWISE_COLUMNS", "Leaderboard", "LeaderboardWarning", "ResultsTable",
    "align_results", "by_rank", "combine_results", "holm", "leaderboard", "lm_eval_samples", "load_results", "load_results_bytes", "mcnemar_exact",
    "mean_interval", "pairwise_table", "results_from_frame", "sign_flip", "truly_clean_range", "wilson_interval",
    "write_lm_eval_samples",
]
