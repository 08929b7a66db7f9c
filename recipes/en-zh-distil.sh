#!/usr/bin/env bash
# An en->zh student of a three-member ensemble (sequence-level distillation, Kim and Rush 2016),
# trained from the released single model. Figures: docs/results/distillation.md.
#
# The teacher is the released en->zh model (11,069 updates) with two more seeds of recipes/sa512.yaml
# trained here for STEPS updates each (two at a time, one CPU thread each; the same SentencePiece
# models as the release byte for byte, which an ensemble needs). As for zh->en, the train split's own
# English teaches a student little, so new English sources come from the released zh->en model sampling
# translations of the train split's Chinese (two seeds, temperature 1). The student's corpus, each pair
# once: real English -> the ensemble's Chinese, real English -> the reference (kept beside it), sampled
# English -> the ensemble's Chinese. The student trains for STUDENT_STEPS updates at learning rate 1e-3;
# a control trains the same updates on the references alone.
# Run from the repository root: bash recipes/en-zh-distil.sh [STEPS, default 6000] [STUDENT_STEPS, default 4000]
set -euo pipefail
STEPS=${1:-6000}
STUDENT_STEPS=${2:-4000}
DATA=data/tatoeba-cmn-eng
# The released model of 2026-12-01, which the teacher and the student start from: checkpoints/en-zh is
# this recipe's student since 2026-12-05, so the earlier one comes from git.
BASE=runs/en-zh-2026-12-01
[ -f "$BASE/model.safetensors" ] || { mkdir -p "$BASE" && git archive 57adc36 checkpoints/en-zh | tar -x -C "$BASE" --strip-components 2; }
mkdir -p runs/en-zh-sampled-sources runs/en-zh-kd-all

# 1. Two more teachers, trained side by side on one thread each.
common=(-c recipes/sa512.yaml --direction en-zh --max-minutes 0 --max-steps "$STEPS" --set train.threads=1)
for seed in 2 3; do
  [ -f "runs/en-zh-sa512-seed$seed/train_summary.json" ] || \
    translate train "${common[@]}" --name "en-zh-sa512-seed$seed" --set train.seed=$seed \
      > "runs/en-zh-sa512-seed$seed.log" 2>&1 &
done
wait
cmp "$BASE/src.spm.model" runs/en-zh-sa512-seed2/best/src.spm.model
cmp "$BASE/tgt.spm.model" runs/en-zh-sa512-seed3/best/tgt.spm.model
TEACHER=(-m "$BASE" -m runs/en-zh-sa512-seed2 -m runs/en-zh-sa512-seed3)

# 2. The ensemble on the real English of the train split, references kept beside.
translate distil "${TEACHER[@]}" --direction en-zh --out runs/kd-en-zh --keep-references --max-length-ratio 2.5

# 3. New English sources: the released zh->en model samples two translations of each Chinese sentence.
cut -f2 "$DATA/train.tsv" > runs/train.zh
translate file runs/train.zh -o runs/train.sample.en -m zh-en --sample 1.0 --seed 1
translate file runs/train.zh -o runs/train.sample2.en -m zh-en --sample 1.0 --seed 2
python - <<'EOF'
real = [line.rstrip("\n").split("\t")[:2] for line in open("data/tatoeba-cmn-eng/train.tsv", encoding="utf-8")]
known, rows = {en for en, _ in real}, []
for name in ("runs/train.sample.en", "runs/train.sample2.en"):
    for (_, zh), sampled in zip(real, open(name, encoding="utf-8").read().splitlines()):
        if sampled and sampled not in known:
            known.add(sampled)
            rows.append(f"{sampled}\t{zh}\n")
open("runs/en-zh-sampled-sources/train.tsv", "w", encoding="utf-8").writelines(rows)
print(f"{len(rows)} new English sources")
EOF
cp "$DATA/dev.tsv" "$DATA/test.tsv" runs/en-zh-sampled-sources/

# 4. The ensemble on the sampled English (the Chinese they were sampled from is not kept).
translate distil "${TEACHER[@]}" --direction en-zh --data-dir runs/en-zh-sampled-sources \
  --out runs/kd-en-zh-sampled --max-length-ratio 2.5

# 5. One corpus; dev and test stay Tatoeba's.
cat runs/kd-en-zh/train.tsv runs/kd-en-zh-sampled/train.tsv > runs/en-zh-kd-all/train.tsv
cp "$DATA/dev.tsv" "$DATA/test.tsv" runs/en-zh-kd-all/

# 6. The student, then the control on the references alone: the released en->zh model's weights and
#    tokenizers, the same updates and learning rate.
student=(-c recipes/sa512.yaml --direction en-zh --init-from "$BASE" --max-minutes 0 --max-steps "$STUDENT_STEPS"
         --set train.threads=2 --set train.learning_rate=1e-3)
translate train "${student[@]}" --data-dir runs/en-zh-kd-all --name en-zh-student
translate train "${student[@]}" --name en-zh-refs-control

# 7. The release rule (docs/results/decisions.md): the student shipped on 2026-12-05 with
#    translate decide --candidate runs/en-zh-student --against "$BASE"   (exit 0: it ships)
#    translate release runs/en-zh-student checkpoints/en-zh --no-lexicon
