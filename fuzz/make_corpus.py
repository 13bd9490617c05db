#!/usr/bin/env python3
"""Writes the seed corpus of the fuzz targets into fuzz/corpus/<target>/ (committed; rerun to
regenerate). Binary caches and model files come from the release build's `parsgd` (build/parsgd),
the rest is written here. Each target's input layout is described at the top of its .cpp file.
The model_file/*_v1 and *_v2 seeds are format version 1 files from the release before class
labels and version 2 files from the release before the CSV label column; this script does not
write them (the build writes a later version), they are kept for those versions' paths. Likewise
binary_cache/small_v1 and gen_v1_rehashed are version 1 caches (before weights, the record and the
label set).
"""
import gzip
import os
import struct
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPUS = os.path.join(ROOT, "fuzz", "corpus")
PARSGD = os.path.join(ROOT, "build", "parsgd")


def write(target, name, data):
    folder = os.path.join(CORPUS, target)
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, name), "wb") as f:
        f.write(data)


def libsvm():
    seeds = {
        "valid.svm": b"1 1:0.5 3:1\n-1 2:0.25\n+1 1:1 2:1 3:1\n",
        "classes.svm": b"0 1:1\n2 2:1\n1 3:0.5 4:-2\n",
        "features.svm": b"# comment\n+1 qid:3 1:1e-3 7:2 # tail\r\n\n\t-1\t2:+0.5\n3 \n2.5e1 1:1#c\n",
        "descending.svm": b"1 3:1 2:1\n",
        "repeated.svm": b"1 2:1 2:1\n",
        "zero_index.svm": b"1 0:1\n",
        "zero_based.svm": b"1 0:0.5 3:1\n0 2:1\n1 4294967294:1\n",
        "huge_index.svm": b"1 4294967295:1\n-1 1:1\n",
        "over_index.svm": b"1 99999999999999999999:1\n",
        "nan.svm": b"1 1:nan\n",
        "overflow.svm": b"1 1:1e39\n-1 1:1e-50\n",
        "no_label.svm": b"1:1 2:1\n",
        "no_colon.svm": b"1 5\n",
        "blank.svm": b"\n\n# only comments\n",
    }
    with open(os.path.join(ROOT, "data", "fixtures", "mixed.libsvm"), "rb") as f:
        seeds["mixed.svm"] = f.read()
    for name, data in seeds.items():
        write("libsvm", name, data)


def csv():
    seeds = {
        "header.csv": b"label,x1,x2\n1,0.5,0\n-1,0,2.5e-1\n",
        "plain.csv": b"1,0.5,0\r\n\n0,+3,1e-30\n",
        "quoted.csv": b"\xef\xbb\xbf\"y\", \"a,b\",\"c\"\"\"\n2, 1 ,\t0\n",
        "last.csv": b"a,b,y\n0.1,0.2,3\n0,0,4\n",
        "empty_field.csv": b"y,a,b\n1,,2\n",
        "bad_field.csv": b"y,a\n1,abc\n",
        "nan.csv": b"y,a\n1,nan\n",
        "too_many.csv": b"1,2\n1,2,3\n",
        "too_few.csv": b"1,2,3\n1,2\n",
        "header_only.csv": b"y,a\n",
        "unterminated.csv": b"y,\"a\n1,2\n",
    }
    for name, data in seeds.items():
        write("csv", name, data)


def fasttext():
    seeds = {
        "plain.txt": b"__label__sport the match was won\n__label__art a painting of light\n",
        "anywhere.txt": b"\xef\xbb\xbfwords first __label__x\r\n\n \t\n__label__y\tcaf\xc3\xa9 na\xc3\xafve\n",
        "two_labels.txt": b"__label__a x __label__b y\n",
        "no_label.txt": b"__label__a x\njust words\n",
        "empty_label.txt": b"__label__ x\n__label__\n",
        "blank.txt": b"\n \n\t\n",
        "bytes.txt": b"__label__\x00 \xff\xfe \x80\x80\x80 \xf0\x9f\x98\x80\n",
    }
    for name, data in seeds.items():
        write("fasttext", name, data)


