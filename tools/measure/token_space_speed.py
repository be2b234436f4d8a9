"""Issue 20, deliverable 6: time per stage-2 flow step against d, with the d x d Hessian (eigh) and in the token space
(`attn_tokens.theory.token_space.RowSpace`), and `attn-tokens theory` end to end at large d.
Usage: python tools/measure/token_space_speed.py OUT.json [--quick]   (read by nbs/theory/03g_token_space.ipynb)
Data: make_assumption1(n=300, n_relevant=10, n_irrelevant=60, T=8, seed=0) (V = 70), E(1) after one stage-1 step with
eta0 = 1.2 x the exact threshold (init seed 0); the step is timed at p after 20 flow steps (the default flow_tol)."""
import json, os, platform, subprocess, sys, tempfile, time
import numpy as np, torch
from attn_tokens.engine.core import TokenBatch, init_params
from attn_tokens.data.tokens import save_tokens
from attn_tokens.theory.eta0 import eta0_exact_threshold
from attn_tokens.data.generators import make_assumption1
from attn_tokens.theory.stage2 import p_loss_and_grad
from attn_tokens.theory.integrators import FlowStep, Stage2Config, excess_loss, exp_euler_step, p_hessian, stage2
from attn_tokens.theory.max_margin import selection
from attn_tokens.theory.stage1 import stage1_step
from attn_tokens.theory.token_space import RowSpace

def load(): return os.getloadavg()[0]

def setup(data, d):
    "E(1), v, batch, the objective, p after 20 flow steps and its excess loss and gradient."
    E0, _, v = init_params(data.V, d, seed=0); batch = TokenBatch.make(data.tokens, data.labels, data.V)
    E = stage1_step(E0, v, batch, data.labels, 1.2 * eta0_exact_threshold(E0, v, data.tokens, data.labels, data.V))
    u = E @ v; sel = selection(u, batch.tokens, data.labels)
    p, _ = stage2(Stage2Config(steps=20, flow_tol=2.5e-3)).run(E, v, batch, data.labels, sel=sel)
    f = lambda q: (excess_loss(u, E @ q, batch, data.labels, sel), p_loss_and_grad(E, u, q, batch, data.labels))
    ex = float(f(p)[0]); _, g = p_loss_and_grad(E, u, p, batch, data.labels)
    return E, u, batch, p, f, ex, g

def time_step(E, u, batch, labels, p, f, ex, g, how, rows=None):
    "Seconds for one flow step: the Hessian (d x d, or K in the token space), its eigenpairs, one exp_euler_step call."
    h = 1e-3 / (E @ g).abs().max().item(); t0, c0 = time.perf_counter(), time.process_time()
    lin = (FlowStep.dense(p_hessian(E, u, p, batch.tokens, labels)) if how == 'full'
           else FlowStep(*rows.hessian_eigh(u, p, batch.tokens, labels)))
    q = exp_euler_step(f, lin, E, (p, ex, g), h, 2.5e-3)[0]
    return time.perf_counter() - t0, time.process_time() - c0, q

def main(out, quick):
    torch.set_num_threads(1)
    data = make_assumption1(n=300, n_relevant=10, n_irrelevant=60, T=8, seed=0)
    ds = [64, 256, 1024] if quick else [64, 128, 256, 512, 1024, 2048, 4096, 8192]
    full_max = 1024 if quick else 4096                            # the d x d eigh at 8192 takes minutes per step
    rows_out = []
    for d in ds:
        E, u, batch, p, f, ex, g = setup(data, d)
        t0 = time.perf_counter(); rows = RowSpace(E); qr_s = time.perf_counter() - t0
        tok = [time_step(E, u, batch, data.labels, p, f, ex, g, 'token', rows) for _ in range(15)]
        reps = 0 if d > full_max else 3 if d <= 1024 else 1
        full = [time_step(E, u, batch, data.labels, p, f, ex, g, 'full') for _ in range(reps)]
        diff = (full[0][2] - tok[0][2]).norm().item() / tok[0][2].norm().item() if full else None
        med = lambda runs, i: float(np.median([r[i] for r in runs])) if runs else None
        r = dict(d=d, token_s=med(tok, 0), token_cpu_s=med(tok, 1), full_s=med(full, 0), full_cpu_s=med(full, 1), qr_s=qr_s,
                 full_repeats=reps, token_repeats=len(tok), rel_diff_p_next=diff, load_avg_1min=load())
        rows_out.append(r); print(json.dumps(r), flush=True)
    theory = []
    with tempfile.TemporaryDirectory() as tmp:
        fn = os.path.join(tmp, 'a1.npz'); save_tokens(fn, data)
        for d in ([1024] if quick else [4096, 8192]):
            lb = load(); t0 = time.perf_counter()
            cp = subprocess.run(['attn-tokens', 'theory', fn, '--d', str(d), '--no-progress'], capture_output=True, text=True)
            wall = time.perf_counter() - t0
            if cp.returncode: raise RuntimeError(cp.stderr[-2000:])
            S = json.loads(cp.stdout.strip().splitlines()[-1])
            theory.append(dict(d=d, wall_s=wall, cos_arg=S['cos_arg'], diagnosis=S['diagnosis'], steps=S['steps'], kind=S['reached']['kind'],
                               time_s_in_run_protocol=S['time_s'], load_before=round(lb, 2), load_after=round(load(), 2)))
            print(json.dumps(theory[-1]), flush=True)
    meta = dict(command=f"python tools/measure/token_space_speed.py {os.path.basename(out)}" + (' --quick' if quick else ''),
                machine=f"{platform.machine()}, {os.cpu_count()} cores shared with other jobs (load average recorded per row); "
                        "one torch thread; medians of repeated timings in one process (wall: *_s, process CPU time: *_cpu_s)",
                n=len(data.labels), V=data.V, T=8, data="make_assumption1(n=300, n_relevant=10, n_irrelevant=60, T=8, seed=0)",
                step="p_hessian (d x d) + eigh inside exp_euler_step, against RowSpace.hessian_eigh (k x k) + exp_euler_step; one call each, "
                     "at p after 20 flow steps, trial step h = 1e-3 / max|E g|; qr_s: the thin QR, once per run",
                theory="attn-tokens theory A1.npz --d D --no-progress (defaults: eta0 = 1.2 x the exact threshold, flow_tol 2.5e-3), "
                       "wall time of the whole command (process start, stage 1, max_margin, the flow, reached_selection); cos against "
                       "max_margin's p_mm, solved independently in d dimensions by NNLS")
    tmp = out + '.tmp'
    with open(tmp, 'w') as fh: json.dump(dict(meta=meta, rows=rows_out, theory=theory), fh, indent=1)
    os.replace(tmp, out)

if __name__ == '__main__': main(sys.argv[1], '--quick' in sys.argv)
