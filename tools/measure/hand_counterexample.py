"""The smallest counterexample a reader can check by hand: a search over small Assumption-1 sets for one on
which, at d = inf with the scores perturbed by EPS xi (xi ~ N(0, I), noise seed 0), the gradient flow of
stage 2 converges in direction to a max-margin point that leaves a whole class without its relevant token.
The search, fixed before any run:
  sets   make_assumption1(n, n_relevant=R, n_irrelevant=I, T, seed=0) for n in 8..40 (step 8), R in
         {2, 4, 6, 10} (R <= n), I in {2, 4, 10}, T in {4, 8}, taken in increasing order of size n*T, then V
         = R + I, then n;
  eta0   2 c / max_s |alpha_s| for c in {3, 6, 12}: the largest stage-1 score |u_s| = c at d = inf;
  EPS    1e-6; protocol the defaults of attn-tokens theory (the flow, stopped at a score gap of 300).
A run that raises (e.g. a numerically degenerate max-margin problem) is recorded as an error. A run is
the example when its statement (1) verdict (beyond.verdicts_block) is 'counterexample' (p converged
in direction, the loss monotone, a sequence without its relevant token) and every sequence of one class selects
no relevant token; the search stops at the first, and the file records every run made.
For the example: G = E(1) E(1)^T, u, the tokens, labels and the reached selection, its max-margin point p_mm
(token coordinates: E(1) = [I, u] at d = inf) and w with p_mm = E(1)^T w, the pairs of its max-margin problem,
their margins and KKT multipliers (scipy's nnls on the tight pairs).
Usage: nice -n 19 python tools/measure/hand_counterexample.py OUT.json
(read by nbs/theory/03i_hand_counterexample.ipynb)"""
import argparse, math, os, time
os.environ.setdefault('OMP_NUM_THREADS', '1'); os.environ.setdefault('MKL_NUM_THREADS', '1')
import numpy as np
import torch

COMMAND = 'nice -n 19 python tools/measure/hand_counterexample.py nbs/measured/hand_counterexample.json'
EPS, CS = 1e-6, (3., 6., 12.)
SETS = sorted(((n, R, I, T) for n in (8, 16, 24, 32, 40) for R in (2, 4, 6, 10) for I in (2, 4, 10)
               for T in (4, 8) if R <= n), key=lambda s: (s[0] * s[3], s[1] + s[2], s[0]))

def certificate(res, data):
    "The reached selection's max-margin point with its pairs, margins and KKT multipliers (numbers only)."
    from scipy.optimize import nnls
    from attn_tokens.theory.max_margin import constraint_pairs, max_margin, token_ids
    R = res.reached; t = token_ids(data.tokens)
    sel = torch.where(R['mask'], t, -1).max(1).values
    mm = max_margin(res.E1, constraint_pairs(t, sel))
    E1 = res.E1.numpy(); pairs = mm.pairs.numpy(); p = mm.p.numpy()
    A = E1[pairs[:, 0]] - E1[pairs[:, 1]]; marg = A @ p
    tight = marg <= 1 + 1e-9
    lam = np.zeros(len(pairs)); lam[tight], resid = nnls(A[tight].T, p)
    w = np.linalg.lstsq(E1.T, p, rcond=None)[0]
    return dict(selection=sel.tolist(), pairs=pairs.tolist(), p_mm=p.tolist(), w=w.tolist(),
                margins=marg.tolist(), multipliers=lam.tolist(), nnls_residual=float(resid))

def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0]); ap.add_argument('out')
    a = ap.parse_args()
    from attn_tokens.data.generators import make_assumption1
    from attn_tokens.data.tokenset import TokenSet
    from attn_tokens.infra.files import write_json
    from attn_tokens.theory.protocol import run_protocol
    from attn_tokens.theory.beyond import verdicts_block
    from attn_tokens.paper.rule import theory_word
    torch.set_num_threads(1)
    meta = dict(command=COMMAND, eps=EPS, noise_seed=0, cs=list(CS), sets=[list(s) for s in SETS],
                generator='make_assumption1(n, n_relevant, n_irrelevant, T, seed=0)',
                protocol='run_protocol(tokens, labels, V=V, d=inf, seed=0, eta0=eta0, score_noise=eps)')
    runs, example, t0 = [], None, time.time()
    for n, R, I, T in SETS:
        data = make_assumption1(n=n, n_relevant=R, n_irrelevant=I, T=T, seed=0)
        ts = TokenSet.make(data.tokens, data.labels, data.V)
        amax = ts.stats.alpha.abs().max().item()
        for c in CS:
            eta0 = 2 * c / amax
            try:
                res = run_protocol(data.tokens, data.labels, V=data.V, d=math.inf, seed=0, eta0=eta0,
                                   score_noise=EPS)
            except (ValueError, RuntimeError) as e:   # recorded, and the search goes on
                runs.append(dict(n=n, n_relevant=R, n_irrelevant=I, T=T, c=c, eta0=eta0,
                                 verdict='error', error=str(e)[:300]))
                print(f"[{time.time() - t0:.0f} s] {runs[-1]}", flush=True); continue
            vb = verdicts_block(res, data.tokens, data.labels); S = res.summary()
            t = ts.tokens; relX = ts.relevant[t.clamp(min=0)] & (t >= 0)
            has_rel = (res.reached['mask'] & relX).any(1)
            one_class = [k for k in (0, 1) if not has_rel[ts.labels == k].any()]
            rec = dict(n=n, n_relevant=R, n_irrelevant=I, T=T, c=c, eta0=eta0,
                       verdict=theory_word(vb['statement1']), kind=S['reached']['kind'],
                       n_without_relevant=S['reached']['statement1']['n_without_relevant'],
                       class_without_relevant=one_class, diagnosis=S['diagnosis'],
                       cos_reach=S['reached']['cos_reach'], steps=S['steps'])
            runs.append(rec)
            print(f"[{time.time() - t0:.0f} s] {rec}", flush=True)
            if rec['verdict'] == 'counterexample' and one_class:
                E1 = res.E1
                example = rec | dict(tokens=data.tokens.tolist(), labels=data.labels.tolist(),
                                     V=data.V, vocab=list(data.vocab), G=(E1 @ E1.T).tolist(),
                                     u=(E1 @ res.v).tolist(), E1=E1.tolist(),
                                     alpha=ts.stats.alpha.tolist()) | certificate(res, data)
                break
        write_json(a.out, dict(meta=meta, runs=runs, example=example))
        if example: break
    write_json(a.out, dict(meta=meta, runs=runs, example=example))

if __name__ == '__main__': main()
