"""Data files through the library's readers: the same rows as the command line reads, labels as
names where the file names its classes, and fastText and VW text hashed as `parsgd train` hashes."""

import numpy as np
import pytest

pytest.importorskip("parsgd._parsgd", reason="the parsgd Python module is not built")

import parsgd


def write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    return path


def test_fasttext_text_fits_and_predicts_label_names(tmp_path):
    rng = np.random.default_rng(3)
    words = {"sport": ["goal", "match", "team"], "art": ["paint", "canvas", "brush"]}
    lines = []
    for _ in range(300):
        label = rng.choice(["sport", "art"])
        lines.append(f"__label__{label} the " + " ".join(rng.choice(words[label], 3)) + "\n")
    path = write(tmp_path, "train.txt", "".join(lines))
    X, y = parsgd.load_file(path, hash_bits=10)
    assert X.shape == (300, 1024) and X.dtype == np.float32
    assert set(y) == {"__label__sport", "__label__art"}
    # Each row has unit length (the documented scaling of hashed text).
    assert np.allclose(np.sqrt(X.multiply(X).sum(axis=1)).A.ravel(), 1, atol=1e-6)
    clf = parsgd.SGDClassifier(max_iter=5, random_state=1).fit(X, y)
    new = write(tmp_path, "new.txt", "brush and canvas\nthe match\n")
    X_new, none = parsgd.load_file(new, format="fasttext", hash_bits=10, labels=False)
    assert none is None
    assert list(clf.predict(X_new)) == ["__label__art", "__label__sport"]


def test_vw_importances_and_csv_class_names_come_back(tmp_path):
    path = write(tmp_path, "d.vw", "1 2 |u a b:0.5 |i c\n-1 |u b |i d:3\n")
    X, y, w = parsgd.load_file(path, hash_bits=6, interactions="ui", return_weights=True)
    assert list(y) == [1.0, -1.0]
    assert list(w) == [2.0, 1.0]
    assert X.shape == (2, 64)
    # Two namespaces' features plus their pairs: 2 x 1 + 1 and 1 x 1 + 1 entries at most.
    assert X[0].nnz <= 5 and X[1].nnz <= 3
    csv = write(tmp_path, "t.csv", "y,a,b\ncat,1,0\ndog,0,2\n")
    Xc, yc = parsgd.load_file(csv)
    assert list(yc) == ["cat", "dog"]
    assert Xc.toarray().tolist() == [[1.0, 0.0], [0.0, 2.0]]


def test_malformed_files_name_the_place(tmp_path):
    path = write(tmp_path, "bad.txt", "__label__a x\n__label__a y __label__b\n")
    with pytest.raises(ValueError, match="bad.txt:2:14: a second label"):
        parsgd.load_file(path)
    with pytest.raises(ValueError, match="--hash-bits 40"):
        parsgd.load_file(path, hash_bits=40)
    with pytest.raises(ValueError, match="format 'text'"):
        parsgd.load_file(path, format="text")


def test_csv_categories_one_hot_hashed_and_another_file_read_like_the_first(tmp_path):
    train = write(tmp_path, "train.csv", "y,colour,x\nyes,red,1\nno,blue,2\nyes,red,3\n")
    X, y = parsgd.load_file(train)
    # x and the colour's own (empty) column, then blue and red.
    assert X.toarray().tolist() == [[0, 1, 0, 1], [0, 2, 1, 0], [0, 3, 0, 1]]
    assert list(y) == ["yes", "no", "yes"]
    # The test file's columns in another order, a colour training never had: the same layout.
    test = write(tmp_path, "test.csv", "x,colour,y\n5,green,no\n6,red,yes\n")
    Xt, yt = parsgd.load_file(test, like=train)
    assert Xt.toarray().tolist() == [[0, 5, 0, 0], [0, 6, 0, 1]]
    assert list(yt) == ["no", "yes"]
    Xh, _ = parsgd.load_file(train, hash_bits=4)
    assert Xh.shape == (3, 2 + 16)
    with pytest.raises(ValueError, match="expected a number"):
        parsgd.load_file(train, categorical="none")
    # hash_bits where nothing is hashed (a table of numbers, LIBSVM text) would be ignored.
    numbers = write(tmp_path, "n.csv", "y,a\n1,0.5\n0,2\n")
    with pytest.raises(ValueError, match="hash_bits would be ignored.*n.csv has none"):
        parsgd.load_file(numbers, hash_bits=8)
    svm = write(tmp_path, "d.svm", "1 1:0.5\n")
    with pytest.raises(ValueError, match="hash_bits would be ignored"):
        parsgd.load_file(svm, hash_bits=8)


def test_csv_columns_left_out_by_name_or_position_and_in_a_file_read_like_it(tmp_path):
    train = write(tmp_path, "train.csv", 'y,id,x,note\n1,7,0.5,"a, b"\n0,NA,2,\n')
    for left_out in ("id,note", ["id", "note"], [1, 3]):
        X, y = parsgd.load_file(train, ignore_columns=left_out)
        assert X.shape == (2, 1) and X.toarray().ravel().tolist() == [0.5, 2.0]
    other = write(tmp_path, "other.csv", "x,y\n3,1\n")
    X, _ = parsgd.load_file(other, like=train, ignore_columns="id,note")
    assert X.toarray().ravel().tolist() == [3.0]
    with pytest.raises(ValueError, match="column 'y' is left out, but it is the label column"):
        parsgd.load_file(train, ignore_columns="y")


def test_csv_missing_values_filled_in_by_the_first_files_rows(tmp_path):
    train = write(tmp_path, "train.csv", "y,a,b\n1,1,\n0,,2\n1,3,4\n")
    X, _ = parsgd.load_file(train, missing="mean")
    assert X.toarray().tolist() == [[1, 3], [2, 2], [3, 4]]
    X, _ = parsgd.load_file(train, missing="indicator")
    assert X.toarray().tolist() == [[1, 0, 0, 1], [0, 2, 1, 0], [3, 4, 0, 0]]
    test = write(tmp_path, "test.csv", "y,a,b\n1,,\n")
    X, _ = parsgd.load_file(test, like=train, missing="median")
    assert X.toarray().tolist() == [[2, 3]]
    with pytest.raises(ValueError, match="a missing value"):
        parsgd.load_file(train)
    with pytest.raises(ValueError, match="missing 'average'"):
        parsgd.load_file(train, missing="average")


def test_another_file_is_read_like_a_cached_hashed_text_or_refused(tmp_path, cli):
    import subprocess
    lines = [f"__label__{'a' if i % 2 else 'b'} w{i % 7} x{i % 5}\n" for i in range(40)]
    text = write(tmp_path, "train.txt", "".join(lines))
    cache, other = tmp_path / "train.bin", tmp_path / "other.bin"
    subprocess.run([cli, "convert", str(text), str(cache), "--hash-bits", "8"], check=True)
    subprocess.run([cli, "convert", str(text), str(other)], check=True)
    # The text read like the cache takes its 8 bits (the text's own default would be 16).
    X, _ = parsgd.load_file(text, like=cache)
    X_cache, _ = parsgd.load_file(cache)
    assert X.shape == (40, 256)
    assert (X != X_cache).nnz == 0
    with pytest.raises(ValueError, match="hashed into 2\\^16 features.*but the data .*train.bin "
                                         "was fastText text hashed into 2\\^8 features"):
        parsgd.load_file(other, like=cache)
