#!/usr/bin/env python3
"""The dashboard over the results of a real network run, in a real browser.

dashreal.py starts five labs on loopback and submits two real requests
(BASE and NEW: a kernel and an initrd with a marker, each with its git
identity) that run smoke, syscall-latency and the labs' probe suite on
five boards of four labs: four `local` boards with the command boot
method and a QEMU board that boots the request's kernel.
The dashboard node, hq, ran none of the jobs: everything it shows arrived
by replication, and every log it shows it fetches from the lab that holds
it when a page asks (the test copies no file).

Checked here:
- a lab file whose board name is <script>alert(1)</script> is refused
  (names are [A-Za-z0-9._-] on the wire), so markup reaches the dashboard
  only as text the network carries: the hostile lab's case messages and
  logs, and the NEW branch's name;
- /api/query, /api/compare, /api/history and /api/progress answer byte for
  byte what `labmesh query/compare/history/status --json` print, for
  several filters, on hq;
- in headless chromium, driven over WebDriver (chromedriver): the network
  page, the request's progress in every lab, the matrix of each commit
  (every expected cell), a cell followed by clicks to its cases and to its
  log, the log of a lab that is stopped ("held by lab-b, fetching") which
  resolves once the lab runs again, regressions between the commits, a
  test's history and the benchmark trend charts (SVG). On every page no
  script ran from the data (no alert, one script element, no <img>, the
  title intact) and the markup is shown as text.
Screenshots: BUILD/dash-shots/real-*.png.

Exit 77 (skipped) when chromium or chromedriver is not installed.

usage: test_dash_real.py LABMESH BUILD_DIR
"""
import json
import os
import signal
import subprocess
import sys
import time
import urllib.parse
import urllib.request

sys.path.insert(0, os.path.dirname(__file__))
import dashreal  # noqa: E402
import webdriver  # noqa: E402
from dashreal import COMMITS, XSS, XSS_MSG  # noqa: E402
from jobstest import Fail, Net, Skip, check, main, wait_for  # noqa: E402

ZMQ = 25100
HTTP = 25110
DRIVER = 25120
BOARDS = []  # the boards that run the requests, in (lab, board) order
SUITES = ['probe', 'smoke', 'syscall-latency']


def get(path):
    """(status, body bytes) of hq's dashboard."""
    req = urllib.request.Request('http://127.0.0.1:%d%s' % (HTTP, path))
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()


def blob_path(home, blob):
    return os.path.join(home, 'blobs', blob[:2], blob)


def blobs_of(home):
    return {f for d, _, fs in os.walk(os.path.join(home, 'blobs'))
            for f in fs}


# ---- the lab file cannot name a board with markup ----

def test_markup_board_refused(rn):
    home = os.path.join(rn.net.dir, 'xss-lab')
    os.makedirs(home, mode=0o700)
    cfg = os.path.join(home, 'lab.yaml')
    with open(cfg, 'w') as f:
        f.write('lab: {name: lab-y}\nnode:\n  listen: "tcp://127.0.0.1:%d"\n'
                'boards:\n  - {name: "%s", arch: x86_64, transport: '
                '{type: local}, boot: {method: none}}\n' % (ZMQ + 9, XSS))
    p = subprocess.run([rn.net.labmesh, 'node', '--home', home, '--config',
                        cfg], capture_output=True, text=True, timeout=20)
    check(p.returncode != 0 and 'lab.yaml:5' in p.stderr and
          'name' in p.stderr,
          'a board named %s is refused with file, line and field: %d %r' %
          (XSS, p.returncode, p.stderr[-300:]))
    print('lab file with a <script> board name refused: %s' %
          p.stderr.strip().splitlines()[-1][:160])


# ---- the API = the commands' --json, on the real results ----

def same(rn, path, params, cli, rc=0):
    q = urllib.parse.urlencode(params)
    st, body = get('/api/%s?%s' % (path, q))
    p = rn.hq.cli('--json', *cli, check_rc=False)
    check(p.returncode == rc, 'labmesh %s: exit %d %s' %
          (' '.join(cli), p.returncode, p.stderr[-300:]))
    check(st == 200, '/api/%s?%s: %d %s' % (path, q, st, body[:200]))
    check(body.decode() == p.stdout,
          '/api/%s?%s differs from labmesh %s:\n%s\n---\n%s' %
          (path, q, ' '.join(cli), body.decode()[:600], p.stdout[:600]))
    return json.loads(body)


