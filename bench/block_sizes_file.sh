#!/usr/bin/env bash
# The block order read from a binary cache larger than the memory the run may use, at block sizes
# from 64 KiB to 64 MiB: samples/s, peak resident memory and train accuracy of the same runs with
# enough memory and inside a cgroup memory limit below the cache's size. Needs root (it makes a
# cgroup: v1's memory controller or v2's memory.max) and /usr/bin/time.
#
#   bench/block_sizes_file.sh PARSGD WORKDIR [LIMIT_MIB] [REPEATS]
#
# WORKDIR holds big17.svm and big17.bin (written there once: `parsgd gen --rows 1400000 --features
# 50000 --nnz 70 --seed 2`, 801 MB of cache, 764 MiB of rows). LIMIT_MIB: the cgroup's limit
# (default 450). Each run: `train --train big17.bin --order block --block-size B --scheme hogwild
# --threads 2 --epochs 3`, in the order sizes x {memory, cgroup} x repeats, interleaved. Prints
# one tab-separated line a run: block size, where, repeat, wall s, peak KiB, the median samples/s
# of its epoch lines, train accuracy.
set -euo pipefail
parsgd=$(realpath "$1"); work=$2; limit=${3:-450}; repeats=${4:-3}
mkdir -p "$work"; cd "$work"
[ -f big17.bin ] || {
  "$parsgd" gen big17.svm --rows 1400000 --features 50000 --nnz 70 --seed 2 >/dev/null
  "$parsgd" convert big17.svm big17.bin >/dev/null
}
if [ -d /sys/fs/cgroup/memory ]; then  # cgroup v1
  group=/sys/fs/cgroup/memory/parsgd-blocks
  mkdir -p "$group"; echo $((limit << 20)) > "$group/memory.limit_in_bytes"
else  # cgroup v2
  group=/sys/fs/cgroup/parsgd-blocks
  mkdir -p "$group"; echo $((limit << 20)) > "$group/memory.max"
fi
trap 'rmdir "$group" 2>/dev/null || true' EXIT
run() {  # SIZE WHERE REPEAT
  local prefix="" log
  [ "$2" = cgroup ] && prefix="echo \$\$ > $group/cgroup.procs; "
  log=$(sh -c "${prefix}exec /usr/bin/time -f 'time %e %M' $parsgd train --train big17.bin \
    --order block --block-size $1 --scheme hogwild --threads 2 --epochs 3" 2>&1)
  local rates accuracy wall peak
  rates=$(echo "$log" | awk '/samples\/s/ && /epoch/ {for (i = 1; i <= NF; i++) if ($i == "samples/s") c = i}
    c && $1 ~ /^[0-9]+\/[0-9]+$/ {print $c}' | sort -n | awk '{r[NR] = $1} END {print r[int((NR + 1) / 2)]}')
  accuracy=$(echo "$log" | grep -o 'train accuracy [0-9.]*%' | tail -1 | awk '{print $3}')
  read -r _ wall peak < <(echo "$log" | grep '^time ')
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$wall" "$peak" "$rates" "$accuracy"
}
printf 'block\twhere\trepeat\twall_s\tpeak_kib\tsamples_per_s\ttrain_accuracy\n'
for size in 64K 1M 4M 16M 64M; do
  for r in $(seq "$repeats"); do
    run "$size" memory "$r"
    run "$size" cgroup "$r"
  done
done
