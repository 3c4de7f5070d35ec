#!/usr/bin/env python3
"""The KCIDB export of a real run, as a KCIDB dashboard would take it.

One lab with a local board serves the dashboard (`--http`). A request
without a kernel runs smoke and `probe`, a suite of the test's own with a
passing, a failing and a skipped case; the board's machine is written as DT
compatibles. The export must validate against
the upstream v5.3 schema with format checking; its checkout must say the
kernel is the board's running one (tree_name, git_commit_name = uname
-r, a comment, misc.kernel); the build must have a status; the failed
case a comment and a log_excerpt holding the failed line and its
diagnostics; every log_url must point at the dashboard, and fetching one
must give the suite's log. --log-base with a trailing '/' gives no '//';
exporting a commit with no runs says so and exits 1. Every case has a
real duration: probe's cases their wall clock (they sleep 300 and 400
ms), in the export, the list view and JUnit (no time="0.000": a case the
host could not time gets a labelled share of its suite's time).

usage: test_results_kcidb_real.py LABMESH
"""
import json
import os
import sys
import urllib.request

sys.path.insert(0, os.path.dirname(__file__))
import kcidb_check  # noqa: E402
from jobstest import (Net, check, local_board, main, wait_for,  # noqa: E402
                      write_suite)

PROBE_YAML = ('name: probe\nversion: 1\nkind: functional\n'
              'description: one case of each verdict\ntimeout: 60\n'
              'parser: tap\n')
PROBE_SH = '''#!/bin/sh
echo "1..3"
sleep 0.3
echo "ok 1 - works"
sleep 0.4
echo "not ok 2 - broken"
echo "# expected 42, got 41"
echo "# at probe line 7"
echo "ok 3 - later # SKIP not here"
echo "# metric probe_ms 100 ms"
'''


