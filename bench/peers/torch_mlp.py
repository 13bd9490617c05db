#!/usr/bin/env python3
"""PyTorch on parsgd's MLP comparison configuration, for parsgd's MLP to be measured against.

Fashion-MNIST (Debian's dataset-fashion-mnist IDX files), pixels / 255, 784-256-128-10 with ReLU,
cross-entropy, SGD with momentum 0.9 and learning rate 0.05, batch 64, reshuffled every epoch.
Modes: one process with --threads intra-op threads, or PyTorch's Hogwild! example shape: --hogwild N
processes of one thread each on a shared model (torch.multiprocessing, share_memory()).
--compile: the model through torch.compile (PyTorch 2's inductor: fused C++ kernels for the
pointwise work around the matrix products); --fused: the optimiser's fused step (one kernel for
all parameters, PyTorch 2.4 and later on the CPU).
Prints one JSON object per epoch (epoch, train_seconds, test_accuracy) and which BLAS is loaded.
PyPI's torch (bench/peers/setup.sh) carries MKL and oneDNN; Debian's torch reaches BLAS through
libblas.so.3 (with libopenblas0-pthread installed, OpenBLAS); /proc/self/maps tells which.

usage: bench/peers/venv/bin/python bench/peers/torch_mlp.py [--epochs 5] [--threads 2]
           [--hogwild 0] [--compile] [--fused]
"""
import argparse
import gzip
import json
import os
import time

import numpy as np
import torch
import torch.multiprocessing as mp
import torch.nn as nn

DATA = "/usr/share/datasets/fashion-mnist"


def read_idx(name):
    with gzip.open(os.path.join(DATA, name), "rb") as f:
        raw = f.read()
    dims = raw[3]
    shape = [int.from_bytes(raw[4 + 4 * i:8 + 4 * i], "big") for i in range(dims)]
    return np.frombuffer(raw, dtype=np.uint8, offset=4 + 4 * dims).reshape(shape)


def load():
    x = torch.from_numpy(read_idx("train-images-idx3-ubyte.gz").reshape(-1, 784).astype(np.float32) / 255)
    y = torch.from_numpy(read_idx("train-labels-idx1-ubyte.gz").astype(np.int64))
    tx = torch.from_numpy(read_idx("t10k-images-idx3-ubyte.gz").reshape(-1, 784).astype(np.float32) / 255)
    ty = torch.from_numpy(read_idx("t10k-labels-idx1-ubyte.gz").astype(np.int64))
    return x, y, tx, ty


def make_model(seed):
    torch.manual_seed(seed)
    return nn.Sequential(nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 128), nn.ReLU(),
                         nn.Linear(128, 10))


def train_epoch(model, opt, x, y, batch, generator):
    loss_fn = nn.CrossEntropyLoss()
    perm = torch.randperm(x.shape[0], generator=generator)
    for i in range(0, x.shape[0], batch):
        idx = perm[i:i + batch]
        opt.zero_grad()
        loss_fn(model(x[idx]), y[idx]).backward()
        opt.step()


def accuracy(model, tx, ty):
    with torch.no_grad():
        return (model(tx).argmax(1) == ty).float().mean().item()


def hogwild_worker(rank, model, x, y, epochs, batch, barrier, seed):
    torch.set_num_threads(1)
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    g = torch.Generator().manual_seed(seed + rank)
    shard = slice(rank, None, barrier.parties - 1)
    for _ in range(epochs):
        barrier.wait()
        train_epoch(model, opt, x[shard], y[shard], batch, g)
        barrier.wait()


def blas():
    """The BLAS torch's matrix products call: the one it was built with (PyPI's: MKL, linked in);
    for a build on the system's libblas (Debian's), the library the alternatives system loaded
    (numpy's own OpenBLAS, which numpy 2's wheels carry, does not count)."""
    import re
    built = re.findall(r"BLAS_INFO=([^,\s]+)", torch.__config__.show())
    if built and built[0] not in ("generic", "blas", "open"):
        return built[0].upper() if built[0] == "mkl" else built[0]
    with open("/proc/self/maps") as f:
        maps = [line for line in f.read().splitlines() if "scipy_openblas" not in line]
    for name in ("openblas", "libmkl", "blas/libblas"):
        if any(name in line for line in maps):
            return name
    return "unknown"


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--epochs", type=int, default=5)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--hogwild", type=int, default=0, help="processes (0: one process)")
    p.add_argument("--batch", type=int, default=64)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--compile", action="store_true", help="torch.compile the model")
    p.add_argument("--fused", action="store_true", help="the optimiser's fused step")
    a = p.parse_args()
    x, y, tx, ty = load()
    model = make_model(a.seed)
    mode = f"hogwild {a.hogwild} processes x 1 thread" if a.hogwild else f"1 process x {a.threads} threads"
    if a.compile:
        model = torch.compile(model)
        mode += ", torch.compile"
    if a.fused:
        mode += ", fused SGD"
    print(json.dumps({"torch": torch.__version__, "blas": blas(), "mode": mode}), flush=True)
    if a.hogwild:
        model.share_memory()
        barrier = mp.Barrier(a.hogwild + 1)
        procs = [mp.Process(target=hogwild_worker, args=(r, model, x, y, a.epochs, a.batch, barrier, a.seed))
                 for r in range(a.hogwild)]
        for proc in procs:
            proc.start()
        torch.set_num_threads(a.threads)
        for e in range(a.epochs):
            barrier.wait()
            start = time.perf_counter()
            barrier.wait()
            seconds = time.perf_counter() - start
            print(json.dumps({"epoch": e + 1, "train_seconds": seconds,
                              "test_accuracy": accuracy(model, tx, ty)}), flush=True)
        for proc in procs:
            proc.join()
        return
    torch.set_num_threads(a.threads)
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9,
                          **({"fused": True} if a.fused else {}))
    g = torch.Generator().manual_seed(a.seed)
    for e in range(a.epochs):
        start = time.perf_counter()
        train_epoch(model, opt, x, y, a.batch, g)
        seconds = time.perf_counter() - start
        print(json.dumps({"epoch": e + 1, "train_seconds": seconds,
                          "test_accuracy": accuracy(model, tx, ty)}), flush=True)


if __name__ == "__main__":
    main()
