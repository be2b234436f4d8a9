"""The ladder that decides: the size chosen by a rule stated before any rung is looked at, then
every rung R0-R7 run there to convergence on 3 seeds and both data sets. Writes nbs/measured/ladder_study.json,
resumable (every finished run is kept; a rerun does the rest).

The size rule, fixed before the rungs: SIZES are tried in increasing cost, R0 alone (phase `size`); the chosen size is
the first at which R0, on every seed of SEEDS and on both data sets,
  (a) converges before CAP steps by the package's one convergence rule (experiments/train.window_rule, 04_train), read
      every K = PAPER.eval_every steps on the full batch: no training loss of the last K steps exceeds the one before
      (beyond the float rounding bound), the gradient norm of all trained weights is at most sqrt(TOL) of its largest
      in the run, and the loss fell over those steps by less than TOL (relative) or, on a separated training set
      (every training margin positive: the logistic loss only tends to 0), the direction of the weights moved by
      1 - cos <= TOL over them; TOL = PAPER.tol. (Rule version 2, superseded: the loss below LOSS_TOL = 1e-3, or a
      relative fall below TOL over 50 steps under H(y)/2; it read the ends of a window only.)
  (b) selects: over the test sequences, the mean mid-rank quantile of the importance |P(1|s) - P(0|s)| (on the whole
      training split, tokens with at least the set's min_count occurrences) of the token of largest [CLS] attention,
      among the sequence's tokens, exceeds uniform attention's (exactly 1/2) by more than two standard errors of the
      per-sequence differences (transformer_ladder.selection_quantiles and selects);
  (c) classifies: test accuracy exceeds 1/2 by more than two standard errors, 2 sqrt(1/4 / n_test).
Phase `rungs` runs R0-R7 at the chosen size with the same stopping rule, seed by seed (seed 0 of every set and rung
first); a run that reaches CAP is 'undecided (cap CAP)'. The top-decile |alpha_s| share against uniform is kept as a
secondary number. Optimizer: the ladder's AdamW (fit_ladder's betas), full batch, lr of the size, no decay.
Superseded: the first size phase judged (b) by that top-decile share, which rewards attending to frequent tokens
(alpha_s carries the frequency); its runs are kept under 'superseded'.

The file: on each rule change the file so far is kept under 'superseded' too, nothing dropped (the first superseded
record as it is, later ones make 'superseded' a list, oldest first: tools/measure/study_files.py). A rule_version that is
not an integer, or newer than RULE_VERSION, is refused; so are an unknown size, set or rung, before any run (exit 2).

    ATTN_TOKENS_DATA=<data> nice -n 19 python tools/measure/ladder_study.py nbs/measured/ladder_study.json --phase size
    ATTN_TOKENS_DATA=<data> nice -n 19 python tools/measure/ladder_study.py nbs/measured/ladder_study.json --phase rungs [--seeds 0] [--device cuda]
"""
import argparse, math, sys, time
from pathlib import Path
import torch
from attn_tokens.infra.files import write_json
from attn_tokens.experiments.framework import ExpConfig
from attn_tokens.experiments.real_data import DATASET, load_real
from attn_tokens.experiments.published import PAPER
from attn_tokens.experiments.train import window_rule, rounding_bound, _dir_change
from attn_tokens.experiments.transformer_ladder import (LADDER, LADDER_SETS, build, reference, top_share,
                                                         test_accuracy, device_line, importance_of,
                                                         selection_quantiles, selects)
from study_files import StudyError, fail, read_json, supersede, superseded   # this folder's (on sys.path)

SIZES = {   # increasing cost; min_count as the ladder's sizes; d and heads grow with the length
    's1': dict(n_train=300, n_test=300, max_len=48, d=24, heads=4, lr=0.01),
    's2': dict(n_train=1000, n_test=500, max_len=64, d=32, heads=4, lr=0.01),
    's3': dict(n_train=2000, n_test=1000, max_len=128, d=64, heads=4, lr=0.003),
    's4': dict(n_train=5000, n_test=1000, max_len=256, d=128, heads=4, lr=0.001),
    'gpu': dict(n_train=10000, n_test=2000, max_len=512, d=256, heads=8, lr=0.001)}
