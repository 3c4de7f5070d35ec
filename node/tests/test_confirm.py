#!/usr/bin/env python3
"""Regressions the network confirms by re-running them, on two real
nodes: lab-cf with two local boards of the same arch (`good` and `bad`,
each with its own work folder), lab-cf2 with one more (`far`), and three
fixture suites:

  flaky   its one test fails every third time it runs, on any board (a
          counter file): after two passes on `good`, the third run fails;
          lab-cf re-runs it three times on `good` and once on each other
          board of the arch (`bad`, and `far` in the other lab) and signs
          a verdict: flaky, four of the five re-runs passed
  broken  passes until the change (a file the test makes), then fails
          on every board: confirmed
  picky   after the change fails only in `bad`'s work folder:
          board-specific (fails every re-run on `bad`, passes on `good`
          and `far`)

Each verdict is read back from `labmesh confirm --list`, from compare
(JSON and text) between the board's last passing run and the failing
one, from `query --run` and from the KCIDB export. `labmesh confirm`
asked by hand on a run without a regression confirms every failed test;
bad ids are refused.

usage: test_confirm.py LABMESH
"""
import json
import os
import sys
import urllib.request

sys.path.insert(0, os.path.dirname(__file__))
from jobstest import Net, check, main, wait_for, write_suite  # noqa: E402
import lmtest  # noqa: E402
import kcidb_check  # noqa: E402

WANT = 17480
YAML = ('name: %s\nversion: 1\nkind: functional\ndescription: fixture\n'
        'timeout: 60\nparser: tap\n')
FLAKY = '''#!/bin/sh
# fails every third run, whatever the board (a counter under a lock)
exec 9>"%(dir)s/flaky.lock"
flock 9
n=$(( $(cat "%(dir)s/flaky.count" 2>/dev/null || echo 0) + 1 ))
echo $n > "%(dir)s/flaky.count"
echo "1..1"
if [ $((n %% 3)) -eq 0 ]; then echo "not ok 1 - tick"; else echo "ok 1 - tick"; fi
'''
BROKEN = '''#!/bin/sh
echo "1..1"
if [ -e "%(dir)s/changed" ]; then echo "not ok 1 - feature"; else echo "ok 1 - feature"; fi
'''
PICKY = '''#!/bin/sh
echo "1..1"
case "$(pwd)" in
*/wd-bad*) [ -e "%(dir)s/changed" ] && { echo "not ok 1 - quirk"; exit 0; } ;;
esac
echo "ok 1 - quirk"
'''


def board(name, d):
    wd = os.path.join(d, 'wd-' + name)
    os.makedirs(wd, exist_ok=True)
    return ('  - {name: %s, arch: %s, tags: [local], transport: {type: local,'
            ' workdir: %s}, boot: {method: none}}\n'
            % (name, os.uname().machine, wd))


def run_on(n, suite, b):
    """Submit suite to board b, wait for its run: (request, run id,
    status)."""
    req = n.cli('submit', '--suite', suite, '--board', b).stdout.split()[1]

    def done():
        st = n.req_status(req) or {}
        bs = [x for lab in st.get('labs', []) for x in lab['boards']]
        return bs[0] if bs and bs[0].get('final') and bs[0].get('run') \
            else None
    got = wait_for('%s on %s' % (suite, b), done, 60, 0.1)[0]
    return req, got['run'], got['status']


def confirms(n):
    return n.json('confirm', '--list')


def settled(n, count):
    def ok():
        c = confirms(n)
        return c if len(c) >= count and all(
            x['state'] in ('done', 'none') for x in c) else None
    return wait_for('%d confirmations settled' % count, ok, 240, 0.5)[0]


def verdict_of(n, base, new, path):
    js = json.loads(n.cli('--json', 'compare', base, new,
                          check_rc=False).stdout)
    for b in js['boards']:
        for x in b['regressions']:
            if x['path'] == path:
                return x.get('verdict')
    return None


def dashboard(http, base, new):
    """The compare API's answer, and the compare page as chromium renders
    it (None when chromium is not installed)."""
    url = 'http://127.0.0.1:%d' % http
    with urllib.request.urlopen('%s/api/compare?base=%s&new=%s' %
                                (url, base, new), timeout=30) as r:
        api = json.loads(r.read())
    return api, page(http, 'compare.html?base=%s&new=%s' % (base, new))


def page(http, path):
    """The page at path as chromium renders it, or None without one."""
    if not lmtest.BROWSER:
        return None
    return lmtest.chromium('http://127.0.0.1:%d/%s' % (http, path),
                           '--dump-dom', timeout=90)


