"""Done-when study of issue 14 (stage 2 speed): the default `run_protocol` (= `attn-tokens theory` defaults) on
make_multi_relevant data, against a slow score-capped flow from the same E(1) and v.
Usage: python tools/stage2_speed.py OUT.json [--quick]   (numbers saved for nbs/03c_theory.ipynb)"""
import json, sys, time, platform
import numpy as np, torch
from attn_tokens.generators import make_multi_relevant
from attn_tokens.theory import run_protocol
from attn_tokens.gd_p import gd_p
from attn_tokens.max_margin import token_ids

def top_token(E, p, tokens):
    "Per sequence: the token with the largest score E p, and its gap to the next different token."
    t = token_ids(tokens); m = t >= 0
    zX = (E @ p)[t.clamp(min=0)].masked_fill(~m, -np.inf)
    i = zX.argmax(1); top = t.gather(1, i[:, None])[:, 0]
    second = zX.masked_fill(t == top[:, None], -np.inf).max(1).values
    return top, zX.max(1).values - second

if __name__ == '__main__':
    torch.set_num_threads(1)
    out, quick = sys.argv[1], '--quick' in sys.argv
    configs = [(200, 64, 21), (1000, 128, 22)] if quick else [(n, d, s) for s in (21, 22) for n in (200, 1000, 2000) for d in (64, 128)]
    slow_steps = 2000 if quick else 4000
    rows = []
    meta = dict(command=f"python tools/stage2_speed.py {out}" + (' --quick' if quick else ''), machine=f"{platform.machine()}, shared 2-core dev machine, load average about 12 from other jobs: wall times are inflated, cpu_s is the process's CPU time",
                data="make_multi_relevant(n, n_relevant=6, n_irrelevant=30, T=8, k=(1, 3), seed=1000 + seed)",
                default="run_protocol(tokens, labels, V=V, d=d, seed=seed): eta0 = 1.2 eta_exact, monotone, momentum 0.9, step_growth 2, 3000 steps",
                slow="gd_p(E1, v, ..., steps=1, lr=0.01, monotone=True, score_cap=0.05, cap_until=1, cap_steps=slow_steps): every step but the last capped at 0.05 per score")
    for n, d, seed in configs:
        data = make_multi_relevant(n=n, n_relevant=6, n_irrelevant=30, T=8, k=(1, 3), seed=1000 + seed)
        t0, c0 = time.time(), time.process_time(); res = run_protocol(data.tokens, data.labels, V=data.V, d=d, seed=seed)
        wall, cpu = time.time() - t0, time.process_time() - c0
        S = res.summary(); R = S['reached']
        t1 = time.time()
        p_slow, hs = gd_p(res.E1, res.v, data.tokens, data.labels, steps=1, lr=0.01, sel=res.selection, record_every=10**9,
                          monotone=True, score_cap=0.05, cap_until=1., cap_steps=slow_steps)
        top_f, gap_f = top_token(res.E1, res.p, data.tokens); top_s, gap_s = top_token(res.E1, p_slow, data.tokens)
        decided = gap_s > 1.
        rows.append(dict(n=n, d=d, seed=seed, data_seed=1000 + seed, time_s=round(wall, 2), cpu_s=round(cpu, 2), cos_reached=R['cos'], kind=R['kind'],
                         n_argmax=R['n_argmax'], diagnosis=S['diagnosis'], loss_monotone=S['loss_monotone'], steps=S['steps'],
                         capped_steps=S['capped_steps'], backtracks=S['backtracks'], time_s_cos_0999=S['time_s_cos_0999'],
                         eta0_over_exact=S['eta0'] / S['eta0_exact_threshold'],
                         slow_steps=slow_steps, slow_time_s=round(time.time() - t1, 2), slow_monotone=hs.monotone(),
                         slow_n_decided=int(decided.sum()), same_top_where_decided=int((top_f == top_s)[decided].sum()),
                         same_top_all=int((top_f == top_s).sum()), slow_min_gap=float(gap_s.min()),
                         statement1=R['statement1'], statement2=R['statement2']))
        print(json.dumps(rows[-1]), flush=True)
        json.dump(dict(meta=meta, rows=rows), open(out, 'w'), indent=1)
    json.dump(dict(meta=meta, rows=rows), open(out, 'w'), indent=1)
