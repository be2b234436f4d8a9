"""The table of nbs/theory/03c_protocol.ipynb ("where the default works"), measured with the monotone default (momentum 0.9,
step_growth 2) instead of typed by hand. Usage: python tools/measure/eta0_table.py OUT.json"""
import json, sys, time
import torch
from attn_tokens.data.generators import make_assumption1
from attn_tokens.theory.protocol import run_protocol

CONFIGS = [(200, 4, 20, 8, 64), (1000, 6, 50, 12, 64), (2000, 10, 200, 16, 64), (2000, 10, 100, 32, 128),
           (5000, 20, 500, 32, 128), (5000, 20, 500, 32, 1024)]
if __name__ == '__main__':
    torch.set_num_threads(1)
    out = sys.argv[1]; rows = []
    for n, R, I, T, d in CONFIGS:
        data = make_assumption1(n=n, n_relevant=R, n_irrelevant=I, T=T, seed=0)
        for s in (0, 1):
            t0 = time.time(); res = run_protocol(data.tokens, data.labels, d=d, seed=s); S = res.summary()
            rows.append(dict(n=n, R=R, I=I, T=T, d=d, seed=s, cos_arg=S['cos_arg'], selection_mass=S['selection_mass'], diagnosis=S['diagnosis'],
                             step_cos_arg_0999=S['step_cos_arg_0999'], capped_steps=S['capped_steps'], steps=S['steps'],
                             loss_monotone=S['loss_monotone'], reached_kind=S['reached']['kind'], cos_reached=S['reached']['cos_reach'],
                             loss_gap=res.history.loss[-1] - res.loss_inf, time_s=round(time.time() - t0, 1)))
            print(json.dumps(rows[-1]), flush=True)
            json.dump(dict(meta=dict(command=f"python tools/measure/eta0_table.py {out}",
                                     data="make_assumption1(n, n_relevant=R, n_irrelevant=I, T=T, seed=0)",
                                     run="run_protocol(tokens, labels, d=d, seed=s) with the defaults (eta0 = 1.2 eta_exact, monotone, momentum 0.9)"),
                           rows=rows), open(out, 'w'), indent=1)
