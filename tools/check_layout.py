#!/usr/bin/env python3
"""Check the reading rules of the notebooks and the library (runs in CI, in about a second).

    python tools/check_layout.py            # every rule; exit 1 and one line per finding when one fails

Rules (each line of output names the file and, where it applies, the cell and the fix):
- define, show, test: no notebook has more than MAX_EXPORT_RUN export cells in a row without a code cell
  that is not exported (one that shows or checks them) between them; markdown cells do not interrupt a run;
- no tracker words ("issue 27", "Done-when") in notebooks: the pages are for readers, the tracker is not;
- imports in their own cells: nbdev's docs build executes every cell with an import in it (to render
  show_doc), so a cell that imports and also computes runs again at build time (a `slow` cell too: 10_cli's
  Ctrl-C probe added 2 minutes to every docs build); nbdev's own test for it (an import plus an expression or
  an assignment, in a code cell not exported and not `eval: false`);
- one spelling of "normalised" in the library and the command line (British, as the prose);
- no function of attn_tokens/theory/ takes more than MAX_PARAMS parameters (a config object carries more);
- no markdown cell names a private symbol of the library in backticks (`_frozen_chain`): nbdev links such a name
  to an anchor its page does not have (private functions get no entry), and the browser check fails on the link;
- no backslash in the `>` summary of a notebook that exports a module: nbdev writes that line verbatim as the
  module's docstring, in a string that is not raw, so `$E^\\top$` puts a tab into the docstring and `$\\beta$` a
  backspace (write E^T, β, ×); nor three double quotes or a final one, which end that string early. Which
  notebooks export a module, and which summary becomes the docstring, is decided by nbdev's own directive parser
  and exporter (`# | default_exp`, `#|default_exp`, a cell starting `#| hide` before it: every form nbdev accepts);
- no function of the library longer than MAX_LINES lines (split it into named steps);
- the layers only point down (FLOORS: infra -> engine -> data -> theory -> experiments -> paper -> commands): no
  import of the package runs up a floor, none makes a circle, and one inside a function says in a comment beside it
  why (an optional heavy dependency, or the light --help path), never to dodge a circle: the reason is read from
  `#` comments only (tokenize), as whole words, never from the code (`Highlight`, `def h(optional=None)`);
- no fastcore test whose failure would print only 'False' and 'True' (test_eq / test_ne / test_is / test_eq_type
  with True or False on either side, or two plain bools), in every form Python reads (ast: keywords, parentheses,
  more statements on the line, a call over several lines): assert the condition with the value in its message.

    python tools/check_layout.py --self-test   # the rules' own tests, on made-up notebooks, cells and modules (CI)
"""
import argparse, ast, copy, io, json, re, sys, tempfile, tokenize, warnings
from pathlib import Path
from execnb.nbio import dict2nb
from fastcore.basics import AttrDict
from nbdev.export import ExportModuleProc, nb_export
from nbdev.process import NBProcessor, extract_directives

ROOT = Path(__file__).resolve().parents[1]
MAX_EXPORT_RUN, MAX_PARAMS, MAX_LINES = 3, 8, 60
EXPORTS = ('export', 'exporti', 'exports')   # the directives that put a cell into a module (nbdev.export)
BOOL_TEST = re.compile(r'test_(eq|ne|is)\(.*,\s*(True|False)\)')   # only for a cell Python cannot parse
ASSERTS = ('test_eq', 'test_ne', 'test_is', 'test_eq_type')    # fastcore's: a failure prints the two values only
BOOL_CALLS = ('bool', 'isinstance', 'issubclass', 'callable', 'hasattr', 'all', 'any')   # calls that return a bool
TRACKER = re.compile(r'\bissues? #?\d+\b|done[- ]when', re.I)
AMERICAN = re.compile(r'normaliz', re.I)


def directives(src) -> dict:
    "The directives of a code cell's source as nbdev reads them ({'export': [], 'default_exp': ['m'], ...})."
    return extract_directives(AttrDict(source=src), remove=False)


def is_export(src) -> bool: return any(k in directives(src) for k in EXPORTS)


