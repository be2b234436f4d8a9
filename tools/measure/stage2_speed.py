"""Done-when study of issue 14 (stage 2 speed): the default `run_protocol` (= `attn-tokens theory` defaults) on
make_multi_relevant data, against two slow references from the same E(1) and v: the flow integrated 100x more tightly
with every step capped at 0.05 in every score, run until every sequence has decided, and explicit score-capped GD.
Usage: python tools/measure/stage2_speed.py OUT.json [--quick] [--extra]   (numbers saved for nbs/theory/03c_protocol.ipynb)
--extra: other seeds, sizes and sequence lengths instead of the 12 main configurations."""
import json, math, sys, time, platform
import numpy as np, torch
from attn_tokens.data.generators import make_multi_relevant
from attn_tokens.theory.protocol import run_protocol
from attn_tokens.theory.integrators import Stage2Config, stage2
from attn_tokens.theory.max_margin import token_ids

def top_token(E, p, tokens):
    "Per sequence: the token with the largest score E p, and its gap to the next different token."
    t = token_ids(tokens); m = t >= 0
    zX = (E @ p)[t.clamp(min=0)].masked_fill(~m, -np.inf)
    i = zX.argmax(1); top = t.gather(1, i[:, None])[:, 0]
    second = zX.masked_fill(t == top[:, None], -np.inf).max(1).values
    return top, zX.max(1).values - second

def reference_flow(E1, v, tokens, labels, sel, tol=2.5e-5, cap=0.05, gaps=(1., 3.), end_gap=10., max_steps=20000):
    """The flow from p = 0, exponential Euler with local error <= tol and every step capped at `cap` in every score, run until
    every sequence's top token leads by end_gap; (p, hist, {gap: sequences whose top token changed after first leading by gap})."""
    cfg = Stage2Config('flow', steps=max_steps, record_every=10**9, flow_tol=tol, score_cap=cap, stop_gap=end_gap, keep_p_every=1)
    p, h = stage2(cfg).run(E1, v, tokens, labels, sel=sel)
    first = {g: None for g in gaps}; changed = {g: torch.zeros(len(labels), dtype=torch.bool) for g in gaps}
    for k in sorted(h.ps):
        top, gap = top_token(E1, h.ps[k], tokens)
        for g in gaps:
            if first[g] is None: first[g] = torch.full_like(top, -1)
            new = (first[g] < 0) & (gap >= g); first[g][new] = top[new]
            changed[g] |= (first[g] >= 0) & (top != first[g])
    return p, h, {g: int(c.sum()) for g, c in changed.items()}

MAIN = [(n, d, s, 8) for s in (21, 22) for n in (200, 1000, 2000) for d in (64, 128)]
EXTRA = [(500, 64, 23, 8), (500, 128, 23, 8), (1000, 64, 24, 8), (2000, 64, 23, 8), (1000, 64, 25, 16), (1000, 128, 26, 4), (3000, 64, 27, 8)]

