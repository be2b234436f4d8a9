"""The frozen-embedding study (issue 47, item 3): the rebuttal's frozen sentences ("we have fixed context embeddings
(randomly initialized) and we have only trained the CLS token embedding and the classifier weights. The resulting test
accuracy is around 72% with test error around 0.6 ... This clearly indicates the importance of training the
embeddings") run as a test at the authors' vocabulary rule (every token of the training split: IMDB at min_count = 1,
V = 81,375 with our tokenizer), d = 2048, E frozen at its random initialisation, p and v trained to convergence, 3 seeds;
with declared sweeps of the settings the sentences leave open (data set, training budget, optimizer and learning rate,
tokenizer), one factor at a time around the main point. Every value below is fixed here before any run, with its
reason; none is chosen on an outcome.

Converged, once for every run: the package's convergence rule (experiments/train.py's window_rule with PAPER.tol,
PAPER.eval_every, no early stopping: no training loss of the last eval_every steps above the one before, the gradient
norm of (p, v) at most sqrt(tol) of its largest, and a relative fall below tol over them, or every training margin
positive and the direction of (p, v) moved by 1 - cos <= tol over them); each run records what the rule read (`rule`).
A run that stops for any other reason (its step cap) has not converged. The runs stored before that rule were stopped
by its two-end predecessor, which a rising loss could fool (04_train replays three such stops).

Resumable: a record per run, the file rewritten atomically after each run; a rerun skips finished runs. A run that
raised (out of memory included) is kept with its error, listed in `failed` and `remaining`, run again next time, and no
input of any claim (`finished` stays false until it ran). `--only` takes run keys (the file's `design.order`) separated
by ';', and refuses an unknown one before any work, listing the valid keys (exit 2). `--merge OTHER` (a second worker's
file) takes each run of OTHER that OUT lacks, or holds only as failed; two finished runs of one key with different
settings are refused, each key named (tools/measure/study_files.py: what the study scripts share).
Usage (from the repository root):
  ATTN_TOKENS_DATA=<data> nice -n 19 python tools/measure/frozen_study.py nbs/measured/frozen_study.json [--threads 1]
      [--only 'KEY;KEY'] [--records] [--merge OTHER]   (--records: recompute the claim records from the runs, train
      nothing)"""
import argparse, os, sys, tempfile, time
from pathlib import Path
import torch
from attn_tokens.infra import files
from attn_tokens.data import text
from attn_tokens.engine.models import OneLayerAttention
from attn_tokens.experiments.train import TrainConfig
from attn_tokens.experiments.framework import fit, rule_pass, point_passes
from attn_tokens.experiments.published import PAPER, QUOTES, word_rule, WORDS
from attn_tokens.experiments.real_data import REAL_SIZES, vocab_draw, restrict_vocab, smoothness
from attn_tokens.experiments.ablations import FROZEN_SIZES
from attn_tokens.paper.rule import STATED, converged, ran_budget
from study_files import (StudyError, fail, read_json, check_names, failed, finished, remaining,   # this folder's
                         merge_runs)                                                             # (on sys.path)

COMMAND = "ATTN_TOKENS_DATA=<data> nice -n 19 python tools/measure/frozen_study.py nbs/measured/frozen_study.json"
SEEDS = (0, 1, 2)
# the cap of every run meant to converge: 3,000 steps, twice the package's first frozen cap (1,500 steps, sized at
# V = 7,816 where the frozen run converged at step 1,275; the runs stored here converged at 1,990-2,300 steps, so the
# package's cap is now 5,000); it bounds the cost (about 0.13 s a step at V = 81,375, d = 2048 on one core), and a run
# that reaches it is reported as not converged
RUN_CAP = 3000
# the training budgets of the budget sweep: the package's declared caps of the frozen run (FROZEN_SIZES['full']:
# budgets 40, 150, 500 and its cap 1,500), read on the way of each main-point run (a resumed run equals the
# uninterrupted one, 04_train)
CAPS = tuple(FROZEN_SIZES['full']['budgets'])     # 40, 150, 500, 1,500
SKLEARN_PATTERN = text.SKLEARN_PATTERN   # CountVectorizer's default token_pattern (checked against sklearn at run time)

