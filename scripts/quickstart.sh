#!/usr/bin/env bash
# Installs the dependencies, builds parsgd and runs the default job: a 784-256-128-10 MLP on
# Fashion-MNIST (Debian's dataset-fashion-mnist) on every core, with the default scheme (auto:
# averaged replicas for the MLP), one line per epoch, and the final test accuracy. Extra arguments
# go to `parsgd train` (e.g. --epochs 5 --threads 2 --scheme hogwild).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bash scripts/install-deps.sh
cmake --preset release >/dev/null
cmake --build --preset release --target parsgd_cli
data=/usr/share/datasets/fashion-mnist
exec ./build/parsgd train \
  --train "$data/train-images-idx3-ubyte.gz" --test "$data/t10k-images-idx3-ubyte.gz" \
  --model mlp --hidden 256,128 "$@"
