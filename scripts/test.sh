#!/usr/bin/env bash
# Install everything the test suite needs on a fresh machine, then run it.
# Usage: bash scripts/test.sh [extra pytest args]
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v python >/dev/null 2>&1; then
  echo "scripts/test.sh: no 'python' command; run it in a virtual environment (python3 -m venv .venv && . .venv/bin/activate)" >&2
  exit 2
fi

# Debian's Chromium drives the real-browser tests (never a tool's own browser download).
if ! command -v chromium >/dev/null 2>&1; then
  if [ "$(id -u)" = "0" ]; then SUDO=""; else SUDO="sudo"; fi
  $SUDO apt-get update -qq || true
  $SUDO apt-get install -y -qq chromium >/dev/null
fi

# torch is pinned: 2.13.0 has a CPU wheel here; other versions pull GBs of CUDA packages.
python -m pip install -q --disable-pip-version-check "torch==2.13.0" -e ".[all,test]"

# The project's own lint rules ([tool.ruff] in pyproject.toml) are part of the test.
python -m ruff check .

export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 PYTHONHASHSEED=0
python -m pytest "$@"

# The Examples in jecs_core's docstrings are tests too: every one must run and print what it shows.
python -m pytest --doctest-modules jecs_core -q
