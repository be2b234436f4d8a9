#!/usr/bin/env python3
"""The transformer ladder (nbs/experiments/08a_transformer_ladder.ipynb) at the GPU size: T = 512, d = 256, 5 seeds,
rungs R0-R7, on IMDB and the Yelp sentences.

Three steps, the first and last where the package is installed, the middle one on the GPU machine:

    # 1. here: the token ids of both data sets, from the parquet files of a data folder (needs the package's
    #    readers: pyarrow, datasets), into a folder of .npz files the GPU machine reads with numpy alone
    python tools/measure/ladder_gpu.py prepare --data <data folder> --to ladder_data
    # 2. on the GPU machine (torch, numpy, scipy, scikit-learn, matplotlib; no fastcore, tqdm, datasets, nbdev)
    python tools/measure/ladder_gpu.py run --data ladder_data --out ladder_out --budget 480
    # 3. here: the verdicts, in the package's words, of what step 2 wrote
    python tools/measure/ladder_gpu.py judge ladder_out/ladder_gpu.json

`run` refuses to run without CUDA unless --cpu-smoke is given (then at a tiny size, on the CPU, saying so). It writes
<out>/ladder_gpu.json (atomically, after every run: partial results survive a stop) and <out>/ladder_gpu.png, with a
progress line per run (flushed). With --budget SECONDS no run starts after that many seconds of training.

On a machine without fastcore and tqdm (the GPU machine) `run` gives the package's modules the two names they take
from them, `fastcore.basics.patch` (adds a method to a class) and `tqdm.auto.tqdm` (a progress bar: here none), and
says so; everything it computes is the package's own code (attn_tokens.experiments.transformer_ladder).
"""
import argparse, json, sys, time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
SETS = ('imdb', 'yelp_sentences')
GPU = dict(n_train=10000, n_test=5000, max_len=512, d=256, heads=4, steps=200, lr=1e-3, wd=0.1, batch_size=64,
           seeds=5, mm_n=20, n_track=2)
SMOKE = dict(n_train=60, n_test=60, max_len=32, d=16, heads=2, steps=4, lr=1e-2, wd=0.1, batch_size=16,
             seeds=2, mm_n=10, n_track=2)


def say(*a):
    print(*a, flush=True)


def _shims():
    "The two names the package's modules take from fastcore and tqdm, where those are not installed."
    import functools, importlib.machinery, types
    def module(name):      # with a spec: torch._dynamo probes for tqdm with importlib.util.find_spec
        m = types.ModuleType(name); m.__spec__ = importlib.machinery.ModuleSpec(name, None); return m
    missing = []
    try: import fastcore.basics  # noqa: F401
    except ImportError:
        def patch(f=None, *, as_prop=False):
            if f is None: return functools.partial(patch, as_prop=as_prop)
            cls = next(iter(f.__annotations__.values()))
            if isinstance(cls, str): cls = eval(cls, f.__globals__)
            setattr(cls, f.__name__, property(f) if as_prop else f)
            return f
        fc, fb = module('fastcore'), module('fastcore.basics')
        fb.patch, fc.basics = patch, fb
        sys.modules.update({'fastcore': fc, 'fastcore.basics': fb}); missing.append('fastcore')
    try: import tqdm.auto  # noqa: F401
    except ImportError:
        tq, ta = module('tqdm'), module('tqdm.auto')
        class NoBar:     # train.train's bar (tqdm(total=...): update, set_postfix, close) that shows nothing
            def __init__(self, *a, **k): pass
            def update(self, *a, **k): pass
            def set_postfix(self, *a, **k): pass
            def close(self): pass
        ta.tqdm = lambda it=None, *a, **k: NoBar() if it is None else it
        tq.auto = ta
        sys.modules.update({'tqdm': tq, 'tqdm.auto': ta}); missing.append('tqdm')
    if missing:
        say(f"ladder_gpu: {', '.join(missing)} not installed: fastcore.basics.patch and tqdm.auto.tqdm "
            f"(no progress bar) given to the package's modules by this script")


