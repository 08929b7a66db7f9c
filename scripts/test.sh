#!/usr/bin/env bash
# Set everything up, lint (ruff; mypy --strict on translate/ and benchmarks/), then run the test suite (CPU, no network).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
.venv/bin/ruff check translate tests benchmarks scripts
.venv/bin/mypy translate benchmarks
HF_DATASETS_OFFLINE=1 HF_HUB_OFFLINE=1 .venv/bin/python -m pytest "$@"
