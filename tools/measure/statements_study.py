"""Which selection stage 2 makes with several relevant tokens per sequence, and the rebuttal's two statements (issue 14
item 2). Usage: python tools/measure/statements_study.py OUT.json [--quick]   (numbers saved for nbs/theory/03c_protocol.ipynb)"""
import json, sys
import numpy as np, torch
from attn_tokens.data.generators import make_multi_relevant
from attn_tokens.theory.protocol import run_protocol, reached_selection, tie_scores
from attn_tokens.theory.integrators import Stage2Config, stage2
from attn_tokens.theory.max_margin import selection, constraint_pairs, max_margin, max_margin_sets

def tied_run(n, d, seed, steps=3000):
    "Tied groups {0,1},{2,3},... of relevant tokens, scores tied exactly after stage 1; the score-capped stage-2 schedule from p = 0."
    data = make_multi_relevant(n=n, n_relevant=8, n_irrelevant=30, T=8, k=2, tied=True, seed=2000 + seed)
    res = run_protocol(data.tokens, data.labels, V=data.V, d=d, seed=seed, steps=1)
    E = tie_scores(res.E1, res.v, [[0, 1], [2, 3], [4, 5], [6, 7]]); u = E @ res.v
    sel = selection(u, data.tokens, data.labels); mm = max_margin(E, constraint_pairs(data.tokens, sel))
    cfg = Stage2Config('armijo', steps=steps, lr=0.1, record_every=10**9, score_cap=0.05, cap_steps=10 * steps, momentum=0.9,
                       step_growth=2., max_lr=1., stop_gap=300.)
    p, h = stage2(cfg).run(E, res.v, data.tokens, data.labels, sel=sel)
    R = reached_selection(E, res.v, p, data.tokens, data.labels, sel, mm)
    zg = (E @ p)
    # the loss cannot see how mass splits inside a tied group: drop the constraints of the selected token against its tied mate
    t = data.tokens; top = t.gather(1, (E @ p)[t.clamp(min=0)].masked_fill(t < 0, -np.inf).argmax(1, keepdim=True))[:, 0]
    pairs = constraint_pairs(t, top); keep = (pairs[:, 0] // 2 != pairs[:, 1] // 2) | (pairs[:, 0] >= 8) | (pairs[:, 1] >= 8)
    mm_free = max_margin(E, pairs[keep])
    omc_free = 0.5 * (p / p.norm() - mm_free.p / mm_free.p.norm()).norm().item() ** 2
    mm_set = max_margin_sets(E, t, (t >= 0) & (t < 8))              # both tied tokens selected: equalities
    cos_set = 1 - 0.5 * (p / p.norm() - mm_set.p / mm_set.p.norm()).norm().item() ** 2
    within = [abs((zg[a] - zg[b]).item()) for a, b in ((0, 1), (2, 3), (4, 5), (6, 7))]
    return dict(n=n, d=d, seed=seed, tied=True, max_u_gap=float(max(abs(u[a] - u[b]).item() for a, b in ((0, 1), (2, 3)))),
                cos_top_without_mate_constraints=1 - omc_free, kind=R['kind'], n_several=R['n_several'], cos_reached=R['cos_reach'], feasible=R['feasible'],
                max_within_group_score_gap=max(within), p_norm=p.norm().item(), loss_monotone=h.monotone(), stop=h.stop_reason,
                cos_set_equalities=cos_set,
                statement1=R['statement1'], statement2=R['statement2'],
                stationarity=getattr(R['mm'], 'stationarity', None), eq_residual=getattr(R['mm'], 'eq_residual', None))

if __name__ == '__main__':
    torch.set_num_threads(1)
    out, quick = sys.argv[1], '--quick' in sys.argv
    seeds = range(2) if quick else range(8)
    freqs = {'uniform': [1, 1, 1], '3:1:1': [3, 1, 1], '10:1:1': [10, 1, 1]}
    rows = []
    if '--tied-only' in sys.argv: rows = json.load(open(out))['rows']; freqs = {}
    for name, f in freqs.items():
        for s in seeds:
            data = make_multi_relevant(n=400, n_relevant=6, n_irrelevant=30, T=8, k=(1, 3), freq=f, seed=3000 + s)
            res = run_protocol(data.tokens, data.labels, V=data.V, d=64, seed=s)
            S = res.summary(); R = S['reached']
            rows.append(dict(freq=name, seed=s, n=400, d=64, kind=R['kind'], n_argmax=R['n_argmax'], n_several=R['n_several'],
                             cos_reached=R['cos_reach'], diagnosis=S['diagnosis'], loss_monotone=S['loss_monotone'], time_s=S['time_s'],
                             statement1=R['statement1'], statement2=R['statement2']))
            print(json.dumps(rows[-1]), flush=True)
    tied = []
    for s in seeds:
        tied.append(tied_run(400, 64, s)); print(json.dumps(tied[-1]), flush=True)
    meta = dict(command=f"python tools/measure/statements_study.py {out}" + (' --quick' if quick else '') + "; tied rows: the same with --tied-only",
                data="make_multi_relevant(n=400, n_relevant=6, n_irrelevant=30, T=8, k=(1, 3), freq=F, seed=3000 + s); "
                     "tied: make_multi_relevant(n=400, n_relevant=8, n_irrelevant=30, T=8, k=2, tied=True, seed=2000 + s), "
                     "E(1) rows of each group shifted along v to tie E_s^T v exactly",
                run=("run_protocol defaults (d=64, init seed s; stage 2 the flow integrator); tied: scheme 'armijo' with the score-capped "
                     "schedule (score_cap 0.05, momentum 0.9, step_growth 2, stop at score gap 300) from p = 0 on the tied E"))
    json.dump(dict(meta=meta, rows=rows, tied=tied), open(out, 'w'), indent=1)
