"""Recompute the record and the word of every claim of the paper in a stored reproduce results.json, from the numbers and
seed runs it already holds, without running anything (issue 47, item 1): each claim of the paper gets its stable `id`, its
`seeds` at the main point ([{seed, value, pass, converged}], each pass recomputed from its value and rule, the seed runs matched by id), its `settings` with, on each open
setting, the points of its declared sweep (paper.rule.SWEEPS and the claims judged side by side: `link_sweeps`), "sweep not
run yet" where the main point fails on every converged seed and no point is stored, or a reason of paper.rule.NOT_SWEPT, and the
word `record_word` computes from that record alone; the transformer ladder's claims that restate the authors' (R0's shapes,
R1's W_KQ p) become the paper's with their quotes (paper.paper_map.ladder_paper). Claim values are not touched.

Nothing stored is trusted (paper.rule.check_entry, the rule's own checks): every claim's pass is recomputed from its value
and rule; a value that is not a finite number, a pass that is not true/false/null, a seed that is not an integer or a seed
run twice (one under the entry's own seed included) is refused naming the claim, exit 2, nothing written; so is a file
that is not JSON (one line naming it).

    python tools/measure/rejudge.py nbs/measured/reproduce_full.json

It checks, then writes the file back atomically with this command recorded in `rejudged`."""
import argparse, sys
from datetime import datetime, timezone
from attn_tokens.infra.files import write_json
from attn_tokens.paper.rule import annotate, link_sweeps, record_word, check_entry, RecordError
from attn_tokens.paper.paper_map import ladder_paper
from study_files import StudyError, fail, read_json   # this folder (the script's own) is on sys.path

def rejudge(res: dict) -> dict:
    """Every entry of `res['experiments']` checked (`check_entry`: each claim's pass recomputed) and annotated again
    from its own numbers; returns `res`."""
    exps = res.get('experiments')
    if not isinstance(exps, dict) or not all(isinstance(r, dict) for r in exps.values()):
        raise StudyError("no 'experiments' object of entries: not a results.json of attn-tokens reproduce")
    for name, r in exps.items():
        if r.get('status') != 'ok': continue
        check_entry(name, r)
        annotate(name, r)
        if name == 'transformer_ladder': ladder_paper(r)
    link_sweeps(res['experiments'])      # the points judged side by side (other sets, constructions, rungs)
    return res

def problems(res: dict) -> list:
    "Each claim of the paper without the record, or whose stored word is not the word its record gives."
    out = []
    for name, r in res['experiments'].items():
        for c in r.get('claims', []):
            if c.get('by', 'paper') != 'paper': continue
            if not all(k in c for k in ('id', 'seeds', 'settings', 'verdict')):
                out.append(f"{name}: {c['claim'][:60]}: no record"); continue
            if any(s['stated'] is None and 'sweep' not in s for s in c['settings']):
                out.append(f"{name}: {c['id'][:60]}: an open setting without its sweep")
            if record_word(c) != c['verdict']: out.append(f"{name}: {c['id'][:60]}: stored {c['verdict']}, "
                                                          f"record gives {record_word(c)}")
    return out

def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('path', help='a results.json of attn-tokens reproduce (nbs/measured/reproduce_full.json)')
    a = ap.parse_args(argv)
    try: res = rejudge(read_json(a.path))
    except (StudyError, RecordError) as e: fail(e if isinstance(e, StudyError) else f"{a.path}: {e}")
    except (KeyError, TypeError, AttributeError, ValueError) as e:     # a record of another shape than reproduce's
        fail(f"{a.path}: a damaged record ({type(e).__name__}: {e}): nothing written")
    bad = problems(res)
    if bad: sys.exit('not written:\n' + '\n'.join(bad))
    res['rejudged'] = dict(command=f"python tools/measure/rejudge.py {a.path}",
                           updated=datetime.now(timezone.utc).strftime('%Y-%m-%dT%H:%M:%SZ'))
    write_json(a.path, res)
    n = sum(c.get('by', 'paper') == 'paper' for r in res['experiments'].values() for c in r.get('claims', []))
    print(f"{a.path}: {n} claims of the paper, each word recomputed from its record")

if __name__ == '__main__': main()
