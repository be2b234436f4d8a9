"""Theorem 4.3 along d at fixed eta0 (notebook 03h_any_d): the failure rate over init seeds at d = 2^11, 2^13,
..., 2^25 and at d = inf, without and with a perturbation of the scores, on n2000_V110_T32
(make_assumption1(n=2000, n_relevant=10, n_irrelevant=100, T=32, seed=0), the set of tools/eta0_window.py) at
eta0 = 440 and 1320 (the two of the large-d runs that motivated it: the first fails at d = 2048, the second
at every d tried). Stage 2's inputs are sampled in token coordinates (the cost does not depend on d).
Cells: each finite d; 'inf' (no randomness at all: one run); 'inf+noise' (u + EPS xi, EPS = 1e-12, xi from
the seed). Seeds 0..19 one at a time, each over every cell (ORDER: the ends of the sweep first) and both eta0, so that
a sweep cut off by its time budget has the same seeds in every cell, give or take one. Per run: beyond.seed_outcome ('reached', 'failed': converged in
direction away from p_mm^rel, 'undecided'), the ending, the sequences without a relevant token, time.
The rule, stated before any run (read by the notebook): per eta0, 'holds at large d' when the failure rate
(failed + undecided) falls to 0 within the sweep, with d0 the smallest d from which every larger finite d has
a 95% Wilson upper end below 0.1; 'counterexample' only when failure persists at the largest d and at d = inf
under perturbation (Wilson lower end of the failed seeds above 1/2 in both); 'undecided' otherwise.
Written to OUT.json atomically after every run; a rerun with the same OUT skips the runs done.
Usage: nice -n 19 python tools/d_limit.py OUT.json [--budget SECONDS]"""
import argparse, json, math, os, sys, time
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from any_d_check import resume, run_one, key

COMMAND = 'nice -n 19 python tools/d_limit.py nbs/measured/d_limit.json'
SHAPE = ('n2000_V110_T32', dict(n=2000, n_relevant=10, n_irrelevant=100, T=32))
ETA0S, EPS, SEEDS, BLOCK = (440., 1320.), 1e-12, 20, 1
CELLS = [2 ** k for k in range(11, 26, 2)] + ['inf', 'inf+noise']
# the order of the cells within a block: the ends of the sweep first (the largest d, d = inf with and
# without perturbation, the smallest d), then the middle, so that a cut-off sweep still has both ends
ORDER = [2 ** 25, 'inf+noise', 'inf', 2 ** 11, 2 ** 17, 2 ** 21, 2 ** 13, 2 ** 15, 2 ** 19, 2 ** 23]

def tasks():
    "Every (eta0, cell, seed): blocks of BLOCK seeds, each over every (eta0, cell); 'inf' once."
    return [(eta0, cell, s) for b in range(0, SEEDS, BLOCK) for cell in ORDER for eta0 in ETA0S
            for s in range(b, b + BLOCK) if not (cell == 'inf' and s > 0)]

def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0]); ap.add_argument('out')
    ap.add_argument('--budget', type=float, default=math.inf, help='stop starting runs after this many s')
    a = ap.parse_args()
    import torch
    from attn_tokens.infra.files import write_json
    torch.set_num_threads(1)
    meta = dict(command=COMMAND, shape=SHAPE[0], generator=f'make_assumption1(**{SHAPE[1]}, seed=0)',
                eta0s=list(ETA0S), cells=[str(c) for c in CELLS], eps=EPS, seeds=SEEDS,
                protocol="run_protocol(tokens, labels, V=V, d=d, seed=seed, eta0=eta0, init='sampled', "
                         "score_noise=EPS in 'inf+noise'): the defaults of attn-tokens theory otherwise",
                machine='2-core machine with other work on it; one process, one torch thread, nice 19')
    runs = resume(a.out); todo = [t for t in tasks() if key(t) not in runs]; t0 = time.time()
    print(f"{len(runs)} runs done, {len(todo)} to go", flush=True)
    for i, (eta0, cell, seed) in enumerate(todo, 1):
        if time.time() - t0 > a.budget: print('budget spent'); break
        d = math.inf if str(cell).startswith('inf') else cell
        rec = dict(eta0=eta0, cell=str(cell), seed=seed) | run_one(
            SHAPE[1], d, eta0, seed, 'sampled', EPS if cell == 'inf+noise' else 0.)
        runs[key((eta0, cell, seed))] = rec
        write_json(a.out, dict(meta=meta, runs=runs))
        print(f"[{i}/{len(todo)}, {time.time() - t0:.0f} s] {key((eta0, cell, seed))}: "
              f"{rec.get('outcome', rec.get('ending'))} ({rec['time_s']:.1f} s)", flush=True)

if __name__ == '__main__': main()
