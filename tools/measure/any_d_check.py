"""Stage 2 at any d (notebook 03h_any_d): the sampled init against the explicit one, and the cost along d.
  law:  on n300_V70_T8 (make_assumption1, data seed 0) at d = 2048, eta0 = 200, init seeds 0..19, each seed run
        with E(0) drawn explicitly (V x d) and in token coordinates ('sampled'): the failure counts of the two
        paths, which must agree within their Wilson intervals (the runs are not paired: the draws differ).
        eta0 = 200 lies between 150 (4 of 4 seeds reach at d = 2048) and 250 (4 of 4 fail) of a probe run
        before this script, so that the failure rate is neither 0 nor 1 and the comparison can fail.
  time: the same run (seed 0, eta0 = 200) at d = 2048 (the default, explicit) and at 2048 (sampled), 1e5, 1e6,
        1e9 and inf (sampled): wall and CPU time, steps; three repeats of each, interleaved, after the law runs.
Written to OUT.json atomically after every run; a rerun with the same OUT skips the runs done.
Usage: nice -n 19 python tools/measure/any_d_check.py OUT.json [--quick]
(read by nbs/theory/03h_any_d.ipynb)"""
import argparse, json, math, os, time
os.environ.setdefault('OMP_NUM_THREADS', '1'); os.environ.setdefault('MKL_NUM_THREADS', '1')
import torch

COMMAND = 'nice -n 19 python tools/measure/any_d_check.py nbs/measured/any_d_check.json'
SHAPE = ('n300_V70_T8', dict(n=300, n_relevant=10, n_irrelevant=60, T=8))
ETA0 = 200.
LAW = [('law', 2048, init, s) for s in range(20) for init in ('explicit', 'sampled')]
# each timing three times, interleaved (the machine is shared: the notebook reads the fastest of each)
TIME = [('time', d, init, 0, r) for r in range(3)
        for d, init in [(2048, 'explicit')] + [(d, 'sampled') for d in (2048, 10**5, 10**6, 10**9, math.inf)]]

def key(task): return '|'.join(map(str, task))

def run_one(shape, d, eta0, seed, init=None, score_noise=0., **kw):
    """One run_protocol run on make_assumption1(**shape, seed=0): a record of numbers (Theorem 4.3's outcome
    on the seed by beyond.seed_outcome, the ending, the sequences without a relevant token, time)."""
    from attn_tokens.data.generators import make_assumption1
    from attn_tokens.theory.protocol import run_protocol
    data = make_assumption1(seed=0, **shape)
    t0, c0 = time.time(), time.process_time()
    try:
        res = run_protocol(data.tokens, data.labels, V=data.V, d=d, seed=seed, eta0=eta0, init=init,
                           score_noise=score_noise, **kw)
    except (ValueError, RuntimeError) as e:
        return dict(ending='error', error=str(e)[:400], time_s=time.time() - t0)
    from attn_tokens.theory.beyond import seed_outcome
    S = res.summary(); R = S['reached']
    return dict(outcome=seed_outcome(res, data.tokens, data.labels)[0], reached_kind=R['kind'], n_without_relevant=R['statement1']['n_without_relevant'],
                one_minus_cos_reach=R['one_minus_cos_reach'], one_minus_cos_arg=S['one_minus_cos_arg'],
                diagnosis=S['diagnosis'], init=S['init'], steps=S['steps'], stop=S['stop'][:160],
                time_s=time.time() - t0, cpu_s=time.process_time() - c0)

def resume(path):
    "The runs already in OUT (a dict), or {}."
    return json.loads(open(path).read())['runs'] if os.path.exists(path) else {}

def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('out'); ap.add_argument('--quick', action='store_true')
    a = ap.parse_args()
    from attn_tokens.infra.files import write_json
    torch.set_num_threads(1)
    tasks = [('law', 64, i, s) for s in range(2) for i in ('explicit', 'sampled')] if a.quick \
        else LAW + TIME
    runs = resume(a.out); todo = [t for t in tasks if key(t) not in runs]
    meta = dict(command=COMMAND + (' --quick' if a.quick else ''), shape=SHAPE[0],
                generator=f'make_assumption1(**{SHAPE[1]}, seed=0)', eta0=ETA0,
                protocol='run_protocol(tokens, labels, V=V, d=d, seed=seed, eta0=200, init=init): the '
                         'defaults of attn-tokens theory otherwise',
                machine='2-core machine with other work on it; one process, one torch thread, nice 19')
    print(f"{len(runs)} runs done, {len(todo)} to go", flush=True)
    for i, task in enumerate(todo, 1):
        part, d, init, seed = task[:4]
        rec = dict(part=part, d=d if math.isfinite(d) else 'inf', init=init, seed=seed,
                   repeat=task[4] if len(task) > 4 else None) | run_one(
            SHAPE[1], d, ETA0, seed, init)
        runs[key(task)] = rec
        write_json(a.out, dict(meta=meta, runs=runs))
        print(f"[{i}/{len(todo)}] {key(task)}: {rec.get('reached_kind', rec.get('ending'))} "
              f"({rec['time_s']:.1f} s)", flush=True)

if __name__ == '__main__': main()
