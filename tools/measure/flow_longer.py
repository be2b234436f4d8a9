"""The reached selections that local_optimality calls not locally optimal, looked at closely: every
run of the eta0 window sweep (nbs/measured/eta0_window.json) whose reached selection has a tight
position scoring above the selected token is run again (same data, d, init seed and eta0) to the
protocol's score gap (300) and to twice it (600). Per run and gap: the violating positions (the
largest h_s - h_r among them, with h = y E_s^T v), the selection read from p, the sequences
without a relevant token, 1 - cos(p_end, p_mm^reach). If the direction converges, 1 - cos falls
like |p|^-2 and |p| grows like the gap: doubling the gap divides 1 - cos by about 4, with the same
selection.
Usage: nice -n 19 python tools/measure/flow_longer.py nbs/measured/eta0_window.json OUT.json
(read by nbs/theory/03e_large_d.ipynb)"""
import hashlib, json, os, sys, time
os.environ.setdefault('OMP_NUM_THREADS', '1')
import torch

# the protocol's stop (final_margin) and twice it (below ~700, float64's edge)
GAPS = (300., 600.)

def main(sweep, out):
    from attn_tokens.data.generators import make_assumption1
    from attn_tokens.theory.protocol import run_protocol
    from attn_tokens.theory.beyond import _local_optimality
    from attn_tokens.infra.files import write_json
    torch.set_num_threads(1)
    win = json.load(open(sweep))
    todo = {k: r for k, r in win['runs'].items()
            if r.get('local_optimality') and not r['local_optimality']['locally_optimal']}
    cases = json.load(open(out))['cases'] if os.path.exists(out) else {}
    for key, r in todo.items():
        if key in cases: continue
        data = make_assumption1(**win['meta']['shapes'][r['shape']])
        runs = {}
        for gap in GAPS:
            t0 = time.time()
            res = run_protocol(data.tokens, data.labels, V=data.V, d=r['d'], seed=r['seed'],
                               eta0=r['eta0'], final_margin=gap)
            R = res.reached; lo = _local_optimality(res, data.tokens, data.labels)
            runs[f'{gap:g}'] = dict(
                kind=R['kind'], n_without_relevant=R['statement1']['n_without_relevant'],
                one_minus_cos_reach=R['one_minus_cos_reach'], p_norm=res.p.norm().item(),
                stop=res.history.stop_reason[:120], loss_monotone=bool(res.history.monotone()),
                n_tight=lo['n_tight'], n_violating=lo['n_violating'],
                largest_violation=-lo['worst'][3] if lo['worst'] else None,
                largest_h=res.E1.matmul(res.v).abs().max().item(),
                # the selection read from p, as a digest of its (n, T) mask
                selection=hashlib.blake2b(R['mask'].numpy().tobytes(), digest_size=16).hexdigest(),
                time_s=time.time() - t0)
            print(key, gap, R['kind'], lo['n_violating'], f"{time.time() - t0:.0f} s", flush=True)
        cases[key] = dict(shape=r['shape'], d=r['d'], rule=r['rule'], seed=r['seed'],
                          eta0=r['eta0'], runs=runs)
        write_json(out, dict(command='nice -n 19 python tools/measure/flow_longer.py '
                             'nbs/measured/eta0_window.json nbs/measured/flow_longer.json',
                             gaps=GAPS, cases=cases))

if __name__ == '__main__': main(*sys.argv[1:3])
