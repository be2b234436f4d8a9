#!/usr/bin/env python3
"""Build the documentation without Quarto: a static site in _docs/ and README.md, from the notebooks.

    python tools/build_docs.py                  # execute (or reuse) notebooks, render _docs/, write README.md
    python tools/build_docs.py --check-readme   # CI: also fail if the committed README.md was out of date

This is the site that is published (.github/workflows/deploy.yaml runs this script, then tools/check_site.py,
and deploys _docs/ only when the browser check passes), so the pages readers see are the pages that are checked.
Not Quarto's `nbdev_docs`: Quarto cannot be installed on the machines our checks run on, so only this pandoc build
can be checked both locally and in CI. `nbs/_quarto.yml`, `nbs/nbdev.yml`, `nbs/sidebar.yml` and `nbs/styles.css` also serve
`nbdev_preview` (needs Quarto), a live preview while editing; `_quarto.yml` lives in nbs/ because nbdev 2 renders from
_proc/ and copies only nbs/_quarto.yml there.
Notebooks may live in part folders of nbs/ (nbs/theory/03b_stage2.ipynb); the site mirrors the folders
(_docs/theory/stage2.html, the page nbdev's doc links name) and the sidebar's sections are the folders.
Steps: (0) nbs/sidebar.yml must list every notebook (by its path under nbs/) exactly once and name no missing
one, and, with part folders, each section holds exactly one folder (it is the one page list, also read by
Quarto for `nbdev_preview`); (1) execute every notebook of nbs/ like nbdev's test_nb (cwd nbs/,
IN_TEST=1, `slow` cells skipped) into _proc_exec/, reusing a saved copy when neither the notebook nor the
library changed (`run_tests.py --save-executed _proc_exec` leaves such copies); a notebook that raised stops the
build there (no page is published that shows a traceback); (2) nbdev's own processing
(`proc_nbs`: hidden cells, show_doc, directives) into _proc/; (3) pandoc renders each page: MathML math (no
network, no JavaScript), highlighted code, figures copied next to the pages, a sidebar in the order of
nbs/sidebar.yml, .ipynb links rewritten to .html; (4) README.md from the processed nbs/index.ipynb (pandoc,
GitHub markdown).
"""
import argparse, base64, difflib, fnmatch, hashlib, html, json, os, re, shutil, subprocess, sys, tempfile, time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EXEC_DIR = ROOT/'_proc_exec'
META_KEY = 'attn_tokens_docs'
ANSI = re.compile(r'\x1B(?:[@-Z\\-_]|\[[0-?]*[ -/]*[@-~])')


def _cfg():
    from nbdev.config import get_config
    return get_config(path=ROOT)


def source_notebooks(nbs=None):
    """The notebooks CI runs (tools/run_tests.py takes the same): every .ipynb under nbs/, in part folders too,
    skipping names and folders that start with `_` or `.` (_proc, .ipynb_checkpoints), as nbdev's nbglob."""
    nbs = Path(nbs or _cfg().nbs_path)
    return sorted(f for f in nbs.rglob('*.ipynb')
                  if not any(q.startswith(('_', '.')) for q in f.relative_to(nbs).parts))


def nb_key(f, nbs=None):
    "A notebook's name in the page list: its path under nbs/ ('index.ipynb', 'theory/03b_stage2.ipynb')."
    f, nbs = Path(f).resolve(), Path(nbs or _cfg().nbs_path).resolve()
    return f.relative_to(nbs).as_posix() if f.is_relative_to(nbs) else f.name


def _sha(data: bytes): return hashlib.sha1(data).hexdigest()

def lib_hash():
    "Hash of the library's Python files: executed notebooks go stale when any of them changes."
    lib = Path(_cfg().lib_path)
    return _sha(b''.join(p.relative_to(lib).as_posix().encode() + p.read_bytes() for p in sorted(lib.rglob('*.py'))))

def _stamp(src):
    return {'source_sha1': _sha(Path(src).read_bytes()), 'lib_sha1': lib_hash()}


# ---------------------------------------------------------------- (1) execution
def execute_nb(fn, dest, flags=''):
    "Run notebook `fn` like nbdev's `test_nb` (same skipped cells, cwd, IN_TEST) and save it with its outputs to `dest`."
    from fastcore.xtras import working_directory
    from execnb.nbio import read_nb, write_nb
    from execnb.shell import CaptureShell
    from nbdev.process import NBProcessor, extract_directives
    from nbdev.frontmatter import FrontmatterProc
    from nbdev.config import get_config
    fn, dest = Path(fn).resolve(), Path(dest)
    os.environ['IN_TEST'] = '1'
    skip = set(get_config().tst_flags.split()) - set(flags.split())
    fm = getattr(NBProcessor(fn, procs=FrontmatterProc, process=True).nb, 'frontmatter_', {})
    nb = read_nb(fn)
    for c in nb.cells:
        c.directives_ = extract_directives(c, remove=False) if c.cell_type == 'code' else {}

    def _no_eval(cell):
        if cell.cell_type != 'code': return True
        if 'nbdev_export' + '(' in cell.source: return True
        if cell.directives_.get('eval:', [''])[0].lower() == 'false': return True
        return skip & cell.directives_.keys()

    t0, ok, k = time.time(), True, None
    if str(fm.get('skip_exec', '')).lower() not in ('true', '1', 'yes'):
        k = CaptureShell(fn)
        try:
            with working_directory(fn.parent): k.run_all(nb, exc_stop=True, preproc=_no_eval)
        except BaseException:
            sys.stderr.write(k.prettytb(fname=fn) + '\n')
            ok = False
    nb.metadata[META_KEY] = dict(_stamp(fn), ok=ok, flags=flags)
    dest.parent.mkdir(parents=True, exist_ok=True)
    write_nb(nb, dest)
    return ok, time.time() - t0