# the main point: the package's frozen protocol (ablations.frozen_embeddings at size full: Adam, lr 0.03, full batch,
# no early stopping, best-validation checkpoint reported; max_len 512 as REAL_SIZES['imdb']['full']) at the authors'
# vocabulary rule (min_count 1) and d = 2048
MAIN = dict(data='imdb', tokenizer='ours', min_count=1, max_len=REAL_SIZES['imdb']['full']['max_len'], d=PAPER.d,
            optimizer='adam', lr=FROZEN_SIZES['full']['lr'])
# the trained baseline beside each frozen point (for 'clearly': trained minus frozen accuracy on the same data): the
# package's trained run (REAL_SIZES[...]['full']: Adam lr 0.001, to convergence), with the study's cap
TRAINED = dict(optimizer='adam', lr=REAL_SIZES['imdb']['full']['lr'])
YELP = dict(data='yelp_sentences', min_count=1, max_len=REAL_SIZES['yelp_sentences']['full']['max_len'],
            vocab_target=PAPER.V_published['yelp'])

# open setting -> [(value, changes to MAIN, reason)]; the first value of each is the main point's
SWEEPS = {
    'data set': [
        ('IMDB', {}, "the data set the authors name beside the vocabulary size 7,766 and that our main point uses"),
        ('yelp_sentences', YELP,
         "the Yelp set on which the authors' Yelp vocabulary is met literally (every token of the training split, "
         "V = 5,424, by the package's seeded draw: REAL_SIZES['yelp_sentences']); yelp_pool at min_count 1 would "
         "hold about ten times the authors' 5,424 words, and the 4,000-review subset is not their set")],
    'training budget': [('to convergence', {}, "the authors train 'until convergence' elsewhere (STATED)")]
    + [(f'cap {c}', dict(cap=c), "the package's declared budgets of the frozen run (FROZEN_SIZES['full'])")
       for c in CAPS],
    'optimizer and learning rate': [
        ('Adam, lr 0.03', {}, "the package's frozen protocol (FROZEN_SIZES['full'])"),
        ('Adam, lr 0.001', dict(lr=1e-3),
         "torch.optim.Adam's default learning rate, and the package's for the trained run (REAL_SIZES)"),
        ('GD, lr 1/L', dict(optimizer='gd', lr='1/L'),
         "the theory's gradient descent with the textbook step 1/L, L = the largest eigenvalue of (1/4n) H^T H, "
         "H the (n, d) features at p = 0 (the smoothness of the logistic loss in v at initialisation)")],
    'tokenizer': [
        ('ours', {}, "the package's tokenizer (text.Tokenizer)"),
        ('scikit-learn CountVectorizer', dict(tokenizer='sklearn'),
         "a standard tokenizer the package does not write: CountVectorizer's default token_pattern, lowercase")]}
# the hypothesis of issue 47 (span-d reach): not sweeps of an open setting (the vocabulary rule and d are stated), but
# the runs that test it: our earlier vocabulary (min_count 45, V = 7,816) at d = 2048 (reach 26 %), and at the d whose
# reach d/V equals the main point's (2048 / 81,375 of 7,816 words: d = 197)
REACH_D = round(PAPER.d * PAPER.V['imdb'] / 81375)
CONTRASTS = [('V 7,816 (min_count 45), d 2048', dict(min_count=PAPER.min_count['imdb'])),
             (f'V 7,816 (min_count 45), d {REACH_D}', dict(min_count=PAPER.min_count['imdb'], d=REACH_D))]
# a diagnostic, added after the main point's seed 0 stopped by the loss rule at step 55 (test accuracy 0.742): the
# main point with the convergence rule off, read at each budget of CAPS, to show whether the loss and the accuracy
# keep moving after the rule's stop. It is no input of any claim's word (its runs are capped, so not converged).
DIAGNOSTIC = ('main, convergence rule off (diagnostic)', dict(no_stop=True))


def points():
    """Every distinct frozen setting of the study: name -> settings (MAIN with its changes); the caps are read on the
    main point's runs, not separate settings."""
    out = {'main': dict(MAIN)}
    for s, vals in SWEEPS.items():
        for v, ch, _ in vals[1:]:
            if 'cap' not in ch: out[f'{s}: {v}'] = dict(MAIN, **ch)
    for v, ch in CONTRASTS: out[f'contrast: {v}'] = dict(MAIN, **ch)
    out[f'diagnostic: {DIAGNOSTIC[0]}'] = dict(MAIN, **DIAGNOSTIC[1])
    return out

def trained_of(s: dict) -> dict:
    "The trained baseline on the same data as frozen settings `s`."
    return dict(s, **TRAINED)

