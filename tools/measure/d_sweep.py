"""Issue 20, deliverable 3: the asymptotic regime, measured. For fixed token sets (n, V, T), the fraction of runs of the
two-stage protocol (`run_protocol`, the defaults of `attn-tokens theory`) that reach the arg-max selection's p_mm as d
grows, over init seeds, at two stage-1 rules: eta0 = 1.2 x the exact threshold (the package's rule) and 3 x it (fixed
before any run: the dependence on eta0). Per run: the ending and whether the premises of Theorem 4.3 as the package
states them hold. Written to OUT.json after every run (atomically); a rerun with the same OUT resumes.
Usage: python tools/measure/d_sweep.py OUT.json [--quick] [--workers 2]   (read by nbs/theory/03e_large_d.ipynb, which draws the figure)"""
import argparse, json, os, time
os.environ.setdefault('OMP_NUM_THREADS', '1'); os.environ.setdefault('MKL_NUM_THREADS', '1')
import multiprocessing as mp
import torch

SHAPES = {   # name: make_assumption1 arguments (data seed 0 for every run: the token set is fixed, the init seed varies)
    'n300_V70_T8': dict(n=300, n_relevant=10, n_irrelevant=60, T=8),
    'n2000_V110_T32 (counterexample)': dict(n=2000, n_relevant=10, n_irrelevant=100, T=32),   # tools/counterexample_run.py's set
}
DS, FACTORS, SEEDS = (32, 128, 512, 2048, 8192), (1.2, 3.), range(10)
from attn_tokens.theory.max_margin import COS_CONVERGED
REACHED = 1 - COS_CONVERGED   # the package's one convergence threshold (cos >= 0.999)

def ending(S, one_class):
    "The kind of ending of a run: 'argmax', 'other_selection', 'one_class', 'unfinished' or the diagnosis."
    R = S['reached']
    if S['max_margin_feasible'] and S['one_minus_cos_arg'] is not None and S['one_minus_cos_arg'] <= REACHED: return 'argmax'
    if R.get('kind') == 'other' and R.get('cos_reach') is not None and 1 - R['cos_reach'] <= REACHED: return 'other_selection'
    if one_class: return 'one_class'
    return 'unfinished' if S['diagnosis'] == 'unfinished' else S['diagnosis']

def run_one(task):
    "One run: (key, record)."
    shape, d, factor, seed = task
    torch.set_num_threads(1)
    from attn_tokens.engine import core
    from attn_tokens.theory.beyond import sequence_mass
    from attn_tokens.data.generators import make_assumption1
    from attn_tokens.theory.protocol import run_protocol
    data = make_assumption1(seed=0, **SHAPES[shape])
    rec = dict(shape=shape, d=d, eta0_factor=factor, seed=seed, n=len(data.labels), V=data.V, T=SHAPES[shape]['T'])
    t0, c0 = time.time(), time.process_time()
    try: res = run_protocol(data.tokens, data.labels, V=data.V, d=d, seed=seed, eta0_factor=factor)
    except (ValueError, RuntimeError) as e:
        return key(task), rec | dict(ending='error', error=str(e)[:400], time_s=time.time() - t0)
    S = res.summary(); y = core.signed_labels(data.labels)
    mass = sequence_mass(res.E1 @ res.p, data.tokens, res.selection)
    mpos, mneg = mass[y > 0].mean().item(), mass[y < 0].mean().item()
    one_class = abs(mpos - mneg) > 0.5          # 03d's signature: one class selects its token, the other does not
    a1 = res.assumption1; R = S['reached']
    premises = dict(assumption1_holds=a1.holds, n_broken=a1.n_broken, n_no_unique_relevant=a1.n_no_unique_relevant,
                    n_not_argmax=a1.n_not_argmax, max_irrelevant_alpha=a1.max_irrelevant_alpha,
                    irrelevant_alpha_zero=a1.max_irrelevant_alpha <= 1e-12, max_margin_feasible=res.mm.feasible,
                    eta0_above_corollary_E=bool(res.eta0 > res.eta0_threshold))
    premises['all'] = bool(premises['assumption1_holds'] and premises['irrelevant_alpha_zero'] and premises['max_margin_feasible'])
    return key(task), rec | dict(
        ending=ending(S, one_class), one_class=one_class, mass_pos=mpos, mass_neg=mneg, premises=premises,
        eta0=res.eta0, eta0_exact=res.eta0_exact, eta0_corollary_E=res.eta0_threshold,
        one_minus_cos_argmax=S['one_minus_cos_arg'], diagnosis=S['diagnosis'], stop=S['stop'][:160], steps=S['steps'],
        selection_mass=S['selection_mass'], reached_kind=R.get('kind'), reached_n_argmax=R.get('n_argmax'),
        reached_one_minus_cos=R.get('one_minus_cos_reach'), loss_monotone=S['loss_monotone'],
        time_s=time.time() - t0, cpu_s=time.process_time() - c0)