def test(net):
    d = os.path.join(net.dir, 'suites')
    for name, sh in (('flaky', FLAKY), ('broken', BROKEN), ('picky', PICKY)):
        write_suite(d, name, YAML % name, sh % {'dir': net.dir})
    net.env['LABMESH_SUITES'] = d
    base = net.base(WANT)
    http = base + 5
    n = net.node('lab-cf', base,
                 [board('good', net.dir), board('bad', net.dir)]).start(
                     args=['--http', '127.0.0.1:%d' % http])
    far = net.node('lab-cf2', base + 1, [board('far', net.dir)],
                   seeds=[n]).start()
    wait_for('lab-cf sees the other lab\'s board', lambda: any(
        b['board'] == 'far' for b in n.json('boards')), 60, 0.2)

    # flaky: pass, pass, fail on good -> re-runs by themselves
    _, r1, s1 = run_on(n, 'flaky', 'good')
    _, r2, s2 = run_on(n, 'flaky', 'good')
    req3, r3, s3 = run_on(n, 'flaky', 'good')
    check((s1, s2, s3) == ('PASS', 'PASS', 'FAIL'), 'flaky ran %s %s %s'
          % (s1, s2, s3))
    c = settled(n, 1)
    print(n.cmd('confirm', '--list'))
    check(c[0]['run'] == r3 and c[0]['state'] == 'done' and
          c[0]['tests'] == 'flaky.tick\n' and c[0]['requests'] == 4,
          'the failing run was confirmed by itself: %r' % c)
    v = verdict_of(n, r2[:16], r3[:16], 'flaky.tick')
    check(v and v['verdict'] == 'flaky' and v['runs'] == 3 and
          v['other_runs'] == 2 and v['passes'] + v['other_passes'] == 4,
          'flaky, 4 of 5 re-runs passed: %r' % v)
    out = n.cli('compare', r2[:16], r3[:16], check_rc=False).stdout
    print(out)
    check('[flaky (%d of 3 re-runs passed here, %d of 2 on other boards)]'
          % (v['passes'], v['other_passes']) in out,
          'compare text says flaky')

    rep = n.cli('report', req3, check_rc=False)
    print(rep.stdout)
    check(rep.returncode == 1 and 'New regressions (1;' in rep.stdout and
          'flaky.tick  flaky (' in rep.stdout, 'report shows the verdict')

    # broken: fails everywhere after the change -> confirmed
    _, b1, _ = run_on(n, 'broken', 'good')
    open(os.path.join(net.dir, 'changed'), 'w').close()
    _, b2, st = run_on(n, 'broken', 'good')
    check(st == 'FAIL', 'broken fails after the change')
    settled(n, 2)  # its re-runs see the change
    # picky: fails on bad only after the change -> board-specific
    _, p1, _ = run_on(n, 'picky', 'bad')
    os.unlink(os.path.join(net.dir, 'changed'))
    _, p0, _ = run_on(n, 'picky', 'bad')  # passes again, before the change
    open(os.path.join(net.dir, 'changed'), 'w').close()
    _, p2, st = run_on(n, 'picky', 'bad')
    check(st == 'FAIL', 'picky fails on bad after the change')
    settled(n, 3)
    v = verdict_of(n, b1[:16], b2[:16], 'broken.feature')
    check(v and v['verdict'] == 'confirmed' and v['passes'] == 0 and
          v['runs'] == 3 and v['other_runs'] == 2 and
          v['other_passes'] == 0, 'broken is confirmed: %r' % v)
    v = verdict_of(n, p0[:16], p2[:16], 'picky.quirk')
    check(v and v['verdict'] == 'board-specific' and v['passes'] == 0 and
          v['runs'] == 3 and v['other_passes'] == v['other_runs'] == 2,
          'picky is board-specific: %r' % v)
    # the other lab ran its share and holds the verdicts too
    vf = verdict_of(far, p0[:16], p2[:16], 'picky.quirk')
    check(vf == v, 'lab-cf2 reads the same verdict: %r' % vf)

    # query and the KCIDB export carry the verdict too
    q = n.cmd('query', '--run', p2[:16])
    check('board-specific' in q, 'query shows the verdict:\n' + q)
    k = json.loads(n.cmd('export', '--kcidb', '--run', b2[:16]))
    tests = [t for t in k['tests'] if t.get('path') == 'broken.feature']
    check(tests and tests[0].get('misc', {}).get('verdict') == 'confirmed',
          'KCIDB test misc.verdict: %r' % tests[:1])
    errs = kcidb_check.errors(k)
    check(not errs, 'the export validates against KCIDB v5.3: %s' % errs)

    # the dashboard's compare page
    api, dom = dashboard(http, p0[:16], p2[:16])
    regs = [x for b in api['boards'] for x in b['regressions']]
    check(regs and regs[0]['verdict']['verdict'] == 'board-specific',
          'the compare API carries the verdict: %r' % regs)
    if dom is not None:
        check('class="verdict board-specific"' in dom and
              'board-specific: passed 2 of 2 on other boards' in dom,
              'the compare page shows the verdict')
        dom = page(http, 'cases.html?run=' + p2)
        check('class="verdict board-specific"' in dom,
              'the run\'s cases page shows the verdict')

    # asked by hand: a run whose failure regressed nothing (p1 passed;
    # b2 is done already) -> every failed test of it
    before = len(confirms(n))
    out = n.cmd('confirm', p2[:12])
    check('confirming run' in out, 'confirm RUN: ' + out)
    check(len(settled(n, before + 1)) == before + 1, 'asked confirmation')
    p = n.cli('confirm', 'xyz123', check_rc=False)
    check(p.returncode != 0 and 'hex' in p.stderr, 'a non-hex id: ' + p.stderr)
    p = n.cli('confirm', 'abcdef0123', check_rc=False)
    check(p.returncode != 0 and 'no run or request' in p.stderr,
          'an unknown id: ' + p.stderr)

    # policy.confirm.per_day bounds the re-run requests the lab starts:
    # 16 started so far today; 16 a day leaves no room for 4 more
    started = sum(x['requests'] for x in confirms(n))
    check(started == 16, 'requests started: %d' % started)
    n.stop()
    n.extra = 'policy:\n  confirm: {per_day: 16}\n'
    n.start(args=['--http', '127.0.0.1:%d' % http])
    n.cmd('confirm', b2[:12])
    c = settled(n, before + 2)[-1]
    check(c['state'] == 'none' and 'policy.confirm.per_day' in c['text'],
          'over the daily bound the confirmation is refused: %r' % c)
    check(n.cmd('store', 'check').endswith('store ok\n'), 'store check')


main(test, Net)