def _is_fresh(src, dest):
    if not dest.exists(): return False
    try: meta = json.loads(dest.read_text(encoding='utf-8'))['metadata'].get(META_KEY, {})
    except (ValueError, KeyError): return False
    st = _stamp(src)
    return meta.get('source_sha1') == st['source_sha1'] and meta.get('lib_sha1') == st['lib_sha1']


def _exec_one(args):
    src, dest = args
    return execute_nb(src, dest)


def execute_all(files, exec_dir, n_workers=2, force=False):
    "Execute the stale notebooks into `exec_dir` (one fresh process each); returns names of failed notebooks."
    import multiprocessing as mp
    from concurrent.futures import ProcessPoolExecutor
    nbs = Path(_cfg().nbs_path)
    jobs = [(f, exec_dir/f.relative_to(nbs)) for f in files]
    todo = [j for j in jobs if force or not _is_fresh(*j)]
    print(f'execute: {len(todo)} notebook(s) to run, {len(jobs) - len(todo)} reused from {exec_dir.name}/', flush=True)
    if todo:
        with ProcessPoolExecutor(n_workers, mp_context=mp.get_context('spawn'), max_tasks_per_child=1) as ex:
            for (src, _), (ok, dt) in zip(todo, ex.map(_exec_one, todo)):
                print(f"  {'ok  ' if ok else 'FAIL'} {nb_key(src, nbs):40s} {dt:7.1f} s", flush=True)
    failed = [nb_key(src, nbs) for src, dest in jobs
              if not json.loads(dest.read_text(encoding='utf-8'))['metadata'].get(META_KEY, {}).get('ok', True)]
    # a notebook deleted from nbs/ must not live on in the docs
    keep = {d for _, d in jobs}
    for old in exec_dir.rglob('*.ipynb'):
        if old not in keep: old.unlink()
    return failed


# ---------------------------------------------------------------- (2) nbdev processing
def _proc_one(job):
    "nbdev's processing of one notebook (what proc_nbs runs for it); returns (error message or None, warnings)."
    import warnings
    from nbdev import serve_drv
    with warnings.catch_warnings(record=True) as ws:
        warnings.simplefilter('always')
        try: serve_drv.main(job); err = None
        except Exception as e:
            msg = str(e).strip().splitlines()
            cause = f'{type(e.__cause__).__name__}: {e.__cause__}' if e.__cause__ else type(e).__name__
            imports = [l.strip() for l in msg[1:] if re.match(r'\s*(import|from)\s+\S+', l)]
            err = '\n'.join([f'{msg[0] if msg else ""} {cause}'] + msg[1:4] + (['...'] if len(msg) > 4 else [])
                             + [f'(its import line: {l})' for l in imports[:3]])
    notes = []
    for w in ws:
        m = str(w.message)
        if m.startswith('Found cells containing imports'):
            first = next((l for l in m.split('---')[1].splitlines() if l.strip()), '') if '---' in m else ''
            notes.append(f'runs a cell that mixes imports with other code: `{first.strip()[:70]}`')
        else: notes.append(m.splitlines()[0][:150] if m else type(w.message).__name__)
    return err, notes


def process(exec_dir, files, n_workers=2):
    """nbdev's `proc_nbs` on the executed notebooks (hidden cells removed, show_doc rendered, front matter) into
    _proc/, one notebook at a time so that one failure names its notebook; returns (cache, {name: error})."""
    import multiprocessing as mp
    from concurrent.futures import ProcessPoolExecutor
    from nbdev.processors import FilterDefaults
    cache = Path(_cfg().config_path)/'_proc'
    if cache.exists(): shutil.rmtree(cache)
    cache.mkdir()
    keys = [nb_key(f) for f in files]
    for k in keys: (cache/k).parent.mkdir(parents=True, exist_ok=True)
    jobs = [(exec_dir/k, cache/k, FilterDefaults) for k in keys]
    # the workers are reused, as nbdev's own proc_nbs does: each notebook gets a fresh IPython shell, and a
    # process per notebook cost 3.3x the time (torch and nbdev imported 38 times: 180 s against 55 s for 37
    # notebooks, the same pages but for timings and object addresses in outputs). The job goes by its module's
    # name: the first shell in a worker replaces its __main__, where a job pickled as this script's
    # __main__._proc_one would no longer be found
    if str(ROOT/'tools') not in sys.path: sys.path.insert(0, str(ROOT/'tools'))
    import build_docs
    with ProcessPoolExecutor(n_workers, mp_context=mp.get_context('spawn')) as ex:
        res = dict(zip(keys, ex.map(build_docs._proc_one, jobs)))
    for n, (_, notes) in res.items():
        for x in notes: print(f'  nbdev, {n}: {x}')
    return cache, {n: e for n, (e, _) in res.items() if e}


