"""Start-up cost: ``import jecs_core``, ``jecs --help`` and two commands' help against ``import numpy, pandas``.

Each measure is a fresh interpreter (``python -c ...``), run interleaved round by
round with the baseline, so a busy shared machine slows both alike; the printed
ratio is the median of the per-round ratios.

Run:  python benchmarks/bench_startup.py [--rounds 15]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

MEASURES = {
    "bare interpreter": "pass",
    "import numpy, pandas (baseline)": "import numpy, pandas",
    "import jecs_core": "import jecs_core",
    "import jecs_core + first select": "import jecs_core, numpy; jecs_core.select(numpy.full((3, 2), 0.5), alpha=0.1)",
    "jecs --help": "import sys, jecs_cli; sys.argv = ['jecs', '--help']; sys.exit(jecs_cli.main())",
    "jecs select --help": "import sys, jecs_cli; sys.exit(jecs_cli.main(['select', '--help']))",
    "jecs evaluate --help": "import sys, jecs_cli; sys.exit(jecs_cli.main(['evaluate', '--help']))",
}
BASELINE = "import numpy, pandas (baseline)"


def run_once(code: str) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15)
    args = parser.parse_args(argv)
    for code in MEASURES.values():  # warm the file cache and the bytecode
        run_once(code)
    times = {name: [] for name in MEASURES}
    loads = []
    for _ in range(args.rounds):
        for name, code in MEASURES.items():
            times[name].append(run_once(code))
        loads.append(os.getloadavg()[0])
    print(f"{args.rounds} interleaved rounds, fresh interpreter each; ratio = median of per-round ratios "
          f"against '{BASELINE}'")
    print(f"{'measure':<34}{'median s':>10}{'x baseline':>12}")
    for name in MEASURES:
        ratio = statistics.median(t / b for t, b in zip(times[name], times[BASELINE]))
        print(f"{name:<34}{statistics.median(times[name]):>10.3f}{ratio:>12.2f}")
    print(f"load average (1 min) during the rounds: {min(loads):.2f} to {max(loads):.2f}")
    help_time = statistics.median(times["jecs --help"])
    import_ratio = statistics.median(t / b for t, b in zip(times["import jecs_core"], times[BASELINE]))
    print(f"targets: import jecs_core <= 1.5x baseline -> {import_ratio:.2f}x "
          f"({'met' if import_ratio <= 1.5 else 'NOT met'}); jecs --help < 0.5 s -> {help_time:.3f} s "
          f"({'met' if help_time < 0.5 else 'NOT met'})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
