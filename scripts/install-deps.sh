#!/usr/bin/env bash
# Installs what parsgd needs to build, test and run its default job, from Debian 12 packages.
# Idempotent: installs only what is missing. Run as root (or with sudo available).
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive
packages=(
  cmake ninja-build g++ pkg-config     # toolchain
  libtbb-dev libfmt-dev zlib1g-dev     # the library
  nlohmann-json3-dev gnuplot-nox       # parsgd compare: experiment files (JSON), plots
  chromium                             # the test that opens compare's report.html in a browser
  libdnnl-dev ocl-icd-opencl-dev opencl-c-headers  # oneDNN (its CMake config needs OpenCL)
  libgtest-dev libbenchmark-dev        # tests and benchmarks
  libbenchmark-tools                   # compare.py: A/B comparisons of the benchmarks' JSON output
  gcc-offload-nvptx libgomp-plugin-nvptx1  # --backend offload: GPU code (host fallback without a GPU)
  xz-utils                             # bench/gpu_check.sh packs oneDNN with xz
  clang-14 libclang-rt-14-dev libomp-14-dev  # fuzz targets: clang, libFuzzer + sanitizer runtimes
  dataset-fashion-mnist                # the default data set (IDX, gzip)
  liblinear-tools                      # heart_scale, a small real LIBSVM file used by the tests
  libopenmpi-dev openmpi-bin           # ranks across processes and machines (MPI), and its tests
  pybind11-dev python3-dev             # the Python module (built for Debian's /usr/bin/python3)
  python3-venv                         # scripts/wheel_check.sh: the wheel in a fresh venv
  python3-numpy python3-scipy python3-sklearn  # its estimators
  python3-pytest python3-pandas        # their tests (scikit-learn checks pandas inputs with pandas)
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing+=("$p")
done
if ((${#missing[@]} == 0)); then
  exit 0
fi
sudo=()
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "install-deps: need root to install: ${missing[*]}" >&2; exit 1; }
  sudo=(sudo)
fi
"${sudo[@]}" apt-get update -qq
"${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