def data_key(s):
    return (s['data'], s['tokenizer'], s['min_count'], s['max_len'], s.get('vocab_target'))

def run_list():
    """(key, kind, settings, seed) in the order they run: the main point's seed 0 and its baseline, the cheap
    contrasts and Yelp, the main point's seeds 1 and 2, the sweeps' seed 0, then every other seed."""
    P = points()
    key = lambda kind, name, seed: f'{kind} | {name} | seed {seed}'
    order = []
    def add(kind, name, seed):
        s = P[name] if kind == 'frozen' else trained_of(P[name])
        k = key(kind, name, seed)
        if k not in [o[0] for o in order]: order.append((k, kind, name, s, seed))
    add('frozen', 'main', 0); add('trained', 'main', 0)
    for n in ('contrast: ' + CONTRASTS[0][0], 'contrast: ' + CONTRASTS[1][0], 'data set: yelp_sentences'):
        add('frozen', n, 0)
    add('trained', 'contrast: ' + CONTRASTS[0][0], 0); add('trained', 'data set: yelp_sentences', 0)
    for seed in SEEDS[1:]: add('frozen', 'main', seed); add('trained', 'main', seed)
    add('frozen', f'diagnostic: {DIAGNOSTIC[0]}', 0)
    for n in ('optimizer and learning rate: Adam, lr 0.001', 'optimizer and learning rate: GD, lr 1/L',
              'tokenizer: scikit-learn CountVectorizer'):
        add('frozen', n, 0)
    add('trained', 'tokenizer: scikit-learn CountVectorizer', 0)
    for seed in SEEDS[1:]:
        for n in ('contrast: ' + CONTRASTS[0][0], 'contrast: ' + CONTRASTS[1][0], 'data set: yelp_sentences'):
            add('frozen', n, seed)
        add('trained', 'contrast: ' + CONTRASTS[0][0], seed); add('trained', 'data set: yelp_sentences', seed)
    for seed in SEEDS[1:]: add('frozen', f'diagnostic: {DIAGNOSTIC[0]}', seed)
    for seed in SEEDS[1:]:
        for n in ('optimizer and learning rate: Adam, lr 0.001', 'optimizer and learning rate: GD, lr 1/L',
                  'tokenizer: scikit-learn CountVectorizer'):
            add('frozen', n, seed)
        add('trained', 'tokenizer: scikit-learn CountVectorizer', seed)
    return order


# ---- data ----
def tokenizer(name):
    "The package's tokenizer `name` (data.text.TOKENIZERS: the declared values of the open setting 'tokenizer')."
    if name not in text.TOKENIZERS: raise ValueError(f"tokenizer {name!r}: one of {', '.join(text.TOKENIZERS)}")
    return text.TOKENIZERS[name]

def check_sklearn(texts) -> int:
    """The sklearn tokenizer as the study builds it gives CountVectorizer's own analyzer's words on `texts`; the
    number of texts checked."""
    from sklearn.feature_extraction.text import CountVectorizer   # optional heavy dependency, this check only
    cv = CountVectorizer()
    assert cv.token_pattern == SKLEARN_PATTERN and cv.lowercase, (cv.token_pattern, cv.lowercase)
    an, tok = cv.build_analyzer(), tokenizer('sklearn')
    bad = [i for i, t in enumerate(texts) if an(t) != tok(t)]
    assert not bad, f"sklearn tokenizer differs from CountVectorizer's analyzer on texts {bad[:5]}"
    return len(texts)

_DATA = {}
def load(s, seed, data_dir):
    "(train, test) TokenData of settings `s` (yelp_sentences: the package's seeded vocabulary draw for `seed`)."
    k = data_key(s)
    if k not in _DATA:
        _DATA.clear()
        _DATA[k] = text.load_tokenized(s['data'], min_count=s['min_count'], max_len=s['max_len'],
                                       data_dir=data_dir, tokenizer=tokenizer(s['tokenizer']))
    tr, te = _DATA[k]
    if s.get('vocab_target'):
        tr, te = restrict_vocab(tr.subset(vocab_draw(tr, s['vocab_target'], seed)), te)
    return tr, te

