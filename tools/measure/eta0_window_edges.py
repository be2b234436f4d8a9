"""Both edges of the eta0 window (notebook 03j_eta0_window): theory.window.eta0_window on six Assumption-1 sets, at
d = inf with the scores perturbed by eps = 1e-6, 1e-12 and unperturbed (eps = 0), and at d = 2^13, 2^17, 2^25
(unperturbed; the init is random there: seeds 0, 1, 2). Fixed before any run:
  sets    make_assumption1(n, n_relevant, n_irrelevant, T, seed=0) for
          hand   = (40, 10, 10, 8)   the set of 03i_hand_counterexample
          n1000_V68_T16 = (1000, 8, 60, 16) and n2000_V110_T32 = (2000, 10, 100, 32), the sets of tools/measure/d_limit.py
          a16_T6 = (60, 6, 10, 6), a28_T10 = (80, 8, 20, 10), a24_T4 = (120, 4, 20, 4): three new shapes (other n, V, T
          and relevant-to-irrelevant ratios), small enough that a scan costs seconds to minutes;
  range   eta0 from 2 / max|alpha| to 64 / max|alpha|: the largest stage-1 score at d = inf, (eta0 / 2) max|alpha|, from 1
          to 32 (the 03i example sits at 6); the same rule on every set, stated in the set's own scale;
  grid    20 points a decade, edges bisected to a relative 0.01 (eta0_window's defaults) on the five small sets; 10 a
          decade and 0.02 on n1000_V68_T16; 5 a decade and 0.05 on n2000_V110_T32 (a run there costs 30 to 100 CPU-s);
  order   (what a cut-off keeps; the perturbed and finite-d scans cost about 20 CPU-s on a small set, the unperturbed
          ones several times more) the four small sets at d = inf, eps = 1e-6 and 1e-12, then at the three finite d
          (seed 0), then at eps = 0; n1000_V68_T16 at d = inf (eps = 1e-12, 1e-6, 0); seeds 1 and 2 of the small
          sets; n1000_V68_T16 at finite d (seed 0); n2000_V110_T32 at d = inf, eps = 1e-12 (the d-sweep's perturbed
          cell), then its eps = 0 cell; then (added after the first 56 scans, to answer whether the lower edge
          moves like log(1/eps), which three values of eps cannot say) eps = 1e-3, 1e-9 and 1e-14 at d = inf on the
          sets with a window at eps = 1e-6 (hand, a28_T10, n1000_V68_T16), started right after n1000_V68_T16's d = inf
          cells: 1e-14 is about the smallest perturbation a score of order 1 to 10 keeps in float64 (its ulp is 2e-16
          to 2e-15).
          Then the exact limit, cell 'inf|exact' (added after the d-sweep's unperturbed run at eta0 = 1320 was found to
          be decided by stage 1's rounding, tools/measure/flow_1320.py): d = inf, stage 1 by its closed form
          (exact_stage1=True), no perturbation, on hand and n1000_V68_T16, whose T (8, 16) makes the closed form's
          irrelevant scores exactly 0 (a28_T10's T = 10 does not: its closed form keeps rounding of 1e-16).
          Last, n2000_V110_T32 at eps = 1e-6 and in the exact limit (T = 32), so that its window can be read along
          the limit at all (two eps and the limit's end; the map's rule, paper_map.limit_rule, needs both).
          Then (--log-flow, added for issue 54: the engine's flow left these cells 'undecided' at the end of float64's
          range, and an undecided point is not a failure) the log flow of theory/log_flow.py (03l_log_flow), which decides
          every run: the exact cells of hand, n1000_V68_T16 and n2000_V110_T32, the exact cell of a28_T10 (the exact stage 1
          is exact for every T now) and the unperturbed cells 'inf|0' that held undecided points (hand, a28_T10,
          n2000_V110_T32), with the engine's stage 1 there. Written under new keys 'SET|CELL|SEED|log' with flow = 'log' and
          version = 2; the engine's records stay as they were (their provenance).
Per scan: eta0_window's record (every eta0 with its outcome, the edges), its CPU time. Written to OUT.json atomically
after every scan (attn_tokens.infra.files.write_json); a rerun with the same OUT skips the scans done. --workers K runs
K scans at once (one torch thread each); --budget S starts no scan after S seconds.
Usage: nice -n 19 python tools/measure/eta0_window_edges.py OUT.json [--workers K] [--budget S] [--only TEXT] [--log-flow]
(read by nbs/theory/03j_eta0_window.ipynb)"""
import argparse, json, math, os, time
os.environ.setdefault('OMP_NUM_THREADS', '1'); os.environ.setdefault('MKL_NUM_THREADS', '1')