MIN_COUNT = {'imdb': 20, 'yelp_sentences': 5}
SEEDS, K, TOL, CAP = (0, 1, 2), PAPER.eval_every, PAPER.tol, 5000
# 1: selection by the top-decile |alpha_s| share (superseded); 2: the importance quantile, the two-end stopping rule
# (superseded); 3: the importance quantile, the package's convergence rule (train.window_rule)
RULE_VERSION = 3

def constant_loss(labels) -> float:
    "H(y): the logistic loss of the best constant prediction on `labels` (0/1), the binary entropy in nats."
    m = float(torch.as_tensor(labels).double().mean())
    return 0. if m in (0., 1.) else -(m * math.log(m) + (1 - m) * math.log(1 - m))

def _grad_norm(ps) -> float:
    return math.sqrt(sum(float(q.grad.double().pow(2).sum()) for q in ps if q.grad is not None))

def train_to_convergence(m, tr, lr, seed):
    """AdamW full batch until train.window_rule holds at a check (every K steps; the direction route where the
    training set is separated), or CAP steps. Returns (steps, converged, last loss, the rule's record at the last
    check). The loss of step s is taken at the weights before step s, and its gradient there."""
    torch.manual_seed(seed)
    ps = [q for q in m.parameters() if q.requires_grad]
    opt = torch.optim.AdamW(ps, lr=lr, weight_decay=0.)
    dev = next(m.parameters()).device
    b, y = m.prepare(tr.tokens), torch.as_tensor(tr.labels).to(dev)
    u, losses, grads, prev, rec = rounding_bound(len(tr.tokens)), [], [], None, None
    for step in range(1, CAP + 1):
        opt.zero_grad(); loss = m.loss(b, y); loss.backward()
        losses.append(float(loss.detach()))
        if step == 1 or step % K == 0: grads.append(_grad_norm(ps))
        if step % K == 0:
            cur, settled = [q.detach().clone() for q in ps], False
            if prev is not None and _dir_change(prev, cur) <= TOL:
                settled = test_accuracy(m, tr.tokens, tr.labels) == 1.0
            prev, w = cur, (losses[-K - 1:] if len(losses) > K else [])
            rec = dict(step=step, window=w, grad_norm=grads[-1], grad_ref=max(grads), tol=TOL, u=u, settled=settled)
            rec |= window_rule(w, grads[-1], max(grads), TOL, u=u, settled=settled)
            if rec['converged']: return step, True, losses[-1], rec
        opt.step()
    return CAP, False, losses[-1], rec

def one_run(rung, name, tr, te, ref, s, seed, device):
    t0, c0 = time.time(), time.process_time()
    m = build(rung, tr.V, s['d'], seed, n_heads=s['heads'] if rung >= 'R3' else None, max_len=s['max_len']).to(device)
    steps, conv, loss, rule = train_to_convergence(m, tr, s['lr'], seed)
    why = rule['reason'] if rule else 'no check'
    m = m.cpu()
    sel = selects(*selection_quantiles(m, te.tokens, ref['importance']))
    share, acc, u, n = top_share(m, te.tokens, ref['top']), test_accuracy(m, te.tokens, te.labels), ref['share_uniform'], len(te.tokens)
    return dict(rung=rung, data=name, seed=seed, steps=steps, converged=conv, stop=why, rule=rule,
                verdict='run' if conv else f'undecided (cap {CAP})', loss=loss, **sel, share=share, share_uniform=u,
                test_acc=acc, classifies=acc - 0.5 > 2 * math.sqrt(0.25 / n),
                seconds=time.time() - t0, cpu_seconds=time.process_time() - c0)

