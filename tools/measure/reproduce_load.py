"""Issue 45 item 1: how long `attn-tokens reproduce --quick` (no data folder, offline: the shipped sample) takes quiet
and beside K CPU-bound processes (`python -c 'while True: pass'`), per torch thread setting.
Usage: python tools/measure/reproduce_load.py OUT.json --label L [--threads 1,2,auto] [--loads 0,2] [--reps 3]
`--threads auto` runs without --threads (the command's default). The machine is shared, so the configurations are
interleaved within each repetition (a ratio is taken between runs minutes apart, not hours) and the loads are
recorded; read medians. Resumable: a (label, rep, load, threads) already in OUT.json is not run again."""
import argparse, json, os, platform, resource, subprocess, sys, tempfile, time
from pathlib import Path
from attn_tokens.infra.files import write_json

def one_run(threads: str, load: int) -> dict:
    "One quick reproduce beside `load` busy loops: wall and CPU seconds, the 1-minute load before it."
    busy = [subprocess.Popen([sys.executable, '-c', 'while True: pass']) for _ in range(load)]
    try:
        time.sleep(1 if load else 0)
        env = {k: v for k, v in os.environ.items() if k != 'ATTN_TOKENS_DATA'}
        env.update(HF_HUB_OFFLINE='1', HF_DATASETS_OFFLINE='1')
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        with tempfile.TemporaryDirectory() as out:
            cmd = ['attn-tokens', 'reproduce', '--quick', '--out', out, '--no-progress']
            cmd += [] if threads == 'auto' else ['--threads', threads]
            load1 = os.getloadavg()[0]
            t0 = time.monotonic()
            p = subprocess.run(cmd, env=env, capture_output=True, text=True)
            wall = time.monotonic() - t0
            after = resource.getrusage(resource.RUSAGE_CHILDREN)     # before the busy loops are reaped
            res = json.loads((Path(out) / 'results.json').read_text()) if p.returncode == 0 else {}
    finally:
        for b in busy: b.kill(); b.wait()
    per = {n: round(r.get('seconds', 0), 2) for n, r in res.get('experiments', {}).items() if r.get('seconds', 0) > 0.5}
    return {'threads': threads, 'load': load, 'wall_s': round(wall, 2), 'rc': p.returncode,
            'cpu_s': round(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime, 2),
            'loadavg1_before': round(load1, 2), 'experiments_s': per,
            'first_line': p.stdout.splitlines()[0] if p.stdout else p.stderr[-300:]}

if __name__ == '__main__':
    a = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    a.add_argument('out'); a.add_argument('--label', required=True)
    a.add_argument('--threads', default='1,2'); a.add_argument('--loads', default='0,2')
    a.add_argument('--reps', type=int, default=3)
    args = a.parse_args()
    out = Path(args.out)
    j = json.loads(out.read_text()) if out.exists() else {
        'command': 'python tools/measure/reproduce_load.py ' + ' '.join(sys.argv[1:]),
        'machine': {'cpus': os.cpu_count(), 'affinity': len(os.sched_getaffinity(0)), 'python': platform.python_version()},
        'runs': {}}
    j.setdefault('commands', []).append('python tools/measure/reproduce_load.py ' + ' '.join(sys.argv[1:]))
    for rep in range(args.reps):
        for load in map(int, args.loads.split(',')):
            for th in args.threads.split(','):
                key = f"{args.label}/rep{rep}/load{load}/threads{th}"
                if key in j['runs']: continue
                r = one_run(th, load)
                j['runs'][key] = {'label': args.label, 'rep': rep, **r, 'at': time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime())}
                print(key, r['wall_s'], 's; cpu', r['cpu_s'], 's; load before', r['loadavg1_before'], flush=True)
                write_json(out, j)