def vw():
    seeds = {
        "houses.vw": b"0 | price:.23 sqft:.25 age:.05 2006\n1 2 'second_house | price:.18 sqft:.15 age:.35 1976\n",
        "base.vw": b"0 1 0.5 'third_house | price:.53 sqft:.32 age:.87 1924\n",
        "zebra.vw": b"1 1.0 zebra|MetricFeatures:3.28 height:1.5 length:2.0 |Says black with white stripes |OtherFeatures NumberOfLegs:4.0 HasStripes\n",
        "namespaces.vw": b"\xef\xbb\xbf-1 0.5 |empty |b x\r\n\n1 |\n1 'tag |a\n|a x:2 y |b z:3\n",
        "bad.vw": b"1 -2 |a x\n1 |a x:nan\n1 |a :3\n1 |a:x y\n1 2\n",
        "bytes.vw": b"1 |\x00 \xff:1e39 a:1e-45 |:: ||\n",
    }
    for name, data in seeds.items():
        write("vw", name, data)


def be32(*values):
    return b"".join(struct.pack(">I", v) for v in values)


def idx_input(flags, images, labels):
    return bytes([flags]) + struct.pack("<H", len(labels)) + images + labels


def idx():
    pixels = bytes([0, 255, 0, 51, 0, 1, 0, 0, 0, 0, 0, 0] + [128] * 6)
    images = be32(0x803, 3, 2, 3) + pixels
    labels = be32(0x801, 3) + bytes([7, 0, 9])
    write("idx", "raw", idx_input(0, images, labels))
    write("idx", "gzip_both", idx_input(3, images, labels))
    write("idx", "gzip_labels", idx_input(2, images, labels))
    write("idx", "real_gz", idx_input(0, gzip.compress(images, mtime=0), labels))
    write("idx", "absurd_size", idx_input(0, be32(0x803, 3, 1 << 31, 1 << 31) + pixels, labels))
    write("idx", "huge_count", idx_input(1, be32(0x803, 0xFFFFFFFF, 28, 28) + pixels,
                                         be32(0x801, 0xFFFFFFFF) + bytes(4)))
    write("idx", "truncated", idx_input(0, images[:-3], labels))
    write("idx", "counts_differ", idx_input(0, images, be32(0x801, 2) + bytes([1, 2])))
    write("idx", "float_type", idx_input(0, be32(0xD03, 3, 2, 3) + pixels, labels))


def run(tmp, *args):
    # Relative names: the model files record the training path, and the seeds should not vary.
    subprocess.run([PARSGD, *args], check=True, stdout=subprocess.DEVNULL, cwd=tmp)


def read(path):
    with open(path, "rb") as f:
        return f.read()


def binary_cache(tmp):
    small = os.path.join(tmp, "small.svm")
    with open(small, "wb") as f:
        f.write(b"1 1:0.5 4:-1\n-1\n3 2:2 3:1e-30 5:7\n")
    run(tmp, "convert", "small.svm", "small.bin")
    run(tmp, "gen", "gen.bin", "--rows", "40", "--features", "60", "--nnz", "5")
    for name in ("small", "gen"):
        data = read(os.path.join(tmp, name + ".bin"))
        write("binary_cache", name, b"\x00" + data)
        write("binary_cache", name + "_rehashed", b"\x03" + data)
    # Version 2's record and weights: fastText's class names and hashing, VW's importances.
    with open(os.path.join(tmp, "named.txt"), "wb") as f:
        f.write(b"__label__b two words\n__label__a one\n__label__b three\n")
    with open(os.path.join(tmp, "weighted.vw"), "wb") as f:
        f.write(b"1 2 |a x y:2\n-1 |a z\n1 0.5 |b w\n")
    run(tmp, "convert", "named.txt", "named.bin", "--hash-bits", "6")
    run(tmp, "convert", "weighted.vw", "weighted.bin", "--hash-bits", "6", "--interactions", "ab")
    # The record of a CSV table: named columns, a categorical one, a weight column.
    with open(os.path.join(tmp, "table.csv"), "wb") as f:
        f.write(b"y,colour,x,w\nyes,red,0.5,1\nno,blue,NA,2\nyes,green,1.5,1\n")
    run(tmp, "convert", "table.csv", "table.bin", "--label-column", "y", "--weight-column", "w",
        "--missing", "zero")
    for name in ("named", "weighted", "table"):
        data = read(os.path.join(tmp, name + ".bin"))
        write("binary_cache", name, b"\x00" + data)
        write("binary_cache", name + "_rehashed", b"\x03" + data)
    data = read(os.path.join(tmp, "small.bin"))
    write("binary_cache", "truncated", b"\x00" + data[:200])
    write("binary_cache", "header_only", b"\x03" + data[:128])
    write("binary_cache", "foreign", b"\x00" + b"1 1:0.5\n")


