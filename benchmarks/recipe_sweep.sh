#!/usr/bin/env bash
# Time to quality of the default en->zh recipe: a sweep at a 5-minute budget, the winner and the recipe
# it was to replace (learning rate 2e-3, 1,200-token batches) at 20 minutes, and OpenNMT-py 3.5.1 for 20
# minutes right after, on the same machine. The sweep's values are explicit: it does not depend on today's
# defaults (since 2026-12-03 the winner's, docs/results/recipe.md).
#   bash benchmarks/recipe_sweep.sh [PEER_DIR=../shared/anchors/opennmt]
# Run it on an otherwise idle machine (every figure is a time budget); about 2 hours on 2 cores.
# Env: STAGE (1: from the start; 2: from the schedule sweep; 3: from the 20-minute runs), THREADS (2),
#      OUT (docs/recipe-5min), DATE (today, for the JSON names).
# Writes: $OUT/lr-batch and $OUT/schedule (the studies' small results: dev tables, the winner's test
# scores), benchmarks/results/$DATE-recipe-20min-{default,winner,peer}.json.
set -euo pipefail
PEER=${1:-../shared/anchors/opennmt}
STAGE=${STAGE:-1}
THREADS=${THREADS:-2}
OUT=${OUT:-docs/recipe-5min}
DATE=${DATE:-$(date -u +%F)}
PY=${PY:-python}
common=(--minutes 5 --mechanisms additive --seeds 1 --set "train.threads=$THREADS")

chosen() {  # chosen STUDY: the sweep's winner, KEY=VALUE per word
  "$PY" -c 'import json, sys
print(" ".join(k + "=" + v for k, v in json.load(open(sys.argv[1] + "/sweep.json"))["chosen"]["additive"].items()))' "$1"
}
sets() { for kv in "$@"; do printf -- '--set %s ' "$kv"; done; }

if [ "$STAGE" -le 1 ]; then
  echo "[recipe] 1/3 learning rate x batch size, 5 minutes each ($(date -u +%T))" >&2
  "$PY" -m translate compare "${common[@]}" --sweep train.learning_rate=2e-3,4e-3 \
    --sweep data.batch_tokens=600,1200,2400 --out "$OUT/lr-batch" --work runs/recipe-5min/lr-batch
  cp "$OUT/lr-batch/sweep.md" "$OUT/lr-batch/sweep-first.md"
  # 2,400 tokens made too few updates in 5 minutes, and 4e-3 beat 2e-3: one learning rate further, small batches
  # (the same folder: the runs above are reused, the choice is made over this grid)
  "$PY" -m translate compare "${common[@]}" --sweep train.learning_rate=2e-3,4e-3,8e-3 \
    --sweep data.batch_tokens=600,1200 --out "$OUT/lr-batch" --work runs/recipe-5min/lr-batch
fi
read -r -a best <<<"$(chosen "$OUT/lr-batch")"
if [ "$STAGE" -le 2 ]; then
  echo "[recipe] 2/3 schedule at ${best[*]} ($(date -u +%T))" >&2
  # shellcheck disable=SC2046
  "$PY" -m translate compare "${common[@]}" $(sets "${best[@]}") --sweep train.schedule=inverse-sqrt,constant \
    --out "$OUT/schedule" --work runs/recipe-5min/schedule
fi
read -r -a sched <<<"$(chosen "$OUT/schedule")"
echo "[recipe] 3/3 20 minutes: old default, winner (${best[*]} ${sched[*]}), peer ($(date -u +%T))" >&2
"$PY" scripts/benchmark.py train --minutes 20 --threads "$THREADS" --name recipe-20min-default \
  --set train.learning_rate=2e-3 --set data.batch_tokens=1200 --set train.schedule=inverse-sqrt \
  --output "benchmarks/results/$DATE-recipe-20min-default.json"
if [ "${best[*]} ${sched[*]}" = "train.learning_rate=2e-3 data.batch_tokens=1200 train.schedule=inverse-sqrt" ]; then
  echo "[recipe] the winner is the old default: one 20-minute run" >&2
else
  # shellcheck disable=SC2046
  "$PY" scripts/benchmark.py train --minutes 20 --threads "$THREADS" --name recipe-20min-winner \
    $(sets "${best[@]}" "${sched[@]}") --output "benchmarks/results/$DATE-recipe-20min-winner.json"
fi
THREADS=$THREADS bash "$PEER/run.sh" 20
cp /tmp/opennmt-peer/summary.json "benchmarks/results/$DATE-recipe-20min-peer.json"
echo "[recipe] done ($(date -u +%T))" >&2
