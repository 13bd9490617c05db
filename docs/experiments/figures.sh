#!/usr/bin/env bash
# Copies the figures that docs/experiments.md embeds from the results of docs/experiments/run.sh
# (OUT, default out/experiments) into docs/experiments/figures/, as FOLDER-PLOT.svg. Experiment 3's
# figure is a restyled subset (period_selected.gp, drawn here in each 3-period-* folder: the full
# plots there have 28 lines). Run it after run.sh; needs gnuplot.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
OUT=${OUT:-out/experiments}
here=docs/experiments
to=$here/figures
mkdir -p "$to"
for folder in 3-period-sparse 3-period-fmnist; do
  [ -d "$OUT/$folder" ] || { echo "$OUT/$folder: missing (run $here/run.sh 3)" >&2; exit 1; }
  (cd "$OUT/$folder" && gnuplot "$OLDPWD/$here/period_selected.gp")
done
for figure in \
    1-order-sparse/objective_epoch 1-order-fmnist/objective_epoch \
    1-sorted-sparse/objective_epoch 1-sorted-fmnist/objective_epoch \
    2-schemes-sparse/objective_seconds 2-schemes-sparse/speedup \
    3-period-sparse/period_selected 3-period-fmnist/period_selected \
    3-period-mlp/objective_epoch 3-gossip-sparse/objective_seconds 3-gossip-mlp/objective_epoch \
    5-partitions-mlp/objective_seconds 5-partitions-wide/objective_seconds; do
  [ -f "$OUT/$figure.svg" ] || { echo "$OUT/$figure.svg: missing (run $here/run.sh, and run.sh 1sorted 3mlp 3gossip 5)" >&2; exit 1; }
  cp "$OUT/$figure.svg" "$to/${figure%%/*}-${figure##*/}.svg"
done
echo "figures: $to" >&2
