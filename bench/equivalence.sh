#!/usr/bin/env bash
# Byte-for-byte equivalence check of `parsgd train` across a change of the code (a refactor of
# the training core that must not change any result).
#
# It runs a FIXED list of small `parsgd train` cases (every deterministic scheme; the one-worker
# case of every asynchronous scheme; the MLP's model partitions; the coordinate-descent solvers;
# the models, optimisers, orders, schedules and MLP backends spread over them; the offload
# backend's host fallback; ranks under mpirun; checkpoint + resume and --init) and keeps the exact
# bytes of what each writes: the saved model (--save) and the per-epoch metrics (--metrics) with
# every wall-clock field removed, canonicalised with json.dumps(sort_keys=True). The data is
# written by the binary itself (`parsgd gen`) plus a slice of Debian's Fashion-MNIST
# (/usr/share/datasets/fashion-mnist, package dataset-fashion-mnist), so nothing else is needed
# but /usr/bin/python3 (and mpirun for the ranks' cases, skipped where the binary has no MPI).
# About 110 cases, under a minute on 2 cores.
# Every command runs in OUTDIR with relative paths: the model file records the --train path.
#
#   bench/equivalence.sh BINARY OUTDIR        run every case with BINARY (a parsgd executable);
#                                             OUTDIR must not exist or be empty. Writes
#                                             <case>.model, <case>.metrics, SHA256SUMS,
#                                             commands.txt (every command, run in OUTDIR),
#                                             data/ (the inputs, with data/SHA256SUMS) and
#                                             work/ (logs, checkpoints; not compared).
#   bench/equivalence.sh --compare DIR_A DIR_B
#                                             print each case whose model or metrics differ;
#                                             exit 1 if any differ, 0 if all are equal. Also
#                                             checks that both ran the same commands and data.
#
# Before and after a refactor:
#   git checkout OLD && cmake --build build && cp build/parsgd /tmp/parsgd-old
#   bench/equivalence.sh /tmp/parsgd-old /tmp/eq-old
#   git checkout NEW && cmake --build build
#   bench/equivalence.sh build/parsgd /tmp/eq-new
#   bench/equivalence.sh --compare /tmp/eq-old /tmp/eq-new
# Run both on the same machine: the MLP's oneDNN kernels (and the compiler's vector code) depend
# on the CPU, so the bytes are only comparable between runs on one machine (and one build
# configuration: -march=native, PARSGD_OFFLOAD).
#
# Why every case repeats: sequential, sync, average and gossip run under --deterministic (which checks
# it); hogwild, locked, striped and atomic are refused by --deterministic but with one worker
# (--threads 1) there is no race; --scheme auto only where it resolves by a fixed rule (one
# thread, or --deterministic), never by the measured cache round trip. Every --threads is
# explicit (never auto, which counts cores).
set -euo pipefail

PY=/usr/bin/python3
FMNIST=/usr/share/datasets/fashion-mnist

die() { echo "equivalence.sh: $*" >&2; exit 1; }

# ---------------------------------------------------------------------------------------------
# --compare DIR_A DIR_B
# ---------------------------------------------------------------------------------------------
# A model file (io/model_file.hpp, version 3 to 7) with its settings text as a sorted set of
# lines, without its checksum (which covers the text), its version field, version 4's class-name
# count where it is 0 (a version 3 file has none), version 5's hashed-text field where it is 0
# (before it, none) and version 6's CSV record (before it, none): the models compare equal when
# every byte of the model and every line of the record of its settings are, in whatever order the
# lines are written, across the versions that added class names, hashed text and the CSV record.
CANON='
import struct, sys
b = open(sys.argv[1], "rb").read()
version = struct.unpack_from("<I", b, 8)[0]
assert b[:8] == b"\x89PSGM\r\n\x1a" and version in (3, 4, 5, 6, 7), sys.argv[1]
kind = struct.unpack_from("<I", b, 12)[0]
n = struct.unpack_from("<I", b, 20)[0]
at = 24 + (n - 1 + 8 if n > 0 else 0)
if version >= 5:
    hashed = struct.unpack_from("<I", b, at)[0]
    if hashed == 0:
        b = b[:at] + b[at + 4:]
    elif hashed == 1:
        at += 4 + 16
    else:
        at += 12 + struct.unpack_from("<I", b, at + 8)[0]