COMMAND = 'nice -n 19 python tools/measure/eta0_window_edges.py nbs/measured/eta0_edges.json --workers 2'
SETS = {'hand': (40, 10, 10, 8), 'a16_T6': (60, 6, 10, 6), 'a28_T10': (80, 8, 20, 10), 'a24_T4': (120, 4, 20, 4),
        'n1000_V68_T16': (1000, 8, 60, 16), 'n2000_V110_T32': (2000, 10, 100, 32)}
SMALL = ('hand', 'a16_T6', 'a28_T10', 'a24_T4')
GRIDS = {'n1000_V68_T16': (10, 0.02), 'n2000_V110_T32': (5, 0.05)}    # else eta0_window's defaults (20, 0.01)
C_RANGE = (1., 32.)
EPS = (1e-6, 1e-12, 0.)
EPS_EXTRA, EXTRA_SETS = (1e-3, 1e-9, 1e-14), ('hand', 'a28_T10', 'n1000_V68_T16')
EXACT_SETS = ('hand', 'n1000_V68_T16')
DS = (2 ** 13, 2 ** 17, 2 ** 25)

def tasks():
    "Every scan (set, cell, seed), cell 'inf|EPS' or a finite d, in the order they start."
    inf = lambda s, eps=EPS: [(s, f'inf|{e:g}', 0) for e in eps]
    fin = lambda s, seeds: [(s, str(d), k) for k in seeds for d in DS]
    first = ([t for s in SMALL for t in inf(s, EPS[:2])] + [t for s in SMALL for t in fin(s, [0])]
             + [t for s in SMALL for t in inf(s, EPS[2:])] + inf('n1000_V68_T16', (1e-12, 1e-6, 0.)))
    extra = [t for s in EXTRA_SETS for t in inf(s, EPS_EXTRA)]   # right after n1000_V68_T16 at d = inf
    return first + extra + ([t for s in SMALL for t in fin(s, [1, 2])] + fin('n1000_V68_T16', [0])
            + [('n2000_V110_T32', 'inf|1e-12', 0), ('n2000_V110_T32', 'inf|0', 0)]
            + [(s, 'inf|exact', 0) for s in EXACT_SETS]
            + [('n2000_V110_T32', 'inf|1e-06', 0), ('n2000_V110_T32', 'inf|exact', 0)])


LOG_TASKS = ([(s, c, 0) for s in ('hand', 'a28_T10') for c in ('inf|exact', 'inf|0')]     # small sets first
             + [('n1000_V68_T16', 'inf|exact', 0)] + [('n2000_V110_T32', c, 0) for c in ('inf|exact', 'inf|0')])

def key(task): return '|'.join(map(str, task))

def log_key(task): return key(task) + '|log'

def log_scan(task):
    "One scan of LOG_TASKS by the log flow (in a worker process): its record, flow 'log', version 2."
    name, cell, seed = task
    _, rec = scan(task, log_flow=True)
    return task, rec | dict(flow='log', version=2)

def set_and_range(shape):
    """make_assumption1(n, n_relevant, n_irrelevant, T) of `shape` with data seed 0, max|alpha|, and the scan's range
    rule: eta0 from 2 C_RANGE[0] / max|alpha| to 2 C_RANGE[1] / max|alpha|. Shared with eta0_window_scale.py."""
    from attn_tokens.data.generators import make_assumption1
    from attn_tokens.data.tokenset import TokenSet
    n, R, I, T = shape; data = make_assumption1(n=n, n_relevant=R, n_irrelevant=I, T=T, seed=0)
    amax = TokenSet.make(data.tokens, data.labels, data.V).stats.alpha.abs().max().item()
    return data, amax, 2 * C_RANGE[0] / amax, 2 * C_RANGE[1] / amax

