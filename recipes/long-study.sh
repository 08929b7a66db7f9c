#!/usr/bin/env bash
# The long attention study: eight mechanisms tuned at equal training tokens, every run stopped by
# patience, seeds added until each declared question (docs/compare-long-en-zh/questions.tsv) is decided,
# equivalent or at 8 seeds a side. About 24 hours of the 2-core CPU machine in all; it resumes across
# days and machines: a run whose small results are committed under docs/compare-long-en-zh/runs/ is
# never trained again, the tuner's trials are in docs/compare-long-en-zh/tune/, and plan.json fixes the
# procedure (a changed command is refused unless --deviate says why, and then it is on the record).
#
#   bash recipes/long-study.sh                 # everything not yet finished
#   translate compare --status --out docs/compare-long-en-zh     # from another terminal
#
# After each sitting: `translate summary docs/compare-* --write README.md` (once results.json exists, the
# README's orderings include this study), then commit docs/compare-long-en-zh and README.md (no weights
# there; those stay in runs/).
set -euo pipefail
cd "$(dirname "$0")/.."
exec translate compare -c recipes/long-study.yaml \
  --mechanisms none,additive,dot,scaled-dot,bilinear,multihead-ln-scaled-dot,hard-reinforce,self-attention+additive \
  --budget-tokens 15000000 --tune 6 --seeds 1,2,3 --until-resolved --max-seeds 8 --jobs 2 \
  --out docs/compare-long-en-zh --work runs/compare-long-en-zh "$@"