def prepare(args):
    "Token ids of both sets (the package's readers and tokenizer) into <to>/<set>.npz, and what they are."
    import numpy as np
    from attn_tokens.experiments.framework import ExpConfig
    from attn_tokens.experiments.real_data import DATASET, data_label, load_real, data_source
    from attn_tokens.experiments.transformer_ladder import LADDER_SIZES
    from attn_tokens.infra import files
    cfg = ExpConfig(size='full', data_dir=args.data, checkpoints=False)
    to = Path(args.to); to.mkdir(parents=True, exist_ok=True)
    meta = {}
    for k in SETS:
        mc = LADDER_SIZES['full']['min_count'][k]
        tr, te = load_real(DATASET[k], cfg, mc, args.max_len, args.n_train, args.n_test)
        arr = {'train_tokens': tr.tokens.numpy().astype(np.int32), 'train_labels': tr.labels.numpy(),
               'test_tokens': te.tokens.numpy().astype(np.int32), 'test_labels': te.labels.numpy(),
               'V': np.array(tr.V)}
        files.atomic_write(to / f'{k}.npz', lambda f: np.savez_compressed(f, **arr))
        meta[k] = dict(label=data_label(DATASET[k], tr.n), source=data_source(DATASET[k], cfg)[1].replace(str(args.data), '<data>'),
                       V=tr.V, n_train=tr.n, n_test=te.n, max_len=args.max_len, min_count=mc)
        say(f"prepare: {k}: {tr.n} train / {te.n} test sequences, V = {tr.V} -> {to / (k + '.npz')}")
    files.write_json(to / 'ladder_data.json', meta)


def _load(folder):
    "({set: (train, test)} as TokenData, what they are) from a folder `prepare` wrote."
    import numpy as np, torch
    from attn_tokens.data.tokens import TokenData
    folder = Path(folder)
    if not (folder / 'ladder_data.json').is_file():
        sys.exit(f"ladder_gpu: {folder} holds no ladder_data.json: make the folder with "
                 f"'python tools/measure/ladder_gpu.py prepare --data <data folder> --to {folder}' where the "
                 f"package is installed, and pass it as --data")
    meta = json.loads((folder / 'ladder_data.json').read_text())
    sets = {}
    for k in meta:
        with np.load(folder / f'{k}.npz', allow_pickle=False) as z:
            V = int(z['V'])
            td = lambda s: TokenData(torch.from_numpy(z[f'{s}_tokens'].astype(np.int64)),
                                     torch.from_numpy(z[f'{s}_labels'].astype(np.int64)), None, V, 2)
            sets[k] = (td('train'), td('test'))
    return sets, meta


def run(args):
    import torch
    if not torch.cuda.is_available() and not args.cpu_smoke:
        sys.exit("ladder_gpu: CUDA is not available here: this script measures the GPU size; run it on the GPU "
                 "machine, or pass --cpu-smoke for a tiny run on the CPU (a check of the script, not a result)")
    _shims()
    from attn_tokens.infra import files
    from attn_tokens.experiments import transformer_ladder as L      # the package only here: the GPU run needs none
    device = 'cpu' if args.cpu_smoke else 'cuda'
    torch.set_num_threads(1) if args.cpu_smoke else None
    say(L.device_line(device) + (" -- CPU SMOKE RUN at a tiny size: not a result" if args.cpu_smoke else ''))
    s = dict(SMOKE if args.cpu_smoke else GPU)
    if args.steps: s['steps'] = args.steps
    if args.seeds: s['seeds'] = args.seeds
    sets, meta = _load(args.data)
    draw = lambda d, n: d.subset(torch.randperm(d.n, generator=torch.Generator().manual_seed(0))[:n].sort().values)
    sets = {k: (draw(tr, s['n_train']), draw(te, s['n_test'])) for k, (tr, te) in sets.items()}   # seeded draws:
                                                      # the files are sorted by label, so never the first rows
    if args.cpu_smoke:   # tiny: the first max_len words, and the vocabulary the ids already have
        sets = {k: tuple(type(d)(d.tokens[:, :s['max_len']], d.labels, None, d.V, 2) for d in p)
                for k, p in sets.items()}
    out = Path(args.out); out.mkdir(parents=True, exist_ok=True)
    t0 = time.time()
    head = dict(device=device, device_name=torch.cuda.get_device_name(0) if device == 'cuda' else 'cpu',
                torch=torch.__version__, smoke=bool(args.cpu_smoke), settings=s, data=meta,
                rungs=list(L.LADDER), scores={r: L.SCORES[r] for r in L.LADDER}, budget=args.budget)
    def write(res, final=False):
        files.write_json(out / 'ladder_gpu.json', {**head, 'seconds': time.time() - t0, 'final': final,
                                                  'complete': res['complete'] and final,
                                                  'reference': res['reference'], 'runs': res['runs'],
                                                  'summary': L.summarise(res)})
    s_run = {**s, 'seeds': None}
    res = L.ladder(sets, s_run, rungs=tuple(L.LADDER), seeds=tuple(range(s['seeds'])), device=device,
                   log=lambda line: say(f"[{time.time() - t0:7.1f} s] {line}"), budget=args.budget, on_run=write)
    write(res, final=True)
    import matplotlib; matplotlib.use('Agg')
    import matplotlib.pyplot as plt
    n_seeds = len({r['seed'] for r in res['runs']})
    plt.close(L.plot_ladder(L.summarise(res), out / 'ladder_gpu.png',
                            f"the ladder R0-R7 on {device} (d = {s['d']}, T <= {s['max_len']}, {n_seeds} seeds, "
                            f"{s['steps']} AdamW steps{', SMOKE' if args.cpu_smoke else ''})"))
    say(f"ladder_gpu: {len(res['runs'])} runs in {time.time() - t0:.0f} s on {device}"
        f"{'' if res['complete'] else ' (stopped by the budget)'}; wrote {out / 'ladder_gpu.json'} and "
        f"{out / 'ladder_gpu.png'}")


