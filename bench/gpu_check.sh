#!/usr/bin/env bash
# GPU check of the offload backend, in two halves.
#
#   bench/gpu_check.sh bundle [DIR]   (here, on the build machine) builds parsgd with
#       PARSGD_OFFLOAD=nvptx into build-gpu/ (portable code: no -march=native) and fills DIR
#       (default .gpu, git-ignored) with the program and its plugins, the libraries a GPU host may lack (libgomp
#       with its matching nvptx plugin, oneTBB, fmt, zlib, OpenCL loader, and oneDNN compressed
#       with xz), Fashion-MNIST (gzip IDX) and this script: about 45 MB.
#   DIR/gpu_check.sh run              (on the GPU machine) checks that target regions run on the
#       GPU, compares the offload backend with the CPU backend, times hogwild/atomic/sync on the
#       generated 500,000 x 50,000 set and on Fashion-MNIST softmax, times the CPU backend there
#       at 1-16 threads (hogwild) and 1-2 (locked), the coordinate solvers (cd's schemes, dual-cd's
#       Hogwild!) at 1-16, and prints a table and the targets' ratios last.
#       Under 5 minutes on an H200 host (every command has its own time limit). Then, on every
#       core of that host: convert of generated LIBSVM text (plain and gzip) and CSV at 1-16
#       threads, and, where the bundle holds fastText and a text set (FASTTEXT_SET=PREFIX at
#       bundle time: PREFIX.train and PREFIX.test from bench/peers/make_fasttext_set.py),
#       parsgd against fastText at 2 and 16 threads, file to model (about 2 minutes more).
#
# ALLOW_HOST=1 runs the 'run' half without --require-gpu, to try the script where there is no GPU.
# BANDWIDTH (bytes/s) overrides the memory bandwidth used for the sync scheme's bound (H200: 4.8e12).
set -euo pipefail

