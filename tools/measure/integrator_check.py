"""The one-class endings are the flow's, not the integrator's: failing runs (sequences that
select no relevant token after p converged in direction) re-run from the same stage-1 output
(same data, d, init seed and eta0, so the same E(1) and v) with two other integrators of stage 2: the
exponential-Euler flow at a 10x tighter local error (flow_tol / 10) and the capped flow (GD steps
with every score's change capped, then Armijo steps). Per integrator: the selection read from p,
the sequences without a relevant token, cos(p_end, p_mm^reach), cos between the final directions.
Usage: nice -n 19 python tools/measure/integrator_check.py OUT.json   (read by nbs/theory/03e_large_d)"""
import json, os, sys, time
os.environ.setdefault('OMP_NUM_THREADS', '1')
import torch

CASES = {   # failing runs, chosen before this check: the test setting of 03d (seed 1) and the
            # phase-diagram point of 05a_selection_studies that ends one-class (T = 32, V = 2d)
    'n300_V70_T8 d=32 eta0=900 seed 1': ('assumption1', dict(n=300, n_relevant=10,
                                          n_irrelevant=60, T=8, seed=0), 32, 900., 1),
    'phase T=32 V=64 k=1 d=32 4x eta_exact seed 0': ('multi', dict(n=200, n_relevant=10,
                                          n_irrelevant=54, T=32, k=1, seed=0), 32, 4., 0),
    # the headline setting of the paper map's Theorem 4.3 row (03h's d-sweep: every seed fails at every d),
    # stage 2's inputs sampled at d = 2^25; the capped flow is not run there (10^4 to 10^6 steps on this set)
    'headline n2000_V110_T32 d=2^25 eta0=1320 seed 0': ('assumption1', dict(n=2000, n_relevant=10,
                                          n_irrelevant=100, T=32, seed=0), 2 ** 25, 1320., 0, dict(init='sampled')),
}
ONLY = {'headline n2000_V110_T32 d=2^25 eta0=1320 seed 0': ('flow', 'flow_tol/10')}
INTEGRATORS = {'flow': {}, 'flow_tol/10': dict(flow_tol=2.5e-4), 'capped': dict(scheme='armijo')}

def main(out):
    from attn_tokens.engine import core
    from attn_tokens.data.generators import make_assumption1, make_multi_relevant
    from attn_tokens.theory.eta0 import eta0_exact_threshold
    from attn_tokens.theory.protocol import run_protocol
    from attn_tokens.theory.beyond import run_verdicts
    from attn_tokens.paper.rule import theory_word
    from attn_tokens.infra.files import write_json
    torch.set_num_threads(1)
    res_all = json.load(open(out))['cases'] if os.path.exists(out) else {}
    for iname, ikw in INTEGRATORS.items():     # integrator by integrator: the cheap ones first
        for name, (gen, kw, d, eta, seed, *extra) in CASES.items():
            if iname not in ONLY.get(name, INTEGRATORS): continue
            data = (make_assumption1 if gen == 'assumption1' else make_multi_relevant)(**kw)
            if gen == 'multi':     # eta0 = factor x the exact threshold with this init, as 05a
                E0, _, v = core.init_params(data.V, d, seed=seed)
                eta = eta * eta0_exact_threshold(E0, v, data.tokens, data.labels, data.V)
            rec = res_all.get(name, dict(data=gen, kwargs=kw, d=d, eta0=eta, seed=seed, runs={}))
            if iname in rec['runs']: continue
            t0 = time.time()
            r = run_protocol(data.tokens, data.labels, V=data.V, d=d, seed=seed, eta0=eta, **ikw, **(extra[0] if extra else {}))
            R = r.reached
            rec['runs'][iname] = dict(
                config=ikw, kind=R['kind'], n_argmax=R['n_argmax'], cos_reach=R['cos_reach'],
                n_without_relevant=R['statement1']['n_without_relevant'],
                stop=r.history.stop_reason[:120], steps=len(r.history.step_loss) - 1,
                loss_monotone=bool(r.history.monotone()), mask=R['mask'].int().tolist(),
                E1_v=(r.E1 @ r.v).tolist(), p=r.p.tolist(), time_s=time.time() - t0,
                statement1=theory_word(run_verdicts(r, data.tokens, data.labels)['statement1']))
            print(name, iname, R['kind'], R['statement1']['n_without_relevant'],
                  f"{time.time() - t0:.0f} s", flush=True)
            res_all[name] = rec
            write_json(out, dict(command='nice -n 19 python tools/measure/integrator_check.py '
                                 'nbs/measured/integrator_check.json', cases=res_all))

if __name__ == '__main__': main(sys.argv[1])
