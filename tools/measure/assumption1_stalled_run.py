"""The stalled Assumption-1 run of nbs/theory/03c_protocol.ipynb with the current default, the selection p reached, and the premises
of Theorem 4.3 and of the rebuttal's statement (1) checked on it (attn_tokens.theory.beyond.run_verdicts).
Usage: python tools/measure/assumption1_stalled_run.py > nbs/measured/assumption1_stalled.json
(Under 03d_beyond's verdict rule the run is a counterexample to statement (1) and outside Theorem 4.3's premises;
both verdicts and their premises are recorded in the file.)"""
import json, torch, time
torch.set_num_threads(1)
from attn_tokens.data.generators import make_assumption1
from attn_tokens.theory.protocol import run_protocol
from attn_tokens.theory.beyond import run_verdicts
from attn_tokens.infra.files import json_safe
data = make_assumption1(n=2000, n_relevant=10, n_irrelevant=100, T=32, seed=0)
c0 = time.process_time(); res = run_protocol(data.tokens, data.labels, d=128, seed=1); S = res.summary()
print(json.dumps(json_safe(dict(
    cos_relevant=S['cos_arg'], diagnosis=S['diagnosis'], mass=S['selection_mass'], loss_gap=res.history.loss[-1] - res.loss_inf,
    reached=S['reached'], verdicts=run_verdicts(res, data.tokens, data.labels), cpu=time.process_time() - c0,
    command="python tools/measure/assumption1_stalled_run.py (run_protocol defaults on make_assumption1(n=2000, n_relevant=10, "
            "n_irrelevant=100, T=32, seed=0), d=128, init seed 1)")), allow_nan=False))
