#!/usr/bin/env bash
# The demo notebook to open: a copy of examples/demo.ipynb (and of examples/engines.ipynb,
# the tables that live in an engine, beside it) in a working folder (the first
# argument, else $KERNEL_STATE_DEMO_DIR, else ~/kernel-state-demo), made when missing, so
# that running and saving the demo never changes the tracked examples/demo.ipynb. An
# existing copy is kept (it holds your runs); delete it for a fresh one. Prints the
# copy's path.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
dir="$(realpath -m "${1:-${KERNEL_STATE_DEMO_DIR:-$HOME/kernel-state-demo}}")"
case "$dir/" in
  "$repo/examples/"*) echo "demo-copy: $dir is inside examples/; pick another folder" >&2; exit 2 ;;
esac
mkdir -p "$dir"
for notebook in demo.ipynb engines.ipynb; do
  if [ ! -e "$dir/$notebook" ]; then
    cp "$repo/examples/$notebook" "$dir/$notebook"
  fi
done
echo "$dir/demo.ipynb"
