"""The axis of the rebuttal's Yelp 4-class tables at the full configuration, both ways (token share n_s/T and presence
1{s in X}; `analysis.signed_frequency`), on the 4,000-review subset of Yelp Review Full and on yelp_pool (not an official
split): range, and tokens per bin of the rebuttal's own bins (`paper.axis_fill`). Data only: no model is trained.
Usage: ATTN_TOKENS_DATA=<data> python tools/measure/yelp_axes.py OUT.json"""
import sys
from attn_tokens.infra import files
from attn_tokens.experiments.framework import ExpConfig
from attn_tokens.experiments.real_data import load_real, data_label
from attn_tokens.experiments.extensions import MULTI_DATA, YELP4, four_classes, yelp4_axes

if __name__ == '__main__':
    out, rows = sys.argv[1], []
    for prefix in MULTI_DATA:
        dataset, sizes = MULTI_DATA[prefix]; s = sizes['full']
        tr5, _ = load_real(dataset, ExpConfig(size='full'), s['min_count'], s['max_len'], s['n_train'], s['n_test'])
        for cons in YELP4:
            tr = four_classes(tr5, cons); a = yelp4_axes(tr)
            for w, f in a['fill'].items():
                for k, g in f.items():
                    rows.append(dict(data=data_label(dataset, tr5.n), experiment=f'{prefix}_4class', construction=cons, n_train=tr.n, V=tr.V,
                                     weight=w, table=f'yelp4_v{k}', chosen=a['axis'] == w, **g))
                    print(rows[-1], flush=True)
    files.write_json(out, dict(meta=dict(command="python tools/measure/yelp_axes.py nbs/measured/yelp_axes.json",
                                         what=__doc__.split('Usage')[0].strip()), rows=rows))
