#!/usr/bin/env python3
"""Browser check of the offline site in _docs/ (built by tools/build_docs.py), in headless Chromium.

    python tools/check_site.py                    # stops with the fix when Chromium is missing
    python tools/check_site.py --install-browser  # installs it first with apt-get (root, Debian; CI)
    python tools/check_site.py --check-browser    # only says whether Chromium is there (tools/test.sh)

Every page is loaded over file:// and FAILS the check if it has a console error (a failed resource load
included), an image that did not load (naturalWidth 0), a Python traceback (an error output, or "Traceback (most recent call last)" in
a cell's output), a <script> element, an inline event handler (on...=) or a javascript: link or source (the
site runs no script of its own, so any is content that should not be there), math shown as raw TeX (`$$`, `\\frac`, ... in the
visible text outside code, or pandoc's fallback <span class="math">), fewer <math> elements than pandoc
found formulas in the page (or none where the notebook's markdown has `$` math), or a local link whose
file or #anchor does not exist. Screenshots (PNG) of the overview, Lemma 4.1 and Theorem 4.3 pages go to
artifacts/screenshots/ (top of the page, and the first displayed equation). Talks to Chromium over the
DevTools protocol on a pipe (--remote-debugging-pipe): standard library only.
"""
import argparse, base64, json, os, re, select, shutil, subprocess, sys, tempfile, time
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote

ROOT = Path(__file__).resolve().parents[1]
# notebooks by their path under nbs/ (a part folder included, e.g. 'theory/03b_gd_p.ipynb')
KEY_PAGES = {'index.ipynb': 'overview', 'theory/02_stage1.ipynb': 'lemma-4.1', 'theory/03b_stage2.ipynb': 'theorem-4.3'}
CHROME_FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
                '--disable-background-networking', '--disable-component-update', '--disable-sync',
                '--disable-dev-shm-usage', '--hide-scrollbars', '--mute-audio', '--remote-debugging-pipe']


# ------------------------------------------------------------------ Chromium
INSTALL_ENV = 'ATTN_TOKENS_INSTALL_BROWSER'   # =1: install Chromium when missing, as --install-browser does
MISSING = ("Chromium (headless) not found: the browser checks (tools/check_site.py, tools/check_select.py) need it.\n"
           "  fix: install it (Debian/Ubuntu: sudo apt-get install chromium; macOS: brew install --cask chromium),\n"
           "       or set CHROMIUM=/path/to/chrome, or run as root with --install-browser (apt-get installs it)")

def chromium_path():
    "The Chromium (or Chrome) executable: $CHROMIUM, else the first of the usual names on PATH; None if none."
    for name in (os.environ.get('CHROMIUM'), 'chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable'):
        if name and shutil.which(name): return shutil.which(name)
    return None

def install_chromium():
    "Install Chromium with apt-get (root, Debian); exits with the fix when that is not possible or fails."
    if os.geteuid() != 0 or not shutil.which('apt-get'):
        sys.exit(MISSING + "\n  (--install-browser needs root and apt-get)")
    print('check_site: installing Chromium (apt-get install chromium) ...', flush=True)
    t0 = time.time()
    log = Path(tempfile.gettempdir())/'check_site_apt.log'
    env = dict(os.environ, DEBIAN_FRONTEND='noninteractive')
    with open(log, 'w') as f:
        r = subprocess.run('apt-get update -qq && apt-get install -y -qq --no-install-recommends chromium fonts-dejavu-core',
                           shell=True, stdout=f, stderr=subprocess.STDOUT, env=env)
    if r.returncode:
        sys.stdout.write(log.read_text()[-3000:])
        sys.exit('check_site: apt-get install chromium failed')
    print(f'check_site: Chromium installed in {time.time() - t0:.0f} s', flush=True)

def find_chromium(install=False):
    """The Chromium executable. Missing: installed with apt-get when `install` (or $ATTN_TOKENS_INSTALL_BROWSER=1)
    asks for it, else the process stops with the fix: nothing is installed unless asked."""
    if chromium_path(): return chromium_path()
    if not (install or os.environ.get(INSTALL_ENV) == '1'): sys.exit(MISSING)
    install_chromium()
    return chromium_path() or sys.exit('check_site: Chromium still not found after apt-get install chromium')