def test_api(rn):
    c0, c1 = COMMITS
    r0, r1 = rn.requests
    same(rn, 'query', {'commit': c0}, ['query', '--commit', c0])
    m = same(rn, 'query', {'commit': c1[:10]}, ['query', '--commit', c1[:10]])
    check([b['board'] for b in m['boards']] == BOARDS and
          m['suites'] == SUITES, 'matrix of NEW: %r' % m)
    same(rn, 'query', {'commit': c1, 'lab': 'lab-x', 'suite': 'probe'},
         ['query', '--commit', c1, '--lab', 'lab-x', '--suite', 'probe'])
    lst = same(rn, 'query', {'status': 'fail', 'view': 'list'},
               ['query', '--status', 'fail', '--list'])
    fails = lst['cases'] if isinstance(lst, dict) else lst
    check(len(fails) == len(BOARDS) and all(
        x['path'] == 'probe.image.feature' and x['commit'] == c1
        for x in fails), 'failed cases: the probe of NEW on every board: %r' %
        fails)
    same(rn, 'query', {'request': r0[:16], 'board': 'rack-a1'},
         ['query', '--request', r0[:16], '--board', 'rack-a1'])
    same(rn, 'query', {'branch': dashreal.BRANCHES[1], 'view': 'list',
                       'suite': 'probe'},
         ['query', '--branch', dashreal.BRANCHES[1], '--list', '--suite',
          'probe'])
    same(rn, 'query', {'suite': 'syscall-latency', 'lab': 'lab-a',
                       'view': 'list', 'since': '1h'},
         ['query', '--suite', 'syscall-latency', '--lab', 'lab-a', '--list',
          '--since', '1h'])
    cmp = same(rn, 'compare', {'base': c0, 'new': c1},
               ['compare', c0, c1], rc=1)
    check(cmp['summary']['regressions'] == len(BOARDS),
          'a regression per board: %r' %
          cmp['summary'])
    same(rn, 'compare', {'base': r0, 'new': r1, 'lab': 'lab-b',
                         'threshold': '50'},
         ['compare', r0, r1, '--lab', 'lab-b', '--threshold', '50'], rc=1)
    h = same(rn, 'history', {'test': 'probe.image.feature'},
             ['history', 'probe.image.feature'])
    check(len(h['history']) == 2 * len(BOARDS),
          'history: every board x 2 commits')
    same(rn, 'history', {'test': 'syscall-latency.getppid',
                         'board': 'xss-board'},
         ['history', 'syscall-latency.getppid', '--board', 'xss-board'])
    for r in (r0, r1[:12]):
        same(rn, 'progress', {'id': r}, ['status', r])
    print('API = --json for 13 filters (query, compare, history, status)')


def test_log_api(rn, run_b):
    """A log hq lacks: 202 naming the lab that holds it, then the text."""
    path = '/api/log?run=%s&suite=smoke' % run_b
    before = blobs_of(rn.hq.home)
    st, body = get(path)
    check(st == 202, 'a log hq lacks answers 202 first: %d %s' %
          (st, body[:200]))
    j = json.loads(body)
    check(j['lab'] == 'lab-b' and 'held by lab lab-b' in j['fetching'],
          'the answer names the lab that holds the log: %r' % j)
    check(j['blob'] not in before, 'hq did not hold the blob before')
    (st, body), _ = wait_for('the log fetched from lab-b', lambda: (
        lambda r: r if r[0] == 200 else None)(get(path)), 30, 0.2)
    check(b'ok 1 - ' in body and os.path.exists(
        blob_path(rn.hq.home, j['blob'])),
        'the smoke log of lab-b is served and kept by hq')
    print('log api: 202 held by lab-b, then 200 (%d bytes)' % len(body))


