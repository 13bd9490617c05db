#!/usr/bin/env bash
# Installs the dependencies, builds parsgd and runs the whole test suite, then the Python module as
# pip builds it (scripts/wheel_check.sh: the wheel in a fresh venv with today's numpy and
# scikit-learn from PyPI, and the Python suite there), then the ThreadSanitizer
# build of the std::thread-driven scheme tests, the AddressSanitizer + UBSan build of the whole
# suite (its run leaves out the numeric sweeps, which run in the release suite: the scheme x
# optimiser x order command-line sweep, the convergence of every scheme, order, optimiser and
# bias setting to a known optimum, every optimiser on rare features, the offload backend's
# equivalence with the CPU's, and the ranks-equal-workers equivalences), and
# each reader's fuzz target for PARSGD_FUZZ_SECONDS (default 30). Exits non-zero on any failure (a
# UBSan report, a leak and a fuzz crash included). The asan test preset makes sanitizer reports
# exit with status 86, so that the CLI tests, which expect status 1 for refused input, do not
# mistake a report in the program for a refusal.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bash scripts/install-deps.sh
cmake --preset release
cmake --build --preset release
ctest --preset release
bash scripts/wheel_check.sh
cmake --preset tsan
cmake --build --preset tsan
ctest --preset tsan
cmake --preset asan
cmake --build --preset asan
ctest --preset asan
bash scripts/fuzz.sh "${PARSGD_FUZZ_SECONDS:-30}"
