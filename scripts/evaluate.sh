#!/usr/bin/env bash
# Runs the evaluation of docs/evaluation.md: sgprepl fit over the tuning
# and checking sets × the selectors, writing a markdown table and a CSV
# (by default under $SGP_EVAL_CACHE/results). Flags go to the program:
#
#   scripts/evaluate.sh                      # the full table, 20 s a fit (about 20 min)
#   scripts/evaluate.sh --quick              # small sets, 5 s a fit
#   scripts/evaluate.sh --baseline docs/results/evaluation-baseline.csv
#   scripts/evaluate.sh -help                # every flag
set -euo pipefail
cd "$(dirname "$0")/.."
export SGP_DATA="${SGP_DATA:-$(cd .. && pwd)/shared/data}"
export SGP_EVAL_CACHE="${SGP_EVAL_CACHE:-${TMPDIR:-/tmp}/sgp-eval}"
exec go run ./scripts/evaluate "$@"
