"""The eta0 window of a hidden-size Assumption-1 set by the log flow (issue 54, deliverable 7; notebook 03l_log_flow).
Fixed before any run:
  set     make_assumption1(n=1200, n_relevant=12, n_irrelevant=76, T=24, seed=2): V = 88, T = 24 (not a power of 2), the
          size of the issue's hidden set; chosen among R in (8, 10, 12) x seeds (0, 1, 2) at eta0 = 2000 as one where a
          whole class stays behind for a long time and then catches up (600 sequences without their relevant token until
          log t ~ 101, then reached); then (added after its window was found to reach everywhere, so that the cost
          includes bisections) set B = make_assumption1(n=1200, n_relevant=8, n_irrelevant=80, T=24, seed=0), of the
          same size, whose eta0 = 2000 fails with the certificate (gap 1.047);
  run     `attn-tokens theory SET --d inf --exact-stage1 --eta0 2000` (the log flow decides one run), then
          `attn-tokens theory SET --d inf --exact-stage1 --eta0-window 400:4000` (eta0_window's defaults: 20 points a
          decade, edges bisected to a relative 0.01), each in its own process;
  cost    CPU time (user + system) of each command from os.wait4's rusage (the machine is shared: not wall time).
Written to OUT.json atomically after each command; a rerun skips the commands done.
Usage: nice -n 10 python tools/measure/log_flow_window.py OUT.json"""
import json, os, subprocess, sys, tempfile, time
from pathlib import Path

SET = dict(n=1200, n_relevant=12, n_irrelevant=76, T=24, seed=2)
SET_B = dict(n=1200, n_relevant=8, n_irrelevant=80, T=24, seed=0)   # a set of the same size that fails at eta0 = 2000
RUNS = {'eta0_2000': (SET, ['--eta0', '2000']), 'window_400_4000': (SET, ['--eta0-window', '400:4000']),
        'window_400_4000_B': (SET_B, ['--eta0-window', '400:4000'])}

def run(tok, argv, out):
    "One `attn-tokens theory` command in a child process: (its record, CPU-s, wall-s, the console's last lines)."
    cmd = [sys.executable, '-m', 'attn_tokens.cli', 'theory', str(tok), '--d', 'inf', '--exact-stage1', *argv,
           '--out', str(out)]
    t0 = time.time(); p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    text = p.stdout.read(); _, status, ru = os.wait4(p.pid, 0)
    if status: raise RuntimeError(f"{' '.join(cmd)} exited with {status}: {text[-2000:]}")
    return json.loads(Path(out).read_text()), ru.ru_utime + ru.ru_stime, time.time() - t0, text.splitlines()[-40:]

def main():
    # imported when it runs, as the other measurement scripts do (the module is also read for its settings)
    from attn_tokens.data.generators import make_assumption1
    from attn_tokens.data.tokens import save_tokens
    from attn_tokens.infra.files import write_json
    out = Path(sys.argv[1]); done = json.loads(out.read_text()) if out.exists() else {}
    text = lambda S: f"make_assumption1({', '.join(f'{k}={v}' for k, v in S.items())})"
    meta = dict(set=text(SET), set_B=text(SET_B),
                command='attn-tokens theory SET --d inf --exact-stage1 ARGS', machine='2-core machine shared with '
                'other work (load ~20); CPU time of the child process (user + system)')
    runs = done.get('runs', {})
    with tempfile.TemporaryDirectory() as d:
        for k, (S, argv) in RUNS.items():
            if k in runs: continue
            tok = Path(d) / f'{k}.npz'; save_tokens(tok, make_assumption1(**S))
            rec, cpu, wall, lines = run(tok, argv, Path(d) / f'{k}.json')
            here = lambda x: json.loads(json.dumps(x).replace(f'{d}/', ''))   # no path of this machine in the file
            rec, lines = here(rec), here(lines)
            runs[k] = dict(set=text(S), args=argv, cpu_s=cpu, wall_s=wall, console=lines, record=rec)
            write_json(out, dict(meta=meta, runs=runs)); print(f"{k}: {cpu:.1f} CPU-s", flush=True)

if __name__ == '__main__': main()
