#!/usr/bin/env bash
# Install attn_tokens into a fresh virtual environment and run every check CI runs.
# Usage: bash tools/test.sh        (ATTN_TOKENS_VENV overrides where the environment goes)
# Needs no data and no network: without ATTN_TOKENS_DATA the notebooks that read a real data set use the IMDB sample
# shipped in the package or skip with a line naming the data; with it (CI: ../shared/data) they read the local copies,
# and CI then runs those notebooks a second time without it.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=${ATTN_TOKENS_VENV:-.venv-test}
t0=$SECONDS
echo "== install 1/2: a fresh virtual environment in $venv"
rm -rf "$venv"
python3 -m venv "$venv"
. "$venv/bin/activate"
echo "== install 2/2: pip install -e .[dev] with the pinned toolchain (constraints.txt; torch is the largest, minutes on a cold pip cache)"
pip install -q --disable-pip-version-check -c constraints.txt -e ".[dev]"
echo "   installed in $((SECONDS - t0)) s"
export HF_HUB_OFFLINE=1 HF_DATASETS_OFFLINE=1 MPLBACKEND=Agg PYTHONHASHSEED=0
if [ -n "${ATTN_TOKENS_DATA:-}" ]; then echo "== data: local copies in \$ATTN_TOKENS_DATA ($ATTN_TOKENS_DATA)"
else echo "== data: no ATTN_TOKENS_DATA: the IMDB sample shipped in the package, other data sets skipped"; fi

if [ "${CI:-}" = "true" ]; then
  echo "== notebooks and library in sync (nbdev_export, nbdev_clean change nothing)"
  nbdev_export && nbdev_clean
  if [ -n "$(git status --porcelain)" ]; then
    git status --porcelain; git --no-pager diff --stat
    echo "nbdev_export/nbdev_clean changed committed files: run them and commit the result." >&2
    exit 1
  fi
  echo "== reading rules of the notebooks and the library (tools/check_layout.py)"
  python tools/check_layout.py
  echo "== linter: ruff, pyflakes' rules (ruff.toml), on the library and the notebooks' code"
  ruff check --no-cache attn_tokens nbs
  python tools/check_layout.py --self-test     # the summary rule against nbdev's own export, on made-up notebooks
fi

echo "== notebook tests (nbdev; a line per notebook as it finishes)"
status=0
python tools/run_tests.py --save-executed _proc_exec || status=$?

if [ "${CI:-}" = "true" ] && [ -n "${ATTN_TOKENS_DATA:-}" ]; then
  # A newcomer has no data folder: the notebooks whose cells branch on whether a local copy is found (run_or_skip,
  # data_available, local_files) run again without one, so that their other branch (the shipped sample, or a skip with
  # its line) is tested too; the others read no data, or set the environment they test themselves.
  mapfile -t withdata < <(grep -l -r --include='*.ipynb' -E 'run_or_skip|data_available|local_files\(' nbs | sort)
  echo "== the ${#withdata[@]} notebooks that branch on the data, again without ATTN_TOKENS_DATA (a newcomer's machine)"
  env -u ATTN_TOKENS_DATA python tools/run_tests.py --label 'without data' "${withdata[@]}" || status=1
fi

if [ "${CI:-}" = "true" ]; then
  # The notebooks that run trajectories (training runs, gradient flows), again on the torch path instead of the
  # compiled kernel (built with -march=native, so its rounding depends on the CPU), and with 2 threads instead of 1:
  # their tests must not depend on the last bits of the arithmetic (about 5 min for both reruns on the 2-core machine).
  traj=(nbs/theory/03b_stage2.ipynb nbs/theory/03c_protocol.ipynb nbs/theory/03d_beyond.ipynb
        nbs/theory/03f_integrators.ipynb nbs/experiments/04_train.ipynb nbs/experiments/05_synthetic.ipynb)
  echo "== notebooks that run trajectories, kernel off (ATTN_TOKENS_KERNEL=0)"
  ATTN_TOKENS_KERNEL=0 python tools/run_tests.py --label 'trajectories, kernel off' \
    "${traj[@]}" nbs/engine/00d_distributed.ipynb || status=1
  echo "== notebooks that run trajectories, 2 threads (OMP_NUM_THREADS=2)"
  # (00d_distributed's runs set one thread per rank themselves)
  OMP_NUM_THREADS=2 MKL_NUM_THREADS=2 python tools/run_tests.py --n_workers 1 \
    --label 'trajectories, 2 threads' "${traj[@]}" || status=1
fi

echo "== documentation: the published site (offline, no Quarto) in _docs/ and README.md from the notebooks"
docs_args=(--summary .test-summary); [ "${CI:-}" = "true" ] && docs_args+=(--check-readme)
python tools/build_docs.py "${docs_args[@]}" || status=1
echo "== documentation: browser check of _docs/ (headless Chromium; screenshots in artifacts/screenshots/)"
python tools/check_site.py --summary .test-summary || status=1
python tools/check_select.py --summary .test-summary || status=1   # attn-tokens select + its page in Chromium

# every step's summary, then the notebooks' line last
grep -v '^notebooks:' .test-summary || true
grep '^notebooks:' .test-summary
exit $status
