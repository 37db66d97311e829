"""Column-name prefixes that give a wide table's column its role (docs/DATA-CONTRACT.md).

Their own module, with no imports, so the readers below the data contract (Parquet cells, the long
layout) name them too without importing the contract.
"""

SCORE_PREFIX = "score_"
MEMBER_PREFIX = "member_"
COVARIATE_PREFIX = "x_"
