#!/usr/bin/env python3
"""Measure `attn-tokens select` with its classical rankings and faithfulness on real data, and its speed; writes
nbs/measured/select_baselines.json, which nbs/commands/10h_select_baselines.ipynb reads and asserts against.

    ATTN_TOKENS_DATA=<data> nice -n 19 python tools/measure/select_baselines.py            # all of it
    ATTN_TOKENS_DATA=<data> nice -n 19 python tools/measure/select_baselines.py --runs 1   # one timed IMDB run

What it runs, each as the command a user types (`python -m attn_tokens.cli select FILE --out OUT --no-progress`,
defaults, a cold token cache for every run):
- IMDB, the 25,000 reviews of imdb/train.parquet (10 % held out as the test set), `--runs` times (default 3):
  wall and CPU seconds of each run, the parts' seconds from its results.json (tokenise, train, baselines,
  faithfulness; the rest is reading the file, start-up, the figures and writing), the load average before and
  after; the first run's classical rankings, agreement and faithfulness kept;
- Yelp sentences, the 63,483 sentences of yelp_sentences/train.parquet (10 % held out), once with the defaults
  and once with `--train full` (all of E, p, v trained: the paper's Figure 1);
- scikit-learn's LogisticRegression (newton-cg, the package's `real_data.fit_lr` settings) fitted `--runs`
  times on the same matrix select fits (phi of the IMDB training part, at the C select chose): the ratio of
  select's median wall time to the median fit time.

Cost: about 15 minutes on the 2-core machine shared with other jobs (IMDB runs of 1.5 to 3 minutes, the Yelp runs,
the fits).
"""
import argparse, json, os, resource, statistics, subprocess, sys, tempfile, time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT/'nbs'/'measured'/'select_baselines.json'
SETS = {'imdb': 'imdb/train.parquet', 'yelp_sentences': 'yelp_sentences/train.parquet'}


def run_select(data: Path, out: Path, cache: Path, *args) -> dict:
    "One `select` run as a user types it: wall and CPU seconds, load averages, and its results.json."
    load0 = os.getloadavg()[0]
    c0, t0 = resource.getrusage(resource.RUSAGE_CHILDREN), time.perf_counter()
    r = subprocess.run([sys.executable, '-m', 'attn_tokens.cli', 'select', str(data), '--out', str(out),
                        '--force', '--no-progress', *args], capture_output=True, text=True,
                       env={**os.environ, 'HF_HUB_OFFLINE': '1', 'ATTN_TOKENS_CACHE': str(cache)})
    wall, c1 = time.perf_counter() - t0, resource.getrusage(resource.RUSAGE_CHILDREN)
    if r.returncode: sys.exit(f"select failed on {data}:\n{r.stdout}\n{r.stderr}")
    res = json.loads((out/'results.json').read_text())
    n = res['numbers']
    parts = {k: n[f'seconds_{k}'] for k in ('tokenise', 'train', 'baselines', 'faithfulness')}
    parts['rest'] = wall - sum(parts.values())
    return {'wall_s': wall, 'cpu_s': c1.ru_utime + c1.ru_stime - c0.ru_utime - c0.ru_stime,
            'load_before': load0, 'load_after': os.getloadavg()[0], 'parts_s': parts,
            'share': {k: v / wall for k, v in parts.items()}, 'results': res, 'stdout_tail': r.stdout[-1500:]}


def summary(res: dict) -> dict:
    "What the notebook reads of a run's results.json."
    n = res['numbers']
    return {'n_train': n['n_train'], 'n_test': n['n_test'], 'V': n['V'], 'test_acc': res['test_acc'],
            'claims': {c['claim'].split(': ', 1)[1]: c['value'] for c in res['claims']},
            'fits': res['baselines']['fits'], 'agreement': res['baselines']['agreement'],
            'top_k': res['baselines']['top_k'], 'faithfulness': res['faithfulness']}