def test_qemu_console(rn, run_q):
    """The QEMU board booted the request's kernel: its console log, which
    only lab-q holds, fetched through hq's API."""
    path = '/api/log?' + urllib.parse.urlencode({'run': run_q,
                                                 'name': 'console'})
    (st, body), _ = wait_for('the console of qemu-q on hq', lambda: (
        lambda r: r if r[0] != 202 else None)(get(path)), 60, 0.2)
    check(st == 200 and rn.board['KVERSION'].encode() in body,
          'the console shows the kernel %s booted: %d %r' %
          (rn.board['KVERSION'], st, body[:300]))
    print('qemu-q console: %d bytes, kernel %s' % (len(body),
                                                   rn.board['KVERSION']))


# ---- the pages ----

class Pages:
    def __init__(self, browser, shots):
        self.b = browser
        self.shots = shots
        self.base = 'http://127.0.0.1:%d' % HTTP
        self.saved = []

    def ready(self, name):
        """Wait until the page's script has finished (status no longer
        'Loading…' nor 'fetching'); it must not be an error. The pages
        that reload themselves (network, request) are kept still while
        they are checked."""
        st = self.b.wait('%s rendered' % name, """
            const s = document.getElementById('status');
            if (!s || s.textContent === 'Loading…' ||
                s.className === 'fetching')
                return null;
            return [s.className, s.textContent];""", 60)
        check(st[0] != 'error', '%s: error %r' % (name, st[1]))
        self.b.js('for (let i = setTimeout(() => 0, 0); i > 0; i--)'
                  ' clearTimeout(i);')

    def no_injection(self, name):
        check(self.b.alert() is None, '%s: no alert opened' % name)
        got = self.b.js("""return [
            [...document.scripts].map(s => s.getAttribute('src')),
            document.querySelectorAll('img, iframe, object, embed').length,
            document.title,
            [...document.querySelectorAll('*')].filter(e =>
                [...e.attributes].some(a => a.name.startsWith('on'))).length];
            """)
        check(got[0] == ['/dash.js'], '%s: one script, dash.js: %r' %
              (name, got[0]))
        check(got[1] == 0 and got[3] == 0,
              '%s: no element or handler made from data: %r' % (name, got))
        check('labmesh' in got[2] and 'alert' not in got[2],
              '%s: title untouched: %r' % (name, got[2]))

    def shot(self, name, what):
        """Save the page as real-NAME.png; what: what it shows (for
        real-index.txt, written at the end)."""
        path = os.path.join(self.shots, 'real-%s.png' % name)
        n = self.b.screenshot(path)
        check(n > 5000, 'screenshot %s saved (%d bytes)' % (path, n))
        self.saved.append((os.path.basename(path), self.b.url(), what))
        print('  page %-16s %s' % (name, path))

    def load(self, name, path, what):
        self.b.go(self.base + path)
        self.ready(name)
        self.no_injection(name)
        self.shot(name, what)

    def index(self):
        with open(os.path.join(self.shots, 'real-index.txt'), 'w') as f:
            f.write('Screenshots of the dashboard of hq, a node that ran none'
                    ' of the jobs,\nafter a real network run'
                    ' (node/tests/test_dash_real.py).\n\n')
            for png, url, what in self.saved:
                f.write('%s\n  %s\n  %s\n\n' % (png, url.replace(
                    self.base, ''), what))

    def text(self, css='body'):
        return self.b.js('const e = document.querySelector(arguments[0]);'
                         ' return e ? e.textContent : null;', css)


def test_network(pg, rn):
    pg.load('network', '/', 'the labs (hq, lab-a, lab-b, lab-q, lab-x) and'
            ' their boards, the peers, the two commits tested (NEW with'
            ' its markup branch shown as text) and the two requests')
    t = pg.text('main')
    for s in ['lab-a', 'lab-b', 'lab-x', 'hq'] + BOARDS + ['hq-host']:
        check(s in t, 'network page names %s' % s)
    links = pg.b.js("""return [...document.querySelectorAll(
        'table.commits a[href^="/matrix.html"]')].map(a => a.textContent);""")
    check(links == [COMMITS[1][:12], COMMITS[0][:12]],
          'network page links both commits, newest first: %r' % links)
    check(dashreal.BRANCHES[1] in t,
          'the branch with markup is shown as text on the network page')
    reqs = pg.b.js("""return [...document.querySelectorAll(
        'table.requests tbody tr')].map(r => [...r.cells].map(
        c => c.textContent));""")
    check([r[0] for r in reqs] == [q[:12] for q in reversed(rn.requests)] and
          len(reqs[0][1]) == 12 and reqs[0][2] == 'finished' and
          reqs[0][4].startswith(COMMITS[1][:12]) and
          reqs[0][4] == '%s (%s)' % (COMMITS[1][:12],
                                     dashreal.DESCRIBES[1]) and
          reqs[0][5] == dashreal.BRANCHES[1] and
          reqs[0][6] == dashreal.SUITES.replace(',', ', '),
          'network page lists both requests, newest first: %r' % reqs)


