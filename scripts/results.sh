#!/usr/bin/env bash
# Reproduces the tables of docs/results.md: builds scripts/experiment, runs
# its KIN40K, thrombin and hybrid experiments (docs/experiments.md) and
# writes their tables and figures to notebooks/results/ together with the
# machine, the BLAS in use (sgprepl version) and the date.
#
#   SGP_DATA=../shared/data scripts/results.sh [BUDGET]     # default 30s a fit
set -euo pipefail
cd "$(dirname "$0")/.."
export SGP_DATA="${SGP_DATA:-$(cd .. && pwd)/shared/data}"
budget="${1:-30s}"
out=notebooks/results
mkdir -p "$out"
tmp="$(mktemp -d)"
bin="$tmp/sgprepl" exp="$tmp/experiment"
go build -o "$bin" ./cmd/sgprepl
go build -o "$exp" ./scripts/experiment
{
  echo "date: $(date -u +%Y-%m-%d)"
  echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(free -g | awk '/Mem:/{print $2}') GiB"
  echo "sgprepl: $("$bin" version | tr '\n' ' ')"
  echo "budget per fit: $budget"
} > "$out/machine.txt"
"$exp" kin40k --out "$out" --budget "$budget" --m 64,256
"$exp" thrombin --out "$out" --budget "$budget" --m 64,128
"$exp" hybrid --out "$out" --budget "$budget" --m 64,256
cat "$out/machine.txt"