def test(net):
    base = net.base(17940)
    d = os.path.join(net.dir, 'suites')
    write_suite(d, 'probe', PROBE_YAML, PROBE_SH)
    write_suite(d, 'skipper', PROBE_YAML.replace('probe', 'skipper'),
                '#!/bin/sh\necho "1..0 # SKIP nothing to test here"\n')
    os.symlink(os.path.join(net.root, 'suites', 'smoke'),
               os.path.join(d, 'smoke'))
    net.env['LABMESH_SUITES'] = d
    # a machine written as DT compatibles is exported as such
    n = net.node('lab-k', base, [local_board('box').replace(
        'tags:', 'machine: "raspberrypi,4-model-b brcm,bcm2711", tags:')])
    http = base + 1
    n.start(args=['--http', '127.0.0.1:%d' % http])
    p = n.cli('submit', '--suite', 'smoke,probe,skipper', '--wait',
              check_rc=False, timeout=180)
    check(p.returncode == 1, 'submit --wait of a failing suite exits 1: %d'
          % p.returncode)
    req = p.stdout.split()[1]
    doc = json.loads(n.cmd('export', '--kcidb', '--request', req))
    errs = kcidb_check.errors(doc)
    for e in errs[:5]:
        print('schema:', list(e.path), e.message)
    check(not errs, 'the export validates (upstream schema, formats)')

    release = os.uname().release
    co = doc['checkouts']
    check(len(co) == 1, 'one checkout: %d' % len(co))
    c = co[0]
    check(c.get('tree_name') == 'running-kernel' and
          c.get('git_commit_name') == release and
          c['misc'].get('kernel') == 'running' and
          "the board's own kernel" in c.get('comment', ''),
          'the checkout says it is the running kernel %s: %s' % (release, c))
    b = doc['builds'][0]
    check(b.get('status') == 'PASS' and 'not built' in b.get('comment', ''),
          'the build has a status and says nothing was built: %s' % b)

    tests = {t['path']: t for t in doc['tests']}
    compat = {tuple(t['environment'].get('compatible', [])) for t in
              doc['tests']}
    check(compat == {('raspberrypi,4-model-b', 'brcm,bcm2711')},
          'environment.compatible from the board\'s machine: %r' % compat)
    bad = tests.get('probe.broken', {})
    check(bad.get('status') == 'FAIL', 'probe.broken FAILs: %s' % bad)
    x = bad.get('log_excerpt', '')
    check('not ok 2 - broken' in x and 'expected 42, got 41' in x and
          'ok 1 - works' not in x,
          'the excerpt is the failed line and its diagnostics: %r' % x)
    suite = tests.get('probe', {})
    check('not ok 2 - broken' in suite.get('log_excerpt', ''),
          'the failed suite has an excerpt too: %s' % suite)
    check(all('log_excerpt' in t for t in doc['tests']
              if t.get('status') in ('FAIL', 'ERROR')),
          'every failure has a log_excerpt')

    dash = 'http://127.0.0.1:%d/api/log?run=' % http
    urls = [t['log_url'] for t in doc['tests'] if 'log_url' in t]
    check(urls and all(u.startswith(dash) for u in urls),
          'every log_url is on the dashboard: %s' % urls[:2])
    check(all('//' not in u.split('://', 1)[1] for u in urls),
          'no // in a log_url')
    with urllib.request.urlopen(bad['log_url'], timeout=10) as r:
        text = r.read().decode()
        check(r.status == 200 and 'not ok 2 - broken' in text,
              'the failed case\'s log_url gives its log: %r' % text[:200])
    print('log_url %s: %d bytes' % (bad['log_url'], len(text)))

    other = json.loads(n.cmd('export', '--kcidb', '--request', req,
                             '--log-base', 'https://logs.example.org/b/'))
    urls = [t['log_url'] for t in other['tests'] if 'log_url' in t]
    check(urls and all(u.startswith('https://logs.example.org/b/') and
                       '//' not in u.split('://', 1)[1] for u in urls),
          '--log-base ending in / gives no //: %s' % urls[:1])

    works, broken = tests.get('probe.works', {}), bad
    check(0.25 <= works.get('duration', 0) < 5 and
          0.35 <= broken.get('duration', 0) < 5,
          'probe cases have their wall clock: %s, %s' % (
              works.get('duration'), broken.get('duration')))
    cases = [t for t in doc['tests'] if t['path'].count('.') and
             'number' not in t]
    timed = [t for t in cases if t.get('duration', 0) > 0]
    # how many others are timed depends on the machine's load: output
    # lines that reach the host together cannot be told apart (they
    # get a labelled share of their suite's time below), so it is shown
    # here, not asserted; the sleeping probe cases are
    listed = n.cmd('query', '--request', req, '--list').splitlines()
    check(listed[0].split()[:3] == ['TIME', 'LAB', 'BOARD'],
          'the list has a header: %r' % listed[0])
    check(not [ln for ln in listed[1:] if ' 0 ms' in ln],
          'no case lists 0 ms:\n' + '\n'.join(listed[:8]))
    junit = n.cmd('export', '--junit', '--request', req)
    check('time="0.000"' not in junit and 'testcase' in junit,
          'no JUnit case has time 0.000')
    print('durations: probe.works %.3f s, probe.broken %.3f s; %d of %d'
          ' cases timed' % (works.get('duration', 0),
                            broken.get('duration', 0), len(timed),
                            len(cases)))

    mx = n.cmd('query', '--request', req, '--matrix').splitlines()
    check(mx[0] == 'kernel %s (no commit)' % release,
          'the matrix names the kernel: %r' % mx[0])
    row = [ln for ln in mx if ln.startswith('box ')]
    check(row and row[0].split()[6] == 'SKIP:' and '0/0/0' not in row[0] and
          'SKIP: nothing to test here' in row[0] and
          '1/1/1 100 ms' in row[0],
          'a suite that skipped whole says SKIP and why, a metric shows: %r'
          % mx)
    hist = n.cmd('history', 'probe.*').splitlines()
    check(hist[0].split()[:3] == ['TIME', 'LAB', 'BOARD'] and
          len(hist) == 5 and sum('probe_ms' in ln for ln in hist) == 1 and
          '100 ms' in [ln for ln in hist if 'probe_ms' in ln][0],
          'history: a header, each test and metric once:\n' +
          '\n'.join(hist))

    p = n.cli('export', '--kcidb', '--commit', '0' * 40, check_rc=False)
    check(p.returncode == 1 and p.stdout == '' and
          'nothing to export' in p.stderr,
          'a commit with no runs: exit %d, %r' % (p.returncode, p.stderr))
    p = n.cli('export', '--junit', '--commit', '0' * 40, check_rc=False)
    check(p.returncode == 1 and 'nothing to export' in p.stderr,
          'the same for JUnit: exit %d, %r' % (p.returncode, p.stderr))
    print('export of a commit with no runs: %s' % p.stderr.strip())


if __name__ == '__main__':
    main(test, Net)
