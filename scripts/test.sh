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

passed=0
failed=0
run_suite() {
  local name="$1"; shift
  echo
  echo "==> $name"
  if "$@"; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "!! $name failed"; fi
}
# A step run beside the suites: its output goes to a log (.logs/lanes/NAME.log).
lanes="$KERNEL_STATE_LOG_DIR/lanes"
rm -rf "$lanes" && mkdir -p "$lanes"
in_background() {
  local name="$1"; shift
  { "$@"; echo $? > "$lanes/$name.status"; } > "$lanes/$name.log" 2>&1 &
  echo $! > "$lanes/$name.pid"
}

# The extras' venvs install while lint and jest run.
in_background extras bash scripts/setup-test-extras.sh
# shellcheck disable=SC1091
. .venv/bin/activate

run_suite "lint (ruff, mypy --strict; stylelint, prettier, eslint)" bash -c \
  'ruff check jupyter_kernel_state tests benchmarks scripts && mypy jupyter_kernel_state && jlpm lint:check'
run_suite "jest" jlpm test
wait "$(cat "$lanes/extras.pid")"
if [ "$(cat "$lanes/extras.status" 2> /dev/null)" != 0 ]; then
  cat "$lanes/extras.log"; echo "!! the test extras did not install"; exit 1
fi
# Test files spread over the machine's cores (at most 4), each file on one worker: a file's
# shared server, kernels, gateway or Spark cluster stay its own.
run_suite "pytest" python -m pytest -q -p no:cacheprovider -n auto --maxprocesses 4 \
  --dist loadfile -m "not alone"
# The UI tests after it, not beside it: run beside pytest's workers on two cores, a galata
# test that waits on the list's re-sort timed out (measured: the lanes saved 2–3 minutes).
rm -f "$KERNEL_STATE_LOG_DIR/ui-report.json" "$KERNEL_STATE_LOG_DIR/ui-hub-report.json"
run_suite "ui-tests (Playwright, Debian chromium; then behind JupyterHub)" bash -c '
  cd ui-tests &&
  PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 jlpm install > "$KERNEL_STATE_LOG_DIR/ui-install.log" 2>&1 ||
    { tail -40 "$KERNEL_STATE_LOG_DIR/ui-install.log"; exit 1; }
  status=0
  jlpm playwright test || status=1
  jlpm playwright test -c playwright-hub.config.ts || status=1
  exit $status'
# Then the tests marked `alone` (many users at once), with the machine to themselves.
run_suite "pytest, alone" python -m pytest -q -p no:cacheprovider -m alone
# The MCP tests again with the other generation: jupyter-server-mcp 0.4, fastmcp 4, mcp 2.x.
run_suite "pytest, MCP with jupyter-server-mcp 0.4" .venv-mcp04/bin/python -m pytest -q \
  -p no:cacheprovider tests/test_mcp.py tests/test_mcp_guard.py
# Notebook Intelligence 6 beside us, in its own venv (see scripts/setup-test-extras.sh).
run_suite "pytest, Notebook Intelligence 6" .venv-nbi/bin/python -m pytest -q \
  -p no:cacheprovider tests/test_notebook_intelligence.py

echo
# The UI suites' failures again, last, one line each (their output is long).
python scripts/failures.py "$KERNEL_STATE_LOG_DIR/ui-report.json" "$KERNEL_STATE_LOG_DIR/ui-hub-report.json"
echo "suites: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