def module_summary(nb: dict):
    """The '>' summary nbdev writes as the docstring of the module notebook `nb` (a dict) exports, as nbdev
    finds it (its directive parser and export processor); None when nbdev writes no module docstring."""
    exp = ExportModuleProc()
    NBProcessor(nb=dict2nb(copy.deepcopy(nb)), procs=[exp]).process()
    cells = exp.modules.get('#', [])
    if not getattr(exp, 'default_exp', None) or not any(c.cell_type == 'code' for c in cells): return None
    md = next((c for c in cells if c.cell_type == 'markdown' and c.source.startswith('# ')), None)
    line = next((l for l in md.source.splitlines() if l.startswith('> ')), None) if md else None
    return (line.lstrip('> ').strip() or None) if line else None


def summary_problem(summ):
    "Why the module docstring nbdev writes from `summ` is not `summ` itself, or None."
    if summ is None: return None
    if '\\' in summ:
        return (f"a backslash ({summ[summ.index(chr(92)):][:20]!r}); nbdev writes it as the module's docstring, "
                f"not raw: write the math without backslashes (E^T, β, ×)")
    if '\"\"\"' in summ or summ.endswith('"'):
        return ("a '\"\"\"' or a final '\"', which ends the module's docstring early (nbdev writes it between "
                "triple quotes): reword it")
    return None


def notebooks():
    nbs = ROOT/'nbs'
    return sorted(f for f in nbs.rglob('*.ipynb')
                  if not any(q.startswith(('_', '.')) for q in f.relative_to(nbs).parts))


def export_runs(cells):
    "[(first cell index, length)] of the runs of export cells not interrupted by another code cell."
    runs, start, n = [], None, 0
    for i, c in enumerate(cells):
        if c['cell_type'] != 'code': continue
        if is_export(''.join(c['source'])):
            start, n = (i if n == 0 else start), n + 1
        else:
            if n: runs.append((start, n))
            n = 0
    if n: runs.append((start, n))
    return runs


def mixes_imports(src):
    "Whether nbdev's docs build would run this non-exported code cell for its imports, with other code in it."
    d = directives(src)
    if any(k in d for k in EXPORTS) or [a.lower() for a in d.get('eval:', [])] == ['false']: return False
    try: tree = ast.parse('\n'.join(l for l in src.splitlines() if not l.lstrip().startswith(('%', '!'))))
    except SyntaxError: return False
    # matplotlib.use('Agg') beside the imports is part of importing
    use = lambda n: (isinstance(n, ast.Expr) and isinstance(n.value, ast.Call)
                     and isinstance(n.value.func, ast.Attribute) and n.value.func.attr == 'use')
    nodes = list(ast.walk(tree))
    return (any(isinstance(n, (ast.Import, ast.ImportFrom)) for n in nodes)
            and any(isinstance(n, (ast.Expr, ast.Assign)) and not use(n) for n in nodes))


def private_symbols():
    "The names of the library's private symbols that nbdev's index knows (it links them from markdown)."
    tree = ast.parse((ROOT/'attn_tokens'/'_modidx.py').read_text(encoding='utf-8'))
    d = ast.literal_eval(next(n.value for n in ast.walk(tree) if isinstance(n, ast.Assign)))
    # module-level names only: a method (Stage2._phase) is indexed under its class, and a bare name is not linked
    names = {k[len(m) + 1:] for m, syms in d['syms'].items() for k in syms}
    return {n for n in names if n and '.' not in n}


def _bool_const(n) -> bool:
    "Whether the expression `n` is the constant True or False (NumPy's np.True_ / np.False_ too)."
    if isinstance(n, ast.Constant): return isinstance(n.value, bool)
    return isinstance(n, (ast.Attribute, ast.Name)) and getattr(n, 'attr', getattr(n, 'id', '')) in ('True_', 'False_')


def _boolish(n) -> bool:
    "Whether the expression `n` is plainly a bool: a constant, a comparison, a `not`, bool(...), isinstance(...), ..."
    if _bool_const(n) or isinstance(n, ast.Compare) or (isinstance(n, ast.UnaryOp) and isinstance(n.op, ast.Not)):
        return True
    if isinstance(n, ast.BoolOp): return all(_boolish(v) for v in n.values)
    return isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in BOOL_CALLS


def _call_name(n) -> str:
    "The name a call calls: `f` of f(...) and of mod.f(...)."
    f = n.func
    return f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ''