# ---------------------------------------------------------------- (3) notebook -> pandoc markdown
_DIRECTIVE = re.compile(r'^\s*#\|\s*([\w-]+)\s*(?::\s*(.*?))?\s*$')

def _split_directives(src):
    "Quarto/nbdev `#| key: value` lines at the top of a code cell -> (dict, remaining source)."
    opts, lines = {}, src.splitlines()
    while lines and (m := _DIRECTIVE.match(lines[0])):
        opts[m.group(1)] = (m.group(2) or '').strip().strip('"\'')
        lines.pop(0)
    return opts, '\n'.join(lines).strip('\n')

def _fence(text, attrs):
    n = max([3] + [len(m) + 1 for m in re.findall(r'`{3,}', text)])
    return f"{'`' * n}{attrs}\n{text.rstrip()}\n{'`' * n}"

def _term(text):
    "Terminal semantics for stream output: ANSI codes dropped, carriage-return overwrites (progress bars) applied."
    out = []
    for line in ANSI.sub('', text).split('\n'):
        if '\r' in line:
            parts = [p for p in line.split('\r') if p.strip()]
            line = parts[-1] if parts else ''
        out.append(line)
    return '\n'.join(out).strip('\n')

def _txt(v): return ''.join(v) if isinstance(v, list) else (v or '')

_OLD_FONT = re.compile(r'\{\s*\\(rm|bf|it|sf|tt|cal)(?![a-zA-Z])\s*([^{}]*)\}')
def tex_compat(md):
    "Old TeX font switches MathJax accepts and pandoc's MathML converter does not: {\\rm x} -> {\\mathrm{x}}."
    return _OLD_FONT.sub(lambda m: '{\\math' + m.group(1) + '{' + m.group(2).strip() + '}}', md)

def frontmatter(nb):
    "The front matter nbdev's processing put in the first raw cell (title, description, output-file)."
    import yaml
    for c in nb['cells']:
        if c['cell_type'] == 'raw':
            s = _txt(c['source']).strip()
            if s.startswith('---'):
                try: return yaml.safe_load(s.strip('-\n')) or {}
                except yaml.YAMLError: return {}
    return {}


class Page:
    "One notebook turned into pandoc markdown; collects output images and local files it refers to."
    def __init__(self, nb, name, out_name, files_url, mode='site'):
        self.nb, self.name, self.out_name, self.files_url, self.mode = nb, name, out_name, files_url, mode
        self.images, self.local_refs, self.warnings = {}, set(), []

    def output_md(self, o, cell_i, out_j):
        data = o.get('data', {})
        for mime in ('text/markdown', 'text/html', 'image/svg+xml', 'image/png', 'image/jpeg', 'text/latex', 'text/plain'):
            if mime in data: break
        else: return ''
        v = _txt(data[mime])
        if mime == 'text/markdown': return v
        if mime == 'text/html': return _fence(v, '{=html}')
        if mime == 'text/latex': return v if v.strip().startswith('$') else f'$${v}$$'
        if mime == 'text/plain': return _fence(ANSI.sub('', v), ' {.cell-output .cell-output-display}')
        if self.mode == 'readme':
            self.warnings.append(f'{self.name}: image output of cell {cell_i} left out of README.md (link a saved figure instead)')
            return ''
        ext = {'image/png': 'png', 'image/jpeg': 'jpg', 'image/svg+xml': 'svg'}[mime]
        fname = f'cell-{cell_i}-output-{out_j}.{ext}'
        self.images[fname] = v.encode() if ext == 'svg' else base64.b64decode(v)
        meta = o.get('metadata', {}).get(mime, {})
        size = f"{{width={meta['width']}}}" if isinstance(meta, dict) and 'width' in meta else ''
        return f'![]({self.files_url}/{fname}){size}'

    def cell_md(self, c, i):
        if c['cell_type'] == 'markdown':
            src = tex_compat(_txt(c['source']))
            for fn, att in (c.get('attachments') or {}).items():
                mime, b64 = next(iter(att.items()))
                safe = re.sub(r'[^\w.-]', '_', fn)
                self.images[f'att-{i}-{safe}'] = base64.b64decode(_txt(b64))
                src = src.replace(f'attachment:{fn}', f'{self.files_url}/att-{i}-{safe}')
            return src
        if c['cell_type'] != 'code': return ''
        opts, src = _split_directives(_txt(c.get('source', '')))
        if opts.get('include') == 'false': return ''
        parts = []
        if src and opts.get('echo') != 'false':
            code = _fence(src, ' {.python .cell-code}')
            if opts.get('code-fold') in ('show', 'true'):
                summary = html.escape(opts.get('code-summary') or 'Code')
                code = f"<details class=\"code-fold\"{' open' if opts['code-fold'] == 'show' else ''}><summary>{summary}</summary>\n\n{code}\n\n</details>"
            parts.append(code)
        if opts.get('output') != 'false':
            for j, o in enumerate(c.get('outputs', [])):
                t = o.get('output_type')
                if t == 'stream':
                    txt = _term(_txt(o.get('text')))
                    if txt: parts.append(_fence(txt, f" {{.cell-output .cell-output-{o.get('name', 'stdout')}}}"))
                elif t == 'error':
                    tb = ANSI.sub('', '\n'.join(_txt(x) for x in o.get('traceback', []))) or f"{o.get('ename')}: {o.get('evalue')}"
                    parts.append(_fence(tb, ' {.cell-output .cell-output-error}'))
                elif t in ('display_data', 'execute_result'):
                    md = self.output_md(o, i, j)
                    if md: parts.append(md)
        return '\n\n'.join(parts)

    def markdown(self):
        cells = [c for c in self.nb['cells'] if c['cell_type'] != 'raw']
        return '\n\n'.join(s for i, c in enumerate(cells) if (s := self.cell_md(c, i)).strip()) + '\n'