def judge(args):
    "The verdict of every rung and claim of a ladder_gpu.json, in the package's words (where the package is)."
    from attn_tokens.experiments import transformer_ladder as L      # the package only here: the GPU run needs none
    from attn_tokens.paper.rule import claim_word
    r = json.loads(Path(args.json).read_text())
    labels = {k: m['label'] for k, m in r['data'].items()}
    cl = L.ladder_claims(r['summary'], r['settings'], labels)
    say(f"{r['device_name']}, {r['seconds']:.0f} s, {'complete' if r['complete'] else 'PARTIAL'}"
        f"{' (SMOKE)' if r['smoke'] else ''}")
    for row in L.verdict_rows(r['summary'], cl):
        vals = ', '.join('none' if v is None else f'{v:.3g}' for v in row.get('values', []))
        word = (f"outside its premises: {row['premise_failed']}" if 'premise_failed' in row
                else claim_word(row['seeds'], row['settings']))
        say(f"{row['data']:15s} {row['rung']}  {row['claim']:22s} {word}" + (f"  [{vals}]" if vals else ''))


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    sub = p.add_subparsers(dest='cmd', required=True)
    a = sub.add_parser('prepare', help='token ids of both sets into a folder of .npz files (where the package is)')
    a.add_argument('--data', required=True, help='the data folder holding imdb/ and yelp_sentences/ (parquet)')
    a.add_argument('--to', required=True, help='the folder to write')
    a.add_argument('--n-train', type=int, default=GPU['n_train']); a.add_argument('--n-test', type=int, default=GPU['n_test'])
    a.add_argument('--max-len', type=int, default=GPU['max_len'])
    b = sub.add_parser('run', help='the ladder R0-R7 (CUDA; --cpu-smoke: tiny, on the CPU)')
    b.add_argument('--data', required=True, help="the folder 'prepare' wrote")
    b.add_argument('--out', required=True, help='where ladder_gpu.json and ladder_gpu.png go')
    b.add_argument('--budget', type=float, default=None, help='seconds after which no new run starts')
    b.add_argument('--steps', type=int, default=None, help=f"AdamW steps per run (default {GPU['steps']})")
    b.add_argument('--seeds', type=int, default=None, help=f"number of seeds (default {GPU['seeds']})")
    b.add_argument('--cpu-smoke', action='store_true', help='a tiny run on the CPU: checks the script, no result')
    c = sub.add_parser('judge', help="the verdicts of a ladder_gpu.json (where the package is)")
    c.add_argument('json')
    args = p.parse_args(argv)
    {'prepare': prepare, 'run': run, 'judge': judge}[args.cmd](args)


if __name__ == '__main__':
    main()