if version >= 6:  # the CSV record, set aside whole
    end = at + 4
    if struct.unpack_from("<I", b, at)[0] == 1:
        text = lambda p: p + 4 + struct.unpack_from("<I", b, p)[0]
        end = text(end + 4)
        bits = struct.unpack_from("<I", b, end)[0]
        columns = struct.unpack_from("<Q", b, end + 4)[0]
        end += 12
        for _ in range(columns):
            end = text(end)
            categorical = struct.unpack_from("<I", b, end)[0]
            end += 4
            if categorical and bits == 0:
                values = struct.unpack_from("<Q", b, end)[0]
                end += 8
                for _ in range(values):
                    end = text(end)
        end = text(end) + 4
    b = b[:at] + b[end:]
if kind == 4:
    count = struct.unpack_from("<I", b, at)[0]
    sizes = struct.unpack_from("<%dI" % count, b, at + 4)
    at += 4 + 4 * count + 4 * sizes[-1]
else:
    outputs = struct.unpack_from("<I", b, at + 8)[0]
    at += 12 + 4 * (2 if outputs == 1 else outputs)
head = b[:8] + b[12:at]
if version >= 4:
    names = struct.unpack_from("<I", b, at)[0]
    start = at
    at += 4
    for _ in range(names):
        at += 4 + struct.unpack_from("<I", b, at)[0]
    if names > 0:
        head += b[start:at]
if version >= 7 and kind != 4:  # the targets and loss width of a linear model, compared
    head += b[at:at + 8]
    at += 8
length = struct.unpack_from("<I", b, at)[0]
text = b[at + 4:at + 4 + length].decode()
lines = "\n".join(sorted(l for l in text.split("\n") if l)).encode()
sys.stdout.buffer.write(head + lines + b"\0" + b[at + 4 + length:-8])
'

# The cases' commands of an output dir, the binary's path written BIN.
commands_of() {
  local bin
  bin=$(sed -n 's/^# binary: //p' "$1/commands.txt")
  grep -v '^#' "$1/commands.txt" | awk -v bin="$bin" '{ for (i = 1; i <= NF; ++i) if ($i == bin) $i = "BIN"; print }'
}

compare() {
  local a=$1 b=$2 name n=0 m=0 what
  [[ -f $a/commands.txt && -f $a/SHA256SUMS ]] || die "$a: not an equivalence.sh output dir"
  [[ -f $b/commands.txt && -f $b/SHA256SUMS ]] || die "$b: not an equivalence.sh output dir"
  local bad=0
  # The same list of commands (the binary's path aside) and the same input data.
  if ! cmp -s <(commands_of "$a") <(commands_of "$b"); then
    echo "commands differ (not the same case list: different versions of this script?):"
    diff <(commands_of "$a") <(commands_of "$b") | head -20 || true
    bad=1
  fi
  if ! cmp -s "$a/data/SHA256SUMS" "$b/data/SHA256SUMS"; then
    echo "input data differ (parsgd gen or the Fashion-MNIST slice):"
    diff "$a/data/SHA256SUMS" "$b/data/SHA256SUMS" || true
    bad=1
  fi
  # Cases: the union of both lists, in A's order then B's extras.
  local cases
  cases=$( { grep -v '^#' "$a/commands.txt" | awk '$1 !~ /^data:/ { print $1 }';
             grep -v '^#' "$b/commands.txt" | awk '$1 !~ /^data:/ { print $1 }'; } | awk '!seen[$0]++')
  for name in $cases; do
    n=$((n + 1))
    what=""
    for ext in model metrics; do
      if [[ ! -f $a/$name.$ext ]]; then what+=" $ext(missing in A)"
      elif [[ ! -f $b/$name.$ext ]]; then what+=" $ext(missing in B)"
      elif [[ $ext == model ]]; then
        # A file the canonical form cannot read differs (never two failures alike).
        if ! "$PY" -c "$CANON" "$a/$name.model" > "$a/work/$name.canon" ||
           ! "$PY" -c "$CANON" "$b/$name.model" > "$b/work/$name.canon"; then
          what+=" $ext(unreadable)"
        elif ! cmp -s "$a/work/$name.canon" "$b/work/$name.canon"; then
          what+=" $ext"
        fi
      elif ! cmp -s "$a/$name.$ext" "$b/$name.$ext"; then what+=" $ext"
      fi
    done
    if [[ -n $what ]]; then
      m=$((m + 1))
      echo "DIFFER $name:$what"
      if [[ $what == *metrics* && -f $a/$name.metrics && -f $b/$name.metrics ]]; then
        diff "$a/$name.metrics" "$b/$name.metrics" | head -4 | cut -c1-300 | sed 's/^/    /' || true
      fi
    fi
  done
  echo "$n cases, $m differ"
  [[ $m -eq 0 && $bad -eq 0 ]]
}