def _doc_base():
    cfg = _cfg()
    return (cfg.doc_host + cfg.doc_baseurl).rstrip('/') + '/'

_MD_TARGET = re.compile(r'(\]\(\s*<?)([^)\s>]+)')
_HTML_TARGET = re.compile(r'''(\b(?:href|src)=["'])([^"']+)''')

def rewrite_links(md, fix):
    "Apply `fix` to every link/image target of markdown links and raw HTML href/src attributes."
    def sub(m): return m.group(1) + fix(m.group(2))
    out, pos = [], 0
    # leave fenced code blocks alone
    for m in re.finditer(r'^(`{3,}|~{3,}).*?\n.*?^\1\s*$', md, flags=re.S | re.M):
        out.append(_HTML_TARGET.sub(sub, _MD_TARGET.sub(sub, md[pos:m.start()])))
        out.append(m.group(0)); pos = m.end()
    out.append(_HTML_TARGET.sub(sub, _MD_TARGET.sub(sub, md[pos:])))
    return ''.join(out)

def _is_local(t): return not re.match(r'^[a-zA-Z][\w+.-]*:|^#|^/', t)


# ---------------------------------------------------------------- sidebar: the one page list
def read_sidebar(nbs, names):
    """nbs/sidebar.yml, the one list of pages (also Quarto's sidebar, for `nbdev_preview`), for the notebooks
    `names` -> ([(section title or None, [notebook names])], {notebook: link text}, [problems]).
    Items: 'x.ipynb', {href, text}, {section, contents}, {auto: glob} or a glob string. Problems: a notebook
    it does not list (it goes under 'More'), one it lists twice, an entry that names no notebook (a rename or
    a split left it stale)."""
    import yaml
    p = nbs/'sidebar.yml'
    if not p.exists(): return [(None, sorted(names))], {}, [f'{p.as_posix()} does not exist']
    items = (yaml.safe_load(p.read_text()) or {}).get('website', {}).get('sidebar', {}).get('contents', [])
    texts, problems = {}, []

    def expand(item):
        if isinstance(item, dict) and 'auto' in item: item = item['auto']
        if isinstance(item, dict):
            href = item.get('href')
            if href and 'text' in item: texts[href] = item['text']
            if href in names: return [href]
            if not href or _is_local(href): problems.append(f'entry {item!r} names no notebook of nbs/')
            return []
        if isinstance(item, str):
            glob = any(ch in item for ch in '*?[')
            got = [n for n in sorted(names) if fnmatch.fnmatch(n, item) and n != 'index.ipynb'] if glob else [item] if item in names else []
            if not got: problems.append(f"entry '{item}' {'matches' if glob else 'names'} no notebook of nbs/")
            return got
        problems.append(f'entry {item!r} is not a notebook name, a glob, {{text, href}}, {{auto}} or {{section, contents}}')
        return []

    groups = []
    for it in items:
        if isinstance(it, dict) and 'section' in it:
            cont = it.get('contents', [])
            got = [n for x in ([cont] if isinstance(cont, str) else cont) for n in expand(x)]
            groups.append((it['section'], got))
        else:
            groups.append((None, expand(it)))
    listed = [n for _, g in groups for n in g]
    problems += [f'{n} is listed {listed.count(n)} times' for n in sorted(set(listed)) if listed.count(n) > 1]
    rest = [n for n in sorted(names) if n not in listed]
    problems += [f'{n} is not listed' for n in rest]
    problems += folder_problems(groups)
    if rest: groups.append(('More', rest))
    out, done = [], set()
    for sec, g in groups:
        g = [n for n in g if not (n in done or done.add(n))]
        if g: out.append((sec, g))
    return out, texts, problems


def folder_problems(groups):
    """With notebooks in part folders of nbs/, the sidebar's sections are the folders: each section lists the
    notebooks of one folder, no two sections share a folder, and only top-level notebooks (index.ipynb) stand
    outside a section. A flat nbs/ (no folders) is not constrained."""
    folder = lambda n: Path(n).parent.as_posix()
    if all(folder(n) == '.' for _, g in groups for n in g): return []
    problems, seen = [], {}
    for sec, g in groups:
        fs = sorted({folder(n) for n in g})
        if sec is None:
            problems += [f"{n} stands outside a section: put it in the section of its folder '{folder(n)}'"
                         for n in g if folder(n) != '.']
            continue
        if len(fs) > 1:
            problems.append(f"section '{sec}' mixes the folders {', '.join(fs)}: a section lists one part folder")
        for f in fs:
            if f == '.': problems.append(f"section '{sec}' lists a top-level notebook: only part folders are sections")
            elif f in seen: problems.append(f"folder '{f}' is split between the sections '{seen[f]}' and '{sec}'")
            else: seen[f] = sec
    return problems


# ---------------------------------------------------------------- (3) pandoc
def pandoc_path():
    import pypandoc
    return pypandoc.get_pandoc_path()