def _code(src) -> str:
    """A code cell's source as Python: `%time` / `%timeit` dropped before their statement, other magic and shell
    lines blanked (the line numbers kept)."""
    lines = (re.sub(r'^(\s*)%{1,2}time(it)?\b', r'\1', l) for l in src.splitlines())
    return '\n'.join('' if l.lstrip().startswith(('%', '!')) else l for l in lines)


def bool_tests(src) -> list:
    """[(line, its text)] of every fastcore test (ASSERTS) in the code `src` whose failure would print only
    'False' and 'True': one side the constant True or False, or both sides plainly bools (`x is None` against
    `not flag`); read by ast, so every form counts (keywords a= and b=, parentheses, more statements on the line,
    a call over several lines). A cell Python cannot parse falls back to a line-by-line pattern."""
    lines = src.splitlines()
    try: tree = ast.parse(_code(src))
    except SyntaxError: return [(i, l.strip()) for i, l in enumerate(lines, 1) if BOOL_TEST.search(l)]
    out = []
    for n in ast.walk(tree):
        if not (isinstance(n, ast.Call) and _call_name(n) in ASSERTS): continue
        args = list(n.args[:2]) + [k.value for k in n.keywords if k.arg in ('a', 'b')]
        if len(args) >= 2 and (any(_bool_const(a) for a in args[:2]) or all(_boolish(a) for a in args[:2])):
            out.append((n.lineno, lines[n.lineno - 1].strip()))
    return sorted(set(out))


def check_notebook(f, private=frozenset()):
    nb = json.loads(f.read_text(encoding='utf-8'))
    rel = f.relative_to(ROOT) if f.is_relative_to(ROOT) else f
    cells = nb['cells']
    out = [f"{rel}: cells {s}..: {n} export cells in a row (at most {MAX_EXPORT_RUN}); put a cell that shows "
           f"or checks them after the third" for s, n in export_runs(cells) if n > MAX_EXPORT_RUN]
    why = summary_problem(module_summary(nb))          # nbdev writes a module: the summary is its docstring
    if why: out.append(f"{rel}: the '>' summary has {why}")
    for i, c in enumerate(cells):
        m = TRACKER.search(''.join(c['source']))
        if m: out.append(f"{rel}: cell {i}: tracker word {m.group(0)!r}; say what it means for a reader")
        src = ''.join(c['source'])
        if c['cell_type'] == 'markdown':
            for name in sorted(set(re.findall(r'`(_[A-Za-z]\w*)`', src)) & private):
                out.append(f"{rel}: cell {i}: `{name}` is a private symbol: nbdev links it to an anchor its "
                           f"page does not have; name it in words, or make it public")
        if c['cell_type'] == 'code':
            for k, ln in bool_tests(src):
                out.append(f"{rel}: cell {i}, line {k}: {ln!r}: a failure would print only 'False' and 'True'; "
                           f"assert the condition with the value in its message, or compare the values themselves")
        if c['cell_type'] == 'code' and mixes_imports(src) and 'nbdev_export' not in src:
            out.append(f"{rel}: cell {i}: imports and other code in one cell (the docs build runs it); "
                       f"move the imports to the notebook's imports cell")
    return out


def check_library():
    out, lib = [], ROOT/'attn_tokens'
    for p in sorted(lib.rglob('*.py')):
        text, rel = p.read_text(encoding='utf-8'), p.relative_to(ROOT)
        for i, line in enumerate(text.splitlines(), 1):
            if AMERICAN.search(line):
                out.append(f"{rel}:{i}: 'normaliz...' spelled; the package writes 'normalis...'")
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and p.name != '_modidx.py':
                n = node.end_lineno - node.lineno + 1
                if n > MAX_LINES:
                    out.append(f"{rel}:{node.lineno}: {node.name} is {n} lines (at most {MAX_LINES}); split it "
                               f"into named steps")
        if p.parent.name != 'theory': continue
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                a = node.args
                own = int(bool(a.args) and a.args[0].arg in ('self', 'cls'))
                n = len(a.posonlyargs) + len(a.args) + len(a.kwonlyargs) - own
                if n > MAX_PARAMS:
                    out.append(f"{rel}:{node.lineno}: {node.name} takes {n} parameters "
                               f"(at most {MAX_PARAMS}); "
                               f"pass a config object")
    return out


