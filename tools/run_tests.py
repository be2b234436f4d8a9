"""Run every notebook's tests (nbdev's `test_nb`), in parallel, and print one summary line."""
import argparse, os, sys, time
from pathlib import Path
import multiprocessing as mp
from concurrent.futures import ProcessPoolExecutor
from functools import partial
from nbdev.config import get_config
from nbdev.test import test_nb

from build_docs import source_notebooks, nb_key

def _one(fn, flags, save_dir=None):
    t0 = time.time()
    if save_dir:  # same run as test_nb, and the executed notebook is kept for tools/build_docs.py
        from build_docs import execute_nb   # (kept under its path below nbs/, as build_docs.py looks for it)
        ok, _ = execute_nb(fn, Path(save_dir)/nb_key(fn), ' '.join(flags))
    else: ok, _ = test_nb(fn, skip_flags=get_config().tst_flags.split(), force_flags=flags, do_print=False)
    return ok, time.time() - t0

def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument('paths', nargs='*', help='notebooks to run (default: every notebook under nbs/, part folders included)')
    ap.add_argument('--flags', default='', help='space-separated test flags to run too, e.g. "slow"')
    ap.add_argument('--n_workers', type=int, default=2)
    ap.add_argument('--save-executed', metavar='DIR', help='keep the executed notebooks in DIR (tools/build_docs.py reuses _proc_exec/)')
    a = ap.parse_args()
    nbs = Path(get_config().nbs_path)
    files = [Path(p) for p in a.paths] or source_notebooks(nbs)
    bad = [str(f) for f in files if f.suffix != '.ipynb' or not f.is_file()]
    if bad: sys.exit(f"run_tests: not a notebook: {', '.join(bad)} (give paths like nbs/theory/03b_stage2.ipynb)")
    # each worker uses one thread per notebook: n_workers notebooks share the cores without oversubscription
    os.environ.setdefault('OMP_NUM_THREADS', '1'); os.environ.setdefault('MKL_NUM_THREADS', '1')
    # one fresh process per notebook: no state or memory carries over between notebooks
    with ProcessPoolExecutor(a.n_workers, mp_context=mp.get_context('spawn'), max_tasks_per_child=1) as ex:
        res = list(ex.map(partial(_one, flags=a.flags.split(), save_dir=a.save_executed), files))
    names = [nb_key(f, nbs) for f in files]
    for n, (ok, dt) in zip(names, res): print(f"{'ok  ' if ok else 'FAIL'} {n:40s} {dt:7.1f} s", flush=True)
    failed = [n for n, (ok, _) in zip(names, res) if not ok]
    line = f"notebooks: {len(files) - len(failed)} passed, {len(failed)} failed"
    Path('.test-summary').write_text(line + '\n')
    print(line)
    return 1 if failed else 0

if __name__ == '__main__': sys.exit(main())
