#!/usr/bin/env bash
# Set everything up, train the default en->zh model for 20 minutes on the bundled Tatoeba split
# (or DATA=<folder>), evaluate it on test with beam 5, and translate a sentence.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
NAME=${NAME:-demo-en-zh}
DATA_ARGS=()
[ -n "${DATA:-}" ] && DATA_ARGS=(--data-dir "$DATA")
.venv/bin/translate train "${DATA_ARGS[@]}" --direction en-zh --max-minutes "${MINUTES:-20}" --name "$NAME"
.venv/bin/translate evaluate --checkpoint "runs/$NAME" --split test "${DATA_ARGS[@]}"
.venv/bin/translate text "I would like a cup of tea." --checkpoint "runs/$NAME"
