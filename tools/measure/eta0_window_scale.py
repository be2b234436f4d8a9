"""The eta0 window against the initial scale sigma of E(0) (notebook 03k_window_mechanism, premise (iii)):
theory.window.eta0_window at d = inf with E(0)'s entries N(0, sigma^2/d) (its init_scale), on two sets with a window.
Fixed before any run (the prediction it tests is written in 03k first):
  sets    make_assumption1(n, n_relevant, n_irrelevant, T, seed=0) for
          hand    = (40, 10, 10, 8)   the set of 03i_hand_counterexample
          a28_T10 = (80, 8, 20, 10)   the other set of tools/measure/eta0_window_edges.py with a window at d = inf;
  range   the rule of tools/measure/eta0_window_edges.py: eta0 from 2 / max|alpha| to 64 / max|alpha| (the largest
          stage-1 score at d = inf, (eta0 / 2) max|alpha|, from 1 to 32), whatever sigma (stage 1 at d = inf does not
          depend on sigma: 03k); 20 points a decade, edges bisected to a relative 0.01 (eta0_window's defaults);
  sigma   2^k, k = -2..2: a factor 2 apart, symmetric in log about the package's 1, four octaves, enough to read a
          log-log slope between 0 and 1 and to put points on both sides of where the prediction closes the window
          (sigma about 1.3 on hand, 2.2 on a28_T10); then the half octaves 2^(-1/2), 2^(1/2), 2^(3/2);
  cells   d = inf, seed 0, eps = 1e-12 (the d-sweep's perturbed cell) and 1e-6, then eps = 0;
  order   (what a cut-off keeps) sigma = 2^k at eps = 1e-12 (sigma = 1 last: it repeats eta0_edges.json's scan), the
          same at eps = 1e-6, the half octaves at eps = 1e-12, then sigma = 2^k at eps = 0.
Per scan: eta0_window's record (every eta0 with its outcome, the edges), its CPU time. Written to OUT.json atomically
after every scan (attn_tokens.infra.files.write_json); a rerun with the same OUT skips the scans done. --workers K runs
K scans at once (one torch thread each); --budget S starts no scan after S seconds.
Usage: nice -n 19 python tools/measure/eta0_window_scale.py OUT.json [--workers K] [--budget S]
(read by nbs/theory/03k_window_mechanism.ipynb)"""
import argparse, json, math, os, time
from eta0_window_edges import C_RANGE, run_scans, set_and_range   # this folder (the script's own) is on sys.path: one scan runner
os.environ.setdefault('OMP_NUM_THREADS', '1'); os.environ.setdefault('MKL_NUM_THREADS', '1')

COMMAND = 'nice -n 19 python tools/measure/eta0_window_scale.py nbs/measured/eta0_window_scale.json --workers 2'
SETS = {'hand': (40, 10, 10, 8), 'a28_T10': (80, 8, 20, 10)}
OCTAVES = (0.25, 0.5, 2., 4., 1.)                     # 2^k, k = -2..2, sigma = 1 last
HALF = (2 ** -0.5, 2 ** 0.5, 2 ** 1.5)

def tasks():
    "Every scan (set, eps, sigma), in the order they start."
    at = lambda eps, sigmas: [(s, eps, g) for g in sigmas for s in SETS]
    return at(1e-12, OCTAVES) + at(1e-6, OCTAVES) + at(1e-12, HALF) + at(0., OCTAVES)

def key(task): return f"{task[0]}|{task[1]:g}|{task[2]:.6g}"

def scan(task):
    "One eta0_window scan (in a worker process): its record."
    import torch; torch.set_num_threads(1)
    from attn_tokens.theory.window import eta0_window
    name, eps, sigma = task
    data, amax, lo, hi = set_and_range(SETS[name])
    c0 = time.process_time()
    w = eta0_window(data.tokens, data.labels, math.inf, lo, hi, init_scale=sigma, score_noise=eps, seed=0)
    return task, dict(set=name, eps=eps, sigma=sigma, seed=0, max_alpha=amax,
                      cpu_s=time.process_time() - c0) | w.record()

def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0]); ap.add_argument('out')
    ap.add_argument('--workers', type=int, default=1)
    ap.add_argument('--budget', type=float, default=math.inf, help='start no scan after this many s')
    a = ap.parse_args()
    meta = dict(command=COMMAND, sets={k: 'make_assumption1(n=%d, n_relevant=%d, n_irrelevant=%d, T=%d, seed=0)' % v
                                       for k, v in SETS.items()},
                c_range=list(C_RANGE), sigmas=sorted(OCTAVES + HALF), d='inf', seed=0,
                window="eta0_window(tokens, labels, inf, 2 c0 / max|alpha|, 2 c1 / max|alpha|, init_scale=sigma, "
                       "score_noise=eps, seed=0): eta0_window's grid and rtol, run_protocol's defaults otherwise",
                machine='2-core machine shared with other work; one torch thread a scan, nice 19')
    runs = json.loads(open(a.out).read())['runs'] if os.path.exists(a.out) else {}
    run_scans(a.out, meta, runs, [t for t in tasks() if key(t) not in runs], scan, key, a.workers, a.budget)

if __name__ == '__main__': main()
