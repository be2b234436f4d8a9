"""The traces of issue 53's false stops (the convergence rule of 04_train replays them): the frozen study's main point
(IMDB, every token: min_count 1, max_len 512, d = 2048, E frozen, Adam lr 0.03 on (p, v), full batch; its seeds 0 and 2,
which the old two-end rule stopped at steps 55 and 60) to step 60, and its Adam lr 0.001 sweep point (seed 0, stopped
at step 10) to step 10: per step the training loss and the gradient norm of (p, v) at the parameters the loss is
taken at. No rule stops these runs (tol None); every setting is frozen_study.py's (same seeds, split, threads), so the
trajectories are those runs'. frozen_study.json stores no histories, hence this file.

Usage (from the repository root):
  ATTN_TOKENS_DATA=<data> OMP_NUM_THREADS=1 nice -n 10 python tools/measure/convergence_traces.py \
      nbs/measured/convergence_traces.json"""
import sys, time
import torch
from attn_tokens.infra import files
from attn_tokens.data import text
from attn_tokens.engine.models import OneLayerAttention
from attn_tokens.experiments.train import TrainConfig, train
from attn_tokens.experiments.published import PAPER
from attn_tokens.experiments.real_data import REAL_SIZES
from attn_tokens.experiments.ablations import FROZEN_SIZES

COMMAND = ("ATTN_TOKENS_DATA=<data> OMP_NUM_THREADS=1 nice -n 10 python tools/measure/convergence_traces.py "
           "nbs/measured/convergence_traces.json")
MAIN = dict(min_count=1, max_len=REAL_SIZES['imdb']['full']['max_len'], d=PAPER.d, lr=FROZEN_SIZES['full']['lr'])
RUNS = [('frozen main, seed 0', 0, MAIN['lr'], 60), ('frozen main, seed 2', 2, MAIN['lr'], 60),
        ('frozen Adam lr 0.001, seed 0', 0, 1e-3, 10)]

def main(out):
    torch.set_num_threads(1)
    tr, _ = text.load_tokenized('imdb', min_count=MAIN['min_count'], max_len=MAIN['max_len'])
    runs = {}
    for name, seed, lr, steps in RUNS:
        c0 = time.process_time()
        m = OneLayerAttention(tr.V, MAIN['d'], seed=seed)
        # record_grad: the gradient norm at every step; no tol: no rule stops the run
        cfg = TrainConfig(lr=lr, steps=steps, optimizer='adam', eval_every=PAPER.eval_every, patience=None,
                          record_grad=True, seed=seed, trainable=('p', 'v'), progress=False)
        r = train(m, tr.tokens, tr.labels, cfg)
        runs[name] = dict(seed=seed, lr=lr, steps=r.steps, V=tr.V, d=MAIN['d'],
                          loss=[h['train_loss'] for h in r.history], grad_norm=[h['grad_norm'] for h in r.history],
                          cpu_seconds=time.process_time() - c0)
        print(name, r.steps, r.history[-1], flush=True)
    files.write_json(out, dict(command=COMMAND, what=__doc__.split('\n\nUsage')[0], runs=runs))

if __name__ == '__main__': main(sys.argv[1])
