#!/usr/bin/env bash
# The released zh->en model and its two ensemble members: three independent runs of recipes/sa512.yaml
# (encoder self-attention + additive attention, GRU width 512) that differ only in their seed, released
# as one folder (checkpoints/zh-en, members in members/1 and members/2; `translate ... --ensemble`).
# Each run stops at the number of updates its released checkpoint had (they were trained on time
# budgets of 110, 45 and 45 minutes on 2 CPU threads; the updates a minute buys differ by machine) and
# averages its last 4 checkpoints. Seeds 1-3 give byte-identical SentencePiece models, as an ensemble needs.
#
#   bash recipes/zh-en-ensemble.sh [OUT]        (about 3.5 hours on 2 CPU threads; OUT: checkpoints/zh-en)
set -euo pipefail
OUT=${1:-checkpoints/zh-en}
common=(-c recipes/sa512.yaml --direction zh-en --max-minutes 0 --set train.threads=2)
translate train "${common[@]}" --name zh-en-sa512 --max-steps 7149
translate train "${common[@]}" --name zh-en-sa512-seed2 --max-steps 7543 --set train.seed=2
translate train "${common[@]}" --name zh-en-sa512-seed3 --max-steps 5713 --set train.seed=3
translate release runs/zh-en-sa512 "$OUT" --lexicon --member runs/zh-en-sa512-seed2 --member runs/zh-en-sa512-seed3 \
    --recipe "bash recipes/zh-en-ensemble.sh"
