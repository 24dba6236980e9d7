#!/usr/bin/env bash
# What only the test command needs beside .venv (scripts/test.sh runs it after setup.sh):
# the other generation of the MCP server, Enterprise Gateway and xeus-python in venvs of
# their own, and iproute2 for the gateway on another address. Idempotent.
set -euo pipefail
cd "$(dirname "$0")/.."
log_dir="${KERNEL_STATE_LOG_DIR:-.logs}"
mkdir -p "$log_dir"

# iproute2: the multi-user test puts its gateway on another address (a network namespace).
if ! command -v ip > /dev/null 2>&1; then
  echo "==> installing Debian iproute2 (log in $log_dir/apt-ip.log)"
  sudo_cmd=()
  [ "$(id -u)" = 0 ] || sudo_cmd=(sudo)
  { "${sudo_cmd[@]}" apt-get update \
      && DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y \
        --no-install-recommends iproute2; } \
    > "$log_dir/apt-ip.log" 2>&1 || { tail -20 "$log_dir/apt-ip.log"; exit 1; }
fi
# Three venvs of their own, installed side by side (pip waits on the network more than it
# computes): each in a function writing its own log, all waited for; any failure fails.
# The other MCP generation. The main venv has what pip resolves beside Jupyter AI 3
# (jupyter-server-mcp 0.3, fastmcp 3, mcp 1.x); the MCP tests also run against
# jupyter-server-mcp 0.4 (fastmcp 4, mcp 2.x), which cannot share a venv with Jupyter AI 3.
install_mcp04() {
  if [ ! -x .venv-mcp04/bin/python ]; then
    echo "==> creating .venv-mcp04 (jupyter-server-mcp 0.4, log in $log_dir/install-mcp04.log)"
    python3 -m venv .venv-mcp04
  fi
  .venv-mcp04/bin/python -m pip install --quiet --upgrade pip > "$log_dir/install-mcp04.log" 2>&1
  # The frontend is built (setup.sh): these tests need only the server side.
  SKIP_JUPYTER_BUILDER=1 .venv-mcp04/bin/python -m pip install -e . "jupyter-server-mcp>=0.4,<0.5" "pytest>=8" \
      "pytest-jupyter[server]>=0.11" "pytest-timeout>=2.3" "ipykernel>=6.29" "numpy>=1.26" \
      "pandas>=2.1" "matplotlib>=3.8" >> "$log_dir/install-mcp04.log" 2>&1
}
# Enterprise Gateway 3.3 pins jupyter_server < 2: its own venv, with the kernel-side packages
# the tests' cells import (tests/gateway_utils.py starts it).
install_eg() {
  if [ ! -x .venv-eg/bin/python ]; then
    echo "==> creating .venv-eg (Enterprise Gateway 3.3, log in $log_dir/install-eg.log)"
    python3 -m venv .venv-eg
  fi
  .venv-eg/bin/python -m pip install --quiet --upgrade pip > "$log_dir/install-eg.log" 2>&1
  .venv-eg/bin/python -m pip install "jupyter_enterprise_gateway==3.3.0" "ipykernel>=6.29,<7" \
      "jupyter_client>=6.1.12,<7" "pyzmq>=20,<25" "numpy>=1.26" "pandas>=2.1" "polars>=1.0" \
      "xarray>=2024.1" "matplotlib>=3.8" >> "$log_dir/install-eg.log" 2>&1 \
    && .venv-eg/bin/python -m pip check >> "$log_dir/install-eg.log" 2>&1
}
# xeus-python 0.19, another Python kernel of the test matrix, in a venv of its own: beside
# JupyterLab its kernels would be offered to the UI tests' notebooks.
install_xeus() {
  if [ ! -x .venv-xeus/bin/python ]; then
    echo "==> creating .venv-xeus (xeus-python, log in $log_dir/install-xeus.log)"
    python3 -m venv .venv-xeus
  fi
  .venv-xeus/bin/python -m pip install --quiet --upgrade pip > "$log_dir/install-xeus.log" 2>&1
  .venv-xeus/bin/python -m pip install "xeus-python>=0.19,<0.20" "numpy>=1.26" \
      "pandas>=2.1" "matplotlib>=3.8" >> "$log_dir/install-xeus.log" 2>&1
}
# Notebook Intelligence 6 beside us, as `pip install '.[mcp]' notebook-intelligence` gives
# (tests/test_notebook_intelligence.py). Not in the main venv: there pip would downgrade
# importlib_metadata and python-dateutil (litellm and botocore pin them below what is
# installed), and NBI's server and lab extensions would load in every other suite's server
# and in the UI tests' JupyterLab.
install_nbi() {
  if [ ! -x .venv-nbi/bin/python ]; then
    echo "==> creating .venv-nbi (Notebook Intelligence 6, log in $log_dir/install-nbi.log)"
    python3 -m venv .venv-nbi
  fi
  .venv-nbi/bin/python -m pip install --quiet --upgrade pip > "$log_dir/install-nbi.log" 2>&1
  SKIP_JUPYTER_BUILDER=1 .venv-nbi/bin/python -m pip install -e '.[nbi]' "pytest>=8" \
      "pytest-jupyter[server]>=0.11" "pytest-timeout>=2.3" "ipykernel>=6.29" "numpy>=1.26" \
      "pandas>=2.1" "jsonschema>=4.18" >> "$log_dir/install-nbi.log" 2>&1
}
rm -f jupyter_kernel_state/labextension/install.json
install_mcp04 & mcp04=$!
install_nbi & nbi=$!
install_eg & eg=$!
install_xeus & xeus=$!
status=0
for job in "mcp04:$mcp04" "nbi:$nbi" "eg:$eg" "xeus:$xeus"; do
  if ! wait "${job#*:}"; then
    echo "!! installing .venv-${job%%:*} failed:"
    tail -40 "$log_dir/install-${job%%:*}.log"
    status=1
  fi
done
[ "$status" -eq 0 ] || exit 1
echo "==> test extras installed"
