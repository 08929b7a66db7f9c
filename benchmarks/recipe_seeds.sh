#!/usr/bin/env bash
# The default en->zh recipe against OpenNMT-py 3.5.1 at a time budget, several seeds each, in one hour on one
# machine: the runs alternate (ours seed 1, peer seed 1, ours seed 2, ...), so that a machine whose speed drifts
# within the hour moves both systems alike. Every JSON records the load average before and after its run.
#   bash benchmarks/recipe_seeds.sh [PEER_DIR=../shared/anchors/opennmt]
# Run it on an otherwise idle machine; about 22 minutes a run at MINUTES=20 (85 minutes for 2 seeds).
# Env: SEEDS ("1 2"), MINUTES (20), THREADS (2), DATE (today, for the JSON names), PY (python),
#      OLD=1 also trains the recipe the default replaced (learning rate 2e-3, 1,200-token batches) at each seed.
# Writes: benchmarks/results/$DATE-recipe-seeds-{default,peer[,old-default]}-seed$S.json
# The peer's seed: a copy of PEER_DIR under /tmp whose config.yaml says `seed: $S` (the anchor's own files are
# not touched; its data folder is reached through a link, as run.sh expects it two levels up).
set -euo pipefail
PEER=$(cd "${1:-../shared/anchors/opennmt}" && pwd)
SEEDS=${SEEDS:-1 2}
MINUTES=${MINUTES:-20}
THREADS=${THREADS:-2}
DATE=${DATE:-$(date -u +%F)}
PY=${PY:-python}
RESULTS=benchmarks/results

loads() { cut -d' ' -f1-3 /proc/loadavg | tr ' ' ','; }
settle() {  # wait (3 minutes at most) until the 1-minute load average is below a quarter of the cores: a run that
  # follows another at once would start on a load average of about THREADS and be recorded as busy
  local waited=0
  while awk -v c="$(nproc)" '{exit !($1 >= c / 4)}' /proc/loadavg && [ $waited -lt 180 ]; do sleep 5; waited=$((waited + 5)); done
}

peer_copy() {  # peer_copy SEED: the anchor folder with its seed set, printed
  local root=/tmp/recipe-seeds-peer/seed$1
  rm -rf "$root"; mkdir -p "$root/anchors"
  cp -r "$PEER" "$root/anchors/opennmt"
  ln -s "$(cd "$PEER/../../data" && pwd)" "$root/data"
  sed -i "s/^seed: .*/seed: $1/" "$root/anchors/opennmt/config.yaml"
  grep -q "^seed: $1\$" "$root/anchors/opennmt/config.yaml" || { echo "[recipe-seeds] could not set the peer's seed" >&2; exit 1; }
  echo "$root/anchors/opennmt"
}

for seed in $SEEDS; do
  settle
  echo "[recipe-seeds] ours, seed $seed, $MINUTES min ($(date -u +%T), load $(loads))" >&2
  "$PY" scripts/benchmark.py train --minutes "$MINUTES" --threads "$THREADS" --name "recipe-seeds-default-$seed" \
    --set "train.seed=$seed" --output "$RESULTS/$DATE-recipe-seeds-default-seed$seed.json"
  if [ "${OLD:-0}" = 1 ]; then
    settle
    echo "[recipe-seeds] the replaced recipe, seed $seed ($(date -u +%T), load $(loads))" >&2
    "$PY" scripts/benchmark.py train --minutes "$MINUTES" --threads "$THREADS" --name "recipe-seeds-old-$seed" \
      --set "train.seed=$seed" --set train.learning_rate=2e-3 --set data.batch_tokens=1200 \
      --output "$RESULTS/$DATE-recipe-seeds-old-default-seed$seed.json"
  fi
  dir=$(peer_copy "$seed")
  settle
  before=$(loads)
  echo "[recipe-seeds] OpenNMT-py, seed $seed, $MINUTES min ($(date -u +%T), load $before)" >&2
  THREADS=$THREADS bash "$dir/run.sh" "$MINUTES"
  "$PY" - /tmp/opennmt-peer/summary.json "$RESULTS/$DATE-recipe-seeds-peer-seed$seed.json" "$seed" "$before" "$(loads)" \
    <<'PY'
import json, os, sys
from pathlib import Path
from benchmarks import record_load  # the rule every benchmark's JSON follows
src, dst, seed, before, after = sys.argv[1:]
figures = {**json.loads(Path(src).read_text(encoding="utf-8")), "seed": int(seed)}
Path(dst).write_text(json.dumps(figures, indent=1), encoding="utf-8")
record_load([Path(dst)], [float(x) for x in before.split(",")], [float(x) for x in after.split(",")], os.cpu_count() or 1)
PY
  cp /tmp/opennmt-peer/run/train.log "/tmp/recipe-seeds-peer/seed$seed/train.log"
done
echo "[recipe-seeds] done ($(date -u +%T), load $(loads))" >&2
