"""Theorem 4.3 along d (notebook 03h_any_d): the failure rate over init seeds at d = 2^11, 2^13, ..., 2^25 and at
d = inf, without and with a perturbation of the scores. Stage 2's inputs are sampled in token coordinates (the cost
does not depend on d). Two parts, each a fixed list of runs stated here before any of its runs:
  main (issue 37 item 2): n2000_V110_T32 (make_assumption1(n=2000, n_relevant=10, n_irrelevant=100, T=32, seed=0),
        the set of tools/measure/eta0_window.py) at eta0 = 440 and 1320 (the two of the large-d runs that motivated it:
        the first fails at d = 2048, the second at every d tried); cells d = 2^11, 2^13, ..., 2^25, 'inf' (no
        randomness: one run) and 'inf+noise' (u + EPS xi, EPS = 1e-12, xi from the seed); seeds 0..19, one at a
        time over every cell (ORDER: the ends of the sweep first) and both eta0, so that a sweep cut off by its
        time budget has the same seeds in every cell, give or take one.
  eta0 (item 3, a first bracketing, 3 seeds a setting): the critical eta0 along d on two Assumption-1 sets of
        other n, T, V, each eta0 at d = 2^13, 2^19, 2^25 and inf+noise (EPS = 1e-12):
        n2000_V110_T32 at eta0 = 550, 660, ..., 1210 (between 440, which reaches at large d, and 1320, which fails);
        n1000_V68_T16 (n=1000, n_relevant=8, n_irrelevant=60, T=16, seed=0) at eta0 = 110, 220, ..., 3520 (log grid:
        no run on it before); and the n-series of the first generator, n = 500 and 1000, at eta0 = 440, 660, ..., 1320,
        inf+noise only.
Per run: beyond.seed_outcome ('reached', 'failed': converged in direction away from p_mm^rel, 'undecided'), the
ending, the sequences without a relevant token, time.
The rule (read by the notebook; any_d.d_rule): per eta0, 'holds at large d' when the failure rate (failed + undecided)
falls to 0 within the sweep, with d0 the smallest d from which every larger finite d has a 95% Wilson upper end below
D0_LEVEL = 0.2; 'counterexample' only when failure persists at the largest d and at d = inf under perturbation (Wilson
lower end of the failed seeds above 1/2 in both); 'undecided' otherwise. (The first statement's 0.1 could not be met
by the sweep's 20 seeds: 0 of 20 has a Wilson upper end of 0.161, 0.1 needs 35; restated to 0.2 after 24 runs.)
Written to OUT.json atomically after every run; a rerun with the same OUT skips the runs done, and --also FILE
skips the runs in FILE too (another machine's share). --workers K runs K processes (one torch thread each).
Usage: nice -n 19 python tools/measure/d_limit.py OUT.json [--part main|eta0|all] [--workers K] [--budget S] [--deadline S]"""
import argparse, json, math, os, sys, time
os.environ.setdefault('OMP_NUM_THREADS', '1'); os.environ.setdefault('MKL_NUM_THREADS', '1')
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from any_d_check import resume, run_one
from attn_tokens.theory.any_d import D0_LEVEL, MAIN_SET, MAIN_KW   # the rule's level and the main set: one home (03h)

COMMAND = 'nice -n 19 python tools/measure/d_limit.py nbs/measured/d_limit.json --part all'
SHAPES = {MAIN_SET: {k: v for k, v in MAIN_KW.items() if k != 'seed'},
          'n1000_V68_T16': dict(n=1000, n_relevant=8, n_irrelevant=60, T=16),
          'n1000_V110_T32': dict(n=1000, n_relevant=10, n_irrelevant=100, T=32),
          'n500_V110_T32': dict(n=500, n_relevant=10, n_irrelevant=100, T=32)}
MAIN = MAIN_SET
ETA0S, EPS, SEEDS = (440., 1320.), 1e-12, 20
CELLS = [2 ** k for k in range(11, 26, 2)] + ['inf', 'inf+noise']
# the order of the cells within a block: the ends of the sweep first (the largest d, d = inf with and
# without perturbation, the smallest d), then the middle, so that a cut-off sweep still has both ends
ORDER = [2 ** 25, 'inf+noise', 'inf', 2 ** 11, 2 ** 17, 2 ** 21, 2 ** 13, 2 ** 15, 2 ** 19, 2 ** 23]
ETA0_GRID = {'n2000_V110_T32': [550., 660., 770., 880., 990., 1100., 1210.],
             'n1000_V68_T16': [110., 220., 440., 880., 1760., 3520.]}