if [[ ${1:-} == --compare ]]; then
  [[ $# -eq 3 ]] || die "usage: $0 --compare DIR_A DIR_B"
  compare "$2" "$3"
  exit $?
fi

# ---------------------------------------------------------------------------------------------
# BINARY OUTDIR: run the cases
# ---------------------------------------------------------------------------------------------
[[ $# -eq 2 ]] || die "usage: $0 BINARY OUTDIR   |   $0 --compare DIR_A DIR_B"
BIN=$(realpath "$1")
OUT=$2
[[ -x $BIN ]] || die "$1: not an executable"
[[ -x $PY ]] || die "$PY not found (the metrics are canonicalised with Debian's python3)"
if [[ -e $OUT ]]; then
  [[ -d $OUT ]] || die "$OUT exists and is not a directory"
  [[ -z $(ls -A "$OUT") ]] || die "$OUT exists and is not empty; give a new directory"
fi
mkdir -p "$OUT/data" "$OUT/work"
OUT=$(realpath "$OUT")
cd "$OUT"   # every command below uses paths relative to OUTDIR, so the commands are the same text

{
  echo "# bench/equivalence.sh run: each line is CASE COMMAND, run in OUTDIR (paths are relative)"
  echo "# binary: $BIN"
} > commands.txt

record() {  # record NAME ARGS...: append the command (shell-quoted) to commands.txt
  local name=$1; shift
  { printf '%s' "$name"; printf ' %q' "$@"; printf '\n'; } >> commands.txt
}

# Strip the wall-clock keys of a metrics file (JSON Lines) and write it canonically. The keys are
# those of parsgd's metrics (train_seconds, eval_seconds, elapsed_seconds, samples_per_second)
# and, so that a new timing field cannot break the comparison, any key naming a time or a rate
# per unit of time; learning_rate is kept.
STRIP='
import json, re, sys
timing = re.compile(r"(second|seconds|_time|time_|^time$|elapsed|clock|wall|per_s|throughput|_ns$|_us$|_ms$)")
out = []
for line in open(sys.argv[1]):
    if not line.strip():
        continue
    obj = json.loads(line)
    out.append(json.dumps({k: v for k, v in obj.items() if not timing.search(k)},
                          sort_keys=True, separators=(",", ":")))
if not out:
    sys.exit(sys.argv[1] + ": no metrics written")
open(sys.argv[2], "w").write("\n".join(out) + "\n")
'

NCASES=0
LAUNCH=()  # a launcher before the binary (mpirun for the ranks' cases)
# run NAME ARGS...: one case, `parsgd train ARGS --save NAME.model --metrics ...`.
run() {
  local name=$1; shift
  local cmd=("${LAUNCH[@]}" "$BIN" train "$@" --save "$name.model" --metrics "work/$name.jsonl")
  record "$name" "${cmd[@]}"
  if ! "${cmd[@]}" > "work/$name.log" 2>&1; then
    tail -5 "work/$name.log" >&2
    die "case $name failed (log: $OUT/work/$name.log)"
  fi
  "$PY" -c "$STRIP" "work/$name.jsonl" "$name.metrics" || die "case $name: bad metrics"
  NCASES=$((NCASES + 1))
}

# ----- data -----------------------------------------------------------------------------------
# lin: RCV1-shaped binary problem, 5000 rows x 2000 features, ~20 nonzeros a row; the first 4000
# rows train, the last 1000 test (one gen call: a second seed would draw another hidden weight).
echo "data ..."
record data:gen "$BIN" gen work/lin.svm --rows 5000 --features 2000 --nnz 20 --seed 7 --threads 1
"$BIN" gen work/lin.svm --rows 5000 --features 2000 --nnz 20 --seed 7 --threads 1 \
  > work/gen.log 2>&1 || { cat work/gen.log >&2; die "data: parsgd gen failed"; }
head -n 4000 work/lin.svm > data/lin.train.svm
tail -n 1000 work/lin.svm > data/lin.test.svm
rm work/lin.svm
# fm: Fashion-MNIST, the first 2000 training and the first 500 test images, as raw IDX.
for f in train-images-idx3 train-labels-idx1 t10k-images-idx3 t10k-labels-idx1; do
  [[ -f $FMNIST/$f-ubyte.gz ]] || die "$FMNIST/$f-ubyte.gz missing (apt-get install dataset-fashion-mnist)"
done
echo "data:fmnist $PY (the script's slicer below): the first 2000 train and 500 t10k images and labels of $FMNIST, as raw IDX in data/fm.{train,test}-{images,labels}" >> commands.txt
"$PY" - "$FMNIST" data <<'EOF' || die "data: Fashion-MNIST slice failed"
import gzip, struct, sys
src, dst = sys.argv[1], sys.argv[2]
def idx_slice(path, out, n):
    raw = gzip.open(path).read()
    magic, count = struct.unpack(">II", raw[:8])
    dims = magic & 0xFF
    shape = struct.unpack(">" + "I" * (dims - 1), raw[8:4 + 4 * dims])
    item = 1
    for d in shape:
        item *= d
    head = 4 + 4 * dims
    assert count >= n
    open(out, "wb").write(struct.pack(">II", magic, n) + raw[8:head] + raw[head:head + n * item])
for split, n in (("train", 2000), ("t10k", 500)):
    tag = "train" if split == "train" else "test"
    idx_slice(f"{src}/{split}-images-idx3-ubyte.gz", f"{dst}/fm.{tag}-images", n)
    idx_slice(f"{src}/{split}-labels-idx1-ubyte.gz", f"{dst}/fm.{tag}-labels", n)
EOF
(cd data && sha256sum lin.train.svm lin.test.svm fm.train-images fm.train-labels \
   fm.test-images fm.test-labels > SHA256SUMS)

LIN=(--train data/lin.train.svm --test data/lin.test.svm)
# shellcheck disable=SC2054  # IMAGES,LABELS is one argument
FM=(--train data/fm.train-images,data/fm.train-labels --test data/fm.test-images,data/fm.test-labels)
DET=(--deterministic)

echo "cases ..."
# ----- 1. sequential (per sample and minibatch), deterministic --------------------------------
run seq-logistic-sgd-global       "${LIN[@]}" "${DET[@]}" --scheme sequential --model logistic --optimizer sgd --order global --epochs 3 --threads 1 --seed 1
run seq-hinge-momentum-local      "${LIN[@]}" "${DET[@]}" --scheme sequential --model hinge --optimizer momentum --order local --epochs 2 --threads 1 --seed 2 --learning-rate 0.05
run seq-squared-nesterov-random   "${LIN[@]}" "${DET[@]}" --scheme sequential --model squared --optimizer nesterov --order random --epochs 2 --threads 1 --seed 3 --learning-rate 0.02 --schedule invtime
run seq-logistic-adagrad-seqorder "${LIN[@]}" "${DET[@]}" --scheme sequential --model logistic --optimizer adagrad --order sequential --epochs 2 --threads 1 --normalize none
run seq-logistic-adam-constant    "${LIN[@]}" "${DET[@]}" --scheme sequential --model logistic --optimizer adam --epochs 2 --threads 1 --learning-rate 0.01 --schedule constant
run seq-hinge-rmsprop-geometric   "${LIN[@]}" "${DET[@]}" --scheme sequential --model hinge --optimizer rmsprop --epochs 3 --threads 1 --learning-rate 0.01 --schedule geometric --decay 0.8
run seq-logistic-sgd-2threads     "${LIN[@]}" "${DET[@]}" --scheme sequential --model logistic --optimizer sgd --epochs 2 --threads 2 --l2 0.001
run seqb8-logistic-sgd            "${LIN[@]}" "${DET[@]}" --scheme sequential --batch 8 --model logistic --optimizer sgd --epochs 3 --threads 1
run seqb8-squared-adam-random     "${LIN[@]}" "${DET[@]}" --scheme sequential --batch 8 --model squared --optimizer adam --order random --epochs 2 --threads 1 --learning-rate 0.01
run seq-softmax-sgd-sparse        "${LIN[@]}" "${DET[@]}" --scheme sequential --model softmax --optimizer sgd --epochs 2 --threads 1
run seq-softmax-momentum-fmnist   "${FM[@]}"  "${DET[@]}" --scheme sequential --model softmax --optimizer momentum --epochs 2 --threads 1 --order local
run seqb8-softmax-adagrad-fmnist  "${FM[@]}"  "${DET[@]}" --scheme sequential --batch 8 --model softmax --optimizer adagrad --epochs 2 --threads 1 --normalize none --learning-rate 0.05

# ----- sync (threads 2), deterministic --------------------------------------------------------
run sync-logistic-sgd             "${LIN[@]}" "${DET[@]}" --scheme sync --threads 2 --batch 64 --model logistic --optimizer sgd --epochs 3
run sync-hinge-momentum-local     "${LIN[@]}" "${DET[@]}" --scheme sync --threads 2 --batch 32 --model hinge --optimizer momentum --order local --epochs 2 --learning-rate 0.1
run sync-squared-adam-geometric   "${LIN[@]}" "${DET[@]}" --scheme sync --threads 2 --batch 16 --model squared --optimizer adam --order random --epochs 2 --learning-rate 0.01 --schedule geometric
run sync-logistic-nesterov-none   "${LIN[@]}" "${DET[@]}" --scheme sync --threads 2 --batch 64 --model logistic --optimizer nesterov --order sequential --epochs 2 --normalize none --learning-rate 0.5
run sync-softmax-adam-fmnist      "${FM[@]}"  "${DET[@]}" --scheme sync --threads 2 --batch 32 --model softmax --optimizer adam --epochs 2 --learning-rate 0.001

# ----- average (threads 2), deterministic ------------------------------------------------------
run avg-logistic-sgd-p4           "${LIN[@]}" "${DET[@]}" --scheme average --threads 2 --period 4 --batch 16 --model logistic --optimizer sgd --epochs 3
run avg-logistic-momentum-state   "${LIN[@]}" "${DET[@]}" --scheme average --threads 2 --period 4 --batch 16 --model logistic --optimizer momentum --average-state --epochs 2 --learning-rate 0.05
run avg-hinge-adam-state-local    "${LIN[@]}" "${DET[@]}" --scheme average --threads 2 --period 2 --batch 8 --model hinge --optimizer adam --average-state --order local --epochs 2 --learning-rate 0.01
run avg-squared-adagrad-epoch     "${LIN[@]}" "${DET[@]}" --scheme average --threads 2 --period epoch --model squared --optimizer adagrad --order random --epochs 2 --schedule invtime
run avg-softmax-sgd-fmnist        "${FM[@]}"  "${DET[@]}" --scheme average --threads 2 --period 5 --model softmax --optimizer sgd --epochs 2 --order sequential
# gossip and the outer optimiser (added after the replica schemes were written once: no "before")
run gossip-logistic-momentum      "${LIN[@]}" "${DET[@]}" --scheme gossip --threads 2 --period 4 --batch 16 --model logistic --optimizer momentum --epochs 2 --learning-rate 0.05
run gossip-softmax-sgd-b1         "${LIN[@]}" "${DET[@]}" --scheme gossip --threads 2 --period 50 --batch 1 --model softmax --optimizer sgd --epochs 2
run avg-outer-momentum            "${LIN[@]}" "${DET[@]}" --scheme average --threads 2 --period 4 --batch 16 --model logistic --optimizer sgd --outer-optimizer momentum --epochs 2

# ----- 2. the MLP (Fashion-MNIST slice), both dense backends ----------------------------------
run mlp-seq-onednn                "${FM[@]}" "${DET[@]}" --model mlp --hidden 32 --mlp-backend onednn --scheme sequential --threads 1 --epochs 2
run mlp-seq-reference             "${FM[@]}" "${DET[@]}" --model mlp --hidden 32 --mlp-backend reference --scheme sequential --threads 1 --epochs 2
run mlp-seqb16-onednn-adam        "${FM[@]}" "${DET[@]}" --model mlp --hidden 64,32 --mlp-backend onednn --scheme sequential --batch 16 --optimizer adam --threads 1 --epochs 2 --learning-rate 0.001 --order random
run mlp-sync-onednn               "${FM[@]}" "${DET[@]}" --model mlp --hidden 32 --mlp-backend onednn --scheme sync --threads 2 --batch 32 --epochs 2
run mlp-sync-reference-nesterov   "${FM[@]}" "${DET[@]}" --model mlp --hidden 32 --mlp-backend reference --scheme sync --threads 2 --batch 32 --optimizer nesterov --epochs 2 --schedule constant --learning-rate 0.01
run mlp-avg-onednn                "${FM[@]}" "${DET[@]}" --model mlp --hidden 64,32 --mlp-backend onednn --scheme average --threads 2 --period 5 --batch 16 --epochs 2
run mlp-avg-reference-state       "${FM[@]}" "${DET[@]}" --model mlp --hidden 32 --mlp-backend reference --scheme average --threads 2 --period 3 --batch 16 --average-state --epochs 2 --order local
run mlp-avg-onednn-sgd-none       "${FM[@]}" "${DET[@]}" --model mlp --hidden 32 --mlp-backend onednn --scheme average --threads 2 --period epoch --batch 32 --optimizer sgd --normalize none --epochs 2 --learning-rate 0.05
run mlp-gossip-state              "${FM[@]}" "${DET[@]}" --model mlp --hidden 32 --mlp-backend onednn --scheme gossip --threads 2 --period 5 --batch 16 --average-state --epochs 2
run mlp-avg-outer-nesterov        "${FM[@]}" "${DET[@]}" --model mlp --hidden 32 --mlp-backend onednn --scheme average --threads 2 --period 5 --batch 16 --outer-optimizer nesterov --outer-learning-rate 0.7 --outer-momentum 0.9 --epochs 2

# ----- 3. asynchronous schemes at one worker (no race; --deterministic refuses them) -----------
run hogwild-t1-logistic-sgd       "${LIN[@]}" --scheme hogwild --threads 1 --model logistic --optimizer sgd --epochs 2
run locked-t1-hinge-momentum      "${LIN[@]}" --scheme locked  --threads 1 --model hinge --optimizer momentum --epochs 2 --learning-rate 0.05 --order local
run striped-t1-logistic-adagrad   "${LIN[@]}" --scheme striped --threads 1 --model logistic --optimizer adagrad --epochs 2 --order random
run atomic-t1-squared-adam        "${LIN[@]}" --scheme atomic  --threads 1 --model squared --optimizer adam --epochs 2 --learning-rate 0.01
run hogwild-t1-softmax-fmnist     "${FM[@]}"  --scheme hogwild --threads 1 --model softmax --optimizer sgd --epochs 2
run mlp-hogwild-t1-onednn         "${FM[@]}" --model mlp --hidden 32 --mlp-backend onednn    --scheme hogwild --threads 1 --epochs 2
run mlp-atomic-t1-reference       "${FM[@]}" --model mlp --hidden 32 --mlp-backend reference --scheme atomic  --threads 1 --epochs 2
run mlp-locked-t1-onednn          "${FM[@]}" --model mlp --hidden 32 --mlp-backend onednn    --scheme locked  --threads 1 --epochs 2 --optimizer adam --learning-rate 0.001

# ----- 6. --scheme auto where a fixed rule decides ----------------------------------------------
run auto-t1-logistic              "${LIN[@]}" --scheme auto --threads 1 --model logistic --epochs 2
run auto-det-t2-hinge             "${LIN[@]}" "${DET[@]}" --scheme auto --threads 2 --model hinge --epochs 2
run auto-det-t2-mlp               "${FM[@]}"  "${DET[@]}" --scheme auto --threads 2 --model mlp --hidden 32 --epochs 2

# ----- 4. offload backend (host fallback here) ---------------------------------------------------
if "$BIN" device 2>&1 | grep -q '^backend offload: *\(host-fallback\|gpu\|GPU\)'; then
  "$BIN" device > work/device.txt 2>&1 || true
  run offload-seq-logistic        "${LIN[@]}" "${DET[@]}" --backend offload --scheme sequential --threads 1 --model logistic --epochs 2
  run offload-hogwild-t1-logistic "${LIN[@]}" --backend offload --scheme hogwild --threads 1 --model logistic --epochs 2
  run offload-atomic-t1-hinge     "${LIN[@]}" --backend offload --scheme atomic  --threads 1 --model hinge --optimizer momentum --epochs 2 --learning-rate 0.05
  run offload-sync-logistic       "${LIN[@]}" "${DET[@]}" --backend offload --scheme sync --threads 1 --batch 64 --model logistic --epochs 2
  run offload-sync-t2-squared     "${LIN[@]}" "${DET[@]}" --backend offload --scheme sync --threads 2 --batch 64 --model squared --optimizer adagrad --epochs 2
else
  echo "offload backend not built (parsgd device): skipping the offload cases"
  echo "# offload cases skipped: parsgd device reports no offload backend" >> commands.txt
fi

# ----- 7. the MLP's model partitions (threads 2), deterministic -----------------------------------
run mlp-pipeline-onednn           "${FM[@]}" "${DET[@]}" --model mlp --hidden 64,32 --mlp-backend onednn --scheme pipeline --threads 2 --batch 32 --epochs 2
run mlp-pipeline-ref-micro        "${FM[@]}" "${DET[@]}" --model mlp --hidden 32 --mlp-backend reference --scheme pipeline --threads 2 --batch 16 --micro-batches 2 --optimizer adam --learning-rate 0.001 --epochs 2
run mlp-vertical-onednn           "${FM[@]}" "${DET[@]}" --model mlp --hidden 64,32 --mlp-backend onednn --scheme vertical --threads 2 --batch 32 --epochs 2
run mlp-vertical-ref-nesterov     "${FM[@]}" "${DET[@]}" --model mlp --hidden 32 --mlp-backend reference --scheme vertical --threads 2 --batch 16 --optimizer nesterov --epochs 2 --order local
run mlp-subnet-onednn             "${FM[@]}" "${DET[@]}" --model mlp --hidden 64,32 --mlp-backend onednn --scheme subnet --threads 2 --batch 16 --period 4 --epochs 2
run mlp-subnet-ref-skeleton       "${FM[@]}" "${DET[@]}" --model mlp --hidden 32 --mlp-backend reference --scheme subnet --threads 2 --batch 16 --skeleton-ratio 0.5 --period epoch --epochs 2
run mlp-subnet-t1                 "${FM[@]}" "${DET[@]}" --model mlp --hidden 32 --scheme subnet --threads 1 --batch 16 --epochs 2

# ----- 8. the coordinate-descent solvers --------------------------------------------------------
run cd-seq-logistic-bias          "${LIN[@]}" "${DET[@]}" --solver cd --scheme sequential --threads 1 --model logistic --epochs 4
run cd-seq-squared-nobias         "${LIN[@]}" "${DET[@]}" --solver cd --scheme sequential --threads 1 --model squared --bias off --epochs 3
run cd-seq-sqhinge-bias           "${LIN[@]}" "${DET[@]}" --solver cd --scheme sequential --threads 1 --model squared-hinge --epochs 3 --l2 0.001
run cd-avg-logistic-t2            "${LIN[@]}" "${DET[@]}" --solver cd --scheme average --threads 2 --model logistic --epochs 3
run cd-avg-squared-nobias-t2      "${LIN[@]}" "${DET[@]}" --solver cd --scheme average --threads 2 --model squared --bias off --epochs 3
run cd-hogwild-t1-sqhinge-nobias  "${LIN[@]}" --solver cd --scheme hogwild --threads 1 --model squared-hinge --bias off --epochs 3
run cd-atomic-t1-logistic         "${LIN[@]}" --solver cd --scheme atomic --threads 1 --model logistic --epochs 3 --tol none
run cd-auto-det-t2                "${LIN[@]}" "${DET[@]}" --solver cd --threads 2 --model logistic --epochs 3
run dual-seq-hinge                "${LIN[@]}" "${DET[@]}" --solver dual-cd --bias off --scheme sequential --threads 1 --model hinge --epochs 5
run dual-seq-hinge-noshrink       "${LIN[@]}" "${DET[@]}" --solver dual-cd --bias off --scheme sequential --threads 1 --model hinge --shrinking off --epochs 5 --order random
run dual-seq-sqhinge              "${LIN[@]}" "${DET[@]}" --solver dual-cd --bias off --scheme sequential --threads 1 --model squared-hinge --epochs 5
run dual-seq-logistic             "${LIN[@]}" "${DET[@]}" --solver dual-cd --bias off --scheme sequential --threads 1 --model logistic --epochs 4 --order local
run dual-hogwild-t1-logistic      "${LIN[@]}" --solver dual-cd --bias off --scheme hogwild --threads 1 --model logistic --epochs 3
run dual-locked-t1-hinge          "${LIN[@]}" --solver dual-cd --bias off --scheme locked --threads 1 --model hinge --epochs 3
run dual-striped-t1-sqhinge       "${LIN[@]}" --solver dual-cd --bias off --scheme striped --threads 1 --model squared-hinge --epochs 3
run dual-atomic-t1-hinge          "${LIN[@]}" --solver dual-cd --bias off --scheme atomic --threads 1 --model hinge --epochs 3 --tol none

# ----- 10. elastic averaging (added after the scheme table: no "before") ------------------------
run elastic-logistic-sgd-p4       "${LIN[@]}" "${DET[@]}" --scheme elastic --threads 2 --period 4 --batch 16 --model logistic --optimizer sgd --epochs 3
run elastic-softmax-adam-b1       "${LIN[@]}" "${DET[@]}" --scheme elastic --threads 2 --period 50 --batch 1 --model softmax --optimizer adam --learning-rate 0.01 --elastic-alpha 0.3 --epochs 2
run elastic-mlp-momentum          "${FM[@]}"  "${DET[@]}" --scheme elastic --threads 2 --period 5 --batch 16 --model mlp --hidden 32 --epochs 2

# ----- 9. ranks (mpirun -np 2, one thread a rank) ------------------------------------------------
MPIRUN=$(command -v mpirun || true)
# Built with MPI: its plugin beside the program.
if [[ -n $MPIRUN ]] && [[ -e "$(dirname "$BIN")/libparsgd_mpi.so" ]]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1 \
         OMPI_MCA_btl_vader_single_copy_mechanism=none
  LAUNCH=("$MPIRUN" -np 2)
  run ranks2-avg-logistic         "${LIN[@]}" "${DET[@]}" --ranks-scheme average --scheme sequential --threads 1 --model logistic --epochs 2
  run ranks2-avg-state-momentum   "${LIN[@]}" "${DET[@]}" --ranks-scheme average --ranks-period 200 --average-state --scheme sequential --threads 1 --model hinge --optimizer momentum --learning-rate 0.05 --epochs 2
  run ranks2-avg-outer-nesterov   "${LIN[@]}" "${DET[@]}" --ranks-scheme average --ranks-period 300 --outer-optimizer nesterov --outer-learning-rate 0.7 --scheme sequential --threads 1 --model logistic --epochs 2
  run ranks2-gossip-softmax       "${LIN[@]}" "${DET[@]}" --ranks-scheme gossip --ranks-period 250 --scheme sequential --threads 1 --model softmax --epochs 2
  run ranks2-sync-hinge-adam       "${LIN[@]}" "${DET[@]}" --ranks-scheme sync --batch 32 --threads 1 --model hinge --optimizer adam --learning-rate 0.01 --epochs 2
  run ranks2-sync-mlp             "${FM[@]}"  "${DET[@]}" --ranks-scheme sync --batch 32 --threads 1 --model mlp --hidden 32 --epochs 2
  run ranks2-avg-replicas-t2      "${LIN[@]}" "${DET[@]}" --ranks-scheme average --scheme average --threads 2 --period 4 --batch 16 --model logistic --epochs 2
  run ranks2-avg-elastic-t2        "${LIN[@]}" "${DET[@]}" --ranks-scheme average --scheme elastic --threads 2 --period 4 --batch 16 --model logistic --epochs 2
  run ranks2-gossip-mlp-avg       "${FM[@]}"  "${DET[@]}" --ranks-scheme gossip --scheme average --threads 1 --period 5 --batch 16 --model mlp --hidden 32 --epochs 2
  LAUNCH=()
else
  echo "mpirun or the binary's MPI support missing: skipping the ranks' cases"
  echo "# ranks cases skipped: no mpirun, or a binary built without MPI" >> commands.txt
fi

# ----- 5. checkpoint + resume, and --init --------------------------------------------------------
# NAME-ck2: 2 epochs with --checkpoint; NAME-resume4: the same command with --resume --epochs 4;
# NAME-straight4: 4 epochs in one run (with the default linear schedule the resumed run is
# re-planned, so it differs from the straight run; with constant/invtime/geometric it equals it).
resume_triple() {
  local name=$1; shift
  run "$name-ck2"       "$@" --epochs 2 --checkpoint "work/$name.ckpt"
  run "$name-resume4"   "$@" --epochs 4 --resume "work/$name.ckpt"
  run "$name-straight4" "$@" --epochs 4
}
resume_triple ck-seq-logistic    "${LIN[@]}" "${DET[@]}" --scheme sequential --threads 1 --model logistic --optimizer momentum --learning-rate 0.05
resume_triple ck-avg-hinge       "${LIN[@]}" "${DET[@]}" --scheme average --threads 2 --period 4 --batch 16 --model hinge --optimizer adam --learning-rate 0.01 --schedule invtime
resume_triple ck-avg-mlp         "${FM[@]}"  "${DET[@]}" --scheme average --threads 2 --period 5 --batch 16 --model mlp --hidden 32 --average-state
resume_triple ck-gossip-mlp      "${FM[@]}"  "${DET[@]}" --scheme gossip --threads 2 --period 5 --batch 16 --model mlp --hidden 32
resume_triple ck-elastic-mlp     "${FM[@]}"  "${DET[@]}" --scheme elastic --threads 2 --period 5 --batch 16 --model mlp --hidden 32
resume_triple ck-avg-outer       "${LIN[@]}" "${DET[@]}" --scheme average --threads 2 --period 4 --batch 16 --model logistic --outer-optimizer momentum
# --init: 2 more epochs from a saved model (plain sgd, constant step, sequential order).
run init-from-seq-logistic        "${LIN[@]}" "${DET[@]}" --scheme sequential --threads 1 --model logistic --optimizer sgd --order sequential --schedule constant --learning-rate 0.1 --epochs 2 --init seq-logistic-sgd-global.model
run init-from-mlp-seq             "${FM[@]}"  "${DET[@]}" --scheme sequential --threads 1 --model mlp --hidden 32 --epochs 1 --init mlp-seq-onednn.model

# ----- sums -------------------------------------------------------------------------------------
sha256sum ./*.model ./*.metrics | sed 's| \./| |' > SHA256SUMS
echo "$NCASES cases written to $OUT (SHA256SUMS, commands.txt)"
