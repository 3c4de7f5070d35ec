#!/usr/bin/env python3
"""Known failures: a maintainer's mark replicates and compare honours it.

Node A's store holds synthetic run records of two labs (board-0-0 is
x86_64, board-0-1 arm64; commit 0 -> 1 has six regressions). Two real
nodes A - B replicate them. On A, `labmesh known add` marks suite1 on the
boards board-0-* of arch x86_64, and another mark names arm64 only; B
receives the signed marks and its `compare` shows the covered failure as
KNOWN, apart from the regressions, which count one fewer (exit status and
summary), while the arm64 mark does not apply to the x86_64 board. `known
drop` ends the mark: B's compare is back to six regressions and `known
list` shows it only with --all, as expired. Bad marks are refused with the
reason and publish nothing.

usage: test_known.py LABMESH LM_RESULTS
"""
import hashlib
import json
import subprocess
import os
import sys
import time
import urllib.request
import lmtest
from lmtest import check, wait_for
sys.path.insert(0, os.path.dirname(__file__))
import kcidb_check  # noqa: E402

WANT = 17470


def commit(i):
    return hashlib.blake2b(b"commit-%d" % i, digest_size=32).hexdigest()[:40]


def ask(net, node, *args, rc=0):
    p = subprocess.run([net.labmesh, '--home', node.home, *args],
                       capture_output=True, timeout=60)
    check(p.returncode == rc, 'labmesh %s on %s: exit %d, wanted %d: %s' %
          (' '.join(args[:2]), node.name, p.returncode, rc,
           p.stderr.decode()[:300]))
    return p.stdout.decode(), p.stderr.decode()


def compare(net, node, rc):
    out, _ = ask(net, node, 'compare', commit(0), commit(1), rc=rc)
    js, _ = ask(net, node, 'compare', commit(0), commit(1), '--json', rc=rc)
    return out, json.loads(js)


def board(js, name):
    return [b for b in js['boards'] if b['board'] == name][0]


def marks(net, node, *extra):
    return json.loads(ask(net, node, 'known', 'list', '--json', *extra)[0])


def dash_known(http, link, known):
    """The dashboard's compare of commits 0 and 1: its API lists exactly
    the known failures `known`, and (with chromium) the page draws them
    under "Known failures", with the mark's link, apart from the new
    regressions; without any, no such section."""
    q = 'base=%s&new=%s' % (commit(0), commit(1))
    with urllib.request.urlopen('http://127.0.0.1:%d/api/compare?%s' %
                                (http, q), timeout=30) as r:
        api = json.loads(r.read())
    got = sorted(x['path'] for b in api['boards'] for x in b['known'])
    check(got == known and api['summary']['known'] == len(known),
          'dashboard API: known failures %r, want %r' % (got, known))
    if not lmtest.BROWSER:
        print('no chromium: the compare page not drawn')
        return
    dom = lmtest.chromium('http://127.0.0.1:%d/compare.html?%s' % (http, q),
                          '--dump-dom', timeout=90)
    sec = dom.split('Known failures', 1)
    if known:
        check(len(sec) == 2 and all(k in sec[1] for k in known) and
              'href="%s"' % link in sec[1],
              'compare page: the known failure under "Known failures",'
              ' linked')
        check(all(dom.count('>%s<' % k) == 1 for k in known),
              'compare page: a known failure is not among the new'
              ' regressions too')
    else:
        check(len(sec) == 1, 'compare page: no known failures after the'
              ' drop')
    print('dashboard compare: known failures %r' % known)