MD_FORMAT = 'markdown+lists_without_preceding_blankline+autolink_bare_uris'

def run_pandoc(md, args, fmt=MD_FORMAT):
    r = subprocess.run([pandoc_path(), '-f', fmt, *args], input=md, capture_output=True, text=True)
    if r.returncode: raise RuntimeError(f'pandoc failed ({r.returncode}):\n{r.stderr}')
    return r.stdout, r.stderr.strip()

def count_ast(md):
    "Numbers of Math and Image elements pandoc sees (the browser check compares them with the page)."
    out, _ = run_pandoc(md, ['-t', 'json'])
    counts = {'Math': 0, 'Image': 0}
    def walk(x):
        if isinstance(x, list):
            for y in x: walk(y)
        elif isinstance(x, dict):
            t = x.get('t')
            if t in counts: counts[t] += 1
            if t == 'Image': return walk(x['c'][2:])    # alt text is an attribute in HTML, not rendered math
            walk(x.get('c')); walk(x.get('blocks')); walk(x.get('meta'))
    walk(json.loads(out))
    return counts['Math'], counts['Image']

def md_inline(text):
    "A short markdown string (a page title) as inline HTML, math as MathML."
    out, _ = run_pandoc(str(text), ['-t', 'html5', '--mathml', '--wrap=none'])
    return re.sub(r'^<p>|</p>$', '', out.strip())


TEMPLATE = r'''<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="tools/build_docs.py (pandoc)">
<title>$pagetitle$ – $sitetitle$</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="$root$site.css">
<style>
$highlighting-css$
</style>
</head>
<body>
<header class="topbar"><a class="brand" href="$root$index.html">$sitetitle$</a><span class="tagline">$tagline$</span>
<nav class="toplinks">$toplinks$</nav></header>
<div class="layout">
<nav class="sidebar" aria-label="Pages">
$sidebar$
</nav>
<main class="content">
<header id="title-block-header">
<h1 class="title">$title$</h1>
$if(description)$<p class="description">$description$</p>$endif$
</header>
$body$
<nav class="pager">$pager$</nav>
<footer class="footer">$footer$</footer>
</main>
$if(toc)$<aside class="toc"><div class="toc-title">On this page</div>
$table-of-contents$
</aside>$endif$
</div>
</body>
</html>
'''

CSS = r'''
:root { --fg:#1d2125; --muted:#5c6670; --accent:#2763a8; --line:#e2e6ea; --code-bg:#f6f8fa; }
* { box-sizing: border-box; }
html { font-size: 16px; }
body { margin:0; color:var(--fg); background:#fff; line-height:1.6;
  font-family: system-ui, -apple-system, "Segoe UI", "DejaVu Sans", Helvetica, Arial, sans-serif; }
a { color: var(--accent); text-decoration: none; } a:hover { text-decoration: underline; }
.topbar { display:flex; align-items:baseline; gap:1rem; padding:.7rem 1.5rem; background:#23395b; color:#fff; }
.topbar a { color:#fff; } .brand { font-weight:700; font-size:1.2rem; } .tagline { color:#c9d6ea; font-size:.92rem; }
.toplinks { margin-left:auto; display:flex; gap:1rem; font-size:.92rem; }
.layout { display:grid; grid-template-columns: 250px minmax(0, 860px) 230px; gap:2rem; max-width:1420px; margin:0 auto; padding:0 1rem; }
.sidebar, .toc { position:sticky; top:0; align-self:start; max-height:100vh; overflow-y:auto; padding:1.2rem 0; font-size:.92rem; }
.sidebar ul, .toc ul { list-style:none; margin:0; padding-left:0; } .toc ul ul { padding-left:.9rem; }
.sidebar .section { margin:1rem 0 .3rem; font-weight:600; color:var(--muted); text-transform:uppercase; font-size:.74rem; letter-spacing:.05em; }
.sidebar a { display:block; padding:.18rem .6rem; border-left:3px solid transparent; color:var(--fg); }
.sidebar a.active { border-left-color:var(--accent); color:var(--accent); font-weight:600; background:#eef4fb; }
.toc-title { font-weight:600; margin-bottom:.4rem; } .toc a { color:var(--muted); display:block; padding:.1rem 0; }
.content { padding:1.2rem 0 3rem; min-width:0; }
h1.title { margin:.6rem 0 .2rem; font-size:2.1rem; line-height:1.25; }
.description { color:var(--muted); font-size:1.12rem; margin-top:.3rem; }
h2 { margin-top:2.2rem; padding-bottom:.2rem; border-bottom:1px solid var(--line); } h3 { margin-top:1.8rem; }
code { font-family: "DejaVu Sans Mono", Menlo, Consolas, monospace; font-size:.88em; }
:not(pre) > code { background:var(--code-bg); padding:.08em .3em; border-radius:4px; }
div.sourceCode, pre { background:var(--code-bg); border:1px solid var(--line); border-radius:6px; padding:.6rem .8rem; overflow-x:auto; margin:1rem 0; }
div.sourceCode pre { border:0; padding:0; margin:0; background:transparent; }
pre.cell-output, pre.cell-output-display { background:#fff; border-left:3px solid #b9c4d0; max-height:32em; overflow:auto; font-size:.86rem; white-space:pre-wrap; overflow-wrap:anywhere; }
pre.cell-output-stderr { border-left-color:#d9a441; } pre.cell-output-error { border-left-color:#c0392b; background:#fdf3f2; }
details.code-fold > summary { cursor:pointer; color:var(--muted); font-size:.9rem; }
img { max-width:100%; height:auto; }
figure { margin:1.5rem 0; text-align:center; } figcaption { color:var(--muted); font-size:.92rem; margin-top:.4rem; }
table { border-collapse:collapse; margin:1rem 0; font-size:.92rem; width:100%; }
th, td { border:1px solid var(--line); padding:.3rem .6rem; vertical-align:top; overflow-wrap:anywhere; } th { background:var(--code-bg); }
blockquote { margin:1rem 0; padding:.2rem 1rem; border-left:4px solid var(--line); color:#3b4550; }
hr { border:0; border-top:1px solid var(--line); margin:2rem 0 1rem; }
math { font-family: "STIX Two Math", "Latin Modern Math", "Cambria Math", "DejaVu Math TeX Gyre", math; font-size:1.08em; }
math[display="block"] { display:block math; margin:1rem 0; overflow-x:auto; overflow-y:hidden; padding:.2rem 0; }
.pager { display:flex; justify-content:space-between; gap:1rem; margin-top:3rem; padding-top:1rem; border-top:1px solid var(--line); }
.footer { color:var(--muted); font-size:.84rem; margin-top:1.5rem; }
@media (max-width: 1100px) { .layout { grid-template-columns: 220px minmax(0,1fr); } .toc { display:none; } }
@media (max-width: 720px) { .layout { display:block; } .sidebar { position:static; max-height:none; } }
'''


