"""The eta0 window at fixed eta0: how often the two-stage protocol reaches the arg-max selection's
p_mm, per (token set, d, stage-1 rule), over init seeds. Unlike tools/measure/d_sweep.py, whose two rules
are multiples of the exact threshold (which falls like d^(-1/2), so its trend with d is confounded
with eta0), the rules here hold eta0 fixed or tie it to Corollary E's a-priori bound eta*:
  abs440: eta0 = 440 (the stalled d = 2048 runs of 03d);  1.2xE, 3.6xE: eta0 = 1.2 / 3.6 x eta*.
Fixed before any run. Per run: the reached kind, cos to the arg-max and the reached selection's
p_mm, eta0/eta*, local_optimality and strict_multipliers of the reached selection, the instability
number N_v, the loss's monotonicity, and the number of sequences that select no relevant token.
Written to OUT.json atomically after every run; a rerun with the same OUT skips the runs done.
Usage: nice -n 19 python tools/measure/eta0_window.py OUT.json [--quick] [--shard I/N]
(--shard I/N: this process runs every N-th task from the I-th; N processes share OUT.json, each
merging its run into the file under a lock)
(read by nbs/theory/03e_large_d.ipynb)"""
import argparse, fcntl, json, math, os, time
os.environ.setdefault('OMP_NUM_THREADS', '1'); os.environ.setdefault('MKL_NUM_THREADS', '1')
import torch

SHAPES = {   # make_assumption1 arguments, data seed 0 for every run (the token set is fixed)
    'n2000_V110_T32': dict(n=2000, n_relevant=10, n_irrelevant=100, T=32),
    'n300_V70_T8': dict(n=300, n_relevant=10, n_irrelevant=60, T=8),
}
RULES = {'abs440': ('abs', 440.), '1.2xE': ('corE', 1.2), '3.6xE': ('corE', 3.6)}
# (shape, d, rules, seeds); the runs go in blocks of 5 seeds, each block over every cell in this
# order (cheap cells first), so that a sweep cut off by its time budget has the same seeds in
# every cell (fixed before any run of the larger cells, independent of any outcome)
PLAN = [('n2000_V110_T32', 128, ('abs440', '1.2xE', '3.6xE'), range(20)),
        ('n300_V70_T8', 128, ('1.2xE', '3.6xE'), range(20)),
        ('n300_V70_T8', 512, ('1.2xE', '3.6xE'), range(20)),
        ('n2000_V110_T32', 512, ('abs440', '1.2xE', '3.6xE'), range(20)),
        ('n300_V70_T8', 2048, ('1.2xE', '3.6xE'), range(20)),
        ('n2000_V110_T32', 2048, ('abs440', '1.2xE', '3.6xE'), range(20)),
        ('n300_V70_T8', 8192, ('1.2xE', '3.6xE'), range(10)),
        ('n2000_V110_T32', 8192, ('abs440', '1.2xE', '3.6xE'), range(10))]
COMMAND = 'nice -n 19 python tools/measure/eta0_window.py nbs/measured/eta0_window.json'

BLOCK = 5

def tasks(quick=False):
    "Every (shape, d, rule, seed): blocks of BLOCK seeds, each over PLAN's cells in order."
    if quick: return [('n300_V70_T8', 32, r, s) for r in ('1.2xE',) for s in range(2)]
    top = max(len(seeds) for *_, seeds in PLAN)
    return [(sh, d, r, s) for b in range(0, top, BLOCK) for sh, d, rules, seeds in PLAN
            for s in seeds[b:b + BLOCK] for r in rules]

def key(task): return '|'.join(map(str, task))