bundle() {
  local out=${1:-.gpu}
  cd "$(dirname "${BASH_SOURCE[0]}")/.."
  cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DPARSGD_OFFLOAD=nvptx \
    -DPARSGD_BUILD_TESTS=OFF -DPARSGD_BUILD_BENCH=OFF -DPARSGD_NATIVE=OFF >/dev/null
  cmake --build build-gpu --target parsgd_cli
  rm -rf "$out" && mkdir -p "$out/lib" "$out/data"
  # The program, its plugins beside it (oneDNN's and MPI's engines, loaded where a run uses them),
  # and what either links.
  cp build-gpu/parsgd build-gpu/libparsgd_*.so bench/gpu_check.sh "$out/"
  for object in build-gpu/parsgd build-gpu/libparsgd_*.so; do ldd "$object"; done |
    awk '/=> \//{print $3}' | sort -u | while read -r lib; do
    case "$(basename "$lib")" in
      libc.so.*|libm.so.*|libpthread.so.*|libdl.so.*|librt.so.*|ld-linux*|libstdc++.so.*|libgcc_s.so.*) ;;
      libdnnl.so.*) xz -T0 -6 -c "$lib" > "$out/lib/$(basename "$lib").xz" ;;
      *) cp -L "$lib" "$out/lib/" ;;
    esac
  done
  # dlopen()ed, so invisible to ldd: the plugin must be the one built with this libgomp.
  for lib in libgomp-plugin-nvptx.so.1 libtbbmalloc.so.2; do
    if [ -e "/usr/lib/x86_64-linux-gnu/$lib" ]; then cp -L "/usr/lib/x86_64-linux-gnu/$lib" "$out/lib/"; fi
  done
  [ -e "$out/lib/libgomp-plugin-nvptx.so.1" ] || { echo "gpu_check: libgomp-plugin-nvptx1 is not installed" >&2; exit 1; }
  cp /usr/share/datasets/fashion-mnist/*.gz "$out/data/"
  cp bench/peers/make_csv_set.py "$out/"
  if [ -n "${FASTTEXT_SET:-}" ]; then
    cp "$FASTTEXT_SET.train" "$out/data/text.train"; cp "$FASTTEXT_SET.test" "$out/data/text.test"
    cp /usr/bin/fasttext "$out/"; cp -L /usr/lib/x86_64-linux-gnu/libfasttext.so.0 "$out/lib/"
  fi
  du -sh "$out"
}

# Median of train_seconds over the epochs after the first, from a metrics file.
median_epoch() {
  grep -o '"train_seconds":[0-9.e+-]*' "$1" | tail -n +2 | cut -d: -f2 | sort -g |
    awk '{v[NR]=$1} END {if (NR == 0) print "nan"; else if (NR % 2) print v[(NR+1)/2]; else print (v[NR/2]+v[NR/2+1])/2}'
}
last_field() { grep -o "\"$2\":[0-9.e+-]*" "$1" | tail -1 | cut -d: -f2; }

# Median wall seconds of a command over 3 runs (its output discarded); "fail" if one fails.
median3() {
  local i t0 v=()
  for i in 1 2 3; do
    t0=$(date +%s.%N)
    timeout 120 "$@" >/dev/null 2>&1 || { echo fail; return; }
    v+=("$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN{print b - a}')")
  done
  printf '%s\n' "${v[@]}" | sort -g | sed -n 2p | xargs printf '%.3f'
}

# Reading at 1-16 threads and raw text against fastText, on the host's cores.
readers() {
  local P=$1 here=$2 work=$3 t
  echo "== readers (median of 3, whole process, seconds)"
  [ -e "$work/g.svm" ] || timeout 120 "$P" gen "$work/g.svm" --rows 200000 --features 50000 --nnz 70 --seed 1
  [ -e "$work/g.svm.gz" ] || timeout 120 gzip -k "$work/g.svm"
  [ -e "$work/t.csv" ] || (cd "$work" && timeout 120 python3 "$here/make_csv_set.py" t)
  echo "  gzip -dc g.svm.gz: $(median3 sh -c "gzip -dc '$work/g.svm.gz' > /dev/null")"
  printf '  | threads | g.svm (%s MB) | g.svm.gz | t.csv (%s MB) | t.svm (%s MB) |\n' \
    "$(($(stat -c %s "$work/g.svm") / 1000000))" "$(($(stat -c %s "$work/t.csv") / 1000000))" \
    "$(($(stat -c %s "$work/t.svm") / 1000000))"
  for t in 1 2 4 8 16; do
    printf '  | %s | %s | %s | %s | %s |\n' "$t" \
      "$(median3 "$P" convert "$work/g.svm" "$work/o.bin" --threads "$t")" \
      "$(median3 "$P" convert "$work/g.svm.gz" "$work/o.bin" --threads "$t")" \
      "$(median3 "$P" convert "$work/t.csv" "$work/o.bin" --threads "$t")" \
      "$(median3 "$P" convert "$work/t.svm" "$work/o.bin" --threads "$t")"
  done
  [ -e "$here/data/text.train" ] && [ -x "$here/fasttext" ] || { echo "(no fastText in the bundle)"; return; }
  echo "== raw text against fastText (median of 3, file to model, seconds; test accuracy)"
  local train="$here/data/text.train" test="$here/data/text.test" FT="$here/fasttext"
  for t in 2 16; do
    local a b c d
    a=$(median3 "$P" train --train "$train" --model softmax --save "$work/p.bin" --threads "$t" --quiet)
    a="$a $("$P" eval "$work/p.bin" "$test" | grep -o 'accuracy [0-9.]*%*')"
    b=$(median3 "$P" train --train "$train" --model softmax --save "$work/p5.bin" --threads "$t" --epochs 5 --quiet)
    b="$b $("$P" eval "$work/p5.bin" "$test" | grep -o 'accuracy [0-9.]*%*')"
    c=$(median3 "$FT" supervised -input "$train" -output "$work/ft" -thread "$t")
    c="$c P@1 $("$FT" test "$work/ft.bin" "$test" | awk '/^P@1/{print $2}')"
    echo "  threads $t: parsgd defaults $a | parsgd --epochs 5 $b | fasttext defaults $c"
    if [ "$t" = 16 ]; then
      d=$(median3 "$FT" supervised -input "$train" -output "$work/ft2" -thread "$t" -wordNgrams 2)
      echo "  threads $t: fasttext -wordNgrams 2 $d P@1 $("$FT" test "$work/ft2.bin" "$test" | awk '/^P@1/{print $2}')"
    fi
  done
  "$P" train --train "$train" --model softmax --threads 16 --epochs 1 2>&1 | grep -i -m2 'scheme' || true
}

run() {
  local here
  here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
  export LD_LIBRARY_PATH="$here/lib:/usr/local/nvidia/lib64:/usr/local/nvidia/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  export GOMP_NVPTX_JIT=${GOMP_NVPTX_JIT:--O3}
  local work=${WORK:-$here/work}
  mkdir -p "$work"
  export CUDA_CACHE_PATH="$work/cuda-cache" CUDA_CACHE_MAXSIZE=1073741824
  for z in "$here"/lib/*.xz; do [ -e "$z" ] && [ ! -e "${z%.xz}" ] && xz -d -k "$z"; done
  local P="$here/parsgd" req=--require-gpu
  [ "${ALLOW_HOST:-0}" = 1 ] && req=""
  local fm_train="$here/data/train-images-idx3-ubyte.gz,$here/data/train-labels-idx1-ubyte.gz"
  local fm_test="$here/data/t10k-images-idx3-ubyte.gz,$here/data/t10k-labels-idx1-ubyte.gz"
  local table="$work/table.md" fails=0

  echo "== machine"
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader 2>/dev/null || echo "(no nvidia-smi)"
  nproc; grep -m1 'model name' /proc/cpuinfo || true
  echo "== device (first target region: includes the PTX JIT)"
  local t0=$SECONDS
  timeout 300 "$P" device $req
  echo "device probe took $((SECONDS - t0)) s"

  echo "== data"
  [ -e "$work/gen.bin" ] || timeout 120 "$P" gen "$work/gen.bin" --rows 500000 --features 50000 --nnz 70 --seed 7
  [ -e "$work/small.bin" ] || timeout 60 "$P" gen "$work/small.bin" --rows 20000 --features 5000 --nnz 30 --seed 3

  echo "== agreement with the CPU backend (final objective, relative difference; limit 1e-4)"
  local -a cases=("small logistic sequential 1" "small logistic atomic 1" "small logistic sync 1"
                  "small logistic sync 2" "fmtest softmax sequential 1" "fmtest softmax sync 2")
  for c in "${cases[@]}"; do
    read -r set model scheme threads <<<"$c"
    local data="$work/small.bin"
    [ "$set" = fmtest ] && data="$fm_test"
    local common=(train --train "$data" --model "$model" --scheme "$scheme" --epochs 3 --seed 5 --quiet)
    local a b
    a=$(timeout 120 "$P" "${common[@]}" --backend cpu --threads "$threads" | awk '/objective/{print $NF}')
    b=$(timeout 120 "$P" "${common[@]}" --backend offload $req --threads "$threads" | awk '/objective/{print $NF}')
    local verdict
    verdict=$(awk -v a="$a" -v b="$b" 'BEGIN{d=(a>b?a-b:b-a)/(a>0?a:1); printf "%.2e %s", d, (d<1e-4?"ok":"FAIL")}')
    echo "  $set $model $scheme threads=$threads: cpu $a offload $b -> $verdict"
    [[ $verdict == *FAIL ]] && fails=$((fails + 1))
  done

  echo "== timings (median epoch over epochs 2..6)"
  printf '| set | model | backend | scheme | workers | batch | epoch s | samples/s | objective | test acc |\n|---|---|---|---|---|---|---|---|---|---|\n' > "$table"
  time_one() {  # set label, data, test, model, backend, scheme, extra args...
    local label=$1 data=$2 test=$3 model=$4 backend=$5 scheme=$6; shift 6
    local m="$work/m-$label-$model-$backend-$scheme-$*.jsonl"; m=${m// /_}
    local args=(train --train "$data" --model "$model" --backend "$backend" --scheme "$scheme"
                --epochs 6 --seed 1 --quiet --metrics "$m" "$@")
    [ -n "$test" ] && args+=(--test "$test")
    [ "$backend" = offload ] && [ -n "$req" ] && args+=("$req")
    if ! timeout 150 "$P" "${args[@]}" >/dev/null; then
      echo "  $label $model $backend $scheme $*: failed or timed out"; fails=$((fails + 1)); return
    fi
    local epoch workers batch obj acc
    epoch=$(median_epoch "$m"); workers=$(last_field "$m" workers); batch=$(last_field "$m" batch)
    obj=$(last_field "$m" objective); acc=$(last_field "$m" test_accuracy)
    local rate
    rate=$(awk -v s="$epoch" -v n="$(last_field "$m" updates)" 'BEGIN{printf "%.3g", n/s}')
    printf '| %s | %s | %s | %s | %s | %s | %.4f | %s | %.5f | %s |\n' "$label" "$model" "$backend" \
      "$scheme" "$workers" "$batch" "$epoch" "$rate" "$obj" "${acc:-}" >> "$table"
    echo "  $label $model $backend $scheme $*: ${epoch} s/epoch"
    eval "E_${label}_${backend}_${scheme}_${workers}_${batch}=$epoch"
  }
  # The CPU side of the same machine: the thread-scaling targets (Hogwild! at 2 threads >= 1.8x
  # one thread; locked slower by a clear factor; one thread >= 250 M nonzeros/s) and the scaling
  # to every core, which a machine of 2 vCPUs cannot show.
  local t
  for t in 1 2 4 8 16; do time_one gen "$work/gen.bin" "" logistic cpu hogwild --threads "$t"; done
  for t in 1 2; do time_one gen "$work/gen.bin" "" logistic cpu locked --threads "$t"; done
  time_one gen "$work/gen.bin" "" logistic cpu hogwild --threads auto
  for s in hogwild atomic sync; do time_one gen "$work/gen.bin" "" logistic offload "$s"; done
  time_one gen "$work/gen.bin" "" logistic offload sync --batch 16384
  time_one fm "$fm_train" "$fm_test" softmax cpu hogwild --threads 2
  for s in hogwild atomic sync; do time_one fm "$fm_train" "$fm_test" softmax offload "$s"; done
  # The coordinate solvers' scaling, logistic without a bias, every epoch made: primal cd under
  # each way of sharing the scores, dual-cd under Hogwild! (PASSCoDe-Wild; its automatic scheme
  # is one worker, from measurements on 2 vCPUs, which this row tests).
  local cd=(--solver cd --bias off --tol none) dual=(--solver dual-cd --bias off --tol none)
  for t in 1 4 16; do time_one gen_cd "$work/gen.bin" "" logistic cpu hogwild "${cd[@]}" --threads "$t"; done
  for s in atomic average; do time_one gen_cd "$work/gen.bin" "" logistic cpu "$s" "${cd[@]}" --threads 16; done
  for t in 1 4 16; do time_one gen_dual "$work/gen.bin" "" logistic cpu hogwild "${dual[@]}" --threads "$t"; done

  echo
  echo "== offload check: $(head -1 < <(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null || echo host)), $(date -u +%F)"
  cat "$table"
  local cpu2=${E_gen_cpu_hogwild_2_1:-nan} gpu=${E_gen_offload_hogwild_65536_1:-nan}
  awk -v c="$cpu2" -v g="$gpu" 'BEGIN{if (g+0 > 0) printf "hogwild, generated set: offload is %.1fx the 2-thread CPU epoch (target >= 20x)\n", c/g}'
  # The sync scheme must read each nonzero's index, value and weight (12 bytes) and each row's
  # offset, target and order entry (16 bytes) once per epoch.
  local bw=${BANDWIDTH:-4.8e12} sync=${E_gen_offload_sync_1_256:-nan} big=${E_gen_offload_sync_1_16384:-nan}
  awk -v s="$sync" -v b="$big" -v bw="$bw" 'BEGIN{bytes=12*500000*70+16*500000; bound=bytes/bw;
    printf "sync, generated set: bandwidth bound %.3g ms (%.0f MB at %.3g B/s); batch 256: %.1fx the bound, batch 16384: %.1fx (target <= 3x)\n",
      bound*1e3, bytes/1e6, bw, s/bound, b/bound}'
  local h1=${E_gen_cpu_hogwild_1_1:-nan} l2=${E_gen_cpu_locked_2_1:-nan}
  for t in 2 4 8 16; do
    local v="E_gen_cpu_hogwild_${t}_1"
    awk -v a="$h1" -v b="${!v:-nan}" -v t="$t" 'BEGIN{if (b+0 > 0) printf "hogwild, CPU, generated set: %d threads %.2fx one thread%s\n", t, a/b, (t == 2 ? " (target >= 1.8x)" : "")}'
  done
  awk -v a="$h1" -v l="$l2" -v h="${E_gen_cpu_hogwild_2_1:-nan}" 'BEGIN{if (a+0 > 0) printf "hogwild, CPU, 1 thread: %.0f M nonzeros/s (70 per row: the generator'"'"'s mean; target >= 250 M); locked at 2 threads: %.2fx slower than hogwild at 2\n", 500000*70/a/1e6, l/h}'
  local c1=${E_gen_cd_cpu_hogwild_1_1:-nan} d1=${E_gen_dual_cpu_hogwild_1_1:-nan}
  for t in 4 16; do
    local vc="E_gen_cd_cpu_hogwild_${t}_1" vd="E_gen_dual_cpu_hogwild_${t}_1"
    awk -v a="$c1" -v b="${!vc:-nan}" -v c="$d1" -v d="${!vd:-nan}" -v t="$t" 'BEGIN{if (b+0 > 0 && d+0 > 0)
      printf "coordinate solvers, generated set: %d threads: cd hogwild %.2fx one thread, dual-cd hogwild %.2fx\n", t, a/b, c/d}'
  done
  echo "agreement failures: $fails"
  [ "${READERS:-1}" = 1 ] && readers "$P" "$here" "$work"
  [ "$fails" -eq 0 ]
}

case "${1:-}" in
  bundle) shift; bundle "$@" ;;
  run) shift; run "$@" ;;
  *) echo "usage: $0 bundle [DIR] | run" >&2; exit 2 ;;
esac
