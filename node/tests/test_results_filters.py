#!/usr/bin/env python3
"""Each query filter selects exactly the rows it should.

The test lays out seven runs itself (lm-mkruns signs and stores them):
three labs, boards whose names recur across labs, three archs, two trees,
three branches (one on both trees), four commits, three suites, every case
status, and end times from 40 days to an hour ago. For each of --commit
(full and prefix), --branch, --tree, --board, --lab, --arch, --suite,
--path (glob and dotted prefix), --status, --since and some combinations,
it computes the expected cases from that layout and asserts that
`query --list --json` and `query --list` show exactly those and nothing
else; that `export --junit` (accepted by xmllint) and `export --kcidb`
carry exactly the same cases under --lab, --suite, --status and
combinations; and that `history PATH` gives each run's status and metric
value for that path across commits and boards, newest first.

usage: test_results_filters.py LM_RESULTS LM_MKRUNS
"""
import fnmatch
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET

LM, MK = sys.argv[1], sys.argv[2]
T1 = 'https://git.kernel.org/pub/scm/linux/kernel/git/torvalds/linux.git'
T2 = 'https://git.kernel.org/pub/scm/linux/kernel/git/next/linux-next.git'
C = {i: ('%x' % (0xa1 * i)) * 40 for i in range(1, 5)}
C = {i: c[:40] for i, c in C.items()}
NOW = int(time.time() * 1000)
H = 3600 * 1000
D = 24 * H

# lab, board, arch, tree, branch, commit, end (ms ago), seed,
# [(suite, [(case, status)], {metric: value})]
RUNS = [
    ('lab-a', 'qemu-x', 'x86_64', T1, 'master', C[1], 40 * D, 1,
     [('kselftest', [('net.a', 'PASS'), ('net.b', 'FAIL'),
                     ('timers.x', 'PASS')], {'lat': 100}),
      ('smoke', [('boot', 'PASS')], {})]),
    ('lab-a', 'rpi4', 'aarch64', T1, 'master', C[1], 10 * D, 1,
     [('kselftest', [('net.a', 'FAIL'), ('timers.x', 'SKIP')], {'lat': 90}),
      ('ltp', [('syscalls.open', 'PASS'), ('syscalls.read', 'ERROR')], {})]),
    ('lab-b', 'qemu-x', 'x86_64', T2, 'next', C[2], 2 * H, 2,
     [('kselftest', [('net.a', 'PASS'), ('net.b', 'PASS')], {'lat': 120}),
      ('ltp', [('syscalls.open', 'FAIL')], {})]),
    ('lab-b', 'bbb', 'riscv64', T2, 'next', C[2], 3 * D, 2,
     [('smoke', [('boot', 'FAIL')], {}),
      ('kselftest', [('timers.y', 'PASS')], {})]),
    ('lab-c', 'rpi4', 'aarch64', T1, 'stable', C[3], 1 * H, 3,
     [('ltp', [('syscalls.open', 'PASS'), ('mm.oom', 'MISS')], {}),
      ('smoke', [('boot', 'PASS')], {})]),
    ('lab-a', 'qemu-x', 'x86_64', T1, 'stable', C[3], 20 * D, 1,
     [('kselftest', [('net.a', 'ERROR')], {'lat': 150}),
      ('smoke', [('boot', 'SKIP')], {})]),
    ('lab-c', 'bbb', 'riscv64', T2, 'master', C[4], 5 * D, 3,
     [('kselftest', [('net.b', 'FAIL'), ('net.a', 'PASS')], {'lat': 80})]),
]


def suite_status(cases):
    st = [s for _, s in cases]
    for s in ('ERROR', 'FAIL'):
        if s in st:
            return s
    return 'PASS'


def spec():
    out = []
    for (lab, board, arch, tree, branch, commit, ago, seed, suites) in RUNS:
        out.append('run %d %s %s %s %s %s %s %d' % (
            seed, lab, board, arch, tree, branch, commit, NOW - ago))
        for suite, cases, metrics in suites:
            out.append('suite %s %s' % (suite, suite_status(cases)))
            for c, s in cases:
                out.append('case %s %s' % (c, s))
            for m, v in metrics.items():
                out.append('metric %s %s ms lower' % (m, v))
        out.append('end')
    return '\n'.join(out) + '\n'


