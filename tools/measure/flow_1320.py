"""The unperturbed d = inf, eta0 = 1320 cell of the d-sweep ('1320.0|inf|0' in nbs/measured/d_limit.json), run again
and brought to a decision (notebook 03h_any_d; issue 48 item 5).
  run:    run_protocol exactly as tools/measure/d_limit.py ran it (n2000_V110_T32 = make_assumption1(n=2000,
          n_relevant=10, n_irrelevant=100, T=32, seed=0), d = inf, seed 0, init 'sampled', score_noise 0, the
          protocol's defaults), keeping p every KEEP steps, with 03f's integrator, which now stops at the end of
          float64's range ('gradient underflow': the flow time the next step needs overflows) where it used to stop
          with 'no descent'; the trajectory every ROW steps, the stop, the final p and the kept p at least WINDOW
          steps before it.
  decide: the rule below on the final state (seconds; recomputed on every call).
  exact:  the same stage 2 after stage 1 by its closed form (stage1.one_step_exact), which leaves the irrelevant
          tokens' scores exactly 0 (their alpha is 0: each occurs as often in both classes, every sequence has T = 32),
          where the engine's stage 1 leaves them at rounding level (|u_j| <= 3.7e-16): the d = inf limit without that
          perturbation, classified as beyond.seed_outcome does (reached: cos(p, p_mm^rel) >= COS_CONVERGED; failed:
          stopped at the score gap away from it). Added after the diagnosis showed the rounding deciding the selection.
Why the run stops (measured here, numbers in the file): the loss gradient reaches float64's floor (~1e-308) while
the positive class's smallest top-token gap reaches ~706; the error control's next step time then overflows.
The rule (from the implicit-bias theory of 03b/03_max_margin; stated after the run's diagnosis had shown p moving
along one fixed direction with the failing gaps growing 13.6 times as fast as the others, i.e. (c) and (d), before
the recovery bound (e) was computed). Let `top` be every sequence's top token at
the end, the failing pairs (top, r) those of the sequences whose top is not their relevant token r, and p_free the
max-margin direction of the selection `top` without its pairs of exactly tied u (no u-difference, no force). The run
is 'failed' (it converges in direction to p_free, away from p_mm^rel, and stays in its selection) when
  (a) p_free has its KKT certificate (min margin >= 1 - 1e-6, complementary slackness <= 1e-6);
  (b) the selection is locally optimal without the failing pairs (Tarzanagh et al.: no tight pair with h_top <= h_j),
      so that every force but the failing pairs' draws p along p_free;
  (c) M, the smallest margin of a failing pair under p_free, exceeds 1: the failing pairs are not support vectors
      and their weights e^{-gap} decay like t^{-M} while the support pairs' decay like 1/t;
  (d) the flow is in that regime: 1 - cos(p_end, p_free) and 1 - cos(p_end - p_window, p_free) <= 1 - COS_CONVERGED;
  (e) the recovery bound: the failing pairs' forces can change any score difference by at most
      K e^{-g0 + m0} / (C (M - 1)) from the stop on (g0 the smallest failing gap, m0 the smallest margin of the other
      untied pairs, dm/dt = C e^{-m} the support pairs' rate measured at the stop, K = (n_fail / n) 2 max|u|
      max |a_l^T a_k| over the failing pairs, n_fail the failing positions), which is below g0: no failing sequence
      can get its relevant token back.
'reached' when the run itself reaches p_mm^rel (beyond.seed_outcome); 'undecided' otherwise, naming the conditions
that fail. Written atomically; a rerun with the same OUT reuses the run and exact parts.
Usage: nice -n 19 python tools/measure/flow_1320.py OUT.json [--redo]"""
import argparse, json, math, os, time
os.environ.setdefault('OMP_NUM_THREADS', '1'); os.environ.setdefault('MKL_NUM_THREADS', '1')
import numpy as np
import torch

COMMAND = 'nice -n 19 python tools/measure/flow_1320.py nbs/measured/flow_1320.json'
ETA0, KEEP, ROW, WINDOW = 1320., 100, 500, 1000


def data_and_E1():
    "The set, its TokenSet and (E1, v) after stage 1 at d = inf, seed 0 (what run_protocol draws and steps)."
    from attn_tokens.data.generators import make_assumption1
    from attn_tokens.data.tokenset import TokenSet
    from attn_tokens.theory.any_d import MAIN_KW, draw_init
    from attn_tokens.theory.stage1 import stage1_step
    data = make_assumption1(**MAIN_KW); ts = TokenSet.make(data.tokens, data.labels, data.V)
    E0, _, v = draw_init(data.V, math.inf, 0, 'sampled')
    return data, ts, stage1_step(E0, v, ts, ts.labels, ETA0), v


