#!/usr/bin/env python3
"""The dashboard's JSON API equals `labmesh query --json`; its caps hold.

Node A is filled with signed run records (dash-tool), node B replicates
them and serves the dashboard (`labmesh node --http 127.0.0.1:PORT`). For
many filter sets, /api/query, /api/compare and /api/history on B must be
byte-identical to `labmesh query|compare|history --json` on B. Then the
refusals: methods other than GET/HEAD (405), an over-long URL (414),
unknown endpoints and parameters, a non-loopback --http, and the rate cap
(429); and the headers every answer carries.

usage: test_dash_http.py LABMESH DASH_TOOL
"""
import http.client
import json
import os
import signal
import subprocess
import time
import urllib.parse

import lmtest
from lmtest import check, wait_for
from dashlib import DashNet, commit, make_jobs

ZMQ = 25000
HTTP = 25010


def q(params):
    return urllib.parse.urlencode(params)


def same(d, endpoint, params, cli_args, rc=0):
    st, hd, body = d.get('/api/%s?%s' % (endpoint, q(params)))
    want = d.cli(*cli_args, rc=rc)
    check(st == 200, '%s %r: status %d %s' % (endpoint, params, st,
                                              body[:200]))
    check(hd['content-type'].startswith('application/json'),
          'JSON content type')
    check(body == want, '%s %r equals labmesh %s --json (%d vs %d bytes)' %
          (endpoint, params, ' '.join(cli_args), len(body), len(want)))
    return json.loads(body)


def test_equal(d):
    c0, c1, c2 = commit(0), commit(1), commit(2)
    run = d.seed['hostile_run']
    cases = [
        ({'commit': c0}, ['--commit', c0]),
        ({'commit': c2[:10]}, ['--commit', c2[:10]]),
        ({'commit': c0, 'board': 'board-0-0', 'suite': 'suite1'},
         ['--commit', c0, '--board', 'board-0-0', '--suite', 'suite1']),
        ({'commit': c1, 'path': 'suite0.group00.*', 'view': 'matrix'},
         ['--commit', c1, '--path', 'suite0.group00.*', '--matrix']),
        ({'commit': c1, 'status': 'FAIL,ERROR', 'view': 'list'},
         ['--commit', c1, '--status', 'FAIL,ERROR', '--list']),
        ({'lab': 'lab-b', 'status': 'fail'},
         ['--lab', 'lab-b', '--status', 'fail']),
        ({'branch': 'master', 'arch': 'arm64', 'suite': 'suite2'},
         ['--branch', 'master', '--arch', 'arm64', '--suite', 'suite2']),
        ({'since': '2020-01-01', 'status': 'SKIP'},
         ['--since', '2020-01-01', '--status', 'SKIP']),
        ({'tree': 'git://git.example.org/linux.git', 'status': 'ERROR'},
         ['--tree', 'git://git.example.org/linux.git', '--status', 'ERROR']),
        ({'run': run[:16]}, ['--run', run[:16]]),
        ({'lab': 'lab-x', 'view': 'list'}, ['--lab', 'lab-x', '--list']),
        ({'board': 'no-such-board'}, ['--board', 'no-such-board']),
    ]
    for params, args in cases:
        same(d, 'query', params, ['query', '--json'] + args)
    m = same(d, 'query', {'commit': c0}, ['query', '--json', '--commit', c0])
    check(len(m['boards']) == 5 and len(m['suites']) == 3,
          'matrix of commit 0: 5 boards x 3 suites')
    same(d, 'compare', {'base': c0, 'new': c1},
         ['compare', '--json', c0, c1], rc=1)
    same(d, 'compare', {'base': c0[:8], 'new': c2, 'threshold': '5',
                        'lab': 'lab-a'},
         ['compare', '--json', c0[:8], c2, '--threshold', '5', '--lab',
          'lab-a'], rc=1)
    h = same(d, 'history', {'test': 'suite0.group00.case_0001'},
             ['history', '--json', 'suite0.group00.case_0001'])
    check(len(h['history']) == 12, 'history over 3 commits x 4 boards')
    same(d, 'history', {'test': 'suite1.bench.metric0', 'board': 'board-1-1'},
         ['history', '--json', 'suite1.bench.metric0', '--board',
          'board-1-1'])
    # the node's own answers
    st, _, body = d.get('/api/boards')
    check(st == 200 and body == d.cli('--json', 'boards'),
          '/api/boards equals labmesh boards --json')
    st, _, body = d.get('/api/peers')
    peers = json.loads(body)
    check(st == 200 and [p['lab'] for p in peers] == ['dasha'],
          '/api/peers lists A: %r' % body[:200])
    st, _, body = d.get('/api/commits')
    got = [c['commit'] for c in json.loads(body)['commits']]
    check(got == [c2, c1, c0], 'commits latest first: %r' % got)
    st, _, body = d.get('/api/metrics')
    check(st == 200 and len(json.loads(body)['metrics']) == 6,
          'six metric paths')