def scan(task, log_flow=False):
    "One eta0_window scan (in a worker process): its record; stage 2 by the log flow if asked (d = inf only)."
    import torch; torch.set_num_threads(1)
    from attn_tokens.theory.window import eta0_window, GRID_PER_DECADE, RTOL
    name, cell, seed = task
    data, amax, lo, hi = set_and_range(SETS[name])
    grid, rtol = GRIDS.get(name, (GRID_PER_DECADE, RTOL))
    exact = cell == 'inf|exact'
    d, eps = (math.inf, 0. if exact else float(cell.split('|')[1])) if cell.startswith('inf') else (int(cell), 0.)
    c0 = time.process_time()
    w = eta0_window(data.tokens, data.labels, d, lo, hi, grid=grid, rtol=rtol, score_noise=eps, seed=seed,
                    exact_stage1=exact, **({'log_flow': True} if log_flow else {}))
    return task, dict(set=name, cell=cell, seed=seed, eps=eps, max_alpha=amax, cpu_s=time.process_time() - c0) | w.record()

def run_scans(out, meta, runs, todo, scan, key, workers, budget):
    """Run `scan` on every task of `todo` in `workers` processes (one torch thread each), adding each record to `runs`
    under `key(task)` and writing {meta, runs} to `out` atomically after every scan; no scan starts after `budget` s.
    Shared with tools/measure/eta0_window_scale.py."""
    import multiprocessing as mp
    from attn_tokens.infra.files import write_json
    t0 = time.time()
    print(f"{len(runs)} scans done, {len(todo)} to go, {workers} workers", flush=True)
    pool = mp.get_context('fork').Pool(workers, maxtasksperchild=1); it = iter(todo); flight = []
    def submit():
        for t in it: flight.append(pool.apply_async(scan, (t,))); return
    for _ in range(workers): submit()
    n = 0
    while flight:
        time.sleep(0.5)
        for r in [r for r in flight if r.ready()]:
            flight.remove(r); task, rec = r.get(); runs[key(task)] = rec; n += 1
            write_json(out, dict(meta=meta, runs=runs))
            edges = ', '.join(f"{e['kind']} {e['reached']:.4g}/{e['not_reached']:.4g} ({e['outcome']})"
                              for e in rec['edges']) or 'no edge'
            print(f"[{n}/{len(todo)}, {time.time() - t0:.0f} s] {key(task)}: {edges}; {len(rec['points'])} runs, "
                  f"{rec['cpu_s']:.0f} CPU-s", flush=True)
            if time.time() - t0 < budget: submit()
    pool.terminate()

def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0]); ap.add_argument('out')
    ap.add_argument('--workers', type=int, default=1)
    ap.add_argument('--budget', type=float, default=math.inf, help='start no scan after this many s')
    ap.add_argument('--only', default='', help="only the scans whose key (set|cell|seed) contains this text")
    ap.add_argument('--log-flow', action='store_true', help="the scans of LOG_TASKS by the log flow, under keys '...|log'")
    a = ap.parse_args()
    meta = dict(command=COMMAND, sets={k: 'make_assumption1(n=%d, n_relevant=%d, n_irrelevant=%d, T=%d, seed=0)' % v
                                       for k, v in SETS.items()},
                c_range=list(C_RANGE), eps=list(EPS), eps_extra=list(EPS_EXTRA), extra_sets=list(EXTRA_SETS), ds=list(DS), grids=GRIDS,
                window="eta0_window(tokens, labels, d, 2 c0 / max|alpha|, 2 c1 / max|alpha|, grid, rtol, "
                       "score_noise=eps, seed=seed, exact_stage1=(cell == 'inf|exact')): run_protocol's defaults "
                       "otherwise", exact_sets=list(EXACT_SETS),
                machine='2-core machine shared with other work; one torch thread a scan, nice 19')
    old = json.loads(open(a.out).read()) if os.path.exists(a.out) else {}
    runs, meta = old.get('runs', {}), old.get('meta', {}) | meta      # what an earlier run's meta says is kept
    if a.log_flow:
        meta |= dict(log_command=COMMAND + ' --log-flow', log_tasks=[log_key(t) for t in LOG_TASKS], log_flow='eta0_window(..., log_flow=True): stage 2 by '
                     'theory.log_flow.limit_run (03l_log_flow), judged reached / failed with a certificate / open at log t '
                     '= 3000 (undecided)')
        run_scans(a.out, meta, runs, [t for t in LOG_TASKS if log_key(t) not in runs and a.only in key(t)], log_scan,
                  log_key, a.workers, a.budget)
    else:
        run_scans(a.out, meta, runs, [t for t in tasks() if key(t) not in runs and a.only in key(t)], scan, key,
                  a.workers, a.budget)

if __name__ == '__main__': main()
