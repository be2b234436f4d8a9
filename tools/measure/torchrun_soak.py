"""Soak test of the torchrun runs of nbs/engine/00d_distributed.ipynb (issue 23, item 1): run, many times in a row and each next to
CPU-bound competitors, (a) the notebook's torchrun training test (its `TRAIN` script, 2 processes) and (b)
`torchrun --nproc_per_node 2 -m attn_tokens.cli reproduce --quick --only synthetic --out DIR`; print every run's exit
status (and the signal that ended a rank, e.g. SIGABRT) and a summary line; with --json, write the counts and commands.
Usage: python tools/measure/torchrun_soak.py [--runs 30] [--busy 2] [--which train reproduce] [--json nbs/measured/torchrun_soak.json --label after]"""
import argparse, json, os, platform, re, signal, subprocess, sys, tempfile, time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
NB = ROOT/'nbs'/'engine/00d_distributed.ipynb'
REPRO = ['reproduce', '--quick', '--only', 'synthetic', '--threads', '1', '--out']

def train_script():
    "The notebook's TRAIN script (the source of the torchrun training test), read from its cell."
    for c in json.loads(NB.read_text())['cells']:
        src = ''.join(c['source'])
        if c['cell_type'] == 'code' and src.startswith("TRAIN = r'''"): return src.split("'''")[1]
    raise SystemExit(f"no cell defining TRAIN in {NB.name}")

def problem():
    "The training test's data: problem(n=42, V=30, d=8, seed=11) of the notebook (the same generator calls)."
    import torch
    g = torch.Generator().manual_seed(11)
    n, T, V, d = 42, 10, 30, 8
    tokens = torch.randint(0, V - 4, (n, T), generator=g)
    lengths = torch.randint(1, T + 1, (n,), generator=g)
    tokens[torch.arange(T) >= lengths[:, None]] = -1
    torch.randn(V, d, generator=g); torch.randn(d, generator=g); torch.randn(d, generator=g)
    return tokens, torch.randint(0, 2, (n,), generator=g)

def torchrun(args, env):
    "One `torchrun --nproc_per_node 2` on 127.0.0.1 (attn_tokens.engine.distributed.launch): (exit status, stderr)."
    from attn_tokens.engine.distributed import launch
    r = launch(args, 2, env=env, capture_output=True, text=True, timeout=900)
    return r.returncode, r.stderr

def one_train(tmp, env, script):
    "One run of the training test: (exit status, stderr, plus a line naming gloo threads alive after the group was destroyed)."
    import torch
    (tmp/'train.py').write_text(script)
    tokens, labels = problem()
    torch.save({'tokens': tokens, 'labels': labels, 'dir': str(tmp)}, tmp/'in.pt')
    rc, err = torchrun([str(tmp/'train.py'), str(tmp/'in.pt'), str(tmp/'out.pt')], env)
    for r in range(2):
        f = tmp/f'out.pt.{r}'
        if rc == 0 and f.exists() and 'threads' in (res := torch.load(f, weights_only=True)):
            left = [t for t in bytes(res['threads'].tolist()).decode().split(',') if 'gloo' in t]
            if left: err += f"\nTraceback-free failure: rank {r} has gloo threads alive after the group was destroyed: {left}"
    return rc, err

def one_reproduce(tmp, env, script=None): return torchrun(['-m', 'attn_tokens.cli', *REPRO, str(tmp/'out')], env)

def verdict(rc, err):
    "'ok', or what went wrong: the signal or exit status of the failed rank, and whether std::terminate was called."
    if rc == 0 and 'Traceback' not in err: return 'ok'
    if rc == 0 and 'gloo threads alive' in err: return 'gloo threads alive after destroy_process_group'
    sig = re.findall(r'Signal (\d+) \((SIG\w+)\)|exitcode\s*:\s*(-?\d+)', err)
    what = 'terminate called' if 'terminate called' in err else ('traceback' if 'Traceback' in err else 'failed')
    return f"{what}; torchrun exit {rc}; ranks: {sig[:4]}"