# ---- one run ----
def tcfg(s, kind, seed, steps, ckpt=None):
    "The package's TrainConfig of a run meant to converge (real_data.train_config), E frozen where `kind` says so."
    tol = None if s.get('no_stop') else PAPER.tol      # the diagnostic: no convergence rule
    return TrainConfig(lr=s['lr'], steps=steps, optimizer=s['optimizer'], eval_every=PAPER.eval_every, patience=None,
                       tol=tol, dir_tol=tol, keep_last=True, seed=seed,
                       trainable=('p', 'v') if kind == 'frozen' else None, ckpt=ckpt, ckpt_every=10 ** 9,
                       progress=False)

RESULT = ('steps', 'converged', 'stop_reason', 'converged_by', 'test_acc', 'test_loss', 'test_acc_last',
          'test_loss_last', 'train_loss', 'val_acc', 'best_step', 'rule')

def one_run(kind, s, seed, data_dir, caps=()):
    """Train one run; its record. With `caps`, the frozen run is read at each cap on the way (each cap resumes the
    checkpoint the previous left, so each reading is the run with that cap alone)."""
    tr, te = load(s, seed, data_dir)
    make = lambda: OneLayerAttention(tr.V, s['d'], seed=seed)
    rec = dict(kind=kind, settings=s, seed=seed, V=tr.V, n_train=tr.n, n_test=te.n, d=s['d'])
    lr = s['lr']
    if lr == '1/L':
        L = smoothness(make(), tr); rec['L'] = L; lr = 1 / L
    s = dict(s, lr=lr); rec['lr'] = lr
    c0, w0 = time.process_time(), time.time()
    with tempfile.TemporaryDirectory() as tmp:
        ck = str(Path(tmp) / 'run.ckpt') if caps else None
        for c in (tuple(caps) if s.get('no_stop') else tuple(caps) + (RUN_CAP,)):
            m = make()
            r = fit(m, tr, te, tcfg(s, kind, seed, c, ck))
            row = {k: r.get(k) for k in RESULT}
            if c != RUN_CAP and not (s.get('no_stop') and c == caps[-1]):
                rec.setdefault('caps', []).append(dict(cap=c, **row))
                print(f"    cap {c}: {r['steps']} steps ({r['stop_reason']}), test acc {r['test_acc']:.4f}",
                      flush=True)
    rec.update(row)
    rec['cpu_seconds'], rec['wall_seconds'] = time.process_time() - c0, time.time() - w0
    rec['threads'] = torch.get_num_threads()
    return rec


# ---- the claim records (issue 47, item 1) ----
FA, TA = PAPER.frozen_test_acc
FL = PAPER.frozen_test_loss[0]
CLAIMS = [   # (id, quote key, text, rule word, its number, what the value is)
    ('frozen_accuracy', 'frozen_numbers', "IMDB, d = 2048, every token (min_count 1): test accuracy with E frozen at "
     "its random initialisation (p, v trained to convergence; best-validation checkpoint)", 'around X%', FA,
     'test_acc'),
    ('frozen_loss', 'frozen_numbers', "IMDB, d = 2048, every token: test loss with E frozen (best-validation "
     "checkpoint)", 'around x', repr(FL), 'test_loss'),
    ('frozen_clearly', 'frozen_clearly', "IMDB, d = 2048, every token: trained embeddings more accurate than frozen "
     "ones (trained minus frozen test accuracy, same data and seed)", 'clearly', None, 'gap')]

def _find(runs, kind, name, seed):
    return runs.get(f'{kind} | {name} | seed {seed}')

def _judge(rule, what, fr, tr_run, cap=None):
    """{pass, converged, value} of one seed: the frozen run `fr` (read at `cap`), with its trained baseline for the
    gap; None if a needed run is missing. Converged as paper.rule.converged reads a record (its one definition:
    the run stopped by its convergence rule, certified by the rule's record), never the record's own field; a reading
    at a budget cap is complete as paper.rule.ran_budget says (it took its cap's steps, or converged before)."""
    if fr is None: return None
    r = fr if cap is None else next((c for c in fr.get('caps', []) if c['cap'] == cap), None)
    if r is None: return None
    if failed(r) or r.get('test_acc') is None: return None      # a failed run decides nothing: it is run again
    done = converged(r) is True if cap is None else ran_budget(r)
    if what == 'gap':
        if tr_run is None or failed(tr_run) or tr_run.get('test_acc') is None: return None
        v, conv = tr_run['test_acc'] - r['test_acc'], done and converged(tr_run) is True
    else: v, conv = r[what], done
    return dict(value=v, passed=rule_pass(rule, v), converged=conv, steps=r['steps'],
                stopped_by=r.get('converged_by') or r.get('stop_reason'))

