#!/usr/bin/env bash
# Copies the figures that docs/experiments.md embeds from the results of docs/experiments/run.sh
# (OUT, default out/experiments) into docs/experiments/figures/, as FOLDER-PLOT.svg. Experiment 3's
# figure is a restyled subset (period_selected.gp, drawn here in each 3-period-* folder: the full
# plots there have 28 lines). Run it after run.sh; needs gnuplot. A figure whose experiment was not
# run (its folder missing) keeps the copy already in figures/.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
OUT=${OUT:-out/experiments}
here=docs/experiments
to=$here/figures
mkdir -p "$to"
for folder in 3-period-sparse 3-period-fmnist; do
  if [ -d "$OUT/$folder" ]; then (cd "$OUT/$folder" && gnuplot "$OLDPWD/$here/period_selected.gp"); fi
done
for figure in \
    1-order-sparse/suboptimality_epoch 1-order-fmnist/suboptimality_epoch \
    1-sorted-sparse/suboptimality_epoch 1-sorted-fmnist/suboptimality_epoch \
    2-schemes-sparse/suboptimality_seconds 2-schemes-sparse/speedup \
    3-period-sparse/period_selected 3-period-fmnist/period_selected \
    3-period-mlp/suboptimality_epoch 3-gossip-sparse/suboptimality_seconds \
    3-gossip-mlp/suboptimality_epoch 5-partitions-mlp/suboptimality_seconds \
    5-partitions-wide/suboptimality_seconds 9-block-sparse/suboptimality_epoch \
    9-block-sorted/suboptimality_epoch; do
  target="$to/${figure%%/*}-${figure##*/}.svg"
  if [ ! -f "$OUT/$figure.svg" ]; then
    # An experiment not run again keeps the figure drawn before.
    [ -f "$target" ] || { echo "$OUT/$figure.svg: missing (run $here/run.sh, and run.sh 1sorted 3mlp 3gossip 5 9)" >&2; exit 1; }
    echo "$OUT/$figure.svg: missing; $target kept" >&2
    continue
  fi
  cp "$OUT/$figure.svg" "$target"
done
echo "figures: $to" >&2
