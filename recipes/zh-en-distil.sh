#!/usr/bin/env bash
# A zh->en student of the shipped three-member ensemble (sequence-level distillation, Kim and Rush 2016),
# trained from the released single model. Figures: docs/results/distillation.md.
#
# The ensemble's members learned the train split: on its Chinese they write the reference for 83 % of
# the lines, so the train split alone teaches a student little. New sources come from the released
# en->zh model sampling translations of the train split's English (two seeds, temperature 1; beam
# search would give the train split's own Chinese for 93 % of the lines); the sampled sentences that are
# not in the train split are translated by the ensemble. The student's corpus, each pair once:
#   real Chinese -> the ensemble's English, real Chinese -> the reference (kept beside it),
#   sampled Chinese -> the ensemble's English.
# Run from the repository root: bash recipes/zh-en-distil.sh [minutes of training, default 50]
set -euo pipefail
MINUTES=${1:-50}
DATA=data/tatoeba-cmn-eng
mkdir -p runs/zh-en-sampled-sources runs/zh-en-kd-all

# 1. The ensemble on the real Chinese of the train split, references kept beside.
translate distil -m zh-en --ensemble --out runs/kd-zh-en --keep-references --max-length-ratio 2.5

# 2. New Chinese sources: the released en->zh model samples two translations of each English sentence.
cut -f1 "$DATA/train.tsv" > runs/train.en
translate file runs/train.en -o runs/train.sample.zh -m en-zh --sample 1.0 --seed 1
translate file runs/train.en -o runs/train.sample2.zh -m en-zh --sample 1.0 --seed 2
python - <<'EOF'
real = [line.rstrip("\n").split("\t")[:2] for line in open("data/tatoeba-cmn-eng/train.tsv", encoding="utf-8")]
known, rows = {zh for _, zh in real}, []
for name in ("runs/train.sample.zh", "runs/train.sample2.zh"):
    for (en, _), sampled in zip(real, open(name, encoding="utf-8").read().splitlines()):
        if sampled and sampled not in known:
            known.add(sampled)
            rows.append(f"{en}\t{sampled}\n")
open("runs/zh-en-sampled-sources/train.tsv", "w", encoding="utf-8").writelines(rows)
print(f"{len(rows)} new Chinese sources")
EOF
cp "$DATA/dev.tsv" "$DATA/test.tsv" runs/zh-en-sampled-sources/

# 3. The ensemble on the sampled Chinese (the English they were sampled from is not kept).
translate distil -m zh-en --ensemble --data-dir runs/zh-en-sampled-sources --out runs/kd-zh-en-sampled \
  --max-length-ratio 2.5

# 4. One corpus; dev and test stay Tatoeba's.
cat runs/kd-zh-en/train.tsv runs/kd-zh-en-sampled/train.tsv > runs/zh-en-kd-all/train.tsv
cp "$DATA/dev.tsv" "$DATA/test.tsv" runs/zh-en-kd-all/

# 5. The student: the released zh->en model's weights and tokenizers, trained on that corpus.
translate train -c recipes/sa512.yaml --direction zh-en --data-dir runs/zh-en-kd-all --init-from zh-en \
  --name zh-en-student --max-minutes "$MINUTES" --set train.threads=2 --set train.learning_rate=1e-3
