"""The README's Python example runs as written (the code block after <!-- python-example -->)."""

import contextlib
import io
import re

import pytest

pytest.importorskip("parsgd._parsgd", reason="the parsgd Python module is not built")

from conftest import REPO


def test_the_readme_example_runs():
    text = (REPO / "README.md").read_text()
    block = re.search(r"<!-- python-example -->\n```python\n(.*?)```", text, re.S)
    assert block, "README.md: no python example block"
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        namespace = {}
        exec(compile(block[1], "README.md", "exec"), namespace)  # noqa: S102
    lines = out.getvalue().splitlines()
    assert len(lines) >= 4
    clf, grid = namespace["clf"], namespace["grid"]
    assert list(clf.classes_) == [0, 1, 2] and clf.n_iter_ == len(clf.history_)
    assert float(lines[0].split()[0]) > 0.6  # well above a third: the classes are learnt
    assert set(grid.best_params_) == {"sgdclassifier__scheme", "sgdclassifier__alpha"}
