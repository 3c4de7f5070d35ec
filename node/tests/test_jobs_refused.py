#!/usr/bin/env python3
"""A board refused by its lab's policy is named with the rule, not hidden.

Two labs on loopback: lab-near (the submitter's node) and lab-far, whose
boards are `open-b` (anyone) and `locked-b` (its `submitters` lists only
another key). A request for smoke on every board: lab-far accepts it on
open-b and refuses locked-b; `submit --wait` says so as it happens,
`status REQUEST` has a `refused` row for locked-b with the policy rule,
and `status REQUEST --json` lists it under the lab's `refused`, and so does
the dashboard's request page (in chromium); the accepted boards still
run and the request ends. A request that only locked-b
fits and that names it is declined, naming that board and the rule."""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
import webdriver  # noqa: E402
from jobstest import Net, check, local_board, main, wait_for  # noqa: E402

OTHER = 'cd' * 32  # a submitter id that is not ours
RULE = 'policy: boards.submitters of this board does not list the submitter'


def test(net):
    base = net.base(18520)
    near = net.node('lab-near', base, [local_board('near-b')],
                    'policy:\n  submitters: any\n')
    near.start(args=['--http', '127.0.0.1:%d' % (base + 2)])
    locked = local_board('locked-b', tags=('far', 'locked')).replace(
        '{name: locked-b,', '{name: locked-b, submitters: [%s],' % OTHER)
    far = net.node('lab-far', base + 1,
                   [local_board('open-b', tags=('far',)), locked],
                   'policy:\n  submitters: any\n', seeds=[near])
    far.start()
    wait_for('both labs\' boards', lambda: len(near.json('boards')) == 3,
             30, 0.2)

    p = near.cli('submit', '--suite', 'smoke', '--tag', 'far', '--wait',
                 check_rc=False, timeout=180)
    print(p.stdout)
    req = p.stdout.split()[1]
    check(p.returncode == 0, 'the request on open-b passed: exit %d'
          % p.returncode)
    check('lab-far: accepted on 1 board(s)' in p.stdout and
          'lab-far/locked-b: refused: %s' % RULE in p.stdout,
          'submit --wait says which board was refused and why')

    rows = near.cmd('status', req).splitlines()
    print('\n'.join(rows))
    lr = [r.split(None, 3) for r in rows if r.startswith('lab-far ')]
    check(['lab-far', 'locked-b', 'refused', RULE] in lr,
          'status has a refused row for locked-b with the rule: %r' % lr)
    check(any(r[1] == 'open-b' and r[2] == 'done' for r in lr),
          'open-b ran: %r' % lr)

    st = near.json('status', req)
    far_l = [x for x in st['labs'] if x['lab'] == 'lab-far'][0]
    check(far_l['answer'] == 'accepted' and far_l['refused'] ==
          [{'board': 'locked-b', 'reason': RULE}],
          'JSON: the lab\'s refused boards: %r' % far_l)
    check([b['board'] for b in far_l['boards']] == ['open-b'] and
          st['done'], 'JSON: only open-b is a job, and the request ended')
    near_l = [x for x in st['labs'] if x['lab'] == 'lab-near'][0]
    check(near_l['answer'] == 'declined' and near_l['refused'] == [],
          'lab-near (no far board) declined, refusing nothing: %r' % near_l)

    page(base, req)

    # only the locked board fits, and the request names it: the lab
    # declines, naming it and the rule
    p = near.cli('submit', '--suite', 'smoke', '--board', 'locked-b',
                 '--wait', check_rc=False, timeout=120)
    print(p.stdout)
    check(p.returncode != 0 and
          'lab-far: declined: no-board: no board matches:' in p.stdout and
          'locked-b (%s)' % RULE in p.stdout,
          'a request naming locked-b is declined naming it: %r'
          % p.stdout)


JS_ROWS = """
    const t = document.querySelector('table.progress');
    if (!t || t.rows.length < 4) return null;
    return [...t.rows].map(r => [...r.cells].map(c => c.textContent));"""


def page(base, req):
    """The dashboard's request page lists the refused board (chromium,
    when there is one)."""
    if not webdriver.DRIVER or not webdriver.CHROMIUM:
        print('no chromium: the request page is not looked at')
        return
    b = webdriver.Browser(base + 3)
    try:
        b.go('http://127.0.0.1:%d/request.html?id=%s' % (base + 2, req))
        rows = b.wait('the progress table', JS_ROWS)
        print(rows)
        check(['lab-far', 'accepted', 'locked-b', 'refused', RULE, ''] in
              rows, 'the request page has the refused row: %r' % rows)
    finally:
        b.close()


if __name__ == '__main__':
    main(test, Net)