def test_errors(d):
    def status(path, want, what):
        st, hd, body = d.get(path)
        check(st == want, '%s: status %d, want %d (%s)' %
              (what, st, want, body[:120]))
        if want != 414 or len(path) < 20000:
            check(hd['content-type'].startswith('application/json') and
                  'error' in json.loads(body), '%s: a JSON error' % what)
    status('/api/query?view=pie', 400, 'bad view')
    status('/api/query?color=red', 400, 'unknown parameter')
    status('/api/query?lab=a&lab=b', 400, 'repeated parameter')
    status('/api/query?status=GREAT', 400, 'bad status')
    status('/api/query?since=yesterday', 400, 'bad since')
    status('/api/query?view=matrix', 400, 'matrix of several commits')
    status('/api/query?commit=' + 'f' * 40, 404, 'no runs of that commit')
    status('/api/query?lab=' + 'x' * 1100, 400, 'value too long')
    status('/api/compare?base=' + commit(0), 400, 'compare needs new')
    status('/api/history', 400, 'history needs a test')
    status('/api/history?test=nope.nothing', 404, 'history of no test')
    status('/api/nothing', 404, 'no such endpoint')
    status('/api/request?id=' + 'ab' * 32, 404, 'no jobs here')
    status('/api/request?id=xyz', 400, 'request id is hex')
    status('/api/log?run=' + d.seed['hostile_run'] + '&suite=nope', 404,
           'no such suite')
    run0 = json.loads(d.get('/api/query?' + q({'commit': commit(0)}))[2])
    other = run0['boards'][0]['cells'][0]['run']
    # a log no node holds: the node is asked to fetch it, the answer says
    # which lab holds it (it never arrives: the synthetic logs are ids)
    st, _, body = d.get('/api/log?run=%s&suite=suite0' % other)
    check(st == 202 and json.loads(body)['lab'] ==
          run0['boards'][0]['lab'], 'log not held: 202, fetching from its'
          ' lab: %d %s' % (st, body[:200]))
    status('/api/' + 'a' * 5000, 414, 'URL past HTTP_MAX_URL')
    st, _, _ = d.get('/' + 'a' * 100000)
    check(st in (414, 431), 'huge URL: %d' % st)
    st, _, body = d.get('/../../../etc/passwd')
    check(st in (400, 404) and b'root:' not in body, 'no files from disk')
    st, _, _ = d.get('/nope.html')
    check(st == 404, 'unknown page 404')


def test_jobs(d):
    rid = 'cd' * 32
    make_jobs(d.b.home, rid)
    st, _, body = d.get('/api/request?id=' + rid[:10])
    check(st == 200, '/api/request with jobs.db: %d %r' % (st, body[:200]))
    jobs = json.loads(body)['jobs']
    check([(j['board'], j['state']) for j in jobs] ==
          [('dashb-board', 'running'), ('other-board', 'queued')],
          'jobs of the request with their states: %r' % jobs)
    st, _, body = d.get('/api/request?id=' + 'ef' * 8)
    check(st == 404 and b'no jobs of that request' in body,
          'a request this node ran none of: 404 %d %r' % (st, body[:200]))


def test_methods_headers(d):
    for m in ('POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'):
        st, hd, _ = d.get('/api/query', method=m, body=b'x=1' * 10,
                          headers={'Content-Type': 'text/plain'})
        check(st == 405 and hd.get('allow') == 'GET, HEAD',
              '%s is refused with 405 and Allow' % m)
    for host, want in (('evil.example:%d' % HTTP, 421),
                       ('127.0.0.1.evil.example:%d' % HTTP, 421),
                       ('localhost:%d' % (HTTP + 5), 421),
                       ('localhost:%d' % HTTP, 200),
                       ('[::1]:%d' % HTTP, 200)):
        st, _, _ = d.get('/api/commits', headers={'Host': host})
        check(st == want, 'Host %s: %d, want %d' % (host, st, want))
    st, hd, body = d.get('/api/commits', method='HEAD')
    check(st == 200 and body == b'', 'HEAD answers without a body')
    for path, ctype in (('/', 'text/html'), ('/dash.js', 'text/javascript'),
                        ('/dash.css', 'text/css'),
                        ('/api/commits', 'application/json')):
        st, hd, _ = d.get(path)
        check(st == 200 and hd['content-type'].startswith(ctype),
              '%s is %s: %r' % (path, ctype, hd.get('content-type')))
        check(hd.get('x-content-type-options') == 'nosniff', 'nosniff')
        check("default-src 'self'" in hd.get('content-security-policy', ''),
              'CSP default-src self on %s' % path)
        check('cache-control' in hd, 'Cache-Control on %s' % path)
    logq = '/api/log?' + q({'run': d.seed['hostile_run'], 'suite': 'suite0'})
    st, hd, body = d.get(logq)
    check(st == 202 and json.loads(body)['lab'] == 'lab-x',
          'B does not hold the log blob yet, fetches it from lab-x: %d %r' %
          (st, body[:100]))
    (st, hd, body), _ = wait_for('B fetched the log from A', lambda: (
        lambda r: r if r[0] != 202 else None)(d.get(logq)), 30)
    check(st == 200 and hd['content-type'].startswith('text/plain') and
          b'<script>' in body, 'the log is served as text/plain')