FLOORS = ('infra', 'engine', 'data', 'theory', 'experiments', 'paper', 'commands')   # each imports only below it
REASON = re.compile(r'(?<![\w-])(?:optional|heavy|light|--help)(?!\w)', re.I)   # words a function-level
                                                   # import's comment must hold (whole words: not 'Highlight')


def _floor(mod):
    "The floor of module `mod` (attn_tokens.X...): its index in FLOORS; the console entry cli is a command."
    part = mod.split('.')[1] if mod.count('.') else ''
    return FLOORS.index('commands') if part == 'cli' else FLOORS.index(part) if part in FLOORS else None


def _imports(p, mod, tree):
    "(module imported, line, at module level?) of every import of the package's own modules in file `p`."
    pkg = mod if p.name == '__init__.py' else mod.rpartition('.')[0]
    top = {id(n) for b in tree.body for n in ast.walk(b) if not isinstance(b, (ast.FunctionDef, ast.ClassDef))}
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import): names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = pkg.split('.')[:len(pkg.split('.')) - node.level + 1] if node.level else []
            src = '.'.join(base + ([node.module] if node.module else []))
            names = [f"{src}.{a.name}" for a in node.names]    # a module, or a name in module src
        else: continue
        out += [(n, node.lineno, id(node) in top, node.end_lineno) for n in names if n.startswith('attn_tokens.')]
    return out


def comments(text) -> dict:
    "{line: its '#' comment} of the Python source `text`, read by tokenize (a '#' inside a string is no comment)."
    return {t.start[0]: t.string for t in tokenize.generate_tokens(io.StringIO(text).readline)
            if t.type == tokenize.COMMENT}


def import_reason(lines, notes, ln, end) -> str:
    """The comments that may say why the import on lines ln..end sits in a function: those on its own lines and on
    the imports right above it (a block), and the comment-only lines right above that block; code is never read."""
    k = ln
    while k > 1 and lines[k - 2].strip().startswith(('from ', 'import ')): k -= 1
    got = [notes[i] for i in range(k, end + 1) if i in notes]
    while k > 1 and (k - 1) in notes and lines[k - 2].strip().startswith('#'): k -= 1; got.append(notes[k])
    return ' '.join(got)


def check_imports(lib=None):
    """The layers of the package in folder `lib` (default attn_tokens/): no import runs up a floor (FLOORS), no
    circle between modules, and an import of the package's own modules inside a function only with a comment (on
    its line or the line above: `import_reason`) naming why (`REASON`): an optional heavy dependency, or the light
    --help path."""
    out, lib, graph = [], Path(lib or ROOT/'attn_tokens'), {}
    base = lib.parent
    for p in sorted(lib.rglob('*.py')):
        if p.name == '_modidx.py': continue
        rel = p.relative_to(base); mod = '.'.join(p.relative_to(base).with_suffix('').parts)
        mod = mod.removesuffix('.__init__'); text = p.read_text(encoding='utf-8'); lines = text.splitlines()
        notes = comments(text)
        for tgt, ln, at_top, end in _imports(p, mod, ast.parse(text)):
            graph.setdefault(mod, set()).add(tgt)
            a, b = _floor(mod), _floor(tgt)
            if a is not None and b is not None and b > a:
                out.append(f"{rel}:{ln}: {FLOORS[a]} imports {tgt} ({FLOORS[b]}, a floor up); move what it "
                           f"needs down, or the caller up")
            if not at_top and not REASON.search(import_reason(lines, notes, ln, end)):
                out.append(f"{rel}:{ln}: {tgt} imported inside a function without a reason; import it at the "
                           f"top, or say beside it why not (an optional heavy dependency, the light --help path)")
    mods = set(graph) | {'.'.join(p.relative_to(base).with_suffix('').parts).removesuffix('.__init__')
                         for p in lib.rglob('*.py')}
    def module(t):
        while t not in mods and '.' in t: t = t.rpartition('.')[0]
        return t
    edges = {m: {module(t) for t in ts} - {m} for m, ts in graph.items()}
    seen, done = set(), set()
    def visit(m, path):
        if m in done: return
        if m in seen:
            out.append(f"attn_tokens: import circle {' -> '.join(path[path.index(m):] + [m])}"); return
        seen.add(m)
        for t in sorted(edges.get(m, ())): visit(t, path + [m])
        done.add(m)
    for m in sorted(edges): visit(m, [])
    return out
