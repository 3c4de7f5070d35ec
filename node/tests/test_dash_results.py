#!/usr/bin/env python3
"""The dashboard pages maintainers read, over a real run, in chromium.

One lab with a local board serves the dashboard; two requests without a
kernel run smoke and `probe` (a failing case). Driven over WebDriver:
the network page lists the requests with submitter and state columns
and marks the oldest commit instead of comparing it with itself; a
request page shows submitter, kernel, suites, submit and expiry times;
a log has numbered lines, each an anchor, the failed line highlighted
and a raw download link; compare of the two requests says "0
regressions" without the alarm colour; the matrix filters by tree,
branch and date and has a search box, and a suite that SKIPped as a
whole (kselftest, not installed) says why in its cell; history offers
the tests to pick.
Screenshots: BUILD/dash-shots/results-*.png.

usage: test_dash_results.py LABMESH BUILD
"""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
import webdriver  # noqa: E402
from jobstest import (Net, check, local_board, main,  # noqa: E402
                      write_suite)
from lmtest import Fail, Skip  # noqa: E402

PROBE_YAML = ('name: probe\nversion: 1\nkind: functional\n'
              'description: one case of each verdict\ntimeout: 60\n'
              'parser: tap\n')
PROBE_SH = '''#!/bin/sh
echo "1..2"
echo "ok 1 - works"
sleep 0.2
echo "not ok 2 - broken"
echo "# expected 42, got 41"
echo "# metric probe_ms 100 ms"
'''


def shot(b, shots, name):
    path = os.path.join(shots, 'results-%s.png' % name)
    b.screenshot(path)
    print('screenshot', path)


KS_WHY = 'no kselftest install (run_kselftest.sh) on this board'
JS_SKIP_CELL = """
    const c = document.querySelector('#matrix td[data-suite=kselftest]');
    return c && [c.dataset.status,
                 c.querySelector('span.counts').textContent,
                 c.getAttribute('title')];"""