N_SERIES = {'n1000_V110_T32': [440., 660., 880., 1100., 1320.], 'n500_V110_T32': [440., 660., 880., 1100., 1320.]}
ETA0_CELLS, ETA0_SEEDS = ['inf+noise', 2 ** 25, 2 ** 13, 2 ** 19], 3

def key(task):
    "The run's key: eta0|cell|seed on the main set (the keys of the first runs), shape|eta0|cell|seed elsewhere."
    shape, eta0, cell, seed = task
    return '|'.join(map(str, (eta0, cell, seed) if shape == MAIN else task))

def tasks(part):
    "The runs of a part, in the order they start: (shape, eta0, cell, seed)."
    main = [(MAIN, eta0, cell, s) for s in range(SEEDS) for cell in ORDER for eta0 in ETA0S
            if not (cell == 'inf' and s > 0)]
    # seed by seed: d = inf and 2^25 over both grids, the n-series, then the other cells of the grids
    grid = lambda s, cells: [(shape, eta0, cell, s) for cell in cells for shape, g in ETA0_GRID.items() for eta0 in g]
    eta = [t for s in range(ETA0_SEEDS) for t in grid(s, ETA0_CELLS[:2])
           + [(shape, eta0, 'inf+noise', s) for shape, g in N_SERIES.items() for eta0 in g] + grid(s, ETA0_CELLS[2:])]
    return {'main': main, 'eta0': eta, 'all': main + eta}[part]

def work(task):
    "One run (in a worker process): its record."
    import torch; torch.set_num_threads(1)
    shape, eta0, cell, seed = task
    d = math.inf if str(cell).startswith('inf') else cell
    return task, dict(shape=shape, eta0=eta0, cell=str(cell), seed=seed) | run_one(
        SHAPES[shape], d, eta0, seed, 'sampled', EPS if cell == 'inf+noise' else 0.)

def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0]); ap.add_argument('out')
    ap.add_argument('--part', choices=('main', 'eta0', 'all'), default='all')
    ap.add_argument('--workers', type=int, default=1)
    ap.add_argument('--budget', type=float, default=math.inf, help='start no run after this many s')
    ap.add_argument('--deadline', type=float, default=math.inf, help='stop the runs in flight after this many s')
    ap.add_argument('--also', default=None, help='a results file whose runs are skipped too')
    a = ap.parse_args()
    import multiprocessing as mp
    from attn_tokens.infra.files import write_json
    meta = dict(command=COMMAND, shapes={k: f'make_assumption1(**{v}, seed=0)' for k, v in SHAPES.items()},
                main=MAIN, eta0s=list(ETA0S), cells=[str(c) for c in CELLS], eps=EPS, seeds=SEEDS,
                d0_level=D0_LEVEL, eta0_grid=ETA0_GRID, n_series=N_SERIES,
                eta0_cells=[str(c) for c in ETA0_CELLS], eta0_seeds=ETA0_SEEDS,
                protocol="run_protocol(tokens, labels, V=V, d=d, seed=seed, eta0=eta0, init='sampled', "
                         "score_noise=EPS in 'inf+noise'): the defaults of attn-tokens theory otherwise",
                machine='one process per run, one torch thread each, nice 19')
    if os.path.exists(a.out):     # a resumed file keeps the account of the machines its earlier runs ran on
        meta['machine'] = json.loads(open(a.out).read())['meta'].get('machine', meta['machine'])
    runs = resume(a.out); done = set(runs) | set(resume(a.also) if a.also else {})
    todo = [t for t in tasks(a.part) if key(t) not in done]; t0 = time.time()
    print(f"{len(runs)} runs done, {len(todo)} to go, {a.workers} workers", flush=True)
    pool = mp.get_context('fork').Pool(a.workers, maxtasksperchild=1); flight = []; it = iter(todo); n = 0
    def submit():
        for t in it:
            flight.append(pool.apply_async(work, (t,))); return True
        return False
    for _ in range(a.workers): submit()
    while flight:
        time.sleep(0.2); el = time.time() - t0
        if el > a.deadline: print(f'deadline: {len(flight)} runs in flight stopped', flush=True); break
        for r in [r for r in flight if r.ready()]:
            flight.remove(r); task, rec = r.get(); runs[key(task)] = rec; n += 1
            write_json(a.out, dict(meta=meta, runs=runs))
            print(f"[{n}/{len(todo)}, {el:.0f} s] {key(task)}: {rec.get('outcome', rec.get('ending'))} "
                  f"({rec['time_s']:.1f} s)", flush=True)
            if el < a.budget: submit()
    pool.terminate()

if __name__ == '__main__': main()