def page_href(target, page):
    "Link from page `page` to page `target` (both paths under _docs/, e.g. 'theory/stage2.html')."
    return os.path.relpath(target, start=os.path.dirname(page) or '.').replace(os.sep, '/')

def sidebar_html(groups, texts, titles_html, out_names, current):
    h = ['<ul>']
    here = out_names[current]
    for sec, names in groups:
        if sec: h.append(f'<li class="section">{html.escape(sec)}</li>')
        for n in names:
            cls = ' class="active" aria-current="page"' if n == current else ''
            h.append(f'<li><a href="{page_href(out_names[n], here)}"{cls}>'
                     f'{html.escape(texts[n]) if n in texts else titles_html[n]}</a></li>')
    return '\n'.join(h + ['</ul>'])

def out_names_of(fms, names):
    """Page of each notebook under _docs/: its folder under nbs/ and nbdev's output-file (the name without its
    order prefix), as nbdev's doc links (_modidx.py) expect: 'theory/03b_stage2.ipynb' -> 'theory/stage2.html'."""
    return {n: (Path(n).parent/(fms[n].get('output-file') or (Path(n).stem + '.html'))).as_posix() for n in names}


def build_site(cache, nbs, docs, names, clean=True):
    "Render every processed notebook of `cache` into `docs`; returns the manifest (page -> counts)."
    cfg = _cfg()
    doc_base = _doc_base()
    nbs_ = {n: json.loads((cache/n).read_text(encoding='utf-8')) for n in names}
    fms = {n: frontmatter(nb) for n, nb in nbs_.items()}
    out_names = out_names_of(fms, names)
    titles = {n: str(fms[n].get('title') or Path(n).stem) for n in names}
    groups, texts, _ = read_sidebar(nbs, set(names))   # checked against nbs/ in main(), before any work
    order = [n for _, g in groups for n in g]
    titles_html = {n: md_inline(titles[n]) for n in names}
    if clean and docs.exists(): shutil.rmtree(docs)
    docs.mkdir(parents=True, exist_ok=True)
    (docs/'site.css').write_text(CSS + '\n/* nbs/styles.css */\n' + ((nbs/'styles.css').read_text() if (nbs/'styles.css').exists() else ''))
    (docs/'.nojekyll').touch()
    tpl = Path(tempfile.mkdtemp())/'page.html'
    tpl.write_text(TEMPLATE)
    missing, manifest, problems = [], {}, []
    git_blob = f'{cfg.git_url}/blob/{cfg.branch}/'
    toplinks = (f'<a href="{cfg.git_url}">GitHub</a><a href="https://arxiv.org/abs/2505.17282">Paper (arXiv 2505.17282)</a>')

    for n in order:
        out = out_names[n]
        stem = Path(out).stem
        page = Page(nbs_[n], n, out, f'{stem}_files')
        here = (nbs/n).parent      # links of a notebook are relative to its folder; its page mirrors that folder

        def fix(t, _n=n, _out=out, _here=here):
            if t.startswith(doc_base): return page_href(t[len(doc_base):] or 'index.html', _out)
            if not _is_local(t): return t
            path, _, frag = t.partition('#')
            if path.startswith(f'{stem}_files/') or not path: return t
            src = Path(os.path.normpath((_here/path).resolve()))
            if path.endswith('.ipynb'):
                tgt = src.relative_to(nbs.resolve()).as_posix() if src.is_relative_to(nbs.resolve()) else None
                if tgt in out_names: return page_href(out_names[tgt], _out) + ('#' + frag if frag else '')
                return git_blob + os.path.relpath(src, ROOT) + ('#' + frag if frag else '')
            if src.is_relative_to(nbs.resolve()):
                page.local_refs.add(src.relative_to(nbs.resolve()).as_posix())
                return t
            rel = os.path.relpath(src, ROOT)
            return git_blob + rel + ('#' + frag if frag else '') if src.exists() else t

        md = rewrite_links(page.markdown(), fix)
        import yaml
        meta = {'title': titles[n], 'pagetitle': re.sub(r'[`*$\\]', '', titles[n])}
        if fms[n].get('description'): meta['description'] = str(fms[n]['description'])
        md = '---\n' + yaml.safe_dump(meta, allow_unicode=True) + '---\n\n' + md
        i = order.index(n)
        prev_ = (f'<a href="{page_href(out_names[order[i-1]], out)}">← {titles_html[order[i-1]]}</a>' if i > 0
                 else '<span></span>')
        next_ = (f'<a href="{page_href(out_names[order[i+1]], out)}">{titles_html[order[i+1]]} →</a>'
                 if i + 1 < len(order) else '<span></span>')
        root = '../' * out.count('/') or './'      # the site's root (site.css, index.html) from this page
        footer = (f'Rendered from <a href="{git_blob}nbs/{n}"><code>nbs/{n}</code></a> by <code>tools/build_docs.py</code>. '
                  'Statements of Lemma 4.1, Theorem 4.3, Assumption 1 and eq. (15) are this package\'s reconstructions; see the overview.')
        args = ['-t', 'html5', '-s', '--template', str(tpl), '--mathml', '--toc', '--toc-depth=3',
                '--syntax-highlighting=pygments', '--wrap=none',
                '-V', f'sitetitle={cfg.title}', '-V', 'tagline=Attention with trained embeddings provably selects important tokens',
                '-V', f'toplinks={toplinks}', '-V', f'sidebar={sidebar_html(groups, texts, titles_html, out_names, n)}',
                '-V', f'pager={prev_}{next_}', '-V', f'footer={footer}', '-V', f'root={root}']
        page_html, warn = run_pandoc(md, args)
        for w in warn.splitlines():
            if w.strip(): problems.append(f'{n}: {w.strip()}')
        (docs/out).parent.mkdir(parents=True, exist_ok=True)
        (docs/out).write_text(page_html, encoding='utf-8')
        if page.images:
            d = (docs/out).parent/f'{stem}_files'; d.mkdir(parents=True, exist_ok=True)
            for fname, data in page.images.items(): (d/fname).write_bytes(data)
        for ref in sorted(page.local_refs):
            src = nbs/ref
            if src.is_file():
                (docs/ref).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(src, docs/ref)
            else: missing.append(f'{n}: {ref}')
        n_math, n_img = count_ast(md)
        manifest[out] = dict(notebook=n, title=titles[n], math=n_math, images=n_img)
    (docs/'manifest.json').write_text(json.dumps(manifest, indent=1, sort_keys=True) + '\n')
    return manifest, missing, problems


