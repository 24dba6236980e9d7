#!/usr/bin/env bash
# One command: install everything (Debian chromium included) and run every test suite:
# pytest (real server, real kernels, a real JupyterHub), jest, and the Playwright UI tests in
# Debian's Chromium (also in /user/<name>/lab behind JupyterHub).
set -uo pipefail
cd "$(dirname "$0")/.."
export KERNEL_STATE_LOG_DIR="${KERNEL_STATE_LOG_DIR:-$PWD/.logs}"
mkdir -p "$KERNEL_STATE_LOG_DIR"

if [ ! -x /usr/lib/chromium/chromium ]; then
  echo "==> installing Debian chromium"
  sudo_cmd=()
  [ "$(id -u)" = 0 ] || sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update > "$KERNEL_STATE_LOG_DIR/apt.log" 2>&1 \
    && DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y chromium \
      >> "$KERNEL_STATE_LOG_DIR/apt.log" 2>&1 \
    || { tail -20 "$KERNEL_STATE_LOG_DIR/apt.log"; exit 1; }
fi

bash scripts/setup.sh || exit 1
bash scripts/setup-test-extras.sh || exit 1
# shellcheck disable=SC1091
. .venv/bin/activate

passed=0
failed=0
run_suite() {
  local name="$1"; shift
  echo
  echo "==> $name"
  if "$@"; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "!! $name failed"; fi
}

run_suite "lint (ruff, mypy --strict; stylelint, prettier, eslint)" bash -c \
  'ruff check jupyter_kernel_state tests benchmarks && mypy jupyter_kernel_state && jlpm lint:check'
run_suite "jest" jlpm test
# Test files spread over the machine's cores (at most 4), each file on one worker: a file's
# shared server, kernels, gateway or Spark cluster stay its own.
# Then the tests marked `alone` (many users at once), with the machine to themselves.
run_suite "pytest" bash -c 'python -m pytest -q -p no:cacheprovider -n auto --maxprocesses 4 \
  --dist loadfile -m "not alone"; parallel=$?
  python -m pytest -q -p no:cacheprovider -m alone; alone=$?
  [ "$parallel" -eq 0 ] && [ "$alone" -eq 0 ]'
# The MCP tests again with the other generation: jupyter-server-mcp 0.4, fastmcp 4, mcp 2.x.
run_suite "pytest, MCP with jupyter-server-mcp 0.4" .venv-mcp04/bin/python -m pytest -q \
  -p no:cacheprovider tests/test_mcp.py tests/test_mcp_guard.py
# Notebook Intelligence 6 beside us, in its own venv (see scripts/setup-test-extras.sh).
run_suite "pytest, Notebook Intelligence 6" .venv-nbi/bin/python -m pytest -q \
  -p no:cacheprovider tests/test_notebook_intelligence.py
# Then the sidebar in /user/<name>/lab behind a real JupyterHub (its own config and hub).
run_suite "ui-tests (Playwright, Debian chromium; then behind JupyterHub)" bash -c '
  cd ui-tests &&
  PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 jlpm install > "$KERNEL_STATE_LOG_DIR/ui-install.log" 2>&1 ||
    { tail -40 "$KERNEL_STATE_LOG_DIR/ui-install.log"; exit 1; }
  status=0
  jlpm playwright test || status=1
  jlpm playwright test -c playwright-hub.config.ts || status=1
  exit $status'

echo
echo "suites: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