def top_tokens(z, ts):
    "Each sequence's top token under the scores z."
    t = ts.tokens; zX = z[t.clamp(min=0)].masked_fill(t < 0, -math.inf)
    return t.gather(1, zX.argmax(1, keepdim=True))[:, 0]


def relevant_of(ts, V):
    "(is_relevant (V,), each sequence's relevant token (n,): Assumption 1 has one per sequence)."
    from attn_tokens.theory.max_margin import relevant_tokens
    rel = relevant_tokens(ts.tokens, ts.labels, V); t = ts.tokens
    return rel, torch.where(rel[t.clamp(min=0)] & (t >= 0), t, -1).max(1).values


def positions(E1, v, ts, p):
    """Per (sequence, position) of the top-token selection at p: (top, other, tied, failing): the positions
    holding another token than the top, those exactly tied with it in u, those where the top is irrelevant and
    the position holds the sequence's relevant token."""
    u = E1 @ v; t = ts.tokens; top = top_tokens(E1 @ p, ts)
    rel, r = relevant_of(ts, E1.shape[0])
    other = (t >= 0) & (t != top[:, None])
    tied = other & (u[t.clamp(min=0)] == u[top][:, None])
    failing = other & (t == r[:, None]) & ~rel[top][:, None]
    return top, other, tied, failing


def row(E1, v, ts, p, pf, step):
    "One line of the trajectory at p."
    from attn_tokens.theory.stage2 import p_loss_and_grad
    z = E1 @ p; t = ts.tokens; zX = z[t.clamp(min=0)].masked_fill(t < 0, -math.inf)
    top, other, tied, failing = positions(E1, v, ts, p); bad = failing.any(1)
    lead = zX.max(1).values - zX.masked_fill(~other, -math.inf).max(1).values
    fgap = (z[top][:, None] - zX).masked_fill(~failing, math.inf).min(1).values[bad]
    gz = (E1 @ p_loss_and_grad(E1, E1 @ v, p, ts, ts.labels)[1]).abs().max().item()
    return dict(step=int(step), p_norm=p.norm().item(), beta=(v @ p).item(), n_without_relevant=int(bad.sum()),
                good_lead_min=lead[~bad].min().item(),      # the sequences that select their relevant token
                fail_gap_min=fgap.min().item() if bad.any() else None,
                fail_gap_max=fgap.max().item() if bad.any() else None,
                one_minus_cos_free=omc(p, pf), log10_max_E_grad=math.log10(gz) if gz > 0 else None)


def omc(a, b):
    "1 - cos(a, b) without cancellation."
    return 0.5 * (a / a.norm() - b / b.norm()).norm().item() ** 2


def run_part():
    "The protocol run again (about 170 CPU-s on the 2-core machine): its summary, trajectory and final states."
    from attn_tokens.theory.protocol import run_protocol
    from attn_tokens.theory.beyond import seed_outcome
    torch.set_num_threads(1)
    data, ts, E1, v = data_and_E1()
    c0 = time.process_time()
    res = run_protocol(data.tokens, data.labels, V=data.V, d=math.inf, seed=0, eta0=ETA0, init='sampled',
                       score_noise=0., keep_p_every=KEEP)
    cpu = time.process_time() - c0
    assert torch.equal(res.E1, E1), 'stage 1 differs from data_and_E1: the run is not the cell'
    S = res.summary(); ps = dict(res.history.ps); end = S['steps']; ps[end] = res.p   # the final p too
    win = max(k for k in ps if k <= end - WINDOW); ex = res.history.step_excess
    return dict(summary={k: S[k] for k in ('steps', 'stop', 'diagnosis', 'diagnosis_evidence', 'p_norm',
                                            'selection_mass', 'flow_rejected', 'loss_monotone', 'loss_inf')},
                outcome=seed_outcome(res, data.tokens, data.labels)[0],
                n_without_relevant=res.reached['statement1']['n_without_relevant'],
                one_minus_cos_reach=res.reached['one_minus_cos_reach'],
                excess_loss={str(k): float(ex[k]) for k in (0, 100, 1000, end)},
                first_step_excess_final=int(np.flatnonzero(np.asarray(ex) != ex[end])[-1]) + 1,
                cpu_s=cpu, step_end=end, p_end=ps[end].tolist(), step_window=win, p_window=ps[win].tolist(),
                ps={str(k): ps[k].tolist() for k in sorted(ps) if k % ROW == 0 or k == end})