def start(out: Path) -> dict:
    """The study so far. A file of an earlier rule (its `rule_version` below RULE_VERSION, or none: rule 1) starts
    anew, the file so far kept under 'superseded' after every record already there (`supersede`: nothing dropped);
    a rule_version that is not an integer, or newer than this script's, refused (StudyError)."""
    res = read_json(out, default={})
    v = res.get('rule_version')
    if 'rule_version' in res and (not isinstance(v, int) or isinstance(v, bool)):
        raise StudyError(f"{out}: rule_version {v!r} is not an integer (this script's rule is version {RULE_VERSION}, "
                         f"an earlier one a smaller integer): fix the file")
    if isinstance(v, int) and v > RULE_VERSION:
        raise StudyError(f"{out}: rule_version {v} is newer than this script's {RULE_VERSION}: run the script that "
                         f"wrote it, or write to a new file")
    if res and v != RULE_VERSION:
        new = {'rule_version': RULE_VERSION, 'runs': {}}
        for old in superseded(res, 'superseded') + [{k: x for k, x in res.items() if k != 'superseded'}]:
            supersede(new, 'superseded', old)
        res = new
    res.setdefault('rule_version', RULE_VERSION); res.setdefault('runs', {})
    res['rule'] = __doc__.split('\n\n')[1]
    return res

def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('out'); ap.add_argument('--phase', choices=('size', 'rungs'), required=True)
    ap.add_argument('--device', default='cpu')      # unknown names refused here, before any run, the valid ones listed
    ap.add_argument('--sizes', nargs='+', default=list(SIZES), choices=list(SIZES))
    ap.add_argument('--seeds', nargs='+', type=int, default=list(SEEDS))
    ap.add_argument('--sets', nargs='+', default=list(LADDER_SETS), choices=list(LADDER_SETS))
    ap.add_argument('--rungs', nargs='+', default=list(LADDER), choices=list(LADDER))
    a = ap.parse_args(argv)
    out = Path(a.out)
    try: res = start(out)
    except StudyError as e: fail(e)
    print(device_line(a.device), flush=True)
    res.setdefault('devices', []).append(device_line(a.device))
    res.setdefault('commands', []).append('ATTN_TOKENS_DATA=<data> nice -n 19 python tools/measure/ladder_study.py '
                                          + ' '.join(argv if argv is not None else sys.argv[1:]))
    res['command'] = res['commands'][-1]   # the last one (every file of nbs/measured names the command that made it)
    res['settings'] = dict(sizes=SIZES, min_count=MIN_COUNT, seeds=list(SEEDS), window=K, tol=TOL,
                           grad_rtol=math.sqrt(TOL), cap=CAP, threads=torch.get_num_threads())
    cfg = ExpConfig(size='full')
    refs = {}
    def data(size, name):
        if (size, name) not in refs:
            s = SIZES[size]
            full, _ = load_real(DATASET[name], cfg, MIN_COUNT[name], s['max_len'])
            tr, te = load_real(DATASET[name], cfg, MIN_COUNT[name], s['max_len'], s['n_train'], s['n_test'])
            refs[size, name] = tr, te, dict(reference(tr, te), importance=importance_of(
                full.tokens, full.labels, full.V, MIN_COUNT[name]))
        return refs[size, name]
    def runs_at(size, rungs, seeds, sets):
        for seed in seeds:
            for name in sets:
                for rung in rungs:
                    key = f"{size}/{name}/{seed}/{rung}"
                    if key not in res['runs']:
                        tr, te, ref = data(size, name)
                        res['runs'][key] = one_run(rung, name, tr, te, ref, SIZES[size], seed, a.device)
                        write_json(out, res); print(key, res['runs'][key], flush=True)
                    yield res['runs'][key]
    if a.phase == 'size':
        for size in a.sizes:
            if all(r['converged'] and r['selects'] and r['classifies'] for r in list(runs_at(size, ['R0'], SEEDS, LADDER_SETS))):
                res['chosen'] = size; print('chosen size', size); break
        else: res['chosen'] = None; print('no size passes the rule')
    else:
        if not res.get('chosen'): sys.exit('run --phase size first: no size is chosen yet')
        list(runs_at(res['chosen'], a.rungs, a.seeds, a.sets))
    done = [r for k, r in res['runs'].items() if k.startswith(f"{res.get('chosen')}/")]
    res['cost'] = dict(device=res['devices'][-1], runs=len(res['runs']), seconds=sum(r['seconds'] for r in res['runs'].values()),
                       cpu_seconds=sum(r.get('cpu_seconds', 0.) for r in res['runs'].values()),
                       chosen_size_runs=len(done), chosen_size_seconds=sum(r['seconds'] for r in done))
    write_json(out, res); print('cost', res['cost'])

if __name__ == '__main__': main()
