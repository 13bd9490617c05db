#!/usr/bin/env bash
# Installs the dependencies, builds parsgd and runs the whole test suite, then the ThreadSanitizer
# build of the std::thread-driven scheme tests. Exits non-zero on any failure.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bash scripts/install-deps.sh
cmake --preset release
cmake --build --preset release
ctest --preset release
cmake --preset tsan
cmake --build --preset tsan
ctest --preset tsan