# ---------------------------------------------------------------- (4) README.md
# pages that moved (the reorganisation into paper/ and commands/): old page under _docs/ -> its page now. A link to an
# old page (a bookmark, a citation) lands on a small page that sends the reader on (meta refresh) and names the new one.
MOVED = {'experiments/paper.html': 'experiments/published.html', 'experiments/verdicts.html': 'paper/rule.html',
         'infra/cli.html': 'commands/cli.html', 'theory/theory_args.html': 'commands/theory_command.html',
         'engine/bench_args.html': 'commands/bench_args.html', 'experiments/reproduce.html': 'commands/reproduce.html',
         'experiments/reproduce_args.html': 'commands/reproduce_args.html',
         'experiments/select.html': 'commands/select.html', 'experiments/select_identity.html': 'commands/select_identity.html',
         'experiments/select_args.html': 'commands/select_args.html',
         'experiments/select_baselines.html': 'commands/select_baselines.html',
         'infra/reliability.html': 'commands/reliability.html'}

REDIRECT = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Moved: {new}</title>
<meta http-equiv="refresh" content="0; url={href}"><link rel="canonical" href="{href}"></head>
<body><p>This page moved to <a href="{href}">{new}</a>.</p></body></html>
"""

def write_redirects(docs, pages):
    "A redirect page at each old name of MOVED whose new page was built (`pages`: the pages under `docs`); their count."
    n = 0
    for old, new in MOVED.items():
        if new not in pages or old in pages: continue
        href = os.path.relpath(new, os.path.dirname(old) or '.')
        (docs/old).parent.mkdir(parents=True, exist_ok=True)
        (docs/old).write_text(REDIRECT.format(new=new, href=href), encoding='utf-8'); n += 1
    return n


def readme_markdown(cache, names):
    "README.md (GitHub markdown) from the processed index notebook, links made relative to the repository root."
    cfg = _cfg()
    n = cfg.get('readme_nb', 'index.ipynb')
    nb = json.loads((cache/n).read_text(encoding='utf-8'))
    fm = frontmatter(nb)
    page = Page(nb, n, 'README.md', '', mode='readme')
    nbs_rel = Path(cfg.nbs_path).relative_to(ROOT).as_posix()
    outs = out_names_of({m: frontmatter(json.loads((cache/m).read_text(encoding='utf-8'))) for m in names}, names)
    notebook_of = {o: m for m, o in outs.items()}
    doc_base = _doc_base()

    def fix(t):
        # nbdev's links to symbols point at the published site (doc_host): README links the notebook instead,
        # relative, so that it works on any clone and host
        if t.startswith(doc_base):
            pg = t[len(doc_base):].partition('#')[0] or 'index.html'
            return f'{nbs_rel}/{notebook_of[pg]}' if pg in notebook_of else t
        if not _is_local(t): return t
        path, _, frag = t.partition('#')
        if not path: return t
        return os.path.normpath(os.path.join(nbs_rel, path)) + ('#' + frag if frag else '')

    body = rewrite_links(page.markdown(), fix)
    head = f"# {fm.get('title', cfg.title)}\n\n"
    if fm.get('description'): head += f"> {fm['description']}\n\n"
    # no implicit figures: GitHub shows a plain image, the caption is the paragraph after it
    md, warn = run_pandoc(head + body, ['-t', 'gfm-yaml_metadata_block', '--wrap=none'], fmt=MD_FORMAT + '-implicit_figures')
    for w in page.warnings + ([warn] if warn else []): print('README: ' + w, file=sys.stderr)
    return md


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--force', action='store_true', help='execute every notebook again, even when a saved copy is fresh')
    ap.add_argument('--check-readme', action='store_true', help='exit 1 if README.md was not already in sync with nbs/index.ipynb')
    ap.add_argument('--n_workers', type=int, default=2)
    ap.add_argument('--summary', metavar='FILE', help='append a one-line summary to FILE (tools/test.sh: .test-summary)')
    a = ap.parse_args()
    os.chdir(ROOT)
    os.environ.setdefault('MPLBACKEND', 'Agg')
    os.environ.setdefault('OMP_NUM_THREADS', '1'); os.environ.setdefault('MKL_NUM_THREADS', '1')  # as tools/run_tests.py
    t0 = time.time()
    cfg = _cfg()
    nbs, docs = Path(cfg.nbs_path), Path(cfg.doc_path)
    files = source_notebooks(nbs)
    _, _, problems = read_sidebar(nbs, {nb_key(f, nbs) for f in files})
    if problems:
        sys.exit('nbs/sidebar.yml is the one list of pages (this site and nbdev_preview both take theirs from it) '
                 'and does not match the notebooks in nbs/:\n  ' + '\n  '.join(problems) + '\nFix: list every notebook of nbs/ '
                 'in nbs/sidebar.yml exactly once (by its path under nbs/), under the section of its part folder, and drop entries of renamed or deleted notebooks.')
    EXEC_DIR.mkdir(exist_ok=True)
    failed = execute_all(files, EXEC_DIR, a.n_workers, a.force)
    t1 = time.time()
    print(f'execute: {t1 - t0:.1f} s')
    if failed:     # a page that shows a traceback is never published: the build stops here
        line = f"docs: not built: notebooks with errors: {', '.join(failed)}"
        print(line + ' (run `python tools/run_tests.py` on them to see the traceback, fix, then build again)', file=sys.stderr)
        if a.summary:
            with open(a.summary, 'a') as f: f.write(line + '\n')
        return 1
    cache, proc_errs = process(EXEC_DIR, files, a.n_workers)
    t2 = time.time()
    print(f'process (nbdev proc_nbs): {t2 - t1:.1f} s')
    for n, e in proc_errs.items():
        print(f'nbdev could not process {n} (nbdev_preview would fail the same way), so it has no page:\n  '
              + '\n  '.join(e.splitlines()) + '\n  (nbdev runs every cell that contains an import, even one inside a function, '
              'without the cells before it, to render show_doc: keep imports in cells of their own; see the nbdev FAQ)', file=sys.stderr)
    names = [k for f in files if (k := nb_key(f, nbs)) not in proc_errs]
    manifest, missing, problems = build_site(cache, nbs, docs, names)
    print(f'redirects: {write_redirects(docs, set(manifest))} old page names sent to their pages now')
    readme = readme_markdown(cache, names)
    rp = ROOT/'README.md'
    old = rp.read_text(encoding='utf-8') if rp.exists() else ''
    rp.write_text(readme, encoding='utf-8')
    t3 = time.time()
    print(f'render: {len(manifest)} pages -> {docs.relative_to(ROOT)}/ and README.md in {t3 - t2:.1f} s (total {t3 - t0:.1f} s)')
    status = 1 if proc_errs else 0
    for p in problems: print('pandoc: ' + p, file=sys.stderr)
    for m in missing: print(f'missing file referenced by {m}', file=sys.stderr); status = 1
    if a.check_readme and old != readme:
        sys.stderr.writelines(list(difflib.unified_diff(old.splitlines(True), readme.splitlines(True), 'README.md (committed)', 'README.md (from nbs/index.ipynb)'))[:80])
        print('README.md was out of date with nbs/index.ipynb: run `python tools/build_docs.py` and commit README.md.', file=sys.stderr)
        status = 1
    summary = (f"docs: {len(manifest)} pages built in {t3 - t0:.0f} s"
               + (f"; nbdev could not process {', '.join(proc_errs)}" if proc_errs else '')
               + (f"; {len(missing)} missing file(s)" if missing else '')
               + ('; README.md out of date' if a.check_readme and old != readme else ''))
    if a.summary:
        with open(a.summary, 'a') as f: f.write(summary + '\n')
    return status


if __name__ == '__main__': sys.exit(main())