def _made_up(first_cell, summary, code='#| export\nx = 1', h1_later=None) -> dict:
    "A made-up notebook: an H1 with `summary`, a code cell `first_cell`, an exported cell `code`."
    md = lambda t: {'cell_type': 'markdown', 'metadata': {}, 'source': t}
    cd = lambda t: {'cell_type': 'code', 'metadata': {}, 'source': t, 'outputs': [], 'execution_count': None}
    cells = [md(f'# Title\n\n> {summary}'), cd(first_cell), cd(code)] + ([md(h1_later)] if h1_later else [])
    return {'cells': cells, 'metadata': {'kernelspec': {'language': 'python', 'name': 'python3',
                                                         'display_name': 'Python 3'}},
            'nbformat': 4, 'nbformat_minor': 5}


def _exported_doc(nb: dict, tmp: Path):
    """The docstring nbdev's own export writes for `nb` (None: no module, or none in it), with 'SyntaxError' or
    'invalid escape' appended when Python refuses or warns about the module's source."""
    f = tmp/'nb.ipynb'; f.write_text(json.dumps(nb), encoding='utf-8')
    lib = tmp/'lib'; lib.mkdir(exist_ok=True)
    for q in lib.rglob('*.py'): q.unlink()
    nb_export(str(f), lib_path=str(lib))
    mods = list(lib.rglob('*.py'))
    if not mods: return None
    src = mods[0].read_text(encoding='utf-8')
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter('always')
        try: compile(src, str(mods[0]), 'exec')
        except SyntaxError: return 'SyntaxError'
    doc = ast.get_docstring(ast.parse(src), clean=False)
    return doc + ' (invalid escape)' if any('invalid escape' in str(x.message) for x in w) else doc


BOOL_CASES = (   # (a code cell, whether the bool-test rule must flag it)
    ('test_eq(x, True)', True), ('test_eq(f(a), False)  # why', True), ('test_is(x > 5, True)', True),
    ('test_eq(a, False); test_eq(b, 2)', True), ('test_ne(ok, False)', True), ('test_is(True, done)', True),
    ('test_eq(a=x, b=True)', True), ('test_eq(x > 5, b=(True))', True), ('test_eq((f(a)), (False))', True),
    ('fastcore.test.test_eq(m.ok, True)', True), ('test_eq(flag,\n        True); test_fail(g)', True),
    ('test_eq(m.all(), np.True_)', True), ('test_is(x is None, not flag)', True),
    ('test_eq(isinstance(x, int), y > 0)', True), ('for x in xs:\n    test_eq_type(x == 1, False)', True),
    ('%time test_eq(x, False)', True), ('%load_ext foo', False), ('%time y = 1\ntest_eq(x, False)', True),
    ('test_eq(f(a, True), 3)', False), ('test_eq((a, b), (1, True))', False), ('test_is(P.grad, None)', False),
    ('test_eq(x > 5, y)', False), ('test_eq(mask, [True, False])', False), ('assert x > 5, x', False),
    ('test_eq(s, "True")', False), ('# test_eq(x, True)', False), ('s = "test_eq(x, True)"', False))

IMPORT_CASES = (   # (a module's source, whether its function-level import of the package lacks its reason)
    ('def f():\n    from ..infra import a   # optional heavy dependency\n    return a', False),
    ('def f():\n    # the light --help path: argparse only\n    from ..infra import a\n    return a', False),
    ('def f():\n    # imported here: the optional\n    # extra\n    from ..infra import a\n    return a', False),
    ('def f():\n    from ..infra import (a,   # heavy: torch\n                         b)\n    return a, b', False),
    ('def f():\n    # optional: heavy\n    from ..infra import a\n    from ..infra import b\n    return a, b', False),
    ('def Highlight():\n    from ..infra import a\n    return a', True),
    ('def h(optional=None):\n    from ..infra import a\n    return a', True),
    ('def f():\n    s = "# optional"\n    from ..infra import a\n    return a, s', True),
    ('def f():\n    from ..infra import optional_part\n    return optional_part', True),
    ('def f():\n    from ..infra import a  # Highlight, lightly\n    return a', True),
    ('def f():\n    x = 1   # optional\n\n    from ..infra import a\n    return a, x', True),
    ('def f():\n    from ..infra import a\n    return a', True))