def _trained(runs, name, seed):
    """The trained baseline of frozen point `name`: its own, else the main point's where the data are the main
    point's (the optimizer sweep changes the frozen run only)."""
    own = _find(runs, 'trained', name, seed)
    if own is not None or name == 'main': return own
    same = data_key(points()[name]) == data_key(MAIN) and points()[name]['d'] == MAIN['d']
    return _find(runs, 'trained', 'main', seed) if same else None

def _seeds(rule, what, runs, name, cap=None):
    out = []
    for seed in SEEDS:
        j = _judge(rule, what, _find(runs, 'frozen', name, seed), _trained(runs, name, seed), cap)
        if j: out.append({'seed': seed, 'pass': j['passed'], 'converged': j['converged'], 'value': j['value'],
                          'steps': j.get('steps'), 'stopped_by': j.get('stopped_by')})
    return out

def _point_name(setting, value, ch):
    if not ch or 'cap' in ch: return 'main'
    return f'{setting}: {value}'

def settings_of(runs, main_V):
    """The settings of the frozen sentences beside what the main point ran: stated ones met or not, open ones with
    their declared sweep (filled per claim)."""
    return [
        dict(setting='embedding dimension', stated=STATED['embedding dimension'], ours=f'd = {MAIN["d"]}',
             met=MAIN['d'] == PAPER.d),
        dict(setting='vocabulary', stated=STATED['vocabulary'],
             ours=(f"every token of our IMDB training split (min_count 1): V = "
                   f"{'(main point not run yet)' if main_V is None else format(main_V, ',')} against the authors' "
                   f"{PAPER.V_published['imdb']:,} (IMDB) / {PAPER.V_published['yelp']:,} (Yelp)"), met=True,
             V=main_V, V_published=PAPER.V_published['imdb']),
        dict(setting='protocol (frozen embeddings)', stated=STATED['protocol (frozen embeddings)'],
             ours='E frozen at its random initialisation N(0, 1/d); p and v trained', met=True)]

def records(runs) -> list:
    "One record per claim of the frozen sentences, in issue 47's form, from the runs."
    main0 = _find(runs, 'frozen', 'main', 0)
    out = []
    for cid, qk, text_, word, x, what in CLAIMS:
        rule = word_rule(word, x)
        sweeps = []
        for setting, vals in SWEEPS.items():
            pts = []
            for value, ch, why in vals:
                seeds = _seeds(rule, what, runs, _point_name(setting, value, ch), ch.get('cap'))
                pts.append(dict(value=value, reason=why, seeds=seeds,
                                passes=point_passes(seeds)))
            sweeps.append(dict(setting=setting, stated=None, ours=f"swept; main point: {vals[0][0]}", met=None,
                               sweep=pts))
        out.append(dict(id=cid, quote_key=qk, quote=QUOTES[qk], claim=text_, rule=rule,
                        reading=f"{word}: {WORDS[word][0]}", by='paper', what=what,
                        seeds=_seeds(rule, what, runs, 'main'),
                        settings=settings_of(runs, main0['V'] if main0 else None) + sweeps))
    return out

def contrasts(runs) -> list:
    "The hypothesis runs: per contrast and seed, V, d, reach d/V, frozen and trained test accuracy."
    out = []
    for name in ['main'] + [f'contrast: {v}' for v, _ in CONTRASTS]:
        for seed in SEEDS:
            fr, trr = _find(runs, 'frozen', name, seed), _find(runs, 'trained', name, seed)
            if fr: out.append(dict(point=name, seed=seed, V=fr['V'], d=fr['d'], reach=min(1., fr['d'] / fr['V']),
                                   frozen_acc=fr['test_acc'], frozen_converged=converged(fr),
                                   trained_acc=trr['test_acc'] if trr else None,
                                   trained_converged=converged(trr) if trr else None))
    return out


def design() -> dict:
    return dict(main=MAIN, trained=TRAINED, seeds=SEEDS, run_cap=RUN_CAP, caps=CAPS,
                sweeps={s: [dict(value=v, changes=ch, reason=why) for v, ch, why in vals]
                        for s, vals in SWEEPS.items()},
                contrasts=[dict(value=v, changes=ch) for v, ch in CONTRASTS], reach_d=REACH_D,
                diagnostic=dict(value=DIAGNOSTIC[0], changes=DIAGNOSTIC[1],
                                added="after seed 0 of the main point stopped by the loss rule at step 55; no input "
                                      "of any claim's word"),
                convergence=PAPER.convergence + " A run that stops for any other reason has not converged.",
                tol=PAPER.tol, eval_every=PAPER.eval_every, sklearn_pattern=SKLEARN_PATTERN,
                order=[k for k, *_ in run_list()])

