#!/usr/bin/env bash
# A diversified training corpus (data diversification, Nguyen et al. 2020; sampled back-translation,
# Edunov et al. 2018): the corpus's own pairs, twice its English side back-translated into Chinese by
# sampling (--sample 1.0, seeds 1 and 2: varied, noisy Chinese sources for real English), and its
# Chinese side translated into English by beam search. Duplicate pairs are dropped by the training
# data's cleaning. Dev and test are the corpus's own, unchanged.
#
#   bash recipes/diversify.sh [CORPUS] [OUT] [ZH_EN]
#   translate train -c recipes/sa512.yaml --direction zh-en --data-dir runs/diversified --name zh-en-div
#
# CORPUS: a folder with train/dev/test.tsv (default data/tatoeba-cmn-eng); OUT: where the new corpus
# goes (default runs/diversified); ZH_EN: the zh->en model of the forward translations (default: the
# released zh-en model). The released zh-en model was trained on a corpus built by the released en-zh
# model and the zh-en model it replaced (`git worktree add /tmp/zh-en-prev ca01969`, then ZH_EN=
# /tmp/zh-en-prev/checkpoints/zh-en); each translate call takes a few minutes on 2 CPU threads.
set -euo pipefail
CORPUS=${1:-data/tatoeba-cmn-eng}
OUT=${2:-runs/diversified}
ZH_EN=${3:-zh-en}
mkdir -p "$OUT"
cut -f1 "$CORPUS/train.tsv" > "$OUT/train.en"
cut -f2 "$CORPUS/train.tsv" > "$OUT/train.zh"
translate file "$OUT/train.en" -o "$OUT/bt1.zh" -m en-zh --direction en-zh --sample 1.0 --seed 1 --engine torch
translate file "$OUT/train.en" -o "$OUT/bt2.zh" -m en-zh --direction en-zh --sample 1.0 --seed 2 --engine torch
translate file "$OUT/train.zh" -o "$OUT/ft.en" -m "$ZH_EN" --direction zh-en --no-lexicon --engine torch
{
    paste "$OUT/train.en" "$OUT/train.zh"
    paste "$OUT/train.en" "$OUT/bt1.zh"
    paste "$OUT/train.en" "$OUT/bt2.zh"
    paste "$OUT/ft.en" "$OUT/train.zh"
} > "$OUT/train.tsv"
cp "$CORPUS/dev.tsv" "$CORPUS/test.tsv" "$OUT/"
echo "wrote $OUT/train.tsv ($(wc -l < "$OUT/train.tsv") pairs before cleaning)"
