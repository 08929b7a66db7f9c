#!/usr/bin/env bash
# A Ray cluster of two nodes on this machine, every address 127.0.0.1: a head and a second node started
# as two `ray start` processes, a tiny study (tests/data/tiny, a 16-unit model) sent to it with
# `translate compare --executor ray --address`, the second node killed mid-study. Prints the wall time,
# the study's status and whether every run was recorded once; stops every Ray process it started.
#
#   bash benchmarks/ray_loopback.sh [seconds before the second node is killed, default 25]
set -euo pipefail
cd "$(dirname "$0")/.."
KILL_AFTER=${1:-25}
# (the driver, `translate compare`, keeps its Ray client on 127.0.0.1 itself: translate.study.executors.import_ray)
export RAY_USAGE_STATS_ENABLED=0 HF_DATASETS_OFFLINE=1 HF_HUB_OFFLINE=1
RAY=.venv/bin/ray
OUT=$(mktemp -d /tmp/ray-loopback.XXXX)
trap '$RAY stop --force > /dev/null 2>&1 || true' EXIT
before=$(pgrep -x raylet | sort -n || true)
$RAY start --head --node-ip-address=127.0.0.1 --port=6399 --num-cpus=1 --include-dashboard=false \
  --disable-usage-stats > "$OUT/head.log" 2>&1
$RAY start --address=127.0.0.1:6399 --node-ip-address=127.0.0.1 --num-cpus=1 > "$OUT/node2.log" 2>&1
second=$(comm -13 <(echo "$before") <(pgrep -x raylet | sort -n) | tail -1)  # the newest raylet: node 2
echo "raylets: $(pgrep -x raylet | tr '\n' ' ')(node 2: $second); Ray's listening sockets: \
$(ss -ltnp 2>/dev/null | grep -E 'raylet|gcs_server' | awk '{print $4}' | tr '\n' ' ')"
( sleep "$KILL_AFTER"; echo "killing node 2 (raylet $second) at ${KILL_AFTER} s"; kill -9 "$second" ) &
killer=$!
began=$(date +%s.%N)
.venv/bin/translate compare --executor ray --address 127.0.0.1:6399 --mechanisms none,additive,dot --seeds 1,2 \
  --steps 200 --out "$OUT/study" --work "$OUT/work" --data-dir tests/data/tiny \
  --set data.cache_dir="$OUT/cache" --set data.batch_tokens=120 --set data.max_tokens=40 \
  --set tokenizer.en_vocab_size=70 --set tokenizer.zh_vocab_size=70 --set tokenizer.byte_fallback=false \
  --set model.embedding_size=16 --set model.hidden_size=16 --set train.validate_every=50 --set train.threads=1 \
  --set decode.beam_size=3 > "$OUT/compare.log" 2>&1 || echo "compare exited $?"
ended=$(date +%s.%N)
wait "$killer" 2>/dev/null || true
echo "study wall: $(echo "$ended - $began" | bc) s"
grep -E "finished|failed|retried|Error|error" "$OUT/compare.log" || true
.venv/bin/translate compare --status --out "$OUT/study"
echo "compare.json files: $(find "$OUT/study/runs" -name compare.json | wc -l) (6 runs)"
$RAY stop --force > /dev/null 2>&1 || true
trap - EXIT
echo "Ray processes left: $(( $(pgrep -c -x raylet || true) + $(pgrep -c -x gcs_server || true) ))"
echo "files: $OUT"
