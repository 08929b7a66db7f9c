#!/usr/bin/env bash
# A zh->en student of the shipped three-member ensemble (sequence-level distillation, Kim and Rush 2016),
# trained from the released single model. Figures: docs/results/distillation.md.
#
# The ensemble's members learned the train split: on it they reproduce the reference for most lines, so
# the train split alone teaches a student little. New sources come from the released en->zh model: it
# translates the train split's English, and the ensemble translates that Chinese back into English.
# The student's corpus is four kinds of pairs, each pair once:
#   real Chinese -> the ensemble's English, real Chinese -> the reference (kept beside it),
#   synthetic Chinese -> the ensemble's English, synthetic Chinese -> the original English (back-translation).
# Run from the repository root: bash recipes/zh-en-distil.sh [minutes of training, default 50]
set -euo pipefail
MINUTES=${1:-50}
DATA=data/tatoeba-cmn-eng
mkdir -p runs/zh-en-bt-sources runs/zh-en-kd-all

# 1. The ensemble on the real Chinese of the train split.
translate distil -m zh-en --ensemble --out runs/kd-zh-en --keep-references --max-length-ratio 2.5

# 2. Synthetic Chinese sources: the released en->zh model on the train split's English (beam 5).
cut -f1 "$DATA/train.tsv" > runs/train.en
translate file runs/train.en -o runs/train.syn.zh -m en-zh
paste runs/train.en runs/train.syn.zh > runs/zh-en-bt-sources/train.tsv
cp "$DATA/dev.tsv" "$DATA/test.tsv" runs/zh-en-bt-sources/

# 3. The ensemble on the synthetic Chinese; the original English is kept beside as the reference.
translate distil -m zh-en --ensemble --data-dir runs/zh-en-bt-sources --out runs/kd-zh-en-bt \
  --keep-references --max-length-ratio 2.5

# 4. One corpus; dev and test stay Tatoeba's.
cat runs/kd-zh-en/train.tsv runs/kd-zh-en-bt/train.tsv > runs/zh-en-kd-all/train.tsv
cp "$DATA/dev.tsv" "$DATA/test.tsv" runs/zh-en-kd-all/

# 5. The student: the released zh->en model's weights and tokenizers, trained on that corpus.
translate train -c recipes/sa512.yaml --direction zh-en --data-dir runs/zh-en-kd-all --init-from zh-en \
  --name zh-en-student --max-minutes "$MINUTES" --set train.threads=2 --set train.learning_rate=1e-3
