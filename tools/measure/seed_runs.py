"""Run again, with more seeds, the experiments of the full run whose claims are not settled by one seed.

Reads nbs/measured/reproduce_full.json (seed 0), picks the experiments that verdicts.needs_seeds names (a claim of the
paper within verdicts.NEAR of its threshold, or a run cut short by its step cap), runs each at size full with every
seed given (no checkpoints), and writes OUT.json: {'meta': {command, seeds, experiments, seconds}, 'seeds': {seed:
{experiment: result}}}. The home page's map (verdicts.paper_map) reads nbs/measured/reproduce_seeds.json and judges each
such claim over all seeds (verdicts.add_seeds).

Usage: ATTN_TOKENS_DATA=<data> python tools/measure/seed_runs.py nbs/measured/reproduce_seeds.json [--seeds 1 2] [--force]"""
import argparse, json, sys, tempfile, time
from pathlib import Path
from attn_tokens.infra import files
from attn_tokens.experiments.framework import ExpConfig
from attn_tokens.experiments.reproduce import run_all
from attn_tokens.experiments.verdicts import needs_seeds

FULL = Path(__file__).resolve().parents[2]/'nbs'/'measured'/'reproduce_full.json'

def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('out', type=Path)
    ap.add_argument('--seeds', type=int, nargs='+', default=[1, 2])
    ap.add_argument('--force', action='store_true', help='replace OUT.json')
    a = ap.parse_args()
    files.check_output(a.out, a.force, what='seed runs', flag='--force')
    names = needs_seeds(json.loads(FULL.read_text())['experiments'])
    print(f"seed_runs: {', '.join(names)} with seeds {a.seeds}", flush=True)
    t0, out = time.time(), {}
    for s in a.seeds:
        with tempfile.TemporaryDirectory() as tmp:
            res = run_all(ExpConfig(size='full', seed=s, out=tmp, checkpoints=False), only=names)
        out[str(s)] = res['experiments']
        meta = {'command': 'ATTN_TOKENS_DATA=<data> python tools/measure/seed_runs.py ' + ' '.join(sys.argv[1:]),
                'seeds': [int(k) for k in out], 'experiments': names, 'seconds': round(time.time() - t0, 1)}
        files.write_json(a.out, {'meta': meta, 'seeds': out})     # after every seed: a cut-off run keeps its seeds
        print(f"seed_runs: seed {s} done, {meta['seconds']:.0f} s so far", flush=True)
    print(f"seed_runs: {a.out} written in {meta['seconds']:.0f} s")

if __name__ == '__main__': main()