def rows():
    """Every case of the layout with the run facts it is filtered by."""
    for i, (lab, board, arch, tree, branch, commit, ago, _, suites) in \
            enumerate(RUNS):
        for suite, cases, _ in suites:
            for c, s in cases:
                yield dict(i=i, lab=lab, board=board, arch=arch, tree=tree,
                           branch=branch, commit=commit, end=NOW - ago,
                           suite=suite, path=suite + '.' + c, status=s)


failures = []


def check(cond, what):
    print('%s: %s' % ('ok' if cond else 'FAIL', what))
    if not cond:
        failures.append(what)


def run(*args, ok=(0,)):
    p = subprocess.run([LM] + list(args), capture_output=True, text=True,
                       timeout=60)
    if p.returncode not in ok:
        raise SystemExit('lm-results %s: exit %d: %s' %
                         (' '.join(args), p.returncode, p.stderr))
    return p.stdout


def key(r):
    return (r['lab'], r['board'], r['commit'], r['path'], r['status'])


def listed(home, args):
    js = json.loads(run('query', '--home', home, '--list', '--json', *args))
    got = sorted(key(c) for c in js['cases'])
    text = run('query', '--home', home, '--list', *args)
    rows = text.splitlines()
    check(not rows or rows[0].split()[:3] == ['TIME', 'LAB', 'BOARD'],
          'the list has a header')
    # TIME (date, hour) LAB BOARD COMMIT RUN CASE STATUS DURATION
    lines = sorted(tuple(ln.split()[2:4] + ln.split()[6:8])
                   for ln in rows[1:] if ln.strip())
    return got, lines


def want(pred):
    return sorted(key(r) for r in rows() if pred(r))


def text_key(k):
    return (k[0], k[1], k[3], k[4])