def test_refusals(d):
    labmesh = d.net.labmesh
    for addr in ('0.0.0.0:%d' % (HTTP + 1), 'nonsense', '127.0.0.1:0'):
        p = subprocess.run([labmesh, 'node', '--home', d.b.home + '-x',
                            '--http', addr], capture_output=True,
                           timeout=20)
        check(p.returncode != 0 and b'http' in p.stderr,
              '--http %s refused: %r' % (addr, p.stderr[:200]))


def test_config_http(d):
    """node.http in the lab file starts the dashboard without --http."""
    c = d.net.node('dashc', ZMQ + 3)
    with open(c.config()) as f:
        cfg = f.read()
    cfg = cfg.replace('node:\n', 'node:\n  http: "127.0.0.1:%d"\n'
                             % (HTTP + 2), 1)
    with open(os.path.join(c.home, 'lab.yaml'), 'w') as f:
        f.write(cfg)
    logf = open(c.log, 'a')
    c.proc = subprocess.Popen([d.net.labmesh, 'node', '--home', c.home,
                               '--config', os.path.join(c.home, 'lab.yaml')],
                              stdout=logf, stderr=logf)
    logf.close()

    def up():
        try:
            conn = http.client.HTTPConnection('127.0.0.1', HTTP + 2,
                                              timeout=5)
            conn.request('GET', '/api/status')
            r = conn.getresponse()
            body = r.read()
            conn.close()
            return r.status == 200 and json.loads(body)['lab'] == 'dashc'
        except OSError:
            return False
    wait_for('node.http serves the dashboard', up, 10)
    # a node without runs has no index tables yet: empty answers, not 500
    for path, key in (('/api/commits', 'commits'), ('/api/metrics',
                                                    'metrics'),
                      ('/api/query', 'cases')):
        conn = http.client.HTTPConnection('127.0.0.1', HTTP + 2, timeout=10)
        conn.request('GET', path)
        r = conn.getresponse()
        body = r.read()
        conn.close()
        check(r.status == 200 and json.loads(body)[key] == [],
              '%s on a node without runs: %d %r' % (path, r.status,
                                                     body[:100]))
    c.stop()


def test_rate(d):
    """Past the burst, one address gets 429 (checked last: it spends it).
    The bucket is first left to fill up (HTTP_RATE_BURST / HTTP_RATE_PER_S
    seconds), so at least a burst's worth of requests pass."""
    time.sleep(200 / 50 + 0.5)
    c = http.client.HTTPConnection('127.0.0.1', HTTP, timeout=30)
    seen = None
    for i in range(3000):
        c.request('GET', '/api/status')
        r = c.getresponse()
        r.read()
        if r.status == 429:
            seen = i
            check(r.getheader('Retry-After') == '1', 'Retry-After')
            break
        if r.getheader('Connection', '').lower() == 'close':
            c.close()
            c = http.client.HTTPConnection('127.0.0.1', HTTP, timeout=30)
    c.close()
    check(seen is not None and seen >= 199,
          'rate cap: 429 after the burst (at %r)' % seen)


def test_fetch_cap(d):
    """Blobs no node holds, asked for over the control socket as the
    dashboard asks for logs: such asks take half the node's fetch slots at
    most (the rest stay for the jobs' kernels), then are told to wait."""
    p = subprocess.run([d.net.tools[0], '--blob-fetch', d.b.home, '40'],
                       capture_output=True, text=True, timeout=60)
    got = p.stdout.split('\n')[:-1]
    busy = [i for i, a in enumerate(got) if a == 'ok busy']
    check(p.returncode == 0 and len(got) == 40 and
          all(a == 'ok fetching' for a in got[:busy[0]]) and
          28 <= busy[0] <= 32 and busy == list(range(busy[0], 40)),
          'asks past half the fetch slots are told to wait: %r %s' %
          (got, p.stderr))
    st, _, body = d.get('/api/log?' + q({'run': d.seed['hostile_run'],
                                         'suite': 'suite0'}))
    check(st == 200, 'a held log is still served: %d' % st)


def test(net):
    d = DashNet(net, ZMQ, HTTP)
    test_equal(d)
    test_errors(d)
    test_jobs(d)
    test_methods_headers(d)
    test_refusals(d)
    test_config_http(d)
    test_fetch_cap(d)
    test_rate(d)
    check(d.b.alive(), 'B is still running')
    d.b.proc.send_signal(signal.SIGTERM)
    try:
        rc = d.b.proc.wait(8)
    except subprocess.TimeoutExpired:
        rc = None
    check(rc == 0, 'B stops cleanly on SIGTERM with the server running:'
          ' %r' % rc)
    d.b.stop()
    check('dashboard on http://127.0.0.1:%d/' % HTTP in d.b.logtext(),
          'B logged where it serves')


lmtest.main(test)
