"""Ctrl-C at random moments: start `attn-tokens reproduce --quick --only synthetic` in a fresh process, send it
SIGINT after a random delay, and check how it ended. Each probe writes into a folder of its own.

A probe passes when the run, interrupted while it ran, exits 130 with `attn-tokens ...: interrupted` as the last
line of stderr and no traceback, and leaves nothing half-written in its folder (no temporary file of the atomic
writer, results.json readable, every checkpoint a complete archive, every figure a complete PNG). A run that
finished before the signal was sent must have exited 0; so must a run whose signal arrived in the last instants
of the process (stdout complete, up to the run's final line): after `main` has ended it with os._exit, while the
operating system takes it down (freeing a torch process's memory takes a while on a loaded machine), a signal has
nothing left to interrupt. Before `main` has installed its handler (the interpreter's start-up, its site module
and the import of attn_tokens.cli: some 0.2 s), Python's own handling applies: the process ends with its
KeyboardInterrupt (exit -2, the shell's 130; during the site module Python reports "Fatal Python error:
init_import_site" and exits 1); such a probe must have written nothing. The delays
are drawn uniformly from 0 to 1.1 times an uninterrupted run's time (a warm-up run first, which also builds the
kernel), with a fixed seed.

Usage: python tools/sigint_probe.py [--n 30] [--seed 0] [--json FILE]; exit 1 if a probe failed."""
import argparse, json, random, signal, subprocess, sys, tempfile, time, zipfile
from pathlib import Path

CODE = 'import sys; from attn_tokens.cli import main; sys.exit(main())'
ARGV = ['reproduce', '--quick', '--only', 'synthetic', '--threads', '1', '--out']
PNG_END = b'IEND\xaeB`\x82'

def half_written(out: Path) -> list:
    "What in the folder `out` is incomplete (empty if nothing)."
    bad = [f"temporary file {p.name}" for p in out.rglob('*.tmp')]
    res = out/'results.json'
    if res.exists():
        try: assert isinstance(json.loads(res.read_text())['experiments'], dict)
        except (ValueError, KeyError, TypeError, AssertionError) as e:
            bad.append(f"results.json unreadable ({type(e).__name__})")
    bad += [f"checkpoint {p.name} not a complete archive" for p in out.rglob('*.ckpt')
            if not zipfile.is_zipfile(p)]
    bad += [f"figure {p.name} cut short" for p in out.rglob('*.png')
            if not p.read_bytes().endswith(PNG_END)]
    return bad

def start(out: Path):
    return subprocess.Popen([sys.executable, '-c', CODE, *ARGV, str(out)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)

def probe(out: Path, delay: float) -> dict:
    "One run interrupted after `delay` seconds: what happened, and what is wrong with it."
    proc = start(out)
    time.sleep(delay)
    sent = proc.poll() is None
    if sent: proc.send_signal(signal.SIGINT)
    stdout, err = proc.communicate(timeout=1800)
    lines = err.strip().splitlines()
    r = {'delay': round(delay, 3), 'sent': sent, 'exit': proc.returncode,
         'last_line': lines[-1] if lines else '', 'problems': half_written(out) if out.exists() else []}
    if not sent:
        r['phase'] = 'finished first'
        if proc.returncode != 0: r['problems'].append(f"finished with exit {proc.returncode}")
    elif 'KeyboardInterrupt' in err and ', in main' not in err and proc.returncode in (1, -signal.SIGINT):
        r['phase'] = 'before main'
        if out.exists(): r['problems'].append(f"interrupted before main, yet {out.name} was written")
    elif proc.returncode == 0 and 'report of all results:' in stdout:
        r['phase'] = 'after the end'
    else:
        r['phase'] = 'running'
        if proc.returncode != 130: r['problems'].append(f"exit {proc.returncode}, not 130")
        if not (lines and lines[-1].startswith('attn-tokens') and lines[-1].endswith(': interrupted')):
            r['problems'].append(f"last line of stderr {r['last_line'][-200:]!r}")
        if 'Traceback' in err: r['problems'].append('a traceback: ' + err[-600:])
    return r

def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--n', type=int, default=30, help='number of probes (default 30)')
    ap.add_argument('--seed', type=int, default=0, help='seed of the delays')
    ap.add_argument('--json', help='write the probes and the summary to this file')
    a = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix='sigint-probe-') as tmp:
        tmp = Path(tmp)
        t0 = time.time(); subprocess.run([sys.executable, '-c', 'pass'], check=True)
        startup = time.time() - t0
        t0 = time.time(); proc = start(tmp/'warm'); _, err = proc.communicate(timeout=1800)
        full = time.time() - t0
        if proc.returncode != 0: sys.exit(f"sigint_probe: the uninterrupted run failed:\n{err[-2000:]}")
        print(f"uninterrupted run {full:.1f} s, interpreter start-up {startup:.2f} s", flush=True)
        rng = random.Random(a.seed)
        probes = []
        for i in range(a.n):
            r = probe(tmp/f'run{i}', rng.uniform(0, 1.1 * full))
            probes.append(r)
            print(f"{'ok  ' if not r['problems'] else 'FAIL'} {r['delay']:7.2f} s  {r['phase']:20s} exit "
                  f"{r['exit']:4d}  {'; '.join(r['problems'])[:300]}", flush=True)
    failed = [r for r in probes if r['problems']]
    phases = {p: sum(r['phase'] == p for r in probes)
              for p in ('running', 'finished first', 'after the end', 'before main')}
    line = (f"sigint_probe: {a.n - len(failed)} of {a.n} probes passed ({phases['running']} interrupted while "
            f"running, {phases['finished first']} finished first, {phases['after the end']} signalled after "
            f"the run's last line, {phases['before main']} before main had its handler); "
            f"uninterrupted run {full:.1f} s")
    print(line)
    if a.json:
        Path(a.json).write_text(json.dumps({'summary': line, 'seconds': full, 'startup': startup,
                                            'probes': probes}, indent=1) + '\n')
    return 1 if failed else 0

if __name__ == '__main__': sys.exit(main())
