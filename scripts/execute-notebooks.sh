#!/usr/bin/env bash
# Re-executes the tutorial notebooks in place through the sgp kernel, so
# that the committed notebooks show the outputs of the current code.
# Needs Debian's Jupyter (jupyter-nbconvert, python3-nbclient); reads the
# data sets from $SGP_DATA (default ../shared/data) where the notebooks use
# them. Usage: scripts/execute-notebooks.sh [NOTEBOOK.ipynb …]
set -euo pipefail
cd "$(dirname "$0")/.."
export SGP_DATA="${SGP_DATA:-$(cd .. && pwd)/shared/data}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/sgprepl" ./cmd/sgprepl
"$work/sgprepl" install-kernel --prefix "$work/prefix" >/dev/null
export JUPYTER_PATH="$work/prefix/share/jupyter" JUPYTER_RUNTIME_DIR="$work/runtime" JUPYTER_CONFIG_DIR="$work/config"
if [ $# -eq 0 ]; then set -- notebooks/*.ipynb; fi
for nb in "$@"; do
  echo "executing $nb"
  /usr/bin/jupyter nbconvert --to notebook --execute --inplace \
    --ExecutePreprocessor.kernel_name=sgp --ExecutePreprocessor.timeout=600 "$nb"
done
