#!/usr/bin/env bash
# The converged attention study, in the order that answers first: one seed of every
# preset (en->zh), then seeds 2 and 3 of the rows that need three, then the zh->en rows, then extra
# seeds (the hard row's lower-LR lever, the best row).
#
#   bash scripts/converged_study.sh            # everything not yet finished, in order
#   STAGE=seeds bash scripts/converged_study.sh   # one stage only: first-pass | seeds | zh-en | more-seeds
#
# Every call resumes: a run whose small results are committed under docs/compare-converged-*/runs/
# is never trained again, even without its weights (those stay in runs/, git-ignored). A run
# interrupted with Ctrl-C / SIGTERM resumes from its last checkpoint on the same machine.
# A run that fails is reported and the plan goes on (rerun the script to retry it).
# MULTIHEAD and HARD name the rows that get three seeds (the best multi-head and hard variants of
# the first pass; override them if the table says otherwise). COMPARE_ARGS is added to every
# `translate compare` call, e.g. COMPARE_ARGS="--set device=cuda --set train.amp=off" on a GPU
# (amp off: the same fp32 numerics as the CPU rows).
set -euo pipefail
cd "$(dirname "$0")/.."
STAGE=${STAGE:-all}
MULTIHEAD=${MULTIHEAD:-multihead-ln-scaled-dot}
HARD=${HARD:-hard-reinforce-warm}
BUDGET=(--config recipes/study.yaml --steps 6000 --set train.patience=4)
read -r -a EXTRA <<< "${COMPARE_ARGS:-}"
if ! command -v translate > /dev/null; then  # else every run of the plan "fails" in turn
  echo "converged_study.sh: no \`translate\` command on PATH; activate the project's environment" \
       "(source .venv/bin/activate) or install it (pip install -e .)" >&2
  exit 1
fi

# every preset of the attention registry, in its order (`translate compare --list`)
mapfile -t FIRST_PASS < <(translate compare --list)
THREE_SEEDS=(none additive dot "$MULTIHEAD" "$HARD")
# beyond the three-seed rows: the hard row's lower-LR lever (is its mean within 1 BLEU of additive?) and the
# best row of the first pass (seeds behind "p vs best" too)
MORE_SEEDS=(hard-reinforce-warm-lowlr self-attention+additive)

study() {  # direction, mechanism, seed
  local direction=$1 mechanism=$2 seed=$3
  # finished: its small results are committed (skipping here saves the report rebuild per finished run)
  [[ -f "docs/compare-converged-$direction/runs/$mechanism-seed$seed/compare.json" ]] && return 0
  translate compare --mechanisms "$mechanism" --seeds "$seed" "${BUDGET[@]}" --direction "$direction" \
    --out "docs/compare-converged-$direction" --work "runs/compare-converged-$direction" ${EXTRA[@]+"${EXTRA[@]}"} \
    || echo "converged_study.sh: $mechanism seed $seed ($direction) failed; going on with the next run" >&2
}

if [[ $STAGE == all || $STAGE == first-pass ]]; then
  for mechanism in "${FIRST_PASS[@]}"; do study en-zh "$mechanism" 1; done
fi
if [[ $STAGE == all || $STAGE == seeds ]]; then
  for seed in 2 3; do
    for mechanism in "${THREE_SEEDS[@]}"; do study en-zh "$mechanism" "$seed"; done
  done
fi
if [[ $STAGE == all || $STAGE == zh-en ]]; then
  for mechanism in "${THREE_SEEDS[@]}"; do study zh-en "$mechanism" 1; done
fi
if [[ $STAGE == all || $STAGE == more-seeds ]]; then  # beyond the three-seed rows: last
  for mechanism in "${MORE_SEEDS[@]}"; do
    for seed in 2 3; do study en-zh "$mechanism" "$seed"; done
  done
fi
