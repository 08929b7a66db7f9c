#!/usr/bin/env bash
# The converged attention study, in the order that answers first: one seed of every
# preset (en->zh), then seeds 2 and 3 of the rows that need three, then the zh->en rows, then extra
# seeds (the hard row's lower-LR lever, the best row).
#
#   bash scripts/converged_study.sh            # everything not yet finished, in order
#   STAGE=seeds bash scripts/converged_study.sh   # one stage only: first-pass | seeds | zh-en | more-seeds
#   STAGE=restore bash scripts/converged_study.sh  # not part of `all`: retrain the finished runs committed
#                                                  # without hypotheses / attention matrices (zh->en, then
#                                                  # en->zh seed 1 with attention for the heatmaps, then the rest);
#                                                  # first measure again the runs no retrain reproduces
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
if [[ $STAGE == all || $STAGE == more-seeds ]]; then  # beyond what the issue asks: last
  for mechanism in "${MORE_SEEDS[@]}"; do
    for seed in 2 3; do study en-zh "$mechanism" "$seed"; done
  done
fi
# en->zh runs that retrain bit for bit only with the code of their time (docs/results/attention-study.md): those
# trained before the dropout mask changed (commit 4112fd7), and encoder self-attention before its scores became
# one matrix product (c3d52f8). Each is trained first from a git worktree of that code into
# runs/compare-converged-en-zh while it, or a run warm-started from it, lacks its hypotheses; `--restore` then
# evaluates it there (and warm starts start from it).
OLD_CODE_RUNS=("91ff8f5 none 1" "91ff8f5 additive 1" "91ff8f5 dot 1" "91ff8f5 scaled-dot 1"
               "5cc7421 self-attention+additive 1" "5cc7421 self-attention+additive 2"
               "5cc7421 self-attention+additive 3")
# the presets that start from another preset's run (train.init_from "@source"): source -> its warm starts
WARM_STARTS=("additive hard-reinforce-warm hard-reinforce-warm-lowlr" "dot hard-reinforce-warm-dot")
old_code_needed() {  # mechanism, seed: its run, or a run warm-started from it, still lacks its hypotheses
  local mechanism=$1 seed=$2 results=docs/compare-converged-en-zh/runs entry dependent
  [[ -f $results/$mechanism-seed$seed/test.hyp.txt ]] || return 0
  for entry in "${WARM_STARTS[@]}"; do
    read -r -a names <<< "$entry"
    [[ ${names[0]} == "$mechanism" ]] || continue
    for dependent in "${names[@]:1}"; do
      [[ -f $results/$dependent-seed$seed/compare.json && ! -f $results/$dependent-seed$seed/test.hyp.txt ]] && return 0
    done
  done
  return 1
}
old_code_train() {  # commit, mechanism, seed: en->zh, trained with that commit's code into runs/compare-converged-en-zh
  local commit=$1 mechanism=$2 seed=$3 work="$PWD/runs/compare-converged-en-zh" tree="${TMPDIR:-/tmp}/translate-code-$1"
  [[ -f docs/compare-converged-en-zh/runs/$mechanism-seed$seed/compare.json ]] || return 0
  [[ -f $work/$mechanism-seed$seed/train_summary.json ]] && return 0
  old_code_needed "$mechanism" "$seed" || return 0
  [[ -d $tree ]] || git worktree add --detach "$tree" "$commit"
  (cd "$tree" && PYTHONPATH="$tree" python -m translate compare --mechanisms "$mechanism" --seeds "$seed" "${BUDGET[@]}" \
    --out "$tree/study" --work "$work") \
    || echo "converged_study.sh: $mechanism seed $seed (en-zh, code of $commit) failed; going on" >&2
}

# en->zh runs that no retrain reproduces (docs/results/attention-study.md): measured again by today's code, their
# committed results moved to runs/previous/ first (a measurement stopped halfway resumes from runs/)
# From "additive 2" on: runs that reproduce only on the study's CPU model (an Intel Xeon), measured again on an AMD EPYC
# (2026-12-02) so that every run has its hypotheses; additive before the runs warm-started from it, the longest run
# before the short ones.
REMEASURED=("multihead 1" "additive-kv 1" "hard-reinforce-curriculum 1" "hard-reinforce-soft-baseline 1"
            "scaled-dot-kv 1"
            "additive 2" "additive 3" "scaled-dot-h512 1" "dot 2" "hard-reinforce-warm 2" "hard-reinforce-warm 3"
            "hard-reinforce-warm-lowlr 2" "hard-reinforce-warm-lowlr 3")
remeasure() {  # mechanism, seed
  local run="$1-seed$2" results="docs/compare-converged-en-zh/runs/$1-seed$2"
  [[ -f $results/test.hyp.txt ]] && return 0  # measured again already
  [[ -f $results/compare.json || -f runs/previous/$run/compare.json ]] || return 0  # not in this study
  if [[ -f $results/compare.json ]]; then
    mkdir -p runs/previous && rm -rf "runs/previous/$run" && mv "$results" "runs/previous/$run"
  fi
  study en-zh "$1" "$2"
}

if [[ $STAGE == restore ]]; then  # each call adds the files of the runs it reproduces; commit as they come
  for run in "${REMEASURED[@]}"; do read -r -a spec <<< "$run"; remeasure "${spec[@]}"; done
  if compgen -G "docs/compare-converged-en-zh/runs/*/compare.json" > /dev/null \
     && [[ -n $(for d in docs/compare-converged-en-zh/runs/*/; do [[ -f $d/test.hyp.txt ]] || echo "$d"; done) ]]; then
    for run in "${OLD_CODE_RUNS[@]}"; do read -r -a spec <<< "$run"; old_code_train "${spec[@]}"; done
  fi
  # the heatmaps need seed 1 of every mechanism with attention; the p-values every run's hypotheses
  with_attention=$(IFS=,; echo "${FIRST_PASS[*]:1}")  # FIRST_PASS without none
  for plan in "zh-en 1 all" "en-zh 1 $with_attention" "en-zh 1,2,3 all"; do
    read -r direction seeds mechanisms <<< "$plan"
    translate compare --restore --mechanisms "$mechanisms" --seeds "$seeds" "${BUDGET[@]}" --direction "$direction" \
      --out "docs/compare-converged-$direction" --work "runs/compare-converged-$direction" ${EXTRA[@]+"${EXTRA[@]}"} \
      || echo "converged_study.sh: restoring $direction seeds $seeds: failed, or some runs not reproduced (see above)" >&2
  done
fi