def test_request(pg, rn):
    """Follow NEW from the network page to its progress in every lab."""
    pg.b.click('table.requests a[href="/request.html?id=%s"]' %
               rn.requests[1])
    pg.ready('request')
    pg.no_injection('request')
    pg.shot('request', 'NEW, followed from the network page: every lab'
            "'s answer (hq declined: boot method none), each board done"
            ' with a FAIL result, and the results matrix of the request')
    rows = pg.b.js("""return [...document.querySelectorAll(
        'table.progress tbody tr')].map(r => [...r.cells].map(
        c => c.textContent));""")
    labs = {r[0]: r for r in rows}
    check(labs.get('hq', [None, ''])[1] == 'declined' and
          'boot method none' in labs['hq'][4],
          'hq declined, with its reason: %r' % labs.get('hq'))
    boards = {r[2]: r for r in rows if r[2]}
    check(sorted(boards) == sorted(BOARDS) and
          all(r[1] == 'accepted' and r[3] == 'done' and 'FAIL' in r[5]
              for r in boards.values()),
          'every board of NEW accepted, done, FAIL: %r' % rows)
    check('finished' in pg.text('#progress-summary'), 'request finished')
    check(pg.b.js("return document.querySelectorAll("
                  "'#matrix td.cell').length") == 3 * len(BOARDS),
          'the request page shows its results matrix')


def matrix_cells(pg):
    return pg.b.js("""return [...document.querySelectorAll(
        '#matrix tbody tr')].map(r => [r.dataset.lab, r.dataset.board,
        [...r.querySelectorAll('td.cell')].map(c => [c.dataset.suite,
        c.dataset.status, c.querySelector('a').getAttribute('href')])]);""")


def test_matrix(pg, i):
    c = COMMITS[i]
    pg.load('matrix-%s' % ('base', 'new')[i], '/matrix.html?commit=' + c,
            'the matrix of %s: every board x (probe, smoke,'
            ' syscall-latency), %s' % (('BASE', 'NEW')[i], (
                'all PASS', 'probe FAIL on every board')[i]))
    st, body = get('/api/query?commit=' + c)
    want = json.loads(body)
    got = matrix_cells(pg)
    check([g[1] for g in got] == BOARDS, 'matrix rows: %r' % got)
    n = 0
    for g, b in zip(got, want['boards']):
        check(g[0] == b['lab'], 'row %s lab' % g[1])
        cells = {x['suite']: x for x in b['cells']}
        check(sorted(cells) == SUITES and len(g[2]) == 3,
              'row %s: a cell per suite' % g[1])
        for suite, status, link in g[2]:
            x = cells[suite]
            q = urllib.parse.parse_qs(urllib.parse.urlparse(link).query)
            check(status == x['status'] and
                  q == {'run': [x['run']], 'suite': [suite]},
                  'cell %s/%s: %s, links to its cases' % (g[1], suite,
                                                         status))
            want_st = 'FAIL' if (suite == 'probe' and i == 1) else 'PASS'
            check(status == want_st, 'cell %s/%s is %s (%s)' %
                  (g[1], suite, want_st, status))
            n += 1
    check(n == 3 * len(BOARDS), 'a cell per board and suite')
    return want


