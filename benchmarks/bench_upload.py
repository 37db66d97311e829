"""A large upload on the Data page: 10^6 test items, 10^5 calibration items, K = 16, labelled (Parquet).

Times, in one process: pandas reading the same bytes (the baseline), the dashboard's
``parse_upload`` (read + data contract), the Data page's upload rerun and the next rerun
(AppTest), and prints the ratios. ``python benchmarks/bench_upload.py [--n 1000000]``.
"""

from __future__ import annotations

import argparse
import io
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def make_bytes(n: int, m: int, k: int, seed: int = 0) -> bytes:
    rng = np.random.default_rng(seed)
    rows = n + m
    frame = pd.DataFrame({"item_id": np.char.add("i", np.arange(rows).astype(str)),
                          "split": np.where(np.arange(rows) < m, "calibration", "test")})
    members = rng.random((rows, k)) < 0.05
    members[:m] = True
    for j in range(k):
        frame[f"score_m{j}"] = (rng.normal(size=rows) + 3 * members[:, j]).astype(np.float32)
    for j in range(k):
        frame[f"member_m{j}"] = members[:, j].astype(np.int8)
    buffer = io.BytesIO()
    frame.to_parquet(buffer)
    return buffer.getvalue()


def timed(fn):
    start = time.perf_counter()
    out = fn()
    return time.perf_counter() - start, out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1_000_000)
    parser.add_argument("--m", type=int, default=100_000)
    parser.add_argument("--k", type=int, default=16)
    args = parser.parse_args()
    from streamlit.testing.v1 import AppTest

    from dashboard import state
    from dashboard.upload import parse_upload

    data = make_bytes(args.n, args.m, args.k)
    print(f"table: n = {args.n:,}, m = {args.m:,}, K = {args.k}, Parquet {len(data) / 1e6:.1f} MB")
    base, _ = timed(lambda: pd.read_parquet(io.BytesIO(data)))
    parse, _ = timed(lambda: parse_upload("big.parquet", data))
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=600).run().switch_page("views/data_page.py").run()
    at.session_state[state.UPLOAD_PAYLOAD] = ("big.parquet", data)
    page, _ = timed(at.run)
    assert not at.exception and at.session_state[state.ACTIVE_NAME] == "big.parquet"
    rerun, _ = timed(at.run)
    print(f"pandas read_parquet (baseline)     {base:7.2f} s")
    print(f"parse_upload (read + contract)      {parse:7.2f} s   {parse / base:5.1f}x baseline")
    print(f"Data page upload rerun (AppTest)    {page:7.2f} s   {page / base:5.1f}x baseline")
    print(f"Data page next rerun (AppTest)      {rerun:7.2f} s   {rerun / base:5.2f}x baseline")


if __name__ == "__main__":
    main()
