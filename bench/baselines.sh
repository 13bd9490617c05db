#!/usr/bin/env bash
# The Google Benchmark programs' baselines, kept per machine: each program runs with 9 repetitions
# in random interleaving (Google Benchmark's own --benchmark_enable_random_interleaving), its JSON
# output written to bench/baselines/MACHINE/PROGRAM.json, MACHINE named from the CPU's model,
# family and model (the context of each file holds them too, and the core count).
#
#   bench/baselines.sh [PROGRAM...]      # default: every bench_* program of the build
#
# Compare a build against a baseline with Debian's libbenchmark-tools (a Mann-Whitney U test over
# the repetitions):
#   /usr/bin/python3 /usr/share/benchmark/compare.py -a benchmarks \
#       bench/baselines/MACHINE/bench_kernels.json new.json
# or two benchmarks of one program against each other (both in one run each):
#   /usr/bin/python3 /usr/share/benchmark/compare.py -a filters build/bench/bench_kernels \
#       BM_Combine_Mean BM_Combine_Touched --benchmark_repetitions=9 \
#       --benchmark_enable_random_interleaving=true
# Run on a quiet machine: nothing else running.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bin=${BUILD:-build}/bench
machine=$(awk -F': *' '/^model name/ && !n {n=$2} /^cpu family/ && !f {f=$2} /^model\t/ && !m {m=$2}
                       END {print n "-f" f "-m" m}' /proc/cpuinfo |
          tr 'A-Z' 'a-z' | sed -e 's/([^)]*)//g' -e 's/[^a-z0-9]\+/-/g' -e 's/^-//' -e 's/-$//')
out=bench/baselines/$machine
mkdir -p "$out"
programs=("$@")
if ((${#programs[@]} == 0)); then
  for p in "$bin"/bench_*; do [ -x "$p" ] && programs+=("$(basename "$p")"); done
fi
load=$(cut -d' ' -f1 /proc/loadavg)
if awk "BEGIN {exit !($load > 0.5)}"; then
  echo "warning: load average $load: the timings of a busy machine are worth little" >&2
fi
for p in "${programs[@]}"; do
  echo "== $p -> $out/$p.json" >&2
  "$bin/$p" --benchmark_repetitions=9 --benchmark_enable_random_interleaving=true \
    --benchmark_report_aggregates_only=false --benchmark_out="$out/$p.json" \
    --benchmark_out_format=json > /dev/null
done