def test_list(home, ids):
    since_10d = NOW - 10 * D - H  # run 1 ended exactly 10 days ago
    cases = [
        (['--commit', C[1]], lambda r: r['commit'] == C[1]),
        (['--commit', C[2][:10]], lambda r: r['commit'] == C[2]),
        (['--branch', 'master'], lambda r: r['branch'] == 'master'),
        (['--branch', 'stable'], lambda r: r['branch'] == 'stable'),
        (['--tree', T2], lambda r: r['tree'] == T2),
        (['--board', 'qemu-x'], lambda r: r['board'] == 'qemu-x'),
        (['--board', 'rpi4'], lambda r: r['board'] == 'rpi4'),
        (['--lab', 'lab-b'], lambda r: r['lab'] == 'lab-b'),
        (['--lab', 'lab-c'], lambda r: r['lab'] == 'lab-c'),
        (['--arch', 'aarch64'], lambda r: r['arch'] == 'aarch64'),
        (['--arch', 'riscv64'], lambda r: r['arch'] == 'riscv64'),
        (['--suite', 'ltp'], lambda r: r['suite'] == 'ltp'),
        (['--suite', 'smoke'], lambda r: r['suite'] == 'smoke'),
        (['--path', '*.net.?'],
         lambda r: fnmatch.fnmatchcase(r['path'], '*.net.?')),
        (['--path', 'kselftest.timers'],
         lambda r: r['path'].startswith('kselftest.timers.')),
        (['--path', 'ltp.syscalls.[o]*'],
         lambda r: fnmatch.fnmatchcase(r['path'], 'ltp.syscalls.[o]*')),
        (['--status', 'FAIL'], lambda r: r['status'] == 'FAIL'),
        (['--status', 'ERROR,MISS,SKIP'],
         lambda r: r['status'] in ('ERROR', 'MISS', 'SKIP')),
        (['--since', '4d'], lambda r: r['end'] >= NOW - 4 * D),
        (['--since', '12h'], lambda r: r['end'] >= NOW - 12 * H),
        (['--since', time.strftime('%Y-%m-%dT%H:%M',
                                   time.gmtime(since_10d / 1000))],
         lambda r: r['end'] >= since_10d // 60000 * 60000),
        (['--lab', 'lab-a', '--status', 'FAIL,ERROR'],
         lambda r: r['lab'] == 'lab-a' and r['status'] in ('FAIL', 'ERROR')),
        (['--tree', T1, '--branch', 'master', '--suite', 'kselftest'],
         lambda r: r['tree'] == T1 and r['branch'] == 'master' and
         r['suite'] == 'kselftest'),
        (['--board', 'bbb', '--arch', 'riscv64', '--since', '4d'],
         lambda r: r['board'] == 'bbb' and r['end'] >= NOW - 4 * D),
        (['--arch', 'x86_64', '--path', 'kselftest.net'],
         lambda r: r['arch'] == 'x86_64' and
         r['path'].startswith('kselftest.net.')),
    ]
    total = len(list(rows()))
    for args, pred in cases:
        exp = want(pred)
        got, lines = listed(home, args)
        check(exp and len(exp) < total,
              '%s: the layout discriminates (%d of %d)' %
              (' '.join(args), len(exp), total))
        check(got == exp, '%s: --json lists exactly %d expected cases%s' % (
            ' '.join(args), len(exp),
            '' if got == exp else ' (got %r, want %r)' % (got, exp)))
        check(lines == sorted(text_key(k) for k in exp),
              '%s: text lists exactly the same' % ' '.join(args))
    # no filter: everything; a filter matching nothing: nothing
    check(listed(home, [])[0] == want(lambda r: True), 'no filter: all')
    check(listed(home, ['--lab', 'lab-a', '--arch', 'riscv64'])[0] == [],
          'a combination no run has: no rows')


JUNIT_FILTERS = [
    (['--lab', 'lab-b'], lambda r: r['lab'] == 'lab-b'),
    (['--suite', 'ltp'], lambda r: r['suite'] == 'ltp'),
    (['--status', 'FAIL,ERROR'], lambda r: r['status'] in ('FAIL', 'ERROR')),
    (['--lab', 'lab-a', '--suite', 'kselftest', '--status', 'PASS,FAIL'],
     lambda r: r['lab'] == 'lab-a' and r['suite'] == 'kselftest' and
     r['status'] in ('PASS', 'FAIL')),
    (['--arch', 'aarch64', '--since', '4d'],
     lambda r: r['arch'] == 'aarch64' and r['end'] >= NOW - 4 * D),
]

JUNIT_KIND = {'failure': 'FAIL', 'error': 'ERROR', 'skipped': 'SKIP'}
JUNIT_WANT = {'PASS': 'PASS', 'FAIL': 'FAIL', 'ERROR': 'ERROR',
              'SKIP': 'SKIP', 'MISS': 'SKIP'}


def junit_cases(xml):
    """(lab.board.suite, case, kind) per testcase; kind from its child:
    <failure> FAIL, <error> ERROR, <skipped> SKIP (SKIP and MISS), none
    PASS."""
    out = []
    for tc in ET.fromstring(xml).iter('testcase'):
        kind = 'PASS'
        for child in tc:
            kind = JUNIT_KIND.get(child.tag, kind)
        out.append((tc.get('classname'), tc.get('name'), kind))
    return sorted(out)


def junit_want(pred):
    return sorted(('%s.%s.%s' % (r['lab'], r['board'], r['suite']),
                   r['path'].split('.', 1)[1], JUNIT_WANT[r['status']])
                  for r in rows() if pred(r))


def test_junit(home, tmp):
    path = os.path.join(tmp, 'junit.xml')
    for args, pred in JUNIT_FILTERS:
        xml = run('export', '--home', home, '--junit', *args)
        with open(path, 'w') as f:
            f.write(xml)
        p = subprocess.run(['xmllint', '--noout', path], capture_output=True,
                           text=True)
        check(p.returncode == 0, 'junit %s: xmllint accepts it %s' %
              (' '.join(args), p.stderr[:200]))
        suites = sorted(ts.get('name') for ts in
                        ET.fromstring(xml).iter('testsuite'))
        want_suites = sorted({(r['i'], '%s/%s/%s' % (
            r['lab'], r['board'], r['suite'])) for r in rows() if pred(r)})
        want_suites = sorted(n for _, n in want_suites)
        check(suites == want_suites,
              'junit %s: one testsuite per selected run and suite%s' % (
                  ' '.join(args), '' if suites == want_suites else
                  ' (got %r, want %r)' % (suites, want_suites)))
        got, exp = junit_cases(xml), junit_want(pred)
        check(got == exp, 'junit %s: exactly the %d expected testcases%s' % (
            ' '.join(args), len(exp),
            '' if got == exp else ' (got %r, want %r)' % (got, exp)))


def test_kcidb(home):
    for args, pred in JUNIT_FILTERS:
        doc = json.loads(run('export', '--home', home, '--kcidb', '--origin',
                             'lab_mesh', *args))
        tests = doc.get('tests', [])
        got = sorted((t['misc']['lab'], t['misc']['board'], t['path'],
                      t['status']) for t in tests if ':c:' in t['id'])
        exp = sorted((r['lab'], r['board'], r['path'], r['status'])
                     for r in rows() if pred(r))
        check(got == exp, 'kcidb %s: exactly the %d expected case tests%s' % (
            ' '.join(args), len(exp),
            '' if got == exp else ' (got %r, want %r)' % (got, exp)))
        # suite and metric entries only of selected runs and suites
        sel = {(r['lab'], r['board'], r['suite']) for r in rows()
               if pred(r)}
        other = [(t['misc']['lab'], t['misc']['board'],
                  t['path'].split('.')[0]) for t in tests
                 if ':c:' not in t['id']]
        check(all(o in sel for o in other),
              'kcidb %s: suite and metric entries only of selected suites'
              % ' '.join(args))
        builds = {b['id'] for b in doc.get('builds', [])}
        check(all(t['build_id'] in builds for t in tests),
              'kcidb %s: every test names an exported build' % ' '.join(args))
        check(len(builds) == len({(r['i']) for r in rows() if pred(r)}),
              'kcidb %s: one build per selected run' % ' '.join(args))


def test_history(home):
    # kselftest.net.a across commits and boards: newest first
    js = json.loads(run('history', '--home', home, '--json',
                        'kselftest.net.a'))
    rowsj = js.get('rows', js.get('history', []))
    exp = []
    for (lab, board, arch, tree, branch, commit, ago, _, suites) in RUNS:
        for suite, cases, metrics in suites:
            for c, s in cases:
                if suite + '.' + c == 'kselftest.net.a':
                    exp.append((NOW - ago, lab, board, commit, s))
    exp.sort(reverse=True)
    got = [(r['lab'], r['board'], r['commit'], r['status']) for r in rowsj]
    check(got == [e[1:] for e in exp],
          'history kselftest.net.a: %d rows, statuses newest first%s' % (
              len(exp), '' if got == [e[1:] for e in exp] else
              ' (got %r, want %r)' % (got, [e[1:] for e in exp])))
    # a metric: its value per run, newest first
    js = json.loads(run('history', '--home', home, '--json',
                        'kselftest.lat'))
    rowsj = js.get('rows', js.get('history', []))
    exp = sorted(((NOW - ago, lab, board, commit, float(metrics['lat']))
                  for (lab, board, _, _, _, commit, ago, _, suites) in RUNS
                  for suite, _, metrics in suites if 'lat' in metrics),
                 reverse=True)
    got = [(r['lab'], r['board'], r['commit'], float(r['value']))
           for r in rowsj]
    check(got == [e[1:] for e in exp],
          'history kselftest.lat: %d metric values newest first%s' % (
              len(exp), '' if got == [e[1:] for e in exp] else
              ' (got %r, want %r)' % (got, [e[1:] for e in exp])))
    # narrowed by board: only that board's runs
    js = json.loads(run('history', '--home', home, '--json', '--board',
                        'qemu-x', 'kselftest.net.a'))
    rowsj = js.get('rows', js.get('history', []))
    got = [(r['lab'], r['commit'], r['status']) for r in rowsj]
    exp = sorted(((NOW - ago, lab, commit, s)
                  for (lab, board, _, _, _, commit, ago, _, suites) in RUNS
                  if board == 'qemu-x'
                  for suite, cases, _ in suites for c, s in cases
                  if suite + '.' + c == 'kselftest.net.a'), reverse=True)
    check(got == [e[1:] for e in exp],
          'history --board qemu-x kselftest.net.a%s' % (
              '' if got == [e[1:] for e in exp] else
              ' (got %r, want %r)' % (got, [e[1:] for e in exp])))


def main():
    tmp = tempfile.mkdtemp(prefix='lm-filters-')
    try:
        home = os.path.join(tmp, 'home')
        os.makedirs(home)
        p = subprocess.run([MK, home], input=spec(), capture_output=True,
                           text=True, timeout=60)
        if p.returncode != 0:
            raise SystemExit('lm-mkruns: %s' % p.stderr)
        ids = p.stdout.split()
        check(len(ids) == len(RUNS), '%d runs stored' % len(RUNS))
        test_list(home, ids)
        test_junit(home, tmp)
        test_kcidb(home)
        test_history(home)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print('%d failed' % len(failures))
    sys.exit(1 if failures else 0)


main()
