#!/bin/bash
# The GPU check: the CUDA tests, bf16 training throughput, and decoding speed on the GPU.
#   bash scripts/gpu_check.sh [MINUTES] [OUT]      (defaults: 3 minutes, runs/gpu-check)
# Prints one JSON summary last and writes OUT/{cuda-tests.log,training.json,summary.json}.
# Runs from the repository root with any Python that holds PyTorch with CUDA and the project's
# requirements (an installed `translate` is not needed: the package is imported from the checkout).
set -uo pipefail
minutes=${1:-3}
out=${2:-runs/gpu-check}
python=${PYTHON:-python3}
mkdir -p "$out"
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}" PYTHONUNBUFFERED=1

if ! $python -c "import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)"; then
  echo "no CUDA device: this check needs a GPU (torch.cuda.is_available() is False)" >&2
  exit 2
fi

# 1. every test marked gpu (the rest of the suite runs without a GPU)
$python -m pytest -m gpu -p no:cacheprovider -q tests/integration/test_model.py 2>&1 | tee "$out/cuda-tests.log"
tests_rc=${PIPESTATUS[0]}

# 2. the default recipe trained for MINUTES with bf16 autocast, then the test split decoded on the GPU
$python scripts/benchmark.py train --minutes "$minutes" --device cuda --name gpu-check-train \
  --set "runs_dir=$out/runs" --output "$out/training.json" > "$out/training.log" 2>&1
bench_rc=$?
tail -n 5 "$out/training.log"

$python - "$out" "$tests_rc" "$bench_rc" <<'EOF'
import json, sys
from pathlib import Path
out, tests_rc, bench_rc = Path(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
summary = {"cuda_tests": "passed" if tests_rc == 0 else f"failed (exit {tests_rc})",
           "benchmark": "finished" if bench_rc == 0 else f"failed (exit {bench_rc}); see training.log"}
if (out / "training.json").exists():
    figures = json.loads((out / "training.json").read_text(encoding="utf-8"))
    training = figures.get("training", {})
    summary |= {"gpu": figures.get("gpu"), "torch": figures.get("torch"),
                "peak_gpu_memory_mb": figures.get("peak_gpu_memory_mb"),
                "training": {k: training.get(k) for k in ("parameters", "updates", "minutes", "target_tokens_per_second",
                                                          "sentence_pairs_per_step_second", "best_dev_bleu")},
                "test": {label: {k: figures["test"][label].get(k) for k in ("bleu", "chrf", "sentences_per_second")}
                         for label in ("beam5", "greedy") if label in figures.get("test", {})}}
(out / "summary.json").write_text(json.dumps(summary, indent=1), encoding="utf-8")
print(json.dumps(summary, indent=1))
EOF
[ "$tests_rc" -eq 0 ] && [ "$bench_rc" -eq 0 ]
