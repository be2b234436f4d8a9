"""What the convergence rule of 04_train (`train.window_rule`) costs at full size: one trained run of the package's
IMDB and Yelp experiments (REAL_SIZES[...]['full'], `real_data.train_config`: Adam lr 0.001, full batch, no early
stopping, tol = PAPER.tol, dir_tol = PAPER.tol) trained until the rule stops it or CAP steps, on one thread; its
steps, stop, what the rule read at its last check, CPU and wall seconds. Resumable (a finished run is kept).

Usage (from the repository root):
  ATTN_TOKENS_DATA=<data> OMP_NUM_THREADS=1 nice -n 10 python tools/measure/convergence_cost.py \
      nbs/measured/convergence_cost.json [--only imdb,yelp] [--cap 3000]"""
import argparse, dataclasses, json, time
from pathlib import Path
import torch
from attn_tokens.infra import files
from attn_tokens.engine.models import OneLayerAttention
from attn_tokens.experiments.framework import ExpConfig
from attn_tokens.experiments.real_data import REAL_SIZES, DATASET, load_real, train_config
from attn_tokens.experiments.train import train

COMMAND = ("ATTN_TOKENS_DATA=<data> OMP_NUM_THREADS=1 nice -n 10 python tools/measure/convergence_cost.py "
           "nbs/measured/convergence_cost.json")
CAP = 3000   # ten times the experiments' full-size cap (300 steps); a run that reaches it is not converged

def one(name, cap, seed=0):
    s = dict(REAL_SIZES[name]['full'], steps=cap)
    cfg = ExpConfig(size='full', seed=seed, progress=False, checkpoints=False)
    tr, te = load_real(DATASET[name], cfg, s['min_count'], s['max_len'], s['n_train'], s['n_test'])
    m = OneLayerAttention(tr.V, s['d'], seed=seed)
    tc = dataclasses.replace(train_config(s, cfg, name), ckpt=None)
    c0, w0 = time.process_time(), time.time()
    r = train(m, tr.tokens, tr.labels, tc)
    return dict(data=DATASET[name], seed=seed, V=tr.V, n_train=tr.n, d=s['d'], max_len=s['max_len'], lr=s['lr'],
                optimizer=tc.optimizer, cap=cap, steps=r.steps, stop_reason=r.stop_reason, converged_by=r.converged_by,
                rule=r.rule, train_loss=r.train_loss, cpu_seconds=time.process_time() - c0,
                wall_seconds=time.time() - w0, threads=torch.get_num_threads(),
                seconds_per_step=(time.process_time() - c0) / max(r.steps, 1))

def main(argv=None):
    ap = argparse.ArgumentParser(); ap.add_argument('out'); ap.add_argument('--only', default='imdb,yelp')
    ap.add_argument('--cap', type=int, default=CAP); a = ap.parse_args(argv)
    out = Path(a.out); res = json.loads(out.read_text()) if out.exists() else {'command': COMMAND, 'runs': {}}
    for name in a.only.split(','):
        if name in res['runs']: continue
        res['runs'][name] = one(name, a.cap)
        files.write_json(out, res); print(name, {k: v for k, v in res['runs'][name].items() if k != 'rule'},
                                          res['runs'][name]['rule'], flush=True)

if __name__ == '__main__': main()
