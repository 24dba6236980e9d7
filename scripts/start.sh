#!/usr/bin/env bash
# One command for a new user: install everything, then start JupyterLab on the demo notebook.
# Extra arguments go to `jupyter lab` (for example --port=8899 --no-browser).
# The demo opened is a copy (scripts/demo-copy.sh: ~/kernel-state-demo/demo.ipynb, or
# $KERNEL_STATE_DEMO_DIR): running and saving it leaves the tracked examples/demo.ipynb as is.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
# shellcheck disable=SC1091
. .venv/bin/activate
extra=()
[ "$(id -u)" = 0 ] && extra+=(--allow-root)
demo="$(bash scripts/demo-copy.sh)"
echo "==> opening $demo (a copy of examples/demo.ipynb; delete it for a fresh one)"
# The notebook path is resolved from the working directory: serve and open from its folder.
cd "$(dirname "$demo")"
exec jupyter lab "${extra[@]}" "$@" "$(basename "$demo")"