class CDP:
    "Minimal Chrome DevTools protocol client over --remote-debugging-pipe (fd 3: commands in, fd 4: replies out)."
    def __init__(self, exe, log_path):
        cmd_r, self.cmd_w = os.pipe()
        self.res_r, res_w = os.pipe()
        self.profile = tempfile.mkdtemp(prefix='check_site_')
        self.log = open(log_path, 'w')
        def _fds():   # in the child: our pipe ends become fds 3 and 4, where Chromium expects them
            a, b = os.dup(cmd_r), os.dup(res_w)
            os.dup2(a, 3); os.dup2(b, 4)
        self.proc = subprocess.Popen([exe, *CHROME_FLAGS, f'--user-data-dir={self.profile}', 'about:blank'],
                                     pass_fds=(3, 4), preexec_fn=_fds, stdin=subprocess.DEVNULL, stdout=self.log, stderr=self.log)
        os.close(cmd_r); os.close(res_w)
        self.buf, self.next_id, self.events = b'', 0, []

    def _read_msg(self, timeout):
        while b'\0' not in self.buf:
            r, _, _ = select.select([self.res_r], [], [], timeout)
            if not r: raise TimeoutError('no answer from Chromium')
            chunk = os.read(self.res_r, 1 << 20)
            if not chunk: raise RuntimeError('Chromium closed the DevTools pipe (crashed?)')
            self.buf += chunk
        msg, self.buf = self.buf.split(b'\0', 1)
        return json.loads(msg)

    def send(self, method, params=None, session=None, timeout=30):
        self.next_id += 1
        msg = {'id': self.next_id, 'method': method, 'params': params or {}}
        if session: msg['sessionId'] = session
        os.write(self.cmd_w, json.dumps(msg).encode() + b'\0')
        end = time.time() + timeout
        while True:
            m = self._read_msg(max(0.1, end - time.time()))
            if m.get('id') == self.next_id:
                if 'error' in m: raise RuntimeError(f"{method}: {m['error']}")
                return m.get('result', {})
            self.events.append(m)

    def wait_event(self, method, timeout=30):
        end = time.time() + timeout
        while True:
            for i, e in enumerate(self.events):
                if e.get('method') == method: return self.events.pop(i)
            self.events.append(self._read_msg(max(0.1, end - time.time())))

    def drain(self, secs=0.2):
        end = time.time() + secs
        while time.time() < end:
            r, _, _ = select.select([self.res_r], [], [], max(0.0, end - time.time()))
            if not r: break
            self.events.append(self._read_msg(1))

    def close(self):
        try: self.send('Browser.close', timeout=5)
        except Exception: pass
        try: self.proc.wait(5)
        except subprocess.TimeoutExpired: self.proc.kill(); self.proc.wait()
        self.log.close()
        shutil.rmtree(self.profile, ignore_errors=True)


PAGE_JS = r'''(async () => {
  await document.fonts.ready;
  await Promise.all([...document.images].map(i => i.complete ? 0 : new Promise(r => { i.onload = i.onerror = r; })));
  const skip = new Set(['SCRIPT', 'STYLE', 'CODE', 'PRE', 'MATH', 'TEXTAREA', 'NOSCRIPT']);
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT, {acceptNode(n) {
    for (let e = n.parentElement; e; e = e.parentElement) if (skip.has(e.tagName.toUpperCase())) return NodeFilter.FILTER_REJECT;
    return NodeFilter.FILTER_ACCEPT; }});
  const tex = /\$\$|\\(frac|dfrac|mathbb|mathrm|mathcal|mathbf|boldsymbol|operatorname|sum|prod|int|top|begin|end|left|right|langle|rangle|cdot|cdots|ldots|sqrt|hat|tilde|bar|alpha|beta|sigma|eta|delta|theta|lambda|epsilon|varepsilon|infty|leq|geq|neq|approx|quad|text)(?![a-zA-Z])|\$[^$\n]{0,80}\\[a-zA-Z]+[^$\n]{0,80}\$|\$(?![A-Z][A-Z0-9_]+\b)[A-Za-z({][^$\n]{0,60}\$/;   // not $SHELL_VARIABLES
  const raw = [];
  for (let n; (n = walker.nextNode());) {
    const m = n.textContent.match(tex);
    if (m && n.parentElement.offsetParent !== null) raw.push(n.textContent.trim().slice(0, 120));
  }
  for (const s of document.querySelectorAll('span.math')) raw.push('pandoc fallback: ' + s.textContent.slice(0, 120));
  return {
    title: document.title,
    math: document.getElementsByTagName('math').length,
    mathBlock: document.querySelectorAll('math[display="block"]').length,
    images: [...document.images].map(i => ({src: i.getAttribute('src').slice(0, 100), ok: i.complete && i.naturalWidth > 0})),
    raw: raw.slice(0, 10),
    height: document.documentElement.scrollHeight,
  };
})()'''


# ------------------------------------------------------------------ static link check
def console_errors(events) -> list:
    "The console errors, uncaught exceptions and error log entries among a page's CDP `events`."
    errs = []
    for e in events:
        m, p = e.get('method'), e.get('params', {})
        if m == 'Runtime.consoleAPICalled' and p.get('type') in ('error', 'assert'):
            errs.append('console.error: ' + ' '.join(str(x.get('value', x.get('description', '')))
                                                     for x in p.get('args', [])))
        elif m == 'Runtime.exceptionThrown':
            errs.append('exception: ' + p.get('exceptionDetails', {}).get('text', ''))
        elif m == 'Log.entryAdded' and p.get('entry', {}).get('level') == 'error':
            en = p['entry']
            errs.append(f"{en.get('source')}: {en.get('text')} {en.get('url', '')}".strip())
    return [f'console: {x}' for x in errs]