def test(net):
    tool = net.tools[0]
    base = lmtest.port_block(WANT)
    a = net.node('knowna', base, max_peers=2)
    b = net.node('knownb', base + 1, seeds=[a], max_peers=2)
    subprocess.run([tool, 'synth', '--home', a.home, '--no-index'],
                   check=True, capture_output=True)
    http = base + 5
    a.start()
    b.start(args=['--http', '127.0.0.1:%d' % http])
    feeds = {k: v['seq'] for k, v in a.feeds().items()
             if k not in (a.id, b.id)}
    wait_for('B has every run record', lambda: all(
        b.feeds().get(k, {}).get('seq') == s for k, s in feeds.items()), 60)
    out, js = compare(net, b, 1)
    check(js['summary']['regressions'] == 6 and
          js['summary']['known'] == 0, 'six regressions before any mark')

    # bad marks: refused with the reason, nothing published
    _, err = ask(net, a, 'known', 'add', '--test', 'suite1 x',
                 '--expires', '7d', rc=1)
    check('refused' in err and 'syntax' in err, 'bad path refused: ' + err)
    _, err = ask(net, a, 'known', 'add', '--test', 'suite1', rc=2)
    check('--expires' in err, 'add without --expires: ' + err)
    _, err = ask(net, a, 'known', 'add', '--test', 'suite1', '--expires',
                 '2001-01-01', rc=2)
    check('--expires' in err, 'a past expiry is refused: ' + err)
    check(marks(net, a) == [], 'no mark after the refusals')

    link = 'https://lore.kernel.org/all/suite1-known/'
    ask(net, a, 'known', 'add', '--test', 'suite1', '--board', 'board-0-*',
        '--arch', 'x86_64', '--link', link, '--text', 'vfs rework',
        '--expires', '7d')
    ask(net, a, 'known', 'add', '--test', 'suite0.group00.case_0005',
        '--arch', 'arm64', '--expires', '2099-01-01')
    wait_for('B holds both marks', lambda: len(marks(net, b)) == 2, 60)
    lst = ask(net, b, 'known', 'list')[0]
    print(lst)
    check('suite1  board board-0-*  arch x86_64  until' in lst and link in lst,
          'known list shows the mark')
    out, js = compare(net, b, 1)
    print(out)
    check(js['summary']['regressions'] == 5 and js['summary']['known'] == 1,
          'the marked failure is not a new regression: %r' % js['summary'])
    b00 = board(js, 'board-0-0')
    check([x['path'] for x in b00['known']] ==
          ['suite1.group00.case_0011'], 'board-0-0 lists it as known')
    check(b00['known'][0]['known']['link'] == link, 'with its link')
    check([x['path'] for x in b00['regressions']] ==
          ['suite0.group00.case_0005'], 'the arm64 mark does not apply to'
          ' the x86_64 board')
    check(board(js, 'board-0-1')['known'] == [],
          'board-0-1 (arm64) is not covered by the x86_64 mark')
    check('KNOWN      suite1.group00.case_0011  PASS -> FAIL  (known until'
          in out and '1 known failures not counted' in out,
          'text compare shows KNOWN')

    dash_known(http, link, ['suite1.group00.case_0011'])

    rep, _ = ask(net, b, 'report', commit(1), rc=1)
    print(rep)
    check('New regressions (5;' in rep and 'Known failures (1;' in rep and
          link in rep, 'report lists the known failure apart')
    rep, _ = ask(net, b, 'report', commit(1), '--dash', 'http://dash:1/',
                 rc=1)
    check('http://dash:1/log.html?run=' in rep and '&suite=suite1' in rep,
          'report links the logs on the dashboard')

    doc = json.loads(ask(net, b, 'export', '--kcidb', '--commit',
                         commit(1))[0])
    errs = kcidb_check.errors(doc)
    check(not errs, 'the export validates against KCIDB v5.3: %s' % errs)
    ids = {t['id'] for t in doc['tests']}
    check(len(doc.get('issues', [])) == 1 and
          doc['issues'][0]['report_url'] == link and
          len(doc.get('incidents', [])) == 1 and
          doc['incidents'][0]['issue_id'] == doc['issues'][0]['id'] and
          doc['incidents'][0]['test_id'] in ids and
          doc['incidents'][0]['test_id'].endswith('suite1.group00.case_0011'),
          'the mark is a KCIDB issue, the test it covers an incident: %r'
          % ((doc.get('issues'), doc.get('incidents')),))

    ask(net, a, 'known', 'drop', '--test', 'suite1', '--board', 'board-0-*',
        '--arch', 'x86_64')
    wait_for('B sees the drop', lambda: len(marks(net, b)) == 1, 60)
    out, js = compare(net, b, 1)
    check(js['summary']['regressions'] == 6 and js['summary']['known'] == 0,
          'after the drop the failure is a regression again')
    dash_known(http, link, [])
    every = marks(net, b, '--all')
    check(len(every) == 2 and [m['expired'] for m in every
                               if m['test'] == 'suite1'] == [True],
          'known list --all shows the dropped mark as expired')
    doc = json.loads(ask(net, b, 'export', '--kcidb', '--commit',
                         commit(1))[0])
    check('issues' not in doc and 'incidents' not in doc,
          'an expired mark is no issue in the export')

    # a mark that runs out by itself no longer applies
    soon = time.strftime('%Y-%m-%dT%H:%M:%S',
                         time.gmtime(time.time() + 5))
    ask(net, a, 'known', 'add', '--test', 'suite0', '--expires', soon)
    wait_for('B holds the short mark', lambda: len(marks(net, b, '--all'))
             == 3, 60)
    wait_for('the short mark expires', lambda: [
        m['expired'] for m in marks(net, b, '--all')
        if m['test'] == 'suite0'] == [True], 60, 0.5)
    out, js = compare(net, b, 1)
    check(js['summary']['regressions'] == 6 and js['summary']['known'] == 0,
          'an expired mark covers nothing: %r' % js['summary'])
    for n in (a, b):
        check(ask(net, n, 'store', 'check')[0].endswith('store ok\n'),
              'store check on %s' % n.name)


lmtest.main(test)