def test_follow(pg, rn):
    """From the NEW matrix, click lab-x's probe cell, then the log."""
    pg.b.click('tr[data-board="xss-board"] td[data-suite="probe"] a')
    pg.ready('cases')
    check('/cases.html?' in pg.b.url(), 'the cell leads to its cases')
    pg.no_injection('cases')
    t = pg.text('main')
    check(XSS_MSG in t, 'the hostile case message is shown as text')
    check(pg.text('#branch') == dashreal.BRANCHES[1],
          'the branch with markup is the text of #branch')
    rows = pg.b.js("""return [...document.querySelectorAll(
        'table.cases tbody tr')].map(r => [...r.cells].map(
        c => c.textContent));""")
    check(any(r[0] == 'probe.image.feature' and r[1] == 'FAIL' and
              XSS in r[3] for r in rows), 'failed case listed: %r' % rows)
    # every case has a time: its own, or its suite's labelled as such
    untimed = [r[:3] for r in rows if r[2].strip() in ('', '-', '0 ms')]
    check(not untimed, 'cases without a duration: %r' % untimed[:3])
    pg.shot('cases', "lab-x's probe cell of NEW, clicked: its cases,"
            ' image.feature FAIL with the hostile message and the branch'
            ' shown as text')
    run = urllib.parse.parse_qs(urllib.parse.urlparse(
        pg.b.url()).query)['run'][0]
    before = blobs_of(rn.hq.home)
    pg.b.click('a.loglink')
    pg.ready('log')
    pg.no_injection('log')
    log = pg.text('#log')
    check(log and 'ok 1 - image.deployed' in log and
          XSS_MSG + ' in the output' in log,
          'the log of lab-x, markup in it as text: %r' % (log or '')[:300])
    check(len(blobs_of(rn.hq.home) - before) == 1,
          'hq fetched the log and keeps it')
    pg.shot('log', 'the "the log" link clicked: lab-x\'s probe log,'
            ' fetched by hq from lab-x, its markup shown as text')
    return run


def test_log_held_elsewhere(pg, rn, run_b):
    """lab-b stopped: the page says who holds the log and keeps asking;
    lab-b running again: the log appears."""
    lab_b = rn.labs['lab-b']
    os.killpg(lab_b.proc.pid, signal.SIGSTOP)
    try:
        pg.b.go(pg.base + '/log.html?' + urllib.parse.urlencode(
            {'run': run_b, 'suite': 'probe'}))
        msg = pg.b.wait('the page says the log is being fetched', """
            const s = document.getElementById('status');
            return s.className === 'fetching' ? s.textContent : null;""",
                        20)
        check('held by lab lab-b' in msg, 'fetching state: %r' % msg)
        time.sleep(2.5)
        pg.no_injection('log-fetching')
        pg.shot('log-fetching', 'a log of lab-b while lab-b is stopped:'
                ' "the log is held by lab lab-b: fetching it from the'
                ' network… (N s)"')
    finally:
        os.killpg(lab_b.proc.pid, signal.SIGCONT)
    pg.ready('log-fetched')
    check('ok 1 - image.deployed' in (pg.text('#log') or ''),
          'the log arrives once lab-b runs again')
    pg.shot('log-fetched', 'the same page once lab-b runs again: the log'
            ' arrived and is shown')
    print('log held by a stopped lab: %r, then shown' % msg)


def test_compare(pg):
    pg.load('compare', '/compare.html?base=%s&new=%s' % tuple(COMMITS),
            'regressions from BASE to NEW: probe.image.feature PASS -> FAIL'
            ' on every board, probe.probe_ms 100 -> 180 ms, and whatever'
            ' syscall-latency figures moved past 10%')
    check(pg.text('#summary').startswith('%d regressions, 0 fixes' %
                                         len(BOARDS)),
          'summary: %r' % pg.text('#summary'))
    regs = pg.b.js("""return [...document.querySelectorAll(
        'ul.regressions li')].map(li => li.textContent);""")
    check(len(regs) == len(BOARDS) and all(r.startswith('probe.image.feature') and
                                 'PASS' in r and 'FAIL' in r for r in regs),
          'one regression per board: %r' % regs)
    mets = pg.b.js("""return [...document.querySelectorAll(
        'ul.metrics li')].map(li => li.textContent);""")
    check(sum('probe.probe_ms: 100 → 180 ms' in m for m in mets) ==
          len(BOARDS),
          'probe_ms worse on every board: %r' % mets)


