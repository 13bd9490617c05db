#!/usr/bin/env bash
# The Python module as pip users get it: `pip wheel .` (pyproject.toml: scikit-build-core drives
# the CMake project, its build requirements from PyPI, the library's dependencies Debian's), the
# wheel installed into a fresh venv with today's numpy 2, SciPy and scikit-learn from PyPI, and
# the Python suite (scikit-learn's estimator checks among it) run there against the installed
# package. Needs scripts/install-deps.sh's packages (python3-venv among them) and PyPI; the
# command-line tests of the suite use build/parsgd when it is there (PARSGD_CLI), and skip
# otherwise. Everything is written under build-wheel/ (or $PARSGD_WHEEL_DIR).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
root="$PWD"
work="${PARSGD_WHEEL_DIR:-$root/build-wheel}"
rm -rf "$work"
mkdir -p "$work"
/usr/bin/python3 -m venv "$work/venv"
py="$work/venv/bin/python"
"$py" -m pip install -q --upgrade pip
"$py" -m pip wheel -q --no-deps -w "$work/dist" "$root"
"$py" -m pip install -q "$work"/dist/parsgd-*.whl "numpy>=2" "scikit-learn>=1.6" scipy pandas pytest
"$py" -c 'import numpy, sklearn, parsgd; print("parsgd", parsgd.__file__, "numpy", numpy.__version__, "scikit-learn", sklearn.__version__)'
# From the work folder, so that `import parsgd` is the installed package, not python/parsgd.
cd "$work"
PARSGD_CLI="${PARSGD_CLI:-$root/build/parsgd}" "$py" -m pytest -q -p no:cacheprovider "$root/tests/python"
