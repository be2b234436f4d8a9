"""Run every notebook's tests (nbdev's `test_nb`), in parallel: a line per notebook as it finishes, then a summary line.

Each notebook runs in a fresh process with a temporary folder of its own (TMPDIR, tempfile.tempdir), removed when it
finishes: whatever a notebook or the commands it starts put in the temporary folder is gone after the run. The processes
are forked from a server that has imported the libraries the notebooks need (torch, numpy, nbdev's runner, IPython, scikit-learn;
about 2.5 s of CPU a notebook otherwise) and nothing of the package, nor run any of its code.

Notebooks start longest first (with 2 workers a long notebook started last would run alone at the end), by their
times in the last run on this checkout (.test-times.json, not committed; every run updates it), else in
tools/test_times.json (committed, for a fresh clone; `--record-times` writes this run's times into it). A notebook
neither lists starts first (it may be long); a missing or unreadable file only means the order of the paths."""
import argparse, json, os, shutil, sys, tempfile, time
from pathlib import Path
import multiprocessing as mp
from concurrent.futures import ProcessPoolExecutor, as_completed
from nbdev.config import get_config
from nbdev.test import test_nb

from build_docs import source_notebooks, nb_key

TIMES = Path(__file__).with_name('test_times.json')
LOCAL_TIMES = Path(__file__).parents[1]/'.test-times.json'

# imported once by the server the notebooks' processes are forked from (`pool_context`): libraries only, never the
# package (its module state, e.g. the threads seen at import, starts fresh in each notebook); '__main__' as by default
PRELOAD = ['__main__', 'numpy', 'torch', 'nbdev.test', 'execnb.shell', 'fastcore.test',
           'sklearn.linear_model']   # (with scipy.stats and pandas: the experiments' baselines)

def pool_context():
    "The start method of the notebooks' processes: forked from a server that has imported `PRELOAD`."
    ctx = mp.get_context('forkserver'); ctx.set_forkserver_preload(PRELOAD)
    return ctx

def _one(fn, flags, save_dir=None):
    t0 = time.time()
    tmp = tempfile.mkdtemp(prefix='attn_tokens_test_')
    os.environ['TMPDIR'] = tempfile.tempdir = tmp     # this process, and the commands it starts
    try: return _run(fn, flags, save_dir), time.time() - t0
    finally: shutil.rmtree(tmp, ignore_errors=True)

def _run(fn, flags, save_dir=None) -> bool:
    if save_dir:  # same run as test_nb, and the executed notebook is kept for tools/build_docs.py
        from build_docs import execute_nb   # (kept under its path below nbs/, as build_docs.py looks for it)
        ok, _ = execute_nb(fn, Path(save_dir)/nb_key(fn), ' '.join(flags))
    else: ok, _ = test_nb(fn, skip_flags=get_config().tst_flags.split(), force_flags=flags, do_print=False)
    return ok

def read_times(path=TIMES) -> dict:
    "{notebook name: seconds} from `path`; {} (and a note) when it is missing or not such a mapping."
    try: t = json.loads(Path(path).read_text())
    except FileNotFoundError: return {}
    except (OSError, ValueError) as e:
        print(f"run_tests: ignoring the times in {path} ({e})", file=sys.stderr); return {}
    if not isinstance(t, dict): return {}
    return {k: float(v) for k, v in t.items() if isinstance(v, (int, float)) and v >= 0}

def longest_first(names, times) -> list:
    "Indices of `names` in the order to start them: unknown ones first, then by recorded time, longest first (stable)."
    return sorted(range(len(names)), key=lambda i: -times.get(names[i], float('inf')))

def record_times(names, res, path=TIMES):
    "Merge this run's times of the notebooks that passed into `path` (one notebook a line, sorted by name)."
    t = {**read_times(path), **{n: round(dt, 1) for n, (ok, dt) in zip(names, res) if ok}}
    Path(path).write_text('{\n' + ',\n'.join(f'  {json.dumps(k)}: {t[k]}' for k in sorted(t)) + '\n}\n')

def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('paths', nargs='*', help='notebooks to run (default: every notebook under nbs/, part folders included)')
    ap.add_argument('--flags', default='', help='space-separated test flags to run too, e.g. "slow"')
    ap.add_argument('--n_workers', type=int, default=2)
    ap.add_argument('--save-executed', metavar='DIR', help='keep the executed notebooks in DIR (tools/build_docs.py reuses _proc_exec/)')
    ap.add_argument('--record-times', action='store_true', help=f'write this run\'s times into tools/{TIMES.name} (commit it)')
    ap.add_argument('--label', help='a run of some notebooks again under other settings (tools/test.sh): its summary line '
                                    'starts with LABEL and is appended to .test-summary; no times are recorded')
    a = ap.parse_args()
    nbs = Path(get_config().nbs_path)
    files = [Path(p) for p in a.paths] or source_notebooks(nbs)
    bad = [str(f) for f in files if f.suffix != '.ipynb' or not f.is_file()]
    if bad: sys.exit(f"run_tests: not a notebook: {', '.join(bad)} (give paths like nbs/theory/03b_stage2.ipynb)")
    names = [nb_key(f, nbs) for f in files]
    # each worker uses one thread per notebook: n_workers notebooks share the cores without oversubscription
    os.environ.setdefault('OMP_NUM_THREADS', '1'); os.environ.setdefault('MKL_NUM_THREADS', '1')
    order = longest_first(names, {**read_times(), **read_times(LOCAL_TIMES)})
    # one fresh process per notebook: no state or memory carries over between notebooks
    res, t0 = [None] * len(files), time.time()
    print(f"{a.label or 'notebooks'}: {len(files)} to run, {a.n_workers} at a time, longest first", flush=True)
    with ProcessPoolExecutor(a.n_workers, mp_context=pool_context(), max_tasks_per_child=1) as ex:
        futs = {ex.submit(_one, files[i], a.flags.split(), a.save_executed): i for i in order}
        for k, fut in enumerate(as_completed(futs), 1):     # a line per notebook as it finishes
            i = futs[fut]; res[i] = ok, dt = fut.result()
            print(f"{'ok  ' if ok else 'FAIL'} {names[i]:40s} {dt:7.1f} s   [{k}/{len(files)}, "
                  f"{time.time() - t0:.0f} s]", flush=True)
    if not a.label:
        try: record_times(names, res, LOCAL_TIMES)
        except OSError as e: print(f"run_tests: could not write {LOCAL_TIMES.name} ({e})", file=sys.stderr)
        if a.record_times: record_times(names, res)
    failed = [n for n, (ok, _) in zip(names, res) if not ok]
    line = f"{a.label or 'notebooks'}: {len(files) - len(failed)} passed, {len(failed)} failed"
    if a.label:
        with open('.test-summary', 'a') as f: f.write(line + (f" ({', '.join(failed)})" if failed else '') + '\n')
    else: Path('.test-summary').write_text(line + '\n')
    print(line)
    return 1 if failed else 0

if __name__ == '__main__': sys.exit(main())