def lr_bench(data: Path, C: float, runs: int) -> list:
    "Seconds of scikit-learn's LogisticRegression fit on the matrix select fits (phi of the IMDB training part)."
    from sklearn.linear_model import LogisticRegression
    from attn_tokens.commands import select, select_input
    from attn_tokens.experiments.real_data import bow_features
    from attn_tokens.experiments.train import TrainConfig, train_val_split
    src = select_input.read_data(data)
    (trx, try_), (tex, tey), *_ = select_input.prepare(*src.splits['train'], None, None, 0, False, 'd')
    s = select.DEFAULTS
    arrays, _ = select.tokenize({'train': (trx, try_), 'test': (tex, tey)}, 2, s['min_count'], s['max_size'],
                                False, False)
    tr = select._token_data(arrays, 'train', arrays['vocab'].tolist(), 2, s['max_len'])
    X, y = bow_features(tr), tr.labels.numpy()
    fit_i, _ = (i.numpy() for i in train_val_split(tr.n, TrainConfig(seed=s['seed'])))
    out = []
    for _ in range(runs):
        t0 = time.perf_counter()
        LogisticRegression(C=C, solver='newton-cg', max_iter=1000).fit(X[fit_i], y[fit_i])
        out.append(time.perf_counter() - t0)
    return out, list(X.shape), int(X.nnz)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--runs', type=int, default=3, help='timed IMDB runs and LR fits (median quoted)')
    ap.add_argument('--out', default=str(OUT))
    a = ap.parse_args()
    data = Path(os.environ.get('ATTN_TOKENS_DATA', ''))
    if not (data/SETS['imdb']).is_file():
        sys.exit("set ATTN_TOKENS_DATA to the folder of the local data sets (imdb/, yelp_sentences/)")
    sys.path.insert(0, str(ROOT))
    from attn_tokens.infra import files
    tmpd = tempfile.TemporaryDirectory(prefix='select_baselines_'); tmp = Path(tmpd.name)
    t_start = time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime())
    imdb = []
    for i in range(a.runs):
        imdb.append(run_select(data/SETS['imdb'], tmp/'imdb', tmp/f'cache_imdb{i}'))
        print(f"imdb run {i}: {imdb[-1]['wall_s']:.1f} s wall, parts {imdb[-1]['parts_s']}", flush=True)
    yelp = run_select(data/SETS['yelp_sentences'], tmp/'yelp', tmp/'cache_yelp')
    print(f"yelp_sentences: {yelp['wall_s']:.1f} s wall", flush=True)
    yfull = run_select(data/SETS['yelp_sentences'], tmp/'yelp_full', tmp/'cache_yelp', '--train', 'full')
    print(f"yelp_sentences, --train full: {yfull['wall_s']:.1f} s wall", flush=True)
    C = imdb[0]['results']['baselines']['fits']['lr_phi']['C']
    lr, shape, nnz = lr_bench(data/SETS['imdb'], C, a.runs)
    med = statistics.median(r['wall_s'] for r in imdb)
    rec = {'command': 'ATTN_TOKENS_DATA=<data> nice -n 19 python tools/measure/select_baselines.py --runs '
                      f'{a.runs}', 'started': t_start, 'machine': f'{os.cpu_count()} cores, shared with other jobs',
           'data': SETS,
           'speed': {'runs': [{k: r[k] for k in ('wall_s', 'cpu_s', 'load_before', 'load_after', 'parts_s', 'share')}
                              for r in imdb],
                     'median_wall_s': med, 'median_cpu_s': statistics.median(r['cpu_s'] for r in imdb),
                     'median_parts_s': {k: statistics.median(r['parts_s'][k] for r in imdb)
                                        for k in imdb[0]['parts_s']},
                     'lr_fit_s': lr, 'lr_C': C, 'lr_matrix_shape': shape, 'lr_matrix_nnz': nnz,
                     'median_lr_fit_s': statistics.median(lr),
                     'ratio_select_to_lr': med / statistics.median(lr),
                     'yelp_sentences_wall_s': yelp['wall_s'], 'yelp_sentences_parts_s': yelp['parts_s']},
           'imdb': summary(imdb[0]['results']), 'yelp_sentences': summary(yelp['results']),
           'yelp_sentences_full': {**summary(yfull['results']), 'wall_s': yfull['wall_s']}}
    files.write_json(a.out, files.json_safe(rec))
    print(f"wrote {a.out}: select median {med:.1f} s wall, LR fit median {statistics.median(lr):.2f} s, "
          f"ratio {rec['speed']['ratio_select_to_lr']:.1f}")


if __name__ == '__main__': main()
