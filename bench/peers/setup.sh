#!/usr/bin/env bash
# Makes bench/peers/venv: Debian's python3 with today's releases of the peers (requirements.txt),
# then prints the versions every peer script reports. The peer scripts run on it:
#   bench/peers/venv/bin/python bench/peers/peers.py ...
# Needs Debian's python3-venv, python3-dev and g++ (fastText and LIBLINEAR build from source);
# installs python3-venv when it is missing and this runs as root or with sudo. Rerunning it keeps
# the venv and installs only what changed. PyTorch comes from PyPI with its CUDA libraries (about
# 5 GB): it runs on the CPU without a GPU.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
venv="$here/venv"
if ! /usr/bin/python3 -c 'import ensurepip' 2>/dev/null; then
  sudo=()
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || { echo "setup.sh: needs Debian's python3-venv (apt-get install python3-venv)" >&2; exit 1; }
    sudo=(sudo)
  fi
  "${sudo[@]}" apt-get update -qq
  "${sudo[@]}" apt-get install -y -qq --no-install-recommends python3-venv python3-dev g++
fi
[ -x "$venv/bin/python" ] || /usr/bin/python3 -m venv "$venv"
"$venv/bin/python" -m pip install -q --upgrade pip
"$venv/bin/python" -m pip install -q -r "$here/requirements.txt"
"$venv/bin/python" "$here/versions.py"
