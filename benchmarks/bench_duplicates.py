"""Time the near-duplicate pass: numpy shingle hashes against datasketch's per-shingle SHA-1.

Both sides build the same MinHash LSH with datasketch (``MinHash.bulk``, ``MinHashLSH``); they
differ only in how each character 5-gram becomes a 32-bit value: the library's default hash
(SHA-1 of the UTF-8 bytes, one Python call per shingle; the baseline) or
``jecs_core.checks.shingles.minhashes`` (every window of a text hashed at once, each distinct one fed once).  Texts: the
shipped real audit's test items (560 Wikipedia passages) and ``--synthetic`` random documents
with planted near copies.  Medians of ``--repeats`` runs in one process; the load average is
printed: the machine is shared.

Run:  python benchmarks/bench_duplicates.py [--repeats 5] [--synthetic 5000]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from jecs_core.checks.duplicates import NEAR_THRESHOLD, NUM_PERM  # noqa: E402
from jecs_core.checks.shingles import SHINGLE, minhashes  # noqa: E402

REAL = ROOT / "sample_data" / "real" / "wiki_smollm2_k8.csv"


def _pairs(signatures) -> set[tuple[int, int]]:
    from datasketch import MinHashLSH

    lsh = MinHashLSH(threshold=NEAR_THRESHOLD, num_perm=NUM_PERM)
    for j, h in enumerate(signatures):
        lsh.insert(j, h)
    return {(j, o) for j, h in enumerate(signatures) for o in lsh.query(h)
            if o > j and h.jaccard(signatures[o]) >= NEAR_THRESHOLD}


def sha1_pass(texts: list[str]) -> set[tuple[int, int]]:
    from datasketch import MinHash

    shingles = [[t[i:i + SHINGLE].encode("utf-8") for i in range(max(len(t) - SHINGLE + 1, 1))] for t in texts]
    return _pairs(MinHash.bulk(shingles, num_perm=NUM_PERM, seed=1))


def numpy_pass(texts: list[str]) -> set[tuple[int, int]]:
    return _pairs(list(minhashes(texts, num_perm=NUM_PERM)))


def _synthetic(n: int) -> list[str]:
    rng = np.random.default_rng(0)
    words = [f"w{i}" for i in range(5000)]
    texts = [" ".join(rng.choice(words, 90)) for _ in range(n)]
    for k in range(0, n - 1, 10):  # every tenth text gets a near copy (one word changed)
        copy = texts[k].split()
        copy[int(rng.integers(len(copy)))] = "changed"
        texts[k + 1] = " ".join(copy)
    return texts


def _time(fn, texts, repeats: int) -> tuple[float, set]:
    runs, found = [], set()
    for _ in range(repeats):
        start = time.perf_counter()
        found = fn(texts)
        runs.append(time.perf_counter() - start)
    return statistics.median(runs), found


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--synthetic", type=int, default=5000, help="random documents (default 5000)")
    args = parser.parse_args(argv)
    sets = {}
    if REAL.exists():
        frame = pd.read_csv(REAL, usecols=["split", "text"])
        sets["real audit (560 passages)"] = frame.loc[frame["split"] == "test", "text"].str.lower().tolist()
    sets[f"synthetic ({args.synthetic} documents)"] = _synthetic(args.synthetic)
    print(f"load average before: {os.getloadavg()[0]:.2f}")
    for name, texts in sets.items():
        numpy_pass(texts[:50])  # imports and first calls outside the clock
        sha1_pass(texts[:50])
        base, base_pairs = _time(sha1_pass, texts, args.repeats)
        ours, our_pairs = _time(numpy_pass, texts, args.repeats)
        agree = len(base_pairs & our_pairs)
        print(f"{name}: datasketch SHA-1 {base:.3f} s, numpy hashes {ours:.3f} s: {ours / base:.2f}x; "
              f"pairs found {len(base_pairs)} and {len(our_pairs)} ({agree} in both)")
    print(f"load average after: {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