def test(net):
    if not webdriver.DRIVER or not webdriver.CHROMIUM:
        raise Skip('chromium or chromedriver is not installed')
    shots = os.path.join(sys.argv[2], 'dash-shots')
    os.makedirs(shots, exist_ok=True)
    base = net.base(17970)
    d = os.path.join(net.dir, 'suites')
    write_suite(d, 'probe', PROBE_YAML, PROBE_SH)
    for suite in ('smoke', 'kselftest'):
        os.symlink(os.path.join(net.root, 'suites', suite),
                   os.path.join(d, suite))
    net.env['LABMESH_SUITES'] = d
    n = net.node('lab-d', base, [local_board('box')])
    http = 'http://127.0.0.1:%d' % (base + 1)
    n.start(args=['--http', '127.0.0.1:%d' % (base + 1)])
    reqs = []
    for _ in range(2):
        p = n.cli('submit', '--suite', 'smoke,probe', '--wait',
                  check_rc=False, timeout=120)
        reqs.append(p.stdout.split()[1])
    st = n.req_status(reqs[1])
    run = [b['run'] for lab in st['labs'] for b in lab['boards']][0]
    # kselftest is not installed on the board: it SKIPs as a whole
    p = n.cli('submit', '--suite', 'kselftest', '--wait', check_rc=False,
              timeout=120)
    skipped = p.stdout.split()[1]

    b = None
    try:
        b = webdriver.Browser(base + 2)
        b.go(http + '/')
        rows = b.wait('the requests table', """
            const t = document.querySelector('table.requests');
            if (!t || t.rows.length < 3) return null;
            return [...t.rows].map(r => [...r.cells].map(c => c.textContent));
        """)
        check(rows[0][:3] == ['Request', 'Submitter', 'State'],
              'requests: submitter and state columns: %r' % rows[0])
        check(all(r[2] == 'finished' for r in rows[1:]) and
              all(len(r[1]) == 12 for r in rows[1:]),
              'each request has its submitter and state: %r' % rows[1:])
        last = b.js("""const t = document.querySelector('table.commits');
            const r = t.rows[t.rows.length - 1];
            return r.cells[r.cells.length - 1].textContent;""")
        check(last == 'oldest', 'the oldest commit is not compared with'
              ' itself: %r' % last)
        shot(b, shots, 'network')

        b.go(http + '/request.html?id=' + reqs[0][:8])
        facts = b.wait('the request facts', """
            const d = document.getElementById('facts');
            return d && [...d.querySelectorAll('dt')].map(x => x.textContent);
        """)
        check(facts == ['Request', 'Submitter', 'Kernel', 'Suites',
                        'Submitted', 'Expires'], 'request facts: %r' % facts)
        text = b.js("return document.getElementById('facts').textContent;")
        check('smoke, probe' in text and reqs[0] in text,
              'the facts name the suites and the id: %r' % text)
        shot(b, shots, 'request')

        b.go(http + '/log.html?run=%s&suite=probe#L4' % run)
        log = b.wait('the numbered log', """
            const l = document.querySelectorAll('#log span.line');
            if (!l.length) return null;
            return {n: l.length,
                    fail: [...document.querySelectorAll('#log span.fail')]
                          .map(x => x.textContent),
                    anchor: document.querySelector('#L3 a.ln')
                            .getAttribute('href'),
                    target: document.querySelector('span.target') &&
                            document.querySelector('span.target').id,
                    raw: document.getElementById('raw').getAttribute('href')};
        """)
        check(log['n'] > 5 and log['anchor'] == '#L3',
              'numbered lines, each an anchor: %r' % log)
        check(len(log['fail']) >= 1 and all('not ok 2 - broken' in f or
                                            'FAIL' in f for f in log['fail'])
              and any('not ok 2 - broken' in f for f in log['fail']),
              'the failed lines are highlighted: %r' % log['fail'])
        check(log['target'] == 'L4', 'the #L4 anchor is shown: %r' % log)
        check('api/log?' in log['raw'] and 'suite=probe' in
              log['raw'], 'a raw download link: %r' % log['raw'])
        shot(b, shots, 'log')

        b.go(http + '/matrix.html?request=' + reqs[1])
        names = b.wait('the matrix form', """
            if (!document.getElementById('matrix')) return null;
            return [...document.querySelectorAll('form.filters input')]
                   .map(i => i.name);""")
        check(all(k in names for k in ('tree', 'branch', 'since')),
              'the matrix filters by tree, branch and date: %r' % names)
        hidden = b.js("""const s = document.getElementById('search');
            const rows = () => [...document.querySelectorAll(
                '#matrix tbody tr')].map(r => r.hidden);
            s.value = 'no-such-board'; s.dispatchEvent(new Event('input'));
            const a = rows();
            s.value = 'box'; s.dispatchEvent(new Event('input'));
            return [a, rows()];""")
        check(hidden[0] and all(hidden[0]) and not any(hidden[1]),
              'the search box keeps only matching rows: %r' % hidden)
        cell = b.js("return document.querySelector("
                    "'#matrix td[data-suite=probe] span.counts').textContent;")
        check(cell.endswith('100 ms'), 'a cell shows its headline metric:'
              ' %r' % cell)
        mx = n.cmd('query', '--request', reqs[1], '--matrix')
        check('1/1/0 100 ms' in mx, 'the text matrix too: %r' % mx)
        shot(b, shots, 'matrix')
        b.go(http + '/matrix.html?request=' + skipped)
        why = b.wait('the skipped suite\'s cell', JS_SKIP_CELL)
        check(why == ['SKIP', KS_WHY, KS_WHY],
              'a suite that SKIPped as a whole says why: %r' % why)

        b.go(http + '/history.html')
        opts = b.wait('the test picker', """
            const o = document.querySelectorAll('datalist#tests option');
            return o.length ? [...o].map(x => x.value) : null;""")
        check('probe.broken' in opts and 'smoke.files.cat' in opts and
              b.js("return document.querySelector('input[name=test]')"
                   ".getAttribute('list');") == 'tests',
              'history offers the tests to pick: %d' % len(opts))

        b.go(http + '/trends.html?metric=probe.probe_ms')
        tr = b.wait('the trend chart', """
            const c = document.querySelector('div.chart svg');
            if (!c) return null;
            return [[...c.querySelectorAll('text.val')].map(t => t.textContent),
                    [...c.querySelectorAll('text.xl')].map(t => t.textContent),
                    c.querySelectorAll('circle').length];""")
        check(tr[2] == 2 and tr[0] == ['100', '100'] and len(tr[1]) == 2 and
              all(len(t) == 11 for t in tr[1]),
              'every point of the trend has its value and its run time: %r'
              % tr)
        shot(b, shots, 'trends')

        b.go(http + '/compare.html?base=%s&new=%s' % (reqs[0], reqs[1]))
        summ = b.wait('the compare summary', """
            const s = document.getElementById('summary');
            if (!s) return null;
            const r = s.querySelector('b');
            return [r.textContent, r.className, getComputedStyle(r).color];
        """)
        red = b.js("return getComputedStyle(document.documentElement)"
                   ".getPropertyValue('--fail').trim();")
        check(summ[0] == '0 regressions' and summ[1] != 'regress',
              '0 regressions is not marked as one: %r' % summ)
        print('compare summary %r (alarm colour %s)' % (summ, red))
        shot(b, shots, 'compare')
    except webdriver.Error as e:
        raise Fail('the browser: %s' % e)
    finally:
        if b:
            b.close()


if __name__ == '__main__':
    main(test, Net)
