#!/usr/bin/env bash
# Set everything up, train the default en->zh model for 20 minutes on the shared split,
# evaluate it on test with beam 5, and translate a sentence.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
DATA=${DATA:-../shared/data/tatoeba-cmn-eng}
NAME=${NAME:-demo-en-zh}
.venv/bin/translate train --data-dir "$DATA" --direction en-zh --max-minutes "${MINUTES:-20}" --name "$NAME"
.venv/bin/translate evaluate --checkpoint "runs/$NAME" --split test --data-dir "$DATA"
.venv/bin/translate text "I would like a cup of tea." --checkpoint "runs/$NAME"