def exact_part():
    "Stage 2 (the protocol's flow, stopped at a score gap of 300) after the closed-form stage 1: its outcome."
    from attn_tokens.theory.any_d import draw_init
    from attn_tokens.theory.stage1 import one_step_exact
    from attn_tokens.theory.protocol import stage2_config
    from attn_tokens.theory.config import protocol_config
    from attn_tokens.theory.integrators import stage2
    from attn_tokens.theory.max_margin import COS_CONVERGED, constraint_pairs, max_margin, selection
    torch.set_num_threads(1)
    data, ts, E1, v = data_and_E1(); E0, _, v = draw_init(data.V, math.inf, 0, 'sampled')
    Ex = one_step_exact(E0, v, ts, ts.labels, ETA0); u = Ex @ v
    rel, r = relevant_of(ts, data.V); sel = selection(u, ts, ts.labels)
    assert torch.equal(sel, r), 'the arg-max selection is not the relevant one: outside Assumption 1'
    mm = max_margin(Ex, constraint_pairs(ts, sel)); c0 = time.process_time()
    cfg = protocol_config(d=math.inf, eta0=ETA0, seed=0, init='sampled')
    p, H = stage2(stage2_config(cfg, 1.)).run(Ex, v, ts, ts.labels, mm=mm, sel=sel)
    cos_ok = omc(p, mm.p) <= 1 - COS_CONVERGED
    outcome = 'reached' if cos_ok else 'failed' if H.stop_reason.startswith('score gap') else 'undecided'
    return dict(outcome=outcome, steps=int(H.step[-1]), stop=H.stop_reason[:200],
                n_without_relevant=int((top_tokens(Ex @ p, ts) != r).sum()), one_minus_cos_rel=omc(p, mm.p),
                u_irrelevant_max_abs=u[~rel].abs().max().item(),
                max_diff_to_engine_stage1=(Ex - E1).abs().max().item(), cpu_s=time.process_time() - c0)


def recovery_bound(E1, v, ts, p, A, ok, failing, M):
    """Rule (e) at p: log of K e^{-g0 + m0} / (C (M - 1)) and its parts, with A the pair rows of the positions,
    ok the untied non-failing ones; C from the rate of the smallest of their margins at p."""
    from attn_tokens.theory.stage2 import p_loss_and_grad
    marg = A @ p; k = divmod(int(torch.where(ok, marg, math.inf).argmin()), marg.shape[1])
    rate = (A[k] @ -p_loss_and_grad(E1, E1 @ v, p, ts, ts.labels)[1]).item()
    Af = torch.unique(A[failing], dim=0)
    K = int(failing.sum()) / len(ts.tokens) * 2 * (E1 @ v).abs().max().item() * (Af @ Af.T).abs().max().item()
    g0, m0 = marg[failing].min().item(), marg[k].item()
    logC = math.log(rate) + m0 if rate > 0 else None
    log_push = math.log(K) - g0 + m0 - logC - math.log(M - 1) if logC is not None and M > 1 else None
    return dict(g0=g0, m0=m0, support_rate=rate, log_C=logC, K=K, log_push_bound=log_push, log_g0=math.log(g0))


def free_direction(E1, v, ts, p):
    "p_free at p: the max-margin direction of the top-token selection without its exactly tied pairs."
    from attn_tokens.theory.max_margin import max_margin
    t = ts.tokens; top, other, tied, _ = positions(E1, v, ts, p)
    pairs = torch.unique(torch.stack([top[:, None].expand_as(t)[other & ~tied], t[other & ~tied]], 1), dim=0)
    return max_margin(E1, pairs)


