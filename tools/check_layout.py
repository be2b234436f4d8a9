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
  backspace (write E^T, β, ×);
- no function of the library longer than MAX_LINES lines (split it into named steps);
- the layers only point down (FLOORS: infra -> engine -> data -> theory -> experiments -> paper -> commands): no
  import of the package runs up a floor, none makes a circle, and one inside a function says beside it why (an
  optional heavy dependency, or the light --help path), never to dodge a circle.
"""
import ast, json, re, sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MAX_EXPORT_RUN, MAX_PARAMS, MAX_LINES = 3, 8, 60
EXPORT = re.compile(r'^#\|\s*export', re.M)
TRACKER = re.compile(r'\bissues? #?\d+\b|done[- ]when', re.I)
AMERICAN = re.compile(r'normaliz', re.I)


def notebooks():
    nbs = ROOT/'nbs'
    return sorted(f for f in nbs.rglob('*.ipynb')
                  if not any(q.startswith(('_', '.')) for q in f.relative_to(nbs).parts))


def export_runs(cells):
    "[(first cell index, length)] of the runs of export cells not interrupted by another code cell."
    runs, start, n = [], None, 0
    for i, c in enumerate(cells):
        if c['cell_type'] != 'code': continue
        if EXPORT.search(''.join(c['source'])):
            start, n = (i if n == 0 else start), n + 1
        else:
            if n: runs.append((start, n))
            n = 0
    if n: runs.append((start, n))
    return runs


def mixes_imports(src):
    "Whether nbdev's docs build would run this non-exported code cell for its imports, with other code in it."
    if EXPORT.search(src) or re.search(r'^#\|\s*eval:\s*false', src, re.M | re.I): return False
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


def check_notebook(f, private=frozenset()):
    cells, rel = json.loads(f.read_text(encoding='utf-8'))['cells'], f.relative_to(ROOT)
    out = [f"{rel}: cells {s}..: {n} export cells in a row (at most {MAX_EXPORT_RUN}); put a cell that shows "
           f"or checks them after the third" for s, n in export_runs(cells) if n > MAX_EXPORT_RUN]
    exports = any(re.match(r'#\|\s*default_exp\b', ''.join(c['source']))
                  for c in cells if c['cell_type'] == 'code')      # nbdev writes a module: the summary is its docstring
    for i, c in enumerate(cells):
        m = TRACKER.search(''.join(c['source']))
        if m: out.append(f"{rel}: cell {i}: tracker word {m.group(0)!r}; say what it means for a reader")
        src = ''.join(c['source'])
        if c['cell_type'] == 'markdown' and src.startswith('# ') and exports:
            summary = next((l for l in src.splitlines() if l.startswith('> ')), '')
            if '\\' in summary:
                at = summary[summary.index('\\'):][:20]
                out.append(f"{rel}: cell {i}: the '>' summary has a backslash ({at!r}); nbdev writes it as the "
                           f"module's docstring, not raw: write the math without backslashes (E^T, β, ×)")
        if c['cell_type'] == 'markdown':
            for name in sorted(set(re.findall(r'`(_[A-Za-z]\w*)`', src)) & private):
                out.append(f"{rel}: cell {i}: `{name}` is a private symbol: nbdev links it to an anchor its "
                           f"page does not have; name it in words, or make it public")
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
REASONS = ('optional', 'heavy', '--help', 'light')   # what a function-level import's comment must name


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
        out += [(n, node.lineno, id(node) in top) for n in names if n.startswith('attn_tokens.')]
    return out


def check_imports():
    """The layers: no import runs up a floor (FLOORS), no circle between modules, and an import of the package's
    own modules inside a function only with a comment (on its line or the line above) naming why: an optional
    heavy dependency, or the light --help path."""
    out, lib, graph = [], ROOT/'attn_tokens', {}
    for p in sorted(lib.rglob('*.py')):
        if p.name == '_modidx.py': continue
        rel = p.relative_to(ROOT); mod = '.'.join(p.relative_to(ROOT).with_suffix('').parts)
        mod = mod.removesuffix('.__init__'); text = p.read_text(encoding='utf-8'); lines = text.splitlines()
        for tgt, ln, at_top in _imports(p, mod, ast.parse(text)):
            graph.setdefault(mod, set()).add(tgt)
            a, b = _floor(mod), _floor(tgt)
            if a is not None and b is not None and b > a:
                out.append(f"{rel}:{ln}: {FLOORS[a]} imports {tgt} ({FLOORS[b]}, a floor up); move what it "
                           f"needs down, or the caller up")
            k = ln - 1                  # a comment above a block of imports covers the block
            while k > 0 and lines[k - 1].strip().startswith(('from ', 'import ')): k -= 1
            why = ' '.join(lines[max(0, k - 1):ln]).lower()
            if not at_top and not any(r in why for r in REASONS):
                out.append(f"{rel}:{ln}: {tgt} imported inside a function without a reason; import it at the "
                           f"top, or say beside it why not (an optional heavy dependency, the light --help path)")
    mods = set(graph) | {'.'.join(p.relative_to(ROOT).with_suffix('').parts).removesuffix('.__init__')
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


def main():
    private = {n for n in private_symbols() if n.startswith('_')}
    found = [x for f in notebooks() for x in check_notebook(f, private)] + check_library() + check_imports()
    print('\n'.join(found) if found
          else f'layout: {len(notebooks())} notebooks and the library follow the reading rules')
    return 1 if found else 0


if __name__ == '__main__': sys.exit(main())
