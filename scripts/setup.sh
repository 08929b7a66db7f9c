#!/usr/bin/env bash
# Create .venv and install the project with its test tools.
# On this project's machines the CPU build of torch 2.13.0 is on local disk: install it first so
# that resolving `torch>=...` never pulls a multi-GB CUDA build. Elsewhere pip takes a normal torch.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
[ -x .venv/bin/python ] || "$PYTHON" -m venv .venv
.venv/bin/python -m pip install --quiet --upgrade pip >/dev/null 2>&1 || true
.venv/bin/python -m pip install --quiet "torch==${TORCH_VERSION:-2.13.0}"
# setuptools >= 77 in the venv itself: the installed-wheel test builds without build isolation
.venv/bin/python -m pip install --quiet "setuptools>=77"
.venv/bin/python -m pip install --quiet -e ".[test]"
.venv/bin/python -c "import torch, sentencepiece, sacrebleu, datasets, typer; print('setup ok: torch', torch.__version__)"