def decide(run):
    "The rule of the docstring on the run's final state: a dict of its numbers and the decision."
    from attn_tokens.theory.max_margin import COS_CONVERGED
    data, ts, E1, v = data_and_E1(); u = E1 @ v; y = ts.y.to(u.dtype); t = ts.tokens
    p, pw = (torch.tensor(run[k], dtype=torch.float64) for k in ('p_end', 'p_window'))
    top, other, tied, failing = positions(E1, v, ts, p)
    mm = free_direction(E1, v, ts, p); pf = mm.p
    A = E1[top][:, None, :] - E1[t.clamp(min=0)]                  # (n, T, V + 1): the pair rows by position
    mf = A @ pf; dh = y[:, None] * (u[top][:, None] - u[t.clamp(min=0)])
    ok = other & ~tied & ~failing; tight = ok & (mf <= 1 + 1e-6)
    n_fail = int(failing.any(1).sum()); M = mf[failing].min().item() if n_fail else None
    bound = recovery_bound(E1, v, ts, p, A, ok, failing, M) if n_fail else None
    bound_w = recovery_bound(E1, v, ts, pw, A, ok, failing, M) if n_fail else None
    gap = lambda q, m: (A @ q)[m].min().item()
    slope = (gap(p, failing) - gap(pw, failing)) / (gap(p, ok) - gap(pw, ok)) if n_fail else None
    conds = dict(
        a_kkt=bool(mm.feasible and mm.min_margin >= 1 - 1e-6 and mm.comp_slack <= 1e-6),
        b_locally_optimal=bool(not (tight & (dh <= 0)).any()),
        c_failing_not_support=bool(M is not None and M > 1),
        d_along_p_free=bool(omc(p, pf) <= 1 - COS_CONVERGED and omc(p - pw, pf) <= 1 - COS_CONVERGED),
        e_recovery_below_gap=bool(bound is not None and bound['log_push_bound'] is not None
                                  and bound['log_push_bound'] < bound['log_g0']))
    decision = 'reached' if run['outcome'] == 'reached' else 'failed' if all(conds.values()) else 'undecided'
    rel, _ = relevant_of(ts, E1.shape[0])
    return dict(decision=decision, conditions=conds, failed_conditions=[k for k, c in conds.items() if not c],
                n_failing_sequences=n_fail, n_tied_positions=int(tied.sum()), n_tight=int(tight.sum()),
                n_tight_not_below=int((tight & (dh <= 0)).sum()),
                p_free=dict(norm=pf.norm().item(), n_pairs=len(mm.pairs), n_support=len(mm.support),
                            min_margin=mm.min_margin, comp_slack=mm.comp_slack, summary=mm.summary()),
                M=M, M_max=mf[failing].max().item() if n_fail else None, measured_slope=slope,
                one_minus_cos_end=omc(p, pf), one_minus_cos_increment=omc(p - pw, pf),
                bound=bound, bound_at_window=bound_w,
                u_irrelevant=dict(n=int((~rel).sum()), max_abs=u[~rel].abs().max().item(),
                                  n_distinct=int(torch.unique(u[~rel]).numel())))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0]); ap.add_argument('out')
    ap.add_argument('--redo', action='store_true', help='run the protocol again even if OUT has the run')
    a = ap.parse_args()
    from attn_tokens.infra.files import write_json
    old = json.loads(open(a.out).read()) if os.path.exists(a.out) else {}
    meta = dict(command=COMMAND, cell="d_limit.json '1320.0|inf|0'",
                protocol="run_protocol(tokens, labels, V=V, d=inf, seed=0, eta0=1320, init='sampled', "
                         "score_noise=0, keep_p_every=100): the defaults of attn-tokens theory otherwise",
                machine='2-core machine with other work on it; one process, one torch thread, nice 19')
    run = old.get('run') if not a.redo else None
    if run is None:
        run = run_part(); write_json(a.out, dict(meta=meta, run=run))
        print(f"run: {run['summary']['steps']} steps, {run['cpu_s']:.0f} CPU-s, stop: {run['summary']['stop']}",
              flush=True)
    exact = old.get('exact') if not a.redo else None
    if exact is None:
        exact = exact_part(); write_json(a.out, dict(meta=meta, run=run, exact=exact))
        print(f"exact: {exact['outcome']} after {exact['steps']} steps ({exact['stop'][:60]})", flush=True)
    dec = decide(run)
    data, ts, E1, v = data_and_E1()
    pf = free_direction(E1, v, ts, torch.tensor(run['p_end'], dtype=torch.float64)).p
    traj = [row(E1, v, ts, torch.tensor(q, dtype=torch.float64), pf, k) for k, q in run['ps'].items()]
    write_json(a.out, dict(meta=meta, run=run, trajectory=traj, decision=dec, exact=exact))
    print(json.dumps({k: dec[k] for k in ('decision', 'conditions', 'M', 'measured_slope', 'bound')}, indent=1))


if __name__ == '__main__': main()