def _import_self_test() -> list:
    "The function-level import rule on made-up modules (IMPORT_CASES) of a made-up package: what it gets wrong."
    bad = []
    with tempfile.TemporaryDirectory() as d:
        lib = Path(d)/'attn_tokens'
        for sub in ('', 'infra', 'engine'): (lib/sub).mkdir(exist_ok=True); (lib/sub/'__init__.py').write_text('')
        (lib/'infra'/'a.py').write_text('x = 1\n')
        for i, (src, flagged) in enumerate(IMPORT_CASES):
            f = lib/'engine'/f'm{i}.py'; f.write_text(src + '\n')
            got = any(x.startswith(f"attn_tokens/engine/m{i}.py:") and 'without a reason' in x for x in check_imports(lib))
            if got != flagged: bad.append(f"the import-reason rule {'misses' if flagged else 'flags'} {src!r}")
            f.unlink()
    return bad


def self_test() -> int:
    """The summary rule against nbdev's own export, on made-up notebooks: every directive form nbdev accepts
    (spaces around '|', none after it, indented, after `#| hide` or a blank line, the Quarto colon form, which
    nbdev does not read as default_exp) and summaries nbdev writes changed (backslashes, triple quotes) or
    unchanged. The rule must flag exactly the notebooks whose exported docstring is not the summary."""
    forms = ['#| default_exp m', '# | default_exp m', '#|default_exp m', '  #|  default_exp m', '#  |default_exp m',
             '#| hide\n#| default_exp m', '#| hide\n\n#| default_exp m', '#|hide\n# | default_exp m',
             '#| default_exp: m', '# default_exp m', 'x = 0\n#| default_exp m']
    codes = ['#| export\nx = 1', '# | export\nx = 1', '#|exporti\nx = 1', '#| exports\nx = 1',
             '#| hide\n#| export\nx = 1', 'x = 1']
    summaries = [r'Stage 1 moves $E_s^\top v$ by $\eta_0\alpha_s/2$', r'a \\ b', r'C:\path', 'plain E^T v, β, ×',
                 'ends in a "quote"', 'has """ inside', '']
    bad, n = [], 0
    with tempfile.TemporaryDirectory() as d, warnings.catch_warnings():
        warnings.simplefilter('ignore')          # nbdev warns about a notebook that exports without default_exp
        tmp = Path(d)
        cases = [(f, s, c, None) for f in forms for s in summaries[:2] + summaries[3:5] for c in codes[:1]]
        cases += [(forms[1], s, c, None) for s in summaries for c in codes]
        cases += [(forms[5], 'plain', codes[0], '# Second\n\n> with \\top'),   # nbdev reads the first H1 only
                  (forms[5], r'first \top', codes[0], '# Second\n\n> plain')]
        for first, summ, code, later in cases:
            nb, n = _made_up(first, summ, code, later), n + 1
            doc = _exported_doc(nb, tmp)
            changed = doc is not None and doc != summ.strip()
            flagged = any("'>' summary" in x for x in check_notebook(tmp/'nb.ipynb'))
            if flagged != changed:
                bad.append(f"first cell {first!r}, summary {summ!r}, code {code!r}: nbdev writes the docstring "
                           f"{doc!r}, the rule {'flags' if flagged else 'passes'} it")
    bad += [f"the test_eq(x, True) rule {'misses' if flagged else 'flags'} {src!r}"
            for src, flagged in BOOL_CASES if bool(bool_tests(src)) != flagged]
    bad += _import_self_test()
    print('\n'.join(bad) if bad else f'check_layout self-test: the summary rule agrees with nbdev '
                                      f'{__import__("nbdev").__version__} on {n} made-up notebooks; the bool-test '
                                      f'rule right on {len(BOOL_CASES)} cells, the import-reason rule on '
                                      f'{len(IMPORT_CASES)} modules')
    return 1 if bad else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--self-test', action='store_true', help="the rules' own tests on made-up notebooks")
    if ap.parse_args().self_test: return self_test()
    private = {n for n in private_symbols() if n.startswith('_')}
    found = [x for f in notebooks() for x in check_notebook(f, private)] + check_library() + check_imports()
    print('\n'.join(found) if found
          else f'layout: {len(notebooks())} notebooks and the library follow the reading rules')
    return 1 if found else 0


if __name__ == '__main__': sys.exit(main())
