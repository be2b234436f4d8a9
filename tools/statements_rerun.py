"""Re-run, with the final default (10000 normalised steps, stop at score gap 300), the rows of nbs/measured/statements.json
that ended 'unfinished'. Usage: python tools/statements_rerun.py nbs/measured/statements.json"""
import json, sys, time
import torch
from attn_tokens.generators import make_multi_relevant
from attn_tokens.theory import run_protocol
FREQ = {'uniform': [1, 1, 1], '3:1:1': [3, 1, 1], '10:1:1': [10, 1, 1]}
if __name__ == '__main__':
    torch.set_num_threads(1)
    path = sys.argv[1]; J = json.load(open(path)); out = []
    for r in J['rows']:
        if r['diagnosis'] == 'converged': continue
        data = make_multi_relevant(n=400, n_relevant=6, n_irrelevant=30, T=8, k=(1, 3), freq=FREQ[r['freq']], seed=3000 + r['seed'])
        c0 = time.process_time(); res = run_protocol(data.tokens, data.labels, V=data.V, d=64, seed=r['seed']); S = res.summary(); R = S['reached']
        out.append(dict(freq=r['freq'], seed=r['seed'], kind=R['kind'], cos_reached=R['cos'], diagnosis=S['diagnosis'], steps=S['steps'],
                        capped_steps=S['capped_steps'], cpu_s=round(time.process_time() - c0, 1), time_s=S['time_s'], loss_monotone=S['loss_monotone'],
                        statement1=R['statement1'], statement2=R['statement2']))
        print(json.dumps(out[-1]), flush=True)
    J = json.load(open(path)); J['rerun_final_default'] = out
    J['meta']['rerun'] = "python tools/statements_rerun.py " + path + ": the unfinished rows with the final default"
    json.dump(J, open(path, 'w'), indent=1)