def model_file(tmp):
    train = os.path.join(tmp, "train.svm")
    with open(train, "wb") as f:
        for i in range(40):
            f.write(b"%d %d:1 %d:0.5\n" % (i % 3, 1 + i % 5, 6 + i % 2))
    binary = os.path.join(tmp, "binary.svm")
    with open(binary, "wb") as f:
        for i in range(40):
            f.write(b"%d %d:1 %d:0.5\n" % (1 if i % 2 else -1, 1 + i % 5, 6 + i % 2))
    labels12 = os.path.join(tmp, "labels12.svm")  # zero-based, labels 1/2
    with open(labels12, "wb") as f:
        for i in range(40):
            f.write(b"%d %d:1 %d:0.5\n" % (2 if i % 2 else 1, i % 5, 6 + i % 2))
    for name, data, args in (("logistic", "binary.svm", ["--model", "logistic"]),
                             ("hinge", "binary.svm", ["--model", "hinge"]),
                             ("squared_12", "labels12.svm", ["--model", "squared"]),
                             ("softmax", "train.svm", ["--model", "softmax"]),
                             ("mlp", "train.svm", ["--model", "mlp", "--hidden", "3"])):
        run(tmp, "train", "--train", data, "--epochs", "1", "--threads", "1", "--scheme",
            "sequential", *args, "--save", name + ".model")
        model = read(os.path.join(tmp, name + ".model"))
        write("model_file", name, b"\x00" + model)
        write("model_file", name + "_rehashed", b"\x01" + model)
    table = os.path.join(tmp, "table.csv")  # a CSV label column recorded in the model
    with open(table, "wb") as f:
        f.write(b"a,y,b\n")
        for i in range(40):
            f.write(b"%g,%d,%g\n" % (0.1 * (i % 7), i % 2, 0.5 * (i % 3)))
    run(tmp, "train", "--train", "table.csv", "--label-column", "y", "--epochs", "1", "--threads",
        "1", "--scheme", "sequential", "--save", "csv.model")
    model = read(os.path.join(tmp, "csv.model"))
    write("model_file", "csv", b"\x00" + model)
    write("model_file", "csv_rehashed", b"\x01" + model)
    model = read(os.path.join(tmp, "mlp.model"))
    write("model_file", "truncated", b"\x01" + model[:60])
    write("model_file", "foreign", b"\x00" + b"\x89PSGD\r\n\x1a")


def checkpoint(tmp):
    binary = os.path.join(tmp, "binary.svm")  # written by model_file()
    for name, args in (("adam", ["--scheme", "sequential", "--optimizer", "adam"]),
                       ("average", ["--scheme", "average", "--threads", "2", "--batch", "4"])):
        run(tmp, "train", "--train", binary, "--epochs", "2", *args, "--checkpoint", name + ".ckpt")
        data = read(os.path.join(tmp, name + ".ckpt"))
        write("checkpoint", name, b"\x00" + data)
        write("checkpoint", name + "_rehashed", b"\x01" + data)
    write("checkpoint", "truncated", b"\x00" + data[:40])


def main():
    if not os.path.exists(PARSGD):
        sys.exit(f"make_corpus: {PARSGD} not found: build the release preset first")
    libsvm()
    csv()
    fasttext()
    vw()
    idx()
    with tempfile.TemporaryDirectory() as tmp:
        binary_cache(tmp)
        model_file(tmp)
        checkpoint(tmp)


if __name__ == "__main__":
    main()