class _Links(HTMLParser):
    def __init__(self):
        super().__init__(); self.ids, self.refs = set(), []
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if a.get('id'): self.ids.add(a['id'])
        if tag == 'a' and a.get('name'): self.ids.add(a['name'])
        for k in ('href', 'src'):
            v = a.get(k)
            if v and (tag, k) in (('a', 'href'), ('img', 'src'), ('link', 'href'), ('script', 'src')): self.refs.append(v)

class _Content(HTMLParser):
    "What a page of this site must not hold: scripts, inline handlers, javascript: URLs, tracebacks in outputs."
    def __init__(self):
        super().__init__(); self.problems, self._out = [], 0     # depth inside a cell output
    def handle_starttag(self, tag, attrs):
        cls = dict(attrs).get('class') or ''
        if self._out: self._out += 1
        elif 'cell-output' in cls.split(): self._out = 1
        if tag == 'script': self.problems.append('a <script> element')
        if 'cell-output-error' in cls.split(): self.problems.append('an error output (a cell that raised)')
        for k, v in attrs:
            if k.lower().startswith('on'): self.problems.append(f'an inline event handler <{tag} {k}=...>')
            u = re.sub(r'[\s\x00-\x1f]', '', v or '').lower()      # as browsers read it
            if u.startswith(('javascript:', 'vbscript:')): self.problems.append(f'a {u.split(":")[0]}: URL in <{tag} {k}>')
    def handle_endtag(self, tag):
        if self._out: self._out -= 1
    def handle_data(self, data):
        if self._out and 'Traceback (most recent call last)' in data:
            self.problems.append('a Python traceback in an output')

def check_content(docs, pages):
    "Every page: no script, inline handler, javascript: URL or traceback (see the module's docstring)."
    errors = []
    for page in pages:
        h = _Content(); h.feed((docs/page).read_text(encoding='utf-8')); h.close()
        errors += [f'{page}: {p}' for p in dict.fromkeys(h.problems)]
    return errors

def check_links(docs, pages):
    "Local links and images of every page: the file exists and the #anchor is an id in it."
    parsed, errors = {}, []
    def parse(p):
        if p not in parsed:
            h = _Links(); h.feed(p.read_text(encoding='utf-8')); parsed[p] = h
        return parsed[p]
    for page in pages:
        for ref in parse(docs/page).refs:
            if re.match(r'^[a-zA-Z][\w+.-]*:', ref): continue      # http:, https:, data:, mailto:
            path, _, frag = ref.partition('#')
            target = (docs/page).parent/unquote(path) if path else docs/page
            if not target.exists(): errors.append(f'{page}: broken link {ref}'); continue
            if frag and target.suffix == '.html' and unquote(frag) not in parse(target).ids:
                errors.append(f'{page}: link {ref}: no id "{frag}" in {target.name}')
    return errors


