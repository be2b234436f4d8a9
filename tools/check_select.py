#!/usr/bin/env python3
"""Run `attn-tokens select` on a small generated file and check its report page in headless Chromium.

    python tools/check_select.py                  # generate, run the command, check the page
    python tools/check_select.py --page OUT/report.html   # check an existing page only
    python tools/check_select.py --bench          # time the command on IMDB and Yelp sentences (no check)

The page FAILS the check if it has a console error (a failed resource load included), raw TeX in its text
(\\top, ^T, E_s, $...$), an image that did not load, no faithfulness figure, fewer than
attn_tokens.commands.select_page.N_EXAMPLES examples, or an example without a shaded word.
Chromium is found (installed with apt-get only with --install-browser) and driven as tools/check_site.py does. A screenshot of the
examples goes to artifacts/screenshots/select.png.
"""
import argparse, base64, os, subprocess, sys, tempfile, time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT/'tools'))
from check_site import CDP, console_errors, find_chromium   # noqa: E402  (the docs' browser check: one Chromium driver)

PAGE_JS = r'''(async () => {
  await Promise.all([...document.images].map(i => i.complete ? 0 : new Promise(r => { i.onload = i.onerror = r; })));
  const ex = [...document.querySelectorAll('div.ex')];
  return {
    images: [...document.images].map(i => ({alt: i.alt, ok: i.complete && i.naturalWidth > 0})),
    examples: ex.length,
    shaded: ex.map(e => [...e.querySelectorAll('span.tok')].filter(s => parseFloat(getComputedStyle(s).backgroundColor.split(',')[3] || '1') > 0).length),
    title: document.title,
    rawTex: (document.body.innerText.match(/.{0,30}(\\top|\^T\b|E_s|\$[^$\s]+\$).{0,30}/) || [null])[0],
  };
})()'''


def check_page(page, shots=ROOT/'artifacts'/'screenshots', install=False) -> list:
    "Problems of the report page `page` in headless Chromium (empty: none)."
    from attn_tokens.commands.select_page import N_EXAMPLES
    exe = find_chromium(install=install)
    shots.mkdir(parents=True, exist_ok=True)
    cdp = CDP(exe, shots.parent/'chromium_select.log')
    try:
        target = cdp.send('Target.createTarget', {'url': 'about:blank'})['targetId']
        s = cdp.send('Target.attachToTarget', {'targetId': target, 'flatten': True})['sessionId']
        for m in ('Page.enable', 'Runtime.enable', 'Log.enable'): cdp.send(m, session=s)
        cdp.send('Emulation.setDeviceMetricsOverride', {'width': 1200, 'height': 900, 'deviceScaleFactor': 1,
                                                       'mobile': False}, session=s)
        cdp.drain(); cdp.events.clear()
        cdp.send('Page.navigate', {'url': Path(page).resolve().as_uri()}, session=s)
        cdp.wait_event('Page.loadEventFired')
        r = cdp.send('Runtime.evaluate', {'expression': PAGE_JS, 'awaitPromise': True, 'returnByValue': True},
                     session=s)
        if 'exceptionDetails' in r: return [f'check script failed: {r["exceptionDetails"]}']
        res = r['result']['value']
        cdp.drain(0.5)
        probs = console_errors(cdp.events)
        probs += [f"image not loaded: {i['alt']}" for i in res['images'] if not i['ok']]
        if not res['images']: probs.append('no figure on the page')
        if not any(i['alt'] == 'faithfulness of each ranking' for i in res['images']):
            probs.append('no faithfulness figure on the page')
        if res['examples'] < N_EXAMPLES: probs.append(f"{res['examples']} examples, expected {N_EXAMPLES}")
        if any(n == 0 for n in res['shaded']): probs.append(f"examples without a shaded word: {res['shaded']}")
        if res['rawTex']: probs.append(f"raw TeX on the page: {res['rawTex']!r}")
        cdp.send('Runtime.evaluate', {'expression': "document.querySelector('div.ex').scrollIntoView()"}, session=s)
        png = cdp.send('Page.captureScreenshot', {'format': 'png'}, session=s)['data']
        (shots/'select.png').write_bytes(base64.b64decode(png))
        print(f"check_select: {page}: {len(res['images'])} figure(s), {res['examples']} examples, "
              f"shaded words per example {min(res['shaded'], default=0)}..{max(res['shaded'], default=0)}; "
              f"screenshot {shots/'select.png'}")
        return probs
    finally:
        cdp.close()


