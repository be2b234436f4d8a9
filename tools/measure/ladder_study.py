"""The ladder that decides: the size chosen by a rule stated before any rung is looked at, then
every rung R0-R7 run there to convergence on 3 seeds and both data sets. Writes nbs/measured/ladder_study.json,
resumable (every finished run is kept; a rerun does the rest).

The size rule, fixed before the rungs: SIZES are tried in increasing cost, R0 alone (phase `size`); the chosen size is
the first at which R0, on every seed of SEEDS and on both data sets,
  (a) converges before CAP steps: the full-batch training loss falls below LOSS_TOL (the training set separated: on
      separable data the logistic loss falls geometrically for ever and only the direction converges) or its
      relative fall over WINDOW steps is below TOL;
  (b) selects: its top-decile share exceeds uniform attention's by more than two binomial standard errors,
      2 sqrt(u (1 - u) / n_test) with u the uniform share (the noise of a share measured on n_test sequences);
  (c) classifies: test accuracy exceeds 1/2 by more than two standard errors, 2 sqrt(1/4 / n_test).
Phase `rungs` runs R0-R7 at the chosen size with the same stopping rule; a run that reaches CAP is 'undecided'.
Optimizer: the ladder's AdamW (fit_ladder's betas), full batch, lr of the size, no decay.

    ATTN_TOKENS_DATA=<data> nice -n 19 python tools/measure/ladder_study.py nbs/measured/ladder_study.json --phase size
    ATTN_TOKENS_DATA=<data> nice -n 19 python tools/measure/ladder_study.py nbs/measured/ladder_study.json --phase rungs [--device cuda]
"""
import argparse, json, math, sys, time
from pathlib import Path
import torch
from attn_tokens.infra.files import write_json
from attn_tokens.experiments.framework import ExpConfig
from attn_tokens.experiments.real_data import DATASET, load_real
from attn_tokens.experiments.transformer_ladder import (LADDER, LADDER_SETS, build, reference, top_share,
                                                         test_accuracy, device_line)

SIZES = {   # increasing cost; min_count as the ladder's sizes; d and heads grow with the length
    's1': dict(n_train=300, n_test=300, max_len=48, d=24, heads=4, lr=0.01),
    's2': dict(n_train=1000, n_test=500, max_len=64, d=32, heads=4, lr=0.01),
    's3': dict(n_train=2000, n_test=1000, max_len=128, d=64, heads=4, lr=0.003),
    's4': dict(n_train=5000, n_test=1000, max_len=256, d=128, heads=4, lr=0.001),
    'gpu': dict(n_train=10000, n_test=2000, max_len=512, d=256, heads=8, lr=0.001)}
MIN_COUNT = {'imdb': 20, 'yelp_sentences': 5}
SEEDS, WINDOW, TOL, LOSS_TOL, CAP = (0, 1, 2), 50, 1e-3, 1e-3, 5000

def train_to_convergence(m, tr, lr, seed):
    "AdamW full batch until the loss is below LOSS_TOL or falls by less than TOL (relative) over WINDOW steps, or CAP steps."
    torch.manual_seed(seed)
    opt = torch.optim.AdamW([q for q in m.parameters() if q.requires_grad], lr=lr, weight_decay=0.)
    dev = next(m.parameters()).device
    b, y = m.prepare(tr.tokens), torch.as_tensor(tr.labels).to(dev)
    losses = []
    for step in range(1, CAP + 1):
        opt.zero_grad(); loss = m.loss(b, y); loss.backward(); opt.step()
        losses.append(float(loss.detach()))
        if losses[-1] < LOSS_TOL or (step > WINDOW and (losses[-WINDOW - 1] - losses[-1]) < TOL * abs(losses[-WINDOW - 1])):
            return step, True, losses[-1]
    return CAP, False, losses[-1]

def one_run(rung, name, tr, te, ref, s, seed, device):
    t0 = time.time()
    m = build(rung, tr.V, s['d'], seed, n_heads=s['heads'] if rung >= 'R3' else None, max_len=s['max_len']).to(device)
    steps, conv, loss = train_to_convergence(m, tr, s['lr'], seed)
    share, acc, u, n = top_share(m, te.tokens, ref['top']), test_accuracy(m, te.tokens, te.labels), ref['share_uniform'], len(te.tokens)
    return dict(rung=rung, data=name, seed=seed, steps=steps, converged=conv, verdict='run' if conv else f'undecided (cap {CAP})',
                loss=loss, share=share, share_uniform=u, test_acc=acc,
                selects=share - u > 2 * math.sqrt(u * (1 - u) / n), classifies=acc - 0.5 > 2 * math.sqrt(0.25 / n),
                seconds=time.time() - t0)

def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('out'); ap.add_argument('--phase', choices=('size', 'rungs'), required=True)
    ap.add_argument('--device', default='cpu'); ap.add_argument('--sizes', nargs='+', default=list(SIZES))
    a = ap.parse_args(argv)
    out = Path(a.out)
    res = json.loads(out.read_text()) if out.exists() else {'runs': {}, 'rule': __doc__.split('\n\n')[1]}
    print(device_line(a.device), flush=True)
    res.setdefault('devices', []).append(device_line(a.device))
    res.setdefault('commands', []).append('ATTN_TOKENS_DATA=<data> nice -n 19 python tools/measure/ladder_study.py '
                                          + ' '.join(argv if argv is not None else sys.argv[1:]))
    res['command'] = res['commands'][-1]   # the last one (every file of nbs/measured names the command that made it)
    cfg = ExpConfig(size='full')
    def runs_at(size, rungs):
        s = SIZES[size]
        for name in LADDER_SETS:
            tr, te = load_real(DATASET[name], cfg, MIN_COUNT[name], s['max_len'], s['n_train'], s['n_test'])
            ref = reference(tr, te)
            for seed in SEEDS:
                for rung in rungs:
                    key = f"{size}/{name}/{seed}/{rung}"
                    if key not in res['runs']:
                        res['runs'][key] = one_run(rung, name, tr, te, ref, s, seed, a.device)
                        write_json(out, res); print(key, res['runs'][key], flush=True)
                    yield res['runs'][key]
    if a.phase == 'size':
        for size in a.sizes:
            if all(r['converged'] and r['selects'] and r['classifies'] for r in list(runs_at(size, ['R0']))):
                res['chosen'] = size; write_json(out, res); print('chosen size', size); return
        res['chosen'] = None; write_json(out, res); print('no size passes the rule')
    else:
        if not res.get('chosen'): sys.exit('run --phase size first: no size is chosen yet')
        list(runs_at(res['chosen'], list(LADDER)))

if __name__ == '__main__': main()