def key(task): return '|'.join(map(str, task))

def tasks(quick):
    """Every (shape, d, eta0 factor, seed): shape by shape (the cheap one first), the package's rule first, seed by seed with
    every d, so that a sweep cut off by the deadline has whole seeds (all d) and says how many."""
    ds, seeds = ((32, 128), range(2)) if quick else (DS, SEEDS)
    return [(shape, d, factor, seed) for shape in SHAPES for factor in FACTORS for seed in seeds for d in ds]

def save(out, runs, meta):
    from attn_tokens.infra.files import write_json
    write_json(out, dict(meta=meta, runs=runs))

def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('out'); ap.add_argument('--quick', action='store_true')
    ap.add_argument('--workers', type=int, default=2)
    a = ap.parse_args()
    runs = json.load(open(a.out))['runs'] if os.path.exists(a.out) else {}
    todo = [t for t in tasks(a.quick) if key(t) not in runs]
    meta = dict(command='python tools/measure/d_sweep.py nbs/measured/d_sweep.json' + (' --quick' if a.quick else ''),
                shapes={k: v | dict(seed=0) for k, v in SHAPES.items()}, generator='make_assumption1', ds=list(DS),
                eta0_factors=list(FACTORS), seeds=list(SEEDS),
                protocol="run_protocol(tokens, labels, V=V, d=d, seed=seed, eta0_factor=factor): the defaults of attn-tokens theory "
                         "(stage 1 at factor x the exact threshold with the realised init; stage 2 the flow integrator, at most 10000 steps, "
                         "stop when every top token leads by 300)",
                reached=f"cos(p, p_mm of the arg-max selection) >= {1 - REACHED} (1 - cos <= {REACHED})",
                endings="argmax: reached the arg-max selection's p_mm; other_selection: reached the p_mm of the selection read from p "
                        "(another one); one_class: neither, with mean selected mass differing by > 0.5 between the classes; "
                        "unfinished / stalled / non_monotone / infeasible: ProtocolResult.diagnosis; error: run_protocol refused",
                premises="Theorem 4.3 as the package states it (03b): Assumption 1 on the data with the stage-1 score condition "
                         "(check_assumption1(..., u = E(1) v).holds), alpha_s = 0 for every irrelevant token (at rounding level, "
                         "1e-12), the arg-max selection's max-margin problem feasible; eta0 against Corollary E's a-priori bound recorded",
                machine="2-core machine shared with ~7 other jobs; one torch thread per run, a pool of at most 2 processes")
    print(f"{len(runs)} runs done, {len(todo)} to go", flush=True)
    t0 = time.time()
    with mp.get_context('spawn').Pool(max(1, min(2, a.workers))) as pool:
        for i, (k, rec) in enumerate(pool.imap(run_one, todo), 1):   # in order: a cut-off sweep keeps whole rounds
            runs[k] = rec; save(a.out, runs, meta)
            el = time.time() - t0
            print(f"[{i}/{len(todo)}, {el:.0f} s] {k}: {rec['ending']} ({rec['time_s']:.1f} s)", flush=True)

if __name__ == '__main__': main()
