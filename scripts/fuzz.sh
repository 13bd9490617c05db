#!/usr/bin/env bash
# Builds the libFuzzer targets of the readers (preset `fuzz`: clang, ASan + UBSan) and runs each on
# its seed corpus (fuzz/corpus/TARGET) for a bounded time:  scripts/fuzz.sh [SECONDS]  (default 60
# per target). Inputs that add coverage go to build-fuzz/corpus/TARGET (kept between local runs, never
# into the committed seeds). A crash, a sanitizer report, a leak, an input slower than 10 s or a single
# allocation above 2 GiB stops that target: the input is kept as build-fuzz/crashes/TARGET-*, its log
# as build-fuzz/TARGET.log, and the script exits 1 after running the other targets. As many targets
# run at once as there are cores.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
seconds=${1:-60}
targets=(libsvm csv fasttext vw idx binary_cache model_file checkpoint)
cmake --preset fuzz >/dev/null
cmake --build --preset fuzz
export ASAN_OPTIONS=detect_leaks=1
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
mkdir -p build-fuzz/crashes
# One target per core at a time (libFuzzer runs one process per target).
jobs=$(nproc)
run_target() {
  local target=$1 log="build-fuzz/$1.log"
  mkdir -p "build-fuzz/corpus/$target"
  if ./build-fuzz/fuzz/fuzz_"$target" -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 \
       -print_final_stats=1 -artifact_prefix="build-fuzz/crashes/$target-" \
       "build-fuzz/corpus/$target" "fuzz/corpus/$target" >"$log" 2>&1; then
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
    cov=$(grep -o 'cov: [0-9]* ft: [0-9]*' "$log" | tail -1)
    echo "fuzz $target: ok, ${seconds} s, $execs inputs ($rate/s), $cov"
  else
    echo "fuzz $target: FAILED (log $log)" >&2
    grep -E 'ERROR|SUMMARY|Test unit written|runtime error|deadly signal' "$log" | head -8 >&2 || true
    return 1
  fi
}
status=0
pids=()
for target in "${targets[@]}"; do
  run_target "$target" &
  pids+=($!)
  if ((${#pids[@]} >= jobs)); then
    wait "${pids[0]}" || status=1
    pids=("${pids[@]:1}")
  fi
done
for pid in "${pids[@]}"; do wait "$pid" || status=1; done
exit $status
