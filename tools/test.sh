#!/usr/bin/env bash
# Install attn_tokens into a fresh virtual environment and run every check CI runs.
# Usage: bash tools/test.sh [--install-browser]   (ATTN_TOKENS_VENV overrides where the environment goes)
# First, in a second or two, it checks what it needs and stops with the fix if something is missing: Python >= 3.10
# with venv, Chromium (headless, for the browser checks), free disk for the environment, git in CI; a C++ compiler is
# optional (without one the compiled kernel's tests are skipped and the runs take the slower torch path).
# It installs no system package unless asked: --install-browser (or ATTN_TOKENS_INSTALL_BROWSER=1; CI's .ci/run
# passes it) installs Chromium with apt-get when it is missing (root, Debian).
# Needs no data and no network: without ATTN_TOKENS_DATA the notebooks that read a real data set use the IMDB sample
# shipped in the package or skip with a line naming the data; with it (CI: ../shared/data) they read the local copies,
# and CI then runs those notebooks a second time without it.
set -euo pipefail
cd "$(dirname "$0")/.."
install_browser=${ATTN_TOKENS_INSTALL_BROWSER:-0}
for arg in "$@"; do
  case "$arg" in
    --install-browser) install_browser=1 ;;
    -h|--help) sed -n '2,11p' "$0"; exit 0 ;;
    *) echo "tools/test.sh: unknown argument $arg (known: --install-browser, --help)" >&2; exit 2 ;;
  esac
done
venv=${ATTN_TOKENS_VENV:-.venv-test}
t0=$SECONDS

echo "== prerequisites (each stops the run with its fix when missing)"
missing=()
if ! command -v python3 >/dev/null; then missing+=("python3 not found: install Python >= 3.10 (Debian: apt-get install python3 python3-venv)")
elif ! python3 -c 'import sys; sys.exit(sys.version_info < (3, 10))'; then
  missing+=("python3 is $(python3 -V 2>&1 | cut -d' ' -f2); attn_tokens needs >= 3.10: install a newer Python, put it first on PATH")
elif ! python3 -c 'import venv, ensurepip' 2>/dev/null; then
  missing+=("python3 has no venv/ensurepip: install it (Debian: apt-get install python3-venv)")
else echo "   python3 $(python3 -V 2>&1 | cut -d' ' -f2) with venv"; fi
where=$(dirname "$venv"); while [ ! -d "$where" ]; do where=$(dirname "$where"); done   # the nearest existing folder
free_gb=$(df -Pk "$where" | awk 'NR==2 {print int($4 / 1048576)}')
if [ "${free_gb:-0}" -lt 6 ]; then
  missing+=("only ${free_gb} GiB free where the environment goes ($where); it needs about 6 GiB (torch): free space or set ATTN_TOKENS_VENV")
else echo "   ${free_gb} GiB free for the environment"; fi
if [ "${CI:-}" = "true" ] && ! command -v git >/dev/null; then missing+=("git not found (CI compares the notebooks with the library): install git"); fi
if python3 tools/check_site.py --check-browser >/dev/null 2>&1; then echo "   $(python3 tools/check_site.py --check-browser)"
elif [ "$install_browser" = 1 ]; then python3 tools/check_site.py --check-browser --install-browser || missing+=("Chromium: the install above failed")
else msg=$(python3 tools/check_site.py --check-browser 2>&1 || true)
  missing+=("$msg (bash tools/test.sh --install-browser)"); fi
cxx=${CXX:-c++}
if command -v "$cxx" >/dev/null; then echo "   C++ compiler: $("$cxx" --version | head -1)"
else echo "   note: no C++ compiler ($cxx): the compiled kernel's tests are skipped and the runs take the slower torch path (install g++ to test it)"; fi
if [ ${#missing[@]} -gt 0 ]; then
  printf 'tools/test.sh: missing prerequisite: %s\n' "${missing[@]}" >&2
  echo "tools/test.sh: nothing was run; install the above and run it again" >&2
  exit 1
fi
echo "   checked in $((SECONDS - t0)) s"

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