def source_has_math(nb_path):
    "Does the notebook's markdown (code spans and blocks removed) contain $...$ math?"
    if not nb_path.exists(): return False
    nb = json.loads(nb_path.read_text(encoding='utf-8'))
    md = '\n'.join(''.join(c['source']) for c in nb['cells'] if c['cell_type'] == 'markdown')
    md = re.sub(r'^(`{3,}|~{3,}).*?^\1', '', md, flags=re.S | re.M)
    md = re.sub(r'`[^`\n]*`', '', md)
    return bool(re.search(r'\$\$.+?\$\$|\$[^\s$][^$\n]*?[^\s$\\]\$|\$[^\s$]\$', md, flags=re.S))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--docs', default='_docs')
    ap.add_argument('--out', default='artifacts/screenshots', help='where the screenshots go')
    ap.add_argument('--width', type=int, default=1360)
    ap.add_argument('--height', type=int, default=1000)
    ap.add_argument('--install-browser', action='store_true',
                    help=f'install Chromium with apt-get when it is missing (root, Debian; or ${INSTALL_ENV}=1)')
    ap.add_argument('--no-install', action='store_true', help='(the default now) stop with the fix when Chromium is missing')
    ap.add_argument('--check-browser', action='store_true',
                    help='only check that Chromium is there (installing it with --install-browser); exit 0 or 1')
    ap.add_argument('--summary', metavar='FILE', help='append a one-line summary to FILE (tools/test.sh: .test-summary)')
    a = ap.parse_args()
    if a.check_browser:
        print(f'check_site: Chromium {find_chromium(install=a.install_browser and not a.no_install)}')
        return 0
    os.chdir(ROOT)
    t0 = time.time()
    docs, out = Path(a.docs).resolve(), Path(a.out)
    mf = docs/'manifest.json'
    if not mf.exists(): sys.exit(f'check_site: {mf} missing: run `python tools/build_docs.py` first')
    manifest = json.loads(mf.read_text())
    by_nb = {v['notebook']: k for k, v in manifest.items()}
    static = check_links(docs, sorted(manifest)) + check_content(docs, sorted(manifest))
    for nb in KEY_PAGES:
        if nb not in by_nb:
            if (ROOT/'nbs'/nb).exists(): static.append(f'{nb}: no page was built for it')
            else: print(f'check_site: nbs/{nb} does not exist yet: its page is not checked')
    failures = list(static)

    exe = find_chromium(install=a.install_browser and not a.no_install)
    out.mkdir(parents=True, exist_ok=True)
    for old in out.glob('*.png'): old.unlink()
    cdp = CDP(exe, out.parent/'chromium.log')
    try:
        target = cdp.send('Target.createTarget', {'url': 'about:blank'})['targetId']
        s = cdp.send('Target.attachToTarget', {'targetId': target, 'flatten': True})['sessionId']
        for m in ('Page.enable', 'Runtime.enable', 'Log.enable'): cdp.send(m, session=s)
        cdp.send('Emulation.setDeviceMetricsOverride', {'width': a.width, 'height': a.height, 'deviceScaleFactor': 1, 'mobile': False}, session=s)
        for page, info in sorted(manifest.items(), key=lambda kv: (kv[1]['notebook'] not in KEY_PAGES, kv[0])):
            cdp.drain(); cdp.events.clear()
            cdp.send('Page.navigate', {'url': (docs/page).as_uri()}, session=s)
            cdp.wait_event('Page.loadEventFired')
            r = cdp.send('Runtime.evaluate', {'expression': PAGE_JS, 'awaitPromise': True, 'returnByValue': True}, session=s)
            if 'exceptionDetails' in r: failures.append(f'{page}: check script failed: {r["exceptionDetails"]}'); continue
            res = r['result']['value']
            cdp.drain(0.3)
            probs = console_errors(cdp.events)
            probs += [f"image not loaded: {i['src']}" for i in res['images'] if not i['ok']]
            probs += [f'raw TeX visible: {x!r}' for x in res['raw']]
            if res['math'] < info['math']:
                probs.append(f"{res['math']} <math> elements but pandoc found {info['math']} formulas")
            if res['math'] == 0 and source_has_math(ROOT/'nbs'/info['notebook']):
                probs.append('no <math> element although the notebook has $...$ math')
            if len(res['images']) < info['images']:
                probs.append(f"{len(res['images'])} images on the page, {info['images']} in the source")
            shots = ''
            if info['notebook'] in KEY_PAGES:
                label = KEY_PAGES[info['notebook']]
                cdp.send('Runtime.evaluate', {'expression': 'window.scrollTo(0, 0)'}, session=s)
                png = cdp.send('Page.captureScreenshot', {'format': 'png'}, session=s)['data']
                (out/f'{label}.png').write_bytes(base64.b64decode(png)); shots = f' -> {out}/{label}.png'
                if res['mathBlock']:
                    cdp.send('Runtime.evaluate', {'expression': "document.querySelector('math[display=\"block\"]').scrollIntoView({block: 'center'})"}, session=s)
                    png = cdp.send('Page.captureScreenshot', {'format': 'png'}, session=s)['data']
                    (out/f'{label}-math.png').write_bytes(base64.b64decode(png)); shots += f', {label}-math.png'
                if res['images']:
                    cdp.send('Runtime.evaluate', {'expression': "document.querySelector('main img').scrollIntoView({block: 'center'})"}, session=s)
                    png = cdp.send('Page.captureScreenshot', {'format': 'png'}, session=s)['data']
                    (out/f'{label}-figure.png').write_bytes(base64.b64decode(png)); shots += f', {label}-figure.png'
            status = 'FAIL' if probs else 'ok  '
            print(f"{status} {page:32s} {res['math']:4d} math, {len(res['images']):2d} images{shots}")
            for p_ in probs: print(f'       {p_}')
            failures += [f'{page}: {p_}' for p_ in probs]
    finally:
        cdp.close()
    for f in static: print('FAIL ' + f)
    line = f"browser check: {len(manifest)} pages, {'passed' if not failures else f'{len(failures)} problem(s)'} ({time.time() - t0:.0f} s; screenshots in {a.out}/)"
    print(line)
    if a.summary:
        with open(a.summary, 'a') as f: f.write(line + '\n')
    return 1 if failures else 0


if __name__ == '__main__': sys.exit(main())
