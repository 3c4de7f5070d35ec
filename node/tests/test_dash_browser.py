#!/usr/bin/env python3
"""The dashboard's pages in a real browser (Debian's chromium, headless).

Node B of a two-node network (A filled by dash-tool, B replicating) serves
the dashboard. Chromium loads each page; from its rendered DOM the test
checks that the matrix of commit 0 shows every expected cell (5 boards x
3 suites, each colour-coded by its status, each linking to its cases),
follows lab-x's cell to its cases page and that page's link to the log
(which B fetches from A, the node holding it, when the page asks),
and checks that markup from the network (lab-x's branch, a case message,
the log, all holding <script>document.title='pwned'</script>) is shown as
text: escaped in the DOM, no element made from it, the title unchanged.
Screenshots of every page go to BUILD/dash-shots/.

Exit 77 (skipped) when chromium is not installed.

usage: test_dash_browser.py LABMESH DASH_TOOL BUILD_DIR
"""
import html
import json
import os
import re
import subprocess
import sys
import urllib.parse

import lmtest
from lmtest import check
from dashlib import DashNet, commit, make_jobs

ZMQ = 25020
HTTP = 25030
BROWSER = lmtest.BROWSER
PWNED = "<script>document.title='pwned'</script>"


def chromium(url, *mode):
    return lmtest.chromium(url, *mode, timeout=90)


class Pages:
    def __init__(self, shots):
        self.base = 'http://127.0.0.1:%d' % HTTP
        self.shots = shots

    def load(self, name, path):
        """The rendered DOM of path; a screenshot saved as NAME.png."""
        url = self.base + path
        dom = chromium(url, '--dump-dom')
        png = os.path.join(self.shots, name + '.png')
        chromium(url, '--screenshot=' + png)
        check(os.path.getsize(png) > 1000, 'screenshot %s saved' % png)
        status = re.search(r'<p id="status" class="([a-z]+)">', dom)
        check(status and status.group(1) != 'error',
              '%s rendered without an error: %s' % (name, re.findall(
                  r'<p id="status"[^>]*>([^<]*)', dom)))
        self.no_injection(name, dom)
        print('page %-8s %s -> %s' % (name, path[:70], png))
        return dom

    def no_injection(self, name, dom):
        scripts = re.findall(r'<script\b[^>]*>', dom)
        check(scripts == ['<script src="/dash.js">'],
              '%s: the only script element is dash.js: %r' % (name, scripts))
        check('<img' not in dom, '%s: no element made from data' % name)
        title = re.search(r'<title>([^<]*)</title>', dom).group(1)
        check('pwned' not in title, '%s: title untouched: %r' % (name, title))


def href_of(dom, cls_or_attr):
    m = re.search(cls_or_attr, dom)
    check(m, 'link %r on the page' % cls_or_attr)
    return html.unescape(m.group(1))


def href_log(run, suite):
    return '/log.html?' + urllib.parse.urlencode({'run': run, 'suite': suite})


def test_matrix(pages, d):
    c0 = commit(0)
    dom = pages.load('matrix', '/matrix.html?commit=' + c0)
    want = json.loads(d.get('/api/query?commit=' + c0)[2])
    cells = re.findall(r'<td class="cell st-([A-Z]+)" data-suite="([^"]+)" '
                       r'data-status="([A-Z]+)"><a href="([^"]+)">', dom)
    check(len(cells) == 13, 'matrix shows 13 cells: %d' % len(cells))
    rows = re.findall(r'<tr data-lab="([^"]+)" data-board="([^"]+)">', dom)
    check([r[1] for r in rows] == [b['board'] for b in want['boards']],
          'matrix rows are the boards: %r' % rows)
    i = 0
    for b in want['boards']:
        for cell in b['cells']:
            cls, suite, st, link = cells[i]
            q = urllib.parse.parse_qs(urllib.parse.urlparse(
                html.unescape(link)).query)
            check(cls == st == cell['status'] and suite == cell['suite'],
                  'cell %s/%s is %s' % (b['board'], suite, cell['status']))
            check(q == {'run': [cell['run']], 'suite': [suite]},
                  'cell %s/%s links to its cases' % (b['board'], suite))
            check(html.escape(href_log(cell['run'], suite)) in dom,
                  'cell %s/%s links to its log' % (b['board'], suite))
            i += 1
    check('st-FAIL' in dom, 'lab-x failed cell is coloured as FAIL')
    m = re.search(r'<tr data-lab="lab-x" data-board="xss-board">.*?'
                  r'<a href="([^"]+)">', dom)
    check(m, 'lab-x row with a link')
    return html.unescape(m.group(1))