CMD = {'train': "the torchrun training test of nbs/engine/00d_distributed.ipynb (its TRAIN script, 2 processes)",
       'reproduce': 'torchrun --nproc_per_node 2 -m attn_tokens.cli ' + ' '.join(REPRO) + ' DIR'}

def record(path, label, tool, busy, res, **extra):
    "Write the counts of `res` {which: [per-run rows]} under `label` in the JSON file `path` (other labels kept)."
    path = Path(path)
    data = json.loads(path.read_text()) if path.exists() else {}
    old = data.get(label, {}).get('results', {})                 # the other command's counts under the same label stay
    data[label] = dict(busy=busy, cores=os.cpu_count(), python=platform.python_version(),
                       torch=__import__('torch').__version__, date=time.strftime('%Y-%m-%d'), **extra,
                       results={**old, **{w: dict(command=CMD[w], tool=tool, runs=len(rows), failed=sum(r['verdict'] != 'ok' for r in rows),
                                                  aborted=sum('terminate called' in r['verdict'] or 'SIGABRT' in r['verdict'] for r in rows),
                                                  exits=[r['exit'] for r in rows]) for w, rows in res.items()}})
    tmp = path.with_suffix('.tmp'); tmp.write_text(json.dumps(data, indent=1) + '\n'); tmp.replace(path)

def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--runs', type=int, default=30, help='runs of each command')
    ap.add_argument('--busy', type=int, default=2, help='CPU-bound competing processes (python -c "while True: pass")')
    ap.add_argument('--which', nargs='+', choices=['train', 'reproduce'], default=['train', 'reproduce'])
    ap.add_argument('--json', help='write the counts and commands to this file (e.g. nbs/measured/torchrun_soak.json)')
    ap.add_argument('--label', default='runs', help='the key of this result in the JSON file (e.g. before, after)')
    a = ap.parse_args()
    if a.runs < 1 or a.busy < 0: raise SystemExit("--runs must be >= 1 and --busy >= 0")
    env = {**os.environ, 'PYTHONPATH': os.pathsep.join([str(ROOT), os.environ.get('PYTHONPATH', '')]), 'OMP_NUM_THREADS': '1'}
    busy = [subprocess.Popen([sys.executable, '-c', 'while True: pass']) for _ in range(a.busy)]
    res, script = {}, train_script()     # read once: the notebook may be edited while this runs
    try:
        for which in a.which:
            f, rows = dict(train=one_train, reproduce=one_reproduce)[which], []
            for i in range(a.runs):
                with tempfile.TemporaryDirectory(prefix='torchrun-soak-') as tmp:
                    t0 = time.time(); rc, err = f(Path(tmp), env, script); v = verdict(rc, err)
                print(f"{which} run {i + 1}/{a.runs}: exit {rc}, {time.time() - t0:.1f} s, {v}", flush=True)
                if v != 'ok': print(err[-1500:], flush=True)
                rows.append(dict(exit=rc, seconds=round(time.time() - t0, 1), verdict=v))
            res[which] = rows
    finally:
        for p in busy: p.send_signal(signal.SIGKILL); p.wait()
    for which, rows in res.items():
        bad = sum(r['verdict'] != 'ok' for r in rows)
        aborts = sum('terminate called' in r['verdict'] or 'SIGABRT' in r['verdict'] for r in rows)
        print(f"{which}: {len(rows)} runs, {bad} failed, {aborts} aborted (SIGABRT / std::terminate), with {a.busy} busy processes")
    if a.json: record(a.json, a.label or 'runs', f"python tools/measure/torchrun_soak.py --runs {a.runs} --busy {a.busy} --which {' '.join(a.which)}", a.busy, res)
    return 1 if any(r['verdict'] != 'ok' for rows in res.values() for r in rows) else 0

if __name__ == '__main__': sys.exit(main())
