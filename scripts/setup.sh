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
# A stray install.json beside the built labextension (left by some builds) would be added
# to the wheel twice; the labextension's own install.json is the one at the top.
rm -f jupyter_kernel_state/labextension/install.json
# Built just above: the editable install need not build the frontend again.
SKIP_JUPYTER_BUILDER=1 python -m pip install -e ".[test,demo]" >> "$log_dir/install.log" 2>&1 \
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
# R kernels: Debian's R and IRkernel (tibble for the tests, dplyr for the code of an
# explorer's view run back in the kernel), and the `ir` kernelspec in the venv, so that
# the R tests run on a clean machine too (CRAN is not reachable here).
if ! Rscript -e 'library(IRkernel); library(tibble); library(dplyr)' > /dev/null 2>&1; then
  echo "==> installing Debian r-base-core, r-cran-irkernel, r-cran-tibble, r-cran-dplyr (log in $log_dir/apt-r.log)"
  sudo_cmd=()
  [ "$(id -u)" = 0 ] || sudo_cmd=(sudo)
  { "${sudo_cmd[@]}" apt-get update \
      && DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y \
        --no-install-recommends r-base-core r-cran-irkernel r-cran-tibble r-cran-dplyr; } \
    > "$log_dir/apt-r.log" 2>&1 || { tail -20 "$log_dir/apt-r.log"; exit 1; }
fi
if [ ! -f .venv/share/jupyter/kernels/ir/kernel.json ]; then
  echo "==> registering the IRkernel kernelspec in .venv"
  R --quiet --no-save -e "IRkernel::installspec(name = 'ir', user = FALSE, prefix = '$PWD/.venv')" \
    > "$log_dir/irkernel.log" 2>&1 || { tail -20 "$log_dir/irkernel.log"; exit 1; }
fi
# Spark: pyspark runs its JVM (a local session, a Connect server in the tests) on Debian's
# Java runtime when there is no java.
if ! command -v java > /dev/null 2>&1; then
  echo "==> installing Debian default-jre-headless (log in $log_dir/apt-java.log)"
  sudo_cmd=()
  [ "$(id -u)" = 0 ] || sudo_cmd=(sudo)
  { "${sudo_cmd[@]}" apt-get update \
      && DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y \
        --no-install-recommends default-jre-headless; } \
    > "$log_dir/apt-java.log" 2>&1 || { tail -20 "$log_dir/apt-java.log"; exit 1; }
fi
echo "==> installed"
