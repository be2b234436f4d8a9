"""R8 (MiniLM fine-tuned, its last layer's [CLS] attention) and the paper's model from MiniLM's input embeddings
(three protocols, random init beside), on IMDB and yelp_sentences: writes nbs/measured/pretrained.json, resumable
(each finished part is kept; a rerun does the rest). Needs the pretrained extra and ATTN_TOKENS_DATA.

    ATTN_TOKENS_DATA=<data> nice -n 19 python tools/measure/pretrained_study.py nbs/measured/pretrained.json [--size cpu]
"""
import argparse, copy, json, sys
from pathlib import Path
import torch
from attn_tokens.infra.files import write_json
from attn_tokens.experiments import pretrained as pt
from attn_tokens.experiments.transformer_ladder import reference
from attn_tokens.experiments.ablations import eta0_rule

SETS = ('imdb', 'yelp_sentences')

def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('out'); ap.add_argument('--size', default='cpu', choices=list(pt.PRETRAINED_SIZES))
    ap.add_argument('--sets', nargs='+', default=list(SETS)); ap.add_argument('--threads', type=int, default=2)
    a = ap.parse_args(argv)
    torch.set_num_threads(a.threads)
    s = pt.PRETRAINED_SIZES[a.size]
    out = Path(a.out)
    res = json.loads(out.read_text()) if out.exists() else {}
    if res and res.get('size') != a.size: sys.exit(f"{out} holds size {res.get('size')!r}: pass --size {res.get('size')} or a new file")
    res.update(size=a.size, settings=s, threads=a.threads, sha256=pt.MINILM_SHA256,
               command=f"ATTN_TOKENS_DATA=<data> nice -n 19 python tools/measure/pretrained_study.py {a.out} --size {a.size}",
               parts=res.get('parts', {}))
    tok, enc0 = pt.load_minilm()
    E_all = enc0.embeddings.word_embeddings.weight.detach()
    def keep(key, val):
        res['parts'][key] = val; write_json(out, res); print(key, 'done', flush=True)
    for name in a.sets:
        for seed in s['seeds']:
            tr, te, wp_of = pt.wordpiece_data(name, tok, s['n_train'], s['n_test'], s['max_len'], seed)
            ref = reference(tr, te)
            E0 = E_all[wp_of]
            eta0 = eta0_rule(tr.tokens, tr.labels, tr.V, E0.shape[1])['eta0']
            base = dict(V=tr.V, n_train=tr.n, n_test=len(te.tokens), share_uniform=ref['share_uniform'],
                        n_top=int(ref['top'].sum()), eta0=eta0, unseen_test=float((te.tokens == tr.V - 1).double().mean()))
            for init in ('random', 'minilm'):
                for proto in pt.PROTOCOLS:
                    key = f"{name}/{seed}/R0/{init}/{proto}"
                    if key in res['parts']: continue
                    keep(key, {**base, **pt.run_protocol(proto, init, tr, te, ref, s, eta0, seed, E0=E0)})
            key = f"{name}/{seed}/R8"
            if key not in res['parts']:
                keep(key, {**base, **pt.run_r8(copy.deepcopy(enc0), tr, te, wp_of, ref, s, seed)})

if __name__ == '__main__': main()
