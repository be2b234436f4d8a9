"""The failure window in eta0 at d = inf on small Assumption-1 sets, for the mechanism and its prediction
(nbs/theory/03k_window_mechanism.ipynb). Sets, fixed before any run:
  03i       make_assumption1(n=40, n_relevant=10, n_irrelevant=10, T=8, seed=0) (the set of 03i);
  03i_mirror  its positive sequences and their mirror images (pos_k -> neg_k, label 0): asymmetry A = 0;
  03i_merged  03i with pos1 replaced by pos0 everywhere: a larger A (the prediction: a wider window);
  twin_1_4_6  window_mechanism.twin_set(1, 4, 6) (the reduced-ODE set).
Per set and EPS in {0, 1e-12, 1e-6} (score noise, noise seed 0): run_protocol(tokens, labels, V, d=inf,
eta0, score_noise=EPS) with the defaults of attn-tokens theory on the grid eta0 = 50, 100, ..., 1500; every
adjacent pair of grid points with different outcomes is bisected to a width of 1 (eta0 units).
A run that raises (a degenerate max-margin problem) is recorded as 'error' and bisected across by no edge.
Outcome: 'reached' (every sequence selects its relevant token), 'failed' (some sequence does not; the
count and the classes that lose every relevant token are recorded). Written atomically after every set.
Second part, the 03i example's dependence on EPS: at its eta0 = 548.5714285714286 (c = 6), EPS = 1e-2, 1e-3, ...,
1e-12 and 0, noise seeds 0..4 (five draws of xi, five sign patterns), the same outcome per run.
Usage: nice -n 19 python tools/measure/window_mechanism.py nbs/measured/window_mechanism.json
[--sets A,B] [--no-eps-scan] (a part only, e.g. to run parts in several processes into several files; the file the
notebooks read holds every part)"""
import argparse, json, math, os, time
os.environ.setdefault('OMP_NUM_THREADS', '1'); os.environ.setdefault('MKL_NUM_THREADS', '1')
import torch

COMMAND = 'nice -n 19 python tools/measure/window_mechanism.py nbs/measured/window_mechanism.json'
EPSS = (0., 1e-12, 1e-6)
GRID = [50. * k for k in range(1, 31)]
WIDTH = 1.
ETA_03I = 548.5714285714286
EPS_SCAN = [10. ** -k for k in range(2, 13)] + [0.]

def sets():
    from attn_tokens.data.generators import make_assumption1
    from attn_tokens.theory.window_mechanism import mirror_set, merge_tokens, twin_set
    d = make_assumption1(n=40, n_relevant=10, n_irrelevant=10, T=8, seed=0)
    mt, ml = mirror_set(d.tokens, d.labels, range(5), range(5, 10))
    t, l, V = twin_set(1, 4, 6)
    return {'03i': (d.tokens, d.labels, d.V), '03i_mirror': (mt, ml, d.V),
            '03i_merged': (merge_tokens(d.tokens, 1, 0), d.labels, d.V), 'twin_1_4_6': (t, l, V)}

def outcome(tokens, labels, V, eta0, eps, seed=0):
    from attn_tokens.data.tokenset import TokenSet
    from attn_tokens.theory.protocol import run_protocol
    try: res = run_protocol(tokens, labels, V=V, d=math.inf, seed=seed, eta0=eta0, score_noise=eps)
    except (ValueError, RuntimeError) as e:   # e.g. a degenerate max-margin problem: recorded, not bisected
        return dict(eta0=eta0, outcome='error', error=str(e)[:200])
    ts = TokenSet.make(tokens, labels, V); S = res.summary(); R = res.reached
    relX = ts.relevant[ts.tokens.clamp(min=0)] & (ts.tokens >= 0)
    has = (R['mask'] & relX).any(1)
    lost = [k for k in (0, 1) if not bool(has[ts.labels == k].any())]
    return dict(eta0=eta0, outcome='reached' if bool(has.all()) else 'failed', kind=R['kind'],
                n_without_relevant=int((~has).sum()), n_several=R['n_several'], classes_lost=lost,
                steps=S['steps'], stop=S['stop'][:120])

def window(tokens, labels, V, eps):
    runs = {e: outcome(tokens, labels, V, e, eps) for e in GRID}
    es = [e for e in sorted(runs) if runs[e]['outcome'] != 'error']; edges = []
    for a, b in zip(es, es[1:]):
        if runs[a]['outcome'] == runs[b]['outcome']: continue
        lo, hi = a, b
        while hi - lo > WIDTH:
            m = (lo + hi) / 2; runs[m] = outcome(tokens, labels, V, m, eps)
            if runs[m]['outcome'] == 'error': break
            if runs[m]['outcome'] == runs[lo]['outcome']: lo = m
            else: hi = m
        edges.append(dict(lo=lo, hi=hi, below=runs[lo]['outcome'], above=runs[hi]['outcome']))
    return dict(edges=edges, runs=[runs[e] for e in sorted(runs)])

def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0]); ap.add_argument('out')
    ap.add_argument('--sets', default=None, help='comma-separated set names: only these windows (default: all)')
    ap.add_argument('--no-eps-scan', action='store_true', help='skip the second part')
    a = ap.parse_args()
    from attn_tokens.infra.files import write_json
    torch.set_num_threads(1)
    out = json.load(open(a.out)) if os.path.exists(a.out) else {}
    out['meta'] = dict(command=COMMAND, eps=list(EPSS), grid=GRID, width=WIDTH, noise_seed=0,
                       protocol='run_protocol(tokens, labels, V=V, d=inf, seed=0, eta0=eta0, score_noise=eps)')
    out.setdefault('windows', {})
    for name, (t, l, V) in sets().items():
        if a.sets and name not in a.sets.split(','): continue
        for eps in EPSS:
            k = f'{name}|{eps:g}'
            if k in out['windows']: continue
            t0 = time.process_time(); w = window(t, l, V, eps)
            out['windows'][k] = w | dict(set=name, eps=eps, cpu_s=time.process_time() - t0)
            write_json(a.out, out)
            print(k, w['edges'], f"{time.process_time() - t0:.0f} s", flush=True)

    if 'eps_scan' not in out and not a.no_eps_scan:
        t, l, V = sets()['03i']; scan = []
        for eps in EPS_SCAN:
            for seed in (range(5) if eps else range(1)):
                o = outcome(t, l, V, ETA_03I, eps, seed); scan.append(o | dict(eps=eps, seed=seed))
                print('eps_scan', eps, seed, o['outcome'], o.get('n_without_relevant'), flush=True)
        out['eps_scan'] = scan; write_json(a.out, out)

if __name__ == '__main__': main()
