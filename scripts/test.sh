#!/usr/bin/env bash
# Set everything up, then run the default test suite (fast, CPU, no network).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
HF_DATASETS_OFFLINE=1 HF_HUB_OFFLINE=1 .venv/bin/python -m pytest "$@"