def run_one(task):
    "One run: a record of numbers (no verdict: the notebook derives those)."
    shape, d, rule, seed = task
    from attn_tokens.engine import core
    from attn_tokens.data.generators import make_assumption1
    from attn_tokens.theory.eta0 import eta0_threshold
    from attn_tokens.theory.protocol import run_protocol
    from attn_tokens.theory.max_margin import local_optimality, token_ids
    from attn_tokens.theory.beyond import strict_multipliers, instability_number
    data = make_assumption1(seed=0, **SHAPES[shape])
    E0, _, v = core.init_params(data.V, d, seed=seed)
    eta_star = eta0_threshold(data.tokens, data.labels, data.V, (E0 @ v).abs().max().item())
    kind, x = RULES[rule]
    rec = dict(shape=shape, d=d, rule=rule, seed=seed, eta0_star=eta_star)
    if kind == 'corE' and not math.isfinite(eta_star):
        return rec | dict(ending='no_bound', error='Corollary E gives no finite bound')
    eta0 = x if kind == 'abs' else x * eta_star
    t0, c0 = time.time(), time.process_time()
    try: res = run_protocol(data.tokens, data.labels, V=data.V, d=d, seed=seed, eta0=eta0)
    except (ValueError, RuntimeError) as e:
        return rec | dict(ending='error', eta0=eta0, error=str(e)[:400], time_s=time.time() - t0)
    S = res.summary(); R = res.reached; H = res.history
    t = token_ids(data.tokens)
    N_v = instability_number(res.E1, res.v, data.tokens, data.labels, res.mm.p)[0] \
        if res.mm.feasible else None
    lo = strict = None
    if R['feasible'] and R['n_several'] == 0:
        sel_r = torch.where(R['mask'], t, -1).max(1).values
        mmr = getattr(R['mm'], 'mm', R['mm'])
        L = local_optimality(res.E1, res.v, t, data.labels, sel_r, mmr.p)
        lo = dict(locally_optimal=L.locally_optimal, n_tight=L.n_tight, n_violating=L.n_violating)
        A = (res.E1[mmr.pairs[:, 0]] - res.E1[mmr.pairs[:, 1]]).numpy()
        act = abs(A @ mmr.p.numpy() - 1) <= 1e-9
        strict = strict_multipliers(A[act], mmr.p.numpy())
    step = H.step_excess or H.step_loss
    return rec | dict(
        eta0=res.eta0, eta0_exact=res.eta0_exact, eta0_over_star=res.eta0 / eta_star,
        reached_kind=R['kind'], n_argmax=R['n_argmax'], n_several=R['n_several'],
        one_minus_cos_reach=R['one_minus_cos_reach'], one_minus_cos_arg=S['one_minus_cos_arg'],
        n_without_relevant=R['statement1']['n_without_relevant'],
        loss_monotone=bool(H.monotone()),
        largest_increase=float(max(0., max((b - a for a, b in zip(step, step[1:])), default=0.))),
        assumption1=bool(res.assumption1.holds), feasible=bool(res.mm.feasible),
        local_optimality=lo, strict_multipliers=strict, N_v=N_v, diagnosis=S['diagnosis'],
        stop=S['stop'][:160], steps=S['steps'], time_s=time.time() - t0,
        cpu_s=time.process_time() - c0)

def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('out'); ap.add_argument('--quick', action='store_true')
    ap.add_argument('--shard', default='0/1', help='I/N: every N-th task from the I-th')
    a = ap.parse_args()
    i_sh, n_sh = map(int, a.shard.split('/'))
    if not 0 <= i_sh < n_sh: ap.error(f'--shard {a.shard}: need 0 <= I < N')
    from attn_tokens.infra.files import write_json
    torch.set_num_threads(1)
    def load():
        return json.load(open(a.out))['runs'] if os.path.exists(a.out) else {}
    runs = load()
    todo = [t for j, t in enumerate(tasks(a.quick)) if j % n_sh == i_sh and key(t) not in runs]
    meta = dict(command=COMMAND + (' --quick' if a.quick else ''),
                shapes={k: v | dict(seed=0) for k, v in SHAPES.items()},
                generator='make_assumption1', rules={k: list(v) for k, v in RULES.items()},
                plan=[[sh, d, list(r), len(s)] for sh, d, r, s in PLAN],
                protocol='run_protocol(tokens, labels, V=V, d=d, seed=seed, eta0=eta0): the '
                         'defaults of attn-tokens theory (stage 2 the exponential-Euler flow, '
                         'stop when every top token leads by 300, at most 10000 steps)',
                machine=f'2-core machine with other work on it; {n_sh} process(es) '
                        '(--shard), one torch thread each, nice 19')
    print(f"{len(runs)} runs done, {len(todo)} to go", flush=True)
    t0 = time.time()
    for i, task in enumerate(todo, 1):
        rec = run_one(task)
        with open(a.out + '.lock', 'w') as lock:   # the other shards' runs are kept
            fcntl.flock(lock, fcntl.LOCK_EX)
            runs = load(); runs[key(task)] = rec
            write_json(a.out, dict(meta=meta, runs=runs))
        print(f"[{i}/{len(todo)}, {time.time() - t0:.0f} s] {key(task)}: "
              f"{rec.get('reached_kind', rec.get('ending'))} ({rec.get('time_s', 0):.1f} s)",
              flush=True)

if __name__ == '__main__': main()
