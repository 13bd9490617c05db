#!/usr/bin/env python3
"""parsgd's MLP next to PyTorch on the same configuration, one program at a time, in one run.

Fashion-MNIST, 784-256-128-10 ReLU, softmax cross-entropy, SGD with momentum 0.9, learning rate
0.05, batch 64, 5 epochs. PyTorch (each --python given: by default bench/peers/venv's, today's
release from PyPI with MKL and oneDNN; /usr/bin/python3 too if Debian's python3-torch is there)
runs as one process with 1 and 2 threads, each also with torch.compile and the fused optimiser
step, and as 2 Hogwild! processes of one thread; parsgd runs the same configuration (constant step, no input scaling)
under each scheme at 2 threads, and with its defaults (scheme auto: average; linear decay, max-abs
input scaling). The table: median epoch time over epochs 2-5, test accuracy after epoch 5, and the
epoch's rate against the FLOP bound (about 1.0 MFLOP per sample: forward, weight gradients, input
gradients of all but the first layer); then the defaults' mean epoch over PyTorch's best epoch on
up to 2 cores.

usage: bench/mlp_compare.py [--parsgd build/parsgd] [--gemm-gflops 193] [--python P,P]
  (--gemm-gflops: one core's rate, bench_mlp BM_Gemm64x784x256_OneDnn/1 on the machine)
"""
import argparse
import json
import os
import statistics
import subprocess
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = "/usr/share/datasets/fashion-mnist"
SAMPLES = 60000
FLOPS = 2 * (784 * 256 + 256 * 128 + 128 * 10) * 2 + 2 * (256 * 128 + 128 * 10)  # per sample


def torch_run(python, args):
    out = subprocess.run([python, os.path.join(HERE, "peers", "torch_mlp.py"), "--epochs", "5", *args],
                         check=True, capture_output=True, text=True).stdout
    rows = [json.loads(line) for line in out.splitlines()]
    epochs = [r for r in rows if "epoch" in r]
    return f"PyTorch {rows[0]['torch']}, {rows[0]['mode']}, {rows[0]['blas']}", epochs


def default_pythons():
    """The peers' venv (bench/peers/setup.sh), and Debian's python3 where it has torch."""
    found = []
    venv = os.path.join(HERE, "peers", "venv", "bin", "python")
    if os.path.exists(venv):
        found.append(venv)
    if subprocess.run(["/usr/bin/python3", "-c", "import torch"], capture_output=True).returncode == 0:
        found.append("/usr/bin/python3")
    return ",".join(found)


def parsgd_run(binary, args):
    with tempfile.NamedTemporaryFile(suffix=".jsonl") as m:
        env = dict(os.environ, OMP_WAIT_POLICY="passive")
        subprocess.run([binary, "train", "--train", f"{DATA}/train-images-idx3-ubyte.gz",
                        "--test", f"{DATA}/t10k-images-idx3-ubyte.gz", "--model", "mlp",
                        "--hidden", "256,128", "--epochs", "5", "--metrics", m.name, "--quiet", *args],
                       check=True, stdout=subprocess.DEVNULL, env=env)
        return [json.loads(line) for line in open(m.name)]


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--parsgd", default=os.path.join(HERE, "..", "build", "parsgd"))
    p.add_argument("--gemm-gflops", type=float, default=193,
                   help="one core's f32 matmul rate (bench_mlp BM_Gemm64x784x256_OneDnn/1)")
    p.add_argument("--python", help="the Pythons whose torch runs, comma-separated (default: "
                                     "bench/peers/venv's, and Debian's where it has torch)")
    a = p.parse_args()
    if a.python is None:
        a.python = default_pythons()
    if not a.python:
        p.error("no Python with torch: run bench/peers/setup.sh or give --python")
    same = ["--batch", "64", "--optimizer", "momentum", "--momentum", "0.9", "--learning-rate", "0.05",
            "--schedule", "constant", "--normalize", "none"]
    runs = []
    for python in a.python.split(","):
        for args in (["--threads", "1"], ["--threads", "2"], ["--threads", "1", "--compile", "--fused"],
                     ["--threads", "2", "--compile", "--fused"], ["--hogwild", "2", "--threads", "1"]):
            mode, epochs = torch_run(python, args)
            runs.append((mode, epochs, 2 if "2" in args else 1))
    for scheme in ("hogwild", "sync", "average", "sequential"):
        runs.append((f"parsgd {scheme}, 2 threads, same configuration",
                     parsgd_run(a.parsgd, same + ["--scheme", scheme, "--threads", "2"]), 2))
    runs.append(("parsgd defaults (scheme auto: average), 2 threads", parsgd_run(a.parsgd, ["--threads", "2"]), 2))
    print("| trainer | epoch seconds (median, epochs 2-5) | test accuracy after 5 epochs | share of the FLOP bound |")
    print("|---|---|---|---|")
    for name, epochs, cores in runs:
        seconds = statistics.median(e["train_seconds"] for e in epochs[1:])
        bound = SAMPLES * FLOPS / (a.gemm_gflops * 1e9 * cores)
        print(f"| {name} | {seconds:.3f} | {100 * epochs[-1]['test_accuracy']:.2f}% | {100 * bound / seconds:.0f}% |")
    best_torch = min(statistics.median(e["train_seconds"] for e in epochs[1:])
                     for name, epochs, _ in runs if name.startswith("PyTorch"))
    defaults = runs[-1][1]
    mean = statistics.mean(e["train_seconds"] for e in defaults)
    print(f"\nparsgd's defaults: mean epoch {mean:.3f} s = {mean / best_torch:.2f}x PyTorch's best "
          f"epoch on up to 2 cores ({best_torch:.3f} s)")


if __name__ == "__main__":
    main()
