#!/usr/bin/env bash
# Makes a Python venv with the machine image's PyTorch CPU wheel, for the torch peer runs
# (never needed by the tests). The wheel's pure-Python dependencies that the image's Python
# lacks (filelock, fsspec) come from Debian's packages; nothing is fetched from PyPI.
#   ember-bench/peer/setup-venv.sh [venv dir]      (default: .venv at the repo root)
set -euo pipefail
VENV="${1:-$(cd "$(dirname "$0")/../.." && pwd)/.venv}"
WHEEL="$(find / -xdev -name 'torch-2.13*.whl' 2>/dev/null | head -1 || true)"
[[ -n "$WHEEL" ]] || { echo "setup-venv: no torch-2.13 wheel on this machine" >&2; exit 1; }
PY="$(command -v python3)"
if ! dpkg -s python3-filelock python3-fsspec >/dev/null 2>&1; then
  apt-get update -qq && apt-get install -y -qq python3-filelock python3-fsspec >/dev/null
fi
"$PY" -m venv --system-site-packages "$VENV"
"$VENV/bin/pip" install -q --no-index --no-deps "$WHEEL"
SITE="$("$VENV/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
# Only the two missing packages come from Debian's dist-packages (linked, not the whole folder:
# that would shadow the image's newer sympy and numpy).
for pkg in filelock fsspec; do
  ln -sfn "/usr/lib/python3/dist-packages/$pkg" "$SITE/$pkg"
done
"$VENV/bin/python" -c 'import torch, filelock, fsspec, sympy; print("torch", torch.__version__, "ready in", "'"$VENV"'")'