if __name__ == '__main__':
    torch.set_num_threads(1)
    out, quick, extra = sys.argv[1], '--quick' in sys.argv, '--extra' in sys.argv
    configs = [(200, 64, 21, 8), (1000, 64, 22, 8)] if quick else EXTRA if extra else MAIN
    capped_steps = 4000 if quick else 40000
    rows = []
    meta = dict(command=f"python tools/measure/stage2_speed.py {out}" + (' --quick' if quick else '') + (' --extra' if extra else ''),
                machine=f"{platform.machine()}, shared 2-core dev machine (another job benchmarking at the same time): wall times are noisy, cpu_s is the process's CPU time",
                data="make_multi_relevant(n, n_relevant=6, n_irrelevant=30, T=T, k=(1, 3), seed=1000 + seed)",
                default="run_protocol(tokens, labels, V=V, d=d, seed=seed): eta0 = 1.2 eta_exact, monotone, flow='exponential': from p = 0 to the end, "
                        "exponential-Euler steps of the flow with local error <= 2.5e-3 x max(1, smallest top-token lead) per score and Armijo on the "
                        "exact excess loss; at most 10000 steps, stop when every top token leads by 300",
                reference="reference_flow: Stage2Config('flow', flow_tol=2.5e-5, score_cap=0.05, stop_gap=10): the flow "
                          "integrated with 100x tighter local error and every step capped at 0.05 per score, until every sequence's top token leads "
                          "by 10; ref_changed_after_gap1 / _gap3: sequences whose top token changed after it first led by 1 / by 3",
                capped=f"Stage2Config('armijo', steps=0, score_cap=0.05, cap_until=inf, cap_steps={capped_steps}, stop_gap=3): explicit "
                       "score-capped GD (the previous default's first phase), stopped when every sequence's top token leads by 3 or after the budget; "
                       "compared where it leads by 3")
    for n, d, seed, T in configs:
        data = make_multi_relevant(n=n, n_relevant=6, n_irrelevant=30, T=T, k=(1, 3), seed=1000 + seed)
        t0, c0 = time.time(), time.process_time(); res = run_protocol(data.tokens, data.labels, V=data.V, d=d, seed=seed)
        wall, cpu = time.time() - t0, time.process_time() - c0
        S = res.summary(); R = S['reached']
        top_f, gap_f = top_token(res.E1, res.p, data.tokens)
        c1 = time.process_time()
        p_ref, h_ref, changed = reference_flow(res.E1, res.v, data.tokens, data.labels, res.selection)
        ref_cpu = time.process_time() - c1
        top_r, gap_r = top_token(res.E1, p_ref, data.tokens)
        c2 = time.process_time()
        cfg = Stage2Config('armijo', steps=0, lr=0.01, record_every=10**9, score_cap=0.05, cap_until=math.inf, cap_steps=capped_steps,
                           stop_gap=3.)
        p_cap, h_cap = stage2(cfg).run(res.E1, res.v, data.tokens, data.labels, sel=res.selection)
        cap_cpu = time.process_time() - c2
        top_c, gap_c = top_token(res.E1, p_cap, data.tokens); dec_c = gap_c >= 3.
        rows.append(dict(n=n, d=d, seed=seed, T=T, data_seed=1000 + seed, time_s=round(wall, 2), cpu_s=round(cpu, 2), cos_reached=R['cos_reach'], kind=R['kind'],
                         n_argmax=R['n_argmax'], diagnosis=S['diagnosis'], loss_monotone=S['loss_monotone'], steps=S['steps'],
                         flow_steps=S['capped_steps'], flow_rejected=S['flow_rejected'], backtracks=S['backtracks'], time_s_cos_arg_0999=S['time_s_cos_arg_0999'],
                         eta0_over_exact=S['eta0'] / S['eta0_exact_threshold'],
                         ref_steps=h_ref.n_capped, ref_cpu_s=round(ref_cpu, 2), ref_stop=h_ref.stop_reason, ref_monotone=h_ref.monotone(),
                         ref_min_gap=float(gap_r.min()), ref_n_decided=int((gap_r >= 10).sum()), ref_changed_after_gap1=changed[1.],
                         ref_changed_after_gap3=changed[3.],
                         same_top_as_ref=int((top_f == top_r).sum()),
                         capped_steps=h_cap.n_capped, capped_cpu_s=round(cap_cpu, 2), capped_monotone=h_cap.monotone(),
                         capped_backtracks=h_cap.n_backtracks, capped_p_norm=p_cap.norm().item(), default_p_norm=res.p.norm().item(),
                         capped_n_decided=int(dec_c.sum()), same_top_as_capped_where_decided=int((top_f == top_c)[dec_c].sum()),
                         capped_min_gap=float(gap_c.min()), statement1=R['statement1'], statement2=R['statement2']))
        print(json.dumps(rows[-1]), flush=True)
        json.dump(dict(meta=meta, rows=rows), open(out, 'w'), indent=1)
    json.dump(dict(meta=meta, rows=rows), open(out, 'w'), indent=1)