def write(out, runs, extra):
    """The study file: every run kept (a failed one with its error), the claims and contrasts from the finished runs
    alone, what remains (not run, or failed)."""
    todo, done = remaining(design()['order'], runs), finished(runs)
    files.write_json(out, dict(command=COMMAND, what=__doc__.split('Usage')[0].strip(), design=design(), **extra,
                               runs=runs, claims=records(done), contrasts=contrasts(done),
                               finished=not todo, remaining=todo, failed=[k for k in runs if failed(runs[k])],
                               cpu_seconds=sum(r['cpu_seconds'] for r in runs.values())))

def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('out'); ap.add_argument('--threads', type=int, default=1)
    ap.add_argument('--only', default=None, help="run keys separated by ';' (the file's design.order; default: all, "
                                                 "in order)")
    ap.add_argument('--records', action='store_true', help='recompute the records from the runs; train nothing')
    ap.add_argument('--merge', default=None, help="another study file (a second worker's, run with --only): its runs "
                                                  "that OUT lacks or holds as failed added to OUT; train nothing")
    a = ap.parse_args(argv)
    try:
        only = (set(check_names([k.strip() for k in a.only.split(';')], [k for k, *_ in run_list()], '--only'))
                if a.only is not None else None)
        old = read_json(a.out, default={})
        runs, extra = old.get('runs', {}), {k: old[k] for k in ('sklearn_check',) if k in old}
        if a.merge:
            other = read_json(a.merge)
            runs = merge_runs(runs, other.get('runs', {}), lambda r: (r.get('kind'), r.get('settings'), r.get('seed')),
                              (a.out, a.merge))
            extra = {**{k: other[k] for k in ('sklearn_check',) if k in other}, **extra}
    except StudyError as e: fail(e)
    if a.records or a.merge: write(a.out, runs, extra); return
    torch.set_num_threads(a.threads)
    data_dir = os.environ.get('ATTN_TOKENS_DATA')
    if not data_dir: sys.exit("set ATTN_TOKENS_DATA to the data folder (imdb/, yelp_sentences/)")
    if 'sklearn_check' not in extra:
        import pyarrow.parquet as pq
        texts = pq.read_table(Path(data_dir) / 'imdb' / 'train.parquet', columns=['text'])['text'].to_pylist()
        extra['sklearn_check'] = dict(texts=check_sklearn(texts[::25]),
                                      result="identical words to CountVectorizer().build_analyzer()")
    for k, kind, name, s, seed in run_list():
        if (k in runs and not failed(runs[k])) or (only is not None and k not in only): continue
        print(f"{time.strftime('%H:%M:%S')} {k}: start", flush=True)
        caps = CAPS if kind == 'frozen' and name in ('main', f'diagnostic: {DIAGNOSTIC[0]}') else ()
        try: runs[k] = dict(one_run(kind, s, seed, data_dir, caps), name=name)
        except (ValueError, RuntimeError, FloatingPointError, MemoryError) as e:   # a loss not finite, out of memory
            # (torch's OutOfMemoryError is a RuntimeError): kept as failed, run again; a code error is raised
            runs[k] = dict(kind=kind, settings=s, seed=seed, name=name, error=f'{type(e).__name__}: {e}',
                           converged=False, stop_reason='error', test_acc=None, test_loss=None, steps=None,
                           cpu_seconds=0.)
            print(f"{time.strftime('%H:%M:%S')} {k}: FAILED {runs[k]['error'][:300]}", flush=True)
            write(a.out, runs, extra); continue
        r = runs[k]
        print(f"{time.strftime('%H:%M:%S')} {k}: V {r['V']}, {r['steps']} steps ({r['stop_reason']}), test acc "
              f"{r['test_acc']:.4f}, loss {r['test_loss']:.4f}, {r['cpu_seconds']:.0f} CPU-s", flush=True)
        write(a.out, runs, extra)
    write(a.out, runs, extra)

if __name__ == '__main__':
    os.nice(19)
    main()