def run_select(*args, env=None):
    "Run `python -m attn_tokens.cli select ARGS`; (exit status, wall seconds, output, CPU seconds)."
    import resource
    t0, c0 = time.time(), resource.getrusage(resource.RUSAGE_CHILDREN)
    r = subprocess.run([sys.executable, '-m', 'attn_tokens.cli', 'select', *map(str, args)], capture_output=True,
                       text=True, env={**os.environ, 'HF_HUB_OFFLINE': '1', **(env or {})})
    c1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = c1.ru_utime + c1.ru_stime - c0.ru_utime - c0.ru_stime
    return r.returncode, time.time() - t0, r.stdout + r.stderr, cpu


def bench():
    "Time the command at its defaults on 25,000 IMDB reviews and on 10,000 Yelp sentences; print the load."
    import pyarrow.parquet as pq
    data = Path(os.environ.get('ATTN_TOKENS_DATA', ''))
    tmpd = tempfile.TemporaryDirectory(prefix='check_select_bench_')   # removed when the process ends
    tmp = Path(tmpd.name)
    ys = pq.read_table(data/'yelp_sentences'/'train.parquet').to_pandas().sample(10000, random_state=0)
    ys.to_csv(tmp/'yelp_sentences_10k.csv', index=False)
    for name, src, limit in (('IMDB, 25,000 reviews', data/'imdb'/'train.parquet', 180),
                             ('Yelp sentences, 10,000', tmp/'yelp_sentences_10k.csv', 60)):
        load0 = os.getloadavg()
        code, secs, out, cpu = run_select(src, '--out', tmp/'out', '--force', '--no-progress',
                                          env={'ATTN_TOKENS_CACHE': str(tmp/'cache')})   # cold token cache
        print(f"{name}: exit {code}, {secs:.1f} s wall (limit {limit} s), {cpu:.1f} CPU s on "
              f"{os.cpu_count()} cores, load average before {load0[0]:.2f}, after {os.getloadavg()[0]:.2f}")
        print('   ' + '\n   '.join(out.strip().splitlines()[-4:]))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--page', help='check this report page only')
    ap.add_argument('--bench', action='store_true', help='time the command on the local IMDB and Yelp data')
    ap.add_argument('--install-browser', action='store_true', help='install Chromium with apt-get when missing (root)')
    ap.add_argument('--no-install', action='store_true', help='(the default now) stop with the fix when Chromium is missing')
    ap.add_argument('--summary', metavar='FILE', help='append a one-line summary to FILE')
    a = ap.parse_args()
    if a.bench: bench(); return 0
    t0 = time.time()
    page = Path(a.page) if a.page else None
    probs, tmpd = [], None
    if page is None:
        import pandas as pd
        from attn_tokens.commands.select import planted_sentences
        tmpd = tempfile.TemporaryDirectory(prefix='check_select_'); tmp = Path(tmpd.name)
        texts, labels = planted_sentences(1500, seed=3)
        pd.DataFrame({'text': texts, 'label': labels}).to_csv(tmp/'planted.csv', index=False)
        code, secs, out, _ = run_select(tmp/'planted.csv', '--out', tmp/'out', '--no-progress')
        print(out.strip())
        if code: probs.append(f'attn-tokens select exited {code}')
        page = tmp/'out'/'report.html'
    if not probs: probs += check_page(page, install=a.install_browser and not a.no_install)
    if tmpd is not None: tmpd.cleanup()                  # the planted file, the run's outputs
    for p in probs: print(f'FAIL {p}')
    line = (f"select check: {'passed' if not probs else f'{len(probs)} problem(s)'} "
            f"({time.time() - t0:.0f} s)")
    print(line)
    if a.summary:
        with open(a.summary, 'a') as f: f.write(line + '\n')
    return 1 if probs else 0


if __name__ == '__main__': sys.exit(main())
