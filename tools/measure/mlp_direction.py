"""The MLP run of `extensions.mlp` at size full (one seed, d = width = 2048, all 25,000 IMDB reviews, its TrainConfig
`epoch_train_config`), measured per epoch up to its cap: the mean training loss of the epoch, the validation loss and
accuracy, the training accuracy on the training split (the fraction of positive margins) and the smallest margin, the
norm of all parameters together and 1 - cos of their direction against the end of the epoch before (epoch 1: against
the initialisation). It resumes the run epoch by epoch from a checkpoint (the loop's own, so the trajectory is the
run's), without the direction rule, so that every epoch is measured. Expensive (about 1.5 to 3 minutes of 2 cores per epoch on this machine).
Usage: ATTN_TOKENS_DATA=<data> python tools/measure/mlp_direction.py OUT.json [SEED] [CKPT_DIR] [EPOCHS]
(EPOCHS: measure past the cap, default the cap MLP_SIZES['full']['epochs'])"""
import dataclasses, os, sys, tempfile, time
import torch
from attn_tokens.infra import files
from attn_tokens.engine import models
from attn_tokens.experiments import train as T
from attn_tokens.experiments.extensions import MLP_SIZES, epoch_train_config
from attn_tokens.experiments.real_data import load_real
from attn_tokens.experiments.framework import ExpConfig

def measure(seed, ckpt_dir, epochs=None):
    S = MLP_SIZES['full']
    tr, _ = load_real('imdb', ExpConfig(size='full', checkpoints=False), S['min_count'], S['max_len'], S['n_train'], S['n_test'])
    model = lambda: models.OneLayerAttention(tr.V, S['d'], head='mlp', seed=seed)      # the initialisation the checkpoint's key names
    ck = os.path.join(ckpt_dir, f'mlp_direction_s{seed}.ckpt')
    if os.path.exists(ck): os.remove(ck)
    tc = dataclasses.replace(epoch_train_config(S, tr.n, seed, ckpt=ck), dir_tol=None)
    k, (itr, _) = tc.eval_every, T.train_val_split(tr.n, tc)
    toks, labs = tr.tokens[itr], tr.labels[itr]
    m = model(); names = [n for n, _ in m.named_parameters()]
    flat = lambda d: [d[n].detach().clone() for n in names]
    prev, rows = flat(dict(m.named_parameters())), []
    for e in range(1, (epochs or S['epochs']) + 1):
        t0 = time.time(); m = model()
        r = T.train(m, tr.tokens, tr.labels, dataclasses.replace(tc, steps=e * k))
        cur, t1 = flat(r.last), time.time()
        P = dict(m.named_parameters())
        with torch.no_grad():
            for n, t in r.last.items(): P[n].copy_(t)
            f = torch.cat([m(m.prepare(toks[i:i + 1000])) for i in range(0, len(toks), 1000)])
        mar = (2 * labs.to(f.dtype) - 1) * f
        h = r.history[-k:]
        rows.append(dict(seed=seed, epoch=e, step=r.steps, epoch_loss=sum(x['train_loss'] for x in h) / k, val_loss=h[-1].get('val_loss'),
                         val_acc=h[-1].get('val_acc'), train_acc=float((mar > 0).double().mean()), n_wrong=int((mar <= 0).sum()),
                         min_margin=float(mar.min()), dir_change=T._dir_change(prev, cur),
                         norm=float(sum(t.double().pow(2).sum() for t in cur) ** 0.5), converged=r.converged,
                         train_s=round(t1 - t0, 1), eval_s=round(time.time() - t1, 1)))
        prev = cur
        print(rows[-1], flush=True)
        if r.converged: break
    os.remove(ck)
    return dict(tol=tc.tol, batches_per_epoch=k, n_train_split=len(itr)), rows

if __name__ == '__main__':
    out, seed = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 0
    with tempfile.TemporaryDirectory(dir=sys.argv[3] if len(sys.argv) > 3 else None) as tmp: rule, rows = measure(seed, tmp, int(sys.argv[4]) if len(sys.argv) > 4 else None)
    files.write_json(out, dict(meta=dict(command=f"python tools/measure/mlp_direction.py nbs/measured/mlp_direction.json {seed}",
                                         what=__doc__.split('Usage')[0].strip(), **rule), rows=rows))