def test_follow(pages, d, cases_link):
    dom = pages.load('cases', cases_link)
    esc = html.escape(PWNED, quote=False)
    check(esc in dom, 'branch and message with <script> shown as text')
    check(re.search(r'<span id="branch">xss-' + re.escape(esc), dom),
          'the branch is the escaped text')
    check('mmap' in dom and 'st-FAIL' in dom, 'failed case listed')
    log_link = href_of(dom, r'<a href="([^"]+)" class="loglink">')
    dom = pages.load('log', log_link)
    check(re.search(r'<pre class="log" id="log"><span class="line" id="L1">'
                    r'<a class="ln" href="#L1">1</a>\[    0\.000000\] Linux',
                    dom), 'the log is shown, its lines numbered')
    check(esc in dom and '&lt;img src=x onerror=' in dom,
          'markup in the log is shown as text')


def test_known(pages, d, net):
    """A known mark (written on A, replicated to B) moves a regression to
    the compare page's known failures; its link is a link only when it is
    a web link, and its text is text."""
    st, _, body = d.get('/api/compare?base=%s&new=%s' % (commit(0), commit(1)))
    check(st == 200, 'compare API')
    js = json.loads(body)
    b = [x for x in js['boards'] if x['regressions']][0]
    path = b['regressions'][0]['path']
    p = subprocess.run([net.labmesh, '--home', d.a.home, 'known', 'add',
                        '--test', path, '--board', b['board'], '--expires',
                        '1d', '--link', 'javascript:alert(1)', '--text',
                        PWNED], capture_output=True, text=True, timeout=30)
    check(p.returncode == 0, 'known add on A: ' + p.stderr)

    def on_b():
        q = subprocess.run([net.labmesh, '--home', d.b.home, 'known', 'list',
                            '--json'], capture_output=True, text=True)
        return q.returncode == 0 and len(json.loads(q.stdout)) == 1
    lmtest.wait_for('B holds the mark', on_b, 60)
    dom = pages.load('compare-known', '/compare.html?base=%s&new=%s' %
                     (commit(0), commit(1)))
    check('Known failures</h3>' in dom and 'class="known"' in dom and
          'known failures not counted' in dom,
          'compare page shows the known failure apart')
    check('href="javascript:' not in dom, 'a non-web link is not a link')
    check(PWNED not in dom and html.escape(PWNED, quote=False) in dom,
          'the mark\'s text is shown as text')


def test(net):
    if not BROWSER:
        print('SKIP: chromium is not installed (apt-get install chromium;'
              ' scripts/deps/dash lists it)')
        sys.exit(77)
    shots = os.path.join(sys.argv[3], 'dash-shots')
    os.makedirs(shots, exist_ok=True)
    d = DashNet(net, ZMQ, HTTP)
    check(d.seed['script_board_refused'],
          'a run whose board name holds <script> cannot be signed')
    pages = Pages(shots)
    dom = pages.load('network', '/')
    check('dasha' in dom and 'dashb-board' in dom and 'dasha-board' in dom,
          'network page lists labs and boards')
    check(dom.count('<a href="/matrix.html?commit=') == 3,
          'network page links the three commits')
    cases_link = test_matrix(pages, d)
    test_follow(pages, d, cases_link)
    dom = pages.load('compare', '/compare.html?base=%s&new=%s' %
                     (commit(0), commit(1)))
    check('regressions</b>' in dom and 'class="regressions"' in dom,
          'compare page lists regressions')
    test_known(pages, d, net)
    dom = pages.load('history', '/history.html?test=suite0.group00.case_0001')
    check(dom.count('<tr>') >= 12, 'history rows')
    dom = pages.load('trends', '/trends.html?metric=suite0.bench.metric0')
    charts = dom.count('<div class="chart">')
    check(charts == 4 and dom.count('<polyline') == 4 and
          dom.count('<circle') == 12,
          'trends: one SVG chart per board, 3 commits each (%d)' % charts)
    dom = pages.load('request', '/request.html?id=' + 'ab' * 32)
    check('keeps no jobs' in dom, 'request page says why no jobs')
    make_jobs(d.b.home, 'cd' * 32)
    dom = pages.load('request-jobs', '/request.html?id=' + 'cd' * 32)
    check('running' in dom and 'queued' in dom and
          '&lt;b&gt;kselftest&lt;/b&gt;' in dom,
          'request page shows the jobs, their text as text')
    check(d.b.alive(), 'B is still running')


lmtest.main(test)
