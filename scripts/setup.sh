#!/usr/bin/env bash
# Create .venv and install the project with its test tools.
#   bash scripts/setup.sh            the project and its test tools
#   bash scripts/setup.sh --browser  first the browser test's tools too: Debian's chromium and
#                                    chromium-driver (apt keeps the two in step) and a CJK font for the
#                                    page; needs root and apt, elsewhere it says so and the browser test skips
# On this project's machines the CPU build of torch 2.13.0 is on local disk: install it first so
# that resolving `torch>=...` never pulls a multi-GB CUDA build. Elsewhere pip takes a normal torch.
set -euo pipefail
cd "$(dirname "$0")/.."

browser() {
    if command -v chromium >/dev/null && command -v chromedriver >/dev/null; then
        echo "browser ok: $(chromium --version 2>/dev/null | head -1)"
    elif [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null; then
        echo "cannot install chromium here (needs root and apt-get); the browser test will be skipped" >&2
    else
        export DEBIAN_FRONTEND=noninteractive
        apt-get update -qq >/dev/null || true
        apt-get install -y -qq --no-install-recommends chromium chromium-driver fonts-noto-cjk >/dev/null
        echo "browser installed: $(chromium --version 2>/dev/null | head -1)"
    fi
}

for arg in "$@"; do
    case "$arg" in
        --browser) browser ;;
        -h|--help) sed -n '2,8p' "$0"; exit 0 ;;
        *) echo "scripts/setup.sh: unknown option '$arg' (valid: --browser, --help)" >&2; exit 2 ;;
    esac
done

PYTHON=${PYTHON:-python3}
[ -x .venv/bin/python ] || "$PYTHON" -m venv .venv
.venv/bin/python -m pip install --quiet --upgrade pip >/dev/null 2>&1 || true
.venv/bin/python -m pip install --quiet "torch==${TORCH_VERSION:-2.13.0}"
# setuptools >= 77 in the venv itself: the installed-wheel test builds without build isolation
.venv/bin/python -m pip install --quiet "setuptools>=77"
.venv/bin/python -m pip install --quiet -e ".[test]"
.venv/bin/python -c "import torch, sentencepiece, sacrebleu, datasets, typer; print('setup ok: torch', torch.__version__)"
