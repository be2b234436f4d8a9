"""The stalled Assumption-1 run of nbs/03c_theory.ipynb with the current default, and the selection p reached.
Usage: python tools/counterexample_run.py > nbs/measured/counterexample.json"""
import json, torch, time
torch.set_num_threads(1)
from attn_tokens.generators import make_assumption1
from attn_tokens.theory import run_protocol
data = make_assumption1(n=2000, n_relevant=10, n_irrelevant=100, T=32, seed=0)
c0 = time.process_time(); res = run_protocol(data.tokens, data.labels, d=128, seed=1); S = res.summary()
print(json.dumps(dict(cos=S['cos'], diagnosis=S['diagnosis'], mass=S['selection_mass'], loss_gap=res.history.loss[-1] - res.loss_inf, reached=S['reached'], cpu=time.process_time() - c0)))
