#!/usr/bin/env bash
# One command for a new user: install everything, then start JupyterLab on the demo notebook.
# Extra arguments go to `jupyter lab` (for example --port=8899 --no-browser).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
# shellcheck disable=SC1091
. .venv/bin/activate
extra=()
[ "$(id -u)" = 0 ] && extra+=(--allow-root)
# The notebook path is resolved from the working directory: serve and open from examples/.
cd examples
exec jupyter lab "${extra[@]}" "$@" demo.ipynb
