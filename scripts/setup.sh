#!/usr/bin/env bash
# Installs the extension and its test dependencies into ./.venv (idempotent).
# Used by scripts/start.sh and scripts/test.sh; the README's two commands call those.
set -euo pipefail
cd "$(dirname "$0")/.."
log_dir="${KERNEL_STATE_LOG_DIR:-.logs}"
mkdir -p "$log_dir"

if [ ! -x .venv/bin/python ]; then
  echo "==> creating .venv"
  python3 -m venv .venv
fi
# shellcheck disable=SC1091
. .venv/bin/activate
python -m pip install --quiet --upgrade pip

echo "==> installing jupyter_kernel_state (editable; builds the frontend, log in $log_dir/install.log)"
python -m pip install "jupyterlab>=4.6,<5" "jupyter-builder>=1.2,<2" > "$log_dir/install.log" 2>&1 \
  || { tail -40 "$log_dir/install.log"; exit 1; }
jlpm install >> "$log_dir/install.log" 2>&1 || { tail -40 "$log_dir/install.log"; exit 1; }
jlpm build >> "$log_dir/install.log" 2>&1 || { tail -40 "$log_dir/install.log"; exit 1; }
python -m pip install -e ".[test,demo]" >> "$log_dir/install.log" 2>&1 \
  || { tail -40 "$log_dir/install.log"; exit 1; }
jupyter labextension develop --overwrite . >> "$log_dir/install.log" 2>&1 \
  || { tail -40 "$log_dir/install.log"; exit 1; }
# (Capture first: `grep -q` closing the pipe early would fail the pipeline under pipefail.)
server_list=$(jupyter server extension list 2>&1)
grep -q "jupyter_kernel_state.*enabled" <<< "$server_list" \
  || { echo "server extension is not enabled"; echo "$server_list"; exit 1; }
lab_list=$(jupyter labextension list 2>&1)
grep -q "jupyter-kernel-state.*enabled.*OK" <<< "$lab_list" \
  || { echo "labextension is not installed"; echo "$lab_list"; exit 1; }
echo "==> installed"