def test_history(pg):
    pg.load('history', '/history.html?test=probe.image.feature',
            'the history of probe.image.feature: PASS on BASE, FAIL on NEW,'
            ' per board')
    rows = pg.b.js("""return [...document.querySelectorAll(
        'table.history tbody tr')].map(r => [r.cells[1].textContent,
        r.cells[2].textContent, r.cells[4].textContent,
        r.cells[5].textContent]);""")
    check(len(rows) == 2 * len(BOARDS), 'history: a result per board and'
          ' commit: %r' % rows)
    for commit, branch, board, res in rows:
        new = commit == COMMITS[1][:12]
        check(board in BOARDS and ('FAIL' if new else 'PASS') in res and
              branch == dashreal.BRANCHES[int(new)],
              'history row %s %s: %s' % (board, commit, res))


def test_trends(pg):
    for metric in ('syscall-latency.getppid', 'probe.probe_ms'):
        name = 'trends-' + metric.split('.')[-1]
        pg.load(name, '/trends.html?metric=' + metric,
                'the trend of %s: one SVG chart per board, BASE then NEW'
                % metric)
        got = pg.b.js("""return [...document.querySelectorAll('div.chart')]
            .map(c => [c.querySelector('h3').textContent,
            c.querySelectorAll('svg polyline').length,
            c.querySelectorAll('svg circle').length,
            [...c.querySelectorAll('svg circle title')].map(
                t => t.textContent)]);""")
        check(sorted(g[0].split(' / ')[1] for g in got) == sorted(BOARDS),
              '%s: a chart per board: %r' % (metric, got))
        check(all(g[1] == 1 and g[2] == 2 for g in got),
              '%s: each chart a line through BASE and NEW' % metric)
        if metric == 'probe.probe_ms':
            check(all(g[3][0].endswith(': 100 ms') and
                      g[3][1].endswith(': 180 ms') for g in got),
                  'probe_ms 100 then 180 ms: %r' % got)


def test(net):
    """net: a jobstest.Net; its first tool is the build directory."""
    if not webdriver.CHROMIUM or not webdriver.DRIVER:
        raise Skip('chromium and chromedriver are needed (apt-get install'
                   ' chromium chromium-driver; scripts/deps/dash lists them)')
    shots = os.path.join(net.tools[0], 'dash-shots')
    os.makedirs(shots, exist_ok=True)
    t0 = time.time()
    rn = dashreal.RealNet(net, ZMQ, HTTP)
    BOARDS[:] = [b for _, b in rn.boards]
    browser = None
    try:
        test_markup_board_refused(rn)
        rn.start()
        for i in (0, 1):
            req = rn.submit(i)
            rn.wait(req)
            print('request %d %s done (%.0f s)' % (i, req[:12],
                                                   time.time() - t0))
        runs = {b['board']: b['run'] for lab in rn.hq.req_status(
            rn.requests[1])['labs'] for b in lab['boards']}
        runs0 = {b['board']: b['run'] for lab in rn.hq.req_status(
            rn.requests[0])['labs'] for b in lab['boards']}
        check(not os.path.exists(os.path.join(rn.hq.home, 'work', 'runs')),
              'hq ran no job')
        test_api(rn)
        test_log_api(rn, runs0['rack-b1'])
        if rn.board:
            test_qemu_console(rn, runs['qemu-q'])
        browser = webdriver.Browser(DRIVER)
        pg = Pages(browser, shots)
        test_network(pg, rn)
        test_request(pg, rn)
        test_matrix(pg, 0)
        test_matrix(pg, 1)
        test_follow(pg, rn)
        test_log_held_elsewhere(pg, rn, runs['rack-b1'])
        test_compare(pg)
        test_history(pg)
        test_trends(pg)
        for lab in rn.labs.values():
            check(lab.proc.poll() is None, '%s still runs' % lab.name)
        pg.index()
        print('dashboard over a real run OK: %d screenshots, %.0f s' %
              (len(pg.saved), time.time() - t0))
    except webdriver.Error as e:
        raise Fail('the browser: %s' % e)
    finally:
        if browser:
            browser.close()
        rn.close()
    return 0


if __name__ == '__main__':
    main(test, Net)
